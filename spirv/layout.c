/* spirv/layout.c — byte sizes and alignments of types.
 *
 * Explicit layouts (Offset, ArrayStride, MatrixStride, RowMajor) are honoured
 * where the module gives them — that is what buffers, push constants and
 * Kernel-flavour structs look like in memory.  Without them the layout is the
 * natural C one (OpenCL C's for Kernel modules: a 3-component vector takes the
 * space and alignment of four).
 */
#include "module.h"

static uint32_t scalar_bytes(const spv_type *t)
{
    return t->kind == SPV_TYPE_BOOL ? 1 : t->width / 8;
}

static uint64_t member_size(const spv_module *m, uint32_t st, uint32_t i, uint32_t type_id);

uint32_t spv_type_align(const spv_module *m, uint32_t type_id)
{
    const spv_type *t = spv_type_get(m, type_id);
    if (!t)
        return 1;
    switch (t->kind) {
    case SPV_TYPE_BOOL:
    case SPV_TYPE_INT:
    case SPV_TYPE_FLOAT:
        return scalar_bytes(t) ? scalar_bytes(t) : 1;
    case SPV_TYPE_VECTOR: {
        uint32_t e = spv_type_align(m, t->elem);
        if (!m->is_kernel)
            return e;
        uint32_t n = t->count == 3 ? 4 : t->count;
        return e * n;
    }
    case SPV_TYPE_MATRIX:
    case SPV_TYPE_ARRAY:
    case SPV_TYPE_RUNTIME_ARRAY:
        return spv_type_align(m, t->elem);
    case SPV_TYPE_STRUCT: {
        uint32_t a = 1;
        if (spv_find_decoration(m, type_id, -1, SpvDecorationCPacked))
            return 1;
        for (uint32_t i = 0; i < t->nmembers; i++) {
            uint32_t b = spv_type_align(m, t->members[i]);
            if (b > a)
                a = b;
        }
        return a;
    }
    case SPV_TYPE_POINTER:
        return m->addressing == SpvAddressingModelPhysical32 ? 4 : 8;
    default:
        return 1;
    }
}

static uint64_t round_up(uint64_t x, uint64_t a)
{
    return a ? (x + a - 1) / a * a : x;
}

uint64_t spv_type_size(const spv_module *m, uint32_t type_id)
{
    const spv_type *t = spv_type_get(m, type_id);
    if (!t)
        return 0;
    switch (t->kind) {
    case SPV_TYPE_BOOL:
    case SPV_TYPE_INT:
    case SPV_TYPE_FLOAT:
        return scalar_bytes(t);
    case SPV_TYPE_VECTOR: {
        uint64_t e = spv_type_size(m, t->elem);
        return e * ((m->is_kernel && t->count == 3) ? 4 : t->count);
    }
    case SPV_TYPE_MATRIX:
        return spv_type_size(m, t->elem) * t->count;
    case SPV_TYPE_ARRAY: {
        const spv_decoration *d = spv_find_decoration(m, type_id, -1, SpvDecorationArrayStride);
        uint64_t stride = d && d->nargs ? d->args[0] : round_up(spv_type_size(m, t->elem), spv_type_align(m, t->elem));
        return stride * t->count;
    }
    case SPV_TYPE_STRUCT: {
        /* A Shader struct laid out explicitly (every member has an Offset) ends
         * where its members end: Vulkan asks a buffer to hold the members, not
         * padding after the last one (arrays step by their ArrayStride). */
        bool packed = spv_find_decoration(m, type_id, -1, SpvDecorationCPacked) != NULL;
        bool explicit = t->nmembers > 0 && !m->is_kernel;
        uint64_t end = 0, off = 0;
        for (uint32_t i = 0; i < t->nmembers; i++) {
            const spv_decoration *d = spv_find_decoration(m, type_id, (int32_t)i, SpvDecorationOffset);
            uint64_t sz = member_size(m, type_id, i, t->members[i]);
            if (d && d->nargs)
                off = d->args[0];
            else if (!packed)
                off = round_up(off, spv_type_align(m, t->members[i]));
            explicit = explicit && d && d->nargs;
            if (off + sz > end)
                end = off + sz;
            off += sz;
        }
        return packed || explicit ? end : round_up(end, spv_type_align(m, type_id));
    }
    case SPV_TYPE_POINTER:
        return m->addressing == SpvAddressingModelPhysical32 ? 4 : 8;
    default:
        return 0;
    }
}

/* A struct member's size: a matrix (or array of matrices) member uses its
 * MatrixStride, and RowMajor swaps which dimension the stride steps over. */
static uint64_t member_size(const spv_module *m, uint32_t st, uint32_t i, uint32_t type_id)
{
    const spv_decoration *ms = spv_find_decoration(m, st, (int32_t)i, SpvDecorationMatrixStride);
    const spv_type *t = spv_type_get(m, type_id);
    if (!ms || !ms->nargs || !t)
        return spv_type_size(m, type_id);
    uint32_t dims = 0; /* array dimensions around the matrix */
    uint64_t outer = 1;
    while (t && t->kind == SPV_TYPE_ARRAY) {
        const spv_decoration *as = spv_find_decoration(m, type_id, -1, SpvDecorationArrayStride);
        if (as && as->nargs && dims == 0)
            return (uint64_t)as->args[0] * t->count;
        outer *= t->count;
        type_id = t->elem;
        t = spv_type_get(m, type_id);
        dims++;
    }
    if (!t || t->kind != SPV_TYPE_MATRIX)
        return spv_type_size(m, type_id) * outer;
    const spv_type *col = spv_type_get(m, t->elem);
    uint32_t rows = col ? col->count : 0;
    uint32_t es = col ? (uint32_t)spv_type_size(m, col->elem) : 0;
    bool row_major = spv_find_decoration(m, st, (int32_t)i, SpvDecorationRowMajor) != NULL;
    uint64_t n = row_major ? rows : t->count;
    uint64_t last = row_major ? (uint64_t)t->count * es : (uint64_t)rows * es;
    return outer * ((n - 1) * ms->args[0] + last);
}
