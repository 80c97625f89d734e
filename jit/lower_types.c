/* jit/lower_types.c — SPIR-V types as LLVM value types, and their memory layout.
 *
 * Values: bool → i1, intN → iN, floatN → half/float/double, vectors → LLVM
 * vectors, matrices → arrays of column vectors, arrays → LLVM arrays, structs →
 * literal structs, pointers → ptr (one address space: the CPU has one).
 * Memory: the explicit layout (Offset / ArrayStride / MatrixStride / RowMajor)
 * where decorated, else the natural OpenCL C layout (3-component vectors are
 * sized and aligned as 4 in Kernel modules).  Addresses are byte offsets, so
 * LLVM's own struct layout never decides where a member is.
 */
#include "lower_ctx.h"

#include <stdlib.h>

static uint64_t round_up(uint64_t v, uint64_t a)
{
    return a ? (v + a - 1) / a * a : v;
}

const spv_type *jit_spv_type(lower_ctx *c, uint32_t id)
{
    const spv_type *t = spv_type_get(c->m, id);
    if (!t)
        jit_fail(c, "id %u is not a type", id);
    return t;
}

static uint64_t sext(uint64_t v, uint32_t w)
{
    if (w >= 64 || w == 0)
        return v;
    uint64_t sign = 1ull << (w - 1), mask = (1ull << w) - 1;
    v &= mask;
    return (v ^ sign) - sign;
}

static uint32_t scalar_width(lower_ctx *c, uint32_t type_id)
{
    const spv_type *t = spv_type_get(c->m, type_id);
    if (!t)
        return 64;
    if (t->kind == SPV_TYPE_BOOL)
        return 1;
    return t->width ? t->width : 64;
}

/* The compile-time value of a spec constant: a shape value, else its default. */
static uint64_t spec_shape_value(lower_ctx *c, const spv_id *d)
{
    if (d->spec_id != SPV_NONE)
        for (size_t i = 0; i < c->nshape; i++)
            if (c->shape[i].spec_id == d->spec_id)
                return c->shape[i].bits;
    return d->scalar;
}

/* Integer OpSpecConstantOp folding for shapes (array lengths, LocalSizeId). */
static bool eval_spec_op(lower_ctx *c, const spv_inst *in, uint64_t *out)
{
    uint32_t op = spv_inst_op(in, 0), n = spv_inst_nops(in) - 1;
    uint64_t a[3] = { 0, 0, 0 };
    uint32_t aw = 64;
    for (uint32_t i = 0; i < n && i < 3; i++) {
        uint32_t id = spv_inst_op(in, 1 + i);
        if (!jit_shape_u64(c, id, &a[i]))
            return false;
        if (i == 0 && spv_id_get(c->m, id))
            aw = scalar_width(c, spv_id_get(c->m, id)->type_id);
    }
    uint32_t w = scalar_width(c, in->type_id);
    uint64_t mask = w >= 64 ? ~0ull : (1ull << w) - 1;
    int64_t sa = (int64_t)sext(a[0], aw), sb = (int64_t)sext(a[1], aw);
    uint64_t r;
    switch (op) {
    case SpvOpIAdd:
        r = a[0] + a[1];
        break;
    case SpvOpISub:
        r = a[0] - a[1];
        break;
    case SpvOpIMul:
        r = a[0] * a[1];
        break;
    case SpvOpUDiv:
        r = a[1] ? (a[0] & mask) / (a[1] & mask) : 0;
        break;
    case SpvOpUMod:
        r = a[1] ? (a[0] & mask) % (a[1] & mask) : 0;
        break;
    case SpvOpSDiv:
        r = (sb == 0 || (sb == -1 && sa == INT64_MIN)) ? 0 : (uint64_t)(sa / sb);
        break;
    case SpvOpSRem:
        r = (sb == 0 || sb == -1) ? 0 : (uint64_t)(sa % sb);
        break;
    case SpvOpSMod: {
        int64_t m = (sb == 0 || sb == -1) ? 0 : sa % sb;
        if (m && ((m < 0) != (sb < 0)))
            m += sb;
        r = (uint64_t)m;
        break;
    }
    case SpvOpShiftLeftLogical:
        r = a[0] << (a[1] & 63);
        break;
    case SpvOpShiftRightLogical:
        r = (a[0] & mask) >> (a[1] & 63);
        break;
    case SpvOpShiftRightArithmetic:
        r = (uint64_t)(sa >> (a[1] & 63));
        break;
    case SpvOpBitwiseOr:
    case SpvOpLogicalOr:
        r = a[0] | a[1];
        break;
    case SpvOpBitwiseAnd:
    case SpvOpLogicalAnd:
        r = a[0] & a[1];
        break;
    case SpvOpBitwiseXor:
    case SpvOpLogicalNotEqual:
        r = a[0] ^ a[1];
        break;
    case SpvOpLogicalEqual:
        r = a[0] == a[1];
        break;
    case SpvOpNot:
        r = ~a[0];
        break;
    case SpvOpLogicalNot:
        r = !a[0];
        break;
    case SpvOpSNegate:
        r = -a[0];
        break;
    case SpvOpUConvert:
        r = a[0] & (aw >= 64 ? ~0ull : (1ull << aw) - 1);
        break;
    case SpvOpSConvert:
        r = (uint64_t)sa;
        break;
    case SpvOpSelect:
        r = a[0] ? a[1] : a[2];
        break;
    case SpvOpIEqual:
        r = (a[0] & mask) == (a[1] & mask);
        break;
    case SpvOpINotEqual:
        r = a[0] != a[1];
        break;
    case SpvOpULessThan:
        r = a[0] < a[1];
        break;
    case SpvOpULessThanEqual:
        r = a[0] <= a[1];
        break;
    case SpvOpUGreaterThan:
        r = a[0] > a[1];
        break;
    case SpvOpUGreaterThanEqual:
        r = a[0] >= a[1];
        break;
    case SpvOpSLessThan:
        r = sa < sb;
        break;
    case SpvOpSLessThanEqual:
        r = sa <= sb;
        break;
    case SpvOpSGreaterThan:
        r = sa > sb;
        break;
    case SpvOpSGreaterThanEqual:
        r = sa >= sb;
        break;
    default:
        jit_fail(c,
                 "%%%u: OpSpecConstantOp with opcode %u cannot be evaluated at compile time "
                 "(it shapes a type or the work-group size)",
                 in->result_id, op);
        return false;
    }
    *out = r & mask;
    return true;
}

bool jit_shape_u64(lower_ctx *c, uint32_t id, uint64_t *out)
{
    const spv_id *d = spv_id_get(c->m, id);
    if (!d) {
        jit_fail(c, "id %u is out of range", id);
        return false;
    }
    if (d->kind == SPV_ID_CONSTANT && !d->is_composite) {
        *out = d->is_null ? 0 : d->scalar;
        return true;
    }
    if (d->kind == SPV_ID_SPEC_CONSTANT && !d->is_composite) {
        const spv_inst *in = spv_def(c->m, id);
        if (in && in->opcode == SpvOpSpecConstantOp)
            return eval_spec_op(c, in, out);
        *out = spec_shape_value(c, d);
        return true;
    }
    jit_fail(c, "%%%u: expected a scalar integer constant", id);
    return false;
}

bool jit_array_length(lower_ctx *c, const spv_type *t, uint64_t *len)
{
    if (t->count) {
        *len = t->count;
        return true;
    }
    if (!t->length_id) {
        *len = 0;
        return true;
    }
    return jit_shape_u64(c, t->length_id, len);
}

uint32_t jit_member_mat_info(lower_ctx *c, uint32_t struct_id, uint32_t member)
{
    const spv_decoration *s = spv_find_decoration(c->m, struct_id, (int32_t)member, SpvDecorationMatrixStride);
    const spv_decoration *r = spv_find_decoration(c->m, struct_id, (int32_t)member, SpvDecorationRowMajor);
    uint32_t v = (s && s->nargs) ? s->args[0] : 0;
    if (r)
        v |= JIT_MAT_ROW_MAJOR;
    return v;
}

/* The layout size of a member, which for matrices depends on the member's decorations. */
static uint64_t member_size(lower_ctx *c, uint32_t member_type, uint32_t mat)
{
    const spv_type *t = spv_type_get(c->m, member_type);
    const jit_layout *l = jit_layout_of(c, member_type);
    if (!l)
        return 0;
    if (t && t->kind == SPV_TYPE_MATRIX && (mat & ~JIT_MAT_ROW_MAJOR)) {
        const spv_type *col = spv_type_get(c->m, t->elem);
        uint64_t stride = mat & ~JIT_MAT_ROW_MAJOR;
        uint64_t n = (mat & JIT_MAT_ROW_MAJOR) ? col->count : t->count;
        return n * stride;
    }
    return l->size;
}

/* Bytes a buffer must hold for a value of an explicitly laid out (Shader)
 * type: a struct ends where its last member ends, without the tail padding
 * of its size (Vulkan asks a binding to cover the members, nothing more). */
uint64_t jit_layout_extent(lower_ctx *c, uint32_t type_id)
{
    const spv_type *t = spv_type_get(c->m, type_id);
    const jit_layout *l = jit_layout_of(c, type_id);
    if (!l || !t || t->kind != SPV_TYPE_STRUCT || c->kernel)
        return l ? l->size : 0;
    uint64_t end = 0;
    for (uint32_t i = 0; i < t->nmembers; i++) {
        const spv_type *mt = spv_type_get(c->m, t->members[i]);
        uint32_t mat = jit_member_mat_info(c, type_id, i);
        uint64_t sz = mt && mt->kind == SPV_TYPE_STRUCT ? jit_layout_extent(c, t->members[i])
                                                        : member_size(c, t->members[i], mat);
        if (mt && mt->kind == SPV_TYPE_MATRIX && (mat & ~JIT_MAT_ROW_MAJOR)) {
            /* the last column (row) ends after its own components, not at the stride */
            const spv_type *col = spv_type_get(c->m, mt->elem);
            const jit_layout *el = col ? jit_layout_of(c, col->elem) : NULL;
            uint64_t stride = mat & ~JIT_MAT_ROW_MAJOR, n = (mat & JIT_MAT_ROW_MAJOR) ? col->count : mt->count;
            uint64_t len = (mat & JIT_MAT_ROW_MAJOR) ? mt->count : col ? col->count : 0;
            if (el && n)
                sz = (n - 1) * stride + len * el->size;
        }
        uint64_t e = jit_member_offset(c, type_id, i) + sz;
        if (e > end)
            end = e;
    }
    return end;
}

uint64_t jit_member_offset(lower_ctx *c, uint32_t struct_id, uint32_t member)
{
    const spv_decoration *d = spv_find_decoration(c->m, struct_id, (int32_t)member, SpvDecorationOffset);
    if (d && d->nargs)
        return d->args[0];
    const spv_type *t = spv_type_get(c->m, struct_id);
    uint64_t off = 0;
    for (uint32_t i = 0; t && i <= member && i < t->nmembers; i++) {
        const jit_layout *l = jit_layout_of(c, t->members[i]);
        if (!l)
            return 0;
        bool packed = spv_find_decoration(c->m, struct_id, -1, SpvDecorationCPacked) != NULL;
        off = round_up(off, packed ? 1 : l->align);
        if (i == member)
            break;
        off += member_size(c, t->members[i], jit_member_mat_info(c, struct_id, i));
    }
    return off;
}

static int compute_layout(lower_ctx *c, uint32_t id, const spv_type *t, jit_layout *l)
{
    switch (t->kind) {
    case SPV_TYPE_BOOL:
        l->size = l->align = 1;
        break;
    case SPV_TYPE_INT:
    case SPV_TYPE_FLOAT:
        l->size = t->width / 8;
        l->align = (uint32_t)l->size;
        break;
    case SPV_TYPE_POINTER:
    case SPV_TYPE_OPAQUE:
        l->size = l->align = 8;
        break;
    case SPV_TYPE_VECTOR: {
        const jit_layout *e = jit_layout_of(c, t->elem);
        if (!e)
            return -1;
        uint32_t n4 = t->count == 3 ? 4 : t->count;
        l->size = e->size * (c->kernel ? n4 : t->count);
        l->align = (uint32_t)(e->size * n4);
        l->stride = e->size;
        break;
    }
    case SPV_TYPE_MATRIX: {
        const jit_layout *col = jit_layout_of(c, t->elem);
        if (!col)
            return -1;
        l->stride = round_up(col->size, col->align);
        l->size = l->stride * t->count;
        l->align = col->align;
        break;
    }
    case SPV_TYPE_ARRAY:
    case SPV_TYPE_RUNTIME_ARRAY: {
        const jit_layout *e = jit_layout_of(c, t->elem);
        if (!e)
            return -1;
        const spv_decoration *d = spv_find_decoration(c->m, id, -1, SpvDecorationArrayStride);
        l->stride = (d && d->nargs) ? d->args[0] : round_up(e->size, e->align);
        l->align = e->align;
        uint64_t len = 0;
        if (t->kind == SPV_TYPE_ARRAY && !jit_array_length(c, t, &len))
            return -1;
        l->size = len * l->stride;
        break;
    }
    case SPV_TYPE_STRUCT: {
        bool packed = spv_find_decoration(c->m, id, -1, SpvDecorationCPacked) != NULL;
        uint64_t end = 0;
        l->align = 1;
        for (uint32_t i = 0; i < t->nmembers; i++) {
            const jit_layout *ml = jit_layout_of(c, t->members[i]);
            if (!ml)
                return -1;
            if (!packed && ml->align > l->align)
                l->align = ml->align;
            uint64_t e = jit_member_offset(c, id, i) + member_size(c, t->members[i], jit_member_mat_info(c, id, i));
            if (e > end)
                end = e;
        }
        l->size = round_up(end, l->align);
        break;
    }
    default:
        return jit_fail(c, "type %%%u has no memory layout", id);
    }
    if (l->align == 0)
        l->align = 1;
    return 0;
}

const jit_layout *jit_layout_of(lower_ctx *c, uint32_t type_id)
{
    const spv_type *t = jit_spv_type(c, type_id);
    if (!t)
        return NULL;
    jit_layout *l = &c->layouts[type_id];
    if (l->done)
        return l;
    jit_layout tmp = { .compat = -1 };
    if (compute_layout(c, type_id, t, &tmp))
        return NULL;
    tmp.done = true;
    *l = tmp;
    return l;
}

static LLVMTypeRef make_type(lower_ctx *c, uint32_t id, const spv_type *t)
{
    switch (t->kind) {
    case SPV_TYPE_VOID:
        return c->t_void;
    case SPV_TYPE_BOOL:
        return c->t_i1;
    case SPV_TYPE_INT:
        return LLVMIntTypeInContext(c->llc, t->width);
    case SPV_TYPE_FLOAT:
        if (t->width == 16)
            return LLVMHalfTypeInContext(c->llc);
        if (t->width == 32)
            return LLVMFloatTypeInContext(c->llc);
        if (t->width == 64)
            return LLVMDoubleTypeInContext(c->llc);
        break;
    case SPV_TYPE_VECTOR:
    case SPV_TYPE_MATRIX: {
        LLVMTypeRef e = jit_type(c, t->elem);
        if (!e)
            return NULL;
        return t->kind == SPV_TYPE_VECTOR ? LLVMVectorType(e, t->count) : LLVMArrayType2(e, t->count);
    }
    case SPV_TYPE_ARRAY:
    case SPV_TYPE_RUNTIME_ARRAY: {
        LLVMTypeRef e = jit_type(c, t->elem);
        uint64_t len = 0;
        if (!e || (t->kind == SPV_TYPE_ARRAY && !jit_array_length(c, t, &len)))
            return NULL;
        return LLVMArrayType2(e, len);
    }
    case SPV_TYPE_STRUCT: {
        LLVMTypeRef *m = calloc(t->nmembers + 1, sizeof *m);
        for (uint32_t i = 0; i < t->nmembers; i++)
            if (!(m[i] = jit_type(c, t->members[i]))) {
                free(m);
                return NULL;
            }
        LLVMTypeRef s = LLVMStructTypeInContext(c->llc, m, t->nmembers, 0);
        free(m);
        return s;
    }
    case SPV_TYPE_POINTER:
    case SPV_TYPE_OPAQUE:
        return c->t_ptr;
    case SPV_TYPE_FUNCTION: {
        LLVMTypeRef ret = jit_type(c, t->elem);
        LLVMTypeRef *p = calloc(t->nmembers + 2, sizeof *p);
        p[0] = p[1] = c->t_ptr; /* hidden: ctx, item state */
        for (uint32_t i = 0; i < t->nmembers; i++)
            if (!(p[2 + i] = jit_type(c, t->members[i]))) {
                free(p);
                return NULL;
            }
        LLVMTypeRef f = ret ? LLVMFunctionType(ret, p, t->nmembers + 2, 0) : NULL;
        free(p);
        return f;
    }
    default:
        break;
    }
    jit_fail(c, "type %%%u (kind %d, width %u) is not supported", id, t->kind, t->width);
    return NULL;
}

LLVMTypeRef jit_type(lower_ctx *c, uint32_t type_id)
{
    const spv_type *t = jit_spv_type(c, type_id);
    if (!t)
        return NULL;
    if (!c->vtypes[type_id])
        c->vtypes[type_id] = make_type(c, type_id, t);
    return c->vtypes[type_id];
}

/* True when one LLVM load/store of the value type touches exactly the bytes the
 * SPIR-V layout says, so composites need not be split member by member. */
static bool compute_compat(lower_ctx *c, uint32_t id, const spv_type *t, const jit_layout *l)
{
    LLVMTypeRef lt = jit_type(c, id);
    if (!lt)
        return false;
    if (t->kind == SPV_TYPE_RUNTIME_ARRAY)
        return false;
    if (LLVMABISizeOfType(c->td, lt) != l->size)
        return false;
    switch (t->kind) {
    case SPV_TYPE_ARRAY:
    case SPV_TYPE_MATRIX: {
        LLVMTypeRef et = jit_type(c, t->elem);
        return jit_layout_compat(c, t->elem) && LLVMABISizeOfType(c->td, et) == l->stride;
    }
    case SPV_TYPE_STRUCT:
        for (uint32_t i = 0; i < t->nmembers; i++) {
            if (jit_member_mat_info(c, id, i))
                return false;
            if (!jit_layout_compat(c, t->members[i]))
                return false;
            if (LLVMOffsetOfElement(c->td, lt, i) != jit_member_offset(c, id, i))
                return false;
        }
        return true;
    default:
        return true;
    }
}

bool jit_layout_compat(lower_ctx *c, uint32_t type_id)
{
    const jit_layout *l0 = jit_layout_of(c, type_id);
    if (!l0)
        return false;
    jit_layout *l = &c->layouts[type_id];
    if (l->compat < 0)
        l->compat = compute_compat(c, type_id, spv_type_get(c->m, type_id), l) ? 1 : 0;
    return l->compat == 1;
}

uint32_t jit_scalar_type_of(lower_ctx *c, uint32_t type_id)
{
    const spv_type *t = spv_type_get(c->m, type_id);
    return (t && t->kind == SPV_TYPE_VECTOR) ? t->elem : type_id;
}

bool jit_is_float_type(lower_ctx *c, uint32_t type_id)
{
    const spv_type *t = spv_type_get(c->m, jit_scalar_type_of(c, type_id));
    return t && t->kind == SPV_TYPE_FLOAT;
}
