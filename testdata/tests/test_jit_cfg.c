/* testdata/tests/test_jit_cfg.c — control-flow facts (jit/cfg.h) of small
 * hand-written functions against answers derived by hand: numbering in
 * reverse post-order, immediate dominators and post-dominators, natural loops
 * and their nesting, irreducible cycles, unreachable blocks and blocks that
 * never return, and a function of 12001 blocks (beyond the 4096 where the
 * regions' old post-dominator code gave up). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "jit/cfg.h"
#include "test_ir_util.h"

typedef struct cfgt {
    LLVMContextRef llc;
    LLVMModuleRef mod;
    LLVMValueRef fn;
    jit_cfg g;
} cfgt;

static bool cfgt_open(cfgt *t, const char *ir)
{
    memset(t, 0, sizeof *t);
    t->llc = LLVMContextCreate();
    t->mod = tir_parse(t->llc, ir);
    t->fn = t->mod ? LLVMGetNamedFunction(t->mod, "f") : NULL;
    return t->fn && jit_cfg_build(&t->g, t->fn) == 0;
}

static void cfgt_close(cfgt *t)
{
    jit_cfg_free(&t->g);
    if (t->mod)
        LLVMDisposeModule(t->mod);
    LLVMContextDispose(t->llc);
}

/* The number of block `name`; "-" is JIT_CFG_NONE, "EXIT" the virtual exit. */
static unsigned num(cfgt *t, const char *name)
{
    if (!strcmp(name, "-"))
        return JIT_CFG_NONE;
    if (!strcmp(name, "EXIT"))
        return jit_cfg_exit(&t->g);
    LLVMBasicBlockRef bb = tir_block(t->fn, name);
    return bb ? jit_cfg_index(&t->g, bb) : JIT_CFG_NONE - 1;
}

static const char *name_of(cfgt *t, unsigned b)
{
    if (b == JIT_CFG_NONE)
        return "-";
    if (b == jit_cfg_exit(&t->g))
        return "EXIT";
    size_t len;
    return b < t->g.nblocks ? LLVMGetValueName2(LLVMBasicBlockAsValue(t->g.blocks[b]), &len) : "?";
}

/* "a:x b:y ...": tree[a] must be x (tree: idom or ipdom). */
static void check_tree(cfgt *t, const char *what, const unsigned *tree, const char *want)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", want);
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        char *colon = strchr(tok, ':');
        *colon = 0;
        unsigned b = num(t, tok), d = num(t, colon + 1);
        REQUIRE(b < t->g.nblocks, "no block %s", tok);
        CHECK(tree[b] == d, "%s(%s) = %s, expected %s", what, tok, name_of(t, tree[b]), colon + 1);
    }
}

/* "a b c": the block numbers of the names, sorted, equal the list. */
static void check_list(cfgt *t, const char *what, const unsigned *list, unsigned n, const char *want)
{
    unsigned expect[64], ne = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", want);
    for (char *tok = strtok(buf, " "); tok && ne < 64; tok = strtok(NULL, " "))
        expect[ne++] = num(t, tok);
    for (unsigned i = 0; i < ne; i++) /* insertion sort */
        for (unsigned j = i; j > 0 && expect[j - 1] > expect[j]; j--) {
            unsigned x = expect[j];
            expect[j] = expect[j - 1];
            expect[j - 1] = x;
        }
    bool same = n == ne;
    for (unsigned i = 0; same && i < n; i++)
        same = list[i] == expect[i];
    char got[256] = "";
    for (unsigned i = 0; i < n; i++)
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s ", name_of(t, list[i]));
    CHECK(same, "%s: got {%s}, expected {%s}", what, got, want);
}

static const jit_loop *loop_at(cfgt *t, const char *header)
{
    unsigned h = num(t, header);
    for (unsigned l = 0; l < t->g.nloops; l++)
        if (t->g.loops[l].header == h)
            return &t->g.loops[l];
    return NULL;
}

static void check_loop(cfgt *t, const char *header, const char *blocks, const char *latches, const char *exiting,
                       const char *exits, const char *parent, unsigned depth)
{
    const jit_loop *l = loop_at(t, header);
    REQUIRE(l, "no loop with header %s", header);
    check_list(t, "loop blocks", l->blocks, l->nblocks, blocks);
    check_list(t, "loop latches", l->latches, l->nlatches, latches);
    check_list(t, "loop exiting blocks", l->exiting, l->nexiting, exiting);
    check_list(t, "loop exits", l->exits, l->nexits, exits);
    CHECK(l->depth == depth, "loop %s: depth %u, expected %u", header, l->depth, depth);
    const jit_loop *p = parent ? loop_at(t, parent) : NULL;
    CHECK(parent ? (p && l->parent == (unsigned)(p - t->g.loops)) : l->parent == JIT_CFG_NONE,
          "loop %s: wrong parent (expected %s)", header, parent ? parent : "none");
    for (unsigned i = 0; i < l->nblocks; i++)
        CHECK(jit_cfg_loop_contains(&t->g, (unsigned)(l - t->g.loops), l->blocks[i]), "loop %s does not contain %s",
              header, name_of(t, l->blocks[i]));
}

/* Reverse post-order: each reachable block comes before its successors, back
 * edges (to a dominator) aside; unreachable blocks come last. */
static void check_numbering(cfgt *t, bool reducible)
{
    const jit_cfg *g = &t->g;
    CHECK(num(t, "entry") == 0, "the entry is not block 0");
    for (unsigned b = 0; b < g->nreachable; b++)
        for (unsigned e = g->succ_off[b]; e < g->succ_off[b + 1]; e++) {
            unsigned s = g->succ[e];
            CHECK(s < g->nreachable, "%s: successor %s numbered as unreachable", name_of(t, b), name_of(t, s));
            if (reducible)
                CHECK(s > b || jit_cfg_dominates(g, s, b), "edge %s -> %s goes back to a non-dominator", name_of(t, b),
                      name_of(t, s));
        }
    for (unsigned b = 0; b < g->nblocks; b++)
        CHECK(jit_cfg_index(g, g->blocks[b]) == b, "block %u: index lookup disagrees", b);
}

TEST_TIER_FREE(cfg_diamond)
{
    cfgt t;
    REQUIRE(cfgt_open(&t, "define void @f(i1 %c) {\n"
                          "entry:\n  br i1 %c, label %a, label %b\n"
                          "a:\n  br label %join\n"
                          "b:\n  br label %join\n"
                          "join:\n  ret void\n}\n"),
            "parse/build");
    CHECK(t.g.nblocks == 4 && t.g.nreachable == 4, "blocks %u reachable %u", t.g.nblocks, t.g.nreachable);
    check_numbering(&t, true);
    CHECK(num(&t, "join") == 3, "join is block %u, expected 3 (after both arms)", num(&t, "join"));
    check_tree(&t, "idom", t.g.idom, "entry:- a:entry b:entry join:entry");
    check_tree(&t, "ipdom", t.g.ipdom, "entry:join a:join b:join join:EXIT");
    CHECK(jit_cfg_dominates(&t.g, num(&t, "entry"), num(&t, "join")) &&
              !jit_cfg_dominates(&t.g, num(&t, "a"), num(&t, "join")),
          "dominance queries");
    CHECK(jit_cfg_post_dominates(&t.g, num(&t, "join"), num(&t, "entry")) &&
              !jit_cfg_post_dominates(&t.g, num(&t, "a"), num(&t, "entry")) &&
              jit_cfg_post_dominates(&t.g, jit_cfg_exit(&t.g), num(&t, "a")),
          "post-dominance queries");
    CHECK(t.g.nloops == 0 && !t.g.irreducible, "loops %u irreducible %d", t.g.nloops, t.g.irreducible);
    unsigned j = num(&t, "join");
    check_list(&t, "preds of join", &t.g.pred[t.g.pred_off[j]], jit_cfg_npred(&t.g, j), "a b");
    cfgt_close(&t);
}

TEST_TIER_FREE(cfg_nested_loops)
{
    cfgt t;
    /* outer loop with two inner loops one after the other, the second a self loop */
    REQUIRE(cfgt_open(&t, "define void @f(i1 %c1, i1 %c2, i1 %c3) {\n"
                          "entry:\n  br label %outer\n"
                          "outer:\n  br label %in1\n"
                          "in1:\n  br label %in1.body\n"
                          "in1.body:\n  br i1 %c1, label %in1, label %in2\n"
                          "in2:\n  br i1 %c2, label %in2, label %olatch\n"
                          "olatch:\n  br i1 %c3, label %outer, label %exit\n"
                          "exit:\n  ret void\n}\n"),
            "parse/build");
    check_numbering(&t, true);
    CHECK(t.g.nloops == 3 && !t.g.irreducible, "loops %u irreducible %d", t.g.nloops, t.g.irreducible);
    check_tree(&t, "idom", t.g.idom, "outer:entry in1:outer in1.body:in1 in2:in1.body olatch:in2 exit:olatch");
    check_tree(&t, "ipdom", t.g.ipdom,
               "entry:outer outer:in1 in1:in1.body in1.body:in2 in2:olatch olatch:exit exit:EXIT");
    check_loop(&t, "outer", "outer in1 in1.body in2 olatch", "olatch", "olatch", "exit", NULL, 1);
    check_loop(&t, "in1", "in1 in1.body", "in1.body", "in1.body", "in2", "outer", 2);
    check_loop(&t, "in2", "in2", "in2", "in2", "olatch", "outer", 2);
    CHECK(t.g.loop_of[num(&t, "olatch")] == (unsigned)(loop_at(&t, "outer") - t.g.loops) &&
              t.g.loop_of[num(&t, "in1.body")] == (unsigned)(loop_at(&t, "in1") - t.g.loops) &&
              t.g.loop_of[num(&t, "exit")] == JIT_CFG_NONE && t.g.loop_of[num(&t, "entry")] == JIT_CFG_NONE,
          "innermost loops of blocks");
    CHECK(!jit_cfg_loop_contains(&t.g, (unsigned)(loop_at(&t, "in1") - t.g.loops), num(&t, "in2")), "in1 contains in2");
    cfgt_close(&t);
}

TEST_TIER_FREE(cfg_loop_with_two_exits)
{
    cfgt t;
    REQUIRE(cfgt_open(&t, "define void @f(i1 %c1, i1 %c2) {\n"
                          "entry:\n  br label %h\n"
                          "h:\n  br i1 %c1, label %body, label %e1\n"
                          "body:\n  br i1 %c2, label %latch, label %e2\n"
                          "latch:\n  br label %h\n"
                          "e1:\n  br label %done\n"
                          "e2:\n  ret void\n"
                          "done:\n  ret void\n}\n"),
            "parse/build");
    check_numbering(&t, true);
    check_tree(&t, "idom", t.g.idom, "h:entry body:h latch:body e1:h e2:body done:e1");
    /* two returns: only the virtual exit post-dominates h and body */
    check_tree(&t, "ipdom", t.g.ipdom, "entry:h h:EXIT body:EXIT latch:h e1:done e2:EXIT done:EXIT");
    check_loop(&t, "h", "h body latch", "latch", "h body", "e1 e2", NULL, 1);
    cfgt_close(&t);
}

TEST_TIER_FREE(cfg_irreducible)
{
    cfgt t;
    /* a <-> b entered from both sides: no block of the cycle dominates the other */
    REQUIRE(cfgt_open(&t, "define void @f(i1 %c, i1 %c2, i1 %c3) {\n"
                          "entry:\n  br i1 %c, label %a, label %b\n"
                          "a:\n  br i1 %c2, label %b, label %x\n"
                          "b:\n  br i1 %c3, label %a, label %x\n"
                          "x:\n  ret void\n}\n"),
            "parse/build");
    check_numbering(&t, false);
    CHECK(t.g.irreducible && t.g.nloops == 0, "irreducible %d, loops %u", t.g.irreducible, t.g.nloops);
    check_tree(&t, "idom", t.g.idom, "a:entry b:entry x:entry");
    check_tree(&t, "ipdom", t.g.ipdom, "entry:x a:x b:x x:EXIT");
    cfgt_close(&t);
}

TEST_TIER_FREE(cfg_unreachable_and_endless)
{
    cfgt t;
    /* spin never returns; dead is not reachable; the switch lists b twice */
    REQUIRE(cfgt_open(&t, "define void @f(i32 %v) {\n"
                          "entry:\n  switch i32 %v, label %spin [ i32 1, label %b\n i32 2, label %b ]\n"
                          "spin:\n  br label %spin\n"
                          "b:\n  br label %out\n"
                          "out:\n  ret void\n"
                          "dead:\n  br label %out\n}\n"),
            "parse/build");
    check_numbering(&t, true);
    CHECK(t.g.nblocks == 5 && t.g.nreachable == 4 && num(&t, "dead") == 4, "blocks %u reachable %u dead %u",
          t.g.nblocks, t.g.nreachable, num(&t, "dead"));
    check_tree(&t, "idom", t.g.idom, "entry:- spin:entry b:entry out:b dead:-");
    /* paths into spin never return and do not count; dead still returns through out */
    check_tree(&t, "ipdom", t.g.ipdom, "entry:b spin:- b:out out:EXIT dead:out");
    CHECK(jit_cfg_nsucc(&t.g, 0) == 3 && jit_cfg_npred(&t.g, num(&t, "b")) == 2, "switch edges: %u succ, %u preds of b",
          jit_cfg_nsucc(&t.g, 0), jit_cfg_npred(&t.g, num(&t, "b")));
    check_loop(&t, "spin", "spin", "spin", "", "", NULL, 1);
    CHECK(!jit_cfg_dominates(&t.g, num(&t, "dead"), num(&t, "out")) && !jit_cfg_dominates(&t.g, 0, num(&t, "dead")),
          "dominance of an unreachable block");
    cfgt_close(&t);
}

/* 3000 diamonds in a row: 12001 blocks, each diamond's branch post-dominated
 * by its join. */
TEST_TIER_FREE(cfg_many_blocks)
{
    enum { N = 3000 };
    char *ir = tir_diamond_chain("i1 %c", "", N, "c", "c");
    REQUIRE(ir, "malloc");
    cfgt t;
    bool ok = cfgt_open(&t, ir);
    free(ir);
    REQUIRE(ok, "parse/build");
    CHECK(t.g.nblocks == 4 * N + 1, "%u blocks", t.g.nblocks);
    /* the numbers of d<i> and j<i>, from the names */
    unsigned *bd = calloc(N + 1, sizeof *bd), *bj = calloc(N + 1, sizeof *bj);
    REQUIRE(bd && bj, "calloc");
    for (unsigned b = 0; b < t.g.nblocks; b++) {
        const char *name = name_of(&t, b);
        int i = atoi(name + 1);
        if (name[0] == 'd')
            bd[i] = b;
        else if (name[0] == 'j')
            bj[i] = b;
    }
    int bad = 0;
    for (int i = 0; i < N; i++) {
        bad += t.g.ipdom[bd[i]] != bj[i] || t.g.idom[bj[i]] != bd[i];
        if (i + 1 < N)
            bad += t.g.idom[bd[i + 1]] != bj[i] || t.g.ipdom[bj[i]] != bd[i + 1];
    }
    CHECK(bad == 0, "%d wrong dominators", bad);
    CHECK(jit_cfg_post_dominates(&t.g, bj[N - 1], 0) && jit_cfg_dominates(&t.g, 0, bj[N - 1]) &&
              !jit_cfg_dominates(&t.g, bd[N - 1], bj[N - 2]),
          "dominance queries across the chain");
    free(bd);
    free(bj);
    cfgt_close(&t);
}
