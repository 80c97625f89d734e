/* jit/quick_isel.h — the integer intrinsics, one-bit selects and vector
 * constants FastISel cannot select, rewritten for the quick tier.
 *
 * The quick tier's code generator is FastISel, which gives up on an
 * instruction it has no pattern for and hands that instruction and the rest
 * of its block above it to SelectionDAG.  On x86 it has none for the integer
 * min/max intrinsics (GLSL's min, max, clamp; OpenCL's) and the saturating
 * subtraction lower_bounds.c computes a buffer's last valid offset with,
 * which sit in the big entry blocks of the group functions: code generation
 * took up to half again as long (reduce: 3.6 against 2.4 ms, llc -O0).  Each
 * becomes the compare and select it means, the same integer result, so the
 * tiers still agree bit for bit.  Nor has it one for a select of one bit,
 * the form LLVM's passes give `a && b` and `a || b` (`a ? b : false`):
 * those become the ands and ors they mean (mm's quick build 2-7% shorter).
 * The optimized tier keeps both (SelectionDAG selects them well, and its
 * passes recognize them).
 *
 * Vector code (a kernel that observes its sub-groups has SIMD lanes on this
 * tier too) meets two more gaps.  FastISel has no legal type for a mask, a
 * vector of i1, on a target without mask registers: a phi of one sends
 * every predecessor's block to SelectionDAG, which then promotes and
 * truncates the mask wherever it crosses a block.  Masks compute on i32
 * lanes of 0 or -1 instead (quick_masks.c).  Nor can FastISel materialize a
 * vector constant: a phi taking one (a zero vector, most often) sends its
 * predecessor's block there too, so the constant is loaded from a constant
 * global at the end of that block.  sgreduce's quick code generation,
 * alternating in one process: 7.5-8.7 -> 6.1-7.0 ms (medians of 40).
 * Nor, for the same reason, can it store a constant vector, nor a vector
 * of a type without a register (<3 x float>: the rows of coefficients SROA
 * leaves as the specialized initializers of a private array): each such
 * store becomes one store of each element.  conv3x3's quick build (load
 * included, alternating in one process): 8.15 -> 7.24 and 7.67 -> 7.03 ms
 * (medians of 41).
 * What FastISel still hands to SelectionDAG (vector compares, selects on a
 * vector condition, shuffles, element inserts and extracts, conversions of
 * vectors) takes the rest of its block above it along: the scalar head of
 * each such block (a sub-group's index arithmetic) is split off into a
 * block of its own, which FastISel selects (sgreduce's quick load and build
 * 0.93-0.96x as long, alternating in one process, medians of 41).
 */
#ifndef SPVJIT_JIT_QUICK_ISEL_H
#define SPVJIT_JIT_QUICK_ISEL_H

#include <llvm-c/Core.h>

/* Replaces in mod every scalar call of llvm.{u,s}{min,max} and
 * llvm.u{add,sub}.sat by compares and selects, every select of an i1 by ands
 * and ors, every store of a constant vector by stores of its elements, the
 * masks by their wide forms and the vector constants phis take by loads,
 * and splits each block before the first instruction FastISel still
 * cannot select; returns how many, or -1 when out of memory.  The last step
 * before code generation: no pass may fold them back. */
int jit_quick_isel_expand(LLVMModuleRef mod);

/* quick_masks.c: every phi, and, or, xor, select and shuffle of vectors of
 * i1 in mod rebuilt on vectors of i32 (0 or -1 a lane), and what else reads
 * them given the compare `!= 0`; returns how many, or -1 when out of
 * memory. */
int jit_quick_widen_masks(LLVMModuleRef mod);

#endif
