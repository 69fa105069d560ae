// SPDX-License-Identifier: MIT
/*
 * autoscale_metrics.c - Prometheus metrics: the counts, their text, the
 * textfile collector's file.
 * See autoscale_metrics.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "autoscale_metrics.h"
#include "autoscale_text.h"

#define PREFIX "smpalt_autoscaler_"
#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD */

void as_metrics_init(struct as_metrics *m, uint64_t start_unix_s)
{
	*m = (struct as_metrics){
		.start_unix_s = start_unix_s,
		.last_reload_ok = true,
		.last_reload_ok_unix_s = start_unix_s,
	};
}

void as_metrics_free(struct as_metrics *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->dom[i].name);
	free(m->dom);
	*m = (struct as_metrics){0};
}

/* The index of domid, or where it would go. */
static size_t domain_index(const struct as_metrics *m, unsigned int domid)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->dom[mid].domid < domid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct as_metrics_domain *
as_metrics_domain(struct as_metrics *m, unsigned int domid, const char *name)
{
	size_t i = domain_index(m, domid);
	struct as_metrics_domain *d;
	char *copy;

	if (i < m->n && m->dom[i].domid == domid) {
		d = &m->dom[i];
		if (strcmp(d->name, name) != 0) {
			copy = strdup(name);
			if (!copy)
				return NULL;
			free(d->name);
			d->name = copy;
		}
		return d;
	}
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 16;
		struct as_metrics_domain *p;

		p = reallocarray(m->dom, cap, sizeof(*p));
		if (!p)
			return NULL;
		m->dom = p;
		m->cap = cap;
	}
	copy = strdup(name);
	if (!copy)
		return NULL;
	memmove(&m->dom[i + 1], &m->dom[i], (m->n - i) * sizeof(m->dom[0]));
	m->n++;
	d = &m->dom[i];
	*d = (struct as_metrics_domain){.domid = domid, .name = copy};
	return d;
}

void as_metrics_forget(struct as_metrics *m, unsigned int domid)
{
	size_t i = domain_index(m, domid);

	if (i == m->n || m->dom[i].domid != domid)
		return;
	free(m->dom[i].name);
	memmove(&m->dom[i], &m->dom[i + 1], (m->n - i - 1) * sizeof(m->dom[0]));
	m->n--;
}

void as_metrics_config_reload(struct as_metrics *m, bool ok, uint64_t unix_s)
{
	m->reloads++;
	m->last_reload_ok = ok;
	if (ok)
		m->last_reload_ok_unix_s = unix_s;
	else
		m->reload_failures++;
}

void as_metrics_label_value(struct as_text *t, const char *value)
{
	const unsigned char *s = (const unsigned char *)value;
	size_t n = strlen(value), i = 0, len;
	unsigned int cp;

	while (i < n) {
		len = as_utf8_len(s + i, n - i, &cp);
		if (len == 0) {
			as_text_puts(t, REPLACEMENT);
			len = 1;
		} else if (cp == '\\') {
			as_text_puts(t, "\\\\");
		} else if (cp == '"') {
			as_text_puts(t, "\\\"");
		} else if (cp == '\n') {
			as_text_puts(t, "\\n");
		} else if (as_is_control(cp)) {
			as_text_puts(t, REPLACEMENT);
		} else {
			as_text_add(t, (const char *)s + i, len);
		}
		i += len;
	}
}

static void family(struct as_text *t, const char *name, const char *type,
		   const char *help)
{
	as_text_printf(t, "# HELP " PREFIX "%s %s\n# TYPE " PREFIX "%s %s\n",
		       name, help, name, type);
}

/* PREFIX "name{domain=\"...\",domid=\"N\"" with the closing brace open. */
static void domain_series(struct as_text *t, const char *name,
			  const struct as_metrics_domain *d)
{
	as_text_printf(t, PREFIX "%s{domain=\"", name);
	as_metrics_label_value(t, d->name);
	as_text_printf(t, "\",domid=\"%u\"", d->domid);
}

/* A per-domain counter or gauge of a uint64_t field. */
static void domain_family(struct as_text *t, const struct as_metrics *m,
			  const char *name, const char *type, const char *help,
			  size_t offset)
{
	if (m->n)
		family(t, name, type, help);
	for (size_t i = 0; i < m->n; i++) {
		const struct as_metrics_domain *d = &m->dom[i];
		uint64_t v;

		memcpy(&v, (const char *)d + offset, sizeof(v));
		domain_series(t, name, d);
		as_text_printf(t, "} %" PRIu64 "\n", v);
	}
}

static void render_daemon(struct as_text *t, const struct as_metrics *m)
{
	family(t, "up", "gauge",
	       "1 while the autoscaler runs, 0 once it has stopped.");
	as_text_printf(t, PREFIX "up %d\n", m->stopped ? 0 : 1);
	family(t, "start_time_seconds", "gauge",
	       "Start time of the autoscaler, Unix time.");
	as_text_printf(t, PREFIX "start_time_seconds %" PRIu64 "\n",
		       m->start_unix_s);
	family(t, "domains", "gauge", "Domains the autoscaler tracks.");
	as_text_printf(t, PREFIX "domains %zu\n", m->n);
	family(t, "config_reloads_total", "counter",
	       "Reloads of the configuration file (SIGHUP).");
	as_text_printf(t, PREFIX "config_reloads_total %" PRIu64 "\n",
		       m->reloads);
	family(t, "config_reload_failures_total", "counter",
	       "Reloads refused for an invalid file (the old one stays).");
	as_text_printf(t, PREFIX "config_reload_failures_total %" PRIu64 "\n",
		       m->reload_failures);
	family(t, "config_last_reload_successful", "gauge",
	       "Whether the last reload of the configuration succeeded.");
	as_text_printf(t, PREFIX "config_last_reload_successful %d\n",
		       m->last_reload_ok ? 1 : 0);
	family(t, "config_last_reload_success_timestamp_seconds", "gauge",
	       "Time of the last successful configuration load, Unix time.");
	as_text_printf(t,
		       PREFIX "config_last_reload_success_timestamp_seconds "
			      "%" PRIu64 "\n",
		       m->last_reload_ok_unix_s);
}

/* Whether any domain has vCPU counts (has_load: a load). */
static bool any_domain(const struct as_metrics *m, bool load)
{
	for (size_t i = 0; i < m->n; i++)
		if (load ? m->dom[i].has_load : m->dom[i].has_vcpus)
			return true;
	return false;
}

/*
 * Per-domain families; one without a sample is left out whole (no HELP
 * and TYPE on their own).
 */
static void render_domains(struct as_text *t, const struct as_metrics *m)
{
	const struct as_metrics_domain *d;
	size_t i;

	if (any_domain(m, false))
		family(t, "domain_vcpus_online", "gauge", "vCPUs online.");
	for (i = 0; i < m->n; i++) {
		d = &m->dom[i];
		if (!d->has_vcpus)
			continue;
		domain_series(t, "domain_vcpus_online", d);
		as_text_printf(t, "} %u\n", d->vcpus_online);
	}
	if (any_domain(m, false))
		family(t, "domain_vcpus_max", "gauge",
		       "Most vCPUs the domain may have (its maxvcpus).");
	for (i = 0; i < m->n; i++) {
		d = &m->dom[i];
		if (!d->has_vcpus)
			continue;
		domain_series(t, "domain_vcpus_max", d);
		as_text_printf(t, "} %u\n", d->vcpus_max);
	}
	if (any_domain(m, true))
		family(t, "domain_load_vcpus", "gauge",
		       "Load decided on, in vCPUs of work, by its source.");
	for (i = 0; i < m->n; i++) {
		d = &m->dom[i];
		if (!d->has_load)
			continue;
		domain_series(t, "domain_load_vcpus", d);
		as_text_puts(t, ",source=\"");
		as_metrics_label_value(t, d->source ? d->source : "");
		as_text_printf(t, "\"} %u.%02u\n", d->load / 100,
			       d->load % 100);
	}
	if (m->n)
		family(t, "domain_scale_decisions_total", "counter",
		       "vCPU changes decided, by direction.");
	for (i = 0; i < m->n; i++) {
		d = &m->dom[i];
		domain_series(t, "domain_scale_decisions_total", d);
		as_text_printf(t, ",direction=\"up\"} %" PRIu64 "\n",
			       d->counts.decisions_up);
		domain_series(t, "domain_scale_decisions_total", d);
		as_text_printf(t, ",direction=\"down\"} %" PRIu64 "\n",
			       d->counts.decisions_down);
	}
	domain_family(t, m, "domain_scale_failures_total", "counter",
		      "vCPU changes the backend failed to make.",
		      offsetof(struct as_metrics_domain, counts.failures));
	domain_family(t, m, "domain_rate_limited_total", "counter",
		      "vCPU changes held back by the cooldown or rate limit.",
		      offsetof(struct as_metrics_domain, counts.held));
	domain_family(t, m, "domain_backend_timeouts_total", "counter",
		      "Backend calls (xl, libvirt) killed after their timeout.",
		      offsetof(struct as_metrics_domain, counts.timeouts));
	domain_family(t, m, "domain_read_errors_total", "counter",
		      "Sample rounds in which the domain's keys could not be "
		      "read.",
		      offsetof(struct as_metrics_domain, counts.read_errors));
}

char *as_metrics_render(const struct as_metrics *m, size_t *len)
{
	struct as_text t = AS_TEXT_INIT;

	render_daemon(&t, m);
	render_domains(&t, m);
	return as_text_take(&t, len);
}

int as_metrics_write_file(const char *path, const char *text, size_t len)
{
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
	char *tmp;
	int fd, err;

	/* "DIR/.NAME.XXXXXX": a dot file, and no ".prom" at the end. */
	if (asprintf(&tmp, "%.*s.%s.XXXXXX", (int)dirlen, path, path + dirlen) <
	    0)
		return -ENOMEM;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		free(tmp);
		return err;
	}
	err = as_write_all(fd, text, len);
	if (!err && fchmod(fd, AS_METRICS_FILE_MODE) < 0)
		err = -errno;
	if (close(fd) < 0 && !err)
		err = -errno;
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	if (err)
		unlink(tmp);
	free(tmp);
	return err;
}
