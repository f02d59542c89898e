// SPDX-License-Identifier: GPL-2.0
/*
 * bts core: the registry of branch sources, the armed source, per-CPU
 * snapshots of branch history, and the in-kernel capture API.
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
 * sleep, allocate or take locks; bts_arm(), bts_disarm() and
 * bts_snapshot_cpu() are process context and serialize on bts_mutex.
 */
#define pr_fmt(fmt) "bts: " fmt

#include <linux/bts.h>
#include <linux/cpu.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/delay.h>
#include <linux/kdebug.h>
#include <linux/panic.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <asm/apic.h>
#include <asm/desc.h>
#include <asm/fred.h>
#include <asm/ibt.h>
#include <asm/nmi.h>
#include <asm/ptrace.h>
#include <asm/sections.h>
#include <asm/trapnr.h>

#include "bts_core.h"

static LIST_HEAD(bts_sources);
static DEFINE_MUTEX(bts_mutex);

/* The armed source, read locklessly from any context (NMI included). */
static struct bts_source *bts_armed;

/*
 * The last source with a stop_this_cpu() that was armed: the crash path
 * stops it whatever the core's state (a crash in the middle of a disarm
 * included). Sources live as long as the kernel. bts_stop_key is on from
 * the first such arming.
 */
static struct bts_source *bts_stoppable;
DEFINE_STATIC_KEY_FALSE(bts_stop_key);

/* Freeze nesting depth of each CPU; see the file comment. */
static DEFINE_PER_CPU(unsigned int, bts_freeze_depth);

/* The faulting CPU of a capture is held frozen (see fault capture). */
static bool bts_capture_frozen;

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
	if (src->stop_this_cpu && READ_ONCE(bts_stoppable) != src) {
		WRITE_ONCE(bts_stoppable, src);
		static_branch_enable(&bts_stop_key);
	}
	ret = src->arm(arm_flags);
	if (ret) {
		pr_info("arming source %s failed: %d\n", src->name, ret);
		goto out;
	}
	/* Pairs with READ_ONCE() in the snapshot and fault paths. */
	smp_store_release(&bts_armed, src);
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
		WRITE_ONCE(bts_armed, NULL);
		/* Let snapshots and NMIs that saw the source finish with it. */
		synchronize_rcu();
		src->disarm();
		/* Nothing is frozen any more: the next arm starts afresh. */
		for_each_possible_cpu(cpu)
			per_cpu(bts_freeze_depth, cpu) = 0;
		WRITE_ONCE(bts_capture_frozen, false);
	}
	mutex_unlock(&bts_mutex);
}

/**
 * __bts_crash_stop_this_cpu - see bts_crash_stop_this_cpu()
 */
void notrace __bts_crash_stop_this_cpu(void)
{
	struct bts_source *src = READ_ONCE(bts_stoppable);

	if (src)
		src->stop_this_cpu();
}

/**
 * bts_armed_source - the armed source, or NULL. Any context.
 */
struct bts_source *bts_armed_source(void)
{
	return READ_ONCE(bts_armed);
}

/**
 * bts_freeze_this_cpu - stop recording on this CPU (nesting)
 * @src: the armed source
 *
 * IRQs off. Only the outermost freeze reaches the source.
 */
void notrace bts_freeze_this_cpu(struct bts_source *src)
{
	if (this_cpu_inc_return(bts_freeze_depth) == 1)
		src->freeze_this_cpu();
}

/**
 * bts_thaw_this_cpu - undo one bts_freeze_this_cpu()
 * @src: the armed source
 */
void notrace bts_thaw_this_cpu(struct bts_source *src)
{
	unsigned int depth = this_cpu_read(bts_freeze_depth);

	if (WARN_ON_ONCE(!depth))
		return;
	this_cpu_write(bts_freeze_depth, depth - 1);
	if (depth == 1)
		src->thaw_this_cpu();
}

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

/*
 * Fault capture.
 *
 * The hooks on the oops, BUG and panic paths call __bts_fault_freeze()
 * first thing. The first fault freezes the faulting CPU (which stays
 * frozen until the capture is cleared), copies its history into a
 * preallocated per-CPU capture buffer, freezes and copies the other CPUs
 * through an NMI (best effort: a CPU spinning with NMIs blocked is not
 * reached), and hands the capture to the emit callback of its owner (the
 * tracer writes it into the ring buffer before oops_enter() turns tracing
 * off). Later faults are only counted.
 *
 * BUG and #GP captures are taken early (in handle_bug() before
 * report_bug(), in the DIE_GPF notifier) and emitted from oops_begin(),
 * once the trap is known to be an oops: a WARN discards the capture or,
 * with capture on WARN, keeps and emits it.
 *
 * Everything here runs with IRQs off on the faulting CPU or in NMI:
 * no locks, no allocation, notrace; bad state makes it return, never oops.
 */
enum bts_capture_state {
	BTS_CAPTURE_EMPTY,	/* nothing captured: the next fault is taken */
	BTS_CAPTURE_BUSY,	/* a CPU is taking or emitting a capture */
	BTS_CAPTURE_PENDING,	/* taken early (BUG, #GP), not yet emitted */
	BTS_CAPTURE_HELD,	/* taken and emitted, kept until cleared */
};

DEFINE_STATIC_KEY_FALSE(bts_fault_key);

static atomic_t bts_capture_state = ATOMIC_INIT(BTS_CAPTURE_EMPTY);
static atomic64_t bts_lost_faults;
static int bts_capture_cpu = -1;
static enum bts_reason bts_capture_reason;
static unsigned int bts_capture_reasons;
static unsigned int bts_capture_capacity;
static void (*bts_capture_emit)(void);
static DEFINE_PER_CPU(struct bts_capture, bts_captures);
static struct cpumask bts_nmi_pending;

/*
 * A #GP or BUG not kept because a capture was held: its oops_begin() that
 * follows is the same fault and is not counted again.
 */
static DEFINE_PER_CPU(bool, bts_early_fault_counted);

/* Bounded wait for the other CPUs' NMI captures, in microseconds. */
#define BTS_NMI_WAIT_US		10000

static bool notrace bts_in_entry_text(u64 addr)
{
	return addr >= (unsigned long)__entry_text_start &&
	       addr < (unsigned long)__entry_text_end;
}

/* Entry code and noinstr code: where exception handlers run untraced. */
static bool notrace bts_in_exception_text(u64 addr)
{
	return bts_in_entry_text(addr) ||
	       (addr >= (unsigned long)__noinstr_text_start &&
		addr < (unsigned long)__noinstr_text_end);
}

/*
 * Where the CPU enters the kernel for exception @vector, given the IDT it
 * uses (@idt), or with FRED the one entry point for events in kernel mode.
 */
static u64 notrace bts_gate_target(const struct desc_ptr *idt,
				   unsigned int vector)
{
#ifdef CONFIG_X86_FRED
	if (cpu_feature_enabled(X86_FEATURE_FRED))
		return (unsigned long)asm_fred_entrypoint_kernel;
#endif
	if ((vector + 1) * sizeof(gate_desc) > (unsigned long)idt->size + 1)
		return 0;
	return gate_offset((const gate_desc *)idt->address + vector);
}

/**
 * bts_exception_entry - where the CPU enters the kernel for an exception
 * @vector: X86_TRAP_*
 *
 * Read from the IDT this CPU uses (sidt), so it is where a hardware
 * record of that exception goes, whatever the kernel's entry code is.
 *
 * Return: the address, or 0 when the IDT has no such gate.
 */
u64 notrace bts_exception_entry(unsigned int vector)
{
	struct desc_ptr idt;

	store_idt(&idt);
	return bts_gate_target(&idt, vector);
}

/* Is @addr the entry of an exception (not of an interrupt or the NMI)? */
static bool notrace bts_is_exception_entry(u64 addr)
{
	struct desc_ptr idt;
	unsigned int v;

	store_idt(&idt);
	for (v = 0; v < FIRST_EXTERNAL_VECTOR; v++)
		if (v != X86_TRAP_NMI && addr == bts_gate_target(&idt, v))
			return true;
	return false;
}

/**
 * bts_find_fault_record - the record at which a fault entered the kernel
 * @recs:	a captured history, oldest first
 * @count:	its length
 *
 * For a hardware history that is the newest branch to the entry point of
 * an exception (from = the faulting instruction, to = the IDT gate's
 * target): not any branch into the entry code, since a return thunk
 * outside it returns into the middle of it. Interrupt and NMI entries do
 * not count: an interrupt can arrive between the fault and the freeze. The
 * software
 * source sees no exceptions, only calls from traceable code: there it is
 * the first call the (noinstr) exception handler made, the oldest record
 * of the newest run of calls made from entry or noinstr code.
 *
 * Return: its index, or U32_MAX when the history holds none.
 */
u32 notrace bts_find_fault_record(const struct bts_record *recs,
				  unsigned int count)
{
	unsigned int i;

	for (i = count; i-- > 0;) {
		const struct bts_record *r = &recs[i];

		if (r->flags & BTS_FLAG_SW) {
			if (!bts_in_exception_text(r->from))
				continue;
			while (i > 0 && (recs[i - 1].flags & BTS_FLAG_SW) &&
			       bts_in_exception_text(recs[i - 1].from))
				i--;
			return i;
		}
		if (bts_is_exception_entry(r->to))
			return i;
	}
	return U32_MAX;
}

/*
 * The exception entry of a trap the faulting CPU took, for a software
 * history that holds no record of it (a BUG() calls nothing traceable
 * between the ud2 and the capture).
 */
static u64 notrace bts_trap_entry(enum bts_reason reason)
{
	switch (reason) {
	case BTS_REASON_BUG:
		return bts_exception_entry(X86_TRAP_UD);
	case BTS_REASON_GPF:
		return bts_exception_entry(X86_TRAP_GP);
	default:
		return 0;
	}
}

/*
 * The newest call into panic(): an interrupt can still arrive between
 * panic()'s first instruction and the capture, so it is not always the
 * newest record. The target is panic itself, or its ftrace location
 * just after an endbr64.
 */
static u32 notrace bts_find_panic_record(const struct bts_record *recs,
					 unsigned int count)
{
	unsigned int i;

	for (i = count; i-- > 0;)
		if (recs[i].to - (unsigned long)panic <= ENDBR_INSN_SIZE)
			return i;
	return count ? count - 1 : U32_MAX;
}

/**
 * bts_mark_fault - flag the record at which the fault happened
 * @cap:	the faulting CPU's capture (one slot kept free)
 * @reason:	why it was captured
 * @regs:	the faulting context, or NULL
 *
 * A panic marks the call into panic(). A BUG() calls nothing traceable
 * between its ud2 and the capture, so a software history gets a record
 * of the trap made from @regs: {from = the ud2, to = the exception
 * entry}; so does any other software history without a fault record.
 */
static void notrace bts_mark_fault(struct bts_capture *cap,
				   enum bts_reason reason,
				   struct pt_regs *regs)
{
	struct bts_snapshot *snap = &cap->snap;
	u32 i;

	if (reason == BTS_REASON_PANIC)
		i = bts_find_panic_record(cap->recs, snap->count);
	else if (reason == BTS_REASON_BUG && snap->source == BTS_SOURCE_SW)
		i = U32_MAX;
	else
		i = bts_find_fault_record(cap->recs, snap->count);
	if (i == U32_MAX && regs && snap->source == BTS_SOURCE_SW &&
	    bts_trap_entry(reason) && snap->count < bts_capture_capacity) {
		i = snap->count++;
		cap->recs[i].from = instruction_pointer(regs);
		cap->recs[i].to = bts_trap_entry(reason);
		cap->recs[i].flags = BTS_FLAG_SW;
	}
	snap->fault_index = i;
	if (i != U32_MAX)
		cap->recs[i].flags |= BTS_FLAG_FAULT;
}

/* Copy this (frozen) CPU's history into its capture buffer. */
static void notrace bts_capture_this_cpu(struct bts_source *src,
					 enum bts_reason reason,
					 unsigned int room)
{
	struct bts_capture *cap = this_cpu_ptr(&bts_captures);

	if (!cap->recs)
		return;
	bts_read_frozen_this_cpu(src, cap->recs, room, &cap->snap);
	cap->snap.reason = reason;
	cap->valid = true;
}

static int notrace bts_nmi_handler(unsigned int cmd, struct pt_regs *regs)
{
	int cpu = smp_processor_id();
	struct bts_source *src;

	if (!cpumask_test_cpu(cpu, &bts_nmi_pending))
		return NMI_DONE;
	src = READ_ONCE(bts_armed);
	if (src) {
		bts_freeze_this_cpu(src);
		bts_capture_this_cpu(src, READ_ONCE(bts_capture_reason),
				     bts_capture_capacity);
		bts_thaw_this_cpu(src);
	}
	cpumask_clear_cpu(cpu, &bts_nmi_pending);
	return NMI_HANDLED;
}

/* Freeze and copy every other online CPU through an NMI, bounded wait. */
static void notrace bts_capture_other_cpus(void)
{
	int i;

	cpumask_copy(&bts_nmi_pending, cpu_online_mask);
	cpumask_clear_cpu(smp_processor_id(), &bts_nmi_pending);
	if (cpumask_empty(&bts_nmi_pending))
		return;
	__apic_send_IPI_mask(&bts_nmi_pending, NMI_VECTOR);
	for (i = 0; i < BTS_NMI_WAIT_US && !cpumask_empty(&bts_nmi_pending); i++)
		udelay(1);
	/* Whoever did not answer keeps recording; its slot stays invalid. */
	cpumask_clear(&bts_nmi_pending);
}

/* Take the other CPUs, then hand the capture to its owner. */
static void notrace bts_capture_finish(void)
{
	bts_capture_other_cpus();
	atomic_set(&bts_capture_state, BTS_CAPTURE_BUSY);
	if (bts_capture_emit)
		bts_capture_emit();
	atomic_set(&bts_capture_state, BTS_CAPTURE_HELD);
}

/**
 * __bts_fault_freeze - freeze and capture this CPU's history at a fault
 * @reason:	BTS_REASON_OOPS, _BUG, _PANIC or _GPF
 * @regs:	the faulting context, or NULL
 *
 * See the comment above enum bts_capture_state. Called through
 * bts_fault_freeze() only while capture is enabled.
 */
void notrace __bts_fault_freeze(enum bts_reason reason, struct pt_regs *regs)
{
	struct bts_source *src = READ_ONCE(bts_armed);
	int cpu = smp_processor_id();
	struct bts_capture *cap;
	unsigned long flags;
	int old;

	if (!src || reason >= BTS_REASON_MAX ||
	    !(READ_ONCE(bts_capture_reasons) & BIT(reason)))
		return;

	local_irq_save(flags);
	old = atomic_cmpxchg(&bts_capture_state, BTS_CAPTURE_EMPTY,
			     BTS_CAPTURE_BUSY);
	if (old == BTS_CAPTURE_PENDING && reason == BTS_REASON_OOPS &&
	    READ_ONCE(bts_capture_cpu) == cpu) {
		/* The oops that follows an early BUG or #GP capture. */
		if (atomic_cmpxchg(&bts_capture_state, BTS_CAPTURE_PENDING,
				   BTS_CAPTURE_BUSY) == BTS_CAPTURE_PENDING)
			bts_capture_finish();
		goto out;
	}
	if (old != BTS_CAPTURE_EMPTY) {
		/* A capture is kept (or being taken): count this fault once. */
		if (reason == BTS_REASON_OOPS &&
		    this_cpu_read(bts_early_fault_counted))
			this_cpu_write(bts_early_fault_counted, false);
		else
			atomic64_inc(&bts_lost_faults);
		if (reason == BTS_REASON_BUG || reason == BTS_REASON_GPF)
			this_cpu_write(bts_early_fault_counted, true);
		goto out;
	}

	WRITE_ONCE(bts_capture_cpu, cpu);
	WRITE_ONCE(bts_capture_reason, reason);
	/* This CPU stays frozen until the capture is cleared. */
	bts_freeze_this_cpu(src);
	WRITE_ONCE(bts_capture_frozen, true);
	/* One slot stays free for bts_mark_fault(). */
	bts_capture_this_cpu(src, reason, bts_capture_capacity - 1);
	cap = this_cpu_ptr(&bts_captures);
	if (cap->valid)
		bts_mark_fault(cap, reason, regs);

	if (reason == BTS_REASON_BUG || reason == BTS_REASON_GPF)
		atomic_set(&bts_capture_state, BTS_CAPTURE_PENDING);
	else
		bts_capture_finish();
out:
	local_irq_restore(flags);
}

/**
 * __bts_fault_warn_done - the BUG trap this CPU captured was a WARN
 *
 * With capture on WARN the capture is kept, relabelled and emitted;
 * otherwise it is dropped. Either way this CPU records again.
 */
void notrace __bts_fault_warn_done(void)
{
	struct bts_source *src = READ_ONCE(bts_armed);
	int cpu = smp_processor_id();
	struct bts_capture *cap;
	unsigned long flags;

	/* A WARN has no oops_begin() to follow. */
	this_cpu_write(bts_early_fault_counted, false);
	if (!src || READ_ONCE(bts_capture_cpu) != cpu)
		return;
	local_irq_save(flags);
	if (atomic_cmpxchg(&bts_capture_state, BTS_CAPTURE_PENDING,
			   BTS_CAPTURE_BUSY) != BTS_CAPTURE_PENDING)
		goto out;
	cap = this_cpu_ptr(&bts_captures);
	if (READ_ONCE(bts_capture_reasons) & BIT(BTS_REASON_WARN)) {
		cap->snap.reason = BTS_REASON_WARN;
		WRITE_ONCE(bts_capture_reason, BTS_REASON_WARN);
		bts_capture_finish();
	} else {
		cap->valid = false;
		WRITE_ONCE(bts_capture_cpu, -1);
		atomic_set(&bts_capture_state, BTS_CAPTURE_EMPTY);
	}
	WRITE_ONCE(bts_capture_frozen, false);
	bts_thaw_this_cpu(src);
out:
	local_irq_restore(flags);
}

static int notrace bts_die_notify(struct notifier_block *nb, unsigned long val,
				  void *data)
{
	struct die_args *args = data;

	if (val == DIE_GPF && !user_mode(args->regs))
		bts_fault_freeze(BTS_REASON_GPF, args->regs);
	return NOTIFY_DONE;
}

static struct notifier_block bts_die_nb = {
	.notifier_call	= bts_die_notify,
	.priority	= INT_MAX,	/* before ftrace's dump on oops */
};

/**
 * bts_capture_enable - capture branch history at faults
 * @reasons:	BIT(BTS_REASON_*) of the faults to capture
 * @emit:	called on the faulting CPU, IRQs off, once a capture is
 *		complete; NMI-safe rules apply
 *
 * Allocates one capture buffer of the armed source's capacity per
 * possible CPU (bounded: 64 KiB per CPU for 2730 records). Process
 * context, with a source armed.
 *
 * Return: 0, -ENODEV when nothing is armed, -ENOMEM.
 */
int bts_capture_enable(unsigned int reasons, void (*emit)(void))
{
	struct bts_source *src = bts_armed_source();
	unsigned int capacity;
	int cpu, ret;

	if (!src)
		return -ENODEV;
	capacity = src->capacity();
	bts_capture_disable();
	if (capacity != bts_capture_capacity) {
		if (atomic_read(&bts_capture_state) != BTS_CAPTURE_EMPTY)
			bts_capture_clear();
		for_each_possible_cpu(cpu) {
			struct bts_capture *cap = per_cpu_ptr(&bts_captures, cpu);

			kvfree(cap->recs);
			cap->recs = NULL;
			cap->valid = false;
		}
		bts_capture_capacity = 0;
		for_each_possible_cpu(cpu) {
			struct bts_capture *cap = per_cpu_ptr(&bts_captures, cpu);

			cap->recs = kvcalloc(capacity, sizeof(*cap->recs),
					     GFP_KERNEL);
			if (!cap->recs)
				return -ENOMEM;
		}
		bts_capture_capacity = capacity;
	}
	WRITE_ONCE(bts_capture_reasons, reasons);
	WRITE_ONCE(bts_capture_emit, emit);
	ret = register_nmi_handler(NMI_LOCAL, bts_nmi_handler, NMI_FLAG_FIRST,
				   "bts");
	if (ret)
		return ret;
	ret = register_die_notifier(&bts_die_nb);
	if (ret) {
		unregister_nmi_handler(NMI_LOCAL, "bts");
		return ret;
	}
	static_branch_enable(&bts_fault_key);
	return 0;
}

/**
 * bts_capture_set_reasons - change which faults are captured
 * @reasons: BIT(BTS_REASON_*)
 */
void bts_capture_set_reasons(unsigned int reasons)
{
	WRITE_ONCE(bts_capture_reasons, reasons);
}

/**
 * bts_capture_disable - stop capturing; what was captured stays readable
 *
 * Process context.
 */
void bts_capture_disable(void)
{
	if (!static_key_enabled(&bts_fault_key))
		return;
	static_branch_disable(&bts_fault_key);
	unregister_die_notifier(&bts_die_nb);
	unregister_nmi_handler(NMI_LOCAL, "bts");
	WRITE_ONCE(bts_capture_emit, NULL);
	synchronize_rcu();
}

/**
 * bts_capture_get - one CPU's captured history
 * @cpu:	a possible CPU
 * @recs:	set to its records (valid until bts_capture_clear())
 * @snap:	filled in
 *
 * Also called by the emit callback while the capture is being taken.
 *
 * Return: true when the CPU has a capture.
 */
bool bts_capture_get(unsigned int cpu, const struct bts_record **recs,
		     struct bts_snapshot *snap)
{
	struct bts_capture *cap = per_cpu_ptr(&bts_captures, cpu);

	if (atomic_read(&bts_capture_state) == BTS_CAPTURE_EMPTY || !cap->valid)
		return false;
	*recs = cap->recs;
	*snap = cap->snap;
	return true;
}

/**
 * bts_capture_lost - faults seen while a capture was kept
 */
u64 bts_capture_lost(void)
{
	return atomic64_read(&bts_lost_faults);
}

/**
 * bts_capture_status - what was captured
 * @cpu:	set to the faulting CPU, or -1
 * @reason:	set to its reason
 *
 * Return: true when a capture is kept.
 */
bool bts_capture_status(int *cpu, enum bts_reason *reason)
{
	int state = atomic_read(&bts_capture_state);

	*cpu = READ_ONCE(bts_capture_cpu);
	if ((state != BTS_CAPTURE_HELD && state != BTS_CAPTURE_PENDING) ||
	    *cpu < 0)
		return false;
	*reason = READ_ONCE(bts_capture_reason);
	return true;
}

static void bts_thaw_capture_cpu(void *info)
{
	struct bts_source *src = READ_ONCE(bts_armed);

	if (src && smp_processor_id() == *(int *)info &&
	    READ_ONCE(bts_capture_frozen)) {
		WRITE_ONCE(bts_capture_frozen, false);
		bts_thaw_this_cpu(src);
	}
}

/**
 * bts_capture_clear - forget the capture; the next fault is taken
 *
 * The faulting CPU records again. Process context.
 */
void bts_capture_clear(void)
{
	int cpu, owner = READ_ONCE(bts_capture_cpu);
	int state = atomic_read(&bts_capture_state);

	if (state != BTS_CAPTURE_HELD && state != BTS_CAPTURE_PENDING)
		return;
	if (owner >= 0 && cpu_online(owner))
		smp_call_function_single(owner, bts_thaw_capture_cpu, &owner, 1);
	for_each_possible_cpu(cpu)
		per_cpu(bts_captures, cpu).valid = false;
	WRITE_ONCE(bts_capture_cpu, -1);
	atomic64_set(&bts_lost_faults, 0);
	atomic_set(&bts_capture_state, BTS_CAPTURE_EMPTY);
}
