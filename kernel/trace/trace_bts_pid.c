// SPDX-License-Identifier: GPL-2.0
/*
 * trace_bts_pid.c - set_ftrace_pid for the bts tracer: branch history of
 * chosen tasks only.
 *
 *	echo $PID > /sys/kernel/tracing/set_ftrace_pid
 *	echo bts > /sys/kernel/tracing/current_tracer
 *
 * With pids in set_ftrace_pid or set_ftrace_notrace_pid of the instance
 * that owns bts, the source is armed with BTS_ARM_FILTER: every CPU starts
 * frozen, and a sched_switch probe lets it record only while a chosen task
 * runs there (bts_filter_this_cpu(), which reaches the source only when
 * that changes). Interrupts that come while a chosen task runs are
 * recorded; the scheduler's path into and out of it too. The lists and
 * options/function-fork are the function tracer's own, read the way its
 * pid filter reads them (trace_ignore_this_task()); a change to them
 * re-arms the source, so that a history holds only tasks chosen by the
 * lists as they are now.
 *
 * A pid outlives its task in set_ftrace_pid (without function-fork, for
 * good). So that a task that gets the pid of a chosen task which exited
 * is not recorded in its place, a chosen task's exit marks its pid stale
 * until the pid leaves the list, or a followed fork hands it on.
 *
 * Layer: the tracer's; nothing of MSRs. The probes run at context
 * switch, fork and exit, with preemption off: no sleeping, allocation or
 * locks there.
 */
#define pr_fmt(fmt) "bts: " fmt

#include <linux/bitmap.h>
#include <linux/bts.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/threads.h>
#include <linux/tracepoint.h>
#include <trace/events/sched.h>

#include "trace.h"
#include "trace_bts.h"

/*
 * Pids of chosen tasks that exited while the filter was on, and are still
 * in set_ftrace_pid: PID_MAX_LIMIT bits (512 KiB on x86-64), allocated
 * the first time the tracer filters, freed when it is reset. Bits are set
 * and cleared atomically by the probes; the pointer changes only under
 * bts_lock with the probes unregistered.
 */
static unsigned long *bts_pid_stale;

/* The probes are registered, for bts_pid_tr; under bts_lock. */
static bool bts_pid_probing;
static struct trace_array *bts_pid_tr;

/**
 * bts_pid_chosen - is @task one the filter of @tr records?
 * @tr:		the trace array that owns bts
 * @task:	a task about to run, or running
 *
 * IRQs or preemption off (RCU-sched protects the lists).
 *
 * Return: true when the lists choose @task and its pid is not stale.
 */
static notrace bool bts_pid_chosen(struct trace_array *tr,
				   struct task_struct *task)
{
	struct trace_pid_list *pids = rcu_dereference_sched(tr->function_pids);
	struct trace_pid_list *no_pids =
		rcu_dereference_sched(tr->function_no_pids);
	unsigned long *stale = READ_ONCE(bts_pid_stale);

	if (trace_ignore_this_task(pids, no_pids, task))
		return false;
	return !pids || !stale || task->pid >= PID_MAX_LIMIT ||
	       !test_bit(task->pid, stale);
}

/* sched_switch: IRQs off, on the CPU that switches. */
static notrace void bts_pid_sched_switch(void *data, bool preempt,
					 struct task_struct *prev,
					 struct task_struct *next,
					 unsigned int prev_state)
{
	bts_filter_this_cpu(bts_pid_chosen(data, next));
}

/*
 * sched_process_exit: the task exits (current, still holding its pid). A
 * chosen one's pid turns stale: whoever gets it next is someone else.
 */
static notrace void bts_pid_exit(void *data, struct task_struct *task)
{
	struct trace_array *tr = data;
	struct trace_pid_list *pids = rcu_dereference_sched(tr->function_pids);
	unsigned long *stale = READ_ONCE(bts_pid_stale);

	if (pids && stale && task->pid < PID_MAX_LIMIT &&
	    trace_find_filtered_pid(pids, task->pid))
		set_bit(task->pid, stale);
}

/*
 * sched_process_fork: with function-fork, ftrace puts the child of a
 * listed parent into the list (trace_filter_add_remove_task()); the child
 * is chosen as its parent is. A child whose pid is stale, of a parent not
 * listed, stays stale.
 */
static notrace void bts_pid_fork(void *data, struct task_struct *parent,
				 struct task_struct *child)
{
	struct trace_array *tr = data;
	struct trace_pid_list *pids = rcu_dereference_sched(tr->function_pids);
	unsigned long *stale = READ_ONCE(bts_pid_stale);

	if (!pids || !stale || !(tr->flags & TRACE_ITER_FUNC_FORK) ||
	    child->pid >= PID_MAX_LIMIT || parent->pid >= PID_MAX_LIMIT ||
	    !trace_find_filtered_pid(pids, parent->pid))
		return;
	if (test_bit(parent->pid, stale))
		set_bit(child->pid, stale);
	else
		clear_bit(child->pid, stale);
}

/* Each CPU's running task, once the probes are in place. */
static void bts_pid_update_ipi(void *data)
{
	bts_filter_this_cpu(bts_pid_chosen(data, current));
}

static void bts_pid_unregister(void)
{
	if (!bts_pid_probing)
		return;
	unregister_trace_sched_switch(bts_pid_sched_switch, bts_pid_tr);
	unregister_trace_sched_process_exit(bts_pid_exit, bts_pid_tr);
	unregister_trace_sched_process_fork(bts_pid_fork, bts_pid_tr);
	tracepoint_synchronize_unregister();
	bts_pid_probing = false;
	bts_pid_tr = NULL;
}

/**
 * bts_pid_filtering - does @tr's pid filter choose tasks?
 * @tr:	the trace array that owns bts
 *
 * Return: true when set_ftrace_pid or set_ftrace_notrace_pid of @tr has
 * pids: arm with BTS_ARM_FILTER.
 */
bool bts_pid_filtering(struct trace_array *tr)
{
	return rcu_access_pointer(tr->function_pids) ||
	       rcu_access_pointer(tr->function_no_pids);
}

/**
 * bts_pid_prepare - what a filter needs, before arming
 * @tr:		the trace array that owns bts
 * @filter:	the source is about to be armed with BTS_ARM_FILTER
 *
 * Under bts_lock. With @filter, allocates the stale pids (once: a re-arm
 * keeps what it knows of exits) and registers the probes, which stay
 * through a re-arm (an exit in between must not be missed) and do
 * nothing while the source is not armed with the filter. Without,
 * unregisters them.
 *
 * Return: 0, -ENOMEM, or the error of a probe's registration.
 */
int bts_pid_prepare(struct trace_array *tr, bool filter)
{
	int ret;

	if (!filter || (bts_pid_probing && bts_pid_tr != tr))
		bts_pid_unregister();
	if (!filter || bts_pid_probing)
		return 0;
	if (!bts_pid_stale) {
		bts_pid_stale = kvcalloc(BITS_TO_LONGS(PID_MAX_LIMIT),
					 sizeof(long), GFP_KERNEL);
		if (!bts_pid_stale)
			return -ENOMEM;
	}
	ret = register_trace_sched_process_fork(bts_pid_fork, tr);
	if (ret)
		return ret;
	ret = register_trace_sched_process_exit(bts_pid_exit, tr);
	if (ret)
		goto out_fork;
	ret = register_trace_sched_switch(bts_pid_sched_switch, tr);
	if (ret)
		goto out_exit;
	bts_pid_tr = tr;
	bts_pid_probing = true;
	return 0;
out_exit:
	unregister_trace_sched_process_exit(bts_pid_exit, tr);
out_fork:
	unregister_trace_sched_process_fork(bts_pid_fork, tr);
	tracepoint_synchronize_unregister();
	return ret;
}

/**
 * bts_pid_armed - the source is armed with BTS_ARM_FILTER: start choosing
 * @tr:	the trace array that owns bts
 *
 * Under bts_lock, after bts_pid_prepare(@tr, true) and bts_arm(). Every
 * CPU is frozen until now, and the probes take each switch from here:
 * look at the task each CPU runs now.
 */
void bts_pid_armed(struct trace_array *tr)
{
	on_each_cpu(bts_pid_update_ipi, tr, 1);
}

/**
 * bts_pid_forget - stale pids that left set_ftrace_pid are free again
 * @tr:	the trace array that owns bts
 *
 * Under bts_lock, after a write to set_ftrace_pid: a pid written anew
 * (the file truncated first) names the task that has it now.
 */
void bts_pid_forget(struct trace_array *tr)
{
	struct trace_pid_list *pids;
	unsigned long pid;

	if (!bts_pid_stale)
		return;
	guard(rcu)();
	pids = rcu_dereference(tr->function_pids);
	for_each_set_bit(pid, bts_pid_stale, PID_MAX_LIMIT) {
		if (!pids || !trace_find_filtered_pid(pids, pid))
			clear_bit(pid, bts_pid_stale);
	}
}

/**
 * bts_pid_stop - the tracer is reset: no probes, no stale pids
 *
 * Under bts_lock, after the source was disarmed.
 */
void bts_pid_stop(void)
{
	bts_pid_unregister();
	kvfree(bts_pid_stale);
	bts_pid_stale = NULL;
}

/* bts-series: from kunit */
#ifdef CONFIG_BTS_TRACER_KUNIT_TEST
#include "trace_bts_pid_kunit.c"
#endif
/* bts-series: end */
