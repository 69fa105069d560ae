/* SPDX-License-Identifier: MIT */
/*
 * ksyms.h - the kernel's own function symbols, for backtraces.
 *
 * The table is generated at build time from a first link of the image
 * (mk/guest.mk) and linked into the final one; text addresses are the same
 * in both links because the table lives after the text.
 */
#ifndef SMPALT_KSYMS_H
#define SMPALT_KSYMS_H

#include <stddef.h>
#include <stdint.h>

/* The kernel text [text_start, text_end), from the linker script. */
void ksyms_init(uintptr_t text_start, uintptr_t text_end);

/*
 * Name of the function containing addr and addr's offset in it; NULL if
 * unknown (outside the text, or no table in this link).
 */
const char *ksym_lookup(uintptr_t addr, uintptr_t *offset);

#endif /* SMPALT_KSYMS_H */
