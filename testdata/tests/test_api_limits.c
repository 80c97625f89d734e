/* testdata/tests/test_api_limits.c — dispatch time limits and cancellation
 * (an endless loop stopped by spvjit_dispatch_info.timeout_seconds and by
 * spvjit_dispatch_cancel, from this thread or another, synchronous and
 * asynchronous, on the barrier-free path, as regions and on fibers; the
 * process dispatches again right after), and the library's limits
 * (spvjit_limits_get): work-group size, work-group and private memory, group
 * counts, each refused with a clear error before anything runs.  Kernels:
 * testdata/jit/spin.comp, spin_barrier.comp, big_arrays.comp; the seed mm
 * for the bad inputs. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api_test_util.h"
#include "harness.h"
#include "lib/spvjit.h"
#include "testdata/kernels/reference.h"
#include "util/timer.h"

static spvjit_kernel *build(spvjit_context *ctx, const char *rel, const spvjit_specs *specs,
                            const spvjit_build_options *o)
{
    spvjit_module *m = api_load(ctx, rel);
    spvjit_kernel *k = NULL;
    if (!m || spvjit_kernel_build(m, NULL, specs, o, &k) != SPVJIT_OK)
        fprintf(stderr, "%s: %s\n", rel, spvjit_last_error());
    spvjit_module_destroy(m);
    return k;
}

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
    nanosleep(&ts, NULL);
}

#define SPIN_GROUPS 4
#define SPIN_WORDS (1 + 64 * SPIN_GROUPS)

/* d[0] != 0 lets the spin kernels finish at once: d[1 + i] = 0. */
static void spin_finishes(spvjit_kernel *k, const char *what)
{
    uint32_t d[SPIN_WORDS];
    memset(d, 0xff, sizeof d);
    d[0] = 1;
    spvjit_bind_buffer(k, 0, 0, d, sizeof d);
    spvjit_status st = spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { SPIN_GROUPS, 1, 1 } });
    CHECK(st == SPVJIT_OK, "%s: the dispatch after: %s", what, spvjit_last_error());
    for (int i = 1; i < SPIN_WORDS; i++)
        CHECK(d[i] == 0, "%s: the dispatch after: d[%d] = %u", what, i, d[i]);
}

TEST(limits_timeout_stops_endless_loops)
{
    spvjit_context *ctx = api_ctx(0);
    REQUIRE(ctx, "context");
    static const struct {
        const char *rel;
        spvjit_barriers barriers;
        const char *what;
    } cases[] = {
        { "jit/spin.comp.spv", SPVJIT_BARRIERS_DEFAULT, "barrier-free" },
        { "jit/spin_barrier.comp.spv", SPVJIT_BARRIERS_REGIONS, "regions" },
        { "jit/spin_barrier.comp.spv", SPVJIT_BARRIERS_FIBERS, "fibers" },
    };
    static const spvjit_memory modes[] = { SPVJIT_MEMORY_ROBUST, SPVJIT_MEMORY_CHECK, SPVJIT_MEMORY_UNCHECKED };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (size_t mi = 0; mi < 3; mi++) {
            spvjit_build_options o = { .barriers = cases[c].barriers, .memory = modes[mi] };
            spvjit_kernel *k = build(ctx, cases[c].rel, NULL, &o);
            REQUIRE(k, "%s: build", cases[c].what);
            uint32_t d[SPIN_WORDS] = { 0 };
            spvjit_bind_buffer(k, 0, 0, d, sizeof d);
            double t0 = util_now_ms();
            spvjit_status st =
                spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { SPIN_GROUPS, 1, 1 }, .timeout_seconds = 0.2 });
            double ms = util_now_ms() - t0;
            const char *e = spvjit_last_error();
            CHECK(st == SPVJIT_ERROR_TIMEOUT, "%s/%zu: %s: %s", cases[c].what, mi, spvjit_status_name(st), e);
            CHECK(ms >= 190 && ms < 5000, "%s/%zu: stopped after %.0f ms", cases[c].what, mi, ms);
            CHECK(strstr(e, "kernel \"main\": timed out: stopped after 0.") &&
                      strstr(e, " s (the limit is 0.2 s) with ") && strstr(e, " of 4 work-groups completed"),
                  "%s: %s", cases[c].what, e);
            spin_finishes(k, cases[c].what);
            spvjit_kernel_destroy(k);
        }
    /* a limit that is not reached changes nothing */
    spvjit_kernel *k = build(ctx, "jit/spin.comp.spv", NULL, NULL);
    REQUIRE(k, "build");
    uint32_t d[SPIN_WORDS] = { 1 };
    spvjit_bind_buffer(k, 0, 0, d, sizeof d);
    CHECK(spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { SPIN_GROUPS, 1, 1 }, .timeout_seconds = 30 }) ==
              SPVJIT_OK,
          "%s", spvjit_last_error());
    CHECK(spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { 1, 1, 1 }, .timeout_seconds = -1 }) ==
                  SPVJIT_ERROR_DISPATCH &&
              strstr(spvjit_last_error(), "a time limit of -1 s is not 0 (none) or a number of seconds"),
          "negative limit: %s", spvjit_last_error());
    spvjit_kernel_destroy(k);
    spvjit_context_destroy(ctx);
}

typedef struct sync_job {
    spvjit_kernel *k;
    spvjit_status st;
    char msg[1024];
} sync_job;

static void *dispatch_in_thread(void *p)
{
    sync_job *j = p;
    j->st = spvjit_dispatch(j->k, &(spvjit_dispatch_info){ .groups = { SPIN_GROUPS, 1, 1 } });
    snprintf(j->msg, sizeof j->msg, "%s", spvjit_last_error());
    return NULL;
}

TEST(limits_cancel_sync_and_async)
{
    spvjit_context *ctx = api_ctx(0);
    REQUIRE(ctx, "context");
    static const spvjit_barriers barriers[] = { SPVJIT_BARRIERS_DEFAULT, SPVJIT_BARRIERS_FIBERS };
    static const char *const rels[] = { "jit/spin.comp.spv", "jit/spin_barrier.comp.spv" };
    for (int c = 0; c < 2; c++) {
        spvjit_build_options o = { .barriers = barriers[c] };
        spvjit_kernel *k = build(ctx, rels[c], NULL, &o);
        REQUIRE(k, "build %s", rels[c]);
        CHECK(spvjit_dispatch_cancel(k) == SPVJIT_OK, "cancel with nothing running");
        uint32_t d[SPIN_WORDS] = { 0 };
        spvjit_bind_buffer(k, 0, 0, d, sizeof d);

        /* asynchronous */
        spvjit_event *ev = NULL;
        REQUIRE(spvjit_dispatch_async(k, &(spvjit_dispatch_info){ .groups = { SPIN_GROUPS, 1, 1 } }, &ev) == SPVJIT_OK,
                "async: %s", spvjit_last_error());
        sleep_ms(100);
        CHECK(spvjit_dispatch_cancel(k) == SPVJIT_OK, "cancel");
        spvjit_status st = spvjit_event_wait(ev);
        CHECK(st == SPVJIT_ERROR_CANCELLED, "%s async: %s: %s", rels[c], spvjit_status_name(st), spvjit_last_error());
        CHECK(strstr(spvjit_last_error(), "kernel \"main\": cancelled: stopped after ") &&
                  strstr(spvjit_last_error(), " of 4 work-groups completed"),
              "%s", spvjit_last_error());

        /* synchronous, in another thread, cancelled from this one */
        sync_job j = { .k = k };
        pthread_t th;
        pthread_create(&th, NULL, dispatch_in_thread, &j);
        sleep_ms(100);
        CHECK(spvjit_dispatch_cancel(k) == SPVJIT_OK, "cancel");
        pthread_join(th, NULL);
        CHECK(j.st == SPVJIT_ERROR_CANCELLED, "%s sync: %s: %s", rels[c], spvjit_status_name(j.st), j.msg);

        /* later dispatches run as usual, this kernel and another */
        spin_finishes(k, rels[c]);
        spvjit_kernel_destroy(k);
    }
    spvjit_specs *s;
    spvjit_specs_create(&s);
    spvjit_spec_set_f32(s, 0, 2.0f);
    spvjit_kernel *k = build(ctx, "kernels/saxpy.comp.spv", s, NULL);
    REQUIRE(k, "saxpy");
    float x[64], y[64];
    uint32_t n = 64;
    for (int i = 0; i < 64; i++) {
        x[i] = (float)i;
        y[i] = 1;
    }
    spvjit_bind_buffer(k, 0, 0, x, sizeof x);
    spvjit_bind_buffer(k, 0, 1, y, sizeof y);
    spvjit_set_push_constants(k, &n, 4);
    CHECK(spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { 1, 1, 1 } }) == SPVJIT_OK, "saxpy after");
    for (int i = 0; i < 64; i++)
        CHECK(y[i] == 2.0f * (float)i + 1, "y[%d] = %g", i, y[i]);
    CHECK(spvjit_dispatch_cancel(NULL) == SPVJIT_ERROR_INVALID_ARGUMENT, "cancel(NULL)");
    spvjit_kernel_destroy(k);
    spvjit_specs_destroy(s);
    spvjit_context_destroy(ctx);
}

/* ------------------------------------------------------------------------------------------ */

TEST(limits_reported_and_enforced_before_running)
{
    spvjit_limits l;
    REQUIRE(spvjit_limits_get(&l) == SPVJIT_OK, "limits");
    CHECK(spvjit_limits_get(NULL) == SPVJIT_ERROR_INVALID_ARGUMENT, "NULL");
    CHECK(l.max_workgroup_invocations == 4096 && l.max_workgroup_memory == 16u << 20 &&
              l.max_private_memory == 1u << 20,
          "limits %u, %llu, %llu", l.max_workgroup_invocations, (unsigned long long)l.max_workgroup_memory,
          (unsigned long long)l.max_private_memory);
    spvjit_context *ctx = api_ctx(0);
    REQUIRE(ctx, "context");
    spvjit_module *mm = api_load(ctx, "kernels/mm.comp.spv"), *big = api_load(ctx, "jit/big_arrays.comp.spv");
    REQUIRE(mm && big, "load");
    spvjit_kernel *k = NULL;
    spvjit_specs *s;
    spvjit_specs_create(&s);

    /* the work-group size: 2000x2000 (the mm -D 0=2000), 65x64 just above */
    static const uint32_t sizes[][2] = { { 2000, 4000000 }, { 65, 4225 } };
    for (int i = 0; i < 2; i++) {
        spvjit_spec_set_u32(s, 0, sizes[i][0]);
        CHECK(spvjit_kernel_build(mm, NULL, s, NULL, &k) == SPVJIT_ERROR_LIMIT, "BS=%u", sizes[i][0]);
        char want[160];
        snprintf(want, sizeof want, "a local size of %ux%ux1 is %u work-items per work-group; spvjit runs at most 4096",
                 sizes[i][0], sizes[i][0], sizes[i][1]);
        CHECK(strstr(spvjit_last_error(), want), "BS=%u: %s", sizes[i][0], spvjit_last_error());
    }
    spvjit_spec_set_u32(s, 0, 64); /* 64x64: the limit itself */
    CHECK(spvjit_kernel_build(mm, NULL, s, NULL, &k) == SPVJIT_OK, "BS=64: %s", spvjit_last_error());
    spvjit_kernel_destroy(k);
    k = NULL;

    /* private memory: 4M uints per work-item (the 16 MB array), then 1024 */
    CHECK(spvjit_kernel_build(big, NULL, NULL, NULL, &k) == SPVJIT_ERROR_LIMIT, "16 MiB private array");
    CHECK(strstr(spvjit_last_error(), "main uses 16777224 bytes of private memory per work-item (Private and Function "
                                      "variables); spvjit gives a work-item at most 1048576"),
          "%s", spvjit_last_error());
    /* work-group memory: 32 MiB, then 16 MiB (the limit) */
    spvjit_specs_destroy(s);
    spvjit_specs_create(&s);
    spvjit_spec_set_u32(s, 0, 1024);
    spvjit_spec_set_u32(s, 1, 8u << 20);
    CHECK(spvjit_kernel_build(big, NULL, s, NULL, &k) == SPVJIT_ERROR_LIMIT, "32 MiB shared array");
    CHECK(strstr(spvjit_last_error(),
                 "main uses 33554432 bytes of work-group memory; spvjit gives a work-group at most 16777216"),
          "%s", spvjit_last_error());
    spvjit_spec_set_u32(s, 1, 4u << 20);
    CHECK(spvjit_kernel_build(big, NULL, s, NULL, &k) == SPVJIT_OK, "16 MiB shared: %s", spvjit_last_error());
    if (k) {
        uint32_t d[128];
        spvjit_bind_buffer(k, 0, 0, d, sizeof d);
        CHECK(spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { 2, 1, 1 } }) == SPVJIT_OK, "%s",
              spvjit_last_error());
        for (uint32_t i = 0; i < 128; i++)
            CHECK(d[i] == 2 * i, "d[%u] = %u", i, d[i]);

        /* dispatch shapes.  Zero groups: Vulkan dispatches nothing (the
         * command refuses it as a usage error).  Global ids past 32 bits, a
         * group id past 32 bits: errors.  4G groups: legal, stopped by a
         * time limit. */
        memset(d, 0xab, sizeof d);
        CHECK(spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { 0, 1, 1 } }) == SPVJIT_OK, "zero groups: %s",
              spvjit_last_error());
        CHECK(d[0] == 0xabababab, "zero groups ran something");
        CHECK(spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { 67108865, 1, 1 } }) == SPVJIT_ERROR_DISPATCH &&
                  strstr(spvjit_last_error(), "group count 67108865 in dimension X with local size 64 make global "
                                              "invocation ids past the 32 bits GlobalInvocationId holds"),
              "2^32 + 64 work-items: %s", spvjit_last_error());
        CHECK(spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { 2, 1, 1 }, .base_group = { UINT32_MAX } }) ==
                      SPVJIT_ERROR_DISPATCH &&
                  strstr(spvjit_last_error(), "passes the 32-bit work-group id limit"),
              "base group: %s", spvjit_last_error());
        CHECK(spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { 65536, 65536, 1 }, .timeout_seconds = 0.1 }) ==
                      SPVJIT_ERROR_TIMEOUT &&
                  strstr(spvjit_last_error(), " of 4294967296 work-groups completed"),
              "4G groups: %s", spvjit_last_error());
        spvjit_kernel_destroy(k);
    }
    spvjit_specs_destroy(s);
    spvjit_module_destroy(mm);
    spvjit_module_destroy(big);

    /* Kernel flavour: a local size above the limit at dispatch, __local
     * arguments beyond the work-group memory limit */
    spvjit_module *red = api_load(ctx, "kernels/reduce.cl.spv");
    REQUIRE(red && spvjit_kernel_build(red, NULL, NULL, NULL, &k) == SPVJIT_OK, "reduce.cl: %s", spvjit_last_error());
    float src[64] = { 0 }, part[64];
    uint32_t n = 64;
    spvjit_set_arg_buffer(k, 0, src, sizeof src);
    spvjit_set_arg_buffer(k, 1, part, sizeof part);
    spvjit_set_arg_value(k, 2, &n, 4);
    spvjit_set_arg_local(k, 3, 32u << 20);
    spvjit_dispatch_info di = { .work_dim = 1, .global_size = { 64 }, .local_size = { 64 } };
    CHECK(spvjit_dispatch(k, &di) == SPVJIT_ERROR_LIMIT && strstr(spvjit_last_error(), "16777216"),
          "32 MiB of __local arguments: %s", spvjit_last_error());
    spvjit_set_arg_local(k, 3, 64 * 4);
    di.global_size[0] = 8192;
    di.local_size[0] = 8192;
    CHECK(spvjit_dispatch(k, &di) == SPVJIT_ERROR_LIMIT &&
              strstr(spvjit_last_error(),
                     "a local size of 8192x1x1 is 8192 work-items per work-group; spvjit runs at most 4096"),
          "local size 8192: %s", spvjit_last_error());
    di.global_size[0] = (uint64_t)1 << 33;
    di.local_size[0] = 1;
    CHECK(spvjit_dispatch(k, &di) == SPVJIT_ERROR_DISPATCH && strstr(spvjit_last_error(), "more than 2^32-1"),
          "2^33 work-groups: %s", spvjit_last_error());
    di.global_size[0] = 64;
    di.local_size[0] = 64;
    CHECK(spvjit_dispatch(k, &di) == SPVJIT_OK, "the dispatch after: %s", spvjit_last_error());
    spvjit_kernel_destroy(k);
    spvjit_module_destroy(red);
    spvjit_context_destroy(ctx);
}

/* The table: mm with BS 16 on 4x4 groups (n = 64) over 64-byte
 * buffers (16 floats each; the kernel indexes 4096) aborted the process.
 * Robust runs it to the result the Vulkan rules give: A and B read as
 * zero past their 16 floats, C keeps only its first 16. */
TEST(limits_mm_over_short_buffers)
{
    spvjit_context *ctx = api_ctx(0);
    REQUIRE(ctx, "context");
    spvjit_specs *s;
    spvjit_specs_create(&s);
    spvjit_spec_set_u32(s, 0, 16);
    spvjit_kernel *k = build(ctx, "kernels/mm.comp.spv", s, NULL);
    REQUIRE(k, "build");
    enum { N = 64, SHORT = 16 };
    float a[SHORT + 16], b[SHORT + 16], c[SHORT + 16];
    uint64_t seed = 3;
    for (int i = 0; i < SHORT + 16; i++) {
        a[i] = i < SHORT ? test_rand_float(&seed, -1, 1) : 1e30f; /* past the range: must never be read */
        b[i] = i < SHORT ? test_rand_float(&seed, -1, 1) : 1e30f;
        c[i] = i < SHORT ? 0 : -7;
    }
    uint32_t n = N;
    spvjit_bind_buffer(k, 0, 0, a, SHORT * 4);
    spvjit_bind_buffer(k, 0, 1, b, SHORT * 4);
    spvjit_bind_buffer(k, 0, 2, c, SHORT * 4);
    spvjit_set_push_constants(k, &n, 4);
    CHECK(spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { 4, 4, 1 } }) == SPVJIT_OK, "%s", spvjit_last_error());
    /* c[i][j] for i*N + j < 16: row 0, columns 0..15: sum over k of a[0][k] * b[k][j], where only
     * a[0][0..15] and b[0][j] (k = 0) are in range */
    for (int j = 0; j < SHORT; j++) {
        float want = a[0] * b[j];
        CHECK(c[j] == want || (c[j] - want) * (c[j] - want) < 1e-10f, "c[0][%d] = %g, want %g", j, c[j], want);
    }
    for (int i = SHORT; i < SHORT + 16; i++)
        CHECK(c[i] == -7, "c[%d] past the range was written", i);
    spvjit_kernel_destroy(k);
    spvjit_specs_destroy(s);
    spvjit_context_destroy(ctx);
}
