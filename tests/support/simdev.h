/* SPDX-License-Identifier: MIT */
/* A simulated chip opened as a device, for device-layer and file-system tests. */
#ifndef NK_SIMDEV_H
#define NK_SIMDEV_H

#include "nandkit/ecc.h"
#include "nandkit/nand.h"
#include "nandkit/sim.h"

enum nk_test_ecc {
    NK_TEST_ECC_NONE,
    NK_TEST_ECC_HAMMING256,
    NK_TEST_ECC_HAMMING512,
    NK_TEST_ECC_BCH4,
    NK_TEST_ECC_BCH8,
    NK_TEST_ECC_HW512,
    NK_TEST_ECC_ON_DIE,
};

struct nk_test_dev {
    struct nk_sim *sim;
    struct nk_nand nand;
    struct nk_ecc_engine ecc;
    struct nk_bch bch;
    void *bch_workspace;
    void *workspace;
    const struct nk_ctrl *ctrl;
};

/* Opens `preset` in memory (no factory-bad blocks unless `config` says so;
 * `config` may be NULL) with the given ECC, identifying through the port.
 * Fails the test on error. */
void nk_test_dev_open(struct nk_test_dev *dev, const char *preset, enum nk_test_ecc ecc,
                      const struct nk_sim_config *config);

/* Opens a second device on the same simulated chip (a "reboot" of the host
 * side): closes dev->nand and opens it again. */
void nk_test_dev_reopen(struct nk_test_dev *dev);

void nk_test_dev_close(struct nk_test_dev *dev);

/* Flips bit `bit` of the stored page `row` (bit numbering as nk_sim_page_peek
 * bytes: byte bit/8, mask 1 << bit%8). */
void nk_test_flip_stored_bit(struct nk_test_dev *dev, uint32_t row, uint32_t bit);

#endif
