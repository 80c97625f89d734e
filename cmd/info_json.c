/* cmd/info_json.c — `spvjit info --json FILE.spv`: what `info` prints, as one
 * JSON object (json-c), through the library's reflection (lib/spvjit.h), and
 * the library's limits. */
#include <json-c/json.h>
#include <stdint.h>
#include <string.h>

#include "cli.h"

static json_object *str_or_null(const char *s)
{
    return s ? json_object_new_string(s) : NULL;
}

static json_object *u32_triple(const uint32_t v[3])
{
    json_object *a = json_object_new_array();
    for (int i = 0; i < 3; i++)
        json_object_array_add(a, json_object_new_uint64(v[i]));
    return a;
}

/* {"kind": "fixed"|"spec"|"dispatch", "size": [x,y,z], "spec_ids": [...]}:
 * the size at the module's defaults (for "dispatch" the LocalSizeHint, or 0s). */
static json_object *local_size_json(const spvjit_entry_info *e)
{
    static const char *const kinds[] = { [SPVJIT_LOCAL_SIZE_FIXED] = "fixed",
                                         [SPVJIT_LOCAL_SIZE_SPEC] = "spec",
                                         [SPVJIT_LOCAL_SIZE_DISPATCH] = "dispatch" };
    json_object *j = json_object_new_object();
    json_object_object_add(j, "kind", json_object_new_string(kinds[e->local_size_kind]));
    json_object_object_add(j, "size", u32_triple(e->local_size));
    if (e->local_size_kind == SPVJIT_LOCAL_SIZE_SPEC) {
        json_object *ids = json_object_new_array();
        for (int d = 0; d < 3; d++)
            json_object_array_add(ids, e->local_size_spec_id[d] == SPVJIT_NO_SPEC_ID
                                           ? NULL
                                           : json_object_new_uint64(e->local_size_spec_id[d]));
        json_object_object_add(j, "spec_ids", ids);
    }
    return j;
}

static const char *resource_kind_name(spvjit_resource_kind k)
{
    static const char *const names[] = {
        [SPVJIT_RES_ARG_POINTER] = "arg_pointer",       [SPVJIT_RES_ARG_LOCAL] = "arg_local",
        [SPVJIT_RES_ARG_VALUE] = "arg_value",           [SPVJIT_RES_STORAGE_BUFFER] = "storage_buffer",
        [SPVJIT_RES_UNIFORM_BUFFER] = "uniform_buffer", [SPVJIT_RES_PUSH_CONSTANTS] = "push_constants",
        [SPVJIT_RES_UNSUPPORTED] = "unsupported"
    };
    return (unsigned)k < sizeof names / sizeof names[0] && names[k] ? names[k] : "?";
}

static json_object *resource_json(const spvjit_resource_info *r)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "kind", json_object_new_string(resource_kind_name(r->kind)));
    json_object_object_add(o, "name", str_or_null(r->name));
    if (r->kind == SPVJIT_RES_ARG_POINTER || r->kind == SPVJIT_RES_ARG_LOCAL || r->kind == SPVJIT_RES_ARG_VALUE) {
        json_object_object_add(o, "index", json_object_new_uint64(r->index));
    } else if (r->kind != SPVJIT_RES_PUSH_CONSTANTS) {
        json_object_object_add(o, "set", json_object_new_uint64(r->set));
        json_object_object_add(o, "binding", json_object_new_uint64(r->binding));
    }
    json_object_object_add(o, "type", str_or_null(r->type_name));
    json_object_object_add(o, "storage_class", str_or_null(r->storage_class));
    json_object_object_add(o, "size", json_object_new_uint64(r->size));
    json_object_object_add(o, "stride", json_object_new_uint64(r->stride));
    json_object_object_add(o, "elem_type",
                           r->elem_type ? json_object_new_string(spvjit_type_name(r->elem_type)) : NULL);
    json_object_object_add(o, "readonly", json_object_new_boolean(r->readonly));
    return o;
}

static json_object *entry_json(spvjit_module *m, const spvjit_entry_info *e)
{
    json_object *j = json_object_new_object();
    json_object_object_add(j, "name", json_object_new_string(e->name));
    json_object_object_add(j, "execution_model", json_object_new_string(e->execution_model_name));
    json_object_object_add(j, "is_compute", json_object_new_boolean(e->is_compute));
    if (!e->is_compute)
        return j;
    json_object_object_add(j, "local_size", local_size_json(e));
    json_object_object_add(j, "wg_memory_bytes", json_object_new_uint64(e->wg_memory_bytes));
    json_object *res = json_object_new_array();
    unsigned n = spvjit_module_resource_count(m, e->name);
    for (unsigned i = 0; i < n; i++) {
        spvjit_resource_info r;
        if (spvjit_module_resource_info(m, e->name, i, &r) == SPVJIT_OK)
            json_object_array_add(res, resource_json(&r));
    }
    json_object_object_add(j, "resources", res);
    return j;
}

static json_object *spec_json(const spvjit_spec_info *s)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "spec_id", json_object_new_uint64(s->spec_id));
    json_object_object_add(o, "name", str_or_null(s->name));
    json_object_object_add(o, "type", json_object_new_string(spvjit_type_name(s->type)));
    json_object_object_add(o, "default",
                           s->type == SPVJIT_TYPE_BOOL ? json_object_new_boolean(s->default_bits != 0)
                                                       : cli_json_scalar(s->type, &s->default_bits));
    json_object *set = json_object_new_array();
    for (size_t i = 0; i < sizeof cli_spec_sets / sizeof cli_spec_sets[0]; i++)
        if (s->sets & cli_spec_sets[i].bit)
            json_object_array_add(set, json_object_new_string(cli_spec_sets[i].key));
    json_object_object_add(o, "sets", set);
    return o;
}

int info_json(const char *path)
{
    spvjit_context *ctx = NULL;
    spvjit_module *m = NULL;
    spvjit_module_info mi;
    spvjit_context_options co = { .threads = 1, .disk_cache_dir = "" };
    spvjit_status st;
    if ((st = spvjit_context_create(&co, &ctx)) || (st = spvjit_module_load_file(ctx, path, &m)) ||
        (st = spvjit_module_info_get(m, &mi))) {
        cli_api_error(NULL, st);
        spvjit_module_destroy(m);
        spvjit_context_destroy(ctx);
        return 1;
    }
    json_object *j = json_object_new_object();
    char version[16];
    snprintf(version, sizeof version, "%u.%u", mi.spirv_major, mi.spirv_minor);
    json_object_object_add(j, "file", json_object_new_string(path));
    json_object_object_add(j, "spirv_version", json_object_new_string(version));
    json_object_object_add(j, "flavour",
                           json_object_new_string(mi.flavour == SPVJIT_FLAVOUR_KERNEL ? "kernel" : "shader"));
    json_object_object_add(j, "addressing_model", json_object_new_string(mi.addressing_model_name));
    json_object_object_add(j, "memory_model", json_object_new_string(mi.memory_model_name));
    json_object *caps = json_object_new_array();
    for (unsigned i = 0; i < mi.ncapabilities; i++)
        json_object_array_add(caps, str_or_null(spvjit_module_capability(m, i)));
    json_object_object_add(j, "capabilities", caps);
    json_object *sg = json_object_new_object();
    json_object_object_add(sg, "default", json_object_new_int64(spvjit_context_subgroup_size(ctx)));
    json_object_object_add(sg, "native", json_object_new_int64(spvjit_native_subgroup_size()));
    json_object_object_add(j, "subgroup_size", sg);
    json_object *entries = json_object_new_array();
    for (unsigned i = 0; i < spvjit_module_entry_count(m); i++) {
        spvjit_entry_info e;
        if (spvjit_module_entry_info(m, i, &e) == SPVJIT_OK)
            json_object_array_add(entries, entry_json(m, &e));
    }
    json_object_object_add(j, "entry_points", entries);
    json_object *specs = json_object_new_array();
    for (unsigned i = 0; i < spvjit_module_spec_count(m); i++) {
        spvjit_spec_info s;
        if (spvjit_module_spec_info(m, i, &s) == SPVJIT_OK)
            json_object_array_add(specs, spec_json(&s));
    }
    json_object_object_add(j, "spec_constants", specs);
    spvjit_limits l;
    spvjit_limits_get(&l);
    json_object *lim = json_object_new_object();
    json_object_object_add(lim, "max_workgroup_invocations", json_object_new_uint64(l.max_workgroup_invocations));
    json_object_object_add(lim, "max_workgroup_size", u32_triple(l.max_workgroup_size));
    json_object_object_add(lim, "max_workgroup_count", u32_triple(l.max_workgroup_count));
    json_object_object_add(lim, "max_workgroup_memory", json_object_new_uint64(l.max_workgroup_memory));
    json_object_object_add(lim, "max_private_memory", json_object_new_uint64(l.max_private_memory));
    json_object_object_add(j, "limits", lim);
    cli_json_print(j);
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
    return 0;
}
