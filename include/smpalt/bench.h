/* SPDX-License-Identifier: MIT */
/*
 * bench.h - in-guest throughput of each lock-heavy primitive (spinlock,
 * atomic increment, refcount get/put) in the SMP and the UP form of the
 * text, on one vCPU.
 */
#ifndef SMPALT_BENCH_H
#define SMPALT_BENCH_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Time each primitive in both forms (best of several alternating rounds)
 * and print one "bench: <name>: SMP form N ns, UP form M ns" line each;
 * leaves the text in the form it found.  Only while vCPU 0 runs alone
 * (it switches the text).  0, or -errno after reporting ERROR (report.h):
 * a switch failed, the clock stood still, or a timing was implausible
 * (bench_plausible()).
 */
int bench_locks(void);

/*
 * The clock's resolution: the smallest nonzero step of time_now_ns() seen
 * over many steps; 0 if it stood still or went back.
 */
uint64_t bench_clock_resolution(void);

/* A timing worth reporting: nonzero and not below the resolution. */
bool bench_plausible(uint64_t ns, uint64_t resolution);

#endif /* SMPALT_BENCH_H */
