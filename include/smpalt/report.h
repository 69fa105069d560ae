/* SPDX-License-Identifier: MIT */
/*
 * report.h - the outcome of the tests run inside the guest, as one console
 * line that the harness's scenarios read:
 *
 *   Test result: SUCCESS|SKIP|ERROR|FAILURE [reason]
 *
 * Each part that tests something (the self-test, each benchmark) reports
 * its outcome here instead of printing a line of its own; report_print()
 * then prints the one line for all of them.  The worst outcome wins, in
 * this order: SUCCESS, SKIP (the part could not run here), ERROR (the test
 * itself or its environment went wrong: a switch refused, a clock that
 * stood still), FAILURE (what was tested is wrong).  The line gives the
 * reasons of the parts with the winning outcome, in the order they were
 * reported, then those of the others in parentheses, each with its own
 * outcome:
 *
 *   Test result: ERROR bench: switch failed: -16 (SUCCESS 42 checks passed)
 *
 * A run in which no part reported prints no line.  At most one line is
 * ever printed: a report made after it is logged as an ordinary error line.
 * vCPU 0 only: the tests run there before any secondary vCPU is up.
 */
#ifndef SMPALT_REPORT_H
#define SMPALT_REPORT_H

#include <smpalt/kernel.h>

/* In the order of their weight: a later one wins over an earlier one. */
enum report_status {
	REPORT_NONE,	/* no part has reported yet */
	REPORT_SUCCESS, /* the part ran and found what it expected */
	REPORT_SKIP,	/* the part could not run here */
	REPORT_ERROR,	/* the test or its environment went wrong */
	REPORT_FAILURE, /* what the part tests is wrong */
};

/* One part's outcome; the reason is formatted like printk's, no newline. */
void report_success(const char *fmt, ...) __printf(1, 2);
void report_skip(const char *fmt, ...) __printf(1, 2);
void report_error(const char *fmt, ...) __printf(1, 2);
void report_failure(const char *fmt, ...) __printf(1, 2);

/* The worst outcome reported so far (REPORT_NONE: none). */
enum report_status report_worst(void);

/*
 * Print the "Test result:" line if any part reported and it was not
 * printed yet; later calls print nothing.
 */
void report_print(void);

#endif /* SMPALT_REPORT_H */
