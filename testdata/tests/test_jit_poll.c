/* testdata/tests/test_jit_poll.c — the stop flag's polls on the edges that
 * close a cycle (jit/poll.h).
 *
 * Hand-written functions count their iterations into memory, one per shape
 * of back edge: an unconditional branch (in an out-of-line group function,
 * which loads ctx->stop itself, and in the exported spvjit_wg_range, which
 * gets that load from the poll), a conditional branch looping on its true
 * side and one on its false side, a switch, a conditional branch with both
 * sides to the loop's header, and an irreducible cycle.  After the polls the
 * module must verify; an unconditional back edge must carry its poll in its
 * own branch (no poll block), the others in a block on the edge.  Run with
 * the flag clear, every function must return and count what C computes; run
 * with it set and ten million iterations to go, every function must return
 * the stop path's zero after at most one pass round its cycle.  A second
 * module holds loops that need no poll (innermost, a constant count) and
 * near misses that do (endless, too long, a step or a second back edge the
 * count cannot follow, an add whose nuw the count breaks, a loop around
 * another). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "jit/abi.h"
#include "jit/lower_ctx.h"
#include "jit/poll.h"
#include "test_ir_util.h"

enum { UNCOND, EXPORTED, COND_TRUE, COND_FALSE, SWITCH, BOTH_SIDES, IRREDUCIBLE, NSHAPES };
static const char *const names[NSHAPES] = {
    "spvjit.group.uncond", JIT_SYM_WG_RANGE,          "spvjit.group.cond_true",   "spvjit.group.cond_false",
    "spvjit.group.switch", "spvjit.group.both_sides", "spvjit.group.irreducible",
};
/* poll blocks each function must have (-1: either way, the cycle's retreating edge depends on the order) */
static const int poll_blocks[NSHAPES] = { 0, 0, 1, 1, 1, 1, -1 };

/* i64 f(ctx, n, count); the group functions load ctx->stop at their entry as
 * jit_stop_field does (a format: the field's offset is argument 1) */
#define STOP_FIELD                                                                                                     \
    "  %%sf = getelementptr i8, ptr %%ctx, i64 %1$s\n"                                                                 \
    "  %%field = load volatile ptr, ptr %%sf, align 8, !spvjit.stop.field !0\n"

/* for (k = 0; k < n; k++) *count = k + 1; the body branches back unconditionally */
#define UNCOND_LOOP                                                                                                    \
    "  br label %%head\n"                                                                                              \
    "head:\n"                                                                                                          \
    "  %%k = phi i64 [ 0, %%entry ], [ %%k1, %%body ]\n"                                                               \
    "  %%done = icmp uge i64 %%k, %%n\n"                                                                               \
    "  br i1 %%done, label %%exit, label %%body\n"                                                                     \
    "body:\n"                                                                                                          \
    "  %%k1 = add i64 %%k, 1\n"                                                                                        \
    "  store i64 %%k1, ptr %%count, align 8\n"                                                                         \
    "  br label %%head\n"                                                                                              \
    "exit:\n"                                                                                                          \
    "  ret i64 %%k\n"                                                                                                  \
    "}\n"

/* do *count = ++k; ... : the loop's body, and its exit returning k */
#define COUNTING_BODY                                                                                                  \
    "  br label %%body\n"                                                                                              \
    "body:\n"                                                                                                          \
    "  %%k = phi i64 [ 0, %%entry ], [ %%k1, %%body ]\n"                                                               \
    "  %%k1 = add i64 %%k, 1\n"                                                                                        \
    "  store i64 %%k1, ptr %%count, align 8\n"
#define COUNTED_EXIT                                                                                                   \
    "exit:\n"                                                                                                          \
    "  %%r = phi i64 [ %%k1, %%body ]\n"                                                                               \
    "  ret i64 %%r\n"                                                                                                  \
    "}\n"

/* fmt with ctx->stop's offset for its %1$s (malloc'd) */
static char *with_stop_offset(const char *fmt)
{
    char off[24];
    snprintf(off, sizeof off, "%zu", offsetof(spvjit_wg_ctx, stop));
    size_t len = strlen(fmt) + 16 * strlen(off);
    char *text = malloc(len);
    if (text)
        snprintf(text, len, fmt, off);
    return text;
}

static char *module_text(void)
{
    return with_stop_offset("define i64 @\"spvjit.group.uncond\"(ptr %%ctx, i64 %%n, ptr %%count) {\n"
                            "entry:\n" STOP_FIELD UNCOND_LOOP
                            "define i64 @spvjit_wg_range(ptr %%ctx, i64 %%n, ptr %%count) {\n"
                            "entry:\n" UNCOND_LOOP
                            /* do *count = ++k; while (k < n): the loop on the branch's true side, its exit's phi */
                            "define i64 @\"spvjit.group.cond_true\"(ptr %%ctx, i64 %%n, ptr %%count) {\n"
                            "entry:\n" STOP_FIELD COUNTING_BODY "  %%more = icmp ult i64 %%k1, %%n\n"
                            "  br i1 %%more, label %%body, label %%exit\n" COUNTED_EXIT
                            /* the same on the false side */
                            "define i64 @\"spvjit.group.cond_false\"(ptr %%ctx, i64 %%n, ptr %%count) {\n"
                            "entry:\n" STOP_FIELD COUNTING_BODY "  %%end = icmp uge i64 %%k1, %%n\n"
                            "  br i1 %%end, label %%exit, label %%body\n" COUNTED_EXIT
                            /* the same through a switch */
                            "define i64 @\"spvjit.group.switch\"(ptr %%ctx, i64 %%n, ptr %%count) {\n"
                            "entry:\n" STOP_FIELD COUNTING_BODY "  %%end = icmp uge i64 %%k1, %%n\n"
                            "  %%sel = zext i1 %%end to i32\n"
                            "  switch i32 %%sel, label %%exit [ i32 0, label %%body ]\n" COUNTED_EXIT
                            /* the uncond loop whose body branches back on both sides of a condition */
                            "define i64 @\"spvjit.group.both_sides\"(ptr %%ctx, i64 %%n, ptr %%count) {\n"
                            "entry:\n" STOP_FIELD "  br label %%head\n"
                            "head:\n"
                            "  %%k = phi i64 [ 0, %%entry ], [ %%k1, %%body ], [ %%k1, %%body ]\n"
                            "  %%done = icmp uge i64 %%k, %%n\n"
                            "  br i1 %%done, label %%exit, label %%body\n"
                            "body:\n"
                            "  %%k1 = add i64 %%k, 1\n"
                            "  store i64 %%k1, ptr %%count, align 8\n"
                            "  %%three = icmp eq i64 %%k1, 3\n"
                            "  br i1 %%three, label %%head, label %%head\n"
                            "exit:\n"
                            "  ret i64 %%k\n"
                            "}\n"
                            /* a cycle of two blocks entered at either (n odd: a, else b), each counting */
                            "define i64 @\"spvjit.group.irreducible\"(ptr %%ctx, i64 %%n, ptr %%count) {\n"
                            "entry:\n" STOP_FIELD "  %%odd = trunc i64 %%n to i1\n"
                            "  br i1 %%odd, label %%a, label %%b\n"
                            "a:\n"
                            "  %%ka = phi i64 [ 0, %%entry ], [ %%kb1, %%b ]\n"
                            "  %%ka1 = add i64 %%ka, 1\n"
                            "  store i64 %%ka1, ptr %%count, align 8\n"
                            "  br label %%b\n"
                            "b:\n"
                            "  %%kb = phi i64 [ 0, %%entry ], [ %%ka1, %%a ]\n"
                            "  %%kb1 = add i64 %%kb, 1\n"
                            "  store i64 %%kb1, ptr %%count, align 8\n"
                            "  %%more = icmp ult i64 %%kb1, %%n\n"
                            "  br i1 %%more, label %%a, label %%exit\n"
                            "exit:\n"
                            "  ret i64 %%kb1\n"
                            "}\n"
                            "!0 = !{}\n");
}

/* What shape s returns and leaves in *count for n, the flag clear. */
static int64_t in_c(int s, int64_t n, int64_t *count)
{
    int64_t k = 0;
    switch (s) {
    case UNCOND:
    case EXPORTED:
    case BOTH_SIDES:
        for (k = 0; k < n; k++)
            *count = k + 1;
        return k;
    case COND_TRUE:
    case COND_FALSE:
    case SWITCH:
        do
            *count = ++k;
        while (k < n);
        return k;
    default: /* IRREDUCIBLE */
        if (n & 1)
            *count = ++k; /* a */
        for (;;) {
            *count = ++k; /* b */
            if (k >= n)
                return k;
            *count = ++k; /* a */
        }
    }
}

static int count_poll_blocks(LLVMValueRef fn)
{
    int n = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
        n += !strncmp(LLVMGetBasicBlockName(bb), "poll", 4);
    return n;
}

typedef int64_t (*shape_fn)(spvjit_wg_ctx *, int64_t, int64_t *);

/* The module text_fn makes, parsed for the quick tier into h; false (the
 * reason in diag) when it does not parse. */
static bool parse_module(tir_host *h, char *(*text_fn)(void), spv_diag *diag)
{
    char *text = text_fn();
    bool ok = text && tir_host_parse(h, text, JIT_LEVEL_QUICK, diag);
    free(text);
    return ok;
}

TEST_TIER_FREE(jit_poll_every_back_edge)
{
    spv_diag diag = { { 0 } };
    tir_host h;
    REQUIRE(parse_module(&h, module_text, &diag), "the test module: %s", diag.msg[0] ? diag.msg : "does not parse");

    int polls = jit_insert_polls(h.mod);
    CHECK(polls == NSHAPES, "%d polls, expected one per function's cycle, %d", polls, NSHAPES);
    for (int s = 0; s < NSHAPES; s++) {
        LLVMValueRef fn = LLVMGetNamedFunction(h.mod, names[s]);
        REQUIRE(fn, "%s", names[s]);
        int got = count_poll_blocks(fn);
        if (poll_blocks[s] >= 0)
            CHECK(got == poll_blocks[s], "%s: %d poll blocks, expected %d", names[s], got, poll_blocks[s]);
    }
    void *addrs[NSHAPES];
    jit_code *code;
    TIR_HOST_LINK(code, &h, names, addrs, NSHAPES, &diag);
    uint32_t flag = 0;
    spvjit_wg_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.stop = &flag;
    static const int64_t ns[] = { 1, 2, 3, 5, 8, 13 };
    for (int s = 0; s < NSHAPES; s++)
        for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
            int64_t count = -1, want_count = -1;
            int64_t got = ((shape_fn)addrs[s])(&ctx, ns[i], &count);
            int64_t want = in_c(s, ns[i], &want_count);
            CHECK(got == want && count == want_count, "%s(n = %lld): returned %lld, counted %lld; expected %lld, %lld",
                  names[s], (long long)ns[i], (long long)got, (long long)count, (long long)want, (long long)want_count);
        }
    flag = 1;
    for (int s = 0; s < NSHAPES; s++) {
        int64_t count = 0;
        int64_t got = ((shape_fn)addrs[s])(&ctx, 10000000, &count);
        CHECK(got == 0 && count >= 1 && count <= 2, "%s, stop set: returned %lld after %lld iterations", names[s],
              (long long)got, (long long)count);
    }
    tir_host_end(&h, code);
}

/* --- loops that need no poll -------------------------------------------------------------------------------
 * An innermost loop whose counter runs from a constant by a constant step to
 * a constant bound ends by itself within UNPOLLED_TRIPS (4096) trips: it has
 * no poll, and the loop around it (polled) stops the function.  Each counts
 * its trips into memory like the shapes above; *count is what C counts. */
enum {
    B_ULT,
    B_PHI,
    B_SLT,
    B_I8_WRAP,
    B_NESTED,
    B_NEVER_EQUAL,
    B_TOO_MANY,
    B_VAR_STEP,
    B_TWO_LATCHES,
    B_NUW_WRAP,
    NBOUNDED
};
static const char *const bounded_names[NBOUNDED] = {
    "spvjit.group.ult",         "spvjit.group.phi",         "spvjit.group.slt",      "spvjit.group.i8_wrap",
    "spvjit.group.nested",      "spvjit.group.never_equal", "spvjit.group.too_many", "spvjit.group.var_step",
    "spvjit.group.two_latches", "spvjit.group.nuw_wrap",
};
/* whether the function's innermost loop may go without a poll; the polls expected in the function */
static const int bounded_polls[NBOUNDED] = { 0, 0, 0, 0, 1, 1, 1, 1, 2, 1 };

/* a loop of one block counting k from START by STEP (an add with FLAGS)
 * while `k1 PRED BOUND` (k1 the next value; TYPE the counter's), the trips
 * in *count */
#define COUNTED_LOOP(NAME, TYPE, START, FLAGS, STEP, PRED, BOUND)                                                      \
    "define i64 @\"spvjit.group." NAME "\"(ptr %%ctx, i64 %%n, ptr %%count) {\n"                                       \
    "entry:\n" STOP_FIELD "  br label %%body\n"                                                                        \
    "body:\n"                                                                                                          \
    "  %%k = phi " TYPE " [ " START ", %%entry ], [ %%k1, %%body ]\n"                                                  \
    "  %%t = phi i64 [ 0, %%entry ], [ %%t1, %%body ]\n"                                                               \
    "  %%k1 = add " FLAGS TYPE " %%k, " STEP "\n"                                                                      \
    "  %%t1 = add i64 %%t, 1\n"                                                                                        \
    "  store i64 %%t1, ptr %%count, align 8\n"                                                                         \
    "  %%more = icmp " PRED " " TYPE " %%k1, " BOUND "\n"                                                              \
    "  br i1 %%more, label %%body, label %%exit\n"                                                                     \
    "exit:\n"                                                                                                          \
    "  ret i64 %%t1\n"                                                                                                 \
    "}\n"

static char *bounded_module_text(void)
{
    return with_stop_offset(
        COUNTED_LOOP("ult", "i32", "0", "", "1", "ult", "16")
        /* the test on the counter before its step: k = 0..15 */
        "define i64 @\"spvjit.group.phi\"(ptr %%ctx, i64 %%n, ptr %%count) {\n"
        "entry:\n" STOP_FIELD "  br label %%body\n"
        "body:\n"
        "  %%k = phi i32 [ 0, %%entry ], [ %%k1, %%body ]\n"
        "  %%k1 = add i32 %%k, 1\n"
        "  %%t = zext i32 %%k1 to i64\n"
        "  store i64 %%t, ptr %%count, align 8\n"
        "  %%more = icmp ult i32 %%k, 15\n"
        "  br i1 %%more, label %%body, label %%exit\n"
        "exit:\n"
        "  ret i64 %%t\n"
        "}\n" COUNTED_LOOP("slt", "i32", "-5", "", "1", "slt", "3")
        /* an 8-bit counter ends by wrapping to zero: 256 trips */
        COUNTED_LOOP("i8_wrap", "i8", "0", "", "1", "ne", "0")
        /* for (j = 0; j < 4; j++) for (k = 0; k < 16; k++): the inner loop unpolled, the outer polled */
        "define i64 @\"spvjit.group.nested\"(ptr %%ctx, i64 %%n, ptr %%count) {\n"
        "entry:\n" STOP_FIELD "  br label %%outer\n"
        "outer:\n"
        "  %%j = phi i32 [ 0, %%entry ], [ %%j1, %%latch ]\n"
        "  %%to = phi i64 [ 0, %%entry ], [ %%t1, %%latch ]\n"
        "  br label %%inner\n"
        "inner:\n"
        "  %%k = phi i32 [ 0, %%outer ], [ %%k1, %%inner ]\n"
        "  %%t = phi i64 [ %%to, %%outer ], [ %%t1, %%inner ]\n"
        "  %%k1 = add i32 %%k, 1\n"
        "  %%t1 = add i64 %%t, 1\n"
        "  store i64 %%t1, ptr %%count, align 8\n"
        "  %%kmore = icmp ult i32 %%k1, 16\n"
        "  br i1 %%kmore, label %%inner, label %%latch\n"
        "latch:\n"
        "  %%j1 = add i32 %%j, 1\n"
        "  %%jmore = icmp ult i32 %%j1, 4\n"
        "  br i1 %%jmore, label %%outer, label %%exit\n"
        "exit:\n"
        "  ret i64 %%t1\n"
        "}\n"
        /* k = 0, 2, 4, ... never equals 7: endless, polled */
        COUNTED_LOOP("never_equal", "i64", "0", "", "2", "ne", "7")
        /* bounded, but past UNPOLLED_TRIPS */
        COUNTED_LOOP("too_many", "i32", "0", "", "1", "ult", "100000")
        /* a step that is not a constant */
        "define i64 @\"spvjit.group.var_step\"(ptr %%ctx, i64 %%n, ptr %%count) {\n"
        "entry:\n" STOP_FIELD "  br label %%body\n"
        "body:\n"
        "  %%k = phi i64 [ 0, %%entry ], [ %%k1, %%body ]\n"
        "  %%k1 = add i64 %%k, %%n\n"
        "  store i64 %%k1, ptr %%count, align 8\n"
        "  %%more = icmp ult i64 %%k1, 16\n"
        "  br i1 %%more, label %%body, label %%exit\n"
        "exit:\n"
        "  ret i64 %%k1\n"
        "}\n"
        /* a second back edge into the header (k restarts at 0 on it): endless, polled */
        "define i64 @\"spvjit.group.two_latches\"(ptr %%ctx, i64 %%n, ptr %%count) {\n"
        "entry:\n" STOP_FIELD "  br label %%head\n"
        "head:\n"
        "  %%k = phi i32 [ 0, %%entry ], [ %%k1, %%head ], [ 0, %%again ]\n"
        "  %%t = phi i64 [ 0, %%entry ], [ %%t1, %%head ], [ %%t1, %%again ]\n"
        "  %%k1 = add i32 %%k, 1\n"
        "  %%t1 = add i64 %%t, 1\n"
        "  store i64 %%t1, ptr %%count, align 8\n"
        "  %%more = icmp ult i32 %%k1, 16\n"
        "  br i1 %%more, label %%head, label %%again\n"
        "again:\n"
        "  br label %%head\n"
        "}\n"
        /* the 8-bit counter wraps to zero, but its add says it does not wrap
         * (poison the compiled code may loop on): polled */
        COUNTED_LOOP("nuw_wrap", "i8", "0", "nuw ", "1", "ne", "0") "!0 = !{}\n");
}

/* What the bounded shapes count with the flag clear (the endless ones: -1). */
static int64_t bounded_in_c(int s, int64_t n)
{
    int64_t t = 0;
    switch (s) {
    case B_ULT:
    case B_PHI:
        for (uint32_t k = 0; k < 16; k++)
            t++;
        return t;
    case B_SLT:
        for (int32_t k = -5; k < 3; k++)
            t++;
        return t;
    case B_I8_WRAP:
    case B_NUW_WRAP: {
        uint8_t k = 0;
        do
            t++;
        while (++k != 0);
        return t;
    }
    case B_NESTED:
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < 16; k++)
                t++;
        return t;
    case B_TOO_MANY:
        return 100000;
    case B_VAR_STEP: {
        int64_t k = 0;
        do
            k += n;
        while ((uint64_t)k < 16);
        return k;
    }
    default:
        return -1;
    }
}

static int count_polls(LLVMValueRef fn)
{
    int n = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
            n += LLVMIsALoadInst(i) && LLVMGetOrdering(i) != LLVMAtomicOrderingNotAtomic;
    return n;
}

TEST_TIER_FREE(jit_poll_bounded_innermost_loops)
{
    spv_diag diag = { { 0 } };
    tir_host h;
    REQUIRE(parse_module(&h, bounded_module_text, &diag), "the test module: %s",
            diag.msg[0] ? diag.msg : "does not parse");

    int polls = jit_insert_polls(h.mod), want_polls = 0;
    for (int s = 0; s < NBOUNDED; s++) {
        LLVMValueRef fn = LLVMGetNamedFunction(h.mod, bounded_names[s]);
        REQUIRE(fn, "%s", bounded_names[s]);
        int got = count_polls(fn);
        CHECK(got == bounded_polls[s], "%s: %d polls, expected %d", bounded_names[s], got, bounded_polls[s]);
        want_polls += bounded_polls[s];
    }
    CHECK(polls == want_polls, "%d polls reported, expected %d", polls, want_polls);
    void *addrs[NBOUNDED];
    jit_code *code;
    TIR_HOST_LINK(code, &h, bounded_names, addrs, NBOUNDED, &diag);
    uint32_t flag = 0;
    spvjit_wg_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.stop = &flag;
    for (int s = 0; s < NBOUNDED; s++) {
        int64_t want = bounded_in_c(s, 5);
        if (want < 0)
            continue; /* endless */
        int64_t count = -1, got = ((shape_fn)addrs[s])(&ctx, 5, &count);
        CHECK(got == want && count == want, "%s, flag clear: returned %lld, counted %lld; expected %lld",
              bounded_names[s], (long long)got, (long long)count, (long long)want);
    }
    /* the flag set: an unpolled loop runs to its end; a polled one stops after one pass round it (the nest after
     * one pass of its inner loop, 16 trips) */
    flag = 1;
    for (int s = 0; s < NBOUNDED; s++) {
        int64_t count = 0, got = ((shape_fn)addrs[s])(&ctx, 1, &count);
        if (!bounded_polls[s]) {
            int64_t want = bounded_in_c(s, 1);
            CHECK(got == want && count == want, "%s, flag set: returned %lld, counted %lld; expected its end, %lld",
                  bounded_names[s], (long long)got, (long long)count, (long long)want);
        } else {
            int64_t most = s == B_NESTED ? 16 : 2;
            CHECK(got == 0 && count >= 1 && count <= most,
                  "%s, flag set: returned %lld after %lld trips, expected the stop path within %lld", bounded_names[s],
                  (long long)got, (long long)count, (long long)most);
        }
    }
    tir_host_end(&h, code);
}
