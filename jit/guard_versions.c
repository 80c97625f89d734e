/* jit/guard_versions.c — bounds checks proven once per work-group (see guard_versions.h). */
#include "guard_versions.h"

#include <stddef.h>
#include <string.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "cfg.h"
#include "util/hashmap.h"

/* the body's ctx, local ids, local size and WorkgroupId parameters (workgroup.c) */
enum { GROUP_ID = 7, NFIXED = 10 };

/* The range of a body value over the group: i128 bounds built in spvjit_wg,
 * `ok` (i1) when no step of the body's arithmetic could have wrapped. */
typedef struct range {
    bool known; /* false: the value cannot be followed */
    LLVMValueRef lo, hi, ok;
    unsigned inside; /* a loop counter's range holds inside its loop: in blocks this block
                        dominates (JIT_CFG_NONE: everywhere) */
} range;

typedef struct analysis {
    lower_ctx *c;
    LLVMValueRef body, item; /* the body and its item-state alloca */
    LLVMValueRef const *args;
    const uint32_t *ls;
    LLVMTypeRef i128;
    util_hashmap memo; /* body value → range (arena), or &busy while being followed */
    jit_cfg cfg;       /* of the body */
    bool oom;
} analysis;

static range busy;

static LLVMValueRef k128(analysis *a, int64_t v)
{
    return LLVMConstInt(a->i128, (uint64_t)v, 1);
}

static LLVMValueRef lt(analysis *a, LLVMValueRef x, LLVMValueRef y)
{
    return LLVMBuildICmp(a->c->b, LLVMIntSLT, x, y, "");
}

static LLVMValueRef min2(analysis *a, LLVMValueRef x, LLVMValueRef y)
{
    return LLVMBuildSelect(a->c->b, lt(a, x, y), x, y, "");
}

static LLVMValueRef max2(analysis *a, LLVMValueRef x, LLVMValueRef y)
{
    return LLVMBuildSelect(a->c->b, lt(a, x, y), y, x, "");
}

static LLVMValueRef both(analysis *a, LLVMValueRef x, LLVMValueRef y)
{
    return LLVMBuildAnd(a->c->b, x, y, "");
}

static range unknown(void)
{
    return (range){ .inside = JIT_CFG_NONE };
}

static range make(analysis *a, LLVMValueRef lo, LLVMValueRef hi, LLVMValueRef ok)
{
    (void)a;
    return (range){ true, lo, hi, ok, JIT_CFG_NONE };
}

/* r with where x and y hold: the deeper of two nested loops, unknown for unrelated ones. */
static range inside(analysis *a, range r, range x, range y)
{
    unsigned p = x.inside, q = y.inside;
    if (!r.known || p == JIT_CFG_NONE || q == JIT_CFG_NONE || p == q)
        r.inside = p == JIT_CFG_NONE ? q : p;
    else if (jit_cfg_dominates(&a->cfg, p, q))
        r.inside = q;
    else if (jit_cfg_dominates(&a->cfg, q, p))
        r.inside = p;
    else
        r = unknown();
    return r;
}

/* ok of r, and its bounds within the signed range of `bits` (the body's
 * arithmetic did not wrap). */
static LLVMValueRef fits(analysis *a, range r, unsigned bits)
{
    if (bits >= 128)
        return r.ok;
    int64_t top = bits >= 64 ? INT64_MAX : (int64_t)((1ull << (bits - 1)) - 1);
    int64_t bottom = -top - 1;
    LLVMValueRef in = both(a, LLVMBuildICmp(a->c->b, LLVMIntSGE, r.lo, k128(a, bottom), ""),
                           LLVMBuildICmp(a->c->b, LLVMIntSLE, r.hi, k128(a, top), ""));
    return both(a, r.ok, in);
}

static LLVMValueRef nonnegative(analysis *a, range r)
{
    return both(a, r.ok, LLVMBuildICmp(a->c->b, LLVMIntSGE, r.lo, k128(a, 0), ""));
}

static range follow(analysis *a, LLVMValueRef v);

/* --- what is the same for the whole group ------------------------------------------------------ */

/* A pointer as (body parameter, byte offset), through constant GEPs on i8 and
 * loads of item-state fields the body's entry fills with a parameter. */
static bool address_of(analysis *a, LLVMValueRef p, int *param, int64_t *off, int depth);

static int param_index_of(analysis *a, LLVMValueRef arg)
{
    for (unsigned i = 0, n = LLVMCountParams(a->body); i < n; i++)
        if (LLVMGetParam(a->body, i) == arg)
            return (int)i;
    return -1;
}

/* The body parameter whose value the body's entry stores at item-state byte k, or -1. */
static int item_field(analysis *a, int64_t k)
{
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(a->body);
    lower_ctx *c = a->c;
    bool env = k >= 0 && (uint64_t)k < JIT_ITEM_ENV + 8ull * (JIT_ENV_RES0 + c->nres_slots);
    bool bounds =
        c->env_bounds && (uint64_t)k >= c->env_bounds && (uint64_t)k < c->env_bounds + 8ull * jit_bounds_env_count(c);
    if (!env && !bounds)
        return -1; /* Private variables: not the same for the group */
    for (LLVMValueRef i = LLVMGetFirstInstruction(entry); i; i = LLVMGetNextInstruction(i)) {
        int p;
        int64_t o;
        if (LLVMIsAStoreInst(i) && address_of(a, LLVMGetOperand(i, 1), &p, &o, 8) && p == -2 && o == k) {
            LLVMValueRef v = LLVMGetOperand(i, 0);
            return LLVMIsAArgument(v) ? param_index_of(a, v) : -1;
        }
    }
    return -1;
}

/* param -2 is the item state */
static bool address_of(analysis *a, LLVMValueRef p, int *param, int64_t *off, int depth)
{
    if (depth <= 0)
        return false;
    if (p == a->item) {
        *param = -2;
        *off = 0;
        return true;
    }
    if (LLVMIsAArgument(p)) {
        *param = param_index_of(a, p);
        *off = 0;
        return *param >= 0;
    }
    if (LLVMIsAGetElementPtrInst(p) && LLVMGetNumOperands(p) == 2 && LLVMGetGEPSourceElementType(p) == a->c->t_i8 &&
        LLVMIsAConstantInt(LLVMGetOperand(p, 1))) {
        if (!address_of(a, LLVMGetOperand(p, 0), param, off, depth - 1))
            return false;
        *off += LLVMConstIntGetSExtValue(LLVMGetOperand(p, 1));
        return true;
    }
    if (LLVMIsALoadInst(p)) { /* a pointer the entry stored in the item state */
        int q;
        int64_t k;
        if (!address_of(a, LLVMGetOperand(p, 0), &q, &k, depth - 1) || q != -2)
            return false;
        *param = item_field(a, k);
        *off = 0;
        return *param >= 0;
    }
    return false;
}

/* Whether memory at (param, off) holds the same bytes for the whole group:
 * the ctx's dispatch and group fields, spec values, push constants, a Kernel
 * argument's by-value bytes. */
static bool invariant_memory(analysis *a, int param, int64_t off)
{
    lower_ctx *c = a->c;
    if (param == 0)
        return off >= 0 && off < (int64_t)offsetof(spvjit_wg_ctx, args);
    if (param == NFIXED + JIT_ENV_SPEC || param == NFIXED + JIT_ENV_PUSH)
        return true;
    int k = param - NFIXED - (int)(JIT_ENV_RES0 + c->nres_slots);
    return k >= 0 && (uint32_t)k < c->nparams && c->params[k].kind == SPVJIT_PARAM_VALUE &&
           c->params[k].storage == SpvStorageClassFunction;
}

/* A load of memory the whole group shares, made again in spvjit_wg. */
static range leaf_load(analysis *a, LLVMValueRef ld)
{
    LLVMTypeRef t = LLVMTypeOf(ld);
    int param;
    int64_t off;
    if (LLVMGetTypeKind(t) != LLVMIntegerTypeKind || LLVMGetIntTypeWidth(t) > 64 || LLVMGetVolatile(ld) ||
        !address_of(a, LLVMGetOperand(ld, 0), &param, &off, 16))
        return unknown();
    if (param == -2) { /* an item-state field: the parameter the entry stored */
        int p = item_field(a, off);
        if (p < GROUP_ID || !a->args[p] || LLVMTypeOf(a->args[p]) != t)
            return unknown();
        LLVMValueRef x = LLVMBuildSExt(a->c->b, a->args[p], a->i128, "");
        return make(a, x, x, LLVMConstInt(a->c->t_i1, 1, 0));
    }
    if (param < 0 || !a->args[param] || !invariant_memory(a, param, off))
        return unknown();
    lower_ctx *c = a->c;
    LLVMValueRef v =
        LLVMBuildLoad2(c->b, t, jit_byte_gep(c, a->args[param], LLVMConstInt(c->t_i64, (uint64_t)off, 0), true), "");
    LLVMSetAlignment(v, LLVMGetAlignment(ld));
    LLVMValueRef x = LLVMBuildSExt(c->b, v, a->i128, "");
    return make(a, x, x, LLVMConstInt(c->t_i1, 1, 0));
}

/* --- following the body's arithmetic ------------------------------------------------------------ */

static unsigned bits_of(LLVMValueRef v)
{
    LLVMTypeRef t = LLVMTypeOf(v);
    return LLVMGetTypeKind(t) == LLVMIntegerTypeKind ? LLVMGetIntTypeWidth(t) : 0;
}

static bool const_of(LLVMValueRef v, int64_t *k)
{
    if (!LLVMIsAConstantInt(v) || bits_of(v) > 64)
        return false;
    *k = LLVMConstIntGetSExtValue(v);
    return true;
}

static range product(analysis *a, range x, range y, unsigned bits)
{
    LLVMBuilderRef b = a->c->b;
    LLVMValueRef p[4] = { LLVMBuildMul(b, x.lo, y.lo, ""), LLVMBuildMul(b, x.lo, y.hi, ""),
                          LLVMBuildMul(b, x.hi, y.lo, ""), LLVMBuildMul(b, x.hi, y.hi, "") };
    range r = make(a, min2(a, min2(a, p[0], p[1]), min2(a, p[2], p[3])),
                   max2(a, max2(a, p[0], p[1]), max2(a, p[2], p[3])), both(a, x.ok, y.ok));
    r.ok = fits(a, r, bits);
    return inside(a, r, x, y);
}

static range intrinsic(analysis *a, LLVMValueRef call, unsigned bits)
{
    LLVMValueRef f = LLVMGetCalledValue(call);
    size_t len;
    const char *name = LLVMIsAFunction(f) ? LLVMGetValueName2(f, &len) : "";
    if (LLVMGetNumArgOperands(call) != 2)
        return unknown();
    bool smin = !strncmp(name, "llvm.smin.", 10), smax = !strncmp(name, "llvm.smax.", 10);
    bool umin = !strncmp(name, "llvm.umin.", 10), umax = !strncmp(name, "llvm.umax.", 10);
    bool usub = !strncmp(name, "llvm.usub.sat.", 14);
    if (!smin && !smax && !umin && !umax && !usub)
        return unknown();
    range x = follow(a, LLVMGetOperand(call, 0)), y = follow(a, LLVMGetOperand(call, 1));
    if (!x.known || !y.known)
        return unknown();
    LLVMValueRef ok = both(a, x.ok, y.ok);
    if (umin || umax || usub) /* unsigned: the signed bounds hold only for non-negative operands */
        ok = both(a, nonnegative(a, x), nonnegative(a, y));
    (void)bits;
    LLVMValueRef zero = k128(a, 0);
    LLVMBuilderRef b = a->c->b;
    range r = usub           ? make(a, max2(a, LLVMBuildSub(b, x.lo, y.hi, ""), zero),
                                    max2(a, LLVMBuildSub(b, x.hi, y.lo, ""), zero), ok)
              : smin || umin ? make(a, min2(a, x.lo, y.lo), min2(a, x.hi, y.hi), ok)
                             : make(a, max2(a, x.lo, y.lo), max2(a, x.hi, y.hi), ok);
    return inside(a, r, x, y);
}

/* A loop counter: phi [init, outside], [phi + step, latch] (step > 0), whose
 * block branches into the loop on phi < bound (or <=): [init, bound - 1]
 * in the blocks the loop's side of that branch dominates. */
static range counter(analysis *a, LLVMValueRef phi)
{
    if (LLVMCountIncoming(phi) != 2)
        return unknown();
    LLVMValueRef init = NULL;
    int64_t step = 0, k;
    for (unsigned i = 0; i < 2; i++) {
        LLVMValueRef v = LLVMGetIncomingValue(phi, i);
        if (LLVMIsAInstruction(v) && LLVMGetInstructionOpcode(v) == LLVMAdd &&
            (LLVMGetOperand(v, 0) == phi || LLVMGetOperand(v, 1) == phi) &&
            const_of(LLVMGetOperand(v, LLVMGetOperand(v, 0) == phi ? 1 : 0), &k) && k > 0)
            step = k;
        else
            init = v;
    }
    if (!init || !step)
        return unknown();
    LLVMBasicBlockRef bb = LLVMGetInstructionParent(phi);
    LLVMValueRef br = LLVMGetBasicBlockTerminator(bb);
    if (!br || LLVMGetInstructionOpcode(br) != LLVMBr || !LLVMIsConditional(br))
        return unknown();
    LLVMValueRef cmp = LLVMGetCondition(br);
    if (!LLVMIsAICmpInst(cmp) || LLVMGetOperand(cmp, 0) != phi)
        return unknown();
    LLVMIntPredicate pred = LLVMGetICmpPredicate(cmp);
    bool strict = pred == LLVMIntSLT || pred == LLVMIntULT;
    if (!strict && pred != LLVMIntSLE && pred != LLVMIntULE)
        return unknown();
    range lo = follow(a, init), hi = follow(a, LLVMGetOperand(cmp, 1));
    if (!lo.known || !hi.known)
        return unknown();
    unsigned body = jit_cfg_index(&a->cfg, LLVMGetSuccessor(br, 0));
    if (body == JIT_CFG_NONE || jit_cfg_npred(&a->cfg, body) != 1)
        return unknown(); /* the loop's side must be entered from the test only */
    LLVMBuilderRef b = a->c->b;
    LLVMValueRef top = strict ? LLVMBuildSub(b, hi.hi, k128(a, 1), "") : hi.hi;
    /* from one start the counter stops at the last step at or below the bound */
    LLVMValueRef span = max2(a, LLVMBuildSub(b, top, lo.lo, ""), k128(a, 0));
    LLVMValueRef last =
        LLVMBuildAdd(b, lo.lo, LLVMBuildMul(b, LLVMBuildSDiv(b, span, k128(a, step), ""), k128(a, step), ""), "");
    top = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, lo.lo, lo.hi, ""), last, top, "");
    LLVMValueRef ok = both(a, lo.ok, hi.ok);
    if (pred == LLVMIntULT || pred == LLVMIntULE)
        ok = both(a, ok, both(a, nonnegative(a, lo), nonnegative(a, hi)));
    range r = inside(a, make(a, lo.lo, max2(a, lo.lo, top), ok), lo, hi);
    range at = make(a, r.lo, r.hi, r.ok);
    at.inside = body;
    return r.known ? inside(a, at, r, at) : r;
}

static range instruction(analysis *a, LLVMValueRef v)
{
    LLVMBuilderRef b = a->c->b;
    unsigned bits = bits_of(v);
    LLVMOpcode op = LLVMGetInstructionOpcode(v);
    int64_t k;
    switch (op) {
    case LLVMAdd:
    case LLVMSub: {
        range x = follow(a, LLVMGetOperand(v, 0)), y = follow(a, LLVMGetOperand(v, 1));
        if (!x.known || !y.known)
            return unknown();
        range r = op == LLVMAdd
                      ? make(a, LLVMBuildAdd(b, x.lo, y.lo, ""), LLVMBuildAdd(b, x.hi, y.hi, ""), both(a, x.ok, y.ok))
                      : make(a, LLVMBuildSub(b, x.lo, y.hi, ""), LLVMBuildSub(b, x.hi, y.lo, ""), both(a, x.ok, y.ok));
        r.ok = fits(a, r, bits);
        return inside(a, r, x, y);
    }
    case LLVMMul: {
        range x = follow(a, LLVMGetOperand(v, 0)), y = follow(a, LLVMGetOperand(v, 1));
        return x.known && y.known ? product(a, x, y, bits) : unknown();
    }
    case LLVMShl: {
        range x = follow(a, LLVMGetOperand(v, 0));
        if (!x.known || !const_of(LLVMGetOperand(v, 1), &k) || k < 0 || k >= (int64_t)bits || k > 62)
            return unknown();
        range s = make(a, k128(a, (int64_t)1 << k), k128(a, (int64_t)1 << k), LLVMConstInt(a->c->t_i1, 1, 0));
        return product(a, x, s, bits);
    }
    case LLVMLShr:
    case LLVMAShr: {
        range x = follow(a, LLVMGetOperand(v, 0));
        if (!x.known || !const_of(LLVMGetOperand(v, 1), &k) || k < 0 || k >= (int64_t)bits)
            return unknown();
        LLVMValueRef s = k128(a, k);
        range r = make(a, LLVMBuildAShr(b, x.lo, s, ""), LLVMBuildAShr(b, x.hi, s, ""),
                       op == LLVMLShr ? nonnegative(a, x) : x.ok);
        r.inside = x.inside;
        return r;
    }
    case LLVMAnd: /* with a non-negative constant c: within [0, c] whatever the other is */
        for (unsigned i = 0; i < 2; i++)
            if (const_of(LLVMGetOperand(v, i), &k) && k >= 0)
                return make(a, k128(a, 0), k128(a, k), LLVMConstInt(a->c->t_i1, 1, 0));
        return unknown();
    case LLVMURem:
        if (const_of(LLVMGetOperand(v, 1), &k) && k > 0)
            return make(a, k128(a, 0), k128(a, k - 1), LLVMConstInt(a->c->t_i1, 1, 0));
        return unknown();
    case LLVMUDiv: {
        range x = follow(a, LLVMGetOperand(v, 0));
        if (!x.known || !const_of(LLVMGetOperand(v, 1), &k) || k <= 0)
            return unknown();
        LLVMValueRef d = k128(a, k);
        range r = make(a, LLVMBuildSDiv(b, x.lo, d, ""), LLVMBuildSDiv(b, x.hi, d, ""), nonnegative(a, x));
        r.inside = x.inside;
        return r;
    }
    case LLVMSExt:
    case LLVMFreeze:
        return follow(a, LLVMGetOperand(v, 0));
    case LLVMZExt: {
        if (bits_of(LLVMGetOperand(v, 0)) == 1)
            return make(a, k128(a, 0), k128(a, 1), LLVMConstInt(a->c->t_i1, 1, 0));
        range x = follow(a, LLVMGetOperand(v, 0));
        if (x.known)
            x.ok = nonnegative(a, x);
        return x;
    }
    case LLVMTrunc: {
        range x = follow(a, LLVMGetOperand(v, 0));
        if (x.known)
            x.ok = fits(a, x, bits);
        return x;
    }
    case LLVMSelect: {
        range x = follow(a, LLVMGetOperand(v, 1)), y = follow(a, LLVMGetOperand(v, 2));
        if (!x.known || !y.known)
            return unknown();
        return inside(a, make(a, min2(a, x.lo, y.lo), max2(a, x.hi, y.hi), both(a, x.ok, y.ok)), x, y);
    }
    case LLVMPHI: {
        range r = counter(a, v);
        if (r.known)
            return r;
        for (unsigned i = 0, n = LLVMCountIncoming(v); i < n; i++) {
            range x = follow(a, LLVMGetIncomingValue(v, i));
            if (!x.known)
                return unknown();
            r = r.known ? inside(a, make(a, min2(a, r.lo, x.lo), max2(a, r.hi, x.hi), both(a, r.ok, x.ok)), r, x) : x;
        }
        return r;
    }
    case LLVMExtractElement: /* a component of a vector built by insertelement (builtin ids) */
        if (!const_of(LLVMGetOperand(v, 1), &k))
            return unknown();
        for (LLVMValueRef vec = LLVMGetOperand(v, 0); vec;) {
            int64_t at;
            if (LLVMIsAInsertElementInst(vec) && const_of(LLVMGetOperand(vec, 2), &at)) {
                if (at == k)
                    return follow(a, LLVMGetOperand(vec, 1));
                vec = LLVMGetOperand(vec, 0);
            } else if (LLVMIsAConstant(vec)) {
                LLVMValueRef e = LLVMGetAggregateElement(vec, (unsigned)k);
                return e ? follow(a, e) : unknown();
            } else {
                break;
            }
        }
        return unknown();
    case LLVMCall:
        return intrinsic(a, v, bits);
    case LLVMLoad:
        return leaf_load(a, v);
    default:
        return unknown();
    }
}

static range follow(analysis *a, LLVMValueRef v)
{
    unsigned bits = bits_of(v);
    if (!bits || bits > 64)
        return unknown();
    int64_t k;
    if (const_of(v, &k))
        return make(a, k128(a, k), k128(a, k), LLVMConstInt(a->c->t_i1, 1, 0));
    range *m = util_ptrmap_get(&a->memo, v);
    if (m == &busy)
        return unknown(); /* a cycle (a loop's phi): not followed */
    if (m)
        return *m;
    range r = unknown();
    if (LLVMIsAArgument(v)) {
        int p = param_index_of(a, v);
        if (p >= 1 && p <= 3) { /* local ids: [0, size - 1] */
            uint32_t n = a->ls[p - 1];
            r = make(a, k128(a, 0), k128(a, (int64_t)n - 1), LLVMConstInt(a->c->t_i1, 1, 0));
        } else if (p >= 4 && p <= 6) {
            r = make(a, k128(a, a->ls[p - 4]), k128(a, a->ls[p - 4]), LLVMConstInt(a->c->t_i1, 1, 0));
        } else if (p >= GROUP_ID && a->args[p] && LLVMTypeOf(a->args[p]) == LLVMTypeOf(v)) {
            LLVMValueRef x = LLVMBuildSExt(a->c->b, a->args[p], a->i128, "");
            r = make(a, x, x, LLVMConstInt(a->c->t_i1, 1, 0));
        }
    } else if (LLVMIsAInstruction(v) && LLVMGetInstructionParent(v) &&
               LLVMGetBasicBlockParent(LLVMGetInstructionParent(v)) == a->body) {
        if (!util_ptrmap_put(&a->memo, v, &busy)) {
            a->oom = true;
            return unknown();
        }
        r = instruction(a, v);
    }
    /* from the compile's arena, but no jump out on failure (jit_alloc's): the
     * analysis holds heap memory (the CFG, the memo) it must free */
    range *keep = util_arena_array(&a->c->arena, 1, sizeof *keep);
    if (keep)
        *keep = r;
    if (!keep || !util_ptrmap_put(&a->memo, v, keep))
        a->oom = true;
    return r;
}

/* --- the checks ---------------------------------------------------------------------------------------- */

/* Whether `inb` (icmp ult off, limit) holds for the whole group: i1, or NULL when it cannot be proven. */
static LLVMValueRef proven(analysis *a, LLVMValueRef inb)
{
    if (!LLVMIsAICmpInst(inb) || LLVMGetICmpPredicate(inb) != LLVMIntULT)
        return NULL;
    range off = follow(a, LLVMGetOperand(inb, 0)), lim = follow(a, LLVMGetOperand(inb, 1));
    if (!off.known || !lim.known)
        return NULL;
    off = inside(a, off, off, lim);
    unsigned at = jit_cfg_index(&a->cfg, LLVMGetInstructionParent(inb));
    if (!off.known || (off.inside != JIT_CFG_NONE && !jit_cfg_dominates(&a->cfg, off.inside, at)))
        return NULL; /* a loop counter's range, used outside its loop */
    LLVMBuilderRef b = a->c->b;
    LLVMValueRef ok = both(a, both(a, off.ok, lim.ok), nonnegative(a, off));
    return both(a, ok, LLVMBuildICmp(b, LLVMIntSLT, off.hi, lim.lo, ""));
}

int jit_guard_versions_inline(lower_ctx *c, LLVMValueRef body)
{
    if (!c->item_fast)
        return 0;
    /* the body has no caller yet: without its alwaysinline the inliner keeps it */
    unsigned always = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
    LLVMRemoveEnumAttributeAtIndex(body, LLVMAttributeFunctionIndex, always);
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
    /* SROA: the values of Function variables and the item state's fields as SSA values, to follow */
    LLVMErrorRef e = LLVMRunPasses(c->mod, "always-inline,function(sroa)", NULL, po);
    LLVMDisposePassBuilderOptions(po);
    jit_add_attr(c, body, LLVMAttributeFunctionIndex, "alwaysinline");
    if (!e)
        return 0;
    char *msg = LLVMGetErrorMessage(e);
    jit_fail(c, "internal error: inlining the item body: %s", msg);
    LLVMDisposeErrorMessage(msg);
    return -1;
}

LLVMValueRef jit_guard_versions(lower_ctx *c, LLVMValueRef body, LLVMValueRef const *args, const uint32_t ls[3])
{
    if (!c->item_fast)
        return NULL;
    analysis a = { .c = c, .body = body, .args = args, .ls = ls, .i128 = LLVMIntTypeInContext(c->llc, 128) };
    for (LLVMValueRef i = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(body)); i && !a.item;
         i = LLVMGetNextInstruction(i)) {
        size_t len;
        const char *name = LLVMGetValueName2(i, &len);
        if (LLVMIsAAllocaInst(i) && len == 4 && !memcmp(name, "item", 4))
            a.item = i; /* (SROA may have taken it apart: the fields are then the parameters) */
    }
    util_hashmap_init(&a.memo, NULL);
    if (jit_cfg_build(&a.cfg, body)) {
        util_hashmap_fini(&a.memo);
        return NULL;
    }
    unsigned kind = LLVMGetMDKindIDInContext(c->llc, JIT_GUARD_MD, strlen(JIT_GUARD_MD));
    LLVMValueRef all = NULL;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(body); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i; i = next) {
            next = LLVMGetNextInstruction(i);
            if (!LLVMGetMetadata(i, kind))
                continue;
            LLVMValueRef inb = LLVMGetOperand(i, 1), ok = proven(&a, inb);
            if (ok) {
                all = all ? both(&a, all, ok) : ok;
            } else { /* not provable for the group: the compare alone */
                LLVMReplaceAllUsesWith(i, inb);
                LLVMInstructionEraseFromParent(i);
            }
        }
    util_hashmap_fini(&a.memo);
    jit_cfg_free(&a.cfg);
    return a.oom ? NULL : all; /* out of memory: every group takes the checks (the flag stays clear) */
}
