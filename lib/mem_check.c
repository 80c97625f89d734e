/* lib/mem_check.c — memory=check's reports and race detector (see mem_check.h). */
#include "lib/mem_check.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct race_cell {
    uint32_t epoch;     /* epoch + 1 of what is recorded, 0: nothing yet */
    uint32_t writer;    /* work-item + 1 of the last write of the interval, 0: none */
    uint32_t reader[2]; /* two distinct readers (work-item + 1), 0: none */
    bool writer_atomic, reader_atomic[2];
    const spvjit_check_site *wsite, *rsite[2];
};

int mem_check_begin_group(mem_check_group *g, mem_check_thread *t, spvjit_exec_control *control, size_t wg_bytes)
{
    g->control = control;
    g->thread = t;
    g->wg_bytes = wg_bytes;
    if (wg_bytes > t->cap) {
        free(t->shadow);
        t->cap = 0;
        t->shadow = calloc(wg_bytes, sizeof *t->shadow);
        if (!t->shadow)
            return -1;
        t->cap = wg_bytes;
        return 0;
    }
    memset(t->shadow, 0, wg_bytes * sizeof *t->shadow);
    return 0;
}

void mem_check_thread_free(mem_check_thread *t)
{
    free(t->shadow);
    t->shadow = NULL;
    t->cap = 0;
}

/* The first report of the dispatch (0), or another (-1: dropped). */
static int claim(spvjit_exec_control *c)
{
    if (atomic_flag_test_and_set(&c->fault_claimed))
        return -1;
    return 0;
}

static void stop(spvjit_exec_control *c)
{
    uint32_t none = SPVJIT_STOP_NONE;
    atomic_compare_exchange_strong(&c->stop, &none, SPVJIT_STOP_FAILED);
}

static void where(spvjit_exec_fault *f, const spvjit_wg_ctx *ctx, uint32_t lx, uint32_t ly, uint32_t lz)
{
    for (int i = 0; i < 3; i++)
        f->group[i] = ctx->group_id[i] + ctx->base_group[i];
    f->item[0] = lx;
    f->item[1] = ly;
    f->item[2] = lz;
}

void mem_check_report_oob(const spvjit_wg_ctx *ctx, const spvjit_check_site *site, uint64_t offset, uint64_t bytes,
                          uint64_t bound, uint32_t lx, uint32_t ly, uint32_t lz)
{
    const mem_check_group *g = ctx->check;
    if (!g || claim(g->control))
        return;
    spvjit_exec_fault *f = &g->control->fault;
    f->kind = SPVJIT_FAULT_OOB;
    where(f, ctx, lx, ly, lz);
    f->site = site;
    f->offset = offset;
    f->bytes = bytes;
    f->bound = bound;
    stop(g->control);
}

static bool is_write(uint32_t access)
{
    return access == SPVJIT_ACCESS_STORE || access == SPVJIT_ACCESS_ATOMIC || access == SPVJIT_ACCESS_COPY_TO;
}

static bool is_atomic(uint32_t access)
{
    return access == SPVJIT_ACCESS_ATOMIC || access == SPVJIT_ACCESS_ATOMIC_LOAD;
}

static void race(const spvjit_wg_ctx *ctx, const mem_check_group *g, const spvjit_check_site *site, uint64_t offset,
                 uint64_t bytes, uint32_t epoch, const uint32_t id[3], const spvjit_check_site *other, uint32_t who)
{
    if (claim(g->control))
        return;
    spvjit_exec_fault *f = &g->control->fault;
    f->kind = SPVJIT_FAULT_RACE;
    where(f, ctx, id[0], id[1], id[2]);
    f->site = site;
    f->offset = offset;
    f->bytes = bytes;
    f->other = other;
    f->epoch = epoch;
    uint32_t x = ctx->local_size[0], y = ctx->local_size[1];
    f->other_item[0] = x ? who % x : 0;
    f->other_item[1] = x && y ? who / x % y : 0;
    f->other_item[2] = x && y ? who / x / y : 0;
    stop(g->control);
}

void mem_check_wg_access(const spvjit_wg_ctx *ctx, const spvjit_check_site *site, const void *addr, uint64_t bytes,
                         uint64_t offset, uint32_t epoch, uint32_t lx, uint32_t ly, uint32_t lz)
{
    const mem_check_group *g = ctx->check;
    if (!g || !g->thread->shadow || !ctx->wg_memory)
        return;
    uintptr_t base = (uintptr_t)ctx->wg_memory, a = (uintptr_t)addr;
    if (a < base || a - base >= g->wg_bytes)
        return; /* not work-group memory (a pointer found at run time) */
    uint64_t off = a - base, n = bytes < g->wg_bytes - off ? bytes : g->wg_bytes - off;
    uint32_t me = lx + ctx->local_size[0] * (ly + ctx->local_size[1] * lz) + 1;
    const uint32_t id[3] = { lx, ly, lz };
    bool write = is_write(site->access), atomic = is_atomic(site->access);
    for (uint64_t i = 0; i < n; i++) {
        race_cell *c = &g->thread->shadow[off + i];
        if (c->epoch != epoch + 1) { /* the first access of this interval */
            memset(c, 0, sizeof *c);
            c->epoch = epoch + 1;
        }
        if (c->writer && c->writer != me && !(atomic && c->writer_atomic)) {
            race(ctx, g, site, offset + i, bytes, epoch, id, c->wsite, c->writer - 1);
            return;
        }
        for (int r = 0; write && r < 2; r++)
            if (c->reader[r] && c->reader[r] != me && !(atomic && c->reader_atomic[r])) {
                race(ctx, g, site, offset + i, bytes, epoch, id, c->rsite[r], c->reader[r] - 1);
                return;
            }
        if (write) {
            c->writer = me;
            c->writer_atomic = atomic;
            c->wsite = site;
        } else if (c->reader[0] != me && c->reader[1] != me) {
            int r = c->reader[0] ? 1 : 0;
            c->reader[r] = me;
            c->reader_atomic[r] = atomic;
            c->rsite[r] = site;
        }
    }
}
