/* lib/watchdog.c — the deadline thread (see watchdog.h). */
#include "lib/watchdog.h"

#include <pthread.h>
#include <stdbool.h>
#include <time.h>

#include "util/timer.h"

#define IDLE_NS 1000000000ull /* the thread leaves after a second without deadlines */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake;
static pthread_once_t wake_once = PTHREAD_ONCE_INIT;
static watchdog_entry *armed; /* the entries being watched */
static bool running;

/* A forked child has no watchdog thread (and no dispatch in flight). */
static void before_fork(void)
{
    pthread_mutex_lock(&lock);
}

static void after_fork_parent(void)
{
    pthread_mutex_unlock(&lock);
}

static void after_fork_child(void)
{
    armed = NULL;
    running = false;
    pthread_mutex_unlock(&lock);
}

static void init_wake(void)
{
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&wake, &a);
    pthread_condattr_destroy(&a);
}

static struct timespec at(uint64_t ns)
{
    return (struct timespec){ .tv_sec = (time_t)(ns / 1000000000ull), .tv_nsec = (long)(ns % 1000000000ull) };
}

static void *watch(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&lock);
    uint64_t idle_since = util_now_ns();
    for (;;) {
        uint64_t now = util_now_ns(), next = UINT64_MAX;
        for (watchdog_entry **p = &armed; *p;) {
            watchdog_entry *e = *p;
            if (e->deadline_ns <= now) {
                uint32_t zero = 0;
                atomic_compare_exchange_strong(e->flag, &zero, e->value);
                *p = e->next; /* fired: off the list (disarming it finds nothing) */
                e->next = NULL;
                continue;
            }
            if (e->deadline_ns < next)
                next = e->deadline_ns;
            p = &e->next;
        }
        if (!armed) {
            if (now - idle_since >= IDLE_NS)
                break;
            next = idle_since + IDLE_NS;
        } else {
            idle_since = now;
        }
        struct timespec ts = at(next);
        pthread_cond_timedwait(&wake, &lock, &ts);
    }
    running = false;
    pthread_mutex_unlock(&lock);
    return NULL;
}

int watchdog_arm(watchdog_entry *e, _Atomic uint32_t *flag, uint32_t value, uint64_t deadline_ns)
{
    pthread_once(&wake_once, init_wake);
    e->flag = flag;
    e->value = value;
    e->deadline_ns = deadline_ns;
    pthread_mutex_lock(&lock);
    e->next = armed;
    armed = e;
    int rc = 0;
    if (!running) {
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        running = pthread_create(&t, &attr, watch, NULL) == 0;
        pthread_attr_destroy(&attr);
        if (!running) {
            armed = e->next;
            rc = -1;
        }
    }
    pthread_cond_signal(&wake);
    pthread_mutex_unlock(&lock);
    return rc;
}

void watchdog_disarm(watchdog_entry *e)
{
    pthread_mutex_lock(&lock);
    for (watchdog_entry **p = &armed; *p; p = &(*p)->next)
        if (*p == e) {
            *p = e->next;
            break;
        }
    e->next = NULL;
    pthread_mutex_unlock(&lock);
}
