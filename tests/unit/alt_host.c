// SPDX-License-Identifier: MIT
/*
 * alt_host.c - host stand-ins for what the guest does around the engine:
 * the text is made writable once with mprotect (the guest maps a temporary
 * writable alias instead), writes are memcpy, serialization flushes the
 * instruction cache (a no-op on x86, kept for the contract).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "alt_host.h"

struct alt_tables alt_host_tables(void)
{
	struct alt_tables t = ALT_TABLES_FROM_LINKER;

	return t;
}

void alt_host_unlock_text(void)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)__alt_text_start & ~(page - 1);
	uintptr_t end = ((uintptr_t)__alt_text_end + page - 1) & ~(page - 1);

	if (mprotect((void *)start, end - start,
		     PROT_READ | PROT_WRITE | PROT_EXEC)) {
		perror("alt_host: mprotect text writable");
		exit(EXIT_FAILURE);
	}
}

static int alt_host_write(void *ctx, uintptr_t addr, const void *bytes,
			  size_t len)
{
	struct alt_host_ctx *c = ctx;

	c->writes++;
	if (c->fail_at_write > 0 && (size_t)c->fail_at_write == c->writes)
		return c->fail_err;
	memcpy((void *)addr, bytes, len);
	c->bytes += len;
	return 0;
}

static void alt_host_serialize(void *ctx)
{
	struct alt_host_ctx *c = ctx;

	c->serializes++;
	__builtin___clear_cache((char *)__alt_text_start,
				(char *)__alt_text_end);
}

struct alt_ops alt_host_ops(struct alt_host_ctx *ctx)
{
	struct alt_ops ops = {
		.write = alt_host_write,
		.serialize = alt_host_serialize,
		.ctx = ctx,
	};

	return ops;
}

size_t alt_host_text_size(void)
{
	return (size_t)(__alt_text_end - __alt_text_start);
}

uint8_t *alt_host_text(void)
{
	return (uint8_t *)__alt_text_start;
}

uint8_t *alt_host_text_copy(void)
{
	uint8_t *copy = malloc(alt_host_text_size());

	if (!copy) {
		perror("alt_host: text copy");
		exit(EXIT_FAILURE);
	}
	memcpy(copy, __alt_text_start, alt_host_text_size());
	return copy;
}

uint64_t alt_host_now_ns(void)
{
	struct timespec ts;
	const uint64_t ns_per_s = 1000000000ull;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * ns_per_s + (uint64_t)ts.tv_nsec;
}
