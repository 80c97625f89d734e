/* jit/barrier_intrinsic.c — barriers as calls to @spvjit.barrier (see barrier_intrinsic.h). */
#include "barrier_intrinsic.h"

#include <stddef.h>
#include <string.h>

static LLVMTypeRef barrier_type(LLVMContextRef llc)
{
    LLVMTypeRef params[2] = { LLVMPointerTypeInContext(llc, 0), LLVMInt32TypeInContext(llc) };
    return LLVMFunctionType(LLVMVoidTypeInContext(llc), params, 2, 0);
}

static void add_attr(LLVMContextRef llc, LLVMValueRef fn, const char *name)
{
    unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(llc, kind, 0));
}

LLVMValueRef jit_barrier_declare(LLVMModuleRef mod)
{
    LLVMValueRef fn = LLVMGetNamedFunction(mod, JIT_BARRIER_FN);
    if (fn)
        return fn;
    LLVMContextRef llc = LLVMGetModuleContext(mod);
    fn = LLVMAddFunction(mod, JIT_BARRIER_FN, barrier_type(llc));
    add_attr(llc, fn, "convergent");
    add_attr(llc, fn, "nounwind");
    return fn;
}

void jit_build_barrier(lower_ctx *c, uint32_t site)
{
    jit_bounds_barrier(c); /* memory=check: the race detector's barrier count */
    LLVMValueRef args[2] = { c->arg_ctx, LLVMConstInt(c->t_i32, site, 0) };
    LLVMBuildCall2(c->b, barrier_type(c->llc), jit_barrier_declare(c->mod), args, 2, "");
}

LLVMValueRef jit_barrier_function(LLVMModuleRef mod)
{
    return LLVMGetNamedFunction(mod, JIT_BARRIER_FN);
}

long long jit_barrier_site(LLVMValueRef barrier_fn, LLVMValueRef call)
{
    if (!barrier_fn || !LLVMIsACallInst(call) || LLVMGetCalledValue(call) != barrier_fn)
        return -1;
    LLVMValueRef site = LLVMGetNumArgOperands(call) == 2 ? LLVMGetOperand(call, 1) : NULL;
    return site && LLVMIsAConstantInt(site) ? (long long)LLVMConstIntGetZExtValue(site) : -2;
}

void jit_barriers_to_fibers(lower_ctx *c)
{
    LLVMValueRef fn = jit_barrier_function(c->mod);
    if (!fn)
        return;
    LLVMBuilderRef b = LLVMCreateBuilderInContext(c->llc), saved = c->b;
    c->b = b; /* jit_ctx_field builds with c->b */
    for (LLVMUseRef u = LLVMGetFirstUse(fn); u; u = LLVMGetFirstUse(fn)) {
        LLVMValueRef call = LLVMGetUser(u), ctx = LLVMGetOperand(call, 0);
        LLVMPositionBuilderBefore(b, call);
        LLVMValueRef target = jit_ctx_field(c, ctx, offsetof(spvjit_wg_ctx, barrier), c->t_ptr);
        LLVMValueRef args[2] = { ctx, LLVMGetOperand(call, 1) };
        LLVMBuildCall2(b, barrier_type(c->llc), target, args, 2, "");
        LLVMInstructionEraseFromParent(call);
    }
    c->b = saved;
    LLVMDisposeBuilder(b);
    LLVMDeleteFunction(fn);
}
