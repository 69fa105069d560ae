// SPDX-License-Identifier: MIT
/*
 * Host tests of the autoscaler's domain selection
 * (tools/autoscale_select.c): domids, names, globs, --all, and dom0 left
 * out unless named exactly.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "autoscale_select.h"

static void domid_spec_takes_that_domid_only(void **state)
{
	(void)state;
	assert_true(as_spec_matches("7", "web", 7));
	assert_true(as_spec_matches("7", NULL, 7)); /* no name yet */
	assert_false(as_spec_matches("7", "7", 8)); /* a domid, not a name */
	assert_false(as_spec_matches("70", "web", 7));
	assert_true(as_spec_matches("0", "Domain-0", 0));
	/* Beyond Xen's domids: a name. */
	assert_true(as_spec_matches("99999", "99999", 3));
}

static void name_spec_takes_the_whole_name(void **state)
{
	(void)state;
	assert_true(as_spec_matches("web", "web", 3));
	assert_false(as_spec_matches("web", "web-1", 3));
	assert_false(as_spec_matches("web", NULL, 3));
	assert_true(as_spec_matches("Domain-0", "Domain-0", 0));
}

static void glob_spec_is_fnmatch_on_the_name(void **state)
{
	(void)state;
	assert_true(as_spec_matches("web-*", "web-1", 3));
	assert_true(as_spec_matches("web-*", "web-", 3));
	assert_false(as_spec_matches("web-*", "db-1", 3));
	assert_true(as_spec_matches("db[12]", "db2", 4));
	assert_false(as_spec_matches("db[12]", "db3", 4));
	assert_true(as_spec_matches("g?est", "guest", 4));
	assert_false(as_spec_matches("*", NULL, 4));
	assert_true(as_spec_is_glob("a*"));
	assert_true(as_spec_is_glob("a?"));
	assert_true(as_spec_is_glob("[ab]"));
	assert_false(as_spec_is_glob("web-1"));
}

static void glob_and_all_never_take_dom0(void **state)
{
	static const char *const star[] = {"*"};

	(void)state;
	assert_false(as_spec_matches("*", "Domain-0", 0));
	assert_false(as_spec_matches("Domain-*", "Domain-0", 0));
	assert_false(as_domain_selected(true, NULL, 0, "Domain-0", 0));
	assert_false(as_domain_selected(true, star, 1, "Domain-0", 0));
	assert_true(as_domain_selected(true, NULL, 0, "guest", 1));
	assert_true(as_domain_selected(true, NULL, 0, NULL, 9));
}

static void any_spec_selects(void **state)
{
	static const char *const specs[] = {"web-*", "db", "12"};

	(void)state;
	assert_true(as_domain_selected(false, specs, 3, "web-a", 5));
	assert_true(as_domain_selected(false, specs, 3, "db", 6));
	assert_true(as_domain_selected(false, specs, 3, "cache", 12));
	assert_false(as_domain_selected(false, specs, 3, "cache", 13));
	assert_false(as_domain_selected(false, specs, 0, "db", 6));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(domid_spec_takes_that_domid_only),
		cmocka_unit_test(name_spec_takes_the_whole_name),
		cmocka_unit_test(glob_spec_is_fnmatch_on_the_name),
		cmocka_unit_test(glob_and_all_never_take_dom0),
		cmocka_unit_test(any_spec_selects),
	};

	return cmocka_run_group_tests_name("autoscale_select", tests, NULL,
					   NULL);
}
