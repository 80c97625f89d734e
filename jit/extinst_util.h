/* jit/extinst_util.h — helpers shared by the GLSL.std.450 and OpenCL.std lowerings.
 *
 * Everything works on "shapes": a scalar or a vector of half/float/double or
 * integers.  Arithmetic helpers accept either shape and emit whole-vector IR;
 * only calls into libm are scalarized (one call per lane), because libm has no
 * vector entry points.  Half values go through float for libm calls (libm has
 * no half functions; every half is exact in float, so one final rounding).
 */
#ifndef SPVJIT_JIT_EXTINST_UTIL_H
#define SPVJIT_JIT_EXTINST_UTIL_H

#include "jit/extinst.h"

/* --- instruction names (for messages; the tests check them against the grammar) --- */
/* Name and operand count of an instruction, NULL when the number is not in the set.
 * *variadic is set for printf (its count is then the minimum). */
const char *xi_glsl450_info(uint32_t inst, unsigned *nargs);
const char *xi_opencl_info(uint32_t inst, unsigned *nargs, bool *variadic);

/* Fills diag with "GLSL.std.450 <Name> (instruction N): <why>" (or OpenCL.std's)
 * and returns NULL. */
typedef enum { XI_GLSL450, XI_OPENCL } xi_set;
LLVMValueRef xi_fail(spv_diag *diag, xi_set set, uint32_t inst, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* --- shapes -------------------------------------------------------------------------- */
LLVMTypeRef xi_elem(LLVMTypeRef t);                          /* element of a vector, else t itself */
unsigned xi_lanes(LLVMTypeRef t);                            /* vector width, 0 for a scalar */
bool xi_is_fp(LLVMTypeRef t);                                /* half/float/double scalar or vector */
bool xi_is_int(LLVMTypeRef t);                               /* integer scalar or vector */
unsigned xi_fp_bits(LLVMTypeRef t);                          /* 16/32/64 for fp shapes, else 0 */
unsigned xi_int_bits(LLVMTypeRef t);                         /* element width of an int shape */
LLVMTypeRef xi_reshape(LLVMTypeRef shape, LLVMTypeRef elem); /* elem with shape's lanes */
LLVMTypeRef xi_int_like(LLVMTypeRef fp_shape);               /* iN of the same width/lanes */
/* Short human description of a type for messages ("<4 x float>"); static buffer ring. */
const char *xi_type_str(LLVMTypeRef t);

/* --- constants and simple IR --------------------------------------------------------- */
LLVMValueRef xi_fconst(ext_lower_ctx *c, LLVMTypeRef t, double v);
LLVMValueRef xi_iconst(ext_lower_ctx *c, LLVMTypeRef t, int64_t v);
LLVMValueRef xi_splat(ext_lower_ctx *c, LLVMValueRef v, LLVMTypeRef like);  /* scalar → like's lanes */
LLVMValueRef xi_fpcast(ext_lower_ctx *c, LLVMValueRef v, LLVMTypeRef elem); /* fpext/fptrunc lanes */
LLVMValueRef xi_intcast(ext_lower_ctx *c, LLVMValueRef v, LLVMTypeRef elem, bool is_signed);
LLVMValueRef xi_select(ext_lower_ctx *c, LLVMValueRef cond, LLVMValueRef a, LLVMValueRef b);
LLVMValueRef xi_fcmp(ext_lower_ctx *c, LLVMRealPredicate p, LLVMValueRef a, LLVMValueRef b);
LLVMValueRef xi_entry_alloca(ext_lower_ctx *c, LLVMTypeRef t);
/* Stores v through an operand pointer, assuming only element alignment (the
 * pointer may address a packed buffer, not a whole-vector-aligned slot). */
LLVMValueRef xi_store_out(ext_lower_ctx *c, LLVMValueRef v, LLVMValueRef ptr);
LLVMValueRef xi_extract_lane(ext_lower_ctx *c, LLVMValueRef v, unsigned i); /* scalar: v */

/* --- calls ----------------------------------------------------------------------------- */
/* An overloaded LLVM intrinsic; `over` are its overload types. */
LLVMValueRef xi_intrin(ext_lower_ctx *c, const char *name, LLVMTypeRef *over, unsigned nover, LLVMValueRef *args,
                       unsigned nargs);
LLVMValueRef xi_intrin1(ext_lower_ctx *c, const char *name, LLVMValueRef x); /* over x's type */
LLVMValueRef xi_intrin2(ext_lower_ctx *c, const char *name, LLVMValueRef x, LLVMValueRef y);
LLVMValueRef xi_intrin3(ext_lower_ctx *c, const char *name, LLVMValueRef x, LLVMValueRef y, LLVMValueRef z);
/* A libm function named for double ("acos"; "acosf" is used for float, half goes
 * through float), element-wise over the lanes of args (all of args[0]'s fp shape). */
LLVMValueRef xi_libm(ext_lower_ctx *c, const char *dname, LLVMValueRef *args, unsigned nargs);
LLVMValueRef xi_libm1(ext_lower_ctx *c, const char *dname, LLVMValueRef x);
LLVMValueRef xi_libm2(ext_lower_ctx *c, const char *dname, LLVMValueRef x, LLVMValueRef y);

/* --- float math shared by both sets (x of any fp shape) ------------------------------- */
LLVMValueRef xi_isnan(ext_lower_ctx *c, LLVMValueRef x);
LLVMValueRef xi_isinf(ext_lower_ctx *c, LLVMValueRef x);
LLVMValueRef xi_fabs(ext_lower_ctx *c, LLVMValueRef x);
LLVMValueRef xi_copysign(ext_lower_ctx *c, LLVMValueRef mag, LLVMValueRef sgn);
/* lane 0 op lane 1 op ... (in lane order); a scalar is itself */
LLVMValueRef xi_fold_lanes(ext_lower_ctx *c, LLVMValueRef v, LLVMOpcode op);
LLVMValueRef xi_dot(ext_lower_ctx *c, LLVMValueRef a, LLVMValueRef b);   /* scalar result */
LLVMValueRef xi_length_naive(ext_lower_ctx *c, LLVMValueRef x);          /* sqrt(dot(x,x)) */
LLVMValueRef xi_cross(ext_lower_ctx *c, LLVMValueRef a, LLVMValueRef b); /* 3 or 4 lanes */
LLVMValueRef xi_fclamp(ext_lower_ctx *c, LLVMValueRef x, LLVMValueRef lo, LLVMValueRef hi);
LLVMValueRef xi_mix(ext_lower_ctx *c, LLVMValueRef x, LLVMValueRef y, LLVMValueRef a);
LLVMValueRef xi_step(ext_lower_ctx *c, LLVMValueRef edge, LLVMValueRef x);
LLVMValueRef xi_smoothstep(ext_lower_ctx *c, LLVMValueRef e0, LLVMValueRef e1, LLVMValueRef x);
LLVMValueRef xi_fsign(ext_lower_ctx *c, LLVMValueRef x, bool nan_to_zero);
LLVMValueRef xi_scale(ext_lower_ctx *c, LLVMValueRef x, double k); /* x * k (degrees, radians) */
/* modf: returns the fraction (sign of x, 0 for ±inf), *whole = trunc(x). */
LLVMValueRef xi_modf(ext_lower_ctx *c, LLVMValueRef x, LLVMValueRef *whole);
/* frexp: returns the mantissa in [0.5,1), *exp its exponent as exp_elem lanes (0 for 0/inf/nan). */
LLVMValueRef xi_frexp(ext_lower_ctx *c, LLVMValueRef x, LLVMTypeRef exp_elem, LLVMValueRef *exp);
/* ldexp with an integer exponent of any width (scalar exponents are splatted). */
LLVMValueRef xi_ldexp(ext_lower_ctx *c, LLVMValueRef x, LLVMValueRef k);

#endif
