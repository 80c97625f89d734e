/* util/file.h — reading a whole file. */
#ifndef SPVJIT_UTIL_FILE_H
#define SPVJIT_UTIL_FILE_H

#include <stddef.h>

/* The file's bytes, malloc'd (never NULL on success, even when empty), their
 * count in *len.  NULL on failure with errno saying why (ENOENT, EACCES, EIO,
 * ENOMEM, ...).  Reads pipes and other files without a size too. */
void *util_read_file(const char *path, size_t *len);

#endif
