/* jit/sg_marker.c — the sub-group markers (see sg_marker.h). */
#include "sg_marker.h"

#include <stdio.h>
#include <string.h>

static const char *const kind_names[] = {
    [JIT_SG_SIZE] = "size",
    [JIT_SG_LIVE] = "live",
    [JIT_SG_LANE] = "lane",
    [JIT_SG_ID] = "id",
    [JIT_SG_FIRST] = "first",
    [JIT_SG_ALL] = "all",
    [JIT_SG_ANY] = "any",
    [JIT_SG_BALLOT] = "ballot",
    [JIT_SG_SHUFFLE] = "shuffle",
    [JIT_SG_REDUCE] = "reduce",
    [JIT_SG_SCAN_INCL] = "scan.incl",
    [JIT_SG_SCAN_EXCL] = "scan.excl",
    [JIT_SG_CLUSTERED] = "clustered",
};

static const char *const arith_names[JIT_SG_NARITH] = {
    [JIT_SG_ADD] = "add",   [JIT_SG_MUL] = "mul",   [JIT_SG_FADD] = "fadd", [JIT_SG_FMUL] = "fmul",
    [JIT_SG_SMIN] = "smin", [JIT_SG_UMIN] = "umin", [JIT_SG_FMIN] = "fmin", [JIT_SG_SMAX] = "smax",
    [JIT_SG_UMAX] = "umax", [JIT_SG_FMAX] = "fmax", [JIT_SG_AND] = "and",   [JIT_SG_OR] = "or",
    [JIT_SG_XOR] = "xor",
};

static bool arithmetic(jit_sg_kind k)
{
    return k == JIT_SG_REDUCE || k == JIT_SG_SCAN_INCL || k == JIT_SG_SCAN_EXCL || k == JIT_SG_CLUSTERED;
}

/* The name suffix of a value type: i32, f32, p0 ... */
static void type_suffix(LLVMTypeRef t, char *buf, size_t n)
{
    switch (LLVMGetTypeKind(t)) {
    case LLVMIntegerTypeKind:
        snprintf(buf, n, "i%u", LLVMGetIntTypeWidth(t));
        break;
    case LLVMHalfTypeKind:
        snprintf(buf, n, "f16");
        break;
    case LLVMFloatTypeKind:
        snprintf(buf, n, "f32");
        break;
    case LLVMDoubleTypeKind:
        snprintf(buf, n, "f64");
        break;
    case LLVMPointerTypeKind:
        snprintf(buf, n, "p%u", LLVMGetPointerAddressSpace(t));
        break;
    default:
        snprintf(buf, n, "t");
        break;
    }
}

static void add_attr(LLVMContextRef llc, LLVMValueRef f, const char *name, uint64_t value)
{
    unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
    LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(llc, kind, value));
}

/* memory(inaccessiblemem: readwrite): ModRef (3) in the bits of InaccessibleMem (location 1). */
#define MEMORY_INACCESSIBLE_READWRITE (3u << 2)

static LLVMValueRef declare(LLVMModuleRef mod, jit_sg_kind kind, jit_sg_arith arith, LLVMTypeRef xt)
{
    LLVMContextRef llc = LLVMGetModuleContext(mod);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(llc), i1 = LLVMInt1TypeInContext(llc);
    char name[96], sfx[16] = "";
    if (xt && kind != JIT_SG_ALL && kind != JIT_SG_ANY && kind != JIT_SG_BALLOT && kind != JIT_SG_ID)
        type_suffix(xt, sfx, sizeof sfx);
    snprintf(name, sizeof name, "%s%s%s%s%s%s", JIT_SG_PREFIX, kind_names[kind], arithmetic(kind) ? "." : "",
             arithmetic(kind) ? arith_names[arith] : "", *sfx ? "." : "", sfx);
    LLVMValueRef f = LLVMGetNamedFunction(mod, name);
    if (f)
        return f;
    LLVMTypeRef ret, params[2];
    unsigned np = 0;
    switch (kind) {
    case JIT_SG_SIZE:
    case JIT_SG_LIVE:
    case JIT_SG_LANE:
    case JIT_SG_FIRST:
        ret = i32;
        break;
    case JIT_SG_ALL:
    case JIT_SG_ANY:
        ret = params[np++] = i1;
        break;
    case JIT_SG_ID:
        ret = params[np++] = i32;
        break;
    case JIT_SG_BALLOT:
        ret = LLVMVectorType(i32, 4);
        params[np++] = i1;
        break;
    case JIT_SG_SHUFFLE:
    case JIT_SG_CLUSTERED:
        ret = params[np++] = xt;
        params[np++] = i32;
        break;
    default:
        ret = params[np++] = xt;
        break;
    }
    f = LLVMAddFunction(mod, name, LLVMFunctionType(ret, params, np, 0));
    add_attr(llc, f, "convergent", 0);
    add_attr(llc, f, "nounwind", 0);
    add_attr(llc, f, "willreturn", 0);
    add_attr(llc, f, "memory", MEMORY_INACCESSIBLE_READWRITE);
    return f;
}

LLVMValueRef jit_sg_build(LLVMBuilderRef b, LLVMModuleRef mod, jit_sg_kind kind, jit_sg_arith arith, LLVMValueRef x,
                          LLVMValueRef arg)
{
    LLVMValueRef f = declare(mod, kind, arith, x ? LLVMTypeOf(x) : NULL);
    LLVMValueRef args[2] = { x, arg };
    unsigned n = LLVMCountParams(f);
    return LLVMBuildCall2(b, LLVMGlobalGetValueType(f), f, args, n, "");
}

bool jit_sg_is_marker_fn(LLVMValueRef f)
{
    size_t len;
    const char *name = f && LLVMIsAFunction(f) ? LLVMGetValueName2(f, &len) : NULL;
    return name && !strncmp(name, JIT_SG_PREFIX, strlen(JIT_SG_PREFIX));
}

bool jit_sg_any_marker(LLVMModuleRef mod)
{
    for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
        if (jit_sg_is_marker_fn(f))
            return true;
    return false;
}

jit_sg_call jit_sg_decode(LLVMValueRef call)
{
    jit_sg_call r = { JIT_SG_NONE, 0 };
    if (!call || !LLVMIsACallInst(call))
        return r;
    LLVMValueRef f = LLVMGetCalledValue(call);
    if (!jit_sg_is_marker_fn(f))
        return r;
    size_t len;
    const char *s = LLVMGetValueName2(f, &len) + strlen(JIT_SG_PREFIX);
    for (unsigned k = JIT_SG_SIZE; k <= JIT_SG_CLUSTERED; k++) {
        size_t kl = strlen(kind_names[k]);
        if (strncmp(s, kind_names[k], kl) || (s[kl] && s[kl] != '.'))
            continue;
        r.kind = (jit_sg_kind)k;
        if (!arithmetic(r.kind))
            return r;
        const char *op = s + kl + (s[kl] == '.');
        for (unsigned a = 0; a < JIT_SG_NARITH; a++) {
            size_t al = strlen(arith_names[a]);
            if (!strncmp(op, arith_names[a], al) && (!op[al] || op[al] == '.')) {
                r.arith = (jit_sg_arith)a;
                return r;
            }
        }
        r.kind = JIT_SG_NONE; /* a malformed name: not ours */
        return r;
    }
    return r;
}

/* --- arithmetic ------------------------------------------------------------------------------- */

static LLVMTypeRef elem_type(LLVMTypeRef t)
{
    return LLVMGetTypeKind(t) == LLVMVectorTypeKind ? LLVMGetElementType(t) : t;
}

static LLVMValueRef splat_const(LLVMTypeRef t, LLVMValueRef c)
{
    if (LLVMGetTypeKind(t) != LLVMVectorTypeKind)
        return c;
    unsigned n = LLVMGetVectorSize(t);
    LLVMValueRef e[64];
    for (unsigned i = 0; i < n && i < 64; i++)
        e[i] = c;
    return LLVMConstVector(e, n);
}

LLVMValueRef jit_sg_identity(jit_sg_arith op, LLVMTypeRef t)
{
    LLVMTypeRef et = elem_type(t);
    bool is_int = LLVMGetTypeKind(et) == LLVMIntegerTypeKind;
    unsigned w = is_int ? LLVMGetIntTypeWidth(et) : 0;
    LLVMValueRef c;
    switch (op) {
    case JIT_SG_MUL:
        c = LLVMConstInt(et, 1, 0);
        break;
    case JIT_SG_FMUL:
        c = LLVMConstReal(et, 1.0);
        break;
    case JIT_SG_FADD:
        c = LLVMConstReal(et, -0.0);
        break;
    case JIT_SG_FMIN:
        c = LLVMConstReal(et, __builtin_inf());
        break;
    case JIT_SG_FMAX:
        c = LLVMConstReal(et, -__builtin_inf());
        break;
    case JIT_SG_SMIN: /* the largest signed value */
        c = w >= 64 ? LLVMConstInt(et, INT64_MAX, 0) : LLVMConstInt(et, (1ull << (w - 1)) - 1, 0);
        break;
    case JIT_SG_SMAX: /* the smallest */
        c = w >= 64 ? LLVMConstInt(et, (unsigned long long)INT64_MIN, 0) : LLVMConstInt(et, 1ull << (w - 1), 0);
        break;
    case JIT_SG_UMIN:
    case JIT_SG_AND:
        c = LLVMConstAllOnes(et);
        break;
    default: /* add, umax, or, xor */
        c = LLVMConstNull(et);
        break;
    }
    return splat_const(t, c);
}

LLVMValueRef jit_sg_excl_start(jit_sg_arith op, LLVMTypeRef t)
{
    return op == JIT_SG_FADD ? LLVMConstNull(t) : jit_sg_identity(op, t);
}

static LLVMValueRef intrinsic2(LLVMBuilderRef b, LLVMModuleRef mod, const char *name, LLVMValueRef x, LLVMValueRef y)
{
    LLVMTypeRef t = LLVMTypeOf(x);
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    LLVMValueRef f = LLVMGetIntrinsicDeclaration(mod, id, &t, 1);
    LLVMValueRef args[2] = { x, y };
    return LLVMBuildCall2(b, LLVMGlobalGetValueType(f), f, args, 2, "");
}

LLVMValueRef jit_sg_combine(LLVMBuilderRef b, LLVMModuleRef mod, jit_sg_arith op, LLVMValueRef x, LLVMValueRef y)
{
    switch (op) {
    case JIT_SG_ADD:
        return LLVMBuildAdd(b, x, y, "");
    case JIT_SG_MUL:
        return LLVMBuildMul(b, x, y, "");
    case JIT_SG_FADD:
        return LLVMBuildFAdd(b, x, y, "");
    case JIT_SG_FMUL:
        return LLVMBuildFMul(b, x, y, "");
    case JIT_SG_SMIN:
        return intrinsic2(b, mod, "llvm.smin", x, y);
    case JIT_SG_UMIN:
        return intrinsic2(b, mod, "llvm.umin", x, y);
    case JIT_SG_FMIN:
        return intrinsic2(b, mod, "llvm.minnum", x, y);
    case JIT_SG_SMAX:
        return intrinsic2(b, mod, "llvm.smax", x, y);
    case JIT_SG_UMAX:
        return intrinsic2(b, mod, "llvm.umax", x, y);
    case JIT_SG_FMAX:
        return intrinsic2(b, mod, "llvm.maxnum", x, y);
    case JIT_SG_AND:
        return LLVMBuildAnd(b, x, y, "");
    case JIT_SG_OR:
        return LLVMBuildOr(b, x, y, "");
    default:
        return LLVMBuildXor(b, x, y, "");
    }
}

/* --- sub-groups of one work-item --------------------------------------------------------------- */

static LLVMValueRef scalar_meaning(LLVMBuilderRef b, LLVMValueRef call, jit_sg_call k)
{
    LLVMTypeRef t = LLVMTypeOf(call);
    LLVMValueRef x = LLVMGetNumArgOperands(call) ? LLVMGetOperand(call, 0) : NULL;
    switch (k.kind) {
    case JIT_SG_SIZE:
    case JIT_SG_LIVE:
        return LLVMConstInt(t, 1, 0);
    case JIT_SG_LANE:
    case JIT_SG_FIRST:
        return LLVMConstInt(t, 0, 0);
    case JIT_SG_BALLOT: {
        LLVMValueRef w = LLVMBuildZExt(b, x, LLVMGetElementType(t), "");
        return LLVMBuildInsertElement(b, LLVMConstNull(t), w,
                                      LLVMConstInt(LLVMInt32TypeInContext(LLVMGetTypeContext(t)), 0, 0), "");
    }
    case JIT_SG_SCAN_EXCL:
        return jit_sg_excl_start(k.arith, t);
    default: /* all, any, shuffle, reduce, inclusive scan, clustered: this lane's own value; id: i / 1 */
        return x;
    }
}

void jit_sg_lower_scalar(LLVMModuleRef mod)
{
    LLVMContextRef llc = LLVMGetModuleContext(mod);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(llc);
    for (LLVMValueRef f = LLVMGetFirstFunction(mod), nf; f; f = nf) {
        nf = LLVMGetNextFunction(f);
        if (!jit_sg_is_marker_fn(f))
            continue;
        LLVMUseRef use;
        while ((use = LLVMGetFirstUse(f))) {
            LLVMValueRef call = LLVMGetUser(use);
            jit_sg_call k = jit_sg_decode(call);
            LLVMPositionBuilderBefore(b, call);
            LLVMValueRef r = k.kind ? scalar_meaning(b, call, k) : LLVMGetUndef(LLVMTypeOf(call));
            if (LLVMGetTypeKind(LLVMTypeOf(call)) != LLVMVoidTypeKind)
                LLVMReplaceAllUsesWith(call, r);
            LLVMInstructionEraseFromParent(call);
        }
        LLVMDeleteFunction(f);
    }
    LLVMDisposeBuilder(b);
}

/* --- sub-groups of W work-items, one work-item at a time ----------------------------------------- */

bool jit_sg_per_item(LLVMValueRef fn)
{
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
            jit_sg_kind k = jit_sg_decode(i).kind;
            if (k != JIT_SG_NONE && k != JIT_SG_SIZE && k != JIT_SG_LANE && k != JIT_SG_ID)
                return false;
        }
    return true;
}

void jit_sg_lower_per_item(LLVMValueRef fn, unsigned w, LLVMValueRef index)
{
    LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(fn)));
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i; i = next) {
            next = LLVMGetNextInstruction(i);
            jit_sg_kind k = jit_sg_decode(i).kind;
            if (k == JIT_SG_NONE)
                continue;
            LLVMValueRef wv = LLVMConstInt(LLVMTypeOf(i), w, 0);
            LLVMPositionBuilderBefore(b, i);
            LLVMValueRef r = k == JIT_SG_SIZE   ? wv
                             : k == JIT_SG_LANE ? LLVMBuildURem(b, index, wv, "")
                                                : LLVMBuildUDiv(b, LLVMGetOperand(i, 0), wv, "");
            LLVMReplaceAllUsesWith(i, r);
            LLVMInstructionEraseFromParent(i);
        }
    LLVMDisposeBuilder(b);
}
