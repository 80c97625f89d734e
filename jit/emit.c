/* jit/emit.c — native code through ORC LLJIT, and text for inspection.
 *
 * Each kernel gets its own LLJIT instance (its code lives until the kernel is
 * freed).  Symbols the code calls that are not in the module (libm, libc)
 * are resolved in the host process.  The code is emitted as a relocatable
 * object with the optimizer's target machine and linked into the JIT (ORC's
 * object layer), so a compiled object and one loaded from the disk cache take
 * the same path.  The runtime helpers of jit/ (rt_*.c) are
 * defined explicitly as absolute symbols: libspvjit is built with hidden
 * visibility and programs are not linked with -rdynamic, so a process-symbol
 * search (dlsym) would not find them.  The JIT's target machine is built from
 * the same host CPU name and features as the optimizer's.
 */
#include "jit_internal.h"
#include "rt_printf.h"

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

/* Every runtime function generated code may call, by the name the lowering uses. */
static const struct {
    const char *name;
    void *addr;
} runtime_symbols[] = {
    { "spvjit_rt_printf", (void *)&spvjit_rt_printf },
};

static LLVMErrorRef define_runtime_symbols(LLVMOrcLLJITRef jit, LLVMOrcJITDylibRef jd)
{
    enum { N = sizeof runtime_symbols / sizeof runtime_symbols[0] };
    LLVMOrcCSymbolMapPair syms[N];
    for (unsigned i = 0; i < N; i++) {
        syms[i].Name = LLVMOrcLLJITMangleAndIntern(jit, runtime_symbols[i].name);
        syms[i].Sym.Address = (LLVMOrcExecutorAddress)(uintptr_t)runtime_symbols[i].addr;
        syms[i].Sym.Flags.GenericFlags = LLVMJITSymbolGenericFlagsExported | LLVMJITSymbolGenericFlagsCallable;
        syms[i].Sym.Flags.TargetFlags = 0;
    }
    /* the materialization unit takes over the names' references */
    return LLVMOrcJITDylibDefine(jd, LLVMOrcAbsoluteSymbols(syms, N));
}

LLVMMemoryBufferRef jit_emit_object(LLVMModuleRef mod, LLVMTargetMachineRef tm, spv_diag *diag)
{
    LLVMMemoryBufferRef buf = NULL;
    char *err = NULL;
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, mod, LLVMObjectFile, &err, &buf)) {
        spv_fail(diag, "LLVM: emitting the object file failed: %s", err ? err : "?");
        LLVMDisposeMessage(err);
        return NULL;
    }
    return buf;
}

LLVMOrcLLJITRef jit_link_object(LLVMMemoryBufferRef obj, int level, const char *const *names, void **addrs,
                                unsigned n, spv_diag *diag)
{
    LLVMTargetMachineRef tm = jit_host_target_machine(level, diag);
    if (!tm) {
        LLVMDisposeMemoryBuffer(obj);
        return NULL;
    }
    LLVMOrcLLJITBuilderRef jb = LLVMOrcCreateLLJITBuilder();
    /* the builder takes the target machine, the JIT the builder */
    LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(jb, LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(tm));
    LLVMOrcLLJITRef jit = NULL;
    LLVMErrorRef e = LLVMOrcCreateLLJIT(&jit, jb);
    if (e) {
        fail_error(diag, "creating the JIT", e);
        LLVMDisposeMemoryBuffer(obj);
        return NULL;
    }
    LLVMOrcJITDylibRef jd = LLVMOrcLLJITGetMainJITDylib(jit);
    LLVMOrcDefinitionGeneratorRef gen = NULL;
    e = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(&gen, LLVMOrcLLJITGetGlobalPrefix(jit), NULL, NULL);
    if (e) {
        fail_error(diag, "host symbol search", e);
        goto fail;
    }
    LLVMOrcJITDylibAddGenerator(jd, gen);
    e = define_runtime_symbols(jit, jd);
    if (e) {
        fail_error(diag, "defining the runtime symbols", e);
        goto fail;
    }
    e = LLVMOrcLLJITAddObjectFile(jit, jd, obj); /* takes the buffer, also on failure */
    obj = NULL;
    if (e) {
        fail_error(diag, "adding the object file", e);
        goto fail;
    }
    for (unsigned i = 0; i < n; i++) {
        LLVMOrcExecutorAddress a = 0;
        addrs[i] = NULL;
        if (!names[i])
            continue;
        e = LLVMOrcLLJITLookup(jit, &a, names[i]);
        if (e) {
            char what[128];
            snprintf(what, sizeof what, "linking / lookup of %s", names[i]);
            fail_error(diag, what, e);
            goto fail;
        }
        addrs[i] = (void *)(uintptr_t)a;
    }
    return jit;
fail:
    if (obj)
        LLVMDisposeMemoryBuffer(obj);
    LLVMOrcDisposeLLJIT(jit);
    return NULL;
}
