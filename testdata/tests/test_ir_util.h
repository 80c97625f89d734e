/* testdata/tests/test_ir_util.h — LLVM IR written as text for the tests of
 * jit/'s analyses (cfg, uniformity, slots, barrier path). */
#ifndef SPVJIT_TEST_IR_UTIL_H
#define SPVJIT_TEST_IR_UTIL_H

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

#include "jit/jit_internal.h"

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

/* A module written as text for the host, to rewrite and then run: its
 * context, the module (data layout set) and the machine that compiles it. */
typedef struct tir_host {
    LLVMContextRef llc;
    LLVMModuleRef mod;
    LLVMTargetMachineRef tm;
    LLVMTargetDataRef td;
} tir_host;

/* Parses text for the host at code generation level `level`; false (the
 * reason in diag, or printed by the parser) on error, with nothing left. */
bool tir_host_parse(tir_host *h, const char *text, int level, spv_diag *diag);
/* Verifies h->mod (*verified; the verifier's message printed when false),
 * compiles it and links names[0..n) into addrs; NULL on failure, the reason
 * in diag.  Either way the module, the data layout and the machine are
 * disposed of; the context stays for tir_host_end. */
jit_code *tir_host_link(tir_host *h, const char *const *names, void **addrs, unsigned n, bool *verified,
                        spv_diag *diag);
/* Frees code (may be NULL) and the context. */
void tir_host_end(tir_host *h, jit_code *code);
/* In a TEST (harness.h): tir_host_parse, the test ending when the text does
 * not parse (nothing left to free but the caller's text). */
#define TIR_HOST_PARSE(h, text, level, diag)                                                                           \
    REQUIRE(tir_host_parse((h), (text), (level), (diag)), "the test module: %s",                                       \
            (diag)->msg[0] ? (diag)->msg : "does not parse")
/* In a TEST (harness.h): tir_host_link into `code`, the test failing when the
 * module does not verify, and ending (the host ended) when it does not
 * compile. */
#define TIR_HOST_LINK(code, h, names, addrs, n, diag)                                                                  \
    do {                                                                                                               \
        bool tir_verified_;                                                                                            \
        (code) = tir_host_link((h), (names), (addrs), (n), &tir_verified_, (diag));                                    \
        CHECK(tir_verified_, "the module does not verify after the rewrite");                                          \
        if (!(code)) {                                                                                                 \
            tir_host_end((h), NULL);                                                                                   \
            REQUIRE(false, "compiling the module: %s", (diag)->msg);                                                   \
        }                                                                                                              \
    } while (0)

#endif
