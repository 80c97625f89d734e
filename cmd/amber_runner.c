/* cmd/amber_runner.c — `spvjit amber`: runs scripts in child processes.
 *
 * Each script runs in a process of its own (fork, never exec: the parent
 * holds no threads and no spvjit context), so a crash, a leak reported by the
 * sanitizers or a hang in one script is that script's result and nothing else
 * is disturbed.  The child writes its result (status byte + message) into a
 * pipe and its stdout/stderr (a kernel's printf, a sanitizer report) into a
 * second one.  --timeout is kept first in the child: its dispatches share the
 * script's time and one that runs past it stops (the library's time limit),
 * which the child reports itself.  The parent keeps up to -j children
 * running, kills the process group of one still running a grace period
 * after --timeout (a hang outside a dispatch: a compiler), and classifies
 * what it sees:
 *
 *   result record, exit 0            pass / fail / skip / timeout as recorded
 *   no record, or a non-zero exit    crash (signal or status, last output line)
 *   still running past the grace     timeout (killed)
 *
 * Reporting (one line per script, the progress line, the summary table, JSON
 * and JUnit files) is amber_report.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "amber.h"
#include "amber_report.h"
#include "cli.h"
#include "run_options.h"
#include "util/timer.h"

enum { OUTPUT_KEEP = 16384 }; /* bytes of a child's stdout/stderr kept for the report */

typedef struct slot {
    pid_t pid; /* 0: free */
    unsigned script;
    int result_fd, output_fd; /* -1 once at end of file */
    double start_ms;
    char result[4096];
    size_t result_len;
    char output[OUTPUT_KEEP];
    size_t output_len;
    bool output_truncated;
    bool killed; /* by the timeout */
} slot;

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
    interrupted = sig;
}

/* The child: run the script, report, exit (through exit(), so that LeakSanitizer checks it). */
static void child_main(const char *path, int result_fd, int output_fd)
{
    setpgid(0, 0); /* its compilers (clang, llvm-spirv) die with it on a timeout */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    dup2(output_fd, STDOUT_FILENO);
    dup2(output_fd, STDERR_FILENO);
    close(output_fd);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) {
        dup2(devnull, STDIN_FILENO);
        close(devnull);
    }
    char msg[4096];
    amber_result r = amber_run_path(path, msg, sizeof msg);
    char rec[4100];
    int n = snprintf(rec, sizeof rec, "%c%s",
                     r == AMBER_PASS      ? 'P'
                     : r == AMBER_SKIP    ? 'S'
                     : r == AMBER_TIMEOUT ? 'T'
                                          : 'F',
                     msg);
    if (n > (int)sizeof rec - 1)
        n = (int)sizeof rec - 1;
    for (ssize_t off = 0, w; off < n; off += w)
        if ((w = write(result_fd, rec + off, (size_t)(n - off))) <= 0)
            break;
    close(result_fd);
    fflush(NULL);
    exit(0);
}

static int spawn(slot *s, const char *path, unsigned index)
{
    int rp[2], op[2];
    if (pipe2(rp, O_CLOEXEC))
        return -1;
    if (pipe2(op, O_CLOEXEC)) {
        close(rp[0]);
        close(rp[1]);
        return -1;
    }
    fflush(NULL); /* the child must not write the parent's buffered output again */
    pid_t pid = fork();
    if (pid < 0) {
        close(rp[0]);
        close(rp[1]);
        close(op[0]);
        close(op[1]);
        return -1;
    }
    if (pid == 0) {
        close(rp[0]);
        close(op[0]);
        child_main(path, rp[1], op[1]);
    }
    setpgid(pid, pid); /* also here: no race with a kill before the child ran */
    close(rp[1]);
    close(op[1]);
    memset(s, 0, sizeof *s);
    s->pid = pid;
    s->script = index;
    s->result_fd = rp[0];
    s->output_fd = op[0];
    s->start_ms = util_now_ms();
    return 0;
}

static void drain(int *fd, char *buf, size_t cap, size_t *len, bool *truncated)
{
    char tmp[4096];
    ssize_t n = read(*fd, tmp, sizeof tmp);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        close(*fd);
        *fd = -1;
        return;
    }
    size_t room = cap - 1 - *len;
    if ((size_t)n > room) {
        if (truncated)
            *truncated = true;
        n = (ssize_t)room;
    }
    memcpy(buf + *len, tmp, (size_t)n);
    *len += (size_t)n;
    buf[*len] = 0;
}

/* The last non-empty line of a child's output (a sanitizer's SUMMARY, an abort message). */
static void last_line(const char *out, char *line, size_t len)
{
    size_t n = strlen(out);
    while (n && (out[n - 1] == '\n' || out[n - 1] == '\r' || out[n - 1] == ' '))
        n--;
    size_t start = n;
    while (start && out[start - 1] != '\n')
        start--;
    snprintf(line, len, "%.*s", (int)(n - start), out + start);
}

/* Turns what the parent saw of a finished child into its record. */
static void classify(const slot *s, int wstatus, amber_record *rec)
{
    rec->time_s = (util_now_ms() - s->start_ms) / 1000.0;
    rec->output = s->output_len ? strdup(s->output) : NULL;
    char tail[512];
    last_line(s->output, tail, sizeof tail);
    const char *sep = tail[0] ? ": " : "";
    char msg[4400];
    if (s->killed) {
        rec->status = AMBER_TIMEOUT;
        snprintf(msg, sizeof msg, "no result after %.0f s (killed)", rec->time_s);
    } else if (WIFSIGNALED(wstatus)) {
        int sig = WTERMSIG(wstatus);
        rec->status = AMBER_CRASH;
        snprintf(msg, sizeof msg, "killed by signal %d (%s)%s%s", sig, strsignal(sig), sep, tail);
    } else if (!s->result_len) {
        rec->status = AMBER_CRASH;
        snprintf(msg, sizeof msg, "exited with status %d without a result%s%s", WEXITSTATUS(wstatus), sep, tail);
    } else if (WEXITSTATUS(wstatus) != 0) {
        rec->status = AMBER_CRASH;
        snprintf(msg, sizeof msg, "exited with status %d after its result (%s)%s%s", WEXITSTATUS(wstatus),
                 s->result[0] == 'P' ? "pass" : s->result + 1, sep, tail);
    } else {
        rec->status = s->result[0] == 'P'   ? AMBER_PASS
                      : s->result[0] == 'S' ? AMBER_SKIP
                      : s->result[0] == 'T' ? AMBER_TIMEOUT
                                            : AMBER_FAIL;
        snprintf(msg, sizeof msg, "%s", s->result + 1);
    }
    rec->message = strdup(msg);
}

static void kill_all(slot *slots, unsigned jobs)
{
    for (unsigned i = 0; i < jobs; i++)
        if (slots[i].pid > 0)
            kill(-slots[i].pid, SIGKILL);
}

/* Runs every script; records[i] gets script i's result.  Returns 0, or -1 when
 * interrupted or the system refuses a process or pipe (message printed). */
static int run_all(char **paths, unsigned n, unsigned jobs, double timeout_s, amber_report *rep)
{
    /* the child stops its own dispatches at timeout_s; the kill is for what it cannot stop */
    if (timeout_s > 0)
        timeout_s += timeout_s / 4 > 2 ? timeout_s / 4 : 2;
    slot *slots = calloc(jobs, sizeof *slots);
    struct pollfd *pf = calloc(2 * (size_t)jobs, sizeof *pf);
    if (!slots || !pf) {
        free(slots);
        free(pf);
        return cli_error("amber: out of memory");
    }
    unsigned next = 0, active = 0;
    int rc = 0;
    while ((next < n || active) && !interrupted) {
        for (unsigned i = 0; i < jobs && next < n && !interrupted; i++) {
            if (slots[i].pid)
                continue;
            if (spawn(&slots[i], paths[next], next)) {
                rc = cli_error("amber: cannot start a process for %s: %s", paths[next], strerror(errno));
                goto out;
            }
            next++;
            active++;
        }
        /* wait for output, an exit or the nearest deadline */
        unsigned npf = 0;
        double now = util_now_ms(), wait_ms = 1000;
        for (unsigned i = 0; i < jobs; i++) {
            slot *s = &slots[i];
            if (!s->pid)
                continue;
            if (s->result_fd >= 0)
                pf[npf++] = (struct pollfd){ .fd = s->result_fd, .events = POLLIN };
            if (s->output_fd >= 0)
                pf[npf++] = (struct pollfd){ .fd = s->output_fd, .events = POLLIN };
            if (s->result_fd < 0 && s->output_fd < 0)
                wait_ms = wait_ms < 5 ? wait_ms : 5; /* pipes closed: the exit is near */
            if (timeout_s > 0) {
                double left = s->start_ms + timeout_s * 1000 - now;
                wait_ms = left < wait_ms ? left : wait_ms;
            }
        }
        if (wait_ms < 0)
            wait_ms = 0;
        if (poll(pf, npf, (int)wait_ms + (wait_ms > (int)wait_ms)) < 0 && errno != EINTR) {
            rc = cli_error("amber: poll: %s", strerror(errno));
            goto out;
        }
        for (unsigned i = 0; i < jobs; i++) {
            slot *s = &slots[i];
            if (!s->pid)
                continue;
            for (unsigned k = 0; k < npf; k++) {
                if (!(pf[k].revents & (POLLIN | POLLHUP | POLLERR)))
                    continue;
                if (pf[k].fd == s->result_fd)
                    drain(&s->result_fd, s->result, sizeof s->result, &s->result_len, NULL);
                else if (pf[k].fd == s->output_fd)
                    drain(&s->output_fd, s->output, sizeof s->output, &s->output_len, &s->output_truncated);
            }
            if (timeout_s > 0 && !s->killed && util_now_ms() - s->start_ms > timeout_s * 1000) {
                kill(-s->pid, SIGKILL);
                s->killed = true;
            }
            int wstatus;
            pid_t w = waitpid(s->pid, &wstatus, WNOHANG);
            if (w == 0)
                continue;
            /* exited: what is still in the pipes belongs to its result */
            while (s->result_fd >= 0)
                drain(&s->result_fd, s->result, sizeof s->result, &s->result_len, NULL);
            if (s->output_fd >= 0) /* a grandchild may hold it open: take what is there */
                fcntl(s->output_fd, F_SETFL, O_NONBLOCK);
            for (int guard = 0; s->output_fd >= 0 && guard < 8; guard++)
                drain(&s->output_fd, s->output, sizeof s->output, &s->output_len, &s->output_truncated);
            if (s->output_fd >= 0)
                close(s->output_fd);
            if (w < 0) /* cannot happen for our own child; report it rather than lose the script */
                wstatus = 0x7f00;
            kill(-s->pid, SIGKILL); /* anything it left behind */
            amber_record *rec = &rep->records[s->script];
            classify(s, wstatus, rec);
            amber_report_done(rep, s->script);
            s->pid = 0;
            active--;
        }
    }
out:
    if (interrupted) {
        kill_all(slots, jobs);
        fprintf(stderr, "\nspvjit: amber: interrupted (signal %d); %u of %u scripts finished\n", (int)interrupted,
                rep->finished, n);
        rc = -1;
    } else if (rc) {
        kill_all(slots, jobs);
        rc = -1;
    }
    for (unsigned i = 0; i < jobs; i++)
        if (slots[i].pid > 0) {
            waitpid(slots[i].pid, NULL, 0);
            if (slots[i].result_fd >= 0)
                close(slots[i].result_fd);
            if (slots[i].output_fd >= 0)
                close(slots[i].output_fd);
        }
    free(slots);
    free(pf);
    return rc;
}

/* --no-fork: every script in this process, one after the other (for debuggers). */
static int run_in_process(char **paths, unsigned n, amber_report *rep)
{
    for (unsigned i = 0; i < n && !interrupted; i++) {
        char msg[4096];
        double t0 = util_now_ms();
        amber_record *rec = &rep->records[i];
        rec->status = amber_run_path(paths[i], msg, sizeof msg);
        rec->time_s = (util_now_ms() - t0) / 1000.0;
        rec->message = strdup(msg);
        amber_report_done(rep, i);
    }
    return interrupted ? -1 : 0;
}

static const char amber_usage[] =
    "usage: spvjit amber [-q] [-j N] [--timeout SECONDS] [--memory MODE] [--json FILE] [--junit FILE]\n"
    "                    [--target-env ENV] [--tier auto|quick|opt] [--no-fork] SCRIPT...\n"
    "Runs the compute subset of Amber scripts (AmberScript '#!amber' and VkScript) on\n"
    "the CPU, each in a process of its own; prints 'SCRIPT: pass', 'SCRIPT: fail: <first\n"
    "failing EXPECT>', 'SCRIPT: skip: <what it needs>', 'SCRIPT: crash: <signal or status>'\n"
    "or 'SCRIPT: timeout: ...' per script, a table by directory when the scripts come from\n"
    "several, then 'N passed, N failed, N skipped, N crashed, N timed out'.\n"
    "  -q               print only failures, crashes, timeouts and the summary\n"
    "  -j N, --jobs N   run N scripts at a time (default 1; 0: one per CPU)\n"
    "  --timeout S      a script's dispatches stop once they took S seconds (default 60; 0:\n"
    "                   never); a script still running a grace period later is killed\n"
    "  --memory MODE    robust (default), check or unchecked (see spvjit run --help); a script\n"
    "                   asking for DEVICE_FEATURE robustBufferAccess runs robust under unchecked\n"
    "  --json FILE      write one record per script (status, message, time, output) as JSON\n"
    "  --junit FILE     write the results as JUnit XML (one testsuite per directory)\n"
    "  --target-env ENV build shaders without TARGET_ENV for ENV (spv1.0..spv1.6, vulkan1.0..vulkan1.3)\n"
    "  --tier T         compile tier: auto, quick or opt (default: $SPVJIT_TIER, else auto; opt runs the\n"
    "                   scripts on the optimized code, auto mostly on the quick code)\n"
    "  --no-fork        run the scripts in this process, one at a time (for debuggers: a crash\n"
    "                   ends the whole run; only dispatches are timed)\n"
    "On a terminal, a progress line '[123/438] 118 pass, 3 fail, 2 skip' is kept on stderr.\n"
    "Exit status: 0 when nothing failed, crashed or timed out, 1 otherwise, 2 on bad usage.\n";

static int parse_count(const char *opt, const char *text, double *out, bool integer)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (!*text || *end || errno || v < 0 || v > 1e9 || (integer && v != (double)(long)v))
        return fprintf(stderr, "spvjit: amber: %s: '%s' is not a non-negative %s\n%s", opt, text,
                       integer ? "integer" : "number", amber_usage),
               -1;
    *out = v;
    return 0;
}

int cmd_amber(int argc, char **argv)
{
    amber_report_options ro = { 0 };
    double jobs = 1, timeout_s = 60;
    spvjit_memory memory = SPVJIT_MEMORY_DEFAULT;
    bool no_fork = false;
    int first = 1;
    for (; first < argc && argv[first][0] == '-' && argv[first][1]; first++) {
        const char *a = argv[first];
        const char *val = first + 1 < argc ? argv[first + 1] : NULL;
        if (!strcmp(a, "--")) {
            first++;
            break;
        } else if (!strcmp(a, "-q")) {
            ro.quiet = true;
        } else if (!strcmp(a, "--no-fork")) {
            no_fork = true;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            return fputs(amber_usage, stdout), 0;
        } else if (!strncmp(a, "-j", 2) && a[2]) {
            if (parse_count("-j", a + 2, &jobs, true))
                return 2;
        } else if (!strcmp(a, "-j") || !strcmp(a, "--jobs") || !strcmp(a, "--timeout") || !strcmp(a, "--json") ||
                   !strcmp(a, "--junit") || !strcmp(a, "--target-env") || !strcmp(a, "--tier") ||
                   !strcmp(a, "--memory")) {
            if (!val)
                return fprintf(stderr, "spvjit: amber: %s needs a value\n%s", a, amber_usage), 2;
            first++;
            if (!strcmp(a, "--memory")) {
                if (!cli_memory_parse(val, &memory))
                    return fprintf(stderr, "spvjit: amber: --memory %s: expected robust, check or unchecked\n%s", val,
                                   amber_usage),
                           2;
            } else if (!strcmp(a, "--timeout")) {
                if (parse_count(a, val, &timeout_s, false))
                    return 2;
            } else if (!strcmp(a, "--json")) {
                ro.json_path = val;
            } else if (!strcmp(a, "--junit")) {
                ro.junit_path = val;
            } else if (!strcmp(a, "--target-env")) {
                amber_set_default_target_env(val);
            } else if (!strcmp(a, "--tier")) {
                spvjit_tier t;
                if (cli_parse_tier(val, &t))
                    return fprintf(stderr, "spvjit: amber: --tier %s: expected " CLI_TIER_VALUES "\n%s", val,
                                   amber_usage),
                           2;
                amber_set_tier(t);
            } else if (parse_count(a, val, &jobs, true)) {
                return 2;
            }
        } else {
            return fprintf(stderr, "spvjit: amber: unknown option '%s'\n%s", a, amber_usage), 2;
        }
    }
    if (first >= argc)
        return fputs(amber_usage, stderr), 2;
    if (jobs == 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        jobs = cpus > 0 ? (double)cpus : 1;
    }
    unsigned n = (unsigned)(argc - first);
    if (jobs > n)
        jobs = n;
    amber_set_run_options(memory, timeout_s);
    amber_report rep;
    if (amber_report_init(&rep, &ro, argv + first, n))
        return cli_error("amber: out of memory");
    struct sigaction sa = { .sa_handler = on_interrupt }, old_int, old_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    double t0 = util_now_ms();
    if (!no_fork && n > 1)
        amber_warm_compilers(argv + first, n); /* the children inherit what it builds */
    int rc =
        no_fork ? run_in_process(argv + first, n, &rep) : run_all(argv + first, n, (unsigned)jobs, timeout_s, &rep);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    int st = amber_report_finish(&rep, (util_now_ms() - t0) / 1000.0);
    amber_report_fini(&rep);
    if (rc)
        return 1;
    return st;
}
