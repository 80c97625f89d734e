/* testdata/tests/test_api_embed.c — programs built against the
 * installed-style library (lib/spvjit.h + libspvjit.so, public symbols only):
 * examples/embed.c prints saxpy's result, checked against the C formula;
 * testdata/programs/while_compiling.c exits, and forks, with status 0;
 * testdata/programs/unload.c loads the library with dlopen and unloads it. */
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

/* Compiles the program `src` (relative to the source root) against the
 * installed-style library into exe, linking through dir (which gets the
 * library's links) with an rpath to it, or (!link: a program that dlopens
 * dir/libspvjit.so.0 itself) only with libdl and libm; the compiler's exit
 * status. */
static int build_program(const char *libdir, const char *dir, const char *src, const char *exe, bool link)
{
    const char *root = test_data_path("..");
#if defined(__SANITIZE_ADDRESS__)
    const char *san = "-fsanitize=address,undefined";
#else
    const char *san = "";
#endif
    /* The library's soname is libspvjit.so.0, which the build directory does
     * not have: link through the temporary directory, which does. */
    char cmd[16384], *out = NULL;
    snprintf(cmd, sizeof cmd,
             "{ [ -e '%s/libspvjit.so.0' ] || { ln -s '%s/libspvjit.so' '%s/libspvjit.so.0' && "
             "ln -s libspvjit.so.0 '%s/libspvjit.so'; }; } && "
             "cc -std=c17 -Wall -Wextra -Werror %s -I'%s/lib' '%s/%s' %s%s%s%s -ldl -lm -o '%s'",
             dir, libdir, dir, dir, san, root, root, src, link ? "-L'" : "", link ? dir : "",
             link ? "' -lspvjit -Wl,-rpath," : "", link ? dir : "", exe);
    int rc = test_run_capture(cmd, &out);
    CHECK(rc == 0, "compiling %s failed (%d): %s", src, rc, out ? out : "");
    free(out);
    return rc;
}

TEST(api_embed_example_builds_and_runs)
{
    char libdir[4096];
    REQUIRE(find_lib_dir(libdir, sizeof libdir), "libspvjit.so not found next to the test binary");
    char tmp[] = "/tmp/spvjit-embed-XXXXXX";
    REQUIRE(mkdtemp(tmp), "mkdtemp");
    char exe[4200], cmd[16384], *out = NULL;
    snprintf(exe, sizeof exe, "%s/embed", tmp);
    if (build_program(libdir, tmp, "examples/embed.c", exe, true) == 0) {
        snprintf(cmd, sizeof cmd, "ASAN_OPTIONS=detect_leaks=1 '%s' '%s'", exe,
                 test_data_path("kernels/saxpy.comp.spv"));
        int rc = test_run_capture(cmd, &out);
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

/* Runs exe with `args` and a wait of 0, step, 2 step ... last ms appended,
 * each run under a minute, its exit status 0 and its output holding `expect`. */
static void check_waits(const char *exe, const char *args, int step, int last, const char *expect)
{
    for (int ms = 0; ms <= last; ms += step) {
        char cmd[16384], *out = NULL;
        snprintf(cmd, sizeof cmd, "ASAN_OPTIONS=detect_leaks=0 timeout 60 '%s' %s %d", exe, args, ms);
        int rc = test_run_capture(cmd, &out);
        CHECK(rc == 0 && out && strstr(out, expect), "%s %d: status %d: %s", args, ms, rc, out ? out : "");
        free(out);
    }
}

/* testdata/programs/PROGRAM.c, built in a fresh temporary directory (link:
 * against the library), run by check_waits with "MODE MM.spv EXTRA" (mm.comp). */
static void check_program(const char *program, bool link, const char *mode, const char *extra, int step, int last,
                          const char *expect)
{
    char libdir[4096];
    REQUIRE(find_lib_dir(libdir, sizeof libdir), "libspvjit.so not found next to the test binary");
    char tmp[] = "/tmp/spvjit-program-XXXXXX";
    REQUIRE(mkdtemp(tmp), "mkdtemp");
    char exe[4200], src[4200], args[10240], cmd[4200];
    snprintf(exe, sizeof exe, "%s/%s", tmp, program);
    snprintf(src, sizeof src, "testdata/programs/%s.c", program);
    if (build_program(libdir, tmp, src, exe, link) == 0) {
        snprintf(args, sizeof args, "%s '%s' %s", mode, test_data_path("kernels/mm.comp.spv"), extra);
        check_waits(exe, args, step, last, expect);
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    test_run_capture(cmd, NULL);
}

/* A program that returns from main, destroying nothing, while its kernel's
 * optimized tier compiles in the background exits with status 0 (C17
 * 5.1.2.2.3: returning from main is exit(0)): the library ends the compile
 * before exit() destroys LLVM's globals under it.  The waits sweep the
 * compile (mm at BS=8, the longest optimized build of the seeds) from its
 * queueing to well past its end; before, about half the exits inside its
 * code generation died of SIGSEGV.  Likewise with an asynchronous build
 * never waited for (which did not crash in 93 runs before, but runs into
 * the same destructors). */
TEST(api_exit_while_the_optimized_tier_compiles)
{
    check_program("while_compiling", true, "exit", "", 8, 240, "built");
    check_program("while_compiling", true, "async", "", 10, 120, "built"); /* an asynchronous build never waited for */
}

/* A program that forks while its optimized tier compiles on a pool worker
 * (waits from before the compile starts to past its end) runs saxpy in the
 * child on 2 threads, checked against the formula in C, gets the parent's
 * kernel's optimized code there, and both exit with status 0, each in under
 * a minute: the child starts its own workers, and inherits no compile half
 * done (before, a child that forgot it hung, in the sanitizer build, in its
 * own compile: the parent's had held a lock in LLVM). */
TEST(api_fork_while_the_optimized_tier_compiles)
{
    char extra[4200];
    snprintf(extra, sizeof extra, "'%s'", test_data_path("kernels/saxpy.comp.spv"));
    check_program("while_compiling", true, "fork", extra, 15, 120, "child ok");
}

/* A host that loads the library with dlopen, builds and runs mm (checked
 * against the product in C), and unloads it with dlclose while the kernel's
 * optimized tier compiles, or after it, having destroyed its objects or not,
 * runs on and exits with status 0, each in under a minute: the library
 * stays mapped (-z nodelete), since its worker threads and exit handlers
 * live in it.  Before, the host died of SIGSEGV or hung. */
TEST(api_unload_with_dlclose)
{
    char libdir[4096];
    REQUIRE(find_lib_dir(libdir, sizeof libdir), "libspvjit.so not found next to the test binary");
    char lib[4200];
    snprintf(lib, sizeof lib, "'%s/libspvjit.so'", libdir);
    check_program("unload", false, "destroy", lib, 20, 120, "unloaded");
    check_program("unload", false, "keep", lib, 20, 120, "unloaded");
}
