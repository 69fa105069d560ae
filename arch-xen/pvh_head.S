/* SPDX-License-Identifier: MIT */
/*
 * pvh_head.S - the PVH entry (XEN_ELFNOTE_PHYS32_ENTRY) and a PVH
 * secondary vCPU's first instructions.
 *
 * Entry state (Xen's PVH boot ABI): 32-bit flat protected mode, paging
 * off, interrupts off, %ebx = guest-physical address of struct
 * hvm_start_info, no stack, no usable GDT or IDT.  We run at our physical
 * address until paging is on, so every symbol is used through PA().
 *
 * The boot page tables are data of the image, filled at link time:
 * one L2 table of 2 MiB pages maps guest-physical [0, 1 GiB - 2 MiB) both
 * at 0 (identity, for the instructions that turn paging on) and at
 * SMPALT_VIRT_BASE (where the image is linked).  The last 2 MiB slot stays
 * empty: it is the text alias window (mm.c).  pvh.c drops the identity map
 * once we run at the link address, and mm.c replaces the 2 MiB pages with
 * 4 KiB ones, as a PV guest has them.
 */
#include <smpalt/layout.h>
#include <smpalt/x86.h>
#include <smpalt/vcpu.h>

/* Our GDT at its link address, and its data selector in every data segment. */
.macro LOAD_GDT64
	lgdt	pvh_gdt_ptr64(%rip)
	movl	$PVH_GDT_DS, %eax
	movl	%eax, %ds
	movl	%eax, %es
	movl	%eax, %ss
	movl	%eax, %fs
	movl	%eax, %gs
.endm

#define PA(x) ((x) - SMPALT_VIRT_BASE)

/* Entry bits: present, writable, accessed, dirty; 2 MiB page. */
#define PVH_PTE_TABLE 0x63
#define PVH_PTE_LARGE 0xe3
#define PVH_L2_SHIFT 21
#define PVH_L3_VIRT_BASE_SLOT 510
#define PVH_L4_VIRT_BASE_SLOT 511

	.section .text.pvh32, "ax"
	.code32
	.globl pvh_start32
	.type pvh_start32, @function
pvh_start32:
	cli
	cld
	lgdt	PA(pvh_gdt_ptr32)
	movl	$PVH_GDT_DS, %eax
	movl	%eax, %ds
	movl	%eax, %es
	movl	%eax, %ss
	/* Long mode: PAE, our tables, EFER.LME (and NX for the alias). */
	movl	%cr4, %eax
	orl	$X86_CR4_PAE, %eax
	movl	%eax, %cr4
	movl	$PA(pvh_l4), %eax
	movl	%eax, %cr3
	movl	$X86_MSR_EFER, %ecx
	rdmsr
	orl	$(X86_EFER_LME | X86_EFER_NXE), %eax
	wrmsr
	movl	%cr0, %eax
	orl	$(X86_CR0_PG | X86_CR0_WP | X86_CR0_NE | X86_CR0_MP | X86_CR0_PE), %eax
	movl	%eax, %cr0
	/* Paging on, still at the identity address: into 64-bit code. */
	ljmp	$PVH_GDT_CS, $PA(pvh_start64_low)

	.code64
pvh_start64_low:
	movabsq	$pvh_start64, %rax
	jmp	*%rax
	.size pvh_start32, . - pvh_start32

	.section .text, "ax"
pvh_start64:
	/* The GDT at its link address: the identity map goes soon. */
	LOAD_GDT64
	leaq	vcpu0_stack + VCPU_STACK_SIZE(%rip), %rsp
	/* A zero frame pointer ends every backtrace here. */
	xorl	%ebp, %ebp
	movl	%ebx, %edi		/* pvh_start(start info's address) */
	call	pvh_start
	ud2

/*
 * A secondary (VCPUOP_initialise, vcpu_hvm_context in 64-bit mode): Xen
 * set flat segment state but no GDT, %rdi = its id, %rsi = its struct
 * vcpu_local, interrupts off.  Load our GDT and real selectors (cs through
 * a far return), the GS base, then the shared secondary entry (head.S).
 */
	.globl pvh_secondary_entry
	.type pvh_secondary_entry, @function
pvh_secondary_entry:
	LOAD_GDT64
	leaq	1f(%rip), %rax
	pushq	$PVH_GDT_CS
	pushq	%rax
	lretq
1:	movl	$X86_MSR_GS_BASE, %ecx
	movq	%rsi, %rax
	movq	%rsi, %rdx
	shrq	$32, %rdx
	wrmsr
	jmp	vcpu_secondary_entry
	.size pvh_secondary_entry, . - pvh_secondary_entry

	.section .rodata, "a"
	.balign 16
pvh_gdt:
	.quad 0				/* null */
	.quad 0x00af9a000000ffff	/* PVH_GDT_CS: 64-bit code, DPL 0 */
	.quad 0x00cf92000000ffff	/* PVH_GDT_DS: flat data */
pvh_gdt_end:
	.balign 8
	.word 0
pvh_gdt_ptr32:
	.word pvh_gdt_end - pvh_gdt - 1
	.long PA(pvh_gdt)
	.balign 8
	.word 0, 0, 0
pvh_gdt_ptr64:
	.word pvh_gdt_end - pvh_gdt - 1
	.quad pvh_gdt

	.section .data.pvh_pt, "aw"
	.balign PAGE_SIZE
	.globl pvh_l4
pvh_l4:
	.quad PA(pvh_l3_ident) + PVH_PTE_TABLE
	.fill PVH_L4_VIRT_BASE_SLOT - 1, 8, 0
	.quad PA(pvh_l3_high) + PVH_PTE_TABLE
	.balign PAGE_SIZE
pvh_l3_ident:
	.quad PA(pvh_l2) + PVH_PTE_TABLE
	.fill 511, 8, 0
pvh_l3_high:
	.fill PVH_L3_VIRT_BASE_SLOT, 8, 0
	.quad PA(pvh_l2) + PVH_PTE_TABLE
	.quad 0
	.globl pvh_l2
pvh_l2:
	.set pvh_slot, 0
	.rept 511
	.quad (pvh_slot << PVH_L2_SHIFT) + PVH_PTE_LARGE
	.set pvh_slot, pvh_slot + 1
	.endr
	.quad 0				/* the text alias window (mm.c) */
