// SPDX-License-Identifier: MIT
/*
 * autoscale_cli.c - the command line: --help and the options, into the
 * daemon's context.  See autoscale_cli.h.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <getopt.h>

#include "autoscaler.h"
#include "autoscale_cli.h"
#include "autoscale_domains.h"
#include "autoscale_glob.h"
#include "autoscale_log.h"
#include "autoscale_select.h"

/* The built-in settings the configuration file goes over, and the options
 * given (their bits in .set), which go over the file's [defaults]. */
const struct as_settings conf_base = {
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

enum long_only {
	OPT_LIBVIRT = 256,
	OPT_LOG_PRIORITY,
	OPT_BACKOFF_MAX,
	OPT_CHANGE_TIMEOUT,
	OPT_CONFIG,
	OPT_CHECK_CONFIG,
	OPT_METRICS_FILE,
	OPT_METRICS_LISTEN,
	/* as_settings_table[i] is OPT_SETTING + i. */
	OPT_SETTING,
};

/* The options that are no setting of a domain. */
static const struct option process_opts[] = {
	{"all", no_argument, NULL, 'a'},
	{"duration", required_argument, NULL, 'd'},
	{"csv", required_argument, NULL, 'c'},
	{"once", no_argument, NULL, '1'},
	{"dry-run", no_argument, NULL, 'n'},
	{"xl", required_argument, NULL, 'x'},
	{"ignore-host", no_argument, NULL, 'i'},
	{"libvirt", required_argument, NULL, OPT_LIBVIRT},
	{"log-priority", required_argument, NULL, OPT_LOG_PRIORITY},
	{"backoff-max", required_argument, NULL, OPT_BACKOFF_MAX},
	{"change-timeout", required_argument, NULL, OPT_CHANGE_TIMEOUT},
	{"config", required_argument, NULL, OPT_CONFIG},
	{"check-config", optional_argument, NULL, OPT_CHECK_CONFIG},
	{"metrics-file", required_argument, NULL, OPT_METRICS_FILE},
	{"metrics-listen", required_argument, NULL, OPT_METRICS_LISTEN},
	{"verbose", no_argument, NULL, 'v'},
	{"version", no_argument, NULL, 'V'},
	{"help", no_argument, NULL, 'h'},
};
#define NPROCESS_OPTS (sizeof(process_opts) / sizeof(process_opts[0]))
#define SETTINGS_MAX 32 /* room for the table's entries */
#define SHORT_OPTS "as:H:L:p:m:M:d:c:1nx:ivVh"

/* A setting given on the command line: parsed as the file parses it. */
static void opt_setting(struct autoscaler *as, const struct as_setting *st,
			const char *arg)
{
	char want[REASON_LEN];

	if (as_setting_parse(st, arg, &as->conf_cli)) {
		as_setting_describe(st, want, sizeof(want));
		usage_error("--%s: '%s': expected %s", st->option, arg, want);
	}
}

/* A time option of the process (not a setting): the settings' syntax. */
static uint64_t opt_seconds(const char *name, const char *arg, uint64_t min_ms)
{
	uint64_t ms;

	if (as_seconds_parse(arg, min_ms, SECONDS_MAX * MS_PER_SEC, &ms))
		usage_error("%s: '%s' is not a number of seconds within "
			    "%llu.%03llu..%u (up to 3 decimals)",
			    name, arg, (unsigned long long)min_ms / MS_PER_SEC,
			    (unsigned long long)min_ms % MS_PER_SEC,
			    SECONDS_MAX);
	return ms;
}

/* The setting of a short option or of a long one's value, or NULL. */
static const struct as_setting *setting_of(int c)
{
	const struct as_setting *st;

	if (c >= OPT_SETTING)
		return &as_settings_table[c - OPT_SETTING];
	for (st = as_settings_table; st->key; st++)
		if (st->short_opt && st->short_opt == c)
			return st;
	return NULL;
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
	       "SIGHUP reopens the CSV, then reloads the configuration file; "
	       "a missing or\n"
	       "bad file keeps the settings in force.  Under systemd: READY=1, "
	       "WATCHDOG=1\n"
	       "after each completed round; a period longer than half "
	       "WatchdogSec= is refused.\n"
	       "Metrics over HTTP: --metrics-file and node_exporter's "
	       "textfile collector.\n"
	       "\n"
	       "Exit status: 0 ok, %d CSV failure (or a failed change with "
	       "--once), %d usage or\n"
	       "configuration error, %d xenstore unreachable or lost "
	       "(--once: a domain\n"
	       "unreadable), %d --once: no such domain, %d --once: every "
	       "domain went,\n"
	       "%d --signal xen or auto: no Xen CPU accounting.\n",
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

void parse_args(struct autoscaler *as, int argc, char **argv)
{
	struct option longopts[NPROCESS_OPTS + SETTINGS_MAX + 1];
	const struct as_setting *st;
	size_t n;
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
	as->opt.config_path =
		getenv(ENV_TEST_CONF) ? getenv(ENV_TEST_CONF) : AS_CONF_PATH;

	/* The process's options, then one per setting of the table. */
	memcpy(longopts, process_opts, sizeof(process_opts));
	n = NPROCESS_OPTS;
	for (st = as_settings_table;
	     st->key && n < NPROCESS_OPTS + SETTINGS_MAX; st++)
		longopts[n++] = (struct option){
			st->option, required_argument, NULL,
			OPT_SETTING + (int)(st - as_settings_table)};
	longopts[n] = (struct option){NULL, 0, NULL, 0};

	while ((c = getopt_long(argc, argv, SHORT_OPTS, longopts, NULL)) !=
	       -1) {
		st = setting_of(c);
		if (st) {
			opt_setting(as, st, optarg);
			continue;
		}
		switch (c) {
		case 'a':
			as->opt.all = true;
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
		if (as_glob_check(as->opt.specs[i], err, sizeof(err)))
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
