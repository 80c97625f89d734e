/* testdata/tests/test_amber_runner.c — `spvjit amber` as a test runner: each
 * script in a process of its own (-j N), a crash or a hang is that script's
 * result (crash / timeout) and the others finish; --json and --junit files
 * hold one record per script.  References: the scripts in
 * testdata/amber/runner/ (a null store, a spin loop, a wrong EXPECT) whose
 * outcome is known from their source; JSON read back with json-c, JUnit XML
 * with Python's xml.etree (another parser than the one that wrote it).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "harness.h"
#include "util/timer.h"

static const char *bin(void)
{
    const char *b = getenv("SPVJIT_BIN");
    return b ? b : "build/spvjit";
}

/* The status JSON gives a script whose path ends in `tail`, or NULL. */
static const char *json_status(json_object *root, const char *tail, json_object **rec)
{
    json_object *scripts;
    if (!json_object_object_get_ex(root, "scripts", &scripts))
        return NULL;
    for (size_t i = 0; i < json_object_array_length(scripts); i++) {
        json_object *r = json_object_array_get_idx(scripts, i), *path, *status;
        if (!json_object_object_get_ex(r, "script", &path) || !json_object_object_get_ex(r, "status", &status))
            continue;
        const char *p = json_object_get_string(path);
        size_t lp = strlen(p), lt = strlen(tail);
        if (lp >= lt && !strcmp(p + lp - lt, tail)) {
            *rec = r;
            return json_object_get_string(status);
        }
    }
    return NULL;
}

TEST(amber_runner_isolates_crashes_and_hangs)
{
    char dir[] = "/tmp/spvjit-amber-runner-XXXXXX";
    REQUIRE(mkdtemp(dir), "mkdtemp");
    char json[256], junit[256], cmd[4096], *out = NULL;
    snprintf(json, sizeof json, "%s/r.json", dir);
    snprintf(junit, sizeof junit, "%s/r.xml", dir);
    const char *r = test_data_path("amber/runner"), *a = test_data_path("amber");
    snprintf(cmd, sizeof cmd,
             "%s amber -j 3 --timeout 3 --memory unchecked --json %s --junit %s %s/hang.amber %s/crash.amber "
             "%s/fail.amber "
             "%s/opencl_ndrange.amber %s/skip_image.amber 2>&1",
             bin(), json, junit, r, r, r, a, a);
    double t0 = util_now_ms();
    int st = test_run_capture(cmd, &out);
    double ms = util_now_ms() - t0;
    CHECK(st == 1, "exit status %d (something failed): %s", st, out);
    /* the hang's dispatch stops after 3 s; everything else runs beside it */
    CHECK(ms < 20000, "took %.0f ms", ms);
    CHECK(out && strstr(out, "hang.amber: timeout: line 16: RUN: SPVJIT_ERROR_TIMEOUT: ") &&
              strstr(out, "kernel \"spin\": timed out: stopped after "),
          "timeout line: %s", out);
    CHECK(out && strstr(out, "crash.amber: crash: "), "crash line: %s", out);
    CHECK(out && strstr(out, "fail.amber: fail: line 15: EXPECT b IDX 0 EQ: value 0 (byte 0) expected 43, got 42"),
          "fail line: %s", out);
    CHECK(out && strstr(out, "opencl_ndrange.amber: pass"), "pass line: %s", out);
    CHECK(out && strstr(out, "1 passed, 1 failed, 1 skipped, 1 crashed, 1 timed out"), "summary: %s", out);
    CHECK(out && strstr(out, "directory") && strstr(out, "amber/runner"), "table by directory: %s", out);
    CHECK(out && !strstr(out, "\r["), "no progress line without a terminal");
    free(out);

    json_object *root = json_object_from_file(json), *rec = NULL;
    REQUIRE(root, "%s does not parse: %s", json, json_util_get_last_err());
    static const struct {
        const char *tail, *status;
    } want[] = { { "hang.amber", "timeout" },
                 { "crash.amber", "crash" },
                 { "fail.amber", "fail" },
                 { "opencl_ndrange.amber", "pass" },
                 { "skip_image.amber", "skip" } };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const char *s = json_status(root, want[i].tail, &rec);
        CHECK(s && !strcmp(s, want[i].status), "%s: JSON status %s, want %s", want[i].tail, s ? s : "(none)",
              want[i].status);
        json_object *t, *m;
        CHECK(rec && json_object_object_get_ex(rec, "time", &t) && json_object_get_double(t) >= 0 &&
                  json_object_object_get_ex(rec, "message", &m),
              "%s: time and message", want[i].tail);
    }
    json_object *totals, *n;
    CHECK(json_object_object_get_ex(root, "totals", &totals) && json_object_object_get_ex(totals, "crash", &n) &&
              json_object_get_int(n) == 1,
          "totals");
    json_object_put(root);

    /* JUnit: one testsuite per directory, failures/errors/skipped counted */
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 -c \"import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); "
             "c = r.findall('.//testcase'); print(r.tag, len(r.findall('testsuite')), len(c), "
             "sum(1 for t in c if t.find('failure') is not None), sum(1 for t in c if t.find('error') is not None), "
             "sum(1 for t in c if t.find('skipped') is not None), r.get('errors'))\" %s",
             junit);
    out = NULL;
    CHECK(test_run_capture(cmd, &out) == 0 && out && !strncmp(out, "testsuites 2 5 1 2 1 2", 22), "JUnit: %s", out);
    free(out);
    unlink(json);
    unlink(junit);
    rmdir(dir);
}

TEST(amber_runner_options_and_exit_status)
{
    char cmd[4096], *out = NULL;
    /* only passes and skips: exit status 0; -q prints only the summary */
    snprintf(cmd, sizeof cmd, "%s amber -q -j2 %s %s 2>&1", bin(), test_data_path("amber/opencl_ndrange.amber"),
             test_data_path("amber/skip_image.amber"));
    CHECK(test_run_capture(cmd, &out) == 0 && out && !strstr(out, ": pass") &&
              strstr(out, "1 passed, 0 failed, 1 skipped, 0 crashed, 0 timed out"),
          "-q: %s", out);
    free(out);
    /* --no-fork runs in this process */
    snprintf(cmd, sizeof cmd, "%s amber --no-fork %s 2>&1", bin(), test_data_path("amber/opencl_ndrange.amber"));
    CHECK(test_run_capture(cmd, &out) == 0 && out && strstr(out, ": pass"), "--no-fork: %s", out);
    free(out);
    /* --target-env is the environment of shaders without TARGET_ENV, before what requirements imply:
     * as SPIR-V 1.0 the 1.4 instruction OpPtrEqual does not assemble */
    snprintf(cmd, sizeof cmd, "%s amber --target-env spv1.0 %s 2>&1", bin(),
             test_data_path("amber/spirv14_requires.vkscript"));
    CHECK(test_run_capture(cmd, &out) == 1 && out && strstr(out, "Invalid Opcode name 'OpPtrEqual'"),
          "--target-env spv1.0: %s", out);
    free(out);
    /* --memory: the default (robust) passes robust_access.amber, check stops at its first bad store */
    snprintf(cmd, sizeof cmd, "%s amber %s 2>&1", bin(), test_data_path("amber/robust_access.amber"));
    CHECK(test_run_capture(cmd, &out) == 0 && out && strstr(out, "robust_access.amber: pass"), "robust: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "%s amber --memory check %s 2>&1", bin(), test_data_path("amber/robust_access.amber"));
    CHECK(test_run_capture(cmd, &out) == 1 && out &&
              strstr(out, "robust_access.amber: fail: line 33: RUN: SPVJIT_ERROR_MEMORY_CHECK: k: kernel \"main\": "
                          "out-of-bounds store in work-group (0,0,0), work-item (0,0,0): ") &&
              strstr(out, ": set 0 binding 1 (Z): 4 bytes at byte offset 0 (element 0), but it has 0 bytes (0 "
                          "elements)"),
          "check: %s", out);
    free(out);
    /* a script asking for robustBufferAccess is robust under --memory unchecked too */
    snprintf(cmd, sizeof cmd, "%s amber --memory unchecked %s 2>&1", bin(),
             test_data_path("amber/robust_feature.amber"));
    CHECK(test_run_capture(cmd, &out) == 0 && out && strstr(out, "robust_feature.amber: pass"), "unchecked: %s", out);
    free(out);
    static const char *const bad[] = { "-j", "-j x", "--timeout -1", "--frob", "--memory safe", "--json" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        /* the last has no value: the script name would be taken as the file */
        snprintf(cmd, sizeof cmd, "%s amber %s %s 2>&1", bin(), bad[i],
                 i + 1 < sizeof bad / sizeof bad[0] ? test_data_path("amber/skip_image.amber") : "");
        int st = test_run_capture(cmd, &out);
        CHECK(st == 2 && out && strstr(out, "spvjit: amber: ") && strstr(out, "usage:"), "'%s': %d %s", bad[i], st,
              out);
        free(out);
    }
}

/* Pipelines a script runs are built in parallel at its start: the results are
 * those of builds at each RUN (three chained pipelines, checked by the
 * script's EXPECTs), and so is the first failure reported — the EXPECT before
 * the RUN of a pipeline whose shader does not compile, and that shader's
 * error once the EXPECT holds (the script edited so). */
TEST(amber_runner_parallel_pipeline_builds)
{
    char dir[] = "/tmp/spvjit-amber-prebuild-XXXXXX";
    REQUIRE(mkdtemp(dir), "mkdtemp");
    const char *r = test_data_path("amber/runner");
    char cmd[4096], *out = NULL;
    snprintf(cmd, sizeof cmd,
             "sed 's/EQ 7 2 3 4/EQ 1 2 3 4/' %s/prebuild_order.amber > %s/expect_holds.amber && "
             "%s amber -j 2 %s/prebuild_parallel.amber %s/prebuild_order.amber %s/expect_holds.amber 2>&1",
             r, dir, bin(), r, r, dir);
    int st = test_run_capture(cmd, &out);
    CHECK(st == 1 && out, "exit status %d: %s", st, out ? out : "");
    CHECK(out && strstr(out, "prebuild_parallel.amber: pass"), "three pipelines built together: %s", out);
    CHECK(out && strstr(out, "prebuild_order.amber: fail: line 32: EXPECT buf IDX 0 EQ: value 0 (byte 0) expected 7, "
                             "got 1"),
          "the EXPECT before the broken pipeline's RUN is the first failure: %s", out);
    CHECK(out && strstr(out, "expect_holds.amber: fail: shader bad (line 13) does not compile: ERROR: 0:3: 'this'"),
          "then the shader's error: %s", out);
    free(out);
    /* the same on each tier (--tier), and a tier that does not exist is bad usage */
    static const char *tiers[] = { "quick", "opt", "auto" };
    for (int t = 0; t < 3; t++) {
        snprintf(cmd, sizeof cmd, "%s amber --tier %s %s/prebuild_parallel.amber 2>&1", bin(), tiers[t], r);
        st = test_run_capture(cmd, &out);
        CHECK(st == 0 && out && strstr(out, "prebuild_parallel.amber: pass"), "--tier %s: exit %d: %s", tiers[t], st,
              out ? out : "");
        free(out);
    }
    snprintf(cmd, sizeof cmd, "%s amber --tier fast %s/prebuild_parallel.amber 2>&1", bin(), r);
    st = test_run_capture(cmd, &out);
    CHECK(st == 2 && out && strstr(out, "--tier fast: expected auto, quick or opt"), "--tier fast: exit %d: %s", st,
          out ? out : "");
    free(out);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    test_run_capture(cmd, NULL);
}
