/* SPDX-License-Identifier: MIT */
#include "simdev.h"

#include <string.h>

#include "testutil.h"

static void nk_test_dev_setup_ecc(struct nk_test_dev *dev, enum nk_test_ecc ecc)
{
    const struct nk_chip_info *chip = &nk_sim_params(dev->sim)->chip;
    switch (ecc) {
    case NK_TEST_ECC_NONE:
        nk_ecc_none_init(&dev->ecc);
        break;
    case NK_TEST_ECC_HAMMING256:
        assert_int_equal(nk_ecc_hamming_init(&dev->ecc, 256, false), 0);
        break;
    case NK_TEST_ECC_HAMMING512:
        assert_int_equal(nk_ecc_hamming_init(&dev->ecc, 512, false), 0);
        break;
    case NK_TEST_ECC_BCH4:
    case NK_TEST_ECC_BCH8: {
        unsigned t = ecc == NK_TEST_ECC_BCH4 ? 4 : 8;
        size_t size = nk_bch_workspace_size(13, t, 0);
        dev->bch_workspace = malloc(size);
        assert_int_equal(nk_bch_init(&dev->bch, 512, t, 0, dev->bch_workspace, size), 0);
        nk_ecc_bch_engine_init(&dev->ecc, &dev->bch);
        break;
    }
    case NK_TEST_ECC_HW512:
        dev->ctrl = nk_sim_ctrl_hw_ecc(dev->sim, 512);
        assert_non_null(dev->ctrl);
        assert_int_equal(nk_ecc_hw_init(&dev->ecc, dev->ctrl), 0);
        break;
    case NK_TEST_ECC_ON_DIE:
        nk_ecc_on_die_init(&dev->ecc, chip->ecc_step, chip->ecc_strength);
        break;
    }
}

static void nk_test_dev_open_nand(struct nk_test_dev *dev)
{
    struct nk_nand_config config;
    memset(&config, 0, sizeof config);
    config.ctrl = dev->ctrl;
    config.ecc = &dev->ecc;
    config.workspace = dev->workspace;
    config.workspace_size = nk_nand_workspace_size(&nk_sim_params(dev->sim)->chip);
    config.clock = nk_sim_clock(dev->sim);
    int err = nk_nand_open(&dev->nand, &config);
    if (err)
        fail_msg("nk_nand_open: %d %s", err, dev->nand.diag.text);
}

void nk_test_dev_open(struct nk_test_dev *dev, const char *preset, enum nk_test_ecc ecc,
                      const struct nk_sim_config *config)
{
    memset(dev, 0, sizeof *dev);
    struct nk_sim_config c;
    if (config) {
        c = *config;
    } else {
        memset(&c, 0, sizeof c);
        c.seed = 1;
    }
    if (!c.preset && !c.params)
        c.preset = preset;
    struct nk_diag why[1] = {{""}};
    int err = nk_sim_open(&dev->sim, &c, why);
    if (err)
        fail_msg("nk_sim_open(%s): %s", preset, why->text);
    dev->ctrl = nk_sim_ctrl(dev->sim);
    nk_test_dev_setup_ecc(dev, ecc);
    dev->workspace = malloc(nk_nand_workspace_size(&nk_sim_params(dev->sim)->chip));
    nk_test_dev_open_nand(dev);
}

void nk_test_dev_reopen(struct nk_test_dev *dev)
{
    nk_nand_close(&dev->nand);
    nk_test_dev_open_nand(dev);
}

void nk_test_dev_close(struct nk_test_dev *dev)
{
    nk_nand_close(&dev->nand);
    nk_sim_close(dev->sim);
    free(dev->workspace);
    free(dev->bch_workspace);
    memset(dev, 0, sizeof *dev);
}

void nk_test_flip_stored_bit(struct nk_test_dev *dev, uint32_t row, uint32_t bit)
{
    uint8_t byte;
    assert_int_equal(nk_sim_page_peek(dev->sim, row, bit / 8, &byte, 1), 0);
    byte ^= (uint8_t)(1u << (bit % 8));
    assert_int_equal(nk_sim_page_poke(dev->sim, row, bit / 8, &byte, 1), 0);
}
