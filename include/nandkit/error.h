/* SPDX-License-Identifier: MIT */
/*
 * Error codes shared by every nandkit layer.
 *
 * Functions return 0 (or a non-negative count) on success and a negative
 * NK_E* value on failure, e.g. `return -NK_EIO;`. The numbers equal Linux's
 * errno values so that a host tool can hand them to strerror() unchanged and
 * a Linux user recognises them; they are defined here because the core builds
 * without an OS and newlib's <errno.h> numbers some of them differently.
 */
#ifndef NANDKIT_ERROR_H
#define NANDKIT_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

enum nk_error {
    NK_EPERM = 1,         /* operation not permitted */
    NK_ENOENT = 2,        /* no such file or directory */
    NK_EIO = 5,           /* I/O error: program/erase FAIL status, device error */
    NK_EBADF = 9,         /* bad handle */
    NK_ENOMEM = 12,       /* out of memory (pool or allocator exhausted) */
    NK_EBUSY = 16,        /* resource busy */
    NK_EEXIST = 17,       /* already exists */
    NK_EXDEV = 18,        /* cross-device link */
    NK_ENODEV = 19,       /* no such device / chip not identified */
    NK_ENOTDIR = 20,      /* not a directory */
    NK_EISDIR = 21,       /* is a directory */
    NK_EINVAL = 22,       /* invalid argument */
    NK_ENFILE = 23,       /* too many open objects */
    NK_EMFILE = 24,       /* too many open handles */
    NK_EFBIG = 27,        /* file too large */
    NK_ENOSPC = 28,       /* no space left */
    NK_EROFS = 30,        /* read-only */
    NK_EMLINK = 31,       /* too many links */
    NK_ERANGE = 34,       /* result out of range */
    NK_ENAMETOOLONG = 36, /* name too long */
    NK_ENOSYS = 38,       /* not implemented by this port/engine */
    NK_ENOTEMPTY = 39,    /* directory not empty */
    NK_ELOOP = 40,        /* too many symbolic links */
    NK_ENODATA = 61,      /* no data (e.g. no parameter page) */
    NK_EPROTO = 71,       /* protocol error: chip answered out of sequence */
    NK_EBADMSG = 74,      /* uncorrectable ECC error: data is not trustworthy */
    NK_EOVERFLOW = 75,    /* value too large for the type */
    NK_EILSEQ = 84,       /* corrupted on-flash structure */
    NK_ENOTSUP = 95,      /* operation not supported */
    NK_ETIMEDOUT = 110,   /* chip stayed busy past the timeout */
    NK_EUCLEAN = 117,     /* data corrected, bitflips at/above threshold: scrub soon */
};

/* Returns a short constant English description of `err` (positive or
 * negative NK_E* value); never NULL. */
const char *nk_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif /* NANDKIT_ERROR_H */
