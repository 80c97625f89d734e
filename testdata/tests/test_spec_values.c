/* testdata/tests/test_spec_values.c — one rule for spec-constant values,
 * whichever way they come in.
 *
 * Every case goes through the specializer (spv_specialize), the public API
 * (spvjit_spec_set_define + spvjit_module_specialize), `spvjit specialize -D`
 * and, for some, `spvjit run -D`: all four must give the same verdict, the
 * same bits and the same error text.  The expected verdicts are the rule of
 * spirv/spec_value.h as the specifications give it (Vulkan: a bool spec
 * constant is passed as a 4-byte VkBool32, VK_FALSE or VK_TRUE; OpenCL Kernel
 * integers have no signedness); the expected bits are plain C conversions.
 */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

#include "lib/spvjit.h"
#include "spirv/specialize.h"

/* Shader module: one constant per type; the function does nothing, so `run`
 * compiles in a moment. */
static const char shader_src[] =
    "OpCapability Shader\nOpCapability Int8\nOpCapability Int64\nOpCapability Float16\nOpCapability Float64\n"
    "OpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 1 1 1\n"
    "OpName %n \"N\"\nOpDecorate %flag SpecId 1\nOpDecorate %n SpecId 2\nOpDecorate %s SpecId 3\n"
    "OpDecorate %byte SpecId 4\nOpDecorate %h SpecId 5\nOpDecorate %f SpecId 6\nOpDecorate %d SpecId 7\n"
    "OpDecorate %l SpecId 8\n"
    "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%bool = OpTypeBool\n%u32 = OpTypeInt 32 0\n"
    "%i32 = OpTypeInt 32 1\n%u8 = OpTypeInt 8 0\n%i64 = OpTypeInt 64 1\n%f16 = OpTypeFloat 16\n"
    "%f32 = OpTypeFloat 32\n%f64 = OpTypeFloat 64\n"
    "%flag = OpSpecConstantFalse %bool\n%n = OpSpecConstant %u32 16\n%s = OpSpecConstant %i32 -1\n"
    "%byte = OpSpecConstant %u8 7\n%h = OpSpecConstant %f16 1\n%f = OpSpecConstant %f32 0.5\n"
    "%d = OpSpecConstant %f64 0.25\n%l = OpSpecConstant %i64 -3\n"
    "%main = OpFunction %void None %fn\n%lab = OpLabel\nOpReturn\nOpFunctionEnd\n";

/* Kernel module: a 32-bit integer (no signedness) and a bool. */
static const char kernel_src[] =
    "OpCapability Addresses\nOpCapability Kernel\nOpCapability Int64\nOpMemoryModel Physical64 OpenCL\n"
    "OpEntryPoint Kernel %k \"k\"\nOpDecorate %n SpecId 0\nOpDecorate %flag SpecId 1\n"
    "%void = OpTypeVoid\n%uint = OpTypeInt 32 0\n%bool = OpTypeBool\n%n = OpSpecConstant %uint 8\n"
    "%flag = OpSpecConstantTrue %bool\n%fn = OpTypeFunction %void\n"
    "%k = OpFunction %void None %fn\n%l = OpLabel\nOpReturn\nOpFunctionEnd\n";

#define f32b test_f32_bits
#define f64b test_f64_bits
#define f16b test_f16_bits

typedef struct vcase {
    bool kernel;
    const char *defines[2]; /* one or two -D values (the later one wins) */
    bool ok;
    uint64_t bits;   /* ok: the constant's bits afterwards */
    const char *err; /* !ok: a part of the message */
    bool run;        /* also through `spvjit run` */
} vcase;

/* The id of the constant with SpecId sid in the original module. */
static uint32_t const_id(const spv_module *m, uint32_t sid)
{
    for (uint32_t id = 1; id < m->bound; id++)
        if (m->ids[id].spec_id == sid)
            return id;
    return 0;
}

static uint32_t spec_id_of(const char *define)
{
    return (uint32_t)strtoul(define, NULL, 10);
}

/* One path's verdict. */
typedef struct verdict {
    bool ok;
    uint64_t bits;
    char msg[2048];
} verdict;

static void bits_of(const uint32_t *w, size_t nw, uint32_t id, verdict *v)
{
    spv_diag d;
    spv_module *o = spv_module_load(w, nw * 4, "out", &(spv_load_options){ .skip_validation = true }, &d);
    v->bits = o && id < o->bound ? o->ids[id].scalar : ~0ull;
    spv_module_free(o);
}

static void by_specializer(const spv_module *m, const vcase *c, uint32_t id, verdict *v)
{
    spv_spec_value vals[2];
    size_t n = 0;
    spv_diag d;
    for (; n < 2 && c->defines[n]; n++)
        if (spv_parse_spec_value(c->defines[n], &vals[n], &d) != 0) {
            snprintf(v->msg, sizeof v->msg, "parse: %.2000s", d.msg);
            return;
        }
    uint32_t *w = NULL;
    size_t nw = 0;
    v->ok = spv_specialize(m, vals, n, &w, &nw, &d) == 0;
    if (v->ok)
        bits_of(w, nw, id, v);
    else
        snprintf(v->msg, sizeof v->msg, "%s", d.msg);
    free(w);
}

static void by_api(const char *path, const vcase *c, uint32_t id, verdict *v)
{
    spvjit_context *ctx = NULL;
    spvjit_module *m = NULL;
    spvjit_specs *s = NULL;
    uint32_t *w = NULL;
    size_t nw = 0;
    spvjit_context_create(&(spvjit_context_options){ .threads = 1, .disk_cache_dir = "" }, &ctx);
    spvjit_status st = spvjit_module_load_file(ctx, path, &m);
    if (st == SPVJIT_OK)
        st = spvjit_specs_create(&s);
    for (int i = 0; i < 2 && c->defines[i] && st == SPVJIT_OK; i++)
        st = spvjit_spec_set_define(s, c->defines[i]);
    if (st == SPVJIT_OK)
        st = spvjit_module_specialize(m, s, &w, &nw);
    v->ok = st == SPVJIT_OK;
    if (v->ok)
        bits_of(w, nw, id, v);
    else
        snprintf(v->msg, sizeof v->msg, "%s", spvjit_last_error());
    spvjit_free(w);
    spvjit_specs_destroy(s);
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
}

static const char *bin(void)
{
    const char *b = getenv("SPVJIT_BIN");
    return b ? b : "build/spvjit";
}

/* `spvjit specialize` (out != NULL) or `spvjit run`. */
static void by_cli(const char *path, const char *out, const vcase *c, uint32_t id, verdict *v)
{
    char cmd[2048];
    int n = snprintf(cmd, sizeof cmd, "%s %s %s", bin(), out ? "specialize" : "run", path);
    for (int i = 0; i < 2 && c->defines[i]; i++)
        n += snprintf(cmd + n, sizeof cmd - (size_t)n, " -D '%s'", c->defines[i]);
    if (out)
        snprintf(cmd + n, sizeof cmd - (size_t)n, " -o %s", out);
    char *text = NULL;
    v->ok = test_run_capture(cmd, &text) == 0;
    /* the message as the library gave it: "spvjit: " before, one newline after */
    size_t len = strlen(text);
    if (!v->ok && !strncmp(text, "spvjit: ", 8) && len > 8 && text[len - 1] == '\n')
        snprintf(v->msg, sizeof v->msg, "%.*s", (int)(len - 9), text + 8);
    else
        snprintf(v->msg, sizeof v->msg, "%s", text);
    free(text);
    if (v->ok && out) {
        size_t bytes = 0;
        uint32_t *w = test_read_file(out, &bytes);
        if (w)
            bits_of(w, bytes / 4, id, v);
        free(w);
    }
}

static void check_case(const vcase *c, const char *path, const spv_module *m, const char *tmp_out)
{
    uint32_t id = const_id(m, spec_id_of(c->defines[0]));
    verdict v[4];
    memset(v, 0, sizeof v);
    static const char *const how[4] = { "specializer", "API", "spvjit specialize", "spvjit run" };
    by_specializer(m, c, id, &v[0]);
    by_api(path, c, id, &v[1]);
    by_cli(path, tmp_out, c, id, &v[2]);
    int npaths = 3;
    if (c->run) {
        by_cli(path, NULL, c, id, &v[3]);
        v[3].bits = v[0].bits; /* run has no output module: the verdict and message count */
        npaths = 4;
    }
    const char *what = c->defines[1] ? c->defines[1] : c->defines[0];
    CHECK(v[0].ok == c->ok, "%s: specializer says %s, the rule %s (%s)", what, v[0].ok ? "ok" : "error",
          c->ok ? "ok" : "error", v[0].msg);
    if (c->ok)
        CHECK(v[0].bits == c->bits, "%s: bits 0x%llx, expected 0x%llx", what, (unsigned long long)v[0].bits,
              (unsigned long long)c->bits);
    else
        CHECK(strstr(v[0].msg, c->err) != NULL, "%s: message \"%s\" lacks \"%s\"", what, v[0].msg, c->err);
    for (int p = 1; p < npaths; p++) {
        CHECK(v[p].ok == v[0].ok, "%s: %s says %s, the specializer %s (%s)", what, how[p], v[p].ok ? "ok" : "error",
              v[0].ok ? "ok" : "error", v[p].msg);
        if (v[p].ok && v[0].ok)
            CHECK(v[p].bits == v[0].bits, "%s: %s gives 0x%llx, the specializer 0x%llx", what, how[p],
                  (unsigned long long)v[p].bits, (unsigned long long)v[0].bits);
        if (!v[p].ok && !v[0].ok)
            CHECK(!strcmp(v[p].msg, v[0].msg), "%s: %s words it \"%s\", the specializer \"%s\"", what, how[p], v[p].msg,
                  v[0].msg);
    }
}

TEST(spec_values_one_rule_for_api_specializer_and_cli)
{
    char *dir = test_temp_dir("spec-values");
    REQUIRE(dir, "mkdtemp");
    char shader[128], kernel[128], out[128];
    snprintf(shader, sizeof shader, "%s/values.spv", dir);
    snprintf(kernel, sizeof kernel, "%s/values_kernel.spv", dir);
    snprintf(out, sizeof out, "%s/out.spv", dir);
    REQUIRE(test_assemble(shader_src, "spv1.3", shader) && test_assemble(kernel_src, "spv1.3", kernel),
            "assemble the test modules");
    spv_diag d;
    spv_module *ms = spv_module_load_file(shader, NULL, &d);
    spv_module *mk = spv_module_load_file(kernel, NULL, &d);
    REQUIRE(ms && mk, "load: %s", d.msg);

    const vcase cases[] = {
        /* integers: any width and signedness when the value fits (the issue: 16:u64 for a u32) */
        { false, { "2=16" }, true, 16, NULL, true },
        { false, { "2=16:u64" }, true, 16, NULL, true },
        { false, { "2=0x10:u8" }, true, 16, NULL, false },
        { false, { "2=4294967295" }, true, 0xffffffffu, NULL, false },
        { false, { "2=-1" }, false, 0, "value -1 is out of range for u32 (0 to 4294967295)", true },
        { false, { "2=-1:i32" }, false, 0, "the i32 value -1 is out of range for u32 (0 to 4294967295)", false },
        { false, { "2=4294967296:u64" }, false, 0, "the u64 value 4294967296 is out of range for u32", false },
        { false, { "2=1.5" }, false, 0, "value \"1.5\" is not an integer, expected a u32", false },
        { false, { "2=1.5:f32" }, false, 0, "the f32 value 1.5 is not an integer, expected a u32", false },
        { false, { "2=true" }, false, 0, "value \"true\" is not an integer", false },
        { false, { "2=true:bool" }, false, 0, "the bool value true is not an integer, expected a u32", false },
        { false, { "3=-5" }, true, (uint32_t)-5, NULL, false },
        { false, { "3=-5:i64" }, true, (uint32_t)-5, NULL, false },
        { false, { "3=7:u8" }, true, 7, NULL, false },
        { false, { "3=2147483648" }, false, 0, "out of range for i32 (-2147483648 to 2147483647)", false },
        { false, { "3=3000000000:u32" }, false, 0, "the u32 value 3000000000 is out of range for i32", false },
        { false, { "4=255" }, true, 255, NULL, false },
        { false, { "4=255:u32" }, true, 255, NULL, false },
        { false, { "4=256" }, false, 0, "value 256 is out of range for u8 (0 to 255)", false },
        { false, { "4=-1:i8" }, false, 0, "the i8 value -1 is out of range for u8", false },
        { false, { "8=-9223372036854775808" }, true, (uint64_t)INT64_MIN, NULL, false },
        { false, { "8=18446744073709551615:u64" }, false, 0, "out of range for i64", false },
        /* bool: VkBool32 (an integer 0 or 1) as well as a bool */
        { false, { "1=true" }, true, 1, NULL, true },
        { false, { "1=1" }, true, 1, NULL, false },
        { false, { "1=1:u32" }, true, 1, NULL, true },
        { false, { "1=0:u32" }, true, 0, NULL, false },
        { false, { "1=1:i8" }, true, 1, NULL, false },
        { false, { "1=2:u32" }, false, 0, "the u32 value 2 is not a bool", true },
        { false, { "1=2" }, false, 0, "value \"2\" is not a bool, expected true, false, 1 or 0", false },
        { false, { "1=1:f32" }, false, 0, "the f32 value 1 is not a bool", false },
        /* floats: any width that converts exactly; text rounds */
        { false, { "6=0.1" }, true, f32b(0.1f), NULL, false },
        { false, { "6=0.5:f64" }, true, f32b(0.5f), NULL, false },
        { false, { "6=0.1:f64" }, false, 0, "the f64 value 0.1 has no exact f32 value", false },
        { false, { "6=1e39:f64" }, false, 0, "has no exact f32 value", false },
        { false, { "6=-inf:f64" }, true, f32b(-__builtin_inff()), NULL, false },
        { false, { "6=1:u32" }, false, 0, "the u32 value 1 is not a float, expected an f32", false },
        { false, { "6=1e39" }, false, 0, "value 1e39 is out of range for f32 (rounds to infinity)", false },
        { false, { "5=0.1" }, true, f16b((_Float16)0.1), NULL, false },
        { false, { "5=0.5:f64" }, true, f16b((_Float16)0.5), NULL, false },
        { false, { "5=0.1:f32" }, false, 0, "the f32 value 0.1 has no exact f16 value", false },
        { false, { "5=70000" }, false, 0, "rounds to infinity", false },
        { false, { "7=0.1:f32" }, true, f64b((double)0.1f), NULL, false },
        { false, { "7=0.1" }, true, f64b(0.1), NULL, false },
        /* unknown ids name the ids the module has; a later value for an id wins */
        { false,
          { "9=1" },
          false,
          0,
          "SpecId 9 is not in the module; it has SpecIds 1 (bool), 2 (N, u32), 3 (i32)",
          true },
        { false, { "2=1", "2=2:u64" }, true, 2, NULL, true },
        { false, { "2=-1", "2=3" }, true, 3, NULL, false },
        /* Kernel integers have no signedness: the signed or the unsigned range of the width */
        { true, { "0=-1" }, true, 0xffffffffu, NULL, false },
        { true, { "0=-1:i32" }, true, 0xffffffffu, NULL, false },
        { true, { "0=4294967295:u64" }, true, 0xffffffffu, NULL, false },
        { true, { "0=-2147483649:i64" }, false, 0, "out of range for u32 (-2147483648 to 4294967295", false },
        { true, { "0=4294967296" }, false, 0, "Kernel integers have no signedness", false },
        { true, { "1=0:u8" }, true, 0, NULL, false },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_case(&cases[i], cases[i].kernel ? kernel : shader, cases[i].kernel ? mk : ms, out);

    /* The typed setters are the suffixes' twins. */
    spvjit_context *ctx = NULL;
    spvjit_module *m = NULL;
    spvjit_specs *s = NULL;
    uint32_t *w = NULL;
    size_t nw = 0;
    REQUIRE(spvjit_context_create(&(spvjit_context_options){ .threads = 1, .disk_cache_dir = "" }, &ctx) == SPVJIT_OK &&
                spvjit_module_load_file(ctx, shader, &m) == SPVJIT_OK && spvjit_specs_create(&s) == SPVJIT_OK,
            "api: %s", spvjit_last_error());
    spvjit_spec_set_u64(s, 2, 16);
    spvjit_spec_set_u32(s, 1, 1); /* VkBool32 VK_TRUE */
    spvjit_spec_set_f64(s, 6, 0.5);
    spvjit_spec_set_i32(s, 3, -7);
    CHECK(spvjit_module_specialize(m, s, &w, &nw) == SPVJIT_OK, "typed setters: %s", spvjit_last_error());
    verdict v;
    uint32_t ids[4] = { const_id(ms, 2), const_id(ms, 1), const_id(ms, 6), const_id(ms, 3) };
    uint64_t want[4] = { 16, 1, f32b(0.5f), (uint32_t)-7 };
    for (int i = 0; w && i < 4; i++) {
        bits_of(w, nw, ids[i], &v);
        CHECK(v.bits == want[i], "typed setter %d: 0x%llx, expected 0x%llx", i, (unsigned long long)v.bits,
              (unsigned long long)want[i]);
    }
    spvjit_free(w);
    w = NULL;
    spvjit_spec_set_u32(s, 1, 2);
    CHECK(spvjit_module_specialize(m, s, &w, &nw) == SPVJIT_ERROR_SPEC_CONSTANT &&
              strstr(spvjit_last_error(), "the u32 value 2 is not a bool"),
          "VkBool32 2: %s", spvjit_last_error());
    spvjit_specs_destroy(s);
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);

    spv_module_free(ms);
    spv_module_free(mk);
    test_remove_dir(dir);
    free(dir);
}

/* Raw bytes as Vulkan's VkSpecializationInfo gives them: the constant's size,
 * read as its type (so int32 -1 is 0xffffffff for a uint constant, as a Vulkan
 * driver would copy it); a bool is a 4-byte VkBool32 (or OpenCL's one byte),
 * 0 or 1.  The specializer and the API agree, word for word. */
TEST(spec_values_raw_bytes_as_vulkan_gives_them)
{
    char *dir = test_temp_dir("spec-bytes");
    REQUIRE(dir, "mkdtemp");
    char path[128];
    snprintf(path, sizeof path, "%s/values.spv", dir);
    REQUIRE(test_assemble(shader_src, "spv1.3", path), "assemble");
    spv_diag d;
    spv_module *m = spv_module_load_file(path, NULL, &d);
    REQUIRE(m, "load: %s", d.msg);
    spvjit_context *ctx = NULL;
    spvjit_module *am = NULL;
    REQUIRE(spvjit_context_create(&(spvjit_context_options){ .threads = 1, .disk_cache_dir = "" }, &ctx) == SPVJIT_OK &&
                spvjit_module_load_file(ctx, path, &am) == SPVJIT_OK,
            "api: %s", spvjit_last_error());
    int32_t minus1 = -1;
    uint32_t one = 1, two = 2;
    uint8_t zero8 = 0;
    float tenth = 0.1f;
    uint64_t big = 16;
    _Float16 half = (_Float16)0.5;
    const struct {
        uint32_t spec_id;
        const void *data;
        uint32_t size;
        bool ok;
        uint64_t bits;
        const char *err;
    } cases[] = {
        { 2, &minus1, 4, true, 0xffffffffu, NULL }, /* the bytes, not the value */
        { 2, &big, 8, false, 0, "8 bytes given, a u32 takes 4" },
        { 1, &one, 4, true, 1, NULL },   /* VK_TRUE */
        { 1, &zero8, 1, true, 0, NULL }, /* OpenCL's one-byte bool */
        { 1, &two, 4, false, 0, "the 4-byte value 2 is not a bool: a VkBool32 is 0 or 1" },
        { 6, &tenth, 4, true, test_f32_bits(0.1f), NULL },
        { 5, &half, 2, true, test_f16_bits((_Float16)0.5), NULL },
        { 5, &tenth, 4, false, 0, "4 bytes given, an f16 takes 2" },
        { 8, &big, 8, true, 16, NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint32_t id = const_id(m, cases[i].spec_id);
        verdict sv = { 0 }, av = { 0 };
        /* the specializer */
        spv_spec_value v = { .spec_id = cases[i].spec_id, .type = SPV_VALUE_BYTES, .size = cases[i].size };
        memcpy(&v.bits, cases[i].data, cases[i].size);
        uint32_t *w = NULL;
        size_t nw = 0;
        sv.ok = spv_specialize(m, &v, 1, &w, &nw, &d) == 0;
        if (sv.ok)
            bits_of(w, nw, id, &sv);
        else
            snprintf(sv.msg, sizeof sv.msg, "%s", d.msg);
        free(w);
        /* the API */
        spvjit_specs *s = NULL;
        w = NULL;
        spvjit_status st = spvjit_specs_create(&s);
        if (st == SPVJIT_OK)
            st = spvjit_spec_set_bytes(s, cases[i].spec_id, cases[i].data, cases[i].size);
        if (st == SPVJIT_OK)
            st = spvjit_module_specialize(am, s, &w, &nw);
        av.ok = st == SPVJIT_OK;
        if (av.ok)
            bits_of(w, nw, id, &av);
        else
            snprintf(av.msg, sizeof av.msg, "%s", spvjit_last_error());
        spvjit_free(w);
        spvjit_specs_destroy(s);
        CHECK(sv.ok == cases[i].ok && av.ok == cases[i].ok, "case %zu: specializer %d, API %d, rule %d (%s | %s)", i,
              sv.ok, av.ok, cases[i].ok, sv.msg, av.msg);
        if (cases[i].ok)
            CHECK(sv.bits == cases[i].bits && av.bits == cases[i].bits,
                  "case %zu: bits 0x%llx / 0x%llx, expected 0x%llx", i, (unsigned long long)sv.bits,
                  (unsigned long long)av.bits, (unsigned long long)cases[i].bits);
        else
            CHECK(strstr(sv.msg, cases[i].err) && !strcmp(sv.msg, av.msg), "case %zu: \"%s\" / \"%s\", expected \"%s\"",
                  i, sv.msg, av.msg, cases[i].err);
    }
    spvjit_specs *s = NULL;
    spvjit_specs_create(&s);
    CHECK(spvjit_spec_set_bytes(s, 2, &one, 3) == SPVJIT_ERROR_SPEC_CONSTANT &&
              strstr(spvjit_last_error(), "3 bytes given; a spec constant has 1, 2, 4 or 8"),
          "3 bytes: %s", spvjit_last_error());
    spvjit_specs_destroy(s);
    spvjit_module_destroy(am);
    spvjit_context_destroy(ctx);
    spv_module_free(m);
    test_remove_dir(dir);
    free(dir);
}

/* The validator runs once on words that specialization leaves as they were
 * (lib/api_specialize.c): the load validated those very words, so the verdict
 * cannot differ.  What that rests on, checked: a module without spec
 * constants specializes to its own words and builds; an invalid one never
 * gets that far (the load refuses it); and words that values do change are
 * still validated, at the build as at spvjit_module_specialize (a scope of
 * 1538 is no scope: the SPIR-V specification's Scope enumerants end at 6). */
TEST(spec_values_unchanged_words_keep_the_load_verdict)
{
    static const char valid[] = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n"
                                "OpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 4 1 1\n"
                                "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n"
                                "%main = OpFunction %void None %fn\n%lab = OpLabel\nOpReturn\nOpFunctionEnd\n";
    /* the same without its OpReturn: a block without a terminator */
    static const char invalid[] = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n"
                                  "OpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 4 1 1\n"
                                  "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n"
                                  "%main = OpFunction %void None %fn\n%lab = OpLabel\nOpFunctionEnd\n";
    static const char scope[] = "OpCapability Addresses\nOpCapability Kernel\nOpMemoryModel Physical64 OpenCL\n"
                                "OpEntryPoint Kernel %k \"k\"\nOpExecutionMode %k LocalSize 4 1 1\n"
                                "OpDecorate %scope SpecId 3\n%void = OpTypeVoid\n%uint = OpTypeInt 32 0\n"
                                "%scope = OpSpecConstant %uint 2\n%sem = OpConstant %uint 272\n"
                                "%fn = OpTypeFunction %void\n%k = OpFunction %void None %fn\n%l = OpLabel\n"
                                "OpControlBarrier %scope %scope %sem\nOpReturn\nOpFunctionEnd\n";
    char *dir = test_temp_dir("spec-verdict");
    REQUIRE(dir, "mkdtemp");
    char pv[128], pi[128], ps[128];
    snprintf(pv, sizeof pv, "%s/valid.spv", dir);
    snprintf(pi, sizeof pi, "%s/invalid.spv", dir);
    snprintf(ps, sizeof ps, "%s/scope.spv", dir);
    /* spirv-as checks syntax only: the invalid module assembles */
    REQUIRE(test_assemble(valid, "vulkan1.0", pv) && test_assemble(invalid, "vulkan1.0", pi) &&
                test_assemble(scope, "spv1.2", ps),
            "assemble");
    spvjit_context *ctx = NULL;
    spvjit_module *m = NULL, *bad = NULL, *sm = NULL;
    spvjit_specs *s = NULL;
    spvjit_kernel *k = NULL;
    REQUIRE(spvjit_context_create(&(spvjit_context_options){ .threads = 1, .disk_cache_dir = "" }, &ctx) == SPVJIT_OK &&
                spvjit_specs_create(&s) == SPVJIT_OK,
            "api: %s", spvjit_last_error());

    CHECK(spvjit_module_load_file(ctx, pi, &bad) == SPVJIT_ERROR_INVALID_MODULE && !bad &&
              strstr(spvjit_last_error(), "invalid SPIR-V"),
          "a block without a terminator must fail at load: %s", spvjit_last_error());

    size_t len = 0;
    uint32_t *file = test_read_file(pv, &len), *w = NULL;
    size_t nw = 0;
    REQUIRE(file && spvjit_module_load_file(ctx, pv, &m) == SPVJIT_OK, "load: %s", spvjit_last_error());
    CHECK(spvjit_module_specialize(m, s, &w, &nw) == SPVJIT_OK && nw * 4 == len && !memcmp(w, file, len),
          "a module without spec constants must specialize to its own words (%zu words, %zu bytes)", nw, len);
    CHECK(spvjit_kernel_build(m, "main", s, NULL, &k) == SPVJIT_OK && k, "build: %s", spvjit_last_error());
    spvjit_kernel_destroy(k);
    k = NULL;
    spvjit_free(w);
    w = NULL;

    REQUIRE(spvjit_module_load_file(ctx, ps, &sm) == SPVJIT_OK, "load scope: %s", spvjit_last_error());
    CHECK(spvjit_kernel_build(sm, "k", s, NULL, &k) == SPVJIT_OK && k, "default scope 2: %s", spvjit_last_error());
    spvjit_kernel_destroy(k);
    k = NULL;
    spvjit_spec_set_u32(s, 3, 1538);
    CHECK(spvjit_kernel_build(sm, "k", s, NULL, &k) == SPVJIT_ERROR_SPEC_CONSTANT && !k &&
              strstr(spvjit_last_error(), "after specialization"),
          "scope 1538 at the build: %s", spvjit_last_error());
    CHECK(spvjit_module_specialize(sm, s, &w, &nw) == SPVJIT_ERROR_SPEC_CONSTANT && !w &&
              strstr(spvjit_last_error(), "after specialization"),
          "scope 1538 at specialize: %s", spvjit_last_error());

    free(file);
    spvjit_module_destroy(sm);
    spvjit_module_destroy(m);
    spvjit_specs_destroy(s);
    spvjit_context_destroy(ctx);
    test_remove_dir(dir);
    free(dir);
}
