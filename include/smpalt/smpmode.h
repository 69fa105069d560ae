/* SPDX-License-Identifier: MIT */
/*
 * smpmode.h - when the text may switch form (the policy over arch-xen's
 * text.h): the VCPUOP_is_up gate, the refusal count, the log lines and the
 * counters data/smpalt/ publishes; the boot-time switch to UP with its
 * self-test.
 */
#ifndef SMPALT_SMPMODE_H
#define SMPALT_SMPMODE_H

#include <stddef.h>
#include <stdint.h>

#include <smpalt/alt_core.h>

struct smpmode_result {
	size_t sites; /* sites the switch rewrote */
	uint64_t ns;  /* how long it took */
};

/* Check the tables, apply CPU-feature alternatives once. */
int smpmode_init(void);

/*
 * Switch the text to `to`, from vCPU 0.  Masks events on this vCPU around
 * the rewrite.  Enforces the engine's rule itself: unless `to` is already
 * the current mode, it asks Xen (VCPUOP_is_up) about every secondary id
 * 1..vcpu_max-1 and refuses the switch, in either direction, if one is up
 * or Xen cannot say: -EBUSY, nothing written, one "refused" log line, one
 * more in smpmode_refusals().  Logs other failures once too.
 */
int smpmode_switch(enum alt_mode to, struct smpmode_result *res);

/* Switches refused since boot because a secondary was up. */
uint64_t smpmode_refusals(void);

/*
 * maxvcpus == 1: switch to UP and drop the SMP tables (later switches
 * fail with -ESTALE).
 */
int smpmode_up_for_good(void);

/*
 * Patch a canary both ways (text_canary(), through smpmode_switch()) and
 * run it in each form; 0 if all good.
 */
int smpmode_selftest(void);

/* What the text holds now. */
enum alt_mode smpmode_current(void);
const char *smpmode_name(enum alt_mode m);

/* Boot switching is over: later switches count in smpmode_switches(). */
void smpmode_boot_done(void);

/* Mode changes since boot, not counting the boot switch and self-test. */
uint64_t smpmode_switches(void);

#endif /* SMPALT_SMPMODE_H */
