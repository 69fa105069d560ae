/* SPDX-License-Identifier: MIT */
/*
 * head.S - the entry point Xen jumps to, and the hypercall page.
 *
 * Entry state (64-bit PV): long mode, cs=FLAT_KERNEL_CS, %rsi = virtual
 * address of start_info, %rsp on a small stack inside Xen's bootstrap
 * area, event upcalls masked.  We leave that stack at once.
 */
#include <smpalt/layout.h>
#include <smpalt/vcpu.h>

	.section .text.head, "ax"
	.code64
	.globl _start
	.type _start, @function
_start:
	cld
	leaq	vcpu0_stack + VCPU_STACK_SIZE(%rip), %rsp
	/* A zero frame pointer ends every backtrace here. */
	xorl	%ebp, %ebp
	movq	%rsi, %rdi		/* pv_start(start_info) */
	call	pv_start
	/* pv_start never returns; if it did, fault loudly. */
	ud2
	.size _start, . - _start

/*
 * Xen fills this page at domain build: one 32-byte stub per hypercall
 * (see hypercall.h).  Until then it holds int3s.
 */
	.section .text.hypercall_page, "ax"
	.balign PAGE_SIZE
	.globl hypercall_page
	.type hypercall_page, @object
hypercall_page:
	.fill PAGE_SIZE, 1, 0xcc
	.size hypercall_page, PAGE_SIZE

/*
 * vCPU 0's stack, with an unmapped guard page below it (mm_init() removes
 * the guard's mapping) so that an overflow faults instead of corrupting.
 */
	.section .bss.page_aligned, "aw", @nobits
	.balign PAGE_SIZE
	.globl vcpu0_stack_guard
vcpu0_stack_guard:
	.skip PAGE_SIZE
	.globl vcpu0_stack
vcpu0_stack:
	.skip VCPU_STACK_SIZE

/*
 * A secondary vCPU starts here (VCPUOP_initialise context): %rsp at the
 * top of its own stack, %rdi = its id, GS base = its struct vcpu_local,
 * events masked.
 */
	.section .text, "ax"
	.globl vcpu_secondary_entry
	.type vcpu_secondary_entry, @function
vcpu_secondary_entry:
	cld
	xorl	%ebp, %ebp
	call	vcpu_secondary_main
	ud2
	.size vcpu_secondary_entry, . - vcpu_secondary_entry
