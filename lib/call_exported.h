/* lib/call_exported.h — exported SPIR-V functions: what host C passes them, and calls through libffi.
 *
 * A function's C signature is known only from its SPIR-V OpTypeFunction, so
 * calls go through libffi: one ffi_cif prepared per exported function when
 * the module loads, then one ffi_call per lane, each argument taken from its
 * uniform value or from the lane's element of its varying array.  Scalars
 * (bool, 8–64-bit ints, float, double) and pointers are passed; half, vectors
 * and structs are refused (jit/export_fn.c makes no C form of them).
 */
#ifndef SPVJIT_LIB_CALL_EXPORTED_H
#define SPVJIT_LIB_CALL_EXPORTED_H

#include <ffi.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/spvjit.h"
#include "spirv/diag.h"
#include "spirv/module.h"

#define API_FFI_MAX_ARGS 64

typedef struct api_ffi_sig {
    ffi_cif cif;
    unsigned nargs;
    ffi_type *ret;
    size_t ret_size; /* bytes of one result (0: void) */
    ffi_type *args[API_FFI_MAX_ARGS];
    size_t arg_sizes[API_FFI_MAX_ARGS];
} api_ffi_sig;

/* One exported function of a module (spvjit_module.exports). */
typedef struct api_export {
    uint32_t func_id;
    spvjit_export_info pub;      /* pub.params is params; type names and pub.unsupported owned */
    spvjit_export_value *params; /* [pub.nparams] */
    api_ffi_sig *sig;            /* the prepared call; NULL when pub.unsupported */
} api_export;

/* Prepares sig from OpTypeFunction `fn_type` of m.  0, or -1 with diag. */
int api_ffi_sig_make(const spv_module *m, uint32_t fn_type, api_ffi_sig *sig, spv_diag *diag);

/* Calls fn for `lanes` lanes (see spvjit_call_exported; the sizes are checked
 * there), one after another until stop(user, lane) says so after one (stop
 * may be NULL).  Returns the lanes run. */
unsigned api_ffi_call_lanes(const api_ffi_sig *sig, void (*fn)(void), unsigned lanes, const spvjit_call_arg *args,
                            void *results, bool (*stop)(void *user, unsigned lane), void *user);

/* The function with Linkage Export name `name` (its id), or 0. */
uint32_t api_find_export(const spv_module *m, const char *name);

#endif
