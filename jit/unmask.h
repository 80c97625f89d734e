/* jit/unmask.h — masked accesses whose lanes are all active, unmasked.
 *
 * The SIMD path runs `if (gid < n) ... src[gid] ...` as masked loads and
 * stores under the lanes' compare, icmp pred (x + C), y: a uniform x (a
 * splat) plus each lane's constant offset C[l] (an `or disjoint` or an add
 * that cannot wrap, as the passes leave a sub-group's ids), against a uniform
 * y.  Every lane is active exactly when the lane of the largest (for <, <=)
 * or smallest (>, >=) offset is: one scalar compare; no lane is when the
 * negated compare holds for every lane, again one.  Nots, ands of
 * conditions that must all hold, ors of ones that must all fail and uniform
 * conditions (splats of an i1) combine them.  After the passes, each
 * llvm.masked.load and llvm.masked.store whose mask has that form becomes
 *
 *     if (every lane active) the plain load or store
 *     else { the mask; the masked access }
 *
 * when the mask is computed for that access alone: a mask several accesses
 * share (conv3x3's taps and store under `x < w && y < h`) is computed anyway,
 * and splitting the block at each of them cost conv3x3 more than its masked
 * moves.  On x86 the mask's broadcast and vector compare and the masked
 * move's blend each take a micro-op on the shuffle port, the port a
 * sub-group's reduction tree is bound by; the scalar test is a compare and a
 * predicted branch.  The lanes accessed are the same, so are the values:
 * both tiers keep their bits.
 */
#ifndef SPVJIT_JIT_UNMASK_H
#define SPVJIT_JIT_UNMASK_H

#include <llvm-c/Core.h>

/* Rewrites the masked accesses of mod; returns how many, or -1 when out of memory. */
int jit_unmask_full_lanes(LLVMModuleRef mod);

#endif
