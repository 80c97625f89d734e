/* jit/proof.c — building a bounds proof's program (see proof.h). */
#include "proof.h"

#include <stdlib.h>
#include <string.h>

#include "util/hash.h"

void jit_proof_init(jit_proof *p)
{
    memset(p, 0, sizeof *p);
}

void jit_proof_fini(jit_proof *p)
{
    util_array_fini(&p->consts);
    util_array_fini(&p->ops);
    util_array_fini(&p->leaves);
    free(p->table);
    memset(p, 0, sizeof *p);
}

static bool is_const(jit_pv v)
{
    return v < 0;
}

bool jit_proof_const_of(const jit_proof *p, jit_pv v, jit_proof_int *k)
{
    if (!is_const(v) || (size_t)(-1 - v) >= UTIL_ARRAY_COUNT(&p->consts, jit_proof_int))
        return false;
    *k = UTIL_ARRAY_AT(&p->consts, jit_proof_int, -1 - v);
    return true;
}

jit_pv jit_proof_const(jit_proof *p, jit_proof_int k)
{
    size_t n = UTIL_ARRAY_COUNT(&p->consts, jit_proof_int);
    for (size_t i = 0; i < n; i++) /* few distinct constants */
        if (UTIL_ARRAY_AT(&p->consts, jit_proof_int, i) == k)
            return -1 - (jit_pv)i;
    if (!UTIL_ARRAY_PUSH(&p->consts, jit_proof_int, k)) {
        p->failed = true;
        return -1 - 0;
    }
    return -1 - (jit_pv)n;
}

static uint64_t op_hash(const int32_t *w)
{
    return util_hash_bytes(w, 4 * sizeof *w, 0x70726f6f66ull);
}

/* Doubles the table, or makes it; false when out of memory. */
static bool grow_table(jit_proof *p)
{
    uint32_t cap = p->table_cap ? 2 * p->table_cap : 256;
    int32_t *t = calloc(cap, sizeof *t);
    if (!t)
        return false;
    const int32_t *ops = p->ops.data;
    for (uint32_t i = 0; i < p->table_cap; i++) {
        if (!p->table[i])
            continue;
        uint32_t h = (uint32_t)op_hash(ops + 4 * (p->table[i] - 1)) & (cap - 1);
        while (t[h])
            h = (h + 1) & (cap - 1);
        t[h] = p->table[i];
    }
    free(p->table);
    p->table = t;
    p->table_cap = cap;
    return true;
}

/* The operation w, added unless an equal one exists. */
static jit_pv intern(jit_proof *p, const int32_t w[4])
{
    size_t n = UTIL_ARRAY_COUNT(&p->ops, int32_t) / 4;
    if (p->failed || n >= JIT_PROOF_MAX_OPS || ((n + 1) * 2 > p->table_cap && !grow_table(p))) {
        p->failed = true;
        return jit_proof_const(p, 0);
    }
    uint32_t h = (uint32_t)op_hash(w) & (p->table_cap - 1);
    for (; p->table[h]; h = (h + 1) & (p->table_cap - 1))
        if (!memcmp((const int32_t *)p->ops.data + 4 * (p->table[h] - 1), w, 4 * sizeof *w))
            return p->table[h] - 1;
    int32_t *at = util_array_grow(&p->ops, 4 * sizeof *at);
    if (!at) {
        p->failed = true;
        return jit_proof_const(p, 0);
    }
    memcpy(at, w, 4 * sizeof *w);
    p->table[h] = (int32_t)n + 1;
    return (jit_pv)n;
}

jit_pv jit_proof_leaf(jit_proof *p, LLVMValueRef v)
{
    size_t n = UTIL_ARRAY_COUNT(&p->leaves, LLVMValueRef), i = 0;
    while (i < n && UTIL_ARRAY_AT(&p->leaves, LLVMValueRef, i) != v)
        i++;
    if (i == n && !UTIL_ARRAY_PUSH(&p->leaves, LLVMValueRef, v)) {
        p->failed = true;
        return jit_proof_const(p, 0);
    }
    return intern(p, (int32_t[4]){ JIT_PROOF_LEAF, (int32_t)i, 0, 0 });
}

jit_pv jit_proof_op(jit_proof *p, jit_proof_opcode op, jit_pv a, jit_pv b, jit_pv c)
{
    jit_proof_int ka = 0, kb = 0, kc = 0;
    bool ca = jit_proof_const_of(p, a, &ka), cb = jit_proof_const_of(p, b, &kb), cc = jit_proof_const_of(p, c, &kc);
    if (ca && cb && (op != JIT_PROOF_SELECT || cc))
        return jit_proof_const(p, jit_proof_apply(op, ka, kb, op == JIT_PROOF_SELECT ? kc : 0));
    switch (op) { /* the identities the analysis leans on */
    case JIT_PROOF_MIN:
    case JIT_PROOF_MAX:
        if (a == b)
            return a;
        break;
    case JIT_PROOF_AND:
        if (ca || cb)
            return (ca ? ka : kb) ? (ca ? b : a) : jit_proof_const(p, 0);
        if (a == b)
            return a;
        break;
    case JIT_PROOF_SELECT:
        if (b == c)
            return b;
        if (ca)
            return ka ? b : c;
        break;
    case JIT_PROOF_ADD:
    case JIT_PROOF_SUB:
        if (cb && kb == 0)
            return a;
        break;
    case JIT_PROOF_MUL:
        if (cb && kb == 1)
            return a;
        break;
    default:
        break;
    }
    if (op != JIT_PROOF_SELECT)
        c = 0;
    return intern(p, (int32_t[4]){ (int32_t)op, a, b, c });
}

LLVMValueRef jit_proof_emit(jit_proof *p, LLVMModuleRef mod, LLVMBuilderRef b, jit_pv result)
{
    LLVMContextRef llc = LLVMGetModuleContext(mod);
    LLVMTypeRef i1 = LLVMInt1TypeInContext(llc), i32 = LLVMInt32TypeInContext(llc), i64 = LLVMInt64TypeInContext(llc);
    LLVMTypeRef ptr = LLVMPointerTypeInContext(llc, 0);
    jit_proof_int k;
    if (p->failed)
        return NULL;
    if (jit_proof_const_of(p, result, &k))
        return LLVMConstInt(i1, k != 0, 0);
    size_t nconsts = UTIL_ARRAY_COUNT(&p->consts, jit_proof_int), nops = UTIL_ARRAY_COUNT(&p->ops, int32_t) / 4;
    size_t nleaves = UTIL_ARRAY_COUNT(&p->leaves, LLVMValueRef), nwords = 4 + 4 * nconsts + 4 * nops;
    LLVMValueRef *words = calloc(nwords, sizeof *words);
    if (!words)
        return NULL;
    uint32_t head[4] = { (uint32_t)nconsts, (uint32_t)nops, (uint32_t)result, 0 };
    for (size_t i = 0; i < 4; i++)
        words[i] = LLVMConstInt(i32, head[i], 0);
    for (size_t i = 0; i < nconsts; i++) {
        unsigned __int128 u = (unsigned __int128)UTIL_ARRAY_AT(&p->consts, jit_proof_int, i);
        for (size_t j = 0; j < 4; j++)
            words[4 + 4 * i + j] = LLVMConstInt(i32, (uint32_t)(u >> (32 * j)), 0);
    }
    const int32_t *ops = p->ops.data;
    for (size_t i = 0; i < 4 * nops; i++)
        words[4 + 4 * nconsts + i] = LLVMConstInt(i32, (uint32_t)ops[i], 0);
    LLVMValueRef prog = LLVMAddGlobal(mod, LLVMArrayType2(i32, nwords), "spvjit.proof.program");
    LLVMSetInitializer(prog, LLVMConstArray2(i32, words, nwords));
    LLVMSetGlobalConstant(prog, 1);
    LLVMSetLinkage(prog, LLVMPrivateLinkage);
    LLVMSetUnnamedAddress(prog, LLVMGlobalUnnamedAddr);
    free(words);

    LLVMValueRef leaves = LLVMBuildArrayAlloca(b, i64, LLVMConstInt(i32, nleaves ? nleaves : 1, 0), "leaves");
    for (size_t i = 0; i < nleaves; i++) {
        LLVMValueRef at = LLVMBuildGEP2(b, i64, leaves, (LLVMValueRef[]){ LLVMConstInt(i64, i, 0) }, 1, "");
        LLVMBuildStore(b, UTIL_ARRAY_AT(&p->leaves, LLVMValueRef, i), at);
    }
    LLVMTypeRef ft = LLVMFunctionType(i32, (LLVMTypeRef[]){ ptr, ptr }, 2, 0);
    LLVMValueRef fn = LLVMGetNamedFunction(mod, JIT_RT_PROVE);
    if (!fn) {
        fn = LLVMAddFunction(mod, JIT_RT_PROVE, ft);
        LLVMSetFunctionCallConv(fn, LLVMCCallConv);
    }
    LLVMValueRef r = LLVMBuildCall2(b, ft, fn, (LLVMValueRef[]){ leaves, prog }, 2, "");
    return LLVMBuildICmp(b, LLVMIntNE, r, LLVMConstInt(i32, 0, 0), "");
}
