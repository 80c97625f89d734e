/* testdata/tests/test_jit_barrier_path.c — the barrier intrinsic
 * (jit/barrier_intrinsic.h) and the chooser between barrier regions and fibers
 * (jit/barrier_path.h).
 *
 * The intrinsic must be a fence LLVM respects: after O3, a load after it is
 * not replaced by the value stored before it, and neither store around it is
 * removed, where the same function without it loses both (the control shows
 * the check can fail).  The chooser must say which path a kernel took and why,
 * in the first line of the emitted text: regions for the seed kernels, fibers
 * when asked, when the local size is unknown, when the group is too large or
 * its per-item arrays do not fit; and the fiber path's code calls ctx->barrier
 * with no intrinsic left. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "harness.h"
#include "jit/barrier_intrinsic.h"
#include "jit/jit_internal.h"
#include "test_ir_util.h"
#include "test_jit_util.h"

/* f(ctx, p, q): *p = 1; [barrier 0]; *q = *p; *p = 2; [barrier 1]; *p = 3 */
static LLVMValueRef build_fence_test(LLVMModuleRef mod, const char *name, bool barriers)
{
    LLVMContextRef llc = LLVMGetModuleContext(mod);
    LLVMTypeRef ptr = LLVMPointerTypeInContext(llc, 0), i32 = LLVMInt32TypeInContext(llc);
    LLVMTypeRef params[3] = { ptr, ptr, ptr };
    LLVMValueRef fn = LLVMAddFunction(mod, name, LLVMFunctionType(LLVMVoidTypeInContext(llc), params, 3, 0));
    LLVMValueRef ctx = LLVMGetParam(fn, 0), p = LLVMGetParam(fn, 1), q = LLVMGetParam(fn, 2);
    LLVMSetValueName2(p, "p", 1);
    LLVMSetValueName2(q, "q", 1);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(llc);
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(llc, fn, "entry"));
    LLVMValueRef barrier = jit_barrier_declare(mod);
    LLVMTypeRef bt = LLVMGlobalGetValueType(barrier);
    LLVMBuildStore(b, LLVMConstInt(i32, 1, 0), p);
    if (barriers)
        LLVMBuildCall2(b, bt, barrier, (LLVMValueRef[]){ ctx, LLVMConstInt(i32, 0, 0) }, 2, "");
    LLVMBuildStore(b, LLVMBuildLoad2(b, i32, p, "v"), q);
    LLVMBuildStore(b, LLVMConstInt(i32, 2, 0), p);
    if (barriers)
        LLVMBuildCall2(b, bt, barrier, (LLVMValueRef[]){ ctx, LLVMConstInt(i32, 1, 0) }, 2, "");
    LLVMBuildStore(b, LLVMConstInt(i32, 3, 0), p);
    LLVMBuildRetVoid(b);
    LLVMDisposeBuilder(b);
    return fn;
}

/* Position of needle in text, or -1. */
static long at(const char *text, const char *needle)
{
    const char *p = strstr(text, needle);
    return p ? p - text : -1;
}

TEST_TIER_FREE(barrier_intrinsic_is_a_fence)
{
    LLVMContextRef llc = LLVMContextCreate();
    LLVMModuleRef mod = LLVMModuleCreateWithNameInContext("fence", llc);
    build_fence_test(mod, "with", true);
    build_fence_test(mod, "without", false);
    LLVMValueRef decl = jit_barrier_function(mod);
    REQUIRE(decl, "no barrier declaration");
    /* convergent nounwind, and nothing that lets LLVM move memory across it */
    const char *must[] = { "convergent", "nounwind" }, *must_not[] = { "memory", "nosync", "willreturn", "nocallback" };
    for (int i = 0; i < 2; i++)
        CHECK(LLVMGetEnumAttributeAtIndex(decl, LLVMAttributeFunctionIndex,
                                          LLVMGetEnumAttributeKindForName(must[i], strlen(must[i]))),
              "the barrier is not %s", must[i]);
    for (int i = 0; i < 4; i++)
        CHECK(!LLVMGetEnumAttributeAtIndex(decl, LLVMAttributeFunctionIndex,
                                           LLVMGetEnumAttributeKindForName(must_not[i], strlen(must_not[i]))),
              "the barrier has %s", must_not[i]);
    LLVMPassBuilderOptionsRef o = LLVMCreatePassBuilderOptions();
    LLVMErrorRef e = LLVMRunPasses(mod, "default<O3>", NULL, o);
    LLVMDisposePassBuilderOptions(o);
    REQUIRE(!e, "O3 failed");
    char *with = tir_print(LLVMGetNamedFunction(mod, "with"));
    char *without = tir_print(LLVMGetNamedFunction(mod, "without"));
    /* the control: without barriers the load is forwarded and the store of 2 is dead */
    CHECK(at(without, "load i32") < 0 && at(without, "store i32 2") < 0, "control not optimized:\n%s", without);
    long s1 = at(with, "store i32 1, ptr %p"), b0 = at(with, "i32 0)"), ld = at(with, "load i32, ptr %p");
    long s2 = at(with, "store i32 2, ptr %p"), b1 = at(with, "i32 1)"), s3 = at(with, "store i32 3, ptr %p");
    CHECK(s1 >= 0 && s1 < b0 && b0 < ld && ld < s2 && s2 < b1 && b1 < s3,
          "memory moved across a barrier (positions %ld %ld %ld %ld %ld %ld):\n%s", s1, b0, ld, s2, b1, s3, with);
    free(with);
    free(without);
    LLVMDisposeModule(mod);
    LLVMContextDispose(llc);
}

/* --- the chooser, through the compiler ----------------------------------------------------- */

/* Compiles file's entry (specialized with spec id 0 = spec0 when non-zero)
 * and checks the first line of the lowered IR, and which functions exist. */
static void path_case(const char *file, const char *entry, uint32_t spec0, spvjit_options o, const char *want)
{
    spv_module *m = tj_load(file), *sm = m;
    REQUIRE(m, "load %s", file);
    if (spec0) {
        uint32_t id = 0;
        uint64_t bits = spec0;
        sm = tj_specialize(m, &id, &bits, 1);
        REQUIRE(sm, "specialize");
    }
    tj_texts t = { 0 };
    o.opt_level = 3;
    o.emit = tj_keep_text;
    o.emit_user = &t;
    o.emit_ir = true;
    jit_kernel *k = tj_compile(sm, entry, &o);
    REQUIRE(k, "compile %s: %s", file, tj_last_error);
    const spvjit_kernel_facts *f = spvjit_kernel_facts_of(k);
    char line[512] = "";
    if (t.ir)
        snprintf(line, sizeof line, "%.*s", (int)strcspn(t.ir, "\n"), t.ir);
    CHECK(!strncmp(line, "; spvjit: ", 10) && strstr(line, want), "%s: first line '%s', expected '%s'", file, line,
          want);
    unsigned w = 1;
    const char *sg = strstr(line, "sub-groups of ");
    if (sg)
        sscanf(sg, "sub-groups of %u", &w);
    CHECK(f->subgroup_size == w, "%s: facts say sub-groups of %u, the first line %u", file, f->subgroup_size, w);
    bool regions = strstr(want, "compiled into") != NULL, fibers = strstr(want, "on fibers") != NULL;
    CHECK(f->barrier_regions == regions && (spvjit_kernel_item_fn(k) != NULL) == fibers &&
              (spvjit_kernel_wg_range_fn(k) != NULL) == !fibers,
          "%s: facts say regions %d, item_fn %p", file, f->barrier_regions, (void *)spvjit_kernel_item_fn(k));
    /* no intrinsic is left; the fiber path calls ctx->barrier (an indirect call) */
    CHECK(t.ir && !strstr(t.ir, "spvjit.barrier"), "%s: the barrier intrinsic is left", file);
    if (fibers)
        CHECK(t.ir && strstr(t.ir, "call void %"), "%s: no indirect barrier call on the fiber path", file);
    if (regions)
        CHECK(t.ir && strstr(t.ir, "spvjit.resume.sites") && !strstr(t.ir, "@spvjit_item("),
              "%s: regions without the region machine, or with spvjit_item", file);
    free(t.ir);
    free(t.opt);
    spvjit_kernel_free(k);
    if (sm != m)
        spv_module_free(sm);
    spv_module_free(m);
}

TEST(barrier_path_regions)
{
    path_case("kernels/mm.comp.spv", NULL, 16, (spvjit_options){ 0 },
              "barriers compiled into 3 region loops (2 barrier sites; 2 per-item slots and next[]: 3072 bytes per "
              "group)");
    /* no per-item slot: the bounds check of s[lid] against the __local
     * argument's size (llvm.usub.sat of it) is recomputed after each barrier */
    path_case("kernels/reduce.cl.spv", "reduce", 0, (spvjit_options){ .local_size = { 64, 1, 1 } },
              "barriers compiled into 3 region loops (2 barrier sites; 0 per-item slots and next[]: 256 bytes per "
              "group)");
}

TEST(barrier_path_fibers_and_why)
{
    path_case("kernels/mm.comp.spv", NULL, 16, (spvjit_options){ .barriers = JIT_BARRIER_MODE_FIBERS },
              "barriers on fibers: asked for");
    path_case("kernels/reduce.cl.spv", "reduce", 0, (spvjit_options){ 0 },
              "barriers on fibers: the local size is not known at compile time");
    path_case("jit/regions_big_slots.comp.spv", NULL, 4096, (spvjit_options){ 0 },
              "barriers on fibers: no barrier regions: 1 per-item slots and next[] would take 1327104 bytes per "
              "group (more than 1048576)");
    path_case("kernels/saxpy.comp.spv", NULL, 0, (spvjit_options){ .simd = JIT_SIMD_OFF },
              "no work-group barriers: spvjit_wg_range loops over the work-items; work-items one at a time (sub-groups "
              "of 1)");
}

/* The same line says how the work-items run: as sub-groups of SIMD lanes of
 * the host's native width by default, of the width asked for, or one at a
 * time (simd off, fibers, and the quick tier for a kernel that cannot observe
 * its sub-groups); the facts carry the sub-group size. */
TEST(barrier_path_subgroups)
{
    char want[320];
    snprintf(want, sizeof want, "spvjit_wg_range loops over the work-items; sub-groups of %u work-items as SIMD lanes",
             jit_host_lanes32());
    path_case("kernels/saxpy.comp.spv", NULL, 0, (spvjit_options){ .tier = JIT_TIER_OPT }, want);
    path_case("kernels/saxpy.comp.spv", NULL, 0, (spvjit_options){ .tier = JIT_TIER_QUICK },
              "spvjit_wg_range loops over the work-items; work-items one at a time (sub-groups of 1): the quick tier "
              "keeps vectors for kernels that observe their sub-groups");
    path_case("kernels/reduce.comp.spv", NULL, 0, (spvjit_options){ .tier = JIT_TIER_QUICK },
              "barriers compiled into 3 region loops (2 barrier sites; 0 per-item slots and next[]: 1024 bytes per "
              "group); work-items one at a time (sub-groups of 1): the quick tier keeps vectors for kernels that "
              "observe their sub-groups");
    /* one that observes them has the same sub-groups on both tiers; the quick
     * tier runs the region that only reads the sub-groups' count (sgreduce's
     * sum of the sub-group sums) work-item by work-item */
    snprintf(want, sizeof want,
             "barriers compiled into 2 region loops (1 barrier site; 0 per-item slots and next[]: 1024 bytes per "
             "group); sub-groups of %u work-items as SIMD lanes",
             jit_host_lanes32());
    path_case("../bench/kernels/sgreduce.comp.spv", NULL, 0, (spvjit_options){ .tier = JIT_TIER_OPT }, want);
    strcat(want, ", 1 of 2 regions work-item by work-item (no operation across lanes)");
    path_case("../bench/kernels/sgreduce.comp.spv", NULL, 0, (spvjit_options){ .tier = JIT_TIER_QUICK }, want);
    path_case("kernels/saxpy.comp.spv", NULL, 0, (spvjit_options){ .tier = JIT_TIER_QUICK, .subgroup_size = 4 },
              "spvjit_wg_range loops over the work-items; sub-groups of 4 work-items as SIMD lanes");
    path_case("kernels/saxpy.comp.spv", NULL, 0, (spvjit_options){ .subgroup_size = 4 },
              "spvjit_wg_range loops over the work-items; sub-groups of 4 work-items as SIMD lanes");
    path_case("kernels/mm.comp.spv", NULL, 16, (spvjit_options){ .subgroup_size = 8 },
              "barriers compiled into 3 region loops (2 barrier sites; 2 per-item slots and next[]: 3072 bytes per "
              "group); sub-groups of 8 work-items as SIMD lanes");
    path_case("kernels/mm.comp.spv", NULL, 16, (spvjit_options){ .barriers = JIT_BARRIER_MODE_FIBERS },
              "barriers on fibers: asked for (the barriers option, SPVJIT_BARRIERS=fibers); work-items one at a time "
              "(sub-groups of 1): barriers on fibers");
}

/* `spvjit compile --emit asm` starts with the reason as an assembler comment. */
TEST(barrier_path_in_emitted_asm)
{
    const char *b = getenv("SPVJIT_BIN");
    char cmd[2048], *out = NULL;
    snprintf(cmd, sizeof cmd, "%s compile '%s' -D 0=16 --emit asm 2>&1", b ? b : "build/spvjit",
             test_data_path("kernels/mm.comp.spv"));
    REQUIRE(test_run_capture(cmd, &out) == 0, "compile: %s", out ? out : "");
#if defined(__aarch64__)
    const char *want = "// spvjit: barriers compiled into 3 region loops";
#else
    const char *want = "# spvjit: barriers compiled into 3 region loops";
#endif
    CHECK(out && !strncmp(out, want, strlen(want)), "first line: %.120s", out ? out : "");
    free(out);
}
