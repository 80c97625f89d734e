/* cmd/amber_buffer.c — Amber element types, STD140/STD430 layouts, buffer
 * initializers and EXPECT evaluation. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amber.h"
#include "cli.h"

/* --- types ----------------------------------------------------------------------- */

static const struct {
    const char *name;
    spvjit_type t;
} scalar_names[] = {
    { "int8", SPVJIT_TYPE_I8 },    { "int16", SPVJIT_TYPE_I16 },  { "int32", SPVJIT_TYPE_I32 },
    { "int64", SPVJIT_TYPE_I64 },  { "uint8", SPVJIT_TYPE_U8 },   { "uint16", SPVJIT_TYPE_U16 },
    { "uint32", SPVJIT_TYPE_U32 }, { "uint64", SPVJIT_TYPE_U64 }, { "float16", SPVJIT_TYPE_F16 },
    { "float", SPVJIT_TYPE_F32 },  { "double", SPVJIT_TYPE_F64 },
};

static int scalar_parse(const char *s, size_t len, spvjit_type *t)
{
    for (size_t i = 0; i < sizeof scalar_names / sizeof scalar_names[0]; i++)
        if (strlen(scalar_names[i].name) == len && !memcmp(scalar_names[i].name, s, len)) {
            *t = scalar_names[i].t;
            return 0;
        }
    return -1;
}

static const char *scalar_name(spvjit_type t)
{
    for (size_t i = 0; i < sizeof scalar_names / sizeof scalar_names[0]; i++)
        if (scalar_names[i].t == t)
            return scalar_names[i].name;
    return "?";
}

/* Vulkan formats whose channels are all the same plain number type
 * (R32G32B32A32_SFLOAT, R8_UINT, R16G16_SINT ...) are vectors. */
static int format_parse(const char *name, amber_type *out)
{
    const char *p = name;
    unsigned n = 0, bits = 0;
    static const char chans[] = "RGBA";
    while (*p && *p != '_') {
        if (n >= 4 || *p != chans[n])
            return -1;
        p++;
        unsigned b = 0;
        while (*p >= '0' && *p <= '9')
            b = b * 10 + (unsigned)(*p++ - '0');
        if (!b || (bits && b != bits))
            return -1;
        bits = b;
        n++;
    }
    if (!n || *p != '_')
        return -1;
    p++;
    spvjit_type t;
    if (!strcmp(p, "SFLOAT"))
        t = bits == 16 ? SPVJIT_TYPE_F16 : bits == 32 ? SPVJIT_TYPE_F32 : bits == 64 ? SPVJIT_TYPE_F64 : 0;
    else if (!strcmp(p, "SINT"))
        t = bits == 8    ? SPVJIT_TYPE_I8
            : bits == 16 ? SPVJIT_TYPE_I16
            : bits == 32 ? SPVJIT_TYPE_I32
            : bits == 64 ? SPVJIT_TYPE_I64
                         : 0;
    else if (!strcmp(p, "UINT"))
        t = bits == 8    ? SPVJIT_TYPE_U8
            : bits == 16 ? SPVJIT_TYPE_U16
            : bits == 32 ? SPVJIT_TYPE_U32
            : bits == 64 ? SPVJIT_TYPE_U64
                         : 0;
    else
        return -1;
    if (!t)
        return -1;
    out->scalar = t;
    out->rows = n;
    out->cols = 1;
    return 0;
}

int amber_type_parse(const char *name, amber_type *out)
{
    memset(out, 0, sizeof *out);
    out->rows = out->cols = 1;
    size_t len = strlen(name);
    if (len > 2 && !strcmp(name + len - 2, "[]")) { /* an array of the element type */
        char elem[64];
        if (len - 2 >= sizeof elem)
            return -1;
        memcpy(elem, name, len - 2);
        elem[len - 2] = 0;
        if (amber_type_parse(elem, out) || out->array)
            return -1;
        out->array = true;
        return 0;
    }
    if (!scalar_parse(name, len, &out->scalar))
        return 0;
    unsigned rows = 0, cols = 1;
    const char *lt = strchr(name, '<');
    if (!lt || name[len - 1] != '>')
        return format_parse(name, out);
    if (!strncmp(name, "vec", 3) && lt == name + 4 && name[3] >= '2' && name[3] <= '4') {
        rows = (unsigned)(name[3] - '0');
    } else if (!strncmp(name, "mat", 3) && lt == name + 6 && name[4] == 'x' && name[3] >= '2' && name[3] <= '4' &&
               name[5] >= '2' && name[5] <= '4') {
        cols = (unsigned)(name[3] - '0'); /* matCxR: C columns of R rows */
        rows = (unsigned)(name[5] - '0');
    } else {
        return -1;
    }
    if (scalar_parse(lt + 1, len - (size_t)(lt - name) - 2, &out->scalar))
        return -1;
    if (cols > 1 && !vtype_is_float(out->scalar))
        return -1; /* matrices are floating point */
    out->rows = rows;
    out->cols = cols;
    return 0;
}

void amber_type_name(const amber_type *t, char *buf, size_t len)
{
    const char *arr = t->array ? "[]" : "";
    if (t->cols > 1)
        snprintf(buf, len, "mat%ux%u<%s>%s", t->cols, t->rows, scalar_name(t->scalar), arr);
    else if (t->rows > 1)
        snprintf(buf, len, "vec%u<%s>%s", t->rows, scalar_name(t->scalar), arr);
    else
        snprintf(buf, len, "%s%s", scalar_name(t->scalar), arr);
}

unsigned amber_type_components(const amber_type *t)
{
    return t->rows * t->cols;
}

/* Stride of one column vector: vec3 is aligned like vec4 (both layouts);
 * STD140 rounds matrix columns up to 16 bytes. */
static size_t column_stride(const amber_type *t)
{
    size_t s = vtype_size(t->scalar);
    size_t v = t->rows == 1 ? s : t->rows == 2 ? 2 * s : 4 * s;
    if (t->std140 && t->cols > 1)
        v = (v + 15) & ~(size_t)15;
    return v;
}

/* As Amber's Format lays elements out: a vec3 takes the room of a vec4 in
 * both layouts, STD140 pads matrix columns to 16 bytes, and only the
 * elements of an array type (T[]) to 16; a scalar or vector buffer is packed. */
size_t amber_type_stride(const amber_type *t)
{
    size_t st = column_stride(t) * t->cols;
    if (t->std140 && t->array)
        st = (st + 15) & ~(size_t)15;
    return st;
}

size_t amber_type_component_offset(const amber_type *t, unsigned k)
{
    return (k / t->rows) * column_stride(t) + (k % t->rows) * vtype_size(t->scalar);
}

/* --- buffer initializers ------------------------------------------------------------ */

int amber_buffer_reserve(amber_buffer *b, size_t bytes)
{
    if (bytes <= b->size && b->data)
        return 0;
    uint8_t *d = realloc(b->data, bytes ? bytes : 1);
    if (!d)
        return -1;
    memset(d + b->size, 0, (bytes ? bytes : 1) - b->size);
    b->data = d;
    b->size = bytes;
    size_t st = amber_type_stride(&b->type);
    if (st)
        b->element_count = (bytes + st - 1) / st;
    return 0;
}

int amber_buffer_guard(amber_buffer *b)
{
    size_t whole = (b->size + AMBER_BUFFER_ALIGN - 1) / AMBER_BUFFER_ALIGN * AMBER_BUFFER_ALIGN;
    uint8_t *d = aligned_alloc(AMBER_BUFFER_ALIGN, whole ? whole : AMBER_BUFFER_ALIGN);
    if (!d)
        return -1;
    if (b->size)
        memcpy(d, b->data, b->size);
    free(b->data);
    b->data = d;
    return 0;
}

/* A value for an element of type t: a float given for an integer type is
 * taken when it is integral ("FILL 0.0", "2.0"), as Amber takes it; a
 * fraction is an error (Amber would silently store 0). */
static int value_for(spvjit_type t, const num_value *v, num_value *out, char *err, size_t errlen)
{
    *out = *v;
    if (vtype_is_float(t) || !v->is_float)
        return 0;
    if (!isfinite(v->d) || v->d != trunc(v->d) || fabs(v->d) >= 18446744073709551616.0)
        return cli_errf(err, errlen, "%g is not an integer (the type is %s)", v->d, scalar_name(t));
    out->is_float = false;
    out->negative = v->d < 0;
    out->u = v->d < 0 ? (uint64_t)(int64_t)v->d : (uint64_t)v->d;
    return 0;
}

/* Amber's float16 (src/float16_helper.cc): the value is made a float, then
 * its exponent rebased and its mantissa cut to 10 bits - rounded toward zero,
 * not to nearest - and denormals flushed to zero.  Scripts' expected values
 * (the CTS's fp16 precision tests) are computed from inputs converted so. */
static int amber_f16_store(double d, void *dst, char *err, size_t errlen)
{
    float f = (float)d;
    uint32_t b;
    memcpy(&b, &f, 4);
    uint16_t h, sign = (uint16_t)((b >> 16) & 0x8000);
    int e = (int)((b >> 23) & 0xff) - 112;
    if (isnan(f))
        h = 0x7e00;
    else if (isinf(f))
        h = sign | 0x7c00;
    else if (e >= 31)
        return cli_errf(err, errlen, "%g is out of range for float16", d);
    else if (e <= 0)
        h = sign; /* an f16 denormal or smaller: flushed */
    else
        h = (uint16_t)(sign | (uint16_t)(e << 10) | (uint16_t)((b & 0x7fffff) >> 13));
    memcpy(dst, &h, 2);
    return 0;
}

/* An f16 element as Amber reads it: denormals are zero. */
static double amber_f16_load(const void *src)
{
    uint16_t h;
    memcpy(&h, src, 2);
    if (!(h & 0x7c00))
        h &= 0x8000;
    return f16_to_f32(h);
}

/* One element value into a buffer: integers wrap as Amber's DATA does. */
static int store_value(spvjit_type t, const num_value *v, void *dst, char *err, size_t errlen)
{
    if (t == SPVJIT_TYPE_F16)
        return amber_f16_store(v->d, dst, err, errlen);
    return num_store(t, v, true, dst, err, errlen);
}

int amber_encode_values(const amber_type *t, const num_value *v, unsigned n, uint8_t *dst, size_t dst_size,
                        uint64_t offset, char *err, size_t errlen)
{
    unsigned comps = amber_type_components(t);
    size_t st = amber_type_stride(t), ss = vtype_size(t->scalar);
    for (unsigned i = 0; i < n; i++) {
        uint64_t at = offset + (uint64_t)(i / comps) * st + amber_type_component_offset(t, i % comps);
        if (at + ss > dst_size)
            return cli_errf(err, errlen, "value %u lands at byte %" PRIu64 ", past the end (%zu bytes)", i, at,
                            dst_size);
        num_value x;
        char e2[160];
        if (value_for(t->scalar, &v[i], &x, e2, sizeof e2) || store_value(t->scalar, &x, dst + at, e2, sizeof e2))
            return cli_errf(err, errlen, "value %u: %s", i, e2);
    }
    return 0;
}

static int alloc_elements(amber_buffer *b, uint64_t count, char *err, size_t errlen)
{
    size_t st = amber_type_stride(&b->type);
    if (count > ((uint64_t)1 << 34) / st)
        return cli_errf(err, errlen, "%" PRIu64 " elements is too large", count);
    free(b->data);
    b->size = (size_t)count * st;
    b->data = calloc(b->size ? b->size : 1, 1);
    b->element_count = count;
    if (!b->data)
        return cli_errf(err, errlen, "out of memory");
    return 0;
}

int amber_buffer_set_values(amber_buffer *b, const num_value *v, uint64_t n, char *err, size_t errlen)
{
    unsigned comps = amber_type_components(&b->type);
    if (alloc_elements(b, (n + comps - 1) / comps, err, errlen))
        return -1;
    return amber_encode_values(&b->type, v, (unsigned)n, b->data, b->size, 0, err, errlen);
}

int amber_buffer_fill(amber_buffer *b, uint64_t count, const num_value *value, char *err, size_t errlen)
{
    num_value x;
    if (value_for(b->type.scalar, value, &x, err, errlen) || alloc_elements(b, count, err, errlen))
        return -1;
    unsigned comps = amber_type_components(&b->type);
    size_t st = amber_type_stride(&b->type);
    if (!count)
        return 0;
    for (unsigned k = 0; k < comps; k++)
        if (store_value(b->type.scalar, &x, b->data + amber_type_component_offset(&b->type, k), err, errlen))
            return -1;
    for (uint64_t i = 1; i < count; i++)
        memcpy(b->data + i * st, b->data, st);
    return 0;
}

int amber_buffer_series(amber_buffer *b, uint64_t count, const num_value *start, const num_value *inc, char *err,
                        size_t errlen)
{
    if (amber_type_components(&b->type) != 1)
        return cli_errf(err, errlen, "SERIES_FROM needs a scalar type, not a vector or matrix");
    bool fp = vtype_is_float(b->type.scalar);
    num_value x, step;
    if (value_for(b->type.scalar, start, &x, err, errlen) || value_for(b->type.scalar, inc, &step, err, errlen) ||
        alloc_elements(b, count, err, errlen))
        return -1;
    inc = &step;
    size_t st = amber_type_stride(&b->type);
    for (uint64_t i = 0; i < count; i++) {
        store_value(b->type.scalar, &x, b->data + i * st, NULL, 0);
        if (fp) {
            x.d += inc->d; /* floating-point addition, as Amber does */
            x.is_float = true;
        } else {
            x.u += inc->u; /* integer addition, wrapping */
        }
    }
    return 0;
}

int amber_buffer_copy(amber_buffer *to, const amber_buffer *from)
{
    uint8_t *d = malloc(from->size ? from->size : 1);
    if (!d)
        return -1;
    memcpy(d, from->data, from->size);
    free(to->data);
    to->data = d;
    to->size = from->size;
    to->type = from->type;
    to->element_count = from->element_count;
    return 0;
}

/* --- EXPECT -------------------------------------------------------------------------------- */

static const char *cmp_name(amber_cmp c)
{
    static const char *const n[] = { "EQ", "NE", "LT", "LE", "GT", "GE" };
    return n[c];
}

/* Orders actual vs expected: <0, 0, >0 (NaN: 2, unordered). */
static int compare_scalar(spvjit_type t, const void *actual, const void *expected)
{
    if (vtype_is_float(t)) {
        double a = scalar_as_double(t, actual), e = scalar_as_double(t, expected);
        if (isnan(a) || isnan(e))
            return (isnan(a) && isnan(e)) ? 0 : 2; /* NaN matches an expected NaN */
        return a < e ? -1 : a > e ? 1 : 0;
    }
    uint64_t a = scalar_as_bits(t, actual), e = scalar_as_bits(t, expected);
    if (vtype_is_signed(t))
        return (int64_t)a < (int64_t)e ? -1 : (int64_t)a > (int64_t)e ? 1 : 0;
    return a < e ? -1 : a > e ? 1 : 0;
}

static bool cmp_holds(amber_cmp c, int order)
{
    if (order == 2)
        return c == AMBER_NE;
    switch (c) {
    case AMBER_EQ:
        return order == 0;
    case AMBER_NE:
        return order != 0;
    case AMBER_LT:
        return order < 0;
    case AMBER_LE:
        return order <= 0;
    case AMBER_GT:
        return order > 0;
    default:
        return order >= 0;
    }
}

/* Whether actual is within tol of expected (percent: of |expected|), as
 * Amber's IsEqualWithTolerance: NaN matches only NaN; an infinity only itself. */
static bool within(double actual, double expected, double tol, bool percent)
{
    if (isnan(actual) || isnan(expected))
        return isnan(actual) && isnan(expected);
    if (isinf(actual) || isinf(expected))
        return actual == expected;
    return fabs(actual - expected) <= (percent ? tol / 100.0 * fabs(expected) : tol);
}

/* Amber's verifier (src/verifier.cc): each expected value is first converted
 * to the element type (static_cast<T>: 4.7 becomes the float 4.69999981),
 * then compared: integers exactly, floats for EQ/NE within kEpsilon = 1e-6
 * percent, with TOLERANCE (or VkScript's ~=) within the given tolerance,
 * LT..GE by value. */
static int expect_values(const amber_script *s, const amber_cmd *c, char *msg, size_t msglen)
{
    const amber_buffer *b = &s->buffers[c->buffer];
    amber_type t = c->has_value_type ? c->value_type : b->type;
    unsigned comps = amber_type_components(&t);
    size_t st = amber_type_stride(&t), ss = vtype_size(t.scalar);
    bool fp = vtype_is_float(t.scalar);
    for (unsigned i = 0; i < c->nvalues; i++) {
        unsigned k = i % comps;
        uint64_t at = c->offset + (uint64_t)(i / comps) * st + amber_type_component_offset(&t, k);
        if (at + ss > b->size)
            return cli_errf(msg, msglen,
                            "line %d: EXPECT %s IDX %" PRIu64 ": value %u is at byte %" PRIu64
                            ", past the end of the buffer (%zu bytes)",
                            c->line, b->name, c->offset, i, at, b->size),
                   -1;
        uint8_t exp[8] = { 0 };
        num_value v;
        char e2[160];
        if (value_for(t.scalar, &c->values[i], &v, e2, sizeof e2) || num_store(t.scalar, &v, true, exp, e2, sizeof e2))
            return cli_errf(msg, msglen, "line %d: EXPECT value %u: %s", c->line, i, e2), -1;
        bool ok;
        char as[64], es[96];
        scalar_format(t.scalar, b->data + at, as, sizeof as);
        scalar_format(t.scalar, exp, es, sizeof es);
        double a = scalar_as_double(t.scalar, b->data + at), e = scalar_as_double(t.scalar, exp);
        int order = 2;
        if (t.scalar == SPVJIT_TYPE_F16) { /* Amber compares a half as a float, denormals flushed */
            a = amber_f16_load(b->data + at);
            e = (float)v.d;
            snprintf(es, sizeof es, "%.9g", e);
            if (!isnan(a) && !isnan(e))
                order = a < e ? -1 : a > e ? 1 : 0;
        } else {
            order = compare_scalar(t.scalar, b->data + at, exp);
        }
        if (c->ntol) {
            const amber_tolerance *tl = &c->tol[k % c->ntol];
            bool in = within(a, e, tl->value, tl->percent);
            ok = c->cmp == AMBER_NE ? !in : in;
            size_t n = strlen(es);
            snprintf(es + n, sizeof es - n, " (tolerance %g%s)", tl->value, tl->percent ? "%" : "");
        } else if (fp && (c->cmp == AMBER_EQ || c->cmp == AMBER_NE)) {
            bool in = within(a, e, 1e-6, true);
            ok = c->cmp == AMBER_NE ? !in : in;
        } else {
            ok = cmp_holds(c->cmp, order);
        }
        if (!ok) {
            cli_errf(msg, msglen,
                     "line %d: EXPECT %s IDX %" PRIu64 " %s: value %u (byte %" PRIu64 ") expected %s%s%s, got %s",
                     c->line, b->name, c->offset, cmp_name(c->cmp), i, at, c->cmp == AMBER_EQ ? "" : cmp_name(c->cmp),
                     c->cmp == AMBER_EQ ? "" : " ", es, as);
            return 1;
        }
    }
    return 0;
}

static int expect_buffers(const amber_script *s, const amber_cmd *c, char *msg, size_t msglen)
{
    const amber_buffer *a = &s->buffers[c->buffer], *b = &s->buffers[c->buffer2];
    char an[64], bn[64];
    amber_type_name(&a->type, an, sizeof an);
    amber_type_name(&b->type, bn, sizeof bn);
    if (a->type.scalar != b->type.scalar || a->type.rows != b->type.rows || a->type.cols != b->type.cols)
        return cli_errf(msg, msglen, "line %d: %s (%s) and %s (%s) are of different types", c->line, a->name, an,
                        b->name, bn),
               1;
    if (a->element_count != b->element_count)
        return cli_errf(msg, msglen, "line %d: %s has %" PRIu64 " elements, %s has %" PRIu64, c->line, a->name,
                        a->element_count, b->name, b->element_count),
               1;
    unsigned comps = amber_type_components(&a->type);
    size_t sa = amber_type_stride(&a->type), sb = amber_type_stride(&b->type), ss = vtype_size(a->type.scalar);
    double sum = 0;
    uint64_t n = a->element_count * comps;
    for (uint64_t i = 0; i < n; i++) {
        unsigned k = (unsigned)(i % comps);
        size_t oa = (size_t)(i / comps) * sa + amber_type_component_offset(&a->type, k);
        size_t ob = (size_t)(i / comps) * sb + amber_type_component_offset(&b->type, k);
        if (oa + ss > a->size || ob + ss > b->size)
            break;
        if (c->kind == AMBER_CMD_EXPECT_EQ_BUFFER) {
            if (compare_scalar(a->type.scalar, a->data + oa, b->data + ob) != 0) {
                char x[64], y[64];
                scalar_format(a->type.scalar, a->data + oa, x, sizeof x);
                scalar_format(a->type.scalar, b->data + ob, y, sizeof y);
                return cli_errf(msg, msglen, "line %d: EXPECT %s EQ_BUFFER %s: value %" PRIu64 " differs: %s vs %s",
                                c->line, a->name, b->name, i, x, y),
                       1;
            }
        } else {
            double d = scalar_as_double(a->type.scalar, a->data + oa) - scalar_as_double(b->type.scalar, b->data + ob);
            sum += d * d;
        }
    }
    if (c->kind == AMBER_CMD_EXPECT_RMSE_BUFFER) {
        double rmse = n ? sqrt(sum / (double)n) : 0;
        if (!(rmse <= c->rmse_tolerance))
            return cli_errf(msg, msglen, "line %d: EXPECT %s RMSE_BUFFER %s: expected RMSE <= %g, got %g", c->line,
                            a->name, b->name, c->rmse_tolerance, rmse),
                   1;
    }
    return 0;
}

int amber_expect_eval(const amber_script *s, const amber_cmd *c, char *msg, size_t msglen)
{
    if (msg && msglen)
        msg[0] = 0;
    switch (c->kind) {
    case AMBER_CMD_EXPECT:
        return expect_values(s, c, msg, msglen);
    case AMBER_CMD_EXPECT_EQ_BUFFER:
    case AMBER_CMD_EXPECT_RMSE_BUFFER:
        return expect_buffers(s, c, msg, msglen);
    default:
        return cli_errf(msg, msglen, "line %d: not an EXPECT", c->line);
    }
}
