// SPDX-License-Identifier: MIT
/*
 * pvh.c - booting the same kernel as a PVH guest.
 *
 * pvh_head.S brings vCPU 0 to long mode at the link address and calls
 * pvh_start() with the guest-physical address of struct hvm_start_info.
 * Here: the hypercall page (through Xen's MSR), the mappings the PV
 * domain builder would have made (none of the identity map stays; the
 * rings above 1 GiB get a direct map), and the boot facts (memory size,
 * command line, xenstore and console rings and ports from the HVM
 * parameters) presented in start_info's shape, which the kernel reads as
 * it does on PV.  Then the shared start_kernel().
 */
#include <smpalt/pvh.h>
#include <smpalt/hypercall.h>
#include <smpalt/hypervisor.h>
#include <smpalt/kernel.h>
#include <smpalt/x86.h>
#include <smpalt/string.h>

#include <xen/arch-x86/hvm/start_info.h>

/* Xen's CPUID leaf with the hypercall page MSR (ebx). */
#define PVH_XEN_LEAF_HYPERCALL 2
/* What the PV domain builder writes into start_info's magic. */
#define PVH_START_INFO_MAGIC "xen-3.0-x86_64"
#define PVH_DIRECTMAP_L4_SLOT PT_INDEX(HYP_PVH_DIRECTMAP, L4_SHIFT)
#define PVH_PTE_LARGE (PTE_KERNEL_RW | PTE_PSE)
#define PVH_PTE_TABLE (PTE_KERNEL_RW)

/* The image's end (smpalt.lds.S). */
extern char _end[];

/* The first frame after the image and everything the loader put after it. */
unsigned long pvh_first_free_pfn;

void __noreturn start_kernel(start_info_t *si);

/* The boot facts, in the shape a PV guest gets them. */
static start_info_t pvh_start_info;

/* The direct map of [1 GiB, 4 GiB): one L3, an L2 of 2 MiB pages per GiB. */
static uint64_t pvh_dm_l3[PT_ENTRIES] __aligned(PAGE_SIZE)
	__section(".bss.page_aligned");
static uint64_t
	pvh_dm_l2[HYP_PVH_DIRECTMAP_GIB][PT_ENTRIES] __aligned(PAGE_SIZE)
		__section(".bss.page_aligned");

/* Before paging leaves the first GiB, physical and virtual are one step. */
static void *pvh_phys(uint64_t pa)
{
	return (void *)(SMPALT_VIRT_BASE + pa);
}

static uint64_t pvh_pa(const void *va)
{
	return (uintptr_t)va - SMPALT_VIRT_BASE;
}

/* Nothing to report with yet: stop the vCPU so that Xen crashes us. */
static void __noreturn pvh_early_crash(void)
{
	for (;;)
		__builtin_trap();
}

/* Xen fills hypercall_page when we write its frame to Xen's MSR. */
static int pvh_hypercall_init(void)
{
	uint32_t base = hyp_cpuid_base(PVH_XEN_LEAF_HYPERCALL), a, b, c, d;

	if (!base)
		return -1;
	hyp_cpuid(base + PVH_XEN_LEAF_HYPERCALL, 0, &a, &b, &c, &d);
	pvh_wrmsr(b, pvh_pa(hypercall_page));
	return 0;
}

/*
 * Map [1 GiB, 4 GiB) at HYP_PVH_DIRECTMAP with 2 MiB pages, then drop the
 * identity map the entry needed: from here on guest address 0 faults, as
 * it does for a PV guest.  Only this vCPU runs: a local flush is all.
 */
static void pvh_map_boot(void)
{
	unsigned int gib, slot;

	for (gib = 1; gib < HYP_PVH_DIRECTMAP_GIB; gib++) {
		for (slot = 0; slot < PT_ENTRIES; slot++)
			pvh_dm_l2[gib][slot] = (((uint64_t)gib << L3_SHIFT) |
						((uint64_t)slot << L2_SHIFT)) |
					       PVH_PTE_LARGE;
		pvh_dm_l3[gib] = pvh_pa(pvh_dm_l2[gib]) | PVH_PTE_TABLE;
	}
	pvh_l4[PVH_DIRECTMAP_L4_SLOT] = pvh_pa(pvh_dm_l3) | PVH_PTE_TABLE;
	pvh_l4[0] = 0;
	pvh_flush_tlb_local();
}

static uint64_t pvh_param(uint32_t index)
{
	uint64_t v = 0;

	if (hyp_hvm_get_param(index, &v))
		return 0;
	return v;
}

static unsigned long pvh_end_pfn(uint64_t pa, uint64_t len)
{
	return (unsigned long)((pa + len + PAGE_SIZE - 1) >> PAGE_SHIFT);
}

/*
 * start_info from hvm_start_info and the HVM parameters.  Memory: the RAM
 * range of the memory map that holds the image; the free frames start
 * after the image and what the loader put behind it (this structure, the
 * command line, the memory map, modules).
 */
static void pvh_fill_start_info(const struct hvm_start_info *hsi,
				uint64_t hsi_pa)
{
	start_info_t *si = &pvh_start_info;
	unsigned long free = pvh_end_pfn(pvh_pa(_end), 0);
	uint32_t i;

	strlcpy(si->magic, PVH_START_INFO_MAGIC, sizeof(si->magic));
	free = MAX(free, pvh_end_pfn(hsi_pa, sizeof(*hsi)));
	if (hsi->cmdline_paddr) {
		const char *line = pvh_phys(hsi->cmdline_paddr);

		size_t len = strlcpy((char *)si->cmd_line, line,
				     sizeof(si->cmd_line));

		free = MAX(free, pvh_end_pfn(hsi->cmdline_paddr, len + 1));
	}
	if (hsi->nr_modules)
		free = MAX(
			free,
			pvh_end_pfn(hsi->modlist_paddr,
				    hsi->nr_modules *
					    sizeof(struct hvm_modlist_entry)));
	si->nr_pages = free;
	if (hsi->version >= 1 && hsi->memmap_entries) {
		const struct hvm_memmap_table_entry *map =
			pvh_phys(hsi->memmap_paddr);

		free = MAX(free,
			   pvh_end_pfn(hsi->memmap_paddr,
				       hsi->memmap_entries * sizeof(*map)));
		for (i = 0; i < hsi->memmap_entries; i++)
			if (map[i].type == XEN_HVM_MEMMAP_TYPE_RAM &&
			    map[i].addr <= SMPALT_LOAD_PADDR &&
			    map[i].addr + map[i].size > SMPALT_LOAD_PADDR)
				si->nr_pages = (map[i].addr + map[i].size) >>
					       PAGE_SHIFT;
	}
	pvh_first_free_pfn = free;
	si->store_mfn = pvh_param(HVM_PARAM_STORE_PFN);
	si->store_evtchn = (uint32_t)pvh_param(HVM_PARAM_STORE_EVTCHN);
	si->console.domU.mfn = pvh_param(HVM_PARAM_CONSOLE_PFN);
	si->console.domU.evtchn = (uint32_t)pvh_param(HVM_PARAM_CONSOLE_EVTCHN);
	si->pt_base = (unsigned long)pvh_l4;
}

void __noreturn pvh_start(uint32_t hsi_pa);

void __noreturn pvh_start(uint32_t hsi_pa)
{
	const struct hvm_start_info *hsi = pvh_phys(hsi_pa);

	hyp_pvh = true;
	if (hsi->magic != XEN_HVM_START_MAGIC_VALUE || pvh_hypercall_init())
		pvh_early_crash();
	pvh_map_boot();
	pvh_fill_start_info(hsi, hsi_pa);
	start_kernel(&pvh_start_info);
}
