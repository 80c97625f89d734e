/* jit/lower_ctx.h — the lowering core: the context, memory, failure, types,
 * the value table and the few helpers every instruction class needs (private
 * to jit/).
 *
 * Layers (calls and includes run downwards only; checked by the test
 * jit_lowering_dependencies_run_one_way on the object files):
 *
 *   driver     lower_inst.c (the opcode table, lowering a function's blocks),
 *              workgroup.c, analyze.c, compile.c, jit.c, object.c,
 *              export_fn.c, and after lowering the barrier path (barrier_path.c,
 *              regions.c, cfg.c, uniformity.c, slots.c, region_loops.c)
 *                 │ calls any class and the core
 *   classes    lower_alu.c  lower_relational.c  lower_convert.c
 *              lower_composite.c  lower_memory.c  lower_cfg.c  lower_atomic.c
 *              lower_group.c  lower_dot.c  lower_barrier.c + lower_wgcoll.c
 *              + barrier_intrinsic.c
 *              lower_extinst.c + lower_glsl450.c + lower_opencl.c + extinst_util.c
 *                 │ each calls only the core (and the files of its own class)
 *   core       this header: lower_ctx.c (context, arena, failure),
 *              lower_types.c (types; layouts from spirv/layout.h),
 *              lower_constants.c (the value table, constants, spec constants),
 *              lower_build.c (small IR helpers), lower_access.c (typed loads
 *              and stores at byte offsets), lower_vars.c (module-scope
 *              variables), lower_builtins.c (builtin values), sg_marker.c
 *              (the sub-group markers, which the vectorizer consumes),
 *              lower_bounds.c (the ranges pointers may touch, checked accesses)
 *                 │ calls nothing above it — with one exception by design: an
 *                 │ OpSpecConstantOp lowered on first use goes through
 *                 │ c->dispatch, the opcode table the driver hands the core
 *   spirv/     the module model, layouts, shapes
 *
 * Memory and failure, the contract (Mesa's linear context + _vtn_fail model):
 *  - everything a compile allocates comes from c->arena (jit_alloc) and is
 *    released at once by jit_ctx_free(), or is owned by the context (the phi
 *    list, also released there) or by the LLVM context that the driver
 *    disposes right after.  The few other mallocs (printf's argument list in
 *    lower_opencl.c, the barrier path's analyses after lowering) are freed by
 *    the function that made them and never span a jit_alloc;
 *  - jit_alloc never returns NULL: when the arena is exhausted it records
 *    "out of memory" in c->diag and longjmps to the one exit armed by
 *    jit_run_guarded(), which returns -1.  Every frame it skips owns nothing
 *    that the arena or the LLVM context would not release;
 *  - any other failure calls jit_fail()/jit_fail_inst() — which fill c->diag
 *    (the first failure is kept: messages of the unwinding do not replace it)
 *    and return -1 — and returns -1 / NULL upwards, to the driver, which
 *    releases everything in one place.  Nothing on the way needs cleanup.
 *    (LLVM's own allocation failures abort the process: LLVM's contract.)
 *
 * Model of the generated code:
 *  - every SPIR-V function becomes an internal, always-inline LLVM function whose
 *    first two parameters are hidden: the spvjit_wg_ctx pointer and the pointer
 *    to this work-item's *item state*;
 *  - the item state (an alloca of the per-item function) holds the local id and
 *    local size, the "environment" pointers loaded once per work-group (work-group
 *    memory, spec values, push constants, resource bases) and the work-item's
 *    Private variables;
 *  - memory follows the layouts of spirv/layout.h: access chains are byte
 *    offsets (GEP on i8), composites are loaded/stored member by member unless
 *    LLVM's own layout of the value type is identical (then one load/store);
 *  - every function starts with a "prologue" block where allocas, global-variable
 *    pointers and (unspecialized) spec-constant values are computed, so they
 *    dominate every use.
 */
#ifndef SPVJIT_JIT_LOWER_CTX_H
#define SPVJIT_JIT_LOWER_CTX_H

#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>

#include "jit.h"
#include "sg_marker.h"
#include "spirv/layout.h"
#include "spirv/module.h"
#include "util/arena.h"
#include "util/array.h"

/* Item-state layout (bytes). */
enum {
    JIT_ITEM_LID = 0,    /* uint32_t[3] */
    JIT_ITEM_LSIZE = 12, /* uint32_t[3] */
    JIT_ITEM_GID = 24,   /* uint32_t[3]: WorkgroupId (base_group included) */
    JIT_ITEM_ENV = 40,   /* 8-byte slots, see JIT_ENV_* */
};
enum { JIT_ENV_WGMEM = 0, JIT_ENV_SPEC = 1, JIT_ENV_PUSH = 2, JIT_ENV_RES0 = 3 };

/* How a matrix sits in memory (set by access chains reaching a struct member):
 * its MatrixStride, | JIT_MAT_ROW_MAJOR; 0: the matrix type's own layout. */
#define JIT_MAT_ROW_MAJOR 0x80000000u

typedef struct jit_phi {
    LLVMValueRef phi;
    uint32_t inst;
} jit_phi;

typedef struct lower_ctx lower_ctx;
typedef int (*jit_lower_fn)(lower_ctx *c, const spv_inst *in);

/* The range a pointer value may touch (memory modes robust and check,
 * lower_bounds.c): its byte offset in the range and the range's size (i64
 * values of the current function), and what the range is (jit/abi.h). */
typedef struct jit_bounds {
    LLVMValueRef off, size; /* size NULL: not known yet */
    uint32_t kind;          /* spvjit_bound_kind */
    uint32_t index;
} jit_bounds;

/* A split access under check (lower_bounds.c → lower_access.c): each component
 * is checked at its own offset, `extra` bytes (i64, or NULL) past ptr_id's value. */
typedef struct jit_leaf_guard {
    const spv_inst *at;
    uint32_t ptr_id;
    LLVMValueRef extra;
    uint32_t kind; /* spvjit_access_kind */
} jit_leaf_guard;

/* The weight of a bounds check's in-bounds edge (the other's is 1): how the
 * passes after the optimizer recognize one (jit/unbranch.h). */
#define JIT_GUARD_WEIGHT (1u << 20)
/* Metadata on a check's `or` of the proven-for-the-group flag and its
 * compare (c->item_fast; jit/guard_versions.h). */
#define JIT_GUARD_MD "spvjit.guard"
/* Metadata on the alloca of a work-item's state (workgroup.c), which the
 * proof reads through (guard_versions.c). */
#define JIT_ITEM_STATE_MD "spvjit.item.state"
/* Metadata on a multiply, add or subtract that may contract (contract.h). */
#define JIT_CONTRACT_MD "spvjit.contract"
/* Replaces every call of JIT_GROUP_PROVEN (llvm_facts.h) left in the module
 * with `value` and deletes the declaration. */
void jit_group_proven_is(lower_ctx *c, bool value);

/* An open bounds check (jit_guard_open .. jit_guard_close). */
typedef struct jit_guard {
    LLVMBasicBlockRef fail, join, pass_end, fail_end;
    bool active;
} jit_guard;

struct lower_ctx {
    const spv_module *m;
    const spv_entry_point *ep;
    spv_diag *diag;
    bool unspec;
    bool kernel;          /* OpenCL flavour */
    jit_memory memory;    /* robust and check: accesses checked (lower_bounds.c) */
    bool invariant_loads; /* loads being built read memory that is constant for the
                             whole dispatch (push constants): !invariant.load */
    bool wg_accesses;     /* loads and stores being built access Workgroup memory: JIT_WG_MD (jit.h) */
    bool in_bounds;       /* loads and stores being built lie in their range, which begins at the
                             root of their address's GEPs: JIT_INBOUNDS_MD (jit.h) */
    bool failed;          /* c->diag holds the compile's first failure */
    uint8_t fp_relaxed;   /* float widths (bit 0: 16, 1: 32, 2: 64) whose arithmetic may ignore
                             the sign of zero and assume no NaN or Inf (jit_fp_relaxed_widths) */
    bool fp_contract;     /* multiplies and adds may fuse (jit_fp_contract_allowed, contract.h) */

    util_arena arena;      /* everything of this compile (see the contract above) */
    jmp_buf *oom_exit;     /* armed by jit_run_guarded */
    jit_lower_fn dispatch; /* the driver's opcode table (lower_inst.c) */
    spv_layouts *layouts;  /* spirv/'s records, under this compile's shape values */

    LLVMContextRef llc;
    LLVMModuleRef mod;
    LLVMTargetDataRef td;
    LLVMBuilderRef b;  /* where instructions go now */
    LLVMBuilderRef fb; /* the function body */
    LLVMBuilderRef pb; /* the current function's prologue */
    LLVMBuilderRef xb; /* scratch: for a moment elsewhere (freed with the ctx, so no leak
                          when a step runs out of memory) */
    LLVMTypeRef t_void, t_i1, t_i8, t_i16, t_i32, t_i64, t_ptr;

    /* per id, [m->bound] */
    LLVMTypeRef *vtypes;
    int8_t *compat;       /* types: -1 unknown; 1: LLVM's layout of the value type is spirv/'s */
    LLVMValueRef *consts; /* LLVM constants, valid in every function */
    LLVMValueRef *vals;   /* values of the current function */
    LLVMBasicBlockRef *blocks, *block_ends;
    uint32_t *mat_info;     /* pointer ids: how a matrix they reach sits (JIT_MAT_ROW_MAJOR) */
    uint32_t *var_slot;     /* resource variables: slot; spec constants: spec slot */
    uint64_t *var_offset;   /* Workgroup: in wg memory; Private: in the item state */
    LLVMValueRef *globals;  /* CrossWorkgroup / Kernel UniformConstant: LLVM globals */
    LLVMValueRef *fns;      /* [m->nfuncs]; NULL for functions not reached */
    bool *reach;            /* [m->nfuncs]: reachable from the compiled function */
    bool *used_globals;     /* [m->bound]: module-scope variables it statically uses */
    uint32_t *barrier_site; /* [m->ninsts]: site + 1 of OpControlBarrier, 0 otherwise */

    /* the function being lowered */
    const spv_function *fn;
    LLVMValueRef llfn, arg_ctx, arg_item;
    uint32_t cur_label; /* block being lowered */
    util_array phis;    /* jit_phi of the function (lower_cfg.c fills them in at its end) */

    /* sub-groups (jit/simd.h): the width asked for (1: work-item by work-item)
     * and whether it may narrow (a native size, jit_simd_width); after
     * jit_build_entry_functions of a barrier-free kernel, the width its range
     * got and, when 1 though more was asked, why */
    unsigned simd_width;
    bool simd_narrow;
    bool simd_observed_only; /* the quick tier: lanes only where the code observes them */
    bool quick;              /* the quick tier: no per-group proof of the bounds checks (its
                                second copy of the code doubles the compile time) */
    char simd_why[256];

    /* entry-point facts */
    bool ls_known;
    uint32_t local_size[3];
    uint32_t nres_slots;
    spvjit_resource *res;
    uint32_t nres; /* Shader resources, by slot order */
    spvjit_param *params;
    uint32_t nparams; /* Kernel parameters of the entry point */
    uint64_t item_size;
    uint64_t private_at; /* item-state offset of the first Private variable */
    uint32_t item_align;
    uint64_t fn_var_bytes; /* Function variables of every reached function */
    uint64_t wg_size;
    uint32_t wg_align;
    bool has_wg_init;
    uint32_t nspec;
    uint32_t *spec_ids;
    const spvjit_shape_value *shape;
    size_t nshape;
    uint32_t nbarriers;
    bool uses_barriers;
    uint64_t push_size;
    uint64_t wg_scratch_offset; /* work-group collectives: slots in work-group memory */
    uint64_t wg_scratch_slot;   /* bytes per work-item slot, 0: no collectives */

    /* memory modes robust and check (lower_bounds.c) */
    jit_bounds *bnd;            /* per id, the current function: the range of each pointer */
    jit_bounds *shadow;         /* per id: allocas keeping the bounds a Function variable holds */
    jit_bounds bnd_scratch;     /* bounds found at a use, not kept */
    uint64_t env_bounds;        /* item-state offset of the bounds environment (0: none) */
    uint64_t item_epoch;        /* check: item-state offset of the barriers passed (u32), 0: none */
    uint64_t item_fast;         /* robust, barrier-free: item-state offset of the flag (u8) that says
                                   the group's checks were proven at its start (guard_versions.h), 0: none */
    jit_leaf_guard *leaf_guard; /* lower_access.c: check each component (a split access) */
    bool leaf_quiet;            /* no reports from component checks (the access reported) */
    uint8_t *param_starts;      /* per id, asked lazily: a pointer parameter that points at the start
                                   of its range at every call (1) or not (2) (lower_bounds.c) */
    uint8_t entry_calls;        /* whether a function calls the entry point: 1 yes, 2 no, 0 not asked */
};

/* --- context, memory, failure (lower_ctx.c) --- */
/* Prepares c (c->m, ep, diag, unspec, kernel, shape, dispatch already set) for module m:
 * the arena, the per-id tables, the layouts; with an LLVM context (NULL: an
 * analysis only, without types, builders or module) the builders and basic
 * types.  0, or -1 with c->diag filled; jit_ctx_free() releases either way. */
int jit_ctx_init(lower_ctx *c, LLVMContextRef llc);
void jit_ctx_free(lower_ctx *c);
/* A fresh LLVM module for the host target of tm, in c->llc (sets c->mod, c->td). */
void jit_new_host_module(lower_ctx *c, LLVMTargetMachineRef tm, const char *name);
/* Runs step(c, user) with the out-of-memory exit armed: its result, or -1 when an
 * allocation failed inside (c->diag then says so). */
int jit_run_guarded(lower_ctx *c, int (*step)(lower_ctx *c, void *user), void *user);
/* n zeroed elements of `size` bytes from the arena; never NULL (see the contract). */
void *jit_alloc(lower_ctx *c, size_t n, size_t size);
/* Test hook: a byte limit for the arena of every compile started afterwards (0: none). */
void jit_set_arena_limit_for_tests(size_t bytes);

int jit_fail_inst(lower_ctx *c, const spv_inst *in, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int jit_fail(lower_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The OpName of an id, or "unnamed" (for messages and symbol names). */
const char *jit_name_of(lower_ctx *c, uint32_t id);

/* --- types and layouts (lower_types.c) --- */
const spv_type *jit_spv_type(lower_ctx *c, uint32_t id); /* NULL + diag if not a type */
LLVMTypeRef jit_type(lower_ctx *c, uint32_t type_id);    /* value type; NULL + diag */
const spv_layout *jit_layout_of(lower_ctx *c, uint32_t type_id);
uint64_t jit_member_offset(lower_ctx *c, uint32_t struct_id, uint32_t member);
uint32_t jit_member_mat_info(lower_ctx *c, uint32_t struct_id, uint32_t member);
bool jit_array_length(lower_ctx *c, uint32_t array_type_id, uint64_t *len); /* false + diag */
bool jit_shape_u64(lower_ctx *c, uint32_t id, uint64_t *out); /* compile-time value; false (quiet) if none */
bool jit_layout_compat(lower_ctx *c, uint32_t type_id);
uint32_t jit_scalar_type_of(lower_ctx *c, uint32_t type_id); /* component type of scalar/vector */
bool jit_is_float_type(lower_ctx *c, uint32_t type_id);

/* --- values and constants (lower_constants.c) --- */
LLVMValueRef jit_value(lower_ctx *c, uint32_t id); /* NULL + diag */
void jit_set(lower_ctx *c, uint32_t id, LLVMValueRef v);
void jit_clear_values(lower_ctx *c); /* a new function: no value (and no bounds) yet */
LLVMValueRef jit_const_int(lower_ctx *c, LLVMTypeRef t, uint64_t v);
LLVMValueRef jit_build_composite(lower_ctx *c, uint32_t type_id, LLVMValueRef *parts, uint32_t n);
int jit_const_bytes(lower_ctx *c, uint32_t id, uint32_t type_id, uint8_t *buf, uint64_t size);

/* --- IR helpers (lower_build.c) --- */
/* An enum attribute (LLVMAttributeFunctionIndex, or 1 + parameter index). */
void jit_add_attr(lower_ctx *c, LLVMValueRef fn, unsigned idx, const char *name);
/* Marks the loop whose back edge is `br` "do not unroll" (a large body, or
 * one inside another loop over work-items: unrolling costs compile time). */
void jit_no_unroll(lower_ctx *c, LLVMValueRef br);
/* Gives the loop whose back edge is `br` one llvm.loop property: `hint`
 * ("llvm.loop.unroll.full", ...), followed by the constant `arg` when not
 * NULL ("llvm.loop.unroll.count", N). */
void jit_loop_hint(lower_ctx *c, LLVMValueRef br, const char *hint, LLVMValueRef arg);
/* Branch weights on conditional branch br: `likely` for its first
 * successor, 1 for its second.  The passes after the optimizer tell a
 * bounds check by its weight (JIT_GUARD_WEIGHT, unbranch.c). */
void jit_weigh_likely(LLVMValueRef br, unsigned likely);
/* Puts !align `align` (bytes) on `load`, a load of a pointer. */
void jit_set_align(lower_ctx *c, LLVMValueRef load, uint64_t align);
/* Puts metadata `kind` (an empty node: a mark) on instruction v. */
void jit_mark(lower_ctx *c, LLVMValueRef v, const char *kind);
int jit_operands(lower_ctx *c, const spv_inst *in, LLVMValueRef *v, uint32_t n);
LLVMValueRef jit_intrinsic(lower_ctx *c, const char *name, LLVMTypeRef *types, unsigned ntypes, LLVMValueRef *args,
                           unsigned nargs);
LLVMValueRef jit_splat(lower_ctx *c, LLVMValueRef scalar, LLVMTypeRef vec_t);
LLVMValueRef jit_int_cast(lower_ctx *c, LLVMValueRef v, LLVMTypeRef t, bool is_signed);
/* The bits of scalar type t or of vector t's element: an integer's width,
 * 16/32/64 for half/float/double, 0 for anything else. */
unsigned jit_scalar_bits(LLVMTypeRef t);
/* The fast-math flags of float result v: its FPFastMathMode decoration's,
 * else, for arithmetic (fadd, fsub, fmul, fdiv, frem, fneg) of a relaxed
 * width, nnan ninf nsz (comparisons, conversions and calls keep IEEE). */
void jit_fp_flags(lower_ctx *c, uint32_t result_id, LLVMValueRef v);
/* The float environment of an entry point: Vulkan (Shader flavour) lets
 * float arithmetic ignore the sign of zero and give any value for NaN and Inf
 * unless SignedZeroInfNanPreserve names the width, so those widths are
 * relaxed; OpenCL (Kernel) keeps IEEE unless FPFastMathMode says otherwise. */
uint8_t jit_fp_relaxed_widths(const spv_entry_point *ep, bool kernel);
/* Whether entry point ep of a Shader module lets multiplies and adds
 * contract (no FPFastMathDefault that would say otherwise); Kernel modules
 * contract only where FPFastMathMode allows it (contract.h). */
bool jit_fp_contract_allowed(const spv_entry_point *ep, bool kernel);
/* The operation of a group instruction (sub-group and work-group alike):
 * its identity and combination are jit_sg_identity / jit_sg_combine. */
jit_sg_arith jit_group_arith(uint32_t opcode);
/* The bits of lanes [from, to) (i64s) of a sub-group lane mask, <4 x i32> as
 * Vulkan's ballots (lower_builtins.c). */
LLVMValueRef jit_lane_range_mask(lower_ctx *c, LLVMValueRef from, LLVMValueRef to);

/* --- memory at byte offsets (lower_access.c) --- */
LLVMValueRef jit_byte_gep(lower_ctx *c, LLVMValueRef base, LLVMValueRef off_i64, bool inbounds);
LLVMValueRef jit_ptr_at(lower_ctx *c, LLVMValueRef base, uint64_t off); /* base + a constant offset */
void jit_store_at(lower_ctx *c, LLVMValueRef base, uint64_t off, LLVMValueRef v, unsigned align);
/* Bytes between the columns (rows when mat has JIT_MAT_ROW_MAJOR) of a matrix. */
uint64_t jit_matrix_stride(lower_ctx *c, uint32_t type_id, uint32_t mat);
LLVMValueRef jit_load_mem(lower_ctx *c, uint32_t type_id, LLVMValueRef ptr, uint32_t align, bool is_volatile,
                          uint32_t mat);
int jit_store_mem(lower_ctx *c, uint32_t type_id, LLVMValueRef ptr, LLVMValueRef v, uint32_t align, bool is_volatile,
                  uint32_t mat);
LLVMValueRef jit_item_field_ptr(lower_ctx *c, uint64_t off);
/* A load of memory constant during every call of compiled code: the ctx, the
 * args array, the parameters' bytes (jit/abi.h).  LLVM may then compute what
 * depends on it once per call, not once per group or work-item. */
LLVMValueRef jit_load_invariant(lower_ctx *c, LLVMTypeRef t, LLVMValueRef p, unsigned align);
LLVMValueRef jit_ctx_field(lower_ctx *c, LLVMValueRef ctx, size_t off, LLVMTypeRef t);
/* ctx->wg_memory, known to be aligned as abi.h says (SPVJIT_WG_MEMORY_ALIGN). */
LLVMValueRef jit_ctx_wg_memory(lower_ctx *c, LLVMValueRef ctx);

/* --- the ranges of pointers and checked accesses (lower_bounds.c) ---
 * Everything here does nothing in memory=unchecked. */
bool jit_checks_on(const lower_ctx *c);
/* After the analysis: the bounds environment (and check's barrier count) in the item state. */
void jit_bounds_plan(lower_ctx *c);
/* The bounds environment: the size of every resource slot, then per kernel
 * parameter its base (ptr) and size (i64); entries and their types. */
unsigned jit_bounds_env_count(const lower_ctx *c);
LLVMTypeRef jit_bounds_env_type(const lower_ctx *c, unsigned k);
/* The bounds of pointer id (never NULL; found at the builder when none were kept). */
const jit_bounds *jit_bounds_of(lower_ctx *c, uint32_t id);
void jit_bounds_set(lower_ctx *c, uint32_t id, LLVMValueRef off, LLVMValueRef size, uint32_t kind, uint32_t index);
/* id points `extra` bytes (i64, NULL: 0) past `from`, in from's range. */
void jit_bounds_derive(lower_ctx *c, uint32_t id, uint32_t from, LLVMValueRef extra);
/* Element idx (i64) of descriptor array `var` whose slot bases are at `slots`
 * (count elements): its base, and its bounds in *out. */
LLVMValueRef jit_descriptor_element(lower_ctx *c, uint32_t var, LLVMValueRef slots, LLVMValueRef idx, uint32_t count,
                                    jit_bounds *out);
/* Pointer phis: their bounds are phis too, filled edge by edge. */
void jit_bounds_phi(lower_ctx *c, uint32_t id, uint32_t type_id);
void jit_bounds_phi_incoming(lower_ctx *c, uint32_t phi_id, uint32_t from, LLVMBasicBlockRef pred, unsigned edges);
/* The driver, after each instruction: bounds for pointers its lowering gave none. */
void jit_bounds_after(lower_ctx *c, const spv_inst *in);
/* Function variable `var` of `size` bytes; one holding a pointer gets shadow slots. */
void jit_bounds_variable(lower_ctx *c, uint32_t var, uint32_t pointee, uint64_t size);
void jit_bounds_store(lower_ctx *c, uint32_t ptr_id, uint32_t value_id); /* a pointer stored into ptr_id */
void jit_bounds_load(lower_ctx *c, uint32_t result_id, uint32_t ptr_id); /* ... loaded from it */
/* Hidden parameters: two i64 (offset, size) per pointer parameter of a
 * function type, after the others. */
unsigned jit_bounds_params(lower_ctx *c, uint32_t fn_type);
void jit_bounds_of_params(lower_ctx *c, const spv_function *f, LLVMValueRef fn);
unsigned jit_bounds_args(lower_ctx *c, const uint32_t *arg_ids, uint32_t n, LLVMValueRef *out);
/* A check of `bytes` (i64) at p + extra (extra: i64 or NULL), p being ptr_id's
 * value or derived from it.  false: no check needed (unchecked, or proven), the
 * access goes at the builder as is; true: the builder is in the in-bounds block
 * (optionally jit_guard_else to build the out-of-bounds value), and
 * jit_guard_close joins (the out-of-bounds value: fail_v, or zero). */
bool jit_guard_open(lower_ctx *c, jit_guard *g, const spv_inst *at, uint32_t ptr_id, LLVMValueRef p, LLVMValueRef extra,
                    LLVMValueRef bytes, uint32_t kind);
void jit_guard_else(lower_ctx *c, jit_guard *g);
LLVMValueRef jit_guard_close(lower_ctx *c, jit_guard *g, LLVMValueRef pass_v, LLVMValueRef fail_v);
bool jit_leaf_open(lower_ctx *c, jit_guard *g, uint64_t at, uint64_t bytes); /* lower_access.c's components */
/* Typed loads and stores (jit_load_mem / jit_store_mem) of p + extra, checked. */
LLVMValueRef jit_checked_load(lower_ctx *c, const spv_inst *at, uint32_t ptr_id, uint32_t type_id, LLVMValueRef p,
                              LLVMValueRef extra, uint32_t align, bool vol, uint32_t mat, uint32_t kind);
int jit_checked_store(lower_ctx *c, const spv_inst *at, uint32_t ptr_id, uint32_t type_id, LLVMValueRef p,
                      LLVMValueRef extra, LLVMValueRef v, uint32_t align, bool vol, uint32_t mat, uint32_t kind);
/* OpCopyMemorySized: n bytes (i64) from src to dst. */
int jit_checked_copy(lower_ctx *c, const spv_inst *at, uint32_t dst_id, uint32_t src_id, LLVMValueRef dst,
                     LLVMValueRef src, LLVMValueRef n, unsigned align, bool vol);
/* check: a work-group barrier passed (the race detector's epoch). */
void jit_bounds_barrier(lower_ctx *c);

/* --- module-scope variables (lower_vars.c) --- */
LLVMValueRef jit_global_var_ptr(lower_ctx *c, uint32_t var_id);
LLVMValueRef jit_env(lower_ctx *c, uint32_t slot);
/* The storage class of a variable or any other pointer (SpvStorageClassMax: not one). */
uint32_t jit_var_storage(lower_ctx *c, uint32_t var_id);
int jit_create_module_globals(lower_ctx *c);
int jit_init_module_vars(lower_ctx *c, uint32_t storage_class);

/* --- builtins (lower_builtins.c) --- */
LLVMValueRef jit_builtin_value(lower_ctx *c, uint32_t builtin, uint32_t type_id, const spv_inst *at);
LLVMValueRef jit_local_index(lower_ctx *c);
bool jit_var_builtin(lower_ctx *c, uint32_t var_id, uint32_t *builtin);

/* --- the instruction classes: each is a jit_lower_fn of the opcode table (lower_inst.c) --- */
int jit_lower_arith(lower_ctx *c, const spv_inst *in);   /* lower_alu.c */
int jit_lower_bits(lower_ctx *c, const spv_inst *in);    /* lower_alu.c */
int jit_lower_compare(lower_ctx *c, const spv_inst *in); /* lower_relational.c */
int jit_lower_convert(lower_ctx *c, const spv_inst *in);
int jit_lower_composite(lower_ctx *c, const spv_inst *in);
int jit_lower_matrix(lower_ctx *c, const spv_inst *in); /* lower_composite.c */
int jit_lower_memory(lower_ctx *c, const spv_inst *in);
int jit_function_variable(lower_ctx *c, const spv_inst *in); /* lower_memory.c */
int jit_lower_cfg(lower_ctx *c, const spv_inst *in);
int jit_fill_phis(lower_ctx *c); /* lower_cfg.c: the phis' incoming values, once a function is lowered */
int jit_lower_atomic(lower_ctx *c, const spv_inst *in);
int jit_lower_group(lower_ctx *c, const spv_inst *in); /* sub-group scope */
int jit_lower_dot(lower_ctx *c, const spv_inst *in);
int jit_lower_extinst(lower_ctx *c, const spv_inst *in); /* lower_extinst.c */
/* barriers and work-group collectives (lower_barrier.c, lower_wgcoll.c) */
int jit_lower_barrier(lower_ctx *c, const spv_inst *in);
bool jit_is_group_barrier(lower_ctx *c, const spv_inst *in);
bool jit_is_wg_collective(lower_ctx *c, const spv_inst *in);
unsigned jit_barrier_sites(lower_ctx *c, const spv_inst *in);   /* barrier sites an instruction takes */
uint64_t jit_wg_scratch_slot(lower_ctx *c, const spv_inst *in); /* scratch bytes per work-item it needs */
int jit_lower_wg_group(lower_ctx *c, const spv_inst *in);

/* --- the driver --- */
int jit_lower_inst(lower_ctx *c, const spv_inst *in);     /* lower_inst.c: through the opcode table */
int jit_declare_functions(lower_ctx *c);                  /* lower_inst.c */
int jit_lower_function(lower_ctx *c, uint32_t fidx);      /* lower_inst.c */
int jit_kernel_params(lower_ctx *c, uint32_t entry_fidx); /* workgroup.c: the functions the executor calls */
/* The body, spvjit_wg_range (barrier-free) or spvjit.item.in.group (barriers),
 * the Workgroup initializers. */
int jit_build_entry_functions(lower_ctx *c, uint32_t entry_fidx);
/* spvjit_item(ctx, lx,ly,lz) for the fiber path: spvjit.item.in.group with the
 * group of ctx->group_id and ctx->local_size. */
void jit_build_fiber_item(lower_ctx *c);
/* The sub-group size for this kernel when `asked` is the native one.  When
 * its code cannot observe its sub-groups (no marker of sg_marker.h in the
 * module), the size is the JIT's choice: 1 on the quick tier
 * (simd_observed_only: vectors double its compile time, and it runs only
 * small dispatches), else, when the work-group's x size is below `asked`, the
 * largest power of two from 4 up that divides that size (1 for a group of
 * fewer than 4 work-items).  A choice of 1 says why in why[JIT_SIMD_MSG]. */
unsigned jit_simd_width(lower_ctx *c, unsigned asked, char *why);
#define JIT_SYM_WG_RANGE "spvjit_wg_range"
#define JIT_SYM_ITEM "spvjit_item"
#define JIT_SYM_WG_INIT "spvjit_wg_init"
/* Internal: one work-item of a given group, (ctx, lx,ly,lz, sx,sy,sz, gx,gy,gz):
 * the local id, the group's size, its WorkgroupId.  Kernels with barriers are
 * lowered to it; the barrier path makes spvjit_wg_range or spvjit_item of it. */
#define JIT_SYM_ITEM_IN_GROUP "spvjit.item.in.group"
/* Internal, always-inline: the Workgroup initializers, (ctx); run per group. */
#define JIT_SYM_WG_INIT_BODY "spvjit.wg.init"
/* Internal: i1 (ctx, first WorkgroupId x,y,z, last x,y,z), whether the
 * body's analyzable bounds checks hold in every group of that box (memory=
 * robust, optimized tier: jit/guard_versions.h); run by the range loop. */
#define JIT_SYM_PROOF "spvjit.proof"

#endif
