/* spirv/shape.h — compile-time values of the integer constants that shape a
 * module: array lengths, LocalSizeId, Scope and Memory Semantics operands.
 *
 * A specialized module has only plain constants.  An unspecialized one (the
 * JIT's mode that reads spec constants at run time) still needs the values
 * that decide types and the work-group size at compile time: a SpecId
 * constant takes its shape value when one is given, else its default, and an
 * OpSpecConstantOp chain is evaluated with the specializer's folder
 * (spirv/fold.h), so both modes compute the same lengths. */
#ifndef SPVJIT_SPIRV_SHAPE_H
#define SPVJIT_SPIRV_SHAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "module.h"

/* A compile-time value of a spec constant: its bits, zero-extended. */
typedef struct spv_shape_value {
    uint32_t spec_id;
    uint64_t bits;
} spv_shape_value;

typedef struct spv_shape {
    const spv_module *m;
    const spv_shape_value *values; /* may be NULL: every spec constant takes its default */
    size_t nvalues;
} spv_shape;

/* The value of the scalar integer or bool constant `id` (bits zero-extended
 * from its width), or false — without a message — when `id` is no such
 * constant or its OpSpecConstantOp chain cannot be evaluated. */
bool spv_shape_u64(const spv_shape *s, uint32_t id, uint64_t *out);

#endif
