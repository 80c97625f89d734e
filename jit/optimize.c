/* jit/optimize.c — the host target machine and the LLVM pass pipelines.
 *
 * The target is the host CPU with all its features (LLVMGetHostCPUName /
 * LLVMGetHostCPUFeatures, asked once per process), so vector widths match
 * the machine.  Two tiers (jit_level):
 *  - quick: the functions called once moved into their callers
 *    (inline_once.h), the inliner for the other always-inline helpers the
 *    lowering makes, then SROA, early CSE, InstSimplify and SimplifyCFG per
 *    function (enough to turn the lowering's stack slots into registers)
 *    and loop rotation, and code generation at CodeGenOpt::None (FastISel,
 *    the fast register allocator; what it cannot select is rewritten last,
 *    quick_isel.h, and counted loops that write one address every trip
 *    unrolled, quick_unroll.h).  A few
 *    milliseconds for the seed kernels; the code runs 2-60x slower.
 *  - optimized (0..3): LLVM's default<On>, with loop and SLP vectorization
 *    and loop unrolling on from -O2.
 */
#include "jit_internal.h"

#include "inline_once.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <llvm-c/Support.h>
#include <llvm-c/Transforms/PassBuilder.h>

/* What the host is, asked once: LLVM's detection reads /proc/cpuinfo and
 * cpuid, too slow to repeat for every kernel. */
static struct {
    int failed;
    LLVMTargetRef target;
    char *triple, *cpu, *features;
    unsigned lanes32; /* jit_host_lanes32 */
} host;
static pthread_once_t host_once = PTHREAD_ONCE_INIT;

/* One of LLVM's code generation settings, which only its command-line
 * options reach (Mesa's drivers set theirs so too).  Both instruction
 * schedulers build a graph of each block, tracking every memory access
 * against the others until dag-maps-huge-region of them (LLVM's default
 * 1000) before they reduce their maps: a cost that grows with the square of
 * a block.  A sub-group's scattered stores at 32 lanes, split into 8-lane
 * AVX2 vectors and scalarized, make blocks of thousands of instructions:
 * subgroup_ops.comp's optimized build took 3.1 s, 85% of its code
 * generation in the two schedulers, and takes 0.9 s at 200.  No seed
 * kernel's assembly changes (both flavours).  It is a setting of the LLVM
 * the library runs on: its own in libspvjit.so and the command, the host's
 * in a program that links libspvjit.a with libLLVM.so (README, Embedding). */
static void set_codegen_options(void)
{
    static const char *const argv[] = { "spvjit", "-dag-maps-huge-region=200" };
    LLVMParseCommandLineOptions((int)(sizeof argv / sizeof argv[0]), argv, NULL);
}

static void init_host(void)
{
    set_codegen_options();
    if (LLVMInitializeNativeTarget() || LLVMInitializeNativeAsmPrinter() || LLVMInitializeNativeAsmParser()) {
        host.failed = 1;
        return;
    }
    host.triple = LLVMGetDefaultTargetTriple();
    host.cpu = LLVMGetHostCPUName();
    host.features = LLVMGetHostCPUFeatures();
    const char *f = host.features ? host.features : "";
    host.lanes32 = strstr(f, "+avx512f") ? 16 : strstr(f, "+avx2") ? 8 : 4; /* else SSE, NEON */
    char *err = NULL;
    if (LLVMGetTargetFromTriple(host.triple, &host.target, &err)) {
        host.failed = 2;
        LLVMDisposeMessage(err);
    }
}

int jit_level(const spvjit_options *o)
{
    return o->tier == JIT_TIER_QUICK ? JIT_LEVEL_QUICK : o->opt_level < 0 ? 0 : o->opt_level > 3 ? 3 : o->opt_level;
}

static LLVMCodeGenOptLevel codegen_level(int level)
{
    return level <= 0   ? LLVMCodeGenLevelNone /* also JIT_LEVEL_QUICK */
           : level == 1 ? LLVMCodeGenLevelLess
           : level == 2 ? LLVMCodeGenLevelDefault
                        : LLVMCodeGenLevelAggressive;
}

/* The small code model where the process's JIT links with JITLink (ORC's
 * choice on x86-64 ELF, emit.c): one object's sections go into one block of
 * memory, and it makes stubs for the calls and addresses outside it.  Then
 * an address is RIP-relative, where the large model (LLVM's JIT default)
 * loads a 64-bit constant for each, and FastISel can select the globals
 * (it cannot in the large model: every instruction that uses one, and the
 * rest of its block, went to SelectionDAG).  Elsewhere, the JIT default. */
static LLVMCodeModel code_model(void)
{
    return !strncmp(host.triple, "x86_64-", 7) && strstr(host.triple, "-linux") ? LLVMCodeModelSmall
                                                                                : LLVMCodeModelJITDefault;
}

LLVMTargetMachineRef jit_host_target_machine(int level, spv_diag *diag)
{
    pthread_once(&host_once, init_host);
    if (host.failed) {
        spv_fail(diag,
                 host.failed == 1 ? "LLVM: the native target is not available"
                                  : "LLVM: no target for the host triple %s",
                 host.triple ? host.triple : "?");
        return NULL;
    }
    LLVMTargetMachineRef tm = LLVMCreateTargetMachine(host.target, host.triple, host.cpu, host.features,
                                                      codegen_level(level), LLVMRelocPIC, code_model());
    if (!tm)
        spv_fail(diag, "LLVM: could not create a target machine for the host");
    return tm;
}

/* Each thread's target machines, one per code generation level, kept for
 * the thread's later compiles: a new one cost about a millisecond a build
 * (its creation, and the subtarget it makes on first use), a quarter of
 * saxpy's quick build.  Per thread, because a target machine is not safe to
 * use from two threads at once (ORC, too, gives each compile thread its
 * own); _Thread_local, so that they stay reachable while the thread lives,
 * and the key's destructor disposes of them when it ends. */
enum { NLEVELS = 4 };
static _Thread_local LLVMTargetMachineRef thread_tm[NLEVELS];
static pthread_key_t thread_tm_key;
static pthread_once_t thread_tm_once = PTHREAD_ONCE_INIT;
static bool thread_tm_keyed; /* else (no key left) a thread's machines outlive it */

static void dispose_thread_tms(void *unused)
{
    (void)unused;
    for (unsigned i = 0; i < NLEVELS; i++)
        if (thread_tm[i]) {
            LLVMDisposeTargetMachine(thread_tm[i]);
            thread_tm[i] = NULL;
        }
}

static void make_thread_tm_key(void)
{
    thread_tm_keyed = !pthread_key_create(&thread_tm_key, dispose_thread_tms);
}

LLVMTargetMachineRef jit_thread_target_machine(int level, spv_diag *diag)
{
    unsigned i = (unsigned)codegen_level(level);
    if (thread_tm[i])
        return thread_tm[i];
    pthread_once(&thread_tm_once, make_thread_tm_key);
    if (!(thread_tm[i] = jit_host_target_machine(level, diag)))
        return NULL;
    if (thread_tm_keyed)
        pthread_setspecific(thread_tm_key, thread_tm); /* any non-NULL value: the destructor runs */
    return thread_tm[i];
}

unsigned jit_host_lanes32(void)
{
    pthread_once(&host_once, init_host);
    return host.lanes32 ? host.lanes32 : 4;
}

/* The quick tier's function passes: the lowering's allocas become SSA values,
 * the redundancy the lowering leaves (repeated address arithmetic, loads of
 * the context) goes.  One loop pass, rotation: a loop's test moves to its
 * latch, and a loop body of one block keeps its values in registers where
 * the fast register allocator spills and reloads every value live across a
 * block boundary (mm's quick dispatch a fifth shorter, for a few tenths of a
 * millisecond of passes).  The other loop passes cost what the tier saves.
 * InstSimplify, not InstCombine: its rewrites took a third of the passes
 * and made no quick code faster (saxpy's, reduce's and scan's slower). */
#define QUICK_PIPELINE "always-inline,function(sroa,early-cse,instsimplify,simplifycfg,loop(loop-rotate))"

/* Deletes the internal functions nothing refers to any more (the scalar body
 * where the vectorizer took it, functions inlined into it): the pipeline's
 * early function passes would work on them before they are found dead. */
static void drop_uncalled(LLVMModuleRef mod)
{
    for (bool more = true; more;) {
        more = false;
        for (LLVMValueRef f = LLVMGetFirstFunction(mod), next; f; f = next) {
            next = LLVMGetNextFunction(f);
            if (LLVMCountBasicBlocks(f) && LLVMGetLinkage(f) == LLVMInternalLinkage && !LLVMGetFirstUse(f)) {
                LLVMDeleteFunction(f);
                more = true;
            }
        }
    }
}

/* Gives every function the widest "min-legal-vector-width" any of them has
 * (the vector functions keep 512-bit vectors legal): the target machine
 * builds a subtarget, at a cost of about half a millisecond, for each set of
 * attributes it is asked about, and functions that differ only there would
 * each get one. */
static void one_vector_width(LLVMModuleRef mod)
{
    static const char key[] = "min-legal-vector-width";
    unsigned widest = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f)) {
        LLVMAttributeRef a = LLVMGetStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, key, sizeof key - 1);
        unsigned len = 0, w = 0;
        const char *v = a ? LLVMGetStringAttributeValue(a, &len) : NULL;
        for (unsigned i = 0; i < len && v[i] >= '0' && v[i] <= '9' && w < 1u << 20; i++)
            w = 10 * w + (unsigned)(v[i] - '0');
        widest = w > widest ? w : widest;
    }
    if (!widest)
        return;
    char value[16];
    int len = snprintf(value, sizeof value, "%u", widest);
    LLVMAttributeRef a =
        LLVMCreateStringAttribute(LLVMGetModuleContext(mod), key, sizeof key - 1, value, (unsigned)len);
    for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
        if (LLVMCountBasicBlocks(f))
            LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, a);
}

int jit_optimize(LLVMModuleRef mod, LLVMTargetMachineRef tm, int level, spv_diag *diag)
{
    drop_uncalled(mod);
    one_vector_width(mod);
    bool quick = level == JIT_LEVEL_QUICK;
    if (quick && jit_inline_once(mod) < 0) { /* the pipeline's always-inline finds the rest */
        spv_fail(diag, "out of memory");
        return -1;
    }
    char pipeline[128];
    if (quick)
        snprintf(pipeline, sizeof pipeline, "%s", QUICK_PIPELINE);
    else
        snprintf(pipeline, sizeof pipeline, "default<O%d>", level < 0 ? 0 : level > 3 ? 3 : level);
    LLVMPassBuilderOptionsRef o = LLVMCreatePassBuilderOptions();
    LLVMPassBuilderOptionsSetLoopVectorization(o, !quick && level >= 2);
    LLVMPassBuilderOptionsSetSLPVectorization(o, !quick && level >= 2);
    LLVMPassBuilderOptionsSetLoopUnrolling(o, !quick && level >= 2);
    LLVMPassBuilderOptionsSetLoopInterleaving(o, !quick && level >= 2);
    LLVMErrorRef e = LLVMRunPasses(mod, pipeline, tm, o);
    LLVMDisposePassBuilderOptions(o);
    if (e) {
        char *msg = LLVMGetErrorMessage(e);
        spv_fail(diag, "LLVM passes failed: %s", msg);
        LLVMDisposeErrorMessage(msg);
        return -1;
    }
    return 0;
}
