/* lib/api_specs.c — sets of spec-constant values and resolving them against a module. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/api_internal.h"
#include "util/array.h"

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
    for (size_t i = 0; i < UTIL_ARRAY_COUNT(&s->values, api_spec_value); i++)
        free(UTIL_ARRAY_AT(&s->values, api_spec_value, i).text);
    util_array_fini(&s->values);
    free(s);
}

/* Sets (or replaces) the value of spec_id. */
static spvjit_status put(spvjit_specs *s, uint32_t spec_id, spv_value_type type, uint64_t bits, const char *text,
                         uint32_t size)
{
    if (!s)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_spec_set: the specs object is NULL");
    char *t = text ? strdup(text) : NULL;
    if (text && !t)
        return api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "spvjit_spec_set: out of memory");
    api_spec_value *v = NULL;
    for (size_t i = 0; i < UTIL_ARRAY_COUNT(&s->values, api_spec_value); i++)
        if (UTIL_ARRAY_AT(&s->values, api_spec_value, i).spec_id == spec_id)
            v = &UTIL_ARRAY_AT(&s->values, api_spec_value, i);
    if (!v && !(v = util_array_grow(&s->values, sizeof *v))) {
        free(t);
        return api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "spvjit_spec_set: out of memory");
    }
    free(v->text);
    *v = (api_spec_value){ .spec_id = spec_id, .type = type, .bits = bits, .text = t, .size = size };
    return SPVJIT_OK;
}

SPVJIT_API spvjit_status spvjit_spec_set_bool(spvjit_specs *s, uint32_t id, bool v)
{
    return put(s, id, SPV_VALUE_BOOL, v ? 1 : 0, NULL, 0);
}
SPVJIT_API spvjit_status spvjit_spec_set_i32(spvjit_specs *s, uint32_t id, int32_t v)
{
    return put(s, id, SPV_VALUE_I32, (uint32_t)v, NULL, 0);
}
SPVJIT_API spvjit_status spvjit_spec_set_u32(spvjit_specs *s, uint32_t id, uint32_t v)
{
    return put(s, id, SPV_VALUE_U32, v, NULL, 0);
}
SPVJIT_API spvjit_status spvjit_spec_set_i64(spvjit_specs *s, uint32_t id, int64_t v)
{
    return put(s, id, SPV_VALUE_I64, (uint64_t)v, NULL, 0);
}
SPVJIT_API spvjit_status spvjit_spec_set_u64(spvjit_specs *s, uint32_t id, uint64_t v)
{
    return put(s, id, SPV_VALUE_U64, v, NULL, 0);
}

SPVJIT_API spvjit_status spvjit_spec_set_f32(spvjit_specs *s, uint32_t id, float v)
{
    uint32_t b;
    memcpy(&b, &v, 4);
    return put(s, id, SPV_VALUE_F32, b, NULL, 0);
}

SPVJIT_API spvjit_status spvjit_spec_set_f64(spvjit_specs *s, uint32_t id, double v)
{
    uint64_t b;
    memcpy(&b, &v, 8);
    return put(s, id, SPV_VALUE_F64, b, NULL, 0);
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
    return put(s, id, t, bits, NULL, 0);
}

SPVJIT_API spvjit_status spvjit_spec_set_bytes(spvjit_specs *s, uint32_t id, const void *data, size_t size)
{
    if (!data)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_spec_set_bytes: data is NULL");
    if (size != 1 && size != 2 && size != 4 && size != 8)
        return api_fail(SPVJIT_ERROR_SPEC_CONSTANT, "SpecId %u: %zu bytes given; a spec constant has 1, 2, 4 or 8", id,
                        size);
    uint64_t bits = 0;
    memcpy(&bits, data, size); /* the low bytes first: little-endian hosts, as the whole project assumes */
    return put(s, id, SPV_VALUE_BYTES, bits, NULL, (uint32_t)size);
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
    return put(s, id, v.type, v.bits, v.type == SPV_VALUE_AUTO ? v.text : NULL, 0);
}

SPVJIT_API spvjit_status spvjit_spec_set_define(spvjit_specs *s, const char *define)
{
    if (!define)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_spec_set_define: text is NULL");
    if (!strchr(define, '='))
        return api_fail(SPVJIT_ERROR_SPEC_CONSTANT, "\"%s\": expected ID=VALUE", define);
    spv_spec_value v;
    spv_diag d;
    d.msg[0] = 0;
    if (spv_parse_spec_value(define, &v, &d) != 0)
        return api_fail(SPVJIT_ERROR_SPEC_CONSTANT, "%s", d.msg);
    return put(s, v.spec_id, v.type, v.bits, v.type == SPV_VALUE_AUTO ? v.text : NULL, 0);
}

spvjit_status api_resolve_specs(const spvjit_module *m, const spvjit_specs *s, uint64_t **out)
{
    size_t nv = s ? UTIL_ARRAY_COUNT(&s->values, api_spec_value) : 0;
    /* a cache hit comes here: no allocations but the result's for the usual few values */
    enum { SMALL = 32 };
    uint64_t all_small[SMALL];
    spv_spec_value vals_small[SMALL];
    *out = calloc(m->nspecs ? m->nspecs : 1, sizeof **out);
    uint64_t *all = m->nslots <= SMALL ? all_small : calloc(m->nslots, sizeof *all);
    spv_spec_value *vals = nv <= SMALL ? vals_small : calloc(nv, sizeof *vals);
    if (!*out || !all || !vals) {
        free(*out);
        *out = NULL;
        if (all != all_small)
            free(all);
        if (vals != vals_small)
            free(vals);
        return api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    for (size_t j = 0; j < nv; j++) {
        const api_spec_value *v = &UTIL_ARRAY_AT(&s->values, api_spec_value, j);
        vals[j] = (spv_spec_value){
            .spec_id = v->spec_id, .type = v->type, .bits = v->bits, .text = v->text, .size = v->size
        };
    }
    /* Every constant (one SpecId may sit on several) is checked by the one rule. */
    spv_diag d;
    d.msg[0] = 0;
    spvjit_status st = SPVJIT_OK;
    if (spv_spec_resolve(m->m, m->slots, m->nslots, vals, nv, all, &d) != 0)
        st = api_fail(SPVJIT_ERROR_SPEC_CONSTANT, "%s", d.msg);
    for (size_t i = 0, k = 0; st == SPVJIT_OK && i < m->nspecs; i++) {
        while (m->slots[k].spec_id != m->specs[i].spec_id)
            k++;
        (*out)[i] = all[k];
    }
    if (all != all_small)
        free(all);
    if (vals != vals_small)
        free(vals);
    if (st != SPVJIT_OK) {
        free(*out);
        *out = NULL;
    }
    return st;
}

SPVJIT_API const char *spvjit_type_name(spvjit_type t)
{
    return spv_value_type_bits((spv_value_type)t) ? spv_value_type_name((spv_value_type)t) : "?";
}

SPVJIT_API const char *spvjit_value_text(spvjit_type t, uint64_t bits, char *buf, size_t len)
{
    if (buf && len)
        spv_value_format((spv_value_type)t, bits, buf, len);
    return buf;
}
