/* SPDX-License-Identifier: MIT */
/*
 * notes.S - the Xen ELF notes that make this image a PV kernel and a PVH
 * kernel to the domain builder.  Name "Xen", numeric values as 8-byte
 * quads.  A PV domain starts at ENTRY (virtual, long mode); a PVH domain
 * at PHYS32_ENTRY (physical, 32-bit protected mode, pvh_head.S), and its
 * loader ignores VIRT_BASE and PADDR_OFFSET: segments go to p_paddr.
 * Without LOADER, or with a high link address and no VIRT_BASE, xl
 * refuses the image ("no loader found").
 */
#include <xen/elfnote.h>
#include <smpalt/layout.h>

#define XEN_NOTE(type, body)						\
	.pushsection .note.Xen, "a", @note;				\
	.balign 4;							\
	.long 2f - 1f;		/* namesz */				\
	.long 4f - 3f;		/* descsz */				\
	.long type;							\
1:	.asciz "Xen";							\
2:	.balign 4;							\
3:	body;								\
4:	.balign 4;							\
	.popsection

XEN_NOTE(XEN_ELFNOTE_GUEST_OS, .asciz "smpalt")
XEN_NOTE(XEN_ELFNOTE_GUEST_VERSION, .asciz "0.1")
XEN_NOTE(XEN_ELFNOTE_XEN_VERSION, .asciz "xen-3.0")
XEN_NOTE(XEN_ELFNOTE_LOADER, .asciz "generic")
XEN_NOTE(XEN_ELFNOTE_VIRT_BASE, .quad SMPALT_VIRT_BASE)
/* Physical = virtual - VIRT_BASE: the image is loaded at SMPALT_LOAD_PADDR. */
XEN_NOTE(XEN_ELFNOTE_PADDR_OFFSET, .quad 0)
XEN_NOTE(XEN_ELFNOTE_ENTRY, .quad _start)
XEN_NOTE(XEN_ELFNOTE_HYPERCALL_PAGE, .quad hypercall_page)
XEN_NOTE(XEN_ELFNOTE_PHYS32_ENTRY, .quad pvh_start32 - SMPALT_VIRT_BASE)
