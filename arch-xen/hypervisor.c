// SPDX-License-Identifier: MIT
/*
 * hypervisor.c - what Xen handed us at boot, and what the guest asks of
 * Xen itself: the emergency console before the PV console is up, and the
 * shutdown.
 */
#define pr_fmt(fmt) "smpalt: " fmt

#include <smpalt/hypervisor.h>
#include <smpalt/errno.h>
#include <smpalt/guest_ops.h>
#include <smpalt/hypercall.h>
#include <smpalt/printk.h>
#include <smpalt/string.h>

#include <xen/errno.h>

/* start_info magic for a 64-bit PV guest starts with this. */
#define HYP_MAGIC_PREFIX "xen-3.0-x86_64"

start_info_t *hyp_start_info;
shared_info_t *hyp_shared_info;
bool hyp_auto_translated;
const struct guest_ops *guest_ops;
unsigned int hyp_version_major, hyp_version_minor;

/* A hypercall's -errno passes up unchanged: Xen's numbers are ours. */
#define HYP_SAME_ERRNO(e) _Static_assert(e == XEN_##e, "errno " #e)
HYP_SAME_ERRNO(EPERM);
HYP_SAME_ERRNO(ENOENT);
HYP_SAME_ERRNO(ESRCH);
HYP_SAME_ERRNO(EIO);
HYP_SAME_ERRNO(ENXIO);
HYP_SAME_ERRNO(E2BIG);
HYP_SAME_ERRNO(ENOEXEC);
HYP_SAME_ERRNO(EBADF);
HYP_SAME_ERRNO(ECHILD);
HYP_SAME_ERRNO(EAGAIN);
HYP_SAME_ERRNO(ENOMEM);
HYP_SAME_ERRNO(EACCES);
HYP_SAME_ERRNO(EFAULT);
HYP_SAME_ERRNO(EBUSY);
HYP_SAME_ERRNO(EEXIST);
HYP_SAME_ERRNO(EXDEV);
HYP_SAME_ERRNO(ENODEV);
HYP_SAME_ERRNO(ENOTDIR);
HYP_SAME_ERRNO(EISDIR);
HYP_SAME_ERRNO(EINVAL);
HYP_SAME_ERRNO(ENFILE);
HYP_SAME_ERRNO(EMFILE);
HYP_SAME_ERRNO(ENOSPC);
HYP_SAME_ERRNO(EROFS);
HYP_SAME_ERRNO(EMLINK);
HYP_SAME_ERRNO(EDOM);
HYP_SAME_ERRNO(ERANGE);
HYP_SAME_ERRNO(EDEADLK);
HYP_SAME_ERRNO(ENAMETOOLONG);
HYP_SAME_ERRNO(ENOLCK);
HYP_SAME_ERRNO(ENOSYS);
HYP_SAME_ERRNO(ENOTEMPTY);
HYP_SAME_ERRNO(ENODATA);
HYP_SAME_ERRNO(ETIME);
HYP_SAME_ERRNO(EBADMSG);
HYP_SAME_ERRNO(EOVERFLOW);
HYP_SAME_ERRNO(EILSEQ);
HYP_SAME_ERRNO(ENOTSOCK);
HYP_SAME_ERRNO(EMSGSIZE);
HYP_SAME_ERRNO(EOPNOTSUPP);
HYP_SAME_ERRNO(EADDRINUSE);
HYP_SAME_ERRNO(EADDRNOTAVAIL);
HYP_SAME_ERRNO(ENOBUFS);
HYP_SAME_ERRNO(EISCONN);
HYP_SAME_ERRNO(ENOTCONN);
HYP_SAME_ERRNO(ETIMEDOUT);
HYP_SAME_ERRNO(ECONNREFUSED);

void hyp_guest_init(const struct guest_ops *ops)
{
	guest_ops = ops;
	hyp_auto_translated = ops->auto_translated;
}

void hyp_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t *a, uint32_t *b,
	       uint32_t *c, uint32_t *d)
{
	guest_ops->cpu.cpuid(leaf, subleaf, a, b, c, d);
}

/* Xen's CPUID leaves: a signature at one of these bases, then the leaves. */
#define HYP_CPUID_BASE_FIRST 0x40000000u
#define HYP_CPUID_BASE_LAST 0x40010000u
#define HYP_CPUID_BASE_STRIDE 0x100u
/* "XenVMMXenVMM" in ebx, ecx, edx. */
#define HYP_CPUID_SIG_B 0x566e6558u
#define HYP_CPUID_SIG_C 0x65584d4du
#define HYP_CPUID_SIG_D 0x4d4d566eu

uint32_t hyp_cpuid_base(uint32_t last_leaf)
{
	uint32_t base, a, b, c, d;

	for (base = HYP_CPUID_BASE_FIRST; base < HYP_CPUID_BASE_LAST;
	     base += HYP_CPUID_BASE_STRIDE) {
		hyp_cpuid(base, 0, &a, &b, &c, &d);
		if (b == HYP_CPUID_SIG_B && c == HYP_CPUID_SIG_C &&
		    d == HYP_CPUID_SIG_D)
			return a >= base + last_leaf ? base : 0;
	}
	return 0;
}

/*
 * Until the PV console is up: Xen's console_io.  A domU's writes land in
 * Xen's own log only on a debug hypervisor (with guest_loglvl=all); a
 * release build refuses them (-EPERM), and then the line is lost, as it
 * would be without any sink.
 */
static void hyp_early_console_write(const char *s, size_t n)
{
	hyp_console_io(CONSOLEIO_write, (unsigned int)n, s);
}

static const struct printk_sink hyp_early_console = {
	.write = hyp_early_console_write,
};

int hyp_boot_init(start_info_t *si)
{
	if (strncmp(si->magic, HYP_MAGIC_PREFIX, strlen(HYP_MAGIC_PREFIX)))
		return -EINVAL;
	hyp_start_info = si;
	printk_set_sink(&hyp_early_console);
	return 0;
}

void __noreturn hyp_shutdown(unsigned int reason, const char *why)
{
	pr_info("shutting down (%s)\n", why);
	if (printk_flush(PRINTK_DRAIN_TIMEOUT_NS))
		pr_warn("console did not drain\n");
	for (;;) {
		long rc = hyp_sched_shutdown(reason);

		/* Only returns on failure; crash is the last resort. */
		pr_err("SCHEDOP_shutdown(%u): %ld\n", reason, rc);
		reason = SHUTDOWN_crash;
	}
}
