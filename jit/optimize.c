/* jit/optimize.c — the host target machine and the LLVM pass pipeline.
 *
 * The target is the host CPU with all its features (LLVMGetHostCPUName /
 * LLVMGetHostCPUFeatures), so vector widths match the machine.  The pipeline is
 * LLVM's default<On> with loop and SLP vectorization and loop unrolling on.
 */
#include "jit_internal.h"

#include <pthread.h>
#include <string.h>
#include <llvm-c/Transforms/PassBuilder.h>

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_failed;

static void init_llvm(void)
{
    if (LLVMInitializeNativeTarget() || LLVMInitializeNativeAsmPrinter() || LLVMInitializeNativeAsmParser())
        init_failed = 1;
}

static LLVMCodeGenOptLevel codegen_level(int opt)
{
    return opt <= 0   ? LLVMCodeGenLevelNone
           : opt == 1 ? LLVMCodeGenLevelLess
           : opt == 2 ? LLVMCodeGenLevelDefault
                      : LLVMCodeGenLevelAggressive;
}

LLVMTargetMachineRef jit_host_target_machine(int opt_level, spv_diag *diag)
{
    pthread_once(&init_once, init_llvm);
    if (init_failed) {
        spv_fail(diag, "LLVM: the native target is not available");
        return NULL;
    }
    char *triple = LLVMGetDefaultTargetTriple();
    LLVMTargetRef target;
    char *err = NULL;
    if (LLVMGetTargetFromTriple(triple, &target, &err)) {
        spv_fail(diag, "LLVM: no target for %s: %s", triple, err ? err : "?");
        LLVMDisposeMessage(err);
        LLVMDisposeMessage(triple);
        return NULL;
    }
    char *cpu = LLVMGetHostCPUName(), *features = LLVMGetHostCPUFeatures();
    LLVMTargetMachineRef tm = LLVMCreateTargetMachine(target, triple, cpu, features, codegen_level(opt_level),
                                                      LLVMRelocPIC, LLVMCodeModelJITDefault);
    LLVMDisposeMessage(cpu);
    LLVMDisposeMessage(features);
    LLVMDisposeMessage(triple);
    if (!tm)
        spv_fail(diag, "LLVM: could not create a target machine for the host");
    return tm;
}

unsigned jit_host_lanes32(void)
{
    char *f = LLVMGetHostCPUFeatures();
    unsigned lanes = 4; /* SSE, NEON */
    if (f && strstr(f, "+avx512f"))
        lanes = 16;
    else if (f && strstr(f, "+avx2"))
        lanes = 8;
    LLVMDisposeMessage(f);
    return lanes;
}

int jit_optimize(LLVMModuleRef mod, LLVMTargetMachineRef tm, int opt_level, spv_diag *diag)
{
    char pipeline[32];
    snprintf(pipeline, sizeof pipeline, "default<O%d>", opt_level < 0 ? 0 : opt_level > 3 ? 3 : opt_level);
    LLVMPassBuilderOptionsRef o = LLVMCreatePassBuilderOptions();
    LLVMPassBuilderOptionsSetLoopVectorization(o, opt_level >= 2);
    LLVMPassBuilderOptionsSetSLPVectorization(o, opt_level >= 2);
    LLVMPassBuilderOptionsSetLoopUnrolling(o, opt_level >= 2);
    LLVMPassBuilderOptionsSetLoopInterleaving(o, opt_level >= 2);
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
