/* SPDX-License-Identifier: MIT */
/*
 * Shared plumbing of the nandkit command: the subcommand table, error
 * reporting, and option parsing helpers every subcommand uses.
 *
 * Names: what tools/ defines carries the tool's own prefix, never the
 * library's nk_/NK_: functions, types and variables are tool_<thing>
 * (tool_fail, struct tool_image_opts, tool_cmd_sim for a subcommand's table
 * entry, tool_<command>_<step> for its steps: tool_sim_create_parse), macros
 * and enum values TOOL_<THING> (TOOL_EXIT_OK). An nk_ or NK_ name in a tool
 * file is always the library's (include/nandkit/).
 */
#ifndef TOOL_H
#define TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct tool_command {
    const char *name;
    const char *summary;               /* one line for `nandkit --help` */
    int (*run)(int argc, char **argv); /* argv[0] is the subcommand name */
    void (*help)(FILE *out);           /* full usage for `nandkit CMD --help` */
};

/* Every subcommand, each defined in the tools/cmd_*.c file of its name, except
 * put, rm, mkdir, mv and chmod: one macro in tools/cmd_fswrite.c makes those. */
extern const struct tool_command tool_cmd_info;
extern const struct tool_command tool_cmd_sim;
extern const struct tool_command tool_cmd_dump;
extern const struct tool_command tool_cmd_badblocks;
extern const struct tool_command tool_cmd_ecc;
extern const struct tool_command tool_cmd_bench;
extern const struct tool_command tool_cmd_ls;
extern const struct tool_command tool_cmd_cat;
extern const struct tool_command tool_cmd_extract;
extern const struct tool_command tool_cmd_fsck;
extern const struct tool_command tool_cmd_mkimage;
extern const struct tool_command tool_cmd_read;
extern const struct tool_command tool_cmd_write;
extern const struct tool_command tool_cmd_erase;
extern const struct tool_command tool_cmd_torture;
extern const struct tool_command tool_cmd_put;
extern const struct tool_command tool_cmd_rm;
extern const struct tool_command tool_cmd_mkdir;
extern const struct tool_command tool_cmd_mv;
extern const struct tool_command tool_cmd_chmod;
extern const struct tool_command tool_cmd_mount;

struct tool_image_opts;

/* `nandkit bench --fs` (tools/cmd_bench_fs.c): the file-system benchmark on
 * the simulated --chip; `small` reduces the sizes. Returns the exit status. */
int tool_bench_fs(const struct tool_image_opts *opts, bool small, bool json, const char *svg,
                  bool progress);

/* The exit status of every command (docs/cli.md, "Exit status"). */
enum tool_exit {
    TOOL_EXIT_OK = 0,
    TOOL_EXIT_FAILED = 1,    /* I/O error, uncorrectable data, damage, no space, power cut */
    TOOL_EXIT_USAGE = 2,     /* bad option or value, wrong kind of path; nothing written */
    TOOL_EXIT_TRACES = 3,    /* fsck only: no damage, traces of an interrupted write */
    TOOL_EXIT_NOT_FOUND = 4, /* the image, a path in it or a host file does not exist */
    TOOL_EXIT_IN_USE = 5,    /* another nandkit command holds the image (no --wait) */
};

/* The table above as help text, for every command's --help. */
#define TOOL_EXIT_HELP                                                                             \
    "Exit status: 0 done; 1 failed (I/O error, uncorrectable data, damage, no space,\n"            \
    "power cut); 2 bad input (bad option or value, nothing written); 3 fsck only: no\n"            \
    "damage, traces of an interrupted write; 4 not found (the image, a path in it, a\n"            \
    "host file); 5 the image is in use by another nandkit command.\n"

/* Prints "nandkit: MESSAGE" on stderr and returns exit status 2 (bad input)
 * so callers can `return tool_fail(...)`. */
int tool_fail(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* Prints "nandkit: MESSAGE" on stderr and returns 1 (operation failed). */
int tool_error(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* Prints "nandkit: MESSAGE" on stderr and returns 4 (not found). */
int tool_not_found(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* True for a file-system error that names something wrong with what the
 * user asked (a path of the wrong kind, an existing name...): exit 2. */
bool tool_is_user_error(int err);

/* The same line with the status for `err`, a negative nandkit error from a
 * call on a path: 4 for -NK_ENOENT, 2 for `user_error`, else 1. */
int tool_fail_err(int err, bool user_error, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* True when `arg` is -h or --help. */
bool tool_is_help(const char *arg);

/* Writes nandkit.1 and nandkit-COMMAND.1 into `dir`, made from `usage` and
 * every command's help text (tools/manpage.c). Returns 0 or an exit status. */
int tool_write_man_pages(const char *dir, const struct tool_command *const *commands, size_t count,
                         void (*usage)(FILE *out));

/* `one` when n is 1, else `many`: "1 file", "2 files". */
static inline const char *tool_plural(uint64_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* Prints "objects: N (F files, D directories, ...)" for the counts given,
 * each noun singular where its count is 1, without a newline. */
void tool_print_objects(uint32_t objects, uint32_t files, uint32_t dirs, uint32_t symlinks,
                        uint32_t hardlinks, uint32_t specials);

/* Parses an unsigned decimal/hex (0x) number. Returns false on junk. */
bool tool_parse_u64(const char *text, uint64_t *value);

#endif
