/* jit/proof.h — the interval arithmetic of a bounds proof, as a program the
 * runtime runs.
 *
 * guard_versions.c follows each bounds check's offset back to what a box of
 * work-groups shares and writes the offset's lowest and highest values, and
 * whether they hold, as a program over 128-bit signed integers: leaves (i64
 * values spvjit.proof loads: push constants, buffer sizes, WorkgroupIds) and
 * constants, combined by the operations below.  Building folds constants (a
 * check that fails whatever the group folds to false) and shares equal
 * operations; spvjit.proof stores the leaves in an array and calls
 * spvjit_rt_prove (rt_prove.c) on the program, a constant of the module.
 * Compiled as i128 code instead, the same arithmetic was most of a robust
 * kernel's optimized build (InstCombine, the SLP vectorizer and instruction
 * selection over it); run, it costs well under a microsecond per row of
 * groups.
 *
 * The program, 32-bit words: nconsts, nops, result, 0, then nconsts
 * constants of 4 words (little end first), then nops operations of 4 words
 * (opcode, a, b, c).  A value v >= 0 is the result of operation v, v < 0 the
 * constant -1 - v.
 */
#ifndef SPVJIT_JIT_PROOF_H
#define SPVJIT_JIT_PROOF_H

#include <stdbool.h>
#include <stdint.h>
#include <llvm-c/Core.h>

#include "util/array.h"

typedef __int128 jit_proof_int;
typedef int32_t jit_pv;

typedef enum jit_proof_opcode {
    JIT_PROOF_LEAF = 1, /* leaves[a] */
    JIT_PROOF_ADD,
    JIT_PROOF_SUB,
    JIT_PROOF_MUL,
    JIT_PROOF_DIV, /* a / b, rounded to zero (0 for a b not positive) */
    JIT_PROOF_SHR, /* a >> b, arithmetic; b a constant in [0, 127] */
    JIT_PROOF_MIN,
    JIT_PROOF_MAX,
    JIT_PROOF_LT, /* 1 or 0 */
    JIT_PROOF_LE,
    JIT_PROOF_EQ,
    JIT_PROOF_AND,    /* of 1s and 0s */
    JIT_PROOF_SELECT, /* a ? b : c */
} jit_proof_opcode;

/* Operations the runtime runs at most (a larger proof is not made). */
#define JIT_PROOF_MAX_OPS 2048

/* One operation on a, b, c.  Sums and products wrap (two's complement): the
 * analysis only trusts values its `ok` conditions say did not. */
static inline jit_proof_int jit_proof_apply(jit_proof_opcode op, jit_proof_int a, jit_proof_int b, jit_proof_int c)
{
    typedef unsigned __int128 u128;
    switch (op) {
    case JIT_PROOF_ADD:
        return (jit_proof_int)((u128)a + (u128)b);
    case JIT_PROOF_SUB:
        return (jit_proof_int)((u128)a - (u128)b);
    case JIT_PROOF_MUL:
        return (jit_proof_int)((u128)a * (u128)b);
    case JIT_PROOF_DIV:
        return b > 0 ? a / b : 0;
    case JIT_PROOF_SHR:
        return b >= 0 && b < 128 ? a >> (int)b : 0;
    case JIT_PROOF_MIN:
        return a < b ? a : b;
    case JIT_PROOF_MAX:
        return a < b ? b : a;
    case JIT_PROOF_LT:
        return a < b;
    case JIT_PROOF_LE:
        return a <= b;
    case JIT_PROOF_EQ:
        return a == b;
    case JIT_PROOF_AND:
        return a && b;
    case JIT_PROOF_SELECT:
        return a ? b : c;
    default:
        return 0;
    }
}

/* A program being built. */
typedef struct jit_proof {
    util_array consts;  /* jit_proof_int */
    util_array ops;     /* int32_t[4] each */
    util_array leaves;  /* LLVMValueRef (i64), in the function being built */
    int32_t *table;     /* operations by their hash (index + 1; 0 empty) */
    uint32_t table_cap; /* a power of two */
    bool failed;        /* out of memory or past JIT_PROOF_MAX_OPS: no program */
} jit_proof;

void jit_proof_init(jit_proof *p);
void jit_proof_fini(jit_proof *p);

jit_pv jit_proof_const(jit_proof *p, jit_proof_int k);
/* Whether v is a constant (*k: its value). */
bool jit_proof_const_of(const jit_proof *p, jit_pv v, jit_proof_int *k);
/* An i64 the function being built computes. */
jit_pv jit_proof_leaf(jit_proof *p, LLVMValueRef v);
/* op(a, b, c): the constant when all are constants, else the operation (the
 * same one for equal operands).  Unused operands: 0. */
jit_pv jit_proof_op(jit_proof *p, jit_proof_opcode op, jit_pv a, jit_pv b, jit_pv c);

/* At b, in function fn of module mod: stores the leaves and calls
 * spvjit_rt_prove on the program whose result is `result` (a 1 or 0):
 * the i1 it returns; NULL when the program could not be made. */
LLVMValueRef jit_proof_emit(jit_proof *p, LLVMModuleRef mod, LLVMBuilderRef b, jit_pv result);

/* The runtime (rt_prove.c, an absolute symbol of the JIT, emit.c): runs the
 * program on the leaves, 1 when its result is non-zero. */
#define JIT_RT_PROVE "spvjit_rt_prove"
__attribute__((visibility("default"))) int32_t spvjit_rt_prove(const int64_t *leaves, const int32_t *prog);

#endif
