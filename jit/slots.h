/* jit/slots.h — where the work-item function's values live in the work-group
 * function: what is computed once per group, and what becomes of each stack
 * slot (after reg2mem every value that crosses a block is one).
 *
 * Hoisted values: the entry block's instructions computed from constants,
 * uniform arguments (ctx) and other hoisted values alone — pure operations
 * (calls of pure, speculatable LLVM intrinsics among them, such as the
 * llvm.usub.sat of a bounds check's limit: jit_inst_never_traps), and loads
 * before anything may write shared memory — are computed once, at the top of
 * each group's machine (region_loops.h), and every region uses them.
 *
 * Stack slots (the entry block's allocas), by kind:
 *   JIT_SLOT_SHARED   one slot for the group: each item writes it before it
 *                     reads it within one region, so items can take turns;
 *   JIT_SLOT_ITEM     one element per work-item: its value must survive a
 *                     barrier (it is live into a region start) and varies, or
 *                     the slot is not a plain variable (jit_alloca_simple);
 *   JIT_SLOT_GROUP    live across a barrier but work-group uniform: one slot
 *                     for the group, which each item's pass over a region that
 *                     stores it starts from the value it had when the region
 *                     began (region_loops.c);
 *   JIT_SLOT_UNIFORM  stored once, in the entry block, with a hoisted value (and
 *                     not read before): every load is that value;
 *   JIT_SLOT_REMAT    stored once with a pure, trap-free function of constants,
 *                     hoisted values, the arguments (the local id) and other
 *                     such slots: every load recomputes it (no per-item array,
 *                     and the region loops see the id arithmetic, which they
 *                     need to vectorize).
 */
#ifndef SPVJIT_JIT_SLOTS_H
#define SPVJIT_JIT_SLOTS_H

#include <stdbool.h>
#include <stdint.h>
#include <llvm-c/Core.h>
#include <llvm-c/Target.h>

#include "regions.h"
#include "uniformity.h"
#include "util/hashmap.h"

typedef enum jit_slot_kind {
    JIT_SLOT_SHARED,
    JIT_SLOT_ITEM,
    JIT_SLOT_GROUP,
    JIT_SLOT_UNIFORM,
    JIT_SLOT_REMAT,
} jit_slot_kind;

typedef struct jit_slot {
    LLVMValueRef alloca;
    jit_slot_kind kind;
    bool simple;        /* only loaded and stored as a whole */
    bool varying;       /* may hold different values in different items (uniformity.h) */
    LLVMValueRef value; /* stored once: the value stored (UNIFORM / REMAT loads become it) */
    bool visiting;      /* private */
} jit_slot;

typedef struct jit_slot_plan {
    jit_slot *slots; /* in the order of the allocas */
    unsigned nslots;
    util_hashmap index;   /* alloca → slot number + 1 */
    util_hashmap hoisted; /* hoisted instruction → itself */
    uint64_t *live_in;    /* [cfg.nblocks * live_words]: bit s: slot s is live into the block */
    unsigned live_words;
    unsigned item_slots; /* JIT_SLOT_ITEM slots */
    uint64_t item_bytes; /* per-item arrays of a group, next[] (4 bytes per item) included */
} jit_slot_plan;

/* Plans the slots of the regions' item function for groups of `nitems`.
 * 0; 1 when they do not fit (an alloca of a run-time count, per-item arrays
 * beyond JIT_REGIONS_MAX_STACK; msg says which); -1 out of memory. */
int jit_slots_plan(jit_slot_plan *p, const jit_regions *rg, const jit_uniformity *u, LLVMTargetDataRef td,
                   uint32_t nitems, char *msg);
void jit_slots_free(jit_slot_plan *p);

/* The slot of alloca a, or NULL. */
const jit_slot *jit_slot_of(const jit_slot_plan *p, LLVMValueRef a);
/* Slot number of alloca a, or UINT32_MAX. */
unsigned jit_slot_number(const jit_slot_plan *p, LLVMValueRef a);
bool jit_slot_hoisted(const jit_slot_plan *p, LLVMValueRef v);
/* The value a load of the entry block reloads from a slot stored exactly
 * once, before it in that block, or NULL (reg2mem's reloads). */
LLVMValueRef jit_slot_stored_once(const jit_slot_plan *p, LLVMValueRef load);
/* Whether slot s is live into block b: its value there may be read before written. */
bool jit_slot_live_into(const jit_slot_plan *p, unsigned b, unsigned s);

#endif
