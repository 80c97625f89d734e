/* jit/kernel_internal.h — the compiled-kernel object and the steps shared by
 * its three makers (private to jit/):
 *   spvjit_compile()           jit.c        lower, optimize, emit an object, link it;
 *   spvjit_load_object()       object.c     facts from the module, a cached object linked;
 *   spvjit_compile_function()  export_fn.c  one function with a C signature.
 *
 * The facts (spvjit_kernel_facts) come from an analysis of the module that
 * makes no LLVM IR (analyze.c), so a cached object can be paired with facts
 * recomputed from the same module; only what code generation decides
 * (barrier_regions, which symbols exist) travels with the object.
 */
#ifndef SPVJIT_JIT_KERNEL_INTERNAL_H
#define SPVJIT_JIT_KERNEL_INTERNAL_H

#include "jit_internal.h"
#include "lower_ctx.h"

struct jit_kernel {
    LLVMOrcLLJITRef jit; /* owns the code */
    spvjit_kernel_facts facts;
    spvjit_wg_fn wg, wg_init;
    spvjit_item_fn item;
    spvjit_native_fn export_fn; /* spvjit_compile_function's result */
    spvjit_param *params;
    spvjit_resource *res;
    uint32_t *spec_ids;
    unsigned char *blob; /* keep_object: the object with its facts (object.c) */
    size_t blob_len;
};

/* Milliseconds on a monotonic clock. */

/* The entry point by name (NULL: the first compute one), checked to be a
 * compute entry point with a body; NULL with diag filled otherwise. */
const spv_entry_point *jit_find_entry(const spv_module *m, const char *name, spv_diag *diag);

/* Allocates the per-id tables of c for module m.  llc may be NULL for an
 * analysis only (no LLVM types, builders or module). */
void jit_ctx_init(lower_ctx *c, const spv_module *m, LLVMContextRef llc);
void jit_ctx_free(lower_ctx *c);

/* Settles the local size of c->ep (options, LocalSize, LocalSizeId, the
 * WorkgroupSize builtin) and numbers the spec-constant slots.  0 or -1. */
int jit_settle_entry(lower_ctx *c, const spvjit_options *o);
/* Analyzes everything reachable from function fidx: recursion, reachability
 * (c->reach), barrier sites, module-scope memory and resources, work-group
 * scratch, the entry's Kernel parameters (is_entry), Function variables.
 * Makes no LLVM IR, except the globals of program-scope Kernel data when
 * c->mod is set.  0 or -1 with c->diag filled. */
int jit_analyze(lower_ctx *c, uint32_t fidx, bool is_entry);
/* Copies the analysis into k->facts; k takes over params, resources, spec ids. */
void jit_fill_facts(jit_kernel *k, lower_ctx *c);

/* Barrier kernels stay on fibers when asked (spvjit_options.barriers; lib/ resolves it). */
bool jit_barriers_on_fibers(const spvjit_options *o);

/* Verifies c->mod; -1 with c->diag filled (a JIT bug) when it does not. */
int jit_verify(lower_ctx *c);

/* Which of the functions of jit/abi.h an object defines. */
enum { JIT_HAS_WG = 1, JIT_HAS_ITEM = 2, JIT_HAS_WG_INIT = 4 };
/* Makes k->blob from k->facts and the object's bytes (object.c).  0, or -1 out of memory. */
int jit_keep_object(jit_kernel *k, unsigned syms, const void *obj, size_t len);

/* A fresh LLVM module for the host target of tm, in c->llc (sets c->mod, c->td). */
void jit_new_host_module(lower_ctx *c, LLVMTargetMachineRef tm, const char *name);

#endif
