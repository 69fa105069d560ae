/* SPDX-License-Identifier: MIT */
/*
 * autoscale_xen.h - Xen's CPU accounting for the daemon: each domain's
 * load (d->sample.xen) and the host's idle time, per round.  The sources
 * of the figures (libxenstat, and the tests' hooks) are all here.
 */
#ifndef SMPALT_AUTOSCALE_XEN_H
#define SMPALT_AUTOSCALE_XEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "autoscaler.h"

/* Is there a source of Xen's CPU figure (libxenstat, or the test's)? */
bool xen_figure_source(struct autoscaler *as);

/*
 * Xen's CPU accounting through libxenstat: needed for --signal xen, used
 * by auto for the clamp and for guests without data/smpalt/load.  Opened
 * when the signal in force first needs it (at start, or at a reload that
 * turns guest into auto or xen).  false when it cannot be read.
 */
bool open_xenstat(struct autoscaler *as);

/*
 * Read the CPU time Xen has accounted to every followed domain's vCPUs and
 * turn the change since the last reading into a load (d->sample.xen, when
 * sample).  Without libxenstat (or when it fails) no domain gets a Xen
 * figure this round.
 */
void read_xen_load(struct autoscaler *as, bool sample);

#endif /* SMPALT_AUTOSCALE_XEN_H */
