/* cmd/cmd_run.c — `spvjit run FILE.spv ...`: one entry point, its bindings
 * from the command line, a dispatch (or --repeat N), buffers printed or
 * written out.  A thin layer over the public API; options and data forms are
 * in run_options.c / buffer_fill.c. */
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "npy.h"
#include "run_options.h"
#include "util/timer.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The run_target a module resource is addressed by. */
static run_target resource_target(const spvjit_resource_info *ri)
{
    run_target t = { 0 };
    switch (ri->kind) {
    case SPVJIT_RES_STORAGE_BUFFER:
    case SPVJIT_RES_UNIFORM_BUFFER:
    case SPVJIT_RES_UNSUPPORTED:
        t.kind = RUN_TARGET_BINDING;
        t.set = ri->set;
        t.binding = ri->binding;
        break;
    case SPVJIT_RES_PUSH_CONSTANTS:
        t.kind = RUN_TARGET_PUSH;
        break;
    default:
        t.kind = RUN_TARGET_ARG;
        t.arg = ri->index;
        break;
    }
    return t;
}

static const char *resource_kind_name(spvjit_resource_kind k)
{
    switch (k) {
    case SPVJIT_RES_ARG_POINTER:
        return "pointer argument";
    case SPVJIT_RES_ARG_LOCAL:
        return "local-memory argument";
    case SPVJIT_RES_ARG_VALUE:
        return "by-value argument";
    case SPVJIT_RES_STORAGE_BUFFER:
        return "storage buffer";
    case SPVJIT_RES_UNIFORM_BUFFER:
        return "uniform buffer";
    case SPVJIT_RES_UNSUPPORTED:
        return "resource spvjit cannot bind";
    default:
        return "push-constant block";
    }
}

/* The data as messages name it: its text, and a .npy file's dtype and shape. */
static const char *data_text(const run_data *d, char *buf, size_t len)
{
    if (d->data.npy_shape[0])
        snprintf(buf, len, "'%s' (%s, shape %s)", d->spec, npy_dtype_name(d->data.type), d->data.npy_shape);
    else
        snprintf(buf, len, "'%s'", d->spec);
    return buf;
}

/* Checks every resource of the entry against the data given, and every data
 * against the resources; one line per problem, the first one returned.
 * res_of[k] gets the resource data k is bound to. */
static int check_bindings(spvjit_module *m, const char *entry, const run_options *o, spvjit_resource_info *res_of)
{
    unsigned n = spvjit_module_resource_count(m, entry);
    char have[1024] = "", dt[400];
    for (unsigned i = 0; i < n; i++) {
        spvjit_resource_info ri;
        spvjit_status st = spvjit_module_resource_info(m, entry, i, &ri);
        if (st)
            return cli_api_error("reading the module's interface", st);
        run_target t = resource_target(&ri);
        char tn[64], name[160];
        run_target_name(&t, tn, sizeof tn);
        snprintf(name, sizeof name, "%s%s%s%s", tn, ri.name ? " ('" : "", ri.name ? ri.name : "", ri.name ? "')" : "");
        if (ri.kind == SPVJIT_RES_UNSUPPORTED)
            return cli_error("%s is a %s (%s): the entry point cannot run", name, resource_kind_name(ri.kind),
                             ri.type_name);
        if (strlen(have) + strlen(tn) + 3 < sizeof have)
            strcat(strcat(have, *have ? ", " : ""), tn);
        const run_data *d = NULL;
        for (unsigned k = 0; k < o->ndata; k++)
            if (run_target_equal(&o->data[k].target, &t))
                d = &o->data[k];
        const char *opt = t.kind == RUN_TARGET_BINDING ? "--buffer" : t.kind == RUN_TARGET_PUSH ? "--push" : "--arg";
        if (!d)
            return cli_error("%s, a %s of %" PRIu64 " bytes%s, is not given (use %s)", name,
                             resource_kind_name(ri.kind), ri.size, ri.stride ? " plus a runtime array" : "", opt);
        res_of[d - o->data] = ri;
        if (ri.kind == SPVJIT_RES_ARG_LOCAL) {
            if (!d->local)
                return cli_error("%s is a local-memory argument: give its size with --arg %u=local:BYTES", name,
                                 ri.index);
            continue;
        }
        if (d->local)
            return cli_error("%s is a %s, not a local-memory argument", name, resource_kind_name(ri.kind));
        /* A .npy array says what its elements are: they must be the binding's. */
        if (d->data.npy_shape[0] && ri.elem_type && ri.elem_type != SPVJIT_TYPE_BOOL &&
            !vtype_compatible(ri.elem_type, d->data.type))
            return cli_error("%s holds %s elements but '%s' is an array of %s, shape %s (save it with dtype %s)", name,
                             vtype_name(ri.elem_type), d->spec, npy_dtype_name(d->data.type), d->data.npy_shape,
                             npy_dtype_name(ri.elem_type));
        if (ri.kind == SPVJIT_RES_ARG_VALUE && d->data.size != ri.size)
            return cli_error("%s is a by-value argument of %" PRIu64 " bytes; %s gives %zu", name, ri.size,
                             data_text(d, dt, sizeof dt), d->data.size);
        /* Push constants are set whole; a buffer smaller than its layout is
         * the library's call (robust and check take it).  A runtime array
         * ending in a partial element is a mistake in the data, though. */
        if (ri.kind == SPVJIT_RES_PUSH_CONSTANTS && d->data.size < ri.size)
            return cli_error("%s needs at least %" PRIu64 " bytes; %s gives %zu", name, ri.size,
                             data_text(d, dt, sizeof dt), d->data.size);
        if (ri.stride && d->data.size > ri.size && (d->data.size - ri.size) % ri.stride)
            return cli_error("%s: %zu bytes is not %" PRIu64 " plus whole %" PRIu64 "-byte array elements (%s)", name,
                             d->data.size, ri.size, ri.stride, data_text(d, dt, sizeof dt));
    }
    for (unsigned k = 0; k < o->ndata; k++) {
        bool used = false;
        for (unsigned i = 0; i < n && !used; i++) {
            spvjit_resource_info ri;
            if (!spvjit_module_resource_info(m, entry, i, &ri)) {
                run_target t = resource_target(&ri);
                used = run_target_equal(&o->data[k].target, &t);
            }
        }
        if (!used) {
            char tn[64];
            run_target_name(&o->data[k].target, tn, sizeof tn);
            return cli_error("the entry point has no %s (it uses: %s)", tn, *have ? have : "nothing");
        }
    }
    return 0;
}

static int bind_all(spvjit_kernel *k, run_options *o)
{
    for (unsigned i = 0; i < o->ndata; i++) {
        run_data *d = &o->data[i];
        spvjit_status st;
        char tn[64];
        run_target_name(&d->target, tn, sizeof tn);
        if (d->target.kind == RUN_TARGET_PUSH)
            st = spvjit_set_push_constants(k, d->data.bytes, d->data.size);
        else if (d->target.kind == RUN_TARGET_BINDING)
            st = spvjit_bind_buffer(k, d->target.set, d->target.binding, d->data.bytes, d->data.size);
        else if (d->local)
            st = spvjit_set_arg_local(k, d->target.arg, (size_t)d->local_bytes);
        else {
            /* pointer or value: the library knows which; try a buffer first */
            st = spvjit_set_arg_buffer(k, d->target.arg, d->data.bytes, d->data.size);
            if (st == SPVJIT_ERROR_BINDING)
                st = spvjit_set_arg_value(k, d->target.arg, d->data.bytes, d->data.size);
        }
        if (st)
            return cli_api_error(tn, st);
    }
    return 0;
}

/* The element type an output is shown or saved as: the one given
 * (TARGET:TYPE), else the binding's (a float[] block or float* argument:
 * f32), else the type the data was given with, else u32 words. */
static spvjit_type output_type(const run_output *out, const run_data *d, const spvjit_resource_info *ri)
{
    if (out->type)
        return out->type;
    if (ri->elem_type && ri->elem_type != SPVJIT_TYPE_BOOL)
        return ri->elem_type;
    return d->data.type ? d->data.type : SPVJIT_TYPE_U32;
}

static const run_data *output_data(const run_options *o, const run_output *out)
{
    for (unsigned k = 0; k < o->ndata; k++)
        if (run_target_equal(&o->data[k].target, &out->target))
            return &o->data[k];
    return NULL; /* run_options_parse made sure there is one */
}

static void print_output(const run_output *out, const run_data *d, spvjit_type type)
{
    char tn[64], v[64];
    run_target_name(&out->target, tn, sizeof tn);
    size_t es = vtype_size(type), n = d->data.size / es, rest = d->data.size % es;
    printf("%s (%zu x %s", tn, n, vtype_name(type));
    if (rest)
        printf(" + %zu bytes", rest);
    printf("):\n");
    for (size_t i = 0; i < n; i++) {
        scalar_format(type, d->data.bytes + i * es, v, sizeof v);
        printf("%s%s", i % 8 ? " " : "  ", v);
        if (i % 8 == 7 || i + 1 == n)
            putchar('\n');
    }
}

static int write_output(const run_output *out, const run_data *d, spvjit_type type)
{
    if (npy_path(out->file)) {
        char err[512], tn[64];
        size_t es = vtype_size(type);
        if (d->data.size % es) {
            run_target_name(&out->target, tn, sizeof tn);
            return cli_error("--out %s: %zu bytes is not a whole number of %s elements (give --out TARGET:u8=%s)", tn,
                             d->data.size, vtype_name(type), out->file);
        }
        if (npy_write(out->file, type, d->data.bytes, d->data.size / es, err, sizeof err))
            return cli_error("%s", err);
        return 0;
    }
    FILE *f = fopen(out->file, "wb");
    bool ok = f && fwrite(d->data.bytes, 1, d->data.size, f) == d->data.size;
    if (f && fclose(f))
        ok = false;
    if (!ok)
        return cli_error("%s: cannot write", out->file);
    return 0;
}

/* --- --json ----------------------------------------------------------------------- */

static json_object *json_dims_u32(const uint32_t v[3])
{
    json_object *a = json_object_new_array();
    for (int i = 0; i < 3; i++)
        json_object_array_add(a, json_object_new_uint64(v[i]));
    return a;
}

static json_object *json_dims_u64(const uint64_t v[3], unsigned n)
{
    json_object *a = json_object_new_array();
    for (unsigned i = 0; i < n; i++)
        json_object_array_add(a, json_object_new_uint64(v[i]));
    return a;
}

static json_object *json_output(const run_output *out, const run_data *d, spvjit_type type)
{
    json_object *j = json_object_new_object();
    char tn[64];
    run_target_name(&out->target, tn, sizeof tn);
    json_object_object_add(j, "target", json_object_new_string(tn));
    if (out->target.kind == RUN_TARGET_BINDING) {
        json_object_object_add(j, "set", json_object_new_uint64(out->target.set));
        json_object_object_add(j, "binding", json_object_new_uint64(out->target.binding));
    } else if (out->target.kind == RUN_TARGET_ARG) {
        json_object_object_add(j, "arg", json_object_new_uint64(out->target.arg));
    }
    json_object_object_add(j, "type", json_object_new_string(vtype_name(type)));
    json_object_object_add(j, "bytes", json_object_new_uint64(d->data.size));
    if (out->file) {
        json_object_object_add(j, "file", json_object_new_string(out->file));
        json_object_object_add(j, "format", json_object_new_string(npy_path(out->file) ? "npy" : "raw"));
        return j;
    }
    size_t es = vtype_size(type), n = d->data.size / es;
    json_object *vals = json_object_new_array_ext((int)(n < INT32_MAX ? n : INT32_MAX));
    for (size_t i = 0; i < n; i++)
        json_object_array_add(vals, cli_json_scalar(type, d->data.bytes + i * es));
    json_object_object_add(j, "values", vals);
    return j;
}

/* The dispatch times: the first apart (it shows the time to a first result,
 * on the quick tier when auto), the others sorted (they ran the optimized
 * code when auto: the run waits for it after the first). */
typedef struct run_timing {
    double compile_wall;
    const double *times; /* the runs after the first (or the first, alone), sorted */
    unsigned n;
    unsigned runs; /* all, the first included */
    double first, min, max;
    spvjit_kernel_stats at_build, at_first; /* stats after the build, after the first dispatch */
} run_timing;

static const char *tier_name(spvjit_tier t)
{
    return t == SPVJIT_TIER_QUICK ? "quick" : t == SPVJIT_TIER_OPT ? "optimized" : "none";
}

static double median_of(const double *sorted, unsigned n)
{
    return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

static json_object *json_result(const run_options *o, spvjit_module *m, const spvjit_kernel_stats *ks,
                                const run_timing *t)
{
    json_object *j = json_object_new_object();
    json_object_object_add(j, "module", json_object_new_string(o->file));
    json_object_object_add(j, "entry", o->entry ? json_object_new_string(o->entry) : NULL);
    json_object_object_add(j, "flavour",
                           json_object_new_string(spvjit_module_flavour(m) == SPVJIT_FLAVOUR_KERNEL ? "kernel"
                                                                                                    : "shader"));
    json_object_object_add(j, "specialized", json_object_new_boolean(!o->no_specialize));
    json_object *defs = json_object_new_object();
    for (unsigned i = 0; i < o->ndefines; i++) {
        const char *eq = strchr(o->defines[i], '=');
        char id[32];
        snprintf(id, sizeof id, "%.*s", (int)(eq - o->defines[i]), o->defines[i]);
        json_object_object_add(defs, id, json_object_new_string(eq + 1));
    }
    json_object_object_add(j, "defines", defs);

    json_object *disp = json_object_new_object();
    if (o->have_global) {
        json_object_object_add(disp, "global_size", json_dims_u64(o->global, o->global_dim));
        json_object_object_add(disp, "local_size", o->have_local ? json_dims_u32(o->local) : NULL);
    } else {
        uint32_t g[3] = { 1, 1, 1 };
        if (o->have_groups)
            memcpy(g, o->groups, sizeof g);
        json_object_object_add(disp, "groups", json_dims_u32(g));
    }
    json_object_object_add(j, "dispatch", disp);
    json_object_object_add(j, "local_size", json_dims_u32(ks->local_size));

    const spvjit_kernel_stats *b = &t->at_build; /* the build's compile; the optimized one below */
    json_object *c = json_object_new_object();
    json_object_object_add(c, "wall_ms", json_object_new_double(t->compile_wall));
    json_object_object_add(c, "from_cache", json_object_new_boolean(b->from_cache));
    json_object_object_add(c, "lower_ms", json_object_new_double(b->lower_ms));
    json_object_object_add(c, "passes_ms", json_object_new_double(b->passes_ms));
    json_object_object_add(c, "codegen_ms", json_object_new_double(b->codegen_ms));
    json_object_object_add(c, "total_ms", json_object_new_double(b->total_ms));
    json_object_object_add(c, "uses_barriers", json_object_new_boolean(ks->uses_barriers));
    json_object_object_add(c, "wg_memory_bytes", json_object_new_uint64(ks->wg_memory_bytes));
    json_object_object_add(c, "tier", json_object_new_string(tier_name(b->tier)));
    json_object_object_add(c, "opt_ready_ms", json_object_new_double(ks->opt_ready_ms));
    if (b->tier == SPVJIT_TIER_QUICK && ks->tier == SPVJIT_TIER_OPT) {
        json_object *opt = json_object_new_object();
        json_object_object_add(opt, "lower_ms", json_object_new_double(ks->lower_ms));
        json_object_object_add(opt, "passes_ms", json_object_new_double(ks->passes_ms));
        json_object_object_add(opt, "codegen_ms", json_object_new_double(ks->codegen_ms));
        json_object_object_add(c, "optimized", opt);
    }
    json_object_object_add(j, "compile", c);

    json_object *d = json_object_new_object();
    json_object_object_add(d, "runs", json_object_new_uint64(t->runs));
    json_object_object_add(d, "median_ms", json_object_new_double(median_of(t->times, t->n)));
    json_object_object_add(d, "median_tier", json_object_new_string(tier_name(ks->dispatch_tier)));
    json_object_object_add(d, "first_ms", json_object_new_double(t->first));
    json_object_object_add(d, "first_tier", json_object_new_string(tier_name(t->at_first.dispatch_tier)));
    json_object_object_add(d, "min_ms", json_object_new_double(t->min));
    json_object_object_add(d, "max_ms", json_object_new_double(t->max));
    json_object_object_add(d, "fallback_groups", json_object_new_uint64(ks->fallback_groups));
    json_object_object_add(j, "dispatches", d);
    json_object_object_add(j, "outputs", json_object_new_array());
    return j;
}

int cmd_run(int argc, char **argv)
{
    run_options o;
    char err[1024];
    if (run_options_parse(argc, argv, &o, err, sizeof err)) {
        run_options_free(&o);
        return cli_error("%s", err);
    }
    if (o.help) {
        run_options_free(&o);
        return fputs(run_usage, stdout), 0;
    }
    int rc = 1;
    spvjit_context *ctx = NULL;
    spvjit_module *m = NULL;
    spvjit_specs *specs = NULL;
    spvjit_kernel *k = NULL;
    double *times = NULL;
    spvjit_resource_info *res_of = calloc(o.ndata + 1, sizeof *res_of);
    spvjit_context_options co = { .threads = o.threads };
    spvjit_status st;
    if (!res_of) {
        cli_error("out of memory");
        goto done;
    }
    if ((st = spvjit_context_create(&co, &ctx))) {
        cli_api_error("creating the context", st);
        goto done;
    }
    if ((st = spvjit_module_load_file(ctx, o.file, &m))) {
        cli_api_error(NULL, st);
        goto done;
    }
    if ((st = spvjit_specs_create(&specs))) {
        cli_api_error("spec constants", st);
        goto done;
    }
    for (unsigned i = 0; i < o.ndefines; i++)
        if (cli_define(specs, o.defines[i]))
            goto done;
    if (check_bindings(m, o.entry, &o, res_of))
        goto done;
    spvjit_build_options bo = { .unspecialized = o.no_specialize, .tier = o.tier, .memory = o.memory };
    if (o.have_local)
        memcpy(bo.local_size, o.local, sizeof bo.local_size);
    double t0 = util_now_ms();
    if ((st = spvjit_kernel_build(m, o.entry, specs, &bo, &k))) {
        cli_api_error(NULL, st);
        goto done;
    }
    double compile_wall = util_now_ms() - t0;
    if (bind_all(k, &o))
        goto done;
    spvjit_dispatch_info di = { .groups = { 1, 1, 1 }, .timeout_seconds = o.timeout };
    if (o.have_groups)
        memcpy(di.groups, o.groups, sizeof di.groups);
    if (o.have_global) {
        di.work_dim = o.global_dim;
        memcpy(di.global_size, o.global, sizeof di.global_size);
        if (o.have_local)
            memcpy(di.local_size, o.local, sizeof di.local_size);
    }
    unsigned runs = o.repeat ? o.repeat : 1;
    if (!(times = malloc(runs * sizeof *times))) {
        cli_error("out of memory");
        goto done;
    }
    run_timing timing = { .compile_wall = compile_wall, .runs = runs };
    spvjit_kernel_stats_get(k, &timing.at_build);
    for (unsigned r = 0; r < runs; r++) {
        if (r == 1 && (st = spvjit_kernel_wait_optimized(k))) { /* the median is the optimized code's */
            cli_api_error("the optimized tier", st);
            goto done;
        }
        double t = util_now_ms();
        if ((st = spvjit_dispatch(k, &di))) {
            cli_api_error("dispatch", st);
            goto done;
        }
        times[r] = util_now_ms() - t;
        if (r == 0)
            spvjit_kernel_stats_get(k, &timing.at_first);
    }
    spvjit_kernel_stats ks = { 0 };
    spvjit_kernel_stats_get(k, &ks);
    timing.first = times[0]; /* may include lazy work the library defers to the first dispatch */
    timing.times = times + (runs > 1);
    timing.n = runs - (runs > 1);
    qsort(times + (runs > 1), timing.n, sizeof *times, cmp_double);
    timing.min = timing.max = timing.first;
    for (unsigned r = 1; r < runs; r++) {
        timing.min = times[r] < timing.min ? times[r] : timing.min;
        timing.max = times[r] > timing.max ? times[r] : timing.max;
    }
    if (o.repeat && !o.json) {
        const spvjit_kernel_stats *b = &timing.at_build;
        printf("compile: %.3f ms wall, %s tier%s (library: lower %.3f, passes %.3f, codegen %.3f, total %.3f ms)%s\n",
               compile_wall, tier_name(b->tier), b->from_cache ? ", cache hit" : "", b->lower_ms, b->passes_ms,
               b->codegen_ms, b->total_ms, o.no_specialize ? ", unspecialized" : "");
        if (b->tier == SPVJIT_TIER_QUICK && ks.tier == SPVJIT_TIER_OPT)
            printf(
                "optimized tier: in place %.3f ms after the build began (lower %.3f, passes %.3f, codegen %.3f ms)\n",
                ks.opt_ready_ms, ks.lower_ms, ks.passes_ms, ks.codegen_ms);
        printf("first dispatch: %.3f ms on the %s tier (the result %.3f ms after the build began)\n", timing.first,
               tier_name(timing.at_first.dispatch_tier), compile_wall + timing.first);
        printf("dispatch: median %.3f ms over %u run%s on the %s tier (min %.3f, max %.3f)\n",
               median_of(timing.times, timing.n), timing.n, timing.n == 1 ? "" : "s", tier_name(ks.dispatch_tier),
               timing.times[0], timing.times[timing.n - 1]);
        if (ks.fallback_groups)
            printf("memory=robust: %llu work-groups, not proven in bounds, ran on the quick tier's checked code\n",
                   (unsigned long long)ks.fallback_groups);
    }
    json_object *result = o.json ? json_result(&o, m, &ks, &timing) : NULL;
    for (unsigned i = 0; i < o.noutputs; i++) {
        const run_output *out = &o.outputs[i];
        const run_data *d = output_data(&o, out);
        spvjit_type type = output_type(out, d, &res_of[d - o.data]);
        if (out->file && write_output(out, d, type)) {
            json_object_put(result);
            goto done;
        }
        if (result)
            json_object_array_add(json_object_object_get(result, "outputs"), json_output(out, d, type));
        else if (!out->file)
            print_output(out, d, type);
    }
    if (result)
        cli_json_print(result);
    fflush(stdout);
    /* An auto build's optimized code compiles in the background and goes to
     * the disk cache, which holds only optimized code; a run that ended
     * without it would leave the next run of the same kernel and values a
     * quick build again.  The results are out; the exit waits for it (at
     * once for a quick build: it has none). */
    if ((st = spvjit_kernel_wait_optimized(k)))
        cli_api_error("the optimized tier", st);
    rc = 0;
done:
    free(times);
    free(res_of);
    if (k)
        spvjit_kernel_destroy(k);
    if (specs)
        spvjit_specs_destroy(specs);
    if (m)
        spvjit_module_destroy(m);
    if (ctx)
        spvjit_context_destroy(ctx);
    run_options_free(&o);
    return rc;
}
