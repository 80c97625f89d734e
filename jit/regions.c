/* jit/regions.c — barriers compiled away (see regions.h). */
#include "regions.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <llvm-c/Transforms/PassBuilder.h>

/* --- a pointer → pointer map (open addressing) --------------------------------------------- */

typedef struct vmap {
    void **k, **v;
    size_t cap, n;
} vmap;

static size_t vhash(const void *p, size_t cap)
{
    return ((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ull >> 7 & (cap - 1);
}

static void vmap_put(vmap *m, void *k, void *v)
{
    if (2 * (m->n + 1) > m->cap) {
        vmap old = *m;
        m->cap = old.cap ? 2 * old.cap : 64;
        m->k = calloc(m->cap, sizeof *m->k);
        m->v = calloc(m->cap, sizeof *m->v);
        m->n = 0;
        for (size_t i = 0; i < old.cap; i++)
            if (old.k[i])
                vmap_put(m, old.k[i], old.v[i]);
        free(old.k);
        free(old.v);
    }
    size_t i = vhash(k, m->cap);
    while (m->k[i] && m->k[i] != k)
        i = (i + 1) & (m->cap - 1);
    if (!m->k[i])
        m->n++;
    m->k[i] = k;
    m->v[i] = v;
}

static void *vmap_get(const vmap *m, const void *k)
{
    if (!m->cap)
        return NULL;
    size_t i = vhash(k, m->cap);
    while (m->k[i]) {
        if (m->k[i] == k)
            return m->v[i];
        i = (i + 1) & (m->cap - 1);
    }
    return NULL;
}

static void vmap_free(vmap *m)
{
    free(m->k);
    free(m->v);
    memset(m, 0, sizeof *m);
}

/* --- state -------------------------------------------------------------------------------------- */

/* SLOT_REMAT: stored once, with a pure function of constants, uniform values and
 * the local id: every load recomputes it instead (no per-item array, and the
 * region loops see the id arithmetic, which they need to vectorize).
 * SLOT_GROUP: live across a barrier, but work-group uniform (see find_varying):
 * one slot for the group, which each item's pass over a region that stores it
 * starts from the value it had when the region began (see emit_region). */
enum { SLOT_ITEM, SLOT_SHARED, SLOT_UNIFORM, SLOT_REMAT, SLOT_GROUP };

typedef struct slot {
    LLVMValueRef alloca;
    int kind;
    bool simple;              /* only loaded and stored as a whole */
    bool varying;             /* may hold different values in different items (find_varying) */
    LLVMValueRef uniform_val; /* SLOT_UNIFORM / SLOT_REMAT: the value stored (item function) */
    bool visiting;
    LLVMValueRef wg; /* in spvjit_wg: the array or the shared slot */
} slot;

typedef struct rx {
    lower_ctx *c;
    LLVMBuilderRef b;
    LLVMValueRef item, wg, ctx;
    LLVMBasicBlockRef entry; /* of the item function */
    LLVMBasicBlockRef *blocks;
    unsigned nblocks;
    vmap block_index;      /* block → index + 1 */
    LLVMValueRef *barrier; /* [nblocks]: the barrier call ending it, or NULL */
    unsigned *resume;      /* [nblocks]: its resume id (1-based) */
    unsigned nresume;
    LLVMBasicBlockRef *resume_start; /* [nresume + 1]: region starts, [0] the entry */
    uint32_t *resume_site;           /* [nresume + 1]: barrier site, [0] UINT32_MAX */
    slot *slots;
    unsigned nslots;
    vmap slot_of;      /* alloca → slot index + 1 */
    vmap uniform;      /* item instruction → hoisted value (after hoisting:
                                                   until then, → the instruction itself) */
    bool *div_block;   /* [nblocks]: items may differ in running it */
    uint64_t *live_in; /* [nblocks][live_words]: slots live into each block */
    unsigned live_words;
    uint32_t ls[3], n;
    LLVMValueRef next, next_uniform, rounds, diff, site_table;
} rx;

/* --- step 1: inlining, reg2mem, blocks ending at barriers ------------------------------------ */

static int run_passes(lower_ctx *c, const char *pipeline)
{
    LLVMPassBuilderOptionsRef o = LLVMCreatePassBuilderOptions();
    LLVMErrorRef e = LLVMRunPasses(c->mod, pipeline, NULL, o);
    LLVMDisposePassBuilderOptions(o);
    if (!e)
        return 0;
    char *msg = LLVMGetErrorMessage(e);
    jit_fail(c, "LLVM passes (%s) failed: %s", pipeline, msg);
    LLVMDisposeErrorMessage(msg);
    return -1;
}

/* Constant byte offset of `p` from the item function's ctx argument, or -1. */
static long long ctx_offset(rx *r, LLVMValueRef p)
{
    if (p == r->ctx)
        return 0;
    if (!LLVMIsAGetElementPtrInst(p) || LLVMGetOperand(p, 0) != r->ctx || LLVMGetNumOperands(p) != 2)
        return -1;
    if (LLVMGetGEPSourceElementType(p) != r->c->t_i8)
        return -1;
    LLVMValueRef off = LLVMGetOperand(p, 1);
    return LLVMIsAConstantInt(off) ? LLVMConstIntGetSExtValue(off) : -1;
}

/* A call through ctx->barrier: the site, or -1 for another call. */
static long long barrier_site_of(rx *r, LLVMValueRef call)
{
    LLVMValueRef callee = LLVMGetCalledValue(call);
    if (!LLVMIsALoadInst(callee) ||
        ctx_offset(r, LLVMGetOperand(callee, 0)) != (long long)offsetof(spvjit_wg_ctx, barrier))
        return -1;
    if (LLVMGetNumArgOperands(call) != 2)
        return -2;
    LLVMValueRef site = LLVMGetOperand(call, 1);
    return LLVMIsAConstantInt(site) ? (long long)LLVMConstIntGetZExtValue(site) : -2;
}

static bool is_harmless_call(LLVMValueRef call)
{
    LLVMValueRef f = LLVMGetCalledValue(call);
    if (!LLVMIsAFunction(f))
        return false;
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    return !strncmp(name, "llvm.lifetime.", 14) || !strncmp(name, "llvm.assume", 11) || !strncmp(name, "llvm.dbg.", 9);
}

/* Ends a block right after every barrier call.  0, or 1 when a call is not understood. */
static int split_at_barriers(rx *r)
{
    LLVMValueRef *calls = NULL;
    size_t n = 0, cap = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(r->item); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
            if (!LLVMIsACallInst(i))
                continue;
            LLVMValueRef f = LLVMGetCalledValue(i);
            if (LLVMIsAFunction(f)) {
                if (LLVMCountBasicBlocks(f)) {
                    free(calls);
                    return 1;
                } /* not inlined */
                continue;
            }
            long long site = barrier_site_of(r, i);
            if (site < 0) {
                free(calls);
                return 1;
            } /* unknown indirect call */
            if (n == cap)
                calls = realloc(calls, (cap = cap ? 2 * cap : 16) * sizeof *calls);
            calls[n++] = i;
        }
    for (size_t k = 0; k < n; k++) {
        LLVMBasicBlockRef bb = LLVMGetInstructionParent(calls[k]);
        LLVMBasicBlockRef after = LLVMGetNextBasicBlock(bb);
        LLVMBasicBlockRef nb = after ? LLVMInsertBasicBlockInContext(r->c->llc, after, "after.barrier")
                                     : LLVMAppendBasicBlockInContext(r->c->llc, r->item, "after.barrier");
        LLVMPositionBuilderAtEnd(r->b, nb);
        for (LLVMValueRef i = LLVMGetNextInstruction(calls[k]), nx; i; i = nx) {
            nx = LLVMGetNextInstruction(i);
            LLVMInstructionRemoveFromParent(i);
            LLVMInsertIntoBuilder(r->b, i);
        }
        LLVMPositionBuilderAtEnd(r->b, bb);
        LLVMBuildBr(r->b, nb);
    }
    free(calls);
    return 0;
}

/* --- step 2: blocks, uniform values, slots ---------------------------------------------------- */

static unsigned block_idx(rx *r, LLVMBasicBlockRef bb)
{
    return (unsigned)(uintptr_t)vmap_get(&r->block_index, bb) - 1;
}

/* Records the blocks and barrier blocks.  0, or 1 for something the regions cannot take. */
static int scan_blocks(rx *r)
{
    r->nblocks = LLVMCountBasicBlocks(r->item);
    r->blocks = calloc(r->nblocks, sizeof *r->blocks);
    r->barrier = calloc(r->nblocks, sizeof *r->barrier);
    r->resume = calloc(r->nblocks, sizeof *r->resume);
    LLVMGetBasicBlocks(r->item, r->blocks);
    r->entry = r->blocks[0];
    for (unsigned i = 0; i < r->nblocks; i++)
        vmap_put(&r->block_index, r->blocks[i], (void *)(uintptr_t)(i + 1));
    for (unsigned i = 0; i < r->nblocks; i++) {
        for (LLVMValueRef in = LLVMGetFirstInstruction(r->blocks[i]); in; in = LLVMGetNextInstruction(in)) {
            LLVMOpcode op = LLVMGetInstructionOpcode(in);
            if (op == LLVMPHI || op == LLVMInvoke || op == LLVMCallBr || op == LLVMIndirectBr)
                return 1;
            if (op == LLVMAlloca && r->blocks[i] != r->entry)
                return 1;
            if (op == LLVMCall && barrier_site_of(r, in) >= 0) {
                LLVMValueRef term = LLVMGetNextInstruction(in);
                if (!term || LLVMGetInstructionOpcode(term) != LLVMBr || LLVMIsConditional(term))
                    return 1;
                r->barrier[i] = in;
            }
        }
    }
    r->resume_start = calloc(r->nblocks + 1, sizeof *r->resume_start);
    r->resume_site = calloc(r->nblocks + 1, sizeof *r->resume_site);
    r->resume_start[0] = r->entry;
    r->resume_site[0] = UINT32_MAX;
    for (unsigned i = 0; i < r->nblocks; i++) {
        if (!r->barrier[i])
            continue;
        r->resume[i] = ++r->nresume;
        r->resume_start[r->nresume] = LLVMGetSuccessor(LLVMGetBasicBlockTerminator(r->blocks[i]), 0);
        r->resume_site[r->nresume] = (uint32_t)barrier_site_of(r, r->barrier[i]);
    }
    return 0;
}

static bool is_uniform_operand(rx *r, LLVMValueRef v)
{
    if (v == r->ctx)
        return true;
    if (LLVMIsAArgument(v) || LLVMIsABasicBlock(v))
        return false;
    if (LLVMIsAInstruction(v))
        return vmap_get(&r->uniform, v) != NULL;
    return LLVMIsAConstant(v) != NULL;
}

static bool pure_opcode(LLVMOpcode op)
{
    switch (op) {
    case LLVMGetElementPtr:
    case LLVMTrunc:
    case LLVMZExt:
    case LLVMSExt:
    case LLVMFPToUI:
    case LLVMFPToSI:
    case LLVMUIToFP:
    case LLVMSIToFP:
    case LLVMFPTrunc:
    case LLVMFPExt:
    case LLVMPtrToInt:
    case LLVMIntToPtr:
    case LLVMBitCast:
    case LLVMAddrSpaceCast:
    case LLVMAdd:
    case LLVMFAdd:
    case LLVMSub:
    case LLVMFSub:
    case LLVMMul:
    case LLVMFMul:
    case LLVMUDiv:
    case LLVMSDiv:
    case LLVMFDiv:
    case LLVMURem:
    case LLVMSRem:
    case LLVMFRem:
    case LLVMShl:
    case LLVMLShr:
    case LLVMAShr:
    case LLVMAnd:
    case LLVMOr:
    case LLVMXor:
    case LLVMFNeg:
    case LLVMICmp:
    case LLVMFCmp:
    case LLVMSelect:
    case LLVMExtractValue:
    case LLVMInsertValue:
    case LLVMExtractElement:
    case LLVMInsertElement:
    case LLVMShuffleVector:
    case LLVMFreeze:
        return true;
    default:
        return false;
    }
}

static LLVMValueRef strip_geps(LLVMValueRef p)
{
    while (LLVMIsAGetElementPtrInst(p))
        p = LLVMGetOperand(p, 0);
    return p;
}

/* Entry-block values that are the same for every work-item: computed from ctx
 * and constants, loads before this item wrote any memory but its own slots (an
 * earlier write by another item before the first barrier would be a data race). */
static void find_uniform(rx *r)
{
    bool written = false;
    for (LLVMValueRef in = LLVMGetFirstInstruction(r->entry); in; in = LLVMGetNextInstruction(in)) {
        LLVMOpcode op = LLVMGetInstructionOpcode(in);
        bool u = false;
        if (op == LLVMStore) {
            if (!LLVMIsAAllocaInst(strip_geps(LLVMGetOperand(in, 1))))
                written = true;
        } else if (op == LLVMCall) {
            if (!is_harmless_call(in))
                written = true;
        } else if (op == LLVMFence || op == LLVMAtomicRMW || op == LLVMAtomicCmpXchg) {
            written = true;
        } else if (op == LLVMLoad) {
            u = !written && !LLVMGetVolatile(in) && LLVMGetOrdering(in) == LLVMAtomicOrderingNotAtomic &&
                is_uniform_operand(r, LLVMGetOperand(in, 0));
        } else if (pure_opcode(op)) {
            u = true;
            for (int k = 0; k < LLVMGetNumOperands(in) && u; k++)
                u = is_uniform_operand(r, LLVMGetOperand(in, k));
        }
        if (u)
            vmap_put(&r->uniform, in, in);
    }
}

/* Whether `a` is only loaded and stored as a whole. */
static bool simple_slot(LLVMValueRef a)
{
    for (LLVMUseRef u = LLVMGetFirstUse(a); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef user = LLVMGetUser(u);
        if (LLVMIsALoadInst(user) && !LLVMGetVolatile(user))
            continue;
        if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == a && LLVMGetOperand(user, 0) != a &&
            !LLVMGetVolatile(user))
            continue;
        return false;
    }
    return true;
}

/* Slots whose value may be read in a later region (live into a region start)
 * get one element per item, or stay one slot when they are uniform (SLOT_GROUP). */
static void classify_slots(rx *r)
{
    unsigned ns = r->nslots, nb = r->nblocks, words = (ns + 63) / 64;
    uint64_t *use = calloc((size_t)nb * words, 8), *def = calloc((size_t)nb * words, 8);
    uint64_t *in = calloc((size_t)nb * words, 8), *tmp = calloc(words + 1, 8);
    for (unsigned b = 0; b < nb; b++)
        for (LLVMValueRef i = LLVMGetFirstInstruction(r->blocks[b]); i; i = LLVMGetNextInstruction(i)) {
            bool ld = LLVMIsALoadInst(i) != NULL, st = LLVMIsAStoreInst(i) != NULL;
            if (!ld && !st)
                continue;
            unsigned s = (unsigned)(uintptr_t)vmap_get(&r->slot_of, LLVMGetOperand(i, ld ? 0 : 1));
            if (!s || !r->slots[s - 1].simple)
                continue;
            s--;
            uint64_t bit = 1ull << (s % 64);
            if (ld && !(def[b * words + s / 64] & bit))
                use[b * words + s / 64] |= bit;
            if (st)
                def[b * words + s / 64] |= bit;
        }
    for (bool changed = true; changed;) {
        changed = false;
        for (unsigned b = nb; b-- > 0;) {
            memset(tmp, 0, words * 8);
            LLVMValueRef t = LLVMGetBasicBlockTerminator(r->blocks[b]);
            for (unsigned k = 0, n = t ? LLVMGetNumSuccessors(t) : 0; k < n; k++) {
                unsigned sb = block_idx(r, LLVMGetSuccessor(t, k));
                for (unsigned w = 0; w < words; w++)
                    tmp[w] |= in[sb * words + w];
            }
            for (unsigned w = 0; w < words; w++) {
                uint64_t v = use[b * words + w] | (tmp[w] & ~def[b * words + w]);
                if (v != in[b * words + w]) {
                    in[b * words + w] = v;
                    changed = true;
                }
            }
        }
    }
    for (unsigned s = 0; s < ns; s++) {
        slot *sl = &r->slots[s];
        if (sl->kind != SLOT_SHARED || !sl->simple)
            continue;
        for (unsigned k = 1; k <= r->nresume; k++)
            if (in[block_idx(r, r->resume_start[k]) * words + s / 64] >> (s % 64) & 1)
                sl->kind = sl->varying ? SLOT_ITEM : SLOT_GROUP;
    }
    r->live_in = in; /* emit_region: which SLOT_GROUP slots to reset */
    r->live_words = words;
    free(use);
    free(def);
    free(tmp);
}

static bool live_into(rx *r, LLVMBasicBlockRef bb, unsigned s)
{
    return r->live_in[(size_t)block_idx(r, bb) * r->live_words + s / 64] >> (s % 64) & 1;
}

/* SLOT_UNIFORM: a simple slot stored once, in the entry block, with a uniform
 * value, and not read in the entry block before that store. */
static void find_uniform_slot(rx *r, slot *sl)
{
    LLVMValueRef store = NULL;
    for (LLVMUseRef u = LLVMGetFirstUse(sl->alloca); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef user = LLVMGetUser(u);
        if (!LLVMIsAStoreInst(user))
            continue;
        if (store || LLVMGetInstructionParent(user) != r->entry)
            return;
        store = user;
    }
    if (!store || !is_uniform_operand(r, LLVMGetOperand(store, 0)))
        return;
    for (LLVMValueRef i = LLVMGetFirstInstruction(r->entry); i != store; i = LLVMGetNextInstruction(i))
        if (LLVMIsALoadInst(i) && LLVMGetOperand(i, 0) == sl->alloca)
            return;
    sl->kind = SLOT_UNIFORM;
    sl->uniform_val = LLVMGetOperand(store, 0);
}

static bool pure_remat_opcode(LLVMOpcode op)
{
    /* no division: a recomputation must not trap where the original did not */
    return pure_opcode(op) && op != LLVMUDiv && op != LLVMSDiv && op != LLVMURem && op != LLVMSRem;
}

static slot *slot_of(rx *r, LLVMValueRef p)
{
    unsigned s = (unsigned)(uintptr_t)vmap_get(&r->slot_of, p);
    return s ? &r->slots[s - 1] : NULL;
}

/* Whether v can be recomputed anywhere from constants, uniform values, the local
 * id and other such slots; *budget bounds the instructions it takes. */
static bool remat_ok(rx *r, LLVMValueRef v, int *budget)
{
    if (LLVMIsAArgument(v))
        return true; /* ctx or the local id */
    if (!LLVMIsAInstruction(v))
        return LLVMIsAConstant(v) != NULL;
    if (vmap_get(&r->uniform, v))
        return true;
    if (--*budget < 0)
        return false;
    if (LLVMIsALoadInst(v)) {
        slot *sl = slot_of(r, LLVMGetOperand(v, 0));
        if (!sl || sl->visiting)
            return false;
        if (sl->kind == SLOT_UNIFORM || sl->kind == SLOT_REMAT)
            return true;
        if (!sl->simple || !sl->uniform_val)
            return false; /* uniform_val: its single store */
        sl->visiting = true;
        bool ok = remat_ok(r, sl->uniform_val, budget);
        sl->visiting = false;
        return ok;
    }
    if (!pure_remat_opcode(LLVMGetInstructionOpcode(v)))
        return false;
    for (int k = 0, n = LLVMGetNumOperands(v); k < n; k++)
        if (!remat_ok(r, LLVMGetOperand(v, k), budget))
            return false;
    return true;
}

/* Simple slots stored exactly once get uniform_val = the stored value; those
 * whose value can be recomputed become SLOT_REMAT. */
static void find_remat_slots(rx *r)
{
    for (unsigned s = 0; s < r->nslots; s++) {
        slot *sl = &r->slots[s];
        if (!sl->simple || sl->kind == SLOT_UNIFORM)
            continue;
        LLVMValueRef store = NULL;
        int nstores = 0;
        for (LLVMUseRef u = LLVMGetFirstUse(sl->alloca); u; u = LLVMGetNextUse(u))
            if (LLVMIsAStoreInst(LLVMGetUser(u))) {
                store = LLVMGetUser(u);
                nstores++;
            }
        if (nstores == 1)
            sl->uniform_val = LLVMGetOperand(store, 0);
    }
    for (unsigned s = 0; s < r->nslots; s++) {
        slot *sl = &r->slots[s];
        if (!sl->simple || sl->kind == SLOT_UNIFORM || !sl->uniform_val)
            continue;
        int budget = 48;
        sl->visiting = true;
        if (remat_ok(r, sl->uniform_val, &budget))
            sl->kind = SLOT_REMAT;
        sl->visiting = false;
    }
}

/* --- step 2b: divergence analysis: which slots and blocks are work-group uniform ------------- */

/* The classic fixed point over the item function: the local id is varying, and
 * so is what is computed from a varying value, what is loaded from memory that
 * the kernel may write, what a slot holds once any store to it stores a varying
 * value or runs in a block that only some items may run (under a varying
 * branch, up to the branch's immediate post-dominator: a loop left by a
 * varying condition is such a region too, so the values it leaves behind are
 * varying as well).  Everything else is the same in every item. */

/* Beyond this many blocks the analysis is skipped (post-dominator bit sets are
 * quadratic): every slot and block counts as varying, as before it existed. */
#define VARYING_MAX_BLOCKS 4096u

/* The store to `sl` when there is exactly one, else NULL. */
static LLVMValueRef single_store(slot *sl)
{
    LLVMValueRef store = NULL;
    for (LLVMUseRef u = LLVMGetFirstUse(sl->alloca); u; u = LLVMGetNextUse(u)) {
        if (!LLVMIsAStoreInst(LLVMGetUser(u)))
            continue;
        if (store)
            return NULL;
        store = LLVMGetUser(u);
    }
    return store;
}

/* What pointer p was computed from: through GEPs, and through slots stored once
 * (reg2mem passes pointers between blocks that way). */
static LLVMValueRef pointer_root(rx *r, LLVMValueRef p)
{
    for (int depth = 0; depth < 8; depth++) {
        p = strip_geps(p);
        slot *sl = LLVMIsALoadInst(p) ? slot_of(r, LLVMGetOperand(p, 0)) : NULL;
        LLVMValueRef store = sl && sl->simple ? single_store(sl) : NULL;
        if (!store)
            return p;
        p = LLVMGetOperand(store, 0);
    }
    return NULL;
}

/* The ctx field that v was loaded from (its byte offset), or -1. */
static long long ctx_field_of(rx *r, LLVMValueRef v)
{
    return v && LLVMIsALoadInst(v) ? ctx_offset(r, LLVMGetOperand(v, 0)) : -1;
}

/* Whether p points into memory that no work-item writes during the dispatch:
 * the const spvjit_wg_ctx, the arrays and blocks its const pointers designate
 * (args, arg_sizes, push constants, spec values), a Kernel-flavour parameter's
 * bytes (args[i]; in the Shader flavour args[i] is a buffer), a constant global. */
static bool read_only_memory(rx *r, LLVMValueRef p)
{
    LLVMValueRef base = pointer_root(r, p);
    if (!base)
        return false;
    if (base == r->ctx)
        return true;
    if (LLVMIsAGlobalVariable(base))
        return LLVMIsGlobalConstant(base);
    long long f = ctx_field_of(r, base);
    if (f == (long long)offsetof(spvjit_wg_ctx, args) || f == (long long)offsetof(spvjit_wg_ctx, arg_sizes) ||
        f == (long long)offsetof(spvjit_wg_ctx, push_constants) || f == (long long)offsetof(spvjit_wg_ctx, spec_values))
        return true;
    return r->c->kernel && LLVMIsALoadInst(base) &&
           ctx_field_of(r, pointer_root(r, LLVMGetOperand(base, 0))) == (long long)offsetof(spvjit_wg_ctx, args);
}

/* A call to a function that reads and writes no memory (memory(none)): its
 * result depends on its arguments alone. */
static bool pure_call(LLVMValueRef call)
{
    LLVMValueRef f = LLVMGetCalledValue(call);
    if (!LLVMIsAFunction(f))
        return false;
    unsigned memory = LLVMGetEnumAttributeKindForName("memory", 6);
    LLVMAttributeRef a = LLVMGetEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, memory);
    return a && LLVMGetEnumAttributeValue(a) == 0;
}

static bool is_varying(rx *r, vmap *vary, LLVMValueRef v)
{
    if (v == r->ctx)
        return false;
    if (LLVMIsAArgument(v))
        return true; /* the local id */
    if (LLVMIsAInstruction(v))
        return vmap_get(vary, v) != NULL;
    return false; /* constants, globals, blocks */
}

static bool inst_varying(rx *r, vmap *vary, LLVMValueRef in)
{
    if (vmap_get(&r->uniform, in))
        return false;
    LLVMOpcode op = LLVMGetInstructionOpcode(in);
    if (op == LLVMLoad) {
        if (LLVMGetVolatile(in) || LLVMGetOrdering(in) != LLVMAtomicOrderingNotAtomic)
            return true;
        LLVMValueRef p = LLVMGetOperand(in, 0);
        slot *sl = slot_of(r, p);
        if (sl)
            return !sl->simple || sl->varying;
        return is_varying(r, vary, p) || !read_only_memory(r, p);
    }
    if (op == LLVMCall ? !pure_call(in) : !pure_opcode(op))
        return true;
    for (int k = 0, n = LLVMGetNumOperands(in); k < n; k++)
        if (is_varying(r, vary, LLVMGetOperand(in, k)))
            return true;
    return false;
}

/* The immediate post-dominator of every block (nblocks: the virtual exit that
 * each block without successors leads to; UINT32_MAX: none, the block cannot
 * reach the exit). */
static unsigned *post_dominators(rx *r)
{
    unsigned nb = r->nblocks, nn = nb + 1, words = (nn + 63) / 64;
    uint64_t *pd = malloc((size_t)nn * words * 8), *tmp = malloc((size_t)words * 8);
    bool *reach = calloc(nn, 1);
    memset(pd, 0xFF, (size_t)nn * words * 8);
    memset(pd + (size_t)nb * words, 0, (size_t)words * 8);
    pd[(size_t)nb * words + nb / 64] = 1ull << (nb % 64);
    reach[nb] = true;
    for (bool changed = true; changed;) {
        changed = false;
        for (unsigned b = nb; b-- > 0;) {
            LLVMValueRef t = LLVMGetBasicBlockTerminator(r->blocks[b]);
            unsigned n = t ? LLVMGetNumSuccessors(t) : 0;
            memset(tmp, 0xFF, (size_t)words * 8);
            bool rb = false;
            for (unsigned k = 0; k < (n ? n : 1); k++) {
                unsigned sb = n ? block_idx(r, LLVMGetSuccessor(t, k)) : nb;
                for (unsigned w = 0; w < words; w++)
                    tmp[w] &= pd[(size_t)sb * words + w];
                rb |= reach[sb];
            }
            tmp[b / 64] |= 1ull << (b % 64);
            if (rb != reach[b] || memcmp(tmp, pd + (size_t)b * words, (size_t)words * 8)) {
                memcpy(pd + (size_t)b * words, tmp, (size_t)words * 8);
                reach[b] = rb;
                changed = true;
            }
        }
    }
    /* the post-dominators of a block form a chain: the nearest has the most */
    unsigned *ipdom = malloc(nb * sizeof *ipdom), *count = malloc(nn * sizeof *count);
    for (unsigned b = 0; b < nn; b++) {
        count[b] = 0;
        for (unsigned w = 0; w < words; w++)
            count[b] += (unsigned)__builtin_popcountll(pd[(size_t)b * words + w]);
    }
    for (unsigned b = 0; b < nb; b++) {
        ipdom[b] = UINT32_MAX;
        if (!reach[b])
            continue;
        for (unsigned d = 0; d < nn; d++)
            if (d != b && (pd[(size_t)b * words + d / 64] >> (d % 64) & 1) &&
                (ipdom[b] == UINT32_MAX || count[d] > count[ipdom[b]]))
                ipdom[b] = d;
    }
    free(pd);
    free(tmp);
    free(reach);
    free(count);
    return ipdom;
}

/* Marks the blocks that only some items may run after block b's varying
 * branch: those reachable from its successors before its post-dominator. */
static void mark_influence(rx *r, unsigned b, unsigned stop, unsigned *stack, bool *seen)
{
    unsigned n = 0;
    memset(seen, 0, r->nblocks);
    stack[n++] = b;
    while (n) {
        unsigned x = stack[--n];
        LLVMValueRef t = LLVMGetBasicBlockTerminator(r->blocks[x]);
        for (unsigned k = 0, ns = t ? LLVMGetNumSuccessors(t) : 0; k < ns; k++) {
            unsigned sb = block_idx(r, LLVMGetSuccessor(t, k));
            if (sb == stop || seen[sb])
                continue;
            seen[sb] = true;
            r->div_block[sb] = true;
            stack[n++] = sb;
        }
    }
}

/* Sets slot.varying and r->div_block. */
static void find_varying(rx *r)
{
    unsigned nb = r->nblocks;
    r->div_block = calloc(nb, sizeof *r->div_block);
    for (unsigned s = 0; s < r->nslots; s++)
        r->slots[s].varying = !r->slots[s].simple;
    if (nb > VARYING_MAX_BLOCKS) {
        for (unsigned b = 0; b < nb; b++)
            r->div_block[b] = true;
        for (unsigned s = 0; s < r->nslots; s++)
            r->slots[s].varying = true;
        return;
    }
    unsigned *ipdom = post_dominators(r), *stack = malloc(nb * sizeof *stack);
    bool *branch_varying = calloc(nb, 1), *seen = malloc(nb);
    vmap vary = { 0 };
    for (bool changed = true; changed;) {
        changed = false;
        for (unsigned b = 0; b < nb; b++)
            for (LLVMValueRef in = LLVMGetFirstInstruction(r->blocks[b]); in; in = LLVMGetNextInstruction(in)) {
                if (!vmap_get(&vary, in) && inst_varying(r, &vary, in)) {
                    vmap_put(&vary, in, (void *)1);
                    changed = true;
                }
                LLVMOpcode op = LLVMGetInstructionOpcode(in);
                if (op == LLVMStore) {
                    slot *sl = slot_of(r, LLVMGetOperand(in, 1));
                    if (sl && !sl->varying && (r->div_block[b] || is_varying(r, &vary, LLVMGetOperand(in, 0)))) {
                        sl->varying = true;
                        changed = true;
                    }
                } else if ((op == LLVMBr && LLVMIsConditional(in)) || op == LLVMSwitch) {
                    LLVMValueRef cond = op == LLVMBr ? LLVMGetCondition(in) : LLVMGetOperand(in, 0);
                    if (!branch_varying[b] && is_varying(r, &vary, cond)) {
                        branch_varying[b] = true;
                        mark_influence(r, b, ipdom[b], stack, seen);
                        changed = true;
                    }
                }
            }
    }
    vmap_free(&vary);
    free(ipdom);
    free(stack);
    free(branch_varying);
    free(seen);
}

/* 0, or 1 when the slots do not fit (or are not fixed-size). */
static int find_slots(rx *r)
{
    unsigned cap = 0;
    uint64_t bytes = 4ull * r->n;
    for (LLVMValueRef i = LLVMGetFirstInstruction(r->entry); i; i = LLVMGetNextInstruction(i)) {
        if (!LLVMIsAAllocaInst(i))
            continue;
        LLVMValueRef cnt = LLVMGetOperand(i, 0);
        if (!LLVMIsAConstantInt(cnt) || LLVMConstIntGetZExtValue(cnt) != 1)
            return 1;
        if (r->nslots == cap)
            r->slots = realloc(r->slots, (cap = cap ? 2 * cap : 32) * sizeof *r->slots);
        slot *sl = &r->slots[r->nslots++];
        memset(sl, 0, sizeof *sl);
        sl->alloca = i;
        sl->simple = simple_slot(i);
        sl->kind = sl->simple ? SLOT_SHARED : SLOT_ITEM;
        vmap_put(&r->slot_of, i, (void *)(uintptr_t)r->nslots);
    }
    for (unsigned s = 0; s < r->nslots; s++)
        if (r->slots[s].simple)
            find_uniform_slot(r, &r->slots[s]);
    find_remat_slots(r);
    find_varying(r);
    classify_slots(r);
    for (unsigned s = 0; s < r->nslots; s++)
        if (r->slots[s].kind == SLOT_ITEM)
            bytes += (uint64_t)r->n * LLVMABISizeOfType(r->c->td, LLVMGetAllocatedType(r->slots[s].alloca));
    return bytes > JIT_REGIONS_MAX_STACK;
}

/* --- step 3: the work-group function ---------------------------------------------------------- */

typedef struct nest {
    LLVMBasicBlockRef head[3];
    LLVMValueRef iv[3];    /* z, y, x */
    LLVMValueRef idx;      /* linear index in the compiled layout */
    LLVMValueRef bound[3]; /* x, y, z */
} nest;

/* Opens `for z, for y, for x < bound`; the builder is left in the body. */
static void open_nest(rx *r, nest *ns, LLVMValueRef *bound)
{
    lower_ctx *c = r->c;
    const char *names[3] = { "z", "y", "x" };
    memcpy(ns->bound, bound, sizeof ns->bound);
    for (int d = 0; d < 3; d++) {
        LLVMBasicBlockRef from = LLVMGetInsertBlock(r->b);
        ns->head[d] = LLVMAppendBasicBlockInContext(c->llc, r->wg, names[d]);
        LLVMBuildBr(r->b, ns->head[d]);
        LLVMPositionBuilderAtEnd(r->b, ns->head[d]);
        ns->iv[d] = LLVMBuildPhi(r->b, c->t_i32, names[d]);
        LLVMValueRef zero = LLVMConstInt(c->t_i32, 0, 0);
        LLVMAddIncoming(ns->iv[d], &zero, &from, 1);
    }
    LLVMValueRef zy =
        LLVMBuildAdd(r->b, LLVMBuildMul(r->b, ns->iv[0], LLVMConstInt(c->t_i32, r->ls[1], 0), ""), ns->iv[1], "");
    ns->idx = LLVMBuildAdd(r->b, LLVMBuildMul(r->b, zy, LLVMConstInt(c->t_i32, r->ls[0], 0), ""), ns->iv[2], "idx");
}

/* Closes the nest from the builder's block (the latch); the builder is left after it. */
static void close_nest(rx *r, nest *ns)
{
    lower_ctx *c = r->c;
    for (int d = 2; d >= 0; d--) {
        LLVMValueRef next = LLVMBuildAdd(r->b, ns->iv[d], LLVMConstInt(c->t_i32, 1, 0), "");
        LLVMBasicBlockRef latch = LLVMGetInsertBlock(r->b);
        LLVMAddIncoming(ns->iv[d], &next, &latch, 1);
        LLVMValueRef more = LLVMBuildICmp(r->b, LLVMIntULT, next, ns->bound[2 - d], "");
        LLVMBasicBlockRef after = LLVMAppendBasicBlockInContext(c->llc, r->wg, "");
        LLVMBuildCondBr(r->b, more, ns->head[d], after);
        LLVMPositionBuilderAtEnd(r->b, after);
    }
}

static LLVMValueRef item_ptr(rx *r, LLVMValueRef arr, LLVMTypeRef elem, LLVMValueRef idx)
{
    LLVMValueRef ix[2] = { LLVMConstInt(r->c->t_i32, 0, 0), idx };
    return LLVMBuildInBoundsGEP2(r->b, LLVMArrayType2(elem, r->n), arr, ix, 2, "");
}

/* The clone of item-function value v in the current region (map), v itself for constants. */
static LLVMValueRef mapped(rx *r, vmap *map, LLVMValueRef v)
{
    if (LLVMIsABasicBlock(v))
        return v;
    if (!LLVMIsAInstruction(v) && !LLVMIsAArgument(v))
        return v;
    LLVMValueRef m = vmap_get(map, v);
    if (!m)
        m = vmap_get(&r->uniform, v);
    return m;
}

/* Recomputes item-function value v at the builder (see SLOT_REMAT); memo holds
 * what this recomputation already built. */
static LLVMValueRef remat(rx *r, vmap *map, vmap *memo, LLVMValueRef v)
{
    if (!LLVMIsAInstruction(v))
        return mapped(r, map, v);
    LLVMValueRef m = vmap_get(&r->uniform, v);
    if (m)
        return m;
    if ((m = vmap_get(memo, v)))
        return m;
    if (LLVMIsALoadInst(v)) {
        slot *sl = slot_of(r, LLVMGetOperand(v, 0));
        m = sl->kind == SLOT_UNIFORM ? mapped(r, map, sl->uniform_val) : remat(r, map, memo, sl->uniform_val);
    } else {
        m = LLVMInstructionClone(v);
        for (int k = 0, n = LLVMGetNumOperands(v); k < n; k++) {
            LLVMValueRef op = remat(r, map, memo, LLVMGetOperand(v, k));
            if (!op)
                return NULL;
            LLVMSetOperand(m, k, op);
        }
        LLVMInsertIntoBuilder(r->b, m);
    }
    vmap_put(memo, v, m);
    return m;
}

static int remap_operands(rx *r, vmap *map, LLVMValueRef clone)
{
    for (int k = 0, n = LLVMGetNumOperands(clone); k < n; k++) {
        LLVMValueRef v = LLVMGetOperand(clone, k);
        if (LLVMValueIsBasicBlock(v)) {
            LLVMBasicBlockRef nb = vmap_get(map, LLVMValueAsBasicBlock(v));
            if (!nb)
                return jit_fail(r->c, "internal error: barrier regions: a branch leaves its region");
            LLVMSetOperand(clone, k, LLVMBasicBlockAsValue(nb));
            continue;
        }
        LLVMValueRef m = mapped(r, map, v);
        if (!m)
            return jit_fail(r->c, "internal error: barrier regions: a value crosses a block");
        if (m != v)
            LLVMSetOperand(clone, k, m);
    }
    return 0;
}

/* Computes the uniform values once, at the top of spvjit_wg. */
static int hoist_uniform(rx *r)
{
    vmap map = { 0 };
    vmap_put(&map, r->ctx, LLVMGetParam(r->wg, 0));
    for (LLVMValueRef in = LLVMGetFirstInstruction(r->entry); in; in = LLVMGetNextInstruction(in)) {
        if (!vmap_get(&r->uniform, in))
            continue;
        LLVMValueRef cl = LLVMInstructionClone(in);
        LLVMInsertIntoBuilder(r->b, cl);
        vmap_put(&map, in, cl);
        if (remap_operands(r, &map, cl)) {
            vmap_free(&map);
            return -1;
        }
        vmap_put(&r->uniform, in, cl);
    }
    vmap_free(&map);
    return 0;
}

/* Region `k` (starting at resume_start[k]) as a loop over the work-items; the
 * builder is left after the loop, where every item has stored its next[] entry,
 * or, when *uniform_exit (every item leaves the region at the same barrier or
 * return: no block that ends it is under varying control), next_uniform. */
static int emit_region(rx *r, unsigned k, LLVMValueRef *bound, bool *uniform_exit)
{
    lower_ctx *c = r->c;

    /* the region's blocks: reachable from its start without passing a barrier */
    unsigned *work = calloc(r->nblocks, sizeof *work), nwork = 0;
    bool *in_region = calloc(r->nblocks, 1);
    LLVMBasicBlockRef start = r->resume_start[k];
    work[nwork++] = block_idx(r, start);
    in_region[work[0]] = true;
    for (unsigned w = 0; w < nwork; w++) {
        unsigned b = work[w];
        if (r->barrier[b])
            continue;
        LLVMValueRef t = LLVMGetBasicBlockTerminator(r->blocks[b]);
        for (unsigned s = 0, n = LLVMGetNumSuccessors(t); s < n; s++) {
            unsigned sb = block_idx(r, LLVMGetSuccessor(t, s));
            if (!in_region[sb])
                in_region[sb] = true, work[nwork++] = sb;
        }
    }
    *uniform_exit = true;
    bool *stored = calloc(r->nslots + 1, 1);
    for (unsigned w = 0; w < nwork; w++) {
        unsigned b = work[w];
        LLVMValueRef t = LLVMGetBasicBlockTerminator(r->blocks[b]);
        if ((r->barrier[b] || LLVMGetInstructionOpcode(t) == LLVMRet) && r->div_block[b])
            *uniform_exit = false;
        for (LLVMValueRef in = LLVMGetFirstInstruction(r->blocks[b]); in; in = LLVMGetNextInstruction(in)) {
            unsigned s = LLVMIsAStoreInst(in) ? (unsigned)(uintptr_t)vmap_get(&r->slot_of, LLVMGetOperand(in, 1)) : 0;
            if (s)
                stored[s - 1] = true;
        }
    }
    /* a group slot live into the region and stored in it: every item starts
     * from the value it had when the region began, not the one the previous
     * item left (all items store the same values, so the last one's is right) */
    LLVMValueRef *at_start = calloc(r->nslots + 1, sizeof *at_start);
    for (unsigned s = 0; s < r->nslots; s++) {
        slot *sl = &r->slots[s];
        if (sl->kind == SLOT_GROUP && stored[s] && k > 0 && live_into(r, start, s))
            at_start[s] = LLVMBuildLoad2(r->b, LLVMGetAllocatedType(sl->alloca), sl->wg, "");
    }
    free(stored);

    nest ns;
    open_nest(r, &ns, bound);
    for (unsigned s = 0; s < r->nslots; s++)
        if (at_start[s])
            LLVMBuildStore(r->b, at_start[s], r->slots[s].wg);
    free(at_start);
    vmap map = { 0 };
    vmap_put(&map, r->ctx, LLVMGetParam(r->wg, 0));
    vmap_put(&map, LLVMGetParam(r->item, 1), ns.iv[2]);
    vmap_put(&map, LLVMGetParam(r->item, 2), ns.iv[1]);
    vmap_put(&map, LLVMGetParam(r->item, 3), ns.iv[0]);
    for (unsigned s = 0; s < r->nslots; s++) {
        slot *sl = &r->slots[s];
        LLVMValueRef p = sl->kind == SLOT_ITEM ? item_ptr(r, sl->wg, LLVMGetAllocatedType(sl->alloca), ns.idx) : sl->wg;
        vmap_put(&map, sl->alloca, p);
    }
    LLVMValueRef next_ptr = *uniform_exit ? r->next_uniform : item_ptr(r, r->next, c->t_i32, ns.idx);
    LLVMBasicBlockRef latch = LLVMAppendBasicBlockInContext(c->llc, r->wg, "latch");
    for (unsigned w = 0; w < nwork; w++)
        vmap_put(&map, r->blocks[work[w]], LLVMAppendBasicBlockInContext(c->llc, r->wg, w ? "" : "region"));
    free(in_region);
    LLVMBuildBr(r->b, vmap_get(&map, start));

    /* clone, then remap operands once every clone exists */
    LLVMValueRef *clones = NULL;
    size_t ncl = 0, cap = 0;
    int rc = 0;
    for (unsigned w = 0; w < nwork; w++) {
        unsigned b = work[w];
        LLVMPositionBuilderAtEnd(r->b, vmap_get(&map, r->blocks[b]));
        for (LLVMValueRef in = LLVMGetFirstInstruction(r->blocks[b]); in; in = LLVMGetNextInstruction(in)) {
            LLVMOpcode op = LLVMGetInstructionOpcode(in);
            if (op == LLVMAlloca || vmap_get(&r->uniform, in) || in == r->barrier[b])
                continue;
            if (op == LLVMLoad) {
                unsigned s = (unsigned)(uintptr_t)vmap_get(&r->slot_of, LLVMGetOperand(in, 0));
                if (s && r->slots[s - 1].kind == SLOT_REMAT) {
                    vmap memo = { 0 };
                    LLVMValueRef v = remat(r, &map, &memo, in);
                    vmap_free(&memo);
                    if (!v) {
                        rc = jit_fail(c, "internal error: barrier regions: recomputed value");
                        goto out;
                    }
                    vmap_put(&map, in, v);
                    continue;
                }
                if (s && r->slots[s - 1].kind == SLOT_UNIFORM) {
                    LLVMValueRef v = mapped(r, &map, r->slots[s - 1].uniform_val);
                    if (!v) {
                        rc = jit_fail(c, "internal error: barrier regions: uniform slot");
                        goto out;
                    }
                    vmap_put(&map, in, v);
                    continue;
                }
            }
            if (op == LLVMRet || (r->barrier[b] && op == LLVMBr)) {
                LLVMBuildStore(r->b, LLVMConstInt(c->t_i32, op == LLVMRet ? 0 : r->resume[b], 0), next_ptr);
                LLVMBuildBr(r->b, latch);
                continue;
            }
            LLVMValueRef cl = LLVMInstructionClone(in);
            LLVMInsertIntoBuilder(r->b, cl);
            vmap_put(&map, in, cl);
            if (ncl == cap)
                clones = realloc(clones, (cap = cap ? 2 * cap : 256) * sizeof *clones);
            clones[ncl++] = cl;
        }
    }
    for (size_t i = 0; i < ncl && !rc; i++)
        rc = remap_operands(r, &map, clones[i]);
    LLVMPositionBuilderAtEnd(r->b, latch);
    close_nest(r, &ns);
out:
    free(clones);
    free(work);
    vmap_free(&map);
    return rc;
}

/* After a region: every item must have stopped at the same barrier (or returned).
 * Divergence calls ctx->report_divergence and returns; otherwise dispatches.
 * A region with a uniform exit needs no check: next_uniform says where all went. */
static void emit_check(rx *r, LLVMValueRef *bound, LLVMBasicBlockRef *region_pre, LLVMBasicBlockRef exit,
                       bool uniform_exit)
{
    lower_ctx *c = r->c;
    LLVMValueRef ctx = LLVMGetParam(r->wg, 0);
    LLVMValueRef first = LLVMBuildLoad2(r->b, c->t_i32, uniform_exit ? r->next_uniform : r->next, "first");
    if (!uniform_exit) {
        LLVMBuildStore(r->b, LLVMConstInt(c->t_i32, 0, 0), r->diff);
        nest ns;
        open_nest(r, &ns, bound);
        /* diff |= next[i] ^ first: no early exit, so the loop vectorizes */
        LLVMValueRef v = LLVMBuildLoad2(r->b, c->t_i32, item_ptr(r, r->next, c->t_i32, ns.idx), "");
        LLVMValueRef acc =
            LLVMBuildOr(r->b, LLVMBuildLoad2(r->b, c->t_i32, r->diff, ""), LLVMBuildXor(r->b, v, first, ""), "");
        LLVMBuildStore(r->b, acc, r->diff);
        close_nest(r, &ns);
        LLVMBasicBlockRef diverged = LLVMAppendBasicBlockInContext(c->llc, r->wg, "diverged");
        LLVMBasicBlockRef same = LLVMAppendBasicBlockInContext(c->llc, r->wg, "same");
        LLVMValueRef any = LLVMBuildICmp(r->b, LLVMIntNE, LLVMBuildLoad2(r->b, c->t_i32, r->diff, ""),
                                         LLVMConstInt(c->t_i32, 0, 0), "");
        LLVMBuildCondBr(r->b, any, diverged, same);

        LLVMPositionBuilderAtEnd(r->b, diverged);
        LLVMTypeRef params[4] = { c->t_ptr, c->t_ptr, c->t_ptr, c->t_i64 };
        LLVMTypeRef ft = LLVMFunctionType(c->t_void, params, 4, 0);
        LLVMValueRef fn = jit_ctx_field(c, ctx, offsetof(spvjit_wg_ctx, report_divergence), c->t_ptr);
        LLVMValueRef args[4] = { ctx, r->next, r->site_table, LLVMBuildLoad2(r->b, c->t_i64, r->rounds, "") };
        LLVMBuildCall2(r->b, ft, fn, args, 4, "");
        LLVMBuildRetVoid(r->b);
        LLVMPositionBuilderAtEnd(r->b, same);
    }
    LLVMValueRef rounds = LLVMBuildLoad2(r->b, c->t_i64, r->rounds, "");
    LLVMBuildStore(r->b, LLVMBuildAdd(r->b, rounds, LLVMConstInt(c->t_i64, 1, 0), ""), r->rounds);
    LLVMValueRef sw = LLVMBuildSwitch(r->b, first, exit, r->nresume);
    for (unsigned k = 1; k <= r->nresume; k++)
        LLVMAddCase(sw, LLVMConstInt(c->t_i32, k, 0), region_pre[k]);
}

/* The whole machine for one set of loop bounds. */
static int emit_machine(rx *r, LLVMValueRef *bound, LLVMBasicBlockRef exit)
{
    lower_ctx *c = r->c;
    LLVMBasicBlockRef *pre = calloc(r->nresume + 1, sizeof *pre);
    for (unsigned k = 0; k <= r->nresume; k++)
        pre[k] = LLVMAppendBasicBlockInContext(c->llc, r->wg, "region.pre");
    LLVMBuildStore(r->b, LLVMConstInt(c->t_i64, 0, 0), r->rounds);
    LLVMBuildBr(r->b, pre[0]);
    int rc = 0;
    for (unsigned k = 0; k <= r->nresume && !rc; k++) {
        LLVMPositionBuilderAtEnd(r->b, pre[k]);
        bool uniform_exit;
        rc = emit_region(r, k, bound, &uniform_exit);
        if (!rc)
            emit_check(r, bound, pre, exit, uniform_exit);
    }
    free(pre);
    return rc;
}

static int build_wg(rx *r)
{
    lower_ctx *c = r->c;
    LLVMValueRef fn = LLVMAddFunction(c->mod, JIT_SYM_WG, LLVMFunctionType(c->t_void, &c->t_ptr, 1, 0));
    r->wg = fn;
    unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(c->llc, nounwind, 0));
    LLVMPositionBuilderAtEnd(r->b, LLVMAppendBasicBlockInContext(c->llc, fn, "entry"));
    for (unsigned s = 0; s < r->nslots; s++) {
        slot *sl = &r->slots[s];
        LLVMTypeRef t = LLVMGetAllocatedType(sl->alloca);
        sl->wg = LLVMBuildAlloca(r->b, sl->kind == SLOT_ITEM ? LLVMArrayType2(t, r->n) : t, "");
        unsigned al = LLVMGetAlignment(sl->alloca);
        LLVMSetAlignment(sl->wg, sl->kind == SLOT_ITEM && al < 16 ? 16 : al);
    }
    r->next = LLVMBuildAlloca(r->b, LLVMArrayType2(c->t_i32, r->n), "next");
    r->next_uniform = LLVMBuildAlloca(r->b, c->t_i32, "next.uniform");
    r->rounds = LLVMBuildAlloca(r->b, c->t_i64, "rounds");
    r->diff = LLVMBuildAlloca(r->b, c->t_i32, "diff");
    LLVMTypeRef tt = LLVMArrayType2(c->t_i32, r->nresume + 1);
    LLVMValueRef *sites = calloc(r->nresume + 1, sizeof *sites);
    for (unsigned k = 0; k <= r->nresume; k++)
        sites[k] = LLVMConstInt(c->t_i32, r->resume_site[k], 0);
    r->site_table = LLVMAddGlobal(c->mod, tt, "spvjit.resume.sites");
    LLVMSetInitializer(r->site_table, LLVMConstArray2(c->t_i32, sites, r->nresume + 1));
    LLVMSetGlobalConstant(r->site_table, 1);
    LLVMSetLinkage(r->site_table, LLVMInternalLinkage);
    free(sites);
    if (hoist_uniform(r))
        return -1;

    LLVMValueRef ctx = LLVMGetParam(fn, 0), k[3], dyn[3];
    LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(c->llc, fn, "exit");
    for (unsigned i = 0; i < 3; i++) {
        k[i] = LLVMConstInt(c->t_i32, r->ls[i], 0);
        dyn[i] = jit_ctx_field(c, ctx, offsetof(spvjit_wg_ctx, local_size) + 4 * i, c->t_i32);
    }
    int rc;
    if (c->kernel) {
        /* the last OpenCL group may be smaller: its own machine with run-time bounds */
        LLVMValueRef full = NULL, any0 = NULL;
        for (unsigned i = 0; i < 3; i++) {
            LLVMValueRef eq = LLVMBuildICmp(r->b, LLVMIntEQ, dyn[i], k[i], "");
            LLVMValueRef z = LLVMBuildICmp(r->b, LLVMIntEQ, dyn[i], LLVMConstInt(c->t_i32, 0, 0), "");
            full = full ? LLVMBuildAnd(r->b, full, eq, "") : eq;
            any0 = any0 ? LLVMBuildOr(r->b, any0, z, "") : z;
        }
        LLVMBasicBlockRef bf = LLVMAppendBasicBlockInContext(c->llc, fn, "full");
        LLVMBasicBlockRef bp = LLVMAppendBasicBlockInContext(c->llc, fn, "partial");
        LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(c->llc, fn, "partial.run");
        LLVMBuildCondBr(r->b, full, bf, bp);
        LLVMPositionBuilderAtEnd(r->b, bp);
        LLVMBuildCondBr(r->b, any0, exit, run);
        LLVMPositionBuilderAtEnd(r->b, run);
        rc = emit_machine(r, dyn, exit);
        LLVMPositionBuilderAtEnd(r->b, bf);
        rc = rc ? rc : emit_machine(r, k, exit);
    } else {
        rc = emit_machine(r, k, exit);
    }
    LLVMPositionBuilderAtEnd(r->b, exit);
    LLVMBuildRetVoid(r->b);
    return rc;
}

static void rx_free(rx *r)
{
    free(r->div_block);
    free(r->live_in);
    free(r->blocks);
    free(r->barrier);
    free(r->resume);
    free(r->resume_start);
    free(r->resume_site);
    free(r->slots);
    vmap_free(&r->block_index);
    vmap_free(&r->slot_of);
    vmap_free(&r->uniform);
    if (r->b)
        LLVMDisposeBuilder(r->b);
}

int jit_regions_build(lower_ctx *c, bool *built)
{
    *built = false;
    if (!c->ls_known || !c->uses_barriers)
        return 0;
    uint64_t n = (uint64_t)c->local_size[0] * c->local_size[1] * c->local_size[2];
    if (n > 65536)
        return 0;
    rx r = { .c = c, .n = (uint32_t)n };
    memcpy(r.ls, c->local_size, sizeof r.ls);
    r.item = LLVMGetNamedFunction(c->mod, JIT_SYM_ITEM);
    if (!r.item || LLVMGetNamedFunction(c->mod, JIT_SYM_WG))
        return 0;
    r.ctx = LLVMGetParam(r.item, 0);
    r.b = LLVMCreateBuilderInContext(c->llc);
    int rc = 0;
    /* everything in one function, SSA values through memory, blocks end at barriers */
    if (run_passes(c, "always-inline,function(sroa,reg2mem)")) {
        rc = -1;
        goto out;
    }
    if (split_at_barriers(&r))
        goto out;
    if (run_passes(c, "function(reg2mem)")) {
        rc = -1;
        goto out;
    }
    if (scan_blocks(&r) || !r.nresume)
        goto out;
    find_uniform(&r);
    if (find_slots(&r))
        goto out;
    LLVMBuilderRef saved = c->b;
    c->b = r.b; /* jit_ctx_field() builds with c->b */
    rc = build_wg(&r);
    c->b = saved;
    if (rc)
        goto out;
    LLVMDeleteFunction(r.item);
    *built = true;
out:
    rx_free(&r);
    return rc;
}
