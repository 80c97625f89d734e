/* testdata/tests/harness.h — a minimal test framework.
 *
 * TEST(name) { ... } defines a test that registers itself at load time, so a
 * new test file needs no central list.  CHECK(cond, fmt, ...) records a failure
 * with file:line and a message and goes on; REQUIRE(...) also ends the test.
 * The runner (harness.c) prints one line per failure and closes with
 * "N passed, N failed".  `run_tests NAME-SUBSTRING` runs a subset.
 */
#ifndef SPVJIT_TEST_HARNESS_H
#define SPVJIT_TEST_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef void (*test_fn)(void);
void test_register(const char *name, test_fn fn, bool tier_free);
void test_fail(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
bool test_failed_now(void);

#define TEST_REGISTERED(name, tier_free)                                                                               \
    static void test_##name(void);                                                                                     \
    __attribute__((constructor)) static void test_reg_##name(void)                                                     \
    {                                                                                                                  \
        test_register(#name, test_##name, tier_free);                                                                  \
    }                                                                                                                  \
    static void test_##name(void)
#define TEST(name) TEST_REGISTERED(name, false)

/* The suite runs on both compile tiers (the Makefile: all of it on the
 * optimized tier, then `run_tests --tier-dependent` on the quick one).
 * TEST_TIER_FREE(name) is a test whose work no tier changes: it reads no
 * SPVJIT_TIER, directly or through a context, the command or the Python
 * package (it compiles nothing, or through the JIT with the tier it names),
 * and --tier-dependent leaves it out.  Where it runs, SPVJIT_TIER holds a
 * value that every reader rejects, so one that comes to read it fails. */
#define TEST_TIER_FREE(name) TEST_REGISTERED(name, true)

/* Whether the suite runs on the quick tier ($SPVJIT_TIER is "quick"; unset
 * or "opt": the optimized).  Any other value fails the current test: a test
 * that reads it is not tier-free. */
bool test_quick_tier(void);
/* Whether this run leaves the tier-free tests out (--tier-dependent). */
bool test_tier_dependent_only(void);

#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond))                                                                                                   \
            test_fail(__FILE__, __LINE__, __VA_ARGS__);                                                                \
    } while (0)
#define REQUIRE(cond, ...)                                                                                             \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            test_fail(__FILE__, __LINE__, __VA_ARGS__);                                                                \
            return;                                                                                                    \
        }                                                                                                              \
    } while (0)

/* Deterministic random numbers for test inputs (xorshift64*), seedable. */
uint64_t test_rand_u64(uint64_t *state);
float test_rand_float(uint64_t *state, float lo, float hi);

/* Path of a file under testdata/ (the runner knows the source tree root). */
const char *test_data_path(const char *rel);
/* Reads a whole file (malloc'd, NUL-terminated, *len set); NULL if unreadable. */
void *test_read_file(const char *path, size_t *len);
/* Runs a shell command, captures stdout+stderr into a malloc'd string; returns exit status. */
int test_run_capture(const char *cmd, char **out);
/* How many times `needle` occurs in text, not overlapping. */
int test_count(const char *text, const char *needle);
/* A fresh directory /tmp/spvjit-NAME-XXXXXX (malloc'd), or NULL; and its removal. */
char *test_temp_dir(const char *name);
void test_remove_dir(const char *dir);
/* Assembles SPIR-V text with spirv-as (--target-env env) into spv_path;
 * false (with spirv-as's message on stderr) when it fails. */
bool test_assemble(const char *text, const char *env, const char *spv_path);

/* IEEE bits of a float, a double, a half (zero-extended). */
static inline uint64_t test_f32_bits(float f)
{
    uint32_t u;
    __builtin_memcpy(&u, &f, 4);
    return u;
}
static inline uint64_t test_f64_bits(double d)
{
    uint64_t u;
    __builtin_memcpy(&u, &d, 8);
    return u;
}
static inline uint64_t test_f16_bits(_Float16 h)
{
    uint16_t u;
    __builtin_memcpy(&u, &h, 2);
    return u;
}

#endif
