// SPDX-License-Identifier: MIT
/*
 * smpmode.c - when the kernel's text may change form, and what is said
 * about it.
 *
 * The mechanism is arch-xen's (text.c: the engine bound to our own text).
 * Here is the policy on top: a switch happens only while Xen says that no
 * secondary vCPU is up (VCPUOP_is_up, through vcpu.c), a refusal is logged
 * once and counted, every failure is logged once with the site at fault,
 * and the counters behind data/smpalt/ are kept.
 */
#define pr_fmt(fmt) "alt: " fmt

#include <smpalt/smpmode.h>
#include <smpalt/errno.h>
#include <smpalt/printk.h>
#include <smpalt/text.h>
#include <smpalt/vcpu.h>

static uint64_t smpmode_boot_switches;
static bool smpmode_ready;
/* Switches refused: Xen reported a secondary up (data/smpalt/refused). */
static uint64_t smpmode_refused;

static const char *smpmode_kind(enum alt_site_kind k)
{
	switch (k) {
	case ALT_SITE_LOCK:
		return "lock";
	case ALT_SITE_SMP:
		return "smp-alt";
	case ALT_SITE_FEATURE:
		return "feature-alt";
	default:
		return "none";
	}
}

static void smpmode_log_failure(const char *what, const struct alt_report *r)
{
	pr_err("%s failed: %d (%s), %s site %zu at %#lx: %s\n", what, r->error,
	       errno_name(r->error), smpmode_kind(r->kind), r->index,
	       (unsigned long)r->addr, r->reason ? r->reason : "?");
}

const char *smpmode_name(enum alt_mode m)
{
	return m == ALT_MODE_UP ? "up" : "smp";
}

enum alt_mode smpmode_current(void)
{
	return text_mode();
}

void smpmode_boot_done(void)
{
	smpmode_boot_switches = text_stats()->switches;
}

uint64_t smpmode_switches(void)
{
	return text_stats()->switches - smpmode_boot_switches;
}

int smpmode_init(void)
{
	const struct alt_tables *tables = text_tables();
	struct alt_report rep;
	int rc;

	rc = text_init(&rep);
	if (rc) {
		smpmode_log_failure("init", &rep);
		return rc;
	}
	pr_info("%zu lock sites, %zu smp alternatives, %zu feature alternatives\n",
		alt_lock_count(tables), alt_smp_count(tables),
		alt_feature_count(tables));
	rc = text_apply_features(&rep);
	if (rc) {
		smpmode_log_failure("feature alternatives", &rep);
		return rc;
	}
	smpmode_ready = true;
	return 0;
}

uint64_t smpmode_refusals(void)
{
	return smpmode_refused;
}

/*
 * The first secondary Xen reports up (VCPUOP_is_up), 0 if every id in
 * 1..vcpu_max-1 is down, or -errno if Xen could not answer for one (then
 * nobody can say that the vCPU is down).
 */
static int smpmode_secondary_up(void)
{
	unsigned int id;

	for (id = 1; id < vcpu_max; id++) {
		long rc = vcpu_xen_is_up(id);

		if (rc > 0)
			return (int)id;
		if (rc < 0)
			return (int)rc;
	}
	return 0;
}

/*
 * The engine's rule, enforced here rather than trusted to the caller: a
 * switch rewrites lock prefixes and multi-byte alternative_smp sites, which
 * is safe only while no other vCPU can execute them.  Both directions are
 * refused while Xen says a secondary is up:
 *   - SMP -> UP: UP text must never run on two vCPUs.  Nothing is
 *     written; the text stays SMP, the safe form.
 *   - UP -> SMP (the text is UP while a secondary runs, which the plans
 *     never do): the lock prefixes alone could go back to SMP form (1-byte
 *     writes cannot be torn), but the alternative_smp sites cannot be
 *     rewritten under a running vCPU, and the engine verifies every site
 *     against one mode, so a half switch would break every later one.
 *     Nothing is written; the caller must take the secondaries down first
 *     (hotplug_plan() puts DOWN and WAIT_DOWN before SWITCH_TO_SMP then).
 * Checked once before the write: only vCPU 0 ever calls VCPUOP_up, and it
 * is busy here until the switch is over, so no secondary can come up in
 * between (Xen never starts a PV guest's vCPU by itself).
 * Returns 0, or -EBUSY after one log line (counted in smpmode_refused).
 */
static int smpmode_check_alone(enum alt_mode to)
{
	int up = smpmode_secondary_up();

	if (!up)
		return 0;
	smpmode_refused++;
	if (up > 0)
		pr_err("switch to %s refused: vCPU %d is up (VCPUOP_is_up); nothing written, the text stays %s\n",
		       to == ALT_MODE_UP ? "UP" : "SMP", up,
		       smpmode_name(smpmode_current()));
	else
		pr_err("switch to %s refused: VCPUOP_is_up failed: %d (%s); nothing written, the text stays %s\n",
		       to == ALT_MODE_UP ? "UP" : "SMP", up, errno_name(up),
		       smpmode_name(smpmode_current()));
	return -EBUSY;
}

int smpmode_switch(enum alt_mode to, struct smpmode_result *res)
{
	const char *what = to == ALT_MODE_UP ? "switch to UP" : "switch to SMP";
	struct text_result done;
	int rc;

	if (!smpmode_ready)
		return -ENODEV;
	/* UP for good: text_switch() refuses, before any question to Xen. */
	if (!text_tables_freed() && to != smpmode_current()) {
		/* Switching to the current mode writes nothing: no check. */
		rc = smpmode_check_alone(to);
		if (rc)
			return rc;
	}
	rc = text_switch(to, &done);
	if (rc) {
		smpmode_log_failure(what, &done.rep);
		return rc;
	}
	if (done.close_rc) {
		/* The text did switch; mm.c logged the alias left open. */
		pr_err("switch to %s done, but its text alias is still mapped: %d (%s)\n",
		       to == ALT_MODE_UP ? "UP" : "SMP", done.close_rc,
		       errno_name(done.close_rc));
		return done.close_rc;
	}
	if (res) {
		res->sites = done.sites;
		res->ns = done.ns;
	}
	return 0;
}

int smpmode_up_for_good(void)
{
	struct text_result done;
	int rc;

	if (!smpmode_ready)
		return -ENODEV;
	rc = text_up_for_good(&done);
	if (rc && done.rep.error)
		smpmode_log_failure("UP for good", &done.rep);
	return rc;
}

static int smpmode_selftest_switch(enum alt_mode to)
{
	return smpmode_switch(to, NULL);
}

int smpmode_selftest(void)
{
	/* Through smpmode_switch(): the self-test's switches are checked too.
	 */
	return text_selftest(smpmode_selftest_switch);
}
