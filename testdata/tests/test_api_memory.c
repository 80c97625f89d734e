/* testdata/tests/test_api_memory.c — the memory modes (robust, check,
 * unchecked) on out-of-bounds reads, writes and atomics, in both flavours,
 * against Vulkan's robustBufferAccess2 rules computed here in plain C: a load
 * outside the bound range reads zero, a store or an atomic outside it does
 * nothing (an atomic returns zero), a vector is checked component by
 * component, and nothing outside the bound ranges is touched (every range is
 * a window into a host array framed by canary words).  The same rules on
 * work-group and Function arrays.  Kernels: testdata/jit/oob_buffers.comp,
 * oob_wg.comp, oob.cl. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_test_util.h"
#include "harness.h"
#include "lib/spvjit.h"

/* A failed comparison, counted: the first few of a run are reported. */
#define MISMATCH(...)                                                                                                  \
    do {                                                                                                               \
        if (bad++ < 4)                                                                                                 \
            test_fail(__FILE__, __LINE__, __VA_ARGS__);                                                                \
    } while (0)

#define PAD 256 /* canary words on each side of a bound range */
#define CANARY 0xC0FFEE11u

/* A bound range: `words` words at p, inside a host array framed by canaries. */
typedef struct window {
    uint32_t *base, *p;
    size_t words;
} window;

static uint32_t *window_new(window *w, size_t words)
{
    w->base = malloc((words + 2 * PAD) * 4);
    for (size_t i = 0; i < words + 2 * PAD; i++)
        w->base[i] = CANARY;
    w->p = w->base + PAD;
    w->words = words;
    memset(w->p, 0, words * 4);
    return w->p;
}

/* The first canary word changed, or -1. */
static long window_touched(const window *w)
{
    for (size_t i = 0; i < PAD; i++) {
        if (w->base[i] != CANARY)
            return (long)i - PAD;
        if (w->p[w->words + i] != CANARY)
            return (long)(w->words + i);
    }
    return -1;
}

static spvjit_kernel *build(spvjit_context *ctx, const char *rel, const char *entry, spvjit_memory mode,
                            spvjit_barriers barriers)
{
    spvjit_module *m = api_load(ctx, rel);
    spvjit_kernel *k = NULL;
    spvjit_build_options o = { .memory = mode, .barriers = barriers };
    if (!m || spvjit_kernel_build(m, entry, NULL, &o, &k) != SPVJIT_OK)
        fprintf(stderr, "build %s: %s\n", rel, spvjit_last_error());
    spvjit_module_destroy(m); /* the kernel keeps what it needs */
    return k;
}

/* Offsets of the index from the work-item id: none, off by one either way, a
 * part of the work-items out, all out, large, extreme and negative. */
static const int32_t offsets[] = { 0, 1, -1, 3, -5, 7, -16, 64, 1 << 20, 1 << 30, -(1 << 30), INT32_MAX, INT32_MIN };
#define NOFFSETS (sizeof offsets / sizeof offsets[0])

/* ------------------------------------------------------------------------------------------
 * Shader flavour, storage and uniform buffers, push constants (oob_buffers.comp).  SN work-items
 * in groups of 16; item i reads and writes index j = int(i) + off of the storage buffers, reads
 * u[int(i & 3) + off].y and p.pv[int(i % 3) + off] (32-bit wrapping adds).
 */

#define SN 64

/* robust binds the uvec4 array with its last element half out and the
 * uniform block short of its last 8 bytes (u[3].y is its last word), which
 * Vulkan with robustness allows; check binds the whole array (a half-bound
 * element is out of bounds for it too); unchecked needs the whole block. */
typedef struct shader_bufs {
    window s, r, w, a, old, v, rv, u;
    uint32_t v_bytes, u_bytes;
} shader_bufs;

static void shader_fill(shader_bufs *b, spvjit_memory mode)
{
    b->v_bytes = mode == SPVJIT_MEMORY_ROBUST ? SN * 16 - 8 : SN * 16;
    b->u_bytes = mode == SPVJIT_MEMORY_UNCHECKED ? 64 : 56;
    uint32_t *s = window_new(&b->s, SN), *a = window_new(&b->a, SN), *v = window_new(&b->v, SN * 4);
    uint32_t *u = window_new(&b->u, 16);
    window_new(&b->r, 3 * SN);
    window_new(&b->w, SN);
    window_new(&b->old, SN);
    window_new(&b->rv, SN * 4);
    for (uint32_t i = 0; i < SN; i++) {
        s[i] = 1000 + i;
        a[i] = 100 + i;
    }
    for (uint32_t i = 0; i < SN * 4; i++)
        v[i] = 5000 + i;
    for (uint32_t i = 0; i < 16; i++)
        u[i] = 7000 + i;
}

static void shader_free(shader_bufs *b)
{
    window *all[] = { &b->s, &b->r, &b->w, &b->a, &b->old, &b->v, &b->rv, &b->u };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        free(all[i]->base);
}

static spvjit_status shader_run(spvjit_kernel *k, shader_bufs *b, int32_t off)
{
    spvjit_bind_buffer(k, 0, 0, b->s.p, SN * 4);
    spvjit_bind_buffer(k, 0, 1, b->r.p, 3 * SN * 4);
    spvjit_bind_buffer(k, 0, 2, b->w.p, SN * 4);
    spvjit_bind_buffer(k, 0, 3, b->a.p, SN * 4);
    spvjit_bind_buffer(k, 0, 4, b->old.p, SN * 4);
    spvjit_bind_buffer(k, 0, 5, b->v.p, b->v_bytes);
    spvjit_bind_buffer(k, 0, 6, b->rv.p, SN * 16);
    spvjit_bind_buffer(k, 0, 7, b->u.p, b->u_bytes);
    uint32_t push[4] = { (uint32_t)off, 9001, 9002, 9003 };
    spvjit_set_push_constants(k, push, sizeof push);
    spvjit_dispatch_info d = { .groups = { SN / 16, 1, 1 } };
    return spvjit_dispatch(k, &d);
}

/* The word at byte first_byte + 4 * j lies within [0, bytes). */
static bool word_in(int64_t j, int64_t first_byte, int64_t bytes)
{
    int64_t lo = first_byte + 4 * j;
    return lo >= 0 && lo + 4 <= bytes;
}

/* What both kernels (oob_buffers.comp, oob.cl) do besides their reads: item
 * i of n stores w[j] = i + 1, old[i] = the atomic add of 1 to a[j], reads the
 * 4-word vector v[j] into rv[i] and stores it back plus 1, where j = jj[i]
 * (a initially 100 + k, v 5000 + k); compared with robustBufferAccess2's
 * results, then every window's canaries (`unit`: "binding" or "argument"). */
static void expect_writes(const window *w, const window *a, const window *old, const window *v, const window *rv,
                          uint32_t v_bytes, const int64_t *jj, uint32_t n, const window *const *all, size_t nall,
                          const char *unit, int32_t off, const char *what)
{
    uint32_t want_w[64] = { 0 }, want_a[64], want_v[64 * 4];
    for (uint32_t i = 0; i < n; i++)
        want_a[i] = 100 + i;
    for (uint32_t i = 0; i < n * 4; i++)
        want_v[i] = 5000 + i;
    int bad = 0;
    for (uint32_t i = 0; i < n; i++) {
        int64_t j = jj[i];
        uint32_t want_old = 0;
        if (j >= 0 && j < n) {
            want_w[j] = i + 1;
            want_old = want_a[j]++;
        }
        if (old->p[i] != want_old)
            MISMATCH("%s: off %d: item %u's atomic add returned %u, want %u", what, off, i, old->p[i], want_old);
        for (int c = 0; c < 4; c++) {
            bool in = j >= 0 && word_in(4 * j + c, 0, v_bytes);
            uint32_t want = in ? 5000 + 4 * (uint32_t)j + (uint32_t)c : 0;
            if (rv->p[4 * i + c] != want)
                MISMATCH("%s: off %d: item %u read component %d of v[j]: %u, want %u", what, off, i, c,
                         rv->p[4 * i + c], want);
            if (in)
                want_v[4 * j + c]++;
        }
    }
    CHECK(!memcmp(w->p, want_w, n * 4), "%s: off %d: the stores w[j] differ", what, off);
    CHECK(!memcmp(a->p, want_a, n * 4), "%s: off %d: the atomics on a[j] differ", what, off);
    CHECK(!memcmp(v->p, want_v, n * 16), "%s: off %d: the vector stores v[j] differ", what, off);
    for (size_t i = 0; i < nall; i++) {
        long t = window_touched(all[i]);
        CHECK(t < 0, "%s: off %d: %s %zu: word %ld outside the bound range was written", what, off, unit, i, t);
    }
}

/* Compares one run with robustBufferAccess2's results. */
static void shader_expect(const shader_bufs *b, int32_t off, const char *what)
{
    int64_t jj[SN];
    int bad = 0;
    for (uint32_t i = 0; i < SN; i++) {
        int32_t j = (int32_t)(i + (uint32_t)off), ju = (int32_t)((i & 3) + (uint32_t)off);
        jj[i] = j;
        int32_t jp = (int32_t)(i % 3 + (uint32_t)off);
        const uint32_t push[4] = { (uint32_t)off, 9001, 9002, 9003 };
        uint32_t want[3] = {
            j >= 0 && j < SN ? 1000 + (uint32_t)j : 0,
            ju >= 0 && word_in(4 * (int64_t)ju, 4, b->u_bytes) ? 7000 + 4 * (uint32_t)ju + 1 : 0,
            word_in(jp, 4, 16) ? push[1 + jp] : 0, /* the block's range: pv[-1] is off */
        };
        for (int c = 0; c < 3; c++)
            if (b->r.p[3 * i + c] != want[c])
                MISMATCH("%s: off %d: item %u read %s: %u, want %u", what, off, i,
                         c == 0   ? "s[j]"
                         : c == 1 ? "u[(i & 3) + off].y"
                                  : "p.pv[(i % 3) + off]",
                         b->r.p[3 * i + c], want[c]);
    }
    const window *all[] = { &b->s, &b->r, &b->w, &b->a, &b->old, &b->v, &b->rv, &b->u };
    expect_writes(&b->w, &b->a, &b->old, &b->v, &b->rv, b->v_bytes, jj, SN, all, sizeof all / sizeof all[0], "binding",
                  off, what);
}

/* check: in-bounds runs give the plain results; any out-of-bounds access
 * stops the dispatch with a report naming it.  One thread, so the first
 * report is the first work-group's (the report's own words:
 * memory_check_report_*). */
TEST(memory_check_shader_buffers)
{
    spvjit_context *ctx = NULL;
    spvjit_context_options co = { .threads = 1, .disk_cache_dir = "" };
    REQUIRE(spvjit_context_create(&co, &ctx) == SPVJIT_OK, "context");
    spvjit_kernel *k = build(ctx, "jit/oob_buffers.comp.spv", NULL, SPVJIT_MEMORY_CHECK, SPVJIT_BARRIERS_DEFAULT);
    REQUIRE(k, "build");
    for (size_t o = 0; o < NOFFSETS; o++) {
        shader_bufs b;
        shader_fill(&b, SPVJIT_MEMORY_CHECK);
        int32_t off = offsets[o];
        spvjit_status st = shader_run(k, &b, off);
        if (off == 0) {
            CHECK(st == SPVJIT_OK, "off 0: %s", spvjit_last_error());
            shader_expect(&b, 0, "check");
        } else {
            CHECK(st == SPVJIT_ERROR_MEMORY_CHECK, "off %d: %s (%s)", off, spvjit_status_name(st), spvjit_last_error());
            const char *e = spvjit_last_error();
            CHECK(strstr(e, "out-of-bounds") && strstr(e, "work-group (") && strstr(e, "work-item (") &&
                      (strstr(e, "set 0 binding") || strstr(e, "push constants")),
                  "off %d: %s", off, e);
            const window *all[] = { &b.s, &b.r, &b.w, &b.a, &b.old, &b.v, &b.rv, &b.u };
            for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
                CHECK(window_touched(all[i]) < 0, "check: off %d: binding %zu written outside its range", off, i);
        }
        shader_free(&b);
    }
    /* off 1: items 0 and 1 read p.pv[1], p.pv[2], u[1].y, u[2].y; item 2
     * reads u[3].y (the last word bound) and then p.pv[3] past the block */
    shader_bufs b;
    shader_fill(&b, SPVJIT_MEMORY_CHECK);
    CHECK(shader_run(k, &b, 1) == SPVJIT_ERROR_MEMORY_CHECK, "off 1");
    const char *e = spvjit_last_error();
    CHECK(strstr(e, "out-of-bounds load in work-group (0,0,0), work-item (2,0,0): ") &&
              strstr(e, ": the push constants: 4 bytes at byte offset 16, but it has 16 bytes"),
          "off 1: %s", e);
    shader_free(&b);
    /* off 2: item 1 reads p.pv[3] */
    shader_fill(&b, SPVJIT_MEMORY_CHECK);
    CHECK(shader_run(k, &b, 2) == SPVJIT_ERROR_MEMORY_CHECK, "off 2");
    e = spvjit_last_error();
    CHECK(strstr(e, "out-of-bounds load in work-group (0,0,0), work-item (1,0,0): ") &&
              strstr(e, ": the push constants: 4 bytes at byte offset 16, but it has 16 bytes"),
          "off 2: %s", e);
    shader_free(&b);
    /* off -1 with the uniform block read first: item 0 reads u[-1].y */
    shader_fill(&b, SPVJIT_MEMORY_CHECK);
    CHECK(shader_run(k, &b, -1) == SPVJIT_ERROR_MEMORY_CHECK, "off -1");
    e = spvjit_last_error();
    CHECK(strstr(e, "out-of-bounds load in work-group (0,0,0), work-item (0,0,0): ") &&
              strstr(e, ": set 0 binding 0 (Src): 4 bytes at byte offset -4, but it has 256 bytes (64 elements)"),
          "off -1: %s", e);
    shader_free(&b);
    spvjit_kernel_destroy(k);
    spvjit_context_destroy(ctx);
}

/* unchecked: today's behaviour, no checks.  In bounds it computes what the
 * others do; off by one, the accesses land in the canaries next to the
 * ranges (what plain C would do with the same pointers). */
TEST(memory_unchecked_shader_buffers)
{
    spvjit_context *ctx = api_ctx(0);
    spvjit_kernel *k = build(ctx, "jit/oob_buffers.comp.spv", NULL, SPVJIT_MEMORY_UNCHECKED, SPVJIT_BARRIERS_DEFAULT);
    REQUIRE(k, "build");
    shader_bufs b;
    shader_fill(&b, SPVJIT_MEMORY_UNCHECKED);
    CHECK(shader_run(k, &b, 0) == SPVJIT_OK, "off 0: %s", spvjit_last_error());
    shader_expect(&b, 0, "unchecked");
    shader_free(&b);
    shader_fill(&b, SPVJIT_MEMORY_UNCHECKED);
    CHECK(shader_run(k, &b, 1) == SPVJIT_OK, "off 1: %s", spvjit_last_error());
    CHECK(b.r.p[3 * (SN - 1)] == CANARY, "unchecked s[64] read %#x, not the word after the range", b.r.p[3 * (SN - 1)]);
    CHECK(b.w.p[SN] == SN, "unchecked w[64] = %u: the store did not land after the range", b.w.p[SN]);
    CHECK(b.a.p[SN] == CANARY + 1 && b.old.p[SN - 1] == CANARY, "unchecked atomicAdd on a[64]: %#x, returned %#x",
          b.a.p[SN], b.old.p[SN - 1]);
    shader_free(&b);
    spvjit_kernel_destroy(k);
    spvjit_context_destroy(ctx);
}

/* ------------------------------------------------------------------------------------------
 * Shader flavour, work-group and Function arrays (oob_wg.comp): a barrier
 * kernel, run as regions and on fibers.
 */

#define WN 64

static void wg_expect(const uint32_t *o, int32_t off, const char *what)
{
    int bad = 0;
    for (uint32_t g = 0; g < WN / 16; g++) {
        uint32_t t[16] = { 0 };
        for (uint32_t l = 0; l < 16; l++) {
            int64_t k = (int64_t)l + off;
            if (k >= 0 && k < 16)
                t[k] = g * 16 + l + 1;
        }
        for (uint32_t l = 0; l < 16; l++) {
            uint32_t i = g * 16 + l;
            int64_t k = (int64_t)(int32_t)(l + (uint32_t)off), q = (int64_t)(int32_t)((l & 3) + (uint32_t)off);
            uint32_t pv[4] = { i, i + 1000, i + 2000, i + 3000 };
            if (q >= 0 && q < 4)
                pv[q] = 7;
            uint32_t want[4] = { t[l], k >= 0 && k < 16 ? t[k] : 0, pv[l & 3], q >= 0 && q < 4 ? pv[q] : 0 };
            for (int c = 0; c < 4; c++)
                if (o[4 * i + c] != want[c])
                    MISMATCH("%s: off %d: item %u value %d = %u, want %u", what, off, i, c, o[4 * i + c], want[c]);
        }
    }
}

TEST(memory_robust_workgroup_and_function_arrays)
{
    spvjit_context *ctx = api_ctx(0);
    const spvjit_barriers modes[] = { SPVJIT_BARRIERS_DEFAULT, SPVJIT_BARRIERS_FIBERS };
    for (size_t mi = 0; mi < 2; mi++) {
        spvjit_kernel *k = build(ctx, "jit/oob_wg.comp.spv", NULL, SPVJIT_MEMORY_ROBUST, modes[mi]);
        REQUIRE(k, "build");
        for (size_t o = 0; o < NOFFSETS; o++) {
            window out;
            window_new(&out, 4 * WN);
            spvjit_bind_buffer(k, 0, 0, out.p, 4 * WN * 4);
            spvjit_set_push_constants(k, &offsets[o], 4);
            spvjit_dispatch_info d = { .groups = { WN / 16, 1, 1 } };
            spvjit_status st = spvjit_dispatch(k, &d);
            CHECK(st == SPVJIT_OK, "off %d: %s", offsets[o], spvjit_last_error());
            if (st == SPVJIT_OK)
                wg_expect(out.p, offsets[o], mi ? "fibers" : "regions");
            CHECK(window_touched(&out) < 0, "off %d: written outside the range", offsets[o]);
            free(out.base);
        }
        spvjit_kernel_destroy(k);
    }
    spvjit_context_destroy(ctx);
}

TEST(memory_check_workgroup_and_function_arrays)
{
    spvjit_context *ctx = NULL;
    spvjit_context_options co = { .threads = 1, .disk_cache_dir = "" };
    REQUIRE(spvjit_context_create(&co, &ctx) == SPVJIT_OK, "context");
    spvjit_kernel *k = build(ctx, "jit/oob_wg.comp.spv", NULL, SPVJIT_MEMORY_CHECK, SPVJIT_BARRIERS_DEFAULT);
    REQUIRE(k, "build");
    for (size_t o = 0; o < NOFFSETS; o++) {
        window out;
        window_new(&out, 4 * WN);
        spvjit_bind_buffer(k, 0, 0, out.p, 4 * WN * 4);
        spvjit_set_push_constants(k, &offsets[o], 4);
        spvjit_dispatch_info d = { .groups = { WN / 16, 1, 1 } };
        spvjit_status st = spvjit_dispatch(k, &d);
        if (offsets[o] == 0) {
            CHECK(st == SPVJIT_OK, "off 0: %s", spvjit_last_error());
            wg_expect(out.p, 0, "check");
        } else {
            /* the first access out of range is item 0's or item 15's pv[q] store */
            const char *e = spvjit_last_error();
            CHECK(st == SPVJIT_ERROR_MEMORY_CHECK &&
                      strstr(e, "out-of-bounds store in work-group (0,0,0), work-item (") &&
                      strstr(e, "variable pv (Function, uint[4])"),
                  "off %d: %s: %s", offsets[o], spvjit_status_name(st), e);
        }
        free(out.base);
    }
    spvjit_kernel_destroy(k);
    spvjit_context_destroy(ctx);
}

/* ------------------------------------------------------------------------------------------
 * Kernel flavour (oob.cl): pointer arguments, a constant pointer, a pointer
 * made from an integer (checked against every bound range), a partial last
 * work-group; __local arrays and arguments.
 */

#define KN 60 /* work-items: the last group of 16 has 12 */

/* v's last element is half bound, but in the runs that must not go out of bounds */
typedef struct kernel_bufs {
    window s, r, w, a, old, v, rv, c;
    uint32_t v_bytes;
} kernel_bufs;

static void kernel_fill(kernel_bufs *b, spvjit_memory mode)
{
    b->v_bytes = mode == SPVJIT_MEMORY_ROBUST ? KN * 16 - 8 : KN * 16;
    uint32_t *s = window_new(&b->s, KN), *a = window_new(&b->a, KN), *v = window_new(&b->v, KN * 4);
    uint32_t *c = window_new(&b->c, KN);
    window_new(&b->r, 3 * KN);
    window_new(&b->w, KN);
    window_new(&b->old, KN);
    window_new(&b->rv, KN * 4);
    for (uint32_t i = 0; i < KN; i++) {
        s[i] = 1000 + i;
        a[i] = 100 + i;
        c[i] = 3000 + i;
    }
    for (uint32_t i = 0; i < KN * 4; i++)
        v[i] = 5000 + i;
}

static void kernel_free(kernel_bufs *b)
{
    window *all[] = { &b->s, &b->r, &b->w, &b->a, &b->old, &b->v, &b->rv, &b->c };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        free(all[i]->base);
}

static spvjit_status kernel_run(spvjit_kernel *k, kernel_bufs *b, int32_t off)
{
    spvjit_set_arg_buffer(k, 0, b->s.p, KN * 4);
    spvjit_set_arg_buffer(k, 1, b->r.p, 3 * KN * 4);
    spvjit_set_arg_buffer(k, 2, b->w.p, KN * 4);
    spvjit_set_arg_buffer(k, 3, b->a.p, KN * 4);
    spvjit_set_arg_buffer(k, 4, b->old.p, KN * 4);
    spvjit_set_arg_buffer(k, 5, b->v.p, b->v_bytes);
    spvjit_set_arg_buffer(k, 6, b->rv.p, KN * 16);
    spvjit_set_arg_buffer(k, 7, b->c.p, KN * 4);
    spvjit_set_arg_value(k, 8, &off, 4);
    spvjit_dispatch_info d = { .work_dim = 1, .global_size = { KN }, .local_size = { 16, 1, 1 } };
    return spvjit_dispatch(k, &d);
}

static void kernel_expect(const kernel_bufs *b, int32_t off, const char *what)
{
    int64_t jj[KN];
    int bad = 0;
    for (uint32_t i = 0; i < KN; i++) {
        int64_t j = jj[i] = (int64_t)i + off; /* (long)i + off: no wrapping */
        bool in = j >= 0 && j < KN;
        /* q = s + 4j lands in no other bound range: the windows' canaries
         * (PAD words) are wider than the offsets that stay near s */
        uint32_t want[3] = { in ? 1000 + (uint32_t)j : 0, in ? 3000 + (uint32_t)j : 0, in ? 1000 + (uint32_t)j : 0 };
        for (int c = 0; c < 3; c++)
            if (b->r.p[3 * i + c] != want[c])
                MISMATCH("%s: off %d: item %u read %s: %u, want %u", what, off, i,
                         c == 0   ? "s[j]"
                         : c == 1 ? "c[j] (constant)"
                                  : "*q (a pointer made from an integer)",
                         b->r.p[3 * i + c], want[c]);
    }
    const window *all[] = { &b->s, &b->r, &b->w, &b->a, &b->old, &b->v, &b->rv, &b->c };
    expect_writes(&b->w, &b->a, &b->old, &b->v, &b->rv, b->v_bytes, jj, KN, all, sizeof all / sizeof all[0], "argument",
                  off, what);
}

TEST(memory_check_and_unchecked_kernel_pointers)
{
    spvjit_context *ctx = NULL;
    spvjit_context_options co = { .threads = 1, .disk_cache_dir = "" };
    REQUIRE(spvjit_context_create(&co, &ctx) == SPVJIT_OK, "context");
    spvjit_kernel *k = build(ctx, "jit/oob.cl.spv", "oob", SPVJIT_MEMORY_CHECK, SPVJIT_BARRIERS_DEFAULT);
    REQUIRE(k, "build");
    for (size_t o = 0; o < NOFFSETS; o++) {
        kernel_bufs b;
        kernel_fill(&b, SPVJIT_MEMORY_CHECK);
        spvjit_status st = kernel_run(k, &b, offsets[o]);
        const char *e = spvjit_last_error();
        if (offsets[o] == 0) {
            CHECK(st == SPVJIT_OK, "off 0: %s", e);
            kernel_expect(&b, 0, "check");
        } else {
            CHECK(st == SPVJIT_ERROR_MEMORY_CHECK && strstr(e, "out-of-bounds load in work-group (") &&
                      strstr(e, "argument 0 (s)"),
                  "off %d: %s: %s", offsets[o], spvjit_status_name(st), e);
        }
        kernel_free(&b);
    }
    /* off -1: work-item 0 reads s[-1] first */
    kernel_bufs b;
    kernel_fill(&b, SPVJIT_MEMORY_CHECK);
    CHECK(kernel_run(k, &b, -1) == SPVJIT_ERROR_MEMORY_CHECK, "off -1");
    const char *e = spvjit_last_error();
    CHECK(strstr(e, "out-of-bounds load in work-group (0,0,0), work-item (0,0,0): ") &&
              strstr(e, ": argument 0 (s): 4 bytes at byte offset -4, but it has 240 bytes"),
          "off -1: %s", e);
    kernel_free(&b);
    spvjit_kernel_destroy(k);

    k = build(ctx, "jit/oob.cl.spv", "oob", SPVJIT_MEMORY_UNCHECKED, SPVJIT_BARRIERS_DEFAULT);
    REQUIRE(k, "build unchecked");
    kernel_fill(&b, SPVJIT_MEMORY_UNCHECKED);
    CHECK(kernel_run(k, &b, 0) == SPVJIT_OK, "unchecked off 0: %s", spvjit_last_error());
    kernel_expect(&b, 0, "unchecked");
    kernel_free(&b);
    kernel_fill(&b, SPVJIT_MEMORY_UNCHECKED);
    CHECK(kernel_run(k, &b, 1) == SPVJIT_OK, "unchecked off 1: %s", spvjit_last_error());
    CHECK(b.r.p[3 * (KN - 1)] == CANARY && b.w.p[KN] == KN, "unchecked: s[60] read %#x, w[60] = %u",
          b.r.p[3 * (KN - 1)], b.w.p[KN]);
    kernel_free(&b);
    spvjit_kernel_destroy(k);
    spvjit_context_destroy(ctx);
}

TEST(memory_robust_kernel_local_memory)
{
    spvjit_context *ctx = api_ctx(0);
    spvjit_kernel *k = build(ctx, "jit/oob.cl.spv", "oob_local", SPVJIT_MEMORY_DEFAULT, SPVJIT_BARRIERS_DEFAULT);
    REQUIRE(k, "build");
    for (size_t o = 0; o < NOFFSETS; o++) {
        int32_t off = offsets[o];
        window out;
        uint32_t *p = window_new(&out, 4 * WN);
        spvjit_set_arg_buffer(k, 0, p, 4 * WN * 4);
        spvjit_set_arg_value(k, 1, &off, 4);
        spvjit_set_arg_local(k, 2, 16 * 4);
        spvjit_dispatch_info d = { .work_dim = 1, .global_size = { WN }, .local_size = { 16, 1, 1 } };
        spvjit_status st = spvjit_dispatch(k, &d);
        CHECK(st == SPVJIT_OK, "off %d: %s", off, spvjit_last_error());
        for (uint32_t g = 0; g < WN / 16 && st == SPVJIT_OK; g++) {
            uint32_t t[16] = { 0 }, la[16] = { 0 };
            for (uint32_t l = 0; l < 16; l++) {
                int64_t kk = (int64_t)l + off;
                if (kk >= 0 && kk < 16) {
                    t[kk] = g * 16 + l + 1;
                    la[kk] = g * 16 + l + 101;
                }
            }
            for (uint32_t l = 0; l < 16; l++) {
                uint32_t i = g * 16 + l;
                int64_t kk = (int64_t)l + off;
                bool in = kk >= 0 && kk < 16;
                uint32_t want[4] = { t[l], in ? t[kk] : 0, la[l], in ? la[kk] : 0 };
                for (int c = 0; c < 4; c++)
                    CHECK(p[4 * i + c] == want[c], "off %d: item %u value %d = %u, want %u", off, i, c, p[4 * i + c],
                          want[c]);
            }
        }
        CHECK(window_touched(&out) < 0, "off %d: written outside the range", off);
        free(out.base);
    }
    spvjit_kernel_destroy(k);
    spvjit_context_destroy(ctx);
}

/* ------------------------------------------------------------------------------------------
 * The same on every path: the scalar work-items (simd off, sub-groups of 1)
 * and sub-groups of 8 and 16 SIMD lanes, where a contiguous access is one
 * masked vector load or store whose out-of-bounds lanes must read zero and
 * be dropped, and where check's first report must be the scalar path's (the
 * lanes of a sub-group run interleaved).
 */

typedef struct exec_path {
    const char *name;
    spvjit_simd simd;
    uint32_t subgroup_size; /* asked for (0: the default) */
    uint32_t lanes;         /* what the kernel must get (0: not checked) */
} exec_path;

static const exec_path paths[] = {
    { "simd off", SPVJIT_SIMD_OFF, 0, 1 },
    { "the defaults", SPVJIT_SIMD_DEFAULT, 0, 0 }, /* the host's native width (not checked) */
    { "sub-groups of 1", SPVJIT_SIMD_DEFAULT, 1, 1 },
    { "sub-groups of 8", SPVJIT_SIMD_DEFAULT, 8, 8 },
    { "sub-groups of 16", SPVJIT_SIMD_DEFAULT, 16, 16 },
};
#define NPATHS (sizeof paths / sizeof paths[0])

static spvjit_kernel *build_on(spvjit_context *ctx, const char *rel, const char *entry, spvjit_memory mode,
                               const exec_path *p)
{
    spvjit_module *m = api_load(ctx, rel);
    spvjit_kernel *k = NULL;
    spvjit_build_options o = { .memory = mode, .simd = p->simd, .subgroup_size = p->subgroup_size };
    if (m && spvjit_module_flavour(m) == SPVJIT_FLAVOUR_KERNEL) /* compiled now: the dispatches' local size */
        memcpy(o.local_size, (uint32_t[3]){ 16, 1, 1 }, sizeof o.local_size);
    if (!m || spvjit_kernel_build(m, entry, NULL, &o, &k) != SPVJIT_OK) {
        test_fail(__FILE__, __LINE__, "build %s (%s): %s", rel, p->name, spvjit_last_error());
        spvjit_module_destroy(m);
        return NULL;
    }
    spvjit_module_destroy(m);
    spvjit_kernel_stats ks;
    spvjit_kernel_stats_get(k, &ks);
    CHECK(!p->lanes || ks.subgroup_size == p->lanes, "%s (%s): sub-groups of %u, not %u", rel, p->name,
          ks.subgroup_size, p->lanes);
    return k;
}

TEST(memory_robust_on_every_path)
{
    spvjit_context *ctx = api_ctx(0);
    REQUIRE(ctx, "context");
    for (size_t pi = 0; pi < NPATHS; pi++) {
        const exec_path *p = &paths[pi];
        spvjit_kernel *ks = build_on(ctx, "jit/oob_buffers.comp.spv", NULL, SPVJIT_MEMORY_ROBUST, p);
        spvjit_kernel *kk = build_on(ctx, "jit/oob.cl.spv", "oob", SPVJIT_MEMORY_ROBUST, p);
        spvjit_kernel *kw = build_on(ctx, "jit/oob_wg.comp.spv", NULL, SPVJIT_MEMORY_ROBUST, p);
        REQUIRE(ks && kk && kw, "build (%s)", p->name);
        for (size_t o = 0; o < NOFFSETS; o++) {
            int32_t off = offsets[o];
            shader_bufs b;
            shader_fill(&b, SPVJIT_MEMORY_ROBUST);
            spvjit_status st = shader_run(ks, &b, off);
            CHECK(st == SPVJIT_OK, "%s: buffers, off %d: %s", p->name, off, spvjit_last_error());
            if (st == SPVJIT_OK)
                shader_expect(&b, off, p->name);
            shader_free(&b);

            kernel_bufs kb;
            kernel_fill(&kb, SPVJIT_MEMORY_ROBUST);
            st = kernel_run(kk, &kb, off);
            CHECK(st == SPVJIT_OK, "%s: pointers, off %d: %s", p->name, off, spvjit_last_error());
            if (st == SPVJIT_OK)
                kernel_expect(&kb, off, p->name);
            kernel_free(&kb);

            window out;
            window_new(&out, 4 * WN);
            spvjit_bind_buffer(kw, 0, 0, out.p, 4 * WN * 4);
            spvjit_set_push_constants(kw, &off, 4);
            st = spvjit_dispatch(kw, &(spvjit_dispatch_info){ .groups = { WN / 16, 1, 1 } });
            CHECK(st == SPVJIT_OK, "%s: work-group arrays, off %d: %s", p->name, off, spvjit_last_error());
            if (st == SPVJIT_OK)
                wg_expect(out.p, off, p->name);
            CHECK(window_touched(&out) < 0, "%s: off %d: written outside the range", p->name, off);
            free(out.base);
        }
        spvjit_kernel_destroy(ks);
        spvjit_kernel_destroy(kk);
        spvjit_kernel_destroy(kw);
    }
    spvjit_context_destroy(ctx);
}

/* One check-mode dispatch: its status and message. */
typedef struct check_run {
    spvjit_status st;
    char msg[1024];
} check_run;

static check_run check_dispatch(spvjit_kernel *k, const char *rel, int32_t off)
{
    check_run r;
    if (strstr(rel, "oob_buffers")) {
        shader_bufs b;
        shader_fill(&b, SPVJIT_MEMORY_CHECK);
        r.st = shader_run(k, &b, off);
        shader_free(&b);
    } else if (strstr(rel, "oob.cl")) {
        kernel_bufs b;
        kernel_fill(&b, SPVJIT_MEMORY_CHECK);
        r.st = kernel_run(k, &b, off);
        kernel_free(&b);
    } else if (strstr(rel, "oob_wg")) {
        window out;
        window_new(&out, 4 * WN);
        spvjit_bind_buffer(k, 0, 0, out.p, 4 * WN * 4);
        spvjit_set_push_constants(k, &off, 4);
        r.st = spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { WN / 16, 1, 1 } });
        free(out.base);
    } else { /* san_oob.comp, san_race.comp: 128 words, 2 groups of 64 */
        uint32_t d[128];
        for (uint32_t i = 0; i < 128; i++)
            d[i] = i;
        spvjit_bind_buffer(k, 0, 0, d, sizeof d);
        r.st = spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { 2, 1, 1 } });
    }
    snprintf(r.msg, sizeof r.msg, "%s", r.st == SPVJIT_OK ? "" : spvjit_last_error());
    return r;
}

/* check: the first report, word by word, is the same on every path (one
 * thread: the first report is the first work-group's). */
TEST(memory_check_same_report_on_every_path)
{
    spvjit_context *ctx = NULL;
    spvjit_context_options co = { .threads = 1, .disk_cache_dir = "" };
    REQUIRE(spvjit_context_create(&co, &ctx) == SPVJIT_OK, "context");
    static const struct {
        const char *rel, *entry;
    } kernels[] = { { "jit/oob_buffers.comp.spv", NULL },
                    { "jit/oob.cl.spv", "oob" },
                    { "jit/oob_wg.comp.spv", NULL },
                    { "jit/san_oob.comp.spv", NULL },
                    { "jit/san_race.comp.spv", NULL } };
    for (size_t ki = 0; ki < sizeof kernels / sizeof kernels[0]; ki++) {
        spvjit_kernel *k[NPATHS];
        for (size_t pi = 0; pi < NPATHS; pi++) {
            k[pi] = build_on(ctx, kernels[ki].rel, kernels[ki].entry, SPVJIT_MEMORY_CHECK, &paths[pi]);
            REQUIRE(k[pi], "build");
        }
        bool fixed = strstr(kernels[ki].rel, "san_") != NULL; /* no offset to vary */
        for (size_t o = 0; o < (fixed ? 1 : NOFFSETS); o++) {
            check_run first = check_dispatch(k[0], kernels[ki].rel, offsets[o]);
            CHECK(first.st == (offsets[o] == 0 && !fixed ? SPVJIT_OK : SPVJIT_ERROR_MEMORY_CHECK), "%s off %d: %s: %s",
                  kernels[ki].rel, offsets[o], spvjit_status_name(first.st), first.msg);
            for (size_t pi = 1; pi < NPATHS; pi++) {
                check_run r = check_dispatch(k[pi], kernels[ki].rel, offsets[o]);
                CHECK(r.st == first.st && !strcmp(r.msg, first.msg),
                      "%s off %d: %s reports\n  %s\nwhere %s reports\n  %s", kernels[ki].rel, offsets[o],
                      paths[pi].name, r.msg, paths[0].name, first.msg);
            }
        }
        for (size_t pi = 0; pi < NPATHS; pi++)
            spvjit_kernel_destroy(k[pi]);
    }
    spvjit_context_destroy(ctx);
}

/* An exported function called from host C (oob_export.cl: nth(i, v) reads
 * t[i] of a Function array int t[4] = { v, v + 1, v + 2, v + 3 }): robust
 * reads zero out of range; check stops the call at the first lane that goes
 * out of range, with a report naming the lane. */
TEST(memory_modes_exported_function)
{
    static const spvjit_memory modes[] = { SPVJIT_MEMORY_ROBUST, SPVJIT_MEMORY_CHECK };
    for (int mi = 0; mi < 2; mi++) {
        spvjit_context *ctx = NULL;
        spvjit_context_options co = { .disk_cache_dir = "", .defaults = { .memory = modes[mi] } };
        REQUIRE(spvjit_context_create(&co, &ctx) == SPVJIT_OK, "context");
        spvjit_module *m = api_load(ctx, "jit/oob_export.cl.spv");
        REQUIRE(m, "load");
        int32_t idx[5] = { 0, 3, 4, -1, 2 }, v = 100, out[5] = { -7, -7, -7, -7, -7 };
        spvjit_call_arg a[2] = { { idx, sizeof idx, true }, { &v, sizeof v, false } };
        spvjit_status st = spvjit_call_exported(m, "nth", NULL, 5, a, 2, out, sizeof out);
        if (modes[mi] == SPVJIT_MEMORY_ROBUST) {
            CHECK(st == SPVJIT_OK, "robust: %s", spvjit_last_error());
            CHECK(out[0] == 100 && out[1] == 103 && out[2] == 0 && out[3] == 0 && out[4] == 102,
                  "robust: %d %d %d %d %d, want 100 103 0 0 102", out[0], out[1], out[2], out[3], out[4]);
        } else {
            char want[512];
            snprintf(want, sizeof want,
                     "%s: function \"nth\": out-of-bounds load in lane 2 of the call: %%33 = OpLoad %%uint %%arrayidx "
                     "Aligned 4: variable t (Function, int[4]): 4 bytes at byte offset 16, but it has 16 bytes",
                     test_data_path("jit/oob_export.cl.spv"));
            CHECK(st == SPVJIT_ERROR_MEMORY_CHECK && !strcmp(spvjit_last_error(), want), "check: %s: %s\nwant %s",
                  spvjit_status_name(st), spvjit_last_error(), want);
            /* the lanes before it ran, the lane itself as under robust, none after it */
            CHECK(out[0] == 100 && out[1] == 103 && out[2] == 0 && out[3] == -7 && out[4] == -7,
                  "check: %d %d %d %d %d", out[0], out[1], out[2], out[3], out[4]);
            /* in range, the same call runs clean */
            int32_t ok_idx[2] = { 1, 2 }, ok_out[2];
            spvjit_call_arg b[2] = { { ok_idx, sizeof ok_idx, true }, { &v, sizeof v, false } };
            CHECK(spvjit_call_exported(m, "nth", NULL, 2, b, 2, ok_out, sizeof ok_out) == SPVJIT_OK &&
                      ok_out[0] == 101 && ok_out[1] == 102,
                  "check in range: %s", spvjit_last_error());
        }
        spvjit_module_destroy(m);
        spvjit_context_destroy(ctx);
    }
}
