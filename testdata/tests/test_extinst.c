/* testdata/tests/test_extinst.c — GLSL.std.450 and OpenCL.std lowerings.
 *
 * Each case builds a small LLVM function around one lowering (arguments loaded
 * from pointers, the result stored to a pointer), JITs it with ORC LLJIT and runs
 * it on random inputs; results are compared with long double libm or plain C
 * reference formulas, for half, float and double, scalars and vectors.  Half
 * values are converted by this file's own code (an independent reference for
 * the vstore_half rounding modes too).
 */
#include "testdata/tests/harness.h"

#include "jit/abi.h"
#include "jit/extinst.h"
#include "jit/extinst_util.h"
#include "jit/rt_printf.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { GL, CL }; /* which set a case belongs to */

/* ---------------------------------------------------------------------------------------------
 * Half conversion (reference implementation, all four rounding modes)
 * ------------------------------------------------------------------------------------------- */

enum { RTE, RTZ, RTP, RTN };

static double h2d(uint16_t h)
{
    int sign = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    double v;
    if (e == 31)
        v = m ? NAN : INFINITY;
    else if (e == 0)
        v = ldexp(m, -24);
    else
        v = ldexp(m + 1024, e - 25);
    return sign ? -v : v;
}

static uint16_t d2h(double x, int mode)
{
    uint16_t sign = signbit(x) ? 0x8000 : 0;
    double a = fabs(x);
    if (isnan(x))
        return 0x7e00 | sign;
    if (isinf(x))
        return 0x7c00 | sign;
    if (a == 0)
        return sign;
    int e;
    frexp(a, &e);
    e -= 1;                            /* a = m * 2^e, m in [1, 2) */
    int qe = (e < -14 ? -14 : e) - 10; /* the quantum of halves near a */
    double n = ldexp(a, -qe), fl = floor(n), fr = n - fl;
    bool up;
    switch (mode) {
    case RTE:
        up = fr > 0.5 || (fr == 0.5 && fmod(fl, 2.0) == 1.0);
        break;
    case RTZ:
        up = false;
        break;
    case RTP:
        up = fr > 0 && !sign;
        break;
    default:
        up = fr > 0 && sign;
        break;
    }
    double v = ldexp(fl + (up ? 1 : 0), qe);
    if (v > 65504.0) {
        bool to_inf = mode == RTE || (mode == RTP && !sign) || (mode == RTN && sign);
        return sign | (to_inf ? 0x7c00 : 0x7bff);
    }
    if (v < 0x1p-14)
        return sign | (uint16_t)ldexp(v, 24);
    frexp(v, &e);
    e -= 1;
    return sign | (uint16_t)((e + 15) << 10) | (uint16_t)(ldexp(v, 10 - e) - 1024);
}

/* ---------------------------------------------------------------------------------------------
 * Typed element access in packed buffers
 * ------------------------------------------------------------------------------------------- */

static long double get_fp(const void *buf, unsigned i, int bits)
{
    if (bits == 16) {
        uint16_t h;
        memcpy(&h, (const char *)buf + 2 * i, 2);
        return h2d(h);
    }
    if (bits == 32) {
        float f;
        memcpy(&f, (const char *)buf + 4 * i, 4);
        return f;
    }
    double d;
    memcpy(&d, (const char *)buf + 8 * i, 8);
    return d;
}

static void put_fp(void *buf, unsigned i, int bits, long double v)
{
    if (bits == 16) {
        uint16_t h = d2h((double)v, RTE);
        memcpy((char *)buf + 2 * i, &h, 2);
    } else if (bits == 32) {
        float f = (float)v;
        memcpy((char *)buf + 4 * i, &f, 4);
    } else {
        double d = (double)v;
        memcpy((char *)buf + 8 * i, &d, 8);
    }
}

/* v rounded to the type (what put_fp stores) */
static long double round_to(long double v, int bits)
{
    char tmp[8];
    put_fp(tmp, 0, bits, v);
    return get_fp(tmp, 0, bits);
}

static uint64_t get_int(const void *buf, unsigned i, int bits)
{
    uint64_t v = 0;
    memcpy(&v, (const char *)buf + (size_t)i * (unsigned)bits / 8, (size_t)bits / 8); /* little-endian */
    return v;
}

static void put_int(void *buf, unsigned i, int bits, uint64_t v)
{
    memcpy((char *)buf + (size_t)i * (unsigned)bits / 8, &v, (size_t)bits / 8);
}

static uint64_t mask_of(int bits)
{
    return bits == 64 ? ~0ull : (1ull << bits) - 1;
}
static int64_t sx(uint64_t v, int bits)
{
    v &= mask_of(bits);
    return bits < 64 && (v >> (bits - 1)) & 1 ? (int64_t)(v | ~mask_of(bits)) : (int64_t)v;
}

static double rand_in(uint64_t *s, double lo, double hi)
{
    return lo + (hi - lo) * ((double)(test_rand_u64(s) >> 11) * 0x1p-53);
}

/* ---------------------------------------------------------------------------------------------
 * Tolerances
 * ------------------------------------------------------------------------------------------- */

static long double ulp_of(long double r, int bits)
{
    int p = bits == 16 ? 11 : bits == 32 ? 24 : 53, emin = bits == 16 ? -14 : bits == 32 ? -126 : -1022;
    int e = emin;
    if (r != 0 && isfinite(r)) {
        frexpl(fabsl(r), &e);
        e -= 1;
        if (e < emin)
            e = emin;
    }
    return ldexpl(1.0L, e - p + 1);
}

/* got within `ulps` ulps of ref (ulps 0: equal to ref rounded to the type);
 * scale > 0 measures in ulps of `scale` instead (for formulas with cancellation). */
static bool close_to(long double got, long double ref, int bits, double ulps, long double scale)
{
    if (isnan(ref))
        return isnan(got);
    long double rt = round_to(ref, bits);
    if (got == rt)
        return !(got == 0 && rt == 0 && ulps == 0 && signbit(got) != signbit(rt));
    if (isinf(rt) || isinf(got) || isnan(got) || ulps == 0)
        return false;
    long double u = ulp_of(scale > 0 ? scale : ref, bits);
    return fabsl(got - ref) <= (long double)ulps * u;
}

/* ---------------------------------------------------------------------------------------------
 * The JIT harness: one module of small functions per test, one LLJIT
 *   void fN(ptr a0, ptr a1, ptr a2, ptr a3, ptr out, ptr wg_ctx)
 * Value operands are loaded from a_i (packed: vectors and matrix columns without
 * padding), pointer operands are a_i itself, literals are i32 constants.
 * ------------------------------------------------------------------------------------------- */

typedef void (*kern_fn)(void *a0, void *a1, void *a2, void *a3, void *out, const void *wg_ctx);

typedef enum { A_VAL, A_PTR, A_LIT } akind;
typedef struct {
    akind kind;
    LLVMTypeRef type;
    uint64_t lit;
} argspec;

typedef struct {
    LLVMOrcThreadSafeContextRef tsc;
    LLVMContextRef ctx;
    LLVMModuleRef mod;
    LLVMBuilderRef b;
    LLVMOrcLLJITRef jit;
    int nfn;
    spv_diag diag; /* of the last failed lowering */
} jt;

static void init_llvm_once(void)
{
    static bool done;
    if (!done) {
        LLVMInitializeNativeTarget();
        LLVMInitializeNativeAsmPrinter();
        done = true;
    }
}

static void jt_begin(jt *j)
{
    init_llvm_once();
    memset(j, 0, sizeof *j);
    j->tsc = LLVMOrcCreateNewThreadSafeContext();
    j->ctx = LLVMOrcThreadSafeContextGetContext(j->tsc);
    j->mod = LLVMModuleCreateWithNameInContext("extinst_test", j->ctx);
    j->b = LLVMCreateBuilderInContext(j->ctx);
}

static LLVMTypeRef ty_fp(jt *j, int bits, unsigned lanes)
{
    LLVMTypeRef e = bits == 16   ? LLVMHalfTypeInContext(j->ctx)
                    : bits == 32 ? LLVMFloatTypeInContext(j->ctx)
                                 : LLVMDoubleTypeInContext(j->ctx);
    return lanes ? LLVMVectorType(e, lanes) : e;
}

static LLVMTypeRef ty_int(jt *j, int bits, unsigned lanes)
{
    LLVMTypeRef e = LLVMIntTypeInContext(j->ctx, (unsigned)bits);
    return lanes ? LLVMVectorType(e, lanes) : e;
}

static unsigned packed_size(LLVMTypeRef t)
{
    switch (LLVMGetTypeKind(t)) {
    case LLVMArrayTypeKind:
        return (unsigned)LLVMGetArrayLength2(t) * packed_size(LLVMGetElementType(t));
    case LLVMStructTypeKind: {
        unsigned n = LLVMCountStructElementTypes(t), s = 0;
        for (unsigned i = 0; i < n; i++)
            s += packed_size(LLVMStructGetTypeAtIndex(t, i));
        return s;
    }
    default: {
        unsigned lanes = xi_lanes(t) ? xi_lanes(t) : 1;
        unsigned bits = xi_is_fp(t) ? xi_fp_bits(t) : xi_int_bits(t);
        return lanes * bits / 8;
    }
    }
}

static LLVMValueRef byte_gep(jt *j, LLVMValueRef p, unsigned off)
{
    LLVMValueRef o = LLVMConstInt(LLVMInt64TypeInContext(j->ctx), off, 0);
    return LLVMBuildGEP2(j->b, LLVMInt8TypeInContext(j->ctx), p, &o, 1, "");
}

static LLVMValueRef load_packed(jt *j, LLVMTypeRef t, LLVMValueRef p)
{
    if (LLVMGetTypeKind(t) == LLVMArrayTypeKind) {
        LLVMTypeRef e = LLVMGetElementType(t);
        LLVMValueRef v = LLVMGetPoison(t);
        for (unsigned i = 0; i < LLVMGetArrayLength2(t); i++)
            v = LLVMBuildInsertValue(j->b, v, load_packed(j, e, byte_gep(j, p, i * packed_size(e))), i, "");
        return v;
    }
    LLVMValueRef ld = LLVMBuildLoad2(j->b, t, p, "");
    LLVMSetAlignment(ld, 1);
    return ld;
}

static void store_packed(jt *j, LLVMValueRef v, LLVMValueRef p)
{
    LLVMTypeRef t = LLVMTypeOf(v);
    LLVMTypeKind k = LLVMGetTypeKind(t);
    if (k == LLVMArrayTypeKind || k == LLVMStructTypeKind) {
        unsigned n = k == LLVMArrayTypeKind ? (unsigned)LLVMGetArrayLength2(t) : LLVMCountStructElementTypes(t);
        unsigned off = 0;
        for (unsigned i = 0; i < n; i++) {
            LLVMValueRef e = LLVMBuildExtractValue(j->b, v, i, "");
            store_packed(j, e, byte_gep(j, p, off));
            off += packed_size(LLVMTypeOf(e));
        }
        return;
    }
    LLVMValueRef st = LLVMBuildStore(j->b, v, p);
    LLVMSetAlignment(st, 1);
}

/* Adds a function around one lowering; returns its index, or -1 (j->diag says why). */
static int jt_add(jt *j, int set, uint32_t inst, const argspec *args, unsigned nargs, LLVMTypeRef result,
                  const char *printf_fmt)
{
    LLVMTypeRef ptr = LLVMPointerTypeInContext(j->ctx, 0);
    LLVMTypeRef params[6] = { ptr, ptr, ptr, ptr, ptr, ptr };
    char name[32];
    snprintf(name, sizeof name, "f%d", j->nfn);
    LLVMValueRef fn = LLVMAddFunction(j->mod, name, LLVMFunctionType(LLVMVoidTypeInContext(j->ctx), params, 6, 0));
    LLVMPositionBuilderAtEnd(j->b, LLVMAppendBasicBlockInContext(j->ctx, fn, "entry"));
    LLVMValueRef vals[16];
    LLVMTypeRef pointees[16];
    for (unsigned i = 0; i < nargs; i++) {
        LLVMValueRef param = LLVMGetParam(fn, i < 4 ? i : 3);
        pointees[i] = NULL;
        switch (args[i].kind) {
        case A_VAL:
            vals[i] = load_packed(j, args[i].type, i < 4 ? param : byte_gep(j, param, 64 * (i - 3)));
            break;
        case A_PTR:
            vals[i] = param;
            pointees[i] = args[i].type;
            break;
        case A_LIT:
            vals[i] = LLVMConstInt(LLVMInt32TypeInContext(j->ctx), args[i].lit, 0);
            break;
        }
    }
    ext_lower_ctx c = { .ctx = j->ctx,
                        .mod = j->mod,
                        .b = j->b,
                        .result_type = result,
                        .pointee_types = pointees,
                        .printf_format = printf_fmt,
                        .wg_ctx = LLVMGetParam(fn, 5) };
    LLVMValueRef r =
        set == GL ? lower_glsl450(&c, inst, vals, nargs, &j->diag) : lower_opencl_std(&c, inst, vals, nargs, &j->diag);
    if (!r) {
        LLVMDeleteFunction(fn);
        return -1;
    }
    if (result && LLVMGetTypeKind(result) != LLVMVoidTypeKind)
        store_packed(j, r, LLVMGetParam(fn, 4));
    LLVMBuildRetVoid(j->b);
    return j->nfn++;
}

static bool jt_compile(jt *j)
{
    char *msg = NULL;
    if (LLVMVerifyModule(j->mod, LLVMReturnStatusAction, &msg)) {
        test_fail(__FILE__, __LINE__, "module does not verify: %.2000s", msg);
        LLVMDisposeMessage(msg);
        return false;
    }
    LLVMDisposeMessage(msg);
    LLVMOrcLLJITBuilderRef builder = LLVMOrcCreateLLJITBuilder();
    LLVMErrorRef err = LLVMOrcCreateLLJIT(&j->jit, builder);
    if (err) {
        char *m = LLVMGetErrorMessage(err);
        test_fail(__FILE__, __LINE__, "LLJIT: %s", m);
        LLVMDisposeErrorMessage(m);
        return false;
    }
    LLVMOrcJITDylibRef jd = LLVMOrcLLJITGetMainJITDylib(j->jit);
    LLVMOrcDefinitionGeneratorRef gen = NULL;
    err = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(&gen, LLVMOrcLLJITGetGlobalPrefix(j->jit), NULL, NULL);
    if (!err)
        LLVMOrcJITDylibAddGenerator(jd, gen);
    else
        LLVMConsumeError(err);
    /* run_tests is not linked with -rdynamic: its own symbols are not in the
     * dynamic table, so the runtime's printf is defined explicitly. */
    LLVMOrcCSymbolMapPair sym = { LLVMOrcLLJITMangleAndIntern(j->jit, "spvjit_rt_printf"),
                                  { (LLVMOrcExecutorAddress)(uintptr_t)&spvjit_rt_printf,
                                    { LLVMJITSymbolGenericFlagsExported | LLVMJITSymbolGenericFlagsCallable, 0 } } };
    err = LLVMOrcJITDylibDefine(jd, LLVMOrcAbsoluteSymbols(&sym, 1));
    if (err)
        LLVMConsumeError(err);
    LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(j->mod, j->tsc);
    j->mod = NULL; /* owned by the JIT now */
    err = LLVMOrcLLJITAddLLVMIRModule(j->jit, jd, tsm);
    if (err) {
        char *m = LLVMGetErrorMessage(err);
        test_fail(__FILE__, __LINE__, "add module: %s", m);
        LLVMDisposeErrorMessage(m);
        return false;
    }
    return true;
}

static kern_fn jt_fn(jt *j, int idx)
{
    char name[32];
    snprintf(name, sizeof name, "f%d", idx);
    LLVMOrcExecutorAddress addr = 0;
    LLVMErrorRef err = LLVMOrcLLJITLookup(j->jit, &addr, name);
    if (err) {
        char *m = LLVMGetErrorMessage(err);
        test_fail(__FILE__, __LINE__, "lookup %s: %s", name, m);
        LLVMDisposeErrorMessage(m);
        return NULL;
    }
    kern_fn f;
    uintptr_t a = (uintptr_t)addr;
    memcpy(&f, &a, sizeof f);
    return f;
}

static void jt_end(jt *j)
{
    LLVMDisposeBuilder(j->b);
    if (j->mod)
        LLVMDisposeModule(j->mod);
    if (j->jit)
        LLVMOrcDisposeLLJIT(j->jit);
    LLVMOrcDisposeThreadSafeContext(j->tsc);
}

static const char *set_name(int set)
{
    return set == GL ? "GLSL.std.450" : "OpenCL.std";
}
static const char *inst_name(int set, uint32_t inst)
{
    const char *n = set == GL ? xi_glsl450_info(inst, NULL) : xi_opencl_info(inst, NULL, NULL);
    return n ? n : "?";
}

/* ---------------------------------------------------------------------------------------------
 * Element-wise floating-point functions: a table against long double references
 * ------------------------------------------------------------------------------------------- */

typedef long double (*ref_fn)(long double x, long double y, long double z);

#define PI_L 3.141592653589793238462643383279502884L
#define R(name, expr)                                                                                                  \
    static long double name(long double x, long double y, long double z)                                               \
    {                                                                                                                  \
        (void)x;                                                                                                       \
        (void)y;                                                                                                       \
        (void)z;                                                                                                       \
        return (expr);                                                                                                 \
    }

/* sin(pi x), cos(pi x) with exact reduction (so exact zeros stay exact) */
static void sincospi_l(long double x, long double *s, long double *c)
{
    long double n = rintl(2 * x), f = x - n / 2, q = n - 4 * floorl(n / 4);
    long double sf = sinl(PI_L * f), cf = cosl(PI_L * f);
    if (q == 0) {
        *s = sf;
        *c = cf;
    } else if (q == 1) {
        *s = cf;
        *c = -sf;
    } else if (q == 2) {
        *s = -sf;
        *c = -cf;
    } else {
        *s = -cf;
        *c = sf;
    }
    if (*s == 0) /* OpenCL: sinpi(n) = copysign(0, n), cospi(n + 0.5) = +0 */
        *s = copysignl(0, x);
    if (*c == 0)
        *c = 0;
}
static long double sinpi_l(long double x)
{
    long double s, c;
    sincospi_l(x, &s, &c);
    return s;
}
static long double cospi_l(long double x)
{
    long double s, c;
    sincospi_l(x, &s, &c);
    return c;
}

R(r_round, roundl(x))
R(r_rint, rintl(x)) R(r_trunc, truncl(x)) R(r_fabs, fabsl(x)) R(r_fsign, x > 0   ? 1
                                                                         : x < 0 ? -1
                                                                                 : x) R(r_floor, floorl(x))
    R(r_ceil, ceill(x)) R(r_fract, x - floorl(x)) R(r_radians, x *PI_L / 180) R(r_degrees, x * 180 / PI_L)
        R(r_sin, sinl(x)) R(r_cos, cosl(x)) R(r_tan, tanl(x)) R(r_asin, asinl(x)) R(r_acos, acosl(x))
            R(r_atan, atanl(x)) R(r_sinh, sinhl(x)) R(r_cosh, coshl(x)) R(r_tanh, tanhl(x)) R(r_asinh, asinhl(x))
                R(r_acosh, acoshl(x)) R(r_atanh, atanhl(x)) R(r_atan2, atan2l(x, y)) R(r_pow, powl(x, y))
                    R(r_exp, expl(x)) R(r_log, logl(x)) R(r_exp2, exp2l(x)) R(r_log2, log2l(x)) R(r_sqrt, sqrtl(x))
                        R(r_rsqrt, 1 / sqrtl(x)) R(r_gl_fmin, y < x ? y : x) R(r_gl_fmax, x < y ? y : x)
                            R(r_gl_fclamp, r_gl_fmin(r_gl_fmax(x, y, 0), z, 0)) R(r_gl_mix, x *(1 - z) + y * z)
                                R(r_step, y < x ? 0 : 1) R(r_fma, fmal(x, y, z)) R(r_fmin, fminl(x, y)) R(r_fmax,
                                                                                                          fmaxl(x, y))
                                    R(r_clamp, fminl(fmaxl(x, y), z)) static long double r_smoothstep(long double e0,
                                                                                                      long double e1,
                                                                                                      long double x)
{
    long double t = fminl(fmaxl((x - e0) / (e1 - e0), 0), 1);
    return t * t * (3 - 2 * t);
}
R(r_acospi, acosl(x) / PI_L)
R(r_asinpi, asinl(x) / PI_L) R(r_atanpi, atanl(x) / PI_L) R(r_atan2pi, atan2l(x, y) / PI_L) R(r_cbrt, cbrtl(x))
    R(r_copysign, copysignl(x, y)) R(r_cospi, cospi_l(x)) R(r_sinpi, sinpi_l(x)) R(r_tanpi, sinpi_l(x) / cospi_l(x))
        R(r_erfc, erfcl(x)) R(r_erf, erfl(x)) R(r_exp10, exp10l(x)) R(r_expm1, expm1l(x)) R(r_fdim, fdiml(x, y))
            R(r_fmod, fmodl(x, y)) R(r_hypot, hypotl(x, y)) R(r_lgamma, lgammal(x)) R(r_log10, log10l(x))
                R(r_log1p, log1pl(x)) R(r_logb, logbl(x)) R(r_mad, x *y + z)
                    R(r_maxmag, fabsl(x) > fabsl(y)   ? x
                                : fabsl(y) > fabsl(x) ? y
                                                      : fmaxl(x, y)) R(r_minmag, fabsl(x) < fabsl(y)   ? x
                                                                                 : fabsl(y) < fabsl(x) ? y
                                                                                                       : fminl(x, y))
                        R(r_remainder, remainderl(x, y)) R(r_tgamma, tgammal(x)) R(r_div, x / y) R(r_recip, 1 / x)
                            R(r_cl_mix, x + (y - x) * z) R(r_sign, isnan(x) ? 0
                                                                   : x > 0  ? 1
                                                                   : x < 0  ? -1
                                                                            : x)

                                typedef struct {
    int set;
    uint32_t inst;
    unsigned nargs;
    ref_fn ref;
    double ulps, half_ulps; /* tolerance for float/double and for half */
    double lo[3], hi[3];    /* input ranges per operand */
    bool scaled;            /* measure in ulps of max(|ref|, |inputs|) (formulas with cancellation) */
} fcase;

#define U1(lo_, hi_)                                                                                                   \
    { lo_, 0, 0 },                                                                                                     \
    {                                                                                                                  \
        hi_, 0, 0                                                                                                      \
    }
#define U2(l0, h0, l1, h1)                                                                                             \
    { l0, l1, 0 },                                                                                                     \
    {                                                                                                                  \
        h0, h1, 0                                                                                                      \
    }
#define U3(l0, h0, l1, h1, l2, h2)                                                                                     \
    { l0, l1, l2 },                                                                                                    \
    {                                                                                                                  \
        h0, h1, h2                                                                                                     \
    }
#define SYM(r) U3(-(r), (r), -(r), (r), -(r), (r))

static const fcase fcases[] = {
    { GL, 1, 1, r_round, 0, 0, SYM(100), false },
    { GL, 2, 1, r_rint, 0, 0, SYM(100), false },
    { GL, 3, 1, r_trunc, 0, 0, SYM(100), false },
    { GL, 4, 1, r_fabs, 0, 0, SYM(100), false },
    { GL, 6, 1, r_fsign, 0, 0, SYM(100), false },
    { GL, 8, 1, r_floor, 0, 0, SYM(100), false },
    { GL, 9, 1, r_ceil, 0, 0, SYM(100), false },
    { GL, 10, 1, r_fract, 0, 0, SYM(100), false },
    { GL, 11, 1, r_radians, 2, 2, SYM(360), false },
    { GL, 12, 1, r_degrees, 2, 2, SYM(7), false },
    { GL, 13, 1, r_sin, 4, 2, SYM(10), false },
    { GL, 14, 1, r_cos, 4, 2, SYM(10), false },
    { GL, 15, 1, r_tan, 4, 2, SYM(1.5), false },
    { GL, 16, 1, r_asin, 4, 2, SYM(1), false },
    { GL, 17, 1, r_acos, 4, 2, SYM(1), false },
    { GL, 18, 1, r_atan, 4, 2, SYM(10), false },
    { GL, 19, 1, r_sinh, 4, 2, SYM(5), false },
    { GL, 20, 1, r_cosh, 4, 2, SYM(5), false },
    { GL, 21, 1, r_tanh, 4, 2, SYM(5), false },
    { GL, 22, 1, r_asinh, 4, 2, SYM(10), false },
    { GL, 23, 1, r_acosh, 4, 2, U1(1, 10), false },
    { GL, 24, 1, r_atanh, 4, 2, SYM(0.99), false },
    { GL, 25, 2, r_atan2, 4, 2, SYM(10), false },
    { GL, 26, 2, r_pow, 4, 2, U2(0.1, 10, -3, 3), false },
    { GL, 27, 1, r_exp, 4, 2, SYM(10), false },
    { GL, 28, 1, r_log, 4, 2, U1(0.01, 100), false },
    { GL, 29, 1, r_exp2, 4, 2, SYM(10), false },
    { GL, 30, 1, r_log2, 4, 2, U1(0.01, 100), false },
    { GL, 31, 1, r_sqrt, 0.5, 0.5, U1(0, 100), false },
    { GL, 32, 1, r_rsqrt, 2, 1, U1(0.01, 100), false },
    { GL, 37, 2, r_gl_fmin, 0, 0, SYM(10), false },
    { GL, 40, 2, r_gl_fmax, 0, 0, SYM(10), false },
    { GL, 43, 3, r_gl_fclamp, 0, 0, U3(-10, 10, -5, 0, 0, 5), false },
    { GL, 46, 3, r_gl_mix, 4, 4, U3(-10, 10, -10, 10, 0, 1), true },
    { GL, 48, 2, r_step, 0, 0, SYM(5), false },
    { GL, 49, 3, r_smoothstep, 8, 8, U3(-5, -1, 1, 5, -6, 6), true },
    { GL, 50, 3, r_fma, 1, 1, SYM(10), true },
    { GL, 79, 2, r_fmin, 0, 0, SYM(10), false },
    { GL, 80, 2, r_fmax, 0, 0, SYM(10), false },
    { GL, 81, 3, r_clamp, 0, 0, U3(-10, 10, -5, 0, 0, 5), false },

    { CL, 0, 1, r_acos, 4, 2, SYM(1), false },
    { CL, 1, 1, r_acosh, 4, 2, U1(1, 10), false },
    { CL, 2, 1, r_acospi, 4, 2, SYM(1), false },
    { CL, 3, 1, r_asin, 4, 2, SYM(1), false },
    { CL, 4, 1, r_asinh, 4, 2, SYM(10), false },
    { CL, 5, 1, r_asinpi, 4, 2, SYM(1), false },
    { CL, 6, 1, r_atan, 4, 2, SYM(10), false },
    { CL, 7, 2, r_atan2, 4, 2, SYM(10), false },
    { CL, 8, 1, r_atanh, 4, 2, SYM(0.99), false },
    { CL, 9, 1, r_atanpi, 4, 2, SYM(10), false },
    { CL, 10, 2, r_atan2pi, 4, 2, SYM(10), false },
    { CL, 11, 1, r_cbrt, 4, 2, SYM(100), false },
    { CL, 12, 1, r_ceil, 0, 0, SYM(100), false },
    { CL, 13, 2, r_copysign, 0, 0, SYM(100), false },
    { CL, 14, 1, r_cos, 4, 2, SYM(10), false },
    { CL, 15, 1, r_cosh, 4, 2, SYM(5), false },
    { CL, 16, 1, r_cospi, 4, 2, SYM(100), false },
    { CL, 17, 1, r_erfc, 4, 2, U1(-3, 3), false },
    { CL, 18, 1, r_erf, 4, 2, SYM(3), false },
    { CL, 19, 1, r_exp, 4, 2, SYM(10), false },
    { CL, 20, 1, r_exp2, 4, 2, SYM(10), false },
    { CL, 21, 1, r_exp10, 4, 2, SYM(4), false },
    { CL, 22, 1, r_expm1, 4, 2, SYM(2), false },
    { CL, 23, 1, r_fabs, 0, 0, SYM(100), false },
    { CL, 24, 2, r_fdim, 0, 0, SYM(100), false },
    { CL, 25, 1, r_floor, 0, 0, SYM(100), false },
    { CL, 26, 3, r_fma, 1, 1, SYM(10), true },
    { CL, 27, 2, r_fmax, 0, 0, SYM(10), false },
    { CL, 28, 2, r_fmin, 0, 0, SYM(10), false },
    { CL, 29, 2, r_fmod, 0, 0, U2(-100, 100, 0.5, 10), false },
    { CL, 32, 2, r_hypot, 4, 2, SYM(100), false },
    { CL, 35, 1, r_lgamma, 4, 2, U1(-4.9, 10), true },
    { CL, 37, 1, r_log, 4, 2, U1(0.01, 100), false },
    { CL, 38, 1, r_log2, 4, 2, U1(0.01, 100), false },
    { CL, 39, 1, r_log10, 4, 2, U1(0.01, 100), false },
    { CL, 40, 1, r_log1p, 4, 2, U1(-0.9, 10), false },
    { CL, 41, 1, r_logb, 0, 0, SYM(1000), false },
    { CL, 42, 3, r_mad, 2, 2, SYM(10), true },
    { CL, 43, 2, r_maxmag, 0, 0, SYM(10), false },
    { CL, 44, 2, r_minmag, 0, 0, SYM(10), false },
    { CL, 48, 2, r_pow, 4, 2, U2(0.1, 10, -3, 3), false },
    { CL, 50, 2, r_pow, 4, 2, U2(0, 10, -3, 3), false }, /* powr */
    { CL, 51, 2, r_remainder, 0, 0, U2(-100, 100, 0.5, 10), false },
    { CL, 53, 1, r_rint, 0, 0, SYM(100), false },
    { CL, 55, 1, r_round, 0, 0, SYM(100), false },
    { CL, 56, 1, r_rsqrt, 2, 1, U1(0.01, 100), false },
    { CL, 57, 1, r_sin, 4, 2, SYM(10), false },
    { CL, 59, 1, r_sinh, 4, 2, SYM(5), false },
    { CL, 60, 1, r_sinpi, 4, 2, SYM(100), false },
    { CL, 61, 1, r_sqrt, 0.5, 0.5, U1(0, 100), false },
    { CL, 62, 1, r_tan, 4, 2, SYM(1.5), false },
    { CL, 63, 1, r_tanh, 4, 2, SYM(5), false },
    { CL, 64, 1, r_tanpi, 6, 2, SYM(10), false },
    { CL, 65, 1, r_tgamma, 8, 2, U1(0.1, 6), false },
    { CL, 66, 1, r_trunc, 0, 0, SYM(100), false },
    { CL, 67, 1, r_cos, 4, 2, SYM(10), false },
    { CL, 68, 2, r_div, 0.5, 0.5, U2(-10, 10, 0.5, 10), false },
    { CL, 69, 1, r_exp, 4, 2, SYM(10), false },
    { CL, 70, 1, r_exp2, 4, 2, SYM(10), false },
    { CL, 71, 1, r_exp10, 4, 2, SYM(4), false },
    { CL, 72, 1, r_log, 4, 2, U1(0.01, 100), false },
    { CL, 73, 1, r_log2, 4, 2, U1(0.01, 100), false },
    { CL, 74, 1, r_log10, 4, 2, U1(0.01, 100), false },
    { CL, 75, 2, r_pow, 4, 2, U2(0.1, 10, -3, 3), false },
    { CL, 76, 1, r_recip, 0.5, 0.5, U1(0.1, 100), false },
    { CL, 77, 1, r_rsqrt, 2, 1, U1(0.01, 100), false },
    { CL, 78, 1, r_sin, 4, 2, SYM(10), false },
    { CL, 79, 1, r_sqrt, 0.5, 0.5, U1(0, 100), false },
    { CL, 80, 1, r_tan, 4, 2, SYM(1.5), false },
    { CL, 81, 1, r_cos, 4, 2, SYM(10), false },
    { CL, 82, 2, r_div, 0.5, 0.5, U2(-10, 10, 0.5, 10), false },
    { CL, 83, 1, r_exp, 4, 2, SYM(10), false },
    { CL, 84, 1, r_exp2, 4, 2, SYM(10), false },
    { CL, 85, 1, r_exp10, 4, 2, SYM(4), false },
    { CL, 86, 1, r_log, 4, 2, U1(0.01, 100), false },
    { CL, 87, 1, r_log2, 4, 2, U1(0.01, 100), false },
    { CL, 88, 1, r_log10, 4, 2, U1(0.01, 100), false },
    { CL, 89, 2, r_pow, 4, 2, U2(0.1, 10, -3, 3), false },
    { CL, 90, 1, r_recip, 0.5, 0.5, U1(0.1, 100), false },
    { CL, 91, 1, r_rsqrt, 2, 1, U1(0.01, 100), false },
    { CL, 92, 1, r_sin, 4, 2, SYM(10), false },
    { CL, 93, 1, r_sqrt, 0.5, 0.5, U1(0, 100), false },
    { CL, 94, 1, r_tan, 4, 2, SYM(1.5), false },
    { CL, 95, 3, r_clamp, 0, 0, U3(-10, 10, -5, 0, 0, 5), false },
    { CL, 96, 1, r_degrees, 2, 2, SYM(7), false },
    { CL, 97, 2, r_fmax, 0, 0, SYM(10), false },
    { CL, 98, 2, r_fmin, 0, 0, SYM(10), false },
    { CL, 99, 3, r_cl_mix, 4, 4, U3(-10, 10, -10, 10, 0, 1), true },
    { CL, 100, 1, r_radians, 2, 2, SYM(360), false },
    { CL, 101, 2, r_step, 0, 0, SYM(5), false },
    { CL, 102, 3, r_smoothstep, 8, 8, U3(-5, -1, 1, 5, -6, 6), true },
    { CL, 103, 1, r_sign, 0, 0, SYM(10), false },
};

typedef struct {
    int fn, bits;
    unsigned lanes;
    int kase;
} fjob;

/* Runs the cases of one set for the given (bits, lanes) shapes. */
static void run_fcases(int set)
{
    static const struct {
        int bits;
        unsigned lanes;
    } shapes[] = {
        { 32, 0 }, { 32, 3 }, { 32, 16 }, { 64, 0 }, { 64, 4 }, { 16, 0 },  { 16, 8 }, { 32, 2 }, { 64, 8 },
        { 16, 3 }, { 32, 4 }, { 32, 8 },  { 64, 2 }, { 64, 3 }, { 64, 16 }, { 16, 2 }, { 16, 4 }, { 16, 16 },
    };
    const unsigned nshapes = sizeof shapes / sizeof shapes[0];
    jt j;
    jt_begin(&j);
    fjob *jobs = calloc(sizeof fcases / sizeof fcases[0] * nshapes, sizeof *jobs);
    unsigned njobs = 0;
    for (unsigned k = 0; k < sizeof fcases / sizeof fcases[0]; k++) {
        const fcase *fc = &fcases[k];
        if (fc->set != set)
            continue;
        /* every case: scalar + vector for each type, plus one more shape in rotation */
        for (unsigned s = 0; s < nshapes; s++) {
            if (getenv("EXTINST_SHAPE") && atoi(getenv("EXTINST_SHAPE")) != (int)s)
                continue;
            if (getenv("EXTINST_INST") && atoi(getenv("EXTINST_INST")) != (int)fc->inst)
                continue;
            argspec a[3];
            LLVMTypeRef t = ty_fp(&j, shapes[s].bits, shapes[s].lanes);
            for (unsigned i = 0; i < fc->nargs; i++)
                a[i] = (argspec){ A_VAL, t, 0 };
            int fn = jt_add(&j, set, fc->inst, a, fc->nargs, t, NULL);
            CHECK(fn >= 0, "%s %s: lowering failed: %s", set_name(set), inst_name(set, fc->inst), j.diag.msg);
            if (fn >= 0)
                jobs[njobs++] = (fjob){ fn, shapes[s].bits, shapes[s].lanes, (int)k };
        }
    }
    if (!jt_compile(&j))
        goto out;
    uint64_t seed = 0x1234567ull + (uint64_t)set;
    for (unsigned q = 0; q < njobs; q++) {
        const fjob *jb = &jobs[q];
        const fcase *fc = &fcases[jb->kase];
        kern_fn f = jt_fn(&j, jb->fn);
        if (!f)
            continue;
        unsigned lanes = jb->lanes ? jb->lanes : 1, bad = 0;
        for (int iter = 0; iter < 12 && bad < 3; iter++) {
            _Alignas(16) unsigned char in[3][128], out[128];
            long double x[3][16];
            for (unsigned i = 0; i < fc->nargs; i++)
                for (unsigned l = 0; l < lanes; l++) {
                    put_fp(in[i], l, jb->bits, rand_in(&seed, fc->lo[i], fc->hi[i]));
                    x[i][l] = get_fp(in[i], l, jb->bits); /* the value as the type holds it */
                }
            memset(out, 0xa5, sizeof out);
            f(in[0], in[1], in[2], NULL, out, NULL);
            for (unsigned l = 0; l < lanes; l++) {
                long double a0 = x[0][l], a1 = fc->nargs > 1 ? x[1][l] : 0, a2 = fc->nargs > 2 ? x[2][l] : 0;
                long double ref = fc->ref(a0, a1, a2), got = get_fp(out, l, jb->bits);
                long double scale = 0;
                if (fc->scaled)
                    scale = fmaxl(fmaxl(fabsl(ref), 1), fmaxl(fabsl(a0), fmaxl(fabsl(a1), fabsl(a2))));
                double tol = jb->bits == 16 ? fc->half_ulps : fc->ulps;
                if (!close_to(got, ref, jb->bits, tol, scale)) {
                    bad++;
                    CHECK(0, "%s %s (%s x%u, lane %u): f(%.17Lg, %.17Lg, %.17Lg) = %.17Lg, expected %.17Lg (%g ulp)",
                          set_name(set), inst_name(set, fc->inst),
                          jb->bits == 16   ? "half"
                          : jb->bits == 32 ? "float"
                                           : "double",
                          jb->lanes, l, a0, a1, a2, got, ref, tol);
                }
            }
        }
    }
out:
    free(jobs);
    jt_end(&j);
}

TEST_TIER_FREE(extinst_glsl_float_elementwise)
{
    run_fcases(GL);
}
TEST_TIER_FREE(extinst_opencl_float_elementwise)
{
    run_fcases(CL);
}

/* ---------------------------------------------------------------------------------------------
 * The instruction tables against the grammar files; unknown numbers and bad operands
 * ------------------------------------------------------------------------------------------- */

static void check_grammar(const char *path, int set)
{
    size_t len;
    char *json = test_read_file(path, &len);
    REQUIRE(json, "cannot read %s", path);
    unsigned found = 0, in_table = 0;
    char *p = json;
    while ((p = strstr(p, "\"opname\""))) {
        char name[64] = "";
        unsigned opcode = 0;
        char *q = strchr(p + 8, '"');
        if (!q || sscanf(q + 1, "%63[^\"]", name) != 1)
            break;
        char *oc = strstr(q, "\"opcode\"");
        if (!oc || sscanf(strchr(oc + 8, ':') + 1, "%u", &opcode) != 1)
            break;
        char *next = strstr(oc, "\"opname\"");
        unsigned nops = 0, star = 0;
        for (char *k = oc; (k = strstr(k, "\"kind\"")) && (!next || k < next); k++)
            nops++;
        for (char *k = oc; (k = strstr(k, "\"quantifier\"")) && (!next || k < next); k++)
            star++;
        unsigned want = 0;
        bool variadic = false;
        const char *mine = set == GL ? xi_glsl450_info(opcode, &want) : xi_opencl_info(opcode, &want, &variadic);
        CHECK(mine && !strcmp(mine, name), "%s opcode %u: grammar says %s, table says %s", set_name(set), opcode, name,
              mine ? mine : "(nothing)");
        CHECK(want == nops - star, "%s %s: grammar has %u operands (%u optional), table %u", set_name(set), name, nops,
              star, want);
        CHECK(variadic == (star > 0), "%s %s: variadic mismatch", set_name(set), name);
        found++;
        p = oc;
    }
    for (uint32_t i = 0; i < 1000; i++)
        if (set == GL ? xi_glsl450_info(i, NULL) != NULL : xi_opencl_info(i, NULL, NULL) != NULL)
            in_table++;
    CHECK(found > 50 && found == in_table, "%s: %u instructions in the grammar, %u in the table", set_name(set), found,
          in_table);
    free(json);
}

TEST_TIER_FREE(extinst_tables_match_grammar)
{
    check_grammar("/usr/include/spirv/unified1/extinst.glsl.std.450.grammar.json", GL);
    check_grammar("/usr/include/spirv/unified1/extinst.opencl.std.100.grammar.json", CL);
}

/* Every instruction of both sets lowers for some reasonable operands (no "not lowered")
 * is covered by the other tests; here: what must fail, fails with a clear message. */
TEST_TIER_FREE(extinst_errors)
{
    jt j;
    jt_begin(&j);
    LLVMTypeRef f32 = ty_fp(&j, 32, 0), v4 = ty_fp(&j, 32, 4), i32 = ty_int(&j, 32, 0);
    argspec one_f[3] = { { A_VAL, f32, 0 }, { A_VAL, f32, 0 }, { A_VAL, f32, 0 } };
    struct {
        int set;
        uint32_t inst;
        unsigned nargs;
        const argspec *a;
        const char *must;
    } bad[] = {
        { GL, 0, 1, one_f, "unknown instruction number" },
        { GL, 82, 1, one_f, "GLSL.std.450 instruction 82: unknown" },
        { GL, 100000, 1, one_f, "unknown" },
        { CL, 111, 1, one_f, "OpenCL.std instruction 111: unknown" },
        { CL, 140, 1, one_f, "unknown" },
        { CL, 205, 1, one_f, "unknown" },
        { GL, 13, 2, one_f, "Sin (instruction 13): expected 1 operand, got 2" },
        { CL, 7, 1, one_f, "atan2 (instruction 7): expected 2 operands, got 1" },
        { GL, 76, 1, one_f, "InterpolationFunction" },
        { GL, 77, 2, one_f, "InterpolationFunction" },
        { GL, 78, 2, one_f, "InterpolationFunction" },
    };
    for (unsigned k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        j.diag.msg[0] = 0;
        int fn = jt_add(&j, bad[k].set, bad[k].inst, bad[k].a, bad[k].nargs, f32, NULL);
        CHECK(fn < 0, "case %u: lowering %s %u should fail", k, set_name(bad[k].set), bad[k].inst);
        CHECK(strstr(j.diag.msg, bad[k].must), "case %u: message \"%s\" lacks \"%s\"", k, j.diag.msg, bad[k].must);
    }
    /* wrong operand types */
    argspec int_arg[1] = { { A_VAL, i32, 0 } };
    CHECK(jt_add(&j, GL, 13, int_arg, 1, i32, NULL) < 0 && strstr(j.diag.msg, "must be a floating-point"),
          "Sin of an int: %s", j.diag.msg);
    CHECK(jt_add(&j, CL, 57, int_arg, 1, i32, NULL) < 0 && strstr(j.diag.msg, "sin (instruction 57): operand 1"),
          "sin of an int: %s", j.diag.msg);
    argspec mixed[2] = { { A_VAL, f32, 0 }, { A_VAL, ty_fp(&j, 64, 0), 0 } };
    CHECK(jt_add(&j, CL, 27, mixed, 2, f32, NULL) < 0 && strstr(j.diag.msg, "same floating-point type"),
          "fmax(float, double): %s", j.diag.msg);
    argspec fp_to_int[2] = { { A_VAL, v4, 0 }, { A_VAL, v4, 0 } };
    CHECK(jt_add(&j, CL, 156, fp_to_int, 2, v4, NULL) < 0 && strstr(j.diag.msg, "integer"), "s_max(float4): %s",
          j.diag.msg);
    argspec not_matrix[1] = { { A_VAL, v4, 0 } };
    CHECK(jt_add(&j, GL, 33, not_matrix, 1, f32, NULL) < 0 && strstr(j.diag.msg, "matrix"), "Determinant(vec4): %s",
          j.diag.msg);
    CHECK(jt_add(&j, GL, 68, fp_to_int, 2, v4, NULL) < 0 && strstr(j.diag.msg, "3-component"), "Cross(vec4): %s",
          j.diag.msg);
    argspec lit_needed[3] = { { A_VAL, f32, 0 }, { A_VAL, i32, 0 }, { A_PTR, ty_fp(&j, 16, 0), 0 } };
    argspec vs_r[4] = { { A_VAL, f32, 0 }, { A_VAL, i32, 0 }, { A_PTR, ty_fp(&j, 16, 0), 0 }, { A_LIT, NULL, 7 } };
    CHECK(jt_add(&j, CL, 176, lit_needed, 3, NULL, NULL) < 0, "vstore_half_r without a mode should fail");
    CHECK(jt_add(&j, CL, 176, vs_r, 4, NULL, NULL) < 0 && strstr(j.diag.msg, "rounding mode 7"),
          "vstore_half_r mode 7: %s", j.diag.msg);
    /* printf: a format that does not fit its arguments */
    argspec pf[3] = { { A_PTR, ty_int(&j, 8, 0), 0 }, { A_VAL, f32, 0 }, { A_VAL, v4, 0 } };
    LLVMTypeRef pr = i32;
    CHECK(jt_add(&j, CL, 184, pf, 2, pr, NULL) < 0 && strstr(j.diag.msg, "constant string"), "printf no fmt: %s",
          j.diag.msg);
    CHECK(jt_add(&j, CL, 184, pf, 2, pr, "%d\n") < 0 && strstr(j.diag.msg, "takes a scalar integer"),
          "printf %%d of float: %s", j.diag.msg);
    CHECK(jt_add(&j, CL, 184, pf, 3, pr, "%f %v2f\n") < 0 && strstr(j.diag.msg, "2-component"),
          "printf %%v2f of float4: %s", j.diag.msg);
    CHECK(jt_add(&j, CL, 184, pf, 2, pr, "%f %f\n") < 0 && strstr(j.diag.msg, "no argument"),
          "printf missing argument: %s", j.diag.msg);
    CHECK(jt_add(&j, CL, 184, pf, 2, pr, "%f %q\n") < 0 && strstr(j.diag.msg, "unknown conversion"),
          "printf bad conversion: %s", j.diag.msg);
    CHECK(jt_add(&j, CL, 184, pf, 3, pr, "%f %v5f\n") < 0 && strstr(j.diag.msg, "v2, v3"), "printf %%v5f: %s",
          j.diag.msg);
    jt_end(&j);
}

/* ---------------------------------------------------------------------------------------------
 * Special values (signed zeros, NaN, infinities, halfway cases), scalar and 4-lane
 * ------------------------------------------------------------------------------------------- */

typedef struct {
    int set;
    uint32_t inst;
    unsigned nargs;
    long double in[3];
    long double want;
} special;

TEST_TIER_FREE(extinst_special_values)
{
    const long double inf = INFINITY, nan = NAN;
    const special sp[] = {
        { GL, 6, 1, { -0.0L }, -0.0L },   { GL, 6, 1, { 0.0L }, 0.0L },      { GL, 6, 1, { -inf }, -1 },
        { GL, 79, 2, { nan, 2 }, 2 },     { GL, 79, 2, { 2, nan }, 2 },      { GL, 80, 2, { nan, 3 }, 3 },
        { GL, 81, 3, { nan, 1, 2 }, 1 },  { GL, 1, 1, { 2.5L }, 3 },         { GL, 1, 1, { -2.5L }, -3 },
        { GL, 2, 1, { 2.5L }, 2 },        { GL, 2, 1, { -3.5L }, -4 },       { GL, 10, 1, { -0.25L }, 0.75L },
        { GL, 48, 2, { 1, 1 }, 1 },       { GL, 48, 2, { 1, 0.5L }, 0 },     { CL, 103, 1, { nan }, 0 },
        { CL, 103, 1, { -0.0L }, -0.0L }, { CL, 103, 1, { -inf }, -1 },      { CL, 27, 2, { nan, 1 }, 1 },
        { CL, 28, 2, { 1, nan }, 1 },     { CL, 27, 2, { nan, nan }, nan },  { CL, 60, 1, { 1 }, 0.0L },
        { CL, 60, 1, { -1 }, -0.0L },     { CL, 60, 1, { 0.5L }, 1 },        { CL, 60, 1, { -0.0L }, -0.0L },
        { CL, 60, 1, { inf }, nan },      { CL, 16, 1, { 0.5L }, 0.0L },     { CL, 16, 1, { 1 }, -1 },
        { CL, 16, 1, { -1.5L }, 0.0L },   { CL, 64, 1, { 0.5L }, inf },      { CL, 64, 1, { 1.5L }, -inf },
        { CL, 64, 1, { -0.0L }, -0.0L },  { CL, 64, 1, { 1 }, -0.0L },       { CL, 64, 1, { 2 }, 0.0L },
        { CL, 50, 2, { -1, 2 }, nan },    { CL, 50, 2, { 0, 0 }, nan },      { CL, 50, 2, { 1, inf }, nan },
        { CL, 50, 2, { 0, -1 }, inf },    { CL, 50, 2, { -0.0L, -3 }, inf }, { CL, 50, 2, { inf, 0 }, nan },
        { CL, 50, 2, { 2, 10 }, 1024 },   { CL, 50, 2, { 1, nan }, nan },    { CL, 41, 1, { 0 }, -inf },
        { CL, 41, 1, { -inf }, inf },     { CL, 41, 1, { nan }, nan },       { CL, 41, 1, { 0.1L }, -4 },
        { CL, 24, 2, { 1, nan }, nan },   { CL, 24, 2, { 1, 2 }, 0 },        { CL, 24, 2, { 5, 2 }, 3 },
        { CL, 43, 2, { -3, 2 }, -3 },     { CL, 44, 2, { -3, 2 }, 2 },       { CL, 43, 2, { -2, 2 }, 2 },
        { CL, 44, 2, { -2, 2 }, -2 },     { CL, 13, 2, { 1, -0.0L }, -1 },   { CL, 29, 2, { -7, 3 }, -1 },
        { CL, 51, 2, { 7, 2 }, -1 },      { CL, 51, 2, { 5, 2 }, 1 },        { CL, 56, 1, { 4 }, 0.5L },
        { CL, 56, 1, { 0 }, inf },        { CL, 101, 2, { 1, 1 }, 1 },       { CL, 55, 1, { -0.5L }, -1 },
        { CL, 53, 1, { -0.5L }, -0.0L },  { CL, 2, 1, { -1 }, 1 },           { CL, 5, 1, { 1 }, 0.5L },
        { CL, 10, 2, { 1, -1 }, 0.75L },  { CL, 35, 1, { 1 }, 0 },           { CL, 65, 1, { 5 }, 24 },
        { CL, 47, 2, { 1, 1 }, 1 },
    };
    static const int bitss[3] = { 16, 32, 64 };
    jt j;
    jt_begin(&j);
    int fns[sizeof sp / sizeof sp[0]][3][2];
    for (unsigned k = 0; k < sizeof sp / sizeof sp[0]; k++)
        for (int b = 0; b < 3; b++)
            for (int v = 0; v < 2; v++) {
                LLVMTypeRef t = ty_fp(&j, bitss[b], v ? 4 : 0);
                argspec a[3] = { { A_VAL, t, 0 }, { A_VAL, t, 0 }, { A_VAL, t, 0 } };
                fns[k][b][v] = jt_add(&j, sp[k].set, sp[k].inst, a, sp[k].nargs, t, NULL);
                CHECK(fns[k][b][v] >= 0, "lowering %s: %s", inst_name(sp[k].set, sp[k].inst), j.diag.msg);
            }
    if (!jt_compile(&j))
        goto out;
    for (unsigned k = 0; k < sizeof sp / sizeof sp[0]; k++)
        for (int b = 0; b < 3; b++)
            for (int v = 0; v < 2; v++) {
                kern_fn f = fns[k][b][v] >= 0 ? jt_fn(&j, fns[k][b][v]) : NULL;
                if (!f)
                    continue;
                _Alignas(16) unsigned char in[3][64], out[64];
                for (unsigned i = 0; i < 3; i++)
                    for (unsigned l = 0; l < 4; l++)
                        put_fp(in[i], l, bitss[b], sp[k].in[i]);
                f(in[0], in[1], in[2], NULL, out, NULL);
                for (unsigned l = 0; l < (v ? 4u : 1u); l++) {
                    long double got = get_fp(out, l, bitss[b]);
                    bool ok = isnan(sp[k].want) ? isnan(got) : got == sp[k].want && signbit(got) == signbit(sp[k].want);
                    CHECK(ok, "%s %s(%Lg, %Lg, %Lg) bits %d lanes %d = %Lg, expected %Lg", set_name(sp[k].set),
                          inst_name(sp[k].set, sp[k].inst), sp[k].in[0], sp[k].in[1], sp[k].in[2], bitss[b], v ? 4 : 0,
                          got, sp[k].want);
                }
            }
out:
    jt_end(&j);
}

/* nextafter per type, against the C library (half: stepping its bit pattern by hand) */
static long double next_ref(long double x, long double y, int bits)
{
    if (bits == 32)
        return nextafterf((float)x, (float)y);
    if (bits == 64)
        return nextafter((double)x, (double)y);
    if (isnan(x) || isnan(y))
        return NAN;
    if (x == y)
        return y;
    if (x == 0)
        return copysignl(0x1p-24L, y);
    uint16_t h = d2h((double)x, RTE);
    bool away = (x < y) == (x > 0);
    return h2d((uint16_t)(away ? h + 1 : h - 1));
}

TEST_TIER_FREE(extinst_nextafter)
{
    static const int bitss[3] = { 16, 32, 64 };
    jt j;
    jt_begin(&j);
    int fns[3];
    for (int b = 0; b < 3; b++) {
        LLVMTypeRef t = ty_fp(&j, bitss[b], 8);
        argspec a[2] = { { A_VAL, t, 0 }, { A_VAL, t, 0 } };
        fns[b] = jt_add(&j, CL, 47, a, 2, t, NULL);
    }
    if (!jt_compile(&j))
        goto out;
    uint64_t seed = 99;
    for (int b = 0; b < 3; b++) {
        kern_fn f = jt_fn(&j, fns[b]);
        for (int it = 0; f && it < 20; it++) {
            _Alignas(16) unsigned char in[2][64], out[64];
            const long double fixed[][2] = { { 0, 1 },        { -0.0L, -1 }, { 1, 1 },     { NAN, 1 },
                                             { INFINITY, 0 }, { -1, 2 },     { 1, -0.0L }, { 0, -0.0L } };
            for (unsigned l = 0; l < 8; l++) {
                long double x = rand_in(&seed, -10, 10), y = rand_in(&seed, -10, 10);
                if (it == 0) {
                    x = fixed[l][0];
                    y = fixed[l][1];
                }
                put_fp(in[0], l, bitss[b], x);
                put_fp(in[1], l, bitss[b], y);
            }
            f(in[0], in[1], NULL, NULL, out, NULL);
            for (unsigned l = 0; l < 8; l++) {
                long double x = get_fp(in[0], l, bitss[b]), y = get_fp(in[1], l, bitss[b]);
                long double got = get_fp(out, l, bitss[b]), want = next_ref(x, y, bitss[b]);
                CHECK(isnan(want) ? isnan(got) : got == want && signbit(got) == signbit(want),
                      "nextafter(%La, %La) bits %d = %La, expected %La", x, y, bitss[b], got, want);
            }
        }
    }
out:
    jt_end(&j);
}

/* ---------------------------------------------------------------------------------------------
 * Integer functions, 8 to 64 bits, against C on 64/128-bit integers
 * ------------------------------------------------------------------------------------------- */

typedef uint64_t (*iref_fn)(uint64_t x, uint64_t y, uint64_t z, int n);
#define IR(name, expr)                                                                                                 \
    static uint64_t name(uint64_t x, uint64_t y, uint64_t z, int n)                                                    \
    {                                                                                                                  \
        (void)x;                                                                                                       \
        (void)y;                                                                                                       \
        (void)z;                                                                                                       \
        (void)n;                                                                                                       \
        return (uint64_t)(expr)&mask_of(n);                                                                            \
    }
#define S(v) sx((v), n)
#define U(v) ((v)&mask_of(n))
#define SMAX ((int64_t)(mask_of(n) >> 1))
#define SMIN (-SMAX - 1)
typedef __int128 i128;
typedef unsigned __int128 u128;
static int64_t clamp_s(i128 v, int n)
{
    return v > SMAX ? SMAX : v < SMIN ? SMIN : (int64_t)v;
}
static uint64_t clamp_u(u128 v, int n)
{
    return v > mask_of(n) ? mask_of(n) : (uint64_t)v;
}
static int clz_ref(uint64_t x, int n)
{
    int c = 0;
    for (int i = n - 1; i >= 0 && !((x >> i) & 1); i--)
        c++;
    return c;
}
static int ctz_ref(uint64_t x, int n)
{
    int c = 0;
    for (int i = 0; i < n && !((x >> i) & 1); i++)
        c++;
    return c;
}
static int64_t s24(uint64_t v)
{
    return sx(v & 0xffffff, 24);
}

IR(i_sabs, S(x) < 0 ? -(u128)(i128)S(x) : (u128)S(x))
IR(i_ssign, S(x) > 0 ? 1 : S(x) < 0 ? -1 : 0)
IR(i_umin, U(x) < U(y) ? U(x) : U(y))
IR(i_smin, S(x) < S(y) ? S(x) : S(y)) IR(i_umax, U(x) > U(y) ? U(x) : U(y)) IR(i_smax, S(x) > S(y) ? S(x) : S(y))
    IR(i_uclamp, i_umin(i_umax(x, y, 0, n), z, 0, n)) IR(i_sclamp, i_smin(i_smax(x, y, 0, n), z, 0, n))
        IR(i_imix, x *(1 - z) + y * z) IR(i_findilsb, U(x) ? ctz_ref(x, n) : -1)
            IR(i_findumsb, n - 1 - clz_ref(U(x), n)) IR(i_findsmsb, n - 1 - clz_ref(U(S(x) < 0 ? ~x : x), n))
                IR(i_sabsdiff, S(x) > S(y) ? (i128)S(x) - S(y) : (i128)S(y) - S(x)) IR(i_sadd_sat,
                                                                                       clamp_s((i128)S(x) + S(y), n))
                    IR(i_uadd_sat, clamp_u((u128)U(x) + U(y), n)) IR(i_shadd, ((i128)S(x) + S(y)) >> 1)
                        IR(i_uhadd, ((u128)U(x) + U(y)) >> 1) IR(i_srhadd, ((i128)S(x) + S(y) + 1) >> 1)
                            IR(i_urhadd, ((u128)U(x) + U(y) + 1) >> 1) IR(i_clz, clz_ref(U(x), n)) IR(i_ctz,
                                                                                                      ctz_ref(U(x), n))
                                IR(i_smulhi, ((i128)S(x) * S(y)) >> n) IR(i_umulhi, ((u128)U(x) * U(y)) >> n)
                                    IR(i_smadhi, i_smulhi(x, y, 0, n) + z) IR(i_umadhi, i_umulhi(x, y, 0, n) + z)
                                        IR(i_umadsat, clamp_u((u128)U(x) * U(y) + U(z),
                                                              n)) IR(i_smadsat, clamp_s((i128)S(x) * S(y) + S(z), n))
                                            IR(i_rotate, (U(x) << (U(y) % n)) | (U(y) % n ? U(x) >> (n - U(y) % n) : 0))
                                                IR(i_ssub_sat, clamp_s((i128)S(x) - S(y), n))
                                                    IR(i_usub_sat, U(x) > U(y) ? U(x) - U(y) : 0)
                                                        IR(i_popcount,
                                                           __builtin_popcountll(U(x))) IR(i_smad24, s24(x) * s24(y) + z)
                                                            IR(i_umad24, (x & 0xffffff) * (y & 0xffffff) + z)
                                                                IR(i_smul24, s24(x) * s24(y))
                                                                    IR(i_umul24, (x & 0xffffff) * (y & 0xffffff))
                                                                        IR(i_uabs, x)
                                                                            IR(i_uabsdiff,
                                                                               U(x) > U(y) ? U(x) - U(y) : U(y) - U(x))

                                                                                typedef struct {
    int set;
    uint32_t inst;
    unsigned nargs;
    iref_fn ref;
    int clamp;
    int only_bits;
} icase;
static const icase icases[] = {
    { GL, 5, 1, i_sabs, 0, 0 },       { GL, 7, 1, i_ssign, 0, 0 },      { GL, 38, 2, i_umin, 0, 0 },
    { GL, 39, 2, i_smin, 0, 0 },      { GL, 41, 2, i_umax, 0, 0 },      { GL, 42, 2, i_smax, 0, 0 },
    { GL, 44, 3, i_uclamp, 'u', 0 },  { GL, 45, 3, i_sclamp, 's', 0 },  { GL, 47, 3, i_imix, 0, 0 },
    { GL, 73, 1, i_findilsb, 0, 0 },  { GL, 74, 1, i_findsmsb, 0, 0 },  { GL, 75, 1, i_findumsb, 0, 0 },
    { CL, 141, 1, i_sabs, 0, 0 },     { CL, 142, 2, i_sabsdiff, 0, 0 }, { CL, 143, 2, i_sadd_sat, 0, 0 },
    { CL, 144, 2, i_uadd_sat, 0, 0 }, { CL, 145, 2, i_shadd, 0, 0 },    { CL, 146, 2, i_uhadd, 0, 0 },
    { CL, 147, 2, i_srhadd, 0, 0 },   { CL, 148, 2, i_urhadd, 0, 0 },   { CL, 149, 3, i_sclamp, 's', 0 },
    { CL, 150, 3, i_uclamp, 'u', 0 }, { CL, 151, 1, i_clz, 0, 0 },      { CL, 152, 1, i_ctz, 0, 0 },
    { CL, 153, 3, i_smadhi, 0, 0 },   { CL, 154, 3, i_umadsat, 0, 0 },  { CL, 155, 3, i_smadsat, 0, 0 },
    { CL, 156, 2, i_smax, 0, 0 },     { CL, 157, 2, i_umax, 0, 0 },     { CL, 158, 2, i_smin, 0, 0 },
    { CL, 159, 2, i_umin, 0, 0 },     { CL, 160, 2, i_smulhi, 0, 0 },   { CL, 161, 2, i_rotate, 0, 0 },
    { CL, 162, 2, i_ssub_sat, 0, 0 }, { CL, 163, 2, i_usub_sat, 0, 0 }, { CL, 166, 1, i_popcount, 0, 0 },
    { CL, 167, 3, i_smad24, 0, 32 },  { CL, 168, 3, i_umad24, 0, 32 },  { CL, 169, 2, i_smul24, 0, 32 },
    { CL, 170, 2, i_umul24, 0, 32 },  { CL, 201, 1, i_uabs, 0, 0 },     { CL, 202, 2, i_uabsdiff, 0, 0 },
    { CL, 203, 2, i_umulhi, 0, 0 },   { CL, 204, 3, i_umadhi, 0, 0 },
};

static uint64_t rand_int(uint64_t *seed, int n)
{
    uint64_t r = test_rand_u64(seed);
    switch (r % 4) { /* small values and extremes are where the edge cases live */
    case 0:
        return (uint64_t)((int64_t)(r >> 8) % 9 - 4) & mask_of(n);
    case 1:
        return (r >> 8) % 2 ? mask_of(n) >> 1 : (mask_of(n) >> 1) + 1 - ((r >> 9) % 3);
    default:
        return test_rand_u64(seed) & mask_of(n);
    }
}

TEST_TIER_FREE(extinst_integer)
{
    static const unsigned lanes_list[] = { 0, 2, 3, 4, 8, 16 };
    static const int bits_list[] = { 8, 16, 32, 64 };
    jt j;
    jt_begin(&j);
    enum { NC = sizeof icases / sizeof icases[0] };
    static int fns[NC][4][6];
    for (unsigned k = 0; k < NC; k++)
        for (int b = 0; b < 4; b++)
            for (int l = 0; l < 6; l++) {
                fns[k][b][l] = -1;
                if (icases[k].only_bits && icases[k].only_bits != bits_list[b])
                    continue;
                LLVMTypeRef t = ty_int(&j, bits_list[b], lanes_list[l]);
                argspec a[3] = { { A_VAL, t, 0 }, { A_VAL, t, 0 }, { A_VAL, t, 0 } };
                fns[k][b][l] = jt_add(&j, icases[k].set, icases[k].inst, a, icases[k].nargs, t, NULL);
                CHECK(fns[k][b][l] >= 0, "lowering %s: %s", inst_name(icases[k].set, icases[k].inst), j.diag.msg);
            }
    if (!jt_compile(&j))
        goto out;
    uint64_t seed = 4242;
    for (unsigned k = 0; k < NC; k++)
        for (int b = 0; b < 4; b++)
            for (int l = 0; l < 6; l++) {
                kern_fn f = fns[k][b][l] >= 0 ? jt_fn(&j, fns[k][b][l]) : NULL;
                int n = bits_list[b];
                unsigned lanes = lanes_list[l] ? lanes_list[l] : 1, bad = 0;
                for (int it = 0; f && it < 16 && bad < 3; it++) {
                    _Alignas(16) unsigned char in[3][128], out[128];
                    uint64_t v[3][16];
                    for (unsigned q = 0; q < lanes; q++) {
                        for (int i = 0; i < 3; i++)
                            v[i][q] = rand_int(&seed, n);
                        if (icases[k].clamp == 's' && sx(v[1][q], n) > sx(v[2][q], n)) {
                            uint64_t t = v[1][q];
                            v[1][q] = v[2][q];
                            v[2][q] = t;
                        }
                        if (icases[k].clamp == 'u' && v[1][q] > v[2][q]) {
                            uint64_t t = v[1][q];
                            v[1][q] = v[2][q];
                            v[2][q] = t;
                        }
                        for (int i = 0; i < 3; i++)
                            put_int(in[i], q, n, v[i][q]);
                    }
                    f(in[0], in[1], in[2], NULL, out, NULL);
                    for (unsigned q = 0; q < lanes; q++) {
                        uint64_t got = get_int(out, q, n), want = icases[k].ref(v[0][q], v[1][q], v[2][q], n);
                        if (got != want) {
                            bad++;
                            CHECK(0, "%s %s i%d x%u: f(%#llx, %#llx, %#llx) = %#llx, expected %#llx",
                                  set_name(icases[k].set), inst_name(icases[k].set, icases[k].inst), n, lanes_list[l],
                                  (unsigned long long)v[0][q], (unsigned long long)v[1][q], (unsigned long long)v[2][q],
                                  (unsigned long long)got, (unsigned long long)want);
                        }
                    }
                }
            }
    /* upsample: hi, lo of N bits → 2N bits */
out:
    jt_end(&j);
}

TEST_TIER_FREE(extinst_upsample)
{
    jt j;
    jt_begin(&j);
    int fns[2][3][2];
    for (int s = 0; s < 2; s++)
        for (int b = 0; b < 3; b++)
            for (int l = 0; l < 2; l++) {
                int n = 8 << b;
                argspec a[2] = { { A_VAL, ty_int(&j, n, l ? 4 : 0), 0 }, { A_VAL, ty_int(&j, n, l ? 4 : 0), 0 } };
                fns[s][b][l] = jt_add(&j, CL, s ? 165 : 164, a, 2, ty_int(&j, 2 * n, l ? 4 : 0), NULL);
                CHECK(fns[s][b][l] >= 0, "upsample: %s", j.diag.msg);
            }
    argspec bad[2] = { { A_VAL, ty_int(&j, 8, 0), 0 }, { A_VAL, ty_int(&j, 8, 0), 0 } };
    CHECK(jt_add(&j, CL, 164, bad, 2, ty_int(&j, 32, 0), NULL) < 0 && strstr(j.diag.msg, "twice the width"),
          "upsample to the wrong width: %s", j.diag.msg);
    if (!jt_compile(&j))
        goto out;
    uint64_t seed = 77;
    for (int s = 0; s < 2; s++)
        for (int b = 0; b < 3; b++)
            for (int l = 0; l < 2; l++) {
                kern_fn f = jt_fn(&j, fns[s][b][l]);
                int n = 8 << b;
                _Alignas(16) unsigned char in[2][64], out[64];
                uint64_t hi[4], lo[4];
                for (int q = 0; q < 4; q++) {
                    put_int(in[0], (unsigned)q, n, hi[q] = rand_int(&seed, n));
                    put_int(in[1], (unsigned)q, n, lo[q] = rand_int(&seed, n));
                }
                if (f)
                    f(in[0], in[1], NULL, NULL, out, NULL);
                for (int q = 0; f && q < (l ? 4 : 1); q++) {
                    uint64_t want = ((s ? (uint64_t)sx(hi[q], n) : hi[q]) << n | lo[q]) & mask_of(2 * n);
                    uint64_t got = get_int(out, (unsigned)q, 2 * n);
                    CHECK(got == want, "%s_upsample i%d: (%#llx, %#llx) = %#llx, expected %#llx", s ? "s" : "u", n,
                          (unsigned long long)hi[q], (unsigned long long)lo[q], (unsigned long long)got,
                          (unsigned long long)want);
                }
            }
out:
    jt_end(&j);
}

/* ---------------------------------------------------------------------------------------------
 * Functions with pointer or integer operands: modf, frexp, ldexp, fract, lgamma_r,
 * remquo, sincos, ilogb, pown, rootn, nan (GLSL and OpenCL)
 * ------------------------------------------------------------------------------------------- */

enum {
    M_GL_MODF,
    M_GL_MODFS,
    M_GL_FREXP,
    M_GL_FREXPS,
    M_GL_LDEXP,
    M_CL_FRACT,
    M_CL_FREXP,
    M_CL_LGR,
    M_CL_MODF,
    M_CL_REMQUO,
    M_CL_SINCOS,
    M_CL_ILOGB,
    M_CL_LDEXP,
    M_CL_POWN,
    M_CL_ROOTN,
    M_CL_NAN,
    M_COUNT
};

TEST_TIER_FREE(extinst_pointer_and_int_operands)
{
    static const int bitss[3] = { 16, 32, 64 };
    static const unsigned lanes_list[3] = { 0, 3, 4 };
    jt j;
    jt_begin(&j);
    int fns[M_COUNT][3][3];
    for (int m = 0; m < M_COUNT; m++)
        for (int b = 0; b < 3; b++)
            for (int l = 0; l < 3; l++) {
                int n = bitss[b];
                unsigned ln = lanes_list[l];
                LLVMTypeRef t = ty_fp(&j, n, ln), i32 = ty_int(&j, 32, ln), in = ty_int(&j, n, ln);
                LLVMTypeRef two[2] = { t, t }, mi[2] = { t, i32 };
                argspec a[3] = { { A_VAL, t, 0 }, { A_PTR, t, 0 }, { A_VAL, t, 0 } };
                int fn = -1;
                switch (m) {
                case M_GL_MODF:
                    fn = jt_add(&j, GL, 35, a, 2, t, NULL);
                    break;
                case M_GL_MODFS:
                    fn = jt_add(&j, GL, 36, a, 1, LLVMStructTypeInContext(j.ctx, two, 2, 0), NULL);
                    break;
                case M_GL_FREXP:
                    a[1].type = i32;
                    fn = jt_add(&j, GL, 51, a, 2, t, NULL);
                    break;
                case M_GL_FREXPS:
                    fn = jt_add(&j, GL, 52, a, 1, LLVMStructTypeInContext(j.ctx, mi, 2, 0), NULL);
                    break;
                case M_GL_LDEXP:
                    a[1] = (argspec){ A_VAL, i32, 0 };
                    fn = jt_add(&j, GL, 53, a, 2, t, NULL);
                    break;
                case M_CL_FRACT:
                    fn = jt_add(&j, CL, 30, a, 2, t, NULL);
                    break;
                case M_CL_FREXP:
                    a[1].type = i32;
                    fn = jt_add(&j, CL, 31, a, 2, t, NULL);
                    break;
                case M_CL_LGR:
                    a[1].type = i32;
                    fn = jt_add(&j, CL, 36, a, 2, t, NULL);
                    break;
                case M_CL_MODF:
                    fn = jt_add(&j, CL, 45, a, 2, t, NULL);
                    break;
                case M_CL_REMQUO:
                    a[1] = (argspec){ A_VAL, t, 0 };
                    a[2] = (argspec){ A_PTR, i32, 0 };
                    fn = jt_add(&j, CL, 52, a, 3, t, NULL);
                    break;
                case M_CL_SINCOS:
                    fn = jt_add(&j, CL, 58, a, 2, t, NULL);
                    break;
                case M_CL_ILOGB:
                    fn = jt_add(&j, CL, 33, a, 1, i32, NULL);
                    break;
                case M_CL_LDEXP: /* OpenCL allows a scalar k with a vector x */
                    a[1] = (argspec){ A_VAL, ty_int(&j, 32, 0), 0 };
                    fn = jt_add(&j, CL, 34, a, 2, t, NULL);
                    break;
                case M_CL_POWN:
                    a[1] = (argspec){ A_VAL, i32, 0 };
                    fn = jt_add(&j, CL, 49, a, 2, t, NULL);
                    break;
                case M_CL_ROOTN:
                    a[1] = (argspec){ A_VAL, i32, 0 };
                    fn = jt_add(&j, CL, 54, a, 2, t, NULL);
                    break;
                case M_CL_NAN:
                    a[0] = (argspec){ A_VAL, in, 0 };
                    fn = jt_add(&j, CL, 46, a, 1, t, NULL);
                    break;
                }
                CHECK(fn >= 0, "case %d: %s", m, j.diag.msg);
                fns[m][b][l] = fn;
            }
    if (!jt_compile(&j))
        goto out;
    uint64_t seed = 5151;
    for (int m = 0; m < M_COUNT; m++)
        for (int b = 0; b < 3; b++)
            for (int l = 0; l < 3; l++) {
                kern_fn f = fns[m][b][l] >= 0 ? jt_fn(&j, fns[m][b][l]) : NULL;
                int n = bitss[b];
                unsigned lanes = lanes_list[l] ? lanes_list[l] : 1;
                for (int it = 0; f && it < 12; it++) {
                    _Alignas(16) unsigned char x[64], y[64], out[64], ptr[64], kb[64];
                    int32_t k[4];
                    for (unsigned q = 0; q < lanes; q++) {
                        double v = rand_in(&seed, -50, 50);
                        if (it == 0) { /* special values first */
                            static const double sv[4] = { 0.0, -INFINITY, NAN, -0.0 };
                            v = sv[q];
                        }
                        if (m == M_CL_LGR && it > 0)
                            v = rand_in(&seed, -4.5, 6);
                        if (m == M_CL_POWN)
                            v = rand_in(&seed, -4, 4);
                        put_fp(x, q, n, v);
                        put_fp(y, q, n, (test_rand_u64(&seed) & 1 ? -1 : 1) * rand_in(&seed, 0.3, 5));
                        k[q] = (int32_t)(test_rand_u64(&seed) % 13) - 6;
                        if (m == M_GL_LDEXP || m == M_CL_LDEXP)
                            k[q] = (int32_t)(test_rand_u64(&seed) % 41) - 20;
                        if (m == M_CL_NAN)
                            put_int(x, q, n, test_rand_u64(&seed));
                        else
                            memcpy(kb + 4 * q, &k[q], 4);
                    }
                    if (m == M_CL_REMQUO)
                        f(x, y, ptr, NULL, out, NULL);
                    else if (m == M_GL_LDEXP || m == M_CL_LDEXP || m == M_CL_POWN || m == M_CL_ROOTN)
                        f(x, kb, NULL, NULL, out, NULL);
                    else
                        f(x, ptr, NULL, NULL, out, NULL);
                    for (unsigned q = 0; q < lanes; q++) {
                        long double xv = get_fp(x, q, n), yv = get_fp(y, q, n), got = get_fp(out, q, n);
                        long double want = 0, want2 = 0, got2 = 0;
                        int32_t gi = 0, wi = 0;
                        bool ok = true;
                        switch (m) {
                        case M_GL_MODF:
                        case M_CL_MODF:
                        case M_GL_MODFS: {
                            want = modfl(xv, &want2);
                            got2 = m == M_GL_MODFS ? get_fp(out, lanes + q, n) : get_fp(ptr, q, n);
                            ok = close_to(got, want, n, 0, 0) && close_to(got2, want2, n, 0, 0);
                            break;
                        }
                        case M_GL_FREXP:
                        case M_CL_FREXP:
                        case M_GL_FREXPS: {
                            int e = 0;
                            want = frexpl(xv, &e);
                            wi = isfinite(xv) ? e : 0;
                            gi = (int32_t)get_int(m == M_GL_FREXPS ? out + packed_size(ty_fp(&j, n, lanes_list[l]))
                                                                   : ptr,
                                                  q, 32);
                            ok = close_to(got, want, n, 0, 0) && gi == wi;
                            break;
                        }
                        case M_GL_LDEXP:
                        case M_CL_LDEXP: {
                            int32_t kk = m == M_CL_LDEXP ? k[0] : k[q];
                            want = ldexpl(xv, kk);
                            ok = close_to(got, want, n, 0, 0);
                            break;
                        }
                        case M_CL_FRACT: {
                            long double below1 = n == 16   ? 0x1.ffcp-1L
                                                 : n == 32 ? 0x1.fffffep-1L
                                                           : 0x1.fffffffffffffp-1L;
                            want2 = floorl(xv);
                            want = isnan(xv)              ? xv
                                   : isinf(xv) || xv == 0 ? copysignl(0, xv)
                                                          : fminl(round_to(xv - want2, n), below1);
                            got2 = get_fp(ptr, q, n);
                            ok = close_to(got, want, n, 0, 0) && close_to(got2, want2, n, 0, 0);
                            break;
                        }
                        case M_CL_LGR: {
                            int s = 0;
                            want = lgammal_r(xv, &s);
                            gi = (int32_t)get_int(ptr, q, 32);
                            ok = close_to(got, want, n, 4, fmaxl(1, fabsl(want))) &&
                                 (isnan(xv) || !isfinite(want) || gi == s);
                            break;
                        }
                        case M_CL_REMQUO: {
                            want = remainderl(xv, yv);
                            gi = (int32_t)get_int(ptr, q, 32);
                            if (isfinite(xv)) {
                                long double qq = rintl((xv - want) / yv);
                                wi = (int32_t)(fmodl(fabsl(qq), 128));
                                if ((xv < 0) != (yv < 0))
                                    wi = -wi;
                            } else
                                wi = gi; /* unspecified */
                            ok = close_to(got, want, n, 0, 0) && gi == wi;
                            break;
                        }
                        case M_CL_SINCOS:
                            ok = close_to(got, sinl(xv), n, 4, 0) && close_to(get_fp(ptr, q, n), cosl(xv), n, 4, 0);
                            break;
                        case M_CL_ILOGB:
                            gi = (int32_t)get_int(out, q, 32);
                            wi = xv == 0 ? INT32_MIN : !isfinite(xv) ? INT32_MAX : ilogbl(xv);
                            ok = gi == wi;
                            break;
                        case M_CL_POWN:
                            want = powl(xv, k[q]);
                            ok = close_to(got, want, n, n == 16 ? 1 : 2, 0);
                            break;
                        case M_CL_ROOTN:
                            if (k[q] == 0 || (xv < 0 && k[q] % 2 == 0))
                                want = NAN;
                            else
                                want = copysignl(powl(fabsl(xv), 1.0L / k[q]), k[q] % 2 ? xv : 1);
                            ok = close_to(got, want, n, 2, 0);
                            break;
                        case M_CL_NAN: {
                            uint64_t code = get_int(x, q, n), bits = get_int(out, q, n);
                            uint64_t quiet = n == 16 ? 0x7e00 : n == 32 ? 0x7fc00000 : 0x7ff8000000000000ull;
                            uint64_t mk = n == 16 ? 0x1ff : n == 32 ? 0x3fffff : (1ull << 51) - 1;
                            ok = bits == (quiet | (code & mk));
                            got = (long double)bits;
                            want = (long double)(quiet | (code & mk));
                            break;
                        }
                        }
                        CHECK(ok,
                              "case %d bits %d lanes %u lane %u: x=%La y=%La k=%d: got %La / %La / %d, expected %La / "
                              "%La / %d",
                              m, n, lanes_list[l], q, xv, yv, k[q], got, got2, gi, want, want2, wi);
                    }
                }
            }
out:
    jt_end(&j);
}

/* ---------------------------------------------------------------------------------------------
 * vload/vstore, half conversions with every rounding mode
 * ------------------------------------------------------------------------------------------- */

TEST_TIER_FREE(extinst_vload_vstore)
{
    jt j;
    jt_begin(&j);
    LLVMTypeRef i64 = ty_int(&j, 64, 0), half = ty_fp(&j, 16, 0);
    static const unsigned ns[5] = { 2, 3, 4, 8, 16 };
    int ld[5][3], st[5][3];
    static const int ebits[3] = { 32, 64, 16 }; /* float, double, i16 element kinds */
    for (int k = 0; k < 5; k++)
        for (int e = 0; e < 3; e++) {
            LLVMTypeRef et = e == 2 ? ty_int(&j, 16, 0) : ty_fp(&j, ebits[e], 0);
            LLVMTypeRef vt = LLVMVectorType(et, ns[k]);
            argspec a[3] = { { A_VAL, i64, 0 }, { A_PTR, et, 0 }, { A_LIT, NULL, ns[k] } };
            ld[k][e] = jt_add(&j, CL, 171, a, 3, vt, NULL);
            argspec s[3] = { { A_VAL, vt, 0 }, { A_VAL, i64, 0 }, { A_PTR, et, 0 } };
            st[k][e] = jt_add(&j, CL, 172, s, 3, NULL, NULL);
            CHECK(ld[k][e] >= 0 && st[k][e] >= 0, "vloadn/vstoren: %s", j.diag.msg);
        }
    /* vload_half(n) / vloada_halfn: [n index 0 = scalar][aligned] */
    int lh[6][2], sh[6][2][2][5]; /* sh[n][aligned][data double][mode 0..3, 4 = no _r] */
    static const unsigned hn[6] = { 0, 2, 3, 4, 8, 16 };
    for (int k = 0; k < 6; k++)
        for (int al = 0; al < 2; al++) {
            lh[k][al] = -1;
            if (al && !hn[k])
                continue;
            argspec a[3] = { { A_VAL, i64, 0 }, { A_PTR, half, 0 }, { A_LIT, NULL, hn[k] } };
            lh[k][al] = jt_add(&j, CL, hn[k] ? (al ? 179 : 174) : 173, a, hn[k] ? 3 : 2, ty_fp(&j, 32, hn[k]), NULL);
            CHECK(lh[k][al] >= 0, "vload_half: %s", j.diag.msg);
            for (int d = 0; d < 2; d++)
                for (int m = 0; m < 5; m++) {
                    argspec s[4] = { { A_VAL, ty_fp(&j, d ? 64 : 32, hn[k]), 0 },
                                     { A_VAL, i64, 0 },
                                     { A_PTR, half, 0 },
                                     { A_LIT, NULL, (uint64_t)m } };
                    uint32_t inst = !hn[k] ? (m == 4 ? 175 : 176) : al ? (m == 4 ? 180 : 181) : (m == 4 ? 177 : 178);
                    sh[k][al][d][m] = jt_add(&j, CL, inst, s, m == 4 ? 3 : 4, NULL, NULL);
                    CHECK(sh[k][al][d][m] >= 0, "vstore_half: %s", j.diag.msg);
                }
        }
    if (!jt_compile(&j))
        goto out;
    uint64_t seed = 31337;
    for (int k = 0; k < 5; k++)
        for (int e = 0; e < 3; e++) {
            unsigned n = ns[k], esz = (unsigned)(e == 2 ? 2 : ebits[e] / 8);
            unsigned char mem[16 * 8 * 4], vec[16 * 8], out[16 * 8];
            for (unsigned i = 0; i < sizeof mem; i++)
                mem[i] = (unsigned char)test_rand_u64(&seed);
            uint64_t off = 2;
            kern_fn f = jt_fn(&j, ld[k][e]);
            if (f)
                f(&off, mem, NULL, NULL, out, NULL);
            CHECK(f && !memcmp(out, mem + off * n * esz, n * esz), "vload%u (elem %u bytes) loaded the wrong bytes", n,
                  esz);
            for (unsigned i = 0; i < n * esz; i++)
                vec[i] = (unsigned char)test_rand_u64(&seed);
            unsigned char before[sizeof mem];
            memcpy(before, mem, sizeof mem);
            f = jt_fn(&j, st[k][e]);
            if (f)
                f(vec, &off, mem, NULL, NULL, NULL);
            memcpy(before + off * n * esz, vec, n * esz);
            CHECK(f && !memcmp(before, mem, sizeof mem), "vstore%u (elem %u bytes) stored wrong bytes", n, esz);
        }
    for (int k = 0; k < 6; k++)
        for (int al = 0; al < 2; al++) {
            if (lh[k][al] < 0)
                continue;
            unsigned n = hn[k] ? hn[k] : 1, stride = al && n == 3 ? 4 : n;
            uint16_t hm[64];
            for (unsigned i = 0; i < 64; i++)
                hm[i] = (uint16_t)test_rand_u64(&seed);
            uint64_t off = 1;
            float got[16];
            kern_fn f = jt_fn(&j, lh[k][al]);
            if (f)
                f(&off, hm, NULL, NULL, got, NULL);
            for (unsigned i = 0; f && i < n; i++) {
                double w = h2d(hm[off * stride + i]);
                CHECK(isnan(w) ? isnan(got[i]) : got[i] == (float)w, "vload_half%u%s lane %u: %a, expected %a", hn[k],
                      al ? " (aligned)" : "", i, got[i], w);
            }
            for (int d = 0; d < 2; d++)
                for (int m = 0; m < 5; m++) {
                    f = jt_fn(&j, sh[k][al][d][m]);
                    for (int it = 0; f && it < 8; it++) {
                        double data[16];
                        for (unsigned i = 0; i < n; i++) {
                            static const double sv[] = { 1e6, -1e6,      65520.0, 0x1p-25, -0x1.8p-24,  1.0 / 3,
                                                         NAN, -INFINITY, 65504.0, -0.0,    0x1.ffcp-15, 2049.5 };
                            data[i] =
                                it == 0 ? sv[i % 12]
                                        : rand_in(&seed, -70000, 70000) * pow(2, -(double)(test_rand_u64(&seed) % 30));
                            if (!d)
                                data[i] = (float)data[i];
                        }
                        float dataf[16];
                        for (unsigned i = 0; i < n; i++)
                            dataf[i] = (float)data[i];
                        uint16_t mem[64];
                        memset(mem, 0xee, sizeof mem);
                        uint64_t o = 1;
                        f(d ? (void *)data : (void *)dataf, &o, mem, NULL, NULL, NULL);
                        for (unsigned i = 0; i < 64; i++) {
                            bool inside = i >= o * stride && i < o * stride + n;
                            uint16_t want = inside ? d2h(data[i - o * stride], m == 4 ? RTE : m) : 0xeeee;
                            bool ok = mem[i] == want || (inside && isnan(data[i - o * stride]) &&
                                                         (mem[i] & 0x7c00) == 0x7c00 && (mem[i] & 0x3ff));
                            CHECK(ok, "vstore_half n=%u aligned=%d %s mode %d: half %u = %#x, expected %#x (value %a)",
                                  hn[k], al, d ? "double" : "float", m, i, mem[i], want,
                                  inside ? data[i - o * stride] : 0.0);
                        }
                    }
                }
        }
out:
    jt_end(&j);
}

/* ---------------------------------------------------------------------------------------------
 * shuffle, shuffle2 (masks from memory), select, bitselect, prefetch
 * ------------------------------------------------------------------------------------------- */

TEST_TIER_FREE(extinst_shuffle_select)
{
    jt j;
    jt_begin(&j);
    LLVMTypeRef v4f = ty_fp(&j, 32, 4), v8f = ty_fp(&j, 32, 8), v8u = ty_int(&j, 32, 8), v4i = ty_int(&j, 32, 4);
    LLVMTypeRef v16c = ty_int(&j, 8, 16), v2l = ty_int(&j, 64, 2);
    argspec sh1[2] = { { A_VAL, v4f, 0 }, { A_VAL, v8u, 0 } };
    argspec sh2[3] = { { A_VAL, v16c, 0 }, { A_VAL, v16c, 0 }, { A_VAL, ty_int(&j, 8, 4), 0 } };
    argspec sel[3] = { { A_VAL, v4f, 0 }, { A_VAL, v4f, 0 }, { A_VAL, v4i, 0 } };
    argspec sels[3] = { { A_VAL, ty_fp(&j, 64, 0), 0 },
                        { A_VAL, ty_fp(&j, 64, 0), 0 },
                        { A_VAL, ty_int(&j, 64, 0), 0 } };
    argspec bs[3] = { { A_VAL, v4f, 0 }, { A_VAL, v4f, 0 }, { A_VAL, v4f, 0 } };
    argspec bsi[3] = { { A_VAL, v2l, 0 }, { A_VAL, v2l, 0 }, { A_VAL, v2l, 0 } };
    argspec pf[2] = { { A_PTR, ty_fp(&j, 32, 0), 0 }, { A_VAL, ty_int(&j, 64, 0), 0 } };
    int f_sh1 = jt_add(&j, CL, 182, sh1, 2, v8f, NULL);
    int f_sh2 = jt_add(&j, CL, 183, sh2, 3, ty_int(&j, 8, 4), NULL);
    int f_sel = jt_add(&j, CL, 187, sel, 3, v4f, NULL);
    int f_sels = jt_add(&j, CL, 187, sels, 3, ty_fp(&j, 64, 0), NULL);
    int f_bs = jt_add(&j, CL, 186, bs, 3, v4f, NULL);
    int f_bsi = jt_add(&j, CL, 186, bsi, 3, v2l, NULL);
    int f_pf = jt_add(&j, CL, 185, pf, 2, NULL, NULL);
    CHECK(f_sh1 >= 0 && f_sh2 >= 0 && f_sel >= 0 && f_sels >= 0 && f_bs >= 0 && f_bsi >= 0 && f_pf >= 0, "lowering: %s",
          j.diag.msg);
    if (!jt_compile(&j))
        goto out;
    uint64_t seed = 11;
    for (int it = 0; it < 16; it++) {
        float x[4], out[8];
        uint32_t mask[8];
        for (int i = 0; i < 4; i++)
            x[i] = test_rand_float(&seed, -9, 9);
        for (int i = 0; i < 8; i++)
            mask[i] = (uint32_t)test_rand_u64(&seed);
        kern_fn f = jt_fn(&j, f_sh1);
        if (f)
            f(x, mask, NULL, NULL, out, NULL);
        for (int i = 0; f && i < 8; i++)
            CHECK(out[i] == x[mask[i] & 3], "shuffle lane %d: %g, expected %g", i, out[i], x[mask[i] & 3]);
        int8_t a[16], b[16], o2[4];
        uint8_t m2[4];
        for (int i = 0; i < 16; i++) {
            a[i] = (int8_t)test_rand_u64(&seed);
            b[i] = (int8_t)test_rand_u64(&seed);
        }
        for (int i = 0; i < 4; i++)
            m2[i] = (uint8_t)test_rand_u64(&seed);
        f = jt_fn(&j, f_sh2);
        if (f)
            f(a, b, m2, NULL, o2, NULL);
        for (int i = 0; f && i < 4; i++) {
            int idx = m2[i] & 31;
            CHECK(o2[i] == (idx < 16 ? a[idx] : b[idx - 16]), "shuffle2 lane %d", i);
        }
        float p[4], q[4], r[4];
        int32_t c[4];
        for (int i = 0; i < 4; i++) {
            p[i] = test_rand_float(&seed, -9, 9);
            q[i] = test_rand_float(&seed, -9, 9);
            c[i] = (int32_t)test_rand_u64(&seed) >> (test_rand_u64(&seed) % 32);
        }
        f = jt_fn(&j, f_sel);
        if (f)
            f(p, q, c, NULL, r, NULL);
        for (int i = 0; f && i < 4; i++)
            CHECK(r[i] == (c[i] < 0 ? q[i] : p[i]), "select vector lane %d (c=%d)", i, c[i]);
        double sp = p[0], sq = q[0], sr;
        int64_t sc = it % 3 == 0 ? 0 : (int64_t)c[0];
        f = jt_fn(&j, f_sels);
        if (f)
            f(&sp, &sq, &sc, NULL, &sr, NULL);
        CHECK(!f || sr == (sc ? sq : sp), "select scalar (c=%lld)", (long long)sc);
        float bm[4];
        for (int i = 0; i < 4; i++) {
            uint32_t mm = (uint32_t)test_rand_u64(&seed);
            memcpy(&bm[i], &mm, 4);
        }
        f = jt_fn(&j, f_bs);
        if (f)
            f(p, q, bm, NULL, r, NULL);
        for (int i = 0; f && i < 4; i++) {
            uint32_t pa, qb, mm, rr;
            memcpy(&pa, &p[i], 4);
            memcpy(&qb, &q[i], 4);
            memcpy(&mm, &bm[i], 4);
            memcpy(&rr, &r[i], 4);
            CHECK(rr == ((pa & ~mm) | (qb & mm)), "bitselect float lane %d", i);
        }
        uint64_t la[2], lb[2], lm[2], lr[2];
        for (int i = 0; i < 2; i++) {
            la[i] = test_rand_u64(&seed);
            lb[i] = test_rand_u64(&seed);
            lm[i] = test_rand_u64(&seed);
        }
        f = jt_fn(&j, f_bsi);
        if (f)
            f(la, lb, lm, NULL, lr, NULL);
        for (int i = 0; f && i < 2; i++)
            CHECK(lr[i] == ((la[i] & ~lm[i]) | (lb[i] & lm[i])), "bitselect long lane %d", i);
    }
    kern_fn f = jt_fn(&j, f_pf);
    float buf[4] = { 1, 2, 3, 4 };
    uint64_t cnt = 4;
    if (f)
        f(buf, &cnt, NULL, NULL, NULL, NULL); /* a no-op that must not crash */
out:
    jt_end(&j);
}

/* ---------------------------------------------------------------------------------------------
 * Geometric functions, matrices, packing
 * ------------------------------------------------------------------------------------------- */

enum {
    G_LEN,
    G_DIST,
    G_CROSS,
    G_NORM,
    G_FACEFWD,
    G_REFLECT,
    G_REFRACT,
    G_CL_CROSS,
    G_CL_DIST,
    G_CL_LEN,
    G_CL_NORM,
    G_CL_FDIST,
    G_CL_FLEN,
    G_CL_FNORM,
    G_COUNT
};
static const struct {
    int set;
    uint32_t inst;
    unsigned nargs;
    bool vec_result;
} geo[G_COUNT] = {
    { GL, 66, 1, false }, { GL, 67, 2, false },  { GL, 68, 2, true },   { GL, 69, 1, true },   { GL, 70, 3, true },
    { GL, 71, 2, true },  { GL, 72, 3, true },   { CL, 104, 2, true },  { CL, 105, 2, false }, { CL, 106, 1, false },
    { CL, 107, 1, true }, { CL, 108, 2, false }, { CL, 109, 1, false }, { CL, 110, 1, true },
};

/* Reference results in long double, lanes n (0 = scalar). */
static void geo_ref(int g, unsigned n, const long double *a, const long double *b, const long double *c, long double *r)
{
    unsigned m = n ? n : 1;
    long double dot_ab = 0, dot_aa = 0, dot_dd = 0, dot_cb = 0;
    for (unsigned i = 0; i < m; i++) {
        dot_ab += a[i] * b[i];
        dot_aa += a[i] * a[i];
        dot_dd += (a[i] - b[i]) * (a[i] - b[i]);
        dot_cb += c[i] * b[i];
    }
    switch (g) {
    case G_LEN:
    case G_CL_LEN:
    case G_CL_FLEN:
        r[0] = sqrtl(dot_aa);
        break;
    case G_DIST:
    case G_CL_DIST:
    case G_CL_FDIST:
        r[0] = sqrtl(dot_dd);
        break;
    case G_CROSS:
    case G_CL_CROSS:
        r[0] = a[1] * b[2] - a[2] * b[1];
        r[1] = a[2] * b[0] - a[0] * b[2];
        r[2] = a[0] * b[1] - a[1] * b[0];
        if (n == 4)
            r[3] = 0;
        break;
    case G_NORM:
    case G_CL_NORM:
    case G_CL_FNORM:
        for (unsigned i = 0; i < m; i++)
            r[i] = a[i] / sqrtl(dot_aa);
        break;
    case G_FACEFWD: /* N=a, I=b, Nref=c */
        for (unsigned i = 0; i < m; i++)
            r[i] = dot_cb < 0 ? a[i] : -a[i];
        break;
    case G_REFLECT: /* I=a, N=b */
        for (unsigned i = 0; i < m; i++)
            r[i] = a[i] - 2 * dot_ab * b[i];
        break;
    case G_REFRACT: { /* I=a, N=b, eta=c[0] */
        long double eta = c[0], k = 1 - eta * eta * (1 - dot_ab * dot_ab);
        for (unsigned i = 0; i < m; i++)
            r[i] = k < 0 ? 0 : eta * a[i] - (eta * dot_ab + sqrtl(k)) * b[i];
        break;
    }
    }
}

TEST_TIER_FREE(extinst_geometric)
{
    static const int bitss[3] = { 16, 32, 64 };
    static const unsigned lanes_list[4] = { 0, 2, 3, 4 };
    jt j;
    jt_begin(&j);
    int fns[G_COUNT][3][4];
    for (int g = 0; g < G_COUNT; g++)
        for (int b = 0; b < 3; b++)
            for (int l = 0; l < 4; l++) {
                unsigned ln = lanes_list[l];
                fns[g][b][l] = -1;
                if ((g == G_CROSS && ln != 3) || (g == G_CL_CROSS && ln < 3))
                    continue;
                LLVMTypeRef t = ty_fp(&j, bitss[b], ln), e = ty_fp(&j, bitss[b], 0);
                argspec a[3] = { { A_VAL, t, 0 }, { A_VAL, t, 0 }, { A_VAL, g == G_REFRACT ? e : t, 0 } };
                fns[g][b][l] = jt_add(&j, geo[g].set, geo[g].inst, a, geo[g].nargs, geo[g].vec_result ? t : e, NULL);
                CHECK(fns[g][b][l] >= 0, "%s: %s", inst_name(geo[g].set, geo[g].inst), j.diag.msg);
            }
    if (!jt_compile(&j))
        goto out;
    uint64_t seed = 808;
    for (int g = 0; g < G_COUNT; g++)
        for (int b = 0; b < 3; b++)
            for (int l = 0; l < 4; l++) {
                kern_fn f = fns[g][b][l] >= 0 ? jt_fn(&j, fns[g][b][l]) : NULL;
                int n = bitss[b];
                unsigned ln = lanes_list[l], m = ln ? ln : 1;
                for (int it = 0; f && it < 16; it++) {
                    _Alignas(16) unsigned char in[3][64], out[64];
                    long double a[3][4], r[4];
                    for (int i = 0; i < 3; i++)
                        for (unsigned q = 0; q < m; q++) {
                            double v = rand_in(&seed, -4, 4);
                            if (g == G_REFRACT && i == 2)
                                v = rand_in(&seed, 0.5, 1.5);
                            put_fp(in[i], q, n, v);
                            a[i][q] = get_fp(in[i], q, n);
                        }
                    f(in[0], in[1], in[2], NULL, out, NULL);
                    geo_ref(g, ln, a[0], a[1], a[2], r);
                    bool fast = g >= G_CL_FDIST;
                    for (unsigned q = 0; q < (geo[g].vec_result ? m : 1); q++) {
                        long double got = get_fp(out, q, n);
                        /* errors are relative to the size of the inputs (cancellation in dot products) */
                        double tol = fast && n != 16 ? 64 : 8;
                        long double scale = g == G_REFLECT || g == G_REFRACT ? 256 : 16; /* ~ |I| |N|^2 */
                        CHECK(close_to(got, r[q], n, tol, scale),
                              "%s %s bits %d lanes %u lane %u: %.17Lg, expected %.17Lg", set_name(geo[g].set),
                              inst_name(geo[g].set, geo[g].inst), n, ln, q, got, r[q]);
                    }
                }
            }
out:
    jt_end(&j);
}

/* OpenCL length/normalize must not overflow or underflow, and normalize has special cases */
TEST_TIER_FREE(extinst_opencl_length_normalize_extremes)
{
    jt j;
    jt_begin(&j);
    int fl[2], fn[2];
    for (int b = 0; b < 2; b++) {
        LLVMTypeRef t = ty_fp(&j, b ? 64 : 32, 3), e = ty_fp(&j, b ? 64 : 32, 0);
        argspec a[1] = { { A_VAL, t, 0 } };
        fl[b] = jt_add(&j, CL, 106, a, 1, e, NULL);
        fn[b] = jt_add(&j, CL, 107, a, 1, t, NULL);
    }
    if (!jt_compile(&j))
        goto out;
    for (int b = 0; b < 2; b++) {
        int n = b ? 64 : 32;
        long double big = b ? 1e300L : 1e30L, tiny = b ? 1e-300L : 1e-30L;
        const long double cases[][3] = {
            { big, big, -big }, { tiny, -tiny, tiny }, { 0, 0, 0 }, { INFINITY, 1, -INFINITY }, { 3, NAN, 1 }
        };
        for (unsigned k = 0; k < 5; k++) {
            _Alignas(16) unsigned char in[32], out[32];
            for (unsigned q = 0; q < 3; q++)
                put_fp(in, q, n, cases[k][q]);
            long double x[3] = { get_fp(in, 0, n), get_fp(in, 1, n), get_fp(in, 2, n) };
            long double len = sqrtl(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
            kern_fn f = jt_fn(&j, fl[b]);
            if (f)
                f(in, NULL, NULL, NULL, out, NULL);
            CHECK(f && close_to(get_fp(out, 0, n), len, n, 4, 0), "length bits %d case %u: %Lg, expected %Lg", n, k,
                  get_fp(out, 0, n), len);
            f = jt_fn(&j, fn[b]);
            if (f)
                f(in, NULL, NULL, NULL, out, NULL);
            for (unsigned q = 0; f && q < 3; q++) {
                long double want;
                if (isnan(len))
                    want = NAN;
                else if (isinf(len)) { /* infinities become ±1, the rest 0 */
                    want = isinf(x[q]) ? copysignl(1, x[q]) / sqrtl(2) : 0;
                } else
                    want = len == 0 ? x[q] : x[q] / len;
                CHECK(close_to(get_fp(out, q, n), want, n, 4, 1),
                      "normalize bits %d case %u lane %u: %Lg, expected %Lg", n, k, q, get_fp(out, q, n), want);
            }
        }
    }
out:
    jt_end(&j);
}

static long double det_ref(const long double *m, int n) /* column-major m[c*n+r], Gaussian elimination */
{
    long double a[16], d = 1;
    memcpy(a, m, sizeof(long double) * (size_t)(n * n));
    for (int c = 0; c < n; c++) {
        int p = c;
        for (int r = c + 1; r < n; r++)
            if (fabsl(a[c * n + r]) > fabsl(a[c * n + p]))
                p = r;
        if (p != c) {
            for (int k = 0; k < n; k++) {
                long double t = a[k * n + c];
                a[k * n + c] = a[k * n + p];
                a[k * n + p] = t;
            }
            d = -d;
        }
        d *= a[c * n + c];
        for (int r = c + 1; r < n; r++) {
            long double f = a[c * n + r] / a[c * n + c];
            for (int k = c; k < n; k++)
                a[k * n + r] -= f * a[k * n + c];
        }
    }
    return d;
}

TEST_TIER_FREE(extinst_glsl_matrix)
{
    jt j;
    jt_begin(&j);
    int fd[3][2], fi[3][2];
    for (int s = 0; s < 3; s++)
        for (int b = 0; b < 2; b++) {
            unsigned n = (unsigned)s + 2;
            LLVMTypeRef mt = LLVMArrayType2(ty_fp(&j, b ? 64 : 32, n), n);
            argspec a[1] = { { A_VAL, mt, 0 } };
            fd[s][b] = jt_add(&j, GL, 33, a, 1, ty_fp(&j, b ? 64 : 32, 0), NULL);
            fi[s][b] = jt_add(&j, GL, 34, a, 1, mt, NULL);
            CHECK(fd[s][b] >= 0 && fi[s][b] >= 0, "matrix: %s", j.diag.msg);
        }
    if (!jt_compile(&j))
        goto out;
    uint64_t seed = 2024;
    for (int s = 0; s < 3; s++)
        for (int b = 0; b < 2; b++)
            for (int it = 0; it < 10; it++) {
                int n = s + 2, bits = b ? 64 : 32;
                _Alignas(16) unsigned char in[128], out[128];
                long double m[16];
                for (int k = 0; k < n * n; k++) {
                    put_fp(in, (unsigned)k, bits, rand_in(&seed, -2, 2) + (k % (n + 1) == 0 ? 4 : 0));
                    m[k] = get_fp(in, (unsigned)k, bits);
                }
                long double d = det_ref(m, n);
                kern_fn f = jt_fn(&j, fd[s][b]);
                if (f)
                    f(in, NULL, NULL, NULL, out, NULL);
                CHECK(f && close_to(get_fp(out, 0, bits), d, bits, 64, fabsl(d) + 16),
                      "Determinant %dx%d: %Lg, expected %Lg", n, n, get_fp(out, 0, bits), d);
                f = jt_fn(&j, fi[s][b]);
                if (f)
                    f(in, NULL, NULL, NULL, out, NULL);
                /* M * inverse = identity */
                for (int r = 0; f && r < n; r++)
                    for (int c = 0; c < n; c++) {
                        long double sum = 0;
                        for (int k = 0; k < n; k++)
                            sum += m[k * n + r] * get_fp(out, (unsigned)(c * n + k), bits);
                        CHECK(fabsl(sum - (r == c)) < (b ? 1e-12L : 1e-4L),
                              "MatrixInverse %dx%d bits %d: (M*inv)[%d][%d] = %Lg", n, n, bits, r, c, sum);
                    }
            }
out:
    jt_end(&j);
}

TEST_TIER_FREE(extinst_glsl_pack_unpack)
{
    jt j;
    jt_begin(&j);
    LLVMTypeRef v4 = ty_fp(&j, 32, 4), v2 = ty_fp(&j, 32, 2), i32 = ty_int(&j, 32, 0), v2i = ty_int(&j, 32, 2);
    LLVMTypeRef f64 = ty_fp(&j, 64, 0);
    const struct {
        uint32_t inst;
        LLVMTypeRef in, out;
    } pk[12] = {
        { 54, v4, i32 }, { 55, v4, i32 }, { 56, v2, i32 }, { 57, v2, i32 }, { 58, v2, i32 }, { 59, v2i, f64 },
        { 60, i32, v2 }, { 61, i32, v2 }, { 62, i32, v2 }, { 63, i32, v4 }, { 64, i32, v4 }, { 65, f64, v2i },
    };
    int fns[12];
    for (int k = 0; k < 12; k++) {
        argspec a[1] = { { A_VAL, pk[k].in, 0 } };
        fns[k] = jt_add(&j, GL, pk[k].inst, a, 1, pk[k].out, NULL);
        CHECK(fns[k] >= 0, "%s: %s", inst_name(GL, pk[k].inst), j.diag.msg);
    }
    argspec wrong[1] = { { A_VAL, v2, 0 } };
    CHECK(jt_add(&j, GL, 54, wrong, 1, i32, NULL) < 0 && strstr(j.diag.msg, "<4 x float>"), "PackSnorm4x8(vec2): %s",
          j.diag.msg);
    if (!jt_compile(&j))
        goto out;
    uint64_t seed = 4;
    for (int it = 0; it < 64; it++) {
        float v[4];
        uint32_t p = (uint32_t)test_rand_u64(&seed), got;
        for (int i = 0; i < 4; i++)
            v[i] = test_rand_float(&seed, -1.3f, 1.3f);
        kern_fn f;
        for (int k = 0; k < 5; k++) {
            if (!(f = jt_fn(&j, fns[k])))
                continue;
            f(v, NULL, NULL, NULL, &got, NULL);
            uint32_t want = 0;
            for (int i = 0; i < (k < 2 ? 4 : 2); i++) {
                double c = v[i];
                uint32_t e;
                switch (k) {
                case 0:
                    e = (uint32_t)(int32_t)round(fmin(fmax(c, -1), 1) * 127) & 0xff;
                    break;
                case 1:
                    e = (uint32_t)round(fmin(fmax(c, 0), 1) * 255);
                    break;
                case 2:
                    e = (uint32_t)(int32_t)round(fmin(fmax(c, -1), 1) * 32767) & 0xffff;
                    break;
                case 3:
                    e = (uint32_t)round(fmin(fmax(c, 0), 1) * 65535);
                    break;
                default:
                    e = d2h(c, RTE);
                    break;
                }
                want |= e << (k < 2 ? 8 * i : 16 * i);
            }
            CHECK(got == want, "%s(%g, %g, %g, %g) = %#x, expected %#x", inst_name(GL, pk[k].inst), v[0], v[1], v[2],
                  v[3], got, want);
        }
        uint32_t two[2] = { (uint32_t)test_rand_u64(&seed), (uint32_t)test_rand_u64(&seed) };
        double dd, wantd;
        memcpy(&wantd, two, 8);
        if ((f = jt_fn(&j, fns[5]))) {
            f(two, NULL, NULL, NULL, &dd, NULL);
            CHECK(!memcmp(&dd, &wantd, 8), "PackDouble2x32");
        }
        float o[4];
        for (int k = 6; k < 11; k++) {
            if (!(f = jt_fn(&j, fns[k])))
                continue;
            f(&p, NULL, NULL, NULL, o, NULL);
            for (int i = 0; i < (k >= 9 ? 4 : 2); i++) {
                double want;
                uint32_t e16 = (uint32_t)(((uint64_t)p >> (16 * i)) & 0xffff), e8 = (p >> (8 * i)) & 0xff;
                switch (k) {
                case 6:
                    want = fmax((int16_t)e16 / 32767.0, -1);
                    break;
                case 7:
                    want = e16 / 65535.0;
                    break;
                case 8:
                    want = h2d((uint16_t)e16);
                    break;
                case 9:
                    want = fmax((int8_t)e8 / 127.0, -1);
                    break;
                default:
                    want = e8 / 255.0;
                    break;
                }
                CHECK(isnan(want) ? isnan(o[i]) : o[i] == (float)want, "%s(%#x) lane %d = %a, expected %a",
                      inst_name(GL, pk[k].inst), p, i, o[i], (float)want);
            }
        }
        if ((f = jt_fn(&j, fns[11]))) {
            uint32_t back[2];
            f(&wantd, NULL, NULL, NULL, back, NULL);
            CHECK(back[0] == two[0] && back[1] == two[1], "UnpackDouble2x32");
        }
    }
out:
    jt_end(&j);
}

/* ---------------------------------------------------------------------------------------------
 * printf through the runtime, into the work-group context's stream
 * ------------------------------------------------------------------------------------------- */

TEST_TIER_FREE(extinst_opencl_printf)
{
    jt j;
    jt_begin(&j);
    const char *fmt = "i=%d u=%u x=%#hhx h=%hd l=%ld f=%.3f e=%e v=%v4hlf vi=%v3hd s=%s c=%c w=%*d|%-5.1v2f| %% end\n";
    LLVMTypeRef ptr = LLVMPointerTypeInContext(j.ctx, 0);
    argspec a[16] = {
        { A_PTR, ty_int(&j, 8, 0), 0 },
        { A_VAL, ty_int(&j, 32, 0), 0 },
        { A_VAL, ty_int(&j, 32, 0), 0 },
        { A_VAL, ty_int(&j, 8, 0), 0 },
        { A_VAL, ty_int(&j, 16, 0), 0 },
        { A_VAL, ty_int(&j, 64, 0), 0 },
        { A_VAL, ty_fp(&j, 32, 0), 0 },
        { A_VAL, ty_fp(&j, 64, 0), 0 },
        { A_VAL, ty_fp(&j, 32, 4), 0 },
        { A_VAL, ty_int(&j, 16, 3), 0 },
        { A_VAL, ptr, 0 },
        { A_VAL, ty_int(&j, 32, 0), 0 },
        { A_VAL, ty_int(&j, 32, 0), 0 },
        { A_VAL, ty_int(&j, 32, 0), 0 },
        { A_VAL, ty_fp(&j, 16, 2), 0 },
    };
    /* operands past the 4th come from a3 + 64 * (i - 3): one packed block */
    int fn = jt_add(&j, CL, 184, a, 15, ty_int(&j, 32, 0), fmt);
    REQUIRE(fn >= 0, "printf lowering: %s", j.diag.msg);
    if (!jt_compile(&j)) {
        jt_end(&j);
        return;
    }
    kern_fn f = jt_fn(&j, fn);
    FILE *tmp = tmpfile();
    REQUIRE(tmp && f, "tmpfile");
    _Alignas(16) unsigned char block[64 * 12];
    memset(block, 0, sizeof block);
    int32_t i1 = -5, u1 = (int32_t)4000000000u;
    int8_t x1 = (int8_t)0xab;
    int16_t h1 = -1234, vi[3] = { -1, 2, -300 };
    int64_t l1 = -1234567890123ll;
    float f1 = 3.14159f, v4[4] = { 1.5f, -2.25f, 0.125f, 1e3f };
    double e1 = 1e-5;
    const char *str = "a constant string";
    int32_t c1 = 'Z', w1 = 6, d1 = 42;
    uint16_t hv[2] = { d2h(1.5, RTE), d2h(-0.25, RTE) };
    /* a3 holds operand 3 (x1); operand i > 3 lives at a3 + 64 * (i - 3) */
    memcpy(block, &x1, 1);
    memcpy(block + 64 * 1, &h1, 2);
    memcpy(block + 64 * 2, &l1, 8);
    memcpy(block + 64 * 3, &f1, 4);
    memcpy(block + 64 * 4, &e1, 8);
    memcpy(block + 64 * 5, v4, 16);
    memcpy(block + 64 * 6, vi, 6);
    memcpy(block + 64 * 7, &str, sizeof str);
    memcpy(block + 64 * 8, &c1, 4);
    memcpy(block + 64 * 9, &w1, 4);
    memcpy(block + 64 * 10, &d1, 4);
    memcpy(block + 64 * 11, hv, 4);
    spvjit_wg_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.printf_stream = tmp;
    int32_t ret = 99;
    f((void *)fmt, &i1, &u1, block, &ret, &ctx);
    fflush(tmp);
    char got[512] = "";
    rewind(tmp);
    size_t n = fread(got, 1, sizeof got - 1, tmp);
    got[n] = 0;
    fclose(tmp);
    char want[512];
    snprintf(want, sizeof want,
             "i=%d u=%u x=%#hhx h=%hd l=%ld f=%.3f e=%e v=%f,%f,%f,%f vi=%hd,%hd,%hd s=%s c=%c w=%*d|%-5.1f,%-5.1f| %% "
             "end\n",
             i1, (unsigned)u1, (unsigned char)x1, h1, (long)l1, f1, e1, v4[0], v4[1], v4[2], v4[3], vi[0], vi[1], vi[2],
             str, c1, w1, d1, 1.5, -0.25);
    CHECK(!strcmp(got, want), "printf wrote\n  \"%s\", expected\n  \"%s\"", got, want);
    CHECK(ret == 0, "printf returned %d", ret);
    jt_end(&j);
}

/* The format parser shared by the lowering and the runtime. */
TEST_TIER_FREE(extinst_printf_parser)
{
    rt_printf_spec s;
    size_t pos = 0;
    const char *why = NULL;
    CHECK(rt_printf_parse("ab %-08.3v4hlx", &pos, &s, &why) == 1 && s.conv == 'x' && s.vec == 4 && s.int_bits == 32 &&
              s.width == 8 && s.prec == 3 && !strcmp(s.flags, "-0") && s.start == 3,
          "vector spec");
    pos = 0;
    CHECK(rt_printf_parse("%hlx", &pos, &s, &why) == -1 && strstr(why, "hl"), "hl without a vector");
    pos = 0;
    CHECK(rt_printf_parse("%v3s", &pos, &s, &why) == -1, "%%v3s");
    pos = 0;
    CHECK(rt_printf_parse("100%", &pos, &s, &why) == -1 && strstr(why, "ends"), "trailing %%");
    pos = 0;
    CHECK(rt_printf_parse("no conversions", &pos, &s, &why) == 0, "plain text");
}
