/* SPDX-License-Identifier: MIT */
/*
 * Diagnostics: a one-line human-readable reason kept beside an error code.
 *
 * The core never prints. When a function fails on bad input it returns a
 * negative NK_E* value and, where the object has a `struct nk_diag`, leaves a
 * sentence there naming the offending value ("page 70000 out of range: device
 * has 65536 pages"). Functions that run before their object exists (opening
 * a simulator or an MTD device, checking parameters) take a `struct nk_diag *`
 * argument instead (may be NULL); a caller can declare `struct nk_diag why[1]`
 * and pass `why`. This is the only way a reason is reported. Tools print it;
 * firmware may log or ignore it. nk_fs_last_error() (nandkit/fs.h) returns,
 * of a bring-up's `why`, device and file system, the reason the failing
 * step left.
 */
#ifndef NANDKIT_DIAG_H
#define NANDKIT_DIAG_H

#include <stdarg.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NK_DIAG_LEN 160

/* printf-style checking of the formats below. Where uint32_t is not
 * `unsigned int` (newlib on arm-none-eabi makes it `unsigned long`, same
 * width) "%u" with a uint32_t is correct at run time but the check warns;
 * such targets define NK_NO_FORMAT_CHECK and rely on the host build's check. */
#if defined(__GNUC__) && !defined(NK_NO_FORMAT_CHECK)
#define NK_PRINTF_FORMAT(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define NK_PRINTF_FORMAT(fmt, args)
#endif

struct nk_diag {
    char text[NK_DIAG_LEN]; /* NUL-terminated; empty when nothing was reported */
};

/* Empties the message. */
void nk_diag_clear(struct nk_diag *diag);

#ifndef NK_NO_DIAG_TEXT
/* Formats a message into `diag` (may be NULL: then only `err` is returned)
 * and returns `err`, so a failing function can `return nk_diag_set(...)`.
 * Supported conversions: %s %c %d %u %x %ld %lu %lx %lld %llu %llx %zu %%,
 * with an optional field width and '0' flag (e.g. %02x). */
int nk_diag_set(struct nk_diag *diag, int err, const char *format, ...) NK_PRINTF_FORMAT(3, 4);
#else
/* Size knob NK_NO_DIAG_TEXT (docs/porting.md): the messages, their strings
 * and their formatting are compiled out. A failing call still returns its
 * error code; the message stays empty. */
int nk_diag_code(struct nk_diag *diag, int err);
/* Never defined: the arguments are only named in sizeof (not evaluated, no
 * code, no strings), so values computed just for a message stay "used". */
int nk_diag_unevaluated(const char *format, ...);
#define nk_diag_set(diag, err, ...)                                                                \
    ((void)sizeof nk_diag_unevaluated(__VA_ARGS__), nk_diag_code((diag), (err)))
#endif

/* The formatter stays while anything formats text: the messages, or the file
 * system (object names, fsck's report). A build with both size knobs
 * NK_NO_DIAG_TEXT and NK_NO_FS leaves it out (docs/porting.md). */
#if !defined(NK_NO_DIAG_TEXT) || !defined(NK_NO_FS)
#define NK_HAVE_FORMAT 1
#endif

#ifdef NK_HAVE_FORMAT
/* As nk_diag_set() but into a plain buffer of `size` bytes; returns the
 * length written (excluding the NUL, truncated to fit). */
size_t nk_format(char *buf, size_t size, const char *format, ...) NK_PRINTF_FORMAT(3, 4);
size_t nk_vformat(char *buf, size_t size, const char *format, va_list args);
#endif

#ifdef __cplusplus
}
#endif

#endif /* NANDKIT_DIAG_H */
