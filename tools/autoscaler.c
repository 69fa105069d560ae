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
 * (autoscale_metrics.h).  See
 * docs/autoscaler.md.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
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
#include "autoscale_signal.h"
#include "scale_backend.h"

#ifndef SMPALT_VERSION
#define SMPALT_VERSION "unknown"
#endif

/* The built-in settings the configuration file goes over, and the options
 * given (their bits in .set), which go over the file's [defaults]. */
static const struct as_settings conf_base = {
	.set = AS_CONF_ALL,
	.high_pct = DEFAULT_HIGH_PCT,
	.low_pct = DEFAULT_LOW_PCT,
	.hold_up_ms = DEFAULT_HOLD_MS,
	.hold_down_ms = DEFAULT_HOLD_MS,
	.period_ms = DEFAULT_PERIOD_MS,
	.min_vcpus = DEFAULT_MIN_VCPUS,
	.max_vcpus = 0,
	.cooldown_ms = DEFAULT_COOLDOWN_MS,
	.rate_limit = DEFAULT_RATE_MAX,
	.rate_window_ms = DEFAULT_RATE_WINDOW_MS,
	.signal = AS_SIGNAL_AUTO,
};
/* Set by the signal handler, read by the main loop. */
static volatile sig_atomic_t stop_signal, hangup;

/* ------------------------------------------------------------ utilities */

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

static uint64_t now_ms(void)
{
	return clock_ns(CLOCK_MONOTONIC) / NS_PER_MS;
}

static uint64_t unix_ms(void)
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
static void __attribute__((format(printf, 3, 4)))
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
static void __attribute__((format(printf, 7, 8)))
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
static void __attribute__((format(printf, 2, 3)))
error(struct autoscaler *as, const char *fmt, ...)
{
	struct as_log_event ev = {0};
	va_list ap;

	va_start(ap, fmt);
	vlog_to(as, STDERR_FILENO, AS_PRIO_ERR, PROG ": error: ", &ev, fmt, ap);
	va_end(ap);
}

static void __attribute__((noreturn, format(printf, 1, 2)))
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
static bool parse_uint(const char *s, unsigned long long min,
		       unsigned long long max, unsigned long long *out)
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

static unsigned int opt_uint(const char *name, const char *arg,
			     unsigned int min, unsigned int max)
{
	unsigned long long v;

	if (!parse_uint(arg, min, max, &v))
		usage_error("%s: '%s' is not a whole number within %u..%u",
			    name, arg, min, max);
	return (unsigned int)v;
}

/* Seconds, decimals allowed ("0.5"), to milliseconds. */
static uint64_t opt_seconds(const char *name, const char *arg, uint64_t min_ms)
{
	double v;
	char *end;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v >= 0) || v > SECONDS_MAX ||
	    v * MS_PER_SEC + 0.5 < (double)min_ms)
		usage_error("%s: '%s' is not a number of seconds within "
			    "%llu.%03llu..%u",
			    name, arg, (unsigned long long)min_ms / MS_PER_SEC,
			    (unsigned long long)min_ms % MS_PER_SEC,
			    SECONDS_MAX);
	return (uint64_t)(v * MS_PER_SEC + 0.5);
}

/* ------------------------------------------------------------- xenstore */

/* Read a key into buf (NUL-terminated).  0, or -errno (-ENOENT: absent). */
static int xs_get(struct autoscaler *as, const char *path, char *buf,
		  size_t len)
{
	unsigned int n;
	char *v = xs_read(as->xsh, XBT_NULL, path, &n);

	if (!v)
		return errno ? -errno : -EIO;
	snprintf(buf, len, "%.*s", (int)n, v);
	free(v);
	return 0;
}

/* A domain's key, whole, in a malloc'd string (*out; free it).  0, or
 * -errno (-ENOENT: absent). */
static int xs_get_whole(struct autoscaler *as, unsigned int domid,
			const char *key, char **out)
{
	char path[PATH_LEN];
	unsigned int n;
	char *v;

	snprintf(path, sizeof(path), DOMAIN_ROOT "/%u/%s", domid, key);
	v = xs_read(as->xsh, XBT_NULL, path, &n);
	if (!v)
		return errno ? -errno : -EIO;
	*out = v; /* libxenstore NUL-terminates what it reads */
	return 0;
}

static int xs_get_domid(struct autoscaler *as, unsigned int domid,
			const char *key, char *buf, size_t len)
{
	char path[PATH_LEN];

	snprintf(path, sizeof(path), DOMAIN_ROOT "/%u/%s", domid, key);
	return xs_get(as, path, buf, len);
}

/* A key holding a decimal number: 0, -ENOENT, -EINVAL or -errno. */
static int xs_get_uint(struct autoscaler *as, const struct domain *d,
		       const char *key, unsigned long long max,
		       unsigned long long *out)
{
	char buf[NUM_MAX];
	int rc = xs_get_domid(as, d->domid, key, buf, sizeof(buf));

	if (rc)
		return rc;
	return parse_uint(buf, 0, max, out) ? 0 : -EINVAL;
}

static void __attribute__((noreturn))
xenstore_failed(struct autoscaler *as, const char *what, int rc)
{
	error(as, "xenstore: %s: %s", what, strerror(-rc));
	exit(EXIT_XENSTORE);
}

/* Number of cpu/<i> entries: the domain's maxvcpus (xl writes them all). */
static int count_maxvcpus(struct autoscaler *as, unsigned int domid)
{
	char path[PATH_LEN];
	unsigned int n, i, count = 0;
	char **ents;

	snprintf(path, sizeof(path), DOMAIN_ROOT "/%u/cpu", domid);
	ents = xs_directory(as->xsh, XBT_NULL, path, &n);
	if (!ents)
		return errno ? -errno : -EIO;
	for (i = 0; i < n; i++) {
		unsigned long long id;

		if (parse_uint(ents[i], 0, AS_VCPUS_MAX - 1, &id))
			count++;
	}
	free(ents);
	return (int)count;
}

/* vCPUs set online by the toolstack: cpu/<i>/availability = online. */
static int count_available(struct autoscaler *as, const struct domain *d)
{
	char key[KEY_LEN], v[NUM_MAX];
	unsigned int i, count = 0;

	for (i = 0; i < d->maxvcpus; i++) {
		int rc;

		snprintf(key, sizeof(key), "cpu/%u/availability", i);
		rc = xs_get_domid(as, d->domid, key, v, sizeof(v));
		if (rc == -ENOENT)
			continue;
		if (rc)
			return rc;
		if (!strcmp(v, "online"))
			count++;
	}
	return (int)count;
}

/*
 * The domain's "vm" key, "/vm/<uuid>", written by the toolstack (the guest
 * cannot): *vm malloc'd, or NULL when there is none.  0 or -errno.
 */
static int read_vm(struct autoscaler *as, unsigned int domid, char **vm)
{
	int rc = xs_get_whole(as, domid, "vm", vm);

	if (rc == -ENOENT) {
		*vm = NULL;
		return 0;
	}
	return rc;
}

/* The UUID in a "/vm/<uuid>" path, if it is one ("" otherwise). */
static void uuid_of_vm(const char *vm, char *uuid)
{
	const char *u;
	size_t i;

	uuid[0] = '\0';
	if (!vm || strncmp(vm, VM_PREFIX, strlen(VM_PREFIX)))
		return;
	u = vm + strlen(VM_PREFIX);
	if (strlen(u) != UUID_LEN)
		return;
	for (i = 0; i < UUID_LEN; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? u[i] != '-' : !isxdigit((unsigned char)u[i]))
			return;
	}
	memcpy(uuid, u, UUID_LEN + 1);
}

/* ------------------------------------------------------------ backends */

static struct scale_domain scale_domain_of(const struct domain *d)
{
	return (struct scale_domain){
		.name = d->name,
		.uuid = d->uuid,
		.domid = d->domid,
	};
}

/*
 * The backend for a domain: libvirt's if it manages it, else xl; NULL
 * when libvirt cannot tell now (it is down): decided again later, never
 * xl by default, which would change a libvirt domain behind its back.
 */
static struct scale_backend *backend_for(struct autoscaler *as,
					 const struct domain *d)
{
	struct scale_backend *b = as->libvirt_backend;
	struct scale_domain dom = scale_domain_of(d);
	int rc;

	if (!b)
		return as->xl_backend;
	rc = b->manages ? b->manages(b, &dom) : 1;
	if (rc < 0)
		return NULL;
	return rc ? b : as->xl_backend;
}

/*
 * A change ended at now, ok or not: the pace's cooldown or backoff starts.
 * After a failure, what it means in words in buf: " (no change for 1.0 s:
 * 2 failures in a row)".
 */
static void pace_ended(struct domain *d, uint64_t now, bool ok, char *buf,
		       size_t len)
{
	uint64_t wait;

	as_pace_ended(&d->set.pace, &d->pace, now, ok);
	wait = d->pace.quiet_until_ms - now;
	snprintf(buf, len,
		 " (no change for %llu.%llu s: %u failure%s in a row)",
		 (unsigned long long)(wait / MS_PER_SEC),
		 (unsigned long long)(wait % MS_PER_SEC / 100),
		 d->pace.failures, d->pace.failures == 1 ? "" : "s");
}

static void change_done(struct autoscaler *as, struct domain *d, int rc,
			const char *msg)
{
	uint64_t now = now_ms();
	unsigned long long ms = now - d->change_start_ms;
	char backoff[REASON_LEN];

	d->changing = false;
	pace_ended(d, now, !rc, backoff, sizeof(backoff));
	if (!rc) {
		log_domain(as, AS_PRIO_INFO, d, d->target, d->target, NULL,
			   "%s (domain %u): %s: vcpus %u done in %llu ms",
			   d->name, d->domid, d->backend->name, d->target, ms);
		return;
	}
	d->failures++;
	as->change_failures++;
	if (rc == -ETIMEDOUT) {
		d->timeouts++;
		as->change_timeouts++;
	}
	log_domain(as, AS_PRIO_WARNING, d, d->target, d->target, NULL,
		   "%s (domain %u): %s: vcpus %u failed (%s) after %llu ms%s",
		   d->name, d->domid, d->backend->name, d->target,
		   msg && *msg ? msg : strerror(-rc), ms, backoff);
}

/*
 * Has the domain's change ended?  Logs how.  Waits at most wait_ms for it;
 * kill: one still running then is ended (stopping, or its domain gone).
 */
static void poll_change(struct autoscaler *as, struct domain *d,
			uint64_t wait_ms, bool kill)
{
	char msg[REASON_LEN] = "";
	int rc;

	if (!d->changing || !d->backend->poll)
		return;
	rc = d->backend->poll(d->backend, d->domid, wait_ms, kill, msg,
			      sizeof(msg));
	if (rc != 1)
		change_done(as, d, rc, msg);
}

static void start_change(struct autoscaler *as, struct domain *d,
			 unsigned int n)
{
	struct scale_domain dom = scale_domain_of(d);
	bool done = false;
	int rc;

	as->changes++;
	d->changes++;
	d->target = n;
	d->change_start_ms = now_ms();
	d->changing = true;
	as_pace_started(&d->pace, d->change_start_ms);
	fflush(stdout);
	rc = d->backend->set_vcpus(d->backend, &dom, n, &done);
	if (rc) {
		char backoff[REASON_LEN];

		d->changing = false;
		d->failures++;
		as->change_failures++;
		if (rc == -ETIMEDOUT) {
			d->timeouts++;
			as->change_timeouts++;
		}
		pace_ended(d, now_ms(), false, backoff, sizeof(backoff));
		log_domain(as, AS_PRIO_WARNING, d, n, n, NULL,
			   "%s (domain %u): %s: cannot set %u vcpus: %s%s",
			   d->name, d->domid, d->backend->name, n,
			   strerror(-rc), backoff);
	} else if (done || !d->backend->poll) {
		change_done(as, d, 0, NULL);
	}
}

/* ------------------------------------------------------ Xen accounting */

/* Is there a source of Xen's CPU figure (libxenstat, or the test's)? */
static bool xen_figure_source(struct autoscaler *as)
{
	return as->xstat || as->test_xen_dir;
}

/*
 * Xen's CPU accounting through libxenstat: needed for --signal xen, used
 * by auto for the clamp and for guests without data/smpalt/load.  Opened
 * when the signal in force first needs it (at start, or at a reload that
 * turns guest into auto or xen).  false when it cannot be read.
 */
static bool open_xenstat(struct autoscaler *as)
{
	xenstat_node *node;

	if (as->opt.signal == AS_SIGNAL_GUEST || xen_figure_source(as))
		return true;
	as->test_xen_dir = getenv(ENV_TEST_XEN_LOAD);
	if (as->test_xen_dir && *as->test_xen_dir) {
		log_line(as, AS_PRIO_WARNING,
			 "Xen's CPU figures from %s (" ENV_TEST_XEN_LOAD
			 "): for tests only, not Xen's",
			 as->test_xen_dir);
		return true;
	}
	as->test_xen_dir = NULL;
	as->xstat = xenstat_init();
	if (!as->xstat) {
		error(as,
		      "libxenstat: cannot read Xen's CPU accounting (run in "
		      "dom0 as root, with /dev/xen/privcmd): needed by "
		      "--signal %s%s",
		      as_signal_name(as->opt.signal),
		      as->opt.signal == AS_SIGNAL_AUTO
			      ? ", which bounds the guests' claims by it "
				"(--signal guest trusts the claims alone)"
			      : "");
		return false;
	}
	node = xenstat_get_node(as->xstat, 0);
	if (node) {
		as->host_cpus = xenstat_node_num_cpus(node);
		xenstat_free_node(node);
	}
	return true;
}

/*
 * Tests only: the CPU time the test directory makes Xen account to d by
 * wall, as if d had used the percent in its file since the last reading.
 * false when its file is absent or not a number.
 */
static bool test_cpu_ns(struct autoscaler *as, const struct domain *d,
			uint64_t wall, uint64_t *cpu)
{
	char path[PATH_MAX], buf[NUM_MAX] = "";
	unsigned long long pct;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%u", as->test_xen_dir, d->domid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	if (!parse_uint(buf, 0, UINT32_MAX, &pct))
		return false;
	*cpu = d->has_cpu
		       ? d->cpu_ns +
				 (unsigned long long)((unsigned __int128)pct *
						      (wall - d->cpu_wall_ns) /
						      AS_PERCENT)
		       : 0;
	return true;
}

/*
 * The host's idle time since the last reading: its CPUs' time less the
 * CPU time of every domain.  A domain gone since counts against it (the
 * sum may fall: no figure this round), so it errs towards a busy host
 * only as far as a new domain's first reading, which is its run so far.
 */
static void read_host_idle(struct autoscaler *as, xenstat_node *node,
			   uint64_t wall, bool sample)
{
	unsigned int i, n = xenstat_node_num_domains(node), used;
	uint64_t cpu = 0;

	as->has_host_idle = false;
	for (i = 0; i < n; i++) {
		xenstat_domain *xd = xenstat_node_domain_by_index(node, i);

		if (xd)
			cpu += xenstat_domain_cpu_ns(xd);
	}
	if (sample && as->has_host_cpu && as->host_cpus &&
	    cpu >= as->host_cpu_ns && wall > as->host_cpu_wall_ns &&
	    as_cpu_load(cpu - as->host_cpu_ns, wall - as->host_cpu_wall_ns,
			&used)) {
		as->has_host_idle = true;
		as->host_idle = used < as->host_cpus * AS_PERCENT
					? as->host_cpus * AS_PERCENT - used
					: 0;
	}
	as->has_host_cpu = true;
	as->host_cpu_ns = cpu;
	as->host_cpu_wall_ns = wall;
}

/*
 * Read the CPU time Xen has accounted to every followed domain's vCPUs and
 * turn the change since the last reading into a load (d->sample.xen, when
 * sample).  Without libxenstat (or when it fails) no domain gets a Xen
 * figure this round.
 */
static void read_xen_load(struct autoscaler *as, bool sample)
{
	xenstat_node *node = NULL;
	size_t i;
	uint64_t wall;

	as->has_host_idle = false;
	if (!xen_figure_source(as))
		return;
	/* Xen's figures are read first thing in xenstat_get_node(): the
	 * time just before it is theirs, the same way at every round. */
	wall = clock_ns(CLOCK_MONOTONIC);
	if (as->xstat) {
		node = xenstat_get_node(as->xstat, 0);
		if (!node) {
			log_line(as, AS_PRIO_WARNING,
				 "libxenstat: cannot read the domains' CPU "
				 "time: no decision this round");
			return;
		}
	}
	for (i = 0; i < as->ndomains; i++) {
		struct domain *d = as->domains[i];
		xenstat_domain *xd;
		uint64_t cpu;

		if (!d->active)
			continue;
		if (node) {
			xd = xenstat_node_domain(node, d->domid);
			/* The domain's CPU time is the sum of its vCPUs'
			 * (Xen's getdomaininfo). */
			if (xd)
				cpu = xenstat_domain_cpu_ns(xd);
		} else {
			xd = NULL;
		}
		if (node ? !xd : !test_cpu_ns(as, d, wall, &cpu)) {
			d->has_cpu = false;
			continue;
		}
		d->sample.xen_first = !d->has_cpu;
		if (sample && d->has_cpu && cpu >= d->cpu_ns &&
		    wall > d->cpu_wall_ns)
			d->sample.has_xen = as_cpu_load(cpu - d->cpu_ns,
							wall - d->cpu_wall_ns,
							&d->sample.xen);
		d->has_cpu = true;
		d->cpu_ns = cpu;
		d->cpu_wall_ns = wall;
	}
	if (node) {
		read_host_idle(as, node, wall, sample);
		xenstat_free_node(node);
	}
}

/* ------------------------------------------------------------ lifecycle */

static struct domain *find_domain(struct autoscaler *as, unsigned int domid)
{
	size_t i;

	for (i = 0; i < as->ndomains; i++)
		if (as->domains[i]->used && as->domains[i]->domid == domid)
			return as->domains[i];
	return NULL;
}

static void drop_domain(struct autoscaler *as, struct domain *d,
			const char *why)
{
	if (d->active)
		log_line(as, AS_PRIO_WARNING, "%s (domain %u): %s: dropped",
			 d->name, d->domid, why);
	/* A change still under way ends now: xl fails fast on a domain
	 * that is gone, and must not be left behind. */
	poll_change(as, d, EXIT_GRACE_MS, true);
	d->used = false;
	d->active = false;
	as_metrics_forget(&as->metrics, d->domid);
}

/* Free the dropped domains; the others keep their order. */
static void compact_domains(struct autoscaler *as)
{
	size_t i, kept = 0;

	for (i = 0; i < as->ndomains; i++) {
		struct domain *d = as->domains[i];

		if (d->used) {
			as->domains[kept++] = d;
			continue;
		}
		free(d->name);
		free(d->vm);
		free(d);
	}
	as->ndomains = kept;
}

/* The configuration file's settings (autoscale_config.h) as the
 * program's: the backoff is the command line's alone. */
static void settings_from(struct autoscaler *as, const struct as_settings *c,
			  struct domain_settings *set)
{
	*set = (struct domain_settings){0};
	set->pace.backoff_max_ms = as->opt.backoff_max_ms;
	set->policy.high_pct = c->high_pct;
	set->policy.low_pct = c->low_pct;
	set->policy.hold_up_ms = c->hold_up_ms;
	set->policy.hold_down_ms = c->hold_down_ms;
	set->policy.min_vcpus = c->min_vcpus;
	set->policy.max_vcpus = c->max_vcpus;
	set->pace.cooldown_ms = c->cooldown_ms;
	set->pace.rate_max = c->rate_limit;
	set->pace.rate_window_ms = c->rate_window_ms;
	set->signal = c->signal;
	if (as->opt.once) {
		/* One sample cannot show a condition that holds. */
		set->policy.hold_up_ms = 0;
		set->policy.hold_down_ms = 0;
	}
}

/*
 * The settings of a domain by its name: the configuration file's section
 * for it over the defaults (as_conf_resolve).  NULL, or the exclude
 * pattern that keeps it from being scaled.
 */
static const char *settings_for(struct autoscaler *as, const char *name,
				struct domain_settings *set, unsigned int *line)
{
	struct as_conf_domain r;

	as_conf_resolve(as->conf, name, &r);
	settings_from(as, &r.s, set);
	*line = r.line;
	return r.excluded ? r.exclude : NULL;
}

static bool settings_equal(const struct domain_settings *a,
			   const struct domain_settings *b)
{
	return a->policy.high_pct == b->policy.high_pct &&
	       a->policy.low_pct == b->policy.low_pct &&
	       a->policy.hold_up_ms == b->policy.hold_up_ms &&
	       a->policy.hold_down_ms == b->policy.hold_down_ms &&
	       a->policy.min_vcpus == b->policy.min_vcpus &&
	       a->policy.max_vcpus == b->policy.max_vcpus &&
	       a->pace.cooldown_ms == b->pace.cooldown_ms &&
	       a->pace.rate_max == b->pace.rate_max &&
	       a->pace.rate_window_ms == b->pace.rate_window_ms &&
	       a->pace.backoff_max_ms == b->pace.backoff_max_ms &&
	       a->signal == b->signal;
}

/*
 * Give d its settings (settings_for), bounded by its maxvcpus and the
 * host, and start or stop scaling it accordingly: at adoption (first) and
 * after every reload of the configuration file.  Logs what it gets once,
 * and again when that changes.
 */
static void configure_domain(struct autoscaler *as, struct domain *d,
			     bool first)
{
	struct domain_settings set;
	char err[REASON_LEN];
	struct as_config *cfg = &set.policy;
	const char *excl;
	unsigned int line;

	excl = settings_for(as, d->name, &set, &line);
	if (excl) {
		if (first || !d->excluded)
			log_line(as, AS_PRIO_INFO,
				 "%s (domain %u): excluded by '%s' (%s:%u): "
				 "not scaled",
				 d->name, d->domid, excl, as->opt.config_path,
				 line);
		poll_change(as, d, EXIT_GRACE_MS, true);
		d->excluded = true;
		d->active = false;
		as_metrics_forget(&as->metrics, d->domid);
		return;
	}
	if (!cfg->max_vcpus)
		cfg->max_vcpus = d->maxvcpus;
	if (cfg->max_vcpus > d->maxvcpus) {
		log_line(as, AS_PRIO_INFO,
			 "%s (domain %u): --max %u above its maxvcpus %u: "
			 "using %u",
			 d->name, d->domid, cfg->max_vcpus, d->maxvcpus,
			 d->maxvcpus);
		cfg->max_vcpus = d->maxvcpus;
	}
	/* xl refuses more vCPUs than the host has CPUs (without -i): an
	 * overcommitted host gains nothing from them. */
	if (!as->opt.ignore_host && as->host_cpus &&
	    cfg->max_vcpus > as->host_cpus) {
		log_line(as, AS_PRIO_INFO,
			 "%s (domain %u): at most the host's %u CPUs, not %u "
			 "(--ignore-host to exceed)",
			 d->name, d->domid, as->host_cpus, cfg->max_vcpus);
		cfg->max_vcpus = as->host_cpus;
	}
	if (as_config_check(cfg, err, sizeof(err))) {
		/* Kept, inactive, so that it is refused once, not at every
		 * scan; freed when the domain goes. */
		error(as, "%s (domain %u, maxvcpus %u): %s: not scaled",
		      d->name, d->domid, d->maxvcpus, err);
		poll_change(as, d, EXIT_GRACE_MS, true);
		d->excluded = false;
		d->active = false;
		as_metrics_forget(&as->metrics, d->domid);
		return;
	}
	if (!first && d->active && settings_equal(&set, &d->set))
		return; /* unchanged */
	if (first || !d->active) {
		as_state_init(&d->state);
		as_pace_init(&d->pace);
		d->backend = backend_for(as, d);
		d->source_logged = false;
	}
	d->set = set;
	d->excluded = false;
	d->active = true;
	log_domain(as, AS_PRIO_INFO, d, 0, 0, NULL,
		   "%s %s (domain %u): vcpus %u..%u, high %u%%, low %u%%, "
		   "hold up %llu ms, down %llu ms, period %llu ms, signal %s, "
		   "via %s%s%s%s",
		   first ? "watching" : "settings of", d->name, d->domid,
		   cfg->min_vcpus, cfg->max_vcpus, cfg->high_pct, cfg->low_pct,
		   (unsigned long long)cfg->hold_up_ms,
		   (unsigned long long)cfg->hold_down_ms,
		   (unsigned long long)as->opt.period_ms,
		   as_signal_name(set.signal),
		   d->backend ? d->backend->name : "(undecided: libvirt down)",
		   as->opt.dry_run ? " (dry run)" : "",
		   d->uuid[0] ? ", uuid " : "", d->uuid);
}

/* A new, empty entry at the end of the table; NULL on ENOMEM. */
static struct domain *new_domain(struct autoscaler *as)
{
	struct domain *d;

	if (as->ndomains == as->domains_cap) {
		size_t cap = as->domains_cap ? as->domains_cap * 2 : 16;
		struct domain **t = realloc(as->domains, cap * sizeof(*t));

		if (!t)
			return NULL;
		as->domains = t;
		as->domains_cap = cap;
	}
	d = calloc(1, sizeof(*d));
	if (d)
		as->domains[as->ndomains++] = d;
	return d;
}

/*
 * Start following a domain (name is taken over: freed here or with the
 * domain).  0; -EAGAIN when it is not ready (no cpu/ keys yet: being
 * built); -ENOMEM; -errno from xenstore.
 */
static int adopt_domain(struct autoscaler *as, unsigned int domid, char *name)
{
	unsigned int maxvcpus;
	struct domain *d;
	char *vm;
	int rc;

	rc = count_maxvcpus(as, domid);
	if (rc == -ENOENT || rc == 0)
		rc = -EAGAIN;
	if (rc < 0)
		goto fail;
	maxvcpus = (unsigned int)rc;
	rc = read_vm(as, domid, &vm);
	if (rc)
		goto fail;
	d = new_domain(as);
	if (!d) {
		free(vm);
		rc = -ENOMEM;
		goto fail;
	}
	d->used = true;
	d->seen = true;
	d->domid = domid;
	d->name = name;
	d->vm = vm;
	uuid_of_vm(vm, d->uuid);
	d->maxvcpus = maxvcpus;
	configure_domain(as, d, true);
	return 0;
fail:
	free(name);
	return rc;
}

/*
 * Is the domain followed as d still d?  false when its "vm" key names
 * another /vm (the domid went to another domain).  A read error keeps it,
 * and so does a missing key: the home is being removed (the domain is
 * going, which the next read of it tells), or a new domain has not
 * written its key yet (it is compared again at the next scan).
 */
static bool same_domain(struct autoscaler *as, const struct domain *d)
{
	char *vm = NULL;
	bool same;

	if (read_vm(as, d->domid, &vm) || !vm)
		return true;
	same = d->vm && !strcmp(vm, d->vm);
	free(vm);
	return same;
}

/*
 * Look at /local/domain: drop followed domains whose home went (or whose
 * domid now belongs to another domain), adopt the selected ones not
 * followed yet.  A selected domain that is not ready, or that cannot be
 * read now, leaves `rescan` set, to look again at the next sample.
 * Returns the number of domains selected (followed or not ready).
 */
static unsigned int scan_domains(struct autoscaler *as)
{
	unsigned int n, i, selected = 0;
	char **ents;
	size_t j;

	as->rescan = false;
	ents = xs_directory(as->xsh, XBT_NULL, DOMAIN_ROOT, &n);
	if (!ents)
		xenstore_failed(as, "listing " DOMAIN_ROOT,
				errno ? -errno : -EIO);
	for (j = 0; j < as->ndomains; j++)
		as->domains[j]->seen = false;
	for (i = 0; i < n; i++) {
		unsigned long long id;
		char *name = NULL;
		struct domain *d;
		int rc;

		if (!parse_uint(ents[i], 0, DOMID_FIRST_RESERVED - 1, &id))
			continue;
		d = find_domain(as, (unsigned int)id);
		if (d && !same_domain(as, d)) {
			drop_domain(as, d, "its domid went to another domain");
			d = NULL;
		}
		if (d) {
			d->seen = true;
			selected++;
			continue;
		}
		rc = xs_get_whole(as, (unsigned int)id, "name", &name);
		if (rc && rc != -ENOENT) {
			log_line(as, AS_PRIO_WARNING,
				 "domain %llu: cannot read its name: %s: "
				 "looked at again later",
				 id, strerror(-rc));
			as->rescan = true;
			continue;
		}
		if (rc) {
			/* Being built (or nameless): a glob may take it once
			 * it has its name, maybe without a new event. */
			as->rescan = true;
			if (asprintf(&name, "domain-%llu", id) < 0) {
				error(as, "out of memory");
				continue;
			}
		}
		if (!as_domain_selected(as->opt.all, as->opt.specs,
					as->opt.nspecs, rc ? NULL : name,
					(unsigned int)id)) {
			free(name);
			continue;
		}
		selected++;
		rc = adopt_domain(as, (unsigned int)id, name);
		if (rc == -EAGAIN) {
			log_line(as, AS_PRIO_DEBUG,
				 "domain %llu: no cpu/ keys yet", id);
			as->rescan = true;
		} else if (rc) {
			log_line(as, AS_PRIO_WARNING,
				 "domain %llu: cannot adopt it: %s: looked at "
				 "again later",
				 id, strerror(-rc));
			as->rescan = true;
		}
	}
	free(ents);
	for (j = 0; j < as->ndomains; j++)
		if (as->domains[j]->used && !as->domains[j]->seen)
			drop_domain(as, as->domains[j], "disappeared");
	compact_domains(as);
	return selected;
}

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
		.vcpus = s->has_online ? s->online : s->vcpus,
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
			return errno ? -errno : -EIO;
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

/* Say once where the domain's load comes from, again when that changes. */
static void log_source(struct autoscaler *as, struct domain *d,
		       const struct sample *s, enum as_source src)
{
	char idle[sizeof(", host idle 4294967295%")] = "";

	if (d->source_logged && d->last_source == src)
		return;
	d->source_logged = true;
	d->last_source = src;
	switch (src) {
	case AS_SOURCE_NONE:
		if (s->xen_first) {
			/* Xen's figure comes with the next reading. */
			d->source_logged = false;
			return;
		}
		if (d->set.signal == AS_SIGNAL_XEN ||
		    d->set.signal == AS_SIGNAL_AUTO)
			log_line(as, AS_PRIO_WARNING,
				 "%s (domain %u): no CPU time from Xen for it: "
				 "not deciding until there is%s",
				 d->name, d->domid,
				 d->set.signal == AS_SIGNAL_AUTO && s->has_guest
					 ? " (its " KEY_LOAD
					   " is never taken alone)"
					 : "");
		else
			log_line(as, AS_PRIO_WARNING,
				 "%s (domain %u): %s absent: not deciding "
				 "until there is a load",
				 d->name, d->domid, KEY_LOAD);
		break;
	case AS_SOURCE_GUEST:
		log_line(as, AS_PRIO_INFO,
			 "%s (domain %u): load from the guest's %s%s", d->name,
			 d->domid, KEY_LOAD,
			 s->has_xen ? ", bounded by Xen's CPU accounting" : "");
		break;
	case AS_SOURCE_GUEST_CAPPED:
		if (as->has_host_idle)
			snprintf(idle, sizeof(idle), ", host idle %u%%",
				 as->host_idle);
		if (s->has_xen)
			log_line(as, AS_PRIO_WARNING,
				 "%s (domain %u): %s %u%% capped (maxvcpus %u, "
				 "Xen measures %u%% on %u vCPU%s%s)",
				 d->name, d->domid, KEY_LOAD, s->guest,
				 d->maxvcpus, s->xen, s->vcpus,
				 s->vcpus == 1 ? "" : "s", idle);
		else
			log_line(as, AS_PRIO_WARNING,
				 "%s (domain %u): %s %u%% capped (maxvcpus %u)",
				 d->name, d->domid, KEY_LOAD, s->guest,
				 d->maxvcpus);
		break;
	case AS_SOURCE_XEN:
		log_line(as, AS_PRIO_INFO,
			 "%s (domain %u): load from Xen's CPU accounting%s",
			 d->name, d->domid,
			 s->has_guest ? "" : " (no " KEY_LOAD ")");
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
	d->held++;
	as->changes_held++;
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
		d->ups++;
	else if (dec.action != AS_STAY && dec.vcpus < s->vcpus)
		d->downs++;
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
	m->decisions_up = d->ups;
	m->decisions_down = d->downs;
	m->failures = d->failures;
	m->rate_limited = d->held;
	m->timeouts = d->timeouts;
}

/* A domain whose keys cannot be read this round: skipped, said once. */
static void read_failed(struct autoscaler *as, struct domain *d, int rc)
{
	d->read_errors++;
	as->read_errors++;
	if (d->read_failing)
		return;
	d->read_failing = true;
	log_line(as, AS_PRIO_WARNING,
		 "%s (domain %u): cannot read its keys: %s: skipped until "
		 "they can be",
		 d->name, d->domid, strerror(-rc));
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
 * again.
 */
static void reload_config(struct autoscaler *as)
{
	struct as_conf *fresh = NULL;
	uint64_t period = as->opt.period_ms;
	int rc = as_conf_reload(&as->conf, as->opt.config_path, &conf_base,
				&as->conf_cli, conf_report, as);
	size_t i;

	if (rc == -ENOENT && !as->opt.config_given) {
		/* No file at the default path: as at a start without it,
		 * the options alone. */
		rc = as_conf_parse(as->opt.config_path, "", 0, &conf_base,
				   &as->conf_cli, &fresh, conf_report, as);
		if (!rc) {
			as_conf_free(as->conf);
			as->conf = fresh;
			log_line(as, AS_PRIO_INFO,
				 "SIGHUP: no configuration %s: the options "
				 "alone apply",
				 as->opt.config_path);
		}
	}
	as_metrics_config_reload(&as->metrics, !rc, unix_ms() / MS_PER_SEC);
	if (rc) {
		error(as,
		      "SIGHUP: configuration %s %s: keeping the settings in "
		      "force",
		      as->opt.config_path,
		      rc == -ENOENT ? "missing" : "refused");
		return;
	}
	conf_globals(as);
	if (!fresh)
		log_line(as, AS_PRIO_INFO,
			 "SIGHUP: reloaded the configuration %s",
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
	if (errno != EAGAIN)
		xenstore_failed(as, "reading watch events",
				errno ? -errno : -EIO);
	return fired;
}

/*
 * Wait until the monotonic time until_ms, a stop signal or SIGHUP; domains
 * introduced or released meanwhile are adopted or dropped at once.
 */
static void wait_until(struct autoscaler *as, uint64_t until_ms)
{
	struct pollfd pfd = {.fd = xs_fileno(as->xsh), .events = POLLIN};

	while (!stop_signal && !hangup) {
		uint64_t now = now_ms();
		struct timespec ts;
		int r;

		if (now >= until_ms)
			return;
		ts.tv_sec = (time_t)((until_ms - now) / MS_PER_SEC);
		ts.tv_nsec = (long)((until_ms - now) % MS_PER_SEC) * NS_PER_MS;
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
		reload_config(as);
		if (as->csv.fd >= 0)
			csv_reopen(as);
	}
}

static void print_help(void)
{
	printf("Usage: " PROG " [OPTION]... DOMAIN...\n"
	       "       " PROG " [OPTION]... --all\n"
	       "Scale the vCPUs of Xen guests by their load: the CPU time Xen "
	       "accounts to\ntheir vCPUs, or what an smpalt guest publishes "
	       "in " KEY_LOAD "\n(percent of one vCPU: 250 = work for 2.5 "
	       "vCPUs).  Run in dom0 as root.\n"
	       "DOMAIN is a domid, a name or a glob ('web-*'); --all takes "
	       "every domain\nbut dom0.  Domains that appear later are "
	       "adopted, those that go dropped.\n"
	       "\n"
	       "Every sample period, for each domain: utilisation = load / "
	       "vCPUs.\n"
	       "Above --high for --hold-up: scale up; below --low for "
	       "--hold-down: scale\n"
	       "down; both to ceil(load / high), clamped to --min..--max.\n"
	       "\n"
	       "  -a, --all             every domain but dom0\n"
	       "  -s, --signal SIGNAL   load from: xen (CPU time), guest "
	       "(" KEY_LOAD "),\n"
	       "                        auto (guest's, bounded both ways by "
	       "Xen's figure;\n"
	       "                        else Xen's; default)\n"
	       "  -H, --high PCT        scale-up threshold, %% of each vCPU "
	       "(default %u)\n"
	       "  -L, --low PCT         scale-down threshold (default %u; 0: "
	       "never down)\n"
	       "  -p, --period SEC      sample period (default %u.%03u)\n"
	       "      --hold SEC        hold time for both directions (default "
	       "%u.%03u)\n"
	       "      --hold-up SEC     hold time before scaling up\n"
	       "      --hold-down SEC   hold time before scaling down\n"
	       "  -m, --min N           fewest vCPUs (default %u)\n"
	       "  -M, --max N           most vCPUs (default: the domain's "
	       "maxvcpus; without\n"
	       "                        --ignore-host at most the host's "
	       "CPUs)\n"
	       "      --cooldown SEC    no change to a domain this long after "
	       "its last one\n"
	       "                        (default %u.%03u)\n"
	       "      --rate-max N      at most N changes to a domain per "
	       "--rate-window\n"
	       "                        (default %u; 0: no limit)\n"
	       "      --rate-window SEC the rate limit's window (default "
	       "%u)\n"
	       "      --backoff-max SEC after failed changes, wait the "
	       "cooldown doubled per\n"
	       "                        failure, at most SEC (default %u)\n"
	       "      --change-timeout SEC  kill an xl vcpu-set running this "
	       "long (default %u)\n"
	       "  -d, --duration SEC    stop after SEC (default: at SIGINT or "
	       "SIGTERM)\n"
	       "  -c, --csv FILE        append one row per domain per sample "
	       "(SIGHUP\n"
	       "                        reopens it):\n"
	       "                        " AS_CSV_HEADER "\n"
	       "      --config FILE     the configuration file "
	       "(default " AS_CONF_PATH ";\n"
	       "                        that one may be missing): per-domain "
	       "settings and\n"
	       "                        exclusions; options given here "
	       "override its [defaults]\n"
	       "                        but not its [domain] sections; "
	       "SIGHUP reloads it\n"
	       "      --check-config [FILE]  check FILE (default: the "
	       "--config one), print\n"
	       "                        each error as FILE:LINE, exit 0 "
	       "(valid) or 1\n"
	       "      --metrics-file PATH  Prometheus metrics, replaced "
	       "atomically every period\n"
	       "                        (node_exporter's textfile "
	       "collector)\n"
	       "  -1, --once            one sample, no hold time, then exit\n"
	       "  -n, --dry-run         decide and log, change nothing\n"
	       "  -x, --xl PATH         the xl program (default %s)\n"
	       "  -i, --ignore-host     let xl set more vCPUs than the host "
	       "has CPUs\n"
	       "                        (xl vcpu-set -i; test rigs only)\n"
	       "      --libvirt URI     domains this libvirt connection knows "
	       "are scaled\n"
	       "                        through it (e.g. xen:///system)\n"
	       "      --log-priority WHEN  <N> syslog priority prefixes on log "
	       "lines:\n"
	       "                        auto (stderr not a terminal), always, "
	       "never\n"
	       "  -v, --verbose         log every sample, not just changes\n"
	       "  -V, --version         the version\n"
	       "  -h, --help            this text\n"
	       "\n"
	       "Exit status: 0 ok, %d CSV failure (or a failed change with "
	       "--once), %d usage or\n"
	       "configuration error, %d xenstore unreachable (--once: a "
	       "domain unreadable),\n"
	       "%d --once: no such domain, %d --once: every domain went, %d "
	       "--signal xen or\n"
	       "auto: no Xen CPU accounting.\n",
	       DEFAULT_HIGH_PCT, DEFAULT_LOW_PCT,
	       DEFAULT_PERIOD_MS / MS_PER_SEC, DEFAULT_PERIOD_MS % MS_PER_SEC,
	       DEFAULT_HOLD_MS / MS_PER_SEC, DEFAULT_HOLD_MS % MS_PER_SEC,
	       DEFAULT_MIN_VCPUS, DEFAULT_COOLDOWN_MS / MS_PER_SEC,
	       DEFAULT_COOLDOWN_MS % MS_PER_SEC, DEFAULT_RATE_MAX,
	       DEFAULT_RATE_WINDOW_MS / MS_PER_SEC,
	       DEFAULT_BACKOFF_MAX_MS / MS_PER_SEC,
	       DEFAULT_CHANGE_TIMEOUT_MS / MS_PER_SEC, DEFAULT_XL, EXIT_RUNTIME,
	       EXIT_USAGE, EXIT_XENSTORE, EXIT_NO_DOMAIN, EXIT_ALL_GONE,
	       EXIT_XENSTAT);
}

enum long_only {
	OPT_HOLD = 256,
	OPT_HOLD_UP,
	OPT_HOLD_DOWN,
	OPT_LIBVIRT,
	OPT_LOG_PRIORITY,
	OPT_COOLDOWN,
	OPT_RATE_MAX,
	OPT_RATE_WINDOW,
	OPT_BACKOFF_MAX,
	OPT_CHANGE_TIMEOUT,
	OPT_CONFIG,
	OPT_CHECK_CONFIG,
	OPT_METRICS_FILE,
	OPT_METRICS_LISTEN,
};

/* The options given that the configuration file also has. */
#define CLI(field) (as->conf_cli.set |= AS_CONF_BIT(AS_CONF_##field))

static void parse_args(struct autoscaler *as, int argc, char **argv)
{
	static const struct option longopts[] = {
		{"all", no_argument, NULL, 'a'},
		{"signal", required_argument, NULL, 's'},
		{"high", required_argument, NULL, 'H'},
		{"low", required_argument, NULL, 'L'},
		{"period", required_argument, NULL, 'p'},
		{"hold", required_argument, NULL, OPT_HOLD},
		{"hold-up", required_argument, NULL, OPT_HOLD_UP},
		{"hold-down", required_argument, NULL, OPT_HOLD_DOWN},
		{"min", required_argument, NULL, 'm'},
		{"max", required_argument, NULL, 'M'},
		{"duration", required_argument, NULL, 'd'},
		{"csv", required_argument, NULL, 'c'},
		{"once", no_argument, NULL, '1'},
		{"dry-run", no_argument, NULL, 'n'},
		{"xl", required_argument, NULL, 'x'},
		{"ignore-host", no_argument, NULL, 'i'},
		{"libvirt", required_argument, NULL, OPT_LIBVIRT},
		{"log-priority", required_argument, NULL, OPT_LOG_PRIORITY},
		{"cooldown", required_argument, NULL, OPT_COOLDOWN},
		{"rate-max", required_argument, NULL, OPT_RATE_MAX},
		{"rate-window", required_argument, NULL, OPT_RATE_WINDOW},
		{"backoff-max", required_argument, NULL, OPT_BACKOFF_MAX},
		{"change-timeout", required_argument, NULL, OPT_CHANGE_TIMEOUT},
		{"config", required_argument, NULL, OPT_CONFIG},
		{"check-config", optional_argument, NULL, OPT_CHECK_CONFIG},
		{"metrics-file", required_argument, NULL, OPT_METRICS_FILE},
		{"metrics-listen", required_argument, NULL, OPT_METRICS_LISTEN},
		{"verbose", no_argument, NULL, 'v'},
		{"version", no_argument, NULL, 'V'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	char err[REASON_LEN];
	struct as_settings given;
	struct domain_settings check;
	bool check_config = false;
	const char *check_path = NULL;
	unsigned int i;
	int c;

	as->opt.backoff_max_ms = DEFAULT_BACKOFF_MAX_MS;
	as->opt.change_timeout_ms = DEFAULT_CHANGE_TIMEOUT_MS;
	as->opt.xl = DEFAULT_XL;
	as->opt.log_priority = PRIO_AUTO;
	as->opt.config_path = AS_CONF_PATH;

	while ((c = getopt_long(argc, argv, "as:H:L:p:m:M:d:c:1nx:ivVh",
				longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			as->opt.all = true;
			break;
		case 's':
			if (as_signal_parse(optarg, &as->conf_cli.signal))
				usage_error("--signal: '%s' is none of xen, "
					    "guest, auto",
					    optarg);
			CLI(SIGNAL);
			break;
		case 'H':
			as->conf_cli.high_pct =
				opt_uint("--high", optarg, 1, AS_THRESHOLD_MAX);
			CLI(HIGH);
			break;
		case 'L':
			as->conf_cli.low_pct =
				opt_uint("--low", optarg, 0, AS_THRESHOLD_MAX);
			CLI(LOW);
			break;
		case 'p':
			as->conf_cli.period_ms =
				opt_seconds("--period", optarg, PERIOD_MIN_MS);
			CLI(PERIOD);
			break;
		case OPT_HOLD:
			as->conf_cli.hold_up_ms =
				opt_seconds("--hold", optarg, 0);
			as->conf_cli.hold_down_ms = as->conf_cli.hold_up_ms;
			CLI(HOLD_UP);
			CLI(HOLD_DOWN);
			break;
		case OPT_HOLD_UP:
			as->conf_cli.hold_up_ms =
				opt_seconds("--hold-up", optarg, 0);
			CLI(HOLD_UP);
			break;
		case OPT_HOLD_DOWN:
			as->conf_cli.hold_down_ms =
				opt_seconds("--hold-down", optarg, 0);
			CLI(HOLD_DOWN);
			break;
		case 'm':
			as->conf_cli.min_vcpus =
				opt_uint("--min", optarg, 1, AS_VCPUS_MAX);
			CLI(MIN);
			break;
		case 'M':
			as->conf_cli.max_vcpus =
				opt_uint("--max", optarg, 1, AS_VCPUS_MAX);
			CLI(MAX);
			break;
		case 'd':
			as->opt.duration_ms =
				opt_seconds("--duration", optarg, 0);
			break;
		case 'c':
			as->opt.csv_path = optarg;
			break;
		case '1':
			as->opt.once = true;
			break;
		case 'n':
			as->opt.dry_run = true;
			break;
		case 'x':
			as->opt.xl = optarg;
			break;
		case 'i':
			as->opt.ignore_host = true;
			break;
		case OPT_LIBVIRT:
			as->opt.libvirt_uri = optarg;
			break;
		case OPT_LOG_PRIORITY:
			if (!strcmp(optarg, "auto"))
				as->opt.log_priority = PRIO_AUTO;
			else if (!strcmp(optarg, "always"))
				as->opt.log_priority = PRIO_ALWAYS;
			else if (!strcmp(optarg, "never"))
				as->opt.log_priority = PRIO_NEVER;
			else
				usage_error("--log-priority: '%s' is none of "
					    "auto, always, never",
					    optarg);
			break;
		case OPT_COOLDOWN:
			as->conf_cli.cooldown_ms =
				opt_seconds("--cooldown", optarg, 0);
			CLI(COOLDOWN);
			break;
		case OPT_RATE_MAX:
			as->conf_cli.rate_limit =
				opt_uint("--rate-max", optarg, 0, AS_RATE_MAX);
			CLI(RATE_LIMIT);
			break;
		case OPT_RATE_WINDOW:
			as->conf_cli.rate_window_ms =
				opt_seconds("--rate-window", optarg, 0);
			CLI(RATE_WINDOW);
			break;
		case OPT_BACKOFF_MAX:
			as->opt.backoff_max_ms =
				opt_seconds("--backoff-max", optarg, 0);
			break;
		case OPT_CHANGE_TIMEOUT:
			as->opt.change_timeout_ms = opt_seconds(
				"--change-timeout", optarg, PERIOD_MIN_MS);
			break;
		case OPT_CONFIG:
			as->opt.config_path = optarg;
			as->opt.config_given = true;
			break;
		case OPT_CHECK_CONFIG:
			check_config = true;
			check_path = optarg;
			break;
		case OPT_METRICS_FILE:
			as->opt.metrics_file = optarg;
			break;
		case OPT_METRICS_LISTEN:
			/* The daemon holds privcmd and xenstore write access:
			 * no network listener belongs in it. */
			usage_error("--metrics-listen: removed; use "
				    "--metrics-file with node_exporter's "
				    "textfile collector to serve the metrics "
				    "over HTTP");
		case 'v':
			as->opt.verbose = true;
			break;
		case 'V':
			printf(PROG " %s\n", SMPALT_VERSION);
			exit(0);
		case 'h':
			print_help();
			exit(0);
		default:
			fprintf(stderr, "(see --help)\n");
			exit(EXIT_USAGE);
		}
	}
	if (check_config) {
		/* --check-config FILE, --check-config=FILE, or the --config
		 * file (by default the installed one). */
		if (!check_path && optind < argc)
			check_path = argv[optind++];
		if (optind < argc)
			usage_error("--check-config takes one FILE, not '%s'",
				    argv[optind]);
		exit(as_conf_check(check_path ? check_path
					      : as->opt.config_path,
				   &conf_base, &as->conf_cli, stdout));
	}
	if (optind >= argc && !as->opt.all)
		usage_error("no DOMAIN given (or --all)");
	as->opt.specs = (const char *const *)argv + optind;
	as->opt.nspecs = (unsigned int)(argc - optind);
	for (i = 0; i < as->opt.nspecs; i++)
		if (as_conf_check_glob(as->opt.specs[i], err, sizeof(err)))
			usage_error("DOMAIN '%s': %s", as->opt.specs[i], err);

	/* Check what can be checked before any domain is known: the options
	 * over the built-in settings. */
	given = conf_base;
	as_settings_overlay(&given, &as->conf_cli);
	settings_from(as, &given, &check);
	if (!check.policy.max_vcpus)
		check.policy.max_vcpus = AS_VCPUS_MAX;
	if (as_config_check(&check.policy, err, sizeof(err)) ||
	    as_pace_config_check(&check.pace, err, sizeof(err)))
		usage_error("%s", err);
	as->syslog_prefix =
		as->opt.log_priority == PRIO_ALWAYS ||
		(as->opt.log_priority == PRIO_AUTO && !isatty(STDERR_FILENO));
}

/* The backends: xl for every domain, libvirt first if asked for. */
static void open_backends(struct autoscaler *as)
{
	as->xl_backend = scale_backend_xl_open(as->opt.xl, as->opt.ignore_host,
					       as->opt.change_timeout_ms);
	if (!as->xl_backend) {
		error(as, "out of memory");
		exit(EXIT_RUNTIME);
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
			exit(EXIT_RUNTIME);
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
		exit(EXIT_NO_DOMAIN);
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
			exit(EXIT_NO_DOMAIN);
		}
	}
	for (j = 0; j < as->ndomains; j++)
		if (as->domains[j]->used && !as->domains[j]->active &&
		    !as->domains[j]->excluded)
			exit(EXIT_USAGE); /* refused, with the reason logged */
	for (j = 0; j < as->ndomains; j++)
		if (as->domains[j]->active)
			return;
	error(as, "no domain to scale");
	exit(EXIT_NO_DOMAIN);
}

static void log_selection(struct autoscaler *as, unsigned int selected)
{
	if (!selected)
		log_line(as, AS_PRIO_INFO,
			 "no domain selected yet: waiting for "
			 "one to appear");
}

int main(int argc, char **argv)
{
	/* The daemon's state, for its whole life. */
	struct autoscaler ctx = {
		.csv = {.fd = -1},
		.log_route = AS_LOG_PLAIN,
	};
	struct autoscaler *as = &ctx;
	uint64_t next, now, grace_end;
	unsigned int rounds = 0, active;
	size_t i;
	char cpus[NUM_MAX] = "unknown";
	int rc = 0;

	parse_args(as, argc, argv);
	as->start_ms = now_ms();
	as->log_route = as_log_route_for(STDERR_FILENO);
	load_config(as);
	open_metrics(as);
	install_signals(as); /* before xs_open: its thread inherits the mask */

	as->xsh = xs_open(0);
	if (!as->xsh) {
		error(as,
		      "cannot connect to xenstore: %s (run in dom0 as root, "
		      "with xenstored running)",
		      strerror(errno));
		return EXIT_XENSTORE;
	}
	open_backends(as);
	/* auto never falls back to the guests' claims alone: a guest could
	 * then claim any vCPUs it likes. */
	if (!open_xenstat(as))
		exit(EXIT_XENSTAT);
	if (as->opt.csv_path && !csv_open(as)) {
		xs_close(as->xsh);
		return EXIT_RUNTIME;
	}
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

	for (next = as->start_ms; !stop_signal; next += as->opt.period_ms) {
		if (as->rescan)
			scan_domains(as);
		active = sample_all(as, next - as->start_ms);
		rounds++;
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
	/* Never leave a change behind: it is changing a domain.  Those
	 * still running after a grace time (a hung xl) are killed. */
	grace_end = now_ms() + EXIT_GRACE_MS;
	for (i = 0; i < as->ndomains; i++) {
		now = now_ms();
		poll_change(as, as->domains[i],
			    grace_end > now ? grace_end - now : 0, true);
	}
	if (as->opt.once && as->change_failures)
		rc = EXIT_RUNTIME;
	if (as->opt.once && as->read_errors && !rc)
		rc = EXIT_XENSTORE;

	log_line(as, AS_PRIO_INFO,
		 "stopped%s%s after %u sample round%s: %llu change%s%s, "
		 "%llu failed change%s (%llu timed out), %llu held back, "
		 "%llu unreadable domain round%s, %llu CSV row%s%s%s",
		 stop_signal ? " by " : "",
		 stop_signal == SIGINT	  ? "SIGINT"
		 : stop_signal == SIGTERM ? "SIGTERM"
					  : "",
		 rounds, rounds == 1 ? "" : "s", as->changes,
		 as->changes == 1 ? "" : "s",
		 as->opt.dry_run ? " (dry run)" : "", as->change_failures,
		 as->change_failures == 1 ? "" : "s", as->change_timeouts,
		 as->changes_held, as->read_errors,
		 as->read_errors == 1 ? "" : "s", as->csv_rows,
		 as->csv_rows == 1 ? "" : "s", as->opt.csv_path ? " in " : "",
		 as->opt.csv_path ? as->opt.csv_path : "");
	as_csv_close(&as->csv);
	as_metrics_free(&as->metrics);
	as_conf_free(as->conf);
	if (as->libvirt_backend)
		as->libvirt_backend->close(as->libvirt_backend);
	as->xl_backend->close(as->xl_backend);
	if (as->xstat)
		xenstat_uninit(as->xstat);
	xs_close(as->xsh);
	for (i = 0; i < as->ndomains; i++)
		as->domains[i]->used = false;
	compact_domains(as);
	free(as->domains);
	return rc;
}
