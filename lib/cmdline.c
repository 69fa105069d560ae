// SPDX-License-Identifier: MIT
/*
 * cmdline.c - options from start_info->cmd_line ("key=value key2").
 */
#include <smpalt/cmdline.h>
#include <smpalt/errno.h>
#include <smpalt/hypervisor.h>
#include <smpalt/string.h>

const char *cmdline_get(void)
{
	const char *s = (const char *)hyp_start_info->cmd_line;

	/* Xen terminates it within MAX_GUEST_CMDLINE; be safe anyway. */
	if (strnlen(s, MAX_GUEST_CMDLINE) == MAX_GUEST_CMDLINE)
		return "";
	return s;
}

/* Find key as a whole word; *val points at its value ("" if none). */
static int cmdline_find(const char *key, const char **val, size_t *vlen)
{
	const char *p = cmdline_get();
	size_t klen = strlen(key);

	while (*p) {
		const char *w = p, *end;

		while (*w == ' ')
			w++;
		end = w;
		while (*end && *end != ' ')
			end++;
		if ((size_t)(end - w) >= klen && !strncmp(w, key, klen) &&
		    (w + klen == end || w[klen] == '=')) {
			const char *v = w + klen;

			if (*v == '=')
				v++;
			*val = v;
			*vlen = (size_t)(end - v);
			return 0;
		}
		p = end;
	}
	return -ENOENT;
}

int cmdline_get_str(const char *key, char *buf, size_t size)
{
	const char *v;
	size_t len;
	int rc = cmdline_find(key, &v, &len);

	if (rc)
		return rc;
	if (len + 1 > size)
		return -E2BIG;
	memcpy(buf, v, len);
	buf[len] = '\0';
	return 0;
}

int cmdline_get_ulong(const char *key, unsigned long *val)
{
	const char *v;
	char *end;
	size_t len;
	int rc = cmdline_find(key, &v, &len);

	if (rc)
		return rc;
	if (!len)
		return -EINVAL;
	*val = strtoul(v, &end, 0);
	return end == v + len ? 0 : -EINVAL;
}

bool cmdline_get_bool(const char *key)
{
	const char *v;
	size_t len;
	unsigned long n;

	if (cmdline_find(key, &v, &len))
		return false;
	if (!len)
		return true;
	return !cmdline_get_ulong(key, &n) && n != 0;
}
