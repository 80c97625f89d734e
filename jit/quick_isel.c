/* jit/quick_isel.c — what FastISel cannot select, rewritten into what it can (see quick_isel.h). */
#include "quick_isel.h"

#include <stdbool.h>
#include <string.h>

#include "../util/array.h"
#include "../util/hashmap.h"
#include "llvm_facts.h"

/* The compare and select call means, built before it; NULL when call is
 * none of the expanded intrinsics on scalar integers. */
static LLVMValueRef expansion(LLVMBuilderRef b, LLVMValueRef call)
{
    LLVMValueRef f = LLVMGetCalledValue(call);
    if (!f || !LLVMIsAFunction(f) || LLVMGetTypeKind(LLVMTypeOf(call)) != LLVMIntegerTypeKind)
        return NULL;
    const char *minmax = jit_call_int_minmax(call); /* "llvm.smin", "llvm.umax", ... */
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    bool sat = len > 14 && (!memcmp(name, "llvm.usub.sat.", 14) || !memcmp(name, "llvm.uadd.sat.", 14));
    if (!minmax && !sat)
        return NULL;
    LLVMValueRef x = LLVMGetOperand(call, 0), y = LLVMGetOperand(call, 1);
    LLVMPositionBuilderBefore(b, call);
    if (minmax) {
        bool is_signed = minmax[5] == 's', is_min = !strcmp(minmax + 6, "min");
        LLVMIntPredicate p = is_signed ? (is_min ? LLVMIntSLT : LLVMIntSGT) : (is_min ? LLVMIntULT : LLVMIntUGT);
        return LLVMBuildSelect(b, LLVMBuildICmp(b, p, x, y, ""), x, y, "");
    }
    if (name[6] == 's') /* usub.sat: x > y ? x - y : 0 */
        return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntUGT, x, y, ""), LLVMBuildSub(b, x, y, ""),
                               LLVMConstNull(LLVMTypeOf(x)), "");
    LLVMValueRef sum = LLVMBuildAdd(b, x, y, ""); /* uadd.sat: the sum, or all ones where it wrapped (below x) */
    return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntULT, sum, x, ""), LLVMConstAllOnes(LLVMTypeOf(x)), sum, "");
}

/* Whether v is the constant bit k. */
static bool is_bit(LLVMValueRef v, unsigned long long k)
{
    return LLVMIsAConstantInt(v) && LLVMConstIntGetZExtValue(v) == k;
}

/* The ands and ors a select of one bit means (InstCombine's logical and,
 * `c ? x : false`, and or, `c ? true : x`), built before it; NULL for any
 * other select.  An and passes on the poison of a side the select would
 * not take; no freeze (FastISel has none for an i1 either): no pass runs
 * after this one, and code generation computes every value as it stands. */
static LLVMValueRef bit_logic(LLVMBuilderRef b, LLVMValueRef sel)
{
    LLVMTypeRef t = LLVMTypeOf(sel);
    if (LLVMGetTypeKind(t) != LLVMIntegerTypeKind || LLVMGetIntTypeWidth(t) != 1)
        return NULL;
    LLVMValueRef c = LLVMGetOperand(sel, 0), x = LLVMGetOperand(sel, 1), y = LLVMGetOperand(sel, 2);
    LLVMPositionBuilderBefore(b, sel);
    if (is_bit(y, 0))
        return LLVMBuildAnd(b, c, x, "");
    if (is_bit(x, 1))
        return LLVMBuildOr(b, c, y, "");
    LLVMValueRef not_c = LLVMBuildNot(b, c, "");
    if (is_bit(x, 0))
        return LLVMBuildAnd(b, not_c, y, "");
    if (is_bit(y, 1))
        return LLVMBuildOr(b, not_c, x, "");
    return LLVMBuildOr(b, LLVMBuildAnd(b, c, x, ""), LLVMBuildAnd(b, not_c, y, ""), "");
}

/* A store of a constant vector as one store of each element, built before
 * it; false (nothing built) for any other store.  FastISel can neither
 * materialize a vector constant nor store a vector the target has no
 * register for (<3 x float>, a row of specialized coefficients): either
 * sends the store, and the rest of its block above it, to SelectionDAG.
 * Elements of whole bytes only (a vector of i1 packs its bits); volatile
 * and atomic stores stay; an undefined element is not stored; each part
 * keeps the store's metadata. */
static bool split_constant_store(LLVMBuilderRef b, LLVMValueRef st)
{
    LLVMValueRef v = LLVMGetOperand(st, 0), p = LLVMGetOperand(st, 1);
    LLVMTypeRef t = LLVMTypeOf(v);
    if (LLVMGetTypeKind(t) != LLVMVectorTypeKind || !LLVMIsAConstant(v) || LLVMGetVolatile(st) ||
        LLVMGetOrdering(st) != LLVMAtomicOrderingNotAtomic)
        return false;
    LLVMTypeRef et = LLVMGetElementType(t);
    unsigned bits = LLVMGetTypeKind(et) == LLVMIntegerTypeKind  ? LLVMGetIntTypeWidth(et)
                    : LLVMGetTypeKind(et) == LLVMHalfTypeKind   ? 16
                    : LLVMGetTypeKind(et) == LLVMFloatTypeKind  ? 32
                    : LLVMGetTypeKind(et) == LLVMDoubleTypeKind ? 64
                                                                : 0;
    unsigned n = LLVMGetVectorSize(t), align = LLVMGetAlignment(st);
    if (!bits || bits % 8 || !n || n > 64 || !align)
        return false;
    LLVMContextRef llc = LLVMGetTypeContext(t);
    LLVMPositionBuilderBefore(b, st);
    for (unsigned i = 0; i < n; i++) {
        LLVMValueRef e = LLVMGetAggregateElement(v, i);
        if (!e || LLVMIsUndef(e) || LLVMIsPoison(e))
            continue;
        unsigned long long at = (unsigned long long)i * (bits / 8);
        unsigned a = align;
        while (at % a)
            a /= 2;
        LLVMValueRef off = LLVMConstInt(LLVMInt64TypeInContext(llc), at, 0);
        LLVMValueRef q = at ? LLVMBuildGEP2(b, LLVMInt8TypeInContext(llc), p, &off, 1, "") : p;
        LLVMValueRef part = LLVMBuildStore(b, e, q);
        LLVMSetAlignment(part, a);
        jit_copy_metadata(st, part);
    }
    return true;
}

/* A vector constant loaded at the end of a block, for the phis it flows into. */
typedef struct edge_load {
    LLVMBasicBlockRef from;
    LLVMValueRef constant, load;
} edge_load;

/* c loaded at the end of from (once per block and constant), from a private
 * constant global (once per constant); NULL when out of memory. */
static LLVMValueRef load_at_end(LLVMModuleRef mod, LLVMBuilderRef b, util_hashmap *globals, util_array *loads,
                                LLVMBasicBlockRef from, LLVMValueRef c)
{
    for (size_t k = 0, n = UTIL_ARRAY_COUNT(loads, edge_load); k < n; k++) {
        const edge_load *e = &UTIL_ARRAY_AT(loads, edge_load, k);
        if (e->from == from && e->constant == c)
            return e->load;
    }
    LLVMValueRef g = util_ptrmap_get(globals, c);
    if (!g) {
        g = LLVMAddGlobal(mod, LLVMTypeOf(c), "spvjit.phi.constant");
        LLVMSetInitializer(g, c);
        LLVMSetGlobalConstant(g, true);
        LLVMSetLinkage(g, LLVMPrivateLinkage);
        LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
        if (!util_ptrmap_put(globals, c, g))
            return NULL;
    }
    LLVMPositionBuilderBefore(b, LLVMGetBasicBlockTerminator(from));
    edge_load e = { from, c, LLVMBuildLoad2(b, LLVMTypeOf(c), g, "") };
    return UTIL_ARRAY_PUSH(loads, edge_load, e) ? e.load : NULL;
}

/* Each vector constant a phi takes (not undef or poison) loaded at the end
 * of its incoming block instead; returns how many, or -1 when out of
 * memory. */
static int load_phi_constants(LLVMModuleRef mod, LLVMBuilderRef b)
{
    util_hashmap globals;
    util_hashmap_init(&globals, NULL);
    util_array loads = { 0 };
    int n = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(mod); f && n >= 0; f = LLVMGetNextFunction(f)) {
        loads.size = 0;
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb && n >= 0; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef phi = LLVMGetFirstInstruction(bb); phi && LLVMIsAPHINode(phi) && n >= 0;
                 phi = LLVMGetNextInstruction(phi)) {
                if (LLVMGetTypeKind(LLVMTypeOf(phi)) != LLVMVectorTypeKind)
                    continue;
                for (unsigned e = 0, ne = LLVMCountIncoming(phi); e < ne && n >= 0; e++) {
                    LLVMValueRef c = LLVMGetIncomingValue(phi, e);
                    if (!LLVMIsAConstant(c) || LLVMIsUndef(c))
                        continue;
                    LLVMValueRef v = load_at_end(mod, b, &globals, &loads, LLVMGetIncomingBlock(phi, e), c);
                    if (v)
                        LLVMSetOperand(phi, e, v);
                    n = v ? n + 1 : -1;
                }
            }
    }
    util_array_fini(&loads);
    util_hashmap_fini(&globals);
    return n;
}

static bool is_vector(LLVMValueRef v)
{
    return LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMVectorTypeKind;
}

/* Whether FastISel (x86) has no pattern for instruction i: vector
 * comparisons, selects on a vector condition, shuffles, element inserts and
 * extracts, conversions of vectors, bit casts of masks (vectors of i1).  A
 * call is left out: FastISel hands over the call alone. */
static bool selection_dag_only(LLVMValueRef i)
{
    switch (LLVMGetInstructionOpcode(i)) {
    case LLVMICmp:
    case LLVMFCmp:
    case LLVMSelect:
        return is_vector(LLVMGetOperand(i, 0));
    case LLVMShuffleVector:
    case LLVMInsertElement:
    case LLVMExtractElement:
        return true;
    case LLVMBitCast:
        return jit_is_mask(i) || jit_is_mask(LLVMGetOperand(i, 0));
    case LLVMTrunc:
    case LLVMZExt:
    case LLVMSExt:
    case LLVMFPTrunc:
    case LLVMFPExt:
    case LLVMFPToUI:
    case LLVMFPToSI:
    case LLVMUIToFP:
    case LLVMSIToFP:
        return is_vector(i);
    default:
        return false;
    }
}

/* Splits each block before its first instruction FastISel has no pattern
 * for, when instructions come before it (and no stack allocation after
 * it: it would become a dynamic one).  FastISel selects a block from its
 * end and hands the instruction it cannot select, and everything above it
 * in the block, to SelectionDAG: the scalar head of a block of vector code
 * (a sub-group's index arithmetic) went with it.  Returns the blocks split. */
static int split_before_selection_dag(LLVMModuleRef mod, LLVMBuilderRef b)
{
    int n = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb)) {
            LLVMValueRef i = LLVMGetFirstInstruction(bb);
            while (i && LLVMIsAPHINode(i))
                i = LLVMGetNextInstruction(i);
            LLVMValueRef first = i;
            while (i && !selection_dag_only(i))
                i = LLVMGetNextInstruction(i);
            if (!i || i == first)
                continue;
            bool alloca_after = false;
            for (LLVMValueRef k = i; k && !alloca_after; k = LLVMGetNextInstruction(k))
                alloca_after = LLVMIsAAllocaInst(k) != NULL;
            if (alloca_after)
                continue;
            bb = jit_split_block(b, i, ""); /* starts with the instruction: nothing more to split */
            n++;
        }
    return n;
}

int jit_quick_isel_expand(LLVMModuleRef mod)
{
    LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(mod));
    int n = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i; i = next) {
                next = LLVMGetNextInstruction(i);
                if (LLVMIsAStoreInst(i) && split_constant_store(b, i)) {
                    LLVMInstructionEraseFromParent(i);
                    n++;
                    continue;
                }
                LLVMValueRef r = LLVMIsACallInst(i) ? expansion(b, i) : LLVMIsASelectInst(i) ? bit_logic(b, i) : NULL;
                if (!r)
                    continue;
                LLVMReplaceAllUsesWith(i, r);
                LLVMInstructionEraseFromParent(i);
                n++;
            }
    int masks = jit_quick_widen_masks(mod); /* first: masks leave the phis */
    int loads = masks < 0 ? -1 : load_phi_constants(mod, b);
    int splits = loads < 0 ? -1 : split_before_selection_dag(mod, b); /* last: the blocks are final */
    LLVMDisposeBuilder(b);
    return splits < 0 ? -1 : n + masks + loads + splits;
}
