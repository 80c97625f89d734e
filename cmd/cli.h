/* cmd/cli.h — the spvjit command's subcommands. */
#ifndef SPVJIT_CMD_CLI_H
#define SPVJIT_CMD_CLI_H

#include <stdio.h>

#define SPVJIT_VERSION_STRING "0.1.0"

int cmd_info(int argc, char **argv);
int cmd_specialize(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_amber(int argc, char **argv);
int cmd_compile(int argc, char **argv);

/* Prints "spvjit: <message>" on stderr and returns the exit status 1. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
