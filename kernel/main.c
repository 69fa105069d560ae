// SPDX-License-Identifier: MIT
/*
 * main.c - how the kernel comes up, in order, and vCPU 0's control loop.
 */
#define pr_fmt(fmt) "smpalt: " fmt

#include <smpalt/app_hooks.h>
#include <smpalt/cmdline.h>
#include <smpalt/console.h>
#include <smpalt/errno.h>
#include <smpalt/evtchn.h>
#include <smpalt/hypercall.h>
#include <smpalt/kernel.h>
#include <smpalt/ksyms.h>
#include <smpalt/mm.h>
#include <smpalt/page_alloc.h>
#include <smpalt/panic.h>
#include <smpalt/printk.h>
#include <smpalt/report.h>
#include <smpalt/shutdown.h>
#include <smpalt/smpmode.h>
#include <smpalt/status.h>
#include <smpalt/string.h>
#include <smpalt/time.h>
#include <smpalt/traps.h>
#include <smpalt/vcpu.h>
#include <smpalt/vcpu_watch.h>
#include <smpalt/watch.h>
#include <smpalt/xenstore.h>

#define SMPALT_VERSION "0.1"
/* Bits of XENVER_version's result. */
#define XENVER_MAJOR_SHIFT 16
#define XENVER_MINOR_MASK 0xffff

#define MAIN_DOMID_MAX 16

/* An address no page ever maps: the guest's lowest page. */
#define CRASH_ADDRESS 0x8UL

/*
 * After the SMP tables are freed: pages allocated to find them again (the
 * free list is last in, first out, so they come first; a few more in case
 * other pages were freed later), and the pattern written into each.
 */
#define REUSE_SLACK_PAGES 8
#define REUSE_MAX_PAGES 64
#define REUSE_PATTERN 0x5a5aa5a5c3c33c3cULL
#define REUSE_WORDS (PAGE_SIZE / sizeof(uint64_t))

/* The SMP-only pages (smpalt.lds.S), given back by smpmode_up_for_good(). */
extern char __smp_tables_start[], __smp_tables_end[];

/* Before the console: nothing to print with, let Xen log the crash. */
static void __noreturn early_crash(void)
{
	for (;;)
		hyp_sched_shutdown(SHUTDOWN_crash);
}

static void print_banner(void)
{
	long ver = hyp_xen_version(XENVER_version, NULL);
	unsigned long level;

	hyp_version_major = (unsigned int)(ver >> XENVER_MAJOR_SHIFT);
	hyp_version_minor = (unsigned int)(ver & XENVER_MINOR_MASK);
	printk("smpalt kernel " SMPALT_VERSION
	       " booting on Xen %u.%u, %lu MiB, cmdline \"%s\"\n",
	       hyp_version_major, hyp_version_minor,
	       (hyp_start_info->nr_pages * PAGE_SIZE) >> 20, cmdline_get());
	if (!cmdline_get_ulong("loglevel", &level))
		printk_set_console_level((int)level);
}

/*
 * Write a pattern of its own addresses over a page and read it back; the
 * page must have come zeroed.  Counts the words that read right and wrong.
 */
static void reuse_check_page(volatile uint64_t *p, unsigned long *ok,
			     unsigned long *bad)
{
	size_t w;

	for (w = 0; w < REUSE_WORDS; w++)
		*bad += p[w] != 0;
	for (w = 0; w < REUSE_WORDS; w++)
		p[w] = (uintptr_t)&p[w] ^ REUSE_PATTERN;
	for (w = 0; w < REUSE_WORDS; w++) {
		if (p[w] == ((uintptr_t)&p[w] ^ REUSE_PATTERN))
			(*ok)++;
		else
			(*bad)++;
	}
}

/*
 * The freed SMP-table pages are memory like any other now: allocate pages
 * until every one of them came back, use each, and say how it went.
 */
static void boot_reuse_smp_tables(void)
{
	uintptr_t lo = (uintptr_t)__smp_tables_start;
	uintptr_t hi = (uintptr_t)__smp_tables_end;
	unsigned long freed = (hi - lo) / PAGE_SIZE, n, reused = 0;
	unsigned long ok = 0, bad = 0, tries = freed + REUSE_SLACK_PAGES;
	void *got[REUSE_MAX_PAGES];

	tries = MIN(tries, (unsigned long)REUSE_MAX_PAGES);
	for (n = 0; n < tries && reused < freed; n++) {
		void *p = page_alloc();

		if (!p)
			break;
		got[n] = p;
		if ((uintptr_t)p < lo || (uintptr_t)p >= hi)
			continue;
		reused++;
		reuse_check_page(p, &ok, &bad);
	}
	while (n)
		page_free(got[--n]);
	printk("alt: SMP table pages reused: %lu of %lu allocated again, %lu words written and read back, %lu wrong\n",
	       reused, freed, ok, bad);
}

/* Switch the text to UP and prove the patcher works, before anyone relies
 * on either form. */
static void boot_switch_to_up(struct smpmode_result *res)
{
	res->sites = 0;
	res->ns = 0;
	if (smpmode_init())
		return;
	/*
	 * Only vCPU 0 runs: secondaries are brought up later, and only
	 * after a switch back to SMP.
	 */
	if (smpmode_switch(ALT_MODE_UP, res))
		return;
	printk("alt: switched to UP: %zu sites in %llu ns\n", res->sites,
	       (unsigned long long)res->ns);
	if (smpmode_selftest())
		panic("alternatives self-test failed");
	/* A second vCPU can never come: the SMP form is dead weight. */
	if (vcpu_max == 1 && !smpmode_up_for_good())
		boot_reuse_smp_tables();
	smpmode_boot_done();
}

static int xenstore_start(void)
{
	const start_info_t *si = hyp_start_info;
	char domid[MAIN_DOMID_MAX];
	int rc;

	rc = xenstore_init(hyp_mfn_to_virt(si->store_mfn), si->store_evtchn);
	if (rc)
		return rc;
	/* No handler: the upcall latches the port for xenstore_platform_wait().
	 */
	evtchn_unmask(si->store_evtchn);
	rc = xenstore_read(XS_TRANSACTION_NONE, "domid", domid, sizeof(domid));
	if (rc < 0)
		return rc;
	printk("xenstore: connected, domid %u\n",
	       (unsigned int)strtoul(domid, NULL, 10));
	return 0;
}

/* smpalt.crash=1: a write to an unmapped page, from a frame of its own. */
static __attribute__((noinline)) void crash_on_purpose(void)
{
	volatile unsigned long *bad = (volatile unsigned long *)CRASH_ADDRESS;

	pr_info("smpalt.crash=1: faulting on purpose\n");
	/* Hide the constant from the compiler's bounds checks. */
	__asm__("" : "+r"(bad));
	*bad = 0;
}

/* control/shutdown: the driver reads and acts, the kernel watches. */
static const struct watch shutdown_watch = {
	.path = SHUTDOWN_KEY,
	.handle = shutdown_handle_watch,
};

/* vCPU 0: serve xenstore watches forever. */
static void __noreturn control_loop(evtchn_port_t store_port)
{
	char path[XS_WATCH_EVENT_MAX], token[WATCH_PATH_MAX];

	for (;;) {
		uint64_t deadline, hotplug_deadline;
		int rc;

		while ((rc = xenstore_next_watch(path, sizeof(path), token,
						 sizeof(token))) > 0)
			watch_dispatch(path, token);
		if (xenstore_watch_take_dropped()) {
			/* Events were lost: re-read everything we watch. */
			pr_warn("watch events lost, re-reading\n");
			watch_reread_all();
		}
		/* vCPU hotplug, once per burst of watch events. */
		hotplug_deadline = vcpu_watch_poll();
		/* The app's share (the workload: generate, sample, a batch). */
		deadline = app_poll();
		if (!deadline ||
		    (hotplug_deadline && hotplug_deadline < deadline))
			deadline = hotplug_deadline;
		if (deadline && deadline <= time_now_ns())
			continue;
		/* Sleep until xenstore speaks or the workload is due. */
		evtchn_wait(store_port, deadline);
	}
}

/*
 * Entered from head.S on vCPU 0's stack, events masked, only vCPU 0 up.
 */
void __noreturn start_kernel(start_info_t *si)
{
	struct smpmode_result boot;

	/* 0. start_info; printk to Xen's emergency console; the ground
	 * floor's inputs: the command line and the text for symbols. */
	if (hyp_boot_init(si))
		early_crash();
	cmdline_init((const char *)si->cmd_line, sizeof(si->cmd_line));
	ksyms_init((uintptr_t)__text_start, (uintptr_t)__text_end);
	/* 1. vcpu_self() for vCPU 0 (GS base); panic() can halt from here. */
	if (vcpu_boot_init())
		early_crash();
	traps_boot_init();
	/* 2. shared_info: event masks, time, vcpu_info. */
	if (mm_map_shared_info())
		early_crash();
	/* 3. The console ring, printk's sink from here on. */
	if (cons_init())
		early_crash();
	print_banner();
	/* 4. Exceptions: any fault now prints a report and crashes. */
	if (traps_init_vcpu())
		panic("no trap table");
	/* 5. All of memory mapped, text read-only, page allocator. */
	if (mm_init())
		panic("memory setup failed");
	/* 6. Event upcall (the event channels' dispatch behind arch's
	 * callback), then the timer VIRQ; then events on. */
	evtchn_init();
	if (traps_init_callbacks())
		panic("no event callback");
	time_init_vcpu();
	if (evtchn_init_vcpu())
		panic("no timer");
	vcpu_events_unmask();
	/* The clock's step, before anything is timed with it. */
	time_measure_step();
	/* 7. Our own text to UP form (one vCPU), with the self-test. */
	printk("vcpu: maxvcpus %u\n", vcpu_probe_max());
	boot_switch_to_up(&boot);
	/* 8. Xenstore, then state and the kernel's watches (watch.h). */
	if (xenstore_start())
		panic("xenstore unavailable");
	if (vcpu_watch_init(&boot))
		pr_err("no cpu watch: vCPU hotplug disabled\n");
	vcpu_watch_publish();
	if (watch_add(&shutdown_watch))
		pr_err("no control/shutdown watch\n");
	if (status_init())
		pr_err("no control/smpalt watch\n");
	/* 9. The app (app/): its watches, poll, idle work and boot tests. */
	app_run_initcalls();
	pr_info("ready\n");

	/* 10. Test hooks: the app's boot tests (smpalt.selftest,
	 * smpalt.bench); a fault to see the crash path. */
	app_run_boot_tests(&boot);
	/* One "Test result:" line for all of the above (none ran: none). */
	report_print();
	if (cmdline_get_bool("smpalt.crash"))
		crash_on_purpose();
	/* 11. vCPU 0 becomes the control thread. */
	control_loop(si->store_evtchn);
}
