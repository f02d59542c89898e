// SPDX-License-Identifier: GPL-2.0
/*
 * trace_bts_stream.c - stream mode's sink: branch records into the ring
 * buffer as they are taken.
 *
 *	echo stream > /sys/kernel/tracing/bts/mode
 *
 * arms the source (by trace_bts.c) to hand each CPU's records over as it
 * takes them; this file writes them into the ring buffer of the CPU that
 * took them, as ftrace:bts entries, and counts in bts/stream what it could
 * not write. Nothing is lost silently: an ftrace:bts_gap entry says how
 * many records are missing before the next one written.
 *
 * Layer: the tracer's; nothing of MSRs. The sink runs in any context, NMI
 * included (the BTS interrupt is one): it never sleeps, allocates or takes
 * a lock.
 */
#define pr_fmt(fmt) "bts: " fmt

#include <linux/bts.h>
#include <linux/cpu.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/kstrtox.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/tracefs.h>
#include <asm/local.h>

#include "trace.h"
#include "trace_output.h"
#include "trace_bts.h"
#include "bts_core.h"

/**
 * struct bts_stream_cpu - one CPU's stream, since the last arming
 * @seq:	records handed over (the next one's pos, modulo 2^32)
 * @written:	records written into the ring buffer
 * @lost:	records the ring buffer refused, that came in an NMI
 *		while this CPU was writing, or that the source lost
 * @pending:	of @lost, those no ftrace:bts_gap entry has reported yet
 * @gaps:	ftrace:bts_gap entries written
 * @src_lost:	of @lost, those the source lost (a full hardware buffer
 *		counts one: how many the CPU dropped is unknowable)
 * @paused:	times the source paused (stream mode's CPU-time budget);
 *		each counts one record in @lost, not in @src_lost
 * @refused:	bts_dump triggers refused in NMI context (see
 *		bts_trigger_dump())
 * @busy:	this CPU is writing (IRQs off): an NMI's records are lost
 */
struct bts_stream_cpu {
	local_t seq;
	local_t written;
	local_t lost;
	local_t pending;
	local_t gaps;
	local_t src_lost;
	local_t refused;
	local_t paused;
	int busy;
};

/*
 * The trace array streamed into, while armed in stream mode; NULL
 * otherwise. Written under bts_lock, read in any context.
 */
static struct trace_array *bts_stream_tr;

static DEFINE_PER_CPU(struct bts_stream_cpu, bts_stream_cpus);

/* Write the pending loss as one ftrace:bts_gap entry; false if refused. */
static bool notrace bts_stream_gap(struct trace_buffer *buffer,
				   struct bts_stream_cpu *sc, unsigned int cpu,
				   unsigned int trace_ctx)
{
	long lost = local_read(&sc->pending);
	struct ring_buffer_event *event;
	struct bts_gap_entry *gap;

	event = trace_buffer_lock_reserve(buffer, TRACE_BTS_GAP, sizeof(*gap),
					  trace_ctx);
	if (!event)
		return false;
	gap = ring_buffer_event_data(event);
	gap->cpu = cpu;
	gap->lost = lost;
	trace_buffer_unlock_commit_nostack(buffer, event);
	local_sub(lost, &sc->pending);
	local_inc(&sc->gaps);
	return true;
}

/**
 * bts_stream_write - the stream sink: this CPU's records into the ring buffer
 * @recs:	records, oldest first
 * @n:		how many
 * @lost:	records the source lost before @recs (at least)
 * @paused:	@lost is a pause of the source, not a loss it suffered
 *
 * One ftrace:bts entry per record (nr 0, reason stream, pos the CPU's
 * stream sequence number), on this CPU's ring buffer. Nothing is lost
 * silently: a record the ring buffer refuses (full without overwrite,
 * writing off) is counted, and an ftrace:bts_gap entry with the count
 * comes before the next record written, whose pos jumps by that count.
 * Records the source lost (a full hardware buffer) count the same way.
 * IRQs are off while writing, so that records of one CPU are written in
 * the order they were taken; an NMI that brings records meanwhile has
 * them counted as lost instead. Any context: no locks, no allocation.
 */
static void notrace bts_stream_write(const struct bts_record *recs,
				     unsigned int n, unsigned long lost,
				     bool paused)
{
	struct trace_array *tr = READ_ONCE(bts_stream_tr);
	struct bts_stream_cpu *sc = this_cpu_ptr(&bts_stream_cpus);
	unsigned int cpu = raw_smp_processor_id();
	struct ring_buffer_event *event;
	struct trace_buffer *buffer;
	unsigned int trace_ctx, i;
	struct bts_entry *entry;
	unsigned long flags;
	long seq;

	local_irq_save(flags);
	if (lost) {
		local_add(lost, &sc->seq);
		local_add(lost, &sc->lost);
		local_add(lost, &sc->pending);
		if (paused)
			local_inc(&sc->paused);
		else
			local_add(lost, &sc->src_lost);
	}
	if (!tr || sc->busy) {
		local_add(n, &sc->seq);
		local_add(n, &sc->lost);
		local_add(n, &sc->pending);
		local_irq_restore(flags);
		return;
	}
	sc->busy = 1;
	barrier();
	buffer = tr->array_buffer.buffer;
	trace_ctx = tracing_gen_ctx_flags(flags);
	for (i = 0; i < n; i++) {
		seq = local_inc_return(&sc->seq) - 1;
		if (local_read(&sc->pending) &&
		    !bts_stream_gap(buffer, sc, cpu, trace_ctx))
			goto lost;
		event = trace_buffer_lock_reserve(buffer, TRACE_BTS,
						  sizeof(*entry), trace_ctx);
		if (!event)
			goto lost;
		entry = ring_buffer_event_data(event);
		entry->from = recs[i].from;
		entry->to = recs[i].to;
		entry->flags = recs[i].flags;
		entry->cpu = cpu;
		entry->pos = (u32)seq;
		entry->nr = 0;
		entry->reason = BTS_REASON_STREAM;
		trace_buffer_unlock_commit_nostack(buffer, event);
		local_inc(&sc->written);
		continue;
lost:
		local_inc(&sc->lost);
		local_inc(&sc->pending);
	}
	barrier();
	sc->busy = 0;
	local_irq_restore(flags);
}

/* Counts start again. bts_lock held, or nothing streaming. */
static void bts_stream_reset(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct bts_stream_cpu *sc = per_cpu_ptr(&bts_stream_cpus, cpu);

		local_set(&sc->seq, 0);
		local_set(&sc->written, 0);
		local_set(&sc->lost, 0);
		local_set(&sc->pending, 0);
		local_set(&sc->gaps, 0);
		local_set(&sc->src_lost, 0);
		local_set(&sc->refused, 0);
		local_set(&sc->paused, 0);
		sc->busy = 0;
	}
}

/**
 * bts_stream_start - stream into @tr from the next arming on
 * @tr:	the trace array whose ring buffer takes the records
 *
 * Before the source is armed with BTS_ARM_STREAM: every CPU's counts
 * start again, and the core hands records over to bts_stream_write().
 * bts_lock held.
 */
void bts_stream_start(struct trace_array *tr)
{
	bts_stream_reset();
	WRITE_ONCE(bts_stream_tr, tr);
	bts_set_stream_sink(bts_stream_write);
}

/**
 * bts_stream_stop - no more streaming
 *
 * After the source is disarmed, or when arming it failed, so that no
 * source hands records over any more. The counts stay for bts/stream to
 * show. bts_lock held; harmless when not streaming.
 */
void bts_stream_stop(void)
{
	bts_set_stream_sink(NULL);
	WRITE_ONCE(bts_stream_tr, NULL);
}

/**
 * bts_stream_refuse_nmi - whether a trigger in this context must not dump
 *
 * A bts_dump trigger that fires in NMI context while streaming is refused
 * and counted (see bts_trigger_dump()). Any context.
 *
 * Return: true when the caller must not dump.
 */
bool notrace bts_stream_refuse_nmi(void)
{
	if (!in_nmi() || !READ_ONCE(bts_stream_tr))
		return false;
	local_inc(&this_cpu_ptr(&bts_stream_cpus)->refused);
	return true;
}

/* ------------------------------------------------------------------ */
/* bts/stream, and ftrace:bts_gap in trace and trace_pipe               */

/* One CPU's counts, in bts/stream's order. */
struct bts_stream_snap {
	long v[7];
};

static void notrace bts_stream_snap_read(struct bts_stream_cpu *sc,
					 struct bts_stream_snap *s)
{
	s->v[0] = local_read(&sc->seq);
	s->v[1] = local_read(&sc->written);
	s->v[2] = local_read(&sc->lost);
	s->v[3] = local_read(&sc->gaps);
	s->v[4] = local_read(&sc->src_lost);
	s->v[5] = local_read(&sc->refused);
	s->v[6] = local_read(&sc->paused);
}

/*
 * bts_stream_snap_cpu - this CPU's counts at one moment (an IPI handler)
 *
 * Read on the CPU that writes them, with IRQs off: no writer of this CPU
 * is halfway through a record, for writers keep IRQs off, but for one in
 * an NMI (or one this read itself traced), which runs whole between two
 * of our loads and moves seq. Two reads alike are one moment's counts.
 * Read from another CPU, a line could have seq one record ahead of
 * written + lost.
 */
static void notrace bts_stream_snap_cpu(void *arg)
{
	struct bts_stream_cpu *sc = this_cpu_ptr(&bts_stream_cpus);
	struct bts_stream_snap *s = arg, prev;
	int tries = 0;

	bts_stream_snap_read(sc, s);
	do {
		prev = *s;
		bts_stream_snap_read(sc, s);
	} while (memcmp(&prev, s, sizeof(prev)) && ++tries < 100);
}

/* Per possible CPU, since the last arming in stream mode. */
static int bts_stream_show(struct seq_file *m, void *v)
{
	struct bts_stream_snap s;
	int cpu;

	seq_puts(m, "# cpu records written lost gaps source_lost nmi_dumps_refused paused\n");
	/* online CPUs stay online, offline ones write nothing */
	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		if (!cpu_online(cpu) ||
		    smp_call_function_single(cpu, bts_stream_snap_cpu, &s, 1))
			bts_stream_snap_read(per_cpu_ptr(&bts_stream_cpus, cpu), &s);
		seq_printf(m, "%d %ld %ld %ld %ld %ld %ld %ld\n", cpu,
			   s.v[0], s.v[1], s.v[2], s.v[3], s.v[4], s.v[5], s.v[6]);
	}
	cpus_read_unlock();
	return 0;
}

static int bts_stream_open(struct inode *inode, struct file *file)
{
	int ret = tracing_check_open_get_tr(NULL);

	return ret ? ret : single_open(file, bts_stream_show, NULL);
}

static const struct file_operations bts_stream_fops = {
	.open		= bts_stream_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static ssize_t bts_stream_budget_read(struct file *filp, char __user *ubuf,
				      size_t cnt, loff_t *ppos)
{
	char buf[16];
	int len = scnprintf(buf, sizeof(buf), "%u\n", bts_stream_budget());

	return simple_read_from_buffer(ubuf, cnt, ppos, buf, len);
}

/*
 * bts/stream_budget: 1 to 100, else -EINVAL and the budget stays as it
 * was. 100 turns the limit off, and says so in the kernel log, as perf
 * does for perf_cpu_time_max_percent.
 */
static ssize_t bts_stream_budget_write(struct file *filp,
				       const char __user *ubuf, size_t cnt,
				       loff_t *ppos)
{
	unsigned int pct;
	int ret;

	ret = kstrtouint_from_user(ubuf, cnt, 10, &pct);
	if (ret)
		return ret;
	if (pct < 1 || pct > BTS_STREAM_BUDGET_OFF)
		return -EINVAL;
	bts_set_stream_budget(pct);
	if (pct == BTS_STREAM_BUDGET_OFF)
		pr_warn("stream_budget 100: draining the buffer may take all of a CPU's time\n");
	*ppos += cnt;
	return cnt;
}

static const struct file_operations bts_stream_budget_fops = {
	.open		= tracing_open_generic,
	.read		= bts_stream_budget_read,
	.write		= bts_stream_budget_write,
	.llseek		= generic_file_llseek,
};

/* The same text as the event's print format. */
static enum print_line_t bts_gap_print(struct trace_iterator *iter,
				       int flags, struct trace_event *event)
{
	struct bts_gap_entry *field;

	trace_assign_type(field, iter->ent);
	trace_seq_printf(&iter->seq, "bts_gap cpu:%u lost:%lu\n", field->cpu,
			 field->lost);
	return trace_handle_return(&iter->seq);
}

static struct trace_event_functions bts_gap_funcs = {
	.trace		= bts_gap_print,
	.raw		= bts_gap_print,
};

static struct trace_event bts_gap_event = {
	.type		= TRACE_BTS_GAP,
	.funcs		= &bts_gap_funcs,
};

/**
 * bts_stream_init - ftrace:bts_gap, bts/stream and bts/stream_budget
 * @bts_dir:	the bts directory of tracefs
 *
 * At boot.
 */
void __init bts_stream_init(struct dentry *bts_dir)
{
	if (!register_trace_event(&bts_gap_event))
		pr_warn("cannot register the ftrace:bts_gap output\n");
	trace_create_file("stream", TRACE_MODE_READ, bts_dir, NULL,
			  &bts_stream_fops);
	trace_create_file("stream_budget", TRACE_MODE_WRITE, bts_dir, NULL,
			  &bts_stream_budget_fops);
}

/* bts-series: from kunit */
#ifdef CONFIG_BTS_TRACER_KUNIT_TEST
#include "trace_bts_stream_kunit.c"
#endif
/* bts-series: end */
