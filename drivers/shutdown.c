// SPDX-License-Identifier: MIT
/*
 * shutdown.c - control/shutdown, the toolstack's request to stop.
 *
 * xl writes "poweroff" or "reboot" (or "suspend", which we do not support)
 * under the guest's home.  We acknowledge by clearing the key (xl waits
 * for that), say why we stop, let the console drain, then ask Xen.
 */
#define pr_fmt(fmt) "smpalt: " fmt

#include <smpalt/shutdown.h>
#include <smpalt/errno.h>
#include <smpalt/hypervisor.h>
#include <smpalt/printk.h>
#include <smpalt/string.h>
#include <smpalt/xenstore.h>

/* Longest request value we accept. */
#define SHUTDOWN_VALUE_MAX 32

static const struct {
	const char *request;
	unsigned int reason;
} shutdown_requests[] = {
	{"poweroff", SHUTDOWN_poweroff},
	{"halt", SHUTDOWN_poweroff},
	{"reboot", SHUTDOWN_reboot},
};

void shutdown_handle_watch(const char *path)
{
	char value[SHUTDOWN_VALUE_MAX];
	size_t i;
	int rc;

	(void)path; /* one key: read it whatever changed */
	rc = xenstore_read(XS_TRANSACTION_NONE, SHUTDOWN_KEY, value,
			   sizeof(value));
	if (rc == -ENOENT || rc == 0)
		return; /* no request (the watch fires once at start) */
	if (rc < 0)
		return; /* logged by the client */

	/* Acknowledge whatever was asked, as Linux does. */
	if (xenstore_write(XS_TRANSACTION_NONE, SHUTDOWN_KEY, ""))
		pr_warn("could not acknowledge %s=%s\n", SHUTDOWN_KEY, value);
	for (i = 0; i < ARRAY_SIZE(shutdown_requests); i++)
		if (!strcmp(value, shutdown_requests[i].request))
			hyp_shutdown(shutdown_requests[i].reason, value);
	pr_warn("ignoring %s=%s\n", SHUTDOWN_KEY, value);
}
