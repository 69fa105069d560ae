// SPDX-License-Identifier: MIT
/*
 * cmdline.c - options from the kernel command line ("key=value key2").
 */
#include <smpalt/cmdline.h>
#include <smpalt/errno.h>
#include <smpalt/string.h>

static const char *cmdline_line = "";

void cmdline_init(const char *line, size_t size)
{
	/* Xen terminates it within its buffer; be safe anyway. */
	cmdline_line = strnlen(line, size) < size ? line : "";
}

const char *cmdline_get(void)
{
	return cmdline_line;
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
