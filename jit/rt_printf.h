/* jit/rt_printf.h — OpenCL printf: the runtime function JIT code calls, and the
 * format parser that the lowering (lower_opencl.c) and the runtime share, so
 * that the arguments the lowering passes are exactly those the runtime reads.
 *
 * Calling convention (set by the lowering, checked against the format there):
 *   spvjit_rt_printf(stream, fmt, ...) with, per conversion, in order:
 *     '*' width/precision        → one long long
 *     d i o u x X c              → one long long per lane (the runtime truncates
 *                                  to the length modifier's width: hh 8, h 16,
 *                                  hl 32, l 64, none 32)
 *     f F e E g G a A            → one double per lane
 *     s p                        → one pointer
 *   Vector conversions (%v4f, %v2hhx, ...) print their lanes separated by ','.
 * stream is a FILE*, NULL for stdout.  Returns 0, or -1 if the output failed.
 * The JIT must resolve the symbol "spvjit_rt_printf" to this function.
 */
#ifndef SPVJIT_JIT_RT_PRINTF_H
#define SPVJIT_JIT_RT_PRINTF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct rt_printf_spec {
    size_t start, end; /* the conversion's text [start, end) in the format, '%' included */
    char conv;         /* d i o u x X c f F e E g G a A s p, or '%' for "%%" */
    char flags[8];     /* "-+ #0" subset, NUL-terminated */
    int width, prec;   /* -1 when absent; ignored when the star flags are set */
    bool star_width, star_prec;
    unsigned vec;      /* 0: scalar, else 2, 3, 4, 8 or 16 lanes */
    unsigned int_bits; /* length modifier: 8 (hh), 16 (h), 32 (hl), 64 (l), 0 none */
} rt_printf_spec;

/* Finds the next conversion at or after *pos.  Returns 1 and fills spec (and sets
 * *pos to spec->end), 0 when the format has no more conversions, -1 for a malformed
 * conversion (spec->start says where; *why, if non-NULL, says what is wrong). */
int rt_printf_parse(const char *fmt, size_t *pos, rt_printf_spec *spec, const char **why);

/* Conversion classes. */
static inline bool rt_printf_is_int_conv(char c)
{
    return c == 'd' || c == 'i' || c == 'o' || c == 'u' || c == 'x' || c == 'X' || c == 'c';
}
static inline bool rt_printf_is_fp_conv(char c)
{
    return c == 'f' || c == 'F' || c == 'e' || c == 'E' || c == 'g' || c == 'G' || c == 'a' || c == 'A';
}

__attribute__((visibility("default"))) int spvjit_rt_printf(void *stream, const char *fmt, ...);

#endif
