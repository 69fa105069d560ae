/* SPDX-License-Identifier: MIT */
/*
 * alt_host.h - run the alternatives engine on a host program's own text:
 * tables from the bounds in host.ld, a write callback that stores into
 * the text after alt_host_unlock_text() made it writable, counters.
 */
#ifndef SMPALT_ALT_HOST_H
#define SMPALT_ALT_HOST_H

#include <stddef.h>
#include <stdint.h>

#include <smpalt/alt_core.h>

struct alt_host_ctx {
	size_t writes;	   /* write callback calls */
	size_t bytes;	   /* bytes written */
	size_t serializes; /* serialize callback calls */
	int fail_at_write; /* >0: that call (1-based) returns fail_err */
	int fail_err;
};

/* This program's own tables (records emitted into its text). */
struct alt_tables alt_host_tables(void);

/* Make [__alt_text_start, __alt_text_end) writable (and executable). */
void alt_host_unlock_text(void);

/* Ops that write with memcpy and count into ctx. */
struct alt_ops alt_host_ops(struct alt_host_ctx *ctx);

/* Size of the program's text and a copy of it (caller frees). */
size_t alt_host_text_size(void);
uint8_t *alt_host_text_copy(void);

/* Address of the program's text. */
uint8_t *alt_host_text(void);

/* Monotonic clock in nanoseconds. */
uint64_t alt_host_now_ns(void);

#endif /* SMPALT_ALT_HOST_H */
