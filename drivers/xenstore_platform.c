// SPDX-License-Identifier: MIT
/*
 * xenstore_platform.c - what the xenstore client needs from the kernel.
 *
 * The xenstore port has no handler: the upcall clears its pending bit
 * (locked) and latches it; xenstore_platform_wait() blocks vCPU 0 until the
 * latch is set.  The client reads the ring only after that, so its view
 * is at least as new as the event.
 */
#include <smpalt/xenstore.h>
#include <smpalt/evtchn.h>
#include <smpalt/hypercall.h>
#include <smpalt/printk.h>

#include <stdarg.h>

void xenstore_platform_notify(evtchn_port_t port)
{
	evtchn_send(port);
}

void xenstore_platform_wait(evtchn_port_t port)
{
	evtchn_wait(port, 0);
}

void xenstore_platform_log(const char *fmt, ...)
{
	char line[PRINTK_LINE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	pr_err("%s\n", line);
}

void xenstore_platform_warn(const char *fmt, ...)
{
	char line[PRINTK_LINE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	pr_warn("%s\n", line);
}
