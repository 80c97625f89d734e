/* jit/lower_types.c — SPIR-V types as LLVM value types, and their layouts
 * (spirv/layout.h's records, read here, never computed).
 *
 * Values: bool → i1, intN → iN, floatN → half/float/double, vectors → LLVM
 * vectors, matrices → arrays of column vectors, arrays → LLVM arrays, structs →
 * literal structs, pointers → ptr (one address space: the CPU has one).
 * Addresses are byte offsets from the layout records, so LLVM's own struct
 * layout never decides where a member is; where it happens to agree with the
 * record (jit_layout_compat), a composite is loaded and stored whole.
 */
#include "lower_ctx.h"

const spv_type *jit_spv_type(lower_ctx *c, uint32_t id)
{
    const spv_type *t = spv_type_get(c->m, id);
    if (!t)
        jit_fail(c, "id %u is not a type", id);
    return t;
}

const spv_layout *jit_layout_of(lower_ctx *c, uint32_t type_id)
{
    const spv_layout *l = spv_layout_of(c->layouts, type_id);
    if (!l)
        c->failed = true; /* spirv/ wrote the message */
    return l;
}

bool jit_array_length(lower_ctx *c, uint32_t array_type_id, uint64_t *len)
{
    if (spv_array_length(c->layouts, array_type_id, len))
        return true;
    c->failed = true;
    return false;
}

bool jit_shape_u64(lower_ctx *c, uint32_t id, uint64_t *out)
{
    return spv_shape_u64(spv_layouts_shape(c->layouts), id, out);
}

uint64_t jit_member_offset(lower_ctx *c, uint32_t struct_id, uint32_t member)
{
    const spv_layout *l = jit_layout_of(c, struct_id);
    return l && member < l->nmembers ? l->members[member].offset : 0;
}

uint32_t jit_member_mat_info(lower_ctx *c, uint32_t struct_id, uint32_t member)
{
    const spv_layout *l = jit_layout_of(c, struct_id);
    if (!l || member >= l->nmembers)
        return 0;
    const spv_member_layout *ml = &l->members[member];
    return ml->matrix_stride | (ml->row_major ? JIT_MAT_ROW_MAJOR : 0);
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
        if (!e || (t->kind == SPV_TYPE_ARRAY && !jit_array_length(c, id, &len)))
            return NULL;
        return LLVMArrayType2(e, len);
    }
    case SPV_TYPE_STRUCT: {
        LLVMTypeRef *m = jit_alloc(c, t->nmembers, sizeof *m);
        for (uint32_t i = 0; i < t->nmembers; i++)
            if (!(m[i] = jit_type(c, t->members[i])))
                return NULL;
        return LLVMStructTypeInContext(c->llc, m, t->nmembers, 0);
    }
    case SPV_TYPE_POINTER:
    case SPV_TYPE_OPAQUE:
        return c->t_ptr;
    case SPV_TYPE_FUNCTION: {
        LLVMTypeRef ret = jit_type(c, t->elem);
        unsigned nb = jit_bounds_params(c, id); /* hidden, last: the bounds of pointer parameters */
        LLVMTypeRef *p = jit_alloc(c, t->nmembers + 2 + nb, sizeof *p);
        p[0] = p[1] = c->t_ptr; /* hidden: ctx, item state */
        for (uint32_t i = 0; i < t->nmembers; i++)
            if (!(p[2 + i] = jit_type(c, t->members[i])))
                return NULL;
        for (unsigned i = 0; i < nb; i++)
            p[2 + t->nmembers + i] = c->t_i64;
        return ret ? LLVMFunctionType(ret, p, t->nmembers + 2 + nb, 0) : NULL;
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
 * layout record says, so composites need not be split member by member (a
 * translation fact: spirv/'s record against LLVM's DataLayout). */
static bool compute_compat(lower_ctx *c, uint32_t id, const spv_type *t, const spv_layout *l)
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
    const spv_layout *l = jit_layout_of(c, type_id);
    if (!l)
        return false;
    if (c->compat[type_id] < 0)
        c->compat[type_id] = compute_compat(c, type_id, spv_type_get(c->m, type_id), l) ? 1 : 0;
    return c->compat[type_id] == 1;
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
