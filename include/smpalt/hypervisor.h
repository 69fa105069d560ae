/* SPDX-License-Identifier: MIT */
/*
 * hypervisor.h - what Xen handed the guest at boot: start_info, the
 * shared_info page, and the machine <-> guest frame translations of a PV
 * guest.  Includes the Xen public headers every part of the guest needs.
 *
 * The same image boots as a PVH guest (pvh.c): then the boot facts are
 * presented in start_info's shape (so that the layers above read one
 * structure), and machine frames are guest-physical frames.  What else
 * differs between the kinds is in guest_ops.h, chosen at the entry.
 */
#ifndef SMPALT_HYPERVISOR_H
#define SMPALT_HYPERVISOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <xen/xen.h>
#include <xen/event_channel.h>
#include <xen/sched.h>
#include <xen/vcpu.h>
#include <xen/version.h>
#include <xen/callback.h>

#include <smpalt/layout.h>

/* Set by hyp_boot_init() before anything else runs. */
extern start_info_t *hyp_start_info;
/* Mapped by mm_map_shared_info(); NULL before. */
extern shared_info_t *hyp_shared_info;

/*
 * Xen translates guest frames (a PVH guest): pfn == mfn, no P2M or M2P.
 * Set by hyp_guest_init() from the kind's table.  The frame translations
 * below test it inline, as Linux's pfn_to_mfn() tests
 * XENFEAT_auto_translated_physmap: each is one or two instructions,
 * inlined into loops over every frame (mm.c), where an indirect call
 * through guest_ops would cost more than the translation itself.
 */
extern bool hyp_auto_translated;

struct guest_ops;
/*
 * First thing at either entry (pv_start(), pvh_start()), before any other
 * code of the kernel runs, vCPU 0 only: the kind's primitives become
 * guest_ops (guest_ops.h) and hyp_auto_translated is set.
 */
void hyp_guest_init(const struct guest_ops *ops);

/*
 * PVH: guest-physical memory from 1 GiB to 4 GiB (where the toolstack puts
 * the console and xenstore rings) is mapped here, since the image's own
 * mapping at SMPALT_VIRT_BASE covers only the first GiB less 2 MiB.
 */
#define HYP_PVH_DIRECTMAP 0xffff800000000000UL
#define HYP_PVH_LOW_PAGES (511UL * 512UL) /* frames under SMPALT_VIRT_BASE */
#define HYP_PVH_DIRECTMAP_GIB 4

/*
 * CPUID as Xen lets this guest see it, its own leaves included (PV: with
 * the forced-emulation prefix; PVH: plain, every cpuid exits to Xen).
 */
void hyp_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t *a, uint32_t *b,
	       uint32_t *c, uint32_t *d);

/*
 * The base of Xen's CPUID leaves ("XenVMMXenVMM") if it has at least
 * base + last_leaf, else 0.
 */
uint32_t hyp_cpuid_base(uint32_t last_leaf);

/* Guest frames (pfn) are 0-based from the load address. */
static inline unsigned long hyp_pfn_to_mfn(unsigned long pfn)
{
	if (hyp_auto_translated)
		return pfn;
	return ((const unsigned long *)hyp_start_info->mfn_list)[pfn];
}

static inline unsigned long hyp_mfn_to_pfn(unsigned long mfn)
{
	if (hyp_auto_translated)
		return mfn;
	return machine_to_phys_mapping[mfn];
}

static inline void *hyp_pfn_to_virt(unsigned long pfn)
{
	return (void *)(SMPALT_VIRT_BASE + (pfn << PAGE_SHIFT));
}

static inline unsigned long hyp_virt_to_pfn(const void *va)
{
	return ((uintptr_t)va - SMPALT_VIRT_BASE) >> PAGE_SHIFT;
}

static inline unsigned long hyp_virt_to_mfn(const void *va)
{
	return hyp_pfn_to_mfn(hyp_virt_to_pfn(va));
}

static inline void *hyp_mfn_to_virt(unsigned long mfn)
{
	if (hyp_auto_translated && mfn >= HYP_PVH_LOW_PAGES)
		return (void *)(HYP_PVH_DIRECTMAP + (mfn << PAGE_SHIFT));
	return hyp_pfn_to_virt(hyp_mfn_to_pfn(mfn));
}

/* Xen version as "major.minor", read once at boot. */
extern unsigned int hyp_version_major, hyp_version_minor;

/*
 * First thing at boot, on vCPU 0: check start_info's magic (-EINVAL if it
 * is not a 64-bit PV guest's) and keep it in hyp_start_info, and give
 * printk Xen's emergency console until the PV console replaces it.
 */
int hyp_boot_init(start_info_t *si);

/*
 * Print why, let printk's sink drain (bounded), then SCHEDOP_shutdown
 * with reason (SHUTDOWN_poweroff, _reboot, _crash), retried as a crash if
 * Xen refuses.  Never returns.
 */
void __attribute__((noreturn))
hyp_shutdown(unsigned int reason, const char *why);

#endif /* SMPALT_HYPERVISOR_H */
