/* SPDX-License-Identifier: MIT */
/* tools/scale_backend.h: how the autoscaler changes a domain's vCPU count. */
#ifndef SMPALT_SCALE_BACKEND_H
#define SMPALT_SCALE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The domain a call is about: its domid, and its UUID when known. */
struct scale_domain {
	const char *name; /* the toolstack's: for messages only */
	const char *uuid; /* "xxxxxxxx-xxxx-...", or "" when not known */
	unsigned int domid;
};

struct scale_backend {
	const char *name; /* "xl", "libvirt": for logs */
	/* Does this backend manage the domain?  1 yes, 0 no, -errno when it
	 * cannot tell now (its service is down: ask again later).  NULL:
	 * every domain. */
	int (*manages)(struct scale_backend *b, const struct scale_domain *d);
	/* Start setting the live vCPU count of the domain to n. 0 or -errno;
	 * *done is set true when the change completed synchronously. */
	int (*set_vcpus)(struct scale_backend *b, const struct scale_domain *d,
			 unsigned int n, bool *done);
	/* Ends whatever still runs (killed), then frees b. */
	void (*close)(struct scale_backend *b);
	void *priv;
	/* Optional; NULL: every change completes within set_vcpus.  How a
	 * change started on domid without *done goes: 1 while it runs, 0
	 * once it succeeded, -errno once it failed (msg, if not NULL, says
	 * how): -ETIMEDOUT when it ran past the backend's timeout and was
	 * killed.  Waits at most wait_ms for its end; kill: a change still
	 * running then is killed (-ECANCELED). */
	int (*poll)(struct scale_backend *b, unsigned int domid,
		    uint64_t wait_ms, bool kill, char *msg, size_t msglen);
};

/* Provided by tools/backend_xl.c: `xl vcpu-set DOMID N` run in the
 * background (with -i, which lets a domain exceed the host's physical
 * CPUs, when ignore_host), killed after timeout_ms.  xl is the program
 * to run.  NULL on ENOMEM. */
struct scale_backend *scale_backend_xl_open(const char *xl, bool ignore_host,
					    uint64_t timeout_ms);

/* Provided by tools/backend_libvirt.c (built only with libvirt-dev):
 * connect to uri ("xen:///system" or remote), NULL with a message in err.
 * Domains are looked up by UUID (by domid when it is not known), and the
 * domain found must have the domid asked for.  A libvirt call that takes
 * longer than timeout_ms fails with -ETIMEDOUT (and is abandoned). */
struct scale_backend *scale_backend_libvirt_open(const char *uri,
						 uint64_t timeout_ms, char *err,
						 size_t errlen);

#endif /* SMPALT_SCALE_BACKEND_H */
