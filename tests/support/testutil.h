/* SPDX-License-Identifier: MIT */
/* Shared helpers for the cmocka test programs. */
#ifndef NK_TESTUTIL_H
#define NK_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

/* Absolute path of a fixture file (relative to the fixtures root), in a
 * static buffer overwritten by the next call. */
const char *nk_test_fixture(const char *relative);

/* Reads a whole file into a malloc'd buffer; fails the test when missing. */
uint8_t *nk_test_read_file(const char *path, size_t *size);

/* Decodes lowercase/uppercase hex into `out` (capacity `cap`); returns the
 * byte count or -1 on bad hex. */
long nk_test_unhex(const char *hex, uint8_t *out, size_t cap);

/* Lowercase hex of `len` bytes into a malloc'd string. */
char *nk_test_hex(const uint8_t *data, size_t len);

/* Deterministic pseudo-random bytes (splitmix64 seeded with `seed`). */
void nk_test_random(uint8_t *buf, size_t len, uint64_t seed);
uint64_t nk_test_splitmix64(uint64_t *state);

#endif
