/* lib/api_specs.c — sets of spec-constant values and resolving them against a module. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/api_internal.h"

SPVJIT_API spvjit_status spvjit_specs_create(spvjit_specs **out)
{
    if (!out)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_specs_create: out is NULL");
    *out = calloc(1, sizeof **out);
    return *out ? SPVJIT_OK : api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "spvjit_specs_create: out of memory");
}

SPVJIT_API void spvjit_specs_destroy(spvjit_specs *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i].text);
    free(s->v);
    free(s);
}

/* Sets (or replaces) the value of spec_id. */
static spvjit_status put(spvjit_specs *s, uint32_t spec_id, spv_value_type type, uint64_t bits, const char *text)
{
    if (!s)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_spec_set: the specs object is NULL");
    char *t = text ? strdup(text) : NULL;
    if (text && !t)
        return api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "spvjit_spec_set: out of memory");
    api_spec_value *v = NULL;
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].spec_id == spec_id)
            v = &s->v[i];
    if (!v) {
        if (s->n == s->cap) {
            size_t cap = s->cap ? s->cap * 2 : 8;
            api_spec_value *p = realloc(s->v, cap * sizeof *p);
            if (!p) {
                free(t);
                return api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "spvjit_spec_set: out of memory");
            }
            s->v = p;
            s->cap = cap;
        }
        v = &s->v[s->n++];
        v->text = NULL;
    }
    free(v->text);
    *v = (api_spec_value){ .spec_id = spec_id, .type = type, .bits = bits, .text = t };
    return SPVJIT_OK;
}

SPVJIT_API spvjit_status spvjit_spec_set_bool(spvjit_specs *s, uint32_t id, bool v)
{
    return put(s, id, SPV_VALUE_BOOL, v ? 1 : 0, NULL);
}
SPVJIT_API spvjit_status spvjit_spec_set_i32(spvjit_specs *s, uint32_t id, int32_t v)
{
    return put(s, id, SPV_VALUE_I32, (uint32_t)v, NULL);
}
SPVJIT_API spvjit_status spvjit_spec_set_u32(spvjit_specs *s, uint32_t id, uint32_t v)
{
    return put(s, id, SPV_VALUE_U32, v, NULL);
}
SPVJIT_API spvjit_status spvjit_spec_set_i64(spvjit_specs *s, uint32_t id, int64_t v)
{
    return put(s, id, SPV_VALUE_I64, (uint64_t)v, NULL);
}
SPVJIT_API spvjit_status spvjit_spec_set_u64(spvjit_specs *s, uint32_t id, uint64_t v)
{
    return put(s, id, SPV_VALUE_U64, v, NULL);
}

SPVJIT_API spvjit_status spvjit_spec_set_f32(spvjit_specs *s, uint32_t id, float v)
{
    uint32_t b;
    memcpy(&b, &v, 4);
    return put(s, id, SPV_VALUE_F32, b, NULL);
}

SPVJIT_API spvjit_status spvjit_spec_set_f64(spvjit_specs *s, uint32_t id, double v)
{
    uint64_t b;
    memcpy(&b, &v, 8);
    return put(s, id, SPV_VALUE_F64, b, NULL);
}

static bool is_int(spv_value_type t)
{
    return t >= SPV_VALUE_I8 && t <= SPV_VALUE_U64;
}
static bool is_signed(spv_value_type t)
{
    return t >= SPV_VALUE_I8 && t <= SPV_VALUE_I64;
}

SPVJIT_API spvjit_status spvjit_spec_set(spvjit_specs *s, uint32_t id, spvjit_type type, uint64_t bits)
{
    spv_value_type t = (spv_value_type)type;
    unsigned w = spv_value_type_bits(t);
    if (!w)
        return api_fail(SPVJIT_ERROR_SPEC_CONSTANT, "SpecId %u: %d is not an spvjit_type", id, (int)type);
    if (w < 64 && (bits >> w) != 0)
        return api_fail(SPVJIT_ERROR_SPEC_CONSTANT,
                        "SpecId %u: bits 0x%" PRIx64 " do not fit a %s "
                        "(give %u-bit values zero-extended)",
                        id, bits, spv_value_type_name(t), w);
    return put(s, id, t, bits, NULL);
}

SPVJIT_API spvjit_status spvjit_spec_set_text(spvjit_specs *s, uint32_t id, const char *text)
{
    if (!text)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_spec_set_text: text is NULL");
    if (strchr(text, '='))
        return api_fail(SPVJIT_ERROR_SPEC_CONSTANT,
                        "SpecId %u: value \"%s\": give the value alone "
                        "(the SpecId is the argument)",
                        id, text);
    spv_spec_value v;
    spv_diag d;
    d.msg[0] = 0;
    if (spv_parse_spec_value(text, &v, &d) != 0)
        return api_fail(SPVJIT_ERROR_SPEC_CONSTANT, "SpecId %u: %s", id, d.msg);
    /* No suffix: the text is parsed as the constant's type when the module is known. */
    return put(s, id, v.type, v.bits, v.type == SPV_VALUE_AUTO ? text : NULL);
}

/* Converts a user value to constant c's type: same class (bool / int /
 * float); integers of another width or signedness if the value fits; floats
 * of the same width only (a conversion could round). */
static spvjit_status convert(const spvjit_module *m, const spv_spec_constant *c, const api_spec_value *v, uint64_t *out)
{
    const char *src = m->m->source;
    const char *cname = c->name && *c->name ? c->name : "";
    if (v->type == SPV_VALUE_AUTO) {
        spv_diag d;
        d.msg[0] = 0;
        if (spv_parse_value_as(v->text, c->type, out, &d) != 0)
            return api_fail(SPVJIT_ERROR_SPEC_CONSTANT, "%s: SpecId %u%s%s (%s): %s", src, c->spec_id,
                            *cname ? " " : "", cname, spv_value_type_name(c->type), d.msg);
        return SPVJIT_OK;
    }
    unsigned vw = spv_value_type_bits(v->type), cw = spv_value_type_bits(c->type);
    if (v->type == c->type) {
        *out = v->bits;
        return SPVJIT_OK;
    }
    if (is_int(v->type) && is_int(c->type)) {
        uint64_t mask = cw == 64 ? ~0ull : (1ull << cw) - 1;
        /* Same width: the same two's complement bits (Kernel modules have no
         * signedness, so i32 and u32 must both fit a 32-bit constant). */
        if (cw == vw) {
            *out = v->bits & mask;
            return SPVJIT_OK;
        }
        bool neg = is_signed(v->type) && ((v->bits >> (vw - 1)) & 1);
        int64_t sval = neg ? (int64_t)(v->bits | (vw < 64 ? ~0ull << vw : 0)) : 0;
        bool fits;
        if (neg)
            fits = is_signed(c->type) && (cw == 64 || sval >= -(int64_t)(1ull << (cw - 1)));
        else if (is_signed(c->type))
            fits = v->bits <= (mask >> 1);
        else
            fits = v->bits <= mask;
        if (!fits)
            return api_fail(SPVJIT_ERROR_SPEC_CONSTANT,
                            "%s: SpecId %u%s%s is a %s; the %s value %s%" PRIu64 " is out of its range", src,
                            c->spec_id, *cname ? " " : "", cname, spv_value_type_name(c->type),
                            spv_value_type_name(v->type), neg ? "-" : "", neg ? (uint64_t)0 - (uint64_t)sval : v->bits);
        *out = (neg ? (uint64_t)sval : v->bits) & mask;
        return SPVJIT_OK;
    }
    return api_fail(SPVJIT_ERROR_SPEC_CONSTANT, "%s: SpecId %u%s%s is a %s, but the value given is a %s", src,
                    c->spec_id, *cname ? " " : "", cname, spv_value_type_name(c->type), spv_value_type_name(v->type));
}

spvjit_status api_resolve_specs(const spvjit_module *m, const spvjit_specs *s, uint64_t **out)
{
    *out = calloc(m->nspecs ? m->nspecs : 1, sizeof **out);
    if (!*out)
        return api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "out of memory");
    for (size_t i = 0; i < m->nspecs; i++)
        (*out)[i] = m->specs[i].default_bits;
    for (size_t j = 0; s && j < s->n; j++) {
        const api_spec_value *v = &s->v[j];
        size_t i = 0;
        while (i < m->nspecs && m->specs[i].spec_id != v->spec_id)
            i++;
        if (i == m->nspecs) {
            char ids[1024] = "";
            size_t k = 0;
            for (size_t q = 0; q < m->nspecs && k < sizeof ids; q++)
                k += (size_t)snprintf(ids + k, sizeof ids - k, "%s%u", q ? ", " : "", m->specs[q].spec_id);
            free(*out);
            *out = NULL;
            return api_fail(SPVJIT_ERROR_SPEC_CONSTANT, "%s: no spec constant with SpecId %u; the module has %s%s",
                            m->m->source, v->spec_id, m->nspecs ? "SpecIds " : "none", ids);
        }
        spvjit_status st = convert(m, &m->specs[i], v, &(*out)[i]);
        if (st != SPVJIT_OK) {
            free(*out);
            *out = NULL;
            return st;
        }
    }
    return SPVJIT_OK;
}
