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

TEST_TIER_FREE(api_disk_cache_store_and_load)
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

TEST_TIER_FREE(api_disk_cache_corruption_is_ignored)
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

/* --- what the cache trusts (lib/disk_cache.h) ------------------------------------------- */

static unsigned mode_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (unsigned)(st.st_mode & 07777) : 0xffffu;
}

/* A stored payload for key "k" of module "mod" in dir; its path in path. */
static bool store_one(const char *dir, const unsigned char *payload, size_t n, char *path, size_t len)
{
    static const char mod[] = "module-bytes";
    spv_diag d;
    d.msg[0] = 0;
    disk_cache_path(dir, mod, sizeof mod, "k", 1, path, len);
    bool ok = disk_cache_store(dir, mod, sizeof mod, "k", 1, payload, n, &d) == 0;
    CHECK(ok, "store: %s", d.msg);
    return ok;
}

static bool load_one(const char *dir, const unsigned char *payload, size_t n)
{
    static const char mod[] = "module-bytes";
    void *got = NULL;
    size_t got_n = 0;
    bool hit = disk_cache_load(dir, mod, sizeof mod, "k", 1, &got, &got_n) == 1;
    bool same = hit && got_n == n && !memcmp(got, payload, n);
    free(got);
    CHECK(!hit || same, "a hit must give the stored bytes");
    return hit;
}

TEST_TIER_FREE(api_disk_cache_directory_is_private)
{
    char *dir = test_temp_dir("disk-trust");
    REQUIRE(dir, "mkdtemp");
    char sub[600], mid[600];
    snprintf(mid, sizeof mid, "%s/a", dir);
    snprintf(sub, sizeof sub, "%s/a/spvjit", dir);
    unsigned char payload[300];
    for (size_t i = 0; i < sizeof payload; i++)
        payload[i] = (unsigned char)(i * 7);
    char path[800];
    mode_t old = umask(0); /* whatever the umask, the cache makes its directories private */
    bool stored = store_one(sub, payload, sizeof payload, path, sizeof path);
    umask(old);
    REQUIRE(stored, "store");
    CHECK(mode_of(sub) == 0700 && mode_of(mid) == 0700, "created directories: %o and %o, not 0700", mode_of(sub),
          mode_of(mid));
    CHECK((mode_of(path) & 077) == 0, "cache file mode %o: readable or writable by others", mode_of(path));
    CHECK(load_one(sub, payload, sizeof payload), "private directory: hit");

    /* a directory others can write to is not used: loads miss, stores fail saying why */
    REQUIRE(chmod(sub, 0777) == 0, "chmod");
    CHECK(!load_one(sub, payload, sizeof payload), "0777 directory: its entry was trusted");
    spv_diag d;
    d.msg[0] = 0;
    static const char mod[] = "module-bytes";
    CHECK(disk_cache_store(sub, mod, sizeof mod, "k", 1, payload, sizeof payload, &d) != 0 &&
              strstr(d.msg, "writable by others"),
          "0777 directory: store: '%s'", d.msg);
    REQUIRE(chmod(sub, 0770) == 0, "chmod");
    CHECK(!load_one(sub, payload, sizeof payload), "0770 directory: its entry was trusted");
    REQUIRE(chmod(sub, 0700) == 0, "chmod");
    CHECK(load_one(sub, payload, sizeof payload), "0700 again: hit");
    /* owned by someone else (root can make it so; others cannot, and skip this) */
    if (geteuid() == 0) {
        REQUIRE(chown(sub, 65534, 65534) == 0, "chown");
        CHECK(!load_one(sub, payload, sizeof payload), "another user's directory was trusted");
        REQUIRE(chown(sub, 0, 0) == 0, "chown back");
    }
    test_remove_dir(dir);
    free(dir);
}

TEST_TIER_FREE(api_disk_cache_files_must_be_ours_alone)
{
    char *dir = test_temp_dir("disk-trust");
    REQUIRE(dir, "mkdtemp");
    unsigned char payload[5000];
    uint64_t seed = 4242;
    for (size_t i = 0; i < sizeof payload; i++)
        payload[i] = (unsigned char)test_rand_u64(&seed);
    char path[800];
    REQUIRE(store_one(dir, payload, sizeof payload, path, sizeof path), "store");
    REQUIRE(load_one(dir, payload, sizeof payload), "hit");
    /* writable by the group, then by others: ignored (and left alone), trusted again once private */
    static const unsigned modes[] = { 0620, 0602, 0666 };
    for (int i = 0; i < 3; i++) {
        REQUIRE(chmod(path, modes[i]) == 0, "chmod");
        CHECK(!load_one(dir, payload, sizeof payload), "mode %o: trusted", modes[i]);
        CHECK(access(path, F_OK) == 0, "mode %o: the file was removed", modes[i]);
    }
    REQUIRE(chmod(path, 0600) == 0, "chmod");
    CHECK(load_one(dir, payload, sizeof payload), "mode 600 again: hit");
    /* another user's file, however valid */
    if (geteuid() == 0) {
        REQUIRE(chown(path, 65534, 65534) == 0, "chown");
        CHECK(!load_one(dir, payload, sizeof payload), "another user's file was trusted");
        CHECK(access(path, F_OK) == 0, "another user's file was removed");
        REQUIRE(chown(path, 0, 0) == 0, "chown back");
        CHECK(load_one(dir, payload, sizeof payload), "ours again: hit");
    }
    /* a symbolic link in the entry's place, even to a valid entry, is not followed */
    char real[900];
    snprintf(real, sizeof real, "%s.real", path);
    REQUIRE(rename(path, real) == 0 && symlink(real, path) == 0, "symlink");
    CHECK(!load_one(dir, payload, sizeof payload), "a symbolic link was followed");
    unlink(path);
    unlink(real);
    /* a directory in its place */
    REQUIRE(mkdir(path, 0700) == 0, "mkdir");
    CHECK(!load_one(dir, payload, sizeof payload), "a directory was read as an entry");
    rmdir(path);
    test_remove_dir(dir);
    free(dir);
}

/* The entry's digest covers the whole file: an entry moved to another key's
 * name, or with another key inside, misses. */
TEST_TIER_FREE(api_disk_cache_entry_is_bound_to_its_key)
{
    char *dir = test_temp_dir("disk-trust");
    REQUIRE(dir, "mkdtemp");
    unsigned char payload[256] = { 1, 2, 3 };
    static const char mod[] = "module-bytes";
    spv_diag d;
    REQUIRE(disk_cache_store(dir, mod, sizeof mod, "k1", 2, payload, sizeof payload, &d) == 0, "store: %s", d.msg);
    char p1[800], p2[800];
    disk_cache_path(dir, mod, sizeof mod, "k1", 2, p1, sizeof p1);
    disk_cache_path(dir, mod, sizeof mod, "k2", 2, p2, sizeof p2);
    CHECK(strcmp(p1, p2) != 0, "two keys, one file name");
    REQUIRE(rename(p1, p2) == 0, "rename");
    void *got = NULL;
    size_t n = 0;
    CHECK(disk_cache_load(dir, mod, sizeof mod, "k2", 2, &got, &n) == 0 && !got, "k1's entry answered for k2");
    free(got);
    test_remove_dir(dir);
    free(dir);
}
