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

#include <stddef.h>

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

LLVMValueRef jit_ctx_wg_memory(lower_ctx *c, LLVMValueRef ctx)
{
    LLVMValueRef l = jit_ctx_field(c, ctx, offsetof(spvjit_wg_ctx, wg_memory), c->t_ptr);
    jit_set_align(c, l, SPVJIT_WG_MEMORY_ALIGN);
    return l;
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

/* A boolean in memory (bool, bvecN) is a byte per component, 0 or 1; as i8s
 * the lowering's stack slots are promoted like any other (an i1 access of an
 * i8 slot keeps SROA off it). */
static LLVMTypeRef memory_type(lower_ctx *c, LLVMTypeRef lt)
{
    if (lt == c->t_i1)
        return c->t_i8;
    if (LLVMGetTypeKind(lt) == LLVMVectorTypeKind && LLVMGetElementType(lt) == c->t_i1)
        return LLVMVectorType(c->t_i8, LLVMGetVectorSize(lt));
    return lt;
}

static LLVMValueRef plain_load(lower_ctx *c, LLVMTypeRef lt, LLVMValueRef p, uint32_t align, bool vol)
{
    LLVMTypeRef mt = memory_type(c, lt);
    if (mt != lt)
        return LLVMBuildTrunc(c->b, plain_load(c, mt, p, align, vol), lt, "");
    LLVMValueRef l = LLVMBuildLoad2(c->b, lt, p, "");
    LLVMSetAlignment(l, align);
    if (vol)
        LLVMSetVolatile(l, 1);
    /* Push constants cannot change during a dispatch: tell LLVM, so stores to
     * buffers do not force a reload per work-item. */
    if (c->invariant_loads && !vol)
        set_invariant(c, l);
    if (c->wg_accesses)
        jit_mark(c, l, JIT_WG_MD);
    if (c->in_bounds)
        jit_mark(c, l, JIT_INBOUNDS_MD);
    return l;
}

static void plain_store(lower_ctx *c, LLVMValueRef v, LLVMValueRef p, uint32_t align, bool vol)
{
    LLVMTypeRef mt = memory_type(c, LLVMTypeOf(v));
    if (mt != LLVMTypeOf(v))
        v = LLVMBuildZExt(c->b, v, mt, "");
    LLVMValueRef s = LLVMBuildStore(c->b, v, p);
    LLVMSetAlignment(s, align);
    if (vol)
        LLVMSetVolatile(s, 1);
    if (c->wg_accesses)
        jit_mark(c, s, JIT_WG_MD);
    if (c->in_bounds)
        jit_mark(c, s, JIT_INBOUNDS_MD);
}

/* Offset of element (col, row) of a matrix in memory. */
static uint64_t mat_elem_at(lower_ctx *c, const spv_type *t, uint32_t mat, uint64_t stride, unsigned col, unsigned row)
{
    uint64_t esize = jit_layout_of(c, spv_type_get(c->m, t->elem)->elem)->size;
    if (mat & JIT_MAT_ROW_MAJOR)
        return row * stride + col * esize;
    return col * stride + row * esize;
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

/* One load or store of lt at `at` bytes from p0; in a split checked access
 * (c->leaf_guard, lower_bounds.c) each under its own bounds check. */
static LLVMValueRef leaf_load(lower_ctx *c, LLVMTypeRef lt, LLVMValueRef p0, uint64_t at, uint32_t align, bool vol)
{
    jit_guard g;
    bool open = c->leaf_guard && jit_leaf_open(c, &g, at, LLVMABISizeOfType(c->td, lt));
    LLVMValueRef v = plain_load(c, lt, jit_ptr_at(c, p0, at), align, vol);
    return open ? jit_guard_close(c, &g, v, NULL) : v;
}

static void leaf_store(lower_ctx *c, LLVMValueRef v, LLVMValueRef p0, uint64_t at, uint32_t align, bool vol)
{
    jit_guard g;
    bool open = c->leaf_guard && jit_leaf_open(c, &g, at, LLVMABISizeOfType(c->td, LLVMTypeOf(v)));
    plain_store(c, v, jit_ptr_at(c, p0, at), align, vol);
    if (open)
        jit_guard_close(c, &g, NULL, NULL);
}

/* A vector whose components are `step` bytes apart, component by component. */
static LLVMValueRef load_lanes(lower_ctx *c, const spv_type *t, LLVMTypeRef lt, LLVMValueRef p0, uint64_t at,
                               uint64_t step, bool vol)
{
    LLVMTypeRef et = LLVMGetElementType(lt);
    uint32_t ea = jit_layout_of(c, t->elem)->size;
    LLVMValueRef r = LLVMGetPoison(lt);
    for (unsigned j = 0; j < t->count; j++)
        r = LLVMBuildInsertElement(c->b, r, leaf_load(c, et, p0, at + j * step, ea, vol), LLVMConstInt(c->t_i32, j, 0),
                                   "");
    return r;
}

static void store_lanes(lower_ctx *c, const spv_type *t, LLVMValueRef v, LLVMValueRef p0, uint64_t at, uint64_t step,
                        bool vol)
{
    uint32_t ea = jit_layout_of(c, t->elem)->size;
    for (unsigned j = 0; j < t->count; j++)
        leaf_store(c, LLVMBuildExtractElement(c->b, v, LLVMConstInt(c->t_i32, j, 0), ""), p0, at + j * step, ea, vol);
}

static LLVMValueRef load_at(lower_ctx *c, uint32_t type_id, LLVMValueRef p0, uint64_t at, uint32_t align, bool vol,
                            uint32_t mat)
{
    const spv_type *t = jit_spv_type(c, type_id);
    LLVMTypeRef lt = jit_type(c, type_id);
    if (!t || !lt || !jit_layout_of(c, type_id))
        return NULL;
    bool split = c->leaf_guard != NULL; /* every component checked on its own */
    switch (t->kind) {
    case SPV_TYPE_MATRIX: {
        const spv_type *ct = spv_type_get(c->m, t->elem);
        LLVMTypeRef clt = jit_type(c, t->elem);
        uint64_t stride = jit_matrix_stride(c, type_id, mat);
        uint32_t ea = jit_layout_of(c, ct->elem)->size;
        LLVMValueRef r = LLVMConstNull(lt);
        for (unsigned i = 0; i < t->count; i++) {
            LLVMValueRef colv;
            if (!(mat & JIT_MAT_ROW_MAJOR) && !split)
                colv = leaf_load(c, clt, p0, at + i * stride, ea, vol);
            else
                colv = load_lanes(c, ct, clt, p0, at + mat_elem_at(c, t, mat, stride, i, 0),
                                  mat_elem_at(c, t, mat, stride, i, 1) - mat_elem_at(c, t, mat, stride, i, 0), vol);
            r = LLVMBuildInsertValue(c->b, r, colv, i, "");
        }
        return r;
    }
    case SPV_TYPE_ARRAY:
    case SPV_TYPE_STRUCT: {
        if (jit_layout_compat(c, type_id) && !mat && !split)
            return leaf_load(c, lt, p0, at, align ? align : jit_layout_of(c, type_id)->align, vol);
        LLVMValueRef r = LLVMConstNull(lt);
        unsigned n = t->kind == SPV_TYPE_STRUCT ? t->nmembers : LLVMGetArrayLength2(lt);
        for (unsigned i = 0; i < n; i++) {
            uint32_t emat;
            uint64_t off;
            uint32_t et = element_at(c, type_id, t, i, mat, &off, &emat);
            LLVMValueRef e = load_at(c, et, p0, at + off, 0, vol, emat);
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
        if (mat & JIT_MAT_ROW_MAJOR) /* a column of a row-major matrix */
            return load_lanes(c, t, lt, p0, at, mat & ~JIT_MAT_ROW_MAJOR, vol);
        if (split)
            return load_lanes(c, t, lt, p0, at, jit_layout_of(c, t->elem)->size, vol);
        return leaf_load(c, lt, p0, at, access_align(c, type_id, align), vol);
    default:
        return leaf_load(c, lt, p0, at, access_align(c, type_id, align), vol);
    }
}

static int store_at(lower_ctx *c, uint32_t type_id, LLVMValueRef p0, uint64_t at, LLVMValueRef v, uint32_t align,
                    bool vol, uint32_t mat)
{
    const spv_type *t = jit_spv_type(c, type_id);
    LLVMTypeRef lt = jit_type(c, type_id);
    if (!t || !lt || !jit_layout_of(c, type_id))
        return -1;
    bool split = c->leaf_guard != NULL;
    switch (t->kind) {
    case SPV_TYPE_MATRIX: {
        const spv_type *ct = spv_type_get(c->m, t->elem);
        uint64_t stride = jit_matrix_stride(c, type_id, mat);
        uint32_t ea = jit_layout_of(c, ct->elem)->size;
        for (unsigned i = 0; i < t->count; i++) {
            LLVMValueRef colv = LLVMBuildExtractValue(c->b, v, i, "");
            if (!(mat & JIT_MAT_ROW_MAJOR) && !split)
                leaf_store(c, colv, p0, at + i * stride, ea, vol);
            else
                store_lanes(c, ct, colv, p0, at + mat_elem_at(c, t, mat, stride, i, 0),
                            mat_elem_at(c, t, mat, stride, i, 1) - mat_elem_at(c, t, mat, stride, i, 0), vol);
        }
        return 0;
    }
    case SPV_TYPE_ARRAY:
    case SPV_TYPE_STRUCT: {
        if (jit_layout_compat(c, type_id) && !mat && !split) {
            leaf_store(c, v, p0, at, align ? align : jit_layout_of(c, type_id)->align, vol);
            return 0;
        }
        unsigned n = t->kind == SPV_TYPE_STRUCT ? t->nmembers : LLVMGetArrayLength2(lt);
        for (unsigned i = 0; i < n; i++) {
            uint32_t emat;
            uint64_t off;
            uint32_t et = element_at(c, type_id, t, i, mat, &off, &emat);
            if (store_at(c, et, p0, at + off, LLVMBuildExtractValue(c->b, v, i, ""), 0, vol, emat))
                return -1;
        }
        return 0;
    }
    case SPV_TYPE_RUNTIME_ARRAY:
        return jit_fail(c, "a runtime array (type %%%u) cannot be stored as a whole", type_id);
    case SPV_TYPE_VECTOR:
        if (mat & JIT_MAT_ROW_MAJOR) { /* a column of a row-major matrix */
            store_lanes(c, t, v, p0, at, mat & ~JIT_MAT_ROW_MAJOR, vol);
            return 0;
        }
        if (split) {
            store_lanes(c, t, v, p0, at, jit_layout_of(c, t->elem)->size, vol);
            return 0;
        }
        leaf_store(c, v, p0, at, access_align(c, type_id, align), vol);
        return 0;
    default:
        leaf_store(c, v, p0, at, access_align(c, type_id, align), vol);
        return 0;
    }
}

LLVMValueRef jit_load_mem(lower_ctx *c, uint32_t type_id, LLVMValueRef p, uint32_t align, bool vol, uint32_t mat)
{
    return load_at(c, type_id, p, 0, align, vol, mat);
}

int jit_store_mem(lower_ctx *c, uint32_t type_id, LLVMValueRef p, LLVMValueRef v, uint32_t align, bool vol,
                  uint32_t mat)
{
    return store_at(c, type_id, p, 0, v, align, vol, mat);
}
