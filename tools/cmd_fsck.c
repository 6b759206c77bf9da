/* SPDX-License-Identifier: MIT */
/* nandkit fsck: check the structure of a YAFFS2 image. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "fsimage.h"
#include "nandkit/error.h"
#include "tool.h"

static void nk_fsck_help(FILE *out)
{
    fprintf(out,
            "usage: nandkit fsck IMAGE (--geometry P,O,N[,B] | --chip NAME) [--layout L]\n"
            "                    [--quiet]\n\n"
            "Mounts the YAFFS2 file system in IMAGE read-only and checks it: tags that fail\n"
            "their ECC or make no sense, torn pages, blocks with bad sequence numbers, object\n"
            "headers that fail the data ECC or hold an unknown type or an unusable name, data\n"
            "chunks without a live file (dangling), objects without a usable parent (orphans,\n"
            "put in lost+found), hard links without a target, duplicate names in a directory,\n"
            "and the data ECC of every live chunk. Stale chunks, checkpoint blocks and\n"
            "factory-bad blocks are normal and not problems.\n\n"
            "Options:\n" NK_TOOL_IMAGE_HELP "  --quiet                 only the summary line\n\n"
            "Exit status: 0 clean, 1 problems found (each reported on its own line), 2 bad\n"
            "input.\n");
}

struct nk_fsck {
    bool quiet;
};

static void nk_fsck_report(void *ctx, const struct nk_fs_problem *problem)
{
    struct nk_fsck *f = ctx;
    if (f->quiet)
        return;
    char line[256];
    nk_fs_problem_format(problem, line, sizeof line);
    printf("problem: %s\n", line);
}

static int nk_fsck_run(int argc, char **argv)
{
    static const struct option options[] = {
        NK_TOOL_IMAGE_LONG_OPTIONS, {"quiet", no_argument, NULL, 'q'}, {NULL, 0, NULL, 0}};
    struct nk_tool_image_opts opts;
    nk_tool_image_opts_init(&opts);
    struct nk_fsck f = {false};
    int opt;
    optind = 1;
    while ((opt = nk_tool_getopt(argc, argv, "q", options, &opts, "fsck")) > 0) {
        if (opt == 'q')
            f.quiet = true;
        else
            return nk_tool_fail("fsck: unknown option (see nandkit fsck --help)");
    }
    if (opt < 0)
        return -opt;
    if (argc - optind != 1)
        return nk_tool_fail("fsck needs one IMAGE (see nandkit fsck --help)");
    opts.path = argv[optind];

    struct nk_tool_fs t;
    int status = nk_tool_fs_open(&t, &opts, nk_fsck_report, &f);
    if (status)
        return status;
    struct nk_fs_check_result result;
    int err = nk_fs_check(&t.fs, &result);
    if (err) {
        nk_tool_fs_close(&t);
        return nk_tool_error("check stopped: %s", nk_strerror(err));
    }
    const struct nk_fs_mount_stats *s = &t.fs.stats;
    if (!f.quiet) {
        printf("blocks: %u in use (%u read from summaries), %u empty, %u checkpoint, %u bad, "
               "%u junk\n",
               s->blocks_in_use, s->blocks_from_summary, s->blocks_empty, s->blocks_checkpoint,
               s->blocks_bad, s->blocks_bad_sequence);
        printf("objects: %u (%u files, %u directories, %u symlinks, %u hard links, %u special), "
               "%u in lost+found\n",
               s->objects, s->files, s->dirs, s->symlinks, s->hardlinks, s->specials, s->orphans);
        printf("chunks: %u written, %u live; %u read through the ECC, %u with corrected "
               "bitflips (%llu bits); tags: %u corrected\n",
               s->chunks_seen, s->chunks_live, result.chunks_read, result.chunks_corrected,
               (unsigned long long)result.bitflips_corrected, s->tags_corrected);
        for (unsigned k = 0; k < NK_FS_PROBLEM_KIND_COUNT; k++) {
            if (result.problems[k])
                printf("  %-20s %u\n", nk_fs_problem_name((enum nk_fs_problem_kind)k),
                       result.problems[k]);
        }
    }
    if (!f.quiet)
        nk_tool_fs_list_at_risk(&t, stdout);
    printf("%s: %u problem%s\n", opts.path, result.problem_total,
           result.problem_total == 1 ? "" : "s");
    nk_tool_fs_close(&t);
    return result.problem_total ? 1 : 0;
}

const struct nk_tool_command nk_cmd_fsck = {
    .name = "fsck",
    .summary = "check the structure and ECC of a YAFFS2 image",
    .run = nk_fsck_run,
    .help = nk_fsck_help,
};
