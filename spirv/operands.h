/* spirv/operands.h — splitting an instruction into operands, driven by the grammar.
 *
 * The generated tables (spirv_grammar.h) say which operands an opcode takes;
 * this walks the words accordingly, including enum parameters (Decoration
 * SpecId takes a literal), bit-enum parameters (MemoryAccess Aligned), the
 * operands of the opcode inside OpSpecConstantOp, and literals whose width
 * depends on a type (OpConstant values, OpSwitch case labels).
 */
#ifndef SPVJIT_SPIRV_OPERANDS_H
#define SPVJIT_SPIRV_OPERANDS_H

#include <stdint.h>

#include "diag.h"
#include "spirv_grammar.h"

typedef struct spv_operand {
    uint8_t kind;  /* spv_operand_kind */
    uint16_t word; /* index of the first word in the instruction (0 = opcode word) */
    uint16_t nwords;
} spv_operand;

/* Returns the literal width in words (1 or 2) for a value of type `type_id`,
 * or 0 if the id is not a scalar numeric type.  Supplied by the caller, who
 * knows the types defined so far. */
typedef uint32_t (*spv_literal_words_fn)(void *ud, uint32_t type_id);

/* Splits the instruction `w` (nwords words, w[0] the opcode word) into at most
 * `max` operands.  `selector_type` gives the literal width of OpSwitch labels
 * (the type of the selector id) and of OpConstant values.  Returns the operand
 * count, or -1 with diag set ("expected ...").  `where` prefixes messages (it
 * may be NULL where diag is). */
int spv_split_operands(const uint32_t *w, uint32_t nwords, spv_literal_words_fn width_of, void *ud, spv_operand *out,
                       int max, const char *where, spv_diag *diag);

/* True for operand kinds that hold an id (IdRef, IdResultType, IdScope, ...). */
int spv_operand_is_id(uint8_t kind);
/* The words of operand o that hold ids, [*first, *last) (the id halves of the
 * pair kinds included); 0 when it holds none. */
int spv_operand_id_words(const spv_operand *o, uint32_t *first, uint32_t *last);

#endif
