// SPDX-License-Identifier: MIT
/*
 * vcpu_watch.c - vCPU hotplug, the kernel side of hotplug.h.
 *
 * On any change under cpu/ we re-read every cpu/<i>/availability
 * (i < maxvcpus), let hotplug_target() and hotplug_plan() decide, and run
 * the plan in order, stopping at the first failure: the next event plans
 * again from the state actually reached.
 *
 * vcpu_online is what Xen runs: each reconcile first brings it in line with
 * VCPUOP_is_up (vcpu_watch_sync_xen()), so that a vCPU started but slow to
 * report, or one gone down late, is planned from where it really is.  The
 * plans order switches while vCPU 0 runs alone; smpmode_switch() checks
 * that with Xen again and refuses otherwise (data/smpalt/refused).
 */
#define pr_fmt(fmt) "hotplug: " fmt

#include <smpalt/vcpu_watch.h>
#include <smpalt/cmdline.h>
#include <smpalt/errno.h>
#include <smpalt/hotplug.h>
#include <smpalt/printk.h>
#include <smpalt/status.h>
#include <smpalt/string.h>
#include <smpalt/time.h>
#include <smpalt/vcpu.h>
#include <smpalt/watch.h>
#include <smpalt/xenstore.h>

/* Longest availability value we keep ("online", "offline", junk cut). */
#define VCPU_WATCH_VALUE_MAX 16

/* After a change, re-read the keys this often, for this long. */
#define VCPU_WATCH_RECHECK_NS (1000 * 1000000ULL)
#define VCPU_WATCH_RECHECK_WINDOW_NS (10 * 1000000000ULL)
/* Outside that window, a slower look now and then, forever. */
#define VCPU_WATCH_IDLE_RECHECK_NS (2 * 1000000000ULL)

static hotplug_mask_t vcpu_online = HOTPLUG_VCPU_BIT(HOTPLUG_BOOT_VCPU);
static bool vcpu_watch_dirty;
/* Asked to go down, not yet confirmed down. */
static hotplug_mask_t vcpu_leaving;
static uint64_t vcpu_watch_active_until, vcpu_watch_next_recheck;
static struct smpmode_result vcpu_last_switch;

_Static_assert(HOTPLUG_MAX_VCPUS == VCPU_MAX, "one limit for vCPU ids");

/*
 * ctx is NULL or points at a bool "quiet": the periodic re-checks read the
 * same keys again and again, so only a reconcile caused by a watch event
 * reports bad input (each bad write is logged once, not every few seconds).
 */
static void vcpu_watch_report(void *ctx, const struct hotplug_report *r)
{
	if (ctx && *(const bool *)ctx)
		return;
	pr_warn("%s%s%s: %s\n", r->key, r->value ? "=" : "",
		r->value ? r->value : "", hotplug_problem_str(r->problem));
}

void vcpu_watch_publish(void)
{
	status_publish("mode", "%s", smpmode_name(smpmode_current()));
	status_publish("online", "%u", hotplug_count(vcpu_online));
	status_publish("switches", "%llu",
		       (unsigned long long)smpmode_switches());
	status_publish("sites", "%zu", vcpu_last_switch.sites);
	status_publish("last-switch-ns", "%llu",
		       (unsigned long long)vcpu_last_switch.ns);
	status_publish("refused", "%llu",
		       (unsigned long long)smpmode_refusals());
}

/* Test only: control/smpalt/test-switch is obeyed (cmdline.h). */
static bool vcpu_watch_test_direct;

static const struct watch vcpu_watch_cpu = {
	.path = HOTPLUG_CPU_DIR,
	.handle = vcpu_watch_handle,
};

static const struct watch vcpu_watch_test = {
	.path = CONTROL_DIR,
	.handle = vcpu_watch_test_switch,
};

int vcpu_watch_init(const struct smpmode_result *boot)
{
	int rc;

	vcpu_last_switch = *boot;
	vcpu_watch_test_direct = cmdline_get_bool(CMDLINE_TEST_DIRECT_SWITCH);
	if (vcpu_watch_test_direct) {
		pr_info("TEST ONLY: %s: control/smpalt/test-switch switches past the plan\n",
			CMDLINE_TEST_DIRECT_SWITCH);
		rc = watch_add(&vcpu_watch_test);
		if (rc)
			return rc;
	}
	return watch_add(&vcpu_watch_cpu);
}

/* Read cpu/<i>/availability for every i < maxvcpus (NULL if absent). */
static void vcpu_watch_read(const char *avail[],
			    char values[][VCPU_WATCH_VALUE_MAX])
{
	char key[HOTPLUG_KEY_MAX];
	unsigned int i;

	for (i = 0; i < vcpu_max; i++) {
		int rc;

		avail[i] = NULL;
		if (hotplug_avail_path(i, key, sizeof(key)) < 0)
			continue;
		rc = xenstore_read(XS_TRANSACTION_NONE, key, values[i],
				   VCPU_WATCH_VALUE_MAX);
		if (rc >= 0)
			avail[i] = values[i];
		else if (rc == -ERANGE)
			avail[i] = "(too long)"; /* reported as a bad value */
	}
}

/*
 * Bring vcpu_online in line with Xen's VCPUOP_is_up for every secondary:
 * up in Xen is online (it runs guest code whatever our bookkeeping says),
 * down in Xen is not (a vCPU asked down that went after its wait).  The
 * plan then starts from what really runs.  The caller publishes a change.
 */
static void vcpu_watch_sync_xen(void)
{
	unsigned int id;

	for (id = 1; id < vcpu_max; id++) {
		hotplug_mask_t bit = HOTPLUG_VCPU_BIT(id);
		long rc = vcpu_xen_is_up(id);

		if (rc > 0 && !(vcpu_online & bit)) {
			vcpu_online |= bit;
			printk("vcpu: vCPU %u is up in Xen (VCPUOP_is_up): counted online\n",
			       id);
		} else if (rc == 0 && (vcpu_online & bit)) {
			vcpu_online &= ~bit;
			if (vcpu_leaving & bit)
				printk("vcpu: vCPU %u offline\n", id);
			else
				printk("vcpu: vCPU %u is down in Xen (VCPUOP_is_up): counted offline\n",
				       id);
			vcpu_leaving &= ~bit;
		}
		/*
		 * rc < 0: Xen cannot say; keep our account (a switch
		 * refuses on its own while Xen cannot say).
		 */
	}
}

static int vcpu_watch_switch(enum alt_mode to)
{
	struct smpmode_result res;
	int rc = smpmode_switch(to, &res);

	if (rc)
		return rc;
	vcpu_last_switch = res;
	printk("alt: switched to %s: %zu sites in %llu ns\n",
	       to == ALT_MODE_UP ? "UP" : "SMP", res.sites,
	       (unsigned long long)res.ns);
	return 0;
}

/* The vCPU is down (VCPUOP_is_up == 0): it leaves the online set. */
static int vcpu_watch_confirm_down(unsigned int id)
{
	int rc = vcpu_wait_down(id);

	if (rc)
		return rc;
	vcpu_leaving &= ~HOTPLUG_VCPU_BIT(id);
	vcpu_online &= ~HOTPLUG_VCPU_BIT(id);
	printk("vcpu: vCPU %u offline\n", id);
	return 0;
}

static int vcpu_watch_step(const struct hotplug_step *s)
{
	int rc;

	switch (s->action) {
	case HOTPLUG_SWITCH_TO_SMP:
		return vcpu_watch_switch(ALT_MODE_SMP);
	case HOTPLUG_SWITCH_TO_UP:
		return vcpu_watch_switch(ALT_MODE_UP);
	case HOTPLUG_VCPU_UP:
		rc = vcpu_bring_up(s->vcpu);
		if (!rc) {
			vcpu_online |= HOTPLUG_VCPU_BIT(s->vcpu);
			printk("vcpu: vCPU %u online\n", s->vcpu);
		}
		return rc;
	case HOTPLUG_VCPU_DOWN:
		rc = vcpu_request_down(s->vcpu);
		if (!rc)
			vcpu_leaving |= HOTPLUG_VCPU_BIT(s->vcpu);
		return rc;
	case HOTPLUG_WAIT_DOWN:
		return vcpu_watch_confirm_down(s->vcpu);
	}
	return -EINVAL;
}

/* vCPUs whose VCPUOP_initialise failed and that are backing off. */
static hotplug_mask_t vcpu_watch_unusable(void)
{
	hotplug_mask_t m = 0;
	unsigned int i;

	for (i = 1; i < vcpu_max; i++)
		if (!vcpu_usable(i))
			m |= HOTPLUG_VCPU_BIT(i);
	return m;
}

static void vcpu_watch_reconcile(bool quiet)
{
	static char values[HOTPLUG_MAX_VCPUS][VCPU_WATCH_VALUE_MAX];
	const char *avail[HOTPLUG_MAX_VCPUS];
	static struct hotplug_plan plan;
	hotplug_mask_t target, online_before = vcpu_online;
	uint64_t refused_before = smpmode_refusals();
	unsigned int i;
	int rc;

	vcpu_watch_sync_xen();
	vcpu_watch_read(avail, values);
	rc = hotplug_target(vcpu_max, vcpu_online, avail, vcpu_watch_report,
			    &quiet, &target);
	if (rc)
		pr_err("bad state (maxvcpus %u, online %#x): %d\n", vcpu_max,
		       vcpu_online, rc);
	/*
	 * A vCPU whose VCPUOP_initialise failed is not tried again before
	 * its back-off ends (smp.c): leave it out rather than fail the plan
	 * every 1-2 s.  It is never online, so this only drops an UP step.
	 */
	target &= ~(vcpu_watch_unusable() & ~vcpu_online);
	rc = hotplug_plan(vcpu_online, target,
			  smpmode_current() == ALT_MODE_SMP, &plan);
	if (rc == -EAGAIN)
		pr_err("bad state: UP text with vCPUs %#x up in Xen: taking them down first\n",
		       vcpu_online & ~HOTPLUG_VCPU_BIT(HOTPLUG_BOOT_VCPU));
	else if (rc) {
		pr_err("no safe plan from %#x to %#x: %d\n", vcpu_online,
		       target, rc);
		return;
	}
	for (i = 0; i < plan.nr_steps; i++) {
		const struct hotplug_step *s = &plan.steps[i];

		rc = vcpu_watch_step(s);
		if (!rc)
			continue;
		/* A refused switch already logged its one line (smpmode.c). */
		if (rc != -EBUSY || (s->action != HOTPLUG_SWITCH_TO_UP &&
				     s->action != HOTPLUG_SWITCH_TO_SMP))
			pr_err("step %s vCPU %u failed: %d (%s)\n",
			       hotplug_action_str(s->action), s->vcpu, rc,
			       errno_name(rc));
		break;
	}
	/*
	 * A plan that keeps secondaries asks some to go down without a
	 * WAIT_DOWN step: confirm them here, so that online is what runs.
	 */
	for (i = 0; i < HOTPLUG_MAX_VCPUS; i++)
		if ((vcpu_leaving & HOTPLUG_VCPU_BIT(i)) &&
		    vcpu_watch_confirm_down(i))
			pr_err("vCPU %u asked down, still up\n", i);
	/*
	 * Publish whenever something changed: steps ran, the online set moved
	 * without a step (a late confirm-down, Xen's view taken in), or a
	 * switch was refused.
	 */
	if (plan.nr_steps || vcpu_online != online_before ||
	    smpmode_refusals() != refused_before)
		vcpu_watch_publish();
}

void vcpu_watch_handle(const char *path)
{
	unsigned int id;

	if (path && hotplug_parse_watch(path, vcpu_max, vcpu_watch_report, NULL,
					&id) == HOTPLUG_WATCH_IGNORE)
		return;
	/*
	 * One key or all: re-reading all is cheap and always right, and
	 * done once for a whole burst, by vcpu_watch_poll() after the queue
	 * of watch events is drained.
	 */
	vcpu_watch_dirty = true;
}

uint64_t vcpu_watch_poll(void)
{
	uint64_t now = time_now_ns();

	if (vcpu_watch_dirty) {
		vcpu_watch_dirty = false;
		vcpu_watch_reconcile(false);
		now = time_now_ns();
		vcpu_watch_active_until = now + VCPU_WATCH_RECHECK_WINDOW_NS;
		vcpu_watch_next_recheck = now + VCPU_WATCH_RECHECK_NS;
		return vcpu_watch_next_recheck;
	}
	/*
	 * xenstored may drop watch events for a guest that reads slowly
	 * (its quota on pending output): for a while after a change, look
	 * again every second even without an event; after that, every two
	 * seconds, so that a dropped event can delay a change but never
	 * lose it (seen once: a vcpu-set 4 -> 2 more than 10 s after the
	 * previous change was not acted on until the next one).
	 */
	if (now >= vcpu_watch_next_recheck) {
		vcpu_watch_reconcile(true);
		now = time_now_ns();
		vcpu_watch_next_recheck =
			now + (now < vcpu_watch_active_until
				       ? VCPU_WATCH_RECHECK_NS
				       : VCPU_WATCH_IDLE_RECHECK_NS);
	}
	return vcpu_watch_next_recheck;
}

/* "up <token>" or "smp <token>" (the value of control/smpalt/test-switch). */
#define VCPU_WATCH_TEST_KEY CONTROL_DIR "/test-switch"
#define VCPU_WATCH_TEST_VALUE_MAX 64

void vcpu_watch_test_switch(const char *path)
{
	static char last[VCPU_WATCH_TEST_VALUE_MAX];
	char value[VCPU_WATCH_TEST_VALUE_MAX];
	const char *token;
	enum alt_mode to;
	int rc;

	(void)path; /* any change under control/smpalt: read the key */
	if (!vcpu_watch_test_direct)
		return;
	rc = xenstore_read(XS_TRANSACTION_NONE, VCPU_WATCH_TEST_KEY, value,
			   sizeof(value));
	if (rc <= 0 || !strcmp(value, last))
		return; /* absent (or logged by the client), or done already */
	strlcpy(last, value, sizeof(last));
	if (!strncmp(value, "up ", 3)) {
		to = ALT_MODE_UP;
	} else if (!strncmp(value, "smp ", 4)) {
		to = ALT_MODE_SMP;
	} else {
		pr_warn("%s=%s: not 'up <token>' or 'smp <token>', ignored\n",
			VCPU_WATCH_TEST_KEY, value);
		return;
	}
	token = strchr(value, ' ') + 1;
	pr_info("TEST ONLY: switch to %s asked directly (%s)\n",
		smpmode_name(to), token);
	/*
	 * Thread context on vCPU 0 like every planned switch; what is not
	 * checked here (other vCPUs running) is exactly what the switch must
	 * check for itself.
	 */
	rc = vcpu_watch_switch(to);
	vcpu_watch_publish();
	status_publish("test-switch", "%s %d", token, rc);
}
