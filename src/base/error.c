/* SPDX-License-Identifier: MIT */
#include "nandkit/error.h"

struct nk_error_text {
    int code;
    const char *text;
};

static const struct nk_error_text nk_error_texts[] = {
    {NK_EPERM, "operation not permitted"},
    {NK_ENOENT, "no such file or directory"},
    {NK_EIO, "I/O error"},
    {NK_EBADF, "bad handle"},
    {NK_ENOMEM, "out of memory"},
    {NK_EBUSY, "busy"},
    {NK_EEXIST, "already exists"},
    {NK_EXDEV, "cross-device link"},
    {NK_ENODEV, "no such device"},
    {NK_ENOTDIR, "not a directory"},
    {NK_EISDIR, "is a directory"},
    {NK_EINVAL, "invalid argument"},
    {NK_ENFILE, "too many open objects"},
    {NK_EMFILE, "too many open handles"},
    {NK_EFBIG, "file too large"},
    {NK_ENOSPC, "no space left"},
    {NK_EROFS, "read-only"},
    {NK_EMLINK, "too many links"},
    {NK_ERANGE, "out of range"},
    {NK_ENAMETOOLONG, "name too long"},
    {NK_ENOSYS, "not implemented"},
    {NK_ENOTEMPTY, "directory not empty"},
    {NK_ELOOP, "too many symbolic links"},
    {NK_ENODATA, "no data"},
    {NK_EPROTO, "protocol error"},
    {NK_EBADMSG, "uncorrectable ECC error"},
    {NK_EOVERFLOW, "value too large"},
    {NK_EILSEQ, "corrupted structure"},
    {NK_ENOTSUP, "not supported"},
    {NK_ETIMEDOUT, "timed out"},
    {NK_EUCLEAN, "corrected bitflips at threshold (scrub)"},
};

const char *nk_strerror(int err)
{
    if (err < 0)
        err = -err;
    if (err == 0)
        return "success";
    for (unsigned i = 0; i < sizeof nk_error_texts / sizeof nk_error_texts[0]; i++) {
        if (nk_error_texts[i].code == err)
            return nk_error_texts[i].text;
    }
    return "unknown error";
}
