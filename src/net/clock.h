/*
 * The clocks of every timer in the network code: milliseconds on CLOCK_MONOTONIC, which
 * never jumps with the wall clock (a deadline or a silence measured on it is real time
 * passed). Inline: the progress paths read them on every pass.
 */
#ifndef METAMPI_NET_CLOCK_H
#define METAMPI_NET_CLOCK_H

#include <time.h>

/* Milliseconds since an arbitrary start (CLOCK_MONOTONIC). */
static inline long long net_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The same clock at the kernel tick's resolution (a few ms), cheaper: for checks that run
 * about once a second on the progress path. */
static inline long long net_coarse_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#endif
