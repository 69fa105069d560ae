/* SPDX-License-Identifier: MIT */
/*
 * autoscale_format.h - the autoscaler's log line prefix and CSV rows, pure
 * (host tests: autoscale_format_test.c).
 *
 * A log line:  [<P>][ELAPSED] WALL message
 *   <P>      the syslog priority, as sd-daemon(3) has it (the journal
 *            strips it and files the line at that priority): <3> error,
 *            <4> warning, <6> info, <7> debug; only when enabled
 *   ELAPSED  seconds since start with milliseconds, "[   12.345]"
 *   WALL     UTC wall-clock time, ISO 8601: 2026-12-03T13:18:45.123Z
 *
 * A CSV row (RFC 4180; AS_CSV_HEADER names the columns, in this order):
 *   time_s      seconds since start, milliseconds ("12.345")
 *   domain      the domain's name (quoted if it holds , " or a newline)
 *   load        the load decided on, percent of one vCPU (empty: none)
 *   vcpus       the count dom0 set: the domain's cpu/<i>/availability
 *               keys the toolstack wrote ("online"), never a guest's word
 *   mode        the guest's data/smpalt/mode ("up", "smp"; else empty)
 *   throughput  the guest's data/smpalt/throughput (empty if absent)
 *   unix_time   Unix epoch seconds with milliseconds ("1796304325.123")
 *   domid       the domain's id
 *   signal      where load came from: guest, guest-capped, xen (empty:
 *               none)
 *   guest_load  the guest's claim as read (empty if absent)
 *   xen_load    Xen's CPU accounting over the last period (empty if not
 *               known)
 *   guest_online  the guest's claim of its online vCPUs, as read from
 *               data/smpalt/online (empty if absent): a column of its own,
 *               so that the audit trail in vcpus is what dom0 owns
 * New columns go last: readers that take columns by position go on.
 */
#ifndef SMPALT_AUTOSCALE_FORMAT_H
#define SMPALT_AUTOSCALE_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* syslog(3) priorities, as the journal reads them from "<N>". */
enum as_prio {
	AS_PRIO_ERR = 3,
	AS_PRIO_WARNING = 4,
	AS_PRIO_INFO = 6,
	AS_PRIO_DEBUG = 7,
};

#define AS_CSV_HEADER                                                      \
	"time_s,domain,load,vcpus,mode,throughput,unix_time,domid,signal," \
	"guest_load,xen_load,guest_online"

struct as_csv_row {
	uint64_t elapsed_ms; /* since start */
	uint64_t unix_ms;    /* wall clock, ms since the epoch */
	const char *name;
	unsigned int domid;
	bool has_load, has_tput, has_guest, has_xen, has_guest_online;
	unsigned int load, guest, xen;
	unsigned int vcpus;	   /* dom0's: cpu/<i>/availability */
	unsigned int guest_online; /* the guest's data/smpalt/online */
	unsigned long long tput;
	const char *mode;   /* "" if unknown */
	const char *signal; /* as_source_name() */
};

/*
 * The prefix of a log line, "<6>[   12.345] 2026-12-03T13:18:45.123Z "
 * (priority only with syslog).  Returns its length, or -ENOSPC.
 */
int as_log_prefix(char *buf, size_t len, enum as_prio prio, bool syslog,
		  uint64_t elapsed_ms, uint64_t unix_ms);

/* One CSV row with its newline.  Returns its length, or -ENOSPC. */
int as_csv_row(char *buf, size_t len, const struct as_csv_row *r);

#endif /* SMPALT_AUTOSCALE_FORMAT_H */
