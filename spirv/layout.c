/* spirv/layout.c — type layouts (the rules are in layout.h). */
#include "layout.h"

#include <stdio.h>

#include "spirv_grammar.h"

enum { TODO = 0, BUSY, DONE };

struct spv_layouts {
    const spv_module *m;
    bool opencl;
    spv_shape shape;
    util_arena own, *arena;
    spv_diag *diag;
    spv_layout *recs; /* [bound] */
    uint8_t *state;   /* [bound]: TODO, BUSY (being computed: a cycle if met again), DONE */
};

static uint64_t round_up(uint64_t v, uint64_t a)
{
    return a > 1 ? (v + a - 1) / a * a : v;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* Fills diag with "<source>: type %N: <why>"; false. */
static bool fail(spv_layouts *L, uint32_t type_id, const char *why)
{
    spv_fail(L->diag, "%s: type %%%u: %s", L->m->source ? L->m->source : "<memory>", type_id, why);
    return false;
}

static uint32_t dec_arg(const spv_module *m, uint32_t id, int32_t member, uint32_t decoration, bool *has)
{
    const spv_decoration *d = spv_find_decoration(m, id, member, decoration);
    *has = d && d->nargs;
    return *has ? d->args[0] : 0;
}

bool spv_layout_is_opencl(const spv_module *m, const spv_entry_point *entry)
{
    return (entry && entry->model == SpvExecutionModelKernel) || (m->is_kernel && !m->is_shader);
}

spv_layouts *spv_layouts_new(const spv_module *m, bool opencl, const spv_shape *shape, util_arena *arena,
                             spv_diag *diag)
{
    util_arena own;
    util_arena_init(&own, 0);
    util_arena *a = arena ? arena : &own;
    spv_layouts *L = util_arena_zalloc(a, sizeof *L);
    spv_layout *recs = util_arena_array(a, m->bound + 1, sizeof *recs);
    uint8_t *state = util_arena_array(a, m->bound + 1, 1);
    if (!L || !recs || !state) {
        if (!arena)
            util_arena_fini(&own);
        spv_fail(diag, "%s: out of memory for the type layouts", m->source ? m->source : "<memory>");
        return NULL;
    }
    *L = (spv_layouts){ .m = m, .opencl = opencl, .own = own, .diag = diag, .recs = recs, .state = state };
    L->arena = arena ? arena : &L->own;
    L->shape = shape ? *shape : (spv_shape){ .m = m };
    L->shape.m = m;
    return L;
}

void spv_layouts_free(spv_layouts *L)
{
    if (L && L->arena == &L->own) {
        util_arena own = L->own; /* L itself lives in it */
        util_arena_fini(&own);
    }
}

const spv_shape *spv_layouts_shape(const spv_layouts *L)
{
    return &L->shape;
}

bool spv_array_length(spv_layouts *L, uint32_t type_id, uint64_t *len)
{
    const spv_type *t = spv_type_get(L->m, type_id);
    if (!t || t->kind != SPV_TYPE_ARRAY)
        return fail(L, type_id, "not an array type");
    if (t->count) {
        *len = t->count;
        return true;
    }
    if (!spv_shape_u64(&L->shape, t->length_id, len)) {
        spv_fail(L->diag, "%s: type %%%u: the array length %%%u is not an integer constant known at compile time",
                 L->m->source ? L->m->source : "<memory>", type_id, t->length_id);
        return false;
    }
    return true;
}

/* The matrix inside (arrays of) a matrix, or NULL. */
static const spv_type *inner_matrix(const spv_module *m, uint32_t type_id)
{
    const spv_type *t = spv_type_get(m, type_id);
    while (t && (t->kind == SPV_TYPE_ARRAY || t->kind == SPV_TYPE_RUNTIME_ARRAY))
        t = spv_type_get(m, t->elem);
    return t && t->kind == SPV_TYPE_MATRIX ? t : NULL;
}

/* Bytes of a matrix's component. */
static bool matrix_component(spv_layouts *L, const spv_type *mat, uint32_t *rows, uint64_t *esize)
{
    const spv_type *col = spv_type_get(L->m, mat->elem);
    const spv_layout *e = col ? spv_layout_of(L, col->elem) : NULL;
    if (!e)
        return false;
    *rows = col->count;
    *esize = e->size;
    return true;
}

/* The bytes `type_id` covers as a member whose MatrixStride is mat_stride. */
static bool sized_as_member(spv_layouts *L, uint32_t type_id, uint32_t mat_stride, bool row_major, uint64_t *size)
{
    const spv_type *t = spv_type_get(L->m, type_id);
    const spv_layout *l = spv_layout_of(L, type_id);
    if (!t || !l)
        return false;
    if (mat_stride && t->kind == SPV_TYPE_MATRIX) {
        uint32_t rows;
        uint64_t e;
        if (!matrix_component(L, t, &rows, &e))
            return false;
        uint64_t n = row_major ? rows : t->count, vec = (row_major ? t->count : rows) * e;
        *size = n ? (n - 1) * mat_stride + vec : 0;
        return true;
    }
    if (mat_stride && t->kind == SPV_TYPE_ARRAY && l->is_explicit) {
        uint64_t elem;
        if (!sized_as_member(L, t->elem, mat_stride, row_major, &elem))
            return false;
        *size = l->length ? (l->length - 1) * l->stride + elem : 0;
        return true;
    }
    *size = l->size;
    return true;
}

/* A matrix member's MatrixStride and majorness; RowMajor without MatrixStride
 * (not valid SPIR-V for an explicit layout) gets the natural row stride. */
static bool member_matrix(spv_layouts *L, uint32_t st, uint32_t i, spv_member_layout *ml)
{
    bool has;
    ml->matrix_stride = dec_arg(L->m, st, (int32_t)i, SpvDecorationMatrixStride, &has);
    ml->row_major = spv_find_decoration(L->m, st, (int32_t)i, SpvDecorationRowMajor) != NULL;
    const spv_type *mat = inner_matrix(L->m, spv_type_get(L->m, st)->members[i]);
    if (!mat) {
        ml->matrix_stride = 0;
        ml->row_major = false;
        return true;
    }
    if (ml->row_major && !ml->matrix_stride) {
        uint32_t rows;
        uint64_t e;
        if (!matrix_component(L, mat, &rows, &e))
            return false;
        uint32_t cols = mat->count;
        ml->matrix_stride = (uint32_t)round_up(cols * e, e * (cols == 3 ? 4 : cols));
    }
    return true;
}

static bool struct_layout(spv_layouts *L, uint32_t id, const spv_type *t, spv_layout *l)
{
    const spv_module *m = L->m;
    bool packed = spv_find_decoration(m, id, -1, SpvDecorationCPacked) != NULL;
    spv_member_layout *ms = util_arena_array(L->arena, t->nmembers ? t->nmembers : 1, sizeof *ms);
    if (!ms)
        return fail(L, id, "out of memory");
    uint64_t next = 0, end = 0;
    uint32_t align = 1;
    for (uint32_t i = 0; i < t->nmembers; i++) {
        const spv_layout *ml = spv_layout_of(L, t->members[i]);
        if (!ml || !member_matrix(L, id, i, &ms[i]))
            return false;
        bool has;
        uint64_t off = dec_arg(m, id, (int32_t)i, SpvDecorationOffset, &has), size;
        l->is_explicit |= has;
        if (!has)
            off = packed ? next : round_up(next, ml->align);
        if (!sized_as_member(L, t->members[i], ms[i].matrix_stride, ms[i].row_major, &size))
            return false;
        ms[i].offset = off;
        next = off + size;
        end = max_u64(end, next);
        align = ml->align > align ? ml->align : align;
    }
    l->members = ms;
    l->nmembers = t->nmembers;
    l->align = packed ? 1 : align;
    l->size = packed || l->is_explicit ? end : round_up(end, l->align);
    return true;
}

/* The largest scalar component's alignment: what an explicit layout guarantees. */
static uint32_t scalar_align(spv_layouts *L, uint32_t type_id)
{
    const spv_type *t = spv_type_get(L->m, type_id);
    if (!t)
        return 1;
    switch (t->kind) {
    case SPV_TYPE_VECTOR:
    case SPV_TYPE_MATRIX:
    case SPV_TYPE_ARRAY:
    case SPV_TYPE_RUNTIME_ARRAY:
        return scalar_align(L, t->elem);
    case SPV_TYPE_STRUCT: {
        uint32_t a = 1;
        for (uint32_t i = 0; i < t->nmembers; i++) {
            uint32_t b = scalar_align(L, t->members[i]);
            a = b > a ? b : a;
        }
        return a;
    }
    default: {
        const spv_layout *l = spv_layout_of(L, type_id);
        return l ? l->align : 1;
    }
    }
}

static bool compute(spv_layouts *L, uint32_t id, const spv_type *t, spv_layout *l)
{
    const spv_module *m = L->m;
    switch (t->kind) {
    case SPV_TYPE_BOOL:
        l->size = l->align = 1;
        return true;
    case SPV_TYPE_INT:
    case SPV_TYPE_FLOAT:
        l->size = (t->width + 7) / 8;
        l->align = (uint32_t)l->size;
        return true;
    case SPV_TYPE_POINTER:
        l->size = l->align = m->addressing == SpvAddressingModelPhysical32 ? 4 : 8;
        return true;
    case SPV_TYPE_OPAQUE:
        l->size = l->align = 8;
        return true;
    case SPV_TYPE_VECTOR: {
        const spv_layout *e = spv_layout_of(L, t->elem);
        if (!e)
            return false;
        uint32_t n4 = t->count == 3 ? 4 : t->count;
        l->stride = e->size;
        l->size = e->size * (L->opencl ? n4 : t->count);
        l->align = (uint32_t)(e->size * n4);
        return true;
    }
    case SPV_TYPE_MATRIX: {
        const spv_layout *col = spv_layout_of(L, t->elem);
        if (!col)
            return false;
        l->stride = round_up(col->size, col->align);
        l->size = l->stride * t->count;
        l->align = col->align;
        return true;
    }
    case SPV_TYPE_ARRAY:
    case SPV_TYPE_RUNTIME_ARRAY: {
        const spv_layout *e = spv_layout_of(L, t->elem);
        if (!e || (t->kind == SPV_TYPE_ARRAY && !spv_array_length(L, id, &l->length)))
            return false;
        bool has;
        uint32_t stride = dec_arg(m, id, -1, SpvDecorationArrayStride, &has);
        l->is_explicit = has;
        l->stride = has ? stride : round_up(e->size, e->align);
        l->align = has ? scalar_align(L, t->elem) : e->align;
        if (t->kind == SPV_TYPE_RUNTIME_ARRAY)
            l->size = 0;
        else if (has)
            l->size = l->length ? (l->length - 1) * l->stride + e->size : 0;
        else
            l->size = l->length * l->stride;
        return true;
    }
    case SPV_TYPE_STRUCT:
        if (!struct_layout(L, id, t, l))
            return false;
        if (l->is_explicit)
            l->align = scalar_align(L, id);
        return true;
    default: {
        const spv_inst *in = spv_def(m, id);
        const char *op = in ? spv_opcode_name(in->opcode) : NULL;
        char why[128];
        snprintf(why, sizeof why, "%s has no memory layout", op ? op : "the type");
        return fail(L, id, why);
    }
    }
}

const spv_layout *spv_layout_of(spv_layouts *L, uint32_t type_id)
{
    const spv_type *t = spv_type_get(L->m, type_id);
    if (!t) {
        fail(L, type_id, "not a type");
        return NULL;
    }
    if (L->state[type_id] == DONE)
        return &L->recs[type_id];
    if (L->state[type_id] == BUSY) {
        fail(L, type_id, "the type contains itself");
        return NULL;
    }
    L->state[type_id] = BUSY;
    spv_layout l = { 0 };
    bool ok = compute(L, type_id, t, &l);
    L->state[type_id] = TODO;
    if (!ok)
        return NULL;
    if (!l.align)
        l.align = 1;
    L->recs[type_id] = l;
    L->state[type_id] = DONE;
    return &L->recs[type_id];
}

bool spv_member_size(spv_layouts *L, uint32_t struct_id, uint32_t member, uint64_t *size)
{
    const spv_type *t = spv_type_get(L->m, struct_id);
    const spv_layout *l = spv_layout_of(L, struct_id);
    if (!l)
        return false;
    if (t->kind != SPV_TYPE_STRUCT || member >= t->nmembers)
        return fail(L, struct_id, "no such member");
    return sized_as_member(L, t->members[member], l->members[member].matrix_stride, l->members[member].row_major, size);
}

/* Whether the module lays Workgroup memory out explicitly (Block variables,
 * SPV_KHR_workgroup_memory_explicit_layout: all or none of them are). */
static bool explicit_workgroup_layout(const spv_module *m)
{
    for (uint32_t i = 0; i < m->first_func_inst && i < m->ninsts; i++) {
        const spv_inst *in = &m->insts[i];
        const spv_type *pt = in->opcode == SpvOpVariable ? spv_type_get(m, in->type_id) : NULL;
        if (pt && pt->storage == SpvStorageClassWorkgroup && spv_find_decoration(m, pt->elem, -1, SpvDecorationBlock))
            return true;
    }
    return false;
}

bool spv_pointer_stride(spv_layouts *L, uint32_t pointer_type_id, uint64_t *stride)
{
    const spv_type *t = spv_type_get(L->m, pointer_type_id);
    if (!t || t->kind != SPV_TYPE_POINTER)
        return fail(L, pointer_type_id, "not a pointer type");
    /* the ArrayStride counts for explicitly laid out storage only (SPIR-V:
     * Uniform, StorageBuffer, PushConstant, PhysicalStorageBuffer, Workgroup
     * Blocks); elsewhere it is to be ignored */
    uint32_t sc = t->storage;
    bool laid_out = sc == SpvStorageClassUniform || sc == SpvStorageClassStorageBuffer ||
                    sc == SpvStorageClassPushConstant || sc == SpvStorageClassPhysicalStorageBuffer ||
                    (sc == SpvStorageClassWorkgroup && explicit_workgroup_layout(L->m));
    bool has;
    *stride = dec_arg(L->m, pointer_type_id, -1, SpvDecorationArrayStride, &has);
    if (has && laid_out)
        return true;
    const spv_layout *p = spv_layout_of(L, t->elem);
    if (!p)
        return false;
    *stride = round_up(p->size, p->align);
    return true;
}

bool spv_block_size(spv_layouts *L, uint32_t type_id, uint64_t *fixed, uint64_t *runtime_stride)
{
    const spv_type *t = spv_type_get(L->m, type_id);
    const spv_layout *l = spv_layout_of(L, type_id);
    if (!l)
        return false;
    *fixed = l->size;
    *runtime_stride = 0;
    if (t->kind == SPV_TYPE_RUNTIME_ARRAY) {
        *runtime_stride = l->stride;
        return true;
    }
    const spv_type *last =
        t->kind == SPV_TYPE_STRUCT && t->nmembers ? spv_type_get(L->m, t->members[t->nmembers - 1]) : NULL;
    if (!last || last->kind != SPV_TYPE_RUNTIME_ARRAY)
        return true;
    *runtime_stride = spv_layout_of(L, t->members[t->nmembers - 1])->stride;
    *fixed = 0;
    for (uint32_t i = 0; i + 1 < t->nmembers; i++) {
        uint64_t size;
        if (!spv_member_size(L, type_id, i, &size))
            return false;
        *fixed = max_u64(*fixed, l->members[i].offset + size);
    }
    return true;
}
