// SPDX-License-Identifier: MIT
/*
 * Host tests of the autoscaler's log route (tools/autoscale_journal.c):
 * the journal only when $JOURNAL_STREAM names the very stream stderr is,
 * the journal entry's fields, and the plain line, exactly.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "autoscale_journal.h"

#define LINE_MAX_LEN 1024
#define PRIO_INFO 6
#define PRIO_ERR 3
#define PREFIX "<6>[   6.012] 2026-12-03T13:18:45.123Z "

static void stream_matches_only_its_device_and_inode(void **state)
{
	(void)state;
	assert_true(as_journal_stream_matches("12:34", 12, 34));
	assert_true(as_journal_stream_matches("0:18446744073709551615", 0,
					      (ino_t)18446744073709551615ULL));
	assert_false(as_journal_stream_matches("12:35", 12, 34));
	assert_false(as_journal_stream_matches("13:34", 12, 34));
	assert_false(as_journal_stream_matches(NULL, 12, 34));
}

static void stream_value_must_be_two_decimals(void **state)
{
	(void)state;
	assert_false(as_journal_stream_matches("", 12, 34));
	assert_false(as_journal_stream_matches("12", 12, 34));
	assert_false(as_journal_stream_matches("12:", 12, 34));
	assert_false(as_journal_stream_matches(":34", 12, 34));
	assert_false(as_journal_stream_matches("12:34x", 12, 34));
	assert_false(as_journal_stream_matches("12:34:1", 12, 34));
	assert_false(as_journal_stream_matches(" 12:34", 12, 34));
	assert_false(as_journal_stream_matches("+12:34", 12, 34));
	assert_false(as_journal_stream_matches("0x0c:34", 12, 34));
	/* 2^64 + 12 does not wrap around to 12. */
	assert_false(
		as_journal_stream_matches("18446744073709551628:34", 12, 34));
}

static void set_stream_env(int fd, long ino_delta)
{
	char v[64];
	struct stat st;

	assert_int_equal(fstat(fd, &st), 0);
	snprintf(v, sizeof(v), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino + (unsigned long long)ino_delta);
	assert_int_equal(setenv("JOURNAL_STREAM", v, 1), 0);
}

static void route_is_journal_when_stderr_is_the_named_stream(void **state)
{
	int p[2];

	(void)state;
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	set_stream_env(p[1], 0);
	assert_int_equal(as_log_route_for(p[1]), AS_LOG_JOURNAL);
	close(p[0]);
	close(p[1]);
	unsetenv("JOURNAL_STREAM");
}

static void route_is_plain_when_stderr_was_redirected(void **state)
{
	int p[2], q[2];

	(void)state;
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	assert_int_equal(pipe2(q, O_CLOEXEC), 0);
	/* The service's stream is p; stderr is now q (a pipe to a pager). */
	set_stream_env(p[1], 0);
	assert_int_equal(as_log_route_for(q[1]), AS_LOG_PLAIN);
	/* Same device, another inode. */
	set_stream_env(p[1], 1);
	assert_int_equal(as_log_route_for(p[1]), AS_LOG_PLAIN);
	unsetenv("JOURNAL_STREAM");
	assert_int_equal(as_log_route_for(p[1]), AS_LOG_PLAIN);
	/* A closed stderr. */
	set_stream_env(p[1], 0);
	close(p[1]);
	assert_int_equal(as_log_route_for(p[1]), AS_LOG_PLAIN);
	unsetenv("JOURNAL_STREAM");
	close(p[0]);
	close(q[0]);
	close(q[1]);
}

static const struct as_log_event change = {
	.priority = PRIO_INFO,
	.message = "web1 (domain 3): load 250%, vcpus 1 -> 4: over-high",
	.domain = "web1",
	.domid = 3,
	.has_vcpus = true,
	.vcpus_old = 1,
	.vcpus_new = 4,
	.reason = "over-high",
};

static void journal_fields_of_a_change(void **state)
{
	static const char *const expected[] = {
		"MESSAGE=web1 (domain 3): load 250%, vcpus 1 -> 4: over-high",
		"PRIORITY=6",
		"SYSLOG_IDENTIFIER=smpalt-autoscaler",
		"SMPALT_DOMAIN=web1",
		"SMPALT_DOMID=3",
		"SMPALT_VCPUS_OLD=1",
		"SMPALT_VCPUS_NEW=4",
		"SMPALT_REASON=over-high",
	};
	char **f;
	int n;

	(void)state;
	n = as_journal_fields(&change, &f);
	assert_int_equal(n, sizeof(expected) / sizeof(expected[0]));
	for (int i = 0; i < n; i++)
		assert_string_equal(f[i], expected[i]);
	as_journal_fields_free(f, n);
}

static void journal_fields_of_a_line_about_no_domain(void **state)
{
	const struct as_log_event ev = {
		.priority = PRIO_ERR,
		.message = "xenstore: connection lost",
	};
	char **f;
	int n;

	(void)state;
	n = as_journal_fields(&ev, &f);
	assert_int_equal(n, 3);
	assert_string_equal(f[0], "MESSAGE=xenstore: connection lost");
	assert_string_equal(f[1], "PRIORITY=3");
	assert_string_equal(f[2], "SYSLOG_IDENTIFIER=smpalt-autoscaler");
	as_journal_fields_free(f, n);
}

static void journal_message_is_escaped_domain_is_as_is(void **state)
{
	struct as_log_event ev = change;
	char **f;
	int n;

	(void)state;
	ev.message = "web\n1: \x1b[2J";
	ev.domain = "web\n1";
	ev.has_vcpus = false;
	ev.reason = NULL;
	n = as_journal_fields(&ev, &f);
	assert_int_equal(n, 5);
	assert_string_equal(f[0], "MESSAGE=web\\x0a1: \\x1b[2J");
	assert_string_equal(f[3], "SMPALT_DOMAIN=web\n1");
	assert_string_equal(f[4], "SMPALT_DOMID=3");
	as_journal_fields_free(f, n);
}

/* as_log_emit on the plain route into a pipe; what came out. */
static void emit_plain(const struct as_log_event *ev, char *out, size_t len)
{
	ssize_t n;
	int p[2];

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	assert_int_equal(as_log_emit(AS_LOG_PLAIN, p[1], PREFIX, ev), 0);
	close(p[1]);
	n = read(p[0], out, len - 1);
	assert_true(n >= 0);
	out[n] = '\0';
	close(p[0]);
}

static void plain_line_is_prefix_message_newline(void **state)
{
	char out[LINE_MAX_LEN];

	(void)state;
	emit_plain(&change, out, sizeof(out));
	assert_string_equal(out, PREFIX "web1 (domain 3): load 250%, "
					"vcpus 1 -> 4: over-high\n");
}

static void plain_line_cannot_be_split_or_forged(void **state)
{
	struct as_log_event ev = change;
	char out[LINE_MAX_LEN];

	(void)state;
	ev.message = "evil\n<3>[   0.000] forged\r\x1b]0;t\x07\\";
	emit_plain(&ev, out, sizeof(out));
	assert_string_equal(out, PREFIX "evil\\x0a<3>[   0.000] forged"
					"\\x0d\\x1b]0;t\\x07\\\\\n");
}

static void plain_line_on_a_closed_fd_is_an_error(void **state)
{
	(void)state;
	assert_int_equal(as_log_emit(AS_LOG_PLAIN, -1, PREFIX, &change),
			 -EBADF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stream_matches_only_its_device_and_inode),
		cmocka_unit_test(stream_value_must_be_two_decimals),
		cmocka_unit_test(
			route_is_journal_when_stderr_is_the_named_stream),
		cmocka_unit_test(route_is_plain_when_stderr_was_redirected),
		cmocka_unit_test(journal_fields_of_a_change),
		cmocka_unit_test(journal_fields_of_a_line_about_no_domain),
		cmocka_unit_test(journal_message_is_escaped_domain_is_as_is),
		cmocka_unit_test(plain_line_is_prefix_message_newline),
		cmocka_unit_test(plain_line_cannot_be_split_or_forged),
		cmocka_unit_test(plain_line_on_a_closed_fd_is_an_error),
	};

	return cmocka_run_group_tests_name("autoscale_journal", tests, NULL,
					   NULL);
}
