/* jit/uniformity.c — the divergence analysis (see uniformity.h).
 *
 * A worklist fixed point: every instruction is visited once, then again
 * whenever something it depends on becomes varying (an operand, the alloca
 * it loads, its block turning divergent, its block becoming a join).  Facts
 * only ever go from uniform to varying, so it ends. */
#include "uniformity.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "llvm_facts.h"
#include "util/array.h"

typedef struct uvar { /* a simple alloca: a variable */
    LLVMValueRef alloca;
    LLVMValueRef store; /* its only store, or NULL */
    bool varying;
} uvar;

struct jit_uniformity {
    const jit_cfg *cfg;
    jit_uniformity_config config;
    util_hashmap varying;                    /* varying instruction or argument → (void *)1 */
    util_hashmap vars;                       /* simple alloca → index + 1 in var_list */
    util_array var_list;                     /* uvar */
    util_hashmap early;                      /* entry-block loads before the first write (items in sequence) */
    bool *divergent, *branch_varying, *join; /* [nblocks] */
    bool *loop_left;                         /* [nloops]: a varying branch leaves the loop */
    unsigned *seen;                          /* [nblocks] scratch */
    unsigned *stack;                         /* [nblocks] scratch */
    util_array work;                         /* LLVMValueRef: instructions to visit */
    util_array exits;                        /* unsigned: divergent loop exits whose branch must count as varying */
    bool oom;
};

/* --- state changes ------------------------------------------------------------------------------- */

static void push(jit_uniformity *u, LLVMValueRef in)
{
    if (!UTIL_ARRAY_PUSH(&u->work, LLVMValueRef, in))
        u->oom = true;
}

static bool is_varying(const jit_uniformity *u, LLVMValueRef v)
{
    return util_ptrmap_get(&u->varying, v) != NULL;
}

static void set_varying(jit_uniformity *u, LLVMValueRef v)
{
    if (is_varying(u, v))
        return;
    if (!util_ptrmap_put(&u->varying, v, (void *)1))
        u->oom = true;
    for (LLVMUseRef use = LLVMGetFirstUse(v); use; use = LLVMGetNextUse(use))
        if (LLVMIsAInstruction(LLVMGetUser(use)))
            push(u, LLVMGetUser(use));
}

static uvar *var_of(const jit_uniformity *u, LLVMValueRef p)
{
    size_t i = (size_t)(uintptr_t)util_ptrmap_get(&u->vars, p);
    return i ? &UTIL_ARRAY_AT(&u->var_list, uvar, i - 1) : NULL;
}

static void set_var_varying(jit_uniformity *u, uvar *x)
{
    if (x->varying)
        return;
    x->varying = true;
    for (LLVMUseRef use = LLVMGetFirstUse(x->alloca); use; use = LLVMGetNextUse(use))
        if (LLVMIsALoadInst(LLVMGetUser(use)))
            push(u, LLVMGetUser(use));
}

static unsigned block_of(const jit_uniformity *u, LLVMValueRef in)
{
    return jit_cfg_index(u->cfg, LLVMGetInstructionParent(in));
}

/* Revisits the stores of block b (their variables) and, when `phis`, its phis. */
static void push_block(jit_uniformity *u, unsigned b, bool stores, bool phis)
{
    for (LLVMValueRef in = LLVMGetFirstInstruction(u->cfg->blocks[b]); in; in = LLVMGetNextInstruction(in))
        if ((stores && LLVMIsAStoreInst(in)) || (phis && LLVMIsAPHINode(in)))
            push(u, in);
}

/* Revisits the phis after block b: whether its edges count for them changed
 * (join_brings_one). */
static void push_successor_phis(jit_uniformity *u, unsigned b)
{
    const jit_cfg *g = u->cfg;
    for (unsigned e = g->succ_off[b]; e < g->succ_off[b + 1]; e++)
        push_block(u, g->succ[e], false, true);
}

static void set_divergent(jit_uniformity *u, unsigned b)
{
    if (u->divergent[b])
        return;
    u->divergent[b] = true;
    push_block(u, b, true, false);
    push_successor_phis(u, b);
}

static void set_join(jit_uniformity *u, unsigned b)
{
    if (u->join[b])
        return;
    u->join[b] = true;
    if (jit_cfg_npred(u->cfg, b) >= 2)
        push_block(u, b, false, true);
}

/* Whether block x, reached under a varying branch in block b, leaves a loop
 * around b: only some items take that exit, whatever its condition. */
static bool leaves_loop_of(const jit_uniformity *u, unsigned b, unsigned x)
{
    const jit_cfg *g = u->cfg;
    for (unsigned l = g->loop_of[b]; l != JIT_CFG_NONE; l = g->loops[l].parent) {
        if (!jit_cfg_loop_contains(g, l, x))
            continue;
        for (unsigned e = g->succ_off[x]; e < g->succ_off[x + 1]; e++)
            if (!jit_cfg_loop_contains(g, l, g->succ[e]))
                return true;
    }
    return false;
}

/* Marks x reached from the nth successor of block b's varying branch (see below). */
static void reach(jit_uniformity *u, unsigned b, unsigned x, unsigned nth, unsigned *n)
{
    if (u->seen[x] == nth)
        return;
    if (u->seen[x])
        set_join(u, x); /* reached from an earlier successor too */
    u->seen[x] = nth;
    set_divergent(u, x);
    u->stack[(*n)++] = x;
    if (!u->branch_varying[x] && leaves_loop_of(u, b, x) && !UTIL_ARRAY_PUSH(&u->exits, unsigned, x))
        u->oom = true;
}

/* The blocks that only some items may run after block b's varying branch:
 * those reachable from its successors before its post-dominator.  Those
 * reached from two or more of its successors, and the post-dominator, are
 * joins: items that went different ways may meet there.  (A block reached
 * from one successor only, such as the header of a loop under the branch,
 * sees items that all went the same way.) */
static void mark_influence(jit_uniformity *u, unsigned b)
{
    const jit_cfg *g = u->cfg;
    unsigned stop = g->ipdom[b], nth = 0;
    memset(u->seen, 0, g->nblocks * sizeof *u->seen);
    for (unsigned e0 = g->succ_off[b]; e0 < g->succ_off[b + 1]; e0++) {
        unsigned s0 = g->succ[e0], n = 0;
        bool dup = s0 == stop;
        for (unsigned e = g->succ_off[b]; e < e0; e++)
            dup |= g->succ[e] == s0;
        if (dup)
            continue;
        reach(u, b, s0, ++nth, &n);
        while (n) {
            unsigned x = u->stack[--n];
            for (unsigned e = g->succ_off[x]; e < g->succ_off[x + 1]; e++)
                if (g->succ[e] != stop)
                    reach(u, b, g->succ[e], nth, &n);
        }
    }
    if (stop < g->nblocks)
        set_join(u, stop);
}

/* A varying branch in block b that leaves loop l: each item may leave at
 * another iteration, so what the loop computes and is used after it varies. */
static void leave_loop(jit_uniformity *u, unsigned l)
{
    const jit_cfg *g = u->cfg;
    if (u->loop_left[l])
        return;
    u->loop_left[l] = true;
    const jit_loop *lp = &g->loops[l];
    for (unsigned i = 0; i < lp->nblocks; i++)
        for (LLVMValueRef in = LLVMGetFirstInstruction(g->blocks[lp->blocks[i]]); in; in = LLVMGetNextInstruction(in))
            for (LLVMUseRef use = LLVMGetFirstUse(in); use; use = LLVMGetNextUse(use)) {
                LLVMValueRef user = LLVMGetUser(use);
                if (LLVMIsAInstruction(user) && !jit_cfg_loop_contains(g, l, block_of(u, user))) {
                    set_varying(u, in);
                    break;
                }
            }
}

/* A branch in block b sends items different ways: a varying condition, or a
 * loop exit that only some items reach (their branch counts as varying too:
 * the items that stay run more iterations). */
static void branch_varies(jit_uniformity *u, unsigned b)
{
    const jit_cfg *g = u->cfg;
    if (!UTIL_ARRAY_PUSH(&u->exits, unsigned, b)) {
        u->oom = true;
        return;
    }
    while (u->exits.size && !u->oom) {
        u->exits.size -= sizeof(unsigned);
        unsigned x = *(unsigned *)((char *)u->exits.data + u->exits.size);
        if (u->branch_varying[x])
            continue;
        u->branch_varying[x] = true;
        push_successor_phis(u, x);
        mark_influence(u, x);
        for (unsigned l = g->loop_of[x]; l != JIT_CFG_NONE; l = g->loops[l].parent)
            for (unsigned e = g->succ_off[x]; e < g->succ_off[x + 1]; e++)
                if (!jit_cfg_loop_contains(g, l, g->succ[e])) {
                    leave_loop(u, l);
                    break;
                }
    }
}

/* --- the rules ------------------------------------------------------------------------------------- */

LLVMValueRef jit_uniformity_pointer_root(const jit_uniformity *u, LLVMValueRef p)
{
    for (int depth = 0; depth < 8; depth++) {
        p = jit_strip_geps(p);
        uvar *x = LLVMIsALoadInst(p) ? var_of(u, LLVMGetOperand(p, 0)) : NULL;
        if (!x || !x->store)
            return p;
        p = LLVMGetOperand(x->store, 0);
    }
    return NULL;
}

static bool read_only(const jit_uniformity *u, LLVMValueRef p)
{
    LLVMValueRef root = jit_uniformity_pointer_root(u, p);
    if (!root)
        return false;
    if (LLVMIsAGlobalVariable(root))
        return LLVMIsGlobalConstant(root);
    return u->config.read_only && u->config.read_only(u->config.user, u, root);
}

static bool load_varying(const jit_uniformity *u, LLVMValueRef in)
{
    if (LLVMGetVolatile(in) || LLVMGetOrdering(in) != LLVMAtomicOrderingNotAtomic)
        return true;
    LLVMValueRef p = LLVMGetOperand(in, 0);
    const uvar *x = var_of(u, p);
    if (x)
        return x->varying;
    if (is_varying(u, p))
        return true;
    if (u->config.memory == JIT_MEMORY_LANES_IN_LOCKSTEP)
        return false;
    return !read_only(u, p) && !util_ptrmap_get(&u->early, in);
}

static bool any_operand_varying(const jit_uniformity *u, LLVMValueRef in)
{
    for (int k = 0, n = LLVMGetNumOperands(in); k < n; k++)
        if (is_varying(u, LLVMGetOperand(in, k)))
            return true;
    return false;
}

/* Marks in `in` (zeroed, nblocks) the blocks that items may reach from the
 * successors of block b's varying branch before its immediate post-dominator. */
static void influence_of(const jit_uniformity *u, unsigned b, bool *in, unsigned *stack)
{
    const jit_cfg *g = u->cfg;
    unsigned stop = g->ipdom[b], n = 0;
    for (unsigned e = g->succ_off[b]; e < g->succ_off[b + 1]; e++)
        if (g->succ[e] != stop && !in[g->succ[e]]) {
            in[g->succ[e]] = true;
            stack[n++] = g->succ[e];
        }
    while (n) {
        unsigned x = stack[--n];
        for (unsigned e = g->succ_off[x]; e < g->succ_off[x + 1]; e++)
            if (g->succ[e] != stop && !in[g->succ[e]]) {
                in[g->succ[e]] = true;
                stack[n++] = g->succ[e];
            }
    }
}

/* Whether every edge into phi `in` from a block that only some items run,
 * or whose branch varies, brings the same value. */
static bool divergent_edges_agree(const jit_uniformity *u, LLVMValueRef in)
{
    const jit_cfg *g = u->cfg;
    LLVMValueRef one = NULL;
    for (unsigned k = 0, n = LLVMCountIncoming(in); k < n; k++) {
        unsigned p = jit_cfg_index(g, LLVMGetIncomingBlock(in, k));
        if (p >= g->nblocks || (!u->divergent[p] && !u->branch_varying[p]))
            continue;
        LLVMValueRef v = LLVMGetIncomingValue(in, k);
        if (one && v != one)
            return false;
        one = v;
    }
    return true;
}

/* At most this many blocks visited to group a phi's edges by branch (a
 * phi beyond it counts as varying). */
#define JOIN_GROUPING_BUDGET (1u << 20)

/* Whether phi `in` at a join (in block j) still gives the items that arrive
 * together one value.  Two items that arrive over different edges parted
 * last at some varying branch b, and both edges leave b itself or a block
 * of b's influence (a block after b's post-dominator would put j in a loop):
 * so it is enough that, for every varying branch b whose influence or
 * post-dominator is j, the edges from b and its influence bring one value.
 * Then after `if (stride > 1) { if (lid < stride) ...; next = 1 } else
 * { if (lid == 0) ...; next = 0 }` the next region stays uniform.  In a loop
 * an item may reach j more than once: there every edge from a divergent
 * block or a varying branch must bring the same value. */
bool jit_uniformity_join_brings_one(const jit_uniformity *u, LLVMValueRef in)
{
    const jit_cfg *g = u->cfg;
    unsigned j = jit_cfg_index(g, LLVMGetInstructionParent(in)), n = LLVMCountIncoming(in);
    if (divergent_edges_agree(u, in))
        return true;
    if (j >= g->nblocks || g->loop_of[j] != JIT_CFG_NONE)
        return false;
    unsigned nvarying = 0;
    for (unsigned b = 0; b < g->nblocks; b++)
        nvarying += u->branch_varying[b];
    if ((uint64_t)nvarying * g->nblocks > JOIN_GROUPING_BUDGET)
        return false;
    bool *reached = malloc(g->nblocks * sizeof *reached);
    unsigned *stack = malloc(g->nblocks * sizeof *stack);
    bool one_value = reached && stack;
    for (unsigned b = 0; b < g->nblocks && one_value; b++) {
        if (!u->branch_varying[b])
            continue;
        memset(reached, 0, g->nblocks * sizeof *reached);
        influence_of(u, b, reached, stack);
        if (!reached[j] && g->ipdom[b] != j)
            continue;
        LLVMValueRef one = NULL;
        for (unsigned k = 0; k < n && one_value; k++) {
            unsigned p = jit_cfg_index(g, LLVMGetIncomingBlock(in, k));
            if (p >= g->nblocks || (p != b && !reached[p]))
                continue;
            LLVMValueRef v = LLVMGetIncomingValue(in, k);
            one_value = !one || v == one;
            one = v;
        }
    }
    free(reached);
    free(stack);
    return one_value;
}

/* Whether the value of `in` (not void) varies, given what is known now. */
static bool value_varying(const jit_uniformity *u, LLVMValueRef in)
{
    LLVMOpcode op = LLVMGetInstructionOpcode(in);
    if (op == LLVMPHI) {
        unsigned b = block_of(u, in);
        if (jit_cfg_npred(u->cfg, b) >= 2 && u->join[b] && !jit_uniformity_join_brings_one(u, in))
            return true;
        for (unsigned k = 0, n = LLVMCountIncoming(in); k < n; k++)
            if (is_varying(u, LLVMGetIncomingValue(in, k)))
                return true;
        return false;
    }
    if (u->config.known_uniform && u->config.known_uniform(u->config.user, in))
        return false;
    if (op == LLVMLoad)
        return load_varying(u, in);
    if (op == LLVMCall) {
        int says = u->config.call_varying ? u->config.call_varying(u->config.user, u, in) : -1;
        if (says >= 0)
            return says;
        return !jit_call_pure(in) || any_operand_varying(u, in);
    }
    return !jit_opcode_pure(op) || any_operand_varying(u, in);
}

static void visit(jit_uniformity *u, LLVMValueRef in)
{
    LLVMOpcode op = LLVMGetInstructionOpcode(in);
    if (op == LLVMStore) {
        uvar *x = var_of(u, LLVMGetOperand(in, 1));
        if (x && (u->divergent[block_of(u, in)] || is_varying(u, LLVMGetOperand(in, 0))))
            set_var_varying(u, x);
        return;
    }
    if (op == LLVMBr || op == LLVMSwitch) {
        LLVMValueRef cond = op == LLVMSwitch        ? LLVMGetOperand(in, 0)
                            : LLVMIsConditional(in) ? LLVMGetCondition(in)
                                                    : NULL;
        if (cond && is_varying(u, cond))
            branch_varies(u, block_of(u, in));
        return;
    }
    if (LLVMIsATerminatorInst(in) && LLVMGetNumSuccessors(in) >= 2)
        branch_varies(u, block_of(u, in)); /* invoke, callbr, indirectbr: not followed */
    if (LLVMGetTypeKind(LLVMTypeOf(in)) != LLVMVoidTypeKind && !is_varying(u, in) && value_varying(u, in))
        set_varying(u, in);
}

/* --- setup ------------------------------------------------------------------------------------------- */

static bool find_vars(jit_uniformity *u)
{
    const jit_cfg *g = u->cfg;
    for (unsigned b = 0; b < g->nblocks; b++)
        for (LLVMValueRef in = LLVMGetFirstInstruction(g->blocks[b]); in; in = LLVMGetNextInstruction(in)) {
            if (!LLVMIsAAllocaInst(in) || !jit_alloca_simple(in))
                continue;
            uvar x = { .alloca = in, .store = jit_alloca_single_store(in) };
            if (!UTIL_ARRAY_PUSH(&u->var_list, uvar, x))
                return false;
            size_t n = UTIL_ARRAY_COUNT(&u->var_list, uvar);
            if (!util_ptrmap_put(&u->vars, in, (void *)(uintptr_t)n))
                return false;
        }
    return true;
}

/* Items in sequence: the entry block's loads before anything may write shared memory. */
static bool find_early_loads(jit_uniformity *u)
{
    if (u->config.memory != JIT_MEMORY_ITEMS_IN_SEQUENCE || !u->cfg->nblocks)
        return true;
    for (LLVMValueRef in = LLVMGetFirstInstruction(u->cfg->blocks[0]); in; in = LLVMGetNextInstruction(in)) {
        if (jit_inst_may_write_shared(in))
            break;
        if (LLVMIsALoadInst(in) && !util_ptrmap_put(&u->early, in, (void *)1))
            return false;
    }
    return true;
}

int jit_uniformity_run(jit_uniformity **out, const jit_cfg *cfg, const jit_uniformity_config *config)
{
    jit_uniformity *u = calloc(1, sizeof *u);
    *out = u;
    if (!u)
        return -1;
    u->cfg = cfg;
    u->config = *config;
    util_hashmap_init(&u->varying, NULL);
    util_hashmap_init(&u->vars, NULL);
    util_hashmap_init(&u->early, NULL);
    unsigned n = cfg->nblocks;
    u->divergent = calloc(n + 1, sizeof *u->divergent);
    u->branch_varying = calloc(n + 1, sizeof *u->branch_varying);
    u->join = calloc(n + 1, sizeof *u->join);
    u->seen = calloc(n + 1, sizeof *u->seen);
    u->stack = calloc(n + 1, sizeof *u->stack);
    u->loop_left = calloc(cfg->nloops + 1, sizeof *u->loop_left);
    u->oom = !u->divergent || !u->branch_varying || !u->join || !u->seen || !u->stack || !u->loop_left ||
             !find_vars(u) || !find_early_loads(u);
    for (unsigned i = 0, np = LLVMCountParams(cfg->fn); i < np && !u->oom; i++)
        if (config->param_varies && config->param_varies[i])
            u->oom = !util_ptrmap_put(&u->varying, LLVMGetParam(cfg->fn, i), (void *)1);
    /* visit in block order first (the stack pops the last pushed) */
    for (unsigned b = n; b-- > 0 && !u->oom;)
        for (LLVMValueRef in = LLVMGetLastInstruction(cfg->blocks[b]); in; in = LLVMGetPreviousInstruction(in))
            push(u, in);
    while (u->work.size && !u->oom) {
        u->work.size -= sizeof(LLVMValueRef);
        visit(u, *(LLVMValueRef *)((char *)u->work.data + u->work.size));
    }
    util_array_fini(&u->work);
    return u->oom ? -1 : 0;
}

void jit_uniformity_free(jit_uniformity *u)
{
    if (!u)
        return;
    util_hashmap_fini(&u->varying);
    util_hashmap_fini(&u->vars);
    util_hashmap_fini(&u->early);
    util_array_fini(&u->var_list);
    util_array_fini(&u->work);
    util_array_fini(&u->exits);
    free(u->divergent);
    free(u->branch_varying);
    free(u->join);
    free(u->loop_left);
    free(u->seen);
    free(u->stack);
    free(u);
}

/* --- queries ------------------------------------------------------------------------------------------ */

bool jit_uniformity_varying(const jit_uniformity *u, LLVMValueRef v)
{
    return is_varying(u, v);
}

bool jit_uniformity_divergent(const jit_uniformity *u, unsigned b)
{
    return b < u->cfg->nblocks && u->divergent[b];
}

bool jit_uniformity_join(const jit_uniformity *u, unsigned b)
{
    return b < u->cfg->nblocks && u->join[b];
}

bool jit_uniformity_branch_varying(const jit_uniformity *u, unsigned b)
{
    return b < u->cfg->nblocks && u->branch_varying[b];
}

bool jit_uniformity_alloca_varying(const jit_uniformity *u, LLVMValueRef a)
{
    const uvar *x = var_of(u, a);
    return !x || x->varying;
}
