/* testdata/tests/test_api_kernels.c — the seed kernels through the public API,
 * both flavours, specialized and not, under each memory mode, checked against
 * testdata/kernels/reference.h on random data, with several block sizes and
 * sizes that are not multiples of the work-group size. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "api_test_util.h"
#include "testdata/kernels/reference.h"

/* --- saxpy ------------------------------------------------------------------ */

/* Runs saxpy (`file`) with a = `a` on n elements and checks the result. */
static void run_saxpy(spvjit_context *ctx, const char *file, bool unspecialized, float a, uint32_t n, uint64_t seed)
{
    spvjit_module *m = api_load(ctx, file);
    REQUIRE(m, "%s: %s", file, spvjit_last_error());
    spvjit_specs *s;
    spvjit_specs_create(&s);
    spvjit_spec_set_f32(s, 0, a);
    spvjit_kernel *k = NULL;
    spvjit_build_options o = { .unspecialized = unspecialized };
    spvjit_status st = spvjit_kernel_build(m, NULL, s, &o, &k);
    CHECK(st == SPVJIT_OK, "%s: build: %s", file, spvjit_last_error());
    float *x = api_rand_floats(&seed, n, -4, 4), *y = api_rand_floats(&seed, n, -4, 4);
    float *want = malloc(n * sizeof *want);
    memcpy(want, y, n * sizeof *y);
    ref_saxpy(a, x, want, n, strstr(file, ".comp") != NULL);
    if (k) {
        if (spvjit_module_flavour(m) == SPVJIT_FLAVOUR_SHADER) {
            spvjit_bind_buffer(k, 0, 0, x, n * 4);
            spvjit_bind_buffer(k, 0, 1, y, n * 4);
            spvjit_set_push_constants(k, &n, 4);
            st = spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { (n + 63) / 64, 1, 1 } });
        } else {
            spvjit_set_arg_buffer(k, 0, x, n * 4);
            spvjit_set_arg_buffer(k, 1, y, n * 4);
            spvjit_set_arg_value(k, 2, &n, 4);
            st = spvjit_dispatch(k, &(spvjit_dispatch_info){ .work_dim = 1, .global_size = { n } });
        }
        CHECK(st == SPVJIT_OK, "%s: dispatch: %s", file, spvjit_last_error());
        long bad = api_first_mismatch(y, want, n, 1e-6f, 1e-6f);
        CHECK(bad < 0, "%s (a=%g, n=%u, unspecialized=%d): y[%ld] = %g, expected %g", file, a, n, unspecialized, bad,
              bad < 0 ? 0 : y[bad], bad < 0 ? 0 : want[bad]);
    }
    free(x);
    free(y);
    free(want);
    spvjit_kernel_destroy(k);
    spvjit_specs_destroy(s);
    spvjit_module_destroy(m);
}

TEST(api_saxpy_both_flavours)
{
    spvjit_context *ctx = api_ctx(0);
    REQUIRE(ctx, "context: %s", spvjit_last_error());
    static const char *files[] = { "kernels/saxpy.comp.spv", "kernels/saxpy.cl.spv" };
    for (int f = 0; f < 2; f++)
        for (int u = 0; u < 2; u++) {
            run_saxpy(ctx, files[f], u, 1.75f, 1000, 11);
            run_saxpy(ctx, files[f], u, -0.5f, 77, 12);
        }
    spvjit_context_destroy(ctx);
}

/* --- mm --------------------------------------------------------------------------- */

static void run_mm(spvjit_context *ctx, const char *file, uint32_t bs, uint32_t n, bool unspecialized)
{
    spvjit_module *m = api_load(ctx, file);
    REQUIRE(m, "%s: %s", file, spvjit_last_error());
    spvjit_specs *s;
    spvjit_specs_create(&s);
    spvjit_spec_set_u32(s, 0, bs);
    spvjit_kernel *k = NULL;
    spvjit_build_options o = { .unspecialized = unspecialized };
    spvjit_status st = spvjit_kernel_build(m, NULL, s, &o, &k);
    CHECK(st == SPVJIT_OK, "%s BS=%u: build: %s", file, bs, spvjit_last_error());
    uint64_t seed = 0x1234 + bs * 7 + n;
    size_t nn = (size_t)n * n;
    float *a = api_rand_floats(&seed, nn, -1, 1), *b = api_rand_floats(&seed, nn, -1, 1);
    float *c = calloc(nn, 4), *want = calloc(nn, 4);
    ref_mm(a, b, want, n, strstr(file, ".comp") != NULL);
    if (k) {
        uint32_t groups = (n + bs - 1) / bs;
        if (spvjit_module_flavour(m) == SPVJIT_FLAVOUR_SHADER) {
            spvjit_bind_buffer(k, 0, 0, a, nn * 4);
            spvjit_bind_buffer(k, 0, 1, b, nn * 4);
            spvjit_bind_buffer(k, 0, 2, c, nn * 4);
            spvjit_set_push_constants(k, &n, 4);
            st = spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { groups, groups, 1 } });
        } else {
            spvjit_set_arg_buffer(k, 0, a, nn * 4);
            spvjit_set_arg_buffer(k, 1, b, nn * 4);
            spvjit_set_arg_buffer(k, 2, c, nn * 4);
            spvjit_set_arg_value(k, 3, &n, 4);
            st = spvjit_dispatch(k, &(spvjit_dispatch_info){ .work_dim = 2,
                                                             .global_size = { groups * bs, groups * bs },
                                                             .local_size = { bs, bs } });
        }
        CHECK(st == SPVJIT_OK, "%s BS=%u: dispatch: %s", file, bs, spvjit_last_error());
        spvjit_kernel_stats ks;
        spvjit_kernel_stats_get(k, &ks);
        if (spvjit_module_flavour(m) == SPVJIT_FLAVOUR_SHADER)
            CHECK(ks.local_size[0] == bs && ks.local_size[1] == bs && ks.local_size[2] == 1,
                  "%s BS=%u: local size %ux%ux%u", file, bs, ks.local_size[0], ks.local_size[1], ks.local_size[2]);
        long bad = api_first_mismatch(c, want, nn, 1e-4f, 1e-5f);
        CHECK(bad < 0, "%s BS=%u n=%u unspecialized=%d: c[%ld] = %g, expected %g", file, bs, n, unspecialized, bad,
              bad < 0 ? 0 : c[bad], bad < 0 ? 0 : want[bad]);
    }
    free(a);
    free(b);
    free(c);
    free(want);
    spvjit_kernel_destroy(k);
    spvjit_specs_destroy(s);
    spvjit_module_destroy(m);
}

TEST(api_mm_shader_block_sizes)
{
    spvjit_context *ctx = api_ctx(0);
    REQUIRE(ctx, "context: %s", spvjit_last_error());
    static const uint32_t bss[] = { 4, 8, 16 };
    for (int i = 0; i < 3; i++) {
        run_mm(ctx, "kernels/mm.comp.spv", bss[i], 45, false);
        run_mm(ctx, "kernels/mm.comp.spv", bss[i], 32, true);
    }
    spvjit_context_destroy(ctx);
}

TEST(api_mm_kernel_block_sizes)
{
    spvjit_context *ctx = api_ctx(0);
    REQUIRE(ctx, "context: %s", spvjit_last_error());
    static const uint32_t bss[] = { 4, 8, 16 };
    for (int i = 0; i < 3; i++) {
        run_mm(ctx, "kernels/mm.cl.spv", bss[i], 45, false);
        run_mm(ctx, "kernels/mm.cl.spv", bss[i], 33, true);
    }
    spvjit_context_destroy(ctx);
}

/* --- conv3x3 ----------------------------------------------------------------------------- */

static void run_conv(spvjit_context *ctx, const char *file, uint32_t w, uint32_t h, bool unspecialized,
                     const uint32_t local[2])
{
    spvjit_module *m = api_load(ctx, file);
    REQUIRE(m, "%s: %s", file, spvjit_last_error());
    uint64_t seed = 99 + w * 3 + h;
    float kc[9];
    spvjit_specs *s;
    spvjit_specs_create(&s);
    for (uint32_t i = 0; i < 9; i++) {
        kc[i] = (i % 4 == 1) ? 0.0f : test_rand_float(&seed, -1, 1); /* some zero taps */
        spvjit_spec_set_f32(s, i, kc[i]);
    }
    spvjit_kernel *k = NULL;
    spvjit_build_options o = { .unspecialized = unspecialized };
    spvjit_status st = spvjit_kernel_build(m, NULL, s, &o, &k);
    CHECK(st == SPVJIT_OK, "%s: build: %s", file, spvjit_last_error());
    size_t np = (size_t)w * h;
    float *src = api_rand_floats(&seed, np, -2, 2), *dst = calloc(np, 4), *want = calloc(np, 4);
    ref_conv3x3(src, want, w, h, kc, strstr(file, ".comp") != NULL);
    if (k) {
        uint32_t wh[2] = { w, h };
        if (spvjit_module_flavour(m) == SPVJIT_FLAVOUR_SHADER) {
            spvjit_bind_buffer(k, 0, 0, src, np * 4);
            spvjit_bind_buffer(k, 0, 1, dst, np * 4);
            spvjit_set_push_constants(k, wh, 8);
            st = spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { (w + 15) / 16, (h + 15) / 16, 1 } });
        } else {
            spvjit_set_arg_buffer(k, 0, src, np * 4);
            spvjit_set_arg_buffer(k, 1, dst, np * 4);
            spvjit_set_arg_value(k, 2, &w, 4);
            spvjit_set_arg_value(k, 3, &h, 4);
            spvjit_dispatch_info d = { .work_dim = 2, .global_size = { w, h } };
            if (local) {
                d.local_size[0] = local[0];
                d.local_size[1] = local[1];
            }
            st = spvjit_dispatch(k, &d);
        }
        CHECK(st == SPVJIT_OK, "%s: dispatch: %s", file, spvjit_last_error());
        long bad = api_first_mismatch(dst, want, np, 1e-5f, 1e-6f);
        CHECK(bad < 0, "%s %ux%u unspecialized=%d: dst[%ld] = %g, expected %g", file, w, h, unspecialized, bad,
              bad < 0 ? 0 : dst[bad], bad < 0 ? 0 : want[bad]);
    }
    free(src);
    free(dst);
    free(want);
    spvjit_kernel_destroy(k);
    spvjit_specs_destroy(s);
    spvjit_module_destroy(m);
}

TEST(api_conv3x3_both_flavours)
{
    spvjit_context *ctx = api_ctx(0);
    REQUIRE(ctx, "context: %s", spvjit_last_error());
    static const uint32_t l88[2] = { 8, 8 }, l41[2] = { 4, 1 };
    run_conv(ctx, "kernels/conv3x3.comp.spv", 37, 23, false, NULL);
    run_conv(ctx, "kernels/conv3x3.comp.spv", 16, 48, true, NULL);
    run_conv(ctx, "kernels/conv3x3.cl.spv", 37, 23, false, NULL); /* local size chosen by spvjit */
    run_conv(ctx, "kernels/conv3x3.cl.spv", 37, 23, false, l88);  /* smaller last groups */
    run_conv(ctx, "kernels/conv3x3.cl.spv", 30, 7, true, l41);
    spvjit_context_destroy(ctx);
}

/* --- reduce ------------------------------------------------------------------------------ */

static void run_reduce_with(spvjit_context *ctx, const char *file, uint32_t wg, uint32_t n, spvjit_build_options o)
{
    spvjit_module *m = api_load(ctx, file);
    REQUIRE(m, "%s: %s", file, spvjit_last_error());
    bool shader = spvjit_module_flavour(m) == SPVJIT_FLAVOUR_SHADER;
    spvjit_specs *s;
    spvjit_specs_create(&s);
    if (shader)
        spvjit_spec_set_u32(s, 0, wg);
    spvjit_kernel *k = NULL;
    spvjit_status st = spvjit_kernel_build(m, NULL, s, &o, &k);
    CHECK(st == SPVJIT_OK, "%s: build: %s", file, spvjit_last_error());
    uint64_t seed = 5 + wg + n;
    uint32_t groups = ref_reduce_groups(n, wg);
    float *src = api_rand_floats(&seed, n, -1, 1), *part = calloc(groups, 4), *want = calloc(groups, 4);
    ref_reduce(src, n, wg, want);
    if (k) {
        if (shader) {
            spvjit_bind_buffer(k, 0, 0, src, (size_t)n * 4);
            spvjit_bind_buffer(k, 0, 1, part, (size_t)groups * 4);
            spvjit_set_push_constants(k, &n, 4);
            st = spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { groups, 1, 1 } });
        } else {
            spvjit_set_arg_buffer(k, 0, src, (size_t)n * 4);
            spvjit_set_arg_buffer(k, 1, part, (size_t)groups * 4);
            spvjit_set_arg_value(k, 2, &n, 4);
            spvjit_set_arg_local(k, 3, (size_t)wg * 4);
            st =
                spvjit_dispatch(k, &(spvjit_dispatch_info){
                                       .work_dim = 1, .global_size = { (uint64_t)groups * wg }, .local_size = { wg } });
        }
        CHECK(st == SPVJIT_OK, "%s WG=%u: dispatch: %s", file, wg, spvjit_last_error());
        long bad = api_first_mismatch(part, want, groups, 1e-5f, 1e-6f);
        CHECK(bad < 0, "%s WG=%u n=%u unspecialized=%d tier=%d: partial[%ld] = %g, expected %g", file, wg, n,
              o.unspecialized, (int)o.tier, bad, bad < 0 ? 0 : part[bad], bad < 0 ? 0 : want[bad]);
    }
    free(src);
    free(part);
    free(want);
    spvjit_kernel_destroy(k);
    spvjit_specs_destroy(s);
    spvjit_module_destroy(m);
}

static void run_reduce(spvjit_context *ctx, const char *file, uint32_t wg, uint32_t n, bool unspecialized)
{
    run_reduce_with(ctx, file, wg, n, (spvjit_build_options){ .unspecialized = unspecialized });
}

TEST(api_reduce_both_flavours)
{
    spvjit_context *ctx = api_ctx(0);
    REQUIRE(ctx, "context: %s", spvjit_last_error());
    run_reduce(ctx, "kernels/reduce.comp.spv", 64, 1000, false);
    run_reduce(ctx, "kernels/reduce.comp.spv", 256, 777, false);
    run_reduce(ctx, "kernels/reduce.comp.spv", 32, 301, true);
    run_reduce(ctx, "kernels/reduce.cl.spv", 32, 1000, false);
    run_reduce(ctx, "kernels/reduce.cl.spv", 128, 515, false);
    run_reduce(ctx, "kernels/reduce.cl.spv", 16, 99, true);
    spvjit_context_destroy(ctx);
}

/* A library prints nothing of its own: LLVM's diagnostics stay inside the
 * build (an error fails it with LLVM's words).  The unspecialized reduce at
 * WG=32 had LLVM print "warning: loop not unrolled" (a full-unroll hint it
 * could not follow) on the host's stderr. */
TEST(api_builds_write_nothing_to_stderr)
{
    spvjit_context *ctx = api_ctx(0);
    REQUIRE(ctx, "context: %s", spvjit_last_error());
    FILE *captured = tmpfile();
    fflush(stderr);
    int saved = dup(2);
    REQUIRE(captured && saved >= 0 && dup2(fileno(captured), 2) >= 0, "redirecting stderr");
    for (int t = 0; t < 2; t++) {
        spvjit_tier tier = t ? SPVJIT_TIER_QUICK : SPVJIT_TIER_OPT;
        run_reduce_with(ctx, "kernels/reduce.comp.spv", 32, 301,
                        (spvjit_build_options){ .unspecialized = true, .tier = tier });
        run_reduce_with(ctx, "kernels/reduce.cl.spv", 16, 99,
                        (spvjit_build_options){ .unspecialized = true, .tier = tier });
    }
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char text[512] = "";
    rewind(captured);
    size_t len = fread(text, 1, sizeof text - 1, captured);
    text[len] = 0;
    CHECK(len == 0, "the builds wrote to stderr: %s", text);
    fclose(captured);
    spvjit_context_destroy(ctx);
}

/* --- the memory modes ------------------------------------------------------------------------ */

/* Every seed kernel, both flavours, under memory=check (no false report, the
 * same results: sizes that leave partial tiles and groups) and unchecked. */
TEST(api_seed_kernels_under_check_and_unchecked)
{
    static const spvjit_memory modes[] = { SPVJIT_MEMORY_CHECK, SPVJIT_MEMORY_UNCHECKED };
    static const uint32_t l88[2] = { 8, 8 };
    for (int i = 0; i < 2; i++) {
        spvjit_context *ctx = NULL;
        spvjit_context_options co = { .disk_cache_dir = "", .defaults = { .memory = modes[i] } };
        REQUIRE(spvjit_context_create(&co, &ctx) == SPVJIT_OK, "context: %s", spvjit_last_error());
        run_saxpy(ctx, "kernels/saxpy.comp.spv", false, 1.75f, 1000, 11);
        run_saxpy(ctx, "kernels/saxpy.cl.spv", true, -0.5f, 77, 12);
        run_mm(ctx, "kernels/mm.comp.spv", 8, 45, false);
        run_mm(ctx, "kernels/mm.comp.spv", 16, 32, true);
        run_mm(ctx, "kernels/mm.cl.spv", 8, 45, false);
        run_conv(ctx, "kernels/conv3x3.comp.spv", 37, 23, false, NULL);
        run_conv(ctx, "kernels/conv3x3.cl.spv", 37, 23, false, l88);
        run_reduce(ctx, "kernels/reduce.comp.spv", 64, 1000, false);
        run_reduce(ctx, "kernels/reduce.cl.spv", 32, 1000, false);
        run_reduce(ctx, "kernels/reduce.cl.spv", 16, 99, true);
        spvjit_context_destroy(ctx);
    }
}

/* --- four host threads at once -------------------------------------------------------------- */

typedef struct thread_job {
    spvjit_module *m;
    int id;
    int failures;
    char msg[512];
} thread_job;

static void *thread_main(void *p)
{
    thread_job *j = p;
    spvjit_specs *s;
    spvjit_specs_create(&s);
    float a = 0.5f + (float)j->id;
    spvjit_spec_set_f32(s, 0, a);
    spvjit_kernel *k = NULL;
    if (spvjit_kernel_build(j->m, NULL, s, NULL, &k) != SPVJIT_OK) {
        snprintf(j->msg, sizeof j->msg, "build: %s", spvjit_last_error());
        j->failures++;
        spvjit_specs_destroy(s);
        return NULL;
    }
    uint64_t seed = 77 + (uint64_t)j->id;
    uint32_t n = 5000 + 13 * (uint32_t)j->id;
    for (int rep = 0; rep < 5; rep++) {
        float *x = api_rand_floats(&seed, n, -3, 3), *y = api_rand_floats(&seed, n, -3, 3);
        float *want = malloc(n * 4);
        memcpy(want, y, n * 4);
        ref_saxpy(a, x, want, n, true); /* saxpy.comp */
        spvjit_bind_buffer(k, 0, 0, x, n * 4);
        spvjit_bind_buffer(k, 0, 1, y, n * 4);
        spvjit_set_push_constants(k, &n, 4);
        if (spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { (n + 63) / 64, 1, 1 } }) != SPVJIT_OK) {
            snprintf(j->msg, sizeof j->msg, "dispatch: %s", spvjit_last_error());
            j->failures++;
        } else if (api_first_mismatch(y, want, n, 1e-6f, 1e-6f) >= 0) {
            snprintf(j->msg, sizeof j->msg, "wrong result in repetition %d", rep);
            j->failures++;
        }
        free(x);
        free(y);
        free(want);
    }
    spvjit_kernel_destroy(k);
    spvjit_specs_destroy(s);
    return NULL;
}

TEST(api_concurrent_dispatch_from_4_threads)
{
    spvjit_context *ctx = api_ctx(0);
    REQUIRE(ctx, "context: %s", spvjit_last_error());
    spvjit_module *m = api_load(ctx, "kernels/saxpy.comp.spv");
    REQUIRE(m, "load: %s", spvjit_last_error());
    pthread_t th[4];
    thread_job jobs[4];
    for (int i = 0; i < 4; i++) {
        jobs[i] = (thread_job){ .m = m, .id = i % 2 }; /* two pairs share values: cache hits under contention */
        pthread_create(&th[i], NULL, thread_main, &jobs[i]);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        CHECK(jobs[i].failures == 0, "thread %d: %s", i, jobs[i].msg);
    }
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
}

/* --- asynchronous dispatch ------------------------------------------------------------------------ */

TEST(api_async_dispatch_and_rebind)
{
    spvjit_context *ctx = api_ctx(0);
    REQUIRE(ctx, "context: %s", spvjit_last_error());
    spvjit_module *m = api_load(ctx, "kernels/saxpy.cl.spv");
    REQUIRE(m, "load: %s", spvjit_last_error());
    spvjit_kernel *k = NULL;
    REQUIRE(spvjit_kernel_build(m, "saxpy", NULL, NULL, &k) == SPVJIT_OK, "build: %s", spvjit_last_error());
    uint64_t seed = 4242;
    uint32_t n1 = 100003, n2 = 999;
    float *x1 = api_rand_floats(&seed, n1, -1, 1), *y1 = api_rand_floats(&seed, n1, -1, 1);
    float *x2 = api_rand_floats(&seed, n2, -1, 1), *y2 = api_rand_floats(&seed, n2, -1, 1);
    float *w1 = malloc(n1 * 4), *w2 = malloc(n2 * 4);
    memcpy(w1, y1, n1 * 4);
    memcpy(w2, y2, n2 * 4);
    ref_saxpy(REF_SAXPY_A_DEFAULT, x1, w1, n1, false); /* saxpy.cl */
    ref_saxpy(REF_SAXPY_A_DEFAULT, x2, w2, n2, false);

    spvjit_set_arg_buffer(k, 0, x1, n1 * 4);
    spvjit_set_arg_buffer(k, 1, y1, n1 * 4);
    spvjit_set_arg_value(k, 2, &n1, 4);
    spvjit_event *ev = NULL;
    spvjit_status st = spvjit_dispatch_async(k, &(spvjit_dispatch_info){ .work_dim = 1, .global_size = { n1 } }, &ev);
    CHECK(st == SPVJIT_OK && ev, "dispatch_async: %s", spvjit_last_error());
    /* Rebinding while the first dispatch runs must not disturb it. */
    spvjit_set_arg_buffer(k, 0, x2, n2 * 4);
    spvjit_set_arg_buffer(k, 1, y2, n2 * 4);
    spvjit_set_arg_value(k, 2, &n2, 4);
    st = spvjit_dispatch(k, &(spvjit_dispatch_info){ .work_dim = 1, .global_size = { n2 } });
    CHECK(st == SPVJIT_OK, "dispatch: %s", spvjit_last_error());
    if (ev)
        CHECK(spvjit_event_wait(ev) == SPVJIT_OK, "event_wait: %s", spvjit_last_error());
    CHECK(api_first_mismatch(y1, w1, n1, 1e-6f, 1e-6f) < 0, "async result wrong");
    CHECK(api_first_mismatch(y2, w2, n2, 1e-6f, 1e-6f) < 0, "sync result wrong");

    /* An async dispatch that fails reports through the event. */
    spvjit_event *bad = NULL;
    st = spvjit_dispatch_async(k,
                               &(spvjit_dispatch_info){ .work_dim = 1,
                                                        .global_size = { 64 },
                                                        .local_size = { 7 },
                                                        .global_offset = { UINT64_MAX } },
                               &bad);
    if (st == SPVJIT_OK)
        st = spvjit_event_wait(bad);
    CHECK(st == SPVJIT_ERROR_DISPATCH, "overflowing offset: got %s", spvjit_status_name(st));
    CHECK(strstr(spvjit_last_error(), "offset") != NULL, "message: %s", spvjit_last_error());

    free(x1);
    free(y1);
    free(x2);
    free(y2);
    free(w1);
    free(w2);
    spvjit_kernel_destroy(k);
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
}

/* --- local-memory arguments next to static work-group memory ------------------------------
 * A kernel with a static __local array and two __local pointer arguments
 * (compiled here with clang-15 + llvm-spirv-15): the argument blocks must
 * follow the static variables without overlapping them or each other. */

static const char *local_args_cl =
    "__kernel void mix(__global float *out, __local float *s1, __local float *s2) {\n"
    "    __local float tile[64];\n"
    "    uint lid = get_local_id(0), l = get_local_size(0);\n"
    "    tile[lid] = (float)lid;\n"
    "    s1[lid] = 100.0f + (float)lid;\n"
    "    s2[lid] = 1000.0f + (float)get_group_id(0);\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    out[get_global_id(0)] = tile[(lid + 1) % l] + s1[(lid + 2) % l] + s2[(lid + 3) % l];\n"
    "}\n";

TEST(api_local_args_after_static_memory)
{
    char dir[] = "/tmp/spvjit-local-XXXXXX";
    REQUIRE(mkdtemp(dir), "mkdtemp");
    char src[256], spv[256], cmd[2048], *out = NULL;
    snprintf(src, sizeof src, "%s/mix.cl", dir);
    snprintf(spv, sizeof spv, "%s/mix.spv", dir);
    FILE *f = fopen(src, "w");
    REQUIRE(f, "cannot write %s", src);
    fputs(local_args_cl, f);
    fclose(f);
    snprintf(cmd, sizeof cmd,
             "clang-15 -cc1 -triple spir64-unknown-unknown -cl-std=CL2.0 -finclude-default-header "
             "-O2 -emit-llvm-bc -o '%s/mix.bc' '%s' && llvm-spirv-15 --spirv-max-version=1.2 -o '%s' '%s/mix.bc'",
             dir, src, spv, dir);
    int rc = test_run_capture(cmd, &out);
    CHECK(rc == 0, "compiling the OpenCL C: %s", out ? out : "");
    free(out);
    spvjit_context *ctx = api_ctx(0);
    spvjit_module *m = NULL;
    spvjit_kernel *k = NULL;
    if (rc == 0 && spvjit_module_load_file(ctx, spv, &m) == SPVJIT_OK &&
        spvjit_kernel_build(m, "mix", NULL, NULL, &k) == SPVJIT_OK) {
        static const uint32_t locals[] = { 64, 16, 7 };
        for (int t = 0; t < 3; t++) {
            uint32_t l = locals[t], groups = 5, n = l * groups;
            float res[64 * 5];
            spvjit_set_arg_buffer(k, 0, res, sizeof res);
            spvjit_set_arg_local(k, 1, l * 4);
            spvjit_set_arg_local(k, 2, l * 4 + 4); /* odd sizes still get aligned blocks */
            CHECK(spvjit_dispatch(k, &(spvjit_dispatch_info){ .work_dim = 1,
                                                              .global_size = { n },
                                                              .local_size = { l } }) == SPVJIT_OK,
                  "local size %u: %s", l, spvjit_last_error());
            for (uint32_t i = 0; i < n; i++) {
                uint32_t lid = i % l, g = i / l;
                float want = (float)((lid + 1) % l) + (100.0f + (float)((lid + 2) % l)) + (1000.0f + (float)g);
                if (res[i] != want) {
                    CHECK(0, "local size %u, item %u: %g, expected %g", l, i, res[i], want);
                    break;
                }
            }
        }
    } else {
        CHECK(0, "load/build: %s", spvjit_last_error());
    }
    spvjit_kernel_destroy(k);
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    test_run_capture(cmd, NULL);
}
