/* SPDX-License-Identifier: MIT */
/*
 * time.h - the monotonic clock (Xen system time, ns) and one-shot timers.
 */
#ifndef SMPALT_TIME_H
#define SMPALT_TIME_H

#include <stdint.h>

/*
 * Xen system time of the running vCPU in ns: monotonic, from the
 * vcpu_time_info Xen keeps in shared_info, extrapolated with the TSC.
 */
uint64_t time_now_ns(void);

/*
 * This vCPU's own reading of Xen's record, as it stands, with the record's
 * version in *version: two readings under the same version come from one
 * linear extrapolation, so their difference is exact (what a benchmark
 * wants); across versions it may even be negative.  time_now_ns() is the
 * clock that never goes back.
 */
uint64_t time_local_ns(uint32_t *version);

/*
 * Arm the running vCPU's one-shot timer for absolute time deadline_ns
 * (VIRQ_TIMER fires then; a deadline in the past fires at once).
 */
int time_set_timer(uint64_t deadline_ns);

/*
 * Stop Xen's periodic tick on the running vCPU: timer events come only
 * when time_set_timer() asks (the event channels bind VIRQ_TIMER).
 */
void time_init_vcpu(void);

/*
 * Sleep the running vCPU (thread context) for ns: blocks in the wait the
 * event channels registered (until its timer fires past the deadline),
 * spins before that.
 */
void time_sleep_ns(uint64_t ns);

/* Block the running vCPU until deadline_ns or an event, whichever first. */
typedef void (*time_wait_fn)(uint64_t deadline_ns);
void time_set_wait(time_wait_fn wait);

#endif /* SMPALT_TIME_H */
