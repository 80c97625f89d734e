/* testdata/tests/test_jit_groups.c — compiled code runs ranges of work-groups
 * (jit/abi.h: spvjit_wg_range_fn; jit/group_range.h).
 *
 * The kernels (testdata/jit/groups_*) write where each work-item sits: group
 * id, local id, sizes, indices, and what their work-group memory held before
 * they wrote it.  Every result is checked against a plain C computation of
 * the same from the grid, called directly over chosen ranges (whole grids,
 * one group, ranges that start and end inside a row or slice of the grid,
 * partitions of uneven lengths) and through the executor (lib/executor.h)
 * with one and two threads: base groups, smaller last OpenCL groups in one,
 * two and three dimensions with global offsets, work-group memory
 * initialized per group inside a range, barrier divergence inside a range
 * naming its group, many small 1-D groups against C. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "lib/executor.h"
#include "test_jit_util.h"

enum { UNWRITTEN = 0xFFFFFFFFu };

static uint32_t pack3(uint64_t x, uint64_t y, uint64_t z)
{
    return (uint32_t)x | (uint32_t)y << 10 | (uint32_t)z << 20;
}

static jit_kernel *compile(const char *file, const char *entry, const uint32_t *local, jit_barrier_mode barriers)
{
    spv_module *m = tj_load(file);
    if (!m)
        return NULL;
    spvjit_options o = { .opt_level = 3, .barriers = barriers };
    if (local)
        memcpy(o.local_size, local, sizeof o.local_size);
    jit_kernel *k = tj_compile(m, entry, &o);
    spv_module_free(m);
    return k;
}

/* --- a grid, its ctx, and ranges over it --------------------------------------------------------------- */

typedef struct grid {
    uint32_t n[3];      /* groups */
    uint32_t base[3];   /* base_group (Shader) */
    uint32_t local[3];  /* the compiled local size */
    uint64_t global[3]; /* global size */
    uint64_t offset[3]; /* global offset (Kernel) */
    uint32_t work_dim;
    bool kernel;
} grid;

/* A Vulkan grid of n groups of `local`, starting at base. */
static grid shader_grid(const uint32_t n[3], const uint32_t base[3], const uint32_t local[3])
{
    grid g = { .work_dim = 3 };
    for (int d = 0; d < 3; d++) {
        g.n[d] = n[d];
        g.base[d] = base[d];
        g.local[d] = local[d];
        g.global[d] = (uint64_t)n[d] * local[d];
    }
    return g;
}

/* An OpenCL NDRange: the last group of a dimension holds what is left. */
static grid ndrange_grid(uint32_t work_dim, const uint64_t global[3], const uint64_t offset[3], const uint32_t local[3])
{
    grid g = { .work_dim = work_dim, .kernel = true };
    for (int d = 0; d < 3; d++) {
        g.local[d] = local[d];
        g.global[d] = d < (int)work_dim ? global[d] : 1;
        g.offset[d] = d < (int)work_dim ? offset[d] : 0;
        g.n[d] = (uint32_t)((g.global[d] + local[d] - 1) / local[d]);
    }
    return g;
}

static uint64_t group_count(const grid *g)
{
    return (uint64_t)g->n[0] * g->n[1] * g->n[2];
}

/* The size in dimension d of the group at id[d] (no base). */
static uint32_t size_at(const grid *g, int d, uint64_t id)
{
    uint64_t left = g->global[d] - id * g->local[d];
    return left < g->local[d] ? (uint32_t)left : g->local[d];
}

static void ids_of(const grid *g, uint64_t index, uint64_t id[3])
{
    id[0] = index % g->n[0];
    id[1] = index / g->n[0] % g->n[1];
    id[2] = index / g->n[0] / g->n[1];
}

typedef struct divergence {
    int calls;
    uint64_t group;
    char msg[256];
} divergence;

static divergence *seen_divergence;

static void record_divergence(const spvjit_wg_ctx *c, uint64_t group, const uint32_t *resume,
                              const uint32_t *resume_site, uint64_t rounds)
{
    (void)c;
    (void)resume;
    (void)resume_site;
    (void)rounds;
    seen_divergence->calls++;
    seen_divergence->group = group;
}

/* sizes: the bytes of each argument's buffer (memory=robust bounds accesses by them) */
static void fill_ctx(spvjit_wg_ctx *c, const grid *g, void **args, const uint64_t *sizes, const void *push,
                     void *wg_memory)
{
    memset(c, 0, sizeof *c);
    for (int d = 0; d < 3; d++) {
        c->num_groups[d] = g->n[d];
        c->enqueued_local_size[d] = g->local[d];
        c->global_size[d] = g->global[d];
        c->global_offset[d] = g->offset[d];
        c->base_group[d] = g->base[d];
        /* what the range function must ignore: garbage */
        c->group_id[d] = 777;
        c->local_size[d] = 555;
    }
    c->work_dim = g->work_dim;
    c->args = args;
    c->arg_sizes = sizes;
    c->push_constants = push;
    c->wg_memory = wg_memory;
    c->report_divergence = record_divergence;
}

/* Runs groups [first, first + count) with one call of the range function. */
static void run_range(const jit_kernel *k, const grid *g, void **args, const uint64_t *sizes, const void *push,
                      uint64_t first, uint64_t count)
{
    const spvjit_kernel_facts *f = spvjit_kernel_facts_of(k);
    void *mem = NULL; /* garbage: each group's initializer must replace it */
    void *block = tj_wg_block(f->wg_mem_size, f->wg_mem_align, &mem);
    REQUIRE(block, "out of memory");
    spvjit_wg_ctx c;
    fill_ctx(&c, g, args, sizes, push, block);
    tj_fallback fb;
    (void)tj_exec_kernel(k, 0, &fb);
    CHECK(tj_run_range(k, &fb, &c, first, count) == 0, "groups %llu + %llu", (unsigned long long)first,
          (unsigned long long)count);
    tj_fallback_free(&fb);
    free(mem);
}

/* Runs the whole grid as ranges of the given lengths (repeated). */
static void run_partition(const jit_kernel *k, const grid *g, void **args, const uint64_t *sizes, const void *push,
                          const uint64_t *lengths, unsigned nlengths)
{
    uint64_t total = group_count(g);
    for (uint64_t first = 0, i = 0; first < total; i++) {
        uint64_t n = lengths[i % nlengths] < total - first ? lengths[i % nlengths] : total - first;
        run_range(k, g, args, sizes, push, first, n);
        first += n;
    }
}

static int run_executor(const jit_kernel *k, const grid *g, void **args, const uint64_t *sizes, const void *push,
                        uint32_t nthreads, spv_diag *diag)
{
    tj_fallback fb;
    spvjit_exec_kernel ek = tj_exec_kernel(k, 0, &fb);
    memcpy(ek.local_size, g->local, sizeof ek.local_size);
    spvjit_exec_range r = { .kind = g->kernel ? SPVJIT_RANGE_NDRANGE : SPVJIT_RANGE_GROUPS, .work_dim = g->work_dim };
    for (int d = 0; d < 3; d++) {
        r.group_count[d] = g->n[d];
        r.base_group[d] = g->base[d];
        r.global_size[d] = g->global[d];
        r.global_offset[d] = g->offset[d];
    }
    spvjit_exec_data data = { .args = args, .arg_sizes = sizes, .push_constants = push, .nthreads = nthreads };
    diag->msg[0] = 0;
    int rc = spvjit_exec_dispatch(&ek, &r, &data, diag);
    tj_fallback_free(&fb);
    return rc;
}

/* --- groups_ids.comp / groups_barrier.comp: the five words of every item ------------------------------------ */

typedef struct ids_out {
    uint32_t *o;
    uint32_t sx, sy, sz; /* the global extent the output covers (base included) */
    size_t words;
} ids_out;

static ids_out ids_alloc(const grid *g)
{
    ids_out r = { .sx = (g->base[0] + g->n[0]) * g->local[0],
                  .sy = (g->base[1] + g->n[1]) * g->local[1],
                  .sz = (g->base[2] + g->n[2]) * g->local[2] };
    r.words = 5ull * r.sx * r.sy * r.sz;
    r.o = malloc(r.words * 4);
    if (r.o)
        memset(r.o, 0xFF, r.words * 4);
    else
        abort(); /* tests with no memory left */
    return r;
}

/* Checks the words of every item of groups [first, end) against the grid and
 * that no other group wrote anything; `next_plus_one`: groups_barrier's fifth
 * word (0 + the next item's index + 1), else 0.  Returns the wrong words. */
static uint64_t ids_check(const ids_out *out, const grid *g, uint64_t first, uint64_t end, bool next_plus_one)
{
    uint64_t wrong = 0;
    uint32_t L = g->local[0] * g->local[1] * g->local[2];
    for (uint64_t index = 0; index < group_count(g); index++) {
        uint64_t id[3];
        ids_of(g, index, id);
        bool ran = index >= first && index < end;
        for (uint32_t lz = 0; lz < g->local[2]; lz++)
            for (uint32_t ly = 0; ly < g->local[1]; ly++)
                for (uint32_t lx = 0; lx < g->local[0]; lx++) {
                    uint64_t gx = (id[0] + g->base[0]) * g->local[0] + lx;
                    uint64_t gy = (id[1] + g->base[1]) * g->local[1] + ly;
                    uint64_t gz = (id[2] + g->base[2]) * g->local[2] + lz;
                    const uint32_t *w = out->o + 5 * (gx + out->sx * (gy + (uint64_t)out->sy * gz));
                    uint32_t li = lx + g->local[0] * (ly + g->local[1] * lz);
                    uint32_t want[5] = { pack3(id[0] + g->base[0], id[1] + g->base[1], id[2] + g->base[2]),
                                         pack3(lx, ly, lz), pack3(g->n[0], g->n[1], g->n[2]), li,
                                         next_plus_one ? (li + 1) % L + 1 : 0 };
                    for (int k = 0; k < 5; k++)
                        wrong += ran ? w[k] != want[k] : w[k] != UNWRITTEN;
                }
    }
    return wrong;
}

static grid ids_grid(void)
{
    const uint32_t n[3] = { 3, 4, 2 }, base[3] = { 1, 2, 1 }, local[3] = { 2, 3, 2 };
    return shader_grid(n, base, local);
}

/* The grid as ranges of uneven lengths (one group each, 5 2 7 3 ..., 4 4 ...,
 * 13 11 ...); `barrier`: groups_barrier's words. */
static void check_partitions(const jit_kernel *k, const grid *g, bool barrier)
{
    const uint64_t parts[][4] = { { 1, 1, 1, 1 }, { 5, 2, 7, 3 }, { 4, 4, 4, 4 }, { 13, 11, 13, 11 } };
    for (size_t p = 0; p < sizeof parts / sizeof parts[0]; p++) {
        ids_out out = ids_alloc(g);
        void *args[] = { out.o };
        uint64_t sizes[] = { 4 * out.words };
        uint32_t push[3] = { out.sx, out.sy, UNWRITTEN };
        run_partition(k, g, args, sizes, push, parts[p], 4);
        uint64_t wrong = ids_check(&out, g, 0, group_count(g), barrier);
        CHECK(wrong == 0, "partition %zu: %llu wrong words", p, (unsigned long long)wrong);
        free(out.o);
    }
}

/* Ranges that start and end inside rows and slices, one group, the whole grid. */
TEST(groups_ranges_mid_row_and_slice)
{
    jit_kernel *k = compile("jit/groups_ids.comp.spv", NULL, NULL, JIT_BARRIER_MODE_AUTO);
    REQUIRE(k, "compile: %s", tj_last_error);
    grid g = ids_grid();
    uint64_t total = group_count(&g);
    /* single ranges: [first, first + count) alone, everything else untouched */
    const uint64_t ranges[][2] = { { 0, 24 }, { 4, 7 }, { 2, 1 }, { 11, 1 }, { 5, 14 }, { 13, 11 }, { 23, 1 } };
    for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
        ids_out out = ids_alloc(&g);
        void *args[] = { out.o };
        uint64_t sizes[] = { 4 * out.words };
        uint32_t push[2] = { out.sx, out.sy };
        run_range(k, &g, args, sizes, push, ranges[r][0], ranges[r][1]);
        uint64_t wrong = ids_check(&out, &g, ranges[r][0], ranges[r][0] + ranges[r][1], false);
        CHECK(wrong == 0, "range [%llu, +%llu) of %llu groups: %llu wrong words", (unsigned long long)ranges[r][0],
              (unsigned long long)ranges[r][1], (unsigned long long)total, (unsigned long long)wrong);
        free(out.o);
    }
    check_partitions(k, &g, false);
    /* a range of zero groups does nothing */
    ids_out out = ids_alloc(&g);
    void *args[] = { out.o };
    uint64_t sizes[] = { 4 * out.words };
    uint32_t push[2] = { out.sx, out.sy };
    run_range(k, &g, args, sizes, push, 7, 0);
    CHECK(ids_check(&out, &g, 0, 0, false) == 0, "an empty range wrote something");
    free(out.o);
    spvjit_kernel_free(k);
}

/* The executor's ranges: base groups, one and two threads; the barrier kernel
 * on regions and on fibers gives the same words. */
TEST(groups_executor_base_groups)
{
    const char *files[] = { "jit/groups_ids.comp.spv", "jit/groups_barrier.comp.spv", "jit/groups_barrier.comp.spv" };
    jit_barrier_mode modes[] = { JIT_BARRIER_MODE_AUTO, JIT_BARRIER_MODE_REGIONS, JIT_BARRIER_MODE_FIBERS };
    for (int f = 0; f < 3; f++) {
        jit_kernel *k = compile(files[f], NULL, NULL, modes[f]);
        REQUIRE(k, "compile %s: %s", files[f], tj_last_error);
        CHECK(f == 0 || spvjit_kernel_facts_of(k)->barrier_regions == (modes[f] == JIT_BARRIER_MODE_REGIONS),
              "%s: not on the asked barrier path", files[f]);
        for (uint32_t threads = 1; threads <= 2; threads++) {
            grid g = ids_grid();
            ids_out out = ids_alloc(&g);
            void *args[] = { out.o };
            uint64_t sizes[] = { 4 * out.words };
            uint32_t push[3] = { out.sx, out.sy, UNWRITTEN };
            spv_diag diag;
            int rc = run_executor(k, &g, args, sizes, push, threads, &diag);
            CHECK(rc == 0, "%s, %u threads: %s", files[f], threads, diag.msg);
            uint64_t wrong = ids_check(&out, &g, 0, group_count(&g), f > 0);
            CHECK(wrong == 0, "%s (mode %d), %u threads: %llu wrong words", files[f], (int)modes[f], threads,
                  (unsigned long long)wrong);
            free(out.o);
        }
        spvjit_kernel_free(k);
    }
}

/* Work-group memory starts from its initializer in every group of a range,
 * and the region path runs ranges that start and end inside rows. */
TEST(groups_barrier_regions_ranges)
{
    jit_kernel *k = compile("jit/groups_barrier.comp.spv", NULL, NULL, JIT_BARRIER_MODE_REGIONS);
    REQUIRE(k, "compile: %s", tj_last_error);
    grid g = ids_grid();
    check_partitions(k, &g, true);
    spvjit_kernel_free(k);
}

/* Barrier divergence in group (2,1,0) of a range that starts before it: the
 * report names its index, the groups before it ran, none after it did; the
 * executor's message names (2,1,0) + base on regions and fibers alike. */
TEST(groups_divergence_inside_a_range)
{
    jit_kernel *k = compile("jit/groups_barrier.comp.spv", NULL, NULL, JIT_BARRIER_MODE_REGIONS);
    REQUIRE(k, "compile: %s", tj_last_error);
    grid g = ids_grid();
    uint64_t bad = 2 + 3 * 1; /* group (2,1,0): linear index 5 */
    ids_out out = ids_alloc(&g);
    void *args[] = { out.o };
    uint64_t sizes[] = { 4 * out.words };
    uint32_t push[3] = { out.sx, out.sy, pack3(2 + g.base[0], 1 + g.base[1], 0 + g.base[2]) };
    divergence seen = { 0 };
    seen_divergence = &seen;
    run_range(k, &g, args, sizes, push, 1, 10);
    CHECK(seen.calls == 1 && seen.group == bad, "divergence reported %d times, for group %llu (expected once, %llu)",
          seen.calls, (unsigned long long)seen.group, (unsigned long long)bad);
    /* groups 1..4 complete; group 5 stopped at the barrier before writing; 6.. never ran */
    CHECK(ids_check(&out, &g, 1, bad, true) == 0, "the groups before the divergent one, or only they, ran");
    free(out.o);

    char first_msg[sizeof((spv_diag *)0)->msg] = "";
    jit_barrier_mode modes[] = { JIT_BARRIER_MODE_REGIONS, JIT_BARRIER_MODE_FIBERS };
    for (int m = 0; m < 2; m++) {
        jit_kernel *km = m == 0 ? k : compile("jit/groups_barrier.comp.spv", NULL, NULL, modes[m]);
        REQUIRE(km, "compile: %s", tj_last_error);
        for (uint32_t threads = 1; threads <= 2; threads++) {
            ids_out o2 = ids_alloc(&g);
            void *a2[] = { o2.o };
            uint64_t s2[] = { 4 * o2.words };
            spv_diag diag;
            CHECK(run_executor(km, &g, a2, s2, push, threads, &diag) != 0, "mode %d: divergence not reported", m);
            CHECK(strstr(diag.msg, "barrier divergence in work-group (3,3,1) of local size 2x3x2"),
                  "mode %d, %u threads: %s", m, threads, diag.msg);
            if (!first_msg[0])
                snprintf(first_msg, sizeof first_msg, "%s", diag.msg);
            CHECK(!strcmp(first_msg, diag.msg), "regions and fibers word it differently:\n%s\n%s", first_msg, diag.msg);
            free(o2.o);
        }
        if (km != k)
            spvjit_kernel_free(km);
    }
    spvjit_kernel_free(k);
}

/* --- groups_ndrange.cl: smaller last groups, global offsets ----------------------------------------------- */

/* Checks ids' eight words of every item of the NDRange; returns the wrong ones. */
static uint64_t ndrange_check(const uint32_t *o, const grid *g)
{
    uint64_t wrong = 0;
    for (uint64_t z = 0; z < g->global[2]; z++)
        for (uint64_t y = 0; y < g->global[1]; y++)
            for (uint64_t x = 0; x < g->global[0]; x++) {
                uint64_t rel[3] = { x, y, z }, gid[3], lid[3], size[3];
                for (int d = 0; d < 3; d++) {
                    gid[d] = rel[d] / g->local[d];
                    lid[d] = rel[d] % g->local[d];
                    size[d] = size_at(g, d, gid[d]);
                }
                uint64_t i = x + g->global[0] * (y + g->global[1] * z);
                uint32_t want[8] = { pack3(gid[0], gid[1], gid[2]),
                                     pack3(lid[0], lid[1], lid[2]),
                                     pack3(size[0], size[1], size[2]),
                                     pack3(g->local[0], g->local[1], g->local[2]),
                                     pack3(g->n[0], g->n[1], g->n[2]),
                                     (uint32_t)(lid[0] + size[0] * (lid[1] + size[1] * lid[2])),
                                     (uint32_t)i,
                                     (uint32_t)g->offset[0] };
                for (int k = 0; k < 8; k++)
                    wrong += o[8 * i + k] != want[k];
            }
    return wrong;
}

TEST(groups_ndrange_partial_last_groups)
{
    static const struct {
        uint32_t dim, local[3];
        uint64_t global[3], offset[3];
    } cases[] = {
        { 1, { 8, 1, 1 }, { 61, 1, 1 }, { 5, 0, 0 } },  { 1, { 16, 1, 1 }, { 16 * 9, 1, 1 }, { 0, 0, 0 } },
        { 2, { 4, 3, 1 }, { 18, 11, 1 }, { 7, 2, 0 } }, { 2, { 5, 2, 1 }, { 10, 7, 1 }, { 0, 9, 0 } },
        { 3, { 3, 2, 2 }, { 8, 5, 5 }, { 1, 2, 3 } },   { 3, { 2, 2, 4 }, { 3, 4, 9 }, { 0, 0, 11 } },
    };
    /* the same code without a compile-time local size (ctx's enqueued size) */
    jit_kernel *any = compile("jit/groups_ndrange.cl.spv", "ids", NULL, JIT_BARRIER_MODE_AUTO);
    REQUIRE(any && !spvjit_kernel_facts_of(any)->local_size_known, "compile without a local size: %s", tj_last_error);
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        jit_kernel *k = compile("jit/groups_ndrange.cl.spv", "ids", cases[t].local, JIT_BARRIER_MODE_AUTO);
        REQUIRE(k, "compile: %s", tj_last_error);
        grid g = ndrange_grid(cases[t].dim, cases[t].global, cases[t].offset, cases[t].local);
        uint64_t items = g.global[0] * g.global[1] * g.global[2];
        uint32_t *o = malloc(items * 32);
        REQUIRE(o, "out of memory");
        uint32_t sx = (uint32_t)g.global[0], sy = (uint32_t)g.global[1];
        void *args[] = { &o, &sx, &sy };
        uint64_t sizes[] = { items * 32, 4, 4 };
        for (int how = 0; how < 5; how++) {
            memset(o, 0xFF, items * 32);
            spv_diag diag = { .msg = "" };
            if (how < 2 || how == 4) {
                const uint64_t lengths[2][3] = { { 1, 2, 3 }, { 4, 1, 7 } };
                run_partition(how == 4 ? any : k, &g, args, sizes, NULL, lengths[how % 2], 3);
            } else {
                CHECK(run_executor(k, &g, args, sizes, NULL, how - 1, &diag) == 0, "case %zu: %s", t, diag.msg);
            }
            uint64_t wrong = ndrange_check(o, &g);
            CHECK(wrong == 0,
                  "case %zu (%uD, local %ux%ux%u, global %llux%llux%llu, offset %llu,%llu,%llu), %s: %llu "
                  "wrong words",
                  t, g.work_dim, g.local[0], g.local[1], g.local[2], (unsigned long long)g.global[0],
                  (unsigned long long)g.global[1], (unsigned long long)g.global[2], (unsigned long long)g.offset[0],
                  (unsigned long long)g.offset[1], (unsigned long long)g.offset[2],
                  how == 0   ? "ranges 1,2,3"
                  : how == 1 ? "ranges 4,1,7"
                  : how == 2 ? "executor 1 thread"
                  : how == 3 ? "executor 2 threads"
                             : "no compile-time local size, ranges 1,2,3",
                  (unsigned long long)wrong);
        }
        free(o);
        spvjit_kernel_free(k);
    }
    spvjit_kernel_free(any);
}

/* ctx->stop set: a range runs no group; cleared: all of them. */
TEST(groups_stop_flag)
{
    jit_kernel *k = compile("jit/groups_ids.comp.spv", NULL, NULL, JIT_BARRIER_MODE_AUTO);
    REQUIRE(k, "compile: %s", tj_last_error);
    grid g = ids_grid();
    for (uint32_t stop = 0; stop <= 1; stop++) {
        ids_out out = ids_alloc(&g);
        void *args[] = { out.o };
        uint64_t sizes[] = { 4 * out.words };
        uint32_t push[2] = { out.sx, out.sy };
        void *mem = NULL;
        void *block =
            tj_wg_block(spvjit_kernel_facts_of(k)->wg_mem_size, spvjit_kernel_facts_of(k)->wg_mem_align, &mem);
        REQUIRE(block, "out of memory");
        spvjit_wg_ctx c;
        fill_ctx(&c, &g, args, sizes, push, block);
        c.stop = &stop;
        tj_fallback fb;
        (void)tj_exec_kernel(k, 0, &fb);
        CHECK(tj_run_range(k, &fb, &c, 3, 17) == 0, "groups 3 + 17");
        tj_fallback_free(&fb);
        uint64_t wrong = ids_check(&out, &g, 3, stop ? 3 : 20, false);
        CHECK(wrong == 0, "stop %u: %llu wrong words (%s)", stop, (unsigned long long)wrong,
              stop ? "groups ran though stopped" : "groups missing");
        free(mem);
        free(out.o);
    }
    spvjit_kernel_free(k);
}

/* How a test ran its grid: 0 as ranges, 1 and 2 through the executor with that many threads. */
static const char *way(int how)
{
    return how == 0 ? "ranges" : how == 1 ? "executor 1 thread" : "executor 2 threads";
}

/* --- 1-D kernels, many groups -------------------------------------------------------------------------- */

/* saxpy against C, with a smaller last group and global offsets, over ranges
 * and the executor. */
TEST(groups_saxpy_against_c)
{
    const uint32_t local[3] = { 64, 1, 1 };
    jit_kernel *k = compile("jit/groups_ndrange.cl.spv", "saxpy", local, JIT_BARRIER_MODE_AUTO);
    REQUIRE(k, "compile: %s", tj_last_error);
    uint64_t seed = 4242;
    const uint32_t n = 100003;
    const uint64_t offsets[2] = { 0, 37 }, globals[2] = { 100003, 99000 };
    float *x = malloc(4 * (n + 64)), *y0 = malloc(4 * (n + 64)), *y = malloc(4 * (n + 64)), *ref = malloc(4 * (n + 64));
    REQUIRE(x && y0 && y && ref, "out of memory");
    for (uint32_t i = 0; i < n + 64; i++) {
        x[i] = test_rand_float(&seed, -10.0f, 10.0f);
        y0[i] = test_rand_float(&seed, -10.0f, 10.0f);
    }
    float a = 1.75f;
    for (int c = 0; c < 2; c++) {
        const uint64_t global[3] = { globals[c], 1, 1 }, offset[3] = { offsets[c], 0, 0 };
        grid g = ndrange_grid(1, global, offset, local);
        for (uint64_t i = 0; i < n + 64; i++)
            ref[i] = i >= offsets[c] && i < offsets[c] + globals[c] && i < n ? a * x[i] + y0[i] : y0[i];
        for (int how = 0; how < 3; how++) {
            memcpy(y, y0, 4 * (n + 64));
            void *args[] = { &x, &y, &a, (void *)&n };
            uint64_t sizes[] = { 4 * (n + 64), 4 * (n + 64), 4, 4 };
            spv_diag diag = { .msg = "" };
            if (how == 0) {
                const uint64_t lengths[3] = { 1, 100, 7 };
                run_partition(k, &g, args, sizes, NULL, lengths, 3);
            } else {
                CHECK(run_executor(k, &g, args, sizes, NULL, how, &diag) == 0, "%s", diag.msg);
            }
            uint32_t wrong = 0;
            for (uint32_t i = 0; i < n + 64; i++)
                wrong += y[i] != ref[i];
            CHECK(wrong == 0, "global %llu offset %llu, %s: %u wrong elements", (unsigned long long)globals[c],
                  (unsigned long long)offsets[c], way(how), wrong);
        }
    }
    free(x);
    free(y0);
    free(y);
    free(ref);
    spvjit_kernel_free(k);
}

/* groups_global.comp: a 1-D-local kernel on 1-D, 2-D and 3-D grids with base groups. */
TEST(groups_global_ids_base_groups_1d_2d_3d)
{
    jit_kernel *k = compile("jit/groups_global.comp.spv", NULL, NULL, JIT_BARRIER_MODE_AUTO);
    REQUIRE(k, "compile: %s", tj_last_error);
    const uint32_t local[3] = { 16, 1, 1 };
    const uint32_t shapes[][3] = { { 37, 1, 1 }, { 9, 3, 1 }, { 5, 2, 2 } };
    const uint32_t bases[][3] = { { 4, 0, 0 }, { 1, 2, 0 }, { 0, 0, 1 } };
    for (int s = 0; s < 3; s++) {
        grid g = shader_grid(shapes[s], bases[s], local);
        uint32_t sx = (g.base[0] + g.n[0]) * 16, sy = g.base[1] + g.n[1], sz = g.base[2] + g.n[2];
        size_t words = (size_t)sx * sy * sz;
        uint32_t *o = malloc(words * 4), *xs = malloc(words * 4), *want = malloc(words * 4);
        REQUIRE(o && xs && want, "out of memory");
        uint64_t seed = 99 + (uint64_t)s;
        for (size_t i = 0; i < words; i++)
            xs[i] = (uint32_t)(test_rand_u64(&seed) % 1000);
        memset(want, 0xFF, words * 4);
        for (uint32_t z = g.base[2]; z < sz; z++)
            for (uint32_t y = g.base[1]; y < sy; y++)
                for (uint32_t x = g.base[0] * 16; x < sx; x++) {
                    uint32_t i = x + sx * (y + sy * z);
                    want[i] = 1 + x + 1000 * y + 100000 * z + 2 * xs[i];
                }
        for (int how = 0; how < 3; how++) {
            memset(o, 0xFF, words * 4);
            void *args[] = { o, xs };
            uint64_t sizes[] = { words * 4, words * 4 };
            uint32_t push[2] = { sx, sy };
            spv_diag diag = { .msg = "" };
            if (how == 0) {
                const uint64_t lengths[3] = { 2, 5, 1 };
                run_partition(k, &g, args, sizes, push, lengths, 3);
            } else {
                CHECK(run_executor(k, &g, args, sizes, push, how, &diag) == 0, "shape %d: %s", s, diag.msg);
            }
            uint32_t wrong = 0;
            for (size_t i = 0; i < words; i++)
                wrong += o[i] != want[i];
            CHECK(wrong == 0, "shape %ux%ux%u base %u,%u,%u, %s: %u wrong words", g.n[0], g.n[1], g.n[2], g.base[0],
                  g.base[1], g.base[2], way(how), wrong);
        }
        free(want);
        free(o);
        free(xs);
    }
    spvjit_kernel_free(k);
}

/* barriers = regions: a kernel whose barriers cannot be compiled into regions
 * is an error that says why (here: a local size known only at dispatch). */
TEST_TIER_FREE(groups_barriers_regions_mode_refuses)
{
    spv_module *m = tj_load("jit/regions_partial.cl.spv");
    REQUIRE(m, "load");
    spvjit_options o = { .opt_level = 1, .barriers = JIT_BARRIER_MODE_REGIONS };
    spv_diag diag = { .msg = "" };
    jit_kernel *k = spvjit_compile(m, NULL, &o, &diag);
    CHECK(!k && strstr(diag.msg, "barriers = regions") && strstr(diag.msg, "cannot be compiled into regions") &&
              strstr(diag.msg, "the local size is not known at compile time"),
          "regions mode, no local size: %s", k ? "compiled" : diag.msg);
    spvjit_kernel_free(k);
    o.barriers = JIT_BARRIER_MODE_AUTO;
    k = spvjit_compile(m, NULL, &o, &diag);
    CHECK(k && spvjit_kernel_item_fn(k), "auto mode: fibers: %s", k ? "" : diag.msg);
    spvjit_kernel_free(k);
    spv_module_free(m);
}
