/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: bad-block table attach from arbitrary last blocks. The
 * input writes raw bytes into the pages of a small simulated chip (mostly
 * into the last NK_BBT_MAX_BLOCKS blocks, where the tables live), sets
 * factory markers and injects program/erase failures; then the table is
 * attached, a block is marked worn, and the table is attached again.
 * Findings: crashes, sanitizer reports, and broken promises:
 *   - the two copies never share a block;
 *   - after a successful mark, a re-attach reports the block as bad;
 *   - a re-attach keeps every bad block bad (stable entries).
 *
 * Geometry: 2048 + 64 bytes, 4 pages per block, 64 blocks.
 * Input: one flags byte (bit 0 Hamming ECC, else none; bit 1 force a marker
 * scan on the first attach; bit 2 dry run on the first attach), one byte
 * naming the block to mark worn, then records:
 *   byte 0      kind (mod 4): 0 poke bytes, 1 factory-bad marker,
 *               2 one failing program, 3 one failing erase (the latter
 *               three take the block from byte 1 mod 64, then next record)
 *   byte 1      page among the last 4 blocks (mod 16), or block
 *   bytes 2..3  column (little-endian, mod page + OOB)
 *   byte 4      length n (mod 32)
 *   then        n bytes
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nandkit/bbt.h"
#include "nandkit/ecc.h"
#include "nandkit/error.h"
#include "nandkit/nand.h"
#include "nandkit/sim.h"

#define PAGE 2048u
#define OOB 64u
#define PPB 4u
#define BLOCKS 64u

static uint32_t workspace[(PAGE + 3 * OOB) / 4 + 16];
static uint32_t table_memory[(BLOCKS / 4 + PAGE + OOB) / 4 + 8];

static int open_dev(struct nk_nand *dev, struct nk_sim *sim, const struct nk_sim_params *params,
                    bool ecc_on, struct nk_ecc_engine *ecc)
{
    struct nk_nand_config nc;
    memset(&nc, 0, sizeof nc);
    nc.ctrl = nk_sim_ctrl(sim);
    nc.chip = &params->chip;
    if (ecc_on) {
        if (nk_ecc_hamming_init(ecc, 256, false) != 0)
            abort();
        nc.ecc = ecc;
    }
    nc.workspace = workspace;
    nc.workspace_size = sizeof workspace;
    nc.skip_reset = true;
    return nk_nand_open(dev, &nc);
}

static int attach(struct nk_nand *dev, struct nk_bbt *bbt, bool force, bool dry)
{
    struct nk_bbt_config bc;
    memset(&bc, 0, sizeof bc);
    bc.memory = table_memory;
    bc.memory_size = sizeof table_memory;
    bc.force_scan = force;
    bc.dry_run = dry;
    if (nk_bbt_memory_size(dev) > sizeof table_memory)
        abort();
    int err = nk_bbt_attach(dev, bbt, &bc);
    if (err == 0 && bbt->info.main_block >= 0 && bbt->info.main_block == bbt->info.mirror_block)
        abort(); /* both copies in one block */
    return err;
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len)
{
    static struct nk_sim_params params;
    static bool ready;
    struct nk_diag why[1];
    if (!ready) {
        if (nk_sim_params_geometry(&params, PAGE, OOB, PPB, BLOCKS, why) != 0)
            abort();
        ready = true;
    }
    if (len < 2)
        return 0;
    uint8_t flags = in[0];
    uint32_t victim = in[1] % BLOCKS;

    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.params = &params;
    config.seed = 1;
    struct nk_sim *sim;
    if (nk_sim_open(&sim, &config, why) != 0)
        abort();
    const uint32_t first_table_page = (BLOCKS - NK_BBT_MAX_BLOCKS) * PPB;
    size_t at = 2;
    while (at + 5 <= len) {
        unsigned kind = in[at] % 4;
        uint32_t block = in[at + 1] % BLOCKS;
        uint32_t page = first_table_page + in[at + 1] % (NK_BBT_MAX_BLOCKS * PPB);
        uint32_t column = (uint32_t)(in[at + 2] | in[at + 3] << 8) % (PAGE + OOB);
        uint32_t n = in[at + 4] % 32u;
        at += 5;
        if (n > len - at)
            n = (uint32_t)(len - at);
        if (column + n > PAGE + OOB)
            n = PAGE + OOB - column;
        if (kind == 0) {
            nk_sim_page_poke(sim, page, column, in + at, n);
            at += n;
        } else if (kind == 1) {
            static const uint8_t zero = 0;
            nk_sim_page_poke(sim, block * PPB, PAGE, &zero, 1);
        } else {
            nk_sim_fail_inject(sim, block, kind == 2 ? NK_SIM_FAIL_PROGRAM : NK_SIM_FAIL_ERASE,
                               false);
        }
    }

    struct nk_ecc_engine ecc;
    struct nk_nand dev;
    struct nk_bbt bbt;
    bool ecc_on = (flags & 1) != 0;
    if (open_dev(&dev, sim, &params, ecc_on, &ecc) != 0)
        abort();
    bool dry = (flags & 4) != 0;
    if (attach(&dev, &bbt, (flags & 2) != 0, dry) == 0) {
        static uint8_t before[BLOCKS];
        for (uint32_t b = 0; b < BLOCKS; b++)
            before[b] = (uint8_t)nk_bbt_block_state(&bbt, b);
        int marked = nk_bbt_mark_worn(&dev, victim);
        nk_bbt_detach(&dev);
        if (!dry && attach(&dev, &bbt, false, false) == 0) {
            for (uint32_t b = 0; b < BLOCKS; b++) {
                int s = nk_bbt_block_state(&bbt, b);
                bool was_bad = before[b] == NK_BBT_WORN || before[b] == NK_BBT_FACTORY_BAD;
                if (was_bad && s != NK_BBT_WORN && s != NK_BBT_FACTORY_BAD)
                    abort(); /* a bad block came back good */
            }
            int s = nk_bbt_block_state(&bbt, victim);
            if (marked == 0 && s != NK_BBT_WORN && s != NK_BBT_FACTORY_BAD)
                abort(); /* the mark was lost */
            nk_bbt_detach(&dev);
        }
    }
    nk_nand_close(&dev);
    nk_sim_close(sim);
    return 0;
}
