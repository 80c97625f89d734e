/* jit/lane_redirect.c — masked gathers and scatters unmasked, their inactive lanes on the spare bytes (see lane_redirect.h). */
#include "lane_redirect.h"

#include <stdbool.h>
#include <llvm-c/Target.h>

#include "llvm_facts.h"

/* Rewrites one gather or scatter (lane_redirect.h); false when it keeps its mask. */
static bool redirect(LLVMBuilderRef b, LLVMModuleRef mod, LLVMValueRef call, jit_masked_op kind)
{
    unsigned ptr_at = jit_masked_ptr_at(kind);
    LLVMValueRef ptrs = LLVMGetOperand(call, ptr_at), align = LLVMGetOperand(call, ptr_at + 1);
    LLVMValueRef mask = LLVMGetOperand(call, ptr_at + 2);
    LLVMTypeRef mask_t = LLVMTypeOf(mask), ptrs_t = LLVMTypeOf(ptrs);
    LLVMValueRef ones = LLVMConstAllOnes(mask_t); /* uniqued: a mask of all lanes is this value */
    LLVMTypeRef elem = LLVMGetElementType(LLVMTypeOf(kind == JIT_MASKED_GATHER ? call : LLVMGetOperand(call, 0)));
    if (mask == ones || LLVMGetPointerAddressSpace(LLVMGetElementType(ptrs_t)) != 0 ||
        LLVMConstIntGetZExtValue(align) > JIT_SPARE_ALIGN ||
        LLVMStoreSizeOfType(LLVMGetModuleDataLayout(mod), elem) > JIT_SPARE_BYTES)
        return false;
    LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetModuleContext(mod));
    LLVMPositionBuilderBefore(b, call);
    LLVMValueRef one = LLVMBuildInsertElement(b, LLVMGetPoison(ptrs_t), jit_spare(mod, kind == JIT_MASKED_SCATTER),
                                              LLVMConstInt(i32, 0, 0), "");
    LLVMValueRef spares = LLVMBuildShuffleVector(b, one, LLVMGetPoison(ptrs_t),
                                                 LLVMConstNull(LLVMVectorType(i32, LLVMGetVectorSize(mask_t))), "");
    LLVMValueRef safe = LLVMBuildSelect(b, mask, ptrs, spares, "lanes.safe");
    LLVMValueRef f = LLVMGetCalledValue(call), pass = kind == JIT_MASKED_GATHER ? LLVMGetOperand(call, 3) : NULL;
    LLVMValueRef gather[4] = { safe, align, ones, pass ? LLVMGetPoison(LLVMTypeOf(pass)) : NULL };
    LLVMValueRef scatter[4] = { LLVMGetOperand(call, 0), safe, align, ones };
    LLVMValueRef plain =
        LLVMBuildCall2(b, LLVMGlobalGetValueType(f), f, kind == JIT_MASKED_GATHER ? gather : scatter, 4, "");
    jit_copy_metadata(call, plain);
    if (pass)
        LLVMReplaceAllUsesWith(call, LLVMIsUndef(pass) || LLVMIsPoison(pass)
                                         ? plain
                                         : LLVMBuildSelect(b, mask, plain, pass, ""));
    LLVMInstructionEraseFromParent(call);
    return true;
}

int jit_redirect_masked_lanes(LLVMModuleRef mod)
{
    int count = 0;
    LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(mod));
    for (LLVMValueRef fn = LLVMGetFirstFunction(mod); fn; fn = LLVMGetNextFunction(fn))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef in = LLVMGetFirstInstruction(bb), next; in; in = next) {
                next = LLVMGetNextInstruction(in);
                jit_masked_op k = jit_masked_op_of(in);
                count += (k == JIT_MASKED_GATHER || k == JIT_MASKED_SCATTER) && redirect(b, mod, in, k);
            }
    LLVMDisposeBuilder(b);
    return count;
}
