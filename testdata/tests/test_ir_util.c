/* testdata/tests/test_ir_util.c — see test_ir_util.h. */
#include "test_ir_util.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
