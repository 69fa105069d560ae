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

#define VCPU_WATCH_TOKEN "cpu"

/* Remember the boot switch (for data/smpalt/) and watch cpu/. */
int vcpu_watch_init(const struct smpmode_result *boot);

/*
 * A watch event on path with our token (NULL path: events were lost,
 * re-read everything).  Only marks the keys for re-reading; returns true
 * if the event was ours.
 */
bool vcpu_watch_handle(const char *path, const char *token);

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
 * control/smpalt/test-switch if it holds a new token.  Call on every
 * control/smpalt watch event; without the option it does nothing.
 */
void vcpu_watch_test_switch(void);

#endif /* SMPALT_VCPU_WATCH_H */
