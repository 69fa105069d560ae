/* SPDX-License-Identifier: MIT */
/*
 * entry_pvh.S - exception and event-upcall entry points of a PVH guest.
 *
 * A PVH guest takes exceptions and interrupts natively, through its own
 * IDT (traps.c): the CPU pushes ss, rsp, rflags, cs, rip and, for some
 * vectors, an error code, with interrupts off (interrupt gates).  We make
 * the frame uniform (error code 0 when none, then the vector), save every
 * register as struct trap_regs (the PV entry's layout) and call the same
 * C handlers; iretq restores rflags.IF with the rest, so the upcall never
 * nests on a half-unwound frame.
 *
 * The event upcall arrives as TRAP_PVH_UPCALL_VECTOR, which Xen injects
 * while this vCPU's evtchn_upcall_pending is set and rflags.IF is 1
 * (HVM_PARAM_CALLBACK_IRQ, vector type: no local APIC EOI).
 */
#include <smpalt/entry_regs.h>
#include <smpalt/traps.h>

	.section .text, "ax"
	.code64


/* The CPU aligned %rsp to 16 first; 22 words keep it aligned. */
.macro PVH_TRAP vector, has_error_code
pvh_trap_\vector:
	.if \has_error_code == 0
	pushq	$0
	.endif
	pushq	$\vector
	jmp	pvh_trap_common
.endm

PVH_TRAP 0,  0
PVH_TRAP 1,  0
PVH_TRAP 2,  0
PVH_TRAP 3,  0
PVH_TRAP 4,  0
PVH_TRAP 5,  0
PVH_TRAP 6,  0
PVH_TRAP 7,  0
PVH_TRAP 8,  1
PVH_TRAP 9,  0
PVH_TRAP 10, 1
PVH_TRAP 11, 1
PVH_TRAP 12, 1
PVH_TRAP 13, 1
PVH_TRAP 14, 1
PVH_TRAP 15, 0
PVH_TRAP 16, 0
PVH_TRAP 17, 1
PVH_TRAP 18, 0
PVH_TRAP 19, 0

pvh_trap_common:
	SAVE_REGS
	movq	%rsp, %rdi
	call	trap_handle
	RESTORE_REGS
	addq	$16, %rsp
	iretq

	.globl pvh_upcall_entry
	.type pvh_upcall_entry, @function
pvh_upcall_entry:
	/*
	 * Returning to pvh_events_block's hlt itself means the upcall came
	 * after the sti but before the hlt ran: inside the sti's interrupt
	 * shadow, where a processor takes no interrupt.  Xen in QEMU's
	 * emulated SVM does deliver one there, now and then (seen as vCPU 0
	 * halted for good while it waited for a secondary, its timer event
	 * already handled: the saved RIP was the hlt's).  Returning to the
	 * hlt would halt with the awaited event gone and nothing left to end
	 * the halt; resume after it instead (one byte), as if the event had
	 * ended it.  On a processor that honours the shadow this never
	 * matches.
	 */
	cmpq	$pvh_events_block_hlt, (%rsp)
	jne	1f
	incq	(%rsp)
1:
	UPCALL_FRAME
	addq	$16, %rsp
	iretq
	.size pvh_upcall_entry, . - pvh_upcall_entry

/*
 * vcpu_block() under PVH (guest_pvh_ops): sti, then hlt in the sti's
 * interrupt shadow, so that no interrupt lands between the two; Xen blocks
 * the vCPU on the hlt unless an event is pending.  pvh_upcall_entry moves
 * a return to pvh_events_block_hlt past it (see there).
 */
	.globl pvh_events_block
	.type pvh_events_block, @function
pvh_events_block:
	sti
pvh_events_block_hlt:
	hlt
	ret
	.size pvh_events_block, . - pvh_events_block

/* The exception entries, by vector, for the IDT (traps.c). */
	.section .rodata, "a"
	.balign 8
	.globl pvh_trap_entries
pvh_trap_entries:
	.irp v, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19
	.quad pvh_trap_\v
	.endr
