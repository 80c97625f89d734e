/* lib/call_exported.h — calling exported SPIR-V functions through libffi.
 *
 * A function's C signature is known only from its SPIR-V OpTypeFunction, so
 * calls go through libffi: one ffi_cif prepared per signature, then one
 * ffi_call per lane, each argument taken from its uniform value or from the
 * lane's element of its varying array.  Scalars (bool, 8–64-bit ints, float,
 * double) and pointers are passed; half, vectors and structs are refused
 * (their native calling convention is not libffi's to describe).
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

typedef enum api_ffi_class { API_FFI_VOID, API_FFI_SINT, API_FFI_UINT, API_FFI_FLOAT, API_FFI_PTR } api_ffi_class;

typedef struct api_ffi_sig {
    ffi_cif cif;
    unsigned nargs;
    ffi_type *ret;
    api_ffi_class ret_class;
    size_t ret_size; /* bytes of one result (0: void) */
    ffi_type *args[API_FFI_MAX_ARGS];
    size_t arg_sizes[API_FFI_MAX_ARGS];
} api_ffi_sig;

/* Prepares sig from OpTypeFunction `fn_type` of m.  0, or -1 with diag. */
int api_ffi_sig_make(const spv_module *m, uint32_t fn_type, api_ffi_sig *sig, spv_diag *diag);

/* Calls fn for `lanes` lanes (see spvjit_call_exported). */
void api_ffi_call_lanes(const api_ffi_sig *sig, void (*fn)(void), unsigned lanes, const spvjit_call_arg *args,
                        void *results);

/* The function with Linkage Export name `name` (its id), or 0. */
uint32_t api_find_export(const spv_module *m, const char *name);

#endif
