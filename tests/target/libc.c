/* SPDX-License-Identifier: MIT */
/*
 * The C library functions nandkit's core calls (scripts/target-report.sh
 * --symbols lists them from the archive), with aligned word accesses only:
 * newlib's Cortex-M3/M4 memcpy makes unaligned ones, which the firmware
 * traps (startup.c) to catch the core's own. Compiled with
 * -fno-tree-loop-distribute-patterns so the loops stay loops.
 */
#include <stddef.h>
#include <string.h>

#include <stdint.h>

void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if ((((uintptr_t)d | (uintptr_t)s) & 3u) == 0) {
        for (; n >= 16; n -= 16, d += 16, s += 16) {
            uint32_t *dw = (uint32_t *)(void *)d;
            const uint32_t *sw = (const uint32_t *)(const void *)s;
            dw[0] = sw[0];
            dw[1] = sw[1];
            dw[2] = sw[2];
            dw[3] = sw[3];
        }
        for (; n >= 4; n -= 4, d += 4, s += 4)
            *(uint32_t *)(void *)d = *(const uint32_t *)(const void *)s;
    }
    while (n--)
        *d++ = *s++;
    return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (d < s) {
        while (n--)
            *d++ = *s++;
    } else {
        while (n--)
            d[n] = s[n];
    }
    return dst;
}

void *memset(void *dst, int c, size_t n)
{
    unsigned char *d = dst;
    for (; n && ((uintptr_t)d & 3u); n--)
        *d++ = (unsigned char)c;
    uint32_t w = (unsigned char)c * 0x01010101u;
    for (; n >= 4; n -= 4, d += 4)
        *(uint32_t *)(void *)d = w;
    while (n--)
        *d++ = (unsigned char)c;
    return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;
    if ((((uintptr_t)x | (uintptr_t)y) & 3u) == 0)
        for (; n >= 4 && *(const uint32_t *)(const void *)x == *(const uint32_t *)(const void *)y;
             n -= 4, x += 4, y += 4) {
        }
    for (; n; n--, x++, y++)
        if (*x != *y)
            return *x < *y ? -1 : 1;
    return 0;
}

void *memchr(const void *s, int c, size_t n)
{
    const unsigned char *p = s;
    for (; n; n--, p++)
        if (*p == (unsigned char)c)
            return (void *)p;
    return NULL;
}

size_t strlen(const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

int strcmp(const char *a, const char *b)
{
    while (*a && *a == *b) {
        a++;
        b++;
    }
    return (unsigned char)*a - (unsigned char)*b;
}
