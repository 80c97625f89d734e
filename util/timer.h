/* util/timer.h — the monotonic clock. */
#ifndef SPVJIT_UTIL_TIMER_H
#define SPVJIT_UTIL_TIMER_H

#include <stdint.h>
#include <time.h>

static inline uint64_t util_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline double util_now_ms(void)
{
    return (double)util_now_ns() / 1e6;
}

#endif
