/* jit/jit.h — compiling one entry point of a loaded SPIR-V module to native code.
 *
 * spvjit_compile() lowers the entry point through the LLVM C API, optimizes it
 * for the host CPU at the tier asked for (spvjit_options.tier: the quick tier's
 * cheap pipeline, or O3 with loop and SLP vectorization) and JIT-compiles it
 * into the process's ORC LLJIT.  The result is a kernel object holding the native functions of
 * jit/abi.h and the facts the executor needs to run them.
 *
 * Two modes:
 *  - specialized (the default): the module has gone through the specializer
 *    (spirv/specialize.h), so every former spec constant is a literal.  Any
 *    spec constant still present takes its default value.
 *  - unspecialized: the ORIGINAL module is compiled; every scalar OpSpecConstant*
 *    is read at run time from ctx->spec_values, one 8-byte slot per constant
 *    (its bits zero-extended, bool 0/1, floats as IEEE bits), slots in the
 *    order of the module's SpecId-decorated constants sorted by SpecId (the
 *    order of spv_spec_constants(), see spvjit_kernel_facts.spec_ids).
 *    OpSpecConstantOp / OpSpecConstantComposite become instructions.  Only what
 *    shapes types and memory — the work-group size and array lengths — takes
 *    the compile-time values in spvjit_options.shape_values (defaults otherwise).
 *
 * Sub-groups are W work-items of consecutive LocalInvocationIndex that run as
 * the lanes of SIMD vectors (jit/simd.h): W is options.subgroup_size, or the
 * host's native width (jit_host_lanes32) when 0; SubgroupSize = SubgroupMaxSize
 * = W (OpenCL's get_sub_group_size: the work-items of this sub-group, fewer
 * in the last one of a group whose size is not a multiple of W), SubgroupId =
 * LocalInvocationIndex / W, NumSubgroups = ceil(items / W), and every
 * OpGroupNonUniform* / sub-group-scope OpGroup* operation works across the
 * lanes active where it runs.  Where the vectorizer declines (it says why in
 * the emitted texts), or with simd off, or on the fiber path, sub-groups have
 * one work-item (spec-legal for both Vulkan and OpenCL) — an error when a size
 * above 1 was asked for explicitly; facts.subgroup_size says which.  The quick
 * tier also runs one work-item at a time, when the size is left native, a
 * kernel that cannot observe its sub-groups (no sub-group operation or
 * builtin): vectors would double its compile time for no visible difference.
 * Work-group-scope OpGroup* collectives (all/any/broadcast, reductions and scans)
 * exchange values through a scratch area of one slot per work-item, counted in
 * the facts' wg_mem_size, and take two barrier sites each; they need a local size
 * known at compile time.  OpGroupAsyncCopy copies at once, cooperatively, and
 * OpGroupWaitEvents is a barrier (jit/lower_wgcoll.c).
 *
 * Shader resources are numbered into slots: every Uniform / StorageBuffer /
 * non-opaque UniformConstant / PhysicalStorageBuffer-free module-scope variable
 * of the module, sorted by (DescriptorSet, Binding); a variable whose type is an
 * array of blocks (a descriptor array) takes one consecutive slot per element.
 */
#ifndef SPVJIT_JIT_JIT_H
#define SPVJIT_JIT_JIT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi.h"
#include "spirv/diag.h"
#include "spirv/module.h"
#include "spirv/shape.h"

/* What the executor runs at most (lib/ reports them: spvjit_limits_get); a
 * compile beyond them fails before any code is made.  A work-item's private
 * state lives on a thread's or a fiber's stack, work-group memory in one
 * block per thread. */
#define JIT_MAX_WORKGROUP_INVOCATIONS 4096u
#define JIT_MAX_WORKGROUP_MEMORY ((uint64_t)16 << 20)
#define JIT_MAX_PRIVATE_MEMORY ((uint64_t)1 << 20)
/* The end of the message of a compile that failed on one of them (lib/ makes
 * it SPVJIT_ERROR_LIMIT rather than SPVJIT_ERROR_UNSUPPORTED). */
#define JIT_LIMIT_TAG "(spvjit_limits_get)"

/* Metadata the lowering puts on a load or store of Workgroup memory: the
 * vector code may read and rewrite whole vectors around it (simd_memory.c;
 * the padding around the block: SPVJIT_WG_MEMORY_PAD in abi.h). */
#define JIT_WG_MD "spvjit.wg"

/* Metadata the lowering puts on a load or store that every execution makes
 * within its memory range (robust and check modes: under its bounds check, or
 * proven) when that range begins at the root of the access's GEPs (a
 * binding, a variable, a Kernel argument): the vectorizer then need not test
 * that the lanes' 32-bit indices do not wrap, a lane whose index wraps being
 * out of the range and so not running the access (simd_guard.c). */
#define JIT_INBOUNDS_MD "spvjit.inbounds"

/* A text emitted for inspection: what is "ir" (as lowered), "opt-ir" (after the
 * passes) or "asm" (host assembly). */
typedef void (*spvjit_emit_hook)(void *user, const char *what, const char *text);

/* A compile-time value of a spec constant (unspecialized mode: shapes only). */
typedef spv_shape_value spvjit_shape_value;

/* How barriers run (lib/api_options.c resolves it from the API and $SPVJIT_BARRIERS). */
typedef enum jit_barrier_mode {
    JIT_BARRIER_MODE_AUTO = 0, /* regions (wg_range_fn) where jit/regions.c can, else fibers (item_fn) */
    JIT_BARRIER_MODE_REGIONS,  /* regions; a kernel whose barriers cannot be is an error saying why */
    JIT_BARRIER_MODE_FIBERS,   /* fibers even where regions could be built */
} jit_barrier_mode;

/* simd: AUTO runs sub-groups as SIMD lanes (jit/simd.h), OFF one work-item at
 * a time.  memory is carried (and keyed, and validated by lib/) ahead of the
 * issue that gives it meaning; until then the JIT runs unchecked accesses. */
typedef enum jit_simd { JIT_SIMD_AUTO = 0, JIT_SIMD_OFF } jit_simd;
typedef enum jit_memory { JIT_MEMORY_ROBUST = 0, JIT_MEMORY_CHECK, JIT_MEMORY_UNCHECKED } jit_memory;
/* The code a compile makes (jit/optimize.c has the pipelines): QUICK a cheap
 * pass pipeline and fast instruction selection, OPT the optimizing pipeline at
 * opt_level.  One compile makes one tier; AUTO compiles as OPT (lib/ runs an
 * AUTO build as a QUICK compile followed by an OPT one in the background).
 * Both tiers of a kernel have the same facts, but for the sub-group size of a
 * kernel that cannot observe it (see Sub-groups above), and compute the same
 * results. */
typedef enum jit_tier { JIT_TIER_AUTO = 0, JIT_TIER_QUICK, JIT_TIER_OPT } jit_tier;

/* One build's options, as lib/ resolves them (lib/api_options.c, the only
 * place that reads the environment); a zeroed value means the built-in
 * defaults.  Every field that changes the code is in lib/'s cache keys. */
typedef struct spvjit_options {
    bool unspecialized;     /* see above */
    int opt_level;          /* 0..3; 3 when the options pointer is NULL */
    uint32_t local_size[3]; /* all 0: the module's (LocalSize, LocalSizeId, WorkgroupSize
                                        builtin); a module without one then gets a run-time
                                        size from the dispatch.  Non-zero: must match the
                                        module's fixed size where it has one. */
    const spvjit_shape_value *shape_values;
    size_t nshape_values;
    jit_barrier_mode barriers;
    uint32_t subgroup_size; /* 0: native; else 1, 4, 8, 16, 32 or 64 */
    jit_simd simd;
    jit_memory memory;
    jit_tier tier;
    bool keep_object;          /* keep the relocatable object of the code, with the facts
                                        it was made with, for spvjit_kernel_take_object()
                                        (optimized code only: a QUICK compile keeps none) */
    const atomic_bool *cancel; /* set while spvjit_compile runs: it stops at its next step
                                        (after lowering, after the passes) with "cancelled" */
    spvjit_emit_hook emit;     /* NULL: emit nothing */
    void *emit_user;
    bool emit_ir, emit_opt_ir, emit_asm;
} spvjit_options;

/* A Kernel-flavour parameter. */
typedef enum spvjit_param_kind {
    SPVJIT_PARAM_VALUE = 0,  /* by value: args[i] points to its bytes */
    SPVJIT_PARAM_GLOBAL_PTR, /* CrossWorkgroup / UniformConstant / Generic pointer */
    SPVJIT_PARAM_LOCAL_PTR,  /* Workgroup pointer: args[i] points to a uint64_t offset */
} spvjit_param_kind;

typedef struct spvjit_param {
    uint32_t index;
    const char *name; /* OpName or NULL (points into the module) */
    uint32_t type_id; /* SPIR-V type of the parameter */
    spvjit_param_kind kind;
    uint32_t storage; /* pointer params: SpvStorageClass of the pointee */
    uint64_t size;    /* by-value: its byte size; pointers: 8 */
    uint32_t align;
    bool noalias, readonly; /* from FuncParamAttr decorations */
} spvjit_param;

/* A Shader-flavour resource. */
typedef struct spvjit_resource {
    uint32_t var_id;
    const char *name;
    uint32_t set, binding, slot; /* slot: index in ctx->args (first element for arrays) */
    uint32_t array_count;        /* 1, or the descriptor array length */
    uint32_t storage;            /* SpvStorageClass */
    uint64_t size;               /* fixed part of the block, bytes */
    uint64_t runtime_stride;     /* element stride of a trailing runtime array, else 0 */
    bool readonly;               /* NonWritable */
} spvjit_resource;

typedef struct spvjit_kernel_facts {
    bool is_kernel;         /* OpenCL flavour */
    bool uses_barriers;     /* has work-group barriers: item_fn set, wg_range_fn NULL,
                                        unless barrier_regions */
    uint32_t subgroup_size; /* work-items per sub-group: the SIMD lanes (jit/simd.h), 1 when
                               they run one at a time (jit/sg_marker.h) */
    bool barrier_regions;   /* barriers compiled away (jit/regions.h): wg_range_fn set,
                                        item_fn NULL, no fibers needed */
    uint32_t nbarrier_sites;
    bool local_size_known;
    uint32_t local_size[3]; /* when known */
    uint64_t wg_mem_size;   /* static Workgroup variables, bytes */
    uint32_t wg_mem_align;
    uint32_t nparams;
    const spvjit_param *params;
    uint32_t nresources;
    const spvjit_resource *resources;
    uint32_t nslots; /* Shader: entries ctx->args must have */
    uint64_t push_constant_size;
    uint32_t nspec;
    const uint32_t *spec_ids; /* unspecialized: SpecId of each 8-byte slot */
    uint64_t stack_estimate;  /* per work-item private state, bytes */
    bool memory_check;        /* memory=check: one work-group per call, with the race
                                 detector's shadow (jit/abi.h) */
    double ms_lower, ms_passes, ms_codegen;
} spvjit_kernel_facts;

typedef struct jit_kernel jit_kernel;

/* Compiles entry point `entry` (NULL: the module's only/first compute one).
 * Returns NULL with diag filled on any error. */
jit_kernel *spvjit_compile(const spv_module *m, const char *entry, const spvjit_options *opts, spv_diag *diag);
void spvjit_kernel_free(jit_kernel *k);
/* Frees the kernel's native code now, keeping its facts (until spvjit_kernel_free). */
void spvjit_kernel_free_code(jit_kernel *k);

const spvjit_kernel_facts *spvjit_kernel_facts_of(const jit_kernel *k);
/* Exactly one is set: the range function unless the barriers are on fibers. */
spvjit_wg_range_fn spvjit_kernel_wg_range_fn(const jit_kernel *k); /* NULL when on the fiber path */
spvjit_item_fn spvjit_kernel_item_fn(const jit_kernel *k);         /* NULL unless on the fiber path */
/* The fiber path's work-group memory initializer (variables with initializers):
 * call it once per group before any work-item (the range function initializes
 * each of its groups itself).  NULL when there is nothing to do. */
spvjit_wg_fn spvjit_kernel_wg_init_fn(const jit_kernel *k);

/* --- compiled code outside the process: the on-disk kernel cache ---------------------
 * With spvjit_options.keep_object, a compiled kernel keeps a self-contained
 * blob: the relocatable object file of its optimized code (the same bytes the
 * JIT linked), plus the facts code generation decided (barriers compiled into
 * regions or not, which functions exist) and a check record of the facts the
 * module gives.  spvjit_load_object() links such a blob into a fresh JIT for the
 * same module and options, recomputing the facts from the module without
 * lowering or optimizing; a blob that is damaged, of another format or made
 * for other facts (another module, local size, options) is refused with diag
 * filled.  The blob is only valid on a host of the same CPU and features with
 * the same LLVM and spvjit versions: the caller's cache key must say so. */

/* Hands over the kept blob: malloc'd, the caller frees it (NULL and *len 0
 * without keep_object, or once taken). */
void *spvjit_kernel_take_object(jit_kernel *k, size_t *len);
/* A kernel from a blob of spvjit_kernel_take_object(), for entry `entry` of the module
 * it was compiled from, with the same options.  NULL with diag on any mismatch. */
jit_kernel *spvjit_load_object(const spv_module *m, const char *entry, const spvjit_options *opts, const void *blob,
                               size_t len, spv_diag *diag);

/* --- one function called from host C ---------------------------------------------------
 * Compiles function `func_id` of a Kernel-flavour module (typically one with
 * Linkage Export) into a native function with the C signature of its
 * OpTypeFunction: bool as an 8-bit 0/1 (C bool), 8-64-bit integers, float and
 * double by value, pointers (any storage class) as plain pointers; void or one
 * such result.  Vectors, structs, arrays and half are refused with an error, as
 * are functions that reach a work-group barrier or collective (they only have a
 * meaning inside a dispatch).  The function runs as the only work-item of a
 * 1x1x1 dispatch (ids 0, sizes 1), Private variables initialized per call.
 * Spec constants take their values from the module (specialize it first).
 * *owner keeps the code alive: free it with spvjit_kernel_free(). */
typedef void (*spvjit_native_fn)(void);
spvjit_native_fn spvjit_compile_function(const spv_module *m, uint32_t func_id, const spvjit_options *opts,
                                         jit_kernel **owner, spv_diag *diag);

/* How many 32-bit lanes the host's vectors have: 16 with AVX-512, 8 with
 * AVX2, 4 otherwise (SSE, NEON); the native sub-group size. */
unsigned jit_host_lanes32(void);

/* Whether an opcode (SpvOp) has a lowering; for coverage reports and tests. */
bool spvjit_opcode_lowered(uint32_t opcode);

#endif
