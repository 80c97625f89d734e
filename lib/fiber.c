/* lib/fiber.c — fiber stacks, initial frames and ASan-aware switches (see fiber.h). */
#include "lib/fiber.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if SPVJIT_FIBER_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#if !defined(__x86_64__) && !defined(__aarch64__)
#error "spvjit fibers: no context switch for this architecture (x86-64 and AArch64 only)"
#endif

/* Entered by `ret` from spvjit_fiber_swap on a fresh frame (assembly). */
void spvjit_fiber_trampoline(void);

static size_t page_size(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

int spvjit_fiber_stack_alloc(spvjit_fiber_stack *s, size_t want)
{
    size_t page = page_size();
    if (want < SPVJIT_FIBER_MIN_STACK)
        want = SPVJIT_FIBER_MIN_STACK;
    if (want > SIZE_MAX / 2)
        return ENOMEM;
    size_t size = (want + page - 1) / page * page;
    size_t len = size + page;
    /* NORESERVE: only the pages a work-item touches are ever committed. */
    void *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (map == MAP_FAILED)
        return errno ? errno : ENOMEM;
    if (mprotect(map, page, PROT_NONE) != 0) {
        int e = errno ? errno : ENOMEM;
        munmap(map, len);
        return e;
    }
    s->map = map;
    s->map_len = len;
    s->lo = (char *)map + page;
    s->size = size;
    return 0;
}

void spvjit_fiber_stack_free(spvjit_fiber_stack *s)
{
    if (s->map)
        munmap(s->map, s->map_len);
    memset(s, 0, sizeof *s);
}

void spvjit_fiber_stack_forget(const spvjit_fiber_stack *s)
{
#if SPVJIT_FIBER_ASAN
    __asan_unpoison_memory_region(s->lo, s->size);
#else
    (void)s;
#endif
}

#if SPVJIT_FIBER_ASAN
/* The context that switched last on this thread: a newly resumed context
 * uses it to learn the bounds of a thread stack (unknown until then). */
static _Thread_local spvjit_fiber *switch_from;

static void asan_after_switch(void *fake_stack)
{
    const void *lo;
    size_t size;
    __sanitizer_finish_switch_fiber(fake_stack, &lo, &size);
    spvjit_fiber *prev = switch_from;
    if (prev && !prev->stack_lo) {
        prev->stack_lo = lo;
        prev->stack_size = size;
    }
}
#endif

/* C-level start of every fiber: finish the ASan switch, then run. */
static void fiber_start(void *arg)
{
    spvjit_fiber *f = arg;
#if SPVJIT_FIBER_ASAN
    asan_after_switch(NULL);
#endif
    f->entry(f->arg);
    abort(); /* entry must end with spvjit_fiber_switch_final */
}

void spvjit_fiber_init(spvjit_fiber *f, const spvjit_fiber_stack *s, void (*entry)(void *arg), void *arg)
{
    f->stack_lo = s->lo;
    f->stack_size = s->size;
    f->asan_fake_stack = NULL;
    f->entry = entry;
    f->arg = arg;
    /* 64 spare bytes at the top keep the first frame off the mapping's end. */
    uintptr_t top = ((uintptr_t)s->lo + s->size - 64) & ~(uintptr_t)15;
#if defined(__x86_64__)
    /* Mirror of what spvjit_fiber_swap pops: fp control, r15, r14, r13,
     * r12, rbx, rbp, return address; `ret` leaves rsp 16-byte aligned. */
    uint64_t *frame = (uint64_t *)(top - 8 * 8);
    uint32_t mxcsr;
    uint16_t fpcw;
    __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
    __asm__ volatile("fnstcw %0" : "=m"(fpcw));
    frame[0] = (uint64_t)mxcsr | (uint64_t)fpcw << 32;
    frame[1] = 0;                                /* r15 */
    frame[2] = 0;                                /* r14 */
    frame[3] = (uint64_t)(uintptr_t)f;           /* r13: argument */
    frame[4] = (uint64_t)(uintptr_t)fiber_start; /* r12: function */
    frame[5] = 0;                                /* rbx */
    frame[6] = 0;                                /* rbp: ends backtraces */
    frame[7] = (uint64_t)(uintptr_t)spvjit_fiber_trampoline;
    f->sp = frame;
#else
    /* Mirror of spvjit_fiber_swap's 176-byte frame: x19..x30, d8..d15, FPCR. */
    uint64_t *frame = (uint64_t *)(top - 176);
    memset(frame, 0, 176);
    uint64_t fpcr;
    __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
    frame[0] = (uint64_t)(uintptr_t)fiber_start;              /* x19: function */
    frame[1] = (uint64_t)(uintptr_t)f;                        /* x20: argument */
    frame[10] = 0;                                            /* x29: ends backtraces */
    frame[11] = (uint64_t)(uintptr_t)spvjit_fiber_trampoline; /* x30 */
    frame[20] = fpcr;
    f->sp = frame;
#endif
}

void spvjit_fiber_init_thread(spvjit_fiber *f)
{
    memset(f, 0, sizeof *f);
}

void(spvjit_fiber_switch)(spvjit_fiber *from, spvjit_fiber *to)
{
#if SPVJIT_FIBER_ASAN
    __sanitizer_start_switch_fiber(&from->asan_fake_stack, to->stack_lo, to->stack_size);
    switch_from = from;
    spvjit_fiber_swap(&from->sp, to->sp);
    asan_after_switch(from->asan_fake_stack);
#else
    spvjit_fiber_swap(&from->sp, to->sp);
#endif
}

_Noreturn void spvjit_fiber_switch_final(spvjit_fiber *from, spvjit_fiber *to)
{
#if SPVJIT_FIBER_ASAN
    /* NULL: this context is gone, ASan may free its fake stack. */
    __sanitizer_start_switch_fiber(NULL, to->stack_lo, to->stack_size);
    switch_from = from;
#endif
    spvjit_fiber_swap(&from->sp, to->sp);
    abort(); /* nothing resumes a finished fiber */
}
