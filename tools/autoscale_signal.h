/* SPDX-License-Identifier: MIT */
/*
 * autoscale_signal.h - where the autoscaler's load figure comes from, pure:
 * the guest's own claim (data/smpalt/load), the CPU time Xen accounts to
 * the domain's vCPUs, or the guest's claim bounded by Xen's figure.
 * No xenstore, no clock: host tests drive it (autoscale_signal_test.c).
 *
 * Load is in percent of one vCPU, as in autoscale_policy.h.
 *
 *   xen load = 100 * (CPU time delta of all vCPUs) / (wall time delta)
 *
 * The clamp: a guest's claim never exceeds 100% x maxvcpus, and Xen's
 * figure bounds it both ways (n = the vCPUs the domain has now):
 *
 *   Xen's figure             the claim is cut to     so that
 *   < n x low  (idle)        Xen's figure (*)        it is scaled down
 *   <= n x high (in band)    n x high                the count stays
 *   > n x high (busy)        (not cut)               the claim sets how far up
 *
 * On a host with fewer CPUs than the domain has vCPUs (test machines,
 * --ignore-host), n is the host's CPU count: Xen can never see more busy
 * than that, and a guest using all of it must not look idle.
 *
 * Xen's figure is the time the vCPUs ran, not the time they wanted: a
 * vCPU that waited for a physical CPU held by another domain (dom0
 * included) ran less than it asked.  Xen's scheduler leaves no physical
 * CPU idle while a vCPU waits, so the domain's vCPUs can only have waited
 * for the CPU time of the other domains, which is the host's time less
 * its idle time (no domain ran) less the domain's own figure.  With n
 * vCPUs on H host CPUs (n <= H), at any moment w of them waiting means
 * all H busy, H - r of them held by others (r of its vCPUs running), and
 * w <= n - r, so w / n <= (H - r) / H: the wait is at most n / H of the
 * others' CPU time.  The domain's own use counts as no wait: a guest
 * that spins on extra vCPUs makes the host look busy by itself, and
 * that must not let it keep them.
 *
 * That wait may hold a count, never raise one: (*) idle by Xen's account,
 * the count stays (cut to n x high) when Xen's figure plus the wait
 * reaches n x low, since the others may have kept it idle and cutting it
 * would take a starved guest up and down in turn.  It never lets a claim
 * pass n x high: Xen did not see the vCPUs it has used up, so more would
 * only be more of them waiting for the same busy CPUs.  On a host with
 * CPUs to spare the others use little and nothing changes.
 *
 * A guest can thus always give its vCPUs back (a claim below the bound
 * stands), gets more only while Xen sees it use close to all it has, and
 * loses them when Xen sees it idle, whatever it claims.  Under auto a claim
 * is never used without Xen's figure: no Xen figure, no decision.
 */
#ifndef SMPALT_AUTOSCALE_SIGNAL_H
#define SMPALT_AUTOSCALE_SIGNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "autoscale_policy.h"

/* Which load figure the autoscaler decides on (--signal). */
enum as_signal {
	AS_SIGNAL_AUTO,	 /* the guest's, bounded by Xen's; else Xen's;
			  * nothing without Xen's */
	AS_SIGNAL_GUEST, /* data/smpalt/load only */
	AS_SIGNAL_XEN,	 /* Xen's CPU accounting only */
};

/* Where the figure a decision used came from (CSV "signal" column). */
enum as_source {
	AS_SOURCE_NONE,		/* nothing usable: no decision */
	AS_SOURCE_GUEST,	/* the guest's claim, as is */
	AS_SOURCE_GUEST_CAPPED, /* the guest's claim, cut by the clamp */
	AS_SOURCE_XEN,		/* Xen's CPU accounting */
};

/* What one sample of a domain knows. */
struct as_signal_input {
	bool has_guest, has_xen;
	unsigned int guest;	/* data/smpalt/load, percent of one vCPU */
	unsigned int xen;	/* from as_cpu_load() */
	unsigned int vcpus;	/* count set now */
	unsigned int maxvcpus;	/* the domain's */
	unsigned int host_cpus; /* the host's physical CPUs, 0 if unknown */
	bool has_host_idle;	/* host_idle is known (needs host_cpus) */
	unsigned int host_idle; /* percent of one CPU no domain ran */
	unsigned int high_pct;	/* the policy's thresholds */
	unsigned int low_pct;
};

/*
 * Load from the CPU time Xen accounted to a domain's vCPUs between two
 * readings: cpu_ns_delta over wall_ns_delta, in percent of one vCPU,
 * rounded to nearest.  false when wall_ns_delta is 0 or the result does
 * not fit (a counter that went backwards is the caller's to detect).
 */
bool as_cpu_load(uint64_t cpu_ns_delta, uint64_t wall_ns_delta,
		 unsigned int *load);

/*
 * The load to decide on under signal, with the clamp above.  Returns its
 * source; *load is set unless AS_SOURCE_NONE.
 */
enum as_source as_signal_choose(enum as_signal signal,
				const struct as_signal_input *in,
				unsigned int *load);

/* "auto", "guest", "xen" <-> enum: 0, or -EINVAL for an unknown name. */
int as_signal_parse(const char *name, enum as_signal *signal);
const char *as_signal_name(enum as_signal signal);
/* "guest", "guest-capped", "xen", "" (none): for logs and the CSV. */
const char *as_source_name(enum as_source source);

#endif /* SMPALT_AUTOSCALE_SIGNAL_H */
