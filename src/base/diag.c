/* SPDX-License-Identifier: MIT */
/*
 * A small printf subset for diagnostics. The core avoids snprintf so that a
 * bare-metal build does not drag in the C library's formatted I/O.
 */
#include "nandkit/diag.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef NK_HAVE_FORMAT
struct nk_out {
    char *buf;
    size_t size;
    size_t len;
};

static void nk_out_char(struct nk_out *out, char c)
{
    if (out->len + 1 < out->size)
        out->buf[out->len++] = c;
}

static void nk_out_pad_string(struct nk_out *out, const char *s, unsigned width)
{
    size_t n = 0;
    while (s[n])
        n++;
    for (size_t i = n; i < width; i++)
        nk_out_char(out, ' ');
    while (*s)
        nk_out_char(out, *s++);
}

static void nk_out_number(struct nk_out *out, unsigned long long value, bool negative,
                          unsigned base, unsigned width, char pad)
{
    char digits[24];
    unsigned n = 0;
    do {
        unsigned d = (unsigned)(value % base);
        digits[n++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
        value /= base;
    } while (value);
    unsigned total = n + (negative ? 1u : 0u);
    if (negative && pad == '0')
        nk_out_char(out, '-');
    for (unsigned i = total; i < width; i++)
        nk_out_char(out, pad);
    if (negative && pad != '0')
        nk_out_char(out, '-');
    while (n)
        nk_out_char(out, digits[--n]);
}

size_t nk_vformat(char *buf, size_t size, const char *format, va_list args)
{
    struct nk_out out = {buf, size, 0};
    for (const char *p = format; *p; p++) {
        if (*p != '%') {
            nk_out_char(&out, *p);
            continue;
        }
        p++;
        char pad = ' ';
        unsigned width = 0;
        if (*p == '0') {
            pad = '0';
            p++;
        }
        while (*p >= '0' && *p <= '9')
            width = width * 10 + (unsigned)(*p++ - '0');
        int longs = 0;
        bool size_t_arg = false;
        while (*p == 'l') {
            longs++;
            p++;
        }
        if (*p == 'z') {
            size_t_arg = true;
            p++;
        }
        switch (*p) {
        case 's': {
            const char *s = va_arg(args, const char *);
            nk_out_pad_string(&out, s ? s : "(null)", width);
            break;
        }
        case 'c':
            nk_out_char(&out, (char)va_arg(args, int));
            break;
        case 'd': {
            long long v;
            if (longs >= 2)
                v = va_arg(args, long long);
            else if (longs == 1)
                v = va_arg(args, long);
            else
                v = va_arg(args, int);
            unsigned long long mag = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
            nk_out_number(&out, mag, v < 0, 10, width, pad);
            break;
        }
        case 'u':
        case 'x': {
            unsigned long long v;
            if (size_t_arg)
                v = va_arg(args, size_t);
            else if (longs >= 2)
                v = va_arg(args, unsigned long long);
            else if (longs == 1)
                v = va_arg(args, unsigned long);
            else
                v = va_arg(args, unsigned);
            nk_out_number(&out, v, false, *p == 'x' ? 16u : 10u, width, pad);
            break;
        }
        case '%':
            nk_out_char(&out, '%');
            break;
        case '\0':
            p--;
            break;
        default:
            nk_out_char(&out, '%');
            nk_out_char(&out, *p);
            break;
        }
    }
    if (size)
        buf[out.len] = '\0';
    return out.len;
}

size_t nk_format(char *buf, size_t size, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    size_t n = nk_vformat(buf, size, format, args);
    va_end(args);
    return n;
}

#endif

void nk_diag_clear(struct nk_diag *diag)
{
    if (diag)
        diag->text[0] = '\0';
}

#ifndef NK_NO_DIAG_TEXT
int nk_diag_set(struct nk_diag *diag, int err, const char *format, ...)
{
    if (diag) {
        va_list args;
        va_start(args, format);
        nk_vformat(diag->text, sizeof diag->text, format, args);
        va_end(args);
    }
    return err;
}

#else
int nk_diag_code(struct nk_diag *diag, int err)
{
    nk_diag_clear(diag);
    return err;
}

#endif
