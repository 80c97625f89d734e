/* testdata/tests/test_jit_unmask.c — masked accesses unmasked where every
 * lane is active (jit/unmask.h).
 *
 * Hand-written functions load W floats under a lane mask (inactive lanes
 * read -1), store what they loaded to `out` whole, and store twice the value
 * to `dst` under the same condition (a second copy of the mask, the same
 * mask for one form).  Each mask is one form of the lanes' compare: `or
 * disjoint` and `add nuw`/`add nsw` lane offsets (negative ones too), the
 * compare either way round, unsigned and signed, a constant bound, i64
 * lanes, `and` and `select`ed pairs, the not of an or (`select`ed too), a
 * uniform condition among them, one mask for both accesses (the range from
 * the load to the store copied, both plain in the copy), an add that may
 * wrap (its last lane's not wrapping tested too), each lane's bit repeated;
 * and forms that must stay masked (equality, a bound that differs by lane,
 * an or of compares, the lanes of two masks).  After the rewrite the module must verify,
 * each function must have been rewritten or not as its form says, and `out`
 * and `dst` must be what a C computation of each lane's condition says, for
 * bounds that leave every lane, some (each cut), or none active, at the ends
 * of the signed and unsigned ranges. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "jit/jit_internal.h"
#include "jit/unmask.h"
#include "test_ir_util.h"

typedef bool (*lane_pred)(int64_t x, int64_t y, int64_t z, unsigned lane);

typedef struct form {
    const char *name;
    unsigned w;       /* lanes */
    bool i64;         /* i64 lanes, else i32 */
    const char *mask; /* IR computing %m from %xs, %ys, %zs (splats) and the constant lane offsets
                         IOTA (<0, 1, ...>) and IOTA_MINUS_3 (<-3, -2, ...>), and TRUES (an
                         i1 vector of true) */
    bool unmaskable;  /* the form lets the rewrite test one lane */
    bool or_lanes;    /* x + lane as `or disjoint`: x a multiple of w */
    bool nuw, nsw;    /* what the lane offsets' add promises (inputs must keep it) */
    int min_off, max_off;
    lane_pred active;
    bool shared; /* the load and the store under one mask (else each computes its own) */
} form;

static uint32_t u32(int64_t v)
{
    return (uint32_t)v;
}
static int32_t s32(int64_t v)
{
    return (int32_t)(uint32_t)v;
}

static bool lt_u(int64_t x, int64_t y, int64_t z, unsigned l)
{
    (void)z;
    return (uint64_t)u32(x) + l < u32(y);
}
static bool ge_s_minus3(int64_t x, int64_t y, int64_t z, unsigned l)
{
    (void)z;
    return (int64_t)s32(x) + (int64_t)l - 3 >= s32(y);
}
static bool in_u(int64_t x, int64_t y, int64_t z, unsigned l)
{
    uint64_t v = (uint64_t)u32(x) + l;
    return v >= u32(y) && v < u32(z);
}
static bool in_s_open(int64_t x, int64_t y, int64_t z, unsigned l)
{
    int64_t v = (int64_t)s32(x) + l;
    return v > s32(y) && v < s32(z);
}
static bool le_u64(int64_t x, int64_t y, int64_t z, unsigned l)
{
    (void)z;
    return (uint64_t)x + l <= (uint64_t)y;
}
static bool lt_100(int64_t x, int64_t y, int64_t z, unsigned l)
{
    (void)y, (void)z;
    return (uint64_t)u32(x) + l < 100;
}
static bool lt_u_wrapping(int64_t x, int64_t y, int64_t z, unsigned l)
{
    (void)z;
    return u32((int64_t)u32(x) + l) < u32(y);
}
static bool lt_s_wrapping(int64_t x, int64_t y, int64_t z, unsigned l)
{
    (void)z;
    return s32((int64_t)u32(x) + l) < s32(y);
}
static bool lt_u_half(int64_t x, int64_t y, int64_t z, unsigned l)
{
    return lt_u(x, y, z, l / 2);
}
static bool lt_u_or_ge_z_half(int64_t x, int64_t y, int64_t z, unsigned l)
{
    return l % 2 ? (uint64_t)u32(x) + l / 2 >= u32(z) : lt_u(x, y, z, l / 2);
}
static bool eq_u(int64_t x, int64_t y, int64_t z, unsigned l)
{
    (void)z;
    return (uint64_t)u32(x) + l == u32(y);
}
static bool lt_own_bound(int64_t x, int64_t y, int64_t z, unsigned l)
{
    (void)z;
    return u32((int64_t)u32(x) + l) < u32((int64_t)u32(y) + 2 * l);
}
static bool lt_s_and_z0(int64_t x, int64_t y, int64_t z, unsigned l)
{
    return (int64_t)s32(x) + l < s32(y) && u32(z) == 0;
}
static bool lt_u_and_z7(int64_t x, int64_t y, int64_t z, unsigned l)
{
    return lt_u(x, y, z, l) && u32(z) == 7;
}
static bool outside_u(int64_t x, int64_t y, int64_t z, unsigned l)
{
    return !in_u(x, y, z, l);
}

static const form forms[] = {
    { "ult_or", 16, false, "%l = or disjoint <16 x i32> %xs, IOTA\n  %m = icmp ult <16 x i32> %l, %ys", true, true,
      false, false, 0, 15, lt_u, false },
    { "ugt_swapped", 16, false, "%l = or disjoint <16 x i32> %xs, IOTA\n  %m = icmp ugt <16 x i32> %ys, %l", true, true,
      false, false, 0, 15, lt_u, false },
    { "sge_nsw_negative_offsets", 16, false,
      "%l = add nsw <16 x i32> %xs, IOTA_MINUS_3\n  %m = icmp sge <16 x i32> %l, %ys", true, false, false, true, -3, 12,
      ge_s_minus3, false },
    { "and_range_nuw", 16, false,
      "%l = add nuw <16 x i32> IOTA, %xs\n  %a = icmp uge <16 x i32> %l, %ys\n  %b = icmp ult <16 x i32> %l, %zs\n"
      "  %m = and <16 x i1> %a, %b",
      true, false, true, false, 0, 15, in_u, false },
    { "select_and_nsw", 16, false,
      "%l = add nsw <16 x i32> %xs, IOTA\n  %a = icmp slt <16 x i32> %l, %zs\n  %b = icmp sgt <16 x i32> %l, %ys\n"
      "  %m = select <16 x i1> %a, <16 x i1> %b, <16 x i1> zeroinitializer",
      true, false, false, true, 0, 15, in_s_open, false },
    { "ule_i64", 8, true, "%l = or disjoint <8 x i64> %xs, IOTA\n  %m = icmp ule <8 x i64> %l, %ys", true, true, false,
      false, 0, 7, le_u64, false },
    { "constant_bound", 16, false,
      "%l = or disjoint <16 x i32> %xs, IOTA\n  %m = icmp ult <16 x i32> %l, <i32 100, i32 100, i32 100, i32 100, "
      "i32 100, i32 100, i32 100, i32 100, i32 100, i32 100, i32 100, i32 100, i32 100, i32 100, i32 100, i32 100>",
      true, true, false, false, 0, 15, lt_100, false },
    /* lanes that may wrap (an OpenCL id in 32 bits) keep their order where
     * the last does not: the rewrite tests that too */
    { "add_may_wrap", 16, false, "%l = add <16 x i32> %xs, IOTA\n  %m = icmp ult <16 x i32> %l, %ys", true, false,
      false, false, 0, 15, lt_u_wrapping, false },
    { "add_may_wrap_signed", 16, false, "%l = add <16 x i32> %xs, IOTA\n  %m = icmp slt <16 x i32> %l, %ys", true,
      false, false, false, 0, 15, lt_s_wrapping, false },
    /* each lane's bit twice (simd_memory.c's row of 2-element vectors) */
    { "repeated_lanes", 16, false,
      "%l = or disjoint <16 x i32> %xs, IOTA\n  %m0 = icmp ult <16 x i32> %l, %ys\n"
      "  %m = shufflevector <16 x i1> %m0, <16 x i1> poison, <16 x i32> <i32 0, i32 0, i32 1, i32 1, i32 2, i32 2, "
      "i32 3, i32 3, i32 4, i32 4, i32 5, i32 5, i32 6, i32 6, i32 7, i32 7>",
      true, true, false, false, 0, 15, lt_u_half, false },
    /* lanes of two masks: neither says */
    { "lanes_of_two_masks", 16, false,
      "%l = or disjoint <16 x i32> %xs, IOTA\n  %m0 = icmp ult <16 x i32> %l, %ys\n"
      "  %m1 = icmp uge <16 x i32> %l, %zs\n"
      "  %m = shufflevector <16 x i1> %m0, <16 x i1> %m1, <16 x i32> <i32 0, i32 16, i32 1, i32 17, i32 2, i32 18, "
      "i32 3, i32 19, i32 4, i32 20, i32 5, i32 21, i32 6, i32 22, i32 7, i32 23>",
      false, true, false, false, 0, 15, lt_u_or_ge_z_half, false },
    { "equality", 16, false, "%l = or disjoint <16 x i32> %xs, IOTA\n  %m = icmp eq <16 x i32> %l, %ys", false, true,
      false, false, 0, 15, eq_u, false },
    { "bound_differs_by_lane", 16, false,
      "%l = or disjoint <16 x i32> %xs, IOTA\n  %i2 = add <16 x i32> IOTA, IOTA\n"
      "  %yv = add <16 x i32> %ys, %i2\n  %m = icmp ult <16 x i32> %l, %yv",
      false, true, false, false, 0, 15, lt_own_bound, false },
    /* not, or, and a uniform condition: !(x >= w || y >= h), as the passes leave `x < w && y < h` */
    { "not_of_or_with_uniform", 16, false,
      "%l = add nsw <16 x i32> %xs, IOTA\n  %a = icmp sge <16 x i32> %l, %ys\n  %c = icmp ne i32 %z, 0\n"
      "  %ci = insertelement <16 x i1> poison, i1 %c, i64 0\n"
      "  %cs = shufflevector <16 x i1> %ci, <16 x i1> poison, <16 x i32> zeroinitializer\n"
      "  %o = or <16 x i1> %a, %cs\n  %m = xor <16 x i1> %o, TRUES",
      true, false, false, true, 0, 15, lt_s_and_z0, false },
    { "not_of_select_or", 16, false,
      "%l = or disjoint <16 x i32> %xs, IOTA\n  %a = icmp ult <16 x i32> %l, %ys\n  %b = icmp uge <16 x i32> %l, %zs\n"
      "  %o = select <16 x i1> %a, <16 x i1> TRUES, <16 x i1> %b\n  %m = xor <16 x i1> TRUES, %o",
      true, true, false, false, 0, 15, in_u, false },
    { "and_with_uniform", 16, false,
      "%l = or disjoint <16 x i32> %xs, IOTA\n  %a = icmp ult <16 x i32> %l, %ys\n  %c = icmp eq i32 %z, 7\n"
      "  %ci = insertelement <16 x i1> poison, i1 %c, i64 0\n"
      "  %cs = shufflevector <16 x i1> %ci, <16 x i1> poison, <16 x i32> zeroinitializer\n  %m = and <16 x i1> %cs, %a",
      true, true, false, false, 0, 15, lt_u_and_z7, false },
    /* every lane of an or: neither compare alone says */
    { "or_of_compares", 16, false,
      "%l = or disjoint <16 x i32> %xs, IOTA\n  %a = icmp ult <16 x i32> %l, %ys\n  %b = icmp uge <16 x i32> %l, %zs\n"
      "  %m = or <16 x i1> %a, %b",
      false, true, false, false, 0, 15, outside_u, false },
    /* one mask for both accesses: computed anyway, left as it is */
    { "shared_mask", 16, false, "%l = or disjoint <16 x i32> %xs, IOTA\n  %m = icmp ult <16 x i32> %l, %ys", true, true,
      false, false, 0, 15, lt_u, true },
};
enum { NFORMS = sizeof forms / sizeof forms[0], MAXW = 16 };

/* append printf-style to a growing buffer */
static void put(char **buf, size_t *len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void put(char **buf, size_t *len, const char *fmt, ...)
{
    va_list ap, aq;
    va_start(ap, fmt);
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    *buf = realloc(*buf, *len + (size_t)n + 1);
    vsnprintf(*buf + *len, (size_t)n + 1, fmt, aq);
    va_end(aq);
    *len += (size_t)n;
}

/* The mask's IR, its placeholders replaced and its own values' names given
 * `suffix` (the splats %xs, %ys, %zs and the parameters keep theirs). */
static void put_mask(char **buf, size_t *len, const char *mask, char iota[2][400], unsigned w, const char *suffix)
{
    put(buf, len, "  ");
    for (const char *p = mask; *p;) {
        if (!strncmp(p, "TRUES", 5)) {
            put(buf, len, "<");
            for (unsigned l = 0; l < w; l++)
                put(buf, len, "%si1 true", l ? ", " : "");
            put(buf, len, ">");
            p += 5;
        } else if (!strncmp(p, "IOTA_MINUS_3", 12)) {
            put(buf, len, "%s", iota[1]);
            p += 12;
        } else if (!strncmp(p, "IOTA", 4)) {
            put(buf, len, "%s", iota[0]);
            p += 4;
        } else if (*p == '%') {
            size_t n = strspn(p + 1, "abcdefghijklmnopqrstuvwxyz0123456789");
            bool shared = (n == 2 && p[2] == 's' && strchr("xyz", p[1])) || (n == 1 && strchr("xyz", p[1]));
            put(buf, len, "%%%.*s%s", (int)n, p + 1, shared ? "" : suffix);
            p += 1 + n;
        } else {
            put(buf, len, "%c", *p++);
        }
    }
    put(buf, len, "\n");
}

/* void @<name>(iN %x, iN %y, iN %z, ptr %src, ptr %dst, ptr %out) */
static void put_function(char **buf, size_t *len, const form *f)
{
    const char *it = f->i64 ? "i64" : "i32";
    unsigned w = f->w;
    put(buf, len, "define void @%s(%s %%x, %s %%y, %s %%z, ptr %%src, ptr %%dst, ptr %%out) {\nentry:\n", f->name, it,
        it, it);
    const char *v[3] = { "x", "y", "z" };
    for (int i = 0; i < 3; i++)
        put(buf, len,
            "  %%%si = insertelement <%u x %s> poison, %s %%%s, i64 0\n"
            "  %%%ss = shufflevector <%u x %s> %%%si, <%u x %s> poison, <%u x i32> zeroinitializer\n",
            v[i], w, it, it, v[i], v[i], w, it, v[i], w, it, w);
    char iota[2][400];
    for (int k = 0; k < 2; k++) {
        int at = snprintf(iota[k], sizeof iota[k], "<");
        for (unsigned l = 0; l < w; l++)
            at += snprintf(iota[k] + at, sizeof iota[k] - (size_t)at, "%s%s %d", l ? ", " : "", it, (int)l - 3 * k);
        snprintf(iota[k] + at, sizeof iota[k] - (size_t)at, ">");
    }
    for (int copy = 0; copy < (f->shared ? 1 : 2); copy++) /* %m, and %m2 for the store */
        put_mask(buf, len, f->mask, iota, w, copy ? "2" : "");
    put(buf, len,
        "  %%v = call <%u x float> @llvm.masked.load.v%uf32.p0(ptr %%src, i32 4, <%u x i1> %%m, <%u x float> <", w, w,
        w, w);
    for (unsigned l = 0; l < w; l++)
        put(buf, len, "%sfloat -1.0", l ? ", " : "");
    put(buf, len, ">)\n  store <%u x float> %%v, ptr %%out, align 4\n  %%d = fadd <%u x float> %%v, %%v\n", w, w);
    put(buf, len, "  call void @llvm.masked.store.v%uf32.p0(<%u x float> %%d, ptr %%dst, i32 4, <%u x i1> %%m%s)\n", w,
        w, w, f->shared ? "" : "2");
    put(buf, len, "  ret void\n}\n\n");
}

static char *module_text(void)
{
    char *buf = NULL;
    size_t len = 0;
    for (unsigned w = 8; w <= 16; w += 8)
        put(&buf, &len,
            "declare <%u x float> @llvm.masked.load.v%uf32.p0(ptr, i32, <%u x i1>, <%u x float>)\n"
            "declare void @llvm.masked.store.v%uf32.p0(<%u x float>, ptr, i32, <%u x i1>)\n",
            w, w, w, w, w, w, w);
    for (unsigned i = 0; i < NFORMS; i++)
        put_function(&buf, &len, &forms[i]);
    return buf;
}

typedef void (*form_fn32)(int32_t x, int32_t y, int32_t z, const float *src, float *dst, float *out);
typedef void (*form_fn64)(int64_t x, int64_t y, int64_t z, const float *src, float *dst, float *out);

/* Whether x keeps what form f's lanes promise: x + off (each offset) without a wrap. */
static bool input_fits(const form *f, int64_t x)
{
    int64_t ux = f->i64 ? x : (int64_t)u32(x), sx = f->i64 ? x : s32(x);
    if (f->or_lanes && (uint64_t)x % f->w)
        return false;
    if (f->nuw && (uint64_t)ux + (uint64_t)f->max_off > (f->i64 ? UINT64_MAX : UINT32_MAX))
        return false;
    if (f->nsw && (sx + f->min_off < INT32_MIN || sx + f->max_off > INT32_MAX))
        return false;
    return true;
}

TEST_TIER_FREE(unmask_full_lanes_forms_and_results)
{
    spv_diag diag = { { 0 } };
    tir_host h;
    char *text = module_text();
    TIR_HOST_PARSE(&h, text, 3, &diag);
    free(text);
    LLVMModuleRef mod = h.mod;

    int n = jit_unmask_full_lanes(mod);
    unsigned expected = 0;
    for (unsigned i = 0; i < NFORMS; i++) {
        /* each access with its own mask, or the one range of both under a shared one */
        expected += forms[i].unmaskable ? (forms[i].shared ? 1 : 2) : 0;
        char *fn = tir_print(LLVMGetNamedFunction(mod, forms[i].name));
        bool tested = strstr(fn, "lanes.all") != NULL, want = forms[i].unmaskable;
        if (tested && forms[i].shared) { /* the copy runs both accesses plain */
            const char *full = strstr(fn, "lanes.full:"), *end = full ? strstr(full, "lanes.part:") : NULL;
            const char *masked = full ? strstr(full, "@llvm.masked.") : NULL;
            CHECK(full && end && (!masked || masked > end), "%s: the copy for every lane active keeps a masked access",
                  forms[i].name);
        }
        CHECK(tested == want, "%s: %s", forms[i].name,
              want ? "its accesses were left masked" : "rewritten, but its mask does not allow it");
        if (tested != want)
            fprintf(stderr, "%s\n", fn);
        free(fn);
    }
    CHECK(n == (int)expected, "%d accesses rewritten, expected %u", n, expected);

    const char *names[NFORMS];
    void *addrs[NFORMS];
    for (unsigned i = 0; i < NFORMS; i++)
        names[i] = forms[i].name;
    jit_code *code;
    TIR_HOST_LINK(code, &h, names, addrs, NFORMS, &diag);

    /* lane 0's values around the bounds: every cut of the lanes, both ends of the ranges */
    static const int64_t xs[] = { 0, 16, 96, 112, 4096, 2147483632, 2147483648, 4294967264, 4294967280, 4294967288 };
    static const int64_t ys[] = { 0, 1, 7, 100, 105, 111, 112, 128, 4099, 2147483640, 4294967294, 4294967295 };
    float src[MAXW], dst[MAXW], out[MAXW];
    unsigned runs = 0, partial = 0;
    for (unsigned i = 0; i < NFORMS; i++) {
        const form *f = &forms[i];
        for (unsigned a = 0; a < sizeof xs / sizeof xs[0]; a++)
            for (unsigned b = 0; b < sizeof ys / sizeof ys[0]; b++)
                for (unsigned c = 0; c < sizeof ys / sizeof ys[0]; c++) {
                    int64_t x = xs[a], y = ys[b], z = ys[c];
                    if (!input_fits(f, x))
                        continue;
                    for (unsigned l = 0; l < MAXW; l++) {
                        src[l] = (float)(l + 1) * 0.5f + (float)i;
                        dst[l] = 1000.0f + (float)l;
                        out[l] = 0.0f;
                    }
                    if (f->i64)
                        ((form_fn64)addrs[i])(x, y, z, src, dst, out);
                    else
                        ((form_fn32)addrs[i])(s32(x), s32(y), s32(z), src, dst, out);
                    unsigned on = 0;
                    for (unsigned l = 0; l < f->w; l++) {
                        bool act = f->active(x, y, z, l);
                        on += act;
                        float want_out = act ? src[l] : -1.0f, want_dst = act ? 2.0f * src[l] : 1000.0f + (float)l;
                        CHECK(out[l] == want_out && dst[l] == want_dst,
                              "%s x=%lld y=%lld z=%lld lane %u (%s): loaded %g, stored %g; expected %g, %g", f->name,
                              (long long)x, (long long)y, (long long)z, l, act ? "active" : "inactive", (double)out[l],
                              (double)dst[l], (double)want_out, (double)want_dst);
                    }
                    runs++;
                    partial += on > 0 && on < f->w;
                }
    }
    CHECK(runs > 500 && partial > 50, "only %u runs, %u with some lanes active", runs, partial);
    tir_host_end(&h, code);
}

/* A range under one mask whose values are used after it (a phi of the copy's
 * and the original's), with a use of the mask that is no access (a select,
 * all lanes in the copy): d = (m ? v : 0) + v, stored under m, lane 0 of d
 * returned.  One range is versioned; every lane's store and the returned
 * lane must be what C computes, with every lane, some or none active. */
TEST_TIER_FREE(unmask_shared_mask_range_values_after)
{
    static const char ir[] =
        "declare <8 x float> @llvm.masked.load.v8f32.p0(ptr, i32 immarg, <8 x i1>, <8 x float>)\n"
        "declare void @llvm.masked.store.v8f32.p0(<8 x float>, ptr, i32 immarg, <8 x i1>)\n"
        "define float @after(i32 %x, i32 %y, ptr %src, ptr %dst) {\n"
        "entry:\n"
        "  %xi = insertelement <8 x i32> poison, i32 %x, i64 0\n"
        "  %xs = shufflevector <8 x i32> %xi, <8 x i32> poison, <8 x i32> zeroinitializer\n"
        "  %yi = insertelement <8 x i32> poison, i32 %y, i64 0\n"
        "  %ys = shufflevector <8 x i32> %yi, <8 x i32> poison, <8 x i32> zeroinitializer\n"
        "  %l = or disjoint <8 x i32> %xs, <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>\n"
        "  %m = icmp ult <8 x i32> %l, %ys\n"
        "  %v = call <8 x float> @llvm.masked.load.v8f32.p0(ptr %src, i32 4, <8 x i1> %m, <8 x float> "
        "<float -1.0, float -1.0, float -1.0, float -1.0, float -1.0, float -1.0, float -1.0, float -1.0>)\n"
        "  %z = select <8 x i1> %m, <8 x float> %v, <8 x float> zeroinitializer\n"
        "  %d = fadd <8 x float> %z, %v\n"
        "  call void @llvm.masked.store.v8f32.p0(<8 x float> %d, ptr %dst, i32 4, <8 x i1> %m)\n"
        "  %e = extractelement <8 x float> %d, i64 0\n"
        "  ret float %e\n"
        "}\n";
    spv_diag diag = { { 0 } };
    tir_host h;
    TIR_HOST_PARSE(&h, ir, 3, &diag);
    int n = jit_unmask_full_lanes(h.mod);
    CHECK(n == 1, "%d rewrites, expected the one range", n);
    const char *names[1] = { "after" };
    void *addrs[1];
    jit_code *code;
    TIR_HOST_LINK(code, &h, names, addrs, 1, &diag);
    float (*after)(int32_t, int32_t, const float *, float *) =
        (float (*)(int32_t, int32_t, const float *, float *))addrs[0];
    static const int32_t xs[] = { 0, 8, 64 }, ys[] = { 0, 1, 5, 7, 8, 9, 15, 16, 70, 100 };
    for (unsigned a = 0; a < 3; a++)
        for (unsigned b = 0; b < sizeof ys / sizeof ys[0]; b++) {
            float src[8], dst[8];
            for (int l = 0; l < 8; l++) {
                src[l] = 0.25f * (float)(l + 1);
                dst[l] = 500.0f + (float)l;
            }
            float r = after(xs[a], ys[b], src, dst);
            for (int l = 0; l < 8; l++) {
                bool act = xs[a] + l < ys[b];
                float want = act ? 2.0f * src[l] : 500.0f + (float)l;
                CHECK(dst[l] == want, "x=%d y=%d lane %d: stored %g, expected %g", xs[a], ys[b], l, (double)dst[l],
                      (double)want);
            }
            float want_r = xs[a] < ys[b] ? 2.0f * src[0] : -1.0f; /* inactive: 0 + the passthru -1 */
            CHECK(r == want_r, "x=%d y=%d: returned %g, expected %g", xs[a], ys[b], (double)r, (double)want_r);
        }
    tir_host_end(&h, code);
}
