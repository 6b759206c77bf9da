/* SPDX-License-Identifier: MIT */
/* nandkit fsck: check the structure of a YAFFS2 image. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsimage.h"
#include "nandkit/error.h"
#include "tool.h"

static void tool_fsck_help(FILE *out)
{
    fprintf(out,
            "usage: nandkit fsck IMAGE [--geometry P,O,N[,B] | --chip NAME] [--layout L]\n"
            "                    [--repair] [--quiet] [--json]\n\n"
            "Mounts the YAFFS2 file system in IMAGE read-only and checks it: tags that fail\n"
            "their ECC or make no sense, torn pages, blocks with bad sequence numbers, object\n"
            "headers that fail the data ECC or hold an unknown type or an unusable name, data\n"
            "chunks without a live file (dangling), objects without a usable parent (orphans,\n"
            "put in lost+found), hard links without a target, duplicate names in a directory,\n"
            "and the data ECC of every live chunk. Stale chunks, checkpoint blocks and\n"
            "factory-bad blocks are normal and not problems. A problem about an object names\n"
            "its path when the object is reachable from the root.\n\n"
            "A power cut while a page was being programmed (or a block erased) leaves that\n"
            "page unreadable: such traces of an interrupted write are problems of their own\n"
            "kind. Nothing complete was in them, so nothing is lost, and the next read-write\n"
            "mount (any writing command, or --repair) makes the image clean.\n\n"
            "Options:\n" TOOL_IMAGE_HELP
            "  -r, --repair            first run a read-write mount's recovery (as after a\n"
            "                          power cut) and save the image, then check it\n"
            "  -q, --quiet             only the summary line\n"
            "  -j, --json              machine-readable report\n\n"
            "Damage found exits 1 (each problem reported on its own line); no damage but\n"
            "traces of an interrupted write exits 3 (the next read-write mount or fsck\n"
            "--repair clears them).\n");
}

struct tool_fsck {
    bool quiet, json;
    struct nk_fs_problem *problems; /* as met; printed after the tree is walked */
    size_t count, cap;
    /* obj_id -> path, from a walk of the tree */
    struct tool_fsck_name {
        uint32_t obj_id;
        char *path;
    } * names;
    size_t name_count, name_cap;
};

static void tool_fsck_report(void *ctx, const struct nk_fs_problem *problem)
{
    struct tool_fsck *f = ctx;
    if (f->count == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 64;
        struct nk_fs_problem *grown = realloc(f->problems, cap * sizeof *grown);
        if (!grown)
            return;
        f->problems = grown;
        f->cap = cap;
    }
    f->problems[f->count++] = *problem;
}

static void tool_fsck_name_add(struct tool_fsck *f, uint32_t obj_id, const char *path)
{
    if (f->name_count == f->name_cap) {
        size_t cap = f->name_cap ? 2 * f->name_cap : 256;
        struct tool_fsck_name *grown = realloc(f->names, cap * sizeof *grown);
        if (!grown)
            return;
        f->names = grown;
        f->name_cap = cap;
    }
    f->names[f->name_count].obj_id = obj_id;
    f->names[f->name_count].path = strdup(path);
    f->name_count++;
}

/* Records the path of every object reachable from `path`. */
static void tool_fsck_walk(struct tool_fsck *f, struct nk_fs *fs, const char *path, unsigned depth)
{
    struct nk_fs_dir dir;
    if (depth > 256 || nk_fs_dir_open(fs, &dir, path) != 0)
        return;
    size_t first = f->name_count;
    struct nk_fs_dirent entry;
    int err;
    while ((err = nk_fs_dir_read(&dir, &entry)) != 0) {
        if (err < 0)
            continue;
        char child[8192];
        tool_path_join(child, sizeof child, path, entry.name);
        tool_fsck_name_add(f, entry.obj_id, child);
    }
    nk_fs_dir_close(&dir);
    size_t last = f->name_count;
    for (size_t i = first; i < last; i++) {
        struct nk_fs_stat st;
        if (nk_fs_lstat(fs, f->names[i].path, &st) == 0 && st.type == NK_FS_TYPE_DIR)
            tool_fsck_walk(f, fs, f->names[i].path, depth + 1);
    }
}

static const char *tool_fsck_path(const struct tool_fsck *f, uint32_t obj_id)
{
    if (obj_id == 0)
        return NULL;
    for (size_t i = 0; i < f->name_count; i++)
        if (f->names[i].obj_id == obj_id)
            return f->names[i].path;
    return NULL;
}

static void tool_fsck_free(struct tool_fsck *f)
{
    for (size_t i = 0; i < f->name_count; i++)
        free(f->names[i].path);
    free(f->names);
    free(f->problems);
}

/* Fills `opts`, `repair` and the --quiet/--json fields of `f`. Returns 0,
 * or the exit status after a report. */
static int tool_fsck_parse(int argc, char **argv, struct tool_image_opts *opts, bool *repair,
                           struct tool_fsck *f)
{
    static const struct option options[] = {TOOL_IMAGE_LONG_OPTIONS,
                                            {"quiet", no_argument, NULL, 'q'},
                                            {"json", no_argument, NULL, 'j'},
                                            {"repair", no_argument, NULL, 'r'},
                                            {NULL, 0, NULL, 0}};
    tool_image_opts_init(opts);
    int opt;
    optind = 1;
    while ((opt = tool_getopt(argc, argv, "qjr", options, opts, "fsck")) > 0) {
        if (opt == 'r')
            *repair = true;
        else if (opt == 'q')
            f->quiet = true;
        else if (opt == 'j')
            f->json = true;
        else
            return tool_fail("fsck: unknown option (see nandkit fsck --help)");
    }
    if (opt < 0)
        return -opt;
    if (argc - optind != 1)
        return tool_fail("fsck needs one IMAGE (see nandkit fsck --help)");
    opts->path = argv[optind];
    return 0;
}

static void tool_fsck_report_json(const struct tool_fsck *f, const char *image_path,
                                  const struct nk_fs_mount_stats *s,
                                  const struct nk_fs_check_result *result, bool traces_only)
{
    printf("{\"image\":");
    tool_json_string(stdout, image_path);
    printf(",\"verdict\":\"%s\",\"interrupted_write_traces\":%u",
           result->problem_total == 0 ? "clean"
           : traces_only              ? "interrupted-write"
                                      : "damaged",
           s->torn_chunks);
    printf(",\"problem_total\":%u,\"blocks\":{\"in_use\":%u,\"empty\":%u,"
           "\"checkpoint\":%u,\"bad\":%u,\"junk\":%u},\"objects\":{\"total\":%u,"
           "\"files\":%u,\"directories\":%u,\"symlinks\":%u,\"hard_links\":%u,"
           "\"special\":%u,\"lost_and_found\":%u},\"chunks\":{\"written\":%u,\"live\":%u,"
           "\"read\":%u,\"corrected\":%u,\"bitflips_corrected\":%llu},\"problems\":[",
           result->problem_total, s->blocks_in_use, s->blocks_empty, s->blocks_checkpoint,
           s->blocks_bad, s->blocks_bad_sequence, s->objects, s->files, s->dirs, s->symlinks,
           s->hardlinks, s->specials, s->orphans, s->chunks_seen, s->chunks_live,
           result->chunks_read, result->chunks_corrected,
           (unsigned long long)result->bitflips_corrected);
    for (size_t i = 0; i < f->count; i++) {
        const struct nk_fs_problem *p = &f->problems[i];
        char line[256];
        nk_fs_problem_format(p, line, sizeof line);
        printf("%s{\"kind\":\"%s\",\"obj_id\":%u,\"chunk_id\":%u,", i ? "," : "",
               nk_fs_problem_name(p->kind), p->obj_id, p->chunk_id);
        if (p->block != NK_FS_NONE)
            printf("\"block\":%u,", p->block);
        if (p->page != NK_FS_NONE)
            printf("\"page\":%u,", p->page);
        const char *path = tool_fsck_path(f, p->obj_id);
        printf("\"path\":");
        if (path)
            tool_json_string(stdout, path);
        else
            printf("null");
        printf(",\"text\":");
        tool_json_string(stdout, line);
        printf("}");
    }
    printf("]}\n");
}

static void tool_fsck_report_text(const struct tool_fsck *f, struct tool_fs *t,
                                  const char *image_path, const struct nk_fs_check_result *result,
                                  bool traces_only)
{
    const struct nk_fs_mount_stats *s = &t->fs.stats;
    for (size_t i = 0; !f->quiet && i < f->count; i++) {
        char line[256];
        nk_fs_problem_format(&f->problems[i], line, sizeof line);
        const char *path = tool_fsck_path(f, f->problems[i].obj_id);
        if (path)
            printf("problem: %s: %s\n", path, line);
        else
            printf("problem: %s\n", line);
    }
    if (!f->quiet) {
        printf("blocks: %u in use (%u read from summaries), %u empty, %u checkpoint, %u bad, "
               "%u junk\n",
               s->blocks_in_use, s->blocks_from_summary, s->blocks_empty, s->blocks_checkpoint,
               s->blocks_bad, s->blocks_bad_sequence);
        tool_print_objects(s->objects, s->files, s->dirs, s->symlinks, s->hardlinks, s->specials);
        printf(", %u in lost+found\n", s->orphans);
        printf("chunks: %u written, %u live; %u read through the ECC, %u with corrected "
               "bitflips (%llu bits); tags: %u corrected\n",
               s->chunks_seen, s->chunks_live, result->chunks_read, result->chunks_corrected,
               (unsigned long long)result->bitflips_corrected, s->tags_corrected);
        for (unsigned k = 0; k < NK_FS_PROBLEM_KIND_COUNT; k++) {
            if (result->problems[k])
                printf("  %-20s %u\n", nk_fs_problem_name((enum nk_fs_problem_kind)k),
                       result->problems[k]);
        }
        tool_fs_list_at_risk(t, stdout);
    }
    unsigned total = result->problem_total;
    if (traces_only)
        printf("%s: %u problem%s, %s of a write cut by power loss: nothing lost (the next "
               "read-write mount or fsck --repair clears %s)\n",
               image_path, total, total == 1 ? "" : "s", total == 1 ? "the trace" : "all traces",
               total == 1 ? "it" : "them");
    else
        printf("%s: %u problem%s\n", image_path, total, total == 1 ? "" : "s");
}

static int tool_fsck_run(int argc, char **argv)
{
    struct tool_image_opts opts;
    struct tool_fsck f;
    memset(&f, 0, sizeof f);
    bool repair = false;
    int status = tool_fsck_parse(argc, argv, &opts, &repair, &f);
    if (!status && repair)
        status = tool_fs_recover(&opts);
    if (status)
        return status;
    struct tool_fs t;
    status = tool_fs_open(&t, &opts, tool_fsck_report, &f);
    if (status) {
        /* What the mount met before it gave up still helps. */
        for (size_t i = 0; !f.quiet && !f.json && i < f.count; i++) {
            char line[256];
            nk_fs_problem_format(&f.problems[i], line, sizeof line);
            printf("problem: %s\n", line);
        }
        tool_fsck_free(&f);
        return status;
    }
    if (!f.json)
        tool_ecc_note(&t.image.part);
    struct nk_fs_check_result result;
    int err = nk_fs_check(&t.fs, &result);
    if (err) {
        tool_fs_close(&t);
        tool_fsck_free(&f);
        return tool_error("check stopped: %s", nk_strerror(err));
    }
    tool_fsck_name_add(&f, NK_FS_OBJ_ROOT, "/");
    tool_fsck_walk(&f, &t.fs, "/", 0);
    /* Each trace of an interrupted write the mount met is one problem it
     * counted as torn; only problems beyond those are damage. */
    bool traces_only = result.problem_total > 0 && result.problem_total <= t.fs.stats.torn_chunks;
    if (f.json)
        tool_fsck_report_json(&f, opts.path, &t.fs.stats, &result, traces_only);
    else
        tool_fsck_report_text(&f, &t, opts.path, &result, traces_only);
    tool_fs_close(&t);
    tool_fsck_free(&f);
    return result.problem_total == 0 ? 0 : traces_only ? 3 : 1;
}

const struct tool_command tool_cmd_fsck = {
    .name = "fsck",
    .summary = "check the structure and ECC of a YAFFS2 image",
    .run = tool_fsck_run,
    .help = tool_fsck_help,
};
