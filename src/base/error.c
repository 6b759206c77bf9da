/* SPDX-License-Identifier: MIT */
#include "nandkit/error.h"

#ifndef NK_NO_DIAG_TEXT
/* The codes in one byte each and their texts one after another, each ended by
 * a NUL: no pointer per entry. */
static const unsigned char nk_error_codes[] = {
    NK_EPERM,     NK_ENOENT,    NK_EIO,     NK_EBADF,  NK_ENOMEM,  NK_EBUSY,        NK_EEXIST,
    NK_EXDEV,     NK_ENODEV,    NK_ENOTDIR, NK_EISDIR, NK_EINVAL,  NK_ENFILE,       NK_EMFILE,
    NK_EFBIG,     NK_ENOSPC,    NK_EROFS,   NK_EMLINK, NK_ERANGE,  NK_ENAMETOOLONG, NK_ENOSYS,
    NK_ENOTEMPTY, NK_ELOOP,     NK_ENODATA, NK_EPROTO, NK_EBADMSG, NK_EOVERFLOW,    NK_EILSEQ,
    NK_ENOTSUP,   NK_ETIMEDOUT, NK_EUCLEAN,
};

static const char nk_error_texts[] = "operation not permitted\0"
                                     "no such file or directory\0"
                                     "I/O error\0"
                                     "bad handle\0"
                                     "out of memory\0"
                                     "busy\0"
                                     "already exists\0"
                                     "cross-device link\0"
                                     "no such device\0"
                                     "not a directory\0"
                                     "is a directory\0"
                                     "invalid argument\0"
                                     "too many open objects\0"
                                     "too many open handles\0"
                                     "file too large\0"
                                     "no space left\0"
                                     "read-only\0"
                                     "too many links\0"
                                     "out of range\0"
                                     "name too long\0"
                                     "not implemented\0"
                                     "directory not empty\0"
                                     "too many symbolic links\0"
                                     "no data\0"
                                     "protocol error\0"
                                     "uncorrectable ECC error\0"
                                     "value too large\0"
                                     "corrupted structure\0"
                                     "not supported\0"
                                     "timed out\0"
                                     "corrected bitflips at threshold (scrub)\0";

const char *nk_strerror(int err)
{
    if (err < 0)
        err = -err;
    if (err == 0)
        return "success";
    const char *text = nk_error_texts;
    for (unsigned i = 0; i < sizeof nk_error_codes; i++) {
        if (nk_error_codes[i] == err)
            return text;
        while (*text++)
            ;
    }
    return "unknown error";
}

#else
/* Size knob NK_NO_DIAG_TEXT (docs/porting.md): no texts; the code itself is
 * what identifies an error. */
const char *nk_strerror(int err)
{
    return err ? "error" : "success";
}

#endif
