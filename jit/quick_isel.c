/* jit/quick_isel.c — integer intrinsics as compares and selects for FastISel (see quick_isel.h). */
#include "quick_isel.h"

#include <stdbool.h>
#include <string.h>

typedef enum { UMIN, UMAX, SMIN, SMAX, USUB_SAT, UADD_SAT, NOT_EXPANDED } expansion;

/* What call is, among the expanded intrinsics (scalar integer operands only). */
static expansion expansion_of(LLVMValueRef call)
{
    static const struct {
        const char *prefix;
        expansion e;
    } names[] = { { "llvm.umin.", UMIN }, { "llvm.umax.", UMAX },         { "llvm.smin.", SMIN },
                  { "llvm.smax.", SMAX }, { "llvm.usub.sat.", USUB_SAT }, { "llvm.uadd.sat.", UADD_SAT } };
    LLVMValueRef callee = LLVMGetCalledValue(call);
    if (!callee || !LLVMIsAFunction(callee) || LLVMGetTypeKind(LLVMTypeOf(call)) != LLVMIntegerTypeKind)
        return NOT_EXPANDED;
    size_t len;
    const char *name = LLVMGetValueName2(callee, &len);
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t n = strlen(names[i].prefix);
        if (len > n && !memcmp(name, names[i].prefix, n))
            return names[i].e;
    }
    return NOT_EXPANDED;
}

static LLVMValueRef expand(LLVMBuilderRef b, expansion e, LLVMValueRef x, LLVMValueRef y)
{
    LLVMTypeRef t = LLVMTypeOf(x);
    switch (e) {
    case UMIN:
        return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntULT, x, y, ""), x, y, "");
    case UMAX:
        return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntUGT, x, y, ""), x, y, "");
    case SMIN:
        return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, x, y, ""), x, y, "");
    case SMAX:
        return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSGT, x, y, ""), x, y, "");
    case USUB_SAT: /* x > y ? x - y : 0 */
        return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntUGT, x, y, ""), LLVMBuildSub(b, x, y, ""), LLVMConstNull(t),
                               "");
    case UADD_SAT: { /* the sum, or all ones where it wrapped (below x) */
        LLVMValueRef sum = LLVMBuildAdd(b, x, y, "");
        return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntULT, sum, x, ""), LLVMConstAllOnes(t), sum, "");
    }
    case NOT_EXPANDED:
        break;
    }
    return NULL;
}

int jit_quick_isel_expand(LLVMModuleRef mod)
{
    LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(mod));
    int n = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i; i = next) {
                next = LLVMGetNextInstruction(i);
                expansion e = LLVMIsACallInst(i) ? expansion_of(i) : NOT_EXPANDED;
                if (e == NOT_EXPANDED)
                    continue;
                LLVMPositionBuilderBefore(b, i);
                LLVMReplaceAllUsesWith(i, expand(b, e, LLVMGetOperand(i, 0), LLVMGetOperand(i, 1)));
                LLVMInstructionEraseFromParent(i);
                n++;
            }
    LLVMDisposeBuilder(b);
    return n;
}
