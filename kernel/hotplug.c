// SPDX-License-Identifier: MIT
/*
 * vCPU hotplug reconciliation: from the cpu/<i>/availability values to the
 * wanted online set, and from there to an ordered plan (see
 * include/smpalt/hotplug.h). Pure logic, no Xen calls: compiled into the guest
 * and into the host tests alike.
 */
#include <smpalt/hotplug.h>
#include <smpalt/string.h>

#define HOTPLUG_DECIMAL_BASE 10
#define HOTPLUG_ABS_PREFIX "/local/domain/"
/* Parsing stops growing an id past this: it is beyond any maxvcpus. */
#define HOTPLUG_ID_CLAMP (HOTPLUG_MAX_VCPUS * HOTPLUG_DECIMAL_BASE)

/* Does @s start with @prefix? */
static bool hotplug_starts(const char *s, const char *prefix)
{
	while (*prefix)
		if (*s++ != *prefix++)
			return false;
	return true;
}

static bool hotplug_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Decimal digits of @v into @buf (not terminated); returns their number. */
static size_t hotplug_utoa(char *buf, unsigned v)
{
	size_t n = 0, i;
	unsigned d = v;

	do {
		n++;
		d /= HOTPLUG_DECIMAL_BASE;
	} while (d);
	for (i = n; i; v /= HOTPLUG_DECIMAL_BASE)
		buf[--i] = (char)('0' + v % HOTPLUG_DECIMAL_BASE);
	return n;
}

/* All vCPUs below @maxvcpus (which is at most HOTPLUG_MAX_VCPUS). */
static hotplug_mask_t hotplug_valid_mask(unsigned maxvcpus)
{
	if (maxvcpus >= HOTPLUG_MAX_VCPUS)
		return (hotplug_mask_t) ~(hotplug_mask_t)0;
	return HOTPLUG_VCPU_BIT(maxvcpus) - 1;
}

/* Append @len bytes of @s to @buf at *@at, cutting at HOTPLUG_KEY_MAX. */
static void hotplug_key_add(char *buf, size_t *at, const char *s, size_t len)
{
	while (len-- && *at < HOTPLUG_KEY_MAX - 1)
		buf[(*at)++] = *s++;
	buf[*at] = '\0';
}

/* "cpu/<name>" or "cpu/<name>/availability" for reports. */
static void hotplug_key(char *buf, const char *name, size_t len, bool avail)
{
	size_t at = 0;

	hotplug_key_add(buf, &at, HOTPLUG_CPU_DIR "/",
			sizeof(HOTPLUG_CPU_DIR "/") - 1);
	hotplug_key_add(buf, &at, name, len);
	if (avail)
		hotplug_key_add(buf, &at, "/" HOTPLUG_AVAIL_NAME,
				sizeof("/" HOTPLUG_AVAIL_NAME) - 1);
}

static void hotplug_report(hotplug_report_fn report, void *ctx,
			   enum hotplug_problem problem, const char *key,
			   const char *value)
{
	struct hotplug_report r = {problem, key, value};

	if (report)
		report(ctx, &r);
}

/* Canonical decimal id below @maxvcpus, -EINVAL or -ERANGE. */
static int hotplug_id(const char *name, size_t len, unsigned maxvcpus)
{
	unsigned long id = 0;
	size_t i;

	if (!len || (name[0] == '0' && len > 1))
		return -EINVAL;
	for (i = 0; i < len; i++) {
		if (!hotplug_is_digit(name[i]))
			return -EINVAL;
		if (id < HOTPLUG_ID_CLAMP)
			id = id * HOTPLUG_DECIMAL_BASE +
			     (unsigned long)(name[i] - '0');
	}
	if (id >= maxvcpus)
		return -ERANGE;
	return (int)id;
}

static enum hotplug_problem hotplug_id_problem(int err)
{
	return err == -ERANGE ? HOTPLUG_ID_BEYOND_MAX : HOTPLUG_BAD_NAME;
}

const char *hotplug_problem_str(enum hotplug_problem p)
{
	switch (p) {
	case HOTPLUG_BAD_VALUE:
		return "neither online nor offline, vCPU left as it is";
	case HOTPLUG_OFFLINE_BOOT_VCPU:
		return "vCPU 0 never goes offline, ignored";
	case HOTPLUG_KEY_MISSING:
		return "key missing, vCPU left as it is";
	case HOTPLUG_ID_BEYOND_MAX:
		return "vCPU id at or beyond maxvcpus, ignored";
	case HOTPLUG_BAD_NAME:
		return "not a vCPU number, ignored";
	}
	return "unknown problem";
}

int hotplug_avail_path(unsigned vcpu, char *buf, size_t len)
{
	char key[HOTPLUG_KEY_MAX];
	char name[HOTPLUG_KEY_MAX];
	size_t n, i;

	hotplug_key(key, name, hotplug_utoa(name, vcpu), true);
	n = strlen(key);
	if (n + 1 > len)
		return -ERANGE;
	for (i = 0; i <= n; i++)
		buf[i] = key[i];
	return (int)n;
}

unsigned hotplug_count(hotplug_mask_t m)
{
	unsigned n = 0;

	for (; m; m &= m - 1)
		n++;
	return n;
}

int hotplug_parse_vcpu_id(const char *name, size_t len, unsigned maxvcpus,
			  hotplug_report_fn report, void *ctx)
{
	char key[HOTPLUG_KEY_MAX];
	int id = hotplug_id(name, len, maxvcpus);

	if (id < 0) {
		hotplug_key(key, name, len, false);
		hotplug_report(report, ctx, hotplug_id_problem(id), key, NULL);
	}
	return id;
}

hotplug_mask_t hotplug_scan_listing(const char *names, unsigned count,
				    unsigned maxvcpus, hotplug_report_fn report,
				    void *ctx)
{
	hotplug_mask_t present = 0;
	unsigned i;

	for (i = 0; i < count; i++) {
		size_t len = strlen(names);
		int id = hotplug_parse_vcpu_id(names, len, maxvcpus, report,
					       ctx);

		if (id >= 0)
			present |= HOTPLUG_VCPU_BIT(id);
		names += len + 1;
	}
	return present;
}

int hotplug_target(unsigned maxvcpus, hotplug_mask_t online,
		   const char *const avail[], hotplug_report_fn report,
		   void *ctx, hotplug_mask_t *target)
{
	hotplug_mask_t boot = HOTPLUG_VCPU_BIT(HOTPLUG_BOOT_VCPU);
	hotplug_mask_t want;
	char key[HOTPLUG_KEY_MAX];
	unsigned i;

	if (maxvcpus < 1 || maxvcpus > HOTPLUG_MAX_VCPUS) {
		*target =
			(online & hotplug_valid_mask(HOTPLUG_MAX_VCPUS)) | boot;
		return -EINVAL;
	}
	want = online | boot;
	if (want & ~hotplug_valid_mask(maxvcpus)) {
		*target = (want & hotplug_valid_mask(maxvcpus));
		return -EINVAL;
	}

	for (i = 0; i < maxvcpus; i++) {
		const char *v = avail[i];
		char name[HOTPLUG_KEY_MAX];

		hotplug_key(key, name, hotplug_utoa(name, i), true);

		if (!v) {
			hotplug_report(report, ctx, HOTPLUG_KEY_MISSING, key,
				       NULL);
		} else if (!strcmp(v, HOTPLUG_ONLINE)) {
			want |= HOTPLUG_VCPU_BIT(i);
		} else if (strcmp(v, HOTPLUG_OFFLINE)) {
			hotplug_report(report, ctx, HOTPLUG_BAD_VALUE, key, v);
		} else if (i == HOTPLUG_BOOT_VCPU) {
			hotplug_report(report, ctx, HOTPLUG_OFFLINE_BOOT_VCPU,
				       key, v);
		} else {
			want &= ~HOTPLUG_VCPU_BIT(i);
		}
	}
	*target = want;
	return 0;
}

enum hotplug_watch hotplug_parse_watch(const char *path, unsigned maxvcpus,
				       hotplug_report_fn report, void *ctx,
				       unsigned *vcpu)
{
	const char *p = path, *name, *tail;
	size_t len;
	int id;

	if (*p == '/') {
		/* /local/domain/<domid>/ then the relative form. */
		if (!hotplug_starts(p, HOTPLUG_ABS_PREFIX))
			return HOTPLUG_WATCH_IGNORE;
		p += sizeof(HOTPLUG_ABS_PREFIX) - 1;
		if (!hotplug_is_digit(*p))
			return HOTPLUG_WATCH_IGNORE;
		while (hotplug_is_digit(*p))
			p++;
		if (*p++ != '/')
			return HOTPLUG_WATCH_IGNORE;
	}
	if (!strcmp(p, HOTPLUG_CPU_DIR))
		return HOTPLUG_WATCH_RESCAN;
	if (!hotplug_starts(p, HOTPLUG_CPU_DIR "/"))
		return HOTPLUG_WATCH_IGNORE;

	name = p + sizeof(HOTPLUG_CPU_DIR "/") - 1;
	for (tail = name; *tail && *tail != '/'; tail++)
		;
	len = (size_t)(tail - name);
	/* Only cpu/<id> itself and its availability key matter. */
	if (*tail && strcmp(tail, "/" HOTPLUG_AVAIL_NAME))
		return HOTPLUG_WATCH_IGNORE;

	id = hotplug_id(name, len, maxvcpus);
	if (id < 0) {
		hotplug_report(report, ctx, hotplug_id_problem(id), path, NULL);
		return HOTPLUG_WATCH_IGNORE;
	}
	*vcpu = (unsigned)id;
	return HOTPLUG_WATCH_VCPU;
}

static void hotplug_add_step(struct hotplug_plan *plan,
			     enum hotplug_action action, unsigned vcpu)
{
	/* Cannot overflow: see HOTPLUG_PLAN_MAX_STEPS. */
	plan->steps[plan->nr_steps].action = action;
	plan->steps[plan->nr_steps].vcpu = vcpu;
	plan->nr_steps++;
}

/* One @action step per vCPU in @set, ascending. */
static void hotplug_add_each(struct hotplug_plan *plan,
			     enum hotplug_action action, hotplug_mask_t set)
{
	unsigned i;

	for (i = 0; i < HOTPLUG_MAX_VCPUS; i++)
		if (set & HOTPLUG_VCPU_BIT(i))
			hotplug_add_step(plan, action, i);
}

int hotplug_plan(hotplug_mask_t current, hotplug_mask_t target,
		 bool text_is_smp, struct hotplug_plan *plan)
{
	hotplug_mask_t boot = HOTPLUG_VCPU_BIT(HOTPLUG_BOOT_VCPU);
	hotplug_mask_t cur = current & ~boot; /* secondaries online now */
	hotplug_mask_t tgt = target & ~boot;  /* secondaries wanted */

	plan->nr_steps = 0;
	if (!text_is_smp && cur) {
		/*
		 * UP text with secondaries running: unsafe, and no switch may
		 * be made while they run.  Back to safety first: every one
		 * down and confirmed, so that vCPU 0 is alone with its UP
		 * text; then, if secondaries are wanted, the usual UP -> SMP
		 * path (switch while alone, then bring them up).
		 */
		hotplug_add_each(plan, HOTPLUG_VCPU_DOWN, cur);
		hotplug_add_each(plan, HOTPLUG_WAIT_DOWN, cur);
		if (tgt) {
			hotplug_add_step(plan, HOTPLUG_SWITCH_TO_SMP, 0);
			hotplug_add_each(plan, HOTPLUG_VCPU_UP, tgt);
		}
		return -EAGAIN;
	}

	if (!tgt) {
		/* Down to vCPU 0: all down and confirmed before SMP -> UP. */
		hotplug_add_each(plan, HOTPLUG_VCPU_DOWN, cur);
		hotplug_add_each(plan, HOTPLUG_WAIT_DOWN, cur);
		if (text_is_smp)
			hotplug_add_step(plan, HOTPLUG_SWITCH_TO_UP, 0);
		return 0;
	}
	/* UP -> SMP while vCPU 0 is still alone (cur is empty here). */
	if (!text_is_smp)
		hotplug_add_step(plan, HOTPLUG_SWITCH_TO_SMP, 0);
	hotplug_add_each(plan, HOTPLUG_VCPU_DOWN, cur & ~tgt);
	hotplug_add_each(plan, HOTPLUG_VCPU_UP, tgt & ~cur);
	return 0;
}

const char *hotplug_action_str(enum hotplug_action a)
{
	switch (a) {
	case HOTPLUG_SWITCH_TO_SMP:
		return "switch-to-smp";
	case HOTPLUG_VCPU_UP:
		return "up";
	case HOTPLUG_VCPU_DOWN:
		return "down";
	case HOTPLUG_WAIT_DOWN:
		return "wait-down";
	case HOTPLUG_SWITCH_TO_UP:
		return "switch-to-up";
	}
	return "unknown";
}
