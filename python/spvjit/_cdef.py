"""The declarations of lib/spvjit.h that cffi needs: the one copy in Python.

lib/spvjit.h owns them.  python/tests/test_cdef.py preprocesses the header and
fails when it declares something this text lacks or declares differently (or
this text declares something the header does not), so a change to the C API
shows up here as a failing test naming the declaration.  A new option field in
a struct is exposed to Python by adding its line here: the Python layer maps
keyword arguments onto struct fields by name (see spvjit._structs).
"""

CDEF = r"""
#define SPVJIT_VERSION_MAJOR 0
#define SPVJIT_VERSION_MINOR 1
#define SPVJIT_VERSION_PATCH 0
#define SPVJIT_SUBGROUP_SIZE_NATIVE 4294967295
#define SPVJIT_NO_SPEC_ID 4294967295

typedef enum spvjit_status {
    SPVJIT_OK = 0,
    SPVJIT_ERROR_INVALID_MODULE,
    SPVJIT_ERROR_UNSUPPORTED,
    SPVJIT_ERROR_SPEC_CONSTANT,
    SPVJIT_ERROR_BINDING,
    SPVJIT_ERROR_DISPATCH,
    SPVJIT_ERROR_NOT_FOUND,
    SPVJIT_ERROR_IO,
    SPVJIT_ERROR_OUT_OF_MEMORY,
    SPVJIT_ERROR_INVALID_ARGUMENT,
    SPVJIT_ERROR_TIMEOUT,
    SPVJIT_ERROR_CANCELLED,
    SPVJIT_ERROR_MEMORY_CHECK,
    SPVJIT_ERROR_LIMIT,
} spvjit_status;
typedef struct spvjit_context spvjit_context;
typedef struct spvjit_module spvjit_module;
typedef struct spvjit_specs spvjit_specs;
typedef struct spvjit_kernel spvjit_kernel;
typedef struct spvjit_event spvjit_event;
typedef enum spvjit_barriers {
    SPVJIT_BARRIERS_DEFAULT = 0,
    SPVJIT_BARRIERS_AUTO,
    SPVJIT_BARRIERS_REGIONS,
    SPVJIT_BARRIERS_FIBERS,
} spvjit_barriers;
typedef enum spvjit_simd {
    SPVJIT_SIMD_DEFAULT = 0,
    SPVJIT_SIMD_AUTO,
    SPVJIT_SIMD_OFF,
} spvjit_simd;
typedef enum spvjit_memory {
    SPVJIT_MEMORY_DEFAULT = 0,
    SPVJIT_MEMORY_ROBUST,
    SPVJIT_MEMORY_CHECK,
    SPVJIT_MEMORY_UNCHECKED,
} spvjit_memory;
typedef enum spvjit_tier {
    SPVJIT_TIER_DEFAULT = 0,
    SPVJIT_TIER_AUTO,
    SPVJIT_TIER_QUICK,
    SPVJIT_TIER_OPT,
} spvjit_tier;
typedef struct spvjit_build_options {
    uint32_t local_size[3];
    bool unspecialized;
    int opt_level;
    bool no_opt;
    spvjit_barriers barriers;
    uint32_t subgroup_size;
    spvjit_simd simd;
    spvjit_memory memory;
    spvjit_tier tier;
} spvjit_build_options;
typedef struct spvjit_context_options {
    unsigned threads;
    size_t cache_bytes;
    const char *disk_cache_dir;
    spvjit_build_options defaults;
} spvjit_context_options;
spvjit_status spvjit_context_create(const spvjit_context_options *opts, spvjit_context **out);
void spvjit_context_destroy(spvjit_context *ctx);
const char *spvjit_last_error(void);
const char *spvjit_status_name(spvjit_status s);
const char *spvjit_version(void);
typedef struct spvjit_limits {
    uint32_t max_workgroup_invocations;
    uint32_t max_workgroup_size[3];
    uint32_t max_workgroup_count[3];
    uint64_t max_workgroup_memory;
    uint64_t max_private_memory;
} spvjit_limits;
spvjit_status spvjit_limits_get(spvjit_limits *out);
spvjit_status spvjit_module_load(spvjit_context *ctx, const void *bytes, size_t nbytes, const char *name,
                                            spvjit_module **out);
spvjit_status spvjit_module_load_file(spvjit_context *ctx, const char *path, spvjit_module **out);
void spvjit_module_destroy(spvjit_module *m);
typedef enum spvjit_flavour { SPVJIT_FLAVOUR_SHADER, SPVJIT_FLAVOUR_KERNEL } spvjit_flavour;
spvjit_flavour spvjit_module_flavour(const spvjit_module *m);
typedef struct spvjit_module_info {
    spvjit_flavour flavour;
    unsigned spirv_major, spirv_minor;
    uint32_t addressing_model;
    const char *addressing_model_name;
    uint32_t memory_model;
    const char *memory_model_name;
    unsigned ncapabilities;
} spvjit_module_info;
spvjit_status spvjit_module_info_get(const spvjit_module *m, spvjit_module_info *out);
const char *spvjit_module_capability(const spvjit_module *m, unsigned i);
unsigned spvjit_module_entry_count(const spvjit_module *m);
const char *spvjit_module_entry_name(const spvjit_module *m, unsigned i);
typedef enum spvjit_local_size_kind {
    SPVJIT_LOCAL_SIZE_FIXED,
    SPVJIT_LOCAL_SIZE_SPEC,
    SPVJIT_LOCAL_SIZE_DISPATCH,
} spvjit_local_size_kind;
typedef struct spvjit_entry_info {
    const char *name;
    uint32_t execution_model;
    const char *execution_model_name;
    bool is_compute;
    spvjit_local_size_kind local_size_kind;
    uint32_t local_size[3];
    uint32_t local_size_spec_id[3];
    uint64_t wg_memory_bytes;
} spvjit_entry_info;
spvjit_status spvjit_module_entry_info(const spvjit_module *m, unsigned i, spvjit_entry_info *out);
typedef enum spvjit_type {
    SPVJIT_TYPE_BOOL = 1,
    SPVJIT_TYPE_I8,
    SPVJIT_TYPE_I16,
    SPVJIT_TYPE_I32,
    SPVJIT_TYPE_I64,
    SPVJIT_TYPE_U8,
    SPVJIT_TYPE_U16,
    SPVJIT_TYPE_U32,
    SPVJIT_TYPE_U64,
    SPVJIT_TYPE_F16,
    SPVJIT_TYPE_F32,
    SPVJIT_TYPE_F64,
} spvjit_type;
const char *spvjit_type_name(spvjit_type t);
const char *spvjit_value_text(spvjit_type t, uint64_t bits, char *buf, size_t len);
typedef enum spvjit_spec_sets {
    SPVJIT_SETS_LOCAL_SIZE_X = 1 << 0,
    SPVJIT_SETS_LOCAL_SIZE_Y = 1 << 1,
    SPVJIT_SETS_LOCAL_SIZE_Z = 1 << 2,
    SPVJIT_SETS_ARRAY_LENGTH = 1 << 3,
} spvjit_spec_sets;
typedef struct spvjit_spec_info {
    uint32_t spec_id;
    const char *name;
    spvjit_type type;
    uint64_t default_bits;
    unsigned sets;
} spvjit_spec_info;
unsigned spvjit_module_spec_count(const spvjit_module *m);
spvjit_status spvjit_module_spec_info(const spvjit_module *m, unsigned i, spvjit_spec_info *out);
typedef enum spvjit_resource_kind {
    SPVJIT_RES_ARG_POINTER,
    SPVJIT_RES_ARG_LOCAL,
    SPVJIT_RES_ARG_VALUE,
    SPVJIT_RES_STORAGE_BUFFER,
    SPVJIT_RES_UNIFORM_BUFFER,
    SPVJIT_RES_PUSH_CONSTANTS,
    SPVJIT_RES_UNSUPPORTED,
} spvjit_resource_kind;
typedef struct spvjit_resource_info {
    spvjit_resource_kind kind;
    const char *name;
    uint32_t index;
    uint32_t set, binding;
    uint64_t size;
    uint64_t stride;
    const char *type_name;
    const char *storage_class;
    bool readonly;
    spvjit_type elem_type;
} spvjit_resource_info;
unsigned spvjit_module_resource_count(const spvjit_module *m, const char *entry);
spvjit_status spvjit_module_resource_info(const spvjit_module *m, const char *entry, unsigned i,
                                                     spvjit_resource_info *out);
spvjit_status spvjit_specs_create(spvjit_specs **out);
void spvjit_specs_destroy(spvjit_specs *s);
spvjit_status spvjit_spec_set_bool(spvjit_specs *s, uint32_t spec_id, bool v);
spvjit_status spvjit_spec_set_i32(spvjit_specs *s, uint32_t spec_id, int32_t v);
spvjit_status spvjit_spec_set_u32(spvjit_specs *s, uint32_t spec_id, uint32_t v);
spvjit_status spvjit_spec_set_i64(spvjit_specs *s, uint32_t spec_id, int64_t v);
spvjit_status spvjit_spec_set_u64(spvjit_specs *s, uint32_t spec_id, uint64_t v);
spvjit_status spvjit_spec_set_f32(spvjit_specs *s, uint32_t spec_id, float v);
spvjit_status spvjit_spec_set_f64(spvjit_specs *s, uint32_t spec_id, double v);
spvjit_status spvjit_spec_set(spvjit_specs *s, uint32_t spec_id, spvjit_type type, uint64_t bits);
spvjit_status spvjit_spec_set_text(spvjit_specs *s, uint32_t spec_id, const char *text);
spvjit_status spvjit_spec_set_define(spvjit_specs *s, const char *id_equals_value);
spvjit_status spvjit_spec_set_bytes(spvjit_specs *s, uint32_t spec_id, const void *data, size_t size);
spvjit_status spvjit_module_specialize(const spvjit_module *m, const spvjit_specs *specs, uint32_t **words,
                                                  size_t *nwords);
spvjit_status spvjit_kernel_build(spvjit_module *m, const char *entry, const spvjit_specs *specs,
                                             const spvjit_build_options *opts, spvjit_kernel **out);
void spvjit_kernel_destroy(spvjit_kernel *k);
typedef struct spvjit_kernel_stats {
    bool from_cache;
    double lower_ms, passes_ms, codegen_ms, total_ms;
    uint64_t wg_memory_bytes;
    bool uses_barriers;
    uint32_t local_size[3];
    uint32_t subgroup_size;
    spvjit_tier tier;
    bool opt_pending;
    double opt_ready_ms;
    spvjit_tier dispatch_tier;
    uint64_t quick_dispatches;
    uint64_t opt_dispatches;
    uint64_t fallback_groups;
} spvjit_kernel_stats;
uint32_t spvjit_native_subgroup_size(void);
uint32_t spvjit_context_subgroup_size(const spvjit_context *ctx);
spvjit_status spvjit_kernel_stats_get(const spvjit_kernel *k, spvjit_kernel_stats *out);
spvjit_status spvjit_kernel_wait_optimized(spvjit_kernel *k);
typedef struct spvjit_build_event spvjit_build_event;
spvjit_status spvjit_kernel_build_async(spvjit_module *m, const char *entry, const spvjit_specs *specs,
                                                   const spvjit_build_options *opts, spvjit_build_event **ev);
spvjit_status spvjit_build_wait(spvjit_build_event *ev, spvjit_kernel **out);
spvjit_status spvjit_bind_buffer(spvjit_kernel *k, uint32_t set, uint32_t binding, void *data, size_t bytes);
spvjit_status spvjit_bind_buffer_element(spvjit_kernel *k, uint32_t set, uint32_t binding, uint32_t element,
                                                    void *data, size_t bytes);
spvjit_status spvjit_set_push_constants(spvjit_kernel *k, const void *data, size_t bytes);
spvjit_status spvjit_set_arg_buffer(spvjit_kernel *k, uint32_t index, void *data, size_t bytes);
spvjit_status spvjit_set_arg_value(spvjit_kernel *k, uint32_t index, const void *value, size_t bytes);
spvjit_status spvjit_set_arg_local(spvjit_kernel *k, uint32_t index, size_t bytes);
typedef struct spvjit_dispatch_info {
    uint32_t groups[3];
    uint32_t base_group[3];
    uint32_t work_dim;
    uint64_t global_size[3];
    uint32_t local_size[3];
    uint64_t global_offset[3];
    double timeout_seconds;
} spvjit_dispatch_info;
spvjit_status spvjit_dispatch(spvjit_kernel *k, const spvjit_dispatch_info *d);
spvjit_status spvjit_dispatch_async(spvjit_kernel *k, const spvjit_dispatch_info *d, spvjit_event **ev);
spvjit_status spvjit_event_wait(spvjit_event *ev);
spvjit_status spvjit_dispatch_cancel(spvjit_kernel *k);
typedef enum spvjit_value_kind {
    SPVJIT_VALUE_VOID,
    SPVJIT_VALUE_SCALAR,
    SPVJIT_VALUE_POINTER,
    SPVJIT_VALUE_OTHER,
} spvjit_value_kind;
typedef struct spvjit_export_value {
    const char *name;
    spvjit_value_kind kind;
    spvjit_type type;
    size_t size;
    const char *type_name;
    const char *storage_class;
    spvjit_type elem_type;
    bool readonly;
} spvjit_export_value;
typedef struct spvjit_export_info {
    const char *name;
    spvjit_export_value result;
    unsigned nparams;
    const spvjit_export_value *params;
    const char *unsupported;
} spvjit_export_info;
unsigned spvjit_module_export_count(const spvjit_module *m);
spvjit_status spvjit_module_export_info(const spvjit_module *m, unsigned i, spvjit_export_info *out);
typedef struct spvjit_call_arg {
    const void *data;
    size_t size;
    bool varying;
} spvjit_call_arg;
spvjit_status spvjit_call_exported(spvjit_module *m, const char *name, const spvjit_specs *specs,
                                              unsigned lanes, const spvjit_call_arg *args, unsigned nargs,
                                              void *results, size_t results_size);
typedef enum spvjit_emit_kind { SPVJIT_EMIT_LLVM, SPVJIT_EMIT_OPT_LLVM, SPVJIT_EMIT_ASM } spvjit_emit_kind;
spvjit_status spvjit_kernel_emit(spvjit_module *m, const char *entry, const spvjit_specs *specs,
                                            const spvjit_build_options *opts, spvjit_emit_kind what, char **text);
void spvjit_free(void *p);
"""
