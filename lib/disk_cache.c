/* lib/disk_cache.c — cache files: naming, writing, checking (see disk_cache.h). */
#include "lib/disk_cache.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

#include "lib/spvjit.h"
#include "util/file.h"
#include "util/hash.h"

#define MAGIC "SPVJITK1"
#define FORMAT 1u

typedef struct file_header {
    char magic[8];
    uint32_t format;
    uint32_t header_bytes;
    uint64_t key_len;
    uint64_t payload_len;
    uint64_t checksum;
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

static uint64_t key_hash(const void *a, size_t alen, const void *b, size_t blen)
{
    const char *h = disk_cache_host_id();
    return util_hash_bytes(h, strlen(h), util_hash_bytes(b, blen, util_hash_bytes(a, alen, 0xD15Cull)));
}

void disk_cache_path(const char *dir, const void *a, size_t alen, const void *b, size_t blen, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%016" PRIx64 ".kobj", dir, key_hash(a, alen, b, blen));
}

/* mkdir -p */
static int make_dirs(const char *dir, spv_diag *diag)
{
    char p[4096];
    if (snprintf(p, sizeof p, "%s", dir) >= (int)sizeof p)
        return spv_fail(diag, "disk cache: directory name too long: %s", dir);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = 0;
        if (mkdir(p, 0755) != 0 && errno != EEXIST)
            return spv_fail(diag, "disk cache: cannot create %s: %s", p, strerror(errno));
        *s = '/';
    }
    if (mkdir(p, 0755) != 0 && errno != EEXIST)
        return spv_fail(diag, "disk cache: cannot create %s: %s", p, strerror(errno));
    return 0;
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

/* The file's integrity check (the one place it is computed): the lengths,
 * the stored key and the payload.  Catches truncation and bit rot; it is not
 * meant to resist tampering. */
static uint64_t checksum(const file_header *h, const void *key, const void *payload)
{
    uint64_t s = util_hash_bytes(&h->key_len, sizeof h->key_len, h->payload_len);
    s = util_hash_bytes(key, (size_t)h->key_len, s);
    return util_hash_bytes(payload, (size_t)h->payload_len, s);
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
    h.checksum = checksum(&h, key, payload);

    char path[4200], tmp[4300];
    disk_cache_path(dir, a, alen, b, blen, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%lx", path, (long)getpid(), (unsigned long)pthread_self());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
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

int disk_cache_load(const char *dir, const void *a, size_t alen, const void *b, size_t blen, void **payload, size_t *n)
{
    char path[4200];
    disk_cache_path(dir, a, alen, b, blen, path, sizeof path);
    *payload = NULL;
    *n = 0;
    size_t len = 0;
    unsigned char *f = util_read_file(path, &len);
    if (!f)
        return 0;

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
    ok = ok && checksum(&h, key, key + h.key_len) == h.checksum;
    /* A valid file for another key with the same hash is a plain miss, kept. */
    bool same_key = ok && h.key_len == alen + blen + hlen && !memcmp(key, a, alen) && !memcmp(key + alen, b, blen) &&
                    !memcmp(key + alen + blen, host, hlen);
    if (!ok) {
        unlink(path); /* corrupt or truncated: never trusted, rebuilt by the next store */
        free(f);
        return 0;
    }
    if (!same_key) {
        free(f);
        return 0;
    }
    size_t plen = (size_t)h.payload_len;
    void *p = malloc(plen ? plen : 1);
    if (!p) {
        free(f);
        return 0;
    }
    memcpy(p, key + h.key_len, plen);
    free(f);
    *payload = p;
    *n = plen;
    return 1;
}
