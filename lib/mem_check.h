/* lib/mem_check.h — memory=check at run time.
 *
 * The compiled code reports through two hooks of the context (jit/abi.h):
 * report_oob, an access that did not fit its range, and wg_access, every
 * access to work-group memory.  A memory=check kernel runs one work-group
 * per call (lib/executor.c); the group keeps its first report in work-item
 * order — the fewest barriers passed, then the lowest linear work-item index,
 * then the first the item made — which is the first the scalar path makes
 * (work-items one after another between barriers) and the one the SIMD path
 * must give too (the work-items of a sub-group run interleaved, lane by
 * lane).  After the group, that report becomes the dispatch's (unless
 * another group's came first) and stops it.
 *
 * The race detector keeps, per byte of the group's work-group memory, the
 * last writer and up to two readers of the current barrier interval (the
 * barriers a work-item has passed, its epoch): a write by one work-item and
 * any access by another in the same interval is a race, unless both are
 * atomic.  Work-items of a group run one after another between barriers (a
 * region loop, the fibers, or sub-group by sub-group), so what the shadow
 * records in an interval is every access of it.  A race is reported as the
 * scalar path finds it: at the access of the work-item with the higher
 * index, the other one's access named as the earlier.
 */
#ifndef SPVJIT_LIB_MEM_CHECK_H
#define SPVJIT_LIB_MEM_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jit/abi.h"
#include "lib/executor.h"

typedef struct race_cell race_cell;

/* A thread's shadow, reused across groups and dispatches. */
typedef struct mem_check_thread {
    race_cell *shadow;
    size_t cap; /* cells */
} mem_check_thread;

/* ctx->check while a group runs. */
typedef struct mem_check_group {
    spvjit_exec_control *control;
    mem_check_thread *thread;
    size_t wg_bytes;         /* the group's work-group memory */
    bool found;              /* the group made a report: */
    uint64_t order;          /* ... its place (epoch, then linear work-item index) */
    spvjit_exec_fault fault; /* ... and what it says */
} mem_check_group;

/* A clean shadow for a group with wg_bytes of work-group memory.  0, or -1
 * when out of memory. */
int mem_check_begin_group(mem_check_group *g, mem_check_thread *t, spvjit_exec_control *control, size_t wg_bytes);
/* After the group: its report, if it made one, becomes the dispatch's first
 * (unless another group's was) and stops the dispatch.  Whether it made one. */
bool mem_check_end_group(mem_check_group *g);
void mem_check_thread_free(mem_check_thread *t);

/* The context's hooks (jit/abi.h). */
void mem_check_report_oob(const spvjit_wg_ctx *ctx, const spvjit_check_site *site, uint64_t offset, uint64_t bytes,
                          uint64_t bound, uint32_t epoch, uint32_t lx, uint32_t ly, uint32_t lz);
void mem_check_wg_access(const spvjit_wg_ctx *ctx, const spvjit_check_site *site, const void *addr, uint64_t bytes,
                         uint64_t offset, uint32_t epoch, uint32_t lx, uint32_t ly, uint32_t lz);

#endif
