/* SPDX-License-Identifier: MIT */
/* Benchmark output: a readable table, the --compare matrix, JSON, SVG. */
#include <math.h>
#include <string.h>

#include "nkbench.h"

/* Percent above (+) or below (-) the limit. */
static double nk_vs(double value, double limit)
{
    return limit > 0 ? 100.0 * (value / limit - 1.0) : 0.0;
}

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
        fprintf(out, "%-22s %9s %9s %9s %9s %9s %7s %9s | %8s %8s %8s %8s\n", "operation",
                "median us", "p99 us", "min us", "(mean)", "limit us", "ratio", "max-limit",
                "array", "bus", "ECC cpu", "other");
        for (int op = 0; op < NK_BENCH_OP_COUNT; op++) {
            const struct nk_bench_stat *s = &res->ops[op];
            if (!s->count)
                continue;
            char limit[16] = "-", ratio[16] = "-", limit_max[16] = "-";
            if (s->limit_us > 0) {
                snprintf(limit, sizeof limit, "%.2f", s->limit_us);
                snprintf(ratio, sizeof ratio, "%.4f", s->median_us / s->limit_us);
                snprintf(limit_max, sizeof limit_max, "%.2f", s->limit_max_us);
            }
            fprintf(out, "%-22s %9.2f %9.2f %9.2f %9.2f %9s %7s %9s | %8.2f %8.2f %8.3f %8.3f\n",
                    nk_bench_op_label((enum nk_bench_op)op), s->median_us, s->p99_us, s->min_us,
                    s->avg_us, limit, ratio, limit_max, s->array_us, s->bus_us, s->ecc_cpu_us,
                    s->other_cpu_us);
        }
        fprintf(out, "median per operation; ratio = median / limit at the typical timing the chip "
                     "runs; max-limit at the datasheet's\nmaximum tR/tPROG/tBERS; (mean) is an "
                     "extra: one host hiccup moves it, not the median\n");
        const struct nk_bench_stat *rd = &res->ops[NK_BENCH_PAGE_READ];
        const struct nk_bench_stat *pg = &res->ops[NK_BENCH_PAGE_PROGRAM];
        const struct nk_bench_stat *er = &res->ops[NK_BENCH_BLOCK_ERASE];
        if (rd->count && pg->count && er->count && rd->limit_us > 0)
            fprintf(out,
                    "vs datasheet limit (median): page read %+.2f %%, page program %+.2f %%, block "
                    "erase %+.3f %%\n",
                    nk_vs(rd->median_us, rd->limit_us), nk_vs(pg->median_us, pg->limit_us),
                    nk_vs(er->median_us, er->limit_us));
        const struct nk_bench_stat *sp = &res->seq_paged, *sc = &res->seq_continuous;
        if (sp->count && sc->count && sc->median_us > 0)
            fprintf(out,
                    "sequential data of a block: page at a time %.2f us (limit %.2f), continuous "
                    "read %.2f us (limit %.2f);\ncontinuous read takes %.4f of the page-at-a-time "
                    "time (limits: %.4f)\n",
                    sp->median_us, sp->limit_us, sc->median_us, sc->limit_us,
                    sc->median_us / sp->median_us,
                    sp->limit_us > 0 ? sc->limit_us / sp->limit_us : 0.0);
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

/* The gain of one op, or "within noise" when the medians differ by less
 * than the two runs' noise. */
static void nk_print_gain(FILE *out, const struct nk_bench_stat *before,
                          const struct nk_bench_stat *after, const char *what)
{
    if (nk_bench_differs(before, after))
        fprintf(out, "%+.2f %% %s", nk_gain(before->median_us, after->median_us), what);
    else
        fprintf(out, "no %s difference beyond the noise (%.2f vs %.2f us, noise %.2f us)", what,
                before->median_us, after->median_us, before->noise_us + after->noise_us);
}

/* One lever's read and program throughput gain, when both runs exist. */
static void nk_print_lever(FILE *out, const char *what, const struct nk_bench_result *before,
                           const struct nk_bench_result *after)
{
    if (!before || !after)
        return;
    fprintf(out, "%s: ", what);
    nk_print_gain(out, &before->ops[NK_BENCH_PAGE_READ], &after->ops[NK_BENCH_PAGE_READ], "reads");
    fputs(", ", out);
    nk_print_gain(out, &before->ops[NK_BENCH_PAGE_PROGRAM], &after->ops[NK_BENCH_PAGE_PROGRAM],
                  "writes");
    fputc('\n', out);
}

void nk_bench_print_compare(FILE *out, const struct nk_bench_result *results, unsigned count)
{
    if (!count)
        return;
    fprintf(out,
            "%s: ECC x loop matrix, %s time, median microseconds per page (limit: read %.2f, "
            "program %.2f)\n",
            results[0].chip, results[0].clock, results[0].ops[NK_BENCH_PAGE_READ].limit_us,
            results[0].ops[NK_BENCH_PAGE_PROGRAM].limit_us);
    fprintf(out, "%-14s %-9s %10s %8s %7s %10s %8s %7s %10s %10s\n", "ECC", "loop", "read us",
            "vs lim", "noise", "program us", "vs lim", "noise", "ECC rd us", "ECC pg us");
    for (unsigned r = 0; r < count; r++) {
        const struct nk_bench_stat *rd = &results[r].ops[NK_BENCH_PAGE_READ];
        const struct nk_bench_stat *pg = &results[r].ops[NK_BENCH_PAGE_PROGRAM];
        fprintf(out, "%-14s %-9s %10.2f %+7.2f%% %7.3f %10.2f %+7.2f%% %7.3f %10.3f %10.3f\n",
                results[r].ecc, results[r].loop, rd->median_us, nk_vs(rd->median_us, rd->limit_us),
                rd->noise_us, pg->median_us, nk_vs(pg->median_us, pg->limit_us), pg->noise_us,
                rd->ecc_cpu_us, pg->ecc_cpu_us);
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
    fprintf(out, "noise = half the interquartile range of one run's operations, or half the "
                 "drift between two runs of the\nfirst configuration when larger; a difference "
                 "within both runs' noise is not attributed\n");
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

static void nk_json_stat(FILE *out, bool first, const char *key, const struct nk_bench_stat *s);

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
        nk_json_stat(out, first, nk_bench_op_key((enum nk_bench_op)op), s);
        first = false;
    }
    fputc('}', out);
    if (res->seq_paged.count && res->seq_continuous.count) {
        fputs(",\"sequential_read\":{", out);
        nk_json_stat(out, true, "page_at_a_time", &res->seq_paged);
        nk_json_stat(out, false, "continuous", &res->seq_continuous);
        fputs(",\"ratio\":", out);
        nk_json_number(out, res->seq_paged.median_us > 0
                                ? res->seq_continuous.median_us / res->seq_paged.median_us
                                : NAN);
        fputc('}', out);
    }
    fputs(",\"fs\":[]", out);
}

/* One figure as "key":{count, statistics, limits, breakdown}. */
static void nk_json_stat(FILE *out, bool first, const char *key, const struct nk_bench_stat *s)
{
    {
        fprintf(out, "%s\"%s\":{\"count\":%u", first ? "" : ",", key, s->count);
        const char *keys[] = {"median_us",    "p99_us",  "min_us",    "max_us",
                              "noise_us",     "mean_us", "stddev_us", "limit_us",
                              "limit_max_us", "ratio",   "ratio_max"};
        double values[] = {s->median_us,
                           s->p99_us,
                           s->min_us,
                           s->max_us,
                           s->noise_us,
                           s->avg_us,
                           s->stddev_us,
                           s->limit_us > 0 ? s->limit_us : NAN,
                           s->limit_max_us > 0 ? s->limit_max_us : NAN,
                           s->limit_us > 0 ? s->median_us / s->limit_us : NAN,
                           s->limit_max_us > 0 ? s->median_us / s->limit_max_us : NAN};
        for (unsigned k = 0; k < sizeof keys / sizeof keys[0]; k++) {
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
    }
}

void nk_bench_print_json(FILE *out, const struct nk_bench_result *results, unsigned count)
{
    fprintf(out, "{\"tool\":\"nandkit bench\",\"format\":%d,\"benchmark\":\"%s\",",
            NK_BENCH_JSON_FORMAT, count == 1 ? "page" : "compare");
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

static void nk_svg_rect(FILE *out, double x, double y, double w, double h, const char *fill,
                        double opacity)
{
    if (w <= 0)
        return;
    fprintf(out,
            "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\" "
            "fill-opacity=\"%.2f\"/>\n",
            x, y, w, h, fill, opacity);
}

static void nk_svg_line(FILE *out, double x1, double y1, double x2, double y2, const char *stroke,
                        double width, const char *dash)
{
    fprintf(out,
            "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" "
            "stroke-width=\"%.2f\"%s%s%s/>\n",
            x1, y1, x2, y2, stroke, width, dash ? " stroke-dasharray=\"" : "", dash ? dash : "",
            dash ? "\"" : "");
}

/* A round step for an axis spanning `span` with about `ticks` ticks. */
static double nk_svg_step(double span, unsigned ticks)
{
    double raw = span / ticks, base = pow(10.0, floor(log10(raw)));
    double steps[] = {1, 2, 2.5, 5, 10};
    for (unsigned i = 0; i < 5; i++)
        if (steps[i] * base >= raw)
            return steps[i] * base;
    return 10 * base;
}

/* A horizontal axis from `lo` to `hi` mapped to x0..x1 at `y`, with ticks,
 * grid lines up to `grid_top` and a title. */
static void nk_svg_axis(FILE *out, double x0, double x1, double y, double grid_top, double lo,
                        double hi, const char *format, const char *title)
{
    double step = nk_svg_step(hi - lo, 6);
    nk_svg_line(out, x0, y, x1, y, "#333", 1, NULL);
    for (double v = ceil(lo / step - 1e-9) * step; v <= hi + 1e-9; v += step) {
        double x = x0 + (v - lo) / (hi - lo) * (x1 - x0);
        char label[32];
        snprintf(label, sizeof label, format, fabs(v) < 1e-12 ? 0.0 : v);
        nk_svg_line(out, x, grid_top, x, y, "#e4e4e4", 1, NULL);
        nk_svg_line(out, x, y, x, y + 4, "#333", 1, NULL);
        nk_svg_text(out, x, y + 16, "middle", 11, label);
    }
    nk_svg_text(out, (x0 + x1) / 2, y + 32, "middle", 12, title);
}

#define NK_SVG_ARRAY "#4e79a7"
#define NK_SVG_BUS "#f28e2b"
#define NK_SVG_ECC "#e15759"
#define NK_SVG_OTHER "#59a14f"

static void nk_svg_header(FILE *out, double width, double height)
{
    fprintf(out,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" font-family=\"DejaVu Sans, sans-serif\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            width, height, width, height);
}

/* One run: a stacked bar per operation (array, bus, ECC CPU, other) in
 * percent of its datasheet limit, and beside it the distance of the median
 * from the limit, zoomed so that 1-3 % differences are plain, with the
 * min..p99 spread as a whisker. */
static void nk_svg_run(FILE *out, const struct nk_bench_result *res)
{
    const double row = 38, top = 92, label_x = 200, a0 = 210, a1 = 560, b0 = 610, b1 = 930;
    unsigned rows = 0;
    for (int op = 0; op < NK_BENCH_OP_COUNT; op++)
        rows += res->ops[op].count && res->ops[op].limit_us > 0;
    double bottom = top + rows * row;
    double height = bottom + 110;
    nk_svg_header(out, 960, height);
    char text[200];
    snprintf(text, sizeof text, "nandkit bench: %s, ECC %s, %s loop", res->chip, res->ecc,
             res->loop);
    nk_svg_text(out, 20, 28, "start", 18, text);
    snprintf(text, sizeof text,
             "%s time; median of %u page / %u block operations per figure; limit = datasheet "
             "timing the chip runs (typical)",
             strcmp(res->clock, "sim") == 0 ? "simulated (virtual device + measured library CPU)"
                                            : "wall",
             res->ops[NK_BENCH_PAGE_READ].count, res->ops[NK_BENCH_BLOCK_ERASE].count);
    nk_svg_text(out, 20, 48, "start", 11, text);
    nk_svg_text(out, (a0 + a1) / 2, top - 14, "middle", 13, "where the time goes (% of limit)");
    nk_svg_text(out, (b0 + b1) / 2, top - 14, "middle", 13, "median vs limit (zoomed)");

    /* Zoomed axis: sized by the medians (a p99 far out, from a host
     * hiccup, is cut at the edge and labelled, so that it cannot squash the
     * 1-3 % differences the chart is for). */
    double lo = 0, hi = 1;
    for (int op = 0; op < NK_BENCH_OP_COUNT; op++) {
        const struct nk_bench_stat *s = &res->ops[op];
        if (!s->count || s->limit_us <= 0)
            continue;
        lo = fmin(lo, nk_vs(s->min_us, s->limit_us));
        hi = fmax(hi, 1.5 * nk_vs(s->median_us, s->limit_us));
    }
    double step = nk_svg_step(hi - lo, 6);
    lo = floor(lo / step) * step;
    hi = ceil(hi / step) * step + step;
    const double a_hi = 130;
    nk_svg_axis(out, a0, a1, bottom, top - 4, 0, a_hi, "%.0f %%",
                "time per operation, % of its limit");
    nk_svg_axis(out, b0, b1, bottom, top - 4, lo, hi, "%+.1f %%",
                "median above (+) or below (-) the limit, %");
    double x100 = a0 + 100.0 / a_hi * (a1 - a0), xz = b0 + (0 - lo) / (hi - lo) * (b1 - b0);
    unsigned i = 0;
    for (int op = 0; op < NK_BENCH_OP_COUNT; op++) {
        const struct nk_bench_stat *s = &res->ops[op];
        if (!s->count || s->limit_us <= 0)
            continue;
        double y = top + i * row, bar = 16, yb = y + 4;
        nk_svg_text(out, label_x, y + 13, "end", 12, nk_bench_op_label((enum nk_bench_op)op));
        snprintf(text, sizeof text, "limit %.2f us", s->limit_us);
        nk_svg_text(out, label_x, y + 27, "end", 10, text);
        double scale = (a1 - a0) / a_hi / s->limit_us * 100.0, x = a0;
        double parts[4] = {s->array_us, s->bus_us, s->ecc_cpu_us, s->other_cpu_us};
        const char *fills[4] = {NK_SVG_ARRAY, NK_SVG_BUS, NK_SVG_ECC, NK_SVG_OTHER};
        bool stacked = parts[0] + parts[1] + parts[2] + parts[3] > 0;
        for (unsigned k = 0; k < 4 && stacked; k++) {
            nk_svg_rect(out, x, yb, parts[k] * scale, bar, fills[k], 1.0);
            x += parts[k] * scale;
        }
        if (!stacked) {
            nk_svg_rect(out, a0, yb, s->median_us * scale, bar, "#888", 1.0);
            x = a0 + s->median_us * scale;
        }
        snprintf(text, sizeof text, "%.2f us", s->median_us);
        nk_svg_text(out, fmin(x, x100) + 32, yb + 12, "start", 10, text);
        /* zoomed: whisker min..p99, dot at the median, value */
        double xm = b0 + (nk_vs(s->min_us, s->limit_us) - lo) / (hi - lo) * (b1 - b0);
        double p99 = nk_vs(s->p99_us, s->limit_us);
        double xp = b0 + (p99 - lo) / (hi - lo) * (b1 - b0);
        double xd = b0 + (nk_vs(s->median_us, s->limit_us) - lo) / (hi - lo) * (b1 - b0);
        nk_svg_line(out, xm, yb + bar / 2, fmin(xp, b1), yb + bar / 2, "#555", 1.5, NULL);
        nk_svg_line(out, xm, yb + 3, xm, yb + bar - 3, "#555", 1.5, NULL);
        if (xp <= b1) {
            nk_svg_line(out, xp, yb + 3, xp, yb + bar - 3, "#555", 1.5, NULL);
        } else {
            fprintf(out, "<path d=\"M %.2f %.2f l -6 -4 l 0 8 z\" fill=\"#555\"/>\n", b1,
                    yb + bar / 2);
            snprintf(text, sizeof text, "p99 %+.1f %%", p99);
            nk_svg_text(out, b1 - 4, yb + bar + 9, "end", 9, text);
        }
        /* The distance from the limit, split: device time beyond the
         * limit's formula (status reads, delays, code bytes), ECC CPU,
         * other CPU. */
        double per_pct = (b1 - b0) / (hi - lo) * 100.0 / s->limit_us;
        double excess[3] = {s->array_us + s->bus_us - s->limit_us, s->ecc_cpu_us, s->other_cpu_us};
        const char *excess_fill[3] = {NK_SVG_BUS, NK_SVG_ECC, NK_SVG_OTHER};
        double xs = xz;
        if (stacked) {
            for (unsigned k = 0; k < 3; k++) {
                double w = excess[k] * per_pct;
                nk_svg_rect(out, w < 0 ? xs + w : xs, yb + 3, fabs(w), bar - 6, excess_fill[k],
                            0.8);
                xs += w;
            }
        } else {
            nk_svg_rect(out, fmin(xz, xd), yb + 3, fabs(xd - xz), bar - 6, "#888", 0.8);
        }
        fprintf(out, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"4\" fill=\"#1f3f77\"/>\n", xd,
                yb + bar / 2);
        double mx = nk_vs(s->limit_max_us, s->limit_us);
        if (s->limit_max_us > s->limit_us && mx < hi) {
            double xx = b0 + (mx - lo) / (hi - lo) * (b1 - b0);
            nk_svg_line(out, xx, y + 1, xx, y + row - 6, "#999", 1.5, "2,2");
        }
        double vs = nk_vs(s->median_us, s->limit_us);
        snprintf(text, sizeof text, "%+.2f %%", fabs(vs) < 0.005 ? 0.0 : vs);
        nk_svg_text(out, fmin(fmax(xd, fmin(xp, b1)) + 6, b1 - 40), yb - 1, "start", 10, text);
        i++;
    }
    nk_svg_line(out, x100, top - 6, x100, bottom, "#000", 1.5, "5,3");
    nk_svg_text(out, x100 + 3, top - 1, "start", 10, "limit");
    nk_svg_line(out, xz, top - 6, xz, bottom, "#000", 1.5, "5,3");
    /* legend */
    double ly = height - 36, lx = 20;
    const char *names[] = {"array busy (tR/tPROG/tBERS)",
                           "bus transfer + cycles (beyond the limit: extra cycles)", "ECC CPU",
                           "other library CPU"};
    const char *fills[] = {NK_SVG_ARRAY, NK_SVG_BUS, NK_SVG_ECC, NK_SVG_OTHER};
    for (unsigned k = 0; k < 4; k++) {
        nk_svg_rect(out, lx, ly - 10, 12, 12, fills[k], 1.0);
        nk_svg_text(out, lx + 16, ly, "start", 11, names[k]);
        lx += 16 + 6.2 * strlen(names[k]) + 14;
    }
    nk_svg_line(out, lx, ly - 4, lx + 24, ly - 4, "#555", 1.5, NULL);
    nk_svg_text(out, lx + 28, ly, "start", 11, "min..p99");
    lx += 100;
    fprintf(out, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"4\" fill=\"#1f3f77\"/>\n", lx, ly - 4);
    nk_svg_text(out, lx + 8, ly, "start", 11, "median");
    nk_svg_line(out, 20, ly + 14, 44, ly + 14, "#999", 1.5, "2,2");
    nk_svg_text(out, 48, ly + 18, "start", 11,
                "limit at the datasheet's maximum tR/tPROG/tBERS (when within the zoomed axis)");
}

/* --compare: one grouped chart, the distance of each run's median from the
 * limit per operation, one bar per ECC x loop. */
static void nk_svg_compare(FILE *out, const struct nk_bench_result *results, unsigned count)
{
    static const enum nk_bench_op ops[] = {NK_BENCH_PAGE_READ, NK_BENCH_PAGE_READ_DATA,
                                           NK_BENCH_PAGE_PROGRAM, NK_BENCH_BLOCK_ERASE,
                                           NK_BENCH_BLOCK_WRITE};
    static const char *const palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#59a14f",
                                          "#b07aa1", "#76b7b2", "#edc948", "#9c755f"};
    const unsigned nops = sizeof ops / sizeof ops[0];
    const double bar = 9, gap = 2, group_gap = 22, top = 84, x0 = 260, x1 = 880;
    double group = count * (bar + gap) + group_gap;
    double bottom = top + nops * group;
    double height = bottom + 100;
    nk_svg_header(out, 960, height);
    char text[200];
    snprintf(text, sizeof text, "nandkit bench --compare: %s, every ECC x data loop",
             count ? results[0].chip : "");
    nk_svg_text(out, 20, 28, "start", 18, text);
    snprintf(text, sizeof text,
             "%s time; median per operation, in %% above the datasheet limit (typical timing); "
             "whisker = noise (half the IQR)",
             count ? results[0].clock : "");
    nk_svg_text(out, 20, 48, "start", 11, text);
    double lo = 0, hi = 1;
    for (unsigned o = 0; o < nops; o++)
        for (unsigned r = 0; r < count; r++) {
            const struct nk_bench_stat *s = &results[r].ops[ops[o]];
            if (s->limit_us <= 0)
                continue;
            lo = fmin(lo, nk_vs(s->median_us - s->noise_us, s->limit_us));
            hi = fmax(hi, nk_vs(s->median_us + s->noise_us, s->limit_us));
        }
    double step = nk_svg_step(hi - lo, 6);
    lo = floor(lo / step) * step;
    hi = ceil(hi / step) * step + step;
    nk_svg_axis(out, x0, x1, bottom, top - 4, lo, hi, "%+.1f %%",
                "median above (+) or below (-) the datasheet limit, %");
    double xz = x0 + (0 - lo) / (hi - lo) * (x1 - x0);
    /* ECC names in order of first appearance pick the colours. */
    const char *ecc_names[8];
    unsigned ecc_count = 0;
    for (unsigned r = 0; r < count; r++) {
        bool seen = false;
        for (unsigned e = 0; e < ecc_count; e++)
            seen |= strcmp(ecc_names[e], results[r].ecc) == 0;
        if (!seen && ecc_count < 8)
            ecc_names[ecc_count++] = results[r].ecc;
    }
    for (unsigned o = 0; o < nops; o++) {
        double y = top + o * group;
        const struct nk_bench_stat *first = &results[0].ops[ops[o]];
        snprintf(text, sizeof text, "%s", nk_bench_op_label(ops[o]));
        nk_svg_text(out, 20, y + 12, "start", 13, text);
        snprintf(text, sizeof text, "limit %.2f us", first->limit_us);
        nk_svg_text(out, 20, y + 27, "start", 10, text);
        for (unsigned r = 0; r < count; r++) {
            const struct nk_bench_stat *s = &results[r].ops[ops[o]];
            double yb = y + r * (bar + gap);
            unsigned e = 0;
            while (e + 1 < ecc_count && strcmp(ecc_names[e], results[r].ecc) != 0)
                e++;
            bool light = strcmp(results[r].loop, "byte") == 0;
            snprintf(text, sizeof text, "%s / %s", results[r].ecc, results[r].loop);
            nk_svg_text(out, x0 - 6, yb + bar - 1, "end", 9, text);
            if (s->limit_us <= 0)
                continue;
            double v = nk_vs(s->median_us, s->limit_us);
            double xv = x0 + (v - lo) / (hi - lo) * (x1 - x0);
            nk_svg_rect(out, fmin(xz, xv), yb, fabs(xv - xz), bar, palette[e % 8],
                        light ? 0.5 : 1.0);
            double n = s->noise_us / s->limit_us * 100.0 / (hi - lo) * (x1 - x0);
            nk_svg_line(out, xv - n, yb + bar / 2, xv + n, yb + bar / 2, "#222", 1, NULL);
            snprintf(text, sizeof text, "%+.2f %% (%.2f us)", fabs(v) < 0.005 ? 0.0 : v,
                     s->median_us);
            nk_svg_text(out, fmax(xv, xz) + n + 4, yb + bar - 1, "start", 9, text);
        }
    }
    nk_svg_line(out, xz, top - 6, xz, bottom, "#000", 1.5, "5,3");
    nk_svg_text(out, xz + 3, top - 8, "start", 10, "limit");
    double lx = 20, ly = height - 30;
    for (unsigned e = 0; e < ecc_count; e++) {
        nk_svg_rect(out, lx, ly - 10, 12, 12, palette[e % 8], 1.0);
        snprintf(text, sizeof text, "ECC %s", ecc_names[e]);
        nk_svg_text(out, lx + 16, ly, "start", 11, text);
        lx += 16 + 7.0 * strlen(text) + 14;
    }
    nk_svg_rect(out, lx, ly - 10, 12, 12, "#777", 0.5);
    nk_svg_text(out, lx + 16, ly, "start", 11, "light = byte loop, full = unrolled");
}

void nk_bench_write_svg(FILE *out, const struct nk_bench_result *results, unsigned count)
{
    if (count == 1)
        nk_svg_run(out, &results[0]);
    else
        nk_svg_compare(out, results, count);
    fputs("</svg>\n", out);
}
