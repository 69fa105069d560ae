/* SPDX-License-Identifier: MIT */
/*
 * kernel.h - small helpers every part of the guest uses.
 */
#ifndef SMPALT_KERNEL_H
#define SMPALT_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ALIGN_UP(x, a) (((x) + (a)-1) & ~((__typeof__(x))(a)-1))
#define ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a)-1))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr)-offsetof(type, member)))

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#define __noreturn __attribute__((noreturn))
#define __unused __attribute__((unused))
#define __aligned(n) __attribute__((aligned(n)))
#define __section(s) __attribute__((section(s)))
#define __printf(a, b) __attribute__((format(printf, a, b)))

#define NSEC_PER_USEC 1000ULL
#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_SEC 1000000000ULL

#endif /* SMPALT_KERNEL_H */
