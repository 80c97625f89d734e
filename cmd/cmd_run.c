/* cmd/cmd_run.c — `spvjit run FILE.spv ...`: one entry point, its bindings
 * from the command line, a dispatch (or --repeat N), buffers printed or
 * written out.  A thin layer over the public API; options and data forms are
 * in run_options.c / buffer_fill.c. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
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

/* Checks every resource of the entry against the data given, and every data
 * against the resources; one line per problem, the first one returned. */
static int check_bindings(spvjit_module *m, const char *entry, const run_options *o, bool *is_local)
{
    unsigned n = spvjit_module_resource_count(m, entry);
    char have[1024] = "";
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
        if (ri.kind == SPVJIT_RES_ARG_LOCAL) {
            if (!d->local)
                return cli_error("%s is a local-memory argument: give its size with --arg %u=local:BYTES", name,
                                 ri.index);
            is_local[d - o->data] = true;
            continue;
        }
        if (d->local)
            return cli_error("%s is a %s, not a local-memory argument", name, resource_kind_name(ri.kind));
        if (ri.kind == SPVJIT_RES_ARG_VALUE && d->data.size != ri.size)
            return cli_error("%s is a by-value argument of %" PRIu64 " bytes; '%s' gives %zu", name, ri.size, d->spec,
                             d->data.size);
        if (d->data.size < ri.size)
            return cli_error("%s needs at least %" PRIu64 " bytes; '%s' gives %zu", name, ri.size, d->spec,
                             d->data.size);
        if (ri.stride && (d->data.size - ri.size) % ri.stride)
            return cli_error("%s: %zu bytes is not %" PRIu64 " plus whole %" PRIu64 "-byte array elements ('%s')", name,
                             d->data.size, ri.size, ri.stride, d->spec);
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

static void print_output(const run_options *o, const run_output *out)
{
    const run_data *d = NULL;
    for (unsigned k = 0; k < o->ndata; k++)
        if (run_target_equal(&o->data[k].target, &out->target))
            d = &o->data[k];
    char tn[64], v[64];
    run_target_name(&out->target, tn, sizeof tn);
    size_t es = vtype_size(out->type), n = d->data.size / es;
    printf("%s (%zu x %s):\n", tn, n, vtype_name(out->type));
    for (size_t i = 0; i < n; i++) {
        scalar_format(out->type, d->data.bytes + i * es, v, sizeof v);
        printf("%s%s", i % 8 ? " " : "  ", v);
        if (i % 8 == 7 || i + 1 == n)
            putchar('\n');
    }
}

static int write_output(const run_options *o, const run_output *out)
{
    for (unsigned k = 0; k < o->ndata; k++)
        if (run_target_equal(&o->data[k].target, &out->target)) {
            FILE *f = fopen(out->file, "wb");
            bool ok = f && fwrite(o->data[k].data.bytes, 1, o->data[k].data.size, f) == o->data[k].data.size;
            if (f && fclose(f))
                ok = false;
            if (!ok)
                return cli_error("%s: cannot write", out->file);
        }
    return 0;
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
    bool *is_local = calloc(o.ndata + 1, sizeof *is_local);
    spvjit_context_options co = { .threads = o.threads };
    spvjit_status st;
    if (!is_local) {
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
    if (check_bindings(m, o.entry, &o, is_local))
        goto done;
    spvjit_build_options bo = { .unspecialized = o.no_specialize };
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
    spvjit_dispatch_info di = { .groups = { 1, 1, 1 } };
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
    for (unsigned r = 0; r < runs; r++) {
        double t = util_now_ms();
        if ((st = spvjit_dispatch(k, &di))) {
            cli_api_error("dispatch", st);
            goto done;
        }
        times[r] = util_now_ms() - t;
    }
    if (o.repeat) {
        spvjit_kernel_stats ks = { 0 };
        spvjit_kernel_stats_get(k, &ks);
        double first = times[0]; /* may include lazy work the library defers to the first dispatch */
        qsort(times, runs, sizeof *times, cmp_double);
        double median = runs % 2 ? times[runs / 2] : (times[runs / 2 - 1] + times[runs / 2]) / 2;
        printf("compile: %.3f ms wall%s (library: lower %.3f, passes %.3f, codegen %.3f, total %.3f ms)%s\n",
               compile_wall, ks.from_cache ? ", cache hit" : "", ks.lower_ms, ks.passes_ms, ks.codegen_ms, ks.total_ms,
               o.no_specialize ? ", unspecialized" : "");
        printf("dispatch: median %.3f ms over %u runs (first %.3f, min %.3f, max %.3f)\n", median, runs, first,
               times[0], times[runs - 1]);
    }
    for (unsigned i = 0; i < o.noutputs; i++) {
        if (o.outputs[i].file) {
            if (write_output(&o, &o.outputs[i]))
                goto done;
        } else {
            print_output(&o, &o.outputs[i]);
        }
    }
    rc = 0;
done:
    free(times);
    free(is_local);
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
