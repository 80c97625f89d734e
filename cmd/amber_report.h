/* cmd/amber_report.h — results of a `spvjit amber` run: the line per script,
 * the progress line on a terminal, the summary table by directory, and the
 * JSON (json-c) and JUnit XML files. */
#ifndef SPVJIT_CMD_AMBER_REPORT_H
#define SPVJIT_CMD_AMBER_REPORT_H

#include <stdbool.h>

#include "amber.h"

typedef struct amber_record {
    amber_result status;
    char *message; /* fail/skip/crash/timeout reason; "" for a pass */
    char *output;  /* what the script's process printed, or NULL */
    double time_s; /* wall time of its process */
    bool done;     /* it ran to a result (not so for the rest of an interrupted run) */
} amber_record;

typedef struct amber_report_options {
    bool quiet;             /* lines only for what did not pass or skip */
    const char *json_path;  /* or NULL */
    const char *junit_path; /* or NULL */
} amber_report_options;

typedef struct amber_report {
    amber_report_options opt;
    char **paths;
    unsigned n;
    amber_record *records; /* n, in the order of paths */
    unsigned finished;
    unsigned counts[AMBER_RESULT_COUNT];
    bool progress; /* stderr is a terminal */
} amber_report;

int amber_report_init(amber_report *r, const amber_report_options *o, char **paths, unsigned n);
/* Script i has its record: print its line and the progress. */
void amber_report_done(amber_report *r, unsigned i);
/* Prints the table and the totals, writes the files; returns the exit status
 * (0: nothing failed, crashed or timed out; 1 otherwise or a file failed). */
int amber_report_finish(amber_report *r, double wall_s);
void amber_report_fini(amber_report *r);

const char *amber_result_name(amber_result r);

#endif
