/* SPDX-License-Identifier: MIT */
/*
 * autoscaler.h - smpalt-autoscaler's state: one context (struct
 * autoscaler) that main() owns and hands to every part of the daemon, the
 * domains it follows, and the definitions those parts share.  Nothing of
 * the daemon's state lives at file scope but the signal handler's flags.
 */
#ifndef SMPALT_AUTOSCALER_H
#define SMPALT_AUTOSCALER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <xenstat.h>
#include <xenstore.h>

#include "autoscale_config.h"
#include "autoscale_csv.h"
#include "autoscale_journal.h"
#include "autoscale_metrics.h"
#include "autoscale_policy.h"
#include "autoscale_ratelimit.h"
#include "autoscale_signal.h"
#include "scale_backend.h"

#define PROG "smpalt-autoscaler"
/* The build gives the version (mk/tools.mk). */
#ifndef SMPALT_VERSION
#define SMPALT_VERSION "unknown"
#endif

/* Exit codes (documented in --help and docs/autoscaler.md). */
#define EXIT_RUNTIME 1	 /* CSV write error, failed change at --once */
#define EXIT_USAGE 2	 /* bad command line */
#define EXIT_XENSTORE 3	 /* xenstore unreachable or failing */
#define EXIT_NO_DOMAIN 4 /* --once: a DOMAIN selects no domain */
#define EXIT_ALL_GONE 5	 /* --once: every domain went during the sample */
#define EXIT_XENSTAT 6	 /* --signal xen or auto without Xen's CPU time */

/* Defaults (see --help). */
#define DEFAULT_HIGH_PCT 80
#define DEFAULT_LOW_PCT 40
#define DEFAULT_PERIOD_MS 1000
#define DEFAULT_HOLD_MS 3000
#define DEFAULT_MIN_VCPUS 1
#define DEFAULT_XL "xl"
/* The pace of changes to one domain (autoscale_policy.h, as_pace). */
#define DEFAULT_COOLDOWN_MS 5000
#define DEFAULT_RATE_MAX 12
#define DEFAULT_RATE_WINDOW_MS (10 * 60 * 1000)
#define DEFAULT_BACKOFF_MAX_MS (5 * 60 * 1000)
/* A backend call (xl vcpu-set) running longer is killed. */
#define DEFAULT_CHANGE_TIMEOUT_MS 30000
/* Between rounds, how often a change under way is looked at. */
#define CHANGE_POLL_MS 100
/* At exit, changes under way get this long before they are killed. */
#define EXIT_GRACE_MS 2000

/*
 * Tests only: a directory where the file named after a domid holds the
 * percent of one vCPU that Xen is to be taken to see that domain use
 * (tests/unit/autoscale_tool_test.c has no Xen).  It replaces libxenstat.
 */
#define ENV_TEST_XEN_LOAD "SMPALT_AUTOSCALER_TEST_XEN_LOAD"

/*
 * Tests only: the configuration file's default path (the one that may be
 * missing at start) instead of AS_CONF_PATH, which a test cannot write.
 */
#define ENV_TEST_CONF "SMPALT_AUTOSCALER_TEST_CONF"

#define PERIOD_MIN_MS 10
/* Longest accepted time option: a day. */
#define SECONDS_MAX (24 * 60 * 60)
#define MS_PER_SEC 1000
#define NS_PER_MS 1000000L
#define NS_PER_US 1000
#define US_PER_MS 1000
#define NS_PER_SEC 1000000000ULL
#define NUM_MAX 32 /* a decimal number as text */
#define PATH_LEN 128
#define MODE_LEN 64
#define KEY_LEN 48 /* a key under a domain's home, e.g. cpu/N/availability */
/* The domain's /vm/<uuid> path (the toolstack's "vm" key) and its UUID. */
#define VM_PREFIX "/vm/"
#define UUID_LEN 36
#define REASON_LEN 256

#define DOMAIN_ROOT "/local/domain"
/* What the guest publishes (docs/xenstore.md). */
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

/*
 * What may differ from one domain to the next: the policy's thresholds,
 * holds and vCPU range, and the pace of its changes.  Every decision about
 * a domain reads its own copy (struct domain's set), never the options.
 */
struct domain_settings {
	struct as_config policy; /* max_vcpus 0: the domain's maxvcpus */
	struct as_pace_config pace;
	enum as_signal signal;
};

struct options {
	uint64_t backoff_max_ms; /* every domain's: not in the file */
	uint64_t period_ms;
	uint64_t duration_ms; /* 0: until SIGINT/SIGTERM */
	uint64_t change_timeout_ms;
	const char *csv_path;
	const char *config_path;
	bool config_given; /* --config: the file must exist */
	const char *metrics_file;
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

struct sample {
	bool has_guest, has_online, has_tput, has_xen;
	bool xen_first; /* Xen's first reading of it: a figure comes next */
	unsigned int guest, vcpus, online, xen;
	unsigned long long tput;
	char mode[MODE_LEN];
};

/* A domain followed: known by its domid and, when the toolstack wrote
 * one, the UUID of its /vm path (a domid reused by another domain is
 * another domain). */
struct domain {
	bool used;     /* false: dropped, freed at the next compact_domains() */
	bool active;   /* scaled (else refused or excluded) */
	bool excluded; /* by the configuration file's exclude */
	bool seen;     /* found by the running scan_domains() */
	char *name;    /* the toolstack's, whole */
	char *vm;      /* "/vm/<uuid>", or NULL when there is none */
	char uuid[UUID_LEN + 1]; /* "" when not known */
	unsigned int domid;
	unsigned int maxvcpus;
	struct domain_settings set; /* thresholds, range, pace: its own */
	struct as_state state;
	struct as_pace pace;
	/* NULL while libvirt cannot say whether it manages the domain. */
	struct scale_backend *backend;
	enum as_source last_source; /* to log when it changes */
	bool source_logged;
	bool read_failing; /* the last round could not read its keys */
	struct as_ratelimit log_limit; /* the lines its keys cause */
	bool held_back; /* a change is held back by the pace (logged) */
	enum as_pace_verdict held_why; /* why, as last logged (GO: libvirt) */
	/* A change under way. */
	bool changing;
	unsigned int target;
	uint64_t change_start_ms;
	/* Xen's last CPU time reading. */
	bool has_cpu;
	uint64_t cpu_ns, cpu_wall_ns;
	struct sample sample; /* this round's */
	/* What happened to it, for the metrics and the summary. */
	struct as_counts counts;
};

/* The daemon: everything that changes while it runs. */
struct autoscaler {
	struct options opt;
	/* The options given that the configuration file also has (their
	 * bits in .set), and the file's settings over the built-in ones
	 * and under those options; NULL before it is read. */
	struct as_settings conf_cli;
	struct as_conf *conf;
	struct xs_handle *xsh;
	xenstat_handle *xstat;
	/* The host's physical CPUs (libxenstat), 0 if not known. */
	unsigned int host_cpus;
	/*
	 * The CPU time of every domain (dom0 included) at Xen's last
	 * reading, and this round's idle time of the host from it (percent
	 * of one CPU), for the clamp (autoscale_signal.h).
	 */
	bool has_host_cpu, has_host_idle;
	uint64_t host_cpu_ns, host_cpu_wall_ns;
	unsigned int host_idle;
	bool xenstat_failing; /* libxenstat's last reading failed (said) */
	/* Tests only: where Xen's figure comes from instead
	 * (ENV_TEST_XEN_LOAD). */
	const char *test_xen_dir;
	struct scale_backend *xl_backend, *libvirt_backend;
	/* The domains followed: any number. */
	struct domain **domains;
	size_t ndomains, domains_cap;
	/* A watch fired, or a domain was not ready: look at /local/domain
	 * again. */
	bool rescan;
	struct as_csv_file csv;
	bool csv_failed;
	struct as_metrics metrics;
	bool metrics_failing; /* the last write failed (said once) */
	enum as_log_route log_route;
	bool syslog_prefix;
	uint64_t start_ms;
	unsigned long long csv_rows;
	/* The counts of the domains no longer followed (the summary adds
	 * those of the followed ones). */
	struct as_counts gone;
	/* systemd's watchdog interval (WATCHDOG_USEC), 0 without one. */
	uint64_t watchdog_usec;
	/* The signal mask to wait with: SIGINT, SIGTERM and SIGHUP are
	 * blocked everywhere else (libxenstore's thread included) and
	 * arrive only there. */
	sigset_t wait_mask;
};

/*
 * End the daemon with status code: changes under way are let finish (a
 * grace time, then killed), the metrics file says it is down
 * (smpalt_autoscaler_up 0), everything held is released.  From any
 * depth: it never returns.
 */
void __attribute__((noreturn)) daemon_exit(struct autoscaler *as, int code);

#endif /* SMPALT_AUTOSCALER_H */
