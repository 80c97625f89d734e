/* jit/lower_glsl450.c — lowering of the GLSL.std.450 extended instruction set.
 *
 * Semantics follow the GLSL.std.450 specification (rev. 1.0.0 + errata):
 * FMin/FMax are the literal "y < x ? y : x" forms, NMin/NMax/NClamp the
 * NaN-avoiding ones (llvm.minnum/maxnum), FSign keeps the sign of ±0,
 * Fract = x - floor(x), Round rounds halfway cases away from zero (the spec lets
 * it pick either), FindUMsb(0) = FindSMsb(0) = FindSMsb(-1) = FindILsb(0) = -1.
 * Matrices arrive as LLVM arrays of column vectors, [C x <R x T>].
 */
#include "jit/extinst_util.h"
#include "spirv_grammar.h"

#include <math.h>
#include <stdio.h>

/* Name and operand count, from the tables generated from the grammar JSON. */
const char *xi_glsl450_info(uint32_t inst, unsigned *nargs)
{
    const char *name = spv_glsl450_name(inst);
    int n = spv_glsl450_noperands(inst);
    if (!name || n < 0)
        return NULL;
    if (nargs)
        *nargs = (unsigned)n;
    return name;
}

/* Operand shape classes, checked before lowering so that a bad module gets a
 * message instead of an LLVM assertion. */
enum { K_FP, K_INT };

static bool check_args(spv_diag *diag, uint32_t inst, LLVMValueRef *args, unsigned n, int kind)
{
    LLVMTypeRef t0 = LLVMTypeOf(args[0]);
    for (unsigned i = 0; i < n; i++) {
        LLVMTypeRef t = LLVMTypeOf(args[i]);
        bool ok = kind == K_FP ? xi_is_fp(t) : xi_is_int(t);
        if (!ok) {
            xi_fail(diag, XI_GLSL450, inst, "operand %u must be a %s scalar or vector, not %s", i + 1,
                    kind == K_FP ? "floating-point" : "integer", xi_type_str(t));
            return false;
        }
        /* Same element type; a scalar may stand for a vector (it is splatted). */
        if (xi_elem(t) != xi_elem(t0) || (xi_lanes(t) && xi_lanes(t) != xi_lanes(t0))) {
            xi_fail(diag, XI_GLSL450, inst, "operand %u has type %s, operand 1 has %s (they must match)", i + 1,
                    xi_type_str(t), xi_type_str(t0));
            return false;
        }
    }
    return true;
}

/* GLSL's FMin/FMax: "y if y < x, else x" (any operand may come back for NaN). */
static LLVMValueRef gl_fmin(ext_lower_ctx *c, LLVMValueRef x, LLVMValueRef y)
{
    y = xi_splat(c, y, LLVMTypeOf(x));
    return xi_select(c, xi_fcmp(c, LLVMRealOLT, y, x), y, x);
}

static LLVMValueRef gl_fmax(ext_lower_ctx *c, LLVMValueRef x, LLVMValueRef y)
{
    y = xi_splat(c, y, LLVMTypeOf(x));
    return xi_select(c, xi_fcmp(c, LLVMRealOLT, x, y), y, x);
}

static LLVMValueRef int_intrin2(ext_lower_ctx *c, const char *name, LLVMValueRef x, LLVMValueRef y)
{
    return xi_intrin2(c, name, x, xi_splat(c, y, LLVMTypeOf(x)));
}

/* ctlz/cttz with "zero is poison" false: the result for 0 is the bit width. */
static LLVMValueRef count_bits(ext_lower_ctx *c, const char *name, LLVMValueRef x)
{
    LLVMValueRef a[2] = { x, LLVMConstInt(LLVMInt1TypeInContext(c->ctx), 0, 0) };
    LLVMTypeRef t = LLVMTypeOf(x);
    return xi_intrin(c, name, &t, 1, a, 2);
}

/* --- matrices ([C x <R x T>], column-major) ---------------------------------------------- */

typedef struct {
    LLVMValueRef e[4][4];
    unsigned n;
} mat; /* e[row][col] */

static bool load_square(ext_lower_ctx *c, spv_diag *diag, uint32_t inst, LLVMValueRef m, mat *out)
{
    LLVMTypeRef t = LLVMTypeOf(m);
    if (LLVMGetTypeKind(t) != LLVMArrayTypeKind || !xi_lanes(LLVMGetElementType(t)) ||
        !xi_is_fp(LLVMGetElementType(t))) {
        xi_fail(diag, XI_GLSL450, inst, "operand must be a matrix, lowered as [C x <R x float>], not %s",
                xi_type_str(t));
        return false;
    }
    unsigned cols = (unsigned)LLVMGetArrayLength2(t), rows = xi_lanes(LLVMGetElementType(t));
    if (cols != rows || cols < 2 || cols > 4) {
        xi_fail(diag, XI_GLSL450, inst, "operand must be a square 2x2, 3x3 or 4x4 matrix, not %ux%u", cols, rows);
        return false;
    }
    out->n = cols;
    for (unsigned col = 0; col < cols; col++) {
        LLVMValueRef v = LLVMBuildExtractValue(c->b, m, col, "");
        for (unsigned row = 0; row < rows; row++)
            out->e[row][col] = xi_extract_lane(c, v, row);
    }
    return true;
}

/* Determinant of the sub-matrix of `rows` x `cols` (k entries each), by
 * cofactor expansion along its first row: at most 4x4, so this stays small. */
static LLVMValueRef minor_det(ext_lower_ctx *c, const mat *m, const unsigned *rows, const unsigned *cols, unsigned k)
{
    if (k == 1)
        return m->e[rows[0]][cols[0]];
    if (k == 2) {
        LLVMValueRef ad = LLVMBuildFMul(c->b, m->e[rows[0]][cols[0]], m->e[rows[1]][cols[1]], "");
        LLVMValueRef bc = LLVMBuildFMul(c->b, m->e[rows[0]][cols[1]], m->e[rows[1]][cols[0]], "");
        return LLVMBuildFSub(c->b, ad, bc, "");
    }
    LLVMValueRef sum = NULL;
    for (unsigned j = 0; j < k; j++) {
        unsigned sub_cols[4], nc = 0;
        for (unsigned jj = 0; jj < k; jj++)
            if (jj != j)
                sub_cols[nc++] = cols[jj];
        LLVMValueRef term = LLVMBuildFMul(c->b, m->e[rows[0]][cols[j]], minor_det(c, m, rows + 1, sub_cols, k - 1), "");
        sum = !sum ? term : (j & 1) ? LLVMBuildFSub(c->b, sum, term, "") : LLVMBuildFAdd(c->b, sum, term, "");
    }
    return sum;
}

static LLVMValueRef mat_det(ext_lower_ctx *c, const mat *m)
{
    static const unsigned idx[4] = { 0, 1, 2, 3 };
    return minor_det(c, m, idx, idx, m->n);
}

/* inverse = adjugate / det; inv[i][j] = (-1)^(i+j) * minor(j, i) / det. */
static LLVMValueRef mat_inverse(ext_lower_ctx *c, const mat *m, LLVMTypeRef result_t)
{
    unsigned n = m->n;
    LLVMValueRef det = mat_det(c, m);
    LLVMTypeRef elem = LLVMTypeOf(det);
    LLVMValueRef rdet = LLVMBuildFDiv(c->b, LLVMConstReal(elem, 1.0), det, "");
    LLVMTypeRef colt = LLVMVectorType(elem, n);
    LLVMValueRef res = LLVMGetPoison(result_t);
    for (unsigned j = 0; j < n; j++) { /* column j of the inverse */
        LLVMValueRef col = LLVMGetPoison(colt);
        for (unsigned i = 0; i < n; i++) {
            unsigned rows[3], cols[3], nr = 0, nc = 0;
            for (unsigned r = 0; r < n; r++)
                if (r != j)
                    rows[nr++] = r;
            for (unsigned q = 0; q < n; q++)
                if (q != i)
                    cols[nc++] = q;
            LLVMValueRef cof = minor_det(c, m, rows, cols, n - 1);
            if ((i + j) & 1)
                cof = LLVMBuildFNeg(c->b, cof, "");
            LLVMValueRef v = LLVMBuildFMul(c->b, cof, rdet, "");
            col = LLVMBuildInsertElement(c->b, col, v, LLVMConstInt(LLVMInt32TypeInContext(c->ctx), i, 0), "");
        }
        res = LLVMBuildInsertValue(c->b, res, col, j, "");
    }
    return res;
}

/* --- packing --------------------------------------------------------------------------------- */

/* round(clamp(v, lo, hi) * scale) converted to `lanes` x iN, bitcast to i32. */
static LLVMValueRef pack_norm(ext_lower_ctx *c, LLVMValueRef v, double lo, double scale, unsigned bits, bool is_signed)
{
    LLVMTypeRef t = LLVMTypeOf(v);
    LLVMValueRef x = xi_fclamp(c, v, xi_fconst(c, t, lo), xi_fconst(c, t, 1.0));
    x = xi_intrin1(c, "llvm.round", xi_scale(c, x, scale));
    LLVMTypeRef it = xi_reshape(t, LLVMIntTypeInContext(c->ctx, bits));
    x = is_signed ? LLVMBuildFPToSI(c->b, x, it, "") : LLVMBuildFPToUI(c->b, x, it, "");
    return LLVMBuildBitCast(c->b, x, LLVMInt32TypeInContext(c->ctx), "");
}

/* The inverse: i32 → lanes x iN → float / scale, clamped to [-1, 1] when signed. */
static LLVMValueRef unpack_norm(ext_lower_ctx *c, LLVMValueRef p, unsigned lanes, unsigned bits, double scale,
                                bool is_signed)
{
    LLVMTypeRef vt = LLVMVectorType(LLVMIntTypeInContext(c->ctx, bits), lanes);
    LLVMTypeRef ft = LLVMVectorType(xi_elem(c->result_type), lanes);
    LLVMValueRef v = LLVMBuildBitCast(c->b, p, vt, "");
    v = is_signed ? LLVMBuildSIToFP(c->b, v, ft, "") : LLVMBuildUIToFP(c->b, v, ft, "");
    v = LLVMBuildFDiv(c->b, v, xi_fconst(c, ft, scale), "");
    if (is_signed)
        v = xi_fclamp(c, v, xi_fconst(c, ft, -1.0), xi_fconst(c, ft, 1.0));
    return v;
}

static bool check_type(spv_diag *diag, uint32_t inst, LLVMValueRef v, LLVMTypeRef want, const char *what)
{
    if (LLVMTypeOf(v) == want)
        return true;
    xi_fail(diag, XI_GLSL450, inst, "%s must be %s, not %s", what, xi_type_str(want), xi_type_str(LLVMTypeOf(v)));
    return false;
}

static LLVMValueRef lower_pack(ext_lower_ctx *c, uint32_t inst, LLVMValueRef v, spv_diag *diag)
{
    LLVMContextRef ctx = c->ctx;
    LLVMTypeRef f32 = LLVMFloatTypeInContext(ctx), i32 = LLVMInt32TypeInContext(ctx);
    LLVMTypeRef v4f = LLVMVectorType(f32, 4), v2f = LLVMVectorType(f32, 2), v2i = LLVMVectorType(i32, 2);
    LLVMTypeRef f64 = LLVMDoubleTypeInContext(ctx);
    switch (inst) {
    case 54:
        return check_type(diag, inst, v, v4f, "the operand") ? pack_norm(c, v, -1.0, 127.0, 8, true) : NULL;
    case 55:
        return check_type(diag, inst, v, v4f, "the operand") ? pack_norm(c, v, 0.0, 255.0, 8, false) : NULL;
    case 56:
        return check_type(diag, inst, v, v2f, "the operand") ? pack_norm(c, v, -1.0, 32767.0, 16, true) : NULL;
    case 57:
        return check_type(diag, inst, v, v2f, "the operand") ? pack_norm(c, v, 0.0, 65535.0, 16, false) : NULL;
    case 58: /* fptrunc rounds to nearest even, lane 0 in the low 16 bits */
        if (!check_type(diag, inst, v, v2f, "the operand"))
            return NULL;
        return LLVMBuildBitCast(c->b, xi_fpcast(c, v, LLVMHalfTypeInContext(ctx)), i32, "");
    case 59:
        return check_type(diag, inst, v, v2i, "the operand") ? LLVMBuildBitCast(c->b, v, f64, "") : NULL;
    case 60:
        return check_type(diag, inst, v, i32, "the operand") ? unpack_norm(c, v, 2, 16, 32767.0, true) : NULL;
    case 61:
        return check_type(diag, inst, v, i32, "the operand") ? unpack_norm(c, v, 2, 16, 65535.0, false) : NULL;
    case 62:
        if (!check_type(diag, inst, v, i32, "the operand"))
            return NULL;
        v = LLVMBuildBitCast(c->b, v, LLVMVectorType(LLVMHalfTypeInContext(ctx), 2), "");
        return xi_fpcast(c, v, xi_elem(c->result_type));
    case 63:
        return check_type(diag, inst, v, i32, "the operand") ? unpack_norm(c, v, 4, 8, 127.0, true) : NULL;
    case 64:
        return check_type(diag, inst, v, i32, "the operand") ? unpack_norm(c, v, 4, 8, 255.0, false) : NULL;
    default: /* 65 UnpackDouble2x32 */
        if (!check_type(diag, inst, v, f64, "the operand"))
            return NULL;
        return LLVMBuildBitCast(c->b, v, xi_lanes(c->result_type) == 2 ? c->result_type : v2i, "");
    }
}

/* --- the dispatcher ----------------------------------------------------------------------------- */

LLVMValueRef lower_glsl450(ext_lower_ctx *c, uint32_t inst, LLVMValueRef *args, unsigned nargs, spv_diag *diag)
{
    unsigned want = 0;
    if (!xi_glsl450_info(inst, &want)) {
        spv_fail(diag, "GLSL.std.450 instruction %u: unknown instruction number (the set defines 1..81)", inst);
        return NULL;
    }
    if (nargs != want)
        return xi_fail(diag, XI_GLSL450, inst, "expected %u operand%s, got %u", want, want == 1 ? "" : "s", nargs);
    for (unsigned i = 0; i < nargs; i++)
        if (!args[i])
            return xi_fail(diag, XI_GLSL450, inst, "operand %u is missing", i + 1);

    LLVMBuilderRef b = c->b;
    LLVMValueRef x = args[0], y = nargs > 1 ? args[1] : NULL, z = nargs > 2 ? args[2] : NULL;
    LLVMTypeRef t = LLVMTypeOf(x);
    if (inst >= 54 && inst <= 65) /* PackSnorm4x8 .. UnpackDouble2x32 check their operand themselves */
        return lower_pack(c, inst, x, diag);

    /* Operand classes first. */
    switch (inst) {
    case 5:
    case 7:
    case 38:
    case 39:
    case 41:
    case 42:
    case 44:
    case 45:
    case 47:
    case 73:
    case 74:
    case 75:
        if (!check_args(diag, inst, args, nargs, K_INT))
            return NULL;
        break;
    case 33:
    case 34:
    case 76:
    case 77:
    case 78:
        break; /* checked where lowered */
    case 35:
    case 51:
    case 53: /* x, then a pointer or an integer */
        if (!check_args(diag, inst, args, 1, K_FP))
            return NULL;
        break;
    case 72: /* Refract: I, N vectors; eta a scalar of any float width */
        if (!check_args(diag, inst, args, 2, K_FP))
            return NULL;
        if (!xi_is_fp(LLVMTypeOf(z)) || xi_lanes(LLVMTypeOf(z)))
            return xi_fail(diag, XI_GLSL450, inst, "eta must be a floating-point scalar, not %s",
                           xi_type_str(LLVMTypeOf(z)));
        break;
    default:
        if (!check_args(diag, inst, args, nargs, K_FP))
            return NULL;
        break;
    }

    switch (inst) {
    case 1:
        return xi_intrin1(c, "llvm.round", x);
    case 2:
        return xi_intrin1(c, "llvm.roundeven", x);
    case 3:
        return xi_intrin1(c, "llvm.trunc", x);
    case 4:
        return xi_fabs(c, x);
    case 5: {
        LLVMValueRef a[2] = { x, LLVMConstInt(LLVMInt1TypeInContext(c->ctx), 0, 0) };
        return xi_intrin(c, "llvm.abs", &t, 1, a, 2);
    }
    case 6:
        return xi_fsign(c, x, false);
    case 7:
        return xi_intrin2(c, "llvm.smin", xi_intrin2(c, "llvm.smax", x, xi_iconst(c, t, -1)), xi_iconst(c, t, 1));
    case 8:
        return xi_intrin1(c, "llvm.floor", x);
    case 9:
        return xi_intrin1(c, "llvm.ceil", x);
    case 10:
        return LLVMBuildFSub(b, x, xi_intrin1(c, "llvm.floor", x), "");
    case 11:
        return xi_scale(c, x, M_PI / 180.0);
    case 12:
        return xi_scale(c, x, 180.0 / M_PI);
    case 13:
        return xi_intrin1(c, "llvm.sin", x);
    case 14:
        return xi_intrin1(c, "llvm.cos", x);
    case 15:
        return xi_libm1(c, "tan", x);
    case 16:
        return xi_libm1(c, "asin", x);
    case 17:
        return xi_libm1(c, "acos", x);
    case 18:
        return xi_libm1(c, "atan", x);
    case 19:
        return xi_libm1(c, "sinh", x);
    case 20:
        return xi_libm1(c, "cosh", x);
    case 21:
        return xi_libm1(c, "tanh", x);
    case 22:
        return xi_libm1(c, "asinh", x);
    case 23:
        return xi_libm1(c, "acosh", x);
    case 24:
        return xi_libm1(c, "atanh", x);
    case 25:
        return xi_libm2(c, "atan2", x, y);
    case 26:
        return xi_intrin2(c, "llvm.pow", x, xi_splat(c, y, t));
    case 27:
        return xi_intrin1(c, "llvm.exp", x);
    case 28:
        return xi_intrin1(c, "llvm.log", x);
    case 29:
        return xi_intrin1(c, "llvm.exp2", x);
    case 30:
        return xi_intrin1(c, "llvm.log2", x);
    case 31:
        return xi_intrin1(c, "llvm.sqrt", x);
    case 32: { /* half through float: one rounding instead of two */
        LLVMValueRef w = xi_fp_bits(t) == 16 ? xi_fpcast(c, x, LLVMFloatTypeInContext(c->ctx)) : x;
        LLVMValueRef r = LLVMBuildFDiv(b, xi_fconst(c, LLVMTypeOf(w), 1.0), xi_intrin1(c, "llvm.sqrt", w), "");
        return xi_fpcast(c, r, xi_elem(t));
    }
    case 33:
    case 34: {
        mat m;
        if (!load_square(c, diag, inst, x, &m))
            return NULL;
        LLVMTypeRef et = LLVMTypeOf(m.e[0][0]);
        if (LLVMGetTypeKind(et) != LLVMHalfTypeKind)
            return inst == 33 ? mat_det(c, &m) : mat_inverse(c, &m, t);
        /* half through float, as InverseSqrt: each result rounds once, not at every
         * product and sum (Vulkan's precision for these is that of their operations) */
        LLVMTypeRef f32 = LLVMFloatTypeInContext(c->ctx);
        for (unsigned r = 0; r < m.n; r++)
            for (unsigned q = 0; q < m.n; q++)
                m.e[r][q] = LLVMBuildFPExt(b, m.e[r][q], f32, "");
        if (inst == 33)
            return LLVMBuildFPTrunc(b, mat_det(c, &m), et, "");
        LLVMValueRef wide = mat_inverse(c, &m, LLVMArrayType2(LLVMVectorType(f32, m.n), m.n)), res = LLVMGetPoison(t);
        for (unsigned q = 0; q < m.n; q++)
            res = LLVMBuildInsertValue(
                b, res, LLVMBuildFPTrunc(b, LLVMBuildExtractValue(b, wide, q, ""), LLVMVectorType(et, m.n), ""), q, "");
        return res;
    }
    case 35: { /* Modf(x, i*): the whole part goes to *i */
        if (LLVMGetTypeKind(LLVMTypeOf(y)) != LLVMPointerTypeKind)
            return xi_fail(diag, XI_GLSL450, inst, "operand 2 must be a pointer, not %s", xi_type_str(LLVMTypeOf(y)));
        LLVMValueRef whole, frac = xi_modf(c, x, &whole);
        xi_store_out(c, whole, y);
        return frac;
    }
    case 36: {
        LLVMValueRef whole, frac = xi_modf(c, x, &whole);
        LLVMTypeRef rt = c->result_type;
        if (!rt || LLVMGetTypeKind(rt) != LLVMStructTypeKind || LLVMCountStructElementTypes(rt) != 2)
            return xi_fail(diag, XI_GLSL450, inst, "result type must be a struct of two members like x, not %s",
                           xi_type_str(rt));
        LLVMValueRef r = LLVMBuildInsertValue(b, LLVMGetPoison(rt), frac, 0, "");
        return LLVMBuildInsertValue(b, r, whole, 1, "");
    }
    case 37:
        return gl_fmin(c, x, y);
    case 38:
        return int_intrin2(c, "llvm.umin", x, y);
    case 39:
        return int_intrin2(c, "llvm.smin", x, y);
    case 40:
        return gl_fmax(c, x, y);
    case 41:
        return int_intrin2(c, "llvm.umax", x, y);
    case 42:
        return int_intrin2(c, "llvm.smax", x, y);
    case 43:
        return gl_fmin(c, gl_fmax(c, x, y), xi_splat(c, z, t));
    case 44:
        return int_intrin2(c, "llvm.umin", int_intrin2(c, "llvm.umax", x, y), z);
    case 45:
        return int_intrin2(c, "llvm.smin", int_intrin2(c, "llvm.smax", x, y), z);
    case 46: { /* x * (1 - a) + y * a, as the spec writes it */
        LLVMValueRef a = xi_splat(c, z, t);
        LLVMValueRef l = LLVMBuildFMul(b, x, LLVMBuildFSub(b, xi_fconst(c, t, 1.0), a, ""), "");
        return LLVMBuildFAdd(b, l, LLVMBuildFMul(b, xi_splat(c, y, t), a, ""), "");
    }
    case 47: { /* the same in (wrapping) integers */
        LLVMValueRef a = xi_splat(c, z, t);
        LLVMValueRef l = LLVMBuildMul(b, x, LLVMBuildSub(b, xi_iconst(c, t, 1), a, ""), "");
        return LLVMBuildAdd(b, l, LLVMBuildMul(b, xi_splat(c, y, t), a, ""), "");
    }
    case 48:
        return xi_step(c, x, y);
    case 49:
        return xi_smoothstep(c, x, y, z);
    case 50:
        return xi_intrin3(c, "llvm.fma", x, xi_splat(c, y, t), xi_splat(c, z, t));
    case 51: { /* Frexp(x, exp*) */
        LLVMTypeRef pt = c->pointee_types ? c->pointee_types[1] : NULL;
        if (LLVMGetTypeKind(LLVMTypeOf(y)) != LLVMPointerTypeKind || !pt || !xi_is_int(pt) ||
            xi_lanes(pt) != xi_lanes(t))
            return xi_fail(diag, XI_GLSL450, inst,
                           "operand 2 must be a pointer to integers shaped like x (%s), got %s to %s", xi_type_str(t),
                           xi_type_str(LLVMTypeOf(y)), xi_type_str(pt));
        LLVMValueRef e, m = xi_frexp(c, x, xi_elem(pt), &e);
        xi_store_out(c, e, y);
        return m;
    }
    case 52: {
        LLVMTypeRef rt = c->result_type;
        if (!rt || LLVMGetTypeKind(rt) != LLVMStructTypeKind || LLVMCountStructElementTypes(rt) != 2)
            return xi_fail(diag, XI_GLSL450, inst, "result type must be a struct {x's type, integers}, not %s",
                           xi_type_str(rt));
        LLVMTypeRef mem[2];
        LLVMGetStructElementTypes(rt, mem);
        if (!xi_is_int(mem[1]) || xi_lanes(mem[1]) != xi_lanes(t))
            return xi_fail(diag, XI_GLSL450, inst, "member 1 of the result must be integers shaped like x, not %s",
                           xi_type_str(mem[1]));
        LLVMValueRef e, m = xi_frexp(c, x, xi_elem(mem[1]), &e);
        LLVMValueRef r = LLVMBuildInsertValue(b, LLVMGetPoison(rt), m, 0, "");
        return LLVMBuildInsertValue(b, r, e, 1, "");
    }
    case 53:
        if (!xi_is_int(LLVMTypeOf(y)))
            return xi_fail(diag, XI_GLSL450, inst, "exp must be an integer scalar or vector, not %s",
                           xi_type_str(LLVMTypeOf(y)));
        return xi_ldexp(c, x, y);
    case 66:
        return xi_length_naive(c, x);
    case 67:
        return xi_length_naive(c, LLVMBuildFSub(b, x, xi_splat(c, y, t), ""));
    case 68:
        if (xi_lanes(t) != 3 || xi_lanes(LLVMTypeOf(y)) != 3)
            return xi_fail(diag, XI_GLSL450, inst, "operands must be 3-component vectors, not %s", xi_type_str(t));
        return xi_cross(c, x, y);
    case 69: {
        LLVMValueRef len = xi_length_naive(c, x);
        return LLVMBuildFDiv(b, x, xi_splat(c, len, t), "");
    }
    case 70: { /* FaceForward(N, I, Nref): dot(Nref, I) < 0 ? N : -N */
        LLVMValueRef d = xi_dot(c, xi_splat(c, z, t), xi_splat(c, y, t));
        LLVMValueRef neg = xi_fcmp(c, LLVMRealOLT, d, LLVMConstReal(xi_elem(t), 0.0));
        return xi_select(c, neg, x, LLVMBuildFNeg(b, x, ""));
    }
    case 71: { /* Reflect(I, N) = I - 2 * dot(N, I) * N */
        LLVMValueRef n = xi_splat(c, y, t);
        LLVMValueRef d2 = LLVMBuildFMul(b, LLVMConstReal(xi_elem(t), 2.0), xi_dot(c, n, x), "");
        return LLVMBuildFSub(b, x, LLVMBuildFMul(b, xi_splat(c, d2, t), n, ""), "");
    }
    case 72: { /* Refract(I, N, eta) */
        LLVMTypeRef e = xi_elem(t);
        LLVMValueRef n = xi_splat(c, y, t), eta = xi_fpcast(c, z, e);
        LLVMValueRef one = LLVMConstReal(e, 1.0);
        LLVMValueRef d = xi_dot(c, n, x);
        LLVMValueRef k = LLVMBuildFSub(b, one,
                                       LLVMBuildFMul(b, LLVMBuildFMul(b, eta, eta, ""),
                                                     LLVMBuildFSub(b, one, LLVMBuildFMul(b, d, d, ""), ""), ""),
                                       "");
        LLVMValueRef f = LLVMBuildFAdd(b, LLVMBuildFMul(b, eta, d, ""), xi_intrin1(c, "llvm.sqrt", k), "");
        LLVMValueRef r = LLVMBuildFSub(b, LLVMBuildFMul(b, xi_splat(c, eta, t), x, ""),
                                       LLVMBuildFMul(b, xi_splat(c, f, t), n, ""), "");
        return xi_select(c, xi_fcmp(c, LLVMRealOLT, k, LLVMConstReal(e, 0.0)), xi_fconst(c, t, 0.0), r);
    }
    case 73: { /* FindILsb: -1 for 0 */
        LLVMValueRef tz = count_bits(c, "llvm.cttz", x);
        LLVMValueRef is0 = LLVMBuildICmp(b, LLVMIntEQ, x, LLVMConstNull(t), "");
        return xi_select(c, is0, xi_iconst(c, t, -1), tz);
    }
    case 74:
    case 75: { /* (bits-1) - ctlz(v): -1 when v == 0 */
        LLVMValueRef v = x;
        unsigned bits = xi_int_bits(t);
        if (inst == 74) /* signed: the most significant bit that differs from the sign bit */
            v = LLVMBuildXor(b, x, LLVMBuildAShr(b, x, xi_iconst(c, t, bits - 1), ""), "");
        return LLVMBuildSub(b, xi_iconst(c, t, bits - 1), count_bits(c, "llvm.ctlz", v), "");
    }
    case 76:
    case 77:
    case 78:
        return xi_fail(diag, XI_GLSL450, inst,
                       "needs the InterpolationFunction capability (Fragment shaders); "
                       "spvjit runs compute code only");
    case 79:
        return xi_intrin2(c, "llvm.minnum", x, xi_splat(c, y, t));
    case 80:
        return xi_intrin2(c, "llvm.maxnum", x, xi_splat(c, y, t));
    case 81:
        return xi_fclamp(c, x, y, z);
    }
    return xi_fail(diag, XI_GLSL450, inst, "not lowered (internal error)");
}
