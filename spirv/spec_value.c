/* spirv/spec_value.c — specialization values: text forms, and the one rule for
 * what fits a constant (see spec_value.h).
 *
 * Text: "ID=VALUE" or "VALUE", VALUE one of 16, 0x10, -3, 1.5, 1e-3, 0x1.8p3,
 * inf, nan, true, false, optionally with a type suffix (:u8 :i16 :u32 :i64
 * :f16 :f32 :f64 :bool ...).  Without a suffix the value stays text
 * (SPV_VALUE_AUTO) and is read as the constant's type once that is known.
 */
#include "spec_value.h"

#include <ctype.h>
#include <errno.h>
#include <fenv.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fold.h"

typedef struct value_type_info {
    const char *name, *with_article;
    spv_value_type type;
    unsigned bits;
} value_type_info;

static const value_type_info types[] = {
    { "bool", "a bool", SPV_VALUE_BOOL, 1 }, { "i8", "an i8", SPV_VALUE_I8, 8 },
    { "i16", "an i16", SPV_VALUE_I16, 16 },  { "i32", "an i32", SPV_VALUE_I32, 32 },
    { "i64", "an i64", SPV_VALUE_I64, 64 },  { "u8", "a u8", SPV_VALUE_U8, 8 },
    { "u16", "a u16", SPV_VALUE_U16, 16 },   { "u32", "a u32", SPV_VALUE_U32, 32 },
    { "u64", "a u64", SPV_VALUE_U64, 64 },   { "f16", "an f16", SPV_VALUE_F16, 16 },
    { "f32", "an f32", SPV_VALUE_F32, 32 },  { "f64", "an f64", SPV_VALUE_F64, 64 },
};
#define NTYPES (sizeof types / sizeof types[0])

/* t's entry of types[] (in the enum's order: a cache hit resolves every
 * value through here), or NULL. */
static const value_type_info *type_entry(spv_value_type t)
{
    size_t i = (size_t)t - SPV_VALUE_BOOL;
    return i < NTYPES && types[i].type == t ? &types[i] : NULL;
}

const char *spv_value_type_name(spv_value_type t)
{
    if (type_entry(t))
        return type_entry(t)->name;
    return t == SPV_VALUE_AUTO ? "auto" : t == SPV_VALUE_BYTES ? "bytes" : "?";
}

/* "a u32", "an f16": for messages. */
static const char *a_type(spv_value_type t)
{
    return type_entry(t) ? type_entry(t)->with_article : "a value of no known type";
}

unsigned spv_value_type_bits(spv_value_type t)
{
    return type_entry(t) ? type_entry(t)->bits : 0;
}

static bool is_sint(spv_value_type t)
{
    return t >= SPV_VALUE_I8 && t <= SPV_VALUE_I64;
}
static bool is_int(spv_value_type t)
{
    return t >= SPV_VALUE_I8 && t <= SPV_VALUE_U64;
}
static bool is_float(spv_value_type t)
{
    return t >= SPV_VALUE_F16 && t <= SPV_VALUE_F64;
}

/* --- the module's constants ------------------------------------------------------------ */

spv_value_type spv_value_type_of(const spv_module *m, uint32_t type_id)
{
    const spv_type *t = spv_type_get(m, type_id);
    if (!t)
        return SPV_VALUE_AUTO;
    if (t->kind == SPV_TYPE_BOOL)
        return SPV_VALUE_BOOL;
    for (size_t i = 0; i < NTYPES; i++) {
        spv_value_type v = types[i].type;
        if (types[i].bits != t->width)
            continue;
        if ((t->kind == SPV_TYPE_INT && is_int(v) && is_sint(v) == t->is_signed) ||
            (t->kind == SPV_TYPE_FLOAT && is_float(v)))
            return v;
    }
    return SPV_VALUE_AUTO;
}

static int cmp_spec(const void *a, const void *b)
{
    const spv_spec_constant *x = a, *y = b;
    if (x->spec_id != y->spec_id)
        return x->spec_id < y->spec_id ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static bool is_spec_scalar(const spv_module *m, const spv_id *x)
{
    if (x->spec_id == SPV_NONE || x->kind != SPV_ID_SPEC_CONSTANT || x->inst == SPV_NONE)
        return false;
    uint32_t op = m->insts[x->inst].opcode;
    return op == SpvOpSpecConstant || op == SpvOpSpecConstantTrue || op == SpvOpSpecConstantFalse;
}

size_t spv_spec_constants(const spv_module *m, spv_spec_constant **out)
{
    size_t n = 0;
    *out = NULL;
    for (uint32_t id = 1; id < m->bound; id++)
        n += is_spec_scalar(m, &m->ids[id]);
    if (n == 0 || !(*out = calloc(n, sizeof **out)))
        return 0;
    size_t k = 0;
    for (uint32_t id = 1; id < m->bound; id++) {
        const spv_id *x = &m->ids[id];
        if (is_spec_scalar(m, x))
            (*out)[k++] =
                (spv_spec_constant){ x->spec_id, id, x->name, x->type_id, spv_value_type_of(m, x->type_id), x->scalar };
    }
    qsort(*out, n, sizeof **out, cmp_spec);
    return n;
}

/* --- values as text -------------------------------------------------------------------- */

void spv_value_format(spv_value_type t, uint64_t bits, char *buf, size_t len)
{
    unsigned w = spv_value_type_bits(t);
    if (t == SPV_VALUE_BOOL) {
        snprintf(buf, len, "%s", bits ? "true" : "false");
    } else if (is_sint(t)) {
        snprintf(buf, len, "%" PRId64, spv_fold_sext(bits, w));
    } else if (is_int(t)) {
        snprintf(buf, len, "%" PRIu64, spv_fold_mask(bits, w));
    } else if (is_float(t)) {
        double d = spv_float_bits_to_f64(bits, w);
        if (isnan(d) || isinf(d)) {
            snprintf(buf, len, "%s%s", signbit(d) ? "-" : "", isnan(d) ? "nan" : "inf");
            return;
        }
        /* the fewest digits that read back as the same value of this width,
         * without an exponent where the value has no more digits than a double
         * holds (10, not 1e+01) */
        for (int digits = 1; digits <= 17; digits++) {
            int exp10 = d != 0 ? (int)floor(log10(fabs(d))) : 0;
            snprintf(buf, len, "%.*g", exp10 >= digits && exp10 < 17 ? exp10 + 1 : digits, d);
            if (spv_f64_to_float_bits(strtod(buf, NULL), w) == spv_fold_mask(bits, w))
                break;
        }
    } else {
        snprintf(buf, len, "0x%" PRIx64, bits);
    }
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

/* --- integers: ranges ------------------------------------------------------------------------ */

/* The values an integer type holds: -neg_limit to hi.  Kernel-flavour integers
 * have no signedness: they hold the signed and the unsigned range of the width. */
static void int_range(spv_value_type t, bool signless, uint64_t *neg_limit, uint64_t *hi)
{
    uint64_t umax = spv_fold_mask(UINT64_MAX, spv_value_type_bits(t)), smax = umax >> 1;
    *neg_limit = signless || is_sint(t) ? smax + 1 : 0;
    *hi = is_sint(t) && !signless ? smax : umax;
}

/* Whether the integer -mag (neg) or mag fits type t; *bits its bits there. */
static bool int_fits(spv_value_type t, bool signless, bool neg, uint64_t mag, uint64_t *bits)
{
    uint64_t lo, hi;
    int_range(t, signless, &lo, &hi);
    if (neg ? mag > lo : mag > hi)
        return false;
    *bits = spv_fold_mask(neg ? (uint64_t)0 - mag : mag, spv_value_type_bits(t));
    return true;
}

static int range_error(spv_diag *diag, const char *value, spv_value_type t, bool signless)
{
    uint64_t lo, hi;
    int_range(t, signless, &lo, &hi);
    return spv_fail(diag, "%s is out of range for %s (%s%" PRIu64 " to %" PRIu64 "%s)", value, spv_value_type_name(t),
                    lo ? "-" : "", lo, hi, signless ? "; Kernel integers have no signedness" : "");
}

/* Text (no suffix) as a value of type t; `signless`: t is a Kernel integer. */
static int parse_as(const char *text, spv_value_type t, bool signless, uint64_t *bits, spv_diag *diag)
{
    char buf[256];
    while (isspace((unsigned char)*text))
        text++;
    size_t n = strlen(text);
    while (n && isspace((unsigned char)text[n - 1]))
        n--;
    if (n == 0)
        return spv_fail(diag, "empty value, expected %s", a_type(t));
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
    if (is_int(t)) {
        bool neg;
        uint64_t mag = 0;
        int r = parse_int(buf, &neg, &mag);
        if (r == -1)
            return spv_fail(diag, "value \"%s\" is not an integer, expected %s (decimal or 0x hex)", buf, a_type(t));
        char what[300];
        snprintf(what, sizeof what, "value %s", buf);
        if (r == -2 || !int_fits(t, signless, neg, mag, bits))
            return range_error(diag, what, t, signless);
        return 0;
    }
    if (is_float(t)) {
        double d;
        char *end;
        if (w == 32) {
            float f = strtof(buf, &end);
            if (end == buf || *end)
                return spv_fail(diag, "value \"%s\" is not a number, expected %s", buf, a_type(t));
            uint32_t u;
            memcpy(&u, &f, sizeof u);
            *bits = u;
            d = f;
        } else if (w == 64) {
            d = strtod(buf, &end);
            if (end == buf || *end)
                return spv_fail(diag, "value \"%s\" is not a number, expected %s", buf, a_type(t));
            memcpy(bits, &d, sizeof d);
        } else {
            if (strtod_round_to_odd(buf, &d))
                return spv_fail(diag, "value \"%s\" is not a number, expected %s", buf, a_type(t));
            *bits = spv_f64_to_f16(d);
            d = spv_f16_to_f64((uint16_t)*bits);
        }
        if (isinf(d) && !text_is_inf(buf))
            return spv_fail(diag, "value %s is out of range for %s (rounds to infinity)", buf, tn);
        return 0;
    }
    return spv_fail(diag, "no value type given for \"%s\"", buf);
}

int spv_parse_value_as(const char *text, spv_value_type t, uint64_t *bits, spv_diag *diag)
{
    return parse_as(text, t, false, bits, diag);
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
            return spv_fail(diag, "\"%s\": expected ID=VALUE with a numeric SpecId", text);
        memcpy(idbuf, text, n);
        idbuf[n] = 0;
        if (parse_int(idbuf, &neg, &id) || neg || id > UINT32_MAX)
            return spv_fail(diag, "\"%s\": SpecId \"%s\" is not a number from 0 to 4294967295", text, idbuf);
        v->spec_id = (uint32_t)id;
        value = eq + 1;
        while (isspace((unsigned char)*value))
            value++;
    }
    const char *colon = strrchr(value, ':');
    if (colon) {
        const char *suffix = colon + 1;
        spv_value_type t = SPV_VALUE_AUTO;
        for (size_t i = 0; i < NTYPES; i++)
            if (!strcmp(types[i].name, suffix))
                t = types[i].type;
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

/* --- the rule ---------------------------------------------------------------------------------- */

static const char *src(const spv_module *m)
{
    return m->source ? m->source : "<memory>";
}

/* "mm.spv: SpecId 0 (BS, u32)": how every message names a constant. */
static void describe(const spv_module *m, const spv_spec_constant *c, char *buf, size_t len)
{
    if (c->name && *c->name)
        snprintf(buf, len, "%s: SpecId %u (%s, %s)", src(m), c->spec_id, c->name, spv_value_type_name(c->type));
    else
        snprintf(buf, len, "%s: SpecId %u (%s)", src(m), c->spec_id, spv_value_type_name(c->type));
}

/* Raw bytes: the constant's size, read as its type (Vulkan's rule). */
static int bytes_value_bits(spv_value_type kt, const spv_spec_value *v, uint64_t *bits, spv_diag *diag)
{
    unsigned want = kt == SPV_VALUE_BOOL ? 4 : spv_value_type_bits(kt) / 8;
    if (v->size != want && !(kt == SPV_VALUE_BOOL && v->size == 1))
        return spv_fail(diag, "%u bytes given, %s takes %u%s", v->size, a_type(kt), want,
                        kt == SPV_VALUE_BOOL ? " (a VkBool32) or 1" : "");
    if (v->size < 8 && (v->bits >> (8 * v->size)) != 0)
        return spv_fail(diag, "value bits 0x%" PRIx64 " do not fit in %u bytes", v->bits, v->size);
    if (kt == SPV_VALUE_BOOL && v->bits > 1)
        return spv_fail(diag, "the %u-byte value %" PRIu64 " is not a bool: a VkBool32 is 0 or 1", v->size, v->bits);
    *bits = v->bits;
    return 0;
}

/* A typed value into a constant of type kt (see spec_value.h); -1 with the
 * reason (no prefix) in diag. */
static int typed_value_bits(spv_value_type kt, bool signless, const spv_spec_value *v, uint64_t *bits, spv_diag *diag)
{
    if (v->type == SPV_VALUE_BYTES)
        return bytes_value_bits(kt, v, bits, diag);
    unsigned vw = spv_value_type_bits(v->type), kw = spv_value_type_bits(kt);
    if (!vw)
        return spv_fail(diag, "the value has no known type (%d)", (int)v->type);
    if (spv_fold_mask(v->bits, vw) != v->bits)
        return spv_fail(diag, "value bits 0x%" PRIx64 " do not fit in %s", v->bits, a_type(v->type));
    if (v->type == kt) {
        *bits = v->bits;
        return 0;
    }
    char val[64], given[96];
    spv_value_format(v->type, v->bits, val, sizeof val);
    snprintf(given, sizeof given, "the %s value %s", spv_value_type_name(v->type), val);
    if (kt == SPV_VALUE_BOOL) {
        /* VkBool32 (and OpenCL's one byte) carry a bool as the integer 0 or 1 */
        if (v->type != SPV_VALUE_BOOL && !(is_int(v->type) && v->bits <= 1))
            return spv_fail(diag, "%s is not a bool: give true, false, or an integer 0 or 1 (a VkBool32)", given);
        *bits = v->bits;
        return 0;
    }
    if (is_int(kt)) {
        if (!is_int(v->type))
            return spv_fail(diag, "%s is not an integer, expected %s", given, a_type(kt));
        int64_t s = spv_fold_sext(v->bits, vw);
        bool neg = is_sint(v->type) && s < 0;
        if (!int_fits(kt, signless, neg, neg ? (uint64_t)0 - (uint64_t)s : v->bits, bits))
            return range_error(diag, given, kt, signless);
        return 0;
    }
    if (!is_float(v->type))
        return spv_fail(diag, "%s is not a float, expected %s", given, a_type(kt));
    double d = spv_float_bits_to_f64(v->bits, vw);
    *bits = spv_f64_to_float_bits(d, kw);
    if (!isnan(d) && spv_float_bits_to_f64(*bits, kw) != d)
        return spv_fail(diag, "%s has no exact %s value (give it as %s, or as text to round it)", given,
                        spv_value_type_name(kt), spv_value_type_name(kt));
    return 0;
}

int spv_spec_value_bits(const spv_module *m, const spv_spec_constant *c, const spv_spec_value *v, uint64_t *bits,
                        spv_diag *diag)
{
    spv_diag why;
    why.msg[0] = 0;
    bool signless = m->is_kernel && is_int(c->type);
    int rc =
        c->type == SPV_VALUE_AUTO
            ? spv_fail(&why, "the constant's type is not bool, an 8- to 64-bit integer or a 16-, 32- or 64-bit float")
        : v->type == SPV_VALUE_AUTO && !v->text ? spv_fail(&why, "the value has no type and no text")
        : v->type == SPV_VALUE_AUTO             ? parse_as(v->text, c->type, signless, bits, &why)
                                                : typed_value_bits(c->type, signless, v, bits, &why);
    if (!rc)
        return 0;
    char what[512]; /* named only when there is something to say: a cache hit resolves values too */
    describe(m, c, what, sizeof what);
    return spv_fail(diag, "%s: %s", what, why.msg);
}

static int unknown_id_error(const spv_module *m, const spv_spec_constant *list, size_t n, uint32_t spec_id,
                            spv_diag *diag)
{
    spv_fail(diag, "%s: SpecId %u is not in the module", src(m), spec_id);
    size_t distinct = 0;
    for (size_t i = 0; i < n; i++)
        distinct += i == 0 || list[i].spec_id != list[i - 1].spec_id;
    if (distinct == 0) {
        spv_diag_append(diag, "; it has no specialization constants");
        return -1;
    }
    spv_diag_append(diag, "; it has SpecId%s", distinct > 1 ? "s" : "");
    for (size_t i = 0, k = 0; i < n; i++) {
        if (i && list[i].spec_id == list[i - 1].spec_id)
            continue;
        const char *name = NULL; /* the first named constant carrying the id */
        for (size_t j = i; j < n && list[j].spec_id == list[i].spec_id && !name; j++)
            name = list[j].name && *list[j].name ? list[j].name : NULL;
        spv_diag_append(diag, "%s %u (%s%s%s)", k++ ? "," : "", list[i].spec_id, name ? name : "", name ? ", " : "",
                        spv_value_type_name(list[i].type));
    }
    return -1;
}

/* The first entry of `list` (sorted by SpecId) with SpecId id or a larger
 * one (a binary search without branches to mispredict). */
static size_t first_with(const spv_spec_constant *list, size_t n, uint32_t id)
{
    if (!n)
        return 0;
    const spv_spec_constant *base = list;
    for (size_t len = n; len > 1;) {
        size_t half = len / 2;
        base = base[half - 1].spec_id < id ? base + half : base;
        len -= half;
    }
    return (size_t)(base - list) + (base->spec_id < id);
}

int spv_spec_resolve(const spv_module *m, const spv_spec_constant *list, size_t n, const spv_spec_value *values,
                     size_t nvalues, uint64_t *out, spv_diag *diag)
{
    for (size_t i = 0; i < n; i++)
        out[i] = list[i].default_bits;
    /* which value sets each entry: the last with its SpecId (a cache hit
     * comes here; the list is sorted by SpecId, spv_spec_constants) */
    enum { SMALL = 64 };
    size_t owner_small[SMALL], first_small[SMALL];
    size_t *owner = n <= SMALL ? owner_small : malloc(n * sizeof *owner);
    size_t *first = nvalues <= SMALL ? first_small : malloc(nvalues * sizeof *first);
    int rc = owner && first ? 0 : spv_fail(diag, "out of memory");
    for (size_t i = 0; i < n && !rc; i++)
        owner[i] = SIZE_MAX;
    for (size_t j = nvalues; j-- > 0 && !rc;) {
        size_t i = first[j] = first_with(list, n, values[j].spec_id);
        for (; i < n && list[i].spec_id == values[j].spec_id && owner[i] == SIZE_MAX; i++)
            owner[i] = j;
    }
    for (size_t j = 0; j < nvalues && !rc; j++) {
        const spv_spec_value *v = &values[j];
        size_t i = first[j];
        if (i == n || list[i].spec_id != v->spec_id) {
            bool overridden = false; /* by a later value for the same (unknown) id: that one fails */
            for (size_t k = j + 1; k < nvalues && !overridden; k++)
                overridden = values[k].spec_id == v->spec_id;
            rc = overridden ? 0 : unknown_id_error(m, list, n, v->spec_id, diag);
            continue;
        }
        for (; i < n && list[i].spec_id == v->spec_id && owner[i] == j && !rc; i++)
            rc = spv_spec_value_bits(m, &list[i], v, &out[i], diag);
    }
    if (owner != owner_small)
        free(owner);
    if (first != first_small)
        free(first);
    return rc;
}
