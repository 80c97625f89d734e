/* testdata/tests/test_jit_alu.c — instruction classes against plain C on random
 * inputs: integer arithmetic / bit operations with SPIR-V semantics (alu.comp),
 * matrix and vector products with explicit std430 / row-major layouts
 * (matrix.comp), and the opcode coverage table. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "test_jit_util.h"
#include "spirv_grammar.h"

static int32_t smod(int32_t x, int32_t y)
{
    int32_t r = x % y;
    if (r != 0 && ((r < 0) != (y < 0)))
        r += y;
    return r;
}

static int32_t sbits(int32_t x, int off, int cnt)
{
    return (int32_t)((uint32_t)x << (32 - off - cnt)) >> (32 - cnt);
}

static int32_t reverse(int32_t x)
{
    uint32_t u = (uint32_t)x, r = 0;
    for (int i = 0; i < 32; i++)
        r |= ((u >> i) & 1u) << (31 - i);
    return (int32_t)r;
}

/* Words for one work-item; defined[] false where SPIR-V leaves the result undefined. */
static void alu_ref(int32_t x, int32_t y, int32_t *o, bool *defined)
{
    uint32_t ux = (uint32_t)x, uy = (uint32_t)y;
    for (int j = 0; j < 24; j++)
        defined[j] = true;
    bool sdiv_ok = y != 0 && !(x == INT32_MIN && y == -1);
    defined[0] = defined[1] = sdiv_ok;
    defined[2] = defined[3] = uy != 0;
    o[0] = sdiv_ok ? x / y : 0;
    o[1] = sdiv_ok ? smod(x, y) : 0;
    o[2] = uy ? (int32_t)(ux / uy) : 0;
    o[3] = uy ? (int32_t)(ux % uy) : 0;
    o[4] = (int32_t)(ux << (uy & 31));
    o[5] = x >> (uy & 31);
    o[6] = (int32_t)(ux >> (uy & 31));
    o[7] = sbits(x, 3, 7);
    o[8] = (int32_t)((ux >> 5) & 0x7FF);
    uint32_t m = 0x1FFu << 4;
    o[9] = (int32_t)((ux & ~m) | ((uy << 4) & m));
    o[10] = __builtin_popcount(ux);
    o[11] = reverse(x);
    uint64_t up = (uint64_t)ux * uy;
    o[12] = (int32_t)(up >> 32);
    o[13] = (int32_t)up;
    int64_t sp = (int64_t)x * y;
    o[14] = (int32_t)((uint64_t)sp >> 32);
    o[15] = (int32_t)sp;
    o[16] = (int32_t)(ux + uy);
    o[17] = ux + uy < ux;
    o[18] = (int32_t)(ux - uy);
    o[19] = ux < uy;
    o[20] = (int32_t)(ux * uy);
    o[21] = (int32_t)(0u - ux);
    o[22] = ~x ^ y;
    o[23] = (x < y) + 2 * (ux < uy) + 4 * (x == y) + 8 * (x >= y);
}

static void alu_run(bool unspec)
{
    spv_module *m = tj_load("jit/alu.comp.spv");
    REQUIRE(m, "load");
    spvjit_options o = { .unspecialized = unspec, .opt_level = 3 };
    jit_kernel *k = tj_compile(m, NULL, &o);
    REQUIRE(k, "compile: %s", tj_last_error);
    enum { N = 256 };
    int32_t *a = malloc(N * 4), *b = malloc(N * 4), *out = calloc(N * 24, 4);
    uint64_t s = 1234;
    static const int32_t special[] = { 0, 1, -1, INT32_MIN, INT32_MAX, 31, 32, 33, -32 };
    for (int i = 0; i < N; i++) {
        a[i] = (int32_t)test_rand_u64(&s);
        b[i] = i % 4 == 0 ? special[(i / 4) % 9] : (int32_t)(test_rand_u64(&s) >> (test_rand_u64(&s) % 32));
        if (i % 16 == 3)
            a[i] = special[(i / 16) % 9];
    }
    void *args[3] = { a, b, out };
    tj_dispatch d = { .args = args, .groups = { N / 32, 1, 1 } };
    REQUIRE(tj_run(k, &d) == 0, "run");
    int bad = 0;
    for (int i = 0; i < N; i++) {
        int32_t r[24];
        bool def[24];
        alu_ref(a[i], b[i], r, def);
        for (int j = 0; j < 24; j++)
            if (def[j] && r[j] != out[24 * i + j] && bad++ < 8)
                fprintf(stderr, "  alu x=%d y=%d word %d: got %d want %d\n", a[i], b[i], j, out[24 * i + j], r[j]);
    }
    CHECK(bad == 0, "%d wrong words", bad);
    free(a);
    free(b);
    free(out);
    spvjit_kernel_free(k);
    spv_module_free(m);
}

TEST(jit_alu_int_specialized)
{
    alu_run(false);
}
TEST(jit_alu_int_unspecialized)
{
    alu_run(true);
}

/* --- matrices ------------------------------------------------------------------ */

typedef struct mat3 {
    float c[3][3];
} mat3; /* c[col][row] */

static void matrix_ref(const mat3 *M, const mat3 *R, const float *v, float s, float *o)
{
    for (int r = 0; r < 3; r++)
        o[r] = M->c[0][r] * v[0] + M->c[1][r] * v[1] + M->c[2][r] * v[2];
    for (int c = 0; c < 3; c++)
        o[3 + c] = v[0] * M->c[c][0] + v[1] * M->c[c][1] + v[2] * M->c[c][2];
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++)
            o[6 + 3 * c + r] = M->c[0][r] * R->c[c][0] + M->c[1][r] * R->c[c][1] + M->c[2][r] * R->c[c][2];
    for (int r = 0; r < 3; r++)
        o[15 + r] = M->c[r][1];
    for (int r = 0; r < 3; r++)
        o[18 + r] = v[r] * (v[2] * s);
    o[21] = v[0] * M->c[1][0] + v[1] * M->c[1][1] + v[2] * M->c[1][2];
    for (int r = 0; r < 3; r++)
        o[22 + r] = M->c[2][r] * s;
    o[25] = R->c[1][2];
    o[26] = v[0] - s * floorf(v[0] / s);
    for (int r = 0; r < 3; r++)
        o[27 + r] = v[r] * s;
}

TEST(jit_matrix_layouts)
{
    spv_module *m = tj_load("jit/matrix.comp.spv");
    REQUIRE(m, "load");
    jit_kernel *k = tj_compile(m, NULL, NULL);
    REQUIRE(k, "compile: %s", tj_last_error);
    float in[(384 + 384 + 128) / 4] = { 0 };
    mat3 M[8], R[8];
    float v[8][4];
    uint64_t s = 77;
    for (int i = 0; i < 8; i++) {
        for (int c = 0; c < 3; c++)
            for (int r = 0; r < 3; r++) {
                M[i].c[c][r] = test_rand_float(&s, -3, 3);
                R[i].c[c][r] = test_rand_float(&s, -3, 3);
                in[(i * 48 + c * 16 + r * 4) / 4] = M[i].c[c][r];       /* column-major, stride 16 */
                in[(384 + i * 48 + r * 16 + c * 4) / 4] = R[i].c[c][r]; /* row-major, stride 16 */
            }
        for (int j = 0; j < 4; j++)
            v[i][j] = test_rand_float(&s, -3, 3);
        if (fabsf(v[i][3]) < 0.1f)
            v[i][3] = 0.5f;
        memcpy(&in[(768 + i * 16) / 4], v[i], 16);
    }
    float out[8 * 40] = { 0 };
    void *args[2] = { in, out };
    tj_dispatch d = { .args = args, .groups = { 1, 1, 1 } };
    REQUIRE(tj_run(k, &d) == 0, "run");
    int bad = 0;
    for (int i = 0; i < 8; i++) {
        float ref[30];
        matrix_ref(&M[i], &R[i], v[i], v[i][3], ref);
        for (int j = 0; j < 30; j++)
            if (!tj_close(out[40 * i + j], ref[j], 1e-4f) && fabsf(out[40 * i + j] - ref[j]) > 1e-5f && bad++ < 8)
                fprintf(stderr, "  matrix item %d word %d: got %g want %g\n", i, j, out[40 * i + j], ref[j]);
    }
    CHECK(bad == 0, "%d wrong words", bad);
    spvjit_kernel_free(k);
    spv_module_free(m);
}

/* Every opcode of the grammar is either lowered or rejected with an error naming it. */
TEST_TIER_FREE(jit_opcode_coverage)
{
    unsigned lowered = 0, total = 0;
    for (uint32_t op = 0; op < 7000; op++) {
        if (!spv_opcode_desc_get(op))
            continue;
        total++;
        lowered += spvjit_opcode_lowered(op);
    }
    fprintf(stderr, "  %u of %u grammar opcodes have a lowering\n", lowered, total);
    CHECK(lowered > 200, "only %u opcodes lowered", lowered);
    CHECK(spvjit_opcode_lowered(SpvOpIAdd) && !spvjit_opcode_lowered(SpvOpImageRead) &&
              !spvjit_opcode_lowered(SpvOpKill),
          "table");
}

/* --- atomics (run on two threads by the executor: the kernel has barriers) --- */
TEST(jit_atomics)
{
    spv_module *m = tj_load("jit/atomics.comp.spv");
    REQUIRE(m, "load");
    jit_kernel *k = tj_compile(m, NULL, NULL);
    REQUIRE(k, "compile: %s", tj_last_error);
    enum { G = 8, N = 64 * G };
    int32_t v[N], o[6 + G] = { 0, INT32_MIN, INT32_MAX, 0, 0, 0 };
    int32_t sum = 0, mx = INT32_MIN, mn = INT32_MAX, x = 0, gs[G] = { 0 };
    uint64_t s = 3;
    for (int i = 0; i < N; i++) {
        v[i] = (int32_t)(test_rand_u64(&s) % 2001) - 1000;
        sum += v[i];
        x ^= v[i];
        if (v[i] > mx)
            mx = v[i];
        if (v[i] < mn)
            mn = v[i];
        gs[i / 64] += v[i];
    }
    void *args[2] = { v, o };
    tj_dispatch d = { .args = args, .groups = { G, 1, 1 } };
    REQUIRE(tj_run(k, &d) == 0, "run");
    CHECK(o[0] == sum && o[1] == mx && o[2] == mn && o[3] == x, "add %d/%d max %d/%d min %d/%d xor %d/%d", o[0], sum,
          o[1], mx, o[2], mn, o[3], x);
    CHECK(o[4] == 1 && o[5] >= 1 && o[5] <= N, "compare-exchange winners %d (o[5]=%d)", o[4], o[5]);
    for (int g = 0; g < G; g++)
        CHECK(o[6 + g] == gs[g], "group %d sum %d want %d", g, o[6 + g], gs[g]);
    spvjit_kernel_free(k);
    spv_module_free(m);
}
