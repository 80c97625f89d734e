/* cmd/main.c — the spvjit command: dispatch to subcommands. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: spvjit COMMAND [OPTIONS] FILE.spv\n"
    "\n"
    "commands:\n"
    "  info FILE.spv                      flavour, entry points, spec constants, interface\n"
    "  specialize FILE.spv [-D ID=VALUE]... -o OUT.spv\n"
    "                                     fold specialization constants into constants\n"
    "\n"
    "values: 16, 0x10, -3, 1.5, true; a suffix picks the type where ambiguous:\n"
    "  -D 3=1.5:f64, -D 0=255:u8 (suffixes: bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64)\n"
    "\n"
    "  spvjit --help | --version\n";

int cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("spvjit: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return fputs(usage, stderr), 2;
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help"))
        return fputs(usage, stdout), 0;
    if (!strcmp(cmd, "--version"))
        return printf("spvjit %s\n", SPVJIT_VERSION_STRING), 0;
    if (!strcmp(cmd, "info"))
        return cmd_info(argc - 1, argv + 1);
    if (!strcmp(cmd, "specialize"))
        return cmd_specialize(argc - 1, argv + 1);
    return cli_error("unknown command '%s' (try 'spvjit --help')", cmd);
}
