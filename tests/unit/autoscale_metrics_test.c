// SPDX-License-Identifier: MIT
/*
 * Host tests of the autoscaler's Prometheus metrics
 * (tools/autoscale_metrics.c): the exposition text, checked exactly and
 * by `promtool check metrics` (PROMTOOL_BIN: unpacked from Debian's
 * prometheus package by scripts/build/fetch-promtool.sh; a missing promtool
 * fails the test), label values with hostile domain names, the
 * textfile collector's file replaced atomically.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "autoscale_metrics.h"

#ifndef PROMTOOL_BIN
#error "PROMTOOL_BIN: the path of promtool (mk/tools.mk)"
#endif
#include "autoscale_text.h"

extern char **environ;

#define START 1796303925ULL
#define RESPONSE_MAX 65536
#define FILE_MAX 65536
/* Long enough that a loaded machine still answers within it. */
#define SERVE_TIMEOUT_MS 10000
/* For the client that never finishes its request. */
#define SHORT_TIMEOUT_MS 50

static char *label(const char *value)
{
	struct as_text t = AS_TEXT_INIT;
	char *s;

	as_text_puts(&t, "");
	as_metrics_label_value(&t, value);
	s = as_text_take(&t, NULL);
	assert_non_null(s);
	return s;
}

static void expect_label(const char *value, const char *expected)
{
	char *s = label(value);

	assert_string_equal(s, expected);
	free(s);
}

static void label_values_are_escaped(void **state)
{
	(void)state;
	expect_label("web1", "web1");
	expect_label("a\"b", "a\\\"b");
	expect_label("back\\slash", "back\\\\slash");
	expect_label("new\nline", "new\\nline");
	expect_label("caf\xc3\xa9", "caf\xc3\xa9");
	/* Other controls and bytes outside UTF-8 become U+FFFD. */
	expect_label("\x1b[2J\r\t", "\xef\xbf\xbd[2J\xef\xbf\xbd\xef\xbf\xbd");
	expect_label("x\xff\xc0\xaf", "x\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	expect_label("\xc2\x9b", "\xef\xbf\xbd");
}

static const char empty_text[] =
	"# HELP smpalt_autoscaler_up 1 while the autoscaler runs, 0 once it has "
	"stopped.\n"
	"# TYPE smpalt_autoscaler_up gauge\n"
	"smpalt_autoscaler_up 1\n"
	"# HELP smpalt_autoscaler_start_time_seconds Start time of the "
	"autoscaler, Unix time.\n"
	"# TYPE smpalt_autoscaler_start_time_seconds gauge\n"
	"smpalt_autoscaler_start_time_seconds 1796303925\n"
	"# HELP smpalt_autoscaler_domains Domains the autoscaler tracks.\n"
	"# TYPE smpalt_autoscaler_domains gauge\n"
	"smpalt_autoscaler_domains 0\n"
	"# HELP smpalt_autoscaler_config_reloads_total Reloads of the "
	"configuration file (SIGHUP).\n"
	"# TYPE smpalt_autoscaler_config_reloads_total counter\n"
	"smpalt_autoscaler_config_reloads_total 0\n"
	"# HELP smpalt_autoscaler_config_reload_failures_total Reloads "
	"refused for an invalid file (the old one stays).\n"
	"# TYPE smpalt_autoscaler_config_reload_failures_total counter\n"
	"smpalt_autoscaler_config_reload_failures_total 0\n"
	"# HELP smpalt_autoscaler_config_last_reload_successful Whether the "
	"last reload of the configuration succeeded.\n"
	"# TYPE smpalt_autoscaler_config_last_reload_successful gauge\n"
	"smpalt_autoscaler_config_last_reload_successful 1\n"
	"# HELP smpalt_autoscaler_config_last_reload_success_timestamp_seconds"
	" Time of the last successful configuration load, Unix time.\n"
	"# TYPE smpalt_autoscaler_config_last_reload_success_timestamp_seconds"
	" gauge\n"
	"smpalt_autoscaler_config_last_reload_success_timestamp_seconds "
	"1796303925\n";

/* Per-domain families without a sample are left out, HELP and all. */
static void render_without_domains_is_exact(void **state)
{
	struct as_metrics m;
	size_t len;
	char *text;

	(void)state;
	as_metrics_init(&m, START);
	text = as_metrics_render(&m, &len);
	assert_non_null(text);
	assert_string_equal(text, empty_text);
	assert_int_equal(len, strlen(empty_text));
	free(text);
	as_metrics_free(&m);
}

/* Three domains, one named by a hostile administrator. */
static void fill(struct as_metrics *m)
{
	struct as_metrics_domain *d;

	as_metrics_init(m, START);
	d = as_metrics_domain(m, 7, "web\"1\\\n\x1b[2J\xff");
	assert_non_null(d);
	d->has_vcpus = true;
	d->vcpus_online = 4;
	d->vcpus_max = 8;
	d->has_load = true;
	d->load = 250;
	d->source = "guest-capped";
	d->counts.decisions_up = 3;
	d->counts.decisions_down = 2;
	d->counts.failures = 1;
	d->counts.held = 5;
	d->counts.timeouts = 1;
	d->counts.read_errors = 4;
	d = as_metrics_domain(m, 2, "db");
	assert_non_null(d);
	d->has_vcpus = true;
	d->vcpus_online = 1;
	d->vcpus_max = 2;
	d->has_load = true;
	d->load = 5;
	d->source = "xen";
	/* Known, but not sampled yet: counters only. */
	assert_non_null(as_metrics_domain(m, 9, "new"));
	as_metrics_config_reload(m, true, START + 60);
	as_metrics_config_reload(m, false, START + 120);
}

static void render_domains_sorted_by_domid_with_escaped_names(void **state)
{
	struct as_metrics m;
	char *text;

	(void)state;
	fill(&m);
	text = as_metrics_render(&m, NULL);
	assert_non_null(text);
#define WEB "domain=\"web\\\"1\\\\\\n\xef\xbf\xbd[2J\xef\xbf\xbd\",domid=\"7\""
	assert_non_null(strstr(text, "smpalt_autoscaler_domains 3\n"));
	assert_non_null(strstr(
		text, "# TYPE smpalt_autoscaler_domain_vcpus_online gauge\n"
		      "smpalt_autoscaler_domain_vcpus_online{domain=\"db\","
		      "domid=\"2\"} 1\n"
		      "smpalt_autoscaler_domain_vcpus_online{" WEB "} 4\n#"));
	assert_non_null(strstr(text, "smpalt_autoscaler_domain_vcpus_max{" WEB
				     "} 8\n"));
	assert_non_null(strstr(
		text, "# TYPE smpalt_autoscaler_domain_load_vcpus gauge\n"
		      "smpalt_autoscaler_domain_load_vcpus{domain=\"db\","
		      "domid=\"2\",source=\"xen\"} 0.05\n"
		      "smpalt_autoscaler_domain_load_vcpus{" WEB
		      ",source=\"guest-capped\"} 2.50\n#"));
	assert_non_null(strstr(
		text, "smpalt_autoscaler_domain_scale_decisions_total{" WEB
		      ",direction=\"up\"} 3\n"
		      "smpalt_autoscaler_domain_scale_decisions_total{" WEB
		      ",direction=\"down\"} 2\n"
		      "smpalt_autoscaler_domain_scale_decisions_total{"
		      "domain=\"new\",domid=\"9\",direction=\"up\"} 0\n"));
	assert_non_null(strstr(
		text,
		"smpalt_autoscaler_domain_scale_failures_total{" WEB "} 1\n"));
	assert_non_null(
		strstr(text, "smpalt_autoscaler_domain_rate_limited_total{" WEB
			     "} 5\n"));
	assert_non_null(strstr(
		text, "smpalt_autoscaler_domain_backend_timeouts_total{" WEB
		      "} 1\n"));
	assert_non_null(strstr(text,
			       "smpalt_autoscaler_domain_read_errors_total{" WEB
			       "} 4\n"));
	assert_non_null(
		strstr(text, "smpalt_autoscaler_config_reloads_total 2\n"));
	assert_non_null(strstr(
		text, "smpalt_autoscaler_config_reload_failures_total 1\n"));
	assert_non_null(strstr(
		text, "smpalt_autoscaler_config_last_reload_successful 0\n"));
	assert_non_null(strstr(
		text, "smpalt_autoscaler_config_last_reload_success_timestamp_"
		      "seconds 1796303985\n"));
	/* Domain 9 has no vCPU or load series yet. */
	assert_null(strstr(text, "vcpus_online{domain=\"new\""));
	assert_null(strstr(text, "load_vcpus{domain=\"new\""));
#undef WEB
	free(text);
	as_metrics_free(&m);
}

static void forget_drops_a_domain_and_rename_follows(void **state)
{
	struct as_metrics m;
	char *text;

	(void)state;
	fill(&m);
	as_metrics_forget(&m, 7);
	as_metrics_forget(&m, 42); /* unknown: nothing */
	assert_non_null(as_metrics_domain(&m, 2, "db-renamed"));
	text = as_metrics_render(&m, NULL);
	assert_non_null(text);
	assert_non_null(strstr(text, "smpalt_autoscaler_domains 2\n"));
	assert_null(strstr(text, "domid=\"7\""));
	assert_null(strstr(text, "domain=\"db\""));
	assert_non_null(strstr(text, "domain=\"db-renamed\",domid=\"2\""));
	free(text);
	as_metrics_free(&m);
}

/* No cap on the number of domains: many added, all shown, half dropped. */
static void many_domains_in_domid_order(void **state)
{
	enum { MANY = 5000 };
	struct as_metrics m;
	char name[32], *text, *p;
	unsigned int seen = 0, last = 0;

	(void)state;
	as_metrics_init(&m, START);
	/* Added in a scrambled order: 7919 is prime, so i * 7919 % MANY
	 * visits every domid once. */
	for (unsigned int i = 0; i < MANY; i++) {
		unsigned int id = (unsigned int)((i * 7919ULL) % MANY) + 1;

		snprintf(name, sizeof(name), "d%u", id);
		assert_non_null(as_metrics_domain(&m, id, name));
	}
	for (unsigned int id = 2; id <= MANY; id += 2)
		as_metrics_forget(&m, id);
	text = as_metrics_render(&m, NULL);
	assert_non_null(text);
	assert_non_null(strstr(text, "smpalt_autoscaler_domains 2500\n"));
	for (p = text; (p = strstr(p, "_failures_total{domain=\"d")); p++) {
		unsigned int id = (unsigned int)strtoul(p + 25, NULL, 10);

		assert_true(id > last);
		assert_int_equal(id % 2, 1);
		last = id;
		seen++;
	}
	assert_int_equal(seen, MANY / 2);
	free(text);
	as_metrics_free(&m);
}

/*
 * `promtool check metrics` on text: its exit status, its output in out.
 * A promtool that cannot be started fails the test.
 */
static int promtool(const char *text, char *out, size_t outlen)
{
	char *argv[] = {PROMTOOL_BIN, "check", "metrics", NULL};
	char tmpl[] = "/tmp/autoscale_metrics_test.XXXXXX";
	posix_spawn_file_actions_t fa;
	int in[2], ofd, status, err;
	ssize_t n;
	pid_t pid;

	ofd = mkostemp(tmpl, O_CLOEXEC);
	assert_true(ofd >= 0);
	unlink(tmpl);
	assert_int_equal(pipe2(in, O_CLOEXEC), 0);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, ofd, 1);
	posix_spawn_file_actions_adddup2(&fa, ofd, 2);
	err = posix_spawn(&pid, PROMTOOL_BIN, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(in[0]);
	if (err)
		fail_msg("cannot run %s: %s (scripts/build/fetch-promtool.sh "
			 "unpacks it from Debian's prometheus package)",
			 PROMTOOL_BIN, strerror(err));
	assert_int_equal(write(in[1], text, strlen(text)),
			 (ssize_t)strlen(text));
	close(in[1]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	n = pread(ofd, out, outlen - 1, 0);
	out[n > 0 ? n : 0] = '\0';
	close(ofd);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void promtool_accepts_the_text_with_hostile_names(void **state)
{
	struct as_metrics m;
	char out[4096], *text;

	(void)state;
	fill(&m);
	assert_non_null(as_metrics_domain(&m, 11, "\"} 1\nfake_metric 1\n"));
	assert_non_null(as_metrics_domain(&m, 12, "\\\\\\"));
	text = as_metrics_render(&m, NULL);
	assert_non_null(text);
	if (promtool(text, out, sizeof(out)) != 0)
		fail_msg("promtool check metrics: %s", out);
	free(text);
	as_metrics_free(&m);
}

static void promtool_refuses_a_broken_text(void **state)
{
	char out[4096];

	(void)state;
	/* The checker is in force: a raw quote, a counter without _total. */
	assert_int_not_equal(
		promtool("# TYPE x gauge\nx{a=\"\"\"} 1\n", out, sizeof(out)),
		0);
	assert_int_not_equal(promtool("# HELP y Y.\n# TYPE y counter\ny 1\n",
				      out, sizeof(out)),
			     0);
}

static int make_dir(void **state)
{
	char *dir = strdup("/tmp/autoscale_metrics_test.XXXXXX");

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

/* The names in dir, sorted, space-separated. */
static void list_dir(const char *dir, char *buf, size_t len)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort);

	assert_true(n >= 0);
	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (strcmp(ents[i]->d_name, ".") &&
		    strcmp(ents[i]->d_name, "..")) {
			strncat(buf, ents[i]->d_name, len - strlen(buf) - 2);
			strcat(buf, " ");
		}
		free(ents[i]);
	}
	free(ents);
}

/*
 * The program's fsync(2), counted: this definition takes the place of the
 * C library's for the code linked into the test (autoscale_metrics.c).
 */
static unsigned int fsyncs;

int fsync(int fd)
{
	(void)fd;
	fsyncs++;
	return 0;
}

/* Rewritten every period: renamed into place, never fsync'd. */
static void textfile_is_written_without_fsync(void **state)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/smpalt.prom", (char *)*state);
	fsyncs = 0;
	assert_int_equal(as_metrics_write_file(path, "a 1\n", 4), 0);
	assert_int_equal(as_metrics_write_file(path, "a 2\n", 4), 0);
	assert_int_equal(fsyncs, 0);
}

static void textfile_is_replaced_whole_with_mode_0644(void **state)
{
	char path[PATH_MAX], buf[FILE_MAX], names[256];
	struct stat st;
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/smpalt.prom", (char *)*state);
	assert_int_equal(as_metrics_write_file(path, "a 1\n", 4), 0);
	/* A reader holding the old file keeps reading the old text. */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(as_metrics_write_file(path, "a 2\nb 3\n", 8), 0);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	assert_int_equal(n, 4);
	close(fd);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
	assert_string_equal(buf, "a 2\nb 3\n");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, AS_METRICS_FILE_MODE);
	/* No temporary file left beside it. */
	list_dir(*state, names, sizeof(names));
	assert_string_equal(names, "smpalt.prom ");
}

static void textfile_error_leaves_no_temporary_file(void **state)
{
	char path[PATH_MAX], names[256];

	/* The target is a directory: the rename fails. */
	snprintf(path, sizeof(path), "%s/busy.prom", (char *)*state);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(as_metrics_write_file(path, "a 1\n", 4), -EISDIR);
	list_dir(*state, names, sizeof(names));
	assert_string_equal(names, "busy.prom ");
	snprintf(path, sizeof(path), "%s/no/such/dir.prom", (char *)*state);
	assert_int_equal(as_metrics_write_file(path, "a 1\n", 4), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(label_values_are_escaped),
		cmocka_unit_test(render_without_domains_is_exact),
		cmocka_unit_test(
			render_domains_sorted_by_domid_with_escaped_names),
		cmocka_unit_test(forget_drops_a_domain_and_rename_follows),
		cmocka_unit_test(many_domains_in_domid_order),
		cmocka_unit_test(promtool_accepts_the_text_with_hostile_names),
		cmocka_unit_test(promtool_refuses_a_broken_text),
		cmocka_unit_test_setup_teardown(
			textfile_is_replaced_whole_with_mode_0644, make_dir,
			remove_dir),
		cmocka_unit_test_setup_teardown(
			textfile_error_leaves_no_temporary_file, make_dir,
			remove_dir),
		cmocka_unit_test_setup_teardown(
			textfile_is_written_without_fsync, make_dir,
			remove_dir),
	};

	return cmocka_run_group_tests_name("autoscale_metrics", tests, NULL,
					   NULL);
}
