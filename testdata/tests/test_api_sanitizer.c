/* testdata/tests/test_api_sanitizer.c — memory=check's reports, word by word,
 * on a planted bug (testdata/jit/san_oob.comp: the last work-item stores one
 * element past the end) and a planted work-group race (san_race.comp: the
 * barrier between a store and the neighbour's load is missing).  The
 * instruction's text and ids come from the committed modules (spirv-dis
 * --raw-id shows the same ids, checked here), the source line from the
 * source file; one worker thread, so the first report is the first
 * work-group's.  No false reports on correct kernels: test_api_kernels.c
 * (the seed kernels under check) and test_api_memory.c (in-bounds runs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_test_util.h"
#include "harness.h"
#include "lib/spvjit.h"

/* The 1-based line of the source file holding `text`, or 0. */
static unsigned source_line_of(const char *rel, const char *text)
{
    size_t len;
    char *src = test_read_file(test_data_path(rel), &len);
    char *at = src ? strstr(src, text) : NULL;
    unsigned line = 0;
    if (at) {
        line = 1;
        for (char *p = src; p < at; p++)
            line += *p == '\n';
    }
    free(src);
    return line;
}

/* spirv-dis --raw-id of the module has `text` after `after` (NULL: anywhere). */
static bool disassembly_has(const char *rel, const char *after, const char *text)
{
    char cmd[1024], *out = NULL;
    snprintf(cmd, sizeof cmd, "spirv-dis --raw-id '%s'", test_data_path(rel));
    bool ok = test_run_capture(cmd, &out) == 0 && out;
    const char *from = ok && after ? strstr(out, after) : out;
    ok = ok && from && strstr(from, text);
    free(out);
    return ok;
}

static spvjit_context *one_thread(void)
{
    spvjit_context *ctx = NULL;
    spvjit_context_options co = { .threads = 1, .disk_cache_dir = "" };
    return spvjit_context_create(&co, &ctx) == SPVJIT_OK ? ctx : NULL;
}

static spvjit_kernel *build_check(spvjit_context *ctx, const char *rel)
{
    spvjit_module *m = api_load(ctx, rel);
    spvjit_kernel *k = NULL;
    spvjit_build_options o = { .memory = SPVJIT_MEMORY_CHECK };
    if (!m || spvjit_kernel_build(m, NULL, NULL, &o, &k) != SPVJIT_OK)
        fprintf(stderr, "%s: %s\n", rel, spvjit_last_error());
    spvjit_module_destroy(m);
    return k;
}

TEST(memory_check_report_out_of_bounds_store)
{
    spvjit_context *ctx = one_thread();
    REQUIRE(ctx, "context");
    spvjit_kernel *k = build_check(ctx, "jit/san_oob.comp.spv");
    REQUIRE(k, "build");
    unsigned line = source_line_of("jit/san_oob.comp", "data.d[gid + 1u] = gid;");
    CHECK(line == 9, "the planted store is on line %u of san_oob.comp", line);
    CHECK(disassembly_has("jit/san_oob.comp.spv", "OpLine %1 9 0\n", "OpStore %28 %26\n"),
          "spirv-dis: OpStore %%28 %%26 after OpLine 9");
    uint32_t d[128 + 4];
    for (int rep = 0; rep < 2; rep++) { /* the dispatch after a report runs as usual */
        memset(d, 0xab, sizeof d);
        spvjit_bind_buffer(k, 0, 0, d, 128 * 4);
        spvjit_status st = spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { 2, 1, 1 } });
        CHECK(st == SPVJIT_ERROR_MEMORY_CHECK, "status %s", spvjit_status_name(st));
        char want[1024];
        snprintf(want, sizeof want,
                 "%s: kernel \"main\": out-of-bounds store in work-group (1,0,0), work-item (63,0,0): OpStore %%28 "
                 "%%26 (san_oob.comp:%u): set 0 binding 0 (data): 4 bytes at byte offset 512 (element 128), but it "
                 "has 512 bytes (128 elements)",
                 test_data_path("jit/san_oob.comp.spv"), line);
        CHECK(!strcmp(spvjit_last_error(), want), "report:\n  got  %s\n  want %s", spvjit_last_error(), want);
        /* like robust, the store was dropped: the words after the range are untouched */
        CHECK(d[128] == 0xabababab && d[131] == 0xabababab, "the store landed past the range");
        for (uint32_t i = 0; i < 127; i++)
            CHECK(d[i + 1] == i || d[i + 1] == 0xabababab, "d[%u] = %#x", i + 1, d[i + 1]);
    }
    /* bound one element more, the same kernel runs clean */
    spvjit_bind_buffer(k, 0, 0, d, sizeof d);
    CHECK(spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { 2, 1, 1 } }) == SPVJIT_OK, "%s", spvjit_last_error());
    for (uint32_t i = 0; i < 128; i++)
        CHECK(d[i + 1] == i, "d[%u] = %u", i + 1, d[i + 1]);
    spvjit_kernel_destroy(k);
    spvjit_context_destroy(ctx);
}

TEST(memory_check_report_workgroup_race)
{
    spvjit_context *ctx = one_thread();
    REQUIRE(ctx, "context");
    spvjit_kernel *k = build_check(ctx, "jit/san_race.comp.spv");
    REQUIRE(k, "build");
    unsigned store = source_line_of("jit/san_race.comp", "s[l] = data.d[gl_GlobalInvocationID.x];");
    unsigned load = source_line_of("jit/san_race.comp", "data.d[gl_GlobalInvocationID.x] = s[(l + 1u) % 64u];");
    CHECK(store == 10 && load == 11, "source lines %u, %u", store, load);
    CHECK(disassembly_has("jit/san_race.comp.spv", "OpLine %1 10 0\n", "OpStore %36 %34\n") &&
              disassembly_has("jit/san_race.comp.spv", "OpLine %1 11 0\n", "%44 = OpLoad %17 %43\n"),
          "spirv-dis: the store and the load");
    float d[128];
    for (int i = 0; i < 128; i++)
        d[i] = (float)i;
    spvjit_bind_buffer(k, 0, 0, d, sizeof d);
    spvjit_status st = spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { 2, 1, 1 } });
    CHECK(st == SPVJIT_ERROR_MEMORY_CHECK, "status %s", spvjit_status_name(st));
    /* Work-items run one after the other: item 0 stores s[0] and loads s[1],
     * then item 1 stores s[1].  (Items run side by side would see it the
     * other way round: item 0's load after item 1's store.) */
    char want[2][1024];
    snprintf(want[0], sizeof want[0],
             "%s: kernel \"main\": data race on work-group memory in work-group (0,0,0) after 0 barriers: work-item "
             "(1,0,0) writes 4 bytes at byte offset 4 of variable s (Workgroup, float[64]) at OpStore %%36 %%34 "
             "(san_race.comp:%u), where work-item (0,0,0) read at %%44 = OpLoad %%float %%43 (san_race.comp:%u), "
             "with no barrier between them",
             test_data_path("jit/san_race.comp.spv"), store, load);
    snprintf(want[1], sizeof want[1],
             "%s: kernel \"main\": data race on work-group memory in work-group (0,0,0) after 0 barriers: work-item "
             "(0,0,0) reads 4 bytes at byte offset 4 of variable s (Workgroup, float[64]) at %%44 = OpLoad %%float "
             "%%43 (san_race.comp:%u), where work-item (1,0,0) wrote at OpStore %%36 %%34 (san_race.comp:%u), with "
             "no barrier between them",
             test_data_path("jit/san_race.comp.spv"), load, store);
    const char *e = spvjit_last_error();
    CHECK(!strcmp(e, want[0]) || !strcmp(e, want[1]), "report:\n  got  %s\n  want %s", e, want[0]);
    spvjit_kernel_destroy(k);
    /* the same race under robust: no report, the kernel just runs */
    spvjit_module *m = api_load(ctx, "jit/san_race.comp.spv");
    REQUIRE(m && spvjit_kernel_build(m, NULL, NULL, NULL, &k) == SPVJIT_OK, "build robust");
    spvjit_bind_buffer(k, 0, 0, d, sizeof d);
    CHECK(spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { 2, 1, 1 } }) == SPVJIT_OK, "robust: %s",
          spvjit_last_error());
    spvjit_kernel_destroy(k);
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
}

/* Atomics on the same work-group word do not race with each other; a plain
 * load of it after a barrier does not either; the same load before the
 * barrier does. */
static const char atomics_glsl[] = "#version 450\n"
                                   "layout(local_size_x = 32) in;\n"
                                   "layout(set = 0, binding = 0) buffer D { uint d[]; };\n"
                                   "layout(push_constant) uniform P { uint early; } p;\n"
                                   "shared uint n;\n"
                                   "void main() {\n"
                                   "  if (gl_LocalInvocationID.x == 0u) n = 0u;\n"
                                   "  barrier();\n"
                                   "  atomicAdd(n, 1u);\n"
                                   "  if (p.early != 0u && gl_LocalInvocationID.x == 5u) d[0] = n;\n"
                                   "  barrier();\n"
                                   "  d[1u + gl_GlobalInvocationID.x] = n;\n"
                                   "}\n";

TEST(memory_check_atomics_and_barriers_do_not_race)
{
    char *dir = test_temp_dir("sanitizer");
    REQUIRE(dir, "temp dir");
    char src[512], spv[512], cmd[2048], *out = NULL;
    snprintf(src, sizeof src, "%s/a.comp", dir);
    snprintf(spv, sizeof spv, "%s/a.spv", dir);
    FILE *f = fopen(src, "w");
    REQUIRE(f, "write %s", src);
    fputs(atomics_glsl, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "glslangValidator -V --target-env vulkan1.1 -o '%s' '%s'", spv, src);
    int rc = test_run_capture(cmd, &out);
    CHECK(rc == 0, "glslangValidator: %s", out ? out : "");
    free(out);
    spvjit_context *ctx = one_thread();
    spvjit_module *m = NULL;
    spvjit_kernel *k = NULL;
    spvjit_build_options o = { .memory = SPVJIT_MEMORY_CHECK };
    if (rc == 0 && ctx && spvjit_module_load_file(ctx, spv, &m) == SPVJIT_OK &&
        spvjit_kernel_build(m, NULL, NULL, &o, &k) == SPVJIT_OK) {
        uint32_t d[1 + 64] = { 0 }, early = 0;
        spvjit_bind_buffer(k, 0, 0, d, sizeof d);
        spvjit_set_push_constants(k, &early, 4);
        CHECK(spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { 2, 1, 1 } }) == SPVJIT_OK, "%s",
              spvjit_last_error());
        for (int i = 0; i < 64; i++)
            CHECK(d[1 + i] == 32, "d[%d] = %u", 1 + i, d[1 + i]);
        early = 1;
        spvjit_set_push_constants(k, &early, 4);
        CHECK(spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { 2, 1, 1 } }) == SPVJIT_ERROR_MEMORY_CHECK,
              "a plain load beside the atomics");
        const char *e = spvjit_last_error();
        CHECK(strstr(e, "data race on work-group memory in work-group (0,0,0) after 1 barrier: ") &&
                  strstr(e, " of variable n (Workgroup, uint) at ") && strstr(e, ", with no barrier between them"),
              "%s", e);
    } else {
        CHECK(0, "build: %s", spvjit_last_error());
    }
    spvjit_kernel_destroy(k);
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
    test_remove_dir(dir);
    free(dir);
}
