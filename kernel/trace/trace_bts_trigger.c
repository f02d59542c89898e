// SPDX-License-Identifier: GPL-2.0
/*
 * trace_bts_trigger.c - the bts_dump event trigger and function command.
 *
 *	echo bts_dump > events/sched/sched_switch/trigger
 *	echo 'FUNC:bts_dump[:N]' > set_ftrace_filter
 *
 * write the current CPU's newest branches into the trace array of the
 * event or function, right after it. The trigger itself is parsed and
 * listed by trace_events_trigger.c; this file holds the per-CPU room the
 * copy needs, the dump, and the function command.
 *
 * Layer: the tracer's, like trace_bts.c, which writes the entries
 * (bts_emit()); nothing of MSRs. A dump runs in whatever context its event
 * does, NMI included: it never sleeps, allocates, takes a lock or sends an
 * IPI, and in NMI it writes no entry (an irq_work does, after the NMI).
 * Only setting and removing a trigger (process context) allocates, frees
 * and waits.
 */
#define pr_fmt(fmt) "bts: " fmt

#include <linux/bts.h>
#include <linux/ftrace.h>
#include <linux/irq_work.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <asm/local.h>

#include "trace.h"
#include "trace_bts.h"
#include "bts_core.h"

/*
 * A bts_dump trigger copies the current CPU's history into per-CPU room
 * of its own (the trigger may fire while a dump or another trigger on
 * this CPU is using bts_scratch), allocated while any trigger exists:
 * BTS_NR_RECORDS_MAX records per possible CPU, 64 KiB each. Under
 * bts_trigger_mutex, which is held across the wait in bts_trigger_put().
 */
static DEFINE_MUTEX(bts_trigger_mutex);
static unsigned int bts_trigger_refs;
static DEFINE_PER_CPU(struct bts_record *, bts_trigger_room);
static DEFINE_PER_CPU(struct bts_record *, bts_trigger_retired);
/* A trigger firing inside another on the same CPU (an NMI) is skipped. */
static DEFINE_PER_CPU(unsigned int, bts_trigger_busy);

/*
 * A dump in NMI context writes no entry there: it copies the history into
 * its CPU's room and leaves the writing to an irq_work, which runs when
 * the CPU takes interrupts again (in ring mode; in stream mode it is
 * refused, see bts_trigger_dump()). One such dump is pending per CPU: a
 * trigger that fires in NMI while one is pending is skipped and counted.
 * So an NMI spends at most one copy of nr_records records per window of
 * its CPU with interrupts on, and none of a dump's ring-buffer writes,
 * however many NMIs come and however many triggers each fires: a trigger
 * on nmi:nmi_handler runs after every handler of every NMI.
 *
 * @work:	writes the pending dump, on its CPU
 * @tr:		the trace array to write it into
 * @room:	the room it was copied into (still this CPU's room: the last
 *		trigger's removal waits for @work before freeing it)
 * @snap:	what it is
 * @pending:	set in NMI once the copy is done; cleared once written
 * @dumps:	NMI dumps written this way, since the first trigger was set
 * @skipped:	NMI dumps skipped because one was pending
 */
struct bts_trigger_defer {
	struct irq_work work;
	struct trace_array *tr;
	struct bts_record *room;
	struct bts_snapshot snap;
	bool pending;
	local_t dumps;
	local_t skipped;
};

static void bts_trigger_defer_fn(struct irq_work *work);

static DEFINE_PER_CPU(struct bts_trigger_defer, bts_deferred) = {
	.work = IRQ_WORK_INIT_HARD(bts_trigger_defer_fn),
};

/*
 * Write this CPU's pending NMI dump, if there is one, with the CPU frozen
 * as a dump is. IRQs off, not in NMI, with bts_trigger_busy held: an NMI
 * meanwhile finds it pending and skips, a trigger on an event of the
 * writes finds the CPU busy.
 */
static void notrace bts_trigger_flush(void)
{
	struct bts_trigger_defer *d = this_cpu_ptr(&bts_deferred);
	struct bts_source *src;

	if (!READ_ONCE(d->pending))
		return;
	barrier();	/* the flag before what the NMI wrote under it */
	src = bts_armed_source();
	if (src)
		bts_freeze_this_cpu(src);
	if (bts_emit(d->tr, d->room, &d->snap))
		local_inc(&d->dumps);
	if (src)
		bts_thaw_this_cpu(src);
	barrier();	/* written before the room is free again */
	WRITE_ONCE(d->pending, false);
}

static void notrace bts_trigger_defer_fn(struct irq_work *work)
{
	if (this_cpu_inc_return(bts_trigger_busy) == 1)
		bts_trigger_flush();
	this_cpu_dec(bts_trigger_busy);
}

/*
 * In NMI: copy this CPU's history into @room for bts_trigger_flush(), unless
 * a dump is pending already. Return: true when one is queued.
 */
static bool notrace bts_trigger_dump_nmi(struct trace_array *tr,
					 struct bts_source *src,
					 struct bts_record *room)
{
	struct bts_trigger_defer *d = this_cpu_ptr(&bts_deferred);
	unsigned int n;

	if (READ_ONCE(d->pending)) {
		local_inc(&d->skipped);
		return false;
	}
	bts_freeze_this_cpu(src);
	n = bts_read_frozen_this_cpu(src, room, bts_dump_nr_records(),
				     &d->snap);
	bts_thaw_this_cpu(src);
	if (!n)
		return false;
	d->tr = tr;
	d->room = room;
	barrier();	/* what it wrote before the flag, for this CPU */
	WRITE_ONCE(d->pending, true);
	irq_work_queue(&d->work);
	return true;
}

static void bts_trigger_free_room(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		kvfree(per_cpu(bts_trigger_room, cpu));
		per_cpu(bts_trigger_room, cpu) = NULL;
	}
}

/**
 * bts_trigger_get - a bts_dump trigger is being set: hold the room it needs
 *
 * Process context.
 *
 * Return: 0 or -ENOMEM.
 */
int bts_trigger_get(void)
{
	int cpu, ret = 0;

	mutex_lock(&bts_trigger_mutex);
	if (bts_trigger_refs++)
		goto out;
	for_each_possible_cpu(cpu) {
		struct bts_trigger_defer *d = per_cpu_ptr(&bts_deferred, cpu);

		local_set(&d->dumps, 0);
		local_set(&d->skipped, 0);
	}
	for_each_possible_cpu(cpu) {
		struct bts_record *room = kvcalloc(BTS_NR_RECORDS_MAX,
						   sizeof(*room), GFP_KERNEL);

		if (!room) {
			bts_trigger_free_room();
			bts_trigger_refs = 0;
			ret = -ENOMEM;
			goto out;
		}
		per_cpu(bts_trigger_room, cpu) = room;
	}
out:
	mutex_unlock(&bts_trigger_mutex);
	return ret;
}

/**
 * bts_trigger_put - a bts_dump trigger is gone
 *
 * The last one frees the room once no trigger can be running: event
 * triggers and function probes run with preemption off, possibly where
 * RCU is not watching, so every CPU is made to schedule first; then once
 * each CPU's pending NMI dump is written (it is in that room, and names
 * the trace array of a trigger being removed).
 */
void bts_trigger_put(void)
{
	struct bts_record *room;
	int cpu;

	mutex_lock(&bts_trigger_mutex);
	if (WARN_ON_ONCE(!bts_trigger_refs) || --bts_trigger_refs)
		goto out;
	/* Unpublish, wait, free: a trigger reads its room once. */
	for_each_possible_cpu(cpu) {
		room = per_cpu(bts_trigger_room, cpu);
		WRITE_ONCE(per_cpu(bts_trigger_room, cpu), NULL);
		per_cpu(bts_trigger_retired, cpu) = room;
	}
	synchronize_rcu_tasks_rude();
	for_each_possible_cpu(cpu) {
		struct bts_trigger_defer *d = per_cpu_ptr(&bts_deferred, cpu);

		irq_work_sync(&d->work);
		/* one its irq_work found busy is dropped, not left behind */
		WRITE_ONCE(d->pending, false);
	}
	for_each_possible_cpu(cpu) {
		kvfree(per_cpu(bts_trigger_retired, cpu));
		per_cpu(bts_trigger_retired, cpu) = NULL;
	}
out:
	mutex_unlock(&bts_trigger_mutex);
}

/**
 * bts_trigger_dump - write this CPU's newest branches into @tr's buffer
 * @tr: the trace array of the event or function the trigger is on
 *
 * bts/nr_records of them, oldest first, as a dump writes them. Any
 * context (IRQs off, a runqueue lock held, NMI): no locks, no
 * allocation, no IPI. Writes nothing while no source is armed, or when
 * it interrupts another trigger's dump on this CPU.
 *
 * The CPU stays frozen while the entries are written: the dump's own
 * ring-buffer writes (thousands of branches) are not recorded. So a
 * trigger adds to the history only the branches from its entry here to
 * the freeze and from the thaw back.
 * bts-series: from stream
 *
 * In stream mode a trigger that fires in NMI context is refused, and
 * counted in bts/stream: every branch reaches the ring buffer through the
 * stream already, and the branches of a trigger's path, once per NMI
 * handler, would take much of the room below the BTS interrupt's
 * threshold in every NMI (the next interrupt would come after a few
 * hundred branches of the interrupted code, or, on a debug kernel, from
 * within the NMI itself).
 * bts-series: end
 *
 * In NMI context it writes nothing there: it copies the history and an
 * irq_work writes it when the CPU takes interrupts again, one per CPU at
 * a time (see struct bts_trigger_defer).
 *
 * Return: true when it wrote (some of) the history into @tr's buffer, or,
 * in NMI, queued it to be written.
 */
bool notrace bts_trigger_dump(struct trace_array *tr)
{
	struct bts_snapshot snap;
	struct bts_source *src;
	struct bts_record *room;
	unsigned long flags;
	bool wrote = false;

	local_irq_save(flags);
	if (this_cpu_inc_return(bts_trigger_busy) != 1)
		goto out;
	/* bts-series: from stream */
	if (bts_stream_refuse_nmi())
		goto out;
	/* bts-series: end */
	room = READ_ONCE(*this_cpu_ptr(&bts_trigger_room));
	src = bts_armed_source();
	if (!room || !src)
		goto out;
	if (in_nmi()) {
		wrote = bts_trigger_dump_nmi(tr, src, room);
		goto out;
	}
	/* An NMI's dump still pending on this CPU is in the room: first. */
	bts_trigger_flush();
	bts_freeze_this_cpu(src);
	if (bts_read_frozen_this_cpu(src, room, bts_dump_nr_records(),
				     &snap))
		wrote = bts_emit(tr, room, &snap) > 0;
	bts_thaw_this_cpu(src);
out:
	this_cpu_dec(bts_trigger_busy);
	local_irq_restore(flags);
	return wrote;
}

/**
 * bts_trigger_dump_count - bts_trigger_dump() for a trigger with a count
 * @tr:		as for bts_trigger_dump()
 * @count:	the dumps the trigger has left; ULONG_MAX (-1) is no limit
 *
 * A count is used up only by a dump that wrote. It is taken before the
 * dump, so that triggers running at once on several CPUs never write
 * more dumps than it held, and given back when nothing was written (no
 * source armed, another dump on this CPU, tracing off). Any context.
 *
 * Return: true when it wrote.
 */
bool notrace bts_trigger_dump_count(struct trace_array *tr,
				    unsigned long *count)
{
	unsigned long old;

	do {
		old = READ_ONCE(*count);
		if (!old)
			return false;
		if (old == ULONG_MAX)
			return bts_trigger_dump(tr);
	} while (cmpxchg(count, old, old - 1) != old);
	if (bts_trigger_dump(tr))
		return true;
	do {
		old = READ_ONCE(*count);
	} while (cmpxchg(count, old, old + 1) != old);
	return false;
}

/* bts/triggers: per CPU, the NMI dumps written after the NMI, and skipped. */
static int bts_triggers_show(struct seq_file *m, void *v)
{
	int cpu;

	seq_puts(m, "cpu nmi_dumps nmi_skipped\n");
	for_each_possible_cpu(cpu) {
		struct bts_trigger_defer *d = per_cpu_ptr(&bts_deferred, cpu);

		seq_printf(m, "%d %ld %ld\n", cpu, local_read(&d->dumps),
			   local_read(&d->skipped));
	}
	return 0;
}

static int bts_triggers_open(struct inode *inode, struct file *file)
{
	int ret = tracing_check_open_get_tr(NULL);

	return ret ? ret : single_open(file, bts_triggers_show, NULL);
}

static const struct file_operations bts_triggers_fops = {
	.open		= bts_triggers_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/**
 * bts_trigger_init_tracefs - create bts/triggers
 * @top: the bts directory
 */
void bts_trigger_init_tracefs(struct dentry *top)
{
	trace_create_file("triggers", TRACE_MODE_READ, top, NULL,
			  &bts_triggers_fops);
}

/**
 * bts_trigger_nmi_counts - a CPU's NMI dumps written after the NMI, and skipped
 * @cpu:	a possible CPU
 * @dumps:	set to the dumps written
 * @skipped:	set to the dumps skipped because one was pending
 */
void bts_trigger_nmi_counts(unsigned int cpu, long *dumps, long *skipped)
{
	struct bts_trigger_defer *d = per_cpu_ptr(&bts_deferred, cpu);

	*dumps = local_read(&d->dumps);
	*skipped = local_read(&d->skipped);
}

#ifdef CONFIG_DYNAMIC_FTRACE
/*
 * The function command: echo 'FUNC:bts_dump[:N]' > set_ftrace_filter,
 * like stacktrace: a dump on each entry into FUNC, N times or always.
 * The count lives in a func mapper, one per probe; -1 is no count.
 */
static void notrace bts_dump_probe(unsigned long ip, unsigned long parent_ip,
				   struct trace_array *tr,
				   struct ftrace_probe_ops *ops, void *data)
{
	struct ftrace_func_mapper *mapper = data;
	unsigned long *count = NULL;

	/* The count is a long, -1 for none: the same bits as ULONG_MAX. */
	if (mapper)
		count = (unsigned long *)ftrace_func_mapper_find_ip(mapper, ip);
	if (count)
		bts_trigger_dump_count(tr, count);
	else
		bts_trigger_dump(tr);
}

static int bts_dump_probe_print(struct seq_file *m, unsigned long ip,
				struct ftrace_probe_ops *ops, void *data)
{
	struct ftrace_func_mapper *mapper = data;
	long *count = NULL;

	seq_printf(m, "%ps:bts_dump", (void *)ip);
	if (mapper)
		count = (long *)ftrace_func_mapper_find_ip(mapper, ip);
	if (count && *count >= 0)
		seq_printf(m, ":count=%ld\n", *count);
	else
		seq_puts(m, ":unlimited\n");
	return 0;
}

static int bts_dump_probe_init(struct ftrace_probe_ops *ops,
			       struct trace_array *tr, unsigned long ip,
			       void *init_data, void **data)
{
	struct ftrace_func_mapper *mapper = *data;
	int ret;

	if (!mapper) {
		mapper = allocate_ftrace_func_mapper();
		if (!mapper)
			return -ENOMEM;
		*data = mapper;
	}
	ret = bts_trigger_get();
	if (ret)
		return ret;
	ret = ftrace_func_mapper_add_ip(mapper, ip, init_data);
	if (ret)
		bts_trigger_put();
	return ret;
}

static void bts_dump_probe_free(struct ftrace_probe_ops *ops,
				struct trace_array *tr, unsigned long ip,
				void *data)
{
	struct ftrace_func_mapper *mapper = data;

	if (!ip) {
		free_ftrace_func_mapper(mapper, NULL);
		return;
	}
	if (ftrace_func_mapper_remove_ip(mapper, ip))
		bts_trigger_put();
}

static struct ftrace_probe_ops bts_dump_probe_ops = {
	.func	= bts_dump_probe,
	.print	= bts_dump_probe_print,
	.init	= bts_dump_probe_init,
	.free	= bts_dump_probe_free,
};

static int bts_dump_ftrace_cmd(struct trace_array *tr, struct ftrace_hash *hash,
			       char *glob, char *cmd, char *param, int enable)
{
	unsigned long count = -1UL;
	int ret;

	if (!tr)
		return -ENODEV;
	/* probes only work with set_ftrace_filter */
	if (!enable)
		return -EINVAL;
	if (glob[0] == '!')
		return unregister_ftrace_function_probe_func(glob + 1, tr,
							     &bts_dump_probe_ops);
	if (param && *param) {
		ret = kstrtoul(param, 0, &count);
		if (ret)
			return ret;
		if ((long)count < 0)
			return -EINVAL;
	}
	ret = register_ftrace_function_probe(glob, tr, &bts_dump_probe_ops,
					     (void *)count);
	return ret < 0 ? ret : 0;
}

static struct ftrace_func_command bts_dump_ftrace_command = {
	.name	= "bts_dump",
	.func	= bts_dump_ftrace_cmd,
};
#endif /* CONFIG_DYNAMIC_FTRACE */

/**
 * bts_trigger_init - register the bts_dump function command
 *
 * The event trigger is registered by trace_events_trigger.c.
 *
 * Return: 0, or register_ftrace_command()'s error.
 */
int __init bts_trigger_init(void)
{
#ifdef CONFIG_DYNAMIC_FTRACE
	return register_ftrace_command(&bts_dump_ftrace_command);
#else
	return 0;
#endif
}
