/* SPDX-License-Identifier: MIT */
/*
 * nandkit mount: the YAFFS2 file system of an image file or /dev/mtdN under
 * a directory of the host, through FUSE (libfuse3's high-level API). Every
 * FUSE operation is one or two calls of the file system's API; the FUSE
 * threads share the one mount through its lock hook (config.lock) and
 * stamp times with the host's clock. An image file is written in place
 * (each program and erase goes to the file at once), so a killed daemon
 * leaves what a power cut leaves, and the next mount recovers it as the
 * file system's own power-loss rules say. Built without libfuse3, the
 * command says so.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsimage.h"
#include "nandkit/error.h"
#include "tool.h"

static void tool_mount_help(FILE *out)
{
    fprintf(out,
            "usage: nandkit mount IMAGE|/dev/mtdN MOUNTPOINT (--geometry P,O,N[,B] | --chip NAME)\n"
            "                     [--layout L] [--ecc E] [-o ro] [-f] [-d] [-s] [--stats]\n\n"
            "Mounts the YAFFS2 file system of IMAGE (or /dev/mtdN) at MOUNTPOINT through FUSE,\n"
            "so that any program can use it: cp, tar, rsync, git, sqlite3... The daemon runs\n"
            "in the background unless -f; unmount with `fusermount3 -u MOUNTPOINT` (or send\n"
            "it SIGTERM or SIGINT): it then writes the file system's checkpoint, so that the\n"
            "next mount need not scan, and saves the simulator's sidecar (erase counts and\n"
            "grown bad blocks).\n\n"
            "  -o ro                   read-only: nothing is ever written (more -o options go\n"
            "                          to FUSE: allow_other, ...)\n"
            "  -f                      stay in the foreground\n"
            "  -d                      FUSE debug output (implies -f)\n"
            "  -s                      one FUSE thread (default: several, sharing the mount\n"
            "                          through its lock)\n"
            "  --stats                 at exit, one line on stderr: the simulated chip's page\n"
            "                          reads, programs, erases and virtual device time since\n"
            "                          the image was opened (bench_mount reads it)\n\n"
            "What is durable when:\n"
            "  - creating, removing and renaming names, links, symlinks, mkdir, rmdir,\n"
            "    chmod, chown and utimens: when the call returns (each is atomic);\n"
            "  - file data: when fsync(2) or close(2) returns (close flushes like fsync);\n"
            "    a whole chunk (page) reaches flash as it fills, but its size may be lost\n"
            "    until then;\n"
            "  - unmount writes nothing else that matters for the data: only the\n"
            "    checkpoint that speeds up the next mount.\n"
            "The image file is written in place, not through a temporary copy as the other\n"
            "commands write it: every flash program and erase goes to the file as it\n"
            "happens (without the host's fsync: a host crash may lose what its page cache\n"
            "held). A daemon killed with SIGKILL leaves the image as a power cut would: the\n"
            "next mount (or fsck --repair) recovers it, with every fsync'd or closed file\n"
            "intact. The image is locked as by every nandkit command that writes it (shared\n"
            "with -o ro).\n\n"
            "Extended attributes are kept as YAFFS2 keeps them, in the header chunk: an\n"
            "object's names and values share its chunk bytes - 512 (ENOSPC beyond); POSIX\n"
            "ACLs (system.posix_acl_*) are refused with ENOTSUP.\n"
            "Unlike a Linux file system: rename with RENAME_EXCHANGE is refused (EINVAL);\n"
            "atime is never updated by reads; a directory's link count is 1; hard links\n"
            "name files only (EPERM); device numbers hold 8-bit majors and minors\n"
            "(EOVERFLOW beyond); st_blocks is the size rounded up (holes are not counted\n"
            "out). See docs/cli.md.\n\n"
            "Options:\n" TOOL_IMAGE_HELP "\n"
            "Exit status: 0 unmounted cleanly, 1 the mount or the unmount failed, 2 bad input.\n");
}

#ifndef NANDKIT_HAVE_FUSE

static int tool_mount_run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return tool_error("mount: this nandkit was built without FUSE (configured without "
                      "libfuse3, or with -DNANDKIT_FUSE=OFF: install libfuse3-dev and "
                      "configure again)");
}

#else

#define FUSE_USE_VERSION 31
#include <fuse.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1u << 0) /* renameat2(2)'s flag, as Linux numbers it */
#endif

#include "nandkit/sim.h"

/* One mounted image: what every FUSE thread shares. */
struct tool_mount {
    struct tool_fs t;
    pthread_mutex_t mutex;
    bool read_only;
    bool stats;           /* --stats */
    uint32_t chunk_bytes; /* file bytes per chunk: st_blksize (statfs walks every block) */
};

/* An open directory: the handle, the FUSE offset of its next entry, and
 * the entry that did not fit in the last reply (listed first next time). */
struct tool_mount_dir {
    struct nk_fs_dir dir;
    off_t next;
    bool pending, pending_stat;
    struct nk_fs_dirent entry;
    struct stat st;
};

static struct tool_mount *tool_mount_of(void)
{
    return fuse_get_context()->private_data;
}

/* The file system's errors as the errno values programs expect: its codes
 * are Linux's numbers, but for the few that only make sense inside it. */
static int tool_mount_errno(int err)
{
    switch (-err) {
    case NK_EBADMSG: /* uncorrectable ECC */
    case NK_EILSEQ:  /* a broken on-flash structure */
    case NK_EPROTO:
    case NK_ETIMEDOUT:
    case NK_ENODEV:
        return -EIO;
    case NK_ERANGE: /* a target longer than the buffer: never for FUSE's sizes */
        return -ENAMETOOLONG;
    default:
        return err;
    }
}

static void tool_mount_lock(void *ctx)
{
    pthread_mutex_lock(ctx);
}

static void tool_mount_unlock(void *ctx)
{
    pthread_mutex_unlock(ctx);
}

/* Linux YAFFS2's old_encode_dev and back. */
static dev_t tool_mount_dev_decode(uint32_t rdev)
{
    return makedev((rdev >> 8) & 0xffu, rdev & 0xffu);
}

static void tool_mount_fill_stat(const struct nk_fs_stat *st, uint32_t chunk_bytes,
                                 struct stat *out)
{
    memset(out, 0, sizeof *out);
    out->st_ino = st->ino;
    out->st_mode = st->mode;
    out->st_nlink = st->nlink ? st->nlink : 1;
    out->st_uid = st->uid;
    out->st_gid = st->gid;
    out->st_rdev = tool_mount_dev_decode(st->rdev);
    out->st_size = (off_t)st->size;
    out->st_blksize = chunk_bytes;
    out->st_blocks = (blkcnt_t)((st->size + 511) / 512);
    out->st_atim.tv_sec = (time_t)st->atime;
    out->st_mtim.tv_sec = (time_t)st->mtime;
    out->st_ctim.tv_sec = (time_t)st->ctime;
}

static uint32_t tool_mount_chunk_bytes(struct tool_mount *m)
{
    return m->chunk_bytes;
}

static struct nk_fs_file *tool_mount_file(struct fuse_file_info *fi)
{
    return fi ? (struct nk_fs_file *)(uintptr_t)fi->fh : NULL;
}

static int tool_mount_getattr(const char *path, struct stat *stbuf, struct fuse_file_info *fi)
{
    struct tool_mount *m = tool_mount_of();
    struct nk_fs_stat st;
    struct nk_fs_file *file = tool_mount_file(fi);
    int err = file ? nk_fs_file_stat(file, &st) : nk_fs_lstat(&m->t.fs, path, &st);
    if (err)
        return tool_mount_errno(err);
    tool_mount_fill_stat(&st, tool_mount_chunk_bytes(m), stbuf);
    return 0;
}

static int tool_mount_readlink(const char *path, char *buf, size_t size)
{
    struct tool_mount *m = tool_mount_of();
    int n = nk_fs_readlink(&m->t.fs, path, buf, size);
    if (n == -NK_ERANGE) {
        /* FUSE wants the target cut to the buffer, NUL-terminated. */
        char *whole = malloc(NK_FS_ALIAS_MAX + 1);
        if (!whole)
            return -ENOMEM;
        n = nk_fs_readlink(&m->t.fs, path, whole, NK_FS_ALIAS_MAX + 1);
        if (n >= 0 && size) {
            memcpy(buf, whole, size - 1);
            buf[size - 1] = '\0';
        }
        free(whole);
    }
    return n < 0 ? tool_mount_errno(n) : 0;
}

static int tool_mount_mknod(const char *path, mode_t mode, dev_t rdev)
{
    struct tool_mount *m = tool_mount_of();
    if (S_ISREG(mode)) {
        struct nk_fs_file file;
        int err = nk_fs_file_open_mode(&m->t.fs, &file, path,
                                       NK_FS_O_WRONLY | NK_FS_O_CREAT | NK_FS_O_EXCL,
                                       (uint32_t)mode & 07777u);
        if (!err)
            err = nk_fs_file_close(&file);
        return tool_mount_errno(err);
    }
    if (major(rdev) > 0xff || minor(rdev) > 0xff)
        return -EOVERFLOW;
    uint32_t encoded = (uint32_t)(major(rdev) << 8 | minor(rdev));
    return tool_mount_errno(nk_fs_mknod(&m->t.fs, path, (uint32_t)mode, encoded));
}

static int tool_mount_mkdir(const char *path, mode_t mode)
{
    return tool_mount_errno(nk_fs_mkdir(&tool_mount_of()->t.fs, path, (uint32_t)mode & 07777u));
}

static int tool_mount_unlink(const char *path)
{
    return tool_mount_errno(nk_fs_unlink(&tool_mount_of()->t.fs, path));
}

static int tool_mount_rmdir(const char *path)
{
    return tool_mount_errno(nk_fs_rmdir(&tool_mount_of()->t.fs, path));
}

static int tool_mount_symlink(const char *target, const char *path)
{
    return tool_mount_errno(nk_fs_symlink(&tool_mount_of()->t.fs, target, path));
}

static int tool_mount_rename(const char *from, const char *to, unsigned int flags)
{
    struct tool_mount *m = tool_mount_of();
    if (flags & ~(unsigned)RENAME_NOREPLACE)
        return -EINVAL; /* RENAME_EXCHANGE: no header sequence makes a swap atomic */
    if (flags & RENAME_NOREPLACE) {
        /* The kernel holds both directories locked across the call, so no
         * other operation on this mount can create `to` in between. */
        struct nk_fs_stat st;
        int err = nk_fs_lstat(&m->t.fs, to, &st);
        if (err == 0)
            return -EEXIST;
        if (err != -NK_ENOENT)
            return tool_mount_errno(err);
    }
    return tool_mount_errno(nk_fs_rename(&m->t.fs, from, to));
}

static int tool_mount_link(const char *from, const char *to)
{
    struct tool_mount *m = tool_mount_of();
    /* link(2) names a symlink itself; the file system's link follows it
     * (and YAFFS2 links only files): refused rather than linking the target. */
    struct nk_fs_stat st;
    int err = nk_fs_lstat(&m->t.fs, from, &st);
    if (err)
        return tool_mount_errno(err);
    if ((st.mode & NK_FS_S_IFMT) == NK_FS_S_IFLNK)
        return -EPERM;
    return tool_mount_errno(nk_fs_link(&m->t.fs, from, to));
}

static int tool_mount_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
    (void)fi;
    return tool_mount_errno(nk_fs_chmod(&tool_mount_of()->t.fs, path, (uint32_t)mode & 07777u));
}

static int tool_mount_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
    (void)fi;
    uint32_t u = uid == (uid_t)-1 ? NK_FS_NONE : (uint32_t)uid;
    uint32_t g = gid == (gid_t)-1 ? NK_FS_NONE : (uint32_t)gid;
    /* The kernel resolved every symlink before: a symlink here is lchown's. */
    return tool_mount_errno(nk_fs_lchown(&tool_mount_of()->t.fs, path, u, g));
}

static int tool_mount_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
    struct tool_mount *m = tool_mount_of();
    if (size < 0)
        return -EINVAL;
    struct nk_fs_file *open = tool_mount_file(fi);
    if (open && (open->flags & NK_FS_O_ACCMODE) != NK_FS_O_RDONLY)
        return tool_mount_errno(nk_fs_file_truncate(open, (uint64_t)size));
    struct nk_fs_file file;
    int err = nk_fs_file_open(&m->t.fs, &file, path, NK_FS_O_WRONLY);
    if (err)
        return tool_mount_errno(err);
    err = nk_fs_file_truncate(&file, (uint64_t)size);
    int closed = nk_fs_file_close(&file);
    return tool_mount_errno(err ? err : closed);
}

static uint32_t tool_mount_open_flags(int flags)
{
    uint32_t f = (flags & O_ACCMODE) == O_WRONLY ? NK_FS_O_WRONLY
                 : (flags & O_ACCMODE) == O_RDWR ? NK_FS_O_RDWR
                                                 : NK_FS_O_RDONLY;
    if (flags & O_TRUNC)
        f |= NK_FS_O_TRUNC;
    if (flags & O_APPEND)
        f |= NK_FS_O_APPEND;
    if (flags & O_CREAT)
        f |= NK_FS_O_CREAT;
    if (flags & O_EXCL)
        f |= NK_FS_O_EXCL;
    return f;
}

static int tool_mount_open_as(const char *path, struct fuse_file_info *fi, uint32_t flags,
                              uint32_t mode)
{
    struct tool_mount *m = tool_mount_of();
    struct nk_fs_file *file = malloc(sizeof *file);
    if (!file)
        return -ENOMEM;
    int err = nk_fs_file_open_mode(&m->t.fs, file, path, flags, mode);
    if (err) {
        free(file);
        return tool_mount_errno(err);
    }
    fi->fh = (uint64_t)(uintptr_t)file;
    return 0;
}

static int tool_mount_open(const char *path, struct fuse_file_info *fi)
{
    return tool_mount_open_as(path, fi, tool_mount_open_flags(fi->flags) & ~NK_FS_O_CREAT, 0644u);
}

static int tool_mount_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
    return tool_mount_open_as(path, fi, tool_mount_open_flags(fi->flags) | NK_FS_O_CREAT,
                              (uint32_t)mode & 07777u);
}

static int tool_mount_read(const char *path, char *buf, size_t size, off_t offset,
                           struct fuse_file_info *fi)
{
    (void)path;
    struct nk_fs_file *file = tool_mount_file(fi);
    size_t done = 0;
    while (done < size) {
        int32_t n = nk_fs_file_pread(file, buf + done, size - done, (uint64_t)offset + done);
        if (n < 0)
            return done ? (int)done : tool_mount_errno(n);
        if (n == 0)
            break;
        done += (size_t)n;
    }
    return (int)done;
}

static int tool_mount_write(const char *path, const char *buf, size_t size, off_t offset,
                            struct fuse_file_info *fi)
{
    (void)path;
    struct nk_fs_file *file = tool_mount_file(fi);
    /* O_APPEND: at the end the file system knows, not the kernel's idea of it. */
    bool append = (file->flags & NK_FS_O_APPEND) != 0;
    size_t done = 0;
    while (done < size) {
        int32_t n = append
                        ? nk_fs_file_write(file, buf + done, size - done)
                        : nk_fs_file_pwrite(file, buf + done, size - done, (uint64_t)offset + done);
        if (n <= 0)
            return done ? (int)done : tool_mount_errno(n ? n : -NK_EIO);
        done += (size_t)n;
    }
    return (int)done;
}

static int tool_mount_statfs(const char *path, struct statvfs *out)
{
    (void)path;
    struct tool_mount *m = tool_mount_of();
    struct nk_fs_statfs sf;
    int err = nk_fs_statfs(&m->t.fs, &sf);
    if (err)
        return tool_mount_errno(err);
    memset(out, 0, sizeof *out);
    out->f_bsize = sf.chunk_bytes;
    out->f_frsize = sf.chunk_bytes;
    out->f_blocks = sf.bytes_total / sf.chunk_bytes;
    /* What a write can still use: the reserve for garbage collection and
     * the block summaries' pages are not counted free. */
    out->f_bfree = sf.bytes_avail / sf.chunk_bytes;
    out->f_bavail = out->f_bfree;
    /* Every object takes one header chunk: as many more as chunks are free. */
    out->f_files = sf.objects + out->f_bfree;
    out->f_ffree = out->f_bfree;
    out->f_favail = out->f_bfree;
    out->f_namemax = sf.name_max;
    if (sf.read_only)
        out->f_flag |= ST_RDONLY;
    return 0;
}

static int tool_mount_flush(const char *path, struct fuse_file_info *fi)
{
    (void)path;
    struct nk_fs_file *file = tool_mount_file(fi);
    if (!file || (file->flags & NK_FS_O_ACCMODE) == NK_FS_O_RDONLY)
        return 0;
    /* close(2) is as durable as the API's close: the data and size now. */
    return tool_mount_errno(nk_fs_file_fsync(file));
}

static int tool_mount_release(const char *path, struct fuse_file_info *fi)
{
    (void)path;
    struct nk_fs_file *file = tool_mount_file(fi);
    int err = file ? nk_fs_file_close(file) : 0;
    free(file);
    return tool_mount_errno(err);
}

static int tool_mount_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
    (void)path;
    (void)datasync;
    return tool_mount_errno(nk_fs_file_fsync(tool_mount_file(fi)));
}

static int tool_mount_opendir(const char *path, struct fuse_file_info *fi)
{
    struct tool_mount *m = tool_mount_of();
    struct tool_mount_dir *d = calloc(1, sizeof *d);
    if (!d)
        return -ENOMEM;
    int err = nk_fs_dir_open(&m->t.fs, &d->dir, path);
    if (err) {
        free(d);
        return tool_mount_errno(err);
    }
    fi->fh = (uint64_t)(uintptr_t)d;
    return 0;
}

/* Restarts the listing of `d` and skips to FUSE offset `offset`. */
static void tool_mount_dir_seek(struct tool_mount_dir *d, off_t offset)
{
    nk_fs_dir_rewind(&d->dir);
    d->next = 3;
    d->pending = false;
    struct nk_fs_dirent skip;
    while (d->next <= offset && nk_fs_dir_read(&d->dir, &skip) == 1)
        d->next++;
}

/* Offsets: 1 and 2 are "." and "..", then one per entry in listing order.
 * The handle lists on from where it stopped whatever entries come and go
 * (nk_fs_dir_read()); an entry that did not fit in a reply is kept and
 * comes first in the next. Only an offset other than where the listing
 * stopped (seekdir, rewinddir) restarts it and skips that many entries. */
static int tool_mount_readdir(const char *path, void *buf, fuse_fill_dir_t filler, off_t offset,
                              struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
    (void)path;
    (void)flags;
    struct tool_mount *m = tool_mount_of();
    struct tool_mount_dir *d = (struct tool_mount_dir *)(uintptr_t)fi->fh;
    if (offset < 2) {
        tool_mount_dir_seek(d, 0);
        if (offset < 1 && filler(buf, ".", NULL, 1, 0))
            return 0;
        if (filler(buf, "..", NULL, 2, 0))
            return 0;
    } else if (offset != d->next - 1) {
        tool_mount_dir_seek(d, offset);
    }
    for (;;) {
        if (!d->pending) {
            int r = nk_fs_dir_read(&d->dir, &d->entry);
            if (r == -NK_EIO)
                continue; /* an entry whose header failed ECC: left out */
            if (r < 0)
                return tool_mount_errno(r);
            if (r == 0)
                return 0;
            struct nk_fs_stat nst;
            d->pending_stat = nk_fs_dir_stat(&d->dir, &nst) == 0;
            if (d->pending_stat)
                tool_mount_fill_stat(&nst, tool_mount_chunk_bytes(m), &d->st);
            d->pending = true;
        }
        if (filler(buf, d->entry.name, d->pending_stat ? &d->st : NULL, d->next, 0))
            return 0; /* the reply is full: this entry comes first next time */
        d->pending = false;
        d->next++;
    }
}

static int tool_mount_releasedir(const char *path, struct fuse_file_info *fi)
{
    (void)path;
    struct tool_mount_dir *d = (struct tool_mount_dir *)(uintptr_t)fi->fh;
    if (d)
        nk_fs_dir_close(&d->dir);
    free(d);
    return 0;
}

static int tool_mount_fsyncdir(const char *path, int datasync, struct fuse_file_info *fi)
{
    (void)path;
    (void)datasync;
    (void)fi;
    return 0; /* every change to a directory is durable when it returns */
}

static void *tool_mount_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
    (void)conn;
    cfg->use_ino = 1; /* st_ino is the object id: hard links show as one inode */
    cfg->readdir_ino = 1;
    cfg->hard_remove = 1; /* the file system keeps an unlinked open file itself */
    cfg->nullpath_ok = 1;
    /* FUSE's high-level API gives each path of a hard-linked file its own
     * kernel inode: cached attributes of one name would miss a change made
     * through another (nlink after link or unlink, size after a write). */
    cfg->attr_timeout = 0;
    return fuse_get_context()->private_data;
}

static int tool_mount_utimens(const char *path, const struct timespec tv[2],
                              struct fuse_file_info *fi)
{
    (void)fi;
    struct tool_mount *m = tool_mount_of();
    struct nk_fs_stat st;
    int err = nk_fs_lstat(&m->t.fs, path, &st);
    if (err)
        return tool_mount_errno(err);
    uint64_t now = (uint64_t)time(NULL), times[2] = {st.atime, st.mtime};
    for (int i = 0; i < 2; i++) {
        if (!tv || tv[i].tv_nsec == UTIME_NOW)
            times[i] = now;
        else if (tv[i].tv_nsec != UTIME_OMIT)
            times[i] = tv[i].tv_sec < 0 ? 0 : (uint64_t)tv[i].tv_sec;
    }
    return tool_mount_errno(nk_fs_lutimes(&m->t.fs, path, times[0], times[1]));
}

_Static_assert(XATTR_CREATE == NK_FS_XATTR_CREATE && XATTR_REPLACE == NK_FS_XATTR_REPLACE,
               "setxattr's flags are passed through");

/* Extended attributes: the file system's errors, but ERANGE stays ERANGE
 * (a buffer too small, which getfattr answers with a size query). */
static int tool_mount_xattr_errno(int err)
{
    return err == -NK_ERANGE ? -ERANGE : tool_mount_errno(err);
}

static int tool_mount_setxattr(const char *path, const char *name, const char *value, size_t size,
                               int flags)
{
    /* POSIX ACLs are not kept as ACLs: stored as plain attributes they
     * would not change the mode as the kernel expects (cp -a sets a
     * directory's mode through one). Refused, programs fall back to chmod. */
    if (strncmp(name, "system.posix_acl_", 17) == 0)
        return -ENOTSUP;
    struct tool_mount *m = tool_mount_of();
    return tool_mount_xattr_errno(nk_fs_setxattr(&m->t.fs, path, name, value, size, flags));
}

static int tool_mount_getxattr(const char *path, const char *name, char *value, size_t size)
{
    struct tool_mount *m = tool_mount_of();
    return tool_mount_xattr_errno(nk_fs_getxattr(&m->t.fs, path, name, value, size));
}

static int tool_mount_listxattr(const char *path, char *list, size_t size)
{
    struct tool_mount *m = tool_mount_of();
    return tool_mount_xattr_errno(nk_fs_listxattr(&m->t.fs, path, list, size));
}

static int tool_mount_removexattr(const char *path, const char *name)
{
    struct tool_mount *m = tool_mount_of();
    return tool_mount_xattr_errno(nk_fs_removexattr(&m->t.fs, path, name));
}

static const struct fuse_operations tool_mount_ops = {
    .getattr = tool_mount_getattr,
    .readlink = tool_mount_readlink,
    .mknod = tool_mount_mknod,
    .mkdir = tool_mount_mkdir,
    .unlink = tool_mount_unlink,
    .rmdir = tool_mount_rmdir,
    .symlink = tool_mount_symlink,
    .rename = tool_mount_rename,
    .link = tool_mount_link,
    .chmod = tool_mount_chmod,
    .chown = tool_mount_chown,
    .truncate = tool_mount_truncate,
    .open = tool_mount_open,
    .read = tool_mount_read,
    .write = tool_mount_write,
    .statfs = tool_mount_statfs,
    .flush = tool_mount_flush,
    .release = tool_mount_release,
    .fsync = tool_mount_fsync,
    .setxattr = tool_mount_setxattr,
    .getxattr = tool_mount_getxattr,
    .listxattr = tool_mount_listxattr,
    .removexattr = tool_mount_removexattr,
    .opendir = tool_mount_opendir,
    .readdir = tool_mount_readdir,
    .releasedir = tool_mount_releasedir,
    .fsyncdir = tool_mount_fsyncdir,
    .init = tool_mount_init,
    .create = tool_mount_create,
    .utimens = tool_mount_utimens,
};

/* Syncs, unmounts (writing the checkpoint) and saves the simulator's state.
 * Returns 0 or the exit status after one line. */
static int tool_mount_finish(struct tool_mount *m)
{
    int status = 0;
    if (m->t.mounted) {
        int err = nk_fs_unmount(&m->t.fs);
        m->t.mounted = false;
        if (err)
            status = tool_error("unmount: %s",
                                m->t.fs.diag.text[0] ? m->t.fs.diag.text : nk_strerror(err));
    }
    if (m->t.image.sim && m->stats) {
        struct nk_sim_counters c;
        nk_sim_counters(m->t.image.sim, &c);
        fprintf(stderr,
                "nandkit mount: flash: %llu page reads, %llu programs, %llu erases; device time "
                "%.3f ms\n",
                (unsigned long long)c.ops[NK_SIM_OP_READ],
                (unsigned long long)(c.ops[NK_SIM_OP_PROGRAM] + c.ops[NK_SIM_OP_CACHE_PROGRAM]),
                (unsigned long long)c.ops[NK_SIM_OP_ERASE],
                (double)nk_sim_time_ns(m->t.image.sim) / 1e6);
    }
    if (m->t.image.sim && !m->read_only) {
        struct nk_diag why[1] = {{""}};
        int err = nk_sim_sync(m->t.image.sim, why);
        if (err && !status)
            status = tool_error("saving the image failed: %s",
                                why->text[0] ? why->text : nk_strerror(err));
    }
    tool_fs_close(&m->t);
    return status;
}

/* What the command line asks of mount. */
struct tool_mount_args {
    struct tool_image_opts opts;
    bool foreground, debug, single, read_only, stats;
    char fuse_options[1024];       /* the -o options passed on to FUSE, each after a comma */
    char *image_path, *mountpoint; /* absolute: the daemon leaves the working directory */
};

/* Fills `a` (the caller frees its paths). Returns 0, or the exit status
 * after a report. */
static int tool_mount_parse(int argc, char **argv, struct tool_mount_args *a)
{
    enum { OPT_O = 'o', OPT_STATS = TOOL_OPT_FIRST_FREE };
    static const struct option options[] = {
        TOOL_IMAGE_LONG_OPTIONS, {"stats", no_argument, NULL, OPT_STATS}, {NULL, 0, NULL, 0}};
    tool_image_opts_init(&a->opts);
    int opt;
    optind = 1;
    while ((opt = tool_getopt(argc, argv, "o:fds", options, &a->opts, "mount")) > 0) {
        if (opt == 'f') {
            a->foreground = true;
        } else if (opt == 'd') {
            a->debug = a->foreground = true;
        } else if (opt == 's') {
            a->single = true;
        } else if (opt == OPT_STATS) {
            a->stats = true;
        } else if (opt == OPT_O) {
            char *copy = strdup(optarg);
            for (char *save = NULL, *o = strtok_r(copy, ",", &save); o;
                 o = strtok_r(NULL, ",", &save)) {
                if (strcmp(o, "ro") == 0) {
                    a->read_only = true;
                } else if (strcmp(o, "rw") != 0) {
                    size_t len = strlen(a->fuse_options);
                    snprintf(a->fuse_options + len, sizeof a->fuse_options - len, ",%s", o);
                }
            }
            free(copy);
        } else {
            return tool_fail("mount: unknown option (see nandkit mount --help)");
        }
    }
    if (opt < 0)
        return -opt;
    if (argc - optind != 2)
        return tool_fail("mount needs IMAGE (or /dev/mtdN) and MOUNTPOINT (see nandkit mount "
                         "--help)");
    if (a->opts.power_cut_after >= 0)
        return tool_fail("mount: --power-cut-after is for the commands that run to an end; "
                         "kill the daemon with SIGKILL to cut a mounted image");
    a->image_path = realpath(argv[optind], NULL);
    a->mountpoint = realpath(argv[optind + 1], NULL);
    if (!a->image_path || !a->mountpoint)
        return tool_fail("mount: %s: %s", a->image_path ? argv[optind + 1] : argv[optind],
                         strerror(errno));
    struct stat st;
    if (stat(a->mountpoint, &st) || !S_ISDIR(st.st_mode))
        return tool_fail("mount: MOUNTPOINT %s is not a directory", argv[optind + 1]);
    a->opts.path = a->image_path;
    a->opts.write_through = true; /* in place: a kill leaves what a power cut leaves */
    return 0;
}

/* Mounts the open file system through FUSE and serves it (in the
 * background unless -f) until it is unmounted. Returns 0 or the exit
 * status after a report. */
static int tool_mount_serve(struct tool_mount *m, const struct tool_mount_args *a, char *argv0)
{
    int status = 0;
    char fsname[PATH_MAX + 32];
    snprintf(fsname, sizeof fsname, "-ofsname=nandkit:%s,subtype=nandkit,default_permissions%s%s",
             a->image_path, a->read_only ? ",ro" : "", a->fuse_options);
    char *fuse_argv[4] = {argv0, fsname, a->debug ? "-d" : NULL, NULL};
    struct fuse_args args = FUSE_ARGS_INIT(a->debug ? 3 : 2, fuse_argv);
    struct fuse *fuse = fuse_new(&args, &tool_mount_ops, sizeof tool_mount_ops, m);
    if (!fuse) {
        status = tool_error("mount: FUSE refused the options (%s)", fsname + 2);
    } else if (fuse_mount(fuse, a->mountpoint) != 0) {
        status = tool_error("mount: cannot mount on %s (is /dev/fuse there, and fusermount3 "
                            "installed?)",
                            a->mountpoint);
    } else {
        if (fuse_daemonize(a->foreground) != 0) {
            status = tool_error("mount: cannot go to the background");
        } else if (fuse_set_signal_handlers(fuse_get_session(fuse)) != 0) {
            status = tool_error("mount: cannot handle signals");
        } else {
            int loop;
            if (a->single)
                loop = fuse_loop(fuse);
            else
                loop = fuse_loop_mt(fuse, 0); /* one device fd shared by the threads */
            if (loop < 0)
                status = tool_error("mount: the FUSE loop failed: %s", strerror(-loop));
            fuse_remove_signal_handlers(fuse_get_session(fuse));
        }
        fuse_unmount(fuse);
    }
    if (fuse)
        fuse_destroy(fuse);
    fuse_opt_free_args(&args);
    return status;
}

static int tool_mount_run(int argc, char **argv)
{
    struct tool_mount_args a;
    memset(&a, 0, sizeof a);
    int status = tool_mount_parse(argc, argv, &a);
    if (status) {
        free(a.image_path);
        free(a.mountpoint);
        return status;
    }
    struct tool_mount *m = calloc(1, sizeof *m);
    pthread_mutex_init(&m->mutex, NULL);
    m->read_only = a.read_only;
    m->stats = a.stats;
    const struct nk_lock lock = {tool_mount_lock, tool_mount_unlock, &m->mutex};
    status = tool_fs_open_shared(&m->t, &a.opts, !a.read_only, &lock);
    if (!status) {
        struct nk_fs_statfs sf;
        nk_fs_statfs(&m->t.fs, &sf);
        m->chunk_bytes = sf.chunk_bytes;
        status = tool_mount_serve(m, &a, argv[0]);
        int finish = tool_mount_finish(m);
        if (!status)
            status = finish;
        pthread_mutex_destroy(&m->mutex);
    }
    free(m);
    free(a.image_path);
    free(a.mountpoint);
    return status;
}

#endif /* NANDKIT_HAVE_FUSE */

const struct tool_command tool_cmd_mount = {.name = "mount",
                                            .summary = "mount a YAFFS2 image under a directory "
                                                       "(FUSE)",
                                            .run = tool_mount_run,
                                            .help = tool_mount_help};
