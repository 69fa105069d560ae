// SPDX-License-Identifier: MIT
/*
 * autoscale_csv.c - escaped CSV cells and rows, and the CSV file.
 * See autoscale_csv.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "autoscale_csv.h"

#define MS_PER_SEC 1000

/* First characters a spreadsheet takes as the start of a formula. */
static bool starts_formula(const char *v)
{
	return v[0] && strchr("=+-@\t\r", v[0]);
}

/* Steps 1 and 2 of the header: the cell's text before quoting. */
static void cell_escape(struct as_text *t, const char *value)
{
	if (starts_formula(value))
		as_text_puts(t, "'");
	as_text_add_escaped(t, value);
}

void as_csv_cell(struct as_text *t, const char *value)
{
	struct as_text e = AS_TEXT_INIT;
	char *s;

	as_text_puts(&e, "");
	cell_escape(&e, value);
	s = as_text_take(&e, NULL);
	if (!s) {
		/* Pass the failure on: t's later take returns NULL. */
		as_text_free(t);
		t->failed = true;
		return;
	}
	if (!starts_formula(value) && !strpbrk(s, ",\"")) {
		as_text_puts(t, s);
	} else {
		as_text_puts(t, "\"");
		for (const char *p = s; *p; p++)
			as_text_add(t, *p == '"' ? "\"\"" : p,
				    *p == '"' ? 2 : 1);
		as_text_puts(t, "\"");
	}
	free(s);
}

static void csv_uint(struct as_text *t, bool has, unsigned long long v)
{
	as_text_puts(t, ",");
	if (has)
		as_text_printf(t, "%llu", v);
}

static void csv_ms(struct as_text *t, uint64_t ms)
{
	as_text_printf(t, "%" PRIu64 ".%03u", ms / MS_PER_SEC,
		       (unsigned int)(ms % MS_PER_SEC));
}

char *as_csv_format(const struct as_csv_row *r)
{
	struct as_text t = AS_TEXT_INIT;

	csv_ms(&t, r->elapsed_ms);
	as_text_puts(&t, ",");
	as_csv_cell(&t, r->name);
	csv_uint(&t, r->has_load, r->load);
	csv_uint(&t, true, r->vcpus);
	as_text_puts(&t, ",");
	as_csv_cell(&t, r->mode);
	csv_uint(&t, r->has_tput, r->tput);
	as_text_puts(&t, ",");
	csv_ms(&t, r->unix_ms);
	csv_uint(&t, true, r->domid);
	as_text_puts(&t, ",");
	as_csv_cell(&t, r->signal);
	csv_uint(&t, r->has_guest, r->guest);
	csv_uint(&t, r->has_xen, r->xen);
	csv_uint(&t, r->has_guest_online, r->guest_online);
	as_text_puts(&t, "\n");
	return as_text_take(&t, NULL);
}

/* The open file at path, checked and with its header: fd or -errno. */
static int csv_open_fd(const char *path)
{
	static const char header[] = AS_CSV_HEADER "\n";
	struct stat st;
	int fd, err;

	/*
	 * O_NONBLOCK: a FIFO planted at path must not hang the open; it is
	 * refused below and the flag is dropped for the regular file.
	 */
	fd = open(path,
		  O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW |
			  O_NOCTTY | O_NONBLOCK,
		  AS_CSV_MODE);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		err = -errno;
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		err = -EINVAL;
		goto fail;
	}
	if (fcntl(fd, F_SETFL, O_APPEND) < 0) {
		err = -errno;
		goto fail;
	}
	if (st.st_size == 0) {
		err = as_write_all(fd, header, sizeof(header) - 1);
		if (err)
			goto fail;
	}
	return fd;
fail:
	close(fd);
	return err;
}

int as_csv_open(struct as_csv_file *f, const char *path)
{
	int fd;

	f->fd = -1;
	f->path = strdup(path);
	if (!f->path)
		return -ENOMEM;
	fd = csv_open_fd(path);
	if (fd < 0) {
		free(f->path);
		f->path = NULL;
		return fd;
	}
	f->fd = fd;
	return 0;
}

int as_csv_reopen(struct as_csv_file *f)
{
	int fd;

	if (!f->path)
		return -EBADF;
	fd = csv_open_fd(f->path);
	if (fd < 0)
		return fd;
	if (f->fd >= 0)
		close(f->fd);
	f->fd = fd;
	return 0;
}

int as_csv_write(struct as_csv_file *f, const char *buf, size_t len)
{
	if (f->fd < 0)
		return -EBADF;
	return as_write_all(f->fd, buf, len);
}

void as_csv_close(struct as_csv_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	free(f->path);
	f->fd = -1;
	f->path = NULL;
}
