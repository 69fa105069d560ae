/*
 * smpalt-xs: read or write one xenstore key from inside a Linux PV domU,
 * through the kernel's /dev/xen/xenbus (every Xen guest has it), for the
 * busybox initramfs of scripts/build/mk-linux-smpalt-domu.sh, which links it
 * statically. A relative path is under the domain's own home.
 *
 *   smpalt-xs read KEY          prints the value and a newline
 *   smpalt-xs write KEY VALUE
 *
 * Exit status 0, or 1 with the error on stderr (xenstored's word, e.g.
 * ENOENT, or the system call's).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xen/io/xs_wire.h>

#define XENBUS_DEV "/dev/xen/xenbus"

static int xs_fail(const char *what, const char *why)
{
	fprintf(stderr, "smpalt-xs: %s: %s\n", what, why);
	return 1;
}

/* Read exactly len bytes; 0 or -1. */
static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;
	ssize_t n;

	while (len > 0) {
		n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * One request of type with the payload a (and b, when not NULL, after a's
 * terminating NUL); the reply's payload into reply, NUL-terminated.
 */
static int xs_request(uint32_t type, const char *a, const char *b,
		      char *reply, size_t reply_size)
{
	char msg[sizeof(struct xsd_sockmsg) + XENSTORE_PAYLOAD_MAX];
	struct xsd_sockmsg hdr = { .type = type, .req_id = 1 };
	size_t la = strlen(a) + 1, lb = b ? strlen(b) : 0;
	int fd, ret = 1;

	if (la + lb > XENSTORE_PAYLOAD_MAX)
		return xs_fail(a, "request too long");
	hdr.len = (uint32_t)(la + lb);
	memcpy(msg, &hdr, sizeof(hdr));
	memcpy(msg + sizeof(hdr), a, la);
	if (b)
		memcpy(msg + sizeof(hdr) + la, b, lb);

	fd = open(XENBUS_DEV, O_RDWR);
	if (fd < 0)
		return xs_fail(XENBUS_DEV, strerror(errno));
	/* The device takes one whole message per write. */
	if (write(fd, msg, sizeof(hdr) + hdr.len) != (ssize_t)(sizeof(hdr) + hdr.len)) {
		xs_fail(a, strerror(errno));
		goto out;
	}
	if (read_all(fd, &hdr, sizeof(hdr)) || hdr.len >= reply_size ||
	    read_all(fd, reply, hdr.len)) {
		xs_fail(a, "short or oversized reply");
		goto out;
	}
	reply[hdr.len] = '\0';
	if (hdr.type == XS_ERROR) {
		xs_fail(a, reply);
		goto out;
	}
	ret = 0;
out:
	close(fd);
	return ret;
}

int main(int argc, char **argv)
{
	char reply[XENSTORE_PAYLOAD_MAX + 1];

	if (argc == 3 && !strcmp(argv[1], "read")) {
		if (xs_request(XS_READ, argv[2], NULL, reply, sizeof(reply)))
			return 1;
		printf("%s\n", reply);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "write"))
		return xs_request(XS_WRITE, argv[2], argv[3], reply,
				  sizeof(reply));
	fprintf(stderr, "usage: smpalt-xs read KEY | write KEY VALUE\n");
	return 2;
}
