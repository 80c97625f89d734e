/* jit/group_range.c — the loop over a range of work-groups (see group_range.h). */
#include "group_range.h"

#include <stddef.h>

LLVMValueRef jit_range_function(lower_ctx *c)
{
    LLVMTypeRef p[3] = { c->t_ptr, c->t_i64, c->t_i64 };
    LLVMValueRef fn = LLVMAddFunction(c->mod, JIT_SYM_WG_RANGE, LLVMFunctionType(c->t_void, p, 3, 0));
    jit_add_attr(c, fn, 1, "noalias");
    jit_add_attr(c, fn, LLVMAttributeFunctionIndex, "nounwind");
    /* the whole ctx may be read anywhere: LLVM may then load its fields before
     * the loop over groups, not in it */
    unsigned deref = LLVMGetEnumAttributeKindForName("dereferenceable", 15);
    LLVMAddAttributeAtIndex(fn, 1, LLVMCreateEnumAttribute(c->llc, deref, sizeof(spvjit_wg_ctx)));
    LLVMPositionBuilderAtEnd(c->b, LLVMAppendBasicBlockInContext(c->llc, fn, "entry"));
    return fn;
}

/* ctx->stop, or a constant zero when it is NULL (once per call). */
static LLVMValueRef stop_pointer(lower_ctx *c, LLVMValueRef ctx)
{
    const char *name = "spvjit.never.stop";
    LLVMValueRef never = LLVMGetNamedGlobal(c->mod, name);
    if (!never) {
        never = LLVMAddGlobal(c->mod, c->t_i32, name);
        LLVMSetInitializer(never, LLVMConstInt(c->t_i32, 0, 0));
        LLVMSetGlobalConstant(never, 1);
        LLVMSetLinkage(never, LLVMInternalLinkage);
        LLVMSetAlignment(never, 4);
    }
    LLVMValueRef p = jit_ctx_field(c, ctx, offsetof(spvjit_wg_ctx, stop), c->t_ptr);
    return LLVMBuildSelect(c->b, LLVMBuildIsNull(c->b, p, ""), never, p, "stop.ptr");
}

/* Whether *stop_ptr asks to stop (a relaxed atomic load: another thread sets it). */
static LLVMValueRef stop_requested(lower_ctx *c, LLVMValueRef stop_ptr)
{
    LLVMValueRef s = LLVMBuildLoad2(c->b, c->t_i32, stop_ptr, "stop");
    LLVMSetAlignment(s, 4);
    LLVMSetOrdering(s, LLVMAtomicOrderingMonotonic);
    return LLVMBuildICmp(c->b, LLVMIntNE, s, LLVMConstInt(c->t_i32, 0, 0), "");
}

/* What every group of the call shares: loaded or computed once, at the top. */
typedef struct range_facts {
    LLVMValueRef base[3];      /* i32 base_group */
    LLVMValueRef enq[3];       /* i32 enqueued local size */
    LLVMValueRef last_id[3];   /* i32 num_groups - 1 (sizes vary only) */
    LLVMValueRef last_size[3]; /* i32 size of the last group (sizes vary only) */
    LLVMValueRef stop;         /* ptr to the stop flag */
    bool sizes_vary;           /* Kernel flavour: the last group may be smaller */
} range_facts;

static LLVMValueRef k32(lower_ctx *c, uint64_t v)
{
    return LLVMConstInt(c->t_i32, v, 0);
}

static LLVMValueRef ctx_u32(lower_ctx *c, LLVMValueRef ctx, size_t off, unsigned i)
{
    return jit_ctx_field(c, ctx, off + 4 * i, c->t_i32);
}

static void load_facts(lower_ctx *c, LLVMValueRef ctx, range_facts *f)
{
    f->sizes_vary = c->kernel;
    f->stop = stop_pointer(c, ctx);
    for (unsigned i = 0; i < 3; i++) {
        f->base[i] = ctx_u32(c, ctx, offsetof(spvjit_wg_ctx, base_group), i);
        f->enq[i] =
            c->ls_known ? k32(c, c->local_size[i]) : ctx_u32(c, ctx, offsetof(spvjit_wg_ctx, enqueued_local_size), i);
        if (!f->sizes_vary)
            continue;
        /* the last group holds what the others leave: global - (n - 1) * enqueued */
        LLVMValueRef n = ctx_u32(c, ctx, offsetof(spvjit_wg_ctx, num_groups), i);
        f->last_id[i] = LLVMBuildSub(c->b, n, k32(c, 1), "");
        LLVMValueRef global = jit_ctx_field(c, ctx, offsetof(spvjit_wg_ctx, global_size) + 8 * i, c->t_i64);
        LLVMValueRef before = LLVMBuildMul(c->b, LLVMBuildZExt(c->b, f->last_id[i], c->t_i64, ""),
                                           LLVMBuildZExt(c->b, f->enq[i], c->t_i64, ""), "");
        f->last_size[i] = LLVMBuildTrunc(c->b, LLVMBuildSub(c->b, global, before, ""), c->t_i32, "last.size");
    }
}

/* WorkgroupId and local size in dimension d of the group at grid position g. */
static void place(lower_ctx *c, const range_facts *f, unsigned d, LLVMValueRef g, jit_group *out)
{
    out->id[d] = LLVMBuildAdd(c->b, g, f->base[d], "");
    out->size[d] = f->enq[d];
    if (f->sizes_vary) {
        LLVMValueRef last = LLVMBuildICmp(c->b, LLVMIntEQ, g, f->last_id[d], "");
        out->size[d] = LLVMBuildSelect(c->b, last, f->last_size[d], f->enq[d], "");
    }
}

static LLVMValueRef phi(lower_ctx *c, LLVMTypeRef t, LLVMValueRef v, LLVMBasicBlockRef from, const char *name)
{
    LLVMValueRef p = LLVMBuildPhi(c->b, t, name);
    LLVMAddIncoming(p, &v, &from, 1);
    return p;
}

static void incoming(LLVMValueRef p, LLVMValueRef v, LLVMBasicBlockRef from)
{
    LLVMAddIncoming(p, &v, &from, 1);
}

int jit_emit_group_range(lower_ctx *c, LLVMValueRef fn, jit_range_once_fn once, jit_group_emit_fn emit, void *user)
{
    LLVMValueRef ctx = LLVMGetParam(fn, 0), first = LLVMGetParam(fn, 1), count = LLVMGetParam(fn, 2);
    LLVMBasicBlockRef start = LLVMAppendBasicBlockInContext(c->llc, fn, "range");
    LLVMBasicBlockRef row = LLVMAppendBasicBlockInContext(c->llc, fn, "row");
    LLVMBasicBlockRef group = LLVMAppendBasicBlockInContext(c->llc, fn, "group");
    LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(c->llc, fn, "group.run");
    LLVMBasicBlockRef row_done = LLVMAppendBasicBlockInContext(c->llc, fn, "row.done");
    LLVMBasicBlockRef next_row = LLVMAppendBasicBlockInContext(c->llc, fn, "row.next");
    LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(c->llc, fn, "range.exit");
    LLVMValueRef zero32 = k32(c, 0), one32 = k32(c, 1), one64 = LLVMConstInt(c->t_i64, 1, 0);

    range_facts f;
    load_facts(c, ctx, &f);
    LLVMBuildCondBr(c->b, LLVMBuildICmp(c->b, LLVMIntEQ, count, LLVMConstInt(c->t_i64, 0, 0), ""), exit, start);

    /* where `first` sits in the grid (no division before we know there is a group) */
    LLVMPositionBuilderAtEnd(c->b, start);
    LLVMValueRef nx = LLVMBuildZExt(c->b, ctx_u32(c, ctx, offsetof(spvjit_wg_ctx, num_groups), 0), c->t_i64, "");
    LLVMValueRef ny32 = ctx_u32(c, ctx, offsetof(spvjit_wg_ctx, num_groups), 1);
    LLVMValueRef ny = LLVMBuildZExt(c->b, ny32, c->t_i64, "");
    LLVMValueRef gx0 = LLVMBuildTrunc(c->b, LLVMBuildURem(c->b, first, nx, ""), c->t_i32, "");
    LLVMValueRef q = LLVMBuildUDiv(c->b, first, nx, "");
    LLVMValueRef gy0 = LLVMBuildTrunc(c->b, LLVMBuildURem(c->b, q, ny, ""), c->t_i32, "");
    LLVMValueRef gz0 = LLVMBuildTrunc(c->b, LLVMBuildUDiv(c->b, q, ny, ""), c->t_i32, "");
    LLVMValueRef end = LLVMBuildAdd(c->b, first, count, "end");
    if (once && once(user))
        return -1;
    LLVMBuildBr(c->b, row);

    /* a row: the groups of the range with this y and z */
    LLVMPositionBuilderAtEnd(c->b, row);
    LLVMValueRef g_row = phi(c, c->t_i64, first, start, "g.row");
    LLVMValueRef gx_row = phi(c, c->t_i32, gx0, start, "gx.row");
    LLVMValueRef gy = phi(c, c->t_i32, gy0, start, "gy");
    LLVMValueRef gz = phi(c, c->t_i32, gz0, start, "gz");
    LLVMValueRef in_row = LLVMBuildSub(c->b, nx, LLVMBuildZExt(c->b, gx_row, c->t_i64, ""), "");
    LLVMValueRef left = LLVMBuildSub(c->b, end, g_row, "");
    LLVMValueRef take = LLVMBuildSelect(c->b, LLVMBuildICmp(c->b, LLVMIntULT, in_row, left, ""), in_row, left, "");
    LLVMValueRef row_end = LLVMBuildAdd(c->b, g_row, take, "row.end");
    jit_group g;
    place(c, &f, 1, gy, &g);
    place(c, &f, 2, gz, &g);
    LLVMBuildBr(c->b, group);

    /* a group */
    LLVMPositionBuilderAtEnd(c->b, group);
    LLVMValueRef gi = phi(c, c->t_i64, g_row, row, "g");
    LLVMValueRef gx = phi(c, c->t_i32, gx_row, row, "gx");
    LLVMBuildCondBr(c->b, stop_requested(c, f.stop), exit, run);
    LLVMPositionBuilderAtEnd(c->b, run);
    g.index = gi;
    place(c, &f, 0, gx, &g);
    g.full = NULL;
    if (f.sizes_vary && c->ls_known)
        for (unsigned i = 0; i < 3; i++) {
            LLVMValueRef eq = LLVMBuildICmp(c->b, LLVMIntEQ, g.size[i], k32(c, c->local_size[i]), "");
            g.full = g.full ? LLVMBuildAnd(c->b, g.full, eq, "") : eq;
        }
    if (c->has_wg_init) {
        /* always-inline from now on: the barrier regions' inlining (which would
         * have deleted it once inlined into spvjit_wg_init) is over */
        LLVMValueRef init = LLVMGetNamedFunction(c->mod, JIT_SYM_WG_INIT_BODY);
        jit_add_attr(c, init, LLVMAttributeFunctionIndex, "alwaysinline");
        LLVMBuildCall2(c->b, LLVMGlobalGetValueType(init), init, &ctx, 1, "");
    }
    if (emit(user, &g))
        return -1;
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(c->b);
    LLVMValueRef gi_next = LLVMBuildAdd(c->b, gi, one64, "");
    LLVMValueRef gx_next = LLVMBuildAdd(c->b, gx, one32, "");
    incoming(gi, gi_next, latch);
    incoming(gx, gx_next, latch);
    LLVMBuildCondBr(c->b, LLVMBuildICmp(c->b, LLVMIntEQ, gi_next, row_end, ""), row_done, group);

    /* the next row: x from 0, y + 1 (wrapping into z) */
    LLVMPositionBuilderAtEnd(c->b, row_done);
    LLVMBuildCondBr(c->b, LLVMBuildICmp(c->b, LLVMIntEQ, row_end, end, ""), exit, next_row);
    LLVMPositionBuilderAtEnd(c->b, next_row);
    LLVMValueRef gy1 = LLVMBuildAdd(c->b, gy, one32, "");
    LLVMValueRef wrap = LLVMBuildICmp(c->b, LLVMIntEQ, gy1, ny32, "");
    incoming(g_row, row_end, next_row);
    incoming(gx_row, zero32, next_row);
    incoming(gy, LLVMBuildSelect(c->b, wrap, zero32, gy1, ""), next_row);
    incoming(gz, LLVMBuildAdd(c->b, gz, LLVMBuildZExt(c->b, wrap, c->t_i32, ""), ""), next_row);
    LLVMBuildBr(c->b, row);

    LLVMPositionBuilderAtEnd(c->b, exit);
    return 0;
}
