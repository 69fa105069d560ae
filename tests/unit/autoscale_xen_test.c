// SPDX-License-Identifier: MIT
/*
 * Host tests of the daemon's Xen accounting (tools/autoscale_xen.c)
 * against a libxenstat of the test's own: this file defines the few
 * xenstat_* functions it calls, and the log functions, whose lines it
 * counts.  libxenstat failing round after round is said once when it
 * starts and once when it ends.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "autoscaler.h"
#include "autoscale_log.h"
#include "autoscale_xen.h"

#define ROUNDS 5

/* The stand-in libxenstat: a node, or none while failing. */
static bool xenstat_fails;
static int node_storage, handle_storage;

xenstat_node *xenstat_get_node(xenstat_handle *handle, unsigned int flags)
{
	(void)handle;
	(void)flags;
	return xenstat_fails ? NULL : (xenstat_node *)&node_storage;
}

void xenstat_free_node(xenstat_node *node)
{
	(void)node;
}

unsigned int xenstat_node_num_domains(xenstat_node *node)
{
	(void)node;
	return 0;
}

xenstat_domain *xenstat_node_domain(xenstat_node *node, unsigned int domid)
{
	(void)node;
	(void)domid;
	return NULL;
}

xenstat_domain *xenstat_node_domain_by_index(xenstat_node *node,
					     unsigned int index)
{
	(void)node;
	(void)index;
	return NULL;
}

unsigned long long xenstat_domain_cpu_ns(xenstat_domain *domain)
{
	(void)domain;
	return 0;
}

unsigned int xenstat_node_num_cpus(xenstat_node *node)
{
	(void)node;
	return 1;
}

xenstat_handle *xenstat_init(void)
{
	return (xenstat_handle *)&handle_storage;
}

/* The stand-in log: the warnings and notes about libxenstat, counted. */
static unsigned int warnings, notes;

void log_line(struct autoscaler *as, enum as_prio prio, const char *fmt, ...)
{
	(void)as;
	if (!strstr(fmt, "libxenstat"))
		return;
	if (prio == AS_PRIO_WARNING)
		warnings++;
	else
		notes++;
}

void error(struct autoscaler *as, const char *fmt, ...)
{
	(void)as;
	(void)fmt;
}

uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

bool parse_uint(const char *s, unsigned long long min, unsigned long long max,
		unsigned long long *out)
{
	(void)s;
	(void)min;
	(void)max;
	(void)out;
	return false;
}

static void rounds(struct autoscaler *as, bool fail, unsigned int n)
{
	xenstat_fails = fail;
	for (unsigned int i = 0; i < n; i++)
		read_xen_load(as, true);
}

static void libxenstat_failing_is_said_when_it_starts_and_ends(void **state)
{
	struct autoscaler as = {.xstat = (xenstat_handle *)&handle_storage};

	(void)state;
	rounds(&as, false, ROUNDS);
	assert_int_equal(warnings, 0);
	rounds(&as, true, ROUNDS);
	assert_int_equal(warnings, 1);
	assert_int_equal(notes, 0);
	rounds(&as, false, ROUNDS);
	assert_int_equal(warnings, 1);
	assert_int_equal(notes, 1);
	rounds(&as, true, ROUNDS);
	assert_int_equal(warnings, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			libxenstat_failing_is_said_when_it_starts_and_ends),
	};

	return cmocka_run_group_tests_name("autoscale_xen", tests, NULL, NULL);
}
