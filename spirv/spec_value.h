/* spirv/spec_value.h — specialization-constant values: the one rule for what fits.
 *
 * Every path that gives a spec constant a value (the public API's typed and
 * text setters, `spvjit run/compile/specialize -D`, Amber's SPECIALIZE, the
 * specializer itself) decides through spv_spec_value_bits(), so a value is
 * accepted or refused the same way, with the same words, everywhere.
 *
 * The rule.  A value is given typed (bool, i8..i64, u8..u64, f16/f32/f64: a
 * typed setter or a ":u64"-style suffix) or as text without a type, which is
 * read as the constant's own type.  It fits the constant when:
 *   - bool constant: a bool, or an integer of any type whose value is 0 or 1
 *     (Vulkan passes a bool spec constant as a 4-byte VkBool32, VK_FALSE or
 *     VK_TRUE; OpenCL's clSetProgramSpecializationConstant as one byte 0/1);
 *     text: true, false, 1, 0.
 *   - integer constant: an integer of any width and signedness whose value
 *     the constant's type holds (16:u64 fits a u32; -1:i32 does not).  In a
 *     Kernel (OpenCL) module integer types carry no signedness, so a value
 *     fits when it is in the signed or the unsigned range of the width (-1
 *     for a 32-bit constant is 0xffffffff).  Text: decimal or 0x hex, the
 *     same ranges.  Not a bool, not a float (a VkSpecializationMapEntry would
 *     copy a float's bytes into the integer: surely a mistake).
 *   - float constant: a float of any width whose value converts exactly
 *     (0.5:f64 fits an f32, 0.1:f64 does not; infinities and NaN stay what
 *     they are).  Text: any decimal or hex float, inf, nan, rounded to nearest
 *     even; finite text that rounds to infinity is refused.  Not an integer.
 *   - raw bytes (SPV_VALUE_BYTES, as Vulkan's VkSpecializationInfo gives them):
 *     exactly the constant's size (a bool: a 4-byte VkBool32, or OpenCL's one
 *     byte, holding 0 or 1), read as a value of the constant's own type.
 * Setting an id the module lacks is an error that lists the ids it has; when
 * one id is set twice, the later value wins.  One SpecId on several constants
 * (glslang's work-group size) gives each of them the value, fitted to each.
 */
#ifndef SPVJIT_SPIRV_SPEC_VALUE_H
#define SPVJIT_SPIRV_SPEC_VALUE_H

#include "module.h"

/* The type a user gives a value with.  SPV_VALUE_AUTO means "parsed from text
 * without a suffix": it takes the constant's own type if the text fits it. */
typedef enum spv_value_type {
    SPV_VALUE_AUTO = 0,
    SPV_VALUE_BOOL,
    SPV_VALUE_I8,
    SPV_VALUE_I16,
    SPV_VALUE_I32,
    SPV_VALUE_I64,
    SPV_VALUE_U8,
    SPV_VALUE_U16,
    SPV_VALUE_U32,
    SPV_VALUE_U64,
    SPV_VALUE_F16,
    SPV_VALUE_F32,
    SPV_VALUE_F64,
    SPV_VALUE_BYTES, /* raw bytes of a size (spv_spec_value.size), as a VkSpecializationMapEntry gives them */
} spv_value_type;

/* One user-supplied value. */
typedef struct spv_spec_value {
    uint32_t spec_id;
    spv_value_type type;
    uint64_t bits;    /* bool 0/1; ints: two's complement, zero-extended; floats: IEEE bits */
    const char *text; /* for SPV_VALUE_AUTO: the text as the user wrote it (e.g. "1.5"); else NULL */
    uint32_t size;    /* for SPV_VALUE_BYTES: how many bytes (1, 2, 4 or 8; bits holds them little-endian) */
} spv_spec_value;

/* A specialization constant as the module declares it (OpSpecConstant,
 * OpSpecConstantTrue/False with a SpecId decoration). */
typedef struct spv_spec_constant {
    uint32_t spec_id;
    uint32_t id;      /* result id */
    const char *name; /* OpName or NULL */
    uint32_t type_id;
    spv_value_type type; /* bool / int / float of the constant's width and signedness */
    uint64_t default_bits;
} spv_spec_constant;

/* Lists the module's SpecId-decorated constants, sorted by spec_id (then id).
 * Returns the count and a malloc'd array in *out (free() it). */
size_t spv_spec_constants(const spv_module *m, spv_spec_constant **out);

/* The value type of a scalar type id (bool, int, float); SPV_VALUE_AUTO for
 * any other type. */
spv_value_type spv_value_type_of(const spv_module *m, uint32_t type_id);
/* Name of a value type ("u32", "f16", "bool", ...; "auto"). */
const char *spv_value_type_name(spv_value_type t);
/* Width in bits (bool: 1; SPV_VALUE_AUTO: 0). */
unsigned spv_value_type_bits(spv_value_type t);
/* The value as text: "true", "-3", "4294967295", "0.5", "inf" (floats with the
 * digits that read back to the same value). */
void spv_value_format(spv_value_type t, uint64_t bits, char *buf, size_t len);

/* Parses "ID=VALUE" / "VALUE" text forms: 16, 0x10, -3, 1.5, true/false, with an
 * optional type suffix ":u8", ":i64", ":f16", ":f64", ":bool" ...  Fills v (the
 * spec_id only when "ID=" is given; v->text points into `text`).  Returns 0,
 * or -1 with a message. */
int spv_parse_spec_value(const char *text, spv_spec_value *v, spv_diag *diag);

/* Parses `text` (no "ID=" prefix, no suffix) as a value of type `t` (not
 * SPV_VALUE_AUTO) into IEEE / two's complement bits, zero-extended.  Returns 0,
 * or -1 with a message when the text is not such a value or is out of range
 * for the type (floats: finite text that rounds to infinity). */
int spv_parse_value_as(const char *text, spv_value_type t, uint64_t *bits, spv_diag *diag);

/* THE rule (above): the bits constant `c` of module `m` takes for value `v`.
 * Returns 0, or -1 with "<source>: SpecId N (name, type): <why>" in diag. */
int spv_spec_value_bits(const spv_module *m, const spv_spec_constant *c, const spv_spec_value *v, uint64_t *bits,
                        spv_diag *diag);

/* The value of every constant of `list` (n of them, from spv_spec_constants:
 * sorted by SpecId, possibly with several entries per SpecId): out[i] is list[i]'s default,
 * replaced by the last of `values` with its SpecId, fitted by
 * spv_spec_value_bits.  Returns 0, or -1 with the error (an unknown SpecId:
 * "<source>: SpecId N is not in the module; it has SpecIds 0 (BS u32), ..."). */
int spv_spec_resolve(const spv_module *m, const spv_spec_constant *list, size_t n, const spv_spec_value *values,
                     size_t nvalues, uint64_t *out, spv_diag *diag);

#endif
