/* SPDX-License-Identifier: MIT */
/*
 * printk.h - formatted output to the PV console, with Linux-style levels.
 *
 *   printk(KERN_ERR "evtchn: bind VIRQ %u failed: %d\n", virq, err);
 *
 * A message without a level is KERN_INFO.  Messages above the console
 * level (CONSOLE_LOGLEVEL_DEFAULT unless "loglevel=N" is on the command
 * line) are dropped.  The level marker is never printed.
 */
#ifndef SMPALT_PRINTK_H
#define SMPALT_PRINTK_H

#include <stdarg.h>
#include <stddef.h>

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

/* Longest single message; longer ones are cut. */
#define PRINTK_LINE_MAX 256

int printk(const char *fmt, ...) __printf(1, 2);
int vprintk(const char *fmt, va_list ap);
void printk_set_console_level(int level);

/*
 * Formatting: %d %i %u %x %X %o %c %s %p %%, with flags '-' '0' ' ' '+',
 * a width (or *), a precision for strings (or .*), and the h hh l ll z t j
 * length modifiers.  Returns the length the whole output would have.
 */
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int snprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);

#define pr_err(...) printk(KERN_ERR __VA_ARGS__)
#define pr_warn(...) printk(KERN_WARNING __VA_ARGS__)
#define pr_notice(...) printk(KERN_NOTICE __VA_ARGS__)
#define pr_info(...) printk(KERN_INFO __VA_ARGS__)
#define pr_debug(...) printk(KERN_DEBUG __VA_ARGS__)

#endif /* SMPALT_PRINTK_H */
