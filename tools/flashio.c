/* SPDX-License-Identifier: MIT */
#include "flashio.h"

#include "save.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>

#include "image.h"
#include "nandkit/bbt.h"
#include "nandkit/error.h"
#include "nandkit/sim.h"
#include "tool.h"

bool tool_parse_size(const char *text, uint64_t *value)
{
    if (!text || !*text || *text == '-' || *text == '+' || *text == ' ')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 0);
    if (end == text || errno)
        return false;
    static const struct {
        const char *suffix;
        unsigned shift;
    } suffixes[] = {
        {"", 0},   {"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"K", 10},  {"k", 10},
        {"M", 20}, {"G", 30},   {"KB", 10},  {"MB", 20},  {"GB", 30}, {"B", 0},
    };
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        if (strcmp(end, suffixes[i].suffix) != 0)
            continue;
        unsigned shift = suffixes[i].shift;
        if (shift && v > (UINT64_MAX >> shift))
            return false;
        *value = (uint64_t)v << shift;
        return true;
    }
    return false;
}

bool tool_parse_block_range(const char *text, uint32_t *first, uint32_t *count)
{
    if (!text || !*text || *text == '-' || *text == '+')
        return false;
    char *end;
    errno = 0;
    unsigned long long a = strtoull(text, &end, 0);
    if (end == text || errno || a > UINT32_MAX)
        return false;
    if (!*end) {
        *first = (uint32_t)a;
        *count = 1;
        return true;
    }
    char sep = *end;
    if (sep != '-' && sep != '+')
        return false;
    const char *second = end + 1;
    if (!*second || *second == '-' || *second == '+')
        return false;
    unsigned long long b = strtoull(second, &end, 0);
    if (end == second || *end || errno || b > UINT32_MAX)
        return false;
    if (sep == '-') {
        if (b < a)
            return false;
        *first = (uint32_t)a;
        *count = (uint32_t)(b - a + 1);
    } else {
        if (b == 0 || a + b - 1 > UINT32_MAX)
            return false;
        *first = (uint32_t)a;
        *count = (uint32_t)b;
    }
    return true;
}

const char *tool_format_bytes(uint64_t bytes, char *buf, size_t size)
{
    if (bytes >= (1u << 20))
        snprintf(buf, size, "%.1f MiB", (double)bytes / (1u << 20));
    else if (bytes >= (1u << 10))
        snprintf(buf, size, "%.1f KiB", (double)bytes / (1u << 10));
    else
        snprintf(buf, size, "%llu B", (unsigned long long)bytes);
    return buf;
}

void tool_progress_start(struct tool_progress *progress, bool on, const char *what, uint64_t total)
{
    progress->on = on && total > 0;
    progress->drawn = false;
    progress->what = what;
    progress->total = total;
    progress->last_percent = -1;
}

void tool_progress_update(struct tool_progress *progress, uint64_t done)
{
    if (!progress->on)
        return;
    int percent = (int)(done * 100 / progress->total);
    if (percent == progress->last_percent)
        return;
    progress->last_percent = percent;
    char a[32], b[32];
    fprintf(stderr, "\r%s %3d%% (%s of %s)", progress->what, percent,
            tool_format_bytes(done, a, sizeof a), tool_format_bytes(progress->total, b, sizeof b));
    fflush(stderr);
    progress->drawn = true;
}

void tool_progress_end(struct tool_progress *progress)
{
    if (progress->drawn)
        fputc('\n', stderr);
    progress->drawn = false;
}

int tool_outfile_open(struct tool_outfile *out, const char *path)
{
    memset(out, 0, sizeof *out);
    if (!path || strcmp(path, "-") == 0) {
        out->file = stdout;
        return 0;
    }
    if (tool_is_special_file(path)) {
        /* /dev/null, a FIFO, a terminal: written in place, never replaced. */
        out->special = true;
        out->file = fopen(path, "wb");
        if (!out->file)
            return tool_error("cannot write '%s': %s", path, strerror(errno));
        return 0;
    }
    size_t len = strlen(path);
    out->final_path = strdup(path);
    out->temp_path = malloc(len + 16);
    if (!out->final_path || !out->temp_path) {
        free(out->final_path);
        free(out->temp_path);
        return tool_error("out of memory");
    }
    snprintf(out->temp_path, len + 16, "%s.tmpXXXXXX", path);
    int fd = mkstemp(out->temp_path);
    if (fd < 0) {
        int code = tool_error("cannot write '%s': %s", path, strerror(errno));
        free(out->final_path);
        free(out->temp_path);
        out->final_path = out->temp_path = NULL;
        return code;
    }
    /* mkstemp() makes 0600: the file gets the mode a shell's `>` would give
     * it, the old file's, or 0666 less the umask for a new one. */
    struct stat old;
    mode_t mask = umask(0);
    umask(mask);
    mode_t mode = stat(path, &old) == 0 && S_ISREG(old.st_mode) ? old.st_mode & 07777 : 0666 & ~mask;
    out->file = fchmod(fd, mode) == 0 ? fdopen(fd, "wb") : NULL;
    if (!out->file) {
        close(fd);
        unlink(out->temp_path);
        int code = tool_error("cannot write '%s': %s", path, strerror(errno));
        free(out->final_path);
        free(out->temp_path);
        out->final_path = out->temp_path = NULL;
        return code;
    }
    return 0;
}

int tool_outfile_close(struct tool_outfile *out, bool keep)
{
    int code = 0;
    if (out->special) {
        bool ok = fflush(out->file) == 0 && !ferror(out->file);
        int saved = errno;
        ok = fclose(out->file) == 0 && ok;
        out->file = NULL;
        out->special = false;
        if (!ok && keep)
            code = tool_error("cannot write: %s", strerror(saved));
        return code;
    }
    if (!out->final_path) {
        if (fflush(stdout) != 0)
            code = tool_error("cannot write to standard output: %s", strerror(errno));
        return code;
    }
    bool ok = keep && fflush(out->file) == 0 && !ferror(out->file) && fsync(fileno(out->file)) == 0;
    int saved = errno;
    if (fclose(out->file) != 0)
        ok = false;
    if (ok && rename(out->temp_path, out->final_path) != 0) {
        saved = errno;
        ok = false;
    }
    if (!ok) {
        unlink(out->temp_path);
        if (keep)
            code = tool_error("cannot write '%s': %s", out->final_path, strerror(saved));
    }
    free(out->final_path);
    free(out->temp_path);
    out->final_path = out->temp_path = NULL;
    out->file = NULL;
    return code;
}

bool tool_warn_short_image(const char *path, uint64_t chip_bytes, uint32_t block_bytes)
{
    struct stat st;
    if (!path || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return false;
    char sidecar[4096];
    if (!nk_sim_sidecar_path(path, sidecar, sizeof sidecar) || access(sidecar, F_OK) == 0)
        return false;
    uint64_t size = (uint64_t)st.st_size;
    if (size >= chip_bytes || size == 0) /* empty: a fresh chip, not a dump */
        return false;
    char shape[96];
    if (size % block_bytes)
        snprintf(shape, sizeof shape, "it ends inside block %llu",
                 (unsigned long long)(size / block_bytes));
    else
        snprintf(shape, sizeof shape, "%llu blocks short",
                 (unsigned long long)((chip_bytes - size) / block_bytes));
    fprintf(stderr,
            "nandkit: warning: %s holds %llu of the chip's %llu bytes (%s): pages past its end "
            "read as erased. A dump this short usually comes from nanddump skipping bad blocks "
            "(its default --bb=skipbad shifts every block after a bad one), or from one "
            "partition rather than the whole chip\n",
            path, (unsigned long long)size, (unsigned long long)chip_bytes, shape);
    return true;
}

int tool_flash_parse(int argc, char **argv, const struct tool_flash_parse *parse,
                     struct tool_image_opts *opts, struct tool_flash_flags *flags,
                     const char **args)
{
    tool_image_opts_init(opts);
    opts->reads_only = parse->reads_only;
    flags->progress = isatty(STDERR_FILENO);
    flags->quiet = false;
    flags->json = false;
    int opt;
    optind = 1;
    while ((opt = tool_getopt(argc, argv, parse->shortopts, parse->options, opts, parse->command)) >
           0) {
        if (opt == TOOL_OPT_PROGRESS || (parse->progress_short && opt == parse->progress_short))
            flags->progress = true;
        else if (opt == 'q')
            flags->quiet = true;
        else if (opt == 'j')
            flags->json = true;
        else {
            int status = parse->fn(parse->ctx, opt, optarg);
            if (status > 0)
                return status;
            if (status < 0)
                return tool_fail("%s: unknown option (see nandkit %s --help)", parse->command,
                                 parse->command);
        }
    }
    if (opt < 0)
        return -opt;
    if (argc - optind < (int)parse->count)
        return tool_fail("%s needs %s (see nandkit %s --help)", parse->command, parse->needs,
                         parse->command);
    for (unsigned i = 0; i < parse->count; i++)
        args[i] = argv[optind++];
    if (optind < argc)
        return tool_fail("%s: unexpected argument '%s'", parse->command, argv[optind]);
    opts->path = args[0];
    if (flags->quiet)
        flags->progress = false;
    return 0;
}

int tool_parse_start(const char *arg, uint64_t *start)
{
    if (!tool_parse_size(arg, start))
        return tool_fail("bad --start '%s': expected bytes (e.g. 0x20000, 128KiB)", arg);
    return 0;
}

int tool_flash_open(struct tool_image *image, struct tool_image_opts *opts, bool quiet)
{
    if (opts->path && !tool_path_is_mtd(opts->path)) {
        char sidecar[4096];
        if (nk_sim_sidecar_path(opts->path, sidecar, sizeof sidecar) && access(sidecar, F_OK) != 0)
            opts->no_sidecar = true;
    }
    int status = tool_image_open(image, opts);
    if (status)
        return status;
    if (!quiet && image->sim) {
        const struct nk_chip_info *info = &image->params.chip;
        uint32_t block_bytes = (info->page_size + info->oob_size) * info->pages_per_block;
        tool_warn_short_image(opts->path, (uint64_t)block_bytes * info->blocks, block_bytes);
    }
    return 0;
}

/* True when the simulator's array holds a Linux table signature ("Bbt0" or
 * "1tbB" at OOB 8) in the first page of one of the last blocks. Looks with
 * nk_sim_page_peek(): no flash operation (a --power-cut-after count stays
 * what it was). */
static bool tool_sim_has_table(struct nk_sim *sim)
{
    const struct nk_chip_info *c = &nk_sim_params(sim)->chip;
    if (c->oob_size < 12)
        return false;
    for (uint32_t i = 1; i <= NK_BBT_MAX_BLOCKS && i <= c->blocks; i++) {
        uint8_t sig[4];
        uint32_t row = (c->blocks - i) * c->pages_per_block;
        if (nk_sim_page_peek(sim, row, c->page_size + 8, sig, 4) == 0 &&
            (memcmp(sig, "Bbt0", 4) == 0 || memcmp(sig, "1tbB", 4) == 0))
            return true;
    }
    return false;
}

/* Blocks the simulator itself calls bad (factory or worn). */
static uint32_t tool_sim_bad_count(struct nk_sim *sim)
{
    uint32_t bad = 0;
    for (uint32_t b = 0; b < nk_sim_params(sim)->chip.blocks; b++) {
        struct nk_sim_block_state state;
        bad += nk_sim_block_get(sim, b, &state) == 0 &&
               (state.flags & (NK_SIM_BLOCK_FACTORY_BAD | NK_SIM_BLOCK_WORN));
    }
    return bad;
}

int tool_known_bad_attach(struct tool_image *image, bool tags_at_oob0, bool sidecar, bool writable,
                          struct nk_bbt *bbt, void **memory)
{
    *memory = NULL;
    if (!image->sim)
        return TOOL_KNOWN_BAD_NONE; /* /dev/mtdN: the kernel answers */
    bool table = tool_sim_has_table(image->sim);
    if (!table && !(tags_at_oob0 && sidecar && tool_sim_bad_count(image->sim)))
        return TOOL_KNOWN_BAD_NONE; /* nothing to learn: no flash operation */
    struct nk_bbt_config config;
    memset(&config, 0, sizeof config);
    config.dry_run = !(table && writable);
    config.memory_size = nk_bbt_memory_size(&image->nand);
    *memory = config.memory = malloc(config.memory_size);
    if (!config.memory)
        return -tool_error("out of memory");
    int err = nk_bbt_attach(&image->nand, bbt, &config);
    if (err)
        return -tool_error("reading the bad-block %s: %s", table ? "table" : "markers",
                           tool_image_error(image, err));
    if (!bbt->info.scanned)
        return TOOL_KNOWN_BAD_TABLE;
    if (!tags_at_oob0 || !sidecar) {
        nk_bbt_detach(&image->nand);
        return TOOL_KNOWN_BAD_NONE;
    }
    /* Tags at OOB 0: OOB byte 0 of a written page is tag data, so the
     * scanned markers mean nothing there; the simulator's sidecar says which
     * blocks are bad. The table's reserved blocks stay reserved (mkimage
     * leaves them out). */
    for (uint32_t b = 0; b < nk_nand_blocks(&image->nand); b++) {
        struct nk_sim_block_state state;
        bool sim_bad = nk_sim_block_get(image->sim, b, &state) == 0 &&
                       (state.flags & (NK_SIM_BLOCK_FACTORY_BAD | NK_SIM_BLOCK_WORN));
        int st = nk_bbt_block_state(bbt, b);
        unsigned want = sim_bad ? (state.flags & NK_SIM_BLOCK_FACTORY_BAD ? NK_BBT_FACTORY_BAD
                                                                           : NK_BBT_WORN)
                        : st == NK_BBT_RESERVED ? NK_BBT_RESERVED
                                                : NK_BBT_GOOD;
        unsigned shift = (b & 3u) * 2u;
        bbt->entries[b >> 2] = (uint8_t)((bbt->entries[b >> 2] & ~(3u << shift)) | (want << shift));
    }
    return TOOL_KNOWN_BAD_SIMULATOR;
}
