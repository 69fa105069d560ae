/* SPDX-License-Identifier: MIT */
/*
 * errno.h - error numbers used inside the guest, returned negated
 * (-EINVAL).  They are Xen's, which are Linux's x86 values, so a hypercall
 * result can be passed up unchanged.
 */
#ifndef SMPALT_ERRNO_H
#define SMPALT_ERRNO_H

#include <xen/errno.h>

#define EPERM XEN_EPERM
#define ENOENT XEN_ENOENT
#define ESRCH XEN_ESRCH
#define EINTR XEN_EINTR
#define EIO XEN_EIO
#define ENXIO XEN_ENXIO
#define E2BIG XEN_E2BIG
#define ENOEXEC XEN_ENOEXEC
#define EBADF XEN_EBADF
#define ECHILD XEN_ECHILD
#define EAGAIN XEN_EAGAIN
#define EWOULDBLOCK XEN_EWOULDBLOCK
#define ENOMEM XEN_ENOMEM
#define EACCES XEN_EACCES
#define EFAULT XEN_EFAULT
#define EBUSY XEN_EBUSY
#define EEXIST XEN_EEXIST
#define EXDEV XEN_EXDEV
#define ENODEV XEN_ENODEV
#define ENOTDIR XEN_ENOTDIR
#define EISDIR XEN_EISDIR
#define EINVAL XEN_EINVAL
#define ENFILE XEN_ENFILE
#define EMFILE XEN_EMFILE
#define ENOSPC XEN_ENOSPC
#define EROFS XEN_EROFS
#define EMLINK XEN_EMLINK
#define EDOM XEN_EDOM
#define ERANGE XEN_ERANGE
#define EDEADLK XEN_EDEADLK
#define EDEADLOCK XEN_EDEADLOCK
#define ENAMETOOLONG XEN_ENAMETOOLONG
#define ENOLCK XEN_ENOLCK
#define ENOSYS XEN_ENOSYS
#define ENOTEMPTY XEN_ENOTEMPTY
#define ENODATA XEN_ENODATA
#define ETIME XEN_ETIME
#define EBADMSG XEN_EBADMSG
#define EOVERFLOW XEN_EOVERFLOW
#define EILSEQ XEN_EILSEQ
#define ERESTART XEN_ERESTART
#define ENOTSOCK XEN_ENOTSOCK
#define EMSGSIZE XEN_EMSGSIZE
#define EOPNOTSUPP XEN_EOPNOTSUPP
#define EADDRINUSE XEN_EADDRINUSE
#define EADDRNOTAVAIL XEN_EADDRNOTAVAIL
#define ENOBUFS XEN_ENOBUFS
#define EISCONN XEN_EISCONN
#define ENOTCONN XEN_ENOTCONN
#define ETIMEDOUT XEN_ETIMEDOUT
#define ECONNREFUSED XEN_ECONNREFUSED

/* Name of an error number, for log lines ("ENOENT"); "E?" if unknown. */
const char *errno_name(int err);

#endif /* SMPALT_ERRNO_H */
