/* spirv/spec_value.c — specialization values as users write them.
 *
 * "ID=VALUE" or "VALUE", VALUE one of 16, 0x10, -3, 1.5, 1e-3, 0x1.8p3, inf,
 * nan, true, false, optionally with a type suffix (:u8 :i16 :u32 :i64 :f16
 * :f32 :f64 :bool ...).  Without a suffix the value stays text
 * (SPV_VALUE_AUTO) and is parsed once the constant's type is known.
 */
#include "specialize.h"

#include <ctype.h>
#include <errno.h>
#include <fenv.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fold.h"

static const struct {
    const char *name;
    spv_value_type type;
} type_names[] = {
    { "bool", SPV_VALUE_BOOL }, { "i8", SPV_VALUE_I8 },   { "i16", SPV_VALUE_I16 }, { "i32", SPV_VALUE_I32 },
    { "i64", SPV_VALUE_I64 },   { "u8", SPV_VALUE_U8 },   { "u16", SPV_VALUE_U16 }, { "u32", SPV_VALUE_U32 },
    { "u64", SPV_VALUE_U64 },   { "f16", SPV_VALUE_F16 }, { "f32", SPV_VALUE_F32 }, { "f64", SPV_VALUE_F64 },
};

const char *spv_value_type_name(spv_value_type t)
{
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
        if (type_names[i].type == t)
            return type_names[i].name;
    return t == SPV_VALUE_AUTO ? "auto" : "?";
}

unsigned spv_value_type_bits(spv_value_type t)
{
    switch (t) {
    case SPV_VALUE_BOOL:
        return 1;
    case SPV_VALUE_I8:
    case SPV_VALUE_U8:
        return 8;
    case SPV_VALUE_I16:
    case SPV_VALUE_U16:
    case SPV_VALUE_F16:
        return 16;
    case SPV_VALUE_I32:
    case SPV_VALUE_U32:
    case SPV_VALUE_F32:
        return 32;
    case SPV_VALUE_I64:
    case SPV_VALUE_U64:
    case SPV_VALUE_F64:
        return 64;
    default:
        return 0;
    }
}

static bool type_is_signed_int(spv_value_type t)
{
    return t >= SPV_VALUE_I8 && t <= SPV_VALUE_I64;
}
static bool type_is_unsigned_int(spv_value_type t)
{
    return t >= SPV_VALUE_U8 && t <= SPV_VALUE_U64;
}
static bool type_is_float(spv_value_type t)
{
    return t >= SPV_VALUE_F16 && t <= SPV_VALUE_F64;
}

/* Integer text: optional sign, decimal or 0x hex digits, nothing else.
 * Returns 0, -1 if not an integer, -2 if the magnitude exceeds 64 bits. */
static int parse_int(const char *s, bool *neg, uint64_t *mag)
{
    const char *p = s;
    *neg = false;
    if (*p == '+' || *p == '-')
        *neg = *p++ == '-';
    int base = 10;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    }
    if (base == 16 ? !isxdigit((unsigned char)*p) : !isdigit((unsigned char)*p))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(p, &end, base);
    if (*end)
        return -1;
    if (errno == ERANGE)
        return -2;
    *mag = v;
    return 0;
}

static bool text_is_inf(const char *s)
{
    if (*s == '+' || *s == '-')
        s++;
    return !strncasecmp(s, "inf", 3);
}

/* Float text to double, rounded to odd when inexact, so that one more rounding
 * to half is correct (double has more than 11 + 2 bits). */
static int strtod_round_to_odd(const char *s, double *out)
{
    char *end;
    int old = fegetround();
    fesetround(FE_DOWNWARD);
    double lo = strtod(s, &end);
    fesetround(FE_UPWARD);
    double hi = strtod(s, NULL);
    fesetround(old);
    if (end == s || *end)
        return -1;
    if (lo == hi || isnan(lo)) {
        *out = lo;
        return 0;
    }
    uint64_t b;
    memcpy(&b, &lo, sizeof b);
    *out = (b & 1) ? lo : hi;
    return 0;
}

int spv_parse_value_as(const char *text, spv_value_type t, uint64_t *bits, spv_diag *diag)
{
    char buf[256];
    while (isspace((unsigned char)*text))
        text++;
    size_t n = strlen(text);
    while (n && isspace((unsigned char)text[n - 1]))
        n--;
    if (n == 0)
        return spv_fail(diag, "empty value, expected a %s", spv_value_type_name(t));
    if (n >= sizeof buf)
        return spv_fail(diag, "value text of %zu characters is too long", n);
    memcpy(buf, text, n);
    buf[n] = 0;
    const char *tn = spv_value_type_name(t);

    if (t == SPV_VALUE_BOOL) {
        if (!strcasecmp(buf, "true") || !strcmp(buf, "1"))
            *bits = 1;
        else if (!strcasecmp(buf, "false") || !strcmp(buf, "0"))
            *bits = 0;
        else
            return spv_fail(diag, "value \"%s\" is not a bool, expected true, false, 1 or 0", buf);
        return 0;
    }
    unsigned w = spv_value_type_bits(t);
    if (type_is_signed_int(t) || type_is_unsigned_int(t)) {
        bool neg;
        uint64_t mag = 0;
        int r = parse_int(buf, &neg, &mag);
        if (r == -1)
            return spv_fail(diag, "value \"%s\" is not an integer, expected a %s (decimal or 0x hex)", buf, tn);
        uint64_t umax = w == 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1;
        uint64_t smax = umax >> 1;
        if (type_is_signed_int(t)) {
            if (r == -2 || (neg ? mag > smax + 1 : mag > smax))
                return spv_fail(diag, "value %s is out of range for %s (%lld to %llu)", buf, tn,
                                w == 64 ? (long long)INT64_MIN : -(long long)(smax + 1), (unsigned long long)smax);
            *bits = spv_fold_mask(neg ? (uint64_t)0 - mag : mag, w);
        } else {
            if (r == -2 || (neg && mag) || mag > umax)
                return spv_fail(diag, "value %s is out of range for %s (0 to %llu)", buf, tn, (unsigned long long)umax);
            *bits = mag;
        }
        return 0;
    }
    if (type_is_float(t)) {
        double d;
        char *end;
        if (w == 32) {
            float f = strtof(buf, &end);
            if (end == buf || *end)
                return spv_fail(diag, "value \"%s\" is not a number, expected a %s", buf, tn);
            uint32_t u;
            memcpy(&u, &f, sizeof u);
            *bits = u;
            d = f;
        } else if (w == 64) {
            d = strtod(buf, &end);
            if (end == buf || *end)
                return spv_fail(diag, "value \"%s\" is not a number, expected a %s", buf, tn);
            memcpy(bits, &d, sizeof d);
        } else {
            if (strtod_round_to_odd(buf, &d))
                return spv_fail(diag, "value \"%s\" is not a number, expected a %s", buf, tn);
            *bits = spv_f64_to_f16(d);
            d = spv_f16_to_f64((uint16_t)*bits);
        }
        if (isinf(d) && !text_is_inf(buf))
            return spv_fail(diag, "value %s is out of range for %s (rounds to infinity)", buf, tn);
        return 0;
    }
    return spv_fail(diag, "no value type given for \"%s\"", buf);
}

int spv_parse_spec_value(const char *text, spv_spec_value *v, spv_diag *diag)
{
    if (!text)
        return spv_fail(diag, "no spec value text");
    while (isspace((unsigned char)*text))
        text++;
    const char *value = text;
    const char *eq = strchr(text, '=');
    if (eq) {
        char idbuf[32];
        size_t n = (size_t)(eq - text);
        while (n && isspace((unsigned char)text[n - 1]))
            n--;
        bool neg;
        uint64_t id = 0;
        if (n == 0 || n >= sizeof idbuf)
            return spv_fail(diag, "\"%s\": expected ID=VALUE with a numeric spec id", text);
        memcpy(idbuf, text, n);
        idbuf[n] = 0;
        if (parse_int(idbuf, &neg, &id) || neg || id > UINT32_MAX)
            return spv_fail(diag, "\"%s\": spec id \"%s\" is not a number from 0 to 4294967295", text, idbuf);
        v->spec_id = (uint32_t)id;
        value = eq + 1;
        while (isspace((unsigned char)*value))
            value++;
    }
    const char *colon = strrchr(value, ':');
    if (colon) {
        const char *suffix = colon + 1;
        spv_value_type t = SPV_VALUE_AUTO;
        for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
            if (!strcmp(type_names[i].name, suffix))
                t = type_names[i].type;
        if (t == SPV_VALUE_AUTO)
            return spv_fail(diag,
                            "\"%s\": unknown type suffix \":%s\", expected one of :bool :i8 :i16 :i32 :i64 "
                            ":u8 :u16 :u32 :u64 :f16 :f32 :f64",
                            text, suffix);
        char buf[256];
        size_t n = (size_t)(colon - value);
        if (n >= sizeof buf)
            return spv_fail(diag, "\"%s\": value text too long", text);
        memcpy(buf, value, n);
        buf[n] = 0;
        spv_diag sub;
        if (spv_parse_value_as(buf, t, &v->bits, &sub))
            return spv_fail(diag, "\"%s\": %s", text, sub.msg);
        v->type = t;
        v->text = NULL;
        return 0;
    }
    /* No suffix: keep the text for the constant's type; fill bits with a guess
     * (bool 0/1, an integer as i64 / u64, anything else as f64). */
    spv_diag sub;
    v->type = SPV_VALUE_AUTO;
    v->text = value;
    if (!spv_parse_value_as(value, SPV_VALUE_BOOL, &v->bits, &sub) ||
        !spv_parse_value_as(value, SPV_VALUE_I64, &v->bits, &sub) ||
        !spv_parse_value_as(value, SPV_VALUE_U64, &v->bits, &sub) ||
        !spv_parse_value_as(value, SPV_VALUE_F64, &v->bits, &sub))
        return 0;
    return spv_fail(diag, "\"%s\": value \"%s\" is not a number, true or false", text, value);
}
