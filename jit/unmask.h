/* jit/unmask.h — masked accesses whose lanes are all active, unmasked.
 *
 * The SIMD path runs `if (gid < n) ... src[gid] ...` as masked loads and
 * stores under the lanes' compare, icmp pred (x + C), y: a uniform x (a
 * splat) plus each lane's constant offset C[l] (an `or disjoint` or an add
 * that cannot wrap, as the passes leave a sub-group's ids), against a uniform
 * y.  Every lane is active exactly when the lane of the largest (for <, <=)
 * or smallest (>, >=) offset is: one scalar compare; no lane is when the
 * negated compare holds for every lane, again one.  An add that may wrap
 * (OpenCL C's `uint i = get_global_id(0)`: 32 bits, no nuw) with offsets
 * of at least 0 keeps that order where x plus the largest offset does not
 * wrap: a second compare says so.  Nots, ands of conditions that must all
 * hold, ors of ones that must all fail and uniform conditions (splats of an
 * i1) combine them, and a shuffle that repeats a mask's lanes (a row of
 * vectors, one per lane: simd_memory.c) is as active as the mask.  After the passes, each
 * llvm.masked.load and llvm.masked.store whose mask has that form becomes
 *
 *     if (every lane active) the plain load or store
 *     else { the mask; the masked access }
 *
 * when the mask is computed for that access alone.  A mask several accesses
 * of a block share (saxpy's two loads and its store, a row of conv3x3's taps
 * under `x < w && y < h`) versions the range from the first of them to the
 * last once:
 *
 *     if (every lane active) the range copied, its accesses plain and the
 *                            mask's other uses all true
 *     else the range as it was
 *
 * with a phi after it for each of its values used later; splitting the
 * block at each access instead cost conv3x3 more than its masked moves.  On
 * Intel x86 the mask's broadcast and vector compare and the masked move's
 * blend each take a micro-op on the shuffle port, the port a sub-group's
 * reduction tree is bound by; the scalar test is a compare and a predicted
 * branch.  On AMD's Zen 3 (an EPYC of family 25) the masked moves are
 * slower still: saxpy ran at 11.7 GB/s with them and at 24.9 without (C:
 * 22-27 GB/s; 2 threads).  The lanes accessed are the same, so are the
 * values: both tiers keep their bits.
 */
#ifndef SPVJIT_JIT_UNMASK_H
#define SPVJIT_JIT_UNMASK_H

#include <llvm-c/Core.h>

/* Rewrites the masked accesses of mod; returns how many accesses and ranges,
 * or -1 when out of memory. */
int jit_unmask_full_lanes(LLVMModuleRef mod);

#endif
