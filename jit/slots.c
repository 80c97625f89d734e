/* jit/slots.c — hoisted values and stack slots of the work-group function (see slots.h). */
#include "slots.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llvm_facts.h"
#include "util/array.h"

const jit_slot *jit_slot_of(const jit_slot_plan *p, LLVMValueRef a)
{
    unsigned s = jit_slot_number(p, a);
    return s == UINT32_MAX ? NULL : &p->slots[s];
}

unsigned jit_slot_number(const jit_slot_plan *p, LLVMValueRef a)
{
    return (unsigned)(uintptr_t)util_ptrmap_get(&p->index, a) - 1;
}

bool jit_slot_hoisted(const jit_slot_plan *p, LLVMValueRef v)
{
    return util_ptrmap_get(&p->hoisted, v) != NULL;
}

bool jit_slot_live_into(const jit_slot_plan *p, unsigned b, unsigned s)
{
    return p->live_in[(size_t)b * p->live_words + s / 64] >> (s % 64) & 1;
}

static jit_slot *slot_at(const jit_slot_plan *p, LLVMValueRef a)
{
    return (jit_slot *)jit_slot_of(p, a);
}

/* --- hoisted values ------------------------------------------------------------------------------ */

/* A value available at the top of a group: a constant, a uniform argument, a hoisted value. */
static bool available(const jit_slot_plan *p, const jit_uniformity *u, LLVMValueRef v)
{
    if (LLVMIsAArgument(v))
        return !jit_uniformity_varying(u, v);
    if (LLVMIsABasicBlock(v))
        return false;
    if (LLVMIsAInstruction(v))
        return jit_slot_hoisted(p, v);
    return LLVMIsAConstant(v) != NULL;
}

LLVMValueRef jit_slot_stored_once(const jit_slot_plan *p, LLVMValueRef load)
{
    (void)p;
    LLVMValueRef slot = LLVMIsALoadInst(load) ? LLVMGetOperand(load, 0) : NULL;
    if (!slot || !LLVMIsAAllocaInst(slot))
        return NULL;
    LLVMValueRef store = NULL;
    for (LLVMUseRef use = LLVMGetFirstUse(slot); use; use = LLVMGetNextUse(use)) {
        LLVMValueRef user = LLVMGetUser(use);
        if (LLVMIsAStoreInst(user)) {
            if (store || LLVMGetOperand(user, 1) != slot)
                return NULL;
            store = user;
        } else if (!LLVMIsALoadInst(user)) {
            return NULL; /* its address goes elsewhere */
        }
    }
    if (!store || LLVMGetInstructionParent(store) != LLVMGetInstructionParent(load))
        return NULL;
    for (LLVMValueRef i = store; i; i = LLVMGetNextInstruction(i))
        if (i == load)
            return LLVMGetOperand(store, 0);
    return NULL; /* the load comes first */
}

/* The entry block's values the same for every work-item and computable once:
 * from available values alone, loads only before this item wrote any memory
 * but its own slots (an earlier write by another item before the first
 * barrier would be a data race), and reloads of slots stored once with a
 * hoisted value before them (reg2mem's). */
static bool find_hoisted(jit_slot_plan *p, LLVMBasicBlockRef entry, const jit_uniformity *u)
{
    bool written = false;
    for (LLVMValueRef in = LLVMGetFirstInstruction(entry); in; in = LLVMGetNextInstruction(in)) {
        LLVMOpcode op = LLVMGetInstructionOpcode(in);
        bool h = false;
        if (jit_is_group_proven(in)) {
            h = true; /* the proof's flag: the group's, set per machine (lower_ctx.h) */
        } else if (jit_inst_may_write_shared(in)) {
            written = true;
        } else if (op == LLVMLoad && jit_slot_stored_once(p, in)) {
            h = available(p, u, jit_slot_stored_once(p, in));
        } else if (op == LLVMLoad) {
            h = !written && !LLVMGetVolatile(in) && LLVMGetOrdering(in) == LLVMAtomicOrderingNotAtomic &&
                available(p, u, LLVMGetOperand(in, 0));
        } else if (jit_opcode_pure(op) || (op == LLVMCall && jit_inst_never_traps(in))) { /* an intrinsic's too */
            h = true;
            for (int k = 0; k < LLVMGetNumOperands(in) && h; k++)
                h = available(p, u, LLVMGetOperand(in, k));
        }
        if (h && !util_ptrmap_put(&p->hoisted, in, in))
            return false;
    }
    return true;
}

/* --- slots stored once ------------------------------------------------------------------------------ */

/* JIT_SLOT_UNIFORM: a simple slot stored once, in the entry block, with an
 * available value, and not read in the entry block before that store. */
static void find_uniform_slot(jit_slot_plan *p, const jit_uniformity *u, LLVMBasicBlockRef entry, jit_slot *sl)
{
    LLVMValueRef store = NULL;
    for (LLVMUseRef use = LLVMGetFirstUse(sl->alloca); use; use = LLVMGetNextUse(use)) {
        LLVMValueRef user = LLVMGetUser(use);
        if (!LLVMIsAStoreInst(user))
            continue;
        if (store || LLVMGetInstructionParent(user) != entry)
            return;
        store = user;
    }
    if (!store || !available(p, u, LLVMGetOperand(store, 0)))
        return;
    for (LLVMValueRef i = LLVMGetFirstInstruction(entry); i != store; i = LLVMGetNextInstruction(i))
        if (LLVMIsALoadInst(i) && LLVMGetOperand(i, 0) == sl->alloca)
            return;
    sl->kind = JIT_SLOT_UNIFORM;
    sl->value = LLVMGetOperand(store, 0);
}

/* Whether v can be recomputed anywhere from constants, hoisted values, the
 * arguments and other such slots; *budget bounds the instructions it takes. */
static bool remat_ok(const jit_slot_plan *p, LLVMValueRef v, int *budget)
{
    if (LLVMIsAArgument(v))
        return true; /* ctx or the local id */
    if (!LLVMIsAInstruction(v))
        return LLVMIsAConstant(v) != NULL;
    if (jit_slot_hoisted(p, v))
        return true;
    if (--*budget < 0)
        return false;
    if (LLVMIsALoadInst(v)) {
        jit_slot *sl = slot_at(p, LLVMGetOperand(v, 0));
        if (!sl || sl->visiting)
            return false;
        if (sl->kind == JIT_SLOT_UNIFORM || sl->kind == JIT_SLOT_REMAT)
            return true;
        if (!sl->simple || !sl->value)
            return false;
        sl->visiting = true;
        bool ok = remat_ok(p, sl->value, budget);
        sl->visiting = false;
        return ok;
    }
    if (!jit_inst_never_traps(v))
        return false;
    for (int k = 0, n = LLVMGetNumOperands(v); k < n; k++)
        if (!remat_ok(p, LLVMGetOperand(v, k), budget))
            return false;
    return true;
}

/* Simple slots stored exactly once get value = the stored value; those whose
 * value can be recomputed become JIT_SLOT_REMAT. */
static void find_remat_slots(jit_slot_plan *p)
{
    for (unsigned s = 0; s < p->nslots; s++) {
        jit_slot *sl = &p->slots[s];
        if (!sl->simple || sl->kind == JIT_SLOT_UNIFORM)
            continue;
        LLVMValueRef store = jit_alloca_single_store(sl->alloca);
        if (store)
            sl->value = LLVMGetOperand(store, 0);
    }
    for (unsigned s = 0; s < p->nslots; s++) {
        jit_slot *sl = &p->slots[s];
        if (!sl->simple || sl->kind == JIT_SLOT_UNIFORM || !sl->value)
            continue;
        int budget = 48;
        sl->visiting = true;
        if (remat_ok(p, sl->value, &budget))
            sl->kind = JIT_SLOT_REMAT;
        sl->visiting = false;
    }
}

/* --- liveness ------------------------------------------------------------------------------------- */

/* Which simple slots are live into each block; slots whose value may be read
 * in a later region (live into a region start) get one element per item, or
 * stay one slot when they are uniform (JIT_SLOT_GROUP). */
static bool classify_live_slots(jit_slot_plan *p, const jit_regions *rg)
{
    const jit_cfg *g = &rg->cfg;
    unsigned nb = g->nblocks, words = (p->nslots + 63) / 64;
    size_t total = (size_t)nb * words + 1;
    uint64_t *use = calloc(total, 8), *def = calloc(total, 8), *in = calloc(total, 8), *tmp = calloc(words + 1, 8);
    bool ok = use && def && in && tmp;
    for (unsigned b = 0; b < nb && ok; b++)
        for (LLVMValueRef i = LLVMGetFirstInstruction(g->blocks[b]); i; i = LLVMGetNextInstruction(i)) {
            bool ld = LLVMIsALoadInst(i) != NULL, st = LLVMIsAStoreInst(i) != NULL;
            if (!ld && !st)
                continue;
            unsigned s = jit_slot_number(p, LLVMGetOperand(i, ld ? 0 : 1));
            if (s == UINT32_MAX || !p->slots[s].simple)
                continue;
            uint64_t bit = 1ull << (s % 64);
            if (ld && !(def[(size_t)b * words + s / 64] & bit))
                use[(size_t)b * words + s / 64] |= bit;
            if (st)
                def[(size_t)b * words + s / 64] |= bit;
        }
    for (bool changed = ok; changed;) {
        changed = false;
        for (unsigned b = nb; b-- > 0;) {
            memset(tmp, 0, words * 8);
            for (unsigned e = g->succ_off[b]; e < g->succ_off[b + 1]; e++)
                for (unsigned w = 0; w < words; w++)
                    tmp[w] |= in[(size_t)g->succ[e] * words + w];
            for (unsigned w = 0; w < words; w++) {
                size_t at = (size_t)b * words + w;
                uint64_t v = use[at] | (tmp[w] & ~def[at]);
                if (v != in[at]) {
                    in[at] = v;
                    changed = true;
                }
            }
        }
    }
    free(use);
    free(def);
    free(tmp);
    p->live_in = in;
    p->live_words = words;
    for (unsigned s = 0; s < p->nslots && ok; s++) {
        jit_slot *sl = &p->slots[s];
        if (sl->kind != JIT_SLOT_SHARED || !sl->simple)
            continue;
        for (unsigned k = 1; k <= rg->nresume; k++)
            if (jit_slot_live_into(p, rg->start[k], s))
                sl->kind = sl->varying ? JIT_SLOT_ITEM : JIT_SLOT_GROUP;
    }
    return ok;
}

/* --- the plan --------------------------------------------------------------------------------------- */

static int fail(char *msg, int rc, const char *why)
{
    snprintf(msg, JIT_REGIONS_MSG, "%s", why);
    return rc;
}

int jit_slots_plan(jit_slot_plan *p, const jit_regions *rg, const jit_uniformity *u, LLVMTargetDataRef td,
                   uint32_t nitems, char *msg)
{
    memset(p, 0, sizeof *p);
    util_hashmap_init(&p->index, NULL);
    util_hashmap_init(&p->hoisted, NULL);
    LLVMBasicBlockRef entry = rg->cfg.blocks[0];
    util_array slots = { 0 };
    for (LLVMValueRef i = LLVMGetFirstInstruction(entry); i; i = LLVMGetNextInstruction(i)) {
        if (!LLVMIsAAllocaInst(i))
            continue;
        LLVMValueRef cnt = LLVMGetOperand(i, 0);
        if (!LLVMIsAConstantInt(cnt) || LLVMConstIntGetZExtValue(cnt) != 1) {
            util_array_fini(&slots);
            return fail(msg, 1, "a stack allocation of a run-time or array size");
        }
        bool simple = jit_alloca_simple(i);
        jit_slot sl = { .alloca = i, .simple = simple, .kind = simple ? JIT_SLOT_SHARED : JIT_SLOT_ITEM };
        if (!UTIL_ARRAY_PUSH(&slots, jit_slot, sl) ||
            !util_ptrmap_put(&p->index, i, (void *)(uintptr_t)UTIL_ARRAY_COUNT(&slots, jit_slot))) {
            util_array_fini(&slots);
            return fail(msg, -1, "out of memory");
        }
    }
    p->nslots = (unsigned)UTIL_ARRAY_COUNT(&slots, jit_slot);
    p->slots = util_array_steal(&slots);
    if (!find_hoisted(p, entry, u))
        return fail(msg, -1, "out of memory");
    for (unsigned s = 0; s < p->nslots; s++) {
        p->slots[s].varying = jit_uniformity_alloca_varying(u, p->slots[s].alloca);
        if (p->slots[s].simple)
            find_uniform_slot(p, u, entry, &p->slots[s]);
    }
    find_remat_slots(p);
    if (!classify_live_slots(p, rg))
        return fail(msg, -1, "out of memory");
    p->item_bytes = 4ull * nitems; /* next[] */
    for (unsigned s = 0; s < p->nslots; s++)
        if (p->slots[s].kind == JIT_SLOT_ITEM) {
            p->item_slots++;
            p->item_bytes += (uint64_t)nitems * LLVMABISizeOfType(td, LLVMGetAllocatedType(p->slots[s].alloca));
        }
    if (p->item_bytes > JIT_REGIONS_MAX_STACK) {
        snprintf(msg, JIT_REGIONS_MSG, "%u per-item slots and next[] would take %llu bytes per group (more than %u)",
                 p->item_slots, (unsigned long long)p->item_bytes, JIT_REGIONS_MAX_STACK);
        return 1;
    }
    return 0;
}

void jit_slots_free(jit_slot_plan *p)
{
    free(p->slots);
    free(p->live_in);
    util_hashmap_fini(&p->index);
    util_hashmap_fini(&p->hoisted);
    memset(p, 0, sizeof *p);
}
