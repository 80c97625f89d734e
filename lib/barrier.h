/* lib/barrier.h — runs one work-group of a barrier kernel as fibers.
 *
 * Each work-item of the group gets a fiber (stacks pooled in the scheduler
 * and reused across groups and dispatches).  Items run in order until each
 * reaches a barrier or returns; a barrier call switches straight to the next
 * item (one switch per item per barrier, no trip through a scheduler), and
 * the last item to arrive checks the round: all at the same site -> resume
 * item 0; all returned -> the group is done; anything else is divergence,
 * and control goes back to the thread that started the group.  Fibers still
 * waiting are then simply abandoned: their kernel code never runs again and
 * their stacks are reused.
 *
 * One scheduler per thread; it runs one group at a time.
 */
#ifndef SPVJIT_LIB_BARRIER_H
#define SPVJIT_LIB_BARRIER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jit/abi.h"
#include "lib/fiber.h"
#include "spirv/diag.h"

typedef struct wg_item wg_item;

typedef struct spvjit_wg_sched {
    spvjit_fiber host;          /* the thread's own context */
    wg_item *items;             /* per work-item fiber and state */
    spvjit_fiber_stack *stacks; /* stacks[i] belongs to items[i] */
    uint32_t nstacks;           /* stacks mapped (all of stack_size bytes) */
    uint32_t cap;               /* items/stacks array capacity */
    size_t stack_size;

    /* --- the group being run ---------------------------------------------- */
    spvjit_item_fn item_fn;
    const spvjit_wg_ctx *ctx;
    uint32_t n;                       /* work-items in the group */
    uint32_t cur;                     /* index of the running work-item */
    uint32_t nsites;                  /* barrier sites the kernel has (0: unchecked) */
    uint32_t round_state, round_site; /* what item 0 did this round */
    bool mismatch;                    /* some item did otherwise this round */
    int outcome;
    uint32_t bad_site;
    uint64_t rounds; /* barriers completed by the whole group */
} spvjit_wg_sched;

void spvjit_wg_sched_init(spvjit_wg_sched *s);
/* Unmaps the stacks; the scheduler must be idle. */
void spvjit_wg_sched_destroy(spvjit_wg_sched *s);

/* Runs every work-item of the group described by *ctx (ctx->local_size
 * items, ctx->group_id) through fn; sets ctx->barrier and ctx->rt itself.
 * `nsites` is the kernel's barrier-site count (0: sites are not checked);
 * `stack_size` the per-item stack wanted (rounded up to the safe minimum).
 * Returns 0, or -1 with diag naming the sites and work-items on divergence. */
int spvjit_wg_sched_run(spvjit_wg_sched *s, spvjit_item_fn fn, spvjit_wg_ctx *ctx, uint32_t nsites, size_t stack_size,
                        spv_diag *diag);

#endif
