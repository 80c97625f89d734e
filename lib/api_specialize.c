/* lib/api_specialize.c — modules with spec values folded in: for the JIT and
 * as SPIR-V for the caller (spvjit_module_specialize). */
#include <stdlib.h>
#include <string.h>

#include "lib/api_internal.h"

/* The values (module->specs order) as the specializer takes them. */
static spv_spec_value *values_for_specializer(const spvjit_module *mod, const uint64_t *values)
{
    spv_spec_value *vals = calloc(mod->nspecs ? mod->nspecs : 1, sizeof *vals);
    for (size_t i = 0; vals && i < mod->nspecs; i++)
        vals[i] = (spv_spec_value){ .spec_id = mod->specs[i].spec_id, .type = mod->specs[i].type, .bits = values[i] };
    return vals;
}

/* Values can make a valid module invalid (a spec constant used as a memory
 * scope, say): the specialized words are validated, and the message names the
 * values.  Words that specialization left as they were (a module without spec
 * constants) are the ones spvjit_module_load validated: a second run would
 * only repeat its verdict, a tenth of a quick build. */
static spvjit_status validate_specialized(const spvjit_module *mod, const uint32_t *words, size_t nwords)
{
    if (spv_module_words_are(mod->m, words, nwords))
        return SPVJIT_OK;
    spv_diag d;
    d.msg[0] = 0;
    if (spv_validate_words(words, nwords, mod->m->source, &d))
        return SPVJIT_OK;
    spv_diag_append(&d, " (after specialization with the given values)");
    return api_fail(SPVJIT_ERROR_SPEC_CONSTANT, "%s", d.msg);
}

/* Specializes, and validates when asked. */
static spvjit_status specialize_words(const spvjit_module *mod, const uint64_t *values, bool validate,
                                      uint32_t **words, size_t *nwords)
{
    spv_diag d;
    d.msg[0] = 0;
    *words = NULL;
    *nwords = 0;
    spv_spec_value *vals = values_for_specializer(mod, values);
    if (!vals)
        return api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "out of memory");
    int rc = spv_specialize(mod->m, vals, mod->nspecs, words, nwords, &d);
    free(vals);
    if (rc != 0)
        return api_fail(SPVJIT_ERROR_SPEC_CONSTANT, "%s", d.msg);
    spvjit_status st = validate ? validate_specialized(mod, *words, *nwords) : SPVJIT_OK;
    if (st != SPVJIT_OK) {
        free(*words);
        *words = NULL;
        *nwords = 0;
    }
    return st;
}

spvjit_status api_module_validate_specialized(const spvjit_module *mod, const spv_module *sm)
{
    return validate_specialized(mod, sm->words, sm->nwords);
}

spv_module *api_module_for_values(const spvjit_module *mod, const uint64_t *values, bool unspecialized, bool validate,
                                  spvjit_shape_value **shapes_out, spvjit_status *st)
{
    *shapes_out = NULL;
    spvjit_shape_value *shapes = calloc(mod->nspecs ? mod->nspecs : 1, sizeof *shapes);
    if (!shapes) {
        *st = api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < mod->nspecs; i++)
        shapes[i] = (spvjit_shape_value){ .spec_id = mod->specs[i].spec_id, .bits = values[i] };
    const spv_load_options skip = { .skip_validation = true };
    spv_diag d;
    d.msg[0] = 0;
    spv_module *sm = NULL;
    *st = SPVJIT_OK;
    if (unspecialized) {
        sm = spv_module_load(mod->m->words, mod->m->nwords * 4, mod->m->source, &skip, &d);
    } else {
        uint32_t *w = NULL;
        size_t nw = 0;
        *st = specialize_words(mod, values, validate, &w, &nw);
        if (*st == SPVJIT_OK)
            sm = spv_module_load(w, nw * 4, mod->m->source, &skip, &d);
        free(w);
    }
    if (!sm) {
        free(shapes);
        if (*st == SPVJIT_OK)
            *st = api_fail(SPVJIT_ERROR_INVALID_MODULE, "%s", d.msg);
        return NULL;
    }
    *shapes_out = shapes;
    return sm;
}

SPVJIT_API spvjit_status spvjit_module_specialize(const spvjit_module *m, const spvjit_specs *specs, uint32_t **words,
                                                  size_t *nwords)
{
    if (!m || !words || !nwords)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_module_specialize: NULL argument");
    *words = NULL;
    *nwords = 0;
    uint64_t *values = NULL;
    spvjit_status st = api_resolve_specs(m, specs, &values);
    if (st == SPVJIT_OK)
        st = specialize_words(m, values, true, words, nwords);
    free(values);
    return st;
}
