/* util/file.c — see file.h. */
#include "util/file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/array.h"

void *util_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    util_array a = { 0 };
    int err = 0;
    for (;;) {
        if (!util_array_reserve(&a, a.size + ((size_t)1 << 16))) {
            err = ENOMEM;
            break;
        }
        size_t r = fread((char *)a.data + a.size, 1, a.capacity - a.size, f);
        a.size += r;
        if (r == 0)
            break;
    }
    if (!err && ferror(f))
        err = EIO;
    fclose(f);
    if (err) {
        util_array_fini(&a);
        errno = err;
        return NULL;
    }
    *len = a.size;
    return a.data; /* reserved above: never NULL */
}
