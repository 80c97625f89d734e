/* spvjit.h — the public C API of libspvjit.
 *
 * spvjit runs SPIR-V compute modules (OpenCL/SYCL "Kernel" flavour and Vulkan
 * "Shader" flavour) on the CPU: it folds specialization-constant values into
 * the module, compiles the entry point to native code through LLVM and runs
 * dispatches on every core.
 *
 *   spvjit_module *m;
 *   spvjit_module_load_file(ctx, "mm.spv", &m);
 *   spvjit_spec_set_u32(specs, 0, 16);                    // SpecId 0 = 16
 *   spvjit_kernel *k;
 *   spvjit_kernel_build(m, "main", specs, NULL, &k);      // cached by values
 *   spvjit_bind_buffer(k, 0, 0, a, a_bytes);              // set 0, binding 0
 *   spvjit_dispatch(k, &(spvjit_dispatch_info){.groups = {64, 64, 1}});
 *
 * Conventions: every function returns an spvjit_status; on failure the
 * object's (or the context's) last error message says what and where
 * (spvjit_last_error).  Nothing here prints or exits.  All functions are
 * thread-safe; one kernel's bindings should be set by one thread at a time
 * (dispatches copy the bindings, so a kernel can be rebound while a dispatch
 * it started is still running asynchronously).  libspvjit.so carries its own
 * LLVM; a program linking libspvjit.a with libLLVM.so shares it, and the first
 * compile sets one of its code generation options for the whole process
 * (-dag-maps-huge-region=200: README, Embedding).
 */
#ifndef SPVJIT_H
#define SPVJIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SPVJIT_VERSION_MAJOR 0
#define SPVJIT_VERSION_MINOR 1
#define SPVJIT_VERSION_PATCH 0
#define SPVJIT_VERSION_STRING "0.1.0"

#if defined(__GNUC__)
#define SPVJIT_API __attribute__((visibility("default")))
#else
#define SPVJIT_API
#endif

typedef enum spvjit_status {
    SPVJIT_OK = 0,
    SPVJIT_ERROR_INVALID_MODULE, /* malformed or invalid SPIR-V */
    SPVJIT_ERROR_UNSUPPORTED,    /* valid SPIR-V that spvjit cannot run (names the instruction) */
    SPVJIT_ERROR_SPEC_CONSTANT,  /* unknown SpecId, wrong value type, out of range */
    SPVJIT_ERROR_BINDING,        /* missing or too small buffer, bad argument index/size */
    SPVJIT_ERROR_DISPATCH,       /* bad dispatch size, barrier divergence, ... */
    SPVJIT_ERROR_NOT_FOUND,      /* entry point, file */
    SPVJIT_ERROR_IO,
    SPVJIT_ERROR_OUT_OF_MEMORY,
    SPVJIT_ERROR_INVALID_ARGUMENT, /* NULL where an object is needed, etc. */
    SPVJIT_ERROR_TIMEOUT,          /* a dispatch ran past its time limit (spvjit_dispatch_info.timeout_seconds) */
    SPVJIT_ERROR_CANCELLED,        /* a dispatch was cancelled (spvjit_dispatch_cancel) */
    SPVJIT_ERROR_MEMORY_CHECK,     /* memory=check: an out-of-bounds access or a work-group memory race */
    SPVJIT_ERROR_LIMIT,            /* valid, but beyond a limit of spvjit_limits_get (work-group size, memory) */
} spvjit_status;

typedef struct spvjit_context spvjit_context; /* thread pool, kernel cache */
typedef struct spvjit_module spvjit_module;   /* a loaded, validated module */
typedef struct spvjit_specs spvjit_specs;     /* a set of spec-constant values */
typedef struct spvjit_kernel spvjit_kernel;   /* compiled entry point + its bindings */
typedef struct spvjit_event spvjit_event;     /* an asynchronous dispatch */

/* --- options ---------------------------------------------------------------
 * How kernels are built and run.  Every field's 0 means "not given": a build
 * takes it from the context's defaults (spvjit_context_options.defaults), the
 * context from the environment variable named below (read once, when the
 * context is created), and failing those the built-in default; so an explicit
 * API value beats the environment, which beats the built-in default.  A value
 * outside the ones listed is an SPVJIT_ERROR_INVALID_ARGUMENT naming it; a bad
 * environment variable fails spvjit_context_create naming the variable and
 * the values it takes.  Every option is part of the kernel caches' keys.
 * A sub-group size above 1 with simd off is a contradiction
 * (SPVJIT_ERROR_INVALID_ARGUMENT). */

/* Barriers ($SPVJIT_BARRIERS=auto|regions|fibers; built-in: auto). */
typedef enum spvjit_barriers {
    SPVJIT_BARRIERS_DEFAULT = 0,
    SPVJIT_BARRIERS_AUTO,    /* compiled into barrier-free regions where possible, else fibers */
    SPVJIT_BARRIERS_REGIONS, /* compiled into regions; a kernel whose barriers cannot be fails to
                                build (SPVJIT_ERROR_UNSUPPORTED) with the reason */
    SPVJIT_BARRIERS_FIBERS,  /* every work-item on a fiber that switches at each barrier */
} spvjit_barriers;

/* SIMD across work-items ($SPVJIT_SIMD=auto|off; built-in: auto). */
typedef enum spvjit_simd {
    SPVJIT_SIMD_DEFAULT = 0,
    SPVJIT_SIMD_AUTO, /* sub-groups as SIMD lanes where the JIT can */
    SPVJIT_SIMD_OFF,  /* the scalar work-item path */
} spvjit_simd;

/* Memory accesses ($SPVJIT_MEMORY=robust|check|unchecked; built-in: robust).
 * robust follows Vulkan's robustBufferAccess2 for every access: storage and
 * uniform buffers (against the bytes bound), push constants, Kernel-flavour
 * global and constant pointers (against the argument's buffer; a pointer
 * whose origin the JIT cannot follow against the ranges the dispatch binds),
 * work-group, Private and Function variables.  An out-of-bounds load reads
 * zero, an out-of-bounds store or atomic does nothing (an atomic returns
 * zero); a vector or composite partly out of bounds is checked component by
 * component.  Nothing outside the bound ranges is ever touched.  check does
 * the same and stops the dispatch at the first out-of-bounds access or data
 * race on work-group memory with SPVJIT_ERROR_MEMORY_CHECK (the message names
 * the work-group, the work-item, the instruction with its source line, the
 * range, the offset and the bound).  With robust and check a buffer may be
 * bound with fewer bytes than its block declares. */
typedef enum spvjit_memory {
    SPVJIT_MEMORY_DEFAULT = 0,
    SPVJIT_MEMORY_ROBUST,    /* out-of-bounds loads read zero, stores are dropped (robustBufferAccess2) */
    SPVJIT_MEMORY_CHECK,     /* the first out-of-bounds access or work-group-memory race is an error */
    SPVJIT_MEMORY_UNCHECKED, /* trusted kernels: no bounds handling */
} spvjit_memory;

/* Compile tiers ($SPVJIT_TIER=auto|quick|opt; built-in: auto).  The quick
 * tier compiles in a few milliseconds (a cheap pass pipeline, fast
 * instruction selection) into code that runs several times slower; the
 * optimized tier takes tens of milliseconds.  Both compute the same results.
 * auto: the build returns with quick code and the optimized code compiles on
 * a pool thread, 10 ms later (a program that ends sooner never pays for it);
 * dispatches switch to it when it is ready, never in the middle of a
 * dispatch, and a dispatch of more than 65536 work-items made meanwhile waits
 * for it (compiling it at once) instead of running slow code.  The disk cache
 * holds optimized code only, so a later process starts optimized. */
typedef enum spvjit_tier {
    SPVJIT_TIER_DEFAULT = 0,
    SPVJIT_TIER_AUTO,  /* a quick tier runs at once while the optimized one compiles */
    SPVJIT_TIER_QUICK, /* only the quick tier */
    SPVJIT_TIER_OPT,   /* only the optimized tier: the build waits for it */
} spvjit_tier;

/* spvjit_build_options.subgroup_size: the native size, given explicitly
 * ($SPVJIT_SUBGROUP_SIZE=native; built-in: native). */
#define SPVJIT_SUBGROUP_SIZE_NATIVE UINT32_MAX

typedef struct spvjit_build_options {
    uint32_t local_size[3]; /* where the module leaves it open (Kernel without
                               reqd_work_group_size); 0,0,0: chosen at dispatch */
    bool unspecialized;     /* keep spec constants as run-time values (for measuring) */
    int opt_level;          /* 1..3 (0: 3) */
    bool no_opt;            /* really -O0 */
    spvjit_barriers barriers;
    uint32_t subgroup_size; /* 1, 4, 8, 16, 32, 64 or SPVJIT_SUBGROUP_SIZE_NATIVE ($SPVJIT_SUBGROUP_SIZE) */
    spvjit_simd simd;
    spvjit_memory memory;
    spvjit_tier tier;
} spvjit_build_options;

/* --- context -------------------------------------------------------------- */

typedef struct spvjit_context_options {
    unsigned threads;              /* worker threads incl. the caller; 0: $SPVJIT_THREADS, else all cores */
    size_t cache_bytes;            /* in-memory kernel cache bound; 0: 256 MiB */
    const char *disk_cache_dir;    /* NULL: $XDG_CACHE_HOME/spvjit, else $HOME/.cache/spvjit; "" disables */
    spvjit_build_options defaults; /* for every build in the context (fields left 0: the environment's
                                      or the built-in default) */
} spvjit_context_options;

/* The process's worker threads ("spvjit-worker"), shared by its contexts,
 * start when a context is created, as many as its thread count needs that
 * are not running yet (a forked child starts its own; fork() waits for the
 * library's background compiles running then).  Destroying a context
 * cancels its optimized compiles still in the background and waits for those
 * running; a process that exits without doing so has them ended before
 * exit() goes on.  libspvjit.so stays loaded once loaded: dlclose() does
 * not unmap it (its worker threads and exit handlers live in it). */
SPVJIT_API spvjit_status spvjit_context_create(const spvjit_context_options *opts, spvjit_context **out);
SPVJIT_API void spvjit_context_destroy(spvjit_context *ctx);
/* The last error message of this thread ("" if none). */
SPVJIT_API const char *spvjit_last_error(void);
SPVJIT_API const char *spvjit_status_name(spvjit_status s);
SPVJIT_API const char *spvjit_version(void);

/* What spvjit runs at most, checked before anything runs: a kernel beyond
 * them fails to build (local size, static work-group memory, private memory),
 * a dispatch beyond them fails (a local size chosen at dispatch, work-group
 * memory with the local-memory arguments), with SPVJIT_ERROR_LIMIT naming the
 * limit.  Group counts whose work-item ids do not fit the built-ins' width
 * are SPVJIT_ERROR_DISPATCH. */
typedef struct spvjit_limits {
    uint32_t max_workgroup_invocations; /* work-items per work-group */
    uint32_t max_workgroup_size[3];     /* per dimension */
    uint32_t max_workgroup_count[3];    /* Vulkan-style group counts per dimension (base group included) */
    uint64_t max_workgroup_memory;      /* bytes of work-group (shared, __local) memory per work-group */
    uint64_t max_private_memory;        /* bytes of Private and Function variables per work-item */
} spvjit_limits;
SPVJIT_API spvjit_status spvjit_limits_get(spvjit_limits *out);

/* --- modules and their reflection ------------------------------------------- */

SPVJIT_API spvjit_status spvjit_module_load(spvjit_context *ctx, const void *bytes, size_t nbytes, const char *name,
                                            spvjit_module **out);
SPVJIT_API spvjit_status spvjit_module_load_file(spvjit_context *ctx, const char *path, spvjit_module **out);
SPVJIT_API void spvjit_module_destroy(spvjit_module *m);

typedef enum spvjit_flavour { SPVJIT_FLAVOUR_SHADER, SPVJIT_FLAVOUR_KERNEL } spvjit_flavour;
SPVJIT_API spvjit_flavour spvjit_module_flavour(const spvjit_module *m);

/* What the module declares (names are SPIR-V's enumerant names, e.g.
 * "Physical64", "OpenCL"; they live as long as the module). */
typedef struct spvjit_module_info {
    spvjit_flavour flavour;
    unsigned spirv_major, spirv_minor; /* the header's version */
    uint32_t addressing_model;         /* SpvAddressingModel */
    const char *addressing_model_name;
    uint32_t memory_model; /* SpvMemoryModel */
    const char *memory_model_name;
    unsigned ncapabilities; /* spvjit_module_capability(m, 0 .. n-1) */
} spvjit_module_info;
SPVJIT_API spvjit_status spvjit_module_info_get(const spvjit_module *m, spvjit_module_info *out);
/* The i-th OpCapability's name ("Shader", "Int64"), NULL past the end. */
SPVJIT_API const char *spvjit_module_capability(const spvjit_module *m, unsigned i);

SPVJIT_API unsigned spvjit_module_entry_count(const spvjit_module *m);
SPVJIT_API const char *spvjit_module_entry_name(const spvjit_module *m, unsigned i);

#define SPVJIT_NO_SPEC_ID UINT32_MAX

/* How an entry point's work-group (local) size is given. */
typedef enum spvjit_local_size_kind {
    SPVJIT_LOCAL_SIZE_FIXED,    /* LocalSize: local_size */
    SPVJIT_LOCAL_SIZE_SPEC,     /* LocalSizeId or the WorkgroupSize builtin: spec constants may set it
                                   (local_size_spec_id); local_size is the size at the module's defaults */
    SPVJIT_LOCAL_SIZE_DISPATCH, /* none: chosen at dispatch (Kernel flavour); local_size is the
                                   LocalSizeHint, or 0,0,0 */
} spvjit_local_size_kind;

typedef struct spvjit_entry_info {
    const char *name;
    uint32_t execution_model;         /* SpvExecutionModel */
    const char *execution_model_name; /* "GLCompute", "Kernel", ... */
    bool is_compute;                  /* GLCompute or Kernel: spvjit can build it */
    spvjit_local_size_kind local_size_kind;
    uint32_t local_size[3];         /* see spvjit_local_size_kind (0 where unknown) */
    uint32_t local_size_spec_id[3]; /* LOCAL_SIZE_SPEC: the SpecId giving each dimension,
                                           SPVJIT_NO_SPEC_ID for a plain or computed one */
    uint64_t wg_memory_bytes;       /* static Workgroup variables at the defaults (Kernel
                                           local pointer arguments come on top, sized at dispatch) */
} spvjit_entry_info;
SPVJIT_API spvjit_status spvjit_module_entry_info(const spvjit_module *m, unsigned i, spvjit_entry_info *out);

typedef enum spvjit_type {
    SPVJIT_TYPE_BOOL = 1,
    SPVJIT_TYPE_I8,
    SPVJIT_TYPE_I16,
    SPVJIT_TYPE_I32,
    SPVJIT_TYPE_I64,
    SPVJIT_TYPE_U8,
    SPVJIT_TYPE_U16,
    SPVJIT_TYPE_U32,
    SPVJIT_TYPE_U64,
    SPVJIT_TYPE_F16,
    SPVJIT_TYPE_F32,
    SPVJIT_TYPE_F64,
} spvjit_type;
/* "bool", "i8", ... "f64" (the -D suffixes); "?" for anything else. */
SPVJIT_API const char *spvjit_type_name(spvjit_type t);
/* A value as text ("true", "-3", "0.1", "inf": floats with the fewest digits
 * that read back to the same value).  Returns buf. */
SPVJIT_API const char *spvjit_value_text(spvjit_type t, uint64_t bits, char *buf, size_t len);

/* What a spec constant's value decides besides the values it feeds (a bit set
 * in spvjit_spec_info.sets; directly or through OpSpecConstantOp chains). */
typedef enum spvjit_spec_sets {
    SPVJIT_SETS_LOCAL_SIZE_X = 1 << 0, /* a work-group size dimension */
    SPVJIT_SETS_LOCAL_SIZE_Y = 1 << 1,
    SPVJIT_SETS_LOCAL_SIZE_Z = 1 << 2,
    SPVJIT_SETS_ARRAY_LENGTH = 1 << 3, /* the length of an array type */
} spvjit_spec_sets;

/* One entry per SpecId (glslang may put one id on several constants: they
 * are set together). */
typedef struct spvjit_spec_info {
    uint32_t spec_id;
    const char *name; /* OpName (of any constant carrying the id) or NULL */
    spvjit_type type;
    uint64_t default_bits; /* bool 0/1, ints zero-extended, floats IEEE bits */
    unsigned sets;         /* spvjit_spec_sets bits */
} spvjit_spec_info;
SPVJIT_API unsigned spvjit_module_spec_count(const spvjit_module *m);
SPVJIT_API spvjit_status spvjit_module_spec_info(const spvjit_module *m, unsigned i, spvjit_spec_info *out);

typedef enum spvjit_resource_kind {
    SPVJIT_RES_ARG_POINTER,    /* Kernel: a global/constant pointer argument (bind a buffer) */
    SPVJIT_RES_ARG_LOCAL,      /* Kernel: a local (work-group) pointer argument (give a size) */
    SPVJIT_RES_ARG_VALUE,      /* Kernel: a by-value argument (give its bytes) */
    SPVJIT_RES_STORAGE_BUFFER, /* Shader */
    SPVJIT_RES_UNIFORM_BUFFER, /* Shader */
    SPVJIT_RES_PUSH_CONSTANTS, /* Shader */
    SPVJIT_RES_UNSUPPORTED,    /* Shader: an image, sampler or other handle spvjit cannot bind
                                  (building the entry point fails) */
} spvjit_resource_kind;

typedef struct spvjit_resource_info {
    spvjit_resource_kind kind;
    const char *name;          /* parameter / variable / block name, or NULL */
    uint32_t index;            /* Kernel: argument index */
    uint32_t set, binding;     /* Shader buffers */
    uint64_t size;             /* by-value bytes; buffers: fixed part's bytes (at the module's defaults) */
    uint64_t stride;           /* buffers ending in a runtime array: its stride, else 0 */
    const char *type_name;     /* readable type ("float", "struct Buf { float[] }"); pointer
                              arguments: the pointee's */
    const char *storage_class; /* SPIR-V storage class ("StorageBuffer", "CrossWorkgroup", ...);
                                  pointer arguments: the pointee's address space */
    bool readonly;             /* never written by the kernel: NonWritable, const/__constant pointers,
                                  uniform buffers, push constants, by-value arguments */
    spvjit_type elem_type;     /* the scalar its elements are made of (float* and float[] blocks:
                                  F32; vec4[]: F32); 0 when they differ */
} spvjit_resource_info;
/* Interface of entry point `entry` (NULL: the only/first compute entry).
 * Work-group variables are not listed (see spvjit_entry_info.wg_memory_bytes). */
SPVJIT_API unsigned spvjit_module_resource_count(const spvjit_module *m, const char *entry);
SPVJIT_API spvjit_status spvjit_module_resource_info(const spvjit_module *m, const char *entry, unsigned i,
                                                     spvjit_resource_info *out);

/* --- specialization values ------------------------------------------------------ */

SPVJIT_API spvjit_status spvjit_specs_create(spvjit_specs **out);
SPVJIT_API void spvjit_specs_destroy(spvjit_specs *s);
SPVJIT_API spvjit_status spvjit_spec_set_bool(spvjit_specs *s, uint32_t spec_id, bool v);
SPVJIT_API spvjit_status spvjit_spec_set_i32(spvjit_specs *s, uint32_t spec_id, int32_t v);
SPVJIT_API spvjit_status spvjit_spec_set_u32(spvjit_specs *s, uint32_t spec_id, uint32_t v);
SPVJIT_API spvjit_status spvjit_spec_set_i64(spvjit_specs *s, uint32_t spec_id, int64_t v);
SPVJIT_API spvjit_status spvjit_spec_set_u64(spvjit_specs *s, uint32_t spec_id, uint64_t v);
SPVJIT_API spvjit_status spvjit_spec_set_f32(spvjit_specs *s, uint32_t spec_id, float v);
SPVJIT_API spvjit_status spvjit_spec_set_f64(spvjit_specs *s, uint32_t spec_id, double v);
/* Any type, raw bits (i8/u8/i16/u16/f16 included). */
SPVJIT_API spvjit_status spvjit_spec_set(spvjit_specs *s, uint32_t spec_id, spvjit_type type, uint64_t bits);
/* Text form, as on the command line: "16", "0x10", "-3", "1.5", "true", "2.5:f64". */
SPVJIT_API spvjit_status spvjit_spec_set_text(spvjit_specs *s, uint32_t spec_id, const char *text);
/* "ID=VALUE", as `spvjit -D` takes it: "0=16", "3=2.5:f64". */
SPVJIT_API spvjit_status spvjit_spec_set_define(spvjit_specs *s, const char *id_equals_value);
/* Raw bytes, as a VkSpecializationMapEntry gives them (size 1, 2, 4 or 8): read
 * as a value of the constant's own type, whose size they must have (a bool: a
 * 4-byte VkBool32, or one byte, holding 0 or 1). */
SPVJIT_API spvjit_status spvjit_spec_set_bytes(spvjit_specs *s, uint32_t spec_id, const void *data, size_t size);
/* Which values fit which constants (checked when the specs meet a module, in
 * spvjit_kernel_build, spvjit_module_specialize ...; a setting for an id twice
 * keeps the later value):
 *   - bool constants: a bool, or an integer of any type that is 0 or 1 (a
 *     Vulkan VkBool32; OpenCL's one byte); text true, false, 1, 0;
 *   - integer constants: an integer of any width and signedness whose value
 *     the constant's type holds (16 as a u64 fits a u32; -1 does not).  Kernel
 *     (OpenCL) integers have no signedness: the signed or the unsigned range
 *     of the width (-1 for a 32-bit constant is 0xffffffff);
 *   - float constants: a float of any width that converts exactly (0.5 as an
 *     f64 fits an f32, 0.1 does not); text is rounded to nearest;
 *   - raw bytes (spvjit_spec_set_bytes): the constant's size, its own type.
 * Text without a suffix is read as the constant's own type.  An id the module
 * lacks is an error that lists the ids it has. */

/* --- specializing a module --------------------------------------------------------------
 * The module with `specs` (NULL: its defaults) folded in, as SPIR-V words (host
 * byte order): every spec constant has become a constant, OpSpecConstantOp
 * chains are folded, LocalSizeId / the WorkgroupSize builtin are a plain
 * LocalSize.  The output is validated with SPIRV-Tools (a value can make a
 * valid module invalid).  *words is malloc'd: release it with spvjit_free. */
SPVJIT_API spvjit_status spvjit_module_specialize(const spvjit_module *m, const spvjit_specs *specs, uint32_t **words,
                                                  size_t *nwords);

/* --- kernels ------------------------------------------------------------------------ */

/* Builds (or finds in the cache) entry point `entry` with `specs` (NULL: defaults). */
SPVJIT_API spvjit_status spvjit_kernel_build(spvjit_module *m, const char *entry, const spvjit_specs *specs,
                                             const spvjit_build_options *opts, spvjit_kernel **out);
SPVJIT_API void spvjit_kernel_destroy(spvjit_kernel *k);

/* The compile behind a kernel: for a local size chosen at dispatch, the one
 * the latest dispatch used (all zero before the first dispatch).  The times
 * are those of the compile that made the current code (on a cache hit too);
 * code loaded from the disk cache reports its analysis as lower_ms, its
 * linking as codegen_ms and passes_ms 0; total_ms is the build (specialize +
 * the first compile or the load). */
typedef struct spvjit_kernel_stats {
    bool from_cache; /* memory or disk cache hit */
    double lower_ms, passes_ms, codegen_ms, total_ms;
    uint64_t wg_memory_bytes;
    bool uses_barriers;
    uint32_t local_size[3];    /* 0 when chosen at dispatch and not dispatched yet */
    uint32_t subgroup_size;    /* work-items per sub-group in the current code: the SIMD lanes, 1 when they run
                                  one at a time (the quick code of a kernel that cannot observe them does) */
    spvjit_tier tier;          /* the code a dispatch starting now runs: QUICK or OPT */
    bool opt_pending;          /* auto: the optimized code is still compiling */
    double opt_ready_ms;       /* ms after the build began at which optimized code was in
                                  place (0: not yet, or never: quick builds, failures) */
    spvjit_tier dispatch_tier; /* the code this kernel's latest dispatch ran (DEFAULT: none) */
    uint64_t quick_dispatches; /* this kernel's dispatches on the quick code */
    uint64_t opt_dispatches;   /* and on the optimized code */
    uint64_t fallback_groups;  /* memory=robust: work-groups the optimized code could not prove in
                                  bounds, which ran on the quick code, every check in place
                                  (dispatches of the compiled code: kernels with the same
                                  module, entry, values and options share it) */
} spvjit_kernel_stats;

/* The sub-group size of kernels built with subgroup_size native: the host's
 * 32-bit vector lanes (16 with AVX-512, 8 with AVX2, 4 with SSE or NEON). */
SPVJIT_API uint32_t spvjit_native_subgroup_size(void);
/* The sub-group size builds in ctx ask for by default (its options and
 * environment: SPVJIT_SUBGROUP_SIZE, SPVJIT_SIMD=off gives 1).  A kernel whose
 * code the vectorizer declines runs sub-groups of 1 (spvjit_kernel_stats says). */
SPVJIT_API uint32_t spvjit_context_subgroup_size(const spvjit_context *ctx);
SPVJIT_API spvjit_status spvjit_kernel_stats_get(const spvjit_kernel *k, spvjit_kernel_stats *out);

/* Returns when the kernel's optimized code is in place (auto builds; at once
 * for quick and opt builds): SPVJIT_OK, or the error of an optimized compile
 * that failed (the kernel keeps running its quick code). */
SPVJIT_API spvjit_status spvjit_kernel_wait_optimized(spvjit_kernel *k);

/* Builds in the background, on the thread pool: kernels built together
 * compile in parallel on all cores.  The arguments are checked and the spec
 * values copied before it returns (errors there come at once); the build's
 * own errors come from spvjit_build_wait, which every event needs (it frees
 * the event) and which builds on the calling thread if no worker has begun. */
typedef struct spvjit_build_event spvjit_build_event;
SPVJIT_API spvjit_status spvjit_kernel_build_async(spvjit_module *m, const char *entry, const spvjit_specs *specs,
                                                   const spvjit_build_options *opts, spvjit_build_event **ev);
/* The build's status and its kernel (out NULL: the kernel is destroyed). */
SPVJIT_API spvjit_status spvjit_build_wait(spvjit_build_event *ev, spvjit_kernel **out);

/* Bindings.  Buffers are used in place (not copied); they must stay valid
 * until the dispatches that use them finished. */
SPVJIT_API spvjit_status spvjit_bind_buffer(spvjit_kernel *k, uint32_t set, uint32_t binding, void *data, size_t bytes);
/* Element `element` of a descriptor array (spvjit_bind_buffer binds element 0). */
SPVJIT_API spvjit_status spvjit_bind_buffer_element(spvjit_kernel *k, uint32_t set, uint32_t binding, uint32_t element,
                                                    void *data, size_t bytes);
SPVJIT_API spvjit_status spvjit_set_push_constants(spvjit_kernel *k, const void *data, size_t bytes);
/* Kernel flavour: argument i as a buffer (pointer args), bytes (by-value args)
 * or a local-memory size (local pointer args). */
SPVJIT_API spvjit_status spvjit_set_arg_buffer(spvjit_kernel *k, uint32_t index, void *data, size_t bytes);
SPVJIT_API spvjit_status spvjit_set_arg_value(spvjit_kernel *k, uint32_t index, const void *value, size_t bytes);
SPVJIT_API spvjit_status spvjit_set_arg_local(spvjit_kernel *k, uint32_t index, size_t bytes);

typedef struct spvjit_dispatch_info {
    /* Vulkan style: group counts (and an optional base group). */
    uint32_t groups[3];
    uint32_t base_group[3];
    /* OpenCL style, used when work_dim != 0: global size, optional local size
     * (0: the kernel's or one chosen by spvjit), global offset. */
    uint32_t work_dim;
    uint64_t global_size[3];
    uint32_t local_size[3];
    uint64_t global_offset[3];
    /* A time limit (0: none): a dispatch still running that many seconds after
     * it started stops and returns SPVJIT_ERROR_TIMEOUT. */
    double timeout_seconds;
} spvjit_dispatch_info;

/* A dispatch that stops early (a time limit, spvjit_dispatch_cancel, a
 * memory=check report) returns at the next back edge of a loop of the kernel
 * code; its message names the kernel and how many work-groups had completed.
 * Buffers are then partly written; the kernel, the context and everything
 * else stay usable. */
SPVJIT_API spvjit_status spvjit_dispatch(spvjit_kernel *k, const spvjit_dispatch_info *d);
SPVJIT_API spvjit_status spvjit_dispatch_async(spvjit_kernel *k, const spvjit_dispatch_info *d, spvjit_event **ev);
/* Waits for an asynchronous dispatch, returns its status and frees the event. */
SPVJIT_API spvjit_status spvjit_event_wait(spvjit_event *ev);
/* Cancels every dispatch of k running now, synchronous (in other threads) or
 * asynchronous: each returns SPVJIT_ERROR_CANCELLED.  Later dispatches run as
 * usual.  Safe from any thread. */
SPVJIT_API spvjit_status spvjit_dispatch_cancel(spvjit_kernel *k);

/* --- calling exported SPIR-V functions from host C -------------------------------------
 * Functions with Linkage Export (in OpenCL C 2.0: every non-static function
 * that is not a kernel) of a Kernel-flavour module, run from host code.
 * Reflection says what each takes and returns, in the types above; the call
 * checks every size it is given against that signature. */

/* How host C passes one parameter or the result. */
typedef enum spvjit_value_kind {
    SPVJIT_VALUE_VOID,    /* the result of a function returning nothing */
    SPVJIT_VALUE_SCALAR,  /* a bool, integer or float: `type` */
    SPVJIT_VALUE_POINTER, /* an address: storage_class, elem_type and readonly say into what */
    SPVJIT_VALUE_OTHER,   /* a vector, matrix, struct, array or handle: host C cannot pass it */
} spvjit_value_kind;

typedef struct spvjit_export_value {
    const char *name; /* the parameter's OpName, or NULL (the result: NULL) */
    spvjit_value_kind kind;
    spvjit_type type;      /* SCALAR: its type.  A bool is one byte in C (0 or 1); Kernel-flavour
                              integers carry no signedness, so they read as U8 .. U64 */
    size_t size;           /* bytes of one value: the scalar's, sizeof(void *) for a pointer;
                              0 for void and OTHER */
    const char *type_name; /* readable: "float", "CrossWorkgroup float*", "float4" */
    /* POINTER: what it points to (the function may index beyond one element) */
    const char *storage_class; /* the pointee's SPIR-V storage class ("CrossWorkgroup", "Generic",
                                  "Workgroup", "Function", ...); NULL for other kinds */
    spvjit_type elem_type;     /* the scalar the pointee is made of (float*: F32; float4*: F32);
                                  0 when they differ, or for other kinds */
    bool readonly;             /* never written through: FuncParamAttr NoWrite, or UniformConstant */
} spvjit_export_value;

/* Strings and params live as long as the module. */
typedef struct spvjit_export_info {
    const char *name; /* the Linkage Export name */
    spvjit_export_value result;
    unsigned nparams;
    const spvjit_export_value *params; /* [nparams] */
    const char *unsupported;           /* NULL when host C can call it, else why not ("parameter 0
                                          (v) has type float4, ..."); the body is checked when the
                                          call compiles it (a work-group barrier is refused then) */
} spvjit_export_info;
/* Exported functions in the module's order of LinkageAttributes decorations. */
SPVJIT_API unsigned spvjit_module_export_count(const spvjit_module *m);
SPVJIT_API spvjit_status spvjit_module_export_info(const spvjit_module *m, unsigned i, spvjit_export_info *out);

/* Runs exported function `name`, compiled with `specs` (NULL: the defaults;
 * cached by values like kernels), for `lanes` lanes, one after another on the
 * calling thread.  Each argument is uniform (one value for every lane) or
 * varying (an array of `lanes` values); `size` states the bytes at `data`,
 * which must be the parameter's size (uniform) or lanes times it (varying).
 * Results land in `results`: results_size must be lanes times the result's
 * size (0 for a void function; results may then be NULL).  A size that does
 * not match the signature is an SPVJIT_ERROR_BINDING naming the parameter,
 * its type and the sizes; a wrong argument count SPVJIT_ERROR_INVALID_ARGUMENT.
 * A name the module does not export (SPVJIT_ERROR_NOT_FOUND) and a function
 * host C cannot call (SPVJIT_ERROR_UNSUPPORTED) are refused before the
 * arguments are looked at.
 * A pointer argument's value is the address itself (size sizeof(void *)):
 * what it points to must hold whatever the function reads or writes there.
 * The context's memory mode applies to the function's own variables: with
 * memory=check the call stops at the first lane that accesses one out of
 * range, SPVJIT_ERROR_MEMORY_CHECK naming the lane and the access (the lanes
 * before it wrote their results). */
typedef struct spvjit_call_arg {
    const void *data; /* the value (uniform) or the array of values (varying); NULL only when size is 0 */
    size_t size;      /* bytes at data */
    bool varying;
} spvjit_call_arg;
SPVJIT_API spvjit_status spvjit_call_exported(spvjit_module *m, const char *name, const spvjit_specs *specs,
                                              unsigned lanes, const spvjit_call_arg *args, unsigned nargs,
                                              void *results, size_t results_size);

/* --- inspecting the generated code (lib/api_emit.c) ---------------------------------
 * The text of one entry point compiled with `specs` and `opts` (as
 * spvjit_kernel_build would): SPVJIT_EMIT_LLVM the LLVM IR as lowered,
 * SPVJIT_EMIT_OPT_LLVM after the optimization passes, SPVJIT_EMIT_ASM the host
 * assembly.  *text is malloc'd: release it with spvjit_free.  Nothing is cached. */
typedef enum spvjit_emit_kind { SPVJIT_EMIT_LLVM, SPVJIT_EMIT_OPT_LLVM, SPVJIT_EMIT_ASM } spvjit_emit_kind;
SPVJIT_API spvjit_status spvjit_kernel_emit(spvjit_module *m, const char *entry, const spvjit_specs *specs,
                                            const spvjit_build_options *opts, spvjit_emit_kind what, char **text);
SPVJIT_API void spvjit_free(void *p);

#ifdef __cplusplus
}
#endif
#endif
