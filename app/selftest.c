// SPDX-License-Identifier: MIT
/*
 * selftest.c - the kernel checking itself on real Xen: formatting and
 * string helpers, the page allocator, the text protection and its alias,
 * the clock and one-shot timer, an event channel round trip, symbols.
 */
#define pr_fmt(fmt) "selftest: " fmt

#include <smpalt/selftest.h>
#include <smpalt/cmdline.h>
#include <smpalt/errno.h>
#include <smpalt/evtchn.h>
#include <smpalt/hypercall.h>
#include <smpalt/ksyms.h>
#include <smpalt/mm.h>
#include <smpalt/page_alloc.h>
#include <smpalt/printk.h>
#include <smpalt/report.h>
#include <smpalt/smpmode.h>
#include <smpalt/string.h>
#include <smpalt/text.h>
#include <smpalt/time.h>
#include <smpalt/vcpu.h>

/* A sleep must last at least this and return well within the bound. */
#define SELFTEST_SLEEP_NS (10 * NSEC_PER_MSEC)
#define SELFTEST_SLEEP_MAX_NS (1 * NSEC_PER_SEC)
#define SELFTEST_EVENT_WAIT_NS (1 * NSEC_PER_SEC)
#define SELFTEST_BUF 64

/* The two forms of a lock prefix (alternative.h). */
#define SELFTEST_UP_LOCK_BYTE 0x3e
#define SELFTEST_SMP_LOCK_BYTE 0xf0

struct selftest {
	unsigned int checks, failures;
	const char *first_failure;
};

#define CHECK(t, cond) selftest_check((t), (cond), #cond, __LINE__)

static void selftest_check(struct selftest *t, bool ok, const char *what,
			   int line)
{
	t->checks++;
	if (ok)
		return;
	t->failures++;
	if (!t->first_failure)
		t->first_failure = what;
	pr_err("FAILED line %d: %s\n", line, what);
}

static bool fmt_is(const char *want, const char *fmt, ...)
{
	char buf[SELFTEST_BUF];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n == (int)strlen(want) && !strcmp(buf, want))
		return true;
	pr_err("format \"%s\" gave \"%s\" (%d), want \"%s\"\n", fmt, buf, n,
	       want);
	return false;
}

static void selftest_format(struct selftest *t)
{
	char small[4];

	CHECK(t, fmt_is("-5|  ab|7   |", "%d|%4s|%-4u|", -5, "ab", 7u));
	CHECK(t, fmt_is("0x1f|0000beef", "%#x|%08lx", 31u, 0xbeefUL));
	CHECK(t, fmt_is("18446744073709551615", "%llu", ~0ULL));
	CHECK(t, fmt_is("-9223372036854775808", "%lld",
			(long long)(~0ULL >> 1) * -1 - 1));
	CHECK(t, fmt_is("abc|x|%", "%.3s|%c|%%", "abcdef", 'x'));
	CHECK(t, fmt_is("42", "%zu", (size_t)42));
	CHECK(t, fmt_is("0xffffffff80000000", "%p", (void *)SMPALT_VIRT_BASE));
	CHECK(t, snprintf(small, sizeof(small), "%s", "hello") == 5 &&
			 !strcmp(small, "hel"));
}

static void selftest_strings(struct selftest *t)
{
	char buf[8], *end;

	CHECK(t, strtoul("0x1f", &end, 0) == 31 && *end == '\0');
	CHECK(t, strtoul("017", NULL, 0) == 15);
	CHECK(t, strtol("-42", NULL, 10) == -42);
	CHECK(t, strlcpy(buf, "truncated", sizeof(buf)) == 9 &&
			 !strcmp(buf, "truncat"));
	CHECK(t, strcmp("a", "b") < 0 && !strncmp("abc", "abd", 2));
	CHECK(t, !strcmp(errno_name(-ENOENT), "ENOENT"));
	CHECK(t, cmdline_get_bool("smpalt.selftest"));
	CHECK(t, !cmdline_get_bool("smpalt.no-such-option"));
}

static void selftest_memory(struct selftest *t)
{
	uint8_t *a = page_alloc(), *b = page_alloc(), *c;
	size_t i;
	bool zero = true;

	CHECK(t, a && b && a != b);
	if (!a || !b)
		return;
	for (i = 0; i < PAGE_SIZE; i++)
		zero &= a[i] == 0;
	CHECK(t, zero);
	a[0] = 0xaa;
	page_free(a);
	c = page_alloc();
	CHECK(t, c == a && c[0] == 0);
	page_free(c);
	page_free(b);

	/* Text read-only, data writable, stack guard unmapped. */
	CHECK(t, !(mm_lookup_pte(__text_start) & PTE_RW));
	CHECK(t, !(mm_lookup_pte((void *)selftest_run) & PTE_RW));
	CHECK(t, mm_lookup_pte(&t->checks) & PTE_RW);
	CHECK(t, !(mm_lookup_pte(vcpu0_stack_guard) & PTE_PRESENT));

	/* The alias writes text (same byte back) and nothing else. */
	{
		uint8_t same = *(volatile uint8_t *)selftest_run;
		uint8_t two[2] = {same, same};

		CHECK(t, mm_text_write((void *)selftest_run, &same, 1) == 0);
		CHECK(t, mm_text_write(&t->checks, &same, 1) == -EFAULT);
		/* Straddling the end of the text. */
		uintptr_t last = (uintptr_t)__text_end - 1;

		CHECK(t, mm_text_write((void *)last, two, 2) == -EFAULT);
	}
}

static void selftest_time_and_events(struct selftest *t)
{
	struct evtchn_bind_ipi ipi = {.vcpu = vcpu_id()};
	uint64_t t0 = time_now_ns(), t1, t2;
	long rc;

	t1 = time_now_ns();
	CHECK(t, t1 >= t0);
	time_sleep_ns(SELFTEST_SLEEP_NS);
	t2 = time_now_ns();
	CHECK(t, t2 - t1 >= SELFTEST_SLEEP_NS);
	CHECK(t, t2 - t1 < SELFTEST_SLEEP_MAX_NS);

	/* An IPI to ourselves: bound, sent, latched by the upcall. */
	rc = hyp_event_channel_op(EVTCHNOP_bind_ipi, &ipi);
	CHECK(t, rc == 0);
	if (rc)
		return;
	evtchn_set_vcpu(ipi.port, vcpu_id());
	evtchn_unmask(ipi.port);
	CHECK(t, evtchn_send(ipi.port) == 0);
	CHECK(t, evtchn_wait(ipi.port,
			     time_now_ns() + SELFTEST_EVENT_WAIT_NS) == 0);
	{
		struct evtchn_close close = {.port = ipi.port};

		evtchn_mask(ipi.port);
		CHECK(t, hyp_event_channel_op(EVTCHNOP_close, &close) == 0);
	}
}

/* vCPUs Xen itself reports up (VCPUOP_is_up), not the guest's account. */
static unsigned int selftest_xen_vcpus_up(void)
{
	unsigned int id, up = 0;

	for (id = 0; id < vcpu_max; id++)
		if (hyp_vcpu_op(VCPUOP_is_up, id, NULL) > 0)
			up++;
	return up;
}

static void selftest_kernel(struct selftest *t,
			    const struct smpmode_result *boot)
{
	uintptr_t off = 1;
	const char *fn = ksym_lookup((uintptr_t)selftest_run, &off);
	uint8_t canary = *(const uint8_t *)text_canary;
	unsigned int up = selftest_xen_vcpus_up();

	CHECK(t, fn && !strcmp(fn, "selftest_run") && off == 0);
	CHECK(t, ksym_lookup((uintptr_t)&t->checks, &off) == NULL);
	/* The boot switched the text to UP, whatever maxvcpus is. */
	CHECK(t, boot->sites > 0);
	/*
	 * The form must match what Xen says runs now: UP text (canary lock
	 * byte 0x3e) with one vCPU up, even if more may come (maxvcpus > 1);
	 * SMP text (0xf0) with more.
	 */
	pr_info("%u of %u vCPUs up, text %s, canary lock byte %#x\n", up,
		vcpu_max, smpmode_name(smpmode_current()), canary);
	CHECK(t, up >= 1);
	if (up == 1) {
		CHECK(t, smpmode_current() == ALT_MODE_UP);
		CHECK(t, canary == SELFTEST_UP_LOCK_BYTE);
	} else {
		CHECK(t, smpmode_current() == ALT_MODE_SMP);
		CHECK(t, canary == SELFTEST_SMP_LOCK_BYTE);
	}
}

int selftest_run(const struct smpmode_result *boot)
{
	struct selftest t = {0};

	selftest_format(&t);
	selftest_strings(&t);
	selftest_memory(&t);
	selftest_time_and_events(&t);
	selftest_kernel(&t, boot);
	if (t.failures)
		report_failure("%u of %u checks failed, first: %s", t.failures,
			       t.checks, t.first_failure);
	else
		report_success("%u checks passed", t.checks);
	return (int)t.failures;
}
