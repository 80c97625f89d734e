/* jit/simd_guard.c — addresses that are affine in the lane under conditions.
 *
 * An address computed from affine and uniform values through adds,
 * multiplies, clamps (smax/smin/umax/umin) and extensions — a clamp-to-edge
 * index in i32 arithmetic, say — is base + lane x stride when each clamp
 * leaves every lane's value alone and no value wraps within the lanes:
 * scalar comparisons on lanes 0 and W - 1.  Each is made once per block:
 * the lanes of a scalar value and the instructions built for them are
 * remembered, so the taps of a stencil share their column tests and the
 * passes have no copies to fold. */
#include "simd_internal.h"

#include <string.h>

enum { GUARD_DEPTH = 16, MAX_STRIDE = 1 << 20 };

/* An integer (or pointer) whose lane l is v0 + l * stride. */
typedef struct lanes {
    LLVMValueRef v0;
    int64_t stride;
} lanes;

/* Conditions, each once. */
typedef struct conds {
    LLVMValueRef c[SIMD_MAX_CONDS];
    unsigned n;
    bool unusable; /* more than SIMD_MAX_CONDS, or one that is false */
} conds;

/* What the block found for a scalar value: its lanes and their conditions. */
typedef struct lanes_entry {
    bool ok;
    lanes l;
    conds when;
} lanes_entry;

/* An instruction built for the lanes or the tests, remembered for the block. */
typedef struct built_op {
    int op;
    LLVMValueRef a, b, r;
} built_op;

/* op(): the binary operations by opcode (LLVMAdd...), the comparisons by predicate after them */
enum { OP_CMP = 1000 };

void simd_guard_forget(simd_fn *s)
{
    util_hashmap_clear(&s->lanes_memo);
    s->lanes_store.size = 0;
    s->built.size = 0;
}

/* Binary operation `opcode`, or comparison OP_CMP + predicate, on a and b,
 * built once per block. */
static LLVMValueRef op(simd_fn *s, int opcode, LLVMValueRef a, LLVMValueRef b)
{
    for (size_t i = 0, n = UTIL_ARRAY_COUNT(&s->built, built_op); i < n; i++) {
        const built_op *e = &UTIL_ARRAY_AT(&s->built, built_op, i);
        if (e->op == opcode && e->a == a && e->b == b)
            return e->r;
    }
    LLVMValueRef r = opcode >= OP_CMP ? LLVMBuildICmp(s->b, (LLVMIntPredicate)(opcode - OP_CMP), a, b, "")
                                      : LLVMBuildBinOp(s->b, (LLVMOpcode)opcode, a, b, "");
    if (!UTIL_ARRAY_PUSH(&s->built, built_op, ((built_op){ opcode, a, b, r })))
        simd_fail(s, "out of memory");
    return r;
}

static void add_cond(conds *g, LLVMValueRef c)
{
    if (LLVMIsAConstantInt(c)) {
        g->unusable |= !LLVMConstIntGetZExtValue(c);
        return;
    }
    for (unsigned i = 0; i < g->n; i++)
        if (g->c[i] == c)
            return;
    if (g->n == SIMD_MAX_CONDS)
        g->unusable = true;
    else
        g->c[g->n++] = c;
}

static void add_conds(conds *to, const conds *from)
{
    for (unsigned i = 0; i < from->n; i++)
        add_cond(to, from->c[i]);
    to->unusable |= from->unusable;
}

/* Lane W - 1's value of integer l (modular). */
static LLVMValueRef last_lane(simd_fn *s, lanes l)
{
    LLVMTypeRef t = LLVMTypeOf(l.v0);
    return op(s, LLVMAdd, l.v0, LLVMConstInt(t, (unsigned long long)(l.stride * (int64_t)(s->W - 1)), 1));
}

/* The lanes' values do not wrap around in the signed (or unsigned) sense:
 * lane 0 at most (stride > 0) or at least the value the last lane may start
 * from (one comparison with a constant). */
static void no_wrap(simd_fn *s, lanes l, bool is_signed, conds *g)
{
    if (!l.stride)
        return;
    LLVMTypeRef t = LLVMTypeOf(l.v0);
    unsigned bits = LLVMGetIntTypeWidth(t);
    int64_t span = l.stride * (int64_t)(s->W - 1); /* |span| < 2^27 */
    LLVMIntPredicate p = span > 0 ? (is_signed ? LLVMIntSLE : LLVMIntULE) : (is_signed ? LLVMIntSGE : LLVMIntUGE);
    uint64_t limit;
    if (bits > 32) {
        uint64_t top = is_signed ? (uint64_t)INT64_MAX : UINT64_MAX, bottom = is_signed ? (uint64_t)INT64_MIN : 0;
        limit = span > 0 ? top - (uint64_t)span : bottom + (uint64_t)-span;
    } else {
        int64_t top = is_signed ? ((int64_t)1 << (bits - 1)) - 1 : (int64_t)((uint64_t)1 << bits) - 1;
        int64_t bottom = is_signed ? -((int64_t)1 << (bits - 1)) : 0;
        int64_t v = span > 0 ? top - span : bottom - span;
        if (v < bottom || v > top) { /* W lanes do not fit the type */
            add_cond(g, LLVMConstInt(s->t_i1, 0, 0));
            return;
        }
        limit = (uint64_t)v;
    }
    add_cond(g, op(s, OP_CMP + p, l.v0, LLVMConstInt(t, limit, 0)));
}

static bool eval_lanes(simd_fn *s, LLVMValueRef v, lanes *out, conds *g, int depth);

/* smax / smin / umax / umin (x, u) with u the same in every lane: x itself
 * when the clamp does nothing to any lane. */
static bool eval_clamp(simd_fn *s, LLVMValueRef call, const char *name, lanes *out, conds *g, int depth)
{
    bool is_signed = name[5] == 's', is_max = !strncmp(name + 6, "max", 3);
    lanes a, b;
    if (!eval_lanes(s, LLVMGetOperand(call, 0), &a, g, depth) || !eval_lanes(s, LLVMGetOperand(call, 1), &b, g, depth))
        return false;
    if (a.stride && b.stride)
        return false;
    if (!a.stride && !b.stride) {
        LLVMTypeRef t = LLVMTypeOf(a.v0);
        out->v0 = simd_intrinsic(s, name, &t, 1, (LLVMValueRef[]){ a.v0, b.v0 }, 2);
        out->stride = 0;
        return true;
    }
    lanes x = a.stride ? a : b, u = a.stride ? b : a;
    no_wrap(s, x, is_signed, g);
    /* max(x, u) = x when the smallest lane is >= u; min(x, u) = x when the largest is <= u */
    bool lane0_smallest = x.stride > 0;
    LLVMValueRef extreme = (is_max == lane0_smallest) ? x.v0 : last_lane(s, x);
    LLVMIntPredicate p = is_max ? (is_signed ? LLVMIntSGE : LLVMIntUGE) : (is_signed ? LLVMIntSLE : LLVMIntULE);
    add_cond(g, op(s, OP_CMP + p, extreme, u.v0));
    *out = x;
    return true;
}

/* eval_lanes for an instruction of sf. */
static bool eval_inst(simd_fn *s, LLVMValueRef v, lanes *out, conds *g, int depth)
{
    LLVMOpcode opc = LLVMGetInstructionOpcode(v);
    lanes a, b;
    switch (opc) {
    case LLVMAdd:
    case LLVMSub:
    case LLVMOr: {
        if (opc == LLVMOr && !LLVMGetIsDisjoint(v))
            return false;
        if (!eval_lanes(s, LLVMGetOperand(v, 0), &a, g, depth + 1) ||
            !eval_lanes(s, LLVMGetOperand(v, 1), &b, g, depth + 1))
            return false;
        bool sub = opc == LLVMSub;
        out->stride = sub ? a.stride - b.stride : a.stride + b.stride;
        out->v0 = op(s, sub ? LLVMSub : LLVMAdd, a.v0, b.v0);
        return out->stride > -MAX_STRIDE && out->stride < MAX_STRIDE;
    }
    case LLVMMul:
    case LLVMShl: {
        if (!eval_lanes(s, LLVMGetOperand(v, 0), &a, g, depth + 1) ||
            !eval_lanes(s, LLVMGetOperand(v, 1), &b, g, depth + 1))
            return false;
        if (opc == LLVMShl) {
            if (b.stride || !LLVMIsAConstantInt(b.v0) || LLVMConstIntGetZExtValue(b.v0) > 20)
                return false;
            out->stride = a.stride * ((int64_t)1 << LLVMConstIntGetZExtValue(b.v0));
            out->v0 = op(s, LLVMShl, a.v0, b.v0);
        } else {
            if (a.stride && b.stride)
                return false;
            lanes x = a.stride ? a : b, k = a.stride ? b : a;
            if (x.stride) {
                if (!LLVMIsAConstantInt(k.v0))
                    return false;
                int64_t c = LLVMConstIntGetSExtValue(k.v0);
                if (c <= -MAX_STRIDE || c >= MAX_STRIDE)
                    return false;
                out->stride = x.stride * c;
            } else {
                out->stride = 0;
            }
            out->v0 = op(s, LLVMMul, a.v0, b.v0);
        }
        return out->stride > -MAX_STRIDE && out->stride < MAX_STRIDE;
    }
    case LLVMSExt:
    case LLVMZExt:
        if (!eval_lanes(s, LLVMGetOperand(v, 0), &a, g, depth + 1))
            return false;
        no_wrap(s, a, opc == LLVMSExt, g);
        *out = (lanes){ LLVMBuildCast(s->b, opc, a.v0, LLVMTypeOf(v), ""), a.stride };
        return true;
    case LLVMTrunc:
        if (!eval_lanes(s, LLVMGetOperand(v, 0), &a, g, depth + 1))
            return false;
        *out = (lanes){ LLVMBuildTrunc(s->b, a.v0, LLVMTypeOf(v), ""), a.stride };
        return true;
    case LLVMCall: {
        LLVMValueRef f = LLVMGetCalledValue(v);
        size_t len;
        const char *name = LLVMIsAFunction(f) ? LLVMGetValueName2(f, &len) : NULL;
        if (!name || (strncmp(name, "llvm.smax.", 10) && strncmp(name, "llvm.smin.", 10) &&
                      strncmp(name, "llvm.umax.", 10) && strncmp(name, "llvm.umin.", 10)))
            return false;
        char base[16];
        memcpy(base, name, 9);
        base[9] = 0;
        return eval_clamp(s, v, base, out, g, depth + 1);
    }
    default:
        return false;
    }
}

/* v's lanes as lane 0 and a stride, from the affine and uniform values it is
 * computed from, the conditions for it added to *g; false when it is not so. */
static bool eval_lanes(simd_fn *s, LLVMValueRef v, lanes *out, conds *g, int depth)
{
    if (depth > GUARD_DEPTH)
        return false;
    if (simd_available(s, v)) {
        simd_val x = simd_get(s, v);
        if (x.sh.kind == SIMD_UNIFORM ||
            (x.sh.kind == SIMD_AFFINE && LLVMGetTypeKind(LLVMTypeOf(x.v)) != LLVMVectorTypeKind)) {
            *out = (lanes){ x.v, x.sh.kind == SIMD_AFFINE ? x.sh.stride : 0 };
            return true;
        }
    }
    if (!LLVMIsAInstruction(v) || LLVMGetTypeKind(LLVMTypeOf(v)) != LLVMIntegerTypeKind)
        return false;
    uintptr_t k = (uintptr_t)util_ptrmap_get(&s->lanes_memo, v);
    if (!k) {
        lanes_entry e = { 0 };
        e.ok = eval_inst(s, v, &e.l, &e.when, depth) && !e.when.unusable;
        if (!UTIL_ARRAY_PUSH(&s->lanes_store, lanes_entry, e) ||
            !util_ptrmap_put(&s->lanes_memo, v, (void *)(uintptr_t)UTIL_ARRAY_COUNT(&s->lanes_store, lanes_entry))) {
            simd_fail(s, "out of memory");
            return false;
        }
        k = UTIL_ARRAY_COUNT(&s->lanes_store, lanes_entry);
    }
    const lanes_entry *e = &UTIL_ARRAY_AT(&s->lanes_store, lanes_entry, k - 1);
    if (!e->ok)
        return false;
    *out = e->l;
    add_conds(g, &e->when);
    return !g->unusable;
}

bool simd_guarded_address(simd_fn *s, LLVMValueRef p, simd_guarded *g)
{
    if (!LLVMIsAGetElementPtrInst(p) || !simd_available(s, LLVMGetOperand(p, 0)))
        return false;
    simd_val base = simd_get(s, LLVMGetOperand(p, 0));
    if (base.sh.kind != SIMD_UNIFORM)
        return false;
    conds when = { .n = 0 };
    LLVMValueRef addr = base.v;
    int64_t stride = 0;
    LLVMTypeRef t = LLVMGetGEPSourceElementType(p);
    for (unsigned k = 1, n = (unsigned)LLVMGetNumOperands(p); k < n; k++) {
        LLVMValueRef idx = LLVMGetOperand(p, k);
        if (k > 1 && LLVMGetTypeKind(t) == LLVMStructTypeKind) { /* a field: a constant offset */
            if (!LLVMIsAConstantInt(idx))
                return false;
            unsigned field = (unsigned)LLVMConstIntGetZExtValue(idx);
            addr = LLVMBuildGEP2(s->b, s->t_i8, addr,
                                 (LLVMValueRef[]){ LLVMConstInt(s->t_i64, LLVMOffsetOfElement(s->td, t, field), 0) }, 1,
                                 "");
            t = LLVMStructGetTypeAtIndex(t, field);
            continue;
        }
        if (k > 1) {
            if (LLVMGetTypeKind(t) != LLVMArrayTypeKind)
                return false;
            t = LLVMGetElementType(t);
        }
        lanes l;
        if (!eval_lanes(s, idx, &l, &when, 0) || LLVMGetTypeKind(LLVMTypeOf(l.v0)) != LLVMIntegerTypeKind)
            return false;
        int64_t size = (int64_t)LLVMABISizeOfType(s->td, t);
        if (LLVMGetIntTypeWidth(LLVMTypeOf(l.v0)) < 64) { /* a GEP sign-extends its indices */
            no_wrap(s, l, true, &when);
            l.v0 = LLVMBuildSExt(s->b, l.v0, s->t_i64, "");
        }
        LLVMValueRef off = size == 1 ? l.v0 : LLVMBuildMul(s->b, l.v0, LLVMConstInt(s->t_i64, (uint64_t)size, 1), "");
        addr = LLVMBuildGEP2(s->b, s->t_i8, addr, &off, 1, "");
        stride += l.stride * size;
        if (stride <= -MAX_STRIDE || stride >= MAX_STRIDE)
            return false;
    }
    if (when.unusable)
        return false;
    memcpy(g->cond, when.c, when.n * sizeof *when.c);
    g->ncond = when.n;
    g->base = addr;
    g->stride = stride;
    return true;
}
