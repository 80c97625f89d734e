/* testdata/tests/test_jit_ir.c — what the optimizer makes of specialization:
 * the blocked matrix multiply's inner k loop (trip count BS) is fully unrolled
 * when BS is a literal, and stays a loop when BS is read at run time; plus the
 * emit hooks, the compile-time split, and the same code from a thread's
 * reused target machine. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "test_jit_util.h"

typedef struct texts {
    char *ir, *opt, *asm_;
} texts;

static void keep(void *user, const char *what, const char *text)
{
    texts *t = user;
    char **slot = strcmp(what, "ir") == 0 ? &t->ir : strcmp(what, "opt-ir") == 0 ? &t->opt : &t->asm_;
    free(*slot);
    *slot = strdup(text);
}

static unsigned count(const char *s, const char *needle)
{
    unsigned n = 0;
    for (const char *p = s; p && (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* The lines of ir that call `fn` (not its declaration). */
static unsigned calls_of(const char *ir, const char *fn)
{
    unsigned n = 0;
    for (const char *p = ir; p && (p = strstr(p, fn)); p += strlen(fn)) {
        const char *line = p;
        while (line > ir && line[-1] != '\n')
            line--;
        n += strncmp(line, "declare", 7) != 0;
    }
    return n;
}

/* Float multiplies (fmul, fmuladd calls) in the optimized IR of the mm kernel. */
static unsigned mm_fmuls(bool unspec, uint32_t bs, texts *t)
{
    spv_module *m = tj_load("kernels/mm.comp.spv");
    if (!m)
        return 0;
    uint32_t id = 0;
    uint64_t bits = bs;
    spv_module *sm = unspec ? m : tj_specialize(m, &id, &bits, 1);
    spvjit_shape_value shape = { 0, bs };
    spvjit_options o = { .unspecialized = unspec,
                         .opt_level = 3,
                         .tier = JIT_TIER_OPT, /* what the optimizing passes make */
                         .shape_values = &shape,
                         .nshape_values = 1,
                         .emit = keep,
                         .emit_user = t,
                         .emit_ir = true,
                         .emit_opt_ir = true,
                         .emit_asm = true };
    jit_kernel *k = sm ? tj_compile(sm, NULL, &o) : NULL;
    unsigned n = 0;
    if (k) {
        const spvjit_kernel_facts *f = spvjit_kernel_facts_of(k);
        fprintf(stderr, "  mm.comp %s BS=%u: lower %.1f ms, passes %.1f ms, codegen %.1f ms\n",
                unspec ? "unspecialized" : "specialized", bs, f->ms_lower, f->ms_passes, f->ms_codegen);
        /* scalar multiplies, or vector ones when the work-item loop vectorized;
         * fused with their add (jit/contract.h) or not */
        n = count(t->opt, " fmul ") /* with or without fast-math flags */ + calls_of(t->opt, "@llvm.fmuladd.");
        spvjit_kernel_free(k);
    }
    if (sm && sm != m)
        spv_module_free(sm);
    spv_module_free(m);
    return n;
}

TEST(jit_ir_mm_unrolled_when_specialized)
{
    texts a = { 0 }, b = { 0 };
    unsigned spec = mm_fmuls(false, 16, &a);
    unsigned unspec = mm_fmuls(true, 16, &b);
    CHECK(spec >= 16, "specialized BS=16: %u fmuls in the optimized IR (k loop not unrolled?)", spec);
    CHECK(unspec > 0 && unspec < 16, "unspecialized: %u fmuls (expected a loop)", unspec);
    /* barrier kernels: the work-item function, or the work-group function of the barrier regions */
    CHECK(a.ir && (strstr(a.ir, "@spvjit_item") || strstr(a.ir, "@spvjit_wg")), "lowered IR emitted");
    CHECK(a.asm_ && strlen(a.asm_) > 100, "assembly emitted");
    /* the unspecialized module keeps a loop back-edge on the k loop: a phi of
     * the accumulator (a vector of one per lane with sub-groups) */
    CHECK(b.opt && (strstr(b.opt, "phi float") || strstr(b.opt, " x float> [")),
          "unspecialized keeps a float accumulator phi");
    free(a.ir);
    free(a.opt);
    free(a.asm_);
    free(b.ir);
    free(b.opt);
    free(b.asm_);
}

/* file (under testdata/) compiled on the optimized tier, its optimized IR in
 * t->opt; NULL (a failure recorded) when it does not compile.  *m: the
 * module, for the caller to free with the kernel. */
static jit_kernel *opt_ir_of(const char *file, texts *t, spv_module **m)
{
    *m = tj_load(file);
    CHECK(*m, "load %s", file);
    spvjit_options o = { .opt_level = 3, .tier = JIT_TIER_OPT, .emit = keep, .emit_user = t, .emit_opt_ir = true };
    jit_kernel *k = *m ? tj_compile(*m, NULL, &o) : NULL;
    CHECK(!*m || k, "compile %s: %s", file, tj_last_error);
    return k;
}

TEST(jit_ir_saxpy_vectorized)
{
    texts t = { 0 };
    spv_module *m;
    jit_kernel *k = opt_ir_of("kernels/saxpy.comp.spv", &t, &m);
    if (!k) {
        spv_module_free(m);
        return;
    }
    const spvjit_kernel_facts *f = spvjit_kernel_facts_of(k);
    fprintf(stderr, "  saxpy.comp: lower %.1f ms, passes %.1f ms, codegen %.1f ms\n", f->ms_lower, f->ms_passes,
            f->ms_codegen);
    /* the work-group loop over 64 items becomes vector code */
    CHECK(t.opt && strstr(t.opt, "x float>"), "no vector float operations in the work-group function");
    free(t.opt);
    spvjit_kernel_free(k);
    spv_module_free(m);
}

/* sgreduce's `gid < n ? src[gid] : 0` loads a sub-group's values under the
 * lanes' compare; every such masked load runs only when the sub-group's last
 * lane is past n (jit/unmask.h): as many tests of the extreme lane as masked
 * loads.  (The sums, bit for bit, with partial sub-groups:
 * jit_subgroup_bench_sgreduce.) */
TEST(jit_ir_masked_loads_only_for_partial_sub_groups)
{
    texts t = { 0 };
    spv_module *m;
    jit_kernel *k = opt_ir_of("../bench/kernels/sgreduce.comp.spv", &t, &m);
    if (!k) {
        spv_module_free(m);
        return;
    }
    unsigned w = spvjit_kernel_facts_of(k)->subgroup_size;
    unsigned masked = calls_of(t.opt, "@llvm.masked.load."), tests = count(t.opt, "br i1 %lanes.all");
    CHECK(w == 1 || (masked >= 1 && tests == masked), "sub-groups of %u: %u masked loads, %u tests of the last lane", w,
          masked, tests);
    free(t.opt);
    spvjit_kernel_free(k);
    spv_module_free(m);
}

/* Whether the line of text that p points into has `needle` (at its start: `at_start`). */
static bool line_has(const char *text, const char *p, const char *needle, bool at_start)
{
    const char *a = p, *b = strchr(p, '\n');
    while (a > text && a[-1] != '\n')
        a--;
    char *line = strndup(a, b ? (size_t)(b - a) : strlen(a));
    const char *at = line ? strstr(line, needle) : NULL;
    bool has = at && (!at_start || at == line);
    free(line);
    return has;
}

/* Which barrier regions run their sub-groups unrolled (jit/region_loops.c):
 * only those whose vector function loads work-group memory in whole vectors,
 * where the misalignment and the lanes a load picks fold in each copy.
 * reduce's first region, `s[lid] = gid < n ? src[gid] : 0`, only stores
 * there and keeps its loop over the sub-groups; a later one, reading s[],
 * is unrolled.  (Both tiers' results: the reduce kernel tests.) */
TEST(jit_ir_subgroups_unrolled_only_for_work_group_loads)
{
    spv_module *m = tj_load("kernels/reduce.comp.spv");
    REQUIRE(m, "load");
    texts t = { 0 };
    spvjit_options o = { .opt_level = 3, .tier = JIT_TIER_OPT, .emit = keep, .emit_user = &t, .emit_ir = true };
    jit_kernel *k = tj_compile(m, NULL, &o);
    CHECK(k, "compile: %s", tj_last_error);
    unsigned w = k ? spvjit_kernel_facts_of(k)->subgroup_size : 1, unrolled = 0;
    for (unsigned r = 0; k && w > 1 && t.ir; r++) {
        char name[64];
        snprintf(name, sizeof name, "@spvjit.region.%u.simd(", r);
        const char *def = strstr(t.ir, name), *call = strstr(t.ir, name);
        while (def && !line_has(t.ir, def, "define", true))
            def = strstr(def + 1, name);
        while (call && !line_has(t.ir, call, " call ", false))
            call = strstr(call + 1, name);
        if (!def || !call) {
            CHECK(r == 3, "reduce has %u regions with vector functions called, expected 3", r);
            break;
        }
        const char *end = strstr(def, "\n}\n");
        bool loads = false;
        for (const char *p = strstr(def, " = load <"); p && end && p < end && !loads; p = strstr(p + 1, " = load <"))
            loads = line_has(t.ir, p, "!spvjit.wg", false);
        const char *back = strstr(call, "\n  br i1 "); /* the loop's back edge */
        bool hinted = back && line_has(t.ir, back + 1, "!llvm.loop", false);
        CHECK(!hinted || loads, "region %u: sub-groups unrolled without a whole-vector load of work-group memory", r);
        CHECK(r != 0 || (!loads && !hinted), "region 0 (stores only): loads %d, unrolled %d", loads, hinted);
        unrolled += hinted;
    }
    CHECK(w == 1 || unrolled >= 1, "sub-groups of %u: no region unrolled over them", w);
    free(t.ir);
    if (k)
        spvjit_kernel_free(k);
    spv_module_free(m);
}

/* A thread keeps its target machines from one compile to the next
 * (jit/optimize.c): compiles of conv3x3 at both tiers, in turn, give the
 * assembly that a thread of its own, whose first compile makes new ones,
 * gives. */
typedef struct asm_of {
    spv_module *m;
    jit_tier tier;
    char *text;
} asm_of;

static void *compile_asm(void *user)
{
    asm_of *a = user;
    texts t = { 0 };
    spvjit_options o = { .opt_level = 3, .tier = a->tier, .emit = keep, .emit_user = &t, .emit_asm = true };
    jit_kernel *k = tj_compile(a->m, NULL, &o);
    if (k)
        spvjit_kernel_free(k);
    a->text = t.asm_;
    return NULL;
}

TEST(jit_ir_same_assembly_from_a_reused_target_machine)
{
    spv_module *m = tj_load("kernels/conv3x3.comp.spv");
    REQUIRE(m, "load");
    for (jit_tier tier = JIT_TIER_QUICK; tier <= JIT_TIER_OPT; tier++) {
        asm_of fresh = { .m = m, .tier = tier };
        pthread_t th;
        REQUIRE(pthread_create(&th, NULL, compile_asm, &fresh) == 0, "thread");
        pthread_join(th, NULL);
        for (int round = 0; round < 2; round++) {
            asm_of other = { .m = m, .tier = tier == JIT_TIER_OPT ? JIT_TIER_QUICK : JIT_TIER_OPT };
            asm_of again = { .m = m, .tier = tier };
            compile_asm(&other);
            compile_asm(&again);
            CHECK(fresh.text && other.text && again.text && strcmp(fresh.text, again.text) == 0,
                  "tier %d, round %d: the assembly differs from the fresh thread's", (int)tier, round);
            free(other.text);
            free(again.text);
        }
        free(fresh.text);
    }
    spv_module_free(m);
}
