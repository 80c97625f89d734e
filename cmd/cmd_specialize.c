/* cmd/cmd_specialize.c — `spvjit specialize FILE.spv -D ID=VALUE ... -o OUT.spv`. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int write_words(const char *path, const uint32_t *w, size_t n)
{
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(w, 4, n, f) == n;
    if (f && fclose(f))
        ok = false;
    return ok ? 0 : cli_error("%s: cannot write the specialized module", path);
}

int cmd_specialize(int argc, char **argv)
{
    const char *in = NULL, *out = NULL;
    spvjit_specs *specs = NULL;
    spvjit_context *ctx = NULL;
    spvjit_module *m = NULL;
    uint32_t *w = NULL;
    size_t nw = 0;
    int rc = 1;
    spvjit_status st = spvjit_specs_create(&specs);
    if (st != SPVJIT_OK)
        return cli_api_error(NULL, st);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-o") && i + 1 < argc) {
            out = argv[++i];
        } else if (!strncmp(a, "-D", 2)) {
            if (cli_define_arg(specs, argc, argv, &i))
                goto done;
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
    spvjit_context_options co = { .threads = 1, .disk_cache_dir = "" };
    if ((st = spvjit_context_create(&co, &ctx)) || (st = spvjit_module_load_file(ctx, in, &m)) ||
        (st = spvjit_module_specialize(m, specs, &w, &nw))) {
        cli_api_error(NULL, st);
        goto done;
    }
    rc = write_words(out, w, nw);
done:
    spvjit_free(w);
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
    spvjit_specs_destroy(specs);
    return rc;
}
