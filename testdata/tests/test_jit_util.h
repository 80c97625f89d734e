/* testdata/tests/test_jit_util.h — helpers of the JIT tests (test_jit_*.c).
 *
 * A minimal driver: barrier-free kernels run on this thread, their grid as
 * ranges of 1, 2, 3, 5, 8, 13 work-groups per call of the range function (so
 * most start and end inside a row); barrier kernels go through the executor
 * (lib/executor.h), which has the fibers they need. */
#ifndef SPVJIT_TEST_JIT_UTIL_H
#define SPVJIT_TEST_JIT_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#include <pthread.h>

#include "jit/jit.h"
#include "lib/executor.h"
#include "spirv/module.h"
#include "spirv/specialize.h"

/* Loads testdata/<rel>; NULL (and a printed message) on failure. */
spv_module *tj_load(const char *rel);
/* The module specialized with n values (SpecId, bits); NULL on failure. */
spv_module *tj_specialize(const spv_module *m, const uint32_t *ids, const uint64_t *bits, unsigned n);
/* Compiles (options that leave the tier AUTO get $SPVJIT_TIER's: the suite
 * runs on each tier); NULL with the message printed on failure (the diag is
 * kept in tj_last_error).  With SPVJIT_TEST_SIMD=off in the environment, a
 * compile that leaves the sub-group size and simd to the defaults runs on the
 * scalar path.  $SPVJIT_TEST_MEMORY=check|unchecked replaces the default
 * memory mode (robust) of every kernel: `SPVJIT_TEST_MEMORY=check run_tests
 * jit` runs the JIT tests under the sanitizer. */
jit_kernel *tj_compile(const spv_module *m, const char *entry, const spvjit_options *o);
/* One of the compiles of tj_compile_all: tj_compile's arguments. */
typedef struct tj_build {
    const spv_module *m;
    const char *entry;
    spvjit_options o;
} tj_build;
/* n compiles at once on the library's thread pool (lib/threadpool.h; each
 * JIT compile has its own LLVM context and target machine), each
 * as tj_compile's: out[i] the kernel of b[i], or NULL; true when all were
 * made (tj_last_error holds the last failure's message).  For the tests
 * whose time is a large build for each of many shapes. */
bool tj_compile_all(const tj_build *b, unsigned n, jit_kernel **out);
bool tj_simd_forced_off(void);
extern char tj_last_error[2048];

/* What a dispatch needs besides the kernel. */
typedef struct tj_dispatch {
    void **args; /* Kernel: pointers to the arguments; Shader: resource bases */
    const uint64_t *arg_sizes;
    uint32_t nargs; /* the entries of arg_sizes (TJ_COUNT): tj_run checks that there is one
                       for each of the kernel's parameters or resource slots */
    const void *push;
    const void *spec_values;
    uint32_t groups[3]; /* Shader: work-groups; Kernel: derived from global_size */
    uint32_t work_dim;
    uint64_t global_size[3]; /* Kernel */
    uint64_t extra_wg_mem;   /* bytes for __local arguments after the static block */
    void *printf_stream;     /* FILE* for OpenCL printf (NULL: stdout) */
} tj_dispatch;

/* What a compile emits (spvjit_options.emit = tj_keep_text, .emit_user = a
 * tj_texts): the lowered IR, the optimized IR and the assembly, each the
 * last one emitted (malloc'd: the test frees them). */
typedef struct tj_texts {
    char *ir, *opt, *asm_;
} tj_texts;
void tj_keep_text(void *user, const char *what, const char *text);

/* The entries of array a. */
#define TJ_COUNT(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))

/* d->arg_sizes, or, when the test gives none, sizes that span far past every
 * base (memory modes robust and check read them). */
const uint64_t *tj_arg_sizes(const tj_dispatch *d);

/* Runs the whole dispatch; returns 0 or -1 (message printed). */
int tj_run(const jit_kernel *k, const tj_dispatch *d);

/* The code for the work-groups a kernel of tj_compile hands back (memory=
 * robust, optimized tier: jit/abi.h): the quick tier's compile of the same
 * module and options, made on first need, as lib/ does. */
typedef struct tj_fallback {
    const jit_kernel *k;
    pthread_mutex_t lock; /* the executor's threads may ask at once */
    jit_kernel *quick;
    bool failed;
} tj_fallback;

/* A work-group memory block of size bytes as jit/abi.h requires (aligned,
 * padded), full of garbage as work-group memory starts; free(*alloc) frees it. */
void *tj_wg_block(uint64_t size, uint32_t align, void **alloc);

/* The byte offset of a dispatch's local-pointer argument: after k's own
 * work-group memory, at a multiple of SPVJIT_LOCAL_ARG_ALIGN (jit/abi.h);
 * and the tj_dispatch.extra_wg_mem that holds its `bytes` there. */
uint64_t tj_local_offset(const jit_kernel *k);
uint64_t tj_local_extra(const jit_kernel *k, uint64_t bytes);

/* The executor's view of k (work-group memory: the static block plus
 * extra_wg_mem), handed-back groups going to fb, which tj_fallback_free ends. */
spvjit_exec_kernel tj_exec_kernel(const jit_kernel *k, uint64_t extra_wg_mem, tj_fallback *fb);
void tj_fallback_free(tj_fallback *fb);
/* k's range function on groups [first, first + count) of ctx c, a group it
 * hands back run on fb's code; 0, or -1 with the message printed. */
int tj_run_range(const jit_kernel *k, tj_fallback *fb, const spvjit_wg_ctx *c, uint64_t first, uint64_t count);

/* Spec values in the unspecialized slot order for the given (SpecId, bits) pairs
 * (defaults elsewhere); malloc'd, 8 bytes per slot. */
uint64_t *tj_spec_slots(const spv_module *m, const jit_kernel *k, const uint32_t *ids, const uint64_t *bits,
                        unsigned n);

/* Relative float comparison. */
bool tj_close(float a, float b, float rel);

#endif
