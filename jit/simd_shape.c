/* jit/simd_shape.c — what each value of the scalar function is across lanes.
 *
 * Uniform where the divergence analysis (lanes in lockstep) says so.
 * Otherwise affine when the lanes' values are base + lane * stride for a
 * constant stride, followed through the operations that keep that form:
 * add, sub, mul and shl by constants, disjoint or, truncation, extensions
 * that cannot wrap across the lanes, GEPs, selects on a uniform condition,
 * pointer/integer casts.  The known trailing zeros of the lane-0 value go
 * along: lanes whose values lie in one aligned block of W * stride (stride a
 * power of two; the local index, the sub-group lane and what they make)
 * never wrap, which lets zext/sext keep them affine, and divisions, shifts,
 * remainders and masks by powers of two either keep them affine or make them
 * uniform (the x and y of a local index when the work-group's width is a
 * multiple of W; sext(trunc(i)) * 4 as instcombine writes it).
 * Everything else varies; a varying value computed from affine ones is marked
 * (hint) so memory accesses through it test contiguity at run time.
 *
 * Phis: a phi at a join of a varying branch varies (unless the lanes that
 * arrive together all bring one value: jit_uniformity_join_brings_one);
 * another takes the common
 * form of its incoming values (all lanes at it came the same way).  The
 * shapes are computed in schedule order to a fixed point (loop-header phis
 * see their back-edge values on the next round).  A value defined in a loop
 * that lanes leave at different iterations and used after it varies. */
#include "simd_internal.h"

#include <stdlib.h>
#include <string.h>

#include "llvm_facts.h"
#include "sg_marker.h"

static const simd_shape VARYING = { .kind = SIMD_VARYING };
static const simd_shape UNIFORM = { .kind = SIMD_UNIFORM, .nuw = true, .nsw = true };

simd_shape simd_shape_of(const simd_fn *s, LLVMValueRef v)
{
    if (LLVMIsAArgument(v)) {
        for (unsigned i = 0, n = LLVMCountParams(s->sf); i < n; i++) {
            if (LLVMGetParam(s->sf, i) != v)
                continue;
            if (s->args[i] == JIT_SIMD_ARG_UNIFORM)
                return UNIFORM;
            if (s->args[i] == JIT_SIMD_ARG_VARYING)
                return VARYING;
            return (simd_shape){ .kind = SIMD_AFFINE, .stride = 1, .tz = (uint8_t)s->log2w, .nuw = true, .nsw = true };
        }
        return VARYING;
    }
    if (!LLVMIsAInstruction(v))
        return UNIFORM; /* constants, globals, functions */
    const simd_shape *sh = util_ptrmap_get(&s->shapes, v);
    return sh ? *sh : (simd_shape){ .kind = SIMD_UNDEF };
}

static unsigned known_tz(LLVMValueRef v, int depth)
{
    LLVMTypeRef t = LLVMTypeOf(v);
    if (LLVMGetTypeKind(t) != LLVMIntegerTypeKind)
        return 0;
    unsigned w = LLVMGetIntTypeWidth(t);
    if (LLVMIsAConstantInt(v)) {
        unsigned long long x = LLVMConstIntGetZExtValue(v);
        return x ? (unsigned)__builtin_ctzll(x) : w;
    }
    if (!LLVMIsAInstruction(v) || depth > 8)
        return 0;
    LLVMValueRef a = LLVMGetNumOperands(v) > 0 ? LLVMGetOperand(v, 0) : NULL;
    LLVMValueRef b = LLVMGetNumOperands(v) > 1 ? LLVMGetOperand(v, 1) : NULL;
    unsigned ta, tb, r;
    switch (LLVMGetInstructionOpcode(v)) {
    case LLVMMul:
        r = known_tz(a, depth + 1) + known_tz(b, depth + 1);
        break;
    case LLVMShl:
        r = LLVMIsAConstantInt(b) ? known_tz(a, depth + 1) + (unsigned)LLVMConstIntGetZExtValue(b) : 0;
        break;
    case LLVMAdd:
    case LLVMSub:
    case LLVMOr:
        ta = known_tz(a, depth + 1);
        tb = known_tz(b, depth + 1);
        r = ta < tb ? ta : tb;
        break;
    case LLVMAnd:
        ta = known_tz(a, depth + 1);
        tb = known_tz(b, depth + 1);
        r = ta > tb ? ta : tb;
        break;
    case LLVMZExt:
    case LLVMSExt:
    case LLVMTrunc:
    case LLVMFreeze:
        r = known_tz(a, depth + 1);
        break;
    case LLVMSelect:
        ta = known_tz(b, depth + 1);
        tb = known_tz(LLVMGetOperand(v, 2), depth + 1);
        r = ta < tb ? ta : tb;
        break;
    default:
        r = 0;
        break;
    }
    return r < w ? r : w;
}

unsigned jit_simd_known_tz(LLVMValueRef v)
{
    return known_tz(v, 0);
}

static uint64_t known_align(LLVMValueRef p, int depth)
{
    if (!LLVMIsAInstruction(p) || depth > 8)
        return 1;
    LLVMContextRef llc = LLVMGetTypeContext(LLVMTypeOf(p));
    if (LLVMIsALoadInst(p)) {
        LLVMValueRef md = LLVMGetMetadata(p, LLVMGetMDKindIDInContext(llc, "align", 5)), a = NULL;
        if (md && LLVMGetMDNodeNumOperands(md) == 1)
            LLVMGetMDNodeOperands(md, &a);
        return a && LLVMIsAConstantInt(a) ? LLVMConstIntGetZExtValue(a) : 1;
    }
    /* a byte offset from a pointer: as aligned as both */
    if (!LLVMIsAGetElementPtrInst(p) || LLVMGetNumOperands(p) != 2 ||
        LLVMGetGEPSourceElementType(p) != LLVMInt8TypeInContext(llc))
        return 1;
    unsigned tz = known_tz(LLVMGetOperand(p, 1), 0);
    uint64_t base = known_align(LLVMGetOperand(p, 0), depth + 1);
    return tz < 63 && (1ull << tz) < base ? 1ull << tz : base;
}

uint64_t jit_simd_known_align(LLVMValueRef p)
{
    return known_align(p, 0);
}

unsigned simd_known_tz(const simd_fn *s, LLVMValueRef v, int depth)
{
    (void)s;
    return known_tz(v, depth);
}

/* --- the rules ---------------------------------------------------------------------------------- */

static unsigned bits_of(const simd_fn *s, LLVMTypeRef t)
{
    return LLVMGetTypeKind(t) == LLVMIntegerTypeKind ? LLVMGetIntTypeWidth(t)
                                                     : (unsigned)LLVMSizeOfTypeInBits(s->td, t);
}

static int64_t wrap_stride(int64_t stride, unsigned w)
{
    if (w >= 64)
        return stride;
    uint64_t m = (1ull << w) - 1, x = (uint64_t)stride & m;
    return x >> (w - 1) ? (int64_t)(x | ~m) : (int64_t)x;
}

static bool lin(simd_shape a)
{
    return a.kind == SIMD_UNIFORM || a.kind == SIMD_AFFINE;
}

static int64_t stride_of(simd_shape a)
{
    return a.kind == SIMD_AFFINE ? a.stride : 0;
}

/* Known trailing zeros of the lane-0 value of v (shape a). */
static unsigned tz_of(const simd_fn *s, simd_shape a, LLVMValueRef v)
{
    if (a.kind == SIMD_AFFINE)
        return a.tz;
    return a.kind == SIMD_UNIFORM ? simd_known_tz(s, v, 0) : 0;
}

static unsigned log2u(uint64_t x)
{
    return (unsigned)__builtin_ctzll(x);
}

static bool pow2(uint64_t x)
{
    return x && !(x & (x - 1));
}

/* An affine result: stride (wrapped to the type's bits), the lane-0 value's
 * known trailing zeros; a zero stride is uniform.  Lanes whose values stay
 * within one aligned block of W * |stride| (a power of two) cannot wrap. */
static simd_shape affine_bits(unsigned n, int64_t stride, unsigned tz, bool nuw, bool nsw, unsigned log2w)
{
    stride = wrap_stride(stride, n);
    if (!stride)
        return UNIFORM;
    uint64_t as = stride < 0 ? (uint64_t)-stride : (uint64_t)stride;
    if (tz > n)
        tz = n;
    if (stride > 0 && pow2(as) && tz >= log2w + log2u(as) && log2w + log2u(as) < n)
        nuw = nsw = true;
    return (simd_shape){ .kind = SIMD_AFFINE, .stride = stride, .tz = (uint8_t)tz, .nuw = nuw, .nsw = nsw };
}

static simd_shape affine_of(const simd_fn *s, LLVMValueRef in, int64_t stride, unsigned tz, bool nuw, bool nsw)
{
    return affine_bits(bits_of(s, LLVMTypeOf(in)), stride, tz, nuw, nsw, s->log2w);
}

static simd_shape varying_from(bool hint)
{
    return (simd_shape){ .kind = SIMD_VARYING, .hint = hint };
}

static bool hinted(simd_shape a)
{
    return a.kind == SIMD_AFFINE || (a.kind == SIMD_VARYING && a.hint);
}

static bool is_const(LLVMValueRef v, uint64_t *out)
{
    if (!LLVMIsAConstantInt(v) || LLVMGetIntTypeWidth(LLVMTypeOf(v)) > 64)
        return false;
    *out = LLVMConstIntGetZExtValue(v);
    return true;
}

static unsigned min_u(unsigned a, unsigned b)
{
    return a < b ? a : b;
}

static simd_shape add_like(const simd_fn *s, LLVMValueRef in, bool sub, bool flags)
{
    LLVMValueRef x = LLVMGetOperand(in, 0), y = LLVMGetOperand(in, 1);
    simd_shape a = simd_shape_of(s, x), b = simd_shape_of(s, y);
    if (!lin(a) || !lin(b))
        return varying_from(hinted(a) || hinted(b));
    int64_t st = sub ? stride_of(a) - stride_of(b) : stride_of(a) + stride_of(b);
    bool nuw = a.nuw && b.nuw && flags && LLVMGetNUW(in);
    bool nsw = a.nsw && b.nsw && flags && LLVMGetNSW(in);
    return affine_of(s, in, st, min_u(tz_of(s, a, x), tz_of(s, b, y)), nuw, nsw);
}

/* mul / shl by a constant factor. */
static simd_shape scale(const simd_fn *s, LLVMValueRef in, simd_shape a, LLVMValueRef av, uint64_t factor)
{
    unsigned tz = tz_of(s, a, av) + (factor ? log2u(factor) : 64);
    return affine_of(s, in, (int64_t)((uint64_t)stride_of(a) * factor), tz, a.nuw && LLVMGetNUW(in),
                     a.nsw && LLVMGetNSW(in));
}

/* (base + l * stride) / 2^k (udiv, lshr: signed false; ashr: true): uniform
 * when the W lanes stay within one multiple of 2^k, affine when the stride
 * is one. */
static simd_shape divide(const simd_fn *s, LLVMValueRef in, simd_shape a, unsigned k, bool is_signed)
{
    if (a.kind != SIMD_AFFINE || a.stride <= 0 || !(is_signed ? a.nsw : a.nuw) || !pow2((uint64_t)a.stride))
        return varying_from(true);
    unsigned j = log2u((uint64_t)a.stride);
    if (k >= s->log2w + j && a.tz >= s->log2w + j)
        return UNIFORM;
    if (k <= j && a.tz >= k)
        return affine_of(s, in, a.stride >> k, a.tz - k, true, true);
    return varying_from(true);
}

static simd_shape binary(const simd_fn *s, LLVMValueRef in, LLVMOpcode op)
{
    LLVMValueRef x = LLVMGetOperand(in, 0), y = LLVMGetOperand(in, 1);
    simd_shape a = simd_shape_of(s, x), b = simd_shape_of(s, y);
    uint64_t k = 0;
    bool hint = hinted(a) || hinted(b);
    bool kc = b.kind == SIMD_UNIFORM && is_const(y, &k);
    switch (op) {
    case LLVMAdd:
        return add_like(s, in, false, true);
    case LLVMSub:
        return add_like(s, in, true, true);
    case LLVMOr:
        if (LLVMGetIsDisjoint(in))
            return add_like(s, in, false, false);
        break;
    case LLVMMul:
        if (lin(a) && kc)
            return scale(s, in, a, x, k);
        if (lin(b) && a.kind == SIMD_UNIFORM && is_const(x, &k))
            return scale(s, in, b, y, k);
        break;
    case LLVMShl:
        if (lin(a) && kc && k < 64)
            return scale(s, in, a, x, 1ull << k);
        break;
    case LLVMUDiv:
        if (kc && pow2(k))
            return divide(s, in, a, log2u(k), false);
        if (kc && k && a.kind == SIMD_AFFINE && a.stride == 1 && a.nuw && a.tz >= s->log2w && k % s->W == 0)
            return UNIFORM;
        break;
    case LLVMLShr:
    case LLVMAShr:
        if (kc && k < 64)
            return divide(s, in, a, (unsigned)k, op == LLVMAShr);
        break;
    case LLVMURem:
        /* (base + l * s) % C, the W lanes within one multiple of C */
        if (kc && k && a.kind == SIMD_AFFINE && a.stride > 0 && a.nuw && pow2((uint64_t)a.stride)) {
            unsigned j = log2u((uint64_t)a.stride);
            if (a.tz >= s->log2w + j && k % ((uint64_t)s->W << j) == 0)
                return affine_of(s, in, a.stride, s->log2w + j, true, true);
        }
        break;
    case LLVMAnd: {
        /* the lanes differ in bits j .. j + log2(W) - 1 only: M keeps all of them or none */
        if (a.kind == SIMD_UNIFORM && b.kind == SIMD_AFFINE) {
            simd_shape t = a;
            a = b;
            b = t;
            y = x;
        }
        if (a.kind == SIMD_AFFINE && a.stride > 0 && pow2((uint64_t)a.stride) && b.kind == SIMD_UNIFORM &&
            is_const(y, &k)) {
            unsigned j = log2u((uint64_t)a.stride);
            uint64_t lanes = ((uint64_t)(s->W - 1)) << j;
            if (a.tz >= s->log2w + j && (k & lanes) == lanes)
                return affine_of(s, in, a.stride, s->log2w + j, true, true);
            if (a.tz >= s->log2w + j && (k & lanes) == 0)
                return UNIFORM;
        }
        break;
    }
    default:
        hint = false;
        break;
    }
    return varying_from(hint);
}

static simd_shape cast(const simd_fn *s, LLVMValueRef in, LLVMOpcode op)
{
    simd_shape a = simd_shape_of(s, LLVMGetOperand(in, 0));
    LLVMTypeRef t = LLVMTypeOf(in), st = LLVMTypeOf(LLVMGetOperand(in, 0));
    if (a.kind != SIMD_AFFINE)
        return varying_from(hinted(a));
    switch (op) {
    case LLVMTrunc:
        return affine_of(s, in, a.stride, a.tz, false, false);
    case LLVMZExt:
        return a.nuw ? affine_of(s, in, a.stride, a.tz, true, true) : varying_from(true);
    case LLVMSExt:
        return a.nsw ? affine_of(s, in, a.stride, a.tz, false, true) : varying_from(true);
    case LLVMPtrToInt:
    case LLVMIntToPtr:
        if (bits_of(s, t) == 64 && bits_of(s, st) == 64)
            return affine_of(s, in, a.stride, a.tz, true, true);
        return varying_from(true);
    case LLVMBitCast:
        if (LLVMGetTypeKind(t) == LLVMGetTypeKind(st) &&
            (LLVMGetTypeKind(t) == LLVMIntegerTypeKind || LLVMGetTypeKind(t) == LLVMPointerTypeKind))
            return a;
        return VARYING;
    default:
        return VARYING;
    }
}

static simd_shape gep(const simd_fn *s, LLVMValueRef in)
{
    if (LLVMGetTypeKind(LLVMTypeOf(in)) != LLVMPointerTypeKind)
        return VARYING; /* a vector of pointers in the scalar function */
    simd_shape base = simd_shape_of(s, LLVMGetOperand(in, 0));
    bool hint = hinted(base);
    bool ok = lin(base);
    int64_t stride = stride_of(base);
    LLVMTypeRef t = LLVMGetGEPSourceElementType(in);
    for (int k = 1, n = LLVMGetNumOperands(in); k < n; k++) {
        LLVMValueRef ix = LLVMGetOperand(in, k);
        simd_shape a = simd_shape_of(s, ix);
        hint |= hinted(a);
        uint64_t size;
        if (k == 1) {
            size = LLVMABISizeOfType(s->td, t);
        } else if (LLVMGetTypeKind(t) == LLVMStructTypeKind) {
            if (a.kind != SIMD_UNIFORM)
                return varying_from(hint); /* never: field numbers are constants */
            t = LLVMStructGetTypeAtIndex(t, (unsigned)LLVMConstIntGetZExtValue(ix));
            continue;
        } else if (LLVMGetTypeKind(t) == LLVMArrayTypeKind) {
            t = LLVMGetElementType(t);
            size = LLVMABISizeOfType(s->td, t);
        } else {
            return varying_from(hint); /* into a vector */
        }
        if (a.kind == SIMD_AFFINE && LLVMGetIntTypeWidth(LLVMTypeOf(ix)) < 64 && !a.nsw)
            ok = false; /* the index is sign-extended, and might wrap */
        if (!lin(a))
            ok = false;
        stride += stride_of(a) * (int64_t)size;
    }
    if (!ok)
        return varying_from(hint);
    return affine_of(s, in, stride, 0, true, true);
}

static simd_shape phi(const simd_fn *s, LLVMValueRef in)
{
    unsigned b = jit_cfg_index(&s->cfg, LLVMGetInstructionParent(in));
    bool any = false, affine_seen = false, hint = false, nuw = true, nsw = true;
    bool join =
        jit_uniformity_join(s->u, b) && jit_cfg_npred(&s->cfg, b) >= 2 && !jit_uniformity_join_brings_one(s->u, in);
    int64_t stride = 0;
    unsigned tz = 64;
    for (unsigned k = 0, n = LLVMCountIncoming(in); k < n; k++) {
        LLVMValueRef x = LLVMGetIncomingValue(in, k);
        simd_shape a = simd_shape_of(s, x);
        if (a.kind == SIMD_UNDEF)
            continue;
        hint |= hinted(a);
        if (a.kind == SIMD_VARYING || join || (any && stride_of(a) != stride))
            return varying_from(hint);
        any = true;
        affine_seen |= a.kind == SIMD_AFFINE;
        stride = stride_of(a);
        tz = min_u(tz, tz_of(s, a, x));
        nuw &= a.nuw;
        nsw &= a.nsw;
    }
    if (!any)
        return (simd_shape){ .kind = SIMD_UNDEF };
    if (!affine_seen) /* all incoming uniform, yet the analysis says it varies */
        return varying_from(hint);
    return affine_of(s, in, stride, tz, nuw, nsw);
}

static simd_shape call(const simd_fn *s, LLVMValueRef in)
{
    jit_sg_call k = jit_sg_decode(in);
    if (k.kind == JIT_SG_LANE)
        return affine_of(s, in, 1, 32, true, true);
    bool hint = false;
    if (jit_call_int_minmax(in))
        for (unsigned i = 0; i < 2; i++)
            hint |= hinted(simd_shape_of(s, LLVMGetOperand(in, i)));
    return varying_from(hint);
}

static bool operands_uniform(const simd_fn *s, LLVMValueRef in)
{
    for (int k = 0, n = LLVMGetNumOperands(in) - (LLVMIsACallInst(in) ? 1 : 0); k < n; k++)
        if (simd_shape_of(s, LLVMGetOperand(in, k)).kind != SIMD_UNIFORM)
            return false;
    return true;
}

/* The shape of `in` from its operands' shapes (the analysis says it varies). */
static simd_shape rule(const simd_fn *s, LLVMValueRef in)
{
    LLVMOpcode op = LLVMGetInstructionOpcode(in);
    /* computed from uniform values alone (which the analysis may not have seen) */
    if (((op != LLVMPHI && jit_opcode_pure(op)) || (op == LLVMCall && jit_call_pure(in))) && operands_uniform(s, in))
        return UNIFORM;
    switch (op) {
    case LLVMLoad: /* lanes in lockstep read one address together */
        if (!LLVMGetVolatile(in) && LLVMGetOrdering(in) == LLVMAtomicOrderingNotAtomic &&
            simd_shape_of(s, LLVMGetOperand(in, 0)).kind == SIMD_UNIFORM)
            return UNIFORM;
        return VARYING;
    case LLVMAdd:
    case LLVMSub:
    case LLVMMul:
    case LLVMShl:
    case LLVMOr:
    case LLVMAnd:
    case LLVMXor:
    case LLVMUDiv:
    case LLVMSDiv:
    case LLVMURem:
    case LLVMSRem:
    case LLVMLShr:
    case LLVMAShr:
        return binary(s, in, op);
    case LLVMTrunc:
    case LLVMZExt:
    case LLVMSExt:
    case LLVMPtrToInt:
    case LLVMIntToPtr:
    case LLVMBitCast:
        return cast(s, in, op);
    case LLVMGetElementPtr:
        return gep(s, in);
    case LLVMSelect: {
        simd_shape c = simd_shape_of(s, LLVMGetOperand(in, 0));
        LLVMValueRef x = LLVMGetOperand(in, 1), y = LLVMGetOperand(in, 2);
        simd_shape a = simd_shape_of(s, x), b = simd_shape_of(s, y);
        if (c.kind == SIMD_UNIFORM && lin(a) && lin(b) && stride_of(a) == stride_of(b))
            return affine_of(s, in, stride_of(a), min_u(tz_of(s, a, x), tz_of(s, b, y)), a.nuw && b.nuw,
                             a.nsw && b.nsw);
        return varying_from(hinted(a) || hinted(b));
    }
    case LLVMPHI:
        return phi(s, in);
    case LLVMFreeze:
        return simd_shape_of(s, LLVMGetOperand(in, 0));
    case LLVMCall:
        return call(s, in);
    case LLVMAlloca:
        return affine_of(s, in, (int64_t)simd_private_stride(s, in), 0, true, true);
    default:
        return VARYING;
    }
}

/* Whether `in` is defined in a loop that lanes leave at different
 * iterations and used after it. */
static bool escapes_divergent_loop(const simd_fn *s, LLVMValueRef in, unsigned b)
{
    for (unsigned l = s->cfg.loop_of[b]; l != JIT_CFG_NONE; l = s->cfg.loops[l].parent) {
        if (s->loop_uniform[l])
            continue;
        for (LLVMUseRef u = LLVMGetFirstUse(in); u; u = LLVMGetNextUse(u)) {
            LLVMValueRef user = LLVMGetUser(u);
            unsigned ub = LLVMIsAInstruction(user) ? jit_cfg_index(&s->cfg, LLVMGetInstructionParent(user)) : b;
            if (!jit_cfg_loop_contains(&s->cfg, l, ub))
                return true;
        }
    }
    return false;
}

static bool same(simd_shape a, simd_shape b)
{
    return a.kind == b.kind && a.stride == b.stride && a.tz == b.tz && a.nuw == b.nuw && a.nsw == b.nsw &&
           a.hint == b.hint;
}

int simd_shapes(simd_fn *s)
{
    unsigned n = 0;
    for (unsigned i = 0; i < s->norder; i++)
        for (LLVMValueRef in = LLVMGetFirstInstruction(s->cfg.blocks[s->order[i]]); in; in = LLVMGetNextInstruction(in))
            n++;
    s->shape_store = calloc(n + 1, sizeof *s->shape_store);
    bool *escapes = calloc(n + 1, sizeof *escapes);
    if (!s->shape_store || !escapes) {
        free(escapes);
        return simd_fail(s, "out of memory");
    }
    unsigned k = 0;
    for (unsigned i = 0; i < s->norder; i++) {
        unsigned b = s->order[i];
        for (LLVMValueRef in = LLVMGetFirstInstruction(s->cfg.blocks[b]); in; in = LLVMGetNextInstruction(in), k++) {
            escapes[k] = escapes_divergent_loop(s, in, b);
            if (!util_ptrmap_put(&s->shapes, in, &s->shape_store[k])) {
                free(escapes);
                return simd_fail(s, "out of memory");
            }
        }
    }
    s->nshape_store = n;
    bool changed = true;
    for (int round = 0; changed; round++) {
        if (round > 64) {
            free(escapes);
            return simd_fail(s, "the value shapes do not settle");
        }
        changed = false;
        k = 0;
        for (unsigned i = 0; i < s->norder; i++)
            for (LLVMValueRef in = LLVMGetFirstInstruction(s->cfg.blocks[s->order[i]]); in;
                 in = LLVMGetNextInstruction(in), k++) {
                simd_shape sh;
                if (!jit_uniformity_varying(s->u, in))
                    sh = UNIFORM;
                else if (escapes[k])
                    sh = VARYING;
                else
                    sh = rule(s, in);
                if (!same(sh, s->shape_store[k])) {
                    s->shape_store[k] = sh;
                    changed = true;
                }
            }
    }
    free(escapes);
    return 0;
}

int simd_call_varying(void *user, const jit_uniformity *u, LLVMValueRef call)
{
    (void)user;
    jit_sg_call k = jit_sg_decode(call);
    switch (k.kind) {
    case JIT_SG_NONE:
        return -1;
    case JIT_SG_SIZE:
    case JIT_SG_LIVE:
    case JIT_SG_ID:
    case JIT_SG_FIRST:
    case JIT_SG_ALL:
    case JIT_SG_ANY:
    case JIT_SG_BALLOT:
    case JIT_SG_REDUCE:
        return 0;
    case JIT_SG_SHUFFLE:
        return jit_uniformity_varying(u, LLVMGetOperand(call, 0)) && jit_uniformity_varying(u, LLVMGetOperand(call, 1));
    default:
        return 1;
    }
}
