/* SPDX-License-Identifier: MIT */
/*
 * nandkit mkimage: a YAFFS2 file system built from a host tree, as
 * mkyaffs2image does, on an image file (created when missing) or /dev/mtdN;
 * with --from, from the current tree of another image (or of IMAGE itself),
 * read through a read-only mount.
 *
 * Two passes. The plan walks SRC_DIR with lstat/readdir, names sorted
 * bytewise so that the same tree always gives the same image, and checks
 * everything a user can get wrong (names, symlink targets, the space it
 * needs) before the image is touched. The build then streams the plan
 * through nk_fs_build_*: the root's attributes, each directory's header
 * before its children, file data read in 64 KiB pieces.
 */
#define _GNU_SOURCE /* major(), minor() */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "flashio.h"
#include "fsimage.h"
#include "image.h"
#include "nandkit/bbt.h"
#include "nandkit/error.h"
#include "save.h"
#include "tool.h"

static void tool_mkimage_help(FILE *out)
{
    fprintf(out,
            "usage: nandkit mkimage SRC_DIR IMAGE (--geometry P,O,N[,B] | --chip NAME)\n"
            "                       [--layout L] [--blocks N] [--all-root] [--no-progress]\n"
            "       nandkit mkimage SRC_DIR /dev/mtdN [--mtd-ecc kernel|nandkit] [--blocks N]\n"
            "       nandkit mkimage --from SRC_IMAGE IMAGE [--from-geometry P,O,N[,B] |\n"
            "                       --from-chip NAME] [--from-layout L] [--from-ecc E] ...\n\n"
            "Builds a YAFFS2 file system holding the tree under SRC_DIR, as mkyaffs2image does:\n"
            "regular files, directories, symlinks, hard links (names of one inode become one\n"
            "file and YAFFS2 hard-link objects), device nodes, FIFOs and sockets, with their\n"
            "mode (setuid, setgid, sticky included), owner, times and extended attributes\n"
            "(kept in the header chunk after its 512 bytes, as YAFFS2 keeps them; the root's\n"
            "are not taken). Directory entries are taken in bytewise name order, so one tree\n"
            "always gives the same image. A top-level lost+found directory becomes YAFFS2's\n"
            "own lost+found.\n\n"
            "IMAGE is created when missing, sparse as `nandkit sim create` makes it: the file\n"
            "ends with the last block written, as mkyaffs2image's output does, and reads back\n"
            "with --geometry P,O,N (or none: its geometry is detected from its tags). No\n"
            "IMAGE.nksim sidecar is made (one that exists is kept up to date). Given\n"
            "--geometry P,O,N without a block count (and no --blocks), a new image is sized\n"
            "to what the tree takes plus 4 erased blocks (the file system's garbage-collection\n"
            "reserve of 3 and one to write in), so that put, mkdir and rm work on it; with\n"
            "--blocks N, to N blocks. Those erased blocks are a hole in the file, but 0xFF\n"
            "bytes in the mkyaffs2 layout: unyaffs would read a hole's zeros as chunks.\n\n"
            "An image file is built in a temporary copy beside it (IMAGE.nktmp-XXXXXX, holes\n"
            "kept), made durable and renamed over IMAGE at the end: a kill, a full disk or a\n"
            "failed build leaves the old image as it was (a kill may leave the temporary\n"
            "file). Memory stays the same whatever the image size: pages go to the file as\n"
            "they are written.\n\n"
            "An existing image or /dev/mtdN is overwritten: every good block of the file\n"
            "system's blocks is erased (bad ones are skipped; a block that fails to erase is\n"
            "marked bad), then written in order, each block with the next sequence number\n"
            "from 0x1000, object ids from 0x100. See docs/fs-format.md, \"Building an image\".\n\n"
            "Names of up to 255 bytes and symlink targets of up to 159 bytes are stored whole;\n"
            "longer ones are refused (nothing is truncated). Nothing is written when the tree\n"
            "does not fit: the error names the space needed and the space there is.\n\n"
            "Options:\n" TOOL_IMAGE_HELP
            "  --blocks N              build in the first N blocks (default: all; with\n"
            "                          --geometry P,O,N it also sizes a new image, else\n"
            "                          the tree's blocks and 4 more)\n"
            "  --all-root              store uid and gid 0 for everything\n"
            "  --no-progress           no progress lines on stderr (shown after a second)\n\n"
            "  --from SRC_IMAGE        build from the current tree of the YAFFS2 image (or\n"
            "                          /dev/mtdN) SRC_IMAGE instead of SRC_DIR: files,\n"
            "                          directories, symlinks, hard links, device nodes, FIFOs\n"
            "                          and sockets with their modes, owners and times, into a\n"
            "                          fresh image exactly as from a directory holding that\n"
            "                          tree. SRC_IMAGE may be IMAGE itself: it is read before\n"
            "                          the new image is renamed over it. This is how an image\n"
            "                          changed by put, rm, mkdir, mv or chmod becomes one that\n"
            "                          mkyaffs2image's readers (unyaffs) extract: they read\n"
            "                          only a freshly built image (docs/cli.md)\n"
            "  --from-chip NAME, --from-geometry P,O,N[,B], --from-layout L, --from-ecc E\n"
            "                          how SRC_IMAGE is read, as --chip ... for IMAGE. Without\n"
            "                          them SRC_IMAGE is read with IMAGE's --chip/--geometry,\n"
            "                          --layout and --ecc, or its sidecar, or its tags; IMAGE\n"
            "                          without --chip/--geometry gets SRC_IMAGE's geometry\n"
            "                          (block count included), without --layout its layout\n\n"
            "Bad input (an unreadable file, a name or symlink target too long, an image too\n"
            "small) writes nothing. A SRC_IMAGE with pages whose tags cannot be decoded is\n"
            "refused (nandkit fsck names them; nandkit extract saves what is readable).\n");
}

/* ----- the plan --------------------------------------------------------------------------- */

#define TOOL_MKIMAGE_NO_PARENT ((size_t)-1)
#define TOOL_MKIMAGE_READ_BYTES 65536
#define TOOL_MKIMAGE_XATTR_MAX 65536 /* Linux's XATTR_SIZE_MAX; a header chunk holds far less */

enum tool_mkimage_role {
    TOOL_MKIMAGE_OBJECT = 0, /* an ordinary object */
    TOOL_MKIMAGE_LOST_FOUND, /* SRC_DIR/lost+found: YAFFS2's built-in directory */
    TOOL_MKIMAGE_SKIPPED,    /* the image itself, inside SRC_DIR */
};

struct tool_mkimage_node {
    char *path;      /* host path */
    size_t name_off; /* the name within `path` */
    size_t parent;   /* node index, TOOL_MKIMAGE_NO_PARENT for the root's children */
    size_t link_of;  /* hard links: node index of the file */
    struct stat st;
    char *target;    /* symlinks */
    uint8_t *xattrs; /* extended attributes, as the header stores them (NULL: none) */
    size_t xattrs_len;
    uint8_t type;    /* enum nk_fs_type */
    uint8_t role;    /* enum tool_mkimage_role */
    uint32_t obj_id; /* given by the build */
};

struct tool_mkimage_inode {
    dev_t dev;
    ino_t ino;
    size_t node;
};

struct tool_mkimage {
    const char *src;      /* SRC_DIR, or SRC_IMAGE with --from */
    struct tool_fs *from; /* --from: the source image's read-only mount */
    char *from_geometry;  /* IMAGE's --geometry when taken from the source */
    const char *image_path;
    struct stat root_st;
    struct tool_mkimage_node *nodes;
    size_t count, cap;
    struct tool_mkimage_inode *inodes; /* files with more than one name */
    size_t inode_count, inode_cap;
    bool image_exists;
    struct stat image_st, sidecar_st;
    bool sidecar_exists;
    bool all_root;
    bool progress;
    /* The build. */
    struct tool_image *image;
    struct nk_fs_builder builder;
    uint64_t chunks_needed;
    struct timespec start;
    double last_report;
    bool reported;
    uint8_t *buf;
};

static double tool_mkimage_elapsed(const struct tool_mkimage *m)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - m->start.tv_sec) + (double)(now.tv_nsec - m->start.tv_nsec) / 1e9;
}

static bool tool_mkimage_grow(void **array, size_t *cap, size_t count, size_t size)
{
    if (count < *cap)
        return true;
    size_t grown_cap = *cap ? 2 * *cap : 64;
    void *grown = realloc(*array, grown_cap * size);
    if (!grown)
        return false;
    *array = grown;
    *cap = grown_cap;
    return true;
}

static bool tool_mkimage_same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

static uint8_t tool_mkimage_type(mode_t mode)
{
    switch (mode & S_IFMT) {
    case S_IFREG:
        return NK_FS_TYPE_FILE;
    case S_IFDIR:
        return NK_FS_TYPE_DIR;
    case S_IFLNK:
        return NK_FS_TYPE_SYMLINK;
    case S_IFCHR:
    case S_IFBLK:
    case S_IFIFO:
    case S_IFSOCK:
        return NK_FS_TYPE_SPECIAL;
    default:
        return NK_FS_TYPE_UNKNOWN;
    }
}

static int tool_mkimage_compare(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The node of an earlier name of this inode, or TOOL_MKIMAGE_NO_PARENT (and
 * this node remembered as its first name). */
static size_t tool_mkimage_link_of(struct tool_mkimage *m, size_t node)
{
    const struct stat *st = &m->nodes[node].st;
    for (size_t i = 0; i < m->inode_count; i++) {
        if (m->inodes[i].dev == st->st_dev && m->inodes[i].ino == st->st_ino)
            return m->inodes[i].node;
    }
    if (tool_mkimage_grow((void **)&m->inodes, &m->inode_cap, m->inode_count, sizeof *m->inodes))
        m->inodes[m->inode_count++] = (struct tool_mkimage_inode){st->st_dev, st->st_ino, node};
    return TOOL_MKIMAGE_NO_PARENT;
}

static int tool_mkimage_plan_dir(struct tool_mkimage *m, const char *dir_path, size_t parent,
                                 unsigned depth);

/* Opens without touching the source's access times where the system allows
 * (O_NOATIME: owner or root), so that building leaves the tree as it was
 * and two builds of one tree give the same image. */
static int tool_mkimage_open_source(const char *path, int flags)
{
#ifdef O_NOATIME
    int fd = open(path, flags | O_NOATIME);
    if (fd >= 0 || errno != EPERM)
        return fd;
#endif
    return open(path, flags);
}

/* One source's extended attributes: the host tree's (llistxattr and
 * lgetxattr, not following symlinks) or, with --from, the source image's.
 * Each returns a length, or -1 with errno set. */
static ssize_t tool_mkimage_list_xattrs(struct tool_mkimage *m, const char *path, char *list,
                                        size_t size)
{
    if (!m->from)
        return llistxattr(path, list, size);
    int n = nk_fs_listxattr(&m->from->fs, path, list, size);
    if (n < 0)
        errno = -n;
    return n < 0 ? -1 : n;
}

static ssize_t tool_mkimage_get_xattr(struct tool_mkimage *m, const char *path, const char *name,
                                      void *value, size_t size)
{
    if (!m->from)
        return lgetxattr(path, name, value, size);
    int n = nk_fs_getxattr(&m->from->fs, path, name, value, size);
    if (n < 0)
        errno = -n;
    return n < 0 ? -1 : n;
}

/* The extended attributes of `path`, as the header stores them, in
 * n->xattrs. Whether they fit the image's header chunks is checked by the
 * build, which knows the page size. */
static int tool_mkimage_plan_xattrs(struct tool_mkimage *m, struct tool_mkimage_node *n,
                                    const char *path)
{
    ssize_t names_len = tool_mkimage_list_xattrs(m, path, NULL, 0);
    if (names_len < 0 && (errno == ENOTSUP || errno == ENOSYS))
        return 0; /* the host file system has none */
    if (names_len < 0)
        return tool_error("cannot list the extended attributes of %s: %s", path, strerror(errno));
    if (names_len == 0)
        return 0;
    char *names = malloc((size_t)names_len);
    uint8_t *list = malloc(TOOL_MKIMAGE_XATTR_MAX);
    uint8_t *value = malloc(TOOL_MKIMAGE_XATTR_MAX);
    int status = 0;
    if (!names || !list || !value)
        status = tool_error("out of memory reading the extended attributes of %s", path);
    if (!status) {
        names_len = tool_mkimage_list_xattrs(m, path, names, (size_t)names_len);
        if (names_len < 0)
            status =
                tool_error("cannot list the extended attributes of %s: %s", path, strerror(errno));
    }
    size_t used = 0;
    for (ssize_t at = 0; !status && at < names_len; at += (ssize_t)strlen(names + at) + 1) {
        const char *name = names + at;
        ssize_t len = tool_mkimage_get_xattr(m, path, name, value, TOOL_MKIMAGE_XATTR_MAX);
        if (len < 0) {
            status = tool_error("cannot read extended attribute %s of %s: %s", name, path,
                                strerror(errno));
            break;
        }
        int err = nk_fs_xattr_pack(list, TOOL_MKIMAGE_XATTR_MAX, &used, name, value, (size_t)len);
        if (err)
            status = tool_fail("%s: extended attribute %s (%lld bytes) is more than a YAFFS2 "
                               "header chunk can hold",
                               path, name, (long long)len);
    }
    if (!status && used) {
        n->xattrs = list;
        n->xattrs_len = used;
        list = NULL;
    }
    free(names);
    free(list);
    free(value);
    return status;
}

/* Adds `path` (lstat'ed into `st`) under `parent`. */
static int tool_mkimage_plan_entry(struct tool_mkimage *m, char *path, size_t name_off,
                                   const struct stat *st, size_t parent, unsigned depth)
{
    const char *name = path + name_off;
    size_t name_len = strlen(name);
    if (name_len > NK_FS_NAME_MAX) {
        int status = tool_fail("%.*s/%.40s...: a name of %zu bytes, YAFFS2 stores at most %d",
                               (int)(name_off - 1), path, name, name_len, NK_FS_NAME_MAX);
        free(path);
        return status;
    }
    uint8_t type = tool_mkimage_type(st->st_mode);
    if (type == NK_FS_TYPE_UNKNOWN) {
        fprintf(stderr, "nandkit: warning: %s: unknown file type (mode 0%o), skipped\n", path,
                (unsigned)st->st_mode);
        free(path);
        return 0;
    }
    if (!tool_mkimage_grow((void **)&m->nodes, &m->cap, m->count, sizeof *m->nodes)) {
        free(path);
        return tool_error("out of memory planning %s", m->src);
    }
    size_t index = m->count++;
    struct tool_mkimage_node *n = &m->nodes[index];
    memset(n, 0, sizeof *n);
    n->path = path;
    n->name_off = name_off;
    n->parent = parent;
    n->link_of = TOOL_MKIMAGE_NO_PARENT;
    n->st = *st;
    n->type = type;
    if (!m->from && ((m->image_exists && tool_mkimage_same_file(st, &m->image_st)) ||
                     (m->sidecar_exists && tool_mkimage_same_file(st, &m->sidecar_st)))) {
        fprintf(stderr, "nandkit: warning: %s is the image being built: left out\n", path);
        n->role = TOOL_MKIMAGE_SKIPPED;
        return 0;
    }
    if (parent == TOOL_MKIMAGE_NO_PARENT && strcmp(name, "lost+found") == 0) {
        if (type != NK_FS_TYPE_DIR)
            return tool_fail("%s is not a directory: YAFFS2 keeps that name in the root for "
                             "its own lost+found",
                             path);
        n->role = TOOL_MKIMAGE_LOST_FOUND;
    }
    if (type == NK_FS_TYPE_SYMLINK) {
        char target[NK_FS_ALIAS_MAX + 2];
        ssize_t len;
        if (m->from) {
            int got = nk_fs_readlink(&m->from->fs, path, target, sizeof target);
            if (got < 0)
                return tool_error("cannot read symlink %s in %s: %s", path, m->src,
                                  nk_strerror(got));
            len = got;
        } else {
            len = readlink(path, target, sizeof target);
        }
        if (len < 0)
            return tool_error("cannot read symlink %s: %s", path, strerror(errno));
        if ((size_t)len > NK_FS_ALIAS_MAX)
            return tool_fail("%s: a symlink target of %lld bytes, YAFFS2 stores at most %d", path,
                             (long long)st->st_size, NK_FS_ALIAS_MAX);
        target[len] = '\0';
        n->target = strdup(target);
        if (!n->target)
            return tool_error("out of memory planning %s", m->src);
    } else if (type == NK_FS_TYPE_FILE && !m->from && access(path, R_OK) != 0) {
        /* Found now, not halfway through writing the image. */
        return tool_fail("cannot read %s: %s", path, strerror(errno));
    }
    if (type == NK_FS_TYPE_FILE && st->st_nlink > 1) {
        size_t first = tool_mkimage_link_of(m, index);
        n = &m->nodes[index];
        if (first != TOOL_MKIMAGE_NO_PARENT) {
            n->type = NK_FS_TYPE_HARDLINK;
            n->link_of = first;
        }
    }
    if (n->type != NK_FS_TYPE_HARDLINK) {
        int status = tool_mkimage_plan_xattrs(m, n, path);
        if (status)
            return status;
    }
    if (type == NK_FS_TYPE_DIR) {
        return tool_mkimage_plan_dir(m, path, index, depth + 1);
    }
    return 0;
}

/* Deeper trees than this are surely a loop of bind mounts. */
#define TOOL_MKIMAGE_MAX_DEPTH 256

/* Names sorted bytewise, as readdir gives them on no file system. */
static void tool_mkimage_sort_names(char **names, size_t count)
{
    if (count)
        qsort(names, count, sizeof *names, tool_mkimage_compare);
}

static void tool_mkimage_free_names(char **names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
}

/* What a host lstat() of the entry would give, from the source image: the
 * hard links of one file share (device 0, the file's id) as the names of
 * one inode do; st_rdev holds the device number as YAFFS2 stores it. */
static void tool_mkimage_stat_from_image(const struct nk_fs_stat *in, struct stat *out)
{
    memset(out, 0, sizeof *out);
    out->st_dev = 0;
    out->st_ino = in->ino;
    out->st_mode = (mode_t)in->mode;
    out->st_nlink = in->nlink;
    out->st_uid = in->uid;
    out->st_gid = in->gid;
    out->st_rdev = in->rdev;
    out->st_size = (off_t)in->size;
    out->st_atim.tv_sec = (time_t)in->atime;
    out->st_mtim.tv_sec = (time_t)in->mtime;
    out->st_ctim.tv_sec = (time_t)in->ctime;
}

/* The --from twin of tool_mkimage_plan_host_dir(): directory `dir_path` of
 * the source image. Its built-in lost+found counts as a directory of the
 * tree only when it has a header of its own or entries, as a tree without
 * one gives an image whose lost+found has neither. */
static int tool_mkimage_plan_image_dir(struct tool_mkimage *m, const char *dir_path, size_t parent,
                                       unsigned depth)
{
    struct nk_fs *fs = &m->from->fs;
    struct nk_fs_dir dir;
    int err = nk_fs_dir_open(fs, &dir, dir_path);
    if (err)
        return tool_error("cannot read directory %s in %s: %s", dir_path, m->src, nk_strerror(err));
    char **names = NULL;
    size_t count = 0, cap = 0;
    int status = 0;
    struct nk_fs_dirent entry;
    int got;
    while (!status && (got = nk_fs_dir_read(&dir, &entry)) != 0) {
        if (got < 0) {
            status = tool_error("cannot read directory %s in %s: %s", dir_path, m->src,
                                nk_strerror(got));
            break;
        }
        char *copy = strdup(entry.name);
        if (!copy || !tool_mkimage_grow((void **)&names, &cap, count, sizeof *names)) {
            free(copy);
            status = tool_error("out of memory reading %s", dir_path);
            break;
        }
        names[count++] = copy;
    }
    nk_fs_dir_close(&dir);
    tool_mkimage_sort_names(names, count);
    for (size_t i = 0; i < count && !status; i++) {
        char *path = tool_path_dup(dir_path, names[i]);
        if (!path) {
            status = tool_error("out of memory planning %s", m->src);
            break;
        }
        struct nk_fs_stat fst;
        err = nk_fs_lstat(fs, path, &fst);
        if (err) {
            status = tool_error("cannot stat %s in %s: %s", path, m->src, nk_strerror(err));
            free(path);
            break;
        }
        if (parent == TOOL_MKIMAGE_NO_PARENT && fst.obj_id == NK_FS_OBJ_LOST_FOUND &&
            !fst.has_header) {
            struct nk_fs_dir lost;
            struct nk_fs_dirent child;
            bool empty = false;
            if (nk_fs_dir_open(fs, &lost, path) == 0) {
                empty = nk_fs_dir_read(&lost, &child) == 0;
                nk_fs_dir_close(&lost);
            }
            if (empty) {
                free(path);
                continue;
            }
        }
        struct stat st;
        tool_mkimage_stat_from_image(&fst, &st);
        size_t name_off = strlen(path) - strlen(names[i]);
        status = tool_mkimage_plan_entry(m, path, name_off, &st, parent, depth);
    }
    tool_mkimage_free_names(names, count);
    return status;
}

static int tool_mkimage_plan_host_dir(struct tool_mkimage *m, const char *dir_path, size_t parent,
                                      unsigned depth);

static int tool_mkimage_plan_dir(struct tool_mkimage *m, const char *dir_path, size_t parent,
                                 unsigned depth)
{
    if (depth > TOOL_MKIMAGE_MAX_DEPTH)
        return tool_fail("%s: more than %d directory levels", dir_path, TOOL_MKIMAGE_MAX_DEPTH);
    return m->from ? tool_mkimage_plan_image_dir(m, dir_path, parent, depth)
                   : tool_mkimage_plan_host_dir(m, dir_path, parent, depth);
}

static int tool_mkimage_plan_host_dir(struct tool_mkimage *m, const char *dir_path, size_t parent,
                                      unsigned depth)
{
    int fd = tool_mkimage_open_source(dir_path, O_RDONLY | O_DIRECTORY);
    DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
    if (!dir && fd >= 0)
        close(fd);
    if (!dir)
        return tool_error("cannot read directory %s: %s", dir_path, strerror(errno));
    char **names = NULL;
    size_t count = 0, cap = 0;
    int status = 0;
    struct dirent *entry;
    errno = 0;
    while (!status && (entry = readdir(dir)) != NULL) {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
            continue;
        char *copy = strdup(entry->d_name);
        if (!copy || !tool_mkimage_grow((void **)&names, &cap, count, sizeof *names)) {
            free(copy);
            status = tool_error("out of memory reading %s", dir_path);
            break;
        }
        names[count++] = copy;
        errno = 0;
    }
    if (!status && errno)
        status = tool_error("cannot read directory %s: %s", dir_path, strerror(errno));
    closedir(dir);
    tool_mkimage_sort_names(names, count);
    size_t dir_len = strlen(dir_path);
    for (size_t i = 0; i < count && !status; i++) {
        size_t len = dir_len + 1 + strlen(names[i]) + 1;
        char *path = malloc(len);
        if (!path) {
            status = tool_error("out of memory planning %s", m->src);
            break;
        }
        snprintf(path, len, "%s/%s", dir_path, names[i]);
        struct stat st;
        if (lstat(path, &st) != 0) {
            status = tool_error("cannot stat %s: %s", path, strerror(errno));
            free(path);
            break;
        }
        status = tool_mkimage_plan_entry(m, path, dir_len + 1, &st, parent, depth);
    }
    tool_mkimage_free_names(names, count);
    return status;
}

static void tool_mkimage_free(struct tool_mkimage *m)
{
    for (size_t i = 0; i < m->count; i++) {
        free(m->nodes[i].path);
        free(m->nodes[i].target);
        free(m->nodes[i].xattrs);
    }
    free(m->nodes);
    free(m->inodes);
    free(m->buf);
    if (m->from)
        tool_fs_close(m->from);
    m->from = NULL;
    free(m->from_geometry);
}

/* ----- the build ------------------------------------------------------------------------------ */

static void tool_mkimage_report(struct tool_mkimage *m, bool last)
{
    if (!m->progress)
        return;
    double t = tool_mkimage_elapsed(m);
    if (!last && (t < 1.0 || t - m->last_report < 0.5))
        return;
    if (last && !m->reported)
        return;
    struct nk_fs_build_stats s;
    nk_fs_build_stats_get(&m->builder, &s);
    double done = m->chunks_needed ? (double)s.chunks_written / (double)m->chunks_needed : 1.0;
    bool tty = isatty(STDERR_FILENO);
    fprintf(stderr,
            "%smkimage: %u of %u blocks erased, %llu of %llu chunks written (%.0f%%), %.1f s%s",
            tty ? "\r" : "", s.blocks_erased + s.blocks_retired, s.blocks - s.blocks_bad,
            (unsigned long long)s.chunks_written, (unsigned long long)m->chunks_needed,
            100.0 * (done > 1.0 ? 1.0 : done), t, tty && !last ? "" : "\n");
    fflush(stderr);
    m->last_report = t;
    m->reported = true;
}

static void tool_mkimage_progress(void *ctx, const struct nk_fs_build_stats *stats)
{
    (void)stats;
    tool_mkimage_report(ctx, false);
}

/* Linux's device number encoding, as Linux YAFFS stores rdev: (major << 8)
 * | minor for numbers below 256 (old_encode_dev), with the high bits of
 * larger ones placed as new_encode_dev does. */
static uint32_t tool_mkimage_rdev(dev_t rdev)
{
    uint32_t major_number = (uint32_t)major(rdev), minor_number = (uint32_t)minor(rdev);
    return (minor_number & 0xffu) | (major_number << 8) | ((minor_number & ~0xffu) << 12);
}

static struct nk_fs_build_attr tool_mkimage_attr(const struct tool_mkimage *m,
                                                 const struct stat *st)
{
    struct nk_fs_build_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.mode = (uint32_t)st->st_mode & (NK_FS_S_IFMT | 07777u);
    attr.uid = m->all_root ? 0 : (uint32_t)st->st_uid;
    attr.gid = m->all_root ? 0 : (uint32_t)st->st_gid;
    /* A source image's nodes carry the number as YAFFS2 stores it. */
    if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode))
        attr.rdev = m->from ? (uint32_t)st->st_rdev : tool_mkimage_rdev(st->st_rdev);
    attr.atime = (uint64_t)(int64_t)st->st_atim.tv_sec;
    attr.mtime = (uint64_t)(int64_t)st->st_mtim.tv_sec;
    attr.ctime = (uint64_t)(int64_t)st->st_ctim.tv_sec;
    return attr;
}

static int tool_mkimage_build_error(struct tool_mkimage *m, const char *path, int err)
{
    const char *why = m->builder.diag.text[0] ? m->builder.diag.text : nk_strerror(err);
    if (m->image->sim && !nk_sim_powered(m->image->sim))
        why = tool_image_error(m->image, err); /* --power-cut-after did it */
    return tool_error("building %s failed: %s", path, why);
}

/* A file's data from the source image, streamed into the build. Returns
 * the bytes read, or minus the exit status after one line. */
static int64_t tool_mkimage_image_data(struct tool_mkimage *m, struct tool_mkimage_node *n)
{
    struct nk_fs_file file;
    int err = nk_fs_file_open(&m->from->fs, &file, n->path, NK_FS_O_RDONLY);
    if (err)
        return -tool_error("cannot open %s in %s: %s", n->path, m->src, nk_strerror(err));
    int64_t total = 0;
    int32_t got;
    while ((got = nk_fs_file_read(&file, m->buf, TOOL_MKIMAGE_READ_BYTES)) > 0) {
        err = nk_fs_build_data(&m->builder, m->buf, (size_t)got);
        if (err) {
            nk_fs_file_close(&file);
            return -tool_mkimage_build_error(m, n->path, err);
        }
        total += got;
        tool_mkimage_report(m, false);
    }
    nk_fs_file_close(&file);
    if (got < 0)
        return -tool_error("cannot read %s in %s: %s: nothing written", n->path, m->src,
                           nk_strerror(got));
    return total;
}

static int tool_mkimage_file_data(struct tool_mkimage *m, struct tool_mkimage_node *n)
{
    if (m->from) {
        int64_t total = tool_mkimage_image_data(m, n);
        if (total < 0)
            return (int)-total;
        if ((uint64_t)total != (uint64_t)n->st.st_size)
            return tool_error("%s in %s: %llu bytes read, not the %llu its size says: nothing "
                              "written",
                              n->path, m->src, (unsigned long long)total,
                              (unsigned long long)n->st.st_size);
        int err = nk_fs_build_file_end(&m->builder);
        return err ? tool_mkimage_build_error(m, n->path, err) : 0;
    }
    int fd = tool_mkimage_open_source(n->path, O_RDONLY | O_NOFOLLOW);
    if (fd < 0)
        return tool_error("cannot open %s: %s", n->path, strerror(errno));
    uint64_t total = 0;
    ssize_t got;
    int status = 0;
    while ((got = read(fd, m->buf, TOOL_MKIMAGE_READ_BYTES)) > 0) {
        int err = nk_fs_build_data(&m->builder, m->buf, (size_t)got);
        if (err) {
            status = tool_mkimage_build_error(m, n->path, err);
            break;
        }
        total += (uint64_t)got;
        tool_mkimage_report(m, false);
    }
    if (got < 0 && !status)
        status = tool_error("cannot read %s: %s", n->path, strerror(errno));
    close(fd);
    /* A file that changed under the build would be stored half old, half
     * new: refused, and the image is left as it was. */
    if (!status && total != (uint64_t)n->st.st_size)
        status = tool_error("%s changed while being read (%llu bytes, not the %llu planned): "
                            "nothing written; build again from a quiet tree",
                            n->path, (unsigned long long)total, (unsigned long long)n->st.st_size);
    if (status)
        return status;
    int err = nk_fs_build_file_end(&m->builder);
    return err ? tool_mkimage_build_error(m, n->path, err) : 0;
}

static uint32_t tool_mkimage_parent_id(const struct tool_mkimage *m,
                                       const struct tool_mkimage_node *n)
{
    if (n->parent == TOOL_MKIMAGE_NO_PARENT)
        return NK_FS_OBJ_ROOT;
    const struct tool_mkimage_node *p = &m->nodes[n->parent];
    return p->role == TOOL_MKIMAGE_LOST_FOUND ? NK_FS_OBJ_LOST_FOUND : p->obj_id;
}

static int tool_mkimage_build(struct tool_mkimage *m)
{
    struct nk_fs_build_attr root = tool_mkimage_attr(m, &m->root_st);
    int err = nk_fs_build_builtin(&m->builder, NK_FS_OBJ_ROOT, &root);
    if (err)
        return tool_mkimage_build_error(m, m->src, err);
    for (size_t i = 0; i < m->count; i++) {
        struct tool_mkimage_node *n = &m->nodes[i];
        if (n->role == TOOL_MKIMAGE_SKIPPED)
            continue;
        if (n->role == TOOL_MKIMAGE_LOST_FOUND) {
            struct nk_fs_build_attr attr = tool_mkimage_attr(m, &n->st);
            err = nk_fs_build_builtin(&m->builder, NK_FS_OBJ_LOST_FOUND, &attr);
            if (err)
                return tool_mkimage_build_error(m, n->path, err);
            continue;
        }
        struct nk_fs_build_entry e;
        memset(&e, 0, sizeof e);
        e.type = n->type;
        e.parent_id = tool_mkimage_parent_id(m, n);
        e.name = n->path + n->name_off;
        e.name_len = strlen(e.name);
        e.attr = tool_mkimage_attr(m, &n->st);
        if (n->type == NK_FS_TYPE_SYMLINK) {
            e.target = n->target;
            e.target_len = strlen(n->target);
        } else if (n->type == NK_FS_TYPE_HARDLINK) {
            e.equiv_id = m->nodes[n->link_of].obj_id;
        } else if (n->type == NK_FS_TYPE_FILE) {
            e.size = (uint64_t)n->st.st_size;
        }
        size_t room = nk_fs_build_xattr_room(&m->builder);
        if (n->xattrs_len && n->xattrs_len >= room)
            return tool_fail("%s: %zu bytes of extended attributes (names and values, as "
                             "YAFFS2 stores them), but a header chunk of this image has %zu "
                             "bytes for them (and a list must be shorter)",
                             n->path, n->xattrs_len, room);
        e.xattrs = n->xattrs;
        e.xattrs_len = n->xattrs_len;
        err = nk_fs_build_object(&m->builder, &e, &n->obj_id);
        if (err)
            return tool_mkimage_build_error(m, n->path, err);
        if (n->type == NK_FS_TYPE_FILE) {
            int status = tool_mkimage_file_data(m, n);
            if (status)
                return status;
        }
    }
    return 0;
}

/* ----- the image ------------------------------------------------------------------------------ */

/* Erased blocks a new image sized by mkimage gets beyond what the tree takes:
 * the file system's garbage-collection reserve (3, fs.h reserve_blocks) and
 * one block for the next writes, so that put, mkdir and rm work on it. */
#define TOOL_MKIMAGE_RESERVE_BLOCKS 4u

/* The blocks of a new image for the plan: whole blocks for its chunks (the
 * root's header, one per object, a file's data in chunks of a page, less
 * the in-band tags: nk_fs_build_chunks()), plus the reserve. */
static uint64_t tool_mkimage_blocks_for_plan(const struct tool_mkimage *m, const char *geometry,
                                             enum nk_fs_layout layout)
{
    unsigned page = 0, oob = 0, pages_per_block = 0;
    if (sscanf(geometry, "%u,%u,%u", &page, &oob, &pages_per_block) != 3 || page <= 16 ||
        pages_per_block == 0)
        return 0; /* the open that follows names the bad geometry */
    uint64_t chunk_bytes = layout == NK_FS_LAYOUT_INBAND ? page - 16u : page;
    uint64_t chunks = 1;
    for (size_t i = 0; i < m->count; i++) {
        const struct tool_mkimage_node *n = &m->nodes[i];
        if (n->role == TOOL_MKIMAGE_SKIPPED)
            continue;
        chunks += 1;
        if (n->type == NK_FS_TYPE_FILE)
            chunks += ((uint64_t)n->st.st_size + chunk_bytes - 1) / chunk_bytes;
    }
    return (chunks + pages_per_block - 1) / pages_per_block + TOOL_MKIMAGE_RESERVE_BLOCKS;
}

/* Creates a missing image file as an erased chip: an empty file, no sidecar.
 * With --geometry P,O,N and no --blocks its size is the plan's: *sized
 * gets the block count (else 0). With --geometry P,O,N either way, *length
 * gets the blocks the file must span, so that it reads back with P,O,N at
 * that size (else 0). */
static int tool_mkimage_create(struct tool_image_opts *opts, uint64_t blocks,
                               const struct tool_mkimage *m, uint64_t *sized, uint64_t *length)
{
    const char *shown = m->image_path;
    struct tool_image_opts create = *opts;
    create.create = true;
    char geometry[96];
    *sized = 0;
    *length = 0;
    unsigned commas = 0;
    for (const char *p = opts->geometry ? opts->geometry : ""; *p; p++)
        commas += *p == ',';
    if (!opts->chip && commas == 2 && !blocks) {
        blocks = *sized = tool_mkimage_blocks_for_plan(m, opts->geometry, opts->layout);
        if (!blocks)
            return tool_fail("bad --geometry '%s': expected PAGE,OOB,PAGES_PER_BLOCK[,BLOCKS]",
                             opts->geometry);
    }
    if (opts->geometry && blocks) {
        if (commas == 2) {
            snprintf(geometry, sizeof geometry, "%s,%llu", opts->geometry,
                     (unsigned long long)blocks);
            create.geometry = geometry;
            *length = blocks;
        }
    }
    struct nk_sim_params params;
    int status = tool_params_from_opts(&create, &params);
    if (status)
        return status;
    if (blocks > params.chip.blocks)
        return tool_fail("--blocks %llu: the chip has only %u blocks", (unsigned long long)blocks,
                         params.chip.blocks);
    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.params = &params;
    config.image_path = opts->path;
    config.create = true;
    config.seed = opts->seed;
    config.no_sidecar = true;
    struct nk_sim *sim;
    struct nk_diag why[1] = {{""}};
    int err = nk_sim_open(&sim, &config, why);
    if (err == -NK_EINVAL) /* a part the simulator cannot model: bad input */
        return tool_fail("cannot create %s with %s %s: %s", shown,
                         opts->chip ? "--chip" : "--geometry",
                         opts->chip ? opts->chip : create.geometry, why->text);
    if (err)
        return tool_error("cannot create %s: %s", shown,
                          why->text[0] ? why->text : nk_strerror(err));
    err = nk_sim_close(sim);
    if (err)
        return tool_error("cannot create %s: %s", shown, nk_strerror(err));
    /* Opened again as an existing image: the block count now comes with it. */
    if (create.geometry != opts->geometry)
        opts->geometry = strdup(create.geometry);
    return 0;
}

/* Extends the file at `path` from `from` to `to` bytes: a hole, or with
 * `erased_bytes` 0xFF bytes written. Returns 0, or -1 with errno set. */
static int tool_mkimage_extend(const char *path, uint64_t from, uint64_t to, bool erased_bytes)
{
    if (!erased_bytes)
        return truncate(path, (off_t)to);
    int fd = open(path, O_WRONLY);
    if (fd < 0)
        return -1;
    uint8_t erased[4096];
    memset(erased, 0xff, sizeof erased);
    int err = 0;
    for (uint64_t at = from; at < to && !err;) {
        size_t n = to - at < sizeof erased ? (size_t)(to - at) : sizeof erased;
        ssize_t put = pwrite(fd, erased, n, (off_t)at);
        if (put <= 0)
            err = -1;
        else
            at += (uint64_t)put;
    }
    int saved = errno;
    close(fd);
    errno = saved;
    return err;
}

static void tool_mkimage_human(uint64_t bytes, char *out, size_t size)
{
    if (bytes >= 10ull << 20)
        snprintf(out, size, "%.1f MiB", (double)bytes / (1 << 20));
    else
        snprintf(out, size, "%.1f KiB", (double)bytes / 1024);
}

static int tool_mkimage_check_space(struct tool_mkimage *m, const struct tool_image *image,
                                    const struct nk_part *part)
{
    uint64_t need = 1; /* the root's header */
    for (size_t i = 0; i < m->count; i++) {
        const struct tool_mkimage_node *n = &m->nodes[i];
        if (n->role != TOOL_MKIMAGE_SKIPPED)
            need += nk_fs_build_chunks(&m->builder, n->type, (uint64_t)n->st.st_size);
    }
    m->chunks_needed = need;
    const struct nk_fs_build_stats *s = &m->builder.stats;
    if (m->count + 1 > NK_FS_OBJ_MAX - NK_FS_OBJ_FIRST_USER + 1)
        return tool_fail("%s holds %zu objects: YAFFS2 ids allow %u", m->src, m->count,
                         NK_FS_OBJ_MAX - NK_FS_OBJ_FIRST_USER + 1);
    if (need <= s->chunks_capacity)
        return 0;
    uint64_t page = (uint64_t)nk_nand_page_size(image->part.dev) + nk_nand_oob_size(part->dev);
    uint64_t need_blocks = (need + s->pages_per_block - 1) / s->pages_per_block;
    char need_text[32], have_text[32];
    tool_mkimage_human(need * page, need_text, sizeof need_text);
    tool_mkimage_human(s->chunks_capacity * page, have_text, sizeof have_text);
    return tool_fail("%s needs %llu chunks (%llu blocks, %s) but %s has %llu (%u good "
                     "blocks of %u, %s): give more blocks or a bigger chip",
                     m->src, (unsigned long long)need, (unsigned long long)need_blocks, need_text,
                     m->image_path, (unsigned long long)s->chunks_capacity,
                     s->blocks - s->blocks_bad, s->blocks, have_text);
}

static void tool_mkimage_summary(struct tool_mkimage *m, const struct nk_fs_build_stats *s,
                                 const char *layout_name, const struct tool_image *image)
{
    printf("%s -> %s: %s layout, %u-byte chunks, %u pages per block\n", m->src, m->image_path,
           layout_name, s->chunk_bytes, s->pages_per_block);
    tool_print_objects(s->objects, s->files, s->dirs, s->symlinks, s->hardlinks, s->specials);
    printf("\nchunks: %llu written (%llu %s, %llu data holding %llu %s) in %u %s, "
           "sequence 0x%x..0x%x\n",
           (unsigned long long)s->chunks_written, (unsigned long long)s->header_chunks,
           tool_plural(s->header_chunks, "header", "headers"), (unsigned long long)s->data_chunks,
           (unsigned long long)s->data_bytes, tool_plural(s->data_bytes, "byte", "bytes"),
           s->blocks_used, tool_plural(s->blocks_used, "block", "blocks"), s->first_seq,
           s->last_seq);
    /* The table's reserved blocks count among those skipped: say how many. */
    uint32_t reserved = 0;
    for (uint32_t b = 0; image->nand.bbt && b < s->blocks; b++)
        reserved += nk_bbt_block_state(image->nand.bbt, b) == NK_BBT_RESERVED;
    printf("blocks: %u, %u bad skipped", s->blocks, s->blocks_bad);
    if (reserved && reserved <= s->blocks_bad)
        printf(" (%u bad, %u kept for a bad-block table)", s->blocks_bad - reserved, reserved);
    printf(", %u retired, %u erased; %.2f s", s->blocks_retired, s->blocks_erased,
           tool_mkimage_elapsed(m));
    /* What the same writes take on the chip the simulator models. */
    const struct nk_chip_info *chip = &image->params.chip;
    double flash_seconds = image->sim ? (double)nk_sim_time_ns(image->sim) / 1e9 : 0.0;
    if (image->sim && strcmp(chip->vendor, "generic") == 0)
        printf(" (a chip of this geometry with the K9F1G08U0A's timing would take about %.2f s "
               "for these erases and writes)",
               flash_seconds);
    else if (image->sim)
        printf(" (a real %s %s would take about %.2f s for these erases and writes, by the "
               "simulator's timing)",
               chip->vendor, chip->model, flash_seconds);
    printf("\n");
}

/* --from: mounts the source image read-only with its own options, each
 * taken from IMAGE's when not given, and gives IMAGE the source's geometry
 * and layout where IMAGE has none. The source may be IMAGE itself (it is
 * read before the new image replaces it), but not the /dev/mtdN the build
 * erases. Returns 0 with m->from set, or the exit status after one line. */
static int tool_mkimage_open_from(struct tool_mkimage *m, struct tool_fs *source,
                                  struct tool_image_opts *from, struct tool_image_opts *opts,
                                  bool from_placed, bool from_layout, bool from_ecc, bool is_mtd)
{
    from->path = m->src;
    if (!from_placed) {
        from->chip = opts->chip;
        from->geometry = opts->geometry;
    }
    if (!from_layout) {
        from->layout = opts->layout;
        from->layout_given = opts->layout_given;
    }
    if (!from_ecc) {
        from->ecc = opts->ecc;
        from->force_ecc = opts->force_ecc;
    }
    from->seed = opts->seed;
    from->mtd_raw = opts->mtd_raw;
    struct stat src_st;
    if (stat(m->src, &src_st) != 0)
        return errno == ENOENT
                   ? tool_not_found("cannot read SRC_IMAGE %s: %s", m->src, strerror(errno))
                   : tool_fail("cannot read SRC_IMAGE %s: %s", m->src, strerror(errno));
    if (is_mtd && m->image_exists && tool_mkimage_same_file(&src_st, &m->image_st))
        return tool_fail("--from %s is the device being built: the build erases it before "
                         "reading; repack into an image file first",
                         m->src);
    int status = tool_fs_open(source, from, NULL, NULL);
    if (status)
        return status;
    m->from = source;
    if (tool_fs_damage(source))
        return tool_error("%s: not repacked, the loss would be made permanent (nandkit "
                          "extract saves what is readable)",
                          m->src);
    struct nk_fs_stat root;
    int err = nk_fs_lstat(&source->fs, "/", &root);
    if (err)
        return tool_error("cannot stat / in %s: %s", m->src, nk_strerror(err));
    tool_mkimage_stat_from_image(&root, &m->root_st);
    if (!opts->chip && !opts->geometry) {
        if (from->chip) {
            opts->chip = from->chip;
        } else {
            const struct nk_chip_info *chip = &source->image.params.chip;
            char geometry[96];
            snprintf(geometry, sizeof geometry, "%u,%u,%u,%u", chip->page_size, chip->oob_size,
                     chip->pages_per_block, chip->blocks);
            m->from_geometry = strdup(geometry);
            if (!m->from_geometry)
                return tool_error("out of memory");
            opts->geometry = m->from_geometry;
        }
    }
    if (!opts->layout_given) {
        opts->layout = source->image.layout;
        opts->layout_given = true;
    }
    return 0;
}

/* What the command line asks of mkimage. */
struct tool_mkimage_args {
    struct tool_image_opts opts;
    /* The source image's options, each taken from IMAGE's unless given. */
    struct tool_image_opts from_opts;
    const char *from; /* --from SRC_IMAGE */
    bool from_placed, from_layout, from_ecc;
    uint64_t blocks; /* --blocks, 0 when not given */
};

/* The image being built and what goes with it, from the plan to the end. */
struct tool_mkimage_target {
    bool is_mtd;
    struct tool_fs source; /* --from: the source image, closed by tool_mkimage_free */
    struct tool_save save; /* an image file is built in a copy beside it */
    const char *created_geometry;
    uint64_t sized_blocks, length_blocks;
    struct tool_image image;
    struct nk_part part;
    struct nk_bbt bbt;
    void *bbt_memory;
};

/* Fills `a` and the command-line fields of `m`. Returns 0, or the exit
 * status after a report. */
static int tool_mkimage_parse(int argc, char **argv, struct tool_mkimage_args *a,
                              struct tool_mkimage *m)
{
    enum {
        OPT_BLOCKS = TOOL_OPT_FIRST_FREE,
        OPT_ALL_ROOT,
        OPT_NO_PROGRESS,
        OPT_FROM,
        OPT_FROM_CHIP,
        OPT_FROM_GEOMETRY,
        OPT_FROM_LAYOUT,
        OPT_FROM_ECC,
    };
    static const struct option options[] = {
        TOOL_IMAGE_LONG_OPTIONS,
        {"blocks", required_argument, NULL, OPT_BLOCKS},
        {"all-root", no_argument, NULL, OPT_ALL_ROOT},
        {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
        {"from", required_argument, NULL, OPT_FROM},
        {"from-chip", required_argument, NULL, OPT_FROM_CHIP},
        {"from-geometry", required_argument, NULL, OPT_FROM_GEOMETRY},
        {"from-layout", required_argument, NULL, OPT_FROM_LAYOUT},
        {"from-ecc", required_argument, NULL, OPT_FROM_ECC},
        {NULL, 0, NULL, 0}};
    tool_image_opts_init(&a->from_opts);
    tool_image_opts_init(&a->opts);
    int opt;
    optind = 1;
    while ((opt = tool_getopt(argc, argv, "", options, &a->opts, "mkimage")) > 0) {
        if (opt == OPT_BLOCKS) {
            if (!tool_parse_u64(optarg, &a->blocks) || a->blocks == 0 || a->blocks > (1u << 24))
                return tool_fail("bad --blocks '%s': expected a block count", optarg);
        } else if (opt == OPT_ALL_ROOT) {
            m->all_root = true;
        } else if (opt == OPT_NO_PROGRESS) {
            m->progress = false;
        } else if (opt == OPT_FROM) {
            a->from = optarg;
        } else if (opt >= OPT_FROM_CHIP && opt <= OPT_FROM_ECC) {
            static const int shared[] = {TOOL_OPT_CHIP, TOOL_OPT_GEOMETRY, TOOL_OPT_LAYOUT,
                                         TOOL_OPT_ECC};
            if (tool_image_option(&a->from_opts, shared[opt - OPT_FROM_CHIP], optarg) != 1)
                return 2;
            a->from_placed |= opt == OPT_FROM_CHIP || opt == OPT_FROM_GEOMETRY;
            a->from_layout |= opt == OPT_FROM_LAYOUT;
            a->from_ecc |= opt == OPT_FROM_ECC;
        } else {
            return tool_fail("mkimage: unknown option (see nandkit mkimage --help)");
        }
    }
    if (opt < 0)
        return -opt;
    if (!a->from && (a->from_placed || a->from_layout || a->from_ecc))
        return tool_fail("--from-chip, --from-geometry, --from-layout and --from-ecc go with "
                         "--from SRC_IMAGE");
    if (a->from && argc - optind != 1)
        return tool_fail("mkimage --from SRC_IMAGE needs IMAGE, and no SRC_DIR (see nandkit "
                         "mkimage --help)");
    if (!a->from && argc - optind != 2)
        return tool_fail("mkimage needs SRC_DIR and IMAGE (see nandkit mkimage --help)");
    m->src = a->from ? a->from : argv[optind];
    m->image_path = a->opts.path = argv[optind + (a->from ? 0 : 1)];
    return 0;
}

/* The plan: the source (a host tree or --from an image) read and checked
 * whole, before anything is written. Returns 0 or the exit status. */
static int tool_mkimage_plan(struct tool_mkimage *m, struct tool_mkimage_args *a,
                             struct tool_mkimage_target *t)
{
    t->is_mtd = tool_path_is_mtd(a->opts.path);
    m->image_exists = stat(a->opts.path, &m->image_st) == 0;
    if (a->from) {
        int open_status =
            tool_mkimage_open_from(m, &t->source, &a->from_opts, &a->opts, a->from_placed,
                                   a->from_layout, a->from_ecc, t->is_mtd);
        if (open_status)
            return open_status;
    } else {
        if (stat(m->src, &m->root_st) != 0)
            return errno == ENOENT
                       ? tool_not_found("cannot read SRC_DIR %s: %s", m->src, strerror(errno))
                       : tool_fail("cannot read SRC_DIR %s: %s", m->src, strerror(errno));
        if (!S_ISDIR(m->root_st.st_mode))
            return tool_fail("SRC_DIR %s is not a directory", m->src);
    }
    char sidecar[4096];
    if (!t->is_mtd && nk_sim_sidecar_path(a->opts.path, sidecar, sizeof sidecar))
        m->sidecar_exists = stat(sidecar, &m->sidecar_st) == 0;
    return tool_mkimage_plan_dir(m, a->from ? "/" : m->src, TOOL_MKIMAGE_NO_PARENT, 0);
}

/* An image file is built in a temporary copy beside it and renamed over it
 * at the end: a kill or a failure never leaves half a build under its name.
 * Its geometry is checked against the real file first; a new (or empty)
 * file is created to the planned size. Returns 0 or the exit status. */
static int tool_mkimage_begin_file(struct tool_mkimage *m, struct tool_mkimage_args *a,
                                   struct tool_mkimage_target *t)
{
    bool empty_file = m->image_exists && S_ISREG(m->image_st.st_mode) && m->image_st.st_size == 0;
    bool fresh = !m->image_exists || empty_file;
    int status = 0;
    if (!fresh) {
        struct nk_sim_params params;
        status = tool_params_from_opts(&a->opts, &params);
    }
    if (!status) {
        status = tool_save_begin(&t->save, m->image_path, m->image_exists);
        if (!status) {
            a->opts.name = m->image_path;
            a->opts.path = t->save.tmp;
        }
    }
    if (!status && fresh) {
        const char *given = a->opts.geometry;
        status = tool_mkimage_create(&a->opts, a->blocks, m, &t->sized_blocks, &t->length_blocks);
        if (a->opts.geometry != given)
            t->created_geometry = a->opts.geometry;
    }
    return status;
}

/* Opens the image to build for writing. Returns 0 or the exit status. */
static int tool_mkimage_open_target(struct tool_mkimage *m, struct tool_mkimage_args *a,
                                    struct tool_mkimage_target *t)
{
    a->opts.read_only = false;
    a->opts.no_sidecar = !m->sidecar_exists; /* a raw image stays one */
    a->opts.write_through = true;            /* memory independent of the image size */
    int status = tool_image_open(&t->image, &a->opts);
    if (!status) {
        status = tool_image_check_tags(&t->image);
        if (status)
            tool_image_close(&t->image);
    }
    return status;
}

/* The blocks the file system goes in: the bad ones known (a table on flash
 * or the simulator's markers, said in a line) and --blocks. Returns 0 or
 * the exit status. */
static int tool_mkimage_place(const struct tool_mkimage *m, const struct tool_mkimage_args *a,
                              struct tool_mkimage_target *t)
{
    struct tool_image *image = &t->image;
    t->part = image->part;
    bool allow_bbt_area = false;
    int known = tool_known_bad_attach(image, image->layout == NK_FS_LAYOUT_MKYAFFS2,
                                      m->sidecar_exists, true, &t->bbt, &t->bbt_memory);
    if (known == TOOL_KNOWN_BAD_TABLE)
        printf("bad-block table: Linux BBT on flash (main block %d, mirror block %d): blocks "
               "%u-%u keep it and stay out of the file system\n",
               t->bbt.info.main_block, t->bbt.info.mirror_block,
               nk_nand_blocks(&image->nand) - NK_BBT_MAX_BLOCKS, nk_nand_blocks(&image->nand) - 1);
    if (known == TOOL_KNOWN_BAD_SIMULATOR) {
        allow_bbt_area = true; /* no table will be written */
        printf("bad blocks: %u known (factory markers, as the simulator has them); the mkyaffs2 "
               "layout cannot mark them (OOB byte 0 holds tags), so a reader must learn them "
               "elsewhere (a bad-block table, the kernel); the last %u blocks, where a table "
               "would go, are left out too\n",
               t->bbt.info.factory_bad + t->bbt.info.worn, (unsigned)NK_BBT_MAX_BLOCKS);
    }
    if (known < 0)
        return -known;
    if (a->blocks || image->nand.bbt) {
        if (nk_part_init(&t->part, &image->nand, "mkimage", 0, (uint32_t)a->blocks,
                         allow_bbt_area ? NK_PART_ALLOW_BBT_AREA : 0) != 0)
            return tool_fail("--blocks %llu: %s", (unsigned long long)a->blocks,
                             image->nand.diag.text);
    }
    return 0;
}

/* The build itself: every planned entry written, the image synced. Fills
 * `stats` when it returns 0; else returns the exit status. */
static int tool_mkimage_write(struct tool_mkimage *m, struct tool_mkimage_target *t,
                              struct nk_fs_build_stats *stats)
{
    struct tool_image *image = &t->image;
    size_t workspace_size = nk_fs_build_workspace_size(&t->part);
    void *workspace = malloc(workspace_size);
    m->buf = malloc(TOOL_MKIMAGE_READ_BYTES);
    if (!workspace || !m->buf) {
        free(workspace);
        return tool_error("out of memory");
    }
    struct nk_fs_build_config config = {.part = &t->part,
                                        .layout = image->layout,
                                        .progress = tool_mkimage_progress,
                                        .progress_ctx = m};
    int status = 0;
    int err = nk_fs_build_begin(&m->builder, &config, workspace, workspace_size);
    if (err && image->sim && !nk_sim_powered(image->sim)) /* cut during the bad-block scan */
        status = tool_error("%s: %s", m->image_path, tool_image_error(image, err));
    else if (err)
        status = err == -NK_EINVAL || err == -NK_ENOSPC
                     ? tool_fail("%s: %s", m->image_path, m->builder.diag.text)
                     : tool_error("%s: %s", m->image_path, m->builder.diag.text);
    if (!status)
        status = tool_mkimage_check_space(m, image, &t->part);
    if (!status) {
        status = tool_mkimage_build(m);
        err = nk_fs_build_finish(&m->builder, stats);
        if (!status && err)
            status = tool_mkimage_build_error(m, m->src, err);
        tool_mkimage_report(m, true); /* ends the progress line, if there is one */
        /* Writing a large image file out can take as long as the build. */
        uint64_t written = stats->chunks_written * (uint64_t)nk_nand_page_size(&image->nand);
        if (image->sim && m->progress && (m->reported || written >= (256u << 20)))
            fprintf(stderr, "mkimage: saving %s\n", m->image_path);
        struct nk_diag why[1] = {{""}};
        if (image->sim && nk_sim_sync(image->sim, why) != 0 && !status)
            status = tool_error("writing %s failed: %s", m->image_path, why->text);
    }
    free(workspace);
    return status;
}

/* What was built: the summary, the size chosen, notes on layout and ECC. */
static void tool_mkimage_report_built(struct tool_mkimage *m, struct tool_mkimage_target *t,
                                      const struct nk_fs_build_stats *stats)
{
    enum nk_fs_layout layout = t->image.layout;
    tool_mkimage_summary(m, stats, nk_fs_layout_name(layout), &t->image);
    if (t->sized_blocks)
        printf("size: %llu blocks, what the tree takes and %u erased for later writes "
               "(--blocks N or --geometry P,O,N,BLOCKS sets it)\n",
               (unsigned long long)t->sized_blocks, TOOL_MKIMAGE_RESERVE_BLOCKS);
    tool_layout_note(layout);
    tool_ecc_note(&t->image.part);
}

/* Closes the image and, for an image file, puts the build under its name
 * (or throws it away). Returns the final exit status, given the build's. */
static int tool_mkimage_finish(struct tool_mkimage *m, struct tool_mkimage_target *t, int status)
{
    struct tool_image *image = &t->image;
    if (image->nand.bbt)
        nk_bbt_detach(&image->nand);
    free(t->bbt_memory);
    /* A simulated power cut leaves what the chip would hold, as asked;
     * any other failure leaves the image as it was. */
    bool power_cut = image->sim && !nk_sim_powered(image->sim);
    const struct nk_chip_info *chip = &image->params.chip;
    uint64_t sized_bytes =
        t->length_blocks * chip->pages_per_block * (chip->page_size + chip->oob_size);
    int err_close = image->sim ? nk_sim_close(image->sim) : 0;
    image->sim = NULL;
    /* The erased end of a new image of a planned or given size (--blocks
     * with --geometry P,O,N): a hole at the file's end,
     * which nandkit reads as erased. mkyaffs2image's readers read the bytes
     * and take zeros for a chunk (unyaffs: "Illegal file name in object
     * 0"), so in the mkyaffs2 layout the reserve is written out as 0xFF. */
    struct stat tmp_st;
    if (!err_close && !status && sized_bytes && t->save.tmp && stat(t->save.tmp, &tmp_st) == 0 &&
        (uint64_t)tmp_st.st_size < sized_bytes &&
        tool_mkimage_extend(t->save.tmp, (uint64_t)tmp_st.st_size, sized_bytes,
                            image->layout == NK_FS_LAYOUT_MKYAFFS2) != 0)
        status = tool_error("writing %s failed: %s", m->image_path, strerror(errno));
    tool_image_close(image);
    if (err_close && (!status || power_cut))
        status = tool_error("writing %s failed: %s", m->image_path, nk_strerror(err_close));
    else if (t->save.tmp && (!status || power_cut)) {
        int commit = tool_save_commit(&t->save);
        if (commit)
            status = commit;
    }
    return status;
}

static int tool_mkimage_run(int argc, char **argv)
{
    struct tool_mkimage_args a;
    struct tool_mkimage m;
    struct tool_mkimage_target t;
    memset(&a, 0, sizeof a);
    memset(&m, 0, sizeof m);
    memset(&t, 0, sizeof t);
    m.progress = true;
    int status = tool_mkimage_parse(argc, argv, &a, &m);
    if (status)
        return status;
    clock_gettime(CLOCK_MONOTONIC, &m.start);

    status = tool_mkimage_plan(&m, &a, &t);
    if (!status && !t.is_mtd)
        status = tool_mkimage_begin_file(&m, &a, &t);
    if (!status)
        status = tool_mkimage_open_target(&m, &a, &t);
    free((void *)t.created_geometry);
    if (status) {
        tool_save_abort(&t.save);
        tool_mkimage_free(&m);
        return status;
    }
    m.image = &t.image;
    status = tool_mkimage_place(&m, &a, &t);
    struct nk_fs_build_stats stats;
    if (!status) {
        status = tool_mkimage_write(&m, &t, &stats);
        if (!status)
            tool_mkimage_report_built(&m, &t, &stats);
    }
    status = tool_mkimage_finish(&m, &t, status);
    tool_save_abort(&t.save);
    tool_mkimage_free(&m);
    return status;
}

const struct tool_command tool_cmd_mkimage = {
    .name = "mkimage",
    .summary = "build a YAFFS2 image (or /dev/mtdN file system) from a host tree",
    .run = tool_mkimage_run,
    .help = tool_mkimage_help,
};
