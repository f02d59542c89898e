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

#endif /* _UAPI_LINUX_BTS_H */
