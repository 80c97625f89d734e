/* lib/disk_cache.c — cache files: naming, writing, checking (see disk_cache.h). */
#include "lib/disk_cache.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

#include "lib/spvjit.h"
#include "util/digest.h"

#define MAGIC "SPVJITK2"
#define FORMAT 2u /* 2: BLAKE2b digests, trust checks */

typedef struct file_header {
    char magic[8];
    uint32_t format;
    uint32_t header_bytes;
    uint64_t key_len;
    uint64_t payload_len;
    unsigned char digest[UTIL_DIGEST_BYTES]; /* of everything above, the key and the payload */
} file_header;

static char *host_id;
static pthread_once_t host_once = PTHREAD_ONCE_INIT;

/* The binary holding this code (libspvjit.so, or a program linking libspvjit.a):
 * its size and modification time, so that a rebuilt JIT (same version number,
 * other code) never loads what an older build stored. */
static void build_identity(char *buf, size_t len)
{
    Dl_info info;
    struct stat st;
    if (dladdr((void *)&build_identity, &info) && info.dli_fname && stat(info.dli_fname, &st) == 0)
        snprintf(buf, len, "%lld-%lld.%09ld", (long long)st.st_size, (long long)st.st_mtim.tv_sec,
                 (long)st.st_mtim.tv_nsec);
    else
        snprintf(buf, len, "unknown");
}

static void make_host_id(void)
{
    char *cpu = LLVMGetHostCPUName(), *features = LLVMGetHostCPUFeatures();
    unsigned maj = 0, min = 0, patch = 0;
    LLVMGetVersion(&maj, &min, &patch);
    char build[96];
    build_identity(build, sizeof build);
    size_t n = strlen(cpu ? cpu : "") + strlen(features ? features : "") + 256;
    host_id = malloc(n);
    if (host_id)
        snprintf(host_id, n, "cpu=%s;features=%s;spvjit=%s;llvm=%u.%u.%u;build=%s", cpu ? cpu : "",
                 features ? features : "", SPVJIT_VERSION_STRING, maj, min, patch, build);
    LLVMDisposeMessage(cpu);
    LLVMDisposeMessage(features);
}

/* Tests only: a fake host identity (another CPU), see disk_cache.h. */
static char *host_id_override;

void disk_cache_set_host_id_for_tests(const char *id)
{
    free(host_id_override);
    host_id_override = id ? strdup(id) : NULL;
}

const char *disk_cache_host_id(void)
{
    if (host_id_override)
        return host_id_override;
    pthread_once(&host_once, make_host_id);
    return host_id ? host_id : "";
}

/* The full key: the two parts and the host identity, as one digest. */
static void key_digest(const void *a, size_t alen, const void *b, size_t blen, unsigned char out[UTIL_DIGEST_BYTES])
{
    const char *h = disk_cache_host_id();
    uint64_t lens[2] = { alen, blen }; /* so that no split of the bytes collides with another */
    util_digest d;
    util_digest_init(&d);
    util_digest_update(&d, lens, sizeof lens);
    util_digest_update(&d, a, alen);
    util_digest_update(&d, b, blen);
    util_digest_update(&d, h, strlen(h));
    util_digest_final(&d, out);
}

void disk_cache_path(const char *dir, const void *a, size_t alen, const void *b, size_t blen, char *buf, size_t len)
{
    unsigned char k[UTIL_DIGEST_BYTES];
    key_digest(a, alen, b, blen, k);
    char hex[33];
    for (int i = 0; i < 16; i++)
        snprintf(hex + 2 * i, 3, "%02x", k[i]);
    snprintf(buf, len, "%s/%s.kobj", dir, hex);
}

/* Whether st is something only this user can change: owned by us, writable
 * by neither group nor others. */
static bool only_ours(const struct stat *st)
{
    return st->st_uid == geteuid() && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* The cache directory, if it can be trusted (see disk_cache.h). */
static int check_dir(const char *dir, spv_diag *diag)
{
    struct stat st;
    if (stat(dir, &st) != 0)
        return spv_fail(diag, "disk cache: %s: %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return spv_fail(diag, "disk cache: %s is not a directory", dir);
    if (st.st_uid != geteuid())
        return spv_fail(diag, "disk cache: %s belongs to another user (uid %u): not used", dir, (unsigned)st.st_uid);
    if (st.st_mode & (S_IWGRP | S_IWOTH))
        return spv_fail(diag, "disk cache: %s is writable by %s (mode %03o): not used", dir,
                        st.st_mode & S_IWOTH ? "others" : "its group", (unsigned)(st.st_mode & 0777));
    return 0;
}

/* mkdir -p, new directories 0700. */
static int make_dirs(const char *dir, spv_diag *diag)
{
    char p[4096];
    if (snprintf(p, sizeof p, "%s", dir) >= (int)sizeof p)
        return spv_fail(diag, "disk cache: directory name too long: %s", dir);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = 0;
        if (mkdir(p, 0700) != 0 && errno != EEXIST)
            return spv_fail(diag, "disk cache: cannot create %s: %s", p, strerror(errno));
        *s = '/';
    }
    if (mkdir(p, 0700) != 0 && errno != EEXIST)
        return spv_fail(diag, "disk cache: cannot create %s: %s", p, strerror(errno));
    return check_dir(dir, diag);
}

static int write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

/* The file's digest (the one place it is computed): the header up to the
 * digest, the stored key and the payload. */
static void file_digest(const file_header *h, const void *key, const void *payload,
                        unsigned char out[UTIL_DIGEST_BYTES])
{
    util_digest d;
    util_digest_init(&d);
    util_digest_update(&d, h, offsetof(file_header, digest));
    util_digest_update(&d, key, (size_t)h->key_len);
    util_digest_update(&d, payload, (size_t)h->payload_len);
    util_digest_final(&d, out);
}

int disk_cache_store(const char *dir, const void *a, size_t alen, const void *b, size_t blen, const void *payload,
                     size_t n, spv_diag *diag)
{
    if (make_dirs(dir, diag) != 0)
        return -1;
    const char *host = disk_cache_host_id();
    size_t hlen = strlen(host), klen = alen + blen + hlen;
    unsigned char *key = malloc(klen ? klen : 1);
    if (!key)
        return spv_fail(diag, "disk cache: out of memory");
    memcpy(key, a, alen);
    memcpy(key + alen, b, blen);
    memcpy(key + alen + blen, host, hlen);

    file_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, MAGIC, 8);
    h.format = FORMAT;
    h.header_bytes = sizeof h;
    h.key_len = klen;
    h.payload_len = n;
    file_digest(&h, key, payload, h.digest);

    /* a name no other writer uses: this process, this thread, a count */
    static atomic_uint serial;
    char path[4200], tmp[4300];
    disk_cache_path(dir, a, alen, b, blen, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%lx.%u", path, (long)getpid(), (unsigned long)pthread_self(),
             atomic_fetch_add(&serial, 1));
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        free(key);
        return spv_fail(diag, "disk cache: cannot create %s: %s", tmp, strerror(errno));
    }
    int bad = write_all(fd, &h, sizeof h) || write_all(fd, key, klen) || write_all(fd, payload, n);
    bad |= close(fd) != 0;
    free(key);
    if (bad || rename(tmp, path) != 0) {
        int err = errno;
        unlink(tmp);
        return spv_fail(diag, "disk cache: cannot write %s: %s", path, strerror(err));
    }
    return 0;
}

/* The whole file behind fd (size from st), malloc'd, or NULL. */
static unsigned char *read_fd(int fd, size_t size)
{
    unsigned char *f = malloc(size ? size : 1);
    size_t got = 0;
    while (f && got < size) {
        ssize_t r = read(fd, f + got, size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            free(f);
            return NULL;
        }
        got += (size_t)r;
    }
    return f;
}

/* Removes a damaged file, if the path still names the very file judged (a
 * concurrent store may have renamed a good one over it) and it is ours. */
static void remove_damaged(const char *path, const struct stat *judged)
{
    struct stat now;
    if (lstat(path, &now) == 0 && now.st_ino == judged->st_ino && now.st_dev == judged->st_dev && only_ours(&now))
        unlink(path);
}

int disk_cache_load(const char *dir, const void *a, size_t alen, const void *b, size_t blen, void **payload, size_t *n)
{
    *payload = NULL;
    *n = 0;
    spv_diag ignored;
    if (check_dir(dir, &ignored) != 0)
        return 0;
    char path[4200];
    disk_cache_path(dir, a, alen, b, blen, path, sizeof path);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct stat st;
    unsigned char *f = NULL;
    bool trusted = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && only_ours(&st);
    if (trusted)
        f = read_fd(fd, (size_t)st.st_size);
    close(fd);
    if (!f)
        return 0; /* someone else's, writable by others, or unreadable: not ours to remove */

    size_t len = (size_t)st.st_size;
    const char *host = disk_cache_host_id();
    size_t hlen = strlen(host);
    file_header h;
    bool ok = len >= sizeof h;
    if (ok) {
        memcpy(&h, f, sizeof h);
        ok = !memcmp(h.magic, MAGIC, 8) && h.format == FORMAT && h.header_bytes == sizeof h && h.key_len <= len &&
             h.payload_len <= len && (uint64_t)sizeof h + h.key_len + h.payload_len == len;
    }
    const unsigned char *key = f + sizeof h;
    unsigned char digest[UTIL_DIGEST_BYTES];
    if (ok) {
        file_digest(&h, key, key + h.key_len, digest);
        ok = sodium_memcmp(digest, h.digest, sizeof digest) == 0;
    }
    if (!ok) {
        remove_damaged(path, &st); /* never trusted, rebuilt by the next store */
        free(f);
        return 0;
    }
    /* A valid file for another key with the same name is a plain miss, kept. */
    bool same_key = h.key_len == alen + blen + hlen && !memcmp(key, a, alen) && !memcmp(key + alen, b, blen) &&
                    !memcmp(key + alen + blen, host, hlen);
    if (!same_key) {
        free(f);
        return 0;
    }
    size_t plen = (size_t)h.payload_len;
    memmove(f, key + h.key_len, plen); /* the caller frees the payload: the file's buffer it is */
    *payload = f;
    *n = plen;
    return 1;
}
