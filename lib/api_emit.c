/* lib/api_emit.c — spvjit_kernel_emit(): the lowered IR, the optimized IR or
 * the host assembly of one entry point, for inspection (`spvjit compile`).
 *
 * The module is specialized exactly as spvjit_kernel_build does (all values
 * folded; unspecialized: only the shape-giving values reach the JIT) and
 * compiled once through the JIT with its emit hook; the compiled kernel is
 * dropped and nothing enters the kernel cache, since the point is the text.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/api_internal.h"

typedef struct emit_capture {
    const char *want; /* "ir", "opt-ir" or "asm" */
    char *text;
} emit_capture;

static void capture(void *user, const char *what, const char *text)
{
    emit_capture *c = user;
    if (!strcmp(what, c->want) && !c->text)
        c->text = strdup(text);
}

SPVJIT_API void spvjit_free(void *p)
{
    free(p);
}

SPVJIT_API spvjit_status spvjit_kernel_emit(spvjit_module *m, const char *entry, const spvjit_specs *specs,
                                            const spvjit_build_options *opts, spvjit_emit_kind what, char **text)
{
    if (!m || !text)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_kernel_emit: NULL module or text");
    *text = NULL;
    if (what != SPVJIT_EMIT_LLVM && what != SPVJIT_EMIT_OPT_LLVM && what != SPVJIT_EMIT_ASM)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_kernel_emit: unknown emit kind %d", (int)what);
    spvjit_status st = SPVJIT_OK;
    const api_entry_info *ei = api_module_entry(m, entry, &st);
    if (!ei)
        return st;
    api_build_options o;
    if ((st = api_build_options_resolve(&m->ctx->options, opts, "spvjit_kernel_emit", &o)) != SPVJIT_OK)
        return st;
    uint64_t *values = NULL;
    if ((st = api_resolve_specs(m, specs, &values)) != SPVJIT_OK)
        return st;

    spvjit_shape_value *shapes = NULL;
    spv_diag d;
    d.msg[0] = 0;
    spv_module *sm = api_module_for_values(m, values, o.unspecialized, true, &shapes, &st);
    if (!sm)
        goto out;
    emit_capture cap = { .want = what == SPVJIT_EMIT_LLVM ? "ir" : what == SPVJIT_EMIT_OPT_LLVM ? "opt-ir" : "asm" };
    spvjit_options jo = { .shape_values = shapes,
                          .nshape_values = m->nspecs,
                          .emit = capture,
                          .emit_user = &cap,
                          .emit_ir = what == SPVJIT_EMIT_LLVM,
                          .emit_opt_ir = what == SPVJIT_EMIT_OPT_LLVM,
                          .emit_asm = what == SPVJIT_EMIT_ASM };
    api_build_options_to_jit(&o, &jo);
    jit_kernel *jk = spvjit_compile(sm, ei->e->name, &jo, &d);
    if (!jk) {
        free(cap.text);
        st = api_fail(SPVJIT_ERROR_UNSUPPORTED, "%s", d.msg);
        goto out;
    }
    spvjit_kernel_free(jk);
    if (!cap.text) {
        st = api_fail(SPVJIT_ERROR_UNSUPPORTED, "%s: entry point \"%s\": no %s text was produced%s%s",
                      m->m->source ? m->m->source : "<memory>", ei->e->name, cap.want, d.msg[0] ? ": " : "", d.msg);
        goto out;
    }
    *text = cap.text;
out:
    spv_module_free(sm);
    free(shapes);
    free(values);
    return st;
}
