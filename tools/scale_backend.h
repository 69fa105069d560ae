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
};

/* Provided by tools/backend_libvirt.c (built only with libvirt-dev):
 * connect to uri ("xen:///system" or remote), NULL with a message in err. */
struct scale_backend *scale_backend_libvirt_open(const char *uri, char *err,
						  size_t errlen);

#endif /* SMPALT_SCALE_BACKEND_H */
