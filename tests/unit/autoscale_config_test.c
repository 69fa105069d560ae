// SPDX-License-Identifier: MIT
/*
 * Host tests of the autoscaler's configuration file
 * (tools/autoscale_config.c): the settings each domain gets (exclusions,
 * exact names over globs, the first matching glob, the command line
 * between [defaults] and [domain]), every error named by file, line and
 * key, strict globs, a reload that keeps the old configuration when the
 * new file is bad, and --check-config's output.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "autoscale_config.h"
#include "autoscale_glob.h"

#define ERRS_MAX 8192
#define GLOB_ERR 160

/* The program's built-in values, as the daemon would pass them. */
static const struct as_settings base = {
	.set = AS_CONF_ALL,
	.high_pct = 80,
	.low_pct = 40,
	.hold_up_ms = 3000,
	.hold_down_ms = 3000,
	.period_ms = 1000,
	.min_vcpus = 1,
	.max_vcpus = 0,
	.cooldown_ms = 10000,
	.rate_limit = 0,
	.rate_window_ms = 3600000,
	.signal = AS_SIGNAL_AUTO,
};

static char errs[ERRS_MAX];

static void collect(void *ctx, const char *msg)
{
	(void)ctx;
	strncat(errs, msg, sizeof(errs) - strlen(errs) - 2);
	strcat(errs, "\n");
}

static int parse(const char *text, const struct as_settings *cli,
		 struct as_conf **c)
{
	errs[0] = '\0';
	*c = NULL;
	return as_conf_parse("a.conf", text, strlen(text), &base, cli, c,
			     collect, NULL);
}

/* Parse text that must be valid. */
static struct as_conf *good(const char *text, const struct as_settings *cli)
{
	struct as_conf *c;

	if (parse(text, cli, &c) != 0)
		fail_msg("unexpected errors:\n%s", errs);
	assert_string_equal(errs, "");
	return c;
}

/* Parse text that must be refused with exactly these errors. */
static void bad(const char *text, const char *expected)
{
	struct as_conf *c;

	assert_int_equal(parse(text, NULL, &c), -EINVAL);
	assert_null(c);
	assert_string_equal(errs, expected);
}

static const char sample[] = "# smpalt-autoscaler\n"
			     "[defaults]\n"
			     "high = 75\n"
			     "low = 30 ; inline comment\n"
			     "hold = 2.5\n"
			     "period = 0.5\n"
			     "cooldown = 30\n"
			     "rate-limit = 6\n"
			     "rate-window = 600\n"
			     "signal = xen\n"
			     "exclude = test-*\n"
			     "exclude = backup\n"
			     "\n"
			     "[domain \"web*\"]\n"
			     "high = 60\n"
			     "max = 8\n"
			     "[domain \"w*\"]\n"
			     "low = 10\n"
			     "[domain \"web1\"]\n"
			     "max = 2\n"
			     "hold-down = 60\n"
			     "[domain \"db[0-9]\"]\n"
			     "signal = guest\n";

static void domain_without_section_gets_the_defaults(void **state)
{
	struct as_conf *c = good(sample, NULL);
	struct as_conf_domain r;

	(void)state;
	as_conf_resolve(c, "mail", &r);
	assert_false(r.excluded);
	assert_null(r.pattern);
	assert_int_equal(r.s.set, AS_CONF_ALL);
	assert_int_equal(r.s.high_pct, 75);
	assert_int_equal(r.s.low_pct, 30);
	assert_int_equal(r.s.hold_up_ms, 2500);
	assert_int_equal(r.s.hold_down_ms, 2500);
	assert_int_equal(r.s.period_ms, 500);
	assert_int_equal(r.s.min_vcpus, 1);
	assert_int_equal(r.s.max_vcpus, 0);
	assert_int_equal(r.s.cooldown_ms, 30000);
	assert_int_equal(r.s.rate_limit, 6);
	assert_int_equal(r.s.rate_window_ms, 600000);
	assert_int_equal(r.s.signal, AS_SIGNAL_XEN);
	as_conf_free(c);
}

static void exact_name_beats_every_glob(void **state)
{
	struct as_conf *c = good(sample, NULL);
	struct as_conf_domain r;

	(void)state;
	/* web1 matches web* and w* (earlier in the file) too. */
	as_conf_resolve(c, "web1", &r);
	assert_string_equal(r.pattern, "web1");
	assert_int_equal(r.line, 19);
	assert_int_equal(r.s.max_vcpus, 2);
	assert_int_equal(r.s.hold_down_ms, 60000);
	/* Not from web*: one section only, the rest from [defaults]. */
	assert_int_equal(r.s.high_pct, 75);
	assert_int_equal(r.s.hold_up_ms, 2500);
	as_conf_free(c);
}

static void first_matching_glob_wins(void **state)
{
	struct as_conf *c = good(sample, NULL);
	struct as_conf_domain r;

	(void)state;
	as_conf_resolve(c, "web2", &r);
	assert_string_equal(r.pattern, "web*");
	assert_int_equal(r.line, 14);
	assert_int_equal(r.s.high_pct, 60);
	assert_int_equal(r.s.max_vcpus, 8);
	/* w* matches too, but comes later: its low is not used. */
	assert_int_equal(r.s.low_pct, 30);
	as_conf_resolve(c, "wiki", &r);
	assert_string_equal(r.pattern, "w*");
	assert_int_equal(r.s.low_pct, 10);
	assert_int_equal(r.s.high_pct, 75);
	/* A bracket in a section name. */
	as_conf_resolve(c, "db3", &r);
	assert_string_equal(r.pattern, "db[0-9]");
	assert_int_equal(r.s.signal, AS_SIGNAL_GUEST);
	as_conf_resolve(c, "dbx", &r);
	assert_null(r.pattern);
	as_conf_free(c);
}

static void exclusion_beats_every_section(void **state)
{
	struct as_conf *c = good("[defaults]\n"
				 "exclude = web1\n"
				 "exclude = *-test\n"
				 "[domain \"web1\"]\n"
				 "max = 2\n",
				 NULL);
	struct as_conf_domain r;

	(void)state;
	as_conf_resolve(c, "web1", &r);
	assert_true(r.excluded);
	assert_string_equal(r.exclude, "web1");
	assert_int_equal(r.line, 2);
	as_conf_resolve(c, "db-test", &r);
	assert_true(r.excluded);
	assert_string_equal(r.exclude, "*-test");
	as_conf_resolve(c, "web10", &r);
	assert_false(r.excluded);
	as_conf_free(c);
}

static void command_line_beats_defaults_not_domain_sections(void **state)
{
	const struct as_settings cli = {
		.set = AS_CONF_BIT(AS_CONF_HIGH) | AS_CONF_BIT(AS_CONF_MAX),
		.high_pct = 90,
		.max_vcpus = 4,
	};
	struct as_conf *c = good(sample, &cli);
	struct as_conf_domain r;

	(void)state;
	as_conf_resolve(c, "mail", &r);
	assert_int_equal(r.s.high_pct, 90);
	assert_int_equal(r.s.max_vcpus, 4);
	assert_int_equal(r.s.low_pct, 30);
	as_conf_resolve(c, "web2", &r);
	assert_int_equal(r.s.high_pct, 60);
	assert_int_equal(r.s.max_vcpus, 8);
	as_conf_resolve(c, "web1", &r);
	assert_int_equal(r.s.high_pct, 90);
	assert_int_equal(r.s.max_vcpus, 2);
	as_conf_free(c);
}

static void empty_file_is_base_and_command_line(void **state)
{
	const struct as_settings cli = {
		.set = AS_CONF_BIT(AS_CONF_LOW),
		.low_pct = 20,
	};
	struct as_conf *c = good("", &cli);
	struct as_conf_domain r;

	(void)state;
	as_conf_resolve(c, "anything", &r);
	assert_false(r.excluded);
	assert_int_equal(r.s.high_pct, 80);
	assert_int_equal(r.s.low_pct, 20);
	as_conf_free(c);
}

static void bom_comments_colon_and_long_patterns(void **state)
{
	static const char text[] =
		"\xef\xbb\xbf; comment\n"
		"# another\n"
		"[defaults] # after the header\n"
		"high: 70\n"
		"[domain \"a-very-long-domain-name-pattern-beyond-fifty-"
		"characters-*\"]\r\n"
		"max = 3\r\n";
	struct as_conf *c = good(text, NULL);
	struct as_conf_domain r;

	(void)state;
	as_conf_resolve(c, "x", &r);
	assert_int_equal(r.s.high_pct, 70);
	as_conf_resolve(c,
			"a-very-long-domain-name-pattern-beyond-fifty-"
			"characters-1",
			&r);
	assert_int_equal(r.s.max_vcpus, 3);
	as_conf_free(c);
}

static void unknown_keys_and_sections_are_errors(void **state)
{
	(void)state;
	bad("[defaults]\nhihg = 80\n",
	    "a.conf:2: [defaults] hihg: unknown key\n");
	bad("[global]\nhigh = 80\n[defaults]\nfoo = 1\n",
	    "a.conf:1: unknown section [global] (expected [defaults] or "
	    "[domain \"PATTERN\"])\n"
	    "a.conf:4: [defaults] foo: unknown key\n");
	bad("[domain web*]\n",
	    "a.conf:1: [domain web*]: expected [domain \"PATTERN\"]\n");
	bad("high = 80\n", "a.conf:1: high: outside a section (put it under "
			   "[defaults] or [domain \"PATTERN\"])\n");
	bad("[defaults] x\n", "a.conf:1: text after the section header: x\n");
	bad("[defaults]\n  [domain \"a\"]\n",
	    "a.conf:2: a section header must start in the first column\n");
}

static void bad_numbers_name_line_key_and_range(void **state)
{
	(void)state;
	bad("[defaults]\nhigh = 8O\n",
	    "a.conf:2: [defaults] high = \"8O\": expected a whole percent, "
	    "1..100\n");
	bad("[defaults]\nhigh = 101\nlow = -1\n",
	    "a.conf:2: [defaults] high = \"101\": expected a whole percent, "
	    "1..100\n"
	    "a.conf:3: [defaults] low = \"-1\": expected a whole percent, "
	    "0..99\n");
	bad("[domain \"x\"]\nmax = 99999999999999999999999\n",
	    "a.conf:2: [domain \"x\"] max = \"99999999999999999999999\": "
	    "expected a whole number of vCPUs, 1..8192\n");
	bad("[defaults]\nhold = 3s\ncooldown = 1.2345\nperiod = 0.001\n",
	    "a.conf:2: [defaults] hold = \"3s\": expected seconds, "
	    "0..86400 (decimals: 2.5)\n"
	    "a.conf:3: [defaults] cooldown = \"1.2345\": expected seconds, "
	    "0..86400 (decimals: 2.5)\n"
	    "a.conf:4: [defaults] period = \"0.001\": expected seconds, "
	    "0.01..3600 (decimals: 2.5)\n");
	bad("[defaults]\nsignal = trust-me\n",
	    "a.conf:2: [defaults] signal = \"trust-me\": expected auto, guest "
	    "or xen\n");
	bad("[defaults]\nhigh =\n", "a.conf:2: [defaults] high: empty value\n");
}

static void high_must_be_above_low_wherever_they_come_from(void **state)
{
	const struct as_settings cli = {
		.set = AS_CONF_BIT(AS_CONF_HIGH),
		.high_pct = 30,
	};
	struct as_conf *c;

	(void)state;
	bad("[defaults]\nhigh = 50\nlow = 50\n",
	    "a.conf:1: [defaults]: low 50 (line 3) must be below high 50 "
	    "(line 2)\n");
	/* A section's low over the defaults' high. */
	bad("[defaults]\nhigh = 70\n[domain \"web*\"]\nlow = 75\n",
	    "a.conf:3: [domain \"web*\"]: low 75 (line 4) must be below high "
	    "70 (line 2)\n");
	bad("[domain \"x\"]\nmin = 4\nmax = 2\n",
	    "a.conf:1: [domain \"x\"]: min 4 (line 2) must be at most max 2 "
	    "(line 3)\n");
	/* The command line's high against the built-in low. */
	assert_int_equal(parse("", &cli, &c), -EINVAL);
	assert_string_equal(errs, "a.conf: [defaults]: low 40 (built-in) "
				  "must be below high 30 (command line)\n");
}

static void bad_globs_are_errors_not_empty_matches(void **state)
{
	(void)state;
	bad("[domain \"web[\"]\n",
	    "a.conf:1: [domain \"web[\"]: bad pattern: '[' at column 4 has no "
	    "closing ']'\n");
	bad("[domain \"web\\\"]\n",
	    "a.conf:1: [domain \"web\\\"]: bad pattern: a lone '\\' at the end "
	    "(write '\\\\' for a backslash)\n");
	bad("[domain \"[[:digt:]]*\"]\n",
	    "a.conf:1: [domain \"[[:digt:]]*\"]: bad pattern: unknown "
	    "character class '[:digt:]' at column 2\n");
	bad("[domain \"db[9-0]\"]\n",
	    "a.conf:1: [domain \"db[9-0]\"]: bad pattern: range '9-0' at "
	    "column 4 is empty (reversed)\n");
	bad("[domain \"\"]\n",
	    "a.conf:1: [domain \"\"]: bad pattern: empty pattern\n");
	bad("[defaults]\nexclude = test-[ab\n",
	    "a.conf:2: [defaults] exclude = \"test-[ab\": '[' at column 6 has "
	    "no closing ']'\n");
}

static void glob_check_accepts_what_fnmatch_reads(void **state)
{
	static const char *const ok[] = {
		"web*",
		"web?",
		"web[0-9]",
		"[!a-c]x",
		"[^a]",
		"[]]",
		"[]a]",
		"[a-]",
		"a\\*",
		"\\[",
		"[\\]]",
		"[[:alpha:]]*",
		"[[:digit:][:upper:]]",
		"x[[.a.]]",
		"x[[=a=]]",
		"*",
		"exact-name",
	};
	static const char *const no[] = {
		"",    "[",	  "a[b",	"[]",	 "[!]",	     "\\",
		"a\\", "[[:x:]]", "[[:alpha:]", "[z-a]", "[[.ab.]]", "[a\\",
	};
	char err[GLOB_ERR];

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (as_glob_check(ok[i], err, sizeof(err)) != 0)
			fail_msg("\"%s\" refused: %s", ok[i], err);
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (as_glob_check(no[i], err, sizeof(err)) != -EINVAL)
			fail_msg("\"%s\" accepted", no[i]);
}

static void keys_given_twice_and_misplaced(void **state)
{
	(void)state;
	bad("[defaults]\nhigh = 80\nhigh = 90\n",
	    "a.conf:3: [defaults] high: given twice (first on line 2)\n");
	bad("[defaults]\nhold-up = 1\nhold = 2\n",
	    "a.conf:3: [defaults] hold-up: given twice (first on line 2)\n");
	/* inih reads an indented line as the value's continuation. */
	bad("[defaults]\nhigh = 80\n  90\n",
	    "a.conf:3: [defaults] high: given twice (first on line 2; an "
	    "indented line continues the value above)\n");
	bad("[defaults]\n[defaults]\n",
	    "a.conf:2: [defaults] given twice (first on line 1)\n");
	bad("[domain \"a*\"]\n[domain \"a*\"]\n",
	    "a.conf:2: [domain \"a*\"] given twice (first on line 1)\n");
	bad("[domain \"a*\"]\nperiod = 2\nexclude = b\n",
	    "a.conf:2: [domain \"a*\"] period: only in [defaults] (it "
	    "applies to all domains)\n"
	    "a.conf:3: [domain \"a*\"] exclude: only in [defaults] (it "
	    "applies to all domains)\n");
}

static void syntax_errors_and_odd_files(void **state)
{
	char line[512];

	(void)state;
	bad("[defaults]\nhigh 80\n",
	    "a.conf:2: syntax error (expected [SECTION], KEY = VALUE or a "
	    "comment; the first such line)\n");
	bad("[defaults\n", "a.conf:1: syntax error (expected [SECTION], KEY = "
			   "VALUE or a comment; the first such line)\n");
	memset(line, 'a', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	{
		char text[600];
		struct as_conf *c;

		snprintf(text, sizeof(text), "[defaults]\n# %s\n", line);
		assert_int_equal(parse(text, NULL, &c), -EINVAL);
		assert_non_null(strstr(errs, "a.conf:2: line longer than "));
	}
	{
		static const char text[] = "[defaults]\nhigh = 8\0"
					   "0\n";
		struct as_conf *c;

		errs[0] = '\0';
		assert_int_equal(as_conf_parse("a.conf", text, sizeof(text) - 1,
					       &base, NULL, &c, collect, NULL),
				 -EINVAL);
		assert_string_equal(errs, "a.conf:2: a NUL byte (not a text "
					  "file?)\n");
	}
}

/* The shipped example, as is (all commented) and with its examples on. */
static void shipped_example_is_valid_as_is_and_uncommented(void **state)
{
	char *text = NULL, *on, *line, *save = NULL;
	size_t len = 0;
	struct as_conf *c;
	struct as_conf_domain r;
	FILE *f = fopen(EXAMPLE_CONF, "re");

	(void)state;
	assert_non_null(f);
	assert_true(getdelim(&text, &len, '\0', f) > 0);
	fclose(f);
	c = good(text, NULL);
	as_conf_resolve(c, "web1", &r);
	assert_null(r.pattern);
	as_conf_free(c);
	/* "#x" and "#[" lines are examples; "# " lines are prose. */
	on = calloc(1, strlen(text) + 1);
	assert_non_null(on);
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#' &&
		    (line[1] == '[' || (line[1] >= 'a' && line[1] <= 'z')))
			line++;
		strcat(on, line);
		strcat(on, "\n");
	}
	c = good(on, NULL);
	as_conf_resolve(c, "web1", &r);
	assert_string_equal(r.pattern, "web*");
	assert_int_equal(r.s.high_pct, 70);
	assert_int_equal(r.s.max_vcpus, 4);
	assert_int_equal(r.s.low_pct, 40);
	as_conf_resolve(c, "db1", &r);
	assert_int_equal(r.s.min_vcpus, 2);
	assert_int_equal(r.s.hold_down_ms, 60000);
	as_conf_resolve(c, "test-7", &r);
	assert_true(r.excluded);
	as_conf_free(c);
	free(on);
	free(text);
}

/* Files. */

static int make_dir(void **state)
{
	char *dir = strdup("/tmp/autoscale_config_test.XXXXXX");

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

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static void reload_swaps_only_a_valid_file(void **state)
{
	char path[PATH_MAX];
	struct as_conf *c = NULL, *before;
	struct as_conf_domain r;

	snprintf(path, sizeof(path), "%s/autoscaler.conf", (char *)*state);
	/* No file yet: -ENOENT, not reported, nothing loaded. */
	errs[0] = '\0';
	assert_int_equal(as_conf_reload(&c, path, &base, NULL, collect, NULL),
			 -ENOENT);
	assert_null(c);
	assert_string_equal(errs, "");
	write_text(path, "[defaults]\nhigh = 70\n");
	assert_int_equal(as_conf_reload(&c, path, &base, NULL, collect, NULL),
			 0);
	assert_non_null(c);
	before = c;
	/* An edit with a mistake: the old configuration stays. */
	write_text(path, "[defaults]\nhigh = 60\nlow = 65\n");
	assert_int_equal(as_conf_reload(&c, path, &base, NULL, collect, NULL),
			 -EINVAL);
	assert_ptr_equal(c, before);
	assert_non_null(strstr(errs, "autoscaler.conf:1: [defaults]: low 65 "
				     "(line 3) must be below high 60 (line "
				     "2)\n"));
	as_conf_resolve(c, "x", &r);
	assert_int_equal(r.s.high_pct, 70);
	/* Fixed: swapped in. */
	write_text(path, "[defaults]\nhigh = 60\n");
	assert_int_equal(as_conf_reload(&c, path, &base, NULL, collect, NULL),
			 0);
	as_conf_resolve(c, "x", &r);
	assert_int_equal(r.s.high_pct, 60);
	/* Removed: kept. */
	assert_int_equal(unlink(path), 0);
	before = c;
	assert_int_equal(as_conf_reload(&c, path, &base, NULL, collect, NULL),
			 -ENOENT);
	assert_ptr_equal(c, before);
	as_conf_free(c);
}

static void load_refuses_a_directory(void **state)
{
	struct as_conf *c = NULL;

	errs[0] = '\0';
	assert_int_equal(as_conf_load(*state, &base, NULL, &c, collect, NULL),
			 -EINVAL);
	assert_null(c);
	assert_non_null(strstr(errs, ": cannot read: not a regular file\n"));
}

/* as_conf_check's output and status. */
static int check(const char *path, char *out, size_t len)
{
	FILE *f = fmemopen(out, len, "w");
	int status;

	assert_non_null(f);
	status = as_conf_check(path, &base, NULL, f);
	fclose(f);
	return status;
}

static void check_config_prints_errors_and_status(void **state)
{
	char path[PATH_MAX], out[ERRS_MAX], expected[4 * PATH_MAX];

	snprintf(path, sizeof(path), "%s/autoscaler.conf", (char *)*state);
	write_text(path, sample);
	assert_int_equal(check(path, out, sizeof(out)), 0);
	snprintf(expected, sizeof(expected), "%s: OK\n", path);
	assert_string_equal(out, expected);
	write_text(path, "[defaults]\nhigh = x\n[domain \"a[\"]\n");
	assert_int_equal(check(path, out, sizeof(out)), 1);
	snprintf(expected, sizeof(expected),
		 "%s:2: [defaults] high = \"x\": expected a whole percent, "
		 "1..100\n"
		 "%s:3: [domain \"a[\"]: bad pattern: '[' at column 2 has no "
		 "closing ']'\n"
		 "%s: 2 errors\n",
		 path, path, path);
	assert_string_equal(out, expected);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(check(path, out, sizeof(out)), 1);
	snprintf(expected, sizeof(expected),
		 "%s: cannot read: No such file or directory\n", path);
	assert_string_equal(out, expected);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(domain_without_section_gets_the_defaults),
		cmocka_unit_test(exact_name_beats_every_glob),
		cmocka_unit_test(first_matching_glob_wins),
		cmocka_unit_test(exclusion_beats_every_section),
		cmocka_unit_test(
			command_line_beats_defaults_not_domain_sections),
		cmocka_unit_test(empty_file_is_base_and_command_line),
		cmocka_unit_test(bom_comments_colon_and_long_patterns),
		cmocka_unit_test(unknown_keys_and_sections_are_errors),
		cmocka_unit_test(bad_numbers_name_line_key_and_range),
		cmocka_unit_test(
			high_must_be_above_low_wherever_they_come_from),
		cmocka_unit_test(bad_globs_are_errors_not_empty_matches),
		cmocka_unit_test(glob_check_accepts_what_fnmatch_reads),
		cmocka_unit_test(keys_given_twice_and_misplaced),
		cmocka_unit_test(syntax_errors_and_odd_files),
		cmocka_unit_test(
			shipped_example_is_valid_as_is_and_uncommented),
		cmocka_unit_test_setup_teardown(reload_swaps_only_a_valid_file,
						make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(load_refuses_a_directory,
						make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(
			check_config_prints_errors_and_status, make_dir,
			remove_dir),
	};

	return cmocka_run_group_tests_name("autoscale_config", tests, NULL,
					   NULL);
}
