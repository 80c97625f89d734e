/* cmd/cli.h — the spvjit command's subcommands. */
#ifndef SPVJIT_CMD_CLI_H
#define SPVJIT_CMD_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "lib/spvjit.h"

#define SPVJIT_VERSION_STRING "0.1.0"

int cmd_info(int argc, char **argv);
int cmd_specialize(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_amber(int argc, char **argv);
int cmd_compile(int argc, char **argv);
/* `info --json` (info_json.c). */
int info_json(const char *path);

/* Formats a message into err[len] (if err) and returns -1: the error style of
 * the parsers that report into a caller's buffer. */
int cli_errf(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The same with the place first: "PATH:LINE: message" (the script parsers). */
int cli_errf_at(char *err, size_t len, const char *path, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* The bits of spvjit_spec_info.sets: a key for JSON ("array_length") and a
 * phrase for text ("an array length"). */
typedef struct cli_spec_set {
    unsigned bit;
    const char *key, *text;
} cli_spec_set;
extern const cli_spec_set cli_spec_sets[4];

struct json_object;
/* Prints a JSON document on stdout (json-c, pretty) and releases it. */
void cli_json_print(struct json_object *doc);
/* One scalar as JSON: integers exactly, floats with --print's digits
 * (non-finite ones as NaN / Infinity, which Python's json reads). */
struct json_object *cli_json_scalar(spvjit_type t, const void *src);

/* Prints "spvjit: <message>" on stderr and returns the exit status 1. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Reports a failed library call: "spvjit: [WHAT: ]<the library's message>"
 * (the message names the file and the place; WHAT may be NULL).  Returns 1. */
int cli_api_error(const char *what, spvjit_status st);

/* "auto", "quick" or "opt" (--tier) into *out; -1 for anything else. */
int cli_parse_tier(const char *s, spvjit_tier *out);
#define CLI_TIER_VALUES "auto, quick or opt"

/* Adds "-D ID=VALUE" to specs (the library parses and, once the module is
 * known, checks it); reports a malformed one.  Returns 0 or 1. */
int cli_define(spvjit_specs *specs, const char *id_equals_value);
/* argv[*i] is "-DID=VALUE" or "-D" followed by "ID=VALUE": adds it (moving *i
 * past a separate value).  Returns 0 or 1 (reported). */
int cli_define_arg(spvjit_specs *specs, int argc, char **argv, int *i);

/* --memory MODE: "robust", "check", "unchecked" → the option; false for
 * anything else. */
bool cli_memory_parse(const char *s, spvjit_memory *out);

#endif
