/* jit/extinst_util.c — shapes, constants, calls and float math shared by the
 * GLSL.std.450 and OpenCL.std lowerings (see extinst_util.h). */
#include "jit/extinst_util.h"
#include "lower_ctx.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

LLVMValueRef xi_fail(spv_diag *diag, xi_set set, uint32_t inst, const char *fmt, ...)
{
    const char *name = set == XI_GLSL450 ? xi_glsl450_info(inst, NULL) : xi_opencl_info(inst, NULL, NULL);
    spv_fail(diag, "%s %s (instruction %u): ", set == XI_GLSL450 ? "GLSL.std.450" : "OpenCL.std", name ? name : "?",
             inst);
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    spv_diag_append(diag, "%s", why);
    return NULL;
}

/* --- shapes ----------------------------------------------------------------------------- */

LLVMTypeRef xi_elem(LLVMTypeRef t)
{
    return LLVMGetTypeKind(t) == LLVMVectorTypeKind ? LLVMGetElementType(t) : t;
}

unsigned xi_lanes(LLVMTypeRef t)
{
    return LLVMGetTypeKind(t) == LLVMVectorTypeKind ? LLVMGetVectorSize(t) : 0;
}

unsigned xi_fp_bits(LLVMTypeRef t)
{
    return LLVMGetTypeKind(xi_elem(t)) == LLVMIntegerTypeKind ? 0 : jit_scalar_bits(t);
}

bool xi_is_fp(LLVMTypeRef t)
{
    return xi_fp_bits(t) != 0;
}

bool xi_is_int(LLVMTypeRef t)
{
    return LLVMGetTypeKind(xi_elem(t)) == LLVMIntegerTypeKind;
}

unsigned xi_int_bits(LLVMTypeRef t)
{
    return xi_is_int(t) ? LLVMGetIntTypeWidth(xi_elem(t)) : 0;
}

LLVMTypeRef xi_reshape(LLVMTypeRef shape, LLVMTypeRef elem)
{
    unsigned n = xi_lanes(shape);
    return n ? LLVMVectorType(elem, n) : elem;
}

LLVMTypeRef xi_int_like(LLVMTypeRef fp_shape)
{
    LLVMContextRef ctx = LLVMGetTypeContext(fp_shape);
    return xi_reshape(fp_shape, LLVMIntTypeInContext(ctx, xi_fp_bits(fp_shape)));
}

const char *xi_type_str(LLVMTypeRef t)
{
    static _Thread_local char ring[4][96];
    static _Thread_local unsigned k;
    char *buf = ring[k++ & 3];
    if (!t) {
        snprintf(buf, sizeof ring[0], "(none)");
        return buf;
    }
    char *s = LLVMPrintTypeToString(t);
    snprintf(buf, sizeof ring[0], "%s", s);
    LLVMDisposeMessage(s);
    return buf;
}

/* --- constants and simple IR ----------------------------------------------------------- */

static LLVMValueRef splat_const(LLVMTypeRef t, LLVMValueRef k)
{
    unsigned n = xi_lanes(t);
    if (!n)
        return k;
    LLVMValueRef lanes[64];
    for (unsigned i = 0; i < n && i < 64; i++)
        lanes[i] = k;
    return LLVMConstVector(lanes, n);
}

LLVMValueRef xi_fconst(ext_lower_ctx *c, LLVMTypeRef t, double v)
{
    (void)c;
    return splat_const(t, LLVMConstReal(xi_elem(t), v));
}

LLVMValueRef xi_iconst(ext_lower_ctx *c, LLVMTypeRef t, int64_t v)
{
    (void)c;
    return splat_const(t, LLVMConstInt(xi_elem(t), (unsigned long long)v, 1));
}

LLVMValueRef xi_splat(ext_lower_ctx *c, LLVMValueRef v, LLVMTypeRef like)
{
    unsigned n = xi_lanes(like);
    if (!n || xi_lanes(LLVMTypeOf(v)))
        return v;
    LLVMTypeRef vt = LLVMVectorType(LLVMTypeOf(v), n);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(c->ctx);
    LLVMValueRef one = LLVMBuildInsertElement(c->b, LLVMGetPoison(vt), v, LLVMConstInt(i32, 0, 0), "");
    return LLVMBuildShuffleVector(c->b, one, LLVMGetPoison(vt), LLVMConstNull(LLVMVectorType(i32, n)), "");
}

LLVMValueRef xi_fpcast(ext_lower_ctx *c, LLVMValueRef v, LLVMTypeRef elem)
{
    LLVMTypeRef from = LLVMTypeOf(v), to = xi_reshape(from, elem);
    unsigned fb = xi_fp_bits(from), tb = xi_fp_bits(to);
    if (fb == tb)
        return v;
    return fb < tb ? LLVMBuildFPExt(c->b, v, to, "") : LLVMBuildFPTrunc(c->b, v, to, "");
}

LLVMValueRef xi_intcast(ext_lower_ctx *c, LLVMValueRef v, LLVMTypeRef elem, bool is_signed)
{
    LLVMTypeRef to = xi_reshape(LLVMTypeOf(v), elem);
    if (to == LLVMTypeOf(v))
        return v;
    return LLVMBuildIntCast2(c->b, v, to, is_signed, "");
}

LLVMValueRef xi_select(ext_lower_ctx *c, LLVMValueRef cond, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildSelect(c->b, cond, a, b, "");
}

LLVMValueRef xi_fcmp(ext_lower_ctx *c, LLVMRealPredicate p, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildFCmp(c->b, p, a, b, "");
}

/* Allocas go to the top of the entry block so that they are static (and
 * promotable), whatever block the builder is in. */
LLVMValueRef xi_entry_alloca(ext_lower_ctx *c, LLVMTypeRef t)
{
    LLVMBasicBlockRef cur = LLVMGetInsertBlock(c->b);
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(LLVMGetBasicBlockParent(cur));
    LLVMBuilderRef eb = LLVMCreateBuilderInContext(c->ctx);
    LLVMValueRef first = LLVMGetFirstInstruction(entry);
    if (first)
        LLVMPositionBuilderBefore(eb, first);
    else
        LLVMPositionBuilderAtEnd(eb, entry);
    LLVMValueRef a = LLVMBuildAlloca(eb, t, "");
    LLVMDisposeBuilder(eb);
    return a;
}

LLVMValueRef xi_store_out(ext_lower_ctx *c, LLVMValueRef v, LLVMValueRef ptr)
{
    LLVMTypeRef t = LLVMTypeOf(v);
    unsigned bits = xi_is_fp(t) ? xi_fp_bits(t) : xi_int_bits(t);
    LLVMValueRef st = LLVMBuildStore(c->b, v, ptr);
    LLVMSetAlignment(st, bits >= 8 ? bits / 8 : 1);
    return st;
}

LLVMValueRef xi_extract_lane(ext_lower_ctx *c, LLVMValueRef v, unsigned i)
{
    if (!xi_lanes(LLVMTypeOf(v)))
        return v;
    return LLVMBuildExtractElement(c->b, v, LLVMConstInt(LLVMInt32TypeInContext(c->ctx), i, 0), "");
}

static LLVMValueRef insert_lane(ext_lower_ctx *c, LLVMValueRef vec, LLVMValueRef v, unsigned i)
{
    return LLVMBuildInsertElement(c->b, vec, v, LLVMConstInt(LLVMInt32TypeInContext(c->ctx), i, 0), "");
}

/* --- calls --------------------------------------------------------------------------------- */

LLVMValueRef xi_intrin(ext_lower_ctx *c, const char *name, LLVMTypeRef *over, unsigned nover, LLVMValueRef *args,
                       unsigned nargs)
{
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    if (!id) {
        /* A misspelt name is a bug in this file, not in the input: fail loudly. */
        fprintf(stderr, "spvjit: internal error: no LLVM intrinsic %s\n", name);
        return NULL;
    }
    LLVMValueRef fn = LLVMGetIntrinsicDeclaration(c->mod, id, over, nover);
    LLVMTypeRef fty = LLVMIntrinsicGetType(c->ctx, id, over, nover);
    return LLVMBuildCall2(c->b, fty, fn, args, nargs, "");
}

LLVMValueRef xi_intrin1(ext_lower_ctx *c, const char *name, LLVMValueRef x)
{
    LLVMTypeRef t = LLVMTypeOf(x);
    return xi_intrin(c, name, &t, 1, &x, 1);
}

LLVMValueRef xi_intrin2(ext_lower_ctx *c, const char *name, LLVMValueRef x, LLVMValueRef y)
{
    LLVMTypeRef t = LLVMTypeOf(x);
    LLVMValueRef a[2] = { x, y };
    return xi_intrin(c, name, &t, 1, a, 2);
}

LLVMValueRef xi_intrin3(ext_lower_ctx *c, const char *name, LLVMValueRef x, LLVMValueRef y, LLVMValueRef z)
{
    LLVMTypeRef t = LLVMTypeOf(x);
    LLVMValueRef a[3] = { x, y, z };
    return xi_intrin(c, name, &t, 1, a, 3);
}

/* Declares (once) a libm function `name` of n arguments of type w, returning w.
 * libm functions touch no memory we care about (errno is not observable from
 * SPIR-V), so they are marked memory(none) and nounwind: LLVM may CSE, hoist
 * and drop them like the intrinsics. */
static LLVMValueRef libm_decl(ext_lower_ctx *c, const char *name, LLVMTypeRef w, unsigned n)
{
    LLVMValueRef fn = LLVMGetNamedFunction(c->mod, name);
    if (fn)
        return fn;
    LLVMTypeRef params[3] = { w, w, w };
    fn = LLVMAddFunction(c->mod, name, LLVMFunctionType(w, params, n, 0));
    static const char *const attrs[] = { "nounwind", "willreturn", "nosync" };
    for (unsigned i = 0; i < 3; i++) {
        unsigned kind = LLVMGetEnumAttributeKindForName(attrs[i], strlen(attrs[i]));
        LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(c->ctx, kind, 0));
    }
    unsigned mem = LLVMGetEnumAttributeKindForName("memory", 6);
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(c->ctx, mem, 0));
    return fn;
}

LLVMValueRef xi_libm(ext_lower_ctx *c, const char *dname, LLVMValueRef *args, unsigned nargs)
{
    LLVMTypeRef t = LLVMTypeOf(args[0]);
    unsigned bits = xi_fp_bits(t), n = xi_lanes(t);
    LLVMTypeRef w = bits == 64 ? LLVMDoubleTypeInContext(c->ctx) : LLVMFloatTypeInContext(c->ctx);
    char name[64];
    snprintf(name, sizeof name, "%s%s", dname, bits == 64 ? "" : "f");
    LLVMValueRef fn = libm_decl(c, name, w, nargs);
    LLVMTypeRef fty = LLVMGlobalGetValueType(fn);
    LLVMValueRef res = n ? LLVMGetPoison(t) : NULL;
    for (unsigned i = 0; i < (n ? n : 1); i++) {
        LLVMValueRef la[3];
        for (unsigned k = 0; k < nargs && k < 3; k++) {
            LLVMValueRef a = xi_splat(c, args[k], t);
            la[k] = xi_fpcast(c, xi_extract_lane(c, a, i), w);
        }
        LLVMValueRef r = LLVMBuildCall2(c->b, fty, fn, la, nargs, "");
        r = xi_fpcast(c, r, xi_elem(t));
        res = n ? insert_lane(c, res, r, i) : r;
    }
    return res;
}

LLVMValueRef xi_libm1(ext_lower_ctx *c, const char *dname, LLVMValueRef x)
{
    return xi_libm(c, dname, &x, 1);
}

LLVMValueRef xi_libm2(ext_lower_ctx *c, const char *dname, LLVMValueRef x, LLVMValueRef y)
{
    LLVMValueRef a[2] = { x, y };
    return xi_libm(c, dname, a, 2);
}

/* --- float math ------------------------------------------------------------------------------ */

LLVMValueRef xi_isnan(ext_lower_ctx *c, LLVMValueRef x)
{
    return xi_fcmp(c, LLVMRealUNO, x, x);
}

LLVMValueRef xi_fabs(ext_lower_ctx *c, LLVMValueRef x)
{
    return xi_intrin1(c, "llvm.fabs", x);
}

LLVMValueRef xi_isinf(ext_lower_ctx *c, LLVMValueRef x)
{
    return xi_fcmp(c, LLVMRealOEQ, xi_fabs(c, x), xi_fconst(c, LLVMTypeOf(x), INFINITY));
}

LLVMValueRef xi_copysign(ext_lower_ctx *c, LLVMValueRef mag, LLVMValueRef sgn)
{
    return xi_intrin2(c, "llvm.copysign", mag, xi_splat(c, sgn, LLVMTypeOf(mag)));
}

LLVMValueRef xi_fold_lanes(ext_lower_ctx *c, LLVMValueRef v, LLVMOpcode op)
{
    unsigned n = xi_lanes(LLVMTypeOf(v));
    if (!n)
        return v;
    LLVMValueRef r = xi_extract_lane(c, v, 0);
    for (unsigned i = 1; i < n; i++)
        r = LLVMBuildBinOp(c->b, op, r, xi_extract_lane(c, v, i), "");
    return r;
}

LLVMValueRef xi_dot(ext_lower_ctx *c, LLVMValueRef a, LLVMValueRef b)
{
    return xi_fold_lanes(c, LLVMBuildFMul(c->b, a, b, ""), LLVMFAdd);
}

LLVMValueRef xi_length_naive(ext_lower_ctx *c, LLVMValueRef x)
{
    if (!xi_lanes(LLVMTypeOf(x)))
        return xi_fabs(c, x);
    return xi_intrin1(c, "llvm.sqrt", xi_dot(c, x, x));
}

static LLVMValueRef shuffle_const(ext_lower_ctx *c, LLVMValueRef v, const unsigned *idx, unsigned n)
{
    LLVMTypeRef i32 = LLVMInt32TypeInContext(c->ctx);
    LLVMValueRef m[4];
    for (unsigned i = 0; i < n; i++)
        m[i] = LLVMConstInt(i32, idx[i], 0);
    return LLVMBuildShuffleVector(c->b, v, LLVMGetPoison(LLVMTypeOf(v)), LLVMConstVector(m, n), "");
}

LLVMValueRef xi_cross(ext_lower_ctx *c, LLVMValueRef a, LLVMValueRef b)
{
    unsigned n = xi_lanes(LLVMTypeOf(a));
    static const unsigned yzx[4] = { 1, 2, 0, 3 }, zxy[4] = { 2, 0, 1, 3 };
    LLVMValueRef l = LLVMBuildFMul(c->b, shuffle_const(c, a, yzx, n), shuffle_const(c, b, zxy, n), "");
    LLVMValueRef r = LLVMBuildFMul(c->b, shuffle_const(c, a, zxy, n), shuffle_const(c, b, yzx, n), "");
    LLVMValueRef d = LLVMBuildFSub(c->b, l, r, "");
    if (n == 4) /* OpenCL: the w component is 0 whatever a.w and b.w are */
        d = insert_lane(c, d, LLVMConstReal(xi_elem(LLVMTypeOf(a)), 0.0), 3);
    return d;
}

LLVMValueRef xi_fclamp(ext_lower_ctx *c, LLVMValueRef x, LLVMValueRef lo, LLVMValueRef hi)
{
    LLVMTypeRef t = LLVMTypeOf(x);
    LLVMValueRef m = xi_intrin2(c, "llvm.maxnum", x, xi_splat(c, lo, t));
    return xi_intrin2(c, "llvm.minnum", m, xi_splat(c, hi, t));
}

LLVMValueRef xi_mix(ext_lower_ctx *c, LLVMValueRef x, LLVMValueRef y, LLVMValueRef a)
{
    a = xi_splat(c, a, LLVMTypeOf(x));
    LLVMValueRef d = LLVMBuildFSub(c->b, y, x, "");
    return LLVMBuildFAdd(c->b, x, LLVMBuildFMul(c->b, d, a, ""), "");
}

LLVMValueRef xi_step(ext_lower_ctx *c, LLVMValueRef edge, LLVMValueRef x)
{
    LLVMTypeRef t = LLVMTypeOf(x);
    LLVMValueRef lt = xi_fcmp(c, LLVMRealOLT, x, xi_splat(c, edge, t));
    return xi_select(c, lt, xi_fconst(c, t, 0.0), xi_fconst(c, t, 1.0));
}

LLVMValueRef xi_smoothstep(ext_lower_ctx *c, LLVMValueRef e0, LLVMValueRef e1, LLVMValueRef x)
{
    LLVMTypeRef t = LLVMTypeOf(x);
    e0 = xi_splat(c, e0, t);
    e1 = xi_splat(c, e1, t);
    LLVMValueRef q = LLVMBuildFDiv(c->b, LLVMBuildFSub(c->b, x, e0, ""), LLVMBuildFSub(c->b, e1, e0, ""), "");
    LLVMValueRef tt = xi_fclamp(c, q, xi_fconst(c, t, 0.0), xi_fconst(c, t, 1.0));
    LLVMValueRef poly =
        LLVMBuildFSub(c->b, xi_fconst(c, t, 3.0), LLVMBuildFMul(c->b, xi_fconst(c, t, 2.0), tt, ""), "");
    return LLVMBuildFMul(c->b, LLVMBuildFMul(c->b, tt, tt, ""), poly, "");
}

LLVMValueRef xi_fsign(ext_lower_ctx *c, LLVMValueRef x, bool nan_to_zero)
{
    LLVMTypeRef t = LLVMTypeOf(x);
    LLVMValueRef zero = xi_fconst(c, t, 0.0);
    /* ±0 (and NaN) fall through to x itself, which keeps the sign of zero. */
    LLVMValueRef r = xi_select(c, xi_fcmp(c, LLVMRealOLT, x, zero), xi_fconst(c, t, -1.0), x);
    r = xi_select(c, xi_fcmp(c, LLVMRealOGT, x, zero), xi_fconst(c, t, 1.0), r);
    if (nan_to_zero)
        r = xi_select(c, xi_isnan(c, x), zero, r);
    return r;
}

LLVMValueRef xi_scale(ext_lower_ctx *c, LLVMValueRef x, double k)
{
    return LLVMBuildFMul(c->b, x, xi_fconst(c, LLVMTypeOf(x), k), "");
}

LLVMValueRef xi_modf(ext_lower_ctx *c, LLVMValueRef x, LLVMValueRef *whole)
{
    LLVMTypeRef t = LLVMTypeOf(x);
    *whole = xi_intrin1(c, "llvm.trunc", x);
    LLVMValueRef frac = LLVMBuildFSub(c->b, x, *whole, "");
    frac = xi_select(c, xi_isinf(c, x), xi_fconst(c, t, 0.0), frac);
    return xi_copysign(c, frac, x); /* -3.0 gives -0.0, like C modf */
}

/* llvm.frexp and llvm.ldexp are used one lane at a time: LLVM 19's x86 backend
 * cannot legalize them on vectors of 3 lanes (a fatal error), and they become one
 * libm call per lane anyway. */
static LLVMValueRef frexp_lane(ext_lower_ctx *c, LLVMValueRef x, LLVMValueRef *e)
{
    LLVMTypeRef over[2] = { LLVMTypeOf(x), LLVMInt32TypeInContext(c->ctx) };
    LLVMValueRef pair = xi_intrin(c, "llvm.frexp", over, 2, &x, 1);
    *e = LLVMBuildExtractValue(c->b, pair, 1, "");
    return LLVMBuildExtractValue(c->b, pair, 0, "");
}

LLVMValueRef xi_frexp(ext_lower_ctx *c, LLVMValueRef x, LLVMTypeRef exp_elem, LLVMValueRef *exp)
{
    LLVMTypeRef t = LLVMTypeOf(x);
    /* Half through float: every half (subnormals too) is a normal float with the same
     * mantissa and exponent, so nothing is lost. */
    LLVMValueRef w = xi_fp_bits(t) == 16 ? xi_fpcast(c, x, LLVMFloatTypeInContext(c->ctx)) : x;
    LLVMTypeRef it = xi_reshape(t, LLVMInt32TypeInContext(c->ctx));
    unsigned n = xi_lanes(t);
    LLVMValueRef m, e;
    if (!n) {
        m = frexp_lane(c, w, &e);
    } else {
        m = LLVMGetPoison(LLVMTypeOf(w));
        e = LLVMGetPoison(it);
        for (unsigned i = 0; i < n; i++) {
            LLVMValueRef le, lm = frexp_lane(c, xi_extract_lane(c, w, i), &le);
            LLVMValueRef idx = LLVMConstInt(LLVMInt32TypeInContext(c->ctx), i, 0);
            m = LLVMBuildInsertElement(c->b, m, lm, idx, "");
            e = LLVMBuildInsertElement(c->b, e, le, idx, "");
        }
    }
    m = xi_fpcast(c, m, xi_elem(t));
    /* llvm.frexp leaves the exponent of inf/NaN unspecified; C and OpenCL say 0. */
    LLVMValueRef nonfinite = xi_fcmp(c, LLVMRealUEQ, xi_fabs(c, x), xi_fconst(c, t, INFINITY));
    e = xi_select(c, nonfinite, LLVMConstNull(it), e);
    *exp = xi_intcast(c, e, exp_elem, true);
    return m;
}

LLVMValueRef xi_ldexp(ext_lower_ctx *c, LLVMValueRef x, LLVMValueRef k)
{
    LLVMTypeRef t = LLVMTypeOf(x);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(c->ctx);
    k = xi_splat(c, k, t);
    unsigned kb = xi_int_bits(LLVMTypeOf(k));
    if (kb > 32) { /* saturate, so a huge exponent still overflows/underflows */
        LLVMTypeRef kt = LLVMTypeOf(k);
        k = xi_intrin2(c, "llvm.smax", k, xi_iconst(c, kt, INT32_MIN));
        k = xi_intrin2(c, "llvm.smin", k, xi_iconst(c, kt, INT32_MAX));
    }
    k = xi_intcast(c, k, i32, true);
    LLVMValueRef w = xi_fp_bits(t) == 16 ? xi_fpcast(c, x, LLVMFloatTypeInContext(c->ctx)) : x;
    LLVMTypeRef over[2] = { xi_elem(LLVMTypeOf(w)), i32 };
    unsigned n = xi_lanes(t);
    LLVMValueRef r = n ? LLVMGetPoison(LLVMTypeOf(w)) : NULL;
    for (unsigned i = 0; i < (n ? n : 1); i++) {
        LLVMValueRef a[2] = { xi_extract_lane(c, w, i), xi_extract_lane(c, k, i) };
        LLVMValueRef l = xi_intrin(c, "llvm.ldexp", over, 2, a, 2);
        r = n ? LLVMBuildInsertElement(c->b, r, l, LLVMConstInt(i32, i, 0), "") : l;
    }
    /* Half: ldexpf is exact for every half input and in-range result, then one rounding. */
    return xi_fpcast(c, r, xi_elem(t));
}
