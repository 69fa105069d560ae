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
 * one line with its reason; each sample of each domain is one CSV row
 * (autoscale_format.h).  See docs/autoscaler.md.
 */
#include <errno.h>
#include <getopt.h>
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

#include "autoscale_format.h"
#include "autoscale_policy.h"
#include "autoscale_select.h"
#include "autoscale_signal.h"
#include "scale_backend.h"

#define PROG "smpalt-autoscaler"
#ifndef SMPALT_VERSION
#define SMPALT_VERSION "unknown"
#endif

/* Exit codes (documented in --help and docs/autoscaler.md). */
#define EXIT_RUNTIME 1	 /* CSV write error, failed change at --once */
#define EXIT_USAGE 2	 /* bad command line */
#define EXIT_XENSTORE 3	 /* xenstore unreachable or failing */
#define EXIT_NO_DOMAIN 4 /* --once: a DOMAIN selects no domain */
#define EXIT_ALL_GONE 5	 /* --once: every domain went during the sample */
#define EXIT_XENSTAT 6	 /* --signal xen without Xen's CPU accounting */

/* Defaults (see --help). */
#define DEFAULT_HIGH_PCT 80
#define DEFAULT_LOW_PCT 40
#define DEFAULT_PERIOD_MS 1000
#define DEFAULT_HOLD_MS 3000
#define DEFAULT_MIN_VCPUS 1
#define DEFAULT_XL "xl"

#define MAX_DOMAINS 64
#define PERIOD_MIN_MS 10
/* Longest accepted time option: a day. */
#define SECONDS_MAX (24 * 60 * 60)
#define MS_PER_SEC 1000
#define NS_PER_MS 1000000L
#define NS_PER_SEC 1000000000ULL
#define NUM_MAX 32 /* a decimal number as text */
#define PATH_LEN 128
#define NAME_LEN 64
#define MODE_LEN 16
#define REASON_LEN 256
#define LINE_LEN 1024

#define DOMAIN_ROOT "/local/domain"
/* What the guest publishes (DESIGN.md, vCPU hotplug protocol). */
#define KEY_LOAD "data/smpalt/load"
#define KEY_ONLINE "data/smpalt/online"
#define KEY_MODE "data/smpalt/mode"
#define KEY_THROUGHPUT "data/smpalt/throughput"
/* xenstored's special watch paths: a domain introduced, one released. */
#define WATCH_INTRODUCE "@introduceDomain"
#define WATCH_RELEASE "@releaseDomain"

enum log_priority_when {
	PRIO_AUTO, /* when stderr is not a terminal */
	PRIO_ALWAYS,
	PRIO_NEVER,
};

struct options {
	struct as_config cfg; /* max_vcpus 0: each domain's maxvcpus */
	uint64_t period_ms;
	uint64_t duration_ms; /* 0: until SIGINT/SIGTERM */
	const char *csv_path;
	const char *xl;
	const char *libvirt_uri;
	const char *const *specs; /* DOMAIN arguments */
	unsigned int nspecs;
	enum as_signal signal;
	enum log_priority_when log_priority;
	bool all;
	bool ignore_host;
	bool once;
	bool dry_run;
	bool verbose;
};

struct domain {
	bool used;   /* slot taken */
	bool active; /* scaled (else refused: a bad configuration) */
	char name[NAME_LEN];
	unsigned int domid;
	unsigned int maxvcpus;
	struct as_config cfg;
	struct as_state state;
	struct scale_backend *backend;
	enum as_source last_source; /* to log when it changes */
	bool source_logged;
	/* A change under way. */
	bool changing;
	unsigned int target;
	uint64_t change_start_ms;
	/* Xen's last CPU time reading. */
	bool has_cpu;
	uint64_t cpu_ns, cpu_wall_ns;
};

struct sample {
	bool has_guest, has_online, has_tput, has_xen;
	unsigned int guest, vcpus, online, xen;
	unsigned long long tput;
	char mode[MODE_LEN];
};

static struct xs_handle *xsh;
static xenstat_handle *xstat;
/* The host's physical CPUs (libxenstat), 0 if not known. */
static unsigned int host_cpus;
static struct scale_backend *xl_backend, *libvirt_backend;
static struct domain domains[MAX_DOMAINS];
static struct options opt;
static FILE *csv;
static uint64_t start_ms;
static unsigned long long csv_rows, changes, change_failures;
static bool syslog_prefix;
/* A watch fired, or a domain was not ready: look at /local/domain again. */
static bool rescan;
static volatile sig_atomic_t stop_signal, reopen_csv;
/* The signal mask to wait with: SIGINT, SIGTERM and SIGHUP are blocked
 * everywhere else (libxenstore's thread included) and arrive only there. */
static sigset_t wait_mask;

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

/* One line on f: "[<P>][elapsed] wall-time " and the message. */
static void vlog_to(FILE *f, enum as_prio prio, const char *what,
		    const char *fmt, va_list ap)
{
	char prefix[NUM_MAX * 2];

	if (as_log_prefix(prefix, sizeof(prefix), prio, syslog_prefix,
			  now_ms() - start_ms, unix_ms()) < 0)
		prefix[0] = '\0';
	fflush(stdout);
	fputs(prefix, f);
	fputs(what, f);
	vfprintf(f, fmt, ap);
	fputc('\n', f);
	fflush(f);
}

/* One log line on stdout, with its priority (debug only with -v). */
static void __attribute__((format(printf, 2, 3)))
log_line(enum as_prio prio, const char *fmt, ...)
{
	va_list ap;

	if (prio == AS_PRIO_DEBUG && !opt.verbose)
		return;
	va_start(ap, fmt);
	vlog_to(stdout, prio, "", fmt, ap);
	va_end(ap);
}

/* An error on stderr. */
static void __attribute__((format(printf, 1, 2))) error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog_to(stderr, AS_PRIO_ERR, PROG ": error: ", fmt, ap);
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
static int xs_get(const char *path, char *buf, size_t len)
{
	unsigned int n;
	char *v = xs_read(xsh, XBT_NULL, path, &n);

	if (!v)
		return errno ? -errno : -EIO;
	snprintf(buf, len, "%.*s", (int)n, v);
	free(v);
	return 0;
}

static int xs_get_domid(unsigned int domid, const char *key, char *buf,
			size_t len)
{
	char path[PATH_LEN];

	snprintf(path, sizeof(path), DOMAIN_ROOT "/%u/%s", domid, key);
	return xs_get(path, buf, len);
}

/* A key holding a decimal number: 0, -ENOENT, -EINVAL or -errno. */
static int xs_get_uint(const struct domain *d, const char *key,
		       unsigned long long max, unsigned long long *out)
{
	char buf[NUM_MAX];
	int rc = xs_get_domid(d->domid, key, buf, sizeof(buf));

	if (rc)
		return rc;
	return parse_uint(buf, 0, max, out) ? 0 : -EINVAL;
}

static void __attribute__((noreturn)) xenstore_failed(const char *what, int rc)
{
	error("xenstore: %s: %s", what, strerror(-rc));
	if (csv)
		fflush(csv);
	exit(EXIT_XENSTORE);
}

/* Number of cpu/<i> entries: the domain's maxvcpus (xl writes them all). */
static int count_maxvcpus(unsigned int domid)
{
	char path[PATH_LEN];
	unsigned int n, i, count = 0;
	char **ents;

	snprintf(path, sizeof(path), DOMAIN_ROOT "/%u/cpu", domid);
	ents = xs_directory(xsh, XBT_NULL, path, &n);
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
static int count_available(const struct domain *d)
{
	char key[PATH_LEN], v[NUM_MAX];
	unsigned int i, count = 0;

	for (i = 0; i < d->maxvcpus; i++) {
		int rc;

		snprintf(key, sizeof(key), "cpu/%u/availability", i);
		rc = xs_get_domid(d->domid, key, v, sizeof(v));
		if (rc == -ENOENT)
			continue;
		if (rc)
			return rc;
		if (!strcmp(v, "online"))
			count++;
	}
	return (int)count;
}

/* ------------------------------------------------------------ backends */

/* The backend for a domain: libvirt's if it knows it, else xl. */
static struct scale_backend *backend_for(const char *name, unsigned int domid)
{
	struct scale_backend *b = libvirt_backend;

	if (b && (!b->manages || b->manages(b, name, domid)))
		return b;
	return xl_backend;
}

static void change_done(struct domain *d, int rc, const char *msg)
{
	unsigned long long ms = now_ms() - d->change_start_ms;

	d->changing = false;
	if (!rc) {
		log_line(AS_PRIO_INFO,
			 "%s (domain %u): %s: vcpus %u done in %llu ms",
			 d->name, d->domid, d->backend->name, d->target, ms);
		return;
	}
	change_failures++;
	log_line(AS_PRIO_WARNING,
		 "%s (domain %u): %s: vcpus %u failed (%s) after %llu ms",
		 d->name, d->domid, d->backend->name, d->target,
		 msg && *msg ? msg : strerror(-rc), ms);
}

/* Has the domain's change ended?  Logs how (block: wait for it). */
static void poll_change(struct domain *d, bool block)
{
	char msg[REASON_LEN] = "";
	int rc;

	if (!d->changing || !d->backend->poll)
		return;
	rc = d->backend->poll(d->backend, d->domid, block, msg, sizeof(msg));
	if (rc != 1)
		change_done(d, rc, msg);
}

static void start_change(struct domain *d, unsigned int n)
{
	bool done = false;
	int rc;

	changes++;
	d->target = n;
	d->change_start_ms = now_ms();
	d->changing = true;
	fflush(stdout);
	if (csv)
		fflush(csv);
	rc = d->backend->set_vcpus(d->backend, d->name, d->domid, n, &done);
	if (rc) {
		d->changing = false;
		change_failures++;
		log_line(AS_PRIO_WARNING,
			 "%s (domain %u): %s: cannot set %u vcpus: %s", d->name,
			 d->domid, d->backend->name, n, strerror(-rc));
	} else if (done || !d->backend->poll) {
		change_done(d, 0, NULL);
	}
}

/* ------------------------------------------------------ Xen accounting */

/*
 * Read the CPU time Xen has accounted to every followed domain's vCPUs and
 * turn the change since the last reading into a load.  Without libxenstat
 * (or when it fails) no domain gets a Xen figure this round.
 */
static void read_xen_load(struct sample *samples)
{
	xenstat_node *node;
	unsigned int i;
	uint64_t wall;

	if (!xstat)
		return;
	/* Xen's figures are read first thing in xenstat_get_node(): the
	 * time just before it is theirs, the same way at every round. */
	wall = clock_ns(CLOCK_MONOTONIC);
	node = xenstat_get_node(xstat, 0);
	if (!node) {
		log_line(AS_PRIO_WARNING,
			 "libxenstat: cannot read the domains' CPU time");
		return;
	}
	for (i = 0; i < MAX_DOMAINS; i++) {
		struct domain *d = &domains[i];
		xenstat_domain *xd;
		uint64_t cpu;

		if (!d->active)
			continue;
		xd = xenstat_node_domain(node, d->domid);
		if (!xd) {
			d->has_cpu = false;
			continue;
		}
		/* The domain's CPU time is the sum of its vCPUs' (Xen's
		 * getdomaininfo). */
		cpu = xenstat_domain_cpu_ns(xd);
		if (samples && d->has_cpu && cpu >= d->cpu_ns &&
		    wall > d->cpu_wall_ns)
			samples[i].has_xen = as_cpu_load(cpu - d->cpu_ns,
							 wall - d->cpu_wall_ns,
							 &samples[i].xen);
		d->has_cpu = true;
		d->cpu_ns = cpu;
		d->cpu_wall_ns = wall;
	}
	xenstat_free_node(node);
}

/* ------------------------------------------------------------ lifecycle */

static struct domain *find_domain(unsigned int domid)
{
	unsigned int i;

	for (i = 0; i < MAX_DOMAINS; i++)
		if (domains[i].used && domains[i].domid == domid)
			return &domains[i];
	return NULL;
}

static void drop_domain(struct domain *d, const char *why)
{
	if (d->active)
		log_line(AS_PRIO_WARNING, "%s (domain %u): %s: dropped",
			 d->name, d->domid, why);
	/* A change still under way ends now: xl fails fast on a domain
	 * that is gone, and must not be left behind. */
	poll_change(d, true);
	memset(d, 0, sizeof(*d));
}

/*
 * Start following a domain.  0; -EAGAIN when it is not ready (no cpu/ keys
 * yet: being built); -ENOSPC when the table is full; -errno from xenstore.
 */
static int adopt_domain(unsigned int domid, const char *name)
{
	char err[REASON_LEN];
	struct domain *d = NULL;
	unsigned int i;
	int rc;

	for (i = 0; !d && i < MAX_DOMAINS; i++)
		if (!domains[i].used)
			d = &domains[i];
	if (!d)
		return -ENOSPC;
	rc = count_maxvcpus(domid);
	if (rc == -ENOENT || rc == 0)
		return -EAGAIN;
	if (rc < 0)
		return rc;
	memset(d, 0, sizeof(*d));
	d->used = true;
	d->domid = domid;
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->maxvcpus = (unsigned int)rc;
	d->cfg = opt.cfg;
	if (!d->cfg.max_vcpus)
		d->cfg.max_vcpus = d->maxvcpus;
	if (d->cfg.max_vcpus > d->maxvcpus) {
		log_line(AS_PRIO_INFO,
			 "%s (domain %u): --max %u above its maxvcpus %u: "
			 "using %u",
			 d->name, d->domid, d->cfg.max_vcpus, d->maxvcpus,
			 d->maxvcpus);
		d->cfg.max_vcpus = d->maxvcpus;
	}
	/* xl refuses more vCPUs than the host has CPUs (without -i): an
	 * overcommitted host gains nothing from them. */
	if (!opt.ignore_host && host_cpus && d->cfg.max_vcpus > host_cpus) {
		log_line(AS_PRIO_INFO,
			 "%s (domain %u): at most the host's %u CPUs, not %u "
			 "(--ignore-host to exceed)",
			 d->name, d->domid, host_cpus, d->cfg.max_vcpus);
		d->cfg.max_vcpus = host_cpus;
	}
	if (as_config_check(&d->cfg, err, sizeof(err))) {
		/* Kept, inactive, so that it is refused once, not at every
		 * scan; freed when the domain goes. */
		error("%s (domain %u, maxvcpus %u): %s: not scaled", d->name,
		      d->domid, d->maxvcpus, err);
		return 0;
	}
	as_state_init(&d->state);
	d->backend = backend_for(d->name, d->domid);
	d->active = true;
	log_line(AS_PRIO_INFO,
		 "watching %s (domain %u): vcpus %u..%u, high %u%%, low %u%%, "
		 "hold up %llu ms, down %llu ms, period %llu ms, signal %s, "
		 "via %s%s",
		 d->name, d->domid, d->cfg.min_vcpus, d->cfg.max_vcpus,
		 d->cfg.high_pct, d->cfg.low_pct,
		 (unsigned long long)d->cfg.hold_up_ms,
		 (unsigned long long)d->cfg.hold_down_ms,
		 (unsigned long long)opt.period_ms, as_signal_name(opt.signal),
		 d->backend->name, opt.dry_run ? " (dry run)" : "");
	return 0;
}

/*
 * Look at /local/domain: drop followed domains whose home went, adopt the
 * selected ones not followed yet.  A selected domain that is not ready
 * leaves `rescan` set, to look again at the next sample.  Returns the
 * number of domains selected (followed or not ready).
 */
static unsigned int scan_domains(void)
{
	unsigned int n, i, selected = 0;
	bool present[MAX_DOMAINS] = {false};
	char **ents;

	rescan = false;
	ents = xs_directory(xsh, XBT_NULL, DOMAIN_ROOT, &n);
	if (!ents)
		xenstore_failed("listing " DOMAIN_ROOT, errno ? -errno : -EIO);
	for (i = 0; i < n; i++) {
		unsigned long long id;
		char name[NAME_LEN];
		struct domain *d;
		int rc;

		if (!parse_uint(ents[i], 0, DOMID_FIRST_RESERVED - 1, &id))
			continue;
		d = find_domain((unsigned int)id);
		if (d) {
			present[d - domains] = true;
			selected++;
			continue;
		}
		rc = xs_get_domid((unsigned int)id, "name", name, sizeof(name));
		if (rc && rc != -ENOENT)
			xenstore_failed("reading a domain's name", rc);
		if (rc) {
			/* Being built (or nameless): a glob may take it once
			 * it has its name, maybe without a new event. */
			snprintf(name, sizeof(name), "domain-%llu", id);
			rescan = true;
		}
		if (!as_domain_selected(opt.all, opt.specs, opt.nspecs,
					rc ? NULL : name, (unsigned int)id))
			continue;
		selected++;
		rc = adopt_domain((unsigned int)id, name);
		if (rc == -EAGAIN) {
			log_line(AS_PRIO_DEBUG,
				 "%s (domain %llu): no cpu/ keys yet", name,
				 id);
			rescan = true;
		} else if (rc == -ENOSPC) {
			log_line(AS_PRIO_WARNING,
				 "%s (domain %llu): already following %d "
				 "domains: not this one",
				 name, id, MAX_DOMAINS);
		} else if (rc) {
			xenstore_failed("reading a domain's cpu/", rc);
		} else {
			d = find_domain((unsigned int)id);
			present[d - domains] = true;
		}
	}
	free(ents);
	for (i = 0; i < MAX_DOMAINS; i++)
		if (domains[i].used && !present[i])
			drop_domain(&domains[i], "disappeared");
	return selected;
}

/* ------------------------------------------------------------------ CSV */

/* Open the CSV for appending; the header goes into an empty file. */
static bool csv_open(void)
{
	csv = fopen(opt.csv_path, "a");
	if (!csv) {
		error("cannot open the CSV %s: %s", opt.csv_path,
		      strerror(errno));
		return false;
	}
	if (!fseek(csv, 0, SEEK_END) && ftell(csv) == 0)
		fputs(AS_CSV_HEADER "\n", csv);
	return true;
}

/* Flush the CSV; false (after saying why) if it cannot be written. */
static bool csv_flush(void)
{
	if (!csv || (!fflush(csv) && !ferror(csv)))
		return true;
	error("cannot write the CSV %s: %s", opt.csv_path, strerror(errno));
	return false;
}

/* SIGHUP: close the CSV and open it again under its name (rotation). */
static bool csv_reopen(void)
{
	bool ok = csv_flush();

	if (fclose(csv))
		ok = false;
	csv = NULL;
	if (!csv_open())
		return false;
	log_line(AS_PRIO_INFO, "SIGHUP: reopened the CSV %s", opt.csv_path);
	return ok;
}

static void csv_write(const struct domain *d, uint64_t t, uint64_t wall,
		      const struct sample *s, enum as_source src,
		      unsigned int load)
{
	char row[LINE_LEN];
	struct as_csv_row r = {
		.elapsed_ms = t - start_ms,
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

	if (!csv)
		return;
	if (as_csv_row(row, sizeof(row), &r) < 0) {
		log_line(AS_PRIO_WARNING, "%s (domain %u): CSV row too long",
			 d->name, d->domid);
		return;
	}
	fputs(row, csv);
	csv_rows++;
}

/* ------------------------------------------------------------ sampling */

/* Read one domain's keys.  0, -ENOENT if the domain is gone, or -errno. */
static int read_sample(struct domain *d, struct sample *s)
{
	unsigned long long v;
	char name[NAME_LEN];
	int rc;

	/* The toolstack removes the whole home when the domain goes. */
	rc = xs_get_domid(d->domid, "name", name, sizeof(name));
	if (rc == -ENOENT) {
		char path[PATH_LEN];
		char **sub;
		unsigned int n;

		snprintf(path, sizeof(path), DOMAIN_ROOT "/%u", d->domid);
		sub = xs_directory(xsh, XBT_NULL, path, &n);
		if (!sub)
			return errno ? -errno : -EIO;
		free(sub);
	} else if (rc) {
		return rc;
	}
	rc = count_available(d);
	if (rc < 0)
		return rc;
	s->vcpus = (unsigned int)rc;
	if (!s->vcpus)
		return -ENOENT; /* no cpu/ keys left: being torn down */

	rc = xs_get_uint(d, KEY_LOAD, UINT32_MAX, &v);
	if (!rc) {
		s->has_guest = true;
		s->guest = (unsigned int)v;
	} else if (rc != -ENOENT && rc != -EINVAL) {
		return rc;
	}
	if (!xs_get_uint(d, KEY_ONLINE, AS_VCPUS_MAX, &v)) {
		s->has_online = true;
		s->online = (unsigned int)v;
	}
	if (!xs_get_uint(d, KEY_THROUGHPUT, UINT64_MAX, &v)) {
		s->has_tput = true;
		s->tput = v;
	}
	if (xs_get_domid(d->domid, KEY_MODE, s->mode, sizeof(s->mode)))
		s->mode[0] = '\0';
	return 0;
}

/* Say once where the domain's load comes from, again when that changes. */
static void log_source(struct domain *d, const struct sample *s,
		       enum as_source src)
{
	if (d->source_logged && d->last_source == src)
		return;
	d->source_logged = true;
	d->last_source = src;
	switch (src) {
	case AS_SOURCE_NONE:
		if (xstat && !s->has_xen) {
			/* Xen's figure comes with the next reading. */
			d->source_logged = false;
			return;
		}
		log_line(AS_PRIO_WARNING,
			 "%s (domain %u): %s %s%s: not deciding until there "
			 "is a load",
			 d->name, d->domid, KEY_LOAD,
			 s->has_guest ? "ignored (--signal xen)" : "absent",
			 xstat ? "" : ", Xen's CPU accounting unavailable");
		break;
	case AS_SOURCE_GUEST:
		log_line(AS_PRIO_INFO,
			 "%s (domain %u): load from the guest's %s", d->name,
			 d->domid, KEY_LOAD);
		break;
	case AS_SOURCE_GUEST_CAPPED:
		if (s->has_xen)
			log_line(AS_PRIO_WARNING,
				 "%s (domain %u): %s %u%% capped (maxvcpus %u, "
				 "Xen measures %u%%)",
				 d->name, d->domid, KEY_LOAD, s->guest,
				 d->maxvcpus, s->xen);
		else
			log_line(AS_PRIO_WARNING,
				 "%s (domain %u): %s %u%% capped (maxvcpus %u)",
				 d->name, d->domid, KEY_LOAD, s->guest,
				 d->maxvcpus);
		break;
	case AS_SOURCE_XEN:
		log_line(AS_PRIO_INFO,
			 "%s (domain %u): load from Xen's CPU accounting%s",
			 d->name, d->domid,
			 s->has_guest ? "" : " (no " KEY_LOAD ")");
		break;
	}
}

static void decide(struct domain *d, uint64_t tick_ms, const struct sample *s,
		   unsigned int load)
{
	struct as_decision dec;
	char why[REASON_LEN];

	if (d->changing) {
		/* Its count is changing: decide once the change is done. */
		log_line(AS_PRIO_DEBUG,
			 "%s (domain %u): %s: vcpus %u still "
			 "under way",
			 d->name, d->domid, d->backend->name, d->target);
		return;
	}
	as_decide(&d->cfg, &d->state, tick_ms, load, s->vcpus, &dec);
	as_describe(&d->cfg, load, s->vcpus, &dec, why, sizeof(why));
	log_line(dec.action == AS_STAY ? AS_PRIO_DEBUG : AS_PRIO_INFO,
		 "%s (domain %u): load %u%%, vcpus %u -> %u: %s: %s%s", d->name,
		 d->domid, load, s->vcpus, dec.vcpus,
		 as_reason_name(dec.reason), why,
		 dec.action != AS_STAY && opt.dry_run ? " (dry run)" : "");
	if (dec.action != AS_STAY && !opt.dry_run)
		start_change(d, dec.vcpus);
}

/*
 * One round over every followed domain at the sample tick tick_ms (since
 * start; the policy measures hold times in ticks, free of jitter).
 * Returns the count still followed.
 */
static unsigned int sample_all(uint64_t tick_ms)
{
	static struct sample samples[MAX_DOMAINS];
	unsigned int i, active = 0;

	memset(samples, 0, sizeof(samples));
	read_xen_load(samples);
	for (i = 0; i < MAX_DOMAINS; i++) {
		struct domain *d = &domains[i];
		struct sample *s = &samples[i];
		struct as_signal_input in;
		enum as_source src;
		unsigned int load = 0;
		uint64_t t, wall;
		int rc;

		poll_change(d, false);
		if (!d->active)
			continue;
		t = now_ms();
		wall = unix_ms();
		rc = read_sample(d, s);
		if (rc == -ENOENT) {
			drop_domain(d, "disappeared");
			continue;
		}
		if (rc) {
			char what[PATH_LEN];

			snprintf(what, sizeof(what), "reading %s (domain %u)",
				 d->name, d->domid);
			xenstore_failed(what, rc);
		}
		active++;
		in = (struct as_signal_input){
			.has_guest = s->has_guest,
			.has_xen = s->has_xen,
			.guest = s->guest,
			.xen = s->xen,
			.vcpus = s->vcpus,
			.maxvcpus = d->maxvcpus,
			.high_pct = d->cfg.high_pct,
			.low_pct = d->cfg.low_pct,
		};
		src = as_signal_choose(opt.signal, &in, &load);
		log_source(d, s, src);
		csv_write(d, t, wall, s, src, load);
		if (src != AS_SOURCE_NONE)
			decide(d, tick_ms, s, load);
	}
	return active;
}

/* ---------------------------------------------------------------- setup */

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		reopen_csv = 1;
	else
		stop_signal = sig;
}

/*
 * SIGINT and SIGTERM stop, SIGHUP reopens the CSV.  All three stay blocked
 * but while the main loop waits (ppoll with wait_mask), so that they never
 * land in libxenstore's thread nor in the middle of a sample.
 */
static void install_signals(void)
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
	sigprocmask(SIG_BLOCK, &block, &wait_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigdelset(&wait_mask, sigs[i]);
}

/* Watch domains come and go; xenstored fires each watch once at once. */
static void watch_domains(void)
{
	if (!xs_watch(xsh, WATCH_INTRODUCE, WATCH_INTRODUCE) ||
	    !xs_watch(xsh, WATCH_RELEASE, WATCH_RELEASE))
		xenstore_failed("watching domains", errno ? -errno : -EIO);
}

/* Take every watch event that has arrived; true if there was one. */
static bool drain_watches(void)
{
	bool fired = false;
	char **ev;

	while ((ev = xs_check_watch(xsh))) {
		log_line(AS_PRIO_DEBUG, "watch %s fired", ev[XS_WATCH_PATH]);
		free(ev);
		fired = true;
	}
	if (errno != EAGAIN)
		xenstore_failed("reading watch events", errno ? -errno : -EIO);
	return fired;
}

/*
 * Wait until the monotonic time until_ms, a stop signal or SIGHUP; domains
 * introduced or released meanwhile are adopted or dropped at once.
 */
static void wait_until(uint64_t until_ms)
{
	struct pollfd pfd = {.fd = xs_fileno(xsh), .events = POLLIN};

	while (!stop_signal && !reopen_csv) {
		uint64_t now = now_ms();
		struct timespec ts;
		int r;

		if (now >= until_ms)
			return;
		ts.tv_sec = (time_t)((until_ms - now) / MS_PER_SEC);
		ts.tv_nsec = (long)((until_ms - now) % MS_PER_SEC) * NS_PER_MS;
		r = ppoll(&pfd, 1, &ts, &wait_mask);
		if (r > 0 && drain_watches())
			scan_domains();
	}
}

/* Wait for the next tick, reopening the CSV at SIGHUP meanwhile; false
 * if it cannot be reopened. */
static bool wait_tick(uint64_t until_ms)
{
	for (;;) {
		wait_until(until_ms);
		if (!reopen_csv)
			return true;
		reopen_csv = 0;
		if (csv && !csv_reopen())
			return false;
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
	       "                        auto (guest's, capped by Xen's "
	       "figure; else Xen's)\n"
	       "                        (default auto)\n"
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
	       "  -d, --duration SEC    stop after SEC (default: at SIGINT or "
	       "SIGTERM)\n"
	       "  -c, --csv FILE        append one row per domain per sample "
	       "(SIGHUP\n"
	       "                        reopens it):\n"
	       "                        " AS_CSV_HEADER "\n"
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
	       "--once), %d usage,\n"
	       "%d xenstore unreachable, %d --once: no such domain, %d --once: "
	       "every domain\nwent, %d --signal xen: no Xen CPU accounting.\n",
	       DEFAULT_HIGH_PCT, DEFAULT_LOW_PCT,
	       DEFAULT_PERIOD_MS / MS_PER_SEC, DEFAULT_PERIOD_MS % MS_PER_SEC,
	       DEFAULT_HOLD_MS / MS_PER_SEC, DEFAULT_HOLD_MS % MS_PER_SEC,
	       DEFAULT_MIN_VCPUS, DEFAULT_XL, EXIT_RUNTIME, EXIT_USAGE,
	       EXIT_XENSTORE, EXIT_NO_DOMAIN, EXIT_ALL_GONE, EXIT_XENSTAT);
}

enum long_only {
	OPT_HOLD = 256,
	OPT_HOLD_UP,
	OPT_HOLD_DOWN,
	OPT_LIBVIRT,
	OPT_LOG_PRIORITY,
};

static void parse_args(int argc, char **argv)
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
		{"verbose", no_argument, NULL, 'v'},
		{"version", no_argument, NULL, 'V'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	char err[REASON_LEN];
	struct as_config check;
	int c;

	opt.cfg.high_pct = DEFAULT_HIGH_PCT;
	opt.cfg.low_pct = DEFAULT_LOW_PCT;
	opt.cfg.hold_up_ms = DEFAULT_HOLD_MS;
	opt.cfg.hold_down_ms = DEFAULT_HOLD_MS;
	opt.cfg.min_vcpus = DEFAULT_MIN_VCPUS;
	opt.cfg.max_vcpus = 0;
	opt.period_ms = DEFAULT_PERIOD_MS;
	opt.xl = DEFAULT_XL;
	opt.signal = AS_SIGNAL_AUTO;
	opt.log_priority = PRIO_AUTO;

	while ((c = getopt_long(argc, argv, "as:H:L:p:m:M:d:c:1nx:ivVh",
				longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			opt.all = true;
			break;
		case 's':
			if (as_signal_parse(optarg, &opt.signal))
				usage_error("--signal: '%s' is none of xen, "
					    "guest, auto",
					    optarg);
			break;
		case 'H':
			opt.cfg.high_pct =
				opt_uint("--high", optarg, 1, AS_THRESHOLD_MAX);
			break;
		case 'L':
			opt.cfg.low_pct =
				opt_uint("--low", optarg, 0, AS_THRESHOLD_MAX);
			break;
		case 'p':
			opt.period_ms =
				opt_seconds("--period", optarg, PERIOD_MIN_MS);
			break;
		case OPT_HOLD:
			opt.cfg.hold_up_ms = opt_seconds("--hold", optarg, 0);
			opt.cfg.hold_down_ms = opt.cfg.hold_up_ms;
			break;
		case OPT_HOLD_UP:
			opt.cfg.hold_up_ms =
				opt_seconds("--hold-up", optarg, 0);
			break;
		case OPT_HOLD_DOWN:
			opt.cfg.hold_down_ms =
				opt_seconds("--hold-down", optarg, 0);
			break;
		case 'm':
			opt.cfg.min_vcpus =
				opt_uint("--min", optarg, 1, AS_VCPUS_MAX);
			break;
		case 'M':
			opt.cfg.max_vcpus =
				opt_uint("--max", optarg, 1, AS_VCPUS_MAX);
			break;
		case 'd':
			opt.duration_ms = opt_seconds("--duration", optarg, 0);
			break;
		case 'c':
			opt.csv_path = optarg;
			break;
		case '1':
			opt.once = true;
			break;
		case 'n':
			opt.dry_run = true;
			break;
		case 'x':
			opt.xl = optarg;
			break;
		case 'i':
			opt.ignore_host = true;
			break;
		case OPT_LIBVIRT:
			opt.libvirt_uri = optarg;
			break;
		case OPT_LOG_PRIORITY:
			if (!strcmp(optarg, "auto"))
				opt.log_priority = PRIO_AUTO;
			else if (!strcmp(optarg, "always"))
				opt.log_priority = PRIO_ALWAYS;
			else if (!strcmp(optarg, "never"))
				opt.log_priority = PRIO_NEVER;
			else
				usage_error("--log-priority: '%s' is none of "
					    "auto, always, never",
					    optarg);
			break;
		case 'v':
			opt.verbose = true;
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
	if (optind >= argc && !opt.all)
		usage_error("no DOMAIN given (or --all)");
	opt.specs = (const char *const *)argv + optind;
	opt.nspecs = (unsigned int)(argc - optind);

	/* Check what can be checked before any domain is known. */
	check = opt.cfg;
	if (!check.max_vcpus)
		check.max_vcpus = AS_VCPUS_MAX;
	if (as_config_check(&check, err, sizeof(err)))
		usage_error("%s", err);
	if (opt.once) {
		/* One sample cannot show a condition that holds. */
		opt.cfg.hold_up_ms = 0;
		opt.cfg.hold_down_ms = 0;
	}
	syslog_prefix =
		opt.log_priority == PRIO_ALWAYS ||
		(opt.log_priority == PRIO_AUTO && !isatty(STDERR_FILENO));
}

/* The backends: xl for every domain, libvirt first if asked for. */
static void open_backends(void)
{
	xl_backend = scale_backend_xl_open(opt.xl, opt.ignore_host);
	if (!xl_backend) {
		error("out of memory");
		exit(EXIT_RUNTIME);
	}
	if (!opt.libvirt_uri)
		return;
#ifdef HAVE_LIBVIRT_BACKEND
	{
		char err[REASON_LEN] = "";

		libvirt_backend = scale_backend_libvirt_open(opt.libvirt_uri,
							     err, sizeof(err));
		if (!libvirt_backend) {
			error("libvirt %s: %s", opt.libvirt_uri, err);
			exit(EXIT_RUNTIME);
		}
		log_line(AS_PRIO_INFO, "libvirt %s: connected",
			 opt.libvirt_uri);
	}
#else
	usage_error("--libvirt: this build has no libvirt backend");
#endif
}

/*
 * Xen's CPU accounting through libxenstat: needed for --signal xen, used
 * by auto for the clamp and for guests without data/smpalt/load.
 */
static void open_xenstat(void)
{
	if (opt.signal == AS_SIGNAL_GUEST)
		return;
	xstat = xenstat_init();
	if (xstat) {
		xenstat_node *node = xenstat_get_node(xstat, 0);

		if (node) {
			host_cpus = xenstat_node_num_cpus(node);
			xenstat_free_node(node);
		}
		return;
	}
	if (opt.signal == AS_SIGNAL_XEN) {
		error("libxenstat: cannot read Xen's CPU accounting (run in "
		      "dom0 as root, with privcmd): needed by --signal xen");
		exit(EXIT_XENSTAT);
	}
	log_line(AS_PRIO_WARNING,
		 "libxenstat unavailable: load from the guests' " KEY_LOAD
		 " only, not capped by Xen's CPU accounting");
}

/* --once: every DOMAIN must select a domain that is ready now. */
static void check_once_domains(void)
{
	unsigned int i, j;

	if (rescan) {
		error("a selected domain has no cpu/ keys: cannot tell its "
		      "maxvcpus");
		exit(EXIT_NO_DOMAIN);
	}
	for (i = 0; i < opt.nspecs; i++) {
		bool found = false;

		for (j = 0; j < MAX_DOMAINS && !found; j++)
			found = domains[j].used &&
				as_spec_matches(opt.specs[i], domains[j].name,
						domains[j].domid);
		if (!found) {
			error("no domain '%s' (neither a domid nor a name "
			      "under " DOMAIN_ROOT ")",
			      opt.specs[i]);
			exit(EXIT_NO_DOMAIN);
		}
	}
	for (j = 0; j < MAX_DOMAINS; j++)
		if (domains[j].used && !domains[j].active)
			exit(EXIT_USAGE); /* refused, with the reason logged */
	for (j = 0; j < MAX_DOMAINS; j++)
		if (domains[j].active)
			return;
	error("no domain to scale");
	exit(EXIT_NO_DOMAIN);
}

static void log_selection(unsigned int selected)
{
	if (!selected)
		log_line(AS_PRIO_INFO, "no domain selected yet: waiting for "
				       "one to appear");
}

int main(int argc, char **argv)
{
	uint64_t next, now;
	unsigned int rounds = 0, active, i;
	char cpus[NUM_MAX] = "unknown";
	int rc = 0;

	parse_args(argc, argv);
	start_ms = now_ms();
	install_signals(); /* before xs_open: its thread inherits the mask */

	xsh = xs_open(0);
	if (!xsh) {
		error("cannot connect to xenstore: %s (run in dom0 as root, "
		      "with xenstored running)",
		      strerror(errno));
		return EXIT_XENSTORE;
	}
	open_backends();
	open_xenstat();
	if (opt.csv_path && !csv_open()) {
		xs_close(xsh);
		return EXIT_RUNTIME;
	}
	if (host_cpus)
		snprintf(cpus, sizeof(cpus), "%u", host_cpus);
	log_line(AS_PRIO_INFO,
		 PROG " %s started: signal %s, period %llu ms, host CPUs %s%s",
		 SMPALT_VERSION, as_signal_name(opt.signal),
		 (unsigned long long)opt.period_ms, cpus,
		 opt.ignore_host ? " (--ignore-host: may exceed them)" : "");
	if (opt.once) {
		scan_domains();
		check_once_domains();
		/* Xen's figure is a rate: read, wait a period, read again. */
		if (xstat) {
			read_xen_load(NULL);
			wait_until(now_ms() + opt.period_ms);
		}
	} else {
		watch_domains(); /* its first events make the first scan */
		log_selection(scan_domains());
	}

	for (next = start_ms; !stop_signal; next += opt.period_ms) {
		if (rescan)
			scan_domains();
		active = sample_all(next - start_ms);
		rounds++;
		if (!csv_flush()) {
			rc = EXIT_RUNTIME;
			break;
		}
		if (opt.once) {
			if (!active) {
				log_line(AS_PRIO_WARNING,
					 "every domain has disappeared");
				rc = EXIT_ALL_GONE;
			}
			break;
		}
		now = now_ms();
		/* Fell behind (a slow change): skip the ticks missed. */
		while (next + opt.period_ms <= now)
			next += opt.period_ms;
		if (opt.duration_ms &&
		    next + opt.period_ms > start_ms + opt.duration_ms)
			break;
		if (!wait_tick(next + opt.period_ms)) {
			rc = EXIT_RUNTIME;
			break;
		}
	}
	/* Never leave a change behind: it is changing a domain. */
	for (i = 0; i < MAX_DOMAINS; i++)
		poll_change(&domains[i], true);
	if (opt.once && change_failures)
		rc = EXIT_RUNTIME;

	log_line(AS_PRIO_INFO,
		 "stopped%s%s after %u sample round%s: %llu change%s%s, "
		 "%llu failed change%s, %llu CSV row%s%s%s",
		 stop_signal ? " by " : "",
		 stop_signal == SIGINT	  ? "SIGINT"
		 : stop_signal == SIGTERM ? "SIGTERM"
					  : "",
		 rounds, rounds == 1 ? "" : "s", changes,
		 changes == 1 ? "" : "s", opt.dry_run ? " (dry run)" : "",
		 change_failures, change_failures == 1 ? "" : "s", csv_rows,
		 csv_rows == 1 ? "" : "s", opt.csv_path ? " in " : "",
		 opt.csv_path ? opt.csv_path : "");
	if (csv && fclose(csv)) {
		error("cannot write the CSV %s: %s", opt.csv_path,
		      strerror(errno));
		rc = EXIT_RUNTIME;
	}
	if (libvirt_backend)
		libvirt_backend->close(libvirt_backend);
	xl_backend->close(xl_backend);
	if (xstat)
		xenstat_uninit(xstat);
	xs_close(xsh);
	return rc;
}
