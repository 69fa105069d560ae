// SPDX-License-Identifier: MIT
/*
 * autoscale_format.c - log line prefixes and CSV rows of the autoscaler.
 * See autoscale_format.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "autoscale_format.h"

#define MS_PER_SEC 1000
#define ISO_LEN 32

/* Appends to a fixed buffer; remembers running out of room. */
struct out {
	char *buf;
	size_t len, used;
	bool full;
};

static void __attribute__((format(printf, 2, 3)))
out_printf(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->full)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->used, o->len - o->used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->len - o->used) {
		o->full = true;
		return;
	}
	o->used += (size_t)n;
}

static int out_result(const struct out *o)
{
	return o->full ? -ENOSPC : (int)o->used;
}

/* "2026-12-03T13:18:45.123Z" */
static void format_iso(char *buf, size_t len, uint64_t unix_ms)
{
	time_t secs = (time_t)(unix_ms / MS_PER_SEC);
	struct tm tm;

	if (!gmtime_r(&secs, &tm) ||
	    !strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm)) {
		snprintf(buf, len, "?");
		return;
	}
	snprintf(buf + strlen(buf), len - strlen(buf), ".%03uZ",
		 (unsigned int)(unix_ms % MS_PER_SEC));
}

int as_log_prefix(char *buf, size_t len, enum as_prio prio, bool syslog,
		  uint64_t elapsed_ms, uint64_t unix_ms)
{
	struct out o = {buf, len, 0, len == 0};
	char iso[ISO_LEN], el[ISO_LEN];

	format_iso(iso, sizeof(iso), unix_ms);
	snprintf(el, sizeof(el), "%" PRIu64 ".%03u", elapsed_ms / MS_PER_SEC,
		 (unsigned int)(elapsed_ms % MS_PER_SEC));
	if (syslog)
		out_printf(&o, "<%d>", (int)prio);
	out_printf(&o, "[%8s] %s ", el, iso);
	return out_result(&o);
}

/* A field, quoted (RFC 4180) when it holds a comma, quote or newline. */
static void csv_field(struct out *o, const char *v)
{
	if (!strpbrk(v, ",\"\r\n")) {
		out_printf(o, "%s", v);
		return;
	}
	out_printf(o, "\"");
	for (; *v; v++)
		out_printf(o, *v == '"' ? "\"\"" : "%c", *v);
	out_printf(o, "\"");
}

static void csv_uint(struct out *o, bool has, unsigned long long v)
{
	out_printf(o, ",");
	if (has)
		out_printf(o, "%llu", v);
}

static void csv_ms(struct out *o, uint64_t ms)
{
	out_printf(o, "%" PRIu64 ".%03u", ms / MS_PER_SEC,
		   (unsigned int)(ms % MS_PER_SEC));
}

int as_csv_row(char *buf, size_t len, const struct as_csv_row *r)
{
	struct out o = {buf, len, 0, len == 0};

	csv_ms(&o, r->elapsed_ms);
	out_printf(&o, ",");
	csv_field(&o, r->name);
	csv_uint(&o, r->has_load, r->load);
	csv_uint(&o, true, r->vcpus);
	out_printf(&o, ",");
	csv_field(&o, r->mode);
	csv_uint(&o, r->has_tput, r->tput);
	out_printf(&o, ",");
	csv_ms(&o, r->unix_ms);
	csv_uint(&o, true, r->domid);
	out_printf(&o, ",%s", r->signal);
	csv_uint(&o, r->has_guest, r->guest);
	csv_uint(&o, r->has_xen, r->xen);
	csv_uint(&o, r->has_guest_online, r->guest_online);
	out_printf(&o, "\n");
	return out_result(&o);
}
