/* SPDX-License-Identifier: MIT */
/*
 * autoscale_domains.h - the followed domains' life: scan /local/domain,
 * adopt, configure (at adoption and at every reload), drop.
 */
#ifndef SMPALT_AUTOSCALE_DOMAINS_H
#define SMPALT_AUTOSCALE_DOMAINS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "autoscaler.h"

/* The followed domain of that domid; NULL if none. */
struct domain *find_domain(struct autoscaler *as, unsigned int domid);

/* Stop following d (its change, if any, ended first); why is logged. */
void drop_domain(struct autoscaler *as, struct domain *d, const char *why);

/* Add the counts c to sum (a domain's to a total). */
void counts_add(struct as_counts *sum, const struct as_counts *c);

/* Free the dropped domains; the others keep their order. */
void compact_domains(struct autoscaler *as);

/* The configuration file's settings (autoscale_config.h) as the
 * program's: the backoff is the command line's alone. */
void settings_from(struct autoscaler *as, const struct as_settings *c,
		   struct domain_settings *set);

/*
 * Give d its settings (settings_for), bounded by its maxvcpus and the
 * host, and start or stop scaling it accordingly: at adoption (first) and
 * after every reload of the configuration file.  Logs what it gets once,
 * and again when that changes.
 */
void configure_domain(struct autoscaler *as, struct domain *d, bool first);

/*
 * Look at /local/domain: drop followed domains whose home went (or whose
 * domid now belongs to another domain), adopt the selected ones not
 * followed yet.  A selected domain that is not ready, or that cannot be
 * read now, leaves `rescan` set, to look again at the next sample.
 * Returns the number of domains selected (followed or not ready).
 */
unsigned int scan_domains(struct autoscaler *as);

#endif /* SMPALT_AUTOSCALE_DOMAINS_H */
