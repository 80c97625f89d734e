/* testdata/tests/test_specialize.c — the specializer against SPIRV-Tools' optimizer.
 *
 * The oracle is `spirv-opt --set-spec-const-default-value ... --freeze-spec-const
 * --fold-spec-const-op-composite`: for every instruction in a function body,
 * each operand that was a spec constant in the input must hold the same value
 * (constants evaluated recursively) in our output as in spirv-opt's.  Where
 * spirv-opt leaves an OpSpecConstantOp unfolded (float arithmetic, most
 * conversions), or is known to fold wrongly (Bitcast of a vector to a wider
 * scalar gives 0 in 2023.1; VectorShuffle with an undefined lane crashes it),
 * a small reference evaluator in plain C (_Float16 for half) stands in.
 * Every module runs with its defaults and with random value sets; the output
 * must pass spirv-val and hold no OpSpecConstant* but pointer expressions.
 */
#include "harness.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <glob.h>
#include <unistd.h>
/* libspirv.h defines this constant with external linkage in C; keep ours apart from the library's */
#define kDefaultMaxIdBound test_specialize_kDefaultMaxIdBound
#include <spirv-tools/libspirv.h>
#undef kDefaultMaxIdBound

#include "spirv/module.h"
#include "spirv/operands.h"
#include "spirv/specialize.h"

/* --- helpers ------------------------------------------------------------------------------------ */

static uint32_t *assemble(const char *text, size_t *n)
{
    spv_context ctx = spvContextCreate(SPV_ENV_UNIVERSAL_1_5);
    spv_binary bin = NULL;
    spv_diagnostic d = NULL;
    uint32_t *w = NULL;
    if (spvTextToBinary(ctx, text, strlen(text), &bin, &d) == SPV_SUCCESS) {
        w = malloc(bin->wordCount * 4);
        memcpy(w, bin->code, bin->wordCount * 4);
        *n = bin->wordCount;
    } else {
        fprintf(stderr, "assemble: %s\n", d && d->error ? d->error : "?");
    }
    spvBinaryDestroy(bin);
    spvDiagnosticDestroy(d);
    spvContextDestroy(ctx);
    return w;
}

static spv_module *load_words(const uint32_t *w, size_t n, bool validate, spv_diag *d)
{
    spv_load_options o = { .skip_validation = !validate };
    return spv_module_load(w, n * 4, "test.spv", &o, d);
}

static spv_module *load_text(const char *text)
{
    size_t n;
    uint32_t *w = assemble(text, &n);
    if (!w)
        return NULL;
    spv_diag d;
    spv_module *m = load_words(w, n, true, &d);
    if (!m)
        fprintf(stderr, "load: %s\n", d.msg);
    free(w);
    return m;
}

/* One lane of a flattened constant: bits, and the float width (0: not a float). */
typedef struct lane {
    uint64_t bits;
    unsigned fw;
} lane;

static unsigned type_lanes(const spv_module *m, uint32_t type_id)
{
    const spv_type *t = spv_type_get(m, type_id);
    if (!t)
        return 0;
    switch (t->kind) {
    case SPV_TYPE_BOOL:
    case SPV_TYPE_INT:
    case SPV_TYPE_FLOAT:
    case SPV_TYPE_POINTER:
        return 1;
    case SPV_TYPE_VECTOR:
    case SPV_TYPE_MATRIX:
        return t->count * type_lanes(m, t->elem);
    case SPV_TYPE_ARRAY: {
        uint64_t len = 0;
        spv_const_u64(m, t->length_id, &len);
        return (unsigned)len * type_lanes(m, t->elem);
    }
    case SPV_TYPE_STRUCT: {
        unsigned s = 0;
        for (uint32_t i = 0; i < t->nmembers; i++)
            s += type_lanes(m, t->members[i]);
        return s;
    }
    default:
        return 0;
    }
}

/* Flattens a plain constant: 0 ok, 1 an OpSpecConstantOp remains, -1 not a constant. */
static int flatten(const spv_module *m, uint32_t id, lane *out, unsigned *n, unsigned max)
{
    const spv_inst *in = spv_def(m, id);
    const spv_id *x = spv_id_get(m, id);
    if (!in || !x)
        return -1;
    const spv_type *t = spv_type_get(m, in->type_id);
    switch (in->opcode) {
    case SpvOpConstant:
    case SpvOpConstantTrue:
    case SpvOpConstantFalse:
        if (*n >= max)
            return -1;
        out[(*n)++] = (lane){ x->scalar, t && t->kind == SPV_TYPE_FLOAT ? t->width : 0 };
        return 0;
    case SpvOpConstantNull: {
        unsigned k = type_lanes(m, in->type_id);
        for (unsigned i = 0; i < k && *n < max; i++)
            out[(*n)++] = (lane){ 0, 0 };
        return 0;
    }
    case SpvOpConstantComposite:
        for (uint32_t i = 0; i < spv_inst_nops(in); i++) {
            int r = flatten(m, spv_inst_op(in, i), out, n, max);
            if (r)
                return r;
        }
        return 0;
    case SpvOpSpecConstantOp:
        return 1;
    default:
        return -1;
    }
}

static bool lanes_equal(const lane *a, unsigned na, const lane *b, unsigned nb)
{
    if (na != nb)
        return false;
    for (unsigned i = 0; i < na; i++) {
        unsigned fw = a[i].fw ? a[i].fw : b[i].fw;
        if (fw) {
            uint64_t exp = fw == 16 ? 0x7c00 : fw == 32 ? 0x7f800000 : 0x7ff0000000000000ull;
            uint64_t man = fw == 16 ? 0x3ff : fw == 32 ? 0x7fffff : 0xfffffffffffffull;
            bool nan_a = (a[i].bits & exp) == exp && (a[i].bits & man),
                 nan_b = (b[i].bits & exp) == exp && (b[i].bits & man);
            if (nan_a && nan_b)
                continue;
        }
        if (a[i].bits != b[i].bits)
            return false;
    }
    return true;
}

/* --- the C reference for what spirv-opt leaves ---------------------------------------------------------- */

typedef struct rv {
    unsigned n;
    uint64_t l[256];
} rv; /* flattened lanes */

typedef struct valset {
    uint32_t n;
    uint32_t spec_id[64];
    uint64_t bits[64];
} valset;

static double fval(uint64_t b, unsigned w)
{
    if (w == 16) {
        uint16_t u = (uint16_t)b;
        _Float16 h;
        memcpy(&h, &u, 2);
        return h;
    }
    if (w == 32) {
        uint32_t u = (uint32_t)b;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    double d;
    memcpy(&d, &b, 8);
    return d;
}
static uint64_t fbits(double d, unsigned w)
{
    if (w == 16) {
        _Float16 h = (_Float16)d;
        uint16_t u;
        memcpy(&u, &h, 2);
        return u;
    }
    if (w == 32) {
        float f = (float)d;
        uint32_t u;
        memcpy(&u, &f, 4);
        return u;
    }
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}
static uint64_t msk(uint64_t v, unsigned w)
{
    return w >= 64 ? v : v & ((1ull << w) - 1);
}
static int64_t sx(uint64_t v, unsigned w)
{
    if (w == 0)
        return 0;
    return w >= 64 ? (int64_t)v : (int64_t)(msk(v, w) << (64 - w)) >> (64 - w);
}

/* Scalar/vector element info: kind 0 int, 1 float, 2 bool. */
static bool elem_of(const spv_module *m, uint32_t type_id, int *kind, unsigned *w, unsigned *n)
{
    const spv_type *t = spv_type_get(m, type_id);
    *n = 1;
    if (t && t->kind == SPV_TYPE_VECTOR) {
        *n = t->count;
        t = spv_type_get(m, t->elem);
    }
    if (!t || (t->kind != SPV_TYPE_INT && t->kind != SPV_TYPE_FLOAT && t->kind != SPV_TYPE_BOOL))
        return false;
    *kind = t->kind == SPV_TYPE_INT ? 0 : t->kind == SPV_TYPE_FLOAT ? 1 : 2;
    *w = t->kind == SPV_TYPE_BOOL ? 1 : t->width;
    return true;
}

/* Flat offset and type of the element at idx[0..n) inside type_id. */
static bool flat_offset(const spv_module *m, uint32_t type_id, const uint32_t *idx, uint32_t n, unsigned *off,
                        uint32_t *elem_type)
{
    *off = 0;
    for (uint32_t k = 0; k < n; k++) {
        const spv_type *t = spv_type_get(m, type_id);
        if (!t)
            return false;
        if (t->kind == SPV_TYPE_STRUCT) {
            for (uint32_t i = 0; i < idx[k]; i++)
                *off += type_lanes(m, t->members[i]);
            type_id = t->members[idx[k]];
        } else {
            *off += idx[k] * type_lanes(m, t->elem);
            type_id = t->elem;
        }
    }
    *elem_type = type_id;
    return true;
}

/* Evaluates `id` of the input module with the values in vs, independently of
 * the specializer: C arithmetic on exact-width types, _Float16 for half.
 * Undefined results follow the specializer's documented choices (division by
 * 0 -> 0, shifts past the width -> 0 / sign fill, float -> int saturates). */
static bool ref_eval(const spv_module *m, const valset *vs, uint32_t id, rv *r, char *why)
{
    const spv_inst *in = spv_def(m, id);
    const spv_id *x = spv_id_get(m, id);
    memset(r, 0, sizeof *r);
    if (!in) {
        sprintf(why, "%%%u: no definition", id);
        return false;
    }
    r->n = type_lanes(m, in->type_id);
    switch (in->opcode) {
    case SpvOpConstantNull:
        return true;
    case SpvOpConstant:
    case SpvOpConstantTrue:
    case SpvOpConstantFalse:
    case SpvOpSpecConstant:
    case SpvOpSpecConstantTrue:
    case SpvOpSpecConstantFalse:
        r->l[0] = x->scalar;
        for (uint32_t k = 0; k < vs->n; k++)
            if (x->spec_id != SPV_NONE && vs->spec_id[k] == x->spec_id)
                r->l[0] = vs->bits[k];
        return true;
    case SpvOpConstantComposite:
    case SpvOpSpecConstantComposite: {
        unsigned at = 0;
        for (uint32_t k = 0; k < spv_inst_nops(in); k++) {
            rv e;
            if (!ref_eval(m, vs, spv_inst_op(in, k), &e, why))
                return false;
            for (unsigned q = 0; q < e.n && at < 256; q++)
                r->l[at++] = e.l[q];
        }
        return true;
    }
    case SpvOpSpecConstantOp:
        break;
    default:
        sprintf(why, "%%%u: opcode %u", id, in->opcode);
        return false;
    }
    uint32_t op = spv_inst_op(in, 0);
    if (op == SpvOpCompositeExtract || op == SpvOpCompositeInsert) {
        bool ins = op == SpvOpCompositeInsert;
        uint32_t comp = spv_inst_op(in, ins ? 2 : 1);
        rv c, o;
        unsigned off;
        uint32_t et;
        if (!ref_eval(m, vs, comp, &c, why) || (ins && !ref_eval(m, vs, spv_inst_op(in, 1), &o, why)))
            return false;
        uint32_t first = ins ? 3 : 2;
        if (!flat_offset(m, spv_id_get(m, comp)->type_id, in->w + in->first_op + first, spv_inst_nops(in) - first, &off,
                         &et))
            return false;
        if (ins) {
            *r = c;
            for (unsigned q = 0; q < o.n; q++)
                r->l[off + q] = o.l[q];
        } else {
            for (unsigned q = 0; q < r->n; q++)
                r->l[q] = c.l[off + q];
        }
        return true;
    }
    if (op == SpvOpVectorShuffle) {
        rv v1, v2;
        if (!ref_eval(m, vs, spv_inst_op(in, 1), &v1, why) || !ref_eval(m, vs, spv_inst_op(in, 2), &v2, why))
            return false;
        for (unsigned i = 0; i < r->n; i++) {
            uint32_t c = spv_inst_op(in, 3 + i);
            r->l[i] = c == 0xFFFFFFFFu ? 0 : c < v1.n ? v1.l[c] : v2.l[c - v1.n];
        }
        return true;
    }
    rv a = { 0 }, b = { 0 }, c3 = { 0 };
    int ka = 0, kr, kb = 0;
    unsigned aw = 0, an = 0, w, n, bw = 0, bn = 0;
    uint32_t nargs = spv_inst_nops(in) - 1;
    if (!ref_eval(m, vs, spv_inst_op(in, 1), &a, why) || (nargs > 1 && !ref_eval(m, vs, spv_inst_op(in, 2), &b, why)) ||
        (nargs > 2 && !ref_eval(m, vs, spv_inst_op(in, 3), &c3, why)))
        return false;
    if (op == SpvOpSelect && a.n == 1) { /* whole objects */
        *r = a.l[0] ? b : c3;
        return true;
    }
    if (!elem_of(m, in->type_id, &kr, &w, &n) ||
        !elem_of(m, spv_id_get(m, spv_inst_op(in, 1))->type_id, &ka, &aw, &an) ||
        (nargs > 1 && !elem_of(m, spv_id_get(m, spv_inst_op(in, 2))->type_id, &kb, &bw, &bn))) {
        sprintf(why, "%%%u: operand types", id);
        return false;
    }
    if (op == SpvOpBitcast) {
        unsigned char bytes[128] = { 0 };
        for (unsigned k = 0; k < an; k++)
            memcpy(bytes + k * aw / 8, &a.l[k], aw / 8);
        for (unsigned i = 0; i < n; i++)
            memcpy(&r->l[i], bytes + i * w / 8, w / 8);
        return true;
    }
    for (unsigned i = 0; i < n; i++) {
        uint64_t ua = a.l[i], ub = b.l[i];
        int64_t sa = sx(ua, aw), sb = sx(ub, bw);
        double fa = fval(ua, aw), fb = fval(ub, bw);
        int64_t smin = aw >= 64 ? INT64_MIN : -((int64_t)1 << (aw - 1));
        uint64_t v;
        switch (op) {
        case SpvOpFAdd:
            v = fbits(w == 32 ? (double)((float)fa + (float)fb) : fa + fb, w);
            break;
        case SpvOpFSub:
            v = fbits(w == 32 ? (double)((float)fa - (float)fb) : fa - fb, w);
            break;
        case SpvOpFMul:
            v = fbits(w == 32 ? (double)((float)fa * (float)fb) : fa * fb, w);
            break;
        case SpvOpFDiv:
            v = fbits(w == 32 ? (double)((float)fa / (float)fb) : fa / fb, w);
            break;
        case SpvOpFRem:
            v = fbits(fmod(fa, fb), w);
            break;
        case SpvOpFMod: {
            double q = fmod(fa, fb);
            v = fbits(q != 0 && ((q < 0) != (fb < 0)) ? q + fb : q, w);
            break;
        }
        case SpvOpFNegate:
            v = ua ^ (1ull << (w - 1));
            break;
        case SpvOpFConvert:
            v = aw == 64 && w == 16 ? fbits((double)(_Float16)fa, 16) : fbits(fa, w);
            break;
        case SpvOpQuantizeToF16: {
            float q = (float)(_Float16)(float)fa;
            if (q != 0 && fabsf(q) < 0x1p-14f)
                q = copysignf(0, q);
            v = fbits(isnan(fa) ? fa : q, 32);
            break;
        }
        case SpvOpConvertSToF:
        case SpvOpConvertUToF: {
            bool sg = op == SpvOpConvertSToF;
            if (w == 16)
                v = fbits((double)(sg ? (_Float16)sa : (_Float16)ua), 16);
            else if (w == 32)
                v = fbits(sg ? (float)sa : (float)ua, 32);
            else
                v = fbits(sg ? (double)sa : (double)ua, 64);
            break;
        }
        case SpvOpConvertFToS: {
            long double lim = ldexpl(1, (int)w - 1);
            v = isnan(fa)   ? 0
                : fa >= lim ? msk(~0ull, w) >> 1
                : fa < -lim ? 1ull << (w - 1)
                            : msk((uint64_t)(int64_t)fa, w);
            break;
        }
        case SpvOpConvertFToU:
            v = isnan(fa) || fa <= -1 ? 0 : fa >= ldexpl(1, (int)w) ? msk(~0ull, w) : (uint64_t)fa;
            break;
        case SpvOpSConvert:
            v = (uint64_t)sa;
            break;
        case SpvOpUConvert:
            v = ua;
            break;
        case SpvOpIAdd:
            v = ua + ub;
            break;
        case SpvOpISub:
            v = ua - ub;
            break;
        case SpvOpIMul:
            v = ua * ub;
            break;
        case SpvOpUDiv:
            v = ub ? ua / ub : 0;
            break;
        case SpvOpUMod:
            v = ub ? ua % ub : 0;
            break;
        case SpvOpSDiv:
            v = sb == 0 || (sb == -1 && sa == smin) ? 0 : (uint64_t)(sa / sb);
            break;
        case SpvOpSRem:
            v = sb == 0 || sb == -1 ? 0 : (uint64_t)(sa % sb);
            break;
        case SpvOpSMod:
            v = sb == 0 || sb == -1 ? 0 : (uint64_t)(int64_t)((((__int128)sa % sb) + sb) % sb);
            break;
        case SpvOpSNegate:
            v = 0 - ua;
            break;
        case SpvOpNot:
            v = ~ua;
            break;
        case SpvOpBitwiseAnd:
            v = ua & ub;
            break;
        case SpvOpBitwiseOr:
            v = ua | ub;
            break;
        case SpvOpBitwiseXor:
            v = ua ^ ub;
            break;
        case SpvOpShiftLeftLogical:
            v = ub >= aw ? 0 : ua << ub;
            break;
        case SpvOpShiftRightLogical:
            v = ub >= aw ? 0 : ua >> ub;
            break;
        case SpvOpShiftRightArithmetic:
            v = ub >= aw ? (sa < 0 ? ~0ull : 0) : (uint64_t)(sa >> ub);
            break;
        case SpvOpIEqual:
            v = ua == ub;
            break;
        case SpvOpINotEqual:
            v = ua != ub;
            break;
        case SpvOpULessThan:
            v = ua < ub;
            break;
        case SpvOpSLessThan:
            v = sa < sb;
            break;
        case SpvOpUGreaterThan:
            v = ua > ub;
            break;
        case SpvOpSGreaterThan:
            v = sa > sb;
            break;
        case SpvOpULessThanEqual:
            v = ua <= ub;
            break;
        case SpvOpSLessThanEqual:
            v = sa <= sb;
            break;
        case SpvOpUGreaterThanEqual:
            v = ua >= ub;
            break;
        case SpvOpSGreaterThanEqual:
            v = sa >= sb;
            break;
        case SpvOpLogicalOr:
            v = ua || ub;
            break;
        case SpvOpLogicalAnd:
            v = ua && ub;
            break;
        case SpvOpLogicalEqual:
            v = !ua == !ub;
            break;
        case SpvOpLogicalNotEqual:
            v = !ua != !ub;
            break;
        case SpvOpLogicalNot:
            v = !ua;
            break;
        case SpvOpSelect:
            v = ua ? b.l[i] : c3.l[i];
            break;
        default:
            sprintf(why, "%%%u: no C reference for OpSpecConstantOp opcode %u", id, op);
            return false;
        }
        r->l[i] = kr == 2 ? v != 0 : msk(v, w);
    }
    (void)ka;
    (void)kb;
    (void)bn;
    return true;
}

/* --- running both and comparing ------------------------------------------------------------------------------ */

static uint32_t lit_words(void *ud, uint32_t id)
{
    const spv_module *m = ud;
    const spv_id *x = spv_id_get(m, id);
    if (!x)
        return 0;
    const spv_type *t = x->kind == SPV_ID_TYPE ? &x->type : spv_type_get(m, x->type_id);
    return t && (t->kind == SPV_TYPE_INT || t->kind == SPV_TYPE_FLOAT) ? (t->width > 32 ? 2 : 1) : 0;
}

static uint32_t *run_spirv_opt(const uint32_t *w, size_t n, const char *values, size_t *out_n)
{
    char in[64], out[64];
    snprintf(in, sizeof in, "/tmp/spvjit_spec_%d_in.spv", (int)getpid());
    snprintf(out, sizeof out, "/tmp/spvjit_spec_%d_out.spv", (int)getpid());
    FILE *f = fopen(in, "wb");
    if (!f)
        return NULL;
    fwrite(w, 4, n, f);
    fclose(f);
    char cmd[8192], set[4200] = "";
    if (*values)
        snprintf(set, sizeof set, "--set-spec-const-default-value \"%s\"", values);
    snprintf(cmd, sizeof cmd,
             "spirv-opt --skip-validation %s --freeze-spec-const --fold-spec-const-op-composite %s -o %s", set, in,
             out);
    char *log = NULL;
    int rc = test_run_capture(cmd, &log);
    if (rc)
        fprintf(stderr, "spirv-opt failed (%d): %s\n", rc, log ? log : "");
    free(log);
    size_t len = 0;
    uint32_t *r = rc ? NULL : test_read_file(out, &len);
    *out_n = len / 4;
    unlink(in);
    unlink(out);
    return r;
}

/* Defining opcode of the OpSpecConstantOp behind id, 0 otherwise. */
static uint32_t spec_op_of(const spv_module *m, uint32_t id)
{
    const spv_inst *in = spv_def(m, id);
    return in && in->opcode == SpvOpSpecConstantOp ? spv_inst_op(in, 0) : 0;
}

static bool opt_unreliable(const spv_module *m, uint32_t id)
{
    const spv_inst *in = spv_def(m, id);
    if (!in || in->opcode != SpvOpSpecConstantOp)
        return false;
    uint32_t op = spv_inst_op(in, 0);
    if (op == SpvOpBitcast)
        return true; /* SPIRV-Tools 2023.1 folds vector -> wider scalar Bitcast to 0 */
    if (op == SpvOpSConvert) {
        const spv_id *a = spv_id_get(m, spv_inst_op(in, 1));
        const spv_type *at = a ? spv_type_get(m, a->type_id) : NULL;
        if (at && at->kind == SPV_TYPE_VECTOR)
            at = spv_type_get(m, at->elem);
        if (at && !at->is_signed)
            return true; /* 2023.1 zero-extends an unsigned-typed operand; SConvert sign-extends */
    }
    if (op == SpvOpSelect) {
        const spv_id *cond = spv_id_get(m, spv_inst_op(in, 1));
        const spv_type *ct = cond ? spv_type_get(m, cond->type_id) : NULL;
        const spv_type *rt = spv_type_get(m, in->type_id);
        if (ct && ct->kind == SPV_TYPE_BOOL && rt && rt->kind == SPV_TYPE_VECTOR)
            return true; /* a scalar condition choosing vectors folds to zeros in 2023.1 */
    }
    if (op == SpvOpVectorShuffle)
        for (uint32_t k = 3; k < spv_inst_nops(in); k++)
            if (spv_inst_op(in, k) == 0xFFFFFFFFu)
                return true; /* crashes spirv-opt */
    for (uint32_t k = 1; k < spv_inst_nops(in); k++) {
        const spv_id *x = spv_id_get(m, spv_inst_op(in, k));
        if (x && (x->kind == SPV_ID_SPEC_CONSTANT) && opt_unreliable(m, spv_inst_op(in, k)))
            return true;
    }
    return false;
}

/* A shift by the width or more is undefined: spirv-opt and the specializer
 * may differ, so it is checked against the documented choice instead. */
static bool undefined_shift(const spv_module *m, const valset *vs, uint32_t id)
{
    const spv_inst *in = spv_def(m, id);
    if (!in || in->opcode != SpvOpSpecConstantOp)
        return false;
    uint32_t op = spv_inst_op(in, 0);
    if (op == SpvOpShiftLeftLogical || op == SpvOpShiftRightLogical || op == SpvOpShiftRightArithmetic) {
        rv amount;
        char why[128];
        int k;
        unsigned w, n;
        if (!elem_of(m, in->type_id, &k, &w, &n) || !ref_eval(m, vs, spv_inst_op(in, 2), &amount, why))
            return true;
        for (unsigned i = 0; i < n; i++)
            if (amount.l[i] >= w)
                return true;
    }
    for (uint32_t k = 1; k < spv_inst_nops(in); k++) {
        const spv_id *x = spv_id_get(m, spv_inst_op(in, k));
        if (x && x->kind == SPV_ID_SPEC_CONSTANT && undefined_shift(m, vs, spv_inst_op(in, k)))
            return true;
    }
    return false;
}

static bool module_has_unreliable(const spv_module *m)
{
    for (uint32_t i = 0; i < m->first_func_inst; i++)
        if (m->insts[i].opcode == SpvOpSpecConstantOp && spv_inst_op(&m->insts[i], 0) == SpvOpVectorShuffle &&
            opt_unreliable(m, m->insts[i].result_id))
            return true;
    return false;
}

/* Specializes `in` with values (ours) and opt_values (spirv-opt's text) and
 * compares.  Returns the number of operands compared. */
static int check_against_opt(const char *what, const spv_module *in, const uint32_t *in_words, size_t in_n,
                             const spv_spec_value *values, size_t nvalues, const valset *vs, const char *opt_values)
{
    spv_diag d;
    uint32_t *w = NULL;
    size_t n = 0;
    int rc = spv_specialize(in, values, nvalues, &w, &n, &d);
    CHECK(rc == 0, "%s: specialize: %s", what, d.msg);
    if (rc)
        return 0;
    bool input_valid = spv_validate_words(in_words, in_n, what, &d);
    if (input_valid)
        CHECK(spv_validate_words(w, n, what, &d), "%s: output does not validate: %s", what, d.msg);
    spv_module *mine = load_words(w, n, false, &d);
    CHECK(mine != NULL, "%s: reload: %s", what, d.msg);
    /* no spec constants left but pointer expressions */
    for (uint32_t i = 0; mine && i < mine->ninsts; i++) {
        uint32_t op = mine->insts[i].opcode;
        CHECK(op != SpvOpSpecConstant && op != SpvOpSpecConstantTrue && op != SpvOpSpecConstantFalse,
              "%s: %%%u is still a spec constant", what, mine->insts[i].result_id);
        if (op == SpvOpSpecConstantOp || op == SpvOpSpecConstantComposite) {
            const spv_type *t = spv_type_get(mine, mine->insts[i].type_id);
            uint32_t sop = op == SpvOpSpecConstantOp ? spv_inst_op(&mine->insts[i], 0) : 0;
            CHECK((t && t->kind == SPV_TYPE_POINTER) || sop == SpvOpConvertPtrToU,
                  "%s: %%%u left as spec constant op %u", what, mine->insts[i].result_id, sop);
        }
        if (op == SpvOpDecorate)
            CHECK(mine->insts[i].w[2] != SpvDecorationSpecId, "%s: SpecId left", what);
        if (op == SpvOpExecutionModeId)
            CHECK(mine->insts[i].w[2] != SpvExecutionModeLocalSizeId, "%s: LocalSizeId left", what);
    }
    int compared = 0;
    size_t on = 0;
    uint32_t *ow = module_has_unreliable(in) ? NULL : run_spirv_opt(in_words, in_n, opt_values, &on);
    spv_module *opt = ow ? load_words(ow, on, false, &d) : NULL;
    if (mine && in->nfuncs == mine->nfuncs) {
        spv_operand ops[256];
        for (uint32_t f = 0; f < in->nfuncs; f++) {
            const spv_function *fi = &in->funcs[f], *fm = &mine->funcs[f];
            const spv_function *fo = opt && opt->nfuncs == in->nfuncs ? &opt->funcs[f] : NULL;
            uint32_t len = fi->end - fi->inst;
            if (fm->end - fm->inst != len || (fo && fo->end - fo->inst != len)) {
                CHECK(false, "%s: function %u changed length", what, f);
                continue;
            }
            for (uint32_t k = 0; k < len; k++) {
                const spv_inst *ii = &in->insts[fi->inst + k], *im = &mine->insts[fm->inst + k];
                const spv_inst *io = fo ? &opt->insts[fo->inst + k] : NULL;
                int nops = spv_split_operands(ii->w, ii->nwords, lit_words, (void *)in, ops, 256, what, &d);
                for (int o = 0; o < nops; o++) {
                    if (!spv_operand_is_id(ops[o].kind) || ops[o].kind == SPV_OPERAND_IdResult ||
                        ops[o].kind == SPV_OPERAND_IdResultType)
                        continue;
                    for (uint32_t wi = ops[o].word; wi < ops[o].word + ops[o].nwords; wi++) {
                        uint32_t id = ii->w[wi];
                        const spv_id *x = spv_id_get(in, id);
                        if (!x || x->kind != SPV_ID_SPEC_CONSTANT)
                            continue;
                        lane lm[256], lo[256];
                        unsigned nm = 0, no = 0;
                        int rm = flatten(mine, im->w[wi], lm, &nm, 256);
                        CHECK(rm == 0, "%s: %%%u is not a plain constant in our output", what, id);
                        if (rm)
                            continue;
                        int ro = io && !opt_unreliable(in, id) && !undefined_shift(in, vs, id)
                                     ? flatten(opt, io->w[wi], lo, &no, 256)
                                     : 1;
                        if (ro == 0) {
                            CHECK(lanes_equal(lm, nm, lo, no),
                                  "%s: %%%u (op %u): ours %llx (%u lanes), spirv-opt %llx (%u)", what, id,
                                  spec_op_of(in, id), (unsigned long long)lm[0].bits, nm,
                                  (unsigned long long)lo[0].bits, no);
                        } else {
                            rv r;
                            char why[128] = "";
                            if (!ref_eval(in, vs, id, &r, why)) {
                                CHECK(false, "%s: %%%u: spirv-opt did not fold it and %s", what, id, why);
                                continue;
                            }
                            lane lr[256];
                            for (unsigned q = 0; q < r.n && q < 256; q++)
                                lr[q] = (lane){ r.l[q], 0 }; /* float widths come from ours */
                            CHECK(lanes_equal(lm, nm, lr, r.n), "%s: %%%u (op %u): ours %llx, C reference %llx", what,
                                  id, spec_op_of(in, id), (unsigned long long)lm[0].bits,
                                  (unsigned long long)lr[0].bits);
                        }
                        compared++;
                    }
                }
            }
        }
    }
    spv_module_free(opt);
    free(ow);
    spv_module_free(mine);
    free(w);
    return compared;
}

/* A random value for constant k: moderate, non-zero, exact in half for floats. */
static void random_value(uint64_t *s, const spv_spec_constant *k, spv_spec_value *v, uint64_t *bits, char *text)
{
    v->spec_id = k->spec_id;
    v->type = k->type;
    v->text = NULL;
    uint64_t r = test_rand_u64(s);
    switch (k->type) {
    case SPV_VALUE_BOOL:
        *bits = r & 1;
        sprintf(text, "%s", *bits ? "true" : "false");
        break;
    case SPV_VALUE_F16:
    case SPV_VALUE_F32:
    case SPV_VALUE_F64: {
        double d = (double)((int64_t)(r % 4000) - 2000) / 8.0;
        if (d == 0)
            d = 0.375;
        unsigned w = k->type == SPV_VALUE_F16 ? 16 : k->type == SPV_VALUE_F32 ? 32 : 64;
        *bits = fbits(d, w);
        sprintf(text, "%.17g", d);
        break;
    }
    default: {
        bool sg = k->type >= SPV_VALUE_I8 && k->type <= SPV_VALUE_I64;
        unsigned w = k->type == SPV_VALUE_I8 || k->type == SPV_VALUE_U8     ? 8
                     : k->type == SPV_VALUE_I16 || k->type == SPV_VALUE_U16 ? 16
                     : k->type == SPV_VALUE_I32 || k->type == SPV_VALUE_U32 ? 32
                                                                            : 64;
        int64_t x = (int64_t)(r % (w == 8 ? 100 : 1000)) + 1;
        if (sg && (r >> 20) & 1)
            x = -x;
        *bits = msk((uint64_t)x, w);
        sprintf(text, "%lld", (long long)x);
    }
    }
}

/* Defaults, then `sets` random value sets (half typed, half as text). */
static int check_module(const char *what, const uint32_t *words, size_t n, int sets, uint64_t seed)
{
    spv_diag d;
    spv_module *m = load_words(words, n, false, &d);
    if (!m) {
        CHECK(false, "%s: load: %s", what, d.msg);
        return 0;
    }
    spv_spec_constant *list = NULL;
    size_t nl = spv_spec_constants(m, &list);
    uint64_t s = seed;
    int compared = 0;
    for (int set = 0; set <= sets; set++) {
        spv_spec_value vals[64];
        valset vs = { 0 };
        char texts[64][48], opt[4096] = "";
        size_t nv = 0;
        if (set > 0)
            for (size_t k = 0; k < nl && nv < 64; k++) {
                if (k && list[k].spec_id == list[k - 1].spec_id)
                    continue;
                uint64_t bits;
                random_value(&s, &list[k], &vals[nv], &bits, texts[nv]);
                vals[nv].bits = bits;
                if (set % 2 == 0) { /* as text, parsed into the constant's type */
                    vals[nv].type = SPV_VALUE_AUTO;
                    vals[nv].text = texts[nv];
                }
                vs.spec_id[vs.n] = list[k].spec_id;
                vs.bits[vs.n++] = bits;
                size_t ol = strlen(opt);
                snprintf(opt + ol, sizeof opt - ol, "%s%u:%s", ol ? " " : "", list[k].spec_id, texts[nv]);
                nv++;
            }
        char name[256];
        snprintf(name, sizeof name, "%s (set %d)", what, set);
        if (getenv("SPEC_DEBUG"))
            fprintf(stderr, "%s: %s\n", name, opt);
        compared += check_against_opt(name, m, words, n, vals, nv, &vs, opt);
    }
    free(list);
    spv_module_free(m);
    return compared;
}

/* --- modules --------------------------------------------------------------------------------------------------- */

static const char shader_src[] =
    "OpCapability Shader\nOpCapability Int64\nOpCapability Int16\nOpCapability Float64\n"
    "OpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 1 1 1\n"
    "OpDecorate %a SpecId 0\nOpDecorate %b SpecId 1\nOpDecorate %fa SpecId 2\nOpDecorate %t SpecId 3\n"
    "OpDecorate %s16 SpecId 4\nOpDecorate %u SpecId 5\nOpDecorate %l SpecId 6\nOpDecorate %f SpecId 7\n"
    "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%u32 = OpTypeInt 32 0\n%i32 = OpTypeInt 32 1\n"
    "%i16 = OpTypeInt 16 1\n%i64 = OpTypeInt 64 1\n%bool = OpTypeBool\n%f32 = OpTypeFloat 32\n"
    "%v4i32 = OpTypeVector %i32 4\n%v2i32 = OpTypeVector %i32 2\n%v2bool = OpTypeVector %bool 2\n"
    "%st = OpTypeStruct %i32 %v2i32 %f32\n"
    "%a = OpSpecConstant %i32 7\n%b = OpSpecConstant %i32 -3\n%fa = OpSpecConstant %f32 1.5\n"
    "%t = OpSpecConstantTrue %bool\n%f = OpSpecConstantFalse %bool\n%s16 = OpSpecConstant %i16 -5\n"
    "%u = OpSpecConstant %u32 100\n%l = OpSpecConstant %i64 -4000000000\n"
    "%v = OpSpecConstantComposite %v2i32 %a %b\n%w = OpSpecConstantComposite %v2i32 %b %a\n"
    "%sh = OpSpecConstantOp %v4i32 VectorShuffle %v %w 3 0 1 2\n%ex = OpSpecConstantOp %i32 CompositeExtract %sh 1\n"
    "%ins = OpSpecConstantOp %v2i32 CompositeInsert %a %v 1\n%q = OpSpecConstantOp %f32 QuantizeToF16 %fa\n"
    "%s = OpSpecConstantComposite %st %a %v %fa\n%sx = OpSpecConstantOp %v2i32 CompositeExtract %s 1\n"
    "%sxx = OpSpecConstantOp %i32 CompositeExtract %s 1 0\n%si = OpSpecConstantOp %st CompositeInsert %b %s 1 1\n"
    "%cmp = OpSpecConstantOp %v2bool SLessThan %v %w\n%sel = OpSpecConstantOp %v2i32 Select %cmp %v %w\n"
    "%sel2 = OpSpecConstantOp %i32 Select %t %a %b\n%sc = OpSpecConstantOp %i64 SConvert %s16\n"
    "%srem = OpSpecConstantOp %i32 SRem %a %b\n%smod = OpSpecConstantOp %i32 SMod %a %b\n"
    "%sdiv = OpSpecConstantOp %i32 SDiv %a %b\n%sra = OpSpecConstantOp %i32 ShiftRightArithmetic %b %u\n"
    "%mul = OpSpecConstantOp %i32 IMul %a %b\n%sub = OpSpecConstantOp %i64 ISub %l %sc\n"
    "%udiv = OpSpecConstantOp %u32 UDiv %u %u\n%umod = OpSpecConstantOp %u32 UMod %u %u\n"
    "%lor = OpSpecConstantOp %bool LogicalOr %t %f\n%land = OpSpecConstantOp %bool LogicalAnd %t %f\n"
    "%leq = OpSpecConstantOp %bool LogicalEqual %t %f\n%lnot = OpSpecConstantOp %bool LogicalNot %t\n"
    "%ult = OpSpecConstantOp %bool ULessThan %u %u\n%sge = OpSpecConstantOp %bool SGreaterThanEqual %a %b\n"
    "%vadd = OpSpecConstantOp %v2i32 IAdd %v %w\n%vnot = OpSpecConstantOp %v2i32 Not %v\n"
    "%xor = OpSpecConstantOp %i32 BitwiseXor %a %b\n%neg = OpSpecConstantOp %i32 SNegate %a\n"
    "%main = OpFunction %void None %fn\n%lab = OpLabel\n"
    "%1 = OpCopyObject %v4i32 %sh\n%2 = OpCopyObject %i32 %ex\n%3 = OpCopyObject %v2i32 %ins\n"
    "%4 = OpCopyObject %f32 %q\n%5 = OpCopyObject %v2i32 %sx\n%6 = OpCopyObject %i32 %sxx\n"
    "%7 = OpCopyObject %st %si\n%8 = OpCopyObject %v2bool %cmp\n%9 = OpCopyObject %v2i32 %sel\n"
    "%10 = OpCopyObject %i32 %sel2\n%11 = OpCopyObject %i64 %sc\n%12 = OpCopyObject %i32 %srem\n"
    "%13 = OpCopyObject %i32 %sra\n%14 = OpCopyObject %i32 %smod\n%15 = OpCopyObject %i32 %sdiv\n"
    "%16 = OpCopyObject %i32 %mul\n%17 = OpCopyObject %i64 %sub\n%18 = OpCopyObject %u32 %udiv\n"
    "%19 = OpCopyObject %u32 %umod\n%20 = OpCopyObject %bool %lor\n%21 = OpCopyObject %bool %land\n"
    "%22 = OpCopyObject %bool %leq\n%23 = OpCopyObject %bool %lnot\n%24 = OpCopyObject %bool %ult\n"
    "%25 = OpCopyObject %bool %sge\n%26 = OpCopyObject %v2i32 %vadd\n%27 = OpCopyObject %v2i32 %vnot\n"
    "%28 = OpCopyObject %i32 %xor\n%29 = OpCopyObject %i32 %neg\n%30 = OpCopyObject %st %s\n"
    "%31 = OpCopyObject %bool %t\n%32 = OpCopyObject %f32 %fa\n"
    "OpReturn\nOpFunctionEnd\n";

static const char kernel_src[] =
    "OpCapability Addresses\nOpCapability Kernel\nOpCapability Int64\nOpCapability Float64\n"
    "OpCapability Float16\nOpCapability Int16\nOpCapability Int8\n"
    "OpMemoryModel Physical64 OpenCL\nOpEntryPoint Kernel %main \"main\"\n"
    "OpDecorate %a SpecId 0\nOpDecorate %b SpecId 1\nOpDecorate %fa SpecId 2\nOpDecorate %fb SpecId 3\n"
    "OpDecorate %ha SpecId 4\nOpDecorate %da SpecId 5\n"
    "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%u32 = OpTypeInt 32 0\n%u64 = OpTypeInt 64 0\n"
    "%u16 = OpTypeInt 16 0\n%u8 = OpTypeInt 8 0\n%f32 = OpTypeFloat 32\n%f64 = OpTypeFloat 64\n"
    "%f16 = OpTypeFloat 16\n%v2u32 = OpTypeVector %u32 2\n%v2f32 = OpTypeVector %f32 2\n%v4u16 = OpTypeVector %u16 4\n"
    "%a = OpSpecConstant %u32 7\n%b = OpSpecConstant %u32 3\n%fa = OpSpecConstant %f32 1.5\n"
    "%fb = OpSpecConstant %f32 -2.25\n%ha = OpSpecConstant %f16 1.5\n%da = OpSpecConstant %f64 -7.125\n"
    "%fadd = OpSpecConstantOp %f32 FAdd %fa %fb\n%fsub = OpSpecConstantOp %f32 FSub %fa %fb\n"
    "%fmul = OpSpecConstantOp %f32 FMul %fa %fb\n%fdiv = OpSpecConstantOp %f32 FDiv %fa %fb\n"
    "%fmod = OpSpecConstantOp %f32 FMod %fa %fb\n%frem = OpSpecConstantOp %f32 FRem %fa %fb\n"
    "%cvt = OpSpecConstantOp %u32 ConvertFToS %fb\n%cvu = OpSpecConstantOp %u16 ConvertFToU %ha\n"
    "%stof = OpSpecConstantOp %f32 ConvertSToF %a\n%utoh = OpSpecConstantOp %f16 ConvertUToF %a\n"
    "%fneg = OpSpecConstantOp %f32 FNegate %fa\n%fc = OpSpecConstantOp %f64 FConvert %fa\n"
    "%dc = OpSpecConstantOp %f16 FConvert %da\n%hadd = OpSpecConstantOp %f16 FAdd %ha %ha\n"
    "%hmul = OpSpecConstantOp %f16 FMul %ha %ha\n%dmod = OpSpecConstantOp %f64 FMod %da %fc\n"
    "%bc = OpSpecConstantOp %u32 Bitcast %fa\n%vec = OpSpecConstantComposite %v2u32 %a %b\n"
    "%bc64 = OpSpecConstantOp %u64 Bitcast %vec\n%bc16 = OpSpecConstantOp %v4u16 Bitcast %bc64\n"
    "%vf = OpSpecConstantComposite %v2f32 %fa %fb\n%vfadd = OpSpecConstantOp %v2f32 FAdd %vf %vf\n"
    "%uc = OpSpecConstantOp %u64 UConvert %a\n%sc = OpSpecConstantOp %u16 SConvert %a\n"
    "%sh = OpSpecConstantOp %v2u32 VectorShuffle %vec %vec 1 0xFFFFFFFF\n"
    "%chain = OpSpecConstantOp %u32 IAdd %cvt %a\n"
    "%main = OpFunction %void None %fn\n%lab = OpLabel\n"
    "%1 = OpCopyObject %f32 %fadd\n%2 = OpCopyObject %f32 %fsub\n%3 = OpCopyObject %f32 %fmul\n"
    "%4 = OpCopyObject %f32 %fdiv\n%5 = OpCopyObject %f32 %fmod\n%6 = OpCopyObject %f32 %frem\n"
    "%7 = OpCopyObject %u32 %cvt\n%8 = OpCopyObject %u16 %cvu\n%9 = OpCopyObject %f32 %stof\n"
    "%10 = OpCopyObject %f16 %utoh\n%11 = OpCopyObject %f32 %fneg\n%12 = OpCopyObject %f64 %fc\n"
    "%13 = OpCopyObject %f16 %dc\n%14 = OpCopyObject %f16 %hadd\n%15 = OpCopyObject %f16 %hmul\n"
    "%16 = OpCopyObject %f64 %dmod\n%17 = OpCopyObject %u32 %bc\n%18 = OpCopyObject %u64 %bc64\n"
    "%19 = OpCopyObject %v4u16 %bc16\n%20 = OpCopyObject %v2f32 %vfadd\n%21 = OpCopyObject %u64 %uc\n"
    "%22 = OpCopyObject %u16 %sc\n%23 = OpCopyObject %v2u32 %sh\n%24 = OpCopyObject %u32 %chain\n"
    "OpReturn\nOpFunctionEnd\n";

TEST_TIER_FREE(specialize_shader_ops_vs_spirv_opt)
{
    size_t n;
    uint32_t *w = assemble(shader_src, &n);
    REQUIRE(w, "assemble");
    int c = check_module("inline shader", w, n, 8, 0xabcdef);
    CHECK(c >= 9 * 30, "only %d operands compared", c);
    free(w);
}

TEST_TIER_FREE(specialize_kernel_ops_vs_reference)
{
    size_t n;
    uint32_t *w = assemble(kernel_src, &n);
    REQUIRE(w, "assemble");
    int c = check_module("inline kernel", w, n, 8, 0x5eed);
    CHECK(c >= 9 * 24, "only %d operands compared", c);
    free(w);
}

TEST_TIER_FREE(specialize_testdata_kernels)
{
    glob_t g;
    int found = 0;
    if (glob(test_data_path("kernels/*.spv"), 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++) {
            size_t len = 0;
            uint32_t *w = test_read_file(g.gl_pathv[i], &len);
            if (!w)
                continue;
            const char *base = strrchr(g.gl_pathv[i], '/');
            int c = check_module(base ? base + 1 : g.gl_pathv[i], w, len / 4, 4, 0x1000 + i);
            if (base && !strncmp(base + 1, "spec_ops", 8))
                CHECK(c > 0, "%s: nothing compared", base + 1);
            free(w);
            found++;
        }
        globfree(&g);
    }
    (void)found; /* the kernels may not be built yet */
}

/* --- work-group size and array lengths --------------------------------------------------------------------- */

static const char localsizeid_src[] =
    "OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\"\n"
    "OpExecutionModeId %main LocalSizeId %x %y %z\n"
    "OpDecorate %x SpecId 0\nOpDecorate %y SpecId 1\n"
    "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%u32 = OpTypeInt 32 0\n"
    "%x = OpSpecConstant %u32 8\n%y = OpSpecConstant %u32 4\n%two = OpConstant %u32 2\n"
    "%z = OpSpecConstantOp %u32 UDiv %y %two\n"
    "%main = OpFunction %void None %fn\n%lab = OpLabel\nOpReturn\nOpFunctionEnd\n";

static const char wgsize_src[] =
    "OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\"\n"
    "OpExecutionMode %main LocalSize 1 1 1\n"
    "OpDecorate %x SpecId 0\nOpDecorate %y SpecId 1\nOpDecorate %wg BuiltIn WorkgroupSize\n"
    "OpDecorate %len SpecId 2\n"
    "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%u32 = OpTypeInt 32 0\n%v3 = OpTypeVector %u32 3\n"
    "%x = OpSpecConstant %u32 16\n%y = OpSpecConstant %u32 2\n%one = OpConstant %u32 1\n"
    "%wg = OpSpecConstantComposite %v3 %x %y %one\n"
    "%len = OpSpecConstant %u32 4\n%len2 = OpSpecConstantOp %u32 IMul %len %x\n"
    "%arr = OpTypeArray %u32 %len2\n%parr = OpTypePointer Workgroup %arr\n%var = OpVariable %parr Workgroup\n"
    "%main = OpFunction %void None %fn\n%lab = OpLabel\n%c = OpCopyObject %v3 %wg\nOpReturn\nOpFunctionEnd\n";

static spv_module *specialize_text(const char *text, const spv_spec_value *v, size_t n, spv_diag *d, int *rc)
{
    spv_module *m = load_text(text);
    if (!m) {
        *rc = -2;
        return NULL;
    }
    uint32_t *w = NULL;
    size_t nw = 0;
    *rc = spv_specialize(m, v, n, &w, &nw, d);
    spv_module_free(m);
    if (*rc)
        return NULL;
    spv_diag vd;
    bool ok = spv_validate_words(w, nw, "specialized", &vd);
    if (!ok)
        fprintf(stderr, "validation: %s\n", vd.msg);
    spv_module *out = ok ? load_words(w, nw, true, d) : NULL;
    free(w);
    return out;
}

TEST_TIER_FREE(specialize_local_size_id)
{
    spv_diag d;
    int rc;
    spv_spec_value v[2] = { { .spec_id = 0, .type = SPV_VALUE_U32, .bits = 32 },
                            { .spec_id = 1, .type = SPV_VALUE_AUTO, .text = "10" } };
    spv_module *m = specialize_text(localsizeid_src, v, 2, &d, &rc);
    REQUIRE(m, "rc %d: %s", rc, rc ? d.msg : "invalid output");
    const spv_entry_point *e = spv_find_entry(m, NULL);
    REQUIRE(e, "no entry");
    CHECK(e->has_local_size && !e->has_local_size_id, "LocalSizeId not replaced");
    CHECK(e->local_size[0] == 32 && e->local_size[1] == 10 && e->local_size[2] == 5, "local size %u %u %u",
          e->local_size[0], e->local_size[1], e->local_size[2]);
    spv_module_free(m);
    /* a zero size is an error naming the spec id */
    spv_spec_value z = { .spec_id = 1, .type = SPV_VALUE_AUTO, .text = "1" };
    m = specialize_text(localsizeid_src, &z, 1, &d, &rc);
    CHECK(!m && rc == -1 && strstr(d.msg, "LocalSizeId") && strstr(d.msg, "is 0"), "zero size: %s", d.msg);
    spv_module_free(m);
}

TEST_TIER_FREE(specialize_workgroup_size_and_array_length)
{
    spv_diag d;
    int rc;
    spv_spec_value v[3] = { { .spec_id = 0, .type = SPV_VALUE_U32, .bits = 64 },
                            { .spec_id = 1, .type = SPV_VALUE_U32, .bits = 3 },
                            { .spec_id = 2, .type = SPV_VALUE_AUTO, .text = "0x5" } };
    spv_module *m = specialize_text(wgsize_src, v, 3, &d, &rc);
    REQUIRE(m, "rc %d: %s", rc, rc ? d.msg : "invalid output");
    const spv_entry_point *e = spv_find_entry(m, NULL);
    REQUIRE(e, "no entry");
    CHECK(e->has_local_size && e->local_size[0] == 64 && e->local_size[1] == 3 && e->local_size[2] == 1,
          "LocalSize %u %u %u, want the WorkgroupSize 64 3 1", e->local_size[0], e->local_size[1], e->local_size[2]);
    bool saw_array = false;
    for (uint32_t id = 1; id < m->bound; id++) {
        const spv_type *t = spv_type_get(m, id);
        if (t && t->kind == SPV_TYPE_ARRAY) {
            saw_array = true;
            CHECK(t->count == 5 * 64, "array length %u, want 320", t->count);
            CHECK(spv_id_get(m, t->length_id)->kind == SPV_ID_CONSTANT, "length not a plain constant");
        }
    }
    CHECK(saw_array, "array type missing");
    CHECK(m->workgroup_size_id && spv_id_get(m, m->workgroup_size_id)->kind == SPV_ID_CONSTANT,
          "WorkgroupSize not a plain constant");
    spv_module_free(m);
    spv_spec_value z = { .spec_id = 2, .type = SPV_VALUE_U32, .bits = 0 };
    m = specialize_text(wgsize_src, &z, 1, &d, &rc);
    CHECK(!m && rc == -1 && strstr(d.msg, "array") && strstr(d.msg, "spec id") == NULL
              ? true
              : strstr(d.msg, "at least 1") != NULL,
          "zero length: %s", d.msg);
    spv_module_free(m);
    /* a LocalSize is added where the entry point had none */
    char *src = strdup(wgsize_src);
    char *p = strstr(src, "OpExecutionMode %main LocalSize 1 1 1\n");
    memset(p, ' ', strlen("OpExecutionMode %main LocalSize 1 1 1"));
    m = specialize_text(src, NULL, 0, &d, &rc);
    REQUIRE(m, "rc %d: %s", rc, rc ? d.msg : "invalid output");
    e = spv_find_entry(m, NULL);
    CHECK(e && e->has_local_size && e->local_size[0] == 16 && e->local_size[1] == 2, "added LocalSize");
    spv_module_free(m);
    free(src);
}

/* --- values and errors -------------------------------------------------------------------------------------- */

static const char small_src[] =
    "OpCapability Shader\nOpCapability Int8\nOpCapability Float16\nOpMemoryModel Logical GLSL450\n"
    "OpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 1 1 1\n"
    "OpName %n \"N\"\nOpDecorate %n SpecId 3\nOpDecorate %s SpecId 5\nOpDecorate %f SpecId 9\n"
    "OpDecorate %h SpecId 10\nOpDecorate %flag SpecId 11\nOpDecorate %byte SpecId 12\n"
    "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%u32 = OpTypeInt 32 0\n%i32 = OpTypeInt 32 1\n"
    "%u8 = OpTypeInt 8 0\n%f32 = OpTypeFloat 32\n%f16 = OpTypeFloat 16\n%bool = OpTypeBool\n"
    "%n = OpSpecConstant %u32 16\n%s = OpSpecConstant %i32 -1\n%f = OpSpecConstant %f32 0.5\n"
    "%h = OpSpecConstant %f16 1\n%flag = OpSpecConstantFalse %bool\n%byte = OpSpecConstant %u8 7\n"
    "%main = OpFunction %void None %fn\n%lab = OpLabel\n%1 = OpCopyObject %u32 %n\n%2 = OpCopyObject %i32 %s\n"
    "%3 = OpCopyObject %f32 %f\n%4 = OpCopyObject %f16 %h\n%5 = OpCopyObject %bool %flag\n%6 = OpCopyObject %u8 %byte\n"
    "OpReturn\nOpFunctionEnd\n";

static int try_values(const char *const *texts, size_t n, spv_diag *d, uint64_t *out_bits)
{
    spv_module *m = load_text(small_src);
    if (!m)
        return -2;
    spv_spec_value v[8];
    for (size_t i = 0; i < n; i++) {
        memset(&v[i], 0, sizeof v[i]);
        if (spv_parse_spec_value(texts[i], &v[i], d)) {
            spv_module_free(m);
            return -3;
        }
    }
    uint32_t *w = NULL;
    size_t nw = 0;
    int rc = spv_specialize(m, v, n, &w, &nw, d);
    if (rc == 0 && out_bits) {
        spv_module *o = load_words(w, nw, true, d);
        for (uint32_t i = 0; o && i < 6; i++) {
            uint32_t ids[6] = { 0 };
            /* the constants keep their ids: look them up in the input */
            for (uint32_t id = 1; id < m->bound; id++)
                if (m->ids[id].spec_id != SPV_NONE) {
                    uint32_t sid = m->ids[id].spec_id;
                    int k = sid == 3 ? 0 : sid == 5 ? 1 : sid == 9 ? 2 : sid == 10 ? 3 : sid == 11 ? 4 : 5;
                    ids[k] = id;
                }
            out_bits[i] = o->ids[ids[i]].scalar;
        }
        if (!o)
            rc = -4;
        spv_module_free(o);
    }
    free(w);
    spv_module_free(m);
    return rc;
}

TEST_TIER_FREE(specialize_values_and_errors)
{
    spv_diag d;
    uint64_t b[6];
    const char *ok[] = { "3=0x20", "5=-7", "9=1e-3", "10=0.1", "11=true", "12=255" };
    REQUIRE(try_values(ok, 6, &d, b) == 0, "%s", d.msg);
    CHECK(b[0] == 32 && b[1] == (uint32_t)-7 && b[4] == 1 && b[5] == 255, "ints/bool: %llx %llx %llx %llx",
          (unsigned long long)b[0], (unsigned long long)b[1], (unsigned long long)b[4], (unsigned long long)b[5]);
    float f = 1e-3f;
    uint32_t fb;
    memcpy(&fb, &f, 4);
    CHECK(b[2] == fb, "f32 1e-3: %llx", (unsigned long long)b[2]);
    _Float16 h = (_Float16)0.1;
    uint16_t hb;
    memcpy(&hb, &h, 2);
    CHECK(b[3] == hb, "f16 0.1: %llx want %x", (unsigned long long)b[3], hb);
    const char *typed[] = { "3=7:u32", "5=-2:i32", "9=0x1.8p1:f32", "11=false:bool" };
    REQUIRE(try_values(typed, 4, &d, b) == 0, "%s", d.msg);
    CHECK(b[0] == 7 && b[1] == 0xfffffffe && b[2] == 0x40400000 && b[4] == 0, "typed values");
    /* defaults */
    REQUIRE(try_values(NULL, 0, &d, b) == 0, "%s", d.msg);
    CHECK(b[0] == 16 && b[1] == 0xffffffff && b[5] == 7, "defaults");

    /* unknown id: the message lists the ids the module has (spirv/spec_value.c words every error) */
    const char *unk[] = { "4=1" };
    CHECK(try_values(unk, 1, &d, NULL) == -1 && strstr(d.msg, "SpecId 4 is not in the module") &&
              strstr(d.msg, "3 (N, u32)") && strstr(d.msg, "12 (u8)"),
          "unknown: %s", d.msg);
    const char *mism[] = { "3=1.5:f32" };
    CHECK(try_values(mism, 1, &d, NULL) == -1 && strstr(d.msg, "SpecId 3 (N, u32): the f32 value 1.5") &&
              strstr(d.msg, "expected a u32"),
          "mismatch: %s", d.msg);
    const char *wid[] = { "3=1:u64" }; /* another width: the value fits */
    CHECK(try_values(wid, 1, &d, b) == 0 && b[0] == 1, "width: %s", d.msg);
    const char *range[] = { "12=256" };
    CHECK(try_values(range, 1, &d, NULL) == -1 && strstr(d.msg, "out of range for u8"), "range: %s", d.msg);
    const char *neg[] = { "3=-1:i32" };
    CHECK(try_values(neg, 1, &d, NULL) == -1 && strstr(d.msg, "out of range for u32"), "negative: %s", d.msg);
    const char *big[] = { "5=3000000000:u32" };
    CHECK(try_values(big, 1, &d, NULL) == -1 && strstr(d.msg, "out of range for i32"), "big: %s", d.msg);
    const char *fits[] = { "5=30:u32", "3=12:i32" };
    CHECK(try_values(fits, 2, &d, b) == 0 && b[0] == 12 && b[1] == 30, "mixed signedness that fits: %s", d.msg);
    const char *twice[] = { "3=1:u32", "3=9:i32" }; /* the later value wins */
    CHECK(try_values(twice, 2, &d, b) == 0 && b[0] == 9, "twice: %s", d.msg);
    const char *notbool[] = { "11=2" };
    CHECK(try_values(notbool, 1, &d, NULL) == -1 && strstr(d.msg, "bool"), "bool: %s", d.msg);
    const char *notint[] = { "3=1.5" };
    CHECK(try_values(notint, 1, &d, NULL) == -1 && strstr(d.msg, "not an integer"), "int: %s", d.msg);
    const char *hinf[] = { "10=70000" };
    CHECK(try_values(hinf, 1, &d, NULL) == -1 && strstr(d.msg, "infinity"), "f16 overflow: %s", d.msg);
    const char *infok[] = { "10=-inf", "9=nan" };
    CHECK(try_values(infok, 2, &d, b) == 0 && b[3] == 0xfc00 && (b[2] & 0x7f800000) == 0x7f800000 && (b[2] & 0x7fffff),
          "inf/nan: %s", d.msg);

    /* the parser on its own */
    spv_spec_value v;
    memset(&v, 0, sizeof v);
    CHECK(spv_parse_spec_value("7=0x10", &v, &d) == 0 && v.spec_id == 7 && v.type == SPV_VALUE_AUTO &&
              !strcmp(v.text, "0x10") && v.bits == 16,
          "auto hex");
    CHECK(spv_parse_spec_value("1=-3:i8", &v, &d) == 0 && v.type == SPV_VALUE_I8 && v.bits == 0xfd, "i8");
    CHECK(spv_parse_spec_value("2=1.5:f16", &v, &d) == 0 && v.type == SPV_VALUE_F16 && v.bits == 0x3e00, "f16");
    CHECK(spv_parse_spec_value("2=0.1:f64", &v, &d) == 0 && v.bits == 0x3fb999999999999aull, "f64");
    CHECK(spv_parse_spec_value("2=-128:i8", &v, &d) == 0 && v.bits == 0x80, "i8 min");
    CHECK(spv_parse_spec_value("2=-129:i8", &v, &d) == -1 && strstr(d.msg, "out of range"), "i8 range: %s", d.msg);
    CHECK(spv_parse_spec_value("2=18446744073709551615:u64", &v, &d) == 0 && v.bits == UINT64_MAX, "u64 max");
    CHECK(spv_parse_spec_value("2=18446744073709551616:u64", &v, &d) == -1, "u64 overflow");
    CHECK(spv_parse_spec_value("2=1:u7", &v, &d) == -1 && strstr(d.msg, "unknown type suffix"), "suffix: %s", d.msg);
    CHECK(spv_parse_spec_value("x=1", &v, &d) == -1 && strstr(d.msg, "SpecId \"x\" is not a number"), "bad id: %s",
          d.msg);
    CHECK(spv_parse_spec_value("3=", &v, &d) == -1, "empty value");
    CHECK(spv_parse_spec_value("3=abc", &v, &d) == -1 && strstr(d.msg, "not a number"), "abc: %s", d.msg);
    CHECK(spv_parse_spec_value("true", &v, &d) == 0 && v.bits == 1 && v.type == SPV_VALUE_AUTO, "bare true");
    /* half rounding of decimal text: to nearest even, correctly (round-to-odd via double) */
    CHECK(spv_parse_spec_value("2=1.00048828125:f16", &v, &d) == 0 && v.bits == 0x3c00, "tie down");
    CHECK(spv_parse_spec_value("2=1.00048828125000001:f16", &v, &d) == 0 && v.bits == 0x3c01, "above tie");
    CHECK(!strcmp(spv_value_type_name(SPV_VALUE_U16), "u16") && !strcmp(spv_value_type_name(SPV_VALUE_BOOL), "bool"),
          "names");
}

TEST_TIER_FREE(specialize_lists_spec_constants)
{
    spv_module *m = load_text(small_src);
    REQUIRE(m, "load");
    spv_spec_constant *l = NULL;
    size_t n = spv_spec_constants(m, &l);
    REQUIRE(n == 6, "%zu constants", n);
    uint32_t ids[6] = { 3, 5, 9, 10, 11, 12 };
    spv_value_type types[6] = {
        SPV_VALUE_U32, SPV_VALUE_I32, SPV_VALUE_F32, SPV_VALUE_F16, SPV_VALUE_BOOL, SPV_VALUE_U8
    };
    for (size_t i = 0; i < n; i++)
        CHECK(l[i].spec_id == ids[i] && l[i].type == types[i], "entry %zu: %u %s", i, l[i].spec_id,
              spv_value_type_name(l[i].type));
    CHECK(l[0].name && !strcmp(l[0].name, "N") && l[0].default_bits == 16, "name/default");
    CHECK(l[1].default_bits == 0xffffffff, "signed default %llx", (unsigned long long)l[1].default_bits);
    free(l);
    spv_module_free(m);
}

/* The first entry of a sorted list with SpecId id. */
static size_t first_entry(const spv_spec_constant *list, size_t n, uint32_t id)
{
    size_t i = 0;
    while (i < n && list[i].spec_id != id)
        i++;
    return i;
}

/* spv_spec_resolve on lists longer than its stack buffers: 150 constants
 * over 90 SpecIds (several on one id, ids with gaps) and 100 values in a
 * random order, ids repeated (the later value wins; an earlier one out of
 * range for its constant is not looked at), checked against the rule done
 * the plain way here; then an unknown id, overridden and not. */
TEST_TIER_FREE(specialize_resolve_many)
{
    spv_module *m = load_text(small_src);
    REQUIRE(m, "load");
    enum { N = 150, NV = 100 };
    static spv_spec_constant list[N];
    static spv_spec_value values[NV];
    static uint64_t got[N], want[N];
    uint64_t seed = 20261128;
    for (size_t i = 0; i < N; i++) /* sorted by SpecId, as spv_spec_constants gives them */
        list[i] = (spv_spec_constant){ .spec_id = (uint32_t)(2 * (i * 90 / N)),
                                       .id = (uint32_t)(100 + i),
                                       .type = SPV_VALUE_U8,
                                       .default_bits = i % 256 };
    for (size_t j = 0; j < NV; j++) {
        uint32_t id = 2 * (uint32_t)(test_rand_u64(&seed) % 90);
        /* an out-of-range value, always followed by a valid one for the same id */
        bool bad = j + 1 < NV && j % 7 == 3;
        values[j] = (spv_spec_value){ .spec_id = id, .type = SPV_VALUE_U32, .bits = bad ? 1000 : j };
        if (bad) {
            values[j + 1] = (spv_spec_value){ .spec_id = id, .type = SPV_VALUE_U32, .bits = 255 - j };
            j++;
        }
    }
    for (size_t i = 0; i < N; i++) {
        want[i] = list[i].default_bits;
        for (size_t j = 0; j < NV; j++) /* the last value with the id */
            if (values[j].spec_id == list[i].spec_id)
                want[i] = values[j].bits;
    }
    spv_diag d;
    d.msg[0] = 0;
    REQUIRE(spv_spec_resolve(m, list, N, values, NV, got, &d) == 0, "%s", d.msg);
    size_t bad = 0;
    for (size_t i = 0; i < N; i++)
        bad += got[i] != want[i];
    CHECK(bad == 0, "%zu of %d constants differ from the rule", bad, N);

    values[0].spec_id = values[1].spec_id = 7; /* an odd id: not in the list */
    values[1].bits = 3;
    CHECK(spv_spec_resolve(m, list, N, values, NV, got, &d) == -1 && strstr(d.msg, "SpecId 7 is not in the module"),
          "unknown id: %s", d.msg);
    values[1].spec_id = 8;
    values[0].bits = 300; /* out of range for u8, overridden by the later value for SpecId 7 */
    values[NV - 1] = (spv_spec_value){ .spec_id = 7, .type = SPV_VALUE_U32, .bits = 1 };
    CHECK(spv_spec_resolve(m, list, N, values, NV, got, &d) == -1 && strstr(d.msg, "SpecId 7 is not in the module"),
          "unknown id, overridden: %s", d.msg);
    values[0].spec_id = values[NV - 1].spec_id = 8;
    values[0].bits = 300; /* overridden: not looked at */
    REQUIRE(spv_spec_resolve(m, list, N, values, NV, got, &d) == 0, "overridden out-of-range value: %s", d.msg);
    CHECK(got[first_entry(list, N, 8)] == 1, "SpecId 8: %llu, want the last value 1",
          (unsigned long long)got[first_entry(list, N, 8)]);
    values[NV - 1].bits = 256; /* the last value out of range: the error */
    CHECK(spv_spec_resolve(m, list, N, values, NV, got, &d) == -1 && strstr(d.msg, "out of range for u8"),
          "out of range: %s", d.msg);
    spv_module_free(m);
}
