/* SPDX-License-Identifier: MIT */
/*
 * autoscale_config.h - the autoscaler's configuration file,
 * /etc/smpalt/autoscaler.conf: global defaults, per-domain overrides by
 * name or glob, exclusions; parsed with inih (libinih, INI), validated
 * whole, and resolved per domain name (host tests:
 * autoscale_config_test.c; the format in docs/autoscaler.md).
 *
 * The keys and their ranges are autoscale_settings.c's table, the same
 * as the command line's options.
 *
 *   # comment                     (also ";", or " ;" after a value)
 *   [defaults]
 *   high = 80                     percent of each vCPU, 1..100
 *   low = 40                      0..99, below high (0: never down)
 *   hold = 3                      seconds (decimals: 2.5): sets both
 *   hold-up = 3                     hold times, or each on its own
 *   hold-down = 10
 *   period = 1                    sample period, 0.01..3600 s; only here
 *   min = 1                       fewest vCPUs, 1..AS_VCPUS_MAX
 *   max = 8                       most vCPUs (each domain's maxvcpus
 *                                   lowers it further)
 *   cooldown = 30                 seconds after a change with no other
 *   rate-limit = 6                changes per rate-window, 0..64 (0: none)
 *   rate-window = 3600            seconds, 1..86400
 *   signal = xen                  auto, guest or xen (as --signal)
 *   exclude = test-*              never scale these (a glob; the key may
 *   exclude = backup                be repeated); only here
 *
 *   [domain "web*"]               these domains: any key above but
 *   high = 70                       period and exclude
 *   [domain "db1"]
 *   max = 2
 *
 * Which settings a domain gets (as_conf_resolve):
 *   1. a domain matching any exclude pattern is not scaled, whatever
 *      sections name it;
 *   2. else the [domain "NAME"] section whose pattern is the name itself
 *      (a pattern without * ? [ or \ is an exact name), if any;
 *   3. else the first [domain "GLOB"] section in the file whose glob
 *      matches (fnmatch(3) without flags: * and ? match any character);
 *   4. the one section chosen (or none) is laid over the defaults; keys
 *      it does not set come from the defaults, never from another
 *      section.
 * The defaults are, from weakest to strongest: the program's built-in
 * values, [defaults], then the options given on the command line.  A
 * [domain] section is stronger than all three for its domains.
 *
 * Validation: the whole file is checked and every error reported as
 * "FILE:LINE: [SECTION] KEY: what is wrong" (as_conf_report_fn): a syntax
 * error, an unknown section or key, a key given twice, a number that is
 * not one or is out of range, a malformed glob (an unclosed '[', a lone
 * trailing '\', an unknown [:class:], an empty range such as [z-a], each
 * an error rather than a pattern that matches nothing), and per section
 * the settings it ends up with (low below high, min at most max).  A file
 * with any error yields no configuration.
 *
 * How the daemon uses it:
 *   base: its built-in values (all AS_CONF_* bits set); cli: the options
 *   given on the command line (their bits set in cli.set).
 *   At start:   err = as_conf_reload(&conf, path, &base, &cli, log, ctx);
 *               -ENOENT (not reported) for the default path means no
 *               file: as_conf_parse(path, "", 0, &base, &cli, &conf, ...)
 *               gives base and cli alone; any other error: exit.
 *   Per domain: as_conf_resolve(conf, name, &r) when the domain is first
 *               seen and after every reload; r.excluded: leave it alone.
 *   SIGHUP:     as_conf_reload(&conf, ...) again: on error the old
 *               configuration stays in force and the errors have been
 *               reported; -ENOENT (the file was removed) is the
 *               daemon's to log.  Count it: as_metrics_config_reload().
 *   --check-config FILE: exit(as_conf_check(FILE, &base, &cli, stdout)).
 *   At exit:    as_conf_free(conf).
 */
#ifndef SMPALT_AUTOSCALE_CONFIG_H
#define SMPALT_AUTOSCALE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "autoscale_settings.h"

#define AS_CONF_PATH "/etc/smpalt/autoscaler.conf"
/* Largest configuration file read. */
#define AS_CONF_FILE_MAX (1024 * 1024)

/* One error, "FILE:LINE: ...", without a newline. */
typedef void (*as_conf_report_fn)(void *ctx, const char *msg);

struct as_conf; /* opaque */

/*
 * Parse text (len bytes; name is what errors call it) over base and cli.
 * 0 and *out, or -EINVAL after reporting each error, or -ENOMEM.
 */
int as_conf_parse(const char *name, const char *text, size_t len,
		  const struct as_settings *base, const struct as_settings *cli,
		  struct as_conf **out, as_conf_report_fn report, void *ctx);

/*
 * The same from a file.  -ENOENT (not reported) when path does not
 * exist; other errors reading it are reported and returned as -errno.
 */
int as_conf_load(const char *path, const struct as_settings *base,
		 const struct as_settings *cli, struct as_conf **out,
		 as_conf_report_fn report, void *ctx);

/*
 * Load path and, only if it is valid, free *conf and put the new one in
 * its place.  On any error *conf is left as it was.  0 or as
 * as_conf_load.
 */
int as_conf_reload(struct as_conf **conf, const char *path,
		   const struct as_settings *base,
		   const struct as_settings *cli, as_conf_report_fn report,
		   void *ctx);

void as_conf_free(struct as_conf *conf);

/* What one domain gets. */
struct as_conf_domain {
	bool excluded;	      /* never scale it */
	struct as_settings s; /* all fields set (unless excluded) */
	const char *pattern;  /* the section used; NULL: the defaults */
	unsigned int line;    /* its line in the file (0: none) */
	const char *exclude;  /* the exclude pattern that matched */
};

/*
 * The settings for the domain called name, by the rules above.  The
 * strings in r live as long as conf.
 */
void as_conf_resolve(const struct as_conf *conf, const char *name,
		     struct as_conf_domain *r);

/*
 * --check-config: load path, print each error to out, then
 * "FILE: N errors" or "FILE: OK".  Returns the exit status: 0 valid, 1
 * not (unreadable or missing included).
 */
int as_conf_check(const char *path, const struct as_settings *base,
		  const struct as_settings *cli, FILE *out);

#endif /* SMPALT_AUTOSCALE_CONFIG_H */
