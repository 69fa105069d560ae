// SPDX-License-Identifier: MIT
/*
 * status.c - data/smpalt/ (what dom0 tools read) and control/smpalt/
 * (what they ask).  Relative xenstore paths are under the guest's home,
 * /local/domain/<domid>/.
 */
#define pr_fmt(fmt) "smpalt: " fmt

#include <smpalt/status.h>
#include <smpalt/errno.h>
#include <smpalt/printk.h>
#include <smpalt/watch.h>
#include <smpalt/xenstore.h>

#include <stdarg.h>

/*
 * data/smpalt/version: the version of the interface under data/smpalt and
 * control/smpalt (docs/xenstore.md), raised when a key changes meaning or
 * goes away; new keys alone do not raise it.
 */
#define STATUS_INTERFACE_VERSION 1u

/* Longest key path and value we publish. */
#define STATUS_PATH_MAX 64
#define STATUS_VALUE_MAX 128

int status_publish(const char *key, const char *fmt, ...)
{
	char path[STATUS_PATH_MAX], value[STATUS_VALUE_MAX];
	va_list ap;

	snprintf(path, sizeof(path), STATUS_DIR "/%s", key);
	va_start(ap, fmt);
	vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	/* The client logs failures itself, naming the key. */
	return xenstore_write(XS_TRANSACTION_NONE, path, value);
}

static const struct watch status_watch = {
	.path = CONTROL_DIR,
	.handle = status_handle_control,
};

int status_init(void)
{
	/* Once at boot; a failure is logged by the client and harms nothing. */
	status_publish("version", "%u", STATUS_INTERFACE_VERSION);
	return watch_add(&status_watch);
}

void status_handle_control(const char *path)
{
	char value[STATUS_VALUE_MAX];
	int rc;

	/* echo: a liveness probe for dom0, copied to data/smpalt/echo. */
	rc = xenstore_read(XS_TRANSACTION_NONE, CONTROL_DIR "/echo", value,
			   sizeof(value));
	(void)path; /* echo is the only key read here */
	if (rc == -ENOENT)
		return; /* not asked for: nothing to do */
	if (rc < 0)
		return; /* logged by the client */
	if (!status_publish("echo", "%s", value))
		pr_info("echo %s\n", value);
}
