/* testdata/tests/test_fold.c — the OpSpecConstantOp folder against plain C.
 *
 * Each opcode runs on random operands (edge values mixed in) at every width,
 * as scalars and vectors; the reference is the same operation written with C's
 * exact-width types, _Float16 for half, __int128 where C would overflow.
 */
#include "harness.h"

#include <math.h>
#include <string.h>
#include <spirv/unified1/spirv.h>

#include "spirv/fold.h"

static const unsigned int_widths[] = { 8, 16, 32, 64 };
static const unsigned float_widths[] = { 16, 32, 64 };
static const unsigned lane_counts[] = { 1, 2, 3, 4, 8, 16 };

static uint64_t mask(uint64_t v, unsigned w)
{
    return w >= 64 ? v : v & ((1ull << w) - 1);
}

/* Random int bits of width w: edge values a quarter of the time. */
static uint64_t rand_int(uint64_t *s, unsigned w)
{
    uint64_t r = test_rand_u64(s);
    switch (r % 12) {
    case 0:
        return 0;
    case 1:
        return 1;
    case 2:
        return mask(~0ull, w); /* -1 */
    case 3:
        return 1ull << (w - 1); /* INT_MIN */
    case 4:
        return mask(~0ull, w) >> 1; /* INT_MAX */
    case 5:
        return mask(test_rand_u64(s) % 70, w); /* small, also shift amounts near w */
    case 6:
        return mask((uint64_t)0 - test_rand_u64(s) % 70, w);
    default:
        return mask(test_rand_u64(s), w);
    }
}

static uint64_t f32b(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static float bf32(uint64_t b)
{
    uint32_t u = (uint32_t)b;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static uint64_t f64b(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}
static double bf64(uint64_t b)
{
    double d;
    memcpy(&d, &b, 8);
    return d;
}
static uint64_t f16b(_Float16 h)
{
    uint16_t u;
    memcpy(&u, &h, 2);
    return u;
}
static _Float16 bf16(uint64_t b)
{
    uint16_t u = (uint16_t)b;
    _Float16 h;
    memcpy(&h, &u, 2);
    return h;
}

static double to_double(uint64_t b, unsigned w)
{
    return w == 16 ? (double)bf16(b) : w == 32 ? bf32(b) : bf64(b);
}

/* Random float bits of width w: specials, denormals and a wide range of magnitudes. */
static uint64_t rand_float(uint64_t *s, unsigned w)
{
    uint64_t r = test_rand_u64(s);
    double d;
    switch (r % 16) {
    case 0:
        d = 0.0;
        break;
    case 1:
        d = -0.0;
        break;
    case 2:
        d = INFINITY;
        break;
    case 3:
        d = -INFINITY;
        break;
    case 4:
        d = NAN;
        break;
    case 5: /* raw bits: denormals, huge, anything */
        return mask(test_rand_u64(s), w);
    case 6:
        d = (double)(int)(test_rand_u64(s) % 200) - 100;
        break; /* small integers */
    default: {
        double m = (double)(test_rand_u64(s) >> 11) / 9007199254740992.0 + 0.5;
        int e = (int)(test_rand_u64(s) % (w == 16 ? 34 : w == 32 ? 100 : 300)) - (w == 16 ? 20 : w == 32 ? 50 : 150);
        d = ldexp(m, e) * ((r >> 8) & 1 ? -1 : 1);
    }
    }
    return w == 16 ? f16b((_Float16)d) : w == 32 ? f32b((float)d) : f64b(d);
}

static bool float_same(uint64_t a, uint64_t b, unsigned w)
{
    if (isnan(to_double(a, w)) && isnan(to_double(b, w)))
        return true;
    return a == b;
}

static spv_fold_value val(unsigned kind, unsigned w, unsigned lanes)
{
    spv_fold_value v;
    memset(&v, 0, sizeof v);
    v.t = (spv_fold_type){ (uint8_t)kind, (uint8_t)w, (uint8_t)lanes };
    return v;
}

static spv_fold_type ty(unsigned kind, unsigned w, unsigned lanes)
{
    return (spv_fold_type){ (uint8_t)kind, (uint8_t)w, (uint8_t)lanes };
}

/* --- integer references ---------------------------------------------------------------- */

#define INT_REF(T, UT, W)                                                                                              \
    do {                                                                                                               \
        UT ua = (UT)a, ub = (UT)b;                                                                                     \
        T sa = (T)ua, sb = (T)ub;                                                                                      \
        T smin = (T)((UT)1 << (W - 1));                                                                                \
        switch (op) {                                                                                                  \
        case SpvOpIAdd:                                                                                                \
            return (UT)(ua + ub);                                                                                      \
        case SpvOpISub:                                                                                                \
            return (UT)(ua - ub);                                                                                      \
        case SpvOpIMul:                                                                                                \
            return (UT)((UT)ua * (UT)ub);                                                                              \
        case SpvOpUDiv:                                                                                                \
            return ub ? (UT)(ua / ub) : 0;                                                                             \
        case SpvOpUMod:                                                                                                \
            return ub ? (UT)(ua % ub) : 0;                                                                             \
        case SpvOpSDiv:                                                                                                \
            return (sb == 0 || (sa == smin && sb == -1)) ? 0 : (UT)(T)(sa / sb);                                       \
        case SpvOpSRem:                                                                                                \
            return (sb == 0 || sb == -1) ? 0 : (UT)(T)(sa % sb);                                                       \
        case SpvOpSMod: {                                                                                              \
            if (sb == 0 || sb == -1)                                                                                   \
                return 0;                                                                                              \
            __int128 r = (((__int128)sa % sb) + sb) % sb; /* floor modulo: sign of divisor */                          \
            return (UT)(T)r;                                                                                           \
        }                                                                                                              \
        case SpvOpBitwiseOr:                                                                                           \
            return (UT)(ua | ub);                                                                                      \
        case SpvOpBitwiseXor:                                                                                          \
            return (UT)(ua ^ ub);                                                                                      \
        case SpvOpBitwiseAnd:                                                                                          \
            return (UT)(ua & ub);                                                                                      \
        case SpvOpShiftLeftLogical:                                                                                    \
            return shift >= W ? 0 : (UT)(ua << shift);                                                                 \
        case SpvOpShiftRightLogical:                                                                                   \
            return shift >= W ? 0 : (UT)(ua >> shift);                                                                 \
        case SpvOpShiftRightArithmetic:                                                                                \
            return shift >= W ? (sa < 0 ? (UT) ~(UT)0 : 0) : (UT)(T)(sa >> shift);                                     \
        case SpvOpIEqual:                                                                                              \
            return ua == ub;                                                                                           \
        case SpvOpINotEqual:                                                                                           \
            return ua != ub;                                                                                           \
        case SpvOpULessThan:                                                                                           \
            return ua < ub;                                                                                            \
        case SpvOpSLessThan:                                                                                           \
            return sa < sb;                                                                                            \
        case SpvOpUGreaterThan:                                                                                        \
            return ua > ub;                                                                                            \
        case SpvOpSGreaterThan:                                                                                        \
            return sa > sb;                                                                                            \
        case SpvOpULessThanEqual:                                                                                      \
            return ua <= ub;                                                                                           \
        case SpvOpSLessThanEqual:                                                                                      \
            return sa <= sb;                                                                                           \
        case SpvOpUGreaterThanEqual:                                                                                   \
            return ua >= ub;                                                                                           \
        case SpvOpSGreaterThanEqual:                                                                                   \
            return sa >= sb;                                                                                           \
        case SpvOpSNegate:                                                                                             \
            return (UT)(0 - ua);                                                                                       \
        case SpvOpNot:                                                                                                 \
            return (UT)~ua;                                                                                            \
        }                                                                                                              \
    } while (0)

static uint64_t int_ref(uint32_t op, uint64_t a, uint64_t b, uint64_t shift, unsigned w)
{
    switch (w) {
    case 8:
        INT_REF(int8_t, uint8_t, 8);
        break;
    case 16:
        INT_REF(int16_t, uint16_t, 16);
        break;
    case 32:
        INT_REF(int32_t, uint32_t, 32);
        break;
    default:
        INT_REF(int64_t, uint64_t, 64);
        break;
    }
    return 0xdead;
}

static const uint32_t int_binops[] = {
    SpvOpIAdd,
    SpvOpISub,
    SpvOpIMul,
    SpvOpUDiv,
    SpvOpUMod,
    SpvOpSDiv,
    SpvOpSRem,
    SpvOpSMod,
    SpvOpBitwiseOr,
    SpvOpBitwiseXor,
    SpvOpBitwiseAnd,
    SpvOpShiftLeftLogical,
    SpvOpShiftRightLogical,
    SpvOpShiftRightArithmetic,
};
static const uint32_t int_cmps[] = {
    SpvOpIEqual,       SpvOpINotEqual,      SpvOpULessThan,      SpvOpSLessThan,         SpvOpUGreaterThan,
    SpvOpSGreaterThan, SpvOpULessThanEqual, SpvOpSLessThanEqual, SpvOpUGreaterThanEqual, SpvOpSGreaterThanEqual,
};

TEST_TIER_FREE(fold_int_binary_and_compare)
{
    uint64_t s = 0x1234567;
    int checked = 0;
    for (size_t oi = 0; oi < sizeof int_binops / sizeof *int_binops + sizeof int_cmps / sizeof *int_cmps; oi++) {
        bool cmp = oi >= sizeof int_binops / sizeof *int_binops;
        uint32_t op = cmp ? int_cmps[oi - sizeof int_binops / sizeof *int_binops] : int_binops[oi];
        bool is_shift = op == SpvOpShiftLeftLogical || op == SpvOpShiftRightLogical || op == SpvOpShiftRightArithmetic;
        for (size_t wi = 0; wi < 4; wi++)
            for (size_t li = 0; li < 6; li++)
                for (int it = 0; it < 40; it++) {
                    unsigned w = int_widths[wi], n = lane_counts[li];
                    /* a shift amount may have its own width */
                    unsigned bw = is_shift ? int_widths[test_rand_u64(&s) % 4] : w;
                    spv_fold_value a = val(SPV_FOLD_INT, w, n), b = val(SPV_FOLD_INT, bw, n), r;
                    for (unsigned i = 0; i < n; i++) {
                        a.lane[i] = rand_int(&s, w);
                        b.lane[i] = rand_int(&s, bw);
                    }
                    spv_fold_value args[2] = { a, b };
                    spv_diag d;
                    int rc =
                        spv_fold(op, cmp ? ty(SPV_FOLD_BOOL, 1, n) : ty(SPV_FOLD_INT, w, n), args, 2, NULL, 0, &r, &d);
                    REQUIRE(rc == 0, "op %u w %u: %s", op, w, d.msg);
                    for (unsigned i = 0; i < n; i++) {
                        uint64_t want = int_ref(op, a.lane[i], is_shift ? 0 : b.lane[i], b.lane[i], w);
                        CHECK(r.lane[i] == want, "op %u w %u (shift w %u) lane %u: %llx op %llx = %llx, want %llx", op,
                              w, bw, i, (unsigned long long)a.lane[i], (unsigned long long)b.lane[i],
                              (unsigned long long)r.lane[i], (unsigned long long)want);
                        checked++;
                    }
                }
    }
    CHECK(checked > 10000, "only %d lanes checked", checked);
}

TEST_TIER_FREE(fold_int_sign_rules)
{
    /* SRem takes the dividend's sign, SMod the divisor's; spelled out */
    struct {
        int32_t a, b, srem, smod, sdiv;
    } cases[] = {
        { 7, 3, 1, 1, 2 }, { -7, 3, -1, 2, -2 }, { 7, -3, 1, -2, -2 },       { -7, -3, -1, -1, 2 },
        { 6, 3, 0, 0, 2 }, { -6, 3, 0, 0, -2 },  { INT32_MIN, -1, 0, 0, 0 }, { 5, 0, 0, 0, 0 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        spv_fold_value args[2] = { val(SPV_FOLD_INT, 32, 1), val(SPV_FOLD_INT, 32, 1) }, r;
        args[0].lane[0] = (uint32_t)cases[k].a;
        args[1].lane[0] = (uint32_t)cases[k].b;
        spv_diag d;
        uint32_t ops[3] = { SpvOpSRem, SpvOpSMod, SpvOpSDiv };
        int32_t want[3] = { cases[k].srem, cases[k].smod, cases[k].sdiv };
        for (int o = 0; o < 3; o++) {
            REQUIRE(spv_fold(ops[o], ty(SPV_FOLD_INT, 32, 1), args, 2, NULL, 0, &r, &d) == 0, "%s", d.msg);
            CHECK((int32_t)r.lane[0] == want[o], "op %u: %d, %d -> %d, want %d", ops[o], cases[k].a, cases[k].b,
                  (int32_t)r.lane[0], want[o]);
        }
    }
}

TEST_TIER_FREE(fold_int_unary_and_conversions)
{
    uint64_t s = 99;
    for (int it = 0; it < 3000; it++) {
        unsigned w = int_widths[it % 4], rw = int_widths[(it / 4) % 4], n = lane_counts[(it / 16) % 6];
        spv_fold_value a = val(SPV_FOLD_INT, w, n), r;
        for (unsigned i = 0; i < n; i++)
            a.lane[i] = rand_int(&s, w);
        spv_diag d;
        uint32_t un[2] = { SpvOpSNegate, SpvOpNot };
        for (int k = 0; k < 2; k++) {
            REQUIRE(spv_fold(un[k], ty(SPV_FOLD_INT, w, n), &a, 1, NULL, 0, &r, &d) == 0, "%s", d.msg);
            for (unsigned i = 0; i < n; i++)
                CHECK(r.lane[i] == int_ref(un[k], a.lane[i], 0, 0, w), "unary %u w %u", un[k], w);
        }
        REQUIRE(spv_fold(SpvOpSConvert, ty(SPV_FOLD_INT, rw, n), &a, 1, NULL, 0, &r, &d) == 0, "%s", d.msg);
        for (unsigned i = 0; i < n; i++) {
            int64_t sv = w == 8    ? (int8_t)a.lane[i]
                         : w == 16 ? (int16_t)a.lane[i]
                         : w == 32 ? (int32_t)a.lane[i]
                                   : (int64_t)a.lane[i];
            CHECK(r.lane[i] == mask((uint64_t)sv, rw), "SConvert %u->%u of %llx: %llx", w, rw,
                  (unsigned long long)a.lane[i], (unsigned long long)r.lane[i]);
        }
        REQUIRE(spv_fold(SpvOpUConvert, ty(SPV_FOLD_INT, rw, n), &a, 1, NULL, 0, &r, &d) == 0, "%s", d.msg);
        for (unsigned i = 0; i < n; i++)
            CHECK(r.lane[i] == mask(a.lane[i], rw), "UConvert %u->%u", w, rw);
    }
}

TEST_TIER_FREE(fold_shift_out_of_range)
{
    /* documented choice: amounts >= width give 0, or the sign fill for the arithmetic shift */
    spv_fold_value args[2] = { val(SPV_FOLD_INT, 16, 1), val(SPV_FOLD_INT, 32, 1) }, r;
    args[0].lane[0] = 0x8123;
    args[1].lane[0] = 16;
    spv_diag d;
    REQUIRE(spv_fold(SpvOpShiftRightArithmetic, ty(SPV_FOLD_INT, 16, 1), args, 2, NULL, 0, &r, &d) == 0, "%s", d.msg);
    CHECK(r.lane[0] == 0xffff, "sra by 16: %llx", (unsigned long long)r.lane[0]);
    REQUIRE(spv_fold(SpvOpShiftLeftLogical, ty(SPV_FOLD_INT, 16, 1), args, 2, NULL, 0, &r, &d) == 0, "%s", d.msg);
    CHECK(r.lane[0] == 0, "shl by 16");
    args[1].lane[0] = 0xffffffff; /* -1 as a signed amount reads as huge */
    REQUIRE(spv_fold(SpvOpShiftRightLogical, ty(SPV_FOLD_INT, 16, 1), args, 2, NULL, 0, &r, &d) == 0, "%s", d.msg);
    CHECK(r.lane[0] == 0, "srl by -1");
    args[1].lane[0] = 15;
    REQUIRE(spv_fold(SpvOpShiftRightArithmetic, ty(SPV_FOLD_INT, 16, 1), args, 2, NULL, 0, &r, &d) == 0, "%s", d.msg);
    CHECK(r.lane[0] == 0xffff, "sra by 15");
}

/* --- logical, select, shuffle, extract, insert, bitcast ------------------------------------------------------ */

TEST_TIER_FREE(fold_logical_and_select)
{
    uint64_t s = 7;
    uint32_t ops[4] = { SpvOpLogicalOr, SpvOpLogicalAnd, SpvOpLogicalEqual, SpvOpLogicalNotEqual };
    for (int it = 0; it < 400; it++) {
        unsigned n = lane_counts[it % 6];
        spv_fold_value a = val(SPV_FOLD_BOOL, 1, n), b = val(SPV_FOLD_BOOL, 1, n), r;
        for (unsigned i = 0; i < n; i++) {
            a.lane[i] = test_rand_u64(&s) & 1;
            b.lane[i] = test_rand_u64(&s) & 1;
        }
        spv_fold_value args[2] = { a, b };
        spv_diag d;
        for (int k = 0; k < 4; k++) {
            REQUIRE(spv_fold(ops[k], ty(SPV_FOLD_BOOL, 1, n), args, 2, NULL, 0, &r, &d) == 0, "%s", d.msg);
            for (unsigned i = 0; i < n; i++) {
                bool x = a.lane[i], y = b.lane[i];
                bool want = k == 0 ? (x || y) : k == 1 ? (x && y) : k == 2 ? x == y : x != y;
                CHECK(r.lane[i] == want, "logical %u lane %u", ops[k], i);
            }
        }
        REQUIRE(spv_fold(SpvOpLogicalNot, ty(SPV_FOLD_BOOL, 1, n), &a, 1, NULL, 0, &r, &d) == 0, "%s", d.msg);
        for (unsigned i = 0; i < n; i++)
            CHECK(r.lane[i] == !a.lane[i], "not");
        /* Select with a vector condition and with a scalar one, on ints and floats */
        unsigned fw = float_widths[it % 3];
        spv_fold_value x = val(SPV_FOLD_FLOAT, fw, n), y = val(SPV_FOLD_FLOAT, fw, n);
        for (unsigned i = 0; i < n; i++) {
            x.lane[i] = rand_float(&s, fw);
            y.lane[i] = rand_float(&s, fw);
        }
        spv_fold_value sel[3] = { a, x, y };
        REQUIRE(spv_fold(SpvOpSelect, x.t, sel, 3, NULL, 0, &r, &d) == 0, "%s", d.msg);
        for (unsigned i = 0; i < n; i++)
            CHECK(r.lane[i] == (a.lane[i] ? x.lane[i] : y.lane[i]), "select lane %u", i);
        sel[0] = val(SPV_FOLD_BOOL, 1, 1);
        sel[0].lane[0] = it & 1;
        REQUIRE(spv_fold(SpvOpSelect, x.t, sel, 3, NULL, 0, &r, &d) == 0, "%s", d.msg);
        for (unsigned i = 0; i < n; i++)
            CHECK(r.lane[i] == ((it & 1) ? x.lane[i] : y.lane[i]), "scalar select lane %u", i);
    }
}

TEST_TIER_FREE(fold_shuffle_extract_insert)
{
    uint64_t s = 11;
    for (int it = 0; it < 500; it++) {
        unsigned n1 = lane_counts[1 + it % 5], n2 = lane_counts[1 + (it / 5) % 5], n = lane_counts[1 + (it / 25) % 5];
        unsigned w = int_widths[it % 4];
        spv_fold_value a = val(SPV_FOLD_INT, w, n1), b = val(SPV_FOLD_INT, w, n2), r;
        for (unsigned i = 0; i < n1; i++)
            a.lane[i] = rand_int(&s, w) | 1; /* nonzero, so an undefined lane (0) is told apart */
        for (unsigned i = 0; i < n2; i++)
            b.lane[i] = rand_int(&s, w) | 1;
        uint32_t sel[16];
        for (unsigned i = 0; i < n; i++)
            sel[i] = test_rand_u64(&s) % 7 == 0 ? 0xFFFFFFFFu : (uint32_t)(test_rand_u64(&s) % (n1 + n2));
        spv_fold_value args[2] = { a, b };
        spv_diag d;
        REQUIRE(spv_fold(SpvOpVectorShuffle, ty(SPV_FOLD_INT, w, n), args, 2, sel, n, &r, &d) == 0, "%s", d.msg);
        for (unsigned i = 0; i < n; i++) {
            uint64_t want = sel[i] == 0xFFFFFFFFu ? 0 : sel[i] < n1 ? a.lane[sel[i]] : b.lane[sel[i] - n1];
            CHECK(r.lane[i] == want, "shuffle lane %u sel %u", i, sel[i]);
        }
        uint32_t idx = (uint32_t)(test_rand_u64(&s) % n1);
        REQUIRE(spv_fold(SpvOpCompositeExtract, ty(SPV_FOLD_INT, w, 1), &a, 1, &idx, 1, &r, &d) == 0, "%s", d.msg);
        CHECK(r.lane[0] == a.lane[idx], "extract %u", idx);
        spv_fold_value obj = val(SPV_FOLD_INT, w, 1);
        obj.lane[0] = rand_int(&s, w);
        spv_fold_value ins[2] = { obj, a };
        REQUIRE(spv_fold(SpvOpCompositeInsert, a.t, ins, 2, &idx, 1, &r, &d) == 0, "%s", d.msg);
        for (unsigned i = 0; i < n1; i++)
            CHECK(r.lane[i] == (i == idx ? obj.lane[0] : a.lane[i]), "insert lane %u", i);
    }
    /* out-of-range selections are errors, not reads past the vector */
    spv_fold_value a = val(SPV_FOLD_INT, 32, 2), r;
    spv_fold_value args[2] = { a, a };
    uint32_t bad[2] = { 0, 4 };
    spv_diag d;
    CHECK(spv_fold(SpvOpVectorShuffle, ty(SPV_FOLD_INT, 32, 2), args, 2, bad, 2, &r, &d) != 0, "bad shuffle accepted");
    uint32_t bidx = 2;
    CHECK(spv_fold(SpvOpCompositeExtract, ty(SPV_FOLD_INT, 32, 1), &a, 1, &bidx, 1, &r, &d) != 0, "bad extract");
}

TEST_TIER_FREE(fold_bitcast)
{
    uint64_t s = 5;
    for (int it = 0; it < 2000; it++) {
        unsigned iw = int_widths[test_rand_u64(&s) % 4], ow = int_widths[test_rand_u64(&s) % 4];
        unsigned total = (unsigned)(lane_counts[test_rand_u64(&s) % 6] * 64);
        if (total / iw > 16 || total / ow > 16)
            continue;
        unsigned in = total / iw, on = total / ow;
        if (in == 0 || on == 0 || (in != 1 && in < 2) || (on > 1 && on < 2))
            continue;
        bool in_float = iw >= 16 && test_rand_u64(&s) % 2, out_float = ow >= 16 && test_rand_u64(&s) % 2;
        spv_fold_value a = val(in_float ? SPV_FOLD_FLOAT : SPV_FOLD_INT, iw, in), r;
        uint8_t bytes[128];
        for (unsigned i = 0; i < in; i++) {
            a.lane[i] = mask(test_rand_u64(&s), iw);
            memcpy(bytes + i * iw / 8, &a.lane[i], iw / 8); /* little-endian host: low bytes first */
        }
        spv_diag d;
        REQUIRE(spv_fold(SpvOpBitcast, ty(out_float ? SPV_FOLD_FLOAT : SPV_FOLD_INT, ow, on), &a, 1, NULL, 0, &r, &d) ==
                    0,
                "%s", d.msg);
        for (unsigned i = 0; i < on; i++) {
            uint64_t want = 0;
            memcpy(&want, bytes + i * ow / 8, ow / 8);
            CHECK(r.lane[i] == want, "bitcast %ux%u -> %ux%u lane %u", in, iw, on, ow, i);
        }
    }
    spv_fold_value a = val(SPV_FOLD_INT, 32, 3), r;
    spv_diag d;
    CHECK(spv_fold(SpvOpBitcast, ty(SPV_FOLD_INT, 64, 1), &a, 1, NULL, 0, &r, &d) != 0, "96 -> 64 bits accepted");
}

/* --- floats ---------------------------------------------------------------------------------------------------- */

static uint64_t float_ref(uint32_t op, uint64_t a, uint64_t b, unsigned w)
{
    if (w == 16) {
        _Float16 x = bf16(a), y = bf16(b), r;
        switch (op) {
        case SpvOpFAdd:
            r = x + y;
            break;
        case SpvOpFSub:
            r = x - y;
            break;
        case SpvOpFMul:
            r = x * y;
            break;
        case SpvOpFDiv:
            r = x / y;
            break;
        case SpvOpFRem:
            r = (_Float16)fmodf(x, y);
            break;
        default: { /* FMod: the sign of the divisor */
            float m = fmodf(x, y);
            if (m != 0 && !signbit(m) != !signbit((float)y))
                m += (float)y; /* exact in float for half operands */
            r = (_Float16)m;
        }
        }
        return f16b(r);
    }
    if (w == 32) {
        float x = bf32(a), y = bf32(b), r;
        switch (op) {
        case SpvOpFAdd:
            r = x + y;
            break;
        case SpvOpFSub:
            r = x - y;
            break;
        case SpvOpFMul:
            r = x * y;
            break;
        case SpvOpFDiv:
            r = x / y;
            break;
        case SpvOpFRem:
            r = (float)fmod(x, y);
            break;
        default: {
            double m = fmod(x, y);
            if (m != 0 && !signbit(m) != !signbit(y))
                m += y;
            r = (float)m;
        }
        }
        return f32b(r);
    }
    double x = bf64(a), y = bf64(b), r;
    switch (op) {
    case SpvOpFAdd:
        r = x + y;
        break;
    case SpvOpFSub:
        r = x - y;
        break;
    case SpvOpFMul:
        r = x * y;
        break;
    case SpvOpFDiv:
        r = x / y;
        break;
    case SpvOpFRem:
        r = (double)fmodl(x, y);
        break;
    default: {
        long double m = fmodl(x, y);
        if (m != 0 && !signbit(m) != !signbit(y))
            m += y;
        r = (double)m;
    }
    }
    return f64b(r);
}

TEST_TIER_FREE(fold_float_arithmetic)
{
    uint64_t s = 31337;
    uint32_t ops[6] = { SpvOpFAdd, SpvOpFSub, SpvOpFMul, SpvOpFDiv, SpvOpFRem, SpvOpFMod };
    int checked = 0;
    for (int k = 0; k < 6; k++)
        for (int it = 0; it < 1500; it++) {
            unsigned w = float_widths[it % 3], n = lane_counts[(it / 3) % 6];
            spv_fold_value args[2] = { val(SPV_FOLD_FLOAT, w, n), val(SPV_FOLD_FLOAT, w, n) }, r;
            for (unsigned i = 0; i < n; i++) {
                args[0].lane[i] = rand_float(&s, w);
                args[1].lane[i] = rand_float(&s, w);
            }
            spv_diag d;
            REQUIRE(spv_fold(ops[k], args[0].t, args, 2, NULL, 0, &r, &d) == 0, "%s", d.msg);
            for (unsigned i = 0; i < n; i++) {
                uint64_t want = float_ref(ops[k], args[0].lane[i], args[1].lane[i], w);
                CHECK(float_same(r.lane[i], want, w), "op %u f%u: %a, %a -> %a, want %a", ops[k], w,
                      to_double(args[0].lane[i], w), to_double(args[1].lane[i], w), to_double(r.lane[i], w),
                      to_double(want, w));
                checked++;
            }
        }
    CHECK(checked > 20000, "only %d checked", checked);
    /* FNegate flips the sign bit only, NaN included */
    spv_fold_value a = val(SPV_FOLD_FLOAT, 32, 2), r;
    a.lane[0] = 0x7fc00001;
    a.lane[1] = 0;
    spv_diag d;
    REQUIRE(spv_fold(SpvOpFNegate, a.t, &a, 1, NULL, 0, &r, &d) == 0, "%s", d.msg);
    CHECK(r.lane[0] == 0xffc00001 && r.lane[1] == 0x80000000, "fnegate");
    /* spelled-out sign rules: FRem like the dividend, FMod like the divisor */
    struct {
        double a, b, frem, fmod;
    } cases[] = {
        { 5.5, 2, 1.5, 1.5 },
        { -5.5, 2, -1.5, 0.5 },
        { 5.5, -2, 1.5, -0.5 },
        { -5.5, -2, -1.5, -1.5 },
    };
    for (int c = 0; c < 4; c++) {
        spv_fold_value x[2] = { val(SPV_FOLD_FLOAT, 64, 1), val(SPV_FOLD_FLOAT, 64, 1) };
        x[0].lane[0] = f64b(cases[c].a);
        x[1].lane[0] = f64b(cases[c].b);
        REQUIRE(spv_fold(SpvOpFRem, x[0].t, x, 2, NULL, 0, &r, &d) == 0, "%s", d.msg);
        CHECK(bf64(r.lane[0]) == cases[c].frem, "frem %g %g = %g", cases[c].a, cases[c].b, bf64(r.lane[0]));
        REQUIRE(spv_fold(SpvOpFMod, x[0].t, x, 2, NULL, 0, &r, &d) == 0, "%s", d.msg);
        CHECK(bf64(r.lane[0]) == cases[c].fmod, "fmod %g %g = %g", cases[c].a, cases[c].b, bf64(r.lane[0]));
    }
}

static uint64_t convert_ref(uint64_t a, unsigned from, unsigned to)
{
    double d = to_double(a, from);
    if (to == 16) {
        /* straight conversions, no double rounding: from f64 via __truncdfhf2, from f32 via __truncsfhf2 */
        return from == 64 ? f16b((_Float16)bf64(a)) : f16b((_Float16)(from == 32 ? bf32(a) : (float)bf16(a)));
    }
    return to == 32 ? f32b((float)d) : f64b(d);
}

TEST_TIER_FREE(fold_float_conversions)
{
    uint64_t s = 4242;
    for (int it = 0; it < 6000; it++) {
        unsigned fw = float_widths[it % 3], tw = float_widths[(it / 3) % 3], n = lane_counts[(it / 9) % 6];
        unsigned iw = int_widths[(it / 54) % 4];
        spv_fold_value f = val(SPV_FOLD_FLOAT, fw, n), i = val(SPV_FOLD_INT, iw, n), r;
        for (unsigned k = 0; k < n; k++) {
            f.lane[k] = rand_float(&s, fw);
            i.lane[k] = rand_int(&s, iw);
        }
        spv_diag d;
        REQUIRE(spv_fold(SpvOpFConvert, ty(SPV_FOLD_FLOAT, tw, n), &f, 1, NULL, 0, &r, &d) == 0, "%s", d.msg);
        for (unsigned k = 0; k < n; k++)
            CHECK(float_same(r.lane[k], convert_ref(f.lane[k], fw, tw), tw), "FConvert f%u %a -> f%u %a", fw,
                  to_double(f.lane[k], fw), tw, to_double(r.lane[k], tw));
        /* int -> float, signed and unsigned */
        for (int sgn = 0; sgn < 2; sgn++) {
            REQUIRE(spv_fold(sgn ? SpvOpConvertSToF : SpvOpConvertUToF, ty(SPV_FOLD_FLOAT, tw, n), &i, 1, NULL, 0, &r,
                             &d) == 0,
                    "%s", d.msg);
            for (unsigned k = 0; k < n; k++) {
                int64_t sv = iw == 8    ? (int8_t)i.lane[k]
                             : iw == 16 ? (int16_t)i.lane[k]
                             : iw == 32 ? (int32_t)i.lane[k]
                                        : (int64_t)i.lane[k];
                uint64_t uv = i.lane[k], want;
                if (tw == 16)
                    want = f16b(sgn ? (_Float16)sv : (_Float16)uv);
                else if (tw == 32)
                    want = f32b(sgn ? (float)sv : (float)uv);
                else
                    want = f64b(sgn ? (double)sv : (double)uv);
                CHECK(r.lane[k] == want, "%sToF i%u %llx -> f%u: %a, want %a", sgn ? "S" : "U", iw,
                      (unsigned long long)uv, tw, to_double(r.lane[k], tw), to_double(want, tw));
            }
        }
        /* float -> int: C's conversion in range; out of range saturates, NaN -> 0 (documented) */
        for (int sgn = 0; sgn < 2; sgn++) {
            REQUIRE(spv_fold(sgn ? SpvOpConvertFToS : SpvOpConvertFToU, ty(SPV_FOLD_INT, iw, n), &f, 1, NULL, 0, &r,
                             &d) == 0,
                    "%s", d.msg);
            for (unsigned k = 0; k < n; k++) {
                long double x = to_double(f.lane[k], fw);
                long double lo = sgn ? -ldexpl(1, (int)iw - 1) : 0,
                            hi = sgn ? ldexpl(1, (int)iw - 1) : ldexpl(1, (int)iw);
                uint64_t want;
                if (isnan(x))
                    want = 0;
                else if (x >= hi)
                    want = sgn ? mask(~0ull, iw) >> 1 : mask(~0ull, iw);
                else if (sgn ? x < lo : x <= -1)
                    want = sgn ? mask(1ull << (iw - 1), iw) : 0;
                else
                    want = sgn ? mask((uint64_t)(int64_t)x, iw) : (uint64_t)x;
                CHECK(r.lane[k] == want, "FTo%s f%u %La -> i%u: %llx, want %llx", sgn ? "S" : "U", fw, x, iw,
                      (unsigned long long)r.lane[k], (unsigned long long)want);
            }
        }
    }
}

TEST_TIER_FREE(fold_half_rounding_edges)
{
    struct {
        double in;
        double out;
    } cases[] = {
        { 65504.0, 65504.0 },
        { 65519.99, 65504.0 },
        { 65520.0, INFINITY },
        { -65520.0, -INFINITY },
        { 1.0 + 1.0 / 2048, 1.0 },              /* tie: to even (down) */
        { 1.0 + 3.0 / 2048, 1.0 + 2.0 / 1024 }, /* tie: to even (up) */
        { 1.0 + 1.0 / 2048 + 1e-12, 1.0 + 1.0 / 1024 },
        { 0x1p-24, 0x1p-24 },
        { 0x1p-25, 0.0 }, /* half the smallest denormal: tie to 0 */
        { 0x1.8p-25, 0x1p-24 },
        { 0x1.ffcp-15, 0x1p-14 },
        { 0x1.ff8p-15, 0x1.ff8p-15 },
        { 0x1.ff4p-15, 0x1.ffp-15 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        uint16_t h = spv_f64_to_f16(cases[k].in);
        CHECK(spv_f16_to_f64(h) == cases[k].out, "%a -> %a, want %a", cases[k].in, spv_f16_to_f64(h), cases[k].out);
        CHECK(h == f16b((_Float16)cases[k].in), "%a: %04x vs _Float16 %04x", cases[k].in, h,
              (unsigned)f16b((_Float16)cases[k].in));
    }
    CHECK(isnan(spv_f16_to_f64(spv_f64_to_f16(NAN))), "NaN lost");
    uint16_t neg0 = spv_f64_to_f16(-0x1p-30);
    CHECK(neg0 == 0x8000, "tiny negative -> %04x, want -0", neg0);
    /* every half converts to double and back unchanged */
    for (uint32_t h = 0; h < 65536; h++) {
        double d = spv_f16_to_f64((uint16_t)h);
        CHECK(isnan(d) || spv_f64_to_f16(d) == h, "half %04x round trip", h);
        CHECK(isnan(d) ? isnan((double)bf16(h)) : d == (double)bf16(h), "half %04x value %a", h, d);
    }
}

TEST_TIER_FREE(fold_quantize_to_f16)
{
    uint64_t s = 77;
    spv_diag d;
    for (int it = 0; it < 5000; it++) {
        unsigned n = lane_counts[it % 6];
        spv_fold_value a = val(SPV_FOLD_FLOAT, 32, n), r;
        for (unsigned k = 0; k < n; k++)
            a.lane[k] = rand_float(&s, 32);
        REQUIRE(spv_fold(SpvOpQuantizeToF16, a.t, &a, 1, NULL, 0, &r, &d) == 0, "%s", d.msg);
        for (unsigned k = 0; k < n; k++) {
            float x = bf32(a.lane[k]);
            _Float16 h = (_Float16)x;
            float want = (float)h;
            if (want != 0 && fabsf(want) < 0x1p-14f)
                want = copysignf(0.0f, x); /* half denormal -> zero of the same sign */
            CHECK(isnan(x) ? isnan(bf32(r.lane[k])) : r.lane[k] == f32b(want), "quantize %a -> %a, want %a", x,
                  bf32(r.lane[k]), want);
        }
    }
    float edge[][2] = { { 70000.0f, INFINITY }, { -70000.0f, -INFINITY }, { 0x1p-20f, 0.0f },      { -0x1p-20f, -0.0f },
                        { 0x1p-14f, 0x1p-14f }, { 65504.0f, 65504.0f },   { 1.00048828125f, 1.0f } };
    for (size_t k = 0; k < sizeof edge / sizeof *edge; k++) {
        spv_fold_value a = val(SPV_FOLD_FLOAT, 32, 1), r;
        a.lane[0] = f32b(edge[k][0]);
        REQUIRE(spv_fold(SpvOpQuantizeToF16, a.t, &a, 1, NULL, 0, &r, &d) == 0, "%s", d.msg);
        CHECK(r.lane[0] == f32b(edge[k][1]), "quantize %a -> %a, want %a", edge[k][0], bf32(r.lane[0]), edge[k][1]);
    }
    spv_fold_value a = val(SPV_FOLD_FLOAT, 32, 1), r;
    a.lane[0] = 0xffc12345;
    REQUIRE(spv_fold(SpvOpQuantizeToF16, a.t, &a, 1, NULL, 0, &r, &d) == 0, "%s", d.msg);
    CHECK(isnan(bf32(r.lane[0])) && (r.lane[0] >> 31), "NaN: %08llx", (unsigned long long)r.lane[0]);
}

TEST_TIER_FREE(fold_rejects_bad_shapes)
{
    spv_diag d;
    spv_fold_value a = val(SPV_FOLD_INT, 32, 4), b = val(SPV_FOLD_INT, 32, 3), r;
    spv_fold_value args[2] = { a, b };
    CHECK(spv_fold(SpvOpIAdd, a.t, args, 2, NULL, 0, &r, &d) != 0 && strstr(d.msg, "components"), "lane mismatch: %s",
          d.msg);
    CHECK(spv_fold(SpvOpIAdd, a.t, args, 1, NULL, 0, &r, &d) != 0 && strstr(d.msg, "missing"), "one operand: %s",
          d.msg);
    spv_fold_value f = val(SPV_FOLD_FLOAT, 32, 4);
    spv_fold_value fa[2] = { f, a };
    CHECK(spv_fold(SpvOpFAdd, f.t, fa, 2, NULL, 0, &r, &d) != 0 && strstr(d.msg, "float"), "int into FAdd: %s", d.msg);
    CHECK(spv_fold(SpvOpAccessChain, a.t, args, 2, NULL, 0, &r, &d) != 0, "pointer op folded");
    CHECK(!spv_fold_supports(SpvOpAccessChain) && spv_fold_supports(SpvOpQuantizeToF16), "supports table");
}
