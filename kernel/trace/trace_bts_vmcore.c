// SPDX-License-Identifier: GPL-2.0
/*
 * bts: the fault capture indexed for the crash kernel (kdump).
 *
 * A table allocated at boot when a crash kernel is reserved, and named in
 * VMCOREINFO (BTS_TABLE=, its physical address), is filled on the crash
 * path (bts_crash_save(), after the other CPUs stopped) with each CPU's
 * dump header and the page frames of its captured records: the records
 * stay where they are, in memory the crash kernel's /proc/vmcore shows,
 * so kdump costs 48 bytes and 336 per CPU.
 *
 * The crash path runs on the panicking CPU alone with IRQs off: it must
 * never sleep, allocate or take a lock, and reads only what the capture
 * already holds.
 */
#define pr_fmt(fmt) "bts: " fmt

#include <linux/bts.h>
#include <linux/crash_reserve.h>
#include <linux/init.h>
#include <linux/jump_label.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/vmcore_info.h>
#include <uapi/linux/bts.h>

#include "bts_core.h"
#include "trace_bts.h"

#ifdef CONFIG_CRASH_DUMP

DEFINE_STATIC_KEY_FALSE(bts_crash_save_key);

/* The table VMCOREINFO's BTS_TABLE= names; NULL without a crash kernel. */
static struct bts_vmcore_table *bts_vmcore;

static struct bts_vmcore_slot *bts_vmcore_slot(u32 i)
{
	return (void *)bts_vmcore + sizeof(*bts_vmcore) +
	       (size_t)i * sizeof(struct bts_vmcore_slot);
}

/* The page frame of @addr, a kvmalloc()ed address. */
static unsigned long bts_vmcore_pfn(const void *addr)
{
	return is_vmalloc_addr(addr) ? vmalloc_to_pfn(addr) : PHYS_PFN(__pa(addr));
}

/* Index CPU @cpu's capture in slot @i; false when it has none. */
static bool bts_vmcore_put(u32 i, unsigned int cpu)
{
	struct bts_vmcore_slot *slot = bts_vmcore_slot(i);
	const struct bts_record *recs;
	struct bts_snapshot snap;
	unsigned long first;
	size_t bytes;
	u32 p;

	if (!bts_capture_get(cpu, &recs, &snap))
		return false;
	snap.count = min(snap.count, BTS_NR_RECORDS_MAX);
	bts_fill_capture_header(&slot->header, &snap, cpu);
	first = (unsigned long)recs & PAGE_MASK;
	slot->recs_offset = offset_in_page(recs);
	bytes = slot->recs_offset + (size_t)snap.count * sizeof(*recs);
	slot->nr_pages = snap.count ? DIV_ROUND_UP(bytes, PAGE_SIZE) : 0;
	for (p = 0; p < slot->nr_pages; p++)
		slot->pfn[p] = bts_vmcore_pfn((void *)(first + p * PAGE_SIZE));
	return true;
}

/**
 * __bts_crash_save - see bts_crash_save()
 *
 * The panicking CPU alone runs, IRQs off: the capture is what it was at
 * panic() entry (or the earlier fault that kept it). Looks up page frames
 * by walking the kernel's page tables (vmalloc_to_pfn()), which takes no
 * lock; writes only into the table allocated at boot.
 */
void notrace __bts_crash_save(void)
{
	struct bts_vmcore_table *t = bts_vmcore;
	enum bts_reason reason = BTS_REASON_DUMP;
	int fault_cpu, cpu;
	u32 n = 0;

	if (!t)
		return;
	memset(t->magic, 0, sizeof(t->magic));
	fault_cpu = bts_capture_first(&reason);
	if (fault_cpu >= 0) {
		if (bts_vmcore_put(n, fault_cpu))
			n++;
		for_each_possible_cpu(cpu)
			if (n < t->nr_slots && cpu != fault_cpu &&
			    bts_vmcore_put(n, cpu))
				n++;
	} else {
		reason = BTS_REASON_DUMP;
	}
	t->nr_written = n;
	t->reason = reason;
	t->fault_cpu = fault_cpu;
	/* Last: a table without its magic was never filled. */
	memcpy(t->magic, BTS_VMCORE_MAGIC, sizeof(t->magic));
}

/*
 * With a crash kernel reserved (crashkernel=), allocate the table now,
 * while memory is not fragmented (one physically contiguous block: 48
 * bytes and 336 per possible CPU), and name it in VMCOREINFO. Without
 * one, nothing: a crash kernel can only be loaded into a reservation.
 */
static int __init bts_vmcore_init(void)
{
	size_t size = sizeof(*bts_vmcore) +
		      nr_cpu_ids * sizeof(struct bts_vmcore_slot);
	struct bts_vmcore_table *t;

	BUILD_BUG_ON(sizeof(struct bts_vmcore_table) != 48);
	BUILD_BUG_ON(sizeof(struct bts_vmcore_slot) != 336);
	BUILD_BUG_ON(BTS_VMCORE_PAGES * PAGE_SIZE < PAGE_SIZE - 1 +
		     BTS_NR_RECORDS_MAX * sizeof(struct bts_record));
	if (crashk_res.end <= crashk_res.start)
		return 0;
	t = alloc_pages_exact(size, GFP_KERNEL | __GFP_ZERO);
	if (!t) {
		pr_warn("kdump: no memory for the capture's index (%zu bytes): a crash dump will not have it\n",
			size);
		return 0;
	}
	t->version = BTS_VMCORE_VERSION;
	t->table_size = sizeof(*t);
	t->slot_size = sizeof(struct bts_vmcore_slot);
	t->nr_slots = nr_cpu_ids;
	t->page_size = PAGE_SIZE;
	t->fault_cpu = -1;
	bts_vmcore = t;
	vmcoreinfo_append_str("BTS_TABLE=%llx\n", (unsigned long long)__pa(t));
	static_branch_enable(&bts_crash_save_key);
	pr_info("kdump: a crash dump indexes the kept capture (BTS_TABLE in VMCOREINFO, %zu bytes)\n",
		size);
	return 0;
}
late_initcall(bts_vmcore_init);

#else /* !CONFIG_CRASH_DUMP */

DEFINE_STATIC_KEY_FALSE(bts_crash_save_key);

void __bts_crash_save(void)
{
}

#endif /* CONFIG_CRASH_DUMP */
