/* SPDX-License-Identifier: MIT */
/* tools/scale_backend.h: how the autoscaler changes a domain's vCPU count. */
#ifndef SMPALT_SCALE_BACKEND_H
#define SMPALT_SCALE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

struct scale_backend {
	const char *name; /* "xl", "libvirt": for logs */
	/* Does this backend manage the domain? NULL: every domain. */
	bool (*manages)(struct scale_backend *b, const char *name,
			unsigned int domid);
	/* Start setting the live vCPU count of the domain to n. 0 or -errno;
	 * *done is set true when the change completed synchronously. */
	int (*set_vcpus)(struct scale_backend *b, const char *name,
			 unsigned int domid, unsigned int n, bool *done);
	void (*close)(struct scale_backend *b);
	void *priv;
	/* Optional; NULL: every change completes within set_vcpus.  How a
	 * change started on domid without *done goes: 1 while it runs, 0
	 * once it succeeded, -errno once it failed (msg, if not NULL, says
	 * how); block: wait for its end first. */
	int (*poll)(struct scale_backend *b, unsigned int domid, bool block,
		    char *msg, size_t msglen);
};

/* Provided by tools/backend_xl.c: `xl vcpu-set DOMID N` run in the
 * background (with -i, which lets a domain exceed the host's physical
 * CPUs, when ignore_host).  xl is the program to run.  NULL on ENOMEM. */
struct scale_backend *scale_backend_xl_open(const char *xl, bool ignore_host);

/* Provided by tools/backend_libvirt.c (built only with libvirt-dev):
 * connect to uri ("xen:///system" or remote), NULL with a message in err. */
struct scale_backend *scale_backend_libvirt_open(const char *uri, char *err,
						 size_t errlen);

#endif /* SMPALT_SCALE_BACKEND_H */
