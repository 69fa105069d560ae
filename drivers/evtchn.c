// SPDX-License-Identifier: MIT
/*
 * evtchn.c - event channels, 2-level ABI, and the upcall.
 *
 * Xen marks an event by setting its bit in shared_info->evtchn_pending,
 * then (unless the port is masked) the word's bit in the target vCPU's
 * evtchn_pending_sel, then that vCPU's upcall_pending, and calls our
 * upcall if events are not masked on that vCPU.  The upcall walks
 * selector -> words -> ports, clears each port's pending bit and latches
 * it for the thread that waits on it.  The upcall entry is arch-xen's
 * (traps.c); evtchn_init() registers the dispatch there.  Xen changes these
 * bitmaps from other physical CPUs at any time: they are only touched with
 * locked operations (barrier.h), never with the engine's patchable ones.
 */
#define pr_fmt(fmt) "evtchn: " fmt

#include <smpalt/evtchn.h>
#include <smpalt/barrier.h>
#include <smpalt/errno.h>
#include <smpalt/hypercall.h>
#include <smpalt/kernel.h>
#include <smpalt/printk.h>
#include <smpalt/time.h>
#include <smpalt/traps.h>
#include <smpalt/vcpu.h>

#define EVTCHN_BITS_PER_WORD (sizeof(xen_ulong_t) * 8)

/* vCPU each port is delivered to (bound at creation; 0 by default). */
static uint8_t evtchn_vcpu[EVTCHN_2L_NR_CHANNELS];
/*
 * Set by the upcall, consumed by evtchn_test_and_clear_latched(): a
 * byte per port, written whole, so no read-modify-write is needed.
 */
static volatile uint8_t evtchn_latched[EVTCHN_2L_NR_CHANNELS];

static bool evtchn_valid(evtchn_port_t port)
{
	return port < EVTCHN_2L_NR_CHANNELS;
}

/* Bind a VIRQ on a vCPU; *port gets the new port (masked). */
static int evtchn_bind_virq(uint32_t virq, unsigned int vcpu,
			    evtchn_port_t *port)
{
	struct evtchn_bind_virq bind = {.virq = virq, .vcpu = vcpu};
	long rc = hyp_event_channel_op(EVTCHNOP_bind_virq, &bind);

	if (rc) {
		pr_err("bind VIRQ %u to vCPU %u: %ld\n", virq, vcpu, rc);
		return (int)rc;
	}
	if (!evtchn_valid(bind.port)) {
		pr_err("VIRQ %u got port %u beyond the 2-level ABI\n", virq,
		       bind.port);
		return -ERANGE;
	}
	evtchn_mask(bind.port);
	evtchn_vcpu[bind.port] = (uint8_t)vcpu;
	*port = bind.port;
	return 0;
}

void evtchn_set_vcpu(evtchn_port_t port, unsigned int vcpu)
{
	if (evtchn_valid(port))
		evtchn_vcpu[port] = (uint8_t)vcpu;
}

int evtchn_send(evtchn_port_t port)
{
	long rc = hyp_evtchn_send(port);

	if (rc)
		pr_err("send on port %u: %ld\n", port, rc);
	return (int)rc;
}

void evtchn_mask(evtchn_port_t port)
{
	if (evtchn_valid(port))
		xen_set_bit(port, hyp_shared_info->evtchn_mask);
}

void evtchn_unmask(evtchn_port_t port)
{
	struct evtchn_unmask op = {.port = port};

	/*
	 * The hypercall clears the mask bit and, if the port is pending,
	 * re-raises the selector and upcall bits that masking suppressed.
	 */
	if (hyp_event_channel_op(EVTCHNOP_unmask, &op))
		pr_err("unmask port %u failed\n", port);
}

bool evtchn_clear_pending(evtchn_port_t port)
{
	if (!evtchn_valid(port))
		return false;
	return xen_test_and_clear_bit(port, hyp_shared_info->evtchn_pending);
}

/* Consume the port's latch: true if it fired since the last call. */
static bool evtchn_test_and_clear_latched(evtchn_port_t port)
{
	if (!evtchn_valid(port) || !evtchn_latched[port])
		return false;
	/*
	 * A second event landing between the test and the clear is folded
	 * into this one: the caller looks at its ring after we return,
	 * which covers everything signalled so far.
	 */
	evtchn_latched[port] = 0;
	return true;
}

int evtchn_wait(evtchn_port_t port, uint64_t deadline_ns)
{
	unsigned long was = vcpu_events_mask();
	int rc = 0;

	for (;;) {
		/* Checked with events masked: vcpu_block() cannot miss it. */
		if (evtchn_test_and_clear_latched(port))
			break;
		if (deadline_ns) {
			if (time_now_ns() >= deadline_ns) {
				rc = -ETIMEDOUT;
				break;
			}
			if (time_set_timer(deadline_ns)) {
				rc = -EIO;
				break;
			}
		}
		vcpu_block();
		vcpu_events_mask();
	}
	vcpu_events_restore(was);
	return rc;
}

static void evtchn_handle_word(unsigned int word, unsigned int self)
{
	volatile xen_ulong_t *pending = hyp_shared_info->evtchn_pending;
	volatile xen_ulong_t *mask = hyp_shared_info->evtchn_mask;
	xen_ulong_t bits = pending[word] & ~mask[word];

	while (bits) {
		unsigned int bit = (unsigned int)__builtin_ctzl(bits);
		evtchn_port_t port = word * EVTCHN_BITS_PER_WORD + bit;

		bits &= bits - 1;
		/* Another vCPU's port that shares the word: not ours. */
		if (evtchn_vcpu[port] != self)
			continue;
		/* Clear before handling: a new event re-sets the bit. */
		xen_clear_bit(port, (volatile unsigned long *)pending);
		evtchn_latched[port] = 1;
	}
}

static void evtchn_do_upcall(void)
{
	unsigned int self = vcpu_id();
	struct vcpu_info *vi = vcpu_info_of(self);

	do {
		xen_ulong_t sel;

		vi->evtchn_upcall_pending = 0;
		/*
		 * xchg is a full barrier: the clear above is visible before
		 * the selector is read, so an event marked after the read
		 * sets upcall_pending again and we go round once more.
		 */
		sel = xen_xchg(
			(volatile unsigned long *)&vi->evtchn_pending_sel, 0);
		while (sel) {
			unsigned int word = (unsigned int)__builtin_ctzl(sel);

			sel &= sel - 1;
			evtchn_handle_word(word, self);
		}
	} while (vi->evtchn_upcall_pending);
}

/* time_sleep_ns()'s wait: the running vCPU's timer port, or any event. */
static void evtchn_wait_timer(uint64_t deadline_ns)
{
	evtchn_wait(vcpu_self()->timer_port, deadline_ns);
}

int evtchn_init_vcpu(void)
{
	struct vcpu_local *self = vcpu_self();
	int rc;

	rc = evtchn_bind_virq(VIRQ_TIMER, self->id, &self->timer_port);
	if (rc)
		return rc;
	/* No handler: the port is only latched, for evtchn_wait(). */
	evtchn_unmask(self->timer_port);
	return 0;
}

/* The port vCPU 0 kicks a secondary through (vcpu_kick()). */
static int evtchn_bind_ipi(struct vcpu_local *self)
{
	struct evtchn_bind_ipi ipi = {.vcpu = self->id};
	long rc = hyp_event_channel_op(EVTCHNOP_bind_ipi, &ipi);

	if (rc) {
		pr_err("vcpu: bind IPI for vCPU %u: %ld\n", self->id, rc);
		return (int)rc;
	}
	*(volatile evtchn_port_t *)&self->ipi_port = ipi.port;
	evtchn_set_vcpu(ipi.port, self->id);
	/* No handler: the kick is only latched, and wakes vcpu_block(). */
	evtchn_unmask(ipi.port);
	return 0;
}

/* A secondary coming up (vcpu_set_start_hook()): its timer, its IPI. */
static int evtchn_start_secondary(struct vcpu_local *self)
{
	int rc = evtchn_init_vcpu();

	return rc ? rc : evtchn_bind_ipi(self);
}

void evtchn_init(void)
{
	traps_set_upcall(evtchn_do_upcall);
	time_set_wait(evtchn_wait_timer);
	vcpu_set_start_hook(evtchn_start_secondary);
}
