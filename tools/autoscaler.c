// SPDX-License-Identifier: MIT
/*
 * autoscaler.c - smpalt-autoscaler, the dom0 daemon that scales Xen guests'
 * vCPUs by load.
 *
 * It follows the domains its DOMAIN arguments (domids, names, globs) or
 * --all select through their life: xenstore watches on @introduceDomain
 * and @releaseDomain adopt a domain that appears (a rebooted guest comes
 * back with a new domid) and drop one that goes.  Every sample period it
 * reads, for each domain, the guest's data/smpalt/load and the CPU time
 * Xen accounted to the domain's vCPUs (libxenstat), picks the load figure
 * (autoscale_signal.c), asks the policy (autoscale_policy.c) what to do,
 * and has a backend (scale_backend.h: xl, or libvirt for the domains a
 * libvirt connection knows) set the new count.  Each change is logged on
 * one line with its reason (a journal entry with fields under systemd:
 * autoscale_journal.h); each sample of each domain is one CSV row, its
 * text escaped (autoscale_csv.h).  Each domain's settings come from the
 * configuration file (autoscale_config.h), read again at SIGHUP; metrics
 * go to a file for node_exporter's textfile collector
 * (autoscale_metrics.h).  Under systemd it says when it is ready and
 * feeds the watchdog after each completed round.  See docs/autoscaler.md.
 *
 * This file keeps the process's life: start-up in order (main), the
 * sample rounds, the wait between them, signals, reload and exit.  The
 * rest is in files of their own, all working on one context (struct
 * autoscaler, autoscaler.h): the command line (autoscale_cli.c), the
 * domains' life (autoscale_domains.c), Xen's accounting (autoscale_xen.c),
 * changes through the backends (autoscale_change.c), xenstore reads
 * (autoscale_xs.c) and log lines (autoscale_log.c).
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>
#include <xenstat.h>
#include <xenstore.h>
#include <xen/xen.h>

#include "autoscale_config.h"
#include "autoscale_csv.h"
#include "autoscale_format.h"
#include "autoscale_journal.h"
#include "autoscale_metrics.h"
#include "autoscale_policy.h"
#include "autoscale_select.h"
#include "autoscaler.h"
#include "autoscale_change.h"
#include "autoscale_cli.h"
#include "autoscale_domains.h"
#include "autoscale_log.h"
#include "autoscale_xen.h"
#include "autoscale_xs.h"
#include "autoscale_signal.h"
#include "scale_backend.h"

/* Set by the signal handler, read by the main loop. */
static volatile sig_atomic_t stop_signal, hangup;

/* ------------------------------------------------------------------ CSV */

/* Open the CSV for appending (autoscale_csv.h: no symlink, not inherited
 * by xl); the header goes into an empty file. */
static bool csv_open(struct autoscaler *as)
{
	int rc = as_csv_open(&as->csv, as->opt.csv_path);

	if (rc) {
		error(as, "cannot open the CSV %s: %s", as->opt.csv_path,
		      rc == -EINVAL ? "not a regular file" : strerror(-rc));
		return false;
	}
	return true;
}

/* false (after saying why) if the CSV could not be written. */
static bool csv_flush(struct autoscaler *as)
{
	return !as->csv_failed;
}

/* SIGHUP: open the CSV again under its name (rotation); on error the old
 * file stays in use. */
static void csv_reopen(struct autoscaler *as)
{
	int rc = as_csv_reopen(&as->csv);

	if (rc)
		error(as,
		      "SIGHUP: cannot reopen the CSV %s: %s: still writing "
		      "the file opened before",
		      as->opt.csv_path, strerror(-rc));
	else
		log_line(as, AS_PRIO_INFO, "SIGHUP: reopened the CSV %s",
			 as->opt.csv_path);
}

static void csv_write(struct autoscaler *as, const struct domain *d, uint64_t t,
		      uint64_t wall, const struct sample *s, enum as_source src,
		      unsigned int load)
{
	struct as_csv_row r = {
		.elapsed_ms = t - as->start_ms,
		.unix_ms = wall,
		.name = d->name,
		.domid = d->domid,
		.has_load = src != AS_SOURCE_NONE,
		.load = load,
		.vcpus = s->vcpus,
		.has_guest_online = s->has_online,
		.guest_online = s->online,
		.mode = s->mode,
		.has_tput = s->has_tput,
		.tput = s->tput,
		.signal = as_source_name(src),
		.has_guest = s->has_guest,
		.guest = s->guest,
		.has_xen = s->has_xen,
		.xen = s->xen,
	};

	char *row;
	int rc;

	if (as->csv.fd < 0 || as->csv_failed)
		return;
	row = as_csv_format(&r);
	if (!row) {
		error(as, "%s (domain %u): CSV row: out of memory", d->name,
		      d->domid);
		return;
	}
	rc = as_csv_write(&as->csv, row, strlen(row));
	free(row);
	if (rc) {
		error(as, "cannot write the CSV %s: %s", as->opt.csv_path,
		      strerror(-rc));
		as->csv_failed = true;
		return;
	}
	as->csv_rows++;
}

/* ------------------------------------------------------------ sampling */

/*
 * Read one domain's keys.  0; -ENOENT if the domain is gone; -ESTALE if
 * its domid now belongs to another domain; another -errno if a key could
 * not be read (the domain is skipped this round).
 */
static int read_sample(struct autoscaler *as, struct domain *d,
		       struct sample *s)
{
	unsigned long long v;
	char *key = NULL;
	int rc;

	/* The toolstack removes the whole home when the domain goes. */
	if (d->vm) {
		rc = read_vm(as, d->domid, &key);
		if (!rc && key && strcmp(key, d->vm))
			rc = -ESTALE;
		else if (!rc && !key)
			rc = -ENOENT;
	} else {
		rc = xs_get_whole(as, d->domid, "name", &key);
	}
	free(key);
	if (rc == -ENOENT) {
		char path[PATH_LEN];
		char **sub;
		unsigned int n;

		snprintf(path, sizeof(path), DOMAIN_ROOT "/%u", d->domid);
		sub = xs_directory(as->xsh, XBT_NULL, path, &n);
		if (!sub)
			return xs_error(as, path);
		free(sub);
	} else if (rc) {
		return rc;
	}
	rc = count_available(as, d);
	if (rc < 0)
		return rc;
	s->vcpus = (unsigned int)rc;
	if (!s->vcpus)
		return -ENOENT; /* no cpu/ keys left: being torn down */

	/* The guest writes data/: anything but a number is no claim. */
	rc = xs_get_uint(as, d, KEY_LOAD, UINT32_MAX, &v);
	if (!rc) {
		s->has_guest = true;
		s->guest = (unsigned int)v;
	} else if (rc != -ENOENT && rc != -EINVAL) {
		return rc;
	}
	if (!xs_get_uint(as, d, KEY_ONLINE, AS_VCPUS_MAX, &v)) {
		s->has_online = true;
		s->online = (unsigned int)v;
	}
	if (!xs_get_uint(as, d, KEY_THROUGHPUT, UINT64_MAX, &v)) {
		s->has_tput = true;
		s->tput = v;
	}
	if (xs_get_domid(as, d->domid, KEY_MODE, s->mode, sizeof(s->mode)))
		s->mode[0] = '\0';
	return 0;
}

/* The kind of line each source of a domain's load makes. */
static enum as_ratelimit_reason source_reason(enum as_source src)
{
	switch (src) {
	case AS_SOURCE_NONE:
		return AS_RL_NO_LOAD;
	case AS_SOURCE_GUEST_CAPPED:
		return AS_RL_CAPPED;
	case AS_SOURCE_GUEST:
	case AS_SOURCE_XEN:
		break;
	}
	return AS_RL_SOURCE;
}

/*
 * Say where the domain's load comes from when that changes.  A guest
 * decides what its claim is, so it can make the source change every
 * period: the lines it causes are rate-limited per domain and per kind
 * (autoscale_ratelimit.h), the first line after a gap saying how many
 * were left out.
 */
static void log_source(struct autoscaler *as, struct domain *d,
		       const struct sample *s, enum as_source src)
{
	char idle[sizeof(", host idle 4294967295%")] = "";
	char note[AS_RATELIMIT_NOTE_LEN];
	unsigned long long left_out;

	if (d->source_logged && d->last_source == src)
		return;
	if (src == AS_SOURCE_NONE && s->xen_first) {
		/* Xen's figure comes with the next reading. */
		d->source_logged = false;
		return;
	}
	d->source_logged = true;
	d->last_source = src;
	if (!as_ratelimit_allow(&d->log_limit, source_reason(src), now_ms(),
				&left_out))
		return;
	as_ratelimit_note(note, sizeof(note), left_out);
	switch (src) {
	case AS_SOURCE_NONE:
		if (d->set.signal == AS_SIGNAL_XEN ||
		    d->set.signal == AS_SIGNAL_AUTO)
			log_line(as, AS_PRIO_WARNING,
				 "%s (domain %u): no CPU time from Xen for it: "
				 "not deciding until there is%s%s",
				 d->name, d->domid,
				 d->set.signal == AS_SIGNAL_AUTO && s->has_guest
					 ? " (its " KEY_LOAD
					   " is never taken alone)"
					 : "",
				 note);
		else
			log_line(as, AS_PRIO_WARNING,
				 "%s (domain %u): %s absent: not deciding "
				 "until there is a load%s",
				 d->name, d->domid, KEY_LOAD, note);
		break;
	case AS_SOURCE_GUEST:
		log_line(as, AS_PRIO_INFO,
			 "%s (domain %u): load from the guest's %s%s%s",
			 d->name, d->domid, KEY_LOAD,
			 s->has_xen ? ", bounded by Xen's CPU accounting" : "",
			 note);
		break;
	case AS_SOURCE_GUEST_CAPPED:
		if (as->has_host_idle)
			snprintf(idle, sizeof(idle), ", host idle %u%%",
				 as->host_idle);
		if (s->has_xen)
			log_line(as, AS_PRIO_WARNING,
				 "%s (domain %u): %s %u%% capped (maxvcpus %u, "
				 "Xen measures %u%% on %u vCPU%s%s)%s",
				 d->name, d->domid, KEY_LOAD, s->guest,
				 d->maxvcpus, s->xen, s->vcpus,
				 s->vcpus == 1 ? "" : "s", idle, note);
		else
			log_line(as, AS_PRIO_WARNING,
				 "%s (domain %u): %s %u%% capped (maxvcpus "
				 "%u)%s",
				 d->name, d->domid, KEY_LOAD, s->guest,
				 d->maxvcpus, note);
		break;
	case AS_SOURCE_XEN:
		log_line(as, AS_PRIO_INFO,
			 "%s (domain %u): load from Xen's CPU accounting%s%s",
			 d->name, d->domid,
			 s->has_guest ? "" : " (no " KEY_LOAD ")", note);
		break;
	}
}

/*
 * May the change just decided start now?  Not within the domain's pace
 * (cooldown, rate limit, backoff), nor while libvirt cannot say whether
 * it manages the domain.  A change held back is logged once per stretch
 * and reason (a cooldown that runs into the rate limit is logged twice).
 */
static bool may_change(struct autoscaler *as, struct domain *d,
		       const struct as_decision *dec, unsigned int load,
		       unsigned int vcpus)
{
	enum as_pace_verdict v;
	char why[REASON_LEN];
	uint64_t wait;

	v = as_pace_check(&d->set.pace, &d->pace, now_ms(), &wait);
	if (v == AS_PACE_GO && !d->backend)
		d->backend = backend_for(as, d); /* libvirt may be back */
	if (v == AS_PACE_GO && d->backend)
		return true;
	d->counts.held++;
	if (v != AS_PACE_GO)
		snprintf(why, sizeof(why), "%s for %llu.%llu s more",
			 as_pace_name(v),
			 (unsigned long long)(wait / MS_PER_SEC),
			 (unsigned long long)(wait % MS_PER_SEC / 100));
	else
		snprintf(why, sizeof(why),
			 "libvirt cannot tell whether it manages the domain: "
			 "asked again at the next round");
	log_domain(as,
		   d->held_back && d->held_why == v ? AS_PRIO_DEBUG
						    : AS_PRIO_INFO,
		   d, vcpus, dec->vcpus, "held-back",
		   "%s (domain %u): load %u%%, vcpus %u -> %u held back: %s",
		   d->name, d->domid, load, vcpus, dec->vcpus, why);
	d->held_back = true;
	d->held_why = v;
	return false;
}

static void decide(struct autoscaler *as, struct domain *d, uint64_t tick_ms,
		   const struct sample *s, unsigned int load)
{
	struct as_state before = d->state;
	struct as_decision dec;
	char why[REASON_LEN];

	if (d->changing) {
		/* Its count is changing: decide once the change is done. */
		log_line(as, AS_PRIO_DEBUG,
			 "%s (domain %u): %s: vcpus %u still "
			 "under way",
			 d->name, d->domid, d->backend->name, d->target);
		return;
	}
	as_decide(&d->set.policy, &d->state, tick_ms, load, s->vcpus, &dec);
	if (dec.action != AS_STAY && !as->opt.dry_run &&
	    !may_change(as, d, &dec, load, s->vcpus)) {
		/* The condition still holds: the change comes when the
		 * pace allows, without a fresh hold. */
		d->state = before;
		return;
	}
	as_describe(&d->set.policy, load, s->vcpus, &dec, why, sizeof(why));
	log_domain(as, dec.action == AS_STAY ? AS_PRIO_DEBUG : AS_PRIO_INFO, d,
		   s->vcpus, dec.vcpus, as_reason_name(dec.reason),
		   "%s (domain %u): load %u%%, vcpus %u -> %u: %s: %s%s",
		   d->name, d->domid, load, s->vcpus, dec.vcpus,
		   as_reason_name(dec.reason), why,
		   dec.action != AS_STAY && as->opt.dry_run ? " (dry run)"
							    : "");
	if (dec.action != AS_STAY && dec.vcpus > s->vcpus)
		d->counts.decisions_up++;
	else if (dec.action != AS_STAY && dec.vcpus < s->vcpus)
		d->counts.decisions_down++;
	if (dec.action != AS_STAY && !as->opt.dry_run) {
		d->held_back = false;
		start_change(as, d, dec.vcpus);
	}
}

/* The domain's series (autoscale_metrics.h) from this round's sample. */
static void update_metrics(struct autoscaler *as, const struct domain *d,
			   const struct sample *s, enum as_source src,
			   unsigned int load)
{
	struct as_metrics_domain *m =
		as_metrics_domain(&as->metrics, d->domid, d->name);

	if (!m)
		return;
	m->has_vcpus = true;
	m->vcpus_online = s->vcpus;
	m->vcpus_max = d->maxvcpus;
	m->has_load = src != AS_SOURCE_NONE;
	m->load = load;
	m->source = as_source_name(src);
	m->counts = d->counts;
}

/* A domain whose keys cannot be read this round: skipped, said once. */
static void read_failed(struct autoscaler *as, struct domain *d, int rc)
{
	char note[AS_RATELIMIT_NOTE_LEN];
	unsigned long long left_out;

	d->counts.read_errors++;
	if (d->read_failing)
		return;
	d->read_failing = true;
	/* A guest can make its keys unreadable and readable in turn. */
	if (!as_ratelimit_allow(&d->log_limit, AS_RL_UNREADABLE, now_ms(),
				&left_out))
		return;
	as_ratelimit_note(note, sizeof(note), left_out);
	log_line(as, AS_PRIO_WARNING,
		 "%s (domain %u): cannot read its keys: %s: skipped until "
		 "they can be%s",
		 d->name, d->domid, strerror(-rc), note);
}

/*
 * One round over every followed domain at the sample tick tick_ms (since
 * start; the policy measures hold times in ticks, free of jitter).
 * Returns the count still followed.
 */
static unsigned int sample_all(struct autoscaler *as, uint64_t tick_ms)
{
	unsigned int active = 0;
	size_t i;

	for (i = 0; i < as->ndomains; i++)
		memset(&as->domains[i]->sample, 0,
		       sizeof(as->domains[i]->sample));
	read_xen_load(as, true);
	for (i = 0; i < as->ndomains; i++) {
		struct domain *d = as->domains[i];
		struct sample *s = &d->sample;
		struct as_signal_input in;
		enum as_source src;
		unsigned int load = 0;
		uint64_t t, wall;
		int rc;

		poll_change(as, d, 0, false);
		if (!d->active)
			continue;
		t = now_ms();
		wall = unix_ms();
		rc = read_sample(as, d, s);
		if (rc == -ENOENT || rc == -ESTALE) {
			drop_domain(as, d,
				    rc == -ENOENT ? "disappeared"
						  : "its domid went to another "
						    "domain");
			as->rescan = true; /* a new domain may hold the domid */
			continue;
		}
		active++;
		if (rc) {
			read_failed(as, d, rc);
			continue;
		}
		if (d->read_failing) {
			d->read_failing = false;
			log_line(as, AS_PRIO_INFO,
				 "%s (domain %u): its keys can be read again",
				 d->name, d->domid);
		}
		in = (struct as_signal_input){
			.has_guest = s->has_guest,
			.has_xen = s->has_xen,
			.guest = s->guest,
			.xen = s->xen,
			.vcpus = s->vcpus,
			.maxvcpus = d->maxvcpus,
			.host_cpus = as->host_cpus,
			.has_host_idle = as->has_host_idle,
			.host_idle = as->host_idle,
			.high_pct = d->set.policy.high_pct,
			.low_pct = d->set.policy.low_pct,
		};
		src = as_signal_choose(d->set.signal, &in, &load);
		log_source(as, d, s, src);
		update_metrics(as, d, s, src, load);
		csv_write(as, d, t, wall, s, src, load);
		if (src != AS_SOURCE_NONE)
			decide(as, d, tick_ms, s, load);
	}
	compact_domains(as);
	return active;
}

/* ------------------------------------------------ configuration, metrics */

/* An error in the configuration file, "FILE:LINE: ...". */
static void conf_report(void *ctx, const char *msg)
{
	error(ctx, "%s", msg);
}

/* What holds for every domain: the sample period, and the signal that
 * says whether Xen's CPU accounting is needed. */
static void conf_globals(struct autoscaler *as)
{
	struct as_conf_domain r;

	as_conf_resolve(as->conf, "", &r);
	as->opt.period_ms = r.s.period_ms;
	as->opt.signal = r.s.signal;
}

/*
 * Under systemd's watchdog a round must end, and say so, at least twice
 * per interval: one late round is then no restart, two are.  A longer
 * period is refused rather than met by pinging from the wait, which would
 * tell systemd that rounds complete when they may not.
 */
static bool period_fits_watchdog(const struct autoscaler *as,
				 uint64_t period_ms)
{
	return !as->watchdog_usec ||
	       period_ms * US_PER_MS <= as->watchdog_usec / 2;
}

/* The period too long for the watchdog: said in one line. */
static void watchdog_refuses(struct autoscaler *as, const char *when,
			     uint64_t period_ms)
{
	error(as,
	      "%speriod %llu ms is longer than half the systemd watchdog "
	      "interval (WatchdogSec=%llu ms): raise WatchdogSec= in a "
	      "drop-in, or shorten the period",
	      when, (unsigned long long)period_ms,
	      (unsigned long long)(as->watchdog_usec / US_PER_MS));
}

/*
 * At start: the configuration file over the built-in settings, under the
 * options given.  A missing file is no file, unless --config named it.
 * Exits on an error.
 */
static void load_config(struct autoscaler *as)
{
	int rc = as_conf_reload(&as->conf, as->opt.config_path, &conf_base,
				&as->conf_cli, conf_report, as);

	if (rc == -ENOENT && !as->opt.config_given)
		rc = as_conf_parse(as->opt.config_path, "", 0, &conf_base,
				   &as->conf_cli, &as->conf, conf_report, as);
	else if (rc == -ENOENT)
		error(as, "configuration %s: %s", as->opt.config_path,
		      strerror(ENOENT));
	else if (!rc)
		log_line(as, AS_PRIO_INFO, "configuration %s read",
			 as->opt.config_path);
	if (rc) {
		if (rc != -ENOENT)
			error(as, "configuration %s refused",
			      as->opt.config_path);
		exit(EXIT_USAGE);
	}
	conf_globals(as);
}

/*
 * SIGHUP: read the configuration file again; only a valid one replaces
 * the settings in force, and then every followed domain gets its own
 * again.  A missing or invalid file keeps them, whatever the start had.
 */
static void reload_config(struct autoscaler *as)
{
	uint64_t period = as->opt.period_ms;
	struct as_conf *fresh = NULL;
	struct as_conf_domain g;
	size_t i;
	int rc;

	/* systemd: reloading, since this monotonic time. */
	sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%llu",
		   (unsigned long long)(clock_ns(CLOCK_MONOTONIC) / NS_PER_US));
	rc = as_conf_load(as->opt.config_path, &conf_base, &as->conf_cli,
			  &fresh, conf_report, as);
	if (!rc) {
		as_conf_resolve(fresh, "", &g);
		if (!period_fits_watchdog(as, g.s.period_ms)) {
			watchdog_refuses(as, "SIGHUP: ", g.s.period_ms);
			as_conf_free(fresh);
			rc = -EINVAL;
		}
	}
	if (!rc) {
		as_conf_free(as->conf);
		as->conf = fresh;
	}
	as_metrics_config_reload(&as->metrics, !rc, unix_ms() / MS_PER_SEC);
	sd_notify(0, "READY=1");
	if (rc) {
		/* Never the options alone: a file deleted (or broken) would
		 * then scale the domains it excludes. */
		log_line(as, AS_PRIO_WARNING,
			 "SIGHUP: configuration %s %s: keeping the settings in "
			 "force",
			 as->opt.config_path,
			 rc == -ENOENT ? "missing" : "refused");
		return;
	}
	conf_globals(as);
	log_line(as, AS_PRIO_INFO, "SIGHUP: reloaded the configuration %s",
		 as->opt.config_path);
	if (!open_xenstat(as))
		error(as,
		      "SIGHUP: signal %s: no decision until libxenstat can be "
		      "read (tried again at the next SIGHUP)",
		      as_signal_name(as->opt.signal));
	if (as->opt.period_ms != period)
		log_line(as, AS_PRIO_INFO, "sample period now %llu ms",
			 (unsigned long long)as->opt.period_ms);
	for (i = 0; i < as->ndomains; i++)
		if (as->domains[i]->used)
			configure_domain(as, as->domains[i], false);
}

/* --metrics-file: the metrics as they are after a round.  A failure is
 * said once, until it works again. */
static void write_metrics(struct autoscaler *as)
{
	size_t len;
	char *text;
	int rc;

	if (!as->opt.metrics_file)
		return;
	text = as_metrics_render(&as->metrics, &len);
	rc = text ? as_metrics_write_file(as->opt.metrics_file, text, len)
		  : -ENOMEM;
	free(text);
	if (rc && !as->metrics_failing)
		error(as, "cannot write the metrics %s: %s",
		      as->opt.metrics_file, strerror(-rc));
	else if (!rc && as->metrics_failing)
		log_line(as, AS_PRIO_INFO, "metrics %s written again",
			 as->opt.metrics_file);
	as->metrics_failing = rc != 0;
}

/* The metrics' counts, from start. */
static void open_metrics(struct autoscaler *as)
{
	as_metrics_init(&as->metrics, unix_ms() / MS_PER_SEC);
}

/* ---------------------------------------------------------------- setup */

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		hangup = 1;
	else
		stop_signal = sig;
}

/*
 * SIGINT and SIGTERM stop, SIGHUP reloads the configuration file and
 * reopens the CSV.  All three stay blocked
 * but while the main loop waits (ppoll with wait_mask), so that they never
 * land in libxenstore's thread nor in the middle of a sample.
 */
static void install_signals(struct autoscaler *as)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa;
	sigset_t block;
	unsigned int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&block);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		sigaction(sigs[i], &sa, NULL);
		sigaddset(&block, sigs[i]);
	}
	sigprocmask(SIG_BLOCK, &block, &as->wait_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigdelset(&as->wait_mask, sigs[i]);
}

/* Watch domains come and go; xenstored fires each watch once at once. */
static void watch_domains(struct autoscaler *as)
{
	if (!xs_watch(as->xsh, WATCH_INTRODUCE, WATCH_INTRODUCE) ||
	    !xs_watch(as->xsh, WATCH_RELEASE, WATCH_RELEASE))
		xenstore_failed(as, "watching domains", errno ? -errno : -EIO);
}

/* Take every watch event that has arrived; true if there was one. */
static bool drain_watches(struct autoscaler *as)
{
	bool fired = false;
	char **ev;

	while ((ev = xs_check_watch(as->xsh))) {
		log_line(as, AS_PRIO_DEBUG, "watch %s fired",
			 ev[XS_WATCH_PATH]);
		free(ev);
		fired = true;
	}
	/* Anything but "no more events" means libxenstore's reader thread
	 * has ended: the connection is gone (it says EINVAL then). */
	if (errno != EAGAIN)
		xenstore_lost(as, "reading watch events",
			      errno ? -errno : -EIO);
	return fired;
}

/* Reap the changes that have ended; true while any is still under way. */
static bool poll_changes(struct autoscaler *as)
{
	bool any = false;
	size_t i;

	for (i = 0; i < as->ndomains; i++) {
		poll_change(as, as->domains[i], 0, false);
		any |= as->domains[i]->changing;
	}
	return any;
}

/*
 * Wait until the monotonic time until_ms, a stop signal or SIGHUP; domains
 * introduced or released meanwhile are adopted or dropped at once.
 */
static void wait_until(struct autoscaler *as, uint64_t until_ms)
{
	struct pollfd pfd = {.fd = xs_fileno(as->xsh), .events = POLLIN};

	while (!stop_signal && !hangup) {
		uint64_t now = now_ms(), wait;
		struct timespec ts;
		int r;

		if (now >= until_ms)
			return;
		wait = until_ms - now;
		/* A change under way is looked at every CHANGE_POLL_MS: a
		 * hung xl is killed close to its timeout, not a period
		 * later, for the price of a waitpid(). */
		if (poll_changes(as) && wait > CHANGE_POLL_MS)
			wait = CHANGE_POLL_MS;
		ts.tv_sec = (time_t)(wait / MS_PER_SEC);
		ts.tv_nsec = (long)(wait % MS_PER_SEC) * NS_PER_MS;
		r = ppoll(&pfd, 1, &ts, &as->wait_mask);
		if (r > 0 && (pfd.revents & POLLIN) && drain_watches(as))
			scan_domains(as);
	}
}

/* Wait for the next tick; at SIGHUP meanwhile, reload the configuration
 * file and reopen the CSV. */
static void wait_tick(struct autoscaler *as, uint64_t until_ms)
{
	for (;;) {
		wait_until(as, until_ms);
		if (!hangup)
			return;
		hangup = 0;
		/* The CSV first, and whatever the reload makes of the file:
		 * a rotation must never depend on the configuration. */
		if (as->csv.fd >= 0)
			csv_reopen(as);
		reload_config(as);
	}
}

/* The backends: xl for every domain, libvirt first if asked for. */
static void open_backends(struct autoscaler *as)
{
	as->xl_backend = scale_backend_xl_open(as->opt.xl, as->opt.ignore_host,
					       as->opt.change_timeout_ms);
	if (!as->xl_backend) {
		error(as, "out of memory");
		daemon_exit(as, EXIT_RUNTIME);
	}
	if (!as->opt.libvirt_uri)
		return;
#ifdef HAVE_LIBVIRT_BACKEND
	{
		char err[REASON_LEN] = "";

		as->libvirt_backend = scale_backend_libvirt_open(
			as->opt.libvirt_uri, as->opt.change_timeout_ms, err,
			sizeof(err));
		if (!as->libvirt_backend) {
			error(as, "libvirt %s: %s", as->opt.libvirt_uri, err);
			daemon_exit(as, EXIT_RUNTIME);
		}
		log_line(as, AS_PRIO_INFO, "libvirt %s: connected",
			 as->opt.libvirt_uri);
	}
#else
	usage_error("--libvirt: this build has no libvirt backend");
#endif
}

/* --once: every DOMAIN must select a domain that is ready now. */
static void check_once_domains(struct autoscaler *as)
{
	unsigned int i;
	size_t j;

	if (as->rescan) {
		error(as, "a selected domain has no cpu/ keys: cannot tell its "
			  "maxvcpus");
		daemon_exit(as, EXIT_NO_DOMAIN);
	}
	for (i = 0; i < as->opt.nspecs; i++) {
		bool found = false;

		for (j = 0; j < as->ndomains && !found; j++)
			found = as->domains[j]->used &&
				as_spec_matches(as->opt.specs[i],
						as->domains[j]->name,
						as->domains[j]->domid);
		if (!found) {
			error(as,
			      "no domain '%s' (neither a domid nor a name "
			      "under " DOMAIN_ROOT ")",
			      as->opt.specs[i]);
			daemon_exit(as, EXIT_NO_DOMAIN);
		}
	}
	for (j = 0; j < as->ndomains; j++)
		if (as->domains[j]->used && !as->domains[j]->active &&
		    !as->domains[j]->excluded)
			daemon_exit(as, EXIT_USAGE); /* refused, with the reason
							logged */
	for (j = 0; j < as->ndomains; j++)
		if (as->domains[j]->active)
			return;
	error(as, "no domain to scale");
	daemon_exit(as, EXIT_NO_DOMAIN);
}

static void log_selection(struct autoscaler *as, unsigned int selected)
{
	if (!selected)
		log_line(as, AS_PRIO_INFO,
			 "no domain selected yet: waiting for "
			 "one to appear");
}

/* Never leave a change behind: it is changing a domain.  Those still
 * running after a grace time (a hung xl) are killed. */
static void end_changes(struct autoscaler *as)
{
	uint64_t grace_end = now_ms() + EXIT_GRACE_MS, now;
	size_t i;

	for (i = 0; i < as->ndomains; i++) {
		now = now_ms();
		poll_change(as, as->domains[i],
			    grace_end > now ? grace_end - now : 0, true);
	}
}

/* Free what the daemon holds, whatever it got to before the end. */
static void release(struct autoscaler *as)
{
	size_t i;

	as_csv_close(&as->csv);
	as_metrics_free(&as->metrics);
	as_conf_free(as->conf);
	if (as->libvirt_backend)
		as->libvirt_backend->close(as->libvirt_backend);
	if (as->xl_backend)
		as->xl_backend->close(as->xl_backend);
	if (as->xstat)
		xenstat_uninit(as->xstat);
	if (as->xsh)
		xs_close(as->xsh);
	for (i = 0; i < as->ndomains; i++)
		as->domains[i]->used = false;
	compact_domains(as);
	free(as->domains);
}

void daemon_exit(struct autoscaler *as, int code)
{
	sd_notify(0, "STOPPING=1");
	end_changes(as);
	/* The textfile keeps saying up 0 until a new run replaces it: a
	 * scrape sees a stopped daemon rather than a stale running one. */
	as->metrics.stopped = true;
	write_metrics(as);
	release(as);
	exit(code);
}

int main(int argc, char **argv)
{
	/* The daemon's state, for its whole life. */
	struct autoscaler ctx = {
		.csv = {.fd = -1},
		.log_route = AS_LOG_PLAIN,
	};
	struct autoscaler *as = &ctx;
	struct as_counts total;
	uint64_t next, now;
	unsigned int rounds = 0, active;
	size_t i;
	char cpus[NUM_MAX] = "unknown";
	int rc = 0;

	parse_args(as, argc, argv);
	as->start_ms = now_ms();
	as->log_route = as_log_route_for(STDERR_FILENO);
	load_config(as);
	/* WATCHDOG_USEC, for this process (WATCHDOG_PID): the interval. */
	if (sd_watchdog_enabled(0, &as->watchdog_usec) <= 0)
		as->watchdog_usec = 0;
	if (!period_fits_watchdog(as, as->opt.period_ms)) {
		watchdog_refuses(as, "", as->opt.period_ms);
		as_conf_free(as->conf);
		return EXIT_USAGE;
	}
	open_metrics(as);
	install_signals(as); /* before xs_open: its thread inherits the mask */

	as->xsh = xs_open(0);
	if (!as->xsh) {
		error(as,
		      "cannot connect to xenstore: %s (run in dom0 as root, "
		      "with xenstored running)",
		      strerror(errno));
		daemon_exit(as, EXIT_XENSTORE);
	}
	open_backends(as);
	/* auto never falls back to the guests' claims alone: a guest could
	 * then claim any vCPUs it likes. */
	if (!open_xenstat(as))
		daemon_exit(as, EXIT_XENSTAT);
	if (as->opt.csv_path && !csv_open(as))
		daemon_exit(as, EXIT_RUNTIME);
	if (as->host_cpus)
		snprintf(cpus, sizeof(cpus), "%u", as->host_cpus);
	log_line(as, AS_PRIO_INFO,
		 PROG " %s started: signal %s, period %llu ms, host CPUs %s%s",
		 SMPALT_VERSION, as_signal_name(as->opt.signal),
		 (unsigned long long)as->opt.period_ms, cpus,
		 as->opt.ignore_host ? " (--ignore-host: may exceed them)"
				     : "");
	if (as->opt.once) {
		scan_domains(as);
		check_once_domains(as);
		/* Xen's figure is a rate: read, wait a period, read again. */
		if (xen_figure_source(as)) {
			read_xen_load(as, false);
			wait_until(as, now_ms() + as->opt.period_ms);
		}
	} else {
		watch_domains(as); /* its first events make the first scan */
		log_selection(as, scan_domains(as));
	}
	/* systemd (Type=notify): started, domains found, rounds next. */
	sd_notify(0, "READY=1");

	for (next = as->start_ms; !stop_signal; next += as->opt.period_ms) {
		if (as->rescan)
			scan_domains(as);
		active = sample_all(as, next - as->start_ms);
		xs_check_connection(as);
		rounds++;
		/* A round completed: the only thing that feeds the watchdog. */
		if (as->watchdog_usec)
			sd_notify(0, "WATCHDOG=1");
		write_metrics(as);
		if (!csv_flush(as)) {
			rc = EXIT_RUNTIME;
			break;
		}
		if (as->opt.once) {
			if (!active) {
				log_line(as, AS_PRIO_WARNING,
					 "every domain has disappeared");
				rc = EXIT_ALL_GONE;
			}
			break;
		}
		now = now_ms();
		/* Fell behind (a slow change): skip the ticks missed. */
		while (next + as->opt.period_ms <= now)
			next += as->opt.period_ms;
		if (as->opt.duration_ms &&
		    next + as->opt.period_ms >
			    as->start_ms + as->opt.duration_ms)
			break;
		wait_tick(as, next + as->opt.period_ms);
	}
	end_changes(as);
	total = as->gone;
	for (i = 0; i < as->ndomains; i++)
		counts_add(&total, &as->domains[i]->counts);
	if (as->opt.once && total.failures)
		rc = EXIT_RUNTIME;
	if (as->opt.once && total.read_errors && !rc)
		rc = EXIT_XENSTORE;

	log_line(as, AS_PRIO_INFO,
		 "stopped%s%s after %u sample round%s: %llu change%s%s, "
		 "%llu failed change%s (%llu timed out), %llu held back, "
		 "%llu unreadable domain round%s, %llu CSV row%s%s%s",
		 stop_signal ? " by " : "",
		 stop_signal == SIGINT	  ? "SIGINT"
		 : stop_signal == SIGTERM ? "SIGTERM"
					  : "",
		 rounds, rounds == 1 ? "" : "s",
		 (unsigned long long)total.changes,
		 total.changes == 1 ? "" : "s",
		 as->opt.dry_run ? " (dry run)" : "",
		 (unsigned long long)total.failures,
		 total.failures == 1 ? "" : "s",
		 (unsigned long long)total.timeouts,
		 (unsigned long long)total.held,
		 (unsigned long long)total.read_errors,
		 total.read_errors == 1 ? "" : "s", as->csv_rows,
		 as->csv_rows == 1 ? "" : "s", as->opt.csv_path ? " in " : "",
		 as->opt.csv_path ? as->opt.csv_path : "");
	daemon_exit(as, rc);
}
