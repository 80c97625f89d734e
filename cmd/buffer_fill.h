/* cmd/buffer_fill.h — typed scalar values and buffer contents from text.
 *
 * Shared by `spvjit run` (the DATA forms of --arg/--buffer/--push) and
 * `spvjit amber` (buffer element encoding, EXPECT comparison).  Pure code: no
 * spvjit API calls, so the tests can link it on its own.
 */
#ifndef SPVJIT_CMD_BUFFER_FILL_H
#define SPVJIT_CMD_BUFFER_FILL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/spvjit.h"

/* --- scalar types ------------------------------------------------------------ */

/* "i8" "i16" "i32" "i64" "u8" "u16" "u32" "u64" "f16" "f32" "f64" (and "bool").
 * Returns 0, or -1 if the name is none of these. */
int vtype_parse(const char *name, size_t len, spvjit_type *out);
const char *vtype_name(spvjit_type t);
size_t vtype_size(spvjit_type t);
bool vtype_is_float(spvjit_type t);
bool vtype_is_signed(spvjit_type t);
/* Whether values of type `got` may fill elements of type `want`: the same
 * type, or integers of the same width (SPIR-V integer types carry no
 * signedness in Kernel modules and only a hint in Shader modules). */
bool vtype_compatible(spvjit_type want, spvjit_type got);

uint16_t f32_to_f16(float f); /* round to nearest even; overflow → inf */
float f16_to_f32(uint16_t h);
uint16_t f64_to_f16(double d); /* rounds once (not via float) */

/* A number as written in text: integers are kept exact (64 bits), floats as
 * double.  "0x.." is an integer; "-" makes a negative integer. */
typedef struct num_value {
    bool is_float;
    bool negative; /* integer written with '-' */
    uint64_t u;    /* integer: two's complement bits */
    double d;      /* float value; for integers the same value as double */
} num_value;

/* Parses one number (the whole of text[0..len)); also "inf", "-inf", "nan".
 * Returns 0 or -1. */
int num_parse(const char *text, size_t len, num_value *out);

/* Stores n as type t at dst (host byte order).  Integers out of range for t,
 * or a float given for an integer type, are errors (message in err).
 * `wrap_ints` accepts any integer modulo 2^bits (Amber's DATA does that). */
int num_store(spvjit_type t, const num_value *n, bool wrap_ints, void *dst, char *err, size_t errlen);

/* Loads the scalar at src as double (integers exactly up to 2^53). */
double scalar_as_double(spvjit_type t, const void *src);
/* Loads integer scalars as 64-bit two's complement bits (sign-extended). */
uint64_t scalar_as_bits(spvjit_type t, const void *src);
/* Formats the scalar (floats with %.9g / %.17g, halfs with %.5g). */
void scalar_format(spvjit_type t, const void *src, char *buf, size_t len);

/* --- buffer contents ----------------------------------------------------------- */

/* Bytes described by a DATA spec (see fill_parse). */
typedef struct fill_data {
    uint8_t *bytes; /* malloc'd (at least 1 byte so it is never NULL) */
    size_t size;
    spvjit_type type;   /* element type when the spec named one (or a .npy file's), else 0 */
    char npy_shape[64]; /* read from a .npy file: its shape, "(3, 4)"; else "" */
} fill_data;

/* DATA forms:
 *   TYPE:V,V,...               inline values                  f32:1,2.5,-3
 *   zero:BYTES                 BYTES zero bytes               zero:4096
 *   const:TYPE:VALUE:COUNT     COUNT copies of VALUE          const:f32:1.5:1024
 *   iota:TYPE:COUNT[:START]    START, START+1, ...            iota:u32:256
 *   random:TYPE:COUNT[:SEED]   floats uniform in [-1,1), ints uniform in
 *                              [0,100) (signed: [-100,100))   random:f32:1024:7
 *   @PATH                      a .npy file's array (dtype and shape kept),
 *                              else the bytes of the file     @in.npy @in.bin
 * TYPE: i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64.
 * Returns 0, or -1 with a one-line message in err. */
int fill_parse(const char *spec, fill_data *out, char *err, size_t errlen);
void fill_free(fill_data *f);

/* The deterministic generator behind random: (xorshift64*). */
uint64_t fill_rand_next(uint64_t *state);

#endif
