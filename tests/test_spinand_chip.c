/* SPDX-License-Identifier: MIT */
/*
 * The SPI-NAND chip layer on a recording port: every serial operation the
 * layer sends is kept (opcode, address bytes and value, dummy clocks, data
 * direction, length and width) and checked against the command set; the
 * port answers READ ID with a part's bytes and the status with a script.
 * Then each vendor's ECC status encoding against its datasheet table.
 */
#include <string.h>

#include "nandkit/chip.h"
#include "nandkit/error.h"
#include "nandkit/nand.h"
#include "nandkit/spinand.h"
#include "testutil.h"

#define REC_MAX 64

struct rec_op {
    uint8_t opcode, cmd_width;
    uint8_t addr_bytes, addr_width;
    uint32_t addr;
    unsigned dummy_clocks;
    enum nk_spi_dir dir;
    uint8_t data_width;
    uint32_t len;
    uint8_t first_out; /* first data byte sent */
};

struct rec_port {
    struct nk_ctrl ctrl;
    const uint8_t *id;
    unsigned id_len;
    uint8_t status;      /* answered to GET FEATURE C0h */
    uint8_t config;      /* B0h, updated by SET FEATURE */
    uint8_t extra;       /* F0h, 30h and 7Ch */
    unsigned busy_polls; /* status polls answered with OIP before `status` */
    struct rec_op ops[REC_MAX];
    unsigned count;
    uint32_t clock_us; /* the port's clock (1 MHz): one tick per operation */
};

static int rec_exec(void *ctx, const struct nk_spi_op *op)
{
    struct rec_port *p = ctx;
    p->clock_us++;
    if (p->count < REC_MAX) {
        struct rec_op *r = &p->ops[p->count++];
        unsigned dw = op->dummy.width ? op->dummy.width : 1;
        r->opcode = op->cmd.opcode;
        r->cmd_width = op->cmd.width;
        r->addr_bytes = op->addr.bytes;
        r->addr_width = op->addr.width;
        r->addr = op->addr.value;
        r->dummy_clocks = op->dummy.bytes * 8u / dw;
        r->dir = op->data.dir;
        r->data_width = op->data.width;
        r->len = op->data.len;
        r->first_out = op->data.dir == NK_SPI_DATA_OUT && op->data.len ? op->data.out[0] : 0;
    }
    if (op->cmd.opcode == NK_SPINAND_SET_FEATURE && op->addr.value == NK_SPINAND_FEATURE_CONFIG)
        p->config = op->data.out[0];
    if (op->data.dir != NK_SPI_DATA_IN)
        return 0;
    memset(op->data.in, 0, op->data.len);
    switch (op->cmd.opcode) {
    case NK_SPINAND_READ_ID:
        memcpy(op->data.in, p->id, p->id_len < op->data.len ? p->id_len : op->data.len);
        break;
    case NK_SPINAND_GET_FEATURE:
        if (op->addr.value == NK_SPINAND_FEATURE_STATUS) {
            if (p->busy_polls) {
                p->busy_polls--;
                op->data.in[0] = NK_SPINAND_STATUS_OIP;
            } else {
                op->data.in[0] = p->status;
            }
        } else if (op->addr.value == NK_SPINAND_FEATURE_CONFIG) {
            op->data.in[0] = p->config;
        } else {
            op->data.in[0] = p->extra;
        }
        break;
    case NK_SPINAND_MX_READ_ECCSR:
        op->data.in[0] = p->extra;
        break;
    default:
        break;
    }
    return 0;
}

static uint32_t rec_clock_ticks(void *ctx)
{
    const struct rec_port *p = ctx;
    return p->clock_us;
}

static const struct nk_ctrl_ops rec_ops = {.exec_spi = rec_exec, .clock_ticks = rec_clock_ticks};

static void rec_init(struct rec_port *p, const char *model, uint8_t widths)
{
    memset(p, 0, sizeof *p);
    const struct nk_spinand_part *part = nk_spinand_table_find(model);
    assert_non_null(part);
    p->ctrl.ops = &rec_ops;
    p->ctrl.ctx = p;
    p->ctrl.caps = NK_CTRL_CAP_SERIAL;
    p->ctrl.clock_mhz = 1;
    p->ctrl.spi.widths = widths;
    p->id = part->info.id;
    p->id_len = part->info.id_len;
    p->config = part->config_default;
}

/* Identifies on the port and forgets the operations it took. */
static void rec_identify(struct rec_port *p, struct nk_chip *chip)
{
    assert_int_equal(nk_chip_identify(chip, &p->ctrl, 0), 0);
    p->count = 0;
}

static void assert_op(const struct rec_op *r, uint8_t opcode, uint8_t addr_bytes, uint32_t addr,
                      unsigned dummy_clocks, enum nk_spi_dir dir, uint32_t len, uint8_t width)
{
    if (r->opcode != opcode)
        fail_msg("opcode %02x, expected %02x", r->opcode, opcode);
    assert_int_equal(r->addr_bytes, addr_bytes);
    if (addr_bytes)
        assert_int_equal(r->addr, addr);
    assert_int_equal(r->dummy_clocks, dummy_clocks);
    assert_int_equal(r->dir, dir);
    if (dir != NK_SPI_DATA_NONE) {
        assert_int_equal(r->len, len);
        assert_int_equal(r->data_width ? r->data_width : 1, width);
    }
}

static void assert_status_poll(const struct rec_op *r)
{
    assert_op(r, NK_SPINAND_GET_FEATURE, 1, NK_SPINAND_FEATURE_STATUS, 0, NK_SPI_DATA_IN, 1, 1);
}

static void test_identify_resets_reads_the_id_and_unlocks_every_block(void **state)
{
    (void)state;
    struct rec_port p;
    struct nk_chip chip;
    rec_init(&p, "W25N01GV", NK_SPI_WIDTH_1);
    p.config = NK_SPINAND_CONFIG_ECC_EN; /* BUF clear: continuous read at power-up */
    assert_int_equal(nk_chip_identify(&chip, &p.ctrl, 0), 0);
    assert_string_equal(chip.info.model, "W25N01GV");
    assert_true(nk_chip_is_serial(&chip));
    unsigned i = 0;
    assert_op(&p.ops[i++], NK_SPINAND_RESET, 0, 0, 0, NK_SPI_DATA_NONE, 0, 1);
    assert_status_poll(&p.ops[i++]);
    /* 9Fh and one byte (dummy for Winbond, address 00h for GigaDevice). */
    assert_op(&p.ops[i++], NK_SPINAND_READ_ID, 1, 0x00, 0, NK_SPI_DATA_IN, 4, 1);
    assert_op(&p.ops[i++], NK_SPINAND_READ_ID, 1, 0x00, 0, NK_SPI_DATA_IN, 4, 1);
    assert_op(&p.ops[i], NK_SPINAND_SET_FEATURE, 1, NK_SPINAND_FEATURE_PROTECT, 0, NK_SPI_DATA_OUT,
              1, 1);
    assert_int_equal(p.ops[i++].first_out, 0x00);
    assert_op(&p.ops[i++], NK_SPINAND_GET_FEATURE, 1, NK_SPINAND_FEATURE_CONFIG, 0, NK_SPI_DATA_IN,
              1, 1);
    assert_op(&p.ops[i], NK_SPINAND_SET_FEATURE, 1, NK_SPINAND_FEATURE_CONFIG, 0, NK_SPI_DATA_OUT,
              1, 1);
    assert_int_equal(p.ops[i++].first_out, NK_SPINAND_CONFIG_ECC_EN | NK_SPINAND_CONFIG_BUF);
    assert_int_equal(p.count, i);
}

static void test_every_table_part_is_identified_from_its_id_bytes(void **state)
{
    (void)state;
    unsigned parts = 0;
    for (unsigned k = 0; nk_spinand_table_entry(k); k++, parts++) {
        const struct nk_spinand_part *part = nk_spinand_table_entry(k);
        struct rec_port p;
        struct nk_chip chip;
        rec_init(&p, part->info.model, NK_SPI_WIDTH_1);
        assert_int_equal(nk_chip_identify(&chip, &p.ctrl, 0), 0);
        assert_string_equal(chip.info.model, part->info.model);
        assert_ptr_equal(nk_chip_spinand_part(&chip), part);
    }
    assert_int_equal(parts, 6);
}

static void test_unknown_id_is_enodev_naming_the_bytes(void **state)
{
    (void)state;
    static const uint8_t id[] = {0x12, 0x34, 0x56, 0x78};
    struct rec_port p;
    struct nk_chip chip;
    rec_init(&p, "W25N01GV", NK_SPI_WIDTH_1);
    p.id = id;
    p.id_len = sizeof id;
    assert_int_equal(nk_chip_identify(&chip, &p.ctrl, 0), -NK_ENODEV);
    assert_non_null(strstr(chip.diag.text, "12 34 56 78"));
}

static void test_page_read_is_13h_then_polling_then_read_from_cache_per_piece(void **state)
{
    (void)state;
    struct rec_port p;
    struct nk_chip chip;
    uint8_t data[2048], oob[64];
    rec_init(&p, "W25N01GV", NK_SPI_WIDTH_1);
    rec_identify(&p, &chip);
    p.busy_polls = 2;
    struct nk_xfer x[2] = {{0, sizeof data, data}, {2048, sizeof oob, oob}};
    assert_int_equal(nk_chip_read_page(&chip, 0x1234, x, 2), 0);
    assert_op(&p.ops[0], NK_SPINAND_PAGE_READ, 3, 0x1234, 0, NK_SPI_DATA_NONE, 0, 1);
    assert_status_poll(&p.ops[1]);
    assert_status_poll(&p.ops[2]);
    assert_status_poll(&p.ops[3]);
    assert_op(&p.ops[4], NK_SPINAND_READ_CACHE_FAST, 2, 0, 8, NK_SPI_DATA_IN, 2048, 1);
    assert_op(&p.ops[5], NK_SPINAND_READ_CACHE_FAST, 2, 2048, 8, NK_SPI_DATA_IN, 64, 1);
    assert_int_equal(p.count, 6);
}

static void test_read_widths_pick_3bh_ebh_and_6bh(void **state)
{
    (void)state;
    struct rec_port p;
    struct nk_chip chip;
    uint8_t data[16];
    struct nk_xfer x = {0, sizeof data, data};

    rec_init(&p, "W25N01GV", NK_SPI_WIDTH_1 | NK_SPI_WIDTH_2 | NK_SPI_WIDTH_4);
    rec_identify(&p, &chip);
    /* Quad I/O where the part has it: address and 4 dummy clocks on 4 lines. */
    assert_int_equal(nk_chip_read_page(&chip, 7, &x, 1), 0);
    assert_op(&p.ops[2], NK_SPINAND_READ_CACHE_QUAD_IO, 2, 0, 4, NK_SPI_DATA_IN, 16, 4);
    assert_int_equal(p.ops[2].addr_width, 4);
    p.count = 0;
    assert_int_equal(nk_spinand_set_bus_width(&chip, 2), 0);
    p.count = 0;
    assert_int_equal(nk_chip_read_page(&chip, 7, &x, 1), 0);
    assert_op(&p.ops[2], NK_SPINAND_READ_CACHE_X2, 2, 0, 8, NK_SPI_DATA_IN, 16, 2);

    /* Macronix: no EBh; x4 output (6Bh) needs the QE bit, set at open. */
    rec_init(&p, "MX35LF1GE4AB", NK_SPI_WIDTH_1 | NK_SPI_WIDTH_4);
    rec_identify(&p, &chip);
    assert_true(p.config & NK_SPINAND_CONFIG_QE);
    assert_int_equal(nk_chip_read_page(&chip, 7, &x, 1), 0);
    assert_op(&p.ops[2], NK_SPINAND_READ_CACHE_X4, 2, 0, 8, NK_SPI_DATA_IN, 16, 4);
    assert_int_equal(nk_spinand_set_bus_width(&chip, 1), 0);
    assert_false(p.config & NK_SPINAND_CONFIG_QE);

    /* GigaDevice's EBh takes one dummy byte: 2 clocks on 4 lines. */
    rec_init(&p, "GD5F1GQ4UB", NK_SPI_WIDTH_1 | NK_SPI_WIDTH_4);
    rec_identify(&p, &chip);
    assert_int_equal(nk_chip_read_page(&chip, 7, &x, 1), 0);
    assert_op(&p.ops[2], NK_SPINAND_READ_CACHE_QUAD_IO, 2, 0, 2, NK_SPI_DATA_IN, 16, 4);

    /* Kioxia's first generation: x4 reads (6Bh), program loads on one line. */
    rec_init(&p, "TC58CVG0S3HRAIG", NK_SPI_WIDTH_1 | NK_SPI_WIDTH_4);
    rec_identify(&p, &chip);
    assert_int_equal(nk_chip_read_page(&chip, 7, &x, 1), 0);
    assert_op(&p.ops[2], NK_SPINAND_READ_CACHE_X4, 2, 0, 8, NK_SPI_DATA_IN, 16, 4);
    p.count = 0;
    assert_int_equal(nk_chip_program_page(&chip, 7, &x, 1, false), 0);
    assert_op(&p.ops[1], NK_SPINAND_PROGRAM_LOAD, 2, 0, 0, NK_SPI_DATA_OUT, 16, 1);

    rec_init(&p, "MX35LF1GE4AB", NK_SPI_WIDTH_1);
    rec_identify(&p, &chip);
    assert_int_equal(nk_spinand_set_bus_width(&chip, 4), -NK_ENOTSUP);
    assert_int_equal(nk_spinand_set_bus_width(&chip, 3), -NK_EINVAL);
}

static void test_program_is_write_enable_load_random_load_execute(void **state)
{
    (void)state;
    struct rec_port p;
    struct nk_chip chip;
    uint8_t data[2048], oob[64];
    memset(data, 0x5a, sizeof data);
    memset(oob, 0xa5, sizeof oob);
    rec_init(&p, "W25N01GV", NK_SPI_WIDTH_1);
    rec_identify(&p, &chip);
    struct nk_xfer x[2] = {{0, sizeof data, data}, {2048, sizeof oob, oob}};
    assert_int_equal(nk_chip_program_page(&chip, 0x40, x, 2, false), 0);
    assert_op(&p.ops[0], NK_SPINAND_WRITE_ENABLE, 0, 0, 0, NK_SPI_DATA_NONE, 0, 1);
    assert_op(&p.ops[1], NK_SPINAND_PROGRAM_LOAD, 2, 0, 0, NK_SPI_DATA_OUT, 2048, 1);
    assert_int_equal(p.ops[1].first_out, 0x5a);
    assert_op(&p.ops[2], NK_SPINAND_RANDOM_LOAD, 2, 2048, 0, NK_SPI_DATA_OUT, 64, 1);
    assert_int_equal(p.ops[2].first_out, 0xa5);
    assert_op(&p.ops[3], NK_SPINAND_PROGRAM_EXECUTE, 3, 0x40, 0, NK_SPI_DATA_NONE, 0, 1);
    assert_status_poll(&p.ops[4]);
    assert_int_equal(p.count, 5);

    /* Four lines: 32h and 34h. */
    rec_init(&p, "W25N01GV", NK_SPI_WIDTH_1 | NK_SPI_WIDTH_4);
    rec_identify(&p, &chip);
    assert_int_equal(nk_chip_program_page(&chip, 0x40, x, 2, false), 0);
    assert_op(&p.ops[1], NK_SPINAND_PROGRAM_LOAD_X4, 2, 0, 0, NK_SPI_DATA_OUT, 2048, 4);
    assert_op(&p.ops[2], NK_SPINAND_RANDOM_LOAD_X4, 2, 2048, 0, NK_SPI_DATA_OUT, 64, 4);
}

static void test_p_fail_and_e_fail_are_eio(void **state)
{
    (void)state;
    struct rec_port p;
    struct nk_chip chip;
    uint8_t data[4] = {0};
    rec_init(&p, "MT29F1G01ABAFD", NK_SPI_WIDTH_1);
    rec_identify(&p, &chip);
    struct nk_xfer x = {0, sizeof data, data};
    p.status = NK_SPINAND_STATUS_P_FAIL;
    assert_int_equal(nk_chip_program_page(&chip, 5, &x, 1, false), -NK_EIO);
    p.count = 0;
    p.status = NK_SPINAND_STATUS_E_FAIL;
    assert_int_equal(nk_chip_erase_block(&chip, 3 * 64), -NK_EIO);
    assert_op(&p.ops[0], NK_SPINAND_WRITE_ENABLE, 0, 0, 0, NK_SPI_DATA_NONE, 0, 1);
    assert_op(&p.ops[1], NK_SPINAND_BLOCK_ERASE, 3, 3 * 64, 0, NK_SPI_DATA_NONE, 0, 1);
    assert_status_poll(&p.ops[2]);
    assert_non_null(strstr(chip.diag.text, "block 3"));
    p.status = 0;
    assert_int_equal(nk_chip_erase_block(&chip, 3 * 64), 0);
}

static void test_two_plane_part_puts_the_plane_in_column_bit_12(void **state)
{
    (void)state;
    struct rec_port p;
    struct nk_chip chip;
    uint8_t buf[8];
    rec_init(&p, "MT29F2G01ABAGD", NK_SPI_WIDTH_1);
    rec_identify(&p, &chip);
    assert_int_equal(chip.info.planes, 2);
    struct nk_xfer x = {2048, sizeof buf, buf};
    assert_int_equal(nk_chip_read_page(&chip, 1 * 64 + 3, &x, 1), 0); /* block 1: plane 1 */
    assert_int_equal(p.ops[2].addr, 2048u | 0x1000u);
    p.count = 0;
    assert_int_equal(nk_chip_read_page(&chip, 2 * 64 + 3, &x, 1), 0); /* block 2: plane 0 */
    assert_int_equal(p.ops[2].addr, 2048u);
    p.count = 0;
    struct nk_xfer w = {0, sizeof buf, buf};
    assert_int_equal(nk_chip_program_page(&chip, 5 * 64, &w, 1, false), 0);
    assert_int_equal(p.ops[1].addr, 0x1000u);
    assert_int_equal(p.ops[2].addr, 5u * 64u); /* the row itself is unchanged */
}

static void test_a_part_that_stays_busy_times_out(void **state)
{
    (void)state;
    struct rec_port p;
    struct nk_chip chip;
    rec_init(&p, "MX35LF1GE4AB", NK_SPI_WIDTH_1);
    rec_identify(&p, &chip);
    p.busy_polls = UINT32_MAX / 2;
    assert_int_equal(nk_chip_erase_block(&chip, 0), -NK_ETIMEDOUT);
    assert_non_null(strstr(chip.diag.text, "busy"));
}

/* ----- ECC status encodings (docs/chip.md) -------------------------------- */

struct ecc_case {
    uint8_t status; /* the status register */
    uint8_t extra;  /* the vendor register */
    int result;
};

static void check_scheme(enum nk_spinand_ecc_status scheme, unsigned strength,
                         const struct ecc_case *cases, unsigned count)
{
    for (unsigned i = 0; i < count; i++) {
        int got = nk_spinand_ecc_decode(scheme, cases[i].status, cases[i].extra, strength);
        if (got != cases[i].result)
            fail_msg("scheme %d status %02x extra %02x: %d, expected %d", (int)scheme,
                     cases[i].status, cases[i].extra, got, cases[i].result);
    }
}

static void test_winbond_two_bits(void **state)
{
    (void)state;
    /* W25N01GV: ECC-1/ECC-0 (status bits 5:4). */
    static const struct ecc_case cases[] = {
        {0x00, 0, 0},           {0x10, 0, 1}, {0x20, 0, -NK_EBADMSG},
        {0x30, 0, -NK_EBADMSG}, {0x0c, 0, 0}, /* P_FAIL/E_FAIL do not matter to a read */
    };
    check_scheme(NK_SPINAND_ECC_TWO_BITS, 1, cases, sizeof cases / sizeof cases[0]);
    assert_int_equal(nk_spinand_ecc_extra_register(NK_SPINAND_ECC_TWO_BITS, 0x10), 0);
}

static void test_gigadevice_three_levels_refined_by_status2(void **state)
{
    (void)state;
    /* GD5F1GQ4xExxG: 00 none, 01 1..7 refined by F0h bits 5:4 (4 + ECCSE),
     * 11 eight, 10 uncorrectable. */
    static const struct ecc_case cases[] = {
        {0x00, 0x00, 0}, {0x10, 0x00, 4}, {0x10, 0x10, 5},           {0x10, 0x20, 6},
        {0x10, 0x30, 7}, {0x30, 0x00, 8}, {0x20, 0x00, -NK_EBADMSG},
    };
    check_scheme(NK_SPINAND_ECC_GIGADEVICE, 8, cases, sizeof cases / sizeof cases[0]);
    assert_int_equal(nk_spinand_ecc_extra_register(NK_SPINAND_ECC_GIGADEVICE, 0x10),
                     NK_SPINAND_FEATURE_GD_STATUS2);
    assert_int_equal(nk_spinand_ecc_extra_register(NK_SPINAND_ECC_GIGADEVICE, 0x30), 0);
}

static void test_micron_three_bits_report_the_range_bound(void **state)
{
    (void)state;
    static const struct ecc_case cases[] = {
        {0x00, 0, 0},           {0x10, 0, 3},       {0x30, 0, 6},       {0x50, 0, 8},
        {0x20, 0, -NK_EBADMSG}, {0x40, 0, -NK_EIO}, {0x60, 0, -NK_EIO}, {0x70, 0, -NK_EIO},
    };
    check_scheme(NK_SPINAND_ECC_MICRON, 8, cases, sizeof cases / sizeof cases[0]);
}

static void test_macronix_count_from_the_ecc_status_register(void **state)
{
    (void)state;
    static const struct ecc_case cases[] = {
        {0x00, 0x00, 0}, {0x10, 0x01, 1},           {0x10, 0x04, 4},
        {0x10, 0x00, 4}, /* 0: the bound */
        {0x10, 0x09, 4}, {0x20, 0x00, -NK_EBADMSG}, {0x30, 0x00, -NK_EIO},
    };
    check_scheme(NK_SPINAND_ECC_MACRONIX, 4, cases, sizeof cases / sizeof cases[0]);
    assert_int_equal(nk_spinand_ecc_extra_register(NK_SPINAND_ECC_MACRONIX, 0x10),
                     NK_SPINAND_MX_READ_ECCSR);
}

static void test_kioxia_count_from_the_bitflip_register(void **state)
{
    (void)state;
    static const struct ecc_case cases[] = {
        {0x00, 0x00, 0}, {0x10, 0x30, 3}, {0x30, 0x70, 7},
        {0x30, 0x80, 8}, {0x10, 0x00, 8}, {0x20, 0x00, -NK_EBADMSG},
    };
    check_scheme(NK_SPINAND_ECC_KIOXIA, 8, cases, sizeof cases / sizeof cases[0]);
    assert_int_equal(nk_spinand_ecc_extra_register(NK_SPINAND_ECC_KIOXIA, 0x30),
                     NK_SPINAND_FEATURE_TOSHIBA_MBF);
}

static void test_ecc_result_reads_the_vendor_register_only_when_asked(void **state)
{
    (void)state;
    struct rec_port p;
    struct nk_chip chip;
    uint8_t buf[4];
    struct nk_xfer x = {0, sizeof buf, buf};

    rec_init(&p, "GD5F1GQ4UB", NK_SPI_WIDTH_1);
    rec_identify(&p, &chip);
    p.status = 0x10;
    p.extra = 0x20;
    assert_int_equal(nk_chip_read_page(&chip, 1, &x, 1), 0);
    p.count = 0;
    assert_int_equal(nk_spinand_ecc_result(&chip), 6);
    assert_op(&p.ops[0], NK_SPINAND_GET_FEATURE, 1, NK_SPINAND_FEATURE_GD_STATUS2, 0,
              NK_SPI_DATA_IN, 1, 1);
    assert_int_equal(p.count, 1);

    rec_init(&p, "MX35LF1GE4AB", NK_SPI_WIDTH_1);
    rec_identify(&p, &chip);
    p.status = 0x10;
    p.extra = 0x03;
    assert_int_equal(nk_chip_read_page(&chip, 1, &x, 1), 0);
    p.count = 0;
    assert_int_equal(nk_spinand_ecc_result(&chip), 3);
    assert_op(&p.ops[0], NK_SPINAND_MX_READ_ECCSR, 0, 0, 8, NK_SPI_DATA_IN, 1, 1);

    rec_init(&p, "MT29F1G01ABAFD", NK_SPI_WIDTH_1);
    rec_identify(&p, &chip);
    p.status = 0x30;
    assert_int_equal(nk_chip_read_page(&chip, 1, &x, 1), 0);
    p.count = 0;
    assert_int_equal(nk_spinand_ecc_result(&chip), 6);
    assert_int_equal(p.count, 0);
}

/* ----- layouts --------------------------------------------------------------- */

static void test_free_oob_layouts_follow_each_vendor(void **state)
{
    (void)state;
    static const struct {
        const char *model;
        unsigned free_bytes, first_free, ecc_offset;
    } want[] = {
        {"W25N01GV", 24, 2, 8},     {"GD5F1GQ4UB", 63, 1, 64},      {"MT29F1G01ABAFD", 62, 2, 64},
        {"MX35LF1GE4AB", 62, 2, 0}, {"TC58CVG0S3HRAIG", 62, 2, 64}, {"MT29F2G01ABAGD", 62, 2, 64},
    };
    for (unsigned i = 0; i < sizeof want / sizeof want[0]; i++) {
        const struct nk_spinand_part *part = nk_spinand_table_find(want[i].model);
        assert_non_null(part);
        struct nk_oob_layout layout;
        nk_spinand_oob_layout(part, &layout);
        assert_int_equal(nk_oob_free_bytes(&layout), want[i].free_bytes);
        assert_int_equal(layout.free[0].offset, want[i].first_free);
        if (want[i].ecc_offset)
            assert_int_equal(layout.ecc[0].offset, want[i].ecc_offset);
        else
            assert_int_equal(layout.ecc_count, 0);
        assert_int_equal(nk_oob_layout_check(&layout, part->info.oob_size, 0), 0);
        /* The factory marker (OOB byte 0) is never free. */
        assert_true(layout.free[0].offset >= 1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identify_resets_reads_the_id_and_unlocks_every_block),
        cmocka_unit_test(test_every_table_part_is_identified_from_its_id_bytes),
        cmocka_unit_test(test_unknown_id_is_enodev_naming_the_bytes),
        cmocka_unit_test(test_page_read_is_13h_then_polling_then_read_from_cache_per_piece),
        cmocka_unit_test(test_read_widths_pick_3bh_ebh_and_6bh),
        cmocka_unit_test(test_program_is_write_enable_load_random_load_execute),
        cmocka_unit_test(test_p_fail_and_e_fail_are_eio),
        cmocka_unit_test(test_two_plane_part_puts_the_plane_in_column_bit_12),
        cmocka_unit_test(test_a_part_that_stays_busy_times_out),
        cmocka_unit_test(test_winbond_two_bits),
        cmocka_unit_test(test_gigadevice_three_levels_refined_by_status2),
        cmocka_unit_test(test_micron_three_bits_report_the_range_bound),
        cmocka_unit_test(test_macronix_count_from_the_ecc_status_register),
        cmocka_unit_test(test_kioxia_count_from_the_bitflip_register),
        cmocka_unit_test(test_ecc_result_reads_the_vendor_register_only_when_asked),
        cmocka_unit_test(test_free_oob_layouts_follow_each_vendor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
