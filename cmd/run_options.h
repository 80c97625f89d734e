/* cmd/run_options.h — the options of `spvjit run`, parsed without touching the
 * library (so they are tested on their own). */
#ifndef SPVJIT_CMD_RUN_OPTIONS_H
#define SPVJIT_CMD_RUN_OPTIONS_H

#include "buffer_fill.h"

typedef enum run_target_kind {
    RUN_TARGET_BINDING, /* SET:BINDING (Shader flavour) */
    RUN_TARGET_ARG,     /* N (kernel argument index) */
    RUN_TARGET_PUSH,    /* push constants */
} run_target_kind;

typedef struct run_target {
    run_target_kind kind;
    uint32_t set, binding;
    uint32_t arg;
} run_target;

typedef struct run_data { /* --buffer / --arg / --push */
    run_target target;
    fill_data data;
    bool local; /* --arg N=local:BYTES */
    uint64_t local_bytes;
    const char *spec; /* the text, for messages */
} run_data;

typedef struct run_output { /* --print / --out */
    run_target target;
    spvjit_type type; /* given as TARGET:TYPE, else 0 (see cmd_run.c: output_type) */
    const char *file; /* --out */
} run_output;

typedef struct run_options {
    const char *file;
    const char *entry;
    const char **defines; /* "ID=VALUE" */
    unsigned ndefines;
    bool have_groups, have_global, have_local;
    uint32_t groups[3];
    uint64_t global[3];
    uint32_t local[3];
    unsigned global_dim;
    run_data *data;
    unsigned ndata;
    run_output *outputs;
    unsigned noutputs;
    unsigned repeat; /* 0: run once, no timing report */
    unsigned threads;
    spvjit_tier tier; /* --tier; DEFAULT: $SPVJIT_TIER, else auto */
    bool no_specialize;
    bool json;            /* --json: one JSON object on stdout */
    spvjit_memory memory; /* --memory (0: the library's default) */
    double timeout;       /* --timeout seconds per dispatch (0: none) */
    bool help;
} run_options;

/* Parses argv[1..argc) (argv[0] is "run").  Returns 0, or -1 with a
 * one-line message in err. */
int run_options_parse(int argc, char **argv, run_options *o, char *err, size_t errlen);
void run_options_free(run_options *o);

/* "0:1" → binding, "3" → argument, "push" → push constants; *rest points
 * after the target (":f32" or "" or "=..."). */
int run_target_parse(const char *s, run_target *t, const char **rest);
void run_target_name(const run_target *t, char *buf, size_t len);
bool run_target_equal(const run_target *a, const run_target *b);

/* "X", "X,Y" or "X,Y,Z" (missing ones are 1); returns the count given or -1. */
int run_parse_dims(const char *s, uint64_t out[3]);

extern const char run_usage[];

#endif
