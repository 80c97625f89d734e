/* jit/extinst.h — lowering of extended instruction sets (GLSL.std.450, OpenCL.std).
 *
 * These lowerings work on LLVM values only: the caller (the OpExtInst case of
 * the instruction lowering) has already turned the SPIR-V operands into LLVM
 * values and the result type into an LLVM type (both sets name signedness in
 * the instruction itself: SAbs/UMin, s_abs/u_min).  That keeps the extended
 * sets independent of the module model.
 *
 * Operand conventions:
 *  - scalars and vectors are LLVM scalars and vectors (half/float/double, iN);
 *  - a SPIR-V matrix of C columns of R-component vectors is an LLVM array of
 *    column vectors, [C x <R x T>] (Determinant, MatrixInverse);
 *  - pointer operands are LLVM pointers, with pointee_types[i] set; stores
 *    through them assume only element alignment;
 *  - literal operands (vloadn's n, vstore_half_r's FPRoundingMode) are i32
 *    constants (LLVMConstInt);
 *  - OpenCL printf calls `int spvjit_rt_printf(void *stream, const char *fmt, ...)`
 *    (jit/rt_printf.h); the JIT must resolve that symbol (e.g. define it as an
 *    absolute symbol: executables are not linked with -rdynamic).  libm
 *    functions are called by their C names (acosf, lgamma_r, exp10, ...).
 */
#ifndef SPVJIT_JIT_EXTINST_H
#define SPVJIT_JIT_EXTINST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <llvm-c/Core.h>

#include "spirv/diag.h"

typedef struct ext_lower_ctx {
    LLVMContextRef ctx;
    LLVMModuleRef mod;
    LLVMBuilderRef b;        /* positioned where the result must be computed */
    LLVMTypeRef result_type; /* LLVM type of the OpExtInst result (void for vstore/printf) */
    /* For pointer operands (OpenCL vload/vstore/frexp/modf/sincos/remquo/fract/lgamma_r,
     * GLSL modf/frexp): the LLVM type of the pointee, indexed like args; NULL otherwise. */
    LLVMTypeRef const *pointee_types;
    /* OpenCL printf: the format string's bytes (constant, NUL-terminated), else NULL. */
    const char *printf_format;
    /* The work-group context pointer (for printf's output stream), may be NULL. */
    LLVMValueRef wg_ctx;
} ext_lower_ctx;

/* Each returns the result value (for void instructions: any non-NULL value,
 * e.g. the last store), or NULL with diag filled when the instruction number
 * is unknown or the operands do not fit ("GLSL.std.450 instruction 81: ..."). */
LLVMValueRef lower_glsl450(ext_lower_ctx *c, uint32_t inst, LLVMValueRef *args, unsigned nargs, spv_diag *diag);
LLVMValueRef lower_opencl_std(ext_lower_ctx *c, uint32_t inst, LLVMValueRef *args, unsigned nargs, spv_diag *diag);

#endif
