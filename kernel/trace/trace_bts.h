/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the bts tracer (trace_bts.c) offers the rest of kernel/trace: the
 * bts_dump event trigger (trace_events_trigger.c) writes the current
 * CPU's branch history into a trace array through these. No locks, no
 * allocation, no sleeping in bts_trigger_dump().
 */
#ifndef _KERNEL_TRACE_TRACE_BTS_H
#define _KERNEL_TRACE_TRACE_BTS_H

/* The most records a history has: the largest hardware buffer, 64 KiB. */
#define BTS_NR_RECORDS_MAX	2730

struct bts_dump_header;
struct bts_snapshot;
struct dentry;
struct trace_array;

int bts_trigger_get(void);
void bts_trigger_put(void);
bool bts_trigger_dump(struct trace_array *tr);
bool bts_trigger_dump_count(struct trace_array *tr, unsigned long *count);

/*
 * Between the tracer and trace_bts_persist.c, which keeps a panic's
 * capture across a warm reboot: the capture files' header (any context,
 * no lock) and the kernel's build ID; bts_persist_init() at boot.
 */
void bts_fill_capture_header(struct bts_dump_header *h,
			     const struct bts_snapshot *snap, unsigned int cpu);
u32 bts_kernel_build_id(u8 *buf, size_t size);
struct bts_record;
int bts_emit_last_boot(const struct bts_dump_header *d,
		       const struct bts_record *recs);
void bts_persist_init(struct dentry *bts_dir);
/* Test kernels: the next panic's write is damaged after its checksum. */
void bts_persist_test_corrupt(void);
/* Test kernels: the next panic keeps its second history as CPU @cpu. */
void bts_persist_test_cpu(u32 cpu);

#endif /* _KERNEL_TRACE_TRACE_BTS_H */
