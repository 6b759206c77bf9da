/* SPDX-License-Identifier: MIT */
/*
 * The file-system commands that change an image: put, rm, mkdir, mv and
 * chmod. Each mounts the image (or /dev/mtdN) read-write, makes one change
 * through the file system's API, syncs, unmounts and saves the image through
 * the simulator's store. With --power-cut-after N the simulated chip loses
 * power after N flash operations of the change (counted from the end of the
 * mount): the command stops there, says so, and the image is saved as the
 * chip holds it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "copy_progress.h"
#include "fsimage.h"
#include "nandkit/error.h"
#include "save.h"
#include "tool.h"

#define TOOL_FSWRITE_OPTIONS_HELP                                                                  \
    "Options:\n" TOOL_IMAGE_HELP                                                                   \
    "\nThe image must be writable; it is saved through the simulator's store (temporary\n"         \
    "file + rename). With --power-cut-after N the simulated chip loses power after N\n"            \
    "flash operations of the change (its reads, programs and erases, counted from the\n"           \
    "end of the mount): the command stops with an error naming the cut, and the image\n"           \
    "holds what the chip would.\n\n"                                                               \
    "In the mkyaffs2 layout a changed image stays YAFFS2 (YAFFS2 and nandkit read it),\n"          \
    "but mkyaffs2image's readers (Debian's unyaffs) extract only a freshly built one:\n"           \
    "they read each object's one header with its data after it, in page order, and\n"              \
    "stop at the newer headers a change writes. `nandkit mkimage --from IMAGE IMAGE\n"             \
    "--layout mkyaffs2` repacks the changed tree into a fresh image they read.\n"

static void tool_put_help(FILE *out)
{
    fprintf(out, "usage: nandkit put [-r] IMAGE HOST_FILE PATH (--geometry P,O,N[,B] |\n"
                 "                   --chip NAME) [--layout L] [--power-cut-after N --seed S]\n\n"
                 "Copies HOST_FILE (a regular file) into the YAFFS2 file system of IMAGE as file\n"
                 "PATH, replacing a file already there, atomically: the data goes to a temporary\n"
                 "name in PATH's directory that names nothing yet (.NAME.nkput, or .nkput-N when\n"
                 "that exists or would pass 255 bytes), is made durable (fsync), gets HOST_FILE's\n"
                 "permission bits and times, and is renamed over PATH. After a power cut at any\n"
                 "point PATH is absent (when it was), the old file, or the whole new one; the\n"
                 "temporary file may be left behind (nandkit rm removes it: put never deletes a\n"
                 "file it did not make in this run).\n\n"
                 "With -r HOST_FILE is a directory: PATH becomes a directory (made when missing)\n"
                 "holding its tree, each regular file put as above, directories with their mode,\n"
                 "symlinks as they are; other kinds are skipped with a warning.\n\n"
                 "  -r, --recursive         copy the directory HOST_FILE and everything below it\n"
                 "  --progress              a progress line on stderr, also when it is not a\n"
                 "                          terminal (default: on a terminal, after a second)\n"
                 "  --no-progress           no progress line\n\n" TOOL_FSWRITE_OPTIONS_HELP);
}

static void tool_rm_help(FILE *out)
{
    fprintf(
        out,
        "usage: nandkit rm [-r] IMAGE PATH (--geometry P,O,N[,B] | --chip NAME)\n"
        "                  [--layout L] [--power-cut-after N --seed S]\n\n"
        "Removes PATH from the YAFFS2 file system of IMAGE: a file, symlink, hard link or\n"
        "special, or an empty directory. Atomic across a power cut. With -r a directory\n"
        "goes with everything below it, entry by entry (a cut leaves part of the tree).\n\n"
        "  -r, --recursive         remove a directory and its tree\n\n" TOOL_FSWRITE_OPTIONS_HELP);
}

static void tool_mkdir_help(FILE *out)
{
    fprintf(out,
            "usage: nandkit mkdir [-p] [--mode OCTAL] IMAGE PATH (--geometry P,O,N[,B] |\n"
            "                     --chip NAME) [--layout L] [--power-cut-after N --seed S]\n\n"
            "Creates directory PATH in the YAFFS2 file system of IMAGE (mode 0755 unless\n"
            "--mode). Each directory is created atomically across a power cut.\n\n"
            "  -p, --parents           create missing parents too; an existing directory is\n"
            "                          not an error\n"
            "  --mode OCTAL            permission bits (0 to 07777)\n\n" TOOL_FSWRITE_OPTIONS_HELP);
}

static void tool_mv_help(FILE *out)
{
    fprintf(out,
            "usage: nandkit mv IMAGE FROM TO (--geometry P,O,N[,B] | --chip NAME) [--layout L]\n"
            "                  [--power-cut-after N --seed S]\n\n"
            "Renames FROM to TO in the YAFFS2 file system of IMAGE, replacing a file or an\n"
            "empty directory at TO. Atomic across a power cut: the tree is the old one or\n"
            "the new one.\n\n" TOOL_FSWRITE_OPTIONS_HELP);
}

static void tool_chmod_help(FILE *out)
{
    fprintf(
        out,
        "usage: nandkit chmod IMAGE OCTAL_MODE PATH (--geometry P,O,N[,B] | --chip NAME)\n"
        "                     [--layout L] [--power-cut-after N --seed S]\n\n"
        "Sets the permission bits (0 to 07777, octal) of PATH in the YAFFS2 file system\n"
        "of IMAGE (symlinks followed). Atomic across a power cut.\n\n" TOOL_FSWRITE_OPTIONS_HELP);
}

/* One line for a failed file-system call on `what`; the power cut when the
 * simulated chip lost power. */
static int tool_fswrite_fail(struct tool_fs *t, const char *command, const char *what, int err)
{
    if (t->image.sim && !nk_sim_powered(t->image.sim))
        return tool_error("%s %s: %s", command, what, tool_image_error(&t->image, err));
    if (tool_is_user_error(err))
        return tool_fail_err(err, true, "%s %s: %s in the image", command, what, nk_strerror(err));
    return tool_error("%s %s: %s", command, what,
                      t->fs.diag.text[0] ? t->fs.diag.text : nk_strerror(err));
}

/* Opens the image for writing: an image file is worked on in a temporary
 * copy beside it (tools/save.h), renamed over it by tool_fswrite_finish(). */
static int tool_fswrite_open(struct tool_fs *t, struct tool_image_opts *opts,
                             struct tool_save *save)
{
    memset(save, 0, sizeof *save);
    const char *user_path = opts->path;
    if (!tool_path_is_mtd(opts->path)) {
        struct nk_sim_params params;
        bool has_sidecar = false;
        int status = tool_params_from_opts(opts, &params);
        if (!status)
            status = tool_image_check_sidecar(opts->path, &params, &has_sidecar);
        if (!status)
            status = tool_save_begin(save, opts->path, true);
        if (status)
            return status;
        opts->name = user_path;
        opts->path = save->tmp;
        opts->write_through = true;
        /* An image without a sidecar stays one: nothing new is written
         * beside it that later commands would have to agree with. */
        opts->no_sidecar = !has_sidecar;
    }
    int status = tool_fs_open_writable(t, opts);
    opts->path = user_path;
    if (status)
        tool_save_abort(save);
    return status;
}

/* Syncs, unmounts and saves; `status` is the command's so far. A simulated
 * power cut saves what the chip holds; any other failure leaves the image
 * as it was. */
static int tool_fswrite_finish(struct tool_fs *t, struct tool_save *save, const char *command,
                               const char *path, int status)
{
    if (t->mounted) {
        int err = nk_fs_unmount(&t->fs);
        t->mounted = false;
        if (err && !status)
            status = tool_fswrite_fail(t, command, path, err);
    }
    bool power_cut = t->image.sim && !nk_sim_powered(t->image.sim);
    /* Written out here (not in the close) to learn why a write failed: a
     * full host disk is named as such, and the image as the user gave it. */
    struct nk_diag why[1] = {{""}};
    int err_close = t->image.sim ? nk_sim_sync(t->image.sim, why) : 0;
    int host_errno = errno;
    if (t->image.sim && nk_sim_close(t->image.sim) && !err_close)
        err_close = -NK_EIO;
    t->image.sim = NULL;
    tool_fs_close(t);
    if (err_close && (!status || power_cut)) {
        if (err_close == -NK_EIO && (host_errno == ENOSPC || host_errno == EDQUOT))
            status = tool_error("saving %s failed: no space left on the host disk (%s)",
                                save->name ? save->name : "the image", strerror(host_errno));
        else
            status = tool_error("saving %s failed: %s", save->name ? save->name : "the image",
                                why->text[0] ? why->text : nk_strerror(err_close));
    } else if (save->tmp && (!status || power_cut)) {
        int commit = tool_save_commit(save);
        if (commit)
            status = commit;
    }
    tool_save_abort(save);
    return status;
}

/* Shared argument parsing: image options, then `positional` arguments.
 * `extra` handles the command's own options (may be NULL). */
struct tool_fswrite_args {
    struct tool_image_opts opts;
    char **args;
    bool parents;
    uint32_t mode;
    bool mode_given;
    bool recursive;
    enum tool_copy_progress_mode progress;
};

/* The options of a command's own, besides the image options. */
enum {
    TOOL_FSWRITE_OWN_MKDIR = 1,     /* -p, --mode */
    TOOL_FSWRITE_OWN_RECURSIVE = 2, /* -r */
    TOOL_FSWRITE_OWN_PROGRESS = 4,  /* --progress, --no-progress */
};

static bool tool_fswrite_parse_mode(const char *text, uint32_t *mode)
{
    if (!text[0] || strlen(text) > 5)
        return false;
    uint32_t v = 0;
    for (const char *p = text; *p; p++) {
        if (*p < '0' || *p > '7')
            return false;
        v = v * 8 + (uint32_t)(*p - '0');
    }
    if (v > 07777)
        return false;
    *mode = v;
    return true;
}

static int tool_fswrite_parse(int argc, char **argv, const char *command, int positional,
                              const char *names, unsigned own, struct tool_fswrite_args *a)
{
    enum { OPT_MODE = TOOL_OPT_FIRST_FREE, OPT_PROGRESS, OPT_NO_PROGRESS };
    static const struct option options[] = {TOOL_IMAGE_LONG_OPTIONS, {NULL, 0, NULL, 0}};
    static const struct option mkdir_opts[] = {TOOL_IMAGE_LONG_OPTIONS,
                                               {"parents", no_argument, NULL, 'p'},
                                               {"mode", required_argument, NULL, OPT_MODE},
                                               {NULL, 0, NULL, 0}};
    static const struct option rm_opts[] = {
        TOOL_IMAGE_LONG_OPTIONS, {"recursive", no_argument, NULL, 'r'}, {NULL, 0, NULL, 0}};
    static const struct option put_opts[] = {TOOL_IMAGE_LONG_OPTIONS,
                                             {"recursive", no_argument, NULL, 'r'},
                                             {"progress", no_argument, NULL, OPT_PROGRESS},
                                             {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
                                             {NULL, 0, NULL, 0}};
    const struct option *table = own & TOOL_FSWRITE_OWN_MKDIR       ? mkdir_opts
                                 : own & TOOL_FSWRITE_OWN_PROGRESS  ? put_opts
                                 : own & TOOL_FSWRITE_OWN_RECURSIVE ? rm_opts
                                                                    : options;
    const char *shortopts = own & TOOL_FSWRITE_OWN_MKDIR       ? "p"
                            : own & TOOL_FSWRITE_OWN_RECURSIVE ? "r"
                                                               : "";
    memset(a, 0, sizeof *a);
    tool_image_opts_init(&a->opts);
    a->mode = 0755;
    a->progress = TOOL_COPY_PROGRESS_AUTO;
    int opt;
    optind = 1;
    while ((opt = tool_getopt(argc, argv, shortopts, table, &a->opts, command)) > 0) {
        if (opt == 'r') {
            a->recursive = true;
        } else if (opt == OPT_PROGRESS) {
            a->progress = TOOL_COPY_PROGRESS_ON;
        } else if (opt == OPT_NO_PROGRESS) {
            a->progress = TOOL_COPY_PROGRESS_OFF;
        } else if (opt == 'p') {
            a->parents = true;
        } else if (opt == OPT_MODE) {
            if (!tool_fswrite_parse_mode(optarg, &a->mode))
                return tool_fail("bad --mode '%s': octal permission bits 0 to 07777", optarg);
            a->mode_given = true;
        } else {
            return tool_fail("%s: unknown option (see nandkit %s --help)", command, command);
        }
    }
    if (opt < 0)
        return -opt;
    if (argc - optind != positional)
        return tool_fail("%s needs %s (see nandkit %s --help)", command, names, command);
    a->opts.path = argv[optind];
    a->args = argv + optind + 1;
    if (a->opts.power_cut_after >= 0 && tool_path_is_mtd(a->opts.path))
        return tool_fail("--power-cut-after needs a simulated image, not %s", a->opts.path);
    return 0;
}

/* ----- put ---------------------------------------------------------------------------- */

/* The directory part of `path` into `out` ("" for the root). Returns -1 when
 * `path` does not end in a file name. */
static int tool_put_parent(const char *path, char *out, size_t size)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return -1;
    int dir_len = slash ? (int)(slash - path) : 0;
    int n = snprintf(out, size, "%.*s", dir_len, path);
    return n >= 0 && (size_t)n < size ? 0 : -1;
}

/* A temporary name in `parent` that names nothing yet: .NAME.nkput when it
 * fits in a name, else (or when that exists) .nkput-N. Never an existing
 * object: a user's file of that name is left alone. */
static int tool_put_temp_name(struct tool_fs *t, const char *parent, const char *name, char *out,
                              size_t size)
{
    struct nk_fs_stat st;
    for (unsigned i = 0; i < 1000; i++) {
        int n = i == 0 ? snprintf(out, size, "%s/.%s.nkput", parent, name)
                       : snprintf(out, size, "%s/.nkput-%u", parent, i);
        if (n < 0 || (size_t)n >= size)
            return -NK_ENAMETOOLONG;
        if (i == 0 && strlen(name) + 7 > NK_FS_NAME_MAX)
            continue;
        int err = nk_fs_lstat(&t->fs, out, &st);
        if (err == -NK_ENOENT)
            return 0;
        if (err)
            return err;
    }
    return -NK_EEXIST;
}

/* Copies `host` (open as `fd`) into the new file `temp`; errors name `path`,
 * the name the user gave. */
static int tool_put_copy(struct tool_fs *t, int fd, const char *host, const char *temp,
                         const char *path, const struct stat *st,
                         struct tool_copy_progress *progress)
{
    struct nk_fs_file file;
    int err =
        nk_fs_file_open_mode(&t->fs, &file, temp, NK_FS_O_WRONLY | NK_FS_O_CREAT | NK_FS_O_EXCL,
                             (uint32_t)st->st_mode & 07777u);
    if (err)
        return tool_fswrite_fail(t, "put", path, err);
    enum { CHUNK = 64 * 1024 };
    uint8_t *buf = malloc(CHUNK);
    int status = buf ? 0 : tool_error("out of memory");
    uint64_t done = 0;
    while (!status) {
        ssize_t got = read(fd, buf, CHUNK);
        if (got < 0) {
            status = tool_error("put: cannot read %s: %s", host, strerror(errno));
            break;
        }
        if (got == 0)
            break;
        int32_t n = nk_fs_file_write(&file, buf, (size_t)got);
        if (n != (int32_t)got) {
            status = tool_fswrite_fail(t, "put", path, n < 0 ? n : -NK_ENOSPC);
            break;
        }
        done += (uint64_t)got;
        tool_copy_progress_add(progress, (uint64_t)got, 0);
    }
    free(buf);
    if (!status && done != (uint64_t)st->st_size)
        status = tool_error("put: %s changed size while being read", host);
    if (!status) {
        err = nk_fs_file_fsync(&file);
        if (err)
            status = tool_fswrite_fail(t, "put", path, err);
    }
    err = nk_fs_file_close(&file);
    if (err && !status)
        status = tool_fswrite_fail(t, "put", path, err);
    if (!status) {
        err = nk_fs_utimes(&t->fs, temp, (uint64_t)st->st_atime, (uint64_t)st->st_mtime);
        if (err)
            status = tool_fswrite_fail(t, "put", path, err);
    }
    return status;
}

/* Opens HOST_FILE without blocking (a FIFO named as HOST_FILE must not hang
 * the open) and checks it is a regular file. Returns the descriptor, or
 * minus the exit status after one line. */
static int tool_put_open_host(const char *host, struct stat *st)
{
    int fd = open(host, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT
                   ? -tool_not_found("put: cannot open HOST_FILE %s: %s", host, strerror(errno))
                   : -tool_fail("put: cannot open HOST_FILE %s: %s", host, strerror(errno));
    if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
        close(fd);
        return -tool_fail("put: HOST_FILE %s is not a regular file%s", host,
                          S_ISDIR(st->st_mode) ? " (give -r to copy a directory)" : "");
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

/* Puts the host file open as `fd` at `path` of the mounted image: checks
 * the parent, picks a temporary name, copies, renames over `path`. */
static int tool_put_file(struct tool_fs *t, int fd, const char *host, const struct stat *st,
                         const char *path, struct tool_copy_progress *progress)
{
    char parent[4096], temp[4096 + NK_FS_NAME_MAX + 8];
    if (tool_put_parent(path, parent, sizeof parent) != 0)
        return tool_fail("put: bad PATH '%s': it must name a file", path);
    struct nk_fs_stat existing;
    int err = nk_fs_stat(&t->fs, parent[0] ? parent : "/", &existing);
    if (err == 0 && existing.type != NK_FS_TYPE_DIR)
        err = -NK_ENOTDIR;
    if (err)
        return tool_fswrite_fail(t, "put", parent, err);
    err = nk_fs_lstat(&t->fs, path, &existing);
    if (err == 0 && existing.type == NK_FS_TYPE_DIR)
        return tool_fail("put: PATH '%s' is a directory in the image", path);
    if (err && err != -NK_ENOENT)
        return tool_fswrite_fail(t, "put", path, err);
    const char *slash = strrchr(path, '/');
    err = tool_put_temp_name(t, parent, slash ? slash + 1 : path, temp, sizeof temp);
    if (err)
        return tool_fswrite_fail(t, "put", path, err);
    int status = tool_put_copy(t, fd, host, temp, path, st, progress);
    if (status)
        return status;
    err = nk_fs_rename(&t->fs, temp, path);
    if (err)
        return tool_fswrite_fail(t, "put", path, err);
    tool_copy_progress_add(progress, 0, 1);
    return 0;
}

static int tool_put_tree(struct tool_fs *t, const char *host_dir, const char *path,
                         struct tool_copy_progress *progress, unsigned depth);

/* One entry of a host directory under -r: a file, a directory, a symlink. */
static int tool_put_entry(struct tool_fs *t, const char *host, const char *path,
                          struct tool_copy_progress *progress, unsigned depth)
{
    struct stat st;
    if (lstat(host, &st) != 0)
        return tool_error("put: cannot stat %s: %s", host, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return tool_put_tree(t, host, path, progress, depth + 1);
    if (S_ISLNK(st.st_mode)) {
        char target[NK_FS_ALIAS_MAX + 1];
        ssize_t len = readlink(host, target, sizeof target);
        if (len < 0 || (size_t)len > NK_FS_ALIAS_MAX)
            return tool_fail("put: symlink %s: %s", host,
                             len < 0 ? strerror(errno) : "target too long for YAFFS2");
        target[len] = '\0';
        int err = nk_fs_symlink(&t->fs, target, path);
        return err ? tool_fswrite_fail(t, "put", path, err) : 0;
    }
    if (!S_ISREG(st.st_mode)) {
        fprintf(stderr,
                "nandkit: warning: put -r: %s is not a file, directory or symlink: "
                "skipped\n",
                host);
        return 0;
    }
    int fd = tool_put_open_host(host, &st);
    if (fd < 0)
        return -fd;
    int status = tool_put_file(t, fd, host, &st, path, progress);
    close(fd);
    return status;
}

/* put -r: directory `path` (made with `host_dir`'s mode when missing), then
 * every entry of `host_dir` in name order. */
static int tool_put_tree(struct tool_fs *t, const char *host_dir, const char *path,
                         struct tool_copy_progress *progress, unsigned depth)
{
    if (depth > 64)
        return tool_fail("put: %s: more than 64 directory levels", host_dir);
    struct stat st;
    if (stat(host_dir, &st) != 0)
        return tool_error("put: cannot stat %s: %s", host_dir, strerror(errno));
    struct nk_fs_stat existing;
    int err = nk_fs_stat(&t->fs, path, &existing);
    if (err == -NK_ENOENT)
        err = nk_fs_mkdir(&t->fs, path, (uint32_t)st.st_mode & 07777u);
    else if (!err && existing.type != NK_FS_TYPE_DIR)
        err = -NK_ENOTDIR;
    if (err)
        return tool_fswrite_fail(t, "put", path, err);
    struct dirent **names;
    int count = scandir(host_dir, &names, NULL, alphasort);
    if (count < 0)
        return tool_error("put: cannot read directory %s: %s", host_dir, strerror(errno));
    int status = 0;
    for (int i = 0; i < count; i++) {
        const char *name = names[i]->d_name;
        bool dot = strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
        char *host = dot || status ? NULL : tool_path_dup(host_dir, name);
        char *child = host ? tool_path_dup(strcmp(path, "/") ? path : "", name) : NULL;
        if (host && child)
            status = tool_put_entry(t, host, child, progress, depth);
        else if (!dot && !status)
            status = tool_error("out of memory");
        free(host);
        free(child);
        free(names[i]);
    }
    free(names);
    if (!status) { /* after its entries, which change it */
        err = nk_fs_utimes(&t->fs, path, (uint64_t)st.st_atime, (uint64_t)st.st_mtime);
        if (err)
            status = tool_fswrite_fail(t, "put", path, err);
    }
    return status;
}

static int tool_put_run(int argc, char **argv)
{
    struct tool_fswrite_args a;
    int status = tool_fswrite_parse(argc, argv, "put", 3, "IMAGE, HOST_FILE and PATH",
                                    TOOL_FSWRITE_OWN_RECURSIVE | TOOL_FSWRITE_OWN_PROGRESS, &a);
    if (status)
        return status;
    const char *host = a.args[0], *path = a.args[1];
    struct stat st;
    int fd = -1;
    if (a.recursive) {
        if (stat(host, &st) != 0)
            return errno == ENOENT
                       ? tool_not_found("put: cannot open %s: %s", host, strerror(errno))
                       : tool_fail("put: cannot open %s: %s", host, strerror(errno));
        if (!S_ISDIR(st.st_mode))
            return tool_fail("put -r: %s is not a directory", host);
    } else {
        char parent[4096];
        if (tool_put_parent(path, parent, sizeof parent) != 0)
            return tool_fail("put: bad PATH '%s': it must name a file", path);
        fd = tool_put_open_host(host, &st);
        if (fd < 0)
            return -fd;
    }

    struct tool_fs t;
    struct tool_save save;
    status = tool_fswrite_open(&t, &a.opts, &save);
    if (status) {
        if (fd >= 0)
            close(fd);
        return status;
    }
    struct tool_copy_progress progress;
    tool_copy_progress_begin(&progress, "put", a.progress, a.recursive ? 0 : (uint64_t)st.st_size);
    if (a.recursive)
        status = tool_put_tree(&t, host, path, &progress, 0);
    else
        status = tool_put_file(&t, fd, host, &st, path, &progress);
    if (fd >= 0)
        close(fd);
    tool_copy_progress_end(&progress);
    return tool_fswrite_finish(&t, &save, "put", path, status);
}

/* ----- rm, mkdir, mv, chmod ---------------------------------------------------------------- */

/* One change to the image at `path`: opens it, runs `op`, names `path` in
 * the error, and saves (or leaves the image as it was). */
static int tool_fswrite_one(const char *cmd, struct tool_fswrite_args *a, const char *path,
                            int (*op)(struct tool_fs *t, const struct tool_fswrite_args *a,
                                      const char *path))
{
    struct tool_fs t;
    struct tool_save save;
    int status = tool_fswrite_open(&t, &a->opts, &save);
    if (status)
        return status;
    int err = op(&t, a, path);
    if (err)
        status = tool_fswrite_fail(&t, cmd, path, err);
    return tool_fswrite_finish(&t, &save, cmd, path, status);
}

/* Removes `path` and, when it is a directory, everything below it first. */
static int tool_rm_tree(struct nk_fs *fs, const char *path)
{
    struct nk_fs_stat st;
    int err = nk_fs_lstat(fs, path, &st);
    if (err || st.type != NK_FS_TYPE_DIR)
        return err ? err : nk_fs_unlink(fs, path);
    struct nk_fs_dir dir;
    err = nk_fs_dir_open(fs, &dir, path);
    if (err)
        return err;
    struct nk_fs_dirent entry;
    int got;
    /* Removing the entry just read is allowed: the handle skips it. */
    while (!err && (got = nk_fs_dir_read(&dir, &entry)) != 0) {
        if (got < 0) {
            err = got;
            break;
        }
        char *child = tool_path_dup(path, entry.name);
        err = child ? tool_rm_tree(fs, child) : -NK_ENOMEM;
        free(child);
    }
    nk_fs_dir_close(&dir);
    return err ? err : nk_fs_rmdir(fs, path);
}

static int tool_rm_op(struct tool_fs *t, const struct tool_fswrite_args *a, const char *path)
{
    struct nk_fs_stat st;
    int err = nk_fs_lstat(&t->fs, path, &st);
    if (!err && a->recursive)
        return tool_rm_tree(&t->fs, path);
    if (!err)
        err = st.type == NK_FS_TYPE_DIR ? nk_fs_rmdir(&t->fs, path) : nk_fs_unlink(&t->fs, path);
    return err;
}

static int tool_rm_run(int argc, char **argv)
{
    struct tool_fswrite_args a;
    int status =
        tool_fswrite_parse(argc, argv, "rm", 2, "IMAGE and PATH", TOOL_FSWRITE_OWN_RECURSIVE, &a);
    return status ? status : tool_fswrite_one("rm", &a, a.args[0], tool_rm_op);
}

/* Creates every missing directory on the way to `path`. */
static int tool_mkdir_parents(struct tool_fs *t, const char *path, uint32_t mode)
{
    char prefix[4096];
    size_t len = strlen(path);
    if (len >= sizeof prefix)
        return -NK_ENAMETOOLONG;
    for (size_t i = 1; i <= len; i++) {
        if (i < len && path[i] != '/')
            continue;
        memcpy(prefix, path, i);
        prefix[i] = '\0';
        if (i > 0 && prefix[i - 1] == '/')
            continue;
        struct nk_fs_stat st;
        int err = nk_fs_stat(&t->fs, prefix, &st);
        if (err == 0 && st.type == NK_FS_TYPE_DIR)
            continue;
        if (err == 0)
            return -NK_ENOTDIR;
        if (err != -NK_ENOENT)
            return err;
        err = nk_fs_mkdir(&t->fs, prefix, mode);
        if (err)
            return err;
    }
    return 0;
}

static int tool_mkdir_op(struct tool_fs *t, const struct tool_fswrite_args *a, const char *path)
{
    return a->parents ? tool_mkdir_parents(t, path, a->mode) : nk_fs_mkdir(&t->fs, path, a->mode);
}

static int tool_mkdir_run(int argc, char **argv)
{
    struct tool_fswrite_args a;
    int status =
        tool_fswrite_parse(argc, argv, "mkdir", 2, "IMAGE and PATH", TOOL_FSWRITE_OWN_MKDIR, &a);
    return status ? status : tool_fswrite_one("mkdir", &a, a.args[0], tool_mkdir_op);
}

/* True when the last component of `path` is "." or "..": the one other
 * reason nk_fs_rename() gives -NK_EINVAL. */
static bool tool_mv_names_by_dot(const char *path)
{
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        len--;
    size_t start = len;
    while (start > 0 && path[start - 1] != '/')
        start--;
    return (len - start == 1 && path[start] == '.') ||
           (len - start == 2 && path[start] == '.' && path[start + 1] == '.');
}

static int tool_mv_run(int argc, char **argv)
{
    struct tool_fswrite_args a;
    int status = tool_fswrite_parse(argc, argv, "mv", 3, "IMAGE, FROM and TO", 0, &a);
    if (status)
        return status;
    const char *from = a.args[0], *to = a.args[1];
    struct tool_fs t;
    struct tool_save save;
    status = tool_fswrite_open(&t, &a.opts, &save);
    if (status)
        return status;
    struct nk_fs_stat st;
    int err = nk_fs_lstat(&t.fs, from, &st);
    if (err) {
        status = tool_fswrite_fail(&t, "mv", from, err);
    } else {
        err = nk_fs_rename(&t.fs, from, to);
        if (err == -NK_EINVAL && (tool_mv_names_by_dot(from) || tool_mv_names_by_dot(to)))
            status = tool_fail("mv %s to %s: a name ending in . or .. cannot be renamed", from, to);
        else if (err == -NK_EINVAL && st.type == NK_FS_TYPE_DIR)
            status = tool_fail("mv %s to %s: a directory cannot move into itself", from, to);
        else if (err) {
            char what[8192];
            snprintf(what, sizeof what, "%s to %s", from, to);
            status = tool_fswrite_fail(&t, "mv", what, err);
        }
    }
    return tool_fswrite_finish(&t, &save, "mv", to, status);
}

static int tool_chmod_op(struct tool_fs *t, const struct tool_fswrite_args *a, const char *path)
{
    return nk_fs_chmod(&t->fs, path, a->mode);
}

static int tool_chmod_run(int argc, char **argv)
{
    struct tool_fswrite_args a;
    int status = tool_fswrite_parse(argc, argv, "chmod", 3, "IMAGE, OCTAL_MODE and PATH", 0, &a);
    if (status)
        return status;
    if (!tool_fswrite_parse_mode(a.args[0], &a.mode))
        return tool_fail("chmod: bad mode '%s': octal permission bits 0 to 07777", a.args[0]);
    return tool_fswrite_one("chmod", &a, a.args[1], tool_chmod_op);
}

int tool_fs_recover(struct tool_image_opts *opts)
{
    struct tool_fs t;
    struct tool_save save;
    int status = tool_fswrite_open(&t, opts, &save);
    if (status)
        return status;
    return tool_fswrite_finish(&t, &save, "fsck --repair", opts->path, 0);
}

/* The five commands: name, summary, and tool_NAME_run / tool_NAME_help above. */
#define TOOL_FSWRITE_COMMAND(cmd, text)                                                            \
    const struct tool_command tool_cmd_##cmd = {                                                   \
        .name = #cmd, .summary = text, .run = tool_##cmd##_run, .help = tool_##cmd##_help}

TOOL_FSWRITE_COMMAND(put, "copy a host file into a YAFFS2 image, atomically");
TOOL_FSWRITE_COMMAND(rm, "remove a file or an empty directory from a YAFFS2 image");
TOOL_FSWRITE_COMMAND(mkdir, "create a directory in a YAFFS2 image");
TOOL_FSWRITE_COMMAND(mv, "rename a file or directory in a YAFFS2 image");
TOOL_FSWRITE_COMMAND(chmod, "set the permission bits of a file in a YAFFS2 image");
