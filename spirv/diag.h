/* spirv/diag.h — error messages passed up the pipeline.
 *
 * Every stage reports failure by filling an spv_diag and returning an error
 * value; nothing prints or exits on its own.  A message names the input, the
 * place (word offset, id, instruction) and what was expected, on one line
 * (a disassembled instruction may follow after ": ").
 */
#ifndef SPVJIT_SPIRV_DIAG_H
#define SPVJIT_SPIRV_DIAG_H

#include <stdarg.h>
#include <stddef.h>

typedef struct spv_diag {
    char msg[2048];
} spv_diag;

/* Formats into diag (if non-NULL) and returns -1, so `return spv_fail(d, ...)` works. */
int spv_fail(spv_diag *diag, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int spv_vfail(spv_diag *diag, const char *fmt, va_list ap);
/* Appends to an existing message. */
void spv_diag_append(spv_diag *diag, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
