/* cmd/run_options.c — option parsing of `spvjit run`. */
#include "run_options.h"
#include "cli.h"
#include "util/array.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char run_usage[] = "usage: spvjit run FILE.spv [OPTIONS]\n"
                         "Compiles one entry point and runs one dispatch (or --repeat N of them).\n"
                         "\n"
                         "  -e, --entry NAME          entry point (default: the only/first compute one)\n"
                         "  -D ID=VALUE               set spec constant ID (16, 0x10, -3, 1.5, true, 2.5:f64)\n"
                         "  --groups X[,Y[,Z]]        Vulkan style: work-group counts (default 1,1,1)\n"
                         "  --global X[,Y[,Z]]        OpenCL style: global size ...\n"
                         "  --local X[,Y[,Z]]         ... and local size (default: the kernel's, or chosen)\n"
                         "  --buffer SET:BINDING=DATA bind a storage/uniform buffer (Shader modules)\n"
                         "  --push DATA               push constants\n"
                         "  --arg N=DATA              kernel argument N: a buffer (pointer arguments), the\n"
                         "                            value's bytes (by-value arguments, e.g. --arg 3=f32:2.5)\n"
                         "                            or local:BYTES (local-memory arguments)\n"
                         "  --print TARGET[:TYPE]     print a buffer after the run; TARGET is SET:BINDING, N\n"
                         "                            (argument) or push; TYPE defaults to the binding's element\n"
                         "                            type (a float[] block or float* argument: f32), else the\n"
                         "                            DATA's type, else u32\n"
                         "  --out TARGET[:TYPE]=FILE  write a buffer after the run: FILE.npy as a numpy array\n"
                         "                            (dtype as for --print), any other name its raw bytes\n"
                         "  --repeat N                run N dispatches; report the compile, the first dispatch and\n"
                         "                            the median of the others (which wait for the optimized tier)\n"
                         "  --tier auto|quick|opt     compile tier (default: $SPVJIT_TIER, else auto: quick code at\n"
                         "                            once, the optimized code compiled in the background and\n"
                         "                            waited for before the exit, for the disk cache)\n"
                         "  --json                    print the results as one JSON object (timings, compile\n"
                         "                            breakdown, --print values) instead of text\n"
                         "  --no-specialize           build with spec constants as run-time values (for comparison)\n"
                         "  --threads N               worker threads (default: $SPVJIT_THREADS or all cores)\n"
                         "  --memory MODE             robust (default: out-of-bounds loads read 0, stores are\n"
                         "                            dropped), check (the first out-of-bounds access or\n"
                         "                            work-group memory race is an error naming it), unchecked\n"
                         "  --timeout SECONDS         stop a dispatch still running after SECONDS (an error)\n"
                         "\n"
                         "DATA:\n"
                         "  TYPE:V,V,...              inline values                f32:1,2.5,-3\n"
                         "  zero:BYTES                zero bytes                   zero:4096\n"
                         "  const:TYPE:VALUE:COUNT    COUNT copies                 const:f32:1.5:1024\n"
                         "  iota:TYPE:COUNT[:START]   START, START+1, ...          iota:u32:256\n"
                         "  random:TYPE:COUNT[:SEED]  floats in [-1,1), ints in [0,100) (signed: [-100,100))\n"
                         "  @FILE.npy                 a numpy array (dtype and size checked against the binding)\n"
                         "  @FILE                     a raw file's bytes           @in.bin\n"
                         "  TYPE: i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64\n"
                         "\n"
                         "Every buffer, push-constant block and argument the entry point uses must be\n"
                         "given, checked before running; push constants as large as their block, and\n"
                         "with --memory unchecked buffers as large as their layout needs.\n"
                         "example: spvjit run saxpy.comp.spv --groups 4 --buffer 0:0=random:f32:256 \\\n"
                         "           --buffer 0:1=iota:f32:256 --push f32:2 --print 0:1\n";

static bool parse_u32(const char *s, size_t len, uint32_t *out)
{
    num_value v;
    if (num_parse(s, len, &v) || v.is_float || v.negative || v.u > UINT32_MAX)
        return false;
    *out = (uint32_t)v.u;
    return true;
}

int run_target_parse(const char *s, run_target *t, const char **rest)
{
    memset(t, 0, sizeof *t);
    if (!strncmp(s, "push", 4) && (s[4] == 0 || s[4] == ':' || s[4] == '=')) {
        t->kind = RUN_TARGET_PUSH;
        *rest = s + 4;
        return 0;
    }
    size_t a = strspn(s, "0123456789");
    if (!a || !parse_u32(s, a, &t->arg))
        return -1;
    const char *p = s + a;
    if (*p == ':' && p[1] >= '0' && p[1] <= '9') { /* SET:BINDING */
        size_t b = strspn(p + 1, "0123456789");
        t->kind = RUN_TARGET_BINDING;
        t->set = t->arg;
        t->arg = 0;
        if (!parse_u32(p + 1, b, &t->binding))
            return -1;
        p += 1 + b;
    } else {
        t->kind = RUN_TARGET_ARG;
    }
    if (*p && *p != ':' && *p != '=')
        return -1;
    *rest = p;
    return 0;
}

void run_target_name(const run_target *t, char *buf, size_t len)
{
    if (t->kind == RUN_TARGET_PUSH)
        snprintf(buf, len, "push constants");
    else if (t->kind == RUN_TARGET_BINDING)
        snprintf(buf, len, "binding %u:%u", t->set, t->binding);
    else
        snprintf(buf, len, "argument %u", t->arg);
}

bool run_target_equal(const run_target *a, const run_target *b)
{
    if (a->kind != b->kind)
        return false;
    if (a->kind == RUN_TARGET_BINDING)
        return a->set == b->set && a->binding == b->binding;
    return a->kind == RUN_TARGET_PUSH || a->arg == b->arg;
}

int run_parse_dims(const char *s, uint64_t out[3])
{
    out[0] = out[1] = out[2] = 1;
    int n = 0;
    for (const char *p = s;; n++) {
        const char *c = strchr(p, ',');
        size_t l = c ? (size_t)(c - p) : strlen(p);
        num_value v;
        if (n == 3 || num_parse(p, l, &v) || v.is_float || v.negative || v.u == 0)
            return -1;
        out[n] = v.u;
        if (!c)
            return n + 1;
        p = c + 1;
    }
}

/* TARGET=DATA (or just DATA for --push) into a new run_data. */
static int add_data(run_options *o, const char *opt, const char *arg, run_target_kind want, char *err, size_t len)
{
    run_target t;
    const char *rest = arg;
    if (want == RUN_TARGET_PUSH) {
        t = (run_target){ .kind = RUN_TARGET_PUSH };
    } else if (run_target_parse(arg, &t, &rest) || t.kind != want || *rest != '=') {
        return cli_errf(err, len, "%s %s: expected %s=DATA", opt, arg, want == RUN_TARGET_ARG ? "N" : "SET:BINDING");
    } else {
        rest++;
    }
    for (unsigned i = 0; i < o->ndata; i++)
        if (run_target_equal(&o->data[i].target, &t)) {
            char n[64];
            run_target_name(&t, n, sizeof n);
            return cli_errf(err, len, "%s %s: %s is given twice", opt, arg, n);
        }
    run_data *d = UTIL_APPEND(o->data, o->ndata);
    if (!d)
        return cli_errf(err, len, "out of memory");
    d->target = t;
    d->spec = rest;
    if (want == RUN_TARGET_ARG && !strncmp(rest, "local:", 6)) {
        num_value v;
        if (num_parse(rest + 6, strlen(rest + 6), &v) || v.is_float || v.negative || !v.u)
            return cli_errf(err, len, "%s %s: local:BYTES needs a positive byte count", opt, arg);
        d->local = true;
        d->local_bytes = v.u;
        return 0;
    }
    char e[512];
    if (fill_parse(rest, &d->data, e, sizeof e))
        return cli_errf(err, len, "%s %s: %s", opt, arg, e);
    return 0;
}

static int add_output(run_options *o, const char *opt, const char *arg, bool to_file, char *err, size_t len)
{
    run_target t;
    const char *rest;
    if (run_target_parse(arg, &t, &rest))
        return cli_errf(err, len, "%s %s: expected SET:BINDING, N (argument) or push", opt, arg);
    run_output *out = UTIL_APPEND(o->outputs, o->noutputs);
    if (!out)
        return cli_errf(err, len, "out of memory");
    out->target = t;
    if (*rest == ':') { /* :TYPE, up to '=' for --out */
        const char *ty = rest + 1, *eq = to_file ? strchr(ty, '=') : NULL;
        size_t tl = eq ? (size_t)(eq - ty) : strlen(ty);
        if (vtype_parse(ty, tl, &out->type) || out->type == SPVJIT_TYPE_BOOL)
            return cli_errf(err, len, "%s %s: unknown type '%.*s' (i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64)", opt,
                            arg, (int)tl, ty);
        rest = ty + tl;
    }
    if (to_file) {
        if (*rest != '=' || !rest[1])
            return cli_errf(err, len, "%s %s: expected TARGET[:TYPE]=FILE", opt, arg);
        out->file = rest + 1;
    } else if (*rest) {
        return cli_errf(err, len, "%s %s: expected TARGET[:TYPE]", opt, arg);
    }
    return 0;
}

int run_options_parse(int argc, char **argv, run_options *o, char *err, size_t len)
{
    memset(o, 0, sizeof *o);
    o->defines = calloc((size_t)argc + 1, sizeof *o->defines);
    if (!o->defines)
        return cli_errf(err, len, "out of memory");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        /* options taking a value: "--opt VALUE" or "--opt=VALUE" (and "-DVALUE", "-eNAME") */
        static const char *const with_value[] = { "-e",      "--entry",  "-D",        "--groups", "--global",
                                                  "--local", "--buffer", "--push",    "--arg",    "--print",
                                                  "--out",   "--repeat", "--threads", "--tier",   "--memory",
                                                  "--timeout" };
        const char *opt = NULL, *val = NULL;
        for (size_t k = 0; k < sizeof with_value / sizeof with_value[0] && !opt; k++) {
            size_t l = strlen(with_value[k]);
            if (!strncmp(a, with_value[k], l)) {
                if (!a[l]) {
                    if (i + 1 >= argc)
                        return cli_errf(err, len, "%s needs a value", a);
                    opt = with_value[k];
                    val = argv[++i];
                } else if (a[l] == '=' && a[1] == '-') {
                    opt = with_value[k];
                    val = a + l + 1;
                } else if (a[1] != '-') { /* -DID=V, -eNAME */
                    opt = with_value[k];
                    val = a + l;
                }
            }
        }
        uint64_t dims[3];
        int nd;
        if (!opt) {
            if (!strcmp(a, "--no-specialize"))
                o->no_specialize = true;
            else if (!strcmp(a, "--json"))
                o->json = true;
            else if (!strcmp(a, "-h") || !strcmp(a, "--help"))
                o->help = true;
            else if (a[0] == '-' && a[1])
                return cli_errf(err, len, "run: unknown option '%s' (see spvjit run --help)", a);
            else if (o->file)
                return cli_errf(err, len, "run: more than one module ('%s', '%s')", o->file, a);
            else
                o->file = a;
        } else if (!strcmp(opt, "-e") || !strcmp(opt, "--entry")) {
            o->entry = val;
        } else if (!strcmp(opt, "-D")) {
            const char *eq = strchr(val, '=');
            if (!eq || eq == val || !eq[1])
                return cli_errf(err, len, "-D %s: expected ID=VALUE", val);
            o->defines[o->ndefines++] = val;
        } else if (!strcmp(opt, "--groups")) {
            if ((nd = run_parse_dims(val, dims)) < 0 || dims[0] > UINT32_MAX || dims[1] > UINT32_MAX ||
                dims[2] > UINT32_MAX)
                return cli_errf(err, len, "--groups %s: expected X[,Y[,Z]] positive group counts", val);
            o->have_groups = true;
            for (int k = 0; k < 3; k++)
                o->groups[k] = (uint32_t)dims[k];
        } else if (!strcmp(opt, "--global")) {
            if ((nd = run_parse_dims(val, o->global)) < 0)
                return cli_errf(err, len, "--global %s: expected X[,Y[,Z]] positive sizes", val);
            o->have_global = true;
            o->global_dim = (unsigned)nd;
        } else if (!strcmp(opt, "--local")) {
            if ((nd = run_parse_dims(val, dims)) < 0 || dims[0] > UINT32_MAX || dims[1] > UINT32_MAX ||
                dims[2] > UINT32_MAX)
                return cli_errf(err, len, "--local %s: expected X[,Y[,Z]] positive sizes", val);
            o->have_local = true;
            for (int k = 0; k < 3; k++)
                o->local[k] = (uint32_t)dims[k];
        } else if (!strcmp(opt, "--buffer")) {
            if (add_data(o, opt, val, RUN_TARGET_BINDING, err, len))
                return -1;
        } else if (!strcmp(opt, "--arg")) {
            if (add_data(o, opt, val, RUN_TARGET_ARG, err, len))
                return -1;
        } else if (!strcmp(opt, "--push")) {
            if (add_data(o, opt, val, RUN_TARGET_PUSH, err, len))
                return -1;
        } else if (!strcmp(opt, "--print") || !strcmp(opt, "--out")) {
            if (add_output(o, opt, val, !strcmp(opt, "--out"), err, len))
                return -1;
        } else if (!strcmp(opt, "--tier")) {
            if (cli_parse_tier(val, &o->tier))
                return cli_errf(err, len, "--tier %s: expected " CLI_TIER_VALUES, val);
        } else if (!strcmp(opt, "--memory")) {
            if (!cli_memory_parse(val, &o->memory))
                return cli_errf(err, len, "--memory %s: expected robust, check or unchecked", val);
        } else if (!strcmp(opt, "--timeout")) {
            char *end;
            double t = strtod(val, &end);
            if (end == val || *end || !(t > 0) || t > 1e9)
                return cli_errf(err, len, "--timeout %s: expected a positive number of seconds", val);
            o->timeout = t;
        } else if (!strcmp(opt, "--repeat") || !strcmp(opt, "--threads")) {
            uint32_t v;
            if (!parse_u32(val, strlen(val), &v) || !v || v > 1000000)
                return cli_errf(err, len, "%s %s: expected a count from 1 to 1000000", opt, val);
            *(!strcmp(opt, "--repeat") ? &o->repeat : &o->threads) = v;
        }
    }
    if (o->help)
        return 0;
    if (!o->file)
        return cli_errf(err, len, "run: no module given (usage: spvjit run FILE.spv [OPTIONS]; see --help)");
    if (o->have_groups && o->have_global)
        return cli_errf(err, len, "run: --groups and --global exclude each other");
    if (o->have_local && !o->have_global)
        return cli_errf(err, len, "run: --local goes with --global (with --groups the local size is the module's)");
    for (unsigned i = 0; i < o->noutputs; i++) {
        run_output *out = &o->outputs[i];
        bool given = false;
        for (unsigned k = 0; k < o->ndata; k++)
            if (run_target_equal(&o->data[k].target, &out->target))
                given = !o->data[k].local;
        if (!given) {
            char n[64];
            run_target_name(&out->target, n, sizeof n);
            return cli_errf(err, len, "%s %s: no data is bound to it", out->file ? "--out" : "--print", n);
        }
    }
    return 0;
}

void run_options_free(run_options *o)
{
    for (unsigned i = 0; i < o->ndata; i++)
        fill_free(&o->data[i].data);
    free(o->data);
    free(o->outputs);
    free(o->defines);
    memset(o, 0, sizeof *o);
}
