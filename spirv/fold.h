/* spirv/fold.h — evaluating the opcodes OpSpecConstantOp allows, on constant values.
 *
 * A folded value is a scalar or a vector of up to 16 lanes of bool, 8–64-bit
 * integer or 16/32/64-bit float bits.  Every lane holds its bits zero-extended
 * (ints: two's complement masked to the width; floats: IEEE bits; bools 0/1).
 * Aggregates (arrays, structs, matrices) are not values here: the specializer
 * handles CompositeExtract/Insert/Select on them by constituent ids.
 *
 * Where SPIR-V leaves a result undefined, the folder picks a fixed answer so a
 * specialization is reproducible:
 *   - UDiv/SDiv/UMod/SRem/SMod by 0, and SDiv/SRem/SMod of INT_MIN by -1:  0.
 *   - shifts by an amount >= the base width (the amount read as unsigned):
 *     ShiftLeftLogical/ShiftRightLogical give 0, ShiftRightArithmetic gives
 *     the sign fill (0 or all ones), i.e. "as if shifted one bit at a time".
 *   - ConvertFToS/ConvertFToU out of range: saturate to the type's minimum or
 *     maximum; NaN gives 0.
 *   - FRem/FMod by 0: NaN (C fmod's answer).
 *   - VectorShuffle lane 0xFFFFFFFF (undefined lane): 0.
 * Results of integer arithmetic wrap modulo 2^width.  FRem takes the sign of
 * the dividend (C fmod), FMod the sign of the divisor.  Half-precision
 * arithmetic is done in double and rounded once to half (round to nearest
 * even), which is the correctly rounded half result for + - * / (53 >= 2*11+2).
 * QuantizeToF16 rounds to nearest even; too large gives ±inf, a result that
 * would be a half denormal gives 0 of the same sign, NaN stays NaN.
 */
#ifndef SPVJIT_SPIRV_FOLD_H
#define SPVJIT_SPIRV_FOLD_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"

#define SPV_FOLD_MAX_LANES 16

typedef enum spv_fold_kind {
    SPV_FOLD_NONE = 0,
    SPV_FOLD_BOOL,
    SPV_FOLD_INT,
    SPV_FOLD_FLOAT,
} spv_fold_kind;

typedef struct spv_fold_type {
    uint8_t kind;  /* spv_fold_kind */
    uint8_t width; /* bits: 1 for bool, 8..64 for ints, 16/32/64 for floats */
    uint8_t lanes; /* 1 for a scalar, 2..16 for a vector */
} spv_fold_type;

typedef struct spv_fold_value {
    spv_fold_type t;
    uint64_t lane[SPV_FOLD_MAX_LANES]; /* bits of each lane, zero-extended; unused lanes 0 */
} spv_fold_value;

/* True if spv_fold() evaluates `opcode` (an opcode OpSpecConstantOp allows with
 * a scalar/vector result).  The pointer opcodes (AccessChain, ConvertPtrToU,
 * ...) are allowed by SPIR-V but not folded. */
bool spv_fold_supports(uint32_t opcode);

/* Evaluates `opcode` with result type `rt` on `nargs` operand values and the
 * literal operands `lits` (VectorShuffle components, CompositeExtract/Insert
 * indices).  Returns 0, or -1 with a message (no source prefix: the caller
 * adds where) when the operands do not fit the opcode. */
int spv_fold(uint32_t opcode, spv_fold_type rt, const spv_fold_value *args, uint32_t nargs, const uint32_t *lits,
             uint32_t nlits, spv_fold_value *out, spv_diag *diag);

/* Bits of the value masked to `width` (1..64). */
static inline uint64_t spv_fold_mask(uint64_t v, unsigned width)
{
    return width >= 64 ? v : v & ((UINT64_C(1) << width) - 1);
}
/* Sign-extends the low `width` bits of v. */
static inline int64_t spv_fold_sext(uint64_t v, unsigned width)
{
    if (width >= 64)
        return (int64_t)v;
    uint64_t m = UINT64_C(1) << (width - 1);
    v = spv_fold_mask(v, width);
    return (int64_t)((v ^ m) - m);
}

/* IEEE half <-> double.  spv_f64_to_f16 rounds to nearest even (overflow gives
 * ±inf, NaN stays NaN keeping the sign and the top payload bits). */
double spv_f16_to_f64(uint16_t h);
uint16_t spv_f64_to_f16(double d);
/* Float bits of `width` (16/32/64) <-> double (exact except double -> narrower,
 * which rounds to nearest even). */
double spv_float_bits_to_f64(uint64_t bits, unsigned width);
uint64_t spv_f64_to_float_bits(double d, unsigned width);

#endif
