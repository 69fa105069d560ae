// SPDX-License-Identifier: MIT
/*
 * errno.c - names of error numbers, for log lines.
 */
#include <smpalt/errno.h>

#include <stddef.h>

const char *errno_name(int err)
{
	static const struct {
		int err;
		const char *name;
	} names[] = {
		{EPERM, "EPERM"},
		{ENOENT, "ENOENT"},
		{EIO, "EIO"},
		{E2BIG, "E2BIG"},
		{EAGAIN, "EAGAIN"},
		{ENOMEM, "ENOMEM"},
		{EACCES, "EACCES"},
		{EFAULT, "EFAULT"},
		{EBUSY, "EBUSY"},
		{EEXIST, "EEXIST"},
		{ENODEV, "ENODEV"},
		{EINVAL, "EINVAL"},
		{ENOSPC, "ENOSPC"},
		{EROFS, "EROFS"},
		{ERANGE, "ERANGE"},
		{ENOSYS, "ENOSYS"},
		{ETIMEDOUT, "ETIMEDOUT"},
	};
	size_t i;

	if (err < 0)
		err = -err;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].err == err)
			return names[i].name;
	return "E?";
}
