/* SPDX-License-Identifier: MIT */
/*
 * User-space stand-ins for the few kernel facilities that Linux's software
 * ECC files use (types, allocation, logging, bit helpers), so that those
 * files, extracted from Debian's linux-source package at build time, compile
 * unchanged beside nandkit in bench_ecc_linux. Every header of this folder
 * includes this one; none of them is a copy of a kernel header: each names
 * only what the three ECC files need.
 */
#ifndef NK_KERNEL_SHIM_H
#define NK_KERNEL_SHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;

/* Kconfig: the options are given as -DCONFIG_...=1 on the command line. */
#define IS_ENABLED(option) (option)

/* The kernel's error numbers (the C library's <errno.h> is not included: it
 * would pull in <linux/errno.h>, which here is this shim). */
#define ENOMEM 12
#define EINVAL 22
#define EBADMSG 74
#define ENOTSUPP 524 /* the kernel's internal "not supported" */

#define EXPORT_SYMBOL(sym)
#define EXPORT_SYMBOL_GPL(sym)
#define MODULE_LICENSE(text)
#define MODULE_AUTHOR(text)
#define MODULE_DESCRIPTION(text)
#define __init
#define __exit

#define GFP_KERNEL 0
#define kmalloc(size, flags) malloc(size)
#define kzalloc(size, flags) calloc(1, (size))
#define kmalloc_array(count, size, flags) calloc((count), (size))
#define kfree(ptr) free((void *)(ptr))

/* Logging is silent: the benchmark counts instructions of the callers. */
#define KERN_ERR ""
#define printk(...) ((void)0)
#define pr_err(...) ((void)0)
#define pr_debug(...) ((void)0)
#define pr_warn(...) ((void)0)
#define WARN_ON(cond) (!!(cond))

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#define max(a, b) ((a) > (b) ? (a) : (b))
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max_t(type, a, b) ((type)(a) > (type)(b) ? (type)(a) : (type)(b))
#define min_t(type, a, b) ((type)(a) < (type)(b) ? (type)(a) : (type)(b))

/* Position of the highest set bit, 1-based; 0 for 0 (the kernel's fls). */
static inline int fls(unsigned int x)
{
    return x ? 32 - __builtin_clz(x) : 0;
}

/* The kernel defines only the host's own one of __LITTLE_ENDIAN and
 * __BIG_ENDIAN (ecc-sw-hamming.c tests "#ifdef __BIG_ENDIAN"); the C
 * library's <endian.h>, pulled in above, defines both. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#undef __BIG_ENDIAN
#ifndef __LITTLE_ENDIAN
#define __LITTLE_ENDIAN 1234
#endif
#define cpu_to_be32(x) __builtin_bswap32(x)
#else
#undef __LITTLE_ENDIAN
#ifndef __BIG_ENDIAN
#define __BIG_ENDIAN 4321
#endif
#define cpu_to_be32(x) (x)
#endif

#endif
