/* testdata/tests/harness.c — the test runner (see harness.h). */
#include "harness.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_TESTS 4096

static struct {
    const char *name;
    test_fn fn;
    bool tier_free;
} tests[MAX_TESTS];
static int ntests;
static bool current_failed;
static const char *current_name;
static bool tier_dependent_only; /* run_tests --tier-dependent */

void test_register(const char *name, test_fn fn, bool tier_free)
{
    if (ntests < MAX_TESTS) {
        tests[ntests].name = name;
        tests[ntests].fn = fn;
        tests[ntests].tier_free = tier_free;
        ntests++;
    }
}

void test_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL %s (%s:%d): ", current_name, file, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    current_failed = true;
}

bool test_failed_now(void)
{
    return current_failed;
}

uint64_t test_rand_u64(uint64_t *s)
{
    uint64_t x = *s ? *s : 0x9E3779B97F4A7C15ull;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

float test_rand_float(uint64_t *s, float lo, float hi)
{
    return lo + (hi - lo) * (float)((test_rand_u64(s) >> 40) / (double)(1ull << 24));
}

static char root[4096] = ".";

const char *test_data_path(const char *rel)
{
    static _Thread_local char buf[8][4096];
    static _Thread_local int k;
    char *b = buf[k++ & 7];
    int n = snprintf(b, sizeof buf[0], "%s/testdata/", root);
    if (n > 0 && (size_t)n < sizeof buf[0])
        snprintf(b + n, sizeof buf[0] - (size_t)n, "%s", rel);
    return b;
}

void *test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *p = malloc(cap);
    size_t r;
    while (p && (r = fread(p + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            char *q = realloc(p, cap *= 2);
            if (!q) {
                free(p);
                p = NULL;
            } else
                p = q;
        }
    }
    fclose(f);
    if (p)
        p[n] = 0; /* n < cap: room for a terminator, so text can be searched as a string */
    if (len)
        *len = n;
    return p;
}

int test_count(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

int test_run_capture(const char *cmd, char **out)
{
    char full[8192];
    snprintf(full, sizeof full, "(%s) 2>&1", cmd);
    FILE *p = popen(full, "r");
    if (!p)
        return -1;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t r;
    while ((r = fread(buf + n, 1, cap - n - 1, p)) > 0) {
        n += r;
        if (n + 1 >= cap)
            buf = realloc(buf, cap *= 2);
    }
    buf[n] = 0;
    int st = pclose(p);
    if (out)
        *out = buf;
    else
        free(buf);
    return (st >= 0 && (st & 0x7f) == 0) ? (st >> 8) & 0xff : 128 + (st & 0x7f);
}

char *test_temp_dir(const char *name)
{
    char tmpl[256];
    snprintf(tmpl, sizeof tmpl, "/tmp/spvjit-%s-XXXXXX", name);
    char *d = mkdtemp(tmpl);
    return d ? strdup(d) : NULL;
}

void test_remove_dir(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    test_run_capture(cmd, NULL);
}

bool test_assemble(const char *text, const char *env, const char *spv_path)
{
    char asm_path[4200], cmd[9000];
    snprintf(asm_path, sizeof asm_path, "%s.spvasm", spv_path);
    FILE *f = fopen(asm_path, "w");
    bool ok = f && fputs(text, f) >= 0;
    if (f)
        ok = fclose(f) == 0 && ok;
    char *out = NULL;
    snprintf(cmd, sizeof cmd, "spirv-as --target-env %s -o '%s' '%s'", env, spv_path, asm_path);
    if (ok && test_run_capture(cmd, &out) != 0) {
        fprintf(stderr, "spirv-as: %s\n", out);
        ok = false;
    }
    free(out);
    remove(asm_path);
    return ok;
}

/* What SPVJIT_TIER holds while a tier-free test runs: no reader accepts it. */
#define NO_TIER "none (a tier-free test)"

bool test_quick_tier(void)
{
    const char *t = getenv("SPVJIT_TIER");
    if (t && strcmp(t, "quick") && strcmp(t, "opt"))
        test_fail(__FILE__, __LINE__, "SPVJIT_TIER=\"%s\": the test reads the tier, so it is not TEST_TIER_FREE", t);
    return t && !strcmp(t, "quick");
}

bool test_tier_dependent_only(void)
{
    return tier_dependent_only;
}

/* Runs a tier-free test with SPVJIT_TIER set to NO_TIER, then restores it. */
static void run_tier_free(test_fn fn)
{
    const char *t = getenv("SPVJIT_TIER");
    char *saved = t ? strdup(t) : NULL;
    setenv("SPVJIT_TIER", NO_TIER, 1);
    fn();
    if (saved)
        setenv("SPVJIT_TIER", saved, 1);
    else
        unsetenv("SPVJIT_TIER");
    free(saved);
}

int main(int argc, char **argv)
{
    const char *env = getenv("SPVJIT_SRC_ROOT");
    if (env)
        snprintf(root, sizeof root, "%s", env);
    tier_dependent_only = argc > 1 && !strcmp(argv[1], "--tier-dependent");
    if (tier_dependent_only)
        argc--, argv++;
    int passed = 0, failed = 0;
    for (int i = 0; i < ntests; i++) {
        bool match = argc < 2;
        for (int a = 1; a < argc; a++)
            if (strstr(tests[i].name, argv[a]))
                match = true;
        if (!match || (tier_dependent_only && tests[i].tier_free))
            continue;
        current_name = tests[i].name;
        current_failed = false;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        if (tests[i].tier_free)
            run_tier_free(tests[i].fn);
        else
            tests[i].fn();
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
        if (current_failed)
            failed++;
        else
            passed++;
        if (getenv("SPVJIT_TEST_VERBOSE"))
            fprintf(stderr, "%s %s %.0f ms\n", current_failed ? "FAIL" : "ok  ", tests[i].name, ms);
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
