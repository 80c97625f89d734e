/* testdata/tests/test_amber_rules.c — the Amber rules behind the conformance
 * fixes, checked on the parsed model without a JIT.  References: Amber's
 * documentation (docs/amber_script.md, docs/vk_script_format.md) and its
 * sources where the documentation is silent (src/verifier.cc for EXPECT,
 * src/float16_helper.cc for float16, src/format.cc for layouts), with the
 * expected bytes worked out by hand in the comments.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "cmd/amber.h"

static int parse(const char *text, amber_script *s, char *err)
{
    return amber_parse(text, strlen(text), "t.amber", s, err, 512);
}

/* A VkScript data write (SET_BUFFER command i) done as the runner does it. */
static int apply_write(amber_script *s, unsigned i)
{
    const amber_cmd *c = &s->cmds[i];
    amber_buffer *b = &s->buffers[c->buffer];
    if (amber_buffer_reserve(b, c->offset + c->nbytes))
        return -1;
    memcpy(b->data + c->offset, c->bytes, c->nbytes);
    return 0;
}

static int expect_cmd(amber_script *s, unsigned i, char *msg)
{
    return amber_expect_eval(s, &s->cmds[i], msg, 512);
}

/* FILL / DATA / SERIES_FROM take integral floats for integer types
 * (Amber accepts FILL 0.0); a fraction is an error, not a silent 0. */
TEST_TIER_FREE(amber_integral_floats_fill_integer_buffers)
{
    const char *t = "#!amber\n"
                    "BUFFER z DATA_TYPE int32 SIZE 3 FILL 0.0\n"
                    "BUFFER m DATA_TYPE int32 SIZE 2 FILL -3.0\n"
                    "BUFFER d DATA_TYPE int8 DATA 1.0 -2 127.0 END\n"
                    "BUFFER s DATA_TYPE uint16 SIZE 3 SERIES_FROM 1.0 INC_BY 2.0\n";
    amber_script s;
    char err[512];
    REQUIRE(!parse(t, &s, err), "parse: %s", err);
    int32_t z[3], m[2];
    int8_t d[3];
    uint16_t q[3];
    memcpy(z, s.buffers[0].data, sizeof z);
    memcpy(m, s.buffers[1].data, sizeof m);
    memcpy(d, s.buffers[2].data, sizeof d);
    memcpy(q, s.buffers[3].data, sizeof q);
    CHECK(z[0] == 0 && z[1] == 0 && z[2] == 0 && s.buffers[0].size == 12, "FILL 0.0");
    CHECK(m[0] == -3 && m[1] == -3, "FILL -3.0: %d %d", m[0], m[1]);
    CHECK(d[0] == 1 && d[1] == -2 && d[2] == 127, "DATA 1.0 -2 127.0: %d %d %d", d[0], d[1], d[2]);
    CHECK(q[0] == 1 && q[1] == 3 && q[2] == 5, "SERIES_FROM 1.0 INC_BY 2.0: %u %u %u", q[0], q[1], q[2]);
    amber_script_free(&s);
    CHECK(parse("#!amber\nBUFFER b DATA_TYPE int32 SIZE 2 FILL 0.5\n", &s, err) == -1 &&
              strstr(err, "0.5 is not an integer"),
          "FILL 0.5 into int32: %s", err);
    amber_script_free(&s);
}

/* src/verifier.cc: the expected value is made the element type first
 * (static_cast<T>), then compared - floats within the tolerance, or within
 * kEpsilon = 1e-6 percent for EQ. */
TEST_TIER_FREE(amber_expect_converts_expected_values_to_the_element_type)
{
    const char *t = "#!amber\n"
                    "BUFFER f DATA_TYPE float DATA 4.7 0.1 16777217 END\n"
                    "BUFFER d DATA_TYPE double DATA 4.7 END\n"
                    /* float(4.7) = 4.69999980926513671875: 1.9e-7 from 4.7, more than 1e-6 % of it (4.7e-8) */
                    "EXPECT f IDX 0 TOLERANCE 0.000001% EQ 4.7\n"
                    "EXPECT f IDX 4 EQ 0.10000000\n"
                    "EXPECT f IDX 8 EQ 16777216\n"  /* 2^24 + 1 is 2^24 as a float */
                    "EXPECT d IDX 0 EQ 4.7000001\n" /* a double keeps 4.7: 1e-7 apart */
                    "EXPECT f IDX 0 TOLERANCE 0 EQ 4.7\n"
                    "EXPECT f IDX 0 LT 4.7\n"; /* 4.7 as a float is not less than float(4.7) */
    amber_script s;
    char err[512], msg[512];
    REQUIRE(!parse(t, &s, err), "parse: %s", err);
    CHECK(expect_cmd(&s, 0, msg) == 0, "TOLERANCE 1e-6%%: %s", msg);
    CHECK(expect_cmd(&s, 1, msg) == 0, "EQ 0.10000000: %s", msg);
    CHECK(expect_cmd(&s, 2, msg) == 0, "EQ 16777216: %s", msg);
    CHECK(expect_cmd(&s, 3, msg) == 1 && strstr(msg, "got 4.7"), "double EQ 4.7000001: %s", msg);
    CHECK(expect_cmd(&s, 4, msg) == 0, "TOLERANCE 0: %s", msg);
    CHECK(expect_cmd(&s, 5, msg) == 1, "LT: %s", msg);
    amber_script_free(&s);
    /* VkScript's ~= without a tolerance is the same 1e-6 percent */
    const char *v = "[compute shader]\nvoid main(){}\n[test]\nssbo 0 subdata float 0 4.7 2.5\n"
                    "probe ssbo float 0 0 ~= 4.7 2.5\nprobe ssbo float 0 0 ~= 4.70001 2.5\n";
    REQUIRE(!parse(v, &s, err), "vkscript: %s", err);
    REQUIRE(s.ncmds == 3 && !apply_write(&s, 0), "%u commands", s.ncmds);
    CHECK(expect_cmd(&s, 1, msg) == 0, "~= 4.7: %s", msg);
    CHECK(expect_cmd(&s, 2, msg) == 1, "~= 4.70001: %s", msg);
    amber_script_free(&s);
}

/* src/float16_helper.cc: a value becomes a float, then its mantissa is cut to
 * 10 bits (toward zero) and f16 denormals are flushed; EXPECT reads halves with
 * denormals flushed and compares them as floats. */
TEST_TIER_FREE(amber_float16_converts_as_amber_does)
{
    /* 1 + 1.5 * 2^-10: round to nearest even would give 1 + 2^-9 (0x3c02), Amber cuts to 1 + 2^-10 (0x3c01);
     * 1e-5 is an f16 denormal (below 2^-14): 0; -65504 is exact: 0xfbff */
    const char *t = "#!amber\n"
                    "BUFFER h DATA_TYPE float16 DATA 1.00146484375 0.00001 -65504 END\n"
                    "EXPECT h IDX 0 EQ 1.0009765625\n"
                    "EXPECT h IDX 0 EQ 1.00146484375\n"
                    "EXPECT h IDX 2 EQ 0\n";
    amber_script s;
    char err[512], msg[512];
    REQUIRE(!parse(t, &s, err), "parse: %s", err);
    uint16_t h[3];
    memcpy(h, s.buffers[0].data, sizeof h);
    CHECK(h[0] == 0x3c01 && h[1] == 0 && h[2] == 0xfbff, "bits %04x %04x %04x", h[0], h[1], h[2]);
    CHECK(expect_cmd(&s, 0, msg) == 0, "EQ 1.0009765625: %s", msg);
    CHECK(expect_cmd(&s, 1, msg) == 1, "EQ 1.00146484375: %s", msg);
    CHECK(expect_cmd(&s, 2, msg) == 0, "denormal flushed: %s", msg);
    /* a stored f16 denormal (0x0001) reads as 0 */
    s.buffers[0].data[2] = 1;
    s.buffers[0].data[3] = 0;
    CHECK(expect_cmd(&s, 2, msg) == 0, "0x0001 read as 0: %s", msg);
    amber_script_free(&s);
}

/* EXPECT over 8- and 16-bit element buffers and their vectors: every
 * component at its offset (vec3 takes the room of 4), no reads past the end. */
TEST_TIER_FREE(amber_expect_small_integer_vectors)
{
    const char *t = "#!amber\n"
                    "BUFFER a DATA_TYPE vec3<int8> DATA 1 -2 3 -4 5 -6 END\n"
                    "BUFFER b DATA_TYPE vec2<uint16> DATA 65535 1 2 3 END\n"
                    "BUFFER c DATA_TYPE int16 DATA -32768 32767 END\n"
                    "EXPECT a IDX 0 EQ 1 -2 3 -4 5 -6\n"
                    "EXPECT a IDX 4 EQ -4 5 -6\n"
                    "EXPECT b IDX 0 EQ 65535 1 2 3\n"
                    "EXPECT c IDX 0 EQ -32768 32767\n"
                    "EXPECT c IDX 2 GT 32766\n"
                    "EXPECT a IDX 4 EQ -4 5 -6 7\n"
                    "EXPECT b IDX 0 EQ 65535 2\n";
    amber_script s;
    char err[512], msg[512];
    REQUIRE(!parse(t, &s, err), "parse: %s", err);
    CHECK(s.buffers[0].size == 8 && s.buffers[0].data[4] == (uint8_t)-4 && s.buffers[0].data[3] == 0, "vec3<int8>");
    for (unsigned i = 0; i < 5; i++)
        CHECK(expect_cmd(&s, i, msg) == 0, "EXPECT %u: %s", i, msg);
    CHECK(expect_cmd(&s, 5, msg) == -1 && strstr(msg, "past the end"), "past the end: %s", msg);
    CHECK(expect_cmd(&s, 6, msg) == 1 && strstr(msg, "value 1"), "mismatch: %s", msg);
    amber_script_free(&s);
    /* VkScript probes of 8/16-bit types on a buffer of another type */
    const char *v = "[compute shader]\nvoid main(){}\n[test]\nssbo 0 subdata i8vec2 0 -1 2 3 -4\n"
                    "probe ssbo u16vec2 0 0 == 0x02ff 0xfc03\nprobe ssbo int8_t 0 3 == -4\n";
    REQUIRE(!parse(v, &s, err) && !apply_write(&s, 0), "vkscript: %s", err);
    CHECK(expect_cmd(&s, 1, msg) == 0, "u16vec2 over i8vec2 bytes: %s", msg);
    CHECK(expect_cmd(&s, 2, msg) == 0, "int8_t: %s", msg);
    amber_script_free(&s);
}

/* docs/vk_script_format.md: `compute entrypoint NAME`, statements continued
 * with a backslash, and [comment] sections. */
TEST_TIER_FREE(amber_vkscript_entrypoint_continuation_comment)
{
    const char *t = "[comment]\nanything [test] ssbo at all\n"
                    "[compute shader spirv]\n  OpCapability Shader\n"
                    "[test]\n"
                    "ssbo 0 subdata int 0 1 2 \\\n   3 4   # comment after the continuation\n"
                    "compute entrypoint other_main\n"
                    "compute 1 \\\n 2 3\n";
    amber_script s;
    char err[512];
    REQUIRE(!parse(t, &s, err), "parse: %s", err);
    CHECK(!strcmp(s.pipelines[0].entry, "other_main"), "entry %s", s.pipelines[0].entry);
    REQUIRE(s.ncmds == 2, "%u commands", s.ncmds);
    CHECK(s.cmds[0].nvalues == 4 && s.cmds[0].line == 6, "continued subdata: %u values, line %d", s.cmds[0].nvalues,
          s.cmds[0].line);
    CHECK(s.cmds[1].kind == AMBER_CMD_RUN && s.cmds[1].groups[2] == 3, "continued compute");
    amber_script_free(&s);
    CHECK(parse("[compute shader]\nvoid main(){}\n[test]\ncompute entrypoint\n", &s, err) == -1 &&
              strstr(err, "compute entrypoint: expected one entry point name"),
          "%s", err);
    amber_script_free(&s);
}

/* docs/amber_script.md: SUBGROUP blocks; spvjit's sub-groups have 1 or 4 to
 * 64 invocations (MIN 4, MAX 64), so REQUIRED_SIZE 2 or 128 skips. */
TEST_TIER_FREE(amber_subgroup_size_control)
{
    const char *t = "#!amber\nSHADER compute s GLSL\nvoid main(){}\nEND\n"
                    "PIPELINE compute p\n  ATTACH s\n  SUBGROUP s\n    FULLY_POPULATED %s\n    VARYING_SIZE off\n"
                    "    REQUIRED_SIZE %s\n  END\nEND\n";
    static const struct {
        const char *full, *size;
        int r;
        uint32_t want;
        const char *skip;
    } cases[] = {
        { "on", "1", 0, 1, NULL },
        { "off", "MIN", 0, 4, NULL },
        { "on", "MAX", 0, 64, NULL },
        { "on", "16", 0, 16, NULL },
        { "off", "2", 0, 0, "sub-groups of 2" },
        { "on", "128", 0, 0, "sub-groups of 128" },
        { "on", "3", -1, 0, NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512], err[512] = "";
        amber_script s;
        snprintf(text, sizeof text, t, cases[i].full, cases[i].size);
        int r = parse(text, &s, err);
        CHECK(r == cases[i].r, "REQUIRED_SIZE %s: %d %s", cases[i].size, r, err);
        CHECK(cases[i].skip ? s.skip && strstr(s.skip, cases[i].skip) : !s.skip, "REQUIRED_SIZE %s: skip %s",
              cases[i].size, s.skip ? s.skip : "-");
        if (!r && !cases[i].skip)
            CHECK(s.npipelines == 1 && s.pipelines[0].subgroup_size == cases[i].want &&
                      s.pipelines[0].full_subgroups == !strcmp(cases[i].full, "on"),
                  "REQUIRED_SIZE %s: size %u full %d", cases[i].size, s.npipelines ? s.pipelines[0].subgroup_size : 0,
                  s.npipelines ? s.pipelines[0].full_subgroups : -1);
        amber_script_free(&s);
    }
}

/* docs/amber_script.md: BIND BUFFER_ARRAY: one descriptor per buffer, with
 * per-element OFFSET, DESCRIPTOR_OFFSET and DESCRIPTOR_RANGE (-1: whole). */
TEST_TIER_FREE(amber_bind_buffer_array)
{
    const char *t = "#!amber\nSHADER compute s GLSL\nvoid main(){}\nEND\n"
                    "BUFFER a DATA_TYPE uint32 SIZE 128 FILL 0\nBUFFER b DATA_TYPE uint32 SIZE 128 FILL 0\n"
                    "PIPELINE compute p\n  ATTACH s\n"
                    "  BIND BUFFER_ARRAY a b a AS storage_dynamic DESCRIPTOR_SET 1 BINDING 2 OFFSET 0 16 32 "
                    "DESCRIPTOR_OFFSET 256 0 4 DESCRIPTOR_RANGE 64 -1 8\nEND\n";
    amber_script s;
    char err[512];
    REQUIRE(!parse(t, &s, err), "parse: %s", err);
    amber_pipeline *p = &s.pipelines[0];
    REQUIRE(p->nbinds == 3, "%u binds", p->nbinds);
    static const unsigned buf[3] = { 0, 1, 0 };
    static const uint64_t off[3] = { 256, 16, 36 }, range[3] = { 64, 0, 8 };
    for (unsigned i = 0; i < 3; i++)
        CHECK(p->binds[i].element == i && p->binds[i].buffer == buf[i] && p->binds[i].offset == off[i] &&
                  p->binds[i].range == range[i] && p->binds[i].set == 1 && p->binds[i].binding == 2 &&
                  p->binds[i].kind == AMBER_BIND_STORAGE_DYNAMIC,
              "element %u: buffer %u offset %llu range %llu", i, p->binds[i].buffer,
              (unsigned long long)p->binds[i].offset, (unsigned long long)p->binds[i].range);
    amber_script_free(&s);
    const char *bad = "#!amber\nSHADER compute s GLSL\nvoid main(){}\nEND\nBUFFER a DATA_TYPE uint32 SIZE 4 FILL 0\n"
                      "PIPELINE compute p\n  ATTACH s\n"
                      "  BIND BUFFER_ARRAY a a AS storage DESCRIPTOR_SET 0 BINDING 0 DESCRIPTOR_OFFSET 0\nEND\n";
    CHECK(parse(bad, &s, err) == -1 && strstr(err, "1 values for 2 buffers"), "%s", err);
    amber_script_free(&s);
}

/* Parsing of the spvjit extensions and the pipeline-level settings:
 * SHADER_OPTIMIZATION flags, COMPILE_OPTIONS per pipeline, RUN ... WORK_DIM
 * and GLOBAL_OFFSET, DEVICE_PROPERTY. */
TEST_TIER_FREE(amber_pipeline_settings_and_run_extensions)
{
    const char *t = "#!amber\nDEVICE_PROPERTY FloatControlsProperties.shaderDenormPreserveFloat32\n"
                    "SHADER compute s OPENCL-C\nkernel void k(global int *o) {}\nEND\n"
                    "PIPELINE compute p\n  ATTACH s ENTRY_POINT k\n  COMPILE_OPTIONS s\n    -DX=1\n    -DY=2\n  END\n"
                    "  SHADER_OPTIMIZATION s\n    --eliminate-dead-code-aggressive\n    -O\n  END\nEND\n"
                    "DERIVE_PIPELINE q FROM p\nEND\n"
                    "RUN p 4 2 1 WORK_DIM 2 GLOBAL_OFFSET 3 5 0\n";
    amber_script s;
    char err[512];
    REQUIRE(!parse(t, &s, err), "parse: %s", err);
    CHECK(s.nproperties == 1 && !strcmp(s.properties[0], "FloatControlsProperties.shaderDenormPreserveFloat32"),
          "DEVICE_PROPERTY");
    CHECK(amber_property_supported(s.properties[0]) &&
              !amber_property_supported("FloatControlsProperties.shaderRoundingModeRTZFloat32"),
          "supported properties");
    for (unsigned i = 0; i < 2; i++) {
        amber_pipeline *p = &s.pipelines[i];
        CHECK(p->compile_options && strstr(p->compile_options, "-DX=1") && strstr(p->compile_options, "-DY=2"),
              "pipeline %u options", i);
        CHECK(p->nopt_flags == 2 && !strcmp(p->opt_flags[0], "--eliminate-dead-code-aggressive") &&
                  !strcmp(p->opt_flags[1], "-O"),
              "pipeline %u optimization flags", i);
    }
    const amber_cmd *c = &s.cmds[0];
    CHECK(c->work_dim == 2 && c->global_offset[0] == 3 && c->global_offset[1] == 5 && c->groups[0] == 4,
          "RUN extensions");
    amber_script_free(&s);
    CHECK(parse("#!amber\nSHADER compute s GLSL\nvoid main(){}\nEND\nPIPELINE compute p\n  ATTACH s\nEND\n"
                "RUN p 1 2 1 WORK_DIM 1\n",
                &s, err) == -1 &&
              strstr(err, "group count of dimension 1 must be 1"),
          "WORK_DIM 1 with 2 groups in y: %s", err);
    amber_script_free(&s);
}

/* docs/amber_script.md: a shader's source may be a VIRTUAL_FILE, named with
 * or without quotes. */
TEST_TIER_FREE(amber_shader_from_virtual_file)
{
    const char *t = "#!amber\nVIRTUAL_FILE \"dir/k.comp\"\n#version 450\nvoid main() {}\nEND\n"
                    "SHADER compute s GLSL VIRTUAL_FILE dir/k.comp\n"
                    "SHADER compute u GLSL FILE \"dir/k.comp\"\n";
    amber_script s;
    char err[512];
    REQUIRE(!parse(t, &s, err), "parse: %s", err);
    REQUIRE(s.nshaders == 2, "%u shaders", s.nshaders);
    for (unsigned i = 0; i < 2; i++)
        CHECK(s.shaders[i].source && !strcmp(s.shaders[i].source, "#version 450\nvoid main() {}\n"),
              "shader %u source '%s'", i, s.shaders[i].source ? s.shaders[i].source : "");
    amber_script_free(&s);
}
