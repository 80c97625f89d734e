/* lib/api_error.c — the thread-local last error, status names, the version. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/api_internal.h"

static _Thread_local char last_error[2048];

spvjit_status api_fail(spvjit_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return s;
}

void api_set_error(const char *msg)
{
    snprintf(last_error, sizeof last_error, "%s", msg ? msg : "");
}

SPVJIT_API const char *spvjit_last_error(void)
{
    return last_error;
}

SPVJIT_API const char *spvjit_status_name(spvjit_status s)
{
    switch (s) {
    case SPVJIT_OK:
        return "SPVJIT_OK";
    case SPVJIT_ERROR_INVALID_MODULE:
        return "SPVJIT_ERROR_INVALID_MODULE";
    case SPVJIT_ERROR_UNSUPPORTED:
        return "SPVJIT_ERROR_UNSUPPORTED";
    case SPVJIT_ERROR_SPEC_CONSTANT:
        return "SPVJIT_ERROR_SPEC_CONSTANT";
    case SPVJIT_ERROR_BINDING:
        return "SPVJIT_ERROR_BINDING";
    case SPVJIT_ERROR_DISPATCH:
        return "SPVJIT_ERROR_DISPATCH";
    case SPVJIT_ERROR_NOT_FOUND:
        return "SPVJIT_ERROR_NOT_FOUND";
    case SPVJIT_ERROR_IO:
        return "SPVJIT_ERROR_IO";
    case SPVJIT_ERROR_OUT_OF_MEMORY:
        return "SPVJIT_ERROR_OUT_OF_MEMORY";
    case SPVJIT_ERROR_INVALID_ARGUMENT:
        return "SPVJIT_ERROR_INVALID_ARGUMENT";
    case SPVJIT_ERROR_TIMEOUT:
        return "SPVJIT_ERROR_TIMEOUT";
    case SPVJIT_ERROR_CANCELLED:
        return "SPVJIT_ERROR_CANCELLED";
    case SPVJIT_ERROR_MEMORY_CHECK:
        return "SPVJIT_ERROR_MEMORY_CHECK";
    case SPVJIT_ERROR_LIMIT:
        return "SPVJIT_ERROR_LIMIT";
    }
    return "SPVJIT_ERROR_UNKNOWN";
}

SPVJIT_API const char *spvjit_version(void)
{
    return SPVJIT_VERSION_STRING;
}
