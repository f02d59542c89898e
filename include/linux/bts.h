/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bts: per-CPU branch history ("branch flight recorder").
 *
 * This header is the contract between the three kernel layers of bts:
 *
 *   branch sources     arch/x86/events/intel/bts_trace.c (Intel BTS),
 *                      kernel/trace/trace_bts_sw.c (software call edges)
 *   core               kernel/trace/bts_core.c: the registry of sources,
 *                      the armed source, per-CPU snapshots
 * bts-series: from capture
 *                      and kernel/trace/bts_capture.c: fault capture
 * bts-series: end
 *   users              kernel/trace/trace_bts.c (the ftrace tracer), and
 *                      any kernel code that wants branch history
 *
 * A source records each CPU's most recent taken branches into a per-CPU
 * circular buffer of fixed capacity. A user freezes a CPU, copies its
 * newest records out (oldest first) and thaws it again.
 * bts-series: from capture
 * The hooks on the oops, BUG and panic paths freeze the faulting CPU
 * before anything else runs, so that the history ends at the fault.
 * bts-series: end
 *
 * Nothing declared here may sleep except where the kernel-doc says so:
 * the freeze, thaw and read operations run in NMI and oops context.
 */
#ifndef _LINUX_BTS_H
#define _LINUX_BTS_H

#include <linux/types.h>
#include <linux/bits.h>
#include <linux/jump_label.h>

struct pt_regs;
/* bts-series: from live */
struct bts_live_slot;
/* bts-series: end */

/**
 * struct bts_record - one taken branch
 * @from:	address of the branch instruction
 * @to:		address of its target
 * @flags:	BTS_FLAG_* bits
 *
 * The layout is the 64-bit Branch Trace Store record of the Intel SDM
 * (24 bytes); every source and every dump uses it unchanged.
 */
struct bts_record {
	u64 from;
	u64 to;
	u64 flags;
};

/* Written by the hardware: the branch was predicted (model-specific). */
#define BTS_FLAG_PREDICTED	BIT_ULL(4)
/*
 * Set by bts: user-mode branches were not wanted, and this branch between
 * user and kernel mode had its user-space half (@from or @to) cleared.
 */
#define BTS_FLAG_USER_CLEARED	BIT_ULL(61)
/* Set by bts: @from is the faulting instruction, @to the exception entry. */
#define BTS_FLAG_FAULT		BIT_ULL(62)
/* Set by bts: recorded by the software source (a call edge, not BTS). */
#define BTS_FLAG_SW		BIT_ULL(63)

/**
 * enum bts_source_id - which kind of source produced a history
 * @BTS_SOURCE_NONE:	no source (nothing armed)
 * @BTS_SOURCE_HW:	Intel Branch Trace Store
 * @BTS_SOURCE_SW:	software: call edges seen by an ftrace_ops hook
 *
 * The values are part of the dump format (Documentation/trace/bts.rst).
 */
enum bts_source_id {
	BTS_SOURCE_NONE	= 0,
	BTS_SOURCE_HW	= 1,
	BTS_SOURCE_SW	= 2,
};

/**
 * enum bts_window - what a copied history covers
 * @BTS_WINDOW_EMPTY:	nothing was recorded since the CPU was armed
 * @BTS_WINDOW_PARTIAL:	the buffer never wrapped: everything since arming
 * @BTS_WINDOW_WRAPPED:	the buffer wrapped: older branches were overwritten
 */
enum bts_window {
	BTS_WINDOW_EMPTY	= 0,
	BTS_WINDOW_PARTIAL	= 1,
	BTS_WINDOW_WRAPPED	= 2,
};

/**
 * enum bts_reason - why a history was captured
 * @BTS_REASON_DUMP:	on demand (the tracer's dump file, bts_snapshot_cpu())
 * @BTS_REASON_OOPS:	oops_begin(): page fault, die(), die_addr()
 * @BTS_REASON_BUG:	BUG() (handle_bug() before report_bug())
 * @BTS_REASON_PANIC:	panic() entry
 * @BTS_REASON_GPF:	kernel #GP (exc_general_protection())
 * @BTS_REASON_WARN:	WARN(), only with the capture-on-WARN option
 * @BTS_REASON_MAX:	one past the last capture reason
 * @BTS_REASON_STREAM:	not a capture: a record streamed as it was taken
 *			(bts_stream_emit()), in the ftrace:bts entry only
 *
 * The values are part of the dump format and of the ftrace:bts entry.
 */
enum bts_reason {
	BTS_REASON_DUMP		= 0,
	BTS_REASON_OOPS		= 1,
	BTS_REASON_BUG		= 2,
	BTS_REASON_PANIC	= 3,
	BTS_REASON_GPF		= 4,
	BTS_REASON_WARN		= 5,
	BTS_REASON_MAX,
	/* bts-series: from stream */
	/* Not a fault: a record streamed as it was taken (bts_stream_emit()). */
	BTS_REASON_STREAM	= 6,
	/* bts-series: end */
};

/* Arm flags: record user-mode branches too (default: kernel and user). */
#define BTS_ARM_USER		BIT(0)
/* bts-series: from stream */
/*
 * Arm flag: stream mode. Besides keeping its history, the source hands
 * every record to bts_stream_emit() on the CPU that took the branch (as
 * it is taken, or in batches), and says how many it lost. A source that
 * cannot stream fails bts_arm() with -EOPNOTSUPP.
 */
#define BTS_ARM_STREAM		BIT(1)
/* bts-series: end */
/* bts-series: from pid */
/*
 * Arm flag: a task filter. Every CPU starts frozen, the source armed but
 * not recording, and stays so until the core's user says that a task it
 * chose runs there (bts_filter_this_cpu()). A source must honour it when
 * it arms a CPU, at bts_arm() and when a CPU comes online.
 */
#define BTS_ARM_FILTER		BIT(2)
/* bts-series: end */

/**
 * struct bts_source - a branch source
 * @name:	short name shown to users ("intel_bts", "sw")
 * @id:		BTS_SOURCE_*
 * @unavailable: returns NULL when the source can be armed on this
 *		machine, else a one-line reason ("no BTS: the CPU reports
 *		none", "taken by perf", ...) and, when @err is not NULL, the
 *		errno arming would fail with in *@err (-ENODEV absent,
 *		-EBUSY held by another user, -EPERM refused by policy).
 *		Process context.
 * @capacity:	records per CPU the source keeps while armed (or would
 *		keep if armed now). Any context.
 * @arm:	reserve what the source needs and start recording on every
 *		online CPU (and on CPUs that come online later), with the
 *		buffers cleared.
 * bts-series: from pid
 *		With BTS_ARM_FILTER, arm each CPU frozen instead: it
 *		records from its first thaw.
 * bts-series: end
 *		Process context, may sleep. Returns 0 or a
 *		negative errno (-EBUSY when another user holds the hardware,
 *		-ENODEV when it is absent, -ENOMEM).
 * @disarm:	stop recording everywhere and give back what @arm took.
 *		Process context, may sleep.
 * @freeze_this_cpu: stop recording on this CPU. IRQs off, NMI or oops
 *		context: no locks, no allocation, notrace. Must be safe to
 *		call on a CPU that is already frozen or was never armed.
 * @thaw_this_cpu: resume recording on this CPU after a freeze, keeping
 *		the buffer. Same context rules as @freeze_this_cpu.
 * @read_this_cpu: copy up to @n of this CPU's newest records into @buf,
 *		oldest first, and say in @window what they cover. Called
 *		with this CPU frozen, same context rules. Returns the number
 *		of records copied.
 * bts-series: from kdump
 * @stop_this_cpu: the machine is going down (kexec, kdump, reboot): stop
 *		recording on this CPU for good, whatever state the source
 *		thinks it is in, so that nothing writes into memory the next
 *		kernel will own. NMI and crash context: no locks. NULL when
 *		the source leaves nothing behind (the software source).
 * bts-series: end
 * bts-series: from stream
 * @nmi_enter:	an NMI began on this CPU: called from the first NMI
 *		handler, before the NMI code and the other handlers run. A
 *		source whose buffer an interrupt drains in stream mode stops
 *		recording here until its own handler, later in the same NMI,
 *		has drained it. NMI context, notrace. NULL when not needed.
 * bts-series: end
 * @list:	private to bts_core.c
 */
struct bts_source {
	const char *name;
	enum bts_source_id id;
	const char *(*unavailable)(int *err);
	unsigned int (*capacity)(void);
	int (*arm)(unsigned int arm_flags);
	void (*disarm)(void);
	void (*freeze_this_cpu)(void);
	void (*thaw_this_cpu)(void);
	unsigned int (*read_this_cpu)(struct bts_record *buf, unsigned int n,
				      enum bts_window *window);
	/* bts-series: from kdump */
	void (*stop_this_cpu)(void);
	/* bts-series: end */
	/* bts-series: from stream */
	void (*nmi_enter)(void);
	/* bts-series: end */
	struct list_head list;
};

/**
 * struct bts_snapshot - what a copied history is
 * @source:	BTS_SOURCE_* of the source that recorded it
 * @cpu:	the CPU it was recorded on
 * @count:	records copied
 * @capacity:	records per CPU the source keeps
 * @window:	enum bts_window
 * @reason:	enum bts_reason
 * @fault_index: index of the record flagged BTS_FLAG_FAULT, or U32_MAX
 * @timestamp:	local_clock() when the CPU was frozen, in ns
 * bts-series: from pid
 * @task_filter: armed with BTS_ARM_FILTER: only chosen tasks were recorded
 * @filter_held: the filter held the CPU frozen when this was taken: the
 *		task running then was not chosen, and the history ends
 *		where the last chosen task left the CPU
 * bts-series: end
 */
struct bts_snapshot {
	enum bts_source_id source;
	unsigned int cpu;
	unsigned int count;
	unsigned int capacity;
	enum bts_window window;
	enum bts_reason reason;
	u32 fault_index;
	u64 timestamp;
	/* bts-series: from pid */
	bool task_filter;
	bool filter_held;
	/* bts-series: end */
};

#ifdef CONFIG_BTS_TRACER

int bts_register_source(struct bts_source *src);
struct bts_source *bts_find_source(const char *name);
struct bts_source *bts_first_available_source(void);

int bts_arm(struct bts_source *src, unsigned int arm_flags);
unsigned int bts_armed_flags(void);

/* bts-series: from stream */
/**
 * typedef bts_stream_sink_t - where streamed records go (the tracer)
 * @recs:	records of this CPU, oldest first
 * @n:		how many (may be 0 when only @lost is news)
 * @lost:	records the source lost just before @recs (at least that
 *		many: a full hardware buffer drops an unknown number, and
 *		counts as one)
 * @paused:	@lost is a pause the source chose (stream mode's CPU-time
 *		budget kept it from recording), not a loss it suffered
 *
 * Called on the CPU that recorded them, in any context (NMI included),
 * with preemption off: must not sleep, allocate or take locks.
 */
typedef void (*bts_stream_sink_t)(const struct bts_record *recs,
				  unsigned int n, unsigned long lost,
				  bool paused);
void bts_set_stream_sink(bts_stream_sink_t sink);
void bts_stream_emit(const struct bts_record *recs, unsigned int n,
		     unsigned long lost, bool paused);
/*
 * Stream mode's CPU-time budget, percent: the share perf allows its own
 * interrupts by default (kernel.perf_cpu_time_max_percent), and 100 for
 * no limit, as there.
 */
#define BTS_STREAM_BUDGET_DEFAULT	25
#define BTS_STREAM_BUDGET_OFF		100
void bts_set_stream_budget(unsigned int pct);
unsigned int bts_stream_budget(void);
/* bts-series: end */
void bts_disarm(void);
struct bts_source *bts_armed_source(void);

int bts_snapshot_cpu(unsigned int cpu, struct bts_record *buf,
		     unsigned int n, struct bts_snapshot *snap);
unsigned int bts_snapshot_this_cpu(struct bts_record *buf, unsigned int n,
				   struct bts_snapshot *snap);
/* bts-series: from pid */
void bts_filter_this_cpu(bool record);
/* bts-series: end */

/* bts-series: from live */
/*
 * For debuggers reading the running kernel's memory (struct bts_live_table
 * in include/uapi/linux/bts.h): a source says where a CPU's history is
 * while it records there, and says NULL before it gives the buffer back.
 */
void bts_live_publish(unsigned int cpu, const struct bts_live_slot *slot);

/* bts-series: end */
/* bts-series: from capture */
DECLARE_STATIC_KEY_FALSE(bts_fault_key);
void __bts_fault_freeze(enum bts_reason reason, struct pt_regs *regs);
void __bts_fault_warn_done(void);
/* bts-series: end */
/* bts-series: from kdump */
DECLARE_STATIC_KEY_FALSE(bts_stop_key);
void __bts_crash_stop_this_cpu(void);
DECLARE_STATIC_KEY_FALSE(bts_crash_save_key);
void __bts_crash_save(void);
/* bts-series: end */

/* bts-series: from capture */
/**
 * bts_fault_freeze - freeze this CPU's branch history at a fault
 * @reason:	BTS_REASON_OOPS, _BUG, _PANIC, _GPF
 * @regs:	the faulting context, or NULL (panic)
 *
 * Called first thing on the oops, BUG, #GP and panic paths, with IRQs and
 * preemption in whatever state the path has them (handle_bug() runs with
 * the trap site's IRQ state; a #GP, before the handler turns IRQs on, with
 * IRQs off). A #GP the exception table fixes up is not captured. Costs
 * one static branch while bts is not capturing. Never sleeps, locks or
 * allocates.
 */
static __always_inline void bts_fault_freeze(enum bts_reason reason,
					     struct pt_regs *regs)
{
	if (static_branch_unlikely(&bts_fault_key))
		__bts_fault_freeze(reason, regs);
}

/**
 * bts_fault_warn_done - the BUG trap this task took turned out to be a WARN
 *
 * Keeps or drops the capture the trap took; the task may run on another
 * CPU than the one it trapped on.
 */
static __always_inline void bts_fault_warn_done(void)
{
	if (static_branch_unlikely(&bts_fault_key))
		__bts_fault_warn_done();
}

/* bts-series: end */
/* bts-series: from kdump */
/**
 * bts_crash_stop_this_cpu - stop branch recording here before kdump
 *
 * Called on every CPU on the crash path (the panicking CPU and, from the
 * NMI that stops them, the others), after the capture was taken at
 * panic() entry: a CPU must not go on storing records into memory the
 * crash kernel will use. One static branch once a hardware source has
 * been armed. No locks.
 */
static __always_inline void bts_crash_stop_this_cpu(void)
{
	if (static_branch_unlikely(&bts_stop_key))
		__bts_crash_stop_this_cpu();
}

/**
 * bts_crash_save - index the kept capture for the crash kernel
 *
 * Called on the kdump path on the panicking CPU, after the other CPUs
 * have stopped: fills the table VMCOREINFO names (BTS_TABLE=) with where
 * each CPU's captured history is, so that a reader of /proc/vmcore finds
 * it. One static branch unless a crash kernel was reserved at boot.
 * No locks, no allocation.
 */
static __always_inline void bts_crash_save(void)
{
	if (static_branch_unlikely(&bts_crash_save_key))
		__bts_crash_save();
}
/* bts-series: end */

/* bts-series: from capture */
#else /* !CONFIG_BTS_TRACER */

static inline void bts_fault_freeze(enum bts_reason reason,
				    struct pt_regs *regs) { }
static inline void bts_fault_warn_done(void) { }
/* bts-series: from kdump */
static inline void bts_crash_stop_this_cpu(void) { }
static inline void bts_crash_save(void) { }
/* bts-series: end */

/* bts-series: end */
#endif /* CONFIG_BTS_TRACER */

#endif /* _LINUX_BTS_H */
