/* lib/disk_cache.h — the on-disk kernel cache's file layer.
 *
 * One file per key in the cache directory (lib/api_options.c chooses it),
 * named by the BLAKE2b digest of the full key.  The stored key is the memory
 * cache's key (module digest + build parameters) followed by the host
 * identity: CPU name and features (LLVM's view of the host), the spvjit and
 * LLVM versions and the identity (size, modification time) of the binary
 * holding libspvjit — so code made for another CPU, by another toolchain or
 * by another build of spvjit never matches.
 *
 * File layout (host byte order; the host identity makes foreign files miss):
 *   "SPVJITK2"  u32 format  u32 header_bytes  u64 key_len  u64 payload_len
 *   u8 digest[32]   key   payload
 * where digest is BLAKE2b-256 (libsodium) of the header before it, the key
 * and the payload.
 *
 * What is trusted:
 *  - the directory is created 0700 (its missing parents too) and used only
 *    while it is a directory owned by this user and writable by no one else
 *    (group or others could replace entries): otherwise every load misses and
 *    every store fails with a message saying why;
 *  - a file is read only if it is a regular file owned by this user and
 *    writable by no one else (opened without following symbolic links, and
 *    checked on the open descriptor);
 *  - a file that is short, of another magic or format, or whose digest does
 *    not match is never trusted: a miss, and it is removed (when it is ours)
 *    so the next store rebuilds it; a valid file for another key is a miss;
 *  - stores write a new file of a unique name (O_EXCL, 0600) and rename it
 *    into place, so readers and concurrent writers — other threads, other
 *    processes — only ever see whole files.
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

/* Stores payload for key (a, b), creating dir as needed.  0, or -1 with diag
 * (an untrusted directory, no space, ...). */
int disk_cache_store(const char *dir, const void *a, size_t alen, const void *b, size_t blen, const void *payload,
                     size_t n, spv_diag *diag);

/* Loads the payload for key (a, b): 1 with a malloc'd *payload on a hit,
 * 0 on a miss (no file, an untrusted directory or file, a file that failed a
 * check — removed when it is ours). */
int disk_cache_load(const char *dir, const void *a, size_t alen, const void *b, size_t blen, void **payload, size_t *n);

#endif
