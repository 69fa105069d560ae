/* SPDX-License-Identifier: MIT */
/*
 * profile.h - phased workload profiles: a list of timed phases, each
 * giving the demand (percent of one vCPU, as control/smpalt/demand) over
 * its seconds.  dom0 writes one to control/smpalt/profile; the guest runs
 * it from the moment it reads it and publishes the current phase's name
 * in data/smpalt/phase.
 *
 * Syntax (words separated by spaces or commas, so that a profile also
 * fits on the kernel command line as smpalt.profile=a:1,b:2):
 *
 *     profile := phase { sep phase }          at most PROFILE_PHASES_MAX
 *     phase   := name ":" seconds [ ":" from [ ":" to ] ]
 *     name    := 1..PROFILE_NAME_MAX-1 of [A-Za-z0-9_-]  (a label only)
 *     seconds := 1..PROFILE_SECONDS_MAX (whole seconds)
 *     from    := 0..PROFILE_DEMAND_MAX, default 0
 *     to      := 0..PROFILE_DEMAND_MAX, default from
 *
 * A phase's demand goes linearly from `from` to `to` over its seconds
 * (constant when to = from).  Examples:
 *
 *     idle:8                  8 s at 0
 *     burst:12:350            12 s at 350 (work for 3.5 vCPUs)
 *     ramp:20:0:300           20 s from 0 up to 300
 *
 * Whole values of control/smpalt/profile (and of smpalt.profile=):
 *     "default"               PROFILE_DEFAULT below
 *     "off" or ""             no profile: the demand is manual
 *     anything else           a profile as above; a bad one is logged with
 *                             its value and ignored (what ran goes on)
 * After the last phase the profile is over: demand 0, phase "done".
 * An explicit control/smpalt/demand (its value changes, or it appears)
 * ends a running profile: phase "manual", the demand is the key's.
 *
 * The parser and the evaluator below are pure (no xenstore, no clock): the
 * same file is compiled into the guest and into host tests.  The guest's
 * glue (keys, command line, publishing) is profile_ctl_*().
 */
#ifndef SMPALT_PROFILE_H
#define SMPALT_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROFILE_PHASES_MAX 16
#define PROFILE_NAME_MAX 16 /* with the NUL */
#define PROFILE_SECONDS_MAX 3600
#define PROFILE_DEMAND_MAX 3200 /* 32 vCPUs, as control/smpalt/demand */
/* Longest profile text read from xenstore or the command line. */
#define PROFILE_TEXT_MAX 384

#define PROFILE_KEY "control/smpalt/profile"
#define PROFILE_PHASE_KEY "phase" /* under data/smpalt/ */
#define PROFILE_CMDLINE "smpalt.profile"
#define PROFILE_WORD_DEFAULT "default"
#define PROFILE_WORD_OFF "off"
/* data/smpalt/phase when no profile runs / after the last phase. */
#define PROFILE_PHASE_MANUAL "manual"
#define PROFILE_PHASE_DONE "done"

/*
 * The built-in profile: ~1 min that takes an autoscaled guest from 1 vCPU
 * up to its maximum and back (idle, ramp, burst at 3.5 vCPUs, a medium
 * step, idle).
 */
#define PROFILE_DEFAULT \
	"idle:6 ramp:24:0:300 burst:12:350 medium:12:120 idle:12"

struct profile_phase {
	/* The phase's name ("label": errno.h has a macro called name). */
	char label[PROFILE_NAME_MAX];
	uint32_t seconds;
	uint32_t from, to; /* demand, percent of one vCPU */
};

struct profile {
	unsigned int count;
	uint32_t total_seconds;
	struct profile_phase phase[PROFILE_PHASES_MAX];
};

/* Why a profile was refused: the word (phase) and what is wrong with it. */
struct profile_error {
	unsigned int phase; /* 1-based; 0: the text as a whole */
	size_t offset;	    /* of the offending character in the text */
	const char *why;
};

/*
 * Parse text (PROFILE_WORD_DEFAULT expands to PROFILE_DEFAULT) into *p.
 * Returns 0, -EINVAL (err says where and why; *p is then unspecified) or
 * -ENOENT for "off" and the empty text (no profile).
 */
int profile_parse(const char *text, struct profile *p,
		  struct profile_error *err);

/*
 * The phase running ms milliseconds after the profile started and its
 * demand then (linear within the phase).  NULL once the profile is over
 * (*demand = 0 then).
 */
const struct profile_phase *profile_at(const struct profile *p, uint64_t ms,
				       unsigned int *demand);

/* --- guest glue (app/profile_ctl.c), vCPU 0 only ------------------ */

/* Boot: start the profile given as smpalt.profile=, if any. */
void profile_ctl_init(void);

/*
 * control/smpalt changed: re-read control/smpalt/profile; a new valid
 * value starts (or stops) a profile, a bad one is logged and ignored.
 */
void profile_ctl_read(void);

/*
 * control/smpalt/demand was written (source names it, for the log): end
 * the profile, data/smpalt/phase = "manual".
 */
void profile_ctl_stop(const char *source);

/* A profile runs (including its idle phases). */
bool profile_ctl_running(void);

/*
 * The demand the running profile asks for at now_ns, publishing
 * data/smpalt/phase when the phase changes.  False when no profile runs
 * (the profile ending now returns true once, with demand 0).
 */
bool profile_ctl_demand(uint64_t now_ns, unsigned long *demand);

#endif /* SMPALT_PROFILE_H */
