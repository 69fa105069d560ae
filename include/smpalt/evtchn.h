/* SPDX-License-Identifier: MIT */
/*
 * evtchn.h - event channels (2-level ABI) and the dispatch the event
 * upcall runs.
 *
 * A port is bound to one vCPU; only that vCPU's upcall takes it.  Every
 * delivered port is latched, so thread code waits for a port with
 * evtchn_wait().
 */
#ifndef SMPALT_EVTCHN_H
#define SMPALT_EVTCHN_H

#include <stdbool.h>
#include <stdint.h>

#include <smpalt/hypervisor.h>

/*
 * Once, on vCPU 0 before events are unmasked: register the dispatch as
 * arch-xen's event upcall, the timer wait behind time_sleep_ns(), and the
 * ports of a secondary as it comes up (its timer VIRQ and its IPI).
 */
void evtchn_init(void);

/* Bind VIRQ_TIMER for the running vCPU (vcpu_self()->timer_port). */
int evtchn_init_vcpu(void);

/* Mark a port as delivered to vCPU vcpu (for ports bound elsewhere). */
void evtchn_set_vcpu(evtchn_port_t port, unsigned int vcpu);

int evtchn_send(evtchn_port_t port);
void evtchn_mask(evtchn_port_t port);
void evtchn_unmask(evtchn_port_t port);
/* Clear the port's pending bit; true if it was pending. */
bool evtchn_clear_pending(evtchn_port_t port);

/*
 * Block the running vCPU until the port fires (latched) or Xen system time
 * reaches deadline_ns (0: no deadline).  Returns 0 or -ETIMEDOUT.
 * Thread context only; the port must be bound to the running vCPU.
 */
int evtchn_wait(evtchn_port_t port, uint64_t deadline_ns);

#endif /* SMPALT_EVTCHN_H */
