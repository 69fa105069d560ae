// SPDX-License-Identifier: MIT
/*
 * autoscale_journal.c - log lines to the journal with fields, or plain.
 * See autoscale_journal.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <systemd/sd-journal.h>

#include "autoscale_journal.h"
#include "autoscale_text.h"

/* A decimal number ending at *end, or false. */
static bool parse_decimal(const char *s, char stop, unsigned long long *v,
			  const char **end)
{
	unsigned long long n = 0;
	const char *p = s;

	for (; *p >= '0' && *p <= '9'; p++) {
		if (n > (~0ULL - (unsigned int)(*p - '0')) / 10)
			return false;
		n = n * 10 + (unsigned int)(*p - '0');
	}
	if (p == s || *p != stop)
		return false;
	*v = n;
	*end = p;
	return true;
}

bool as_journal_stream_matches(const char *env, dev_t dev, ino_t ino)
{
	unsigned long long d, i;
	const char *p;

	if (!env || !parse_decimal(env, ':', &d, &p) ||
	    !parse_decimal(p + 1, '\0', &i, &p))
		return false;
	return d == (unsigned long long)dev && i == (unsigned long long)ino;
}

enum as_log_route as_log_route_for(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return AS_LOG_PLAIN;
	return as_journal_stream_matches(getenv("JOURNAL_STREAM"), st.st_dev,
					 st.st_ino)
		       ? AS_LOG_JOURNAL
		       : AS_LOG_PLAIN;
}

static char *escaped(const char *prefix, const char *value)
{
	struct as_text t = AS_TEXT_INIT;

	as_text_puts(&t, prefix);
	as_text_add_escaped(&t, value);
	return as_text_take(&t, NULL);
}

/* One "NAME=value" field, malloc'd; NULL if out of memory. */
static char *__attribute__((format(printf, 1, 2))) field(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

int as_journal_fields(const struct as_log_event *ev, char ***fields)
{
	char **f = calloc(AS_JOURNAL_FIELDS_MAX, sizeof(*f));
	int n = 0;

	if (!f)
		return -ENOMEM;
	f[n++] = escaped("MESSAGE=", ev->message);
	f[n++] = field("PRIORITY=%d", ev->priority);
	f[n++] = field("SYSLOG_IDENTIFIER=%s", AS_JOURNAL_IDENTIFIER);
	if (ev->domain) {
		f[n++] = field("SMPALT_DOMAIN=%s", ev->domain);
		f[n++] = field("SMPALT_DOMID=%u", ev->domid);
	}
	if (ev->has_vcpus) {
		f[n++] = field("SMPALT_VCPUS_OLD=%u", ev->vcpus_old);
		f[n++] = field("SMPALT_VCPUS_NEW=%u", ev->vcpus_new);
	}
	if (ev->reason)
		f[n++] = field("SMPALT_REASON=%s", ev->reason);
	for (int i = 0; i < n; i++) {
		if (!f[i]) {
			as_journal_fields_free(f, n);
			return -ENOMEM;
		}
	}
	*fields = f;
	return n;
}

void as_journal_fields_free(char **fields, int n)
{
	for (int i = 0; i < n; i++)
		free(fields[i]);
	free(fields);
}

char *as_log_plain_line(const char *prefix, const char *message)
{
	struct as_text t = AS_TEXT_INIT;

	as_text_puts(&t, prefix);
	as_text_add_escaped(&t, message);
	as_text_puts(&t, "\n");
	return as_text_take(&t, NULL);
}

static int journal_send(const struct as_log_event *ev)
{
	struct iovec iov[AS_JOURNAL_FIELDS_MAX];
	char **f;
	int n, err;

	n = as_journal_fields(ev, &f);
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++)
		iov[i] = (struct iovec){f[i], strlen(f[i])};
	err = sd_journal_sendv(iov, n);
	as_journal_fields_free(f, n);
	return err;
}

int as_log_emit(enum as_log_route route, int fd, const char *prefix,
		const struct as_log_event *ev)
{
	char *line;
	int err;

	if (route == AS_LOG_JOURNAL && journal_send(ev) >= 0)
		return 0;
	line = as_log_plain_line(prefix, ev->message);
	if (!line)
		return -ENOMEM;
	err = as_write_all(fd, line, strlen(line));
	free(line);
	return err;
}
