/* test_bench_peers.c — smoke test of the benchmark peers (bench/peers/).
 *
 * Builds the peers into a temporary folder with bench/peers/peers.mk and runs
 * each once on the small problem sizes: every case must print a complete
 * result line with check=ok (each runner compares its output with the plain C
 * reference in bench/c/reference.c).  A deliberately wrong kernel must give
 * check=FAIL.  The C ceiling needs only gcc; the lavapipe and PoCL runners are
 * built only where their headers and libraries are installed (make deps-bench),
 * and a runner that finds no device exits 77, which skips it.  No timing is
 * asserted.
 */
#include "harness.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SMOKE_CASES 9 /* mm x3, conv3x3 x2, reduce, saxpy, scan, sgreduce */

static const char *src_root(void)
{
    return test_data_path("..");
}

/* True when the C compiler finds library `lib` (e.g. "libvulkan.so"). */
static bool have_library(const char *lib)
{
    char cmd[256], *out = NULL;
    snprintf(cmd, sizeof cmd, "${CC:-cc} -print-file-name=%s", lib);
    int rc = test_run_capture(cmd, &out);
    bool found = rc == 0 && out && strchr(out, '/') != NULL;
    free(out);
    return found;
}

/* Checks one result line: every key present, the runner as expected.
 * Returns whether it says check=ok (or check=skip: a case the device cannot
 * run, PoCL's sub-groups). */
static bool line_ok(const char *line, size_t len, const char *runner)
{
    static const char *keys[] = { "kernel=",      " variant=",  " runner=",     " threads=", " median_ms=",
                                  " spread_pct=", " build_ms=", " throughput=", " unit=",    " check=" };
    char l[512];
    if (len >= sizeof l)
        return false;
    memcpy(l, line, len);
    l[len] = '\0';
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; ++i)
        CHECK(strstr(l, keys[i]) != NULL, "result line lacks '%s': %s", keys[i], l);
    char want[64];
    snprintf(want, sizeof want, " runner=%s ", runner);
    CHECK(strstr(l, want) != NULL, "result line is not from runner %s: %s", runner, l);
    return strstr(l, " check=ok") != NULL || strstr(l, " check=skip") != NULL;
}

/* Runs bin on the small sizes, counting result lines and check=ok lines.
 * Returns false when the runner skipped (exit 77: no device). */
static bool run_runner(const char *dir, const char *bin, const char *runner, const char *extra, int *lines,
                       int *ok_lines, int *rc_out)
{
    char cmd[4096], *out = NULL;
    /* caches inside the temporary folder: HOME may not be writable */
    snprintf(cmd, sizeof cmd,
             "cd '%s' && env MESA_SHADER_CACHE_DISABLE=true POCL_KERNEL_CACHE=0 POCL_CACHE_DIR='%s/cache' "
             "XDG_CACHE_HOME='%s/cache' '%s/bench/%s' --size small --reps 1 --threads 2 %s 2>/dev/null",
             src_root(), dir, dir, dir, bin, extra);
    int rc = test_run_capture(cmd, &out);
    *rc_out = rc;
    *lines = *ok_lines = 0;
    if (rc == 77) {
        fprintf(stderr, "  (test_bench_peers: %s: no device, skipped)\n", runner);
        free(out);
        return false;
    }
    for (const char *p = out; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (strncmp(p, "kernel=", 7) == 0) {
            ++*lines;
            *ok_lines += line_ok(p, n, runner);
        }
        p += n + (e ? 1 : 0);
    }
    free(out);
    return true;
}

TEST_TIER_FREE(bench_peers_smoke)
{
    char dir[] = "/tmp/spvjit-bench-peers-XXXXXX";
    REQUIRE(mkdtemp(dir) != NULL, "mkdtemp failed");
    bool have_vk = access("/usr/include/vulkan/vulkan.h", R_OK) == 0 && have_library("libvulkan.so");
    bool have_cl = access("/usr/include/CL/cl.h", R_OK) == 0 && have_library("libOpenCL.so");

    char targets[1024], cmd[4096], *out = NULL;
    int tn = snprintf(targets, sizeof targets, "'%s/bench/c_runner'", dir);
    if (have_vk)
        tn += snprintf(targets + tn, sizeof targets - (size_t)tn, " '%s/bench/vk_runner'", dir);
    if (have_cl)
        snprintf(targets + tn, sizeof targets - (size_t)tn, " '%s/bench/cl_runner'", dir);
    /* MAKEFLAGS of an enclosing `make test` would point at its jobserver; the
     * peers are built without sanitizers even under `make test SAN=1` (PoCL
     * never frees its own state, which LeakSanitizer would report). */
    snprintf(cmd, sizeof cmd,
             "cd '%s' && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -s "
             "-f bench/peers/peers.mk BUILD='%s' SAN=0 -j2 %s",
             src_root(), dir, targets);
    int rc = test_run_capture(cmd, &out);
    CHECK(rc == 0, "building the peers failed (%d):\n%s", rc, out ? out : "");
    free(out);

    struct {
        const char *bin, *runner;
        bool built;
    } runners[] = {
        { "c_runner", "c", true },
        { "vk_runner", "lavapipe", have_vk },
        { "cl_runner", "pocl", have_cl },
    };
    for (size_t i = 0; rc == 0 && i < sizeof runners / sizeof runners[0]; ++i) {
        if (!runners[i].built) {
            fprintf(stderr, "  (test_bench_peers: %s: headers/libraries not installed, skipped)\n", runners[i].runner);
            continue;
        }
        int lines, ok_lines, rrc;
        if (!run_runner(dir, runners[i].bin, runners[i].runner, "", &lines, &ok_lines, &rrc))
            continue;
        CHECK(rrc == 0, "%s exited with %d", runners[i].bin, rrc);
        CHECK(lines == SMOKE_CASES, "%s printed %d result lines, expected %d", runners[i].bin, lines, SMOKE_CASES);
        CHECK(ok_lines == SMOKE_CASES, "%s: %d of %d cases passed their check", runners[i].bin, ok_lines, lines);
    }

    /* A wrong kernel must fail its check: saxpy adding 0.001 too much. */
    if (rc == 0 && have_cl) {
        char bad[256];
        snprintf(bad, sizeof bad, "%s/bad", dir);
        snprintf(cmd, sizeof cmd,
                 "mkdir -p '%s' && sed 's/a \\* x\\[i\\] + y\\[i\\]/a * x[i] + y[i] + 0.001f/' "
                 "'%s/testdata/kernels/saxpy.cl' > '%s/saxpy.cl' && grep -q 0.001f '%s/saxpy.cl'",
                 bad, src_root(), bad, bad);
        int mk = test_run_capture(cmd, NULL);
        CHECK(mk == 0, "could not make the broken saxpy.cl");
        char extra[512];
        snprintf(extra, sizeof extra, "--kernel saxpy --kernel-dir '%s'", bad);
        int lines, ok_lines, rrc;
        if (mk == 0 && run_runner(dir, "cl_runner", "pocl", extra, &lines, &ok_lines, &rrc)) {
            CHECK(rrc == 1, "cl_runner on a wrong kernel exited with %d, expected 1", rrc);
            CHECK(lines == 1 && ok_lines == 0, "cl_runner on a wrong kernel: %d lines, %d ok (expected 1, 0)", lines,
                  ok_lines);
        }
    }

    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    test_run_capture(cmd, NULL);
}
