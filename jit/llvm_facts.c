/* jit/llvm_facts.c — what an LLVM instruction does (see llvm_facts.h). */
#include "llvm_facts.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "sg_marker.h"

bool jit_opcode_pure(LLVMOpcode op)
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

/* The memory attribute of call's callee (LLVM's MemoryEffects: two bits per
 * location, the higher one "mod"), all bits set when the callee is not a
 * known function or says nothing (it may do anything). */
static uint64_t callee_memory(LLVMValueRef call)
{
    LLVMValueRef f = LLVMGetCalledValue(call);
    if (!LLVMIsAFunction(f))
        return UINT64_MAX;
    unsigned memory = LLVMGetEnumAttributeKindForName("memory", 6);
    LLVMAttributeRef a = LLVMGetEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, memory);
    return a ? LLVMGetEnumAttributeValue(a) : UINT64_MAX;
}

bool jit_call_pure(LLVMValueRef call)
{
    return callee_memory(call) == 0;
}

bool jit_inst_never_traps(LLVMValueRef in)
{
    LLVMOpcode op = LLVMGetInstructionOpcode(in);
    if (op != LLVMCall)
        return jit_opcode_pure(op) && op != LLVMUDiv && op != LLVMSDiv && op != LLVMURem && op != LLVMSRem;
    LLVMValueRef f = LLVMGetCalledValue(in);
    unsigned speculatable = LLVMGetEnumAttributeKindForName("speculatable", 12);
    return LLVMIsAFunction(f) && LLVMGetIntrinsicID(f) && jit_call_pure(in) &&
           LLVMGetEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, speculatable);
}

bool jit_call_may_write(LLVMValueRef call)
{
    return (callee_memory(call) & 0xAAAAAAAAull) != 0;
}

const char *jit_call_int_minmax(LLVMValueRef call)
{
    static const char *const names[] = { "llvm.smin", "llvm.smax", "llvm.umin", "llvm.umax" };
    LLVMValueRef f = LLVMGetCalledValue(call);
    size_t len;
    const char *name = f && LLVMIsAFunction(f) ? LLVMGetValueName2(f, &len) : "";
    for (unsigned i = 0; i < sizeof names / sizeof *names; i++)
        if (!strncmp(name, names[i], 9) && name[9] == '.')
            return names[i];
    return NULL;
}

bool jit_call_harmless(LLVMValueRef call)
{
    LLVMValueRef f = LLVMGetCalledValue(call);
    if (!LLVMIsAFunction(f))
        return false;
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    return !strncmp(name, "llvm.lifetime.", 14) || !strncmp(name, "llvm.assume", 11) ||
           !strncmp(name, "llvm.dbg.", 9) || jit_sg_is_marker_fn(f);
}

bool jit_inst_may_write_shared(LLVMValueRef in)
{
    switch (LLVMGetInstructionOpcode(in)) {
    case LLVMStore:
        return !LLVMIsAAllocaInst(jit_strip_geps(LLVMGetOperand(in, 1)));
    case LLVMCall:
        return !jit_call_harmless(in) && !jit_inst_never_traps(in);
    case LLVMFence:
    case LLVMAtomicRMW:
    case LLVMAtomicCmpXchg:
        return true;
    default:
        return false;
    }
}

bool jit_is_mask(LLVMValueRef v)
{
    LLVMTypeRef t = LLVMTypeOf(v);
    if (LLVMGetTypeKind(t) != LLVMVectorTypeKind)
        return false;
    LLVMTypeRef e = LLVMGetElementType(t);
    return LLVMGetTypeKind(e) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(e) == 1;
}

LLVMValueRef jit_strip_geps(LLVMValueRef p)
{
    while (LLVMIsAGetElementPtrInst(p))
        p = LLVMGetOperand(p, 0);
    return p;
}

bool jit_alloca_simple(LLVMValueRef a)
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

LLVMValueRef jit_alloca_single_store(LLVMValueRef a)
{
    LLVMValueRef store = NULL;
    for (LLVMUseRef u = LLVMGetFirstUse(a); u; u = LLVMGetNextUse(u)) {
        if (!LLVMIsAStoreInst(LLVMGetUser(u)))
            continue;
        if (store)
            return NULL;
        store = LLVMGetUser(u);
    }
    return store;
}

void jit_move_inst(LLVMBuilderRef b, LLVMValueRef i)
{
    size_t len;
    const char *name = LLVMGetValueName2(i, &len);
    char *keep = len ? strndup(name, len) : NULL;
    LLVMInstructionRemoveFromParent(i);
    LLVMInsertIntoBuilderWithName(b, i, keep ? keep : "");
    free(keep);
}

void jit_move_tail(LLVMBuilderRef b, LLVMValueRef first, LLVMBasicBlockRef to)
{
    LLVMBasicBlockRef from = LLVMGetInstructionParent(first);
    LLVMPositionBuilderAtEnd(b, to);
    for (LLVMValueRef i = first, next; i; i = next) {
        next = LLVMGetNextInstruction(i);
        jit_move_inst(b, i);
    }
    LLVMValueRef term = LLVMGetBasicBlockTerminator(to);
    for (unsigned k = 0, n = term ? LLVMGetNumSuccessors(term) : 0; k < n; k++)
        jit_retarget_phis(b, LLVMGetSuccessor(term, k), from, to);
}

LLVMBasicBlockRef jit_split_block(LLVMBuilderRef b, LLVMValueRef first, const char *name)
{
    LLVMBasicBlockRef bb = LLVMGetInstructionParent(first), after = LLVMGetNextBasicBlock(bb);
    LLVMContextRef llc = LLVMGetTypeContext(LLVMTypeOf(first));
    LLVMBasicBlockRef nb = after ? LLVMInsertBasicBlockInContext(llc, after, name)
                                 : LLVMAppendBasicBlockInContext(llc, LLVMGetBasicBlockParent(bb), name);
    jit_move_tail(b, first, nb);
    LLVMPositionBuilderAtEnd(b, bb);
    LLVMBuildBr(b, nb);
    return nb;
}

void jit_join_predecessor(LLVMBuilderRef b, LLVMBasicBlockRef bb)
{
    LLVMUseRef use = LLVMGetFirstUse(LLVMBasicBlockAsValue(bb));
    if (!use || LLVMGetNextUse(use))
        return;
    LLVMValueRef br = LLVMGetUser(use);
    if (!LLVMIsABranchInst(br) || LLVMIsConditional(br) || LLVMGetInstructionParent(br) == bb)
        return;
    for (LLVMValueRef phi = LLVMGetFirstInstruction(bb), next; phi && LLVMIsAPHINode(phi); phi = next) {
        next = LLVMGetNextInstruction(phi);
        LLVMReplaceAllUsesWith(phi, LLVMGetIncomingValue(phi, 0));
        LLVMInstructionEraseFromParent(phi);
    }
    LLVMBasicBlockRef pred = LLVMGetInstructionParent(br);
    LLVMInstructionEraseFromParent(br);
    jit_move_tail(b, LLVMGetFirstInstruction(bb), pred);
    LLVMDeleteBasicBlock(bb);
}

int jit_run_passes(LLVMModuleRef mod, const char *pipeline, char *msg, size_t len)
{
    LLVMPassBuilderOptionsRef o = LLVMCreatePassBuilderOptions();
    LLVMErrorRef e = LLVMRunPasses(mod, pipeline, NULL, o);
    LLVMDisposePassBuilderOptions(o);
    if (!e)
        return 0;
    char *err = LLVMGetErrorMessage(e);
    snprintf(msg, len, "LLVM passes (%s) failed: %s", pipeline, err);
    LLVMDisposeErrorMessage(err);
    return -1;
}

bool jit_is_group_proven(LLVMValueRef v)
{
    LLVMValueRef f = LLVMIsACallInst(v) ? LLVMGetCalledValue(v) : NULL;
    size_t len;
    const char *name = f && LLVMIsAFunction(f) ? LLVMGetValueName2(f, &len) : NULL;
    return name && len == strlen(JIT_GROUP_PROVEN) && !memcmp(name, JIT_GROUP_PROVEN, len);
}

void jit_retarget_phis(LLVMBuilderRef b, LLVMBasicBlockRef bb, LLVMBasicBlockRef from, LLVMBasicBlockRef to)
{
    for (LLVMValueRef phi = LLVMGetFirstInstruction(bb), next; phi && LLVMIsAPHINode(phi); phi = next) {
        next = LLVMGetNextInstruction(phi);
        unsigned n = LLVMCountIncoming(phi);
        bool has = false;
        for (unsigned i = 0; i < n; i++)
            has |= LLVMGetIncomingBlock(phi, i) == from;
        if (!has)
            continue;
        LLVMPositionBuilderBefore(b, phi);
        LLVMValueRef np = LLVMBuildPhi(b, LLVMTypeOf(phi), "");
        bool added = false;
        for (unsigned i = 0; i < n; i++) {
            LLVMValueRef v = LLVMGetIncomingValue(phi, i);
            LLVMBasicBlockRef in = LLVMGetIncomingBlock(phi, i);
            if (in == from) {
                if (added)
                    continue;
                in = to;
                added = true;
            }
            LLVMAddIncoming(np, &v, &in, 1);
        }
        LLVMReplaceAllUsesWith(phi, np);
        size_t len; /* the new phi keeps the name (a loop counter's, for the reader of --emit) */
        const char *name = LLVMGetValueName2(phi, &len);
        char *keep = len ? strndup(name, len) : NULL;
        LLVMInstructionEraseFromParent(phi);
        if (keep)
            LLVMSetValueName2(np, keep, len);
        free(keep);
    }
}

LLVMIntPredicate jit_icmp_swapped(LLVMIntPredicate p)
{
    switch (p) {
    case LLVMIntSLT:
        return LLVMIntSGT;
    case LLVMIntSLE:
        return LLVMIntSGE;
    case LLVMIntSGT:
        return LLVMIntSLT;
    case LLVMIntSGE:
        return LLVMIntSLE;
    case LLVMIntULT:
        return LLVMIntUGT;
    case LLVMIntULE:
        return LLVMIntUGE;
    case LLVMIntUGT:
        return LLVMIntULT;
    case LLVMIntUGE:
        return LLVMIntULE;
    default:
        return p; /* EQ, NE */
    }
}

LLVMIntPredicate jit_icmp_inverse(LLVMIntPredicate p)
{
    switch (p) {
    case LLVMIntEQ:
        return LLVMIntNE;
    case LLVMIntNE:
        return LLVMIntEQ;
    case LLVMIntSLT:
        return LLVMIntSGE;
    case LLVMIntSLE:
        return LLVMIntSGT;
    case LLVMIntSGT:
        return LLVMIntSLE;
    case LLVMIntSGE:
        return LLVMIntSLT;
    case LLVMIntULT:
        return LLVMIntUGE;
    case LLVMIntULE:
        return LLVMIntUGT;
    case LLVMIntUGT:
        return LLVMIntULE;
    default:
        return LLVMIntULT; /* UGE */
    }
}

jit_masked_op jit_masked_op_of(LLVMValueRef in)
{
    static const struct {
        const char *prefix;
        jit_masked_op op;
    } ops[] = { { "llvm.masked.load.", JIT_MASKED_LOAD },
                { "llvm.masked.store.", JIT_MASKED_STORE },
                { "llvm.masked.gather.", JIT_MASKED_GATHER },
                { "llvm.masked.scatter.", JIT_MASKED_SCATTER } };
    LLVMValueRef f = LLVMIsACallInst(in) ? LLVMGetCalledValue(in) : NULL;
    size_t len;
    const char *name = f && LLVMIsAFunction(f) ? LLVMGetValueName2(f, &len) : NULL;
    for (size_t i = 0; name && i < sizeof ops / sizeof ops[0]; i++)
        if (len > strlen(ops[i].prefix) && !memcmp(name, ops[i].prefix, strlen(ops[i].prefix)))
            return ops[i].op;
    return JIT_MASKED_NONE;
}

void jit_copy_metadata(LLVMValueRef from, LLVMValueRef to)
{
    LLVMContextRef llc = LLVMGetTypeContext(LLVMTypeOf(from));
    size_t nmd;
    LLVMValueMetadataEntry *md = LLVMInstructionGetAllMetadataOtherThanDebugLoc(from, &nmd);
    for (unsigned i = 0; i < nmd; i++)
        LLVMSetMetadata(to, LLVMValueMetadataEntriesGetKind(md, i),
                        LLVMMetadataAsValue(llc, LLVMValueMetadataEntriesGetMetadata(md, i)));
    if (md)
        LLVMDisposeValueMetadataEntries(md);
}

LLVMValueRef jit_spare(LLVMModuleRef mod, bool writable)
{
    const char *name = writable ? "spvjit.spare.sink" : "spvjit.spare.zeros";
    LLVMValueRef g = LLVMGetNamedGlobal(mod, name);
    if (g)
        return g;
    LLVMTypeRef t = LLVMArrayType2(LLVMInt8TypeInContext(LLVMGetModuleContext(mod)), JIT_SPARE_BYTES);
    g = LLVMAddGlobal(mod, t, name);
    LLVMSetInitializer(g, LLVMConstNull(t));
    LLVMSetGlobalConstant(g, !writable);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    LLVMSetAlignment(g, JIT_SPARE_ALIGN);
    return g;
}
