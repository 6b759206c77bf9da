/* SPDX-License-Identifier: MIT */
/*
 * User-space stand-in for the NAND core interface that Linux's software ECC
 * engines (ecc-sw-hamming.c, ecc-sw-bch.c) touch: a device with one ECC
 * context and an MTD with page and OOB sizes. Only the fields and calls those
 * two files use exist; the OOB-layout and request-tweaking calls do nothing
 * (bench_ecc_linux calls the per-step calculate/correct functions only, and
 * the engines' init functions to set them up).
 */
#ifndef NK_SHIM_LINUX_MTD_NAND_H
#define NK_SHIM_LINUX_MTD_NAND_H

#include "nk_kernel_shim.h"

enum nand_ecc_engine_type { NAND_ECC_ENGINE_TYPE_INVALID, NAND_ECC_ENGINE_TYPE_SOFT };
enum nand_ecc_algo { NAND_ECC_ALGO_UNKNOWN, NAND_ECC_ALGO_HAMMING, NAND_ECC_ALGO_BCH };
enum nand_page_io_req_type { NAND_PAGE_READ, NAND_PAGE_WRITE };
enum { MTD_OPS_PLACE_OOB, MTD_OPS_AUTO_OOB, MTD_OPS_RAW };
#define NAND_ECC_MAXIMIZE_STRENGTH 0x1u

struct nand_ecc_props {
    enum nand_ecc_engine_type engine_type;
    enum nand_ecc_algo algo;
    unsigned int step_size;
    unsigned int strength;
    unsigned int flags;
};

struct nand_ecc_context {
    struct nand_ecc_props conf;
    unsigned int nsteps;
    unsigned int total;
    void *priv;
};

struct nand_ecc {
    struct nand_ecc_props user_conf;
    struct nand_ecc_context ctx;
};

struct mtd_ooblayout_ops {
    int unused;
};

struct mtd_ecc_stats {
    unsigned int corrected;
    unsigned int failed;
};

struct mtd_info {
    uint32_t writesize;
    uint32_t oobsize;
    const struct mtd_ooblayout_ops *ooblayout;
    struct mtd_ecc_stats ecc_stats;
};

/* The MTD comes first, so an MTD pointer is also the device's. */
struct nand_device {
    struct mtd_info mtd;
    struct nand_ecc ecc;
};

static inline struct mtd_info *nanddev_to_mtd(struct nand_device *nand)
{
    return &nand->mtd;
}

static const struct mtd_ooblayout_ops nk_shim_ooblayout;

static inline void mtd_set_ooblayout(struct mtd_info *mtd, const struct mtd_ooblayout_ops *ops)
{
    mtd->ooblayout = ops;
}

static inline const struct mtd_ooblayout_ops *nand_get_small_page_ooblayout(void)
{
    return &nk_shim_ooblayout;
}

static inline const struct mtd_ooblayout_ops *nand_get_large_page_ooblayout(void)
{
    return &nk_shim_ooblayout;
}

static inline const struct mtd_ooblayout_ops *nand_get_large_page_hamming_ooblayout(void)
{
    return &nk_shim_ooblayout;
}

/* The engine's code bytes all lie in the layout, as in any valid one. */
static inline int mtd_ooblayout_count_eccbytes(struct mtd_info *mtd)
{
    return (int)((struct nand_device *)(void *)mtd)->ecc.ctx.total;
}

struct nand_page_io_req {
    enum nand_page_io_req_type type;
    int mode;
    unsigned int datalen;
    union {
        const void *out;
        void *in;
    } databuf, oobbuf;
};

static inline int mtd_ooblayout_set_eccbytes(struct mtd_info *mtd, const u8 *eccbuf, u8 *oobbuf,
                                             int start, int nbytes)
{
    (void)mtd, (void)eccbuf, (void)oobbuf, (void)start, (void)nbytes;
    return -ENOTSUPP;
}

static inline int mtd_ooblayout_get_eccbytes(struct mtd_info *mtd, u8 *eccbuf, const u8 *oobbuf,
                                             int start, int nbytes)
{
    (void)mtd, (void)eccbuf, (void)oobbuf, (void)start, (void)nbytes;
    return -ENOTSUPP;
}

struct nand_ecc_req_tweak_ctx {
    int unused;
};

static inline int nand_ecc_init_req_tweaking(struct nand_ecc_req_tweak_ctx *ctx,
                                             struct nand_device *nand)
{
    (void)ctx, (void)nand;
    return 0;
}

static inline void nand_ecc_cleanup_req_tweaking(struct nand_ecc_req_tweak_ctx *ctx)
{
    (void)ctx;
}

static inline void nand_ecc_tweak_req(struct nand_ecc_req_tweak_ctx *ctx,
                                      struct nand_page_io_req *req)
{
    (void)ctx, (void)req;
}

static inline void nand_ecc_restore_req(struct nand_ecc_req_tweak_ctx *ctx,
                                        struct nand_page_io_req *req)
{
    (void)ctx, (void)req;
}

struct nand_ecc_engine_ops {
    int (*init_ctx)(struct nand_device *nand);
    void (*cleanup_ctx)(struct nand_device *nand);
    int (*prepare_io_req)(struct nand_device *nand, struct nand_page_io_req *req);
    int (*finish_io_req)(struct nand_device *nand, struct nand_page_io_req *req);
};

struct nand_ecc_engine {
    struct nand_ecc_engine_ops *ops;
};

#endif
