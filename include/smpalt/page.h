/* SPDX-License-Identifier: MIT */
/*
 * page.h - the page size (x86-64: 4 KiB), for every layer, C and assembly
 * alike (the linker script is run through the C preprocessor too).
 */
#ifndef SMPALT_PAGE_H
#define SMPALT_PAGE_H

#define PAGE_SHIFT 12
#define PAGE_SIZE (1 << PAGE_SHIFT)

#endif /* SMPALT_PAGE_H */
