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
#include "spec_value.h"

/* Specializes `m` with `values` (n of them), fitted to the constants by the
 * rule of spec_value.h (spv_spec_resolve: a later value for an id wins).  On
 * success returns 0 and a malloc'd word array (host byte order) in *out_words /
 * *out_nwords.  Errors (an unknown SpecId — the message lists the ids the
 * module has —, a value that does not fit its constant) return -1 with diag
 * filled; a division by zero in a folded OpSpecConstantOp is *not* an error:
 * SPIR-V leaves the result undefined and the specializer yields 0. */
int spv_specialize(const spv_module *m, const spv_spec_value *values, size_t n, uint32_t **out_words,
                   size_t *out_nwords, spv_diag *diag);

#endif
