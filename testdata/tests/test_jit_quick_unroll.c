/* testdata/tests/test_jit_quick_unroll.c — the quick tier's counted loops of
 * one block that write one address every trip, unrolled (jit/quick_unroll.h).
 *
 * Each function is a loop of one block that counts from a constant by a
 * constant to a constant: up and down, by 1, 2 and -3, tested with <, !=,
 * signed >, == (the loop staying while it is false), on the counter's next
 * value or on the counter itself, for 1, 7, 8, 9, 10, 12, 13 and 64 trips.
 * Its body reads an accumulator at %p and writes it back (the load the
 * unrolled copies take from the copy before), reads %q (another address,
 * which the caller may make %p: never forwarded), and leaves a counter phi,
 * the accumulator and the stored value to the code after the loop.  One
 * more carries two phis that trade values (a phi's value from the block is
 * the other phi), one carries its accumulator in a phi and stores it every
 * trip without reading it back (unrolled, nothing forwarded), and one
 * writes twice (no loop whose body writes more than once is unrolled).  After the rewrite the module must verify, the right
 * loops must be unrolled into the number of copies that divides their trips
 * (at most 8), and on the quick tier's code generation every function must
 * return, and leave at %p, what the same loop in C does, %q apart from %p
 * and the same. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "jit/quick_unroll.h"
#include "test_ir_util.h"

typedef struct counted {
    const char *name;
    int32_t start, step, bound;
    const char *pred; /* LLVM's predicate */
    bool on_next;     /* the test reads i + step (else i) */
    bool stay_if;     /* the branch loops when the test is this */
    unsigned trips, copies;
} counted;

static const counted loops[] = {
    { "up8", 0, 1, 8, "ult", true, true, 8, 8 },        { "by2_ne", 5, 2, 29, "ne", true, true, 12, 6 },
    { "down7", 20, -3, 0, "sgt", true, true, 7, 7 },    { "on_phi10", 0, 1, 9, "ult", false, true, 10, 5 },
    { "until_eq9", 3, 1, 12, "eq", true, false, 9, 3 }, { "once", 0, 1, 1, "ult", true, true, 1, 0 },
    { "prime13", 0, 1, 13, "slt", true, true, 13, 0 },  { "up64", 0, 1, 64, "ult", true, true, 64, 8 },
};
enum { NLOOPS = sizeof loops / sizeof loops[0] };

static bool holds(const char *pred, int32_t x, int32_t y)
{
    if (!strcmp(pred, "ult"))
        return (uint32_t)x < (uint32_t)y;
    if (!strcmp(pred, "slt"))
        return x < y;
    if (!strcmp(pred, "sgt"))
        return x > y;
    if (!strcmp(pred, "ne"))
        return x != y;
    return x == y;
}

/* The loop of `c` in C: what it returns and leaves at *p. */
static uint32_t counted_in_c(const counted *c, uint32_t *p, const uint32_t *q, const uint32_t *a)
{
    uint32_t i = (uint32_t)c->start, j = 0, t;
    for (;;) {
        uint32_t old = *p, via = *q, x = a[i & 15];
        t = (old * 3u + x) ^ via;
        *p = t;
        uint32_t j1 = j + x, i1 = i + (uint32_t)c->step;
        if (holds(c->pred, (int32_t)(c->on_next ? i1 : i), c->bound) != c->stay_if)
            break;
        i = i1;
        j = j1;
    }
    return j * 7u + t + i;
}

static size_t counted_text(char *t, size_t cap, const counted *c)
{
    return (size_t)snprintf(t, cap,
                            "define i32 @%s(ptr %%p, ptr %%q, ptr %%a) {\n"
                            "entry:\n"
                            "  br label %%loop\n"
                            "loop:\n"
                            "  %%i = phi i32 [ %d, %%entry ], [ %%i1, %%loop ]\n"
                            "  %%j = phi i32 [ 0, %%entry ], [ %%j1, %%loop ]\n"
                            "  %%old = load i32, ptr %%p, align 4\n"
                            "  %%via = load i32, ptr %%q, align 4\n"
                            "  %%idx = and i32 %%i, 15\n"
                            "  %%ai = getelementptr i32, ptr %%a, i32 %%idx\n"
                            "  %%x = load i32, ptr %%ai, align 4\n"
                            "  %%m = mul i32 %%old, 3\n"
                            "  %%s = add i32 %%m, %%x\n"
                            "  %%t = xor i32 %%s, %%via\n"
                            "  store i32 %%t, ptr %%p, align 4\n"
                            "  %%j1 = add i32 %%j, %%x\n"
                            "  %%i1 = add i32 %%i, %d\n"
                            "  %%c = icmp %s i32 %s, %d\n"
                            "  br i1 %%c, label %s, label %s\n"
                            "exit:\n"
                            "  %%r1 = mul i32 %%j, 7\n"
                            "  %%r2 = add i32 %%r1, %%t\n"
                            "  %%r = add i32 %%r2, %%i\n"
                            "  ret i32 %%r\n}\n",
                            c->name, c->start, c->step, c->pred, c->on_next ? "%i1" : "%i", c->bound,
                            c->stay_if ? "%loop" : "%exit", c->stay_if ? "%exit" : "%loop");
}

/* Two phis trading values (Fibonacci), summed into *p: 16 trips, 8 copies. */
static const char trade_text[] = "define i32 @trade(ptr %p, ptr %q, ptr %a) {\n"
                                 "entry:\n"
                                 "  br label %loop\n"
                                 "loop:\n"
                                 "  %k = phi i32 [ 0, %entry ], [ %k1, %loop ]\n"
                                 "  %f = phi i32 [ 1, %entry ], [ %g, %loop ]\n"
                                 "  %g = phi i32 [ 2, %entry ], [ %h, %loop ]\n"
                                 "  %h = add i32 %f, %g\n"
                                 "  %old = load i32, ptr %p, align 4\n"
                                 "  %new = add i32 %old, %f\n"
                                 "  store i32 %new, ptr %p, align 4\n"
                                 "  %k1 = add i32 %k, 1\n"
                                 "  %c = icmp ult i32 %k1, 16\n"
                                 "  br i1 %c, label %loop, label %exit\n"
                                 "exit:\n"
                                 "  %r = mul i32 %g, 31\n"
                                 "  %r1 = add i32 %r, %f\n"
                                 "  ret i32 %r1\n}\n";

static uint32_t trade_in_c(uint32_t *p)
{
    uint32_t f = 1, g = 2;
    for (unsigned k = 0;; k++) {
        uint32_t h = f + g;
        *p += f;
        if (k + 1 >= 16)
            break;
        f = g;
        g = h;
    }
    return g * 31u + f;
}

/* An accumulator in a phi, stored every trip and never loaded in the loop
 * (mm's k loop with the memory mode `unchecked`): 24 trips, 8 copies. */
static const char carried_text[] = "define i32 @carried(ptr %p, ptr %q, ptr %a) {\n"
                                   "entry:\n"
                                   "  %init = load i32, ptr %p, align 4\n"
                                   "  br label %loop\n"
                                   "loop:\n"
                                   "  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]\n"
                                   "  %acc = phi i32 [ %init, %entry ], [ %t, %loop ]\n"
                                   "  %via = load i32, ptr %q, align 4\n"
                                   "  %idx = and i32 %i, 15\n"
                                   "  %ai = getelementptr i32, ptr %a, i32 %idx\n"
                                   "  %x = load i32, ptr %ai, align 4\n"
                                   "  %m = mul i32 %acc, 5\n"
                                   "  %s = add i32 %m, %x\n"
                                   "  %t = xor i32 %s, %via\n"
                                   "  store i32 %t, ptr %p, align 4\n"
                                   "  %i1 = add i32 %i, 1\n"
                                   "  %c = icmp ult i32 %i1, 24\n"
                                   "  br i1 %c, label %loop, label %exit\n"
                                   "exit:\n"
                                   "  %r = add i32 %t, %acc\n"
                                   "  ret i32 %r\n}\n";

static uint32_t carried_in_c(uint32_t *p, const uint32_t *q, const uint32_t *a)
{
    uint32_t acc = *p, t = 0, last = 0;
    for (uint32_t i = 0; i < 24; i++) {
        t = (acc * 5u + a[i & 15]) ^ *q;
        *p = t;
        last = acc;
        acc = t;
    }
    return t + last;
}

/* Two writes a trip, %q possibly %p: left rolled. */
static const char two_writes_text[] = "define i32 @two_writes(ptr %p, ptr %q, ptr %a) {\n"
                                      "entry:\n"
                                      "  br label %loop\n"
                                      "loop:\n"
                                      "  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]\n"
                                      "  %old = load i32, ptr %p, align 4\n"
                                      "  %new = add i32 %old, %i\n"
                                      "  store i32 %new, ptr %p, align 4\n"
                                      "  store i32 %i, ptr %q, align 4\n"
                                      "  %i1 = add i32 %i, 1\n"
                                      "  %c = icmp ult i32 %i1, 8\n"
                                      "  br i1 %c, label %loop, label %exit\n"
                                      "exit:\n"
                                      "  ret i32 %new\n}\n";

static uint32_t two_writes_in_c(uint32_t *p, uint32_t *q)
{
    uint32_t v = 0;
    for (uint32_t i = 0; i < 8; i++) {
        v = *p + i;
        *p = v;
        *q = i;
    }
    return v;
}

typedef uint32_t (*loop_fn)(uint32_t *, uint32_t *, const uint32_t *);

TEST_TIER_FREE(quick_unroll_counted_one_block_loops)
{
    char text[16384];
    size_t len = 0;
    for (unsigned c = 0; c < NLOOPS; c++)
        len += counted_text(text + len, sizeof text - len, &loops[c]);
    len += (size_t)snprintf(text + len, sizeof text - len, "%s%s%s", trade_text, two_writes_text, carried_text);
    REQUIRE(len < sizeof text, "module text too long");
    spv_diag diag = { { 0 } };
    tir_host h;
    TIR_HOST_PARSE(&h, text, JIT_LEVEL_QUICK, &diag);
    int unrolled = 0;
    for (unsigned c = 0; c < NLOOPS; c++)
        unrolled += loops[c].copies != 0;
    int n = jit_quick_unroll(h.mod);
    CHECK(n == unrolled + 2, "%d loops unrolled, expected %d", n, unrolled + 2);
    const char *names[NLOOPS + 3];
    void *addrs[NLOOPS + 3];
    for (unsigned c = 0; c < NLOOPS; c++) {
        names[c] = loops[c].name;
        char *fn = tir_print(LLVMGetNamedFunction(h.mod, names[c]));
        int copies = loops[c].copies ? (int)loops[c].copies : 1;
        /* one load of the accumulator (the first copy's), one of %q and one store per copy */
        CHECK(test_count(fn, "load i32, ptr %p") == 1, "%s: %d loads of %%p: %s", names[c],
              test_count(fn, "load i32, ptr %p"), fn);
        CHECK(test_count(fn, "load i32, ptr %q") == copies && test_count(fn, "store i32") == copies,
              "%s: %d loads of %%q and %d stores, expected %d: %s", names[c], test_count(fn, "load i32, ptr %q"),
              test_count(fn, "store i32"), copies, fn);
        CHECK(test_count(fn, "br ") == 2, "%s: more than the loop's one test: %s", names[c], fn);
        free(fn);
    }
    names[NLOOPS] = "trade";
    names[NLOOPS + 1] = "two_writes";
    names[NLOOPS + 2] = "carried";
    char *fn = tir_print(LLVMGetNamedFunction(h.mod, "two_writes"));
    CHECK(test_count(fn, "store i32") == 2, "two_writes was unrolled: %s", fn);
    free(fn);
    fn = tir_print(LLVMGetNamedFunction(h.mod, "trade"));
    CHECK(test_count(fn, "store i32") == 8 && test_count(fn, "load i32") == 1, "trade: not 8 copies: %s", fn);
    free(fn);
    fn = tir_print(LLVMGetNamedFunction(h.mod, "carried"));
    CHECK(test_count(fn, "store i32") == 8 && test_count(fn, "load i32, ptr %q") == 8 && test_count(fn, "br ") == 2,
          "carried: not 8 copies with one test: %s", fn);
    free(fn);
    jit_code *code;
    TIR_HOST_LINK(code, &h, names, addrs, NLOOPS + 3, &diag);
    uint32_t a[16], seed = 2024;
    for (unsigned k = 0; k < 16; k++) {
        seed = seed * 1103515245u + 12345u;
        a[k] = seed >> 7;
    }
    unsigned checked = 0;
    for (unsigned c = 0; c < NLOOPS; c++)
        for (unsigned same = 0; same < 2; same++) {
            uint32_t want_p = 0x1234567u + c, want_q = 0xabcdefu, got_p = want_p, got_q = want_q;
            uint32_t want = counted_in_c(&loops[c], &want_p, same ? &want_p : &want_q, a);
            uint32_t got = ((loop_fn)addrs[c])(&got_p, same ? &got_p : &got_q, a);
            CHECK(got == want && got_p == want_p, "%s (%%q %s %%p): returned %#x and left %#x, expected %#x and %#x",
                  loops[c].name, same ? "is" : "is not", got, got_p, want, want_p);
            checked++;
        }
    uint32_t want_p = 5, got_p = 5, q = 0;
    uint32_t want = trade_in_c(&want_p), got = ((loop_fn)addrs[NLOOPS])(&got_p, &q, a);
    CHECK(got == want && got_p == want_p, "trade: returned %u and left %u, expected %u and %u", got, got_p, want,
          want_p);
    for (unsigned same = 0; same < 2; same++) {
        uint32_t wp = 100, wq = 7, gp = 100, gq = 7;
        want = two_writes_in_c(&wp, same ? &wp : &wq);
        got = ((loop_fn)addrs[NLOOPS + 1])(&gp, same ? &gp : &gq, a);
        CHECK(got == want && gp == wp && gq == wq,
              "two_writes (%%q %s %%p): returned %u, left %u and %u, expected "
              "%u, %u and %u",
              same ? "is" : "is not", got, gp, gq, want, wp, wq);
    }
    for (unsigned same = 0; same < 2; same++) {
        uint32_t wp = 0x9e3779b9u, wq = 0x7f4a7c15u, gp = wp, gq = wq;
        want = carried_in_c(&wp, same ? &wp : &wq, a);
        got = ((loop_fn)addrs[NLOOPS + 2])(&gp, same ? &gp : &gq, a);
        CHECK(got == want && gp == wp, "carried (%%q %s %%p): returned %#x and left %#x, expected %#x and %#x",
              same ? "is" : "is not", got, gp, want, wp);
    }
    CHECK(checked == 2 * NLOOPS, "%u cases", checked);
    tir_host_end(&h, code);
}
