/* jit/contract.h — floating-point contraction, decided once on the lowered IR.
 *
 * SPIR-V lets a multiply and an add that uses it fuse into one operation
 * with a single rounding unless the result carries NoContraction: what
 * Vulkan drivers do with shaders and a C compiler at -ffp-contract=fast.
 * Kernel (OpenCL) modules come from front ends that contracted what OpenCL C
 * let them (clang's fmuladd, OpenCL's mad), so they contract only where an
 * FPFastMathMode decoration allows it.  The lowering marks the arithmetic
 * it may contract with JIT_CONTRACT_MD (jit_fp_flags).  Right after the
 * functions are lowered, before any pass, each marked add or subtract of a
 * marked multiply that nothing else uses becomes llvm.fmuladd (a fused
 * multiply-add where the CPU has one: the code generator's choice, the same
 * at every optimization level), and the marks go.  No `contract` flag is
 * set: the pairs are the lowering's, not the passes', so both tiers compute
 * the same bits (the optimized tier's passes would find other pairs, the
 * quick tier's instruction selection none).
 */
#ifndef SPVJIT_JIT_CONTRACT_H
#define SPVJIT_JIT_CONTRACT_H

#include <llvm-c/Core.h>

/* Fuses the marked pairs of every function of mod and removes the marks
 * (what the lowering marks later — spec-constant arithmetic lowered on
 * first use — stays as it is). */
void jit_contract(LLVMModuleRef mod);

#endif
