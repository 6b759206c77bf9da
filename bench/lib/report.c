/* SPDX-License-Identifier: MIT */
/* Benchmark output: a readable table, the --compare matrix, JSON, SVG. */
#include <math.h>
#include <string.h>

#include "nkbench.h"

void nk_bench_print_table(FILE *out, const struct nk_bench_result *results, unsigned count)
{
    for (unsigned r = 0; r < count; r++) {
        const struct nk_bench_result *res = &results[r];
        fprintf(out, "%s: ECC %s, %s loop, %s time%s\n", res->chip, res->ecc, res->loop, res->clock,
                strcmp(res->clock, "sim") == 0
                    ? " (virtual device time + measured host CPU of the library path)"
                    : "");
        if (res->ops[NK_BENCH_PAGE_READ].limit_us <= 0)
            fprintf(out, "no datasheet timing for this device: limits not shown (bench "
                         "--chip NAME /dev/mtdN takes them from a known part)\n");
        fprintf(out, "%-22s %9s %9s %9s %8s %9s %7s | %8s %8s %8s %8s\n", "operation", "avg us",
                "min us", "max us", "stddev", "limit us", "ratio", "array", "bus", "ECC cpu",
                "other");
        for (int op = 0; op < NK_BENCH_OP_COUNT; op++) {
            const struct nk_bench_stat *s = &res->ops[op];
            if (!s->count)
                continue;
            char limit[16] = "-", ratio[16] = "-";
            if (s->limit_us > 0) {
                snprintf(limit, sizeof limit, "%.2f", s->limit_us);
                snprintf(ratio, sizeof ratio, "%.4f", s->avg_us / s->limit_us);
            }
            fprintf(out, "%-22s %9.2f %9.2f %9.2f %8.2f %9s %7s | %8.2f %8.2f %8.3f %8.3f\n",
                    nk_bench_op_label((enum nk_bench_op)op), s->avg_us, s->min_us, s->max_us,
                    s->stddev_us, limit, ratio, s->array_us, s->bus_us, s->ecc_cpu_us,
                    s->other_cpu_us);
        }
        const struct nk_bench_stat *rd = &res->ops[NK_BENCH_PAGE_READ];
        const struct nk_bench_stat *pg = &res->ops[NK_BENCH_PAGE_PROGRAM];
        const struct nk_bench_stat *er = &res->ops[NK_BENCH_BLOCK_ERASE];
        if (rd->count && pg->count && er->count && rd->limit_us > 0)
            fprintf(out,
                    "vs datasheet limit: page read %+.2f %%, page program %+.2f %%, block erase "
                    "%+.3f %%\n",
                    100.0 * (rd->avg_us / rd->limit_us - 1.0),
                    100.0 * (pg->avg_us / pg->limit_us - 1.0),
                    100.0 * (er->avg_us / er->limit_us - 1.0));
        if (r + 1 < count)
            fputc('\n', out);
    }
}

/* Speedup of `b` over `a` in throughput, percent (a slower than b > 0). */
static double nk_gain(double a, double b)
{
    return b > 0 ? 100.0 * (a / b - 1.0) : 0.0;
}

static const struct nk_bench_result *nk_find(const struct nk_bench_result *results, unsigned count,
                                             const char *ecc_prefix, const char *loop)
{
    for (unsigned r = 0; r < count; r++) {
        if (strncmp(results[r].ecc, ecc_prefix, strlen(ecc_prefix)) == 0 &&
            strcmp(results[r].loop, loop) == 0)
            return &results[r];
    }
    return NULL;
}

/* One lever's read and program throughput gain, when both runs exist. */
static void nk_print_lever(FILE *out, const char *what, const struct nk_bench_result *before,
                           const struct nk_bench_result *after)
{
    if (!before || !after)
        return;
    fprintf(out, "%s: %+.2f %% reads, %+.2f %% writes\n", what,
            nk_gain(before->ops[NK_BENCH_PAGE_READ].avg_us, after->ops[NK_BENCH_PAGE_READ].avg_us),
            nk_gain(before->ops[NK_BENCH_PAGE_PROGRAM].avg_us,
                    after->ops[NK_BENCH_PAGE_PROGRAM].avg_us));
}

void nk_bench_print_compare(FILE *out, const struct nk_bench_result *results, unsigned count)
{
    if (!count)
        return;
    fprintf(out,
            "%s: ECC x loop matrix, %s time, microseconds per page (limit: read %.2f, "
            "program %.2f)\n",
            results[0].chip, results[0].clock, results[0].ops[NK_BENCH_PAGE_READ].limit_us,
            results[0].ops[NK_BENCH_PAGE_PROGRAM].limit_us);
    fprintf(out, "%-14s %-9s %10s %8s %10s %8s %10s %10s\n", "ECC", "loop", "read us", "vs lim",
            "program us", "vs lim", "ECC rd us", "ECC pg us");
    for (unsigned r = 0; r < count; r++) {
        const struct nk_bench_stat *rd = &results[r].ops[NK_BENCH_PAGE_READ];
        const struct nk_bench_stat *pg = &results[r].ops[NK_BENCH_PAGE_PROGRAM];
        fprintf(out, "%-14s %-9s %10.2f %+7.2f%% %10.2f %+7.2f%% %10.3f %10.3f\n", results[r].ecc,
                results[r].loop, rd->avg_us, 100.0 * (rd->avg_us / rd->limit_us - 1.0), pg->avg_us,
                100.0 * (pg->avg_us / pg->limit_us - 1.0), rd->ecc_cpu_us, pg->ecc_cpu_us);
    }
    /* The eCos library's two levers (ecos-devel, 2009), measured the same way. */
    const struct nk_bench_result *sw_byte = nk_find(results, count, "hamming", "byte");
    const struct nk_bench_result *hw_byte = nk_find(results, count, "hw", "byte");
    const struct nk_bench_result *hw_unrolled = nk_find(results, count, "hw", "unrolled");
    nk_print_lever(out, "hardware ECC (vs software Hamming, byte loops)", sw_byte, hw_byte);
    nk_print_lever(out, "unrolled loops (vs byte loops, hardware ECC)", hw_byte, hw_unrolled);
    nk_print_lever(out,
                   "both (the eCos library: ARM7 software ECC + byte loops -> ARM9 hardware "
                   "ECC + unrolled)",
                   sw_byte, hw_unrolled);
}

static void nk_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', out);
        if ((unsigned char)*s < 0x20)
            fprintf(out, "\\u%04x", *s);
        else
            fputc(*s, out);
    }
    fputc('"', out);
}

static void nk_json_number(FILE *out, double v)
{
    if (isfinite(v))
        fprintf(out, "%.4f", v);
    else
        fputs("null", out);
}

static void nk_json_run(FILE *out, const struct nk_bench_result *res)
{
    fputs("\"chip\":", out);
    nk_json_string(out, res->chip);
    fputs(",\"ecc\":", out);
    nk_json_string(out, res->ecc);
    fputs(",\"loop\":", out);
    nk_json_string(out, res->loop);
    fputs(",\"clock\":", out);
    nk_json_string(out, res->clock);
    fputs(",\"ecc_cpu_us_per_page\":{\"read\":", out);
    nk_json_number(out, res->ecc_page_read_us);
    fputs(",\"program\":", out);
    nk_json_number(out, res->ecc_page_program_us);
    fputs("},\"ops\":{", out);
    bool first = true;
    for (int op = 0; op < NK_BENCH_OP_COUNT; op++) {
        const struct nk_bench_stat *s = &res->ops[op];
        if (!s->count)
            continue;
        fprintf(out, "%s\"%s\":{\"count\":%u", first ? "" : ",",
                nk_bench_op_key((enum nk_bench_op)op), s->count);
        const char *keys[] = {"avg_us", "min_us", "max_us", "stddev_us", "limit_us", "ratio"};
        double values[] = {s->avg_us,
                           s->min_us,
                           s->max_us,
                           s->stddev_us,
                           s->limit_us > 0 ? s->limit_us : NAN,
                           s->limit_us > 0 ? s->avg_us / s->limit_us : NAN};
        for (unsigned k = 0; k < 6; k++) {
            fprintf(out, ",\"%s\":", keys[k]);
            nk_json_number(out, values[k]);
        }
        fputs(",\"breakdown_us\":{\"array\":", out);
        nk_json_number(out, s->array_us);
        fputs(",\"bus\":", out);
        nk_json_number(out, s->bus_us);
        fputs(",\"ecc_cpu\":", out);
        nk_json_number(out, s->ecc_cpu_us);
        fputs(",\"other_cpu\":", out);
        nk_json_number(out, s->other_cpu_us);
        fputs("}}", out);
        first = false;
    }
    fputs("},\"fs\":[]", out);
}

void nk_bench_print_json(FILE *out, const struct nk_bench_result *results, unsigned count)
{
    fputs("{\"tool\":\"nandkit bench\",\"format\":1,", out);
    if (count == 1) {
        nk_json_run(out, &results[0]);
    } else {
        fputs("\"chip\":", out);
        nk_json_string(out, count ? results[0].chip : "");
        fputs(",\"runs\":[", out);
        for (unsigned r = 0; r < count; r++) {
            fputs(r ? ",{" : "{", out);
            nk_json_run(out, &results[r]);
            fputc('}', out);
        }
        fputc(']', out);
    }
    fputs("}\n", out);
}

/* ----- SVG ------------------------------------------------------------------------ */

static void nk_svg_text(FILE *out, double x, double y, const char *anchor, int size,
                        const char *text)
{
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\">", x, y, anchor,
            size);
    for (; *text; text++) {
        if (*text == '<')
            fputs("&lt;", out);
        else if (*text == '>')
            fputs("&gt;", out);
        else if (*text == '&')
            fputs("&amp;", out);
        else
            fputc(*text, out);
    }
    fputs("</text>\n", out);
}

/* One horizontal bar chart: rows of (label, measured, limit), scaled to the
 * largest value. Returns the height used. */
static double nk_svg_bars(FILE *out, double top, const char *title, const char *const *labels,
                          const double *measured, const double *limits, unsigned rows)
{
    const double left = 230, width = 520, bar = 12;
    double max = 0;
    for (unsigned i = 0; i < rows; i++) {
        if (measured[i] > max)
            max = measured[i];
        if (limits[i] > max)
            max = limits[i];
    }
    if (max <= 0)
        max = 1;
    nk_svg_text(out, 20, top + 16, "start", 15, title);
    double y = top + 30;
    for (unsigned i = 0; i < rows; i++) {
        char value[64];
        nk_svg_text(out, left - 8, y + bar + 4, "end", 12, labels[i]);
        fprintf(out,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#3b7dd8\"/>\n",
                left, y, width * measured[i] / max, bar);
        snprintf(value, sizeof value, "%.2f us", measured[i]);
        nk_svg_text(out, left + width * measured[i] / max + 4, y + bar - 2, "start", 11, value);
        if (limits[i] > 0) {
            fprintf(out,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                    "fill=\"#b0b0b0\"/>\n",
                    left, y + bar + 1, width * limits[i] / max, bar / 2);
        }
        y += 2 * bar + 8;
    }
    return y - top + 10;
}

void nk_bench_write_svg(FILE *out, const struct nk_bench_result *results, unsigned count)
{
    unsigned page_ops = NK_BENCH_PAGE_PROGRAM + 1;
    double height = 80 + count * (40 + page_ops * 32.0) + (count > 1 ? 60 + 2 * count * 32.0 : 0);
    fprintf(out,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"860\" height=\"%.0f\" "
            "viewBox=\"0 0 860 %.0f\" font-family=\"sans-serif\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            height, height);
    char title[160];
    snprintf(title, sizeof title,
             "nandkit bench: %s (%s time); blue = measured, grey = datasheet limit",
             count ? results[0].chip : "", count ? results[0].clock : "");
    nk_svg_text(out, 20, 28, "start", 17, title);
    double y = 50;
    for (unsigned r = 0; r < count; r++) {
        const char *labels[NK_BENCH_OP_COUNT];
        double measured[NK_BENCH_OP_COUNT], limits[NK_BENCH_OP_COUNT];
        for (unsigned op = 0; op < page_ops; op++) {
            labels[op] = nk_bench_op_label((enum nk_bench_op)op);
            measured[op] = results[r].ops[op].avg_us;
            limits[op] = results[r].ops[op].limit_us;
        }
        snprintf(title, sizeof title, "ECC %s, %s loop", results[r].ecc, results[r].loop);
        y += nk_svg_bars(out, y, title, labels, measured, limits, page_ops);
    }
    if (count > 1) {
        const char *labels[64];
        char names[64][48];
        double measured[64], limits[64];
        unsigned rows = 0;
        for (unsigned r = 0; r < count && rows + 2 <= 64; r++) {
            for (int which = 0; which < 2; which++) {
                enum nk_bench_op op = which ? NK_BENCH_PAGE_PROGRAM : NK_BENCH_PAGE_READ;
                snprintf(names[rows], sizeof names[rows], "%s %s/%s", which ? "program" : "read",
                         results[r].ecc, results[r].loop);
                labels[rows] = names[rows];
                measured[rows] = results[r].ops[op].avg_us;
                limits[rows] = results[r].ops[op].limit_us;
                rows++;
            }
        }
        nk_svg_bars(out, y, "ECC x loop matrix: page read and program", labels, measured, limits,
                    rows);
    }
    fputs("</svg>\n", out);
}
