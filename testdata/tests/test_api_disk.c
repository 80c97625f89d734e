/* testdata/tests/test_api_disk.c — the disk cache's file layer: a stored
 * payload comes back after a fresh start, another key or host misses, and a
 * corrupted or truncated file is never trusted (a miss, and it is removed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api_test_util.h"
#include "lib/disk_cache.h"

static size_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (size_t)st.st_size : 0;
}

static void flip_byte(const char *path, long at)
{
    FILE *f = fopen(path, "r+b");
    if (!f)
        return;
    fseek(f, at, SEEK_SET);
    int c = fgetc(f);
    fseek(f, at, SEEK_SET);
    fputc(c ^ 0x5A, f);
    fclose(f);
}

TEST(api_disk_cache_store_and_load)
{
    char *dir = test_temp_dir("disk-test");
    REQUIRE(dir, "mkdtemp");
    char sub[600];
    snprintf(sub, sizeof sub, "%s/nested/spvjit", dir); /* created on demand */
    uint64_t seed = 31337;
    size_t n = 10000;
    unsigned char *payload = malloc(n);
    for (size_t i = 0; i < n; i++)
        payload[i] = (unsigned char)test_rand_u64(&seed);
    static const uint32_t words[4] = { 0x07230203, 0x10000, 7, 99 };
    spv_diag d;
    CHECK(disk_cache_store(sub, words, sizeof words, "main;bs=16", 10, payload, n, &d) == 0, "store: %s", d.msg);

    void *got = NULL;
    size_t got_n = 0;
    CHECK(disk_cache_load(sub, words, sizeof words, "main;bs=16", 10, &got, &got_n) == 1, "hit");
    CHECK(got && got_n == n && !memcmp(got, payload, n), "the payload comes back intact");
    free(got);
    CHECK(disk_cache_load(sub, words, sizeof words, "main;bs=8", 9, &got, &got_n) == 0 && !got, "other key: miss");
    CHECK(strstr(disk_cache_host_id(), "cpu=") && strstr(disk_cache_host_id(), "llvm=19"), "host id: %s",
          disk_cache_host_id());
    free(payload);
    test_remove_dir(dir);
    free(dir);
}

TEST(api_disk_cache_corruption_is_ignored)
{
    char *dir = test_temp_dir("disk-test");
    REQUIRE(dir, "mkdtemp");
    uint64_t seed = 99;
    size_t n = 4096;
    unsigned char *payload = malloc(n);
    for (size_t i = 0; i < n; i++)
        payload[i] = (unsigned char)test_rand_u64(&seed);
    static const char mod[] = "module-bytes";
    char path[800];
    disk_cache_path(dir, mod, sizeof mod, "k", 1, path, sizeof path);
    spv_diag d;
    void *got;
    size_t got_n;

    /* One flipped byte anywhere (header, key, payload) is a miss and the file goes. */
    static const long where[] = { 0, 9, 30, 45, 60, -1 };
    for (int i = 0; i < 6; i++) {
        REQUIRE(disk_cache_store(dir, mod, sizeof mod, "k", 1, payload, n, &d) == 0, "store: %s", d.msg);
        size_t size = file_size(path);
        long at = where[i] < 0 ? (long)size - 1 : where[i];
        flip_byte(path, at);
        got = NULL;
        CHECK(disk_cache_load(dir, mod, sizeof mod, "k", 1, &got, &got_n) == 0 && !got, "flipped byte %ld: miss", at);
        CHECK(access(path, F_OK) != 0, "flipped byte %ld: the file was removed", at);
        free(got);
    }
    /* Truncated files. */
    static const size_t keep[] = { 0, 10, 40, 100 };
    for (int i = 0; i < 4; i++) {
        REQUIRE(disk_cache_store(dir, mod, sizeof mod, "k", 1, payload, n, &d) == 0, "store: %s", d.msg);
        CHECK(truncate(path, (off_t)keep[i]) == 0, "truncate");
        got = NULL;
        CHECK(disk_cache_load(dir, mod, sizeof mod, "k", 1, &got, &got_n) == 0 && !got, "truncated to %zu: miss",
              keep[i]);
        free(got);
    }
    /* A rebuild after the corruption is trusted again. */
    REQUIRE(disk_cache_store(dir, mod, sizeof mod, "k", 1, payload, n, &d) == 0, "store: %s", d.msg);
    got = NULL;
    CHECK(disk_cache_load(dir, mod, sizeof mod, "k", 1, &got, &got_n) == 1 && got_n == n && !memcmp(got, payload, n),
          "rebuilt file hits");
    free(got);
    free(payload);
    test_remove_dir(dir);
    free(dir);
}

/* The directory's choice (explicit, $XDG_CACHE_HOME, $HOME): test_api_options.c. */

/* Through the API: a context with a disk cache directory builds and runs
 * normally (compiled code is not stored until the JIT can emit objects). */
TEST(api_disk_cache_context)
{
    char *dir = test_temp_dir("disk-test");
    REQUIRE(dir, "mkdtemp");
    for (int round = 0; round < 2; round++) {
        spvjit_context *ctx = NULL;
        REQUIRE(spvjit_context_create(&(spvjit_context_options){ .disk_cache_dir = dir }, &ctx) == SPVJIT_OK,
                "context: %s", spvjit_last_error());
        spvjit_module *m = api_load(ctx, "kernels/saxpy.comp.spv");
        spvjit_kernel *k = NULL;
        CHECK(m && spvjit_kernel_build(m, NULL, NULL, NULL, &k) == SPVJIT_OK, "build: %s", spvjit_last_error());
        spvjit_kernel_destroy(k);
        spvjit_module_destroy(m);
        spvjit_context_destroy(ctx);
    }
    test_remove_dir(dir);
    free(dir);
}
