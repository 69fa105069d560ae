/* SPDX-License-Identifier: MIT */
/*
 * autoscale_metrics.h - the autoscaler's Prometheus metrics: what it
 * counts per domain and for itself, the text exposition format (version
 * 0.0.4) and a file for node_exporter's textfile collector, replaced
 * atomically (host tests:
 * autoscale_metrics_test.c, which also runs `promtool check metrics`).
 *
 * Metrics (labels: domain = the domain's name, domid = its id):
 *   smpalt_autoscaler_up                            gauge, 1; 0 at exit
 *   smpalt_autoscaler_start_time_seconds            gauge, Unix time
 *   smpalt_autoscaler_domains                       gauge, domains tracked
 *   smpalt_autoscaler_config_reloads_total          counter, SIGHUP reloads
 *   smpalt_autoscaler_config_reload_failures_total  counter, refused ones
 *   smpalt_autoscaler_config_last_reload_successful gauge, 0 or 1
 *   smpalt_autoscaler_config_last_reload_success_timestamp_seconds
 *                                                   gauge, Unix time
 *   smpalt_autoscaler_domain_vcpus_online{domain,domid}     gauge
 *   smpalt_autoscaler_domain_vcpus_max{domain,domid}        gauge
 *   smpalt_autoscaler_domain_load_vcpus{domain,domid,source}
 *       gauge: the load decided on, in vCPUs' worth of work (2.5 = 250%
 *       of one vCPU); source = xen, guest or guest-capped; absent while
 *       the domain has no usable figure
 *   smpalt_autoscaler_domain_scale_decisions_total{domain,domid,direction}
 *       counter, direction = up or down: changes decided
 *   smpalt_autoscaler_domain_scale_failures_total{domain,domid}
 *       counter: changes the backend (xl, libvirt) failed to make
 *   smpalt_autoscaler_domain_rate_limited_total{domain,domid}
 *       counter: changes held back by the cooldown or the rate limit
 *   smpalt_autoscaler_domain_backend_timeouts_total{domain,domid}
 *       counter: xl or libvirt calls killed for taking too long
 *   smpalt_autoscaler_domain_read_errors_total{domain,domid}
 *       counter: sample rounds in which its keys could not be read
 * A per-domain family with no sample yet (no domains, no load) is left
 * out whole, its HELP and TYPE lines included.
 *
 * Label values: backslash, double quote and newline are escaped as the
 * format requires (\\ \" \n); any other control character and every byte
 * outside well-formed UTF-8 becomes U+FFFD, so that a name or a value a
 * guest wrote can neither break the format nor reach a terminal raw.
 *
 * How the daemon uses it:
 *   as_metrics_init(&m, now)                         at start
 *   d = as_metrics_domain(&m, domid, name)           per domain per round;
 *       set d->vcpus_online, ..., d->counts (the domain's, whole)
 *   as_metrics_forget(&m, domid)                     a domain went away
 *   as_metrics_config_reload(&m, ok, now)            after each SIGHUP
 *   text = as_metrics_render(&m, &len)               once per round, then
 *   as_metrics_write_file(path, text, len)           with --metrics-file
 * *   as_metrics_free(&m)                              at exit
 */
#ifndef SMPALT_AUTOSCALE_METRICS_H
#define SMPALT_AUTOSCALE_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Mode of the textfile collector's file (node_exporter reads it). */
#define AS_METRICS_FILE_MODE 0644

/*
 * What happened to one domain, counted where it happens (the daemon's
 * struct domain holds one) and read whole by the metrics and the summary.
 */
struct as_counts {
	uint64_t decisions_up, decisions_down; /* changes decided, each way */
	uint64_t changes;		       /* changes started */
	uint64_t failures;    /* changes the backend failed to make */
	uint64_t timeouts;    /* of those, calls killed at their timeout */
	uint64_t held;	      /* held back by the cooldown or rate limit */
	uint64_t read_errors; /* rounds its keys could not be read */
};

struct as_metrics_domain {
	unsigned int domid;
	char *name;
	bool has_vcpus;
	unsigned int vcpus_online, vcpus_max;
	bool has_load;
	unsigned int load;  /* percent of one vCPU */
	const char *source; /* as_source_name(): "xen", "guest", ... */
	struct as_counts counts;
};

struct as_metrics {
	struct as_metrics_domain *dom; /* sorted by domid */
	size_t n, cap;
	uint64_t start_unix_s;
	bool stopped; /* smpalt_autoscaler_up 0: the daemon is ending */
	uint64_t reloads, reload_failures;
	bool last_reload_ok;
	uint64_t last_reload_ok_unix_s;
};

/* Empty, started at start_unix_s (also the first good configuration). */
void as_metrics_init(struct as_metrics *m, uint64_t start_unix_s);
void as_metrics_free(struct as_metrics *m);

/*
 * The entry of domain domid, added (all zero) if new; its name is set to
 * name (a domain can be renamed).  NULL if out of memory.  The pointer
 * holds until the next as_metrics_domain() or as_metrics_forget().
 */
struct as_metrics_domain *
as_metrics_domain(struct as_metrics *m, unsigned int domid, const char *name);
/* Drop domid's entry (its series disappear from the next render). */
void as_metrics_forget(struct as_metrics *m, unsigned int domid);

/* A reload of the configuration: ok or refused, at unix_s. */
void as_metrics_config_reload(struct as_metrics *m, bool ok, uint64_t unix_s);

/*
 * The exposition text, malloc'd (the caller's to free), its length in
 * *len; NULL if out of memory.
 */
char *as_metrics_render(const struct as_metrics *m, size_t *len);

/* Appends value escaped as a label value (the header) to t. */
struct as_text;
void as_metrics_label_value(struct as_text *t, const char *value);

/*
 * Replace path with text atomically: a temporary file in the same
 * directory (".NAME.XXXXXX", which the textfile collector ignores),
 * written, mode AS_METRICS_FILE_MODE, renamed over path.  A reader sees
 * the old file or the new, never part.  Nothing is fsync'd: the file
 * describes a running process and is rewritten every period, so after a
 * crash it is stale whatever reached the disk, and the next start
 * replaces it within a period; an fsync of the file and its directory
 * each period would cost the host a journal commit per second for
 * nothing.  0 or -errno (no temporary file is left behind).
 */
int as_metrics_write_file(const char *path, const char *text, size_t len);

#endif /* SMPALT_AUTOSCALE_METRICS_H */
