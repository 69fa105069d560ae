/* SPDX-License-Identifier: MIT */
/*
 * autoscale_log.h - the daemon's clocks (monotonic and wall, in ms) and
 * its log lines: one per event, with the domain's fields in the journal.
 */
#ifndef SMPALT_AUTOSCALE_LOG_H
#define SMPALT_AUTOSCALE_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "autoscaler.h"
#include <time.h>

#include "autoscale_journal.h"

/* A clock's time in ns; now_ms() the monotonic one, unix_ms() the wall
 * clock (Unix time), in ms. */
uint64_t clock_ns(clockid_t clock);
uint64_t now_ms(void);
uint64_t unix_ms(void);

/* One log line on stdout, with its priority (debug only with -v). */
void __attribute__((format(printf, 3, 4)))
log_line(struct autoscaler *as, enum as_prio prio, const char *fmt, ...);

/*
 * A log line about domain d, with its fields in the journal; a change
 * (old != new) and its reason (NULL: none) too.
 */
void __attribute__((format(printf, 7, 8)))
log_domain(struct autoscaler *as, enum as_prio prio, const struct domain *d,
	   unsigned int old, unsigned int new, const char *reason,
	   const char *fmt, ...);

/* An error on stderr. */
void __attribute__((format(printf, 2, 3)))
error(struct autoscaler *as, const char *fmt, ...);

/* A usage error on stderr, then exit EXIT_USAGE. */
void __attribute__((noreturn, format(printf, 1, 2)))
usage_error(const char *fmt, ...);

/* A whole decimal number within [min, max]; false otherwise. */
bool parse_uint(const char *s, unsigned long long min, unsigned long long max,
		unsigned long long *out);

#endif /* SMPALT_AUTOSCALE_LOG_H */
