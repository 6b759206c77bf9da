/* SPDX-License-Identifier: MIT */
/* nandkit bench --fs: the file-system benchmark (bench/lib/fs_bench.c). */
#include <stdio.h>
#include <stdlib.h>

#include "image.h"
#include "nandkit/diag.h"
#include "nandkit/error.h"
#include "nkfsbench.h"
#include "save.h"
#include "tool.h"

int tool_bench_fs(const struct tool_image_opts *opts, bool small, bool json, const char *svg,
                  bool progress)
{
    if (opts->path || opts->geometry)
        return tool_fail("bench --fs runs on a simulated --chip, not on %s",
                         opts->path ? opts->path : opts->geometry);
    struct nk_sim_params params;
    const char *chip = opts->chip ? opts->chip : "K9F1G08U0A";
    if (nk_sim_preset(chip, &params) != 0)
        return tool_fail("unknown chip '%s' (run `nandkit sim list` for the presets)", chip);
    struct nk_fs_bench_config config = {
        .chip = chip,
        .big_chip = "K9F2G08U0B",
        .small = small,
        .seed = opts->seed,
        .progress = progress,
    };
    struct nk_fs_bench_result *result = calloc(1, sizeof *result);
    if (!result)
        return tool_error("out of memory");
    struct nk_diag why[1] = {{""}};
    int err = nk_fs_bench_run(&config, result, why);
    if (err) {
        free(result);
        return tool_error("bench --fs failed: %s", why->text[0] ? why->text : nk_strerror(err));
    }
    if (json)
        nk_fs_bench_print_json(stdout, result);
    else
        nk_fs_bench_print_table(stdout, result);
    int status = 0;
    if (svg) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        if (!f) {
            status = tool_error("cannot write --svg '%s': out of memory", svg);
        } else {
            nk_fs_bench_write_svg(f, result);
            status = fclose(f) != 0 ? tool_error("cannot write --svg '%s'", svg)
                                    : tool_write_file("--svg ", svg, text, len);
        }
        free(text);
    }
    free(result);
    return status;
}
