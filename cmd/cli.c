/* cmd/cli.c — helpers shared by the subcommands. */
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "buffer_fill.h"
#include "cli.h"

int cli_error(const char *fmt, ...)
{
    /* One line, always: messages from the library or the validator may carry
     * a disassembled instruction on a line of its own. */
    char msg[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    size_t n = strlen(msg);
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
        msg[--n] = 0;
    fputs("spvjit: ", stderr);
    for (const char *p = msg; *p; p++) {
        if (*p != '\n') {
            fputc(*p, stderr);
            continue;
        }
        fputs("; ", stderr);
        while (p[1] == ' ' || p[1] == '\n')
            p++;
    }
    fputc('\n', stderr);
    return 1;
}

/* "[PATH:LINE: ]message" into err[len]. */
static int verrf(char *err, size_t len, const char *path, int line, const char *fmt, va_list ap)
{
    if (!err || !len)
        return -1;
    int n = path ? snprintf(err, len, "%s:%d: ", path, line) : 0;
    if (n >= 0 && (size_t)n < len)
        vsnprintf(err + n, len - (size_t)n, fmt, ap);
    return -1;
}

int cli_errf(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verrf(err, len, NULL, 0, fmt, ap);
    va_end(ap);
    return -1;
}

int cli_errf_at(char *err, size_t len, const char *path, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verrf(err, len, path, line, fmt, ap);
    va_end(ap);
    return -1;
}

int cli_api_error(const char *what, spvjit_status st)
{
    const char *e = spvjit_last_error();
    if (!e || !*e)
        e = spvjit_status_name(st);
    return what ? cli_error("%s: %s", what, e) : cli_error("%s", e);
}

int cli_define(spvjit_specs *specs, const char *id_equals_value)
{
    spvjit_status st = spvjit_spec_set_define(specs, id_equals_value);
    return st == SPVJIT_OK ? 0 : cli_api_error("-D", st);
}

int cli_define_arg(spvjit_specs *specs, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    const char *v = a[2] ? a + 2 : *i + 1 < argc ? argv[++*i] : NULL;
    return v ? cli_define(specs, v) : cli_error("-D needs ID=VALUE");
}

const cli_spec_set cli_spec_sets[4] = {
    { SPVJIT_SETS_LOCAL_SIZE_X, "local_size_x", "local_size_x" },
    { SPVJIT_SETS_LOCAL_SIZE_Y, "local_size_y", "local_size_y" },
    { SPVJIT_SETS_LOCAL_SIZE_Z, "local_size_z", "local_size_z" },
    { SPVJIT_SETS_ARRAY_LENGTH, "array_length", "an array length" },
};

void cli_json_print(struct json_object *doc)
{
    puts(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
                                                 JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(doc);
}

/* One element as JSON: integers exactly, floats with --print's digits
 * (non-finite ones as NaN / Infinity, which Python's json reads). */
struct json_object *cli_json_scalar(spvjit_type t, const void *src)
{
    if (!vtype_is_float(t))
        return vtype_is_signed(t) ? json_object_new_int64((int64_t)scalar_as_bits(t, src))
                                  : json_object_new_uint64(scalar_as_bits(t, src));
    double v = scalar_as_double(t, src);
    char text[64];
    if (isnan(v))
        snprintf(text, sizeof text, "NaN");
    else if (isinf(v))
        snprintf(text, sizeof text, "%sInfinity", v < 0 ? "-" : "");
    else
        scalar_format(t, src, text, sizeof text);
    return json_object_new_double_s(v, text);
}

int cli_parse_tier(const char *s, spvjit_tier *out)
{
    static const struct {
        const char *name;
        spvjit_tier tier;
    } tiers[] = { { "auto", SPVJIT_TIER_AUTO }, { "quick", SPVJIT_TIER_QUICK }, { "opt", SPVJIT_TIER_OPT } };
    for (size_t i = 0; i < sizeof tiers / sizeof tiers[0]; i++)
        if (!strcmp(s, tiers[i].name)) {
            *out = tiers[i].tier;
            return 0;
        }
    return -1;
}

bool cli_memory_parse(const char *s, spvjit_memory *out)
{
    static const char *const names[] = { "robust", "check", "unchecked" };
    static const spvjit_memory modes[] = { SPVJIT_MEMORY_ROBUST, SPVJIT_MEMORY_CHECK, SPVJIT_MEMORY_UNCHECKED };
    for (size_t i = 0; i < 3; i++)
        if (!strcmp(s, names[i])) {
            *out = modes[i];
            return true;
        }
    return false;
}
