/* jit/emit.c — native code through ORC LLJIT, and text for inspection.
 *
 * The process has one LLJIT; each kernel's code lives in it until the kernel
 * is freed (see "the process's JIT" below).  Symbols the code calls that are
 * not in the module (libm, libc)
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
#include "proof.h"
#include "rt_check.h"
#include "rt_printf.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
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
    { JIT_RT_OOB, (void *)&spvjit_rt_oob },
    { JIT_RT_WG_ACCESS, (void *)&spvjit_rt_wg_access },
    { JIT_RT_PROVE, (void *)&spvjit_rt_prove },
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

/* --- the process's JIT ---------------------------------------------------------
 * One LLJIT for the whole process, made at the first link and kept: making
 * one (an execution session, a linking layer, a target machine) took most of
 * the time of linking a kernel, and of loading one from the disk cache.  Each
 * kernel's object goes into a JITDylib of its own (the same symbol names in
 * every kernel), under a resource tracker that takes the code out again when
 * the kernel is freed; the emptied JITDylib, which keeps its process-symbol
 * generator and the runtime symbols, serves the next kernel. */

struct jit_code {
    LLVMOrcJITDylibRef jd;
    LLVMOrcResourceTrackerRef rt;
};

static struct {
    pthread_once_t once;
    LLVMOrcLLJITRef jit;
    char error[512]; /* why there is none */
    pthread_mutex_t lock;
    LLVMOrcJITDylibRef *idle; /* emptied JITDylibs */
    size_t nidle, cap;
    unsigned made;
} shared = { .once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER };

static void make_shared_jit(void)
{
    spv_diag d;
    d.msg[0] = 0;
    LLVMTargetMachineRef tm = jit_host_target_machine(3, &d); /* objects come compiled: its level is not used */
    if (!tm) {
        snprintf(shared.error, sizeof shared.error, "%.500s", d.msg);
        return;
    }
    LLVMOrcLLJITBuilderRef jb = LLVMOrcCreateLLJITBuilder();
    /* the builder takes the target machine, the JIT the builder */
    LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(jb, LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(tm));
    LLVMErrorRef e = LLVMOrcCreateLLJIT(&shared.jit, jb);
    if (e) {
        char *msg = LLVMGetErrorMessage(e);
        snprintf(shared.error, sizeof shared.error, "LLVM JIT: creating the JIT: %.400s", msg);
        LLVMDisposeErrorMessage(msg);
        shared.jit = NULL;
    }
}

/* A JITDylib for one kernel: an idle one, or a new one with the process's
 * symbols and the runtime's.  NULL with diag filled. */
static LLVMOrcJITDylibRef take_dylib(spv_diag *diag)
{
    pthread_mutex_lock(&shared.lock);
    LLVMOrcJITDylibRef jd = shared.nidle ? shared.idle[--shared.nidle] : NULL;
    unsigned id = jd ? 0 : shared.made++;
    pthread_mutex_unlock(&shared.lock);
    if (jd)
        return jd;
    char name[48];
    snprintf(name, sizeof name, "spvjit.kernel.%u", id);
    jd = LLVMOrcExecutionSessionCreateBareJITDylib(LLVMOrcLLJITGetExecutionSession(shared.jit), name);
    LLVMOrcDefinitionGeneratorRef gen = NULL;
    LLVMErrorRef e =
        LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(&gen, LLVMOrcLLJITGetGlobalPrefix(shared.jit), NULL, NULL);
    if (e) {
        fail_error(diag, "host symbol search", e);
        return NULL; /* the empty JITDylib stays in the session, unused */
    }
    LLVMOrcJITDylibAddGenerator(jd, gen);
    if ((e = define_runtime_symbols(shared.jit, jd))) {
        fail_error(diag, "defining the runtime symbols", e);
        return NULL;
    }
    return jd;
}

static void give_dylib(LLVMOrcJITDylibRef jd)
{
    pthread_mutex_lock(&shared.lock);
    if (shared.nidle == shared.cap) {
        size_t cap = shared.cap ? 2 * shared.cap : 16;
        LLVMOrcJITDylibRef *idle = realloc(shared.idle, cap * sizeof *idle);
        if (idle) {
            shared.idle = idle;
            shared.cap = cap;
        }
    }
    if (shared.nidle < shared.cap) /* else it stays in the session, unused */
        shared.idle[shared.nidle++] = jd;
    pthread_mutex_unlock(&shared.lock);
}

void jit_code_free(jit_code *code)
{
    if (!code)
        return;
    LLVMErrorRef e = LLVMOrcResourceTrackerRemove(code->rt);
    LLVMOrcReleaseResourceTracker(code->rt);
    if (e) /* the code could not be taken out: leave its JITDylib alone */
        LLVMConsumeError(e);
    else
        give_dylib(code->jd);
    free(code);
}

/* A symbol lookup's answer, waited for (the session may answer on another thread). */
typedef struct lookup {
    pthread_mutex_t lock;
    pthread_cond_t done_cond;
    bool done;
    LLVMErrorRef error;
    LLVMOrcSymbolStringPoolEntryRef *want; /* retained by us */
    void **addrs;
    unsigned n;
} lookup;

static void on_lookup(LLVMErrorRef err, LLVMOrcCSymbolMapPairs result, size_t npairs, void *ctx)
{
    lookup *l = ctx;
    for (size_t i = 0; !err && i < npairs; i++)
        for (unsigned k = 0; k < l->n; k++)
            if (l->want[k] && result[i].Name == l->want[k]) /* pooled strings: one entry per name */
                l->addrs[k] = (void *)(uintptr_t)result[i].Sym.Address;
    pthread_mutex_lock(&l->lock);
    l->error = err;
    l->done = true;
    pthread_cond_signal(&l->done_cond);
    pthread_mutex_unlock(&l->lock);
}

/* Resolves names[0..n) (NULL: none) in jd into addrs.  0, or -1 with diag. */
static int lookup_symbols(LLVMOrcJITDylibRef jd, const char *const *names, void **addrs, unsigned n, spv_diag *diag)
{
    LLVMOrcCLookupSetElement *set = calloc(n ? n : 1, sizeof *set);
    LLVMOrcSymbolStringPoolEntryRef *want = calloc(n ? n : 1, sizeof *want);
    if (!set || !want) {
        free(set);
        free(want);
        spv_fail(diag, "out of memory");
        return -1;
    }
    size_t nset = 0;
    for (unsigned i = 0; i < n; i++) {
        addrs[i] = NULL;
        if (!names[i])
            continue;
        want[i] = LLVMOrcLLJITMangleAndIntern(shared.jit, names[i]);
        LLVMOrcRetainSymbolStringPoolEntry(want[i]); /* one for the lookup, one for the answer */
        set[nset++] =
            (LLVMOrcCLookupSetElement){ .Name = want[i], .LookupFlags = LLVMOrcSymbolLookupFlagsRequiredSymbol };
    }
    lookup l = {
        .lock = PTHREAD_MUTEX_INITIALIZER, .done_cond = PTHREAD_COND_INITIALIZER, .want = want, .addrs = addrs, .n = n
    };
    LLVMOrcCJITDylibSearchOrderElement order = { .JD = jd,
                                                 .JDLookupFlags = LLVMOrcJITDylibLookupFlagsMatchExportedSymbolsOnly };
    LLVMOrcExecutionSessionLookup(LLVMOrcLLJITGetExecutionSession(shared.jit), LLVMOrcLookupKindStatic, &order, 1, set,
                                  nset, on_lookup, &l);
    pthread_mutex_lock(&l.lock);
    while (!l.done)
        pthread_cond_wait(&l.done_cond, &l.lock);
    pthread_mutex_unlock(&l.lock);
    for (unsigned i = 0; i < n; i++)
        if (want[i])
            LLVMOrcReleaseSymbolStringPoolEntry(want[i]);
    free(set);
    free(want);
    if (l.error) {
        fail_error(diag, "linking", l.error);
        return -1;
    }
    return 0;
}

jit_code *jit_link_object(LLVMMemoryBufferRef obj, const char *const *names, void **addrs, unsigned n, spv_diag *diag)
{
    pthread_once(&shared.once, make_shared_jit);
    jit_code *code = shared.jit ? calloc(1, sizeof *code) : NULL;
    if (!code) {
        spv_fail(diag, "%s", shared.jit ? "out of memory" : shared.error);
        LLVMDisposeMemoryBuffer(obj);
        return NULL;
    }
    if (!(code->jd = take_dylib(diag))) {
        LLVMDisposeMemoryBuffer(obj);
        free(code);
        return NULL;
    }
    code->rt = LLVMOrcJITDylibCreateResourceTracker(code->jd);
    LLVMErrorRef e = LLVMOrcLLJITAddObjectFileWithRT(shared.jit, code->rt, obj); /* takes the buffer, also on failure */
    if (e) {
        fail_error(diag, "adding the object file", e);
        jit_code_free(code);
        return NULL;
    }
    if (lookup_symbols(code->jd, names, addrs, n, diag)) {
        jit_code_free(code);
        return NULL;
    }
    return code;
}
