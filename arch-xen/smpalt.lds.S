/* SPDX-License-Identifier: MIT */
/*
 * smpalt.lds.S - the guest image (run through the C preprocessor).
 *
 * One PT_LOAD for everything, plus a PT_NOTE for the Xen notes.  Linked at
 * SMPALT_IMAGE_BASE, loaded at physical SMPALT_LOAD_PADDR (AT()).  Kernel text is its own
 * page-aligned range [__text_start, __text_end) so that it can be mapped
 * read-only and patched only through a writable alias; the alternatives
 * tables and replacement bytes are data, outside that range.
 */
#include <smpalt/layout.h>

OUTPUT_FORMAT("elf64-x86-64")
OUTPUT_ARCH(i386:x86-64)
ENTRY(_start)

PHDRS
{
	image PT_LOAD FLAGS(7);		/* RWX: PV page tables decide */
	note PT_NOTE FLAGS(4);
}

#define LMA(sec) AT(ADDR(sec) - SMPALT_VIRT_BASE)

SECTIONS
{
	. = SMPALT_IMAGE_BASE;
	__image_start = .;

	.text : LMA(.text) {
		__text_start = .;
		*(.text.head)
		/* The PVH entry, 32-bit code run at its physical address. */
		*(.text.pvh32)
		. = ALIGN(PAGE_SIZE);
		*(.text.hypercall_page)
		*(.text .text.*)
		. = ALIGN(PAGE_SIZE);
		__text_end = .;
	} :image
	/* The range the alternatives engine may patch (alt_core.h). */
	__alt_text_start = __text_start;
	__alt_text_end = __text_end;

	.rodata : LMA(.rodata) {
		*(.rodata .rodata.*)
		/* The app's init functions (app_hooks.h), in link order. */
		. = ALIGN(8);
		__app_initcall_start = .;
		KEEP(*(.app_initcall))
		__app_initcall_end = .;
	} :image

	.note.Xen : LMA(.note.Xen) {
		__xen_notes_start = .;
		KEEP(*(.note.Xen))
		__xen_notes_end = .;
	} :image :note

	/*
	 * Alternatives: records and replacement bytes, bounded with the
	 * names alt_core.h documents; outside the patchable text.
	 *
	 * The SMP-only part (.smp_locks, .smp_altinstructions,
	 * .smp_altinstr_replacement and the engine's save buffer .smp_save)
	 * fills whole pages of its own, [__smp_tables_start,
	 * __smp_tables_end): when maxvcpus is 1 the guest applies UP once
	 * and hands these pages to the page allocator (text.c).  Nothing
	 * else may live in them.
	 */
	. = ALIGN(PAGE_SIZE);
	__smp_tables_start = .;

	.smp_locks : LMA(.smp_locks) {
		. = ALIGN(4);
		__smp_locks_start = .;
		KEEP(*(.smp_locks))
		__smp_locks_end = .;
	} :image

	.smp_altinstructions : LMA(.smp_altinstructions) {
		__smp_alt_start = .;
		KEEP(*(.smp_altinstructions))
		__smp_alt_end = .;
	} :image

	.smp_altinstr_replacement : LMA(.smp_altinstr_replacement) {
		__smp_alt_repl_start = .;
		KEEP(*(.smp_altinstr_replacement))
		__smp_alt_repl_end = .;
	} :image

	/* text.c's copy of the SMP bytes, for switching back. */
	.smp_save : LMA(.smp_save) {
		KEEP(*(.smp_save))
	} :image

	. = ALIGN(PAGE_SIZE);
	__smp_tables_end = .;

	.altinstructions : LMA(.altinstructions) {
		__alt_start = .;
		KEEP(*(.altinstructions))
		__alt_end = .;
	} :image

	.altinstr_replacement : LMA(.altinstr_replacement) {
		__alt_repl_start = .;
		KEEP(*(.altinstr_replacement))
		__alt_repl_end = .;
	} :image

	/* Lock prefixes that stay locked: shared with Xen (barrier.h). */
	.xen_locks : LMA(.xen_locks) {
		. = ALIGN(4);
		__xen_locks_start = .;
		KEEP(*(.xen_locks))
		__xen_locks_end = .;
	} :image

	.data : LMA(.data) {
		*(.data .data.*)
	} :image

	.bss : LMA(.bss) {
		. = ALIGN(PAGE_SIZE);
		__bss_start = .;
		*(.bss.page_aligned)
		*(.bss .bss.*)
		*(COMMON)
		. = ALIGN(PAGE_SIZE);
		__bss_end = .;
	} :image

	_end = .;

	/DISCARD/ : {
		*(.comment)
		*(.eh_frame)
		*(.note.GNU-stack)
		*(.note.gnu.property)
		*(.note.gnu.build-id)
	}
}

ASSERT(__text_start == SMPALT_IMAGE_BASE, "text must start the image")
ASSERT(hypercall_page == __text_start + PAGE_SIZE,
       "hypercall page: the second text page, page aligned")
ASSERT(__text_end % PAGE_SIZE == 0, "text must end on a page boundary")
ASSERT(__text_end - __text_start <= SMPALT_TEXT_MAX,
       "text must fit the 2 MiB patching alias window")
ASSERT(__xen_notes_end > __xen_notes_start, "Xen ELF notes missing")
ASSERT((__smp_locks_end - __smp_locks_start) % 4 == 0,
       ".smp_locks: 4-byte records")
ASSERT((__smp_alt_end - __smp_alt_start) % 10 == 0,
       ".smp_altinstructions: 10-byte records (alt_records.h)")
ASSERT(__smp_tables_start % PAGE_SIZE == 0 &&
       __smp_tables_end % PAGE_SIZE == 0,
       "SMP tables: whole pages of their own, freed when maxvcpus is 1")
ASSERT(__smp_tables_start >= __text_end,
       "SMP tables: outside the patchable text")
ASSERT(__smp_locks_start >= __smp_tables_start &&
       __smp_alt_repl_end <= __smp_tables_end &&
       ADDR(.smp_save) + SIZEOF(.smp_save) <= __smp_tables_end,
       "SMP tables: every SMP-only section inside the freeable pages")
ASSERT(__alt_start >= __smp_tables_end,
       "feature alternatives must not share the freeable pages")
ASSERT((__alt_end - __alt_start) % 12 == 0,
       ".altinstructions: 12-byte records (alt_records.h)")
ASSERT((__xen_locks_end - __xen_locks_start) % 4 == 0,
       ".xen_locks: 4-byte records")
ASSERT(_end - SMPALT_IMAGE_BASE <= SMPALT_IMAGE_MAX,
       "image must fit inside Xen's initial mapping")
