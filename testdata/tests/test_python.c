/* testdata/tests/test_python.c — the pytest suites, run by /usr/bin/python3
 * (Debian's, which sees python3-numpy/cffi/pytest):
 *   python_package_pytest  python/tests: the spvjit package on libspvjit.so
 *                          against numpy references
 *   cli_pytest             testdata/tests/test_cli_*.py: the command with .npy
 *                          files, --json, the man page and bash completion
 * Each passes when pytest reports at least the expected number of passed
 * tests and no failure, error or skip; its output is shown otherwise.
 *
 * The library the package loads is the one next to $SPVJIT_BIN (build/ or
 * build/san/).  In the sanitizer build that library needs the ASan and UBSan
 * runtimes loaded before Python starts (LD_PRELOAD), and leak checking is off
 * for the Python process only (the interpreter keeps its allocations to the
 * end); the spvjit binaries the CLI tests start keep the runner's settings. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define PYTHON "/usr/bin/python3"

static void run_pytest(const char *what, const char *env, const char *dir, const char *files, int min_passed)
{
    char cmd[4096], *out = NULL;
    snprintf(cmd, sizeof cmd,
             "cd '%s' && %s PYTHONDONTWRITEBYTECODE=1 " PYTHON " -m pytest -q -p no:cacheprovider -rfEs %s 2>&1", dir,
             env, files);
    int st = test_run_capture(cmd, &out);
    /* the summary, pytest's last line: "N passed in Xs", "N failed, M passed, K warnings in Xs" */
    size_t n = out ? strlen(out) : 0;
    while (n && (out[n - 1] == '\n' || out[n - 1] == ' '))
        n--;
    const char *last = out ? out + n : NULL;
    while (last && last > out && last[-1] != '\n')
        last--;
    char summary[256] = "";
    if (last)
        snprintf(summary, sizeof summary, "%.*s", (int)(out + n - last), last);
    const char *sum = strstr(summary, " passed");
    const char *num = sum;
    while (num && num > summary && num[-1] >= '0' && num[-1] <= '9')
        num--;
    int passed = num && num != sum ? atoi(num) : 0;
    bool bad = strstr(summary, "failed") || strstr(summary, "error") || strstr(summary, "skipped");
    if (st != 0 || bad || passed < min_passed) {
        test_fail(__FILE__, __LINE__, "%s: exit %d, %d passed (want at least %d):\n%s", what, st, passed, min_passed,
                  out && n > 6000 ? out + n - 6000
                  : out           ? out
                                  : "(no output)");
    }
    free(out);
}

static const char *bin_dir(char *buf, size_t len)
{
    const char *b = getenv("SPVJIT_BIN");
    char *abs = realpath(b ? b : "build/spvjit", NULL);
    snprintf(buf, len, "%s", abs ? abs : "build/spvjit");
    free(abs);
    char *slash = strrchr(buf, '/');
    if (slash)
        *slash = 0;
    return buf;
}

TEST(python_package_pytest)
{
    char dir[1024], env[2048];
    bin_dir(dir, sizeof dir);
#if defined(__SANITIZE_ADDRESS__)
    snprintf(env, sizeof env,
             "SPVJIT_LIBRARY='%s/libspvjit.so' LD_PRELOAD=\"$(cc -print-file-name=libasan.so) "
             "$(cc -print-file-name=libubsan.so)\" ASAN_OPTIONS=detect_leaks=0",
             dir);
#else
    snprintf(env, sizeof env, "SPVJIT_LIBRARY='%s/libspvjit.so'", dir);
#endif
    char pkg[1024];
    snprintf(pkg, sizeof pkg, "%s", test_data_path("../python"));
    run_pytest("python/tests", env, pkg, "tests", 37);
}

TEST(cli_pytest)
{
    run_pytest("testdata/tests/test_cli_*.py", "", test_data_path("tests"), "test_cli_*.py", 25);
}
