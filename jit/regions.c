/* jit/regions.c — the region structure of the work-item function (see regions.h). */
#include "regions.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "barrier_intrinsic.h"
#include "inline_once.h"
#include "llvm_facts.h"
#include "util/array.h"

static int decline(char *msg, const char *why)
{
    snprintf(msg, JIT_REGIONS_MSG, "%s", why);
    return 1;
}

static int out_of_memory(char *msg)
{
    snprintf(msg, JIT_REGIONS_MSG, "out of memory");
    return -1;
}

/* --- step 1: inlining, reg2mem, blocks ending at barriers ------------------------------------ */

static int run_passes(LLVMModuleRef mod, const char *pipeline, char *msg)
{
    return jit_run_passes(mod, pipeline, msg, JIT_REGIONS_MSG);
}

/* The barrier calls of item, or 1 with msg when another call is not understood. */
static int find_barrier_calls(LLVMValueRef item, LLVMValueRef barrier_fn, util_array *calls, char *msg)
{
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(item); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
            if (!LLVMIsACallInst(i))
                continue;
            long long site = jit_barrier_site(barrier_fn, i);
            LLVMValueRef f = LLVMGetCalledValue(i);
            size_t len;
            if (site >= 0) {
                if (!UTIL_ARRAY_PUSH(calls, LLVMValueRef, i))
                    return out_of_memory(msg);
            } else if (site == -2) {
                return decline(msg, "a barrier whose site is not a constant");
            } else if (!LLVMIsAFunction(f)) {
                return decline(msg, "an indirect call");
            } else if (LLVMCountBasicBlocks(f)) {
                snprintf(msg, JIT_REGIONS_MSG, "a call of %s that is not inlined", LLVMGetValueName2(f, &len));
                return 1;
            }
        }
    return 0;
}

/* Ends a block right after every barrier call. */
static int split_at_barriers(LLVMValueRef item, char *msg)
{
    LLVMValueRef barrier_fn = jit_barrier_function(LLVMGetGlobalParent(item));
    util_array calls = { 0 };
    int rc = find_barrier_calls(item, barrier_fn, &calls, msg);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(item)));
    for (size_t k = 0; !rc && k < UTIL_ARRAY_COUNT(&calls, LLVMValueRef); k++)
        jit_split_block(b, LLVMGetNextInstruction(UTIL_ARRAY_AT(&calls, LLVMValueRef, k)), "after.barrier");
    LLVMDisposeBuilder(b);
    util_array_fini(&calls);
    return rc;
}

int jit_regions_prepare(LLVMModuleRef mod, LLVMValueRef item, bool quick, char *msg)
{
    /* everything in one function, SSA values through memory, blocks end at
     * barriers.  The quick tier moves the functions called once instead of
     * copying them (inline_once.h) and then simplifies, which LLVM's
     * inliner does on each instruction it copies (mm's quick IR into the
     * passes: 1349 lines, 1614 from the inliner's copies). */
    if (quick && jit_inline_once(mod) < 0)
        return out_of_memory(msg);
    if (run_passes(mod,
                   quick ? "always-inline,function(sroa,instsimplify,reg2mem)" : "always-inline,function(sroa,reg2mem)",
                   msg))
        return -1;
    int rc = split_at_barriers(item, msg);
    if (rc)
        return rc;
    return run_passes(mod, "function(reg2mem)", msg);
}

/* --- the regions ------------------------------------------------------------------------------- */

/* What the region loops cannot take in an instruction, or NULL. */
static const char *unsupported(LLVMValueRef in, bool in_entry)
{
    switch (LLVMGetInstructionOpcode(in)) {
    case LLVMPHI:
        return "a phi node left after reg2mem";
    case LLVMInvoke:
    case LLVMCallBr:
    case LLVMIndirectBr:
        return "an invoke, callbr or indirectbr";
    case LLVMAlloca:
        return in_entry ? NULL : "an alloca outside the entry block";
    default:
        return NULL;
    }
}

int jit_regions_find(jit_regions *rg, LLVMValueRef item, bool kernel, char *msg)
{
    memset(rg, 0, sizeof *rg);
    rg->item = item;
    rg->ctx = LLVMGetParam(item, 0);
    rg->kernel = kernel;
    if (jit_cfg_build(&rg->cfg, item))
        return out_of_memory(msg);
    const jit_cfg *g = &rg->cfg;
    unsigned n = g->nblocks;
    LLVMValueRef barrier_fn = jit_barrier_function(LLVMGetGlobalParent(item));
    rg->barrier = calloc(n + 1, sizeof *rg->barrier);
    rg->resume = calloc(n + 1, sizeof *rg->resume);
    rg->start = calloc(n + 1, sizeof *rg->start);
    rg->site = calloc(n + 1, sizeof *rg->site);
    if (!rg->barrier || !rg->resume || !rg->start || !rg->site)
        return out_of_memory(msg);
    for (unsigned b = 0; b < n; b++)
        for (LLVMValueRef in = LLVMGetFirstInstruction(g->blocks[b]); in; in = LLVMGetNextInstruction(in)) {
            const char *why = unsupported(in, b == 0);
            if (why)
                return decline(msg, why);
            if (jit_barrier_site(barrier_fn, in) < 0)
                continue;
            LLVMValueRef term = LLVMGetNextInstruction(in);
            if (!term || LLVMGetInstructionOpcode(term) != LLVMBr || LLVMIsConditional(term))
                return decline(msg, "a barrier not followed by a branch");
            rg->barrier[b] = in;
        }
    /* resume ids in layout order */
    rg->start[0] = 0;
    rg->site[0] = UINT32_MAX;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(item); bb; bb = LLVMGetNextBasicBlock(bb)) {
        unsigned b = jit_cfg_index(g, bb);
        if (!rg->barrier[b])
            continue;
        rg->resume[b] = ++rg->nresume;
        rg->start[rg->nresume] = jit_cfg_index(g, LLVMGetSuccessor(LLVMGetBasicBlockTerminator(bb), 0));
        rg->site[rg->nresume] = (uint32_t)jit_barrier_site(barrier_fn, rg->barrier[b]);
    }
    /* no barrier call left (specialization made them dead): one region, the
     * whole work-item, run as sub-groups like a barrier-free kernel */
    return 0;
}

void jit_regions_free(jit_regions *rg)
{
    jit_cfg_free(&rg->cfg);
    free(rg->barrier);
    free(rg->resume);
    free(rg->start);
    free(rg->site);
    memset(rg, 0, sizeof *rg);
}

unsigned jit_regions_blocks(const jit_regions *rg, unsigned k, unsigned *list, bool *in_region)
{
    const jit_cfg *g = &rg->cfg;
    unsigned n = 0;
    memset(in_region, 0, g->nblocks * sizeof *in_region);
    list[n++] = rg->start[k];
    in_region[rg->start[k]] = true;
    for (unsigned w = 0; w < n; w++) {
        unsigned b = list[w];
        if (rg->barrier[b])
            continue;
        for (unsigned e = g->succ_off[b]; e < g->succ_off[b + 1]; e++) {
            unsigned s = g->succ[e];
            if (!in_region[s]) {
                in_region[s] = true;
                list[n++] = s;
            }
        }
    }
    return n;
}

/* --- the read-only rule ------------------------------------------------------------------------- */

/* Constant byte offset of `p` from the item function's ctx argument, or -1. */
static long long ctx_offset(const jit_regions *rg, LLVMValueRef p)
{
    if (p == rg->ctx)
        return 0;
    if (!LLVMIsAGetElementPtrInst(p) || LLVMGetOperand(p, 0) != rg->ctx || LLVMGetNumOperands(p) != 2)
        return -1;
    LLVMTypeRef t = LLVMGetGEPSourceElementType(p);
    if (LLVMGetTypeKind(t) != LLVMIntegerTypeKind || LLVMGetIntTypeWidth(t) != 8)
        return -1;
    LLVMValueRef off = LLVMGetOperand(p, 1);
    return LLVMIsAConstantInt(off) ? LLVMConstIntGetSExtValue(off) : -1;
}

/* The ctx field that v was loaded from (its byte offset), or -1. */
static long long ctx_field_of(const jit_regions *rg, LLVMValueRef v)
{
    return v && LLVMIsALoadInst(v) ? ctx_offset(rg, LLVMGetOperand(v, 0)) : -1;
}

bool jit_item_read_only(void *user, const jit_uniformity *u, LLVMValueRef root)
{
    const jit_regions *rg = user;
    if (root == rg->ctx)
        return true;
    long long f = ctx_field_of(rg, root);
    if (f == (long long)offsetof(spvjit_wg_ctx, args) || f == (long long)offsetof(spvjit_wg_ctx, arg_sizes) ||
        f == (long long)offsetof(spvjit_wg_ctx, push_constants) || f == (long long)offsetof(spvjit_wg_ctx, spec_values))
        return true;
    return rg->kernel && LLVMIsALoadInst(root) &&
           ctx_field_of(rg, jit_uniformity_pointer_root(u, LLVMGetOperand(root, 0))) ==
               (long long)offsetof(spvjit_wg_ctx, args);
}
