/* jit/cfg.c — control-flow facts of one LLVM function (see cfg.h). */
#include "cfg.h"

#include <stdlib.h>
#include <string.h>

/* A graph as adjacency lists: the neighbours of v are adj[off[v] .. off[v + 1]). */
typedef struct graph {
    unsigned n;
    unsigned *off, *adj;
} graph;

static void graph_free(graph *g)
{
    free(g->off);
    free(g->adj);
    memset(g, 0, sizeof *g);
}

/* Room for n nodes and m edges; off[] still to be filled. */
static bool graph_alloc(graph *g, unsigned n, unsigned m)
{
    g->n = n;
    g->off = calloc(n + 1, sizeof *g->off);
    g->adj = calloc(m + 1, sizeof *g->adj);
    return g->off && g->adj;
}

/* The reverse of g: an edge v → w for every edge w → v. */
static bool graph_reverse(const graph *g, graph *r)
{
    if (!graph_alloc(r, g->n, g->off[g->n]))
        return false;
    for (unsigned v = 0; v < g->n; v++)
        for (unsigned e = g->off[v]; e < g->off[v + 1]; e++)
            r->off[g->adj[e] + 1]++;
    for (unsigned v = 0; v < g->n; v++)
        r->off[v + 1] += r->off[v];
    unsigned *fill = calloc(g->n + 1, sizeof *fill);
    if (!fill)
        return false;
    for (unsigned v = 0; v < g->n; v++)
        for (unsigned e = g->off[v]; e < g->off[v + 1]; e++) {
            unsigned w = g->adj[e];
            r->adj[r->off[w] + fill[w]++] = v;
        }
    free(fill);
    return true;
}

#define VISITING (JIT_CFG_NONE - 1)

/* Depth-first post-order of the nodes reachable from root: order[0 .. count),
 * po[v] = v's position in it or JIT_CFG_NONE.  `stack` and `cursor` are
 * scratch arrays of g->n entries. */
static unsigned postorder(const graph *g, unsigned root, unsigned *order, unsigned *po, unsigned *stack,
                          unsigned *cursor)
{
    for (unsigned v = 0; v < g->n; v++)
        po[v] = JIT_CFG_NONE;
    unsigned sp = 0, count = 0;
    stack[sp++] = root;
    cursor[root] = g->off[root];
    po[root] = VISITING;
    while (sp) {
        unsigned v = stack[sp - 1];
        if (cursor[v] < g->off[v + 1]) {
            unsigned w = g->adj[cursor[v]++];
            if (po[w] == JIT_CFG_NONE) {
                po[w] = VISITING;
                cursor[w] = g->off[w];
                stack[sp++] = w;
            }
            continue;
        }
        sp--;
        po[v] = count;
        order[count++] = v;
    }
    return count;
}

static unsigned intersect(const unsigned *idom, const unsigned *po, unsigned a, unsigned b)
{
    while (a != b) {
        while (po[a] < po[b])
            a = idom[a];
        while (po[b] < po[a])
            b = idom[b];
    }
    return a;
}

/* Cooper-Harvey-Kennedy: the immediate dominator of every node reachable from
 * the root (the last node of the post-order), given each node's predecessors;
 * JIT_CFG_NONE for the root and the nodes not reached. */
static void dominators(const graph *preds, const unsigned *order, unsigned count, const unsigned *po, unsigned *idom)
{
    unsigned root = order[count - 1];
    for (unsigned v = 0; v < preds->n; v++)
        idom[v] = JIT_CFG_NONE;
    idom[root] = root;
    for (bool changed = true; changed;) {
        changed = false;
        for (unsigned i = count - 1; i-- > 0;) {
            unsigned v = order[i], d = JIT_CFG_NONE;
            for (unsigned e = preds->off[v]; e < preds->off[v + 1]; e++) {
                unsigned p = preds->adj[e];
                if (idom[p] == JIT_CFG_NONE)
                    continue; /* not reached, or not yet processed */
                d = d == JIT_CFG_NONE ? p : intersect(idom, po, p, d);
            }
            if (idom[v] != d) {
                idom[v] = d;
                changed = true;
            }
        }
    }
    idom[root] = JIT_CFG_NONE;
}

/* Pre- and post-order numbers of the tree of `root` given by parent links, for
 * constant-time ancestor queries; nodes outside it get JIT_CFG_NONE. */
static bool tree_intervals(unsigned n, const unsigned *parent, unsigned root, unsigned *pre, unsigned *post)
{
    graph kids = { 0 };
    unsigned *stack = calloc(n + 1, sizeof *stack), *cursor = calloc(n + 1, sizeof *cursor);
    bool ok = stack && cursor && graph_alloc(&kids, n, n);
    if (ok) {
        for (unsigned v = 0; v < n; v++)
            if (parent[v] != JIT_CFG_NONE)
                kids.off[parent[v] + 1]++;
        for (unsigned v = 0; v < n; v++)
            kids.off[v + 1] += kids.off[v];
        for (unsigned v = 0; v < n; v++)
            if (parent[v] != JIT_CFG_NONE)
                kids.adj[kids.off[parent[v]] + cursor[parent[v]]++] = v;
        for (unsigned v = 0; v < n; v++)
            pre[v] = post[v] = JIT_CFG_NONE;
        unsigned sp = 0, npre = 0, npost = 0;
        stack[sp++] = root;
        pre[root] = npre++;
        cursor[root] = kids.off[root];
        while (sp) {
            unsigned v = stack[sp - 1];
            if (cursor[v] < kids.off[v + 1]) {
                unsigned w = kids.adj[cursor[v]++];
                pre[w] = npre++;
                cursor[w] = kids.off[w];
                stack[sp++] = w;
                continue;
            }
            sp--;
            post[v] = npost++;
        }
    }
    graph_free(&kids);
    free(stack);
    free(cursor);
    return ok;
}

static bool in_interval(const unsigned *pre, const unsigned *post, unsigned a, unsigned b)
{
    return pre[a] != JIT_CFG_NONE && pre[b] != JIT_CFG_NONE && pre[a] <= pre[b] && post[b] <= post[a];
}

bool jit_cfg_dominates(const jit_cfg *g, unsigned a, unsigned b)
{
    return a < g->nblocks && b < g->nblocks && in_interval(g->dom_pre, g->dom_post, a, b);
}

bool jit_cfg_post_dominates(const jit_cfg *g, unsigned a, unsigned b)
{
    return a <= g->nblocks && b < g->nblocks && in_interval(g->pdom_pre, g->pdom_post, a, b);
}

bool jit_cfg_loop_contains(const jit_cfg *g, unsigned l, unsigned b)
{
    for (unsigned x = b < g->nblocks ? g->loop_of[b] : JIT_CFG_NONE; x != JIT_CFG_NONE; x = g->loops[x].parent)
        if (x == l)
            return true;
    return false;
}

unsigned jit_cfg_index(const jit_cfg *g, LLVMBasicBlockRef bb)
{
    return (unsigned)(uintptr_t)util_ptrmap_get(&g->index, bb) - 1;
}

/* --- building ------------------------------------------------------------------------------- */

/* The edges in layout numbering (the position of each block in the function). */
static bool layout_graph(LLVMBasicBlockRef *layout, unsigned n, graph *lay)
{
    util_hashmap at;
    util_hashmap_init(&at, NULL);
    unsigned m = 0;
    bool ok = true;
    for (unsigned i = 0; i < n && ok; i++) {
        LLVMValueRef t = LLVMGetBasicBlockTerminator(layout[i]);
        m += t ? LLVMGetNumSuccessors(t) : 0;
        ok = util_ptrmap_put(&at, layout[i], (void *)(uintptr_t)(i + 1));
    }
    ok = ok && graph_alloc(lay, n, m);
    for (unsigned i = 0, e = 0; i < n && ok; i++) {
        LLVMValueRef t = LLVMGetBasicBlockTerminator(layout[i]);
        for (unsigned k = 0, ns = t ? LLVMGetNumSuccessors(t) : 0; k < ns; k++)
            lay->adj[e++] = (unsigned)(uintptr_t)util_ptrmap_get(&at, LLVMGetSuccessor(t, k)) - 1;
        lay->off[i + 1] = e;
    }
    util_hashmap_fini(&at);
    return ok;
}

/* Numbers the blocks (the reachable ones in reverse post-order, then the
 * rest in layout order) and records the successors in that numbering. */
static bool number_blocks(jit_cfg *g)
{
    unsigned n = g->nblocks;
    LLVMBasicBlockRef *layout = calloc(n, sizeof *layout);
    unsigned *order = calloc(n, sizeof *order), *po = calloc(n, sizeof *po), *num = calloc(n, sizeof *num);
    unsigned *stack = calloc(n, sizeof *stack), *cursor = calloc(n, sizeof *cursor);
    graph lay = { 0 };
    bool ok = layout && order && po && num && stack && cursor;
    if (ok)
        LLVMGetBasicBlocks(g->fn, layout);
    ok = ok && layout_graph(layout, n, &lay);
    if (ok) {
        g->nreachable = postorder(&lay, 0, order, po, stack, cursor);
        unsigned next = g->nreachable;
        for (unsigned i = 0; i < n; i++)
            num[i] = po[i] == JIT_CFG_NONE ? next++ : g->nreachable - 1 - po[i];
        g->blocks = calloc(n, sizeof *g->blocks);
        g->succ_off = calloc(n + 1, sizeof *g->succ_off);
        g->succ = calloc(lay.off[n] + 1, sizeof *g->succ);
        ok = g->blocks && g->succ_off && g->succ;
    }
    for (unsigned i = 0; i < n && ok; i++) {
        g->blocks[num[i]] = layout[i];
        g->succ_off[num[i] + 1] = lay.off[i + 1] - lay.off[i];
        ok = util_ptrmap_put(&g->index, layout[i], (void *)(uintptr_t)(num[i] + 1));
    }
    for (unsigned b = 0; b < n && ok; b++)
        g->succ_off[b + 1] += g->succ_off[b];
    for (unsigned i = 0; i < n && ok; i++)
        for (unsigned e = lay.off[i], k = g->succ_off[num[i]]; e < lay.off[i + 1]; e++)
            g->succ[k++] = num[lay.adj[e]];
    graph_free(&lay);
    free(layout);
    free(order);
    free(po);
    free(num);
    free(stack);
    free(cursor);
    return ok;
}

static bool find_dominators(jit_cfg *g)
{
    unsigned n = g->nblocks, nr = g->nreachable;
    graph preds = { n, g->pred_off, g->pred };
    unsigned *order = calloc(n, sizeof *order), *po = calloc(n, sizeof *po);
    bool ok = order && po && (g->idom = calloc(n, sizeof *g->idom)) && (g->dom_pre = calloc(n, sizeof *g->dom_pre)) &&
              (g->dom_post = calloc(n, sizeof *g->dom_post));
    if (ok) {
        /* the numbering is a reverse post-order already */
        for (unsigned b = 0; b < n; b++)
            po[b] = b < nr ? nr - 1 - b : JIT_CFG_NONE;
        for (unsigned i = 0; i < nr; i++)
            order[i] = nr - 1 - i;
        dominators(&preds, order, nr, po, g->idom);
        ok = tree_intervals(n, g->idom, 0, g->dom_pre, g->dom_post);
    }
    free(order);
    free(po);
    return ok;
}

/* Post-dominators: dominators of the reverse graph, rooted at a virtual exit
 * (node nblocks) that every block without successors leads to. */
static bool find_post_dominators(jit_cfg *g)
{
    unsigned n = g->nblocks, x = n, nexit = 0;
    for (unsigned b = 0; b < n; b++)
        nexit += jit_cfg_nsucc(g, b) == 0;
    graph fwd = { 0 }, rev = { 0 };
    unsigned *order = calloc(n + 1, sizeof *order), *po = calloc(n + 1, sizeof *po);
    unsigned *stack = calloc(n + 1, sizeof *stack), *cursor = calloc(n + 1, sizeof *cursor);
    bool ok = order && po && stack && cursor && graph_alloc(&fwd, n + 1, g->succ_off[n] + nexit);
    /* forward edges plus b → exit for each block without successors */
    for (unsigned b = 0, e = 0; b < n && ok; b++) {
        for (unsigned k = g->succ_off[b]; k < g->succ_off[b + 1]; k++)
            fwd.adj[e++] = g->succ[k];
        if (jit_cfg_nsucc(g, b) == 0)
            fwd.adj[e++] = x;
        fwd.off[b + 1] = e;
    }
    if (ok)
        fwd.off[x + 1] = fwd.off[x];
    ok = ok && graph_reverse(&fwd, &rev) && (g->ipdom = calloc(n + 1, sizeof *g->ipdom)) &&
         (g->pdom_pre = calloc(n + 1, sizeof *g->pdom_pre)) && (g->pdom_post = calloc(n + 1, sizeof *g->pdom_post));
    if (ok) {
        unsigned count = postorder(&rev, x, order, po, stack, cursor);
        dominators(&fwd, order, count, po, g->ipdom);
        ok = tree_intervals(n + 1, g->ipdom, x, g->pdom_pre, g->pdom_post);
    }
    graph_free(&fwd);
    graph_free(&rev);
    free(order);
    free(po);
    free(stack);
    free(cursor);
    return ok;
}

static bool find_predecessors(jit_cfg *g)
{
    graph succ = { g->nblocks, g->succ_off, g->succ }, pred = { 0 };
    if (!graph_reverse(&succ, &pred)) {
        graph_free(&pred);
        return false;
    }
    g->pred_off = pred.off;
    g->pred = pred.adj;
    return true;
}

static int cmp_unsigned(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return x < y ? -1 : x > y;
}

/* The natural loop of header h, given its latches: its blocks, exiting and
 * exit blocks.  `mark` holds loop numbers (a block is in loop li when
 * mark[b] == li), `seen` is scratch for the exits. */
static bool fill_loop(const jit_cfg *g, jit_loop *l, unsigned li, unsigned *mark, unsigned *seen, unsigned *work)
{
    unsigned n = g->nblocks, nb = 0, nw = 0;
    l->blocks = calloc(n, sizeof *l->blocks);
    if (!l->blocks)
        return false;
    mark[l->header] = li;
    l->blocks[nb++] = l->header;
    for (unsigned i = 0; i < l->nlatches; i++)
        if (mark[l->latches[i]] != li) {
            mark[l->latches[i]] = li;
            l->blocks[nb++] = l->latches[i];
            work[nw++] = l->latches[i];
        }
    while (nw) {
        unsigned v = work[--nw];
        for (unsigned e = g->pred_off[v]; e < g->pred_off[v + 1]; e++) {
            unsigned p = g->pred[e];
            if (p < g->nreachable && mark[p] != li) {
                mark[p] = li;
                l->blocks[nb++] = p;
                work[nw++] = p;
            }
        }
    }
    qsort(l->blocks, nb, sizeof *l->blocks, cmp_unsigned);
    l->nblocks = nb;
    l->exiting = calloc(nb, sizeof *l->exiting);
    l->exits = calloc(n, sizeof *l->exits);
    if (!l->exiting || !l->exits)
        return false;
    for (unsigned i = 0; i < nb; i++) {
        unsigned b = l->blocks[i];
        bool leaves = false;
        for (unsigned e = g->succ_off[b]; e < g->succ_off[b + 1]; e++) {
            unsigned s = g->succ[e];
            if (mark[s] == li)
                continue;
            leaves = true;
            if (seen[s] != li) {
                seen[s] = li;
                l->exits[l->nexits++] = s;
            }
        }
        if (leaves)
            l->exiting[l->nexiting++] = b;
    }
    qsort(l->exits, l->nexits, sizeof *l->exits, cmp_unsigned);
    return true;
}

static bool find_loops(jit_cfg *g)
{
    unsigned n = g->nblocks;
    unsigned *mark = malloc((n + 1) * sizeof *mark), *seen = malloc((n + 1) * sizeof *seen);
    unsigned *work = calloc(n + 1, sizeof *work);
    g->loop_of = malloc((n + 1) * sizeof *g->loop_of);
    g->loops = calloc(n + 1, sizeof *g->loops);
    bool ok = mark && seen && work && g->loop_of && g->loops;
    for (unsigned b = 0; b < n && ok; b++)
        mark[b] = seen[b] = g->loop_of[b] = JIT_CFG_NONE;
    /* outer headers dominate inner ones, so come first: inner loops overwrite loop_of */
    for (unsigned h = 0; h < g->nreachable && ok; h++) {
        jit_loop *l = &g->loops[g->nloops];
        for (unsigned e = g->pred_off[h]; e < g->pred_off[h + 1]; e++) {
            unsigned p = g->pred[e];
            if (p >= g->nreachable || !jit_cfg_dominates(g, h, p))
                continue;
            if (!l->latches && !(l->latches = calloc(jit_cfg_npred(g, h), sizeof *l->latches))) {
                ok = false;
                break;
            }
            bool dup = false;
            for (unsigned i = 0; i < l->nlatches; i++)
                dup |= l->latches[i] == p;
            if (!dup)
                l->latches[l->nlatches++] = p;
        }
        if (!ok || !l->nlatches)
            continue;
        qsort(l->latches, l->nlatches, sizeof *l->latches, cmp_unsigned);
        l->header = h;
        l->parent = g->loop_of[h];
        l->depth = l->parent == JIT_CFG_NONE ? 1 : g->loops[l->parent].depth + 1;
        unsigned li = g->nloops++;
        ok = fill_loop(g, l, li, mark, seen, work);
        for (unsigned i = 0; i < l->nblocks && ok; i++)
            g->loop_of[l->blocks[i]] = li;
    }
    /* a retreating edge to a block that does not dominate its source */
    for (unsigned b = 0; b < g->nreachable && ok; b++)
        for (unsigned e = g->succ_off[b]; e < g->succ_off[b + 1]; e++)
            if (g->succ[e] <= b && !jit_cfg_dominates(g, g->succ[e], b))
                g->irreducible = true;
    free(mark);
    free(seen);
    free(work);
    return ok;
}

int jit_cfg_build(jit_cfg *g, LLVMValueRef fn)
{
    memset(g, 0, sizeof *g);
    util_hashmap_init(&g->index, NULL);
    g->fn = fn;
    g->nblocks = LLVMCountBasicBlocks(fn);
    if (!g->nblocks)
        return 0;
    if (number_blocks(g) && find_predecessors(g) && find_dominators(g) && find_post_dominators(g) && find_loops(g))
        return 0;
    jit_cfg_free(g);
    return -1;
}

void jit_cfg_free(jit_cfg *g)
{
    for (unsigned i = 0; g->loops && i < g->nblocks; i++) {
        free(g->loops[i].blocks);
        free(g->loops[i].latches);
        free(g->loops[i].exiting);
        free(g->loops[i].exits);
    }
    free(g->loops);
    free(g->loop_of);
    free(g->blocks);
    free(g->succ_off);
    free(g->succ);
    free(g->pred_off);
    free(g->pred);
    free(g->idom);
    free(g->ipdom);
    free(g->dom_pre);
    free(g->dom_post);
    free(g->pdom_pre);
    free(g->pdom_post);
    util_hashmap_fini(&g->index);
    memset(g, 0, sizeof *g);
    util_hashmap_init(&g->index, NULL);
}

/* `x pred y` on integer constants, folded by the builder. */
static bool const_holds(LLVMBuilderRef b, LLVMIntPredicate pred, LLVMValueRef x, LLVMValueRef y)
{
    return LLVMConstIntGetZExtValue(LLVMBuildICmp(b, pred, x, y, "")) != 0;
}

unsigned jit_cfg_counted_trips(LLVMBuilderRef b, const jit_cfg *g, unsigned latch, unsigned header, unsigned limit)
{
    if (g->irreducible)
        return 0;
    unsigned l = g->loop_of[header];
    if (l == JIT_CFG_NONE || g->loops[l].header != header || g->loops[l].nlatches != 1 || jit_cfg_npred(g, header) != 2)
        return 0;
    const jit_loop *lp = &g->loops[l];
    for (unsigned i = 0; i < lp->nblocks; i++)
        if (g->loop_of[lp->blocks[i]] != l)
            return 0; /* a loop inside */
    LLVMValueRef br = LLVMGetBasicBlockTerminator(g->blocks[latch]);
    if (!LLVMIsABranchInst(br) || !LLVMIsConditional(br))
        return 0;
    LLVMValueRef cmp = LLVMGetCondition(br);
    if (!LLVMIsAICmpInst(cmp))
        return 0;
    bool stay_if_true = LLVMGetSuccessor(br, 0) == g->blocks[header];
    if (stay_if_true == (LLVMGetSuccessor(br, 1) == g->blocks[header]))
        return 0;
    /* x is the counter's next value (an add of the phi) or the phi itself */
    LLVMValueRef x = LLVMGetOperand(cmp, 0), bound = LLVMGetOperand(cmp, 1), phi = x, next = NULL;
    if (LLVMIsABinaryOperator(x) && LLVMGetInstructionOpcode(x) == LLVMAdd) {
        phi = LLVMGetOperand(x, 0);
        next = x;
    }
    if (!LLVMIsAPHINode(phi) || LLVMGetInstructionParent(phi) != g->blocks[header] || LLVMCountIncoming(phi) != 2 ||
        LLVMGetTypeKind(LLVMTypeOf(phi)) != LLVMIntegerTypeKind || LLVMGetIntTypeWidth(LLVMTypeOf(phi)) > 64)
        return 0;
    LLVMValueRef start = NULL, back = NULL;
    for (unsigned i = 0; i < 2; i++) {
        if (LLVMGetIncomingBlock(phi, i) == g->blocks[latch])
            back = LLVMGetIncomingValue(phi, i);
        else
            start = LLVMGetIncomingValue(phi, i);
    }
    if (!back || !start || !LLVMIsABinaryOperator(back) || LLVMGetInstructionOpcode(back) != LLVMAdd ||
        LLVMGetOperand(back, 0) != phi || (next && next != back))
        return 0;
    LLVMValueRef step = LLVMGetOperand(back, 1);
    if (!LLVMIsAConstantInt(start) || !LLVMIsAConstantInt(step) || !LLVMIsAConstantInt(bound))
        return 0;
    /* the counter run with LLVM's constant folding (the builder folds
     * constants: the type's width and wrapping, the predicate's signedness);
     * a step that wraps where the add says it does not (nuw, nsw) is poison,
     * on which the compiled code may loop on */
    LLVMIntPredicate pred = LLVMGetICmpPredicate(cmp);
    LLVMIntPredicate wrapped_signed = LLVMConstIntGetSExtValue(step) < 0 ? LLVMIntSGT : LLVMIntSLT;
    for (unsigned trips = 1; trips <= limit; trips++) {
        LLVMValueRef after = LLVMBuildAdd(b, start, step, "");
        if ((LLVMGetNUW(back) && const_holds(b, LLVMIntULT, after, start)) ||
            (LLVMGetNSW(back) && const_holds(b, wrapped_signed, after, start)))
            return 0;
        if (const_holds(b, pred, next ? after : start, bound) != stay_if_true)
            return trips;
        start = after;
    }
    return 0;
}
