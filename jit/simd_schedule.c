/* jit/simd_schedule.c — the order the vector function runs the blocks in, and
 * which loops stay plain loops.
 *
 * The order is topological over the forward edges (back edges, those to the
 * header of a loop from inside it, left out) and keeps every natural loop in
 * one interval that starts at its header: among the blocks whose predecessors
 * are all placed, one of the innermost loop being placed is taken first (the
 * lowest reverse-post-order number among them, so straight-line code keeps
 * its layout).  Masked execution needs both: a block runs after every block
 * that can hand it lanes in the same iteration, and the loop's test for lanes
 * back at the header comes after all of the loop.
 *
 * A loop is uniform when all lanes of an iteration leave it together: every
 * exiting block and latch ends in a uniform branch, and none lies where a
 * varying branch inside the loop sends only some lanes (before that branch's
 * post-dominator).  Such a loop keeps its back edge and exits as branches;
 * the others iterate while a lane is back at the header. */
#include "simd_internal.h"

#include <stdlib.h>
#include <string.h>

static bool back_edge(const simd_fn *s, const unsigned *header_loop, unsigned from, unsigned to)
{
    unsigned l = header_loop[to];
    return l != JIT_CFG_NONE && jit_cfg_loop_contains(&s->cfg, l, from);
}

/* Blocks of loop l that a varying branch inside it reaches before its post-dominator. */
static void mark_divergent_in_loop(const simd_fn *s, unsigned l, bool *marked, unsigned *stack)
{
    const jit_cfg *g = &s->cfg;
    const jit_loop *lp = &g->loops[l];
    for (unsigned i = 0; i < lp->nblocks; i++) {
        unsigned v = lp->blocks[i];
        if (!jit_uniformity_branch_varying(s->u, v))
            continue;
        unsigned stop = g->ipdom[v], n = 0;
        stack[n++] = v;
        while (n) {
            unsigned x = stack[--n];
            for (unsigned e = g->succ_off[x]; e < g->succ_off[x + 1]; e++) {
                unsigned y = g->succ[e];
                if (y == stop || y == lp->header || marked[y] || !jit_cfg_loop_contains(g, l, y))
                    continue;
                marked[y] = true;
                stack[n++] = y;
            }
        }
    }
}

static bool loop_is_uniform(const simd_fn *s, unsigned l, bool *marked, unsigned *stack)
{
    const jit_cfg *g = &s->cfg;
    const jit_loop *lp = &g->loops[l];
    memset(marked, 0, g->nblocks * sizeof *marked);
    mark_divergent_in_loop(s, l, marked, stack);
    for (unsigned i = 0; i < lp->nexiting; i++)
        if (jit_uniformity_branch_varying(s->u, lp->exiting[i]) || marked[lp->exiting[i]])
            return false;
    for (unsigned i = 0; i < lp->nlatches; i++)
        if (jit_uniformity_branch_varying(s->u, lp->latches[i]) || marked[lp->latches[i]])
            return false;
    return true;
}

int simd_schedule(simd_fn *s)
{
    const jit_cfg *g = &s->cfg;
    unsigned n = g->nblocks, nr = g->nreachable;
    unsigned *header_loop = malloc((n + 1) * sizeof *header_loop);
    unsigned *indeg = calloc(n + 1, sizeof *indeg);
    unsigned *ready = malloc((n + 1) * sizeof *ready), nready = 0;
    unsigned *stack = malloc((g->nloops + n + 1) * sizeof *stack), depth = 0;
    bool *marked = calloc(n + 1, sizeof *marked);
    s->order = malloc((n + 1) * sizeof *s->order);
    s->pos = malloc((n + 1) * sizeof *s->pos);
    s->loop_end = calloc(g->nloops + 1, sizeof *s->loop_end);
    s->loop_uniform = calloc(g->nloops + 1, sizeof *s->loop_uniform);
    int rc = 0;
    if (!header_loop || !indeg || !ready || !stack || !marked || !s->order || !s->pos || !s->loop_end ||
        !s->loop_uniform) {
        rc = simd_fail(s, "out of memory");
        goto done;
    }
    for (unsigned b = 0; b < n; b++) {
        header_loop[b] = JIT_CFG_NONE;
        s->pos[b] = UINT32_MAX;
    }
    for (unsigned l = 0; l < g->nloops; l++)
        header_loop[g->loops[l].header] = l;
    for (unsigned b = 0; b < nr; b++)
        for (unsigned e = g->succ_off[b]; e < g->succ_off[b + 1]; e++)
            if (!back_edge(s, header_loop, b, g->succ[e]))
                indeg[g->succ[e]]++;
    ready[nready++] = 0;
    s->norder = 0;
    while (s->norder < nr) {
        unsigned top = depth ? stack[depth - 1] : JIT_CFG_NONE, best = UINT32_MAX;
        for (unsigned i = 0; i < nready; i++) {
            unsigned b = ready[i];
            if ((top == JIT_CFG_NONE || jit_cfg_loop_contains(g, top, b)) && (best == UINT32_MAX || b < ready[best]))
                best = i;
        }
        if (best == UINT32_MAX) {
            if (!depth) {
                rc = simd_decline(s, "the control flow cannot be ordered (irreducible?)");
                goto done;
            }
            const jit_loop *lp = &g->loops[top];
            for (unsigned i = 0; i < lp->nblocks; i++)
                if (s->pos[lp->blocks[i]] == UINT32_MAX) {
                    rc = simd_decline(s, "a loop entered other than through its header");
                    goto done;
                }
            depth--;
            continue;
        }
        unsigned b = ready[best];
        ready[best] = ready[--nready];
        s->pos[b] = s->norder;
        s->order[s->norder++] = b;
        if (header_loop[b] != JIT_CFG_NONE)
            stack[depth++] = header_loop[b];
        for (unsigned e = g->succ_off[b]; e < g->succ_off[b + 1]; e++) {
            unsigned x = g->succ[e];
            if (!back_edge(s, header_loop, b, x) && --indeg[x] == 0)
                ready[nready++] = x;
        }
    }
    for (unsigned l = 0; l < g->nloops; l++) {
        const jit_loop *lp = &g->loops[l];
        for (unsigned i = 0; i < lp->nblocks; i++)
            if (s->pos[lp->blocks[i]] > s->loop_end[l])
                s->loop_end[l] = s->pos[lp->blocks[i]];
        if (s->loop_end[l] - s->pos[lp->header] + 1 != lp->nblocks) {
            rc = simd_decline(s, "a loop whose blocks are not contiguous in the schedule");
            goto done;
        }
        s->loop_uniform[l] = loop_is_uniform(s, l, marked, stack);
    }
done:
    free(header_loop);
    free(indeg);
    free(ready);
    free(stack);
    free(marked);
    return rc;
}
