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
 * what C's ?: does for every c, x and y. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "jit/quick_isel.h"
#include "test_ir_util.h"

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

TEST(quick_isel_expands_min_max_and_saturation)
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

TEST(quick_isel_bit_selects_as_logic)
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
