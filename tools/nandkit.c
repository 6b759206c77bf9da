/* SPDX-License-Identifier: MIT */
/* The nandkit command: dispatches to one subcommand per file. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nandkit/error.h"
#include "nandkit/version.h"
#include "tool.h"

static const struct nk_tool_command *const nk_commands[] = {
    &nk_cmd_bench, &nk_cmd_info,  &nk_cmd_sim,     &nk_cmd_dump, &nk_cmd_badblocks, &nk_cmd_ecc,
    &nk_cmd_ls,    &nk_cmd_cat,   &nk_cmd_extract, &nk_cmd_fsck, &nk_cmd_mkimage,   &nk_cmd_read,
    &nk_cmd_write, &nk_cmd_erase, &nk_cmd_torture, &nk_cmd_put,  &nk_cmd_rm,        &nk_cmd_mkdir,
    &nk_cmd_mv,    &nk_cmd_chmod, &nk_cmd_mount,
};

#define NK_COMMAND_COUNT (sizeof nk_commands / sizeof nk_commands[0])

static void nk_usage(FILE *out)
{
    fprintf(out, "usage: nandkit COMMAND [OPTIONS] [ARGS]\n\n"
                 "NAND flash tools: simulator, identification, ECC, benchmarks, YAFFS2 images.\n\n"
                 "Commands:\n");
    for (size_t i = 0; i < NK_COMMAND_COUNT; i++)
        fprintf(out, "  %-10s %s\n", nk_commands[i]->name, nk_commands[i]->summary);
    fprintf(out, "\nRun `nandkit COMMAND --help` for a command's options; each also has a manual\n"
                 "page, nandkit-COMMAND(1), made from the same text.\n\n"
                 "Options:\n"
                 "  -h, --help              this list (`nandkit help COMMAND`: one command's)\n"
                 "  -V, --version           the version\n");
}

static const struct nk_tool_command *nk_find(const char *name)
{
    for (size_t i = 0; i < NK_COMMAND_COUNT; i++)
        if (strcmp(name, nk_commands[i]->name) == 0)
            return nk_commands[i];
    return NULL;
}

/* `nandkit CMD --help` and `nandkit help CMD`: the command's text, then the
 * exit status every command shares. */
static int nk_help(const struct nk_tool_command *cmd)
{
    cmd->help(stdout);
    fputs("\n" NK_TOOL_EXIT_HELP, stdout);
    return 0;
}

/* One line on stderr; returns `status`. */
static int nk_tool_report(int status, const char *format, va_list args)
{
    fputs("nandkit: ", stderr);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    return status;
}

int nk_tool_fail(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int status = nk_tool_report(2, format, args);
    va_end(args);
    return status;
}

int nk_tool_error(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int status = nk_tool_report(1, format, args);
    va_end(args);
    return status;
}

int nk_tool_not_found(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int status = nk_tool_report(NK_EXIT_NOT_FOUND, format, args);
    va_end(args);
    return status;
}

bool nk_tool_is_user_error(int err)
{
    return err == -NK_ENOENT || err == -NK_EEXIST || err == -NK_ENOTDIR || err == -NK_EISDIR ||
           err == -NK_ENOTEMPTY || err == -NK_EINVAL || err == -NK_ENAMETOOLONG ||
           err == -NK_EBUSY || err == -NK_EPERM || err == -NK_ELOOP;
}

int nk_tool_fail_err(int err, bool user_error, const char *format, ...)
{
    int status = err == -NK_ENOENT ? NK_EXIT_NOT_FOUND
                 : user_error      ? NK_EXIT_USAGE
                                   : NK_EXIT_FAILED;
    va_list args;
    va_start(args, format);
    nk_tool_report(status, format, args);
    va_end(args);
    return status;
}

bool nk_tool_is_help(const char *arg)
{
    return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

void nk_tool_print_objects(uint32_t objects, uint32_t files, uint32_t dirs, uint32_t symlinks,
                           uint32_t hardlinks, uint32_t specials)
{
    printf("objects: %u (%u %s, %u %s, %u %s, %u %s, %u special)", objects, files,
           nk_tool_plural(files, "file", "files"), dirs,
           nk_tool_plural(dirs, "directory", "directories"), symlinks,
           nk_tool_plural(symlinks, "symlink", "symlinks"), hardlinks,
           nk_tool_plural(hardlinks, "hard link", "hard links"), specials);
}

bool nk_tool_parse_u64(const char *text, uint64_t *value)
{
    if (!text || !*text || *text == '-')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 0);
    if (*end || errno == ERANGE) /* too large: refused, not saturated */
        return false;
    *value = v;
    return true;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        nk_usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "help") == 0 && argc > 2) {
        const struct nk_tool_command *cmd = nk_find(argv[2]);
        if (!cmd)
            return nk_tool_fail("help: unknown command '%s' (run `nandkit --help` for the list)",
                                argv[2]);
        return nk_help(cmd);
    }
    if (nk_tool_is_help(argv[1]) || strcmp(argv[1], "help") == 0) {
        nk_usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
        printf("nandkit %s\n", NANDKIT_VERSION);
        return 0;
    }
    if (strcmp(argv[1], "--man-dir") == 0) {
        if (argc != 3)
            return nk_tool_fail("--man-dir needs a directory");
        return nk_tool_write_man_pages(argv[2], nk_commands, NK_COMMAND_COUNT, nk_usage);
    }
    const struct nk_tool_command *cmd = nk_find(argv[1]);
    if (cmd) {
        for (int a = 2; a < argc; a++) {
            if (strcmp(argv[a], "--") == 0)
                break;
            if (nk_tool_is_help(argv[a]))
                return nk_help(cmd);
        }
        return cmd->run(argc - 1, argv + 1);
    }
    return nk_tool_fail("unknown command '%s' (run `nandkit --help` for the list)", argv[1]);
}
