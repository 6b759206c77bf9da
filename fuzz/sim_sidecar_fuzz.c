/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the simulator's sidecar file parser (IMAGE.nksim, see
 * docs/image-format.md). The input (after one flags byte) is written as the
 * sidecar of an empty image in a private temporary directory, then the
 * image is opened read-only, once taking the part from the sidecar and once
 * with the geometry given (the sidecar then only supplies block state).
 * When an open succeeds, every block's state is queried and a page read.
 * Flags: bit 0 recompute the trailing CRC-32 (so the parser sees the
 * fields), bit 1 also fix the record count to the file's size. Any crash or
 * sanitizer report is a finding.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nandkit/error.h"
#include "nandkit/sim.h"

static char image[4096], sidecar[4096];

static uint32_t crc32_ieee(const uint8_t *p, size_t len)
{
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < len; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = crc & 1u ? (crc >> 1) ^ 0xedb88320u : crc >> 1;
    }
    return ~crc;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static void try_open(const struct nk_sim_params *params)
{
    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.image_path = image;
    config.read_only = true;
    config.params = params;
    struct nk_sim *sim;
    struct nk_diag why[1];
    if (nk_sim_open(&sim, &config, why) != 0)
        return;
    const struct nk_sim_params *p = nk_sim_params(sim);
    for (uint32_t b = 0; b < p->chip.blocks && b < 4096; b++) {
        struct nk_sim_block_state state;
        nk_sim_block_get(sim, b, &state);
    }
    uint8_t buf[64];
    nk_sim_page_peek(sim, 0, 0, buf, sizeof buf);
    nk_sim_close(sim);
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len)
{
    static struct nk_sim_params given;
    if (!image[0]) {
        char dir[] = "/tmp/nk-sidecar-fuzz-XXXXXX";
        if (!mkdtemp(dir))
            abort();
        snprintf(image, sizeof image, "%s/image.bin", dir);
        if (!nk_sim_sidecar_path(image, sidecar, sizeof sidecar))
            abort();
        FILE *f = fopen(image, "wb");
        if (!f || fclose(f) != 0)
            abort();
        struct nk_diag why[1];
        if (nk_sim_params_geometry(&given, 2048, 64, 4, 16, why) != 0)
            abort();
    }
    if (len < 1)
        return 0;
    static uint8_t buf[1 << 16];
    size_t n = len - 1 < sizeof buf ? len - 1 : sizeof buf;
    memcpy(buf, in + 1, n);
    if ((in[0] & 2) && n >= 84)
        put32(buf + 28, (uint32_t)((n - 84) / 16));
    if ((in[0] & 1) && n >= 4)
        put32(buf + n - 4, crc32_ieee(buf, n - 4));
    FILE *f = fopen(sidecar, "wb");
    if (!f || fwrite(buf, 1, n, f) != n || fclose(f) != 0)
        abort();
    try_open(NULL);
    try_open(&given);
    return 0;
}
