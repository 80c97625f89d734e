/* testdata/tests/test_jit_quick_isel.c — the integer intrinsics FastISel
 * cannot select, expanded for the quick tier (jit/quick_isel.h).
 *
 * One function per intrinsic and width (umin, umax, smin, smax, usub.sat,
 * uadd.sat on i8, i32 and i64, and a <4 x i32> umin that must stay, being no
 * scalar call) returns the intrinsic of its two arguments.  After the
 * expansion the module must verify and hold no scalar call of them, and on
 * the quick tier's code generation level every function must return what C
 * computes, for operands at and around 0, 1 and the ends of the signed and
 * unsigned ranges of each width.  And a select of one bit in each form
 * InstCombine writes (`c ? x : false`, `c ? true : y`, their negations) and
 * the general one become ands and ors, a select of i32 staying, and return
 * what C's ?: does for every c, x and y.  And stores of constant vectors
 * become stores of their elements (not a volatile one, nor one of i1
 * lanes), keeping their metadata and leaving the bytes C's stores do. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "jit/quick_isel.h"
#include "test_ir_util.h"

#include <llvm-c/Analysis.h>

enum { UMIN, UMAX, SMIN, SMAX, USUB, UADD, NOPS };
static const char *const op_names[NOPS] = { "umin", "umax", "smin", "smax", "usub.sat", "uadd.sat" };
static const unsigned widths[3] = { 8, 32, 64 };

/* What intrinsic op computes on x and y, as `bits`-bit integers (the result zero-extended). */
static uint64_t in_c(int op, unsigned bits, uint64_t x, uint64_t y)
{
    uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
    x &= mask;
    y &= mask;
    int64_t sx = (int64_t)(x << (64 - bits)) >> (64 - bits), sy = (int64_t)(y << (64 - bits)) >> (64 - bits);
    switch (op) {
    case UMIN:
        return x < y ? x : y;
    case UMAX:
        return x > y ? x : y;
    case SMIN:
        return (uint64_t)(sx < sy ? sx : sy) & mask;
    case SMAX:
        return (uint64_t)(sx > sy ? sx : sy) & mask;
    case USUB:
        return x > y ? x - y : 0;
    default:
        return x + y < x || ((x + y) & mask) < x ? mask : (x + y) & mask;
    }
}

static char *module_text(void)
{
    size_t cap = 16384, len = 0;
    char *t = malloc(cap);
    for (int op = 0; op < NOPS; op++)
        for (unsigned w = 0; w < 3; w++)
            len += (size_t)snprintf(t + len, cap - len,
                                    "declare i%u @llvm.%s.i%u(i%u, i%u)\n"
                                    "define i%u @f_%d_%u(i%u %%x, i%u %%y) {\n"
                                    "  %%r = call i%u @llvm.%s.i%u(i%u %%x, i%u %%y)\n"
                                    "  ret i%u %%r\n}\n",
                                    widths[w], op_names[op], widths[w], widths[w], widths[w], widths[w], op, widths[w],
                                    widths[w], widths[w], widths[w], op_names[op], widths[w], widths[w], widths[w],
                                    widths[w]);
    snprintf(t + len, cap - len,
             "declare <4 x i32> @llvm.umin.v4i32(<4 x i32>, <4 x i32>)\n"
             "define <4 x i32> @vec(<4 x i32> %%x, <4 x i32> %%y) {\n"
             "  %%r = call <4 x i32> @llvm.umin.v4i32(<4 x i32> %%x, <4 x i32> %%y)\n"
             "  ret <4 x i32> %%r\n}\n");
    return t;
}

typedef uint8_t (*fn8)(uint8_t, uint8_t);
typedef uint32_t (*fn32)(uint32_t, uint32_t);
typedef uint64_t (*fn64)(uint64_t, uint64_t);

TEST_TIER_FREE(quick_isel_expands_min_max_and_saturation)
{
    spv_diag diag = { { 0 } };
    tir_host h;
    char *text = module_text();
    TIR_HOST_PARSE(&h, text, JIT_LEVEL_QUICK, &diag);
    free(text);

    int n = jit_quick_isel_expand(h.mod);
    CHECK(n == NOPS * 3, "%d calls expanded, expected %d", n, NOPS * 3);
    char *vec = tir_print(LLVMGetNamedFunction(h.mod, "vec"));
    CHECK(strstr(vec, "@llvm.umin.v4i32"), "the vector umin was expanded: %s", vec);
    free(vec);
    char names[NOPS * 3][24];
    const char *name_ptrs[NOPS * 3];
    void *addrs[NOPS * 3];
    for (int op = 0; op < NOPS; op++)
        for (unsigned w = 0; w < 3; w++) {
            unsigned k = (unsigned)op * 3 + w;
            snprintf(names[k], sizeof names[k], "f_%d_%u", op, widths[w]);
            char *fn = tir_print(LLVMGetNamedFunction(h.mod, names[k]));
            CHECK(!strstr(fn, "call "), "%s still calls: %s", names[k], fn);
            free(fn);
            name_ptrs[k] = names[k];
        }
    jit_code *code;
    TIR_HOST_LINK(code, &h, name_ptrs, addrs, NOPS * 3, &diag);
    static const uint64_t edges[] = { 0,
                                      1,
                                      2,
                                      0x7e,
                                      0x7f,
                                      0x80,
                                      0x81,
                                      0xfe,
                                      0xff,
                                      0x7fffffff,
                                      0x80000000u,
                                      0xffffffffu,
                                      0x7fffffffffffffffull,
                                      0x8000000000000000ull,
                                      ~0ull,
                                      12345,
                                      0x100000001ull };
    unsigned ne = sizeof edges / sizeof edges[0], checked = 0;
    for (int op = 0; op < NOPS; op++)
        for (unsigned w = 0; w < 3; w++)
            for (unsigned a = 0; a < ne; a++)
                for (unsigned b = 0; b < ne; b++) {
                    unsigned k = (unsigned)op * 3 + w, bits = widths[w];
                    uint64_t x = edges[a], y = edges[b], got;
                    if (bits == 8)
                        got = ((fn8)addrs[k])((uint8_t)x, (uint8_t)y);
                    else if (bits == 32)
                        got = ((fn32)addrs[k])((uint32_t)x, (uint32_t)y);
                    else
                        got = ((fn64)addrs[k])(x, y);
                    uint64_t want = in_c(op, bits, x, y);
                    CHECK(got == want, "%s.i%u(%#llx, %#llx) = %#llx, expected %#llx", op_names[op], bits,
                          (unsigned long long)x, (unsigned long long)y, (unsigned long long)got,
                          (unsigned long long)want);
                    checked++;
                }
    CHECK(checked == NOPS * 3 * ne * ne, "%u cases", checked);
    tir_host_end(&h, code);
}

/* --- selects of one bit ------------------------------------------------------------------------ */

enum { SEL_AND, SEL_OR, SEL_ANDNOT, SEL_ORNOT, SEL_ANY, NSELS };
/* the select each function makes of c, x and y (the constant sides as InstCombine writes && and ||) */
static const char *const sel_forms[NSELS] = { "i1 %x, i1 false", "i1 true, i1 %y", "i1 false, i1 %y", "i1 %x, i1 true",
                                              "i1 %x, i1 %y" };

static bool sel_in_c(int form, bool c, bool x, bool y)
{
    switch (form) {
    case SEL_AND:
        return c ? x : false;
    case SEL_OR:
        return c ? true : y;
    case SEL_ANDNOT:
        return c ? false : y;
    case SEL_ORNOT:
        return c ? x : true;
    default:
        return c ? x : y;
    }
}

typedef bool (*sel_fn)(bool, bool, bool);

TEST_TIER_FREE(quick_isel_bit_selects_as_logic)
{
    char text[4096];
    size_t len = 0;
    for (int k = 0; k < NSELS; k++)
        len += (size_t)snprintf(text + len, sizeof text - len,
                                "define zeroext i1 @sel_%d(i1 zeroext %%c, i1 zeroext %%x, i1 zeroext %%y) {\n"
                                "  %%r = select i1 %%c, %s\n"
                                "  ret i1 %%r\n}\n",
                                k, sel_forms[k]);
    /* a select of wider values stays: FastISel has it */
    snprintf(text + len, sizeof text - len,
             "define i32 @wide(i1 %%c, i32 %%x, i32 %%y) {\n"
             "  %%r = select i1 %%c, i32 %%x, i32 %%y\n"
             "  ret i32 %%r\n}\n");
    spv_diag diag = { { 0 } };
    tir_host h;
    TIR_HOST_PARSE(&h, text, JIT_LEVEL_QUICK, &diag);
    int n = jit_quick_isel_expand(h.mod);
    CHECK(n == NSELS, "%d selects rewritten, expected %d", n, NSELS);
    char *wide = tir_print(LLVMGetNamedFunction(h.mod, "wide"));
    CHECK(strstr(wide, "select i1 %c, i32 %x, i32 %y"), "the i32 select was rewritten: %s", wide);
    free(wide);
    char names[NSELS][16];
    const char *name_ptrs[NSELS];
    void *addrs[NSELS];
    for (int k = 0; k < NSELS; k++) {
        snprintf(names[k], sizeof names[k], "sel_%d", k);
        name_ptrs[k] = names[k];
        char *fn = tir_print(LLVMGetNamedFunction(h.mod, names[k]));
        CHECK(!strstr(fn, "select"), "%s keeps its select: %s", names[k], fn);
        free(fn);
    }
    jit_code *code;
    TIR_HOST_LINK(code, &h, name_ptrs, addrs, NSELS, &diag);
    for (int k = 0; k < NSELS; k++)
        for (unsigned bits = 0; bits < 8; bits++) {
            bool c = bits & 1, x = bits & 2, y = bits & 4;
            bool got = ((sel_fn)addrs[k])(c, x, y), want = sel_in_c(k, c, x, y);
            CHECK(got == want, "select i1 %d, %s with x = %d, y = %d: %d, expected %d", c, sel_forms[k], x, y, got,
                  want);
        }
    tir_host_end(&h, code);
}

/* --- masks and vector constants in phis ----------------------------------------------------------- */

/* A loop that carries a mask of N lanes through phis and changes it with
 * xor (a constant that is not a splat), a shuffle of two masks, or, selects
 * on a mask and on a scalar, a compare and a phi taking a constant mask;
 * a select of data and a bitcast read the masks, and two phis of i32
 * vectors take constants (one zero).  Its result in C, lane by lane.  The
 * rewritten module must verify (TIR_HOST_LINK), keep no phi of a mask and
 * load its phis' constants, and return what C does. */
static void masks_in_c(unsigned lanes, const int32_t *a, const int32_t *b, uint32_t n, int32_t *acc, uint32_t *bits)
{
    bool m0[16], m[16], m2[16], m3[16], k[16], next[16];
    for (unsigned l = 0; l < lanes; l++) {
        m0[l] = m[l] = a[l] < b[l];
        acc[l] = (int32_t)l + 1;
    }
    for (uint32_t i = 0;; i++) {
        int32_t add[16];
        for (unsigned l = 0; l < lanes; l++) {
            if (i & 1) { /* flip */
                m2[l] = m[l] ^ (l % 3 == 0);
                k[l] = l % 4 < 2;
                add[l] = 0;
            } else { /* mix */
                bool s = l + 1 < lanes ? m[l + 1] : m0[l + 1 - lanes];
                bool pos = acc[l] > b[l];
                m2[l] = pos ? (s || pos) : m[l];
                k[l] = pos;
                add[l] = a[l];
            }
        }
        for (unsigned l = 0; l < lanes; l++) {
            next[l] = i % 3 == 0 ? m[l] : (m2[l] || k[l]) && m0[(l + 2) % lanes];
            m3[l] = next[l];
            if (m3[l])
                acc[l] += add[l] + a[l];
        }
        for (unsigned l = 0; l < lanes; l++)
            m[l] = m3[l];
        if (i + 1 == n)
            break;
    }
    *bits = 0;
    for (unsigned l = 0; l < lanes; l++)
        *bits |= (uint32_t)m3[l] << l;
}

/* The function of masks_in_c for N lanes, named masks_N. */
static size_t masks_text(char *t, size_t cap, unsigned lanes)
{
    char flip[512] = "", vals[512] = "", shuf[512] = "", rot[512] = "", kc[512] = "";
    size_t f = 0, v = 0, s = 0, r = 0, k = 0;
    for (unsigned l = 0; l < lanes; l++) {
        const char *sep = l ? ", " : "";
        f += (size_t)snprintf(flip + f, sizeof flip - f, "%si1 %s", sep, l % 3 == 0 ? "true" : "false");
        k += (size_t)snprintf(kc + k, sizeof kc - k, "%si1 %s", sep, l % 4 < 2 ? "true" : "false");
        v += (size_t)snprintf(vals + v, sizeof vals - v, "%si32 %u", sep, l + 1);
        s += (size_t)snprintf(shuf + s, sizeof shuf - s, "%si32 %u", sep, l + 1);
        r += (size_t)snprintf(rot + r, sizeof rot - r, "%si32 %u", sep, (l + 2) % lanes);
    }
    unsigned N = lanes;
    return (size_t)snprintf(t, cap,
                            "define void @masks_%u(ptr %%pa, ptr %%pb, i32 %%n, ptr %%out) {\n"
                            "entry:\n"
                            "  %%a = load <%u x i32>, ptr %%pa, align 4\n"
                            "  %%b = load <%u x i32>, ptr %%pb, align 4\n"
                            "  %%m0 = icmp slt <%u x i32> %%a, %%b\n"
                            "  %%m0r = shufflevector <%u x i1> %%m0, <%u x i1> poison, <%u x i32> <%s>\n"
                            "  br label %%loop\n"
                            "loop:\n"
                            "  %%i = phi i32 [ 0, %%entry ], [ %%i1, %%latch ]\n"
                            "  %%m = phi <%u x i1> [ %%m0, %%entry ], [ %%m3, %%latch ]\n"
                            "  %%acc = phi <%u x i32> [ <%s>, %%entry ], [ %%acc1, %%latch ]\n"
                            "  %%low = and i32 %%i, 1\n"
                            "  %%odd = icmp ne i32 %%low, 0\n"
                            "  br i1 %%odd, label %%flip, label %%mix\n"
                            "flip:\n"
                            "  %%x = xor <%u x i1> %%m, <%s>\n"
                            "  br label %%latch\n"
                            "mix:\n"
                            "  %%s = shufflevector <%u x i1> %%m, <%u x i1> %%m0, <%u x i32> <%s>\n"
                            "  %%pos = icmp sgt <%u x i32> %%acc, %%b\n"
                            "  %%o = or <%u x i1> %%s, %%pos\n"
                            "  %%v = select <%u x i1> %%pos, <%u x i1> %%o, <%u x i1> %%m\n"
                            "  br label %%latch\n"
                            "latch:\n"
                            "  %%m2 = phi <%u x i1> [ %%x, %%flip ], [ %%v, %%mix ]\n"
                            "  %%k = phi <%u x i1> [ <%s>, %%flip ], [ %%pos, %%mix ]\n"
                            "  %%add = phi <%u x i32> [ zeroinitializer, %%flip ], [ %%a, %%mix ]\n"
                            "  %%third = urem i32 %%i, 3\n"
                            "  %%t = icmp eq i32 %%third, 0\n"
                            "  %%m2k = or <%u x i1> %%m2, %%k\n"
                            "  %%m2r = and <%u x i1> %%m2k, %%m0r\n"
                            "  %%m3 = select i1 %%t, <%u x i1> %%m, <%u x i1> %%m2r\n"
                            "  %%inc = add <%u x i32> %%add, %%a\n"
                            "  %%sum = add <%u x i32> %%acc, %%inc\n"
                            "  %%acc1 = select <%u x i1> %%m3, <%u x i32> %%sum, <%u x i32> %%acc\n"
                            "  %%i1 = add i32 %%i, 1\n"
                            "  %%done = icmp eq i32 %%i1, %%n\n"
                            "  br i1 %%done, label %%exit, label %%loop\n"
                            "exit:\n"
                            "  store <%u x i32> %%acc1, ptr %%out, align 4\n"
                            "  %%bits = bitcast <%u x i1> %%m3 to i%u\n"
                            "  %%wide = zext i%u %%bits to i32\n"
                            "  %%pbits = getelementptr i32, ptr %%out, i64 %u\n"
                            "  store i32 %%wide, ptr %%pbits, align 4\n"
                            "  ret void\n}\n",
                            N, N, N, N, N, N, N, rot, N, N, vals, N, flip, N, N, N, shuf, N, N, N, N, N, N, N, kc, N, N,
                            N, N, N, N, N, N, N, N, N, N, N, N, N);
}

typedef void (*masks_fn)(const int32_t *, const int32_t *, uint32_t, int32_t *);

TEST_TIER_FREE(quick_isel_masks_wide_and_phi_constants_loaded)
{
    static const unsigned lane_counts[3] = { 4, 8, 16 };
    char text[16384];
    size_t len = 0;
    for (unsigned c = 0; c < 3; c++)
        len += masks_text(text + len, sizeof text - len, lane_counts[c]);
    REQUIRE(len < sizeof text, "module text too long");
    spv_diag diag = { { 0 } };
    tir_host h;
    TIR_HOST_PARSE(&h, text, JIT_LEVEL_QUICK, &diag);
    int n = jit_quick_isel_expand(h.mod);
    CHECK(n > 0, "nothing rewritten: %d", n);
    char names[3][16];
    const char *name_ptrs[3];
    void *addrs[3];
    for (unsigned c = 0; c < 3; c++) {
        snprintf(names[c], sizeof names[c], "masks_%u", lane_counts[c]);
        name_ptrs[c] = names[c];
        char *fn = tir_print(LLVMGetNamedFunction(h.mod, names[c]));
        char narrow_phi[32], const_phi[32];
        snprintf(narrow_phi, sizeof narrow_phi, "phi <%u x i1>", lane_counts[c]);
        snprintf(const_phi, sizeof const_phi, "phi <%u x i32> [ <", lane_counts[c]);
        CHECK(!strstr(fn, narrow_phi), "%s keeps a phi of a mask: %s", names[c], fn);
        CHECK(!strstr(fn, const_phi) && !strstr(fn, "[ zeroinitializer"), "%s: a phi still takes a constant: %s",
              names[c], fn);
        CHECK(strstr(fn, "@spvjit.phi.constant"), "%s loads no constant: %s", names[c], fn);
        free(fn);
    }
    jit_code *code;
    TIR_HOST_LINK(code, &h, name_ptrs, addrs, 3, &diag);
    uint32_t seed = 12345;
    unsigned checked = 0;
    for (unsigned c = 0; c < 3; c++)
        for (uint32_t iters = 1; iters <= 13; iters++) {
            unsigned lanes = lane_counts[c];
            int32_t a[16], b[16], want[16], got[17];
            for (unsigned l = 0; l < lanes; l++) {
                seed = seed * 1103515245u + 12345u;
                a[l] = (int32_t)(seed >> 16) % 21 - 10;
                seed = seed * 1103515245u + 12345u;
                b[l] = (int32_t)(seed >> 16) % 41 - 20;
            }
            uint32_t want_bits;
            masks_in_c(lanes, a, b, iters, want, &want_bits);
            ((masks_fn)addrs[c])(a, b, iters, got);
            for (unsigned l = 0; l < lanes; l++)
                CHECK(got[l] == want[l], "%u lanes, %u trips: lane %u is %d, expected %d", lanes, iters, l, got[l],
                      want[l]);
            CHECK((uint32_t)got[lanes] == want_bits, "%u lanes, %u trips: mask %#x, expected %#x", lanes, iters,
                  (unsigned)got[lanes], (unsigned)want_bits);
            checked++;
        }
    CHECK(checked == 39, "%u cases", checked);
    tir_host_end(&h, code);
}

/* --- stores of constant vectors ------------------------------------------------------------------- */

/* Stores of constant vectors, each at its own offset of a 96-byte buffer:
 * what the quick tier splits (a <3 x float> row of coefficients, legal and
 * odd widths, 16-byte alignment, a byte-aligned <3 x i16> with an undefined
 * lane) and what stays (a volatile store, a vector of i1, packed bits). */
static const char constant_stores_text[] =
    "define void @stores(ptr %p) {\n"
    "  store <3 x float> <float 1.5, float -2.25, float 0x3FB99999A0000000>, ptr %p, align 4, !spvjit.wg !0\n"
    "  %q1 = getelementptr i8, ptr %p, i64 12\n"
    "  store <4 x i32> <i32 1, i32 -2, i32 305419896, i32 2147483647>, ptr %q1, align 4\n"
    "  %q2 = getelementptr i8, ptr %p, i64 32\n"
    "  store <2 x double> <double 3.5, double -0.0>, ptr %q2, align 16\n"
    "  %q3 = getelementptr i8, ptr %p, i64 49\n"
    "  store <3 x i16> <i16 -1, i16 4660, i16 undef>, ptr %q3, align 1\n"
    "  %q4 = getelementptr i8, ptr %p, i64 56\n"
    "  store <5 x i8> <i8 1, i8 2, i8 -3, i8 4, i8 5>, ptr %q4, align 1\n"
    "  %q5 = getelementptr i8, ptr %p, i64 64\n"
    "  store volatile <4 x float> <float 1.0, float 2.0, float 3.0, float 4.0>, ptr %q5, align 16\n"
    "  %q6 = getelementptr i8, ptr %p, i64 80\n"
    "  store <8 x i1> <i1 1, i1 0, i1 1, i1 1, i1 0, i1 0, i1 0, i1 1>, ptr %q6, align 1\n"
    "  %q7 = getelementptr i8, ptr %p, i64 84\n"
    "  store <2 x half> <half 0xH3C00, half 0xHC000>, ptr %q7, align 2\n"
    "  ret void\n}\n"
    "!0 = !{}\n";

TEST_TIER_FREE(quick_isel_constant_vector_stores_split)
{
    spv_diag diag = { { 0 } };
    tir_host h;
    TIR_HOST_PARSE(&h, constant_stores_text, JIT_LEVEL_QUICK, &diag);
    int n = jit_quick_isel_expand(h.mod);
    CHECK(n == 6, "%d rewrites, expected the 6 stores split", n);
    char *fn = tir_print(LLVMGetNamedFunction(h.mod, "stores"));
    static const char *const split[] = { "<3 x float>", "<4 x i32>", "<2 x double>",
                                         "<3 x i16>",   "<5 x i8>",  "<2 x half>" };
    for (unsigned k = 0; k < sizeof split / sizeof *split; k++)
        CHECK(!strstr(fn, split[k]), "a store of %s is left: %s", split[k], fn);
    CHECK(strstr(fn, "store volatile <4 x float>") && strstr(fn, "store <8 x i1>"),
          "the volatile store or the store of i1 lanes went: %s", fn);
    CHECK(strstr(fn, "store double -0.000000e+00, ptr %") && strstr(fn, ", align 8"),
          "the second double is not stored 8-byte aligned: %s", fn);
    CHECK(test_count(fn, "store i16") == 2, "the undefined i16 lane is stored, or a defined one is not: %s", fn);
    CHECK(test_count(fn, "!spvjit.wg") == 3, "the <3 x float> store's parts lost its metadata: %s", fn);
    free(fn);

    /* The bytes C's own stores leave; the undefined lane's two bytes are not compared. */
    unsigned char want[96], got[96];
    memset(want, 0xab, sizeof want);
    const float f3[3] = { 1.5f, -2.25f, 0.1f };
    const int32_t i4[4] = { 1, -2, 305419896, 2147483647 };
    const double d2[2] = { 3.5, -0.0 };
    const uint16_t s2[2] = { 0xffff, 4660 }, h2[2] = { 0x3c00, 0xc000 };
    const int8_t b5[5] = { 1, 2, -3, 4, 5 };
    const float v4[4] = { 1, 2, 3, 4 };
    memcpy(want, f3, 12);
    memcpy(want + 12, i4, 16);
    memcpy(want + 32, d2, 16);
    memcpy(want + 49, s2, 4);
    memcpy(want + 56, b5, 5);
    memcpy(want + 64, v4, 16);
    want[80] = 0x8d; /* lane 0 in bit 0 */
    memcpy(want + 84, h2, 4);
    memset(got, 0xab, sizeof got);
    const char *name = "stores";
    void *addr;
    jit_code *code;
    TIR_HOST_LINK(code, &h, &name, &addr, 1, &diag);
    ((void (*)(void *))addr)(got);
    for (unsigned i = 0; i < sizeof got; i++)
        if (i != 53 && i != 54)
            CHECK(got[i] == want[i], "byte %u is %#x, expected %#x", i, got[i], want[i]);
    tir_host_end(&h, code);
}

/* --- blocks split before what FastISel cannot select ------------------------------------------------ */

/* `split`: a scalar head (an index computed from in[0]), then vector code
 * (a splat, a compare and a select of <4 x i32>); `kept`: the same with a
 * stack allocation after the vector code, which a split would make dynamic. */
static const char split_text[] = "define void @split(ptr %in, ptr %out) {\n"
                                 "entry:\n"
                                 "  %x = load i32, ptr %in\n"
                                 "  %i = mul i32 %x, 3\n"
                                 "  %j = add i32 %i, -7\n"
                                 "  %v0 = insertelement <4 x i32> poison, i32 %j, i32 0\n"
                                 "  %v = shufflevector <4 x i32> %v0, <4 x i32> poison, <4 x i32> zeroinitializer\n"
                                 "  %w = add <4 x i32> %v, <i32 0, i32 5, i32 10, i32 15>\n"
                                 "  %c = icmp slt <4 x i32> %w, <i32 0, i32 0, i32 0, i32 0>\n"
                                 "  %r = select <4 x i1> %c, <4 x i32> zeroinitializer, <4 x i32> %w\n"
                                 "  store <4 x i32> %r, ptr %out, align 4\n"
                                 "  ret void\n"
                                 "}\n"
                                 "define void @kept(ptr %in, ptr %out) {\n"
                                 "entry:\n"
                                 "  %x = load i32, ptr %in\n"
                                 "  %v0 = insertelement <4 x i32> poison, i32 %x, i32 0\n"
                                 "  %a = alloca <4 x i32>, align 16\n"
                                 "  store <4 x i32> %v0, ptr %a\n"
                                 "  %e = load i32, ptr %a\n"
                                 "  store i32 %e, ptr %out\n"
                                 "  ret void\n"
                                 "}\n";

/* The first instruction of the block after the entry, as text. */
static char *second_block_head(LLVMValueRef fn)
{
    LLVMBasicBlockRef bb = LLVMGetNextBasicBlock(LLVMGetEntryBasicBlock(fn));
    return bb ? LLVMPrintValueToString(LLVMGetFirstInstruction(bb)) : NULL;
}

TEST_TIER_FREE(quick_isel_blocks_split_before_selection_dag)
{
    spv_diag diag = { { 0 } };
    tir_host h;
    TIR_HOST_PARSE(&h, split_text, JIT_LEVEL_QUICK, &diag);
    int n = jit_quick_isel_expand(h.mod);
    LLVMValueRef split = LLVMGetNamedFunction(h.mod, "split"), kept = LLVMGetNamedFunction(h.mod, "kept");
    char *head = second_block_head(split);
    CHECK(n >= 1 && LLVMCountBasicBlocks(split) == 2 && head && strstr(head, "insertelement"),
          "split: %d rewrites, %u blocks, the second from '%s'", n, LLVMCountBasicBlocks(split), head ? head : "");
    LLVMDisposeMessage(head);
    CHECK(LLVMCountBasicBlocks(kept) == 1, "kept: split into %u blocks", LLVMCountBasicBlocks(kept));
    CHECK(!LLVMVerifyModule(h.mod, LLVMReturnStatusAction, NULL), "the module does not verify");
    const char *names[2] = { "split", "kept" };
    void *addrs[2];
    jit_code *code;
    TIR_HOST_LINK(code, &h, names, addrs, 2, &diag);
    for (int32_t x = -4; x <= 6; x++) {
        int32_t out[4] = { 0x5a5a5a5a, 0x5a5a5a5a, 0x5a5a5a5a, 0x5a5a5a5a }, one = 0;
        ((void (*)(const int32_t *, int32_t *))addrs[0])(&x, out);
        for (int l = 0; l < 4; l++) {
            int32_t w = 3 * x - 7 + 5 * l;
            CHECK(out[l] == (w < 0 ? 0 : w), "split(%d) lane %d: %d, expected %d", x, l, out[l], w < 0 ? 0 : w);
        }
        ((void (*)(const int32_t *, int32_t *))addrs[1])(&x, &one);
        CHECK(one == x, "kept(%d): %d", x, one);
    }
    tir_host_end(&h, code);
}
