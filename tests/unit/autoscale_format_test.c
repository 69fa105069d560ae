// SPDX-License-Identifier: MIT
/*
 * Host tests of the autoscaler's log prefixes and CSV rows
 * (tools/autoscale_format.c).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "autoscale_format.h"

#define LINE_MAX 256
/* 2026-12-03T13:18:45.123Z */
#define SOME_UNIX_MS 1796303925123ULL

static void prefix_has_priority_elapsed_and_utc_time(void **state)
{
	char buf[LINE_MAX];
	int n;

	(void)state;
	n = as_log_prefix(buf, sizeof(buf), AS_PRIO_INFO, true, 12345,
			  SOME_UNIX_MS);
	assert_string_equal(buf, "<6>[  12.345] 2026-12-03T13:18:45.123Z ");
	assert_int_equal(n, (int)strlen(buf));
	as_log_prefix(buf, sizeof(buf), AS_PRIO_ERR, true, 0, 0);
	assert_string_equal(buf, "<3>[   0.000] 1970-01-01T00:00:00.000Z ");
	as_log_prefix(buf, sizeof(buf), AS_PRIO_WARNING, true, 1, 1);
	assert_string_equal(buf, "<4>[   0.001] 1970-01-01T00:00:00.001Z ");
	as_log_prefix(buf, sizeof(buf), AS_PRIO_DEBUG, true, 0, 0);
	assert_memory_equal(buf, "<7>[", 4);
}

static void prefix_without_syslog_starts_with_elapsed(void **state)
{
	char buf[LINE_MAX];

	(void)state;
	as_log_prefix(buf, sizeof(buf), AS_PRIO_ERR, false, 86400000,
		      SOME_UNIX_MS);
	assert_string_equal(buf, "[86400.000] 2026-12-03T13:18:45.123Z ");
}

static void prefix_too_long_for_the_buffer(void **state)
{
	char buf[8];

	(void)state;
	assert_int_equal(
		as_log_prefix(buf, sizeof(buf), AS_PRIO_INFO, true, 0, 0),
		-ENOSPC);
}

static const struct as_csv_row full_row = {
	.elapsed_ms = 3500,
	.unix_ms = SOME_UNIX_MS,
	.name = "guest",
	.domid = 7,
	.has_load = true,
	.has_tput = true,
	.has_guest = true,
	.has_xen = true,
	.has_guest_online = true,
	.load = 250,
	.vcpus = 4,
	.guest = 250,
	.xen = 310,
	.guest_online = 4,
	.tput = 123456789012ULL,
	.mode = "smp",
	.signal = "guest",
};

static void csv_row_has_every_column_in_header_order(void **state)
{
	char buf[LINE_MAX];
	int n;

	(void)state;
	assert_string_equal(AS_CSV_HEADER,
			    "time_s,domain,load,vcpus,mode,throughput,"
			    "unix_time,domid,signal,guest_load,xen_load,"
			    "guest_online");
	n = as_csv_row(buf, sizeof(buf), &full_row);
	assert_int_equal(n, (int)strlen(buf));
	assert_string_equal(buf, "3.500,guest,250,4,smp,123456789012,"
				 "1796303925.123,7,guest,250,310,4\n");
}

static void csv_row_leaves_unknowns_empty(void **state)
{
	struct as_csv_row r = {
		.elapsed_ms = 42,
		.unix_ms = 1000,
		.name = "linux",
		.domid = 12,
		.vcpus = 1,
		.mode = "",
		.signal = "",
	};
	char buf[LINE_MAX];

	(void)state;
	as_csv_row(buf, sizeof(buf), &r);
	assert_string_equal(buf, "0.042,linux,,1,,,1.000,12,,,,\n");
}

static void csv_row_quotes_a_name_with_comma_or_quote(void **state)
{
	struct as_csv_row r = full_row;
	char buf[LINE_MAX];

	(void)state;
	r.name = "web,\"1\"";
	as_csv_row(buf, sizeof(buf), &r);
	assert_string_equal(buf, "3.500,\"web,\"\"1\"\"\",250,4,smp,"
				 "123456789012,1796303925.123,7,guest,250,"
				 "310,4\n");
}

static void csv_row_too_long_for_the_buffer(void **state)
{
	char buf[20];

	(void)state;
	assert_int_equal(as_csv_row(buf, sizeof(buf), &full_row), -ENOSPC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(prefix_has_priority_elapsed_and_utc_time),
		cmocka_unit_test(prefix_without_syslog_starts_with_elapsed),
		cmocka_unit_test(prefix_too_long_for_the_buffer),
		cmocka_unit_test(csv_row_has_every_column_in_header_order),
		cmocka_unit_test(csv_row_leaves_unknowns_empty),
		cmocka_unit_test(csv_row_quotes_a_name_with_comma_or_quote),
		cmocka_unit_test(csv_row_too_long_for_the_buffer),
	};

	return cmocka_run_group_tests_name("autoscale_format", tests, NULL,
					   NULL);
}
