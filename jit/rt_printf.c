/* jit/rt_printf.c — OpenCL printf at run time (see rt_printf.h). */
#include "jit/rt_printf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int rt_printf_parse(const char *fmt, size_t *pos, rt_printf_spec *spec, const char **why)
{
    const char *dummy;
    if (!why)
        why = &dummy;
    const char *p = strchr(fmt + *pos, '%');
    if (!p)
        return 0;
    memset(spec, 0, sizeof *spec);
    spec->start = (size_t)(p - fmt);
    spec->width = spec->prec = -1;
    p++;
    if (*p == '%') {
        spec->conv = '%';
        spec->end = (size_t)(p + 1 - fmt);
        *pos = spec->end;
        return 1;
    }
    unsigned nf = 0;
    while (*p && strchr("-+ #0", *p)) {
        if (nf < sizeof spec->flags - 2) /* room for a "-" from a negative star width */
            spec->flags[nf++] = *p;
        p++;
    }
    if (*p == '*') {
        spec->star_width = true;
        p++;
    } else if (*p >= '0' && *p <= '9') {
        spec->width = 0;
        while (*p >= '0' && *p <= '9' && spec->width < 100000)
            spec->width = spec->width * 10 + (*p++ - '0');
    }
    if (*p == '.') {
        p++;
        spec->prec = 0;
        if (*p == '*') {
            spec->star_prec = true;
            p++;
        } else {
            while (*p >= '0' && *p <= '9' && spec->prec < 100000)
                spec->prec = spec->prec * 10 + (*p++ - '0');
        }
    }
    if (*p == 'v') { /* OpenCL vector specifier: v2 v3 v4 v8 v16 */
        p++;
        unsigned n = 0;
        while (*p >= '0' && *p <= '9' && n < 100)
            n = n * 10 + (unsigned)(*p++ - '0');
        if (n != 2 && n != 3 && n != 4 && n != 8 && n != 16) {
            *why = "vector specifier must be v2, v3, v4, v8 or v16";
            return -1;
        }
        spec->vec = n;
    }
    if (p[0] == 'h' && p[1] == 'h') {
        spec->int_bits = 8;
        p += 2;
    } else if (p[0] == 'h' && p[1] == 'l') {
        if (!spec->vec) {
            *why = "length modifier hl is only for vector conversions";
            return -1;
        }
        spec->int_bits = 32;
        p += 2;
    } else if (p[0] == 'h') {
        spec->int_bits = 16;
        p++;
    } else if (p[0] == 'l') {
        spec->int_bits = 64;
        p++;
    }
    char conv = *p;
    if (!rt_printf_is_int_conv(conv) && !rt_printf_is_fp_conv(conv) && conv != 's' && conv != 'p') {
        *why = conv ? "unknown conversion character" : "format ends inside a conversion";
        return -1;
    }
    if ((conv == 's' || conv == 'p' || conv == 'c') && (spec->vec || spec->int_bits)) {
        *why = "%c, %s and %p take no vector specifier or length modifier";
        return -1;
    }
    spec->conv = conv;
    spec->end = (size_t)(p + 1 - fmt);
    *pos = spec->end;
    return 1;
}

/* One element with the user's flags, width and precision, through C's printf. */
static int print_elem(FILE *f, const rt_printf_spec *s, int width, int prec, const char *len, char conv, va_list *ap)
{
    char cf[48];
    int n = snprintf(cf, sizeof cf, "%%%s", s->flags);
    if (width >= 0)
        n += snprintf(cf + n, sizeof cf - (size_t)n, "%d", width);
    if (prec >= 0)
        n += snprintf(cf + n, sizeof cf - (size_t)n, ".%d", prec);
    snprintf(cf + n, sizeof cf - (size_t)n, "%s%c", len, conv);
    if (rt_printf_is_int_conv(conv)) {
        unsigned long long v = (unsigned long long)va_arg(*ap, long long);
        unsigned bits = conv == 'c' ? 32 : s->int_bits ? s->int_bits : 32;
        if (bits < 64) { /* the argument's own width: truncate, then extend by signedness */
            unsigned long long m = (1ull << bits) - 1;
            v &= m;
            if ((conv == 'd' || conv == 'i' || conv == 'c') && (v >> (bits - 1)) & 1)
                v |= ~m;
        }
        if (conv == 'c')
            return fprintf(f, cf, (int)(long long)v);
        if (conv == 'd' || conv == 'i')
            return fprintf(f, cf, (long long)v);
        return fprintf(f, cf, v);
    }
    if (rt_printf_is_fp_conv(conv))
        return fprintf(f, cf, va_arg(*ap, double));
    return fprintf(f, cf, va_arg(*ap, void *));
}

int spvjit_rt_printf(void *stream, const char *fmt, ...)
{
    FILE *f = stream ? (FILE *)stream : stdout;
    va_list ap;
    va_start(ap, fmt);
    size_t pos = 0;
    int failed = 0;
    for (;;) {
        rt_printf_spec s;
        size_t text_from = pos;
        int r = rt_printf_parse(fmt, &pos, &s, NULL);
        if (r <= 0) { /* the rest is text (a malformed tail was refused when lowering) */
            fputs(fmt + text_from, f);
            break;
        }
        fwrite(fmt + text_from, 1, s.start - text_from, f);
        if (s.conv == '%') {
            fputc('%', f);
            continue;
        }
        int width = s.width, prec = s.prec;
        if (s.star_width) {
            width = (int)va_arg(ap, long long);
            if (width < 0) /* C: a negative '*' width means '-' and its absolute value */
                width = -width, strcat(s.flags, "-");
        }
        if (s.star_prec) {
            prec = (int)va_arg(ap, long long);
            if (prec < 0)
                prec = -1;
        }
        const char *len = rt_printf_is_int_conv(s.conv) && s.conv != 'c' ? "ll" : "";
        unsigned lanes = s.vec ? s.vec : 1;
        for (unsigned i = 0; i < lanes; i++) {
            if (i)
                fputc(',', f);
            if (print_elem(f, &s, width, prec, len, s.conv, &ap) < 0)
                failed = 1;
        }
    }
    va_end(ap);
    return failed || ferror(f) ? -1 : 0;
}
