/* testdata/tests/test_jit_slots.c — the region structure (jit/regions.h) and
 * the slot plan (jit/slots.h) of small work-item functions written as LLVM IR,
 * taken through the real steps (inlining, SROA, reg2mem, splitting at
 * barriers, the uniformity analysis).  The expected kind of each stack slot
 * follows from the plan's rules: a uniform loop counter live across a
 * barrier is one slot for the group, a varying accumulator one element per
 * item, a value used only within one region a shared slot, a value computed
 * once from ctx the uniform value itself, the local id's arithmetic
 * recomputed; a uniform value stored under a varying branch is per item.
 * The same loop in a function called once gets the same plan whether the
 * quick tier moves the function into the item or LLVM's inliner copies it.
 * Then what makes the regions give up, each with its reason. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>

#include "harness.h"
#include "jit/abi.h"
#include "jit/slots.h"
#include "test_ir_util.h"

typedef struct st {
    LLVMContextRef llc;
    LLVMModuleRef mod;
    LLVMValueRef item;
    jit_regions rg;
    jit_uniformity *u;
    jit_slot_plan plan;
    char msg[JIT_REGIONS_MSG];
    int stage; /* how far it got: 1 prepared, 2 regions found, 3 planned */
} st;

#define HEADER                                                                                                         \
    "declare void @spvjit.barrier(ptr, i32) convergent nounwind\n"                                                     \
    "define void @spvjit_item(ptr %ctx, i32 %lx, i32 %ly, i32 %lz) {\n"                                                \
    "entry:\n"                                                                                                         \
    "  %pushp = getelementptr inbounds i8, ptr %ctx, i64 PUSH\n"                                                       \
    "  %push = load ptr, ptr %pushp\n"                                                                                 \
    "  %n = load i32, ptr %push\n"                                                                                     \
    "  %wgp = getelementptr inbounds i8, ptr %ctx, i64 WGMEM\n"                                                        \
    "  %wg = load ptr, ptr %wgp\n"

/* The IR with PUSH and WGMEM replaced by the ctx offsets of jit/abi.h. */
static char *with_offsets(const char *ir)
{
    size_t n = strlen(ir) + 64;
    char *s = malloc(n), *p;
    snprintf(s, n, "%s", ir);
    while ((p = strstr(s, "PUSH")) || (p = strstr(s, "WGMEM"))) {
        bool push = p[0] == 'P';
        char num[24];
        int k = snprintf(num, sizeof num, "%zu",
                         push ? offsetof(spvjit_wg_ctx, push_constants) : offsetof(spvjit_wg_ctx, wg_memory));
        size_t len = push ? 4 : 5;
        memmove(p + k, p + len, strlen(p + len) + 1);
        memcpy(p, num, (size_t)k);
    }
    return s;
}

/* Runs the steps as far as they go (prepared as for the quick tier when
 * quick); returns the last step's result. */
static int st_open_tier(st *t, const char *ir, uint32_t nitems, bool quick)
{
    memset(t, 0, sizeof *t);
    t->llc = LLVMContextCreate();
    char *text = with_offsets(ir);
    t->mod = tir_parse(t->llc, text);
    free(text);
    t->item = t->mod ? LLVMGetNamedFunction(t->mod, "spvjit_item") : NULL;
    if (!t->item)
        return -1;
    int rc = jit_regions_prepare(t->mod, t->item, quick, t->msg);
    if (rc)
        return rc;
    t->stage = 1;
    if ((rc = jit_regions_find(&t->rg, t->item, false, t->msg)))
        return rc;
    t->stage = 2;
    const bool varies[4] = { false, true, true, true };
    jit_uniformity_config c = {
        .param_varies = varies, .memory = JIT_MEMORY_ITEMS_IN_SEQUENCE, .read_only = jit_item_read_only, .user = &t->rg
    };
    if (jit_uniformity_run(&t->u, &t->rg.cfg, &c))
        return -1;
    rc = jit_slots_plan(&t->plan, &t->rg, t->u, LLVMGetModuleDataLayout(t->mod), nitems, t->msg);
    t->stage = rc ? 2 : 3;
    return rc;
}

static int st_open(st *t, const char *ir, uint32_t nitems)
{
    return st_open_tier(t, ir, nitems, false);
}

static void st_close(st *t)
{
    jit_slots_free(&t->plan);
    jit_uniformity_free(t->u);
    if (t->stage >= 1)
        jit_regions_free(&t->rg);
    if (t->mod)
        LLVMDisposeModule(t->mod);
    LLVMContextDispose(t->llc);
}

static const char *kind_name(int k)
{
    static const char *names[] = { "shared", "item", "group", "uniform", "remat" };
    return k >= 0 && k < 5 ? names[k] : "none";
}

/* The slot that reg2mem made for value `name` must be of kind `kind`. */
static void expect_slot(st *t, const char *name, jit_slot_kind kind)
{
    char slot[64];
    snprintf(slot, sizeof slot, "%s.reg2mem", name);
    LLVMValueRef a = tir_value(t->item, slot);
    const jit_slot *sl = a ? jit_slot_of(&t->plan, a) : NULL;
    CHECK(sl && sl->kind == kind, "slot of %%%s: %s, expected %s", name, sl ? kind_name((int)sl->kind) : "none",
          kind_name((int)kind));
}

/* A uniform loop with a barrier at its end, in two parts with what is done
 * with %w between them: %t is uniform and crosses the barriers, %acc is
 * copied after each barrier, %w is used within the region only. */
#define LOOP_HEAD                                                                                                      \
    "loop:\n"                                                                                                          \
    "  %t = phi i32 [ 0, %entry ], [ %t1, %latch ]\n"                                                                  \
    "  %acc = phi float [ 0.0, %entry ], [ %acc1, %latch ]\n"                                                          \
    "  %nb = getelementptr inbounds float, ptr %wg, i32 %id1\n"                                                        \
    "  %v = load float, ptr %nb\n"                                                                                     \
    "  %acc1 = fadd float %acc, %v\n"                                                                                  \
    "  %big = fcmp ogt float %v, 1.0\n"                                                                                \
    "  br i1 %big, label %clip, label %latch\n"                                                                        \
    "clip:\n"                                                                                                          \
    "  br label %latch\n"                                                                                              \
    "latch:\n"                                                                                                         \
    "  %w = phi float [ %acc1, %loop ], [ 1.0, %clip ]\n"
#define LOOP_TAIL                                                                                                      \
    "  call void @spvjit.barrier(ptr %ctx, i32 1)\n"                                                                   \
    "  %t1 = add i32 %t, 1\n"                                                                                          \
    "  %more = icmp ult i32 %t1, %u\n"                                                                                 \
    "  br i1 %more, label %loop, label %done\n"

/* A uniform loop with two barriers: a group counter, item accumulators. */
static const char *loop_kernel =
    HEADER "  %u = add i32 %n, 7\n"    /* from ctx alone: computed once */
           "  %id1 = add i32 %lx, 1\n" /* local id arithmetic */
           "  %own = getelementptr inbounds float, ptr %wg, i32 %lx\n"
           "  %x0 = uitofp i32 %lx to float\n"
           "  store float %x0, ptr %own\n"
           "  call void @spvjit.barrier(ptr %ctx, i32 0)\n"
           "  br label %loop\n" LOOP_HEAD "  store float %w, ptr %own\n" LOOP_TAIL "done:\n"
           "  store float %acc1, ptr %own\n"
           "  ret void\n}\n";

TEST_TIER_FREE(slots_uniform_loop_kinds)
{
    st t;
    int rc = st_open(&t, loop_kernel, 64);
    REQUIRE(rc == 0, "steps: %d (%s)", rc, t.msg);
    CHECK(t.rg.nresume == 2 && t.rg.site[1] == 0 && t.rg.site[2] == 1, "%u regions after barriers, sites %u %u",
          t.rg.nresume, t.rg.site[1], t.rg.site[2]);
    expect_slot(&t, "t", JIT_SLOT_GROUP);
    /* reg2mem copies %acc1 into %acc's slot at the end of the phi's predecessors,
     * which the split puts after the barriers: each region writes it before it
     * reads it; %acc1 itself crosses the barrier */
    expect_slot(&t, "acc", JIT_SLOT_SHARED);
    expect_slot(&t, "acc1", JIT_SLOT_ITEM);
    expect_slot(&t, "w", JIT_SLOT_SHARED);
    expect_slot(&t, "u", JIT_SLOT_UNIFORM);
    expect_slot(&t, "wg", JIT_SLOT_UNIFORM);
    expect_slot(&t, "id1", JIT_SLOT_REMAT);
    expect_slot(&t, "own", JIT_SLOT_REMAT);
    const char *hoisted[] = { "pushp", "push", "n", "wgp", "wg", "u" };
    for (unsigned i = 0; i < sizeof hoisted / sizeof *hoisted; i++)
        CHECK(jit_slot_hoisted(&t.plan, tir_value(t.item, hoisted[i])), "%%%s is not hoisted", hoisted[i]);
    CHECK(!jit_slot_hoisted(&t.plan, tir_value(t.item, "id1")) && !jit_slot_hoisted(&t.plan, tir_value(t.item, "x0")),
          "local-id values hoisted");
    /* next[] and one float array of 64 items */
    CHECK(t.plan.item_slots == 1 && t.plan.item_bytes == 64 * 4 * 2, "%u item slots, %llu bytes", t.plan.item_slots,
          (unsigned long long)t.plan.item_bytes);
    /* each region's blocks: region 0 is the entry alone (it ends at the first barrier) */
    unsigned *list = calloc(t.rg.cfg.nblocks, sizeof *list);
    bool *in = calloc(t.rg.cfg.nblocks, sizeof *in);
    REQUIRE(list && in, "calloc");
    CHECK(jit_regions_blocks(&t.rg, 0, list, in) == 1 && list[0] == 0, "region 0 is not the entry block alone");
    unsigned n1 = jit_regions_blocks(&t.rg, 1, list, in);
    CHECK(in[jit_cfg_index(&t.rg.cfg, tir_block(t.item, "loop"))] &&
              in[jit_cfg_index(&t.rg.cfg, tir_block(t.item, "clip"))] &&
              !in[jit_cfg_index(&t.rg.cfg, tir_block(t.item, "done"))] && n1 >= 4,
          "region 1: loop and clip, not done (%u blocks)", n1);
    jit_regions_blocks(&t.rg, 2, list, in);
    CHECK(in[jit_cfg_index(&t.rg.cfg, tir_block(t.item, "done"))] &&
              in[jit_cfg_index(&t.rg.cfg, tir_block(t.item, "loop"))],
          "region 2 reaches done and the loop again");
    free(list);
    free(in);
    st_close(&t);
}

/* The loop of loop_kernel in a function of its own, called once, which
 * calls a helper called twice: the quick tier moves the function's blocks
 * into the item (jit/inline_once.h) and LLVM's inliner copies the helper;
 * the optimized tier copies both.  Either way the functions are gone and
 * the plan is loop_kernel's. */
static const char *called_kernel =
    "define internal float @half(float %x) alwaysinline {\n"
    "entry:\n"
    "  %h = fmul float %x, 0.5\n"
    "  ret float %h\n}\n"
    "define internal float @loop_part(ptr %ctx, ptr %wg, ptr %own, i32 %id1, i32 %u) alwaysinline {\n"
    "entry:\n"
    "  %scratch = alloca float, align 4\n"
    "  br label %loop\n" LOOP_HEAD "  %w2 = call float @half(float %w)\n"
    "  store float %w2, ptr %scratch\n"
    "  %w3 = load float, ptr %scratch\n"
    "  store float %w3, ptr %own\n" LOOP_TAIL "done:\n"
    "  ret float %acc1\n}\n" HEADER "  %u = add i32 %n, 7\n"
    "  %id1 = add i32 %lx, 1\n"
    "  %own = getelementptr inbounds float, ptr %wg, i32 %lx\n"
    "  %x0 = uitofp i32 %lx to float\n"
    "  %x1 = call float @half(float %x0)\n"
    "  store float %x1, ptr %own\n"
    "  call void @spvjit.barrier(ptr %ctx, i32 0)\n"
    "  %r = call float @loop_part(ptr %ctx, ptr %wg, ptr %own, i32 %id1, i32 %u)\n"
    "  store float %r, ptr %own\n"
    "  ret void\n}\n";

TEST_TIER_FREE(slots_called_functions_both_tiers)
{
    for (int quick = 0; quick < 2; quick++) {
        const char *tier = quick ? "quick" : "opt";
        st t;
        int rc = st_open_tier(&t, called_kernel, 64, quick);
        REQUIRE(rc == 0, "%s: steps: %d (%s)", tier, rc, t.msg);
        CHECK(!LLVMGetNamedFunction(t.mod, "loop_part") && !LLVMGetNamedFunction(t.mod, "half"),
              "%s: a called function is left", tier);
        char *err = NULL;
        CHECK(!LLVMVerifyModule(t.mod, LLVMReturnStatusAction, &err), "%s: %s", tier, err);
        LLVMDisposeMessage(err);
        CHECK(t.rg.nresume == 2 && t.rg.site[1] == 0 && t.rg.site[2] == 1, "%s: %u regions, sites %u %u", tier,
              t.rg.nresume, t.rg.site[1], t.rg.site[2]);
        /* LLVM's inliner names its copies x.i; a moved block keeps x */
        expect_slot(&t, quick ? "t" : "t.i", JIT_SLOT_GROUP);
        expect_slot(&t, quick ? "acc1" : "acc1.i", JIT_SLOT_ITEM);
        expect_slot(&t, quick ? "acc" : "acc.i", JIT_SLOT_SHARED);
        expect_slot(&t, "u", JIT_SLOT_UNIFORM);
        expect_slot(&t, "id1", JIT_SLOT_REMAT);
        CHECK(t.plan.item_slots == 1 && t.plan.item_bytes == 64 * 4 * 2, "%s: %u item slots, %llu bytes", tier,
              t.plan.item_slots, (unsigned long long)t.plan.item_bytes);
        st_close(&t);
    }
}

/* A uniform value stored under a varying branch is not the same in every
 * item once the branch is behind it (some did not store it). */
TEST_TIER_FREE(slots_uniform_value_varying_control)
{
    st t;
    int rc = st_open(&t,
                     HEADER "  %c = icmp ult i32 %lx, 3\n"
                            "  br i1 %c, label %set, label %skip\n"
                            "set:\n  br label %skip\n"
                            "skip:\n"
                            "  %flag = phi i32 [ %n, %set ], [ 0, %entry ]\n"
                            "  %all = add i32 %n, 0\n"
                            "  call void @spvjit.barrier(ptr %ctx, i32 0)\n"
                            "  br label %use\n"
                            "use:\n"
                            "  %sum = add i32 %flag, %all\n"
                            "  store i32 %sum, ptr %push\n"
                            "  ret void\n}\n",
                     16);
    REQUIRE(rc == 0, "steps: %d (%s)", rc, t.msg);
    expect_slot(&t, "flag", JIT_SLOT_ITEM);
    CHECK(jit_uniformity_divergent(t.u, jit_cfg_index(&t.rg.cfg, tir_block(t.item, "set"))), "set is not divergent");
    st_close(&t);
}

/* A call of a pure, speculatable LLVM intrinsic is arithmetic like any
 * other: hoisted when its operands are (%lim, from ctx), recomputed after a
 * barrier when it is the local id's (%low); a pure function that is not an
 * intrinsic (it might trap where the original did not run) keeps one element
 * per item. */
TEST_TIER_FREE(slots_intrinsics_are_arithmetic)
{
    st t;
    int rc = st_open(&t,
                     "declare i32 @llvm.usub.sat.i32(i32, i32)\n"
                     "declare i32 @llvm.umin.i32(i32, i32)\n"
                     "declare i32 @opaque(i32) memory(none) nounwind\n" HEADER
                     "  %lim = call i32 @llvm.usub.sat.i32(i32 %n, i32 3)\n"
                     "  %low = call i32 @llvm.umin.i32(i32 %lx, i32 %lim)\n"
                     "  %odd = call i32 @opaque(i32 %lx)\n"
                     "  call void @spvjit.barrier(ptr %ctx, i32 0)\n"
                     "  br label %use\n"
                     "use:\n"
                     "  %a = add i32 %low, %lim\n"
                     "  %b = add i32 %a, %odd\n"
                     "  %at = getelementptr inbounds i32, ptr %wg, i32 %lx\n"
                     "  store i32 %b, ptr %at\n"
                     "  ret void\n}\n",
                     32);
    REQUIRE(rc == 0, "steps: %d (%s)", rc, t.msg);
    CHECK(jit_slot_hoisted(&t.plan, tir_value(t.item, "lim")), "%%lim is not hoisted");
    expect_slot(&t, "lim", JIT_SLOT_UNIFORM);
    expect_slot(&t, "low", JIT_SLOT_REMAT);
    expect_slot(&t, "odd", JIT_SLOT_ITEM);
    CHECK(t.plan.item_slots == 1 && t.plan.item_bytes == 32 * 4 * 2, "%u item slots, %llu bytes", t.plan.item_slots,
          (unsigned long long)t.plan.item_bytes);
    st_close(&t);
}

static void expect_decline(const char *ir, uint32_t nitems, int stage, const char *words)
{
    st t;
    int rc = st_open(&t, ir, nitems);
    CHECK(rc == 1 && t.stage == stage && strstr(t.msg, words), "rc %d at stage %d: '%s', expected stage %d: '%s'", rc,
          t.stage, t.msg, stage, words);
    st_close(&t);
}

TEST_TIER_FREE(slots_and_regions_decline)
{
    /* a call that is not inlined (no alwaysinline) */
    expect_decline("define void @helper(ptr %p) {\n  store i32 1, ptr %p\n  ret void\n}\n" HEADER
                   "  call void @helper(ptr %wg)\n"
                   "  call void @spvjit.barrier(ptr %ctx, i32 0)\n  ret void\n}\n",
                   16, 0, "a call of helper that is not inlined");
    /* an indirect call */
    expect_decline(HEADER "  %fp = load ptr, ptr %wg\n  call void %fp()\n"
                          "  call void @spvjit.barrier(ptr %ctx, i32 0)\n  ret void\n}\n",
                   16, 0, "an indirect call");
    /* a dynamic stack allocation */
    expect_decline(HEADER "  br label %next\nnext:\n  %a = alloca i32, i32 %lx\n  store i32 1, ptr %a\n"
                          "  %l = load i32, ptr %a\n  store i32 %l, ptr %wg\n"
                          "  call void @spvjit.barrier(ptr %ctx, i32 0)\n  ret void\n}\n",
                   16, 1, "an alloca outside the entry block");
    /* a per-item array of 4 KiB in groups of 512: 2 MiB */
    expect_decline(HEADER "  %arr = alloca [1024 x float]\n"
                          "  %e = getelementptr inbounds [1024 x float], ptr %arr, i32 0, i32 %lx\n"
                          "  store float 1.0, ptr %e\n"
                          "  call void @spvjit.barrier(ptr %ctx, i32 0)\n"
                          "  %l = load float, ptr %e\n  store float %l, ptr %wg\n  ret void\n}\n",
                   512, 2, "bytes per group (more than 1048576)");
}

/* An item with no barrier left (specialization made them dead) is one
 * region: the whole work-item, no slots, run as sub-groups like a
 * barrier-free kernel rather than on fibers. */
TEST_TIER_FREE(slots_item_without_barriers_is_one_region)
{
    st t;
    int rc = st_open(&t, HEADER "  %v = add i32 %lx, 1\n  store i32 %v, ptr %wg\n  ret void\n}\n", 16);
    CHECK(rc == 0 && t.stage == 3, "rc %d at stage %d: '%s'", rc, t.stage, t.msg);
    CHECK(rc || (t.rg.nresume == 0 && t.plan.item_slots == 0), "%u regions after the first, %u per-item slots",
          t.rg.nresume, t.plan.item_slots);
    st_close(&t);
}
