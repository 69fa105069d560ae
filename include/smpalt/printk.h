/* SPDX-License-Identifier: MIT */
/*
 * printk.h - formatted output, with Linux-style levels, to the sink the
 * layers above registered (the PV console once it is up).
 *
 *   printk(KERN_ERR "evtchn: bind VIRQ %u failed: %d\n", virq, err);
 *
 * A message without a level is KERN_INFO.  Messages above the console
 * level (CONSOLE_LOGLEVEL_DEFAULT unless "loglevel=N" is on the command
 * line) are dropped.  The level marker is never printed; instead every
 * message of level KERN_ERR or worse starts with PRINTK_ERROR_MARK, which
 * is what dom0's harness reads as the guest's own word for "error"
 * (docs/guest.md, "Log lines").
 *
 * pr_err() and friends put pr_fmt() around their format, as Linux does: a
 * file defines its prefix before its first include,
 *
 *   #define pr_fmt(fmt) "vcpu: " fmt
 *
 * and writes pr_info("vCPU %u online
", id).  Keep a format string on
 * one source line, whatever its length, so that grep finds it.
 */
#ifndef SMPALT_PRINTK_H
#define SMPALT_PRINTK_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <smpalt/kernel.h>

#define KERN_SOH "\001"
#define KERN_EMERG KERN_SOH "0"
#define KERN_ALERT KERN_SOH "1"
#define KERN_CRIT KERN_SOH "2"
#define KERN_ERR KERN_SOH "3"
#define KERN_WARNING KERN_SOH "4"
#define KERN_NOTICE KERN_SOH "5"
#define KERN_INFO KERN_SOH "6"
#define KERN_DEBUG KERN_SOH "7"

#define LOGLEVEL_DEFAULT 6
#define CONSOLE_LOGLEVEL_DEFAULT 6

/* The first bytes of every error-level line (KERN_ERR and worse). */
#define PRINTK_ERROR_MARK "smpalt: ERROR "
#define LOGLEVEL_ERR 3

/* Longest single message; longer ones are cut. */
#define PRINTK_LINE_MAX 256

int printk(const char *fmt, ...) __printf(1, 2);
int vprintk(const char *fmt, va_list ap);
void printk_set_console_level(int level);

/*
 * Where messages go, registered at init by a higher layer: printk itself
 * knows no device.  write() takes one whole message (it serializes writers
 * itself); enter_panic_mode() and flush() may be NULL.
 */
struct printk_sink {
	void (*write)(const char *s, size_t n);
	/* Fatal path: never wait for a lock again (the holder may be dead). */
	void (*enter_panic_mode)(void);
	/* Wait until the output left the guest, up to timeout_ns: 0 or -errno.
	 */
	int (*flush)(uint64_t timeout_ns);
};

/* Replace the sink (the new one gets the messages from now on). */
void printk_set_sink(const struct printk_sink *sink);

/* The sink's enter_panic_mode() and flush(), if it has them (flush: 0). */
void printk_enter_panic_mode(void);
int printk_flush(uint64_t timeout_ns);

/* How long shutdown and crash paths wait for the output to drain. */
#define PRINTK_DRAIN_TIMEOUT_NS (2 * NSEC_PER_SEC)

/*
 * Formatting: %d %i %u %x %X %o %c %s %p %%, with flags '-' '0' ' ' '+',
 * a width (or *), a precision for strings (or .*), and the h hh l ll z t j
 * length modifiers.  Returns the length the whole output would have.
 */
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int snprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);

#ifndef pr_fmt
#define pr_fmt(fmt) fmt
#endif

#define pr_emerg(fmt, ...) printk(KERN_EMERG pr_fmt(fmt), ##__VA_ARGS__)
#define pr_err(fmt, ...) printk(KERN_ERR pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn(fmt, ...) printk(KERN_WARNING pr_fmt(fmt), ##__VA_ARGS__)
#define pr_notice(fmt, ...) printk(KERN_NOTICE pr_fmt(fmt), ##__VA_ARGS__)
#define pr_info(fmt, ...) printk(KERN_INFO pr_fmt(fmt), ##__VA_ARGS__)
#define pr_debug(fmt, ...) printk(KERN_DEBUG pr_fmt(fmt), ##__VA_ARGS__)

#endif /* SMPALT_PRINTK_H */
