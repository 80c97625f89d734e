/* jit/lower_access.c — typed loads and stores at byte addresses, under the
 * layout records.
 *
 * A scalar or vector is one load/store; a composite is one too when LLVM's own
 * layout of its value type is identical (jit_layout_compat), else it is split
 * member by member / element by element.  Matrices inside structs follow the
 * member's MatrixStride / RowMajor decorations, which access chains pass on
 * as the pointer's "mat" (JIT_MAT_ROW_MAJOR | stride).
 */
#include "lower_ctx.h"

LLVMValueRef jit_byte_gep(lower_ctx *c, LLVMValueRef base, LLVMValueRef off, bool inbounds)
{
    if (LLVMIsConstant(off) && LLVMConstIntGetZExtValue(off) == 0)
        return base;
    return inbounds ? LLVMBuildInBoundsGEP2(c->b, c->t_i8, base, &off, 1, "")
                    : LLVMBuildGEP2(c->b, c->t_i8, base, &off, 1, "");
}

LLVMValueRef jit_ptr_at(lower_ctx *c, LLVMValueRef base, uint64_t off)
{
    return jit_byte_gep(c, base, LLVMConstInt(c->t_i64, off, 0), true);
}

void jit_store_at(lower_ctx *c, LLVMValueRef base, uint64_t off, LLVMValueRef v, unsigned align)
{
    LLVMSetAlignment(LLVMBuildStore(c->b, v, jit_ptr_at(c, base, off)), align);
}

LLVMValueRef jit_item_field_ptr(lower_ctx *c, uint64_t off)
{
    return jit_ptr_at(c, c->arg_item, off);
}

static void set_invariant(lower_ctx *c, LLVMValueRef load)
{
    LLVMSetMetadata(load, LLVMGetMDKindIDInContext(c->llc, "invariant.load", 14),
                    LLVMMetadataAsValue(c->llc, LLVMMDNodeInContext2(c->llc, NULL, 0)));
}

LLVMValueRef jit_load_invariant(lower_ctx *c, LLVMTypeRef t, LLVMValueRef p, unsigned align)
{
    LLVMValueRef l = LLVMBuildLoad2(c->b, t, p, "");
    LLVMSetAlignment(l, align);
    set_invariant(c, l);
    return l;
}

LLVMValueRef jit_ctx_field(lower_ctx *c, LLVMValueRef ctx, size_t off, LLVMTypeRef t)
{
    return jit_load_invariant(c, t, jit_ptr_at(c, ctx, off), LLVMABIAlignmentOfType(c->td, t));
}

/* --- typed loads and stores under the layout ------------------------------- */

static uint32_t access_align(lower_ctx *c, uint32_t type_id, uint32_t align)
{
    if (align)
        return align;
    const spv_type *t = spv_type_get(c->m, type_id);
    if (t && t->kind == SPV_TYPE_VECTOR)
        return jit_layout_of(c, t->elem)->size;
    const spv_layout *l = jit_layout_of(c, type_id);
    return l ? l->align : 1;
}

static LLVMValueRef plain_load(lower_ctx *c, LLVMTypeRef lt, LLVMValueRef p, uint32_t align, bool vol)
{
    LLVMValueRef l = LLVMBuildLoad2(c->b, lt, p, "");
    LLVMSetAlignment(l, align);
    if (vol)
        LLVMSetVolatile(l, 1);
    /* Push constants cannot change during a dispatch: tell LLVM, so stores to
     * buffers do not force a reload per work-item. */
    if (c->invariant_loads && !vol)
        set_invariant(c, l);
    return l;
}

static void plain_store(lower_ctx *c, LLVMValueRef v, LLVMValueRef p, uint32_t align, bool vol)
{
    LLVMValueRef s = LLVMBuildStore(c->b, v, p);
    LLVMSetAlignment(s, align);
    if (vol)
        LLVMSetVolatile(s, 1);
}

/* Address of element (col, row) / of column col of a matrix in memory. */
static LLVMValueRef mat_elem_ptr(lower_ctx *c, const spv_type *t, LLVMValueRef p, uint32_t mat, uint64_t stride,
                                 unsigned col, unsigned row)
{
    uint64_t esize = jit_layout_of(c, spv_type_get(c->m, t->elem)->elem)->size;
    if (mat & JIT_MAT_ROW_MAJOR)
        return jit_ptr_at(c, p, row * stride + col * esize);
    return jit_ptr_at(c, p, col * stride + row * esize);
}

uint64_t jit_matrix_stride(lower_ctx *c, uint32_t type_id, uint32_t mat)
{
    uint64_t s = mat & ~JIT_MAT_ROW_MAJOR;
    return s ? s : jit_layout_of(c, type_id)->stride;
}

/* Member or element i of a struct or array in memory: its type, its byte
 * offset and how a matrix in it sits (mat: the array's own, passed on). */
static uint32_t element_at(lower_ctx *c, uint32_t type_id, const spv_type *t, unsigned i, uint32_t mat, uint64_t *off,
                           uint32_t *emat)
{
    if (t->kind == SPV_TYPE_STRUCT) {
        *off = jit_member_offset(c, type_id, i);
        *emat = jit_member_mat_info(c, type_id, i);
        return t->members[i];
    }
    *off = i * jit_layout_of(c, type_id)->stride;
    *emat = mat;
    return t->elem;
}

LLVMValueRef jit_load_mem(lower_ctx *c, uint32_t type_id, LLVMValueRef p, uint32_t align, bool vol, uint32_t mat)
{
    const spv_type *t = jit_spv_type(c, type_id);
    LLVMTypeRef lt = jit_type(c, type_id);
    if (!t || !lt || !jit_layout_of(c, type_id))
        return NULL;
    switch (t->kind) {
    case SPV_TYPE_MATRIX: {
        const spv_type *ct = spv_type_get(c->m, t->elem);
        LLVMTypeRef clt = jit_type(c, t->elem);
        uint64_t stride = jit_matrix_stride(c, type_id, mat);
        uint32_t ea = jit_layout_of(c, ct->elem)->size;
        LLVMValueRef r = LLVMConstNull(lt);
        for (unsigned i = 0; i < t->count; i++) {
            LLVMValueRef colv;
            if (!(mat & JIT_MAT_ROW_MAJOR)) {
                colv = plain_load(c, clt, jit_ptr_at(c, p, i * stride), ea, vol);
            } else {
                colv = LLVMConstNull(clt);
                for (unsigned j = 0; j < ct->count; j++) {
                    LLVMValueRef e =
                        plain_load(c, LLVMGetElementType(clt), mat_elem_ptr(c, t, p, mat, stride, i, j), ea, vol);
                    colv = LLVMBuildInsertElement(c->b, colv, e, LLVMConstInt(c->t_i32, j, 0), "");
                }
            }
            r = LLVMBuildInsertValue(c->b, r, colv, i, "");
        }
        return r;
    }
    case SPV_TYPE_ARRAY:
    case SPV_TYPE_STRUCT: {
        if (jit_layout_compat(c, type_id) && !mat)
            return plain_load(c, lt, p, align ? align : jit_layout_of(c, type_id)->align, vol);
        LLVMValueRef r = LLVMConstNull(lt);
        unsigned n = t->kind == SPV_TYPE_STRUCT ? t->nmembers : LLVMGetArrayLength2(lt);
        for (unsigned i = 0; i < n; i++) {
            uint32_t emat;
            uint64_t off;
            uint32_t et = element_at(c, type_id, t, i, mat, &off, &emat);
            LLVMValueRef e = jit_load_mem(c, et, jit_ptr_at(c, p, off), 0, vol, emat);
            if (!e)
                return NULL;
            r = LLVMBuildInsertValue(c->b, r, e, i, "");
        }
        return r;
    }
    case SPV_TYPE_RUNTIME_ARRAY:
        jit_fail(c, "a runtime array (type %%%u) cannot be loaded as a whole", type_id);
        return NULL;
    case SPV_TYPE_VECTOR:
        if (mat & JIT_MAT_ROW_MAJOR) { /* a column of a row-major matrix */
            LLVMTypeRef et = LLVMGetElementType(lt);
            uint32_t ea = jit_layout_of(c, t->elem)->size;
            LLVMValueRef r = LLVMGetPoison(lt);
            for (unsigned j = 0; j < t->count; j++)
                r = LLVMBuildInsertElement(c->b, r,
                                           plain_load(c, et, jit_ptr_at(c, p, j * (uint64_t)(mat & ~JIT_MAT_ROW_MAJOR)),
                                                      ea, vol),
                                           LLVMConstInt(c->t_i32, j, 0), "");
            return r;
        }
        return plain_load(c, lt, p, access_align(c, type_id, align), vol);
    default:
        return plain_load(c, lt, p, access_align(c, type_id, align), vol);
    }
}

int jit_store_mem(lower_ctx *c, uint32_t type_id, LLVMValueRef p, LLVMValueRef v, uint32_t align, bool vol,
                  uint32_t mat)
{
    const spv_type *t = jit_spv_type(c, type_id);
    LLVMTypeRef lt = jit_type(c, type_id);
    if (!t || !lt || !jit_layout_of(c, type_id))
        return -1;
    switch (t->kind) {
    case SPV_TYPE_MATRIX: {
        const spv_type *ct = spv_type_get(c->m, t->elem);
        uint64_t stride = jit_matrix_stride(c, type_id, mat);
        uint32_t ea = jit_layout_of(c, ct->elem)->size;
        for (unsigned i = 0; i < t->count; i++) {
            LLVMValueRef colv = LLVMBuildExtractValue(c->b, v, i, "");
            if (!(mat & JIT_MAT_ROW_MAJOR)) {
                plain_store(c, colv, jit_ptr_at(c, p, i * stride), ea, vol);
                continue;
            }
            for (unsigned j = 0; j < ct->count; j++)
                plain_store(c, LLVMBuildExtractElement(c->b, colv, LLVMConstInt(c->t_i32, j, 0), ""),
                            mat_elem_ptr(c, t, p, mat, stride, i, j), ea, vol);
        }
        return 0;
    }
    case SPV_TYPE_ARRAY:
    case SPV_TYPE_STRUCT: {
        if (jit_layout_compat(c, type_id) && !mat) {
            plain_store(c, v, p, align ? align : jit_layout_of(c, type_id)->align, vol);
            return 0;
        }
        unsigned n = t->kind == SPV_TYPE_STRUCT ? t->nmembers : LLVMGetArrayLength2(lt);
        for (unsigned i = 0; i < n; i++) {
            uint32_t emat;
            uint64_t off;
            uint32_t et = element_at(c, type_id, t, i, mat, &off, &emat);
            if (jit_store_mem(c, et, jit_ptr_at(c, p, off), LLVMBuildExtractValue(c->b, v, i, ""), 0, vol, emat))
                return -1;
        }
        return 0;
    }
    case SPV_TYPE_RUNTIME_ARRAY:
        return jit_fail(c, "a runtime array (type %%%u) cannot be stored as a whole", type_id);
    case SPV_TYPE_VECTOR:
        if (mat & JIT_MAT_ROW_MAJOR) { /* a column of a row-major matrix */
            uint32_t ea = jit_layout_of(c, t->elem)->size;
            for (unsigned j = 0; j < t->count; j++)
                plain_store(c, LLVMBuildExtractElement(c->b, v, LLVMConstInt(c->t_i32, j, 0), ""),
                            jit_ptr_at(c, p, j * (uint64_t)(mat & ~JIT_MAT_ROW_MAJOR)), ea, vol);
            return 0;
        }
        plain_store(c, v, p, access_align(c, type_id, align), vol);
        return 0;
    default:
        plain_store(c, v, p, access_align(c, type_id, align), vol);
        return 0;
    }
}
