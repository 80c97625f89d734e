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

#include "llvm_facts.h"

#include <string.h>

enum { GUARD_DEPTH = 16, MAX_STRIDE = 1 << 20 };

/* An integer (or pointer) whose lane l is v0 + l * stride.  When `exact`,
 * lane l's value is also congruent, modulo 2^bits of its type, to the
 * integer e0 + ek + l * stride (e0 an i64, NULL for zero; |e0| < 2^ebits):
 * adds, multiplies and clamps keep that form without conditions, and an
 * extension (or a GEP's) then needs one range test of it, where the same
 * form in the type's own arithmetic needs a test at every step that might
 * wrap.  The taps of a stencil share e0 (their constant offsets differ), so
 * they share the test and their addresses differ by a displacement. */
typedef struct lanes {
    LLVMValueRef v0;
    int64_t stride;
    bool exact;
    LLVMValueRef e0;
    int64_t ek;
    unsigned ebits;
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

/* op(): the binary operations by opcode (LLVMAdd...), LLVMSExt to i64 (b
 * NULL), the comparisons by predicate after OP_CMP */
enum { OP_CMP = 1000 };

/* The range tests of the exact form leave this much room either side of the
 * signed 32-bit range, so that the taps' offsets (up to it) share one test. */
#define EXACT_SLACK ((int64_t)1 << 24)
/* The clamps' tests take offsets up to this far as if at it (exact_clamp). */
#define CLAMP_SLACK 2

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
    LLVMValueRef r = opcode >= OP_CMP     ? LLVMBuildICmp(s->b, (LLVMIntPredicate)(opcode - OP_CMP), a, b, "")
                     : opcode == LLVMSExt ? LLVMBuildSExt(s->b, a, s->t_i64, "")
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

/* --- the exact form --- */

static unsigned bit_length(uint64_t x)
{
    return x ? 64 - (unsigned)__builtin_clzll(x) : 0;
}

/* Lanes v0 + l * stride of an integer with nothing known about v0. */
static lanes leaf(simd_fn *s, LLVMValueRef v0, int64_t stride)
{
    lanes l = { .v0 = v0, .stride = stride };
    LLVMTypeRef t = LLVMTypeOf(v0);
    if (LLVMGetTypeKind(t) != LLVMIntegerTypeKind || LLVMGetIntTypeWidth(t) > 64)
        return l;
    unsigned bits = LLVMGetIntTypeWidth(t);
    l.exact = true;
    if (LLVMIsAConstantInt(v0)) {
        l.ek = LLVMConstIntGetSExtValue(v0);
    } else {
        l.e0 = bits < 64 ? op(s, LLVMSExt, v0, NULL) : v0;
        l.ebits = bits;
    }
    return l;
}

/* r (an i64 built for e0) cannot overflow when its result stays below 2^bits. */
static LLVMValueRef no_overflow(LLVMValueRef r, unsigned bits)
{
    if (bits <= 62 && LLVMIsAInstruction(r))
        LLVMSetNSW(r, 1);
    return r;
}

/* The exact form of a + b (sub: a - b) into *out. */
static void exact_add(simd_fn *s, lanes a, lanes b, bool sub, lanes *out)
{
    out->exact = a.exact && b.exact &&
                 !(sub ? __builtin_sub_overflow(a.ek, b.ek, &out->ek) : __builtin_add_overflow(a.ek, b.ek, &out->ek));
    if (!out->exact)
        return;
    unsigned bits = (a.ebits > b.ebits ? a.ebits : b.ebits) + 1;
    if (a.e0 && b.e0)
        out->e0 = no_overflow(op(s, sub ? LLVMSub : LLVMAdd, a.e0, b.e0), bits);
    else if (b.e0 && sub)
        out->e0 = no_overflow(op(s, LLVMSub, LLVMConstInt(s->t_i64, 0, 0), b.e0), bits);
    else
        out->e0 = a.e0 ? a.e0 : b.e0;
    out->ebits = out->e0 ? bits : 0;
}

/* The exact form of a * c into *out. */
static void exact_mul(simd_fn *s, lanes a, int64_t c, lanes *out)
{
    out->exact = a.exact && !__builtin_mul_overflow(a.ek, c, &out->ek);
    if (!out->exact)
        return;
    unsigned bits = a.ebits + bit_length(c < 0 ? -(uint64_t)c : (uint64_t)c);
    out->e0 = a.e0 ? no_overflow(op(s, LLVMMul, a.e0, LLVMConstInt(s->t_i64, (uint64_t)c, 1)), bits) : NULL;
    out->ebits = out->e0 ? bits : 0;
}

/* The conditions for lanes l (exact, of `bits` <= 32 bits) to lie in that
 * type's signed or unsigned range: then the extension of lane j is
 * e0 + ek + j * stride.  The signed 32-bit range (indices) is tested with
 * EXACT_SLACK to spare. */
static void exact_in_range(simd_fn *s, lanes l, bool is_signed, unsigned bits, conds *g)
{
    int64_t span = l.stride * (int64_t)(s->W - 1);
    int64_t lo = is_signed ? -((int64_t)1 << (bits - 1)) : 0;
    int64_t hi = is_signed ? ((int64_t)1 << (bits - 1)) - 1 : ((int64_t)1 << bits) - 1;
    lo -= span < 0 ? span : 0; /* the bounds of lane 0's value */
    hi -= span > 0 ? span : 0;
    if (!l.e0) {
        add_cond(g, LLVMConstInt(s->t_i1, l.ek >= lo && l.ek <= hi, 0));
        return;
    }
    if (is_signed && bits == 32 && l.ek >= -EXACT_SLACK && l.ek <= EXACT_SLACK) {
        lo += EXACT_SLACK;
        hi -= EXACT_SLACK;
    } else {
        lo -= l.ek;
        hi -= l.ek;
    }
    if (hi < lo) {
        add_cond(g, LLVMConstInt(s->t_i1, 0, 0));
        return;
    }
    /* lo <= e0 <= hi as one unsigned comparison */
    LLVMValueRef t = op(s, LLVMAdd, l.e0, LLVMConstInt(s->t_i64, (uint64_t)-lo, 1));
    add_cond(g, op(s, OP_CMP + LLVMIntULE, t, LLVMConstInt(s->t_i64, (uint64_t)(hi - lo), 0)));
}

/* l's lane-0 value times size, an i64 from the exact form. */
static LLVMValueRef exact_offset(simd_fn *s, lanes l, int64_t size, LLVMValueRef addr)
{
    if (l.e0) {
        LLVMValueRef off = size == 1
                               ? l.e0
                               : no_overflow(LLVMBuildMul(s->b, l.e0, LLVMConstInt(s->t_i64, (uint64_t)size, 1), ""),
                                             l.ebits + bit_length((uint64_t)size));
        addr = LLVMBuildGEP2(s->b, s->t_i8, addr, &off, 1, "");
    }
    if (l.ek)
        addr = LLVMBuildGEP2(s->b, s->t_i8, addr,
                             (LLVMValueRef[]){ LLVMConstInt(s->t_i64, (uint64_t)(l.ek * size), 1) }, 1, "");
    return addr;
}

static bool eval_lanes(simd_fn *s, LLVMValueRef v, lanes *out, conds *g, int depth);

/* The conditions for smax(x, u) (is_max) or smin(x, u) to be x, on the
 * exact forms of 32-bit x and uniform u: the lanes in range, the smallest
 * (largest) lane at least (most) u.  Offsets of x within CLAMP_SLACK are
 * tested as if they were that far out, so that the taps x - 1, x, x + 1
 * share one test (the sub-groups within CLAMP_SLACK of an edge gather).
 * False when the forms are not there. */
static bool exact_clamp(simd_fn *s, lanes x, lanes u, bool is_max, conds *g)
{
    if (!x.exact || !u.exact || !x.e0 || LLVMGetIntTypeWidth(LLVMTypeOf(x.v0)) != 32 || x.ek < -CLAMP_SLACK ||
        x.ek > CLAMP_SLACK)
        return false;
    exact_in_range(s, x, true, 32, g);
    int64_t span = x.stride * (int64_t)(s->W - 1);
    /* smallest lane: e0 + ek + min(0, span) >= e0 + min(0, span) - slack, the largest likewise */
    int64_t off = is_max ? (span < 0 ? span : 0) - CLAMP_SLACK : (span > 0 ? span : 0) + CLAMP_SLACK;
    LLVMValueRef lhs = op(s, LLVMAdd, x.e0, LLVMConstInt(s->t_i64, (uint64_t)(off - u.ek), 1));
    LLVMValueRef rhs = u.e0 ? u.e0 : LLVMConstInt(s->t_i64, 0, 0);
    add_cond(g, op(s, OP_CMP + (is_max ? LLVMIntSGE : LLVMIntSLE), lhs, rhs));
    return true;
}

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
        *out = leaf(s, simd_intrinsic(s, name, &t, 1, (LLVMValueRef[]){ a.v0, b.v0 }, 2), 0);
        return true;
    }
    lanes x = a.stride ? a : b, u = a.stride ? b : a;
    if (is_signed && exact_clamp(s, x, u, is_max, g)) {
        *out = x;
        return true;
    }
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
        exact_add(s, a, b, sub, out);
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
            exact_mul(s, a, (int64_t)1 << LLVMConstIntGetZExtValue(b.v0), out);
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
            if (LLVMIsAConstantInt(k.v0))
                exact_mul(s, x, LLVMConstIntGetSExtValue(k.v0), out);
            else /* two uniform values: their product is what it is */
                *out = leaf(s, out->v0, 0);
        }
        return out->stride > -MAX_STRIDE && out->stride < MAX_STRIDE;
    }
    case LLVMSExt:
    case LLVMZExt: {
        if (!eval_lanes(s, LLVMGetOperand(v, 0), &a, g, depth + 1))
            return false;
        unsigned bits = LLVMGetIntTypeWidth(LLVMTypeOf(a.v0));
        if (a.exact && bits <= 32) /* the lanes are the exact values: the form carries over */
            exact_in_range(s, a, opc == LLVMSExt, bits, g);
        else
            no_wrap(s, a, opc == LLVMSExt, g);
        *out = a;
        out->v0 = LLVMBuildCast(s->b, opc, a.v0, LLVMTypeOf(v), "");
        out->exact = a.exact && bits <= 32;
        return true;
    }
    case LLVMTrunc: /* congruent modulo 2^bits of the source, so of the result's */
        if (!eval_lanes(s, LLVMGetOperand(v, 0), &a, g, depth + 1))
            return false;
        *out = a;
        out->v0 = LLVMBuildTrunc(s->b, a.v0, LLVMTypeOf(v), "");
        return true;
    case LLVMCall: {
        const char *minmax = jit_call_int_minmax(v);
        return minmax && eval_clamp(s, v, minmax, out, g, depth + 1);
    }
    default:
        return false;
    }
}

/* The exact form of v, available as *out, where v is a value plus a
 * constant: that value's form moved by the constant (x - 1, x and x + 1 then
 * share one e0). */
static void offset_form(simd_fn *s, LLVMValueRef v, lanes *out, int depth)
{
    if (!LLVMIsAInstruction(v) || !out->exact || depth >= GUARD_DEPTH)
        return;
    LLVMOpcode opc = LLVMGetInstructionOpcode(v);
    if ((opc != LLVMAdd && opc != LLVMSub && !(opc == LLVMOr && LLVMGetIsDisjoint(v))) ||
        !LLVMIsAConstantInt(LLVMGetOperand(v, 1)))
        return;
    LLVMValueRef x = LLVMGetOperand(v, 0);
    if (!simd_available(s, x) || LLVMTypeOf(x) != LLVMTypeOf(v))
        return;
    simd_val xv = simd_get(s, x);
    if (xv.sh.kind != SIMD_UNIFORM &&
        (xv.sh.kind != SIMD_AFFINE || LLVMGetTypeKind(LLVMTypeOf(xv.v)) == LLVMVectorTypeKind))
        return;
    lanes a = leaf(s, xv.v, xv.sh.kind == SIMD_AFFINE ? xv.sh.stride : 0), r;
    if (a.stride != out->stride)
        return;
    offset_form(s, x, &a, depth + 1);
    exact_add(s, a, leaf(s, LLVMGetOperand(v, 1), 0), opc == LLVMSub, &r);
    if (r.exact) {
        out->e0 = r.e0;
        out->ek = r.ek;
        out->ebits = r.ebits;
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
            *out = leaf(s, x.v, x.sh.kind == SIMD_AFFINE ? x.sh.stride : 0);
            offset_form(s, v, out, depth);
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

/* --- the in-bounds link ---
 * An access whose every execution lies in a range that begins at the root of
 * its address's GEPs (JIT_INBOUNDS_MD) needs no test that the 32-bit index x
 * it sign-extends does not wrap within the lanes when its offset is root +
 * konst + scale x sext(x) (|konst| < LINK_ROOM, scale > 0) and x's lanes are
 * x0 + l x stride with 0 <= stride, (W - 1) x stride <= LINK_SLACK: then
 * sext(x0) + l x stride lies in [-2^31, 2^31 + LINK_SLACK), and a lane whose
 * x wrapped has a sign extension below -2^31 + LINK_SLACK, an offset below
 * zero, out of the range: not an active lane.  So every active lane's x
 * extends to sext(x0) + l x stride, whatever the range's size. */
enum { LINK_SLACK = 1 << 24, LINK_ROOM = 1 << 30 };

/* The step of a GEP's index k (idx) through its types, *t the type it
 * indexes: a struct field (a constant; *field set, *bytes its offset, *t its
 * type) or an element (*bytes its size; *t the element type past the first
 * index).  False when index k is neither. */
static bool gep_step(simd_fn *s, LLVMTypeRef *t, unsigned k, LLVMValueRef idx, bool *field, int64_t *bytes)
{
    *field = k > 1 && LLVMGetTypeKind(*t) == LLVMStructTypeKind;
    if (*field) {
        if (!LLVMIsAConstantInt(idx) || LLVMConstIntGetZExtValue(idx) >= LLVMCountStructElementTypes(*t))
            return false;
        unsigned f = (unsigned)LLVMConstIntGetZExtValue(idx);
        *bytes = (int64_t)LLVMOffsetOfElement(s->td, *t, f);
        *t = LLVMStructGetTypeAtIndex(*t, f);
        return true;
    }
    if (k > 1) {
        if (LLVMGetTypeKind(*t) != LLVMArrayTypeKind)
            return false;
        *t = LLVMGetElementType(*t);
    }
    *bytes = (int64_t)LLVMABISizeOfType(s->td, *t);
    return true;
}

/* The byte offset of GEP p from its pointer operand, its index `skip` (0:
 * none) taken as 0 and every other a constant; false when one is not. */
static bool const_indices(simd_fn *s, LLVMValueRef p, unsigned skip, int64_t *off)
{
    LLVMTypeRef t = LLVMGetGEPSourceElementType(p);
    *off = 0;
    for (unsigned k = 1, n = (unsigned)LLVMGetNumOperands(p); k < n; k++) {
        LLVMValueRef idx = LLVMGetOperand(p, k);
        bool field;
        int64_t bytes;
        if (!gep_step(s, &t, k, idx, &field, &bytes))
            return false;
        if (field) {
            *off += bytes;
        } else if (k != skip) {
            bool is_const = LLVMIsAConstantInt(idx) && LLVMGetIntTypeWidth(LLVMTypeOf(idx)) <= 64;
            int64_t i = is_const ? LLVMConstIntGetSExtValue(idx) : 0;
            if (!is_const || i <= -LINK_ROOM || i >= LINK_ROOM || bytes >= LINK_ROOM)
                return false;
            *off += i * bytes;
        }
        if (*off <= -LINK_ROOM || *off >= LINK_ROOM)
            return false;
    }
    return true;
}

/* The operand of GEP p (of pointer operand `base`) the link may take: its
 * one index that is not a constant, every other term of the offset from
 * base's root a constant, *konst their sum; 0 when there is none. */
static unsigned link_operand(simd_fn *s, LLVMValueRef p, LLVMValueRef base, int64_t *konst)
{
    *konst = 0;
    for (int64_t off;
         LLVMIsAGetElementPtrInst(base) || (LLVMIsAConstantExpr(base) && LLVMGetConstOpcode(base) == LLVMGetElementPtr);
         base = LLVMGetOperand(base, 0)) {
        if (!const_indices(s, base, 0, &off)) /* the root and base a constant apart */
            return 0;
        *konst += off;
    }
    if (LLVMIsAPHINode(base) || LLVMIsASelectInst(base))
        return 0; /* not the range's own pointer (the lowering marks no such access) */
    unsigned link = 0, n = (unsigned)LLVMGetNumOperands(p);
    for (unsigned k = 1; k < n; k++)
        if (!LLVMIsAConstantInt(LLVMGetOperand(p, k))) {
            if (link)
                return 0;
            link = k;
        }
    int64_t rest;
    if (!link || !const_indices(s, p, link, &rest))
        return 0;
    *konst += rest;
    return *konst > -LINK_ROOM && *konst < LINK_ROOM ? link : 0;
}

/* idx as scale x sext(*x) + *add with *x of 32 bits (an i32 index: the GEP
 * extends it), from extensions, multiplies and shifts by constants and added
 * constants. */
static bool scaled_extension(LLVMValueRef idx, LLVMValueRef *x, int64_t *scale, int64_t *add, int depth)
{
    LLVMTypeRef t = LLVMTypeOf(idx);
    if (LLVMGetTypeKind(t) != LLVMIntegerTypeKind || depth > GUARD_DEPTH)
        return false;
    if (LLVMGetIntTypeWidth(t) == 32) {
        *x = idx, *scale = 1, *add = 0;
        return true;
    }
    if (LLVMGetIntTypeWidth(t) != 64 || !LLVMIsAInstruction(idx))
        return false;
    LLVMOpcode opc = LLVMGetInstructionOpcode(idx);
    if (opc == LLVMSExt)
        return LLVMGetIntTypeWidth(LLVMTypeOf(LLVMGetOperand(idx, 0))) == 32 &&
               scaled_extension(LLVMGetOperand(idx, 0), x, scale, add, depth + 1);
    if (!(opc == LLVMMul || opc == LLVMShl || opc == LLVMAdd || opc == LLVMSub ||
          (opc == LLVMOr && LLVMGetIsDisjoint(idx))))
        return false;
    LLVMValueRef a = LLVMGetOperand(idx, 0), b = LLVMGetOperand(idx, 1);
    if (opc == LLVMMul && LLVMIsAConstantInt(a)) {
        LLVMValueRef swap = a;
        a = b, b = swap;
    }
    if (!LLVMIsAConstantInt(b) || LLVMIsAConstantInt(a) || !scaled_extension(a, x, scale, add, depth + 1))
        return false;
    int64_t c = LLVMConstIntGetSExtValue(b);
    if (opc == LLVMShl) {
        if (c < 0 || c > 20)
            return false;
        c = (int64_t)1 << c;
    }
    if (opc == LLVMMul || opc == LLVMShl) {
        if (c <= 0 || c >= MAX_STRIDE)
            return false;
        *scale *= c;
        *add *= c;
    } else {
        if (c <= -LINK_ROOM || c >= LINK_ROOM)
            return false;
        *add += opc == LLVMSub ? -c : c;
    }
    return *scale < MAX_STRIDE && -LINK_ROOM < *add && *add < LINK_ROOM;
}

/* x's lanes l (32 bits; scale bytes per unit of x, konst bytes besides) as
 * lane 0's value sign-extended and the stride, when they take the link. */
static bool linked(simd_fn *s, lanes l, int64_t scale, int64_t konst, lanes *out)
{
    if (LLVMGetIntTypeWidth(LLVMTypeOf(l.v0)) != 32 || l.stride < 0 || l.stride * (int64_t)(s->W - 1) > LINK_SLACK ||
        scale <= 0 || scale >= MAX_STRIDE || konst <= -LINK_ROOM || konst >= LINK_ROOM)
        return false;
    *out = leaf(s, l.v0, l.stride);
    return true;
}

bool simd_guarded_address(simd_fn *s, LLVMValueRef p, bool in_bounds, simd_guarded *g)
{
    if (!LLVMIsAGetElementPtrInst(p) || !simd_available(s, LLVMGetOperand(p, 0)))
        return false;
    simd_val base = simd_get(s, LLVMGetOperand(p, 0));
    if (base.sh.kind != SIMD_UNIFORM)
        return false;
    conds when = { .n = 0 };
    LLVMValueRef addr = base.v;
    int64_t stride = 0, konst = 0;
    unsigned link = in_bounds ? link_operand(s, p, LLVMGetOperand(p, 0), &konst) : 0;
    LLVMTypeRef t = LLVMGetGEPSourceElementType(p);
    for (unsigned k = 1, n = (unsigned)LLVMGetNumOperands(p); k < n; k++) {
        LLVMValueRef idx = LLVMGetOperand(p, k), x;
        bool field;
        int64_t size, scale, add;
        if (!gep_step(s, &t, k, idx, &field, &size))
            return false;
        if (field) { /* a constant offset */
            addr = LLVMBuildGEP2(s->b, s->t_i8, addr, (LLVMValueRef[]){ LLVMConstInt(s->t_i64, (uint64_t)size, 0) }, 1,
                                 "");
            continue;
        }
        lanes l;
        if (k == link && size < MAX_STRIDE && scaled_extension(idx, &x, &scale, &add, 0) &&
            eval_lanes(s, x, &l, &when, 0) && linked(s, l, scale * size, konst + add * size, &l)) {
            addr = exact_offset(s, l, scale * size, addr);
            if (add)
                addr = LLVMBuildGEP2(s->b, s->t_i8, addr,
                                     (LLVMValueRef[]){ LLVMConstInt(s->t_i64, (uint64_t)(add * size), 1) }, 1, "");
            stride += l.stride * scale * size;
            if (stride <= -MAX_STRIDE || stride >= MAX_STRIDE)
                return false;
            continue;
        }
        if (!eval_lanes(s, idx, &l, &when, 0) || LLVMGetTypeKind(LLVMTypeOf(l.v0)) != LLVMIntegerTypeKind)
            return false;
        unsigned bits = LLVMGetIntTypeWidth(LLVMTypeOf(l.v0));
        if (l.exact && (bits <= 32 || bits == 64) && size < MAX_STRIDE) {
            if (bits < 64) /* a GEP sign-extends its indices */
                exact_in_range(s, l, true, bits, &when);
            addr = exact_offset(s, l, size, addr);
        } else {
            if (bits < 64) {
                no_wrap(s, l, true, &when);
                l.v0 = LLVMBuildSExt(s->b, l.v0, s->t_i64, "");
            }
            LLVMValueRef off =
                size == 1 ? l.v0 : LLVMBuildMul(s->b, l.v0, LLVMConstInt(s->t_i64, (uint64_t)size, 1), "");
            addr = LLVMBuildGEP2(s->b, s->t_i8, addr, &off, 1, "");
        }
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
