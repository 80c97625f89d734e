/* spirv/writer.c — emitting SPIR-V into a growable word array (see writer.h). */
#include "writer.h"

#include <stdlib.h>
#include <string.h>

#define COUNT(wr) UTIL_ARRAY_COUNT(&(wr)->words, uint32_t)

void spv_writer_init(spv_writer *wr)
{
    *wr = (spv_writer){ .open = SIZE_MAX };
}

void spv_writer_free(spv_writer *wr)
{
    util_array_fini(&wr->words);
    spv_writer_init(wr);
}

void spv_writer_words(spv_writer *wr, const uint32_t *words, size_t n)
{
    if (wr->failed || n == 0)
        return;
    void *p = n <= SIZE_MAX / 4 ? util_array_grow(&wr->words, n * 4) : NULL;
    if (p)
        memcpy(p, words, n * 4);
    else
        wr->failed = true;
}

void spv_writer_word(spv_writer *wr, uint32_t word)
{
    spv_writer_words(wr, &word, 1);
}

void spv_writer_begin(spv_writer *wr, uint32_t opcode)
{
    wr->open = COUNT(wr);
    spv_writer_word(wr, opcode & 0xffff);
}

void spv_writer_patch(spv_writer *wr, size_t at, uint32_t word)
{
    if (!wr->failed && at < COUNT(wr))
        UTIL_ARRAY_AT(&wr->words, uint32_t, at) = word;
}

void spv_writer_end(spv_writer *wr)
{
    if (wr->failed || wr->open == SIZE_MAX)
        return;
    size_t count = COUNT(wr) - wr->open;
    if (count > 0xffff)
        wr->failed = true;
    else
        spv_writer_patch(wr, wr->open,
                         (uint32_t)count << 16 | (UTIL_ARRAY_AT(&wr->words, uint32_t, wr->open) & 0xffff));
    wr->open = SIZE_MAX;
}

uint32_t *spv_writer_take(spv_writer *wr, size_t *nwords)
{
    if (wr->failed) {
        spv_writer_free(wr);
        return NULL;
    }
    *nwords = COUNT(wr);
    uint32_t *w = util_array_steal(&wr->words);
    spv_writer_init(wr);
    return w;
}
