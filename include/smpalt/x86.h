/* SPDX-License-Identifier: MIT */
/*
 * x86.h - the architecture's own bits a kernel that owns its page tables
 * and descriptor tables needs (a PVH guest: pvh.c, mm.c, traps.c, vcpu.c,
 * smp.c): page-table entries, control registers, MSRs, our GDT's
 * selectors.  None of this is in Xen's public headers.  Usable from
 * assembly (constants only).
 */
#ifndef SMPALT_X86_H
#define SMPALT_X86_H

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

/* Exception vectors. */
#define X86_EXC_DE 0 /* divide error */
#define X86_EXC_DB 1 /* debug */
#define X86_EXC_NMI 2
#define X86_EXC_BP 3  /* breakpoint (int3) */
#define X86_EXC_OF 4  /* overflow (into) */
#define X86_EXC_BR 5  /* bound range */
#define X86_EXC_UD 6  /* invalid opcode */
#define X86_EXC_NM 7  /* device not available */
#define X86_EXC_DF 8  /* double fault */
#define X86_EXC_TS 10 /* invalid TSS */
#define X86_EXC_NP 11 /* segment not present */
#define X86_EXC_SS 12 /* stack segment */
#define X86_EXC_GP 13 /* general protection */
#define X86_EXC_PF 14 /* page fault */
#define X86_EXC_MF 16 /* x87 error */
#define X86_EXC_AC 17 /* alignment check */
#define X86_EXC_MC 18 /* machine check */
#define X86_EXC_XM 19 /* SIMD error */

#ifndef __ASSEMBLY__

#include <stdint.h>

/* x86-64 page-table entry bits (architectural, not in Xen's headers). */
#define PTE_PRESENT (1ULL << 0)
#define PTE_RW (1ULL << 1)
#define PTE_USER (1ULL << 2)
#define PTE_ACCESSED (1ULL << 5)
#define PTE_DIRTY (1ULL << 6)
#define PTE_PSE (1ULL << 7)
#define PTE_NX (1ULL << 63)
#define PTE_ADDR_MASK 0x000ffffffffff000ULL
/* A kernel data page: present, writable, already accessed and dirty. */
#define PTE_KERNEL_RW (PTE_PRESENT | PTE_RW | PTE_ACCESSED | PTE_DIRTY)
/* The same, read-only (a PV guest's page-table frames). */
#define PTE_KERNEL_RO (PTE_PRESENT | PTE_ACCESSED)
/* rflags of a new vCPU: only the always-one bit (IF clear). */
#define X86_RFLAGS_INITIAL 0x2

#define PT_ENTRIES 512
#define PT_LEVEL_BITS 9
#define L1_SHIFT PAGE_SHIFT
#define L2_SHIFT (L1_SHIFT + PT_LEVEL_BITS)
#define L3_SHIFT (L2_SHIFT + PT_LEVEL_BITS)
#define L4_SHIFT (L3_SHIFT + PT_LEVEL_BITS)
#define PT_INDEX(va, shift) (((uintptr_t)(va) >> (shift)) & (PT_ENTRIES - 1))

/*
 * cpuid after `prefix` (assembler text; "" for none: a PV guest puts
 * Xen's forced-emulation prefix there).
 */
#define X86_CPUID(prefix, leaf, subleaf, a, b, c, d)                          \
	__asm__ __volatile__(prefix "cpuid"                                   \
			     : "=a"(*(a)), "=b"(*(b)), "=c"(*(c)), "=d"(*(d)) \
			     : "0"(leaf), "2"(subleaf))

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
#endif /* SMPALT_X86_H */
