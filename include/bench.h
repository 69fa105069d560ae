/* SPDX-License-Identifier: MIT */
/*
 * bench.h - in-guest throughput of each lock-heavy primitive (spinlock,
 * atomic increment, refcount get/put) in the SMP and the UP form of the
 * text, on one vCPU (issue 6).
 */
#ifndef SMPALT_BENCH_H
#define SMPALT_BENCH_H

/*
 * Time each primitive in both forms (best of several alternating rounds)
 * and print one "bench: <name>: SMP form N ns, UP form M ns" line each;
 * leaves the text in the form it found.  Only while vCPU 0 runs alone
 * (it switches the text).  0, or the failed switch's error after a
 * "Test result: ERROR" line.
 */
int bench_locks(void);

#endif /* SMPALT_BENCH_H */
