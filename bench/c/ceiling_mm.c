/* bench/c/ceiling_mm.c — blocked matrix multiply, the algorithm of mm.comp:
 * one BS x BS tile of C per work unit (OpenMP dynamic over tiles), staging a
 * tile of A and of B (zero-padded past n) per step t, accumulating
 * acc[i][j] += As[i][k] * Bs[k][j] in k order.  BS is a literal in each
 * instance, so the k and j loops unroll and vectorize. */
#include "bench/c/ceiling.h"

#include <string.h>

#define DEFINE_MM(BS)                                                                                                  \
    static void mm_bs##BS(const float *restrict a, const float *restrict b, float *restrict c, uint32_t n)             \
    {                                                                                                                  \
        uint32_t tiles = (n + BS - 1) / BS;                                                                            \
        _Pragma("omp parallel for schedule(dynamic) collapse(2)") for (uint32_t ti = 0; ti < tiles;                    \
                                                                       ++ti) for (uint32_t tj = 0; tj < tiles; ++tj)   \
        {                                                                                                              \
            float as[BS][BS], bs[BS][BS], acc[BS][BS];                                                                 \
            uint32_t row0 = ti * BS, col0 = tj * BS;                                                                   \
            memset(acc, 0, sizeof(acc));                                                                               \
            for (uint32_t t = 0; t < n; t += BS) {                                                                     \
                for (uint32_t i = 0; i < BS; ++i)                                                                      \
                    for (uint32_t j = 0; j < BS; ++j) {                                                                \
                        uint32_t r = row0 + i, cc = col0 + j;                                                          \
                        as[i][j] = (r < n && t + j < n) ? a[(size_t)r * n + t + j] : 0.0f;                             \
                        bs[i][j] = (t + i < n && cc < n) ? b[(size_t)(t + i) * n + cc] : 0.0f;                         \
                    }                                                                                                  \
                for (uint32_t i = 0; i < BS; ++i)                                                                      \
                    for (uint32_t k = 0; k < BS; ++k) {                                                                \
                        float aik = as[i][k];                                                                          \
                        _Pragma("omp simd") for (uint32_t j = 0; j < BS; ++j) acc[i][j] += aik * bs[k][j];             \
                    }                                                                                                  \
            }                                                                                                          \
            for (uint32_t i = 0; i < BS && row0 + i < n; ++i)                                                          \
                for (uint32_t j = 0; j < BS && col0 + j < n; ++j)                                                      \
                    c[(size_t)(row0 + i) * n + col0 + j] = acc[i][j];                                                  \
        }                                                                                                              \
    }

DEFINE_MM(8)
DEFINE_MM(16)
DEFINE_MM(32)

bool ceiling_mm(uint32_t bs, const float *a, const float *b, float *c, uint32_t n)
{
    switch (bs) {
    case 8:
        mm_bs8(a, b, c, n);
        return true;
    case 16:
        mm_bs16(a, b, c, n);
        return true;
    case 32:
        mm_bs32(a, b, c, n);
        return true;
    default:
        return false;
    }
}
