/* testdata/tests/test_api_embed.c — examples/embed.c builds against the
 * installed-style library (lib/spvjit.h + libspvjit.so, public symbols only)
 * and prints saxpy's result, checked against the C formula. */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api_test_util.h"

/* The directory holding libspvjit.so: the test binary's own, or its parent. */
static bool find_lib_dir(char *out, size_t len)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return false;
    exe[n] = 0;
    char *dir = dirname(exe);
    for (int up = 0; up < 2; up++) {
        char probe[4200];
        snprintf(probe, sizeof probe, "%s/libspvjit.so", dir);
        if (access(probe, R_OK) == 0) {
            snprintf(out, len, "%s", dir);
            return true;
        }
        dir = dirname(dir);
    }
    return false;
}

TEST(api_embed_example_builds_and_runs)
{
    char libdir[4096];
    if (!find_lib_dir(libdir, sizeof libdir)) {
        CHECK(0, "libspvjit.so not found next to the test binary");
        return;
    }
    const char *root = test_data_path("..");
#if defined(__SANITIZE_ADDRESS__)
    const char *san = "-fsanitize=address,undefined";
#else
    const char *san = "";
#endif
    /* The library's soname is libspvjit.so.0, which the build directory does
     * not have: link through a temporary directory that does. */
    char tmp[] = "/tmp/spvjit-embed-XXXXXX";
    REQUIRE(mkdtemp(tmp), "mkdtemp");
    char exe[4200], cmd[16384], *out = NULL;
    snprintf(exe, sizeof exe, "%s/embed", tmp);
    snprintf(cmd, sizeof cmd,
             "ln -s '%s/libspvjit.so' '%s/libspvjit.so.0' && ln -s libspvjit.so.0 '%s/libspvjit.so' && "
             "cc -std=c17 -Wall -Wextra -Werror %s -I'%s/lib' '%s/examples/embed.c' -L'%s' -lspvjit "
             "-Wl,-rpath,'%s' -o '%s'",
             libdir, tmp, tmp, san, root, root, tmp, tmp, exe);
    int rc = test_run_capture(cmd, &out);
    CHECK(rc == 0, "compiling the example failed (%d): %s", rc, out ? out : "");
    free(out);
    out = NULL;
    if (rc == 0) {
        snprintf(cmd, sizeof cmd, "ASAN_OPTIONS=detect_leaks=1 '%s' '%s'", exe,
                 test_data_path("kernels/saxpy.comp.spv"));
        rc = test_run_capture(cmd, &out);
        /* y = 3 * x + 1 with x[i] = i. */
        char want[128];
        snprintf(want, sizeof want, "y[0] = %g, y[999] = %g", 3.0f * 0.0f + 1.0f, 3.0f * 999.0f + 1.0f);
        CHECK(rc == 0 && out && strstr(out, want), "the example printed (%d): %s; expected %s", rc, out ? out : "",
              want);
        free(out);
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    test_run_capture(cmd, NULL);
}
