/* testdata/tests/test_jit_cl.c — OpenCL C kernels (testdata/jit/cl_*.cl, built by
 * clang-15 + llvm-spirv-15) through the JIT and the executor, one instruction
 * class per kernel, against plain C on random inputs: integer builtins and
 * conversions, math builtins and vload/vstore, control flow with real calls,
 * by-value structs, __constant tables and printf, local memory with atomics
 * and barriers, work-group collectives, async copies and dot products.
 * Several checks share one kernel: JIT compiles are slow under ASan. */
#include <fenv.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "test_jit_util.h"

/* --- helpers ------------------------------------------------------------------------------ */

static jit_kernel *cl_kernel_on(spv_module **m, const char *file, const char *entry, uint32_t local, bool fibers)
{
    *m = tj_load(file);
    if (!*m)
        return NULL;
    spvjit_options o = { .opt_level = 3,
                         .local_size = { local, 1, 1 },
                         .barriers = fibers ? JIT_BARRIER_MODE_FIBERS : JIT_BARRIER_MODE_AUTO };
    return tj_compile(*m, entry, &o);
}

static jit_kernel *cl_kernel(spv_module **m, const char *file, const char *entry, uint32_t local)
{
    return cl_kernel_on(m, file, entry, local, false);
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}
static int64_t clamp_d(double d, int64_t lo, int64_t hi)
{
    if (isnan(d))
        return 0;
    if (d <= (double)lo)
        return lo;
    if (d >= (double)hi)
        return hi;
    return (int64_t)d;
}
static uint32_t rotl32(uint32_t x, unsigned r)
{
    r &= 31;
    return r ? x << r | x >> (32 - r) : x;
}
static uint64_t rotl64(uint64_t x, unsigned r)
{
    r &= 63;
    return r ? x << r | x >> (64 - r) : x;
}

/* Half <-> double (reference, round to nearest even / toward zero / up / down). */
enum { RTE, RTZ, RTP, RTN };
static double h2d(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 31 ? (m ? NAN : INFINITY) : e == 0 ? ldexp(m, -24) : ldexp(m + 1024, e - 25);
    return h >> 15 ? -v : v;
}
static uint16_t d2h(double x, int mode)
{
    uint16_t sign = signbit(x) ? 0x8000 : 0;
    double a = fabs(x);
    if (isnan(x))
        return 0x7e00;
    if (isinf(x))
        return 0x7c00 | sign;
    if (a == 0)
        return sign;
    int e;
    frexp(a, &e);
    e -= 1;
    int qe = (e < -14 ? -14 : e) - 10;
    double n = ldexp(a, -qe), fl = floor(n), fr = n - fl;
    bool up = mode == RTE   ? fr > 0.5 || (fr == 0.5 && fmod(fl, 2.0) == 1.0)
              : mode == RTZ ? false
              : mode == RTP ? fr > 0 && !sign
                            : fr > 0 && sign;
    double v = ldexp(fl + up, qe);
    if (v > 65504.0) {
        bool inf = mode == RTE || (mode == RTP && !sign) || (mode == RTN && sign);
        return sign | (inf ? 0x7c00 : 0x7bff);
    }
    if (v < 0x1p-14)
        return sign | (uint16_t)ldexp(v, 24);
    frexp(v, &e);
    e -= 1;
    return sign | (uint16_t)((e + 15) << 10) | (uint16_t)(ldexp(v, 10 - e) - 1024);
}

/* --- integers and conversions (cl_int.cl) -------------------------------------------------- */

enum { NOUT = 44, NOUTL = 8 };

static void ints_ref(int32_t x, int32_t y, int64_t c, float fx, int32_t *r, bool *def, int64_t *q, bool *qdef)
{
    uint32_t ux = (uint32_t)x, uy = (uint32_t)y;
    int64_t lx = c, ly = c ^ (int64_t)((uint64_t)(int64_t)x << 17);
    int8_t cx = (int8_t)x, cy = (int8_t)y;
    uint8_t ucx = (uint8_t)x, ucy = (uint8_t)y;
    int16_t sx = (int16_t)x, sy = (int16_t)y;
    uint16_t usx = (uint16_t)x, usy = (uint16_t)y;
    for (int j = 0; j < NOUT; j++)
        def[j] = true;
    for (int j = 0; j < NOUTL; j++)
        qdef[j] = true;
    r[0] = (int32_t)clamp64((int64_t)x + y, INT32_MIN, INT32_MAX);
    r[1] = (int32_t)clamp64((int64_t)x - y, INT32_MIN, INT32_MAX);
    r[2] = (int32_t)(uint32_t)clamp64((int64_t)ux + uy, 0, UINT32_MAX);
    r[3] = (int32_t)(ux > uy ? ux - uy : 0);
    r[4] = (int32_t)(((int64_t)x * y) >> 32);
    r[5] = (int32_t)(((uint64_t)ux * uy) >> 32);
    r[6] = (int32_t)rotl32(ux, uy);
    r[7] = ux ? __builtin_clz(ux) : 32;
    r[8] = __builtin_popcount(ux);
    r[9] = (int32_t)(((int64_t)x + y) >> 1);
    r[10] = (int32_t)(((int64_t)x + y + 1) >> 1);
    r[11] = (int32_t)(uint32_t)llabs((int64_t)x - y);
    r[12] = (int32_t)(uint32_t)llabs((int64_t)x);
    r[13] = (int32_t)clamp64((int64_t)x * y + x, INT32_MIN, INT32_MAX);
    r[14] = (int32_t)((ux & 0x7fffff) * (uy & 0x7fffff) + ux);
    r[15] = ux ? __builtin_ctz(ux) : 32;
    r[16] = (int32_t)clamp64(cx + cy, -128, 127);
    r[17] = ucx > ucy ? ucx - ucy : 0;
    r[18] = (int8_t)(cx * cy);
    r[19] = (uint8_t)(ucx / (ucy | 1));
    r[20] = (int8_t)(cx % (cy == 0 ? 1 : cy));
    r[21] = (int32_t)clamp64(sx + sy, INT16_MIN, INT16_MAX);
    r[22] = usx > usy ? usx - usy : 0;
    r[23] = (int16_t)(sx * sy);
    r[24] = (int16_t)((sx * sy) >> 16);
    r[25] = (uint8_t)((ucy & 7) ? (uint8_t)(ucx << (ucy & 7) | ucx >> (8 - (ucy & 7))) : ucx);
    r[26] = usx ? __builtin_clz(usx) - 16 : 16;
    r[27] = __builtin_popcount(ucx);
    double d = fx;
    r[28] = (int32_t)clamp_d(nearbyint(d), INT32_MIN, INT32_MAX);
    r[29] = (int32_t)clamp_d(trunc(d), INT32_MIN, INT32_MAX);
    r[30] = (int32_t)clamp_d(ceil(d), INT32_MIN, INT32_MAX);
    r[31] = (int32_t)clamp_d(floor(d), INT32_MIN, INT32_MAX);
    r[32] = (int32_t)clamp64(x, 0, 255);
    r[33] = (int32_t)clamp64(y, -128, 127);
    r[34] = (int32_t)clamp_d(trunc((double)(fx * 1000.0f)), INT16_MIN, INT16_MAX);
    r[35] = (int32_t)clamp_d(nearbyint(d), 0, UINT16_MAX);
    r[36] = (int32_t)(uint32_t)clamp_d(trunc(d), 0, UINT32_MAX);
    def[37] = !isnan(d) && trunc(d) >= INT32_MIN && trunc(d) <= INT32_MAX;
    r[37] = def[37] ? (int32_t)d : 0;
    r[38] = (int32_t)((uint32_t)(uint16_t)sx << 16 | usy);
    r[39] = (int32_t)((uint32_t)(x > y ? x : y) - (ux < uy ? ux : uy) + (uint32_t)clamp64(x, -100, 100));
    /* rounding to float in a given direction: the host FPU in that mode */
    volatile int32_t vx = x;
    volatile uint32_t vux = ux;
    volatile int64_t vlx = lx;
    volatile double vd = (double)fx * 1.00000001;
    float fr[4];
    fesetround(FE_TOWARDZERO);
    fr[0] = (float)vx;
    fesetround(FE_DOWNWARD);
    fr[1] = (float)vux;
    fesetround(FE_UPWARD);
    fr[2] = (float)vlx;
    fesetround(FE_TOWARDZERO);
    fr[3] = (float)vd;
    fesetround(FE_TONEAREST);
    memcpy(&r[40], fr, sizeof fr);
    q[0] = (int64_t)((uint64_t)lx * (uint64_t)ly);
    q[1] = (int64_t)(((__int128)lx * ly) >> 64);
    q[2] = (int64_t)(((unsigned __int128)(uint64_t)lx * (uint64_t)ly) >> 64);
    int64_t s;
    q[3] = __builtin_add_overflow(lx, ly, &s) ? (lx < 0 ? INT64_MIN : INT64_MAX) : s;
    q[4] = (int64_t)rotl64((uint64_t)lx, (unsigned)ly);
    q[5] = (lx ? __builtin_clzll((uint64_t)lx) : 64) + 100 * __builtin_popcountll((uint64_t)lx);
    qdef[6] = !(lx == INT64_MIN && ly == -1);
    q[6] = ly != 0 && qdef[6] ? lx / ly : 0;
    q[7] = clamp_d(floor((double)fx * 1e12), INT64_MIN, INT64_MAX);
}

static float rand_conv_float(uint64_t *s, uint32_t i)
{
    switch (i % 6) {
    case 0:
        return (float)((int)(test_rand_u64(s) % 4001) - 2000) * 0.5f; /* ties */
    case 1:
        return test_rand_float(s, -1000.0f, 1000.0f);
    case 2:
        return test_rand_float(s, -6e9f, 6e9f);
    case 3:
        return test_rand_float(s, -70000.0f, 70000.0f);
    case 4:
        return i % 12 == 4 ? NAN : test_rand_float(s, -3.0f, 3.0f);
    default:
        return test_rand_float(s, -5e18f, 5e18f);
    }
}

static int32_t rand_int(uint64_t *s, uint32_t i)
{
    uint64_t r = test_rand_u64(s);
    switch (i % 4) {
    case 0:
        return (int32_t)r;
    case 1:
        return (int32_t)(r % 2001) - 1000;
    case 2:
        return (int32_t)(r % 2) ? INT32_MAX - (int32_t)(r % 100) : INT32_MIN + (int32_t)(r % 100);
    default:
        return (int32_t)(r % 200001) - 100000;
    }
}

TEST(jit_cl_integer_builtins_and_conversions)
{
    spv_module *m;
    jit_kernel *k = cl_kernel(&m, "jit/cl_int.cl.spv", "ints", 16);
    REQUIRE(k, "compile: %s", tj_last_error);
    enum { N = 200 }; /* not a multiple of 16: a partial last group */
    uint64_t s = 1234;
    int32_t *a = malloc(N * 4), *b = malloc(N * 4), *o = calloc(N * NOUT, 4);
    int64_t *c = malloc(N * 8), *ol = calloc(N * NOUTL, 8);
    float *f = malloc(N * 4);
    for (uint32_t i = 0; i < N; i++) {
        a[i] = rand_int(&s, i);
        b[i] = rand_int(&s, i / 4 + i);
        c[i] = (int64_t)test_rand_u64(&s) >> (i % 3 ? 0 : 20);
        f[i] = rand_conv_float(&s, i);
    }
    void *args[6] = { &a, &b, &c, &f, &o, &ol };
    tj_dispatch d = { .args = args, .work_dim = 1, .global_size = { N, 1, 1 } };
    REQUIRE(tj_run(k, &d) == 0, "run");
    int bad = 0;
    for (uint32_t i = 0; i < N && bad < 8; i++) {
        int32_t r[NOUT];
        int64_t q[NOUTL];
        bool def[NOUT], qdef[NOUTL];
        ints_ref(a[i], b[i], c[i], f[i], r, def, q, qdef);
        for (int j = 0; j < NOUT; j++)
            if (def[j] && o[NOUT * i + j] != r[j]) {
                bad++;
                CHECK(0, "item %u word %d: got %d (0x%x), expected %d (0x%x); x=%d y=%d f=%.9g", i, j, o[NOUT * i + j],
                      (unsigned)o[NOUT * i + j], r[j], (unsigned)r[j], a[i], b[i], f[i]);
            }
        for (int j = 0; j < NOUTL; j++)
            if (qdef[j] && ol[NOUTL * i + j] != q[j]) {
                bad++;
                CHECK(0, "item %u long %d: got %lld, expected %lld; c=%lld f=%.9g", i, j, (long long)ol[NOUTL * i + j],
                      (long long)q[j], (long long)c[i], f[i]);
            }
    }
    free(a);
    free(b);
    free(o);
    free(c);
    free(ol);
    free(f);
    spvjit_kernel_free(k);
    spv_module_free(m);
}

/* --- math, vload/vstore, half (cl_math.cl) ------------------------------------------------- */

static bool close_d(double got, double want, double rel, double abs_tol)
{
    if (isnan(want))
        return isnan(got);
    if (isinf(want))
        return got == want;
    return fabs(got - want) <= rel * fabs(want) + abs_tol;
}

TEST(jit_cl_math_vectors_and_half)
{
    spv_module *m;
    jit_kernel *k = cl_kernel(&m, "jit/cl_math.cl.spv", "math", 16);
    REQUIRE(k, "compile: %s", tj_last_error);
    enum { N = 64 };
    uint64_t s = 99;
    float *x = malloc(N * 16), *y = malloc(N * 16), *of = calloc(N * 64, 4), *o3 = calloc(N * 3, 4);
    double *dx = malloc(N * 16), *od = calloc(N * 10, 8);
    uint16_t *hx = malloc(N * 8), *oh = calloc(1024 + N, 2);
    int32_t *oi = calloc(N * 4, 4);
    for (uint32_t i = 0; i < 4 * N; i++) {
        x[i] = test_rand_float(&s, -4.0f, 4.0f);
        y[i] = test_rand_float(&s, -3.0f, 3.0f);
        if (i % 17 == 3)
            y[i] = 0.0f;
        hx[i] = d2h(test_rand_float(&s, -100.0f, 100.0f), RTE);
    }
    for (uint32_t i = 0; i < 2 * N; i++)
        dx[i] = test_rand_float(&s, -5.0f, 5.0f) * 1.0000001;
    void *args[9] = { &x, &y, &dx, &hx, &of, &od, &oh, &o3, &oi };
    tj_dispatch d = { .args = args, .work_dim = 1, .global_size = { N, 1, 1 } };
    REQUIRE(tj_run(k, &d) == 0, "run");
    int bad = 0;
    for (uint32_t i = 0; i < N; i++)
        for (int l = 0; l < 4; l++) {
            double a = x[4 * i + l], b = y[4 * i + l];
            int e;
            double mant = frexp(b, &e);
            double want[16] = { sin(a),
                                cos(a),
                                exp(a),
                                log(fabs(b) + 0.5),
                                pow(fabs(a), b),
                                sqrt(fabs(b)),
                                (double)fmaf((float)a, (float)b, (float)a),
                                a + (b - a) * 0.25,
                                a < -0.5   ? -0.5
                                : a > 0.75 ? 0.75
                                           : a,
                                a + b,
                                1.0 / sqrt(fabs(a) + 1.0),
                                atan2(a, b),
                                a,
                                (b - trunc(b)) + trunc(b) * 2.0,
                                mant,
                                floor(a) + ceil(b) * 3.0 + round(a) * 7.0 };
            for (int j = 0; j < 16; j++) {
                float got = of[64 * i + 4 * j + l];
                if (!close_d(got, want[j], 1e-5, 2e-6) && bad++ < 8)
                    CHECK(0, "item %u lane %d result %d: got %.9g, expected %.9g (a=%.9g b=%.9g)", i, l, j, got,
                          want[j], a, b);
            }
            if (oi[4 * i + l] != e && bad++ < 8)
                CHECK(0, "frexp exponent of %g: got %d", b, oi[4 * i + l]);
            if (l < 3 && o3[3 * i + l] != x[3 * i + l] * 2.0f + (float)(l + 1) && bad++ < 8)
                CHECK(0, "vstore3 item %u lane %d: got %g", i, l, o3[3 * i + l]);
            double h = h2d(hx[4 * i + l]);
            uint16_t hw[4] = { d2h(h * 3.0, RTE), d2h(a, RTZ), d2h(a, RTP), d2h(a, RTN) };
            for (int r = 0; r < 4; r++)
                if (oh[4 * (i + 64 * r) + l] != hw[r] && bad++ < 8)
                    CHECK(0, "vstore_half mode %d item %u lane %d: got 0x%04x, expected 0x%04x (%.9g)", r, i, l,
                          oh[4 * (i + 64 * r) + l], hw[r], r ? a : h * 3.0);
        }
    for (uint32_t i = 0; i < N; i++) {
        double h0 = h2d(hx[4 * i]), h1 = h2d(hx[4 * i + 1]), h2 = h2d(hx[4 * i + 2]);
        uint16_t want = d2h(h2d(d2h(h0 * h1, RTE)) + h2, RTE);
        if (oh[1024 + i] != want && bad++ < 8)
            CHECK(0, "half arithmetic item %u: got 0x%04x, expected 0x%04x", i, oh[1024 + i], want);
        for (int l = 0; l < 2; l++) {
            double v = dx[2 * i + l], w = dx[2 * i + (l ^ 1)];
            double want2[5] = { exp(v), log1p(fabs(v)), hypot(v, w), cbrt(v), fmod(v, l ? -1.25 : 0.75) };
            for (int j = 0; j < 5; j++)
                if (!close_d(od[10 * i + 2 * j + l], want2[j], 1e-13, 1e-300) && bad++ < 8)
                    CHECK(0, "double item %u lane %d result %d: got %.17g, expected %.17g", i, l, j,
                          od[10 * i + 2 * j + l], want2[j]);
        }
    }
    free(x);
    free(y);
    free(of);
    free(o3);
    free(dx);
    free(od);
    free(hx);
    free(oh);
    free(oi);
    spvjit_kernel_free(k);
    spv_module_free(m);
}

/* --- control flow, by-value struct, __constant, printf (cl_ctrl.cl) ----------------------- */

typedef struct cl_params {
    int32_t mode;
    float scale;
    int64_t offset;
    char tag;
} cl_params;
static const int32_t ctrl_table[8] = { 3, -1, 4, 1, -5, 9, -2, 6 };

static int32_t classify_ref(int32_t v, const cl_params *p)
{
    switch ((v ^ p->mode) % 9) {
    case 0:
        return v + 1;
    case 1:
    case 2:
        return v * 3;
    case 3:
        return ctrl_table[v & 7] * 10;
    case 5:
        return -v;
    case -4:
    case 8:
        return v - 7;
    default:
        return (int32_t)((float)v * p->scale) + (int32_t)p->offset + p->tag;
    }
}

static int32_t collatz_ref(uint32_t v, int limit)
{
    int n = 0;
    while (v != 1 && n < limit) {
        v = (v & 1) ? 3 * v + 1 : v / 2;
        n++;
    }
    return n;
}

static int32_t sum_table_ref(int from, int to)
{
    int s = 0;
    for (int k = from; k < to; k++) {
        if (ctrl_table[k & 7] < 0)
            continue;
        if (s > 12)
            break;
        s += ctrl_table[k & 7];
    }
    return s;
}

static int32_t accumulate_ref(int32_t v)
{
    int32_t acc = 0, k = 0;
    do {
        if (((uint32_t)k * (uint32_t)v) & 4)
            acc += k;
        else
            acc ^= k << 2;
        if (acc > 200)
            return -1;
    } while (++k < (v & 31));
    return acc;
}

TEST(jit_cl_control_flow_struct_constant_printf)
{
    spv_module *m;
    jit_kernel *k = cl_kernel(&m, "jit/cl_ctrl.cl.spv", "ctrl", 8);
    REQUIRE(k, "compile: %s", tj_last_error);
    const spvjit_kernel_facts *f = spvjit_kernel_facts_of(k);
    REQUIRE(f->nparams == 3 && f->params[2].kind == SPVJIT_PARAM_VALUE && f->params[2].size == sizeof(cl_params),
            "by-value struct parameter: %u params, size %llu", f->nparams,
            f->nparams == 3 ? (unsigned long long)f->params[2].size : 0ull);
    enum { N = 300 };
    uint64_t s = 5;
    int32_t *in = malloc(N * 4), *out = malloc(N * 16);
    for (uint32_t i = 0; i < N; i++)
        in[i] = (int32_t)(test_rand_u64(&s) % 200001) - 100000;
    for (uint32_t i = 0; i < 4 * N; i++)
        out[i] = 0x5eed;
    cl_params p = { .mode = 0x35, .scale = 1.5f, .offset = 0x100000007ll, .tag = 'Q' };
    FILE *tmp = tmpfile();
    REQUIRE(tmp, "tmpfile");
    void *args[3] = { &in, &out, &p };
    tj_dispatch d = { .args = args, .work_dim = 1, .global_size = { N, 1, 1 }, .printf_stream = tmp };
    REQUIRE(tj_run(k, &d) == 0, "run");
    int bad = 0;
    for (uint32_t i = 0; i < N; i++) {
        int32_t acc = accumulate_ref(in[i]);
        int32_t want[4] = { classify_ref(in[i], &p), collatz_ref((uint32_t)(in[i] & 0xffff) + 1, 200),
                            sum_table_ref(in[i] & 7, (in[i] & 7) + ((in[i] >> 3) & 15)), acc < 0 ? 0x5eed : acc };
        for (int j = 0; j < 4; j++)
            if (out[4 * i + j] != want[j] && bad++ < 8)
                CHECK(0, "item %u word %d (v=%d): got %d, expected %d", i, j, in[i], out[4 * i + j], want[j]);
    }
    char got[512] = "", want[512];
    rewind(tmp);
    size_t n = fread(got, 1, sizeof got - 1, tmp);
    got[n] = 0;
    fclose(tmp);
    /* items 0 and 1 print, unless they returned early */
    size_t w = 0;
    want[0] = 0;
    for (int i = 0; i < 2; i++)
        if (accumulate_ref(in[i]) >= 0)
            w += (size_t)snprintf(want + w, sizeof want - w, "item %d: v=%d tag=Q scale=1.50 ok v2=%d,-3\n", i, in[i],
                                  in[i] & 7);
    CHECK(w > 0, "no item printed: choose other inputs");
    CHECK(!strcmp(got, want), "printf wrote\n\"%s\", expected\n\"%s\"", got, want);
    free(in);
    free(out);
    spvjit_kernel_free(k);
    spv_module_free(m);
}

/* --- local memory, atomics, barriers (cl_local.cl) ----------------------------------------- */

TEST(jit_cl_local_memory_atomics_barriers)
{
    spv_module *m;
    enum { LS = 64, G = 6, N = LS * G };
    jit_kernel *k = cl_kernel(&m, "jit/cl_local.cl.spv", "local_mem", LS);
    REQUIRE(k, "compile: %s", tj_last_error);
    const spvjit_kernel_facts *f = spvjit_kernel_facts_of(k);
    CHECK(f->uses_barriers && f->wg_mem_size >= (LS + 4) * 4, "facts: barriers %d, wg memory %llu", f->uses_barriers,
          (unsigned long long)f->wg_mem_size);
    CHECK(f->params[3].kind == SPVJIT_PARAM_LOCAL_PTR, "__local pointer parameter");
    uint64_t s = 77;
    int32_t *in = malloc(N * 4), *out = calloc(2 * N, 4), *gstat = calloc(8 + 4 * G, 4);
    for (uint32_t i = 0; i < N; i++)
        in[i] = rand_int(&s, i);
    gstat[2] = INT32_MAX;
    gstat[3] = INT32_MIN;
    uint64_t local_off = tj_local_offset(k);
    void *args[4] = { &in, &out, &gstat, &local_off };
    tj_dispatch d = {
        .args = args, .work_dim = 1, .global_size = { N, 1, 1 }, .extra_wg_mem = tj_local_extra(k, LS * 4)
    };
    REQUIRE(tj_run(k, &d) == 0, "run");
    int bad = 0;
    int32_t all_min = INT32_MAX, all_max = INT32_MIN;
    uint32_t all_sum = 0, all_xor = 0, all_umax = 0;
    for (uint32_t g = 0; g < G; g++) {
        const int32_t *v = in + g * LS;
        uint32_t sum = 0, sum8 = 0;
        int32_t mn = INT32_MAX, mx = INT32_MIN;
        for (int l = 0; l < LS; l++) {
            sum += (uint32_t)v[l];
            sum8 += (uint32_t)v[l] & 0xff;
            mn = v[l] < mn ? v[l] : mn;
            mx = v[l] > mx ? v[l] : mx;
            all_sum += (uint32_t)v[l] & 0xfff;
            all_xor ^= (uint32_t)v[l];
            all_umax = (uint32_t)v[l] > all_umax ? (uint32_t)v[l] : all_umax;
        }
        all_min = mn < all_min ? mn : all_min;
        all_max = mx > all_max ? mx : all_max;
        for (int l = 0; l < LS; l++) {
            int32_t w0 = (int32_t)((uint32_t)v[LS - 1 - l] + 2u * (uint32_t)v[(l + 1) % LS]);
            if ((out[2 * (g * LS + l)] != w0 || out[2 * (g * LS + l) + 1] != (int32_t)sum) && bad++ < 8)
                CHECK(0, "group %u item %d: got %d %d, expected %d %d", g, l, out[2 * (g * LS + l)],
                      out[2 * (g * LS + l) + 1], w0, (int32_t)sum);
        }
        const int32_t *ls = gstat + 8 + 4 * g;
        CHECK(ls[0] == (int32_t)sum8 && ls[1] == LS && ls[2] == mn && ls[3] == mx,
              "group %u local atomics: %d %d %d %d, expected %d %d %d %d", g, ls[0], ls[1], ls[2], ls[3], (int32_t)sum8,
              LS, mn, mx);
    }
    CHECK(gstat[0] == (int32_t)all_sum && gstat[1] == N && gstat[2] == all_min && gstat[3] == all_max &&
              gstat[4] == (int32_t)all_xor && gstat[5] == N && (uint32_t)gstat[6] == all_umax,
          "global atomics: %d %d %d %d %d %d %u", gstat[0], gstat[1], gstat[2], gstat[3], gstat[4], gstat[5],
          (uint32_t)gstat[6]);
    free(in);
    free(out);
    free(gstat);
    spvjit_kernel_free(k);
    spv_module_free(m);
}

/* --- work-group collectives, async copies, dot products (cl_wg.cl) ------------------------- */

static int32_t dot_ref(const int32_t *a, const int32_t *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
}

static void workgroup_collectives(bool fibers)
{
    spv_module *m;
    enum { LS = 32, G = 5, N = LS * G, NI = 13 };
    jit_kernel *k = cl_kernel_on(&m, "jit/cl_wg.cl.spv", "wg", LS, fibers);
    REQUIRE(k, "compile: %s", tj_last_error);
    const spvjit_kernel_facts *f = spvjit_kernel_facts_of(k);
    /* the scratch slots of the collectives are work-group memory too */
    CHECK(f->uses_barriers && f->wg_mem_size >= (LS + LS / 2) * 4 + LS * 8, "facts: barriers %d, wg memory %llu",
          f->uses_barriers, (unsigned long long)f->wg_mem_size);
    uint64_t s = 31;
    int32_t *in = malloc(N * 4), *out = calloc(N * NI, 4), *copy_out = calloc(4096 + 4 * N, 4);
    float *fin = malloc(N * 4), *fout = calloc(4 * N, 4);
    uint8_t *ua = malloc(4 * N);
    int8_t *sb = malloc(4 * N);
    for (uint32_t i = 0; i < N; i++) {
        in[i] = (int32_t)(test_rand_u64(&s) % 2001) - 1000;
        if (i % 97 == 5)
            in[i] = 77;
        fin[i] = test_rand_float(&s, -10.0f, 10.0f);
    }
    for (uint32_t i = 0; i < 4 * N; i++) {
        ua[i] = (uint8_t)test_rand_u64(&s);
        sb[i] = (int8_t)test_rand_u64(&s);
    }
    in[LS + 3] = -950; /* group 1: work_group_all is false */
    void *args[7] = { &in, &fin, &out, &fout, &copy_out, &ua, &sb };
    tj_dispatch d = { .args = args, .work_dim = 1, .global_size = { N, 1, 1 } };
    REQUIRE(tj_run(k, &d) == 0, "run");
    int bad = 0;
    for (uint32_t g = 0; g < G; g++) {
        const int32_t *v = in + g * LS;
        const float *fv = fin + g * LS;
        int64_t sum = 0, lsum = 0;
        int32_t mn = INT32_MAX, mx = INT32_MIN;
        uint32_t umx = 0;
        bool all = true, any = false;
        float fsum = 0.0f, fmn = INFINITY;
        for (int l = 0; l < LS; l++) {
            sum += v[l];
            lsum += (int64_t)v[l] * 1000003;
            mn = v[l] < mn ? v[l] : mn;
            mx = v[l] > mx ? v[l] : mx;
            umx = (uint32_t)v[l] > umx ? (uint32_t)v[l] : umx;
            all = all && v[l] > -900;
            any = any || v[l] == 77;
            fsum += fv[l];
            fmn = fv[l] < fmn ? fv[l] : fmn;
        }
        int32_t isum = 0, imax = INT32_MIN, emin = INT32_MAX;
        uint32_t iumin = UINT32_MAX;
        float fscan = 0.0f, fexmax = -INFINITY;
        for (int l = 0; l < LS; l++) {
            int32_t want[NI] = { all, any,  v[g % LS], (int32_t)sum,        mn, mx, (int32_t)umx, 0, isum,
                                 0,   emin, 0,         (int32_t)(lsum >> 3) };
            isum += v[l];
            imax = v[l] > imax ? v[l] : imax;
            iumin = (uint32_t)v[l] < iumin ? (uint32_t)v[l] : iumin;
            want[7] = isum;
            want[9] = imax;
            want[11] = (int32_t)iumin;
            emin = v[l] < emin ? v[l] : emin;
            const int32_t *o = out + NI * (g * LS + l);
            for (int j = 0; j < NI; j++)
                if (o[j] != want[j] && bad++ < 8)
                    CHECK(0, "group %u item %d collective %d: got %d, expected %d", g, l, j, o[j], want[j]);
            float fexpect[4] = { fsum, fmn, fscan + fv[l], fexmax };
            fscan += fv[l];
            const float *fo = fout + 4 * (g * LS + l);
            for (int j = 0; j < 4; j++)
                if (!tj_close(fo[j], fexpect[j], 1e-5f) && bad++ < 8)
                    CHECK(0, "group %u item %d float collective %d: got %.9g, expected %.9g", g, l, j, fo[j],
                          fexpect[j]);
            fexmax = fv[l] > fexmax ? fv[l] : fexmax;
            /* async copies */
            int32_t mixed = (int32_t)((uint32_t)v[(l + 1) % LS] * 3u + (uint32_t)v[1 + 2 * (l / 2)]);
            if (copy_out[g * LS + l] != mixed && bad++ < 8)
                CHECK(0, "async copy group %u item %d: got %d, expected %d", g, l, copy_out[g * LS + l], mixed);
            if (copy_out[2048 + g * LS * 2 + 2 * l] != mixed && bad++ < 8)
                CHECK(0, "strided async copy group %u item %d: got %d, expected %d", g, l,
                      copy_out[2048 + g * LS * 2 + 2 * l], mixed);
        }
    }
    for (uint32_t i = 0; i < N; i++) {
        int32_t a[4], b[4], bw[4], ay[4], by[4];
        for (int j = 0; j < 4; j++) {
            a[j] = ua[4 * i + j];
            b[j] = sb[4 * i + j];
            bw[j] = sb[4 * i + 3 - j];
            ay[j] = ua[4 * i + (j ^ 1)];
            by[j] = sb[4 * i + (j + 1) % 4];
        }
        int64_t acc = (int64_t)dot_ref(b, by) + (in[i] > 500 ? 0x7fffff00 : in[i] < -500 ? INT32_MIN + 0x100 : in[i]);
        int32_t want[4] = { dot_ref(a, b), dot_ref(b, bw), dot_ref(a, ay),
                            (int32_t)clamp64(acc, INT32_MIN, INT32_MAX) };
        for (int j = 0; j < 4; j++)
            if (copy_out[4096 + 4 * i + j] != want[j] && bad++ < 8)
                CHECK(0, "dot product %d of item %u: got %d, expected %d", j, i, copy_out[4096 + 4 * i + j], want[j]);
    }
    free(in);
    free(out);
    free(copy_out);
    free(fin);
    free(fout);
    free(ua);
    free(sb);
    spvjit_kernel_free(k);
    spv_module_free(m);
}

/* Both barrier strategies; the barrier-region one only without ASan: this kernel has
 * 35 barrier sites (two per collective), and building their regions takes seconds
 * (tens under ASan). */
#if defined(__SANITIZE_ADDRESS__)
#define TJ_SLOW_COMPILES 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TJ_SLOW_COMPILES 1
#endif
#endif
TEST(jit_cl_workgroup_collectives_async_copy_dot_fibers)
{
    workgroup_collectives(true);
}
#ifndef TJ_SLOW_COMPILES
TEST(jit_cl_workgroup_collectives_async_copy_dot_regions)
{
    workgroup_collectives(false);
}
#endif
