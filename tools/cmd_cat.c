/* SPDX-License-Identifier: MIT */
/* nandkit cat: a file of a YAFFS2 image to standard output. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "fsimage.h"
#include "nandkit/error.h"
#include "tool.h"

static void tool_cat_help(FILE *out)
{
    fprintf(out,
            "usage: nandkit cat IMAGE PATH [--geometry P,O,N[,B] | --chip NAME] [--layout L]\n\n"
            "Mounts the YAFFS2 file system in IMAGE read-only and writes file PATH (symlinks\n"
            "and hard links followed) to standard output. Data that fails the ECC is never\n"
            "written: the bytes before the first unreadable chunk are, then the command\n"
            "stops with an error naming the byte offset.\n\n"
            "Options:\n" TOOL_IMAGE_HELP_READ);
}

static int tool_cat_run(int argc, char **argv)
{
    static const struct option options[] = {TOOL_IMAGE_LONG_OPTIONS, {NULL, 0, NULL, 0}};
    struct tool_image_opts opts;
    tool_image_opts_init(&opts);
    opts.reads_only = true;
    int opt;
    optind = 1;
    opt = tool_getopt(argc, argv, "", options, &opts, "cat");
    if (opt < 0)
        return -opt;
    if (argc - optind != 2)
        return tool_fail("cat needs IMAGE and PATH (see nandkit cat --help)");
    opts.path = argv[optind];
    const char *path = argv[optind + 1];

    struct tool_fs t;
    int status = tool_fs_open(&t, &opts, NULL, NULL);
    if (status)
        return status;
    struct nk_fs_file file;
    int err = nk_fs_file_open(&t.fs, &file, path, NK_FS_O_RDONLY);
    if (err) {
        tool_fs_close(&t);
        return tool_fail_err(err, tool_is_user_error(err), "%s: %s in the image", path,
                             nk_strerror(err));
    }
    struct nk_fs_stat st;
    bool at_risk = nk_fs_file_stat(&file, &st) == 0 && st.at_risk;
    if (at_risk)
        tool_at_risk(path);
    enum { CHUNK = 64 * 1024 };
    uint8_t *buf = malloc(CHUNK);
    int32_t n = 0;
    uint64_t done = 0;
    struct nk_fs_statfs sf;
    uint32_t chunk_bytes = nk_fs_statfs(&t.fs, &sf) == 0 && sf.chunk_bytes ? sf.chunk_bytes : 512;
    bool piecewise = false;
    while (buf) {
        /* After a failed read, one chunk at a time: every byte before the
         * unreadable chunk is written before the error. */
        size_t want = piecewise ? chunk_bytes - (size_t)(done % chunk_bytes) : CHUNK;
        n = nk_fs_file_read(&file, buf, want);
        if (n < 0 && !piecewise) {
            piecewise = true;
            continue;
        }
        if (n <= 0)
            break;
        if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n) {
            n = -NK_EIO;
            break;
        }
        done += (uint64_t)n;
    }
    free(buf);
    nk_fs_file_close(&file);
    bool damaged = tool_fs_damage(&t) != 0;
    tool_fs_close(&t);
    if (fflush(stdout) != 0)
        return tool_error("%s: writing standard output failed", path);
    if (n < 0)
        return tool_error("%s: read failed at byte %llu: %s", path, (unsigned long long)done,
                          nk_strerror(n));
    return damaged || at_risk ? 1 : 0;
}

const struct tool_command tool_cmd_cat = {
    .name = "cat",
    .summary = "write a file of a YAFFS2 image to standard output",
    .run = tool_cat_run,
    .help = tool_cat_help,
};
