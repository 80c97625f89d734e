/* jit/simd_shape.c — what each value of the scalar function is across lanes.
 *
 * Uniform where the divergence analysis (lanes in lockstep) says so.
 * Otherwise affine when the lanes' values are base + lane * stride for a
 * constant stride, followed through the operations that keep that form:
 * add, sub, mul and shl by constants, disjoint or, truncation, extensions
 * that cannot wrap across the lanes, GEPs, selects on a uniform condition,
 * pointer/integer casts; and, for a stride-1 value whose lane-0 value is a
 * multiple of W ("aligned": the local index, the sub-group lane), udiv, urem,
 * lshr and `and` by constants compatible with W (the x and y of a local index
 * when the work-group's width is a multiple of W).  An aligned stride-1 value
 * never wraps within the W lanes, which is what lets zext/sext keep it affine.
 * Everything else varies; a varying value computed from affine ones is marked
 * (hint) so memory accesses through it test contiguity at run time.
 *
 * Phis: a phi at a join of a varying branch varies; another takes the common
 * form of its incoming values (all lanes at it came the same way).  The
 * shapes are computed in schedule order to a fixed point (loop-header phis
 * see their back-edge values on the next round).  A value defined in a loop
 * that lanes leave at different iterations and used after it varies. */
#include "simd_internal.h"

#include <stdlib.h>
#include <string.h>

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
            return (simd_shape){ .kind = SIMD_AFFINE, .stride = 1, .aligned = true, .nuw = true, .nsw = true };
        }
        return VARYING;
    }
    if (!LLVMIsAInstruction(v))
        return UNIFORM; /* constants, globals, functions */
    const simd_shape *sh = util_ptrmap_get(&s->shapes, v);
    return sh ? *sh : (simd_shape){ .kind = SIMD_UNDEF };
}

unsigned simd_known_tz(const simd_fn *s, LLVMValueRef v, int depth)
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
        r = simd_known_tz(s, a, depth + 1) + simd_known_tz(s, b, depth + 1);
        break;
    case LLVMShl:
        r = LLVMIsAConstantInt(b) ? simd_known_tz(s, a, depth + 1) + (unsigned)LLVMConstIntGetZExtValue(b) : 0;
        break;
    case LLVMAdd:
    case LLVMSub:
    case LLVMOr:
        ta = simd_known_tz(s, a, depth + 1);
        tb = simd_known_tz(s, b, depth + 1);
        r = ta < tb ? ta : tb;
        break;
    case LLVMAnd:
        ta = simd_known_tz(s, a, depth + 1);
        tb = simd_known_tz(s, b, depth + 1);
        r = ta > tb ? ta : tb;
        break;
    case LLVMZExt:
    case LLVMSExt:
    case LLVMTrunc:
    case LLVMFreeze:
        r = simd_known_tz(s, a, depth + 1);
        break;
    case LLVMSelect:
        ta = simd_known_tz(s, b, depth + 1);
        tb = simd_known_tz(s, LLVMGetOperand(v, 2), depth + 1);
        r = ta < tb ? ta : tb;
        break;
    default:
        r = 0;
        break;
    }
    return r < w ? r : w;
}

/* --- the rules ---------------------------------------------------------------------------------- */

static int64_t wrap_stride(int64_t stride, LLVMTypeRef t)
{
    if (LLVMGetTypeKind(t) != LLVMIntegerTypeKind)
        return stride;
    unsigned w = LLVMGetIntTypeWidth(t);
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

static bool aligned_of(const simd_fn *s, simd_shape a, LLVMValueRef v)
{
    if (a.kind == SIMD_AFFINE)
        return a.aligned;
    return a.kind == SIMD_UNIFORM && simd_known_tz(s, v, 0) >= s->log2w;
}

/* An affine result of stride `stride` and type t; a zero stride is uniform. */
static simd_shape affine(LLVMTypeRef t, int64_t stride, bool aligned, bool nuw, bool nsw)
{
    stride = wrap_stride(stride, t);
    if (!stride)
        return UNIFORM;
    if (aligned && stride == 1)
        nuw = nsw = true; /* within W lanes from a multiple of W: no wrap */
    return (simd_shape){ .kind = SIMD_AFFINE, .stride = stride, .aligned = aligned, .nuw = nuw, .nsw = nsw };
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

/* A stride-1 aligned value that does not wrap (the local index and its kin). */
static bool index_like(simd_shape a)
{
    return a.kind == SIMD_AFFINE && a.stride == 1 && a.aligned && a.nuw;
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
    return affine(LLVMTypeOf(in), st, aligned_of(s, a, x) && aligned_of(s, b, y), nuw, nsw);
}

/* mul / shl by a constant factor. */
static simd_shape scale(const simd_fn *s, LLVMValueRef in, simd_shape a, LLVMValueRef av, uint64_t factor)
{
    bool aligned = aligned_of(s, a, av) || (factor && (unsigned)__builtin_ctzll(factor) >= s->log2w);
    return affine(LLVMTypeOf(in), (int64_t)((uint64_t)stride_of(a) * factor), aligned, a.nuw && LLVMGetNUW(in),
                  a.nsw && LLVMGetNSW(in));
}

static simd_shape binary(const simd_fn *s, LLVMValueRef in, LLVMOpcode op)
{
    LLVMValueRef x = LLVMGetOperand(in, 0), y = LLVMGetOperand(in, 1);
    simd_shape a = simd_shape_of(s, x), b = simd_shape_of(s, y);
    uint64_t k;
    bool hint = hinted(a) || hinted(b);
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
        if (lin(a) && b.kind == SIMD_UNIFORM && is_const(y, &k))
            return scale(s, in, a, x, k);
        if (lin(b) && a.kind == SIMD_UNIFORM && is_const(x, &k))
            return scale(s, in, b, y, k);
        break;
    case LLVMShl:
        if (lin(a) && b.kind == SIMD_UNIFORM && is_const(y, &k) && k < 64)
            return scale(s, in, a, x, 1ull << k);
        break;
    case LLVMUDiv:
        if (index_like(a) && b.kind == SIMD_UNIFORM && is_const(y, &k) && k && k % s->W == 0)
            return UNIFORM;
        break;
    case LLVMLShr:
        if (index_like(a) && b.kind == SIMD_UNIFORM && is_const(y, &k) && k < 64 && k >= s->log2w)
            return UNIFORM;
        break;
    case LLVMURem:
        if (index_like(a) && b.kind == SIMD_UNIFORM && is_const(y, &k) && k && k % s->W == 0)
            return affine(LLVMTypeOf(in), 1, true, true, true);
        break;
    case LLVMAnd:
        /* (base + l) & M with base's low log2(W) bits clear: M keeps all of l's bits or none */
        if (index_like(b) && a.kind == SIMD_UNIFORM) {
            simd_shape t = a;
            a = b;
            b = t;
            y = x;
        }
        if (index_like(a) && b.kind == SIMD_UNIFORM && is_const(y, &k)) {
            if ((k & (s->W - 1)) == s->W - 1)
                return affine(LLVMTypeOf(in), 1, true, true, true);
            if ((k & (s->W - 1)) == 0)
                return UNIFORM;
        }
        break;
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
        return affine(t, a.stride, a.aligned && LLVMGetIntTypeWidth(t) > s->log2w, false, false);
    case LLVMZExt:
        return a.nuw ? affine(t, a.stride, a.aligned, true, true) : varying_from(true);
    case LLVMSExt:
        return a.nsw ? affine(t, a.stride, a.aligned, false, true) : varying_from(true);
    case LLVMPtrToInt:
    case LLVMIntToPtr:
        if (LLVMSizeOfTypeInBits(s->td, t) == 64 && LLVMSizeOfTypeInBits(s->td, st) == 64)
            return affine(t, a.stride, false, true, true);
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
    return affine(LLVMTypeOf(in), stride, false, true, true);
}

static simd_shape phi(const simd_fn *s, LLVMValueRef in)
{
    unsigned b = jit_cfg_index(&s->cfg, LLVMGetInstructionParent(in));
    simd_shape r = { .kind = SIMD_UNDEF };
    bool hint = false, join = jit_uniformity_join(s->u, b) && jit_cfg_npred(&s->cfg, b) >= 2;
    for (unsigned k = 0, n = LLVMCountIncoming(in); k < n; k++) {
        LLVMValueRef x = LLVMGetIncomingValue(in, k);
        simd_shape a = simd_shape_of(s, x);
        if (a.kind == SIMD_UNDEF)
            continue;
        hint |= hinted(a);
        if (a.kind == SIMD_VARYING || join) {
            r = VARYING;
            continue;
        }
        bool al = aligned_of(s, a, x);
        if (r.kind == SIMD_UNDEF) {
            r = a.kind == SIMD_UNIFORM ? (simd_shape){ .kind = SIMD_UNIFORM, .aligned = al, .nuw = true, .nsw = true }
                                       : a;
            r.aligned = al;
        } else if (r.kind != SIMD_VARYING) {
            if (stride_of(r) != stride_of(a)) {
                r = VARYING;
                continue;
            }
            r.aligned &= al;
            r.nuw &= a.nuw;
            r.nsw &= a.nsw;
            if (a.kind == SIMD_AFFINE)
                r.kind = SIMD_AFFINE;
        }
    }
    if (r.kind == SIMD_VARYING)
        r.hint = hint;
    if (r.kind == SIMD_UNIFORM) /* all incoming uniform, yet the analysis says it varies */
        r = varying_from(hint);
    return r;
}

static simd_shape call(const simd_fn *s, LLVMValueRef in)
{
    jit_sg_call k = jit_sg_decode(in);
    if (k.kind == JIT_SG_LANE)
        return (simd_shape){ .kind = SIMD_AFFINE, .stride = 1, .aligned = true, .nuw = true, .nsw = true };
    bool hint = false;
    LLVMValueRef f = LLVMGetCalledValue(in);
    size_t len;
    const char *name = LLVMIsAFunction(f) ? LLVMGetValueName2(f, &len) : "";
    if (!strncmp(name, "llvm.smin.", 10) || !strncmp(name, "llvm.smax.", 10) || !strncmp(name, "llvm.umin.", 10) ||
        !strncmp(name, "llvm.umax.", 10))
        for (unsigned i = 0; i < 2; i++)
            hint |= hinted(simd_shape_of(s, LLVMGetOperand(in, i)));
    return varying_from(hint);
}

/* The shape of `in` from its operands' shapes (the analysis says it varies). */
static simd_shape rule(const simd_fn *s, LLVMValueRef in)
{
    LLVMOpcode op = LLVMGetInstructionOpcode(in);
    switch (op) {
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
            return affine(LLVMTypeOf(in), stride_of(a), aligned_of(s, a, x) && aligned_of(s, b, y), a.nuw && b.nuw,
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
        return affine(LLVMTypeOf(in), (int64_t)simd_private_stride(s, in), false, true, true);
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
    return a.kind == b.kind && a.stride == b.stride && a.aligned == b.aligned && a.nuw == b.nuw && a.nsw == b.nsw &&
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
