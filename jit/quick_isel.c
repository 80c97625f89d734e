/* jit/quick_isel.c — integer intrinsics as compares and selects for FastISel (see quick_isel.h). */
#include "quick_isel.h"

#include <stdbool.h>
#include <string.h>

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

int jit_quick_isel_expand(LLVMModuleRef mod)
{
    LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(mod));
    int n = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i; i = next) {
                next = LLVMGetNextInstruction(i);
                LLVMValueRef r = LLVMIsACallInst(i) ? expansion(b, i) : NULL;
                if (!r)
                    continue;
                LLVMReplaceAllUsesWith(i, r);
                LLVMInstructionEraseFromParent(i);
                n++;
            }
    LLVMDisposeBuilder(b);
    return n;
}
