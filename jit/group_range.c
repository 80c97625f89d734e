/* jit/group_range.c — the loop over a range of work-groups (see group_range.h). */
#include "group_range.h"

#include "poll.h"

#include <stddef.h>

LLVMValueRef jit_range_function(lower_ctx *c)
{
    LLVMTypeRef p[3] = { c->t_ptr, c->t_i64, c->t_i64 };
    LLVMValueRef fn = LLVMAddFunction(c->mod, JIT_SYM_WG_RANGE, LLVMFunctionType(c->t_i64, p, 3, 0));
    jit_add_attr(c, fn, 1, "noalias");
    jit_add_attr(c, fn, LLVMAttributeFunctionIndex, "nounwind");
    /* the whole ctx may be read anywhere: LLVM may then load its fields before
     * the loop over groups, not in it */
    unsigned deref = LLVMGetEnumAttributeKindForName("dereferenceable", 15);
    LLVMAddAttributeAtIndex(fn, 1, LLVMCreateEnumAttribute(c->llc, deref, sizeof(spvjit_wg_ctx)));
    LLVMPositionBuilderAtEnd(c->b, LLVMAppendBasicBlockInContext(c->llc, fn, "entry"));
    return fn;
}

/* What every group of the call shares: loaded or computed once, at the top. */
typedef struct range_facts {
    LLVMValueRef ctx;
    LLVMValueRef base[3];      /* i32 base_group */
    LLVMValueRef enq[3];       /* i32 enqueued local size */
    LLVMValueRef last_id[3];   /* i32 num_groups - 1 (sizes vary only) */
    LLVMValueRef last_size[3]; /* i32 size of the last group (sizes vary only) */
    LLVMValueRef full_x;       /* i32 groups at the start of a row that are full in x (two kinds only) */
    LLVMValueRef stop;         /* ptr to the stop flag */
    bool varies[3];            /* Kernel flavour: the last group of dimension d may be smaller
                                  (not when the local size there is 1) */
    bool two_kinds;            /* ... and the local size is known: full groups get constant sizes */
    LLVMValueRef proof;        /* JIT_SYM_PROOF, or NULL */
    LLVMValueRef all_proven;   /* i1: the proof holds for a box holding every group of the call */
    LLVMValueRef first;        /* i64 the range's first group */
    unsigned parts;            /* > 0: groups of constant sizes run in bands (jit_emit_group_range) */
    jit_group_emit_fn emit;
    void *user;
    LLVMBasicBlockRef exit;
} range_facts;

static LLVMValueRef k32(lower_ctx *c, uint64_t v)
{
    return LLVMConstInt(c->t_i32, v, 0);
}

static LLVMValueRef ctx_u32(lower_ctx *c, LLVMValueRef ctx, size_t off, unsigned i)
{
    return jit_ctx_field(c, ctx, off + 4 * i, c->t_i32);
}

static LLVMValueRef umin(lower_ctx *c, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildSelect(c->b, LLVMBuildICmp(c->b, LLVMIntULT, a, b, ""), a, b, "");
}

static bool size_varies(lower_ctx *c, unsigned d)
{
    return c->kernel && !(c->ls_known && c->local_size[d] == 1);
}

bool jit_group_sizes_vary(lower_ctx *c)
{
    return size_varies(c, 0) || size_varies(c, 1) || size_varies(c, 2);
}

static void load_facts(lower_ctx *c, LLVMValueRef ctx, range_facts *f)
{
    f->ctx = ctx;
    f->two_kinds = false;
    f->stop = jit_stop_flag(c->b, c->mod, jit_stop_field(c->b, ctx));
    for (unsigned i = 0; i < 3; i++) {
        f->base[i] = ctx_u32(c, ctx, offsetof(spvjit_wg_ctx, base_group), i);
        f->enq[i] =
            c->ls_known ? k32(c, c->local_size[i]) : ctx_u32(c, ctx, offsetof(spvjit_wg_ctx, enqueued_local_size), i);
        f->varies[i] = size_varies(c, i);
        f->two_kinds |= f->varies[i] && c->ls_known;
        if (!f->varies[i])
            continue;
        /* the last group holds what the others leave: global - (n - 1) * enqueued */
        LLVMValueRef n = ctx_u32(c, ctx, offsetof(spvjit_wg_ctx, num_groups), i);
        f->last_id[i] = LLVMBuildSub(c->b, n, k32(c, 1), "");
        LLVMValueRef global = jit_ctx_field(c, ctx, offsetof(spvjit_wg_ctx, global_size) + 8 * i, c->t_i64);
        LLVMValueRef before = LLVMBuildMul(c->b, LLVMBuildZExt(c->b, f->last_id[i], c->t_i64, ""),
                                           LLVMBuildZExt(c->b, f->enq[i], c->t_i64, ""), "");
        f->last_size[i] = LLVMBuildTrunc(c->b, LLVMBuildSub(c->b, global, before, ""), c->t_i32, "last.size");
    }
    if (f->two_kinds) {
        LLVMValueRef nx = ctx_u32(c, ctx, offsetof(spvjit_wg_ctx, num_groups), 0);
        LLVMValueRef last_full =
            f->varies[0] ? LLVMBuildICmp(c->b, LLVMIntEQ, f->last_size[0], f->enq[0], "") : LLVMConstInt(c->t_i1, 1, 0);
        f->full_x = f->varies[0] ? LLVMBuildSelect(c->b, last_full, nx, f->last_id[0], "full.x") : nx;
    }
}

/* WorkgroupId and local size in dimension d of the group at grid position g
 * (`full`: it has the compile-time size). */
static void place(lower_ctx *c, const range_facts *f, unsigned d, LLVMValueRef g, bool full, jit_group *out)
{
    out->id[d] = LLVMBuildAdd(c->b, g, f->base[d], "");
    out->size[d] = f->enq[d];
    if (f->varies[d] && !full) {
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

/* The proof (JIT_SYM_PROOF) for the box of WorkgroupIds [lo, hi]. */
static LLVMValueRef prove(lower_ctx *c, const range_facts *f, LLVMValueRef const *lo, LLVMValueRef const *hi)
{
    LLVMValueRef a[7] = { f->ctx, lo[0], lo[1], lo[2], hi[0], hi[1], hi[2] };
    return LLVMBuildCall2(c->b, LLVMGlobalGetValueType(f->proof), f->proof, a, 7, "proven");
}

/* At c->b: the proof for group g alone (WorkgroupId id), on to `go` where
 * it holds; else the call returns how many groups ran before g (jit/abi.h:
 * the executor runs g on checked code). */
static void prove_or_hand_back(lower_ctx *c, LLVMValueRef fn, const range_facts *f, LLVMValueRef const *id,
                               LLVMValueRef g, LLVMBasicBlockRef go)
{
    LLVMBasicBlockRef back = LLVMAppendBasicBlockInContext(c->llc, fn, "group.unproven");
    LLVMBuildCondBr(c->b, prove(c, f, id, id), go, back);
    LLVMPositionBuilderAtEnd(c->b, back);
    LLVMBuildRet(c->b, LLVMBuildSub(c->b, g, f->first, "handed"));
}

/* Whether the proof holds for a box of WorkgroupIds holding the groups
 * [first, end) of the grid (nx, ny groups in x, y), the first at y gy0, z
 * gz0: asked once, where the call spans more than one row (else the row's
 * own proof is the same question); false otherwise or where it fails, and
 * each row is asked then.  A row costs a proof as much as it costs a few of
 * its groups when groups are small (a 16 x 16 stencil tile). */
static LLVMValueRef prove_call_box(lower_ctx *c, range_facts *f, LLVMValueRef first, LLVMValueRef end, LLVMValueRef nx,
                                   LLVMValueRef ny, LLVMValueRef gy0, LLVMValueRef gz0)
{
    LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(c->b));
    LLVMValueRef last = LLVMBuildSub(c->b, end, LLVMConstInt(c->t_i64, 1, 0), "");
    LLVMValueRef q_last = LLVMBuildUDiv(c->b, last, nx, "");
    LLVMValueRef rows = LLVMBuildICmp(c->b, LLVMIntNE, LLVMBuildUDiv(c->b, first, nx, ""), q_last, "");
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(c->b);
    LLVMBasicBlockRef ask = LLVMAppendBasicBlockInContext(c->llc, fn, "call.proof");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c->llc, fn, "call.proven");
    LLVMBuildCondBr(c->b, rows, ask, done);
    LLVMPositionBuilderAtEnd(c->b, ask);
    /* x: the whole row; y: the rows between, all of them where z changes too */
    LLVMValueRef gy_last = LLVMBuildTrunc(c->b, LLVMBuildURem(c->b, q_last, ny, ""), c->t_i32, "");
    LLVMValueRef gz_last = LLVMBuildTrunc(c->b, LLVMBuildUDiv(c->b, q_last, ny, ""), c->t_i32, "");
    LLVMValueRef one_z = LLVMBuildICmp(c->b, LLVMIntEQ, gz0, gz_last, "");
    LLVMValueRef y_lo = LLVMBuildSelect(c->b, one_z, gy0, k32(c, 0), "");
    LLVMValueRef y_hi = LLVMBuildSelect(c->b, one_z, gy_last,
                                        LLVMBuildSub(c->b, LLVMBuildTrunc(c->b, ny, c->t_i32, ""), k32(c, 1), ""), "");
    LLVMValueRef lo[3] = { f->base[0], LLVMBuildAdd(c->b, y_lo, f->base[1], ""),
                           LLVMBuildAdd(c->b, gz0, f->base[2], "") };
    LLVMValueRef hi[3] = { LLVMBuildAdd(c->b, LLVMBuildSub(c->b, LLVMBuildTrunc(c->b, nx, c->t_i32, ""), k32(c, 1), ""),
                                        f->base[0], ""),
                           LLVMBuildAdd(c->b, y_hi, f->base[1], ""), LLVMBuildAdd(c->b, gz_last, f->base[2], "") };
    LLVMValueRef held = prove(c, f, lo, hi);
    LLVMBuildBr(c->b, done);
    LLVMPositionBuilderAtEnd(c->b, done);
    LLVMValueRef r = LLVMBuildPhi(c->b, c->t_i1, "call.proven");
    LLVMAddIncoming(r, (LLVMValueRef[]){ LLVMConstInt(c->t_i1, 0, 0), held }, (LLVMBasicBlockRef[]){ pre, ask }, 2);
    return r;
}

/* group_loop's groups in bands (f->parts > 0, constant sizes): segments
 * [s, e) of the row's groups, each run part by part — part 0 of every group
 * of the segment, then part 1, ... — with the stop test before each part.
 * A segment is the rest of the row where the row's (or the call's) proof
 * holds, else one group, proven on its own or handed back; a one-group
 * segment runs its parts in the order of the whole-group loop.  The code of
 * a part is emitted once.  `head` and `after` are group_loop's blocks, c->b
 * the block that branches to `head` (row_ok: its proven_end, or NULL). */
static int band_loop(lower_ctx *c, LLVMValueRef fn, const range_facts *f, const jit_group *row, LLVMValueRef begin,
                     LLVMValueRef end, LLVMValueRef gx_begin, LLVMValueRef row_ok, LLVMBasicBlockRef head,
                     LLVMBasicBlockRef after)
{
    LLVMValueRef one64 = LLVMConstInt(c->t_i64, 1, 0);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(c->b);
    LLVMPositionBuilderAtEnd(c->b, head); /* a segment from s */
    LLVMValueRef s = phi(c, c->t_i64, begin, pre, "seg");
    LLVMValueRef gx_s = phi(c, c->t_i32, gx_begin, pre, "seg.gx");
    LLVMValueRef seg_end = end;
    if (row_ok) {
        LLVMBasicBlockRef rest = LLVMAppendBasicBlockInContext(c->llc, fn, "seg.rest");
        LLVMBasicBlockRef one = LLVMAppendBasicBlockInContext(c->llc, fn, "group.proof");
        LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(c->llc, fn, "seg.go");
        LLVMBuildCondBr(c->b, LLVMBuildICmp(c->b, LLVMIntULT, s, row_ok, ""), rest, one);
        LLVMPositionBuilderAtEnd(c->b, rest);
        LLVMBuildBr(c->b, go);
        LLVMPositionBuilderAtEnd(c->b, one);
        jit_group g = *row;
        place(c, f, 0, gx_s, true, &g);
        LLVMValueRef next = LLVMBuildAdd(c->b, s, one64, "");
        prove_or_hand_back(c, fn, f, g.id, s, go);
        LLVMPositionBuilderAtEnd(c->b, go);
        seg_end = LLVMBuildPhi(c->b, c->t_i64, "seg.end");
        LLVMAddIncoming(seg_end, (LLVMValueRef[]){ end, next }, (LLVMBasicBlockRef[]){ rest, one }, 2);
    }
    /* for each part: the stop test, then the part of every group of the segment */
    LLVMBasicBlockRef part_head = LLVMAppendBasicBlockInContext(c->llc, fn, "band.part");
    LLVMBasicBlockRef part_run = LLVMAppendBasicBlockInContext(c->llc, fn, "band");
    LLVMBasicBlockRef seg_next = LLVMAppendBasicBlockInContext(c->llc, fn, "seg.next");
    LLVMBasicBlockRef seg_pre = LLVMGetInsertBlock(c->b);
    LLVMBuildBr(c->b, part_head);
    LLVMPositionBuilderAtEnd(c->b, part_head);
    LLVMValueRef part = phi(c, c->t_i32, k32(c, 0), seg_pre, "part");
    LLVMBuildCondBr(c->b, jit_stop_requested(c->b, f->stop), f->exit, part_run);
    LLVMPositionBuilderAtEnd(c->b, part_run);
    LLVMValueRef gi = phi(c, c->t_i64, s, part_head, "g");
    LLVMValueRef gx = phi(c, c->t_i32, gx_s, part_head, "gx");
    jit_group g = *row;
    g.index = gi;
    g.part = part;
    place(c, f, 0, gx, true, &g);
    for (unsigned d = 1; d < 3; d++)
        g.size[d] = f->enq[d];
    if (f->emit(f->user, &g))
        return -1;
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(c->b);
    LLVMValueRef gi_next = LLVMBuildAdd(c->b, gi, one64, "");
    incoming(gi, gi_next, latch);
    incoming(gx, LLVMBuildAdd(c->b, gx, k32(c, 1), ""), latch);
    LLVMBasicBlockRef part_done = LLVMAppendBasicBlockInContext(c->llc, fn, "band.done");
    jit_no_unroll(c, LLVMBuildCondBr(c->b, LLVMBuildICmp(c->b, LLVMIntEQ, gi_next, seg_end, ""), part_done, part_run));
    LLVMPositionBuilderAtEnd(c->b, part_done);
    LLVMValueRef part_next = LLVMBuildAdd(c->b, part, k32(c, 1), "");
    incoming(part, part_next, part_done);
    jit_no_unroll(c, LLVMBuildCondBr(c->b, LLVMBuildICmp(c->b, LLVMIntEQ, part_next, k32(c, f->parts), ""), seg_next,
                                     part_head));
    LLVMPositionBuilderAtEnd(c->b, seg_next);
    incoming(s, seg_end, seg_next);
    incoming(gx_s, LLVMBuildAdd(c->b, gx_s, LLVMBuildTrunc(c->b, LLVMBuildSub(c->b, seg_end, s, ""), c->t_i32, ""), ""),
             seg_next);
    jit_no_unroll(c, LLVMBuildCondBr(c->b, LLVMBuildICmp(c->b, LLVMIntEQ, seg_end, end, ""), after, head));
    LLVMPositionBuilderAtEnd(c->b, after);
    return 0;
}

/* The groups [begin, end) of a row (y, z in row), x from gx: a loop whose
 * body is the stop test, the group's ids and size, its Workgroup
 * initializers and emit().  `full`: every one has the compile-time size
 * (constant sizes).  Leaves c->b after the loop. */
static int group_loop(lower_ctx *c, LLVMValueRef fn, const range_facts *f, const jit_group *row, LLVMValueRef begin,
                      LLVMValueRef end, LLVMValueRef gx_begin, bool full)
{
    LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(c->llc, fn, full ? "group.full" : "group");
    LLVMBasicBlockRef after = LLVMAppendBasicBlockInContext(c->llc, fn, "groups.done");
    /* the groups' sizes are the constant compile-time ones: the proof decides
     * which run here, once for the row's groups, else per group; bands */
    bool constant = true;
    for (unsigned d = 0; d < 3; d++)
        constant &= (full || !f->varies[d]) && LLVMIsAConstantInt(f->enq[d]);
    LLVMValueRef row_ok = NULL; /* i64 proven_end */
    if (f->proof && constant) {
        LLVMBasicBlockRef box = LLVMAppendBasicBlockInContext(c->llc, fn, "row.proof");
        LLVMBuildCondBr(c->b, LLVMBuildICmp(c->b, LLVMIntULT, begin, end, ""), box, after);
        LLVMPositionBuilderAtEnd(c->b, box);
        LLVMValueRef last =
            LLVMBuildTrunc(c->b,
                           LLVMBuildSub(c->b, LLVMBuildSub(c->b, end, begin, ""), LLVMConstInt(c->t_i64, 1, 0), ""),
                           c->t_i32, "");
        LLVMValueRef lo[3] = { LLVMBuildAdd(c->b, gx_begin, f->base[0], ""), row->id[1], row->id[2] };
        LLVMValueRef hi[3] = { LLVMBuildAdd(c->b, lo[0], last, ""), row->id[1], row->id[2] };
        /* the groups before proven_end need no proof of their own: a bound,
         * not a flag, which LLVM would unswitch the loop on (a second copy of
         * the group's code); none when the call's box was proven */
        LLVMBasicBlockRef ask = LLVMAppendBasicBlockInContext(c->llc, fn, "row.ask");
        LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(c->llc, fn, "row.go");
        LLVMBuildCondBr(c->b, f->all_proven, go, ask);
        LLVMPositionBuilderAtEnd(c->b, ask);
        LLVMValueRef asked = LLVMBuildSelect(c->b, prove(c, f, lo, hi), end, begin, "");
        LLVMBuildBr(c->b, go);
        LLVMPositionBuilderAtEnd(c->b, go);
        row_ok = LLVMBuildPhi(c->b, c->t_i64, "proven.end");
        LLVMAddIncoming(row_ok, (LLVMValueRef[]){ end, asked }, (LLVMBasicBlockRef[]){ box, ask }, 2);
        LLVMBuildBr(c->b, head);
    } else {
        LLVMBuildCondBr(c->b, LLVMBuildICmp(c->b, LLVMIntULT, begin, end, ""), head, after);
    }
    if (f->parts && constant)
        return band_loop(c, fn, f, row, begin, end, gx_begin, row_ok, head, after);
    LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(c->llc, fn, "group.run");
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(c->b);

    LLVMPositionBuilderAtEnd(c->b, head);
    LLVMValueRef gi = phi(c, c->t_i64, begin, pre, "g");
    LLVMValueRef gx = phi(c, c->t_i32, gx_begin, pre, "gx");
    LLVMBuildCondBr(c->b, jit_stop_requested(c->b, f->stop), f->exit, run);
    LLVMPositionBuilderAtEnd(c->b, run);
    jit_group g = *row;
    g.index = gi;
    place(c, f, 0, gx, full, &g);
    if (full)
        for (unsigned d = 1; d < 3; d++)
            g.size[d] = f->enq[d];
    if (row_ok) {
        /* a group whose checks cannot be proven goes back to the executor (jit/abi.h) */
        LLVMBasicBlockRef one = LLVMAppendBasicBlockInContext(c->llc, fn, "group.proof");
        LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(c->llc, fn, "group.proven");
        LLVMBuildCondBr(c->b, LLVMBuildICmp(c->b, LLVMIntULT, gi, row_ok, ""), go, one);
        LLVMPositionBuilderAtEnd(c->b, one);
        prove_or_hand_back(c, fn, f, g.id, gi, go);
        LLVMPositionBuilderAtEnd(c->b, go);
    }
    if (c->has_wg_init) {
        /* always-inline from now on: the barrier regions' inlining (which would
         * have deleted it once inlined into spvjit_wg_init) is over */
        LLVMValueRef init = LLVMGetNamedFunction(c->mod, JIT_SYM_WG_INIT_BODY);
        jit_add_attr(c, init, LLVMAttributeFunctionIndex, "alwaysinline");
        LLVMValueRef ctx = f->ctx;
        LLVMBuildCall2(c->b, LLVMGlobalGetValueType(init), init, &ctx, 1, "");
    }
    if (f->emit(f->user, &g))
        return -1;
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(c->b);
    LLVMValueRef gi_next = LLVMBuildAdd(c->b, gi, LLVMConstInt(c->t_i64, 1, 0), "");
    incoming(gi, gi_next, latch);
    incoming(gx, LLVMBuildAdd(c->b, gx, k32(c, 1), ""), latch);
    jit_no_unroll(c, LLVMBuildCondBr(c->b, LLVMBuildICmp(c->b, LLVMIntEQ, gi_next, end, ""), after, head));
    LLVMPositionBuilderAtEnd(c->b, after);
    return 0;
}

int jit_emit_group_range(lower_ctx *c, LLVMValueRef fn, jit_group_emit_fn emit, void *user, LLVMValueRef proof,
                         unsigned parts)
{
    LLVMValueRef ctx = LLVMGetParam(fn, 0), first = LLVMGetParam(fn, 1), count = LLVMGetParam(fn, 2);
    LLVMBasicBlockRef start = LLVMAppendBasicBlockInContext(c->llc, fn, "range");
    LLVMBasicBlockRef row = LLVMAppendBasicBlockInContext(c->llc, fn, "row");
    LLVMBasicBlockRef next_row = LLVMAppendBasicBlockInContext(c->llc, fn, "row.next");
    LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(c->llc, fn, "range.exit");
    LLVMValueRef zero32 = k32(c, 0);

    range_facts f = { .emit = emit, .user = user, .exit = exit, .proof = proof, .first = first, .parts = parts };
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
    if (proof)
        f.all_proven = prove_call_box(c, &f, first, end, nx, ny, gy0, gz0);
    LLVMBasicBlockRef entered = LLVMGetInsertBlock(c->b);
    LLVMBuildBr(c->b, row);

    /* a row: the groups of the range with this y and z */
    LLVMPositionBuilderAtEnd(c->b, row);
    LLVMValueRef g_row = phi(c, c->t_i64, first, entered, "g.row");
    LLVMValueRef gx_row = phi(c, c->t_i32, gx0, entered, "gx.row");
    LLVMValueRef gy = phi(c, c->t_i32, gy0, entered, "gy");
    LLVMValueRef gz = phi(c, c->t_i32, gz0, entered, "gz");
    LLVMValueRef row_end = LLVMBuildAdd(c->b, g_row,
                                        umin(c, LLVMBuildSub(c->b, nx, LLVMBuildZExt(c->b, gx_row, c->t_i64, ""), ""),
                                             LLVMBuildSub(c->b, end, g_row, "")),
                                        "row.end");
    jit_group g = { 0 };
    place(c, &f, 1, gy, false, &g);
    place(c, &f, 2, gz, false, &g);
    int rc;
    if (f.two_kinds) {
        /* full groups (constant sizes) first, the rest of the row (the last x,
         * or all of a row that is smaller in y or z) with their own sizes: one
         * copy of each, and no test inside the loops to unswitch */
        LLVMValueRef row_full = LLVMBuildAnd(c->b, LLVMBuildICmp(c->b, LLVMIntEQ, g.size[1], f.enq[1], ""),
                                             LLVMBuildICmp(c->b, LLVMIntEQ, g.size[2], f.enq[2], ""), "row.full");
        /* (constants fold: a 1-D kernel's rows are all full) */
        LLVMValueRef full_left = LLVMBuildSelect(c->b, LLVMBuildICmp(c->b, LLVMIntULT, gx_row, f.full_x, ""),
                                                 LLVMBuildSub(c->b, f.full_x, gx_row, ""), zero32, "");
        LLVMValueRef full_end =
            LLVMBuildAdd(c->b, g_row,
                         umin(c,
                              LLVMBuildZExt(c->b, LLVMBuildSelect(c->b, row_full, full_left, zero32, ""), c->t_i64, ""),
                              LLVMBuildSub(c->b, row_end, g_row, "")),
                         "full.end");
        LLVMValueRef gx_rest =
            LLVMBuildAdd(c->b, gx_row, LLVMBuildTrunc(c->b, LLVMBuildSub(c->b, full_end, g_row, ""), c->t_i32, ""), "");
        rc = group_loop(c, fn, &f, &g, g_row, full_end, gx_row, true);
        rc = rc ? rc : group_loop(c, fn, &f, &g, full_end, row_end, gx_rest, false);
    } else {
        rc = group_loop(c, fn, &f, &g, g_row, row_end, gx_row, false);
    }
    if (rc)
        return -1;

    /* the next row: x from 0, y + 1 (wrapping into z) */
    LLVMBuildCondBr(c->b, LLVMBuildICmp(c->b, LLVMIntEQ, row_end, end, ""), exit, next_row);
    LLVMPositionBuilderAtEnd(c->b, next_row);
    LLVMValueRef gy1 = LLVMBuildAdd(c->b, gy, k32(c, 1), "");
    LLVMValueRef wrap = LLVMBuildICmp(c->b, LLVMIntEQ, gy1, ny32, "");
    incoming(g_row, row_end, next_row);
    incoming(gx_row, zero32, next_row);
    incoming(gy, LLVMBuildSelect(c->b, wrap, zero32, gy1, ""), next_row);
    incoming(gz, LLVMBuildAdd(c->b, gz, LLVMBuildZExt(c->b, wrap, c->t_i32, ""), ""), next_row);
    jit_no_unroll(c, LLVMBuildBr(c->b, row));

    LLVMPositionBuilderAtEnd(c->b, exit);
    LLVMBuildRet(c->b, count);
    return 0;
}
