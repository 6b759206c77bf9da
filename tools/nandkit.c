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

static const struct tool_command *const tool_commands[] = {
    &tool_cmd_bench,   &tool_cmd_info, &tool_cmd_sim,   &tool_cmd_dump,    &tool_cmd_badblocks,
    &tool_cmd_ecc,     &tool_cmd_ls,   &tool_cmd_cat,   &tool_cmd_extract, &tool_cmd_fsck,
    &tool_cmd_mkimage, &tool_cmd_read, &tool_cmd_write, &tool_cmd_erase,   &tool_cmd_torture,
    &tool_cmd_put,     &tool_cmd_rm,   &tool_cmd_mkdir, &tool_cmd_mv,      &tool_cmd_chmod,
    &tool_cmd_mount,
};

#define TOOL_COMMAND_COUNT (sizeof tool_commands / sizeof tool_commands[0])

static void tool_usage(FILE *out)
{
    fprintf(out, "usage: nandkit COMMAND [OPTIONS] [ARGS]\n\n"
                 "NAND flash tools: simulator, identification, ECC, benchmarks, YAFFS2 images.\n\n"
                 "Commands:\n");
    for (size_t i = 0; i < TOOL_COMMAND_COUNT; i++)
        fprintf(out, "  %-10s %s\n", tool_commands[i]->name, tool_commands[i]->summary);
    fprintf(out, "\nRun `nandkit COMMAND --help` for a command's options; each also has a manual\n"
                 "page, nandkit-COMMAND(1), made from the same text.\n\n"
                 "Options:\n"
                 "  -h, --help              this list (`nandkit help COMMAND`: one command's)\n"
                 "  -V, --version           the version\n");
}

static const struct tool_command *tool_find(const char *name)
{
    for (size_t i = 0; i < TOOL_COMMAND_COUNT; i++)
        if (strcmp(name, tool_commands[i]->name) == 0)
            return tool_commands[i];
    return NULL;
}

/* `nandkit CMD --help` and `nandkit help CMD`: the command's text, then the
 * exit status every command shares. */
static int tool_help(const struct tool_command *cmd)
{
    cmd->help(stdout);
    fputs("\n" TOOL_EXIT_HELP, stdout);
    return 0;
}

/* One line on stderr; returns `status`. */
static int tool_report(int status, const char *format, va_list args)
{
    fputs("nandkit: ", stderr);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    return status;
}

int tool_fail(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int status = tool_report(2, format, args);
    va_end(args);
    return status;
}

int tool_error(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int status = tool_report(1, format, args);
    va_end(args);
    return status;
}

int tool_not_found(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int status = tool_report(TOOL_EXIT_NOT_FOUND, format, args);
    va_end(args);
    return status;
}

bool tool_is_user_error(int err)
{
    return err == -NK_ENOENT || err == -NK_EEXIST || err == -NK_ENOTDIR || err == -NK_EISDIR ||
           err == -NK_ENOTEMPTY || err == -NK_EINVAL || err == -NK_ENAMETOOLONG ||
           err == -NK_EBUSY || err == -NK_EPERM || err == -NK_ELOOP;
}

int tool_fail_err(int err, bool user_error, const char *format, ...)
{
    int status = err == -NK_ENOENT ? TOOL_EXIT_NOT_FOUND
                 : user_error      ? TOOL_EXIT_USAGE
                                   : TOOL_EXIT_FAILED;
    va_list args;
    va_start(args, format);
    tool_report(status, format, args);
    va_end(args);
    return status;
}

bool tool_is_help(const char *arg)
{
    return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

void tool_print_objects(uint32_t objects, uint32_t files, uint32_t dirs, uint32_t symlinks,
                        uint32_t hardlinks, uint32_t specials)
{
    printf("objects: %u (%u %s, %u %s, %u %s, %u %s, %u special)", objects, files,
           tool_plural(files, "file", "files"), dirs, tool_plural(dirs, "directory", "directories"),
           symlinks, tool_plural(symlinks, "symlink", "symlinks"), hardlinks,
           tool_plural(hardlinks, "hard link", "hard links"), specials);
}

bool tool_parse_u64(const char *text, uint64_t *value)
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
        tool_usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "help") == 0 && argc > 2) {
        const struct tool_command *cmd = tool_find(argv[2]);
        if (!cmd)
            return tool_fail("help: unknown command '%s' (run `nandkit --help` for the list)",
                             argv[2]);
        return tool_help(cmd);
    }
    if (tool_is_help(argv[1]) || strcmp(argv[1], "help") == 0) {
        tool_usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
        printf("nandkit %s\n", NANDKIT_VERSION);
        return 0;
    }
    if (strcmp(argv[1], "--man-dir") == 0) {
        if (argc != 3)
            return tool_fail("--man-dir needs a directory");
        return tool_write_man_pages(argv[2], tool_commands, TOOL_COMMAND_COUNT, tool_usage);
    }
    const struct tool_command *cmd = tool_find(argv[1]);
    if (cmd) {
        for (int a = 2; a < argc; a++) {
            if (strcmp(argv[a], "--") == 0)
                break;
            if (tool_is_help(argv[a]))
                return tool_help(cmd);
        }
        return cmd->run(argc - 1, argv + 1);
    }
    return tool_fail("unknown command '%s' (run `nandkit --help` for the list)", argv[1]);
}
