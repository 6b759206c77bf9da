/* SPDX-License-Identifier: MIT */
/* The nandkit command: dispatches to one subcommand per file. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
                 "  -h, --help              this list\n"
                 "  -V, --version           the version\n");
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

bool nk_tool_is_help(const char *arg)
{
    return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
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
    for (size_t i = 0; i < NK_COMMAND_COUNT; i++) {
        const struct nk_tool_command *cmd = nk_commands[i];
        if (strcmp(argv[1], cmd->name) != 0)
            continue;
        for (int a = 2; a < argc; a++) {
            if (strcmp(argv[a], "--") == 0)
                break;
            if (nk_tool_is_help(argv[a])) {
                cmd->help(stdout);
                return 0;
            }
        }
        return cmd->run(argc - 1, argv + 1);
    }
    return nk_tool_fail("unknown command '%s' (run `nandkit --help` for the list)", argv[1]);
}
