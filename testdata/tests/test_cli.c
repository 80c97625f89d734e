/* testdata/tests/test_cli.c — the spvjit command's info/specialize/help paths.
 *
 * References: spirv-dis (entry points, SpecId decorations), spirv-val (the
 * specialized output), and the documented exit-status / one-line-error rules.
 */
#include <stdint.h>
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
    int n = test_count(out, needle);
    free(out);
    return n;
}

TEST_TIER_FREE(cli_help_and_version)
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

/* --- module facts from spirv-dis ------------------------------------------------------
 * SpecId decorations, the spec constants' types and defaults, and which
 * SpecIds make up the WorkgroupSize builtin: what `spvjit info` must report. */

#define MAX_IDS 4096
typedef struct dis_facts {
    int spec_id[MAX_IDS];  /* SpecId of an id, -1 if none */
    char type[MAX_IDS][8]; /* for type ids: "u32", "f16", "bool" */
    uint32_t const_type[MAX_IDS];
    char value[MAX_IDS][48]; /* OpSpecConstant literal, "true"/"false" */
    uint32_t wg_parts[3];
    uint32_t wg_id;
} dis_facts;

static bool dis_facts_of(const char *spv, dis_facts *f)
{
    char cmd[2048], *out = NULL;
    snprintf(cmd, sizeof cmd, "spirv-dis --raw-id --no-color '%s'", spv);
    if (test_run_capture(cmd, &out) != 0) {
        free(out);
        return false;
    }
    memset(f, 0, sizeof *f);
    for (int i = 0; i < MAX_IDS; i++)
        f->spec_id[i] = -1;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        unsigned id, a, b, c, d, w, sgn;
        int end = 0; /* %n: the whole literal text matched (sscanf counts a partial match's ids) */
        char lit[48];
        if (sscanf(line, " OpDecorate %%%u SpecId %u", &id, &a) == 2 && id < MAX_IDS)
            f->spec_id[id] = (int)a;
        else if (sscanf(line, " OpDecorate %%%u BuiltIn WorkgroupSize%n", &id, &end) == 1 && end)
            f->wg_id = id;
        else if (sscanf(line, " %%%u = OpTypeInt %u %u", &id, &w, &sgn) == 3 && id < MAX_IDS)
            snprintf(f->type[id], sizeof f->type[id], "%c%u", sgn ? 'i' : 'u', w);
        else if (sscanf(line, " %%%u = OpTypeFloat %u", &id, &w) == 2 && id < MAX_IDS)
            snprintf(f->type[id], sizeof f->type[id], "f%u", w);
        else if (sscanf(line, " %%%u = OpTypeBool%n", &id, &end) == 1 && end && id < MAX_IDS)
            snprintf(f->type[id], sizeof f->type[id], "bool");
        else if (sscanf(line, " %%%u = OpSpecConstant %%%u %47s", &id, &a, lit) == 3 && id < MAX_IDS) {
            f->const_type[id] = a;
            snprintf(f->value[id], sizeof f->value[id], "%s", lit);
        } else if (sscanf(line, " %%%u = OpSpecConstantTrue %%%u", &id, &a) == 2 && id < MAX_IDS) {
            f->const_type[id] = a;
            snprintf(f->value[id], sizeof f->value[id], "true");
        } else if (sscanf(line, " %%%u = OpSpecConstantFalse %%%u", &id, &a) == 2 && id < MAX_IDS) {
            f->const_type[id] = a;
            snprintf(f->value[id], sizeof f->value[id], "false");
        } else if (sscanf(line, " %%%u = OpSpecConstantComposite %%%u %%%u %%%u %%%u", &id, &a, &b, &c, &d) == 5 &&
                   id == f->wg_id) {
            f->wg_parts[0] = b;
            f->wg_parts[1] = c;
            f->wg_parts[2] = d;
        }
    }
    free(out);
    return true;
}

/* The line of `info` output about SpecId sid ("  SpecId N ..."), copied into buf; the count of such lines. */
static int spec_line(const char *out, int sid, char *buf, size_t len)
{
    char key[32];
    snprintf(key, sizeof key, "  SpecId %d ", sid);
    int n = 0;
    for (const char *p = out; (p = strstr(p, key)); p++) {
        if (n++ == 0) {
            const char *e = strchr(p, '\n');
            snprintf(buf, len, "%.*s", (int)(e ? e - p : (long)strlen(p)), p);
        }
    }
    return n;
}

TEST(cli_info_lists_entry_points_and_spec_constants_like_spirv_dis)
{
    static const char *const kernels[] = { "mm.comp.spv",          "mm.cl.spv",         "conv3x3.comp.spv",
                                           "conv3x3.cl.spv",       "reduce.comp.spv",   "saxpy.comp.spv",
                                           "saxpy.cl.spv",         "spec_bool.spv",     "spec_workgroupsize.spv",
                                           "spec_localsizeid.spv", "spec_arraylen.spv", "spec_ops_kernel.spv" };
    static dis_facts f;
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
        char rel[256];
        snprintf(rel, sizeof rel, "kernels/%s", kernels[i]);
        const char *path = test_data_path(rel);
        char *out = NULL;
        int st = run(&out, "info %s", path, NULL);
        CHECK(st == 0, "info %s: exit %d: %s", kernels[i], st, out);
        REQUIRE(dis_facts_of(path, &f), "spirv-dis %s", kernels[i]);
        int entries = 0, lines = 0, distinct = 0;
        for (char *p = out; (p = strstr(p, "entry point \"")); p++)
            entries++;
        for (char *p = out; (p = strstr(p, "  SpecId ")); p++)
            lines++;
        CHECK(entries == dis_count(path, "OpEntryPoint"), "%s: %d entry points listed, spirv-dis has %d", kernels[i],
              entries, dis_count(path, "OpEntryPoint"));
        /* Each SpecId once (glslang puts SpecId 0 on three constants for mm.comp), with its type and default. */
        bool seen[256] = { false };
        for (uint32_t id = 0; id < MAX_IDS; id++) {
            int sid = f.spec_id[id];
            if (sid < 0 || sid >= 256 || !f.value[id][0])
                continue;
            char line[512] = "";
            CHECK(spec_line(out, sid, line, sizeof line) == 1, "%s: SpecId %d listed %d times: %s", kernels[i], sid,
                  spec_line(out, sid, line, sizeof line), out);
            const char *type = f.type[f.const_type[id]];
            char want[96];
            snprintf(want, sizeof want, "(%s, default ", type);
            const char *def = strstr(line, want);
            CHECK(def, "%s: SpecId %d: \"%s\" lacks \"%s\"", kernels[i], sid, line, want);
            if (def && type[0] == 'f')
                CHECK(strtod(def + strlen(want), NULL) == strtod(f.value[id], NULL), "%s: SpecId %d default: %s vs %s",
                      kernels[i], sid, line, f.value[id]);
            else if (def)
                CHECK(!strncmp(def + strlen(want), f.value[id], strlen(f.value[id])) &&
                          def[strlen(want) + strlen(f.value[id])] == ')',
                      "%s: SpecId %d default: %s vs %s", kernels[i], sid, line, f.value[id]);
            if (!seen[sid])
                distinct++;
            seen[sid] = true;
        }
        CHECK(lines == distinct, "%s: %d SpecId lines, the module has %d SpecIds", kernels[i], lines, distinct);
        /* The SpecIds of the WorkgroupSize builtin: each says which dimension it sets. */
        for (int d = 0; f.wg_id && d < 3; d++) {
            int sid = f.wg_parts[d] < MAX_IDS ? f.spec_id[f.wg_parts[d]] : -1;
            if (sid < 0)
                continue;
            char line[512] = "", dim[32], ls[32];
            spec_line(out, sid, line, sizeof line);
            snprintf(dim, sizeof dim, "local_size_%c", "xyz"[d]);
            snprintf(ls, sizeof ls, "%c = SpecId %d", "xyz"[d], sid);
            CHECK(strstr(line, "sets ") && strstr(line, dim), "%s: SpecId %d: \"%s\" lacks \"%s\"", kernels[i], sid,
                  line, dim);
            CHECK(strstr(out, ls), "%s: local size lacks \"%s\": %s", kernels[i], ls, out);
        }
        CHECK(strstr(out, strstr(kernels[i], ".cl.") || strstr(kernels[i], "kernel") ? "Kernel (OpenCL)"
                                                                                     : "Shader (Vulkan)"),
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
    CHECK(strstr(out, "SpecId 0 \"BS\" (u32, default 16) \u2014 sets local_size_x, local_size_y"), "SpecId 0: %s", out);
    CHECK(strstr(out, "local size: x = SpecId 0, y = SpecId 0, z = 1 (16,16,1 at the defaults)"), "local size: %s",
          out);
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
