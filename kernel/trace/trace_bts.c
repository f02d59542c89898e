// SPDX-License-Identifier: GPL-2.0
/*
 * trace_bts.c - the bts tracer: a per-CPU branch flight recorder.
 *
 *	echo bts > /sys/kernel/tracing/current_tracer
 *
 * arms a branch source on every CPU: Intel Branch Trace Store in circular
 * mode with CPL filtering off where the CPU has it, else (virtual machines,
 * other vendors) the software source, which records kernel call edges.
 * Nothing reaches the ring buffer until a dump is asked for: writing 1 to
 * bts/dump writes each CPU's newest nr_records branches, oldest first, as
 * ftrace:bts entries.
 * bts-series: from records
 * bts/per_cpu/cpuN/records reads them as a binary dump.
 * bts-series: end
 * bts-series: from capture-trace
 * When the kernel oopses, hits BUG() or panics, the faulting CPU is frozen
 * first thing, its history is captured and written into the ring buffer
 * before oops_enter() turns tracing off, so ftrace_dump_on_oops prints it;
 * bts/per_cpu/cpuN/capture keeps it until bts/capture is cleared.
 * bts-series: end
 * bts-series: from others
 * The other CPUs' histories are captured with it, through an NMI.
 * bts-series: end
 *
 * Layer: the tracer. It knows the ring buffer and tracefs, and nothing of
 * MSRs: sources come from bts_core.c.
 * bts-series: from capture-trace
 * Captures come from bts_capture.c.
 * bts-series: end
 * bts-series: from trigger
 * The bts_dump trigger's dump is in trace_bts_trigger.c.
 * bts-series: end
 * bts-series: from stream
 * Stream mode's sink, which writes records as they are taken, is in
 * trace_bts_stream.c; the mode is chosen here (bts/mode).
 * bts-series: end
 *
 * WARNING: with the hardware source the CPU stores a record for every
 * taken branch: expect a large slowdown. The software source costs a
 * function-tracer hook on every kernel function. Branch records reveal
 * kernel addresses (they defeat KASLR) and user control flow: every file
 * is root only, and the tracer is not available under lockdown.
 */
#define pr_fmt(fmt) "bts: " fmt

#include <linux/bts.h>
#include <linux/cpu.h>
#include <linux/init.h>
#include <linux/kallsyms.h>
#include <linux/mm.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/tracefs.h>
#include <linux/uaccess.h>
#include <linux/utsname.h>
/* bts-series: from records */
#include <uapi/linux/bts.h>
/* bts-series: end */
#include <asm/sections.h>
#include <asm/setup.h>

#include "trace.h"
#include "trace_output.h"
#include "trace_bts.h"
#include "bts_core.h"

/* Bounds of nr_records (BTS_NR_RECORDS_MAX in trace_bts.h). */
#define BTS_NR_RECORDS_DEFAULT	2730

/* Tracer options (trace_options, options/). */
#define BTS_OPT_USER		BIT(0)	/* record user-mode branches too */
/* bts-series: from capture-trace */
#define BTS_OPT_OOPS		BIT(1)	/* capture at oops, BUG, panic, #GP */
#define BTS_OPT_WARN		BIT(2)	/* capture at WARN too */
/* bts-series: end */
/* bts-series: from stream */
#define BTS_OPT_STREAM		BIT(3)	/* stream mode (bts/mode) */
/* bts-series: end */
/* bts-series: from capture-trace */
/* The options that re-arm the source; the others only change captures. */
/* bts-series: until stream */
#define BTS_OPT_REARM		BTS_OPT_USER
/* bts-series: end */
/* bts-series: from stream */
#define BTS_OPT_REARM		(BTS_OPT_USER | BTS_OPT_STREAM)
/* bts-series: end */
/* bts-series: end */

static struct tracer_opt bts_opts[] = {
	{ TRACER_OPT(bts_user, BTS_OPT_USER) },
	/* bts-series: from capture-trace */
	{ TRACER_OPT(bts_capture_oops, BTS_OPT_OOPS) },
	{ TRACER_OPT(bts_capture_warn, BTS_OPT_WARN) },
	/* bts-series: end */
	/* bts-series: from stream */
	{ TRACER_OPT(bts_stream, BTS_OPT_STREAM) },
	/* bts-series: end */
	{ } /* terminator */
};

/* User branches are opt-in: they reveal the control flow of processes. */
static struct tracer_flags bts_flags = {
	/* bts-series: until capture-trace */
	.val	= 0,
	/* bts-series: end */
	/* bts-series: from capture-trace */
	.val	= BTS_OPT_OOPS,
	/* bts-series: end */
	.opts	= bts_opts,
};

/* bts-series: until source */
/* Which source to arm: "auto" is hardware if usable, else sw. */
/* bts-series: end */
/* bts-series: from source */
/* What the source file selects; "auto" is hardware if usable, else sw. */
/* bts-series: end */
enum bts_select {
	BTS_SELECT_AUTO,
	BTS_SELECT_HW,
	BTS_SELECT_SW,
};

static const char * const bts_select_names[] = { "auto", "hw", "sw" };

/* bts_lock protects everything below, and is taken inside trace_types_lock. */
static DEFINE_MUTEX(bts_lock);
static bool bts_busy;			/* the single owner: see hwlat_busy */
static struct trace_array *bts_trace;	/* the instance that owns bts */
static enum bts_select bts_selected = BTS_SELECT_AUTO;
static u64 bts_nr_records = BTS_NR_RECORDS_DEFAULT;
/*
 * Where dumps and the records files take their snapshots, allocated while
 * the tracer is owned: an allocation in the dump path would fill the
 * newest records with the allocator's own branches.
 */
static struct bts_record *bts_scratch;
static u64 bts_nr_records_min = 1;
static u64 bts_nr_records_max = BTS_NR_RECORDS_MAX;

/*
 * The history of the CPU that writes bts/dump, taken before the write
 * takes any lock: lock debugging (lockdep's dependency walk, KASAN's
 * checks) can take more branches than a CPU's hardware history holds,
 * and would push the writer's own branches, the ones it asked about, out
 * of it. One buffer, claimed by one writer at a time (a concurrent writer
 * snapshots under bts_lock, as when there is no buffer). Allocated at the
 * first arming and never freed, so that no writer, which holds no lock
 * when it claims it, can find it freed: 64 KiB for the kernel's lifetime.
 */
static struct bts_record *bts_writer_recs;
static atomic_t bts_writer_claimed;

/* ------------------------------------------------------------------ */
/* Writing histories into the ring buffer                              */

/**
 * bts_emit - write one CPU's history into a trace array's ring buffer
 * @tr:		the trace array
 * @recs:	the history, oldest first
 * @snap:	what it is
 *
 * One ftrace:bts_history entry (the CPU, its kernel's _stext, KASLR
 * offset, release and build ID), then one ftrace:bts entry per record,
 * on the writing CPU's buffer; the entries' cpu field says whose history
 * it is. Any context: the ring buffer is NMI safe and this allocates
 * nothing.
 *
 * Return: the number of entries written (less than snap->count when the
 * buffer is off or full).
 */
unsigned int notrace bts_emit(struct trace_array *tr,
			      const struct bts_record *recs,
			      const struct bts_snapshot *snap)
{
	struct trace_buffer *buffer = tr->array_buffer.buffer;
	unsigned int trace_ctx = tracing_gen_ctx();
	struct bts_history_entry *head;
	struct ring_buffer_event *event;
	struct bts_entry *entry;
	unsigned int i;

	if (!snap->count)
		return 0;
	/* What a reader of the console needs to symbolize what follows. */
	event = trace_buffer_lock_reserve(buffer, TRACE_BTS_HISTORY,
					  sizeof(*head), trace_ctx);
	if (event) {
		head = ring_buffer_event_data(event);
		head->stext = (unsigned long)_stext;
		head->kaslr = kaslr_offset();
		head->cpu = snap->cpu;
		head->nr = snap->count;
		head->reason = snap->reason;
		/* bts-series: from pid */
		head->filter = snap->task_filter |
			       (snap->task_filter && snap->filter_held) << 1;
		/* bts-series: end */
		strscpy(head->release, init_utsname()->release,
			sizeof(head->release));
		memcpy(head->build_id, bts_kernel_build_id_hex(),
		       sizeof(head->build_id));
		trace_buffer_unlock_commit_nostack(buffer, event);
	}
	for (i = 0; i < snap->count; i++) {
		event = trace_buffer_lock_reserve(buffer, TRACE_BTS,
						  sizeof(*entry), trace_ctx);
		if (!event)
			break;
		entry = ring_buffer_event_data(event);
		entry->from = recs[i].from;
		entry->to = recs[i].to;
		entry->flags = recs[i].flags;
		entry->cpu = snap->cpu;
		entry->pos = i;
		entry->nr = snap->count;
		entry->reason = snap->reason;
		trace_buffer_unlock_commit_nostack(buffer, event);
	}
	return i;
}

/* bts-series: from trigger */
/* bts/nr_records, for a trigger's dump: any context. */
unsigned int notrace bts_dump_nr_records(void)
{
	return READ_ONCE(bts_nr_records);
}

/* bts-series: end */
/* bts-series: from capture-trace */
/*
 * Called by the core with IRQs off (in NMI for the CPUs reached by the
 * capture NMI), before oops_enter() turns tracing off: write @cpu's
 * captured history into the ring buffer of the CPU this runs on, which is
 * @cpu itself except for a trapping CPU the faulting task left. Each CPU's
 * own buffer: one CPU's history never overwrites another's. When that
 * buffer is smaller than the history, the ring buffer keeps the newest
 * entries, the ones nearest the fault; the capture files keep all. What
 * the ring buffer refuses (tracing is off, as traceoff_on_warning turns
 * it off inside a WARN) is counted and shown in bts/capture.
 */
/* Entries of the kept capture the ring buffer did not take. */
static atomic64_t bts_capture_unwritten;

static void notrace bts_emit_capture(unsigned int cpu,
				     const struct bts_record *recs,
				     const struct bts_snapshot *capsnap)
{
	struct trace_array *tr = READ_ONCE(bts_trace);
	struct bts_snapshot snap = *capsnap;
	unsigned int skip;

	if (!tr)
		return;
	/* The newest nr_records; the capture files hold all. */
	skip = snap.count > bts_nr_records ? snap.count - bts_nr_records : 0;
	snap.count -= skip;
	/* Tracing off (traceoff_on_warning, tracing_on 0) or full: say so. */
	atomic64_add(snap.count - bts_emit(tr, recs + skip, &snap),
		     &bts_capture_unwritten);
}

/* bts-series: end */
/* bts-series: from persist */
/**
 * bts_emit_last_boot - write a previous boot's history into the ring buffer
 * @d:		its dump header (the previous boot's _stext and _etext)
 * @recs:	its @d->count records
 *
 * For trace, trace_pipe and trace-cmd: the owner's trace array, or the
 * top level's when bts is not the current tracer. Kernel text addresses
 * are moved by the KASLR offsets' difference (same build: the caller
 * checked the build ID), so the output names the right symbols; other
 * addresses (user, modules) are written as they were. Process context.
 *
 * Return: 0, -ENOMEM, or -ENOSPC when the ring buffer did not take all.
 */
static int bts_emit_last_boot(const struct bts_dump_header *d,
			      const struct bts_record *recs)
{
	s64 delta = (s64)((unsigned long)_stext - d->stext);
	struct bts_snapshot snap = {
		.source = d->source, .cpu = d->cpu, .count = d->count,
		.capacity = d->capacity, .reason = d->reason,
		.fault_index = d->fault_index, .timestamp = d->timestamp_ns,
		/* bts-series: from pid */
		.task_filter = d->flags & BTS_DUMP_TASK_FILTER,
		.filter_held = d->flags & BTS_DUMP_FILTER_HELD,
		/* bts-series: end */
	};
	struct bts_record *moved;
	struct trace_array *tr;
	unsigned int i, n;

	/*
	 * The top level's buffer is kept minimal until tracing is first
	 * used: bring it to its size (it takes trace_types_lock, which is
	 * taken before bts_lock). An owner's buffer was, when it took bts.
	 */
	if (!READ_ONCE(bts_busy) && tracing_update_buffers(top_trace_array()))
		return -ENOMEM;
	moved = kvcalloc(d->count ?: 1, sizeof(*moved), GFP_KERNEL);
	if (!moved)
		return -ENOMEM;
	for (i = 0; i < d->count; i++) {
		moved[i] = recs[i];
		if (recs[i].from >= d->stext && recs[i].from < d->etext)
			moved[i].from += delta;
		if (recs[i].to >= d->stext && recs[i].to < d->etext)
			moved[i].to += delta;
	}
	mutex_lock(&bts_lock);
	tr = bts_busy ? bts_trace : top_trace_array();
	n = tr ? bts_emit(tr, moved, &snap) : 0;
	mutex_unlock(&bts_lock);
	kvfree(moved);
	return n == d->count ? 0 : -ENOSPC;
}
/* bts-series: end */

/* ------------------------------------------------------------------ */
/* Sources and arming                                                   */

static struct bts_source *bts_selected_source(enum bts_select sel)
{
	switch (sel) {
	case BTS_SELECT_HW:
		return bts_find_source("hw");
	case BTS_SELECT_SW:
		return bts_find_source("sw");
	default:
		return bts_first_available_source();
	}
}

/* bts-series: from capture-trace */
static unsigned int bts_capture_reasons(u32 opts)
{
	unsigned int reasons = 0;

	if (opts & BTS_OPT_OOPS)
		reasons |= BIT(BTS_REASON_OOPS) | BIT(BTS_REASON_BUG) |
			   BIT(BTS_REASON_PANIC) | BIT(BTS_REASON_GPF);
	if (opts & BTS_OPT_WARN)
		reasons |= BIT(BTS_REASON_BUG) | BIT(BTS_REASON_WARN);
	return reasons;
}

/* bts-series: end */
/*
 * Arm the selected source for @tr with the current options.
 * bts_lock held. On failure nothing is armed and the reason is logged.
 */
static int bts_start_recording(struct trace_array *tr, enum bts_select sel,
			       u32 opts)
{
	struct bts_source *src = bts_selected_source(sel);
	unsigned int arm_flags = (opts & BTS_OPT_USER) ? BTS_ARM_USER : 0;
	/* bts-series: from pid */
	bool filter = bts_pid_filtering(tr);
	/* bts-series: end */
	int ret;

	if (!src) {
		pr_info("no branch source for \"%s\"\n", bts_select_names[sel]);
		return -ENODEV;
	}
	/* bts-series: from pid */
	ret = bts_pid_prepare(tr, filter);
	if (ret)
		return ret;
	if (filter)
		arm_flags |= BTS_ARM_FILTER;
	/* bts-series: end */
	/* bts-series: from stream */
	if (opts & BTS_OPT_STREAM) {
		arm_flags |= BTS_ARM_STREAM;
		bts_stream_start(tr);
	}
	/* bts-series: end */
	ret = bts_arm(src, arm_flags);
	/* bts-series: until stream */
	if (ret)
		return ret;
	/* bts-series: end */
	/* bts-series: from stream */
	if (ret) {
		bts_stream_stop();
		return ret;
	}
	/* bts-series: end */
	/* bts-series: from capture-trace */
	ret = bts_capture_enable(bts_capture_reasons(opts), bts_emit_capture);
	if (ret) {
		bts_disarm();
		/* bts-series: from stream */
		bts_stream_stop();
		/* bts-series: end */
		return ret;
	}
	/* bts-series: end */
	/* bts-series: until stream */
	pr_info("recording with source %s (%u records per CPU)\n",
		src->name, src->capacity());
	/* bts-series: end */
	/* bts-series: from stream */
	pr_info("recording with source %s (%u records per CPU%s)\n",
		src->name, src->capacity(),
		(opts & BTS_OPT_STREAM) ? ", streaming" : "");
	/* bts-series: end */
	/* bts-series: from pid */
	if (filter) {
		pr_info("recording only the tasks set_ftrace_pid chooses\n");
		bts_pid_armed(tr);
	}
	/* bts-series: end */
	/* tracing_on is 0: record nothing until it is 1 (bts_tracer_start) */
	if (!tracer_tracing_is_on(tr))
		bts_pause(true);
	return 0;
}

static void bts_stop_recording(void)
{
	/* bts-series: from capture-trace */
	bts_capture_disable();
	/* bts-series: end */
	bts_disarm();
	/* bts-series: from stream */
	/* After the disarm: no source hands records over any more. */
	bts_stream_stop();
	/* bts-series: end */
}

/* Re-arm with new settings; on failure go back to the old ones. */
static int bts_rearm(enum bts_select sel, u32 opts)
{
	int ret;

	bts_stop_recording();
	ret = bts_start_recording(bts_trace, sel, opts);
	if (ret && bts_start_recording(bts_trace, bts_selected, bts_flags.val))
		pr_warn("could not re-arm the previous source\n");
	return ret;
}

/* bts-series: from source */
/* ------------------------------------------------------------------ */
/* tracefs: bts/source                                                  */

static void bts_show_source(struct bts_source *src, void *data)
{
	struct seq_file *m = data;
	const char *why = src == bts_armed_source() ? NULL :
			  src->unavailable(NULL);

	seq_printf(m, "%s: %s (%s, %u records per CPU)%s%s\n",
		   src->id == BTS_SOURCE_HW ? "hw" : "sw", src->name,
		   src->id == BTS_SOURCE_HW ? "hardware branch trace store" :
					      "software: kernel call edges",
		   src->capacity(), why ? ": unavailable: " : "",
		   why ? why : "");
}

static int bts_source_show(struct seq_file *m, void *v)
{
	struct bts_source *armed;
	int i;

	mutex_lock(&bts_lock);
	for (i = 0; i < ARRAY_SIZE(bts_select_names); i++)
		seq_printf(m, i == bts_selected ? "%s[%s]" : "%s%s",
			   i ? " " : "", bts_select_names[i]);
	armed = bts_armed_source();
	seq_printf(m, "\nactive: %s\n", armed ? armed->name : "none");
	bts_visit_sources(bts_show_source, m);
	mutex_unlock(&bts_lock);
	return 0;
}

/* Open of the text files: their show function is the inode's data. */
static int bts_seq_open(struct inode *inode, struct file *file)
{
	int (*show)(struct seq_file *m, void *v) = inode->i_private;
	int ret = tracing_check_open_get_tr(NULL);

	return ret ? ret : single_open(file, show, NULL);
}

static ssize_t bts_source_write(struct file *file, const char __user *ubuf,
				size_t cnt, loff_t *ppos)
{
	char buf[16];
	int sel, ret;

	if (cnt >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, cnt))
		return -EFAULT;
	buf[cnt] = '\0';
	sel = sysfs_match_string(bts_select_names, strim(buf));
	if (sel < 0)
		return -EINVAL;

	mutex_lock(&trace_types_lock);
	mutex_lock(&bts_lock);
	ret = 0;
	if (sel != BTS_SELECT_AUTO && !bts_selected_source(sel)) {
		pr_info("source %s: not built in\n", bts_select_names[sel]);
		ret = -ENODEV;
	} else if (sel == BTS_SELECT_HW && !bts_busy) {
		/* Say now, not at the next "echo bts", why hw cannot work. */
		struct bts_source *src = bts_selected_source(sel);
		const char *why;

		ret = -ENODEV;
		why = src->unavailable(&ret);
		if (why)
			pr_info("source %s unavailable: %s\n", src->name, why);
		else
			ret = 0;
	}
	if (!ret && bts_busy && sel != bts_selected)
		ret = bts_rearm(sel, bts_flags.val);
	if (!ret)
		bts_selected = sel;
	mutex_unlock(&bts_lock);
	mutex_unlock(&trace_types_lock);
	return ret ? ret : cnt;
}

static const struct file_operations bts_source_fops = {
	.open		= bts_seq_open,
	.read		= seq_read,
	.write		= bts_source_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/* bts-series: end */
/* bts-series: from stream */
/* ------------------------------------------------------------------ */
/* tracefs: bts/mode                                                    */

static const char * const bts_mode_names[] = { "ring", "stream" };

static int bts_mode_show(struct seq_file *m, void *v)
{
	bool stream = READ_ONCE(bts_flags.val) & BTS_OPT_STREAM;

	seq_printf(m, stream ? "%s [%s]\n" : "[%s] %s\n", bts_mode_names[0],
		   bts_mode_names[1]);
	return 0;
}

/*
 * The same state as the bts_stream option (trace_options, which is how
 * trace-cmd record -O bts_stream sets it): a change re-arms the source,
 * and a source that cannot stream leaves everything as it was.
 */
static ssize_t bts_mode_write(struct file *file, const char __user *ubuf,
			      size_t cnt, loff_t *ppos)
{
	char buf[16];
	int mode, ret = 0;
	u32 opts;

	if (cnt >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, cnt))
		return -EFAULT;
	buf[cnt] = '\0';
	mode = sysfs_match_string(bts_mode_names, strim(buf));
	if (mode < 0)
		return -EINVAL;

	mutex_lock(&trace_types_lock);
	mutex_lock(&bts_lock);
	opts = mode ? bts_flags.val | BTS_OPT_STREAM :
		      bts_flags.val & ~BTS_OPT_STREAM;
	if (opts != bts_flags.val && bts_busy)
		ret = bts_rearm(bts_selected, opts);
	if (!ret)
		bts_flags.val = opts;
	mutex_unlock(&bts_lock);
	mutex_unlock(&trace_types_lock);
	return ret ? ret : cnt;
}

static const struct file_operations bts_mode_fops = {
	.open		= bts_seq_open,
	.read		= seq_read,
	.write		= bts_mode_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/* bts-series: end */
/* ------------------------------------------------------------------ */
/* tracefs: bts/dump                                                    */

/**
 * bts_writer_snapshot - take the dump writer's CPU history, lock-free
 * @snap:	filled in: what was taken
 *
 * Called by the writer of bts/dump before it takes any lock, with IRQs
 * on; takes this CPU's newest nr_records into bts_writer_recs with IRQs
 * off (so on one CPU, and in the order they were recorded).
 *
 * Return: true when the buffer was claimed and holds the snapshot (the
 * caller hands it back with bts_writer_release()); false when there is
 * no buffer yet, another writer has it, or nothing is armed.
 */
static bool bts_writer_snapshot(struct bts_snapshot *snap)
{
	/* Pairs with the release that publishes it: it is zeroed. */
	struct bts_record *recs = smp_load_acquire(&bts_writer_recs);
	unsigned int n = min_t(u64, READ_ONCE(bts_nr_records),
			       BTS_NR_RECORDS_MAX);
	unsigned long flags;

	if (!recs || atomic_cmpxchg_acquire(&bts_writer_claimed, 0, 1))
		return false;
	local_irq_save(flags);
	bts_snapshot_this_cpu(recs, n, snap);
	local_irq_restore(flags);
	if (snap->source != BTS_SOURCE_NONE)
		return true;
	atomic_set_release(&bts_writer_claimed, 0);
	return false;
}

static void bts_writer_release(void)
{
	atomic_set_release(&bts_writer_claimed, 0);
}

/*
 * Dump every online CPU's newest nr_records branches into the owner's
 * ring buffer; @early, when not NULL, is the writer's CPU's, taken by
 * bts_writer_snapshot() before the locks. bts_lock held.
 */
static int bts_dump_all(const struct bts_snapshot *early)
{
	unsigned int n = bts_nr_records, written = 0, wanted = 0, skip;
	struct bts_record *recs;
	struct bts_snapshot snap;
	int cpu, ret = 0;

	cpus_read_lock();
	/*
	 * The writer's CPU first, before the other CPUs' IPIs add to its
	 * history: its newest records are the ones that led to this dump.
	 * raw_: if the writer has since migrated, the CPU it wrote from
	 * still holds that history.
	 */
	for_each_cpu_wrap(cpu, cpu_online_mask,
			  early ? early->cpu : raw_smp_processor_id()) {
		if (early && cpu == early->cpu) {
			/* nr_records may have been lowered since: the newest */
			snap = *early;
			skip = snap.count > n ? snap.count - n : 0;
			snap.count -= skip;
			recs = bts_writer_recs + skip;
		} else {
			ret = bts_snapshot_cpu(cpu, bts_scratch, n, &snap);
			if (ret < 0)
				break;
			ret = 0;
			recs = bts_scratch;
		}
		wanted += snap.count;
		written += bts_emit(bts_trace, recs, &snap);
	}
	cpus_read_unlock();
	if (!ret && written < wanted)
		ret = -ENOSPC;	/* tracing_on is 0, or the buffer is too small */
	return ret;
}

/**
 * bts_write_expect() - parse a control write that must be one number
 * @ubuf: the user buffer
 * @cnt: its length
 * @want: the only value the file accepts
 *
 * Return: 0 when the write is exactly @want (a trailing newline allowed),
 * -EINVAL for any other number and the kstrto*() errno for text that is
 * not a number. Nothing has been changed when it fails.
 */
static int bts_write_expect(const char __user *ubuf, size_t cnt,
			    unsigned long want)
{
	unsigned long val;
	int ret;

	ret = kstrtoul_from_user(ubuf, cnt, 10, &val);
	if (ret)
		return ret;
	return val == want ? 0 : -EINVAL;
}

static ssize_t bts_dump_write(struct file *file, const char __user *ubuf,
			      size_t cnt, loff_t *ppos)
{
	struct bts_snapshot early;
	bool have_early;
	int ret;

	/*
	 * First, before even the copy from user space: with lock debugging
	 * its might_fault() annotation alone is hundreds of branches.
	 */
	have_early = bts_writer_snapshot(&early);
	ret = bts_write_expect(ubuf, cnt, 1);
	if (!ret) {
		mutex_lock(&bts_lock);
		ret = bts_busy ? bts_dump_all(have_early ? &early : NULL) :
				 -ENODEV;
		mutex_unlock(&bts_lock);
	}
	if (have_early)
		bts_writer_release();
	return ret ? ret : cnt;
}

static const struct file_operations bts_dump_fops = {
	.open		= tracing_open_generic,
	.write		= bts_dump_write,
	.llseek		= noop_llseek,
};

/* What ftrace:bts entries call enum bts_reason. */
static const char * const bts_reason_names[] = {
	[BTS_REASON_DUMP]	= "dump",
	[BTS_REASON_OOPS]	= "oops",
	[BTS_REASON_BUG]	= "BUG",
	[BTS_REASON_PANIC]	= "panic",
	[BTS_REASON_GPF]	= "GPF",
	[BTS_REASON_WARN]	= "WARN",
	/* bts-series: from stream */
	[BTS_REASON_STREAM]	= "stream",
	/* bts-series: end */
};

/* bts-series: from capture-trace */
/* ------------------------------------------------------------------ */
/* tracefs: bts/capture                                                 */

static int bts_capture_show(struct seq_file *m, void *v)
{
	enum bts_reason reason;
	int cpu, kept, c;
	bool pending;

	if (bts_capture_status(&cpu, &reason, &pending) && !pending)
		seq_printf(m, "%s on cpu %d, later faults not kept: %llu\n",
			   bts_reason_names[reason], cpu, bts_capture_lost());
	else if (bts_capture_lost())
		/* a CPU kept a fault during the last clear, then faulted again */
		seq_printf(m, "none, later faults not kept: %llu\n",
			   bts_capture_lost());
	else
		seq_puts(m, "none\n");
	/* Each CPU's own fault, kept on that CPU, or its trap pending. */
	kept = pending ? -1 : cpu;
	for_each_possible_cpu(c) {
		switch (bts_capture_fault(c, &reason)) {
		case BTS_FAULT_KEPT:
			if (c != kept)
				seq_printf(m, "cpu %d: %s, kept in per_cpu/cpu%d/capture\n",
					   c, bts_reason_names[reason], c);
			break;
		case BTS_FAULT_PENDING:
			seq_printf(m, "cpu %d: %s (pending: its trap has not ended)\n",
				   c, bts_reason_names[reason]);
			break;
		default:
			break;
		}
	}
	if (bts_capture_dropped())
		seq_printf(m, "dropped: %llu (traps that never ended in an oops or WARN)\n",
			   bts_capture_dropped());
	if (atomic64_read(&bts_capture_unwritten))
		seq_printf(m, "not written to the ring buffer (tracing off, or full): %lld entries\n",
			   atomic64_read(&bts_capture_unwritten));
	return 0;
}

static ssize_t bts_capture_write(struct file *file, const char __user *ubuf,
				 size_t cnt, loff_t *ppos)
{
	int ret;

	ret = bts_write_expect(ubuf, cnt, 0);
	if (ret)
		return ret;
	mutex_lock(&bts_lock);
	ret = bts_capture_clear();
	if (!ret)
		atomic64_set(&bts_capture_unwritten, 0);
	mutex_unlock(&bts_lock);
	return ret ? ret : cnt;
}

static const struct file_operations bts_capture_fops = {
	.open		= bts_seq_open,
	.read		= seq_read,
	.write		= bts_capture_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/* bts-series: end */
/* bts-series: from records */
/* ------------------------------------------------------------------ */
/* tracefs: bts/per_cpu/cpuN/{records,capture}: binary dumps            */

struct bts_dump_file {
	size_t size;
	u8 data[];	/* struct bts_dump_header, then the records */
};

/* Process context: it looks the source up under the core's mutex. */
static void bts_fill_header(struct bts_dump_header *h,
			    const struct bts_snapshot *snap, unsigned int cpu,
			    bool capture, u32 opts)
{
	bts_fill_dump_header(h, snap, cpu, capture, opts & BTS_OPT_USER,
			     bts_find_source(snap->source == BTS_SOURCE_HW ?
					     "hw" : "sw"));
}

static int bts_percpu_open(struct inode *inode, struct file *file)
{
	unsigned int cpu = (unsigned long)inode->i_private & ~1UL;
	bool capture = (unsigned long)inode->i_private & 1UL;
	const struct bts_record *cap_recs;
	struct bts_dump_file *df;
	struct bts_snapshot snap;
	unsigned int n;
	int ret;

	ret = tracing_check_open_get_tr(NULL);
	if (ret)
		return ret;
	cpu >>= 1;
	mutex_lock(&bts_lock);
	n = capture ? BTS_NR_RECORDS_MAX : bts_nr_records;
	memset(&snap, 0, sizeof(snap));
	snap.fault_index = U32_MAX;
	snap.cpu = cpu;
	cap_recs = NULL;
	/* bts-series: until capture-trace */
	if (!bts_busy) {
	/* bts-series: end */
	/* bts-series: from capture-trace */
	if (capture) {
		if (!bts_capture_get(cpu, &cap_recs, &snap))
			cap_recs = NULL;
	} else if (!bts_busy) {
	/* bts-series: end */
		ret = -ENODEV;
	} else if (!cpu_online(cpu)) {
		ret = -ENXIO;
	} else {
		/* The snapshot first, before the allocation below. */
		ret = bts_snapshot_cpu(cpu, bts_scratch, n, &snap);
		ret = ret < 0 ? ret : 0;
		cap_recs = bts_scratch;
	}
	if (ret)
		goto out;
	snap.count = min(snap.count, n);
	df = kvzalloc(struct_size(df, data, sizeof(struct bts_dump_header) +
				  n * sizeof(struct bts_record)), GFP_KERNEL);
	if (!df) {
		ret = -ENOMEM;
		goto out;
	}
	if (cap_recs)
		memcpy(df->data + sizeof(struct bts_dump_header), cap_recs,
		       snap.count * sizeof(*cap_recs));
	bts_fill_header((struct bts_dump_header *)df->data, &snap, cpu,
			capture, bts_flags.val);
	df->size = sizeof(struct bts_dump_header) +
		   snap.count * sizeof(struct bts_record);
	file->private_data = df;
out:
	mutex_unlock(&bts_lock);
	return ret;
}

static ssize_t bts_percpu_read(struct file *file, char __user *ubuf,
			       size_t cnt, loff_t *ppos)
{
	struct bts_dump_file *df = file->private_data;

	return simple_read_from_buffer(ubuf, cnt, ppos, df->data, df->size);
}

static int bts_percpu_release(struct inode *inode, struct file *file)
{
	kvfree(file->private_data);
	return 0;
}

static const struct file_operations bts_percpu_fops = {
	.open		= bts_percpu_open,
	.read		= bts_percpu_read,
	.llseek		= default_llseek,
	.release	= bts_percpu_release,
};
/* bts-series: end */

/* bts-series: from testing */
#ifdef CONFIG_BTS_TRACER_TESTING
/*
 * bts/test_fault (test kernels only): see bts_test_fault.c. "gpf" faults,
 * "gpf-irq" faults with an interrupt waiting behind the #GP;
 * "call N" (N up to 1000) enters bts_test_target() N times;
 * "persist-corrupt" damages what the next panic keeps for the next boot,
 * after its checksum (that boot must reject it); "persist-cpu N" makes it
 * keep its second history under CPU number N (that boot must skip it);
 * "panic-timekeeping" panics from inside the next timekeeping update's
 * write section.
 */
static ssize_t bts_test_fault_write(struct file *file,
				    const char __user *ubuf, size_t cnt,
				    loff_t *ppos)
{
	unsigned int n;
	char buf[24];

	if (cnt >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, cnt))
		return -EFAULT;
	buf[cnt] = '\0';
	if (sscanf(strim(buf), "call %u", &n) == 1) {
		if (n > 1000)
			return -EINVAL;
		bts_test_call(n);
		return cnt;
	}
	if (sscanf(strim(buf), "persist-cpu %u", &n) == 1) {
		bts_persist_test_cpu(n);
		return cnt;
	}
	if (!strcmp(strim(buf), "persist-corrupt")) {
		bts_persist_test_corrupt();
		return cnt;
	}
	if (!strcmp(strim(buf), "panic-timekeeping")) {
		pr_info("test_fault: panicking at the next timekeeping update\n");
		return bts_test_panic_in_timekeeping() ?: cnt;
	}
	if (!strcmp(strim(buf), "gpf-irq")) {
		pr_info("test_fault: reading a non-canonical address, an interrupt waiting\n");
		bts_test_gpf_irq();
		return cnt;
	}
	if (strcmp(strim(buf), "gpf"))
		return -EINVAL;
	pr_info("test_fault: reading a non-canonical address\n");
	bts_test_gpf();
	return cnt;
}

static const struct file_operations bts_test_fault_fops = {
	.open		= tracing_open_generic,
	.write		= bts_test_fault_write,
	.llseek		= noop_llseek,
};

/*
 * bts/bench (test kernels only): time a dump of this CPU's newest
 * nr_records into the ring buffer (snapshot + emit) against a memcpy of
 * the same bytes, best of BTS_BENCH_ROUNDS, in one run. Figures only.
 */
#define BTS_BENCH_ROUNDS	5

static int bts_bench_show(struct seq_file *m, void *v)
{
	u64 dump_ns = U64_MAX, copy_ns = U64_MAX, t0, t1;
	unsigned int n, count = 0;
	struct bts_snapshot snap;
	struct bts_record *recs;
	void *dst;
	int i;

	mutex_lock(&bts_lock);
	n = bts_nr_records;
	recs = kvcalloc(n, sizeof(*recs), GFP_KERNEL);
	dst = kvcalloc(n, sizeof(*recs), GFP_KERNEL);
	if (!bts_busy || !recs || !dst) {
		seq_puts(m, bts_busy ? "out of memory\n" : "select the bts tracer first\n");
		goto out;
	}
	for (i = 0; i < BTS_BENCH_ROUNDS; i++) {
		local_irq_disable();
		t0 = local_clock();
		count = bts_snapshot_this_cpu(recs, n, &snap);
		bts_emit(bts_trace, recs, &snap);
		t1 = local_clock();
		local_irq_enable();
		dump_ns = min(dump_ns, t1 - t0);
		local_irq_disable();
		t0 = local_clock();
		memcpy(dst, recs, count * sizeof(*recs));
		barrier_data(dst);
		t1 = local_clock();
		local_irq_enable();
		copy_ns = min(copy_ns, t1 - t0);
	}
	dump_ns = max(dump_ns, 1ULL);
	copy_ns = max(copy_ns, 1ULL);
	seq_printf(m, "records %u (source %s, %zu bytes)\n", count,
		   bts_armed_source() ? bts_armed_source()->name : "none",
		   count * sizeof(*recs));
	seq_printf(m, "dump into ring buffer: %llu ns, %llu records/s\n",
		   dump_ns, div64_u64((u64)count * NSEC_PER_SEC, dump_ns));
	seq_printf(m, "memcpy of the same bytes: %llu ns, %llu records/s\n",
		   copy_ns, div64_u64((u64)count * NSEC_PER_SEC, copy_ns));
	seq_printf(m, "ratio dump/memcpy: %llu.%02llu\n", div64_u64(dump_ns, copy_ns),
		   div64_u64(dump_ns * 100, copy_ns) % 100);
out:
	mutex_unlock(&bts_lock);
	kvfree(recs);
	kvfree(dst);
	return 0;
}

static const struct file_operations bts_bench_fops = {
	.open		= bts_seq_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};
#endif
/* bts-series: end */

static struct trace_min_max_param bts_nr_records_param = {
	.lock	= &bts_lock,
	.val	= &bts_nr_records,
	.min	= &bts_nr_records_min,
	.max	= &bts_nr_records_max,
};

static int __init bts_init_tracefs(void)
{
	/* bts-series: until records */
	struct dentry *top;
	int ret;
	/* bts-series: end */
	/* bts-series: from records */
	struct dentry *top, *percpu, *dir;
	char name[16];
	int ret, cpu;
	/* bts-series: end */

	ret = tracing_init_dentry();
	if (ret)
		return ret;
	top = tracefs_create_dir("bts", NULL);
	if (!top)
		return -ENOMEM;
	/* bts-series: from persist */
	/* Not before: without bts/ the region is left as it is. */
	bts_persist_init(top, bts_emit_last_boot);
	/* bts-series: end */
	/* bts-series: from source */
	trace_create_file("source", TRACE_MODE_WRITE, top, bts_source_show,
			  &bts_source_fops);
	/* bts-series: end */
	trace_create_file("nr_records", TRACE_MODE_WRITE, top,
			  &bts_nr_records_param, &trace_min_max_fops);
	/* bts-series: from stream */
	trace_create_file("mode", TRACE_MODE_WRITE, top, bts_mode_show,
			  &bts_mode_fops);
	bts_stream_init(top);
	/* bts-series: end */
	trace_create_file("dump", 0200, top, NULL, &bts_dump_fops);
	/* bts-series: from trigger */
	bts_trigger_init_tracefs(top);
	/* bts-series: end */
	/* bts-series: from capture-trace */
	trace_create_file("capture", TRACE_MODE_WRITE, top, bts_capture_show,
			  &bts_capture_fops);
	/* bts-series: end */
	/* bts-series: from testing */
#ifdef CONFIG_BTS_TRACER_TESTING
	trace_create_file("test_fault", 0200, top, NULL, &bts_test_fault_fops);
	trace_create_file("bench", TRACE_MODE_READ, top, bts_bench_show,
			  &bts_bench_fops);
#endif
	/* bts-series: end */
	/* bts-series: from records */
	percpu = tracefs_create_dir("per_cpu", top);
	if (!percpu)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		snprintf(name, sizeof(name), "cpu%d", cpu);
		dir = tracefs_create_dir(name, percpu);
		if (!dir)
			return -ENOMEM;
		trace_create_file("records", TRACE_MODE_READ, dir,
				  (void *)((unsigned long)cpu << 1),
				  &bts_percpu_fops);
		/* bts-series: from capture-trace */
		trace_create_file("capture", TRACE_MODE_READ, dir,
				  (void *)(((unsigned long)cpu << 1) | 1),
				  &bts_percpu_fops);
		/* bts-series: end */
	}
	/* bts-series: end */
	return 0;
}

/* ------------------------------------------------------------------ */
/* Output of ftrace:bts entries in trace and trace_pipe                 */

/* The reason an entry names after its markers; NULL for a dump. */
static const char *bts_entry_reason(unsigned int reason)
{
	if (!reason || reason >= ARRAY_SIZE(bts_reason_names))
		return NULL;
	return bts_reason_names[reason];
}

static enum print_line_t bts_entry_print(struct trace_iterator *iter,
					 int flags, struct trace_event *event)
{
	struct trace_seq *s = &iter->seq;
	struct bts_entry *field;

	trace_assign_type(field, iter->ent);
	trace_seq_printf(s, "cpu=%u %u/%u %pS -> %pS @%08x:%08x%s%s%s%s\n",
			 field->cpu, field->pos, field->nr,
			 (void *)field->from, (void *)field->to,
			 (unsigned int)field->from, (unsigned int)field->to,
			 field->flags & BTS_FLAG_FAULT ? " [fault]" : "",
			 field->flags & BTS_FLAG_SW ? " [sw]" : "",
			 bts_entry_reason(field->reason) ? " " : "",
			 bts_entry_reason(field->reason) ?: "");
	return trace_handle_return(s);
}

static enum print_line_t bts_entry_raw(struct trace_iterator *iter, int flags,
				       struct trace_event *event)
{
	struct bts_entry *field;

	trace_assign_type(field, iter->ent);
	trace_seq_printf(&iter->seq, "%u %u %u %u 0x%lx 0x%lx 0x%lx\n",
			 field->cpu, field->pos, field->nr, field->reason,
			 field->from, field->to, field->flags);
	return trace_handle_return(&iter->seq);
}

static struct trace_event_functions bts_entry_funcs = {
	.trace		= bts_entry_print,
	.raw		= bts_entry_raw,
};

static struct trace_event bts_trace_event = {
	.type		= TRACE_BTS,
	.funcs		= &bts_entry_funcs,
};

/* The same text as the event's print format: bts-dump parses both. */
static enum print_line_t bts_history_print(struct trace_iterator *iter,
					   int flags, struct trace_event *event)
{
	struct bts_history_entry *field;

	trace_assign_type(field, iter->ent);
	/* bts-series: until pid */
	trace_seq_printf(&iter->seq,
			 "bts_history cpu:%u nr:%u reason:%u stext:0x%lx kaslr:0x%lx release:%s build_id:%s\n",
			 field->cpu, field->nr, field->reason, field->stext,
			 field->kaslr, field->release, field->build_id);
	/* bts-series: end */
	/* bts-series: from pid */
	trace_seq_printf(&iter->seq,
			 "bts_history cpu:%u nr:%u reason:%u stext:0x%lx kaslr:0x%lx release:%s build_id:%s%s%s\n",
			 field->cpu, field->nr, field->reason, field->stext,
			 field->kaslr, field->release, field->build_id,
			 field->filter & 1 ? " filter:pid" : "",
			 field->filter & 2 ? ",held" : "");
	/* bts-series: end */
	return trace_handle_return(&iter->seq);
}

static struct trace_event_functions bts_history_funcs = {
	.trace		= bts_history_print,
	.raw		= bts_history_print,
};

static struct trace_event bts_history_event = {
	.type		= TRACE_BTS_HISTORY,
	.funcs		= &bts_history_funcs,
};

/* ------------------------------------------------------------------ */
/* The tracer                                                           */

static int bts_tracer_init(struct trace_array *tr)
{
	int ret;

	mutex_lock(&bts_lock);
	if (bts_busy) {
		ret = -EBUSY;
		goto out;
	}
	bts_scratch = kvcalloc(BTS_NR_RECORDS_MAX, sizeof(*bts_scratch),
			       GFP_KERNEL);
	ret = -ENOMEM;
	if (!bts_scratch)
		goto out;
	if (!bts_writer_recs) {
		struct bts_record *recs = kvcalloc(BTS_NR_RECORDS_MAX,
						   sizeof(*recs), GFP_KERNEL);

		/* Without it, dumps snapshot the writer under the lock. */
		if (recs) {
			/* Released: a writer sees it allocated and zeroed. */
			smp_store_release(&bts_writer_recs, recs);
		}
	}
	bts_trace = tr;
	ret = bts_start_recording(tr, bts_selected, bts_flags.val);
	if (ret) {
		bts_trace = NULL;
		kvfree(bts_scratch);
		bts_scratch = NULL;
		goto out;
	}
	tracing_start_cmdline_record();
	bts_busy = true;
out:
	mutex_unlock(&bts_lock);
	return ret;
}

static void bts_tracer_reset(struct trace_array *tr)
{
	mutex_lock(&bts_lock);
	bts_stop_recording();
	/* bts-series: from pid */
	bts_pid_stop();
	/* bts-series: end */
	tracing_stop_cmdline_record();
	WRITE_ONCE(bts_trace, NULL);
	bts_busy = false;
	kvfree(bts_scratch);
	bts_scratch = NULL;
	mutex_unlock(&bts_lock);
}

static void bts_tracer_start(struct trace_array *tr)
{
	mutex_lock(&bts_lock);
	if (bts_busy)
		bts_pause(false);
	mutex_unlock(&bts_lock);
}

static void bts_tracer_stop(struct trace_array *tr)
{
	mutex_lock(&bts_lock);
	if (bts_busy)
		bts_pause(true);
	mutex_unlock(&bts_lock);
}

static int bts_set_flag(struct trace_array *tr, u32 old_flags, u32 bit,
			int set)
{
	u32 opts = set ? old_flags | bit : old_flags & ~bit;
	int ret = 0;

	mutex_lock(&bts_lock);
	/*
	 * The options are the tracer's, one set for every instance: while one
	 * instance runs bts, another must not change what it runs (bts/mode
	 * would then show a mode that is not armed).
	 */
	if (bts_busy && bts_trace != tr) {
		mutex_unlock(&bts_lock);
		return -EBUSY;
	}
	/* bts-series: until capture-trace */
	if (bts_busy)
		ret = bts_rearm(bts_selected, opts);
	/* bts-series: end */
	/* bts-series: from capture-trace */
	if (bts_busy) {
		if (bit & BTS_OPT_REARM)
			ret = bts_rearm(bts_selected, opts);
		else
			bts_capture_set_reasons(bts_capture_reasons(opts));
	}
	/* bts-series: end */
	mutex_unlock(&bts_lock);
	return ret;
}

/* bts-series: from pid */
/*
 * set_ftrace_pid or set_ftrace_notrace_pid of @tr was written or cleared
 * (trace_types_lock held): re-arm, so that the history holds only the
 * tasks the lists choose now. Nothing while neither the lists nor the
 * armed source filter.
 */
static void bts_pid_filter_changed(struct trace_array *tr)
{
	mutex_lock(&bts_lock);
	if (bts_busy && bts_trace == tr) {
		bts_pid_forget(tr);
		if ((bts_pid_filtering(tr) ||
		     (bts_armed_flags() & BTS_ARM_FILTER)) &&
		    bts_rearm(bts_selected, bts_flags.val))
			pr_warn("could not re-arm for the new set_ftrace_pid\n");
	}
	mutex_unlock(&bts_lock);
}

/* bts-series: end */
static struct tracer bts_tracer __read_mostly = {
	.name		= "bts",
	.init		= bts_tracer_init,
	.reset		= bts_tracer_reset,
	.start		= bts_tracer_start,
	.stop		= bts_tracer_stop,
	.flags		= &bts_flags,
	.set_flag	= bts_set_flag,
	/* bts-series: from pid */
	.pid_filter_changed = bts_pid_filter_changed,
	/* bts-series: end */
	.allow_instances = true,
};

static __init int bts_tracer_register(void)
{
	int ret;

	bts_init_build_id();
	if (!register_trace_event(&bts_trace_event))
		pr_warn("cannot register the ftrace:bts output\n");
	if (!register_trace_event(&bts_history_event))
		pr_warn("cannot register the ftrace:bts_history output\n");
	ret = register_tracer(&bts_tracer);
	if (ret)
		return ret;
	/* bts-series: from trigger */
	if (bts_trigger_init())
		pr_warn("cannot register the bts_dump function command\n");
	/* bts-series: end */
	return bts_init_tracefs();
}
late_initcall(bts_tracer_register);

/* bts-series: from kunit */
#ifdef CONFIG_BTS_TRACER_KUNIT_TEST
#include "trace_bts_kunit.c"
#endif

/* bts-series: end */