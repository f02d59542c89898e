// SPDX-License-Identifier: GPL-2.0
/*
 * trace_bts_dump.c - the kernel a written-out history came from: its GNU
 * build ID, for the ftrace:bts_history entries.
 * bts-series: from records
 * And the dump format's header (struct bts_dump_header,
 * include/uapi/linux/bts.h), which starts every history bts writes out:
 * in the records and capture files, the persistent region and the kdump
 * table.
 * bts-series: end
 *
 * Layer: below the tracer and what keeps histories past a panic, which
 * call in here; it calls none of them. Nothing here sleeps, allocates or
 * takes a lock: the header is filled on the panic and crash paths too.
 */
#include <linux/bts.h>
#include <linux/buildid.h>
#include <linux/init.h>
#include <linux/kallsyms.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/utsname.h>
/* bts-series: from records */
#include <uapi/linux/bts.h>
/* bts-series: end */
#include <asm/sections.h>
#include <asm/setup.h>

#include "bts_core.h"
#include "trace_bts.h"

/* The running kernel's GNU build ID: bts-dump tells a matching vmlinux by it. */
static unsigned char bts_build_id[BUILD_ID_SIZE_MAX] __ro_after_init;
static u32 bts_build_id_size __ro_after_init;
/* The same in hex, for ftrace:bts_history. */
static char bts_build_id_hex[2 * BUILD_ID_SIZE_MAX + 1] __ro_after_init;

/**
 * bts_init_build_id - read the running kernel's GNU build ID, once at boot
 */
void __init bts_init_build_id(void)
{
	/* Kbuild links vmlinux with --build-id=sha1: 20 bytes. */
	if (!build_id_parse_buf(&__start_notes, bts_build_id,
				&__stop_notes - &__start_notes)) {
		bts_build_id_size = BUILD_ID_SIZE_MAX;
		bin2hex(bts_build_id_hex, bts_build_id, bts_build_id_size);
	}
}

/**
 * bts_kernel_build_id - the running kernel's GNU build ID
 * @buf:	room for it
 * @size:	bytes of room
 *
 * Return: the bytes copied (0 when unknown).
 */
u32 bts_kernel_build_id(u8 *buf, size_t size)
{
	u32 n = min_t(size_t, bts_build_id_size, size);

	memcpy(buf, bts_build_id, n);
	return n;
}

/**
 * bts_kernel_build_id_hex - the running kernel's GNU build ID, in hex
 *
 * Return: 2 * BUILD_ID_SIZE_MAX hex digits and a NUL ("" when unknown).
 */
const char *bts_kernel_build_id_hex(void)
{
	return bts_build_id_hex;
}

/* bts-series: from records */
/**
 * bts_fill_dump_header - the header of one CPU's history, any context
 * @h:		the header to fill
 * @snap:	what the history is
 * @cpu:	whose history
 * @capture:	a fault capture, not a dump
 * @user:	user-mode branches were asked for
 * @src:	the source that recorded @snap, or NULL when unknown
 */
void notrace bts_fill_dump_header(struct bts_dump_header *h,
				  const struct bts_snapshot *snap,
				  unsigned int cpu, bool capture, bool user,
				  const struct bts_source *src)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, BTS_DUMP_MAGIC, sizeof(BTS_DUMP_MAGIC));
	h->version = BTS_DUMP_VERSION;
	h->header_size = sizeof(*h);
	h->record_size = sizeof(struct bts_record);
	h->source = snap->source;
	h->cpu = cpu;
	h->count = snap->count;
	h->capacity = snap->capacity;
	h->reason = snap->reason;
	h->fault_index = snap->fault_index;
	h->timestamp_ns = snap->timestamp;
	h->stext = (unsigned long)_stext;
	h->etext = (unsigned long)_etext;
	h->kaslr_offset = kaslr_offset();
	BUILD_BUG_ON(sizeof(h->build_id) != BUILD_ID_SIZE_MAX);
	memcpy(h->build_id, bts_build_id, sizeof(h->build_id));
	h->build_id_size = bts_build_id_size;
	if (snap->window == BTS_WINDOW_WRAPPED)
		h->flags |= BTS_DUMP_WRAPPED;
	if (snap->window == BTS_WINDOW_EMPTY)
		h->flags |= BTS_DUMP_EMPTY;
	/* bts-series: until capture-trace */
	if (capture)
		h->flags |= BTS_DUMP_CAPTURE;
	/* bts-series: end */
	/* bts-series: from capture-trace */
	if (capture) {
		h->flags |= BTS_DUMP_CAPTURE;
		h->lost = bts_capture_lost();
	}
	/* bts-series: end */
	if (user && snap->source == BTS_SOURCE_HW)
		h->flags |= BTS_DUMP_USER;
	/* bts-series: from pid */
	if (snap->task_filter)
		h->flags |= BTS_DUMP_TASK_FILTER;
	if (snap->task_filter && snap->filter_held)
		h->flags |= BTS_DUMP_FILTER_HELD;
	/* bts-series: end */
	if (snap->source != BTS_SOURCE_NONE && src)
		strscpy(h->source_name, src->name, sizeof(h->source_name));
	strscpy(h->release, init_utsname()->release, sizeof(h->release));
}

/* bts-series: from capture-trace */
/**
 * bts_fill_capture_header - the dump header of a CPU's capture, any context
 * @h:		the header to fill
 * @snap:	the capture's snapshot
 * @cpu:	whose capture
 *
 * For the panic path: no lock. The source named is the armed one, which
 * is the one that recorded a capture still kept.
 */
void notrace bts_fill_capture_header(struct bts_dump_header *h,
				     const struct bts_snapshot *snap,
				     unsigned int cpu)
{
	struct bts_source *src = bts_armed_source();

	bts_fill_dump_header(h, snap, cpu, true,
			     bts_armed_flags() & BTS_ARM_USER,
			     src && src->id == snap->source ? src : NULL);
}

/* bts-series: end */
/* bts-series: end */