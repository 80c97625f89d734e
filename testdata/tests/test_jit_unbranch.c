/* testdata/tests/test_jit_unbranch.c — scalar bounds checks made branchless
 * (jit/unbranch.h), and the blocks they leave merged.
 *
 * Hand-written functions guard their loads and stores as lower_bounds.c
 * does (a branch weighted JIT_GUARD_WEIGHT : 1 around a block holding the
 * access, a phi taking zero from the check): three checked loads and a
 * checked store in a row; a loop whose body is a checked load, its latch the
 * check's join (the loop's phis and the exit's name that block); and a join
 * that another block also branches to.  After the rewrite the module must
 * verify, no check may be left a branch, each join whose only predecessor
 * is its check's block must be gone (the chain and the loop become one block
 * each; the shared join stays), and every result must be what C computes,
 * with an access out of bounds reading zero and writing nothing, at each
 * offset from well inside to past the end. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "jit/jit_internal.h"
#include "jit/lower_ctx.h"
#include "jit/unbranch.h"
#include "test_ir_util.h"

/* float buf[size / 4]; an offset is in bounds when offset + 4 <= size, the
 * compare lower_bounds.c makes: offset < size - 3 (size >= 4). */
static const char module_text[] = "define float @chain(ptr %buf, i64 %size, i32 %i, ptr %out, i64 %outsize) {\n"
                                  "entry:\n"
                                  "  %lim = sub i64 %size, 3\n"
                                  "  %ix = sext i32 %i to i64\n"
                                  "  %off0 = shl i64 %ix, 2\n"
                                  "  %ok0 = icmp ult i64 %off0, %lim\n"
                                  "  br i1 %ok0, label %in0, label %j0, !prof !0\n"
                                  "in0:\n"
                                  "  %p0 = getelementptr i8, ptr %buf, i64 %off0\n"
                                  "  %v0 = load float, ptr %p0, align 4\n"
                                  "  br label %j0\n"
                                  "j0:\n"
                                  "  %a0 = phi float [ %v0, %in0 ], [ 0.0, %entry ]\n"
                                  "  %off1 = add i64 %off0, 4\n"
                                  "  %ok1 = icmp ult i64 %off1, %lim\n"
                                  "  br i1 %ok1, label %in1, label %j1, !prof !0\n"
                                  "in1:\n"
                                  "  %p1 = getelementptr i8, ptr %buf, i64 %off1\n"
                                  "  %v1 = load float, ptr %p1, align 4\n"
                                  "  br label %j1\n"
                                  "j1:\n"
                                  "  %a1 = phi float [ %v1, %in1 ], [ 0.0, %j0 ]\n"
                                  "  %off2 = add i64 %off0, 12\n"
                                  "  %ok2 = icmp ult i64 %off2, %lim\n"
                                  "  br i1 %ok2, label %in2, label %j2, !prof !0\n"
                                  "in2:\n"
                                  "  %p2 = getelementptr i8, ptr %buf, i64 %off2\n"
                                  "  %v2 = load float, ptr %p2, align 4\n"
                                  "  br label %j2\n"
                                  "j2:\n"
                                  "  %a2 = phi float [ %v2, %in2 ], [ 0.0, %j1 ]\n"
                                  "  %s01 = fmul float %a1, 2.0\n"
                                  "  %s0 = fadd float %a0, %s01\n"
                                  "  %s12 = fmul float %a2, 4.0\n"
                                  "  %s = fadd float %s0, %s12\n"
                                  "  %olim = sub i64 %outsize, 3\n"
                                  "  %ok3 = icmp ult i64 %off0, %olim\n"
                                  "  br i1 %ok3, label %in3, label %j3, !prof !0\n"
                                  "in3:\n"
                                  "  %p3 = getelementptr i8, ptr %out, i64 %off0\n"
                                  "  store float %s, ptr %p3, align 4\n"
                                  "  br label %j3\n"
                                  "j3:\n"
                                  "  ret float %s\n"
                                  "}\n"
                                  "\n"
                                  "define float @loop(ptr %buf, i64 %size, i32 %n) {\n"
                                  "entry:\n"
                                  "  %lim = sub i64 %size, 3\n"
                                  "  br label %head\n"
                                  "head:\n"
                                  "  %k = phi i32 [ 0, %entry ], [ %k1, %latch ]\n"
                                  "  %acc = phi float [ 0.0, %entry ], [ %acc1, %latch ]\n"
                                  "  %kx = sext i32 %k to i64\n"
                                  "  %off = shl i64 %kx, 2\n"
                                  "  %ok = icmp ult i64 %off, %lim\n"
                                  "  br i1 %ok, label %in, label %latch, !prof !0\n"
                                  "in:\n"
                                  "  %p = getelementptr i8, ptr %buf, i64 %off\n"
                                  "  %v = load float, ptr %p, align 4\n"
                                  "  br label %latch\n"
                                  "latch:\n"
                                  "  %x = phi float [ %v, %in ], [ 0.0, %head ]\n"
                                  "  %kf = sitofp i32 %k to float\n"
                                  "  %t = fadd float %x, %kf\n"
                                  "  %acc1 = fadd float %acc, %t\n"
                                  "  %k1 = add nsw i32 %k, 1\n"
                                  "  %more = icmp slt i32 %k1, %n\n"
                                  "  br i1 %more, label %head, label %exit\n"
                                  "exit:\n"
                                  "  %r = phi float [ %acc1, %latch ]\n"
                                  "  ret float %r\n"
                                  "}\n"
                                  "\n"
                                  "define float @shared(ptr %buf, i64 %size, i32 %i, i1 %skip) {\n"
                                  "entry:\n"
                                  "  br i1 %skip, label %join, label %check\n"
                                  "check:\n"
                                  "  %lim = sub i64 %size, 3\n"
                                  "  %ix = sext i32 %i to i64\n"
                                  "  %off = shl i64 %ix, 2\n"
                                  "  %ok = icmp ult i64 %off, %lim\n"
                                  "  br i1 %ok, label %in, label %join, !prof !0\n"
                                  "in:\n"
                                  "  %p = getelementptr i8, ptr %buf, i64 %off\n"
                                  "  %v = load float, ptr %p, align 4\n"
                                  "  br label %join\n"
                                  "join:\n"
                                  "  %x = phi float [ %v, %in ], [ 0.0, %check ], [ -1.0, %entry ]\n"
                                  "  ret float %x\n"
                                  "}\n"
                                  "\n"
                                  "!0 = !{!\"branch_weights\", i32 1048576, i32 1}\n";

_Static_assert(JIT_GUARD_WEIGHT == 1048576, "the test's branch weights are lower_bounds.c's");

typedef float (*chain_fn)(float *buf, int64_t size, int32_t i, float *out, int64_t outsize);
typedef float (*loop_fn)(float *buf, int64_t size, int32_t n);
typedef float (*shared_fn)(float *buf, int64_t size, int32_t i, bool skip);

enum { N = 16 }; /* floats in buf and out */

static float at(const float *buf, int64_t i)
{
    return i >= 0 && i < N ? buf[i] : 0.0f;
}

static unsigned count_blocks(LLVMModuleRef mod, const char *fn)
{
    return LLVMCountBasicBlocks(LLVMGetNamedFunction(mod, fn));
}

/* Whether fn still branches on a check (its weights). */
static bool has_check(LLVMModuleRef mod, const char *name)
{
    char *text = tir_print(LLVMGetNamedFunction(mod, name));
    bool has = strstr(text, "!prof") != NULL;
    free(text);
    return has;
}

TEST_TIER_FREE(unbranch_checks_and_merged_blocks)
{
    spv_diag diag = { { 0 } };
    tir_host h;
    TIR_HOST_PARSE(&h, module_text, 3, &diag);
    LLVMModuleRef mod = h.mod;

    int n = jit_unbranch_guards(mod, h.td);
    CHECK(n == 6, "%d checks made branchless, expected 6", n);
    static const char *const names[3] = { "chain", "loop", "shared" };
    for (unsigned f = 0; f < 3; f++)
        CHECK(!has_check(mod, names[f]), "%s still branches on a check", names[f]);
    /* chain: one block; loop: entry, the loop, exit; shared: entry, check, join */
    CHECK(count_blocks(mod, "chain") == 1, "chain has %u blocks, expected 1", count_blocks(mod, "chain"));
    CHECK(count_blocks(mod, "loop") == 3, "loop has %u blocks, expected 3", count_blocks(mod, "loop"));
    CHECK(count_blocks(mod, "shared") == 3, "shared has %u blocks, expected 3", count_blocks(mod, "shared"));

    void *addrs[3];
    jit_code *code;
    TIR_HOST_LINK(code, &h, names, addrs, 3, &diag);

    float buf[N], out[N + 1];
    for (int k = 0; k < N; k++)
        buf[k] = 0.5f * (float)k - 3.25f;
    const int64_t size = N * 4;
    for (int32_t i = -3; i <= N + 2; i++) {
        for (int k = 0; k <= N; k++)
            out[k] = 99.0f;
        float got = ((chain_fn)addrs[0])(buf, size, i, out, size);
        float want = at(buf, i) + at(buf, (int64_t)i + 1) * 2.0f + at(buf, (int64_t)i + 3) * 4.0f;
        CHECK(got == want, "chain(%d) = %g, expected %g", i, (double)got, (double)want);
        for (int k = 0; k <= N; k++) {
            float w = k == i && i < N ? want : 99.0f; /* out[N] lies past outsize */
            CHECK(out[k] == w, "chain(%d): out[%d] = %g, expected %g", i, k, (double)out[k], (double)w);
        }
        bool skip = i % 2 != 0;
        float s = ((shared_fn)addrs[2])(buf, size, i, skip);
        float ws = skip ? -1.0f : at(buf, i);
        CHECK(s == ws, "shared(%d, %d) = %g, expected %g", i, skip, (double)s, (double)ws);
    }
    for (int32_t len = 1; len <= N + 5; len++) {
        float got = ((loop_fn)addrs[1])(buf, size, len), want = 0.0f;
        for (int32_t k = 0; k < len; k++)
            want += at(buf, k) + (float)k;
        CHECK(got == want, "loop(%d) = %g, expected %g", len, (double)got, (double)want);
    }
    tir_host_end(&h, code);
}
