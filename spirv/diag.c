/* spirv/diag.c — formatting of error messages (see diag.h). */
#include "diag.h"

#include <stdio.h>
#include <string.h>

int spv_vfail(spv_diag *diag, const char *fmt, va_list ap)
{
    if (diag)
        vsnprintf(diag->msg, sizeof diag->msg, fmt, ap);
    return -1;
}

int spv_fail(spv_diag *diag, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    spv_vfail(diag, fmt, ap);
    va_end(ap);
    return -1;
}

void spv_diag_append(spv_diag *diag, const char *fmt, ...)
{
    if (!diag)
        return;
    size_t n = strlen(diag->msg);
    if (n + 1 >= sizeof diag->msg)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(diag->msg + n, sizeof diag->msg - n, fmt, ap);
    va_end(ap);
}
