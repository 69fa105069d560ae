/* SPDX-License-Identifier: MIT */
/*
 * alt_errno.h - the error codes the engine returns, negated (-ALT_EINVAL).
 *
 * Their values are Linux's (and Xen's) x86 errno numbers, so -ALT_EINVAL
 * equals -EINVAL both in the guest (include/smpalt/errno.h) and on a Linux host.
 * Own names keep the pure engine free of any errno.h: the guest's pulls in
 * Xen's headers, and the host's must not meet the guest's.
 */
#ifndef SMPALT_ALT_ERRNO_H
#define SMPALT_ALT_ERRNO_H

#define ALT_EINVAL 22	 /* bad record, mismatch, bad argument */
#define ALT_ENOSPC 28	 /* save buffer too small or missing */
#define ALT_EALREADY 114 /* feature alternatives already applied */
#define ALT_ESTALE 116	 /* tables dropped by alt_apply_up_once() */

#endif /* SMPALT_ALT_ERRNO_H */
