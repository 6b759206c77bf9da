/* SPDX-License-Identifier: MIT */
/*
 * nandkit ecc: compute or check the ECC of raw data with nandkit's software
 * engines, to compare a bootloader's, a controller's or Linux's codes with
 * ours.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image.h"
#include "nandkit/ecc.h"
#include "nandkit/error.h"
#include "save.h"
#include "tool.h"

static void tool_ecc_help(FILE *out)
{
    fprintf(out,
            "usage: nandkit ecc calc    --scheme S FILE\n"
            "       nandkit ecc correct --scheme S FILE (--ecc HEX[,HEX...] | --ecc-file F)"
            " [-o OUT]\n"
            "       nandkit ecc check   --scheme S FILE (--ecc HEX[,HEX...] | --ecc-file F)\n\n"
            "FILE holds whole ECC steps of raw data.\n"
            "  calc     prints one line per step: the code bytes as stored in the OOB\n"
            "           (lowercase hex, Linux's byte order and erased-page mask).\n"
            "  correct  takes one stored code per step and prints per step 'clean',\n"
            "           'corrected N' (N bits, code-byte flips included) or\n"
            "           'uncorrectable'; with -o writes the corrected data (uncorrectable\n"
            "           steps as read). Exit status 1 when any step is uncorrectable.\n"
            "  check    the same report as correct, writing nothing.\n"
            "Steps are judged as Linux's software engines judge them; an erased step\n"
            "with more flips than the code corrects is reported uncorrectable (the\n"
            "device layer's erased-page rule is not applied here).\n\n"
            "Options:\n"
            "  --scheme S      hamming256, hamming512 (Linux byte order),\n"
            "                  hamming256-sm, hamming512-sm (SmartMedia byte order),\n"
            "                  bchT-512 or bchT-1024 for T = 1..32 (e.g. bch4-512,\n"
            "                  bch8-512, bch8-1024, bch16-1024: Linux's software BCH)\n"
            "  --ecc HEX,...   the stored codes, one per step, comma-separated\n"
            "  --ecc-file F    the stored codes, one per line (e.g. calc's output)\n"
            "  -o, --output OUT  where correct writes the corrected data\n"
            "  -j, --json      one JSON document instead of lines: calc {\"codes\": [...]},\n"
            "                  check/correct {\"steps\": [{\"status\", \"bits\"}...]}\n");
}

/* A scheme ready to run: an engine and, for BCH, its codec. */
static int tool_ecc_scheme_open(struct tool_ecc *s, const char *name)
{
    int status = tool_ecc_by_name(s, name, "scheme");
    if (status == 0 && s->engine.placement == NK_ECC_PLACEMENT_NONE)
        return tool_fail("scheme '%s' computes no code (hamming256, hamming512, "
                         "hamming256-sm, hamming512-sm, bchT-512, bchT-1024)",
                         name);
    return status;
}

/* Reads the whole file; returns 0 or 2 after printing the reason. */
static int tool_ecc_read_file(const char *path, uint8_t **data, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return tool_fail("cannot open '%s': %s", path, strerror(errno));
    size_t cap = 1u << 16, len = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (len < cap)
            break;
        uint8_t *bigger = realloc(buf, cap * 2);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    bool failed = ferror(f) != 0;
    fclose(f);
    if (!buf)
        return tool_error("'%s': out of memory", path);
    if (failed) {
        free(buf);
        return tool_fail("cannot read '%s'", path);
    }
    *data = buf;
    *size = len;
    return 0;
}

static int tool_hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Parses one code of exactly `bytes` bytes from text[0..len). */
static int tool_ecc_parse_code(const char *text, size_t len, unsigned step_index, unsigned bytes,
                               const char *scheme, uint8_t *out)
{
    for (size_t i = 0; i < len; i++)
        if (tool_hex_value(text[i]) < 0)
            return tool_fail("bad hex '%.*s' in the code of step %u", (int)len, text, step_index);
    if (len != 2u * bytes)
        return tool_fail("code '%.*s' of step %u has %zu hex digits; %s needs %u (%u bytes)",
                         (int)len, text, step_index, len, scheme, 2 * bytes, bytes);
    for (unsigned i = 0; i < bytes; i++)
        out[i] = (uint8_t)(tool_hex_value(text[2 * i]) << 4 | tool_hex_value(text[2 * i + 1]));
    return 0;
}

/* Splits `list` at `separator` (and trims CR/space around entries) into
 * `steps` codes. */
static int tool_ecc_parse_codes(const char *list, char separator, const char *origin,
                                unsigned steps, unsigned bytes, const char *scheme, uint8_t *codes)
{
    unsigned count = 0;
    const char *p = list;
    while (*p) {
        const char *end = strchr(p, separator);
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *start = p;
        while (len && (*start == ' ' || *start == '\t')) {
            start++;
            len--;
        }
        while (len && (start[len - 1] == ' ' || start[len - 1] == '\t' || start[len - 1] == '\r'))
            len--;
        if (len || separator == ',') {
            if (count < steps) {
                int err = tool_ecc_parse_code(start, len, count, bytes, scheme,
                                              codes + (size_t)count * bytes);
                if (err)
                    return err;
            }
            count++;
        }
        if (!end)
            break;
        p = end + 1;
    }
    if (count != steps)
        return tool_fail("%s holds %u code%s; the file has %u step%s", origin, count,
                         count == 1 ? "" : "s", steps, steps == 1 ? "" : "s");
    return 0;
}

enum tool_ecc_action { TOOL_ECC_CALC, TOOL_ECC_CORRECT, TOOL_ECC_CHECK };

/* What the command line asks of ecc. */
struct tool_ecc_args {
    const char *scheme_name, *ecc_list, *ecc_file, *output;
    bool json;
    const char *action_name;
    enum tool_ecc_action action;
    const char *path; /* FILE */
};

/* Fills `a`. Returns 0, or the exit status after a report. */
static int tool_ecc_parse(int argc, char **argv, struct tool_ecc_args *a)
{
    static const struct option options[] = {
        {"scheme", required_argument, NULL, 's'},   {"ecc", required_argument, NULL, 'e'},
        {"ecc-file", required_argument, NULL, 'f'}, {"output", required_argument, NULL, 'o'},
        {"json", no_argument, NULL, 'j'},           {NULL, 0, NULL, 0}};
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "o:j", options, NULL)) != -1) {
        switch (opt) {
        case 's':
            a->scheme_name = optarg;
            break;
        case 'e':
            a->ecc_list = optarg;
            break;
        case 'f':
            a->ecc_file = optarg;
            break;
        case 'o':
            a->output = optarg;
            break;
        case 'j':
            a->json = true;
            break;
        default:
            return tool_fail("ecc: unknown option (see nandkit ecc --help)");
        }
    }
    if (optind >= argc)
        return tool_fail("ecc needs an action: calc, correct or check (see nandkit ecc "
                         "--help)");
    a->action_name = argv[optind++];
    if (strcmp(a->action_name, "calc") == 0)
        a->action = TOOL_ECC_CALC;
    else if (strcmp(a->action_name, "correct") == 0)
        a->action = TOOL_ECC_CORRECT;
    else if (strcmp(a->action_name, "check") == 0)
        a->action = TOOL_ECC_CHECK;
    else
        return tool_fail("unknown ecc action '%s' (calc, correct or check)", a->action_name);
    if (optind >= argc)
        return tool_fail("ecc %s needs a FILE", a->action_name);
    a->path = argv[optind++];
    if (optind < argc)
        return tool_fail("ecc: unexpected argument '%s'", argv[optind]);
    if (!a->scheme_name)
        return tool_fail("ecc %s needs --scheme", a->action_name);
    if (a->action == TOOL_ECC_CALC && (a->ecc_list || a->ecc_file || a->output))
        return tool_fail("ecc calc takes no --ecc, --ecc-file or -o");
    if (a->action != TOOL_ECC_CALC && !a->ecc_list == !a->ecc_file)
        return tool_fail("ecc %s needs the stored codes: --ecc HEX,... or --ecc-file F",
                         a->action_name);
    if (a->action == TOOL_ECC_CHECK && a->output)
        return tool_fail("ecc check writes nothing: use ecc correct -o");
    return 0;
}

/* ecc calc: prints the code of each of the `steps` steps of `data`.
 * Returns 0 or the exit status. */
static int tool_ecc_calc(const struct tool_ecc_args *a, const struct nk_ecc_engine *engine,
                         const uint8_t *data, unsigned steps)
{
    unsigned step = engine->step_size, bytes = engine->bytes_per_step;
    uint8_t code[NK_ECC_MAX_BYTES_PER_STEP];
    if (a->json)
        printf("{\"scheme\":\"%s\",\"step_bytes\":%u,\"steps\":%u,\"codes\":[", a->scheme_name,
               step, steps);
    for (unsigned s = 0; s < steps; s++) {
        engine->ops->calculate(engine, data + (size_t)s * step, code);
        if (a->json)
            printf("%s\"", s ? "," : "");
        for (unsigned i = 0; i < bytes; i++)
            printf("%02x", code[i]);
        if (a->json)
            putchar('"');
        else
            putchar('\n');
    }
    if (a->json)
        printf("]}\n");
    return fflush(stdout) ? tool_error("cannot write the output") : 0;
}

/* The stored codes of --ecc-file or --ecc, one per step, into `codes`.
 * Returns 0 or the exit status after a report. */
static int tool_ecc_load_codes(const struct tool_ecc_args *a, unsigned steps, unsigned bytes,
                               uint8_t *codes)
{
    if (!a->ecc_file)
        return tool_ecc_parse_codes(a->ecc_list, ',', "--ecc", steps, bytes, a->scheme_name, codes);
    size_t text_size;
    uint8_t *text;
    int status = tool_ecc_read_file(a->ecc_file, &text, &text_size);
    if (status)
        return status;
    char *code_text = malloc(text_size + 1);
    if (!code_text) {
        free(text);
        return tool_error("out of memory");
    }
    memcpy(code_text, text, text_size);
    code_text[text_size] = 0;
    free(text);
    if (strlen(code_text) != text_size) {
        status = tool_fail("'%s' is not a text file of hex codes", a->ecc_file);
    } else {
        char origin[300];
        snprintf(origin, sizeof origin, "'%s'", a->ecc_file);
        status = tool_ecc_parse_codes(code_text, '\n', origin, steps, bytes, a->scheme_name, codes);
    }
    free(code_text);
    return status;
}

/* ecc check and correct: corrects each step of `data` in place against
 * its stored code and prints what each step was; `*any_uncorrectable`
 * tells whether a step could not be corrected. Returns 0 or the exit
 * status of a failed write. */
static int tool_ecc_correct_steps(const struct tool_ecc_args *a, const struct nk_ecc_engine *engine,
                                  uint8_t *data, unsigned steps, const uint8_t *codes,
                                  bool *any_uncorrectable)
{
    unsigned step = engine->step_size, bytes = engine->bytes_per_step;
    unsigned uncorrectable = 0, corrected_bits = 0;
    uint8_t calc[NK_ECC_MAX_BYTES_PER_STEP];
    if (a->json)
        printf("{\"scheme\":\"%s\",\"step_bytes\":%u,\"steps\":[", a->scheme_name, step);
    for (unsigned s = 0; s < steps; s++) {
        uint8_t *chunk = data + (size_t)s * step;
        engine->ops->calculate(engine, chunk, calc);
        int ret = engine->ops->correct(engine, chunk, codes + (size_t)s * bytes, calc);
        if (a->json)
            printf("%s{\"step\":%u,\"status\":\"%s\",\"bits\":%d}", s ? "," : "", s,
                   ret == 0  ? "clean"
                   : ret > 0 ? "corrected"
                             : "uncorrectable",
                   ret > 0 ? ret : 0);
        else if (ret == 0)
            printf("clean\n");
        else if (ret > 0)
            printf("corrected %d\n", ret);
        else
            printf("uncorrectable\n");
        if (ret > 0)
            corrected_bits += (unsigned)ret;
        if (ret < 0)
            uncorrectable++;
    }
    if (a->json)
        printf("],\"corrected_bits\":%u,\"uncorrectable_steps\":%u}\n", corrected_bits,
               uncorrectable);
    *any_uncorrectable = uncorrectable != 0;
    return fflush(stdout) ? tool_error("cannot write the output") : 0;
}

static int tool_ecc_run(int argc, char **argv)
{
    struct tool_ecc_args a;
    memset(&a, 0, sizeof a);
    int status = tool_ecc_parse(argc, argv, &a);
    if (status)
        return status;
    struct tool_ecc scheme;
    status = tool_ecc_scheme_open(&scheme, a.scheme_name);
    if (status)
        return status;
    const struct nk_ecc_engine *engine = &scheme.engine;
    unsigned step = engine->step_size, bytes = engine->bytes_per_step;

    uint8_t *data = NULL, *codes = NULL;
    size_t size = 0;
    status = tool_ecc_read_file(a.path, &data, &size);
    if (!status && (size == 0 || size % step))
        status = tool_fail("'%s' holds %zu bytes: not a whole number of %u-byte %s steps", a.path,
                           size, step, a.scheme_name);
    unsigned steps = (unsigned)(size / step);
    if (!status && a.action == TOOL_ECC_CALC) {
        status = tool_ecc_calc(&a, engine, data, steps);
    } else if (!status) {
        bool any_uncorrectable = false;
        codes = malloc((size_t)steps * bytes);
        status = codes ? tool_ecc_load_codes(&a, steps, bytes, codes) : tool_error("out of memory");
        if (!status)
            status = tool_ecc_correct_steps(&a, engine, data, steps, codes, &any_uncorrectable);
        if (!status && a.output) /* a temporary file, then renamed */
            status = tool_write_file("", a.output, data, size);
        if (!status && any_uncorrectable)
            status = 1;
    }
    free(codes);
    free(data);
    tool_ecc_free(&scheme);
    return status;
}

const struct tool_command tool_cmd_ecc = {
    .name = "ecc",
    .summary = "compute, check or correct ECC of raw data (Hamming, BCH)",
    .run = tool_ecc_run,
    .help = tool_ecc_help,
};
