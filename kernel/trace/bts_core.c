// SPDX-License-Identifier: GPL-2.0
/*
 * bts core: the registry of branch sources, the armed source and per-CPU
 * snapshots of branch history.
 * bts-series: from capture
 * Fault capture is in bts_capture.c.
 * bts-series: end
 *
 * Layer: between the branch sources (Intel BTS in arch/x86/events/intel/,
 * software call edges in trace_bts_sw.c) and their users (the ftrace
 * tracer in trace_bts.c, or any kernel code). It knows nothing of MSRs and
 * nothing of the ring buffer.
 *
 * A CPU is frozen while its history is copied out. Freezes nest (a dump
 * interrupted by an NMI or an oops, a paused tracer): a per-CPU depth
 * counter makes only the outermost freeze and the last thaw reach the
 * source. The snapshot functions below run with IRQs off and must never
 * sleep, allocate or take locks; bts_arm(), bts_disarm(), bts_pause() and
 * bts_snapshot_cpu() are process context and serialize on bts_mutex
 * (taken before the CPU hotplug lock).
 *
 * CPU hotplug: while a source is armed the core has a hotplug state of
 * its own, after the source's (which arms a CPU coming online and
 * disarms one going offline). A CPU coming online starts with no freeze
 * held, frozen at once if recording is paused; one going offline gives
 * up its freezes first. So the freeze depth always says what the
 * source's state on that CPU is.
 * bts-series: from pid
 *
 * A task filter (BTS_ARM_FILTER) is one more freeze per CPU, held while
 * the task running there is not one its user chose: taken and dropped
 * only at context switches (bts_filter_this_cpu()), so that the source's
 * state changes only when the filter's does. Every CPU starts with it
 * held, at arming and when it comes online; one going offline stays
 * frozen, one freeze deep, so that nothing on its way down is recorded
 * and an NMI's freeze and thaw there leave it frozen.
 * bts-series: end
 */
#define pr_fmt(fmt) "bts: " fmt

#include <linux/bts.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/rcupdate.h>
/* bts-series: from live */
#include <linux/slab.h>
#include <uapi/linux/bts.h>
/* bts-series: end */

#include "bts_core.h"

static LIST_HEAD(bts_sources);
static DEFINE_MUTEX(bts_mutex);

/* The armed source, read locklessly from any context (NMI included). */
static struct bts_source *bts_armed;
/* The BTS_ARM_* flags it was armed with. */
static unsigned int bts_arm_flags;

/* bts-series: from kdump */
/*
 * The last source with a stop_this_cpu() that was armed: the crash path
 * stops it whatever the core's state (a crash in the middle of a disarm
 * included). Sources live as long as the kernel. bts_stop_key is on from
 * the first such arming.
 */
static struct bts_source *bts_stoppable;
DEFINE_STATIC_KEY_FALSE(bts_stop_key);

/* bts-series: end */
/* Freeze nesting depth of each CPU; see the file comment. */
static DEFINE_PER_CPU(unsigned int, bts_freeze_depth);

/*
 * The source's freeze on this CPU has completed (and no thaw has begun):
 * see bts_freeze_this_cpu().
 */
static DEFINE_PER_CPU(bool, bts_src_frozen);

/* bts-series: from pid */
/* The task filter holds one freeze on this CPU: see bts_filter_this_cpu(). */
static DEFINE_PER_CPU(bool, bts_filter_held);

/* bts-series: end */
/* Recording is paused on every CPU (bts_pause()); under bts_mutex. */
static bool bts_paused;

/* The core's CPU hotplug state while a source is armed, else 0. */
static int bts_hp_state;

/**
 * bts_register_source - make a branch source available
 * @src: the source; must stay valid for the life of the kernel
 *
 * Sources are tried by bts_first_available_source() in the order of
 * their id (hardware before software), whatever the registration order.
 *
 * Return: 0, or -EEXIST when a source of that name is registered.
 */
int bts_register_source(struct bts_source *src)
{
	struct bts_source *pos;

	mutex_lock(&bts_mutex);
	list_for_each_entry(pos, &bts_sources, list) {
		if (!strcmp(pos->name, src->name)) {
			mutex_unlock(&bts_mutex);
			return -EEXIST;
		}
	}
	list_for_each_entry(pos, &bts_sources, list)
		if (pos->id > src->id)
			break;
	list_add_tail(&src->list, &pos->list);
	mutex_unlock(&bts_mutex);
	return 0;
}

/**
 * bts_unregister_source - remove a source (KUnit and error paths only)
 * @src: a registered source that is not armed
 */
void bts_unregister_source(struct bts_source *src)
{
	mutex_lock(&bts_mutex);
	if (!WARN_ON(bts_armed == src))
		list_del_init(&src->list);
	mutex_unlock(&bts_mutex);
}

/**
 * bts_find_source - look a registered source up
 * @name: its name ("intel_bts", "sw") or kind ("hw", "sw")
 *
 * Return: the source, or NULL.
 */
struct bts_source *bts_find_source(const char *name)
{
	struct bts_source *pos, *found = NULL;

	mutex_lock(&bts_mutex);
	list_for_each_entry(pos, &bts_sources, list) {
		if (!strcmp(pos->name, name) ||
		    (!strcmp(name, "hw") && pos->id == BTS_SOURCE_HW) ||
		    (!strcmp(name, "sw") && pos->id == BTS_SOURCE_SW)) {
			found = pos;
			break;
		}
	}
	mutex_unlock(&bts_mutex);
	return found;
}

/**
 * bts_first_available_source - the source "auto" means on this machine
 *
 * Return: the first registered source, hardware first, whose
 * ->unavailable() says it can be armed, or NULL.
 */
struct bts_source *bts_first_available_source(void)
{
	struct bts_source *pos, *found = NULL;

	mutex_lock(&bts_mutex);
	list_for_each_entry(pos, &bts_sources, list) {
		if (pos == bts_armed || !pos->unavailable(NULL)) {
			found = pos;
			break;
		}
	}
	mutex_unlock(&bts_mutex);
	return found;
}

/**
 * bts_visit_sources - call @fn for every registered source, in order
 * @fn:   callback; must not call back into the registry
 * @data: passed to @fn
 */
void bts_visit_sources(bts_source_visit_fn fn, void *data)
{
	struct bts_source *pos;

	mutex_lock(&bts_mutex);
	list_for_each_entry(pos, &bts_sources, list)
		fn(pos, data);
	mutex_unlock(&bts_mutex);
}

/*
 * A CPU comes online (the source's online callback has armed it): no
 * freeze is held there yet; if recording is paused, freeze it now. Runs
 * on that CPU.
 */
static int bts_cpu_online(unsigned int cpu)
{
	struct bts_source *src = READ_ONCE(bts_armed);
	unsigned long flags;

	local_irq_save(flags);
	this_cpu_write(bts_freeze_depth, 0);
	this_cpu_write(bts_src_frozen, false);
	/* bts-series: from capture */
	this_cpu_write(bts_capture_held, false);
	/* bts-series: end */
	/* bts-series: from pid */
	/* (the source armed it frozen: this freeze only says so) */
	this_cpu_write(bts_filter_held, false);
	if (src && (READ_ONCE(bts_arm_flags) & BTS_ARM_FILTER)) {
		bts_freeze_this_cpu(src);
		this_cpu_write(bts_filter_held, true);
	}
	/* bts-series: end */
	if (src && READ_ONCE(bts_paused))
		bts_freeze_this_cpu(src);
	local_irq_restore(flags);
	return 0;
}

/*
 * A CPU goes offline (the source's offline callback disarms it next):
 * drop the freezes it holds, so that it comes back with none.
 */
static int bts_cpu_offline(unsigned int cpu)
{
	struct bts_source *src = READ_ONCE(bts_armed);
	unsigned long flags;

	local_irq_save(flags);
	/* bts-series: from pid */
	/*
	 * A task filter keeps it frozen, one freeze deep, until it is
	 * online again: nothing on its way down is recorded (tasks still
	 * run there until the scheduler's own teardown, chosen ones too).
	 */
	if (src && (READ_ONCE(bts_arm_flags) & BTS_ARM_FILTER)) {
		if (!this_cpu_read(bts_freeze_depth))
			bts_freeze_this_cpu(src);
		this_cpu_write(bts_freeze_depth, 1);
		this_cpu_write(bts_capture_held, false);
		this_cpu_write(bts_filter_held, false);
		local_irq_restore(flags);
		return 0;
	}
	/* bts-series: end */
	if (src && this_cpu_read(bts_freeze_depth)) {
		this_cpu_write(bts_freeze_depth, 1);
		bts_thaw_this_cpu(src);
	}
	this_cpu_write(bts_freeze_depth, 0);
	this_cpu_write(bts_src_frozen, false);
	/* bts-series: from capture */
	this_cpu_write(bts_capture_held, false);
	/* bts-series: end */
	local_irq_restore(flags);
	return 0;
}

/**
 * bts_arm - start recording branch history on every online CPU
 * @src:	the source to arm
 * @arm_flags:	BTS_ARM_* flags
 *
 * Only one source is armed at a time: the caller that armed it owns it
 * until bts_disarm(). Process context.
 *
 * Return: 0, -EBUSY when a source is armed already, the errno its
 * ->unavailable() gives when @src cannot be armed now (its reason is
 * logged), or the source's error.
 */
int bts_arm(struct bts_source *src, unsigned int arm_flags)
{
	const char *why;
	/* bts-series: from pid */
	bool held = arm_flags & BTS_ARM_FILTER;
	int cpu;
	/* bts-series: end */
	int ret;

	mutex_lock(&bts_mutex);
	if (bts_armed) {
		ret = -EBUSY;
		goto out;
	}
	ret = -ENODEV;
	why = src->unavailable(&ret);
	if (why) {
		pr_info("source %s unavailable: %s\n", src->name, why);
		goto out;
	}
	/* bts-series: from kdump */
	if (src->stop_this_cpu && READ_ONCE(bts_stoppable) != src) {
		WRITE_ONCE(bts_stoppable, src);
		static_branch_enable(&bts_stop_key);
	}
	/* bts-series: end */
	/* bts-series: from pid */
	/*
	 * The source arms every CPU frozen: the filter holds that freeze.
	 * Nothing reads these before bts_armed is set, nor after a failure.
	 */
	for_each_possible_cpu(cpu) {
		per_cpu(bts_freeze_depth, cpu) = held;
		per_cpu(bts_src_frozen, cpu) = held;
		per_cpu(bts_filter_held, cpu) = held;
	}
	/* bts-series: end */
	ret = src->arm(arm_flags);
	if (ret) {
		pr_info("arming source %s failed: %d\n", src->name, ret);
		/* bts-series: from pid */
		for_each_possible_cpu(cpu) {
			per_cpu(bts_freeze_depth, cpu) = 0;
			per_cpu(bts_src_frozen, cpu) = false;
			per_cpu(bts_filter_held, cpu) = false;
		}
		/* bts-series: end */
		goto out;
	}
	bts_paused = false;
	WRITE_ONCE(bts_arm_flags, arm_flags);
	/* Pairs with READ_ONCE() in the snapshot and fault paths. */
	smp_store_release(&bts_armed, src);
	/* After the source's own state: a CPU coming online is armed first. */
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "trace/bts:online",
				bts_cpu_online, bts_cpu_offline);
	if (ret < 0) {
		WRITE_ONCE(bts_armed, NULL);
		synchronize_rcu();
		src->disarm();
		goto out;
	}
	bts_hp_state = ret;
	ret = 0;
out:
	mutex_unlock(&bts_mutex);
	return ret;
}

/**
 * bts_disarm - stop recording everywhere and release the source
 *
 * Safe to call when nothing is armed. Process context.
 */
void bts_disarm(void)
{
	struct bts_source *src;
	int cpu;

	mutex_lock(&bts_mutex);
	src = bts_armed;
	if (src) {
		/*
		 * Nothing new sees the source; snapshots and NMIs that saw it
		 * finish with it (they run with preemption off, where RCU
		 * watches); then the source stops.
		 */
		WRITE_ONCE(bts_armed, NULL);
		synchronize_rcu();
		cpuhp_remove_state_nocalls(bts_hp_state);
		bts_hp_state = 0;
		src->disarm();
		/* Nothing is frozen any more: the next arm starts afresh. */
		for_each_possible_cpu(cpu) {
			per_cpu(bts_freeze_depth, cpu) = 0;
			per_cpu(bts_src_frozen, cpu) = false;
			/* bts-series: from capture */
			per_cpu(bts_capture_held, cpu) = false;
			/* bts-series: end */
			/* bts-series: from pid */
			per_cpu(bts_filter_held, cpu) = false;
			/* bts-series: end */
		}
		bts_paused = false;
	}
	mutex_unlock(&bts_mutex);
}

static void bts_pause_ipi(void *info)
{
	struct bts_source *src = READ_ONCE(bts_armed);

	if (!src)
		return;
	if (info)
		bts_freeze_this_cpu(src);
	else
		bts_thaw_this_cpu(src);
}

/**
 * bts_pause - stop or resume recording on every CPU
 * @pause: true to stop, false to resume
 *
 * A pause holds one freeze on each online CPU, and on each CPU that
 * comes online while it lasts. Process context; nothing when nothing is
 * armed or the state is already @pause.
 */
void bts_pause(bool pause)
{
	mutex_lock(&bts_mutex);
	cpus_read_lock();
	if (bts_armed && bts_paused != pause) {
		WRITE_ONCE(bts_paused, pause);
		on_each_cpu(bts_pause_ipi, pause ? (void *)1UL : NULL, 1);
	}
	cpus_read_unlock();
	mutex_unlock(&bts_mutex);
}

/* bts-series: from kdump */
/**
 * __bts_crash_stop_this_cpu - see bts_crash_stop_this_cpu()
 */
void notrace __bts_crash_stop_this_cpu(void)
{
	struct bts_source *src = READ_ONCE(bts_stoppable);

	if (src)
		src->stop_this_cpu();
}

/* bts-series: end */
/* bts-series: from stream */
/* ------------------------------------------------------------------ */
/* Stream mode                                                          */

static bts_stream_sink_t bts_stream_sink;

/**
 * bts_set_stream_sink - say where streamed records go
 * @sink:	the tracer's writer, or NULL
 *
 * Set before arming with BTS_ARM_STREAM, cleared after disarming: a
 * source that still calls bts_stream_emit() then finds no sink. Process
 * context.
 */
void bts_set_stream_sink(bts_stream_sink_t sink)
{
	WRITE_ONCE(bts_stream_sink, sink);
}

/**
 * bts_stream_emit - a source in stream mode hands over records
 * @recs:	records of this CPU, oldest first
 * @n:		how many
 * @lost:	records the source lost just before these (see
 *		bts_stream_sink_t)
 * @paused:	@lost is a pause the source chose (bts_stream_sink_t)
 *
 * Any context, preemption off, on the CPU that recorded them: no locks.
 */
void notrace bts_stream_emit(const struct bts_record *recs, unsigned int n,
			     unsigned long lost, bool paused)
{
	bts_stream_sink_t sink = READ_ONCE(bts_stream_sink);

	if (sink && (n || lost))
		sink(recs, n, lost, paused);
}

/*
 * Stream mode's CPU-time budget: the share of a CPU's time, in percent,
 * that draining a source's buffer may take there (bts/stream_budget).
 * Sources that hand over each record as they take it have none.
 */
static unsigned int bts_stream_budget_pct = BTS_STREAM_BUDGET_DEFAULT;

/**
 * bts_set_stream_budget - set stream mode's CPU-time budget
 * @pct:	1 to BTS_STREAM_BUDGET_OFF (no limit); the caller checks
 *
 * Takes effect at the next drain, armed or not. Process context.
 */
void bts_set_stream_budget(unsigned int pct)
{
	WRITE_ONCE(bts_stream_budget_pct, pct);
}

/**
 * bts_stream_budget - stream mode's CPU-time budget
 *
 * Any context, NMI included.
 *
 * Return: the percent of a CPU's time its drains may take;
 * BTS_STREAM_BUDGET_OFF for no limit.
 */
unsigned int notrace bts_stream_budget(void)
{
	return READ_ONCE(bts_stream_budget_pct);
}
/* bts-series: end */

/**
 * bts_armed_source - the source that is armed
 *
 * Any context.
 *
 * Return: the armed source, or NULL.
 */
struct bts_source *bts_armed_source(void)
{
	return READ_ONCE(bts_armed);
}

/**
 * bts_armed_flags - the BTS_ARM_* flags of the armed (or last armed) source
 *
 * Any context.
 *
 * Return: the flags.
 */
unsigned int bts_armed_flags(void)
{
	return READ_ONCE(bts_arm_flags);
}

/**
 * bts_freeze_this_cpu - stop recording on this CPU (nesting)
 * @src: the armed source
 *
 * IRQs off. Only the outermost freeze reaches the source, except that an
 * NMI arriving while the outermost freeze is between its depth increment
 * and the end of the source's freeze freezes the source itself (the
 * sources' freeze is idempotent and safe to interrupt by itself), so
 * that whatever interrupts a freeze at any instruction reads a frozen
 * history.
 */
void notrace bts_freeze_this_cpu(struct bts_source *src)
{
	if (this_cpu_inc_return(bts_freeze_depth) == 1 ||
	    !this_cpu_read(bts_src_frozen)) {
		src->freeze_this_cpu();
		this_cpu_write(bts_src_frozen, true);
	}
}

/* bts-series: from kunit */
#ifdef CONFIG_BTS_TRACER_KUNIT_TEST
/*
 * An NMI the KUnit suite lands between two instructions of the last thaw,
 * where no source callback runs (trace_bts_kunit.c): run once, then
 * cleared. Not in any other build.
 */
void (*bts_kunit_nmi_in_last_thaw)(void);

static __always_inline void bts_kunit_nmi_point(void)
{
	void (*nmi)(void) = bts_kunit_nmi_in_last_thaw;

	if (nmi) {
		bts_kunit_nmi_in_last_thaw = NULL;
		nmi();
	}
}
#else
static __always_inline void bts_kunit_nmi_point(void) { }
#endif

/* bts-series: end */
/**
 * bts_thaw_this_cpu - undo one bts_freeze_this_cpu()
 * @src: the armed source
 *
 * The last thaw drops the depth, then marks the source not frozen, then
 * thaws it, so that bts_src_frozen is true only while the source is
 * frozen, at every instruction. An NMI after the depth is down freezes
 * the source itself (its increment makes the depth 1) and its own thaw
 * leaves the source recording and the mark clear; the outer thaw's
 * remaining steps then change nothing. The other order, mark first,
 * lets an NMI between the two writes set the mark again and return
 * with the depth still 1: the outer write of 0 leaves the mark set while
 * the source records, and the next NMI to interrupt an outermost freeze
 * before it takes effect reads a history being written.
 */
void notrace bts_thaw_this_cpu(struct bts_source *src)
{
	unsigned int depth = this_cpu_read(bts_freeze_depth);

	if (WARN_ON_ONCE(!depth))
		return;
	this_cpu_write(bts_freeze_depth, depth - 1);
	if (depth > 1)
		return;
	barrier();
	/* bts-series: from kunit */
	bts_kunit_nmi_point();
	/* bts-series: end */
	this_cpu_write(bts_src_frozen, false);
	barrier();
	src->thaw_this_cpu();
}

/* bts-series: from pid */
/**
 * bts_filter_this_cpu - say whether the task now running here is chosen
 * @record: true when the filter's user chose the task that runs on this
 *	    CPU from now on (or the one that runs now)
 *
 * With a source armed with BTS_ARM_FILTER, takes the filter's freeze of
 * this CPU when @record is false and drops it when @record is true, only
 * when that changes: a run of unchosen tasks costs the source nothing.
 * Nothing when no source is armed, or one is armed without the filter.
 * IRQs off (a sched_switch probe, an IPI), never from NMI: the filter's
 * state of a CPU changes only there. No locks.
 */
void notrace bts_filter_this_cpu(bool record)
{
	/* Pairs with the release in bts_arm(): its flags and per-CPU state. */
	struct bts_source *src = smp_load_acquire(&bts_armed);

	if (!src || !(READ_ONCE(bts_arm_flags) & BTS_ARM_FILTER) ||
	    record != this_cpu_read(bts_filter_held))
		return;
	if (record) {
		this_cpu_write(bts_filter_held, false);
		bts_thaw_this_cpu(src);
	} else {
		bts_freeze_this_cpu(src);
		this_cpu_write(bts_filter_held, true);
	}
}
/* bts-series: end */

/**
 * bts_read_frozen_this_cpu - copy this CPU's newest records, oldest first
 * @src:	the armed source; this CPU frozen
 * @buf:	room for @n records
 * @n:		how many of the newest records are wanted
 * @snap:	filled in: what the copy is
 *
 * Return: the number of records copied.
 */
unsigned int notrace bts_read_frozen_this_cpu(struct bts_source *src,
					      struct bts_record *buf,
					      unsigned int n,
					      struct bts_snapshot *snap)
{
	enum bts_window window = BTS_WINDOW_EMPTY;
	unsigned int count;

	count = n ? src->read_this_cpu(buf, n, &window) : 0;
	snap->source = src->id;
	snap->cpu = smp_processor_id();
	snap->count = count;
	snap->capacity = src->capacity();
	snap->window = window;
	snap->reason = BTS_REASON_DUMP;
	snap->fault_index = U32_MAX;
	snap->timestamp = local_clock();
	/* bts-series: from pid */
	snap->task_filter = READ_ONCE(bts_arm_flags) & BTS_ARM_FILTER;
	snap->filter_held = this_cpu_read(bts_filter_held);
	/* bts-series: end */
	return count;
}

/**
 * bts_snapshot_this_cpu - copy this CPU's newest branch history
 * @buf:	room for @n records
 * @n:		how many of the newest records are wanted
 * @snap:	filled in: what the copy is
 *
 * Freezes this CPU, copies up to @n of its newest records into @buf,
 * oldest first, and resumes recording. Any context with IRQs off,
 * NMI included: no locks, no allocation.
 *
 * Return: the number of records copied; 0 when nothing is armed.
 */
unsigned int notrace bts_snapshot_this_cpu(struct bts_record *buf,
					   unsigned int n,
					   struct bts_snapshot *snap)
{
	struct bts_source *src = READ_ONCE(bts_armed);
	unsigned int count;

	memset(snap, 0, sizeof(*snap));
	snap->fault_index = U32_MAX;
	if (!src)
		return 0;
	bts_freeze_this_cpu(src);
	count = bts_read_frozen_this_cpu(src, buf, n, snap);
	bts_thaw_this_cpu(src);
	return count;
}

struct bts_snapshot_req {
	struct bts_record *buf;
	unsigned int n;
	struct bts_snapshot *snap;
	unsigned int count;
};

static void bts_snapshot_ipi(void *info)
{
	struct bts_snapshot_req *req = info;

	req->count = bts_snapshot_this_cpu(req->buf, req->n, req->snap);
}

/**
 * bts_snapshot_cpu - copy another CPU's newest branch history
 * @cpu:	an online CPU
 * @buf:	room for @n records
 * @n:		how many of the newest records are wanted
 * @snap:	filled in: what the copy is
 *
 * Runs bts_snapshot_this_cpu() on @cpu through an IPI and waits for it.
 * Process context (IRQs on).
 *
 * Return: the number of records copied, -ENODEV when nothing is armed,
 * or -ENXIO when @cpu is offline.
 */
int bts_snapshot_cpu(unsigned int cpu, struct bts_record *buf,
		     unsigned int n, struct bts_snapshot *snap)
{
	struct bts_snapshot_req req = { .buf = buf, .n = n, .snap = snap };
	int ret;

	if (!READ_ONCE(bts_armed))
		return -ENODEV;
	ret = smp_call_function_single(cpu, bts_snapshot_ipi, &req, 1);
	if (ret)
		return ret;
	if (snap->source == BTS_SOURCE_NONE)
		return -ENODEV;
	return req.count;
}

/* bts-series: from live */
/*
 * The index of the current histories for debuggers (struct bts_live_table,
 * include/uapi/linux/bts.h): drgn or crash on /proc/kcore finds it
 * through this symbol and reads each CPU's history where its source
 * said. Allocated once at boot for nr_cpu_ids slots; never freed.
 */
struct bts_live_table *bts_live __ro_after_init;

static struct bts_live_slot *bts_live_slots(void)
{
	return (struct bts_live_slot *)(bts_live + 1);
}

static int __init bts_live_init(void)
{
	struct bts_live_table *t;

	t = kzalloc(sizeof(*t) + nr_cpu_ids * sizeof(struct bts_live_slot),
		    GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	memcpy(t->magic, BTS_LIVE_MAGIC, sizeof(BTS_LIVE_MAGIC));
	t->version = BTS_LIVE_VERSION;
	t->table_size = sizeof(*t);
	t->slot_size = sizeof(struct bts_live_slot);
	t->nr_slots = nr_cpu_ids;
	bts_live = t;
	return 0;
}
core_initcall(bts_live_init);

/**
 * bts_live_publish - say where a CPU's history is, for debuggers
 * @cpu:	the CPU
 * @slot:	where its source keeps the history, and how to read it; NULL
 *		when the source stops recording there and takes the buffer
 *		back
 *
 * One writer per slot at a time (the source's arm, disarm and hotplug
 * callbacks, which the core and the hotplug lock serialize). A reader
 * outside the kernel sees @seq odd while the slot changes. Any context:
 * no locks, no allocation.
 */
void notrace bts_live_publish(unsigned int cpu,
			      const struct bts_live_slot *slot)
{
	struct bts_live_slot *s;
	u32 seq;

	if (!bts_live || cpu >= nr_cpu_ids)
		return;
	s = &bts_live_slots()[cpu];
	seq = READ_ONCE(s->seq) | 1;
	WRITE_ONCE(s->seq, seq);
	/* odd before any field changes (a reader's smp_rmb() pairs) */
	smp_wmb();
	if (slot) {
		s->source = slot->source;
		s->kind = slot->kind;
		s->nr = slot->nr;
		s->flags = slot->flags;
		s->recs = slot->recs;
		s->head = slot->head;
		s->head_base = slot->head_base;
		s->tail = slot->tail;
		s->drained = slot->drained;
	} else {
		memset((u8 *)s + sizeof(s->seq), 0, sizeof(*s) - sizeof(s->seq));
	}
	/* every field before the even seq that says the slot is whole */
	smp_wmb();
	WRITE_ONCE(s->seq, seq + 1);
}

/* bts-series: end */