/* cmd/amber_report.c — what a `spvjit amber` run prints and writes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "amber_report.h"
#include "cli.h"

static const char *const result_names[AMBER_RESULT_COUNT] = { "pass", "fail", "skip", "crash", "timeout" };

const char *amber_result_name(amber_result r)
{
    return r < AMBER_RESULT_COUNT ? result_names[r] : "?";
}

int amber_report_init(amber_report *r, const amber_report_options *o, char **paths, unsigned n)
{
    memset(r, 0, sizeof *r);
    r->opt = *o;
    r->paths = paths;
    r->n = n;
    r->records = calloc(n ? n : 1, sizeof *r->records);
    r->progress = isatty(STDERR_FILENO);
    return r->records ? 0 : -1;
}

void amber_report_fini(amber_report *r)
{
    for (unsigned i = 0; i < r->n; i++) {
        free(r->records[i].message);
        free(r->records[i].output);
    }
    free(r->records);
    r->records = NULL;
}

static void print_progress(const amber_report *r)
{
    fprintf(stderr, "\r\033[K[%u/%u] %u pass, %u fail, %u skip", r->finished, r->n, r->counts[AMBER_PASS],
            r->counts[AMBER_FAIL], r->counts[AMBER_SKIP]);
    if (r->counts[AMBER_CRASH])
        fprintf(stderr, ", %u crash", r->counts[AMBER_CRASH]);
    if (r->counts[AMBER_TIMEOUT])
        fprintf(stderr, ", %u timeout", r->counts[AMBER_TIMEOUT]);
    fflush(stderr);
}

void amber_report_done(amber_report *r, unsigned i)
{
    amber_record *rec = &r->records[i];
    rec->done = true;
    r->finished++;
    r->counts[rec->status]++;
    bool show = !r->opt.quiet || (rec->status != AMBER_PASS && rec->status != AMBER_SKIP);
    if (show) {
        if (r->progress)
            fputs("\r\033[K", stderr);
        if (rec->status == AMBER_PASS)
            printf("%s: pass\n", r->paths[i]);
        else
            printf("%s: %s: %s\n", r->paths[i], amber_result_name(rec->status), rec->message ? rec->message : "");
        fflush(stdout);
    }
    if (r->progress)
        print_progress(r);
}

/* --- the table by directory ------------------------------------------------------------ */

typedef struct dir_row {
    char *name;
    unsigned counts[AMBER_RESULT_COUNT];
} dir_row;

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
}

/* Length of the common leading directories of all rows ("a/b/c", "a/b/d" → "a/b/"). */
static size_t common_prefix(dir_row *rows, unsigned n)
{
    if (n < 2)
        return 0;
    size_t len = strlen(rows[0].name);
    for (unsigned i = 1; i < n; i++) {
        size_t k = 0;
        while (k < len && rows[i].name[k] == rows[0].name[k])
            k++;
        len = k;
    }
    /* back to a '/' that ends a component in every row */
    while (len) {
        bool ok = true;
        for (unsigned i = 0; i < n && ok; i++)
            ok = rows[i].name[len - 1] == '/';
        if (ok)
            break;
        len--;
    }
    return len;
}

static int row_cmp(const void *a, const void *b)
{
    return strcmp(((const dir_row *)a)->name, ((const dir_row *)b)->name);
}

static void print_table(const amber_report *r)
{
    dir_row *rows = calloc(r->n ? r->n : 1, sizeof *rows);
    unsigned nrows = 0;
    if (!rows)
        return;
    for (unsigned i = 0; i < r->n; i++) {
        if (!r->records[i].done)
            continue;
        char *d = dir_of(r->paths[i]);
        if (!d)
            break;
        unsigned k = 0;
        while (k < nrows && strcmp(rows[k].name, d))
            k++;
        if (k == nrows)
            rows[nrows++].name = d;
        else
            free(d);
        rows[k].counts[r->records[i].status]++;
    }
    if (nrows > 1) {
        qsort(rows, nrows, sizeof *rows, row_cmp);
        size_t skip = common_prefix(rows, nrows), width = 9;
        for (unsigned k = 0; k < nrows; k++)
            if (strlen(rows[k].name + skip) > width)
                width = strlen(rows[k].name + skip);
        printf("\n%-*s %6s %6s %6s %6s %8s %6s\n", (int)width, "directory", "pass", "fail", "skip", "crash", "timeout",
               "total");
        unsigned tot[AMBER_RESULT_COUNT] = { 0 };
        for (unsigned k = 0; k < nrows; k++) {
            unsigned *c = rows[k].counts, sum = 0;
            for (int s = 0; s < AMBER_RESULT_COUNT; s++) {
                sum += c[s];
                tot[s] += c[s];
            }
            printf("%-*s %6u %6u %6u %6u %8u %6u\n", (int)width, rows[k].name + skip, c[AMBER_PASS], c[AMBER_FAIL],
                   c[AMBER_SKIP], c[AMBER_CRASH], c[AMBER_TIMEOUT], sum);
        }
        unsigned sum = 0;
        for (int s = 0; s < AMBER_RESULT_COUNT; s++)
            sum += tot[s];
        printf("%-*s %6u %6u %6u %6u %8u %6u\n\n", (int)width, "total", tot[AMBER_PASS], tot[AMBER_FAIL],
               tot[AMBER_SKIP], tot[AMBER_CRASH], tot[AMBER_TIMEOUT], sum);
    }
    for (unsigned k = 0; k < nrows; k++)
        free(rows[k].name);
    free(rows);
}

/* --- JSON ------------------------------------------------------------------------------------ */

static json_object *json_str(const char *s)
{
    return json_object_new_string(s ? s : "");
}

static int write_json(const amber_report *r, double wall_s)
{
    json_object *root = json_object_new_object(), *totals = json_object_new_object(),
                *scripts = json_object_new_array_ext((int)r->n);
    if (!root || !totals || !scripts) {
        json_object_put(root);
        json_object_put(totals);
        json_object_put(scripts);
        return cli_error("amber: --json: out of memory");
    }
    for (int s = 0; s < AMBER_RESULT_COUNT; s++)
        json_object_object_add(totals, result_names[s], json_object_new_int((int)r->counts[s]));
    for (unsigned i = 0; i < r->n; i++) {
        if (!r->records[i].done)
            continue; /* interrupted before it ran */
        const amber_record *rec = &r->records[i];
        json_object *o = json_object_new_object();
        json_object_object_add(o, "script", json_str(r->paths[i]));
        json_object_object_add(o, "status", json_str(amber_result_name(rec->status)));
        json_object_object_add(o, "message", json_str(rec->message));
        json_object_object_add(o, "time", json_object_new_double(rec->time_s));
        if (rec->output)
            json_object_object_add(o, "output", json_str(rec->output));
        json_object_array_add(scripts, o);
    }
    json_object_object_add(root, "tool", json_str("spvjit amber " SPVJIT_VERSION_STRING));
    json_object_object_add(root, "scripts_run", json_object_new_int((int)r->finished));
    json_object_object_add(root, "wall_time", json_object_new_double(wall_s));
    json_object_object_add(root, "totals", totals);
    json_object_object_add(root, "scripts", scripts);
    int rc = 0;
    if (json_object_to_file_ext(r->opt.json_path, root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE))
        rc = cli_error("amber: cannot write %s: %s", r->opt.json_path, json_util_get_last_err());
    json_object_put(root);
    return rc;
}

/* --- JUnit XML ------------------------------------------------------------------------------ */

/* Text as XML character data or attribute value: markup escaped, control
 * characters XML 1.0 does not allow dropped. */
static void xml_text(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&apos;", f);
            break;
        default:
            if (c >= 0x20 || c == '\t' || c == '\n' || c == '\r')
                fputc(c, f);
        }
    }
}

static int write_junit(const amber_report *r, double wall_s)
{
    FILE *f = fopen(r->opt.junit_path, "w");
    if (!f)
        return cli_error("amber: cannot write %s: %s", r->opt.junit_path, strerror(errno));
    unsigned failures = r->counts[AMBER_FAIL], errors = r->counts[AMBER_CRASH] + r->counts[AMBER_TIMEOUT];
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(
        f,
        "<testsuites name=\"spvjit amber\" tests=\"%u\" failures=\"%u\" errors=\"%u\" skipped=\"%u\" time=\"%.3f\">\n",
        r->finished, failures, errors, r->counts[AMBER_SKIP], wall_s);
    /* one testsuite per directory, in the order the directories first appear */
    bool *done = calloc(r->n ? r->n : 1, 1);
    for (unsigned i = 0; done && i < r->n; i++) {
        if (done[i])
            continue;
        char *dir = dir_of(r->paths[i]);
        unsigned c[AMBER_RESULT_COUNT] = { 0 }, tests = 0;
        double t = 0;
        for (unsigned k = i; k < r->n; k++) {
            char *d = dir_of(r->paths[k]);
            if (d && dir && !strcmp(d, dir) && r->records[k].done) {
                c[r->records[k].status]++;
                tests++;
                t += r->records[k].time_s;
            }
            free(d);
        }
        fputs("  <testsuite name=\"", f);
        xml_text(f, dir);
        fprintf(f, "\" tests=\"%u\" failures=\"%u\" errors=\"%u\" skipped=\"%u\" time=\"%.3f\">\n", tests,
                c[AMBER_FAIL], c[AMBER_CRASH] + c[AMBER_TIMEOUT], c[AMBER_SKIP], t);
        for (unsigned k = i; k < r->n; k++) {
            char *d = dir_of(r->paths[k]);
            bool same = d && dir && !strcmp(d, dir);
            free(d);
            if (!same)
                continue;
            done[k] = true;
            const amber_record *rec = &r->records[k];
            if (!rec->done)
                continue;
            const char *slash = strrchr(r->paths[k], '/');
            fputs("    <testcase classname=\"", f);
            xml_text(f, dir);
            fputs("\" name=\"", f);
            xml_text(f, slash ? slash + 1 : r->paths[k]);
            fprintf(f, "\" time=\"%.3f\"", rec->time_s);
            if (rec->status == AMBER_PASS) {
                fputs("/>\n", f);
                continue;
            }
            const char *tag = rec->status == AMBER_FAIL ? "failure" : rec->status == AMBER_SKIP ? "skipped" : "error";
            fprintf(f, ">\n      <%s type=\"%s\" message=\"", tag, amber_result_name(rec->status));
            xml_text(f, rec->message);
            fputs("\"/>\n", f);
            if (rec->output) {
                fputs("      <system-out>", f);
                xml_text(f, rec->output);
                fputs("</system-out>\n", f);
            }
            fputs("    </testcase>\n", f);
        }
        fputs("  </testsuite>\n", f);
        free(dir);
    }
    fputs("</testsuites>\n", f);
    bool ok = done != NULL && !ferror(f);
    free(done);
    if (fclose(f) || !ok)
        return cli_error("amber: cannot write %s", r->opt.junit_path);
    return 0;
}

int amber_report_finish(amber_report *r, double wall_s)
{
    if (r->progress)
        fputs("\r\033[K", stderr);
    print_table(r);
    const unsigned *c = r->counts;
    printf("%u passed, %u failed, %u skipped, %u crashed, %u timed out (%.1f s)\n", c[AMBER_PASS], c[AMBER_FAIL],
           c[AMBER_SKIP], c[AMBER_CRASH], c[AMBER_TIMEOUT], wall_s);
    fflush(stdout);
    int st = c[AMBER_FAIL] || c[AMBER_CRASH] || c[AMBER_TIMEOUT] || r->finished < r->n ? 1 : 0;
    if (r->opt.json_path && write_json(r, wall_s))
        st = 1;
    if (r->opt.junit_path && write_junit(r, wall_s))
        st = 1;
    return st;
}
