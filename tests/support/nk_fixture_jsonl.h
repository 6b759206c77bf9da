/* SPDX-License-Identifier: MIT */
/*
 * Reading the JSON Lines fixtures of tests/fixtures: one cJSON object per
 * line, and small accessors that fail the running cmocka test on a missing
 * or malformed field (so a fixture that stops parsing cannot pass silently).
 */
#ifndef NK_FIXTURE_JSONL_H
#define NK_FIXTURE_JSONL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "testutil.h"

/* The records of one fixture file, parsed. */
struct nk_jsonl {
    cJSON **records;
    size_t count;
};

static inline void nk_jsonl_load(struct nk_jsonl *file, const char *relative)
{
    size_t size;
    char *text = (char *)nk_test_read_file(nk_test_fixture(relative), &size);
    size_t lines = 0;
    for (size_t i = 0; i < size; i++)
        lines += text[i] == '\n';
    file->records = calloc(lines + 1, sizeof *file->records);
    assert_non_null(file->records);
    file->count = 0;
    char *line = text;
    while (*line) {
        char *end = strchr(line, '\n');
        if (end)
            *end = 0;
        if (*line) {
            cJSON *record = cJSON_Parse(line);
            if (!record)
                fail_msg("%s: record %zu is not JSON", relative, file->count + 1);
            file->records[file->count++] = record;
        }
        if (!end)
            break;
        line = end + 1;
    }
    free(text);
    assert_true(file->count > 1);
}

static inline void nk_jsonl_free(struct nk_jsonl *file)
{
    for (size_t i = 0; i < file->count; i++)
        cJSON_Delete(file->records[i]);
    free(file->records);
    file->records = NULL;
    file->count = 0;
}

static inline const char *nk_json_str(const cJSON *record, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(record, key);
    if (!cJSON_IsString(item))
        fail_msg("fixture record lacks string field '%s'", key);
    return item->valuestring;
}

static inline bool nk_json_is(const cJSON *record, const char *key, const char *value)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(record, key);
    return cJSON_IsString(item) && strcmp(item->valuestring, value) == 0;
}

static inline long nk_json_int(const cJSON *record, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(record, key);
    if (!cJSON_IsNumber(item))
        fail_msg("fixture record lacks number field '%s'", key);
    return (long)item->valuedouble;
}

static inline bool nk_json_bool(const cJSON *record, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(record, key);
    if (!cJSON_IsBool(item))
        fail_msg("fixture record lacks boolean field '%s'", key);
    return cJSON_IsTrue(item);
}

/* Hex field into `out`; returns the byte count. */
static inline size_t nk_json_hex(const cJSON *record, const char *key, uint8_t *out, size_t cap)
{
    long n = nk_test_unhex(nk_json_str(record, key), out, cap);
    if (n < 0)
        fail_msg("fixture field '%s' is not hex or longer than %zu bytes", key, cap);
    return (size_t)n;
}

/* Array of integers into `out`; returns the count. */
static inline size_t nk_json_uints(const cJSON *record, const char *key, unsigned *out, size_t cap)
{
    const cJSON *array = cJSON_GetObjectItemCaseSensitive(record, key);
    if (!cJSON_IsArray(array))
        fail_msg("fixture record lacks array field '%s'", key);
    size_t n = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, array)
    {
        if (!cJSON_IsNumber(item) || n == cap)
            fail_msg("fixture array '%s' holds a non-number or too many entries", key);
        out[n++] = (unsigned)item->valuedouble;
    }
    return n;
}

/* The calc record with id `id` (the base of a correct/decode record). */
static inline const cJSON *nk_jsonl_find(const struct nk_jsonl *file, const char *type,
                                         const char *id)
{
    for (size_t i = 0; i < file->count; i++)
        if (nk_json_is(file->records[i], "type", type) && nk_json_is(file->records[i], "id", id))
            return file->records[i];
    fail_msg("no %s record with id '%s'", type, id);
    return NULL;
}

/* Bit positions (bit p = byte p>>3, mask 1<<(p&7)) where a and b differ, in
 * ascending order; returns the count. */
static inline size_t nk_diff_bits(const uint8_t *a, const uint8_t *b, size_t len, unsigned *out,
                                  size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned d = (unsigned)(a[i] ^ b[i]);
        for (unsigned bit = 0; d && bit < 8; bit++)
            if (d >> bit & 1u) {
                assert_true(n < cap);
                out[n++] = (unsigned)(8 * i + bit);
            }
    }
    return n;
}

static inline int nk_uint_compare(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x > y) - (x < y);
}

#endif
