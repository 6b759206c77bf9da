/* SPDX-License-Identifier: MIT */
/*
 * Paths longer than any fixed buffer: an image whose deepest directory path
 * is 8190 bytes (40 directories of 200-byte names, one of 149) holding a
 * file of a 100-byte name (8291 bytes) is built with the file-system
 * builder, and `nandkit ls -R` lists each of its 42 entries (and
 * lost+found) once, by its whole path; `nandkit cat` of the deepest file
 * returns its contents. A path cut short would name the directory above it
 * again and never end.
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fs_testdev.h"
#include "testutil.h"

#define DEPTH 41 /* directories */
#define DIR_NAME 200
#define LAST_DIR_NAME 149
#define FILE_NAME 100

static char image_path[256];

static void name_of(char *out, unsigned level)
{
    unsigned len = level < DEPTH - 1 ? DIR_NAME : level == DEPTH - 1 ? LAST_DIR_NAME : FILE_NAME;
    memset(out, 'a' + (int)(level % 26), len);
    out[len] = '\0';
}

static void build_deep_image(void)
{
    struct nk_fs_testdev d;
    memset(&d, 0, sizeof d);
    d.layout = NK_FS_LAYOUT_LINUX;
    struct nk_diag why[1] = {{""}};
    assert_int_equal(nk_sim_params_geometry(&d.params, 2048, 64, 64, 64, why), 0);
    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.params = &d.params;
    config.image_path = image_path;
    config.create = true;
    config.no_sidecar = true;
    config.seed = 1;
    assert_int_equal(nk_sim_open(&d.sim, &config, why), 0);
    assert_int_equal(nk_fs_testdev_attach(&d, why), 0);
    size_t ws_size = nk_fs_build_workspace_size(&d.part);
    void *ws = malloc(ws_size);
    struct nk_fs_builder builder;
    struct nk_fs_build_config build;
    memset(&build, 0, sizeof build);
    build.part = &d.part;
    build.layout = NK_FS_LAYOUT_LINUX;
    assert_int_equal(nk_fs_build_begin(&builder, &build, ws, ws_size), 0);
    uint32_t parent = NK_FS_OBJ_ROOT;
    char name[256];
    for (unsigned level = 0; level <= DEPTH; level++) {
        name_of(name, level);
        struct nk_fs_build_entry e;
        memset(&e, 0, sizeof e);
        e.type = level < DEPTH ? NK_FS_TYPE_DIR : NK_FS_TYPE_FILE;
        e.parent_id = parent;
        e.name = name;
        e.name_len = strlen(name);
        e.attr.mode = level < DEPTH ? 0755 : 0644;
        uint32_t id;
        assert_int_equal(nk_fs_build_object(&builder, &e, &id), 0);
        if (level == DEPTH) {
            assert_int_equal(nk_fs_build_data(&builder, "deep\n", 5), 0);
            assert_int_equal(nk_fs_build_file_end(&builder), 0);
        }
        parent = id;
    }
    assert_int_equal(nk_fs_build_finish(&builder, NULL), 0);
    free(ws);
    assert_int_equal(nk_sim_close(d.sim), 0);
    d.sim = NULL;
    free(d.workspace);
}

/* Runs `command`, keeping at most `cap` bytes of its output. Returns the
 * exit status, or -1 when it wrote more than `cap` (it is then stopped by
 * SIGPIPE when the pipe closes). */
static int run(const char *command, char *out, size_t cap)
{
    FILE *p = popen(command, "r");
    assert_non_null(p);
    size_t len = 0;
    size_t n;
    while (len < cap && (n = fread(out + len, 1, cap - len, p)) > 0)
        len += n;
    bool overflow = len == cap && fgetc(p) != EOF;
    int status = pclose(p);
    out[len < cap ? len : cap - 1] = '\0';
    if (overflow)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_ls_lists_every_entry_of_an_8190_byte_path_once(void **state)
{
    (void)state;
    snprintf(image_path, sizeof image_path, "%s/test_tools_deep_paths_%d.img", NK_BINARY_DIR,
             (int)getpid());
    build_deep_image();
    static char expected[DEPTH * (DIR_NAME + 1) + FILE_NAME + 2];
    size_t dir_len = 0;
    size_t len = 0;
    char name[256];
    for (unsigned level = 0; level <= DEPTH; level++) {
        name_of(name, level);
        len += (size_t)snprintf(expected + len, sizeof expected - len, "/%s", name);
        if (level == DEPTH - 1)
            dir_len = len;
    }
    assert_int_equal(dir_len, 8190);
    assert_int_equal(len, 8291);

    char command[1024];
    static char out[1 << 20];
    snprintf(command, sizeof command, "'%s' ls -R '%s' --geometry 2048,64,64 2>&1",
             NK_NANDKIT_BINARY, image_path);
    int status = run(command, out, sizeof out);
    assert_int_equal(status, 0);
    unsigned lines = 0;
    for (const char *p = out; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, DEPTH + 2); /* the file and /lost+found too */
    assert_non_null(strstr(out, expected));

    snprintf(command, sizeof command, "'%s' cat '%s' --geometry 2048,64,64 \"$(cat '%s.path')\"",
             NK_NANDKIT_BINARY, image_path, image_path);
    char path_file[300];
    snprintf(path_file, sizeof path_file, "%s.path", image_path);
    FILE *f = fopen(path_file, "w");
    assert_non_null(f);
    fputs(expected, f);
    fclose(f);
    status = run(command, out, sizeof out);
    assert_int_equal(status, 0);
    assert_string_equal(out, "deep\n");
    unlink(path_file);
    unlink(image_path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ls_lists_every_entry_of_an_8190_byte_path_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
