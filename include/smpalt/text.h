/* SPDX-License-Identifier: MIT */
/*
 * text.h - the alternatives engine (alt_core.h) bound to this kernel's own
 * text: the record tables from the linker script, the save buffer among
 * the SMP-only pages, writes through mm.c's writable alias of the
 * read-only text, the serializing step, and CPUID as Xen lets a PV guest
 * see it.
 *
 * Mechanism only: these functions do not ask who runs.  The caller
 * (kernel/smpmode.c) decides whether a switch may happen (VCPUOP_is_up),
 * logs the reports and publishes the state.  Each operation masks events
 * on the running vCPU around its writes, so that this vCPU is never
 * interrupted inside a site it is rewriting.
 */
#ifndef SMPALT_TEXT_H
#define SMPALT_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <smpalt/alt_core.h>
#include <smpalt/atomic.h>

/* What one switch (or the switch to UP for good) did. */
struct text_result {
	struct alt_report rep; /* why it failed (error 0 on success) */
	/*
	 * Closing the text alias afterwards: 0 or -errno (mm.c logged it;
	 * the alias then stays mapped for the next close to retry).
	 */
	int close_rc;
	size_t sites; /* sites the switch rewrote */
	uint64_t ns;  /* the switch's time; 0: not measured (clock.h) */
};

/*
 * Check the tables against the text and prepare the engine (the text is
 * as linked: SMP form).  0 or -errno with rep filled.
 */
int text_init(struct alt_report *rep);

/* Apply the CPU-feature alternatives Xen's CPUID reports, once. */
int text_apply_features(struct alt_report *rep);

/* The tables from the linker script, for log lines. */
const struct alt_tables *text_tables(void);

/*
 * Switch the text to `to` (a no-op if it holds that form): open the alias,
 * let the engine verify every site and write, close the alias.  Returns 0
 * or -errno (res->rep says why).  -ESTALE once text_up_for_good() ran.
 * The caller makes sure that no other vCPU runs.
 */
int text_switch(enum alt_mode to, struct text_result *res);

/*
 * maxvcpus == 1: UP for good, then give the SMP tables' pages to the page
 * allocator (each checked mapped read-write first; logged).  0, the
 * engine's error (res->rep), the alias's close error, or -EFAULT if a
 * table page could not be given back.
 */
int text_up_for_good(struct text_result *res);

/* True once text_up_for_good() dropped the tables: no switch is possible. */
bool text_tables_freed(void);

/* What the text holds now, and the engine's counters. */
enum alt_mode text_mode(void);
const struct alt_stats *text_stats(void);

/*
 * Patch the canary both ways through switch_to() (the caller's own,
 * checked switch) and run it in each form; 0 if all went well (each
 * failure logged).
 */
typedef int (*text_switch_fn)(enum alt_mode to);
int text_selftest(text_switch_fn switch_to);

/* The canary (one lock site, one alternative_smp site): adds 3. */
void text_canary(atomic_t *counter);

#endif /* SMPALT_TEXT_H */
