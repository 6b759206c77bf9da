/* SPDX-License-Identifier: MIT */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *nk_test_fixture(const char *relative)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", NK_FIXTURES_DIR, relative);
    return path;
}

uint8_t *nk_test_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fail_msg("cannot open %s", path);
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = 0;
    fclose(f);
    if (size)
        *size = (size_t)n;
    return buf;
}

static int nk_hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

long nk_test_unhex(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = strlen(hex);
    if (n % 2 || n / 2 > cap)
        return -1;
    for (size_t i = 0; i < n / 2; i++) {
        int hi = nk_hex_digit(hex[2 * i]), lo = nk_hex_digit(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return (long)(n / 2);
}

char *nk_test_hex(const uint8_t *data, size_t len)
{
    char *s = malloc(2 * len + 1);
    assert_non_null(s);
    for (size_t i = 0; i < len; i++)
        sprintf(s + 2 * i, "%02x", data[i]);
    s[2 * len] = 0;
    return s;
}

uint64_t nk_test_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void nk_test_random(uint8_t *buf, size_t len, uint64_t seed)
{
    uint64_t state = seed;
    for (size_t i = 0; i < len; i += 8) {
        uint64_t v = nk_test_splitmix64(&state);
        for (size_t j = 0; j < 8 && i + j < len; j++)
            buf[i + j] = (uint8_t)(v >> (8 * j));
    }
}
