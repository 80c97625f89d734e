/* jit/cfg.h — control-flow facts of one LLVM function.
 *
 * The LLVM C API has no dominator or loop analyses; this computes what the
 * barrier passes (and a SIMD vectorizer) need, once, over a function that is
 * not changed while the facts are in use:
 *  - block numbers: the blocks reachable from the entry in reverse post-order
 *    (entry = 0; every block before its successors, back edges aside), then
 *    the unreachable ones in layout order;
 *  - successors and predecessors by number (a block listed once per edge, so a
 *    switch with two cases to one block lists it twice, as LLVM does);
 *  - immediate dominators and post-dominators (Cooper, Harvey, Kennedy, "A
 *    Simple, Fast Dominance Algorithm", over the reverse post-order; every
 *    block without successors — ret, unreachable — leads to one virtual exit),
 *    and constant-time dominance queries from the trees' DFS intervals;
 *  - natural loops: a header, the latches whose edge back to it makes the
 *    loop, the blocks, exiting blocks and exit blocks, and the nesting.  A cycle
 *    entered other than through a block dominating it (irreducible control
 *    flow) is no natural loop: `irreducible` says one exists.
 *  - how many trips an innermost loop that counts from a constant to a
 *    constant makes (the polls leave it alone; the quick tier may unroll it).
 *
 *   jit_cfg g;
 *   if (jit_cfg_build(&g, fn)) ...out of memory...
 *   unsigned b = jit_cfg_index(&g, bb);
 *   if (jit_cfg_dominates(&g, g.idom[b], b)) ...
 *   jit_cfg_free(&g);
 */
#ifndef SPVJIT_JIT_CFG_H
#define SPVJIT_JIT_CFG_H

#include <stdbool.h>
#include <stdint.h>
#include <llvm-c/Core.h>

#include "util/hashmap.h"

/* No block: the entry's dominator, an unreachable block's, the post-dominator
 * of a block from which no path returns, a block of no loop. */
#define JIT_CFG_NONE UINT32_MAX

typedef struct jit_loop {
    unsigned header;
    unsigned parent; /* the innermost loop around this one, JIT_CFG_NONE at the top */
    unsigned depth;  /* 1 for a loop in no other */
    /* each list ascending (reverse post-order); blocks[0] is the header */
    unsigned *blocks, nblocks;   /* the loop's blocks, those of inner loops included */
    unsigned *latches, nlatches; /* blocks with an edge back to the header */
    unsigned *exiting, nexiting; /* blocks of the loop with a successor outside it */
    unsigned *exits, nexits;     /* blocks outside the loop with a predecessor in it */
} jit_loop;

typedef struct jit_cfg {
    LLVMValueRef fn;
    unsigned nblocks;          /* every block of fn */
    unsigned nreachable;       /* blocks [0, nreachable) are reachable from the entry */
    LLVMBasicBlockRef *blocks; /* [nblocks] by number */
    unsigned *succ_off, *succ; /* successors of b: succ[succ_off[b] .. succ_off[b + 1]) */
    unsigned *pred_off, *pred; /* predecessors of b, likewise (unreachable ones included) */
    /* [nblocks] immediate dominator; JIT_CFG_NONE for the entry and unreachable blocks */
    unsigned *idom;
    /* [nblocks] immediate post-dominator; jit_cfg_exit(g) when only the virtual
     * exit post-dominates the block, JIT_CFG_NONE when no path from it returns */
    unsigned *ipdom;
    jit_loop *loops; /* [nloops], by header number: outer loops before inner */
    unsigned nloops;
    unsigned *loop_of; /* [nblocks] innermost loop of the block, or JIT_CFG_NONE */
    bool irreducible;  /* some cycle is entered other than through its header */
    /* private */
    util_hashmap index;             /* block → number + 1 */
    unsigned *dom_pre, *dom_post;   /* DFS intervals of the dominator tree */
    unsigned *pdom_pre, *pdom_post; /* ... and of the post-dominator tree ([nblocks + 1]) */
} jit_cfg;

/* 0, or -1 when out of memory (g is then empty; jit_cfg_free is still fine). */
int jit_cfg_build(jit_cfg *g, LLVMValueRef fn);
void jit_cfg_free(jit_cfg *g);

/* The number of block bb, JIT_CFG_NONE when it is not a block of g's function. */
unsigned jit_cfg_index(const jit_cfg *g, LLVMBasicBlockRef bb);
/* The virtual exit's number in ipdom: nblocks. */
static inline unsigned jit_cfg_exit(const jit_cfg *g)
{
    return g->nblocks;
}
static inline unsigned jit_cfg_nsucc(const jit_cfg *g, unsigned b)
{
    return g->succ_off[b + 1] - g->succ_off[b];
}
static inline unsigned jit_cfg_npred(const jit_cfg *g, unsigned b)
{
    return g->pred_off[b + 1] - g->pred_off[b];
}

/* Whether every path from the entry to b passes a (a dominates itself);
 * false when either is unreachable. */
bool jit_cfg_dominates(const jit_cfg *g, unsigned a, unsigned b);
/* Whether every path from b to a return passes a (a post-dominates itself);
 * a may be jit_cfg_exit(g).  False when b cannot return. */
bool jit_cfg_post_dominates(const jit_cfg *g, unsigned a, unsigned b);
/* Whether block b lies in loop l (or in one nested in it). */
bool jit_cfg_loop_contains(const jit_cfg *g, unsigned l, unsigned b);
/* How many times the body of the innermost natural loop whose back edge is
 * latch -> header runs each time the loop is entered, when that is a
 * constant from 1 to `limit`: its only back edge, a header whose one other
 * predecessor enters it, the latch's branch testing a counter `i = phi
 * [start, entry], [i + step, latch]` (or i + step) against a bound, all
 * three constants; the trips are counted by running the counter with LLVM's
 * constant folding (b's).  0 when the loop is not such a loop. */
unsigned jit_cfg_counted_trips(LLVMBuilderRef b, const jit_cfg *g, unsigned latch, unsigned header, unsigned limit);

#endif
