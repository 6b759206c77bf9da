/* SPDX-License-Identifier: MIT */
/* nandkit ls: list a directory (or the whole tree) of a YAFFS2 image. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fsimage.h"
#include "nandkit/error.h"
#include "tool.h"

static void tool_ls_help(FILE *out)
{
    fprintf(out,
            "usage: nandkit ls [-l] [-R] [--json] IMAGE [PATH] [--geometry P,O,N[,B] |\n"
            "                  --chip NAME]\n"
            "                  [--layout L]\n\n"
            "Mounts the YAFFS2 file system in IMAGE read-only and lists directory PATH\n"
            "(default /), sorted by name: mode, links, uid, gid, size, mtime (UTC), name, and\n"
            "for a symlink its target. A PATH that is not a directory lists itself. With -R\n"
            "every entry below PATH is listed with its full path.\n\n"
            "Options:\n" TOOL_IMAGE_HELP_READ
            "  -R, --recursive         the whole tree below PATH\n"
            "  -l, --long              the long listing above (the default; taken as ls -l)\n"
            "  --json                  a JSON array of {path, type (file, dir, symlink,\n"
            "                          hardlink, special), size, mode (octal string), uid, gid,\n"
            "                          mtime, nlink, obj_id, ino, link_target (symlinks),\n"
            "                          hardlink_target_id (hard links), xattrs ({name:\n"
            "                          value in hex}, when the object has any)}; a name\n"
            "                          byte that is not UTF-8, XX, is written \\uDCXX (a lone\n"
            "                          surrogate, as Python's surrogateescape)\n");
}

/* Names or one value: at most a header chunk's bytes (16 KiB pages). */
#define TOOL_LS_XATTR_BYTES 16384

struct tool_ls {
    struct nk_fs *fs;
    bool json, recursive, first;
    int status;
};

static const char *tool_ls_type_name(uint8_t type)
{
    switch (type) {
    case NK_FS_TYPE_FILE:
        return "file";
    case NK_FS_TYPE_DIR:
        return "dir";
    case NK_FS_TYPE_SYMLINK:
        return "symlink";
    case NK_FS_TYPE_HARDLINK:
        return "hardlink";
    default:
        return "special";
    }
}

/* Lists one entry; `known` is its stat when the caller has it already. */
/* `"xattrs": {"NAME": "VALUE in hex", ...}` when `path` has any. */
static void tool_ls_xattrs_json(struct tool_ls *ls, const char *path)
{
    static char names[TOOL_LS_XATTR_BYTES];
    static uint8_t value[TOOL_LS_XATTR_BYTES];
    int len = nk_fs_listxattr(ls->fs, path, names, sizeof names);
    if (len < 0) {
        fprintf(stderr, "nandkit: %s: extended attributes: %s\n", path, nk_strerror(len));
        ls->status = 1;
        return;
    }
    if (len == 0)
        return;
    printf(", \"xattrs\": {");
    for (int at = 0; at < len; at += (int)strlen(names + at) + 1) {
        int n = nk_fs_getxattr(ls->fs, path, names + at, value, sizeof value);
        if (n < 0) {
            fprintf(stderr, "nandkit: %s: extended attribute %s: %s\n", path, names + at,
                    nk_strerror(n));
            ls->status = 1;
            continue;
        }
        printf("%s", at ? ", " : "");
        tool_json_string(stdout, names + at);
        printf(": \"");
        for (int i = 0; i < n; i++)
            printf("%02x", value[i]);
        printf("\"");
    }
    printf("}");
}

static void tool_ls_entry(struct tool_ls *ls, const char *path, const char *shown,
                          const struct nk_fs_stat *known)
{
    struct nk_fs_stat st;
    int err = 0;
    if (known)
        st = *known;
    else
        err = nk_fs_lstat(ls->fs, path, &st);
    if (err) {
        fprintf(stderr, "nandkit: %s: %s\n", path, nk_strerror(err));
        ls->status = 1;
        return;
    }
    char target[NK_FS_ALIAS_MAX + 1] = "";
    if (st.type == NK_FS_TYPE_SYMLINK && nk_fs_readlink(ls->fs, path, target, sizeof target) < 0)
        ls->status = 1;
    if (st.at_risk) {
        tool_at_risk(path);
        ls->status = 1;
    }
    if (ls->json) {
        printf("%s\n  {\"path\": ", ls->first ? "" : ",");
        ls->first = false;
        tool_json_string(stdout, path);
        printf(", \"type\": \"%s\", \"size\": %llu, \"mode\": \"0%o\", \"uid\": %u, \"gid\": %u, "
               "\"mtime\": %lld, \"nlink\": %u, \"obj_id\": %u, \"ino\": %u",
               tool_ls_type_name(st.type), (unsigned long long)st.size, st.mode, st.uid, st.gid,
               (long long)(int64_t)st.mtime, st.nlink, st.obj_id, st.ino);
        if (st.type == NK_FS_TYPE_SYMLINK) {
            printf(", \"link_target\": ");
            tool_json_string(stdout, target);
        }
        if (st.type == NK_FS_TYPE_HARDLINK)
            printf(", \"hardlink_target_id\": %u", st.ino);
        tool_ls_xattrs_json(ls, path);
        printf("}");
        return;
    }
    char mode[11], when[32] = "?";
    tool_mode_string(st.mode, mode);
    time_t t = (time_t)st.mtime;
    struct tm tm;
    if (gmtime_r(&t, &tm))
        strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tm);
    printf("%s %3u %5u %5u %10llu %s %s", mode, st.nlink, st.uid, st.gid,
           (unsigned long long)st.size, when, shown);
    if (st.type == NK_FS_TYPE_SYMLINK)
        printf(" -> %s", target);
    if (st.type == NK_FS_TYPE_HARDLINK)
        printf("  (hard link to object %u)", st.ino);
    printf("\n");
}

struct tool_ls_item {
    char *name;
    struct nk_fs_stat st;
    int err;
};

static int tool_ls_compare(const void *a, const void *b)
{
    return strcmp(((const struct tool_ls_item *)a)->name, ((const struct tool_ls_item *)b)->name);
}

/* The entries of directory `path` with their stats (taken while listing,
 * without a lookup each), sorted by name; *count set. malloc'd. */
static struct tool_ls_item *tool_ls_items(struct tool_ls *ls, const char *path, size_t *count)
{
    struct nk_fs_dir dir;
    int err = nk_fs_dir_open(ls->fs, &dir, path);
    if (err) {
        fprintf(stderr, "nandkit: %s: %s\n", path, nk_strerror(err));
        ls->status = 1;
        return NULL;
    }
    size_t n = 0, cap = 16;
    struct tool_ls_item *items = malloc(cap * sizeof *items);
    struct nk_fs_dirent entry;
    while (items && (err = nk_fs_dir_read(&dir, &entry)) != 0) {
        if (err < 0) {
            fprintf(stderr, "nandkit: %s: an entry is unreadable: %s\n", path, nk_strerror(err));
            ls->status = 1;
            continue;
        }
        if (n == cap) {
            cap *= 2;
            struct tool_ls_item *grown = realloc(items, cap * sizeof *items);
            if (!grown)
                break;
            items = grown;
        }
        items[n].name = strdup(entry.name);
        items[n].err = nk_fs_dir_stat(&dir, &items[n].st);
        n++;
    }
    nk_fs_dir_close(&dir);
    if (items)
        qsort(items, n, sizeof *items, tool_ls_compare);
    *count = n;
    return items;
}

/* Deeper trees only come from corrupted images; stop before the stack does. */
#define TOOL_LS_MAX_DEPTH 256

static void tool_ls_dir(struct tool_ls *ls, const char *path, unsigned depth)
{
    if (depth > TOOL_LS_MAX_DEPTH) {
        fprintf(stderr, "nandkit: %s: more than %d directory levels, not listed\n", path,
                TOOL_LS_MAX_DEPTH);
        ls->status = 1;
        return;
    }
    size_t count = 0;
    struct tool_ls_item *items = tool_ls_items(ls, path, &count);
    if (!items)
        return;
    for (size_t i = 0; i < count; i++) {
        /* As long as the path is: a cut path would name another entry. */
        char *child = tool_path_dup(path, items[i].name);
        if (!child) {
            fprintf(stderr, "nandkit: out of memory listing %s\n", path);
            ls->status = 1;
        } else if (items[i].err) {
            fprintf(stderr, "nandkit: %s: %s\n", child, nk_strerror(items[i].err));
            ls->status = 1;
        } else {
            tool_ls_entry(ls, child, ls->recursive || ls->json ? child : items[i].name,
                          &items[i].st);
            if (ls->recursive && items[i].st.type == NK_FS_TYPE_DIR)
                tool_ls_dir(ls, child, depth + 1);
        }
        free(child);
        free(items[i].name);
    }
    free(items);
}

static int tool_ls_run(int argc, char **argv)
{
    static const struct option options[] = {TOOL_IMAGE_LONG_OPTIONS,
                                            {"recursive", no_argument, NULL, 'R'},
                                            {"long", no_argument, NULL, 'l'},
                                            {"json", no_argument, NULL, 'j'},
                                            {NULL, 0, NULL, 0}};
    struct tool_image_opts opts;
    tool_image_opts_init(&opts);
    opts.reads_only = true;
    struct tool_ls ls = {.first = true};
    int opt;
    optind = 1;
    while ((opt = tool_getopt(argc, argv, "Rl", options, &opts, "ls")) > 0) {
        if (opt == 'l')
            continue; /* the listing is always the long one */
        if (opt == 'R')
            ls.recursive = true;
        else if (opt == 'j')
            ls.json = true;
        else
            return tool_fail("ls: unknown option (see nandkit ls --help)");
    }
    if (opt < 0)
        return -opt;
    if (optind >= argc)
        return tool_fail("ls needs an IMAGE (see nandkit ls --help)");
    opts.path = argv[optind++];
    const char *path = optind < argc ? argv[optind++] : "/";
    if (optind < argc)
        return tool_fail("ls: unexpected argument '%s'", argv[optind]);

    struct tool_fs t;
    int status = tool_fs_open(&t, &opts, NULL, NULL);
    if (status)
        return status;
    ls.fs = &t.fs;
    struct nk_fs_stat st;
    int err = nk_fs_stat(ls.fs, path, &st);
    if (err) {
        tool_fs_close(&t);
        return tool_fail_err(err, tool_is_user_error(err), "%s: %s in the image", path,
                             nk_strerror(err));
    }
    if (ls.json)
        printf("[");
    if (st.type == NK_FS_TYPE_DIR)
        tool_ls_dir(&ls, path, 0);
    else
        tool_ls_entry(&ls, path, path, NULL);
    if (ls.json)
        printf("%s]\n", ls.first ? "" : "\n");
    if (tool_fs_damage(&t))
        ls.status = 1;
    tool_fs_close(&t);
    return ls.status;
}

const struct tool_command tool_cmd_ls = {
    .name = "ls",
    .summary = "list files in a YAFFS2 image",
    .run = tool_ls_run,
    .help = tool_ls_help,
};
