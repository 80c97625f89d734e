/* jit/quick_isel.c — what FastISel cannot select, rewritten into what it can (see quick_isel.h). */
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

int jit_quick_isel_expand(LLVMModuleRef mod)
{
    LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(mod));
    int n = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i; i = next) {
                next = LLVMGetNextInstruction(i);
                LLVMValueRef r = LLVMIsACallInst(i) ? expansion(b, i) : LLVMIsASelectInst(i) ? bit_logic(b, i) : NULL;
                if (!r)
                    continue;
                LLVMReplaceAllUsesWith(i, r);
                LLVMInstructionEraseFromParent(i);
                n++;
            }
    LLVMDisposeBuilder(b);
    return n;
}
