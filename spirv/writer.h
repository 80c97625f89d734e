/* spirv/writer.h — building a SPIR-V word array instruction by instruction. */
#ifndef SPVJIT_SPIRV_WRITER_H
#define SPVJIT_SPIRV_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/array.h"

typedef struct spv_writer {
    util_array words; /* of uint32_t */
    bool failed;      /* out of memory, or an instruction longer than 65535 words */
    size_t open;      /* start of the instruction being built (SIZE_MAX: none) */
} spv_writer;

void spv_writer_init(spv_writer *wr);
void spv_writer_free(spv_writer *wr);
void spv_writer_word(spv_writer *wr, uint32_t word);
void spv_writer_words(spv_writer *wr, const uint32_t *words, size_t n);
/* Starts an instruction; words follow with spv_writer_word(); spv_writer_end()
 * fills in the word count. */
void spv_writer_begin(spv_writer *wr, uint32_t opcode);
void spv_writer_end(spv_writer *wr);
/* Overwrites word `at` (written before), e.g. the header's id bound. */
void spv_writer_patch(spv_writer *wr, size_t at, uint32_t word);
/* The words so far (ownership passes to the caller); NULL if failed. */
uint32_t *spv_writer_take(spv_writer *wr, size_t *nwords);

#endif
