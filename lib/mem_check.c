/* lib/mem_check.c — memory=check's reports and race detector (see mem_check.h). */
#include "lib/mem_check.h"

#include <stdlib.h>
#include <string.h>

struct race_cell {
    uint32_t epoch;             /* epoch + 1 of what is recorded, 0: nothing yet */
    uint32_t writer;            /* work-item + 1 of the last write of the interval, 0: none */
    uint32_t reader[2];         /* two distinct readers (work-item + 1), 0: none */
    uint32_t wbytes, rbytes[2]; /* the bytes of each recorded access */
    bool writer_atomic, reader_atomic[2];
    const spvjit_check_site *wsite, *rsite[2];
};

int mem_check_begin_group(mem_check_group *g, mem_check_thread *t, spvjit_exec_control *control, size_t wg_bytes)
{
    g->control = control;
    g->thread = t;
    g->wg_bytes = wg_bytes;
    g->found = false;
    if (wg_bytes > t->cap) {
        free(t->shadow);
        t->cap = 0;
        t->shadow = calloc(wg_bytes, sizeof *t->shadow);
        if (!t->shadow)
            return -1;
        t->cap = wg_bytes;
        return 0;
    }
    if (wg_bytes)
        memset(t->shadow, 0, wg_bytes * sizeof *t->shadow);
    return 0;
}

void mem_check_thread_free(mem_check_thread *t)
{
    free(t->shadow);
    t->shadow = NULL;
    t->cap = 0;
}

bool mem_check_end_group(mem_check_group *g)
{
    if (!g->found)
        return false;
    spvjit_exec_control *c = g->control;
    if (!atomic_flag_test_and_set(&c->fault_claimed))
        c->fault = g->fault;
    uint32_t none = SPVJIT_STOP_NONE;
    atomic_compare_exchange_strong(&c->stop, &none, SPVJIT_STOP_FAILED);
    return true;
}

/* Work-item (x, y, z)'s linear index in the group. */
static uint32_t linear(const spvjit_wg_ctx *ctx, uint32_t x, uint32_t y, uint32_t z)
{
    return x + ctx->local_size[0] * (y + ctx->local_size[1] * z);
}

static void unlinear(const spvjit_wg_ctx *ctx, uint32_t i, uint32_t id[3])
{
    uint32_t x = ctx->local_size[0], y = ctx->local_size[1];
    id[0] = x ? i % x : 0;
    id[1] = x && y ? i / x % y : 0;
    id[2] = x && y ? i / x / y : 0;
}

/* The report's fault to fill when it comes before what the group has (NULL: it does not). */
static spvjit_exec_fault *earlier(mem_check_group *g, uint32_t epoch, uint32_t item)
{
    uint64_t order = (uint64_t)epoch << 32 | item;
    if (g->found && g->order <= order)
        return NULL; /* the same work-item's earlier access, or an earlier work-item's */
    g->found = true;
    g->order = order;
    memset(&g->fault, 0, sizeof g->fault);
    return &g->fault;
}

static void at_group(spvjit_exec_fault *f, const spvjit_wg_ctx *ctx)
{
    for (int i = 0; i < 3; i++)
        f->group[i] = ctx->group_id[i] + ctx->base_group[i];
}

void mem_check_report_oob(const spvjit_wg_ctx *ctx, const spvjit_check_site *site, uint64_t offset, uint64_t bytes,
                          uint64_t bound, uint32_t epoch, uint32_t lx, uint32_t ly, uint32_t lz)
{
    mem_check_group *g = ctx->check;
    spvjit_exec_fault *f = g ? earlier(g, epoch, linear(ctx, lx, ly, lz)) : NULL;
    if (!f)
        return;
    f->kind = SPVJIT_FAULT_OOB;
    at_group(f, ctx);
    f->item[0] = lx;
    f->item[1] = ly;
    f->item[2] = lz;
    f->site = site;
    f->offset = offset;
    f->bytes = bytes;
    f->bound = bound;
}

static bool is_write(uint32_t access)
{
    return access == SPVJIT_ACCESS_STORE || access == SPVJIT_ACCESS_ATOMIC || access == SPVJIT_ACCESS_COPY_TO;
}

static bool is_atomic(uint32_t access)
{
    return access == SPVJIT_ACCESS_ATOMIC || access == SPVJIT_ACCESS_ATOMIC_LOAD;
}

/* One access of a race: its work-item (linear), site and bytes. */
typedef struct race_access {
    uint32_t item;
    const spvjit_check_site *site;
    uint64_t bytes;
} race_access;

/* A race at byte `offset` of the range between access `now` and the
 * recorded `then`: reported at the access of the higher work-item, as the
 * scalar path (lower items first) would meet it. */
static void race(const spvjit_wg_ctx *ctx, mem_check_group *g, uint64_t offset, uint32_t epoch, race_access now,
                 race_access then)
{
    race_access at = now.item > then.item ? now : then, other = now.item > then.item ? then : now;
    spvjit_exec_fault *f = earlier(g, epoch, at.item);
    if (!f)
        return;
    f->kind = SPVJIT_FAULT_RACE;
    at_group(f, ctx);
    unlinear(ctx, at.item, f->item);
    unlinear(ctx, other.item, f->other_item);
    f->site = at.site;
    f->bytes = at.bytes;
    f->other = other.site;
    f->offset = offset;
    f->epoch = epoch;
}

void mem_check_wg_access(const spvjit_wg_ctx *ctx, const spvjit_check_site *site, const void *addr, uint64_t bytes,
                         uint64_t offset, uint32_t epoch, uint32_t lx, uint32_t ly, uint32_t lz)
{
    mem_check_group *g = ctx->check;
    if (!g || !g->thread->shadow || !ctx->wg_memory)
        return;
    uintptr_t base = (uintptr_t)ctx->wg_memory, a = (uintptr_t)addr;
    if (a < base || a - base >= g->wg_bytes)
        return; /* not work-group memory (a pointer found at run time) */
    uint64_t off = a - base, n = bytes < g->wg_bytes - off ? bytes : g->wg_bytes - off;
    uint32_t me = linear(ctx, lx, ly, lz) + 1;
    race_access now = { me - 1, site, bytes };
    bool write = is_write(site->access), atomic = is_atomic(site->access);
    for (uint64_t i = 0; i < n; i++) {
        race_cell *c = &g->thread->shadow[off + i];
        if (c->epoch != epoch + 1) { /* the first access of this interval */
            memset(c, 0, sizeof *c);
            c->epoch = epoch + 1;
        }
        if (c->writer && c->writer != me && !(atomic && c->writer_atomic)) {
            race(ctx, g, offset + i, epoch, now, (race_access){ c->writer - 1, c->wsite, c->wbytes });
            return;
        }
        for (int r = 0; write && r < 2; r++)
            if (c->reader[r] && c->reader[r] != me && !(atomic && c->reader_atomic[r])) {
                race(ctx, g, offset + i, epoch, now, (race_access){ c->reader[r] - 1, c->rsite[r], c->rbytes[r] });
                return;
            }
        if (write) {
            c->writer = me;
            c->writer_atomic = atomic;
            c->wsite = site;
            c->wbytes = (uint32_t)bytes;
        } else if (c->reader[0] != me && c->reader[1] != me) {
            int r = c->reader[0] ? 1 : 0;
            c->reader[r] = me;
            c->reader_atomic[r] = atomic;
            c->rsite[r] = site;
            c->rbytes[r] = (uint32_t)bytes;
        }
    }
}
