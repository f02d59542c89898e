/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Between the parts of the bts tracer in kernel/trace: the kernel's build
 * ID and the dump format (trace_bts_dump.c), which everything that writes
 * a history out uses.
 * bts-series: from persist
 * The persistent region (trace_bts_persist.c).
 * bts-series: end
 * bts-series: from trigger
 * The bts_dump trigger and function command (trace_bts_trigger.c).
 * bts-series: end
 * bts-series: from stream
 * Stream mode's sink (trace_bts_stream.c).
 * bts-series: end
 * bts-series: from pid
 * The task filter: set_ftrace_pid for bts (trace_bts_pid.c).
 * bts-series: end
 * Nothing declared here sleeps, allocates or locks, but the functions
 * called at boot, bts_trigger_get() and bts_trigger_put(), and
 * bts_stream_start() and bts_stream_stop().
 * bts-series: from pid
 * The bts_pid_*() functions are process context, under bts_lock.
 * bts-series: end
 */
#ifndef _KERNEL_TRACE_TRACE_BTS_H
#define _KERNEL_TRACE_TRACE_BTS_H

#include <linux/types.h>

/* The most records a history has: the largest hardware buffer, 64 KiB. */
#define BTS_NR_RECORDS_MAX	2730

struct bts_dump_header;
struct bts_record;
struct bts_snapshot;
struct bts_source;
struct dentry;
struct trace_array;

/* trace_bts.c: the tracer's writer of histories, for its other parts */
unsigned int bts_emit(struct trace_array *tr, const struct bts_record *recs,
		      const struct bts_snapshot *snap);

/* trace_bts_dump.c */
void bts_init_build_id(void);
u32 bts_kernel_build_id(u8 *buf, size_t size);
const char *bts_kernel_build_id_hex(void);
/* bts-series: from records */
void bts_fill_dump_header(struct bts_dump_header *h,
			  const struct bts_snapshot *snap, unsigned int cpu,
			  bool capture, bool user,
			  const struct bts_source *src);
/* bts-series: end */
/* bts-series: from capture-trace */
void bts_fill_capture_header(struct bts_dump_header *h,
			     const struct bts_snapshot *snap, unsigned int cpu);
/* bts-series: end */

/* bts-series: from persist */
/*
 * trace_bts_persist.c: bts_persist_init() at boot, given the tracer's
 * function that writes a kept history into the ring buffer.
 */
typedef int (*bts_persist_emit_fn)(const struct bts_dump_header *d,
				   const struct bts_record *recs);
void bts_persist_init(struct dentry *bts_dir, bts_persist_emit_fn to_trace);
/* Test kernels: the next panic's write is damaged after its checksum. */
void bts_persist_test_corrupt(void);
/* Test kernels: the next panic keeps its second history as CPU @cpu. */
void bts_persist_test_cpu(u32 cpu);

/* bts-series: end */
/* bts-series: from trigger */
/* trace_bts.c: bts/nr_records, for a trigger's dump */
unsigned int bts_dump_nr_records(void);
/*
 * trace_bts_trigger.c: the bts_dump function command (bts_trigger_init(),
 * at boot), and what the bts_dump event trigger (trace_events_trigger.c)
 * calls.
 */
int bts_trigger_init(void);
int bts_trigger_get(void);
void bts_trigger_put(void);
bool bts_trigger_dump(struct trace_array *tr);
bool bts_trigger_dump_count(struct trace_array *tr, unsigned long *count);
void bts_trigger_init_tracefs(struct dentry *top);
void bts_trigger_nmi_counts(unsigned int cpu, long *dumps, long *skipped);

/* bts-series: end */
/* bts-series: from stream */
/*
 * trace_bts_stream.c: stream mode's sink. bts_stream_start() before the
 * source is armed to stream into @tr, bts_stream_stop() after it is
 * disarmed (bts_lock held for both); bts_stream_init() at boot.
 */
void bts_stream_start(struct trace_array *tr);
void bts_stream_stop(void);
bool bts_stream_refuse_nmi(void);
void bts_stream_init(struct dentry *bts_dir);
/* bts-series: end */
/* bts-series: from pid */

/*
 * trace_bts_pid.c: set_ftrace_pid for bts. bts_pid_prepare() before
 * arming, bts_pid_armed() after arming with BTS_ARM_FILTER,
 * bts_pid_forget() when the pid files change, bts_pid_stop() when the
 * tracer is reset.
 */
#ifdef CONFIG_BTS_TRACER_PID
bool bts_pid_filtering(struct trace_array *tr);
int bts_pid_prepare(struct trace_array *tr, bool filter);
void bts_pid_armed(struct trace_array *tr);
void bts_pid_forget(struct trace_array *tr);
void bts_pid_stop(void);
#else
static inline bool bts_pid_filtering(struct trace_array *tr) { return false; }
static inline int bts_pid_prepare(struct trace_array *tr, bool filter)
{
	return 0;
}

static inline void bts_pid_armed(struct trace_array *tr) { }
static inline void bts_pid_forget(struct trace_array *tr) { }
static inline void bts_pid_stop(void) { }
#endif
/* bts-series: end */

#endif /* _KERNEL_TRACE_TRACE_BTS_H */
