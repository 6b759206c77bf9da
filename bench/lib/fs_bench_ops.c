/* SPDX-License-Identifier: MIT */
/*
 * What `nandkit bench --fs` (fs_bench.c) and bench_yaffs2 (bench/yaffs2/)
 * share, so that the two columns of the comparison are counted, timed and
 * fed alike: the read counts from the simulator's trace, the operation
 * counters and their differences, the rates, the test data and the JSON of
 * a counter set.
 */
#include "nkfsbench.h"

#include "nandkit/sim.h"

void nk_fs_bench_count_reads(void *ctx, const struct nk_sim_event *event)
{
    struct nk_fs_bench_reads *reads = ctx;
    if (event->kind != NK_SIM_EVENT_OP || event->op != NK_SIM_OP_READ)
        return;
    if (event->column >= reads->page_size)
        reads->oob_reads++;
    else
        reads->page_reads++;
}

void nk_fs_bench_ops_now(struct nk_sim *sim, const struct nk_fs_bench_reads *reads,
                         struct nk_fs_bench_ops *ops)
{
    struct nk_sim_counters c;
    nk_sim_counters(sim, &c);
    /* Copy-back programs are among NK_SIM_OP_PROGRAM already. */
    ops->programs = c.ops[NK_SIM_OP_PROGRAM] + c.ops[NK_SIM_OP_CACHE_PROGRAM];
    ops->erases = c.ops[NK_SIM_OP_ERASE];
    ops->page_reads = reads->page_reads;
    ops->oob_reads = reads->oob_reads;
    ops->time_ns = nk_sim_time_ns(sim);
}

void nk_fs_bench_ops_delta(struct nk_fs_bench_ops *d, const struct nk_fs_bench_ops *before,
                           const struct nk_fs_bench_ops *after)
{
    d->programs = after->programs - before->programs;
    d->page_reads = after->page_reads - before->page_reads;
    d->oob_reads = after->oob_reads - before->oob_reads;
    d->erases = after->erases - before->erases;
    d->time_ns = after->time_ns - before->time_ns;
}

double nk_fs_bench_kBps(uint64_t bytes, uint64_t ns)
{
    return ns ? (double)bytes / 1000.0 / ((double)ns / 1e9) : 0.0;
}

double nk_fs_bench_ms(uint64_t ns)
{
    return (double)ns / 1e6;
}

void nk_fs_bench_fill(uint8_t *buf, size_t len, uint64_t seed)
{
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
    for (size_t i = 0; i < len; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        buf[i] = (uint8_t)x;
    }
}

const uint8_t *nk_fs_bench_piece(const uint8_t *data, uint64_t done)
{
    return data + (done % (1u << 20)) % (1u << 19);
}

void nk_fs_bench_json_ops(FILE *out, const char *key, const struct nk_fs_bench_ops *o)
{
    fprintf(out,
            "\"%s\": {\"programs\": %llu, \"page_reads\": %llu, \"oob_reads\": %llu, "
            "\"erases\": %llu, \"time_ns\": %llu}",
            key, (unsigned long long)o->programs, (unsigned long long)o->page_reads,
            (unsigned long long)o->oob_reads, (unsigned long long)o->erases,
            (unsigned long long)o->time_ns);
}
