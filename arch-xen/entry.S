/* SPDX-License-Identifier: MIT */
/*
 * entry.S - exception, event-upcall and failsafe entry points.
 *
 * Xen delivers an exception or an event to a 64-bit PV kernel by building
 * a "bounce frame" on the kernel stack:
 *
 *	rcx, r11, [error code,] rip, cs, rflags, rsp, ss
 *
 * rcx and r11 come first because Xen's own return path clobbered them.
 * We pop them back into place, make the frame uniform (error code 0 when
 * the CPU pushes none, then the vector), save every register as struct
 * trap_regs and call C.  rflags.IF in the frame is the inverse of the
 * event mask at the time of the event.
 *
 * Return goes through HYPERVISOR_iret: its stub pushes r11, rcx, rax over
 * our "flags" word and Xen restores them with rip/cs/rflags/rsp/ss, and
 * sets the event mask from rflags.IF in the same step.  Events therefore
 * stay masked until the very last instruction, so the upcall can never
 * nest on a half-unwound frame (Linux and Mini-OS need a critical-region
 * fixup for their direct iretq path; we avoid that path).
 */
#include <xen/xen.h>
#include <smpalt/hypercall.h>
#include <smpalt/entry_regs.h>
#include <smpalt/traps.h>

	.section .text, "ax"
	.code64


/* Drop vector and error code, then return through HYPERVISOR_iret. */
.macro XEN_IRET
	addq	$16, %rsp
	pushq	$0			/* iret flags: not in a syscall */
	jmp	HYPERCALL_ENTRY(iret)
.endm

/* The bounce frame is 16-byte aligned; 22 words keep %rsp aligned. */
.macro TRAP_ENTRY name, vector, has_error_code
	.globl \name
	.type \name, @function
\name:
	popq	%rcx
	popq	%r11
	.if \has_error_code == 0
	pushq	$0
	.endif
	pushq	$\vector
	jmp	trap_common
	.size \name, . - \name
.endm

TRAP_ENTRY trap_divide_error,		0,  0
TRAP_ENTRY trap_debug,			1,  0
TRAP_ENTRY trap_int3,			3,  0
TRAP_ENTRY trap_overflow,		4,  0
TRAP_ENTRY trap_bounds,			5,  0
TRAP_ENTRY trap_invalid_op,		6,  0
TRAP_ENTRY trap_device_not_available,	7,  0
TRAP_ENTRY trap_invalid_tss,		10, 1
TRAP_ENTRY trap_segment_not_present,	11, 1
TRAP_ENTRY trap_stack_segment,		12, 1
TRAP_ENTRY trap_general_protection,	13, 1
TRAP_ENTRY trap_page_fault,		14, 1
TRAP_ENTRY trap_coprocessor_error,	16, 0
TRAP_ENTRY trap_alignment_check,	17, 1
TRAP_ENTRY trap_machine_check,		18, 0
TRAP_ENTRY trap_simd_error,		19, 0

trap_common:
	SAVE_REGS
	movq	%rsp, %rdi
	call	trap_handle
	RESTORE_REGS
	XEN_IRET

/* Event upcall: Xen masked events for this vCPU before jumping here. */
	.globl hyp_event_callback
	.type hyp_event_callback, @function
hyp_event_callback:
	popq	%rcx
	popq	%r11
	UPCALL_FRAME
	XEN_IRET
	.size hyp_event_callback, . - hyp_event_callback

/*
 * Failsafe: Xen could not load a segment register while returning to us.
 * Frame: rcx, r11, ds, es, fs, gs, rip, cs, rflags, rsp, ss.  The guest
 * never changes segments, so this is a bug: report and crash.
 */
	.globl hyp_failsafe_callback
	.type hyp_failsafe_callback, @function
hyp_failsafe_callback:
	andq	$~0xf, %rsp		/* ABI stack alignment for the call */
	xorl	%ebp, %ebp
	call	trap_failsafe
	ud2
	.size hyp_failsafe_callback, . - hyp_failsafe_callback
