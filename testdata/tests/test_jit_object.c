/* testdata/tests/test_jit_object.c — compiled kernels as bytes and back
 * (spvjit_options.keep_object, spvjit_kernel_take_object, spvjit_load_object).
 *
 * A kernel loaded from its blob must compute exactly what the kernel compiled
 * in-process computes (bit for bit, same inputs) and what the plain C
 * reference computes; its facts are recomputed from the module and must equal
 * the compile's.  Both flavours, specialized and not, barriers compiled into
 * regions and on fibers, barrier-free.  A damaged blob, one of another format
 * or one made for other facts (other spec values, local size, barrier path)
 * is refused with a message, never run. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "test_jit_util.h"
#include "testdata/kernels/reference.h"

static float *rand_floats(uint64_t *s, size_t n)
{
    float *p = malloc(n * sizeof *p);
    for (size_t i = 0; i < n; i++)
        p[i] = test_rand_float(s, -2.0f, 2.0f);
    return p;
}

static uint64_t fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* Compiles with keep_object; the blob goes to *blob (malloc'd). */
static jit_kernel *compile_keep(const spv_module *m, const char *entry, spvjit_options o, void **blob, size_t *len)
{
    o.keep_object = true;
    o.tier = JIT_TIER_OPT; /* only optimized code is kept */
    jit_kernel *k = tj_compile(m, entry, &o);
    *blob = k ? spvjit_kernel_take_object(k, len) : NULL;
    if (k) {
        CHECK(*blob && *len > 64, "no object kept");
        size_t again = 1;
        CHECK(!spvjit_kernel_take_object(k, &again) && again == 0, "taken twice");
    }
    return k;
}

/* The facts that must agree between a compile and a load (names included: both point into m). */
static void check_same_facts(const jit_kernel *a, const jit_kernel *b, const char *what)
{
    const spvjit_kernel_facts *x = spvjit_kernel_facts_of(a), *y = spvjit_kernel_facts_of(b);
    CHECK(x->is_kernel == y->is_kernel && x->uses_barriers == y->uses_barriers &&
              x->barrier_regions == y->barrier_regions && x->nbarrier_sites == y->nbarrier_sites,
          "%s: barrier facts", what);
    CHECK(x->local_size_known == y->local_size_known && !memcmp(x->local_size, y->local_size, 12), "%s: local size",
          what);
    CHECK(x->wg_mem_size == y->wg_mem_size && x->wg_mem_align == y->wg_mem_align &&
              x->stack_estimate == y->stack_estimate && x->push_constant_size == y->push_constant_size,
          "%s: memory facts", what);
    CHECK(x->nparams == y->nparams && x->nresources == y->nresources && x->nslots == y->nslots && x->nspec == y->nspec,
          "%s: interface counts", what);
    for (uint32_t i = 0; i < x->nparams && i < y->nparams; i++)
        CHECK(x->params[i].kind == y->params[i].kind && x->params[i].size == y->params[i].size &&
                  x->params[i].name == y->params[i].name,
              "%s: parameter %u", what, i);
    for (uint32_t i = 0; i < x->nresources && i < y->nresources; i++)
        CHECK(x->resources[i].slot == y->resources[i].slot && x->resources[i].binding == y->resources[i].binding &&
                  x->resources[i].name == y->resources[i].name,
              "%s: resource %u", what, i);
    CHECK(!spvjit_kernel_wg_range_fn(a) == !spvjit_kernel_wg_range_fn(b) &&
              !spvjit_kernel_item_fn(a) == !spvjit_kernel_item_fn(b) &&
              !spvjit_kernel_wg_init_fn(a) == !spvjit_kernel_wg_init_fn(b),
          "%s: the same functions", what);
}

/* --- mm: barriers (regions or fibers), work-group memory, both flavours ------------------ */

static void mm_roundtrip(const char *file, bool unspec, bool fibers, uint32_t bs, uint32_t n)
{
    spv_module *m = tj_load(file);
    REQUIRE(m, "load");
    bool cl = strstr(file, ".cl") != NULL;
    uint32_t id = 0;
    uint64_t bits = bs;
    spv_module *sm = unspec ? m : tj_specialize(m, &id, &bits, 1);
    REQUIRE(sm, "specialize");
    spvjit_shape_value shape = { 0, bs };
    spvjit_options o = { .unspecialized = unspec,
                         .opt_level = 3,
                         .shape_values = &shape,
                         .nshape_values = 1,
                         .barriers = fibers ? JIT_BARRIER_MODE_FIBERS : JIT_BARRIER_MODE_AUTO };
    if (cl) {
        o.local_size[0] = o.local_size[1] = bs;
        o.local_size[2] = 1;
    }
    void *blob = NULL;
    size_t len = 0;
    jit_kernel *k = compile_keep(sm, cl ? "mm" : NULL, o, &blob, &len);
    REQUIRE(k && blob, "compile: %s", tj_last_error);
    spv_diag d;
    d.msg[0] = 0;
    o.keep_object = true; /* a loaded kernel can hand the same blob on */
    jit_kernel *l = spvjit_load_object(sm, cl ? "mm" : NULL, &o, blob, len, &d);
    REQUIRE(l, "load_object: %s", d.msg);
    char what[160];
    snprintf(what, sizeof what, "%s bs %u %s%s", file, bs, unspec ? "unspecialized " : "",
             fibers ? "fibers" : "regions");
    check_same_facts(k, l, what);
    CHECK(spvjit_kernel_facts_of(l)->barrier_regions == !fibers, "%s: path", what);
    size_t len2 = 0;
    void *blob2 = spvjit_kernel_take_object(l, &len2);
    CHECK(blob2 && len2 == len && !memcmp(blob, blob2, len), "%s: the loaded kernel's blob differs", what);
    free(blob2);

    uint64_t s = 4242 + bs + n;
    size_t nn = (size_t)n * n;
    float *a = rand_floats(&s, nn), *b = rand_floats(&s, nn), *ref = malloc(nn * 4);
    float *c1 = calloc(nn, 4), *c2 = calloc(nn, 4);
    ref_mm(a, b, ref, n, !cl);
    uint64_t *spec = unspec ? tj_spec_slots(m, k, &id, &bits, 1) : NULL;
    uint32_t groups = (n + bs - 1) / bs;
    uint64_t sizes[4] = { nn * 4, nn * 4, nn * 4, sizeof n }; /* Kernel: one per argument */
    for (int run = 0; run < 2; run++) {
        float *c = run ? c2 : c1;
        void *sargs[3] = { a, b, c };
        void *kargs[4] = { &a, &b, &c, &n };
        tj_dispatch dd = { .args = cl ? kargs : sargs,
                           .arg_sizes = sizes,
                           .nargs = TJ_COUNT(sizes),
                           .push = &n,
                           .spec_values = spec,
                           .groups = { groups, groups, 1 },
                           .work_dim = 2,
                           .global_size = { groups * bs, groups * bs, 1 } };
        REQUIRE(tj_run(run ? l : k, &dd) == 0, "%s: run %d", what, run);
    }
    CHECK(!memcmp(c1, c2, nn * 4), "%s: loaded code computes other bits than the compiled code", what);
    int bad = 0;
    for (size_t i = 0; i < nn; i++)
        bad += !tj_close(c2[i], ref[i], 1e-4f);
    CHECK(bad == 0, "%s: %d of %zu wrong against the reference", what, bad, nn);
    free(a);
    free(b);
    free(c1);
    free(c2);
    free(ref);
    free(spec);
    free(blob);
    spvjit_kernel_free(k);
    spvjit_kernel_free(l);
    if (sm != m)
        spv_module_free(sm);
    spv_module_free(m);
}

TEST_TIER_FREE(jit_object_mm_comp_regions)
{
    mm_roundtrip("kernels/mm.comp.spv", false, false, 16, 45);
}
TEST_TIER_FREE(jit_object_mm_comp_unspecialized_fibers)
{
    mm_roundtrip("kernels/mm.comp.spv", true, true, 8, 30);
}
TEST_TIER_FREE(jit_object_mm_cl_regions)
{
    mm_roundtrip("kernels/mm.cl.spv", false, false, 8, 37);
}

/* --- saxpy.cl: barrier-free, Kernel parameters, a partial last group --------------------- */

TEST_TIER_FREE(jit_object_saxpy_cl_barrier_free)
{
    spv_module *m = tj_load("kernels/saxpy.cl.spv");
    REQUIRE(m, "load");
    const float alpha = 1.375f;
    uint32_t id = 0;
    uint64_t bits = fbits(alpha);
    spv_module *sm = tj_specialize(m, &id, &bits, 1);
    REQUIRE(sm, "specialize");
    spvjit_options o = { .opt_level = 3, .local_size = { 64, 1, 1 } };
    void *blob = NULL;
    size_t len = 0;
    jit_kernel *k = compile_keep(sm, "saxpy", o, &blob, &len);
    REQUIRE(k && blob, "compile: %s", tj_last_error);
    spv_diag d;
    jit_kernel *l = spvjit_load_object(sm, "saxpy", &o, blob, len, &d);
    REQUIRE(l, "load_object: %s", d.msg);
    check_same_facts(k, l, "saxpy.cl");
    CHECK(!spvjit_kernel_facts_of(l)->uses_barriers && spvjit_kernel_wg_range_fn(l), "barrier-free: a wg_range_fn");
    uint64_t s = 515;
    uint32_t n = 1001;
    float *x = rand_floats(&s, n), *y0 = rand_floats(&s, n), *ref = malloc(n * 4);
    float *y1 = malloc(n * 4), *y2 = malloc(n * 4);
    memcpy(ref, y0, n * 4);
    ref_saxpy(alpha, x, ref, n, false); /* saxpy.cl */
    for (int run = 0; run < 2; run++) {
        float *y = run ? y2 : y1;
        memcpy(y, y0, n * 4);
        void *args[3] = { &x, &y, &n };
        tj_dispatch dd = { .args = args, .work_dim = 1, .global_size = { n, 1, 1 } };
        REQUIRE(tj_run(run ? l : k, &dd) == 0, "run %d", run);
    }
    CHECK(!memcmp(y1, y2, n * 4), "loaded code computes other bits than the compiled code");
    int bad = 0;
    for (uint32_t i = 0; i < n; i++)
        bad += !tj_close(y2[i], ref[i], 1e-6f);
    CHECK(bad == 0, "%d of %u wrong", bad, n);
    free(x);
    free(y0);
    free(y1);
    free(y2);
    free(ref);
    free(blob);
    spvjit_kernel_free(k);
    spvjit_kernel_free(l);
    spv_module_free(sm);
    spv_module_free(m);
}

/* --- refusals ------------------------------------------------------------------------------- */

TEST_TIER_FREE(jit_object_refuses_damaged_and_foreign_blobs)
{
    spv_module *m = tj_load("kernels/mm.comp.spv");
    REQUIRE(m, "load");
    uint32_t id = 0;
    uint64_t b16 = 16, b8 = 8;
    spv_module *s16 = tj_specialize(m, &id, &b16, 1), *s8 = tj_specialize(m, &id, &b8, 1);
    REQUIRE(s16 && s8, "specialize");
    spvjit_options o = { .opt_level = 2 };
    void *blob = NULL;
    size_t len = 0;
    jit_kernel *k = compile_keep(s16, NULL, o, &blob, &len);
    REQUIRE(k && blob, "compile: %s", tj_last_error);
    spvjit_kernel_free(k);
    unsigned char *copy = malloc(len);
    spv_diag d;

    /* one flipped byte in the header, in the middle of the object, at its end */
    const size_t where[] = { 0, 12, len / 2, len - 1 };
    for (int i = 0; i < 4; i++) {
        memcpy(copy, blob, len);
        copy[where[i]] ^= 0x41;
        d.msg[0] = 0;
        jit_kernel *l = spvjit_load_object(s16, NULL, &o, copy, len, &d);
        CHECK(!l && strstr(d.msg, "damaged or of another format"), "byte %zu flipped: %s", where[i], d.msg);
        spvjit_kernel_free(l);
    }
    /* truncated, empty */
    const size_t keep[] = { 0, 16, len / 3, len - 1 };
    for (int i = 0; i < 4; i++) {
        d.msg[0] = 0;
        jit_kernel *l = spvjit_load_object(s16, NULL, &o, blob, keep[i], &d);
        CHECK(!l && strstr(d.msg, "damaged"), "truncated to %zu: %s", keep[i], d.msg);
        spvjit_kernel_free(l);
    }
    /* made for BS=16, loaded for BS=8: another local size and work-group memory */
    d.msg[0] = 0;
    jit_kernel *l = spvjit_load_object(s8, NULL, &o, blob, len, &d);
    CHECK(!l && strstr(d.msg, "other facts") && strstr(d.msg, "local size x 16, the module gives 8"),
          "other spec values: %s", d.msg);
    spvjit_kernel_free(l);
    /* compiled into regions, loaded where fibers are asked for, and the reverse */
    spvjit_options fib = o, reg = o;
    fib.barriers = JIT_BARRIER_MODE_FIBERS;
    reg.barriers = JIT_BARRIER_MODE_REGIONS;
    void *fib_blob = NULL;
    size_t fib_len = 0;
    k = compile_keep(s16, NULL, fib, &fib_blob, &fib_len);
    REQUIRE(k && fib_blob, "compile for fibers: %s", tj_last_error);
    spvjit_kernel_free(k);
    for (int way = 0; way < 2; way++) {
        d.msg[0] = 0;
        l = spvjit_load_object(s16, NULL, way ? &reg : &fib, way ? fib_blob : blob, way ? fib_len : len, &d);
        const char *want =
            way ? "runs barriers on fibers; regions were asked for" : "runs barriers as regions; fibers were asked for";
        CHECK(!l && strstr(d.msg, want), "%s: %s", want, d.msg);
        spvjit_kernel_free(l);
    }
    free(fib_blob);
    /* a blob of another module (saxpy) */
    spv_module *sx = tj_load("kernels/saxpy.comp.spv");
    REQUIRE(sx, "load saxpy");
    d.msg[0] = 0;
    l = spvjit_load_object(sx, NULL, &o, blob, len, &d);
    CHECK(!l && strstr(d.msg, "other facts"), "other module: %s", d.msg);
    spvjit_kernel_free(l);
    /* and the intact blob still loads */
    l = spvjit_load_object(s16, NULL, &o, blob, len, &d);
    CHECK(l != NULL, "intact blob: %s", d.msg);
    spvjit_kernel_free(l);
    free(copy);
    free(blob);
    spv_module_free(sx);
    spv_module_free(s16);
    spv_module_free(s8);
    spv_module_free(m);
}
