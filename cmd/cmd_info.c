/* cmd/cmd_info.c — `spvjit info FILE.spv`: what a module holds and needs. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "spirv/interface.h"
#include "spirv/specialize.h"
#include "spirv_grammar.h"

static const char *enum_name(spv_operand_kind k, uint32_t v)
{
    const char *s = spv_enum_name(k, v);
    return s ? s : "?";
}

static void print_value(spv_value_type t, uint64_t bits)
{
    switch (t) {
    case SPV_VALUE_BOOL:
        printf("%s", bits ? "true" : "false");
        break;
    case SPV_VALUE_I8:
        printf("%d", (int8_t)bits);
        break;
    case SPV_VALUE_I16:
        printf("%d", (int16_t)bits);
        break;
    case SPV_VALUE_I32:
        printf("%" PRId32, (int32_t)bits);
        break;
    case SPV_VALUE_I64:
        printf("%" PRId64, (int64_t)bits);
        break;
    case SPV_VALUE_F16: {
        /* half → float for printing */
        uint32_t h = (uint32_t)bits & 0xffff, s = (h >> 15) << 31, e = (h >> 10) & 31, f = h & 1023;
        float v;
        if (e == 0) {
            v = (float)f / 1024.0f / 16384.0f;
            printf("%g", (s ? -v : v));
            break;
        }
        uint32_t w = s | (e == 31 ? 0xff << 23 : (e + 112) << 23) | (f << 13);
        memcpy(&v, &w, 4);
        printf("%g", v);
        break;
    }
    case SPV_VALUE_F32: {
        uint32_t w = (uint32_t)bits;
        float v;
        memcpy(&v, &w, 4);
        printf("%g", v);
        break;
    }
    case SPV_VALUE_F64: {
        double v;
        memcpy(&v, &bits, 8);
        printf("%g", v);
        break;
    }
    default:
        printf("%" PRIu64, bits);
        break;
    }
}

static void print_entry(const spv_module *m, const spv_entry_point *e, spv_module *spec)
{
    printf("entry point \"%s\" (%s)\n", e->name, enum_name(SPV_OPERAND_ExecutionModel, e->model));
    const spv_entry_point *se = spec ? spv_find_entry(spec, e->name) : NULL;
    if (e->has_local_size_id || m->workgroup_size_id) {
        printf("  local size: set by spec constants");
        if (e->has_local_size_id)
            for (int i = 0; i < 3; i++) {
                const spv_id *x = spv_id_get(m, e->local_size_id[i]);
                if (x && x->spec_id != SPV_NONE)
                    printf(" %c=SpecId %u", "xyz"[i], x -> spec_id);
            }
        if (m->workgroup_size_id) {
            const spv_id *w = &m->ids[m->workgroup_size_id];
            for (uint32_t i = 0; i < w->nparts && i < 3; i++) {
                const spv_id *x = spv_id_get(m, w->parts[i]);
                if (x && x->spec_id != SPV_NONE)
                    printf(" %c=SpecId %u", "xyz"[i], x -> spec_id);
            }
        }
        if (se && se->has_local_size)
            printf(" (default %u,%u,%u)", se->local_size[0], se->local_size[1], se->local_size[2]);
        printf("\n");
    } else if (e->has_local_size) {
        printf("  local size: %u,%u,%u\n", e->local_size[0], e->local_size[1], e->local_size[2]);
    } else if (e->has_local_size_hint) {
        printf("  local size hint: %u,%u,%u (chosen at dispatch)\n", e->local_size_hint[0], e->local_size_hint[1],
               e->local_size_hint[2]);
    } else {
        printf("  local size: chosen at dispatch\n");
    }

    /* Sizes come from the module specialized with its defaults, where that worked. */
    const spv_module *sm = se ? spec : m;
    const spv_entry_point *ee = se ? se : e;
    spv_resource *res = NULL;
    spv_diag d;
    int n = spv_entry_resources(sm, ee, &res, &d);
    if (n < 0) {
        printf("  interface: %s\n", d.msg);
        return;
    }
    uint64_t wg_bytes = 0;
    char tn[512];
    for (int i = 0; i < n; i++) {
        const spv_resource *r = &res[i];
        spv_type_name(sm, r->type_id, tn, sizeof tn);
        switch (r->kind) {
        case SPV_RES_KERNEL_ARG:
            if (r->is_pointer) {
                const spv_type *pt = spv_type_get(sm, r->type_id);
                spv_type_name(sm, pt ? pt->elem : 0, tn, sizeof tn);
            }
            printf("  arg %u %s: %s%s", r->index, r->name && *r->name ? r->name : "(unnamed)", tn,
                   r->is_pointer ? "*" : "");
            if (r->is_pointer)
                printf(" (address space %s)", enum_name(SPV_OPERAND_StorageClass, r->storage));
            else
                printf(" (%" PRIu64 " bytes by value)", r->size);
            printf("\n");
            break;
        case SPV_RES_STORAGE_BUFFER:
        case SPV_RES_UNIFORM_BUFFER:
            printf("  set %u binding %u: %s buffer %s: %s, %" PRIu64 " bytes", r->set, r->binding,
                   r->kind == SPV_RES_STORAGE_BUFFER ? "storage" : "uniform", r->name && *r->name ? r->name : "", tn,
                   r->size);
            if (r->stride)
                printf(" + n * %" PRIu64 " (runtime array)", r->stride);
            if (r->readonly)
                printf(", read-only");
            printf("\n");
            break;
        case SPV_RES_PUSH_CONSTANT:
            printf("  push constants %s: %s, %" PRIu64 " bytes\n", r->name ? r->name : "", tn, r->size);
            break;
        case SPV_RES_WORKGROUP:
            wg_bytes += r->size;
            break;
        case SPV_RES_OPAQUE:
            printf("  set %u binding %u: %s (%s, not supported for execution)\n", r->set, r->binding,
                   r->name ? r->name : "", tn);
            break;
        }
    }
    printf("  work-group memory: %" PRIu64 " bytes in static variables%s\n", wg_bytes,
           m->is_kernel ? " (+ local pointer arguments sized at dispatch)" : "");
    free(res);
}

int cmd_info(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] == '-')
        return cli_error("usage: spvjit info FILE.spv");
    spv_diag d;
    spv_module *m = spv_module_load_file(argv[1], NULL, &d);
    if (!m)
        return cli_error("%s", d.msg);

    /* Specialize with the defaults to learn sizes that depend on spec constants. */
    spv_module *spec = NULL;
    uint32_t *w = NULL;
    size_t nw = 0;
    if (spv_specialize(m, NULL, 0, &w, &nw, &d) == 0) {
        spec = spv_module_load(w, nw * 4, argv[1], &(spv_load_options){ .skip_validation = true }, &d);
        free(w);
    }

    printf("%s: SPIR-V %u.%u, %s flavour\n", argv[1], (m->version >> 16) & 0xff, (m->version >> 8) & 0xff,
           m->is_kernel   ? "Kernel (OpenCL)"
           : m->is_shader ? "Shader (Vulkan)"
                          : "unknown");
    printf("addressing %s, memory model %s\n", enum_name(SPV_OPERAND_AddressingModel, m->addressing),
           enum_name(SPV_OPERAND_MemoryModel, m->memory_model));
    printf("capabilities:");
    for (uint32_t i = 0; i < m->ncaps; i++)
        printf(" %s", enum_name(SPV_OPERAND_Capability, m->caps[i]));
    printf("\n");
    for (uint32_t i = 0; i < m->nentries; i++)
        print_entry(m, &m->entries[i], spec);

    spv_spec_constant *sc = NULL;
    size_t nsc = spv_spec_constants(m, &sc);
    printf("spec constants: %zu\n", nsc);
    for (size_t i = 0; i < nsc; i++) {
        printf("  SpecId %u %s: %s = ", sc[i].spec_id, sc[i].name && *sc[i].name ? sc[i].name : "(unnamed)",
               spv_value_type_name(sc[i].type));
        print_value(sc[i].type, sc[i].default_bits);
        printf("\n");
    }
    free(sc);
    spv_module_free(spec);
    spv_module_free(m);
    return 0;
}
