/* cmd/buffer_fill.c — typed scalar values and buffer contents from text. */
#include "buffer_fill.h"
#include "cli.h"
#include "npy.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/file.h"

/* --- scalar types ------------------------------------------------------------ */

/* The names are the library's (spvjit_type_name: the -D suffixes too). */
int vtype_parse(const char *name, size_t len, spvjit_type *out)
{
    for (int t = SPVJIT_TYPE_BOOL; t <= SPVJIT_TYPE_F64; t++) {
        const char *n = spvjit_type_name((spvjit_type)t);
        if (strlen(n) == len && !memcmp(n, name, len)) {
            *out = (spvjit_type)t;
            return 0;
        }
    }
    return -1;
}

const char *vtype_name(spvjit_type t)
{
    return spvjit_type_name(t);
}

/* Bytes of one element in a buffer (a bool is a 4-byte VkBool32 there). */
size_t vtype_size(spvjit_type t)
{
    switch (t) {
    case SPVJIT_TYPE_I8:
    case SPVJIT_TYPE_U8:
        return 1;
    case SPVJIT_TYPE_I16:
    case SPVJIT_TYPE_U16:
    case SPVJIT_TYPE_F16:
        return 2;
    case SPVJIT_TYPE_BOOL:
    case SPVJIT_TYPE_I32:
    case SPVJIT_TYPE_U32:
    case SPVJIT_TYPE_F32:
        return 4;
    case SPVJIT_TYPE_I64:
    case SPVJIT_TYPE_U64:
    case SPVJIT_TYPE_F64:
        return 8;
    }
    return 0;
}

bool vtype_is_float(spvjit_type t)
{
    return t == SPVJIT_TYPE_F16 || t == SPVJIT_TYPE_F32 || t == SPVJIT_TYPE_F64;
}

bool vtype_is_signed(spvjit_type t)
{
    return t == SPVJIT_TYPE_I8 || t == SPVJIT_TYPE_I16 || t == SPVJIT_TYPE_I32 || t == SPVJIT_TYPE_I64;
}

static bool vtype_is_int(spvjit_type t)
{
    return t >= SPVJIT_TYPE_I8 && t <= SPVJIT_TYPE_U64;
}

bool vtype_compatible(spvjit_type want, spvjit_type got)
{
    return want == got || (vtype_is_int(want) && vtype_is_int(got) && vtype_size(want) == vtype_size(got));
}

/* --- half precision -------------------------------------------------------------- */

float f16_to_f32(uint16_t h)
{
    uint32_t s = (uint32_t)(h >> 15), e = (h >> 10) & 31u, f = h & 1023u;
    float v;
    if (e == 0)
        v = ldexpf((float)f, -24); /* zero and subnormals */
    else if (e == 31)
        v = f ? NAN : INFINITY;
    else
        v = ldexpf((float)(f | 1024u), (int)e - 25);
    return s ? -v : v;
}

uint16_t f64_to_f16(double d)
{
    uint16_t sign = signbit(d) ? 0x8000 : 0;
    double a = fabs(d);
    if (isnan(d))
        return sign | 0x7e00;
    if (a >= 65520.0) /* rounds to infinity (max half 65504, halfway 65520) */
        return sign | 0x7c00;
    if (a < ldexp(1.0, -14)) {
        /* subnormal: units of 2^-24, round to nearest even */
        double q = a * ldexp(1.0, 24);
        double r = nearbyint(q); /* default rounding mode: to nearest even */
        return sign | (uint16_t)r;
    }
    int e;
    double m = frexp(a, &e); /* a = m * 2^e, m in [0.5,1) */
    /* 11 significant bits: scale so the integer part holds them */
    double q = nearbyint(ldexp(m, 11));
    if (q >= 2048.0) {
        q /= 2.0;
        e++;
    }
    int biased = e - 1 + 15;
    if (biased >= 31)
        return sign | 0x7c00;
    return sign | (uint16_t)((unsigned)biased << 10) | (uint16_t)((uint32_t)q & 1023u);
}

uint16_t f32_to_f16(float f)
{
    return f64_to_f16((double)f); /* float→double is exact */
}

/* --- numbers from text ------------------------------------------------------------ */

int num_parse(const char *text, size_t len, num_value *out)
{
    char buf[128];
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, text, len);
    buf[len] = 0;
    memset(out, 0, sizeof *out);
    const char *p = buf;
    bool neg = false;
    if (*p == '-' || *p == '+')
        neg = *p++ == '-';
    if (!strcmp(p, "inf") || !strcmp(p, "infinity") || !strcmp(p, "nan")) {
        out->is_float = true;
        out->d = p[0] == 'n' ? NAN : (neg ? -INFINITY : INFINITY);
        return 0;
    }
    bool hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
    if (!*p || (!hex && strpbrk(p, ".eE")) || (!hex && !(*p >= '0' && *p <= '9'))) {
        /* a float (or garbage) */
        char *end;
        errno = 0;
        double d = strtod(buf, &end);
        if (*end || end == buf || !strpbrk(p, "0123456789"))
            return -1;
        out->is_float = true;
        out->d = d;
        return 0;
    }
    char *end;
    errno = 0;
    uint64_t u = strtoull(p, &end, hex ? 16 : 10);
    if (*end || end == p || errno == ERANGE || *p == '-' || *p == '+')
        return -1;
    if (neg && u > (uint64_t)INT64_MAX + 1)
        return -1;
    out->negative = neg && u != 0;
    out->u = neg ? (uint64_t)0 - u : u;
    out->d = neg ? -(double)u : (double)u;
    return 0;
}

int num_store(spvjit_type t, const num_value *n, bool wrap_ints, void *dst, char *err, size_t errlen)
{
    size_t size = vtype_size(t);
    if (vtype_is_float(t)) {
        double d = n->d;
        if (t == SPVJIT_TYPE_F64) {
            memcpy(dst, &d, 8);
        } else if (t == SPVJIT_TYPE_F32) {
            float f = (float)d;
            if (isinf(f) && !isinf(d))
                return cli_errf(err, errlen, "%g is out of range for f32", d);
            memcpy(dst, &f, 4);
        } else {
            uint16_t h = f64_to_f16(d);
            if ((h & 0x7fff) == 0x7c00 && !isinf(d))
                return cli_errf(err, errlen, "%g is out of range for f16", d);
            memcpy(dst, &h, 2);
        }
        return 0;
    }
    if (n->is_float)
        return cli_errf(err, errlen, "%g is not an integer (the type is %s)", n->d, vtype_name(t));
    uint64_t u = n->u;
    if (t == SPVJIT_TYPE_BOOL) {
        if (u > 1)
            return cli_errf(err, errlen, "a bool is 0 or 1, not %" PRIu64, u);
        uint32_t b = (uint32_t)u;
        memcpy(dst, &b, 4);
        return 0;
    }
    unsigned bits = (unsigned)size * 8;
    if (!wrap_ints && bits < 64) {
        bool ok;
        if (vtype_is_signed(t)) {
            int64_t v = (int64_t)u, lim = (int64_t)1 << (bits - 1);
            ok = n->negative ? v >= -lim : u < (uint64_t)lim;
        } else {
            ok = !n->negative && u < ((uint64_t)1 << bits);
        }
        if (!ok)
            return cli_errf(err, errlen, "%s%" PRIu64 " is out of range for %s", n->negative ? "-" : "",
                            n->negative ? (uint64_t)0 - u : u, vtype_name(t));
    } else if (!wrap_ints && bits == 64 && n->negative && !vtype_is_signed(t)) {
        return cli_errf(err, errlen, "a negative value for %s", vtype_name(t));
    }
    memcpy(dst, &u, size); /* the low bytes: little-endian hosts, as the whole project assumes */
    return 0;
}

/* An element's bytes as bits, zero-extended (little-endian hosts). */
static uint64_t element_bits(spvjit_type t, const void *src)
{
    uint64_t v = 0;
    memcpy(&v, src, vtype_size(t));
    return v;
}

uint64_t scalar_as_bits(spvjit_type t, const void *src)
{
    uint64_t v = element_bits(t, src);
    unsigned shift = 64 - 8 * (unsigned)vtype_size(t);
    return vtype_is_signed(t) && shift ? (uint64_t)((int64_t)(v << shift) >> shift) : v;
}

double scalar_as_double(spvjit_type t, const void *src)
{
    switch (t) {
    case SPVJIT_TYPE_F16: {
        uint16_t h;
        memcpy(&h, src, 2);
        return f16_to_f32(h);
    }
    case SPVJIT_TYPE_F32: {
        float f;
        memcpy(&f, src, 4);
        return f;
    }
    case SPVJIT_TYPE_F64: {
        double d;
        memcpy(&d, src, 8);
        return d;
    }
    default:
        break;
    }
    uint64_t b = scalar_as_bits(t, src);
    return vtype_is_signed(t) ? (double)(int64_t)b : (double)b;
}

/* The library's value text (floats with the digits that read back the same);
 * a bool element is shown as the VkBool32 number it is. */
void scalar_format(spvjit_type t, const void *src, char *buf, size_t len)
{
    spvjit_value_text(t == SPVJIT_TYPE_BOOL ? SPVJIT_TYPE_U32 : t, element_bits(t, src), buf, len);
}

/* --- buffer contents ------------------------------------------------------------------ */

uint64_t fill_rand_next(uint64_t *s)
{
    uint64_t x = *s ? *s : 0x9E3779B97F4A7C15ull;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

/* Splits "a:b:c" into at most max fields (pointers into s, lengths). */
static int split_fields(const char *s, char sep, const char **f, size_t *flen, int max)
{
    int n = 0;
    for (;;) {
        const char *e = strchr(s, sep);
        if (n == max)
            return -1;
        f[n] = s;
        flen[n] = e ? (size_t)(e - s) : strlen(s);
        n++;
        if (!e)
            return n;
        s = e + 1;
    }
}

static int parse_count(const char *s, size_t len, uint64_t *out)
{
    num_value n;
    if (num_parse(s, len, &n) || n.is_float || n.negative)
        return -1;
    *out = n.u;
    return 0;
}

/* Reserves count elements of `size` bytes, guarding against overflow and absurd sizes. */
static int alloc_bytes(fill_data *out, uint64_t count, size_t size, const char *spec, char *err, size_t errlen)
{
    if (count > ((uint64_t)1 << 40) / (size ? size : 1))
        return cli_errf(err, errlen, "'%s': %" PRIu64 " elements is too large", spec, count);
    out->size = (size_t)count * size;
    out->bytes = calloc(out->size ? out->size : 1, 1);
    if (!out->bytes)
        return cli_errf(err, errlen, "'%s': out of memory for %zu bytes", spec, out->size);
    return 0;
}

static int read_file_bytes(const char *path, fill_data *out, char *err, size_t errlen)
{
    size_t n = 0;
    uint8_t *b = util_read_file(path, &n);
    if (!b)
        return cli_errf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
    out->bytes = b;
    out->size = n;
    return 0;
}

/* A .npy file's elements (dtype and shape kept), else the file's bytes. */
static int read_file(const char *path, fill_data *out, char *err, size_t errlen)
{
    if (read_file_bytes(path, out, err, errlen))
        return -1;
    if (!npy_is_npy(out->bytes, out->size)) {
        if (!npy_path(path))
            return 0;
        fill_free(out);
        return cli_errf(err, errlen, "%s: not a .npy file (no \\x93NUMPY magic)", path);
    }
    npy_array a;
    char e[256];
    if (npy_parse(out->bytes, out->size, &a, e, sizeof e)) {
        fill_free(out);
        return cli_errf(err, errlen, "%s: %s", path, e);
    }
    out->size -= a.data_offset;
    memmove(out->bytes, out->bytes + a.data_offset, out->size);
    out->type = a.type;
    npy_shape_text(&a, out->npy_shape, sizeof out->npy_shape);
    return 0;
}

int fill_parse(const char *spec, fill_data *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (spec[0] == '@') {
        if (!spec[1])
            return cli_errf(err, errlen, "'@' needs a file name");
        return read_file(spec + 1, out, err, errlen);
    }
    const char *f[5];
    size_t fl[5];
    int nf = split_fields(spec, ':', f, fl, 5);
    if (nf < 2)
        return cli_errf(err, errlen,
                        "'%s': expected TYPE:VALUES, zero:BYTES, const:TYPE:VALUE:COUNT, "
                        "iota:TYPE:COUNT, random:TYPE:COUNT[:SEED] or @FILE",
                        spec);
#define KW(s) (fl[0] == strlen(s) && !memcmp(f[0], s, fl[0]))
    spvjit_type t;
    uint64_t count;
    if (KW("zero")) {
        if (nf != 2 || parse_count(f[1], fl[1], &count))
            return cli_errf(err, errlen, "'%s': expected zero:BYTES", spec);
        return alloc_bytes(out, count, 1, spec, err, errlen);
    }
    if (KW("const") || KW("iota") || KW("random")) {
        bool is_const = KW("const"), is_iota = KW("iota");
        int want_min = is_const ? 4 : 3, want_max = is_const ? 4 : 4;
        if (nf < want_min || nf > want_max || vtype_parse(f[1], fl[1], &t) || t == SPVJIT_TYPE_BOOL)
            return cli_errf(err, errlen, "'%s': expected %s", spec,
                            is_const  ? "const:TYPE:VALUE:COUNT"
                            : is_iota ? "iota:TYPE:COUNT[:START]"
                                      : "random:TYPE:COUNT[:SEED]");
        const char *cf = is_const ? f[3] : f[2];
        size_t cl = is_const ? fl[3] : fl[2];
        if (parse_count(cf, cl, &count))
            return cli_errf(err, errlen, "'%s': bad COUNT '%.*s'", spec, (int)cl, cf);
        size_t es = vtype_size(t);
        if (alloc_bytes(out, count, es, spec, err, errlen))
            return -1;
        out->type = t;
        num_value v = { 0 };
        char verr[160];
        if (is_const) {
            verr[0] = 0;
            if (num_parse(f[2], fl[2], &v) || num_store(t, &v, false, out->bytes, verr, sizeof verr)) {
                fill_free(out);
                return cli_errf(err, errlen, "'%s': bad VALUE '%.*s'%s%s", spec, (int)fl[2], f[2], verr[0] ? ": " : "",
                                verr);
            }
            for (uint64_t i = 1; i < count; i++)
                memcpy(out->bytes + i * es, out->bytes, es);
            return 0;
        }
        if (is_iota) {
            num_value start = { 0 };
            if (nf == 4 && (num_parse(f[3], fl[3], &start) || start.is_float)) {
                fill_free(out);
                return cli_errf(err, errlen, "'%s': bad START '%.*s' (an integer)", spec, (int)fl[3], f[3]);
            }
            for (uint64_t i = 0; i < count; i++) {
                num_value x = { .u = start.u + i };
                x.d = vtype_is_signed(t) || start.negative ? (double)(int64_t)x.u : (double)x.u;
                num_store(t, &x, true, out->bytes + i * es, NULL, 0); /* wraps like the type does */
            }
            return 0;
        }
        uint64_t seed = 1;
        if (nf == 4 && parse_count(f[3], fl[3], &seed)) {
            fill_free(out);
            return cli_errf(err, errlen, "'%s': bad SEED '%.*s'", spec, (int)fl[3], f[3]);
        }
        uint64_t st = seed * 0x9E3779B97F4A7C15ull + 1;
        for (uint64_t i = 0; i < count; i++) {
            uint64_t r = fill_rand_next(&st);
            num_value x = { 0 };
            if (vtype_is_float(t)) {
                x.is_float = true;
                x.d = -1.0 + 2.0 * (double)(r >> 11) * 0x1p-53;
            } else if (vtype_is_signed(t)) {
                int64_t s = (int64_t)(r % 200) - 100;
                x.u = (uint64_t)s;
                x.negative = s < 0;
            } else {
                x.u = r % 100;
            }
            num_store(t, &x, true, out->bytes + i * es, NULL, 0);
        }
        return 0;
    }
    /* TYPE:V,V,... */
    if (vtype_parse(f[0], fl[0], &t))
        return cli_errf(err, errlen,
                        "'%s': unknown type or form '%.*s' (types: i8 i16 i32 i64 u8 u16 u32 u64 f16 "
                        "f32 f64; forms: zero const iota random @FILE)",
                        spec, (int)fl[0], f[0]);
    if (nf != 2)
        return cli_errf(err, errlen, "'%s': expected TYPE:V,V,...", spec);
    const char *v = f[1];
    count = 1;
    for (const char *p = v; *p; p++)
        count += *p == ',';
    size_t es = vtype_size(t);
    if (alloc_bytes(out, count, es, spec, err, errlen))
        return -1;
    out->type = t;
    for (uint64_t i = 0; i < count; i++) {
        const char *e = strchr(v, ',');
        size_t len = e ? (size_t)(e - v) : strlen(v);
        num_value x;
        char verr[160] = "";
        if (num_parse(v, len, &x) || num_store(t, &x, false, out->bytes + i * es, verr, sizeof verr)) {
            fill_free(out);
            return cli_errf(err, errlen, "'%s': value %" PRIu64 " '%.*s' is not a %s%s%s", spec, i, (int)len, v,
                            vtype_name(t), verr[0] ? ": " : "", verr);
        }
        v = e ? e + 1 : v + len;
    }
#undef KW
    return 0;
}

void fill_free(fill_data *f)
{
    free(f->bytes);
    f->bytes = NULL;
    f->size = 0;
}
