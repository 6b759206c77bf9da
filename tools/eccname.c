/* SPDX-License-Identifier: MIT */
/*
 * ECC engines by name, as the commands' --ecc and `ecc --scheme` take them:
 * the software engines the core has, with short forms for the common ones.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image.h"
#include "nandkit/error.h"
#include "tool.h"

int tool_ecc_by_name(struct tool_ecc *e, const char *name, const char *what)
{
    memset(e, 0, sizeof *e);
    static const struct {
        const char *name;
        unsigned step;
        bool sm_order;
    } hamming[] = {
        {"hamming", 256, false},      {"hamming256", 256, false},   {"hamming512", 512, false},
        {"hamming256-sm", 256, true}, {"hamming512-sm", 512, true},
    };
    if (strcmp(name, "none") == 0) {
        nk_ecc_none_init(&e->engine);
        return 0;
    }
    for (size_t i = 0; i < sizeof hamming / sizeof hamming[0]; i++)
        if (strcmp(name, hamming[i].name) == 0)
            return nk_ecc_hamming_init(&e->engine, hamming[i].step, hamming[i].sm_order) ? 2 : 0;

    /* bchT (512-byte steps, as Linux's default) or bchT-STEP. */
    unsigned t = 0, step = 512;
    int n = 0, n2 = 0;
    bool ok = strncmp(name, "bch", 3) == 0 && sscanf(name, "bch%u%n", &t, &n) == 1;
    if (ok && name[n] != '\0')
        ok = sscanf(name + n, "-%u%n", &step, &n2) == 1 && name[n + n2] == '\0';
    if (!ok)
        return tool_fail("unknown %s '%s' (none, hamming, hamming256, hamming512, "
                         "hamming256-sm, hamming512-sm, bchT, bchT-512 or bchT-1024)",
                         what, name);
    if (step != 512 && step != 1024)
        return tool_fail("%s '%s': BCH steps are 512 or 1024 bytes", what, name);
    if (t < 1 || t > 32)
        return tool_fail("%s '%s': strength %u out of range (1..32)", what, name, t);
    unsigned m = step == 512 ? 13 : 14;
    e->workspace_size = nk_bch_workspace_size(m, t, 0);
    e->workspace = e->workspace_size ? malloc(e->workspace_size) : NULL;
    if (!e->workspace)
        return tool_fail("%s '%s' not supported", what, name);
    int err = nk_bch_init(&e->bch, step, t, 0, e->workspace, e->workspace_size);
    if (err) {
        tool_ecc_free(e);
        return tool_fail("%s '%s' not supported: %s", what, name, nk_strerror(err));
    }
    nk_ecc_bch_engine_init(&e->engine, &e->bch);
    return 0;
}

void tool_ecc_free(struct tool_ecc *e)
{
    free(e->workspace);
    e->workspace = NULL;
}
