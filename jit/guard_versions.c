/* jit/guard_versions.c — bounds checks proven once for many work-groups (see guard_versions.h). */
#include "guard_versions.h"

#include <stddef.h>
#include <string.h>

#include "cfg.h"
#include "llvm_facts.h"
#include "proof.h"
#include "sg_marker.h"
#include "simd.h"
#include "util/hashmap.h"

/* the body's ctx, local ids, local size and WorkgroupId parameters (workgroup.c) */
enum { GROUP_ID = 7, NFIXED = 10 };

/* The range of a body value over the groups proven together: its lowest and
 * highest value as values of the proof's program (proof.h), `ok` (1 or 0)
 * when no step of the body's arithmetic could have wrapped. */
typedef struct range {
    bool known; /* false: the value cannot be followed */
    jit_pv lo, hi, ok;
    unsigned inside; /* a loop counter's range holds inside its loop: in blocks this block
                        dominates (JIT_CFG_NONE: everywhere) */
    unsigned mag;    /* lo and hi are signed numbers of at most this many bits (where ok): a
                        step that stays within its type needs no test (128: unknown) */
} range;

/* What a branch on the way to a check says: `v pred bound` holds there. */
typedef struct constraint {
    LLVMValueRef v, bound;
    LLVMIntPredicate pred;
    /* what was compared: v itself (or its sign extension: the same value),
     * or v's zero extension or truncation, equal to v only where v's range says */
    enum { AS_IS, ZEXT_OF_V, TRUNC_OF_V } via;
    unsigned bits; /* ZEXT_OF_V, TRUNC_OF_V: the width of v, of the truncation */
} constraint;

enum { MAX_CONSTRAINTS = 32 };

typedef struct analysis {
    lower_ctx *c;
    LLVMValueRef body, item; /* the body and its item-state alloca */
    LLVMValueRef const *args;
    LLVMValueRef const *group_hi; /* [3] the highest WorkgroupId of the groups proven together */
    const uint32_t *ls;
    jit_proof prog;                   /* the proof being written */
    util_hashmap memo;                /* body value → range (arena), or &busy while being followed */
    util_hashmap local;               /* the same for ranges that use the constraints of the check being proven */
    unsigned narrowed;                /* counts the uses of constraints: a range followed across a change used them */
    jit_cfg cfg;                      /* of the body */
    constraint cons[MAX_CONSTRAINTS]; /* the branches dominating the check being proven */
    unsigned ncons;
    bool oom;
} analysis;

static range busy;

static jit_pv k128(analysis *a, int64_t v)
{
    return jit_proof_const(&a->prog, v);
}

static jit_pv op2(analysis *a, jit_proof_opcode op, jit_pv x, jit_pv y)
{
    return jit_proof_op(&a->prog, op, x, y, 0);
}

/* The proof's binary operations by name (`both`: the and of two 1-or-0 values). */
#define PROOF_OP2(name, opcode)                                                                                        \
    static jit_pv name(analysis *a, jit_pv x, jit_pv y)                                                                \
    {                                                                                                                  \
        return op2(a, opcode, x, y);                                                                                   \
    }
PROOF_OP2(lt, JIT_PROOF_LT)
PROOF_OP2(le, JIT_PROOF_LE)
PROOF_OP2(min2, JIT_PROOF_MIN)
PROOF_OP2(max2, JIT_PROOF_MAX)
PROOF_OP2(add, JIT_PROOF_ADD)
PROOF_OP2(sub, JIT_PROOF_SUB)
PROOF_OP2(mul, JIT_PROOF_MUL)
PROOF_OP2(both, JIT_PROOF_AND)
#undef PROOF_OP2

/* cond ? x : y */
static jit_pv pick(analysis *a, jit_pv cond, jit_pv x, jit_pv y)
{
    return jit_proof_op(&a->prog, JIT_PROOF_SELECT, cond, x, y);
}

static jit_pv yes(analysis *a)
{
    return k128(a, 1);
}

static range unknown(void)
{
    return (range){ .inside = JIT_CFG_NONE };
}

static range make(analysis *a, jit_pv lo, jit_pv hi, jit_pv ok)
{
    (void)a;
    return (range){ true, lo, hi, ok, JIT_CFG_NONE, 128 };
}

/* r, known to be numbers of `mag` bits */
static range sized(range r, unsigned mag)
{
    r.mag = mag < 128 ? mag : 128;
    return r;
}

static unsigned wider(range x, range y)
{
    return x.mag > y.mag ? x.mag : y.mag;
}

/* The bits of k as a signed number. */
static unsigned sbits(int64_t k)
{
    uint64_t u = k < 0 ? ~(uint64_t)k : (uint64_t)k;
    return u ? 65 - (unsigned)__builtin_clzll(u) : 1;
}

/* A constant's range. */
static range constant(analysis *a, int64_t k)
{
    return sized(make(a, k128(a, k), k128(a, k), yes(a)), sbits(k));
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
static jit_pv fits(analysis *a, range r, unsigned bits)
{
    if (bits >= 128 || r.mag <= bits)
        return r.ok;
    int64_t top = bits >= 64 ? INT64_MAX : (int64_t)((1ull << (bits - 1)) - 1);
    return both(a, r.ok, both(a, le(a, k128(a, -top - 1), r.lo), le(a, r.hi, k128(a, top))));
}

static jit_pv nonnegative(analysis *a, range r)
{
    return both(a, r.ok, le(a, k128(a, 0), r.lo));
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

/* Body parameter p >= GROUP_ID: WorkgroupId over the groups proven together,
 * environment values the same for all of them. */
static range group_param(analysis *a, int p)
{
    LLVMBuilderRef b = a->c->b;
    jit_pv lo = jit_proof_leaf(&a->prog, LLVMBuildSExt(b, a->args[p], a->c->t_i64, "")), hi = lo;
    if (p < GROUP_ID + 3 && a->group_hi)
        hi = jit_proof_leaf(&a->prog, LLVMBuildSExt(b, a->group_hi[p - GROUP_ID], a->c->t_i64, ""));
    return sized(make(a, lo, hi, yes(a)), LLVMGetIntTypeWidth(LLVMTypeOf(a->args[p])));
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
        return group_param(a, p);
    }
    if (param < 0 || !a->args[param] || !invariant_memory(a, param, off))
        return unknown();
    lower_ctx *c = a->c;
    LLVMValueRef v =
        LLVMBuildLoad2(c->b, t, jit_byte_gep(c, a->args[param], LLVMConstInt(c->t_i64, (uint64_t)off, 0), true), "");
    LLVMSetAlignment(v, LLVMGetAlignment(ld));
    jit_pv x = jit_proof_leaf(&a->prog, LLVMBuildSExt(c->b, v, c->t_i64, ""));
    return sized(make(a, x, x, yes(a)), LLVMGetIntTypeWidth(t));
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

/* The constant a range is, if it is one. */
static bool point_of(analysis *a, range r, jit_proof_int *k)
{
    return r.lo == r.hi && jit_proof_const_of(&a->prog, r.lo, k);
}

static range product(analysis *a, range x, range y, unsigned bits)
{
    jit_proof_int k;
    range r;
    if (point_of(a, x, &k) || point_of(a, y, &k)) { /* scaled by a constant: the ends stay ends */
        range v = point_of(a, y, &k) ? x : y;
        jit_pv lo = mul(a, v.lo, jit_proof_const(&a->prog, k)), hi = mul(a, v.hi, jit_proof_const(&a->prog, k));
        r = make(a, k < 0 ? hi : lo, k < 0 ? lo : hi, both(a, x.ok, y.ok));
    } else if (x.lo == x.hi || y.lo == y.hi) { /* scaled by one value: its sign picks the ends */
        range v = y.lo == y.hi ? x : y, s = y.lo == y.hi ? y : x;
        jit_pv p0 = mul(a, v.lo, s.lo), p1 = mul(a, v.hi, s.lo);
        r = make(a, min2(a, p0, p1), max2(a, p0, p1), both(a, x.ok, y.ok));
    } else {
        jit_pv p[4] = { mul(a, x.lo, y.lo), mul(a, x.lo, y.hi), mul(a, x.hi, y.lo), mul(a, x.hi, y.hi) };
        r = make(a, min2(a, min2(a, p[0], p[1]), min2(a, p[2], p[3])),
                 max2(a, max2(a, p[0], p[1]), max2(a, p[2], p[3])), both(a, x.ok, y.ok));
    }
    r = sized(r, x.mag + y.mag);
    r.ok = fits(a, r, bits);
    return inside(a, r, x, y);
}

static range intrinsic(analysis *a, LLVMValueRef call, unsigned bits);

/* The sub-group builtins (sg_marker.h), whatever width the vectorizer gives
 * the sub-groups (1 to JIT_SIMD_MAX_WIDTH): size and live in [1, max], lane
 * and first in [0, max - 1], id(i) = i / W in [0, i] (s[gl_SubgroupID]);
 * NumSubgroups follows from the size by a division.  Other calls: the
 * intrinsics. */
static range sub_group_marker(analysis *a, LLVMValueRef call)
{
    jit_sg_kind kind = jit_sg_decode(call).kind;
    switch (kind) {
    case JIT_SG_SIZE:
    case JIT_SG_LIVE:
        return sized(make(a, k128(a, 1), k128(a, JIT_SIMD_MAX_WIDTH), yes(a)), sbits(JIT_SIMD_MAX_WIDTH));
    case JIT_SG_LANE:
    case JIT_SG_FIRST:
        return sized(make(a, k128(a, 0), k128(a, JIT_SIMD_MAX_WIDTH - 1), yes(a)), sbits(JIT_SIMD_MAX_WIDTH));
    case JIT_SG_ID: {
        range i = follow(a, LLVMGetOperand(call, 0));
        if (!i.known)
            return unknown();
        range r = sized(make(a, k128(a, 0), max2(a, i.hi, k128(a, 0)), nonnegative(a, i)), i.mag);
        r.inside = i.inside;
        return r;
    }
    case JIT_SG_NONE:
        return intrinsic(a, call, bits_of(call));
    default:
        return unknown();
    }
}

static range intrinsic(analysis *a, LLVMValueRef call, unsigned bits)
{
    LLVMValueRef f = LLVMGetCalledValue(call);
    size_t len;
    const char *minmax = jit_call_int_minmax(call); /* "llvm.smin", ... */
    bool usub = !minmax && LLVMIsAFunction(f) && !strncmp(LLVMGetValueName2(f, &len), "llvm.usub.sat.", 14);
    if ((!minmax && !usub) || LLVMGetNumArgOperands(call) != 2)
        return unknown();
    bool is_min = minmax && !strcmp(minmax + 6, "min");
    range x = follow(a, LLVMGetOperand(call, 0)), y = follow(a, LLVMGetOperand(call, 1));
    if (!x.known || !y.known)
        return unknown();
    jit_pv ok = both(a, x.ok, y.ok);
    if (usub || minmax[5] == 'u') /* unsigned: the signed bounds hold only for non-negative operands */
        ok = both(a, nonnegative(a, x), nonnegative(a, y));
    (void)bits;
    jit_pv zero = k128(a, 0);
    range r = usub     ? make(a, max2(a, sub(a, x.lo, y.hi), zero), max2(a, sub(a, x.hi, y.lo), zero), ok)
              : is_min ? make(a, min2(a, x.lo, y.lo), min2(a, x.hi, y.hi), ok)
                       : make(a, max2(a, x.lo, y.lo), max2(a, x.hi, y.hi), ok);
    return inside(a, sized(r, wider(x, y) + usub), x, y);
}

/* Whether v is phi made no larger: phi >> k, phi / k, phi & k (k >= 0 constants). */
static bool shrinks(LLVMValueRef v, LLVMValueRef phi)
{
    if (!LLVMIsAInstruction(v) || LLVMGetOperand(v, 0) != phi)
        return false;
    LLVMOpcode op = LLVMGetInstructionOpcode(v);
    int64_t k;
    return (op == LLVMLShr || op == LLVMUDiv || op == LLVMAnd) && const_of(LLVMGetOperand(v, 1), &k) && k >= 0 &&
           (op != LLVMUDiv || k > 0);
}

/* A shrinking loop variable: phi [init, ...], [phi >> k, ...]... (every value
 * not from outside made no larger from the phi itself, unsigned): within
 * [0, init] when init is not negative (a halving stride).  Unknown otherwise. */
static range shrinking(analysis *a, LLVMValueRef phi)
{
    LLVMValueRef init = NULL;
    for (unsigned i = 0, n = LLVMCountIncoming(phi); i < n; i++) {
        LLVMValueRef v = LLVMGetIncomingValue(phi, i);
        if (v == phi || shrinks(v, phi))
            continue;
        if (init && init != v)
            return unknown();
        init = v;
    }
    if (!init)
        return unknown();
    range x = follow(a, init);
    if (!x.known)
        return unknown();
    range r = sized(make(a, k128(a, 0), x.hi, nonnegative(a, x)), x.mag);
    r.inside = x.inside;
    return r;
}

/* A loop counter: phi [init, outside], [phi + step, latch] (step > 0), whose
 * block branches into the loop on phi < bound (or <=): [init, bound - 1]
 * in the blocks the loop's side of that branch dominates. */
static range counter(analysis *a, LLVMValueRef phi)
{
    range down = shrinking(a, phi);
    if (down.known || LLVMCountIncoming(phi) != 2)
        return down;
    LLVMValueRef init = NULL;
    int64_t step = 0, k;
    bool grows = false; /* phi << k, phi * k: a doubling offset */
    for (unsigned i = 0; i < 2; i++) {
        LLVMValueRef v = LLVMGetIncomingValue(phi, i);
        LLVMOpcode op = LLVMIsAInstruction(v) ? LLVMGetInstructionOpcode(v) : LLVMRet;
        if (op == LLVMAdd && (LLVMGetOperand(v, 0) == phi || LLVMGetOperand(v, 1) == phi) &&
            const_of(LLVMGetOperand(v, LLVMGetOperand(v, 0) == phi ? 1 : 0), &k) && k > 0)
            step = k;
        else if ((op == LLVMShl || op == LLVMMul) && LLVMGetOperand(v, 0) == phi &&
                 const_of(LLVMGetOperand(v, 1), &k) && k >= (op == LLVMShl ? 1 : 2))
            grows = true;
        else
            init = v;
    }
    if (!init || (!step && !grows))
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
    bool unsigned_test = pred == LLVMIntULT || pred == LLVMIntULE;
    if (grows && !unsigned_test)
        return unknown(); /* a product past the type wraps, negative, below a signed bound */
    range lo = follow(a, init), hi = follow(a, LLVMGetOperand(cmp, 1));
    if (!lo.known || !hi.known)
        return unknown();
    unsigned body = jit_cfg_index(&a->cfg, LLVMGetSuccessor(br, 0));
    if (body == JIT_CFG_NONE || jit_cfg_npred(&a->cfg, body) != 1)
        return unknown(); /* the loop's side must be entered from the test only */
    jit_pv top = strict ? sub(a, hi.hi, k128(a, 1)) : hi.hi;
    if (grows) { /* in the loop every value passed the unsigned test: [0, bound) */
        range g = sized(make(a, k128(a, 0), top, both(a, hi.ok, nonnegative(a, hi))), hi.mag + 1);
        g = inside(a, g, hi, hi);
        g.inside = body;
        return g;
    }
    /* the step past the highest value tested must not wrap: it would pass a
     * signed test again (or, past 2^bits, an unsigned one) */
    unsigned bits = bits_of(phi);
    int64_t most = bits >= 64 ? INT64_MAX : (int64_t)((1ull << (bits - (unsigned_test ? 0 : 1))) - 1);
    jit_pv no_wrap = le(a, add(a, top, k128(a, step)), k128(a, most));
    /* from one start the counter stops at the last step at or below the bound */
    jit_pv span = max2(a, sub(a, top, lo.lo), k128(a, 0));
    jit_pv last = add(a, lo.lo, mul(a, op2(a, JIT_PROOF_DIV, span, k128(a, step)), k128(a, step)));
    top = pick(a, op2(a, JIT_PROOF_EQ, lo.lo, lo.hi), last, top);
    jit_pv ok = both(a, both(a, lo.ok, hi.ok), no_wrap);
    if (unsigned_test)
        ok = both(a, ok, both(a, nonnegative(a, lo), nonnegative(a, hi)));
    range r = inside(a, sized(make(a, lo.lo, max2(a, lo.lo, top), ok), wider(lo, hi) + 1), lo, hi);
    range at = sized(make(a, r.lo, r.hi, r.ok), r.mag);
    at.inside = body;
    return r.known ? inside(a, at, r, at) : r;
}

/* Whether a and b are the same value: the same instruction, or the same
 * arithmetic on the same operands (a guard's i + 1 and the access's own
 * i + 1, in blocks neither dominating the other, which CSE leaves apart). */
static bool same_value(LLVMValueRef a, LLVMValueRef b)
{
    if (a == b)
        return true;
    if (!a || !b || !LLVMIsAInstruction(a) || !LLVMIsAInstruction(b) || LLVMTypeOf(a) != LLVMTypeOf(b))
        return false;
    LLVMOpcode op = LLVMGetInstructionOpcode(a);
    /* pure (llvm_facts.h), and told apart by the operands alone: not a
     * compare's predicate, a GEP's source type, an aggregate's indices or a
     * shuffle's mask; not a freeze (two of poison may differ) */
    if (op != LLVMGetInstructionOpcode(b) || !jit_opcode_pure(op) || op == LLVMICmp || op == LLVMFCmp ||
        op == LLVMGetElementPtr || op == LLVMExtractValue || op == LLVMInsertValue || op == LLVMShuffleVector ||
        op == LLVMFreeze)
        return false;
    for (int i = 0, n = LLVMGetNumOperands(a); i < n; i++)
        if (LLVMGetOperand(a, (unsigned)i) != LLVMGetOperand(b, (unsigned)i))
            return false;
    return true;
}

/* --- sums a guard bounds in part ------------------------------------------------------------------ */

enum { MAX_TERMS = 8 };

/* The terms of v as a sum of adds of its type (at most MAX_TERMS; *n 0: too many). */
static void terms_of(LLVMValueRef v, LLVMValueRef *t, unsigned *n)
{
    if (*n >= MAX_TERMS) {
        *n = 0;
        return;
    }
    if (LLVMIsAInstruction(v) && LLVMGetInstructionOpcode(v) == LLVMAdd) {
        terms_of(LLVMGetOperand(v, 0), t, n);
        if (*n)
            terms_of(LLVMGetOperand(v, 1), t, n);
    } else {
        t[(*n)++] = v;
    }
}

/* A sum whose part a constraint bounds: the index (row*n + t) + tx under
 * `t + tx < n`.  The range of v as the constrained part plus the rest: sums
 * wrap alike in any order, so only the whole is tested against its type.
 * Unknown when no constraint covers part of v's terms. */
static range partial_sum(analysis *a, LLVMValueRef v, unsigned bits)
{
    LLVMValueRef t[MAX_TERMS], ct[MAX_TERMS];
    unsigned n = 0;
    terms_of(v, t, &n);
    for (unsigned i = 0; i < a->ncons && n > 2; i++) {
        LLVMValueRef cv = a->cons[i].v;
        if (same_value(cv, v) || LLVMTypeOf(cv) != LLVMTypeOf(v) || !LLVMIsAInstruction(cv) ||
            LLVMGetInstructionOpcode(cv) != LLVMAdd)
            continue;
        unsigned m = 0;
        terms_of(cv, ct, &m);
        bool used[MAX_TERMS] = { false }, all = m > 1 && m < n;
        for (unsigned j = 0; j < m && all; j++) {
            unsigned q = 0;
            while (q < n && (used[q] || !same_value(t[q], ct[j])))
                q++;
            all = q < n;
            if (all)
                used[q] = true;
        }
        if (!all)
            continue;
        range r = follow(a, cv);
        for (unsigned q = 0; q < n && r.known; q++) {
            if (used[q])
                continue;
            range x = follow(a, t[q]);
            if (!x.known)
                return unknown();
            r = inside(a, sized(make(a, add(a, r.lo, x.lo), add(a, r.hi, x.hi), both(a, r.ok, x.ok)), wider(r, x) + 1),
                       r, x);
        }
        if (r.known)
            r.ok = fits(a, r, bits);
        return r;
    }
    return unknown();
}

/* The lowest value of x - y (v) where a branch on the way said x >= y (or
 * x > y): 0 (1) rather than what the intervals give (s[lid - off] under
 * lid >= off).  Unsigned compares need both non-negative. */
static jit_pv difference_floor(analysis *a, LLVMValueRef v, range x, range y, jit_pv lo)
{
    for (unsigned i = 0; i < a->ncons; i++) {
        const constraint *k = &a->cons[i];
        LLVMIntPredicate p = k->pred;
        if (k->via != AS_IS || !same_value(k->v, LLVMGetOperand(v, 0)) || !same_value(k->bound, LLVMGetOperand(v, 1)) ||
            (p != LLVMIntSGE && p != LLVMIntSGT && p != LLVMIntUGE && p != LLVMIntUGT))
            continue;
        a->narrowed++;
        jit_pv valid = p == LLVMIntSGE || p == LLVMIntSGT ? yes(a) : both(a, nonnegative(a, x), nonnegative(a, y));
        return pick(a, valid, max2(a, lo, k128(a, p == LLVMIntSGT || p == LLVMIntUGT)), lo);
    }
    return lo;
}

static range instruction(analysis *a, LLVMValueRef v)
{
    unsigned bits = bits_of(v);
    LLVMOpcode op = LLVMGetInstructionOpcode(v);
    int64_t k;
    switch (op) {
    case LLVMAdd:
    case LLVMSub: {
        range part = op == LLVMAdd && a->ncons ? partial_sum(a, v, bits) : unknown();
        if (part.known)
            return part;
        range x = follow(a, LLVMGetOperand(v, 0)), y = follow(a, LLVMGetOperand(v, 1));
        if (!x.known || !y.known)
            return unknown();
        range r = op == LLVMAdd ? make(a, add(a, x.lo, y.lo), add(a, x.hi, y.hi), both(a, x.ok, y.ok))
                                : make(a, sub(a, x.lo, y.hi), sub(a, x.hi, y.lo), both(a, x.ok, y.ok));
        if (op == LLVMSub)
            r.lo = difference_floor(a, v, x, y, r.lo);
        r = sized(r, wider(x, y) + 1);
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
        return product(a, x, constant(a, (int64_t)1 << k), bits);
    }
    case LLVMLShr:
    case LLVMAShr: {
        range x = follow(a, LLVMGetOperand(v, 0));
        if (!x.known || !const_of(LLVMGetOperand(v, 1), &k) || k < 0 || k >= (int64_t)bits)
            return unknown();
        jit_pv s = k128(a, k);
        range r = sized(make(a, op2(a, JIT_PROOF_SHR, x.lo, s), op2(a, JIT_PROOF_SHR, x.hi, s),
                             op == LLVMLShr ? nonnegative(a, x) : x.ok),
                        x.mag);
        r.inside = x.inside;
        return r;
    }
    case LLVMAnd: /* with a non-negative constant c: within [0, c] whatever the other is, and
                     x itself for a non-negative x within a mask of low bits (gid & 0xffffffff) */
        for (unsigned i = 0; i < 2; i++)
            if (const_of(LLVMGetOperand(v, i), &k) && k >= 0) {
                range x = follow(a, LLVMGetOperand(v, 1 - i));
                jit_pv top = k128(a, k), x_nonneg = x.known ? nonnegative(a, x) : k128(a, 0);
                if (!x.known)
                    return sized(make(a, k128(a, 0), top, yes(a)), sbits(k));
                bool mask = (k & (k + 1)) == 0;
                jit_pv kept = both(a, x_nonneg, le(a, x.hi, top));
                range r = mask ? make(a, pick(a, kept, x.lo, k128(a, 0)), pick(a, kept, x.hi, top), yes(a))
                               : make(a, k128(a, 0), pick(a, x_nonneg, min2(a, x.hi, top), top), yes(a));
                r.inside = x.inside;
                return sized(r, sbits(k));
            }
        return unknown();
    case LLVMURem:
        if (const_of(LLVMGetOperand(v, 1), &k) && k > 0)
            return sized(make(a, k128(a, 0), k128(a, k - 1), yes(a)), sbits(k));
        return unknown();
    case LLVMUDiv: {
        range x = follow(a, LLVMGetOperand(v, 0));
        if (x.known && !const_of(LLVMGetOperand(v, 1), &k)) { /* by a positive range: [lo / hi, hi / lo] */
            range y = follow(a, LLVMGetOperand(v, 1));
            if (!y.known)
                return unknown();
            jit_pv valid = both(a, nonnegative(a, x), both(a, y.ok, le(a, k128(a, 1), y.lo)));
            jit_pv ylo = max2(a, y.lo, k128(a, 1)); /* (no division by zero where not valid) */
            range r = sized(make(a, op2(a, JIT_PROOF_DIV, x.lo, max2(a, y.hi, k128(a, 1))),
                                 op2(a, JIT_PROOF_DIV, x.hi, ylo), valid),
                            x.mag);
            return inside(a, r, x, y);
        }
        if (!x.known || !const_of(LLVMGetOperand(v, 1), &k) || k <= 0)
            return unknown();
        jit_pv d = k128(a, k);
        range r =
            sized(make(a, op2(a, JIT_PROOF_DIV, x.lo, d), op2(a, JIT_PROOF_DIV, x.hi, d), nonnegative(a, x)), x.mag);
        r.inside = x.inside;
        return r;
    }
    case LLVMSExt:
    case LLVMFreeze:
        return follow(a, LLVMGetOperand(v, 0));
    case LLVMZExt: {
        if (bits_of(LLVMGetOperand(v, 0)) == 1)
            return sized(make(a, k128(a, 0), k128(a, 1), yes(a)), 2);
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
        return inside(a, sized(make(a, min2(a, x.lo, y.lo), max2(a, x.hi, y.hi), both(a, x.ok, y.ok)), wider(x, y)), x,
                      y);
    }
    case LLVMPHI: {
        range r = counter(a, v);
        if (r.known)
            return r;
        for (unsigned i = 0, n = LLVMCountIncoming(v); i < n; i++) {
            range x = follow(a, LLVMGetIncomingValue(v, i));
            if (!x.known)
                return unknown();
            r = r.known
                    ? inside(a,
                             sized(make(a, min2(a, r.lo, x.lo), max2(a, r.hi, x.hi), both(a, r.ok, x.ok)), wider(r, x)),
                             r, x)
                    : x;
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
        return sub_group_marker(a, v);
    case LLVMLoad:
        return leaf_load(a, v);
    default:
        return unknown();
    }
}

/* --- what the branches on the way to a check say ------------------------------------------------ */

static void add_dominating(analysis *a, unsigned b, int depth);

static void push_constraint(analysis *a, constraint k)
{
    for (unsigned i = 0; i < a->ncons; i++)
        if (a->cons[i].v == k.v && a->cons[i].bound == k.bound && a->cons[i].pred == k.pred && a->cons[i].via == k.via)
            return;
    if (a->ncons < MAX_CONSTRAINTS)
        a->cons[a->ncons++] = k;
}

/* `v pred bound`, and what it says of the values v extends or truncates. */
static void add_constraint(analysis *a, LLVMValueRef v, LLVMIntPredicate pred, LLVMValueRef bound)
{
    for (; !LLVMIsAConstant(v); v = LLVMGetOperand(v, 0)) {
        push_constraint(a, (constraint){ v, bound, pred, AS_IS, 0 });
        LLVMOpcode op = LLVMIsAInstruction(v) ? LLVMGetInstructionOpcode(v) : LLVMRet;
        if (op == LLVMZExt || op == LLVMTrunc) { /* get_global_id's i64 compared as a uint, an index zero-extended */
            LLVMValueRef x = LLVMGetOperand(v, 0);
            unsigned bits = bits_of(op == LLVMZExt ? x : v);
            if (bits > 1 && !LLVMIsAConstant(x))
                push_constraint(a, (constraint){ x, bound, pred, op == LLVMZExt ? ZEXT_OF_V : TRUNC_OF_V, bits });
        }
        if (op != LLVMSExt) /* a sign extension has the value it extends */
            break;
    }
}

/* What `cond` being `holds` says: compares, and the halves of an and that
 * holds or an or that does not. */
static void add_condition(analysis *a, LLVMValueRef cond, bool holds, int depth)
{
    if (depth <= 0 || !LLVMIsAInstruction(cond))
        return;
    LLVMOpcode op = LLVMGetInstructionOpcode(cond);
    int64_t k;
    if ((op == LLVMAnd && holds) || (op == LLVMOr && !holds)) {
        add_condition(a, LLVMGetOperand(cond, 0), holds, depth - 1);
        add_condition(a, LLVMGetOperand(cond, 1), holds, depth - 1);
    } else if (op == LLVMSelect && LLVMIsAConstantInt(LLVMGetOperand(cond, holds ? 2 : 1)) &&
               LLVMConstIntGetZExtValue(LLVMGetOperand(cond, holds ? 2 : 1)) == !holds) {
        /* select c, x, false (a logical and) holds: both; select c, true, x (or) fails: neither */
        add_condition(a, LLVMGetOperand(cond, 0), holds, depth - 1);
        add_condition(a, LLVMGetOperand(cond, holds ? 1 : 2), holds, depth - 1);
    } else if (op == LLVMXor && const_of(LLVMGetOperand(cond, 1), &k) && k == -1) {
        add_condition(a, LLVMGetOperand(cond, 0), !holds, depth - 1);
    } else if (op == LLVMPHI) {
        /* a short-circuit && (|| when it fails): phi [c1, p1], [c2, p2] where
         * p1 branches to the phi on !c1 holds only coming from p2 with c2: then
         * c2, and what brought control to p2 */
        LLVMValueRef only = NULL;
        unsigned from = JIT_CFG_NONE;
        for (unsigned i = 0, n = LLVMCountIncoming(cond); i < n; i++) {
            LLVMValueRef v = LLVMGetIncomingValue(cond, i);
            LLVMBasicBlockRef p = LLVMGetIncomingBlock(cond, i);
            LLVMValueRef br = LLVMGetBasicBlockTerminator(p);
            if (const_of(v, &k) && (k != 0) != holds)
                continue; /* the value it would have */
            if (br && LLVMGetInstructionOpcode(br) == LLVMBr && LLVMIsConditional(br) && LLVMGetCondition(br) == v &&
                LLVMGetSuccessor(br, 0) != LLVMGetSuccessor(br, 1) &&
                (LLVMGetSuccessor(br, 0) == LLVMGetInstructionParent(cond)) != holds)
                continue; /* the edge from p is taken when v is not what the phi needs */
            if (only)
                return;
            only = v;
            from = jit_cfg_index(&a->cfg, p);
        }
        if (only && from != JIT_CFG_NONE) {
            add_condition(a, only, holds, depth - 1);
            add_dominating(a, from, depth - 1);
        }
    } else if (op == LLVMICmp) {
        LLVMIntPredicate p = LLVMGetICmpPredicate(cond);
        if (!holds)
            p = jit_icmp_inverse(p);
        add_constraint(a, LLVMGetOperand(cond, 0), p, LLVMGetOperand(cond, 1));
        add_constraint(a, LLVMGetOperand(cond, 1), jit_icmp_swapped(p), LLVMGetOperand(cond, 0));
    }
}

/* The conditions every path to block b has passed: the branch into each
 * dominator of b that has one predecessor. */
static void add_dominating(analysis *a, unsigned b, int depth)
{
    for (unsigned d = b; depth > 0 && d != JIT_CFG_NONE && d < a->cfg.nreachable; d = a->cfg.idom[d]) {
        if (jit_cfg_npred(&a->cfg, d) != 1)
            continue;
        unsigned p = a->cfg.pred[a->cfg.pred_off[d]];
        LLVMValueRef br = LLVMGetBasicBlockTerminator(a->cfg.blocks[p]);
        if (!br || LLVMGetInstructionOpcode(br) != LLVMBr || !LLVMIsConditional(br) ||
            LLVMGetSuccessor(br, 0) == LLVMGetSuccessor(br, 1))
            continue;
        add_condition(a, LLVMGetCondition(br), LLVMGetSuccessor(br, 0) == a->cfg.blocks[d], depth);
    }
}

static void collect_constraints(analysis *a, unsigned b)
{
    a->ncons = 0;
    add_dominating(a, b, 8);
}

/* r (unknown: nothing known yet) within what the constraints on v say.  A
 * value known only through them needs both a lowest and a highest value. */
static range constrained(analysis *a, LLVMValueRef v, range r)
{
    unsigned bits = bits_of(v);
    bool base = r.known, lo_set = base, hi_set = base;
    if (base && r.lo == r.hi)
        return r; /* one value (a push constant bounding an id): nothing to narrow */
    if (!base) {
        int64_t top = bits >= 64 ? INT64_MAX : (int64_t)((1ull << (bits - 1)) - 1);
        r = sized(make(a, k128(a, -top - 1), k128(a, top), yes(a)), bits);
    }
    jit_pv zero = k128(a, 0), one = k128(a, 1);
    for (unsigned i = 0; i < a->ncons; i++) {
        const constraint *k = &a->cons[i];
        if (!same_value(k->v, v))
            continue;
        /* the bound as the group has it, not narrowed by v in turn (x < y makes y > x) */
        unsigned ncons = a->ncons;
        a->ncons = 0;
        range y = follow(a, k->bound);
        a->ncons = ncons;
        if (!y.known)
            continue;
        jit_pv lo = r.lo, hi = r.hi, valid = y.ok, y_nonneg = le(a, zero, y.lo);
        if (k->via != AS_IS) { /* the value compared is v where v's range fits k->bits */
            if (!base)
                continue;
            int64_t top = k->bits >= 64 ? INT64_MAX : (int64_t)((1ull << (k->bits - 1)) - 1);
            jit_pv low = k->via == ZEXT_OF_V ? zero : k128(a, -top - 1);
            valid = both(a, valid, both(a, r.ok, both(a, le(a, low, r.lo), le(a, r.hi, k128(a, top)))));
        }
        int64_t c;
        switch (k->pred) {
        case LLVMIntSLT:
        case LLVMIntSLE:
            hi = min2(a, hi, k->pred == LLVMIntSLT ? sub(a, y.hi, one) : y.hi);
            hi_set = true;
            break;
        case LLVMIntSGT:
        case LLVMIntSGE:
            lo = max2(a, lo, k->pred == LLVMIntSGT ? add(a, y.lo, one) : y.lo);
            lo_set = true;
            break;
        case LLVMIntULT:
        case LLVMIntULE: /* below a non-negative bound, unsigned: in [0, bound) signed too */
            valid = both(a, valid, y_nonneg);
            lo = max2(a, lo, zero);
            hi = min2(a, hi, k->pred == LLVMIntULT ? sub(a, y.hi, one) : y.hi);
            lo_set = hi_set = true;
            break;
        case LLVMIntUGT:
        case LLVMIntUGE: /* both non-negative: the signed order */
            valid = both(a, both(a, valid, y_nonneg), nonnegative(a, r));
            lo = max2(a, lo, k->pred == LLVMIntUGT ? add(a, y.lo, one) : y.lo);
            lo_set = true;
            break;
        case LLVMIntEQ:
            lo = max2(a, lo, y.lo);
            hi = min2(a, hi, y.hi);
            lo_set = hi_set = true;
            break;
        default: /* NE: a constant at either end moves it */
            if (!base || !const_of(k->bound, &c))
                continue;
            valid = yes(a);
            lo = pick(a, op2(a, JIT_PROOF_EQ, lo, k128(a, c)), add(a, lo, one), lo);
            hi = pick(a, op2(a, JIT_PROOF_EQ, hi, k128(a, c)), sub(a, hi, one), hi);
            break;
        }
        range n = r;
        if (base) { /* what was known stands where the constraint cannot be used */
            n.lo = pick(a, valid, lo, r.lo);
            n.hi = pick(a, valid, hi, r.hi);
        } else {
            n.lo = lo;
            n.hi = hi;
            n.ok = both(a, r.ok, valid);
        }
        r = inside(a, sized(n, wider(r, y) + 1), r, y);
        if (!r.known)
            return r;
    }
    return lo_set && hi_set ? r : unknown();
}

static range follow(analysis *a, LLVMValueRef v)
{
    unsigned bits = bits_of(v);
    if (!bits || bits > 64)
        return unknown();
    int64_t k;
    if (const_of(v, &k))
        return constant(a, k);
    bool constrained_here = false; /* then what the memo has from other checks is not v's range here */
    for (unsigned i = 0; i < a->ncons && !constrained_here; i++)
        constrained_here = same_value(a->cons[i].v, v);
    range *m = constrained_here ? NULL : util_ptrmap_get(&a->memo, v);
    if (!m && (m = util_ptrmap_get(&a->local, v)) && m != &busy)
        a->narrowed++; /* what the caller makes of it depends on the constraints too */
    if (m == &busy)
        return unknown(); /* a cycle (a loop's phi): not followed */
    if (m)
        return *m;
    /* followed in `local` (busy there), kept in the memo of what it turns out to use */
    unsigned narrowed = a->narrowed;
    if (!util_ptrmap_put(&a->local, v, &busy)) {
        a->oom = true;
        return unknown();
    }
    range r = unknown();
    if (LLVMIsAArgument(v)) {
        int p = param_index_of(a, v);
        if (p >= 1 && p <= 3) { /* local ids: [0, size - 1] */
            uint32_t n = a->ls[p - 1];
            r = sized(make(a, k128(a, 0), k128(a, (int64_t)n - 1), yes(a)), sbits(n));
        } else if (p >= 4 && p <= 6) {
            r = constant(a, a->ls[p - 4]);
        } else if (p >= GROUP_ID && a->args[p] && LLVMTypeOf(a->args[p]) == LLVMTypeOf(v)) {
            r = group_param(a, p);
        }
    } else if (LLVMIsAInstruction(v) && LLVMGetInstructionParent(v) &&
               LLVMGetBasicBlockParent(LLVMGetInstructionParent(v)) == a->body) {
        r = instruction(a, v);
    }
    if (constrained_here) {
        r = constrained(a, v, r);
        a->narrowed++;
    }
    /* from the compile's arena, but no jump out on failure (jit_alloc's): the
     * analysis holds heap memory (the CFG, the memo) it must free */
    range *keep = util_arena_array(&a->c->arena, 1, sizeof *keep);
    if (keep)
        *keep = r;
    util_hashmap_remove(&a->local, util_hash_ptr(v), v);
    if (!keep || !util_ptrmap_put(a->narrowed != narrowed ? &a->local : &a->memo, v, keep))
        a->oom = true;
    return r;
}

/* --- the checks ---------------------------------------------------------------------------------------- */

/* Whether `inb` (icmp ult off, limit), checked at `check`, holds for every
 * group proven together (1 or 0); *ok false when it cannot be proven. */
static jit_pv proven(analysis *a, LLVMValueRef check, LLVMValueRef inb, bool *ok)
{
    *ok = false;
    if (!LLVMIsAICmpInst(inb) || LLVMGetICmpPredicate(inb) != LLVMIntULT)
        return 0;
    unsigned at = jit_cfg_index(&a->cfg, LLVMGetInstructionParent(check));
    /* what holds on the way to this check: ranges followed under other
     * conditions are not its own */
    constraint before[MAX_CONSTRAINTS];
    unsigned nbefore = a->ncons;
    memcpy(before, a->cons, nbefore * sizeof *before);
    collect_constraints(a, at);
    bool same = a->ncons == nbefore;
    for (unsigned i = 0; i < nbefore && same; i++)
        same = before[i].v == a->cons[i].v && before[i].bound == a->cons[i].bound &&
               before[i].pred == a->cons[i].pred && before[i].via == a->cons[i].via;
    if (!same)
        util_hashmap_clear(&a->local);
    range off = follow(a, LLVMGetOperand(inb, 0)), lim = follow(a, LLVMGetOperand(inb, 1));
    if (!off.known || !lim.known)
        return 0;
    off = inside(a, off, off, lim);
    if (!off.known || (off.inside != JIT_CFG_NONE && !jit_cfg_dominates(&a->cfg, off.inside, at)))
        return 0; /* a loop counter's range, used outside its loop */
    *ok = true;
    return both(a, both(a, both(a, off.ok, lim.ok), nonnegative(a, off)), lt(a, off.hi, lim.lo));
}

int jit_guard_versions_inline(lower_ctx *c, LLVMValueRef body)
{
    if (!c->item_fast)
        return 0;
    /* the body alone (the passes cost per function): its calls inlined; SROA:
     * the values of Function variables and the item state's fields as SSA
     * values, to follow; early CSE: one value for an index a guard compares
     * and the access computes again (glslang's a ? b[i] : 0) */
    char msg[JIT_SIMD_MSG];
    unsigned always = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
    LLVMRemoveEnumAttributeAtIndex(body, LLVMAttributeFunctionIndex, always); /* no caller yet: it would go */
    int rc = jit_passes_on(c->mod, &body, 1, "function(sroa,early-cse)", msg);
    jit_add_attr(c, body, LLVMAttributeFunctionIndex, "alwaysinline");
    return rc ? jit_fail(c, "internal error: inlining the item body: %s", msg) : 0;
}

LLVMValueRef jit_guard_versions(lower_ctx *c, LLVMValueRef body, LLVMValueRef const *args, LLVMValueRef const *group_hi,
                                const uint32_t ls[3])
{
    if (!c->item_fast)
        return NULL;
    analysis a = { .c = c, .body = body, .args = args, .group_hi = group_hi, .ls = ls };
    jit_proof_init(&a.prog);
    unsigned item_md = LLVMGetMDKindIDInContext(c->llc, JIT_ITEM_STATE_MD, strlen(JIT_ITEM_STATE_MD));
    for (LLVMValueRef i = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(body)); i && !a.item;
         i = LLVMGetNextInstruction(i))
        if (LLVMIsAAllocaInst(i) && LLVMGetMetadata(i, item_md))
            a.item = i; /* (SROA may have taken it apart: the fields are then the parameters) */
    util_hashmap_init(&a.memo, NULL);
    util_hashmap_init(&a.local, NULL);
    if (jit_cfg_build(&a.cfg, body)) {
        util_hashmap_fini(&a.memo);
        util_hashmap_fini(&a.local);
        jit_proof_fini(&a.prog);
        return NULL;
    }
    unsigned kind = LLVMGetMDKindIDInContext(c->llc, JIT_GUARD_MD, strlen(JIT_GUARD_MD));
    bool any = false;
    jit_pv all = yes(&a);
    jit_proof_int k;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(body); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i; i = next) {
            next = LLVMGetNextInstruction(i);
            if (!LLVMGetMetadata(i, kind))
                continue;
            LLVMValueRef inb = LLVMGetOperand(i, 1);
            bool known;
            jit_pv ok = proven(&a, i, inb, &known);
            if (known && jit_proof_const_of(&a.prog, ok, &k) && !k)
                known = false; /* out of range whatever the group (an unguarded s[lid - 1]): a compare */
            if (known) {
                any = true;
                all = both(&a, all, ok);
            } else { /* not provable for the group: the compare alone */
                LLVMReplaceAllUsesWith(i, inb);
                LLVMInstructionEraseFromParent(i);
            }
        }
    /* out of memory: the flag stays clear, the group's checks all run */
    LLVMValueRef proof = any && !a.oom ? jit_proof_emit(&a.prog, c->mod, c->b, all) : NULL;
    util_hashmap_fini(&a.memo);
    util_hashmap_fini(&a.local);
    jit_cfg_free(&a.cfg);
    jit_proof_fini(&a.prog);
    return proof;
}
