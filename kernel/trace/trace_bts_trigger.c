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
 * IPI. Only setting and removing a trigger (process context) allocates,
 * frees and waits.
 */
#define pr_fmt(fmt) "bts: " fmt

#include <linux/bts.h>
#include <linux/ftrace.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

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
 * RCU is not watching, so every CPU is made to schedule first.
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
 * Return: true when it wrote (some of) the history into @tr's buffer.
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
