/* lib/disk_cache.h — the on-disk kernel cache's file layer.
 *
 * One file per key in the cache directory (lib/api_options.c chooses it),
 * named by the key's hash.  The
 * stored key is the memory cache's key (module words + build parameters)
 * followed by the host identity: CPU name and features (LLVM's view of the
 * host), the spvjit and LLVM versions and the identity (size, modification
 * time) of the binary holding libspvjit — so code made for another CPU, by
 * another toolchain or by another build of spvjit never matches.
 *
 * File layout (host byte order; the host identity makes foreign files miss):
 *   "SPVJITK1"  u32 format  u32 header_bytes  u64 key_len  u64 payload_len
 *   u64 checksum (of the lengths, key and payload: checksum())   key   payload
 * A file that is short, has another magic or format, a checksum mismatch or
 * another full key is never trusted: it counts as a miss and is deleted, so
 * the next store rebuilds it.  Stores write a temporary file and rename it
 * into place, so readers never see half a file.
 */
#ifndef SPVJIT_LIB_DISK_CACHE_H
#define SPVJIT_LIB_DISK_CACHE_H

#include <stddef.h>

#include "spirv/diag.h"

/* "cpu=<name>;features=<...>;spvjit=<v>;llvm=<v>;build=<size-mtime>", computed once. */
const char *disk_cache_host_id(void);

/* Tests only: replaces the host identity in every key from now on (NULL: the
 * real one again), to check that code for another CPU or toolchain misses.
 * Not thread-safe: call it while no cache lookup runs. */
void disk_cache_set_host_id_for_tests(const char *id);

/* Writes buf with the file path for the key (a, b) in dir. */
void disk_cache_path(const char *dir, const void *a, size_t alen, const void *b, size_t blen, char *buf, size_t len);

/* Stores payload for key (a, b), creating dir as needed.  0, or -1 with diag. */
int disk_cache_store(const char *dir, const void *a, size_t alen, const void *b, size_t blen, const void *payload,
                     size_t n, spv_diag *diag);

/* Loads the payload for key (a, b): 1 with a malloc'd *payload on a hit,
 * 0 on a miss (no file, or a file that failed a check — it is removed). */
int disk_cache_load(const char *dir, const void *a, size_t alen, const void *b, size_t blen, void **payload, size_t *n);

#endif
