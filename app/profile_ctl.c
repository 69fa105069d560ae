// SPDX-License-Identifier: MIT
/*
 * profile_ctl.c - the guest's side of workload profiles: the
 * smpalt.profile= option, the control/smpalt/profile key, and
 * data/smpalt/phase.  The workload (work.c) asks profile_ctl_demand()
 * for the demand while a profile runs.  vCPU 0 only, thread context.
 */
#define pr_fmt(fmt) "profile: " fmt

#include <smpalt/cmdline.h>
#include <smpalt/errno.h>
#include <smpalt/kernel.h>
#include <smpalt/printk.h>
#include <smpalt/profile.h>
#include <smpalt/status.h>
#include <smpalt/string.h>
#include <smpalt/time.h>
#include <smpalt/xenstore.h>

/* One console line listing the phases (printk cuts longer ones). */
#define PROFILE_LOG_MAX PRINTK_LINE_MAX
/* profile_key_last after a value too long to read. */
#define PROFILE_KEY_TOO_LONG "<too long>"

static struct profile profile_cur;
static bool profile_on;
static uint64_t profile_start_ns;
/* What data/smpalt/phase holds: a phase's name or one of these words. */
static const char profile_manual[] = PROFILE_PHASE_MANUAL;
static const char profile_done[] = PROFILE_PHASE_DONE;
static const char *profile_shown;
/* control/smpalt/profile as last read, to act on changes only. */
static char profile_key_last[PROFILE_TEXT_MAX];

/* Publish data/smpalt/phase = name (a phase's own or a word above). */
static void profile_show(const char *name)
{
	if (name == profile_shown)
		return;
	profile_shown = name;
	status_publish(PROFILE_PHASE_KEY, "%s", name);
}

/* The parsed phases on one console line (one printk: no interleaving). */
static void profile_log(const struct profile *p)
{
	char line[PROFILE_LOG_MAX];
	size_t n;
	unsigned int i;

	n = (size_t)snprintf(line, sizeof(line), "%u phases, %u s:", p->count,
			     p->total_seconds);
	for (i = 0; i < p->count && n < sizeof(line); i++) {
		const struct profile_phase *ph = &p->phase[i];

		n += (size_t)snprintf(line + n, sizeof(line) - n,
				      " %s %us %u%%->%u%%", ph->label,
				      ph->seconds, ph->from, ph->to);
	}
	pr_info("%s\n", line);
}

/*
 * Start (or stop, for "off" and "") the profile in text, from source (a
 * key or option name, for the log).  A bad text is logged with its value
 * and changes nothing.
 */
static void profile_apply(const char *source, const char *text)
{
	struct profile_error err = {0, 0, ""};
	struct profile p;
	int rc;

	rc = profile_parse(text, &p, &err);
	if (rc == -ENOENT) {
		profile_ctl_stop(source);
		return;
	}
	if (rc) {
		pr_warn("ignoring %s='%s': phase %u, at offset %lu: %s\n",
			source, text, err.phase, (unsigned long)err.offset,
			err.why);
		return;
	}
	profile_cur = p;
	profile_on = true;
	profile_start_ns = time_now_ns();
	/* The same phase addresses may hold new phases: show them again. */
	profile_shown = NULL;
	pr_info("started from %s='%s'\n", source, text);
	profile_log(&profile_cur);
}

void profile_ctl_init(void)
{
	char text[PROFILE_TEXT_MAX];
	int rc;

	profile_show(profile_manual);
	rc = cmdline_get_str(PROFILE_CMDLINE, text, sizeof(text));
	if (rc == -ENOENT)
		return;
	if (rc) {
		pr_warn("ignoring %s: too long (max %u)\n", PROFILE_CMDLINE,
			PROFILE_TEXT_MAX - 1);
		return;
	}
	profile_apply(PROFILE_CMDLINE, text);
}

void profile_ctl_read(void)
{
	char text[PROFILE_TEXT_MAX];
	int rc;

	rc = xenstore_read(XS_TRANSACTION_NONE, PROFILE_KEY, text,
			   sizeof(text));
	if (rc == -ENOENT)
		text[0] = '\0'; /* absent: like "" */
	else if (rc == -ERANGE) {
		if (strcmp(profile_key_last, PROFILE_KEY_TOO_LONG)) {
			pr_warn("ignoring %s: longer than %u bytes\n",
				PROFILE_KEY, PROFILE_TEXT_MAX - 1);
			strlcpy(profile_key_last, PROFILE_KEY_TOO_LONG,
				sizeof(profile_key_last));
		}
		return;
	} else if (rc < 0)
		return; /* logged by the client */
	/* Every control/smpalt write fires the watch: act on changes only. */
	if (!strcmp(text, profile_key_last))
		return;
	strlcpy(profile_key_last, text, sizeof(profile_key_last));
	profile_apply(PROFILE_KEY, text);
}

void profile_ctl_stop(const char *source)
{
	if (profile_on)
		pr_info("ended by %s\n", source);
	profile_on = false;
	profile_show(profile_manual);
}

bool profile_ctl_running(void)
{
	return profile_on;
}

bool profile_ctl_demand(uint64_t now_ns, unsigned long *demand)
{
	const struct profile_phase *ph;
	unsigned int d;

	if (!profile_on)
		return false;
	ph = profile_at(&profile_cur,
			(now_ns - profile_start_ns) / NSEC_PER_MSEC, &d);
	*demand = d;
	if (!ph) {
		pr_info("done after %u s\n", profile_cur.total_seconds);
		profile_on = false;
		profile_show(profile_done);
		return true;
	}
	if (ph->label != profile_shown) {
		pr_info("phase %s (%u s, %u%% -> %u%%)\n", ph->label,
			ph->seconds, ph->from, ph->to);
		profile_show(ph->label);
	}
	return true;
}
