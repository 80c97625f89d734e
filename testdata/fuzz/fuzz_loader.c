/* testdata/fuzz/fuzz_loader.c — libFuzzer target over the loader and the specializer.
 *
 * Each input is loaded twice: without the validator (so our own structural
 * checks and the model builder see malformed modules) and with it.  A module
 * that loads is specialized with its defaults and with a few values derived
 * from the input; the result must load again (see specialize_and_check) —
 * anything else is a bug and aborts, as is any crash the sanitizers see.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spirv/module.h"
#include "spirv/specialize.h"

/* For a valid input, the specializer's output must pass our own structural
 * checks (the loader without the validator); for an invalid one (which the
 * library never specializes: it validates first) only the sanitizers judge.
 * The output need not pass the validator: values —
 * even a module's own defaults — can make a valid module invalid (SPIRV-Tools
 * does not check a spec constant used as a memory scope until it is frozen
 * into a constant); the library validates the output and reports that. */
static void specialize_and_check(const spv_module *m, const spv_spec_value *vals, size_t n, bool valid)
{
    uint32_t *w = NULL;
    size_t nw = 0;
    spv_diag d;
    if (spv_specialize(m, vals, n, &w, &nw, &d) == 0) {
        spv_module *s = spv_module_load(w, nw * 4, "specialized", &(spv_load_options){ .skip_validation = true }, &d);
        if (!s && valid) {
            fprintf(stderr, "specialized output of a valid module does not load: %s\n", d.msg);
            abort();
        }
        spv_module_free(s);
        if (!spv_validate_words(w, nw, "specialized", &d) && !d.msg[0])
            abort();
    } else if (!d.msg[0]) {
        fprintf(stderr, "specializer failed without a message\n");
        abort();
    }
    free(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    spv_diag d;
    spv_module *raw = spv_module_load(data, size, "fuzz", &(spv_load_options){ .skip_validation = true }, &d);
    if (!raw) {
        if (!d.msg[0])
            abort();
        return 0;
    }
    spv_module *valid = spv_module_load(data, size, "fuzz", NULL, &d); /* the validator's path too */
    specialize_and_check(raw, NULL, 0, valid != NULL);

    /* Values for the module's own spec ids, bits taken from the input. */
    spv_spec_constant *sc = NULL;
    size_t nsc = spv_spec_constants(raw, &sc);
    spv_spec_value vals[8];
    size_t n = 0;
    for (size_t i = 0; i < nsc && n < 8; i++) {
        uint64_t bits = 0;
        memcpy(&bits, data + (i * 8) % (size >= 8 ? size - 7 : 1), size >= 8 ? 8 : 0);
        vals[n] = (spv_spec_value){ .spec_id = sc[i].spec_id, .type = sc[i].type, .bits = bits };
        if (sc[i].type == SPV_VALUE_BOOL)
            vals[n].bits &= 1;
        else if (sc[i].type == SPV_VALUE_I8 || sc[i].type == SPV_VALUE_U8)
            vals[n].bits &= 0xff;
        else if (sc[i].type == SPV_VALUE_I16 || sc[i].type == SPV_VALUE_U16 || sc[i].type == SPV_VALUE_F16)
            vals[n].bits &= 0xffff;
        else if (sc[i].type == SPV_VALUE_I32 || sc[i].type == SPV_VALUE_U32 || sc[i].type == SPV_VALUE_F32)
            vals[n].bits &= 0xffffffff;
        n++;
    }
    free(sc);
    specialize_and_check(raw, vals, n, valid != NULL);
    spv_module_free(valid);
    spv_module_free(raw);
    return 0;
}
