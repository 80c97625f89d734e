/* jit/uniformity.h — which values vary between work-items, which blocks only
 * some work-items run (a divergence analysis over one LLVM function).
 *
 * Given a function, which of its arguments may differ between the work-items
 * that run it (the local id does, the spvjit_wg_ctx pointer does not) and a
 * memory rule, finds the fixed point:
 *  - a value is varying when it is computed from a varying value (any operand
 *    of a pure opcode or of a call to a memory(none) function), when it is an
 *    instruction whose result the analysis cannot follow (an alloca's address,
 *    atomics, calls that touch memory, volatile or atomic loads), or when it is
 *    a load that the memory rule does not make uniform;
 *  - a simple alloca (only loaded and stored whole: a variable after reg2mem)
 *    holds a varying value once any store into it stores a varying value or
 *    runs in a divergent block; a load from it is varying then;
 *  - a branch or switch on a varying condition is varying; the blocks it
 *    reaches before its immediate post-dominator are divergent (reached by
 *    some work-items only).  A loop left by a varying condition is such a
 *    region too: its blocks are divergent, and what it leaves behind varies.
 *    So is a loop left from a block that a varying branch inside the loop
 *    reaches (only some items get to that exit, whatever its condition): that
 *    exit's branch counts as varying;
 *  - a phi is varying when an incoming value is, or when its block has two or
 *    more predecessors and is a join of a varying branch: its immediate
 *    post-dominator, or a block before it that two of its successors reach
 *    (conservative: not every such join mixes paths; a loop header under a
 *    varying branch is no join, every item there came the same way), unless
 *    the edges from each varying branch it joins and from the blocks that
 *    branch reaches bring one value (in a loop: every edge from a divergent
 *    block or a varying branch);
 *  - a value defined in a loop that a varying branch leaves, used outside that
 *    loop, is varying (each work-item may have left at another iteration);
 *    the value itself is marked, not only its uses outside the loop.
 *
 * The memory rule says when a load from a uniform address is uniform:
 *  JIT_MEMORY_ITEMS_IN_SEQUENCE — the work-items run one after another (the
 *    barrier regions' loops, fibers): another item may have written the memory
 *    in between, so only a load from memory no work-item writes (the
 *    `read_only` callback, given the pointer's root: see
 *    jit_uniformity_pointer_root) is uniform, and a load in the entry block
 *    before the function's first store to shared memory, call or atomic
 *    (another item's write there would be a data race);
 *  JIT_MEMORY_LANES_IN_LOCKSTEP — the work-items are the lanes of one SIMD
 *    sub-group running each instruction together: every non-volatile,
 *    non-atomic load from a uniform address is uniform.
 *
 *   jit_uniformity *u;
 *   bool varies[4] = { false, true, true, true };   // ctx, lx, ly, lz
 *   jit_uniformity_config uc = { .param_varies = varies, .memory = JIT_MEMORY_ITEMS_IN_SEQUENCE };
 *   if (jit_uniformity_run(&u, &cfg, &uc)) ...out of memory...
 *   jit_uniformity_varying(u, value); jit_uniformity_divergent(u, block_number);
 *   jit_uniformity_free(u);
 *
 * The function and the jit_cfg must stay unchanged while the result is used.
 */
#ifndef SPVJIT_JIT_UNIFORMITY_H
#define SPVJIT_JIT_UNIFORMITY_H

#include <stdbool.h>
#include <llvm-c/Core.h>

#include "cfg.h"

typedef enum jit_memory_rule {
    JIT_MEMORY_ITEMS_IN_SEQUENCE,
    JIT_MEMORY_LANES_IN_LOCKSTEP,
} jit_memory_rule;

typedef struct jit_uniformity jit_uniformity;

/* Whether `root` (a pointer without GEPs and variables, see
 * jit_uniformity_pointer_root) points into memory that no work-item writes
 * while the function runs. */
typedef bool (*jit_read_only_fn)(void *user, const jit_uniformity *u, LLVMValueRef root);

/* Whether call `call` gives different values to different work-items: 1 yes,
 * 0 no, -1 the general rule (varying unless memory(none) with uniform operands). */
typedef int (*jit_call_varying_fn)(void *user, const jit_uniformity *u, LLVMValueRef call);

typedef struct jit_uniformity_config {
    const bool *param_varies; /* [number of parameters]: argument i may differ between work-items */
    jit_memory_rule memory;
    jit_read_only_fn read_only;       /* NULL: no memory is known to be read-only */
    jit_call_varying_fn call_varying; /* NULL: the general rule for every call */
    /* Instructions (not phis) the caller has proved the same in every work-item
     * whatever their operands (NULL: none). */
    bool (*known_uniform)(void *user, LLVMValueRef in);
    void *user;
} jit_uniformity_config;

/* Runs the analysis over cfg->fn.  0, or -1 when out of memory. */
int jit_uniformity_run(jit_uniformity **out, const jit_cfg *cfg, const jit_uniformity_config *config);
void jit_uniformity_free(jit_uniformity *u);

/* Whether v may differ between work-items: instructions and arguments as
 * analysed; constants, globals, functions and blocks never. */
bool jit_uniformity_varying(const jit_uniformity *u, LLVMValueRef v);
/* Whether block b (cfg number) may be run by some work-items and not others. */
bool jit_uniformity_divergent(const jit_uniformity *u, unsigned b);
/* Whether block b is a join of a varying branch (see the phi rule above). */
bool jit_uniformity_join(const jit_uniformity *u, unsigned b);
/* Whether phi `in` at a join still gives the items that arrive together one
 * value (the exception in the phi rule above). */
bool jit_uniformity_join_brings_one(const jit_uniformity *u, LLVMValueRef in);
/* Whether block b ends in a branch or switch on a varying condition. */
bool jit_uniformity_branch_varying(const jit_uniformity *u, unsigned b);
/* Whether alloca `a` may hold different values in different work-items:
 * false only for a simple one whose every store stores a uniform value in a
 * block that is not divergent. */
bool jit_uniformity_alloca_varying(const jit_uniformity *u, LLVMValueRef a);
/* What pointer p is computed from, through GEPs and through simple allocas
 * stored exactly once (reg2mem passes pointers between blocks that way);
 * NULL when the chain is deeper than 8. */
LLVMValueRef jit_uniformity_pointer_root(const jit_uniformity *u, LLVMValueRef p);

#endif
