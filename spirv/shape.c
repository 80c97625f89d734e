/* spirv/shape.c — see shape.h. */
#include "shape.h"

#include "fold.h"

/* Deeper OpSpecConstantOp chains than this are refused (a malformed module
 * could otherwise recurse without end). */
#define MAX_DEPTH 256

static bool int_fold_type(const spv_module *m, uint32_t type_id, spv_fold_type *ft)
{
    const spv_type *t = spv_type_get(m, type_id);
    if (!t || (t->kind != SPV_TYPE_INT && t->kind != SPV_TYPE_BOOL) || (t->kind == SPV_TYPE_INT && t->width > 64))
        return false;
    *ft = (spv_fold_type){ t->kind == SPV_TYPE_BOOL ? SPV_FOLD_BOOL : SPV_FOLD_INT,
                           (uint8_t)(t->kind == SPV_TYPE_BOOL ? 1 : t->width), 1 };
    return true;
}

static bool value_of(const spv_shape *s, uint32_t id, int depth, spv_fold_value *out);

static bool spec_op(const spv_shape *s, const spv_inst *in, int depth, spv_fold_value *out)
{
    if (spv_inst_nops(in) < 2 || !int_fold_type(s->m, in->type_id, &out->t))
        return false;
    uint32_t op = spv_inst_op(in, 0), nargs = spv_inst_nops(in) - 1;
    if (op == SpvOpCompositeExtract) {
        /* a scalar of a constant composite (glslang's gl_WorkGroupSize.x): follow the indices */
        uint32_t id = spv_inst_op(in, 1);
        for (uint32_t k = 2; k <= nargs; k++) {
            const spv_id *d = spv_id_get(s->m, id);
            uint32_t idx = spv_inst_op(in, k);
            if (!d || !d->is_composite || idx >= d->nparts)
                return false;
            id = d->parts[idx];
        }
        return value_of(s, id, depth + 1, out);
    }
    spv_fold_value args[3];
    if (nargs > 3 || !spv_fold_supports(op))
        return false;
    for (uint32_t i = 0; i < nargs; i++)
        if (!value_of(s, spv_inst_op(in, 1 + i), depth + 1, &args[i]))
            return false;
    spv_fold_type rt = out->t;
    return spv_fold(op, rt, args, nargs, NULL, 0, out, NULL) == 0;
}

static bool value_of(const spv_shape *s, uint32_t id, int depth, spv_fold_value *out)
{
    const spv_id *d = spv_id_get(s->m, id);
    if (!d || depth > MAX_DEPTH || d->is_composite || !int_fold_type(s->m, d->type_id, &out->t))
        return false;
    for (int i = 1; i < SPV_FOLD_MAX_LANES; i++)
        out->lane[i] = 0;
    if (d->kind == SPV_ID_CONSTANT) {
        out->lane[0] = d->is_null ? 0 : spv_fold_mask(d->scalar, out->t.width);
        return true;
    }
    if (d->kind != SPV_ID_SPEC_CONSTANT)
        return false;
    const spv_inst *in = spv_def(s->m, id);
    if (in && in->opcode == SpvOpSpecConstantOp)
        return spec_op(s, in, depth, out);
    uint64_t bits = d->scalar;
    for (size_t i = 0; d->spec_id != SPV_NONE && i < s->nvalues; i++)
        if (s->values[i].spec_id == d->spec_id)
            bits = s->values[i].bits;
    out->lane[0] = out->t.kind == SPV_FOLD_BOOL ? bits != 0 : spv_fold_mask(bits, out->t.width);
    return true;
}

bool spv_shape_u64(const spv_shape *s, uint32_t id, uint64_t *out)
{
    spv_fold_value v;
    if (!value_of(s, id, 0, &v))
        return false;
    *out = v.lane[0];
    return true;
}
