// SPDX-License-Identifier: MIT
/*
 * autoscale_xen.c - Xen's CPU accounting: the CPU time of each followed
 * domain and the host's idle time, through libxenstat or, in tests, the
 * directory ENV_TEST_XEN_LOAD names.  See autoscale_xen.h.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <xenstat.h>

#include "autoscaler.h"
#include "autoscale_log.h"
#include "autoscale_xen.h"

/* Is there a source of Xen's CPU figure (libxenstat, or the test's)? */
bool xen_figure_source(struct autoscaler *as)
{
	return as->xstat || as->test_xen_dir;
}

/*
 * Tests only: a number in the test directory's file name, or false when
 * it is absent or not a number up to max.
 */
static bool test_read_uint(const struct autoscaler *as, const char *name,
			   unsigned long long max, unsigned long long *v)
{
	char path[PATH_MAX], buf[NUM_MAX] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", as->test_xen_dir, name);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return parse_uint(buf, 0, max, v);
}

/*
 * Tests only: the host as the test directory describes it, "host-cpus"
 * (its CPU count) and "host-idle" (percent of one CPU that no domain ran
 * over the last period, as Xen would account it); without host-cpus
 * neither is known.
 */
static void read_test_host(struct autoscaler *as, bool sample)
{
	unsigned long long cpus, idle;

	as->has_host_idle = false;
	if (!test_read_uint(as, "host-cpus", AS_VCPUS_MAX, &cpus) || !cpus)
		return;
	as->host_cpus = (unsigned int)cpus;
	if (sample &&
	    test_read_uint(as, "host-idle", cpus * AS_PERCENT, &idle)) {
		as->has_host_idle = true;
		as->host_idle = (unsigned int)idle;
	}
}

/*
 * Xen's CPU accounting through libxenstat: needed for --signal xen, used
 * by auto for the clamp and for guests without data/smpalt/load.  Opened
 * when the signal in force first needs it (at start, or at a reload that
 * turns guest into auto or xen).  false when it cannot be read.
 */
bool open_xenstat(struct autoscaler *as)
{
	xenstat_node *node;

	if (as->opt.signal == AS_SIGNAL_GUEST || xen_figure_source(as))
		return true;
	as->test_xen_dir = getenv(ENV_TEST_XEN_LOAD);
	if (as->test_xen_dir && *as->test_xen_dir) {
		log_line(as, AS_PRIO_WARNING,
			 "Xen's CPU figures from %s (" ENV_TEST_XEN_LOAD
			 "): for tests only, not Xen's",
			 as->test_xen_dir);
		read_test_host(as, false);
		return true;
	}
	as->test_xen_dir = NULL;
	as->xstat = xenstat_init();
	if (!as->xstat) {
		error(as,
		      "libxenstat: cannot read Xen's CPU accounting (run in "
		      "dom0 as root, with /dev/xen/privcmd): needed by "
		      "--signal %s%s",
		      as_signal_name(as->opt.signal),
		      as->opt.signal == AS_SIGNAL_AUTO
			      ? ", which bounds the guests' claims by it "
				"(--signal guest trusts the claims alone)"
			      : "");
		return false;
	}
	node = xenstat_get_node(as->xstat, 0);
	if (node) {
		as->host_cpus = xenstat_node_num_cpus(node);
		xenstat_free_node(node);
	}
	return true;
}

/*
 * Tests only: the CPU time the test directory makes Xen account to d by
 * wall, as if d had used the percent in its file since the last reading.
 * false when its file is absent or not a number.
 */
static bool test_cpu_ns(struct autoscaler *as, const struct domain *d,
			uint64_t wall, uint64_t *cpu)
{
	char name[NUM_MAX];
	unsigned long long pct;

	snprintf(name, sizeof(name), "%u", d->domid);
	if (!test_read_uint(as, name, UINT32_MAX, &pct))
		return false;
	*cpu = d->has_cpu
		       ? d->cpu_ns +
				 (unsigned long long)((unsigned __int128)pct *
						      (wall - d->cpu_wall_ns) /
						      AS_PERCENT)
		       : 0;
	return true;
}

/*
 * The host's idle time since the last reading: its CPUs' time less the
 * CPU time of every domain.  A domain gone since counts against it (the
 * sum may fall: no figure this round), so it errs towards a busy host
 * only as far as a new domain's first reading, which is its run so far.
 */
static void read_host_idle(struct autoscaler *as, xenstat_node *node,
			   uint64_t wall, bool sample)
{
	unsigned int i, n = xenstat_node_num_domains(node), used;
	uint64_t cpu = 0;

	as->has_host_idle = false;
	for (i = 0; i < n; i++) {
		xenstat_domain *xd = xenstat_node_domain_by_index(node, i);

		if (xd)
			cpu += xenstat_domain_cpu_ns(xd);
	}
	if (sample && as->has_host_cpu && as->host_cpus &&
	    cpu >= as->host_cpu_ns && wall > as->host_cpu_wall_ns &&
	    as_cpu_load(cpu - as->host_cpu_ns, wall - as->host_cpu_wall_ns,
			&used)) {
		as->has_host_idle = true;
		as->host_idle = used < as->host_cpus * AS_PERCENT
					? as->host_cpus * AS_PERCENT - used
					: 0;
	}
	as->has_host_cpu = true;
	as->host_cpu_ns = cpu;
	as->host_cpu_wall_ns = wall;
}

/*
 * Read the CPU time Xen has accounted to every followed domain's vCPUs and
 * turn the change since the last reading into a load (d->sample.xen, when
 * sample).  Without libxenstat (or when it fails) no domain gets a Xen
 * figure this round.
 */
void read_xen_load(struct autoscaler *as, bool sample)
{
	xenstat_node *node = NULL;
	size_t i;
	uint64_t wall;

	as->has_host_idle = false;
	if (!xen_figure_source(as))
		return;
	/* Xen's figures are read first thing in xenstat_get_node(): the
	 * time just before it is theirs, the same way at every round. */
	wall = clock_ns(CLOCK_MONOTONIC);
	if (as->xstat) {
		node = xenstat_get_node(as->xstat, 0);
		/* Said when it starts and when it ends, not every round. */
		if (!node && !as->xenstat_failing)
			log_line(as, AS_PRIO_WARNING,
				 "libxenstat: cannot read the domains' CPU "
				 "time: no decision until it can be");
		else if (node && as->xenstat_failing)
			log_line(as, AS_PRIO_INFO,
				 "libxenstat: the domains' CPU time can be "
				 "read again");
		as->xenstat_failing = !node;
		if (!node)
			return;
	}
	for (i = 0; i < as->ndomains; i++) {
		struct domain *d = as->domains[i];
		xenstat_domain *xd;
		uint64_t cpu;

		if (!d->active)
			continue;
		if (node) {
			xd = xenstat_node_domain(node, d->domid);
			/* The domain's CPU time is the sum of its vCPUs'
			 * (Xen's getdomaininfo). */
			if (xd)
				cpu = xenstat_domain_cpu_ns(xd);
		} else {
			xd = NULL;
		}
		if (node ? !xd : !test_cpu_ns(as, d, wall, &cpu)) {
			d->has_cpu = false;
			continue;
		}
		d->sample.xen_first = !d->has_cpu;
		if (sample && d->has_cpu && cpu >= d->cpu_ns &&
		    wall > d->cpu_wall_ns)
			d->sample.has_xen = as_cpu_load(cpu - d->cpu_ns,
							wall - d->cpu_wall_ns,
							&d->sample.xen);
		d->has_cpu = true;
		d->cpu_ns = cpu;
		d->cpu_wall_ns = wall;
	}
	if (node) {
		read_host_idle(as, node, wall, sample);
		xenstat_free_node(node);
	} else {
		read_test_host(as, sample);
	}
}
