/* jit/lane_redirect.c — masked gathers and scatters unmasked, the lanes that
 * are off pointed at the module's spare bytes.
 *
 * The SIMD path reads and writes what is not contiguous (mm's tiles where
 * the lanes' 32-bit indices might wrap, conv3x3's clamped taps at an
 * image's edge) with llvm.masked.gather and llvm.masked.scatter under the
 * lanes' mask.  Where the target has no gather it finds fast (x86 without
 * AVX-512 or Intel's fast gathers: AMD's Zen 3, say), LLVM's code generator
 * expands each into a test, a branch and a block per lane: mm at block size
 * 8 has 32 of them, 505 tests and 574 branches in its 3920 instructions,
 * and its code generation took 1.5x as long for them.  After the passes,
 * each gather and scatter whose mask is not the constant of all lanes
 * becomes
 *
 *     ptrs' = select(mask, ptrs, splat(spare));  the access with every lane on
 *
 * with a gather's result select(mask, loaded, passthru) unless its passthru
 * is poison or undef.  A gather's lanes that are off read the spare zeros, a
 * scatter's write the spare sink (llvm_facts.h, shared with the branchless
 * bounds checks): the expansion is then straight-line, and a native gather
 * (AVX-512) has one select more.  The lanes accessed in the program's
 * memory are the same, in the same order, and so are the values.  An access
 * in another address space than the spares' (0), aligned beyond them or of
 * an element larger than they are keeps its mask.
 */
#ifndef SPVJIT_JIT_LANE_REDIRECT_H
#define SPVJIT_JIT_LANE_REDIRECT_H

#include <llvm-c/Core.h>

/* Rewrites the masked gathers and scatters of mod; returns how many. */
int jit_redirect_masked_lanes(LLVMModuleRef mod);

#endif
