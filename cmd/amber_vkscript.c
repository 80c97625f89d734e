/* cmd/amber_vkscript.c — Amber's legacy VkScript syntax (VkRunner's format),
 * the compute subset, into the same model as AmberScript.
 *
 *   [require]                 features (shaderFloat64 ...), extensions (VK_...)
 *   [compute shader]          GLSL;  [compute shader spirv]: SPIR-V assembly;
 *   [compute shader spirv hex] hex words
 *   [test]
 *     ssbo B SIZE                      a storage buffer of SIZE bytes (B: BINDING or SET:BINDING)
 *     ssbo B subdata TYPE OFF V...     write values (std430) at byte OFF
 *     uniform ubo B [subdata] TYPE OFF V...   a uniform buffer (std140)
 *     ubo B subdata TYPE OFF V... / ubo B SIZE
 *     uniform TYPE OFF V... / push TYPE OFF V...   push constants
 *     compute X Y Z
 *     probe ssbo TYPE B OFF CMP V...   CMP: == != < <= > >= ~=
 *     tolerance T [T T T]              for ~= (T may end in %)
 * The shader is one implicit pipeline (entry "main"); buffers are named
 * "ssbo SET:BINDING", "ubo SET:BINDING" and "push constants".
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amber.h"
#include "cli.h"
#include "util/array.h"

typedef struct vk {
    amber_script *s;
    const char *path;
    char *err;
    size_t errlen;
    amber_tolerance tol[4];
    unsigned ntol;
} vk;

/* "PATH:LINE: message" into the caller's buffer; returns -1. */
#define vk_fail(V, line, ...) cli_errf_at((V)->err, (V)->errlen, (V)->path, (line), __VA_ARGS__)

static int vk_skip(vk *V, int line, const char *what)
{
    if (!V->s->skip && (V->s->skip = malloc(strlen(what) + 32)))
        sprintf(V->s->skip, "%s (line %d)", what, line);
    return 1;
}

#define GROW(arr, n) UTIL_APPEND(arr, n)

/* VkScript (GLSL-style) type names → Amber types. */
static int vk_type(const char *name, bool std140, amber_type *t)
{
    static const struct {
        const char *prefix;
        spvjit_type s;
    } vecs[] = {
        { "i8vec", SPVJIT_TYPE_I8 },   { "u8vec", SPVJIT_TYPE_U8 },   { "i16vec", SPVJIT_TYPE_I16 },
        { "u16vec", SPVJIT_TYPE_U16 }, { "i64vec", SPVJIT_TYPE_I64 }, { "u64vec", SPVJIT_TYPE_U64 },
        { "f16vec", SPVJIT_TYPE_F16 }, { "ivec", SPVJIT_TYPE_I32 },   { "uvec", SPVJIT_TYPE_U32 },
        { "dvec", SPVJIT_TYPE_F64 },   { "vec", SPVJIT_TYPE_F32 },
    };
    static const struct {
        const char *n;
        spvjit_type s;
    } scalars[] = {
        { "int", SPVJIT_TYPE_I32 },      { "uint", SPVJIT_TYPE_U32 },      { "int8_t", SPVJIT_TYPE_I8 },
        { "uint8_t", SPVJIT_TYPE_U8 },   { "int16_t", SPVJIT_TYPE_I16 },   { "uint16_t", SPVJIT_TYPE_U16 },
        { "int64_t", SPVJIT_TYPE_I64 },  { "uint64_t", SPVJIT_TYPE_U64 },  { "float", SPVJIT_TYPE_F32 },
        { "double", SPVJIT_TYPE_F64 },   { "float16_t", SPVJIT_TYPE_F16 }, { "int32_t", SPVJIT_TYPE_I32 },
        { "uint32_t", SPVJIT_TYPE_U32 },
    };
    memset(t, 0, sizeof *t);
    t->rows = t->cols = 1;
    t->std140 = std140;
    for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; i++)
        if (!strcmp(name, scalars[i].n))
            return t->scalar = scalars[i].s, 0;
    for (size_t i = 0; i < sizeof vecs / sizeof vecs[0]; i++) {
        size_t l = strlen(vecs[i].prefix);
        if (!strncmp(name, vecs[i].prefix, l) && name[l] >= '2' && name[l] <= '4' && !name[l + 1]) {
            t->scalar = vecs[i].s;
            t->rows = (unsigned)(name[l] - '0');
            return 0;
        }
    }
    /* matN, matCxR, dmatN, dmatCxR */
    const char *m = name;
    t->scalar = SPVJIT_TYPE_F32;
    if (m[0] == 'd') {
        t->scalar = SPVJIT_TYPE_F64;
        m++;
    }
    if (strncmp(m, "mat", 3) || m[3] < '2' || m[3] > '4')
        return -1;
    t->cols = (unsigned)(m[3] - '0');
    if (!m[4]) {
        t->rows = t->cols;
        return 0;
    }
    if (m[4] != 'x' || m[5] < '2' || m[5] > '4' || m[6])
        return -1;
    t->rows = (unsigned)(m[5] - '0');
    return 0;
}

/* Splits a line into words (in place); returns the count. */
static int words(char *line, char **w, int max)
{
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(line, " \t\r", &save); t && n < max; t = strtok_r(NULL, " \t\r", &save))
        w[n++] = t;
    return n;
}

static int parse_binding(vk *V, int line, const char *s, uint32_t *set, uint32_t *binding)
{
    char *end;
    unsigned long a = strtoul(s, &end, 10), b;
    if (*end == ':') {
        b = strtoul(end + 1, &end, 10);
    } else {
        b = a;
        a = 0;
    }
    if (*end || !*s || a > UINT32_MAX || b > UINT32_MAX)
        return vk_fail(V, line, "'%s' is not a BINDING or SET:BINDING", s);
    *set = (uint32_t)a;
    *binding = (uint32_t)b;
    return 0;
}

/* The buffer for (kind, set, binding), created and bound to the implicit pipeline on first use. */
static int buffer_for(vk *V, int line, amber_bind_kind kind, uint32_t set, uint32_t binding, unsigned *out)
{
    amber_script *s = V->s;
    char name[64];
    if (kind == AMBER_BIND_PUSH_CONSTANT)
        snprintf(name, sizeof name, "push constants");
    else
        snprintf(name, sizeof name, "%s %u:%u", kind == AMBER_BIND_UNIFORM ? "ubo" : "ssbo", set, binding);
    for (unsigned i = 0; i < s->nbuffers; i++)
        if (!strcmp(s->buffers[i].name, name))
            return *out = i, 0;
    amber_pipeline *pl = &s->pipelines[0];
    for (unsigned i = 0; i < pl->nbinds; i++)
        if (pl->binds[i].kind != AMBER_BIND_PUSH_CONSTANT && kind != AMBER_BIND_PUSH_CONSTANT &&
            pl->binds[i].set == set && pl->binds[i].binding == binding)
            return vk_fail(V, line, "binding %u:%u is used both as an ssbo and a ubo", set, binding);
    amber_buffer *b = GROW(s->buffers, s->nbuffers);
    amber_binding *bd = GROW(pl->binds, pl->nbinds);
    if (!b || !bd || !(b->name = strdup(name)) || !(b->data = calloc(1, 1)))
        return vk_fail(V, line, "out of memory");
    b->type = (amber_type){ .scalar = SPVJIT_TYPE_U8, .rows = 1, .cols = 1 };
    b->line = line;
    bd->kind = kind;
    bd->buffer = s->nbuffers - 1;
    bd->set = set;
    bd->binding = binding;
    bd->line = line;
    if (kind == AMBER_BIND_PUSH_CONSTANT)
        s->push_buffer = (int)(s->nbuffers - 1);
    *out = s->nbuffers - 1;
    return 0;
}

static int parse_values(vk *V, int line, char **w, int n, num_value **out)
{
    *out = calloc((size_t)(n ? n : 1), sizeof **out);
    if (!*out)
        return vk_fail(V, line, "out of memory");
    for (int i = 0; i < n; i++)
        if (num_parse(w[i], strlen(w[i]), &(*out)[i]))
            return vk_fail(V, line, "'%s' is not a number", w[i]);
    return 0;
}

/* A data write: TYPE OFF V... into buffer bi (at run time, in order with compute). */
static int data_write(vk *V, int line, unsigned bi, bool std140, char **w, int n)
{
    amber_type t;
    if (n < 3)
        return vk_fail(V, line, "expected TYPE OFFSET VALUE...");
    if (vk_type(w[0], std140, &t))
        return vk_fail(V, line, "unknown type '%s'", w[0]);
    num_value off;
    if (num_parse(w[1], strlen(w[1]), &off) || off.is_float || off.negative)
        return vk_fail(V, line, "'%s' is not a byte offset", w[1]);
    amber_cmd *c = GROW(V->s->cmds, V->s->ncmds);
    if (!c)
        return vk_fail(V, line, "out of memory");
    c->kind = bi == (unsigned)V->s->push_buffer ? AMBER_CMD_SET_PUSH : AMBER_CMD_SET_BUFFER;
    c->line = line;
    c->buffer = bi;
    c->offset = off.u;
    c->value_type = t;
    c->has_value_type = true;
    if (parse_values(V, line, w + 2, n - 2, &c->values))
        return -1;
    c->nvalues = (unsigned)(n - 2);
    /* encode now (so errors have a line); the bytes land at run time */
    unsigned comps = amber_type_components(&t);
    size_t span = (size_t)((c->nvalues + comps - 1) / comps) * amber_type_stride(&t);
    c->nbytes = span;
    c->bytes = calloc(span ? span : 1, 1);
    char e[200];
    if (!c->bytes)
        return vk_fail(V, line, "out of memory");
    if (amber_encode_values(&t, c->values, c->nvalues, c->bytes, span, 0, e, sizeof e))
        return vk_fail(V, line, "%s", e);
    return 0;
}

static int test_line(vk *V, int line, char *text)
{
    char *w[4096];
    int n = words(text, w, 4096);
    if (!n)
        return 0;
    if (n == 4096)
        return vk_fail(V, line, "too many words on one line");
    unsigned bi;
    uint32_t set, binding;
    amber_script *s = V->s;
    if (!strcmp(w[0], "ssbo") || !strcmp(w[0], "ubo") || (!strcmp(w[0], "uniform") && n > 1 && !strcmp(w[1], "ubo"))) {
        bool ubo = strcmp(w[0], "ssbo") != 0;
        int k = !strcmp(w[0], "uniform") ? 2 : 1;
        if (n <= k + 1)
            return vk_fail(V, line, "%s: expected BINDING and SIZE or subdata", w[0]);
        if (parse_binding(V, line, w[k], &set, &binding) ||
            buffer_for(V, line, ubo ? AMBER_BIND_UNIFORM : AMBER_BIND_STORAGE, set, binding, &bi))
            return -1;
        k++;
        if (!strcmp(w[k], "subdata"))
            k++;
        else if (n == k + 1 && !ubo) {
            num_value sz;
            if (num_parse(w[k], strlen(w[k]), &sz) || sz.is_float || sz.negative)
                return vk_fail(V, line, "ssbo: '%s' is not a size in bytes", w[k]);
            if (amber_buffer_reserve(&s->buffers[bi], (size_t)sz.u))
                return vk_fail(V, line, "out of memory");
            return 0;
        }
        return data_write(V, line, bi, ubo, w + k, n - k);
    }
    if (!strcmp(w[0], "uniform") || !strcmp(w[0], "push")) {
        if (buffer_for(V, line, AMBER_BIND_PUSH_CONSTANT, 0, 0, &bi))
            return -1;
        return data_write(V, line, bi, false, w + 1, n - 1);
    }
    if (!strcmp(w[0], "compute") && n > 1 && !strcmp(w[1], "entrypoint")) {
        if (n != 3)
            return vk_fail(V, line, "compute entrypoint: expected one entry point name");
        amber_pipeline *pl = &s->pipelines[0];
        free(pl->entry);
        if (!(pl->entry = strdup(w[2])))
            return vk_fail(V, line, "out of memory");
        return 0;
    }
    if (!strcmp(w[0], "compute")) {
        amber_cmd *c = GROW(s->cmds, s->ncmds);
        if (!c)
            return vk_fail(V, line, "out of memory");
        c->kind = AMBER_CMD_RUN;
        c->line = line;
        for (int i = 0; i < 3; i++) {
            num_value g;
            if (n != 4 || num_parse(w[1 + i], strlen(w[1 + i]), &g) || g.is_float || g.negative || g.u > UINT32_MAX)
                return vk_fail(V, line, "compute: expected X Y Z group counts");
            c->groups[i] = (uint32_t)g.u;
        }
        return 0;
    }
    if (!strcmp(w[0], "tolerance")) {
        if (n < 2 || n > 5)
            return vk_fail(V, line, "tolerance: expected 1 to 4 values");
        V->ntol = 0;
        for (int i = 1; i < n; i++) {
            size_t l = strlen(w[i]);
            amber_tolerance *t = &V->tol[V->ntol++];
            t->percent = l && w[i][l - 1] == '%';
            num_value v;
            if (num_parse(w[i], l - t->percent, &v) || v.d < 0)
                return vk_fail(V, line, "tolerance: '%s' is not a non-negative number", w[i]);
            t->value = v.d;
        }
        return 0;
    }
    if (!strcmp(w[0], "probe") && n > 1 && !strcmp(w[1], "ssbo")) {
        if (n < 7)
            return vk_fail(V, line, "probe ssbo: expected TYPE BINDING OFFSET COMPARATOR VALUE...");
        amber_type t;
        if (vk_type(w[2], false, &t))
            return vk_fail(V, line, "probe ssbo: unknown type '%s'", w[2]);
        if (parse_binding(V, line, w[3], &set, &binding) || buffer_for(V, line, AMBER_BIND_STORAGE, set, binding, &bi))
            return -1;
        num_value off;
        if (num_parse(w[4], strlen(w[4]), &off) || off.is_float || off.negative)
            return vk_fail(V, line, "probe ssbo: '%s' is not a byte offset", w[4]);
        static const char *const ops[] = { "==", "!=", "<", "<=", ">", ">=", "~=" };
        int op = -1;
        for (int i = 0; i < 7; i++)
            if (!strcmp(w[5], ops[i]))
                op = i;
        if (op < 0)
            return vk_fail(V, line, "probe ssbo: unknown comparator '%s' (== != < <= > >= ~=)", w[5]);
        amber_cmd *c = GROW(s->cmds, s->ncmds);
        if (!c)
            return vk_fail(V, line, "out of memory");
        c->kind = AMBER_CMD_EXPECT;
        c->line = line;
        c->buffer = bi;
        c->offset = off.u;
        c->value_type = t;
        c->has_value_type = true;
        c->cmp = op == 6 ? AMBER_EQ : (amber_cmp)op;
        if (op == 6) { /* fuzzy: the last `tolerance`, else Amber's 1e-6 percent */
            c->ntol = V->ntol ? V->ntol : 1;
            if (V->ntol)
                memcpy(c->tol, V->tol, sizeof c->tol);
            else
                c->tol[0] = (amber_tolerance){ 1e-6, true };
        }
        if (parse_values(V, line, w + 6, n - 6, &c->values))
            return -1;
        c->nvalues = (unsigned)(n - 6);
        return 0;
    }
    if (!strcmp(w[0], "clear") || !strcmp(w[0], "draw") || !strcmp(w[0], "probe") || !strcmp(w[0], "relative") ||
        !strcmp(w[0], "patch") || !strcmp(w[0], "topology") || !strcmp(w[0], "primitiveRestartEnable") ||
        !strcmp(w[0], "depthTestEnable") || !strcmp(w[0], "vertex") || !strcmp(w[0], "fragment") ||
        !strcmp(w[0], "geometry") || !strcmp(w[0], "tessellation"))
        return vk_skip(V, line, "graphics commands in [test]");
    return vk_fail(V, line, "[test]: unknown command '%s'", w[0]);
}

static int require_line(vk *V, int line, char *text)
{
    amber_script *s = V->s;
    char *ws[8];
    int n = words(text, ws, 8);
    if (n && (!strcmp(ws[0], "framebuffer") || !strcmp(ws[0], "depthstencil") || !strcmp(ws[0], "fbsize") ||
              !strcmp(ws[0], "fence_timeout"))) {
        return 0; /* graphics / engine settings: nothing to do for compute */
    }
    if (n == 1) {
        char ***list = !strncmp(ws[0], "VK_", 3) ? &s->extensions : &s->features;
        unsigned *cnt = list == &s->extensions ? &s->nextensions : &s->nfeatures;
        char **e = GROW(*list, *cnt);
        if (!e || !(*e = strdup(ws[0])))
            return vk_fail(V, line, "out of memory");
        return 0;
    }
    if (n)
        return vk_fail(V, line, "[require]: unknown line '%s'", ws[0]);
    return 0;
}

/* One statement of [require] or [test] (its continued lines joined); empties `text`. */
static int logical_statement(vk *V, bool test, int line, util_array *text)
{
    char *t = util_array_grow(text, 1);
    if (!t)
        return vk_fail(V, line, "out of memory");
    t = text->data;
    t[text->size - 1] = 0;
    int r = test ? test_line(V, line, t) : require_line(V, line, t);
    text->size = 0;
    return r;
}

int amber_parse_vkscript(const char *text, size_t len, const char *path, amber_script *s, char *err, size_t errlen)
{
    char dummy[1];
    vk V = { .s = s, .path = path, .err = err && errlen ? err : dummy, .errlen = err && errlen ? errlen : 1 };
    V.err[0] = 0;
    s->vkscript = true;
    amber_pipeline *pl = GROW(s->pipelines, s->npipelines);
    if (!pl || !(pl->name = strdup("vkscript")) || !(pl->entry = strdup("main")))
        return vk_fail(&V, 1, "out of memory");
    pl->compute = true;
    pl->shader = -1;
    pl->line = 1;
    enum { NONE, REQUIRE, SHADER, TEST, IGNORED } section = NONE;
    util_array logical = { 0 }; /* the statement being read, continued lines joined */
    int logical_line = 0;
    amber_shader *sh = NULL;
    size_t shader_start = 0;
    int line = 0;
    int r = 0;
    for (size_t pos = 0; pos <= len && !r;) {
        const char *ls = text + pos, *le = memchr(ls, '\n', len - pos);
        size_t ll = le ? (size_t)(le - ls) : len - pos;
        line++;
        size_t next = pos + ll + 1;
        /* a section header ends the previous section */
        const char *w = ls;
        while (w < ls + ll && (*w == ' ' || *w == '\t'))
            w++;
        if (w < ls + ll && *w == '[') {
            if (logical.size && (r = logical_statement(&V, section == TEST, logical_line, &logical)) != 0)
                break;
            if (section == SHADER && sh) {
                sh->source_len = pos - shader_start;
                sh->source = malloc(sh->source_len + 1);
                if (!sh->source)
                    return vk_fail(&V, line, "out of memory");
                memcpy(sh->source, text + shader_start, sh->source_len);
                sh->source[sh->source_len] = 0;
                sh = NULL;
            }
            char hdr[128];
            const char *close = memchr(w, ']', (size_t)(ls + ll - w));
            if (!close || (size_t)(close - w) >= sizeof hdr)
                return vk_fail(&V, line, "bad section header");
            memcpy(hdr, w + 1, (size_t)(close - w - 1));
            hdr[close - w - 1] = 0;
            if (!strcmp(hdr, "comment")) {
                section = IGNORED;
            } else if (!strcmp(hdr, "require")) {
                section = REQUIRE;
            } else if (!strcmp(hdr, "test")) {
                section = TEST;
            } else if (!strncmp(hdr, "compute shader", 14)) {
                if (s->nshaders)
                    return vk_fail(&V, line, "a second [compute shader]");
                sh = GROW(s->shaders, s->nshaders);
                if (!sh || !(sh->name = strdup("compute")))
                    return vk_fail(&V, line, "out of memory");
                sh->compute = true;
                sh->line = line;
                const char *k = hdr + 14;
                sh->format = !strcmp(k, "")                                      ? AMBER_GLSL
                             : !strcmp(k, " spirv")                              ? AMBER_SPIRV_ASM
                             : !strcmp(k, " spirv hex") || !strcmp(k, " binary") ? AMBER_SPIRV_HEX
                                                                                 : AMBER_OTHER;
                if (sh->format == AMBER_OTHER)
                    return vk_fail(&V, line, "unknown shader section [%s]", hdr);
                s->pipelines[0].shader = 0;
                section = SHADER;
                shader_start = next > len ? len : next;
            } else if (strstr(hdr, "shader") || !strcmp(hdr, "vertex data") || !strcmp(hdr, "indices")) {
                vk_skip(&V, line, "graphics shaders and vertex data");
                break;
            } else {
                return vk_fail(&V, line, "unknown section [%s]", hdr);
            }
        } else if (section == REQUIRE || section == TEST) {
            /* '#' starts a comment; a backslash ending a line continues the statement on the next */
            const char *hash = memchr(ls, '#', ll);
            size_t keep = hash ? (size_t)(hash - ls) : ll;
            while (keep && (ls[keep - 1] == ' ' || ls[keep - 1] == '\t' || ls[keep - 1] == '\r'))
                keep--;
            bool cont = keep && ls[keep - 1] == '\\';
            if (!logical.size)
                logical_line = line;
            char *dst = util_array_grow(&logical, keep - cont + 1);
            if (!dst)
                return vk_fail(&V, line, "out of memory");
            memcpy(dst, ls, keep - cont);
            dst[keep - cont] = ' ';
            if (!cont)
                r = logical_statement(&V, section == TEST, logical_line, &logical);
        } else if (section == NONE) {
        } else if (section == NONE) {
            char buf[256];
            size_t n = ll < sizeof buf - 1 ? ll : sizeof buf - 1;
            memcpy(buf, ls, n);
            buf[n] = 0;
            char *ws[2];
            char *hash = strchr(buf, '#');
            if (hash)
                *hash = 0;
            if (words(buf, ws, 2))
                return vk_fail(&V, line, "text before the first [section]");
        }
        pos = next;
    }
    if (!r && logical.size)
        r = logical_statement(&V, section == TEST, logical_line, &logical);
    util_array_fini(&logical);
    if (r < 0)
        return -1;
    if (section == SHADER && sh) {
        sh->source_len = len - shader_start;
        if (!(sh->source = malloc(sh->source_len + 1)))
            return vk_fail(&V, line, "out of memory");
        memcpy(sh->source, text + shader_start, sh->source_len);
        sh->source[sh->source_len] = 0;
    }
    if (!s->skip && s->pipelines[0].shader < 0)
        return vk_fail(&V, 1, "no [compute shader] section");
    return 0;
}
