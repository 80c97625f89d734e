/* testdata/tests/test_cli.c — the spvjit command's info/specialize/help paths.
 *
 * References: spirv-dis (entry points, SpecId decorations), spirv-val (the
 * specialized output), and the documented exit-status / one-line-error rules.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static const char *bin(void)
{
    const char *b = getenv("SPVJIT_BIN");
    return b ? b : "build/spvjit";
}

static int run(char **out, const char *fmt, const char *a, const char *b)
{
    char cmd[4096];
    char args[3000];
    snprintf(args, sizeof args, fmt, a ? a : "", b ? b : "");
    snprintf(cmd, sizeof cmd, "%s %s", bin(), args);
    return test_run_capture(cmd, out);
}

/* Count lines of `spirv-dis` output containing `needle`. */
static int dis_count(const char *spv, const char *needle)
{
    char cmd[2048], *out = NULL;
    snprintf(cmd, sizeof cmd, "spirv-dis --raw-id --no-color '%s'", spv);
    if (test_run_capture(cmd, &out) != 0) {
        free(out);
        return -1;
    }
    int n = 0;
    for (char *p = out; (p = strstr(p, needle)); p++)
        n++;
    free(out);
    return n;
}

TEST(cli_help_and_version)
{
    char *out = NULL;
    CHECK(run(&out, "--help", NULL, NULL) == 0 && strstr(out, "specialize"), "--help: %s", out);
    free(out);
    CHECK(run(&out, "--version", NULL, NULL) == 0 && strstr(out, "spvjit "), "--version: %s", out);
    free(out);
    int st = run(&out, "frobnicate", NULL, NULL);
    CHECK(st != 0 && strstr(out, "spvjit: unknown command 'frobnicate'"), "unknown command: %d %s", st, out);
    free(out);
}

TEST(cli_info_lists_entry_points_and_spec_constants_like_spirv_dis)
{
    static const char *const kernels[] = { "mm.comp.spv",     "mm.cl.spv",      "conv3x3.comp.spv", "conv3x3.cl.spv",
                                           "reduce.comp.spv", "saxpy.comp.spv", "saxpy.cl.spv" };
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
        char rel[256];
        snprintf(rel, sizeof rel, "kernels/%s", kernels[i]);
        const char *path = test_data_path(rel);
        char *out = NULL;
        int st = run(&out, "info %s", path, NULL);
        CHECK(st == 0, "info %s: exit %d: %s", kernels[i], st, out);
        int entries = 0, specs = 0;
        for (char *p = out; (p = strstr(p, "entry point \"")); p++)
            entries++;
        for (char *p = out; (p = strstr(p, "  SpecId ")); p++)
            specs++;
        CHECK(entries == dis_count(path, "OpEntryPoint"), "%s: %d entry points listed, spirv-dis has %d", kernels[i],
              entries, dis_count(path, "OpEntryPoint"));
        CHECK(specs == dis_count(path, " SpecId "), "%s: %d spec constants listed, spirv-dis has %d", kernels[i], specs,
              dis_count(path, " SpecId "));
        CHECK(strstr(out, strstr(kernels[i], ".cl.") ? "Kernel (OpenCL)" : "Shader (Vulkan)"),
              "%s: flavour missing: %s", kernels[i], out);
        free(out);
    }
}

TEST(cli_info_of_mm_shows_interface)
{
    char *out = NULL;
    int st = run(&out, "info %s", test_data_path("kernels/mm.comp.spv"), NULL);
    CHECK(st == 0, "exit %d", st);
    CHECK(strstr(out, "set 0 binding 0: storage buffer"), "binding 0 missing: %s", out);
    CHECK(strstr(out, "set 0 binding 2: storage buffer"), "binding 2 missing: %s", out);
    CHECK(strstr(out, "push constants"), "push constants missing: %s", out);
    CHECK(strstr(out, "SpecId 0"), "spec id 0 missing: %s", out);
    /* BS defaults to 16: two shared float[256] tiles. */
    CHECK(strstr(out, "work-group memory: 2048 bytes"), "work-group memory size: %s", out);
    free(out);
}

TEST(cli_specialize_output_passes_spirv_val_and_has_no_spec_constants)
{
    const char *in = test_data_path("kernels/mm.comp.spv");
    char outp[] = "/tmp/spvjit_spec_XXXXXX";
    int fd = mkstemp(outp);
    REQUIRE(fd >= 0, "mkstemp");
    char *out = NULL;
    int st = run(&out, "specialize %s -D 0=8 -o %s", in, outp);
    CHECK(st == 0, "specialize: exit %d: %s", st, out);
    free(out);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "spirv-val --target-env vulkan1.1 '%s'", outp);
    st = test_run_capture(cmd, &out);
    CHECK(st == 0, "spirv-val rejects the specialized module: %s", out);
    free(out);
    CHECK(dis_count(outp, "OpSpecConstant") == 0, "spec constants left in the output");
    CHECK(dis_count(outp, "LocalSize 8 8 1") == 1, "LocalSize 8 8 1 expected in the output");
    remove(outp);
}

TEST(cli_errors_are_one_clear_line)
{
    char *out = NULL;
    const char *mm = test_data_path("kernels/mm.comp.spv");
    int st = run(&out, "specialize %s -D 99=1 -o /tmp/spvjit_never.spv", mm, NULL);
    CHECK(st == 1 && strstr(out, "99") && strstr(out, "0"), "unknown SpecId: exit %d: %s", st, out);
    CHECK(strchr(out, '\n') == out + strlen(out) - 1, "more than one line: %s", out);
    free(out);
    st = run(&out, "specialize %s -D 0=true -o /tmp/spvjit_never.spv", mm, NULL);
    CHECK(st == 1 && strncmp(out, "spvjit: ", 8) == 0, "bool into uint: exit %d: %s", st, out);
    free(out);
    st = run(&out, "info /nonexistent/x.spv", NULL, NULL);
    CHECK(st == 1 && strstr(out, "/nonexistent/x.spv"), "missing file: exit %d: %s", st, out);
    free(out);
}

/* A value can make a valid module invalid (here a spec constant used as the
 * barrier's scope): the specialized output is validated and the error says so. */
TEST(cli_specialize_reports_values_that_make_the_module_invalid)
{
    static const char src[] = "OpCapability Addresses\nOpCapability Kernel\nOpMemoryModel Physical64 OpenCL\n"
                              "OpEntryPoint Kernel %k \"k\"\nOpDecorate %scope SpecId 3\n%void = OpTypeVoid\n"
                              "%uint = OpTypeInt 32 0\n%scope = OpSpecConstant %uint 2\n%sem = OpConstant %uint 272\n"
                              "%fn = OpTypeFunction %void\n%k = OpFunction %void None %fn\n%l = OpLabel\n"
                              "OpControlBarrier %scope %scope %sem\nOpReturn\nOpFunctionEnd\n";
    char asmp[] = "/tmp/spvjit_scope_XXXXXX";
    int fd = mkstemp(asmp);
    REQUIRE(fd >= 0, "mkstemp");
    FILE *f = fdopen(fd, "w");
    fputs(src, f);
    fclose(f);
    char spv[64], cmd[512], *out = NULL;
    snprintf(spv, sizeof spv, "%s.spv", asmp);
    snprintf(cmd, sizeof cmd, "spirv-as --target-env spv1.2 -o %s %s", spv, asmp);
    REQUIRE(test_run_capture(cmd, &out) == 0, "spirv-as: %s", out);
    free(out);
    int st = run(&out, "specialize %s -D 3=2 -o /tmp/spvjit_scope_ok.spv", spv, NULL);
    CHECK(st == 0, "the default-like value 2 (Workgroup) must specialize: %s", out);
    free(out);
    st = run(&out, "specialize %s -D 3=1538 -o /tmp/spvjit_scope_bad.spv", spv, NULL);
    CHECK(st == 1 && strstr(out, "after specialization") && strstr(out, spv), "scope 1538: exit %d: %s", st, out);
    free(out);
    remove(asmp);
    remove(spv);
    remove("/tmp/spvjit_scope_ok.spv");
}
