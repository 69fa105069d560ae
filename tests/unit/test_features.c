// SPDX-License-Identifier: MIT
/*
 * test_features.c - CPU-feature alternatives: applied once, only where
 * the caller's predicate says the feature is present.
 */
#include <stdlib.h>
#include <string.h>

#include "alt_host.h"
#include "alt_test.h"
#include "workload.h"

struct predicate_log {
	unsigned int asked; /* calls made */
	bool all_present;   /* report every feature present */
};

static bool test_has_feature(void *ctx, unsigned int feature)
{
	struct predicate_log *log = ctx;

	log->asked++;
	return log->all_present || feature == WL_FEATURE_PRESENT;
}

static void
feature_alternative_is_applied_where_the_feature_is_present(void **state)
{
	struct alt_tables t = alt_host_tables();
	struct alt_host_ctx ctx = {0};
	struct alt_ops ops = alt_host_ops(&ctx);
	struct predicate_log log = {0};
	struct alt_engine e;
	struct alt_report rep;

	(void)state;
	alt_host_unlock_text();
	/* workload.c's two and test_padding.c's one (absent feature) */
	assert_int_equal(alt_feature_count(&t), 3);
	assert_int_equal(wl_feature_value(), WL_FEATURE_OLD);
	assert_int_equal(wl_absent_feature_value(), WL_FEATURE_OLD);
	assert_alt_ok(alt_init(&e, &t, &ops, NULL, 0, &rep), &rep);
	assert_alt_ok(alt_apply_features(&e, test_has_feature, &log, &rep),
		      &rep);
	assert_int_equal(e.stats.feature_sites, 1);
	assert_int_equal(ctx.writes, 1);
	assert_int_equal(ctx.serializes, 1);
	assert_int_equal(wl_feature_value(), WL_FEATURE_NEW);
	assert_int_equal(wl_absent_feature_value(), WL_FEATURE_OLD);
}

static void feature_alternatives_are_applied_only_once(void **state)
{
	struct alt_tables t = alt_host_tables();
	struct alt_host_ctx ctx = {0};
	struct alt_ops ops = alt_host_ops(&ctx);
	struct predicate_log log = {.all_present = true};
	struct alt_engine e;
	struct alt_report rep;
	uint8_t *before;

	(void)state;
	alt_host_unlock_text();
	assert_alt_ok(alt_init(&e, &t, &ops, NULL, 0, &rep), &rep);
	assert_alt_ok(alt_apply_features(&e, test_has_feature, &log, &rep),
		      &rep);
	assert_int_equal(wl_absent_feature_value(), WL_FEATURE_NEW);
	before = alt_host_text_copy();
	ctx.writes = 0;
	log.asked = 0;
	assert_int_equal(alt_apply_features(&e, test_has_feature, &log, &rep),
			 -EALREADY);
	assert_int_equal(ctx.writes, 0);
	assert_int_equal(log.asked, 0);
	assert_memory_equal(alt_host_text(), before, alt_host_text_size());
	free(before);
}

int alt_group_features(size_t *total)
{
	/* Order matters: the first test applies one feature for good. */
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			feature_alternative_is_applied_where_the_feature_is_present),
		cmocka_unit_test(feature_alternatives_are_applied_only_once),
	};

	return ALT_RUN_GROUP("feature alternatives", tests, total);
}
