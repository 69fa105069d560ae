// SPDX-License-Identifier: MIT
/*
 * autoscaler.c - smpalt-autoscaler, the dom0 tool that scales smpalt guests'
 * vCPUs by load.
 *
 * Every sample period it reads, for each domain it watches, the guest's
 * data/smpalt/load (percent of one vCPU) and the vCPU count set in
 * cpu/<i>/availability, asks the policy (autoscale_policy.c) what to do,
 * and runs `xl vcpu-set -i DOMID N` when the policy says so.  Each change
 * is logged on one line with its reason; each sample of each domain is one
 * CSV row.  See docs/autoscaler.md.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <xenstore.h>
#include <xen/xen.h>

#include "autoscale_policy.h"

#define PROG "smpalt-autoscaler"

/* Exit codes (documented in --help and docs/autoscaler.md). */
#define EXIT_RUNTIME 1	 /* CSV write error, failed xl at --once */
#define EXIT_USAGE 2	 /* bad command line */
#define EXIT_XENSTORE 3	 /* xenstore unreachable or failing */
#define EXIT_NO_DOMAIN 4 /* a domain named on the command line is absent */
#define EXIT_ALL_GONE 5	 /* every watched domain disappeared */

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
#define NUM_MAX 32 /* a decimal number as text */
#define PATH_LEN 128
#define NAME_LEN 64
#define MODE_LEN 16
#define REASON_LEN 256
/* Exit status of a child that could not exec (as the shell reports it). */
#define EXEC_FAILED 127

#define DOMAIN_ROOT "/local/domain"
/* What the guest publishes (DESIGN.md, vCPU hotplug protocol). */
#define KEY_LOAD "data/smpalt/load"
#define KEY_ONLINE "data/smpalt/online"
#define KEY_MODE "data/smpalt/mode"
#define KEY_THROUGHPUT "data/smpalt/throughput"
#define CSV_HEADER "time_s,domain,load,vcpus,mode,throughput"

struct options {
	struct as_config cfg; /* max_vcpus 0: each domain's maxvcpus */
	uint64_t period_ms;
	uint64_t duration_ms; /* 0: until SIGINT/SIGTERM */
	const char *csv_path;
	const char *xl;
	bool once;
	bool dry_run;
	bool verbose;
};

struct domain {
	const char *spec; /* as given on the command line */
	char name[NAME_LEN];
	unsigned int domid;
	unsigned int maxvcpus;
	struct as_config cfg;
	struct as_state state;
	bool named; /* has /local/domain/<id>/name */
	bool active;
	bool load_missing_logged;
	pid_t xl_pid; /* xl vcpu-set running for it, or 0 */
	unsigned int xl_target;
	uint64_t xl_start_ms;
};

struct sample {
	bool has_load, has_online, has_tput;
	unsigned int load, vcpus, online;
	unsigned long long tput;
	char mode[MODE_LEN];
};

static struct xs_handle *xsh;
static struct domain domains[MAX_DOMAINS];
static unsigned int ndomains;
static struct options opt;
static FILE *csv;
static uint64_t start_ms;
static unsigned long long csv_rows, changes, xl_failures;
static volatile sig_atomic_t stop_signal;

/* ------------------------------------------------------------ utilities */

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * MS_PER_SEC +
	       (uint64_t)ts.tv_nsec / NS_PER_MS;
}

/* Seconds since start with milliseconds: "12.345". */
static void fmt_elapsed(char *buf, size_t len, uint64_t t)
{
	uint64_t ms = t - start_ms;

	snprintf(buf, len, "%llu.%03llu", (unsigned long long)ms / MS_PER_SEC,
		 (unsigned long long)ms % MS_PER_SEC);
}

/* One log line on stdout: "[elapsed] message". */
static void __attribute__((format(printf, 1, 2))) log_line(const char *fmt, ...)
{
	char t[NUM_MAX];
	va_list ap;

	fmt_elapsed(t, sizeof(t), now_ms());
	printf("[%8s] ", t);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static void __attribute__((format(printf, 1, 2))) error(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, PROG ": error: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
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

static int xs_get_dom(const struct domain *d, const char *key, char *buf,
		      size_t len)
{
	char path[PATH_LEN];

	snprintf(path, sizeof(path), DOMAIN_ROOT "/%u/%s", d->domid, key);
	return xs_get(path, buf, len);
}

/* A key holding a decimal number: 0, -ENOENT, -EINVAL or -errno. */
static int xs_get_dom_uint(const struct domain *d, const char *key,
			   unsigned long long max, unsigned long long *out)
{
	char buf[NUM_MAX];
	int rc = xs_get_dom(d, key, buf, sizeof(buf));

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
static int count_maxvcpus(const struct domain *d)
{
	char path[PATH_LEN];
	unsigned int n, i, count = 0;
	char **ents;

	snprintf(path, sizeof(path), DOMAIN_ROOT "/%u/cpu", d->domid);
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
		rc = xs_get_dom(d, key, v, sizeof(v));
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
 * Resolve a domain given by domid or name (/local/domain/<id>/name).
 * 0, -ENOENT when there is no such domain, or -errno from xenstore.
 */
static int resolve_domain(struct domain *d)
{
	unsigned long long id;
	unsigned int n, i;
	char **ents;
	int rc = -ENOENT;

	if (parse_uint(d->spec, 0, DOMID_FIRST_RESERVED - 1, &id)) {
		d->domid = (unsigned int)id;
		rc = xs_get_dom(d, "name", d->name, sizeof(d->name));
		d->named = !rc;
		if (rc == -ENOENT) {
			/* A domain without a name still has a home. */
			char path[PATH_LEN];
			char **sub;

			snprintf(path, sizeof(path), DOMAIN_ROOT "/%u",
				 d->domid);
			sub = xs_directory(xsh, XBT_NULL, path, &n);
			if (!sub)
				return errno ? -errno : -EIO;
			free(sub);
			snprintf(d->name, sizeof(d->name), "domain-%u",
				 d->domid);
			rc = 0;
		}
		return rc;
	}

	ents = xs_directory(xsh, XBT_NULL, DOMAIN_ROOT, &n);
	if (!ents)
		return errno ? -errno : -EIO;
	for (i = 0; i < n; i++) {
		char name[NAME_LEN];
		int r;

		if (!parse_uint(ents[i], 0, DOMID_FIRST_RESERVED - 1, &id))
			continue;
		d->domid = (unsigned int)id;
		r = xs_get_dom(d, "name", name, sizeof(name));
		if (r == -ENOENT)
			continue; /* being built or torn down */
		if (r) {
			rc = r;
			break;
		}
		if (!strcmp(name, d->spec)) {
			snprintf(d->name, sizeof(d->name), "%s", name);
			d->named = true;
			rc = 0;
			break;
		}
	}
	free(ents);
	return rc;
}

/* ------------------------------------------------------------ vcpu-set */

/*
 * Start `xl vcpu-set -i DOMID N` in the background: sampling goes on while
 * it runs (taking vCPUs down can take seconds under TCG).  0 or -errno.
 */
static int start_vcpu_set(struct domain *d, unsigned int n)
{
	char domid[NUM_MAX], count[NUM_MAX];
	pid_t pid;

	snprintf(domid, sizeof(domid), "%u", d->domid);
	snprintf(count, sizeof(count), "%u", n);
	fflush(stdout);
	if (csv)
		fflush(csv);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		/* xl's own messages join our log, not the CSV or stdin. */
		dup2(STDERR_FILENO, STDOUT_FILENO);
		execlp(opt.xl, opt.xl, "vcpu-set", "-i", domid, count,
		       (char *)NULL);
		fprintf(stderr, PROG ": cannot run %s: %s\n", opt.xl,
			strerror(errno));
		_exit(EXEC_FAILED);
	}
	d->xl_pid = pid;
	d->xl_target = n;
	d->xl_start_ms = now_ms();
	return 0;
}

/* Collect the domain's xl run if it has ended (or wait for it: block). */
static void reap_vcpu_set(struct domain *d, bool block)
{
	unsigned long long ms;
	int status;
	pid_t r;

	if (!d->xl_pid)
		return;
	/* A signal arriving meanwhile must not orphan the child. */
	do
		r = waitpid(d->xl_pid, &status, block ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR);
	if (!r)
		return; /* still running */
	d->xl_pid = 0;
	ms = now_ms() - d->xl_start_ms;
	if (r > 0 && WIFEXITED(status) && !WEXITSTATUS(status)) {
		log_line("%s (domain %u): %s vcpu-set -i %u %u done in %llu "
			 "ms",
			 d->name, d->domid, opt.xl, d->domid, d->xl_target, ms);
		return;
	}
	xl_failures++;
	if (r < 0)
		log_line("%s (domain %u): cannot wait for %s: %s", d->name,
			 d->domid, opt.xl, strerror(errno));
	else if (WIFEXITED(status))
		log_line("%s (domain %u): %s vcpu-set -i %u %u failed (exit "
			 "status %d) after %llu ms",
			 d->name, d->domid, opt.xl, d->domid, d->xl_target,
			 WEXITSTATUS(status), ms);
	else
		log_line("%s (domain %u): %s vcpu-set -i %u %u killed by "
			 "signal %d after %llu ms",
			 d->name, d->domid, opt.xl, d->domid, d->xl_target,
			 WTERMSIG(status), ms);
}

/* ----------------------------------------------------------------- CSV */

/* A CSV field, quoted (RFC 4180) when it holds a comma, quote or newline. */
static void csv_put_field(const char *v)
{
	if (!strpbrk(v, ",\"\r\n")) {
		fputs(v, csv);
		return;
	}
	fputc('"', csv);
	for (; *v; v++) {
		if (*v == '"')
			fputc('"', csv);
		fputc(*v, csv);
	}
	fputc('"', csv);
}

static void csv_write_row(const struct domain *d, uint64_t t,
			  const struct sample *s)
{
	char time_s[NUM_MAX];

	if (!csv)
		return;
	fmt_elapsed(time_s, sizeof(time_s), t);
	fprintf(csv, "%s,", time_s);
	csv_put_field(d->name);
	fputc(',', csv);
	if (s->has_load)
		fprintf(csv, "%u", s->load);
	fprintf(csv, ",%u,", s->has_online ? s->online : s->vcpus);
	csv_put_field(s->mode);
	fputc(',', csv);
	if (s->has_tput)
		fprintf(csv, "%llu", s->tput);
	fputc('\n', csv);
	csv_rows++;
}

/* Flush the CSV; false (after saying why) if it cannot be written. */
static bool csv_flush(void)
{
	if (!csv || (!fflush(csv) && !ferror(csv)))
		return true;
	error("cannot write the CSV %s: %s", opt.csv_path, strerror(errno));
	return false;
}

/* ------------------------------------------------------------ sampling */

static void drop_domain(struct domain *d, const char *why)
{
	log_line("%s (domain %u): %s: dropped", d->name, d->domid, why);
	d->active = false;
}

/* Read one domain's keys.  0, -ENOENT if the domain is gone, or -errno. */
static int read_sample(struct domain *d, struct sample *s)
{
	unsigned long long v;
	char name[NAME_LEN];
	int rc;

	memset(s, 0, sizeof(*s));
	/* The toolstack removes the whole home when the domain goes. */
	if (d->named) {
		rc = xs_get_dom(d, "name", name, sizeof(name));
		if (rc)
			return rc;
	}
	rc = count_available(d);
	if (rc < 0)
		return rc;
	s->vcpus = (unsigned int)rc;
	if (!s->vcpus)
		return -ENOENT; /* no cpu/ keys left: being torn down */

	rc = xs_get_dom_uint(d, KEY_LOAD, UINT32_MAX, &v);
	if (!rc) {
		s->has_load = true;
		s->load = (unsigned int)v;
	} else if (rc != -ENOENT && rc != -EINVAL) {
		return rc;
	} else if (!d->load_missing_logged) {
		log_line("%s (domain %u): %s %s: not deciding until it is a "
			 "number",
			 d->name, d->domid, KEY_LOAD,
			 rc == -ENOENT ? "absent" : "not a number");
		d->load_missing_logged = true;
	}
	if (!xs_get_dom_uint(d, KEY_ONLINE, AS_VCPUS_MAX, &v)) {
		s->has_online = true;
		s->online = (unsigned int)v;
	}
	if (!xs_get_dom_uint(d, KEY_THROUGHPUT, UINT64_MAX, &v)) {
		s->has_tput = true;
		s->tput = v;
	}
	if (xs_get_dom(d, KEY_MODE, s->mode, sizeof(s->mode)))
		s->mode[0] = '\0';
	return 0;
}

static void apply_decision(struct domain *d, const struct sample *s,
			   const struct as_decision *dec)
{
	char why[REASON_LEN];
	int rc;

	as_describe(&d->cfg, s->load, s->vcpus, dec, why, sizeof(why));
	if (opt.verbose || dec->action != AS_STAY)
		log_line("%s (domain %u): load %u%%, vcpus %u -> %u: %s: %s%s",
			 d->name, d->domid, s->load, s->vcpus, dec->vcpus,
			 as_reason_name(dec->reason), why,
			 dec->action != AS_STAY && opt.dry_run ? " (dry run)"
							       : "");
	if (dec->action == AS_STAY || opt.dry_run)
		return;
	changes++;
	rc = start_vcpu_set(d, dec->vcpus);
	if (rc) {
		xl_failures++;
		log_line("%s (domain %u): cannot start %s: %s", d->name,
			 d->domid, opt.xl, strerror(-rc));
	}
}

/*
 * One round over every active domain at the sample tick tick_ms (since
 * start; the policy measures hold times in ticks, free of jitter).
 * Returns the count still active.
 */
static unsigned int sample_all(uint64_t tick_ms)
{
	unsigned int i, active = 0;

	for (i = 0; i < ndomains; i++) {
		struct domain *d = &domains[i];
		struct as_decision dec;
		struct sample s;
		uint64_t t;
		int rc;

		reap_vcpu_set(d, false);
		if (!d->active)
			continue;
		t = now_ms();
		rc = read_sample(d, &s);
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
		csv_write_row(d, t, &s);
		if (!s.has_load)
			continue;
		if (d->xl_pid) {
			/* Its count is changing: decide once xl is done. */
			if (opt.verbose)
				log_line("%s (domain %u): %s vcpu-set %u still "
					 "running",
					 d->name, d->domid, opt.xl,
					 d->xl_target);
			continue;
		}
		as_decide(&d->cfg, &d->state, tick_ms, s.load, s.vcpus, &dec);
		apply_decision(d, &s, &dec);
	}
	return active;
}

/* ---------------------------------------------------------------- setup */

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: the sleep between samples must end at once. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static void print_help(void)
{
	printf("Usage: " PROG " [OPTION]... DOMAIN...\n"
	       "Scale the vCPUs of smpalt guests (Xen PV) by the load they "
	       "publish in\n" KEY_LOAD " (percent of one vCPU: 250 = work "
	       "for 2.5 vCPUs).\n"
	       "DOMAIN is a domain name or domid; run in dom0 as root.\n"
	       "\n"
	       "Every sample period, for each domain: utilisation = load / "
	       "vCPUs.\n"
	       "Above --high for --hold-up: scale up; below --low for "
	       "--hold-down: scale\n"
	       "down; both to ceil(load / high), clamped to --min..--max. "
	       "Changes run\n"
	       "'xl vcpu-set -i DOMID N'.\n"
	       "\n"
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
	       "maxvcpus)\n"
	       "  -d, --duration SEC    stop after SEC (default: at SIGINT or "
	       "SIGTERM)\n"
	       "  -c, --csv FILE        one row per domain per sample:\n"
	       "                        " CSV_HEADER "\n"
	       "  -1, --once            one sample, no hold time, then exit\n"
	       "  -n, --dry-run         decide and log, never run xl\n"
	       "  -x, --xl PATH         the xl program (default %s)\n"
	       "  -v, --verbose         log every sample, not just changes\n"
	       "  -h, --help            this text\n"
	       "\n"
	       "Exit status: 0 ok, %d CSV or xl failure (xl: --once only), "
	       "%d usage,\n"
	       "%d xenstore unreachable, %d domain not found, %d every domain "
	       "disappeared.\n",
	       DEFAULT_HIGH_PCT, DEFAULT_LOW_PCT,
	       DEFAULT_PERIOD_MS / MS_PER_SEC, DEFAULT_PERIOD_MS % MS_PER_SEC,
	       DEFAULT_HOLD_MS / MS_PER_SEC, DEFAULT_HOLD_MS % MS_PER_SEC,
	       DEFAULT_MIN_VCPUS, DEFAULT_XL, EXIT_RUNTIME, EXIT_USAGE,
	       EXIT_XENSTORE, EXIT_NO_DOMAIN, EXIT_ALL_GONE);
}

enum long_only {
	OPT_HOLD = 256,
	OPT_HOLD_UP,
	OPT_HOLD_DOWN,
};

static void parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
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
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	char err[REASON_LEN];
	struct as_config check;
	int c, i;

	opt.cfg.high_pct = DEFAULT_HIGH_PCT;
	opt.cfg.low_pct = DEFAULT_LOW_PCT;
	opt.cfg.hold_up_ms = DEFAULT_HOLD_MS;
	opt.cfg.hold_down_ms = DEFAULT_HOLD_MS;
	opt.cfg.min_vcpus = DEFAULT_MIN_VCPUS;
	opt.cfg.max_vcpus = 0;
	opt.period_ms = DEFAULT_PERIOD_MS;
	opt.xl = DEFAULT_XL;

	while ((c = getopt_long(argc, argv, "H:L:p:m:M:d:c:1nx:vh", longopts,
				NULL)) != -1) {
		switch (c) {
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
		case 'v':
			opt.verbose = true;
			break;
		case 'h':
			print_help();
			exit(0);
		default:
			fprintf(stderr, "(see --help)\n");
			exit(EXIT_USAGE);
		}
	}
	if (optind >= argc)
		usage_error("no DOMAIN given");
	if (argc - optind > MAX_DOMAINS)
		usage_error("at most %d domains", MAX_DOMAINS);
	for (i = optind; i < argc; i++)
		domains[ndomains++].spec = argv[i];

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
}

/* Resolve every domain and give it its own limits; exits on failure. */
static void setup_domains(void)
{
	char err[REASON_LEN];
	unsigned int i, j;

	for (i = 0; i < ndomains; i++) {
		struct domain *d = &domains[i];
		int rc = resolve_domain(d);

		if (rc == -ENOENT) {
			error("no domain '%s' (neither a domid nor a name "
			      "under " DOMAIN_ROOT ")",
			      d->spec);
			exit(EXIT_NO_DOMAIN);
		}
		if (rc)
			xenstore_failed("looking up domains", rc);
		for (j = 0; j < i; j++)
			if (domains[j].domid == d->domid) {
				error("domain '%s' given twice (domain %u)",
				      d->spec, d->domid);
				exit(EXIT_USAGE);
			}
		rc = count_maxvcpus(d);
		if (rc <= 0) {
			error("%s (domain %u) has no cpu/ keys: cannot tell "
			      "its maxvcpus%s%s",
			      d->name, d->domid, rc ? ": " : "",
			      rc ? strerror(-rc) : "");
			exit(EXIT_NO_DOMAIN);
		}
		d->maxvcpus = (unsigned int)rc;
		d->cfg = opt.cfg;
		if (!d->cfg.max_vcpus)
			d->cfg.max_vcpus = d->maxvcpus;
		if (d->cfg.max_vcpus > d->maxvcpus) {
			log_line("%s (domain %u): --max %u above its maxvcpus "
				 "%u: using %u",
				 d->name, d->domid, d->cfg.max_vcpus,
				 d->maxvcpus, d->maxvcpus);
			d->cfg.max_vcpus = d->maxvcpus;
		}
		if (as_config_check(&d->cfg, err, sizeof(err))) {
			error("%s (domain %u, maxvcpus %u): %s", d->name,
			      d->domid, d->maxvcpus, err);
			exit(EXIT_USAGE);
		}
		as_state_init(&d->state);
		d->active = true;
		log_line("watching %s (domain %u): vcpus %u..%u, high %u%%, "
			 "low %u%%, hold up %llu ms, down %llu ms, period "
			 "%llu ms%s",
			 d->name, d->domid, d->cfg.min_vcpus, d->cfg.max_vcpus,
			 d->cfg.high_pct, d->cfg.low_pct,
			 (unsigned long long)d->cfg.hold_up_ms,
			 (unsigned long long)d->cfg.hold_down_ms,
			 (unsigned long long)opt.period_ms,
			 opt.dry_run ? " (dry run)" : "");
	}
}

/* Sleep until the monotonic time `until_ms`, or until a signal. */
static void sleep_until(uint64_t until_ms)
{
	struct timespec ts = {
		.tv_sec = (time_t)(until_ms / MS_PER_SEC),
		.tv_nsec = (long)(until_ms % MS_PER_SEC) * NS_PER_MS,
	};

	while (!stop_signal && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
					       &ts, NULL) == EINTR)
		;
}

int main(int argc, char **argv)
{
	uint64_t next, now;
	unsigned int rounds = 0, active, i;
	int rc = 0;

	parse_args(argc, argv);
	start_ms = now_ms();

	xsh = xs_open(0);
	if (!xsh) {
		error("cannot connect to xenstore: %s (run in dom0 as root, "
		      "with xenstored running)",
		      strerror(errno));
		return EXIT_XENSTORE;
	}
	setup_domains();
	if (opt.csv_path) {
		csv = fopen(opt.csv_path, "w");
		if (!csv) {
			error("cannot create the CSV %s: %s", opt.csv_path,
			      strerror(errno));
			xs_close(xsh);
			return EXIT_RUNTIME;
		}
		fprintf(csv, CSV_HEADER "\n");
	}
	install_signals();

	for (next = start_ms;; next += opt.period_ms) {
		active = sample_all(next - start_ms);
		rounds++;
		if (!csv_flush()) {
			rc = EXIT_RUNTIME;
			break;
		}
		if (!active) {
			log_line("every domain has disappeared: stopping");
			rc = EXIT_ALL_GONE;
			break;
		}
		if (opt.once)
			break;
		now = now_ms();
		/* Fell behind (a slow xl): skip the ticks already missed. */
		while (next + opt.period_ms <= now)
			next += opt.period_ms;
		if (opt.duration_ms &&
		    next + opt.period_ms > start_ms + opt.duration_ms)
			break;
		sleep_until(next + opt.period_ms);
		if (stop_signal)
			break;
	}
	/* Never leave an xl behind: it is changing a domain. */
	for (i = 0; i < ndomains; i++)
		reap_vcpu_set(&domains[i], true);
	if (opt.once && xl_failures)
		rc = EXIT_RUNTIME;

	log_line("stopped%s%s after %u sample round%s: %llu change%s%s, "
		 "%llu xl failure%s, %llu CSV row%s%s%s",
		 stop_signal ? " by " : "",
		 stop_signal == SIGINT	  ? "SIGINT"
		 : stop_signal == SIGTERM ? "SIGTERM"
					  : "",
		 rounds, rounds == 1 ? "" : "s", changes,
		 changes == 1 ? "" : "s", opt.dry_run ? " (dry run)" : "",
		 xl_failures, xl_failures == 1 ? "" : "s", csv_rows,
		 csv_rows == 1 ? "" : "s", opt.csv_path ? " in " : "",
		 opt.csv_path ? opt.csv_path : "");
	if (csv && fclose(csv)) {
		error("cannot write the CSV %s: %s", opt.csv_path,
		      strerror(errno));
		rc = EXIT_RUNTIME;
	}
	xs_close(xsh);
	return rc;
}
