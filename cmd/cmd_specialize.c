/* cmd/cmd_specialize.c — `spvjit specialize FILE.spv -D ID=VALUE ... -o OUT.spv`. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "spirv/specialize.h"

int cmd_specialize(int argc, char **argv)
{
    const char *in = NULL, *out = NULL;
    spv_spec_value *vals = calloc((size_t)argc, sizeof *vals);
    size_t nvals = 0;
    spv_diag d;
    int rc = 1;
    if (!vals)
        return cli_error("out of memory");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-o") && i + 1 < argc) {
            out = argv[++i];
        } else if (!strncmp(a, "-D", 2)) {
            const char *v = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v) {
                cli_error("-D needs ID=VALUE");
                goto done;
            }
            if (spv_parse_spec_value(v, &vals[nvals], &d)) {
                cli_error("-D %s: %s", v, d.msg);
                goto done;
            }
            nvals++;
        } else if (a[0] == '-') {
            cli_error("specialize: unknown option '%s'", a);
            goto done;
        } else if (!in) {
            in = a;
        } else {
            cli_error("specialize: more than one input file ('%s', '%s')", in, a);
            goto done;
        }
    }
    if (!in || !out) {
        cli_error("usage: spvjit specialize FILE.spv [-D ID=VALUE]... -o OUT.spv");
        goto done;
    }
    spv_module *m = spv_module_load_file(in, NULL, &d);
    if (!m) {
        cli_error("%s", d.msg);
        goto done;
    }
    uint32_t *w = NULL;
    size_t nw = 0;
    if (spv_specialize(m, vals, nvals, &w, &nw, &d)) {
        cli_error("%s", d.msg);
    } else if (!spv_validate_words(w, nw, in, &d)) {
        cli_error("%s (after specialization with the given values)", d.msg);
    } else {
        FILE *f = fopen(out, "wb");
        bool ok = f && fwrite(w, 4, nw, f) == nw;
        if (f && fclose(f))
            ok = false;
        if (ok)
            rc = 0;
        else
            cli_error("%s: cannot write the specialized module", out);
    }
    free(w);
    spv_module_free(m);
done:
    free(vals);
    return rc;
}
