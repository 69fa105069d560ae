// SPDX-License-Identifier: MIT
/*
 * Host tests of the autoscaler's load signal (tools/autoscale_signal.c):
 * the load from Xen's CPU time over the time that passed, the choice
 * between the guest's claim and Xen's figure, and the clamp of a claim.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "autoscale_signal.h"

#define NS_PER_SEC 1000000000ULL
#define NS_PER_MS 1000000ULL
#define HIGH 80
#define LOW 40
#define MAXVCPUS 4

static struct as_signal_input input(bool has_guest, unsigned int guest,
				    bool has_xen, unsigned int xen,
				    unsigned int vcpus)
{
	return (struct as_signal_input){
		.has_guest = has_guest,
		.guest = guest,
		.has_xen = has_xen,
		.xen = xen,
		.vcpus = vcpus,
		.maxvcpus = MAXVCPUS,
		.high_pct = HIGH,
		.low_pct = LOW,
	};
}

static void cpu_load_is_cpu_time_over_wall_time(void **state)
{
	unsigned int load = 0;

	(void)state;
	/* One vCPU busy for a whole second: 100%. */
	assert_true(as_cpu_load(NS_PER_SEC, NS_PER_SEC, &load));
	assert_int_equal(load, 100);
	/* 2.5 vCPUs' worth over 2 s. */
	assert_true(as_cpu_load(5 * NS_PER_SEC, 2 * NS_PER_SEC, &load));
	assert_int_equal(load, 250);
	/* Idle. */
	assert_true(as_cpu_load(0, NS_PER_SEC, &load));
	assert_int_equal(load, 0);
}

/* A late sample: the rate comes from the time that actually passed. */
static void cpu_load_uses_the_time_that_passed(void **state)
{
	unsigned int load = 0;

	(void)state;
	/* 1.5 s of CPU in 1.5 s (a period of 1 s that took 1.5): 100%. */
	assert_true(as_cpu_load(1500 * NS_PER_MS, 1500 * NS_PER_MS, &load));
	assert_int_equal(load, 100);
	/* 2 vCPUs busy over 1.7 s. */
	assert_true(as_cpu_load(3400 * NS_PER_MS, 1700 * NS_PER_MS, &load));
	assert_int_equal(load, 200);
}

static void cpu_load_rounds_to_nearest(void **state)
{
	unsigned int load = 0;

	(void)state;
	assert_true(as_cpu_load(1005 * NS_PER_MS / 10, NS_PER_SEC, &load));
	assert_int_equal(load, 10); /* 10.05 */
	assert_true(as_cpu_load(1006 * NS_PER_MS / 10, NS_PER_SEC, &load));
	assert_int_equal(load, 10); /* 10.06 */
	assert_true(as_cpu_load(105 * NS_PER_MS, NS_PER_SEC, &load));
	assert_int_equal(load, 11); /* 10.5 */
	assert_true(as_cpu_load(1, 3, &load));
	assert_int_equal(load, 33);
}

static void cpu_load_refuses_no_time_and_absurd_figures(void **state)
{
	unsigned int load = 7;

	(void)state;
	assert_false(as_cpu_load(NS_PER_SEC, 0, &load));
	/* A counter that wrapped: a delta near 2^64 over a second. */
	assert_false(as_cpu_load(UINT64_MAX - 5, NS_PER_SEC, &load));
	assert_int_equal(load, 7); /* untouched */
}

static void xen_signal_takes_xen_only(void **state)
{
	struct as_signal_input in = input(true, 300, true, 95, 1);
	unsigned int load = 0;

	(void)state;
	assert_int_equal(as_signal_choose(AS_SIGNAL_XEN, &in, &load),
			 AS_SOURCE_XEN);
	assert_int_equal(load, 95);
	in.has_xen = false;
	assert_int_equal(as_signal_choose(AS_SIGNAL_XEN, &in, &load),
			 AS_SOURCE_NONE);
}

static void guest_signal_takes_the_claim(void **state)
{
	struct as_signal_input in = input(true, 250, false, 0, 1);
	unsigned int load = 0;

	(void)state;
	assert_int_equal(as_signal_choose(AS_SIGNAL_GUEST, &in, &load),
			 AS_SOURCE_GUEST);
	assert_int_equal(load, 250);
	in.has_guest = false;
	in.has_xen = true;
	assert_int_equal(as_signal_choose(AS_SIGNAL_GUEST, &in, &load),
			 AS_SOURCE_NONE);
}

/* auto: the guest's claim when there is one, else Xen's figure. */
static void auto_prefers_the_guest_then_xen(void **state)
{
	struct as_signal_input in = input(true, 250, true, 98, 1);
	unsigned int load = 0;

	(void)state;
	assert_int_equal(as_signal_choose(AS_SIGNAL_AUTO, &in, &load),
			 AS_SOURCE_GUEST);
	assert_int_equal(load, 250);
	in.has_guest = false;
	assert_int_equal(as_signal_choose(AS_SIGNAL_AUTO, &in, &load),
			 AS_SOURCE_XEN);
	assert_int_equal(load, 98);
	in.has_xen = false;
	assert_int_equal(as_signal_choose(AS_SIGNAL_AUTO, &in, &load),
			 AS_SOURCE_NONE);
}

static void claim_never_exceeds_maxvcpus(void **state)
{
	struct as_signal_input in = input(true, 100000, false, 0, 1);
	unsigned int load = 0;

	(void)state;
	assert_int_equal(as_signal_choose(AS_SIGNAL_GUEST, &in, &load),
			 AS_SOURCE_GUEST_CAPPED);
	assert_int_equal(load, MAXVCPUS * 100);
	in.guest = MAXVCPUS * 100; /* exactly all of them: as is */
	assert_int_equal(as_signal_choose(AS_SIGNAL_GUEST, &in, &load),
			 AS_SOURCE_GUEST);
	assert_int_equal(load, MAXVCPUS * 100);
}

/* Idle by Xen's account: the claim is cut to Xen's figure, and it goes down. */
static void claim_is_cut_to_xen_when_xen_sees_it_idle(void **state)
{
	/* 4 vCPUs, Xen sees 45% (under 4 x 40%), the guest claims 400%. */
	struct as_signal_input in = input(true, 400, true, 45, 4);
	unsigned int load = 0;

	(void)state;
	assert_int_equal(as_signal_choose(AS_SIGNAL_AUTO, &in, &load),
			 AS_SOURCE_GUEST_CAPPED);
	assert_int_equal(load, 45); /* under 160%: scaled down */
	/* --signal guest applies the same bound when Xen's figure is known. */
	assert_int_equal(as_signal_choose(AS_SIGNAL_GUEST, &in, &load),
			 AS_SOURCE_GUEST_CAPPED);
	assert_int_equal(load, 45);
	/* A claim of exactly 4 x low would hold the count: cut as well. */
	in.guest = 4 * LOW;
	assert_int_equal(as_signal_choose(AS_SIGNAL_AUTO, &in, &load),
			 AS_SOURCE_GUEST_CAPPED);
	assert_int_equal(load, 45);
}

/* In the band by Xen's account: no claim takes the guest above its count. */
static void claim_keeps_the_count_when_xen_sees_it_in_band(void **state)
{
	/* 1 vCPU, Xen sees 45% (40..80%), the guest claims 400%. */
	struct as_signal_input in = input(true, 400, true, 45, 1);
	unsigned int load = 0;

	(void)state;
	assert_int_equal(as_signal_choose(AS_SIGNAL_AUTO, &in, &load),
			 AS_SOURCE_GUEST_CAPPED);
	assert_int_equal(load, HIGH); /* ceil(80/80) = 1: stays */
	in.xen = HIGH;		      /* at high exactly: still in the band */
	assert_int_equal(as_signal_choose(AS_SIGNAL_AUTO, &in, &load),
			 AS_SOURCE_GUEST_CAPPED);
	assert_int_equal(load, HIGH);
	/* 2 vCPUs, Xen 100% (in 80..160%), claim 300%: kept at 2 x high. */
	in = input(true, 300, true, 100, 2);
	assert_int_equal(as_signal_choose(AS_SIGNAL_AUTO, &in, &load),
			 AS_SOURCE_GUEST_CAPPED);
	assert_int_equal(load, 2 * HIGH);
}

/* Busy by Xen's account: the claim says how far up, within maxvcpus. */
static void claim_stands_when_xen_sees_it_busy(void **state)
{
	struct as_signal_input in = input(true, 300, true, HIGH + 1, 1);
	unsigned int load = 0;

	(void)state;
	assert_int_equal(as_signal_choose(AS_SIGNAL_AUTO, &in, &load),
			 AS_SOURCE_GUEST);
	assert_int_equal(load, 300);
	in.guest = 100000;
	assert_int_equal(as_signal_choose(AS_SIGNAL_AUTO, &in, &load),
			 AS_SOURCE_GUEST_CAPPED);
	assert_int_equal(load, MAXVCPUS * 100);
}

/*
 * More vCPUs than the host has CPUs (--ignore-host): Xen can see at most
 * the host's CPUs busy, so the bounds count those, not the vCPUs.
 */
static void bound_counts_no_more_vcpus_than_the_host_has(void **state)
{
	/* 4 vCPUs on 2 host CPUs, Xen sees 150% (all the host can give
	 * beside dom0), the guest claims 250%: not idle (2 x 40% = 80%),
	 * not past 2 x high (160%): the count stays, 4 x high. */
	struct as_signal_input in = input(true, 250, true, 150, 4);
	unsigned int load = 0;

	(void)state;
	in.host_cpus = 2;
	assert_int_equal(as_signal_choose(AS_SIGNAL_AUTO, &in, &load),
			 AS_SOURCE_GUEST_CAPPED);
	assert_int_equal(load, 2 * HIGH);
	/* Host CPUs unknown: the vCPUs count, and 150% < 4 x 40% is idle. */
	in.host_cpus = 0;
	assert_int_equal(as_signal_choose(AS_SIGNAL_AUTO, &in, &load),
			 AS_SOURCE_GUEST_CAPPED);
	assert_int_equal(load, 150);
	/* Busy past 2 x high on 2 host CPUs: the claim stands. */
	in.host_cpus = 2;
	in.xen = 2 * HIGH + 1;
	assert_int_equal(as_signal_choose(AS_SIGNAL_AUTO, &in, &load),
			 AS_SOURCE_GUEST);
	assert_int_equal(load, 250);
	/* Idle on the host's account too: cut to Xen's figure. */
	in.xen = 2 * LOW - 1;
	assert_int_equal(as_signal_choose(AS_SIGNAL_AUTO, &in, &load),
			 AS_SOURCE_GUEST_CAPPED);
	assert_int_equal(load, 2 * LOW - 1);
	/* As many host CPUs as vCPUs or more: the vCPUs count. */
	in = input(true, 250, true, 150, 4);
	in.host_cpus = 8;
	assert_int_equal(as_signal_choose(AS_SIGNAL_AUTO, &in, &load),
			 AS_SOURCE_GUEST_CAPPED);
	assert_int_equal(load, 150);
}

/*
 * In the band by Xen's account, however busy the host: the count stays.
 * Its vCPUs may have waited for a physical CPU, but more vCPUs would wait
 * for the same CPUs, and a guest that lies about its load must not get
 * them: the wait holds a count, it never raises one.
 */
static void busy_host_never_raises_a_claim_in_the_band(void **state)
{
	/* 1 vCPU ran 45% on 2 host CPUs, 6% of one idle: the others ran
	 * 149%, so it may have waited 74%; still the count stays. */
	struct as_signal_input in = input(true, 249, true, 45, 1);
	unsigned int load = 0;

	(void)state;
	in.host_cpus = 2;
	in.has_host_idle = true;
	in.host_idle = 6;
	assert_int_equal(as_signal_choose(AS_SIGNAL_AUTO, &in, &load),
			 AS_SOURCE_GUEST_CAPPED);
	assert_int_equal(load, HIGH);
	/* No CPU idle at all: the same. */
	in.host_idle = 0;
	assert_int_equal(as_signal_choose(AS_SIGNAL_AUTO, &in, &load),
			 AS_SOURCE_GUEST_CAPPED);
	assert_int_equal(load, HIGH);
	/* Idle by Xen's account on a host with no idle CPU: it may have
	 * waited into the band, so the count stays (not raised). */
	in.xen = LOW - 1;
	assert_int_equal(as_signal_choose(AS_SIGNAL_AUTO, &in, &load),
			 AS_SOURCE_GUEST_CAPPED);
	assert_int_equal(load, HIGH);
	/* The host's idle time not known: the bound is Xen's figure alone. */
	in = input(true, 249, true, 45, 1);
	in.host_cpus = 2;
	assert_int_equal(as_signal_choose(AS_SIGNAL_AUTO, &in, &load),
			 AS_SOURCE_GUEST_CAPPED);
	assert_int_equal(load, HIGH);
	/* Busy by Xen's account: the claim stands, as on any host. */
	in.has_host_idle = true;
	in.host_idle = 0;
	in.xen = HIGH + 1;
	assert_int_equal(as_signal_choose(AS_SIGNAL_AUTO, &in, &load),
			 AS_SOURCE_GUEST);
	assert_int_equal(load, 249);
}

/*
 * A 4-CPU host with 200% idle: a guest using 45% of its one vCPU and
 * claiming 400% stays at 1 vCPU (the others' 155% may have kept it
 * waiting up to 38%, and 45 + 38 passes 1 x high, but the wait never
 * raises a count).
 */
static void
guest_claiming_more_than_it_uses_is_not_raised_on_a_busy_host(void **state)
{
	struct as_signal_input in = input(true, 400, true, 45, 1);
	unsigned int load = 0;

	(void)state;
	in.host_cpus = 4;
	in.has_host_idle = true;
	in.host_idle = 200;
	assert_int_equal(as_signal_choose(AS_SIGNAL_AUTO, &in, &load),
			 AS_SOURCE_GUEST_CAPPED);
	assert_int_equal(load, HIGH); /* ceil(80 / 80) = 1: stays */
}

/*
 * The same guest given 4 vCPUs: what holds them is Xen's figure, never
 * the host looking busy through the guest's own use.
 */
static void guest_own_use_does_not_count_as_waiting(void **state)
{
	/* 4 vCPUs use 170% (over 4 x low), the others still 155%, 75%
	 * idle: in the band, the count stays, and the claim of 400% is
	 * cut to 4 x high (it says as much as Xen sees, no more). */
	struct as_signal_input in = input(true, 400, true, 170, 4);
	unsigned int load = 0;

	(void)state;
	in.host_cpus = 4;
	in.has_host_idle = true;
	in.host_idle = 75;
	assert_int_equal(as_signal_choose(AS_SIGNAL_AUTO, &in, &load),
			 AS_SOURCE_GUEST_CAPPED);
	assert_int_equal(load, 4 * HIGH);
	/* 150% (under 4 x low) beside dom0's 5%, 245% idle: the host is
	 * 39% busy by the guest's own doing, which is no wait.  The others
	 * may have kept it waiting 5%, 155 < 160: idle, cut to Xen's
	 * figure, and the count goes down to ceil(150 / 80) = 2. */
	in.xen = 150;
	in.host_idle = 245;
	assert_int_equal(as_signal_choose(AS_SIGNAL_AUTO, &in, &load),
			 AS_SOURCE_GUEST_CAPPED);
	assert_int_equal(load, 150);
	/* 150% beside others' 155%, 95% idle: they may have kept it
	 * waiting 155%, 150 + 155 >= 160: the count stays. */
	in.host_idle = 95;
	assert_int_equal(as_signal_choose(AS_SIGNAL_AUTO, &in, &load),
			 AS_SOURCE_GUEST_CAPPED);
	assert_int_equal(load, 4 * HIGH);
}

/* auto never runs on the claim alone: without Xen's figure, no load. */
static void starved_guest_is_neither_raised_nor_cut(void **state)
{
	/* 2 vCPUs ran 70% together, under 2 x low, on 2 host CPUs of
	 * which 20% of one was idle: the others ran 110%, all of which it
	 * may have waited for, so Xen's idle figure may be the host's
	 * doing.  The count stays. */
	struct as_signal_input in = input(true, 249, true, 2 * LOW - 10, 2);
	unsigned int load = 0;

	(void)state;
	in.host_cpus = 2;
	in.has_host_idle = true;
	in.host_idle = 20;
	assert_int_equal(as_signal_choose(AS_SIGNAL_AUTO, &in, &load),
			 AS_SOURCE_GUEST_CAPPED);
	assert_int_equal(load, 2 * HIGH);
	/* The same figure on a mostly idle host of 16 CPUs, the others
	 * using 34%: it waited at most 2 / 16 of that, 70 + 4 < 2 x low:
	 * idle, cut to Xen's figure. */
	in.host_cpus = 16;
	in.host_idle = 16 * 100 - 70 - 34;
	assert_int_equal(as_signal_choose(AS_SIGNAL_AUTO, &in, &load),
			 AS_SOURCE_GUEST_CAPPED);
	assert_int_equal(load, 2 * LOW - 10);
	/* A claim under n x low still stands on a busy host. */
	in.host_cpus = 2;
	in.host_idle = 20;
	in.guest = LOW;
	assert_int_equal(as_signal_choose(AS_SIGNAL_AUTO, &in, &load),
			 AS_SOURCE_GUEST);
	assert_int_equal(load, LOW);
}

static void auto_without_xen_takes_no_claim(void **state)
{
	struct as_signal_input in = input(true, 250, false, 0, 1);
	unsigned int load = 7;

	(void)state;
	assert_int_equal(as_signal_choose(AS_SIGNAL_AUTO, &in, &load),
			 AS_SOURCE_NONE);
	assert_int_equal(load, 7); /* untouched */
}

/* A guest may always give vCPUs back, whatever Xen sees. */
static void low_claim_is_never_raised(void **state)
{
	struct as_signal_input in = input(true, 10, true, 0, 3);
	unsigned int load = 99;

	(void)state;
	assert_int_equal(as_signal_choose(AS_SIGNAL_AUTO, &in, &load),
			 AS_SOURCE_GUEST);
	assert_int_equal(load, 10);
	in.xen = 300;
	assert_int_equal(as_signal_choose(AS_SIGNAL_AUTO, &in, &load),
			 AS_SOURCE_GUEST);
	assert_int_equal(load, 10);
	in.xen = 100; /* in the band */
	assert_int_equal(as_signal_choose(AS_SIGNAL_AUTO, &in, &load),
			 AS_SOURCE_GUEST);
	assert_int_equal(load, 10);
}

static void names_parse_and_print(void **state)
{
	enum as_signal sig = AS_SIGNAL_GUEST;

	(void)state;
	assert_int_equal(as_signal_parse("xen", &sig), 0);
	assert_int_equal(sig, AS_SIGNAL_XEN);
	assert_int_equal(as_signal_parse("auto", &sig), 0);
	assert_int_equal(sig, AS_SIGNAL_AUTO);
	assert_int_equal(as_signal_parse("guest", &sig), 0);
	assert_int_equal(sig, AS_SIGNAL_GUEST);
	assert_int_equal(as_signal_parse("Xen", &sig), -EINVAL);
	assert_int_equal(as_signal_parse("", &sig), -EINVAL);
	assert_int_equal(sig, AS_SIGNAL_GUEST);
	assert_string_equal(as_signal_name(AS_SIGNAL_XEN), "xen");
	assert_string_equal(as_source_name(AS_SOURCE_GUEST_CAPPED),
			    "guest-capped");
	assert_string_equal(as_source_name(AS_SOURCE_NONE), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cpu_load_is_cpu_time_over_wall_time),
		cmocka_unit_test(cpu_load_uses_the_time_that_passed),
		cmocka_unit_test(cpu_load_rounds_to_nearest),
		cmocka_unit_test(cpu_load_refuses_no_time_and_absurd_figures),
		cmocka_unit_test(xen_signal_takes_xen_only),
		cmocka_unit_test(guest_signal_takes_the_claim),
		cmocka_unit_test(auto_prefers_the_guest_then_xen),
		cmocka_unit_test(claim_never_exceeds_maxvcpus),
		cmocka_unit_test(claim_is_cut_to_xen_when_xen_sees_it_idle),
		cmocka_unit_test(
			claim_keeps_the_count_when_xen_sees_it_in_band),
		cmocka_unit_test(claim_stands_when_xen_sees_it_busy),
		cmocka_unit_test(bound_counts_no_more_vcpus_than_the_host_has),
		cmocka_unit_test(busy_host_never_raises_a_claim_in_the_band),
		cmocka_unit_test(
			guest_claiming_more_than_it_uses_is_not_raised_on_a_busy_host),
		cmocka_unit_test(guest_own_use_does_not_count_as_waiting),
		cmocka_unit_test(starved_guest_is_neither_raised_nor_cut),
		cmocka_unit_test(auto_without_xen_takes_no_claim),
		cmocka_unit_test(low_claim_is_never_raised),
		cmocka_unit_test(names_parse_and_print),
	};

	return cmocka_run_group_tests_name("autoscale_signal", tests, NULL,
					   NULL);
}
