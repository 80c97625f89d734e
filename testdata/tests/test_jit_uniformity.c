/* testdata/tests/test_jit_uniformity.c — the divergence analysis
 * (jit/uniformity.h) on hand-written functions whose answer follows from the
 * rules of SPMD execution: values from the local id vary, values from ctx and
 * constants do not; loads from read-only memory are uniform, loads from
 * memory a work-item may have written are not when items run one after
 * another but are when lanes run in lockstep; a value defined under a varying
 * branch and used after it varies (through a phi or a stack slot), one under a
 * uniform branch does not; a loop left by a varying condition makes its
 * blocks divergent and the values it leaves behind varying. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "jit/uniformity.h"
#include "test_ir_util.h"

typedef struct ut {
    LLVMContextRef llc;
    LLVMModuleRef mod;
    LLVMValueRef fn;
    jit_cfg g;
    jit_uniformity *u;
} ut;

/* The read-only memory of these functions: what %ro or %ctx points to. */
static bool test_read_only(void *user, const jit_uniformity *u, LLVMValueRef root)
{
    (void)u;
    ut *t = user;
    return root == tir_value(t->fn, "ro") || root == tir_value(t->fn, "ctx");
}

/* Every argument but the first (ctx) varies. */
static bool ut_open(ut *t, const char *ir, jit_memory_rule rule)
{
    memset(t, 0, sizeof *t);
    t->llc = LLVMContextCreate();
    t->mod = tir_parse(t->llc, ir);
    t->fn = t->mod ? LLVMGetNamedFunction(t->mod, "f") : NULL;
    if (!t->fn || jit_cfg_build(&t->g, t->fn))
        return false;
    bool varies[8] = { false, true, true, true, true, true, true, true };
    for (unsigned i = 0; i < LLVMCountParams(t->fn) && i < 8; i++) {
        size_t len;
        const char *n = LLVMGetValueName2(LLVMGetParam(t->fn, i), &len);
        varies[i] =
            !(len == 2 && !memcmp(n, "ro", 2)) && !(len == 3 && !memcmp(n, "ctx", 3)) && !(len == 1 && n[0] == 'n');
    }
    jit_uniformity_config c = { .param_varies = varies, .memory = rule, .read_only = test_read_only, .user = t };
    return jit_uniformity_run(&t->u, &t->g, &c) == 0;
}

static void ut_close(ut *t)
{
    jit_uniformity_free(t->u);
    jit_cfg_free(&t->g);
    if (t->mod)
        LLVMDisposeModule(t->mod);
    LLVMContextDispose(t->llc);
}

/* "a b c": each named value must be varying (want) or uniform (!want). */
static void expect_values(ut *t, bool want, const char *names)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", names);
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        LLVMValueRef v = tir_value(t->fn, tok);
        REQUIRE(v, "no value %%%s", tok);
        CHECK(jit_uniformity_varying(t->u, v) == want, "%%%s is %s, expected %s", tok, want ? "uniform" : "varying",
              want ? "varying" : "uniform");
    }
}

/* "a b": each named block must be divergent (want) or not. */
static void expect_blocks(ut *t, bool want, const char *names)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", names);
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        LLVMBasicBlockRef bb = tir_block(t->fn, tok);
        REQUIRE(bb, "no block %s", tok);
        CHECK(jit_uniformity_divergent(t->u, jit_cfg_index(&t->g, bb)) == want, "block %s is %sdivergent", tok,
              want ? "not " : "");
    }
}

/* Arguments: %ctx and %n are uniform, %ro points to read-only memory (uniform),
 * %lx (the local id) and %rw vary. */
static const char *straight_line = "declare i32 @llvm.smax.i32(i32, i32)\n"
                                   "declare i32 @ext(i32)\n"
                                   "define void @f(ptr %ctx, i32 %lx, ptr %ro, ptr %rw, i32 %n) {\n"
                                   "entry:\n"
                                   "  %id2 = mul i32 %lx, 2\n"
                                   "  %pc = getelementptr inbounds i8, ptr %ctx, i64 16\n"
                                   "  %base = load ptr, ptr %pc\n"    /* from ctx: read-only */
                                   "  %early = load i32, ptr %base\n" /* before any write: no item wrote yet */
                                   "  %sum = add i32 %early, %n\n"
                                   "  %v = add i32 %sum, %id2\n"
                                   "  %own = getelementptr inbounds i32, ptr %base, i32 %lx\n"
                                   "  %mine = load i32, ptr %own\n"  /* varying address */
                                   "  store i32 %v, ptr %base\n"     /* the first write */
                                   "  %late = load i32, ptr %base\n" /* another item may have written it */
                                   "  %r1 = load i32, ptr %ro\n"     /* read-only memory */
                                   "  %rgep = getelementptr inbounds i32, ptr %ro, i32 %n\n"
                                   "  %r2 = load i32, ptr %rgep\n"
                                   "  %vol = load volatile i32, ptr %ro\n"
                                   "  %m = call i32 @llvm.smax.i32(i32 %r1, i32 %n)\n"
                                   "  %mv = call i32 @llvm.smax.i32(i32 %r1, i32 %lx)\n"
                                   "  %x = call i32 @ext(i32 %n)\n"
                                   "  %sel = select i1 true, i32 %m, i32 %r2\n"
                                   "  %cmp = icmp ult i32 %sel, %lx\n"
                                   "  ret void\n}\n";

TEST_TIER_FREE(uniformity_items_in_sequence)
{
    ut t;
    REQUIRE(ut_open(&t, straight_line, JIT_MEMORY_ITEMS_IN_SEQUENCE), "parse/analyse");
    expect_values(&t, false, "ctx n ro pc base early sum r1 rgep r2 m sel");
    expect_values(&t, true, "lx rw id2 v own mine late vol mv x cmp");
    expect_blocks(&t, false, "entry");
    ut_close(&t);
}

TEST_TIER_FREE(uniformity_lanes_in_lockstep)
{
    ut t;
    REQUIRE(ut_open(&t, straight_line, JIT_MEMORY_LANES_IN_LOCKSTEP), "parse/analyse");
    /* the lanes load together: the same address gives the same value */
    expect_values(&t, false, "ctx n base early sum late r1 r2 m sel");
    expect_values(&t, true, "lx id2 v own mine vol mv x cmp");
    ut_close(&t);
}

/* SSA form: a value defined under a varying branch, merged by a phi, and one
 * under a uniform branch. */
TEST_TIER_FREE(uniformity_varying_branch_phi)
{
    ut t;
    REQUIRE(ut_open(&t,
                    "define void @f(ptr %ctx, i32 %lx, i32 %n) {\n"
                    "entry:\n"
                    "  %c = icmp ult i32 %lx, 4\n"
                    "  br i1 %c, label %then, label %join\n"
                    "then:\n"
                    "  %t = add i32 %n, 1\n" /* uniform operands, but only some items get here */
                    "  br label %join\n"
                    "join:\n"
                    "  %p = phi i32 [ %t, %then ], [ %n, %entry ]\n"
                    "  %q = add i32 %n, 5\n"
                    "  %uc = icmp eq i32 %q, 9\n"
                    "  br i1 %uc, label %a, label %b\n"
                    "a:\n  br label %j2\n"
                    "b:\n  br label %j2\n"
                    "j2:\n"
                    "  %p2 = phi i32 [ 1, %a ], [ %q, %b ]\n"
                    "  %r = add i32 %p, %p2\n"
                    "  ret void\n}\n",
                    JIT_MEMORY_ITEMS_IN_SEQUENCE),
            "parse/analyse");
    expect_values(&t, true, "c p r");
    expect_values(&t, false, "t q uc p2");
    expect_blocks(&t, true, "then");
    expect_blocks(&t, false, "entry join a b j2");
    CHECK(jit_uniformity_branch_varying(t.u, 0) &&
              !jit_uniformity_branch_varying(t.u, jit_cfg_index(&t.g, tir_block(t.fn, "join"))),
          "branch_varying: entry yes, join no");
    ut_close(&t);
}

/* A join of varying branches whose edges bring one value stays uniform: a
 * barrier region's "next region" after `if (n > 1) { if (lx < n) ...; next =
 * 1 } else { if (lx == 0) ...; next = 0 }`.  Items that reach the join
 * together parted at one of the two varying branches (the uniform one sends
 * them all one way), and each branch's edges bring one value.  When a
 * branch's edges bring two values the phi varies; in a loop, where an item
 * may come back to the join, every edge from a divergent block or a varying
 * branch must bring the same value. */
TEST_TIER_FREE(uniformity_join_brings_one)
{
    ut t;
    REQUIRE(ut_open(&t,
                    "define void @f(ptr %ctx, i32 %lx, i32 %n) {\n"
                    "entry:\n"
                    "  %u = icmp ugt i32 %n, 1\n"
                    "  br i1 %u, label %a, label %b\n"
                    "a:\n"
                    "  %ca = icmp ult i32 %lx, %n\n"
                    "  br i1 %ca, label %wa, label %j\n"
                    "wa:\n  br label %j\n"
                    "b:\n"
                    "  %cb = icmp eq i32 %lx, 0\n"
                    "  br i1 %cb, label %wb, label %j\n"
                    "wb:\n  br label %j\n"
                    "j:\n"
                    "  %next = phi i32 [ 1, %a ], [ 1, %wa ], [ 0, %b ], [ 0, %wb ]\n"
                    "  %mixed = phi i32 [ 1, %a ], [ 2, %wa ], [ 0, %b ], [ 0, %wb ]\n"
                    "  %fromn = phi i32 [ %n, %a ], [ %n, %wa ], [ 0, %b ], [ 0, %wb ]\n"
                    "  ret void\n}\n",
                    JIT_MEMORY_LANES_IN_LOCKSTEP),
            "parse/analyse");
    expect_values(&t, false, "u next fromn");
    expect_values(&t, true, "ca cb mixed");
    expect_blocks(&t, true, "wa wb");
    expect_blocks(&t, false, "entry a b j");
    ut_close(&t);

    REQUIRE(ut_open(&t,
                    "define void @f(ptr %ctx, i32 %lx, i32 %n) {\n"
                    "entry:\n  br label %h\n"
                    "h:\n"
                    "  %i = phi i32 [ 0, %entry ], [ %i1, %l ]\n"
                    "  %c = icmp ult i32 %lx, %i\n"
                    "  br i1 %c, label %x, label %y\n"
                    "x:\n  br label %l\n"
                    "y:\n  br label %l\n"
                    "l:\n"
                    "  %same = phi i32 [ 5, %x ], [ 5, %y ]\n"
                    "  %two = phi i32 [ 5, %x ], [ 6, %y ]\n"
                    "  %i1 = add i32 %i, %same\n"
                    "  %d = icmp ult i32 %i1, %n\n"
                    "  br i1 %d, label %h, label %done\n"
                    "done:\n  ret void\n}\n",
                    JIT_MEMORY_ITEMS_IN_SEQUENCE),
            "parse/analyse (loop)");
    expect_values(&t, false, "i same i1 d");
    expect_values(&t, true, "c two");
    ut_close(&t);
}

/* The same after reg2mem: values cross blocks through stack slots. */
TEST_TIER_FREE(uniformity_varying_branch_slots)
{
    ut t;
    REQUIRE(ut_open(&t,
                    "define void @f(ptr %ctx, i32 %lx, i32 %n) {\n"
                    "entry:\n"
                    "  %x = alloca i32\n" /* stored under the varying branch */
                    "  %y = alloca i32\n" /* uniform values under uniform control */
                    "  %z = alloca i32\n" /* a varying value */
                    "  %w = alloca i32\n" /* not a plain variable: its address escapes into a GEP */
                    "  store i32 %n, ptr %x\n"
                    "  store i32 %n, ptr %y\n"
                    "  store i32 %lx, ptr %z\n"
                    "  %wp = getelementptr i8, ptr %w, i64 0\n"
                    "  store i32 %n, ptr %wp\n"
                    "  %c = icmp ult i32 %lx, 4\n"
                    "  br i1 %c, label %then, label %join\n"
                    "then:\n"
                    "  %t = add i32 %n, 1\n"
                    "  store i32 %t, ptr %x\n"
                    "  br label %join\n"
                    "join:\n"
                    "  %lxv = load i32, ptr %x\n"
                    "  %lyv = load i32, ptr %y\n"
                    "  %lzv = load i32, ptr %z\n"
                    "  %lwv = load i32, ptr %w\n"
                    "  %q = add i32 %lyv, 1\n"
                    "  store i32 %q, ptr %y\n"
                    "  ret void\n}\n",
                    JIT_MEMORY_ITEMS_IN_SEQUENCE),
            "parse/analyse");
    expect_values(&t, true, "lxv lzv lwv");
    expect_values(&t, false, "t lyv q");
    CHECK(jit_uniformity_alloca_varying(t.u, tir_value(t.fn, "x")) &&
              !jit_uniformity_alloca_varying(t.u, tir_value(t.fn, "y")) &&
              jit_uniformity_alloca_varying(t.u, tir_value(t.fn, "z")) &&
              jit_uniformity_alloca_varying(t.u, tir_value(t.fn, "w")),
          "alloca_varying: x yes, y no, z yes, w yes");
    ut_close(&t);
}

/* A loop left by a varying condition (the trip count is the local id) against
 * one left by a uniform condition; SSA form. */
TEST_TIER_FREE(uniformity_loop_exits)
{
    ut t;
    REQUIRE(ut_open(&t,
                    "define void @f(ptr %ctx, i32 %lx, i32 %n) {\n"
                    "entry:\n  br label %h\n"
                    "h:\n"
                    "  %i = phi i32 [ 0, %entry ], [ %i1, %h ]\n"
                    "  %i1 = add i32 %i, 1\n"
                    "  %c = icmp ult i32 %i1, %lx\n"
                    "  br i1 %c, label %h, label %mid\n"
                    "mid:\n"
                    "  %after = add i32 %i1, 0\n"
                    "  br label %h2\n"
                    "h2:\n"
                    "  %k = phi i32 [ 0, %mid ], [ %k1, %h2 ]\n"
                    "  %k1 = add i32 %k, 1\n"
                    "  %c2 = icmp ult i32 %k1, %n\n"
                    "  br i1 %c2, label %h2, label %done\n"
                    "done:\n"
                    "  %after2 = add i32 %k1, 0\n"
                    "  ret void\n}\n",
                    JIT_MEMORY_ITEMS_IN_SEQUENCE),
            "parse/analyse");
    expect_values(&t, true, "i i1 c after");
    expect_values(&t, false, "k k1 c2 after2");
    expect_blocks(&t, true, "h");
    expect_blocks(&t, false, "entry mid h2 done");
    ut_close(&t);
}

/* The same varying loop after reg2mem: the counter lives in a slot. */
TEST_TIER_FREE(uniformity_loop_exit_slots)
{
    ut t;
    REQUIRE(ut_open(&t,
                    "define void @f(ptr %ctx, i32 %lx, i32 %n) {\n"
                    "entry:\n"
                    "  %i = alloca i32\n"
                    "  %k = alloca i32\n"
                    "  store i32 0, ptr %i\n"
                    "  store i32 0, ptr %k\n"
                    "  br label %h\n"
                    "h:\n"
                    "  %iv = load i32, ptr %i\n"
                    "  %i1 = add i32 %iv, 1\n"
                    "  store i32 %i1, ptr %i\n"
                    "  %kv = load i32, ptr %k\n"
                    "  %k1 = add i32 %kv, %n\n" /* uniform value, but stored in a divergent block */
                    "  store i32 %k1, ptr %k\n"
                    "  %c = icmp ult i32 %i1, %lx\n"
                    "  br i1 %c, label %h, label %out\n"
                    "out:\n"
                    "  %after = load i32, ptr %i\n"
                    "  %afterk = load i32, ptr %k\n"
                    "  ret void\n}\n",
                    JIT_MEMORY_ITEMS_IN_SEQUENCE),
            "parse/analyse");
    expect_values(&t, true, "iv i1 c after kv k1 afterk");
    expect_blocks(&t, true, "h");
    expect_blocks(&t, false, "entry out");
    CHECK(jit_uniformity_alloca_varying(t.u, tir_value(t.fn, "i")) &&
              jit_uniformity_alloca_varying(t.u, tir_value(t.fn, "k")),
          "both loop slots vary");
    ut_close(&t);
}

/* Pointers passed between blocks through slots stored once still reach their
 * root: a load through one from read-only memory is uniform. */
TEST_TIER_FREE(uniformity_pointer_root_through_slots)
{
    ut t;
    REQUIRE(ut_open(&t,
                    "define void @f(ptr %ctx, i32 %lx, ptr %ro, ptr %rw) {\n"
                    "entry:\n"
                    "  %p = alloca ptr\n"
                    "  %q = alloca ptr\n"
                    "  %g = getelementptr inbounds i8, ptr %ro, i64 8\n"
                    "  store ptr %g, ptr %p\n"
                    "  store ptr %rw, ptr %q\n"
                    "  store i32 1, ptr %rw\n"
                    "  br label %next\n"
                    "next:\n"
                    "  %pv = load ptr, ptr %p\n"
                    "  %a = getelementptr inbounds i32, ptr %pv, i32 2\n"
                    "  %v = load i32, ptr %a\n"
                    "  %qv = load ptr, ptr %q\n"
                    "  %w = load i32, ptr %qv\n"
                    "  ret void\n}\n",
                    JIT_MEMORY_ITEMS_IN_SEQUENCE),
            "parse/analyse");
    CHECK(jit_uniformity_pointer_root(t.u, tir_value(t.fn, "a")) == tir_value(t.fn, "ro"), "root of %%a is not %%ro");
    expect_values(&t, false, "pv a v");
    expect_values(&t, true, "qv w"); /* %rw varies */
    ut_close(&t);
}

/* 2000 diamonds, only the first on a varying condition: exactly its two
 * arms are divergent (the old analysis gave up beyond 4096 blocks). */
TEST_TIER_FREE(uniformity_many_blocks)
{
    enum { N = 2000 };
    char *ir = tir_diamond_chain("ptr %ctx, i32 %lx, i32 %n", "  %vc = icmp eq i32 %lx, 0\n  %uc = icmp eq i32 %n, 0\n",
                                 N, "vc", "uc");
    REQUIRE(ir, "malloc");
    ut t;
    bool ok = ut_open(&t, ir, JIT_MEMORY_ITEMS_IN_SEQUENCE);
    free(ir);
    REQUIRE(ok, "parse/analyse");
    CHECK(t.g.nblocks == 4 * N + 1, "%u blocks", t.g.nblocks);
    unsigned ndiv = 0;
    for (unsigned b = 0; b < t.g.nblocks; b++)
        ndiv += jit_uniformity_divergent(t.u, b);
    expect_blocks(&t, true, "l0 r0");
    expect_blocks(&t, false, "d0 j0 l1 r1 j1999");
    CHECK(ndiv == 2, "%u divergent blocks, expected 2", ndiv);
    ut_close(&t);
}

/* A loop left through a uniform condition tested only by some items (under a
 * varying branch inside the loop): the items leave at different iterations,
 * so the loop's blocks are divergent and what it leaves behind varies.  A
 * loop under a varying branch (entered by some items, left together) keeps
 * its counter uniform: its header is no join. */
TEST_TIER_FREE(uniformity_exit_under_varying_branch)
{
    ut t;
    REQUIRE(ut_open(&t,
                    "define void @f(ptr %ctx, i32 %lx, i32 %n) {\n"
                    "entry:\n  br label %h\n"
                    "h:\n"
                    "  %k = phi i32 [ 0, %entry ], [ %k1, %latch ]\n"
                    "  %c = icmp ult i32 %lx, 4\n"
                    "  br i1 %c, label %chk, label %latch\n"
                    "chk:\n"
                    "  %five = icmp eq i32 %k, 5\n" /* uniform, but only items < 4 test it */
                    "  br i1 %five, label %out, label %latch\n"
                    "latch:\n"
                    "  %k1 = add i32 %k, 1\n"
                    "  %more = icmp ult i32 %k1, %n\n"
                    "  br i1 %more, label %h, label %out\n"
                    "out:\n"
                    "  %after = add i32 %k, 0\n"
                    "  br i1 %c, label %g, label %done\n"
                    "g:\n"
                    "  br label %gh\n"
                    "gh:\n"
                    "  %j = phi i32 [ 0, %g ], [ %j1, %gh ]\n"
                    "  %j1 = add i32 %j, 1\n"
                    "  %jm = icmp ult i32 %j1, %n\n"
                    "  br i1 %jm, label %gh, label %done\n"
                    "done:\n"
                    "  ret void\n}\n",
                    JIT_MEMORY_LANES_IN_LOCKSTEP),
            "parse/analyse");
    expect_values(&t, true, "k k1 after");
    expect_values(&t, false, "j j1 jm");
    expect_blocks(&t, true, "h chk latch g gh");
    ut_close(&t);
}
