// SPDX-License-Identifier: MIT
/*
 * smp.c - secondary vCPUs: bring-up, their idle loop, going down.
 *
 * vCPU 0 drives everything (kernel/vcpu_watch.c decides what); a
 * secondary only initialises itself and then idles until told to go
 * down.  A vCPU that calls VCPUOP_down resumes right after that call when
 * VCPUOP_up brings it back, so the offline path loops into the online one.
 *
 * The register state VCPUOP_initialise takes is the kind's
 * (guest_ops.h): PV, a vcpu_guest_context (pv.c); PVH, a
 * vcpu_hvm_context in long mode with vCPU 0's control registers and page
 * tables, entered at pvh_secondary_entry (pvh.c).  VCPUOP_up, VCPUOP_down
 * on itself and VCPUOP_is_up are the same calls for both.
 */
#define pr_fmt(fmt) "vcpu: " fmt

#include <smpalt/barrier.h>
#include <smpalt/cmdline.h>
#include <smpalt/errno.h>
#include <smpalt/guest_ops.h>
#include <smpalt/hypercall.h>
#include <smpalt/kernel.h>
#include <smpalt/mm.h>
#include <smpalt/page_alloc.h>
#include <smpalt/panic.h>
#include <smpalt/printk.h>
#include <smpalt/spinlock.h>
#include <smpalt/string.h>
#include <smpalt/time.h>
#include <smpalt/traps.h>
#include <smpalt/vcpu.h>

/*
 * How long vCPU 0 waits for a secondary it started to report that it runs
 * its loop.  Generous: under a busy TCG host 8 vCPUs took 31.5 s in all.
 * It only bounds how long vCPU 0 blocks: a vCPU still silent after it is
 * counted online anyway, because Xen runs it (see vcpu_bring_up()).
 */
#define SMP_UP_WAIT_NS (10 * NSEC_PER_SEC)
/* How long vCPU 0 waits for VCPUOP_is_up to say 0 after a down request. */
#define SMP_DOWN_WAIT_NS (5 * NSEC_PER_SEC)
/* After a failed VCPUOP_initialise: first back-off, doubled up to the cap. */
#define SMP_INIT_BACKOFF_NS (2 * NSEC_PER_SEC)
#define SMP_INIT_BACKOFF_MAX_SHIFT 5 /* 2 s .. 64 s */
/* Pages of a secondary's stack allocation: the guard page, then the stack. */
#define SMP_STACK_PAGES (VCPU_STACK_SIZE / PAGE_SIZE + 1)
/* Poll period while waiting. */
#define SMP_POLL_NS (1 * NSEC_PER_MSEC)

/*
 * Registered at init by the layers above: the event channels' part of a
 * secondary's start (vcpu_set_start_hook()) and the work its idle loop
 * runs (vcpu_set_idle_work()).  Set before the first VCPUOP_up.
 */
static vcpu_start_fn smp_start_hook;
static struct vcpu_idle_work smp_idle_work;

void vcpu_set_start_hook(vcpu_start_fn start)
{
	smp_start_hook = start;
}

void vcpu_set_idle_work(const struct vcpu_idle_work *work)
{
	smp_idle_work = *work;
}

/* A batch of the idle work; false if there was none (or no work at all). */
static bool smp_idle_run_batch(void)
{
	return smp_idle_work.run_batch && smp_idle_work.run_batch();
}

static bool smp_idle_pending(void)
{
	return smp_idle_work.pending && smp_idle_work.pending();
}

/*
 * Test only (smpalt.test.late_alive_ms, cmdline.h): a secondary spins this
 * long after it really runs before it reports alive.  Written by vCPU 0
 * before its first VCPUOP_up, read by the secondaries afterwards.
 */
static uint64_t smp_test_late_alive_ns;
static bool smp_test_knobs_read;

static void smp_read_test_knobs(void)
{
	unsigned long ms;

	if (smp_test_knobs_read)
		return;
	smp_test_knobs_read = true;
	if (cmdline_get_ulong(CMDLINE_TEST_LATE_ALIVE_MS, &ms))
		return;
	smp_test_late_alive_ns = (uint64_t)ms * NSEC_PER_MSEC;
	pr_warn("TEST ONLY: secondaries report alive %lu ms after they run (%s)\n",
		ms, CMDLINE_TEST_LATE_ALIVE_MS);
}

/*
 * Undo smp_initialise()'s allocation after VCPUOP_initialise failed (Xen
 * never saw the stack): map the guard page again, then free all the pages.
 * If the guard cannot be mapped again, page_free() could not write its
 * link into it: keep the pages (logged) rather than corrupt the allocator.
 */
static void smp_free_stack(unsigned int id, char *guard)
{
	int rc = mm_map_page(guard, true);

	if (rc) {
		pr_err("cannot map vCPU %u's guard page again: %d; its %u stack pages stay allocated\n",
		       id, rc, SMP_STACK_PAGES);
		return;
	}
	page_give_back(guard, guard + SMP_STACK_PAGES * PAGE_SIZE);
}

/*
 * A failed VCPUOP_initialise: no retry before a back-off that doubles with
 * each failure in a row (2 s up to 64 s), so that the reconcile, which looks
 * every 1-2 s, does not call Xen and log every time.
 */
static void smp_init_failed(struct vcpu_local *v, const char *what, long rc)
{
	unsigned int shift = v->init_failures < SMP_INIT_BACKOFF_MAX_SHIFT
				     ? v->init_failures
				     : SMP_INIT_BACKOFF_MAX_SHIFT;
	uint64_t wait = SMP_INIT_BACKOFF_NS << shift;

	v->init_failures++;
	v->init_retry_at = time_now_ns() + wait;
	pr_err("%s for vCPU %u: %ld (failure %u in a row): not tried again for %llu s\n",
	       what, v->id, rc, v->init_failures,
	       (unsigned long long)(wait / NSEC_PER_SEC));
}

static int smp_initialise(unsigned int id)
{
	struct vcpu_local *v = &vcpu_locals[id];
	/* One more page below the stack, unmapped: an overflow faults. */
	char *guard = page_alloc_contig(SMP_STACK_PAGES);
	char *stack = guard + PAGE_SIZE;
	long rc;

	v->id = id;
	if (!guard) {
		smp_init_failed(v, "no stack", -ENOMEM);
		return -ENOMEM;
	}
	rc = mm_map_page(guard, false);
	if (rc)
		pr_warn("no guard page below vCPU %u's stack: %ld\n", id, rc);
	v->self = v;
	v->id = id;
	v->stack_lo = (uintptr_t)stack;
	v->stack_hi = (uintptr_t)stack + VCPU_STACK_SIZE;
	/* It must not take an upcall before it installed its own handlers. */
	vcpu_info_of(id)->evtchn_upcall_mask = 1;

	rc = hyp_vcpu_op(VCPUOP_initialise, id,
			 guest_ops->cpu.initial_context(v));
	if (rc && rc != -EEXIST) {
		smp_init_failed(v, "VCPUOP_initialise", rc);
		smp_free_stack(id, guard);
		v->stack_lo = v->stack_hi = 0;
		return (int)rc;
	}
	if (v->init_failures)
		pr_info("VCPUOP_initialise(%u) succeeded after %u failures\n",
			id, v->init_failures);
	v->init_failures = 0;
	v->initialised = true;
	return 0;
}

bool vcpu_usable(unsigned int id)
{
	const struct vcpu_local *v;

	if (id >= VCPU_MAX)
		return false;
	v = &vcpu_locals[id];
	return v->initialised || !v->init_failures ||
	       time_now_ns() >= v->init_retry_at;
}

int vcpu_bring_up(unsigned int id)
{
	struct vcpu_local *v = &vcpu_locals[id];
	uint64_t start, deadline;
	long rc;

	if (id == 0 || id >= vcpu_max || id >= VCPU_MAX)
		return -EINVAL;
	if (!vcpu_usable(id))
		return -EAGAIN;
	smp_read_test_knobs();
	/*
	 * Already running in Xen (a bring-up that outlived its wait, or one
	 * asked down that has not gone yet): never VCPUOP_up it again nor
	 * clear its flags under it.  It is online because Xen runs it.
	 */
	rc = vcpu_xen_is_up(id);
	if (rc < 0) {
		pr_err("VCPUOP_is_up(%u): %ld\n", id, rc);
		return (int)rc;
	}
	if (rc > 0) {
		pr_info("vCPU %u already up in Xen (VCPUOP_is_up): counted online\n",
			id);
		return 0;
	}
	if (!v->initialised) {
		rc = smp_initialise(id);
		if (rc)
			return (int)rc;
	}
	/*
	 * Xen says it is down, so it does not run: these stores cannot race
	 * with it, and the VCPUOP_up hypercall below orders them before it
	 * starts.
	 */
	v->down_requested = false;
	v->alive = false;
	rc = hyp_vcpu_op(VCPUOP_up, id, NULL);
	if (rc) {
		pr_err("VCPUOP_up(%u): %ld\n", id, rc);
		return (int)rc;
	}
	/* Online means running its loop with its handlers installed. */
	start = time_now_ns();
	deadline = start + SMP_UP_WAIT_NS;
	while (!v->alive) {
		if (time_now_ns() >= deadline)
			break;
		time_sleep_ns(SMP_POLL_NS);
	}
	if (v->alive)
		return 0;
	/*
	 * Silent past the wait.  VCPUOP_up succeeded, so Xen runs it (or
	 * will): losing track of it would let a later plan switch to UP
	 * under it.  Ask Xen, and count it online while it is up; the
	 * reconcile keeps following VCPUOP_is_up from there.
	 */
	rc = vcpu_xen_is_up(id);
	if (rc > 0) {
		pr_warn("vCPU %u slow: up in Xen, not running its loop after %llu ms; counted online\n",
			id,
			(unsigned long long)((time_now_ns() - start) /
					     NSEC_PER_MSEC));
		return 0;
	}
	pr_err("vCPU %u did not come up (VCPUOP_is_up: %ld)\n", id, rc);
	return rc < 0 ? (int)rc : -ETIMEDOUT;
}

int vcpu_request_down(unsigned int id)
{
	struct vcpu_local *v = &vcpu_locals[id];
	evtchn_port_t port;
	long rc;

	if (id == 0 || id >= VCPU_MAX || !v->initialised)
		return -EINVAL;
	v->down_requested = true;
	/*
	 * Store the flag, then read the port (mfence: the load may not pass
	 * the store).  The secondary stores its port, then mfence, then reads
	 * the flag (vcpu_secondary_main): at least one of us sees the
	 * other's store.  No port yet means it has not reached its loop: it
	 * will find the flag there without a kick.  With a port, the kick
	 * wakes it from its block (the hypercall orders the flag before it).
	 */
	virt_mb();
	port = *(volatile evtchn_port_t *)&v->ipi_port;
	if (!port)
		return 0;
	rc = hyp_evtchn_send(port);
	if (rc)
		pr_err("evtchn: send on port %u: %ld\n", port, rc);
	return (int)rc;
}

void vcpu_kick(unsigned int id)
{
	if (id && id < VCPU_MAX && vcpu_locals[id].initialised)
		hyp_evtchn_send(vcpu_locals[id].ipi_port);
}

int vcpu_wait_down(unsigned int id)
{
	uint64_t deadline = time_now_ns() + SMP_DOWN_WAIT_NS;

	for (;;) {
		long rc = vcpu_xen_is_up(id);

		if (rc == 0)
			return 0;
		if (rc < 0) {
			pr_err("VCPUOP_is_up(%u): %ld\n", id, rc);
			return (int)rc;
		}
		if (time_now_ns() >= deadline) {
			pr_err("vCPU %u did not go down\n", id);
			return -ETIMEDOUT;
		}
		time_sleep_ns(SMP_POLL_NS);
	}
}

/*
 * The secondary's own trap table and callbacks, no periodic tick, then
 * the event channels' part (its timer VIRQ and the IPI vCPU 0 kicks it
 * through, stored in self->ipi_port).
 */
static int smp_init_self(struct vcpu_local *self)
{
	int rc;

	rc = traps_init_vcpu();
	if (!rc)
		rc = traps_init_callbacks();
	if (rc)
		return rc;
	time_init_vcpu();
	return smp_start_hook ? smp_start_hook(self) : -ENODEV;
}

/*
 * Test only: spin until smp_test_late_alive_ns has passed since this vCPU
 * started running (events masked, as on arrival), then report alive.
 */
static void smp_test_late_alive(void)
{
	uint64_t until;

	if (!smp_test_late_alive_ns)
		return;
	until = time_now_ns() + smp_test_late_alive_ns;
	while (time_now_ns() < until)
		cpu_relax();
}

void vcpu_secondary_main(unsigned int id)
{
	struct vcpu_local *self = vcpu_self();
	long rc;

	if (self->id != id || smp_init_self(self))
		panic("vCPU %u failed to initialise", id);
	/*
	 * The port is stored: mfence before the first read of down_requested
	 * (see vcpu_request_down(), which does the mirror image).
	 */
	virt_mb();

	for (;;) {
		smp_test_late_alive();
		/* Running (again): tell vCPU 0, then take events. */
		self->alive = true;
		vcpu_events_unmask();
		for (;;) {
			/* Work first, in batches, looking up between them. */
			if (!self->down_requested && smp_idle_run_batch())
				continue;
			vcpu_events_mask();
			/* Checked masked: a kick after this wakes the block. */
			if (self->down_requested)
				break;
			if (smp_idle_pending()) {
				vcpu_events_unmask();
				continue;
			}
			vcpu_block();
		}
		/* Events stay masked until we come back. */
		self->down_requested = false;
		self->alive = false;
		rc = hyp_vcpu_op(VCPUOP_down, id, NULL);
		if (rc) {
			/*
			 * Still running: say so again.  vCPU 0 sees
			 * VCPUOP_is_up stay 1 and keeps us online.
			 */
			pr_err("VCPUOP_down(%u) failed: %ld; staying up\n", id,
			       rc);
			continue;
		}
		/*
		 * VCPUOP_up brought us back here.  While we were down vCPU 0
		 * may have rewritten the text (to UP and back to SMP) through
		 * another linear address: serialize before running any of
		 * it, so that no stale prefetched or decoded bytes survive.
		 * mm_text_sync() is the patcher's own serializing step (an
		 * iretq to the next instruction; plain cpuid traps to Xen in
		 * a PV guest, and iretq serializes in the guest's own ring).
		 */
		mm_text_sync();
	}
}
