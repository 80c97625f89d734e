/* testdata/tests/test_ir_util.h — LLVM IR written as text for the tests of
 * jit/'s analyses (cfg, uniformity, slots, barrier path). */
#ifndef SPVJIT_TEST_IR_UTIL_H
#define SPVJIT_TEST_IR_UTIL_H

#include <llvm-c/Core.h>

/* Parses IR text into a module of llc; NULL (the parser's message printed) on error. */
LLVMModuleRef tir_parse(LLVMContextRef llc, const char *text);
/* The instruction or argument named `name` (without %) in fn, or NULL. */
LLVMValueRef tir_value(LLVMValueRef fn, const char *name);
/* The block named `name` in fn, or NULL. */
LLVMBasicBlockRef tir_block(LLVMValueRef fn, const char *name);
/* The text of fn as LLVM prints it (malloc'd). */
char *tir_print(LLVMValueRef fn);
/* `define void @f(params)`: `entry_code` in the entry block, then n diamonds
 * in a row, d<i> branching on %<first_cond> (i = 0) or %<cond> to l<i> and
 * r<i>, which meet at j<i>; the last join returns (malloc'd). */
char *tir_diamond_chain(const char *params, const char *entry_code, int n, const char *first_cond, const char *cond);

#endif
