/* jit/quick_unroll.h — the quick tier's counted loops of one block that
 * write one address every trip, unrolled.
 *
 * The quick tier's fast register allocator keeps nothing in a register
 * across a block boundary, a loop's back edge included: a loop of one block
 * reloads its invariants and its phis every trip, and a value it carries
 * through memory (mm's accumulator, a per-item slot of the region loops) is
 * a store and a load on the critical path of every trip (mm's k loop: 30
 * instructions a multiply-add, 8 of them reloads).  Such a loop, counted
 * (jit_cfg_counted_trips: from a constant by a constant to a constant), whose
 * body's one write to memory is a plain store to an address made outside
 * it, gets up to 8 copies of its body, as many as divide its trips, one
 * test left at the end; where the body reads what that store wrote the trip
 * before, the later copies take the value from the copy before instead of
 * loading it.  mm's quick dispatch at 100x100, 2 threads: 3.99 -> 3.07 ms
 * at bs8, 3.97 -> 2.47 at bs16, 5.74 -> 3.46 at bs32, for 0.3-0.7 ms more of
 * build.  With the memory mode `unchecked`, early CSE forwards mm's
 * accumulator through a phi and the store stays: unrolled too, its quick
 * dispatch 3.39 -> 2.25 ms at bs8, 5.46 -> 2.59 at bs32 (the first result
 * 12.6 -> 11.8 and 14.8 -> 12.4).  Loops without such a store stay
 * rolled: unrolled, scan's and conv3x3's made their quick builds 0.4-0.8 ms
 * longer for dispatches at the small sizes too short to win it back.
 */
#ifndef SPVJIT_JIT_QUICK_UNROLL_H
#define SPVJIT_JIT_QUICK_UNROLL_H

#include <llvm-c/Core.h>

/* Unrolls those loops of mod; returns how many, or -1 when out of memory.
 * After the polls, which such a loop has none of (poll.h), and before
 * jit_quick_isel_expand (quick_isel.h), which then sees the copies. */
int jit_quick_unroll(LLVMModuleRef mod);

#endif
