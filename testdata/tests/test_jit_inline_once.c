/* testdata/tests/test_jit_inline_once.c — always-inline functions with one
 * call, inlined by moving their blocks (jit/inline_once.h).
 *
 * A hand-written caller runs a loop whose one block calls, in its middle, a
 * function with two returns, a loop of its own and an alloca (the call's
 * block is then split, and the loop header's phis must name the new latch),
 * and after it a void function; past the loop it calls a function that
 * never returns (on a path not taken), one called twice, and one that is
 * not always-inline.  After the move the module must verify, the three
 * functions called once must be gone and the others kept, every alloca must
 * sit in the caller's entry block with its name, a block reached by an
 * unconditional branch alone must have joined the block before it, and the
 * caller's result and memory must be what C computes, for loops of one to a
 * dozen trips. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "jit/inline_once.h"
#include "jit/jit_internal.h"
#include "test_ir_util.h"

static const char module_text[] = "declare void @llvm.trap()\n"
                                  "\n"
                                  "define internal i32 @pick(i32 %x, ptr %scratch) alwaysinline {\n"
                                  "entry:\n"
                                  "  %tmp = alloca i32, align 4\n"
                                  "  store i32 0, ptr %tmp\n"
                                  "  %neg = icmp slt i32 %x, 0\n"
                                  "  br i1 %neg, label %negative, label %count\n"
                                  "negative:\n"
                                  "  %m = sub i32 0, %x\n"
                                  "  ret i32 %m\n"
                                  "count:\n"
                                  "  %i = phi i32 [ 0, %entry ], [ %i1, %count ]\n"
                                  "  %t = load i32, ptr %tmp\n"
                                  "  %t1 = add i32 %t, %i\n"
                                  "  store i32 %t1, ptr %tmp\n"
                                  "  %i1 = add i32 %i, 1\n"
                                  "  %again = icmp sle i32 %i1, %x\n"
                                  "  br i1 %again, label %count, label %done\n"
                                  "done:\n"
                                  "  %r = load i32, ptr %tmp\n"
                                  "  store i32 %r, ptr %scratch\n"
                                  "  ret i32 %r\n"
                                  "}\n"
                                  "\n"
                                  "define internal void @bump(ptr %p, i32 %by) alwaysinline {\n"
                                  "entry:\n"
                                  "  %v = load i32, ptr %p\n"
                                  "  %w = add i32 %v, %by\n"
                                  "  store i32 %w, ptr %p\n"
                                  "  ret void\n"
                                  "}\n"
                                  "\n"
                                  "define internal i32 @stop(i32 %x) alwaysinline {\n"
                                  "entry:\n"
                                  "  call void @llvm.trap()\n"
                                  "  unreachable\n"
                                  "}\n"
                                  "\n"
                                  "define internal i32 @twice(i32 %x) alwaysinline {\n"
                                  "entry:\n"
                                  "  %y = mul i32 %x, 2\n"
                                  "  ret i32 %y\n"
                                  "}\n"
                                  "\n"
                                  "define internal i32 @plain(i32 %x) {\n"
                                  "entry:\n"
                                  "  %y = add i32 %x, 7\n"
                                  "  ret i32 %y\n"
                                  "}\n"
                                  "\n"
                                  "define i32 @run(i32 %n, ptr %scratch) {\n"
                                  "entry:\n"
                                  "  br label %loop\n"
                                  "loop:\n"
                                  "  %k = phi i32 [ -3, %entry ], [ %k1, %loop ]\n"
                                  "  %s = phi i32 [ 0, %entry ], [ %s1, %loop ]\n"
                                  "  %p = call i32 @pick(i32 %k, ptr %scratch)\n"
                                  "  %s1 = add i32 %s, %p\n"
                                  "  call void @bump(ptr %scratch, i32 %k)\n"
                                  "  %k1 = add i32 %k, 1\n"
                                  "  %more = icmp slt i32 %k1, %n\n"
                                  "  br i1 %more, label %loop, label %exit\n"
                                  "exit:\n"
                                  "  %big = icmp eq i32 %n, 12345\n"
                                  "  br i1 %big, label %trap, label %fine\n"
                                  "trap:\n"
                                  "  %z = call i32 @stop(i32 %n)\n"
                                  "  ret i32 %z\n"
                                  "fine:\n"
                                  "  %a = call i32 @twice(i32 %s1)\n"
                                  "  %b = call i32 @twice(i32 %a)\n"
                                  "  %c = call i32 @plain(i32 %b)\n"
                                  "  ret i32 %c\n"
                                  "}\n";

typedef int32_t (*run_fn)(int32_t n, int32_t *scratch);

/* What @run computes, in C. */
static int32_t run_in_c(int32_t n, int32_t *scratch)
{
    int32_t s = 0, k = -3;
    do {
        int32_t p;
        if (k < 0) {
            p = -k;
        } else {
            p = 0;
            for (int32_t i = 0; i <= k; i++)
                p += i;
            *scratch = p;
        }
        s += p;
        *scratch += k;
        k++;
    } while (k < n);
    return 4 * s + 7;
}

/* Allocas outside fn's entry block, and whether the entry has one named `name`. */
static unsigned allocas_outside_entry(LLVMValueRef fn, const char *name, bool *named)
{
    unsigned n = 0;
    *named = false;
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
    for (LLVMBasicBlockRef bb = entry; bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
            if (!LLVMIsAAllocaInst(i))
                continue;
            size_t len;
            const char *s = LLVMGetValueName2(i, &len);
            *named |= bb == entry && len == strlen(name) && !memcmp(s, name, len);
            n += bb != entry;
        }
    return n;
}

TEST_TIER_FREE(inline_once_moves_functions_called_once)
{
    spv_diag diag = { { 0 } };
    tir_host h;
    TIR_HOST_PARSE(&h, module_text, 0, &diag);
    LLVMModuleRef mod = h.mod;

    int n = jit_inline_once(mod);
    CHECK(n == 3, "%d functions moved, expected 3 (pick, bump, stop)", n);
    static const char *const gone[] = { "pick", "bump", "stop" }, *const kept[] = { "twice", "plain", "run" };
    for (unsigned i = 0; i < 3; i++) {
        CHECK(!LLVMGetNamedFunction(mod, gone[i]), "@%s, called once, is still there", gone[i]);
        CHECK(LLVMGetNamedFunction(mod, kept[i]), "@%s was deleted", kept[i]);
    }
    LLVMValueRef run = LLVMGetNamedFunction(mod, "run");
    bool named = false;
    unsigned outside = run ? allocas_outside_entry(run, "tmp", &named) : 0;
    CHECK(run && !outside && named, "@run: %u allocas outside the entry block; %%tmp in the entry: %s", outside,
          named ? "yes" : "no");
    /* blocks reached by an unconditional branch alone join the block before
     * them: @pick's entry joins the calling block, and @bump (one block)
     * joins the rest of the block after @pick's returns, with the rest of
     * @run's loop; left: entry, loop, pick's negative, count and done, the
     * join of its returns, exit, trap, the unreachable rest after @stop,
     * fine */
    LLVMValueRef neg = run ? tir_value(run, "neg") : NULL, w = run ? tir_value(run, "w") : NULL,
                 k1 = run ? tir_value(run, "k1") : NULL;
    CHECK(neg && LLVMGetInstructionParent(neg) == tir_block(run, "loop"), "@pick's entry did not join the loop block");
    CHECK(w && k1 && LLVMGetInstructionParent(w) == LLVMGetInstructionParent(k1),
          "@bump's block did not join the block of the call");
    CHECK(run && LLVMCountBasicBlocks(run) == 10, "@run has %u blocks, expected 10",
          run ? LLVMCountBasicBlocks(run) : 0);

    const char *names[1] = { "run" };
    void *addr[1];
    jit_code *code;
    TIR_HOST_LINK(code, &h, names, addr, 1, &diag);
    for (int32_t trips = -5; trips <= 12; trips++) {
        int32_t got_mem = 1000 + trips, want_mem = got_mem;
        int32_t got = ((run_fn)addr[0])(trips, &got_mem), want = run_in_c(trips, &want_mem);
        CHECK(got == want && got_mem == want_mem, "run(%d) = %d, memory %d; C: %d, memory %d", trips, got, got_mem,
              want, want_mem);
    }
    tir_host_end(&h, code);
}
