/* SPDX-License-Identifier: MIT */
/*
 * entry_regs.h - the general registers a trap entry saves and restores,
 * in struct trap_regs' order (traps.h), and the event upcall's frame
 * around trap_upcall(), for the PV entry (entry.S) and the PVH one
 * (entry_pvh.S).  Assembler only.
 */
#ifndef SMPALT_ENTRY_REGS_H
#define SMPALT_ENTRY_REGS_H

#include <smpalt/traps.h>

#ifdef __ASSEMBLER__
/* clang-format off */
.macro SAVE_REGS
	pushq	%rax
	pushq	%rbx
	pushq	%rcx
	pushq	%rdx
	pushq	%rsi
	pushq	%rdi
	pushq	%rbp
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
.endm

.macro RESTORE_REGS
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%r11
	popq	%r10
	popq	%r9
	popq	%r8
	popq	%rbp
	popq	%rdi
	popq	%rsi
	popq	%rdx
	popq	%rcx
	popq	%rbx
	popq	%rax
.endm

/*
 * The event upcall, once the CPU's or Xen's frame is in place (rip, cs,
 * rflags, rsp, ss): no error code, TRAP_VECTOR_UPCALL, the registers as
 * struct trap_regs, trap_upcall(regs), the registers back.  Leaves the
 * vector and error code on the stack for the kind's own return (PV:
 * HYPERVISOR_iret, PVH: iretq).  22 words keep %rsp 16-byte aligned.
 */
.macro UPCALL_FRAME
	pushq	$0
	pushq	$TRAP_VECTOR_UPCALL
	SAVE_REGS
	movq	%rsp, %rdi
	call	trap_upcall
	RESTORE_REGS
.endm
/* clang-format on */
#endif /* __ASSEMBLER__ */

#endif /* SMPALT_ENTRY_REGS_H */
