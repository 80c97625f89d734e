/* testdata/tests/test_api_errors.c — reflection, spec-value errors, binding
 * errors and their messages, status names.  The references are the kernels'
 * sources (testdata/kernels: .comp and .cl files) and testdata/README.md. */
#include <unistd.h>

#include "api_test_util.h"

static bool has(const char *msg, const char *part)
{
    bool ok = strstr(msg, part) != NULL;
    CHECK(ok, "message \"%s\" lacks \"%s\"", msg, part);
    return ok;
}

TEST_TIER_FREE(api_version_and_status_names)
{
    CHECK(!strcmp(spvjit_version(), SPVJIT_VERSION_STRING), "version %s", spvjit_version());
    CHECK(!strcmp(spvjit_status_name(SPVJIT_ERROR_BINDING), "SPVJIT_ERROR_BINDING"), "binding name");
    CHECK(!strcmp(spvjit_status_name(SPVJIT_OK), "SPVJIT_OK"), "ok name");
    CHECK(!strcmp(spvjit_status_name((spvjit_status)999), "SPVJIT_ERROR_UNKNOWN"), "unknown status");
}

TEST(api_reflection_mm_comp)
{
    spvjit_context *ctx = api_ctx(0);
    spvjit_module *m = api_load(ctx, "kernels/mm.comp.spv");
    REQUIRE(m, "load: %s", spvjit_last_error());
    CHECK(spvjit_module_flavour(m) == SPVJIT_FLAVOUR_SHADER, "Shader flavour");
    CHECK(spvjit_module_entry_count(m) == 1 && !strcmp(spvjit_module_entry_name(m, 0), "main"), "entry main");
    /* SpecId 0 decorates three constants in glslang's output: listed once. */
    CHECK(spvjit_module_spec_count(m) == 1, "one SpecId: %u", spvjit_module_spec_count(m));
    spvjit_spec_info si;
    CHECK(spvjit_module_spec_info(m, 0, &si) == SPVJIT_OK && si.spec_id == 0 && si.type == SPVJIT_TYPE_U32 &&
              si.default_bits == 16 && si.name && !strcmp(si.name, "BS"),
          "BS: id %u type %d default %llu", si.spec_id, si.type, (unsigned long long)si.default_bits);
    /* local_size_x_id = local_size_y_id = 0, and BS*BS sizes the shared arrays */
    CHECK(si.sets == (SPVJIT_SETS_LOCAL_SIZE_X | SPVJIT_SETS_LOCAL_SIZE_Y | SPVJIT_SETS_ARRAY_LENGTH), "BS sets %#x",
          si.sets);
    spvjit_module_info mi;
    CHECK(spvjit_module_info_get(m, &mi) == SPVJIT_OK && mi.flavour == SPVJIT_FLAVOUR_SHADER && mi.spirv_major == 1 &&
              mi.spirv_minor == 3 && !strcmp(mi.addressing_model_name, "Logical") && mi.addressing_model == 0 &&
              !strcmp(mi.memory_model_name, "GLSL450") && mi.ncapabilities == 1 &&
              !strcmp(spvjit_module_capability(m, 0), "Shader") && !spvjit_module_capability(m, 1),
          "module facts: SPIR-V %u.%u %s %s", mi.spirv_major, mi.spirv_minor, mi.addressing_model_name,
          mi.memory_model_name);
    spvjit_entry_info ei;
    CHECK(spvjit_module_entry_info(m, 0, &ei) == SPVJIT_OK && !strcmp(ei.name, "main") &&
              !strcmp(ei.execution_model_name, "GLCompute") && ei.is_compute &&
              ei.local_size_kind == SPVJIT_LOCAL_SIZE_SPEC && ei.local_size_spec_id[0] == 0 &&
              ei.local_size_spec_id[1] == 0 && ei.local_size_spec_id[2] == SPVJIT_NO_SPEC_ID &&
              ei.local_size[0] == 16 && ei.local_size[1] == 16 && ei.local_size[2] == 1 &&
              ei.wg_memory_bytes == 2 * 16 * 16 * 4,
          "entry: %s kind %d ls %u,%u,%u wg %llu", ei.name, ei.local_size_kind, ei.local_size[0], ei.local_size[1],
          ei.local_size[2], (unsigned long long)ei.wg_memory_bytes);
    CHECK(spvjit_module_entry_info(m, 1, &ei) == SPVJIT_ERROR_INVALID_ARGUMENT, "entry index out of range");
    unsigned nres = spvjit_module_resource_count(m, "main");
    CHECK(nres == 4, "A, B, C and the push constants: %u", nres);
    bool seen[3] = { 0 }, push = false;
    for (unsigned i = 0; i < nres; i++) {
        spvjit_resource_info r;
        spvjit_module_resource_info(m, "main", i, &r);
        if (r.kind == SPVJIT_RES_STORAGE_BUFFER && r.set == 0 && r.binding < 3) {
            seen[r.binding] = true;
            CHECK(r.size == 0 && r.stride == 4, "binding %u: size %llu stride %llu", r.binding,
                  (unsigned long long)r.size, (unsigned long long)r.stride);
            static const char *const types[3] = { "struct MatA { float[] }", "struct MatB { float[] }",
                                                  "struct MatC { float[] }" };
            CHECK(!strcmp(r.type_name, types[r.binding]) && !strcmp(r.storage_class, "StorageBuffer") &&
                      r.readonly == (r.binding < 2),
                  "binding %u: %s, %s, readonly %d", r.binding, r.type_name, r.storage_class, r.readonly);
        }
        if (r.kind == SPVJIT_RES_PUSH_CONSTANTS)
            push = r.size == 4 && !strcmp(r.type_name, "struct Params { uint }") &&
                   !strcmp(r.storage_class, "PushConstant");
    }
    CHECK(seen[0] && seen[1] && seen[2] && push, "bindings 0..2 and a 4-byte push block");
    CHECK(spvjit_module_spec_info(m, 5, &si) == SPVJIT_ERROR_INVALID_ARGUMENT, "index out of range");
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
}

TEST(api_reflection_reduce_cl)
{
    spvjit_context *ctx = api_ctx(0);
    spvjit_module *m = api_load(ctx, "kernels/reduce.cl.spv");
    REQUIRE(m, "load: %s", spvjit_last_error());
    CHECK(spvjit_module_flavour(m) == SPVJIT_FLAVOUR_KERNEL, "Kernel flavour");
    spvjit_module_info mi;
    spvjit_entry_info ei;
    CHECK(spvjit_module_info_get(m, &mi) == SPVJIT_OK && mi.flavour == SPVJIT_FLAVOUR_KERNEL &&
              !strcmp(mi.addressing_model_name, "Physical64") && !strcmp(mi.memory_model_name, "OpenCL"),
          "module facts: %s %s", mi.addressing_model_name, mi.memory_model_name);
    CHECK(spvjit_module_entry_info(m, 0, &ei) == SPVJIT_OK && !strcmp(ei.execution_model_name, "Kernel") &&
              ei.local_size_kind == SPVJIT_LOCAL_SIZE_DISPATCH && !ei.local_size[0] && ei.wg_memory_bytes == 0,
          "entry: %s kind %d", ei.execution_model_name, ei.local_size_kind);
    CHECK(spvjit_module_spec_count(m) == 0, "no spec constants");
    static const spvjit_resource_kind want[4] = { SPVJIT_RES_ARG_POINTER, SPVJIT_RES_ARG_POINTER, SPVJIT_RES_ARG_VALUE,
                                                  SPVJIT_RES_ARG_LOCAL };
    unsigned n = spvjit_module_resource_count(m, "reduce");
    CHECK(n == 4, "four arguments: %u", n);
    for (unsigned i = 0; i < n && i < 4; i++) {
        spvjit_resource_info r;
        spvjit_module_resource_info(m, "reduce", i, &r);
        CHECK(r.index == i && r.kind == want[i], "argument %u: index %u kind %d", i, r.index, r.kind);
        static const char *const names[4] = { "src", "partial", "n", "scratch" };
        static const char *const spaces[4] = { "CrossWorkgroup", "CrossWorkgroup", "Function", "Workgroup" };
        CHECK(r.name && !strcmp(r.name, names[i]) && !strcmp(r.type_name, i == 2 ? "int" : "float") &&
                  (i == 2 || !strcmp(r.storage_class, spaces[i])),
              "argument %u: %s %s %s", i, r.name ? r.name : "?", r.type_name, r.storage_class);
        if (i == 2)
            CHECK(r.size == 4, "n is 4 bytes: %llu", (unsigned long long)r.size);
    }
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
}

TEST(api_load_errors)
{
    spvjit_context *ctx = api_ctx(0);
    spvjit_module *m = NULL;
    CHECK(spvjit_module_load_file(ctx, test_data_path("kernels/no_such.spv"), &m) == SPVJIT_ERROR_NOT_FOUND,
          "missing file");
    has(spvjit_last_error(), "no_such.spv");
    static const uint32_t junk[5] = { 0x07230203, 0x00010000, 0, 1, 0 }; /* a header, then nothing */
    spvjit_status st = spvjit_module_load(ctx, junk, 6, "junk", &m);
    CHECK(st == SPVJIT_ERROR_INVALID_MODULE && !m, "6 bytes: %s", spvjit_status_name(st));
    CHECK(*spvjit_last_error(), "a message");
    m = api_load(ctx, "kernels/saxpy.comp.spv");
    REQUIRE(m, "load: %s", spvjit_last_error());
    spvjit_kernel *k = NULL;
    CHECK(spvjit_kernel_build(m, "nope", NULL, NULL, &k) == SPVJIT_ERROR_NOT_FOUND, "unknown entry");
    has(spvjit_last_error(), "\"nope\"");
    has(spvjit_last_error(), "\"main\"");
    CHECK(spvjit_kernel_build(m, NULL, NULL, &(spvjit_build_options){ .opt_level = 7 }, &k) ==
              SPVJIT_ERROR_INVALID_ARGUMENT,
          "opt level 7");
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
}

TEST(api_spec_errors)
{
    spvjit_context *ctx = api_ctx(0);
    spvjit_module *m = api_load(ctx, "kernels/conv3x3.comp.spv");
    REQUIRE(m, "load: %s", spvjit_last_error());
    spvjit_specs *s;
    spvjit_kernel *k = NULL;

    spvjit_specs_create(&s);
    spvjit_spec_set_f32(s, 12, 1.0f);
    CHECK(spvjit_kernel_build(m, NULL, s, NULL, &k) == SPVJIT_ERROR_SPEC_CONSTANT && !k, "unknown SpecId 12");
    has(spvjit_last_error(), "12");
    has(spvjit_last_error(),
        "SpecId 12 is not in the module; it has SpecIds 0 (K0, f32), 1 (K1, f32)"); /* the ids it has */
    has(spvjit_last_error(), "8 (K8, f32)");
    spvjit_specs_destroy(s);

    spvjit_specs_create(&s);
    spvjit_spec_set_u32(s, 4, 3); /* K4 is a float */
    CHECK(spvjit_kernel_build(m, NULL, s, NULL, &k) == SPVJIT_ERROR_SPEC_CONSTANT, "u32 for a float");
    has(spvjit_last_error(), "f32");
    has(spvjit_last_error(), "u32");
    spvjit_specs_destroy(s);

    spvjit_specs_create(&s);
    spvjit_spec_set_f64(s, 4, 0.1); /* another width, not exactly an f32 */
    CHECK(spvjit_kernel_build(m, NULL, s, NULL, &k) == SPVJIT_ERROR_SPEC_CONSTANT, "f64 0.1 for a float");
    has(spvjit_last_error(), "the f64 value 0.1 has no exact f32 value");
    spvjit_spec_set_f64(s, 4, 0.5); /* exactly an f32 */
    CHECK(spvjit_kernel_build(m, NULL, s, NULL, &k) == SPVJIT_OK, "f64 0.5 for a float: %s", spvjit_last_error());
    spvjit_kernel_destroy(k);
    k = NULL;
    spvjit_specs_destroy(s);

    spvjit_specs_create(&s);
    CHECK(spvjit_spec_set_text(s, 4, "banana") == SPVJIT_ERROR_SPEC_CONSTANT ||
              spvjit_kernel_build(m, NULL, s, NULL, &k) == SPVJIT_ERROR_SPEC_CONSTANT,
          "text that is no number");
    spvjit_specs_destroy(s);
    CHECK(spvjit_spec_set(NULL, 0, SPVJIT_TYPE_U8, 1) == SPVJIT_ERROR_INVALID_ARGUMENT, "NULL specs");
    spvjit_specs_create(&s);
    CHECK(spvjit_spec_set(s, 0, SPVJIT_TYPE_U8, 0x1FF) == SPVJIT_ERROR_SPEC_CONSTANT, "bits beyond a u8");
    spvjit_specs_destroy(s);
    spvjit_module_destroy(m);

    /* Integers convert between widths when the value fits. */
    m = api_load(ctx, "kernels/mm.comp.spv");
    REQUIRE(m, "load: %s", spvjit_last_error());
    spvjit_specs_create(&s);
    spvjit_spec_set_i64(s, 0, -1);
    CHECK(spvjit_kernel_build(m, NULL, s, NULL, &k) == SPVJIT_ERROR_SPEC_CONSTANT, "-1 for a u32");
    has(spvjit_last_error(), "range");
    spvjit_spec_set_u64(s, 0, 1ull << 32);
    CHECK(spvjit_kernel_build(m, NULL, s, NULL, &k) == SPVJIT_ERROR_SPEC_CONSTANT, "2^32 for a u32");
    spvjit_spec_set_text(s, 0, "8");
    spvjit_spec_set_text(s, 0, "true"); /* the later setting wins */
    CHECK(spvjit_kernel_build(m, NULL, s, NULL, &k) == SPVJIT_ERROR_SPEC_CONSTANT, "bool text for a u32");
    spvjit_specs_destroy(s);
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
}

TEST(api_binding_errors_shader)
{
    spvjit_context *ctx = api_ctx(0);
    spvjit_module *m = api_load(ctx, "kernels/mm.comp.spv");
    REQUIRE(m, "load: %s", spvjit_last_error());
    spvjit_kernel *k = NULL;
    REQUIRE(spvjit_kernel_build(m, NULL, NULL, NULL, &k) == SPVJIT_OK, "build: %s", spvjit_last_error());
    float buf[64];
    uint32_t n = 8;
    spvjit_dispatch_info d = { .groups = { 1, 1, 1 } };
    CHECK(spvjit_bind_buffer(k, 1, 0, buf, sizeof buf) == SPVJIT_ERROR_BINDING, "set 1 does not exist");
    has(spvjit_last_error(), "set 1 binding 0");
    has(spvjit_last_error(), "0/2");
    CHECK(spvjit_set_arg_value(k, 0, &n, 4) == SPVJIT_ERROR_BINDING, "kernel args on a shader");
    spvjit_bind_buffer(k, 0, 0, buf, sizeof buf);
    spvjit_bind_buffer(k, 0, 1, buf, sizeof buf);
    spvjit_set_push_constants(k, &n, 4);
    CHECK(spvjit_dispatch(k, &d) == SPVJIT_ERROR_BINDING, "binding 2 missing");
    has(spvjit_last_error(), "set 0 binding 2");
    has(spvjit_last_error(), "MatC");
    has(spvjit_last_error(), "not bound");
    spvjit_bind_buffer(k, 0, 2, buf, sizeof buf);
    spvjit_set_push_constants(k, &n, 2);
    CHECK(spvjit_dispatch(k, &d) == SPVJIT_ERROR_BINDING, "push constants too small");
    has(spvjit_last_error(), "push constants: 2 bytes");
    spvjit_module_destroy(m);
    spvjit_kernel_destroy(k);

    /* A buffer smaller than a block's fixed part: a uniform-free module has
     * none with a fixed part, so check the rule on conv3x3's push block
     * instead (8 bytes: w, h). */
    m = api_load(ctx, "kernels/conv3x3.comp.spv");
    REQUIRE(m, "load: %s", spvjit_last_error());
    REQUIRE(spvjit_kernel_build(m, NULL, NULL, NULL, &k) == SPVJIT_OK, "build: %s", spvjit_last_error());
    spvjit_bind_buffer(k, 0, 0, buf, sizeof buf);
    spvjit_bind_buffer(k, 0, 1, buf, sizeof buf);
    spvjit_set_push_constants(k, &n, 4);
    CHECK(spvjit_dispatch(k, &d) == SPVJIT_ERROR_BINDING, "4 of 8 push bytes");
    has(spvjit_last_error(), "needs 8");
    spvjit_kernel_destroy(k);
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
}

TEST(api_binding_errors_kernel)
{
    spvjit_context *ctx = api_ctx(0);
    spvjit_module *m = api_load(ctx, "kernels/reduce.cl.spv");
    REQUIRE(m, "load: %s", spvjit_last_error());
    spvjit_kernel *k = NULL;
    REQUIRE(spvjit_kernel_build(m, "reduce", NULL, NULL, &k) == SPVJIT_OK, "build: %s", spvjit_last_error());
    float buf[64];
    uint64_t n64 = 64;
    uint32_t n = 64;
    spvjit_dispatch_info d = { .work_dim = 1, .global_size = { 64 }, .local_size = { 64 } };
    CHECK(spvjit_set_arg_value(k, 2, &n64, 8) == SPVJIT_ERROR_BINDING, "8 bytes for a uint");
    has(spvjit_last_error(), "argument 2 (n) is 4 bytes; 8 given");
    CHECK(spvjit_set_arg_buffer(k, 2, buf, sizeof buf) == SPVJIT_ERROR_BINDING, "buffer for a by-value arg");
    has(spvjit_last_error(), "spvjit_set_arg_value");
    CHECK(spvjit_set_arg_value(k, 3, &n, 4) == SPVJIT_ERROR_BINDING, "value for a local arg");
    has(spvjit_last_error(), "spvjit_set_arg_local");
    CHECK(spvjit_set_arg_local(k, 3, 0) == SPVJIT_ERROR_BINDING, "local size 0");
    CHECK(spvjit_set_arg_buffer(k, 9, buf, 4) == SPVJIT_ERROR_BINDING, "argument 9");
    has(spvjit_last_error(), "4 arguments");
    /* robust (the default) checks every access: any size binds; unchecked code must not read past it */
    CHECK(spvjit_set_arg_buffer(k, 0, buf, 2) == SPVJIT_OK, "2 bytes, robust: %s", spvjit_last_error());
    spvjit_kernel *ku = NULL;
    REQUIRE(spvjit_kernel_build(m, "reduce", NULL, &(spvjit_build_options){ .memory = SPVJIT_MEMORY_UNCHECKED }, &ku) ==
                SPVJIT_OK,
            "build unchecked: %s", spvjit_last_error());
    CHECK(spvjit_set_arg_buffer(ku, 0, buf, 2) == SPVJIT_ERROR_BINDING, "2 bytes: less than one float (unchecked)");
    has(spvjit_last_error(), "less than one 4-byte element");
    spvjit_kernel_destroy(ku);
    CHECK(spvjit_bind_buffer(k, 0, 0, buf, 4) == SPVJIT_ERROR_BINDING, "set/binding on a Kernel module");
    spvjit_set_arg_buffer(k, 0, buf, sizeof buf);
    spvjit_set_arg_buffer(k, 1, buf, sizeof buf);
    spvjit_set_arg_value(k, 2, &n, 4);
    CHECK(spvjit_dispatch(k, &d) == SPVJIT_ERROR_BINDING, "scratch not set");
    has(spvjit_last_error(), "argument 3");
    has(spvjit_last_error(), "scratch");
    has(spvjit_last_error(), "not set");
    CHECK(spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { 1, 1, 1 } }) == SPVJIT_ERROR_BINDING, "still unset");
    spvjit_set_arg_local(k, 3, 64 * 4);
    CHECK(spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { 1, 1, 1 } }) == SPVJIT_ERROR_DISPATCH,
          "group counts without a fixed local size");
    has(spvjit_last_error(), "no fixed work-group size");
    CHECK(spvjit_dispatch(k, &(spvjit_dispatch_info){ .work_dim = 4 }) == SPVJIT_ERROR_DISPATCH, "work_dim 4");
    CHECK(spvjit_dispatch(k, NULL) == SPVJIT_ERROR_INVALID_ARGUMENT, "NULL info");
    spvjit_kernel_destroy(k);
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
}

TEST(api_destroy_in_any_order)
{
    spvjit_context *ctx = api_ctx(0);
    spvjit_module *m = api_load(ctx, "kernels/saxpy.cl.spv");
    REQUIRE(m, "load: %s", spvjit_last_error());
    spvjit_kernel *k = NULL;
    REQUIRE(spvjit_kernel_build(m, NULL, NULL, NULL, &k) == SPVJIT_OK, "build: %s", spvjit_last_error());
    spvjit_context_destroy(ctx);
    spvjit_module_destroy(m);
    /* The kernel keeps what it needs: it still compiles (local size at dispatch) and runs. */
    float x[10], y[10];
    uint32_t n = 10;
    for (int i = 0; i < 10; i++) {
        x[i] = (float)i;
        y[i] = 1;
    }
    spvjit_set_arg_buffer(k, 0, x, sizeof x);
    spvjit_set_arg_buffer(k, 1, y, sizeof y);
    spvjit_set_arg_value(k, 2, &n, 4);
    CHECK(spvjit_dispatch(k, &(spvjit_dispatch_info){ .work_dim = 1, .global_size = { 10 } }) == SPVJIT_OK,
          "dispatch: %s", spvjit_last_error());
    CHECK(y[9] == 19.0f, "y[9] = %g", y[9]);
    spvjit_kernel_destroy(k);
}

TEST(api_threads_option)
{
    spvjit_context *ctx = NULL;
    CHECK(spvjit_context_create(&(spvjit_context_options){ .threads = 100000 }, &ctx) == SPVJIT_ERROR_INVALID_ARGUMENT,
          "100000 threads");
    CHECK(spvjit_context_create(&(spvjit_context_options){ .threads = 1, .disk_cache_dir = "" }, &ctx) == SPVJIT_OK,
          "one thread");
    spvjit_module *m = api_load(ctx, "kernels/saxpy.comp.spv");
    spvjit_kernel *k = NULL;
    REQUIRE(m && spvjit_kernel_build(m, NULL, NULL, NULL, &k) == SPVJIT_OK, "build: %s", spvjit_last_error());
    float x[200], y[200];
    uint32_t n = 200;
    for (int i = 0; i < 200; i++) {
        x[i] = (float)i;
        y[i] = 1;
    }
    spvjit_bind_buffer(k, 0, 0, x, sizeof x);
    spvjit_bind_buffer(k, 0, 1, y, sizeof y);
    spvjit_set_push_constants(k, &n, 4);
    CHECK(spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { 4, 1, 1 } }) == SPVJIT_OK, "dispatch: %s",
          spvjit_last_error());
    CHECK(y[199] == 399.0f, "y[199] = %g", y[199]);
    spvjit_kernel_destroy(k);
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
}

/* Buffers with a fixed part: a uniform block and a storage block with a
 * header before its runtime array (compiled here with glslangValidator). */
static const char *fixed_part_glsl =
    "#version 450\n"
    "layout(local_size_x = 8) in;\n"
    "layout(set = 0, binding = 3, std140) uniform Params { vec4 scale; uint count; } p;\n"
    "layout(set = 1, binding = 0, std430) buffer Out { uint header[4]; float data[]; } o;\n"
    "void main() {\n"
    "    uint i = gl_GlobalInvocationID.x;\n"
    "    if (i == 0u) o.header[0] = p.count;\n"
    "    if (i < p.count) o.data[i] = p.scale.y * float(i);\n"
    "}\n";

TEST(api_binding_errors_fixed_part)
{
    char dir[] = "/tmp/spvjit-fixed-XXXXXX";
    REQUIRE(mkdtemp(dir), "mkdtemp");
    char src[256], spv[256], cmd[1024];
    snprintf(src, sizeof src, "%s/fixed.comp", dir);
    snprintf(spv, sizeof spv, "%s/fixed.spv", dir);
    FILE *f = fopen(src, "w");
    REQUIRE(f, "cannot write %s", src);
    fputs(fixed_part_glsl, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "glslangValidator -V --target-env vulkan1.1 -o '%s' '%s'", spv, src);
    char *out = NULL;
    int rc = test_run_capture(cmd, &out);
    CHECK(rc == 0, "glslangValidator: %s", out ? out : "");
    free(out);
    spvjit_context *ctx = api_ctx(0);
    spvjit_module *m = NULL;
    spvjit_kernel *k = NULL;
    /* unchecked: the binding check guards what the code would read past */
    const spvjit_build_options unchecked = { .memory = SPVJIT_MEMORY_UNCHECKED };
    if (rc == 0 && spvjit_module_load_file(ctx, spv, &m) == SPVJIT_OK &&
        spvjit_kernel_build(m, NULL, NULL, &unchecked, &k) == SPVJIT_OK) {
        float params[8] = { 1.0f, 2.5f, 3.0f, 4.0f };
        uint32_t count = 13;
        memcpy(&params[4], &count, 4);
        unsigned char outbuf[16 + 13 * 4];
        memset(outbuf, 0, sizeof outbuf);
        spvjit_dispatch_info d = { .groups = { 2, 1, 1 } };
        spvjit_bind_buffer(k, 0, 3, params, 8); /* 8 bytes: too small */
        spvjit_bind_buffer(k, 1, 0, outbuf, 8); /* less than the 16-byte header */
        CHECK(spvjit_dispatch(k, &d) == SPVJIT_ERROR_BINDING, "too small uniform block");
        has(spvjit_last_error(), "set 0 binding 3");
        has(spvjit_last_error(), "(p)");
        has(spvjit_last_error(), "the buffer is 8 bytes");
        spvjit_bind_buffer(k, 0, 3, params, sizeof params);
        CHECK(spvjit_dispatch(k, &d) == SPVJIT_ERROR_BINDING, "too small header");
        has(spvjit_last_error(), "set 1 binding 0");
        has(spvjit_last_error(), "needs at least 16");
        has(spvjit_last_error(), "runtime array");
        spvjit_bind_buffer(k, 1, 0, outbuf, sizeof outbuf);
        CHECK(spvjit_dispatch(k, &d) == SPVJIT_OK, "dispatch: %s", spvjit_last_error());
        uint32_t header;
        memcpy(&header, outbuf, 4);
        CHECK(header == 13, "header %u", header);
        for (uint32_t i = 0; i < 13; i++) {
            float v;
            memcpy(&v, outbuf + 16 + 4 * i, 4);
            CHECK(v == 2.5f * (float)i, "data[%u] = %g", i, v);
        }
    } else {
        CHECK(0, "load/build: %s", spvjit_last_error());
    }
    spvjit_kernel_destroy(k);
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    test_run_capture(cmd, NULL);
}

/* A local size computed from spec constants (spec_localsizeid.spvasm: y = SpecId 1 / 2),
 * an image the JIT cannot bind, a non-compute entry point. */
TEST(api_reflection_local_size_and_unsupported)
{
    spvjit_context *ctx = api_ctx(0);
    spvjit_module *m = api_load(ctx, "kernels/spec_localsizeid.spv");
    REQUIRE(m, "load: %s", spvjit_last_error());
    spvjit_entry_info ei;
    CHECK(spvjit_module_entry_info(m, 0, &ei) == SPVJIT_OK && ei.local_size_kind == SPVJIT_LOCAL_SIZE_SPEC &&
              ei.local_size_spec_id[0] == 0 && ei.local_size_spec_id[1] == SPVJIT_NO_SPEC_ID &&
              ei.local_size_spec_id[2] == SPVJIT_NO_SPEC_ID && ei.local_size[0] == 4 && ei.local_size[1] == 3 &&
              ei.local_size[2] == 1 && ei.wg_memory_bytes == 4 * 3 * 4,
          "LocalSizeId: ids %u %u %u, %u,%u,%u, wg %llu", ei.local_size_spec_id[0], ei.local_size_spec_id[1],
          ei.local_size_spec_id[2], ei.local_size[0], ei.local_size[1], ei.local_size[2],
          (unsigned long long)ei.wg_memory_bytes);
    spvjit_spec_info si;
    CHECK(spvjit_module_spec_info(m, 1, &si) == SPVJIT_OK && si.spec_id == 1 &&
              si.sets == (SPVJIT_SETS_LOCAL_SIZE_Y | SPVJIT_SETS_ARRAY_LENGTH),
          "SpecId 1 sets %#x", si.sets);
    spvjit_module_destroy(m);

    static const char src[] =
        "OpCapability Shader\nOpMemoryModel Logical GLSL450\n"
        "OpEntryPoint GLCompute %main \"main\"\nOpEntryPoint Vertex %vs \"vs\"\n"
        "OpExecutionMode %main LocalSize 8 1 1\nOpName %img \"img\"\n"
        "OpDecorate %img DescriptorSet 0\nOpDecorate %img Binding 3\n"
        "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%float = OpTypeFloat 32\n"
        "%im = OpTypeImage %float 2D 0 0 0 1 Unknown\n%pim = OpTypePointer UniformConstant %im\n"
        "%img = OpVariable %pim UniformConstant\n"
        "%main = OpFunction %void None %fn\n%l = OpLabel\n%x = OpLoad %im %img\nOpReturn\nOpFunctionEnd\n"
        "%vs = OpFunction %void None %fn\n%l2 = OpLabel\nOpReturn\nOpFunctionEnd\n";
    char spv[] = "/tmp/spvjit_refl_XXXXXX";
    int fd = mkstemp(spv);
    REQUIRE(fd >= 0 && close(fd) == 0 && test_assemble(src, "vulkan1.1", spv), "assemble");
    REQUIRE(spvjit_module_load_file(ctx, spv, &m) == SPVJIT_OK, "load: %s", spvjit_last_error());
    spvjit_resource_info r;
    CHECK(spvjit_module_resource_count(m, "main") == 1 && spvjit_module_resource_info(m, "main", 0, &r) == SPVJIT_OK &&
              r.kind == SPVJIT_RES_UNSUPPORTED && r.set == 0 && r.binding == 3 && !strcmp(r.name, "img") &&
              !strcmp(r.storage_class, "UniformConstant"),
          "the image: kind %d %u:%u %s", r.kind, r.set, r.binding, r.storage_class);
    CHECK(spvjit_module_entry_info(m, 0, &ei) == SPVJIT_OK && ei.is_compute &&
              ei.local_size_kind == SPVJIT_LOCAL_SIZE_FIXED && ei.local_size[0] == 8,
          "main: kind %d ls %u", ei.local_size_kind, ei.local_size[0]);
    CHECK(spvjit_module_entry_info(m, 1, &ei) == SPVJIT_OK && !ei.is_compute && !strcmp(ei.name, "vs") &&
              !strcmp(ei.execution_model_name, "Vertex"),
          "vs: compute %d %s", ei.is_compute, ei.execution_model_name);
    spvjit_module_destroy(m);
    remove(spv);
    spvjit_context_destroy(ctx);
}
