/* SPDX-License-Identifier: MIT */
/*
 * vCPU hotplug: the pure reconciliation logic of the vCPU hotplug protocol
 * (docs/xenstore.md: cpu/<i>/availability). No Xen calls and no xenstore
 * access here: the kernel reads the keys, calls these functions and
 * executes the plan they return.
 *
 * How the kernel uses it (vCPU 0, thread context):
 *   1. On a watch event on "cpu", hotplug_parse_watch() says which vCPU the
 *      path is about, or that everything must be re-read (also do that when
 *      xenstore_watch_take_dropped() says events were lost).
 *   2. Read cpu/<i>/availability for every i < maxvcpus (NULL for a key
 *      that is missing) and, optionally, list cpu/ and pass the listing to
 *      hotplug_scan_listing() so stray entries get reported.
 *   3. hotplug_target() turns the values into the wanted online set.
 *   4. hotplug_plan() orders the work (mode switch, ups, downs); the kernel
 *      executes the steps in order and stops at the first failure, leaving
 *      the next reconcile to plan again from the state actually reached.
 *
 * Bad input is never fatal: each bad key is reported exactly once per call
 * through the caller's hotplug_report_fn (which logs it) and then ignored.
 *
 * Errors are -errno values (<smpalt/errno.h>).  Pure: no Xen call, and
 * only the string functions of <smpalt/string.h>, so that the host tests
 * compile it as it is, linked with the C library's.
 */
#ifndef SMPALT_HOTPLUG_H
#define SMPALT_HOTPLUG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <smpalt/errno.h>

/* The most vCPUs the guest supports; maxvcpus is 1..HOTPLUG_MAX_VCPUS. */
#define HOTPLUG_MAX_VCPUS 32
/* vCPU 0 boots the guest and never goes offline. */
#define HOTPLUG_BOOT_VCPU 0

/* Set of vCPUs: bit i is vCPU i. */
typedef uint32_t hotplug_mask_t;
#define HOTPLUG_VCPU_BIT(i) ((hotplug_mask_t)1 << (i))

/* xenstore names, relative to the guest's home /local/domain/<domid>/. */
#define HOTPLUG_CPU_DIR "cpu"
#define HOTPLUG_AVAIL_NAME "availability"
#define HOTPLUG_ONLINE "online"
#define HOTPLUG_OFFLINE "offline"
/* Room for "cpu/<name>/availability" in reports (longer names are cut). */
#define HOTPLUG_KEY_MAX 64

enum hotplug_problem {
	HOTPLUG_BAD_VALUE,	   /* neither online nor offline: kept */
	HOTPLUG_OFFLINE_BOOT_VCPU, /* offline asked for vCPU 0: ignored */
	HOTPLUG_KEY_MISSING,	   /* availability key absent: kept */
	HOTPLUG_ID_BEYOND_MAX,	   /* cpu/<id>, id >= maxvcpus: ignored */
	HOTPLUG_BAD_NAME,	   /* cpu/<not a canonical number>: ignored */
};

struct hotplug_report {
	enum hotplug_problem problem;
	const char *key;   /* e.g. "cpu/7/availability", "cpu/abc" */
	const char *value; /* the value read, or NULL when there is none */
};

/* Called once per bad key; the callee logs it. @r is valid during the call. */
typedef void (*hotplug_report_fn)(void *ctx, const struct hotplug_report *r);

/* A short description of @p for logs, e.g. "unknown value, ignored". */
const char *hotplug_problem_str(enum hotplug_problem p);

/*
 * Write "cpu/<vcpu>/availability" (NUL-terminated) into @buf, the key to
 * read for @vcpu. Returns its length, or -ERANGE if @len is too small
 * (HOTPLUG_KEY_MAX always suffices).
 */
int hotplug_avail_path(unsigned vcpu, char *buf, size_t len);

/* Number of vCPUs in @m. */
unsigned hotplug_count(hotplug_mask_t m);

/*
 * Parse @name, a child of cpu/ from a directory listing or a watch path.
 * Only canonical decimal ids ("0", "7", "31"; not "07", "+1", "1a") count.
 * Returns the id, -EINVAL for a bad name or -ERANGE for an id at
 * or beyond @maxvcpus (both reported through @report; @report may be NULL).
 * @len is the name's length (it need not be NUL-terminated).
 */
int hotplug_parse_vcpu_id(const char *name, size_t len, unsigned maxvcpus,
			  hotplug_report_fn report, void *ctx);

/*
 * Walk a listing of cpu/ as xenstore_directory() returns it (@count names, each
 * NUL-terminated, one after the other). Reports non-numeric names and ids
 * at or beyond @maxvcpus; returns the set of valid ids listed.
 */
hotplug_mask_t hotplug_scan_listing(const char *names, unsigned count,
				    unsigned maxvcpus, hotplug_report_fn report,
				    void *ctx);

/*
 * Compute the wanted online set.
 * @maxvcpus: 1..HOTPLUG_MAX_VCPUS.
 * @online:   the vCPUs online now (vCPU 0 is taken as online whatever the
 *            bit says); bits at or beyond @maxvcpus are an error.
 * @avail:    @maxvcpus entries; avail[i] is the value of
 *            cpu/<i>/availability, or NULL if the key is missing.
 * On success *@target holds the wanted set, always with vCPU 0, never with
 * ids at or beyond @maxvcpus: "online" adds a vCPU, "offline" removes it,
 * anything else (reported) leaves it as it is now. Returns 0, or
 * -EINVAL for a bad @maxvcpus or @online (not reported: the caller
 * logs it; *@target is then @online restricted to valid ids plus vCPU 0).
 */
int hotplug_target(unsigned maxvcpus, hotplug_mask_t online,
		   const char *const avail[], hotplug_report_fn report,
		   void *ctx, hotplug_mask_t *target);

enum hotplug_watch {
	HOTPLUG_WATCH_IGNORE, /* not about vCPU availability */
	HOTPLUG_WATCH_VCPU,   /* re-read one vCPU's key (*vcpu) */
	HOTPLUG_WATCH_RESCAN, /* re-read every vCPU's key */
};

/*
 * Classify the path of a watch event on cpu/. Relative paths or absolute
 * ones under /local/domain/<domid>/ are accepted:
 *   "cpu"                                 -> RESCAN
 *   "cpu/3", "cpu/3/availability"         -> VCPU, *vcpu = 3
 *   "cpu/3/other", "control/x", "cpux"    -> IGNORE
 *   "cpu/abc/...", "cpu/<id >= maxvcpus>" -> IGNORE, reported
 */
enum hotplug_watch hotplug_parse_watch(const char *path, unsigned maxvcpus,
				       hotplug_report_fn report, void *ctx,
				       unsigned *vcpu);

enum hotplug_action {
	HOTPLUG_SWITCH_TO_SMP, /* rewrite the text UP -> SMP; vCPU 0 alone */
	HOTPLUG_VCPU_UP,       /* VCPUOP_initialise (first time), VCPUOP_up */
	HOTPLUG_VCPU_DOWN,     /* ask the vCPU to VCPUOP_down itself */
	HOTPLUG_WAIT_DOWN,     /* wait until VCPUOP_is_up says 0 */
	HOTPLUG_SWITCH_TO_UP,  /* rewrite the text SMP -> UP; vCPU 0 alone */
};

struct hotplug_step {
	enum hotplug_action action;
	unsigned vcpu; /* for UP, DOWN, WAIT_DOWN; 0 for the switches */
};

/*
 * The longest plan: UP text with every secondary online and wanted (every
 * one down, waited for, a switch, every one up again): 3 * 31 + 1.
 */
#define HOTPLUG_PLAN_MAX_STEPS (3 * HOTPLUG_MAX_VCPUS)

struct hotplug_plan {
	unsigned nr_steps;
	struct hotplug_step steps[HOTPLUG_PLAN_MAX_STEPS];
};

/*
 * Order the work that takes the guest from @current to @target (vCPU 0 is
 * taken as a member of both). @text_is_smp says which form the kernel text
 * holds now (the engine's state flag).
 *   - Secondaries wanted and the text is UP (so only vCPU 0 runs now):
 *     SWITCH_TO_SMP first, then UP for each new vCPU in ascending order.
 *   - Only vCPU 0 wanted: DOWN for each secondary, then WAIT_DOWN for each,
 *     then SWITCH_TO_UP if the text is SMP (also when nothing was online:
 *     that finishes a switch that failed before).
 *   - Otherwise DOWN for each vCPU leaving, then UP for each one coming.
 *   - The text is UP while secondaries are online (unsafe; never planned,
 *     but a vCPU the kernel lost track of can lead there): DOWN for each
 *     of them, then WAIT_DOWN for each, so that vCPU 0 is alone with its
 *     UP text again; then, if secondaries are wanted, SWITCH_TO_SMP and UP
 *     for each wanted one (all of them: none is online any more).  No
 *     switch comes before the WAIT_DOWN steps.  Returns -EAGAIN with
 *     this plan filled: the caller logs the unsafe state and runs it.
 * Returns 0 otherwise (the plan may be empty: nothing to do).
 */
int hotplug_plan(hotplug_mask_t current, hotplug_mask_t target,
		 bool text_is_smp, struct hotplug_plan *plan);

/* "switch-to-smp", "up", ... for logs. */
const char *hotplug_action_str(enum hotplug_action a);

#endif /* SMPALT_HOTPLUG_H */
