/* jit/quick_unroll.c — the quick tier's counted one-block loops unrolled (see quick_unroll.h). */
#include "quick_unroll.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../util/hashmap.h"
#include "cfg.h"
#include "llvm_facts.h"

/* The most instructions an unrolled body may have, and the most copies. */
enum { UNROLLED_MAX = 256, COPIES_MAX = 8, UNROLLED_TRIPS = 4096 };

/* The loop body one block: its phis, the instructions between them and the
 * branch, and what copy `c` of the body makes of each. */
typedef struct body {
    LLVMBasicBlockRef bb;
    LLVMValueRef *phi, *back; /* [nphi]: the phis, each one's value from bb */
    LLVMValueRef *ins;        /* [nins] */
    unsigned nphi, nins;
    util_hashmap at;     /* phi or instruction -> its index + 1 (phis after the instructions) */
    LLVMValueRef *now;   /* [nins + 2 nphi]: the copy being made's value of each; spare room */
    LLVMValueRef store;  /* the body's one write to memory, when it is a plain store */
    LLVMValueRef stored; /* the value the last copy so far stored there */
} body;

static LLVMValueRef now_of(const body *bd, LLVMValueRef v)
{
    uintptr_t k = (uintptr_t)util_ptrmap_get(&bd->at, v);
    return k ? bd->now[k - 1] : v;
}

/* Whether the body can be copied: no stack allocation.  Sets bd->store to
 * the body's store when that is its only write to memory (a call that may
 * write counts, an indirect one always), plain, to an address made outside
 * the body. */
static bool copyable(body *bd)
{
    unsigned writes = 0;
    for (unsigned i = 0; i < bd->nins; i++) {
        LLVMValueRef in = bd->ins[i];
        switch (LLVMGetInstructionOpcode(in)) {
        case LLVMAlloca:
            return false;
        case LLVMCall:
            writes += jit_call_may_write(in);
            break;
        case LLVMStore:
            writes++;
            if (!LLVMGetVolatile(in) && LLVMGetOrdering(in) == LLVMAtomicOrderingNotAtomic &&
                !util_ptrmap_get(&bd->at, LLVMGetOperand(in, 1)))
                bd->store = in;
            break;
        case LLVMAtomicRMW:
        case LLVMAtomicCmpXchg:
        case LLVMFence:
            writes++;
            break;
        default:
            break;
        }
    }
    if (writes != 1)
        bd->store = NULL;
    return true;
}

/* Whether load `in` reads what the body's one store wrote last: the same
 * address (made outside the body), the same type, nothing written between. */
static bool forwarded(const body *bd, LLVMValueRef in)
{
    return bd->store && bd->stored && LLVMIsALoadInst(in) && !LLVMGetVolatile(in) &&
           LLVMGetOrdering(in) == LLVMAtomicOrderingNotAtomic &&
           LLVMGetOperand(in, 0) == LLVMGetOperand(bd->store, 1) && LLVMTypeOf(in) == LLVMTypeOf(bd->stored);
}

/* Copy c >= 1 of the body, before its branch. */
static void copy_body(LLVMBuilderRef b, body *bd, LLVMValueRef term)
{
    /* this copy's phis: what the last copy passed back (one phi's value may
     * be another's: all read before any is replaced) */
    LLVMValueRef *phis = bd->now + bd->nins, *next = phis + bd->nphi;
    for (unsigned j = 0; j < bd->nphi; j++)
        next[j] = now_of(bd, bd->back[j]);
    memcpy(phis, next, bd->nphi * sizeof *phis);
    LLVMPositionBuilderBefore(b, term);
    for (unsigned i = 0; i < bd->nins; i++) {
        LLVMValueRef in = bd->ins[i];
        if (forwarded(bd, in)) {
            bd->now[i] = bd->stored;
            continue;
        }
        unsigned nops = (unsigned)LLVMGetNumOperands(in);
        bool same = true;
        for (unsigned k = 0; k < nops && same; k++)
            same = now_of(bd, LLVMGetOperand(in, k)) == LLVMGetOperand(in, k);
        LLVMOpcode op = LLVMGetInstructionOpcode(in);
        if (same && (jit_opcode_pure(op) || (op == LLVMCall && jit_call_pure(in)))) {
            /* the same value in every copy: the first one's (a division
             * that ran there runs the same way in the later ones) */
            bd->now[i] = in;
            continue;
        }
        LLVMValueRef copy = LLVMInstructionClone(in);
        for (unsigned k = 0; k < nops; k++)
            LLVMSetOperand(copy, k, now_of(bd, LLVMGetOperand(in, k)));
        LLVMInsertIntoBuilder(b, copy);
        bd->now[i] = copy;
        if (in == bd->store)
            bd->stored = LLVMGetOperand(copy, 0);
    }
}

/* Every use of v outside the loop's block made a use of what the last copy
 * made of it: the value the loop leaves is the last trip's.  -1 when out of
 * memory. */
static int retarget_outside(const body *bd, LLVMValueRef v)
{
    LLVMValueRef last = now_of(bd, v);
    if (last == v)
        return 0;
    unsigned n = 0;
    for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u))
        n++;
    LLVMValueRef *users = malloc((n ? n : 1) * sizeof *users);
    if (!users)
        return -1;
    n = 0;
    for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u))
        if (LLVMGetInstructionParent(LLVMGetUser(u)) != bd->bb)
            users[n++] = LLVMGetUser(u);
    for (unsigned i = 0; i < n; i++)
        for (unsigned k = 0, nops = (unsigned)LLVMGetNumOperands(users[i]); k < nops; k++)
            if (LLVMGetOperand(users[i], k) == v)
                LLVMSetOperand(users[i], k, last);
    free(users);
    return 0;
}

/* Unrolls the loop of one block bb (its trips a multiple of `copies`):
 * `copies` bodies in a row, one test at the end.  -1 when out of memory. */
static int unroll(LLVMBuilderRef b, body *bd, unsigned copies)
{
    LLVMValueRef term = LLVMGetBasicBlockTerminator(bd->bb);
    for (unsigned i = 0; i < bd->nins; i++)
        bd->now[i] = bd->ins[i];
    for (unsigned j = 0; j < bd->nphi; j++)
        bd->now[bd->nins + j] = bd->phi[j];
    bd->stored = bd->store ? LLVMGetOperand(bd->store, 0) : NULL;
    for (unsigned c = 1; c < copies; c++)
        copy_body(b, bd, term);
    for (unsigned j = 0; j < bd->nphi; j++)
        for (unsigned k = 0; k < LLVMCountIncoming(bd->phi[j]); k++)
            if (LLVMGetIncomingBlock(bd->phi[j], k) == bd->bb)
                LLVMSetOperand(bd->phi[j], k, now_of(bd, bd->back[j]));
    LLVMSetOperand(term, 0, now_of(bd, LLVMGetCondition(term)));
    for (unsigned i = 0; i < bd->nins + bd->nphi; i++)
        if (retarget_outside(bd, i < bd->nins ? bd->ins[i] : bd->phi[i - bd->nins]) < 0)
            return -1;
    return 0;
}

/* The body of the loop of one block bb; false when it is none or cannot be
 * copied (out of memory: *oom). */
static bool take_body(body *bd, LLVMBasicBlockRef bb, bool *oom)
{
    LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
    unsigned n = 0;
    for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in != term; in = LLVMGetNextInstruction(in))
        n++;
    if (n > UNROLLED_MAX / 2)
        return false;
    bd->bb = bb;
    bd->phi = malloc((5 * n + 1) * sizeof *bd->phi);
    if (!bd->phi) {
        *oom = true;
        return false;
    }
    bd->back = bd->phi + n;
    bd->ins = bd->back + n;
    bd->now = bd->ins + n; /* 2 n: room for nins + 2 nphi */
    bd->nphi = bd->nins = 0;
    for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in != term; in = LLVMGetNextInstruction(in)) {
        if (LLVMIsAPHINode(in)) {
            bd->phi[bd->nphi] = in;
            bd->back[bd->nphi] = NULL;
            for (unsigned k = 0; k < LLVMCountIncoming(in); k++)
                if (LLVMGetIncomingBlock(in, k) == bb)
                    bd->back[bd->nphi] = LLVMGetIncomingValue(in, k);
            if (!bd->back[bd->nphi++])
                return false;
        } else {
            bd->ins[bd->nins++] = in;
        }
    }
    for (unsigned i = 0; i < bd->nins + bd->nphi; i++) {
        LLVMValueRef v = i < bd->nins ? bd->ins[i] : bd->phi[i - bd->nins];
        if (!util_ptrmap_put(&bd->at, v, (void *)(uintptr_t)(i + 1))) {
            *oom = true;
            return false;
        }
    }
    bd->store = NULL;
    return copyable(bd);
}

/* How many copies of a body of n instructions a loop of `trips` trips gets:
 * the most that divide the trips and fit; below 2, none. */
static unsigned copies_for(unsigned trips, unsigned n)
{
    for (unsigned u = trips < COPIES_MAX ? trips : COPIES_MAX; u >= 2; u--)
        if (trips % u == 0 && n * u <= UNROLLED_MAX)
            return u;
    return 0;
}

static int unroll_function(LLVMBuilderRef b, LLVMValueRef fn)
{
    jit_cfg g;
    if (jit_cfg_build(&g, fn))
        return -1;
    int done = 0; /* the copies add no block and no edge: g stays true */
    for (unsigned l = 0; l < g.nloops && done >= 0; l++) {
        if (g.loops[l].nblocks != 1)
            continue;
        unsigned h = g.loops[l].header;
        body bd = { 0 };
        util_hashmap_init(&bd.at, NULL);
        bool oom = false;
        if (take_body(&bd, g.blocks[h], &oom) && bd.store) {
            bd.stored = LLVMGetOperand(bd.store, 0); /* the first copy's: what the second one's loads of it read */
            unsigned copies = copies_for(jit_cfg_counted_trips(b, &g, h, h, UNROLLED_TRIPS), bd.nins);
            if (copies && unroll(b, &bd, copies) < 0)
                oom = true;
            done += copies != 0;
        }
        if (oom)
            done = -1;
        free(bd.phi);
        util_hashmap_fini(&bd.at);
    }
    jit_cfg_free(&g);
    return done;
}

int jit_quick_unroll(LLVMModuleRef mod)
{
    LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(mod));
    int n = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(mod); f && n >= 0; f = LLVMGetNextFunction(f)) {
        if (!LLVMCountBasicBlocks(f))
            continue;
        int k = unroll_function(b, f);
        n = k < 0 ? -1 : n + k;
    }
    LLVMDisposeBuilder(b);
    return n;
}
