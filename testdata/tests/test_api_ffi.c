/* testdata/tests/test_api_ffi.c — spvjit_call_exported's libffi side.
 *
 * The signature comes from a SPIR-V module assembled here (SPIRV-Tools);
 * the callee is a plain C function with that signature, so the lane loop,
 * uniform/varying arguments and result narrowing are checked against direct
 * C calls; then the real thing through the JIT (more in test_api_exported.c). */
/* libspirv.h defines (not declares) a const in C; rename ours so it does not
 * clash with the library's copy at link time. */
#define kDefaultMaxIdBound test_api_ffi_kDefaultMaxIdBound
#include <spirv-tools/libspirv.h>
#undef kDefaultMaxIdBound

#include "api_test_util.h"
#include "lib/call_exported.h"
#include "spirv/module.h"

static const char *exports_asm = "OpCapability Addresses\n"
                                 "OpCapability Linkage\n"
                                 "OpCapability Kernel\n"
                                 "OpCapability Int8\n"
                                 "OpCapability Int16\n"
                                 "OpCapability Int64\n"
                                 "OpCapability Float64\n"
                                 "OpMemoryModel Physical64 OpenCL\n"
                                 "OpDecorate %f LinkageAttributes \"axpb\" Export\n"
                                 "OpDecorate %g LinkageAttributes \"mix16\" Export\n"
                                 "OpDecorate %h LinkageAttributes \"scale\" Export\n"
                                 "%void = OpTypeVoid\n"
                                 "%float = OpTypeFloat 32\n"
                                 "%double = OpTypeFloat 64\n"
                                 "%uint = OpTypeInt 32 0\n"
                                 "%ushort = OpTypeInt 16 0\n"
                                 "%uchar = OpTypeInt 8 0\n"
                                 "%ulong = OpTypeInt 64 0\n"
                                 "%pdouble = OpTypePointer CrossWorkgroup %double\n"
                                 "%ft = OpTypeFunction %float %float %float %uint\n"
                                 "%gt = OpTypeFunction %ushort %ushort %uchar\n"
                                 "%ht = OpTypeFunction %void %pdouble %ulong %double\n"
                                 "%f = OpFunction %float None %ft\n"
                                 "%a = OpFunctionParameter %float\n"
                                 "%b = OpFunctionParameter %float\n"
                                 "%c = OpFunctionParameter %uint\n"
                                 "%fl = OpLabel\n"
                                 "%cf = OpConvertUToF %float %c\n"
                                 "%m = OpFMul %float %a %b\n"
                                 "%r = OpFAdd %float %m %cf\n"
                                 "OpReturnValue %r\n"
                                 "OpFunctionEnd\n"
                                 "%g = OpFunction %ushort None %gt\n"
                                 "%x = OpFunctionParameter %ushort\n"
                                 "%y = OpFunctionParameter %uchar\n"
                                 "%gl = OpLabel\n"
                                 "%y16 = OpUConvert %ushort %y\n"
                                 "%s = OpIAdd %ushort %x %y16\n"
                                 "OpReturnValue %s\n"
                                 "OpFunctionEnd\n"
                                 "%h = OpFunction %void None %ht\n"
                                 "%p = OpFunctionParameter %pdouble\n"
                                 "%i = OpFunctionParameter %ulong\n"
                                 "%k = OpFunctionParameter %double\n"
                                 "%hl = OpLabel\n"
                                 "%e = OpInBoundsPtrAccessChain %pdouble %p %i\n"
                                 "%v = OpLoad %double %e\n"
                                 "%vk = OpFMul %double %v %k\n"
                                 "OpStore %e %vk\n"
                                 "OpReturn\n"
                                 "OpFunctionEnd\n";

static void *assemble(const char *text, size_t *nbytes)
{
    spv_context c = spvContextCreate(SPV_ENV_OPENCL_2_2);
    spv_binary bin = NULL;
    spv_diagnostic diag = NULL;
    void *out = NULL;
    if (spvTextToBinary(c, text, strlen(text), &bin, &diag) == SPV_SUCCESS) {
        *nbytes = bin->wordCount * 4;
        out = malloc(*nbytes);
        memcpy(out, bin->code, *nbytes);
    } else {
        CHECK(0, "assembly failed: %s", diag ? diag->error : "?");
    }
    spvDiagnosticDestroy(diag);
    spvBinaryDestroy(bin);
    spvContextDestroy(c);
    return out;
}

/* The C counterparts of the exported functions. */
static float c_axpb(float a, float b, uint32_t c)
{
    float m = a * b;
    return m + (float)c;
}
static uint16_t c_mix16(uint16_t x, uint8_t y)
{
    return (uint16_t)(x + y);
}
static void c_scale(double *p, uint64_t i, double k)
{
    p[i] *= k;
}

static const spv_function *func_of(const spv_module *m, uint32_t id)
{
    for (uint32_t i = 0; i < m->nfuncs; i++)
        if (m->funcs[i].id == id)
            return &m->funcs[i];
    return NULL;
}

TEST_TIER_FREE(api_ffi_lanes_against_c)
{
    size_t nbytes = 0;
    void *bytes = assemble(exports_asm, &nbytes);
    REQUIRE(bytes, "no module");
    spv_diag d;
    spv_module *m = spv_module_load(bytes, nbytes, "exports", NULL, &d);
    REQUIRE(m, "load: %s", d.msg);

    uint32_t fid = api_find_export(m, "axpb"), gid = api_find_export(m, "mix16"), hid = api_find_export(m, "scale");
    REQUIRE(fid && gid && hid && !api_find_export(m, "nope"), "exports found by name");
    api_ffi_sig fs, gs, hs;
    REQUIRE(api_ffi_sig_make(m, func_of(m, fid)->fn_type, &fs, &d) == 0, "axpb sig: %s", d.msg);
    REQUIRE(api_ffi_sig_make(m, func_of(m, gid)->fn_type, &gs, &d) == 0, "mix16 sig: %s", d.msg);
    REQUIRE(api_ffi_sig_make(m, func_of(m, hid)->fn_type, &hs, &d) == 0, "scale sig: %s", d.msg);
    CHECK(fs.nargs == 3 && fs.ret_size == 4 && gs.ret_size == 2 && hs.ret_size == 0, "signature shapes");

    enum { LANES = 37 };
    uint64_t seed = 2024;
    float a[LANES], b = 1.5f, r[LANES];
    uint32_t c[LANES];
    for (int i = 0; i < LANES; i++) {
        a[i] = test_rand_float(&seed, -10, 10);
        c[i] = (uint32_t)(test_rand_u64(&seed) % 1000);
    }
    spvjit_call_arg fa[3] = { { a, sizeof a, true }, { &b, sizeof b, false }, { c, sizeof c, true } };
    api_ffi_call_lanes(&fs, (void (*)(void))c_axpb, LANES, fa, r, NULL, NULL);
    for (int i = 0; i < LANES; i++)
        if (r[i] != c_axpb(a[i], b, c[i])) {
            CHECK(0, "axpb lane %d: %g, expected %g", i, r[i], c_axpb(a[i], b, c[i]));
            break;
        }

    uint16_t x[LANES], r16[LANES + 1];
    uint8_t y = 200;
    r16[LANES] = 0xBEEF; /* results must not spill past lanes * 2 bytes */
    for (int i = 0; i < LANES; i++)
        x[i] = (uint16_t)test_rand_u64(&seed);
    spvjit_call_arg ga[2] = { { x, sizeof x, true }, { &y, sizeof y, false } };
    api_ffi_call_lanes(&gs, (void (*)(void))c_mix16, LANES, ga, r16, NULL, NULL);
    for (int i = 0; i < LANES; i++)
        CHECK(r16[i] == c_mix16(x[i], y), "mix16 lane %d: %u, expected %u", i, r16[i], c_mix16(x[i], y));
    CHECK(r16[LANES] == 0xBEEF, "wrote past the results");

    double data[LANES], want[LANES], k = -0.75;
    uint64_t idx[LANES];
    double *base = data;
    for (int i = 0; i < LANES; i++) {
        data[i] = want[i] = test_rand_float(&seed, -5, 5);
        idx[i] = (uint64_t)i;
        want[i] *= k;
    }
    spvjit_call_arg ha[3] = { { &base, sizeof base, false }, { idx, sizeof idx, true }, { &k, sizeof k, false } };
    api_ffi_call_lanes(&hs, (void (*)(void))c_scale, LANES, ha, NULL, NULL, NULL);
    CHECK(!memcmp(data, want, sizeof data), "scale through a uniform pointer");
    spv_module_free(m);
    free(bytes);
}

/* The module of exports_asm in a fresh context, or NULL (nothing left behind). */
static spvjit_module *load_exports_asm(spvjit_context **ctx)
{
    size_t nbytes = 0;
    void *bytes = assemble(exports_asm, &nbytes);
    spvjit_module *m = NULL;
    *ctx = bytes ? api_ctx(0) : NULL;
    if (*ctx && spvjit_module_load(*ctx, bytes, nbytes, "exports", &m) != SPVJIT_OK) {
        spvjit_context_destroy(*ctx);
        *ctx = NULL;
    }
    free(bytes);
    return m;
}

TEST(api_call_exported_reports)
{
    spvjit_context *ctx;
    spvjit_module *m = load_exports_asm(&ctx);
    REQUIRE(m, "load: %s", spvjit_last_error());
    float a = 1, b = 2, r;
    uint32_t c = 3;
    spvjit_call_arg args[3] = { { &a, 4, false }, { &b, 4, false }, { &c, 4, false } };
    CHECK(spvjit_call_exported(m, "nope", NULL, 1, args, 3, &r, sizeof r) == SPVJIT_ERROR_NOT_FOUND, "unknown name");
    CHECK(strstr(spvjit_last_error(), "\"axpb\"") && strstr(spvjit_last_error(), "\"mix16\""), "lists the exports: %s",
          spvjit_last_error());
    CHECK(spvjit_call_exported(m, "axpb", NULL, 1, args, 2, &r, sizeof r) == SPVJIT_ERROR_INVALID_ARGUMENT,
          "2 of 3 args");
    CHECK(strstr(spvjit_last_error(), "takes 3 arguments"), "%s", spvjit_last_error());
    spvjit_status st = spvjit_call_exported(m, "axpb", NULL, 1, args, 3, &r, sizeof r);
    CHECK(st == SPVJIT_OK && r == 5.0f, "axpb: %s %s (%g)", spvjit_status_name(st), spvjit_last_error(), r);
    uint16_t x = 65000, r16 = 0;
    uint8_t y = 200;
    spvjit_call_arg margs[2] = { { &x, sizeof x, false }, { &y, sizeof y, false } };
    st = spvjit_call_exported(m, "mix16", NULL, 1, margs, 2, &r16, sizeof r16);
    CHECK(st == SPVJIT_OK && r16 == (uint16_t)(x + y), "mix16: %s %s (%u)", spvjit_status_name(st), spvjit_last_error(),
          r16);
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
}

/* Reflection of the module above (no OpName: parameters unnamed), and a
 * function with more parameters than a call can pass. */
TEST(api_export_info_of_assembled_modules)
{
    spvjit_context *ctx;
    spvjit_module *m = load_exports_asm(&ctx);
    REQUIRE(m, "load: %s", spvjit_last_error());
    REQUIRE(spvjit_module_export_count(m) == 3, "%u exports", spvjit_module_export_count(m));
    spvjit_export_info f, g, h;
    REQUIRE(spvjit_module_export_info(m, 0, &f) == SPVJIT_OK && spvjit_module_export_info(m, 1, &g) == SPVJIT_OK &&
                spvjit_module_export_info(m, 2, &h) == SPVJIT_OK,
            "info: %s", spvjit_last_error());
    CHECK(!strcmp(f.name, "axpb") && !strcmp(g.name, "mix16") && !strcmp(h.name, "scale"), "in decoration order");
    CHECK(f.nparams == 3 && f.result.type == SPVJIT_TYPE_F32 && f.params[0].type == SPVJIT_TYPE_F32 &&
              f.params[2].type == SPVJIT_TYPE_U32 && f.params[2].size == 4 && !f.params[0].name && !f.unsupported,
          "axpb: float(float, float, uint)");
    CHECK(g.nparams == 2 && g.result.type == SPVJIT_TYPE_U16 && g.result.size == 2 &&
              g.params[1].type == SPVJIT_TYPE_U8 && g.params[1].size == 1,
          "mix16: ushort(ushort, uchar)");
    CHECK(h.nparams == 3 && h.result.kind == SPVJIT_VALUE_VOID && h.params[0].kind == SPVJIT_VALUE_POINTER &&
              !strcmp(h.params[0].storage_class, "CrossWorkgroup") && h.params[0].elem_type == SPVJIT_TYPE_F64 &&
              !h.params[0].readonly && h.params[1].type == SPVJIT_TYPE_U64 && h.params[2].type == SPVJIT_TYPE_F64,
          "scale: void(CrossWorkgroup double*, ulong, double)");
    spvjit_module_destroy(m);

    /* 65 parameters: described, not callable */
    char *text = malloc(1 << 16);
    REQUIRE(text, "memory");
    size_t k = (size_t)snprintf(text, 1 << 16,
                                "OpCapability Addresses\nOpCapability Linkage\nOpCapability Kernel\n"
                                "OpMemoryModel Physical64 OpenCL\nOpDecorate %%f LinkageAttributes \"many\" Export\n"
                                "%%float = OpTypeFloat 32\n%%ft = OpTypeFunction %%float");
    for (int i = 0; i < 65; i++)
        k += (size_t)snprintf(text + k, (1 << 16) - k, " %%float");
    k += (size_t)snprintf(text + k, (1 << 16) - k, "\n%%f = OpFunction %%float None %%ft\n");
    for (int i = 0; i < 65; i++)
        k += (size_t)snprintf(text + k, (1 << 16) - k, "%%p%d = OpFunctionParameter %%float\n", i);
    snprintf(text + k, (1 << 16) - k, "%%l = OpLabel\nOpReturnValue %%p64\nOpFunctionEnd\n");
    size_t nbytes = 0;
    void *bytes = assemble(text, &nbytes);
    free(text);
    REQUIRE(bytes, "no module");
    REQUIRE(spvjit_module_load(ctx, bytes, nbytes, "many", &m) == SPVJIT_OK, "load: %s", spvjit_last_error());
    free(bytes);
    REQUIRE(spvjit_module_export_info(m, 0, &f) == SPVJIT_OK, "info: %s", spvjit_last_error());
    CHECK(f.nparams == 65 && f.params[64].type == SPVJIT_TYPE_F32 && f.unsupported &&
              strstr(f.unsupported, "65 parameters; at most 64"),
          "many: %u params, %s", f.nparams, f.unsupported ? f.unsupported : "callable");
    CHECK(spvjit_call_exported(m, "many", NULL, 1, NULL, 0, NULL, 0) == SPVJIT_ERROR_UNSUPPORTED &&
              strstr(spvjit_last_error(), "at most 64"),
          "call: %s", spvjit_last_error());
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
}
