/* jit/poll.c — the stop flag and the polls on the back edges of compiled code (see poll.h). */
#include "poll.h"

#include <stddef.h>
#include <string.h>

#include "abi.h"
#include "cfg.h"
#include "llvm_facts.h"
#include "lower_ctx.h"

#define STOP_FIELD_MD "spvjit.stop.field"

LLVMValueRef jit_stop_field(LLVMBuilderRef b, LLVMValueRef ctx)
{
    LLVMContextRef llc = LLVMGetTypeContext(LLVMTypeOf(ctx));
    LLVMTypeRef i8 = LLVMInt8TypeInContext(llc), i64 = LLVMInt64TypeInContext(llc);
    LLVMValueRef off = LLVMConstInt(i64, offsetof(spvjit_wg_ctx, stop), 0);
    LLVMValueRef field = LLVMBuildInBoundsGEP2(b, i8, ctx, &off, 1, "");
    LLVMValueRef p = LLVMBuildLoad2(b, LLVMPointerTypeInContext(llc, 0), field, "stop.field");
    LLVMSetAlignment(p, 8);
    LLVMSetVolatile(p, 1);
    LLVMSetMetadata(p, LLVMGetMDKindIDInContext(llc, STOP_FIELD_MD, strlen(STOP_FIELD_MD)),
                    LLVMMetadataAsValue(llc, LLVMMDNodeInContext2(llc, NULL, 0)));
    return p;
}

/* The marked load of ctx->stop in fn, or NULL. */
static LLVMValueRef find_stop_field(LLVMValueRef fn)
{
    LLVMContextRef llc = LLVMGetTypeContext(LLVMTypeOf(fn));
    unsigned kind = LLVMGetMDKindIDInContext(llc, STOP_FIELD_MD, strlen(STOP_FIELD_MD));
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
            if (LLVMIsALoadInst(i) && LLVMGetMetadata(i, kind))
                return i;
    return NULL;
}

LLVMValueRef jit_stop_flag(LLVMBuilderRef b, LLVMModuleRef mod, LLVMValueRef stop_field)
{
    const char *name = "spvjit.never.stop";
    LLVMValueRef never = LLVMGetNamedGlobal(mod, name);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetModuleContext(mod));
    if (!never) {
        never = LLVMAddGlobal(mod, i32, name);
        LLVMSetInitializer(never, LLVMConstInt(i32, 0, 0));
        LLVMSetGlobalConstant(never, 1);
        LLVMSetLinkage(never, LLVMInternalLinkage);
        LLVMSetAlignment(never, 4);
    }
    return LLVMBuildSelect(b, LLVMBuildIsNull(b, stop_field, ""), never, stop_field, "stop.ptr");
}

LLVMValueRef jit_stop_requested(LLVMBuilderRef b, LLVMValueRef flag)
{
    LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetTypeContext(LLVMTypeOf(flag)));
    LLVMValueRef s = LLVMBuildLoad2(b, i32, flag, "stop");
    LLVMSetAlignment(s, 4);
    LLVMSetOrdering(s, LLVMAtomicOrderingMonotonic);
    return LLVMBuildICmp(b, LLVMIntNE, s, LLVMConstInt(i32, 0, 0), "");
}

/* The poll of the back edge term -> to folded into term when that is an
 * unconditional branch: `stop ? exit : to`.  The loop's path then has no
 * block of its own for the poll, which the quick tier's register allocator
 * would enter and leave with every live value spilled (mm's quick dispatch
 * took a quarter longer).  A conditional branch keeps the poll block on its
 * edge: folded into its condition, the poll made the quick tier's rotated
 * loops no faster, and it moved the optimized code's registers around. */
static bool poll_in_branch(LLVMBuilderRef b, LLVMValueRef term, LLVMBasicBlockRef to, LLVMValueRef stop,
                           LLVMBasicBlockRef exit)
{
    if (!LLVMIsABranchInst(term) || LLVMIsConditional(term))
        return false;
    LLVMPositionBuilderBefore(b, term);
    LLVMBuildCondBr(b, jit_stop_requested(b, stop), exit, to);
    LLVMInstructionEraseFromParent(term);
    return true;
}

/* The most trips an innermost loop may make without a poll: such a loop
 * needs none, since whatever runs forever must take some back edge forever,
 * and this one's are bounded by the entries into the loop, which a polled
 * (or likewise bounded) loop around it makes. */
#define UNPOLLED_TRIPS 4096

/* field: the function's load of ctx->stop (NULL: it has none, its first
 * parameter is the ctx) */
static int poll_function(LLVMValueRef fn, LLVMValueRef field)
{
    jit_cfg g;
    if (jit_cfg_build(&g, fn))
        return -1;
    LLVMContextRef llc = LLVMGetTypeContext(LLVMTypeOf(fn));
    LLVMTypeRef ret = LLVMGetReturnType(LLVMGlobalGetValueType(fn));
    LLVMBuilderRef b = LLVMCreateBuilderInContext(llc);
    LLVMValueRef stop = NULL;
    LLVMBasicBlockRef exit = NULL;
    int n = 0;
    for (unsigned bi = 0; bi < g.nreachable; bi++) {
        LLVMBasicBlockRef from = g.blocks[bi];
        LLVMValueRef term = LLVMGetBasicBlockTerminator(from);
        for (unsigned k = g.succ_off[bi]; k < g.succ_off[bi + 1]; k++) {
            unsigned si = g.succ[k];
            LLVMBasicBlockRef to = g.blocks[si];
            if (si > bi || si >= g.nreachable)
                continue;      /* a forward edge */
            bool seen = false; /* one poll per (from, to), however many edges */
            for (unsigned j = g.succ_off[bi]; j < k; j++)
                seen |= g.succ[j] == si;
            if (seen || jit_cfg_counted_trips(b, &g, bi, si, UNPOLLED_TRIPS))
                continue;
            if (!stop) {
                /* the flag's address, once: after the function's own load of
                 * ctx->stop, else at the entry (after its allocas) from its
                 * ctx parameter, which an exported function keeps */
                LLVMValueRef p = field;
                if (p) {
                    LLVMPositionBuilderBefore(b, LLVMGetNextInstruction(p));
                } else {
                    LLVMValueRef at = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(fn));
                    while (at && LLVMIsAAllocaInst(at))
                        at = LLVMGetNextInstruction(at);
                    LLVMPositionBuilderBefore(b, at);
                    p = jit_stop_field(b, LLVMGetParam(fn, 0));
                }
                stop = jit_stop_flag(b, LLVMGetGlobalParent(fn), p);
                /* the caller goes on to its own poll (a group function returns
                 * "not diverged", zero) */
                exit = LLVMAppendBasicBlockInContext(llc, fn, "stopped");
                LLVMPositionBuilderAtEnd(b, exit);
                if (LLVMGetTypeKind(ret) == LLVMVoidTypeKind)
                    LLVMBuildRetVoid(b);
                else
                    LLVMBuildRet(b, LLVMConstNull(ret));
            }
            n++;
            if (poll_in_branch(b, term, to, stop, exit))
                break;
            LLVMBasicBlockRef poll = LLVMInsertBasicBlockInContext(llc, to, "poll");
            LLVMPositionBuilderAtEnd(b, poll);
            LLVMBuildCondBr(b, jit_stop_requested(b, stop), exit, to);
            for (unsigned s = 0; s < LLVMGetNumSuccessors(term); s++)
                if (LLVMGetSuccessor(term, s) == to)
                    LLVMSetSuccessor(term, s, poll);
            jit_retarget_phis(b, to, from, poll);
        }
    }
    LLVMDisposeBuilder(b);
    jit_cfg_free(&g);
    return n;
}

/* The functions the executor calls (their ctx parameter stays what it is),
 * and the out-of-line functions of one group they call (which load ctx->stop
 * themselves); others are inlined or call nothing that loops. */
int jit_insert_polls(LLVMModuleRef mod)
{
    static const char *const exported[] = { JIT_SYM_WG_RANGE, JIT_SYM_ITEM, JIT_SYM_WG_INIT };
    int total = 0;
    for (LLVMValueRef fn = LLVMGetFirstFunction(mod); fn; fn = LLVMGetNextFunction(fn)) {
        if (!LLVMCountBasicBlocks(fn))
            continue;
        size_t len;
        const char *name = LLVMGetValueName2(fn, &len);
        bool is_exported = false;
        for (size_t i = 0; i < sizeof exported / sizeof exported[0]; i++)
            is_exported |= len == strlen(exported[i]) && !memcmp(name, exported[i], len);
        bool group =
            len > strlen(JIT_SYM_GROUP_PREFIX) && !memcmp(name, JIT_SYM_GROUP_PREFIX, strlen(JIT_SYM_GROUP_PREFIX));
        LLVMValueRef field = find_stop_field(fn);
        if (!is_exported && !group)
            continue;
        if (group && !field)
            return -1;
        int n = poll_function(fn, field);
        if (n < 0)
            return -1;
        total += n;
    }
    return total;
}
