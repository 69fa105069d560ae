// SPDX-License-Identifier: MIT
/*
 * time.c - Xen system time and the one-shot timer of each vCPU.
 *
 * Xen keeps, per vCPU, (system_time, tsc_timestamp, mul, shift) in the
 * vcpu_info of shared_info; now = system_time + scaled(rdtsc - timestamp).
 * Xen rewrites the record on this same vCPU (when it is scheduled), making
 * version odd meanwhile: read until an even, unchanged version is seen.
 *
 * Each vCPU extrapolates from its own record, and Xen re-bases a record
 * from its platform timer when it recalibrates: the new record can start
 * below what the old one extrapolated to (seen here under TCG on a busy
 * host, by hundreds of microseconds).  Like Linux's pvclock, the kernel's
 * clock never goes back: a reading below the latest one returns the
 * latest one.
 */
#define pr_fmt(fmt) "time: " fmt

#include <smpalt/time.h>
#include <smpalt/atomic.h>
#include <smpalt/clock.h>
#include <smpalt/hypercall.h>
#include <smpalt/hypervisor.h>
#include <smpalt/kernel.h>
#include <smpalt/printk.h>
#include <smpalt/spinlock.h>
#include <smpalt/vcpu.h>

/* The TSC delta is scaled by mul / 2^32 after the shift. */
#define TIME_MUL_FRAC_BITS 32

static inline uint64_t time_rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* The latest time any vCPU has returned. */
static atomic64_t time_latest;

uint64_t time_local_ns(uint32_t *version_out)
{
	const volatile struct vcpu_time_info *t = &vcpu_info_self()->time;
	uint64_t tsc, stamp, sys, delta;
	uint32_t version, mul;
	int8_t shift;

	do {
		version = t->version;
		/* Read the version before the fields it guards. */
		__asm__ __volatile__("" ::: "memory");
		stamp = t->tsc_timestamp;
		sys = t->system_time;
		mul = t->tsc_to_system_mul;
		shift = t->tsc_shift;
		tsc = time_rdtsc();
		/* ... and the fields before checking the version again. */
		__asm__ __volatile__("" ::: "memory");
	} while ((version & 1) || version != t->version);
	*version_out = version;

	delta = tsc - stamp;
	if (shift >= 0)
		delta <<= shift;
	else
		delta >>= -shift;
	return sys + (uint64_t)(((unsigned __int128)delta * mul) >>
				TIME_MUL_FRAC_BITS);
}

uint64_t time_now_ns(void)
{
	uint32_t version;
	uint64_t now = time_local_ns(&version);
	int64_t latest = atomic64_read(&time_latest);

	while ((uint64_t)latest < now) {
		int64_t seen =
			atomic64_cmpxchg(&time_latest, latest, (int64_t)now);

		if (seen == latest)
			return now;
		latest = seen;
	}
	return (uint64_t)latest;
}

static uint64_t time_read_local(void *ctx, uint32_t *version)
{
	(void)ctx;
	return time_local_ns(version);
}

/* time_local_ns()'s step, measured once at boot (time_measure_step()). */
static uint64_t time_step;

/* Xen's CPUID leaf with the TSC mode (hyp_cpuid_base()). */
#define TIME_XEN_LEAF_TSC 3
#define TIME_XEN_TSC_EMULATED 1u

void time_measure_step(void)
{
	uint32_t base = hyp_cpuid_base(TIME_XEN_LEAF_TSC), a, b, c, d;

	time_step = clock_step(time_read_local, NULL);
	if (!base) {
		pr_info("clock step %llu ns (no Xen TSC leaf)\n",
			(unsigned long long)time_step);
		return;
	}
	hyp_cpuid(base + TIME_XEN_LEAF_TSC, 0, &a, &b, &c, &d);
	/*
	 * An emulated TSC stands still for a while after a vCPU moves to a
	 * pCPU whose clock lags: clock.h says why, and how timings cope.
	 */
	pr_info("clock step %llu ns; Xen TSC mode %u, rdtsc %s, %u kHz\n",
		(unsigned long long)time_step, b,
		a & TIME_XEN_TSC_EMULATED ? "emulated" : "native", c);
}

uint64_t time_local_step(void)
{
	return time_step;
}

bool time_local_live(uint64_t *now, uint32_t *version)
{
	return clock_live(time_read_local, NULL, time_step, now, version);
}

int time_set_timer(uint64_t deadline_ns)
{
	/* flags 0: a deadline already past fires at once (no -ETIME). */
	struct vcpu_set_singleshot_timer t = {.timeout_abs_ns = deadline_ns,
					      .flags = 0};
	long rc = hyp_vcpu_op(VCPUOP_set_singleshot_timer, vcpu_id(), &t);

	if (rc)
		pr_err("set_singleshot_timer(%llu) on vCPU %u: %ld\n",
		       (unsigned long long)deadline_ns, vcpu_id(), rc);
	return (int)rc;
}

/* How a vCPU sleeps until a deadline: registered by the event channels. */
static time_wait_fn time_wait_hook;

void time_set_wait(time_wait_fn wait)
{
	time_wait_hook = wait;
}

void time_init_vcpu(void)
{
	/* We want timer events only when we ask for them. */
	long rc = hyp_vcpu_op(VCPUOP_stop_periodic_timer, vcpu_id(), NULL);

	if (rc)
		pr_warn("stop_periodic_timer on vCPU %u: %ld\n", vcpu_id(), rc);
}

void time_sleep_ns(uint64_t ns)
{
	uint64_t deadline = time_now_ns() + ns;
	time_wait_fn wait = time_wait_hook;

	while (time_now_ns() < deadline) {
		if (wait)
			wait(deadline);
		else
			cpu_relax();
	}
}
