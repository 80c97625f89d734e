/* spirv/specialize.h — folding specialization constants into true constants.
 *
 * The specializer takes a loaded module and user values by SpecId, and writes a
 * new module in which every OpSpecConstant* has become an OpConstant* (folding
 * OpSpecConstantOp chains in dependency order with SPIR-V's wrapping and
 * division rules), LocalSizeId / the WorkgroupSize builtin have become a plain
 * LocalSize, and array lengths that depended on spec constants are plain
 * constants.  The output is a word array that spirv-val accepts; load it again
 * with spv_module_load() to lower it.
 */
#ifndef SPVJIT_SPIRV_SPECIALIZE_H
#define SPVJIT_SPIRV_SPECIALIZE_H

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
} spv_value_type;

/* One user-supplied value. */
typedef struct spv_spec_value {
    uint32_t spec_id;
    spv_value_type type;
    uint64_t bits;    /* bool 0/1; ints: two's complement, zero-extended; floats: IEEE bits */
    const char *text; /* for SPV_VALUE_AUTO: the text as the user wrote it (e.g. "1.5"); else NULL */
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

/* Lists the module's SpecId-decorated constants, sorted by spec_id.  Returns the
 * count and a malloc'd array in *out (free() it). */
size_t spv_spec_constants(const spv_module *m, spv_spec_constant **out);

/* Name of a value type ("u32", "f16", "bool", ...). */
const char *spv_value_type_name(spv_value_type t);
/* Width in bits (bool: 1; SPV_VALUE_AUTO: 0). */
unsigned spv_value_type_bits(spv_value_type t);

/* Parses "ID=VALUE" / "VALUE" text forms: 16, 0x10, -3, 1.5, true/false, with an
 * optional type suffix ":u8", ":i64", ":f16", ":f64", ":bool" ...  Fills v.
 * Returns 0, or -1 with a message. */
int spv_parse_spec_value(const char *text, spv_spec_value *v, spv_diag *diag);

/* Parses `text` (no "ID=" prefix, no suffix) as a value of type `t` (not
 * SPV_VALUE_AUTO) into IEEE / two's complement bits, zero-extended.  Returns 0,
 * or -1 with a message when the text is not such a value or is out of range
 * for the type (floats: finite text that rounds to infinity). */
int spv_parse_value_as(const char *text, spv_value_type t, uint64_t *bits, spv_diag *diag);

/* Specializes `m` with `values` (n of them).  On success returns 0 and a
 * malloc'd word array (host byte order) in *out_words / *out_nwords.  Errors
 * (unknown SpecId — the message lists the ids the module has —, a value whose
 * type does not match the constant's, a value out of range for its width, the
 * same id set twice with different types, a division by zero in a folded
 * OpSpecConstantOp is *not* an error: SPIR-V leaves the result undefined and
 * the specializer yields 0) return -1 with diag filled. */
int spv_specialize(const spv_module *m, const spv_spec_value *values, size_t n, uint32_t **out_words,
                   size_t *out_nwords, spv_diag *diag);

#endif
