/* jit/emit.c — native code through ORC LLJIT, and text for inspection.
 *
 * Each kernel gets its own LLJIT instance (its code lives until the kernel is
 * freed).  Symbols the code calls that are not in the module (libm, libc,
 * runtime helpers) are resolved in the host process.  The JIT's target machine
 * is built from the same host CPU name and features as the optimizer's.
 */
#include "jit_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void fail_error(spv_diag *diag, const char *what, LLVMErrorRef e)
{
    char *msg = LLVMGetErrorMessage(e);
    spv_fail(diag, "LLVM JIT: %s: %s", what, msg);
    LLVMDisposeErrorMessage(msg);
}

char *jit_emit_ir(LLVMModuleRef mod)
{
    char *s = LLVMPrintModuleToString(mod);
    char *r = strdup(s);
    LLVMDisposeMessage(s);
    return r;
}

char *jit_emit_asm(LLVMModuleRef mod, LLVMTargetMachineRef tm, spv_diag *diag)
{
    LLVMModuleRef clone = LLVMCloneModule(mod);
    LLVMMemoryBufferRef buf = NULL;
    char *err = NULL;
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, clone, LLVMAssemblyFile, &err, &buf)) {
        spv_fail(diag, "LLVM: emitting assembly failed: %s", err ? err : "?");
        LLVMDisposeMessage(err);
        LLVMDisposeModule(clone);
        return NULL;
    }
    size_t n = LLVMGetBufferSize(buf);
    char *r = malloc(n + 1);
    memcpy(r, LLVMGetBufferStart(buf), n);
    r[n] = 0;
    LLVMDisposeMemoryBuffer(buf);
    LLVMDisposeModule(clone);
    return r;
}

LLVMOrcLLJITRef jit_codegen(LLVMOrcThreadSafeContextRef tsc, LLVMModuleRef mod, int opt_level,
                            const char *const *names, void **addrs, unsigned n, spv_diag *diag)
{
    LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(mod, tsc);
    LLVMOrcDisposeThreadSafeContext(tsc);   /* the module keeps the context alive */
    LLVMTargetMachineRef tm = jit_host_target_machine(opt_level, diag);
    if (!tm) { LLVMOrcDisposeThreadSafeModule(tsm); return NULL; }
    LLVMOrcLLJITBuilderRef jb = LLVMOrcCreateLLJITBuilder();
    LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(jb, LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(tm));
    LLVMOrcLLJITRef jit = NULL;
    LLVMErrorRef e = LLVMOrcCreateLLJIT(&jit, jb);
    if (e) { fail_error(diag, "creating the JIT", e); LLVMOrcDisposeThreadSafeModule(tsm); return NULL; }
    LLVMOrcJITDylibRef jd = LLVMOrcLLJITGetMainJITDylib(jit);
    LLVMOrcDefinitionGeneratorRef gen = NULL;
    e = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(&gen, LLVMOrcLLJITGetGlobalPrefix(jit), NULL, NULL);
    if (e) { fail_error(diag, "host symbol search", e); goto fail; }
    LLVMOrcJITDylibAddGenerator(jd, gen);
    e = LLVMOrcLLJITAddLLVMIRModule(jit, jd, tsm);
    tsm = NULL;
    if (e) { fail_error(diag, "adding the module", e); goto fail; }
    for (unsigned i = 0; i < n; i++) {
        LLVMOrcExecutorAddress a = 0;
        addrs[i] = NULL;
        if (!names[i]) continue;
        e = LLVMOrcLLJITLookup(jit, &a, names[i]);
        if (e) {
            char what[128];
            snprintf(what, sizeof what, "code generation / lookup of %s", names[i]);
            fail_error(diag, what, e);
            goto fail;
        }
        addrs[i] = (void *)(uintptr_t)a;
    }
    return jit;
fail:
    if (tsm) LLVMOrcDisposeThreadSafeModule(tsm);
    LLVMOrcDisposeLLJIT(jit);
    return NULL;
}
