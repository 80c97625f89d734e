/* jit/simd_items.c — the work-items of a group as sub-groups (see simd.h).
 *
 * A sub-group is W work-items of consecutive linear index (LocalInvocationIndex
 * order): the one starting at `base` (a multiple of W) runs the items base,
 * base + 1, ..., those at or past the group's item count inactive.  The
 * wrapper gives each lane its local id from its index; with the group's
 * width a compile-time multiple of W, x is the index modulo the width (affine
 * in the lane) and y, z are the same in every lane, which is what makes
 * row-major addresses one vector access. */
#include "simd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <llvm-c/Core.h>

static LLVMValueRef k32(LLVMContextRef llc, uint32_t v)
{
    return LLVMConstInt(LLVMInt32TypeInContext(llc), v, 0);
}

/* wrap(ctx, idx, rest...) { (x, y, z) from idx; return item(ctx, x, y, z, slot index, rest...) } */
static LLVMValueRef build_wrapper(const jit_simd_items_req *r)
{
    LLVMValueRef item = r->item;
    LLVMModuleRef mod = LLVMGetGlobalParent(item);
    LLVMContextRef llc = LLVMGetModuleContext(mod);
    LLVMTypeRef ft = LLVMGlobalGetValueType(item);
    unsigned np = LLVMCountParamTypes(ft);
    LLVMTypeRef *pt = calloc(np + 1, sizeof *pt);
    LLVMValueRef *args = calloc(np + 1, sizeof *args);
    if (!pt || !args) {
        free(pt);
        free(args);
        return NULL;
    }
    LLVMGetParamTypes(ft, pt);
    /* the wrapper's parameters: ctx, idx, then item's uniform ones (from `rest` on) */
    unsigned rest = r->no_index ? 4 : 5;
    LLVMTypeRef wpt[JIT_SIMD_MAX_PARAMS];
    unsigned nw = 0;
    wpt[nw++] = pt[0];
    wpt[nw++] = LLVMInt32TypeInContext(llc);
    for (unsigned i = rest; i < np && nw < JIT_SIMD_MAX_PARAMS; i++)
        wpt[nw++] = pt[i];
    LLVMValueRef w = LLVMAddFunction(mod, "spvjit.simd.items", LLVMFunctionType(LLVMGetReturnType(ft), wpt, nw, 0));
    LLVMSetLinkage(w, LLVMInternalLinkage);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(llc);
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(llc, w, "entry"));
    LLVMValueRef idx = LLVMGetParam(w, 1), sx, sy;
    if (r->size) {
        sx = k32(llc, r->size[0]);
        sy = k32(llc, r->size[1]);
    } else {
        sx = LLVMGetParam(w, 2 + r->size_param - rest);
        sy = LLVMGetParam(w, 2 + r->size_param + 1 - rest);
    }
    LLVMValueRef x, y, z;
    if (!r->size && r->compiled && r->compiled[1] == 1 && r->compiled[2] == 1) {
        /* a 1-D group at run time too: x is the index, affine in the lane
         * (from x's run-time size, every lane's address varied) */
        x = idx;
        y = z = k32(llc, 0);
    } else {
        x = LLVMBuildURem(b, idx, sx, "lx");
        LLVMValueRef xy = LLVMBuildUDiv(b, idx, sx, "");
        y = LLVMBuildURem(b, xy, sy, "ly");
        z = LLVMBuildUDiv(b, xy, sy, "lz");
    }
    LLVMValueRef slot = idx;
    if (!r->size && r->compiled) /* slots indexed in the compile-time layout */
        slot = LLVMBuildAdd(b, x,
                            LLVMBuildMul(b, k32(llc, r->compiled[0]),
                                         LLVMBuildAdd(b, y, LLVMBuildMul(b, k32(llc, r->compiled[1]), z, ""), ""), ""),
                            "");
    args[0] = LLVMGetParam(w, 0);
    args[1] = x;
    args[2] = y;
    args[3] = z;
    if (!r->no_index)
        args[4] = slot;
    for (unsigned i = rest; i < np; i++)
        args[i] = r->fixed_value && i == r->fixed_param ? r->fixed_value : LLVMGetParam(w, 2 + i - rest);
    LLVMValueRef call = LLVMBuildCall2(b, ft, item, args, np, "");
    /* inlined here (the item function itself stays for the scalar path) */
    unsigned kind = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
    LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(llc, kind, 0));
    if (LLVMGetTypeKind(LLVMGetReturnType(ft)) == LLVMVoidTypeKind)
        LLVMBuildRetVoid(b);
    else
        LLVMBuildRet(b, call);
    LLVMDisposeBuilder(b);
    free(pt);
    free(args);
    return w;
}

/* A global that uses every function with a body (NULL when there is none). */
static LLVMValueRef keep_functions(LLVMModuleRef mod)
{
    unsigned n = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
        n += LLVMCountBasicBlocks(f) > 0;
    LLVMValueRef *fns = calloc(n + 1, sizeof *fns);
    if (!n || !fns) {
        free(fns);
        return NULL;
    }
    n = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
        if (LLVMCountBasicBlocks(f))
            fns[n++] = f;
    LLVMTypeRef pt = LLVMPointerTypeInContext(LLVMGetModuleContext(mod), 0);
    LLVMValueRef g = LLVMAddGlobal(mod, LLVMArrayType2(pt, n), "spvjit.keep");
    LLVMSetInitializer(g, LLVMConstArray2(pt, fns, n));
    LLVMSetLinkage(g, LLVMInternalLinkage);
    free(fns);
    return g;
}

/* Marks (on) or unmarks the functions the passes must leave as they are:
 * optnone (with noinline, which it needs); *added says which attributes were ours. */
static void leave_alone(const LLVMValueRef *fns, unsigned n, bool on, bool *added)
{
    static const char *const names[2] = { "optnone", "noinline" };
    for (unsigned i = 0; i < n; i++)
        for (unsigned k = 0; k < 2; k++) {
            unsigned kind = LLVMGetEnumAttributeKindForName(names[k], strlen(names[k]));
            if (on) {
                added[2 * i + k] = !LLVMGetEnumAttributeAtIndex(fns[i], LLVMAttributeFunctionIndex, kind);
                if (added[2 * i + k])
                    LLVMAddAttributeAtIndex(fns[i], LLVMAttributeFunctionIndex,
                                            LLVMCreateEnumAttribute(LLVMGetTypeContext(LLVMTypeOf(fns[i])), kind, 0));
            } else if (added[2 * i + k]) {
                LLVMRemoveEnumAttributeAtIndex(fns[i], LLVMAttributeFunctionIndex, kind);
            }
        }
}

/* jit_simd_items with the module prepared as `prep` asks. */
static int vectorize_items(const jit_simd_items_req *r, unsigned n, const LLVMValueRef *as_is, unsigned nas_is,
                           jit_simd_prep prep, LLVMValueRef *out, char *msg)
{
    LLVMValueRef *wrap = calloc(n + 1, sizeof *wrap);
    if (!wrap) {
        snprintf(msg, JIT_SIMD_MSG, "out of memory");
        return -1;
    }
    int rc = 0;
    for (unsigned i = 0; i < n; i++) {
        out[i] = NULL;
        unsigned np = LLVMCountParamTypes(LLVMGlobalGetValueType(r[i].item)), rest = r[i].no_index ? 4 : 5;
        if (np < rest || np - rest + 2 > JIT_SIMD_MAX_PARAMS) {
            snprintf(msg, JIT_SIMD_MSG, "%u parameters (at most %u)", np, JIT_SIMD_MAX_PARAMS + rest - 2);
            rc = 1;
            break;
        }
        if (!(wrap[i] = build_wrapper(&r[i]))) {
            snprintf(msg, JIT_SIMD_MSG, "out of memory");
            rc = -1;
            break;
        }
    }
    if (!rc && n) {
        /* every function outlives the inlining: the scalar path may still call it */
        LLVMModuleRef mod = LLVMGetGlobalParent(wrap[0]);
        LLVMValueRef keep = keep_functions(mod);
        bool *added = calloc(2 * nas_is + 1, sizeof *added);
        if (!added) {
            snprintf(msg, JIT_SIMD_MSG, "out of memory");
            rc = -1;
        } else {
            unsigned widths[64];
            for (unsigned i = 0; i < n && i < 64; i++)
                widths[i] = r[i].width;
            leave_alone(as_is, nas_is, true, added);
            rc = jit_simd_prepare(mod, wrap, n <= 64 ? widths : NULL, n, prep, msg);
            leave_alone(as_is, nas_is, false, added);
        }
        free(added);
        if (keep)
            LLVMDeleteGlobal(keep);
    }
    for (unsigned i = 0; i < n && !rc; i++) {
        jit_simd_arg args[JIT_SIMD_MAX_PARAMS];
        unsigned np = LLVMCountParams(wrap[i]);
        args[0] = JIT_SIMD_ARG_UNIFORM;
        args[1] = JIT_SIMD_ARG_CONSECUTIVE;
        for (unsigned k = 2; k < np; k++)
            args[k] = JIT_SIMD_ARG_UNIFORM;
        jit_simd_request vr = { .fn = wrap[i], .args = args, .width = r[i].width, .name = r[i].name, .td = r[i].td };
        rc = jit_simd_vectorize(&vr, &out[i], msg);
        if (rc == 1 && r[i].optional)
            rc = 0; /* out[i] stays NULL */
    }
    for (unsigned i = 0; i < n; i++) {
        if (wrap[i])
            LLVMDeleteFunction(wrap[i]);
        if (rc && out[i]) {
            LLVMDeleteFunction(out[i]);
            out[i] = NULL;
        }
    }
    free(wrap);
    return rc;
}

int jit_simd_items(const jit_simd_items_req *r, unsigned n, const LLVMValueRef *as_is, unsigned nas_is,
                   jit_simd_prep prep, LLVMValueRef *out, char *msg)
{
    int rc = vectorize_items(r, n, as_is, nas_is, prep, out, msg);
    if (rc == 1 && prep != JIT_SIMD_PREP_FULL)
        rc = vectorize_items(r, n, as_is, nas_is, JIT_SIMD_PREP_FULL, out, msg);
    return rc;
}

/* --- the loop over the sub-groups ----------------------------------------------------------------- */

static LLVMValueRef steps32(LLVMContextRef llc, unsigned w)
{
    LLVMValueRef e[JIT_SIMD_MAX_WIDTH];
    for (unsigned i = 0; i < w; i++)
        e[i] = k32(llc, i);
    return LLVMConstVector(e, w);
}

static LLVMValueRef splat32(LLVMBuilderRef b, LLVMValueRef x, unsigned w)
{
    LLVMContextRef llc = LLVMGetTypeContext(LLVMTypeOf(x));
    LLVMTypeRef vt = LLVMVectorType(LLVMInt32TypeInContext(llc), w);
    LLVMValueRef one = LLVMBuildInsertElement(b, LLVMGetPoison(vt), x, k32(llc, 0), "");
    return LLVMBuildShuffleVector(b, one, LLVMGetPoison(vt), LLVMConstNull(vt), "");
}

static void call_sg(const jit_simd_loop *l, LLVMBuilderRef b, LLVMValueRef base, LLVMValueRef live)
{
    LLVMValueRef args[JIT_SIMD_MAX_PARAMS + 1];
    unsigned n = 0;
    args[n++] = l->ctx;
    args[n++] = base;
    for (unsigned i = 0; i < l->nargs; i++)
        args[n++] = l->args[i];
    args[n++] = live;
    LLVMValueRef r = LLVMBuildCall2(b, LLVMGlobalGetValueType(l->vf), l->vf, args, n, "");
    if (l->each)
        l->each(l->user, b, base, live, r);
}

/* The item index of the sub-group at offset off of the loop. */
static LLVMValueRef item_at(const jit_simd_loop *l, LLVMBuilderRef b, LLVMValueRef off)
{
    return l->first ? LLVMBuildAdd(b, l->first, off, "sg.base") : off;
}

LLVMValueRef jit_simd_emit_loop(const jit_simd_loop *l, LLVMBuilderRef b)
{
    LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(b));
    LLVMContextRef llc = LLVMGetTypeContext(LLVMTypeOf(fn));
    LLVMTypeRef i32 = LLVMInt32TypeInContext(llc), mt = LLVMVectorType(LLVMInt1TypeInContext(llc), l->width);
    unsigned w = l->width;
    /* full sub-groups: all lanes live (a constant mask) */
    LLVMValueRef nfull = LLVMIsAConstantInt(l->count) ? k32(llc, (uint32_t)LLVMConstIntGetZExtValue(l->count) / w * w)
                                                      : LLVMBuildAnd(b, l->count, k32(llc, ~(w - 1)), "full");
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(b);
    LLVMBasicBlockRef tail = LLVMAppendBasicBlockInContext(llc, fn, "sg.tail");
    LLVMValueRef back = NULL;
    bool may_loop = !LLVMIsAConstantInt(nfull) || LLVMConstIntGetZExtValue(nfull) > 0;
    if (may_loop) {
        LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(llc, fn, "sg");
        LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, nfull, k32(llc, 0), ""), head, tail);
        LLVMPositionBuilderAtEnd(b, head);
        LLVMValueRef base = LLVMBuildPhi(b, i32, "sg.off");
        call_sg(l, b, item_at(l, b, base), LLVMConstAllOnes(mt));
        LLVMValueRef next = LLVMBuildAdd(b, base, k32(llc, w), "");
        LLVMBasicBlockRef latch = LLVMGetInsertBlock(b);
        back = LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, next, nfull, ""), head, tail);
        LLVMAddIncoming(base, (LLVMValueRef[]){ k32(llc, 0), next }, (LLVMBasicBlockRef[]){ pre, latch }, 2);
    } else {
        LLVMBuildBr(b, tail);
    }
    /* the last, partial sub-group */
    LLVMPositionBuilderAtEnd(b, tail);
    if (LLVMIsAConstantInt(l->count) && LLVMConstIntGetZExtValue(l->count) % w == 0)
        return back;
    LLVMBasicBlockRef part = LLVMAppendBasicBlockInContext(llc, fn, "sg.partial");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(llc, fn, "sg.done");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, nfull, l->count, ""), part, done);
    LLVMPositionBuilderAtEnd(b, part);
    LLVMValueRef lanes = LLVMBuildAdd(b, splat32(b, nfull, w), steps32(llc, w), "");
    LLVMValueRef live = LLVMBuildICmp(b, LLVMIntULT, lanes, splat32(b, l->count, w), "live");
    call_sg(l, b, item_at(l, b, nfull), live);
    LLVMBuildBr(b, done);
    LLVMPositionBuilderAtEnd(b, done);
    return back;
}
