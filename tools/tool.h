/* SPDX-License-Identifier: MIT */
/*
 * Shared plumbing of the nandkit command: the subcommand table, error
 * reporting, and option parsing helpers every subcommand uses.
 */
#ifndef NK_TOOL_H
#define NK_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct nk_tool_command {
    const char *name;
    const char *summary;               /* one line for `nandkit --help` */
    int (*run)(int argc, char **argv); /* argv[0] is the subcommand name */
    void (*help)(FILE *out);           /* full usage for `nandkit CMD --help` */
};

/* Every subcommand, defined in its own tools/cmd_*.c file. */
extern const struct nk_tool_command nk_cmd_info;
extern const struct nk_tool_command nk_cmd_sim;
extern const struct nk_tool_command nk_cmd_dump;
extern const struct nk_tool_command nk_cmd_badblocks;
extern const struct nk_tool_command nk_cmd_ecc;
extern const struct nk_tool_command nk_cmd_bench;
extern const struct nk_tool_command nk_cmd_ls;
extern const struct nk_tool_command nk_cmd_cat;
extern const struct nk_tool_command nk_cmd_extract;
extern const struct nk_tool_command nk_cmd_fsck;
extern const struct nk_tool_command nk_cmd_mkimage;
extern const struct nk_tool_command nk_cmd_read;
extern const struct nk_tool_command nk_cmd_write;
extern const struct nk_tool_command nk_cmd_erase;
extern const struct nk_tool_command nk_cmd_torture;
extern const struct nk_tool_command nk_cmd_put;
extern const struct nk_tool_command nk_cmd_rm;
extern const struct nk_tool_command nk_cmd_mkdir;
extern const struct nk_tool_command nk_cmd_mv;
extern const struct nk_tool_command nk_cmd_chmod;
extern const struct nk_tool_command nk_cmd_mount;

struct nk_tool_image_opts;

/* `nandkit bench --fs` (tools/cmd_bench_fs.c): the file-system benchmark on
 * the simulated --chip; `small` reduces the sizes. Returns the exit status. */
int nk_tool_bench_fs(const struct nk_tool_image_opts *opts, bool small, bool json, const char *svg,
                     bool progress);

/* Prints "nandkit: MESSAGE" on stderr and returns exit status 2 (bad input)
 * so callers can `return nk_tool_fail(...)`. */
int nk_tool_fail(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* Prints "nandkit: MESSAGE" on stderr and returns 1 (operation failed). */
int nk_tool_error(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* True when `arg` is -h or --help. */
bool nk_tool_is_help(const char *arg);

/* Writes nandkit.1 and nandkit-COMMAND.1 into `dir`, made from `usage` and
 * every command's help text (tools/manpage.c). Returns 0 or an exit status. */
int nk_tool_write_man_pages(const char *dir, const struct nk_tool_command *const *commands,
                            size_t count, void (*usage)(FILE *out));

/* Parses an unsigned decimal/hex (0x) number. Returns false on junk. */
bool nk_tool_parse_u64(const char *text, uint64_t *value);

#endif
