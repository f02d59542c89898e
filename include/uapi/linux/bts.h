/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The bts dump format: what /sys/kernel/tracing/bts/per_cpu/cpuN/records
 * and .../cpuN/capture hold, and what tools/bts-dump reads. One dump is
 * one CPU's history: a fixed header followed by @count records of
 * @record_size bytes, oldest first. All fields are little-endian.
 *
 * Documentation/trace/bts.rst describes it for readers outside the
 * kernel; a change here needs a new @version there and in bts-dump,
 * except a new field in place of @reserved whose zero means "not
 * recorded": readers of the version before ignore it.
 */
#ifndef _UAPI_LINUX_BTS_H
#define _UAPI_LINUX_BTS_H

#include <linux/types.h>

#define BTS_DUMP_MAGIC		"BTSDUMP"	/* 7 chars and a NUL */
#define BTS_DUMP_VERSION	1

/* bts_dump_header.flags */
#define BTS_DUMP_WRAPPED	(1U << 0)	/* older history was overwritten */
#define BTS_DUMP_CAPTURE	(1U << 1)	/* a fault capture, not a dump */
#define BTS_DUMP_USER		(1U << 2)	/* user-mode branches recorded */
#define BTS_DUMP_EMPTY		(1U << 3)	/* nothing recorded since arming */
/* bts-series: from pid */
/* A task filter (set_ftrace_pid) was on: only chosen tasks were recorded. */
#define BTS_DUMP_TASK_FILTER	(1U << 4)
/*
 * With BTS_DUMP_TASK_FILTER: the task running when the history was taken
 * was not chosen, and the history ends where the last chosen task left
 * the CPU (a fault in an unchosen task is not in it).
 */
#define BTS_DUMP_FILTER_HELD	(1U << 5)
/* bts-series: end */

/**
 * struct bts_dump_header - header of one CPU's dump (192 bytes)
 * @magic:	"BTSDUMP\0"
 * @version:	BTS_DUMP_VERSION
 * @header_size: sizeof(struct bts_dump_header); records start here
 * @record_size: 24: struct { __u64 from, to, flags; }
 * @source:	1 = Intel BTS, 2 = software call edges
 * @cpu:	CPU the history was recorded on
 * @count:	number of records that follow
 * @capacity:	records per CPU the source keeps
 * @flags:	BTS_DUMP_*
 * @reason:	0 dump, 1 oops, 2 BUG, 3 panic, 4 #GP, 5 WARN
 * @fault_index: index of the record flagged as the fault, or 0xffffffff
 * @timestamp_ns: local_clock() when the CPU was frozen
 * @stext:	runtime address of _stext (symbolization under KASLR)
 * @kaslr_offset: runtime minus link-time address of the kernel text
 * @lost:	fault captures not kept because this one was (oopses after
 *		the first), or 0
 * @source_name: "intel_bts" or "sw", NUL-terminated
 * @release:	utsname()->release of the kernel that wrote the dump
 * @build_id:	GNU build ID of the kernel that wrote the dump (its vmlinux's
 *		NT_GNU_BUILD_ID note), for telling a matching vmlinux
 * @build_id_size: bytes of @build_id used, 0 if unknown
 * @etext:	runtime address of _etext (with @stext, for telling a
 *		matching System.map or kallsyms), 0 if unknown
 * @reserved:	zero
 */
struct bts_dump_header {
	char	magic[8];
	__u16	version;
	__u16	header_size;
	__u16	record_size;
	__u16	source;
	__u32	cpu;
	__u32	count;
	__u32	capacity;
	__u32	flags;
	__u32	reason;
	__u32	fault_index;
	__u64	timestamp_ns;
	__u64	stext;
	__u64	kaslr_offset;
	__u64	lost;
	char	source_name[16];
	char	release[64];
	__u8	build_id[20];
	__u32	build_id_size;
	__u64	etext;
	__u64	reserved;
};

/* bts-series: from kdump */
/*
 * Where a crash dump (/proc/vmcore, makedumpfile's ELF output) holds the
 * kept fault capture. VMCOREINFO carries "BTS_TABLE=<hex>": the physical
 * address of a struct bts_vmcore_table, followed by @nr_slots slots of
 * @slot_size bytes. The crash path of the panicking kernel (all other
 * CPUs stopped) fills the first @nr_written slots, the faulting CPU's
 * first, and writes @magic last: a table without its magic was never
 * filled (the crash path did not reach bts). Physical addresses and page
 * frames are those of the crashed kernel's memory.
 */
#define BTS_VMCORE_MAGIC	"BTSCORE"	/* 7 chars and a NUL */
#define BTS_VMCORE_VERSION	1
/* The pages a slot's records span at most: 65,520 bytes from any offset. */
#define BTS_VMCORE_PAGES	17

/**
 * struct bts_vmcore_table - the crash dump's index of the captures (48 bytes)
 * @magic:	"BTSCORE\0", written last on the crash path
 * @version:	BTS_VMCORE_VERSION
 * @table_size:	sizeof(struct bts_vmcore_table); the slots start here
 * @slot_size:	sizeof(struct bts_vmcore_slot)
 * @nr_slots:	slots that follow (the crashed kernel's nr_cpu_ids)
 * @nr_written:	slots filled, the faulting CPU's first; 0: no capture kept
 * @page_size:	the crashed kernel's PAGE_SIZE
 * @reason:	why the first slot's history, the panic's, was taken (as
 *		bts_dump_header.reason)
 * @fault_cpu:	the CPU whose history that is, or -1
 * @reserved:	zero
 */
struct bts_vmcore_table {
	char	magic[8];
	__u32	version;
	__u32	table_size;
	__u32	slot_size;
	__u32	nr_slots;
	__u32	nr_written;
	__u32	page_size;
	__u32	reason;
	__s32	fault_cpu;
	__u64	reserved;
};

/**
 * struct bts_vmcore_slot - one CPU's kept capture in a crash dump (336 bytes)
 * @header:	its dump header, as the capture file would have it
 * @recs_offset: byte offset of the first record in page @pfn[0]
 * @nr_pages:	entries of @pfn used
 * @pfn:	the page frames holding the @header.count records, in order
 */
struct bts_vmcore_slot {
	struct bts_dump_header header;
	__u32	recs_offset;
	__u32	nr_pages;
	__u64	pfn[BTS_VMCORE_PAGES];
};

/* bts-series: end */
/* bts-series: from live */
/*
 * Where a debugger reading the running kernel's memory (drgn or crash on
 * /proc/kcore, or on a memory image of a running machine) finds each
 * CPU's current history, as bts/per_cpu/cpuN/records would copy it. The
 * kernel symbol bts_live holds the kernel virtual address of a struct
 * bts_live_table, followed by @nr_slots slots of @slot_size bytes, one
 * per possible CPU, slot N for CPU N. The armed source fills a CPU's slot
 * while it records there and clears it (@source 0) before it gives the
 * buffer back. Addresses in a slot are kernel virtual addresses in the
 * direct map or vmalloc space, which /proc/kcore shows.
 *
 * The kernel reads the same memory while the CPU records: a debugger
 * sees a consistent history only of a CPU that is not recording
 * (tracing_on 0 pauses every CPU; a crash stops them). A slot being
 * rewritten has an odd @seq; a reader takes the slot when @seq is even
 * and the same before and after it read it.
 */
#define BTS_LIVE_MAGIC		"BTSLIVE"	/* 7 chars and a NUL */
#define BTS_LIVE_VERSION	1

/*
 * bts_live_slot.kind: how to find the newest record. In all three the
 * buffer holds @nr records of 24 bytes (struct { __u64 from, to, flags; })
 * and the history read is oldest first; none read is an empty history.
 *
 * BTS_LIVE_COUNT: *@head (a __u64) counts the records written since
 *	arming; record k of them is at index k % @nr. The history is the
 *	newest min(*@head, @nr); it has wrapped when *@head > @nr.
 * BTS_LIVE_CIRCULAR: *@head (a __u64) is the address the next record
 *	goes to, @head_base the address of index 0: pos = (*@head -
 *	@head_base) / 24, and pos == @nr is index 0. A pos beyond @nr, or an
 *	address below @head_base, means nothing can be read. The buffer has
 *	wrapped when the record at pos is not clear (its from or to is not
 *	zero): the history is then indexes pos to @nr - 1 and 0 to pos - 1;
 *	else 0 to pos - 1.
 * BTS_LIVE_STREAM: pos as for BTS_LIVE_CIRCULAR, without the wrap at
 *	@nr. Indexes pos up to *@tail (a __u32, the end of the round handed
 *	to the stream before) hold the records before those at 0 to pos - 1:
 *	the history is indexes pos to max(pos, *@tail) - 1, then 0 to
 *	pos - 1. It has wrapped once *@drained (a __u8) is not zero.
 */
#define BTS_LIVE_COUNT		1
#define BTS_LIVE_CIRCULAR	2
#define BTS_LIVE_STREAM		3

/*
 * bts_live_slot.flags: user-mode branches were not wanted. For each
 * record read, an address below 1 << 63 in @from or @to is replaced by 0
 * and the record's flags get bit 61 (BTS_FLAG_USER_CLEARED), as the
 * kernel does when it copies the history.
 */
#define BTS_LIVE_CLEAR_USER	(1U << 0)

/**
 * struct bts_live_table - the index of the current histories (32 bytes)
 * @magic:	"BTSLIVE\0"
 * @version:	BTS_LIVE_VERSION
 * @table_size:	sizeof(struct bts_live_table); the slots start here
 * @slot_size:	sizeof(struct bts_live_slot)
 * @nr_slots:	slots that follow (nr_cpu_ids)
 * @reserved:	zero
 */
struct bts_live_table {
	char	magic[8];
	__u32	version;
	__u32	table_size;
	__u32	slot_size;
	__u32	nr_slots;
	__u64	reserved;
};

/**
 * struct bts_live_slot - where one CPU's current history is (64 bytes)
 * @seq:	odd while the kernel rewrites the slot
 * @source:	BTS_SOURCE_* of the source recording there; 0: none
 * @kind:	BTS_LIVE_COUNT, _CIRCULAR or _STREAM
 * @nr:		records the buffer holds (the source's capacity)
 * @flags:	BTS_LIVE_CLEAR_USER
 * @recs:	address of the buffer
 * @head:	address of the __u64 that says where the newest record is
 * @head_base:	BTS_LIVE_CIRCULAR, _STREAM: *@head when the next record
 *		goes to index 0
 * @tail:	BTS_LIVE_STREAM: address of the __u32 end of the round before
 * @drained:	BTS_LIVE_STREAM: address of the __u8 "a round was handed
 *		over"
 * @reserved:	zero
 */
struct bts_live_slot {
	__u32	seq;
	__u16	source;
	__u16	kind;
	__u32	nr;
	__u32	flags;
	__u64	recs;
	__u64	head;
	__u64	head_base;
	__u64	tail;
	__u64	drained;
	__u64	reserved;
};
/* bts-series: end */

#endif /* _UAPI_LINUX_BTS_H */
