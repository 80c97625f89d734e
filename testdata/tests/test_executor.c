/* testdata/tests/test_executor.c — the work-group executor (lib/executor.h)
 * driven by hand-written C kernels with the JIT's signatures (jit/abi.h).
 *
 * The kernels read their parameters the way JIT code does: args[i] points to
 * the value of parameter i (for a buffer, to the buffer's pointer).  Every
 * result is checked against a plain C computation on random inputs. */
#include "harness.h"

#include <fenv.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "lib/executor.h"

#define ARG_PTR(ctx, i, T) (*(T *const *)(ctx)->args[i])
#define ARG_VAL(ctx, i, T) (*(const T *)(ctx)->args[i])

/* OpenCL get_global_id / Vulkan GlobalInvocationId of a work-item. */
static uint64_t global_id(const spvjit_wg_ctx *c, int d, uint32_t lid)
{
    return c->global_offset[d] + (uint64_t)(c->group_id[d] + c->base_group[d]) * c->enqueued_local_size[d] + lid;
}

/* --- range functions from per-group ones ------------------------------------------------
 * The executor hands compiled code ranges of groups (jit/abi.h: linear index,
 * x fastest); these kernels are written per group, so each has a range
 * function that splits its range into groups here, on its own, and gives each
 * group a ctx with its ids and local size. */

typedef void (*group_fn)(const spvjit_wg_ctx *c);

static void run_range(const spvjit_wg_ctx *c, uint64_t first, uint64_t count, group_fn group)
{
    spvjit_wg_ctx g = *c;
    for (uint64_t i = first; i < first + count; i++) {
        if (c->stop && __atomic_load_n(c->stop, __ATOMIC_RELAXED))
            return;
        uint64_t id[3] = { i % c->num_groups[0], i / c->num_groups[0] % c->num_groups[1],
                           i / c->num_groups[0] / c->num_groups[1] };
        for (int d = 0; d < 3; d++) {
            uint64_t left = c->global_size[d] - id[d] * c->enqueued_local_size[d];
            g.group_id[d] = (uint32_t)id[d];
            g.local_size[d] = left < c->enqueued_local_size[d] ? (uint32_t)left : c->enqueued_local_size[d];
        }
        group(&g);
    }
}

#define RANGE_OF(fn)                                                                                                   \
    static uint64_t fn##_range(const spvjit_wg_ctx *c, uint64_t first, uint64_t count)                                 \
    {                                                                                                                  \
        run_range(c, first, count, fn);                                                                                \
        return count;                                                                                                  \
    }

static int dispatch_groups(const spvjit_exec_kernel *k, uint32_t gx, uint32_t gy, uint32_t gz, void *const *args,
                           uint32_t nthreads, spv_diag *diag)
{
    spvjit_exec_range r = { .kind = SPVJIT_RANGE_GROUPS, .group_count = { gx, gy, gz } };
    spvjit_exec_data data = { .args = args, .nthreads = nthreads };
    diag->msg[0] = 0;
    return spvjit_exec_dispatch(k, &r, &data, diag);
}

/* --- saxpy: barrier-free, many work-groups --------------------------------------------- */

/* args: 0 float *x, 1 float *y, 2 float a, 3 uint32_t n */
static void saxpy_wg(const spvjit_wg_ctx *c)
{
    const float *x = ARG_PTR(c, 0, float);
    float *y = ARG_PTR(c, 1, float);
    float a = ARG_VAL(c, 2, float);
    uint32_t n = ARG_VAL(c, 3, uint32_t);
    for (uint32_t lx = 0; lx < c->local_size[0]; lx++) {
        uint64_t i = global_id(c, 0, lx);
        if (i < n)
            y[i] = a * x[i] + y[i];
    }
}
RANGE_OF(saxpy_wg)

static void check_saxpy(uint32_t n, uint32_t local, uint32_t nthreads, uint64_t seed)
{
    float *x = malloc(sizeof *x * n), *y = malloc(sizeof *y * n), *ref = malloc(sizeof *ref * n);
    REQUIRE(x && y && ref, "out of memory");
    float a = test_rand_float(&seed, -3.0f, 3.0f);
    for (uint32_t i = 0; i < n; i++) {
        x[i] = test_rand_float(&seed, -100.0f, 100.0f);
        y[i] = test_rand_float(&seed, -100.0f, 100.0f);
        ref[i] = a * x[i] + y[i];
    }
    void *args[] = { &x, &y, &a, &n };
    spvjit_exec_kernel k = { .wg_range = saxpy_wg_range, .local_size = { local, 1, 1 } };
    spv_diag diag;
    int rc = dispatch_groups(&k, (n + local - 1) / local, 1, 1, args, nthreads, &diag);
    CHECK(rc == 0, "saxpy dispatch failed: %s", diag.msg);
    uint32_t bad = 0;
    for (uint32_t i = 0; i < n; i++)
        bad += y[i] != ref[i];
    CHECK(bad == 0, "saxpy n=%u local=%u threads=%u: %u wrong elements", n, local, nthreads, bad);
    free(x);
    free(y);
    free(ref);
}

TEST_TIER_FREE(executor_saxpy_many_groups)
{
    check_saxpy(100003, 64, 0, 11);
    check_saxpy(4096, 1, 0, 12);   /* 4096 groups of one item */
    check_saxpy(777, 1024, 0, 13); /* one group */
    check_saxpy(50000, 32, 1, 14);
    check_saxpy(50000, 32, 8, 15);
}

/* --- NDRange: every work-item exactly once, smaller last groups ------------------------- */

typedef struct nd_info {
    _Atomic uint32_t *hits; /* per global item (relative to the offset) */
    uint64_t global[3], offset[3];
    uint32_t enq[3];
    atomic_int bad; /* items outside the range or wrong ctx fields */
} nd_info;

static void count_item(const spvjit_wg_ctx *c, nd_info *info, uint32_t lx, uint32_t ly, uint32_t lz)
{
    uint32_t lid[3] = { lx, ly, lz };
    uint64_t rel[3];
    for (int d = 0; d < 3; d++) {
        uint64_t g = global_id(c, d, lid[d]);
        uint32_t expect_local = info->enq[d];
        /* The last group in a dimension holds what is left over. */
        if (c->group_id[d] + 1 == c->num_groups[d] && info->global[d] % info->enq[d])
            expect_local = (uint32_t)(info->global[d] % info->enq[d]);
        if (g < info->offset[d] || g - info->offset[d] >= info->global[d] || c->local_size[d] != expect_local ||
            c->enqueued_local_size[d] != info->enq[d] || c->global_size[d] != info->global[d] ||
            c->global_offset[d] != info->offset[d]) {
            atomic_fetch_add(&info->bad, 1);
            return;
        }
        rel[d] = g - info->offset[d];
    }
    uint64_t idx = (rel[2] * info->global[1] + rel[1]) * info->global[0] + rel[0];
    atomic_fetch_add(&info->hits[idx], 1);
}

/* args: 0 nd_info * */
static void nd_wg(const spvjit_wg_ctx *c)
{
    nd_info *info = ARG_PTR(c, 0, nd_info);
    for (uint32_t z = 0; z < c->local_size[2]; z++)
        for (uint32_t y = 0; y < c->local_size[1]; y++)
            for (uint32_t x = 0; x < c->local_size[0]; x++)
                count_item(c, info, x, y, z);
}
RANGE_OF(nd_wg)

/* The same through fibers, with a barrier between two halves of the count. */
static void nd_item(const spvjit_wg_ctx *c, uint32_t lx, uint32_t ly, uint32_t lz)
{
    nd_info *info = ARG_PTR(c, 0, nd_info);
    c->barrier(c, 0);
    count_item(c, info, lx, ly, lz);
    c->barrier(c, 1);
}

static void check_ndrange(uint32_t wd, const uint64_t global[3], const uint32_t local[3], const uint64_t offset[3],
                          bool give_local, bool fibers, uint32_t nthreads)
{
    nd_info info = { .bad = 0 };
    uint64_t total = 1;
    for (int d = 0; d < 3; d++) {
        info.global[d] = d < (int)wd ? global[d] : 1;
        info.offset[d] = d < (int)wd ? offset[d] : 0;
        info.enq[d] = local[d];
        total *= info.global[d];
    }
    info.hits = calloc(total, sizeof *info.hits);
    REQUIRE(info.hits, "out of memory");
    nd_info *infop = &info;
    void *args[] = { &infop };
    spvjit_exec_kernel k = { .local_size = { local[0], local[1], local[2] }, .nbarrier_sites = 2 };
    if (fibers)
        k.item_fn = nd_item;
    else
        k.wg_range = nd_wg_range;
    spvjit_exec_range r = { .kind = SPVJIT_RANGE_NDRANGE, .work_dim = wd };
    for (int d = 0; d < 3; d++) {
        r.global_size[d] = global[d];
        r.global_offset[d] = offset[d];
        r.local_size[d] = give_local ? local[d] : 0;
    }
    spvjit_exec_data data = { .args = args, .nthreads = nthreads };
    spv_diag diag = { .msg = "" };
    int rc = spvjit_exec_dispatch(&k, &r, &data, &diag);
    CHECK(rc == 0, "ndrange dispatch failed: %s", diag.msg);
    uint64_t wrong = 0;
    for (uint64_t i = 0; i < total; i++)
        wrong += atomic_load(&info.hits[i]) != 1;
    CHECK(wrong == 0 && atomic_load(&info.bad) == 0,
          "ndrange dim %u global %llux%llux%llu local %ux%ux%u (%s): %llu items not run exactly "
          "once, %d with wrong ids/sizes",
          wd, (unsigned long long)info.global[0], (unsigned long long)info.global[1],
          (unsigned long long)info.global[2], local[0], local[1], local[2], fibers ? "fibers" : "wg_fn",
          (unsigned long long)wrong, atomic_load(&info.bad));
    free(info.hits);
}

TEST_TIER_FREE(executor_ndrange_remainder_groups)
{
    uint64_t seed = 21;
    for (int round = 0; round < 12; round++) {
        uint32_t wd = 1 + (uint32_t)(test_rand_u64(&seed) % 3);
        uint64_t global[3], offset[3];
        uint32_t local[3] = { 1, 1, 1 };
        for (uint32_t d = 0; d < 3; d++) {
            if (d < wd) {
                local[d] = 1 + (uint32_t)(test_rand_u64(&seed) % (wd == 1 ? 64 : 7));
                /* Deliberately not a multiple of the local size. */
                global[d] =
                    local[d] * (1 + test_rand_u64(&seed) % (wd == 1 ? 50 : 9)) + test_rand_u64(&seed) % local[d];
                if (global[d] % local[d] == 0 && local[d] > 1)
                    global[d]++;
                offset[d] = test_rand_u64(&seed) % 1000;
            } else {
                global[d] = 1;
                offset[d] = 0;
            }
        }
        bool fibers = round % 2;
        check_ndrange(wd, global, local, offset, round % 3 != 0, fibers, round % 4 == 0 ? 1 : 0);
    }
    /* Smaller than one group, and exactly divisible. */
    uint64_t g1[3] = { 5, 1, 1 }, off[3] = { 7, 0, 0 };
    uint32_t l1[3] = { 16, 1, 1 };
    check_ndrange(1, g1, l1, off, true, false, 0);
    check_ndrange(1, g1, l1, off, true, true, 0);
    uint64_t g2[3] = { 48, 20, 1 };
    uint32_t l2[3] = { 16, 4, 1 };
    check_ndrange(2, g2, l2, off, false, true, 0);
}

/* --- local-memory tree reduction with barriers ----------------------------------------------- */

/* args: 0 const float *in, 1 float *out (one per group), 2 uint32_t n.
 * Work-group memory: local_size floats. */
static void reduce_item(const spvjit_wg_ctx *c, uint32_t lx, uint32_t ly, uint32_t lz)
{
    (void)ly;
    (void)lz;
    const float *in = ARG_PTR(c, 0, const float);
    float *out = ARG_PTR(c, 1, float);
    uint32_t n = ARG_VAL(c, 2, uint32_t);
    float *buf = c->wg_memory;
    uint64_t i = global_id(c, 0, lx);
    buf[lx] = i < n ? in[i] : 0.0f;
    c->barrier(c, 0);
    for (uint32_t s = c->local_size[0] / 2; s > 0; s >>= 1) {
        if (lx < s)
            buf[lx] += buf[lx + s];
        c->barrier(c, 1);
    }
    if (lx == 0)
        out[c->group_id[0]] = buf[0];
}

static void check_reduction(uint32_t n, uint32_t local, uint32_t nthreads, uint64_t seed)
{
    uint32_t groups = (n + local - 1) / local;
    float *in = malloc(sizeof *in * n), *out = malloc(sizeof *out * groups);
    REQUIRE(in && out, "out of memory");
    for (uint32_t i = 0; i < n; i++)
        in[i] = test_rand_float(&seed, -1.0f, 1.0f);
    for (uint32_t g = 0; g < groups; g++)
        out[g] = NAN;
    void *args[] = { &in, &out, &n };
    spvjit_exec_kernel k = { .item_fn = reduce_item,
                             .local_size = { local, 1, 1 },
                             .wg_memory_size = sizeof(float) * local,
                             .wg_memory_align = 64,
                             .nbarrier_sites = 2 };
    spv_diag diag;
    int rc = dispatch_groups(&k, groups, 1, 1, args, nthreads, &diag);
    REQUIRE(rc == 0, "reduction dispatch failed: %s", diag.msg);
    uint32_t bad = 0;
    double total = 0, ref_total = 0;
    for (uint32_t g = 0; g < groups; g++) {
        double ref = 0;
        for (uint32_t i = g * local; i < n && i < (g + 1) * local; i++)
            ref += in[i];
        if (!(fabs(out[g] - ref) <= 1e-4 * local))
            bad++;
        total += out[g];
        ref_total += ref;
    }
    CHECK(bad == 0, "reduction n=%u local=%u threads=%u: %u of %u group sums wrong", n, local, nthreads, bad, groups);
    CHECK(fabs(total - ref_total) <= 1e-3 * groups, "total %f vs %f", total, ref_total);
    free(in);
    free(out);
}

TEST_TIER_FREE(executor_reduction_barriers)
{
    check_reduction(10000, 128, 0, 31);
    check_reduction(4096 * 64, 64, 0, 32); /* many groups in parallel */
    check_reduction(1000, 256, 1, 33);
    check_reduction(1000, 2, 8, 34);
    check_reduction(333, 1, 0, 35); /* one-item groups: no fibers */
}

/* --- 2D tiled matrix multiply, two barriers per tile --------------------------------------- */

enum { TILE = 8 };

/* args: 0 const float *A (M x K), 1 const float *B (K x N), 2 float *C (M x N), 3 uint32_t dims[3] = {M, N, K}.
 * Work-group memory: two TILE x TILE tiles. */
static void matmul_item(const spvjit_wg_ctx *c, uint32_t lx, uint32_t ly, uint32_t lz)
{
    (void)lz;
    const float *A = ARG_PTR(c, 0, const float);
    const float *B = ARG_PTR(c, 1, const float);
    float *C = ARG_PTR(c, 2, float);
    const uint32_t *dims = ARG_PTR(c, 3, const uint32_t);
    uint32_t M = dims[0], N = dims[1], K = dims[2];
    float(*As)[TILE] = c->wg_memory;
    float(*Bs)[TILE] = (float(*)[TILE])((float *)c->wg_memory + TILE * TILE);
    uint64_t col = global_id(c, 0, lx), row = global_id(c, 1, ly);
    float acc = 0;
    for (uint32_t t = 0; t < K; t += TILE) {
        As[ly][lx] = row < M && t + lx < K ? A[row * K + t + lx] : 0.0f;
        Bs[ly][lx] = col < N && t + ly < K ? B[(t + ly) * N + col] : 0.0f;
        c->barrier(c, 0);
        for (uint32_t e = 0; e < TILE; e++)
            acc += As[ly][e] * Bs[e][lx];
        c->barrier(c, 1);
    }
    if (row < M && col < N)
        C[row * N + col] = acc;
}

static void check_matmul(uint32_t M, uint32_t N, uint32_t K, uint32_t nthreads, uint64_t seed)
{
    float *A = malloc(sizeof *A * M * K), *B = malloc(sizeof *B * K * N);
    float *C = malloc(sizeof *C * M * N);
    REQUIRE(A && B && C, "out of memory");
    for (uint32_t i = 0; i < M * K; i++)
        A[i] = test_rand_float(&seed, -2.0f, 2.0f);
    for (uint32_t i = 0; i < K * N; i++)
        B[i] = test_rand_float(&seed, -2.0f, 2.0f);
    for (uint32_t i = 0; i < M * N; i++)
        C[i] = NAN;
    uint32_t dims[3] = { M, N, K };
    uint32_t *dimsp = dims;
    void *args[] = { &A, &B, &C, &dimsp };
    spvjit_exec_kernel k = { .item_fn = matmul_item,
                             .local_size = { TILE, TILE, 1 },
                             .wg_memory_size = 2 * TILE * TILE * sizeof(float),
                             .wg_memory_align = 32,
                             .nbarrier_sites = 2 };
    spv_diag diag;
    int rc = dispatch_groups(&k, (N + TILE - 1) / TILE, (M + TILE - 1) / TILE, 1, args, nthreads, &diag);
    REQUIRE(rc == 0, "matmul dispatch failed: %s", diag.msg);
    uint32_t bad = 0;
    for (uint32_t r = 0; r < M; r++)
        for (uint32_t col = 0; col < N; col++) {
            double ref = 0;
            for (uint32_t e = 0; e < K; e++)
                ref += (double)A[r * K + e] * B[e * N + col];
            if (!(fabs(C[r * N + col] - ref) <= 1e-3 * K))
                bad++;
        }
    CHECK(bad == 0, "matmul %ux%ux%u: %u of %u elements wrong", M, N, K, bad, M * N);
    free(A);
    free(B);
    free(C);
}

TEST_TIER_FREE(executor_tiled_matmul_barriers)
{
    check_matmul(37, 29, 45, 0, 41);
    check_matmul(64, 64, 64, 0, 42);
    check_matmul(17, 50, 9, 1, 43);
}

/* --- barrier divergence --------------------------------------------------------------- */

typedef struct div_info {
    uint32_t bad_group;       /* the group that diverges (others are fine) */
    atomic_int after_barrier; /* items of bad_group that ran past the barrier */
    atomic_int groups_started;
} div_info;

/* (a) in bad_group the upper half returns before the barrier. */
static void early_return_item(const spvjit_wg_ctx *c, uint32_t lx, uint32_t ly, uint32_t lz)
{
    (void)ly;
    (void)lz;
    div_info *info = ARG_PTR(c, 0, div_info);
    bool bad = c->group_id[0] == info->bad_group;
    if (lx == 0)
        atomic_fetch_add(&info->groups_started, 1);
    if (bad && lx >= c->local_size[0] / 2)
        return;
    c->barrier(c, 0);
    if (bad)
        atomic_fetch_add(&info->after_barrier, 1);
}

/* (b) in bad_group items with lx % 3 == 0 take one branch, the rest the other,
 * each with its own barrier. */
static void if_else_item(const spvjit_wg_ctx *c, uint32_t lx, uint32_t ly, uint32_t lz)
{
    (void)ly;
    (void)lz;
    div_info *info = ARG_PTR(c, 0, div_info);
    bool bad = c->group_id[0] == info->bad_group;
    if (!bad || lx % 3 == 0) {
        c->barrier(c, 0);
    } else {
        c->barrier(c, 1);
    }
    if (bad)
        atomic_fetch_add(&info->after_barrier, 1);
}

/* (c) in bad_group odd items pass the barrier twice, even ones once. */
static void loop_count_item(const spvjit_wg_ctx *c, uint32_t lx, uint32_t ly, uint32_t lz)
{
    (void)ly;
    (void)lz;
    div_info *info = ARG_PTR(c, 0, div_info);
    bool bad = c->group_id[0] == info->bad_group;
    uint32_t times = bad ? 1 + lx % 2 : 2;
    for (uint32_t t = 0; t < times; t++)
        c->barrier(c, 2);
    if (bad)
        atomic_fetch_add(&info->after_barrier, 1);
}

static int run_divergent(spvjit_item_fn fn, uint32_t groups, uint32_t bad_group, uint32_t local, div_info *info,
                         spv_diag *diag)
{
    memset(info, 0, sizeof *info);
    info->bad_group = bad_group;
    div_info *p = info;
    void *args[] = { &p };
    spvjit_exec_kernel k = { .item_fn = fn, .local_size = { local, 1, 1 }, .nbarrier_sites = 3 };
    return dispatch_groups(&k, groups, 1, 1, args, 0, diag);
}

TEST_TIER_FREE(executor_divergence_early_return)
{
    div_info info;
    spv_diag diag;
    int rc = run_divergent(early_return_item, 200, 37, 64, &info, &diag);
    REQUIRE(rc != 0, "divergent dispatch reported success");
    CHECK(strstr(diag.msg, "work-group (37,0,0)"), "no group id in: %s", diag.msg);
    CHECK(strstr(diag.msg, "32 work-items wait at barrier site 0: (0,0,0) (1,0,0) (2,0,0) (3,0,0) and 28 more"),
          "waiting items not named in: %s", diag.msg);
    CHECK(strstr(diag.msg, "32 work-items returned: (32,0,0) (33,0,0)"), "returned items not named in: %s", diag.msg);
    CHECK(atomic_load(&info.after_barrier) == 0, "%d items ran past the barrier after divergence",
          atomic_load(&info.after_barrier));
    CHECK(atomic_load(&info.groups_started) <= 200, "more groups than dispatched");

    /* Abandoned fibers' stacks are reused: a correct dispatch still works. */
    check_reduction(5000, 64, 0, 51);
    /* A group with every other item in one group diverging: still reported. */
    rc = run_divergent(early_return_item, 1, 0, 2, &info, &diag);
    CHECK(rc != 0 && strstr(diag.msg, "1 work-item waits at barrier site 0: (0,0,0)") &&
              strstr(diag.msg, "1 work-item returned: (1,0,0)"),
          "two-item divergence: %s", diag.msg);
}

TEST_TIER_FREE(executor_divergence_if_else_sites)
{
    div_info info;
    spv_diag diag;
    int rc = run_divergent(if_else_item, 64, 5, 32, &info, &diag);
    REQUIRE(rc != 0, "divergent dispatch reported success");
    CHECK(strstr(diag.msg, "work-group (5,0,0)"), "no group id in: %s", diag.msg);
    CHECK(strstr(diag.msg, "11 work-items wait at barrier site 0: (0,0,0) (3,0,0) (6,0,0) (9,0,0) and 7 more"),
          "site 0 items not named in: %s", diag.msg);
    CHECK(strstr(diag.msg, "21 work-items wait at barrier site 1: (1,0,0) (2,0,0) (4,0,0) (5,0,0) and 17 more"),
          "site 1 items not named in: %s", diag.msg);
    CHECK(!strstr(diag.msg, "returned"), "nobody returned, yet: %s", diag.msg);
    CHECK(atomic_load(&info.after_barrier) == 0, "%d items ran past a barrier after divergence",
          atomic_load(&info.after_barrier));

    rc = run_divergent(loop_count_item, 16, 9, 8, &info, &diag);
    REQUIRE(rc != 0, "uneven barrier counts reported success");
    CHECK(strstr(diag.msg, "work-group (9,0,0)") && strstr(diag.msg, "after 1 completed barrier:") &&
              strstr(diag.msg, "4 work-items wait at barrier site 2: (1,0,0) (3,0,0) (5,0,0) (7,0,0)") &&
              strstr(diag.msg, "4 work-items returned: (0,0,0) (2,0,0) (4,0,0) (6,0,0)"),
          "uneven barrier counts: %s", diag.msg);
    /* The even items legitimately finished; the odd ones must never resume. */
    CHECK(atomic_load(&info.after_barrier) == 4,
          "%d items of the diverged group finished, "
          "expected the 4 even ones",
          atomic_load(&info.after_barrier));
}

/* A barrier site number beyond the kernel's count is reported, not followed. */
static void bad_site_item(const spvjit_wg_ctx *c, uint32_t lx, uint32_t ly, uint32_t lz)
{
    (void)ly;
    (void)lz;
    c->barrier(c, lx == 3 ? 7 : 0);
}

TEST_TIER_FREE(executor_barrier_site_out_of_range)
{
    spvjit_exec_kernel k = { .item_fn = bad_site_item, .local_size = { 8, 1, 1 }, .nbarrier_sites = 2 };
    spv_diag diag;
    int rc = dispatch_groups(&k, 4, 1, 1, NULL, 0, &diag);
    CHECK(rc != 0 && strstr(diag.msg, "barrier site 7") && strstr(diag.msg, "(3,0,0)") &&
              strstr(diag.msg, "only 2 barrier sites"),
          "bad site: %s", diag.msg);
}

/* --- concurrency, thread counts --------------------------------------------------------- */

typedef struct host_job {
    int index;
    int failures;
    char msg[256];
} host_job;

static void *host_thread(void *arg)
{
    host_job *job = arg;
    uint64_t seed = 600 + (uint64_t)job->index;
    for (int rep = 0; rep < 6; rep++) {
        uint32_t n = 2000 + (uint32_t)(test_rand_u64(&seed) % 30000);
        uint32_t local = 16u << (test_rand_u64(&seed) % 4);
        uint32_t groups = (n + local - 1) / local;
        float *in = malloc(sizeof *in * n), *out = malloc(sizeof *out * groups);
        for (uint32_t i = 0; i < n; i++)
            in[i] = test_rand_float(&seed, 0.0f, 1.0f);
        void *args[] = { &in, &out, &n };
        spvjit_exec_kernel k = { .item_fn = reduce_item,
                                 .local_size = { local, 1, 1 },
                                 .wg_memory_size = sizeof(float) * local,
                                 .nbarrier_sites = 2 };
        spv_diag diag;
        if (dispatch_groups(&k, groups, 1, 1, args, 0, &diag) != 0) {
            job->failures++;
            snprintf(job->msg, sizeof job->msg, "%.200s", diag.msg);
        } else {
            for (uint32_t g = 0; g < groups; g++) {
                double ref = 0;
                for (uint32_t i = g * local; i < n && i < (g + 1) * local; i++)
                    ref += in[i];
                if (!(fabs(out[g] - ref) <= 1e-4 * local)) {
                    job->failures++;
                    snprintf(job->msg, sizeof job->msg, "group %u: %f vs %f", g, out[g], ref);
                    break;
                }
            }
        }
        /* Thread 3 also runs a divergent dispatch between good ones. */
        if (job->index == 3) {
            div_info info;
            if (run_divergent(if_else_item, 32, 7, 16, &info, &diag) == 0 || !strstr(diag.msg, "work-group (7,0,0)")) {
                job->failures++;
                snprintf(job->msg, sizeof job->msg, "divergence not reported: %.200s", diag.msg);
            }
        }
        free(in);
        free(out);
    }
    return NULL;
}

TEST_TIER_FREE(executor_concurrent_host_threads)
{
    pthread_t threads[4];
    host_job jobs[4];
    for (int i = 0; i < 4; i++) {
        jobs[i] = (host_job){ .index = i };
        REQUIRE(pthread_create(&threads[i], NULL, host_thread, &jobs[i]) == 0, "pthread_create");
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(threads[i], NULL);
        CHECK(jobs[i].failures == 0, "host thread %d: %d failures, last: %s", i, jobs[i].failures, jobs[i].msg);
    }
}

/* args: 0 pthread_t *who (one per group), 1 float *y, 2 float a */
static void who_wg(const spvjit_wg_ctx *c)
{
    pthread_t *who = ARG_PTR(c, 0, pthread_t);
    float *y = ARG_PTR(c, 1, float);
    float a = ARG_VAL(c, 2, float);
    who[c->group_id[0]] = pthread_self();
    for (uint32_t l = 0; l < c->local_size[0]; l++)
        y[global_id(c, 0, l)] *= a;
}
RANGE_OF(who_wg)

static void check_thread_count(uint32_t nthreads)
{
    enum { GROUPS = 512, LOCAL = 32 };
    pthread_t *who = calloc(GROUPS, sizeof *who);
    float *y = malloc(sizeof *y * GROUPS * LOCAL), *ref = malloc(sizeof *ref * GROUPS * LOCAL);
    REQUIRE(who && y && ref, "out of memory");
    uint64_t seed = 70 + nthreads;
    float a = test_rand_float(&seed, 0.5f, 2.0f);
    for (int i = 0; i < GROUPS * LOCAL; i++) {
        y[i] = test_rand_float(&seed, -10.0f, 10.0f);
        ref[i] = y[i] * a;
    }
    void *args[] = { &who, &y, &a };
    spvjit_exec_kernel k = { .wg_range = who_wg_range, .local_size = { LOCAL, 1, 1 } };
    spv_diag diag;
    int rc = dispatch_groups(&k, GROUPS, 1, 1, args, nthreads, &diag);
    REQUIRE(rc == 0, "dispatch failed: %s", diag.msg);
    CHECK(memcmp(y, ref, sizeof *y * GROUPS * LOCAL) == 0, "wrong results with %u threads", nthreads);
    pthread_t seen[16];
    uint32_t nseen = 0;
    bool caller_only = true;
    for (int g = 0; g < GROUPS; g++) {
        caller_only &= pthread_equal(who[g], pthread_self()) != 0;
        bool known = false;
        for (uint32_t s = 0; s < nseen; s++)
            known |= pthread_equal(seen[s], who[g]) != 0;
        if (!known && nseen < 16)
            seen[nseen++] = who[g];
    }
    CHECK(nseen >= 1 && nseen <= nthreads, "%u threads ran groups, %u allowed", nseen, nthreads);
    if (nthreads == 1)
        CHECK(caller_only, "with 1 thread the caller must run every group");
    free(who);
    free(y);
    free(ref);
}

TEST_TIER_FREE(executor_thread_counts)
{
    check_thread_count(1);
    check_thread_count(8);
    check_thread_count(2);
    check_reduction(20000, 64, 8, 81);
    check_reduction(20000, 64, 1, 82);
}

/* --- the ranges the executor hands out --------------------------------------------------------- */

typedef struct range_log {
    _Atomic uint32_t n;
    uint64_t first[4096], count[4096];
} range_log;

static range_log *ranges_seen;

static uint64_t logging_range(const spvjit_wg_ctx *c, uint64_t first, uint64_t count)
{
    (void)c;
    uint32_t i = atomic_fetch_add(&ranges_seen->n, 1);
    if (i < 4096) {
        ranges_seen->first[i] = first;
        ranges_seen->count[i] = count;
    }
    return count;
}

/* Every group in exactly one range; with one thread one range, with several
 * far fewer ranges than groups (guided chunks), some starting inside a row. */
TEST_TIER_FREE(executor_ranges_cover_the_grid)
{
    static range_log log;
    ranges_seen = &log;
    const uint32_t grids[][3] = { { 1000, 7, 3 }, { 1, 1, 1 }, { 3, 1, 5 }, { 65536, 1, 1 } };
    for (int gi = 0; gi < 4; gi++)
        for (uint32_t threads = 1; threads <= 4; threads *= 2) {
            atomic_store(&log.n, 0);
            spvjit_exec_kernel k = { .wg_range = logging_range, .local_size = { 1, 1, 1 } };
            spv_diag diag;
            const uint32_t *gc = grids[gi];
            REQUIRE(dispatch_groups(&k, gc[0], gc[1], gc[2], NULL, threads, &diag) == 0, "dispatch: %s", diag.msg);
            uint64_t total = (uint64_t)gc[0] * gc[1] * gc[2];
            uint32_t n = atomic_load(&log.n);
            REQUIRE(n <= 4096, "%u ranges for %llu groups", n, (unsigned long long)total);
            unsigned char *hit = calloc(total, 1);
            REQUIRE(hit, "out of memory");
            bool bad = false, mid_row = false;
            for (uint32_t i = 0; i < n; i++) {
                bad |= log.count[i] == 0 || log.first[i] + log.count[i] > total;
                mid_row |= log.first[i] % gc[0] != 0;
                for (uint64_t g = log.first[i]; !bad && g < log.first[i] + log.count[i]; g++)
                    bad |= hit[g]++ != 0;
            }
            uint64_t missed = 0;
            for (uint64_t g = 0; g < total; g++)
                missed += !hit[g];
            CHECK(!bad && missed == 0,
                  "grid %ux%ux%u, %u threads: ranges overlap, are empty or pass the end, or "
                  "%llu groups missed",
                  gc[0], gc[1], gc[2], threads, (unsigned long long)missed);
            if (threads == 1)
                CHECK(n == 1, "one thread: %u ranges (expected the whole grid as one)", n);
            else if (total >= 1000)
                CHECK(n > threads && n < total / 64 && mid_row, "grid %ux%ux%u, %u threads: %u ranges%s", gc[0], gc[1],
                      gc[2], threads, n, mid_row ? "" : ", none inside a row");
            free(hit);
        }
}

/* --- groups handed back to the fallback code (jit/abi.h) ------------------------------------ */

/* Group g is one the "optimized" code cannot prove: every 7th, and the last. */
static bool unproven(const spvjit_wg_ctx *c, uint64_t g)
{
    return g % 7 == 3 || g + 1 == (uint64_t)c->num_groups[0] * c->num_groups[1] * c->num_groups[2];
}

/* args: 0 uint32_t *ran (per group: 1 fast code, 2 fallback, counts added) */
static uint64_t fast_range(const spvjit_wg_ctx *c, uint64_t first, uint64_t count)
{
    uint32_t *ran = ARG_PTR(c, 0, uint32_t);
    for (uint64_t i = 0; i < count; i++) {
        if (unproven(c, first + i))
            return i;
        __atomic_fetch_add(&ran[first + i], 1, __ATOMIC_RELAXED);
    }
    return count;
}

static uint64_t checked_range(const spvjit_wg_ctx *c, uint64_t first, uint64_t count)
{
    uint32_t *ran = ARG_PTR(c, 0, uint32_t);
    for (uint64_t g = first; g < first + count; g++)
        __atomic_fetch_add(&ran[g], unproven(c, g) ? 2 : 100, __ATOMIC_RELAXED);
    return count;
}

static _Atomic unsigned fallback_asked;

static spvjit_wg_range_fn give_checked(void *user, spv_diag *diag)
{
    (void)diag;
    atomic_fetch_add(&fallback_asked, 1);
    return user ? checked_range : NULL;
}

/* Every group runs once, the handed-back ones (and only they) on the
 * fallback, whatever the threads; the control counts them; a kernel that
 * hands back a group without fallback code fails the dispatch, saying so. */
TEST_TIER_FREE(executor_runs_handed_back_groups_on_the_fallback)
{
    const uint32_t grids[][3] = { { 1000, 3, 1 }, { 1, 1, 1 }, { 13, 1, 4 } };
    for (int gi = 0; gi < 3; gi++)
        for (uint32_t threads = 1; threads <= 4; threads *= 2) {
            const uint32_t *gc = grids[gi];
            uint64_t total = (uint64_t)gc[0] * gc[1] * gc[2], want = 0;
            uint32_t *ran = calloc(total, sizeof *ran);
            REQUIRE(ran, "out of memory");
            void *args[] = { &ran };
            spvjit_exec_kernel k = {
                .wg_range = fast_range, .local_size = { 1, 1, 1 }, .fallback = give_checked, .fallback_user = &k
            };
            spvjit_exec_control ctl;
            spvjit_exec_control_init(&ctl);
            spvjit_exec_range r = { .kind = SPVJIT_RANGE_GROUPS, .group_count = { gc[0], gc[1], gc[2] } };
            spvjit_exec_data data = { .args = args, .nthreads = threads, .control = &ctl };
            spv_diag diag;
            REQUIRE(spvjit_exec_dispatch(&k, &r, &data, &diag) == 0, "dispatch: %s", diag.msg);
            spvjit_wg_ctx probe = { .num_groups = { gc[0], gc[1], gc[2] } };
            uint64_t wrong = 0;
            for (uint64_t g = 0; g < total; g++) {
                want += unproven(&probe, g);
                wrong += ran[g] != (unproven(&probe, g) ? 2u : 1u);
            }
            CHECK(wrong == 0, "grid %ux%ux%u, %u threads: %llu groups ran other than once on their code", gc[0], gc[1],
                  gc[2], threads, (unsigned long long)wrong);
            CHECK(atomic_load(&ctl.groups_fallback) == want && atomic_load(&ctl.groups_done) == total,
                  "grid %ux%ux%u: %llu on the fallback, %llu done (want %llu of %llu)", gc[0], gc[1], gc[2],
                  (unsigned long long)atomic_load(&ctl.groups_fallback),
                  (unsigned long long)atomic_load(&ctl.groups_done), (unsigned long long)want,
                  (unsigned long long)total);
            free(ran);
        }
    uint32_t *ran = calloc(14, sizeof *ran);
    REQUIRE(ran, "out of memory");
    void *args[] = { &ran };
    spvjit_exec_kernel none = { .wg_range = fast_range, .local_size = { 1, 1, 1 } };
    spv_diag diag;
    CHECK(dispatch_groups(&none, 14, 1, 1, args, 1, &diag) != 0 && strstr(diag.msg, "handed back work-group 3"),
          "no fallback code: %s", diag.msg);
    spvjit_exec_kernel refused = { .wg_range = fast_range, .local_size = { 1, 1, 1 }, .fallback = give_checked };
    CHECK(dispatch_groups(&refused, 14, 1, 1, args, 1, &diag) != 0 && strstr(diag.msg, "no checked code"),
          "a fallback that cannot be had: %s", diag.msg);
    free(ran);
}

/* --- ctx fields, work-group memory, FP state ---------------------------------------------- */

typedef struct ctx_probe {
    const void *push, *spec, *stream;
    const uint64_t *sizes;
    bool fibers;
    atomic_int bad;
    atomic_int inits;     /* by the executor's wg_memory_init */
    atomic_int own_inits; /* by the range function itself, as compiled code does */
} ctx_probe;

static void probe_init(const spvjit_wg_ctx *c)
{
    ctx_probe *p = ARG_PTR(c, 0, ctx_probe);
    memset(c->wg_memory, 0, 256);
    atomic_fetch_add(&p->inits, 1);
}

/* args: 0 ctx_probe *, 1 uint32_t *ids (WorkgroupId x + 1000 y + 1000000 z per group slot) */
static void probe_group(const spvjit_wg_ctx *c)
{
    ctx_probe *p = ARG_PTR(c, 0, ctx_probe);
    uint32_t *ids = ARG_PTR(c, 1, uint32_t);
    const unsigned char *mem = c->wg_memory;
    bool ok = c->push_constants == p->push && c->spec_values == p->spec && c->printf_stream == p->stream &&
              c->arg_sizes == p->sizes && (c->barrier != NULL) == p->fibers && c->work_dim == 3 &&
              ((uintptr_t)mem % 256) == 0 && c->stop && *c->stop == 0;
    for (int i = 0; i < 256; i++)
        ok &= mem[i] == 0;
    if (!ok)
        atomic_fetch_add(&p->bad, 1);
    memset(c->wg_memory, 0xAB, 256); /* the next group's init must clear it */
    uint32_t slot = c->group_id[0] + c->num_groups[0] * (c->group_id[1] + c->num_groups[1] * c->group_id[2]);
    ids[slot] = (c->group_id[0] + c->base_group[0]) + 1000 * (c->group_id[1] + c->base_group[1]) +
                1000000 * (c->group_id[2] + c->base_group[2]);
}

/* A range function initializes each of its groups' work-group memory itself. */
static void probe_wg(const spvjit_wg_ctx *c)
{
    ctx_probe *p = ARG_PTR(c, 0, ctx_probe);
    memset(c->wg_memory, 0, 256);
    atomic_fetch_add(&p->own_inits, 1);
    probe_group(c);
}
RANGE_OF(probe_wg)

/* On fibers the executor initializes it: the first item probes. */
static void probe_item(const spvjit_wg_ctx *c, uint32_t lx, uint32_t ly, uint32_t lz)
{
    if (lx == 0 && ly == 0 && lz == 0)
        probe_group(c);
}

static void check_ctx_probe(bool fibers)
{
    uint64_t seed = 91 + fibers;
    uint32_t gc[3] = { 3 + (uint32_t)(test_rand_u64(&seed) % 5), 2 + (uint32_t)(test_rand_u64(&seed) % 4), 2 };
    uint32_t base[3] = { (uint32_t)(test_rand_u64(&seed) % 100), (uint32_t)(test_rand_u64(&seed) % 100), 7 };
    uint32_t n = gc[0] * gc[1] * gc[2];
    uint32_t *ids = calloc(n, sizeof *ids);
    uint64_t sizes[2] = { 1, 2 };
    int push = 1, spec = 2;
    ctx_probe probe = { .push = &push, .spec = &spec, .stream = stderr, .sizes = sizes, .fibers = fibers };
    ctx_probe *pp = &probe;
    void *args[] = { &pp, &ids };
    spvjit_exec_kernel k = {
        .local_size = { 4, 2, 1 }, .wg_memory_size = 256, .wg_memory_align = 256, .wg_memory_init = probe_init
    };
    if (fibers)
        k.item_fn = probe_item;
    else
        k.wg_range = probe_wg_range;
    spvjit_exec_range r = { .kind = SPVJIT_RANGE_GROUPS,
                            .group_count = { gc[0], gc[1], gc[2] },
                            .base_group = { base[0], base[1], base[2] } };
    spvjit_exec_data data = {
        .args = args, .arg_sizes = sizes, .push_constants = &push, .spec_values = &spec, .printf_stream = stderr
    };
    spv_diag diag = { .msg = "" };
    REQUIRE(spvjit_exec_dispatch(&k, &r, &data, &diag) == 0, "dispatch failed: %s", diag.msg);
    CHECK(atomic_load(&probe.bad) == 0, "%d groups saw wrong ctx fields", atomic_load(&probe.bad));
    CHECK(atomic_load(&probe.inits) == (fibers ? (int)n : 0),
          "%s: the executor's init ran %d times for %u groups (range functions initialize their own)",
          fibers ? "fibers" : "ranges", atomic_load(&probe.inits), n);
    CHECK(atomic_load(&probe.own_inits) == (fibers ? 0 : (int)n), "own init ran %d times for %u groups",
          atomic_load(&probe.own_inits), n);
    uint32_t wrong = 0;
    for (uint32_t z = 0; z < gc[2]; z++)
        for (uint32_t y = 0; y < gc[1]; y++)
            for (uint32_t x = 0; x < gc[0]; x++)
                wrong +=
                    ids[x + gc[0] * (y + gc[1] * z)] != (x + base[0]) + 1000 * (y + base[1]) + 1000000 * (z + base[2]);
    CHECK(wrong == 0, "%u groups with a wrong WorkgroupId", wrong);
    free(ids);
}

TEST_TIER_FREE(executor_ctx_passthrough_and_base_group)
{
    check_ctx_probe(false);
    check_ctx_probe(true);
}

/* Each fiber keeps its own rounding mode across barriers (MXCSR/FPCR are
 * part of the switched context); args: 0 atomic_int *bad */
static void rounding_item(const spvjit_wg_ctx *c, uint32_t lx, uint32_t ly, uint32_t lz)
{
    (void)ly;
    (void)lz;
    atomic_int *bad = ARG_PTR(c, 0, atomic_int);
    int mode = lx % 2 ? FE_UPWARD : FE_DOWNWARD;
    if (fegetround() != FE_TONEAREST)
        atomic_fetch_add(bad, 1);
    fesetround(mode);
    volatile float one = 1.0f, three = 3.0f;
    float before = one / three;
    c->barrier(c, 0);
    float after = one / three;
    if (fegetround() != mode || before != after)
        atomic_fetch_add(bad, 1);
    c->barrier(c, 0);
    fesetround(FE_TONEAREST);
}

TEST_TIER_FREE(executor_fiber_fp_state)
{
    atomic_int bad = 0;
    atomic_int *badp = &bad;
    void *args[] = { &badp };
    spvjit_exec_kernel k = { .item_fn = rounding_item, .local_size = { 16, 1, 1 }, .nbarrier_sites = 1 };
    spv_diag diag;
    REQUIRE(dispatch_groups(&k, 8, 1, 1, args, 0, &diag) == 0, "dispatch failed: %s", diag.msg);
    CHECK(atomic_load(&bad) == 0, "%d rounding-mode checks failed", atomic_load(&bad));
    CHECK(fegetround() == FE_TONEAREST, "the caller's rounding mode changed");
}

/* Many integer and floating-point values live across barriers: they sit in
 * callee-saved registers (rbx, r12-r15 / x19-x28, d8-d15) that the switch
 * must preserve per fiber.  args: 0 const double *seeds, 1 double *out */
static double live_values(double s, uint32_t lx, int phase)
{
    return s * (phase + 1) + lx * 0.5 - phase;
}

static void live_item(const spvjit_wg_ctx *c, uint32_t lx, uint32_t ly, uint32_t lz)
{
    (void)ly;
    (void)lz;
    const double *seeds = ARG_PTR(c, 0, const double);
    double *out = ARG_PTR(c, 1, double);
    uint64_t g = global_id(c, 0, lx);
    double s = seeds[g];
    double d0 = live_values(s, lx, 0), d1 = live_values(s, lx, 1), d2 = live_values(s, lx, 2);
    double d3 = live_values(s, lx, 3), d4 = live_values(s, lx, 4), d5 = live_values(s, lx, 5);
    double d6 = live_values(s, lx, 6), d7 = live_values(s, lx, 7), d8 = live_values(s, lx, 8);
    uint64_t i0 = g * 3 + 1, i1 = g ^ 0x5555, i2 = g * g, i3 = g + 77, i4 = ~g, i5 = g << 7;
    c->barrier(c, 0);
    double acc = d0 + 2 * d1 + 3 * d2 + 4 * d3 + 5 * d4;
    c->barrier(c, 0);
    acc += 6 * d5 + 7 * d6 + 8 * d7 + 9 * d8;
    uint64_t iacc = i0 + 3 * i1 + 5 * i2 + 7 * i3 + 11 * i4 + 13 * i5;
    out[g] = acc + (double)(iacc % 1000003);
}

TEST_TIER_FREE(executor_live_values_across_barriers)
{
    enum { GROUPS = 16, LOCAL = 24, N = GROUPS * LOCAL };
    double seeds[N], out[N];
    uint64_t seed = 111;
    for (int i = 0; i < N; i++)
        seeds[i] = test_rand_float(&seed, -50.0f, 50.0f);
    const double *sp = seeds;
    double *op = out;
    void *args[] = { &sp, &op };
    spvjit_exec_kernel k = { .item_fn = live_item, .local_size = { LOCAL, 1, 1 }, .nbarrier_sites = 1 };
    spv_diag diag;
    REQUIRE(dispatch_groups(&k, GROUPS, 1, 1, args, 0, &diag) == 0, "dispatch failed: %s", diag.msg);
    uint32_t bad = 0;
    for (uint64_t g = 0; g < N; g++) {
        uint32_t lx = (uint32_t)(g % LOCAL);
        double s = seeds[g], ref = 0;
        for (int p = 0; p < 9; p++)
            ref += (p + 1) * live_values(s, lx, p);
        uint64_t iacc = (g * 3 + 1) + 3 * (g ^ 0x5555) + 5 * (g * g) + 7 * (g + 77) + 11 * ~g + 13 * (g << 7);
        ref += (double)(iacc % 1000003);
        bad += !(fabs(out[g] - ref) <= 1e-9 * fabs(ref) + 1e-9);
    }
    CHECK(bad == 0, "%u of %d work-items lost live values across barriers", bad, N);
}

/* Deep private arrays on a fiber: the stack hint is honoured. */
static void deep_stack_item(const spvjit_wg_ctx *c, uint32_t lx, uint32_t ly, uint32_t lz)
{
    (void)ly;
    (void)lz;
    uint32_t *out = ARG_PTR(c, 0, uint32_t);
    volatile uint32_t big[48 * 1024]; /* 192 KiB */
    for (uint32_t i = 0; i < 48 * 1024; i++)
        big[i] = i ^ lx;
    c->barrier(c, 0);
    uint32_t sum = 0;
    for (uint32_t i = 0; i < 48 * 1024; i++)
        sum += big[i];
    out[global_id(c, 0, lx)] = sum;
}

TEST_TIER_FREE(executor_fiber_stack_hint)
{
    uint32_t out[32];
    uint32_t *outp = out;
    void *args[] = { &outp };
    spvjit_exec_kernel k = {
        .item_fn = deep_stack_item, .local_size = { 8, 1, 1 }, .stack_size = 256 * 1024, .nbarrier_sites = 1
    };
    spv_diag diag;
    REQUIRE(dispatch_groups(&k, 4, 1, 1, args, 0, &diag) == 0, "dispatch failed: %s", diag.msg);
    for (uint32_t g = 0; g < 32; g++) {
        uint32_t ref = 0;
        for (uint32_t i = 0; i < 48 * 1024; i++)
            ref += i ^ (g % 8);
        CHECK(out[g] == ref, "item %u: %u vs %u", g, out[g], ref);
    }
}

/* --- invalid dispatches ------------------------------------------------------------------- */

TEST_TIER_FREE(executor_invalid_dispatches)
{
    spv_diag diag = { .msg = "" };
    spvjit_exec_kernel k = { .wg_range = saxpy_wg_range, .local_size = { 8, 1, 1 } };
    spvjit_exec_range r = { .kind = SPVJIT_RANGE_NDRANGE, .work_dim = 4, .global_size = { 8, 1, 1 } };
    CHECK(spvjit_exec_dispatch(&k, &r, NULL, &diag) != 0 && strstr(diag.msg, "work_dim 4"), "work_dim 4: %s", diag.msg);
    r.work_dim = 1;
    r.local_size[0] = 4;
    CHECK(spvjit_exec_dispatch(&k, &r, NULL, &diag) != 0 && strstr(diag.msg, "local size 4"), "local size mismatch: %s",
          diag.msg);
    r.local_size[0] = 0;
    r.global_size[0] = (uint64_t)1 << 40;
    CHECK(spvjit_exec_dispatch(&k, &r, NULL, &diag) != 0 && strstr(diag.msg, "2^32-1"), "too many groups: %s",
          diag.msg);
    r.global_size[0] = 8;
    r.global_offset[0] = UINT64_MAX - 3;
    CHECK(spvjit_exec_dispatch(&k, &r, NULL, &diag) != 0 && strstr(diag.msg, "overflows"), "offset overflow: %s",
          diag.msg);
    spvjit_exec_kernel k2 = { .wg_range = saxpy_wg_range, .local_size = { 8, 2, 1 } };
    r.global_offset[0] = 0;
    CHECK(spvjit_exec_dispatch(&k2, &r, NULL, &diag) != 0 && strstr(diag.msg, "dimension 1"),
          "work_dim 1 with a 2D kernel: %s", diag.msg);

    spvjit_exec_kernel both = { .wg_range = saxpy_wg_range, .item_fn = reduce_item, .local_size = { 1, 1, 1 } };
    spvjit_exec_range g = { .kind = SPVJIT_RANGE_GROUPS, .group_count = { 1, 1, 1 } };
    CHECK(spvjit_exec_dispatch(&both, &g, NULL, &diag) != 0 && strstr(diag.msg, "both"), "both functions: %s",
          diag.msg);
    spvjit_exec_kernel zero = { .wg_range = saxpy_wg_range, .local_size = { 4, 0, 1 } };
    CHECK(spvjit_exec_dispatch(&zero, &g, NULL, &diag) != 0 && strstr(diag.msg, "zero dimension"),
          "zero local size: %s", diag.msg);
    spvjit_exec_kernel align = {
        .wg_range = saxpy_wg_range, .local_size = { 1, 1, 1 }, .wg_memory_size = 4, .wg_memory_align = 12
    };
    CHECK(spvjit_exec_dispatch(&align, &g, NULL, &diag) != 0 && strstr(diag.msg, "power of two"), "bad alignment: %s",
          diag.msg);
    spvjit_exec_range base = { .kind = SPVJIT_RANGE_GROUPS,
                               .group_count = { 2, 1, 1 },
                               .base_group = { UINT32_MAX, 0, 0 } };
    CHECK(spvjit_exec_dispatch(&k, &base, NULL, &diag) != 0 && strstr(diag.msg, "32-bit"), "base overflow: %s",
          diag.msg);

    /* Empty dispatches run nothing and succeed. */
    spvjit_exec_range empty = { .kind = SPVJIT_RANGE_GROUPS, .group_count = { 5, 0, 3 } };
    CHECK(spvjit_exec_dispatch(&both, &empty, NULL, &diag) != 0, "invalid kernel must still fail");
    CHECK(spvjit_exec_dispatch(&k, &empty, NULL, &diag) == 0, "empty dispatch: %s", diag.msg);

    /* The executor reads no environment (contexts resolve SPVJIT_THREADS: test_api_options.c). */
    const char *old = getenv("SPVJIT_THREADS");
    char *saved = old ? strdup(old) : NULL;
    setenv("SPVJIT_THREADS", "lots", 1);
    spvjit_exec_data three = { .nthreads = 3 };
    float dummy[8] = { 0 };
    float *dp = dummy;
    float a = 2;
    uint32_t n = 8;
    void *args[] = { &dp, &dp, &a, &n };
    three.args = args;
    CHECK(spvjit_exec_dispatch(&k, &g, &three, &diag) == 0, "explicit count ignores the env: %s", diag.msg);
    three.nthreads = 0;
    CHECK(spvjit_exec_dispatch(&k, &g, &three, &diag) == 0, "the default count ignores the env: %s", diag.msg);
    if (saved) {
        setenv("SPVJIT_THREADS", saved, 1);
        free(saved);
    } else {
        unsetenv("SPVJIT_THREADS");
    }
}

TEST_TIER_FREE(executor_pick_local_size)
{
    uint64_t seed = 101;
    for (int i = 0; i < 50; i++) {
        uint32_t wd = 1 + (uint32_t)(test_rand_u64(&seed) % 3);
        uint64_t global[3] = { 1 + test_rand_u64(&seed) % 5000, 1 + test_rand_u64(&seed) % 300,
                               1 + test_rand_u64(&seed) % 40 };
        uint32_t local[3];
        spvjit_exec_pick_local_size(wd, global, local);
        uint64_t items = (uint64_t)local[0] * local[1] * local[2];
        bool ok = items >= 1 && items <= 256;
        for (uint32_t d = 0; d < 3; d++)
            ok &= d < wd ? local[d] >= 1 && global[d] % local[d] == 0 : local[d] == 1;
        CHECK(ok, "dim %u global %llux%llux%llu -> local %ux%ux%u", wd, (unsigned long long)global[0],
              (unsigned long long)global[1], (unsigned long long)global[2], local[0], local[1], local[2]);
    }
    uint64_t g[3] = { 1024, 1, 1 };
    uint32_t l[3];
    spvjit_exec_pick_local_size(1, g, l);
    CHECK(l[0] == 256, "1024 -> %u, expected 256", l[0]);
}
