/* SPDX-License-Identifier: MIT */
/*
 * evtchn.h - event channels (2-level ABI) and the upcall that dispatches
 * them to per-port handlers.
 *
 * A port is bound to one vCPU; only that vCPU's upcall runs its handler.
 * Handlers run inside the upcall, events masked: short, no blocking.
 * Every delivered port is also latched, so thread code can wait for a port
 * without a handler of its own (evtchn_wait()).
 */
#ifndef SMPALT_EVTCHN_H
#define SMPALT_EVTCHN_H

#include <stdbool.h>
#include <stdint.h>

#include <smpalt/hypervisor.h>

struct trap_regs;

typedef void (*evtchn_handler_t)(evtchn_port_t port, void *data);

/* Register the upcall and failsafe callbacks of the running vCPU. */
int evtchn_init_vcpu(void);

/* Bind a VIRQ on a vCPU; *port gets the new port (masked until a handler). */
int evtchn_bind_virq(uint32_t virq, unsigned int vcpu, evtchn_port_t *port);

/* Install (or with NULL remove) a port's handler and unmask the port. */
int evtchn_set_handler(evtchn_port_t port, evtchn_handler_t fn, void *data);

/* Mark a port as delivered to vCPU vcpu (for ports bound elsewhere). */
void evtchn_set_vcpu(evtchn_port_t port, unsigned int vcpu);

int evtchn_send(evtchn_port_t port);
void evtchn_mask(evtchn_port_t port);
void evtchn_unmask(evtchn_port_t port);
/* Clear the port's pending bit; true if it was pending. */
bool evtchn_clear_pending(evtchn_port_t port);

/* Consume the port's latch: true if it fired since the last call. */
bool evtchn_test_and_clear_latched(evtchn_port_t port);

/*
 * Block the running vCPU until the port fires (latched) or Xen system time
 * reaches deadline_ns (0: no deadline).  Returns 0 or -ETIMEDOUT.
 * Thread context only; the port must be bound to the running vCPU.
 */
int evtchn_wait(evtchn_port_t port, uint64_t deadline_ns);

/* Called from the upcall entry in entry.S, events masked. */
void evtchn_do_upcall(struct trap_regs *regs);

#endif /* SMPALT_EVTCHN_H */
