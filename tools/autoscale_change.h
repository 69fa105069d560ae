/* SPDX-License-Identifier: MIT */
/*
 * autoscale_change.h - changes of a domain's vCPU count, one at a time per
 * domain, run by its backend while the daemon keeps sampling.
 */
#ifndef SMPALT_AUTOSCALE_CHANGE_H
#define SMPALT_AUTOSCALE_CHANGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "autoscaler.h"

/*
 * The backend for a domain: libvirt's if it manages it, else xl; NULL
 * when libvirt cannot tell now (it is down): decided again later, never
 * xl by default, which would change a libvirt domain behind its back.
 */
struct scale_backend *backend_for(struct autoscaler *as,
				  const struct domain *d);

/*
 * Has the domain's change ended?  Logs how.  Waits at most wait_ms for it;
 * kill: one still running then is ended (stopping, or its domain gone).
 */
void poll_change(struct autoscaler *as, struct domain *d, uint64_t wait_ms,
		 bool kill);

/* Start the change of d to n vCPUs (counted, logged, paced). */
void start_change(struct autoscaler *as, struct domain *d, unsigned int n);

#endif /* SMPALT_AUTOSCALE_CHANGE_H */
