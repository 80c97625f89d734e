/* testdata/tests/test_amber_parse.c — Amber scripts into the model: element
 * types and layouts, DATA/FILL/SERIES_FROM, EXPECT evaluation, VkScript, and
 * error messages with line numbers.  References: the std430/std140 rules
 * computed by hand, plain C arithmetic on random values, and (last test) the
 * spvjit binary over testdata/amber/ whose expected values gen_expect.py and
 * the scripts' comments derive independently.
 *
 * The run_tests link holds no cmd/ objects, so the sources are compiled into
 * this file (their static helpers have distinct names).  Define SPVJIT_TESTS_LINK_CMD when
 * the Makefile links cmd/ objects (minus main.c) into run_tests instead.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#ifndef SPVJIT_TESTS_LINK_CMD
#include "../../cmd/buffer_fill.c"
#include "../../cmd/amber_buffer.c"
#include "../../cmd/amber_parse.c"
#undef GROW
#include "../../cmd/amber_vkscript.c"
#else
#include "cmd/amber.h"
#endif

static int parse(const char *text, amber_script *s, char *err)
{
    return amber_parse(text, strlen(text), "t.amber", s, err, 512);
}

static float buf_f32(const amber_buffer *b, size_t byte)
{
    float f;
    memcpy(&f, b->data + byte, 4);
    return f;
}

TEST_TIER_FREE(amber_type_layouts_match_std430_std140)
{
    static const struct {
        const char *name;
        bool std140;
        size_t stride;
        unsigned comp;
        size_t off;
    } cases[] = {
        /* Amber's src/format.cc: STD140 pads matrix columns and the elements of
         * an array type (T[]) to 16 bytes; a scalar or vector buffer stays packed */
        { "float", false, 4, 0, 0 },
        { "float", true, 4, 0, 0 },
        { "float[]", true, 16, 0, 0 },
        { "float[]", false, 4, 0, 0 },
        { "vec2<int32>[]", true, 16, 1, 4 },
        { "int8", false, 1, 0, 0 },
        { "vec2<float>", false, 8, 1, 4 },
        { "vec3<float>", false, 16, 2, 8 },
        { "vec3<float>", true, 16, 2, 8 },
        { "vec4<double>", false, 32, 3, 24 },
        { "vec2<float>", true, 8, 1, 4 },
        { "mat2x2<float>", false, 16, 2, 8 },
        { "mat2x2<float>", true, 32, 2, 16 },
        { "mat4x3<float>", false, 64, 3, 16 },
        { "mat3x3<double>", false, 96, 4, 40 },
        { "vec3<uint16>", false, 8, 2, 4 },
        { "float16", false, 2, 0, 0 },
        { "R32G32B32A32_SFLOAT", false, 16, 3, 12 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        amber_type t;
        REQUIRE(!amber_type_parse(cases[i].name, &t), "%s does not parse", cases[i].name);
        t.std140 = cases[i].std140;
        CHECK(amber_type_stride(&t) == cases[i].stride, "%s%s: stride %zu, want %zu", cases[i].name,
              cases[i].std140 ? " std140" : "", amber_type_stride(&t), cases[i].stride);
        CHECK(amber_type_component_offset(&t, cases[i].comp) == cases[i].off, "%s: component %u at %zu, want %zu",
              cases[i].name, cases[i].comp, amber_type_component_offset(&t, cases[i].comp), cases[i].off);
    }
    amber_type t;
    CHECK(amber_type_parse("vec5<float>", &t) && amber_type_parse("mat2x2<int32>", &t) &&
              amber_type_parse("floaty", &t) && amber_type_parse("R8G8B8A8_UNORM", &t),
          "bad types accepted");
}

TEST_TIER_FREE(amber_half_conversion_matches_known_bits)
{
    static const struct {
        double d;
        uint16_t h;
    } cases[] = {
        { 1.0, 0x3c00 },
        { -2.0, 0xc000 },
        { 65504.0, 0x7bff },
        { 0.5, 0x3800 },
        { 5.960464477539063e-08, 0x0001 },
        { 1e6, 0x7c00 },
        { 0.0, 0x0000 },
        { 0.333251953125, 0x3555 },
        { 2049.0, 0x6800 } /* tie to even */,
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK(f64_to_f16(cases[i].d) == cases[i].h, "%g → 0x%04x, want 0x%04x", cases[i].d, f64_to_f16(cases[i].d),
              cases[i].h);
        if (cases[i].h != 0x7c00)
            CHECK(f16_to_f32(cases[i].h) == (float)cases[i].d || cases[i].d == 2049.0, "0x%04x back: %g", cases[i].h,
                  f16_to_f32(cases[i].h));
    }
    /* round trip of every finite half */
    for (uint32_t h = 0; h < 0x7c00; h++)
        if (f32_to_f16(f16_to_f32((uint16_t)h)) != h) {
            CHECK(0, "half 0x%04x does not round-trip", h);
            break;
        }
}

TEST_TIER_FREE(amber_buffers_data_fill_series_random_values)
{
    uint64_t rs = 77;
    char text[8192], err[512];
    int32_t v[40];
    int n = snprintf(text, sizeof text, "#!amber\nBUFFER d DATA_TYPE int32 DATA\n");
    for (int i = 0; i < 40; i++) {
        v[i] = (int32_t)(test_rand_u64(&rs) % 2000000) - 1000000;
        n += snprintf(text + n, sizeof text - (size_t)n, "%d%s", v[i], i % 7 == 6 ? "\n" : " ");
    }
    float start = test_rand_float(&rs, -10, 10), inc = test_rand_float(&rs, 0.1f, 2);
    snprintf(text + n, sizeof text - (size_t)n,
             "\nEND\nBUFFER s DATA_TYPE float SIZE 20 SERIES_FROM %.9g INC_BY %.9g\n"
             "BUFFER f DATA_TYPE vec3<int16> STD430 SIZE 5 FILL -3\n"
             "BUFFER u DATA_TYPE uint8 DATA 0xff 1 0x10 END\n"
             "BUFFER h DATA_TYPE float16 DATA 1.5 -0.25 END\n",
             start, inc);
    amber_script s;
    REQUIRE(!parse(text, &s, err), "parse: %s", err);
    REQUIRE(s.nbuffers == 5, "%u buffers", s.nbuffers);
    CHECK(s.buffers[0].size == 160 && !memcmp(s.buffers[0].data, v, 160), "DATA int32 differs");
    /* Amber adds in double the values as written (parsed to double), then stores floats */
    char st[32], in[32];
    snprintf(st, sizeof st, "%.9g", start);
    snprintf(in, sizeof in, "%.9g", inc);
    double x = strtod(st, NULL), dx = strtod(in, NULL);
    for (int i = 0; i < 20; i++) {
        CHECK(buf_f32(&s.buffers[1], (size_t)i * 4) == (float)x, "series %d: %g vs %g", i,
              buf_f32(&s.buffers[1], (size_t)i * 4), (float)x);
        x += dx;
    }
    CHECK(s.buffers[2].size == 5 * 8, "vec3<int16> x5 size %zu", s.buffers[2].size);
    for (int e = 0; e < 5; e++)
        for (int c = 0; c < 4; c++) {
            int16_t h;
            memcpy(&h, s.buffers[2].data + e * 8 + c * 2, 2);
            CHECK(h == (c < 3 ? -3 : 0), "fill elem %d comp %d = %d", e, c, h);
        }
    CHECK(s.buffers[3].size == 3 && s.buffers[3].data[0] == 0xff && s.buffers[3].data[2] == 0x10, "uint8 data");
    uint16_t h[2];
    memcpy(h, s.buffers[4].data, 4);
    CHECK(h[0] == 0x3e00 && h[1] == 0xb400, "float16 data %04x %04x", h[0], h[1]);
    amber_script_free(&s);
}

/* EXPECT against buffer contents computed in C from random data. */
TEST_TIER_FREE(amber_expect_evaluation_against_c_reference)
{
    uint64_t rs = 1234;
    for (int round = 0; round < 20; round++) {
        int32_t a = (int32_t)(test_rand_u64(&rs) % 1000) - 500, b = (int32_t)(test_rand_u64(&rs) % 1000) - 500;
        float f = test_rand_float(&rs, -100, 100);
        char text[2048], err[512], msg[512];
        snprintf(text, sizeof text,
                 "#!amber\nBUFFER b DATA_TYPE int32 DATA %d %d END\nBUFFER f DATA_TYPE float DATA %.9g END\n"
                 "EXPECT b IDX 0 EQ %d %d\nEXPECT b IDX 4 %s %d\nEXPECT b IDX 0 EQ %d\n"
                 "EXPECT f IDX 0 TOLERANCE 0.01 EQ %.9g\nEXPECT f IDX 0 TOLERANCE 1%% EQ %.9g\n"
                 "EXPECT f IDX 0 EQ %.9g\n",
                 a, b, f, a, b, b > a ? "GT" : "LE", a, a + 1, f + 0.005f, f * 1.02f, f + 1.0f);
        amber_script s;
        REQUIRE(!parse(text, &s, err), "parse: %s", err);
        REQUIRE(s.ncmds == 6, "%u commands", s.ncmds);
        CHECK(amber_expect_eval(&s, &s.cmds[0], msg, sizeof msg) == 0, "EQ: %s", msg);
        CHECK(amber_expect_eval(&s, &s.cmds[1], msg, sizeof msg) == 0, "GT/LE: %s", msg);
        CHECK(amber_expect_eval(&s, &s.cmds[2], msg, sizeof msg) == 1 && strstr(msg, "line 6:") && strstr(msg, "got "),
              "a+1: %s", msg);
        CHECK(amber_expect_eval(&s, &s.cmds[3], msg, sizeof msg) == 0, "tolerance: %s", msg);
        /* 2% off with a 1% tolerance fails unless f is tiny */
        CHECK(amber_expect_eval(&s, &s.cmds[4], msg, sizeof msg) == (fabsf(f) > 1e-3f ? 1 : 0), "percent: %s", msg);
        CHECK(amber_expect_eval(&s, &s.cmds[5], msg, sizeof msg) == 1, "f+1 EQ: %s", msg);
        amber_script_free(&s);
    }
}

TEST_TIER_FREE(amber_expect_buffers_and_vectors)
{
    const char *t = "#!amber\n"
                    "BUFFER a DATA_TYPE vec3<float> DATA 1 2 3 4 5 6 END\n"
                    "BUFFER b DATA_TYPE vec3<float> DATA 1 2 3 4 5 6 END\n"
                    "BUFFER c DATA_TYPE vec3<float> DATA 1 2 3 4 5 7 END\n"
                    "EXPECT a IDX 16 EQ 4 5 6\n"
                    "EXPECT a EQ_BUFFER b\n"
                    "EXPECT a EQ_BUFFER c\n"
                    "EXPECT a RMSE_BUFFER c TOLERANCE 0.5\n"
                    "EXPECT a RMSE_BUFFER c TOLERANCE 0.4\n"
                    "EXPECT a IDX 32 EQ 1\n";
    amber_script s;
    char err[512], msg[512];
    REQUIRE(!parse(t, &s, err), "parse: %s", err);
    CHECK(amber_expect_eval(&s, &s.cmds[0], msg, sizeof msg) == 0, "vec3 at 16: %s", msg);
    CHECK(amber_expect_eval(&s, &s.cmds[1], msg, sizeof msg) == 0, "EQ_BUFFER: %s", msg);
    CHECK(amber_expect_eval(&s, &s.cmds[2], msg, sizeof msg) == 1 && strstr(msg, "6 vs 7"), "EQ_BUFFER c: %s", msg);
    /* RMSE over 6 values, one off by 1: sqrt(1/6) = 0.408 */
    CHECK(amber_expect_eval(&s, &s.cmds[3], msg, sizeof msg) == 0, "RMSE 0.5: %s", msg);
    CHECK(amber_expect_eval(&s, &s.cmds[4], msg, sizeof msg) == 1, "RMSE 0.4: %s", msg);
    CHECK(amber_expect_eval(&s, &s.cmds[5], msg, sizeof msg) == -1 && strstr(msg, "past the end"), "%s", msg);
    amber_script_free(&s);
}

TEST_TIER_FREE(amber_pipelines_bindings_specs_and_skips)
{
    const char *t = "#!amber\n"
                    "SHADER compute sh SPIRV-ASM TARGET_ENV spv1.3\n  OpCapability Shader\nEND\n"
                    "BUFFER a DATA_TYPE uint32 SIZE 4 FILL 0\n"
                    "PIPELINE compute p\n"
                    "  ATTACH sh ENTRY_POINT go SPECIALIZE 2 AS uint32 9 SPECIALIZE 5 AS float 1.5\n"
                    "  BIND BUFFER a AS storage_dynamic DESCRIPTOR_SET 1 BINDING 3 OFFSET 8\n"
                    "  BIND BUFFER a KERNEL ARG_NAME out\n"
                    "  SET KERNEL ARG_NUMBER 2 AS uint32 0x7f800000\n"
                    "END\n"
                    "REPEAT 3\nRUN p 4 5 6\nEXPECT a IDX 0 EQ 0\nEND\n";
    amber_script s;
    char err[512];
    REQUIRE(!parse(t, &s, err), "parse: %s", err);
    REQUIRE(s.npipelines == 1 && s.nshaders == 1, "counts");
    amber_pipeline *p = &s.pipelines[0];
    CHECK(!strcmp(p->entry, "go") && p->nspecs == 2 && p->specs[0].id == 2 && p->specs[0].bits == 9 &&
              p->specs[1].bits == 0x3fc00000,
          "specs");
    CHECK(p->nbinds == 2 && p->binds[0].kind == AMBER_BIND_STORAGE_DYNAMIC && p->binds[0].set == 1 &&
              p->binds[0].binding == 3 && p->binds[0].offset == 8,
          "bind");
    CHECK(p->binds[1].kind == AMBER_BIND_KERNEL_ARG && !strcmp(p->binds[1].arg_name, "out"), "kernel bind");
    uint32_t inf;
    memcpy(&inf, p->kvals[0].bytes, 4);
    CHECK(p->nkvals == 1 && p->kvals[0].arg_number == 2 && inf == 0x7f800000, "SET KERNEL");
    CHECK(!strcmp(s.shaders[0].target_env, "spv1.3") && strstr(s.shaders[0].source, "OpCapability"), "shader");
    CHECK(s.ncmds == 3 && s.cmds[0].kind == AMBER_CMD_REPEAT && s.cmds[0].count == 3 && s.cmds[0].body == 2 &&
              s.cmds[1].groups[2] == 6,
          "REPEAT");
    amber_script_free(&s);

    REQUIRE(!parse("#!amber\nPIPELINE graphics g\nEND\n", &s, err), "graphics: %s", err);
    CHECK(s.skip && strstr(s.skip, "graphics") && strstr(s.skip, "line 2"), "skip: %s", s.skip ? s.skip : "-");
    amber_script_free(&s);
}

TEST_TIER_FREE(amber_errors_name_the_line)
{
    static const struct {
        const char *text;
        const char *want;
    } bad[] = {
        { "#!amber\n\nBUFFER b DATA_TYPE int33 SIZE 2 FILL 0\n", "t.amber:3: BUFFER b: unknown data type 'int33'" },
        { "#!amber\nBUFFER b DATA_TYPE int32 DATA 1 2.5 END\n",
          "t.amber:2: BUFFER b DATA: value 1: 2.5 is not an integer (the type is int32)" },
        { "#!amber\nBUFFER b DATA_TYPE int32 DATA 1 2\n", "t.amber:2: BUFFER DATA: missing END" },
        { "#!amber\nEXPECT nope IDX 0 EQ 1\n", "t.amber:2: unknown buffer 'nope'" },
        { "#!amber\nSHADER compute s GLSL\nvoid main(){}\n", "t.amber:2: missing END" },
        { "#!amber\nBUFFER b DATA_TYPE int32 SIZE 1 FILL 0\nEXPECT b IDX 0 ABOUT 1\n",
          "t.amber:3: EXPECT: expected a comparator" },
        { "#!amber\nRUN p 1 1 1\n", "t.amber:2: unknown pipeline 'p'" },
        { "#!amber\nFROB\n", "t.amber:2: unknown command 'FROB'" },
        { "#!amber\nBUFFER b DATA_TYPE uint8 SIZE 2 FILL 0\nBUFFER b DATA_TYPE uint8 SIZE 2 FILL 0\n",
          "t.amber:3: BUFFER b: already defined on line 2" },
        { "[test]\nfrobnicate 1\n", "t.amber:2: [test]: unknown command 'frobnicate'" },
        { "[compute shader]\nvoid main(){}\n[test]\nprobe ssbo float 0 0 =~ 1\n",
          "t.amber:4: probe ssbo: unknown comparator" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        amber_script s;
        char err[512] = "";
        int r = parse(bad[i].text, &s, err);
        CHECK(r == -1 && strstr(err, bad[i].want), "case %zu: got %d '%s', want '%s'", i, r, err, bad[i].want);
        amber_script_free(&s);
    }
}

TEST_TIER_FREE(amber_vkscript_model)
{
    const char *t = "[require]\nshaderFloat64\nVK_KHR_16bit_storage\n\n"
                    "[compute shader spirv]\n  OpCapability Shader\n\n"
                    "[test]\n"
                    "ssbo 1:2 64\n"
                    "ssbo 1:2 subdata vec3 16 1 2 3 4 5 6\n"
                    "uniform ubo 0 float 0 7 8\n"
                    "uniform int 4 -3\n"
                    "compute 2 3 4\n"
                    "tolerance 2%\n"
                    "probe ssbo int 1:2 0 ~= 5\n";
    amber_script s;
    char err[512];
    REQUIRE(!parse(t, &s, err), "parse: %s", err);
    CHECK(s.vkscript && s.nfeatures == 1 && s.nextensions == 1 && !strcmp(s.features[0], "shaderFloat64"), "require");
    CHECK(s.nshaders == 1 && s.shaders[0].format == AMBER_SPIRV_ASM && strstr(s.shaders[0].source, "OpCapability"),
          "shader");
    REQUIRE(s.ncmds == 5, "%u commands", s.ncmds);
    const amber_cmd *c = &s.cmds[0];
    /* vec3 std430: 16-byte stride → 4,5,6 start at 16 + 16 */
    float f;
    memcpy(&f, c->bytes + 16, 4);
    CHECK(c->kind == AMBER_CMD_SET_BUFFER && c->offset == 16 && c->nbytes == 32 && f == 4.0f, "subdata");
    CHECK(s.cmds[1].nbytes == 8, "ubo floats are packed (Amber's STD140 pads arrays and matrices only): %zu",
          s.cmds[1].nbytes);
    CHECK(s.cmds[2].kind == AMBER_CMD_SET_PUSH && s.cmds[2].offset == 4, "push");
    CHECK(s.cmds[3].kind == AMBER_CMD_RUN && s.cmds[3].groups[1] == 3, "compute");
    CHECK(s.cmds[4].kind == AMBER_CMD_EXPECT && s.cmds[4].ntol == 1 && s.cmds[4].tol[0].percent &&
              s.cmds[4].tol[0].value == 2,
          "probe");
    CHECK(s.buffers[s.pipelines[0].binds[0].buffer].size == 64, "ssbo size");
    amber_script_free(&s);
}

/* End to end over testdata/amber (needs the spvjit binary): every script
 * passes, except skip_*.amber, which must be skipped with a reason. */
TEST(amber_scripts_in_testdata_pass)
{
    const char *bin = getenv("SPVJIT_BIN");
    char cmd[4096], *out = NULL;
    snprintf(cmd, sizeof cmd, "%s amber -j 2 %s/*.amber %s/*.vkscript", bin ? bin : "build/spvjit",
             test_data_path("amber"), test_data_path("amber"));
    int st = test_run_capture(cmd, &out);
    unsigned npass = 0, nskip = 0;
    char *line = out;
    while (line && *line) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = 0;
        char *colon = strstr(line, ": ");
        if (colon && (strstr(line, ".amber: ") || strstr(line, ".vkscript: "))) {
            const char *base = strrchr(line, '/') ? strrchr(line, '/') + 1 : line;
            bool skip_script = !strncmp(base, "skip_", 5);
            if (skip_script)
                CHECK(strstr(colon, ": skip: ") == colon, "must skip: %s", line);
            else
                CHECK(!strcmp(colon, ": pass"), "%s", line);
            npass += !strcmp(colon, ": pass");
            nskip += strstr(colon, ": skip: ") == colon;
        }
        line = nl ? nl + 1 : NULL;
    }
    CHECK(npass >= 30 && nskip >= 4, "%u passed, %u skipped", npass, nskip);
    CHECK(st == 0, "spvjit amber exited with %d", st);
    free(out);
}
