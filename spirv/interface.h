/* spirv/interface.h — what an entry point exchanges with the host.
 *
 * Kernel flavour: the entry function's parameters (index, name, type, address
 * space).  Shader flavour: the resource variables the entry point uses, by
 * (set, binding), and the push-constant block.  Both: work-group memory.
 */
#ifndef SPVJIT_SPIRV_INTERFACE_H
#define SPVJIT_SPIRV_INTERFACE_H

#include "module.h"

typedef enum spv_resource_kind {
    SPV_RES_KERNEL_ARG,     /* a kernel parameter (Kernel flavour) */
    SPV_RES_STORAGE_BUFFER, /* StorageBuffer, or Uniform + BufferBlock */
    SPV_RES_UNIFORM_BUFFER, /* Uniform + Block */
    SPV_RES_PUSH_CONSTANT,
    SPV_RES_WORKGROUP, /* a static Workgroup variable */
    SPV_RES_OPAQUE,    /* UniformConstant images, samplers (not supported by the JIT) */
} spv_resource_kind;

typedef struct spv_resource {
    spv_resource_kind kind;
    uint32_t id;              /* variable or parameter id */
    const char *name;         /* OpName of the variable/parameter, else of its block type, or NULL */
    uint32_t type_id;         /* parameter type; for variables the pointee type */
    uint32_t storage;         /* SpvStorageClass (pointer parameters: their pointee's class) */
    uint32_t set, binding;    /* Shader resources */
    uint32_t index;           /* kernel parameter index */
    uint64_t size;            /* bytes of the fixed part (0 for a pointer's pointee of unknown size) */
    uint64_t stride;          /* element stride of a trailing runtime array, 0 if none */
    uint32_t elem_type_id;    /* the scalar type every scalar of the value (pointer arguments: of
                                 the pointee) is, e.g. float for float* or a float[] block; 0 if
                                 they differ or are no numbers */
    bool is_pointer;          /* kernel argument passed as a pointer */
    bool readonly, writeonly; /* never written / never read: NonWritable / NonReadable on the
                                 variable or on every block member; FuncParamAttr NoWrite or
                                 __constant for pointer arguments */
} spv_resource;

/* Lists the interface of entry point `e` into a malloc'd array (free() it).
 * Returns the count, or -1 with diag on a malformed interface. */
int spv_entry_resources(const spv_module *m, const spv_entry_point *e, spv_resource **out, spv_diag *diag);

/* The module-scope variables entry point `e` uses: those its OpEntryPoint
 * lists, and those an instruction of its function or of a function it calls
 * names, directly or through a constant (a pointer OpSpecConstantOp) or the
 * initializer of a variable it uses.  SPIR-V 1.4 requires an interface to list
 * all of them; earlier modules list only Input/Output variables.  Returns a
 * calloc'd bool[m->bound] (free() it), or NULL when out of memory. */
bool *spv_entry_used_globals(const spv_module *m, const spv_entry_point *e);

/* The one int or float scalar type every scalar inside type_id is made of
 * (through vectors, matrices, arrays and struct members), or 0 when they
 * differ or include bools, pointers or opaque types. */
uint32_t spv_uniform_scalar_type(const spv_module *m, uint32_t type_id);

/* Whether pointer parameter `id` is never written through: __constant
 * (UniformConstant) or FuncParamAttr NoWrite. */
bool spv_pointer_param_readonly(const spv_module *m, uint32_t id);

/* Writes a readable type name: "float", "int", "uint8_t", "vec4 of float",
 * "float[16]", "struct Foo {...}", "ptr(CrossWorkgroup) to float". */
void spv_type_name(const spv_module *m, uint32_t type_id, char *buf, size_t len);

#endif
