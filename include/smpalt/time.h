/* SPDX-License-Identifier: MIT */
/*
 * time.h - the monotonic clock (Xen system time, ns) and one-shot timers.
 */
#ifndef SMPALT_TIME_H
#define SMPALT_TIME_H

#include <stdbool.h>
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
 * Measure time_local_ns()'s step (clock_step(), clock.h) and print it with
 * Xen's TSC mode; once, on vCPU 0 at boot, before anything is timed.
 */
void time_measure_step(void);

/* That step in ns (0: the clock stood still, or not measured yet). */
uint64_t time_local_step(void);

/*
 * The start of a timing: a time_local_ns() reading taken once the clock is
 * seen running (clock_live(), clock.h).  false: it was not seen running;
 * the reading is returned all the same, and a timing from it may be short.
 */
bool time_local_live(uint64_t *now, uint32_t *version);

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
