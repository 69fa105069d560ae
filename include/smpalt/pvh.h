/* SPDX-License-Identifier: MIT */
/*
 * pvh.h - what the PVH entry code (pvh_head.S, entry_pvh.S) hands pvh.c:
 * the boot page tables, the entry of a secondary vCPU, the IDT's entries.
 */
#ifndef SMPALT_PVH_H
#define SMPALT_PVH_H

#include <stdint.h>

/* The boot page tables' top level (pvh_head.S), shared by every vCPU. */
extern uint64_t pvh_l4[];

/* A secondary's first instruction: GDT, segments, GS base from %rsi. */
extern char pvh_secondary_entry[];

/* sti;hlt, the PVH vcpu_block() (entry_pvh.S, guest_pvh_ops). */
void pvh_events_block(void);

/* The exception entries by vector (TRAP_PVH_EXCEPTIONS), the upcall's. */
extern const uint64_t pvh_trap_entries[];
extern char pvh_upcall_entry[];

#endif /* SMPALT_PVH_H */
