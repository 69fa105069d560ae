// SPDX-License-Identifier: MIT
/*
 * panic.c - the message, then the halt arch-xen registered.
 */
#define pr_fmt(fmt) "smpalt: " fmt

#include <smpalt/panic.h>
#include <smpalt/printk.h>
#include <smpalt/spinlock.h>

static panic_halt_fn panic_halt;

void panic_set_halt(panic_halt_fn halt)
{
	panic_halt = halt;
}

void __noreturn panic(const char *fmt, ...)
{
	char msg[PRINTK_LINE_MAX];
	va_list ap;

	printk_enter_panic_mode();
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pr_emerg("panic: %s\n", msg);
	if (panic_halt)
		panic_halt((uintptr_t)__builtin_frame_address(0));
	/* No halt registered yet: nothing else we can do safely. */
	for (;;)
		cpu_relax();
}
