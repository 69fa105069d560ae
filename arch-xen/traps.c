// SPDX-License-Identifier: MIT
/*
 * traps.c - the trap table (PVH: the IDT), the event and failsafe
 * callbacks (PVH: the callback vector), and the fatal-exception report.
 *
 * The guest has no user mode and no recoverable fault: any exception is a
 * bug.  The report is for a human and for the harness (which looks for
 * "RIP:"), then the domain stops with SHUTDOWN_crash.
 */
#define pr_fmt(fmt) "traps: " fmt

#include <smpalt/traps.h>
#include <smpalt/hypercall.h>
#include <smpalt/kernel.h>
#include <smpalt/ksyms.h>
#include <smpalt/panic.h>
#include <smpalt/printk.h>
#include <smpalt/pvh.h>
#include <smpalt/x86.h>
#include <smpalt/vcpu.h>

/* trap_info.flags: bits 0-1 the DPL, bit 2 masks events on entry. */
#define TRAP_DPL_KERNEL 0
#define TRAP_DPL_ANY 3
#define TRAP_MASK_EVENTS 4

/* Longest frame-pointer chain printed. */
#define TRAP_BACKTRACE_MAX 32

/* x86 page-fault error code bits. */
#define PF_PRESENT (1u << 0)
#define PF_WRITE (1u << 1)
#define PF_INSN (1u << 4)

#define DECLARE_TRAP(name) extern char name[]
DECLARE_TRAP(trap_divide_error);
DECLARE_TRAP(trap_debug);
DECLARE_TRAP(trap_int3);
DECLARE_TRAP(trap_overflow);
DECLARE_TRAP(trap_bounds);
DECLARE_TRAP(trap_invalid_op);
DECLARE_TRAP(trap_device_not_available);
DECLARE_TRAP(trap_invalid_tss);
DECLARE_TRAP(trap_segment_not_present);
DECLARE_TRAP(trap_stack_segment);
DECLARE_TRAP(trap_general_protection);
DECLARE_TRAP(trap_page_fault);
DECLARE_TRAP(trap_coprocessor_error);
DECLARE_TRAP(trap_alignment_check);
DECLARE_TRAP(trap_machine_check);
DECLARE_TRAP(trap_simd_error);

extern char hyp_event_callback[], hyp_failsafe_callback[];

/* The event upcall's handler, registered by the event-channel driver. */
static trap_upcall_fn trap_upcall_handler;

struct trap_desc {
	uint8_t vector;
	uint8_t dpl;
	const char *name;
	char *entry;
};

/* NMI (2) comes through a callback, #DF (8) never reaches a PV guest. */
static const struct trap_desc trap_descs[] = {
	{0, TRAP_DPL_KERNEL, "#DE divide error", trap_divide_error},
	{1, TRAP_DPL_KERNEL, "#DB debug", trap_debug},
	/* int3 and into come from our own ring-3 code: DPL 3. */
	{3, TRAP_DPL_ANY, "#BP breakpoint", trap_int3},
	{4, TRAP_DPL_ANY, "#OF overflow", trap_overflow},
	{5, TRAP_DPL_KERNEL, "#BR bound range", trap_bounds},
	{6, TRAP_DPL_KERNEL, "#UD invalid opcode", trap_invalid_op},
	{7, TRAP_DPL_KERNEL, "#NM device not available",
	 trap_device_not_available},
	{10, TRAP_DPL_KERNEL, "#TS invalid TSS", trap_invalid_tss},
	{11, TRAP_DPL_KERNEL, "#NP segment not present",
	 trap_segment_not_present},
	{12, TRAP_DPL_KERNEL, "#SS stack segment", trap_stack_segment},
	{13, TRAP_DPL_KERNEL, "#GP general protection",
	 trap_general_protection},
	{14, TRAP_DPL_KERNEL, "#PF page fault", trap_page_fault},
	{16, TRAP_DPL_KERNEL, "#MF x87 error", trap_coprocessor_error},
	{17, TRAP_DPL_KERNEL, "#AC alignment check", trap_alignment_check},
	{18, TRAP_DPL_KERNEL, "#MC machine check", trap_machine_check},
	{19, TRAP_DPL_KERNEL, "#XM SIMD error", trap_simd_error},
};

/* One table serves every vCPU (Xen copies it); zero entry terminates. */
static struct trap_info trap_table[ARRAY_SIZE(trap_descs) + 1];

/* PVH: a 64-bit interrupt gate (interrupts off on entry), DPL 0. */
struct trap_idt_gate {
	uint16_t offset_lo, selector;
	uint8_t ist, type;
	uint16_t offset_mid;
	uint32_t offset_hi, reserved;
} __attribute__((packed));
#define TRAP_IDT_INTERRUPT_GATE 0x8e
/* HVM_PARAM_CALLBACK_IRQ: the type in the top byte (params.h's mask). */
#define TRAP_CALLBACK_TYPE_SHIFT 56
#define TRAP_IDT_ENTRIES 256

/* One IDT for every vCPU, filled once by vCPU 0 before any other runs. */
static struct trap_idt_gate trap_idt[TRAP_IDT_ENTRIES] __aligned(16);
static bool trap_idt_filled;
extern const uint64_t pvh_trap_entries[TRAP_PVH_EXCEPTIONS];
extern char pvh_upcall_entry[];

static void trap_idt_set(unsigned int vector, uint64_t entry)
{
	struct trap_idt_gate *g = &trap_idt[vector];

	g->offset_lo = (uint16_t)entry;
	g->selector = PVH_GDT_CS;
	g->ist = 0;
	g->type = TRAP_IDT_INTERRUPT_GATE;
	g->offset_mid = (uint16_t)(entry >> 16);
	g->offset_hi = (uint32_t)(entry >> 32);
	g->reserved = 0;
}

static int traps_pvh_load_idt(void)
{
	struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed))
	idtr = {sizeof(trap_idt) - 1, (uint64_t)trap_idt};
	unsigned int v;

	if (!trap_idt_filled) {
		for (v = 0; v < TRAP_PVH_EXCEPTIONS; v++)
			trap_idt_set(v, pvh_trap_entries[v]);
		trap_idt_set(TRAP_PVH_UPCALL_VECTOR,
			     (uint64_t)pvh_upcall_entry);
		trap_idt_filled = true;
	}
	__asm__ __volatile__("lidt %0" ::"m"(idtr));
	return 0;
}

int traps_init_vcpu(void)
{
	size_t i;
	long rc;

	if (hyp_pvh)
		return traps_pvh_load_idt();

	for (i = 0; i < ARRAY_SIZE(trap_descs); i++) {
		trap_table[i].vector = trap_descs[i].vector;
		trap_table[i].flags = trap_descs[i].dpl | TRAP_MASK_EVENTS;
		trap_table[i].cs = FLAT_KERNEL_CS;
		trap_table[i].address = (unsigned long)trap_descs[i].entry;
	}
	rc = hyp_set_trap_table(trap_table);
	if (rc)
		pr_err("set_trap_table on vCPU %u: %ld\n", vcpu_id(), rc);
	return (int)rc;
}

int traps_init_callbacks(void)
{
	struct callback_register event = {
		.type = CALLBACKTYPE_event,
		.flags = CALLBACKF_mask_events,
		.address = (xen_callback_t)hyp_event_callback,
	};
	struct callback_register failsafe = {
		.type = CALLBACKTYPE_failsafe,
		.flags = CALLBACKF_mask_events,
		.address = (xen_callback_t)hyp_failsafe_callback,
	};
	long rc;

	if (hyp_pvh) {
		/* Domain-wide: each vCPU gets the vector for its own events. */
		if (vcpu_id())
			return 0;
		rc = hyp_hvm_set_param(HVM_PARAM_CALLBACK_IRQ,
				       ((uint64_t)HVM_PARAM_CALLBACK_TYPE_VECTOR
					<< TRAP_CALLBACK_TYPE_SHIFT) |
					       TRAP_PVH_UPCALL_VECTOR);
		if (rc)
			pr_err("set the event callback vector: %ld\n", rc);
		return (int)rc;
	}
	rc = hyp_callback_op(CALLBACKOP_register, &event);
	if (rc) {
		pr_err("register event callback: %ld\n", rc);
		return (int)rc;
	}
	rc = hyp_callback_op(CALLBACKOP_register, &failsafe);
	if (rc) {
		pr_err("register failsafe callback: %ld\n", rc);
		return (int)rc;
	}
	return 0;
}

void traps_set_upcall(trap_upcall_fn fn)
{
	trap_upcall_handler = fn;
}

void trap_upcall(struct trap_regs *regs)
{
	/*
	 * An upcall whose return address is pvh_safe_halt()'s hlt came after
	 * the sti but before the hlt ran: inside the sti's interrupt shadow,
	 * where a processor takes no interrupt.  Xen in QEMU's emulated SVM
	 * does deliver one there, now and then (seen as vCPU 0 halted for
	 * good while it waited for a secondary, with its timer event already
	 * handled: the saved RIP was the hlt's).  Returning to the hlt would
	 * halt with the awaited event gone and nothing left to end the halt;
	 * resume after it instead, as if the event had ended the halt.  The
	 * hlt is one byte.  PV never runs that code.
	 */
	if (regs->rip == (uintptr_t)pvh_safe_halt_hlt)
		regs->rip += 1;
	/*
	 * Events are unmasked only after the handler is registered
	 * (start_kernel, vcpu_secondary_main), so it is there by now.
	 */
	trap_upcall_handler();
}

static const char *trap_name(uint64_t vector)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(trap_descs); i++)
		if (trap_descs[i].vector == vector)
			return trap_descs[i].name;
	return "unknown";
}

/* One backtrace line: address, and function+offset when known. */
static void trap_print_address(uintptr_t addr, const char *note)
{
	uintptr_t off;
	const char *fn = ksym_lookup(addr, &off);

	if (fn)
		printk(KERN_EMERG "  [<%016lx>] %s+%#lx%s\n",
		       (unsigned long)addr, fn, (unsigned long)off, note);
	else
		printk(KERN_EMERG "  [<%016lx>]%s\n", (unsigned long)addr,
		       note);
}

/* The backtrace from a frame pointer, within this vCPU's stack. */
static void trap_print_backtrace(uintptr_t rbp)
{
	const struct vcpu_local *self = vcpu_self();
	int depth;

	printk(KERN_EMERG "Call trace (frame pointers):\n");
	for (depth = 0; depth < TRAP_BACKTRACE_MAX; depth++) {
		const uintptr_t *frame = (const uintptr_t *)rbp;

		/* Follow only frames inside this vCPU's stack, upwards. */
		if (rbp < self->stack_lo ||
		    rbp + 2 * sizeof(uintptr_t) > self->stack_hi ||
		    (rbp & (sizeof(uintptr_t) - 1)))
			break;
		trap_print_address(frame[1], "");
		if (frame[0] <= rbp)
			break;
		rbp = frame[0];
	}
}

static void __noreturn trap_die(void)
{
	printk(KERN_EMERG "smpalt: crashed, shutting down (crash)\n");
	printk_flush(PRINTK_DRAIN_TIMEOUT_NS);
	for (;;)
		hyp_sched_shutdown(SHUTDOWN_crash);
}

void trap_handle(struct trap_regs *r)
{
	struct vcpu_local *self = vcpu_self();

	/* A fault while reporting a fault: stop without more output. */
	if (++self->trap_depth > 1)
		for (;;)
			hyp_sched_shutdown(SHUTDOWN_crash);
	printk_enter_panic_mode();

	printk(KERN_EMERG
	       "smpalt: fatal exception %lu (%s), error code %#lx, on vCPU %u\n",
	       (unsigned long)r->vector, trap_name(r->vector),
	       (unsigned long)r->error_code, self->id);
	if (r->vector == 14) {
		unsigned long cr2 =
			hyp_pvh ? pvh_read_cr2() : vcpu_info_self()->arch.cr2;

		printk(KERN_EMERG "CR2: %016lx (%s, %s, %s)\n", cr2,
		       r->error_code & PF_PRESENT ? "protection"
						  : "not present",
		       r->error_code & PF_WRITE ? "write" : "read",
		       r->error_code & PF_INSN ? "fetch" : "data");
	}
	printk(KERN_EMERG "RIP: %04lx:%016lx RSP: %04lx:%016lx RFLAGS: %08lx\n",
	       (unsigned long)r->cs, (unsigned long)r->rip,
	       (unsigned long)r->ss, (unsigned long)r->rsp,
	       (unsigned long)r->rflags);
	printk(KERN_EMERG "RAX: %016lx RBX: %016lx RCX: %016lx\n",
	       (unsigned long)r->rax, (unsigned long)r->rbx,
	       (unsigned long)r->rcx);
	printk(KERN_EMERG "RDX: %016lx RSI: %016lx RDI: %016lx\n",
	       (unsigned long)r->rdx, (unsigned long)r->rsi,
	       (unsigned long)r->rdi);
	printk(KERN_EMERG "RBP: %016lx R8:  %016lx R9:  %016lx\n",
	       (unsigned long)r->rbp, (unsigned long)r->r8,
	       (unsigned long)r->r9);
	printk(KERN_EMERG "R10: %016lx R11: %016lx R12: %016lx\n",
	       (unsigned long)r->r10, (unsigned long)r->r11,
	       (unsigned long)r->r12);
	printk(KERN_EMERG "R13: %016lx R14: %016lx R15: %016lx\n",
	       (unsigned long)r->r13, (unsigned long)r->r14,
	       (unsigned long)r->r15);
	trap_print_address(r->rip, " (faulting instruction)");
	trap_print_backtrace(r->rbp);
	trap_die();
}

void trap_failsafe(void)
{
	printk_enter_panic_mode();
	printk(KERN_EMERG
	       "smpalt: failsafe callback on vCPU %u: Xen could not restore a segment register\n",
	       vcpu_id());
	trap_die();
}

/* panic()'s halt: the backtrace from its frame, then a crash shutdown. */
static void __noreturn trap_panic_halt(uintptr_t rbp)
{
	trap_print_backtrace(rbp);
	hyp_shutdown(SHUTDOWN_crash, "crash");
}

void traps_boot_init(void)
{
	panic_set_halt(trap_panic_halt);
}
