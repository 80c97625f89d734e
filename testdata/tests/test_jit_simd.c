/* testdata/tests/test_jit_simd.c — the vectorizer (jit/simd.h) on hand-written
 * functions, checked lane by lane against the scalar function run once per
 * active lane, in lane order (what work-items run one after another do).
 *
 * Each function f(i32 %i, ptr %in, ptr %out, i32 %n) is run for the W lanes of
 * a sub-group (%i the lane's index, consecutive from a multiple of W) under
 * several masks (all lanes, a prefix, alternate lanes, one lane, random ones),
 * at widths 4, 8 and 16, with LLVM's O0 (the vector code as built, after the
 * quick tier's preparation) and O2 (after the full one);
 * memory and returned lanes must be equal bit for bit.  The shapes cover
 * straight-line code, divergent if/else and switch, early returns, loops with
 * varying trip counts, uniform loops under divergent branches, loops left
 * from a divergent block by a uniform condition, multi-level breaks, gathers,
 * scatters, clamped (conditionally contiguous) addresses, accesses marked in
 * their range (no test of the index's wrap), private arrays,
 * calls and atomics run per lane, LLVM vectors, and returned values.  The
 * sub-group markers are checked against C references over the active lanes,
 * the preparation's inlining (into the listed functions only) against the
 * calls it must leave and a C computation. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <llvm-c/Analysis.h>

#include "harness.h"
#include "jit/jit_internal.h"
#include "jit/sg_marker.h"
#include "jit/simd.h"
#include "test_ir_util.h"

enum { NBUF = 256, MAXW = 16 };

typedef void (*run_fn)(uint64_t *args, uint64_t mask, void *ret);

typedef struct vt {
    LLVMContextRef llc;
    jit_code *code; /* in the process's JIT */
    run_fn scalar, vector;
    int rc; /* the vectorizer's answer */
    char msg[JIT_SIMD_MSG];
    unsigned ret_size; /* bytes per lane of f's result, 0 for void */
    char *vf_text;     /* the vector function as the vectorizer made it */
} vt;

/* Loads f's parameters from 8-byte slots (a varying one: from args[i] -> W values). */
static void load_params(LLVMBuilderRef b, LLVMValueRef f, LLVMValueRef args, LLVMValueRef *p, const jit_simd_arg *kinds,
                        unsigned w, int lane)
{
    LLVMContextRef llc = LLVMGetTypeContext(LLVMTypeOf(f));
    LLVMTypeRef i8 = LLVMInt8TypeInContext(llc), ptr = LLVMPointerTypeInContext(llc, 0);
    unsigned n = LLVMCountParams(f);
    for (unsigned i = 0; i < n; i++) {
        LLVMTypeRef t = LLVMTypeOf(LLVMGetParam(f, i));
        LLVMValueRef slot =
            LLVMBuildGEP2(b, i8, args, (LLVMValueRef[]){ LLVMConstInt(LLVMInt64TypeInContext(llc), 8 * i, 0) }, 1, "");
        if (kinds[i] == JIT_SIMD_ARG_VARYING) {
            LLVMValueRef arr = LLVMBuildLoad2(b, ptr, slot, "");
            if (lane < 0) {
                p[i] = LLVMBuildLoad2(b, LLVMVectorType(t, w), arr, "");
                LLVMSetAlignment(p[i], 1);
            } else {
                LLVMValueRef e =
                    LLVMBuildGEP2(b, t, arr, (LLVMValueRef[]){ LLVMConstInt(LLVMInt64TypeInContext(llc), lane, 0) }, 1,
                                  "");
                p[i] = LLVMBuildLoad2(b, t, e, "");
            }
            continue;
        }
        p[i] = LLVMBuildLoad2(b, t, slot, "");
        if (kinds[i] == JIT_SIMD_ARG_CONSECUTIVE && lane >= 0)
            p[i] = LLVMBuildAdd(b, p[i], LLVMConstInt(t, (unsigned)lane, 0), "");
    }
}

/* scalar_run(args, mask, ret): f for each lane of mask, in order. */
static void build_scalar_driver(LLVMModuleRef mod, LLVMValueRef f, const jit_simd_arg *kinds, unsigned w)
{
    LLVMContextRef llc = LLVMGetModuleContext(mod);
    LLVMTypeRef ptr = LLVMPointerTypeInContext(llc, 0), i64 = LLVMInt64TypeInContext(llc);
    LLVMTypeRef pt[3] = { ptr, i64, ptr };
    LLVMValueRef d = LLVMAddFunction(mod, "scalar_run", LLVMFunctionType(LLVMVoidTypeInContext(llc), pt, 3, 0));
    LLVMBuilderRef b = LLVMCreateBuilderInContext(llc);
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(llc, d, "entry"));
    LLVMTypeRef ft = LLVMGlobalGetValueType(f), rt = LLVMGetReturnType(ft);
    LLVMValueRef p[16];
    for (unsigned l = 0; l < w; l++) {
        LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(llc, d, "run");
        LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(llc, d, "next");
        LLVMValueRef bit = LLVMBuildAnd(b, LLVMBuildLShr(b, LLVMGetParam(d, 1), LLVMConstInt(i64, l, 0), ""),
                                        LLVMConstInt(i64, 1, 0), "");
        LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, bit, LLVMConstInt(i64, 0, 0), ""), run, next);
        LLVMPositionBuilderAtEnd(b, run);
        load_params(b, f, LLVMGetParam(d, 0), p, kinds, w, (int)l);
        LLVMValueRef r = LLVMBuildCall2(b, ft, f, p, LLVMCountParams(f), "");
        if (LLVMGetTypeKind(rt) != LLVMVoidTypeKind)
            LLVMBuildStore(b, r,
                           LLVMBuildGEP2(b, rt, LLVMGetParam(d, 2), (LLVMValueRef[]){ LLVMConstInt(i64, l, 0) }, 1,
                                         ""));
        LLVMBuildBr(b, next);
        LLVMPositionBuilderAtEnd(b, next);
    }
    LLVMBuildRetVoid(b);
    LLVMDisposeBuilder(b);
}

/* vector_run(args, mask, ret): the vector function once. */
static void build_vector_driver(LLVMModuleRef mod, LLVMValueRef f, LLVMValueRef vf, const jit_simd_arg *kinds,
                                unsigned w)
{
    LLVMContextRef llc = LLVMGetModuleContext(mod);
    LLVMTypeRef ptr = LLVMPointerTypeInContext(llc, 0), i64 = LLVMInt64TypeInContext(llc);
    LLVMTypeRef pt[3] = { ptr, i64, ptr };
    LLVMValueRef d = LLVMAddFunction(mod, "vector_run", LLVMFunctionType(LLVMVoidTypeInContext(llc), pt, 3, 0));
    LLVMBuilderRef b = LLVMCreateBuilderInContext(llc);
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(llc, d, "entry"));
    LLVMValueRef p[17];
    unsigned n = LLVMCountParams(f);
    load_params(b, f, LLVMGetParam(d, 0), p, kinds, w, -1);
    LLVMValueRef bits = LLVMBuildTrunc(b, LLVMGetParam(d, 1), LLVMIntTypeInContext(llc, w), "");
    p[n] = LLVMBuildBitCast(b, bits, LLVMVectorType(LLVMInt1TypeInContext(llc), w), "");
    LLVMTypeRef vft = LLVMGlobalGetValueType(vf);
    LLVMValueRef r = LLVMBuildCall2(b, vft, vf, p, n + 1, "");
    if (LLVMGetTypeKind(LLVMGetReturnType(vft)) != LLVMVoidTypeKind)
        LLVMSetAlignment(LLVMBuildStore(b, r, LLVMGetParam(d, 2)), 1); /* the buffer is not vector-aligned */
    LLVMBuildRetVoid(b);
    LLVMDisposeBuilder(b);
}

/* The vector code the tiers run: the quick tier's preparation with the code
 * as built (O0), the full one optimized (O2). */
static jit_simd_prep prep_at(int opt)
{
    return opt ? JIT_SIMD_PREP_FULL : JIT_SIMD_PREP_QUICK;
}

/* Parses, prepares (prep_at) and vectorizes @f, adds the drivers, compiles
 * at `opt`.  False when something failed (printed); t->rc is the
 * vectorizer's answer. */
static bool vt_build(vt *t, const char *ir, const jit_simd_arg *kinds, unsigned w, int opt)
{
    memset(t, 0, sizeof *t);
    spv_diag diag = { { 0 } };
    t->llc = LLVMContextCreate();
    LLVMModuleRef mod = tir_parse(t->llc, ir);
    if (!mod)
        return false;
    LLVMTargetMachineRef tm = jit_host_target_machine(opt, &diag);
    if (!tm) {
        fprintf(stderr, "%s\n", diag.msg);
        LLVMDisposeModule(mod);
        return false;
    }
    LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
    LLVMSetModuleDataLayout(mod, td);
    char *triple = LLVMGetTargetMachineTriple(tm);
    LLVMSetTarget(mod, triple);
    LLVMDisposeMessage(triple);
    bool ok = !jit_simd_prepare(mod, NULL, NULL, 0, prep_at(opt), t->msg);
    LLVMValueRef f = LLVMGetNamedFunction(mod, "f"), vf = NULL;
    if (ok) {
        jit_simd_request r = { .fn = f, .args = kinds, .width = w, .name = "f.simd", .td = td };
        t->rc = jit_simd_vectorize(&r, &vf, t->msg);
        ok = t->rc == 0;
        t->vf_text = ok ? tir_print(vf) : NULL;
    }
    if (ok) {
        LLVMTypeRef rt = LLVMGetReturnType(LLVMGlobalGetValueType(f));
        t->ret_size = LLVMGetTypeKind(rt) == LLVMVoidTypeKind ? 0 : (unsigned)LLVMABISizeOfType(td, rt);
        jit_sg_lower_scalar(mod); /* what the scalar function keeps: sub-groups of one */
        build_scalar_driver(mod, f, kinds, w);
        build_vector_driver(mod, f, vf, kinds, w);
        char *err = NULL;
        if (LLVMVerifyModule(mod, LLVMReturnStatusAction, &err)) {
            fprintf(stderr, "the vector function does not verify: %s\n", err);
            char *text = tir_print(vf);
            fprintf(stderr, "%s\n", text);
            free(text);
            ok = false;
        }
        LLVMDisposeMessage(err);
    }
    LLVMMemoryBufferRef obj = NULL;
    if (ok && !jit_optimize(mod, tm, opt, &diag))
        obj = jit_emit_object(mod, tm, &diag);
    LLVMDisposeModule(mod);
    LLVMDisposeTargetData(td);
    LLVMDisposeTargetMachine(tm);
    if (!ok)
        return false;
    if (!obj) {
        fprintf(stderr, "%s\n", diag.msg);
        return false;
    }
    const char *names[2] = { "scalar_run", "vector_run" };
    void *addrs[2];
    t->code = jit_link_object(obj, names, addrs, 2, &diag);
    if (!t->code) {
        fprintf(stderr, "%s\n", diag.msg);
        return false;
    }
    t->scalar = (run_fn)addrs[0];
    t->vector = (run_fn)addrs[1];
    return true;
}

static void vt_free(vt *t)
{
    free(t->vf_text);
    jit_code_free(t->code);
    LLVMContextDispose(t->llc);
}

static uint64_t mask_pattern(unsigned k, unsigned w, uint64_t *rng)
{
    uint64_t all = w == 64 ? ~0ull : (1ull << w) - 1;
    switch (k) {
    case 0:
        return all;
    case 1:
        return all >> 3; /* a partial last sub-group */
    case 2:
        return all & 0x5555555555555555ull;
    case 3:
        return 1ull << (w - 2);
    default: {
        uint64_t m = test_rand_u64(rng) & all;
        return m ? m : 1;
    }
    }
}

enum { NMASKS = 7 };

static const jit_simd_arg f_args[4] = { JIT_SIMD_ARG_CONSECUTIVE, JIT_SIMD_ARG_UNIFORM, JIT_SIMD_ARG_UNIFORM,
                                        JIT_SIMD_ARG_UNIFORM };

/* f(i, in, out, n) vectorized at widths 4, 8, 16 and O0, O2 must equal the
 * scalar runs; `n` is the uniform argument; `in` holds values masked by in_mask. */
static void check_against_scalar(const char *what, const char *ir, uint32_t n, uint32_t in_mask)
{
    static const unsigned widths[3] = { 4, 8, 16 };
    uint64_t rng = 0x5eed + strlen(what);
    for (unsigned wi = 0; wi < 3; wi++)
        for (int opt = 0; opt <= 2; opt += 2) {
            unsigned w = widths[wi];
            vt t;
            bool built = vt_build(&t, ir, f_args, w, opt);
            if (!built) {
                CHECK(false, "%s: W=%u O%d: not built (%d: %s)", what, w, opt, t.rc, t.msg);
                vt_free(&t);
                return;
            }
            for (unsigned base = 0; base < 3 * w && !test_failed_now(); base += w)
                for (unsigned mk = 0; mk < NMASKS; mk++) {
                    uint64_t mask = mask_pattern(mk, w, &rng);
                    int32_t in[NBUF], in_v[NBUF], out_s[NBUF], out_v[NBUF];
                    uint8_t ret_s[MAXW * 8], ret_v[MAXW * 8];
                    for (unsigned i = 0; i < NBUF; i++) {
                        in[i] = (int32_t)((uint32_t)(test_rand_u64(&rng) & in_mask) - in_mask / 4);
                        out_s[i] = out_v[i] = (int32_t)0xdeadbeef;
                    }
                    memcpy(in_v, in, sizeof in);
                    memset(ret_s, 0, sizeof ret_s);
                    memset(ret_v, 0, sizeof ret_v);
                    uint64_t args_s[4] = { base, (uintptr_t)in, (uintptr_t)out_s, n };
                    uint64_t args_v[4] = { base, (uintptr_t)in_v, (uintptr_t)out_v, n };
                    t.scalar(args_s, mask, ret_s);
                    t.vector(args_v, mask, ret_v);
                    unsigned bad = NBUF;
                    for (unsigned i = 0; i < NBUF && bad == NBUF; i++)
                        if (out_s[i] != out_v[i] || in[i] != in_v[i])
                            bad = i;
                    CHECK(bad == NBUF, "%s: W=%u O%d base %u mask %#llx: out[%u] %d (scalar) != %d (vector)", what, w,
                          opt, base, (unsigned long long)mask, bad, bad < NBUF ? out_s[bad] : 0,
                          bad < NBUF ? out_v[bad] : 0);
                    for (unsigned l = 0; l < w && t.ret_size; l++)
                        if (mask >> l & 1)
                            CHECK(!memcmp(ret_s + l * t.ret_size, ret_v + l * t.ret_size, t.ret_size),
                                  "%s: W=%u O%d mask %#llx: lane %u returned a different value", what, w, opt,
                                  (unsigned long long)mask, l);
                    if (test_failed_now())
                        break;
                }
            vt_free(&t);
            if (test_failed_now())
                return;
        }
}

#define PROLOGUE                                                                                                       \
    "  %ix = zext i32 %i to i64\n"                                                                                     \
    "  %pin = getelementptr inbounds i32, ptr %in, i64 %ix\n"                                                          \
    "  %x = load i32, ptr %pin\n"                                                                                      \
    "  %pout = getelementptr inbounds i32, ptr %out, i64 %ix\n"
/* out[i] = v, the function's end (for functions without the prologue) */
#define STORE_OUT(v)                                                                                                   \
    "  %ix = zext i32 %i to i64\n  %q = getelementptr inbounds i32, ptr %out, i64 %ix\n"                               \
    "  store i32 " v ", ptr %q\n  ret void\n}\n"

TEST_TIER_FREE(simd_straight_line)
{
    check_against_scalar("straight",
                         "define void @f(i32 %i, ptr %in, ptr %out, i32 %n) {\nentry:\n" PROLOGUE
                         "  %y = mul i32 %x, 3\n"
                         "  %z = add i32 %y, %n\n"
                         "  store i32 %z, ptr %pout\n"
                         "  ret void\n}\n",
                         7, 0xffff);
}

/* Bit casts between LLVM vectors and types of other element counts (OpenCL's
 * as_ushort2, as_uint of a uchar4, ...): each lane reinterprets its own bits
 * (piglit's load-lo16 compiled a bit cast of <W x i32> to <W x i16> once). */
TEST_TIER_FREE(simd_bit_casts_across_element_counts)
{
    check_against_scalar("bit casts",
                         "define void @f(i32 %i, ptr %in, ptr %out, i32 %n) {\nentry:\n" PROLOGUE
                         "  %h = bitcast i32 %x to <2 x i16>\n"
                         "  %h1 = add <2 x i16> %h, <i16 1, i16 -3>\n"
                         "  %b = bitcast <2 x i16> %h1 to <4 x i8>\n"
                         "  %b1 = xor <4 x i8> %b, <i8 90, i8 1, i8 2, i8 3>\n"
                         "  %y = bitcast <4 x i8> %b1 to i32\n"
                         "  %f = bitcast <2 x i16> %h1 to float\n"
                         "  %fi = bitcast float %f to i32\n"
                         "  %l = zext i32 %x to i64\n"
                         "  %l1 = shl i64 %l, 20\n"
                         "  %v = bitcast i64 %l1 to <2 x i32>\n"
                         "  %v1 = add <2 x i32> %v, <i32 7, i32 11>\n"
                         "  %q = bitcast <2 x i32> %v1 to <8 x i8>\n"
                         "  %q1 = bitcast <8 x i8> %q to i64\n"
                         "  %q2 = lshr i64 %q1, 13\n"
                         "  %t = trunc i64 %q2 to i32\n"
                         "  %x8 = trunc i32 %x to i8\n"
                         "  %m = bitcast i8 %x8 to <8 x i1>\n"
                         "  %m1 = xor <8 x i1> %m, <i1 1, i1 0, i1 0, i1 1, i1 0, i1 0, i1 0, i1 1>\n"
                         "  %mb = bitcast <8 x i1> %m1 to i8\n"
                         "  %me = zext i8 %mb to i32\n"
                         "  %z0 = add i32 %y, %fi\n"
                         "  %z1 = xor i32 %z0, %t\n"
                         "  %z = add i32 %z1, %me\n"
                         "  store i32 %z, ptr %pout\n"
                         "  ret void\n}\n",
                         7, 0xffffffff);
}

TEST_TIER_FREE(simd_if_else_phi)
{
    check_against_scalar("if/else",
                         "define void @f(i32 %i, ptr %in, ptr %out, i32 %n) {\nentry:\n" PROLOGUE
                         "  %c = icmp sgt i32 %x, 0\n"
                         "  br i1 %c, label %pos, label %neg\n"
                         "pos:\n  %a = mul i32 %x, 2\n  br label %join\n"
                         "neg:\n  %b = sub i32 0, %x\n  %b2 = add i32 %b, %n\n  br label %join\n"
                         "join:\n  %r = phi i32 [ %a, %pos ], [ %b2, %neg ]\n"
                         "  store i32 %r, ptr %pout\n  ret void\n}\n",
                         5, 0xff);
}

TEST_TIER_FREE(simd_early_return)
{
    check_against_scalar("early return",
                         "define void @f(i32 %i, ptr %in, ptr %out, i32 %n) {\nentry:\n"
                         "  %c = icmp uge i32 %i, %n\n"
                         "  br i1 %c, label %done, label %body\n"
                         "body:\n" PROLOGUE "  %y = add i32 %x, 1\n  store i32 %y, ptr %pout\n"
                         "  br label %done\n"
                         "done:\n  ret void\n}\n",
                         21, 0xff);
}

TEST_TIER_FREE(simd_divergent_loop)
{
    check_against_scalar("divergent loop",
                         "define void @f(i32 %i, ptr %in, ptr %out, i32 %n) {\nentry:\n" PROLOGUE
                         "  %cnt = and i32 %x, 15\n  br label %h\n"
                         "h:\n  %k = phi i32 [ 0, %entry ], [ %k1, %latch ]\n"
                         "  %acc = phi i32 [ %n, %entry ], [ %acc1, %latch ]\n"
                         "  %c = icmp ult i32 %k, %cnt\n  br i1 %c, label %latch, label %exit\n"
                         "latch:\n  %sq = mul i32 %k, %k\n  %acc1 = add i32 %acc, %sq\n  %k1 = add i32 %k, 1\n"
                         "  br label %h\n"
                         "exit:\n  store i32 %acc, ptr %pout\n  ret void\n}\n",
                         3, 0xffff);
}

TEST_TIER_FREE(simd_uniform_loop_under_divergent_branch)
{
    check_against_scalar("uniform loop in divergent if",
                         "define void @f(i32 %i, ptr %in, ptr %out, i32 %n) {\nentry:\n" PROLOGUE
                         "  %odd = and i32 %x, 1\n  %c = icmp ne i32 %odd, 0\n  br i1 %c, label %pre, label %skip\n"
                         "pre:\n  br label %h\n"
                         "h:\n  %k = phi i32 [ 0, %pre ], [ %k1, %h ]\n  %acc = phi i32 [ %x, %pre ], [ %acc1, %h ]\n"
                         "  %kx = zext i32 %k to i64\n  %pk = getelementptr inbounds i32, ptr %in, i64 %kx\n"
                         "  %v = load i32, ptr %pk\n  %acc1 = add i32 %acc, %v\n  %k1 = add i32 %k, 1\n"
                         "  %c2 = icmp ult i32 %k1, %n\n  br i1 %c2, label %h, label %after\n"
                         "after:\n  store i32 %acc1, ptr %pout\n  br label %skip\n"
                         "skip:\n  ret void\n}\n",
                         13, 0xffff);
}

TEST_TIER_FREE(simd_uniform_exit_in_divergent_block)
{
    /* odd lanes leave at k == 5 through a uniform condition tested under a
     * varying one: the loop is left at different iterations */
    check_against_scalar(
        "uniform exit under varying branch",
        "define void @f(i32 %i, ptr %in, ptr %out, i32 %n) {\nentry:\n" PROLOGUE "  br label %h\n"
        "h:\n  %k = phi i32 [ 0, %entry ], [ %k1, %latch ]\n"
        "  %odd = and i32 %x, 1\n  %isodd = icmp ne i32 %odd, 0\n"
        "  br i1 %isodd, label %chk, label %latch\n"
        "chk:\n  store i32 %k, ptr %pout\n  %five = icmp eq i32 %k, 5\n"
        "  br i1 %five, label %early, label %latch\n"
        "latch:\n  %k1 = add i32 %k, 1\n  %c = icmp ult i32 %k1, %n\n  br i1 %c, label %h, label %exit\n"
        "early:\n  %e = mul i32 %k, 100\n  br label %join\n"
        "exit:\n  br label %join\n"
        "join:\n  %r = phi i32 [ %e, %early ], [ %k1, %exit ]\n"
        "  %r2 = add i32 %r, %k\n  store i32 %r2, ptr %pout\n  ret void\n}\n",
        10, 0xff);
}

/* A uniform branch between a divergent region and a block every lane runs:
 * the schedule must not run that block on the way when the branch went the
 * other way (the shape of a reduction's last step). */
TEST_TIER_FREE(simd_uniform_branch_skips_converged_block)
{
    check_against_scalar("uniform branch around a converged block",
                         "define i32 @f(i32 %i, ptr %in, ptr %out, i32 %n) {\nentry:\n" PROLOGUE
                         "  %more = icmp ugt i32 %n, 1\n  br i1 %more, label %body, label %last\n"
                         "body:\n  %c = icmp ult i32 %i, %n\n  br i1 %c, label %add, label %wait\n"
                         "add:\n  %y = add i32 %x, %n\n  store i32 %y, ptr %pout\n  br label %wait\n"
                         "wait:\n  ret i32 2\n"
                         "last:\n  %z = icmp eq i32 %i, 0\n  br i1 %z, label %write, label %done\n"
                         "write:\n  store i32 %x, ptr %out\n  br label %done\n"
                         "done:\n  ret i32 0\n}\n",
                         3, 0xff);
    check_against_scalar("uniform branch around a converged block, taken",
                         "define i32 @f(i32 %i, ptr %in, ptr %out, i32 %n) {\nentry:\n" PROLOGUE
                         "  %more = icmp ugt i32 %n, 1\n  br i1 %more, label %body, label %last\n"
                         "body:\n  %c = icmp ult i32 %i, %n\n  br i1 %c, label %add, label %wait\n"
                         "add:\n  %y = add i32 %x, %n\n  store i32 %y, ptr %pout\n  br label %wait\n"
                         "wait:\n  ret i32 2\n"
                         "last:\n  %z = icmp eq i32 %i, 0\n  br i1 %z, label %write, label %done\n"
                         "write:\n  store i32 %x, ptr %out\n  br label %done\n"
                         "done:\n  ret i32 0\n}\n",
                         1, 0xff);
}

/* Conditions computed in the entry block and branched on later (the copy in
 * one work-item of VK-GL-CTS's copy_memory_two_invocations): the any-test of
 * a comparison whose operands the later block does not have. */
TEST_TIER_FREE(simd_condition_from_an_earlier_block)
{
    check_against_scalar("conditions from the entry block",
                         "define i32 @f(i32 %i, ptr %in, ptr %out, i32 %n) {\nentry:\n" PROLOGUE
                         "  %a = icmp eq i32 %i, %n\n  %k = add i32 %n, 3\n  %b = icmp eq i32 %i, %k\n"
                         "  br i1 %a, label %one, label %mid\n"
                         "one:\n  store i32 %x, ptr %out\n  br label %mid\n"
                         "mid:\n  br i1 %b, label %two, label %done\n"
                         "two:\n  store i32 %x, ptr %pout\n  br label %done\n"
                         "done:\n  ret i32 0\n}\n",
                         2, 0xff);
}

TEST_TIER_FREE(simd_nested_loops_break)
{
    check_against_scalar("nested loops, two-level break",
                         "define void @f(i32 %i, ptr %in, ptr %out, i32 %n) {\nentry:\n" PROLOGUE "  br label %oh\n"
                         "oh:\n  %a = phi i32 [ 0, %entry ], [ %a1, %olatch ]\n  br label %ih\n"
                         "ih:\n  %b = phi i32 [ 0, %oh ], [ %b1, %ilatch ]\n  %s = add i32 %a, %b\n"
                         "  %t = and i32 %x, 15\n  %c = icmp eq i32 %s, %t\n  br i1 %c, label %found, label %ilatch\n"
                         "ilatch:\n  %b1 = add i32 %b, 1\n  %cb = icmp ult i32 %b1, 4\n"
                         "  br i1 %cb, label %ih, label %olatch\n"
                         "olatch:\n  %a1 = add i32 %a, 1\n  %ca = icmp ult i32 %a1, %n\n"
                         "  br i1 %ca, label %oh, label %notfound\n"
                         "found:\n  %v = mul i32 %a, 10\n  %v2 = add i32 %v, %b\n  store i32 %v2, ptr %pout\n"
                         "  ret void\n"
                         "notfound:\n  store i32 -1, ptr %pout\n  ret void\n}\n",
                         5, 0xff);
}

TEST_TIER_FREE(simd_switch)
{
    check_against_scalar("varying switch",
                         "define void @f(i32 %i, ptr %in, ptr %out, i32 %n) {\nentry:\n" PROLOGUE
                         "  %s = and i32 %x, 3\n"
                         "  switch i32 %s, label %d [ i32 0, label %a\n i32 1, label %b\n"
                         " i32 2, label %a\n i32 3, label %d ]\n"
                         "a:\n  br label %j\nb:\n  %bb = add i32 %x, 7\n  br label %j\n"
                         "d:\n  br label %j\n"
                         "j:\n  %r = phi i32 [ 10, %a ], [ %bb, %b ], [ 30, %d ]\n"
                         "  store i32 %r, ptr %pout\n  ret void\n}\n",
                         0, 0xff);
    check_against_scalar("uniform switch",
                         "define void @f(i32 %i, ptr %in, ptr %out, i32 %n) {\nentry:\n" PROLOGUE
                         "  switch i32 %n, label %d [ i32 0, label %a\n i32 1, label %b ]\n"
                         "a:\n  br label %j\nb:\n  %bb = add i32 %x, 7\n  br label %j\n"
                         "d:\n  br label %j\n"
                         "j:\n  %r = phi i32 [ 10, %a ], [ %bb, %b ], [ %x, %d ]\n"
                         "  store i32 %r, ptr %pout\n  ret void\n}\n",
                         1, 0xff);
}

TEST_TIER_FREE(simd_gather_scatter)
{
    check_against_scalar("gather",
                         "define void @f(i32 %i, ptr %in, ptr %out, i32 %n) {\nentry:\n" PROLOGUE
                         "  %j = and i32 %x, 255\n  %jx = zext i32 %j to i64\n"
                         "  %pj = getelementptr inbounds i32, ptr %in, i64 %jx\n  %v = load i32, ptr %pj\n"
                         "  store i32 %v, ptr %pout\n  ret void\n}\n",
                         0, 0xffff);
    check_against_scalar("scatter",
                         "define void @f(i32 %i, ptr %in, ptr %out, i32 %n) {\nentry:\n" PROLOGUE
                         "  %j = mul i32 %i, 5\n  %j2 = and i32 %j, 63\n  %jx = zext i32 %j2 to i64\n"
                         "  %pj = getelementptr inbounds i32, ptr %out, i64 %jx\n"
                         "  store i32 %x, ptr %pj\n  ret void\n}\n",
                         0, 0xffff);
    check_against_scalar("strided",
                         "define void @f(i32 %i, ptr %in, ptr %out, i32 %n) {\nentry:\n"
                         "  %ix = zext i32 %i to i64\n  %j = mul i64 %ix, 3\n"
                         "  %pj = getelementptr inbounds i32, ptr %in, i64 %j\n  %v = load i32, ptr %pj\n"
                         "  %q = getelementptr inbounds i32, ptr %out, i64 %j\n"
                         "  store i32 %v, ptr %q\n  ret void\n}\n",
                         0, 0xffff);
    /* every lane stores to one place: the last active lane's value stays */
    check_against_scalar("uniform address",
                         "define void @f(i32 %i, ptr %in, ptr %out, i32 %n) {\nentry:\n" PROLOGUE
                         "  store i32 %x, ptr %out\n  %u = load i32, ptr %in\n"
                         "  %q = getelementptr inbounds i32, ptr %out, i64 1\n"
                         "  store i32 %u, ptr %q\n  ret void\n}\n",
                         0, 0xffff);
}

/* i32 index arithmetic: the index might wrap within the lanes as far as the
 * shapes know, so the access tests that at run time. */
TEST_TIER_FREE(simd_extended_index)
{
    check_against_scalar("sext of an i32 index",
                         "define void @f(i32 %i, ptr %in, ptr %out, i32 %n) {\nentry:\n"
                         "  %j = add i32 %i, %n\n  %jx = sext i32 %j to i64\n"
                         "  %pj = getelementptr inbounds i32, ptr %in, i64 %jx\n"
                         "  %v = load i32, ptr %pj\n"
                         "  %q = getelementptr inbounds i32, ptr %out, i64 %jx\n"
                         "  store i32 %v, ptr %q\n  ret void\n}\n",
                         37, 0xffff);
    check_against_scalar("zext of an i32 index, scaled",
                         "define void @f(i32 %i, ptr %in, ptr %out, i32 %n) {\nentry:\n"
                         "  %j = add i32 %i, %n\n  %jx = zext i32 %j to i64\n"
                         "  %o = shl i64 %jx, 2\n"
                         "  %pj = getelementptr inbounds i8, ptr %in, i64 %o\n"
                         "  %v = load i32, ptr %pj\n"
                         "  %q = getelementptr inbounds i8, ptr %out, i64 %o\n"
                         "  store i32 %v, ptr %q\n  ret void\n}\n",
                         3, 0xffff);
}

TEST_TIER_FREE(simd_clamped_stencil)
{
    check_against_scalar("clamped stencil",
                         "declare i32 @llvm.smax.i32(i32, i32)\ndeclare i32 @llvm.smin.i32(i32, i32)\n"
                         "define void @f(i32 %i, ptr %in, ptr %out, i32 %n) {\nentry:\n"
                         "  %nm1 = sub i32 %n, 1\n"
                         "  %im1 = sub i32 %i, 1\n  %l0 = call i32 @llvm.smax.i32(i32 %im1, i32 0)\n"
                         "  %l1 = call i32 @llvm.smin.i32(i32 %l0, i32 %nm1)\n"
                         "  %ip1 = add i32 %i, 1\n  %r0 = call i32 @llvm.smax.i32(i32 %ip1, i32 0)\n"
                         "  %r1 = call i32 @llvm.smin.i32(i32 %r0, i32 %nm1)\n"
                         "  %lx = sext i32 %l1 to i64\n  %rx = sext i32 %r1 to i64\n"
                         "  %pl = getelementptr inbounds i32, ptr %in, i64 %lx\n  %a = load i32, ptr %pl\n"
                         "  %pr = getelementptr inbounds i32, ptr %in, i64 %rx\n  %b = load i32, ptr %pr\n"
                         "  %s = add i32 %a, %b\n  %ix = zext i32 %i to i64\n"
                         "  %pout = getelementptr inbounds i32, ptr %out, i64 %ix\n  store i32 %s, ptr %pout\n"
                         "  ret void\n}\n",
                         21, 0xffff);
}

/* Nine taps of a clamp-to-edge stencil in i32 arithmetic (bounds known only
 * at run time, as an image's size is), rows and columns clamped, sharing
 * their tests: the last row's clamp always active, the first row's with
 * n = 0, the columns' at the sub-groups' edges. */
TEST_TIER_FREE(simd_clamped_stencil_3x3)
{
    static const char ir[] =
        "declare i32 @llvm.smax.i32(i32, i32)\ndeclare i32 @llvm.smin.i32(i32, i32)\n"
        "define void @f(i32 %i, ptr %in, ptr %out, i32 %n) {\nentry:\n"
        "  %ya = add i32 %n, -1\n  %yb = add i32 %n, 1\n  %w = add i32 %n, 37\n"
        "  %r0a = call i32 @llvm.smax.i32(i32 %ya, i32 0)\n  %r0b = call i32 @llvm.smin.i32(i32 %r0a, i32 %n)\n"
        "  %r1a = call i32 @llvm.smax.i32(i32 %n, i32 0)\n  %r1b = call i32 @llvm.smin.i32(i32 %r1a, i32 %n)\n"
        "  %r2a = call i32 @llvm.smax.i32(i32 %yb, i32 0)\n  %r2b = call i32 @llvm.smin.i32(i32 %r2a, i32 %n)\n"
        "  %r0 = mul i32 %r0b, 23\n  %r1 = mul i32 %r1b, 23\n  %r2 = mul i32 %r2b, 23\n"
        "  %xa = add i32 %i, -1\n  %xb = add i32 %i, 1\n"
        "  %c0a = call i32 @llvm.smax.i32(i32 %xa, i32 0)\n  %c0 = call i32 @llvm.smin.i32(i32 %c0a, i32 %w)\n"
        "  %c1a = call i32 @llvm.smax.i32(i32 %i, i32 0)\n  %c1 = call i32 @llvm.smin.i32(i32 %c1a, i32 %w)\n"
        "  %c2a = call i32 @llvm.smax.i32(i32 %xb, i32 0)\n  %c2 = call i32 @llvm.smin.i32(i32 %c2a, i32 %w)\n"
        "  %i00 = add i32 %r0, %c0\n  %i01 = add i32 %r0, %c1\n  %i02 = add i32 %r0, %c2\n"
        "  %i10 = add i32 %r1, %c0\n  %i11 = add i32 %r1, %c1\n  %i12 = add i32 %r1, %c2\n"
        "  %i20 = add i32 %r2, %c0\n  %i21 = add i32 %r2, %c1\n  %i22 = add i32 %r2, %c2\n"
        "  %e00 = sext i32 %i00 to i64\n  %p00 = getelementptr inbounds i32, ptr %in, i64 %e00\n"
        "  %v00 = load i32, ptr %p00\n"
        "  %e01 = sext i32 %i01 to i64\n  %p01 = getelementptr inbounds i32, ptr %in, i64 %e01\n"
        "  %v01 = load i32, ptr %p01\n  %s01 = mul i32 %v01, 2\n  %a1 = add i32 %v00, %s01\n"
        "  %e02 = sext i32 %i02 to i64\n  %p02 = getelementptr inbounds i32, ptr %in, i64 %e02\n"
        "  %v02 = load i32, ptr %p02\n  %a2 = add i32 %a1, %v02\n"
        "  %e10 = sext i32 %i10 to i64\n  %p10 = getelementptr inbounds i32, ptr %in, i64 %e10\n"
        "  %v10 = load i32, ptr %p10\n  %s10 = mul i32 %v10, 3\n  %a3 = add i32 %a2, %s10\n"
        "  %e11 = sext i32 %i11 to i64\n  %o11 = shl i64 %e11, 2\n  %p11 = getelementptr inbounds i8, ptr %in, i64 "
        "%o11\n"
        "  %v11 = load i32, ptr %p11\n  %s11 = mul i32 %v11, 5\n  %a4 = add i32 %a3, %s11\n"
        "  %e12 = sext i32 %i12 to i64\n  %p12 = getelementptr inbounds i32, ptr %in, i64 %e12\n"
        "  %v12 = load i32, ptr %p12\n  %s12 = mul i32 %v12, 7\n  %a5 = add i32 %a4, %s12\n"
        "  %e20 = sext i32 %i20 to i64\n  %p20 = getelementptr inbounds i32, ptr %in, i64 %e20\n"
        "  %v20 = load i32, ptr %p20\n  %a6 = sub i32 %a5, %v20\n"
        "  %e21 = sext i32 %i21 to i64\n  %p21 = getelementptr inbounds i32, ptr %in, i64 %e21\n"
        "  %v21 = load i32, ptr %p21\n  %s21 = mul i32 %v21, 11\n  %a7 = add i32 %a6, %s21\n"
        "  %e22 = sext i32 %i22 to i64\n  %o22 = mul i64 %e22, 4\n  %p22 = getelementptr inbounds i8, ptr %in, i64 "
        "%o22\n"
        "  %v22 = load i32, ptr %p22\n  %a8 = xor i32 %a7, %v22\n" STORE_OUT("%a8");
    check_against_scalar("3x3 stencil, first row clamped", ir, 0, 0xffff);
    check_against_scalar("3x3 stencil", ir, 3, 0xffff);
    check_against_scalar("3x3 stencil, lower", ir, 6, 0xffff);
}

/* f's start for i8 indices from the middle of `in` (%mid): %t the lane's, %n8 n's */
#define I8_PROLOGUE                                                                                                    \
    "define void @f(i32 %i, ptr %in, ptr %out, i32 %n) {\nentry:\n"                                                    \
    "  %mid = getelementptr inbounds i8, ptr %in, i64 512\n"                                                           \
    "  %t = trunc i32 %i to i8\n  %n8 = trunc i32 %n to i8\n"

/* Gathers and scatters by 32-bit indices, sign-extended (negative ones
 * from a pointer into the middle of the buffer) and scaled by a GEP's type,
 * a shift or a multiply; an i8 index that wraps within the lanes. */
TEST_TIER_FREE(simd_gather_extended_index)
{
    check_against_scalar("decreasing i32 index",
                         "define void @f(i32 %i, ptr %in, ptr %out, i32 %n) {\nentry:\n"
                         "  %j = mul i32 %i, -3\n  %k = add i32 %j, %n\n  %kx = sext i32 %k to i64\n"
                         "  %p = getelementptr inbounds i32, ptr %in, i64 %kx\n  %v = load i32, ptr %p\n" STORE_OUT(
                             "%v"),
                         200, 0xffff);
    check_against_scalar("negative i32 index",
                         "define void @f(i32 %i, ptr %in, ptr %out, i32 %n) {\nentry:\n"
                         "  %mid = getelementptr inbounds i32, ptr %in, i64 128\n"
                         "  %j = mul i32 %i, -5\n  %k = add i32 %j, %n\n  %kx = sext i32 %k to i64\n"
                         "  %o = shl i64 %kx, 2\n  %p = getelementptr inbounds i8, ptr %mid, i64 %o\n"
                         "  %v = load i32, ptr %p\n" STORE_OUT("%v"),
                         110, 0xffff);
    check_against_scalar("scatter by a scaled i32 index",
                         "define void @f(i32 %i, ptr %in, ptr %out, i32 %n) {\nentry:\n" PROLOGUE
                         "  %j = mul i32 %i, 5\n  %jx = sext i32 %j to i64\n  %o = mul i64 %jx, 4\n"
                         "  %q = getelementptr inbounds i8, ptr %out, i64 %o\n  store i32 %x, ptr %q\n"
                         "  ret void\n}\n",
                         0, 0xffff);
    /* i16 elements at an i8 index from the buffer's middle: wrapped and not, they differ */
    static const char i8_index[] =
        I8_PROLOGUE "  %j = add i8 %t, %n8\n"
                    "  %jx = sext i8 %j to i64\n  %p = getelementptr inbounds i16, ptr %mid, i64 %jx\n"
                    "  %b = load i16, ptr %p\n  %v = zext i16 %b to i32\n" STORE_OUT("%v");
    check_against_scalar("i8 index wrapping within the lanes", i8_index, 120, 0xffffffff);
    check_against_scalar("i8 index wrapping in the last lane", i8_index, 113, 0xffffffff);
    /* a clamp of an index that wraps in the last of 16 lanes: not one vector access */
    check_against_scalar("clamped i32 index wrapping in the last lane",
                         "declare i32 @llvm.smax.i32(i32, i32)\ndeclare i32 @llvm.smin.i32(i32, i32)\n"
                         "define void @f(i32 %i, ptr %in, ptr %out, i32 %n) {\nentry:\n"
                         "  %j = add i32 %i, %n\n  %ja = call i32 @llvm.smax.i32(i32 %j, i32 0)\n"
                         "  %jb = call i32 @llvm.smin.i32(i32 %ja, i32 200)\n  %jx = sext i32 %jb to i64\n"
                         "  %p = getelementptr inbounds i32, ptr %in, i64 %jx\n  %v = load i32, ptr %p\n" STORE_OUT(
                             "%v"),
                         0x7ffffff1u, 0xffff);
}

/* Taps at constant offsets from one index (x - 1, x, x + 1: one range test,
 * addresses a displacement apart), in i8 arithmetic from the buffer's middle
 * so that the index wraps within the lanes, at their edges and not at all;
 * and an i32 index extended to i64 before its offsets are added. */
TEST_TIER_FREE(simd_offset_taps)
{
    static const char i8_taps[] = I8_PROLOGUE
        "  %r = mul i8 %n8, 3\n  %j = add i8 %t, %r\n"
        "  %jl = add i8 %j, -1\n  %jr = add i8 %j, 1\n"
        "  %xl = sext i8 %jl to i64\n  %pl = getelementptr inbounds i32, ptr %mid, i64 %xl\n  %a = load i32, ptr %pl\n"
        "  %xc = sext i8 %j to i64\n  %pc = getelementptr inbounds i32, ptr %mid, i64 %xc\n  %b = load i32, ptr %pc\n"
        "  %pr = getelementptr inbounds i32, ptr %mid, i8 %jr\n  %c = load i32, ptr %pr\n"
        "  %b2 = mul i32 %b, 3\n  %ab = sub i32 %a, %b2\n  %v = xor i32 %ab, %c\n" STORE_OUT("%v");
    /* n: no wrap, the right tap wrapping, wrapping within the lanes, negative */
    static const uint32_t ns[4] = { 5, 37, 40, 80 };
    for (unsigned k = 0; k < 4 && !test_failed_now(); k++) {
        char what[32];
        snprintf(what, sizeof what, "i8 taps, n = %u", ns[k]);
        check_against_scalar(what, i8_taps, ns[k], 0xffffffff);
    }
    check_against_scalar("i32 index extended, then offsets",
                         "define void @f(i32 %i, ptr %in, ptr %out, i32 %n) {\nentry:\n"
                         "  %r = mul i32 %n, 7\n  %j = add i32 %i, %r\n  %jx = sext i32 %j to i64\n"
                         "  %jl = add i64 %jx, -1\n  %jr = add nsw i64 %jx, 2\n"
                         "  %pl = getelementptr inbounds i32, ptr %in, i64 %jl\n  %a = load i32, ptr %pl\n"
                         "  %pr = getelementptr inbounds i32, ptr %in, i64 %jr\n  %b = load i32, ptr %pr\n"
                         "  %v = sub i32 %a, %b\n" STORE_OUT("%v"),
                         11, 0xffff);
}

/* The gathers and scatters in the vector function of ir at width 8 (O0). */
static int vector_gathers(const char *ir)
{
    vt t;
    int n = vt_build(&t, ir, f_args, 8, 0) && t.vf_text
                ? test_count(t.vf_text, "@llvm.masked.gather") + test_count(t.vf_text, "@llvm.masked.scatter")
                : -1;
    vt_free(&t);
    return n;
}

/* `if (x <u 256) out[i] = in[x]` for the i32 x that X_IS defines
 * (sign-extended), the load's address %p from LOAD_AT, with or without the
 * mark that every execution of the load lies in the range beginning at its
 * root (JIT_INBOUNDS_MD) */
#define IN_RANGE_LOAD(x_is, load_at, mark)                                                                             \
    "define void @f(i32 %i, ptr %in, ptr %out, i32 %n) {\nentry:\n" x_is                                               \
    "  %ok = icmp ult i32 %x, 256\n  br i1 %ok, label %inb, label %done\n"                                             \
    "inb:\n  %xx = sext i32 %x to i64\n  %o = shl nsw i64 %xx, 2\n" load_at "  %v = load i32, ptr %p" mark "\n"        \
    "  %ix = zext i32 %i to i64\n  %q = getelementptr inbounds i32, ptr %out, i64 %ix\n"                               \
    "  store i32 %v, ptr %q\n  br label %done\ndone:\n  ret void\n}\n!0 = !{}\n"
#define AT_ROOT "  %p = getelementptr inbounds i8, ptr %in, i64 %o\n"
#define X_I_PLUS_N "  %x = add i32 %i, %n\n"

/* The in-bounds link: a marked access whose index is a sign-extended i32
 * value that does not decrease from lane to lane, from a root a constant
 * away, is one vector access without a test of the index's wrap (lanes whose
 * index would wrap are out of the range, inactive); with the other forms
 * (unmarked, decreasing, a root a run-time offset away or selected) the test
 * and its gather stay.  The results equal the scalar function's where the
 * lanes' indices are in the buffer, start below it (lane 0's address before
 * the buffer, inactive), and wrap past INT32_MAX (every lane out of range). */
TEST_TIER_FREE(simd_in_bounds_link)
{
    static const char linked[] = IN_RANGE_LOAD(X_I_PLUS_N, AT_ROOT, ", !spvjit.inbounds !0");
    static const uint32_t ns[5] = { 0, 37, 250, (uint32_t)-3, 0x7ffffffe };
    for (unsigned k = 0; k < 5 && !test_failed_now(); k++) {
        char what[48];
        snprintf(what, sizeof what, "in-bounds load, n = %#x", ns[k]);
        check_against_scalar(what, linked, ns[k], 0xffff);
    }
    struct {
        const char *what, *ir;
    } one_access[] = {
        { "marked, from its root", linked },
        { "an i32 index the GEP extends",
          IN_RANGE_LOAD(X_I_PLUS_N, "  %p = getelementptr inbounds i32, ptr %in, i32 %x\n", ", !spvjit.inbounds !0") },
        { "taps x - 1 and x + 1, a field and an element in",
          "define void @f(i32 %i, ptr %in, ptr %out, i32 %n) {\nentry:\n"
          "  %x = add i32 %i, %n\n  %y = add i32 %x, 1\n  %yx = sext i32 %y to i64\n"
          "  %p = getelementptr inbounds {i64, [0 x i32]}, ptr %in, i64 0, i32 1, i64 %yx\n"
          "  %v = load i32, ptr %p, !spvjit.inbounds !0\n  %z = add i32 %x, -1\n  %zx = sext i32 %z to i64\n"
          "  %o = shl nsw i64 %zx, 2\n  %q = getelementptr inbounds i8, ptr %in, i64 %o\n"
          "  %u = load i32, ptr %q, !spvjit.inbounds !0\n  %vu = add i32 %v, %u\n"
          "  store i32 %vu, ptr %out\n  ret void\n}\n!0 = !{}\n" },
    }, kept[] = {
        { "unmarked", IN_RANGE_LOAD(X_I_PLUS_N, AT_ROOT, "") },
        { "decreasing", IN_RANGE_LOAD("  %x = sub i32 %n, %i\n", AT_ROOT, ", !spvjit.inbounds !0") },
        { "a root a run-time offset away", IN_RANGE_LOAD(X_I_PLUS_N,
                                                         "  %mid = getelementptr inbounds i32, ptr %in, i32 %n\n"
                                                         "  %p = getelementptr inbounds i8, ptr %mid, i64 %o\n",
                                                         ", !spvjit.inbounds !0") },
        { "a root selected", IN_RANGE_LOAD(X_I_PLUS_N,
                                           "  %big = icmp ugt i32 %n, 7\n  %r = select i1 %big, ptr %in, ptr %out\n"
                                           "  %p = getelementptr inbounds i8, ptr %r, i64 %o\n",
                                           ", !spvjit.inbounds !0") },
    };
    for (unsigned k = 0; k < sizeof one_access / sizeof *one_access; k++) {
        int n = vector_gathers(one_access[k].ir);
        CHECK(n == 0, "%s: %d gathers (one vector access expected)", one_access[k].what, n);
    }
    for (unsigned k = 0; k < sizeof kept / sizeof *kept; k++) {
        int n = vector_gathers(kept[k].ir);
        CHECK(n >= 1, "%s: %d gathers (the wrap test's path expected)", kept[k].what, n);
    }
}

TEST_TIER_FREE(simd_private_array)
{
    check_against_scalar("private array",
                         "define void @f(i32 %i, ptr %in, ptr %out, i32 %n) {\nentry:\n"
                         "  %arr = alloca [8 x i32], align 4\n" PROLOGUE "  br label %h\n"
                         "h:\n  %k = phi i32 [ 0, %entry ], [ %k1, %h ]\n"
                         "  %kx = zext i32 %k to i64\n"
                         "  %pa = getelementptr inbounds [8 x i32], ptr %arr, i64 0, i64 %kx\n"
                         "  %v = mul i32 %x, %k\n  store i32 %v, ptr %pa\n  %k1 = add i32 %k, 1\n"
                         "  %c = icmp ult i32 %k1, %n\n  br i1 %c, label %h, label %done\n"
                         "done:\n  %j = and i32 %x, 7\n  %jx = zext i32 %j to i64\n"
                         "  %pj = getelementptr inbounds [8 x i32], ptr %arr, i64 0, i64 %jx\n"
                         "  %r = load i32, ptr %pj\n  store i32 %r, ptr %pout\n  ret void\n}\n",
                         8, 0xff);
}

TEST_TIER_FREE(simd_calls_and_atomics)
{
    check_against_scalar("per-lane call",
                         "declare float @sinf(float)\n"
                         "define void @f(i32 %i, ptr %in, ptr %out, i32 %n) {\nentry:\n" PROLOGUE
                         "  %fx = sitofp i32 %x to float\n  %s = call float @sinf(float %fx)\n"
                         "  %b = bitcast float %s to i32\n  store i32 %b, ptr %pout\n  ret void\n}\n",
                         0, 0xff);
    check_against_scalar("atomics in lane order",
                         "define void @f(i32 %i, ptr %in, ptr %out, i32 %n) {\nentry:\n" PROLOGUE
                         "  %old = atomicrmw add ptr %out, i32 %x seq_cst\n"
                         "  %q = getelementptr inbounds i32, ptr %pout, i64 1\n  store i32 %old, ptr %q\n"
                         "  %c = cmpxchg ptr %in, i32 %x, i32 %i seq_cst seq_cst\n"
                         "  %cv = extractvalue { i32, i1 } %c, 1\n  %cz = zext i1 %cv to i32\n"
                         "  %q2 = getelementptr inbounds i32, ptr %pout, i64 100\n  store i32 %cz, ptr %q2\n"
                         "  ret void\n}\n",
                         0, 0x3);
}

TEST_TIER_FREE(simd_floats_and_vectors)
{
    check_against_scalar("floating point",
                         "declare float @llvm.sqrt.f32(float)\n"
                         "declare float @llvm.fma.f32(float, float, float)\n"
                         "define void @f(i32 %i, ptr %in, ptr %out, i32 %n) {\nentry:\n" PROLOGUE
                         "  %fx = sitofp i32 %x to float\n  %a = call float @llvm.fabs.f32(float %fx)\n"
                         "  %s = call float @llvm.sqrt.f32(float %a)\n"
                         "  %m = call float @llvm.fma.f32(float %s, float 1.5, float %fx)\n"
                         "  %c = fcmp olt float %m, 2.0\n  %r = select i1 %c, float %m, float %s\n"
                         "  %b = bitcast float %r to i32\n  store i32 %b, ptr %pout\n  ret void\n}\n"
                         "declare float @llvm.fabs.f32(float)\n",
                         0, 0xff);
    check_against_scalar(
        "LLVM vectors",
        "declare i32 @llvm.vector.reduce.add.v4i32(<4 x i32>)\n"
        "define void @f(i32 %i, ptr %in, ptr %out, i32 %n) {\nentry:\n"
        "  %ix = zext i32 %i to i64\n  %q = and i64 %ix, 31\n"
        "  %pv = getelementptr inbounds <4 x i32>, ptr %in, i64 %q\n"
        "  %v = load <4 x i32>, ptr %pv, align 4\n"
        "  %w = shufflevector <4 x i32> %v, <4 x i32> poison, <4 x i32> <i32 3, i32 2, i32 1, i32 0>\n"
        "  %e = extractelement <4 x i32> %w, i32 1\n  %ins = insertelement <4 x i32> %w, i32 %i, i32 2\n"
        "  %s = call i32 @llvm.vector.reduce.add.v4i32(<4 x i32> %ins)\n  %t = add i32 %s, %e\n"
        "  %pout = getelementptr inbounds i32, ptr %out, i64 %ix\n  store i32 %t, ptr %pout\n"
        "  %po = getelementptr inbounds <4 x i32>, ptr %out, i64 %q\n"
        "  %po2 = getelementptr inbounds i8, ptr %po, i64 512\n"
        "  store <4 x i32> %ins, ptr %po2, align 4\n  ret void\n}\n",
        0, 0xffff);
}

TEST_TIER_FREE(simd_returned_values)
{
    check_against_scalar("returned value",
                         "define i32 @f(i32 %i, ptr %in, ptr %out, i32 %n) {\nentry:\n" PROLOGUE
                         "  %c = icmp sgt i32 %x, 0\n  br i1 %c, label %a, label %b\n"
                         "a:\n  %y = mul i32 %x, 2\n  ret i32 %y\n"
                         "b:\n  ret i32 %n\n}\n",
                         9, 0xff);
}

/* --- the sub-group markers, against C over the active lanes -------------------------------------- */

#define SG_DECLS                                                                                                       \
    "declare i32 @spvjit.sg.size() #0\n"                                                                               \
    "declare i32 @spvjit.sg.live() #0\n"                                                                               \
    "declare i32 @spvjit.sg.lane() #0\n"                                                                               \
    "declare i32 @spvjit.sg.first() #0\n"                                                                              \
    "declare i1 @spvjit.sg.all(i1) #0\n"                                                                               \
    "declare i1 @spvjit.sg.any(i1) #0\n"                                                                               \
    "declare <4 x i32> @spvjit.sg.ballot(i1) #0\n"                                                                     \
    "declare i32 @spvjit.sg.shuffle.i32(i32, i32) #0\n"                                                                \
    "declare i32 @spvjit.sg.reduce.add.i32(i32) #0\n"                                                                  \
    "declare i32 @spvjit.sg.reduce.smin.i32(i32) #0\n"                                                                 \
    "declare i32 @spvjit.sg.reduce.umax.i32(i32) #0\n"                                                                 \
    "declare float @spvjit.sg.reduce.fadd.f32(float) #0\n"                                                             \
    "declare float @spvjit.sg.reduce.fmin.f32(float) #0\n"                                                             \
    "declare i32 @spvjit.sg.scan.incl.add.i32(i32) #0\n"                                                               \
    "declare i32 @spvjit.sg.scan.excl.add.i32(i32) #0\n"                                                               \
    "declare float @spvjit.sg.scan.incl.fadd.f32(float) #0\n"                                                          \
    "declare i32 @spvjit.sg.clustered.add.i32(i32, i32) #0\n"                                                          \
    "declare i32 @spvjit.sg.clustered.xor.i32(i32, i32) #0\n"                                                          \
    "attributes #0 = { convergent nounwind willreturn memory(inaccessiblemem: readwrite) }\n"

/* Stores marker results of lane i at out[k * 64 + i]; under a varying
 * branch when `under_branch` (lanes with an odd input run it). */
static const char sg_template[] =
    SG_DECLS "define void @f(i32 %i, ptr %in, ptr %out, i32 %n) {\nentry:\n" PROLOGUE
             "  %odd = and i32 %x, 1\n  %isodd = icmp ne i32 %odd, 0\n"
             "  br i1 @COND@, label %run, label %done\n"
             "run:\n"
             "  %fx = sitofp i32 %x to float\n"
             "  %l = call i32 @spvjit.sg.lane()\n"
             "  %r0 = call i32 @spvjit.sg.reduce.add.i32(i32 %x)\n"
             "  %r1 = call i32 @spvjit.sg.scan.incl.add.i32(i32 %x)\n"
             "  %r2 = call i32 @spvjit.sg.scan.excl.add.i32(i32 %x)\n"
             "  %pos = icmp sgt i32 %x, 0\n"
             "  %b = call <4 x i32> @spvjit.sg.ballot(i1 %pos)\n"
             "  %r3 = extractelement <4 x i32> %b, i32 0\n"
             "  %lx = xor i32 %l, 1\n"
             "  %r4 = call i32 @spvjit.sg.shuffle.i32(i32 %x, i32 %lx)\n"
             "  %src = and i32 %x, 15\n"
             "  %r5 = call i32 @spvjit.sg.shuffle.i32(i32 %x, i32 %src)\n"
             "  %fi = call i32 @spvjit.sg.first()\n"
             "  %r6 = call i32 @spvjit.sg.shuffle.i32(i32 %x, i32 %fi)\n"
             "  %al = call i1 @spvjit.sg.all(i1 %pos)\n  %an = call i1 @spvjit.sg.any(i1 %pos)\n"
             "  %el = icmp eq i32 %l, %fi\n"
             "  %a0 = zext i1 %al to i32\n  %a1 = zext i1 %an to i32\n  %a2 = zext i1 %el to i32\n"
             "  %a3 = shl i32 %a1, 1\n  %a4 = shl i32 %a2, 2\n  %a5 = or i32 %a0, %a3\n"
             "  %r7 = or i32 %a5, %a4\n"
             "  %r8 = call i32 @spvjit.sg.clustered.add.i32(i32 %x, i32 4)\n"
             "  %r9 = call i32 @spvjit.sg.reduce.smin.i32(i32 %x)\n"
             "  %r10 = call i32 @spvjit.sg.reduce.umax.i32(i32 %x)\n"
             "  %f0 = call float @spvjit.sg.reduce.fadd.f32(float %fx)\n"
             "  %r11 = bitcast float %f0 to i32\n"
             "  %f1 = call float @spvjit.sg.reduce.fmin.f32(float %fx)\n"
             "  %r12 = bitcast float %f1 to i32\n"
             "  %f2 = call float @spvjit.sg.scan.incl.fadd.f32(float %fx)\n"
             "  %r13 = bitcast float %f2 to i32\n"
             "  %r14 = call i32 @spvjit.sg.clustered.xor.i32(i32 %x, i32 64)\n"
             "  %r15 = call i32 @spvjit.sg.live()\n"
             "  %sz = call i32 @spvjit.sg.size()\n  %r16 = add i32 %sz, %l\n"
             "@STORES@"
             "  br label %done\n"
             "done:\n  ret void\n}\n";

static const char *sg_function(bool under_branch)
{
    static char buf[2][8192];
    char stores[2048] = "";
    size_t sl = 0;
    for (int k = 0; k <= 16; k++)
        sl +=
            (size_t)snprintf(stores + sl, sizeof stores - sl,
                             "  %%o%d = getelementptr inbounds i32, ptr %%pout, i64 %d\n  store i32 %%r%d, ptr %%o%d\n",
                             k, k * 64, k, k);
    const char *cond = under_branch ? "%isodd" : "true";
    char *o = buf[under_branch];
    for (const char *p = sg_template; *p;) {
        if (!strncmp(p, "@COND@", 6)) {
            o += sprintf(o, "%s", cond);
            p += 6;
        } else if (!strncmp(p, "@STORES@", 8)) {
            o += sprintf(o, "%s", stores);
            p += 8;
        } else {
            *o++ = *p++;
        }
    }
    *o = 0;
    return buf[under_branch];
}

/* The float tree of the reductions: halves. */
static float ref_fadd_tree(const float *v, unsigned w)
{
    float t[MAXW];
    memcpy(t, v, w * sizeof *t);
    for (unsigned h = w / 2; h >= 1; h /= 2)
        for (unsigned i = 0; i < h; i++)
            t[i] = t[i] + t[i + h];
    return t[0];
}

/* Hillis–Steele: lane i adds lane i - d for d = 1, 2, 4 ... */
static void ref_fscan(const float *v, float *out, unsigned w)
{
    float t[MAXW], u[MAXW];
    memcpy(t, v, w * sizeof *t);
    for (unsigned d = 1; d < w; d *= 2) {
        for (unsigned i = 0; i < w; i++)
            u[i] = i >= d ? t[i - d] + t[i] : -0.0f + t[i];
        memcpy(t, u, sizeof t);
    }
    memcpy(out, t, w * sizeof *t);
}

static uint32_t fbits32(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static void check_subgroup_markers(bool under_branch)
{
    static const unsigned widths[3] = { 4, 8, 16 };
    uint64_t rng = 0xabc + under_branch;
    for (unsigned wi = 0; wi < 3; wi++)
        for (int opt = 0; opt <= 2; opt += 2) {
            unsigned w = widths[wi];
            vt t;
            if (!vt_build(&t, sg_function(under_branch), f_args, w, opt)) {
                CHECK(false, "markers: W=%u O%d: not built (%d: %s)", w, opt, t.rc, t.msg);
                vt_free(&t);
                return;
            }
            for (unsigned mk = 0; mk < NMASKS && !test_failed_now(); mk++) {
                uint64_t live = mask_pattern(mk, w, &rng);
                int32_t in[NBUF], out[17 * 64];
                for (unsigned i = 0; i < NBUF; i++)
                    in[i] = (int32_t)(test_rand_u64(&rng) % 41) - 20;
                for (unsigned i = 0; i < 17 * 64; i++)
                    out[i] = 0x5a5a5a5a;
                uint64_t args[4] = { 0, (uintptr_t)in, (uintptr_t)out, 0 };
                t.vector(args, live, NULL);
                uint64_t act = 0;
                for (unsigned l = 0; l < w; l++)
                    if ((live >> l & 1) && (!under_branch || (in[l] & 1)))
                        act |= 1ull << l;
                /* the references */
                int32_t sum = 0, mn = INT32_MAX;
                uint32_t mx = 0, ballot = 0, xr[MAXW / 4] = { 0 };
                float fv[MAXW], fmn = INFINITY, fscan[MAXW];
                int first = act ? __builtin_ctzll(act) : -1;
                bool all = true, any = false;
                for (unsigned l = 0; l < w; l++) {
                    bool a = act >> l & 1;
                    fv[l] = a ? (float)in[l] : -0.0f;
                    if (!a)
                        continue;
                    sum += in[l];
                    mn = in[l] < mn ? in[l] : mn;
                    mx = (uint32_t)in[l] > mx ? (uint32_t)in[l] : mx;
                    fmn = (float)in[l] < fmn ? (float)in[l] : fmn;
                    ballot |= (uint32_t)(in[l] > 0) << l;
                    all &= in[l] > 0;
                    any |= in[l] > 0;
                    xr[l / 4] ^= (uint32_t)in[l];
                }
                uint32_t xall = 0;
                for (unsigned c = 0; c < w / 4; c++)
                    xall ^= xr[c];
                ref_fscan(fv, fscan, w);
                float fsum = ref_fadd_tree(fv, w);
                for (unsigned l = 0; l < w && !test_failed_now(); l++) {
                    bool a = act >> l & 1;
                    if (!a) {
                        for (unsigned k = 0; k <= 16; k++)
                            CHECK(out[k * 64 + l] == 0x5a5a5a5a, "W=%u live %#llx: inactive lane %u wrote result %u", w,
                                  (unsigned long long)live, l, k);
                        continue;
                    }
                    int32_t incl = 0, excl = 0, cl = 0;
                    for (unsigned j = 0; j < w; j++)
                        if (act >> j & 1) {
                            incl += j <= l ? in[j] : 0;
                            excl += j < l ? in[j] : 0;
                            cl += j / 4 == l / 4 ? in[j] : 0;
                        }
                    int32_t want[17] = { sum,
                                         incl,
                                         excl,
                                         (int32_t)ballot,
                                         0,
                                         0,
                                         in[first],
                                         (all ? 1 : 0) | (any ? 2 : 0) | ((int)l == first ? 4 : 0),
                                         cl,
                                         mn,
                                         (int32_t)mx,
                                         (int32_t)fbits32(fsum),
                                         (int32_t)fbits32(fmn),
                                         (int32_t)fbits32(fscan[l]),
                                         (int32_t)xall,
                                         (int32_t)__builtin_popcountll(live),
                                         (int32_t)(w + l) };
                    unsigned s4 = l ^ 1, s5 = (unsigned)in[l] & 15;
                    for (unsigned k = 0; k <= 16; k++) {
                        if ((k == 4 && !(act >> s4 & 1)) || (k == 5 && (s5 >= w || !(act >> s5 & 1))))
                            continue; /* undefined: the source lane is inactive */
                        if (k == 4)
                            want[4] = in[s4];
                        if (k == 5)
                            want[5] = in[s5];
                        CHECK(out[k * 64 + l] == want[k],
                              "W=%u O%d live %#llx active %#llx: result %u of lane %u is %d, expected %d", w, opt,
                              (unsigned long long)live, (unsigned long long)act, k, l, out[k * 64 + l], want[k]);
                    }
                }
            }
            vt_free(&t);
            if (test_failed_now())
                return;
        }
}

TEST_TIER_FREE(simd_subgroup_markers)
{
    check_subgroup_markers(false);
}

TEST_TIER_FREE(simd_subgroup_markers_divergent)
{
    check_subgroup_markers(true);
}

/* Without the vectorizer the markers mean sub-groups of one work-item. */
TEST_TIER_FREE(simd_subgroup_markers_scalar)
{
    LLVMContextRef llc = LLVMContextCreate();
    LLVMModuleRef mod = tir_parse(llc, sg_function(false));
    REQUIRE(mod, "parse");
    jit_sg_lower_scalar(mod);
    char *err = NULL;
    CHECK(!LLVMVerifyModule(mod, LLVMReturnStatusAction, &err), "does not verify: %s", err);
    LLVMDisposeMessage(err);
    for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f)) {
        size_t len;
        CHECK(!jit_sg_is_marker_fn(f), "marker %s left", LLVMGetValueName2(f, &len));
    }
    LLVMDisposeModule(mod);
    LLVMContextDispose(llc);
}

/* --- the preparation's inlining ---------------------------------------------------------------------- */

/* How many calls of a defined function f makes, the first 4 callees in
 * callees; *noinline_site set when one is noinline or marked at the site. */
static unsigned calls_of(LLVMValueRef f, LLVMValueRef *callees, bool *noinline_site)
{
    unsigned n = 0, never = LLVMGetEnumAttributeKindForName("noinline", 8);
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
        for (LLVMValueRef in = LLVMGetFirstInstruction(b); in; in = LLVMGetNextInstruction(in)) {
            if (!LLVMIsACallInst(in) || !LLVMCountBasicBlocks(LLVMGetCalledValue(in)))
                continue;
            if (n < 4)
                callees[n] = LLVMGetCalledValue(in);
            n++;
            *noinline_site |= LLVMGetCallSiteEnumAttribute(in, LLVMAttributeFunctionIndex, never) != NULL;
            *noinline_site |=
                LLVMGetCallSiteStringAttribute(in, LLVMAttributeFunctionIndex, "spvjit.inline-later", 19) != NULL;
        }
    return n;
}

/* jit_simd_prepare with `only`: the listed function gets every level of
 * always-inline calls (w -> a -> b -> c), the others keep their calls as
 * they were (g still calls b, a still calls b and c), no call site is left
 * marked, and both compute what C does. */
TEST_TIER_FREE(simd_prepare_inlines_only_listed)
{
    static const char ir[] = "@keep = internal global [4 x ptr] [ptr @a, ptr @b, ptr @c, ptr @g]\n"
                             "define internal i32 @c(i32 %x) #0 {\n"
                             "  %r = mul i32 %x, 3\n"
                             "  ret i32 %r\n"
                             "}\n"
                             "define internal i32 @b(i32 %x) #0 {\n"
                             "  %y = call i32 @c(i32 %x)\n"
                             "  %r = add i32 %y, 7\n"
                             "  ret i32 %r\n"
                             "}\n"
                             "define internal i32 @a(i32 %x) #0 {\n"
                             "  %y = call i32 @b(i32 %x)\n"
                             "  %z = call i32 @c(i32 %y)\n"
                             "  %r = xor i32 %z, 5\n"
                             "  ret i32 %r\n"
                             "}\n"
                             "define i32 @g(i32 %x) #1 {\n"
                             "  %r = call i32 @b(i32 %x)\n"
                             "  ret i32 %r\n"
                             "}\n"
                             "define i32 @w(i32 %x) #1 {\n"
                             "  %r = call i32 @a(i32 %x)\n"
                             "  ret i32 %r\n"
                             "}\n"
                             "attributes #0 = { alwaysinline nounwind }\n"
                             "attributes #1 = { nounwind }\n";
    LLVMContextRef llc = LLVMContextCreate();
    LLVMModuleRef mod = tir_parse(llc, ir);
    REQUIRE(mod, "parse");
    LLVMValueRef w = LLVMGetNamedFunction(mod, "w"), g = LLVMGetNamedFunction(mod, "g");
    LLVMValueRef a = LLVMGetNamedFunction(mod, "a"), b = LLVMGetNamedFunction(mod, "b");
    LLVMValueRef c = LLVMGetNamedFunction(mod, "c");
    char msg[JIT_SIMD_MSG] = "";
    unsigned width = 8;
    CHECK(!jit_simd_prepare(mod, &w, &width, 1, JIT_SIMD_PREP_FULL, msg), "prepare: %s", msg);
    LLVMValueRef callees[4] = { 0 };
    bool marked = false;
    CHECK(calls_of(w, callees, &marked) == 0, "w still calls %s", LLVMGetValueName(callees[0]));
    CHECK(calls_of(g, callees, &marked) == 1 && callees[0] == b, "g: its call of b changed");
    CHECK(calls_of(a, callees, &marked) == 2 && callees[0] == b && callees[1] == c, "a: its calls changed");
    CHECK(calls_of(b, callees, &marked) == 1 && callees[0] == c, "b: its call of c changed");
    CHECK(!marked, "a call site is left noinline or marked");
    char *err = NULL;
    CHECK(!LLVMVerifyModule(mod, LLVMReturnStatusAction, &err), "does not verify: %s", err);
    LLVMDisposeMessage(err);

    spv_diag diag = { { 0 } };
    LLVMTargetMachineRef tm = jit_host_target_machine(2, &diag);
    REQUIRE(tm, "%s", diag.msg);
    LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
    LLVMSetModuleDataLayout(mod, td);
    LLVMMemoryBufferRef obj = NULL;
    if (!jit_optimize(mod, tm, 2, &diag))
        obj = jit_emit_object(mod, tm, &diag);
    LLVMDisposeModule(mod);
    LLVMDisposeTargetData(td);
    LLVMDisposeTargetMachine(tm);
    CHECK(obj, "%s", diag.msg);
    const char *names[2] = { "w", "g" };
    void *addrs[2] = { 0 };
    jit_code *code = obj ? jit_link_object(obj, names, addrs, 2, &diag) : NULL;
    CHECK(code, "link: %s", diag.msg);
    if (code) {
        int32_t (*wf)(int32_t) = (int32_t(*)(int32_t))addrs[0], (*gf)(int32_t) = (int32_t(*)(int32_t))addrs[1];
        static const int32_t xs[] = { 0, 1, -1, 12345, -99999, 0x7fffffff, (int32_t)0x80000000 };
        for (unsigned i = 0; i < sizeof xs / sizeof xs[0]; i++) {
            uint32_t x = (uint32_t)xs[i], bx = x * 3u + 7u;
            CHECK((uint32_t)wf(xs[i]) == ((bx * 3u) ^ 5u), "w(%d) = %d", xs[i], wf(xs[i]));
            CHECK((uint32_t)gf(xs[i]) == bx, "g(%d) = %d", xs[i], gf(xs[i]));
        }
        jit_code_free(code);
    }
    LLVMContextDispose(llc);
}

/* The clustered sum's cluster size, in the module's only call of the marker:
 * the constant, or 0 when it is not one. */
static uint64_t cluster_size_in(LLVMModuleRef mod)
{
    LLVMValueRef marker = LLVMGetNamedFunction(mod, "spvjit.sg.clustered.add.i32");
    LLVMUseRef use = marker ? LLVMGetFirstUse(marker) : NULL;
    LLVMValueRef c = use ? LLVMGetOperand(LLVMGetUser(use), 1) : NULL;
    return c && LLVMIsAConstantInt(c) ? LLVMConstIntGetZExtValue(c) : 0;
}

/* Ends a host whose module was not linked: what tir_host_link would have
 * taken is freed here. */
static void end_unlinked(tir_host *h)
{
    LLVMDisposeModule(h->mod);
    LLVMDisposeTargetData(h->td);
    LLVMDisposeTargetMachine(h->tm);
    tir_host_end(h, NULL);
}

/* Runs vf(null ctx, base, out, all 8 lanes) of h's module, a vector function
 * of jit_simd_items, for the bases 0 and 8 (two sub-groups of 8) into out[16]
 * (first filled with 0x5a bytes); the host is ended.  False (the test
 * failed) when the module does not compile. */
static bool run_two_subgroups(tir_host *h, LLVMValueRef vf, int32_t out[16], spv_diag *diag)
{
    LLVMContextRef llc = h->llc;
    LLVMTypeRef ptr = LLVMPointerTypeInContext(llc, 0), i32 = LLVMInt32TypeInContext(llc);
    LLVMValueRef run = LLVMAddFunction(h->mod, "run", LLVMFunctionType(LLVMVoidTypeInContext(llc), &ptr, 1, 0));
    LLVMBuilderRef b = LLVMCreateBuilderInContext(llc);
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(llc, run, "entry"));
    LLVMValueRef all = LLVMConstAllOnes(LLVMVectorType(LLVMInt1TypeInContext(llc), 8));
    for (unsigned base = 0; base < 16; base += 8) {
        LLVMValueRef args[4] = { LLVMConstNull(ptr), LLVMConstInt(i32, base, 0), LLVMGetParam(run, 0), all };
        LLVMBuildCall2(b, LLVMGlobalGetValueType(vf), vf, args, 4, "");
    }
    LLVMBuildRetVoid(b);
    LLVMDisposeBuilder(b);
    const char *names[1] = { "run" };
    void *addrs[1] = { 0 };
    bool verified;
    jit_code *code = tir_host_link(h, names, addrs, 1, &verified, diag);
    CHECK(verified && code, "the module does not verify, or does not compile: %s", diag->msg);
    memset(out, 0x5a, 16 * sizeof *out);
    if (code)
        ((void (*)(int32_t *))addrs[0])(out);
    tir_host_end(h, code);
    return code != NULL;
}

/* Two items for sub-groups of 8: `sum` (each lane stores its sub-group's sum
 * of lx) and `indirect`, which the vectorizer declines (an indirect call).  Requested together with `indirect` optional, `sum` is still
 * vectorized and `indirect` left to the scalar path (out NULL); with `indirect` not
 * optional, nothing is made.  sum's vector function, run for the bases 0 and
 * 8, stores what C computes. */
TEST_TIER_FREE(simd_items_optional_request_declined_alone)
{
    static const char ir[] =
        SG_DECLS "define internal void @sum(ptr %ctx, i32 %lx, i32 %ly, i32 %lz, i32 %idx, ptr %out) {\n"
                 "entry:\n"
                 "  %r = call i32 @spvjit.sg.reduce.add.i32(i32 %lx)\n"
                 "  %p = getelementptr inbounds i32, ptr %out, i32 %lx\n"
                 "  store i32 %r, ptr %p\n  ret void\n}\n"
                 "define internal void @indirect(ptr %ctx, i32 %lx, i32 %ly, i32 %lz, i32 %idx, ptr %out) {\n"
                 "entry:\n"
                 "  %f = load ptr, ptr %ctx\n"
                 "  call void %f(i32 %lx)\n  ret void\n}\n";
    static const uint32_t size[3] = { 16, 1, 1 };
    char msg[JIT_SIMD_MSG] = "";
    tir_host h;
    spv_diag diag = { { 0 } };
    for (int optional = 0; optional < 2; optional++) {
        TIR_HOST_PARSE(&h, ir, 0, &diag);
        jit_simd_items_req req[2] = {
            { .item = LLVMGetNamedFunction(h.mod, "sum"), .width = 8, .size = size, .name = "sum.simd", .td = h.td },
            { .item = LLVMGetNamedFunction(h.mod, "indirect"),
              .width = 8,
              .size = size,
              .name = "indirect.simd",
              .td = h.td,
              .optional = optional },
        };
        LLVMValueRef out[2] = { NULL, NULL };
        int rc = jit_simd_items(req, 2, NULL, 0, JIT_SIMD_PREP_FULL, out, msg);
        if (!optional) {
            CHECK(rc == 1 && !out[0] && !out[1] && !LLVMGetNamedFunction(h.mod, "sum.simd"),
                  "indirect not optional: rc %d (%s), out %p %p", rc, msg, (void *)out[0], (void *)out[1]);
            end_unlinked(&h);
            continue;
        }
        CHECK(rc == 0 && out[0] && !out[1] && !LLVMGetNamedFunction(h.mod, "indirect.simd"),
              "indirect optional: rc %d (%s), out %p %p", rc, msg, (void *)out[0], (void *)out[1]);
        if (rc || !out[0]) {
            end_unlinked(&h);
            return;
        }
        jit_sg_lower_scalar(h.mod);
        int32_t o[16];
        if (!run_two_subgroups(&h, out[0], o, &diag))
            return;
        for (int l = 0; l < 16; l++) {
            int want = 0;
            for (int j = l / 8 * 8; j < l / 8 * 8 + 8; j++)
                want += j;
            CHECK(o[l] == want, "lane %d: %d, expected %d", l, o[l], want);
        }
    }
}

/* An item whose cluster size only the full preparation makes a constant (a
 * loop doubling it twice: unrolled and folded to 4).  The quick preparation
 * leaves the loop, and the vectorizer declines a cluster size it cannot read;
 * jit_simd_items then prepares the item fully and vectorizes that: the tiers
 * agree on the sub-group size.  The vector function's two sub-groups of 8
 * must store each lane's cluster-of-4 sum of 3 * lx, computed in C. */
TEST_TIER_FREE(simd_items_quick_preparation_falls_back_to_full)
{
    static const char ir[] =
        SG_DECLS "define internal void @item(ptr %ctx, i32 %lx, i32 %ly, i32 %lz, i32 %idx, ptr %out) {\n"
                 "entry:\n  br label %grow\n"
                 "grow:\n"
                 "  %k = phi i32 [ 0, %entry ], [ %k1, %grow ]\n"
                 "  %c = phi i32 [ 1, %entry ], [ %c2, %grow ]\n"
                 "  %c2 = shl i32 %c, 1\n  %k1 = add i32 %k, 1\n"
                 "  %more = icmp ult i32 %k1, 2\n  br i1 %more, label %grow, label %use\n"
                 "use:\n"
                 "  %x = mul i32 %lx, 3\n"
                 "  %r = call i32 @spvjit.sg.clustered.add.i32(i32 %x, i32 %c2)\n"
                 "  %p = getelementptr inbounds i32, ptr %out, i32 %lx\n"
                 "  store i32 %r, ptr %p\n  ret void\n}\n";
    static const uint32_t size[3] = { 16, 1, 1 };
    char msg[JIT_SIMD_MSG] = "";
    for (int prep = 0; prep < 2; prep++) { /* what each preparation makes of the cluster size */
        LLVMContextRef llc = LLVMContextCreate();
        LLVMModuleRef mod = tir_parse(llc, ir);
        REQUIRE(mod, "parse");
        LLVMValueRef item = LLVMGetNamedFunction(mod, "item");
        jit_simd_prep p = prep ? JIT_SIMD_PREP_FULL : JIT_SIMD_PREP_QUICK;
        CHECK(!jit_simd_prepare(mod, &item, NULL, 1, p, msg), "prepare: %s", msg);
        uint64_t c = cluster_size_in(mod);
        CHECK(prep ? c == 4 : c == 0, "%s preparation: cluster size %llu", prep ? "full" : "quick",
              (unsigned long long)c);
        LLVMDisposeModule(mod);
        LLVMContextDispose(llc);
    }

    tir_host h;
    spv_diag diag = { { 0 } };
    TIR_HOST_PARSE(&h, ir, 0, &diag);
    LLVMValueRef vf = NULL;
    jit_simd_items_req req = {
        .item = LLVMGetNamedFunction(h.mod, "item"), .width = 8, .size = size, .name = "item.simd", .td = h.td
    };
    int rc = jit_simd_items(&req, 1, NULL, 0, JIT_SIMD_PREP_QUICK, &vf, msg);
    CHECK(rc == 0 && vf, "jit_simd_items: %d (%s)", rc, msg);
    if (rc || !vf) {
        end_unlinked(&h);
        return;
    }
    jit_sg_lower_scalar(h.mod); /* the scalar item keeps its marker: sub-groups of one */
    int32_t out[16];
    if (!run_two_subgroups(&h, vf, out, &diag))
        return;
    for (int l = 0; l < 16; l++) {
        int first = l & ~3, want = 3 * (4 * first + 6); /* 3 * (first + first+1 + first+2 + first+3) */
        CHECK(out[l] == want, "lane %d: %d, expected %d", l, out[l], want);
    }
}
