// SPDX-License-Identifier: GPL-2.0
/*
 * bts: the fault capture kept past a panic, across a warm reboot (for
 * the crash kernel, kdump, see trace_bts_vmcore.c).
 *
 * With "reserve_mem=SIZE:4096:LABEL bts.persist=LABEL" (or, for a range
 * that KASLR cannot move, "memmap=SIZE$START bts.persist=START:SIZE") on
 * the command line, a panic writes every CPU's captured history, the
 * panic's first (see bts_capture_first()), into that reserved region,
 * from a panic notifier, after the other CPUs have stopped. The next boot of the
 * same kernel build finds it, checks it (magic, version, sizes, CRC32,
 * build ID), copies it out, clears the region, and shows it under
 * bts/last_boot/: an info file and per_cpu/cpuN/capture in the dump
 * format of include/uapi/linux/bts.h, whose headers carry the previous
 * boot's _stext and KASLR offset for bts-dump.
 *
 * The panic writer runs on the panicking CPU alone with IRQs off: it must
 * never sleep, allocate or take a lock, and reads only what the capture
 * already holds. Data that fails a check is reported and discarded, never
 * shown. Whether RAM survives a reset is up to the machine (QEMU keeps it;
 * firmware that clears memory does not), and reserve_mem may place the
 * region elsewhere in a boot that differs (another kernel, memory map or
 * command line): the checks then find nothing valid.
 */
#define pr_fmt(fmt) "bts: " fmt

#include <linux/bitmap.h>
#include <linux/bts.h>
#include <linux/crc32.h>
#include <linux/ctype.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/panic_notifier.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/tracefs.h>
#include <linux/utsname.h>
#include <kunit/static_stub.h>
#include <uapi/linux/bts.h>
#include <asm/cacheflush.h>
#include <asm/e820/api.h>
#include <asm/setup.h>

#include "bts_core.h"
#include "trace.h"
#include "trace_bts.h"

#undef MODULE_PARAM_PREFIX
#define MODULE_PARAM_PREFIX "bts."

/*
 * bts.persist=: a reserve_mem label (reserve_mem allows < 16 characters),
 * or START:SIZE of a range the firmware map reserves (memmap=SIZE$START),
 * which stays put whatever physical KASLR does.
 */
static char bts_persist_label[40];
module_param_string(persist, bts_persist_label, sizeof(bts_persist_label),
		    0444);

/* A START:SIZE region's claim in /proc/iomem; NULL for a label. */
static struct resource *bts_persist_res;

/*
 * Whether the firmware's own memory map (e820_table_firmware: before
 * memmap= changed it) has all of [@start, @end) as usable RAM. Its
 * entries do not overlap; they need not be sorted.
 */
static bool __init bts_persist_fw_ram(u64 start, u64 end)
{
	const struct e820_table *t = e820_table_firmware;
	bool moved = true;
	u32 i;

	while (start < end && moved) {
		moved = false;
		for (i = 0; i < t->nr_entries; i++) {
			const struct e820_entry *e = &t->entries[i];

			if (e->type == E820_TYPE_RAM && e->addr <= start &&
			    start < e->addr + e->size) {
				start = e->addr + e->size;
				moved = true;
			}
		}
	}
	return start >= end;
}

/**
 * bts_persist_claim - check and claim a START:SIZE region
 * @start:	its first byte
 * @size:	its size
 *
 * The region must be RAM that the command line reserved (memmap=SIZE$START:
 * usable RAM in the firmware's map, reserved in the kernel's), so that it
 * is no firmware, ACPI, persistent memory or device range; and no one may
 * have claimed any of it (a busy resource in /proc/iomem: ramoops, a
 * driver). It is then claimed as "bts persist", so that a later claimant
 * is refused instead of sharing it.
 *
 * Return: true when the region is claimed; false (and why, logged) when
 * it is refused, and nothing was written there.
 */
static bool __init bts_persist_claim(phys_addr_t start, phys_addr_t size)
{
	const char *p = bts_persist_label;

	if (region_intersects(start, size, IORESOURCE_SYSTEM_RAM,
			      IORES_DESC_NONE) != REGION_DISJOINT) {
		pr_warn("persist: refusing '%s': it is in use as RAM: reserve it with memmap=SIZE$START\n",
			p);
		return false;
	}
	if (!e820__mapped_all(start, start + size, E820_TYPE_RESERVED) ||
	    !bts_persist_fw_ram(start, start + size)) {
		pr_warn("persist: refusing '%s': it is not RAM reserved with memmap=SIZE$START (the firmware's map has firmware, ACPI, persistent or device memory there); nothing is written to it\n",
			p);
		return false;
	}
	bts_persist_res = request_mem_region(start, size, "bts persist");
	if (!bts_persist_res) {
		pr_warn("persist: refusing '%s': part of it is claimed by another user (see /proc/iomem); nothing is written to it\n",
			p);
		return false;
	}
	return true;
}

/* Give a claimed START:SIZE region back (it is not used after all). */
static void __init bts_persist_unclaim(void)
{
	if (bts_persist_res)
		release_mem_region(bts_persist_res->start,
				   resource_size(bts_persist_res));
	bts_persist_res = NULL;
}

/*
 * The region bts.persist= names, claimed when it is START:SIZE: false
 * (and why, logged) if none.
 */
static bool __init bts_persist_find(phys_addr_t *start, phys_addr_t *size)
{
	char *p = bts_persist_label, *end;
	unsigned long long at;

	if (!isdigit(*p))
		return reserve_mem_find_by_name(p, start, size);
	at = memparse(p, &end);
	if (*end != ':') {
		pr_warn("persist: '%s' is neither a reserve_mem label nor START:SIZE\n",
			p);
		return false;
	}
	*size = memparse(end + 1, &end);
	if (*end || !*size || *size > PHYS_ADDR_MAX - at) {
		pr_warn("persist: bad size in '%s'\n", p);
		return false;
	}
	*start = at;
	return bts_persist_claim(*start, *size);
}

#define BTS_PERSIST_MAGIC	"BTSPANIC"	/* 8 bytes, no NUL */
#define BTS_PERSIST_VERSION	1

/**
 * struct bts_persist_head - the start of the region (little-endian)
 * @magic:	BTS_PERSIST_MAGIC, written last
 * @version:	BTS_PERSIST_VERSION
 * @head_size:	sizeof(struct bts_persist_head)
 * @region_size: size of the region it was written into
 * @slot_size:	bytes per CPU slot: a dump header and BTS_NR_RECORDS_MAX
 * @nr_slots:	slots the region holds
 * @nr_written:	slots written, from the first (the faulting CPU's)
 * @reason:	enum bts_reason of the capture
 * @fault_cpu:	the CPU the capture was taken for
 * @crc:	crc32_le(~0) of the head after @magic, with @crc 0, and the
 *		written slots
 * @time_ns:	ktime_get_real_fast_ns() when it was written
 * @kaslr_offset: the writing kernel's
 * @release:	the writing kernel's utsname release
 * @build_id:	the writing kernel's GNU build ID
 * @build_id_size: bytes of @build_id used
 */
struct bts_persist_head {
	char	magic[8];
	u32	version;
	u32	head_size;
	u64	region_size;
	u32	slot_size;
	u32	nr_slots;
	u32	nr_written;
	u32	reason;
	s32	fault_cpu;
	u32	crc;
	u64	time_ns;
	u64	kaslr_offset;
	char	release[64];
	u8	build_id[20];
	u32	build_id_size;
};

#define BTS_PERSIST_SLOTS_AT	ALIGN(sizeof(struct bts_persist_head), 64)
#define BTS_PERSIST_SLOT_SIZE	(sizeof(struct bts_dump_header) + \
				 BTS_NR_RECORDS_MAX * sizeof(struct bts_record))

/* This boot's region, mapped; NULL without one. */
static void *bts_persist_region;
static u64 bts_persist_size;
static u32 bts_persist_slots;

/* The last boot's data, copied out of the region at boot; NULL if none. */
static struct bts_persist_head *bts_last_boot;
/* The tracer's writer of a kept history into the ring buffer. */
static bts_persist_emit_fn bts_last_boot_emit;

/* Test kernels (bts/test_fault "persist-corrupt"): see the panic writer. */
static bool bts_persist_corrupt;

void bts_persist_test_corrupt(void)
{
	WRITE_ONCE(bts_persist_corrupt, true);
}

/* Test kernels (bts/test_fault "persist-cpu N"): the second slot's cpu. */
static long long bts_persist_cpu_override = -1;

void bts_persist_test_cpu(u32 cpu)
{
	WRITE_ONCE(bts_persist_cpu_override, cpu);
}

static struct bts_dump_header *bts_persist_slot(void *region, u32 i)
{
	return region + BTS_PERSIST_SLOTS_AT + (size_t)i * BTS_PERSIST_SLOT_SIZE;
}

/* The magic, written after it, is not part of the CRC. */
static u32 bts_persist_crc(struct bts_persist_head *h)
{
	u32 saved = h->crc, crc;

	h->crc = 0;
	crc = crc32_le(~0, (const u8 *)h + sizeof(h->magic),
		       sizeof(*h) - sizeof(h->magic));
	crc = crc32_le(crc, (const u8 *)bts_persist_slot(h, 0),
		       (size_t)h->nr_written * BTS_PERSIST_SLOT_SIZE);
	h->crc = saved;
	return crc;
}

/* Copy CPU @cpu's capture into slot @i; false when it has none. */
static bool bts_persist_put(void *region, u32 i, unsigned int cpu)
{
	struct bts_dump_header *slot = bts_persist_slot(region, i);
	const struct bts_record *recs;
	struct bts_snapshot snap;

	if (!bts_capture_get(cpu, &recs, &snap))
		return false;
	snap.count = min(snap.count, BTS_NR_RECORDS_MAX);
	bts_fill_capture_header(slot, &snap, cpu);
	memcpy(slot + 1, recs, snap.count * sizeof(*recs));
	return true;
}

/*
 * Write @n bytes at @p back from this CPU's caches to memory.
 *
 * The region is ordinary RAM mapped write-back, and what the panic writer
 * stores may still sit in the panicking CPU's caches when the platform
 * resets: the SDM's table of the processor's state after power-up, RESET
 * or INIT gives the caches as invalid after a RESET, nothing written
 * back, and nothing on the way from the panic to emergency_restart()
 * flushes them (stop_this_cpu()'s WBINVD is for the other CPUs, and only
 * with memory encryption). Only silicon shows this: QEMU has no caches.
 * The
 * next boot would find an old or a torn region and discard it (magic,
 * CRC) or, after a clear that never reached memory, show an older
 * panic's history as the last boot's. pstore's RAM backend avoids this
 * with a write-combined mapping; the region here is read back whole for
 * its CRC, which uncached reads would slow down, so it stays write-back
 * and is flushed instead. Any context; @n fits the region (at most
 * nr_cpu_ids slots of 64 KiB).
 */
static void notrace bts_persist_wb(void *p, size_t n)
{
	KUNIT_STATIC_STUB_REDIRECT(bts_persist_wb, p, n);
	clflush_cache_range(p, n);
}

/*
 * Clear the region's head: nothing of an older boot can be mistaken for
 * a later one's, even if the next reset comes before the caches are
 * written back.
 */
static void bts_persist_clear(struct bts_persist_head *h)
{
	memset(h, 0, sizeof(*h));
	bts_persist_wb(h, sizeof(*h));
}

/*
 * Write every CPU's capture into region @h of @size bytes, @slots slots,
 * the capture of @fault_cpu (for @reason) first; the magic last, and
 * only once everything before it has reached memory.
 */
static void notrace bts_persist_write(struct bts_persist_head *h, u64 size,
				      u32 slots, int fault_cpu,
				      enum bts_reason reason)
{
	int cpu;
	u32 n = 0;

	memset(h, 0, sizeof(*h));
	if (bts_persist_put(h, n, fault_cpu))
		n++;
	for_each_possible_cpu(cpu)
		if (n < slots && cpu != fault_cpu && bts_persist_put(h, n, cpu))
			n++;
	h->version = BTS_PERSIST_VERSION;
	h->head_size = sizeof(*h);
	h->region_size = size;
	h->slot_size = BTS_PERSIST_SLOT_SIZE;
	h->nr_slots = slots;
	h->nr_written = n;
	h->reason = reason;
	h->fault_cpu = fault_cpu;
	/* A test of the next boot's check: a wrong cpu, checksummed. */
	if (IS_ENABLED(CONFIG_BTS_TRACER_TESTING) &&
	    READ_ONCE(bts_persist_cpu_override) >= 0 && n > 1)
		bts_persist_slot(h, 1)->cpu = READ_ONCE(bts_persist_cpu_override);
	/*
	 * Not ktime_get_real_ns(): its seqcount read spins forever when the
	 * panic came from inside a timekeeping update on this CPU (the
	 * other CPUs are stopped: no writer will finish). The fast clock
	 * reads a latched copy, without waiting.
	 */
	h->time_ns = ktime_get_real_fast_ns();
	h->kaslr_offset = kaslr_offset();
	strscpy(h->release, init_utsname()->release, sizeof(h->release));
	h->build_id_size = bts_kernel_build_id(h->build_id,
					       sizeof(h->build_id));
	h->crc = bts_persist_crc(h);
	/* A test of the next boot's check: one flipped bit in a record. */
	if (IS_ENABLED(CONFIG_BTS_TRACER_TESTING) &&
	    READ_ONCE(bts_persist_corrupt) && n)
		*((u8 *)bts_persist_slot(h, 0) + sizeof(struct bts_dump_header)) ^= 1;
	/*
	 * Last: a write cut short leaves no magic, so nothing is shown. The
	 * flush's fences order it: the magic reaches memory after the rest.
	 */
	bts_persist_wb(h, BTS_PERSIST_SLOTS_AT + (size_t)n * BTS_PERSIST_SLOT_SIZE);
	memcpy(h->magic, BTS_PERSIST_MAGIC, sizeof(h->magic));
	bts_persist_wb(h->magic, sizeof(h->magic));
}

/*
 * The panic notifier: every CPU's capture into the region, the panic's
 * first. The panicking CPU alone runs, IRQs off (other CPUs stopped): no
 * lock, no allocation, no wait.
 */
static int bts_persist_panic(struct notifier_block *nb, unsigned long event,
			     void *data)
{
	struct bts_persist_head *h = bts_persist_region;
	enum bts_reason reason;
	int fault_cpu;

	if (!h)
		return NOTIFY_DONE;
	fault_cpu = bts_capture_first(&reason);
	if (fault_cpu < 0)
		return NOTIFY_DONE;
	bts_persist_write(h, bts_persist_size, bts_persist_slots, fault_cpu,
			  reason);
	return NOTIFY_DONE;
}

static struct notifier_block bts_persist_nb = {
	.notifier_call	= bts_persist_panic,
	.priority	= INT_MAX,	/* before anything that may reset */
};

/* Why the region's content is not a valid last boot, or NULL. */
static const char *bts_persist_invalid(struct bts_persist_head *h)
{
	u8 id[20];
	u32 i;

	if (h->version != BTS_PERSIST_VERSION ||
	    h->head_size != sizeof(*h))
		return "another format version";
	if (h->region_size != bts_persist_size ||
	    h->slot_size != BTS_PERSIST_SLOT_SIZE ||
	    h->nr_slots != bts_persist_slots || h->nr_written > h->nr_slots)
		return "sizes differ from this boot's region";
	if (bts_persist_crc(h) != h->crc)
		return "checksum mismatch (corrupted)";
	if (h->build_id_size != bts_kernel_build_id(id, sizeof(id)) ||
	    memcmp(h->build_id, id, h->build_id_size))
		return "written by another kernel build";
	for (i = 0; i < h->nr_written; i++) {
		struct bts_dump_header *d = bts_persist_slot(h, i);

		if (memcmp(d->magic, BTS_DUMP_MAGIC, sizeof(BTS_DUMP_MAGIC)) ||
		    d->header_size != sizeof(*d) ||
		    d->record_size != sizeof(struct bts_record) ||
		    d->count > BTS_NR_RECORDS_MAX)
			return "a CPU's history is malformed";
	}
	return NULL;
}

/**
 * bts_persist_check_cpus - keep the histories that name a CPU once
 * @h:	the last boot's data, checked by bts_persist_invalid()
 *
 * Each history's cpu names its bts/last_boot/per_cpu/cpuN directory:
 * one beyond nr_cpu_ids, or one that an earlier history already has, is
 * skipped with a warning, and the histories that follow move down.
 *
 * Return: how many histories are kept.
 */
static u32 __init bts_persist_check_cpus(struct bts_persist_head *h)
{
	unsigned long *seen = bitmap_zalloc(nr_cpu_ids, GFP_KERNEL);
	u32 i, kept = 0;

	if (!seen)
		return 0;
	for (i = 0; i < h->nr_written; i++) {
		struct bts_dump_header *d = bts_persist_slot(h, i);

		if (d->cpu >= nr_cpu_ids) {
			pr_warn("persist: skipping a kept history: its cpu %u is out of range (%u CPUs)\n",
				d->cpu, nr_cpu_ids);
			continue;
		}
		if (test_and_set_bit(d->cpu, seen)) {
			pr_warn("persist: skipping a kept history: its cpu %u is a duplicate\n",
				d->cpu);
			continue;
		}
		if (kept != i)
			memcpy(bts_persist_slot(h, kept), d,
			       BTS_PERSIST_SLOT_SIZE);
		kept++;
	}
	bitmap_free(seen);
	return kept;
}

/* ------------------------------------------------------------------ */
/* tracefs: bts/last_boot/                                              */

static const char * const bts_persist_reasons[] = {
	"dump", "oops", "BUG", "panic", "GPF", "WARN",
};

static int bts_last_boot_info_show(struct seq_file *m, void *v)
{
	struct bts_persist_head *h = bts_last_boot;

	seq_printf(m, "reason:\t%s\n", h->reason < ARRAY_SIZE(bts_persist_reasons) ?
		   bts_persist_reasons[h->reason] : "unknown");
	seq_printf(m, "cpu:\t%d\n", h->fault_cpu);
	seq_printf(m, "time:\t%llu.%09llu\n", h->time_ns / NSEC_PER_SEC,
		   h->time_ns % NSEC_PER_SEC);
	seq_printf(m, "release:\t%.*s\n", (int)sizeof(h->release), h->release);
	seq_printf(m, "build_id:\t%*phN\n", (int)h->build_id_size, h->build_id);
	seq_printf(m, "kaslr_offset:\t0x%llx\n", h->kaslr_offset);
	seq_printf(m, "histories:\t%u\n", h->nr_written);
	return 0;
}

static int bts_last_boot_info_open(struct inode *inode, struct file *file)
{
	int ret = tracing_check_open_get_tr(NULL);

	return ret ? ret : single_open(file, bts_last_boot_info_show, NULL);
}

static const struct file_operations bts_last_boot_info_fops = {
	.open		= bts_last_boot_info_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static int bts_last_boot_capture_open(struct inode *inode, struct file *file)
{
	return tracing_check_open_get_tr(NULL);
}

static ssize_t bts_last_boot_capture_read(struct file *file, char __user *ubuf,
					  size_t cnt, loff_t *ppos)
{
	struct bts_dump_header *d = file_inode(file)->i_private;

	return simple_read_from_buffer(ubuf, cnt, ppos, d, sizeof(*d) +
				       d->count * sizeof(struct bts_record));
}

static const struct file_operations bts_last_boot_capture_fops = {
	.open		= bts_last_boot_capture_open,
	.read		= bts_last_boot_capture_read,
	.llseek		= default_llseek,
};

/* Writing 1 to to_trace: every kept history into the ring buffer. */
static ssize_t bts_last_boot_to_trace_write(struct file *file,
					    const char __user *ubuf,
					    size_t cnt, loff_t *ppos)
{
	unsigned long val;
	int ret;
	u32 i;

	ret = kstrtoul_from_user(ubuf, cnt, 10, &val);
	if (ret)
		return ret;
	if (val != 1)
		return -EINVAL;
	for (i = 0; i < bts_last_boot->nr_written; i++) {
		struct bts_dump_header *d = bts_persist_slot(bts_last_boot, i);
		int err = bts_last_boot_emit(d, (const void *)(d + 1));

		ret = ret ?: err;
	}
	return ret ?: cnt;
}

static const struct file_operations bts_last_boot_to_trace_fops = {
	.open		= tracing_open_generic,
	.write		= bts_last_boot_to_trace_write,
	.llseek		= noop_llseek,
};

static void __init bts_last_boot_files(struct dentry *bts_dir)
{
	struct dentry *top, *percpu, *dir;
	char name[16];
	u32 i;

	/* A NULL parent is the tracefs root: never create files there. */
	top = tracefs_create_dir("last_boot", bts_dir);
	if (!top)
		return;
	trace_create_file("info", TRACE_MODE_READ, top, NULL,
			  &bts_last_boot_info_fops);
	trace_create_file("to_trace", 0200, top, NULL,
			  &bts_last_boot_to_trace_fops);
	percpu = tracefs_create_dir("per_cpu", top);
	if (!percpu)
		return;
	for (i = 0; i < bts_last_boot->nr_written; i++) {
		struct bts_dump_header *d = bts_persist_slot(bts_last_boot, i);

		snprintf(name, sizeof(name), "cpu%u", d->cpu);
		dir = tracefs_create_dir(name, percpu);
		if (!dir)
			continue;
		trace_create_file("capture", TRACE_MODE_READ, dir, d,
				  &bts_last_boot_capture_fops);
	}
}

/**
 * bts_persist_init - find the region, take the last boot's capture out of it
 * @bts_dir:	the tracefs bts/ directory
 * @to_trace:	writes a kept history into the ring buffer (last_boot/to_trace)
 *
 * Called once at boot. Reports a missing or too small region now, not
 * after the panic. The region is cleared whatever it held, so that this
 * boot's panic, and only it, is what the next boot sees.
 */
void __init bts_persist_init(struct dentry *bts_dir, bts_persist_emit_fn to_trace)
{
	phys_addr_t start, size;
	struct bts_persist_head *h;
	size_t need, used;
	const char *why;

	if (!bts_persist_label[0])
		return;
	bts_last_boot_emit = to_trace;
	if (!bts_persist_find(&start, &size)) {
		pr_warn("persist: no region '%s': panics are not kept\n",
			bts_persist_label);
		return;
	}
	need = BTS_PERSIST_SLOTS_AT + nr_cpu_ids * BTS_PERSIST_SLOT_SIZE;
	if (size < BTS_PERSIST_SLOTS_AT + BTS_PERSIST_SLOT_SIZE) {
		pr_warn("persist: region '%s' is %llu bytes, too small for one CPU's history (%zu); %zu for all %u CPUs\n",
			bts_persist_label, (u64)size,
			BTS_PERSIST_SLOTS_AT + BTS_PERSIST_SLOT_SIZE, need,
			nr_cpu_ids);
		bts_persist_unclaim();
		return;
	}
	h = memremap(start, size, MEMREMAP_WB);
	if (!h) {
		pr_warn("persist: cannot map region '%s'\n", bts_persist_label);
		bts_persist_unclaim();
		return;
	}
	bts_persist_size = size;
	bts_persist_slots = min_t(u64, nr_cpu_ids,
				  (size - BTS_PERSIST_SLOTS_AT) /
				  BTS_PERSIST_SLOT_SIZE);
	if (bts_persist_slots < nr_cpu_ids)
		pr_warn("persist: region '%s' keeps %u of %u CPUs' histories (the faulting CPU's first); %zu bytes keep all\n",
			bts_persist_label, bts_persist_slots, nr_cpu_ids, need);

	if (!memcmp(h->magic, BTS_PERSIST_MAGIC, sizeof(h->magic))) {
		why = bts_persist_invalid(h);
		if (why) {
			pr_warn("persist: discarding the last boot's data in '%s': %s\n",
				bts_persist_label, why);
		} else {
			used = BTS_PERSIST_SLOTS_AT +
			       (size_t)h->nr_written * BTS_PERSIST_SLOT_SIZE;
			bts_last_boot = kvmalloc(used, GFP_KERNEL);
			if (bts_last_boot) {
				memcpy(bts_last_boot, h, used);
				bts_last_boot->nr_written =
					bts_persist_check_cpus(bts_last_boot);
				pr_info("persist: the last boot's %s capture (%u CPUs) is in bts/last_boot\n",
					h->reason < ARRAY_SIZE(bts_persist_reasons) ?
					bts_persist_reasons[h->reason] : "unknown",
					h->nr_written);
			}
		}
	}
	/* Nothing of the last boot can be mistaken for this one's. */
	bts_persist_clear(h);
	bts_persist_region = h;
	if (bts_last_boot)
		bts_last_boot_files(bts_dir);
	atomic_notifier_chain_register(&panic_notifier_list, &bts_persist_nb);
	/* The address: a region that moved between boots shows here. */
	pr_info("persist: a panic's capture goes to region '%s' (%llu bytes at %pa)\n",
		bts_persist_label, (u64)size, &start);
}

/* bts-series: from kunit */
#ifdef CONFIG_BTS_TRACER_KUNIT_TEST
#include "trace_bts_persist_kunit.c"
#endif
/* bts-series: end */
