// SPDX-License-Identifier: MIT
/*
 * autoscale_change.c - a change of a domain's vCPU count through its
 * backend (xl, or libvirt for the domains it manages): started, polled,
 * ended with the pace's cooldown or backoff.  See autoscale_change.h.
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

#include "autoscaler.h"
#include "autoscale_change.h"
#include "autoscale_log.h"

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
struct scale_backend *backend_for(struct autoscaler *as, const struct domain *d)
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
	d->counts.failures++;
	if (rc == -ETIMEDOUT)
		d->counts.timeouts++;
	log_domain(as, AS_PRIO_WARNING, d, d->target, d->target, NULL,
		   "%s (domain %u): %s: vcpus %u failed (%s) after %llu ms%s",
		   d->name, d->domid, d->backend->name, d->target,
		   msg && *msg ? msg : strerror(-rc), ms, backoff);
}

/*
 * Has the domain's change ended?  Logs how.  Waits at most wait_ms for it;
 * kill: one still running then is ended (stopping, or its domain gone).
 */
void poll_change(struct autoscaler *as, struct domain *d, uint64_t wait_ms,
		 bool kill)
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

void start_change(struct autoscaler *as, struct domain *d, unsigned int n)
{
	struct scale_domain dom = scale_domain_of(d);
	bool done = false;
	int rc;

	d->counts.changes++;
	d->target = n;
	d->change_start_ms = now_ms();
	d->changing = true;
	as_pace_started(&d->pace, d->change_start_ms);
	fflush(stdout);
	rc = d->backend->set_vcpus(d->backend, &dom, n, &done);
	if (rc) {
		char backoff[REASON_LEN];

		d->changing = false;
		d->counts.failures++;
		if (rc == -ETIMEDOUT)
			d->counts.timeouts++;
		pace_ended(d, now_ms(), false, backoff, sizeof(backoff));
		log_domain(as, AS_PRIO_WARNING, d, n, n, NULL,
			   "%s (domain %u): %s: cannot set %u vcpus: %s%s",
			   d->name, d->domid, d->backend->name, n,
			   strerror(-rc), backoff);
	} else if (done || !d->backend->poll) {
		change_done(as, d, 0, NULL);
	}
}
