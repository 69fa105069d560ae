/* SPDX-License-Identifier: MIT */
/*
 * vcpu_watch.h - follow cpu/<i>/availability (what `xl vcpu-set` writes):
 * bring secondaries up and down, switching the text to SMP before the
 * first comes up and back to UP after the last is down.  vCPU 0 only.
 */
#ifndef SMPALT_VCPU_WATCH_H
#define SMPALT_VCPU_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#include <smpalt/smpmode.h>

/* Remember the boot switch (for data/smpalt/) and watch cpu/ (and, test
 * only, control/smpalt/test-switch). */
int vcpu_watch_init(const struct smpmode_result *boot);

/*
 * A watch event on path under cpu/ (NULL path: events were lost, re-read
 * everything).  Only marks the keys for re-reading.
 */
void vcpu_watch_handle(const char *path);

/*
 * vCPU 0, after draining the watch events: reconcile if marked, and for a
 * while after a change re-check periodically (watch events can be lost).
 * Returns the Xen time it wants to be called again at.
 */
uint64_t vcpu_watch_poll(void);

/*
 * Publish mode, online, switches, sites, last-switch-ns and refused (the
 * switches smpmode_switch() refused because Xen reported a secondary up;
 * "0" from the boot publish on).
 */
void vcpu_watch_publish(void);

/*
 * Test only (smpalt.test.direct_switch, cmdline.h): act on
 * control/smpalt/test-switch if it holds a new token.  The handler of a
 * control/smpalt watch, added by vcpu_watch_init() with the option only.
 */
void vcpu_watch_test_switch(const char *path);

#endif /* SMPALT_VCPU_WATCH_H */
