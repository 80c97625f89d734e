/* spirv/specialize.c — folding specialization constants into true constants.
 *
 * Two steps over the global section of a loaded module:
 *   1. evaluate: every constant-creating instruction, in module order (which
 *      SPIR-V makes dependency order), gets a value: lanes (scalar / vector of
 *      bool, int, float), an aggregate of constituent ids, a null aggregate, or
 *      "opaque" (pointers, samplers: not foldable).  User values replace the
 *      defaults of SpecId-decorated constants; OpSpecConstantOp is folded by
 *      fold.c, or here for CompositeExtract/Insert/Select on aggregates.
 *   2. write: the same instructions with OpSpecConstant* turned into OpConstant*
 *      under the same result ids (so callers can match ids across the two
 *      modules), SpecId decorations dropped, LocalSizeId / the WorkgroupSize
 *      constant turned into a plain LocalSize.  A vector result of
 *      OpSpecConstantOp needs a constant per lane: an equal scalar constant
 *      defined earlier is reused, otherwise a new one (fresh id, the bound grows)
 *      is written right before the instruction that needs it (its type is
 *      defined earlier still, as the vector type is).
 *
 * OpSpecConstantOp with a pointer result (AccessChain, PtrAccessChain,
 * GenericCastToPtr, ...), or depending on one (ConvertPtrToU), cannot become
 * an OpConstant: it stays an OpSpecConstantOp whose operands are now plain
 * constants, i.e. a constant expression the lowering evaluates as such.  An
 * OpSpecConstantComposite with such a constituent likewise stays.  An OpUndef
 * operand of a folded OpSpecConstantOp reads as zero.
 */
#include "specialize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fold.h"
#include "spirv_grammar.h"
#include "util/array.h"
#include "util/hashmap.h"
#include "writer.h"

typedef enum cv_kind {
    CV_NONE = 0, /* not a constant */
    CV_LANES,    /* scalar or vector: v */
    CV_AGG,      /* array, struct, matrix: parts */
    CV_NULL,     /* a null (or undef) aggregate / pointer / opaque-typed null */
    CV_OPAQUE,   /* cannot be folded: stays as it is */
} cv_kind;

typedef struct cval {
    uint8_t kind;
    spv_fold_value v; /* CV_LANES */
    uint32_t nparts;  /* CV_AGG: constituents; CV_LANES vector: lane constant ids once known */
    const uint32_t *parts;
} cval;

/* A constant the specializer creates, written right before instruction `before`. */
typedef struct new_const {
    uint32_t before;
    uint32_t id, type_id;
    uint16_t opcode; /* OpConstant, OpConstantTrue/False, OpConstantComposite, OpConstantNull */
    uint64_t bits;   /* OpConstant */
    uint32_t nparts; /* OpConstantComposite */
    const uint32_t *parts;
} new_const;

typedef struct scalar_key {
    uint32_t type_id;
    uint64_t bits;
} scalar_key;

typedef struct spec_ctx {
    const spv_module *m;
    spv_diag *diag;
    uint32_t bound; /* grows as constants are created */
    uint32_t *vidx; /* [vcap] id -> index in vals (0: none) */
    uint32_t vcap;
    util_array vals;      /* of cval; [0] stands for "none" */
    util_array owned;     /* of uint32_t *: parts arrays to free */
    util_array news;      /* of new_const, in the order they are written */
    util_hashmap scalars; /* scalar_key * (malloc'd) -> the id of the first such constant */
    /* user values, per entry of the spec constant list */
    spv_spec_constant *list;
    size_t nlist;
    uint64_t *ov_bits; /* [nlist]: the value of each (the user's, else the default) */
    uint32_t cur;      /* instruction being evaluated */
} spec_ctx;

static const char *src(const spv_module *m)
{
    return m->source ? m->source : "<memory>";
}

static int oom(spec_ctx *c)
{
    return spv_fail(c->diag, "%s: out of memory while specializing", src(c->m));
}

/* --- small tables ------------------------------------------------------------------ */

static const cval *get_val(const spec_ctx *c, uint32_t id)
{
    if (id == 0 || id >= c->vcap || !c->vidx[id])
        return NULL;
    return &UTIL_ARRAY_AT(&c->vals, cval, c->vidx[id]);
}

static int set_val(spec_ctx *c, uint32_t id, const cval *v)
{
    if (id >= c->vcap) {
        uint32_t cap = c->vcap * 2 > id + 1 ? c->vcap * 2 : id + 1;
        uint32_t *p = realloc(c->vidx, cap * sizeof *p);
        if (!p)
            return oom(c);
        memset(p + c->vcap, 0, (cap - c->vcap) * sizeof *p);
        c->vidx = p;
        c->vcap = cap;
    }
    if (c->vals.size == 0 && !util_array_grow(&c->vals, sizeof(cval))) /* index 0 means "none" */
        return oom(c);
    if (UTIL_ARRAY_COUNT(&c->vals, cval) > UINT32_MAX - 1 || !UTIL_ARRAY_PUSH(&c->vals, cval, *v))
        return oom(c);
    c->vidx[id] = (uint32_t)UTIL_ARRAY_COUNT(&c->vals, cval) - 1;
    return 0;
}

static uint32_t *alloc_parts(spec_ctx *c, uint32_t n)
{
    uint32_t *a = calloc(n ? n : 1, sizeof *a);
    if (a && !UTIL_ARRAY_PUSH(&c->owned, uint32_t *, a)) {
        free(a);
        return NULL;
    }
    return a;
}

static bool scalar_key_equal(const void *a, const void *b)
{
    const scalar_key *x = a, *y = b;
    return x->type_id == y->type_id && x->bits == y->bits;
}

static uint64_t scalar_hash(const scalar_key *k)
{
    return util_hash_u64(k->bits ^ util_hash_u64(k->type_id));
}

/* The id of an earlier scalar constant of `type_id` holding `bits`, or 0. */
static uint32_t known_scalar(const spec_ctx *c, uint32_t type_id, uint64_t bits)
{
    scalar_key k = { type_id, bits };
    return (uint32_t)(uintptr_t)util_hashmap_get(&c->scalars, scalar_hash(&k), &k);
}

/* Records that scalar constant `id` of `type_id` holds `bits` (first one wins). */
static int remember_scalar(spec_ctx *c, uint32_t type_id, uint64_t bits, uint32_t id)
{
    if (known_scalar(c, type_id, bits))
        return 0;
    scalar_key *k = malloc(sizeof *k);
    if (!k)
        return oom(c);
    *k = (scalar_key){ type_id, bits };
    if (!util_hashmap_put(&c->scalars, scalar_hash(k), k, (void *)(uintptr_t)id)) {
        free(k);
        return oom(c);
    }
    return 0;
}

static int push_new(spec_ctx *c, const new_const *n)
{
    return UTIL_ARRAY_PUSH(&c->news, new_const, *n) ? 0 : oom(c);
}

static int fresh_id(spec_ctx *c, uint32_t *id)
{
    if (c->bound >= SPV_MAX_ID_BOUND)
        return spv_fail(c->diag, "%s: specializing needs more ids than the limit %u", src(c->m), SPV_MAX_ID_BOUND);
    *id = c->bound++;
    return 0;
}

/* --- types ---------------------------------------------------------------------------- */

static bool fold_type_of(const spv_module *m, uint32_t type_id, spv_fold_type *ft)
{
    const spv_type *t = spv_type_get(m, type_id);
    if (!t)
        return false;
    uint32_t lanes = 1;
    if (t->kind == SPV_TYPE_VECTOR) {
        lanes = t->count;
        t = spv_type_get(m, t->elem);
        if (!t || lanes > SPV_FOLD_MAX_LANES)
            return false;
    }
    switch (t->kind) {
    case SPV_TYPE_BOOL:
        *ft = (spv_fold_type){ SPV_FOLD_BOOL, 1, (uint8_t)lanes };
        return true;
    case SPV_TYPE_INT:
        *ft = (spv_fold_type){ SPV_FOLD_INT, (uint8_t)t->width, (uint8_t)lanes };
        return true;
    case SPV_TYPE_FLOAT:
        *ft = (spv_fold_type){ SPV_FOLD_FLOAT, (uint8_t)t->width, (uint8_t)lanes };
        return true;
    default:
        return false;
    }
}

/* --- user values ---------------------------------------------------------------------------------- */

/* Every constant's value: the user's where given (fitted by spec_value.c), else its default. */
static int apply_values(spec_ctx *c, const spv_spec_value *values, size_t n)
{
    return spv_spec_resolve(c->m, c->list, c->nlist, values, n, c->ov_bits, c->diag);
}

/* Type of constituent k of an aggregate type (0 if none); *count: how many
 * constituents the type has (an array's length as specialized). */
static uint32_t member_type(const spec_ctx *c, uint32_t type_id, uint32_t k, uint32_t *count)
{
    const spv_type *t = spv_type_get(c->m, type_id);
    *count = 0;
    if (!t)
        return 0;
    switch (t->kind) {
    case SPV_TYPE_STRUCT:
        *count = t->nmembers;
        return k < t->nmembers ? t->members[k] : 0;
    case SPV_TYPE_ARRAY: {
        const cval *len = get_val(c, t->length_id);
        if (!len || len->kind != CV_LANES || len->v.t.kind != SPV_FOLD_INT || len->v.lane[0] > UINT32_MAX)
            return 0;
        *count = (uint32_t)len->v.lane[0];
        return t->elem;
    }
    case SPV_TYPE_MATRIX:
    case SPV_TYPE_VECTOR:
        *count = t->count;
        return t->elem;
    default:
        return 0;
    }
}

/* --- evaluation -------------------------------------------------------------------------------------- */

/* The value of operand `id` (global OpUndef has one: zero / null). */
static const cval *operand_val(spec_ctx *c, uint32_t id)
{
    return get_val(c, id);
}

/* The id of a scalar constant of `type_id` holding `bits`: an earlier one, or a
 * new one written before the current instruction. */
static int scalar_const(spec_ctx *c, uint32_t type_id, const spv_fold_type *st, uint64_t bits, uint32_t *id)
{
    if ((*id = known_scalar(c, type_id, bits)))
        return 0;
    new_const n = { .before = c->cur, .type_id = type_id, .bits = bits };
    n.opcode = st->kind == SPV_FOLD_BOOL ? (bits ? SpvOpConstantTrue : SpvOpConstantFalse) : SpvOpConstant;
    if (fresh_id(c, &n.id) || push_new(c, &n))
        return -1;
    cval v = { .kind = CV_LANES };
    v.v.t = *st;
    v.v.t.lanes = 1;
    v.v.lane[0] = bits;
    if (set_val(c, n.id, &v) || remember_scalar(c, type_id, bits, n.id))
        return -1;
    *id = n.id;
    return 0;
}

/* Gives a vector value lane constant ids (v->parts), creating them as needed. */
static int vector_lane_ids(spec_ctx *c, uint32_t type_id, cval *v)
{
    if (v->v.t.lanes == 1 || v->parts)
        return 0;
    const spv_type *t = spv_type_get(c->m, type_id);
    uint32_t *ids = alloc_parts(c, v->v.t.lanes);
    if (!t || !ids)
        return oom(c);
    spv_fold_type st = v->v.t;
    st.lanes = 1;
    for (unsigned i = 0; i < v->v.t.lanes; i++)
        if (scalar_const(c, t->elem, &st, v->v.lane[i], &ids[i]))
            return -1;
    v->parts = ids;
    v->nparts = v->v.t.lanes;
    return 0;
}

/* A constant with value v and type type_id, written before the current
 * instruction; its id in *id. */
static int materialize(spec_ctx *c, cval *v, uint32_t type_id, uint32_t *id)
{
    if (v->kind == CV_LANES && v->v.t.lanes == 1)
        return scalar_const(c, type_id, &v->v.t, v->v.lane[0], id);
    new_const n = { .before = c->cur, .type_id = type_id };
    if (v->kind == CV_LANES) {
        if (vector_lane_ids(c, type_id, v))
            return -1;
        n.opcode = SpvOpConstantComposite;
    } else if (v->kind == CV_AGG) {
        n.opcode = SpvOpConstantComposite;
    } else {
        n.opcode = SpvOpConstantNull;
    }
    n.nparts = v->nparts;
    n.parts = v->parts;
    if (fresh_id(c, &n.id) || push_new(c, &n) || set_val(c, n.id, v))
        return -1;
    *id = n.id;
    return 0;
}

static int op_error(spec_ctx *c, const spv_inst *in, const char *fmt, const char *detail)
{
    const char *name = spv_opcode_name(spv_inst_op(in, 0));
    spv_fail(c->diag, "%s: word %u: OpSpecConstantOp %%%u (%s): ", src(c->m), in->offset, in->result_id,
             name ? name : "unknown opcode");
    spv_diag_append(c->diag, fmt, detail);
    return -1;
}

/* CompositeExtract on an aggregate (or a vector inside one). */
static int extract(spec_ctx *c, const spv_inst *in, const cval *comp, const uint32_t *idx, uint32_t n, cval *out)
{
    const cval *cur = comp;
    for (uint32_t k = 0; k < n; k++) {
        if (cur->kind == CV_OPAQUE) {
            out->kind = CV_OPAQUE;
            return 0;
        }
        if (cur->kind == CV_NULL) {
            /* an element of a null (or undef) aggregate is null */
            out->kind = CV_NULL;
            if (fold_type_of(c->m, in->type_id, &out->v.t))
                out->kind = CV_LANES;
            return 0;
        }
        if (cur->kind == CV_LANES) {
            if (k + 1 != n || idx[k] >= cur->v.t.lanes)
                return op_error(c, in, "%s", "index out of range for a vector");
            out->kind = CV_LANES;
            out->v.t = cur->v.t;
            out->v.t.lanes = 1;
            out->v.lane[0] = cur->v.lane[idx[k]];
            return 0;
        }
        if (cur->kind != CV_AGG || idx[k] >= cur->nparts)
            return op_error(c, in, "%s", "index out of range for the composite");
        cur = operand_val(c, cur->parts[idx[k]]);
        if (!cur)
            return op_error(c, in, "%s", "a constituent is not a constant");
    }
    *out = *cur;
    if (out->kind == CV_LANES && out->v.t.lanes > 1)
        out->parts = NULL, out->nparts = 0; /* the result gets its own lane ids */
    return 0;
}

/* CompositeInsert of object `obj` into `comp` (of type comp_type) at idx[0..n). */
/* Values are passed by copy: creating constants may move the value table. */
static int insert(spec_ctx *c, const spv_inst *in, cval comp_copy, uint32_t comp_type, const uint32_t *idx, uint32_t n,
                  uint32_t obj, cval *out)
{
    const cval *comp = &comp_copy;
    if (comp->kind == CV_OPAQUE) {
        out->kind = CV_OPAQUE;
        return 0;
    }
    const cval *ovp = operand_val(c, obj);
    if (!ovp)
        return op_error(c, in, "%s", "the object is not a constant");
    cval ov_copy = *ovp;
    const cval *ov = &ov_copy;
    if (comp->kind == CV_LANES) {
        if (n != 1 || idx[0] >= comp->v.t.lanes || ov->kind != CV_LANES || ov->v.t.lanes != 1)
            return op_error(c, in, "%s", "expected a scalar inserted at a vector index in range");
        *out = *comp;
        out->parts = NULL;
        out->nparts = 0;
        out->v.lane[idx[0]] = ov->v.lane[0];
        return 0;
    }
    uint32_t count = 0;
    uint32_t elem_type = member_type(c, comp_type, idx[0], &count);
    if (!elem_type || idx[0] >= count)
        return op_error(c, in, "%s", "index out of range for the composite");
    if (count > 0xffff - 3)
        return op_error(c, in, "%s", "the composite is too large to write as one instruction");
    uint32_t *parts = alloc_parts(c, count);
    if (!parts)
        return oom(c);
    if (comp->kind == CV_AGG) {
        if (comp->nparts != count)
            return op_error(c, in, "%s", "the composite's constituents do not match its type");
        memcpy(parts, comp->parts, count * sizeof *parts);
    } else {
        /* a null aggregate: null constituents, one OpConstantNull per member type */
        for (uint32_t k = 0; k < count; k++) {
            uint32_t cnt, mt = member_type(c, comp_type, k, &cnt);
            if (k && mt == member_type(c, comp_type, k - 1, &cnt)) {
                parts[k] = parts[k - 1]; /* arrays: one null element serves all */
                continue;
            }
            cval z = { .kind = CV_NULL };
            if (fold_type_of(c->m, mt, &z.v.t))
                z.kind = CV_LANES;
            if (materialize(c, &z, mt, &parts[k]))
                return -1;
        }
    }
    if (n == 1) {
        parts[idx[0]] = obj;
    } else {
        const cval *child = operand_val(c, parts[idx[0]]);
        if (!child)
            return op_error(c, in, "%s", "a constituent is not a constant");
        cval sub = { 0 };
        if (insert(c, in, *child, elem_type, idx + 1, n - 1, obj, &sub))
            return -1;
        if (sub.kind == CV_OPAQUE) {
            out->kind = CV_OPAQUE;
            return 0;
        }
        if (materialize(c, &sub, elem_type, &parts[idx[0]]))
            return -1;
    }
    *out = (cval){ .kind = CV_AGG, .nparts = count, .parts = parts };
    return 0;
}

static bool is_pointer_op(uint32_t op)
{
    switch (op) {
    case SpvOpConvertPtrToU:
    case SpvOpConvertUToPtr:
    case SpvOpGenericCastToPtr:
    case SpvOpPtrCastToGeneric:
    case SpvOpAccessChain:
    case SpvOpInBoundsAccessChain:
    case SpvOpPtrAccessChain:
    case SpvOpInBoundsPtrAccessChain:
        return true;
    default:
        return false;
    }
}

static int eval_spec_op(spec_ctx *c, const spv_inst *in, cval *out)
{
    const spv_module *m = c->m;
    if (spv_inst_nops(in) < 1)
        return spv_fail(c->diag, "%s: word %u: OpSpecConstantOp %%%u has no opcode operand", src(m), in->offset,
                        in->result_id);
    uint32_t op = spv_inst_op(in, 0);
    const uint32_t *ops = in->w + in->first_op + 1;
    uint32_t nops = spv_inst_nops(in) - 1;
    const spv_type *rtype = spv_type_get(m, in->type_id);
    if (is_pointer_op(op) || (rtype && rtype->kind == SPV_TYPE_POINTER)) {
        out->kind = CV_OPAQUE;
        return 0;
    }
    if (!spv_fold_supports(op))
        return op_error(c, in, "%s", "this opcode is not allowed in OpSpecConstantOp");
    uint32_t nids = op == SpvOpVectorShuffle || op == SpvOpCompositeInsert ? 2 : op == SpvOpCompositeExtract ? 1 : nops;
    if (nids > nops || nids > 3)
        return op_error(c, in, "%s", "wrong number of operands");
    spv_fold_value args[3];
    bool all_lanes = true;
    const cval *vals[3] = { 0 };
    for (uint32_t k = 0; k < nids; k++) {
        vals[k] = operand_val(c, ops[k]);
        if (!vals[k]) {
            /* a pointer-typed operand (global variable, null pointer): not foldable */
            const spv_id *x = spv_id_get(m, ops[k]);
            const spv_type *t = x ? spv_type_get(m, x->type_id) : NULL;
            if (t && t->kind == SPV_TYPE_POINTER) {
                out->kind = CV_OPAQUE;
                return 0;
            }
            char msg[64];
            snprintf(msg, sizeof msg, "operand %%%u is not a constant", ops[k]);
            return op_error(c, in, "%s", msg);
        }
        if (vals[k]->kind == CV_OPAQUE) {
            out->kind = CV_OPAQUE;
            return 0;
        }
        if (vals[k]->kind == CV_LANES)
            args[k] = vals[k]->v;
        else
            all_lanes = false;
    }
    spv_fold_type rt;
    bool rt_lanes = fold_type_of(m, in->type_id, &rt);
    if (rt_lanes && all_lanes) {
        spv_diag sub;
        out->kind = CV_LANES;
        if (spv_fold(op, rt, args, nids, ops + nids, nops - nids, &out->v, &sub))
            return op_error(c, in, "%s", sub.msg);
        return 0;
    }
    if (op == SpvOpCompositeExtract)
        return extract(c, in, vals[0], ops + 1, nops - 1, out);
    if (op == SpvOpCompositeInsert) {
        if (nops < 3)
            return op_error(c, in, "%s", "expected at least one index");
        const spv_id *x = spv_id_get(m, ops[1]);
        return insert(c, in, *vals[1], x ? x->type_id : 0, ops + 2, nops - 2, ops[0], out);
    }
    if (op == SpvOpSelect && vals[0]->kind == CV_LANES && vals[0]->v.t.lanes == 1) {
        /* aggregates: the condition picks one of the objects whole */
        *out = *vals[vals[0]->v.lane[0] ? 1 : 2];
        if (out->kind == CV_LANES && out->v.t.lanes > 1)
            out->parts = NULL, out->nparts = 0;
        return 0;
    }
    for (uint32_t k = 0; k < nids; k++)
        if (vals[k]->kind == CV_NULL) {
            const spv_id *x = spv_id_get(m, ops[k]);
            const spv_type *t = x ? spv_type_get(m, x->type_id) : NULL;
            if (t && t->kind != SPV_TYPE_ARRAY && t->kind != SPV_TYPE_STRUCT && t->kind != SPV_TYPE_MATRIX) {
                out->kind = CV_OPAQUE; /* a null pointer, event, ...: not foldable */
                return 0;
            }
        }
    return op_error(c, in, "%s", "operand or result types do not fit the opcode");
}

static int override_of(const spec_ctx *c, uint32_t id, uint64_t *bits)
{
    for (size_t k = 0; k < c->nlist; k++)
        if (c->list[k].id == id) {
            *bits = c->ov_bits[k];
            return 1;
        }
    return 0;
}

static int evaluate(spec_ctx *c)
{
    const spv_module *m = c->m;
    for (uint32_t i = 0; i < m->first_func_inst; i++) {
        const spv_inst *in = &m->insts[i];
        c->cur = i;
        if (!in->result_id)
            continue;
        cval v = { 0 };
        spv_fold_type ft;
        bool lanes = fold_type_of(m, in->type_id, &ft);
        const spv_id *x = &m->ids[in->result_id];
        switch (in->opcode) {
        case SpvOpConstantTrue:
        case SpvOpConstantFalse:
        case SpvOpSpecConstantTrue:
        case SpvOpSpecConstantFalse:
        case SpvOpConstant:
        case SpvOpSpecConstant: {
            if (!lanes || ft.lanes != 1)
                return spv_fail(c->diag, "%s: word %u: constant %%%u is not of a scalar type", src(m), in->offset,
                                in->result_id);
            v.kind = CV_LANES;
            v.v.t = ft;
            uint64_t bits = x->scalar;
            if (in->opcode == SpvOpSpecConstantTrue || in->opcode == SpvOpSpecConstantFalse ||
                in->opcode == SpvOpSpecConstant)
                override_of(c, in->result_id, &bits);
            v.v.lane[0] = ft.kind == SPV_FOLD_BOOL ? bits != 0 : spv_fold_mask(bits, ft.width);
            if (in->opcode == SpvOpConstant || in->opcode == SpvOpConstantTrue || in->opcode == SpvOpConstantFalse)
                if (remember_scalar(c, in->type_id, v.v.lane[0], in->result_id))
                    return -1;
            break;
        }
        case SpvOpConstantNull:
            v.kind = lanes ? CV_LANES : CV_NULL;
            v.v.t = ft;
            break;
        case SpvOpConstantComposite:
        case SpvOpSpecConstantComposite: {
            v.kind = lanes ? CV_LANES : CV_AGG;
            v.v.t = ft;
            v.nparts = spv_inst_nops(in);
            v.parts = in->w + in->first_op;
            for (uint32_t k = 0; k < v.nparts; k++) {
                const cval *p = operand_val(c, v.parts[k]);
                if (!p)
                    return spv_fail(c->diag, "%s: word %u: constituent %%%u of %%%u is not a constant", src(m),
                                    in->offset, v.parts[k], in->result_id);
                if (p->kind == CV_OPAQUE) {
                    v.kind = CV_OPAQUE;
                    break;
                }
                if (lanes) {
                    if (p->kind != CV_LANES || p->v.t.lanes != 1 || k >= ft.lanes)
                        return spv_fail(c->diag, "%s: word %u: constituent %%%u of vector %%%u is not a scalar", src(m),
                                        in->offset, v.parts[k], in->result_id);
                    v.v.lane[k] = p->v.lane[0];
                }
            }
            break;
        }
        case SpvOpSpecConstantOp:
            if (eval_spec_op(c, in, &v))
                return -1;
            /* a vector result needs lane constants, written before it */
            if (v.kind == CV_LANES && v.v.t.lanes > 1 && !v.parts && vector_lane_ids(c, in->type_id, &v))
                return -1;
            if (v.kind == CV_NULL && !spv_type_get(m, in->type_id))
                return spv_fail(c->diag, "%s: %%%u has no type", src(m), in->result_id);
            break;
        case SpvOpUndef:
            /* an undef operand of a folded OpSpecConstantOp reads as zero */
            v.kind = lanes ? CV_LANES : CV_NULL;
            v.v.t = ft;
            break;
        default:
            if (x->kind == SPV_ID_CONSTANT || x->kind == SPV_ID_SPEC_CONSTANT || x->kind == SPV_ID_GLOBAL_VARIABLE)
                v.kind = CV_OPAQUE; /* samplers, pipe storage, variables ... */
            else
                continue;
            break;
        }
        if (set_val(c, in->result_id, &v))
            return -1;
    }
    return 0;
}

/* --- checks on the result ------------------------------------------------------------------------------------ */

/* Spec ids a constant depends on, for messages: " (from spec id 3 \"N\")" */
static void append_origin(spec_ctx *c, uint32_t id)
{
    const spv_id *x = spv_id_get(c->m, id);
    if (x && x->spec_id != SPV_NONE) {
        if (x->name && *x->name)
            spv_diag_append(c->diag, " (spec id %u \"%s\")", x->spec_id, x->name);
        else
            spv_diag_append(c->diag, " (spec id %u)", x->spec_id);
    }
}

static int check_arrays(spec_ctx *c)
{
    const spv_module *m = c->m;
    for (uint32_t i = 0; i < m->first_func_inst; i++) {
        const spv_inst *in = &m->insts[i];
        if (in->opcode != SpvOpTypeArray || in->nwords < 4)
            continue;
        uint32_t len_id = in->w[3];
        const spv_id *lx = spv_id_get(m, len_id);
        if (!lx || lx->kind != SPV_ID_SPEC_CONSTANT)
            continue;
        const cval *v = get_val(c, len_id);
        if (!v || v->kind == CV_OPAQUE)
            continue; /* a constant expression the validator already accepted */
        const spv_type *lt = spv_type_get(m, lx->type_id);
        if (v->kind != CV_LANES || v->v.t.kind != SPV_FOLD_INT || v->v.t.lanes != 1 || !lt)
            return spv_fail(c->diag, "%s: array type %%%u: length %%%u is not an integer scalar", src(m), in->result_id,
                            len_id);
        int64_t s = spv_fold_sext(v->v.lane[0], v->v.t.width);
        if (v->v.lane[0] == 0 || (lt->is_signed && s < 0)) {
            spv_fail(c->diag, "%s: array type %%%u: length %%%u is %lld after specialization, expected at least 1",
                     src(m), in->result_id, len_id, lt->is_signed ? (long long)s : (long long)v->v.lane[0]);
            append_origin(c, len_id);
            return -1;
        }
    }
    return 0;
}

/* Values of a 3-component work-group size given as ids (LocalSizeId) or as the
 * WorkgroupSize composite. */
static int size_from_ids(spec_ctx *c, const uint32_t *ids, uint32_t out[3], const char *what)
{
    for (int k = 0; k < 3; k++) {
        const cval *v = get_val(c, ids[k]);
        if (!v || v->kind != CV_LANES || v->v.t.kind != SPV_FOLD_INT || v->v.t.lanes != 1)
            return spv_fail(c->diag, "%s: %s: %%%u is not an integer constant", src(c->m), what, ids[k]);
        if (v->v.lane[0] == 0 || v->v.lane[0] > UINT32_MAX) {
            spv_fail(c->diag, "%s: %s: component %c (%%%u) is %llu after specialization, expected 1 to 4294967295",
                     src(c->m), what, "xyz"[k], ids[k], (unsigned long long)v -> v.lane[0]);
            append_origin(c, ids[k]);
            return -1;
        }
        out[k] = (uint32_t)v->v.lane[0];
    }
    return 0;
}

static int workgroup_size(spec_ctx *c, bool *has, uint32_t out[3])
{
    *has = false;
    uint32_t id = c->m->workgroup_size_id;
    if (!id)
        return 0;
    const cval *v = get_val(c, id);
    if (!v || v->kind != CV_LANES || v->v.t.kind != SPV_FOLD_INT || v->v.t.lanes != 3)
        return spv_fail(c->diag, "%s: the WorkgroupSize constant %%%u is not a 3-component integer vector", src(c->m),
                        id);
    const spv_inst *in = spv_def(c->m, id);
    if (in && in->opcode != SpvOpSpecConstantOp && spv_inst_nops(in) == 3) {
        if (size_from_ids(c, in->w + in->first_op, out, "the WorkgroupSize constant"))
            return -1;
    } else {
        for (int k = 0; k < 3; k++) {
            if (v->v.lane[k] == 0 || v->v.lane[k] > UINT32_MAX)
                return spv_fail(c->diag,
                                "%s: the WorkgroupSize constant %%%u: component %c is %llu after "
                                "specialization, expected 1 to 4294967295",
                                src(c->m), id, "xyz"[k], (unsigned long long)v -> v.lane[k]);
            out[k] = (uint32_t)v->v.lane[k];
        }
    }
    *has = true;
    return 0;
}

/* --- writing -------------------------------------------------------------------------------------------------- */

static void write_scalar(spv_writer *wr, const spv_module *m, uint32_t type_id, uint32_t id, uint64_t bits,
                         uint16_t opcode)
{
    spv_writer_begin(wr, opcode);
    spv_writer_word(wr, type_id);
    spv_writer_word(wr, id);
    if (opcode == SpvOpConstant) {
        const spv_type *t = spv_type_get(m, type_id);
        unsigned w = t ? t->width : 32;
        /* narrow signed integers are written sign-extended to the word */
        if (t && t->kind == SPV_TYPE_INT && t->is_signed && w < 32)
            bits = (uint32_t)spv_fold_sext(bits, w);
        spv_writer_word(wr, (uint32_t)bits);
        if (w > 32)
            spv_writer_word(wr, (uint32_t)(bits >> 32));
    }
    spv_writer_end(wr);
}

static void write_value(spv_writer *wr, const spv_module *m, uint32_t type_id, uint32_t id, const cval *v)
{
    if (v->kind == CV_LANES && v->v.t.lanes == 1) {
        uint64_t b = v->v.lane[0];
        write_scalar(wr, m, type_id, id, b,
                     v->v.t.kind == SPV_FOLD_BOOL ? (b ? SpvOpConstantTrue : SpvOpConstantFalse) : SpvOpConstant);
        return;
    }
    spv_writer_begin(wr, v->kind == CV_NULL ? SpvOpConstantNull : SpvOpConstantComposite);
    spv_writer_word(wr, type_id);
    spv_writer_word(wr, id);
    if (v->kind != CV_NULL)
        spv_writer_words(wr, v->parts, v->nparts);
    spv_writer_end(wr);
}

static void write_new(spv_writer *wr, const spv_module *m, const new_const *n)
{
    if (n->opcode == SpvOpConstant || n->opcode == SpvOpConstantTrue || n->opcode == SpvOpConstantFalse) {
        write_scalar(wr, m, n->type_id, n->id, n->bits, n->opcode);
        return;
    }
    spv_writer_begin(wr, n->opcode);
    spv_writer_word(wr, n->type_id);
    spv_writer_word(wr, n->id);
    if (n->opcode == SpvOpConstantComposite)
        spv_writer_words(wr, n->parts, n->nparts);
    spv_writer_end(wr);
}

static bool takes_local_size(uint32_t model)
{
    return model == SpvExecutionModelGLCompute || model == SpvExecutionModelKernel ||
           model == SpvExecutionModelTaskNV || model == SpvExecutionModelMeshNV || model == SpvExecutionModelTaskEXT ||
           model == SpvExecutionModelMeshEXT;
}

static bool entry_has_size_mode(const spv_entry_point *e)
{
    return e->has_local_size || e->has_local_size_id;
}

static void write_mode(spv_writer *wr, uint32_t entry, uint32_t mode, const uint32_t *args, uint32_t n)
{
    spv_writer_begin(wr, SpvOpExecutionMode);
    spv_writer_word(wr, entry);
    spv_writer_word(wr, mode);
    spv_writer_words(wr, args, n);
    spv_writer_end(wr);
}

/* OpExecutionMode / OpExecutionModeId, rewritten for constant sizes. */
static int write_exec_mode(spec_ctx *c, spv_writer *wr, const spv_inst *in, bool has_wg, const uint32_t wg[3])
{
    uint32_t mode = in->nwords > 2 ? in->w[2] : 0;
    const uint32_t *args = in->w + 3;
    uint32_t nargs = in->nwords > 3 ? in->nwords - 3 : 0;
    bool is_id = in->opcode == SpvOpExecutionModeId;
    if (is_id && (mode == SpvExecutionModeLocalSizeId || mode == SpvExecutionModeLocalSizeHintId) && nargs == 3) {
        uint32_t size[3];
        bool local = mode == SpvExecutionModeLocalSizeId;
        if (local && has_wg)
            memcpy(size, wg, sizeof size); /* WorkgroupSize takes precedence */
        else if (size_from_ids(c, args, size, local ? "LocalSizeId" : "LocalSizeHintId"))
            return -1;
        write_mode(wr, in->w[1], local ? SpvExecutionModeLocalSize : SpvExecutionModeLocalSizeHint, size, 3);
        return 0;
    }
    if (is_id && mode == SpvExecutionModeSubgroupsPerWorkgroupId && nargs == 1) {
        const cval *v = get_val(c, args[0]);
        if (!v || v->kind != CV_LANES || v->v.t.kind != SPV_FOLD_INT || v->v.t.lanes != 1 || v->v.lane[0] > UINT32_MAX)
            return spv_fail(c->diag, "%s: SubgroupsPerWorkgroupId: %%%u is not a 32-bit integer constant", src(c->m),
                            args[0]);
        uint32_t n = (uint32_t)v->v.lane[0];
        write_mode(wr, in->w[1], SpvExecutionModeSubgroupsPerWorkgroup, &n, 1);
        return 0;
    }
    if (!is_id && mode == SpvExecutionModeLocalSize && has_wg && nargs == 3) {
        write_mode(wr, in->w[1], mode, wg, 3);
        return 0;
    }
    spv_writer_words(wr, in->w, in->nwords);
    return 0;
}

static int write_module(spec_ctx *c, uint32_t **out_words, size_t *out_nwords)
{
    const spv_module *m = c->m;
    bool has_wg;
    uint32_t wg[3];
    if (workgroup_size(c, &has_wg, wg) || check_arrays(c))
        return -1;
    /* Where to add LocalSize for entry points that had none but have a WorkgroupSize constant. */
    uint32_t last_mode = SPV_NONE;
    for (uint32_t i = 0; i < m->first_func_inst; i++) {
        uint32_t op = m->insts[i].opcode;
        if (op == SpvOpEntryPoint || op == SpvOpExecutionMode || op == SpvOpExecutionModeId)
            last_mode = i;
    }
    spv_writer wr;
    spv_writer_init(&wr);
    spv_writer_words(&wr, m->words, 5);
    size_t next_new = 0;
    for (uint32_t i = 0; i < m->ninsts; i++) {
        const spv_inst *in = &m->insts[i];
        while (next_new < UTIL_ARRAY_COUNT(&c->news, new_const) &&
               UTIL_ARRAY_AT(&c->news, new_const, next_new).before == i)
            write_new(&wr, m, &UTIL_ARRAY_AT(&c->news, new_const, next_new++));
        const cval *v = in->result_id ? get_val(c, in->result_id) : NULL;
        switch (in->opcode) {
        case SpvOpDecorate:
            if (in->nwords >= 3 && in->w[2] == SpvDecorationSpecId)
                break; /* only spec constants take SpecId; none remain */
            spv_writer_words(&wr, in->w, in->nwords);
            break;
        case SpvOpExecutionMode:
        case SpvOpExecutionModeId:
            if (write_exec_mode(c, &wr, in, has_wg, wg)) {
                spv_writer_free(&wr);
                return -1;
            }
            break;
        case SpvOpSpecConstantTrue:
        case SpvOpSpecConstantFalse:
        case SpvOpSpecConstant:
            if (!v) {
                /* Only reachable for modules loaded without validation: a spec
                 * constant where none may be (inside a function). */
                spv_writer_free(&wr);
                return spv_fail(c->diag, "%s: word %u: spec constant %%%u is outside the module's global section",
                                src(m), in->offset, in->result_id);
            }
            write_value(&wr, m, in->type_id, in->result_id, v);
            break;
        case SpvOpSpecConstantComposite:
            if (v && v->kind == CV_OPAQUE) {
                spv_writer_words(&wr, in->w, in->nwords);
                break;
            }
            /* the same constituents, now all constants */
            spv_writer_begin(&wr, SpvOpConstantComposite);
            spv_writer_words(&wr, in->w + 1, in->nwords - 1);
            spv_writer_end(&wr);
            break;
        case SpvOpSpecConstantOp:
            if (!v || v->kind == CV_OPAQUE)
                spv_writer_words(&wr, in->w, in->nwords);
            else
                write_value(&wr, m, in->type_id, in->result_id, v);
            break;
        default:
            spv_writer_words(&wr, in->w, in->nwords);
            break;
        }
        if (i == last_mode && has_wg)
            for (uint32_t e = 0; e < m->nentries; e++)
                if (takes_local_size(m->entries[e].model) && !entry_has_size_mode(&m->entries[e]))
                    write_mode(&wr, m->entries[e].func_id, SpvExecutionModeLocalSize, wg, 3);
    }
    if (wr.failed) {
        spv_writer_free(&wr);
        return spv_fail(c->diag,
                        "%s: out of memory (or an instruction over 65535 words) writing the specialized "
                        "module",
                        src(m));
    }
    spv_writer_patch(&wr, 3, c->bound); /* the id bound: constants were added */
    *out_words = spv_writer_take(&wr, out_nwords);
    return *out_words ? 0 : oom(c);
}

/* --- entry -------------------------------------------------------------------------------------------------------- */

int spv_specialize(const spv_module *m, const spv_spec_value *values, size_t n, uint32_t **out_words,
                   size_t *out_nwords, spv_diag *diag)
{
    *out_words = NULL;
    *out_nwords = 0;
    if (n && !values)
        return spv_fail(diag, "%s: %zu spec values given but no array", src(m), n);
    spec_ctx c = { .m = m, .diag = diag, .bound = m->bound };
    util_hashmap_init(&c.scalars, scalar_key_equal);
    int rc = -1;
    c.nlist = spv_spec_constants(m, &c.list);
    c.ov_bits = calloc(c.nlist ? c.nlist : 1, sizeof *c.ov_bits);
    c.vcap = m->bound;
    c.vidx = calloc(c.vcap ? c.vcap : 1, sizeof *c.vidx);
    if (!c.ov_bits || !c.vidx) {
        oom(&c);
        goto out;
    }
    if (apply_values(&c, values, n) || evaluate(&c) || write_module(&c, out_words, out_nwords))
        goto out;
    rc = 0;
out:
    for (size_t i = 0; i < UTIL_ARRAY_COUNT(&c.owned, uint32_t *); i++)
        free(UTIL_ARRAY_AT(&c.owned, uint32_t *, i));
    util_array_fini(&c.owned);
    util_array_fini(&c.vals);
    util_array_fini(&c.news);
    free(c.vidx);
    const util_hashmap_entry *e;
    for (size_t i = 0; (e = util_hashmap_next(&c.scalars, &i));)
        free((void *)e->key);
    util_hashmap_fini(&c.scalars);
    free(c.list);
    free(c.ov_bits);
    return rc;
}
