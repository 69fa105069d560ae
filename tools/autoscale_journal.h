/* SPDX-License-Identifier: MIT */
/*
 * autoscale_journal.h - where the autoscaler's log lines go: to the
 * systemd journal with structured fields when its stderr is connected to
 * the journal, else as plain lines (host tests:
 * autoscale_journal_test.c).
 *
 * The route: systemd sets $JOURNAL_STREAM to "DEV:INO" (decimal) of the
 * stream it connects a service's stdout/stderr to (systemd.exec(5)); the
 * journal is used when that matches the st_dev and st_ino of the
 * program's stderr, so a program started from such a service with its
 * stderr redirected elsewhere (a pipe, a file) writes plain lines.
 *
 * A journal entry has these fields (journalctl -o verbose shows them;
 * journalctl SMPALT_DOMAIN=web1 selects by them):
 *   MESSAGE            the log line's text, escaped as a plain line's
 *   PRIORITY           the syslog priority (3 err ... 7 debug)
 *   SYSLOG_IDENTIFIER  smpalt-autoscaler
 *   SMPALT_DOMAIN      the domain's name, as is        } when the line is
 *   SMPALT_DOMID       its domain id                   } about a domain
 *   SMPALT_VCPUS_OLD   vCPUs before a change           } when it is about
 *   SMPALT_VCPUS_NEW   vCPUs asked for                 } a change
 *   SMPALT_REASON      the decision's reason (over-high, under-low, ...)
 *
 * A plain line is the caller's prefix (as_log_prefix: priority, elapsed
 * and wall time), the message with control characters and bytes outside
 * UTF-8 escaped as "\xHH" and backslashes doubled (a domain name or a
 * guest's value cannot end the line or forge another), and a newline.
 *
 * How the daemon uses it:
 *   route = as_log_route_for(STDERR_FILENO)        once, at start
 *   per line: fill a struct as_log_event, as_log_prefix() into prefix,
 *   as_log_emit(route, fd, prefix, &ev)            fd: 1 info, 2 errors
 * On the journal route a failed send falls back to the plain line on fd.
 */
#ifndef SMPALT_AUTOSCALE_JOURNAL_H
#define SMPALT_AUTOSCALE_JOURNAL_H

#include <stdbool.h>
#include <sys/types.h>

#define AS_JOURNAL_IDENTIFIER "smpalt-autoscaler"
/* Most fields an entry has (the list in the header above). */
#define AS_JOURNAL_FIELDS_MAX 8

enum as_log_route {
	AS_LOG_PLAIN,	/* lines on the given fd */
	AS_LOG_JOURNAL, /* sd_journal_sendv() with fields */
};

struct as_log_event {
	int priority;	     /* syslog priority, enum as_prio */
	const char *message; /* without a newline */
	const char *domain;  /* NULL: not about a domain */
	unsigned int domid;
	bool has_vcpus; /* a change: vcpus_old -> vcpus_new */
	unsigned int vcpus_old, vcpus_new;
	const char *reason; /* NULL: none */
};

/*
 * Whether env (the value of $JOURNAL_STREAM, may be NULL) names the
 * stream with this device and inode: "DEV:INO", both decimal, nothing
 * else.  Pure.
 */
bool as_journal_stream_matches(const char *env, dev_t dev, ino_t ino);

/* The route for a program whose stderr is fd: $JOURNAL_STREAM, fstat. */
enum as_log_route as_log_route_for(int fd);

/*
 * The fields of ev's journal entry, "NAME=value" strings in the order of
 * the header's list, in a malloc'd array (free with as_journal_fields_free).
 * Returns their count, or -ENOMEM.
 */
int as_journal_fields(const struct as_log_event *ev, char ***fields);
void as_journal_fields_free(char **fields, int n);

/* prefix, the escaped message and "\n": malloc'd, NULL if out of memory. */
char *as_log_plain_line(const char *prefix, const char *message);

/*
 * ev by route: to the journal, or as a plain line written to fd (also
 * when the journal refuses it).  0, or -errno of the failed write.
 */
int as_log_emit(enum as_log_route route, int fd, const char *prefix,
		const struct as_log_event *ev);

#endif /* SMPALT_AUTOSCALE_JOURNAL_H */
