/* cmd/amber_parse.c — AmberScript (google/amber docs/amber_script.md), the
 * compute subset, into the model of amber.h.
 *
 * The text is read as a stream of whitespace-separated tokens with line ends
 * kept (statements end at a line end; `#` starts a comment), except shader
 * sources and VIRTUAL_FILE bodies, which are taken verbatim up to a line whose
 * first word is END.  The first thing spvjit cannot run (a graphics pipeline,
 * an image, a sampler ...) ends the parse with a skip reason: the script's
 * result is then `skip` whatever follows.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amber.h"
#include "cli.h"
#include "util/array.h"

typedef struct tok {
    const char *s;
    size_t len;
    int line;
    bool eol, eos;
} tok;

typedef struct vfile {
    char *path;
    char *text;
    size_t len;
} vfile;

typedef struct parser {
    const char *p, *end;
    int line;
    amber_script *s;
    const char *path;
    char *err;
    size_t errlen;
    tok peeked;
    bool has_peek;
    vfile *vfiles;
    unsigned nvfiles;
} parser;

/* --- errors and small helpers ------------------------------------------------------ */

/* "PATH:LINE: message" into the caller's buffer; returns -1. */
#define pfail(P, line, ...) cli_errf_at((P)->err, (P)->errlen, (P)->path, (line), __VA_ARGS__)

/* Ends the parse with a skip reason (not an error). */
static int stop_skip(parser *P, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int stop_skip(parser *P, int line, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (!P->s->skip) {
        P->s->skip = malloc(strlen(buf) + 32);
        if (P->s->skip)
            sprintf(P->s->skip, "%s (line %d)", buf, line);
    }
    return 1; /* 1: stop parsing, no error */
}

static char *xstrndup(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

/* Appends one zeroed element to a dynamic array; returns it or NULL. */
#define GROW(arr, n) UTIL_APPEND(arr, n)

/* --- tokens ---------------------------------------------------------------------------- */

static tok next(parser *P)
{
    if (P->has_peek) {
        P->has_peek = false;
        return P->peeked;
    }
    tok t = { .line = P->line };
    for (;;) {
        while (P->p < P->end && (*P->p == ' ' || *P->p == '\t' || *P->p == '\r'))
            P->p++;
        /* a backslash at a line end continues the statement (as in the docs' examples) */
        const char *q = P->p;
        if (q < P->end && *q == '\\') {
            q++;
            while (q < P->end && (*q == ' ' || *q == '\t' || *q == '\r'))
                q++;
            if (q < P->end && *q == '\n') {
                P->p = q + 1;
                P->line++;
                t.line = P->line;
                continue;
            }
        }
        break;
    }
    if (P->p < P->end && *P->p == '#')
        while (P->p < P->end && *P->p != '\n')
            P->p++;
    if (P->p >= P->end) {
        t.eos = t.eol = true;
        return t;
    }
    if (*P->p == '\n') {
        P->p++;
        P->line++;
        t.eol = true;
        return t;
    }
    t.s = P->p;
    while (P->p < P->end && *P->p != ' ' && *P->p != '\t' && *P->p != '\r' && *P->p != '\n')
        P->p++;
    t.len = (size_t)(P->p - t.s);
    return t;
}

static tok peek(parser *P)
{
    if (!P->has_peek) {
        P->peeked = next(P);
        P->has_peek = true;
    }
    return P->peeked;
}

static bool is(tok t, const char *kw)
{
    return !t.eol && t.len == strlen(kw) && !memcmp(t.s, kw, t.len);
}

/* Copies a token into buf as a C string (truncated to fit). */
static const char *str(tok t, char *buf, size_t len)
{
    size_t n = t.eol ? 0 : t.len < len - 1 ? t.len : len - 1;
    memcpy(buf, t.s ? t.s : "", n);
    buf[n] = 0;
    return buf;
}

static int expect_eol(parser *P, const char *what)
{
    tok t = next(P);
    if (!t.eol) {
        char b[64];
        return pfail(P, t.line, "unexpected '%s' after %s", str(t, b, sizeof b), what);
    }
    return 0;
}

static int want_kw(parser *P, const char *kw, const char *ctx)
{
    tok t = next(P);
    if (!is(t, kw)) {
        char b[64];
        return pfail(P, t.line, "%s: expected %s, got '%s'", ctx, kw, t.eol ? "end of line" : str(t, b, sizeof b));
    }
    return 0;
}

static int want_u64(parser *P, uint64_t *out, const char *what)
{
    tok t = next(P);
    num_value v;
    if (t.eol || num_parse(t.s, t.len, &v) || v.is_float || v.negative) {
        char b[64];
        return pfail(P, t.line, "%s: expected a non-negative integer, got '%s'", what,
                     t.eol ? "end of line" : str(t, b, sizeof b));
    }
    *out = v.u;
    return 0;
}

static int want_u32(parser *P, uint32_t *out, const char *what)
{
    uint64_t v;
    int line = P->line;
    if (want_u64(P, &v, what))
        return -1;
    if (v > UINT32_MAX)
        return pfail(P, line, "%s: %" PRIu64 " does not fit in 32 bits", what, v);
    *out = (uint32_t)v;
    return 0;
}

static int want_name(parser *P, char **out, const char *what)
{
    tok t = next(P);
    if (t.eol)
        return pfail(P, t.line, "%s: missing name", what);
    *out = xstrndup(t.s, t.len);
    return *out ? 0 : pfail(P, t.line, "out of memory");
}

static int want_num(parser *P, num_value *v, const char *what)
{
    tok t = next(P);
    if (t.eol || num_parse(t.s, t.len, v)) {
        char b[64];
        return pfail(P, t.line, "%s: expected a number, got '%s'", what, t.eol ? "end of line" : str(t, b, sizeof b));
    }
    return 0;
}

/* Takes the raw lines after the current one up to a line whose first word is
 * END; the END line's rest must be a comment. */
static int raw_block(parser *P, int start_line, char **out, size_t *len)
{
    if (P->has_peek) /* the header's line end was peeked: the block starts after it */
        P->has_peek = false;
    const char *start = P->p;
    while (P->p < P->end) {
        const char *ls = P->p, *le = memchr(ls, '\n', (size_t)(P->end - ls));
        if (!le)
            le = P->end;
        const char *w = ls;
        while (w < le && (*w == ' ' || *w == '\t'))
            w++;
        if (le - w >= 3 && !memcmp(w, "END", 3) && (le - w == 3 || strchr(" \t\r#", w[3]))) {
            *out = xstrndup(start, (size_t)(ls - start));
            *len = (size_t)(ls - start);
            P->p = w + 3;
            return *out ? expect_eol(P, "END") : pfail(P, start_line, "out of memory");
        }
        P->p = le < P->end ? le + 1 : le;
        P->line++;
    }
    return pfail(P, start_line, "missing END for the block started here");
}

/* A token as a C string, without the double quotes around it ("main.hlsl"). */
static char *unquoted(tok t)
{
    if (t.len >= 2 && t.s[0] == '"' && t.s[t.len - 1] == '"')
        return xstrndup(t.s + 1, t.len - 2);
    return xstrndup(t.s, t.len);
}

/* --- lookups -------------------------------------------------------------------------------- */

static int find_buffer(parser *P, tok t, unsigned *out)
{
    char b[256];
    str(t, b, sizeof b);
    for (unsigned i = 0; i < P->s->nbuffers; i++)
        if (!strcmp(P->s->buffers[i].name, b))
            return *out = i, 0;
    return pfail(P, t.line, "unknown buffer '%s'", t.eol ? "" : b);
}

static int find_pipeline(parser *P, tok t, unsigned *out)
{
    char b[256];
    str(t, b, sizeof b);
    for (unsigned i = 0; i < P->s->npipelines; i++)
        if (!strcmp(P->s->pipelines[i].name, b))
            return *out = i, 0;
    return pfail(P, t.line, "unknown pipeline '%s'", t.eol ? "" : b);
}

static int scalar_type_tok(parser *P, tok t, spvjit_type *out)
{
    char b[64];
    amber_type at;
    if (t.eol || amber_type_parse(str(t, b, sizeof b), &at) || amber_type_components(&at) != 1)
        return pfail(P, t.line, "expected a scalar data type (int8 ... uint64, float16, float, double), got '%s'", b);
    *out = at.scalar;
    return 0;
}

/* Reads a file named by a script: a VIRTUAL_FILE first, else relative to the script. */
static int read_named_file(parser *P, int line, const char *name, char **out, size_t *len)
{
    for (unsigned i = 0; i < P->nvfiles; i++)
        if (!strcmp(P->vfiles[i].path, name)) {
            *out = xstrndup(P->vfiles[i].text, P->vfiles[i].len);
            *len = P->vfiles[i].len;
            return *out ? 0 : pfail(P, line, "out of memory");
        }
    char path[4096];
    const char *slash = strrchr(P->path, '/');
    if (name[0] == '/' || !slash)
        snprintf(path, sizeof path, "%s", name);
    else
        snprintf(path, sizeof path, "%.*s/%s", (int)(slash - P->path), P->path, name);
    fill_data fd;
    char e[512];
    char spec[4100];
    snprintf(spec, sizeof spec, "@%s", path);
    if (fill_parse(spec, &fd, e, sizeof e))
        return pfail(P, line, "%s", e);
    char *t = realloc(fd.bytes, fd.size + 1);
    if (!t) {
        fill_free(&fd);
        return pfail(P, line, "out of memory");
    }
    t[fd.size] = 0;
    *out = t;
    *len = fd.size;
    return 0;
}

/* --- SHADER ------------------------------------------------------------------------------------ */

static int parse_shader(parser *P, int line)
{
    char b[128];
    tok ty = next(P);
    if (ty.eol)
        return pfail(P, line, "SHADER: missing shader type");
    amber_shader *sh = GROW(P->s->shaders, P->s->nshaders);
    if (!sh)
        return pfail(P, line, "out of memory");
    sh->line = line;
    sh->compute = is(ty, "compute");
    if (want_name(P, &sh->name, "SHADER"))
        return -1;
    if (is(ty, "vertex") && is(peek(P), "PASSTHROUGH"))
        return stop_skip(P, line, "graphics shaders (SHADER vertex)");
    tok f = next(P);
    static const struct {
        const char *n;
        amber_shader_format f;
    } fmts[] = {
        { "SPIRV-ASM", AMBER_SPIRV_ASM }, { "SPIRV-HEX", AMBER_SPIRV_HEX }, { "SPIRV-BIN", AMBER_SPIRV_BIN },
        { "GLSL", AMBER_GLSL },           { "OPENCL-C", AMBER_OPENCL_C },   { "HLSL", AMBER_HLSL },
    };
    sh->format = AMBER_OTHER;
    for (size_t i = 0; i < sizeof fmts / sizeof fmts[0]; i++)
        if (is(f, fmts[i].n))
            sh->format = fmts[i].f;
    if (sh->format == AMBER_OTHER)
        return pfail(P, f.line, "SHADER: unknown format '%s' (SPIRV-ASM SPIRV-HEX SPIRV-BIN GLSL OPENCL-C HLSL)",
                     str(f, b, sizeof b));
    bool from_file = false;
    char *file = NULL;
    for (;;) {
        tok t = next(P);
        if (t.eol)
            break;
        if (is(t, "TARGET_ENV")) {
            if (want_name(P, &sh->target_env, "SHADER TARGET_ENV"))
                return -1;
        } else if (is(t, "FILE") || is(t, "VIRTUAL_FILE")) {
            /* FILE [BINARY|TEXT] path, VIRTUAL_FILE path: both look among the VIRTUAL_FILEs first */
            tok n = next(P);
            if (is(t, "FILE") && (is(n, "BINARY") || is(n, "TEXT")))
                n = next(P);
            if (n.eol)
                return pfail(P, t.line, "SHADER %s: missing file name", is(t, "FILE") ? "FILE" : "VIRTUAL_FILE");
            free(file);
            file = unquoted(n);
            from_file = true;
        } else {
            free(file);
            return pfail(P, t.line, "SHADER: unexpected '%s'", str(t, b, sizeof b));
        }
    }
    if (from_file) {
        int r = read_named_file(P, line, file, &sh->source, &sh->source_len);
        free(file);
        if (r)
            return -1;
    } else {
        if (sh->format == AMBER_SPIRV_BIN)
            return pfail(P, line, "SHADER SPIRV-BIN needs FILE");
        if (raw_block(P, line, &sh->source, &sh->source_len))
            return -1;
    }
    if (!sh->compute && !is(ty, "multi"))
        return stop_skip(P, line, "graphics shaders (SHADER %s)", str(ty, b, sizeof b));
    return 0;
}

/* --- BUFFER ------------------------------------------------------------------------------------- */

/* Reads values (numbers) up to END, across lines. */
static int read_values_until_end(parser *P, num_value **vals, uint64_t *n, int line)
{
    uint64_t cap = 0;
    *vals = NULL;
    *n = 0;
    for (;;) {
        tok t = next(P);
        if (t.eos)
            return pfail(P, line, "BUFFER DATA: missing END");
        if (t.eol)
            continue;
        if (is(t, "END"))
            return 0;
        if (*n == cap) {
            cap = cap ? cap * 2 : 64;
            num_value *nv = realloc(*vals, cap * sizeof **vals);
            if (!nv)
                return pfail(P, t.line, "out of memory");
            *vals = nv;
        }
        char b[64];
        if (num_parse(t.s, t.len, &(*vals)[*n]))
            return pfail(P, t.line, "BUFFER DATA: '%s' is not a number", str(t, b, sizeof b));
        (*n)++;
    }
}

/* Parses text numbers (a FILE TEXT). */
static int values_from_text(parser *P, int line, const char *text, size_t len, num_value **vals, uint64_t *n)
{
    parser sub = *P;
    sub.p = text;
    sub.end = text + len;
    sub.line = 1;
    sub.has_peek = false;
    *vals = NULL;
    *n = 0;
    uint64_t cap = 0;
    for (;;) {
        tok t = next(&sub);
        if (t.eos)
            return 0;
        if (t.eol)
            continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 64;
            num_value *nv = realloc(*vals, cap * sizeof **vals);
            if (!nv)
                return pfail(P, line, "out of memory");
            *vals = nv;
        }
        char b[64];
        if (num_parse(t.s, t.len, &(*vals)[*n]))
            return pfail(P, line, "BUFFER FILE TEXT: line %d: '%s' is not a number", t.line, str(t, b, sizeof b));
        (*n)++;
    }
}

static int buffer_from_file(parser *P, amber_buffer *b, int line, uint64_t size_items, bool have_size)
{
    tok kind = next(P);
    bool text = false;
    if (is(kind, "TEXT"))
        text = true;
    else if (is(kind, "PNG"))
        return stop_skip(P, line, "PNG buffer files (images)");
    else if (!is(kind, "BINARY"))
        P->has_peek = true, P->peeked = kind; /* no kind: binary */
    char *name;
    if (want_name(P, &name, "BUFFER FILE"))
        return -1;
    char *data;
    size_t len;
    int r = read_named_file(P, line, name, &data, &len);
    free(name);
    if (r)
        return -1;
    char e[256];
    if (text) {
        num_value *v;
        uint64_t n;
        if (values_from_text(P, line, data, len, &v, &n)) {
            free(v);
            free(data);
            return -1;
        }
        free(data);
        r = amber_buffer_set_values(b, v, n, e, sizeof e);
        free(v);
        if (r)
            return pfail(P, line, "BUFFER %s: %s", b->name, e);
    } else {
        free(b->data);
        b->data = (uint8_t *)data;
        b->size = len;
        size_t st = amber_type_stride(&b->type);
        b->element_count = len / st;
    }
    if (have_size) {
        size_t want = (size_t)size_items * amber_type_stride(&b->type);
        if (amber_buffer_reserve(b, want))
            return pfail(P, line, "out of memory");
        b->size = want; /* a longer file is cut to SIZE */
        b->element_count = size_items;
    }
    return expect_eol(P, "BUFFER FILE");
}

static int parse_buffer(parser *P, int line)
{
    char b[128], e[256];
    amber_buffer *buf = GROW(P->s->buffers, P->s->nbuffers);
    if (!buf)
        return pfail(P, line, "out of memory");
    buf->line = line;
    if (want_name(P, &buf->name, "BUFFER"))
        return -1;
    for (unsigned i = 0; i + 1 < P->s->nbuffers; i++)
        if (!strcmp(P->s->buffers[i].name, buf->name))
            return pfail(P, line, "BUFFER %s: already defined on line %d", buf->name, P->s->buffers[i].line);
    buf->data = calloc(1, 1);
    tok t = next(P);
    if (is(t, "FORMAT")) {
        tok f = next(P);
        if (f.eol || amber_type_parse(str(f, b, sizeof b), &buf->type))
            return stop_skip(P, line, "image buffers (BUFFER FORMAT %s)", b);
        buf->is_image = true; /* sized by a framebuffer; usable as storage only once given data */
        for (t = next(P); !t.eol; t = next(P))
            if (is(t, "FILE"))
                return buffer_from_file(P, buf, line, 0, false);
        return 0;
    }
    if (!is(t, "DATA_TYPE"))
        return pfail(P, t.line, "BUFFER %s: expected DATA_TYPE or FORMAT, got '%s'", buf->name, str(t, b, sizeof b));
    tok ty = next(P);
    if (!ty.eol && amber_type_parse(str(ty, b, sizeof b), &buf->type) &&
        (strstr(b, "_UNORM") || strstr(b, "_SNORM") || strstr(b, "_SRGB") || strstr(b, "SCALED") ||
         strstr(b, "_UFLOAT") || strstr(b, "_PACK")))
        return stop_skip(P, line, "image formats (DATA_TYPE %s)", b);
    if (ty.eol || amber_type_parse(str(ty, b, sizeof b), &buf->type))
        return pfail(P, ty.line,
                     "BUFFER %s: unknown data type '%s' (int8..int64, uint8..uint64, float16, float, "
                     "double, vecN<T>, matCxR<T>)",
                     buf->name, b);
    t = next(P);
    if (is(t, "STD140") || is(t, "STD430")) {
        buf->type.std140 = is(t, "STD140");
        t = next(P);
    }
    if (is(t, "MIP_LEVELS")) {
        uint64_t m;
        if (want_u64(P, &m, "MIP_LEVELS"))
            return -1;
        t = next(P);
    }
    if (is(t, "DATA")) {
        num_value *v;
        uint64_t n;
        if (read_values_until_end(P, &v, &n, line)) {
            free(v);
            return -1;
        }
        int r = amber_buffer_set_values(buf, v, n, e, sizeof e);
        free(v);
        if (r)
            return pfail(P, line, "BUFFER %s DATA: %s", buf->name, e);
        return expect_eol(P, "BUFFER DATA ... END");
    }
    if (is(t, "FILE"))
        return buffer_from_file(P, buf, line, 0, false);
    if (is(t, "WIDTH"))
        return stop_skip(P, line, "image buffers (BUFFER ... WIDTH/HEIGHT)");
    if (!is(t, "SIZE"))
        return pfail(P, t.line, "BUFFER %s: expected DATA, SIZE or FILE, got '%s'", buf->name,
                     t.eol ? "end of line" : str(t, b, sizeof b));
    uint64_t count;
    if (want_u64(P, &count, "BUFFER SIZE"))
        return -1;
    t = next(P);
    if (t.eol) { /* no initializer: zeros */
        num_value zero = { 0 };
        if (amber_buffer_fill(buf, count, &zero, e, sizeof e))
            return pfail(P, line, "BUFFER %s: %s", buf->name, e);
        return 0;
    }
    if (is(t, "FILL")) {
        num_value v;
        if (want_num(P, &v, "BUFFER FILL") || amber_buffer_fill(buf, count, &v, e, sizeof e))
            return P->err[0] ? -1 : pfail(P, line, "BUFFER %s FILL: %s", buf->name, e);
        return expect_eol(P, "BUFFER FILL");
    }
    if (is(t, "SERIES_FROM")) {
        num_value st, inc;
        if (want_num(P, &st, "SERIES_FROM") || want_kw(P, "INC_BY", "SERIES_FROM") || want_num(P, &inc, "INC_BY"))
            return -1;
        if (amber_buffer_series(buf, count, &st, &inc, e, sizeof e))
            return pfail(P, line, "BUFFER %s: %s", buf->name, e);
        return expect_eol(P, "BUFFER SERIES_FROM");
    }
    if (is(t, "FILE"))
        return buffer_from_file(P, buf, line, count, true);
    return pfail(P, t.line, "BUFFER %s: unknown initializer '%s' (FILL, SERIES_FROM, FILE)", buf->name,
                 str(t, b, sizeof b));
}

/* --- PIPELINE ----------------------------------------------------------------------------------- */

static int parse_attach(parser *P, amber_pipeline *pl, int line)
{
    char b[256];
    tok n = next(P);
    str(n, b, sizeof b);
    pl->shader = -1;
    for (unsigned i = 0; i < P->s->nshaders; i++)
        if (!strcmp(P->s->shaders[i].name, b))
            pl->shader = (int)i;
    if (pl->shader < 0)
        return pfail(P, line, "ATTACH: unknown shader '%s'", b);
    for (tok t = next(P); !t.eol; t = next(P)) {
        if (is(t, "ENTRY_POINT")) {
            free(pl->entry);
            if (want_name(P, &pl->entry, "ATTACH ENTRY_POINT"))
                return -1;
        } else if (is(t, "TYPE")) {
            tok ty = next(P);
            if (!is(ty, "compute"))
                return stop_skip(P, line, "graphics shaders (ATTACH ... TYPE %s)", str(ty, b, sizeof b));
        } else if (is(t, "SPECIALIZE")) {
            amber_spec *sp = GROW(pl->specs, pl->nspecs);
            num_value v;
            uint8_t bytes[8] = { 0 };
            char e[160];
            if (!sp)
                return pfail(P, line, "out of memory");
            if (want_u32(P, &sp->id, "SPECIALIZE") || want_kw(P, "AS", "SPECIALIZE") ||
                scalar_type_tok(P, next(P), &sp->type) || want_num(P, &v, "SPECIALIZE value"))
                return -1;
            if (num_store(sp->type, &v, false, bytes, e, sizeof e))
                return pfail(P, line, "SPECIALIZE %u: %s", sp->id, e);
            memcpy(&sp->bits, bytes, 8);
        } else {
            return pfail(P, t.line, "ATTACH: unexpected '%s'", str(t, b, sizeof b));
        }
    }
    if (!P->s->shaders[pl->shader].compute && pl->compute)
        return pfail(P, line, "ATTACH: shader '%s' is not a compute shader", P->s->shaders[pl->shader].name);
    return 0;
}

static int parse_kernel_arg_ref(parser *P, char **name, uint32_t *number, const char *ctx)
{
    tok k = next(P);
    if (is(k, "ARG_NAME"))
        return want_name(P, name, ctx);
    if (is(k, "ARG_NUMBER"))
        return want_u32(P, number, ctx);
    char b[64];
    return pfail(P, k.line, "%s: expected ARG_NAME or ARG_NUMBER, got '%s'", ctx, str(k, b, sizeof b));
}

/* Numbers after OFFSET / DESCRIPTOR_OFFSET / DESCRIPTOR_RANGE: one per array
 * element (BUFFER_ARRAY), up to the next keyword.  A range of -1 is the
 * whole buffer (VK_WHOLE_SIZE). */
static int bind_numbers(parser *P, const char *what, amber_binding *bd, unsigned n, int field)
{
    for (unsigned i = 0; i < n; i++) {
        tok t = peek(P);
        num_value v;
        char b[64];
        bool number = !t.eol && !num_parse(t.s, t.len, &v);
        if (!number && i > 0)
            return pfail(P, t.line, "BIND BUFFER_ARRAY %s: %u values for %u buffers", what, i, n);
        if (!number || v.is_float || (v.negative && !(field == 2 && v.u == UINT64_MAX)))
            return pfail(P, t.line, "BIND %s: expected a non-negative integer%s, got '%s'", what,
                         field == 2 ? " or -1" : "", t.eol ? "end of line" : str(t, b, sizeof b));
        next(P);
        if (field == 0 || field == 1)
            bd[i].offset += v.u;
        else
            bd[i].range = v.negative ? 0 : v.u;
    }
    return 0;
}

static int parse_bind(parser *P, amber_pipeline *pl, int line)
{
    char b[128];
    tok what = next(P);
    if (is(what, "SAMPLER") || is(what, "SAMPLER_ARRAY"))
        return stop_skip(P, line, "samplers (BIND %s)", str(what, b, sizeof b));
    bool array = is(what, "BUFFER_ARRAY");
    if (!array && !is(what, "BUFFER"))
        return pfail(P, what.line, "BIND: expected BUFFER or BUFFER_ARRAY, got '%s'", str(what, b, sizeof b));
    /* the buffers: one, or (BUFFER_ARRAY) one per descriptor array element */
    unsigned bufs[256], n = 0;
    tok t = next(P);
    do {
        if (n == 256)
            return pfail(P, t.line, "BIND BUFFER_ARRAY: at most 256 buffers");
        if (find_buffer(P, t, &bufs[n++]))
            return -1;
        t = next(P);
    } while (array && !t.eol && !is(t, "AS") && !is(t, "KERNEL"));
    unsigned first = pl->nbinds;
    for (unsigned i = 0; i < n; i++) {
        amber_binding *bd = GROW(pl->binds, pl->nbinds);
        if (!bd)
            return pfail(P, line, "out of memory");
        bd->line = line;
        bd->buffer = bufs[i];
        bd->element = i;
    }
    amber_binding *bd = &pl->binds[first];
    bool have_kind = false;
    amber_bind_kind kind = AMBER_BIND_STORAGE;
    if (is(t, "AS")) {
        tok k = next(P);
        static const struct {
            const char *n;
            amber_bind_kind k;
        } kinds[] = {
            { "storage", AMBER_BIND_STORAGE },
            { "uniform", AMBER_BIND_UNIFORM },
            { "storage_dynamic", AMBER_BIND_STORAGE_DYNAMIC },
            { "uniform_dynamic", AMBER_BIND_UNIFORM_DYNAMIC },
            { "push_constant", AMBER_BIND_PUSH_CONSTANT },
        };
        for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
            if (is(k, kinds[i].n)) {
                kind = kinds[i].k;
                have_kind = true;
            }
        if (!have_kind) {
            static const char *const images[] = { "color",
                                                  "depth_stencil",
                                                  "resolve",
                                                  "storage_image",
                                                  "sampled_image",
                                                  "combined_image_sampler",
                                                  "uniform_texel_buffer",
                                                  "storage_texel_buffer" };
            for (size_t i = 0; i < sizeof images / sizeof images[0]; i++)
                if (is(k, images[i]))
                    return stop_skip(P, line, "images and texel buffers (BIND BUFFER ... AS %s)", images[i]);
            return pfail(P, k.line,
                         "BIND BUFFER: unknown buffer type '%s' (storage, uniform, storage_dynamic, "
                         "uniform_dynamic, push_constant)",
                         str(k, b, sizeof b));
        }
        for (unsigned i = 0; i < n; i++)
            bd[i].kind = kind;
        if (kind == AMBER_BIND_PUSH_CONSTANT) {
            if (array)
                return pfail(P, line, "BIND BUFFER_ARRAY: push constants are one block, not an array");
            return expect_eol(P, "BIND BUFFER ... AS push_constant");
        }
        t = next(P);
    }
    if (is(t, "KERNEL")) {
        if (array)
            return pfail(P, t.line, "BIND BUFFER_ARRAY: kernel arguments are bound one buffer at a time");
        bd->kind = AMBER_BIND_KERNEL_ARG;
        if (parse_kernel_arg_ref(P, &bd->arg_name, &bd->arg_number, "BIND BUFFER ... KERNEL"))
            return -1;
        return expect_eol(P, "BIND BUFFER ... KERNEL");
    }
    if (!is(t, "DESCRIPTOR_SET"))
        return pfail(P, t.line, "BIND BUFFER: expected DESCRIPTOR_SET or KERNEL, got '%s'",
                     t.eol ? "end of line" : str(t, b, sizeof b));
    if (!have_kind)
        return pfail(P, t.line, "BIND BUFFER ... DESCRIPTOR_SET: missing AS <buffer type>");
    uint32_t set = 0, binding = 0;
    if (want_u32(P, &set, "DESCRIPTOR_SET") || want_kw(P, "BINDING", "BIND BUFFER") || want_u32(P, &binding, "BINDING"))
        return -1;
    for (unsigned i = 0; i < n; i++) {
        bd[i].set = set;
        bd[i].binding = binding;
    }
    for (t = next(P); !t.eol; t = next(P)) {
        if (is(t, "OFFSET") || is(t, "IDX")) { /* IDX: an older form of a start offset in bytes */
            if (bind_numbers(P, "OFFSET", bd, n, 0))
                return -1;
        } else if (is(t, "DESCRIPTOR_OFFSET")) {
            if (bind_numbers(P, "DESCRIPTOR_OFFSET", bd, n, 1))
                return -1;
        } else if (is(t, "DESCRIPTOR_RANGE")) {
            if (bind_numbers(P, "DESCRIPTOR_RANGE", bd, n, 2))
                return -1;
        } else {
            return pfail(P, t.line, "BIND BUFFER: unexpected '%s'", str(t, b, sizeof b));
        }
    }
    return 0;
}

static int parse_set_kernel(parser *P, amber_pipeline *pl, int line)
{
    if (want_kw(P, "KERNEL", "SET"))
        return -1;
    amber_kernel_value *kv = GROW(pl->kvals, pl->nkvals);
    if (!kv)
        return pfail(P, line, "out of memory");
    kv->line = line;
    num_value v;
    char e[160];
    if (parse_kernel_arg_ref(P, &kv->arg_name, &kv->arg_number, "SET KERNEL") || want_kw(P, "AS", "SET KERNEL") ||
        scalar_type_tok(P, next(P), &kv->type) || want_num(P, &v, "SET KERNEL value"))
        return -1;
    if (num_store(kv->type, &v, false, kv->bytes, e, sizeof e))
        return pfail(P, line, "SET KERNEL: %s", e);
    return expect_eol(P, "SET KERNEL");
}

static void copy_pipeline(amber_pipeline *to, const amber_pipeline *from)
{
    to->compile_options = from->compile_options ? strdup(from->compile_options) : NULL;
    if (from->nopt_flags && (to->opt_flags = calloc(from->nopt_flags, sizeof *to->opt_flags))) {
        for (unsigned i = 0; i < from->nopt_flags; i++)
            to->opt_flags[i] = strdup(from->opt_flags[i]);
        to->nopt_flags = from->nopt_flags;
    }
    to->compute = from->compute;
    to->shader = from->shader;
    to->subgroup_size = from->subgroup_size;
    to->full_subgroups = from->full_subgroups;
    to->entry = from->entry ? strdup(from->entry) : NULL;
    if (from->nspecs && (to->specs = malloc(from->nspecs * sizeof *to->specs))) {
        memcpy(to->specs, from->specs, from->nspecs * sizeof *to->specs);
        to->nspecs = from->nspecs;
    }
    if (from->nbinds && (to->binds = malloc(from->nbinds * sizeof *to->binds))) {
        memcpy(to->binds, from->binds, from->nbinds * sizeof *to->binds);
        for (unsigned i = 0; i < from->nbinds; i++)
            to->binds[i].arg_name = from->binds[i].arg_name ? strdup(from->binds[i].arg_name) : NULL;
        to->nbinds = from->nbinds;
    }
    if (from->nkvals && (to->kvals = malloc(from->nkvals * sizeof *to->kvals))) {
        memcpy(to->kvals, from->kvals, from->nkvals * sizeof *to->kvals);
        for (unsigned i = 0; i < from->nkvals; i++)
            to->kvals[i].arg_name = from->kvals[i].arg_name ? strdup(from->kvals[i].arg_name) : NULL;
        to->nkvals = from->nkvals;
    }
}

/* SHADER_OPTIMIZATION shader / flag... / END: SPIRV-Tools optimizer passes,
 * named as spirv-opt takes them, run over the pipeline's shader. */
static int parse_shader_optimization(parser *P, amber_pipeline *pl, int line)
{
    char b[64];
    tok name = next(P);
    if (pl->shader < 0 || !is(name, P->s->shaders[pl->shader].name))
        return pfail(P, name.line, "SHADER_OPTIMIZATION: '%s' is not the shader ATTACHed to pipeline %s",
                     name.eol ? "" : str(name, b, sizeof b), pl->name);
    if (expect_eol(P, "SHADER_OPTIMIZATION"))
        return -1;
    for (;;) {
        tok t = next(P);
        if (t.eos)
            return pfail(P, line, "SHADER_OPTIMIZATION: missing END");
        if (t.eol)
            continue;
        if (is(t, "END"))
            return expect_eol(P, "END");
        char **f = GROW(pl->opt_flags, pl->nopt_flags);
        if (!f || !(*f = xstrndup(t.s, t.len)))
            return pfail(P, t.line, "out of memory");
    }
}

/* SUBGROUP shader ... END: sub-group size control (VK_EXT_subgroup_size_control).
 * Sub-groups are SIMD lanes of 4 to 64 invocations (minSubgroupSize,
 * maxSubgroupSize), or of 1: REQUIRED_SIZE takes 1, a power of two from 4 to
 * 64, MIN or MAX (anything else is a skip); FULLY_POPULATED on asks for full
 * sub-groups (a size that divides the work-group's x size); VARYING_SIZE
 * changes nothing (the size is the same in every sub-group). */
static int parse_subgroup(parser *P, amber_pipeline *pl, int line)
{
    char b[64];
    tok name = next(P);
    bool known = false;
    for (unsigned i = 0; !name.eol && i < P->s->nshaders; i++)
        known |= is(name, P->s->shaders[i].name);
    if (!known)
        return pfail(P, name.line, "SUBGROUP: unknown shader '%s'", str(name, b, sizeof b));
    if (expect_eol(P, "SUBGROUP"))
        return -1;
    for (;;) {
        tok t = next(P);
        if (t.eos)
            return pfail(P, line, "SUBGROUP: missing END");
        if (t.eol)
            continue;
        if (is(t, "END"))
            return expect_eol(P, "END");
        if (is(t, "FULLY_POPULATED") || is(t, "VARYING_SIZE")) {
            tok v = next(P);
            if (!is(v, "on") && !is(v, "off"))
                return pfail(P, v.line, "SUBGROUP %s: expected on or off, got '%s'",
                             is(t, "VARYING_SIZE") ? "VARYING_SIZE" : "FULLY_POPULATED",
                             v.eol ? "end of line" : str(v, b, sizeof b));
            if (is(t, "FULLY_POPULATED"))
                pl->full_subgroups = is(v, "on");
        } else if (is(t, "REQUIRED_SIZE")) {
            tok v = next(P);
            num_value n;
            if (is(v, "MIN") || is(v, "MAX")) {
                pl->subgroup_size = is(v, "MIN") ? AMBER_MIN_SUBGROUP_SIZE : AMBER_MAX_SUBGROUP_SIZE;
            } else if (v.eol || num_parse(v.s, v.len, &n) || n.is_float || n.negative || n.u == 0 ||
                       (n.u & (n.u - 1))) {
                return pfail(P, v.line, "SUBGROUP REQUIRED_SIZE: expected a power of two, MIN or MAX, got '%s'",
                             v.eol ? "end of line" : str(v, b, sizeof b));
            } else if (n.u != 1 && (n.u < AMBER_MIN_SUBGROUP_SIZE || n.u > AMBER_MAX_SUBGROUP_SIZE)) {
                return stop_skip(P, v.line,
                                 "sub-groups of %" PRIu64 " invocations (SUBGROUP REQUIRED_SIZE); spvjit's have 1 or "
                                 "%u to %u",
                                 n.u, AMBER_MIN_SUBGROUP_SIZE, AMBER_MAX_SUBGROUP_SIZE);
            } else {
                pl->subgroup_size = (uint32_t)n.u;
            }
        } else {
            return pfail(P, t.line, "SUBGROUP: unknown setting '%s' (FULLY_POPULATED, VARYING_SIZE, REQUIRED_SIZE)",
                         str(t, b, sizeof b));
        }
        if (expect_eol(P, "SUBGROUP setting"))
            return -1;
    }
}

static int parse_pipeline(parser *P, int line, bool derive)
{
    char b[128];
    amber_pipeline *pl = GROW(P->s->pipelines, P->s->npipelines);
    if (!pl)
        return pfail(P, line, "out of memory");
    pl->line = line;
    pl->shader = -1;
    unsigned self = P->s->npipelines - 1;
    if (derive) {
        unsigned parent;
        if (want_name(P, &pl->name, "DERIVE_PIPELINE") || want_kw(P, "FROM", "DERIVE_PIPELINE") ||
            find_pipeline(P, next(P), &parent))
            return -1;
        copy_pipeline(pl, &P->s->pipelines[parent]);
    } else {
        tok ty = next(P);
        if (is(ty, "graphics"))
            return stop_skip(P, line, "graphics pipelines");
        if (is(ty, "raytracing"))
            return stop_skip(P, line, "ray tracing pipelines");
        if (!is(ty, "compute"))
            return pfail(P, ty.line, "PIPELINE: expected compute or graphics, got '%s'", str(ty, b, sizeof b));
        pl->compute = true;
        if (want_name(P, &pl->name, "PIPELINE"))
            return -1;
    }
    for (unsigned i = 0; i < self; i++)
        if (!strcmp(P->s->pipelines[i].name, pl->name))
            return pfail(P, line, "PIPELINE %s: already defined on line %d", pl->name, P->s->pipelines[i].line);
    if (expect_eol(P, "PIPELINE"))
        return -1;
    for (;;) {
        tok t = next(P);
        pl = &P->s->pipelines[self]; /* the array may have moved */
        if (t.eos)
            return pfail(P, line, "PIPELINE %s: missing END", pl->name);
        if (t.eol)
            continue;
        int r = 0;
        if (is(t, "END"))
            break;
        if (is(t, "ATTACH"))
            r = parse_attach(P, pl, t.line);
        else if (is(t, "BIND"))
            r = parse_bind(P, pl, t.line);
        else if (is(t, "SET"))
            r = parse_set_kernel(P, pl, t.line);
        else if (is(t, "SHADER_OPTIMIZATION"))
            r = parse_shader_optimization(P, pl, t.line);
        else if (is(t, "COMPILE_OPTIONS")) {
            char *name, *body;
            size_t len;
            if (want_name(P, &name, "COMPILE_OPTIONS"))
                return -1;
            bool attached = pl->shader >= 0 && !strcmp(P->s->shaders[pl->shader].name, name);
            free(name);
            if (!attached)
                return pfail(P, t.line, "COMPILE_OPTIONS: not the shader ATTACHed to pipeline %s", pl->name);
            if (raw_block(P, t.line, &body, &len))
                return -1;
            for (char *c = body; *c; c++)
                if (*c == '\n' || *c == '\r' || *c == '\t')
                    *c = ' ';
            free(pl->compile_options);
            pl->compile_options = body;
        } else if (is(t, "SUBGROUP")) {
            r = parse_subgroup(P, pl, t.line);
        } else if (is(t, "FRAMEBUFFER_SIZE") || is(t, "VERTEX_DATA") || is(t, "INDEX_DATA") || is(t, "POLYGON_MODE") ||
                   is(t, "DEPTH") || is(t, "STENCIL") || is(t, "BLEND") || is(t, "VIEWPORT") ||
                   is(t, "PATCH_CONTROL_POINTS")) {
            return stop_skip(P, t.line, "graphics pipeline state (%s)", str(t, b, sizeof b));
        } else {
            return pfail(P, t.line, "PIPELINE %s: unknown command '%s'", pl->name, str(t, b, sizeof b));
        }
        if (r)
            return r;
    }
    if (pl->shader < 0)
        return pfail(P, line, "PIPELINE %s: no shader ATTACHed", pl->name);
    if (!pl->entry && !(pl->entry = strdup("main")))
        return pfail(P, line, "out of memory");
    return expect_eol(P, "END");
}

/* --- commands ---------------------------------------------------------------------------------------- */

static amber_cmd *new_cmd(parser *P, amber_cmd_kind k, int line)
{
    amber_cmd *c = GROW(P->s->cmds, P->s->ncmds);
    if (c) {
        c->kind = k;
        c->line = line;
    } else {
        pfail(P, line, "out of memory");
    }
    return c;
}

static int parse_run(parser *P, int line)
{
    char b[64];
    tok t = next(P);
    if (is(t, "TIMED_EXECUTION"))
        t = next(P);
    unsigned pi;
    if (find_pipeline(P, t, &pi))
        return -1;
    tok x = peek(P);
    if (is(x, "DRAW_RECT") || is(x, "DRAW_GRID") || is(x, "DRAW_ARRAY"))
        return stop_skip(P, line, "graphics draws (RUN ... %s)", str(x, b, sizeof b));
    amber_cmd *c = new_cmd(P, AMBER_CMD_RUN, line);
    if (!c)
        return -1;
    c->pipeline = pi;
    for (int i = 0; i < 3; i++)
        if (want_u32(P, &c->groups[i], "RUN"))
            return -1;
    /* spvjit's extensions for OpenCL kernels (NDRange launches Amber cannot
     * express): GLOBAL_OFFSET x y z and WORK_DIM n */
    for (tok t = next(P); !t.eol; t = next(P)) {
        if (is(t, "GLOBAL_OFFSET")) {
            for (int i = 0; i < 3; i++)
                if (want_u64(P, &c->global_offset[i], "RUN ... GLOBAL_OFFSET"))
                    return -1;
        } else if (is(t, "WORK_DIM")) {
            if (want_u32(P, &c->work_dim, "RUN ... WORK_DIM"))
                return -1;
            if (c->work_dim < 1 || c->work_dim > 3)
                return pfail(P, t.line, "RUN ... WORK_DIM: %u is not 1, 2 or 3", c->work_dim);
            for (unsigned d = c->work_dim; d < 3; d++)
                if (c->groups[d] != 1)
                    return pfail(P, t.line, "RUN ... WORK_DIM %u: the group count of dimension %u must be 1, not %u",
                                 c->work_dim, d, c->groups[d]);
        } else {
            return pfail(P, t.line, "RUN: unexpected '%s' (GLOBAL_OFFSET x y z, WORK_DIM n)", str(t, b, sizeof b));
        }
    }
    return 0;
}

static int parse_cmp(tok t, amber_cmp *c)
{
    static const char *const n[] = { "EQ", "NE", "LT", "LE", "GT", "GE" };
    for (int i = 0; i < 6; i++)
        if (is(t, n[i]))
            return *c = (amber_cmp)i, 0;
    return -1;
}

static int parse_expect(parser *P, int line)
{
    char b[64];
    unsigned bi;
    if (find_buffer(P, next(P), &bi))
        return -1;
    tok t = next(P);
    if (is(t, "EQ_BUFFER") || is(t, "RMSE_BUFFER")) {
        amber_cmd *c = new_cmd(P, is(t, "EQ_BUFFER") ? AMBER_CMD_EXPECT_EQ_BUFFER : AMBER_CMD_EXPECT_RMSE_BUFFER, line);
        if (!c)
            return -1;
        c->buffer = bi;
        if (find_buffer(P, next(P), &c->buffer2))
            return -1;
        if (c->kind == AMBER_CMD_EXPECT_RMSE_BUFFER) {
            num_value v;
            if (want_kw(P, "TOLERANCE", "RMSE_BUFFER") || want_num(P, &v, "RMSE_BUFFER TOLERANCE"))
                return -1;
            c->rmse_tolerance = v.d;
        }
        return expect_eol(P, "EXPECT");
    }
    if (is(t, "EQ_HISTOGRAM_EMD_BUFFER"))
        return stop_skip(P, line, "image comparisons (EQ_HISTOGRAM_EMD_BUFFER)");
    if (!is(t, "IDX"))
        return pfail(P, t.line, "EXPECT: expected IDX, EQ_BUFFER or RMSE_BUFFER, got '%s'",
                     t.eol ? "end of line" : str(t, b, sizeof b));
    uint64_t off;
    if (want_u64(P, &off, "EXPECT IDX"))
        return -1;
    t = next(P);
    num_value tmp;
    if (!t.eol && !num_parse(t.s, t.len, &tmp))
        return stop_skip(P, line, "image probes (EXPECT ... IDX x y SIZE w h)");
    amber_cmd *c = new_cmd(P, AMBER_CMD_EXPECT, line);
    if (!c)
        return -1;
    c->buffer = bi;
    c->offset = off;
    if (is(t, "TOLERANCE")) {
        for (t = next(P); !t.eol && parse_cmp(t, &c->cmp); t = next(P)) {
            if (c->ntol == 4)
                return pfail(P, t.line, "EXPECT TOLERANCE: at most 4 values");
            amber_tolerance *tl = &c->tol[c->ntol++];
            size_t len = t.len;
            if (len && t.s[len - 1] == '%') {
                tl->percent = true;
                len--;
            }
            num_value v;
            if (num_parse(t.s, len, &v) || v.d < 0)
                return pfail(P, t.line, "EXPECT TOLERANCE: '%s' is not a non-negative number", str(t, b, sizeof b));
            tl->value = v.d;
        }
        if (!c->ntol)
            return pfail(P, line, "EXPECT TOLERANCE: missing value");
    }
    if (t.eol || parse_cmp(t, &c->cmp)) {
        if (is(t, "EQ_RGB") || is(t, "EQ_RGBA"))
            return stop_skip(P, line, "image probes (EXPECT ... %s)", str(t, b, sizeof b));
        return pfail(P, t.line, "EXPECT: expected a comparator (EQ NE LT LE GT GE), got '%s'",
                     t.eol ? "end of line" : str(t, b, sizeof b));
    }
    unsigned cap = 0;
    for (t = next(P); !t.eol; t = next(P)) {
        if (c->nvalues == cap) {
            cap = cap ? cap * 2 : 16;
            num_value *nv = realloc(c->values, cap * sizeof *nv);
            if (!nv)
                return pfail(P, line, "out of memory");
            c->values = nv;
        }
        if (num_parse(t.s, t.len, &c->values[c->nvalues]))
            return pfail(P, t.line, "EXPECT: '%s' is not a number", str(t, b, sizeof b));
        c->nvalues++;
    }
    if (!c->nvalues)
        return pfail(P, line, "EXPECT: no values to compare");
    return 0;
}

static int parse_statement(parser *P, tok t, bool in_repeat);

static int parse_repeat(parser *P, int line)
{
    uint32_t count = 0;
    if (want_u32(P, &count, "REPEAT") || expect_eol(P, "REPEAT"))
        return -1;
    unsigned at = P->s->ncmds;
    if (!new_cmd(P, AMBER_CMD_REPEAT, line))
        return -1;
    for (;;) {
        tok t = next(P);
        if (t.eos)
            return pfail(P, line, "REPEAT: missing END");
        if (t.eol)
            continue;
        if (is(t, "END"))
            break;
        int r = parse_statement(P, t, true);
        if (r)
            return r;
    }
    P->s->cmds[at].count = count;
    P->s->cmds[at].body = P->s->ncmds - at - 1;
    return expect_eol(P, "END");
}

static int add_name(parser *P, char ***list, unsigned *n, int line)
{
    char **e = GROW(*list, *n);
    if (!e)
        return pfail(P, line, "out of memory");
    if (want_name(P, e, "DEVICE_FEATURE/EXTENSION/PROPERTY"))
        return -1;
    return expect_eol(P, "name");
}

static int parse_statement(parser *P, tok t, bool in_repeat)
{
    char b[64];
    int line = t.line;
    if (is(t, "RUN"))
        return parse_run(P, line);
    if (is(t, "EXPECT"))
        return parse_expect(P, line);
    if (is(t, "COPY")) {
        amber_cmd *c = new_cmd(P, AMBER_CMD_COPY, line);
        if (!c || find_buffer(P, next(P), &c->buffer) || want_kw(P, "TO", "COPY") ||
            find_buffer(P, next(P), &c->buffer2))
            return -1;
        return expect_eol(P, "COPY");
    }
    if (is(t, "CLEAR") || is(t, "CLEAR_COLOR") || is(t, "CLEAR_DEPTH") || is(t, "CLEAR_STENCIL"))
        return stop_skip(P, line, "graphics commands (%s)", str(t, b, sizeof b));
    if (in_repeat)
        return pfail(P, line, "REPEAT: '%s' is not allowed inside REPEAT (RUN, COPY, EXPECT)", str(t, b, sizeof b));
    if (is(t, "SHADER"))
        return parse_shader(P, line);
    if (is(t, "BUFFER"))
        return parse_buffer(P, line);
    if (is(t, "PIPELINE"))
        return parse_pipeline(P, line, false);
    if (is(t, "DERIVE_PIPELINE"))
        return parse_pipeline(P, line, true);
    if (is(t, "REPEAT"))
        return parse_repeat(P, line);
    if (is(t, "DEVICE_FEATURE"))
        return add_name(P, &P->s->features, &P->s->nfeatures, line);
    if (is(t, "DEVICE_EXTENSION") || is(t, "INSTANCE_EXTENSION"))
        return add_name(P, &P->s->extensions, &P->s->nextensions, line);
    if (is(t, "DEVICE_PROPERTY"))
        return add_name(P, &P->s->properties, &P->s->nproperties, line);
    if (is(t, "SET")) { /* SET ENGINE_DATA fence_timeout_ms N: nothing to do here */
        tok w = next(P);
        if (!is(w, "ENGINE_DATA"))
            return pfail(P, w.line, "SET: expected ENGINE_DATA, got '%s'", str(w, b, sizeof b));
        while (!next(P).eol) {}
        return 0;
    }
    if (is(t, "VIRTUAL_FILE")) {
        vfile *v = GROW(P->vfiles, P->nvfiles);
        tok n = next(P);
        if (!v || n.eol || !(v->path = unquoted(n)) || expect_eol(P, "VIRTUAL_FILE"))
            return !v || (!n.eol && !v->path) ? pfail(P, line, "out of memory")
                   : P->err[0]                ? -1
                                              : pfail(P, line, "VIRTUAL_FILE: missing name");
        return raw_block(P, line, &v->text, &v->len);
    }
    if (is(t, "IMAGE") || is(t, "SAMPLER"))
        return stop_skip(P, line, "images and samplers (%s)", str(t, b, sizeof b));
    if (is(t, "STRUCT"))
        return stop_skip(P, line, "STRUCT buffers");
    if (is(t, "DEBUG"))
        return stop_skip(P, line, "shader debugging (DEBUG)");
    if (is(t, "ACCELERATION_STRUCTURE") || is(t, "SHADER_GROUP"))
        return stop_skip(P, line, "ray tracing (%s)", str(t, b, sizeof b));
    return pfail(P, line, "unknown command '%s'", str(t, b, sizeof b));
}

int amber_parse(const char *text, size_t len, const char *path, amber_script *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->push_buffer = -1;
    s->path = strdup(path);
    if (err && errlen)
        err[0] = 0;
    size_t i = 0;
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
        i++;
    if (len - i < 7 || memcmp(text + i, "#!amber", 7))
        return amber_parse_vkscript(text, len, path, s, err, errlen);
    char dummy[1];
    parser P = { .p = text,
                 .end = text + len,
                 .line = 1,
                 .s = s,
                 .path = path,
                 .err = err && errlen ? err : dummy,
                 .errlen = err && errlen ? errlen : 1 };
    P.err[0] = 0;
    int r = 0;
    for (;;) {
        tok t = next(&P);
        if (t.eos)
            break;
        if (t.eol)
            continue;
        r = parse_statement(&P, t, false);
        if (r)
            break;
    }
    for (unsigned k = 0; k < P.nvfiles; k++) {
        free(P.vfiles[k].path);
        free(P.vfiles[k].text);
    }
    free(P.vfiles);
    return r < 0 ? -1 : 0;
}

int amber_parse_file(const char *path, amber_script *out, char *err, size_t errlen)
{
    char spec[4200];
    fill_data fd;
    snprintf(spec, sizeof spec, "@%s", path);
    if (fill_parse(spec, &fd, err, errlen)) {
        memset(out, 0, sizeof *out);
        out->push_buffer = -1;
        return -1;
    }
    int r = amber_parse((const char *)fd.bytes, fd.size, path, out, err, errlen);
    fill_free(&fd);
    return r;
}

void amber_script_free(amber_script *s)
{
    for (unsigned i = 0; i < s->nshaders; i++) {
        free(s->shaders[i].name);
        free(s->shaders[i].source);
        free(s->shaders[i].target_env);
    }
    for (unsigned i = 0; i < s->nbuffers; i++) {
        free(s->buffers[i].name);
        free(s->buffers[i].data);
    }
    for (unsigned i = 0; i < s->npipelines; i++) {
        amber_pipeline *p = &s->pipelines[i];
        free(p->name);
        free(p->entry);
        free(p->specs);
        for (unsigned k = 0; k < p->nbinds; k++)
            free(p->binds[k].arg_name);
        free(p->binds);
        for (unsigned k = 0; k < p->nkvals; k++)
            free(p->kvals[k].arg_name);
        free(p->kvals);
        free(p->compile_options);
        for (unsigned k = 0; k < p->nopt_flags; k++)
            free(p->opt_flags[k]);
        free(p->opt_flags);
        free(p->skip);
    }
    for (unsigned i = 0; i < s->ncmds; i++) {
        free(s->cmds[i].values);
        free(s->cmds[i].bytes);
    }
    for (unsigned i = 0; i < s->nfeatures; i++)
        free(s->features[i]);
    for (unsigned i = 0; i < s->nextensions; i++)
        free(s->extensions[i]);
    for (unsigned i = 0; i < s->nproperties; i++)
        free(s->properties[i]);
    free(s->properties);
    free(s->shaders);
    free(s->buffers);
    free(s->pipelines);
    free(s->cmds);
    free(s->features);
    free(s->extensions);
    free(s->skip);
    free(s->path);
    memset(s, 0, sizeof *s);
    s->push_buffer = -1;
}
