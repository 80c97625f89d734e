/* jit/lower_ctx.h — state shared by the lowering files (private to jit/).
 *
 * Model of the generated code:
 *  - every SPIR-V function becomes an internal, always-inline LLVM function whose
 *    first two parameters are hidden: the spvjit_wg_ctx pointer and the pointer
 *    to this work-item's *item state*;
 *  - the item state (an alloca of the per-item function) holds the local id and
 *    local size, the "environment" pointers loaded once per work-group (work-group
 *    memory, spec values, push constants, resource bases) and the work-item's
 *    Private variables;
 *  - memory follows the SPIR-V explicit layout: access chains are byte offsets
 *    (GEP on i8), composites are loaded/stored member by member unless LLVM's own
 *    layout of the value type is identical (then one load/store);
 *  - every function starts with a "prologue" block where allocas, global-variable
 *    pointers and (unspecialized) spec-constant values are computed, so they
 *    dominate every use.
 */
#ifndef SPVJIT_JIT_LOWER_CTX_H
#define SPVJIT_JIT_LOWER_CTX_H

#include <stdbool.h>
#include <stdint.h>
#include <llvm-c/Core.h>
#include <llvm-c/Target.h>

#include "jit.h"
#include "spirv/module.h"

/* Item-state layout (bytes). */
enum {
    JIT_ITEM_LID = 0,    /* uint32_t[3] */
    JIT_ITEM_LSIZE = 12, /* uint32_t[3] */
    JIT_ITEM_ENV = 24,   /* 8-byte slots, see JIT_ENV_* */
};
enum { JIT_ENV_WGMEM = 0, JIT_ENV_SPEC = 1, JIT_ENV_PUSH = 2, JIT_ENV_RES0 = 3 };

/* Memory layout of a SPIR-V type. */
typedef struct jit_layout {
    bool done;
    uint64_t size; /* 0 for runtime arrays */
    uint32_t align;
    uint64_t stride; /* (runtime) arrays: element stride; matrices: column stride */
    int8_t compat;   /* -1 unknown; 1: LLVM's layout of the value type is the same */
} jit_layout;

/* How a matrix sits in memory (set by access chains reaching a struct member). */
#define JIT_MAT_ROW_MAJOR 0x80000000u

typedef struct jit_phi {
    LLVMValueRef phi;
    uint32_t inst;
} jit_phi;

typedef struct lower_ctx {
    const spv_module *m;
    const spv_entry_point *ep;
    spv_diag *diag;
    bool unspec;
    bool kernel;          /* OpenCL flavour */
    bool invariant_loads; /* loads being built read memory that is constant for the
                                          whole dispatch (push constants): !invariant.load */

    LLVMContextRef llc;
    LLVMModuleRef mod;
    LLVMTargetDataRef td;
    LLVMBuilderRef b;  /* where instructions go now */
    LLVMBuilderRef fb; /* the function body */
    LLVMBuilderRef pb; /* the current function's prologue */
    LLVMTypeRef t_void, t_i1, t_i8, t_i16, t_i32, t_i64, t_ptr;

    /* per id, [m->bound] */
    LLVMTypeRef *vtypes;
    jit_layout *layouts;
    LLVMValueRef *consts; /* LLVM constants, valid in every function */
    LLVMValueRef *vals;   /* values of the current function */
    LLVMBasicBlockRef *blocks, *block_ends;
    uint32_t *mat_info;     /* pointer ids: matrix stride | JIT_MAT_ROW_MAJOR, 0 default */
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
    jit_phi *phis;
    size_t nphis, cap_phis;

    /* entry-point facts */
    bool ls_known;
    uint32_t local_size[3];
    uint32_t nres_slots;
    spvjit_resource *res;
    uint32_t nres; /* Shader resources, by slot order */
    spvjit_param *params;
    uint32_t nparams; /* Kernel parameters of the entry point */
    uint64_t item_size;
    uint32_t item_align;
    uint64_t fn_var_bytes; /* Function variables of every reached function */
    uint64_t wg_size;
    uint32_t wg_align;
    bool has_wg_init;
    uint32_t nspec;
    uint32_t *spec_ids;
    uint32_t *spec_var; /* slot → SpecId, constant id */
    const spvjit_shape_value *shape;
    size_t nshape;
    uint32_t nbarriers;
    bool uses_barriers;
    uint64_t push_size;
    uint64_t wg_scratch_offset; /* work-group collectives: slots in work-group memory */
    uint64_t wg_scratch_slot;   /* bytes per work-item slot, 0: no collectives */
} lower_ctx;

typedef int (*jit_lower_fn)(lower_ctx *c, const spv_inst *in);

/* --- errors (lower_inst.c) --- */
int jit_fail_inst(lower_ctx *c, const spv_inst *in, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int jit_fail(lower_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int jit_lower_inst(lower_ctx *c, const spv_inst *in);

/* --- types and layouts (lower_types.c) --- */
const spv_type *jit_spv_type(lower_ctx *c, uint32_t id); /* NULL + diag if not a type */
LLVMTypeRef jit_type(lower_ctx *c, uint32_t type_id);    /* value type; NULL + diag */
const jit_layout *jit_layout_of(lower_ctx *c, uint32_t type_id);
uint64_t jit_member_offset(lower_ctx *c, uint32_t struct_id, uint32_t member);
uint64_t jit_layout_extent(lower_ctx *c, uint32_t type_id); /* bytes a binding must hold */
uint32_t jit_member_mat_info(lower_ctx *c, uint32_t struct_id, uint32_t member);
bool jit_array_length(lower_ctx *c, const spv_type *t, uint64_t *len);
bool jit_shape_u64(lower_ctx *c, uint32_t id, uint64_t *out); /* compile-time value */
bool jit_layout_compat(lower_ctx *c, uint32_t type_id);
uint32_t jit_scalar_type_of(lower_ctx *c, uint32_t type_id); /* component type of scalar/vector */
bool jit_is_float_type(lower_ctx *c, uint32_t type_id);

/* --- values and constants (lower_constants.c) --- */
LLVMValueRef jit_value(lower_ctx *c, uint32_t id); /* NULL + diag */
void jit_set(lower_ctx *c, uint32_t id, LLVMValueRef v);
LLVMValueRef jit_const_int(lower_ctx *c, LLVMTypeRef t, uint64_t v);
LLVMValueRef jit_build_composite(lower_ctx *c, uint32_t type_id, LLVMValueRef *parts, uint32_t n);
int jit_const_bytes(lower_ctx *c, uint32_t id, uint32_t type_id, uint8_t *buf, uint64_t size);
int jit_lower_spec_op(lower_ctx *c, const spv_inst *in);

/* --- memory (lower_memory.c) --- */
LLVMValueRef jit_byte_gep(lower_ctx *c, LLVMValueRef base, LLVMValueRef off_i64, bool inbounds);
LLVMValueRef jit_load_mem(lower_ctx *c, uint32_t type_id, LLVMValueRef ptr, uint32_t align, bool is_volatile,
                          uint32_t mat);
int jit_store_mem(lower_ctx *c, uint32_t type_id, LLVMValueRef ptr, LLVMValueRef v, uint32_t align, bool is_volatile,
                  uint32_t mat);
LLVMValueRef jit_global_var_ptr(lower_ctx *c, uint32_t var_id);
LLVMValueRef jit_env(lower_ctx *c, uint32_t slot);
uint32_t jit_var_storage(lower_ctx *c, uint32_t var_id);
LLVMValueRef jit_item_field_ptr(lower_ctx *c, uint64_t off);
LLVMValueRef jit_ctx_field(lower_ctx *c, LLVMValueRef ctx, size_t off, LLVMTypeRef t);
int jit_function_variable(lower_ctx *c, const spv_inst *in);
int jit_create_module_globals(lower_ctx *c);
int jit_init_module_vars(lower_ctx *c, uint32_t storage_class);

/* --- builtins (lower_builtins.c) --- */
LLVMValueRef jit_builtin_value(lower_ctx *c, uint32_t builtin, uint32_t type_id, const spv_inst *at);
LLVMValueRef jit_local_index(lower_ctx *c);
bool jit_var_builtin(lower_ctx *c, uint32_t var_id, uint32_t *builtin);

/* --- control flow and functions (lower_cfg.c) --- */
int jit_declare_functions(lower_ctx *c);
int jit_lower_function(lower_ctx *c, uint32_t fidx);
int jit_check_recursion(lower_ctx *c, uint32_t entry_fidx);
void jit_mark_reachable(lower_ctx *c, uint32_t entry_fidx, bool *reach);

/* --- the functions the executor calls (workgroup.c) --- */
int jit_kernel_params(lower_ctx *c, uint32_t entry_fidx);
int jit_build_entry_functions(lower_ctx *c, uint32_t entry_fidx);
#define JIT_SYM_WG "spvjit_wg"
#define JIT_SYM_ITEM "spvjit_item"
#define JIT_SYM_WG_INIT "spvjit_wg_init"

/* --- helpers (lower_alu.c) --- */
int jit_operands(lower_ctx *c, const spv_inst *in, LLVMValueRef *v, uint32_t n);
LLVMValueRef jit_intrinsic(lower_ctx *c, const char *name, LLVMTypeRef *types, unsigned ntypes, LLVMValueRef *args,
                           unsigned nargs);
LLVMValueRef jit_splat(lower_ctx *c, LLVMValueRef scalar, LLVMTypeRef vec_t);
LLVMValueRef jit_int_cast(lower_ctx *c, LLVMValueRef v, LLVMTypeRef t, bool is_signed);
void jit_fp_flags(lower_ctx *c, uint32_t result_id, LLVMValueRef v);

/* --- the instruction classes: each is a jit_lower_fn (see lower_inst.c) --- */
int jit_lower_arith(lower_ctx *c, const spv_inst *in);
int jit_lower_bits(lower_ctx *c, const spv_inst *in);
int jit_lower_compare(lower_ctx *c, const spv_inst *in);
int jit_lower_convert(lower_ctx *c, const spv_inst *in);
int jit_lower_composite(lower_ctx *c, const spv_inst *in);
int jit_lower_matrix(lower_ctx *c, const spv_inst *in);
int jit_lower_memory(lower_ctx *c, const spv_inst *in);
int jit_lower_cfg(lower_ctx *c, const spv_inst *in);
int jit_lower_atomic(lower_ctx *c, const spv_inst *in);
int jit_lower_barrier(lower_ctx *c, const spv_inst *in);
bool jit_is_group_barrier(lower_ctx *c, const spv_inst *in);
int jit_lower_group(lower_ctx *c, const spv_inst *in);
LLVMValueRef jit_group_identity(lower_ctx *c, uint32_t op, LLVMTypeRef t);
/* --- work-group collectives, async copies (lower_wgcoll.c), dot products (lower_dot.c) --- */
bool jit_is_wg_collective(lower_ctx *c, const spv_inst *in);
unsigned jit_barrier_sites(lower_ctx *c, const spv_inst *in);   /* barrier sites an instruction takes */
uint64_t jit_wg_scratch_slot(lower_ctx *c, const spv_inst *in); /* scratch bytes per work-item it needs */
int jit_lower_wg_group(lower_ctx *c, const spv_inst *in);
int jit_lower_dot(lower_ctx *c, const spv_inst *in);
int jit_lower_extinst(lower_ctx *c, const spv_inst *in);

#endif
