/* jit/contract.c — floating-point contraction (see contract.h). */
#include "contract.h"

#include "lower_ctx.h"

#include <stdbool.h>
#include <string.h>

static bool marked(LLVMValueRef v, LLVMOpcode op, unsigned kind)
{
    return LLVMIsAInstruction(v) && LLVMGetInstructionOpcode(v) == op && LLVMGetMetadata(v, kind);
}

static bool used_once(LLVMValueRef v)
{
    LLVMUseRef u = LLVMGetFirstUse(v);
    return u && !LLVMGetNextUse(u);
}

/* in (a marked fadd or fsub) as llvm.fmuladd of the marked multiply it
 * alone uses (the first operand that is one); false when there is none. */
static bool fuse_one(LLVMBuilderRef b, LLVMModuleRef mod, LLVMValueRef in, unsigned kind)
{
    unsigned at = 2;
    for (unsigned k = 0; k < 2 && at == 2; k++) {
        LLVMValueRef m = LLVMGetOperand(in, k);
        if (marked(m, LLVMFMul, kind) && used_once(m) && LLVMTypeOf(m) == LLVMTypeOf(in))
            at = k;
    }
    if (at == 2)
        return false;
    LLVMValueRef m = LLVMGetOperand(in, at), other = LLVMGetOperand(in, 1 - at);
    LLVMValueRef x = LLVMGetOperand(m, 0), y = LLVMGetOperand(m, 1);
    LLVMFastMathFlags f = LLVMGetFastMathFlags(in) & LLVMGetFastMathFlags(m);
    LLVMPositionBuilderBefore(b, in);
    if (LLVMGetInstructionOpcode(in) == LLVMFSub) { /* x*y - c = x*y + (-c); c - x*y = (-x)*y + c: exact */
        LLVMValueRef *neg = at == 0 ? &other : &x;
        *neg = LLVMBuildFNeg(b, *neg, "");
        if (f && LLVMIsAInstruction(*neg))
            LLVMSetFastMathFlags(*neg, f);
    }
    LLVMTypeRef t = LLVMTypeOf(in);
    unsigned id = LLVMLookupIntrinsicID("llvm.fmuladd", 12);
    LLVMValueRef fn = LLVMGetIntrinsicDeclaration(mod, id, &t, 1);
    LLVMValueRef r = LLVMBuildCall2(b, LLVMIntrinsicGetType(LLVMGetModuleContext(mod), id, &t, 1), fn,
                                    (LLVMValueRef[]){ x, y, other }, 3, "");
    if (f)
        LLVMSetFastMathFlags(r, f);
    LLVMReplaceAllUsesWith(in, r);
    LLVMInstructionEraseFromParent(in);
    LLVMInstructionEraseFromParent(m);
    return true;
}

void jit_contract(LLVMModuleRef mod)
{
    LLVMContextRef llc = LLVMGetModuleContext(mod);
    unsigned kind = LLVMGetMDKindIDInContext(llc, JIT_CONTRACT_MD, strlen(JIT_CONTRACT_MD));
    LLVMBuilderRef b = LLVMCreateBuilderInContext(llc);
    /* first the pairs (a multiply's mark is read at its add, after it), then the marks */
    for (int unmark = 0; unmark < 2; unmark++)
        for (LLVMValueRef fn = LLVMGetFirstFunction(mod); fn; fn = LLVMGetNextFunction(fn))
            for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
                for (LLVMValueRef in = LLVMGetFirstInstruction(bb), next; in; in = next) {
                    next = LLVMGetNextInstruction(in);
                    if (unmark && LLVMGetMetadata(in, kind))
                        LLVMSetMetadata(in, kind, NULL);
                    else if (!unmark && (marked(in, LLVMFAdd, kind) || marked(in, LLVMFSub, kind)))
                        fuse_one(b, mod, in, kind);
                }
    LLVMDisposeBuilder(b);
}
