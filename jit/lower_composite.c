/* jit/lower_composite.c — composites (construct, extract, insert, dynamic
 * vector access, shuffles, copies) and the matrix/vector products.
 * Matrices are LLVM arrays of column vectors. */
#include "lower_ctx.h"

#include <stdlib.h>

static LLVMValueRef idx32(lower_ctx *c, unsigned i)
{
    return LLVMConstInt(c->t_i32, i, 0);
}

/* A dynamic component index kept in range (out of range is undefined in SPIR-V,
 * poison in LLVM): out-of-range indices read/write component 0. */
static LLVMValueRef safe_index(lower_ctx *c, LLVMValueRef idx, unsigned n)
{
    LLVMValueRef i64 = jit_int_cast(c, idx, c->t_i64, false);
    LLVMValueRef ok = LLVMBuildICmp(c->b, LLVMIntULT, i64, LLVMConstInt(c->t_i64, n, 0), "");
    return LLVMBuildSelect(c->b, ok, i64, LLVMConstInt(c->t_i64, 0, 0), "");
}

/* OpenCL C's work-item functions give 1 (sizes, counts) or 0 (ids, offsets)
 * for a dimension index out of range; llvm-spirv lowers them to
 * OpVectorExtractDynamic of the built-in vector, whose out-of-range result
 * SPIR-V leaves undefined.  Returns that default for a vector loaded from
 * such a built-in, or -1. */
static int workitem_default(lower_ctx *c, uint32_t vec_id)
{
    const spv_inst *ld = spv_def(c->m, vec_id);
    if (!c->kernel || !ld || ld->opcode != SpvOpLoad)
        return -1;
    const spv_decoration *d = spv_find_decoration(c->m, spv_inst_op(ld, 0), -1, SpvDecorationBuiltIn);
    if (!d || !d->nargs)
        return -1;
    switch (d->args[0]) {
    case SpvBuiltInGlobalSize:
    case SpvBuiltInWorkgroupSize:
    case SpvBuiltInNumWorkgroups:
    case SpvBuiltInEnqueuedWorkgroupSize:
        return 1;
    case SpvBuiltInGlobalInvocationId:
    case SpvBuiltInLocalInvocationId:
    case SpvBuiltInWorkgroupId:
    case SpvBuiltInGlobalOffset:
        return 0;
    default:
        return -1;
    }
}

static LLVMValueRef extract_path(lower_ctx *c, LLVMValueRef v, const spv_inst *in, uint32_t first)
{
    for (uint32_t i = first; i < spv_inst_nops(in); i++) {
        uint32_t k = spv_inst_op(in, i);
        LLVMTypeRef t = LLVMTypeOf(v);
        if (LLVMGetTypeKind(t) == LLVMVectorTypeKind)
            v = LLVMBuildExtractElement(c->b, v, idx32(c, k), "");
        else
            v = LLVMBuildExtractValue(c->b, v, k, "");
    }
    return v;
}

static LLVMValueRef insert_path(lower_ctx *c, LLVMValueRef agg, LLVMValueRef obj, const spv_inst *in, uint32_t i)
{
    if (i >= spv_inst_nops(in))
        return obj;
    uint32_t k = spv_inst_op(in, i);
    bool vec = LLVMGetTypeKind(LLVMTypeOf(agg)) == LLVMVectorTypeKind;
    LLVMValueRef inner =
        vec ? LLVMBuildExtractElement(c->b, agg, idx32(c, k), "") : LLVMBuildExtractValue(c->b, agg, k, "");
    LLVMValueRef nv = insert_path(c, inner, obj, in, i + 1);
    return vec ? LLVMBuildInsertElement(c->b, agg, nv, idx32(c, k), "") : LLVMBuildInsertValue(c->b, agg, nv, k, "");
}

static LLVMValueRef shuffle(lower_ctx *c, const spv_inst *in, LLVMValueRef a, LLVMValueRef b)
{
    LLVMTypeRef t = jit_type(c, in->type_id);
    if (!t)
        return NULL;
    unsigned na = LLVMGetVectorSize(LLVMTypeOf(a)), nb = LLVMGetVectorSize(LLVMTypeOf(b));
    LLVMValueRef r = LLVMConstNull(t);
    for (uint32_t i = 2; i < spv_inst_nops(in); i++) {
        uint32_t k = spv_inst_op(in, i);
        LLVMValueRef e;
        if (k == 0xFFFFFFFFu || k >= na + nb)
            e = LLVMConstNull(LLVMGetElementType(t)); /* undefined lane */
        else if (k < na)
            e = LLVMBuildExtractElement(c->b, a, idx32(c, k), "");
        else
            e = LLVMBuildExtractElement(c->b, b, idx32(c, k - na), "");
        r = LLVMBuildInsertElement(c->b, r, e, idx32(c, i - 2), "");
    }
    return r;
}

int jit_lower_composite(lower_ctx *c, const spv_inst *in)
{
    LLVMValueRef v[3], r = NULL;
    switch (in->opcode) {
    case SpvOpCompositeConstruct: {
        uint32_t n = spv_inst_nops(in);
        LLVMValueRef *p = jit_alloc(c, n + 1, sizeof *p);
        if (jit_operands(c, in, p, n) || !(r = jit_build_composite(c, in->type_id, p, n)))
            return -1;
        break;
    }
    case SpvOpCompositeExtract:
        if (jit_operands(c, in, v, 1))
            return -1;
        r = extract_path(c, v[0], in, 1);
        break;
    case SpvOpCompositeInsert:
        if (jit_operands(c, in, v, 2))
            return -1;
        r = insert_path(c, v[1], v[0], in, 2);
        break;
    case SpvOpVectorExtractDynamic: {
        if (jit_operands(c, in, v, 2))
            return -1;
        unsigned n = LLVMGetVectorSize(LLVMTypeOf(v[0]));
        r = LLVMBuildExtractElement(c->b, v[0], safe_index(c, v[1], n), "");
        int dflt = workitem_default(c, spv_inst_op(in, 0));
        if (dflt >= 0) {
            LLVMValueRef ok = LLVMBuildICmp(c->b, LLVMIntULT, jit_int_cast(c, v[1], c->t_i64, false),
                                            LLVMConstInt(c->t_i64, n, 0), "");
            r = LLVMBuildSelect(c->b, ok, r, LLVMConstInt(LLVMTypeOf(r), (unsigned long long)dflt, 0), "");
        }
        break;
    }
    case SpvOpVectorInsertDynamic:
        if (jit_operands(c, in, v, 3))
            return -1;
        r = LLVMBuildInsertElement(c->b, v[0], v[1], safe_index(c, v[2], LLVMGetVectorSize(LLVMTypeOf(v[0]))), "");
        break;
    case SpvOpVectorShuffle:
        if (jit_operands(c, in, v, 2))
            return -1;
        if (!(r = shuffle(c, in, v[0], v[1])))
            return -1;
        break;
    case SpvOpCopyObject:
    case SpvOpCopyLogical:
    case SpvOpExpectKHR:
        if (jit_operands(c, in, v, 1))
            return -1;
        r = v[0];
        break;
    default:
        return jit_fail_inst(c, in, "not a composite instruction");
    }
    jit_set(c, in->result_id, r);
    return 0;
}

/* --- matrices ------------------------------------------------------------- */

static unsigned ncols(LLVMValueRef m)
{
    return LLVMGetArrayLength2(LLVMTypeOf(m));
}
static LLVMValueRef col(lower_ctx *c, LLVMValueRef m, unsigned i)
{
    return LLVMBuildExtractValue(c->b, m, i, "");
}

/* Sum of v[i] * s_i as a sequential chain (no reassociation). */
static LLVMValueRef dot(lower_ctx *c, LLVMValueRef a, LLVMValueRef b)
{
    LLVMValueRef p = LLVMBuildFMul(c->b, a, b, "");
    unsigned n = LLVMGetVectorSize(LLVMTypeOf(a));
    LLVMValueRef s = LLVMBuildExtractElement(c->b, p, idx32(c, 0), "");
    for (unsigned i = 1; i < n; i++)
        s = LLVMBuildFAdd(c->b, s, LLVMBuildExtractElement(c->b, p, idx32(c, i), ""), "");
    return s;
}

/* M × v: sum over columns of column * v[c]. */
static LLVMValueRef mat_vec(lower_ctx *c, LLVMValueRef m, LLVMValueRef v)
{
    LLVMValueRef r = NULL;
    for (unsigned i = 0; i < ncols(m); i++) {
        LLVMValueRef cl = col(c, m, i);
        LLVMValueRef s = jit_splat(c, LLVMBuildExtractElement(c->b, v, idx32(c, i), ""), LLVMTypeOf(cl));
        LLVMValueRef p = LLVMBuildFMul(c->b, cl, s, "");
        r = r ? LLVMBuildFAdd(c->b, r, p, "") : p;
    }
    return r;
}

static LLVMValueRef matrix_op(lower_ctx *c, const spv_inst *in, LLVMValueRef *v)
{
    LLVMTypeRef rt = jit_type(c, in->type_id);
    if (!rt)
        return NULL;
    LLVMValueRef r = LLVMConstNull(rt);
    switch (in->opcode) {
    case SpvOpVectorTimesScalar:
        return LLVMBuildFMul(c->b, v[0], jit_splat(c, v[1], LLVMTypeOf(v[0])), "");
    case SpvOpMatrixTimesScalar:
        for (unsigned i = 0; i < ncols(v[0]); i++) {
            LLVMValueRef cl = col(c, v[0], i);
            r = LLVMBuildInsertValue(c->b, r, LLVMBuildFMul(c->b, cl, jit_splat(c, v[1], LLVMTypeOf(cl)), ""), i, "");
        }
        return r;
    case SpvOpMatrixTimesVector:
        return mat_vec(c, v[0], v[1]);
    case SpvOpVectorTimesMatrix:
        for (unsigned i = 0; i < ncols(v[1]); i++)
            r = LLVMBuildInsertElement(c->b, r, dot(c, v[0], col(c, v[1], i)), idx32(c, i), "");
        return r;
    case SpvOpMatrixTimesMatrix:
        for (unsigned i = 0; i < ncols(v[1]); i++)
            r = LLVMBuildInsertValue(c->b, r, mat_vec(c, v[0], col(c, v[1], i)), i, "");
        return r;
    case SpvOpOuterProduct:
        for (unsigned i = 0; i < LLVMGetArrayLength2(rt); i++) {
            LLVMValueRef s = LLVMBuildExtractElement(c->b, v[1], idx32(c, i), "");
            r = LLVMBuildInsertValue(c->b, r, LLVMBuildFMul(c->b, v[0], jit_splat(c, s, LLVMTypeOf(v[0])), ""), i, "");
        }
        return r;
    case SpvOpTranspose: {
        unsigned rows = LLVMGetVectorSize(LLVMTypeOf(col(c, v[0], 0)));
        for (unsigned i = 0; i < rows; i++) {
            LLVMValueRef nc = LLVMConstNull(LLVMGetElementType(rt));
            for (unsigned j = 0; j < ncols(v[0]); j++) {
                LLVMValueRef e = LLVMBuildExtractElement(c->b, col(c, v[0], j), idx32(c, i), "");
                nc = LLVMBuildInsertElement(c->b, nc, e, idx32(c, j), "");
            }
            r = LLVMBuildInsertValue(c->b, r, nc, i, "");
        }
        return r;
    }
    case SpvOpDot:
        return dot(c, v[0], v[1]);
    default:
        jit_fail_inst(c, in, "not a matrix instruction");
        return NULL;
    }
}

int jit_lower_matrix(lower_ctx *c, const spv_inst *in)
{
    LLVMValueRef v[2];
    if (jit_operands(c, in, v, in->opcode == SpvOpTranspose ? 1 : 2))
        return -1;
    LLVMValueRef r = matrix_op(c, in, v);
    if (!r)
        return -1;
    jit_fp_flags(c, in->result_id, r);
    jit_set(c, in->result_id, r);
    return 0;
}
