/* spirv/fold.c — the constant folder for OpSpecConstantOp (see fold.h for the
 * choices made where SPIR-V leaves a result undefined). */
#include "fold.h"

#include <math.h>
#include <string.h>
#include <spirv/unified1/spirv.h>

/* --- half and float bits ------------------------------------------------------ */

double spv_f16_to_f64(uint16_t h)
{
    uint64_t sign = (uint64_t)(h >> 15) << 63;
    uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    uint64_t bits;
    if (exp == 0x1f) {
        bits = sign | (UINT64_C(0x7ff) << 52) | ((uint64_t)mant << 42);
    } else if (exp == 0) {
        /* zero or denormal: mant * 2^-24, exact in double */
        double d = ldexp((double)mant, -24);
        return (h >> 15) ? -d : d;
    } else {
        bits = sign | ((uint64_t)(exp - 15 + 1023) << 52) | ((uint64_t)mant << 42);
    }
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

/* Rounds q + rest/2^shift to nearest even. */
static uint64_t round_rne(uint64_t q, uint64_t rest, unsigned shift)
{
    uint64_t half = UINT64_C(1) << (shift - 1);
    if (rest > half || (rest == half && (q & 1)))
        q++;
    return q;
}

uint16_t spv_f64_to_f16(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    uint16_t sign = (uint16_t)((b >> 48) & 0x8000);
    uint32_t exp = (uint32_t)((b >> 52) & 0x7ff);
    uint64_t mant = b & ((UINT64_C(1) << 52) - 1);
    if (exp == 0x7ff) {
        if (!mant)
            return sign | 0x7c00;
        /* NaN: quiet, with the top payload bits */
        return (uint16_t)(sign | 0x7e00 | ((mant >> 42) & 0x3ff));
    }
    if (exp == 0)
        return sign; /* double zero or denormal: far below half's smallest denormal */
    int e = (int)exp - 1023;
    if (e > 15)
        return sign | 0x7c00;
    if (e >= -14) {
        uint64_t hm = round_rne(mant >> 42, mant & ((UINT64_C(1) << 42) - 1), 42);
        uint32_t he = (uint32_t)(e + 15);
        if (hm == 0x400) { /* mantissa overflowed into the exponent */
            hm = 0;
            he++;
        }
        if (he >= 31)
            return sign | 0x7c00;
        return (uint16_t)(sign | (he << 10) | hm);
    }
    if (e < -25)
        return sign; /* below half the smallest denormal: rounds to 0 */
    /* denormal result: units of 2^-24; value = (2^52 + mant) * 2^(e-52) */
    unsigned shift = (unsigned)(28 - e); /* 43..53 */
    uint64_t full = (UINT64_C(1) << 52) | mant;
    uint64_t q = round_rne(full >> shift, full & ((UINT64_C(1) << shift) - 1), shift);
    return (uint16_t)(sign | q); /* q == 0x400 encodes the smallest normal, as it should */
}

double spv_float_bits_to_f64(uint64_t bits, unsigned width)
{
    if (width == 16)
        return spv_f16_to_f64((uint16_t)bits);
    if (width == 32) {
        uint32_t u = (uint32_t)bits;
        float f;
        memcpy(&f, &u, sizeof f);
        return f;
    }
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

uint64_t spv_f64_to_float_bits(double d, unsigned width)
{
    if (width == 16)
        return spv_f64_to_f16(d);
    if (width == 32) {
        float f = (float)d;
        uint32_t u;
        memcpy(&u, &f, sizeof u);
        return u;
    }
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static uint64_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* --- opcode table ---------------------------------------------------------------- */

typedef enum fold_class {
    FOLD_NONE = 0,
    FOLD_INT_CONVERT,
    FOLD_FLOAT_CONVERT,
    FOLD_FLOAT_TO_INT,
    FOLD_INT_TO_FLOAT,
    FOLD_INT_UNARY,
    FOLD_FLOAT_NEGATE,
    FOLD_INT_BINARY,
    FOLD_FLOAT_BINARY,
    FOLD_INT_COMPARE,
    FOLD_LOGICAL_NOT,
    FOLD_LOGICAL_BINARY,
    FOLD_SELECT,
    FOLD_QUANTIZE,
    FOLD_SHUFFLE,
    FOLD_EXTRACT,
    FOLD_INSERT,
    FOLD_BITCAST,
} fold_class;

/* The one list of foldable opcodes, by the way they fold. */
static fold_class fold_class_of(uint32_t op)
{
    switch (op) {
    case SpvOpSConvert:
    case SpvOpUConvert:
        return FOLD_INT_CONVERT;
    case SpvOpFConvert:
        return FOLD_FLOAT_CONVERT;
    case SpvOpConvertFToS:
    case SpvOpConvertFToU:
        return FOLD_FLOAT_TO_INT;
    case SpvOpConvertSToF:
    case SpvOpConvertUToF:
        return FOLD_INT_TO_FLOAT;
    case SpvOpSNegate:
    case SpvOpNot:
        return FOLD_INT_UNARY;
    case SpvOpFNegate:
        return FOLD_FLOAT_NEGATE;
    case SpvOpIAdd:
    case SpvOpISub:
    case SpvOpIMul:
    case SpvOpUDiv:
    case SpvOpSDiv:
    case SpvOpUMod:
    case SpvOpSRem:
    case SpvOpSMod:
    case SpvOpBitwiseOr:
    case SpvOpBitwiseXor:
    case SpvOpBitwiseAnd:
    case SpvOpShiftLeftLogical:
    case SpvOpShiftRightLogical:
    case SpvOpShiftRightArithmetic:
        return FOLD_INT_BINARY;
    case SpvOpFAdd:
    case SpvOpFSub:
    case SpvOpFMul:
    case SpvOpFDiv:
    case SpvOpFRem:
    case SpvOpFMod:
        return FOLD_FLOAT_BINARY;
    case SpvOpIEqual:
    case SpvOpINotEqual:
    case SpvOpULessThan:
    case SpvOpSLessThan:
    case SpvOpUGreaterThan:
    case SpvOpSGreaterThan:
    case SpvOpULessThanEqual:
    case SpvOpSLessThanEqual:
    case SpvOpUGreaterThanEqual:
    case SpvOpSGreaterThanEqual:
        return FOLD_INT_COMPARE;
    case SpvOpLogicalNot:
        return FOLD_LOGICAL_NOT;
    case SpvOpLogicalOr:
    case SpvOpLogicalAnd:
    case SpvOpLogicalEqual:
    case SpvOpLogicalNotEqual:
        return FOLD_LOGICAL_BINARY;
    case SpvOpSelect:
        return FOLD_SELECT;
    case SpvOpQuantizeToF16:
        return FOLD_QUANTIZE;
    case SpvOpVectorShuffle:
        return FOLD_SHUFFLE;
    case SpvOpCompositeExtract:
        return FOLD_EXTRACT;
    case SpvOpCompositeInsert:
        return FOLD_INSERT;
    case SpvOpBitcast:
        return FOLD_BITCAST;
    default:
        return FOLD_NONE;
    }
}

bool spv_fold_supports(uint32_t op)
{
    return fold_class_of(op) != FOLD_NONE;
}

static const char *kind_name(unsigned k)
{
    return k == SPV_FOLD_BOOL ? "bool" : k == SPV_FOLD_INT ? "integer" : k == SPV_FOLD_FLOAT ? "float" : "non-numeric";
}

/* Checks operand i is of kind k with the result's lane count (lanes 0: any). */
static int want(const spv_fold_value *args, uint32_t nargs, uint32_t i, unsigned k, unsigned lanes, spv_diag *diag)
{
    if (i >= nargs)
        return spv_fail(diag, "missing operand %u", i + 1);
    const spv_fold_type *t = &args[i].t;
    if (t->kind != k)
        return spv_fail(diag, "operand %u is a %s, expected a %s", i + 1, kind_name(t->kind), kind_name(k));
    if (lanes && t->lanes != lanes)
        return spv_fail(diag, "operand %u has %u components, expected %u", i + 1, t->lanes, lanes);
    return 0;
}

/* --- integer arithmetic -------------------------------------------------------------- */

static uint64_t int_binary(uint32_t op, uint64_t a, uint64_t b, unsigned w, unsigned bw)
{
    int64_t sa = spv_fold_sext(a, w), sb = spv_fold_sext(b, w);
    int64_t smin = w >= 64 ? INT64_MIN : -((int64_t)1 << (w - 1));
    switch (op) {
    case SpvOpIAdd:
        return a + b;
    case SpvOpISub:
        return a - b;
    case SpvOpIMul:
        return a * b;
    case SpvOpUDiv:
        return b ? a / b : 0;
    case SpvOpUMod:
        return b ? a % b : 0;
    case SpvOpSDiv:
        if (sb == 0 || (sb == -1 && sa == smin))
            return 0;
        return (uint64_t)(sa / sb);
    case SpvOpSRem:
        if (sb == 0 || sb == -1)
            return 0; /* x rem -1 is 0; avoids INT_MIN % -1 */
        return (uint64_t)(sa % sb);
    case SpvOpSMod: {
        if (sb == 0 || sb == -1)
            return 0;
        int64_t r = sa % sb;
        if (r != 0 && ((r < 0) != (sb < 0)))
            r += sb;
        return (uint64_t)r;
    }
    case SpvOpBitwiseOr:
        return a | b;
    case SpvOpBitwiseXor:
        return a ^ b;
    case SpvOpBitwiseAnd:
        return a & b;
    case SpvOpShiftLeftLogical:
        /* b: the shift amount, unsigned in its own width bw */
        b = spv_fold_mask(b, bw);
        return b >= w ? 0 : a << b;
    case SpvOpShiftRightLogical:
        b = spv_fold_mask(b, bw);
        return b >= w ? 0 : a >> b;
    case SpvOpShiftRightArithmetic:
        b = spv_fold_mask(b, bw);
        if (b >= w)
            return sa < 0 ? ~UINT64_C(0) : 0;
        return sa < 0 ? ~(~(uint64_t)sa >> b) : (uint64_t)sa >> b;
    default:
        return 0;
    }
}

static bool int_compare(uint32_t op, uint64_t a, uint64_t b, unsigned w)
{
    int64_t sa = spv_fold_sext(a, w), sb = spv_fold_sext(b, w);
    switch (op) {
    case SpvOpIEqual:
        return a == b;
    case SpvOpINotEqual:
        return a != b;
    case SpvOpULessThan:
        return a < b;
    case SpvOpSLessThan:
        return sa < sb;
    case SpvOpUGreaterThan:
        return a > b;
    case SpvOpSGreaterThan:
        return sa > sb;
    case SpvOpULessThanEqual:
        return a <= b;
    case SpvOpSLessThanEqual:
        return sa <= sb;
    case SpvOpUGreaterThanEqual:
        return a >= b;
    case SpvOpSGreaterThanEqual:
        return sa >= sb;
    default:
        return false;
    }
}

/* --- float arithmetic ----------------------------------------------------------------- */

static double fmod_floor(double a, double b)
{
    double r = fmod(a, b);
    if (r != 0 && (!signbit(r) != !signbit(b)))
        r += b;
    return r;
}

/* In double, rounded once to the width: for +, -, *, / (and the exact fmod)
 * double carries more than 2p + 2 bits of binary16 and binary32, so this
 * single rounding is the correctly rounded result at that width. */
static uint64_t float_binary(uint32_t op, uint64_t a, uint64_t b, unsigned w)
{
    double x = spv_float_bits_to_f64(a, w), y = spv_float_bits_to_f64(b, w), r;
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
        r = fmod(x, y);
        break;
    default:
        r = fmod_floor(x, y);
        break;
    }
    return spv_f64_to_float_bits(r, w);
}

/* Float -> integer, saturating, NaN -> 0 (SPIR-V: undefined out of range). */
static uint64_t float_to_int(uint64_t bits, unsigned fw, unsigned iw, bool is_signed)
{
    double d = spv_float_bits_to_f64(bits, fw);
    if (isnan(d))
        return 0;
    if (is_signed) {
        double lim = ldexp(1.0, (int)iw - 1); /* 2^(w-1), exact */
        if (d >= lim)
            return spv_fold_mask(iw >= 64 ? (uint64_t)INT64_MAX : (UINT64_C(1) << (iw - 1)) - 1, iw);
        if (d < -lim)
            return spv_fold_mask(UINT64_C(1) << (iw - 1), iw);
        return spv_fold_mask((uint64_t)(int64_t)d, iw);
    }
    if (d <= -1.0 || d != d)
        return 0;
    if (d >= ldexp(1.0, (int)iw))
        return spv_fold_mask(~UINT64_C(0), iw);
    if (d < 0)
        return 0; /* (-1, 0) truncates to 0 */
    return (uint64_t)d;
}

/* Integer -> float of width fw, rounded to nearest even. */
static uint64_t int_to_float(uint64_t a, unsigned iw, bool is_signed, unsigned fw)
{
    if (fw == 64) {
        double d = is_signed ? (double)spv_fold_sext(a, iw) : (double)a;
        return spv_f64_to_float_bits(d, 64);
    }
    if (fw == 32) {
        /* the conversion straight to float is correctly rounded; via double it might not be */
        float f = is_signed ? (float)spv_fold_sext(a, iw) : (float)a;
        return f32_bits(f);
    }
    /* half: anything at or above 65520 rounds to infinity; below it, the integer
     * is exact in double and one rounding to half follows */
    if (is_signed) {
        int64_t s = spv_fold_sext(a, iw);
        if (s >= 65520)
            return 0x7c00;
        if (s <= -65520)
            return 0xfc00;
        return spv_f64_to_f16((double)s);
    }
    return a >= 65520 ? 0x7c00 : spv_f64_to_f16((double)a);
}

static uint64_t quantize_f16(uint64_t bits)
{
    uint16_t h = spv_f64_to_f16(spv_float_bits_to_f64(bits, 32));
    if ((h & 0x7c00) == 0 && (h & 0x3ff))
        h &= 0x8000; /* a half denormal: flushed to zero, keeping the sign */
    return f32_bits((float)spv_f16_to_f64(h));
}

/* --- the folder -------------------------------------------------------------------------- */

int spv_fold(uint32_t op, spv_fold_type rt, const spv_fold_value *args, uint32_t nargs, const uint32_t *lits,
             uint32_t nlits, spv_fold_value *out, spv_diag *diag)
{
    memset(out, 0, sizeof *out);
    out->t = rt;
    unsigned n = rt.lanes, w = rt.width;
    if (n < 1 || n > SPV_FOLD_MAX_LANES || rt.kind == SPV_FOLD_NONE)
        return spv_fail(diag, "the result type is not a scalar or vector of bool, integer or float");
    switch (fold_class_of(op)) {
    case FOLD_INT_CONVERT:
        if (want(args, nargs, 0, SPV_FOLD_INT, n, diag))
            return -1;
        if (rt.kind != SPV_FOLD_INT)
            return spv_fail(diag, "expected an integer result");
        for (unsigned i = 0; i < n; i++)
            out->lane[i] =
                op == SpvOpSConvert ? (uint64_t)spv_fold_sext(args[0].lane[i], args[0].t.width) : args[0].lane[i];
        break;
    case FOLD_FLOAT_CONVERT:
        if (want(args, nargs, 0, SPV_FOLD_FLOAT, n, diag))
            return -1;
        if (rt.kind != SPV_FOLD_FLOAT)
            return spv_fail(diag, "expected a float result");
        for (unsigned i = 0; i < n; i++)
            out->lane[i] = args[0].t.width == w
                               ? args[0].lane[i]
                               : spv_f64_to_float_bits(spv_float_bits_to_f64(args[0].lane[i], args[0].t.width), w);
        break;
    case FOLD_FLOAT_TO_INT:
        if (want(args, nargs, 0, SPV_FOLD_FLOAT, n, diag))
            return -1;
        if (rt.kind != SPV_FOLD_INT)
            return spv_fail(diag, "expected an integer result");
        for (unsigned i = 0; i < n; i++)
            out->lane[i] = float_to_int(args[0].lane[i], args[0].t.width, w, op == SpvOpConvertFToS);
        break;
    case FOLD_INT_TO_FLOAT:
        if (want(args, nargs, 0, SPV_FOLD_INT, n, diag))
            return -1;
        if (rt.kind != SPV_FOLD_FLOAT)
            return spv_fail(diag, "expected a float result");
        for (unsigned i = 0; i < n; i++)
            out->lane[i] = int_to_float(args[0].lane[i], args[0].t.width, op == SpvOpConvertSToF, w);
        break;
    case FOLD_INT_UNARY:
        if (want(args, nargs, 0, SPV_FOLD_INT, n, diag) || rt.kind != SPV_FOLD_INT || args[0].t.width != w)
            return spv_fail(diag, "expected an integer operand and result of one width");
        for (unsigned i = 0; i < n; i++)
            out->lane[i] = op == SpvOpNot ? ~args[0].lane[i] : (uint64_t)0 - args[0].lane[i];
        break;
    case FOLD_FLOAT_NEGATE:
        if (want(args, nargs, 0, SPV_FOLD_FLOAT, n, diag) || rt.kind != SPV_FOLD_FLOAT || args[0].t.width != w)
            return spv_fail(diag, "expected a float operand and result of one width");
        for (unsigned i = 0; i < n; i++)
            out->lane[i] = args[0].lane[i] ^ (UINT64_C(1) << (w - 1));
        break;
    case FOLD_INT_BINARY: {
        bool shift = op == SpvOpShiftLeftLogical || op == SpvOpShiftRightLogical || op == SpvOpShiftRightArithmetic;
        if (want(args, nargs, 0, SPV_FOLD_INT, n, diag) || want(args, nargs, 1, SPV_FOLD_INT, n, diag))
            return -1;
        if (rt.kind != SPV_FOLD_INT || args[0].t.width != w || (!shift && args[1].t.width != w))
            return spv_fail(diag, "expected integer operands of the result's width %u", w);
        for (unsigned i = 0; i < n; i++)
            out->lane[i] = int_binary(op, args[0].lane[i], args[1].lane[i], w, args[1].t.width);
        break;
    }
    case FOLD_FLOAT_BINARY:
        if (want(args, nargs, 0, SPV_FOLD_FLOAT, n, diag) || want(args, nargs, 1, SPV_FOLD_FLOAT, n, diag))
            return -1;
        if (rt.kind != SPV_FOLD_FLOAT || args[0].t.width != w || args[1].t.width != w)
            return spv_fail(diag, "expected float operands of the result's width %u", w);
        for (unsigned i = 0; i < n; i++)
            out->lane[i] = float_binary(op, args[0].lane[i], args[1].lane[i], w);
        break;
    case FOLD_INT_COMPARE:
        if (want(args, nargs, 0, SPV_FOLD_INT, n, diag) || want(args, nargs, 1, SPV_FOLD_INT, n, diag))
            return -1;
        if (rt.kind != SPV_FOLD_BOOL || args[0].t.width != args[1].t.width)
            return spv_fail(diag, "expected a bool result and integer operands of one width");
        for (unsigned i = 0; i < n; i++)
            out->lane[i] = int_compare(op, args[0].lane[i], args[1].lane[i], args[0].t.width);
        break;
    case FOLD_LOGICAL_NOT:
        if (want(args, nargs, 0, SPV_FOLD_BOOL, n, diag) || rt.kind != SPV_FOLD_BOOL)
            return spv_fail(diag, "expected a bool operand and result");
        for (unsigned i = 0; i < n; i++)
            out->lane[i] = !args[0].lane[i];
        break;
    case FOLD_LOGICAL_BINARY:
        if (want(args, nargs, 0, SPV_FOLD_BOOL, n, diag) || want(args, nargs, 1, SPV_FOLD_BOOL, n, diag))
            return -1;
        if (rt.kind != SPV_FOLD_BOOL)
            return spv_fail(diag, "expected a bool result");
        for (unsigned i = 0; i < n; i++) {
            bool a = args[0].lane[i] != 0, b = args[1].lane[i] != 0;
            out->lane[i] = op == SpvOpLogicalOr      ? a || b
                           : op == SpvOpLogicalAnd   ? a && b
                           : op == SpvOpLogicalEqual ? a == b
                                                     : a != b;
        }
        break;
    case FOLD_SELECT:
        if (want(args, nargs, 0, SPV_FOLD_BOOL, 0, diag) || want(args, nargs, 1, rt.kind, n, diag) ||
            want(args, nargs, 2, rt.kind, n, diag))
            return -1;
        if (args[0].t.lanes != 1 && args[0].t.lanes != n)
            return spv_fail(diag, "the condition has %u components, expected 1 or %u", args[0].t.lanes, n);
        if (args[1].t.width != w || args[2].t.width != w)
            return spv_fail(diag, "the objects are not of the result type");
        for (unsigned i = 0; i < n; i++)
            out->lane[i] = args[0].lane[args[0].t.lanes == 1 ? 0 : i] ? args[1].lane[i] : args[2].lane[i];
        break;
    case FOLD_QUANTIZE:
        if (want(args, nargs, 0, SPV_FOLD_FLOAT, n, diag) || rt.kind != SPV_FOLD_FLOAT || w != 32 ||
            args[0].t.width != 32)
            return spv_fail(diag, "expected a 32-bit float operand and result");
        for (unsigned i = 0; i < n; i++)
            out->lane[i] = quantize_f16(args[0].lane[i]);
        break;
    case FOLD_SHUFFLE: {
        if (nargs < 2 || args[0].t.kind != rt.kind || args[1].t.kind != rt.kind || args[0].t.width != w ||
            args[1].t.width != w)
            return spv_fail(diag, "expected two vectors with the result's component type");
        if (nlits != n)
            return spv_fail(diag, "%u components selected, expected %u (the result's size)", nlits, n);
        unsigned n1 = args[0].t.lanes, n2 = args[1].t.lanes;
        for (unsigned i = 0; i < n; i++) {
            uint32_t c = lits[i];
            if (c == 0xFFFFFFFFu)
                out->lane[i] = 0; /* undefined lane */
            else if (c < n1)
                out->lane[i] = args[0].lane[c];
            else if (c - n1 < n2)
                out->lane[i] = args[1].lane[c - n1];
            else
                return spv_fail(diag, "component %u selects lane %u of %u", i, c, n1 + n2);
        }
        break;
    }
    case FOLD_EXTRACT:
        if (nargs < 1 || args[0].t.kind != rt.kind || args[0].t.width != w || n != 1)
            return spv_fail(diag, "expected a vector with the scalar result's component type");
        if (nlits != 1 || lits[0] >= args[0].t.lanes)
            return spv_fail(diag, "index %u is out of range for a %u-component vector", nlits ? lits[0] : 0,
                            args[0].t.lanes);
        out->lane[0] = args[0].lane[lits[0]];
        break;
    case FOLD_INSERT:
        if (nargs < 2 || args[0].t.kind != rt.kind || args[0].t.width != w || args[0].t.lanes != 1 ||
            args[1].t.kind != rt.kind || args[1].t.width != w || args[1].t.lanes != n)
            return spv_fail(diag, "expected a scalar object and a vector of the result type");
        if (nlits != 1 || lits[0] >= n)
            return spv_fail(diag, "index %u is out of range for a %u-component vector", nlits ? lits[0] : 0, n);
        *out = args[1];
        out->lane[lits[0]] = args[0].lane[0];
        break;
    case FOLD_BITCAST: {
        if (nargs < 1 || args[0].t.kind == SPV_FOLD_BOOL || rt.kind == SPV_FOLD_BOOL || args[0].t.kind == SPV_FOLD_NONE)
            return spv_fail(diag, "expected numeric operand and result types");
        unsigned iw = args[0].t.width, in = args[0].t.lanes;
        if (iw * in != w * n)
            return spv_fail(diag, "operand has %u bits, the result %u", iw * in, w * n);
        /* Lane 0 holds the lowest bits on both sides (SPIR-V's mapping). */
        unsigned bit = 0;
        for (unsigned i = 0; i < in; i++)
            for (unsigned b = 0; b < iw; b += 8, bit += 8) {
                uint64_t byte = (args[0].lane[i] >> b) & 0xff;
                out->lane[bit / w] |= byte << (bit % w);
            }
        break;
    }
    case FOLD_NONE:
        return spv_fail(diag, "opcode %u is not foldable", op);
    }
    if (rt.kind == SPV_FOLD_BOOL)
        for (unsigned i = 0; i < n; i++)
            out->lane[i] = out->lane[i] != 0;
    else
        for (unsigned i = 0; i < n; i++)
            out->lane[i] = spv_fold_mask(out->lane[i], w);
    return 0;
}
