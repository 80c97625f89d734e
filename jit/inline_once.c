/* jit/inline_once.c — functions called once, inlined by moving their blocks (see inline_once.h). */
#include "inline_once.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "llvm_facts.h"

static bool has_fn_attr(LLVMValueRef fn, const char *name)
{
    unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
    return LLVMGetEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, kind) != NULL;
}

/* The one call of f, when f may move into its caller; else NULL. */
static LLVMValueRef only_call(LLVMValueRef f)
{
    if (!LLVMCountBasicBlocks(f) || LLVMGetLinkage(f) != LLVMInternalLinkage || !has_fn_attr(f, "alwaysinline") ||
        LLVMIsFunctionVarArg(LLVMGlobalGetValueType(f)))
        return NULL;
    LLVMUseRef use = LLVMGetFirstUse(f);
    if (!use || LLVMGetNextUse(use))
        return NULL;
    LLVMValueRef call = LLVMGetUser(use);
    if (!LLVMIsACallInst(call) || LLVMGetCalledValue(call) != f || LLVMGetNumOperandBundles(call) ||
        LLVMGetBasicBlockParent(LLVMGetInstructionParent(call)) == f)
        return NULL;
    static const char *const copied[] = { "byval", "inalloca", "preallocated" }; /* the inliner copies these */
    for (unsigned i = 0, n = LLVMCountParams(f); i < n; i++)
        for (unsigned k = 0; k < sizeof copied / sizeof copied[0]; k++) {
            unsigned kind = LLVMGetEnumAttributeKindForName(copied[k], strlen(copied[k]));
            if (LLVMGetEnumAttributeAtIndex(f, i + 1, kind) || LLVMGetCallSiteEnumAttribute(call, i + 1, kind))
                return NULL;
        }
    return call;
}

static bool inline_call(LLVMBuilderRef b, LLVMValueRef f, LLVMValueRef call)
{
    LLVMBasicBlockRef at = LLVMGetInstructionParent(call);
    LLVMValueRef caller = LLVMGetBasicBlockParent(at);
    unsigned nblocks = LLVMCountBasicBlocks(f);
    LLVMBasicBlockRef *blocks = malloc(nblocks * sizeof *blocks), *from = malloc(nblocks * sizeof *from);
    LLVMValueRef *rets = malloc(nblocks * sizeof *rets);
    if (!blocks || !from || !rets) {
        free(blocks);
        free(from);
        free(rets);
        return false;
    }
    LLVMGetBasicBlocks(f, blocks);

    /* the rest of the calling block: `cont`, which its successors' phis now name */
    LLVMBasicBlockRef cont = LLVMAppendBasicBlockInContext(LLVMGetTypeContext(LLVMTypeOf(f)), caller, "");
    jit_move_tail(b, LLVMGetNextInstruction(call), cont);

    for (unsigned i = 0, n = LLVMCountParams(f); i < n; i++)
        LLVMReplaceAllUsesWith(LLVMGetParam(f, i), LLVMGetOperand(call, i));
    /* fixed-size allocas to the top of the caller's entry: in a loop they would grow the stack */
    LLVMValueRef top = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(caller)); /* the call, at least */
    for (LLVMValueRef i = LLVMGetFirstInstruction(blocks[0]), next; i; i = next) {
        next = LLVMGetNextInstruction(i);
        if (LLVMIsAAllocaInst(i) && LLVMIsAConstant(LLVMGetOperand(i, 0))) {
            LLVMPositionBuilderBefore(b, top);
            jit_move_inst(b, i);
        }
    }

    /* the callee's blocks after the calling block, its returns branching to cont */
    bool value = LLVMGetTypeKind(LLVMTypeOf(call)) != LLVMVoidTypeKind;
    unsigned nrets = 0;
    LLVMBasicBlockRef prev = at;
    for (unsigned i = 0; i < nblocks; i++) {
        LLVMMoveBasicBlockAfter(blocks[i], prev);
        prev = blocks[i];
        LLVMValueRef t = LLVMGetBasicBlockTerminator(blocks[i]);
        if (LLVMGetInstructionOpcode(t) == LLVMRet) {
            rets[nrets] = value ? LLVMGetOperand(t, 0) : NULL;
            from[nrets++] = blocks[i];
            LLVMInstructionEraseFromParent(t);
            LLVMPositionBuilderAtEnd(b, blocks[i]);
            LLVMBuildBr(b, cont);
        }
    }
    LLVMMoveBasicBlockAfter(cont, prev);
    if (value) {
        LLVMValueRef r = nrets == 1 ? rets[0] : LLVMGetPoison(LLVMTypeOf(call)); /* none: cont is unreachable */
        if (nrets > 1) {
            LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(cont));
            r = LLVMBuildPhi(b, LLVMTypeOf(call), "");
            LLVMAddIncoming(r, rets, from, nrets);
        }
        LLVMReplaceAllUsesWith(call, r);
    }
    LLVMInstructionEraseFromParent(call);
    LLVMPositionBuilderAtEnd(b, at);
    LLVMBuildBr(b, blocks[0]);
    /* the folding LLVM's inliner does on the blocks it copies: the entry
     * joins the calling block, straight lines join up (the barrier regions
     * hoist what the item's entry block computes from the context alone; the
     * fast register allocator spills what crosses a block) */
    for (unsigned i = 0; i < nblocks; i++)
        jit_join_predecessor(b, blocks[i]);
    jit_join_predecessor(b, cont);
    free(blocks);
    free(from);
    free(rets);
    LLVMDeleteFunction(f);
    return true;
}

int jit_inline_once(LLVMModuleRef mod)
{
    LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(mod));
    int n = 0; /* one walk: a move never makes another function's call movable */
    for (LLVMValueRef f = LLVMGetFirstFunction(mod), next; f; f = next) {
        next = LLVMGetNextFunction(f);
        LLVMValueRef call = only_call(f);
        if (call && !inline_call(b, f, call)) {
            n = -1;
            break;
        }
        n += call != NULL;
    }
    LLVMDisposeBuilder(b);
    return n;
}
