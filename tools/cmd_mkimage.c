/* SPDX-License-Identifier: MIT */
/*
 * nandkit mkimage: a YAFFS2 file system built from a host tree, as
 * mkyaffs2image does, on an image file (created when missing) or /dev/mtdN.
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

static void nk_mkimage_help(FILE *out)
{
    fprintf(out,
            "usage: nandkit mkimage SRC_DIR IMAGE (--geometry P,O,N[,B] | --chip NAME)\n"
            "                       [--layout L] [--blocks N] [--all-root] [--no-progress]\n"
            "       nandkit mkimage SRC_DIR /dev/mtdN [--mtd-ecc kernel|nandkit] [--blocks N]\n\n"
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
            "reserve of 3 and one to write in), so that put, mkdir and rm work on it.\n\n"
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
            "Options:\n" NK_TOOL_IMAGE_HELP
            "  --blocks N              build in the first N blocks (default: all; with\n"
            "                          --geometry P,O,N it also sizes a new image, else\n"
            "                          the tree's blocks and 4 more)\n"
            "  --all-root              store uid and gid 0 for everything\n"
            "  --no-progress           no progress lines on stderr (shown after a second)\n\n"
            "Bad input (an unreadable file, a name or symlink target too long, an image too\n"
            "small) writes nothing.\n");
}

/* ----- the plan --------------------------------------------------------------------------- */

#define NK_MKIMAGE_NO_PARENT ((size_t)-1)
#define NK_MKIMAGE_READ_BYTES 65536
#define NK_MKIMAGE_XATTR_MAX 65536 /* Linux's XATTR_SIZE_MAX; a header chunk holds far less */

enum nk_mkimage_role {
    NK_MKIMAGE_OBJECT = 0, /* an ordinary object */
    NK_MKIMAGE_LOST_FOUND, /* SRC_DIR/lost+found: YAFFS2's built-in directory */
    NK_MKIMAGE_SKIPPED,    /* the image itself, inside SRC_DIR */
};

struct nk_mkimage_node {
    char *path;      /* host path */
    size_t name_off; /* the name within `path` */
    size_t parent;   /* node index, NK_MKIMAGE_NO_PARENT for the root's children */
    size_t link_of;  /* hard links: node index of the file */
    struct stat st;
    char *target;    /* symlinks */
    uint8_t *xattrs; /* extended attributes, as the header stores them (NULL: none) */
    size_t xattrs_len;
    uint8_t type;    /* enum nk_fs_type */
    uint8_t role;    /* enum nk_mkimage_role */
    uint32_t obj_id; /* given by the build */
};

struct nk_mkimage_inode {
    dev_t dev;
    ino_t ino;
    size_t node;
};

struct nk_mkimage {
    const char *src;
    const char *image_path;
    struct stat root_st;
    struct nk_mkimage_node *nodes;
    size_t count, cap;
    struct nk_mkimage_inode *inodes; /* files with more than one name */
    size_t inode_count, inode_cap;
    bool image_exists;
    struct stat image_st, sidecar_st;
    bool sidecar_exists;
    bool all_root;
    bool progress;
    /* The build. */
    struct nk_tool_image *image;
    struct nk_fs_builder builder;
    uint64_t chunks_needed;
    struct timespec start;
    double last_report;
    bool reported;
    uint8_t *buf;
};

static double nk_mkimage_elapsed(const struct nk_mkimage *m)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - m->start.tv_sec) + (double)(now.tv_nsec - m->start.tv_nsec) / 1e9;
}

static bool nk_mkimage_grow(void **array, size_t *cap, size_t count, size_t size)
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

static bool nk_mkimage_same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

static uint8_t nk_mkimage_type(mode_t mode)
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

static int nk_mkimage_compare(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The node of an earlier name of this inode, or NK_MKIMAGE_NO_PARENT (and
 * this node remembered as its first name). */
static size_t nk_mkimage_link_of(struct nk_mkimage *m, size_t node)
{
    const struct stat *st = &m->nodes[node].st;
    for (size_t i = 0; i < m->inode_count; i++) {
        if (m->inodes[i].dev == st->st_dev && m->inodes[i].ino == st->st_ino)
            return m->inodes[i].node;
    }
    if (nk_mkimage_grow((void **)&m->inodes, &m->inode_cap, m->inode_count, sizeof *m->inodes))
        m->inodes[m->inode_count++] = (struct nk_mkimage_inode){st->st_dev, st->st_ino, node};
    return NK_MKIMAGE_NO_PARENT;
}

static int nk_mkimage_plan_dir(struct nk_mkimage *m, const char *dir_path, size_t parent,
                               unsigned depth);

/* Opens without touching the source's access times where the system allows
 * (O_NOATIME: owner or root), so that building leaves the tree as it was
 * and two builds of one tree give the same image. */
static int nk_mkimage_open_source(const char *path, int flags)
{
#ifdef O_NOATIME
    int fd = open(path, flags | O_NOATIME);
    if (fd >= 0 || errno != EPERM)
        return fd;
#endif
    return open(path, flags);
}

/* The extended attributes of `path` (not followed), as the header stores
 * them, in n->xattrs. Whether they fit the image's header chunks is checked
 * by the build, which knows the page size. */
static int nk_mkimage_plan_xattrs(struct nk_mkimage_node *n, const char *path)
{
    ssize_t names_len = llistxattr(path, NULL, 0);
    if (names_len < 0 && (errno == ENOTSUP || errno == ENOSYS))
        return 0; /* the host file system has none */
    if (names_len < 0)
        return nk_tool_error("cannot list the extended attributes of %s: %s", path,
                             strerror(errno));
    if (names_len == 0)
        return 0;
    char *names = malloc((size_t)names_len);
    uint8_t *list = malloc(NK_MKIMAGE_XATTR_MAX);
    uint8_t *value = malloc(NK_MKIMAGE_XATTR_MAX);
    int status = 0;
    if (!names || !list || !value)
        status = nk_tool_error("out of memory reading the extended attributes of %s", path);
    if (!status) {
        names_len = llistxattr(path, names, (size_t)names_len);
        if (names_len < 0)
            status = nk_tool_error("cannot list the extended attributes of %s: %s", path,
                                   strerror(errno));
    }
    size_t used = 0;
    for (ssize_t at = 0; !status && at < names_len; at += (ssize_t)strlen(names + at) + 1) {
        const char *name = names + at;
        ssize_t len = lgetxattr(path, name, value, NK_MKIMAGE_XATTR_MAX);
        if (len < 0) {
            status = nk_tool_error("cannot read extended attribute %s of %s: %s", name, path,
                                   strerror(errno));
            break;
        }
        int err = nk_fs_xattr_pack(list, NK_MKIMAGE_XATTR_MAX, &used, name, value, (size_t)len);
        if (err)
            status = nk_tool_fail("%s: extended attribute %s (%lld bytes) is more than a YAFFS2 "
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
static int nk_mkimage_plan_entry(struct nk_mkimage *m, char *path, size_t name_off,
                                 const struct stat *st, size_t parent, unsigned depth)
{
    const char *name = path + name_off;
    size_t name_len = strlen(name);
    if (name_len > NK_FS_NAME_MAX) {
        int status = nk_tool_fail("%.*s/%.40s...: a name of %zu bytes, YAFFS2 stores at most %d",
                                  (int)(name_off - 1), path, name, name_len, NK_FS_NAME_MAX);
        free(path);
        return status;
    }
    uint8_t type = nk_mkimage_type(st->st_mode);
    if (type == NK_FS_TYPE_UNKNOWN) {
        fprintf(stderr, "nandkit: warning: %s: unknown file type (mode 0%o), skipped\n", path,
                (unsigned)st->st_mode);
        free(path);
        return 0;
    }
    if (!nk_mkimage_grow((void **)&m->nodes, &m->cap, m->count, sizeof *m->nodes)) {
        free(path);
        return nk_tool_error("out of memory planning %s", m->src);
    }
    size_t index = m->count++;
    struct nk_mkimage_node *n = &m->nodes[index];
    memset(n, 0, sizeof *n);
    n->path = path;
    n->name_off = name_off;
    n->parent = parent;
    n->link_of = NK_MKIMAGE_NO_PARENT;
    n->st = *st;
    n->type = type;
    if ((m->image_exists && nk_mkimage_same_file(st, &m->image_st)) ||
        (m->sidecar_exists && nk_mkimage_same_file(st, &m->sidecar_st))) {
        fprintf(stderr, "nandkit: warning: %s is the image being built: left out\n", path);
        n->role = NK_MKIMAGE_SKIPPED;
        return 0;
    }
    if (parent == NK_MKIMAGE_NO_PARENT && strcmp(name, "lost+found") == 0) {
        if (type != NK_FS_TYPE_DIR)
            return nk_tool_fail("%s is not a directory: YAFFS2 keeps that name in the root for "
                                "its own lost+found",
                                path);
        n->role = NK_MKIMAGE_LOST_FOUND;
    }
    if (type == NK_FS_TYPE_SYMLINK) {
        char target[NK_FS_ALIAS_MAX + 2];
        ssize_t len = readlink(path, target, sizeof target);
        if (len < 0)
            return nk_tool_error("cannot read symlink %s: %s", path, strerror(errno));
        if ((size_t)len > NK_FS_ALIAS_MAX)
            return nk_tool_fail("%s: a symlink target of %lld bytes, YAFFS2 stores at most %d",
                                path, (long long)st->st_size, NK_FS_ALIAS_MAX);
        target[len] = '\0';
        n->target = strdup(target);
        if (!n->target)
            return nk_tool_error("out of memory planning %s", m->src);
    } else if (type == NK_FS_TYPE_FILE && access(path, R_OK) != 0) {
        /* Found now, not halfway through writing the image. */
        return nk_tool_fail("cannot read %s: %s", path, strerror(errno));
    }
    if (type == NK_FS_TYPE_FILE && st->st_nlink > 1) {
        size_t first = nk_mkimage_link_of(m, index);
        n = &m->nodes[index];
        if (first != NK_MKIMAGE_NO_PARENT) {
            n->type = NK_FS_TYPE_HARDLINK;
            n->link_of = first;
        }
    }
    if (n->type != NK_FS_TYPE_HARDLINK) {
        int status = nk_mkimage_plan_xattrs(n, path);
        if (status)
            return status;
    }
    if (type == NK_FS_TYPE_DIR) {
        return nk_mkimage_plan_dir(m, path, index, depth + 1);
    }
    return 0;
}

/* Deeper trees than this are surely a loop of bind mounts. */
#define NK_MKIMAGE_MAX_DEPTH 256

static int nk_mkimage_plan_dir(struct nk_mkimage *m, const char *dir_path, size_t parent,
                               unsigned depth)
{
    if (depth > NK_MKIMAGE_MAX_DEPTH)
        return nk_tool_fail("%s: more than %d directory levels", dir_path, NK_MKIMAGE_MAX_DEPTH);
    int fd = nk_mkimage_open_source(dir_path, O_RDONLY | O_DIRECTORY);
    DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
    if (!dir && fd >= 0)
        close(fd);
    if (!dir)
        return nk_tool_error("cannot read directory %s: %s", dir_path, strerror(errno));
    char **names = NULL;
    size_t count = 0, cap = 0;
    int status = 0;
    struct dirent *entry;
    errno = 0;
    while (!status && (entry = readdir(dir)) != NULL) {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
            continue;
        char *copy = strdup(entry->d_name);
        if (!copy || !nk_mkimage_grow((void **)&names, &cap, count, sizeof *names)) {
            free(copy);
            status = nk_tool_error("out of memory reading %s", dir_path);
            break;
        }
        names[count++] = copy;
        errno = 0;
    }
    if (!status && errno)
        status = nk_tool_error("cannot read directory %s: %s", dir_path, strerror(errno));
    closedir(dir);
    if (count)
        qsort(names, count, sizeof *names, nk_mkimage_compare);
    size_t dir_len = strlen(dir_path);
    for (size_t i = 0; i < count && !status; i++) {
        size_t len = dir_len + 1 + strlen(names[i]) + 1;
        char *path = malloc(len);
        if (!path) {
            status = nk_tool_error("out of memory planning %s", m->src);
            break;
        }
        snprintf(path, len, "%s/%s", dir_path, names[i]);
        struct stat st;
        if (lstat(path, &st) != 0) {
            status = nk_tool_error("cannot stat %s: %s", path, strerror(errno));
            free(path);
            break;
        }
        status = nk_mkimage_plan_entry(m, path, dir_len + 1, &st, parent, depth);
    }
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
    return status;
}

static void nk_mkimage_free(struct nk_mkimage *m)
{
    for (size_t i = 0; i < m->count; i++) {
        free(m->nodes[i].path);
        free(m->nodes[i].target);
        free(m->nodes[i].xattrs);
    }
    free(m->nodes);
    free(m->inodes);
    free(m->buf);
}

/* ----- the build ------------------------------------------------------------------------------ */

static void nk_mkimage_report(struct nk_mkimage *m, bool last)
{
    if (!m->progress)
        return;
    double t = nk_mkimage_elapsed(m);
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

static void nk_mkimage_progress(void *ctx, const struct nk_fs_build_stats *stats)
{
    (void)stats;
    nk_mkimage_report(ctx, false);
}

/* Linux's device number encoding, as Linux YAFFS stores rdev: (major << 8)
 * | minor for numbers below 256 (old_encode_dev), with the high bits of
 * larger ones placed as new_encode_dev does. */
static uint32_t nk_mkimage_rdev(dev_t rdev)
{
    uint32_t major_number = (uint32_t)major(rdev), minor_number = (uint32_t)minor(rdev);
    return (minor_number & 0xffu) | (major_number << 8) | ((minor_number & ~0xffu) << 12);
}

static struct nk_fs_build_attr nk_mkimage_attr(const struct nk_mkimage *m, const struct stat *st)
{
    struct nk_fs_build_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.mode = (uint32_t)st->st_mode & (NK_FS_S_IFMT | 07777u);
    attr.uid = m->all_root ? 0 : (uint32_t)st->st_uid;
    attr.gid = m->all_root ? 0 : (uint32_t)st->st_gid;
    if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode))
        attr.rdev = nk_mkimage_rdev(st->st_rdev);
    attr.atime = (uint64_t)(int64_t)st->st_atim.tv_sec;
    attr.mtime = (uint64_t)(int64_t)st->st_mtim.tv_sec;
    attr.ctime = (uint64_t)(int64_t)st->st_ctim.tv_sec;
    return attr;
}

static int nk_mkimage_build_error(struct nk_mkimage *m, const char *path, int err)
{
    const char *why = m->builder.diag.text[0] ? m->builder.diag.text : nk_strerror(err);
    if (m->image->sim && !nk_sim_powered(m->image->sim))
        why = nk_tool_image_error(m->image, err); /* --power-cut-after did it */
    return nk_tool_error("building %s failed: %s", path, why);
}

static int nk_mkimage_file_data(struct nk_mkimage *m, struct nk_mkimage_node *n)
{
    int fd = nk_mkimage_open_source(n->path, O_RDONLY | O_NOFOLLOW);
    if (fd < 0)
        return nk_tool_error("cannot open %s: %s", n->path, strerror(errno));
    uint64_t total = 0;
    ssize_t got;
    int status = 0;
    while ((got = read(fd, m->buf, NK_MKIMAGE_READ_BYTES)) > 0) {
        int err = nk_fs_build_data(&m->builder, m->buf, (size_t)got);
        if (err) {
            status = nk_mkimage_build_error(m, n->path, err);
            break;
        }
        total += (uint64_t)got;
        nk_mkimage_report(m, false);
    }
    if (got < 0 && !status)
        status = nk_tool_error("cannot read %s: %s", n->path, strerror(errno));
    close(fd);
    /* A file that changed under the build would be stored half old, half
     * new: refused, and the image is left as it was. */
    if (!status && total != (uint64_t)n->st.st_size)
        status =
            nk_tool_error("%s changed while being read (%llu bytes, not the %llu planned): "
                          "nothing written; build again from a quiet tree",
                          n->path, (unsigned long long)total, (unsigned long long)n->st.st_size);
    if (status)
        return status;
    int err = nk_fs_build_file_end(&m->builder);
    return err ? nk_mkimage_build_error(m, n->path, err) : 0;
}

static uint32_t nk_mkimage_parent_id(const struct nk_mkimage *m, const struct nk_mkimage_node *n)
{
    if (n->parent == NK_MKIMAGE_NO_PARENT)
        return NK_FS_OBJ_ROOT;
    const struct nk_mkimage_node *p = &m->nodes[n->parent];
    return p->role == NK_MKIMAGE_LOST_FOUND ? NK_FS_OBJ_LOST_FOUND : p->obj_id;
}

static int nk_mkimage_build(struct nk_mkimage *m)
{
    struct nk_fs_build_attr root = nk_mkimage_attr(m, &m->root_st);
    int err = nk_fs_build_builtin(&m->builder, NK_FS_OBJ_ROOT, &root);
    if (err)
        return nk_mkimage_build_error(m, m->src, err);
    for (size_t i = 0; i < m->count; i++) {
        struct nk_mkimage_node *n = &m->nodes[i];
        if (n->role == NK_MKIMAGE_SKIPPED)
            continue;
        if (n->role == NK_MKIMAGE_LOST_FOUND) {
            struct nk_fs_build_attr attr = nk_mkimage_attr(m, &n->st);
            err = nk_fs_build_builtin(&m->builder, NK_FS_OBJ_LOST_FOUND, &attr);
            if (err)
                return nk_mkimage_build_error(m, n->path, err);
            continue;
        }
        struct nk_fs_build_entry e;
        memset(&e, 0, sizeof e);
        e.type = n->type;
        e.parent_id = nk_mkimage_parent_id(m, n);
        e.name = n->path + n->name_off;
        e.name_len = strlen(e.name);
        e.attr = nk_mkimage_attr(m, &n->st);
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
            return nk_tool_fail("%s: %zu bytes of extended attributes (names and values, as "
                                "YAFFS2 stores them), but a header chunk of this image holds "
                                "fewer than %zu",
                                n->path, n->xattrs_len, room);
        e.xattrs = n->xattrs;
        e.xattrs_len = n->xattrs_len;
        err = nk_fs_build_object(&m->builder, &e, &n->obj_id);
        if (err)
            return nk_mkimage_build_error(m, n->path, err);
        if (n->type == NK_FS_TYPE_FILE) {
            int status = nk_mkimage_file_data(m, n);
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
#define NK_MKIMAGE_RESERVE_BLOCKS 4u

/* The blocks of a new image for the plan: whole blocks for its chunks (the
 * root's header, one per object, a file's data in chunks of a page, less
 * the in-band tags: nk_fs_build_chunks()), plus the reserve. */
static uint64_t nk_mkimage_blocks_for_plan(const struct nk_mkimage *m, const char *geometry,
                                           enum nk_fs_layout layout)
{
    unsigned page = 0, oob = 0, pages_per_block = 0;
    if (sscanf(geometry, "%u,%u,%u", &page, &oob, &pages_per_block) != 3 || page <= 16 ||
        pages_per_block == 0)
        return 0; /* the open that follows names the bad geometry */
    uint64_t chunk_bytes = layout == NK_FS_LAYOUT_INBAND ? page - 16u : page;
    uint64_t chunks = 1;
    for (size_t i = 0; i < m->count; i++) {
        const struct nk_mkimage_node *n = &m->nodes[i];
        if (n->role == NK_MKIMAGE_SKIPPED)
            continue;
        chunks += 1;
        if (n->type == NK_FS_TYPE_FILE)
            chunks += ((uint64_t)n->st.st_size + chunk_bytes - 1) / chunk_bytes;
    }
    return (chunks + pages_per_block - 1) / pages_per_block + NK_MKIMAGE_RESERVE_BLOCKS;
}

/* Creates a missing image file as an erased chip: an empty file, no sidecar.
 * With --geometry P,O,N and no --blocks its size is the plan's: *sized
 * gets the block count (else 0). */
static int nk_mkimage_create(struct nk_tool_image_opts *opts, uint64_t blocks,
                             const struct nk_mkimage *m, uint64_t *sized)
{
    const char *shown = m->image_path;
    struct nk_tool_image_opts create = *opts;
    create.create = true;
    char geometry[96];
    *sized = 0;
    unsigned commas = 0;
    for (const char *p = opts->geometry ? opts->geometry : ""; *p; p++)
        commas += *p == ',';
    if (!opts->chip && commas == 2 && !blocks) {
        blocks = *sized = nk_mkimage_blocks_for_plan(m, opts->geometry, opts->layout);
        if (!blocks)
            return nk_tool_fail("bad --geometry '%s': expected PAGE,OOB,PAGES_PER_BLOCK[,BLOCKS]",
                                opts->geometry);
    }
    if (opts->geometry && blocks) {
        if (commas == 2) {
            snprintf(geometry, sizeof geometry, "%s,%llu", opts->geometry,
                     (unsigned long long)blocks);
            create.geometry = geometry;
        }
    }
    struct nk_sim_params params;
    int status = nk_tool_params_from_opts(&create, &params);
    if (status)
        return status;
    if (blocks > params.chip.blocks)
        return nk_tool_fail("--blocks %llu: the chip has only %u blocks",
                            (unsigned long long)blocks, params.chip.blocks);
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
        return nk_tool_fail("cannot create %s with %s %s: %s", shown,
                            opts->chip ? "--chip" : "--geometry",
                            opts->chip ? opts->chip : create.geometry, why->text);
    if (err)
        return nk_tool_error("cannot create %s: %s", shown,
                             why->text[0] ? why->text : nk_strerror(err));
    err = nk_sim_close(sim);
    if (err)
        return nk_tool_error("cannot create %s: %s", shown, nk_strerror(err));
    /* Opened again as an existing image: the block count now comes with it. */
    if (create.geometry != opts->geometry)
        opts->geometry = strdup(create.geometry);
    return 0;
}

static void nk_mkimage_human(uint64_t bytes, char *out, size_t size)
{
    if (bytes >= 10ull << 20)
        snprintf(out, size, "%.1f MiB", (double)bytes / (1 << 20));
    else
        snprintf(out, size, "%.1f KiB", (double)bytes / 1024);
}

static int nk_mkimage_check_space(struct nk_mkimage *m, const struct nk_tool_image *image,
                                  const struct nk_part *part)
{
    uint64_t need = 1; /* the root's header */
    for (size_t i = 0; i < m->count; i++) {
        const struct nk_mkimage_node *n = &m->nodes[i];
        if (n->role != NK_MKIMAGE_SKIPPED)
            need += nk_fs_build_chunks(&m->builder, n->type, (uint64_t)n->st.st_size);
    }
    m->chunks_needed = need;
    const struct nk_fs_build_stats *s = &m->builder.stats;
    if (m->count + 1 > NK_FS_OBJ_MAX - NK_FS_OBJ_FIRST_USER + 1)
        return nk_tool_fail("%s holds %zu objects: YAFFS2 ids allow %u", m->src, m->count,
                            NK_FS_OBJ_MAX - NK_FS_OBJ_FIRST_USER + 1);
    if (need <= s->chunks_capacity)
        return 0;
    uint64_t page = (uint64_t)nk_nand_page_size(image->part.dev) + nk_nand_oob_size(part->dev);
    uint64_t need_blocks = (need + s->pages_per_block - 1) / s->pages_per_block;
    char need_text[32], have_text[32];
    nk_mkimage_human(need * page, need_text, sizeof need_text);
    nk_mkimage_human(s->chunks_capacity * page, have_text, sizeof have_text);
    return nk_tool_fail("%s needs %llu chunks (%llu blocks, %s) but %s has %llu (%u good "
                        "blocks of %u, %s): give more blocks or a bigger chip",
                        m->src, (unsigned long long)need, (unsigned long long)need_blocks,
                        need_text, m->image_path, (unsigned long long)s->chunks_capacity,
                        s->blocks - s->blocks_bad, s->blocks, have_text);
}

static void nk_mkimage_summary(struct nk_mkimage *m, const struct nk_fs_build_stats *s,
                               const char *layout_name, const struct nk_tool_image *image)
{
    printf("%s -> %s: %s layout, %u-byte chunks, %u pages per block\n", m->src, m->image_path,
           layout_name, s->chunk_bytes, s->pages_per_block);
    nk_tool_print_objects(s->objects, s->files, s->dirs, s->symlinks, s->hardlinks, s->specials);
    printf("\nchunks: %llu written (%llu %s, %llu data holding %llu %s) in %u %s, "
           "sequence 0x%x..0x%x\n",
           (unsigned long long)s->chunks_written, (unsigned long long)s->header_chunks,
           nk_tool_plural(s->header_chunks, "header", "headers"),
           (unsigned long long)s->data_chunks, (unsigned long long)s->data_bytes,
           nk_tool_plural(s->data_bytes, "byte", "bytes"), s->blocks_used,
           nk_tool_plural(s->blocks_used, "block", "blocks"), s->first_seq, s->last_seq);
    /* The table's reserved blocks count among those skipped: say how many. */
    uint32_t reserved = 0;
    for (uint32_t b = 0; image->nand.bbt && b < s->blocks; b++)
        reserved += nk_bbt_block_state(image->nand.bbt, b) == NK_BBT_RESERVED;
    printf("blocks: %u, %u bad skipped", s->blocks, s->blocks_bad);
    if (reserved && reserved <= s->blocks_bad)
        printf(" (%u bad, %u kept for a bad-block table)", s->blocks_bad - reserved, reserved);
    printf(", %u retired, %u erased; %.2f s", s->blocks_retired, s->blocks_erased,
           nk_mkimage_elapsed(m));
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

static int nk_mkimage_run(int argc, char **argv)
{
    enum { OPT_BLOCKS = NK_OPT_FIRST_FREE, OPT_ALL_ROOT, OPT_NO_PROGRESS };
    static const struct option options[] = {NK_TOOL_IMAGE_LONG_OPTIONS,
                                            {"blocks", required_argument, NULL, OPT_BLOCKS},
                                            {"all-root", no_argument, NULL, OPT_ALL_ROOT},
                                            {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
                                            {NULL, 0, NULL, 0}};
    struct nk_tool_image_opts opts;
    nk_tool_image_opts_init(&opts);
    struct nk_mkimage m;
    memset(&m, 0, sizeof m);
    m.progress = true;
    uint64_t blocks = 0;
    int opt;
    optind = 1;
    while ((opt = nk_tool_getopt(argc, argv, "", options, &opts, "mkimage")) > 0) {
        if (opt == OPT_BLOCKS) {
            if (!nk_tool_parse_u64(optarg, &blocks) || blocks == 0 || blocks > (1u << 24))
                return nk_tool_fail("bad --blocks '%s': expected a block count", optarg);
        } else if (opt == OPT_ALL_ROOT) {
            m.all_root = true;
        } else if (opt == OPT_NO_PROGRESS) {
            m.progress = false;
        } else {
            return nk_tool_fail("mkimage: unknown option (see nandkit mkimage --help)");
        }
    }
    if (opt < 0)
        return -opt;
    if (argc - optind != 2)
        return nk_tool_fail("mkimage needs SRC_DIR and IMAGE (see nandkit mkimage --help)");
    m.src = argv[optind];
    m.image_path = opts.path = argv[optind + 1];
    clock_gettime(CLOCK_MONOTONIC, &m.start);

    /* Plan: nothing is written before the whole tree checks out. */
    if (stat(m.src, &m.root_st) != 0)
        return errno == ENOENT
                   ? nk_tool_not_found("cannot read SRC_DIR %s: %s", m.src, strerror(errno))
                   : nk_tool_fail("cannot read SRC_DIR %s: %s", m.src, strerror(errno));
    if (!S_ISDIR(m.root_st.st_mode))
        return nk_tool_fail("SRC_DIR %s is not a directory", m.src);
    bool is_mtd = nk_tool_path_is_mtd(opts.path);
    m.image_exists = stat(opts.path, &m.image_st) == 0;
    char sidecar[4096];
    if (!is_mtd && nk_sim_sidecar_path(opts.path, sidecar, sizeof sidecar))
        m.sidecar_exists = stat(sidecar, &m.sidecar_st) == 0;
    int status = nk_mkimage_plan_dir(&m, m.src, NK_MKIMAGE_NO_PARENT, 0);
    const char *created_geometry = NULL;
    bool built = false;
    bool empty_file = m.image_exists && S_ISREG(m.image_st.st_mode) && m.image_st.st_size == 0;
    bool fresh = !m.image_exists || empty_file;
    /* An image file is built in a temporary copy beside it and renamed over
     * it at the end: a kill or a failure never leaves half a build under its
     * name. Its geometry is checked against the real file first. */
    struct nk_tool_save save;
    memset(&save, 0, sizeof save);
    if (!status && !is_mtd && !fresh) {
        struct nk_sim_params params;
        status = nk_tool_params_from_opts(&opts, &params);
    }
    if (!status && !is_mtd) {
        status = nk_tool_save_begin(&save, m.image_path, m.image_exists);
        if (!status) {
            opts.name = m.image_path;
            opts.path = save.tmp;
        }
    }
    uint64_t sized_blocks = 0;
    if (!status && !is_mtd && fresh) {
        const char *given = opts.geometry;
        status = nk_mkimage_create(&opts, blocks, &m, &sized_blocks);
        if (opts.geometry != given)
            created_geometry = opts.geometry;
    }
    if (status) {
        nk_tool_save_abort(&save);
        nk_mkimage_free(&m);
        return status;
    }

    struct nk_tool_image image;
    opts.read_only = false;
    opts.no_sidecar = !m.sidecar_exists; /* a raw image stays one */
    opts.write_through = true;           /* memory independent of the image size */
    status = nk_tool_image_open(&image, &opts);
    free((void *)created_geometry);
    if (!status) {
        status = nk_tool_image_check_tags(&image);
        if (status)
            nk_tool_image_close(&image);
    }
    if (status) {
        nk_tool_save_abort(&save);
        nk_mkimage_free(&m);
        return status;
    }
    m.image = &image;
    struct nk_part part = image.part;
    enum nk_fs_layout known_layout = image.layout;
    struct nk_bbt bbt;
    void *bbt_memory = NULL;
    bool allow_bbt_area = false;
    int known = nk_tool_known_bad_attach(&image, known_layout == NK_FS_LAYOUT_MKYAFFS2,
                                         m.sidecar_exists, true, &bbt, &bbt_memory);
    status = known < 0 ? -known : 0;
    if (known == NK_TOOL_KNOWN_BAD_TABLE)
        printf("bad-block table: Linux BBT on flash (main block %d, mirror block %d): blocks "
               "%u-%u keep it and stay out of the file system\n",
               bbt.info.main_block, bbt.info.mirror_block,
               nk_nand_blocks(&image.nand) - NK_BBT_MAX_BLOCKS, nk_nand_blocks(&image.nand) - 1);
    if (known == NK_TOOL_KNOWN_BAD_SIMULATOR) {
        allow_bbt_area = true; /* no table will be written */
        printf("bad blocks: %u known (factory markers, as the simulator has them); the mkyaffs2 "
               "layout cannot mark them (OOB byte 0 holds tags), so a reader must learn them "
               "elsewhere (a bad-block table, the kernel); the last %u blocks, where a table "
               "would go, are left out too\n",
               bbt.info.factory_bad + bbt.info.worn, (unsigned)NK_BBT_MAX_BLOCKS);
    }
    if (status) {
        free(bbt_memory);
        bbt_memory = NULL;
        goto out;
    }
    if (blocks || image.nand.bbt) {
        if (nk_part_init(&part, &image.nand, "mkimage", 0, (uint32_t)blocks,
                         allow_bbt_area ? NK_PART_ALLOW_BBT_AREA : 0) != 0) {
            status =
                nk_tool_fail("--blocks %llu: %s", (unsigned long long)blocks, image.nand.diag.text);
            goto out;
        }
    }
    enum nk_fs_layout layout = image.layout;
    size_t workspace_size = nk_fs_build_workspace_size(&part);
    void *workspace = malloc(workspace_size);
    m.buf = malloc(NK_MKIMAGE_READ_BYTES);
    if (!workspace || !m.buf) {
        free(workspace);
        status = nk_tool_error("out of memory");
        goto out;
    }
    struct nk_fs_build_config config = {
        .part = &part, .layout = layout, .progress = nk_mkimage_progress, .progress_ctx = &m};
    int err = nk_fs_build_begin(&m.builder, &config, workspace, workspace_size);
    if (err && image.sim && !nk_sim_powered(image.sim)) /* cut during the bad-block scan */
        status = nk_tool_error("%s: %s", m.image_path, nk_tool_image_error(&image, err));
    else if (err)
        status = err == -NK_EINVAL || err == -NK_ENOSPC
                     ? nk_tool_fail("%s: %s", m.image_path, m.builder.diag.text)
                     : nk_tool_error("%s: %s", m.image_path, m.builder.diag.text);
    if (!status)
        status = nk_mkimage_check_space(&m, &image, &part);
    built = !status;
    if (built) {
        status = nk_mkimage_build(&m);
        struct nk_fs_build_stats stats;
        err = nk_fs_build_finish(&m.builder, &stats);
        if (!status && err)
            status = nk_mkimage_build_error(&m, m.src, err);
        nk_mkimage_report(&m, true); /* ends the progress line, if there is one */
        /* Writing a large image file out can take as long as the build. */
        uint64_t written = stats.chunks_written * (uint64_t)nk_nand_page_size(&image.nand);
        if (image.sim && m.progress && (m.reported || written >= (256u << 20)))
            fprintf(stderr, "mkimage: saving %s\n", m.image_path);
        struct nk_diag why[1] = {{""}};
        if (image.sim && nk_sim_sync(image.sim, why) != 0 && !status)
            status = nk_tool_error("writing %s failed: %s", m.image_path, why->text);
        if (!status) {
            nk_mkimage_summary(&m, &stats, nk_fs_layout_name(layout), &image);
            if (sized_blocks)
                printf("size: %llu blocks, what the tree takes and %u erased for later writes "
                       "(--blocks N or --geometry P,O,N,BLOCKS sets it)\n",
                       (unsigned long long)sized_blocks, NK_MKIMAGE_RESERVE_BLOCKS);
            nk_tool_layout_note(layout);
            nk_tool_ecc_note(&image.part);
        }
    }
    free(workspace);
out:;
    if (image.nand.bbt)
        nk_bbt_detach(&image.nand);
    free(bbt_memory);
    /* A simulated power cut leaves what the chip would hold, as asked;
     * any other failure leaves the image as it was. */
    bool power_cut = image.sim && !nk_sim_powered(image.sim);
    const struct nk_chip_info *chip = &image.params.chip;
    uint64_t sized_bytes =
        sized_blocks * chip->pages_per_block * (chip->page_size + chip->oob_size);
    int err_close = image.sim ? nk_sim_close(image.sim) : 0;
    image.sim = NULL;
    /* The reserve of a sized image is erased: a hole at the file's end. */
    struct stat tmp_st;
    if (!err_close && !status && sized_bytes && save.tmp && stat(save.tmp, &tmp_st) == 0 &&
        (uint64_t)tmp_st.st_size < sized_bytes && truncate(save.tmp, (off_t)sized_bytes) != 0)
        status = nk_tool_error("writing %s failed: %s", m.image_path, strerror(errno));
    nk_tool_image_close(&image);
    if (err_close && (!status || power_cut))
        status = nk_tool_error("writing %s failed: %s", m.image_path, nk_strerror(err_close));
    else if (save.tmp && (!status || power_cut)) {
        int commit = nk_tool_save_commit(&save);
        if (commit)
            status = commit;
    }
    nk_tool_save_abort(&save);
    nk_mkimage_free(&m);
    return status;
}

const struct nk_tool_command nk_cmd_mkimage = {
    .name = "mkimage",
    .summary = "build a YAFFS2 image (or /dev/mtdN file system) from a host tree",
    .run = nk_mkimage_run,
    .help = nk_mkimage_help,
};
