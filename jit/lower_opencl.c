/* jit/lower_opencl.c — lowering of the OpenCL.std extended instruction set.
 *
 * Semantics and special values follow the OpenCL C / OpenCL SPIR-V Environment
 * specifications.  Strategy:
 *  - LLVM intrinsics where they mean exactly the OpenCL function (fma, sqrt,
 *    floor, minnum/maxnum, copysign, ctlz, fshl, *.sat, abs, sin, exp, ...);
 *  - libm by symbol name for the rest, one call per lane, half through float;
 *  - functions libm lacks (acospi, sinpi, powr, rootn, pown, rsqrt, ...) are
 *    computed in double for half/float arguments (one final rounding, far inside
 *    the OpenCL ulp bounds) and with care for double arguments;
 *  - half_* and native_* map to the full-precision functions (allowed: their
 *    accuracy is implementation-defined or looser).
 */
#include "jit/extinst_util.h"
#include "jit/abi.h"
#include "jit/rt_printf.h"
#include "util/array.h"
#include "spirv_grammar.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Name and operand count, from the tables generated from the grammar JSON;
 * the one variadic instruction (printf) counts its format operand. */
const char *xi_opencl_info(uint32_t inst, unsigned *nargs, bool *variadic)
{
    const char *name = spv_opencl_std_name(inst);
    int n = spv_opencl_std_noperands(inst);
    if (!name)
        return NULL;
    if (nargs)
        *nargs = n < 0 ? 1 : (unsigned)n;
    if (variadic)
        *variadic = n < 0;
    return name;
}

/* FPRoundingMode operand values (SPIR-V spec 3.16). */
enum { RM_RTE = 0, RM_RTZ = 1, RM_RTP = 2, RM_RTN = 3 };

/* Operand signature per instruction, one letter per operand:
 *   f  floating-point scalar/vector, the element type of the first 'f'
 *   i  integer scalar/vector, the element type of the first 'i'
 *   n  any integer scalar/vector (offsets, exponents, masks, nancode)
 *   x  any integer or floating-point scalar/vector
 *   p  pointer          l  literal (an integer constant)                     */
static const char *signature(uint32_t inst)
{
    switch (inst) {
    case 30:
    case 31:
    case 36:
    case 45:
    case 58:
        return "fp";
    case 33:
        return "f";
    case 34:
    case 49:
    case 54:
        return "fn";
    case 46:
        return "n";
    case 52:
        return "ffp";
    case 171:
    case 174:
    case 179:
        return "npl";
    case 172:
        return "xnp";
    case 173:
        return "np";
    case 175:
    case 177:
    case 180:
        return "fnp";
    case 176:
    case 178:
    case 181:
        return "fnpl";
    case 182:
        return "xn";
    case 183:
        return "xxn";
    case 184:
        return "";
    case 185:
        return "pn";
    case 186:
        return "xxx";
    case 187:
        return "xxn";
    default:
        break;
    }
    if (inst <= 110)
        return "fff"; /* only the first nargs letters are used */
    return "iii";
}

static bool check_operands(spv_diag *diag, uint32_t inst, LLVMValueRef *args, unsigned nargs)
{
    const char *sig = signature(inst);
    LLVMTypeRef first_f = NULL, first_i = NULL;
    for (unsigned k = 0; k < nargs && sig[k]; k++) {
        LLVMTypeRef t = LLVMTypeOf(args[k]);
        const char *want = NULL;
        switch (sig[k]) {
        case 'f':
            if (!xi_is_fp(t))
                want = "a floating-point scalar or vector";
            else if (!first_f)
                first_f = t;
            else if (xi_elem(t) != xi_elem(first_f) || (xi_lanes(t) && xi_lanes(t) != xi_lanes(first_f)))
                want = "of the same floating-point type as the other operands";
            break;
        case 'i':
            if (!xi_is_int(t))
                want = "an integer scalar or vector";
            else if (!first_i)
                first_i = t;
            else if (xi_elem(t) != xi_elem(first_i) || (xi_lanes(t) && xi_lanes(t) != xi_lanes(first_i)))
                want = "of the same integer type as the other operands";
            break;
        case 'n':
            if (!xi_is_int(t))
                want = "an integer scalar or vector";
            break;
        case 'x':
            if (!xi_is_int(t) && !xi_is_fp(t))
                want = "an integer or floating-point scalar or vector";
            break;
        case 'p':
            if (LLVMGetTypeKind(t) != LLVMPointerTypeKind)
                want = "a pointer";
            break;
        case 'l':
            if (!LLVMIsAConstantInt(args[k]))
                want = "a literal integer (an LLVM integer constant)";
            break;
        }
        if (want) {
            xi_fail(diag, XI_OPENCL, inst, "operand %u must be %s, not %s", k + 1, want, xi_type_str(t));
            return false;
        }
    }
    return true;
}

static LLVMTypeRef f64_t(ext_lower_ctx *c)
{
    return LLVMDoubleTypeInContext(c->ctx);
}
static LLVMTypeRef i32_t(ext_lower_ctx *c)
{
    return LLVMInt32TypeInContext(c->ctx);
}

/* Half/float arguments are widened to double for the functions libm lacks, so
 * that the only error is the final rounding. */
static LLVMValueRef to_f64(ext_lower_ctx *c, LLVMValueRef x)
{
    return xi_fpcast(c, x, f64_t(c));
}
static LLVMValueRef back(ext_lower_ctx *c, LLVMValueRef r, LLVMValueRef like)
{
    return xi_fpcast(c, r, xi_elem(LLVMTypeOf(like)));
}

static LLVMValueRef fmul_k(ext_lower_ctx *c, LLVMValueRef x, double k)
{
    return xi_scale(c, x, k);
}

static LLVMValueRef max_lanes(ext_lower_ctx *c, LLVMValueRef v)
{
    unsigned n = xi_lanes(LLVMTypeOf(v));
    if (!n)
        return v;
    LLVMValueRef r = xi_extract_lane(c, v, 0);
    for (unsigned i = 1; i < n; i++)
        r = xi_intrin2(c, "llvm.maxnum", r, xi_extract_lane(c, v, i));
    return r;
}

/* --- trigonometry in units of pi ------------------------------------------------------- */

/* sin(pi x) and cos(pi x) for x in double: x = f + n/2 with n = rint(2x) and
 * |f| <= 1/4 (exact), so pi*f needs no large argument reduction; the quadrant
 * n mod 4 picks ±sin/±cos of pi*f.  Exact zeros get OpenCL's signs. */
static void emit_sincospi(ext_lower_ctx *c, LLVMValueRef x, LLVMValueRef *sin_out, LLVMValueRef *cos_out)
{
    LLVMBuilderRef b = c->b;
    LLVMTypeRef t = LLVMTypeOf(x);
    LLVMValueRef n = xi_intrin1(c, "llvm.rint", fmul_k(c, x, 2.0));
    LLVMValueRef f = LLVMBuildFSub(b, x, fmul_k(c, n, 0.5), "");
    /* q = n mod 4 in [0, 4), computed in floating point (n may be huge) */
    LLVMValueRef q = LLVMBuildFSub(b, n, fmul_k(c, xi_intrin1(c, "llvm.floor", fmul_k(c, n, 0.25)), 4.0), "");
    LLVMValueRef pf = fmul_k(c, f, M_PI);
    LLVMValueRef s = xi_intrin1(c, "llvm.sin", pf), co = xi_intrin1(c, "llvm.cos", pf);
    LLVMValueRef ns = LLVMBuildFNeg(b, s, ""), nco = LLVMBuildFNeg(b, co, "");
    LLVMValueRef q0 = xi_fcmp(c, LLVMRealOEQ, q, xi_fconst(c, t, 0.0));
    LLVMValueRef q1 = xi_fcmp(c, LLVMRealOEQ, q, xi_fconst(c, t, 1.0));
    LLVMValueRef q2 = xi_fcmp(c, LLVMRealOEQ, q, xi_fconst(c, t, 2.0));
    /* NaN/inf x make f NaN and fall to the last choice, which is NaN too */
    LLVMValueRef sv = xi_select(c, q0, s, xi_select(c, q1, co, xi_select(c, q2, ns, nco)));
    LLVMValueRef cv = xi_select(c, q0, co, xi_select(c, q1, ns, xi_select(c, q2, nco, s)));
    LLVMValueRef zero = xi_fconst(c, t, 0.0);
    /* sinpi(±n) = ±0, cospi(n + 1/2) = +0 */
    *sin_out = xi_select(c, xi_fcmp(c, LLVMRealOEQ, sv, zero), xi_copysign(c, zero, x), sv);
    *cos_out = xi_select(c, xi_fcmp(c, LLVMRealOEQ, cv, zero), zero, cv);
}

/* --- powers ----------------------------------------------------------------------------------- */

/* powr(x, y) = exp2(y log2 x) for x >= 0, with OpenCL's special cases. */
static LLVMValueRef emit_powr(ext_lower_ctx *c, LLVMValueRef x, LLVMValueRef y)
{
    LLVMBuilderRef b = c->b;
    LLVMValueRef wx = to_f64(c, x), wy = to_f64(c, y);
    LLVMTypeRef t = LLVMTypeOf(wx);
    LLVMValueRef r = xi_intrin2(c, "llvm.pow", xi_fabs(c, wx), wy);
    LLVMValueRef zero = xi_fconst(c, t, 0.0), one = xi_fconst(c, t, 1.0);
    LLVMValueRef yzero = xi_fcmp(c, LLVMRealOEQ, wy, zero);
    LLVMValueRef nan = LLVMBuildOr(b, xi_isnan(c, wx), xi_isnan(c, wy), "");
    nan = LLVMBuildOr(b, nan, xi_fcmp(c, LLVMRealOLT, wx, zero), "");
    nan = LLVMBuildOr(b, nan, LLVMBuildAnd(b, xi_fcmp(c, LLVMRealOEQ, wx, zero), yzero, ""), "");
    nan = LLVMBuildOr(b, nan, LLVMBuildAnd(b, xi_isinf(c, wx), yzero, ""), "");
    nan = LLVMBuildOr(b, nan, LLVMBuildAnd(b, xi_fcmp(c, LLVMRealOEQ, wx, one), xi_isinf(c, wy), ""), "");
    return back(c, xi_select(c, nan, xi_fconst(c, t, NAN), r), x);
}

static LLVMValueRef emit_pown(ext_lower_ctx *c, LLVMValueRef x, LLVMValueRef n)
{
    LLVMValueRef wx = to_f64(c, x);
    n = xi_splat(c, n, LLVMTypeOf(wx));
    LLVMValueRef wn = LLVMBuildSIToFP(c->b, n, LLVMTypeOf(wx), ""); /* exact: n has <= 32 bits */
    return back(c, xi_intrin2(c, "llvm.pow", wx, wn), x);
}

/* rootn(x, n) = x^(1/n); odd n keep x's sign, even n of negative x and n = 0 give NaN. */
static LLVMValueRef emit_rootn(ext_lower_ctx *c, LLVMValueRef x, LLVMValueRef n)
{
    LLVMBuilderRef b = c->b;
    LLVMValueRef wx = to_f64(c, x);
    LLVMTypeRef t = LLVMTypeOf(wx);
    n = xi_splat(c, n, t);
    LLVMTypeRef nt = LLVMTypeOf(n);
    LLVMValueRef wn = LLVMBuildSIToFP(b, n, t, "");
    LLVMValueRef ax = xi_fabs(c, wx);
    LLVMValueRef r = xi_intrin2(c, "llvm.pow", ax, LLVMBuildFDiv(b, xi_fconst(c, t, 1.0), wn, ""));
    if (xi_fp_bits(LLVMTypeOf(x)) == 64) {
        /* 1/n is rounded, which costs up to ~|log x| ulps: one Newton step on
         * r^n = |x| brings it back (kept only where everything is finite). */
        LLVMValueRef ratio = LLVMBuildFDiv(b, xi_intrin2(c, "llvm.pow", r, wn), ax, "");
        LLVMValueRef corr =
            LLVMBuildFDiv(b, LLVMBuildFMul(b, r, LLVMBuildFSub(b, ratio, xi_fconst(c, t, 1.0), ""), ""), wn, "");
        LLVMValueRef r2 = LLVMBuildFSub(b, r, corr, "");
        LLVMValueRef ok = xi_fcmp(c, LLVMRealOLT, xi_fabs(c, r2), xi_fconst(c, t, INFINITY));
        ok = LLVMBuildAnd(b, ok, xi_fcmp(c, LLVMRealOGT, r2, xi_fconst(c, t, 0.0)), "");
        ok = LLVMBuildAnd(b, ok, xi_fcmp(c, LLVMRealOLT, r, xi_fconst(c, t, INFINITY)), "");
        ok = LLVMBuildAnd(b, ok, xi_fcmp(c, LLVMRealOGT, r, xi_fconst(c, t, 0.0)), "");
        r = xi_select(c, ok, r2, r);
    }
    LLVMValueRef odd = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, n, xi_iconst(c, nt, 1), ""), LLVMConstNull(nt), "");
    LLVMValueRef nan = xi_fconst(c, t, NAN);
    LLVMValueRef even_r = xi_select(c, xi_fcmp(c, LLVMRealOLT, wx, xi_fconst(c, t, 0.0)), nan, r);
    LLVMValueRef res = xi_select(c, odd, xi_copysign(c, r, wx), even_r);
    res = xi_select(c, LLVMBuildICmp(b, LLVMIntEQ, n, LLVMConstNull(nt), ""), nan, res);
    return back(c, res, x);
}

static LLVMValueRef emit_rsqrt(ext_lower_ctx *c, LLVMValueRef x)
{
    LLVMValueRef w = to_f64(c, x); /* double: two roundings, < 2 ulp as allowed */
    LLVMValueRef r = LLVMBuildFDiv(c->b, xi_fconst(c, LLVMTypeOf(w), 1.0), xi_intrin1(c, "llvm.sqrt", w), "");
    return back(c, r, x);
}

/* --- other float functions ----------------------------------------------------------------------- */

static LLVMValueRef emit_lgamma_r(ext_lower_ctx *c, LLVMValueRef x, LLVMValueRef *sign)
{
    LLVMTypeRef t = LLVMTypeOf(x);
    bool dbl = xi_fp_bits(t) == 64;
    LLVMTypeRef w = dbl ? f64_t(c) : LLVMFloatTypeInContext(c->ctx);
    const char *name = dbl ? "lgamma_r" : "lgammaf_r"; /* the _r forms: no global signgam */
    LLVMValueRef fn = LLVMGetNamedFunction(c->mod, name);
    LLVMTypeRef params[2] = { w, LLVMPointerTypeInContext(c->ctx, 0) };
    LLVMTypeRef fty = LLVMFunctionType(w, params, 2, 0);
    if (!fn)
        fn = LLVMAddFunction(c->mod, name, fty);
    LLVMValueRef slot = xi_entry_alloca(c, i32_t(c));
    unsigned n = xi_lanes(t);
    LLVMValueRef res = n ? LLVMGetPoison(t) : NULL;
    LLVMValueRef sg = n ? LLVMGetPoison(LLVMVectorType(i32_t(c), n)) : NULL;
    for (unsigned i = 0; i < (n ? n : 1); i++) {
        LLVMValueRef a[2] = { xi_fpcast(c, xi_extract_lane(c, x, i), w), slot };
        LLVMValueRef r = xi_fpcast(c, LLVMBuildCall2(c->b, fty, fn, a, 2, ""), xi_elem(t));
        LLVMValueRef s = LLVMBuildLoad2(c->b, i32_t(c), slot, "");
        LLVMValueRef idx = LLVMConstInt(i32_t(c), i, 0);
        res = n ? LLVMBuildInsertElement(c->b, res, r, idx, "") : r;
        sg = n ? LLVMBuildInsertElement(c->b, sg, s, idx, "") : s;
    }
    if (sign)
        *sign = sg;
    return res;
}

/* remquo: remainder(x, y) and the low 7 bits of the rounded quotient with its sign
 * (glibc's remquo gives only 3 bits; OpenCL asks for 7).  Reducing |x| modulo
 * 128|y| (exact) leaves a quotient < 129 whose rounding is decided by the exact
 * remainder. */
static LLVMValueRef emit_remquo(ext_lower_ctx *c, LLVMValueRef x, LLVMValueRef y, LLVMTypeRef quo_elem,
                                LLVMValueRef *quo)
{
    LLVMBuilderRef b = c->b;
    LLVMTypeRef t = LLVMTypeOf(x);
    LLVMValueRef wx = xi_fp_bits(t) == 16 ? xi_fpcast(c, x, LLVMFloatTypeInContext(c->ctx)) : x;
    LLVMValueRef wy = xi_fpcast(c, y, xi_elem(LLVMTypeOf(wx)));
    LLVMTypeRef w = LLVMTypeOf(wx);
    LLVMValueRef ax = xi_fabs(c, wx), ay = xi_fabs(c, wy);
    LLVMValueRef big = fmul_k(c, ay, 128.0);
    LLVMValueRef a = xi_select(c, xi_isinf(c, big), ax, LLVMBuildFRem(b, ax, big, ""));
    LLVMValueRef r = xi_libm2(c, "remainder", a, ay);
    LLVMValueRef q = xi_intrin1(c, "llvm.rint", LLVMBuildFDiv(b, LLVMBuildFSub(b, a, r, ""), ay, ""));
    LLVMValueRef bad = LLVMBuildOr(b, xi_isnan(c, q), xi_isinf(c, q), "");
    q = xi_select(c, bad, xi_fconst(c, w, 0.0), q);
    LLVMTypeRef it = xi_reshape(w, i32_t(c));
    LLVMValueRef qi = LLVMBuildAnd(b, LLVMBuildFPToSI(b, q, it, ""), xi_iconst(c, it, 127), "");
    LLVMValueRef zero = xi_fconst(c, w, 0.0);
    LLVMValueRef neg = LLVMBuildXor(b, xi_fcmp(c, LLVMRealOLT, wx, zero), xi_fcmp(c, LLVMRealOLT, wy, zero), "");
    qi = xi_select(c, neg, LLVMBuildNeg(b, qi, ""), qi);
    *quo = xi_intcast(c, qi, quo_elem, true);
    return back(c, xi_libm2(c, "remainder", wx, wy), x);
}

/* fract(x) = min(x - floor(x), largest value below 1); ±0 and ±inf give ±0, NaN gives NaN. */
static LLVMValueRef emit_fract(ext_lower_ctx *c, LLVMValueRef x, LLVMValueRef *ipart)
{
    LLVMTypeRef t = LLVMTypeOf(x);
    unsigned bits = xi_fp_bits(t);
    double below1 = bits == 16 ? 0x1.ffcp-1 : bits == 32 ? (double)0x1.fffffep-1f : 0x1.fffffffffffffp-1;
    LLVMValueRef fl = xi_intrin1(c, "llvm.floor", x);
    LLVMValueRef r = xi_intrin2(c, "llvm.minnum", LLVMBuildFSub(c->b, x, fl, ""), xi_fconst(c, t, below1));
    LLVMValueRef zero = xi_fconst(c, t, 0.0);
    LLVMValueRef signed0 = LLVMBuildOr(c->b, xi_isinf(c, x), xi_fcmp(c, LLVMRealOEQ, x, zero), "");
    r = xi_select(c, signed0, xi_copysign(c, zero, x), r);
    r = xi_select(c, xi_isnan(c, x), x, r);
    *ipart = fl;
    return r;
}

/* ilogb via frexp: exponent - 1; FP_ILOGB0 = INT_MIN for 0, FP_ILOGBNAN = INT_MAX
 * for NaN, INT_MAX for ±inf (the values of OpenCL C's headers). */
static LLVMValueRef emit_ilogb(ext_lower_ctx *c, LLVMValueRef x, LLVMTypeRef res_elem)
{
    LLVMTypeRef t = LLVMTypeOf(x);
    LLVMValueRef e;
    xi_frexp(c, x, i32_t(c), &e);
    LLVMTypeRef it = LLVMTypeOf(e);
    e = LLVMBuildSub(c->b, e, xi_iconst(c, it, 1), "");
    e = xi_select(c, xi_fcmp(c, LLVMRealOEQ, x, xi_fconst(c, t, 0.0)), xi_iconst(c, it, INT32_MIN), e);
    e = xi_select(c, xi_fcmp(c, LLVMRealUEQ, xi_fabs(c, x), xi_fconst(c, t, INFINITY)), xi_iconst(c, it, INT32_MAX), e);
    return xi_intcast(c, e, res_elem, true);
}

static LLVMValueRef emit_logb(ext_lower_ctx *c, LLVMValueRef x)
{
    LLVMTypeRef t = LLVMTypeOf(x);
    LLVMValueRef e;
    xi_frexp(c, x, i32_t(c), &e);
    LLVMValueRef r = LLVMBuildSIToFP(c->b, LLVMBuildSub(c->b, e, xi_iconst(c, LLVMTypeOf(e), 1), ""), t, "");
    r = xi_select(c, xi_isinf(c, x), xi_fabs(c, x), r);
    r = xi_select(c, xi_fcmp(c, LLVMRealOEQ, x, xi_fconst(c, t, 0.0)), xi_fconst(c, t, -INFINITY), r);
    return xi_select(c, xi_isnan(c, x), x, r);
}

/* nextafter on the bit pattern: works the same for half, float and double. */
static LLVMValueRef emit_nextafter(ext_lower_ctx *c, LLVMValueRef x, LLVMValueRef y)
{
    LLVMBuilderRef b = c->b;
    LLVMTypeRef t = LLVMTypeOf(x), it = xi_int_like(t);
    LLVMValueRef ix = LLVMBuildBitCast(b, x, it, "");
    LLVMValueRef zero = xi_fconst(c, t, 0.0);
    /* away from zero when moving up from a positive x or down from a negative one */
    LLVMValueRef away =
        LLVMBuildICmp(b, LLVMIntEQ, xi_fcmp(c, LLVMRealOLT, x, y), xi_fcmp(c, LLVMRealOGT, x, zero), "");
    LLVMValueRef step =
        xi_select(c, away, LLVMBuildAdd(b, ix, xi_iconst(c, it, 1), ""), LLVMBuildSub(b, ix, xi_iconst(c, it, 1), ""));
    LLVMValueRef r = LLVMBuildBitCast(b, step, t, "");
    LLVMValueRef tiny = xi_copysign(c, LLVMBuildBitCast(b, xi_iconst(c, it, 1), t, ""), y);
    r = xi_select(c, xi_fcmp(c, LLVMRealOEQ, x, zero), tiny, r);
    r = xi_select(c, xi_fcmp(c, LLVMRealOEQ, x, y), y, r);
    return xi_select(c, LLVMBuildOr(b, xi_isnan(c, x), xi_isnan(c, y), ""), LLVMBuildFAdd(b, x, y, ""), r);
}

static LLVMValueRef nan_code(ext_lower_ctx *c, LLVMValueRef code, LLVMTypeRef rt)
{
    unsigned bits = xi_fp_bits(rt);
    LLVMTypeRef it = xi_int_like(rt);
    uint64_t quiet = bits == 16 ? 0x7e00 : bits == 32 ? 0x7fc00000 : 0x7ff8000000000000ull;
    uint64_t mask = bits == 16 ? 0x1ff : bits == 32 ? 0x3fffff : (1ull << 51) - 1;
    LLVMValueRef v = xi_intcast(c, xi_splat(c, code, rt), xi_elem(it), false);
    v = LLVMBuildAnd(c->b, v, xi_iconst(c, it, (int64_t)mask), "");
    v = LLVMBuildOr(c->b, v, xi_iconst(c, it, (int64_t)quiet), "");
    return LLVMBuildBitCast(c->b, v, rt, "");
}

static LLVMValueRef emit_maxmag(ext_lower_ctx *c, LLVMValueRef x, LLVMValueRef y, bool is_max)
{
    LLVMValueRef ax = xi_fabs(c, x), ay = xi_fabs(c, y);
    LLVMRealPredicate p = is_max ? LLVMRealOGT : LLVMRealOLT;
    LLVMValueRef r = xi_intrin2(c, is_max ? "llvm.maxnum" : "llvm.minnum", x, y);
    r = xi_select(c, xi_fcmp(c, p, ay, ax), y, r);
    return xi_select(c, xi_fcmp(c, p, ax, ay), x, r);
}

static LLVMValueRef emit_fdim(ext_lower_ctx *c, LLVMValueRef x, LLVMValueRef y)
{
    LLVMTypeRef t = LLVMTypeOf(x);
    LLVMValueRef d = xi_select(c, xi_fcmp(c, LLVMRealOGT, x, y), LLVMBuildFSub(c->b, x, y, ""), xi_fconst(c, t, 0.0));
    return xi_select(c, xi_fcmp(c, LLVMRealUNO, x, y), LLVMBuildFAdd(c->b, x, y, ""), d);
}

/* --- geometric ------------------------------------------------------------------------------------ */

/* Exact power-of-two scaling of p so that its largest |lane| is in [0.5, 1):
 * neither the squares overflow nor underflow.  *e receives the exponent. */
static LLVMValueRef scale_down(ext_lower_ctx *c, LLVMValueRef p, LLVMValueRef *e)
{
    LLVMValueRef m = max_lanes(c, xi_fabs(c, p));
    xi_frexp(c, m, i32_t(c), e);
    return xi_ldexp(c, p, LLVMBuildNeg(c->b, *e, ""));
}

static LLVMValueRef ocl_length(ext_lower_ctx *c, LLVMValueRef p)
{
    if (!xi_lanes(LLVMTypeOf(p)))
        return xi_fabs(c, p);
    if (xi_fp_bits(LLVMTypeOf(p)) < 64) /* squares of half/float are exact in double */
        return back(c, xi_length_naive(c, to_f64(c, p)), xi_extract_lane(c, p, 0));
    LLVMValueRef e, s = scale_down(c, p, &e);
    return xi_ldexp(c, xi_length_naive(c, s), e);
}

static LLVMValueRef ocl_normalize(ext_lower_ctx *c, LLVMValueRef p)
{
    LLVMBuilderRef b = c->b;
    LLVMValueRef w = to_f64(c, p);
    LLVMTypeRef t = LLVMTypeOf(w);
    /* infinite lanes become ±1 and the others ±0 (NaN stays NaN) */
    LLVMValueRef inf = xi_isinf(c, w);
    LLVMValueRef only_inf =
        xi_select(c, inf, xi_copysign(c, xi_fconst(c, t, 1.0), w), LLVMBuildFMul(b, w, xi_fconst(c, t, 0.0), ""));
    LLVMValueRef v = xi_select(c, xi_fold_lanes(c, inf, LLVMOr), only_inf, w);
    if (xi_fp_bits(LLVMTypeOf(p)) == 64) {
        LLVMValueRef e;
        v = scale_down(c, v, &e);
    }
    LLVMValueRef len = xi_length_naive(c, v);
    LLVMValueRef r = LLVMBuildFDiv(b, v, xi_splat(c, len, t), "");
    r = xi_select(c, xi_fcmp(c, LLVMRealOEQ, len, LLVMConstReal(xi_elem(t), 0.0)), w, r);
    return back(c, r, p);
}

static LLVMValueRef fast_normalize(ext_lower_ctx *c, LLVMValueRef p)
{
    LLVMTypeRef t = LLVMTypeOf(p);
    LLVMValueRef d = xi_dot(c, p, p);
    LLVMValueRef r = LLVMBuildFMul(c->b, p, xi_splat(c, emit_rsqrt(c, d), t), "");
    return xi_select(c, xi_fcmp(c, LLVMRealOEQ, d, LLVMConstReal(xi_elem(t), 0.0)), p, r);
}

/* --- integers ------------------------------------------------------------------------------------- */

static LLVMValueRef ext2(ext_lower_ctx *c, LLVMValueRef v, unsigned bits, bool is_signed)
{
    return xi_intcast(c, v, LLVMIntTypeInContext(c->ctx, bits), is_signed);
}

/* High half of the 2N-bit product (i64 goes through i128, which LLVM lowers well). */
static LLVMValueRef mul_hi(ext_lower_ctx *c, LLVMValueRef x, LLVMValueRef y, bool is_signed)
{
    LLVMTypeRef t = LLVMTypeOf(x);
    unsigned n = xi_int_bits(t);
    LLVMValueRef p = LLVMBuildMul(c->b, ext2(c, x, 2 * n, is_signed), ext2(c, y, 2 * n, is_signed), "");
    p = LLVMBuildLShr(c->b, p, xi_iconst(c, LLVMTypeOf(p), n), "");
    return LLVMBuildTrunc(c->b, p, t, "");
}

static LLVMValueRef mad_sat(ext_lower_ctx *c, LLVMValueRef x, LLVMValueRef y, LLVMValueRef z, bool is_signed)
{
    LLVMTypeRef t = LLVMTypeOf(x);
    unsigned n = xi_int_bits(t);
    /* exact in 2N bits: |x*y| < 2^(2N-2) (signed) or < 2^2N - 2^(N+1) (unsigned), plus z */
    LLVMValueRef p = LLVMBuildMul(c->b, ext2(c, x, 2 * n, is_signed), ext2(c, y, 2 * n, is_signed), "");
    p = LLVMBuildAdd(c->b, p, ext2(c, z, 2 * n, is_signed), "");
    LLVMTypeRef wt = LLVMTypeOf(p);
    if (is_signed) {
        LLVMValueRef lo =
            LLVMBuildSExt(c->b, xi_iconst(c, t, (int64_t)(n == 64 ? INT64_MIN : -(1ll << (n - 1)))), wt, "");
        LLVMValueRef hi =
            LLVMBuildSExt(c->b, xi_iconst(c, t, (int64_t)(n == 64 ? INT64_MAX : (1ll << (n - 1)) - 1)), wt, "");
        p = xi_intrin2(c, "llvm.smin", xi_intrin2(c, "llvm.smax", p, lo), hi);
    } else {
        p = xi_intrin2(c, "llvm.umin", p, LLVMBuildZExt(c->b, xi_iconst(c, t, -1), wt, ""));
    }
    return LLVMBuildTrunc(c->b, p, t, "");
}

/* (x + y) >> 1 (rounding up if `round`) without overflow. */
static LLVMValueRef hadd(ext_lower_ctx *c, LLVMValueRef x, LLVMValueRef y, bool is_signed, bool round)
{
    LLVMBuilderRef b = c->b;
    LLVMTypeRef t = LLVMTypeOf(x);
    LLVMValueRef one = xi_iconst(c, t, 1);
    LLVMValueRef hx = is_signed ? LLVMBuildAShr(b, x, one, "") : LLVMBuildLShr(b, x, one, "");
    LLVMValueRef hy = is_signed ? LLVMBuildAShr(b, y, one, "") : LLVMBuildLShr(b, y, one, "");
    LLVMValueRef carry = round ? LLVMBuildOr(b, x, y, "") : LLVMBuildAnd(b, x, y, "");
    return LLVMBuildAdd(b, LLVMBuildAdd(b, hx, hy, ""), LLVMBuildAnd(b, carry, one, ""), "");
}

/* mul24/mad24 use the low 24 bits of each operand (signed: sign-extended). */
static LLVMValueRef low24(ext_lower_ctx *c, LLVMValueRef x, bool is_signed)
{
    LLVMTypeRef t = LLVMTypeOf(x);
    unsigned n = xi_int_bits(t);
    if (n <= 24)
        return x;
    if (!is_signed)
        return LLVMBuildAnd(c->b, x, xi_iconst(c, t, 0xffffff), "");
    LLVMValueRef sh = xi_iconst(c, t, n - 24);
    return LLVMBuildAShr(c->b, LLVMBuildShl(c->b, x, sh, ""), sh, "");
}

static LLVMValueRef bit_count(ext_lower_ctx *c, const char *name, LLVMValueRef x)
{
    LLVMValueRef a[2] = { x, LLVMConstInt(LLVMInt1TypeInContext(c->ctx), 0, 0) };
    LLVMTypeRef t = LLVMTypeOf(x);
    return xi_intrin(c, name, &t, 1, a, 2);
}

static LLVMValueRef lower_integer(ext_lower_ctx *c, uint32_t inst, LLVMValueRef *a, spv_diag *diag)
{
    LLVMBuilderRef b = c->b;
    LLVMValueRef x = a[0], y = a[1], z = a[2];
    LLVMTypeRef t = LLVMTypeOf(x);
    switch (inst) {
    case 141: {
        LLVMValueRef v[2] = { x, LLVMConstInt(LLVMInt1TypeInContext(c->ctx), 0, 0) };
        return xi_intrin(c, "llvm.abs", &t, 1, v, 2); /* INT_MIN → 2^(N-1) as unsigned */
    }
    case 142:
        return xi_select(c, LLVMBuildICmp(b, LLVMIntSGT, x, y, ""), LLVMBuildSub(b, x, y, ""),
                         LLVMBuildSub(b, y, x, ""));
    case 143:
        return xi_intrin2(c, "llvm.sadd.sat", x, y);
    case 144:
        return xi_intrin2(c, "llvm.uadd.sat", x, y);
    case 145:
        return hadd(c, x, y, true, false);
    case 146:
        return hadd(c, x, y, false, false);
    case 147:
        return hadd(c, x, y, true, true);
    case 148:
        return hadd(c, x, y, false, true);
    case 149:
        return xi_intrin2(c, "llvm.smin", xi_intrin2(c, "llvm.smax", x, y), z);
    case 150:
        return xi_intrin2(c, "llvm.umin", xi_intrin2(c, "llvm.umax", x, y), z);
    case 151:
        return bit_count(c, "llvm.ctlz", x);
    case 152:
        return bit_count(c, "llvm.cttz", x);
    case 153:
        return LLVMBuildAdd(b, mul_hi(c, x, y, true), z, "");
    case 154:
        return mad_sat(c, x, y, z, false);
    case 155:
        return mad_sat(c, x, y, z, true);
    case 156:
        return xi_intrin2(c, "llvm.smax", x, y);
    case 157:
        return xi_intrin2(c, "llvm.umax", x, y);
    case 158:
        return xi_intrin2(c, "llvm.smin", x, y);
    case 159:
        return xi_intrin2(c, "llvm.umin", x, y);
    case 160:
        return mul_hi(c, x, y, true);
    case 161:
        return xi_intrin3(c, "llvm.fshl", x, x, y); /* shift taken modulo N, as OpenCL says */
    case 162:
        return xi_intrin2(c, "llvm.ssub.sat", x, y);
    case 163:
        return xi_intrin2(c, "llvm.usub.sat", x, y);
    case 164:
    case 165: { /* upsample(hi, lo) = hi << N | lo, in 2N bits */
        unsigned n = xi_int_bits(t);
        LLVMTypeRef rt = c->result_type;
        if (!rt || !xi_is_int(rt) || xi_int_bits(rt) != 2 * n || xi_lanes(rt) != xi_lanes(t))
            return xi_fail(diag, XI_OPENCL, inst, "result type must be integers of twice the width of %s, not %s",
                           xi_type_str(t), xi_type_str(rt));
        LLVMValueRef hi = ext2(c, x, 2 * n, inst == 165), lo = ext2(c, y, 2 * n, false);
        return LLVMBuildOr(b, LLVMBuildShl(b, hi, xi_iconst(c, rt, n), ""), lo, "");
    }
    case 166:
        return xi_intrin1(c, "llvm.ctpop", x);
    case 167:
    case 168:
    case 169:
    case 170: {
        bool s = inst == 167 || inst == 169;
        LLVMValueRef p = LLVMBuildMul(b, low24(c, x, s), low24(c, y, s), "");
        return inst <= 168 ? LLVMBuildAdd(b, p, z, "") : p;
    }
    case 201:
        return x;
    case 202:
        return LLVMBuildSub(b, xi_intrin2(c, "llvm.umax", x, y), xi_intrin2(c, "llvm.umin", x, y), "");
    case 203:
        return mul_hi(c, x, y, false);
    case 204:
        return LLVMBuildAdd(b, mul_hi(c, x, y, false), z, "");
    }
    return xi_fail(diag, XI_OPENCL, inst, "not lowered (internal error)");
}

/* --- vload / vstore ------------------------------------------------------------------------------------ */

static unsigned elem_bytes(LLVMTypeRef t)
{
    unsigned bits = xi_is_fp(t) ? xi_fp_bits(t) : xi_int_bits(t);
    return bits < 8 ? 1 : bits / 8;
}

/* Address of element `offset * stride + lane` of type elem at p (offset is a size_t, unsigned). */
static LLVMValueRef elem_addr(ext_lower_ctx *c, LLVMTypeRef elem, LLVMValueRef p, LLVMValueRef offset, unsigned stride,
                              unsigned lane)
{
    LLVMTypeRef i64 = LLVMInt64TypeInContext(c->ctx);
    LLVMValueRef idx = LLVMBuildMul(c->b, xi_intcast(c, offset, i64, false), LLVMConstInt(i64, stride, 0), "");
    idx = LLVMBuildAdd(c->b, idx, LLVMConstInt(i64, lane, 0), "");
    return LLVMBuildGEP2(c->b, elem, p, &idx, 1, "");
}

/* n lanes of elem from p[offset*stride ...]; a scalar when n == 0. */
static LLVMValueRef load_lanes(ext_lower_ctx *c, LLVMTypeRef elem, LLVMValueRef p, LLVMValueRef offset, unsigned n,
                               unsigned stride)
{
    LLVMValueRef r = n ? LLVMGetPoison(LLVMVectorType(elem, n)) : NULL;
    for (unsigned i = 0; i < (n ? n : 1); i++) {
        LLVMValueRef ld = LLVMBuildLoad2(c->b, elem, elem_addr(c, elem, p, offset, stride, i), "");
        LLVMSetAlignment(ld, elem_bytes(elem));
        r = n ? LLVMBuildInsertElement(c->b, r, ld, LLVMConstInt(i32_t(c), i, 0), "") : ld;
    }
    return r;
}

static LLVMValueRef store_lanes(ext_lower_ctx *c, LLVMValueRef v, LLVMValueRef p, LLVMValueRef offset, unsigned stride)
{
    LLVMTypeRef elem = xi_elem(LLVMTypeOf(v));
    unsigned n = xi_lanes(LLVMTypeOf(v));
    LLVMValueRef st = NULL;
    for (unsigned i = 0; i < (n ? n : 1); i++) {
        st = LLVMBuildStore(c->b, xi_extract_lane(c, v, i), elem_addr(c, elem, p, offset, stride, i));
        LLVMSetAlignment(st, elem_bytes(elem));
    }
    return st;
}

/* float/double → half with a rounding mode: fptrunc rounds to nearest even once
 * (double → half directly, no double rounding); the directed modes then step the
 * result by one ulp where it went the wrong way (overflow to inf steps back to
 * the largest finite half, as the mode requires). */
static LLVMValueRef to_half_rounded(ext_lower_ctx *c, LLVMValueRef x, unsigned mode)
{
    LLVMBuilderRef b = c->b;
    LLVMTypeRef t = LLVMTypeOf(x);
    LLVMValueRef h = xi_fpcast(c, x, LLVMHalfTypeInContext(c->ctx));
    if (mode == RM_RTE)
        return h;
    LLVMTypeRef ht = LLVMTypeOf(h), it = xi_int_like(ht);
    LLVMValueRef back_x = xi_fpcast(c, h, xi_elem(t)); /* exact */
    LLVMValueRef hb = LLVMBuildBitCast(b, h, it, "");
    LLVMValueRef one = xi_iconst(c, it, 1);
    LLVMValueRef up = LLVMBuildAdd(b, hb, one, ""), down = LLVMBuildSub(b, hb, one, "");
    LLVMValueRef pos = LLVMBuildICmp(b, LLVMIntSGE, hb, LLVMConstNull(it), "");
    LLVMValueRef fix, stepped;
    switch (mode) {
    case RM_RTZ: /* magnitude went up: step toward zero (sign-magnitude: bits - 1) */
        fix = xi_fcmp(c, LLVMRealOGT, xi_fabs(c, back_x), xi_fabs(c, x));
        stepped = down;
        break;
    case RM_RTP: /* went below x: next half toward +inf */
        fix = xi_fcmp(c, LLVMRealOLT, back_x, x);
        stepped = xi_select(c, pos, up, down);
        break;
    default: /* RTN: went above x: next half toward -inf */
        fix = xi_fcmp(c, LLVMRealOGT, back_x, x);
        stepped = xi_select(c, pos, down, up);
        break;
    }
    return LLVMBuildBitCast(b, xi_select(c, fix, stepped, hb), ht, "");
}

static LLVMValueRef lower_vload_vstore(ext_lower_ctx *c, uint32_t inst, LLVMValueRef *a, spv_diag *diag)
{
    LLVMTypeRef half = LLVMHalfTypeInContext(c->ctx);
    LLVMTypeRef rt = c->result_type;
    switch (inst) {
    case 171: { /* vloadn(offset, p, n) */
        unsigned n = (unsigned)LLVMConstIntGetZExtValue(a[2]);
        if (!rt || xi_lanes(rt) != n || (!xi_is_fp(rt) && !xi_is_int(rt)))
            return xi_fail(diag, XI_OPENCL, inst, "result type must be a %u-component vector, not %s", n,
                           xi_type_str(rt));
        return load_lanes(c, xi_elem(rt), a[1], a[0], n, n);
    }
    case 172: { /* vstoren(data, offset, p) */
        unsigned n = xi_lanes(LLVMTypeOf(a[0]));
        if (!n)
            return xi_fail(diag, XI_OPENCL, inst, "data must be a vector, not %s", xi_type_str(LLVMTypeOf(a[0])));
        return store_lanes(c, a[0], a[2], a[1], n);
    }
    case 173:
    case 174:
    case 179: { /* vload_half(n), vloada_halfn */
        unsigned n = inst == 173 ? 0 : (unsigned)LLVMConstIntGetZExtValue(a[2]);
        if (!rt || !xi_is_fp(rt) || xi_lanes(rt) != n)
            return xi_fail(diag, XI_OPENCL, inst, "result type must be a floating-point %s%u, not %s",
                           n ? "vector of " : "scalar", n, xi_type_str(rt));
        unsigned stride = inst == 179 && n == 3 ? 4 : n ? n : 1;
        return xi_fpcast(c, load_lanes(c, half, a[1], a[0], n, stride), xi_elem(rt));
    }
    default: { /* 175..178, 180, 181: vstore_half(n)(_r), vstorea_halfn(_r) */
        unsigned n = xi_lanes(LLVMTypeOf(a[0]));
        bool vec = inst == 177 || inst == 178 || inst == 180 || inst == 181;
        if (vec != (n != 0))
            return xi_fail(diag, XI_OPENCL, inst, "data must be a %s, not %s", vec ? "vector" : "scalar",
                           xi_type_str(LLVMTypeOf(a[0])));
        unsigned mode = RM_RTE;
        if (inst == 176 || inst == 178 || inst == 181) {
            uint64_t m = LLVMConstIntGetZExtValue(a[3]);
            if (m > RM_RTN)
                return xi_fail(diag, XI_OPENCL, inst, "rounding mode %llu is not RTE (0), RTZ (1), RTP (2) or RTN (3)",
                               (unsigned long long)m);
            mode = (unsigned)m;
        }
        unsigned stride = (inst == 180 || inst == 181) && n == 3 ? 4 : n ? n : 1;
        return store_lanes(c, to_half_rounded(c, a[0], mode), a[2], a[1], stride);
    }
    }
}

/* --- shuffle, select ------------------------------------------------------------------------------------ */

/* Lane i of the result is x[mask[i] mod n] (OpenCL uses the low bits of each mask
 * element); the mask need not be constant. */
static LLVMValueRef shuffle(ext_lower_ctx *c, LLVMValueRef x, LLVMValueRef mask, spv_diag *diag, uint32_t inst)
{
    unsigned n = xi_lanes(LLVMTypeOf(x)), m = xi_lanes(LLVMTypeOf(mask));
    if (!n || !m)
        return xi_fail(diag, XI_OPENCL, inst, "x and the mask must be vectors, not %s and %s",
                       xi_type_str(LLVMTypeOf(x)), xi_type_str(LLVMTypeOf(mask)));
    LLVMTypeRef mt = LLVMTypeOf(mask);
    LLVMValueRef idx = (n & (n - 1)) == 0 ? LLVMBuildAnd(c->b, mask, xi_iconst(c, mt, n - 1), "")
                                          : LLVMBuildURem(c->b, mask, xi_iconst(c, mt, n), "");
    idx = xi_intcast(c, idx, i32_t(c), false);
    LLVMValueRef r = LLVMGetPoison(LLVMVectorType(xi_elem(LLVMTypeOf(x)), m));
    for (unsigned i = 0; i < m; i++) {
        LLVMValueRef e = LLVMBuildExtractElement(c->b, x, xi_extract_lane(c, idx, i), "");
        r = LLVMBuildInsertElement(c->b, r, e, LLVMConstInt(i32_t(c), i, 0), "");
    }
    return r;
}

static LLVMValueRef concat(ext_lower_ctx *c, LLVMValueRef x, LLVMValueRef y)
{
    unsigned n = xi_lanes(LLVMTypeOf(x));
    LLVMValueRef m[32];
    for (unsigned i = 0; i < 2 * n && i < 32; i++)
        m[i] = LLVMConstInt(i32_t(c), i, 0);
    return LLVMBuildShuffleVector(c->b, x, y, LLVMConstVector(m, 2 * n), "");
}

static LLVMValueRef bitselect(ext_lower_ctx *c, LLVMValueRef a, LLVMValueRef b2, LLVMValueRef m)
{
    LLVMTypeRef t = LLVMTypeOf(a);
    bool fp = xi_is_fp(t);
    LLVMTypeRef it = fp ? xi_int_like(t) : t;
    if (fp) {
        a = LLVMBuildBitCast(c->b, a, it, "");
        b2 = LLVMBuildBitCast(c->b, b2, it, "");
        m = LLVMBuildBitCast(c->b, m, it, "");
    }
    LLVMValueRef r =
        LLVMBuildOr(c->b, LLVMBuildAnd(c->b, a, LLVMBuildNot(c->b, m, ""), ""), LLVMBuildAnd(c->b, b2, m, ""), "");
    return fp ? LLVMBuildBitCast(c->b, r, t, "") : r;
}

/* --- printf -------------------------------------------------------------------------------------------------- */

static LLVMValueRef lower_printf(ext_lower_ctx *c, LLVMValueRef *args, unsigned nargs, spv_diag *diag)
{
    const uint32_t inst = 184;
    const char *fmt = c->printf_format;
    if (!fmt)
        return xi_fail(diag, XI_OPENCL, inst, "the format must be a constant string (a UniformConstant array of i8)");
    LLVMTypeRef i64 = LLVMInt64TypeInContext(c->ctx), ptr = LLVMPointerTypeInContext(c->ctx, 0);
    util_array call = { 0 }; /* stream, format, then the values */
    unsigned next = 1;
    size_t pos = 0;
    rt_printf_spec s;
    const char *why = NULL;
    int r;
    LLVMValueRef result = NULL;
    /* The arguments go through C varargs in the shapes rt_printf.h lists. */
#define PUSH(v)                                                                                                        \
    do {                                                                                                               \
        if (!UTIL_ARRAY_PUSH(&call, LLVMValueRef, (v))) {                                                              \
            xi_fail(diag, XI_OPENCL, inst, "out of memory");                                                           \
            goto done;                                                                                                 \
        }                                                                                                              \
    } while (0)
    PUSH(NULL);
    PUSH(NULL);
    while ((r = rt_printf_parse(fmt, &pos, &s, &why)) > 0) {
        if (s.conv == '%')
            continue;
        for (int star = 0; star < (int)s.star_width + (int)s.star_prec; star++) {
            if (next >= nargs) {
                xi_fail(diag, XI_OPENCL, inst,
                        "format \"%s\": conversion at offset %zu needs more arguments than the %u given", fmt, s.start,
                        nargs - 1);
                goto done;
            }
            LLVMValueRef v = args[next++];
            if (!xi_is_int(LLVMTypeOf(v)) || xi_lanes(LLVMTypeOf(v))) {
                xi_fail(diag, XI_OPENCL, inst, "format \"%s\": '*' at offset %zu takes an integer, not %s", fmt,
                        s.start, xi_type_str(LLVMTypeOf(v)));
                goto done;
            }
            PUSH(xi_intcast(c, v, i64, true));
        }
        if (next >= nargs) {
            xi_fail(diag, XI_OPENCL, inst, "format \"%s\": conversion at offset %zu has no argument (%u given)", fmt,
                    s.start, nargs - 1);
            goto done;
        }
        LLVMValueRef v = args[next++];
        LLVMTypeRef vt = LLVMTypeOf(v);
        bool isint = rt_printf_is_int_conv(s.conv), isfp = rt_printf_is_fp_conv(s.conv);
        const char *want = isint ? "integer" : isfp ? "floating-point" : "pointer";
        bool ok = isint ? xi_is_int(vt) : isfp ? xi_is_fp(vt) : LLVMGetTypeKind(vt) == LLVMPointerTypeKind;
        if (ok && (isint || isfp) && xi_lanes(vt) != s.vec)
            ok = false;
        if (!ok) {
            if (s.vec)
                xi_fail(diag, XI_OPENCL, inst,
                        "format \"%s\": %%v%u conversion at offset %zu takes a %u-component %s vector, "
                        "not %s",
                        fmt, s.vec, s.start, s.vec, want, xi_type_str(vt));
            else
                xi_fail(diag, XI_OPENCL, inst, "format \"%s\": conversion '%c' at offset %zu takes a scalar %s, not %s",
                        fmt, s.conv, s.start, want, xi_type_str(vt));
            goto done;
        }
        for (unsigned i = 0; i < (s.vec ? s.vec : 1); i++) {
            LLVMValueRef e = xi_extract_lane(c, v, i);
            PUSH(isint ? xi_intcast(c, e, i64, s.conv == 'd' || s.conv == 'i') : isfp ? xi_fpcast(c, e, f64_t(c)) : e);
        }
    }
    if (r < 0) {
        xi_fail(diag, XI_OPENCL, inst, "format \"%s\": bad conversion at offset %zu: %s", fmt, s.start, why);
        goto done;
    }
    /* Extra arguments are evaluated and ignored, as in C. */
    {
        LLVMValueRef stream = LLVMConstNull(ptr);
        if (c->wg_ctx) {
            LLVMValueRef off = LLVMConstInt(i64, offsetof(spvjit_wg_ctx, printf_stream), 0);
            LLVMValueRef at = LLVMBuildGEP2(c->b, LLVMInt8TypeInContext(c->ctx), c->wg_ctx, &off, 1, "");
            stream = LLVMBuildLoad2(c->b, ptr, at, "printf.stream");
        }
        LLVMValueRef *argv = call.data;
        argv[0] = stream;
        argv[1] = LLVMBuildGlobalStringPtr(c->b, fmt, "spvjit.printf.fmt");
        LLVMTypeRef params[2] = { ptr, ptr };
        LLVMTypeRef fty = LLVMFunctionType(LLVMInt32TypeInContext(c->ctx), params, 2, 1);
        LLVMValueRef fn = LLVMGetNamedFunction(c->mod, "spvjit_rt_printf");
        if (!fn)
            fn = LLVMAddFunction(c->mod, "spvjit_rt_printf", fty);
        result = LLVMBuildCall2(c->b, fty, fn, argv, (unsigned)UTIL_ARRAY_COUNT(&call, LLVMValueRef), "");
        if (c->result_type && xi_is_int(c->result_type) && c->result_type != LLVMInt32TypeInContext(c->ctx))
            result = xi_intcast(c, result, c->result_type, true);
    }
done:
#undef PUSH
    util_array_fini(&call);
    return result;
}

/* --- the dispatcher ---------------------------------------------------------------------------------------- */

static bool geometric_shape(spv_diag *diag, uint32_t inst, LLVMValueRef x)
{
    if (xi_lanes(LLVMTypeOf(x)) <= 4)
        return true;
    xi_fail(diag, XI_OPENCL, inst, "takes a scalar or a vector of up to 4 components, not %s",
            xi_type_str(LLVMTypeOf(x)));
    return false;
}

static LLVMValueRef lower_float(ext_lower_ctx *c, uint32_t inst, LLVMValueRef *a, unsigned nargs, spv_diag *diag)
{
    LLVMBuilderRef b = c->b;
    LLVMValueRef x = a[0], y = nargs > 1 ? a[1] : NULL, z = nargs > 2 ? a[2] : NULL;
    LLVMTypeRef t = LLVMTypeOf(x);
    LLVMTypeRef pt1 = c->pointee_types && nargs > 1 ? c->pointee_types[nargs - 1] : NULL;
    switch (inst) {
    case 0:
        return xi_libm1(c, "acos", x);
    case 1:
        return xi_libm1(c, "acosh", x);
    case 2:
        return back(c, fmul_k(c, xi_libm1(c, "acos", to_f64(c, x)), M_1_PI), x);
    case 3:
        return xi_libm1(c, "asin", x);
    case 4:
        return xi_libm1(c, "asinh", x);
    case 5:
        return back(c, fmul_k(c, xi_libm1(c, "asin", to_f64(c, x)), M_1_PI), x);
    case 6:
        return xi_libm1(c, "atan", x);
    case 7:
        return xi_libm2(c, "atan2", x, y);
    case 8:
        return xi_libm1(c, "atanh", x);
    case 9:
        return back(c, fmul_k(c, xi_libm1(c, "atan", to_f64(c, x)), M_1_PI), x);
    case 10:
        return back(c, fmul_k(c, xi_libm2(c, "atan2", to_f64(c, x), to_f64(c, y)), M_1_PI), x);
    case 11:
        return xi_libm1(c, "cbrt", x);
    case 12:
        return xi_intrin1(c, "llvm.ceil", x);
    case 13:
        return xi_copysign(c, x, y);
    case 14:
    case 67:
    case 81:
        return xi_intrin1(c, "llvm.cos", x);
    case 15:
        return xi_libm1(c, "cosh", x);
    case 16:
    case 60:
    case 64: {
        LLVMValueRef s, co;
        emit_sincospi(c, to_f64(c, x), &s, &co);
        return back(c, inst == 16 ? co : inst == 60 ? s : LLVMBuildFDiv(b, s, co, ""), x);
    }
    case 17:
        return xi_libm1(c, "erfc", x);
    case 18:
        return xi_libm1(c, "erf", x);
    case 19:
    case 69:
    case 83:
        return xi_intrin1(c, "llvm.exp", x);
    case 20:
    case 70:
    case 84:
        return xi_intrin1(c, "llvm.exp2", x);
    case 21:
    case 71:
    case 85:
        return xi_libm1(c, "exp10", x);
    case 22:
        return xi_libm1(c, "expm1", x);
    case 23:
        return xi_fabs(c, x);
    case 24:
        return emit_fdim(c, x, y);
    case 25:
        return xi_intrin1(c, "llvm.floor", x);
    case 26:
        return xi_intrin3(c, "llvm.fma", x, y, z);
    case 27:
    case 97:
        return xi_intrin2(c, "llvm.maxnum", x, y);
    case 28:
    case 98:
        return xi_intrin2(c, "llvm.minnum", x, y);
    case 29:
        return LLVMBuildFRem(b, x, y, ""); /* frem is C's fmod */
    case 30:
    case 31:
    case 36:
    case 45:
    case 52:
    case 58: {
        /* the functions with an output pointer (the last operand) */
        LLVMValueRef out = a[nargs - 1], second, r;
        if (!pt1 || xi_lanes(pt1) != xi_lanes(t))
            return xi_fail(diag, XI_OPENCL, inst,
                           "the pointer operand must point to a value shaped like x (%s), not %s", xi_type_str(t),
                           xi_type_str(pt1));
        bool want_int = inst == 31 || inst == 36 || inst == 52;
        if (want_int ? !xi_is_int(pt1) : xi_elem(pt1) != xi_elem(t))
            return xi_fail(diag, XI_OPENCL, inst, "the pointer operand must point to %s, not %s",
                           want_int ? "integers" : xi_type_str(t), xi_type_str(pt1));
        switch (inst) {
        case 30:
            r = emit_fract(c, x, &second);
            break;
        case 31:
            r = xi_frexp(c, x, xi_elem(pt1), &second);
            break;
        case 36:
            r = emit_lgamma_r(c, x, &second);
            second = xi_intcast(c, second, xi_elem(pt1), true);
            break;
        case 45:
            r = xi_modf(c, x, &second);
            break;
        case 52:
            r = emit_remquo(c, x, y, xi_elem(pt1), &second);
            break;
        default: /* 58 sincos */
            r = xi_intrin1(c, "llvm.sin", x);
            second = xi_intrin1(c, "llvm.cos", x);
            break;
        }
        xi_store_out(c, second, out);
        return r;
    }
    case 32:
        return xi_libm2(c, "hypot", x, y);
    case 33:
        if (!c->result_type || !xi_is_int(c->result_type) || xi_lanes(c->result_type) != xi_lanes(t))
            return xi_fail(diag, XI_OPENCL, inst, "result type must be integers shaped like x, not %s",
                           xi_type_str(c->result_type));
        return emit_ilogb(c, x, xi_elem(c->result_type));
    case 34:
        return xi_ldexp(c, x, y);
    case 35:
        return emit_lgamma_r(c, x, NULL);
    case 37:
    case 72:
    case 86:
        return xi_intrin1(c, "llvm.log", x);
    case 38:
    case 73:
    case 87:
        return xi_intrin1(c, "llvm.log2", x);
    case 39:
    case 74:
    case 88:
        return xi_intrin1(c, "llvm.log10", x);
    case 40:
        return xi_libm1(c, "log1p", x);
    case 41:
        return emit_logb(c, x);
    case 42:
        return xi_intrin3(c, "llvm.fmuladd", x, y, z);
    case 43:
        return emit_maxmag(c, x, y, true);
    case 44:
        return emit_maxmag(c, x, y, false);
    case 46:
        if (!c->result_type || !xi_is_fp(c->result_type) || xi_lanes(c->result_type) != xi_lanes(t) ||
            xi_int_bits(t) != xi_fp_bits(c->result_type))
            return xi_fail(diag, XI_OPENCL, inst,
                           "result type must be floating-point with nancode's shape and width (%s), not %s",
                           xi_type_str(t), xi_type_str(c->result_type));
        return nan_code(c, x, c->result_type);
    case 47:
        return emit_nextafter(c, x, y);
    case 48:
        return xi_intrin2(c, "llvm.pow", x, y);
    case 49:
        return emit_pown(c, x, y);
    case 50:
    case 75:
    case 89:
        return emit_powr(c, x, y);
    case 51:
        return xi_libm2(c, "remainder", x, y);
    case 53:
        return xi_intrin1(c, "llvm.rint", x);
    case 54:
        return emit_rootn(c, x, y);
    case 55:
        return xi_intrin1(c, "llvm.round", x);
    case 56:
    case 77:
    case 91:
        return emit_rsqrt(c, x);
    case 57:
    case 78:
    case 92:
        return xi_intrin1(c, "llvm.sin", x);
    case 59:
        return xi_libm1(c, "sinh", x);
    case 61:
    case 79:
    case 93:
        return xi_intrin1(c, "llvm.sqrt", x);
    case 62:
    case 80:
    case 94:
        return xi_libm1(c, "tan", x);
    case 63:
        return xi_libm1(c, "tanh", x);
    case 65:
        return xi_libm1(c, "tgamma", x);
    case 66:
        return xi_intrin1(c, "llvm.trunc", x);
    case 68:
    case 82:
        return LLVMBuildFDiv(b, x, y, "");
    case 76:
    case 90:
        return LLVMBuildFDiv(b, xi_fconst(c, t, 1.0), x, "");
    /* common */
    case 95:
        return xi_fclamp(c, x, y, z);
    case 96:
        return xi_scale(c, x, 180.0 / M_PI);
    case 99:
        return xi_mix(c, x, y, z);
    case 100:
        return xi_scale(c, x, M_PI / 180.0);
    case 101:
        return xi_step(c, x, y);
    case 102:
        return xi_smoothstep(c, x, y, z);
    case 103:
        return xi_fsign(c, x, true);
    /* geometric */
    case 104:
        if ((xi_lanes(t) != 3 && xi_lanes(t) != 4) || LLVMTypeOf(y) != t)
            return xi_fail(diag, XI_OPENCL, inst, "operands must be two 3- or 4-component vectors, not %s and %s",
                           xi_type_str(t), xi_type_str(LLVMTypeOf(y)));
        return xi_cross(c, x, y);
    case 105:
    case 106:
    case 107:
    case 108:
    case 109:
    case 110:
        if (!geometric_shape(diag, inst, x))
            return NULL;
        switch (inst) {
        case 105:
            return ocl_length(c, LLVMBuildFSub(b, x, y, ""));
        case 106:
            return ocl_length(c, x);
        case 107:
            return ocl_normalize(c, x);
        case 108:
            return xi_length_naive(c, LLVMBuildFSub(b, x, y, ""));
        case 109:
            return xi_length_naive(c, x);
        default:
            return fast_normalize(c, x);
        }
    }
    return xi_fail(diag, XI_OPENCL, inst, "not lowered (internal error)");
}

LLVMValueRef lower_opencl_std(ext_lower_ctx *c, uint32_t inst, LLVMValueRef *args, unsigned nargs, spv_diag *diag)
{
    unsigned want = 0;
    bool variadic = false;
    if (!xi_opencl_info(inst, &want, &variadic)) {
        spv_fail(diag,
                 "OpenCL.std instruction %u: unknown instruction number (the set defines 0..110, "
                 "141..187 and 201..204)",
                 inst);
        return NULL;
    }
    if (variadic ? nargs < want : nargs != want)
        return xi_fail(diag, XI_OPENCL, inst, "expected %s%u operand%s, got %u", variadic ? "at least " : "", want,
                       want == 1 ? "" : "s", nargs);
    for (unsigned i = 0; i < nargs; i++)
        if (!args[i])
            return xi_fail(diag, XI_OPENCL, inst, "operand %u is missing", i + 1);
    if (!check_operands(diag, inst, args, nargs))
        return NULL;

    /* Scalars standing for vectors (fmax(v, s), clamp(v, lo, hi), ...) are splatted. */
    LLVMValueRef a[4] = { NULL, NULL, NULL, NULL };
    const char *sig = signature(inst);
    LLVMTypeRef widest = NULL;
    size_t nsig = strlen(sig);
    for (unsigned i = 0; i < nargs && i < 4; i++) {
        a[i] = args[i];
        bool shaped = i < nsig && (sig[i] == 'f' || sig[i] == 'i');
        if (shaped && (!widest || xi_lanes(LLVMTypeOf(args[i])) > xi_lanes(widest)))
            widest = LLVMTypeOf(args[i]);
    }
    for (unsigned i = 0; i < nargs && i < 4 && i < nsig; i++)
        if (sig[i] == 'f' || sig[i] == 'i')
            a[i] = xi_splat(c, a[i], widest);

    if (inst <= 110)
        return lower_float(c, inst, a, nargs, diag);
    if ((inst >= 141 && inst <= 170) || inst >= 201)
        return lower_integer(c, inst, a, diag);
    switch (inst) {
    case 171:
    case 172:
    case 173:
    case 174:
    case 175:
    case 176:
    case 177:
    case 178:
    case 179:
    case 180:
    case 181:
        return lower_vload_vstore(c, inst, a, diag);
    case 182:
        return shuffle(c, a[0], a[1], diag, inst);
    case 183:
        if (LLVMTypeOf(a[0]) != LLVMTypeOf(a[1]) || !xi_lanes(LLVMTypeOf(a[0])))
            return xi_fail(diag, XI_OPENCL, inst, "x and y must be vectors of one type, not %s and %s",
                           xi_type_str(LLVMTypeOf(a[0])), xi_type_str(LLVMTypeOf(a[1])));
        return shuffle(c, concat(c, a[0], a[1]), a[2], diag, inst);
    case 184:
        return lower_printf(c, args, nargs, diag);
    case 185:
        return args[0]; /* prefetch: a hint, nothing to do on a CPU with caches */
    case 186:
        if (LLVMTypeOf(a[0]) != LLVMTypeOf(a[1]) || LLVMTypeOf(a[0]) != LLVMTypeOf(a[2]))
            return xi_fail(diag, XI_OPENCL, inst, "operands must have one type, not %s, %s, %s",
                           xi_type_str(LLVMTypeOf(a[0])), xi_type_str(LLVMTypeOf(a[1])), xi_type_str(LLVMTypeOf(a[2])));
        return bitselect(c, a[0], a[1], a[2]);
    default: { /* 187 select(a, b, c): scalar c != 0, vector: the sign bit of each lane of c */
        LLVMTypeRef t = LLVMTypeOf(a[0]), ct = LLVMTypeOf(a[2]);
        unsigned bits = xi_is_fp(t) ? xi_fp_bits(t) : xi_int_bits(t);
        if (LLVMTypeOf(a[1]) != t || xi_lanes(ct) != xi_lanes(t) || (xi_lanes(t) && xi_int_bits(ct) != bits))
            return xi_fail(diag, XI_OPENCL, inst,
                           "a and b must have one type and c integers of that shape, not %s, %s, %s", xi_type_str(t),
                           xi_type_str(LLVMTypeOf(a[1])), xi_type_str(ct));
        LLVMValueRef cond = xi_lanes(t) ? LLVMBuildICmp(c->b, LLVMIntSLT, a[2], LLVMConstNull(ct), "")
                                        : LLVMBuildICmp(c->b, LLVMIntNE, a[2], LLVMConstNull(ct), "");
        return xi_select(c, cond, a[1], a[0]);
    }
    }
}
