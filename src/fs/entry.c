/* SPDX-License-Identifier: MIT */
/*
 * The public entry points: each holds config.lock (when given) around the
 * work of its *_unlocked twin, so threads can share one mounted file
 * system. Inside src/fs/ only the twins are called, so the lock is never
 * taken twice. The lock is read from the file system (or the handle's),
 * which a mount sets once before any other call can see it (unmount keeps
 * a copy: it clears the file system before it gives the lock back).
 */
#include "fs/fs_internal.h"

static const struct nk_lock nk_fs_no_lock;

const struct nk_lock *nk_fs_lock_of(const struct nk_fs *fs)
{
    return fs ? &fs->config.lock : &nk_fs_no_lock;
}

void nk_fs_lock_take(const struct nk_lock *lock)
{
    if (lock->lock)
        lock->lock(lock->ctx);
}

void nk_fs_lock_give(const struct nk_lock *lock)
{
    if (lock->unlock)
        lock->unlock(lock->ctx);
}

int nk_fs_mount(struct nk_fs *fs, const struct nk_fs_config *config)
{
    const struct nk_lock *lock = config ? &config->lock : nk_fs_lock_of(NULL);
    nk_fs_lock_take(lock);
    int ret = nk_fs_mount_unlocked(fs, config);
    nk_fs_lock_give(lock);
    return ret;
}

uint32_t nk_fs_damaged(const struct nk_fs *fs)
{
    const struct nk_lock *lock = nk_fs_lock_of(fs);
    nk_fs_lock_take(lock);
    uint32_t ret = nk_fs_damaged_unlocked(fs);
    nk_fs_lock_give(lock);
    return ret;
}

int nk_fs_unmount(struct nk_fs *fs)
{
    const struct nk_lock lock = *nk_fs_lock_of(fs); /* the release clears fs */
    nk_fs_lock_take(&lock);
    int ret = nk_fs_unmount_unlocked(fs);
    nk_fs_lock_give(&lock);
    return ret;
}

int nk_fs_sync(struct nk_fs *fs)
{
    const struct nk_lock *lock = nk_fs_lock_of(fs);
    nk_fs_lock_take(lock);
    int ret = nk_fs_sync_unlocked(fs);
    nk_fs_lock_give(lock);
    return ret;
}

int nk_fs_checkpoint(struct nk_fs *fs)
{
    const struct nk_lock *lock = nk_fs_lock_of(fs);
    nk_fs_lock_take(lock);
    int ret = nk_fs_checkpoint_unlocked(fs);
    nk_fs_lock_give(lock);
    return ret;
}

void nk_fs_ram_usage(const struct nk_fs *fs, size_t *now, size_t *peak)
{
    const struct nk_lock *lock = nk_fs_lock_of(fs);
    nk_fs_lock_take(lock);
    nk_fs_ram_usage_unlocked(fs, now, peak);
    nk_fs_lock_give(lock);
}

int nk_fs_statfs(struct nk_fs *fs, struct nk_fs_statfs *st)
{
    const struct nk_lock *lock = nk_fs_lock_of(fs);
    nk_fs_lock_take(lock);
    int ret = nk_fs_statfs_unlocked(fs, st);
    nk_fs_lock_give(lock);
    return ret;
}

int nk_fs_stat(struct nk_fs *fs, const char *path, struct nk_fs_stat *st)
{
    const struct nk_lock *lock = nk_fs_lock_of(fs);
    nk_fs_lock_take(lock);
    int ret = nk_fs_stat_unlocked(fs, path, st);
    nk_fs_lock_give(lock);
    return ret;
}

int nk_fs_lstat(struct nk_fs *fs, const char *path, struct nk_fs_stat *st)
{
    const struct nk_lock *lock = nk_fs_lock_of(fs);
    nk_fs_lock_take(lock);
    int ret = nk_fs_lstat_unlocked(fs, path, st);
    nk_fs_lock_give(lock);
    return ret;
}

int nk_fs_readlink(struct nk_fs *fs, const char *path, char *buf, size_t size)
{
    const struct nk_lock *lock = nk_fs_lock_of(fs);
    nk_fs_lock_take(lock);
    int ret = nk_fs_readlink_unlocked(fs, path, buf, size);
    nk_fs_lock_give(lock);
    return ret;
}

int nk_fs_file_open(struct nk_fs *fs, struct nk_fs_file *file, const char *path, uint32_t flags)
{
    const struct nk_lock *lock = nk_fs_lock_of(fs);
    nk_fs_lock_take(lock);
    int ret = nk_fs_file_open_unlocked(fs, file, path, flags);
    nk_fs_lock_give(lock);
    return ret;
}

int nk_fs_file_open_mode(struct nk_fs *fs, struct nk_fs_file *file, const char *path,
                         uint32_t flags, uint32_t mode)
{
    const struct nk_lock *lock = nk_fs_lock_of(fs);
    nk_fs_lock_take(lock);
    int ret = nk_fs_file_open_mode_unlocked(fs, file, path, flags, mode);
    nk_fs_lock_give(lock);
    return ret;
}

int32_t nk_fs_file_write(struct nk_fs_file *file, const void *buf, size_t len)
{
    const struct nk_lock *lock = nk_fs_lock_of(file ? file->fs : NULL);
    nk_fs_lock_take(lock);
    int32_t ret = nk_fs_file_write_unlocked(file, buf, len);
    nk_fs_lock_give(lock);
    return ret;
}

int32_t nk_fs_file_pwrite(struct nk_fs_file *file, const void *buf, size_t len, uint64_t offset)
{
    const struct nk_lock *lock = nk_fs_lock_of(file ? file->fs : NULL);
    nk_fs_lock_take(lock);
    int32_t ret = nk_fs_file_pwrite_unlocked(file, buf, len, offset);
    nk_fs_lock_give(lock);
    return ret;
}

int nk_fs_file_truncate(struct nk_fs_file *file, uint64_t size)
{
    const struct nk_lock *lock = nk_fs_lock_of(file ? file->fs : NULL);
    nk_fs_lock_take(lock);
    int ret = nk_fs_file_truncate_unlocked(file, size);
    nk_fs_lock_give(lock);
    return ret;
}

int nk_fs_file_fsync(struct nk_fs_file *file)
{
    const struct nk_lock *lock = nk_fs_lock_of(file ? file->fs : NULL);
    nk_fs_lock_take(lock);
    int ret = nk_fs_file_fsync_unlocked(file);
    nk_fs_lock_give(lock);
    return ret;
}

int32_t nk_fs_file_read(struct nk_fs_file *file, void *buf, size_t len)
{
    const struct nk_lock *lock = nk_fs_lock_of(file ? file->fs : NULL);
    nk_fs_lock_take(lock);
    int32_t ret = nk_fs_file_read_unlocked(file, buf, len);
    nk_fs_lock_give(lock);
    return ret;
}

int32_t nk_fs_file_pread(struct nk_fs_file *file, void *buf, size_t len, uint64_t offset)
{
    const struct nk_lock *lock = nk_fs_lock_of(file ? file->fs : NULL);
    nk_fs_lock_take(lock);
    int32_t ret = nk_fs_file_pread_unlocked(file, buf, len, offset);
    nk_fs_lock_give(lock);
    return ret;
}

int64_t nk_fs_file_seek(struct nk_fs_file *file, int64_t offset, int whence)
{
    const struct nk_lock *lock = nk_fs_lock_of(file ? file->fs : NULL);
    nk_fs_lock_take(lock);
    int64_t ret = nk_fs_file_seek_unlocked(file, offset, whence);
    nk_fs_lock_give(lock);
    return ret;
}

int nk_fs_file_stat(struct nk_fs_file *file, struct nk_fs_stat *st)
{
    const struct nk_lock *lock = nk_fs_lock_of(file ? file->fs : NULL);
    nk_fs_lock_take(lock);
    int ret = nk_fs_file_stat_unlocked(file, st);
    nk_fs_lock_give(lock);
    return ret;
}

int nk_fs_file_close(struct nk_fs_file *file)
{
    const struct nk_lock *lock = nk_fs_lock_of(file ? file->fs : NULL);
    nk_fs_lock_take(lock);
    int ret = nk_fs_file_close_unlocked(file);
    nk_fs_lock_give(lock);
    return ret;
}

int nk_fs_mkdir(struct nk_fs *fs, const char *path, uint32_t mode)
{
    const struct nk_lock *lock = nk_fs_lock_of(fs);
    nk_fs_lock_take(lock);
    int ret = nk_fs_mkdir_unlocked(fs, path, mode);
    nk_fs_lock_give(lock);
    return ret;
}

int nk_fs_rmdir(struct nk_fs *fs, const char *path)
{
    const struct nk_lock *lock = nk_fs_lock_of(fs);
    nk_fs_lock_take(lock);
    int ret = nk_fs_rmdir_unlocked(fs, path);
    nk_fs_lock_give(lock);
    return ret;
}

int nk_fs_unlink(struct nk_fs *fs, const char *path)
{
    const struct nk_lock *lock = nk_fs_lock_of(fs);
    nk_fs_lock_take(lock);
    int ret = nk_fs_unlink_unlocked(fs, path);
    nk_fs_lock_give(lock);
    return ret;
}

int nk_fs_rename(struct nk_fs *fs, const char *from, const char *to)
{
    const struct nk_lock *lock = nk_fs_lock_of(fs);
    nk_fs_lock_take(lock);
    int ret = nk_fs_rename_unlocked(fs, from, to);
    nk_fs_lock_give(lock);
    return ret;
}

int nk_fs_link(struct nk_fs *fs, const char *existing, const char *path)
{
    const struct nk_lock *lock = nk_fs_lock_of(fs);
    nk_fs_lock_take(lock);
    int ret = nk_fs_link_unlocked(fs, existing, path);
    nk_fs_lock_give(lock);
    return ret;
}

int nk_fs_symlink(struct nk_fs *fs, const char *target, const char *path)
{
    const struct nk_lock *lock = nk_fs_lock_of(fs);
    nk_fs_lock_take(lock);
    int ret = nk_fs_symlink_unlocked(fs, target, path);
    nk_fs_lock_give(lock);
    return ret;
}

int nk_fs_mknod(struct nk_fs *fs, const char *path, uint32_t mode, uint32_t rdev)
{
    const struct nk_lock *lock = nk_fs_lock_of(fs);
    nk_fs_lock_take(lock);
    int ret = nk_fs_mknod_unlocked(fs, path, mode, rdev);
    nk_fs_lock_give(lock);
    return ret;
}

int nk_fs_chmod(struct nk_fs *fs, const char *path, uint32_t mode)
{
    const struct nk_lock *lock = nk_fs_lock_of(fs);
    nk_fs_lock_take(lock);
    int ret = nk_fs_chmod_unlocked(fs, path, mode);
    nk_fs_lock_give(lock);
    return ret;
}

int nk_fs_chown(struct nk_fs *fs, const char *path, uint32_t uid, uint32_t gid)
{
    const struct nk_lock *lock = nk_fs_lock_of(fs);
    nk_fs_lock_take(lock);
    int ret = nk_fs_chown_unlocked(fs, path, uid, gid);
    nk_fs_lock_give(lock);
    return ret;
}

int nk_fs_utimes(struct nk_fs *fs, const char *path, uint64_t atime, uint64_t mtime)
{
    const struct nk_lock *lock = nk_fs_lock_of(fs);
    nk_fs_lock_take(lock);
    int ret = nk_fs_utimes_unlocked(fs, path, atime, mtime);
    nk_fs_lock_give(lock);
    return ret;
}

int nk_fs_lutimes(struct nk_fs *fs, const char *path, uint64_t atime, uint64_t mtime)
{
    const struct nk_lock *lock = nk_fs_lock_of(fs);
    nk_fs_lock_take(lock);
    int ret = nk_fs_lutimes_unlocked(fs, path, atime, mtime);
    nk_fs_lock_give(lock);
    return ret;
}

int nk_fs_lchown(struct nk_fs *fs, const char *path, uint32_t uid, uint32_t gid)
{
    const struct nk_lock *lock = nk_fs_lock_of(fs);
    nk_fs_lock_take(lock);
    int ret = nk_fs_lchown_unlocked(fs, path, uid, gid);
    nk_fs_lock_give(lock);
    return ret;
}

int nk_fs_getxattr(struct nk_fs *fs, const char *path, const char *name, void *value,
                   size_t size)
{
    const struct nk_lock *lock = nk_fs_lock_of(fs);
    nk_fs_lock_take(lock);
    int ret = nk_fs_getxattr_unlocked(fs, path, name, value, size);
    nk_fs_lock_give(lock);
    return ret;
}

int nk_fs_setxattr(struct nk_fs *fs, const char *path, const char *name, const void *value,
                   size_t size, int flags)
{
    const struct nk_lock *lock = nk_fs_lock_of(fs);
    nk_fs_lock_take(lock);
    int ret = nk_fs_setxattr_unlocked(fs, path, name, value, size, flags);
    nk_fs_lock_give(lock);
    return ret;
}

int nk_fs_listxattr(struct nk_fs *fs, const char *path, char *list, size_t size)
{
    const struct nk_lock *lock = nk_fs_lock_of(fs);
    nk_fs_lock_take(lock);
    int ret = nk_fs_listxattr_unlocked(fs, path, list, size);
    nk_fs_lock_give(lock);
    return ret;
}

int nk_fs_removexattr(struct nk_fs *fs, const char *path, const char *name)
{
    const struct nk_lock *lock = nk_fs_lock_of(fs);
    nk_fs_lock_take(lock);
    int ret = nk_fs_removexattr_unlocked(fs, path, name);
    nk_fs_lock_give(lock);
    return ret;
}

int nk_fs_dir_open(struct nk_fs *fs, struct nk_fs_dir *dir, const char *path)
{
    const struct nk_lock *lock = nk_fs_lock_of(fs);
    nk_fs_lock_take(lock);
    int ret = nk_fs_dir_open_unlocked(fs, dir, path);
    nk_fs_lock_give(lock);
    return ret;
}

int nk_fs_dir_read(struct nk_fs_dir *dir, struct nk_fs_dirent *entry)
{
    const struct nk_lock *lock = nk_fs_lock_of(dir ? dir->fs : NULL);
    nk_fs_lock_take(lock);
    int ret = nk_fs_dir_read_unlocked(dir, entry);
    nk_fs_lock_give(lock);
    return ret;
}

int nk_fs_dir_stat(struct nk_fs_dir *dir, struct nk_fs_stat *st)
{
    const struct nk_lock *lock = nk_fs_lock_of(dir ? dir->fs : NULL);
    nk_fs_lock_take(lock);
    int ret = nk_fs_dir_stat_unlocked(dir, st);
    nk_fs_lock_give(lock);
    return ret;
}

int nk_fs_dir_rewind(struct nk_fs_dir *dir)
{
    const struct nk_lock *lock = nk_fs_lock_of(dir ? dir->fs : NULL);
    nk_fs_lock_take(lock);
    int ret = nk_fs_dir_rewind_unlocked(dir);
    nk_fs_lock_give(lock);
    return ret;
}

int nk_fs_dir_close(struct nk_fs_dir *dir)
{
    const struct nk_lock *lock = nk_fs_lock_of(dir ? dir->fs : NULL);
    nk_fs_lock_take(lock);
    int ret = nk_fs_dir_close_unlocked(dir);
    nk_fs_lock_give(lock);
    return ret;
}
