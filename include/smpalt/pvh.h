/* SPDX-License-Identifier: MIT */
/*
 * pvh.h - what the PVH boot path (pvh_head.S, pvh.c) hands the rest of
 * arch-xen: the boot page tables, the first free frame, the entry of a
 * secondary vCPU.
 */
#ifndef SMPALT_PVH_H
#define SMPALT_PVH_H

#include <stdint.h>

/* The boot page tables' top level (pvh_head.S), shared by every vCPU. */
extern uint64_t pvh_l4[];

/* The first guest frame free for mm_init() (pvh.c). */
extern unsigned long pvh_first_free_pfn;

/* A secondary's first instruction: GDT, segments, GS base from %rsi. */
extern char pvh_secondary_entry[];

/*
 * sti;hlt: wait for the next event with interrupts on (vcpu_block(),
 * entry_pvh.S).  pvh_safe_halt_hlt is its hlt, for trap_upcall(): an
 * upcall that interrupted that very instruction resumes after it.
 */
void pvh_safe_halt(void);
extern char pvh_safe_halt_hlt[];

#endif /* SMPALT_PVH_H */
