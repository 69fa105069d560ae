// SPDX-License-Identifier: MIT
/*
 * autoscale_domains.c - the domains the daemon follows through their life:
 * adopted when selected and ready, configured from the configuration
 * file, dropped when they go or their domid goes to another domain.
 * See autoscale_domains.h.
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

#include <xenstore.h>
#include <xen/xen.h>

#include "autoscaler.h"
#include "autoscale_change.h"
#include "autoscale_domains.h"
#include "autoscale_log.h"
#include "autoscale_select.h"
#include "autoscale_xs.h"

struct domain *find_domain(struct autoscaler *as, unsigned int domid)
{
	size_t i;

	for (i = 0; i < as->ndomains; i++)
		if (as->domains[i]->used && as->domains[i]->domid == domid)
			return as->domains[i];
	return NULL;
}

void drop_domain(struct autoscaler *as, struct domain *d, const char *why)
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

/* Add the counts c to sum. */
void counts_add(struct as_counts *sum, const struct as_counts *c)
{
	sum->decisions_up += c->decisions_up;
	sum->decisions_down += c->decisions_down;
	sum->changes += c->changes;
	sum->failures += c->failures;
	sum->timeouts += c->timeouts;
	sum->held += c->held;
	sum->read_errors += c->read_errors;
}

/* Free the dropped domains; the others keep their order. */
void compact_domains(struct autoscaler *as)
{
	size_t i, kept = 0;

	for (i = 0; i < as->ndomains; i++) {
		struct domain *d = as->domains[i];

		if (d->used) {
			as->domains[kept++] = d;
			continue;
		}
		counts_add(&as->gone, &d->counts);
		free(d->name);
		free(d->vm);
		free(d);
	}
	as->ndomains = kept;
}

/* The configuration file's settings (autoscale_config.h) as the
 * program's: the backoff is the command line's alone. */
void settings_from(struct autoscaler *as, const struct as_settings *c,
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
void configure_domain(struct autoscaler *as, struct domain *d, bool first)
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
		/* A change under way finishes (sample_all() reaps it, its
		 * timeout still holds): only the next ones are not made. */
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
		/* A change still under way is reaped by its own backend. */
		if (!d->changing)
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
unsigned int scan_domains(struct autoscaler *as)
{
	unsigned int n, i, selected = 0;
	char **ents;
	size_t j;

	as->rescan = false;
	ents = xs_list_domain_root(as, &n);
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
