/* spirv/layout.h — where the bytes of every type lie: the one owner of sizes,
 * alignments, strides and member offsets.  The binding checks, reflection
 * (`spvjit info`, the public API) and the JIT's generated code all read these
 * records; jit/ only translates them into LLVM types and address offsets.
 *
 * A record is filled once per type id (on first use), the way Mesa's vtn_type
 * carries stride, offsets[] and row_major.  Two sets of rules:
 *
 * Explicit layout — a struct with Offset decorations, an array with
 * ArrayStride (what Vulkan requires of buffers, push constants and physical
 * pointers): members sit at their Offset, elements ArrayStride apart, matrix
 * columns (rows when RowMajor) MatrixStride apart.  The size of such an object
 * is the bytes its data covers, not rounded up: Vulkan's "Offset and Stride
 * Assignment" (chapter "Shader Interfaces") forbids a member to be placed
 * "between the end of a structure, an array or a matrix and the next multiple
 * of the alignment of that structure, array or matrix" — the padding up to the
 * alignment is not part of the object, and out-of-bounds (robustness) is
 * defined by the bytes an access touches.  So a struct covers
 * max(Offset + size) over its members, an array (length - 1) * ArrayStride +
 * the element's size, a matrix (n - 1) * MatrixStride + one column (row);
 * std430 `{ mat3 m; }` with MatrixStride 16 covers 44 bytes (GLSL, which
 * rounds a block up to its alignment, says 48).  The alignment such a type is
 * guaranteed is its scalar alignment (the largest component), since a Vulkan
 * layout may place it at any multiple of that (scalarBlockLayout).
 *
 * Natural layout — everything else.  Kernel flavour (OpenCL C 6.1.5 and the
 * OpenCL SPIR-V environment): scalars and vectors are aligned to their size, a
 * 3-component vector takes the size and alignment of 4 components; arrays
 * are contiguous; struct members follow at the next multiple of their
 * alignment, the struct aligned to its largest member and its size rounded up
 * to that, except with the CPacked decoration (no padding, alignment 1).
 * Shader flavour (Function, Private and Workgroup storage, whose bytes nothing
 * outside the kernel sees): Vulkan's base alignment — a vector of 2 components
 * aligned to twice its component, of 3 or 4 to four times, sized by its
 * components; matrices as arrays of columns; otherwise as for Kernel.
 * Opaque handles (images, samplers, events) take 8 bytes; pointers 8 (4 with
 * Physical32 addressing).
 */
#ifndef SPVJIT_SPIRV_LAYOUT_H
#define SPVJIT_SPIRV_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "module.h"
#include "shape.h"
#include "util/arena.h"

typedef struct spv_member_layout {
    uint64_t offset;
    uint32_t matrix_stride; /* a matrix (or array of matrices) member: MatrixStride; 0 when the
                               member follows its matrix type's own layout */
    bool row_major;         /* RowMajor: rows, not columns, are matrix_stride apart */
} spv_member_layout;

typedef struct spv_layout {
    uint64_t size;   /* bytes (above); runtime arrays: 0 */
    uint32_t align;  /* the alignment an object of the type is guaranteed */
    uint64_t stride; /* ARRAY, RUNTIME_ARRAY: from one element to the next; MATRIX: from one column
                        to the next; VECTOR: from one component to the next */
    uint64_t length; /* ARRAY: elements (a spec-constant length: its shape value) */
    bool is_explicit;
    uint32_t nmembers;
    const spv_member_layout *members; /* STRUCT: one per member */
} spv_layout;

/* The layouts of one module under one set of shape values. */
typedef struct spv_layouts spv_layouts;

/* Whether the OpenCL C rules apply: a Kernel entry point, or (entry NULL) a
 * module with the Kernel capability and without Shader. */
bool spv_layout_is_opencl(const spv_module *m, const spv_entry_point *entry);

/* The layouts of m under `shape` (lengths of spec-constant-sized arrays; NULL:
 * the defaults).  Records live in `arena` (NULL: the table's own, released by
 * spv_layouts_free); messages go to diag.  NULL when out of memory. */
spv_layouts *spv_layouts_new(const spv_module *m, bool opencl, const spv_shape *shape, util_arena *arena,
                             spv_diag *diag);
void spv_layouts_free(spv_layouts *L);

/* The record of a type, or NULL with diag filled (not a type, a type without
 * a memory layout such as void or a function, a length that is no constant). */
const spv_layout *spv_layout_of(spv_layouts *L, uint32_t type_id);
/* The element count of an OpTypeArray (its shape value when the length is a
 * spec constant); false with diag filled when it is no integer constant. */
bool spv_array_length(spv_layouts *L, uint32_t type_id, uint64_t *len);
/* The bytes a struct member covers (a matrix member by its MatrixStride). */
bool spv_member_size(spv_layouts *L, uint32_t struct_id, uint32_t member, uint64_t *size);
/* The element stride of OpPtrAccessChain through a pointer of this type: its
 * ArrayStride in explicitly laid out storage, else the pointee's size rounded
 * up to its alignment. */
bool spv_pointer_stride(spv_layouts *L, uint32_t pointer_type_id, uint64_t *stride);
/* What a buffer bound to a block of this type must hold: the bytes its
 * members other than a trailing runtime array cover (*fixed), and that
 * array's stride (*runtime_stride, 0 when there is none). */
bool spv_block_size(spv_layouts *L, uint32_t type_id, uint64_t *fixed, uint64_t *runtime_stride);
/* The shape this table was made with (for compile-time constant values). */
const spv_shape *spv_layouts_shape(const spv_layouts *L);

#endif
