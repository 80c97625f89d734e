/* jit/quick_masks.c — the quick tier's lane masks carried as i32 lanes (see quick_isel.h).
 *
 * A mask is a vector of i1, which a target without mask registers (x86
 * before AVX-512, NEON) cannot hold: a phi of one makes FastISel hand its
 * predecessors' blocks to SelectionDAG whole, and SelectionDAG then
 * legalizes every mask that crosses a block through promotions and
 * truncations.  Here every phi, and, or, xor, select and shuffle of masks
 * computes on <N x i32> lanes of 0 or -1 instead, the form the target's
 * compares produce; a mask from anything else (a compare, a call, a
 * constant) is sign-extended once where it is made, and what reads a mask
 * otherwise (a select of data, a masked access, a bitcast) gets the compare
 * `!= 0` of the wide form.  Lane by lane the same values, poison included. */
#include "quick_isel.h"

#include <stdbool.h>

#include "../util/array.h"
#include "../util/hashmap.h"
#include "llvm_facts.h"

typedef struct widen {
    LLVMBuilderRef b;
    LLVMTypeRef i32;
    util_hashmap wide; /* mask value -> its <N x i32> form */
    util_array web;    /* LLVMValueRef: the function's instructions rebuilt wide */
    bool oom;
} widen;

enum { MAX_LANES = 64 };

static LLVMTypeRef wide_type(const widen *w, LLVMValueRef mask)
{
    return LLVMVectorType(w->i32, LLVMGetVectorSize(LLVMTypeOf(mask)));
}

/* Whether v is rebuilt wide: a phi, logic, select or shuffle of masks. */
static bool in_web(LLVMValueRef v)
{
    if (!LLVMIsAInstruction(v) || !jit_is_mask(v))
        return false;
    switch (LLVMGetInstructionOpcode(v)) {
    case LLVMPHI:
    case LLVMAnd:
    case LLVMOr:
    case LLVMXor:
    case LLVMSelect:
        return true;
    case LLVMShuffleVector:
        return jit_is_mask(LLVMGetOperand(v, 0)) && LLVMGetNumMaskElements(v) <= MAX_LANES;
    default:
        return false;
    }
}

/* The builder right after v: past the phis of its block, at the entry for
 * an argument. */
static void position_after(widen *w, LLVMValueRef v, LLVMValueRef fn)
{
    LLVMValueRef at =
        LLVMIsAArgument(v) ? LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(fn)) : LLVMGetNextInstruction(v);
    while (LLVMIsAPHINode(at))
        at = LLVMGetNextInstruction(at);
    LLVMPositionBuilderBefore(w->b, at);
}

/* A constant mask lane by lane, 0 or -1 (poison and undef lanes poison);
 * NULL for a constant expression or more than MAX_LANES lanes. */
static LLVMValueRef wide_constant(const widen *w, LLVMValueRef c)
{
    if (LLVMIsNull(c))
        return LLVMConstNull(wide_type(w, c));
    unsigned n = LLVMGetVectorSize(LLVMTypeOf(c));
    LLVMValueRef lanes[MAX_LANES];
    if (n > MAX_LANES)
        return NULL;
    for (unsigned l = 0; l < n; l++) {
        LLVMValueRef e = LLVMGetAggregateElement(c, l);
        if (!e)
            return NULL;
        if (LLVMIsUndef(e)) /* poison too */
            lanes[l] = LLVMGetPoison(w->i32);
        else if (LLVMIsAConstantInt(e))
            lanes[l] = LLVMConstInt(w->i32, LLVMConstIntGetZExtValue(e) ? ~0ull : 0, true);
        else
            return NULL;
    }
    return LLVMConstVector(lanes, n);
}

static LLVMValueRef narrow(widen *w, LLVMValueRef wide)
{
    return LLVMBuildICmp(w->b, LLVMIntNE, wide, LLVMConstNull(LLVMTypeOf(wide)), "");
}

static LLVMValueRef get_wide(widen *w, LLVMValueRef v, LLVMValueRef fn);

/* in rebuilt wide before it, from its operands' wide forms (the phis are
 * made up front). */
static LLVMValueRef build_wide(widen *w, LLVMValueRef in, LLVMValueRef fn)
{
    LLVMOpcode op = LLVMGetInstructionOpcode(in);
    bool sel = op == LLVMSelect;
    LLVMValueRef a = get_wide(w, LLVMGetOperand(in, sel ? 1 : 0), fn);
    LLVMValueRef b = get_wide(w, LLVMGetOperand(in, sel ? 2 : 1), fn);
    LLVMValueRef c = sel ? LLVMGetOperand(in, 0) : NULL;
    LLVMValueRef wc = c && jit_is_mask(c) ? get_wide(w, c, fn) : NULL;
    if (!a || !b || (c && jit_is_mask(c) && !wc))
        return NULL;
    LLVMPositionBuilderBefore(w->b, in);
    switch (op) {
    case LLVMAnd:
        return LLVMBuildAnd(w->b, a, b, "");
    case LLVMOr:
        return LLVMBuildOr(w->b, a, b, "");
    case LLVMXor:
        return LLVMBuildXor(w->b, a, b, "");
    case LLVMSelect:
        return LLVMBuildSelect(w->b, wc ? narrow(w, wc) : c, a, b, "");
    default: { /* LLVMShuffleVector */
        unsigned n = LLVMGetNumMaskElements(in);
        LLVMValueRef lanes[MAX_LANES];
        for (unsigned l = 0; l < n; l++) {
            int m = LLVMGetMaskValue(in, l);
            lanes[l] = m < 0 ? LLVMGetPoison(w->i32) : LLVMConstInt(w->i32, (unsigned)m, false);
        }
        return LLVMBuildShuffleVector(w->b, a, b, LLVMConstVector(lanes, n), "");
    }
    }
}

/* v's wide form, made once; NULL when out of memory. */
static LLVMValueRef get_wide(widen *w, LLVMValueRef v, LLVMValueRef fn)
{
    LLVMValueRef r = util_ptrmap_get(&w->wide, v);
    if (r)
        return r;
    if (LLVMIsAConstant(v)) {
        r = wide_constant(w, v);
    } else if (in_web(v)) {
        r = build_wide(w, v, fn);
    } else {
        position_after(w, v, fn);
        r = LLVMBuildSExt(w->b, v, wide_type(w, v), "");
    }
    if (r && !util_ptrmap_put(&w->wide, v, r))
        w->oom = true;
    return w->oom ? NULL : r;
}

/* Whether every constant mask the web reads has a wide form: checked before
 * anything changes, so that a function is rewritten whole or not at all. */
static bool constants_widen(const widen *w, LLVMValueRef in)
{
    for (int k = 0, n = LLVMGetNumOperands(in); k < n; k++) {
        LLVMValueRef v = LLVMGetOperand(in, k);
        if (jit_is_mask(v) && LLVMIsAConstant(v) && !wide_constant(w, v))
            return false;
    }
    return true;
}

/* Whether something outside the web reads in. */
static bool read_outside(LLVMValueRef in)
{
    for (LLVMUseRef u = LLVMGetFirstUse(in); u; u = LLVMGetNextUse(u))
        if (!in_web(LLVMGetUser(u)))
            return true;
    return false;
}

/* The function's web rewritten; its size, or -1 when out of memory. */
static int widen_function(widen *w, LLVMValueRef fn)
{
    w->web.size = 0;
    util_hashmap_clear(&w->wide);
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
            if (!in_web(i))
                continue;
            if (!constants_widen(w, i))
                return 0;
            if (!UTIL_ARRAY_PUSH(&w->web, LLVMValueRef, i))
                return -1;
        }
    size_t n = UTIL_ARRAY_COUNT(&w->web, LLVMValueRef);
    for (size_t k = 0; k < n; k++) { /* the phis first, empty, so that the loops close */
        LLVMValueRef in = UTIL_ARRAY_AT(&w->web, LLVMValueRef, k);
        if (!LLVMIsAPHINode(in))
            continue;
        LLVMPositionBuilderBefore(w->b, in);
        if (!util_ptrmap_put(&w->wide, in, LLVMBuildPhi(w->b, wide_type(w, in), "")))
            return -1;
    }
    for (size_t k = 0; k < n; k++) {
        LLVMValueRef in = UTIL_ARRAY_AT(&w->web, LLVMValueRef, k);
        if (!get_wide(w, in, fn))
            return -1;
        if (!LLVMIsAPHINode(in))
            continue;
        LLVMValueRef phi = util_ptrmap_get(&w->wide, in);
        for (unsigned e = 0, ne = LLVMCountIncoming(in); e < ne; e++) {
            LLVMBasicBlockRef from = LLVMGetIncomingBlock(in, e);
            LLVMValueRef v = get_wide(w, LLVMGetIncomingValue(in, e), fn);
            if (!v)
                return -1;
            LLVMAddIncoming(phi, &v, &from, 1);
        }
    }
    for (size_t k = 0; k < n; k++) {
        LLVMValueRef in = UTIL_ARRAY_AT(&w->web, LLVMValueRef, k), wide = util_ptrmap_get(&w->wide, in);
        if (read_outside(in)) {
            position_after(w, wide, fn);
            LLVMReplaceAllUsesWith(in, narrow(w, wide));
        } else { /* read by the web only, which goes too */
            LLVMReplaceAllUsesWith(in, LLVMGetPoison(LLVMTypeOf(in)));
        }
    }
    for (size_t k = 0; k < n; k++)
        LLVMInstructionEraseFromParent(UTIL_ARRAY_AT(&w->web, LLVMValueRef, k));
    return (int)n;
}

int jit_quick_widen_masks(LLVMModuleRef mod)
{
    LLVMContextRef ctx = LLVMGetModuleContext(mod);
    widen w = { .b = LLVMCreateBuilderInContext(ctx), .i32 = LLVMInt32TypeInContext(ctx) };
    util_hashmap_init(&w.wide, NULL);
    int n = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(mod); f && n >= 0; f = LLVMGetNextFunction(f)) {
        int k = widen_function(&w, f);
        n = k < 0 ? -1 : n + k;
    }
    util_hashmap_fini(&w.wide);
    util_array_fini(&w.web);
    LLVMDisposeBuilder(w.b);
    return n;
}
