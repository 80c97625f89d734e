/* spirv/writer.c — a growable word buffer for emitting SPIR-V (see writer.h). */
#include "writer.h"

#include <stdlib.h>

void spv_writer_init(spv_writer *wr)
{
    *wr = (spv_writer){ .open = SIZE_MAX };
}

void spv_writer_free(spv_writer *wr)
{
    free(wr->w);
    spv_writer_init(wr);
}

void spv_writer_word(spv_writer *wr, uint32_t word)
{
    if (wr->failed)
        return;
    if (wr->n == wr->cap) {
        size_t cap = wr->cap ? wr->cap * 2 : 1024;
        uint32_t *p = realloc(wr->w, cap * sizeof *p);
        if (!p) {
            wr->failed = true;
            return;
        }
        wr->w = p;
        wr->cap = cap;
    }
    wr->w[wr->n++] = word;
}

void spv_writer_words(spv_writer *wr, const uint32_t *words, size_t n)
{
    for (size_t i = 0; i < n; i++)
        spv_writer_word(wr, words[i]);
}

void spv_writer_begin(spv_writer *wr, uint32_t opcode)
{
    wr->open = wr->n;
    spv_writer_word(wr, opcode & 0xffff);
}

void spv_writer_end(spv_writer *wr)
{
    if (wr->failed || wr->open == SIZE_MAX)
        return;
    size_t count = wr->n - wr->open;
    if (count > 0xffff)
        wr->failed = true;
    else
        wr->w[wr->open] = (uint32_t)count << 16 | (wr->w[wr->open] & 0xffff);
    wr->open = SIZE_MAX;
}

uint32_t *spv_writer_take(spv_writer *wr, size_t *nwords)
{
    if (wr->failed) {
        spv_writer_free(wr);
        return NULL;
    }
    uint32_t *w = wr->w;
    *nwords = wr->n;
    spv_writer_init(wr);
    return w;
}
