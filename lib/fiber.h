/* lib/fiber.h — user-level contexts (fibers) for work-items that hit barriers.
 *
 * A fiber is a stack plus a saved stack pointer; the callee-saved registers
 * and the floating-point control state (x86-64: MXCSR and the x87 control
 * word; AArch64: FPCR) live on the fiber's own stack while it is suspended.
 * Switching is a few loads and stores in assembly (fiber_<arch>.S), never
 * swapcontext, which saves the signal mask with a system call.
 *
 * Stacks come from mmap with an inaccessible guard page below them, so an
 * overflow faults at once instead of corrupting a neighbour.  Callers keep
 * stacks in a pool and reuse them; fibers themselves are plain structs.
 *
 * Under AddressSanitizer every switch is announced with
 * __sanitizer_start_switch_fiber / __sanitizer_finish_switch_fiber, and a
 * stack whose fiber was abandoned mid-call must be passed to
 * spvjit_fiber_stack_forget() before reuse (it clears stale redzones).
 */
#ifndef SPVJIT_LIB_FIBER_H
#define SPVJIT_LIB_FIBER_H

#include <stddef.h>

#if defined(__SANITIZE_ADDRESS__)
#define SPVJIT_FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SPVJIT_FIBER_ASAN 1
#endif
#endif
#ifndef SPVJIT_FIBER_ASAN
#define SPVJIT_FIBER_ASAN 0
#endif

/* Smallest stack handed out: instrumented frames under ASan are several
 * times larger (redzones), so the floor is raised there. */
#if SPVJIT_FIBER_ASAN
#define SPVJIT_FIBER_MIN_STACK ((size_t)256 * 1024)
#else
#define SPVJIT_FIBER_MIN_STACK ((size_t)64 * 1024)
#endif

typedef struct spvjit_fiber_stack {
    void *map;      /* start of the mapping (the guard page) */
    size_t map_len; /* guard + usable */
    void *lo;       /* lowest usable byte */
    size_t size;    /* usable bytes */
} spvjit_fiber_stack;

typedef struct spvjit_fiber {
    void *sp;              /* saved stack pointer while suspended */
    const void *stack_lo;  /* stack bounds, for ASan; NULL for a thread's own */
    size_t stack_size;     /*   stack until it is learned at the first switch */
    void *asan_fake_stack; /* ASan's fake-stack handle while suspended */
    void (*entry)(void *arg);
    void *arg;
} spvjit_fiber;

/* Rounds `want` up to pages (at least SPVJIT_FIBER_MIN_STACK) and maps a
 * stack with a guard page below.  Returns 0, or an errno value. */
int spvjit_fiber_stack_alloc(spvjit_fiber_stack *s, size_t want);
void spvjit_fiber_stack_free(spvjit_fiber_stack *s);
/* Call before reusing a stack whose fiber never returned (ASan only; a no-op
 * otherwise): the abandoned frames left poisoned redzones behind. */
void spvjit_fiber_stack_forget(const spvjit_fiber_stack *s);

/* Prepares `f` to run entry(arg) on stack `s` at its first switch-in.
 * entry must never return: it ends with spvjit_fiber_switch_final().
 * The fiber starts with the calling thread's current FP control state. */
void spvjit_fiber_init(spvjit_fiber *f, const spvjit_fiber_stack *s, void (*entry)(void *arg), void *arg);
/* A fiber describing the calling thread's own context, to switch back to. */
void spvjit_fiber_init_thread(spvjit_fiber *f);

/* Suspends `from` (the running context) and resumes or starts `to`;
 * returns when something switches back to `from`. */
void spvjit_fiber_switch(spvjit_fiber *from, spvjit_fiber *to);
/* Like spvjit_fiber_switch, for a `from` that will never be resumed. */
_Noreturn void spvjit_fiber_switch_final(spvjit_fiber *from, spvjit_fiber *to);

/* The assembly primitive: saves the context on the current stack, stores
 * the stack pointer to *save_sp, loads load_sp and restores from there. */
void spvjit_fiber_swap(void **save_sp, void *load_sp);

#if !SPVJIT_FIBER_ASAN
/* Without ASan a switch is only the assembly swap; inline it so the hot
 * barrier path has no extra call. */
static inline void spvjit_fiber_switch_fast(spvjit_fiber *from, spvjit_fiber *to)
{
    spvjit_fiber_swap(&from->sp, to->sp);
}
#define spvjit_fiber_switch(from, to) spvjit_fiber_switch_fast((from), (to))
#endif

#endif
