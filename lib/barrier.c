/* lib/barrier.c — fiber scheduling of a work-group's items at barriers (see barrier.h). */
#include "lib/barrier.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ITEM_RUNNING, ITEM_WAITING, ITEM_DONE };
enum { OUT_RUNNING, OUT_FINISHED, OUT_DIVERGED, OUT_BAD_SITE, OUT_STOPPED };

struct wg_item {
    spvjit_fiber fiber;
    uint32_t lid[3];
    uint32_t state;
    uint32_t site; /* barrier site while ITEM_WAITING */
};

void spvjit_wg_sched_init(spvjit_wg_sched *s)
{
    memset(s, 0, sizeof *s);
    spvjit_fiber_init_thread(&s->host);
}

void spvjit_wg_sched_destroy(spvjit_wg_sched *s)
{
    for (uint32_t i = 0; i < s->nstacks; i++)
        spvjit_fiber_stack_free(&s->stacks[i]);
    free(s->stacks);
    free(s->items);
    memset(s, 0, sizeof *s);
}

/* Makes room for n items with stacks of at least `size` bytes. */
static int ensure_stacks(spvjit_wg_sched *s, uint32_t n, size_t size, spv_diag *diag)
{
    if (size < SPVJIT_FIBER_MIN_STACK)
        size = SPVJIT_FIBER_MIN_STACK;
    if (size > s->stack_size) {
        /* A kernel wants deeper stacks than pooled: remap them all. */
        for (uint32_t i = 0; i < s->nstacks; i++)
            spvjit_fiber_stack_free(&s->stacks[i]);
        s->nstacks = 0;
        s->stack_size = size;
    }
    if (n > s->cap) {
        wg_item *items = realloc(s->items, sizeof *items * n);
        if (items)
            s->items = items;
        spvjit_fiber_stack *stacks = items ? realloc(s->stacks, sizeof *stacks * n) : NULL;
        if (!stacks)
            return spv_fail(diag, "executor: out of memory for %u work-item fibers", n);
        s->stacks = stacks;
        s->cap = n;
    }
    while (s->nstacks < n) {
        int err = spvjit_fiber_stack_alloc(&s->stacks[s->nstacks], s->stack_size);
        if (err)
            return spv_fail(diag,
                            "executor: cannot map the stack of work-item fiber %u of %u "
                            "(%zu bytes each): %s",
                            s->nstacks, n, s->stack_size, strerror(err));
        /* The pool's size is what a stack was rounded up to. */
        s->stack_size = s->stacks[s->nstacks].size;
        s->nstacks++;
    }
    return 0;
}

/* Hands control from item `from` (which arrived at a barrier or returned)
 * to whoever runs next; returns when `from` is resumed past its barrier. */
static void arrive(spvjit_wg_sched *s, wg_item *from, bool final)
{
    spvjit_fiber *to;
    if (s->cur == 0) {
        s->round_state = from->state;
        s->round_site = from->site;
        s->mismatch = false;
    } else if (from->state != s->round_state || (from->state == ITEM_WAITING && from->site != s->round_site)) {
        s->mismatch = true;
    }
    if (s->ctx->stop && *s->ctx->stop) { /* the dispatch is over: leave the group as it stands */
        s->outcome = OUT_STOPPED;
        to = &s->host;
    } else if (s->cur + 1 < s->n) {
        to = &s->items[++s->cur].fiber;
    } else if (s->mismatch) {
        s->outcome = OUT_DIVERGED;
        to = &s->host;
    } else if (s->round_state == ITEM_DONE) {
        s->outcome = OUT_FINISHED;
        to = &s->host;
    } else {
        /* Everyone is at the same barrier: release them, item 0 first. */
        s->rounds++;
        s->cur = 0;
        to = &s->items[0].fiber;
    }
    if (final)
        spvjit_fiber_switch_final(&from->fiber, to);
    spvjit_fiber_switch(&from->fiber, to);
}

/* ctx->barrier of fiber-run groups. */
static void fiber_barrier(const spvjit_wg_ctx *ctx, uint32_t site)
{
    spvjit_wg_sched *s = ctx->rt;
    wg_item *it = &s->items[s->cur];
    if (s->nsites && site >= s->nsites) {
        /* Compiler bug rather than kernel bug; stop this item here. */
        s->outcome = OUT_BAD_SITE;
        s->bad_site = site;
        it->state = ITEM_WAITING;
        it->site = site;
        spvjit_fiber_switch(&it->fiber, &s->host);
        abort(); /* never resumed */
    }
    it->state = ITEM_WAITING;
    it->site = site;
    arrive(s, it, false);
    it->state = ITEM_RUNNING;
}

/* ctx->barrier of one-item groups: the item is always the whole group. */
static void single_barrier(const spvjit_wg_ctx *ctx, uint32_t site)
{
    spvjit_wg_sched *s = ctx->rt;
    if (s->nsites && site >= s->nsites && s->outcome != OUT_BAD_SITE) {
        s->outcome = OUT_BAD_SITE;
        s->bad_site = site;
    }
    s->rounds++;
}

static void item_entry(void *arg)
{
    spvjit_wg_sched *s = arg;
    wg_item *it = &s->items[s->cur];
    s->item_fn(s->ctx, it->lid[0], it->lid[1], it->lid[2]);
    it->state = ITEM_DONE;
    arrive(s, it, true);
}

/* Appends " at <what>: (x,y,z) ... and N more" for items matching (state, site). */
static void list_items(const spvjit_wg_sched *s, uint32_t state, uint32_t site, spv_diag *diag)
{
    enum { SHOW = 4 };
    uint32_t count = 0;
    for (uint32_t i = 0; i < s->n; i++)
        if (s->items[i].state == state && (state != ITEM_WAITING || s->items[i].site == site))
            count++;
    if (state == ITEM_WAITING)
        spv_diag_append(diag, "; %u work-item%s wait%s at barrier site %u:", count, count == 1 ? "" : "s",
                        count == 1 ? "s" : "", site);
    else
        spv_diag_append(diag, "; %u work-item%s returned:", count, count == 1 ? "" : "s");
    uint32_t shown = 0;
    for (uint32_t i = 0; i < s->n && shown < SHOW; i++) {
        const wg_item *it = &s->items[i];
        if (it->state == state && (state != ITEM_WAITING || it->site == site)) {
            spv_diag_append(diag, " (%u,%u,%u)", it->lid[0], it->lid[1], it->lid[2]);
            shown++;
        }
    }
    if (count > shown)
        spv_diag_append(diag, " and %u more", count - shown);
}

static void report_divergence(const spvjit_wg_sched *s, spv_diag *diag)
{
    const spvjit_wg_ctx *c = s->ctx;
    spv_fail(diag,
             "barrier divergence in work-group (%u,%u,%u) of local size %ux%ux%u "
             "after %llu completed barrier%s: not all work-items reached the same barrier",
             c->group_id[0] + c->base_group[0], c->group_id[1] + c->base_group[1], c->group_id[2] + c->base_group[2],
             c->local_size[0], c->local_size[1], c->local_size[2], (unsigned long long)s->rounds,
             s->rounds == 1 ? "" : "s");
    /* Sites in ascending order, each listed once. */
    uint32_t last = 0;
    bool any = false;
    for (;;) {
        bool found = false;
        uint32_t next = 0;
        for (uint32_t i = 0; i < s->n; i++) {
            const wg_item *it = &s->items[i];
            if (it->state == ITEM_WAITING && (!any || it->site > last) && (!found || it->site < next)) {
                next = it->site;
                found = true;
            }
        }
        if (!found)
            break;
        list_items(s, ITEM_WAITING, next, diag);
        last = next;
        any = true;
    }
    bool some_done = false;
    for (uint32_t i = 0; i < s->n; i++)
        some_done |= s->items[i].state == ITEM_DONE;
    if (some_done)
        list_items(s, ITEM_DONE, 0, diag);
}

static void report_bad_site(const spvjit_wg_sched *s, const uint32_t lid[3], spv_diag *diag)
{
    const spvjit_wg_ctx *c = s->ctx;
    spv_fail(diag,
             "barrier site %u called by work-item (%u,%u,%u) of work-group (%u,%u,%u), "
             "but the kernel has only %u barrier site%s (0..%u)",
             s->bad_site, lid[0], lid[1], lid[2], c->group_id[0] + c->base_group[0], c->group_id[1] + c->base_group[1],
             c->group_id[2] + c->base_group[2], s->nsites, s->nsites == 1 ? "" : "s", s->nsites - 1);
}

int spvjit_wg_sched_run(spvjit_wg_sched *s, spvjit_item_fn fn, spvjit_wg_ctx *ctx, uint32_t nsites, size_t stack_size,
                        spv_diag *diag)
{
    uint32_t lx = ctx->local_size[0], ly = ctx->local_size[1], lz = ctx->local_size[2];
    uint64_t n64 = (uint64_t)lx * ly * lz;
    if (n64 == 0)
        return 0;
    if (n64 > UINT32_MAX)
        return spv_fail(diag, "executor: work-group of %ux%ux%u work-items is too large for fibers", lx, ly, lz);
    s->item_fn = fn;
    s->ctx = ctx;
    s->n = (uint32_t)n64;
    s->nsites = nsites;
    s->outcome = OUT_RUNNING;
    s->rounds = 0;
    ctx->rt = s;

    if (s->n == 1) {
        /* A lone work-item never waits for anyone: no fiber needed. */
        ctx->barrier = single_barrier;
        fn(ctx, 0, 0, 0);
        if (s->outcome == OUT_BAD_SITE) {
            static const uint32_t origin[3] = { 0, 0, 0 };
            report_bad_site(s, origin, diag);
            return -1;
        }
        return 0;
    }

    if (ensure_stacks(s, s->n, stack_size, diag) != 0)
        return -1;
    ctx->barrier = fiber_barrier;
    uint32_t i = 0;
    for (uint32_t z = 0; z < lz; z++)
        for (uint32_t y = 0; y < ly; y++)
            for (uint32_t x = 0; x < lx; x++, i++) {
                wg_item *it = &s->items[i];
                it->lid[0] = x;
                it->lid[1] = y;
                it->lid[2] = z;
                it->state = ITEM_RUNNING;
                it->site = 0;
                spvjit_fiber_init(&it->fiber, &s->stacks[i], item_entry, s);
            }
    s->cur = 0;
    spvjit_fiber_switch(&s->host, &s->items[0].fiber);

    if (s->outcome == OUT_FINISHED)
        return 0;
    /* Fibers were abandoned mid-call: clear what they left on their stacks. */
    for (uint32_t k = 0; k < s->n; k++)
        spvjit_fiber_stack_forget(&s->stacks[k]);
    if (s->outcome == OUT_DIVERGED)
        report_divergence(s, diag);
    else if (s->outcome == OUT_STOPPED)
        spv_fail(diag, "executor: the dispatch was stopped in the middle of a work-group");
    else
        report_bad_site(s, s->items[s->cur].lid, diag);
    return -1;
}
