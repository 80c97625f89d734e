/* jit/lower_constants.c — ids as LLVM values: constants, spec constants, undef.
 *
 * Constants become LLVM constants, cached for the whole module.  In the
 * unspecialized mode a SpecId-decorated scalar is loaded from ctx->spec_values
 * (via the item state) in the function's prologue, and OpSpecConstantOp /
 * OpSpecConstantComposite are lowered as ordinary instructions there; with
 * constant operands the LLVM builder folds them back into constants.
 */
#include "lower_ctx.h"

#include <string.h>

void jit_set(lower_ctx *c, uint32_t id, LLVMValueRef v)
{
    if (id && id < c->m->bound)
        c->vals[id] = v;
}

void jit_clear_values(lower_ctx *c)
{
    memset(c->vals, 0, c->m->bound * sizeof *c->vals);
    memset(c->bnd, 0, c->m->bound * sizeof *c->bnd);
    memset(c->shadow, 0, c->m->bound * sizeof *c->shadow);
}

LLVMValueRef jit_const_int(lower_ctx *c, LLVMTypeRef t, uint64_t v)
{
    if (LLVMGetTypeKind(t) == LLVMVectorTypeKind) {
        unsigned n = LLVMGetVectorSize(t);
        LLVMValueRef e = LLVMConstInt(LLVMGetElementType(t), v, 0);
        LLVMValueRef *parts = jit_alloc(c, n, sizeof *parts);
        for (unsigned i = 0; i < n; i++)
            parts[i] = e;
        return LLVMConstVector(parts, n);
    }
    return LLVMConstInt(t, v, 0);
}

static LLVMValueRef scalar_from_bits(lower_ctx *c, LLVMTypeRef t, uint64_t bits)
{
    if (LLVMGetTypeKind(t) == LLVMIntegerTypeKind)
        return LLVMConstInt(t, bits, 0);
    if (LLVMGetTypeKind(t) == LLVMPointerTypeKind)
        return LLVMConstPointerNull(t);
    unsigned w = jit_scalar_bits(t);
    return LLVMConstBitCast(LLVMConstInt(LLVMIntTypeInContext(c->llc, w), bits, 0), t);
}

static bool all_const(LLVMValueRef *v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (!LLVMIsConstant(v[i]))
            return false;
    return true;
}

LLVMValueRef jit_build_composite(lower_ctx *c, uint32_t type_id, LLVMValueRef *parts, uint32_t n)
{
    const spv_type *t = jit_spv_type(c, type_id);
    LLVMTypeRef lt = jit_type(c, type_id);
    if (!t || !lt)
        return NULL;
    if (t->kind == SPV_TYPE_VECTOR) {
        LLVMValueRef r = LLVMConstNull(lt);
        unsigned k = 0;
        for (uint32_t i = 0; i < n && k < t->count; i++) {
            LLVMTypeRef pt = LLVMTypeOf(parts[i]);
            if (LLVMGetTypeKind(pt) == LLVMVectorTypeKind) {
                for (unsigned j = 0; j < LLVMGetVectorSize(pt) && k < t->count; j++, k++) {
                    LLVMValueRef e = LLVMBuildExtractElement(c->b, parts[i], LLVMConstInt(c->t_i32, j, 0), "");
                    r = LLVMBuildInsertElement(c->b, r, e, LLVMConstInt(c->t_i32, k, 0), "");
                }
            } else {
                r = LLVMBuildInsertElement(c->b, r, parts[i], LLVMConstInt(c->t_i32, k++, 0), "");
            }
        }
        return r;
    }
    if (t->kind != SPV_TYPE_STRUCT && t->kind != SPV_TYPE_ARRAY && t->kind != SPV_TYPE_MATRIX) {
        jit_fail(c, "composite of non-composite type %%%u", type_id);
        return NULL;
    }
    if (all_const(parts, n)) {
        if (t->kind == SPV_TYPE_STRUCT)
            return LLVMConstStructInContext(c->llc, parts, n, 0);
        return LLVMConstArray2(LLVMGetElementType(lt), parts, n);
    }
    LLVMValueRef r = LLVMConstNull(lt);
    for (uint32_t i = 0; i < n; i++)
        r = LLVMBuildInsertValue(c->b, r, parts[i], i, "");
    return r;
}

static LLVMValueRef composite_of_ids(lower_ctx *c, uint32_t type_id, const uint32_t *ids, uint32_t n)
{
    LLVMValueRef *parts = jit_alloc(c, n, sizeof *parts);
    for (uint32_t i = 0; i < n; i++)
        if (!(parts[i] = jit_value(c, ids[i])))
            return NULL;
    return jit_build_composite(c, type_id, parts, n);
}

static LLVMValueRef make_constant(lower_ctx *c, uint32_t id, const spv_id *d)
{
    LLVMTypeRef t = jit_type(c, d->type_id);
    if (!t)
        return NULL;
    const spv_inst *in = spv_def(c->m, id);
    uint32_t op = in ? in->opcode : 0;
    if (op == SpvOpConstantSampler) {
        jit_fail(c, "%%%u: OpConstantSampler (images and samplers) is not supported", id);
        return NULL;
    }
    if (d->is_null || op == SpvOpConstantNull)
        return LLVMConstNull(t);
    if (d->is_composite)
        return composite_of_ids(c, d->type_id, d->parts, d->nparts);
    if (LLVMGetTypeKind(t) == LLVMVectorTypeKind || LLVMGetTypeKind(t) == LLVMArrayTypeKind ||
        LLVMGetTypeKind(t) == LLVMStructTypeKind) {
        jit_fail(c, "%%%u: composite constant without constituents", id);
        return NULL;
    }
    return scalar_from_bits(c, t, d->scalar);
}

/* Unspecialized mode: a SpecId scalar loaded from the spec-value slots. */
static LLVMValueRef load_spec_slot(lower_ctx *c, uint32_t id, const spv_id *d)
{
    if (!c->llfn) {
        jit_fail(c,
                 "%%%u: spec constant used in a module-scope initializer cannot be a run-time "
                 "value (compile this module specialized)",
                 id);
        return NULL;
    }
    LLVMTypeRef t = jit_type(c, d->type_id);
    if (!t)
        return NULL;
    LLVMBuilderRef b = c->pb;
    LLVMValueRef base = LLVMBuildLoad2(b, c->t_ptr, jit_item_field_ptr(c, JIT_ITEM_ENV + 8 * JIT_ENV_SPEC), "spec");
    LLVMValueRef p =
        LLVMBuildGEP2(b, c->t_i8, base, (LLVMValueRef[]){ LLVMConstInt(c->t_i64, 8ull * c->var_slot[id], 0) }, 1, "");
    LLVMValueRef bits = LLVMBuildLoad2(b, c->t_i64, p, "");
    LLVMSetAlignment(bits, 8);
    if (t == c->t_i1)
        return LLVMBuildICmp(b, LLVMIntNE, bits, LLVMConstInt(c->t_i64, 0, 0), d->name ? d->name : "");
    if (LLVMGetTypeKind(t) == LLVMIntegerTypeKind)
        return LLVMGetIntTypeWidth(t) == 64 ? bits : LLVMBuildTrunc(b, bits, t, "");
    unsigned w = jit_scalar_bits(t);
    LLVMValueRef i = w == 64 ? bits : LLVMBuildTrunc(b, bits, LLVMIntTypeInContext(c->llc, w), "");
    return LLVMBuildBitCast(b, i, t, "");
}

static int lower_spec_op(lower_ctx *c, const spv_inst *in);

static LLVMValueRef spec_constant(lower_ctx *c, uint32_t id, const spv_id *d)
{
    const spv_inst *in = spv_def(c->m, id);
    uint32_t op = in ? in->opcode : 0;
    if (op == SpvOpSpecConstantOp) {
        if (lower_spec_op(c, in))
            return NULL;
        return c->vals[id] ? c->vals[id] : c->consts[id];
    }
    LLVMValueRef v;
    if (id == c->m->workgroup_size_id && c->ls_known) {
        /* the work-group size takes the compile-time local size in every mode */
        LLVMTypeRef t = jit_type(c, d->type_id);
        if (!t || LLVMGetTypeKind(t) != LLVMVectorTypeKind)
            return NULL;
        LLVMValueRef e[4];
        for (unsigned i = 0; i < 3 && i < LLVMGetVectorSize(t); i++)
            e[i] = LLVMConstInt(LLVMGetElementType(t), c->local_size[i], 0);
        return c->consts[id] = LLVMConstVector(e, LLVMGetVectorSize(t) < 3 ? LLVMGetVectorSize(t) : 3);
    }
    LLVMBuilderRef saved = c->b;
    if (c->llfn)
        c->b = c->pb;
    if (d->is_composite) {
        v = composite_of_ids(c, d->type_id, d->parts, d->nparts);
    } else if (c->unspec && c->var_slot[id] != SPV_NONE) {
        v = load_spec_slot(c, id, d);
    } else {
        v = make_constant(c, id, d);
    }
    c->b = saved;
    if (!v)
        return NULL;
    if (LLVMIsConstant(v))
        c->consts[id] = v;
    else
        c->vals[id] = v;
    return v;
}

/* OpSpecConstantOp as an instruction: rebuild it with the real opcode and run the
 * ordinary lowering (the driver's opcode table, c->dispatch) in the prologue. */
static int lower_spec_op(lower_ctx *c, const spv_inst *in)
{
    if (in->nwords < 4)
        return jit_fail_inst(c, in, "truncated OpSpecConstantOp");
    uint32_t *w = jit_alloc(c, in->nwords, sizeof *w);
    uint32_t op = spv_inst_op(in, 0);
    w[0] = ((uint32_t)(in->nwords - 1) << 16) | op;
    w[1] = in->type_id;
    w[2] = in->result_id;
    memcpy(w + 3, in->w + 4, (in->nwords - 4) * sizeof *w);
    spv_inst tmp = *in;
    tmp.opcode = (uint16_t)op;
    tmp.nwords = (uint16_t)(in->nwords - 1);
    tmp.first_op = 3;
    tmp.w = w;
    LLVMBuilderRef saved = c->b;
    if (c->llfn)
        c->b = c->pb;
    int rc = c->dispatch(c, &tmp);
    c->b = saved;
    if (rc)
        return rc;
    LLVMValueRef v = c->vals[in->result_id];
    if (!v)
        return jit_fail_inst(c, in, "OpSpecConstantOp produced no value");
    if (LLVMIsConstant(v)) {
        c->consts[in->result_id] = v;
        c->vals[in->result_id] = NULL;
    } else if (!c->llfn)
        return jit_fail_inst(c, in, "not a compile-time constant at module scope");
    return 0;
}

LLVMValueRef jit_value(lower_ctx *c, uint32_t id)
{
    const spv_id *d = spv_id_get(c->m, id);
    if (!d) {
        jit_fail(c, "id %u is out of range (bound %u)", id, c->m->bound);
        return NULL;
    }
    if (c->vals[id])
        return c->vals[id];
    if (c->consts[id])
        return c->consts[id];
    LLVMValueRef v = NULL;
    switch (d->kind) {
    case SPV_ID_CONSTANT:
        if ((v = make_constant(c, id, d)))
            c->consts[id] = v;
        return v;
    case SPV_ID_SPEC_CONSTANT:
        return spec_constant(c, id, d);
    case SPV_ID_UNDEF: {
        /* Any value will do; a defined one keeps LLVM from exploiting undef. */
        LLVMTypeRef t = jit_type(c, d->type_id);
        if (t)
            c->consts[id] = v = LLVMConstNull(t);
        return v;
    }
    case SPV_ID_GLOBAL_VARIABLE:
        if (!c->llfn && c->globals[id])
            return c->globals[id];
        if (!c->llfn) {
            jit_fail(c, "%%%u: this variable's address is not a module-scope constant", id);
            return NULL;
        }
        if ((v = jit_global_var_ptr(c, id))) {
            if (LLVMIsConstant(v))
                c->consts[id] = v;
            else
                c->vals[id] = v;
        }
        return v;
    case SPV_ID_FUNCTION:
        jit_fail(c, "%%%u: a function used as a value (function pointers are not supported)", id);
        return NULL;
    default:
        jit_fail(c, "%%%u (%s) is used where it has no value (before its definition, or not a value)", id,
                 d->name ? d->name : "unnamed");
        return NULL;
    }
}

/* --- constants as bytes (initializers of module-scope memory) --------------- */

static void put_bits(uint8_t *buf, uint64_t size, uint64_t off, uint64_t bits, uint32_t nbytes)
{
    for (uint32_t i = 0; i < nbytes && off + i < size; i++)
        buf[off + i] = (uint8_t)(bits >> (8 * i));
}

static int const_bytes_at(lower_ctx *c, uint32_t id, uint32_t type_id, uint8_t *buf, uint64_t size, uint64_t off)
{
    const spv_id *d = spv_id_get(c->m, id);
    const spv_type *t = jit_spv_type(c, type_id);
    if (!d || !t)
        return -1;
    if (d->kind == SPV_ID_UNDEF || d->is_null)
        return 0;
    if (d->kind != SPV_ID_CONSTANT && d->kind != SPV_ID_SPEC_CONSTANT)
        return jit_fail(c, "%%%u: initializer is not a constant", id);
    if (d->kind == SPV_ID_SPEC_CONSTANT && (c->unspec || !d->is_composite)) {
        const spv_inst *in = spv_def(c->m, id);
        if (c->unspec || (in && in->opcode == SpvOpSpecConstantOp))
            return jit_fail(c,
                            "%%%u: a module-scope initializer depending on a spec constant "
                            "(compile specialized)",
                            id);
    }
    if (!d->is_composite) {
        if (t->kind == SPV_TYPE_POINTER)
            return jit_fail(c, "%%%u: pointer constant in an initializer", id);
        const spv_layout *l = jit_layout_of(c, type_id);
        if (!l)
            return -1;
        put_bits(buf, size, off, d->scalar, (uint32_t)l->size);
        return 0;
    }
    for (uint32_t i = 0; i < d->nparts; i++) {
        uint32_t et;
        uint64_t eoff;
        if (t->kind == SPV_TYPE_STRUCT) {
            if (i >= t->nmembers)
                break;
            et = t->members[i];
            eoff = jit_member_offset(c, type_id, i);
        } else {
            const spv_layout *l = jit_layout_of(c, type_id);
            if (!l)
                return -1;
            et = t->elem;
            eoff = i * l->stride; /* elements, columns or components */
        }
        if (const_bytes_at(c, d->parts[i], et, buf, size, off + eoff))
            return -1;
    }
    return 0;
}

int jit_const_bytes(lower_ctx *c, uint32_t id, uint32_t type_id, uint8_t *buf, uint64_t size)
{
    memset(buf, 0, size);
    return const_bytes_at(c, id, type_id, buf, size, 0);
}
