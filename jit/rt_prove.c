/* jit/rt_prove.c — runs a bounds proof's program (see proof.h). */
#include "jit/proof.h"

#include <stdlib.h>

static jit_proof_int constant(const int32_t *k)
{
    unsigned __int128 u = 0;
    for (int j = 3; j >= 0; j--)
        u = u << 32 | (uint32_t)k[j];
    return (jit_proof_int)u;
}

int32_t spvjit_rt_prove(const int64_t *leaves, const int32_t *prog)
{
    enum { ON_STACK = 256 };
    int32_t nconsts = prog[0], nops = prog[1], result = prog[2];
    const int32_t *kw = prog + 4, *ow = kw + 4 * nconsts;
    jit_proof_int stack[ON_STACK], *r = stack;
    if (nops > ON_STACK && !(r = malloc((size_t)nops * sizeof *r)))
        return 0; /* not proven: the group runs with its checks */
#define VALUE(v) ((v) >= 0 ? r[(v)] : constant(kw + 4 * (-1 - (v))))
    for (int32_t i = 0; i < nops; i++) {
        const int32_t *o = ow + 4 * i;
        r[i] = o[0] == JIT_PROOF_LEAF ? (jit_proof_int)leaves[o[1]]
                                      : jit_proof_apply((jit_proof_opcode)o[0], VALUE(o[1]), VALUE(o[2]),
                                                        o[0] == JIT_PROOF_SELECT ? VALUE(o[3]) : 0);
    }
    int32_t ok = VALUE(result) != 0;
#undef VALUE
    if (r != stack)
        free(r);
    return ok;
}
