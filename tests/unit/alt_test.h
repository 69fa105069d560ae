/* SPDX-License-Identifier: MIT */
/*
 * alt_test.h - shared by the engine's cmocka tests: each test file exports
 * one group runner; test_main.c runs them all and prints the totals.
 */
#ifndef SMPALT_ALT_TEST_H
#define SMPALT_ALT_TEST_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include <smpalt/alt_core.h>
#include <smpalt/alt_insn.h>

/*
 * The recommended NOPs by length (1 to ALT_NOP_MAX_LEN), written out in
 * test_insn.c independently of alt_insn.c.
 */
extern const uint8_t alt_ref_nops[ALT_NOP_MAX_LEN + 1][ALT_NOP_MAX_LEN];

/* Runs one group; adds its test count to *total, returns failures. */
typedef int (*alt_group_fn)(size_t *total);

int alt_group_padding(size_t *total);
int alt_group_insn(size_t *total);
int alt_group_switch(size_t *total);
int alt_group_refuse(size_t *total);
int alt_group_features(size_t *total);
int alt_group_primitives(size_t *total);

#define ALT_RUN_GROUP(name, tests, total)                \
	(*(total) += sizeof(tests) / sizeof((tests)[0]), \
	 cmocka_run_group_tests_name(name, tests, NULL, NULL))

/* Print a report when a call that should succeed did not. */
static inline void alt_test_print_report(const char *what,
					 const struct alt_report *r)
{
	if (r->error)
		print_error("%s: error %d, record kind %d index %zu at %#lx: "
			    "%s\n",
			    what, r->error, (int)r->kind, r->index,
			    (unsigned long)r->addr, r->reason);
}

#define assert_alt_ok(call, rep)                     \
	do {                                         \
		int alt_rc_ = (call);                \
		alt_test_print_report(#call, (rep)); \
		assert_int_equal(alt_rc_, 0);        \
	} while (0)

#endif /* SMPALT_ALT_TEST_H */
