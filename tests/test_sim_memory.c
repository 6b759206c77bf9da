/* SPDX-License-Identifier: MIT */
/*
 * The simulator's memory follows what was written, not the size of the part:
 * a 64 GiB part (NKSIM-GENERIC-64G) costs its per-block records before any
 * write, each programmed page costs its page+OOB bytes (and the first one of
 * a block that block's page table), and an erase gives it all back. Counts
 * from nk_sim_memory_get() decide, never time.
 */
#include <stdlib.h>
#include <string.h>

#include "sim_ops.h"

#define PRESET "NKSIM-GENERIC-64G"

/* Spread over the whole chip: block i * STRIDE mod blocks (STRIDE odd, so
 * the blocks are distinct). */
#define BLOCKS_WRITTEN 1000u
#define STRIDE 65u

struct rig {
    struct nk_sim *sim;
    const struct nk_chip_info *info;
    uint32_t page_bytes;
    uint64_t table_bytes; /* a resident block's page table: pointer + NOP count per page */
    uint8_t *data, *back;
};

static void rig_open(struct rig *r)
{
    r->sim = sim_open_preset(PRESET, 7); /* no factory-bad blocks: config zeroed */
    r->info = &nk_sim_params(r->sim)->chip;
    r->page_bytes = r->info->page_size + r->info->oob_size;
    r->table_bytes = (uint64_t)r->info->pages_per_block * (sizeof(void *) + 1);
    r->data = malloc(r->page_bytes);
    r->back = malloc(r->page_bytes);
    assert_non_null(r->data);
    assert_non_null(r->back);
}

static void rig_close(struct rig *r)
{
    free(r->data);
    free(r->back);
    nk_sim_close(r->sim);
}

static uint32_t written_block(const struct rig *r, uint32_t i)
{
    return (uint32_t)((uint64_t)i * STRIDE % r->info->blocks);
}

static void program(struct rig *r, uint32_t block, uint32_t page, unsigned seed)
{
    nk_test_random(r->data, r->page_bytes, seed);
    uint32_t row = block * r->info->pages_per_block + page;
    assert_int_equal(sim_program(nk_sim_ctrl(r->sim), r->info, row, 0, r->data, r->page_bytes),
                     0xe0);
}

static struct nk_sim_memory memory_of(const struct rig *r)
{
    struct nk_sim_memory m;
    nk_sim_memory_get(r->sim, &m);
    assert_int_equal(m.total_bytes, m.fixed_bytes + m.resident_bytes + m.fault_bytes);
    return m;
}

static void test_64_gib_part_costs_its_block_records_before_any_write(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    uint64_t data_bytes = (uint64_t)r.info->page_size * r.info->pages_per_block * r.info->blocks;
    assert_int_equal(data_bytes, 64ull << 30);
    struct nk_sim_memory m = memory_of(&r);
    assert_int_equal(m.resident_blocks, 0);
    assert_int_equal(m.resident_pages, 0);
    assert_int_equal(m.resident_bytes, 0);
    assert_int_equal(m.fault_bytes, 0);
    /* The bound sim.h states: 32 bytes per block and a fixed part. */
    assert_true(m.fixed_bytes <=
                (uint64_t)r.info->blocks * 32 + 4ull * r.page_bytes + (128u << 10));
    /* Reads of never-written pages return erased bytes and allocate nothing. */
    for (uint32_t i = 0; i < 64; i++) {
        uint32_t row = written_block(&r, i * 997) * r.info->pages_per_block + i;
        assert_int_equal(sim_read(nk_sim_ctrl(r.sim), r.info, row, 0, r.back, r.page_bytes), 0);
        for (uint32_t k = 0; k < r.page_bytes; k++)
            assert_int_equal(r.back[k], 0xff);
    }
    struct nk_sim_memory after = memory_of(&r);
    assert_int_equal(after.total_bytes, m.total_bytes);
    rig_close(&r);
}

static void test_each_programmed_page_costs_its_bytes_and_each_block_its_table(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    uint64_t before = memory_of(&r).total_bytes;
    /* Page 0 of 1000 blocks all over the chip: one page and one table each. */
    for (uint32_t i = 0; i < BLOCKS_WRITTEN; i++)
        program(&r, written_block(&r, i), 0, i);
    struct nk_sim_memory m = memory_of(&r);
    assert_int_equal(m.resident_blocks, BLOCKS_WRITTEN);
    assert_int_equal(m.resident_pages, BLOCKS_WRITTEN);
    assert_int_equal(m.resident_bytes, BLOCKS_WRITTEN * (r.table_bytes + r.page_bytes));
    assert_int_equal(m.total_bytes - before, m.resident_bytes);
    /* A second page in every tenth of them: page bytes alone. */
    for (uint32_t i = 0; i < BLOCKS_WRITTEN; i += 10)
        program(&r, written_block(&r, i), 1, BLOCKS_WRITTEN + i);
    struct nk_sim_memory more = memory_of(&r);
    assert_int_equal(more.resident_blocks, BLOCKS_WRITTEN);
    assert_int_equal(more.resident_pages, BLOCKS_WRITTEN + BLOCKS_WRITTEN / 10);
    assert_int_equal(more.resident_bytes - m.resident_bytes,
                     (uint64_t)(BLOCKS_WRITTEN / 10) * r.page_bytes);
    /* What was written reads back. */
    for (uint32_t i = 0; i < BLOCKS_WRITTEN; i += 111) {
        nk_test_random(r.data, r.page_bytes, i);
        uint32_t row = written_block(&r, i) * r.info->pages_per_block;
        assert_int_equal(sim_read(nk_sim_ctrl(r.sim), r.info, row, 0, r.back, r.page_bytes), 0);
        assert_memory_equal(r.back, r.data, r.page_bytes);
    }
    rig_close(&r);
}

static void test_erase_gives_back_every_byte_of_the_block(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    uint64_t before = memory_of(&r).total_bytes;
    for (uint32_t i = 0; i < 100; i++)
        for (uint32_t page = 0; page < 3; page++)
            program(&r, written_block(&r, i), page, i * 3 + page);
    assert_int_equal(memory_of(&r).resident_pages, 300);
    /* Half of them erased: exactly their share goes. */
    for (uint32_t i = 0; i < 100; i += 2)
        assert_int_equal(sim_erase(nk_sim_ctrl(r.sim), r.info, written_block(&r, i)), 0xe0);
    struct nk_sim_memory half = memory_of(&r);
    assert_int_equal(half.resident_blocks, 50);
    assert_int_equal(half.resident_pages, 150);
    assert_int_equal(half.resident_bytes, 50 * r.table_bytes + 150ull * r.page_bytes);
    for (uint32_t i = 1; i < 100; i += 2)
        assert_int_equal(sim_erase(nk_sim_ctrl(r.sim), r.info, written_block(&r, i)), 0xe0);
    struct nk_sim_memory none = memory_of(&r);
    assert_int_equal(none.resident_blocks, 0);
    assert_int_equal(none.resident_pages, 0);
    assert_int_equal(none.total_bytes, before);
    /* An erased block reads erased and takes programs from page 0 again. */
    uint32_t row = written_block(&r, 4) * r.info->pages_per_block + 2;
    assert_int_equal(sim_read(nk_sim_ctrl(r.sim), r.info, row, 0, r.back, r.page_bytes), 0);
    for (uint32_t k = 0; k < r.page_bytes; k++)
        assert_int_equal(r.back[k], 0xff);
    program(&r, written_block(&r, 4), 0, 5);
    assert_int_equal(memory_of(&r).resident_pages, 1);
    rig_close(&r);
}

static void test_a_page_programmed_with_0xff_holds_no_buffer_but_counts_against_nop(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    memset(r.data, 0xff, r.page_bytes);
    uint32_t row = 12345u * r.info->pages_per_block + 9;
    for (unsigned n = 0; n < r.info->nop; n++)
        assert_int_equal(sim_program(nk_sim_ctrl(r.sim), r.info, row, 0, r.data, r.page_bytes),
                         0xe0);
    struct nk_sim_memory m = memory_of(&r);
    assert_int_equal(m.resident_blocks, 1); /* the NOP counts live in the page table */
    assert_int_equal(m.resident_pages, 0);
    /* The NOP limit holds as before: one more program of the page FAILs. */
    assert_int_equal(sim_program(nk_sim_ctrl(r.sim), r.info, row, 0, r.data, r.page_bytes), 0xe1);
    struct nk_sim_counters c;
    nk_sim_counters(r.sim, &c);
    assert_int_equal(c.nop_violations, 1);
    rig_close(&r);
}

static void test_poked_and_disturbed_pages_are_held_one_by_one(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    uint8_t byte = 0x5a;
    assert_int_equal(nk_sim_page_poke(r.sim, 40000u * r.info->pages_per_block + 100, 7, &byte, 1),
                     0);
    struct nk_sim_memory m = memory_of(&r);
    assert_int_equal(m.resident_blocks, 1);
    assert_int_equal(m.resident_pages, 1);
    uint8_t back;
    assert_int_equal(nk_sim_page_peek(r.sim, 40000u * r.info->pages_per_block + 100, 7, &back, 1),
                     0);
    assert_int_equal(back, 0x5a);
    assert_int_equal(nk_sim_page_peek(r.sim, 40000u * r.info->pages_per_block + 101, 7, &back, 1),
                     0);
    assert_int_equal(back, 0xff);
    /* Read disturb flips a bit of another page of the block: that page, and
     * only it, gets a buffer. */
    struct nk_sim_faults faults;
    nk_sim_faults_get(r.sim, &faults);
    faults.read_disturb_reads = 1;
    faults.read_disturb_rate = 1.0;
    nk_sim_faults_set(r.sim, &faults);
    uint32_t block = 50000;
    program(&r, block, 0, 1);
    for (unsigned n = 0; n < 2; n++)
        assert_int_equal(sim_read(nk_sim_ctrl(r.sim), r.info, block * r.info->pages_per_block, 0,
                                  r.back, r.page_bytes),
                         0);
    struct nk_sim_counters c;
    nk_sim_counters(r.sim, &c);
    assert_int_equal(c.bitflips_injected, 1);
    struct nk_sim_memory after = memory_of(&r);
    assert_int_equal(after.resident_blocks, 2);
    assert_int_equal(after.resident_pages, 3);
    rig_close(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_64_gib_part_costs_its_block_records_before_any_write),
        cmocka_unit_test(test_each_programmed_page_costs_its_bytes_and_each_block_its_table),
        cmocka_unit_test(test_erase_gives_back_every_byte_of_the_block),
        cmocka_unit_test(test_a_page_programmed_with_0xff_holds_no_buffer_but_counts_against_nop),
        cmocka_unit_test(test_poked_and_disturbed_pages_are_held_one_by_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
