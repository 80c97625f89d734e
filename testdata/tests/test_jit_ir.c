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

/* A kernel compiled from a file under testdata/, with the modules it came
 * from: spec constant 0 set to bs (0: the module as it is).  k is NULL, a
 * failure recorded, when it does not load or compile. */
typedef struct compiled {
    spv_module *m, *sm;
    jit_kernel *k;
} compiled;

static compiled compile_file(const char *file, uint32_t bs, const spvjit_options *o)
{
    compiled c = { tj_load(file), NULL, NULL };
    CHECK(c.m, "load %s", file);
    uint32_t id = 0;
    uint64_t bits = bs;
    c.sm = c.m && bs ? tj_specialize(c.m, &id, &bits, 1) : c.m;
    c.k = c.sm ? tj_compile(c.sm, NULL, o) : NULL;
    CHECK(!c.m || c.k, "compile %s: %s", file, tj_last_error);
    return c;
}

static void compiled_free(compiled *c)
{
    if (c->k)
        spvjit_kernel_free(c->k);
    if (c->sm && c->sm != c->m)
        spv_module_free(c->sm);
    spv_module_free(c->m);
}

/* Float multiplies (fmul, fmuladd calls) in the optimized IR of the mm kernel. */
static unsigned mm_fmuls(bool unspec, uint32_t bs, tj_texts *t)
{
    spvjit_shape_value shape = { 0, bs };
    spvjit_options o = { .unspecialized = unspec,
                         .opt_level = 3,
                         .tier = JIT_TIER_OPT, /* what the optimizing passes make */
                         .shape_values = &shape,
                         .nshape_values = 1,
                         .emit = tj_keep_text,
                         .emit_user = t,
                         .emit_ir = true,
                         .emit_opt_ir = true,
                         .emit_asm = true };
    compiled c = compile_file("kernels/mm.comp.spv", unspec ? 0 : bs, &o);
    unsigned n = 0;
    if (c.k) {
        const spvjit_kernel_facts *f = spvjit_kernel_facts_of(c.k);
        fprintf(stderr, "  mm.comp %s BS=%u: lower %.1f ms, passes %.1f ms, codegen %.1f ms\n",
                unspec ? "unspecialized" : "specialized", bs, f->ms_lower, f->ms_passes, f->ms_codegen);
        /* scalar multiplies, or vector ones when the work-item loop vectorized;
         * fused with their add (jit/contract.h) or not */
        n = count(t->opt, " fmul ") /* with or without fast-math flags */ + calls_of(t->opt, "@llvm.fmuladd.");
    }
    compiled_free(&c);
    return n;
}

TEST_TIER_FREE(jit_ir_mm_unrolled_when_specialized)
{
    tj_texts a = { 0 }, b = { 0 };
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

/* mm.comp's tile loads and its store carry the mark that every execution
 * lies in the range beginning at the binding (jit.h JIT_INBOUNDS_MD): robust
 * and check, under their bounds checks or proven for the group; unchecked, a
 * trusted kernel's.  Their sub-group accesses are one vector each, with no
 * run-time test that the 32-bit indices do not wrap within the lanes and no
 * gather or scatter behind one (simd_guard.c).  conv3x3.cl's accesses
 * through its arguments are marked too. */
TEST_TIER_FREE(jit_ir_in_bounds_accesses_need_no_wrap_test)
{
    static const jit_memory modes[3] = { JIT_MEMORY_ROBUST, JIT_MEMORY_CHECK, JIT_MEMORY_UNCHECKED };
    for (int k = 0; k < 3; k++) {
        tj_texts t = { 0 };
        spvjit_shape_value shape = { 0, 16 };
        spvjit_options o = { .opt_level = 3,
                             .tier = JIT_TIER_OPT,
                             .memory = modes[k],
                             .shape_values = &shape,
                             .nshape_values = 1,
                             .emit = tj_keep_text,
                             .emit_user = &t,
                             .emit_ir = true,
                             .emit_opt_ir = true };
        compiled c = compile_file("kernels/mm.comp.spv", 16, &o);
        if (c.k) {
            unsigned marks = count(t.ir, "!spvjit.inbounds"), w = spvjit_kernel_facts_of(c.k)->subgroup_size;
            unsigned gathers = calls_of(t.opt, "@llvm.masked.gather.") + calls_of(t.opt, "@llvm.masked.scatter.");
            CHECK(marks >= 3, "memory mode %d: %u accesses marked in bounds (the tile loads and the store)", k, marks);
            CHECK(gathers == 0, "memory mode %d, sub-groups of %u: %u gathers and scatters", k, w, gathers);
        }
        free(t.ir);
        free(t.opt);
        compiled_free(&c);
    }
    /* OpenCL: the accesses through the kernel's arguments too (offset 0 in
     * their ranges, workgroup.c): the taps' load and the store, besides the 8
     * of its Function variables */
    tj_texts t = { 0 };
    spvjit_options o = { .opt_level = 3, .tier = JIT_TIER_OPT, .emit = tj_keep_text, .emit_user = &t, .emit_ir = true };
    o.local_size[0] = o.local_size[1] = 16;
    o.local_size[2] = 1;
    compiled c = compile_file("kernels/conv3x3.cl.spv", 0, &o);
    unsigned marks = count(t.ir, "!spvjit.inbounds");
    CHECK(!c.k || marks >= 10, "conv3x3.cl: %u accesses marked in bounds (10 expected)", marks);
    free(t.ir);
    compiled_free(&c);
}

/* The text of the definition of function `name` (with its "@") in ir, or
 * NULL; free it. */
static char *function_text(const char *ir, const char *name)
{
    char key[128];
    snprintf(key, sizeof key, "%s(", name);
    for (const char *p = ir; p && (p = strstr(p, "\ndefine ")); p++) {
        const char *eol = strchr(p + 1, '\n'), *at = strstr(p, key), *end = strstr(p, "\n}\n");
        if (at && eol && end && at < eol)
            return strndup(p + 1, (size_t)(end - p) + 2);
    }
    return NULL;
}

/* A smaller OpenCL group (the last of a dimension, spvjit.group.partial) runs
 * the work-items of a region that needs no lanes one at a time on the
 * optimized tier too, as the quick tier does (region_loops.c, workgroup.c):
 * no vector function of a partial region, no gather or scatter in it; a
 * region whose sub-group operations need the lanes keeps its vector form, so
 * that the sub-groups of every group have one size.  The function is
 * compiled for size: it runs rarely.  The results with smaller last groups
 * are other tests' (test_api_kernels.c, test_jit_regions.c,
 * test_jit_subgroup.c), on both tiers. */
TEST_TIER_FREE(jit_ir_partial_groups_run_items_one_at_a_time)
{
    static const struct {
        const char *file;
        uint32_t local[2];
        bool lanes; /* a region needs its lanes */
    } cases[] = {
        { "kernels/mm.cl.spv", { 16, 16 }, false },               /* barriers: regions */
        { "kernels/reduce.cl.spv", { 256, 1 }, false },           /* regions */
        { "kernels/conv3x3.cl.spv", { 16, 16 }, false },          /* barrier-free */
        { "kernels/saxpy.cl.spv", { 64, 1 }, false },             /* barrier-free */
        { "../bench/kernels/sgreduce.cl.spv", { 256, 1 }, true }, /* a sub-group reduce */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tj_texts t = { 0 };
        spvjit_options o = { .opt_level = 3,
                             .tier = JIT_TIER_OPT,
                             .emit = tj_keep_text,
                             .emit_user = &t,
                             .emit_ir = true,
                             .emit_opt_ir = true };
        o.local_size[0] = cases[i].local[0];
        o.local_size[1] = cases[i].local[1];
        o.local_size[2] = 1;
        compiled c = compile_file(cases[i].file, 0, &o);
        if (c.k && spvjit_kernel_facts_of(c.k)->subgroup_size > 1) {
            char *partial = function_text(t.opt, "@spvjit.group.partial");
            unsigned vector_fns = count(t.ir, ".partial.simd(") + count(t.ir, "@spvjit.simd.body.sized(");
            unsigned gathers = calls_of(partial, "@llvm.masked.gather.") + calls_of(partial, "@llvm.masked.scatter.");
            CHECK(partial, "%s: no spvjit.group.partial in the optimized IR", cases[i].file);
            if (cases[i].lanes) {
                CHECK(vector_fns > 0, "%s: the partial group's sub-group reduce has no vector function", cases[i].file);
            } else {
                CHECK(vector_fns == 0, "%s: %u vector functions for the partial group", cases[i].file, vector_fns);
                CHECK(gathers == 0, "%s: %u gathers and scatters in the partial group", cases[i].file, gathers);
            }
            /* compiled for size: no loop vectorized (mm.cl had 5) */
            CHECK(count(partial, "\nvector.body") == 0, "%s: the partial group has vector loops", cases[i].file);
            free(partial);
        }
        free(t.ir);
        free(t.opt);
        compiled_free(&c);
    }
}

/* A __local pointer argument's block starts at a multiple of
 * SPVJIT_LOCAL_ARG_ALIGN (jit/abi.h), which the lowering states: the vector
 * code's whole-vector accesses there (reduce.cl's and scan.cl's trees, each
 * lane's s[lid +- stride]) take their lanes from aligned vectors at offsets
 * known when compiling, with no run-time misalignment, whose address-to-
 * integer conversion is the one ptrtoint their full groups had.  The
 * results with the library's and the tests' offsets: test_api_kernels.c,
 * test_jit_regions.c, test_jit_seed.c. */
TEST_TIER_FREE(jit_ir_local_arguments_aligned)
{
    static const char *const files[] = { "kernels/reduce.cl.spv", "../bench/kernels/scan.cl.spv" };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        tj_texts t = { 0 };
        spvjit_options o = {
            .opt_level = 3, .tier = JIT_TIER_OPT, .emit = tj_keep_text, .emit_user = &t, .emit_opt_ir = true
        };
        o.local_size[0] = 256;
        o.local_size[1] = o.local_size[2] = 1;
        compiled c = compile_file(files[i], 0, &o);
        if (c.k && spvjit_kernel_facts_of(c.k)->subgroup_size > 1) {
            char *full = function_text(t.opt, "@spvjit.group.full");
            CHECK(full && count(full, "ptrtoint") == 0, "%s: the full groups compute a misalignment at run time",
                  files[i]);
            free(full);
        }
        free(t.opt);
        compiled_free(&c);
    }
}

/* file compiled on the optimized tier, its optimized IR in t->opt. */
static compiled opt_ir_of(const char *file, tj_texts *t)
{
    spvjit_options o = {
        .opt_level = 3, .tier = JIT_TIER_OPT, .emit = tj_keep_text, .emit_user = t, .emit_opt_ir = true
    };
    return compile_file(file, 0, &o);
}

TEST_TIER_FREE(jit_ir_saxpy_vectorized)
{
    tj_texts t = { 0 };
    compiled c = opt_ir_of("kernels/saxpy.comp.spv", &t);
    if (!c.k) {
        compiled_free(&c);
        return;
    }
    const spvjit_kernel_facts *f = spvjit_kernel_facts_of(c.k);
    fprintf(stderr, "  saxpy.comp: lower %.1f ms, passes %.1f ms, codegen %.1f ms\n", f->ms_lower, f->ms_passes,
            f->ms_codegen);
    /* the work-group loop over 64 items becomes vector code */
    CHECK(t.opt && strstr(t.opt, "x float>"), "no vector float operations in the work-group function");
    free(t.opt);
    compiled_free(&c);
}

/* sgreduce's `gid < n ? src[gid] : 0` loads a sub-group's values under the
 * lanes' compare; every such masked load runs only when the sub-group's last
 * lane is past n (jit/unmask.h): as many tests of the extreme lane as masked
 * loads.  (The sums, bit for bit, with partial sub-groups:
 * jit_subgroup_bench_sgreduce.) */
TEST_TIER_FREE(jit_ir_masked_loads_only_for_partial_sub_groups)
{
    tj_texts t = { 0 };
    compiled c = opt_ir_of("../bench/kernels/sgreduce.comp.spv", &t);
    if (!c.k) {
        compiled_free(&c);
        return;
    }
    unsigned w = spvjit_kernel_facts_of(c.k)->subgroup_size;
    unsigned masked = calls_of(t.opt, "@llvm.masked.load."), tests = count(t.opt, "br i1 %lanes.all");
    CHECK(w == 1 || (masked >= 1 && tests == masked), "sub-groups of %u: %u masked loads, %u tests of the last lane", w,
          masked, tests);
    free(t.opt);
    compiled_free(&c);
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

/* The unroll hint ("full", "disable") of the loop whose back edge is the
 * line p points into, or NULL: its llvm.loop node's operands, looked up in
 * the module's metadata. */
static const char *unroll_hint(const char *ir, const char *p)
{
    const char *eol = strchr(p, '\n'), *loop = strstr(p, "!llvm.loop !");
    if (!loop || (eol && loop > eol))
        return NULL;
    char key[32];
    snprintf(key, sizeof key, "\n!%ld = distinct !{", strtol(loop + strlen("!llvm.loop !"), NULL, 10));
    const char *node = strstr(ir, key);
    if (!node)
        return NULL;
    node += strlen(key);
    for (const char *op = strchr(node, '!'); op && op < strchr(node, '}'); op = strchr(op + 1, '!')) {
        snprintf(key, sizeof key, "\n!%ld = !{!\"", strtol(op + 1, NULL, 10));
        const char *str = strstr(ir, key);
        if (str && !strncmp(str + strlen(key), "llvm.loop.unroll.full\"", 22))
            return "full";
        if (str && !strncmp(str + strlen(key), "llvm.loop.unroll.disable\"", 25))
            return "disable";
    }
    return NULL;
}

/* How the loops over a barrier region's sub-groups unroll
 * (jit/region_loops.c), from what the region's vector function does with
 * work-group memory: only a small region that loads there in whole vectors
 * (the misalignment and the lanes a load picks fold per copy) may be
 * unrolled, if it branches apart by lane; a large one that stores there and
 * does not load it keeps its loop (copies that share nothing).  reduce's
 * first region, `s[lid] = gid < n ? src[gid] : 0`, only stores; a later one
 * reads s[].  mm's tile copies at block size 8, 8 sub-groups that LLVM would
 * unroll itself, only store; its k loop reads the tiles.  Returns the
 * regions of each hint and the sub-group size (1: no vector functions,
 * nothing to check). */
static unsigned subgroup_hints(const char *file, uint32_t bs, unsigned *full, unsigned *disable, const char **first)
{
    *full = *disable = 0;
    *first = "none";
    tj_texts t = { 0 };
    spvjit_options o = { .opt_level = 3, .tier = JIT_TIER_OPT, .emit = tj_keep_text, .emit_user = &t, .emit_ir = true };
    compiled c = compile_file(file, bs, &o);
    unsigned width = c.k ? spvjit_kernel_facts_of(c.k)->subgroup_size : 1;
    for (unsigned r = 0; c.k && t.ir; r++) {
        char name[64];
        snprintf(name, sizeof name, "@spvjit.region.%u.simd(", r);
        const char *def = strstr(t.ir, name), *call = strstr(t.ir, name);
        while (def && !line_has(t.ir, def, "define", true))
            def = strstr(def + 1, name);
        while (call && !line_has(t.ir, call, " call ", false))
            call = strstr(call + 1, name);
        if (!def || !call)
            break;
        const char *end = strstr(def, "\n}\n");
        bool loads = false, vector_loads = false, stores = false;
        for (const char *p = strstr(def, "!spvjit.wg"); p && end && p < end; p = strstr(p + 1, "!spvjit.wg")) {
            bool load = line_has(t.ir, p, " = load ", false);
            loads |= load;
            vector_loads |= load && line_has(t.ir, p, " = load <", false);
            stores |= line_has(t.ir, p, "  store ", true);
        }
        const char *back = strstr(call, "\n  br i1 "); /* the loop's back edge */
        const char *hint = back ? unroll_hint(t.ir, back + 1) : NULL;
        CHECK(!hint || strcmp(hint, "full") || vector_loads,
              "%s region %u: sub-groups unrolled without a whole-vector load of work-group memory", file, r);
        CHECK(!hint || strcmp(hint, "disable") || (stores && !loads),
              "%s region %u: loads %d, stores %d: its loop kept, yet it loads work-group memory or does not store",
              file, r, loads, stores);
        *full += hint && !strcmp(hint, "full");
        *disable += hint && !strcmp(hint, "disable");
        if (r == 0)
            *first = hint ? hint : "none";
    }
    free(t.ir);
    compiled_free(&c);
    return width;
}

TEST_TIER_FREE(jit_ir_subgroup_loops_unroll_by_work_group_memory)
{
    unsigned full, disable;
    const char *first;
    unsigned w = subgroup_hints("kernels/reduce.comp.spv", 0, &full, &disable, &first);
    CHECK(w == 1 || (strcmp(first, "full") && full >= 1), "reduce: first region's hint %s, %u regions unrolled", first,
          full);
    w = subgroup_hints("kernels/mm.comp.spv", 8, &full, &disable, &first);
    CHECK(w == 1 || (!strcmp(first, "disable") && disable >= 2), "mm BS=8: first region's hint %s, %u loops kept",
          first, disable);
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
    tj_texts t = { 0 };
    spvjit_options o = { .opt_level = 3, .tier = a->tier, .emit = tj_keep_text, .emit_user = &t, .emit_asm = true };
    jit_kernel *k = tj_compile(a->m, NULL, &o);
    if (k)
        spvjit_kernel_free(k);
    a->text = t.asm_;
    return NULL;
}

TEST_TIER_FREE(jit_ir_same_assembly_from_a_reused_target_machine)
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
