/* cmd/npy.h — numpy's .npy files (NEP 1; numpy.lib.format): the arrays
 * `spvjit run --buffer 0:0=@in.npy` reads and `--out 0:2=out.npy` writes.
 *
 * A file is the magic "\x93NUMPY", a version (1.0: a 2-byte header length;
 * 2.0 and 3.0: 4 bytes), a header that is a Python dict literal
 * {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), } padded with
 * spaces and a newline, then the elements.  Plain numeric dtypes only (i1..i8,
 * u1..u8, f2, f4, f8 of either byte order).  Pure code: no spvjit API calls.
 */
#ifndef SPVJIT_CMD_NPY_H
#define SPVJIT_CMD_NPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/spvjit.h"

#define NPY_MAX_DIMS 32

typedef struct npy_array {
    spvjit_type type; /* element type */
    unsigned ndim;
    uint64_t shape[NPY_MAX_DIMS];
    uint64_t count; /* elements: the product of the shape */
    size_t data_offset;
} npy_array;

/* Whether a file name ends in ".npy" (any case): the files --out writes as
 * numpy arrays and @FILE must hold one. */
bool npy_path(const char *path);

/* Whether the bytes start with the .npy magic string. */
bool npy_is_npy(const void *bytes, size_t len);

/* Parses the .npy file held in bytes[0..len) and brings its elements to host
 * byte order in place.  A structured, object, bool or complex dtype, a
 * Fortran-order array of more than one dimension, a truncated file or bytes
 * after the data are errors.  Returns 0, or -1 with a one-line message. */
int npy_parse(uint8_t *bytes, size_t len, npy_array *a, char *err, size_t errlen);

/* numpy's name of a type: "float32", "uint8", ... ("?" for bool). */
const char *npy_dtype_name(spvjit_type t);

/* "(3, 4)", "(5,)", "()". */
void npy_shape_text(const npy_array *a, char *buf, size_t len);

/* Writes `count` elements of type t (host order) as a one-dimensional .npy
 * file.  Returns 0, or -1 with a message. */
int npy_write(const char *path, spvjit_type t, const void *data, uint64_t count, char *err, size_t errlen);

#endif
