// SPDX-License-Identifier: MIT
/*
 * autoscale_signal.c - the load figure the autoscaler decides on: the
 * guest's claim, Xen's CPU accounting, and the clamp between the two.
 * See autoscale_signal.h.
 */
#include <errno.h>
#include <string.h>

#include "autoscale_signal.h"

bool as_cpu_load(uint64_t cpu_ns_delta, uint64_t wall_ns_delta,
		 unsigned int *load)
{
	unsigned __int128 num;
	uint64_t pct;

	if (!wall_ns_delta)
		return false;
	/* 128 bits: cpu_ns * 100 overflows 64 after ~5800 years of CPU
	 * time, but a wrapped counter's delta is near 2^64. */
	num = (unsigned __int128)cpu_ns_delta * AS_PERCENT + wall_ns_delta / 2;
	if (num / wall_ns_delta > UINT32_MAX)
		return false;
	pct = (uint64_t)(num / wall_ns_delta);
	*load = (unsigned int)pct;
	return true;
}

/*
 * How long, in percent of one CPU, the domain's n vCPUs (n <= host CPUs)
 * may have waited for a physical CPU: only for one another domain held,
 * so at most n / host CPUs of the others' CPU time, which is the host's
 * time less its idle time less the domain's own (0 when not known).  Its
 * own use is left out: a guest's running is no wait, so spinning on vCPUs
 * it does not need cannot make it look starved.  Rounded down.
 */
static uint64_t may_have_waited(const struct as_signal_input *in,
				unsigned int n)
{
	uint64_t host = (uint64_t)in->host_cpus * AS_PERCENT;
	uint64_t not_others = (uint64_t)in->host_idle + in->xen;

	if (!in->has_host_idle || !in->host_cpus || not_others >= host)
		return 0;
	return (host - not_others) * n / in->host_cpus;
}

/*
 * The most of a claim that Xen's figure lets stand, in percent of one vCPU
 * (n vCPUs now): busy by Xen's account (above n x high), the claim says how
 * far up, within most; in the band, no further than n x high (the count
 * stays); idle (under n x low), no higher than Xen's own figure, unless
 * the claim is already under n x low (it scales down on its own) or the
 * others' CPU time may have kept it there (Xen's figure plus the wait
 * reaches n x low: then the count stays, so a starved guest is not taken
 * up and down in turn).  The wait only ever holds a count: raising one
 * takes Xen seeing the vCPUs used, since a guest that got little of a
 * busy host gains nothing from more vCPUs waiting for the same CPUs, and
 * one that lies about its load must not be given them.  n is at most the
 * host's CPU count: Xen cannot see more of them busy.
 */
static uint64_t xen_bound(const struct as_signal_input *in, uint64_t claim,
			  uint64_t most)
{
	unsigned int n = in->vcpus;
	uint64_t low, high;

	if (in->host_cpus && n > in->host_cpus)
		n = in->host_cpus;
	low = (uint64_t)n * in->low_pct;
	high = (uint64_t)n * in->high_pct;

	if (in->xen > high)
		return most;
	if (in->xen >= low || in->xen + may_have_waited(in, n) >= low)
		return high;
	return claim < low ? claim : in->xen;
}

/* The guest's claim clamped to its maxvcpus, then bounded by Xen's. */
static enum as_source guest_load(const struct as_signal_input *in,
				 unsigned int *load)
{
	uint64_t most = (uint64_t)in->maxvcpus * AS_PERCENT;
	enum as_source src = AS_SOURCE_GUEST;
	uint64_t v = in->guest;

	if (v > most) {
		v = most;
		src = AS_SOURCE_GUEST_CAPPED;
	}
	if (in->has_xen && v > xen_bound(in, v, most)) {
		v = xen_bound(in, v, most);
		src = AS_SOURCE_GUEST_CAPPED;
	}
	*load = (unsigned int)v;
	return src;
}

enum as_source as_signal_choose(enum as_signal signal,
				const struct as_signal_input *in,
				unsigned int *load)
{
	switch (signal) {
	case AS_SIGNAL_GUEST:
		if (!in->has_guest)
			return AS_SOURCE_NONE;
		return guest_load(in, load);
	case AS_SIGNAL_XEN:
		if (!in->has_xen)
			return AS_SOURCE_NONE;
		*load = in->xen;
		return AS_SOURCE_XEN;
	case AS_SIGNAL_AUTO:
		/* Never the claim alone: Xen's figure bounds it. */
		if (!in->has_xen)
			return AS_SOURCE_NONE;
		if (in->has_guest)
			return guest_load(in, load);
		*load = in->xen;
		return AS_SOURCE_XEN;
	}
	return AS_SOURCE_NONE;
}

static const char *const signal_names[] = {
	[AS_SIGNAL_AUTO] = "auto",
	[AS_SIGNAL_GUEST] = "guest",
	[AS_SIGNAL_XEN] = "xen",
};

int as_signal_parse(const char *name, enum as_signal *signal)
{
	unsigned int i;

	for (i = 0; i < sizeof(signal_names) / sizeof(signal_names[0]); i++)
		if (!strcmp(name, signal_names[i])) {
			*signal = (enum as_signal)i;
			return 0;
		}
	return -EINVAL;
}

const char *as_signal_name(enum as_signal signal)
{
	if ((unsigned int)signal <
	    sizeof(signal_names) / sizeof(signal_names[0]))
		return signal_names[signal];
	return "?";
}

const char *as_source_name(enum as_source source)
{
	switch (source) {
	case AS_SOURCE_NONE:
		return "";
	case AS_SOURCE_GUEST:
		return "guest";
	case AS_SOURCE_GUEST_CAPPED:
		return "guest-capped";
	case AS_SOURCE_XEN:
		return "xen";
	}
	return "?";
}
