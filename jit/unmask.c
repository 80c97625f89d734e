/* jit/unmask.c — masked accesses whose lanes are all active, unmasked (see unmask.h). */
#include "unmask.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "llvm_facts.h"
#include "util/array.h"

enum { MAX_DEPTH = 6 }; /* nots, ands and ors around the compares */

/* The integer every lane of vector v holds (the insert-and-shuffle a splat
 * is, or a constant), else NULL. */
static LLVMValueRef splat_of(LLVMValueRef v)
{
    LLVMTypeRef t = LLVMTypeOf(v);
    if (LLVMGetTypeKind(t) != LLVMVectorTypeKind)
        return NULL;
    unsigned n = LLVMGetVectorSize(t);
    if (LLVMIsAConstant(v)) {
        LLVMValueRef e0 = LLVMGetAggregateElement(v, 0);
        if (!e0 || !LLVMIsAConstantInt(e0))
            return NULL;
        for (unsigned i = 1; i < n; i++)
            if (LLVMGetAggregateElement(v, i) != e0)
                return NULL;
        return e0;
    }
    if (!LLVMIsAShuffleVectorInst(v) || LLVMGetNumMaskElements(v) != n)
        return NULL;
    for (unsigned i = 0; i < n; i++)
        if (LLVMGetMaskValue(v, i) != 0)
            return NULL;
    LLVMValueRef ins = LLVMGetOperand(v, 0), at = LLVMIsAInsertElementInst(ins) ? LLVMGetOperand(ins, 2) : NULL;
    return at && LLVMIsAConstantInt(at) && LLVMConstIntGetZExtValue(at) == 0 ? LLVMGetOperand(ins, 1) : NULL;
}

/* Whether c is a vector of integer constants of at most 64 bits (no poison),
 * all non-negative as signed numbers when `nonneg`. */
static bool const_lanes(LLVMValueRef c, bool nonneg)
{
    LLVMTypeRef t = LLVMTypeOf(c);
    if (!LLVMIsAConstant(c) || LLVMGetTypeKind(t) != LLVMVectorTypeKind ||
        LLVMGetTypeKind(LLVMGetElementType(t)) != LLVMIntegerTypeKind ||
        LLVMGetIntTypeWidth(LLVMGetElementType(t)) > 64)
        return false;
    for (unsigned i = 0, n = LLVMGetVectorSize(t); i < n; i++) {
        LLVMValueRef e = LLVMGetAggregateElement(c, i);
        if (!e || !LLVMIsAConstantInt(e) || (nonneg && LLVMConstIntGetSExtValue(e) < 0))
            return false;
    }
    return true;
}

/* Lane l of v is x + off[l] with no wrap: as unsigned numbers (*u), as
 * signed ones (*s).  An `or disjoint` adds without a carry: unsigned, and
 * signed where no offset has the sign bit; an add says by its nuw and nsw. */
static bool lanes_of(LLVMValueRef v, LLVMValueRef *x, LLVMValueRef *off, bool *u, bool *s)
{
    LLVMOpcode op = LLVMIsAInstruction(v) ? LLVMGetInstructionOpcode(v) : LLVMRet;
    if (op != LLVMOr && op != LLVMAdd)
        return false;
    for (unsigned k = 0; k < 2; k++) {
        LLVMValueRef sx = splat_of(LLVMGetOperand(v, k)), c = LLVMGetOperand(v, 1 - k);
        if (!sx || !const_lanes(c, false))
            continue;
        if (op == LLVMOr) {
            if (!LLVMGetIsDisjoint(v))
                return false;
            *u = true;
            *s = const_lanes(c, true);
        } else {
            *u = LLVMGetNUW(v);
            *s = LLVMGetNSW(v);
        }
        *x = sx;
        *off = c;
        return true;
    }
    return false;
}

/* The offset of off's lane with the largest (`max`) or smallest value, as
 * signed or unsigned numbers. */
static LLVMValueRef extreme(LLVMValueRef off, bool is_signed, bool max)
{
    LLVMValueRef best = LLVMGetAggregateElement(off, 0);
    for (unsigned i = 1, n = LLVMGetVectorSize(LLVMTypeOf(off)); i < n; i++) {
        LLVMValueRef e = LLVMGetAggregateElement(off, i);
        int64_t se = LLVMConstIntGetSExtValue(e), sb = LLVMConstIntGetSExtValue(best);
        uint64_t ue = LLVMConstIntGetZExtValue(e), ub = LLVMConstIntGetZExtValue(best);
        if (is_signed ? (max ? se > sb : se < sb) : (max ? ue > ub : ue < ub))
            best = e;
    }
    return best;
}

/* Whether c is a constant with every bit set (a vector of true). */
static bool all_ones(LLVMValueRef c)
{
    LLVMValueRef e = LLVMIsAConstant(c) ? splat_of(c) : NULL;
    return e && LLVMConstIntGetZExtValue(e) == 1 && LLVMGetIntTypeWidth(LLVMTypeOf(e)) == 1;
}

/* Whether shuffle m takes every lane of its result from its first operand
 * (none poison, none from the second): when every lane of that one is set
 * (or clear), so is every lane of m (simd_memory.c's mask of a row of
 * vectors, each lane's bit repeated). */
static bool lanes_repeated(LLVMValueRef m)
{
    unsigned from = LLVMGetVectorSize(LLVMTypeOf(LLVMGetOperand(m, 0)));
    for (unsigned i = 0, n = LLVMGetNumMaskElements(m); i < n; i++) {
        int k = LLVMGetMaskValue(m, i);
        if (k < 0 || (unsigned)k >= from)
            return false;
    }
    return true;
}

/* i1: every lane of mask m is `set` (true: all lanes active; false: none),
 * built at b; NULL when m's form does not say.  b NULL: only whether it
 * would (m itself, or NULL).  A pair combines by select, false: the second
 * of a `select p, q, false` may be poison where p is false. */
static LLVMValueRef lanes_all(LLVMBuilderRef b, LLVMValueRef m, bool set, unsigned depth)
{
    LLVMOpcode op = LLVMIsAInstruction(m) ? LLVMGetInstructionOpcode(m) : LLVMRet;
    if (depth >= MAX_DEPTH)
        return NULL;
    if (op == LLVMXor && (all_ones(LLVMGetOperand(m, 0)) || all_ones(LLVMGetOperand(m, 1)))) /* not */
        return lanes_all(b, LLVMGetOperand(m, all_ones(LLVMGetOperand(m, 0))), !set, depth + 1);
    bool sel = op == LLVMSelect;
    bool both_set = set && (op == LLVMAnd || (sel && LLVMIsNull(LLVMGetOperand(m, 2)))); /* p && q */
    bool both_clear = !set && (op == LLVMOr || (sel && all_ones(LLVMGetOperand(m, 1)))); /* p || q */
    if (both_set || both_clear) {
        LLVMValueRef p = LLVMGetOperand(m, 0), q = LLVMGetOperand(m, sel && both_clear ? 2 : 1);
        if (!lanes_all(NULL, p, set, depth + 1) || !lanes_all(NULL, q, set, depth + 1))
            return NULL;
        if (!b)
            return m;
        LLVMValueRef tp = lanes_all(b, p, set, depth + 1), tq = lanes_all(b, q, set, depth + 1);
        return LLVMBuildSelect(b, tp, tq, LLVMConstNull(LLVMTypeOf(tp)), "lanes.all");
    }
    LLVMValueRef c = op == LLVMShuffleVector ? splat_of(m) : NULL; /* a uniform condition */
    if (c && LLVMTypeOf(c) == LLVMInt1TypeInContext(LLVMGetTypeContext(LLVMTypeOf(m))))
        return !b ? m : set ? c : LLVMBuildNot(b, c, "lanes.all");
    if (op == LLVMShuffleVector && lanes_repeated(m)) /* each lane's bit n times: a vector per lane in a row */
        return lanes_all(b, LLVMGetOperand(m, 0), set, depth + 1);
    if (op != LLVMICmp)
        return NULL;
    LLVMIntPredicate pred = set ? LLVMGetICmpPredicate(m) : jit_icmp_inverse(LLVMGetICmpPredicate(m));
    LLVMValueRef l = LLVMGetOperand(m, 0), r = LLVMGetOperand(m, 1), x, off, y;
    bool u, s;
    if (!lanes_of(l, &x, &off, &u, &s)) {
        LLVMValueRef t = l;
        l = r;
        r = t;
        pred = jit_icmp_swapped(pred);
        if (!lanes_of(l, &x, &off, &u, &s))
            return NULL;
    }
    if (!(y = splat_of(r)))
        return NULL;
    bool is_signed = false,
         max = false; /* the lane that decides: the largest for < and <=, the smallest for > and >= */
    switch (pred) {
    case LLVMIntULT:
    case LLVMIntULE:
        max = true;
        /* fall through */
    case LLVMIntUGT:
    case LLVMIntUGE:
        break;
    case LLVMIntSLT:
    case LLVMIntSLE:
        max = true;
        /* fall through */
    case LLVMIntSGT:
    case LLVMIntSGE:
        is_signed = true;
        break;
    default:
        return NULL;
    }
    /* lanes that might wrap (an OpenCL C id in 32 bits: an add without nuw)
     * keep their order where the largest does not: tested too, when every
     * offset is at least 0 */
    bool wraps = is_signed ? !s : !u;
    if (wraps && !const_lanes(off, true))
        return NULL;
    if (!b)
        return m;
    LLVMValueRef k = extreme(off, is_signed, max);
    LLVMValueRef lane = LLVMIsNull(k) ? x : LLVMBuildAdd(b, x, k, "lane.extreme");
    LLVMValueRef all = LLVMBuildICmp(b, pred, lane, y, "lanes.all");
    if (!wraps)
        return all;
    LLVMTypeRef t = LLVMTypeOf(x);
    unsigned bits = LLVMGetIntTypeWidth(t);
    uint64_t top = bits >= 64 ? ~0ull : (1ull << bits) - 1; /* the largest value, unsigned */
    if (is_signed)
        top >>= 1;
    uint64_t kmax = LLVMConstIntGetZExtValue(extreme(off, is_signed, true));
    LLVMValueRef no_wrap =
        LLVMBuildICmp(b, is_signed ? LLVMIntSLE : LLVMIntULE, x, LLVMConstInt(t, top - kmax, 0), "lanes.no.wrap");
    return LLVMBuildSelect(b, no_wrap, all, LLVMConstNull(LLVMTypeOf(all)), "lanes.all");
}

/* The mask of a masked load or store (*is_load which), else NULL; gathers
 * and scatters are lane_redirect.c's. */
static LLVMValueRef access_mask(LLVMValueRef in, bool *is_load)
{
    jit_masked_op k = jit_masked_op_of(in);
    *is_load = k == JIT_MASKED_LOAD;
    return k == JIT_MASKED_LOAD || k == JIT_MASKED_STORE ? LLVMGetOperand(in, jit_masked_ptr_at(k) + 2) : NULL;
}

/* Whether mask m is computed for one access alone (unmask.h). */
static bool own_mask(LLVMValueRef m)
{
    LLVMUseRef use = LLVMGetFirstUse(m);
    return use && !LLVMGetNextUse(use);
}

/* Moves v, when it is a side-effect-free instruction of `from` whose one use
 * is `user`, before user, and its operands likewise: the mask is computed
 * only on the path that needs it. */
static void sink(LLVMBuilderRef b, LLVMValueRef v, LLVMValueRef user, LLVMBasicBlockRef from)
{
    LLVMUseRef use = LLVMIsAInstruction(v) ? LLVMGetFirstUse(v) : NULL;
    if (!use || LLVMGetNextUse(use) || LLVMGetUser(use) != user || LLVMIsAPHINode(v) ||
        LLVMGetInstructionParent(v) != from || !jit_inst_never_traps(v))
        return;
    LLVMPositionBuilderBefore(b, user);
    jit_move_inst(b, v);
    for (int i = 0, n = LLVMGetNumOperands(v); i < n; i++)
        sink(b, LLVMGetOperand(v, i), v, from);
}

/* The copies of a range's instructions, in order. */
typedef struct copies {
    LLVMValueRef *from, *to;
    size_t n;
} copies;

static LLVMValueRef copy_of(const copies *c, LLVMValueRef v)
{
    for (size_t i = c->n; i-- > 0;)
        if (c->from[i] == v)
            return c->to[i];
    return v;
}

/* The plain access a masked one means where every lane is active, built at
 * b: its pointer and stored value the copies of c's. */
static LLVMValueRef plain_access(LLVMBuilderRef b, LLVMValueRef call, bool is_load, const copies *c)
{
    unsigned ptr_at = is_load ? 0 : 1;
    LLVMValueRef ptr = copy_of(c, LLVMGetOperand(call, ptr_at));
    LLVMValueRef v = is_load ? NULL : copy_of(c, LLVMGetOperand(call, 0));
    LLVMValueRef plain = is_load ? LLVMBuildLoad2(b, LLVMTypeOf(call), ptr, "") : LLVMBuildStore(b, v, ptr);
    LLVMSetAlignment(plain, (unsigned)LLVMConstIntGetZExtValue(LLVMGetOperand(call, ptr_at + 1)));
    jit_copy_metadata(call, plain);
    return plain;
}

/* The blocks full, part and join, after bb. */
static void split_blocks(LLVMContextRef llc, LLVMBasicBlockRef bb, LLVMBasicBlockRef out[3])
{
    LLVMBasicBlockRef next = LLVMGetNextBasicBlock(bb);
    static const char *const names[3] = { "lanes.full", "lanes.part", "lanes.join" };
    for (int i = 0; i < 3; i++)
        out[i] = next ? LLVMInsertBasicBlockInContext(llc, next, names[i])
                      : LLVMAppendBasicBlockInContext(llc, LLVMGetBasicBlockParent(bb), names[i]);
}

/* The masked loads and stores under mask m in the block of `at`, one of
 * them, when there are two or more and no stack allocation between the
 * first and the last (*first, *last). */
static bool shared_range(LLVMValueRef m, LLVMValueRef at, LLVMValueRef *first, LLVMValueRef *last)
{
    unsigned n = 0;
    *first = *last = NULL;
    for (LLVMValueRef in = LLVMGetFirstInstruction(LLVMGetInstructionParent(at)); in; in = LLVMGetNextInstruction(in)) {
        bool is_load;
        if (access_mask(in, &is_load) == m) {
            *first = *first ? *first : in;
            *last = in;
            n++;
        }
        if (*first && LLVMIsAAllocaInst(in))
            return false;
    }
    return n >= 2;
}

/* Whether v has a use outside block bb. */
static bool used_outside(LLVMValueRef v, LLVMBasicBlockRef bb)
{
    for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u))
        if (LLVMGetInstructionParent(LLVMGetUser(u)) != bb)
            return true;
    return false;
}

/* bb: ... first ... last ... -> bb: ... br all, full, part; full: first to
 * last copied, the accesses under mask plain; part: first to last as they
 * were, and the mask when it was computed for them alone; join: a phi for
 * each of their values used after them, the rest of bb.  One access is a
 * range of one.  -1 when out of memory (nothing changed). */
static int version_range(LLVMBuilderRef b, LLVMContextRef llc, LLVMValueRef mask, LLVMValueRef first, LLVMValueRef last)
{
    size_t n = 1;
    for (LLVMValueRef in = first; in != last; in = LLVMGetNextInstruction(in))
        n++;
    copies c = { calloc(n + 1, sizeof *c.from), calloc(n + 1, sizeof *c.to), 0 };
    if (!c.from || !c.to) {
        free(c.from);
        free(c.to);
        return -1;
    }
    LLVMBasicBlockRef bb = LLVMGetInstructionParent(first), blocks[3];
    split_blocks(llc, bb, blocks);
    LLVMBasicBlockRef full = blocks[0], part = blocks[1], join = blocks[2];
    jit_move_tail(b, LLVMGetNextInstruction(last), join); /* the rest of bb */
    jit_move_tail(b, first, part);                        /* the range */
    LLVMPositionBuilderAtEnd(b, bb);
    LLVMBuildCondBr(b, lanes_all(b, mask, true, 0), full, part);

    c.from[c.n] = mask; /* every lane is active in the copy */
    c.to[c.n++] = LLVMConstAllOnes(LLVMTypeOf(mask));
    LLVMPositionBuilderAtEnd(b, full);
    for (LLVMValueRef in = first; in; in = LLVMGetNextInstruction(in)) {
        bool is_load;
        LLVMValueRef copy;
        if (access_mask(in, &is_load) == mask) {
            copy = plain_access(b, in, is_load, &c);
        } else {
            copy = LLVMInstructionClone(in);
            for (int k = 0, nops = LLVMGetNumOperands(in); k < nops; k++)
                LLVMSetOperand(copy, (unsigned)k, copy_of(&c, LLVMGetOperand(in, (unsigned)k)));
            LLVMInsertIntoBuilder(b, copy);
        }
        c.from[c.n] = in;
        c.to[c.n++] = copy;
    }
    LLVMBuildBr(b, join);
    LLVMPositionBuilderAtEnd(b, part);
    LLVMBuildBr(b, join);
    sink(b, mask, first, bb);

    LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(join));
    for (size_t i = 1; i < c.n; i++) {
        LLVMValueRef in = c.from[i];
        if (LLVMGetTypeKind(LLVMTypeOf(in)) == LLVMVoidTypeKind || !used_outside(in, part))
            continue;
        LLVMValueRef phi = LLVMBuildPhi(b, LLVMTypeOf(in), "");
        LLVMReplaceAllUsesWith(in, phi);
        for (size_t k = i + 1; k < c.n; k++) /* the range's own uses stay */
            for (int o = 0, nops = LLVMGetNumOperands(c.from[k]); o < nops; o++)
                if (LLVMGetOperand(c.from[k], (unsigned)o) == phi)
                    LLVMSetOperand(c.from[k], (unsigned)o, in);
        LLVMValueRef vals[2] = { c.to[i], in };
        LLVMBasicBlockRef from[2] = { full, part };
        LLVMAddIncoming(phi, vals, from, 2);
    }
    free(c.from);
    free(c.to);
    return 0;
}

int jit_unmask_full_lanes(LLVMModuleRef mod)
{
    util_array shared = { 0 }, found = { 0 };
    LLVMValueRef first, last;
    bool oom = false;
    /* the masks several accesses of a block share (each once: its first access there) */
    for (LLVMValueRef fn = LLVMGetFirstFunction(mod); fn && !oom; fn = LLVMGetNextFunction(fn))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb && !oom; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in && !oom; in = LLVMGetNextInstruction(in)) {
                bool is_load;
                LLVMValueRef m = access_mask(in, &is_load);
                if (m && !own_mask(m) && lanes_all(NULL, m, true, 0) && shared_range(m, in, &first, &last) &&
                    first == in)
                    oom = !UTIL_ARRAY_PUSH(&shared, LLVMValueRef, in);
            }
    LLVMContextRef llc = LLVMGetModuleContext(mod);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(llc);
    size_t n = 0;
    /* one at a time: a range copied copies the accesses of another mask in
     * it, which are then in two blocks and stay masked */
    for (size_t i = 0; !oom && i < UTIL_ARRAY_COUNT(&shared, LLVMValueRef); i++) {
        LLVMValueRef at = UTIL_ARRAY_AT(&shared, LLVMValueRef, i);
        bool is_load;
        LLVMValueRef m = access_mask(at, &is_load);
        if (shared_range(m, at, &first, &last)) {
            oom = version_range(b, llc, m, first, last) < 0;
            n += !oom;
        }
    }
    for (LLVMValueRef fn = LLVMGetFirstFunction(mod); fn && !oom; fn = LLVMGetNextFunction(fn))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb && !oom; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in && !oom; in = LLVMGetNextInstruction(in)) {
                bool is_load;
                LLVMValueRef m = access_mask(in, &is_load);
                if (m && own_mask(m) && lanes_all(NULL, m, true, 0))
                    oom = !UTIL_ARRAY_PUSH(&found, LLVMValueRef, in);
            }
    for (size_t i = 0; !oom && i < UTIL_ARRAY_COUNT(&found, LLVMValueRef); i++) {
        LLVMValueRef call = UTIL_ARRAY_AT(&found, LLVMValueRef, i);
        bool is_load;
        oom = version_range(b, llc, access_mask(call, &is_load), call, call) < 0;
        n += !oom;
    }
    LLVMDisposeBuilder(b);
    util_array_fini(&shared);
    util_array_fini(&found);
    return oom ? -1 : (int)n;
}
