/* SPDX-License-Identifier: MIT */
/*
 * errno.h - error numbers used inside the guest, returned negated
 * (-EINVAL).
 *
 * The values are Linux's x86 ones, written the way Linux's own headers
 * write them, which are Xen's too (<xen/errno.h>; arch-xen/hypervisor.c
 * checks that at build time): a hypercall's result passes up unchanged,
 * and a guest file compiled on a Linux host for its tests (the engine,
 * the xenstore client, the hotplug planner, the profiles) may include
 * this header beside the C library's <errno.h> without a conflict.
 */
#ifndef SMPALT_ERRNO_H
#define SMPALT_ERRNO_H

#define EPERM 1
#define ENOENT 2
#define ESRCH 3
#define EINTR 4
#define EIO 5
#define ENXIO 6
#define E2BIG 7
#define ENOEXEC 8
#define EBADF 9
#define ECHILD 10
#define EAGAIN 11
#define ENOMEM 12
#define EACCES 13
#define EFAULT 14
#define EBUSY 16
#define EEXIST 17
#define EXDEV 18
#define ENODEV 19
#define ENOTDIR 20
#define EISDIR 21
#define EINVAL 22
#define ENFILE 23
#define EMFILE 24
#define ENOSPC 28
#define EROFS 30
#define EMLINK 31
#define EDOM 33
#define ERANGE 34
#define EDEADLK 35
#define ENAMETOOLONG 36
#define ENOLCK 37
#define ENOSYS 38
#define ENOTEMPTY 39
#define EWOULDBLOCK EAGAIN
#define ENODATA 61
#define ETIME 62
#define EBADMSG 74
#define EOVERFLOW 75
#define EILSEQ 84
#define ERESTART 85
#define ENOTSOCK 88
#define EMSGSIZE 90
#define EOPNOTSUPP 95
#define EADDRINUSE 98
#define EADDRNOTAVAIL 99
#define ENOBUFS 105
#define EISCONN 106
#define ENOTCONN 107
#define ETIMEDOUT 110
#define ECONNREFUSED 111
#define EALREADY 114
#define ESTALE 116

/* Name of an error number, for log lines ("ENOENT"); "E?" if unknown. */
const char *errno_name(int err);

#endif /* SMPALT_ERRNO_H */
