/* SPDX-License-Identifier: MIT */
/*
 * Every YAFFS2 reference image in fixtures/yaffs2, mounted through the real
 * device layer on the simulator (K9F1G08U0A timing), with and without
 * block summaries, checked against its manifest: every path, type, object
 * id, size, mode, uid, gid, times, link count, symlink target, hard-link
 * group and file SHA-256, and nothing more. Also: the mount's view of the
 * blocks (bad, checkpoint, highest sequence number), a clean structure
 * check, RAM released at unmount, and the figures of the closing note
 * (pages and OOB areas read, virtual mount time, RAM held).
 */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs_testdev.h"
#include "nk_sha256.h"
#include "testutil.h"

#define FIXTURE_DIR NK_FIXTURES_DIR "/yaffs2"

static cJSON *read_json(const char *path)
{
    uint8_t *text = nk_test_read_file(path, NULL);
    cJSON *json = cJSON_Parse((const char *)text);
    free(text);
    assert_non_null(json);
    return json;
}

static const cJSON *field(const cJSON *obj, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!item)
        fail_msg("manifest field '%s' missing", key);
    return item;
}

static uint64_t number(const cJSON *obj, const char *key)
{
    return (uint64_t)field(obj, key)->valuedouble;
}

/* Decompresses NAME.img.xz into the build tree once; checks its SHA-256. */
static char *decompressed_image(const cJSON *manifest, const char *name)
{
    static char path[4096];
    char dir[2048];
    snprintf(dir, sizeof dir, "%s/fixtures", NK_BINARY_DIR);
    mkdir(dir, 0755);
    snprintf(dir, sizeof dir, "%s/fixtures/yaffs2", NK_BINARY_DIR);
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/%s.img", dir, name);
    uint64_t want_size = number(manifest, "image_uncompressed_bytes");
    struct stat st;
    if (stat(path, &st) != 0 || (uint64_t)st.st_size != want_size) {
        /* Each process writes its own temporary file and renames it into
         * place: the fixture tests run in parallel and may both get here. */
        char cmd[16384];
        int pid = (int)getpid();
        snprintf(cmd, sizeof cmd, "xz -dc '%s/%s.img.xz' > '%s.%d.tmp' && mv '%s.%d.tmp' '%s'",
                 FIXTURE_DIR, name, path, pid, path, pid, path);
        assert_int_equal(system(cmd), 0);
    }
    size_t size;
    uint8_t *data = nk_test_read_file(path, &size);
    assert_int_equal(size, want_size);
    char hex[65];
    nk_sha256_hex(data, size, hex);
    free(data);
    assert_string_equal(hex, field(manifest, "image_sha256")->valuestring);
    return path;
}

struct walk {
    struct nk_fs *fs;
    const cJSON *tree;
    bool *seen;
    unsigned entries;
    unsigned files_hashed;
};

static int tree_index(const struct walk *w, const char *path)
{
    int i = 0;
    const cJSON *entry;
    cJSON_ArrayForEach(entry, w->tree)
    {
        if (strcmp(field(entry, "path")->valuestring, path) == 0)
            return i;
        i++;
    }
    return -1;
}

static const char *type_name(uint8_t type)
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

static void check_time(const cJSON *entry, const char *key, uint64_t got, const char *path)
{
    const cJSON *want = field(entry, key);
    if (cJSON_IsNull(want))
        return;
    if ((uint64_t)want->valuedouble != got)
        fail_msg("%s: %s %llu, manifest %.0f", path, key, (unsigned long long)got,
                 want->valuedouble);
}

static void check_content(struct walk *w, const char *path, const cJSON *entry, uint64_t size)
{
    struct nk_fs_file file;
    assert_int_equal(nk_fs_file_open(w->fs, &file, path, NK_FS_O_RDONLY), 0);
    uint8_t *data = malloc(size + 1);
    assert_non_null(data);
    uint64_t done = 0;
    int32_t n;
    /* Odd-sized reads so that chunk boundaries fall inside them. */
    while ((n = nk_fs_file_read(&file, data + done,
                                done + 70001 <= size ? 70001 : size - done + 1)) > 0)
        done += (uint64_t)n;
    assert_int_equal(n, 0);
    assert_int_equal(done, size);
    char hex[65];
    nk_sha256_hex(data, size, hex);
    if (strcmp(hex, field(entry, "sha256")->valuestring) != 0)
        fail_msg("%s: sha256 %s, manifest %s", path, hex, field(entry, "sha256")->valuestring);
    /* pread from the middle agrees with the sequential read. */
    if (size > 5000) {
        uint8_t piece[3000];
        assert_int_equal(nk_fs_file_pread(&file, piece, sizeof piece, size / 2 - 1234),
                         (int32_t)sizeof piece);
        assert_memory_equal(piece, data + size / 2 - 1234, sizeof piece);
        assert_int_equal(nk_fs_file_seek(&file, -10, NK_FS_SEEK_END), (int64_t)size - 10);
        assert_int_equal(nk_fs_file_read(&file, piece, sizeof piece), 10);
        assert_memory_equal(piece, data + size - 10, 10);
    }
    free(data);
    assert_int_equal(nk_fs_file_close(&file), 0);
    w->files_hashed++;
}

static void check_entry(struct walk *w, const char *path)
{
    int index = tree_index(w, path);
    if (index < 0)
        fail_msg("%s: found on the image, not in the manifest", path);
    if (w->seen[index])
        fail_msg("%s: listed twice", path);
    w->seen[index] = true;
    w->entries++;
    const cJSON *entry = cJSON_GetArrayItem(w->tree, index);

    struct nk_fs_stat st;
    int err = nk_fs_lstat(w->fs, path, &st);
    if (err)
        fail_msg("%s: lstat %d", path, err);
    const char *want_type = field(entry, "type")->valuestring;
    if (strcmp(type_name(st.type), want_type) != 0)
        fail_msg("%s: type %s, manifest %s", path, type_name(st.type), want_type);
    assert_int_equal(st.obj_id, number(entry, "obj_id"));
    unsigned long want_mode = strtoul(field(entry, "mode")->valuestring, NULL, 8);
    if (st.mode != want_mode)
        fail_msg("%s: mode 0%o, manifest 0%lo", path, st.mode, want_mode);
    assert_int_equal(st.uid, number(entry, "uid"));
    assert_int_equal(st.gid, number(entry, "gid"));
    assert_int_equal(st.nlink, number(entry, "nlink"));
    check_time(entry, "mtime", st.mtime, path);
    check_time(entry, "atime", st.atime, path);
    check_time(entry, "ctime", st.ctime, path);
    const cJSON *size = field(entry, "size");
    if (!cJSON_IsNull(size) && (uint64_t)size->valuedouble != st.size)
        fail_msg("%s: size %llu, manifest %.0f", path, (unsigned long long)st.size,
                 size->valuedouble);
    if (st.type == NK_FS_TYPE_SYMLINK) {
        char target[NK_FS_ALIAS_MAX + 1];
        const char *want = field(entry, "link_target")->valuestring;
        assert_int_equal(nk_fs_readlink(w->fs, path, target, sizeof target), (int)strlen(want));
        assert_string_equal(target, want);
    }
    if (st.type == NK_FS_TYPE_HARDLINK) {
        assert_int_equal(st.ino, number(entry, "equiv_obj_id"));
        struct nk_fs_stat target;
        assert_int_equal(nk_fs_stat(w->fs, field(entry, "hardlink_target")->valuestring, &target),
                         0);
        assert_int_equal(target.ino, st.ino);
    }
    if (st.type == NK_FS_TYPE_FILE || st.type == NK_FS_TYPE_HARDLINK)
        check_content(w, path, entry, st.size);
}

static void walk_dir(struct walk *w, const char *path)
{
    struct nk_fs_dir dir;
    assert_int_equal(nk_fs_dir_open(w->fs, &dir, path), 0);
    struct nk_fs_dirent entry;
    int r;
    char **names = NULL;
    size_t count = 0;
    while ((r = nk_fs_dir_read(&dir, &entry)) > 0) {
        names = realloc(names, (count + 1) * sizeof *names);
        names[count++] = strdup(entry.name);
    }
    assert_int_equal(r, 0);
    assert_int_equal(nk_fs_dir_close(&dir), 0);
    for (size_t i = 0; i < count; i++) {
        char child[4096];
        snprintf(child, sizeof child, "%s/%s", strcmp(path, "/") ? path : "", names[i]);
        check_entry(w, child);
        struct nk_fs_stat st;
        if (nk_fs_lstat(w->fs, child, &st) == 0 && st.type == NK_FS_TYPE_DIR)
            walk_dir(w, child);
        free(names[i]);
    }
    free(names);
}

static void check_hardlink_groups(struct walk *w, const cJSON *manifest)
{
    const cJSON *group;
    cJSON_ArrayForEach(group, field(manifest, "hardlink_groups"))
    {
        struct nk_fs_stat st;
        assert_int_equal(nk_fs_stat(w->fs, field(group, "target")->valuestring, &st), 0);
        assert_int_equal(st.ino, number(group, "target_obj_id"));
        assert_int_equal(st.nlink, number(group, "nlink"));
        const cJSON *link;
        cJSON_ArrayForEach(link, field(group, "links"))
        {
            assert_int_equal(nk_fs_lstat(w->fs, link->valuestring, &st), 0);
            assert_int_equal(st.type, NK_FS_TYPE_HARDLINK);
            assert_int_equal(st.ino, number(group, "target_obj_id"));
        }
    }
}

static void check_image(const char *name, bool summaries)
{
    char manifest_path[4096];
    snprintf(manifest_path, sizeof manifest_path, "%s/%s.img.json", FIXTURE_DIR, name);
    cJSON *manifest = read_json(manifest_path);
    const char *image = decompressed_image(manifest, name);
    const cJSON *geometry = field(manifest, "geometry");
    uint32_t blocks = (uint32_t)number(geometry, "block_count");
    /* An image without its trailing erased blocks mounts on a larger device
     * whose missing blocks read as erased (the manifest's 31 blocks). */
    if (cJSON_IsTrue(field(geometry, "trailing_erased_blocks_truncated")))
        blocks = 2 * blocks + 1;
    enum nk_fs_layout layout;
    assert_int_equal(
        nk_fs_layout_parse(field(field(manifest, "layout"), "name")->valuestring, &layout), 0);

    struct nk_fs_testdev dev;
    struct nk_diag why[1] = {{""}};
    int err = nk_fs_testdev_open(
        &dev, (uint32_t)number(geometry, "page_size"), (uint32_t)number(geometry, "oob_size"),
        (uint32_t)number(geometry, "pages_per_block"), blocks, layout, image, why);
    if (err)
        fail_msg("%s: device: %s", name, why->text);

    struct nk_fs_config config = nk_fs_testdev_config(&dev);
    config.no_summaries = !summaries;
    struct nk_fs fs;
    struct nk_nand_stats before, after;
    nk_nand_stats_get(&dev.nand, &before);
    uint64_t t0 = nk_sim_time_ns(dev.sim);
    err = nk_fs_mount(&fs, &config);
    if (err)
        fail_msg("%s: mount %d: %s", name, err, fs.diag.text);
    uint64_t t1 = nk_sim_time_ns(dev.sim);
    nk_nand_stats_get(&dev.nand, &after);
    size_t ram, peak;
    nk_fs_ram_usage(&fs, &ram, &peak);
    printf("  %-16s %-9s mount: %5llu page reads, %5llu OOB reads, %8.2f ms virtual; "
           "RAM %zu bytes (peak %zu); %u objects\n",
           name, summaries ? "summaries" : "full scan",
           (unsigned long long)(after.page_reads - before.page_reads),
           (unsigned long long)(after.oob_reads - before.oob_reads), (double)(t1 - t0) / 1e6, ram,
           peak, fs.stats.objects);

    /* The mount's view of the blocks matches the manifest's. */
    assert_int_equal(fs.stats.blocks_bad, cJSON_GetArraySize(field(manifest, "bad_blocks")));
    const cJSON *checkpoint = field(manifest, "checkpoint");
    assert_int_equal(fs.stats.blocks_checkpoint, cJSON_GetArraySize(field(checkpoint, "blocks")));
    assert_int_equal(fs.stats.highest_seq, number(field(manifest, "sequence_numbers"), "max"));
    assert_int_equal(fs.stats.objects + 2, number(manifest, "object_count"));
    if (summaries && layout != NK_FS_LAYOUT_MKYAFFS2)
        assert_true(fs.stats.blocks_from_summary > 0);
    if (!summaries)
        assert_int_equal(fs.stats.blocks_from_summary, 0);
    assert_int_equal(fs.stats.tags_uncorrectable + fs.stats.tags_invalid + fs.stats.torn_chunks, 0);
    /* The RAM model's promise for images of this size. */
    assert_true(ram < 48 * 1024);

    struct walk w = {.fs = &fs, .tree = field(manifest, "tree")};
    w.seen = calloc((size_t)cJSON_GetArraySize(w.tree), sizeof *w.seen);
    struct nk_fs_stat root;
    assert_int_equal(nk_fs_stat(&fs, "/", &root), 0);
    const cJSON *root_entry = cJSON_GetArrayItem(w.tree, tree_index(&w, "/"));
    assert_int_equal(root.mode, strtoul(field(root_entry, "mode")->valuestring, NULL, 8));
    w.seen[tree_index(&w, "/")] = true;
    walk_dir(&w, "/");
    for (int i = 0; i < cJSON_GetArraySize(w.tree); i++) {
        if (!w.seen[i])
            fail_msg("%s: %s is in the manifest but not on the image", name,
                     field(cJSON_GetArrayItem(w.tree, i), "path")->valuestring);
    }
    assert_int_equal(w.entries + 1, (unsigned)cJSON_GetArraySize(w.tree));
    check_hardlink_groups(&w, manifest);

    struct nk_fs_check_result check;
    assert_int_equal(nk_fs_check(&fs, &check), 0);
    assert_int_equal(check.problem_total, 0);
    assert_int_equal(check.chunks_corrected, 0);
    assert_int_equal(fs.ecc_failed_reads, 0);

    assert_int_equal(nk_fs_unmount(&fs), 0);
    nk_fs_ram_usage(&fs, &ram, NULL);
    assert_int_equal(ram, 0);
    free(w.seen);
    nk_fs_testdev_close(&dev);
    cJSON_Delete(manifest);
}

/* Every *.img.json in the fixture directory. */
static char **fixture_names(void)
{
    DIR *dir = opendir(FIXTURE_DIR);
    assert_non_null(dir);
    char **names = calloc(64, sizeof *names);
    size_t count = 0;
    struct dirent *e;
    while ((e = readdir(dir)) && count < 63) {
        size_t len = strlen(e->d_name);
        if (len > 9 && strcmp(e->d_name + len - 9, ".img.json") == 0)
            names[count++] = strndup(e->d_name, len - 9);
    }
    closedir(dir);
    assert_true(count >= 5);
    return names;
}

static void test_every_fixture_matches_its_manifest(void **state)
{
    (void)state;
    char **names = fixture_names();
    for (char **name = names; *name; name++) {
        check_image(*name, true);
        check_image(*name, false);
        free(*name);
    }
    free(names);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_fixture_matches_its_manifest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
