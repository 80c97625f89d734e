/* cmd/npy.c — numpy's .npy files (see npy.h). */
#include "npy.h"
#include "buffer_fill.h"
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char magic[6] = { '\x93', 'N', 'U', 'M', 'P', 'Y' };

bool npy_path(const char *path)
{
    size_t l = strlen(path);
    return l > 4 && !strcasecmp(path + l - 4, ".npy");
}

bool npy_is_npy(const void *bytes, size_t len)
{
    return len >= sizeof magic && !memcmp(bytes, magic, sizeof magic);
}

/* The dtype kinds spvjit buffers can hold: numpy's kind letter and size. */
static const struct {
    char kind;
    unsigned size;
    spvjit_type type;
} dtypes[] = {
    { 'i', 1, SPVJIT_TYPE_I8 },  { 'i', 2, SPVJIT_TYPE_I16 }, { 'i', 4, SPVJIT_TYPE_I32 }, { 'i', 8, SPVJIT_TYPE_I64 },
    { 'u', 1, SPVJIT_TYPE_U8 },  { 'u', 2, SPVJIT_TYPE_U16 }, { 'u', 4, SPVJIT_TYPE_U32 }, { 'u', 8, SPVJIT_TYPE_U64 },
    { 'f', 2, SPVJIT_TYPE_F16 }, { 'f', 4, SPVJIT_TYPE_F32 }, { 'f', 8, SPVJIT_TYPE_F64 },
};

const char *npy_dtype_name(spvjit_type t)
{
    static const char *const names[] = {
        [SPVJIT_TYPE_I8] = "int8",     [SPVJIT_TYPE_I16] = "int16",  [SPVJIT_TYPE_I32] = "int32",
        [SPVJIT_TYPE_I64] = "int64",   [SPVJIT_TYPE_U8] = "uint8",   [SPVJIT_TYPE_U16] = "uint16",
        [SPVJIT_TYPE_U32] = "uint32",  [SPVJIT_TYPE_U64] = "uint64", [SPVJIT_TYPE_F16] = "float16",
        [SPVJIT_TYPE_F32] = "float32", [SPVJIT_TYPE_F64] = "float64"
    };
    return (unsigned)t < sizeof names / sizeof names[0] && names[t] ? names[t] : "?";
}

/* --- the header: a Python dict literal ------------------------------------------- */

typedef struct cursor {
    const char *p, *end;
} cursor;

static void skip_ws(cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static bool eat(cursor *c, char ch)
{
    skip_ws(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return true;
    }
    return false;
}

/* A quoted string ('...' or "...", no escapes: numpy writes none in these fields). */
static bool read_string(cursor *c, char *out, size_t len)
{
    skip_ws(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
        return false;
    char q = *c->p++;
    size_t n = 0;
    while (c->p < c->end && *c->p != q && *c->p != '\\') {
        if (n + 1 < len)
            out[n++] = *c->p;
        c->p++;
    }
    out[n] = 0;
    if (c->p >= c->end || *c->p != q)
        return false;
    c->p++;
    return true;
}

static bool read_word(cursor *c, const char *w)
{
    skip_ws(c);
    size_t l = strlen(w);
    if ((size_t)(c->end - c->p) >= l && !memcmp(c->p, w, l)) {
        c->p += l;
        return true;
    }
    return false;
}

static bool read_uint(cursor *c, uint64_t *v)
{
    skip_ws(c);
    const char *s = c->p;
    *v = 0;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
        if (*v > (UINT64_MAX - 9) / 10)
            return false;
        *v = *v * 10 + (uint64_t)(*c->p++ - '0');
    }
    /* numpy may write longs with an L suffix (Python 2 files) */
    if (c->p > s && c->p < c->end && *c->p == 'L')
        c->p++;
    return c->p > s;
}

static int parse_descr(const char *d, npy_array *a, bool *swap, char *err, size_t errlen)
{
    const char *s = d;
    char order = '=';
    if (*s == '<' || *s == '>' || *s == '|' || *s == '=')
        order = *s++;
    char kind = *s ? *s++ : 0;
    unsigned size = 0;
    while (*s >= '0' && *s <= '9' && size < 1000)
        size = size * 10 + (unsigned)(*s++ - '0');
    for (size_t i = 0; !*s && i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (dtypes[i].kind == kind && dtypes[i].size == size) {
            a->type = dtypes[i].type;
            *swap = size > 1 && order == '>';
            return 0;
        }
    if (kind == 'b')
        return cli_errf(err, errlen, "dtype '%s' (bool) has no SPIR-V buffer layout; save it as uint8 or uint32", d);
    return cli_errf(err, errlen,
                    "dtype '%s' is not a plain number type (int8..int64, uint8..uint64, float16/32/64 are)", d);
}

static void byteswap(uint8_t *p, uint64_t count, size_t size)
{
    for (uint64_t i = 0; i < count; i++, p += size)
        for (size_t k = 0; k < size / 2; k++) {
            uint8_t t = p[k];
            p[k] = p[size - 1 - k];
            p[size - 1 - k] = t;
        }
}

int npy_parse(uint8_t *bytes, size_t len, npy_array *a, char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    if (!npy_is_npy(bytes, len) || len < 10)
        return cli_errf(err, errlen, "not a .npy file (no \\x93NUMPY magic)");
    unsigned major = bytes[6];
    size_t hlen, hstart;
    if (major == 1) {
        hlen = (size_t)bytes[8] | (size_t)bytes[9] << 8;
        hstart = 10;
    } else if (major == 2 || major == 3) {
        if (len < 12)
            return cli_errf(err, errlen, "truncated .npy header");
        hlen = (size_t)bytes[8] | (size_t)bytes[9] << 8 | (size_t)bytes[10] << 16 | (size_t)bytes[11] << 24;
        hstart = 12;
    } else {
        return cli_errf(err, errlen, ".npy format version %u.%u is not known (1.0, 2.0 and 3.0 are)", major, bytes[7]);
    }
    if (hlen > len - hstart)
        return cli_errf(err, errlen, "truncated .npy header (%zu bytes announced, %zu present)", hlen, len - hstart);
    cursor c = { (const char *)bytes + hstart, (const char *)bytes + hstart + hlen };
    bool have_descr = false, have_order = false, have_shape = false, fortran = false, swap = false;
    if (!eat(&c, '{'))
        return cli_errf(err, errlen, "bad .npy header: expected a dict");
    while (!eat(&c, '}')) {
        char key[32], descr[64];
        if (!read_string(&c, key, sizeof key) || !eat(&c, ':'))
            return cli_errf(err, errlen, "bad .npy header: expected 'key': value");
        if (!strcmp(key, "descr")) {
            skip_ws(&c);
            if (c.p < c.end && *c.p == '[')
                return cli_errf(err, errlen, "structured dtypes are not supported; save a plain numeric array");
            if (!read_string(&c, descr, sizeof descr))
                return cli_errf(err, errlen, "bad .npy header: 'descr' is not a string");
            if (parse_descr(descr, a, &swap, err, errlen))
                return -1;
            have_descr = true;
        } else if (!strcmp(key, "fortran_order")) {
            if (read_word(&c, "True"))
                fortran = true;
            else if (!read_word(&c, "False"))
                return cli_errf(err, errlen, "bad .npy header: 'fortran_order' is not True or False");
            have_order = true;
        } else if (!strcmp(key, "shape")) {
            if (!eat(&c, '('))
                return cli_errf(err, errlen, "bad .npy header: 'shape' is not a tuple");
            a->count = 1;
            while (!eat(&c, ')')) {
                uint64_t v;
                if (a->ndim == NPY_MAX_DIMS || !read_uint(&c, &v))
                    return cli_errf(err, errlen, "bad .npy header: 'shape' is not a tuple of at most %d sizes",
                                    NPY_MAX_DIMS);
                a->shape[a->ndim++] = v;
                a->count = v && a->count > UINT64_MAX / v ? UINT64_MAX : a->count * v;
                if (!eat(&c, ',')) {
                    if (!eat(&c, ')'))
                        return cli_errf(err, errlen, "bad .npy header: 'shape' is not a tuple");
                    break;
                }
            }
            have_shape = true;
        } else {
            return cli_errf(err, errlen, "bad .npy header: unknown key '%s'", key);
        }
        if (!eat(&c, ',')) {
            if (!eat(&c, '}'))
                return cli_errf(err, errlen, "bad .npy header: expected ',' or '}'");
            break;
        }
    }
    if (!have_descr || !have_order || !have_shape)
        return cli_errf(err, errlen, "bad .npy header: it lacks '%s'",
                        !have_descr   ? "descr"
                        : !have_order ? "fortran_order"
                                      : "shape");
    unsigned big = 0;
    for (unsigned i = 0; i < a->ndim; i++)
        big += a->shape[i] > 1;
    if (fortran && big > 1) {
        char s[128];
        npy_shape_text(a, s, sizeof s);
        return cli_errf(err, errlen, "the array of shape %s is in Fortran order; save np.ascontiguousarray(a)", s);
    }
    size_t size = vtype_size(a->type);
    a->data_offset = hstart + hlen;
    size_t have = len - a->data_offset;
    if (a->count > ((uint64_t)1 << 40) / size)
        return cli_errf(err, errlen, "%" PRIu64 " elements is too large", a->count);
    if ((uint64_t)have != a->count * size) {
        char s[128];
        npy_shape_text(a, s, sizeof s);
        return cli_errf(err, errlen, "%s data: the header says %s of %s (%" PRIu64 " bytes) but %zu bytes follow it",
                        (uint64_t)have < a->count * size ? "truncated" : "unexpected", s, vtype_name(a->type),
                        a->count * size, have);
    }
    if (swap)
        byteswap(bytes + a->data_offset, a->count, size);
    return 0;
}

void npy_shape_text(const npy_array *a, char *buf, size_t len)
{
    size_t k = (size_t)snprintf(buf, len, "(");
    for (unsigned i = 0; i < a->ndim && k < len; i++)
        k += (size_t)snprintf(buf + k, len - k, "%s%" PRIu64, i ? ", " : "", a->shape[i]);
    if (k < len)
        snprintf(buf + k, len - k, "%s)", a->ndim == 1 ? "," : "");
}

int npy_write(const char *path, spvjit_type t, const void *data, uint64_t count, char *err, size_t errlen)
{
    char kind = 0;
    size_t size = vtype_size(t);
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (dtypes[i].type == t)
            kind = dtypes[i].kind;
    if (!kind)
        return cli_errf(err, errlen, "%s: a %s array has no .npy dtype", path, vtype_name(t));
    char header[256];
    int n = snprintf(header, sizeof header, "{'descr': '%c%c%zu', 'fortran_order': False, 'shape': (%" PRIu64 ",), }",
                     size == 1 ? '|' : '<', kind, size, count);
    /* pad with spaces so that the data starts at a multiple of 64 bytes, then '\n' */
    size_t total = 10 + (size_t)n + 1;
    size_t pad = (64 - total % 64) % 64;
    memset(header + n, ' ', pad);
    header[(size_t)n + pad] = '\n';
    size_t hlen = (size_t)n + pad + 1;
    uint8_t pre[10];
    memcpy(pre, magic, 6);
    pre[6] = 1;
    pre[7] = 0;
    pre[8] = (uint8_t)(hlen & 0xff);
    pre[9] = (uint8_t)(hlen >> 8);
    FILE *f = fopen(path, "wb");
    if (!f)
        return cli_errf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
    bool ok = fwrite(pre, 1, 10, f) == 10 && fwrite(header, 1, hlen, f) == hlen &&
              fwrite(data, size, (size_t)count, f) == (size_t)count;
    if (fclose(f))
        ok = false;
    return ok ? 0 : cli_errf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
}
