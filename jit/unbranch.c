/* jit/unbranch.c — bounds checks that stayed scalar become branchless (see unbranch.h). */
#include "unbranch.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "llvm_facts.h"
#include "lower_ctx.h"

typedef struct late {
    LLVMModuleRef mod;
    LLVMContextRef llc;
    LLVMTargetDataRef td;
    LLVMValueRef zeros, sink;
    LLVMBuilderRef b;
    /* spare - base, made once per base (after it is defined): keeps the load's base + index form */
    LLVMValueRef base[64], spare[64], delta[64];
    unsigned nbase;
} late;

/* Whether br is a bounds check of lower_bounds.c: its weights say so. */
static bool is_guard(late *l, LLVMValueRef br)
{
    if (!br || LLVMGetInstructionOpcode(br) != LLVMBr || !LLVMIsConditional(br))
        return false;
    LLVMValueRef md = LLVMGetMetadata(br, LLVMGetMDKindIDInContext(l->llc, "prof", 4));
    if (!md || LLVMGetMDNodeNumOperands(md) != 3)
        return false;
    LLVMValueRef ops[3];
    LLVMGetMDNodeOperands(md, ops);
    unsigned len = 0;
    const char *s = LLVMGetMDString(ops[0], &len);
    return s && len == 14 && !memcmp(s, "branch_weights", 14) && LLVMIsAConstantInt(ops[1]) &&
           LLVMIsAConstantInt(ops[2]) && LLVMConstIntGetZExtValue(ops[1]) == JIT_GUARD_WEIGHT &&
           LLVMConstIntGetZExtValue(ops[2]) == 1;
}

/* spare - base as an i64, computed once where base is defined; NULL when
 * there is no room to remember it. */
static LLVMValueRef delta_of(late *l, LLVMValueRef base, LLVMValueRef spare)
{
    for (unsigned i = 0; i < l->nbase; i++)
        if (l->base[i] == base && l->spare[i] == spare)
            return l->delta[i];
    if (l->nbase == sizeof l->base / sizeof l->base[0])
        return NULL;
    if (LLVMIsAInstruction(base)) {
        LLVMValueRef at = LLVMGetNextInstruction(base);
        while (at && LLVMIsAPHINode(at))
            at = LLVMGetNextInstruction(at);
        LLVMPositionBuilderBefore(l->b, at);
    } else if (LLVMIsAArgument(base)) {
        LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(LLVMGetParamParent(base));
        LLVMValueRef at = LLVMGetFirstInstruction(entry);
        while (at && LLVMIsAAllocaInst(at))
            at = LLVMGetNextInstruction(at);
        LLVMPositionBuilderBefore(l->b, at);
    } else {
        return NULL;
    }
    LLVMTypeRef i64 = LLVMInt64TypeInContext(l->llc);
    LLVMValueRef d = LLVMBuildSub(l->b, LLVMBuildPtrToInt(l->b, spare, i64, ""), LLVMBuildPtrToInt(l->b, base, i64, ""),
                                  "spare.delta");
    l->base[l->nbase] = base;
    l->spare[l->nbase] = spare;
    l->delta[l->nbase++] = d;
    return d;
}

/* The access's new address: gep(base, select(ok, off, spare - base)) when p is
 * gep i8 base, off (so x86 keeps base + index addressing, the load folds into
 * its use); else select(ok, p, spare). */
static LLVMValueRef safe_address(late *l, LLVMValueRef access, LLVMValueRef p, LLVMValueRef ok, LLVMValueRef spare)
{
    LLVMTypeRef i8 = LLVMInt8TypeInContext(l->llc);
    if (LLVMIsAGetElementPtrInst(p) && LLVMGetNumOperands(p) == 2 && LLVMGetGEPSourceElementType(p) == i8) {
        LLVMValueRef base = LLVMGetOperand(p, 0), off = LLVMGetOperand(p, 1);
        LLVMValueRef d = delta_of(l, base, spare);
        LLVMPositionBuilderBefore(l->b, access);
        if (d && LLVMTypeOf(off) == LLVMTypeOf(d)) {
            LLVMValueRef idx = LLVMBuildSelect(l->b, ok, off, d, "");
            return LLVMBuildGEP2(l->b, i8, base, &idx, 1, "");
        }
    }
    LLVMPositionBuilderBefore(l->b, access);
    return LLVMBuildSelect(l->b, ok, p, spare, "");
}

/* The one load or store of block `in` (its other instructions only compute
 * its address: GEPs), or NULL. */
static LLVMValueRef single_access(LLVMBasicBlockRef in)
{
    LLVMValueRef access = NULL;
    for (LLVMValueRef i = LLVMGetFirstInstruction(in); i; i = LLVMGetNextInstruction(i)) {
        LLVMOpcode op = LLVMGetInstructionOpcode(i);
        if (op == LLVMBr && !LLVMIsConditional(i) && i == LLVMGetBasicBlockTerminator(in))
            continue;
        if (op == LLVMGetElementPtr)
            continue;
        if ((op != LLVMLoad && op != LLVMStore) || access || LLVMGetVolatile(i) ||
            LLVMGetOrdering(i) != LLVMAtomicOrderingNotAtomic)
            return NULL;
        access = i;
    }
    return access;
}

/* guard: br %ok, %in, %join; in: GEPs, one access, br %join; join's phis take
 * the access's value from %in and zero from the guard's block.  Returns
 * whether it was rewritten as: GEPs, access through select(%ok, p, spare). */
static bool rewrite(late *l, LLVMValueRef guard)
{
    LLVMBasicBlockRef from = LLVMGetInstructionParent(guard);
    LLVMBasicBlockRef in = LLVMGetSuccessor(guard, 0), join = LLVMGetSuccessor(guard, 1);
    LLVMValueRef term = LLVMGetBasicBlockTerminator(in);
    LLVMValueRef access = single_access(in);
    if (!access || in == join || LLVMGetSuccessor(term, 0) != join || LLVMGetBasicBlockParent(in) == NULL)
        return false;
    /* in has the guard as its only predecessor: its first use is the guard's successor edge */
    unsigned preds = 0;
    for (LLVMUseRef u = LLVMGetFirstUse(LLVMBasicBlockAsValue(in)); u; u = LLVMGetNextUse(u))
        preds++;
    if (preds != 1)
        return false;
    bool load = LLVMGetInstructionOpcode(access) == LLVMLoad;
    LLVMTypeRef vt = load ? LLVMTypeOf(access) : LLVMTypeOf(LLVMGetOperand(access, 0));
    if (LLVMABISizeOfType(l->td, vt) > JIT_SPARE_BYTES)
        return false;
    /* every phi of join: the access's value from `in`, zero from `from`; or equal from both */
    for (LLVMValueRef phi = LLVMGetFirstInstruction(join); phi && LLVMIsAPHINode(phi);
         phi = LLVMGetNextInstruction(phi)) {
        LLVMValueRef vin = NULL, vfrom = NULL;
        for (unsigned k = 0; k < LLVMCountIncoming(phi); k++) {
            if (LLVMGetIncomingBlock(phi, k) == in)
                vin = LLVMGetIncomingValue(phi, k);
            else if (LLVMGetIncomingBlock(phi, k) == from)
                vfrom = LLVMGetIncomingValue(phi, k);
        }
        if (!vin || !vfrom)
            return false;
        if (vin != vfrom && !(load && vin == access && LLVMIsNull(vfrom)))
            return false;
    }
    LLVMValueRef ok = LLVMGetCondition(guard);
    /* the GEPs and the access move before the guard, the access's address chosen by ok */
    for (LLVMValueRef i = LLVMGetFirstInstruction(in), next; i != term; i = next) {
        next = LLVMGetNextInstruction(i);
        LLVMPositionBuilderBefore(l->b, guard);
        jit_move_inst(l->b, i);
    }
    unsigned ptr_op = load ? 0 : 1;
    LLVMValueRef p = LLVMGetOperand(access, ptr_op);
    LLVMSetOperand(access, ptr_op, safe_address(l, access, p, ok, load ? l->zeros : l->sink));
    /* join now has `from` for a predecessor only once: the phis keep that edge */
    for (LLVMValueRef phi = LLVMGetFirstInstruction(join), next; phi && LLVMIsAPHINode(phi); phi = next) {
        next = LLVMGetNextInstruction(phi);
        LLVMValueRef v = NULL;
        for (unsigned k = 0; k < LLVMCountIncoming(phi); k++)
            if (LLVMGetIncomingBlock(phi, k) == in)
                v = LLVMGetIncomingValue(phi, k);
        LLVMPositionBuilderBefore(l->b, phi);
        LLVMValueRef np = LLVMBuildPhi(l->b, LLVMTypeOf(phi), "");
        for (unsigned k = 0; k < LLVMCountIncoming(phi); k++) {
            LLVMBasicBlockRef bb = LLVMGetIncomingBlock(phi, k);
            if (bb == in)
                continue;
            LLVMValueRef iv = bb == from ? v : LLVMGetIncomingValue(phi, k);
            LLVMAddIncoming(np, &iv, &bb, 1);
        }
        LLVMReplaceAllUsesWith(phi, np);
        LLVMInstructionEraseFromParent(phi);
    }
    LLVMPositionBuilderBefore(l->b, guard);
    LLVMBuildBr(l->b, join);
    LLVMInstructionEraseFromParent(guard);
    LLVMDeleteBasicBlock(in);
    jit_join_predecessor(l->b, join); /* from, which now ends in br %join (unbranch.h says why) */
    return true;
}

int jit_unbranch_guards(LLVMModuleRef mod, LLVMTargetDataRef td)
{
    late l = { .mod = mod, .llc = LLVMGetModuleContext(mod), .td = td };
    l.b = LLVMCreateBuilderInContext(l.llc);
    int n = 0;
    for (LLVMValueRef fn = LLVMGetFirstFunction(mod); fn; fn = LLVMGetNextFunction(fn)) {
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
            /* a merged join brings its own terminator, maybe the next check */
            for (LLVMValueRef t; is_guard(&l, t = LLVMGetBasicBlockTerminator(bb)); n++) {
                if (!l.zeros) { /* a load out of bounds reads zeros, a store writes the sink */
                    l.zeros = jit_spare(mod, false);
                    l.sink = jit_spare(mod, true);
                }
                if (!rewrite(&l, t))
                    break;
            }
        }
    }
    LLVMDisposeBuilder(l.b);
    return n;
}
