/* testdata/tests/test_cli_run.c — `spvjit run`: option parsing and DATA fills
 * (checked against plain C), and run-throughs of the binary whose outputs are
 * compared with a C computation of the same kernel.
 *
 * Options are compiled in from cmd/run_options.c (the run_tests link holds no
 * cmd/ objects; test_amber_parse.c brings buffer_fill.c).  Define
 * SPVJIT_TESTS_LINK_CMD when the Makefile links cmd/ objects instead.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>

#include "harness.h"

#ifndef SPVJIT_TESTS_LINK_CMD
#include "../../cmd/run_options.c"
#else
#include "cmd/run_options.h"
#endif

static int parse_args(run_options *o, char *err, const char *const *args, int n)
{
    char *argv[32];
    argv[0] = (char *)"run";
    for (int i = 0; i < n; i++)
        argv[i + 1] = (char *)args[i];
    return run_options_parse(n + 1, argv, o, err, 512);
}

TEST_TIER_FREE(run_fill_forms_match_c)
{
    char err[512];
    fill_data f;
    REQUIRE(!fill_parse("f32:1,2.5,-3", &f, err, sizeof err), "%s", err);
    float want[3] = { 1, 2.5f, -3 };
    CHECK(f.size == 12 && !memcmp(f.bytes, want, 12) && f.type == SPVJIT_TYPE_F32, "inline f32");
    fill_free(&f);
    REQUIRE(!fill_parse("iota:i16:100:-50", &f, err, sizeof err), "%s", err);
    for (int i = 0; i < 100; i++) {
        int16_t v;
        memcpy(&v, f.bytes + 2 * i, 2);
        CHECK(v == i - 50, "iota %d = %d", i, v);
    }
    fill_free(&f);
    REQUIRE(!fill_parse("const:f64:0.1:7", &f, err, sizeof err), "%s", err);
    for (int i = 0; i < 7; i++) {
        double d;
        memcpy(&d, f.bytes + 8 * i, 8);
        CHECK(d == 0.1, "const %d", i);
    }
    fill_free(&f);
    REQUIRE(!fill_parse("zero:4096", &f, err, sizeof err), "%s", err);
    size_t nz = 0;
    for (size_t i = 0; i < f.size; i++)
        nz += f.bytes[i] != 0;
    CHECK(f.size == 4096 && !nz, "zero");
    fill_free(&f);
    /* random: deterministic per seed, in range, not constant */
    fill_data g;
    REQUIRE(!fill_parse("random:f32:1000:9", &f, err, sizeof err) &&
                !fill_parse("random:f32:1000:9", &g, err, sizeof err),
            "%s", err);
    CHECK(!memcmp(f.bytes, g.bytes, f.size), "same seed, same data");
    float lo = 1, hi = -1;
    for (int i = 0; i < 1000; i++) {
        float v;
        memcpy(&v, f.bytes + 4 * i, 4);
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    CHECK(lo >= -1 && hi < 1 && hi - lo > 1.5f, "range [%g, %g]", lo, hi);
    fill_free(&f);
    fill_free(&g);
    REQUIRE(!fill_parse("u8:255,0,0x7f", &f, err, sizeof err), "%s", err);
    CHECK(f.size == 3 && f.bytes[0] == 255 && f.bytes[2] == 0x7f, "u8");
    fill_free(&f);
    static const char *const bad[] = { "u8:256",       "i8:-129",     "f32:1,x",
                                       "zero:",        "const:f32:1", "iota:q32:4",
                                       "f16:70000",    "i32:1.5",     "@/nonexistent/file.bin",
                                       "random:f32:-1" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(fill_parse(bad[i], &f, err, sizeof err) == -1 && strchr(err, '\n') == NULL && err[0],
              "'%s' accepted or bad message '%s'", bad[i], err);
    }
}

TEST_TIER_FREE(run_options_parse_and_reject)
{
    run_options o;
    char err[512];
    static const char *const ok[] = { "k.spv",        "-e",         "main",
                                      "-D",           "0=16",       "-D1=2.5:f64",
                                      "--groups=4,2", "--buffer",   "0:1=iota:u32:16",
                                      "--push",       "f32:1.5",    "--arg",
                                      "3=local:256",  "--print",    "0:1",
                                      "--out",        "push=p.bin", "--print",
                                      "0:1:f64",      "--out",      "0:1:u8=o.npy",
                                      "--repeat",     "5",          "--no-specialize",
                                      "--json",       "--tier",     "quick" };
    REQUIRE(!parse_args(&o, err, ok, (int)(sizeof ok / sizeof ok[0])), "%s", err);
    CHECK(!strcmp(o.file, "k.spv") && !strcmp(o.entry, "main") && o.ndefines == 2 && o.groups[0] == 4 &&
              o.groups[1] == 2 && o.groups[2] == 1 && o.repeat == 5 && o.no_specialize && o.json &&
              o.tier == SPVJIT_TIER_QUICK,
          "fields");
    CHECK(o.ndata == 3 && o.data[0].target.kind == RUN_TARGET_BINDING && o.data[0].target.binding == 1 &&
              o.data[2].local && o.data[2].local_bytes == 256,
          "data");
    /* no TYPE: 0, resolved by `run` from the module (cmd_run.c: output_type) */
    CHECK(o.noutputs == 4 && o.outputs[0].type == 0 && o.outputs[1].type == 0 && !strcmp(o.outputs[1].file, "p.bin") &&
              o.outputs[2].type == SPVJIT_TYPE_F64 && !o.outputs[2].file && o.outputs[3].type == SPVJIT_TYPE_U8 &&
              !strcmp(o.outputs[3].file, "o.npy"),
          "outputs");
    run_options_free(&o);

    static const struct {
        const char *args[6];
        int n;
        const char *want;
    } bad[] = {
        { { "k.spv", "--groups", "0" }, 3, "--groups 0" },
        { { "k.spv", "--groups", "1", "--global", "64" }, 5, "exclude" },
        { { "k.spv", "--local", "8" }, 3, "--local goes with --global" },
        { { "k.spv", "--buffer", "0:1" }, 3, "expected SET:BINDING=DATA" },
        { { "k.spv", "--buffer", "0:1=f32:1", "--buffer", "0:1=f32:2" }, 5, "given twice" },
        { { "k.spv", "--print", "0:2" }, 3, "no data is bound" },
        { { "k.spv", "--frob" }, 2, "unknown option '--frob'" },
        { { "--groups", "2" }, 2, "no module" },
        { { "k.spv", "-D", "5" }, 3, "expected ID=VALUE" },
        { { "k.spv", "--arg", "1=local:0" }, 3, "positive byte count" },
        { { "k.spv", "--buffer", "0:1=u8:300" }, 3, "out of range" },
        { { "k.spv", "--buffer", "0:1=zero:4", "--out", "0:1:q8=x.npy" }, 5, "unknown type 'q8'" },
        { { "k.spv", "--buffer", "0:1=zero:4", "--out", "0:1:f32" }, 5, "expected TARGET[:TYPE]=FILE" },
        { { "k.spv", "--buffer", "0:1=zero:4", "--print", "0:1=x" }, 5, "expected TARGET[:TYPE]" },
        { { "k.spv", "--tier", "fast" }, 3, "--tier fast: expected auto, quick or opt" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        int r = parse_args(&o, err, bad[i].args, bad[i].n);
        CHECK(r == -1 && strstr(err, bad[i].want), "case %zu: %d '%s', want '%s'", i, r, err, bad[i].want);
        run_options_free(&o);
    }
}

/* ---- run-throughs: need the library (spvjit_kernel_build, lib/api_kernel.c) and the binary ---- */

static const char *bin(void)
{
    const char *b = getenv("SPVJIT_BIN");
    return b ? b : "build/spvjit";
}

TEST(run_saxpy_comp_matches_c)
{
    uint64_t rs = 4242;
    enum { N = 300, CAP = 320 };
    float x[CAP], y[CAP], a = test_rand_float(&rs, -3, 3);
    for (int i = 0; i < CAP; i++) {
        x[i] = test_rand_float(&rs, -10, 10);
        y[i] = test_rand_float(&rs, -10, 10);
    }
    char xs[CAP * 20] = "f32:", ys[CAP * 20] = "f32:";
    for (int i = 0; i < CAP; i++) {
        snprintf(xs + strlen(xs), sizeof xs - strlen(xs), "%s%.9g", i ? "," : "", x[i]);
        snprintf(ys + strlen(ys), sizeof ys - strlen(ys), "%s%.9g", i ? "," : "", y[i]);
    }
    char outpath[] = "/tmp/spvjit-run-test-XXXXXX";
    int fd = mkstemp(outpath);
    REQUIRE(fd >= 0, "mkstemp");
    char cmd[20000], *out = NULL;
    snprintf(cmd, sizeof cmd,
             "%s run %s -D 0=%.9g --groups 5 --buffer 0:0=%s --buffer 0:1=%s --push u32:%d --out 0:1=%s", bin(),
             test_data_path("kernels/saxpy.comp.spv"), a, xs, ys, N, outpath);
    int st = test_run_capture(cmd, &out);
    CHECK(st == 0, "exit %d: %s", st, out);
    size_t len = 0;
    float *got = test_read_file(outpath, &len);
    REQUIRE(got && len == sizeof y, "output file: %zu bytes", len);
    for (int i = 0; i < CAP; i++) {
        float want = i < N ? a * x[i] + y[i] : y[i];
        /* fma contraction may differ in the last bit */
        CHECK(got[i] == want || (got[i] - want < 1e-5f && want - got[i] < 1e-5f), "y[%d] = %.9g, want %.9g", i, got[i],
              want);
        if (test_failed_now())
            break;
    }
    free(got);
    free(out);
    unlink(outpath);
}

TEST(run_checks_sizes_before_running)
{
    static const struct {
        const char *args;
        const char *want;
    } cases[] = {
        { "--buffer 0:0=zero:64 --push u32:1", "binding 0:1 ('Y')" },
        { "--buffer 0:0=zero:64 --buffer 0:1=zero:6 --push u32:1", "not 0 plus whole 4-byte array elements" },
        { "--buffer 0:0=zero:64 --buffer 0:1=zero:64 --push u32:1 --memory safe",
          "--memory safe: expected robust, check or unchecked" },
        { "--buffer 0:0=zero:64 --buffer 0:1=zero:64 --push u32:1 --timeout -2",
          "--timeout -2: expected a positive number of seconds" },
        { "--buffer 0:0=zero:64 --buffer 0:1=zero:64 --push u8:1", "push constants" },
        { "--buffer 0:0=zero:64 --buffer 0:1=zero:64 --push u32:1 --buffer 0:9=zero:4", "has no binding 0:9" },
        { "--buffer 0:0=zero:64 --buffer 0:1=zero:64 --push u32:1 -D 7=1", "SpecId 7" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cmd[2048], *out = NULL;
        snprintf(cmd, sizeof cmd, "%s run %s %s", bin(), test_data_path("kernels/saxpy.comp.spv"), cases[i].args);
        int st = test_run_capture(cmd, &out);
        int lines = 0;
        for (char *p = out; p && *p; p++)
            lines += *p == '\n';
        CHECK(st == 1 && out && strstr(out, cases[i].want) && lines == 1, "case %zu: exit %d, '%s' (want '%s')", i, st,
              out ? out : "", cases[i].want);
        free(out);
    }
}

TEST(run_saxpy_cl_args_print_and_repeat)
{
    char cmd[2048], *out = NULL;
    snprintf(cmd, sizeof cmd,
             "%s run %s --global 64 --arg 0=iota:f32:64 --arg 1=const:f32:1:64 --arg 2=u32:5 "
             "-D 0=10 --print 1 --repeat 3",
             bin(), test_data_path("kernels/saxpy.cl.spv"));
    int st = test_run_capture(cmd, &out);
    /* three dispatches on the same buffers: y = 1 + 3*10*i for i < 5, else 1 */
    CHECK(st == 0 && out && strstr(out, "argument 1 (64 x f32):\n  1 31 61 91 121 1 1 1\n") &&
              strstr(out, "compile: ") && strstr(out, "first dispatch: ") && strstr(out, "dispatch: median "),
          "exit %d: %s", st, out ? out : "");
    free(out);
}

/* `spvjit run` of saxpy.comp with its disk cache in `cache` and the rest of
 * the arguments `args`; the exit status, the output in *out. */
static int run_saxpy_cached(const char *cache, const char *args, char **out)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "XDG_CACHE_HOME='%s' %s run %s %s", cache, bin(),
             test_data_path("kernels/saxpy.comp.spv"), args);
    return test_run_capture(cmd, out);
}

/* --repeat reports the tier of the build, of the first dispatch and of the
 * median, which waits for the optimized code (auto) or keeps the quick code. */
TEST(run_repeat_reports_tiers)
{
    static const struct {
        const char *tier;
        const char *want[3];
    } cases[] = {
        { "auto", { "quick tier", "first dispatch: ", "over 4 runs on the optimized tier" } },
        { "quick", { "quick tier", "on the quick tier", "over 4 runs on the quick tier" } },
        { "opt", { "optimized tier", "first dispatch: ", "over 4 runs on the optimized tier" } },
    };
    char *dir = test_temp_dir("run-tiers"); /* an empty disk cache: every run compiles */
    REQUIRE(dir, "mkdtemp");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cache[512], args[512], *out = NULL;
        snprintf(cache, sizeof cache, "%s/%zu", dir, i);
        snprintf(args, sizeof args,
                 "--tier %s --groups 2 --buffer 0:0=iota:f32:128 --buffer 0:1=const:f32:1:128 --push u32:128 "
                 "--repeat 5",
                 cases[i].tier);
        int st = run_saxpy_cached(cache, args, &out);
        for (int w = 0; w < 3; w++)
            CHECK(st == 0 && out && strstr(out, cases[i].want[w]), "--tier %s: no '%s' in: %s", cases[i].tier,
                  cases[i].want[w], out ? out : "");
        free(out);
    }
    test_remove_dir(dir);
    free(dir);
}

/* An auto run leaves its optimized code in the disk cache: the next run of
 * the same kernel and values starts from it (issue 12: "a second process
 * starts optimized"); a quick run leaves nothing.  Each run's y = a*x + y
 * against C. */
TEST(run_auto_leaves_the_optimized_code_for_the_next_run)
{
    static const struct {
        const char *tier;
        const char *want_tier;
        bool want_hit;
    } runs[] = {
        { "quick", "quick", false }, /* nothing stored: the next run compiles */
        { "auto", "quick", false },
        { "auto", "optimized", true },
    };
    enum { N = 200 };
    const float a = 1.75f;
    char *dir = test_temp_dir("run-disk");
    REQUIRE(dir, "mkdtemp");
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char args[512], *out = NULL;
        snprintf(args, sizeof args,
                 "--tier %s -D 0=%g --groups 4 --buffer 0:0=iota:f32:256 --buffer 0:1=const:f32:0.5:256 "
                 "--push u32:%d --print 0:1 --json",
                 runs[i].tier, a, N);
        int st = run_saxpy_cached(dir, args, &out);
        json_object *root = st == 0 && out ? json_tokener_parse(out) : NULL, *compile, *tier, *hit, *outputs;
        bool shape = root && json_object_object_get_ex(root, "compile", &compile) &&
                     json_object_object_get_ex(compile, "tier", &tier) &&
                     json_object_object_get_ex(compile, "from_cache", &hit) &&
                     json_object_object_get_ex(root, "outputs", &outputs) && json_object_array_length(outputs) == 1;
        CHECK(shape && !strcmp(json_object_get_string(tier), runs[i].want_tier) &&
                  json_object_get_boolean(hit) == runs[i].want_hit,
              "run %zu (--tier %s): want tier %s, from_cache %d in: %s", i, runs[i].tier, runs[i].want_tier,
              runs[i].want_hit, out ? out : "");
        /* the printed y: a * i + 0.5 for i < N, else 0.5 */
        json_object *values = NULL;
        if (shape)
            json_object_object_get_ex(json_object_array_get_idx(outputs, 0), "values", &values);
        CHECK(values && json_object_array_length(values) == 256, "run %zu: no 256 values in: %s", i, out ? out : "");
        for (int j = 0; values && j < 256 && j < (int)json_object_array_length(values); j++) {
            float want = j < N ? a * (float)j + 0.5f : 0.5f;
            float got = (float)json_object_get_double(json_object_array_get_idx(values, (size_t)j));
            CHECK(got == want, "run %zu: y[%d] = %.9g, expected %.9g", i, j, (double)got, (double)want);
        }
        json_object_put(root);
        free(out);
    }
    test_remove_dir(dir);
    free(dir);
}

/* The bad inputs of issue 11 through the command: each ends with exit 0 and
 * the robust result, or exit 1 with one line naming the problem; none
 * crashes or hangs. */
TEST(run_bad_inputs_end_cleanly)
{
    const char *mm = test_data_path("kernels/mm.comp.spv"), *oob = test_data_path("jit/san_oob.comp.spv");
    const char *big = test_data_path("jit/big_arrays.comp.spv"), *spin = test_data_path("jit/spin.comp.spv");
    static const char bufs[] = "--buffer 0:0=zero:64 --buffer 0:1=zero:64 --buffer 0:2=zero:64 --push u32:64";
    struct {
        char args[1024];
        int status;
        const char *want;
    } cases[8];
    int n = 0;
    /* runtime arrays shorter than the kernel indexes: robust reads zeros, drops the stores */
    snprintf(cases[n].args, 1024, "%s -D 0=16 --groups 4,4,1 %s --print 0:2", mm, bufs);
    cases[n].status = 0, cases[n++].want = "binding 0:2 (16 x f32):\n  0 0 0 0 0 0 0 0\n  0 0 0 0 0 0 0 0\n";
    snprintf(cases[n].args, 1024, "%s -D 0=16 --groups 4,4,1 %s --memory check --threads 1", mm, bufs);
    cases[n].status = 1, cases[n++].want = "out-of-bounds load in work-group (0,0,0), work-item (0,";
    /* the last work-item writes one past the end: dropped */
    snprintf(cases[n].args, 1024, "%s --groups 4 --buffer 0:0=zero:256 --print 0:0:u32", oob);
    cases[n].status = 0, cases[n++].want = "binding 0:0 (64 x u32):\n  0 0 1 2 3 4 5 6\n";
    snprintf(cases[n].args, 1024, "%s -D 0=2000 %s", mm, bufs);
    cases[n].status = 1, cases[n++].want = "a local size of 2000x2000x1 is 4000000 work-items per work-group";
    snprintf(cases[n].args, 1024, "%s --groups 1 --buffer 0:0=zero:256", big);
    cases[n].status = 1, cases[n++].want = "main uses 16777224 bytes of private memory per work-item";
    snprintf(cases[n].args, 1024, "%s --groups 65536,65536,1 --buffer 0:0=u32:1 --timeout 0.2", spin);
    cases[n].status = 1, cases[n++].want = "timed out: stopped after 0.";
    snprintf(cases[n].args, 1024, "%s --groups 67108865 --buffer 0:0=u32:1", spin);
    cases[n].status = 1, cases[n++].want = "past the 32 bits GlobalInvocationId holds";
    snprintf(cases[n].args, 1024, "%s --groups 0 --buffer 0:0=u32:1", spin);
    cases[n].status = 1, cases[n++].want = "--groups";
    for (int i = 0; i < n; i++) {
        char cmd[16384], *out = NULL;
        snprintf(cmd, sizeof cmd, "%.4000s run %.1023s 2>&1", bin(), cases[i].args);
        int st = test_run_capture(cmd, &out);
        int lines = 0;
        for (char *p = out; p && *p; p++)
            lines += *p == '\n';
        CHECK(st == cases[i].status && out && strstr(out, cases[i].want) && (st == 0 || lines == 1),
              "run %s: exit %d, '%s' (want exit %d and '%s')", cases[i].args, st, out ? out : "", cases[i].status,
              cases[i].want);
        free(out);
    }
}
