/* testdata/tests/test_api_export_info.c — reflection of exported functions and
 * the size checks of spvjit_call_exported.
 *
 * What spvjit_module_export_info reports for testdata/jit/exports.cl.spv is
 * checked against the OpenCL C source itself: its prototypes are read here
 * (one per line at column 0; static functions are not exported, kernels are)
 * and mapped by OpenCL C's rules: scalar types to spvjit_type (Kernel-flavour
 * integers carry no signedness: int reads as U32), the address-space
 * qualifiers global / local / constant / none to the storage classes
 * CrossWorkgroup / Workgroup / UniformConstant / Generic (OpenCL C 2.0), a
 * const pointee to readonly (every const pointer of the file is only read and
 * every other one written), vectors and half to what host C cannot pass.
 * Then every size the call states is checked against the signature, and a
 * refused call must not have run (the results keep their canary). */
#include <ctype.h>
#include <stdio.h>

#include "api_test_util.h"

#define EXPORTS "jit/exports.cl.spv"

/* --- the source's prototypes ---------------------------------------------------------- */

typedef struct cl_value {
    char name[32], base[32], space[16];
    bool pointer, is_const;
} cl_value;

typedef struct cl_proto {
    char name[32];
    cl_value ret;
    cl_value params[8];
    unsigned nparams;
} cl_proto;

/* One declaration ("const global float *a", "float" for a result) into v. */
static bool parse_value(const char *text, size_t len, bool named, cl_value *v)
{
    char buf[128], *tok[12], *save = NULL;
    unsigned n = 0;
    size_t k = 0;
    memset(v, 0, sizeof *v);
    for (size_t i = 0; i < len && k + 3 < sizeof buf; i++) {
        if (text[i] == '*') {
            buf[k++] = ' ';
            buf[k++] = '*';
            buf[k++] = ' ';
        } else {
            buf[k++] = text[i];
        }
    }
    buf[k] = 0;
    for (char *t = strtok_r(buf, " \t", &save); t && n < 12; t = strtok_r(NULL, " \t", &save))
        tok[n++] = t;
    if (named) {
        if (n < 2)
            return false;
        snprintf(v->name, sizeof v->name, "%s", tok[--n]);
    }
    for (unsigned i = 0; i < n; i++) {
        if (!strcmp(tok[i], "const"))
            v->is_const = true;
        else if (!strcmp(tok[i], "*"))
            v->pointer = true;
        else if (!strcmp(tok[i], "global") || !strcmp(tok[i], "local") || !strcmp(tok[i], "constant") ||
                 !strcmp(tok[i], "private"))
            snprintf(v->space, sizeof v->space, "%s", tok[i]);
        else if (strcmp(tok[i], "kernel"))
            snprintf(v->base, sizeof v->base, "%s", tok[i]);
    }
    return v->base[0] != 0;
}

/* The exported prototypes of an OpenCL C file; returns how many (-1: unreadable). */
static int read_prototypes(const char *path, cl_proto *out, int max)
{
    size_t len;
    char *src = test_read_file(path, &len);
    if (!src)
        return -1;
    int n = 0;
    for (char *line = src; line && *line && n < max;) {
        char *next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        char *open = strchr(line, '('), *close = open ? strchr(open, ')') : NULL;
        bool top = isalpha((unsigned char)line[0]) && strncmp(line, "static", 6) && strncmp(line, "typedef", 7);
        if (top && open && close) {
            cl_proto *p = &out[n];
            memset(p, 0, sizeof *p);
            char *name_end = open;
            while (name_end > line && isspace((unsigned char)name_end[-1]))
                name_end--;
            char *name = name_end;
            while (name > line && (isalnum((unsigned char)name[-1]) || name[-1] == '_'))
                name--;
            snprintf(p->name, sizeof p->name, "%.*s", (int)(name_end - name), name);
            bool ok = parse_value(line, (size_t)(name - line), false, &p->ret);
            for (char *a = open + 1; ok && a < close && p->nparams < 8;) {
                char *comma = memchr(a, ',', (size_t)(close - a));
                char *end = comma ? comma : close;
                ok = parse_value(a, (size_t)(end - a), true, &p->params[p->nparams++]);
                a = end + 1;
            }
            if (ok)
                n++;
        }
        line = next;
    }
    free(src);
    return n;
}

/* --- OpenCL C's types as the API reports them ---------------------------------------------- */

typedef struct cl_scalar {
    const char *name;
    spvjit_type type;
    size_t size;
} cl_scalar;

static const cl_scalar cl_scalars[] = {
    { "bool", SPVJIT_TYPE_BOOL, 1 }, { "char", SPVJIT_TYPE_U8, 1 },    { "uchar", SPVJIT_TYPE_U8, 1 },
    { "short", SPVJIT_TYPE_U16, 2 }, { "ushort", SPVJIT_TYPE_U16, 2 }, { "int", SPVJIT_TYPE_U32, 4 },
    { "uint", SPVJIT_TYPE_U32, 4 },  { "long", SPVJIT_TYPE_U64, 8 },   { "ulong", SPVJIT_TYPE_U64, 8 },
    { "half", SPVJIT_TYPE_F16, 2 },  { "float", SPVJIT_TYPE_F32, 4 },  { "double", SPVJIT_TYPE_F64, 8 },
};

static const cl_scalar *cl_scalar_of(const char *base)
{
    for (size_t i = 0; i < sizeof cl_scalars / sizeof *cl_scalars; i++)
        if (!strcmp(cl_scalars[i].name, base))
            return &cl_scalars[i];
    return NULL;
}

static const char *cl_storage_class(const char *space)
{
    return !strcmp(space, "global")     ? "CrossWorkgroup"
           : !strcmp(space, "local")    ? "Workgroup"
           : !strcmp(space, "constant") ? "UniformConstant"
           : !strcmp(space, "private")  ? "Function"
                                        : "Generic";
}

/* Whether host C can pass the value (pointers: always; half and vectors: no). */
static bool cl_passable(const cl_value *v)
{
    const cl_scalar *s = cl_scalar_of(v->base);
    return v->pointer || !strcmp(v->base, "void") || (s && s->type != SPVJIT_TYPE_F16);
}

/* One reported value against its declaration; returns the number of differences. */
static int check_value(const char *fn, const char *what, const cl_value *want, const spvjit_export_value *got)
{
    int bad = 0;
    const cl_scalar *s = cl_scalar_of(want->base);
#define VCHECK(cond, ...)                                                                                              \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            bad++;                                                                                                     \
            CHECK(0, __VA_ARGS__);                                                                                     \
        }                                                                                                              \
    } while (0)
    if (want->name[0])
        VCHECK(got->name && !strcmp(got->name, want->name), "%s %s: name %s, expected %s", fn, what,
               got->name ? got->name : "NULL", want->name);
    else
        VCHECK(!got->name, "%s %s: a name (%s) where none is declared", fn, what, got->name);
    VCHECK(got->type_name && *got->type_name, "%s %s: no type name", fn, what);
    if (want->pointer) {
        const char *sc = cl_storage_class(want->space);
        VCHECK(got->kind == SPVJIT_VALUE_POINTER && got->size == sizeof(void *),
               "%s %s: kind %d size %zu, expected "
               "a pointer",
               fn, what, got->kind, got->size);
        VCHECK(got->storage_class && !strcmp(got->storage_class, sc), "%s %s: storage class %s, expected %s", fn, what,
               got->storage_class ? got->storage_class : "NULL", sc);
        VCHECK(s && got->elem_type == s->type, "%s %s: elem_type %s, expected %s", fn, what,
               spvjit_type_name(got->elem_type), want->base);
        VCHECK(got->readonly == want->is_const, "%s %s: readonly %d, expected %d", fn, what, got->readonly,
               want->is_const);
        VCHECK(got->type_name && strstr(got->type_name, sc) && strchr(got->type_name, '*'), "%s %s: type name %s", fn,
               what, got->type_name);
        VCHECK(got->type == 0, "%s %s: a pointer with a scalar type", fn, what);
    } else if (!strcmp(want->base, "void")) {
        VCHECK(got->kind == SPVJIT_VALUE_VOID && got->size == 0, "%s %s: kind %d, expected void", fn, what, got->kind);
    } else if (s) {
        VCHECK(got->kind == SPVJIT_VALUE_SCALAR && got->type == s->type && got->size == s->size,
               "%s %s: kind %d type %s size %zu, expected %s (%s, %zu bytes)", fn, what, got->kind,
               spvjit_type_name(got->type), got->size, want->base, spvjit_type_name(s->type), s->size);
    } else { /* a vector */
        VCHECK(got->kind == SPVJIT_VALUE_OTHER && got->size == 0 && got->type == 0, "%s %s: kind %d, expected other",
               fn, what, got->kind);
        VCHECK(got->type_name && !strcmp(got->type_name, want->base), "%s %s: type name %s, expected %s", fn, what,
               got->type_name, want->base);
    }
    if (!want->pointer)
        VCHECK(!got->storage_class && !got->readonly && !got->elem_type, "%s %s: pointer facts on a non-pointer", fn,
               what);
#undef VCHECK
    return bad;
}

TEST(api_export_info_against_the_opencl_source)
{
    cl_proto protos[32];
    int n = read_prototypes(test_data_path("jit/exports.cl"), protos, 32);
    REQUIRE(n >= 16, "exports.cl: %d prototypes read", n);
    spvjit_context *ctx;
    spvjit_module *m = api_ctx_load(EXPORTS, &ctx);
    REQUIRE(m, "load: %s", spvjit_last_error());
    CHECK(spvjit_module_export_count(m) == (unsigned)n, "%u exports, the source declares %d",
          spvjit_module_export_count(m), n);
    bool seen[32] = { false };
    int bad = 0, unsupported = 0;
    for (unsigned i = 0; i < spvjit_module_export_count(m); i++) {
        spvjit_export_info e;
        REQUIRE(spvjit_module_export_info(m, i, &e) == SPVJIT_OK, "export %u: %s", i, spvjit_last_error());
        const cl_proto *p = NULL;
        for (int k = 0; k < n && !p; k++)
            if (!strcmp(protos[k].name, e.name) && !seen[k]) {
                p = &protos[k];
                seen[k] = true;
            }
        if (!p) {
            CHECK(0, "export \"%s\" is not in the source (or twice)", e.name);
            continue;
        }
        bad += check_value(e.name, "result", &p->ret, &e.result);
        CHECK(e.nparams == p->nparams && (e.params || !e.nparams), "%s: %u parameters, the source has %u", e.name,
              e.nparams, p->nparams);
        bool passable = cl_passable(&p->ret);
        for (unsigned k = 0; k < e.nparams && k < p->nparams; k++) {
            char what[32];
            snprintf(what, sizeof what, "parameter %u", k);
            bad += check_value(e.name, what, &p->params[k], &e.params[k]);
            passable = passable && cl_passable(&p->params[k]);
        }
        CHECK(passable == !e.unsupported, "%s: unsupported is %s", e.name, e.unsupported ? e.unsupported : "NULL");
        if (e.unsupported) {
            unsupported++;
            CHECK(strstr(e.unsupported, "host C cannot pass"), "%s: %s", e.name, e.unsupported);
        }
    }
    CHECK(bad == 0, "%d reported facts differ from the source", bad);
    CHECK(unsupported == 2, "%d exports not callable (vscale, twice_h expected)", unsupported);
    for (int k = 0; k < n; k++)
        CHECK(seen[k], "\"%s\" of the source is not reported", protos[k].name);

    /* the reasons name the parameter or the result */
    for (unsigned i = 0; i < spvjit_module_export_count(m); i++) {
        spvjit_export_info e;
        spvjit_module_export_info(m, i, &e);
        if (!strcmp(e.name, "vscale"))
            CHECK(e.unsupported && strstr(e.unsupported, "the result has type float4"), "vscale: %s", e.unsupported);
        if (!strcmp(e.name, "twice_h"))
            CHECK(e.unsupported && strstr(e.unsupported, "the result has type half"), "twice_h: %s", e.unsupported);
    }
    spvjit_export_info e;
    CHECK(spvjit_module_export_info(m, (unsigned)n, &e) == SPVJIT_ERROR_INVALID_ARGUMENT &&
              strstr(spvjit_last_error(), "out of range"),
          "past the end: %s", spvjit_last_error());
    CHECK(spvjit_module_export_info(NULL, 0, &e) == SPVJIT_ERROR_INVALID_ARGUMENT && !spvjit_module_export_count(NULL),
          "NULL module");
    spvjit_module_destroy(m);

    /* a module without exports; a Shader module */
    m = api_load(ctx, "kernels/saxpy.comp.spv");
    REQUIRE(m, "load saxpy.comp: %s", spvjit_last_error());
    CHECK(spvjit_module_export_count(m) == 0, "saxpy.comp exports %u", spvjit_module_export_count(m));
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
}

/* --- the call checks the sizes it is told ------------------------------------------------------ */

#define CANARY 0xA5

static bool untouched(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != CANARY)
            return false;
    return true;
}

TEST(api_call_exported_checks_sizes)
{
    spvjit_context *ctx;
    spvjit_module *m = api_ctx_load(EXPORTS, &ctx);
    REQUIRE(m, "load: %s", spvjit_last_error());
    enum { N = 9 };
    float a[N], x[N], b = 0.5f, r[N + 1];
    double wide[N];
    uint64_t seed = 99;
    for (int i = 0; i < N; i++) {
        a[i] = test_rand_float(&seed, -4, 4);
        x[i] = test_rand_float(&seed, -4, 4);
        wide[i] = a[i];
    }
    spvjit_call_arg ok[3] = { { a, sizeof a, true }, { x, sizeof x, true }, { &b, sizeof b, false } };
    spvjit_call_arg args[3];
    const char *e;
#define REFUSED(status, results, rsize, ...)                                                                           \
    do {                                                                                                               \
        memset(r, CANARY, sizeof r);                                                                                   \
        spvjit_status st_ = spvjit_call_exported(m, "axpb", NULL, N, args, 3, results, rsize);                         \
        e = spvjit_last_error();                                                                                       \
        CHECK(st_ == (status) && untouched((const unsigned char *)r, sizeof r), "%s: %s", spvjit_status_name(st_), e); \
        CHECK(__VA_ARGS__);                                                                                            \
    } while (0)

    /* a uniform float given as a double */
    double bd = 0.5;
    memcpy(args, ok, sizeof ok);
    args[2] = (spvjit_call_arg){ &bd, sizeof bd, false };
    REFUSED(SPVJIT_ERROR_BINDING, r, N * 4,
            strstr(e, "argument 2 (b: float) is uniform") && strstr(e, "4 bytes") && strstr(e, "size is 8"),
            "uniform double: %s", e);
    /* a varying float given as doubles: twice the bytes */
    memcpy(args, ok, sizeof ok);
    args[0] = (spvjit_call_arg){ wide, sizeof wide, true };
    REFUSED(SPVJIT_ERROR_BINDING, r, N * 4,
            strstr(e, "argument 0 (a: float) is varying") && strstr(e, "9 lanes of 4 bytes take 36 bytes") &&
                strstr(e, "size is 72"),
            "varying doubles: %s", e);
    /* varying, fewer lanes than the call runs */
    args[0] = (spvjit_call_arg){ a, sizeof a - 4, true };
    REFUSED(SPVJIT_ERROR_BINDING, r, N * 4, strstr(e, "size is 32"), "short array: %s", e);
    /* uniform given the whole array */
    args[0] = (spvjit_call_arg){ a, sizeof a, false };
    REFUSED(SPVJIT_ERROR_BINDING, r, N * 4, strstr(e, "is uniform"), "array as uniform: %s", e);
    /* results one lane short, one lane long, and NULL */
    memcpy(args, ok, sizeof ok);
    REFUSED(SPVJIT_ERROR_BINDING, r, N * 4 - 4,
            strstr(e, "returns float: 9 lanes of 4 bytes take 36 bytes, but "
                      "results_size is 32"),
            "short results: %s", e);
    REFUSED(SPVJIT_ERROR_BINDING, r, N * 4 + 4, strstr(e, "results_size is 40"), "long results: %s", e);
    REFUSED(SPVJIT_ERROR_BINDING, r, N * 8, strstr(e, "results_size is 72"), "double results: %s", e);
    REFUSED(SPVJIT_ERROR_INVALID_ARGUMENT, NULL, N * 4, strstr(e, "results is NULL"), "NULL results: %s", e);
    /* data NULL with a size */
    args[1] = (spvjit_call_arg){ NULL, sizeof x, true };
    REFUSED(SPVJIT_ERROR_INVALID_ARGUMENT, r, N * 4, strstr(e, "argument 1 (x: float): data is NULL"), "NULL: %s", e);
#undef REFUSED

    /* argument count */
    memset(r, CANARY, sizeof r);
    CHECK(spvjit_call_exported(m, "axpb", NULL, N, ok, 2, r, N * 4) == SPVJIT_ERROR_INVALID_ARGUMENT &&
              strstr(spvjit_last_error(), "takes 3 arguments; 2 given") && untouched((unsigned char *)r, sizeof r),
          "2 of 3: %s", spvjit_last_error());
    /* a void function given a results buffer */
    float v = 2.0f, s = 3.0f, *vp = &v;
    spvjit_call_arg sa[2] = { { &vp, sizeof vp, false }, { &s, sizeof s, false } };
    CHECK(spvjit_call_exported(m, "scale", NULL, 1, sa, 2, r, 4) == SPVJIT_ERROR_BINDING &&
              strstr(spvjit_last_error(), "returns nothing") && v == 2.0f,
          "void with results: %s", spvjit_last_error());
    /* a pointer given as 4 bytes */
    sa[0].size = 4;
    CHECK(spvjit_call_exported(m, "scale", NULL, 1, sa, 2, NULL, 0) == SPVJIT_ERROR_BINDING &&
              strstr(spvjit_last_error(), "argument 0 (p: CrossWorkgroup float*)") && v == 2.0f,
          "4-byte pointer: %s", spvjit_last_error());
    sa[0].size = sizeof vp;
    CHECK(spvjit_call_exported(m, "scale", NULL, 1, sa, 2, NULL, 0) == SPVJIT_OK && v == 6.0f, "scale: %s (%g)",
          spvjit_last_error(), v);
    /* what host C cannot pass, before any size is looked at */
    CHECK(spvjit_call_exported(m, "vscale", NULL, 1, NULL, 0, NULL, 0) == SPVJIT_ERROR_UNSUPPORTED &&
              strstr(spvjit_last_error(), "\"vscale\" cannot be called from host C: the result has type float4"),
          "vscale: %s", spvjit_last_error());
    CHECK(spvjit_call_exported(m, "twice_h", NULL, 1, NULL, 0, NULL, 0) == SPVJIT_ERROR_UNSUPPORTED &&
              strstr(spvjit_last_error(), "half"),
          "twice_h: %s", spvjit_last_error());
    /* no lanes: varying arrays and results may be empty */
    spvjit_call_arg none[3] = { { NULL, 0, true }, { NULL, 0, true }, { &b, sizeof b, false } };
    CHECK(spvjit_call_exported(m, "axpb", NULL, 0, none, 3, NULL, 0) == SPVJIT_OK, "0 lanes: %s", spvjit_last_error());
    /* and the sizes right: the call runs */
    memset(r, CANARY, sizeof r);
    CHECK(spvjit_call_exported(m, "axpb", NULL, N, ok, 3, r, N * 4) == SPVJIT_OK, "axpb: %s", spvjit_last_error());
    int wrong = 0;
    for (int i = 0; i < N; i++) {
        float want = a[i] * x[i];
        wrong += r[i] != want + b;
    }
    CHECK(wrong == 0 && untouched((unsigned char *)&r[N], 4), "axpb: %d lanes wrong or wrote past the results", wrong);
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
}
