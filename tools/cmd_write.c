/* SPDX-License-Identifier: MIT */
/* nandkit write: a file onto an image or /dev/mtdN, skipping bad blocks, as nandwrite does. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flashio.h"
#include "image.h"
#include "nandkit/error.h"
#include "tool.h"

static void tool_write_help(FILE *out)
{
    fprintf(out,
            "usage: nandkit write IMAGE|/dev/mtdN INPUT [-s START] [--pad] [--oob|--onlyoob]\n"
            "                     [--noecc] [--markbad] [-N] [-k] [-b N] [options]\n\n"
            "Programs INPUT into the device from byte START on, as nandwrite does: page by\n"
            "page, skipping bad blocks (the data goes on in the next good block). It does not\n"
            "erase: erase the range first (nandkit erase). INPUT holds page data, or with --oob\n"
            "page data then OOB for each page (a raw image, e.g. from nandkit read --oob or\n"
            "nanddump --oob). Pages are written through the layout's ECC (the ECC bytes of the\n"
            "OOB are computed) unless --noecc, which writes every byte as given. START is in\n"
            "bytes (decimal, 0x hex, or KiB/MiB/GiB) and must be page aligned. INPUT - reads\n"
            "standard input (to its end, before the first program).\n\n"
            "Options:\n"
            "  -s, --start OFFSET      where to start (default 0)\n"
            "  -p, --pad               pad a short last page with 0xFF (else INPUT must be a\n"
            "                          whole number of pages)\n"
            "  -o, --oob               INPUT carries the OOB of each page\n"
            "  -O, --onlyoob           INPUT carries page data and OOB as with --oob, but only\n"
            "                          the OOB is programmed (no data, no ECC code: as Linux\n"
            "                          writes an OOB alone)\n"
            "  -N, --noskipbad         write into bad blocks too, instead of skipping them\n"
            "                          (image files only)\n"
            "  -k, --skip-all-ffs      leave pages that are all 0xFF (data, and OOB with --oob)\n"
            "                          unprogrammed: they stay erased, free for a later write\n"
            "  -b, --blockalign N      1, 2 or 4: skip bad blocks in groups of N blocks aligned\n"
            "                          to N (a bad block skips its whole group), as nandwrite\n"
            "                          for devices that pair erase blocks\n"
            "  -n, --noecc             raw program, no ECC\n"
            "  -m, --markbad           a block that fails to program is marked bad and its data\n"
            "                          goes to the next good block (else the write stops)\n"
            "      --progress          a progress line on stderr (default: when it is a terminal)\n"
            "  -q, --quiet             no progress line, notes or summary\n"
            "  -j, --json              a JSON summary on stdout\n" TOOL_IMAGE_HELP);
}

static bool tool_write_all_ff(const uint8_t *buf, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (buf[i] != 0xff)
            return false;
    return true;
}

/* Opens INPUT: a regular file, or "-" for standard input (a pipe as
 * nandwrite reads it), copied first into an unnamed temporary file so that
 * its size is known before anything is programmed. A FIFO or device named
 * as INPUT is refused without blocking. Returns 0 or an exit status. */
static int tool_write_open_input(const char *path, FILE **out)
{
    if (strcmp(path, "-") != 0) {
        int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
            return errno == ENOENT
                       ? tool_not_found("cannot open INPUT '%s': %s", path, strerror(errno))
                       : tool_fail("cannot open INPUT '%s': %s", path, strerror(errno));
        struct stat st;
        if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            close(fd);
            return tool_fail("INPUT '%s' is not a regular file (give - to read standard "
                             "input)",
                             path);
        }
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
        *out = fdopen(fd, "rb");
        if (!*out) {
            close(fd);
            return tool_error("cannot open INPUT '%s': %s", path, strerror(errno));
        }
        return 0;
    }
    FILE *copy = tmpfile();
    if (!copy)
        return tool_error("cannot buffer standard input: %s", strerror(errno));
    char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, stdin)) > 0) {
        if (fwrite(buf, 1, n, copy) != n) {
            int e = errno;
            fclose(copy);
            return tool_error("cannot buffer standard input: %s", strerror(e));
        }
    }
    if (ferror(stdin) || fflush(copy) != 0 || fseek(copy, 0, SEEK_SET) != 0) {
        fclose(copy);
        return tool_error("reading standard input failed");
    }
    *out = copy;
    return 0;
}

/* write's own options. */
struct tool_write_args {
    uint64_t start, align;
    bool pad, with_oob, only_oob, noecc, markbad, noskipbad, skip_ffs;
};

static int tool_write_option(void *ctx, int opt, const char *arg)
{
    struct tool_write_args *a = ctx;
    switch (opt) {
    case 's':
        return tool_parse_start(arg, &a->start);
    case 'p':
        a->pad = true;
        return 0;
    case 'o':
        a->with_oob = true;
        return 0;
    case 'O':
        a->with_oob = a->only_oob = true;
        return 0;
    case 'n':
        a->noecc = true;
        return 0;
    case 'm':
        a->markbad = true;
        return 0;
    case 'N':
        a->noskipbad = true;
        return 0;
    case 'k':
        a->skip_ffs = true;
        return 0;
    case 'b':
        if (!tool_parse_u64(arg, &a->align) || (a->align != 1 && a->align != 2 && a->align != 4))
            return tool_fail("bad --blockalign '%s': 1, 2 or 4", arg);
        return 0;
    default:
        return -1;
    }
}

static int tool_write_run(int argc, char **argv)
{
    static const struct option options[] = {TOOL_IMAGE_LONG_OPTIONS,
                                            {"start", required_argument, NULL, 's'},
                                            {"pad", no_argument, NULL, 'p'},
                                            {"oob", no_argument, NULL, 'o'},
                                            {"onlyoob", no_argument, NULL, 'O'},
                                            {"noecc", no_argument, NULL, 'n'},
                                            {"markbad", no_argument, NULL, 'm'},
                                            {"noskipbad", no_argument, NULL, 'N'},
                                            {"skip-all-ffs", no_argument, NULL, 'k'},
                                            {"blockalign", required_argument, NULL, 'b'},
                                            {"progress", no_argument, NULL, TOOL_OPT_PROGRESS},
                                            {"quiet", no_argument, NULL, 'q'},
                                            {"json", no_argument, NULL, 'j'},
                                            {NULL, 0, NULL, 0}};
    struct tool_write_args a = {.align = 1};
    const struct tool_flash_parse parse = {
        "write", "s:poOnmNkb:qj", options, 0, tool_write_option, &a, 2, "IMAGE|/dev/mtdN and INPUT",
        false};
    struct tool_image_opts opts;
    struct tool_flash_flags f;
    const char *args[2];
    int status = tool_flash_parse(argc, argv, &parse, &opts, &f, args);
    if (status)
        return status;
    const char *input_path = args[1];
    uint64_t start = a.start, align = a.align;
    bool pad = a.pad, with_oob = a.with_oob, only_oob = a.only_oob, noecc = a.noecc;
    bool markbad = a.markbad, noskipbad = a.noskipbad, skip_ffs = a.skip_ffs;
    bool quiet = f.quiet, json = f.json;
    if (noskipbad && align > 1)
        return tool_fail("--blockalign %llu skips bad blocks in groups: it does not go with "
                         "--noskipbad",
                         (unsigned long long)align);

    FILE *input = NULL;
    int status_in = tool_write_open_input(input_path, &input);
    if (status_in)
        return status_in;
    struct stat st;
    if (fstat(fileno(input), &st) != 0) {
        fclose(input);
        return tool_error("cannot stat INPUT '%s': %s", input_path, strerror(errno));
    }
    uint64_t input_size = (uint64_t)st.st_size;

    struct tool_image image;
    status = tool_flash_open(&image, &opts, quiet);
    if (status) {
        fclose(input);
        return status;
    }
    if (noskipbad && image.mtd) {
        fclose(input);
        tool_image_close(&image);
        return tool_fail("--noskipbad: %s reports the blocks of the kernel's own bad-block "
                         "table as bad, and nandkit never programs those",
                         opts.path);
    }
    if (noecc) {
        status = tool_image_raw_io(&image);
        if (status) {
            fclose(input);
            tool_image_close(&image);
            return status;
        }
    }
    struct nk_nand *nand = &image.nand;
    uint32_t page_size = nk_nand_page_size(nand), oob_size = nk_nand_oob_size(nand);
    uint32_t ppb = nk_nand_pages_per_block(nand), blocks = nk_nand_blocks(nand);
    uint32_t record = page_size + (with_oob ? oob_size : 0);
    uint64_t device_bytes = (uint64_t)nk_nand_pages(nand) * page_size;
    const char *bad_input = NULL;
    char why[240];
    if (start % page_size) {
        snprintf(why, sizeof why, "--start 0x%llx is not page aligned (pages are %u bytes)",
                 (unsigned long long)start, page_size);
        bad_input = why;
    } else if (start >= device_bytes) {
        snprintf(why, sizeof why, "--start 0x%llx is past the end of the device (0x%llx bytes)",
                 (unsigned long long)start, (unsigned long long)device_bytes);
        bad_input = why;
    } else if (input_size == 0) {
        snprintf(why, sizeof why, "INPUT '%s' is empty", input_path);
        bad_input = why;
    } else if (input_size % record && !pad) {
        snprintf(why, sizeof why,
                 "INPUT '%s' is %llu bytes, not a whole number of %u-byte %s: add --pad",
                 input_path, (unsigned long long)input_size, record,
                 with_oob ? "page+OOB records" : "pages");
        bad_input = why;
    } else if ((input_size + record - 1) / record >
               (uint64_t)nk_nand_pages(nand) - start / page_size) {
        snprintf(why, sizeof why, "INPUT '%s' holds %llu pages; only %llu fit after --start 0x%llx",
                 input_path, (unsigned long long)((input_size + record - 1) / record),
                 (unsigned long long)(nk_nand_pages(nand) - start / page_size),
                 (unsigned long long)start);
        bad_input = why;
    }
    if (bad_input) {
        fclose(input);
        tool_image_close(&image);
        return tool_fail("%s", bad_input);
    }

    /* One block of input at a time, so that a block that fails can be
     * written again into the next good one. */
    uint8_t *buf = malloc((size_t)record * ppb);
    uint64_t total_pages = (input_size + record - 1) / record;
    uint64_t pages_written = 0;
    uint32_t skipped_bad = 0, marked_bad = 0, skipped_ffs = 0;
    uint32_t block = (uint32_t)(start / page_size / ppb);
    uint32_t first_page = (uint32_t)(start / page_size % ppb);
    enum nk_oob_mode mode = noecc ? NK_OOB_RAW : NK_OOB_PLACE;
    const char *failure = NULL;
    struct tool_progress progress;
    tool_progress_start(&progress, f.progress, "write", total_pages * page_size);
    while (pages_written < total_pages && !failure) {
        uint32_t n = ppb - first_page;
        if (n > total_pages - pages_written)
            n = (uint32_t)(total_pages - pages_written);
        size_t want = (size_t)n * record;
        memset(buf, 0xff, want);
        size_t got = fread(buf, 1, want, input);
        if (got < want && ferror(input)) {
            snprintf(why, sizeof why, "reading INPUT '%s' failed", input_path);
            failure = why;
            break;
        }
        bool placed = false;
        while (!placed && !failure) {
            if (block >= blocks) {
                snprintf(why, sizeof why,
                         "the device ended (bad blocks skipped) with %llu of %llu pages written",
                         (unsigned long long)pages_written, (unsigned long long)total_pages);
                failure = why;
                break;
            }
            /* nandwrite's rule: with --blockalign N a bad block anywhere
             * in the N-aligned group skips the whole group. */
            uint32_t group = block - block % (uint32_t)align;
            int bad = 0;
            uint32_t bad_block = block;
            for (uint32_t g = group; !noskipbad && g < group + align && g < blocks && !bad; g++) {
                bad = nk_nand_block_is_bad(nand, g);
                bad_block = g;
            }
            if (bad < 0) {
                snprintf(why, sizeof why, "checking block %u: %s", bad_block,
                         tool_image_error(&image, bad));
                failure = why;
                break;
            }
            if (bad) {
                uint32_t next = group + (uint32_t)align;
                skipped_bad += next - block;
                if (!quiet && !json) {
                    tool_progress_end(&progress);
                    if (align > 1)
                        fprintf(stderr,
                                "nandkit: block %u (0x%llx) is bad: blocks %u-%u skipped "
                                "(--blockalign %u)\n",
                                bad_block, (unsigned long long)bad_block * ppb * page_size, block,
                                next - 1, (unsigned)align);
                    else
                        fprintf(stderr, "nandkit: block %u (0x%llx) is bad: skipped\n", block,
                                (unsigned long long)block * ppb * page_size);
                }
                block = next;
                first_page = 0;
                continue;
            }
            int err = 0;
            uint32_t i;
            uint32_t ffs = 0;
            for (i = 0; i < n && !err; i++) {
                const uint8_t *rec = buf + (size_t)i * record;
                if (skip_ffs && tool_write_all_ff(rec, record)) {
                    ffs++;
                    continue;
                }
                err =
                    nk_nand_program_page(nand, block * ppb + first_page + i, only_oob ? NULL : rec,
                                         with_oob ? rec + page_size : NULL, mode);
            }
            if (!err) {
                placed = true;
                skipped_ffs += ffs;
                break;
            }
            uint32_t failed_page = block * ppb + first_page + i - 1;
            if (err == -NK_EIO && markbad) {
                int merr = nk_nand_block_mark_bad(nand, block);
                if (merr) {
                    snprintf(why, sizeof why, "marking block %u bad: %s", block,
                             tool_image_error(&image, merr));
                    failure = why;
                    break;
                }
                marked_bad++;
                if (!quiet && !json)
                    fprintf(stderr,
                            "nandkit: programming page %u failed: block %u marked bad, "
                            "its data goes to the next good block\n",
                            failed_page, block);
                block++;
                first_page = 0;
                continue;
            }
            snprintf(why, sizeof why, "programming page %u (0x%llx) failed: %s%s", failed_page,
                     (unsigned long long)failed_page * page_size, tool_image_error(&image, err),
                     err == -NK_EIO ? " (was the range erased? see nandkit erase; --markbad "
                                      "retires a failing block)"
                                    : "");
            failure = why;
        }
        if (failure)
            break;
        pages_written += n;
        block++;
        first_page = 0;
        tool_progress_update(&progress, pages_written * page_size);
    }
    tool_progress_end(&progress);
    struct nk_nand_stats stats;
    nk_nand_stats_get(nand, &stats);
    free(buf);
    fclose(input);
    tool_image_close(&image);
    if (failure)
        return tool_error("write: %s", failure);
    if (json) {
        printf("{\"start\":%llu,\"pages_written\":%llu,\"input_bytes\":%llu,\"oob\":%s,"
               "\"only_oob\":%s,\"ecc\":%s,\"padded\":%s,\"bad_blocks_skipped\":%u,"
               "\"blocks_marked_bad\":%u,\"all_ff_pages_skipped\":%u,\"programs\":%llu}\n",
               (unsigned long long)start, (unsigned long long)(pages_written - skipped_ffs),
               (unsigned long long)input_size, with_oob ? "true" : "false",
               only_oob ? "true" : "false", noecc || only_oob ? "false" : "true",
               input_size % record ? "true" : "false", skipped_bad, marked_bad, skipped_ffs,
               (unsigned long long)stats.page_programs);
    } else if (!quiet) {
        char note[64] = "";
        if (skip_ffs)
            snprintf(note, sizeof note, ", %u all-0xFF page(s) left erased", skipped_ffs);
        fprintf(stderr,
                "nandkit: wrote %llu pages from 0x%llx%s: %u bad block(s) skipped, %u "
                "marked bad%s\n",
                (unsigned long long)(pages_written - skipped_ffs), (unsigned long long)start,
                input_size % record ? " (last page padded with 0xFF)" : "", skipped_bad, marked_bad,
                note);
    }
    return 0;
}

const struct tool_command tool_cmd_write = {
    .name = "write",
    .summary = "program a file into pages, skipping bad blocks (nandwrite)",
    .run = tool_write_run,
    .help = tool_write_help,
};
