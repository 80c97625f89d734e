/* testdata/tests/test_jit_subgroup.c — every sub-group operation through the
 * JIT, in both flavours, against C references over the active lanes of each
 * sub-group: testdata/jit/subgroup_ops.comp (GL_KHR_shader_subgroup_*) and
 * testdata/jit/cl_v14_subgroup_ops.cl (cl_khr_subgroups and its extensions),
 * at sub-group sizes 1, 4, 8, 16 and 32, with full sub-groups, a partial last
 * one (local sizes that are not multiples of the size) and divergent lane sets
 * (random items inactive, loops left item by item, values from a divergent
 * branch).  Results the rules leave undefined (a shuffle from an inactive or
 * absent lane, a broadcast of one) are not checked.
 *
 * The model: item g of a 1-D dispatch with local size LS is lane lx % W of
 * sub-group lx / W of its work-group (lx = g % LS); the last sub-group of a
 * group has LS % W lanes when W does not divide LS.  The kernels' inputs are
 * small integers and signed powers of two, so float sums and products are
 * exact in any order. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "test_jit_util.h"

enum { NOUT = 72, MAXITEMS = 256 };

typedef struct item {
    int32_t x;
    uint32_t y;
    float f;
    int32_t act;
} item;

/* The sub-group of item g: its lanes are items [s0, s1); lane = g - s0. */
typedef struct sg {
    const item *in;
    int s0, s1, lane, w;
    bool on[64]; /* lane active */
} sg;

static sg sg_of(const item *in, int g, int ls, int w)
{
    sg s = { .in = in, .w = w };
    int g0 = g / ls * ls, lx = g - g0;
    s.s0 = g0 + lx / w * w;
    s.s1 = s.s0 + w < g0 + ls ? s.s0 + w : g0 + ls;
    s.lane = g - s.s0;
    for (int l = 0; l < w; l++)
        s.on[l] = s.s0 + l < s.s1 && in[s.s0 + l].act;
    return s;
}

/* Whether lane l exists and is active. */
static bool live(const sg *s, long l)
{
    return l >= 0 && l < s->w && s->on[l];
}

static const item *at(const sg *s, int l)
{
    return &s->in[s->s0 + l];
}

typedef enum { ADD, MUL, MIN, MAX, AND, OR, XOR, UMIN, UMAX } op;

static int32_t iop(op o, int32_t a, int32_t b)
{
    switch (o) {
    case ADD:
        return (int32_t)((uint32_t)a + (uint32_t)b);
    case MUL:
        return (int32_t)((uint32_t)a * (uint32_t)b);
    case MIN:
        return a < b ? a : b;
    case MAX:
        return a > b ? a : b;
    case AND:
        return a & b;
    case OR:
        return a | b;
    case XOR:
        return a ^ b;
    case UMIN:
        return (uint32_t)a < (uint32_t)b ? a : b;
    default:
        return (uint32_t)a > (uint32_t)b ? a : b;
    }
}

static int32_t iid(op o)
{
    return o == MUL ? 1 : o == MIN ? INT_MAX : o == MAX ? INT_MIN : o == AND || o == UMIN ? -1 : 0;
}

static float fop(op o, float a, float b)
{
    return o == ADD ? a + b : o == MUL ? a * b : o == MIN ? fminf(a, b) : fmaxf(a, b);
}

static float fid(op o)
{
    return o == ADD ? 0.0f : o == MUL ? 1.0f : o == MIN ? INFINITY : -INFINITY;
}

/* The integer value the operation reads from lane l. */
typedef int32_t (*ival_fn)(const sg *s, int l);
static int32_t val_x(const sg *s, int l)
{
    return at(s, l)->x;
}
static int32_t val_x8(const sg *s, int l)
{
    return at(s, l)->x + 8;
}

/* Over the active lanes in [from, to). */
static int32_t ired(const sg *s, op o, ival_fn v, int from, int to)
{
    int32_t r = iid(o);
    for (int l = from; l < to; l++)
        if (live(s, l))
            r = iop(o, r, v(s, l));
    return r;
}

static float fred(const sg *s, op o, int from, int to)
{
    float r = fid(o);
    for (int l = from; l < to; l++)
        if (live(s, l))
            r = fop(o, r, at(s, l)->f);
    return r;
}

static int32_t fbits(float f)
{
    int32_t r;
    memcpy(&r, &f, 4);
    return r;
}

static int first_lane(const sg *s)
{
    for (int l = 0; l < s->w; l++)
        if (s->on[l])
            return l;
    return -1;
}

static int last_lane(const sg *s)
{
    for (int l = s->w - 1; l >= 0; l--)
        if (s->on[l])
            return l;
    return -1;
}

static uint32_t ballot_of(const sg *s, bool (*pred)(const sg *s, int l))
{
    uint32_t r = 0;
    for (int l = 0; l < s->w && l < 32; l++)
        if (s->on[l] && pred(s, l))
            r |= 1u << l;
    return r;
}
static bool pos(const sg *s, int l)
{
    return at(s, l)->x > 0;
}
static bool below3(const sg *s, int l)
{
    (void)s;
    return l < 3;
}

/* Bits [from, to) of a 32-bit mask. */
static uint32_t range(int from, int to)
{
    uint32_t r = 0;
    for (int l = from; l < to && l < 32; l++)
        r |= 1u << l;
    return r;
}

static int popc(uint32_t v)
{
    int n = 0;
    for (; v; v &= v - 1)
        n++;
    return n;
}

/* One result: its value, or undefined (not checked). */
typedef struct want {
    int32_t v;
    bool defined;
} want;
#define W_(x) ((want){ (int32_t)(x), true })
#define UNDEF ((want){ 0, false })
/* what the test writes before the dispatch: a result the kernel does not write */
#define UNTOUCHED 0x5a5a5a5a

static want shuffle_from(const sg *s, long src, int32_t v)
{
    return live(s, src) ? W_(v) : UNDEF;
}

/* Ballots and masks, 16 results from r: ballot(x > 0) (word 0, words 1-3),
 * inverse ballot of the first active lane's y, bit extract of lane + 1,
 * the three bit counts, find LSB / MSB of ballot(true), broadcast of lane 1
 * and of the first, the Eq/Ge/Gt/Le/Lt masks of lanes below n. */
static void ballot_results(const sg *s, int lane, int n, want *r)
{
    int first = first_lane(s), last = last_lane(s);
    uint32_t ball = ballot_of(s, pos);
    r[0] = W_(ball);
    r[1] = W_(0);
    r[2] = W_(lane < 32 && (at(s, first)->y >> lane & 1));
    r[3] = W_(ball >> ((lane + 1) % n) & 1);
    r[4] = W_(popc(ball));
    r[5] = W_(popc(ball & range(0, lane + 1)));
    r[6] = W_(popc(ball & range(0, lane)));
    r[7] = W_(first);
    r[8] = W_(last);
    r[9] = shuffle_from(s, 1, live(s, 1) ? at(s, 1)->x : 0);
    r[10] = W_(at(s, first)->x);
    r[11] = W_(1u << lane);
    r[12] = W_(range(lane, n));
    r[13] = W_(range(lane + 1, n));
    r[14] = W_(range(0, lane + 1));
    r[15] = W_(range(0, lane));
}

/* The loop left item by item: iteration j runs the lanes whose y % 4 > j and adds (x + j) * (j + 1). */
static int32_t loop_acc(const sg *s, const item *me)
{
    int32_t acc = 0;
    for (uint32_t j = 0; j < me->y % 4; j++) {
        int32_t sum = 0;
        for (int l = 0; l < s->w; l++)
            if (s->on[l] && at(s, l)->y % 4 > j)
                sum += at(s, l)->x + (int32_t)j;
        acc += sum * (int32_t)(j + 1);
    }
    return acc;
}

/* The Vulkan results of item g (subgroup_ops.comp). */
static void glsl_refs(const item *in, int g, int ls, int w, want *r)
{
    sg s = sg_of(in, g, ls, w);
    const item *me = &in[g];
    if (!me->act) {
        for (int k = 0; k < NOUT; k++)
            r[k] = W_(UNTOUCHED);
        return;
    }
    int lane = s.lane, first = first_lane(&s);
    bool all1 = true, any1 = false, eqx = true, eqf = true, or3 = false, and7 = true;
    for (int l = 0; l < w; l++) {
        if (!s.on[l])
            continue;
        const item *it = at(&s, l);
        all1 &= it->x > -6;
        any1 |= it->x > 6;
        eqx &= it->x == at(&s, first)->x;
        eqf &= it->f == at(&s, first)->f;
        or3 |= it->x > 3;
        and7 &= it->x > -7;
    }
    r[0] = W_(w);
    r[1] = W_(lane);
    r[2] = W_((g % ls) / w);
    r[3] = W_((ls + w - 1) / w);
    r[4] = W_(lane == first);
    r[5] = W_(all1);
    r[6] = W_(any1);
    r[7] = W_(eqx + 2 + 4 * eqf);
    static const op ops[7] = { ADD, MUL, MIN, MAX, AND, OR, XOR };
    for (int k = 0; k < 7; k++)
        r[8 + k] = W_(ired(&s, ops[k], val_x, 0, w));
    r[15] = W_(ired(&s, ADD, val_x, 0, lane + 1));
    r[16] = W_(ired(&s, ADD, val_x, 0, lane));
    r[17] = W_(ired(&s, MIN, val_x, 0, lane + 1));
    r[18] = W_(ired(&s, MAX, val_x, 0, lane));
    r[19] = W_(ired(&s, MUL, val_x, 0, lane));
    r[20] = W_(ired(&s, XOR, val_x, 0, lane + 1));
    r[21] = W_(fbits(fred(&s, ADD, 0, w)));
    r[22] = W_(fbits(fred(&s, MIN, 0, w)));
    r[23] = W_(fbits(fred(&s, MAX, 0, w)));
    r[24] = W_(fbits(fred(&s, MUL, 0, w)));
    r[25] = W_(fbits(fred(&s, ADD, 0, lane + 1)));
    r[26] = W_(fbits(fred(&s, MUL, 0, lane)));
    r[27] = W_(ired(&s, UMIN, val_x8, 0, w));
    r[28] = W_(ired(&s, UMAX, val_x8, 0, lane));
    int c4 = w < 4 ? w : 4, c2 = w < 2 ? w : 2, c8 = w < 8 ? w : 8;
    r[29] = W_(ired(&s, ADD, val_x, lane / c4 * c4, lane / c4 * c4 + c4));
    r[30] = W_(ired(&s, MAX, val_x, lane / c2 * c2, lane / c2 * c2 + c2));
    r[31] = W_(ired(&s, OR, val_x, lane / c8 * c8, lane / c8 * c8 + c8));
    r[32] = W_(fbits(fred(&s, MUL, lane / c4 * c4, lane / c4 * c4 + c4)));
    r[33] = W_(me->x);
    r[34] = W_(or3);
    r[35] = W_(and7);
    ballot_results(&s, lane, w, r + 36);
    long src[] = {
        [52] = me->y % (uint32_t)w, [53] = lane ^ 1, [54] = lane ^ 6, [55] = lane - 1, [56] = lane + 2,
        [57] = (lane & ~3) | 1,     [58] = lane ^ 1, [59] = lane ^ 2, [60] = lane ^ 3, [61] = me->y % (uint32_t)w
    };
    for (int k = 52; k <= 61; k++)
        r[k] =
            shuffle_from(&s, src[k], live(&s, src[k]) ? (k == 61 ? fbits(at(&s, src[k])->f) : at(&s, src[k])->x) : 0);
    r[62] = W_(ired(&s, ADD, val_x, 0, w));
    int32_t sum2 = 0;
    for (int l = 0; l < w; l++)
        if (s.on[l])
            sum2 += 2 * at(&s, l)->x + 1;
    r[63] = W_(sum2);
    r[64] = W_(ired(&s, MAX, val_x, 0, w));
    double dsum = 0;
    for (int l = 0; l < w; l++)
        if (s.on[l])
            dsum += at(&s, l)->f;
    r[65] = W_(fbits((float)dsum));
    r[66] = W_(loop_acc(&s, me));
    int32_t z = INT_MIN;
    for (int l = 0; l < w; l++)
        if (s.on[l] && (at(&s, l)->y & 8))
            z = at(&s, l)->x > z ? at(&s, l)->x : z;
    r[67] = W_(((me->y & 8) ? z : 0) + ired(&s, MIN, val_x, 0, w));
    r[68] = shuffle_from(&s, lane - 3, live(&s, lane - 3) ? (int32_t)at(&s, lane - 3)->f : 0);
    r[69] = shuffle_from(&s, w - 1, live(&s, w - 1) ? at(&s, w - 1)->x : 0);
    r[70] = W_((lane == first) + 2);
    r[71] = W_(popc(ballot_of(&s, below3)));
}

static bool gt_m7(const sg *s, int l)
{
    return at(s, l)->x > -7;
}
static bool gt3(const sg *s, int l)
{
    return at(s, l)->x > 3;
}
static bool gt_m4(const sg *s, int l)
{
    return at(s, l)->x > -4;
}

/* Whether pred holds for every (and / or / odd number: xor) active lane in [from, to). */
static int32_t logical(const sg *s, op o, bool (*pred)(const sg *s, int l), int from, int to)
{
    int32_t r = o == AND;
    for (int l = from; l < to; l++)
        if (live(s, l))
            r = o == AND ? r & pred(s, l) : o == OR ? r | pred(s, l) : r ^ pred(s, l);
    return r;
}

/* The OpenCL results of item g (cl_v14_subgroup_ops.cl): a sub-group has
 * get_sub_group_size() items, its last one in a group fewer than W; the
 * cl_khr_subgroups functions see all of them, the non-uniform ones the
 * active items. */
static void cl_refs(const item *in, int g, int ls, int w, want *r)
{
    sg s = sg_of(in, g, ls, w), u = s;
    int n = s.s1 - s.s0, lane = s.lane;
    for (int l = 0; l < w; l++)
        u.on[l] = l < n;
    const item *me = &in[g];
    bool all1 = true, any1 = false;
    for (int l = 0; l < n; l++) {
        all1 &= at(&u, l)->x > -6;
        any1 |= at(&u, l)->x > 6;
    }
    r[0] = W_(n);
    r[1] = W_(w);
    r[2] = W_((ls + w - 1) / w);
    r[3] = W_((g % ls) / w);
    r[4] = W_(lane);
    r[5] = W_((ls + w - 1) / w);
    r[6] = W_(all1);
    r[7] = W_(any1);
    r[8] = W_(at(&u, n - 1)->x);
    r[9] = W_(ired(&u, ADD, val_x, 0, w));
    r[10] = W_(ired(&u, MIN, val_x, 0, w));
    r[11] = W_(ired(&u, MAX, val_x, 0, w));
    r[12] = W_(ired(&u, ADD, val_x, 0, lane + 1));
    r[13] = W_(ired(&u, ADD, val_x, 0, lane));
    r[14] = W_(ired(&u, MIN, val_x, 0, lane + 1));
    r[15] = W_(ired(&u, MAX, val_x, 0, lane));
    r[16] = W_(fbits(fred(&u, ADD, 0, w)));
    r[17] = W_(fbits(fred(&u, ADD, 0, lane)));
    r[18] = W_(ired(&u, MAX, val_x, 0, w));
    r[19] = W_(ired(&u, UMIN, val_x8, 0, w));
    double dsum = 0;
    for (int l = 0; l < n; l++)
        dsum += at(&u, l)->f;
    r[20] = W_(fbits((float)dsum));
    r[21] = W_(ired(&u, ADD, val_x, 0, w));
    r[22] = W_(ired(&u, MAX, val_x, 0, lane + 1));
    r[23] = W_(ired(&u, UMIN, val_x8, 0, w));
    r[24] = W_(at(&u, 0)->x);
    r[25] = W_(at(&u, 0)->x * 100 - at(&u, 0)->x);
    if (!me->act) {
        for (int k = 26; k < NOUT; k++)
            r[k] = W_(UNTOUCHED);
        return;
    }
    int first = first_lane(&s);
    bool eqx = true, eqf = true;
    for (int l = 0; l < w; l++)
        if (s.on[l]) {
            eqx &= at(&s, l)->x == at(&s, first)->x;
            eqf &= at(&s, l)->f == at(&s, first)->f;
        }
    r[26] = W_(lane == first);
    bool a6 = true, y6 = false;
    for (int l = 0; l < w; l++)
        if (s.on[l]) {
            a6 &= at(&s, l)->x > -6;
            y6 |= at(&s, l)->x > 6;
        }
    r[27] = W_(a6);
    r[28] = W_(y6);
    r[29] = W_(eqx + 2 * eqf);
    static const op ops[7] = { ADD, MUL, MIN, MAX, AND, OR, XOR };
    for (int k = 0; k < 7; k++)
        r[30 + k] = W_(ired(&s, ops[k], val_x, 0, w));
    r[37] = W_(logical(&s, AND, gt_m7, 0, w));
    r[38] = W_(logical(&s, OR, gt3, 0, w));
    r[39] = W_(logical(&s, XOR, pos, 0, w));
    r[40] = W_(ired(&s, ADD, val_x, 0, lane + 1));
    r[41] = W_(ired(&s, MUL, val_x, 0, lane));
    r[42] = W_(ired(&s, MAX, val_x, 0, lane));
    r[43] = W_(fbits(fred(&s, MUL, 0, w)));
    r[44] = W_(fbits(fred(&s, ADD, 0, lane + 1)));
    r[45] = W_(ired(&s, XOR, val_x, 0, lane + 1));
    ballot_results(&s, lane, n, r + 46);
    long src[] = {
        [62] = me->y % (uint32_t)n, [63] = lane ^ 1, [64] = lane - 1, [65] = lane + 2, [66] = me->y % (uint32_t)n
    };
    for (int k = 62; k <= 66; k++)
        r[k] =
            shuffle_from(&s, src[k], live(&s, src[k]) ? (k == 66 ? fbits(at(&s, src[k])->f) : at(&s, src[k])->x) : 0);
    int c4 = w < 4 ? w : 4, c2 = w < 2 ? w : 2, c8 = w < 8 ? w : 8;
    r[67] = W_(ired(&s, ADD, val_x, lane / c4 * c4, lane / c4 * c4 + c4));
    r[68] = W_(ired(&s, MAX, val_x, lane / c2 * c2, lane / c2 * c2 + c2));
    r[69] = W_(ired(&s, OR, val_x, lane / c8 * c8, lane / c8 * c8 + c8));
    r[70] = W_(logical(&s, AND, gt_m4, lane / c4 * c4, lane / c4 * c4 + c4));
    r[71] = W_(loop_acc(&s, me));
}

static const float pows[3] = { 0.5f, 1.0f, 2.0f };

/* Random items: x in [-8, 8], y any, f a signed power of two, active with
 * probability act_pct %. */
static void fill(item *in, int n, int act_pct, uint64_t seed)
{
    uint64_t s = seed;
    for (int i = 0; i < n; i++) {
        in[i].x = (int32_t)(test_rand_u64(&s) % 17) - 8;
        in[i].y = (uint32_t)test_rand_u64(&s);
        in[i].f = pows[test_rand_u64(&s) % 3] * (test_rand_u64(&s) & 1 ? -1.0f : 1.0f);
        in[i].act = (int)(test_rand_u64(&s) % 100) < act_pct;
    }
}

typedef void (*refs_fn)(const item *in, int g, int ls, int w, want *r);

/* Checks out (NOUT per item) against the references; returns the mismatches. */
static int check_items(const char *what, const item *in, const int32_t *out, int n, int ls, int w, refs_fn refs,
                       int nout)
{
    int bad = 0;
    want r[NOUT];
    for (int g = 0; g < n; g++) {
        const int32_t *o = out + (size_t)g * nout;
        refs(in, g, ls, w, r);
        for (int k = 0; k < nout; k++)
            if (r[k].defined && o[k] != r[k].v && bad++ < 6)
                CHECK(0, "%s W=%d LS=%d item %d (lane %d) result %d: got %d (%#x), expected %d (%#x)", what, w, ls, g,
                      g % ls % w, k, o[k], (unsigned)o[k], r[k].v, (unsigned)r[k].v);
    }
    return bad;
}

/* The lane sets: full sub-groups, a partial last one, divergent, both. */
static const struct {
    int ls, groups, act_pct;
} shapes[] = {
    { 64, 2, 100 }, /* full */
    { 24, 3, 100 }, /* 24 = 16 + 8: partial at W 16 and 32 */
    { 64, 2, 70 },  /* divergent */
    { 20, 3, 60 },  /* partial and divergent */
    { 7, 4, 85 },   /* partial at every W > 4 */
};
static const unsigned sizes[] = { 1, 4, 8, 16, 32 };
enum { NSIZES = sizeof sizes / sizeof sizes[0], NRUNS = NSIZES + 1 };

/* Run r of the kernels: each SIMD size of sizes[], then the scalar path
 * (simd off, sub-groups of one). */
static unsigned run_size(unsigned r)
{
    return r < NSIZES ? sizes[r] : 1;
}

/* Runs every shape at every size, and on the scalar path.  Shapes of one work-group size
 * share a build (their inputs differ, not their code): a build at 32 lanes
 * takes seconds where a dispatch takes microseconds, so the builds are made
 * first, all at once (tj_compile_all). */
static void run_kernel(const char *file, refs_fn refs)
{
    enum { NSHAPES = sizeof shapes / sizeof shapes[0] };
    bool cl = strstr(file, ".cl.");
    spv_module *m = tj_load(file);
    REQUIRE(m, "load");
    spv_module *specialized[NSHAPES] = { 0 };
    unsigned build_of[NSHAPES]; /* the first shape of its work-group size */
    for (unsigned sh = 0; sh < NSHAPES; sh++) {
        build_of[sh] = sh;
        for (unsigned j = 0; j < sh && build_of[sh] == sh; j++)
            build_of[sh] = shapes[j].ls == shapes[sh].ls ? j : sh;
        if (build_of[sh] != sh || cl)
            continue;
        uint32_t id = 0;
        uint64_t bits = (uint64_t)shapes[sh].ls;
        REQUIRE(specialized[sh] = tj_specialize(m, &id, &bits, 1), "specialize");
    }
    /* a build for each run and work-group size: its first shape's */
    tj_build b[NRUNS * NSHAPES];
    jit_kernel *built[NRUNS * NSHAPES];
    unsigned nb = 0, build_at[NRUNS][NSHAPES];
    for (unsigned r = 0; r < NRUNS; r++)
        for (unsigned sh = 0; sh < NSHAPES; sh++) {
            if (build_of[sh] != sh)
                continue;
            tj_build *x = &b[build_at[r][sh] = nb++];
            *x = (tj_build){
                .m = cl ? m : specialized[sh],
                .o = { .opt_level = 2, .subgroup_size = run_size(r), .simd = r < NSIZES ? JIT_SIMD_AUTO : JIT_SIMD_OFF }
            };
            if (cl)
                x->o.local_size[0] = (uint32_t)shapes[sh].ls, x->o.local_size[1] = x->o.local_size[2] = 1;
        }
    REQUIRE(tj_compile_all(b, nb, built), "compile: %s", tj_last_error);
    for (unsigned r = 0; r < NRUNS; r++) {
        unsigned w = run_size(r);
        for (unsigned sh = 0; sh < NSHAPES; sh++) {
            jit_kernel *k = built[build_at[r][build_of[sh]]];
            CHECK(spvjit_kernel_facts_of(k)->subgroup_size == w, "W=%u: facts say %u", w,
                  spvjit_kernel_facts_of(k)->subgroup_size);
            int ls = shapes[sh].ls, n = ls * shapes[sh].groups;
            item in[MAXITEMS];
            fill(in, n, shapes[sh].act_pct, 77 + sh * 13 + w);
            int32_t *out = malloc((size_t)n * NOUT * 4);
            memset(out, 0x5a, (size_t)n * NOUT * 4);
            item *inp = in;
            void *args[2] = { in, out };
            if (cl) /* Kernel: pointers to the arguments */
                args[0] = &inp, args[1] = &out;
            uint64_t asz[2] = { sizeof(item) * (uint64_t)n, (uint64_t)n * NOUT * 4 };
            tj_dispatch d = { .args = args,
                              .arg_sizes = asz,
                              .nargs = TJ_COUNT(asz),
                              .groups = { (uint32_t)shapes[sh].groups, 1, 1 },
                              .work_dim = 1,
                              .global_size = { (uint64_t)n, 1, 1 } };
            REQUIRE(tj_run(k, &d) == 0, "run");
            check_items(file, in, out, n, ls, (int)w, refs, NOUT);
            free(out);
        }
    }
    for (unsigned i = 0; i < nb; i++)
        spvjit_kernel_free(built[i]);
    for (unsigned sh = 0; sh < NSHAPES; sh++)
        spv_module_free(specialized[sh]);
    spv_module_free(m);
}

TEST(jit_subgroup_glsl_sizes)
{
    run_kernel("jit/subgroup_ops.comp.spv", glsl_refs);
}

TEST(jit_subgroup_opencl_sizes)
{
    run_kernel("jit/cl_v14_subgroup_ops.cl.spv", cl_refs);
}

/* An OpenCL NDRange whose last group is smaller (its work-items' local ids
 * from the group's run-time size; in 1-D the linear index itself: simd_items.c):
 * every sub-group operation in the full groups and in the last, whose
 * sub-groups and their count come from its own size; only
 * get_enqueued_num_sub_groups counts the enqueued size's. */
static int enqueued_ls;

static void cl_refs_smaller(const item *in, int g, int ls, int w, want *r)
{
    cl_refs(in, g, ls, w, r);
    r[5] = W_((enqueued_ls + w - 1) / w);
}

TEST(jit_subgroup_opencl_smaller_last_group)
{
    static const struct {
        unsigned w;
        int ls, last;
    } cases[] = { { 8, 64, 21 }, { 4, 24, 7 }, { 16, 32, 17 } };
    enum { NCASES = sizeof cases / sizeof cases[0] };
    spv_module *m = tj_load("jit/cl_v14_subgroup_ops.cl.spv");
    REQUIRE(m, "load");
    tj_build b[NCASES];
    jit_kernel *built[NCASES];
    for (size_t c = 0; c < NCASES; c++)
        b[c] = (tj_build){
            .m = m, .o = { .opt_level = 2, .subgroup_size = cases[c].w, .local_size = { (uint32_t)cases[c].ls, 1, 1 } }
        };
    REQUIRE(tj_compile_all(b, NCASES, built), "compile: %s", tj_last_error);
    for (size_t c = 0; c < NCASES; c++) {
        unsigned w = cases[c].w;
        int ls = cases[c].ls, n = 2 * ls + cases[c].last;
        jit_kernel *k = built[c];
        item in[MAXITEMS];
        fill(in, n, 75, 31 + w);
        int32_t *out = malloc((size_t)n * NOUT * 4);
        memset(out, 0x5a, (size_t)n * NOUT * 4);
        item *inp = in;
        void *args[2] = { &inp, &out };
        uint64_t asz[2] = { sizeof(item) * (uint64_t)n, (uint64_t)n * NOUT * 4 };
        tj_dispatch d = {
            .args = args, .arg_sizes = asz, .nargs = TJ_COUNT(asz), .work_dim = 1, .global_size = { (uint64_t)n, 1, 1 }
        };
        REQUIRE(tj_run(k, &d) == 0, "run");
        enqueued_ls = ls;
        check_items("full groups", in, out, 2 * ls, ls, (int)w, cl_refs, NOUT);
        check_items("the smaller last group", in + 2 * ls, out + (size_t)2 * ls * NOUT, cases[c].last, cases[c].last,
                    (int)w, cl_refs_smaller, NOUT);
        free(out);
        spvjit_kernel_free(k);
    }
    spv_module_free(m);
}

/* bench/kernels/sgreduce.{comp,cl}: a work-group's sum as sub-group sums
 * (their order: the vectorizer's halving tree, lane i + h into lane i for h =
 * W/2 .. 1, absent lanes -0.0) added in order by work-item 0; bit for bit. */
static float tree_sum(const float *v, int w)
{
    float x[64];
    memcpy(x, v, (size_t)w * sizeof *x);
    for (int h = w / 2; h >= 1; h /= 2)
        for (int i = 0; i < h; i++)
            x[i] = x[i] + x[i + h];
    return x[0];
}

/* One dispatch of a built sgreduce over n = 5 * ls - 13 items: whole groups,
 * the last one's items past n adding 0; or (Kernel flavour, smaller) an
 * NDRange of n work-items, whose last group is smaller and has sub-groups of
 * its own items only (absent lanes -0.0). */
static void sgreduce_dispatch(const char *file, const jit_kernel *k, unsigned w, uint32_t ls, bool smaller)
{
    bool cl = strstr(file, ".cl.") != NULL;
    uint32_t n = 5 * ls - 13, ng = (n + ls - 1) / ls;
    float *src = malloc(n * 4), *part = calloc(ng, 4);
    uint64_t s = 4242 + w + ls;
    for (uint32_t i = 0; i < n; i++)
        src[i] = test_rand_float(&s, -1.0f, 1.0f);
    uint64_t local_off = tj_local_offset(k);
    void *sargs[2] = { src, part }, *kargs[4] = { &src, &part, &n, &local_off };
    uint64_t sizes[4] = { n * 4ull, ng * 4ull, sizeof n, ls * 4ull }; /* Kernel: one per argument */
    tj_dispatch d = { .args = cl ? kargs : sargs,
                      .arg_sizes = sizes,
                      .nargs = TJ_COUNT(sizes),
                      .push = &n,
                      .groups = { ng, 1, 1 },
                      .work_dim = 1,
                      .global_size = { smaller ? n : (uint64_t)ng * ls, 1, 1 },
                      .extra_wg_mem = cl ? tj_local_extra(k, ls * 4ull) : 0 };
    REQUIRE(tj_run(k, &d) == 0, "run");
    int bad = 0;
    for (uint32_t g = 0; g < ng; g++) {
        uint32_t gs = smaller && n - g * ls < ls ? n - g * ls : ls; /* the group's size */
        float acc = 0.0f;
        for (uint32_t s0 = 0; s0 < gs; s0 += w) {
            float v[64];
            for (unsigned l = 0; l < w; l++) {
                uint32_t lx = s0 + l, gid = g * ls + lx;
                v[l] = lx >= gs ? -0.0f : gid < n ? src[gid] : 0.0f;
            }
            acc += tree_sum(v, (int)w);
        }
        if (memcmp(&acc, &part[g], 4) && bad++ < 4)
            CHECK(0, "%s W=%u LS=%u%s group %u: %.9g, expected %.9g", file, w, ls,
                  smaller ? " (smaller last group)" : "", g, part[g], acc);
    }
    free(src);
    free(part);
}

static void sgreduce_run(const char *file, unsigned w, uint32_t ls)
{
    bool cl = strstr(file, ".cl.") != NULL;
    spv_module *m = tj_load(file);
    REQUIRE(m, "load");
    uint32_t id = 0;
    uint64_t bits = ls;
    spv_module *sm = cl ? m : tj_specialize(m, &id, &bits, 1);
    REQUIRE(sm, "specialize");
    spvjit_options o = { .opt_level = 2, .subgroup_size = w };
    if (cl)
        o.local_size[0] = ls, o.local_size[1] = o.local_size[2] = 1;
    jit_kernel *k = tj_compile(sm, NULL, &o);
    REQUIRE(k, "compile %s W=%u: %s", file, w, tj_last_error);
    sgreduce_dispatch(file, k, w, ls, false);
    if (cl)
        sgreduce_dispatch(file, k, w, ls, true);
    spvjit_kernel_free(k);
    if (sm != m)
        spv_module_free(sm);
    spv_module_free(m);
}

TEST(jit_subgroup_bench_sgreduce)
{
    for (unsigned i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (unsigned fl = 0; fl < 2; fl++) {
            const char *file = fl ? "../bench/kernels/sgreduce.cl.spv" : "../bench/kernels/sgreduce.comp.spv";
            sgreduce_run(file, sizes[i], 256);
            sgreduce_run(file, sizes[i], 40);
        }
}

/* --- a region without operations across lanes -------------------------------------------------------- */

static void keep_ir(void *user, const char *what, const char *text)
{
    char **ir = user;
    if (!strcmp(what, "ir") && !*ir)
        *ir = strdup(text);
}

/* testdata/jit/cl_v14_subgroup_regions.cl at sub-group size w on `tier`, in
 * groups of 5 x 4 over 13 x 9 work-items (smaller groups at both edges):
 * each item's sub-group is lx / w of its group's linear local index lx (over
 * the group's actual size), its lane lx % w.  The quick tier says it runs the
 * second region (sub-group numbers only) work-item by work-item, the
 * optimized tier runs it as lanes in the 5 x 4 groups and work-item by
 * work-item in the smaller ones (region_loops.c); the results are the C
 * model's on both. */
static void subgroup_regions_case(unsigned w, jit_tier tier)
{
    enum { LX = 5, LY = 4, GX = 13, GY = 9, N = GX * GY };
    spv_module *m = tj_load("jit/cl_v14_subgroup_regions.cl.spv");
    REQUIRE(m, "load");
    char *ir = NULL;
    spvjit_options o = { .local_size = { LX, LY, 1 },
                         .subgroup_size = w,
                         .tier = tier,
                         .emit = keep_ir,
                         .emit_user = &ir,
                         .emit_ir = true };
    jit_kernel *k = tj_compile(m, "subgroup_regions", &o);
    REQUIRE(k, "compile W=%u: %s", w, tj_last_error);
    bool quick = tier == JIT_TIER_QUICK;
    const char *note = "1 of 2 regions work-item by work-item (no operation across lanes)";
    CHECK(ir && (strstr(ir, note) != NULL) == quick && spvjit_kernel_facts_of(k)->subgroup_size == w,
          "W=%u %s tier: sub-groups of %u, first line %.*s", w, quick ? "quick" : "optimized",
          spvjit_kernel_facts_of(k)->subgroup_size, ir ? (int)strcspn(ir, "\n") : 0, ir ? ir : "");
    free(ir);
    int32_t src[N];
    uint32_t dst[4 * N], ref[4 * N];
    uint64_t s = 99 + w;
    for (int i = 0; i < N; i++)
        src[i] = (int32_t)(test_rand_u64(&s) % 201) - 100;
    for (int gy0 = 0; gy0 < GY; gy0 += LY)
        for (int gx0 = 0; gx0 < GX; gx0 += LX) {
            int sx = GX - gx0 < LX ? GX - gx0 : LX, sy = GY - gy0 < LY ? GY - gy0 : LY, n = sx * sy;
            int sums[LX * LY];
            for (int l = 0; l < n; l++) { /* the sum over l's sub-group */
                int s0 = l / (int)w * (int)w, s1 = s0 + (int)w < n ? s0 + (int)w : n, sum = 0;
                for (int j = s0; j < s1; j++)
                    sum += src[(gy0 + j / sx) * GX + gx0 + j % sx];
                sums[l] = sum;
            }
            for (int l = 0; l < n; l++) {
                uint32_t *r = &ref[4 * ((gy0 + l / sx) * GX + gx0 + l % sx)];
                r[0] = (uint32_t)sums[n - 1 - l];
                r[1] = (uint32_t)(l / (int)w) * 1000u + (uint32_t)(l % (int)w);
                r[2] = (uint32_t)((n + (int)w - 1) / (int)w) * 1000u + w;
                r[3] = (uint32_t)l;
            }
        }
    memset(dst, 0x5a, sizeof dst);
    int32_t *sp = src;
    uint32_t *dp = dst;
    uint64_t off = tj_local_offset(k);
    void *args[3] = { &sp, &dp, &off };
    uint64_t sizes[3] = { sizeof src, sizeof dst, LX * LY * 4 };
    tj_dispatch d = { .args = args,
                      .arg_sizes = sizes,
                      .nargs = TJ_COUNT(sizes),
                      .work_dim = 2,
                      .global_size = { GX, GY, 1 },
                      .extra_wg_mem = tj_local_extra(k, LX * LY * 4ull) };
    REQUIRE(tj_run(k, &d) == 0, "run");
    int bad = 0;
    for (int i = 0; i < 4 * N; i++)
        if (dst[i] != ref[i] && bad++ < 6)
            CHECK(0, "W=%u %s tier: item %d result %d: got %u, expected %u", w, quick ? "quick" : "optimized", i / 4,
                  i % 4, dst[i], ref[i]);
    spvjit_kernel_free(k);
    spv_module_free(m);
}

TEST_TIER_FREE(jit_subgroup_regions_work_item_by_work_item)
{
    static const unsigned ws[] = { 4, 8, 16 };
    for (unsigned i = 0; i < sizeof ws / sizeof ws[0]; i++) {
        subgroup_regions_case(ws[i], JIT_TIER_QUICK);
        subgroup_regions_case(ws[i], JIT_TIER_OPT);
    }
}
