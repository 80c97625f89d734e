/* jit/kernel_internal.h — the compiled-kernel object and the steps shared by
 * its three makers (private to jit/):
 *   spvjit_compile()           jit.c        lower, optimize, emit an object, link it;
 *   spvjit_load_object()       object.c     facts from the module, a cached object linked;
 *   spvjit_compile_function()  export_fn.c  one function with a C signature.
 * Each starts a build (compile.c), runs its steps with the out-of-memory exit
 * armed (jit_run_guarded), and ends the build, which releases everything the
 * compile held, in one place, whatever happened.
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
    jit_code *code; /* the native code, in the process's JIT */
    spvjit_kernel_facts facts;
    spvjit_wg_range_fn wg_range;
    spvjit_wg_fn wg_init;
    spvjit_item_fn item;
    spvjit_native_fn export_fn; /* spvjit_compile_function's result */
    spvjit_param *params;
    spvjit_resource *res;
    uint32_t *spec_ids;
    unsigned char *blob; /* keep_object: the object with its facts (object.c) */
    size_t blob_len;
};

/* One compile (compile.c). */
typedef struct jit_barrier_path jit_barrier_path;
typedef struct jit_build {
    lower_ctx c;
    LLVMTargetMachineRef tm; /* the thread's (optimize.c), NULL for an analysis */
    const spvjit_options *o;
    const jit_barrier_path *barrier_path;   /* set: the emitted texts start with its reason */
    double t_start, t_lowered, t_optimized; /* util_now_ms() */
    char llvm_error[256];                   /* LLVM's first error diagnostic (compile.c), or "" */
} jit_build;

/* Starts a compile of module m for entry point ep (NULL: one function of a
 * Kernel-flavour module): the lowering context and, with_llvm, the host
 * target machine, an LLVM context and a module named `name`.  0, or -1 with
 * diag filled; jit_build_end() releases either way. */
int jit_build_begin(jit_build *b, const spv_module *m, const spv_entry_point *ep, const spvjit_options *o,
                    bool with_llvm, const char *name, spv_diag *diag);
/* The back half, after lowering: the texts the options ask for, the passes,
 * code generation.  The object (the module is spent), or NULL with diag filled. */
LLVMMemoryBufferRef jit_build_object(jit_build *b);
/* Releases everything the build holds: the arena, builders, module, LLVM
 * context and target machine. */
void jit_build_end(jit_build *b);
/* Verifies c->mod; -1 with c->diag filled (a JIT bug) when it does not. */
int jit_verify(lower_ctx *c);

/* Which of the functions of jit/abi.h an object defines. */
enum { JIT_HAS_WG_RANGE = 1, JIT_HAS_ITEM = 2, JIT_HAS_WG_INIT = 4 };
/* Links an object (consumed) into k and sets k->wg_range / item / wg_init from the
 * symbols `syms` says it defines.  0, or -1 with diag filled. */
int jit_kernel_link(jit_kernel *k, LLVMMemoryBufferRef obj, unsigned syms, spv_diag *diag);

/* The entry point by name (NULL: the first compute one), checked to be a
 * compute entry point with a body; NULL with diag filled otherwise. */
const spv_entry_point *jit_find_entry(const spv_module *m, const char *name, spv_diag *diag);

/* Settles the local size of c->ep (options, LocalSize, LocalSizeId, the
 * WorkgroupSize builtin) and numbers the spec-constant slots.  0 or -1. */
int jit_settle_entry(lower_ctx *c, const spvjit_options *o);
/* Analyzes everything reachable from function fidx: recursion, reachability
 * (c->reach), barrier sites, module-scope memory and resources, work-group
 * scratch, the entry's Kernel parameters (is_entry), Function variables.
 * Makes no LLVM IR, except the globals of program-scope Kernel data when
 * c->mod is set.  0 or -1 with c->diag filled. */
int jit_analyze(lower_ctx *c, uint32_t fidx, bool is_entry);
/* Copies the analysis into k->facts (k owns copies of the parameters,
 * resources and spec ids).  0, or -1 out of memory. */
int jit_fill_facts(jit_kernel *k, lower_ctx *c);

/* The sub-group size the options ask for: 1 with simd off, the host's native
 * one (jit_host_lanes32) when not given. */
unsigned jit_subgroup_size_asked(const spvjit_options *o);

/* Makes k->blob from k->facts and the object's bytes (object.c).  0, or -1 out of memory. */
int jit_keep_object(jit_kernel *k, unsigned syms, const void *obj, size_t len);

#endif
