// SPDX-License-Identifier: MIT
/*
 * Host tests of the settings table (tools/autoscale_settings.c): for every
 * setting, the command line (the real program, AUTOSCALER_BIN, with
 * --check-config) and the configuration file (as_conf_parse) accept its
 * minimum and its maximum and refuse one step beyond each, alike.  A step
 * is 1, or 1 ms for seconds.
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
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "autoscale_config.h"
#include "autoscale_settings.h"

#ifndef AUTOSCALER_BIN
#error "AUTOSCALER_BIN: the program (mk/tools.mk)"
#endif

#define VALUE_LEN 32
#define TEXT_LEN 256
#define EXIT_USAGE 2
#define MS_PER_SEC 1000

static const struct as_settings base = {
	.set = AS_CONF_ALL,
	.high_pct = 80,
	.low_pct = 40,
	.hold_up_ms = 3000,
	.hold_down_ms = 3000,
	.period_ms = 1000,
	.min_vcpus = 1,
	.cooldown_ms = 5000,
	.rate_limit = 12,
	.rate_window_ms = 600000,
	.signal = AS_SIGNAL_AUTO,
};

static char empty_conf[] = "/tmp/smpalt-settings-XXXXXX";

/*
 * The other setting a value needs to be valid as a whole: low must stay
 * below high, whatever the one tested.  NULL: none.
 */
static const char *companion_key(const struct as_setting *st)
{
	if (!strcmp(st->key, "high"))
		return "low";
	if (!strcmp(st->key, "low"))
		return "high";
	return NULL;
}

static const char *companion_value(const struct as_setting *st)
{
	return !strcmp(st->key, "high") ? "0" : "100";
}

/* The value v of st as text: whole, or seconds with three decimals. */
static void value_text(const struct as_setting *st, uint64_t v, char *buf)
{
	if (st->type == AS_SETTING_SECONDS)
		snprintf(buf, VALUE_LEN, "%llu.%03llu",
			 (unsigned long long)(v / MS_PER_SEC),
			 (unsigned long long)(v % MS_PER_SEC));
	else
		snprintf(buf, VALUE_LEN, "%llu", (unsigned long long)v);
}

static void ignore(void *ctx, const char *msg)
{
	(void)ctx;
	(void)msg;
}

/* Does the configuration file take "key = value" in [defaults]? */
static bool file_accepts(const struct as_setting *st, const char *value)
{
	const char *ck = companion_key(st);
	char text[TEXT_LEN];
	struct as_conf *conf = NULL;
	int rc;

	snprintf(text, sizeof(text), "[defaults]\n%s = %s\n%s%s%s%s", st->key,
		 value, ck ? ck : "", ck ? " = " : "",
		 ck ? companion_value(st) : "", ck ? "\n" : "");
	rc = as_conf_parse("t.conf", text, strlen(text), &base, NULL, &conf,
			   ignore, NULL);
	as_conf_free(conf);
	assert_true(rc == 0 || rc == -EINVAL);
	return rc == 0;
}

/* Does the command line take --option=value?  The program checks an
 * empty configuration file under it: 0 yes, EXIT_USAGE no. */
static bool cli_accepts(const struct as_setting *st, const char *value)
{
	const char *ck = companion_key(st);
	char arg[TEXT_LEN], carg[TEXT_LEN];
	int status;
	pid_t pid;

	snprintf(arg, sizeof(arg), "--%s=%s", st->option, value);
	if (ck)
		snprintf(carg, sizeof(carg), "--%s=%s", ck,
			 companion_value(st));
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		if (ck)
			execl(AUTOSCALER_BIN, AUTOSCALER_BIN, arg, carg,
			      "--check-config", empty_conf, (char *)NULL);
		else
			execl(AUTOSCALER_BIN, AUTOSCALER_BIN, arg,
			      "--check-config", empty_conf, (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != EXIT_USAGE)
		fail_msg("%s: exit status %d", arg, WEXITSTATUS(status));
	return WEXITSTATUS(status) == 0;
}

/* Both parsers say want about value. */
static void both(const struct as_setting *st, const char *value, bool want)
{
	bool file = file_accepts(st, value), cli = cli_accepts(st, value);

	if (file != want || cli != want)
		fail_msg("%s = %s: file %s, command line %s, wanted %s",
			 st->key, value, file ? "accepts" : "refuses",
			 cli ? "accepts" : "refuses",
			 want ? "accepted" : "refused");
}

static void every_setting_has_one_range_for_both_parsers(void **state)
{
	const struct as_setting *st;
	char v[VALUE_LEN];
	unsigned int walked = 0;

	(void)state;
	for (st = as_settings_table; st->key; st++, walked++) {
		assert_non_null(st->option);
		if (st->type == AS_SETTING_SIGNAL) {
			both(st, "auto", true);
			both(st, "guest", true);
			both(st, "xen", true);
			both(st, "none", false);
			continue;
		}
		assert_true(st->min <= st->max);
		value_text(st, st->min, v);
		both(st, v, true);
		value_text(st, st->max, v);
		both(st, v, true);
		if (st->min > 0) {
			value_text(st, st->min - 1, v);
			both(st, v, false);
		}
		value_text(st, st->max + 1, v);
		both(st, v, false);
		both(st, "-1", false);
		both(st, "x", false);
	}
	/* high, low, hold, hold-up, hold-down, period, min, max, cooldown,
	 * rate-limit, rate-window, signal. */
	assert_int_equal(walked, 12);
}

static int make_empty_conf(void **state)
{
	int fd = mkstemp(empty_conf);

	(void)state;
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int remove_empty_conf(void **state)
{
	(void)state;
	unlink(empty_conf);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_setting_has_one_range_for_both_parsers),
	};

	return cmocka_run_group_tests_name("autoscale_settings", tests,
					   make_empty_conf, remove_empty_conf);
}
