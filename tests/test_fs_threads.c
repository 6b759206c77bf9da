/* SPDX-License-Identifier: MIT */
/*
 * Threads sharing one mounted file system through the lock hook
 * (config.lock): four threads run seeded random operations — create,
 * write, pwrite, truncate, read back, rename, unlink, mkdir/rmdir, stat,
 * statfs, listing — each in its own directory with its own model, while
 * all of them list and stat the shared root. Afterwards every thread's
 * model matches the tree (before and after a remount), and fsck finds
 * nothing. Built with clang -fsanitize=thread in CI, it shows the lock
 * covers every shared access; a lock that were not taken shows up as a
 * data race there and as a model mismatch or crash here.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs_testdev.h"
#include "testutil.h"

#define THREADS 4
#define SLOTS 8
#define FILE_MAX 9000
#define STEPS 400

struct slot {
    bool used;
    uint32_t size;
    uint8_t data[FILE_MAX];
};

struct worker {
    struct nk_fs *fs;
    int id;
    uint32_t rng;
    struct slot slot[SLOTS];
    bool subdir;
    char failure[200];
};

static pthread_mutex_t fs_mutex = PTHREAD_MUTEX_INITIALIZER;
static unsigned lock_depth; /* every take given back (one taken twice would deadlock) */

static void mutex_lock(void *ctx)
{
    pthread_mutex_lock(ctx);
    lock_depth++;
}

static void mutex_unlock(void *ctx)
{
    lock_depth--;
    pthread_mutex_unlock(ctx);
}

static uint32_t next(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static void slot_path(const struct worker *w, int i, char *out, size_t size)
{
    snprintf(out, size, "/t%d/file-%d", w->id, i);
}

#define CHECK(w, cond, ...)                                                                        \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            snprintf((w)->failure, sizeof(w)->failure, __VA_ARGS__);                               \
            return;                                                                                \
        }                                                                                          \
    } while (0)

static void step(struct worker *w)
{
    struct nk_fs *fs = w->fs;
    char path[64], other[64];
    int i = (int)(next(&w->rng) % SLOTS);
    struct slot *s = &w->slot[i];
    slot_path(w, i, path, sizeof path);
    uint32_t op = next(&w->rng) % 10;
    struct nk_fs_file f;
    int err;
    if (!s->used || op < 3) {
        /* (Re)write the file from the start. */
        uint32_t size = next(&w->rng) % FILE_MAX;
        for (uint32_t k = 0; k < size; k++)
            s->data[k] = (uint8_t)next(&w->rng);
        err = nk_fs_file_open(fs, &f, path, NK_FS_O_WRONLY | NK_FS_O_CREAT | NK_FS_O_TRUNC);
        CHECK(w, err == 0, "open %s for writing: %d", path, err);
        int32_t n = nk_fs_file_write(&f, s->data, size);
        CHECK(w, n == (int32_t)size, "write %s: %d of %u", path, (int)n, size);
        err = nk_fs_file_close(&f);
        CHECK(w, err == 0, "close %s: %d", path, err);
        s->used = true;
        s->size = size;
    } else if (op < 5) {
        uint32_t at = next(&w->rng) % FILE_MAX, len = next(&w->rng) % 700 + 1;
        if (at + len > FILE_MAX)
            len = FILE_MAX - at;
        uint8_t buf[700];
        for (uint32_t k = 0; k < len; k++)
            buf[k] = (uint8_t)next(&w->rng);
        err = nk_fs_file_open(fs, &f, path, NK_FS_O_RDWR);
        CHECK(w, err == 0, "open %s: %d", path, err);
        CHECK(w, nk_fs_file_pwrite(&f, buf, len, at) == (int32_t)len, "pwrite %s", path);
        if (at > s->size)
            memset(s->data + s->size, 0, at - s->size);
        memcpy(s->data + at, buf, len);
        if (at + len > s->size)
            s->size = at + len;
        if (next(&w->rng) % 2)
            CHECK(w, nk_fs_file_fsync(&f) == 0, "fsync %s", path);
        CHECK(w, nk_fs_file_close(&f) == 0, "close %s", path);
    } else if (op == 5) {
        uint32_t size = next(&w->rng) % FILE_MAX;
        err = nk_fs_file_open(fs, &f, path, NK_FS_O_WRONLY);
        CHECK(w, err == 0, "open %s: %d", path, err);
        CHECK(w, nk_fs_file_truncate(&f, size) == 0, "truncate %s", path);
        if (size > s->size)
            memset(s->data + s->size, 0, size - s->size);
        s->size = size;
        CHECK(w, nk_fs_file_close(&f) == 0, "close %s", path);
    } else if (op == 6) {
        /* Rename onto another slot (replacing it when used). */
        int j = (int)(next(&w->rng) % SLOTS);
        if (j == i)
            return;
        slot_path(w, j, other, sizeof other);
        err = nk_fs_rename(fs, path, other);
        CHECK(w, err == 0, "rename %s %s: %d", path, other, err);
        w->slot[j] = *s;
        s->used = false;
    } else if (op == 7) {
        err = nk_fs_unlink(fs, path);
        CHECK(w, err == 0, "unlink %s: %d", path, err);
        s->used = false;
    } else if (op == 8) {
        snprintf(other, sizeof other, "/t%d/sub", w->id);
        err = w->subdir ? nk_fs_rmdir(fs, other) : nk_fs_mkdir(fs, other, 0755);
        CHECK(w, err == 0, "mkdir/rmdir %s: %d", other, err);
        w->subdir = !w->subdir;
    } else {
        /* Read back, and look at what every thread shares. */
        uint8_t *buf = malloc(FILE_MAX + 1);
        err = nk_fs_file_open(fs, &f, path, NK_FS_O_RDONLY);
        CHECK(w, err == 0, "open %s: %d", path, err);
        int32_t n = nk_fs_file_read(&f, buf, FILE_MAX + 1);
        nk_fs_file_close(&f);
        bool same = n == (int32_t)s->size && memcmp(buf, s->data, s->size) == 0;
        free(buf);
        CHECK(w, same, "%s reads back %d bytes, differing from the %u written", path, (int)n,
              s->size);
        struct nk_fs_statfs sf;
        CHECK(w, nk_fs_statfs(fs, &sf) == 0, "statfs");
        struct nk_fs_dir d;
        CHECK(w, nk_fs_dir_open(fs, &d, "/") == 0, "opendir /");
        struct nk_fs_dirent e;
        int dirs = 0;
        while (nk_fs_dir_read(&d, &e) == 1)
            dirs++;
        nk_fs_dir_close(&d);
        CHECK(w, dirs == THREADS + 1, "/ lists %d entries, not %d", dirs, THREADS + 1);
        struct nk_fs_stat st;
        CHECK(w, nk_fs_stat(fs, "/", &st) == 0, "stat /");
    }
}

static void *worker_run(void *arg)
{
    struct worker *w = arg;
    for (int k = 0; k < STEPS && !w->failure[0]; k++)
        step(w);
    return NULL;
}

static void verify(struct worker *w)
{
    char path[64];
    uint8_t *buf = malloc(FILE_MAX + 1);
    for (int i = 0; i < SLOTS; i++) {
        slot_path(w, i, path, sizeof path);
        struct nk_fs_stat st;
        int err = nk_fs_stat(w->fs, path, &st);
        if (!w->slot[i].used) {
            if (err != -NK_ENOENT)
                fail_msg("%s exists (%d) but the model removed it", path, err);
            continue;
        }
        if (err)
            fail_msg("%s: %d", path, err);
        struct nk_fs_file f;
        assert_int_equal(nk_fs_file_open(w->fs, &f, path, NK_FS_O_RDONLY), 0);
        int32_t n = nk_fs_file_read(&f, buf, FILE_MAX + 1);
        assert_int_equal(nk_fs_file_close(&f), 0);
        if (n != (int32_t)w->slot[i].size || memcmp(buf, w->slot[i].data, w->slot[i].size))
            fail_msg("%s: %d bytes differ from the model's %u", path, (int)n, w->slot[i].size);
    }
    free(buf);
}

static void test_threads_share_one_mount_through_the_lock(void **state)
{
    (void)state;
    struct nk_fs_testdev t;
    struct nk_diag why[1] = {{""}};
    if (nk_fs_testdev_open(&t, 2048, 64, 64, 256, NK_FS_LAYOUT_LINUX, NULL, why))
        fail_msg("device: %s", why->text);
    struct nk_fs_config config = nk_fs_testdev_config(&t);
    config.read_only = false;
    assert_int_equal(nk_fs_format(&config, NK_FS_LAYOUT_LINUX), 0);
    config.lock = (struct nk_lock){mutex_lock, mutex_unlock, &fs_mutex};
    struct nk_fs *fs = calloc(1, sizeof *fs);
    assert_int_equal(nk_fs_mount(fs, &config), 0);
    struct worker *w = calloc(THREADS, sizeof *w);
    for (int i = 0; i < THREADS; i++) {
        char dir[16];
        snprintf(dir, sizeof dir, "/t%d", i);
        assert_int_equal(nk_fs_mkdir(fs, dir, 0755), 0);
        w[i].fs = fs;
        w[i].id = i;
        w[i].rng = 0x9e3779b9u * (uint32_t)(i + 1);
    }
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&th[i], NULL, worker_run, &w[i]), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < THREADS; i++)
        if (w[i].failure[0])
            fail_msg("thread %d: %s", i, w[i].failure);
    assert_int_equal(lock_depth, 0);
    for (int i = 0; i < THREADS; i++)
        verify(&w[i]);
    assert_int_equal(nk_fs_unmount(fs), 0);
    assert_int_equal(nk_fs_mount(fs, &config), 0);
    for (int i = 0; i < THREADS; i++)
        verify(&w[i]);
    struct nk_fs_check_result check;
    assert_int_equal(nk_fs_check(fs, &check), 0);
    assert_int_equal(check.problem_total, 0);
    assert_int_equal(nk_fs_unmount(fs), 0);
    free(w);
    free(fs);
    nk_fs_testdev_close(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_share_one_mount_through_the_lock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
