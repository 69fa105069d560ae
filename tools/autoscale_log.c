// SPDX-License-Identifier: MIT
/*
 * autoscale_log.c - the daemon's clocks and log lines: on stdout with a
 * prefix, or journal entries with fields (autoscale_journal.h); errors
 * on stderr.  See autoscale_log.h.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "autoscaler.h"
#include "autoscale_format.h"
#include "autoscale_journal.h"
#include "autoscale_log.h"

uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

uint64_t now_ms(void)
{
	return clock_ns(CLOCK_MONOTONIC) / NS_PER_MS;
}

uint64_t unix_ms(void)
{
	return clock_ns(CLOCK_REALTIME) / NS_PER_MS;
}

/*
 * One line on fd (1 or 2): "[<P>][elapsed] wall-time ", what and the
 * message, or a journal entry with ev's fields (autoscale_journal.h).
 */
static void vlog_to(struct autoscaler *as, int fd, enum as_prio prio,
		    const char *what, struct as_log_event *ev, const char *fmt,
		    va_list ap)
{
	char prefix[NUM_MAX * 2], *body, *msg;

	if (as_log_prefix(prefix, sizeof(prefix), prio, as->syslog_prefix,
			  now_ms() - as->start_ms, unix_ms()) < 0)
		prefix[0] = '\0';
	if (vasprintf(&body, fmt, ap) < 0)
		return;
	if (asprintf(&msg, "%s%s", what, body) < 0) {
		free(body);
		return;
	}
	ev->priority = (int)prio;
	ev->message = msg;
	fflush(stdout);
	as_log_emit(as->log_route, fd, prefix, ev);
	free(msg);
	free(body);
}

/* One log line on stdout, with its priority (debug only with -v). */
void __attribute__((format(printf, 3, 4)))
log_line(struct autoscaler *as, enum as_prio prio, const char *fmt, ...)
{
	struct as_log_event ev = {0};
	va_list ap;

	if (prio == AS_PRIO_DEBUG && !as->opt.verbose)
		return;
	va_start(ap, fmt);
	vlog_to(as, STDOUT_FILENO, prio, "", &ev, fmt, ap);
	va_end(ap);
}

/*
 * A log line about domain d, with its fields in the journal; a change
 * (old != new) and its reason (NULL: none) too.
 */
void __attribute__((format(printf, 7, 8)))
log_domain(struct autoscaler *as, enum as_prio prio, const struct domain *d,
	   unsigned int old, unsigned int new, const char *reason,
	   const char *fmt, ...)
{
	struct as_log_event ev = {
		.domain = d->name,
		.domid = d->domid,
		.has_vcpus = old != new,
		.vcpus_old = old,
		.vcpus_new = new,
		.reason = reason,
	};
	va_list ap;

	if (prio == AS_PRIO_DEBUG && !as->opt.verbose)
		return;
	va_start(ap, fmt);
	vlog_to(as, STDOUT_FILENO, prio, "", &ev, fmt, ap);
	va_end(ap);
}

/* An error on stderr. */
void __attribute__((format(printf, 2, 3)))
error(struct autoscaler *as, const char *fmt, ...)
{
	struct as_log_event ev = {0};
	va_list ap;

	va_start(ap, fmt);
	vlog_to(as, STDERR_FILENO, AS_PRIO_ERR, PROG ": error: ", &ev, fmt, ap);
	va_end(ap);
}

void __attribute__((noreturn, format(printf, 1, 2)))
usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see --help)\n");
	exit(EXIT_USAGE);
}

/* A whole decimal number within [min, max]; false otherwise. */
bool parse_uint(const char *s, unsigned long long min, unsigned long long max,
		unsigned long long *out)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}
