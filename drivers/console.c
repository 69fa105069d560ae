// SPDX-License-Identifier: MIT
/*
 * console.c - output on the PV console ring.
 *
 * The ring page (start_info->console.domU) is shared with xenconsoled in
 * dom0: we produce into out[] and bump out_prod, it consumes and bumps
 * out_cons, and each side kicks the other through the event channel.
 * The ring itself has no lock: one spinlock serializes writers on all our
 * vCPUs, taken with events masked so that a handler on the same vCPU can
 * never spin on a lock its own thread holds.
 *
 * The port is kept masked and never handled in the upcall: a writer that
 * waits for room or for the drain polls it (SCHEDOP_poll works on masked
 * ports and does not unmask events).
 */
#include <smpalt/console.h>
#include <smpalt/barrier.h>
#include <smpalt/errno.h>
#include <smpalt/evtchn.h>
#include <smpalt/hypercall.h>
#include <smpalt/kernel.h>
#include <smpalt/printk.h>
#include <smpalt/spinlock.h>
#include <smpalt/time.h>
#include <smpalt/vcpu.h>

#include <xen/io/console.h>

/* How long one poll for the backend lasts. */
#define CONS_POLL_NS (10 * NSEC_PER_MSEC)
/* A backend that frees no room for this long is declared stuck. */
#define CONS_STUCK_NS (1 * NSEC_PER_SEC)
/* In panic mode, how many times we try the lock before ignoring it. */
#define CONS_PANIC_LOCK_SPINS 10000000UL

static struct xencons_interface *cons_ring;
static evtchn_port_t cons_port;
static spinlock_t cons_lock = SPINLOCK_INIT;
static volatile bool cons_panic;
/*
 * Set when the backend freed no room for CONS_STUCK_NS: until it frees
 * some, writes that find the ring full drop the rest instead of waiting.
 */
static bool cons_stuck;

/* Poll our port until the backend signals or deadline passes. */
static void cons_wait_backend(uint64_t deadline_ns)
{
	uint64_t now = time_now_ns();
	uint64_t until = MIN(deadline_ns, now + CONS_POLL_NS);

	evtchn_clear_pending(cons_port);
	hyp_evtchn_send(cons_port);
	hyp_sched_poll(&cons_port, 1, until);
}

/* Copy what fits; returns bytes written.  Lock held. */
static size_t cons_put(const char *s, size_t n)
{
	XENCONS_RING_IDX cons, prod;
	size_t done = 0;

	cons = cons_ring->out_cons;
	prod = cons_ring->out_prod;
	/* Read both indexes before touching the ring. */
	virt_rmb();
	while (done < n && prod - cons < sizeof(cons_ring->out))
		cons_ring->out[MASK_XENCONS_IDX(prod++, cons_ring->out)] =
			s[done++];
	/* The bytes must be visible before the index that publishes them. */
	virt_wmb();
	cons_ring->out_prod = prod;
	return done;
}

static void cons_write(const char *s, size_t n)
{
	unsigned long was = vcpu_events_mask();
	uint64_t stuck_at = 0;
	bool locked = true;

	if (!cons_ring) {
		vcpu_events_restore(was);
		return;
	}
	if (cons_panic) {
		unsigned long spins = CONS_PANIC_LOCK_SPINS;

		/* The holder may be the code that crashed: do not wait long. */
		while (!spin_trylock(&cons_lock) && --spins)
			cpu_relax();
		locked = spins != 0;
	} else {
		spin_lock(&cons_lock);
	}

	while (n) {
		size_t done = cons_put(s, n);

		s += done;
		n -= done;
		/* Room appeared: the backend reads again, so wait for it. */
		if (done)
			cons_stuck = false;
		if (!n)
			break;
		if (cons_stuck)
			break; /* dropped: the backend does not read */
		if (!stuck_at)
			stuck_at = time_now_ns() + CONS_STUCK_NS;
		if (done)
			stuck_at = time_now_ns() + CONS_STUCK_NS;
		if (time_now_ns() >= stuck_at) {
			cons_stuck = true;
			break;
		}
		cons_wait_backend(stuck_at);
	}
	hyp_evtchn_send(cons_port);

	if (locked)
		spin_unlock(&cons_lock);
	vcpu_events_restore(was);
}

static int cons_flush(uint64_t timeout_ns)
{
	uint64_t deadline = time_now_ns() + timeout_ns;

	if (!cons_ring)
		return -ENODEV;
	for (;;) {
		/* Pair with the backend's update of out_cons. */
		virt_mb();
		if (cons_ring->out_cons == cons_ring->out_prod)
			return 0;
		if (time_now_ns() >= deadline)
			return -ETIMEDOUT;
		cons_wait_backend(deadline);
	}
}

static void cons_enter_panic_mode(void)
{
	cons_panic = true;
	cons_stuck = false;
}

static const struct printk_sink cons_sink = {
	.write = cons_write,
	.enter_panic_mode = cons_enter_panic_mode,
	.flush = cons_flush,
};

int cons_init(void)
{
	const start_info_t *si = hyp_start_info;

	if (!si->console.domU.mfn)
		return -ENODEV;
	cons_ring = hyp_mfn_to_virt(si->console.domU.mfn);
	cons_port = si->console.domU.evtchn;
	evtchn_mask(cons_port);
	printk_set_sink(&cons_sink);
	return 0;
}
