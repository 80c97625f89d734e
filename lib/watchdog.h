/* lib/watchdog.h — time limits of dispatches.
 *
 * One thread, started on the first armed deadline and gone again after a
 * second without any, sleeps until the earliest deadline and then sets its
 * entry's flag (if nothing set it before).  The code a dispatch runs polls
 * that flag at its loop back edges (jit/abi.h: ctx->stop), so a kernel stuck
 * in a loop returns soon after its time is up.
 */
#ifndef SPVJIT_LIB_WATCHDOG_H
#define SPVJIT_LIB_WATCHDOG_H

#include <stdatomic.h>
#include <stdint.h>

typedef struct watchdog_entry {
    _Atomic uint32_t *flag;
    uint32_t value;
    uint64_t deadline_ns; /* util_now_ns() clock */
    struct watchdog_entry *next;
} watchdog_entry;

/* At deadline_ns, *flag becomes `value` unless it is non-zero by then.
 * 0, or -1 when no watchdog thread can be started. */
int watchdog_arm(watchdog_entry *e, _Atomic uint32_t *flag, uint32_t value, uint64_t deadline_ns);
/* Takes e off the watch (it has fired or not); e may be reused or freed after. */
void watchdog_disarm(watchdog_entry *e);

#endif
