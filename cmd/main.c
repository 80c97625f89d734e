/* cmd/main.c — the spvjit command: dispatch to subcommands. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: spvjit COMMAND [OPTIONS] FILE.spv\n"
    "\n"
    "commands:\n"
    "  info [--json] FILE.spv             flavour, entry points, spec constants, interface\n"
    "  specialize FILE.spv [-D ID=VALUE]... -o OUT.spv\n"
    "                                     fold specialization constants into constants\n"
    "  run FILE.spv [-e ENTRY] [-D ID=VALUE]... [--groups X,Y,Z | --global X,Y,Z [--local X,Y,Z]]\n"
    "      [--buffer SET:BINDING=DATA] [--arg N=DATA] [--push DATA] [--print T] [--out T=F]\n"
    "      [--repeat N] [--json] [--no-specialize] [--threads N]\n"
    "                                     run one dispatch (spvjit run --help for DATA)\n"
    "  compile FILE.spv [-e ENTRY] [-D ID=VALUE]... [--local X,Y,Z] [--no-specialize] [-O N]\n"
    "      --emit llvm|opt-llvm|asm [-o OUT]  show the lowered IR, optimized IR or machine code\n"
    "  amber [-q] [-j N] [--timeout S] [--json FILE] [--junit FILE] [--target-env ENV] [--no-fork]\n"
    "      SCRIPT...                      run Amber scripts (compute subset): pass/fail/skip\n"
    "\n"
    "values: 16, 0x10, -3, 1.5, true; a suffix picks the type where ambiguous:\n"
    "  -D 3=1.5:f64, -D 0=255:u8 (suffixes: bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64)\n"
    "\n"
    "  spvjit --help | --version          spvjit COMMAND --help: a command's options\n"
    "  man spvjit                         the manual\n";

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
    if (!strcmp(cmd, "run"))
        return cmd_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "compile"))
        return cmd_compile(argc - 1, argv + 1);
    if (!strcmp(cmd, "amber"))
        return cmd_amber(argc - 1, argv + 1);
    return cli_error("unknown command '%s' (try 'spvjit --help')", cmd);
}
