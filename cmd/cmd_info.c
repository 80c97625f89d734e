/* cmd/cmd_info.c — `spvjit info FILE.spv`: what a module holds and needs,
 * through the library's reflection (lib/spvjit.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* " (from SpecId 1, 2)" for a dimension computed from spec constants. */
static void print_computed_from(const spvjit_module *m, int dim)
{
    const char *sep = " (from SpecId ";
    for (unsigned i = 0; i < spvjit_module_spec_count(m); i++) {
        spvjit_spec_info s;
        if (spvjit_module_spec_info(m, i, &s) == SPVJIT_OK && (s.sets & (SPVJIT_SETS_LOCAL_SIZE_X << dim))) {
            printf("%s%u", sep, s.spec_id);
            sep = ", ";
        }
    }
    if (*sep == ',')
        printf(")");
}

static void print_local_size(const spvjit_module *m, const spvjit_entry_info *e)
{
    const uint32_t *ls = e->local_size;
    switch (e->local_size_kind) {
    case SPVJIT_LOCAL_SIZE_FIXED:
        printf("  local size: %u,%u,%u\n", ls[0], ls[1], ls[2]);
        break;
    case SPVJIT_LOCAL_SIZE_SPEC:
        printf("  local size:");
        for (int d = 0; d < 3; d++) {
            printf("%s %c = ", d ? "," : "", "xyz"[d]);
            if (e->local_size_spec_id[d] != SPVJIT_NO_SPEC_ID) {
                printf("SpecId %u", e->local_size_spec_id[d]);
            } else {
                printf("%u", ls[d]);
                print_computed_from(m, d);
            }
        }
        if (ls[0] && ls[1] && ls[2])
            printf(" (%u,%u,%u at the defaults)", ls[0], ls[1], ls[2]);
        printf("\n");
        break;
    default:
        if (ls[0])
            printf("  local size: chosen at dispatch (hint %u,%u,%u)\n", ls[0], ls[1], ls[2]);
        else
            printf("  local size: chosen at dispatch\n");
        break;
    }
}

static void print_resource(const spvjit_resource_info *r)
{
    const char *name = r->name && *r->name ? r->name : "";
    switch (r->kind) {
    case SPVJIT_RES_ARG_POINTER:
    case SPVJIT_RES_ARG_LOCAL:
        printf("  arg %u %s: %s* (address space %s)\n", r->index, *name ? name : "(unnamed)", r->type_name,
               r->storage_class);
        break;
    case SPVJIT_RES_ARG_VALUE:
        printf("  arg %u %s: %s (%" PRIu64 " bytes by value)\n", r->index, *name ? name : "(unnamed)", r->type_name,
               r->size);
        break;
    case SPVJIT_RES_STORAGE_BUFFER:
    case SPVJIT_RES_UNIFORM_BUFFER:
        printf("  set %u binding %u: %s buffer %s: %s, %" PRIu64 " bytes", r->set, r->binding,
               r->kind == SPVJIT_RES_STORAGE_BUFFER ? "storage" : "uniform", name, r->type_name, r->size);
        if (r->stride)
            printf(" + n * %" PRIu64 " (runtime array)", r->stride);
        printf("%s\n", r->readonly ? ", read-only" : "");
        break;
    case SPVJIT_RES_PUSH_CONSTANTS:
        printf("  push constants %s: %s, %" PRIu64 " bytes\n", name, r->type_name, r->size);
        break;
    case SPVJIT_RES_UNSUPPORTED:
        printf("  set %u binding %u: %s (%s, not supported for execution)\n", r->set, r->binding, name, r->type_name);
        break;
    }
}

static void print_entry(const spvjit_module *m, const spvjit_entry_info *e)
{
    printf("entry point \"%s\" (%s)\n", e->name, e->execution_model_name);
    if (!e->is_compute) {
        printf("  not a compute entry point: spvjit does not run it\n");
        return;
    }
    print_local_size(m, e);
    unsigned n = spvjit_module_resource_count(m, e->name);
    for (unsigned i = 0; i < n; i++) {
        spvjit_resource_info r;
        if (spvjit_module_resource_info(m, e->name, i, &r) == SPVJIT_OK)
            print_resource(&r);
    }
    printf("  work-group memory: %" PRIu64 " bytes in static variables%s\n", e->wg_memory_bytes,
           spvjit_module_flavour(m) == SPVJIT_FLAVOUR_KERNEL ? " (+ local pointer arguments sized at dispatch)" : "");
}

static void print_spec(const spvjit_spec_info *s)
{
    char value[64];
    printf("  SpecId %u", s->spec_id);
    if (s->name && *s->name)
        printf(" \"%s\"", s->name);
    printf(" (%s, default %s)", spvjit_type_name(s->type),
           spvjit_value_text(s->type, s->default_bits, value, sizeof value));
    const char *sep = " \u2014 sets ";
    for (size_t i = 0; i < sizeof cli_spec_sets / sizeof cli_spec_sets[0]; i++)
        if (s->sets & cli_spec_sets[i].bit) {
            printf("%s%s", sep, cli_spec_sets[i].text);
            sep = ", ";
        }
    printf("\n");
}

int cmd_info(int argc, char **argv)
{
    static const char usage[] = "usage: spvjit info [--json] FILE.spv\n"
                                "  --json   print the facts as one JSON object\n";
    if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
        return fputs(usage, stdout), 0;
    if (argc == 3 && !strcmp(argv[1], "--json") && argv[2][0] != '-')
        return info_json(argv[2]);
    if (argc != 2 || argv[1][0] == '-')
        return cli_error("usage: spvjit info [--json] FILE.spv (see --help)");
    spvjit_context *ctx = NULL;
    spvjit_module *m = NULL;
    spvjit_module_info mi;
    spvjit_context_options co = { .threads = 1, .disk_cache_dir = "" };
    spvjit_status st;
    if ((st = spvjit_context_create(&co, &ctx)) || (st = spvjit_module_load_file(ctx, argv[1], &m)) ||
        (st = spvjit_module_info_get(m, &mi))) {
        cli_api_error(NULL, st);
        spvjit_module_destroy(m);
        spvjit_context_destroy(ctx);
        return 1;
    }
    printf("%s: SPIR-V %u.%u, %s flavour\n", argv[1], mi.spirv_major, mi.spirv_minor,
           mi.flavour == SPVJIT_FLAVOUR_KERNEL ? "Kernel (OpenCL)" : "Shader (Vulkan)");
    printf("addressing %s, memory model %s\n", mi.addressing_model_name, mi.memory_model_name);
    printf("capabilities:");
    for (unsigned i = 0; i < mi.ncapabilities; i++)
        printf(" %s", spvjit_module_capability(m, i));
    printf("\n");
    printf("sub-group size: %u (native on this host: %u; SPVJIT_SUBGROUP_SIZE, SPVJIT_SIMD)\n",
           spvjit_context_subgroup_size(ctx), spvjit_native_subgroup_size());
    for (unsigned i = 0; i < spvjit_module_entry_count(m); i++) {
        spvjit_entry_info e;
        if (spvjit_module_entry_info(m, i, &e) == SPVJIT_OK)
            print_entry(m, &e);
    }
    unsigned nspec = spvjit_module_spec_count(m);
    printf("spec constants: %u\n", nspec);
    for (unsigned i = 0; i < nspec; i++) {
        spvjit_spec_info s;
        if (spvjit_module_spec_info(m, i, &s) == SPVJIT_OK)
            print_spec(&s);
    }
    spvjit_limits l;
    spvjit_limits_get(&l);
    printf("spvjit limits: %u work-items per work-group (%u,%u,%u per dimension), %" PRIu64
           " bytes of work-group memory, %" PRIu64 " bytes of private memory per work-item, %u,%u,%u work-groups\n",
           l.max_workgroup_invocations, l.max_workgroup_size[0], l.max_workgroup_size[1], l.max_workgroup_size[2],
           l.max_workgroup_memory, l.max_private_memory, l.max_workgroup_count[0], l.max_workgroup_count[1],
           l.max_workgroup_count[2]);
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
    return 0;
}
