/* testdata/tests/test_ir_util.c — see test_ir_util.h. */
#include "test_ir_util.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <llvm-c/Analysis.h>
#include <llvm-c/IRReader.h>

LLVMModuleRef tir_parse(LLVMContextRef llc, const char *text)
{
    LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(text, strlen(text), "test.ll");
    LLVMModuleRef mod = NULL;
    char *msg = NULL;
    if (LLVMParseIRInContext(llc, buf, &mod, &msg)) {
        fprintf(stderr, "tir_parse: %s\n", msg ? msg : "?");
        LLVMDisposeMessage(msg);
        return NULL;
    }
    return mod;
}

static bool named(LLVMValueRef v, const char *name)
{
    size_t len;
    const char *n = LLVMGetValueName2(v, &len);
    return len == strlen(name) && !memcmp(n, name, len);
}

LLVMValueRef tir_value(LLVMValueRef fn, const char *name)
{
    for (LLVMValueRef a = LLVMGetFirstParam(fn); a; a = LLVMGetNextParam(a))
        if (named(a, name))
            return a;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in))
            if (named(in, name))
                return in;
    return NULL;
}

LLVMBasicBlockRef tir_block(LLVMValueRef fn, const char *name)
{
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
        if (named(LLVMBasicBlockAsValue(bb), name))
            return bb;
    return NULL;
}

char *tir_diamond_chain(const char *params, const char *entry_code, int n, const char *first_cond, const char *cond)
{
    size_t cap = (size_t)n * 160 + strlen(params) + strlen(entry_code) + 256, len = 0;
    char *ir = malloc(cap);
    if (!ir)
        return NULL;
    len += (size_t)snprintf(ir, cap, "define void @f(%s) {\nentry:\n%s  br label %%d0\n", params, entry_code);
    for (int i = 0; i < n && len < cap; i++) {
        len += (size_t)snprintf(ir + len, cap - len, "d%d:\n  br i1 %%%s, label %%l%d, label %%r%d\n", i,
                                i ? cond : first_cond, i, i);
        len += (size_t)snprintf(ir + len, cap - len, "l%d:\n  br label %%j%d\nr%d:\n  br label %%j%d\n", i, i, i, i);
        if (i + 1 < n)
            len += (size_t)snprintf(ir + len, cap - len, "j%d:\n  br label %%d%d\n", i, i + 1);
        else
            len += (size_t)snprintf(ir + len, cap - len, "j%d:\n  ret void\n}\n", i);
    }
    return ir;
}

char *tir_print(LLVMValueRef fn)
{
    char *s = LLVMPrintValueToString(fn);
    char *r = strdup(s);
    LLVMDisposeMessage(s);
    return r;
}

bool tir_host_parse(tir_host *h, const char *text, int level, spv_diag *diag)
{
    memset(h, 0, sizeof *h);
    h->llc = LLVMContextCreate();
    h->mod = tir_parse(h->llc, text);
    h->tm = h->mod ? jit_host_target_machine(level, diag) : NULL;
    if (!h->tm) {
        if (h->mod)
            LLVMDisposeModule(h->mod);
        LLVMContextDispose(h->llc);
        memset(h, 0, sizeof *h);
        return false;
    }
    h->td = LLVMCreateTargetDataLayout(h->tm);
    LLVMSetModuleDataLayout(h->mod, h->td);
    return true;
}

jit_code *tir_host_link(tir_host *h, const char *const *names, void **addrs, unsigned n, bool *verified, spv_diag *diag)
{
    char *err = NULL;
    *verified = !LLVMVerifyModule(h->mod, LLVMReturnStatusAction, &err);
    if (!*verified)
        fprintf(stderr, "the module does not verify: %s\n", err ? err : "?");
    LLVMDisposeMessage(err);
    LLVMMemoryBufferRef obj = *verified ? jit_emit_object(h->mod, h->tm, diag) : NULL;
    jit_code *code = obj ? jit_link_object(obj, names, addrs, n, diag) : NULL;
    LLVMDisposeModule(h->mod);
    LLVMDisposeTargetData(h->td);
    LLVMDisposeTargetMachine(h->tm);
    h->mod = NULL;
    h->td = NULL;
    h->tm = NULL;
    return code;
}

void tir_host_end(tir_host *h, jit_code *code)
{
    if (code)
        jit_code_free(code);
    LLVMContextDispose(h->llc);
    memset(h, 0, sizeof *h);
}
