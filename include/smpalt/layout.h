/* SPDX-License-Identifier: MIT */
/*
 * layout.h - where the guest image lives, shared by C, assembly and the
 * linker script (which is run through the C preprocessor).
 */
#ifndef SMPALT_LAYOUT_H
#define SMPALT_LAYOUT_H

#include <smpalt/page.h>

/*
 * Guest-physical frame N is mapped at SMPALT_VIRT_BASE + N pages, as a PV
 * guest (VIRT_BASE note, PADDR_OFFSET 0) and as a PVH guest (our own page
 * tables) alike.
 */
#define SMPALT_VIRT_BASE 0xffffffff80000000

/*
 * The image is loaded at this guest-physical address: a PVH domain's
 * loader puts each segment at its physical address, and the first MiB is
 * legacy territory there.  The PV loader fills the frames below with
 * padding (unused RAM).
 */
#define SMPALT_LOAD_PADDR 0x100000
#define SMPALT_IMAGE_BASE (SMPALT_VIRT_BASE + SMPALT_LOAD_PADDR)

/*
 * The image must fit in what Xen maps at boot before we map the rest: Xen
 * maps the image, P2M, start_info, rings and boot page tables, plus 512 KiB,
 * rounded up to 4 MiB.  Keep the image itself well inside the first 4 MiB.
 */
#define SMPALT_IMAGE_MAX (3 << 20)

/*
 * Text is aliased writable, whole, in one 2 MiB window while the patcher
 * runs (mm.c): it must fit in it.
 */
#define SMPALT_TEXT_MAX (2 << 20)

/* Per-vCPU stacks (the boot stack of vCPU 0 included). */
#define VCPU_STACK_SIZE (4 * PAGE_SIZE)

#endif /* SMPALT_LAYOUT_H */
