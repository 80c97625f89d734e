/* jit/lower_memory.c — the memory instructions: variables, loads, stores,
 * access chains, copies, array lengths, pointer comparison and difference.
 *
 * Addresses are byte offsets from the layout records (GEP on i8); the typed
 * loads and stores are the core's (lower_access.c).  An access chain reaching a
 * matrix member passes the member's MatrixStride / RowMajor on through
 * c->mat_info to the loads, stores and chains that use its result.
 */
#include "lower_ctx.h"

#include <stddef.h>

/* --- access chains ------------------------------------------------------------ */

static uint32_t pointee_of(lower_ctx *c, uint32_t value_id)
{
    const spv_id *d = spv_id_get(c->m, value_id);
    const spv_type *pt = d ? spv_type_get(c->m, d->type_id) : NULL;
    return (pt && pt->kind == SPV_TYPE_POINTER) ? pt->elem : 0;
}

static bool is_descriptor_array(lower_ctx *c, uint32_t base_id)
{
    const spv_id *d = spv_id_get(c->m, base_id);
    if (!d || d->kind != SPV_ID_GLOBAL_VARIABLE || c->var_slot[base_id] == SPV_NONE)
        return false;
    const spv_type *t = spv_type_get(c->m, pointee_of(c, base_id));
    return t && (t->kind == SPV_TYPE_ARRAY || t->kind == SPV_TYPE_RUNTIME_ARRAY) && !c->kernel;
}

/* A constant index (sign-extended from its width), or false for a run-time one. */
static bool const_index(lower_ctx *c, uint32_t id, int64_t *out)
{
    const spv_id *d = spv_id_get(c->m, id);
    if (!d || d->kind != SPV_ID_CONSTANT || d->is_composite)
        return false;
    const spv_type *t = spv_type_get(c->m, d->type_id);
    uint32_t w = t ? t->width : 64;
    uint64_t v = d->is_null ? 0 : d->scalar;
    if (w < 64) {
        uint64_t s = 1ull << (w - 1);
        v &= (s << 1) - 1;
        v = (v ^ s) - s;
    }
    *out = (int64_t)v;
    return true;
}

typedef struct chain_off {
    int64_t k;
    LLVMValueRef dyn;
} chain_off;

static int add_index(lower_ctx *c, chain_off *o, uint32_t idx_id, uint64_t stride)
{
    int64_t k;
    if (const_index(c, idx_id, &k)) {
        o->k += k * (int64_t)stride;
        return 0;
    }
    LLVMValueRef v = jit_value(c, idx_id);
    if (!v)
        return -1;
    v = jit_int_cast(c, v, c->t_i64, true);
    v = LLVMBuildMul(c->b, v, LLVMConstInt(c->t_i64, stride, 0), "");
    o->dyn = o->dyn ? LLVMBuildAdd(c->b, o->dyn, v, "") : v;
    return 0;
}

/* Stride of PtrAccessChain's Element operand (spirv/layout.h), 0 when the
 * pointee has no size. */
static uint64_t element_stride(lower_ctx *c, uint32_t base_id)
{
    const spv_id *d = spv_id_get(c->m, base_id);
    uint64_t stride;
    return d && spv_pointer_stride(c->layouts, d->type_id, &stride) ? stride : 0;
}

static int access_chain(lower_ctx *c, const spv_inst *in)
{
    bool ptr_chain = in->opcode == SpvOpPtrAccessChain || in->opcode == SpvOpInBoundsPtrAccessChain;
    uint32_t base_id = spv_inst_op(in, 0), i = 1;
    LLVMValueRef base = jit_value(c, base_id);
    uint32_t cur = pointee_of(c, base_id), mat = c->mat_info[base_id];
    if (!base || !cur)
        return base ? jit_fail_inst(c, in, "base is not a pointer") : -1;
    chain_off o = { 0, NULL };
    if (ptr_chain && add_index(c, &o, spv_inst_op(in, i++), element_stride(c, base_id)))
        return -1;
    jit_bounds element = { 0 };
    if (!ptr_chain && is_descriptor_array(c, base_id) && i < spv_inst_nops(in)) {
        /* base points at the resource slots: the first index picks the block */
        chain_off s = { 0, NULL };
        if (add_index(c, &s, spv_inst_op(in, i++), 1))
            return -1;
        LLVMValueRef idx = s.dyn ? LLVMBuildAdd(c->b, s.dyn, LLVMConstInt(c->t_i64, (uint64_t)s.k, 0), "")
                                 : LLVMConstInt(c->t_i64, (uint64_t)s.k, 0);
        uint64_t count = 0;
        jit_array_length(c, cur, &count);
        base = jit_descriptor_element(c, base_id, base, idx, (uint32_t)count, &element);
        cur = spv_type_get(c->m, cur)->elem;
    }
    for (; i < spv_inst_nops(in); i++) {
        const spv_type *t = jit_spv_type(c, cur);
        const spv_layout *l = jit_layout_of(c, cur);
        uint32_t idx = spv_inst_op(in, i);
        if (!t || !l)
            return -1;
        int64_t k;
        switch (t->kind) {
        case SPV_TYPE_STRUCT:
            if (!const_index(c, idx, &k) || k < 0 || (uint64_t)k >= t->nmembers)
                return jit_fail_inst(c, in, "struct index %%%u is not a constant member index", idx);
            o.k += (int64_t)jit_member_offset(c, cur, (uint32_t)k);
            mat = jit_member_mat_info(c, cur, (uint32_t)k);
            cur = t->members[k];
            break;
        case SPV_TYPE_ARRAY:
        case SPV_TYPE_RUNTIME_ARRAY:
            if (add_index(c, &o, idx, l->stride))
                return -1;
            cur = t->elem;
            break;
        case SPV_TYPE_VECTOR:
            /* a column of a row-major matrix: components are a matrix stride apart */
            if (add_index(c, &o, idx,
                          (mat & JIT_MAT_ROW_MAJOR) ? mat & ~JIT_MAT_ROW_MAJOR : jit_layout_of(c, t->elem)->size))
                return -1;
            cur = t->elem;
            mat = 0;
            break;
        case SPV_TYPE_MATRIX: {
            uint64_t stride = jit_matrix_stride(c, cur, mat);
            if (!(mat & JIT_MAT_ROW_MAJOR)) {
                if (add_index(c, &o, idx, stride))
                    return -1;
                cur = t->elem;
                mat = 0;
                break;
            }
            /* row-major: a column's components are `stride` apart; a pointer to the column
             * keeps that stride (mat_info) for the loads, stores and chains through it */
            const spv_type *ct = spv_type_get(c->m, t->elem);
            if (i + 1 >= spv_inst_nops(in)) {
                if (add_index(c, &o, idx, jit_layout_of(c, ct->elem)->size))
                    return -1;
                cur = t->elem;
                mat = (uint32_t)stride | JIT_MAT_ROW_MAJOR;
                break;
            }
            if (add_index(c, &o, idx, jit_layout_of(c, ct->elem)->size) ||
                add_index(c, &o, spv_inst_op(in, ++i), stride))
                return -1;
            cur = ct->elem;
            mat = 0;
            break;
        }
        default:
            return jit_fail_inst(c, in, "index %u goes into a non-composite type", i);
        }
    }
    LLVMValueRef off = LLVMConstInt(c->t_i64, (uint64_t)o.k, 0);
    if (o.dyn)
        off = o.k ? LLVMBuildAdd(c->b, o.dyn, off, "") : o.dyn;
    bool inb = in->opcode != SpvOpPtrAccessChain;
    jit_set(c, in->result_id, jit_byte_gep(c, base, off, inb));
    c->mat_info[in->result_id] = mat;
    if (element.size)
        jit_bounds_set(c, in->result_id, LLVMBuildAdd(c->b, element.off, off, ""), element.size, element.kind,
                       element.index);
    else
        jit_bounds_derive(c, in->result_id, base_id, off);
    return 0;
}

/* --- memory operands ---------------------------------------------------------- */

typedef struct mem_ops {
    uint32_t align;
    bool vol;
} mem_ops;

static mem_ops memory_operands(const spv_inst *in, uint32_t first)
{
    mem_ops r = { 0, false };
    if (first >= spv_inst_nops(in))
        return r;
    uint32_t mask = spv_inst_op(in, first);
    if (mask & SpvMemoryAccessVolatileMask)
        r.vol = true;
    if ((mask & SpvMemoryAccessAlignedMask) && first + 1 < spv_inst_nops(in))
        r.align = spv_inst_op(in, first + 1);
    return r;
}

/* The resource slot (i64) a block pointer designates: the variable itself, an
 * element of a descriptor array (var[i]), through copies; otherwise (a
 * function parameter, a selected pointer) found at run time by comparing the
 * pointer with every slot's base address.  NULL + diag if there is no slot. */
static LLVMValueRef block_slot(lower_ctx *c, const spv_inst *at_inst, uint32_t ptr_id)
{
    for (int depth = 0; depth < 64; depth++) {
        const spv_id *d = spv_id_get(c->m, ptr_id);
        if (d && d->kind == SPV_ID_GLOBAL_VARIABLE && c->var_slot[ptr_id] != SPV_NONE)
            return LLVMConstInt(c->t_i64, c->var_slot[ptr_id], 0);
        const spv_inst *def = spv_def(c->m, ptr_id);
        if (!def)
            break;
        if (def->opcode == SpvOpCopyObject || def->opcode == SpvOpCopyLogical) {
            ptr_id = spv_inst_op(def, 0);
            continue;
        }
        if ((def->opcode == SpvOpAccessChain || def->opcode == SpvOpInBoundsAccessChain) && spv_inst_nops(def) == 2 &&
            is_descriptor_array(c, spv_inst_op(def, 0))) {
            LLVMValueRef i = jit_value(c, spv_inst_op(def, 1));
            if (!i)
                return NULL;
            return LLVMBuildAdd(c->b, LLVMConstInt(c->t_i64, c->var_slot[spv_inst_op(def, 0)], 0),
                                jit_int_cast(c, i, c->t_i64, false), "");
        }
        break;
    }
    if (!c->nres_slots) {
        jit_fail_inst(c, at_inst, "OpArrayLength of %%%u: the module has no buffer it could point into", ptr_id);
        return NULL;
    }
    LLVMValueRef p = jit_value(c, ptr_id);
    if (!p)
        return NULL;
    LLVMValueRef args = jit_ctx_field(c, c->arg_ctx, offsetof(spvjit_wg_ctx, args), c->t_ptr);
    LLVMValueRef slot = LLVMConstInt(c->t_i64, c->nres_slots, 0); /* none: arg_sizes is not read */
    for (uint32_t i = c->nres_slots; i-- > 0;) {
        LLVMValueRef base = LLVMBuildLoad2(c->b, c->t_ptr, jit_ptr_at(c, args, 8ull * i), "");
        slot =
            LLVMBuildSelect(c->b, LLVMBuildICmp(c->b, LLVMIntEQ, base, p, ""), LLVMConstInt(c->t_i64, i, 0), slot, "");
    }
    return slot;
}

static int array_length(lower_ctx *c, const spv_inst *in)
{
    uint32_t ptr = spv_inst_op(in, 0), member = spv_inst_op(in, 1);
    uint32_t st = pointee_of(c, ptr);
    const spv_type *t = spv_type_get(c->m, st);
    if (!t || t->kind != SPV_TYPE_STRUCT || member >= t->nmembers)
        return jit_fail_inst(c, in, "expected a pointer to a struct with a runtime array member %u", member);
    uint64_t off = jit_member_offset(c, st, member);
    const spv_layout *l = jit_layout_of(c, t->members[member]);
    if (!l || !l->stride)
        return -1;
    LLVMValueRef slot = block_slot(c, in, ptr);
    if (!slot)
        return -1;
    LLVMValueRef sizes = jit_ctx_field(c, c->arg_ctx, offsetof(spvjit_wg_ctx, arg_sizes), c->t_ptr);
    /* a pointer into no slot (only possible through the run-time search) has length 0 */
    LLVMValueRef known = LLVMBuildICmp(c->b, LLVMIntULT, slot, LLVMConstInt(c->t_i64, c->nres_slots, 0), "");
    LLVMValueRef safe = LLVMBuildSelect(c->b, known, slot, LLVMConstInt(c->t_i64, 0, 0), "");
    LLVMValueRef sz =
        LLVMBuildLoad2(c->b, c->t_i64,
                       jit_byte_gep(c, sizes, LLVMBuildMul(c->b, safe, LLVMConstInt(c->t_i64, 8, 0), ""), true), "");
    sz = LLVMBuildSelect(c->b, known, sz, LLVMConstInt(c->t_i64, 0, 0), "");
    LLVMValueRef ok = LLVMBuildICmp(c->b, LLVMIntUGT, sz, LLVMConstInt(c->t_i64, off, 0), "");
    LLVMValueRef n = LLVMBuildUDiv(c->b, LLVMBuildSub(c->b, sz, LLVMConstInt(c->t_i64, off, 0), ""),
                                   LLVMConstInt(c->t_i64, l->stride, 0), "");
    n = LLVMBuildSelect(c->b, ok, n, LLVMConstInt(c->t_i64, 0, 0), "");
    LLVMTypeRef rt = jit_type(c, in->type_id);
    if (!rt)
        return -1;
    jit_set(c, in->result_id, jit_int_cast(c, n, rt, false));
    return 0;
}

int jit_function_variable(lower_ctx *c, const spv_inst *in)
{
    uint32_t pointee = pointee_of(c, in->result_id);
    const spv_layout *l = pointee ? jit_layout_of(c, pointee) : NULL;
    if (!l)
        return -1;
    uint64_t size = l->size ? l->size : 1;
    LLVMValueRef a = LLVMBuildAlloca(c->pb, LLVMArrayType2(c->t_i8, size),
                                     c->m->ids[in->result_id].name ? c->m->ids[in->result_id].name : "");
    LLVMSetAlignment(a, l->align < 16 ? 16 : l->align);
    jit_set(c, in->result_id, a);
    jit_bounds_variable(c, in->result_id, pointee, l->size);
    if (spv_inst_nops(in) >= 2) {
        LLVMValueRef init = jit_value(c, spv_inst_op(in, 1));
        if (!init || jit_store_mem(c, pointee, a, init, 0, false, 0))
            return -1;
        jit_bounds_store(c, in->result_id, spv_inst_op(in, 1));
    }
    return 0;
}

int jit_lower_memory(lower_ctx *c, const spv_inst *in)
{
    LLVMValueRef v[3];
    switch (in->opcode) {
    case SpvOpVariable:
        return jit_function_variable(c, in);
    case SpvOpLoad: {
        mem_ops mo = memory_operands(in, 1);
        if (jit_operands(c, in, v, 1))
            return -1;
        uint32_t sc = jit_var_storage(c, spv_inst_op(in, 0));
        c->invariant_loads = sc == SpvStorageClassPushConstant;
        c->wg_accesses = sc == SpvStorageClassWorkgroup;
        LLVMValueRef r = jit_checked_load(c, in, spv_inst_op(in, 0), in->type_id, v[0], NULL, mo.align, mo.vol,
                                          c->mat_info[spv_inst_op(in, 0)], SPVJIT_ACCESS_LOAD);
        c->invariant_loads = c->wg_accesses = false;
        if (!r)
            return -1;
        jit_set(c, in->result_id, r);
        jit_bounds_load(c, in->result_id, spv_inst_op(in, 0));
        return 0;
    }
    case SpvOpStore: {
        mem_ops mo = memory_operands(in, 2);
        if (jit_operands(c, in, v, 2))
            return -1;
        uint32_t pt = pointee_of(c, spv_inst_op(in, 0));
        jit_bounds_store(c, spv_inst_op(in, 0), spv_inst_op(in, 1));
        c->wg_accesses = jit_var_storage(c, spv_inst_op(in, 0)) == SpvStorageClassWorkgroup;
        int rc = jit_checked_store(c, in, spv_inst_op(in, 0), pt, v[0], NULL, v[1], mo.align, mo.vol,
                                   c->mat_info[spv_inst_op(in, 0)], SPVJIT_ACCESS_STORE);
        c->wg_accesses = false;
        return rc;
    }
    case SpvOpCopyMemory: {
        if (jit_operands(c, in, v, 2))
            return -1;
        uint32_t dt = pointee_of(c, spv_inst_op(in, 0)), st = pointee_of(c, spv_inst_op(in, 1));
        mem_ops mo = memory_operands(in, 2);
        LLVMValueRef x = jit_checked_load(c, in, spv_inst_op(in, 1), st ? st : dt, v[1], NULL, 0, mo.vol,
                                          c->mat_info[spv_inst_op(in, 1)], SPVJIT_ACCESS_COPY_FROM);
        if (!x)
            return -1;
        return jit_checked_store(c, in, spv_inst_op(in, 0), dt ? dt : st, v[0], NULL, x, 0, mo.vol,
                                 c->mat_info[spv_inst_op(in, 0)], SPVJIT_ACCESS_COPY_TO);
    }
    case SpvOpCopyMemorySized: {
        if (jit_operands(c, in, v, 3))
            return -1;
        mem_ops mo = memory_operands(in, 3);
        return jit_checked_copy(c, in, spv_inst_op(in, 0), spv_inst_op(in, 1), v[0], v[1],
                                jit_int_cast(c, v[2], c->t_i64, false), mo.align ? mo.align : 1, mo.vol);
    }
    case SpvOpAccessChain:
    case SpvOpInBoundsAccessChain:
    case SpvOpPtrAccessChain:
    case SpvOpInBoundsPtrAccessChain:
        return access_chain(c, in);
    case SpvOpArrayLength:
        return array_length(c, in);
    case SpvOpPtrEqual:
    case SpvOpPtrNotEqual:
        if (jit_operands(c, in, v, 2))
            return -1;
        jit_set(c, in->result_id,
                LLVMBuildICmp(c->b, in->opcode == SpvOpPtrEqual ? LLVMIntEQ : LLVMIntNE, v[0], v[1], ""));
        return 0;
    case SpvOpPtrDiff: {
        if (jit_operands(c, in, v, 2))
            return -1;
        LLVMValueRef d = LLVMBuildSub(c->b, LLVMBuildPtrToInt(c->b, v[0], c->t_i64, ""),
                                      LLVMBuildPtrToInt(c->b, v[1], c->t_i64, ""), "");
        uint64_t es = element_stride(c, spv_inst_op(in, 0));
        d = LLVMBuildSDiv(c->b, d, LLVMConstInt(c->t_i64, es ? es : 1, 0), "");
        LLVMTypeRef rt = jit_type(c, in->type_id);
        if (!rt)
            return -1;
        jit_set(c, in->result_id, jit_int_cast(c, d, rt, true));
        return 0;
    }
    default:
        return jit_fail_inst(c, in, "not a memory instruction");
    }
}
