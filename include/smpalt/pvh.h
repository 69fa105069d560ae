/* SPDX-License-Identifier: MIT */
/*
 * pvh.h - what the PVH boot path (pvh_head.S, pvh.c) shares with the rest
 * of arch-xen: our own GDT selectors, page tables and the architectural
 * control-register bits it sets.  Usable from assembly.
 */
#ifndef SMPALT_PVH_H
#define SMPALT_PVH_H

/* Our GDT (pvh_head.S): 64-bit kernel code, flat data. */
#define PVH_GDT_CS 0x08
#define PVH_GDT_DS 0x10
#define PVH_GDT_ENTRIES 3

/* Architectural bits (not in Xen's public headers). */
#define X86_CR0_PE (1 << 0)
#define X86_CR0_MP (1 << 1)
#define X86_CR0_ET (1 << 4)
#define X86_CR0_NE (1 << 5)
#define X86_CR0_WP (1 << 16)
#define X86_CR0_PG (1 << 31)
#define X86_CR4_PAE (1 << 5)
#define X86_MSR_EFER 0xc0000080
#define X86_EFER_LME (1 << 8)
#define X86_EFER_LMA (1 << 10)
#define X86_EFER_NXE (1 << 11)
#define X86_MSR_GS_BASE 0xc0000101
#define X86_RFLAGS_IF (1 << 9)

#ifndef __ASSEMBLY__

#include <stdint.h>

/* The boot page tables' top level (pvh_head.S), shared by every vCPU. */
extern uint64_t pvh_l4[];

/* The first guest frame free for mm_init() (pvh.c). */
extern unsigned long pvh_first_free_pfn;

/* A secondary's first instruction: GDT, segments, GS base from %rsi. */
extern char pvh_secondary_entry[];

static inline uint64_t pvh_read_cr0(void)
{
	uint64_t v;

	__asm__ __volatile__("mov %%cr0, %0" : "=r"(v));
	return v;
}

static inline uint64_t pvh_read_cr4(void)
{
	uint64_t v;

	__asm__ __volatile__("mov %%cr4, %0" : "=r"(v));
	return v;
}

static inline uint64_t pvh_read_cr2(void)
{
	uint64_t v;

	__asm__ __volatile__("mov %%cr2, %0" : "=r"(v));
	return v;
}

static inline uint64_t pvh_rdmsr(uint32_t msr)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void pvh_wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ __volatile__("wrmsr" ::"c"(msr), "a"((uint32_t)v),
			     "d"((uint32_t)(v >> 32))
			     : "memory");
}

/* Drop every non-global TLB entry of this vCPU (no global pages here). */
static inline void pvh_flush_tlb_local(void)
{
	uint64_t cr3;

	__asm__ __volatile__("mov %%cr3, %0\n\tmov %0, %%cr3"
			     : "=r"(cr3)
			     :
			     : "memory");
}

static inline void pvh_invlpg(const void *va)
{
	__asm__ __volatile__("invlpg (%0)" ::"r"(va) : "memory");
}

#endif /* __ASSEMBLY__ */
#endif /* SMPALT_PVH_H */
