/* cmd/cmd_compile.c — `spvjit compile FILE.spv [-e ENTRY] [-D ID=VALUE]...
             !strcmp(a, "--memory") || !strcmp(a, "-O") || !strcmp(a, "--tier")) &&
 * shows the lowered LLVM IR, the optimized IR or the host machine code of one
 * entry point, through the public API (spvjit_kernel_emit). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lib/spvjit.h"

static int parse_local(const char *s, uint32_t ls[3])
{
    char *end = NULL;
    for (int i = 0; i < 3; i++) {
        errno = 0;
        unsigned long v = strtoul(s, &end, 10);
        if (end == s || errno || v == 0 || v > 65536)
            return -1;
        ls[i] = (uint32_t)v;
        if (!*end) {
            for (int j = i + 1; j < 3; j++)
                ls[j] = 1;
            return 0;
        }
        if (*end != ',' || i == 2)
            return -1;
        s = end + 1;
    }
    return -1;
}

static const char compile_usage[] =
    "usage: spvjit compile FILE.spv --emit llvm|opt-llvm|asm [OPTIONS]\n"
    "Compiles one entry point as `spvjit run` would and shows the code (nothing is cached).\n"
    "\n"
    "  --emit llvm|opt-llvm|asm  the LLVM IR as lowered, after the optimization passes,\n"
    "                            or the host assembly\n"
    "  -e ENTRY                  entry point (default: the only/first compute one)\n"
    "  -D ID=VALUE               set spec constant ID (16, 0x10, -3, 1.5, true, 2.5:f64)\n"
    "  --local X[,Y[,Z]]         local size, where the module leaves it open\n"
    "  --no-specialize           keep spec constants as run-time values\n"
    "  --memory MODE             robust (default), check or unchecked: the accesses' checks\n"
    "  -O 0|1|2|3                optimization level (default 3)\n"
    "  --tier auto|quick|opt     the tier's code (default: $SPVJIT_TIER, else auto, which\n"
    "                            shows the optimized code it ends with)\n"
    "  -o OUT                    write to OUT instead of stdout\n";

int cmd_compile(int argc, char **argv)
{
    const char *in = NULL, *out = NULL, *entry = NULL, *emit = NULL;
    spvjit_build_options opts = { 0 };
    spvjit_specs *specs = NULL;
    spvjit_context *ctx = NULL;
    spvjit_module *m = NULL;
    char *text = NULL;
    int rc = 1;
    if (spvjit_specs_create(&specs) != SPVJIT_OK)
        return cli_error("%s", spvjit_last_error());
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        if ((!strcmp(a, "-o") || !strcmp(a, "-e") || !strcmp(a, "--emit") || !strcmp(a, "--local") ||
             !strcmp(a, "--memory") || !strcmp(a, "-O") || !strcmp(a, "--tier")) &&
            !next) {
            cli_error("compile: %s needs a value", a);
            goto done;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(compile_usage, stdout);
            rc = 0;
            goto done;
        } else if (!strcmp(a, "-o")) {
            out = argv[++i];
        } else if (!strcmp(a, "-e")) {
            entry = argv[++i];
        } else if (!strcmp(a, "--emit")) {
            emit = argv[++i];
        } else if (!strcmp(a, "--local")) {
            if (parse_local(argv[++i], opts.local_size)) {
                cli_error("compile: --local %s: expected X[,Y[,Z]] with positive sizes", argv[i]);
                goto done;
            }
        } else if (!strcmp(a, "-O") || (!strncmp(a, "-O", 2) && a[2])) {
            const char *l = a[2] ? a + 2 : argv[++i];
            if (l[0] < '0' || l[0] > '3' || l[1]) {
                cli_error("compile: -O %s: expected 0, 1, 2 or 3", l);
                goto done;
            }
            opts.opt_level = l[0] - '0';
            opts.no_opt = opts.opt_level == 0;
        } else if (!strcmp(a, "--tier")) {
            if (cli_parse_tier(argv[++i], &opts.tier)) { /* auto shows the optimized code, what auto ends with */
                cli_error("compile: --tier %s: expected " CLI_TIER_VALUES, argv[i]);
                goto done;
            }
        } else if (!strcmp(a, "--no-specialize")) {
            opts.unspecialized = true;
        } else if (!strcmp(a, "--memory")) {
            if (!cli_memory_parse(argv[++i], &opts.memory)) {
                cli_error("compile: --memory %s: expected robust, check or unchecked", argv[i]);
                goto done;
            }
        } else if (!strncmp(a, "-D", 2)) {
            if (cli_define_arg(specs, argc, argv, &i))
                goto done;
        } else if (a[0] == '-' && a[1]) {
            cli_error("compile: unknown option '%s' (see spvjit compile --help)", a);
            goto done;
        } else if (!in) {
            in = a;
        } else {
            cli_error("compile: more than one input file ('%s', '%s')", in, a);
            goto done;
        }
    }
    if (!in || !emit) {
        cli_error("usage: spvjit compile FILE.spv --emit llvm|opt-llvm|asm [-e ENTRY] [-D ID=VALUE]... "
                  "[--local X,Y,Z] [--no-specialize] [--memory MODE] [-O 0-3] [-o OUT] (see --help)");
        goto done;
    }
    spvjit_emit_kind what;
    if (!strcmp(emit, "llvm"))
        what = SPVJIT_EMIT_LLVM;
    else if (!strcmp(emit, "opt-llvm"))
        what = SPVJIT_EMIT_OPT_LLVM;
    else if (!strcmp(emit, "asm"))
        what = SPVJIT_EMIT_ASM;
    else {
        cli_error("compile: --emit %s: expected llvm, opt-llvm or asm", emit);
        goto done;
    }
    spvjit_context_options co = { .threads = 1, .disk_cache_dir = "" };
    if (spvjit_context_create(&co, &ctx) != SPVJIT_OK || spvjit_module_load_file(ctx, in, &m) != SPVJIT_OK ||
        spvjit_kernel_emit(m, entry, specs, &opts, what, &text) != SPVJIT_OK) {
        cli_api_error(NULL, SPVJIT_OK);
        goto done;
    }
    FILE *f = out ? fopen(out, "w") : stdout;
    if (!f) {
        cli_error("compile: cannot write %s: %s", out, strerror(errno));
        goto done;
    }
    size_t len = strlen(text);
    bool ok = fwrite(text, 1, len, f) == len;
    if (out)
        ok = fclose(f) == 0 && ok;
    else
        ok = fflush(f) == 0 && ok;
    if (!ok) {
        cli_error("compile: writing %s failed", out ? out : "the output");
        goto done;
    }
    rc = 0;
done:
    spvjit_free(text);
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
    spvjit_specs_destroy(specs);
    return rc;
}
