/* spirv/module.h — the in-memory model of a SPIR-V module.
 *
 * The loader (loader.c) turns the words of a .spv file into this model once;
 * every later stage (specializer, lowering, `spvjit info`) walks it without
 * re-parsing.  Nothing here knows about LLVM or threads.
 *
 * Ownership: an spv_module owns its word array; every pointer inside the model
 * (instruction words, names, member lists) points into memory the module owns
 * and stays valid until spv_module_free().
 */
#ifndef SPVJIT_SPIRV_MODULE_H
#define SPVJIT_SPIRV_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <spirv/unified1/spirv.h>

#include "diag.h"

#define SPV_NONE UINT32_MAX        /* "no index" for instruction/function indices */
#define SPV_MAX_ID_BOUND 0x3FFFFFu /* SPIRV-Tools' default universal limit */

/* One instruction, as it sits in the module. */
typedef struct spv_inst {
    uint32_t offset;    /* word offset of the instruction from the start of the module */
    uint16_t opcode;    /* SpvOp */
    uint16_t nwords;    /* word count, including the opcode word */
    uint32_t type_id;   /* result type id, 0 when the opcode has none */
    uint32_t result_id; /* result id, 0 when the opcode has none */
    uint32_t first_op;  /* index in w[] of the first operand after result type / result id */
    const uint32_t *w;  /* the instruction's words; w[0] is the opcode|count word */
} spv_inst;

/* Number of operand words after the result type and result id. */
static inline uint32_t spv_inst_nops(const spv_inst *in)
{
    return in->nwords - in->first_op;
}
/* The i-th operand word after the result type and result id. */
static inline uint32_t spv_inst_op(const spv_inst *in, uint32_t i)
{
    return in->w[in->first_op + i];
}

typedef enum spv_type_kind {
    SPV_TYPE_NONE = 0, /* the id is not a type */
    SPV_TYPE_VOID,
    SPV_TYPE_BOOL,
    SPV_TYPE_INT,
    SPV_TYPE_FLOAT,
    SPV_TYPE_VECTOR,
    SPV_TYPE_MATRIX,
    SPV_TYPE_ARRAY,
    SPV_TYPE_RUNTIME_ARRAY,
    SPV_TYPE_STRUCT,
    SPV_TYPE_POINTER,
    SPV_TYPE_FUNCTION,
    SPV_TYPE_OPAQUE, /* image, sampler, event, queue, pipe, named opaque ... */
} spv_type_kind;

typedef struct spv_type {
    spv_type_kind kind;
    uint32_t width;          /* INT, FLOAT: bits */
    bool is_signed;          /* INT: Signedness operand (meaningful in Shader modules only) */
    uint32_t elem;           /* VECTOR: component type; MATRIX: column type; ARRAY, RUNTIME_ARRAY:
                                element type; POINTER: pointee type (0 for an untyped forward
                                pointer not yet resolved); FUNCTION: return type */
    uint32_t count;          /* VECTOR: components; MATRIX: columns; ARRAY: length, or 0 when the
                                length is a specialization constant (see length_id) */
    uint32_t length_id;      /* ARRAY: the id of the length constant */
    uint32_t storage;        /* POINTER: SpvStorageClass */
    uint32_t nmembers;       /* STRUCT: members; FUNCTION: parameters */
    const uint32_t *members; /* STRUCT: member type ids; FUNCTION: parameter type ids */
    uint32_t opaque_op;      /* OPAQUE: the declaring opcode (OpTypeImage, OpTypeSampler, ...) */
} spv_type;

typedef enum spv_id_kind {
    SPV_ID_UNUSED = 0,
    SPV_ID_TYPE,
    SPV_ID_CONSTANT,        /* OpConstant*, OpConstantComposite, OpConstantNull, OpConstantSampler */
    SPV_ID_SPEC_CONSTANT,   /* OpSpecConstant* (incl. OpSpecConstantOp, OpSpecConstantComposite) */
    SPV_ID_UNDEF,           /* OpUndef (global or in a function) */
    SPV_ID_GLOBAL_VARIABLE, /* OpVariable outside functions */
    SPV_ID_FUNCTION,
    SPV_ID_PARAM, /* OpFunctionParameter */
    SPV_ID_LABEL,
    SPV_ID_VALUE,      /* any other result inside a function (incl. Function variables) */
    SPV_ID_EXT_IMPORT, /* OpExtInstImport */
    SPV_ID_STRING,     /* OpString */
    SPV_ID_DECORATION_GROUP,
} spv_id_kind;

/* Known extended instruction sets. */
typedef enum spv_ext_set {
    SPV_EXT_UNKNOWN = 0,
    SPV_EXT_GLSL_STD_450,
    SPV_EXT_OPENCL_STD,
    SPV_EXT_NONSEMANTIC, /* NonSemantic.*: may be ignored */
} spv_ext_set;

/* Everything known about one id. */
typedef struct spv_id {
    spv_id_kind kind;
    uint32_t inst;      /* index in module->insts of the defining instruction, SPV_NONE if none */
    uint32_t type_id;   /* result type (0 for types, labels, functions' own ids use it too) */
    uint32_t func;      /* index in module->funcs of the function defining it, SPV_NONE if global */
    const char *name;   /* OpName, NULL if none */
    uint32_t spec_id;   /* SpecId decoration, SPV_NONE if none */
    uint32_t dec_first; /* decorations of this id: module->decs[dec_first .. dec_first+dec_count) */
    uint32_t dec_count;
    spv_type type; /* kind == SPV_ID_TYPE */
    /* kind == CONSTANT / SPEC_CONSTANT: */
    uint64_t scalar;   /* scalar bits (bool: 0/1, int: zero-extended, float: IEEE bits) */
    bool is_null;      /* OpConstantNull */
    bool is_composite; /* OpConstantComposite / OpSpecConstantComposite */
    uint32_t nparts;   /* composite constituents */
    const uint32_t *parts;
    spv_ext_set ext_set; /* kind == EXT_IMPORT */
} spv_id;

typedef struct spv_decoration {
    uint32_t target;
    int32_t member;      /* member index for OpMemberDecorate*, -1 otherwise */
    uint32_t decoration; /* SpvDecoration */
    uint32_t nargs;      /* extra operands (literals, ids for OpDecorateId, string words) */
    const uint32_t *args;
    uint32_t inst; /* index of the decorating instruction (for messages) */
} spv_decoration;

typedef struct spv_block {
    uint32_t label; /* label id */
    uint32_t first; /* index in module->insts of the first instruction after OpLabel */
    uint32_t end;   /* one past the terminator */
} spv_block;

typedef struct spv_function {
    uint32_t id;
    uint32_t type_id; /* result (return) type */
    uint32_t fn_type; /* OpTypeFunction id */
    uint32_t control; /* SpvFunctionControlMask */
    uint32_t inst;    /* index of OpFunction */
    uint32_t end;     /* index of OpFunctionEnd */
    uint32_t nparams;
    uint32_t *params; /* parameter ids */
    uint32_t nblocks;
    spv_block *blocks;   /* in module order; blocks[0] is the entry block */
    bool is_declaration; /* no body (Import linkage) */
} spv_function;

typedef struct spv_exec_mode {
    uint32_t mode; /* SpvExecutionMode */
    bool is_id;    /* from OpExecutionModeId */
    uint32_t nargs;
    const uint32_t *args;
} spv_exec_mode;

typedef struct spv_entry_point {
    uint32_t model; /* SpvExecutionModel */
    uint32_t func_id;
    uint32_t func; /* index in module->funcs */
    const char *name;
    uint32_t ninterface;
    const uint32_t *interface;
    uint32_t nmodes;
    spv_exec_mode *modes;
    /* Summary of the work-group size modes: */
    bool has_local_size;
    uint32_t local_size[3]; /* LocalSize */
    bool has_local_size_id;
    uint32_t local_size_id[3]; /* LocalSizeId (ids of constants) */
    bool has_local_size_hint;
    uint32_t local_size_hint[3];
} spv_entry_point;

typedef struct spv_module {
    const char *source; /* file name (or "<memory>") used in messages; owned */
    uint32_t *words;    /* host byte order copy of the whole module; owned */
    size_t nwords;
    uint32_t version; /* 0x00MMmm00 */
    uint32_t generator;
    uint32_t bound;
    uint32_t schema;

    spv_inst *insts;
    uint32_t ninsts;
    spv_id *ids; /* [bound] */
    spv_decoration *decs;
    uint32_t ndecs; /* sorted by target, then member */
    spv_function *funcs;
    uint32_t nfuncs;
    spv_entry_point *entries;
    uint32_t nentries;
    uint32_t *caps;
    uint32_t ncaps; /* SpvCapability list */
    const char **extensions;
    uint32_t nextensions;

    uint32_t addressing;        /* SpvAddressingModel */
    uint32_t memory_model;      /* SpvMemoryModel */
    bool is_kernel;             /* Kernel capability: OpenCL flavour */
    bool is_shader;             /* Shader capability: Vulkan flavour */
    uint32_t workgroup_size_id; /* constant decorated BuiltIn WorkgroupSize, 0 if none */
    uint32_t first_func_inst;   /* index of the first OpFunction (end of the global section) */
} spv_module;

/* Options for loading. */
typedef struct spv_load_options {
    bool skip_validation; /* do not run the SPIRV-Tools validator */
} spv_load_options;

/* Loads a module from words in file byte order (either endianness).  The bytes
 * are copied.  `source` names the input in messages ("<memory>" if NULL).
 * Returns NULL and fills *diag on any error. */
spv_module *spv_module_load(const void *bytes, size_t nbytes, const char *source, const spv_load_options *opts,
                            spv_diag *diag);
/* Reads a file and loads it. */
spv_module *spv_module_load_file(const char *path, const spv_load_options *opts, spv_diag *diag);
void spv_module_free(spv_module *m);
/* Whether words are m's own, word for word: what a specialization that
 * folded nothing (no spec constants) gives back. */
bool spv_module_words_are(const spv_module *m, const uint32_t *words, size_t nwords);

/* --- lookups ------------------------------------------------------------ */

/* The id's record, or NULL if id is 0 or out of bounds. */
static inline const spv_id *spv_id_get(const spv_module *m, uint32_t id)
{
    return (id != 0 && id < m->bound) ? &m->ids[id] : NULL;
}
/* The type with this id, or NULL if `id` is not a type. */
const spv_type *spv_type_get(const spv_module *m, uint32_t id);
/* The defining instruction of `id`, or NULL. */
const spv_inst *spv_def(const spv_module *m, uint32_t id);
/* Finds a decoration on id (member -1 for the id itself).  Returns NULL if absent. */
const spv_decoration *spv_find_decoration(const spv_module *m, uint32_t id, int32_t member, uint32_t decoration);
/* Index in m->funcs of the function with this id, or SPV_NONE. */
uint32_t spv_function_index(const spv_module *m, uint32_t id);
/* Entry point by name (NULL name: the only one, or the first GLCompute/Kernel one). */
const spv_entry_point *spv_find_entry(const spv_module *m, const char *name);
/* Literal width in words (1 or 2) of a value of the type of `id` (or of type
 * `id`) in module `m` (an spv_module *): the spv_literal_words_fn of
 * spv_split_operands for a loaded module; 0 if not a scalar numeric type. */
uint32_t spv_module_literal_words(void *m, uint32_t id);
/* The string of an OpName-style literal operand starting at w; bounded by nwords. */
const char *spv_literal_string(const uint32_t *w, uint32_t nwords);
/* Scalar constant value as unsigned 64-bit (sign-extended for signed ints of
 * width < 64 when sign_extend); false if id is not a scalar integer/bool constant. */
bool spv_const_u64(const spv_module *m, uint32_t id, uint64_t *out);

/* Type layouts (sizes, offsets, strides): spirv/layout.h. */

/* Disassembles one instruction with SPIRV-Tools into buf (friendly names).  Always
 * writes a NUL-terminated string; falls back to "Op<Name> ..." if disassembly fails. */
void spv_disasm_inst(const spv_module *m, const spv_inst *in, char *buf, size_t len);
/* Disassembles a whole binary into a malloc'd string (NULL on failure). */
char *spv_disasm_words(const uint32_t *words, size_t nwords);

/* Target environment SPIRV-Tools should validate this module under. */
int spv_target_env_for(const uint32_t *words, size_t nwords);
/* Validates words with SPIRV-Tools; on failure fills diag with the validator's
 * message and the offending instruction disassembled. */
bool spv_validate_words(const uint32_t *words, size_t nwords, const char *source, spv_diag *diag);

#endif
