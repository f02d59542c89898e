// SPDX-License-Identifier: GPL-2.0
/*
 * bts capture: each CPU's branch history taken at a fault (oops, BUG,
 * #GP, WARN, panic), kept until it is cleared, for the tracer's ring
 * buffer and capture files, the persistent region and the kdump table.
 *
 * Layer: the core (with bts_core.c). It knows nothing of MSRs and
 * nothing of the ring buffer: a capture is handed to the user's emit
 * callback.
 *
 * Everything on the fault path runs with IRQs off on the faulting CPU or
 * in NMI: it must never sleep, allocate or take a lock, and is notrace.
 * Only bts_capture_enable(), bts_capture_disable() and
 * bts_capture_clear() are process context.
 */
#define pr_fmt(fmt) "bts: " fmt

#include <linux/bts.h>
#include <linux/cpu.h>
/* bts-series: from others */
#include <linux/delay.h>
#include <linux/jiffies.h>
/* bts-series: end */
#include <linux/extable.h>
#include <linux/panic.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
/* bts-series: from others */
#include <linux/sched/clock.h>
/* bts-series: end */
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
/* bts-series: from others */
#include <asm/apic.h>
/* bts-series: end */
/* bts-series: from fault-mark */
#include <asm/desc.h>
#include <asm/fred.h>
#include <asm/ibt.h>
/* bts-series: end */
/* bts-series: from others */
#include <asm/nmi.h>
/* bts-series: end */
#include <asm/ptrace.h>
/* bts-series: from fault-mark */
#include <asm/sections.h>
/* bts-series: end */
/* bts-series: from fault-mark */
#include <asm/trapnr.h>
/* bts-series: end */

#include "bts_core.h"

/* The CPU holds a freeze for the kept capture (bts_core.c resets it). */
DEFINE_PER_CPU(bool, bts_capture_held);

/*
 * Fault capture.
 *
 * The hooks on the oops, BUG and panic paths call __bts_fault_freeze()
 * first thing, before oops_enter() turns tracing off. Two preallocated
 * buffers per CPU hold what they take:
 *
 *  - the CPU's fault slot: its own history at its own fault (oops, BUG,
 *    #GP, WARN, panic), with the fault record marked. The faulting CPU
 *    fills it itself, IRQs off, whatever the other CPUs are doing: no
 *    fault waits for another CPU's, none is refused because another CPU
 *    faulted first. A CPU keeps its first fault until the capture is
 *    cleared; a later fault on the same CPU is only counted, except
 *    that an oops wins over a WARN (below).
 *  - the CPU's context: its history at the moment of the first fault on
 *    any CPU (the kept capture), copied by the capture NMI.
 *
 * A CPU's capture (bts_capture_get(): the capture files, the ring buffer,
 * the persistent region, the kdump table) is its fault slot when it
 * faulted, its context otherwise.
 *
 * The first fault whose outcome is known (an oops, a panic, a WARN when
 * WARNs are captured) becomes the kept capture: it freezes and copies
 * the other CPUs through an NMI (best effort: a CPU spinning with NMIs
 * blocked is not reached), waits for them with a bound, and each CPU
 * hands its history to the emit callback on itself (the tracer writes
 * it into that CPU's ring buffer). A fault that finds the kept capture
 * taken, being taken or being cleared does not wait: it emits its own
 * history and bts/capture lists it. A CPU that oopsed or panicked stays
 * frozen until the capture is cleared.
 *
 * BUG and #GP traps are captured early (in handle_bug() before
 * report_bug(), in exc_general_protection() before IRQs are on and the
 * die chain runs), before it is known whether the trap is an oops: the
 * history is copied, the CPU thawed at once, and
 * the slot stays PENDING, owned by the trapping task in its context (not
 * by the CPU: with IRQs on at the trap site, a preemptible kernel can
 * move the task to another CPU before report_bug() returns). A pending
 * slot ends in one of these ways, on whatever CPU the task is:
 *
 *  - its oops_begin() keeps it (whatever the capture options say: the
 *    trap was captured, so its oops is);
 *  - its own panic (panic_on_warn) keeps it as the panic's history;
 *  - its WARN keeps it relabelled (capture on WARN) or drops it;
 *  - the same context trapping again, not nested in the first trap (a
 *    debugger handled the trap and returned), drops it, and counts it
 *    in bts_dropped_faults;
 *  - bts_capture_clear() drops it.
 *
 * The panic's history is always kept, for the persistent region and the
 * kdump table, which write it first. It is, in this order:
 *
 *  - its task's trap pending in this context (panic_on_warn, or a panic
 *    inside report_bug());
 *  - a fault its task kept in this context, on any CPU (panic_on_oops:
 *    the oops led here, and its history reaches the fault, which the
 *    panic's, taken after the oops report, would not);
 *  - the fault this CPU is held frozen for: it has recorded nothing
 *    since, so that is its history now, whichever task panics on it;
 * bts-series: until panic-buf
 *  - else the panicking CPU's own, taken now into its fault slot when
 *    the slot is free. The panic never waits for a slot and never takes
 *    one another fault owns (another task's fault or pending trap,
 *    another CPU resolving a migrated task's trap in it): it is counted
 *    as lost then.
 * bts-series: end
 * bts-series: from panic-buf
 *  - else the panicking CPU's own, taken now: into its fault slot when
 *    the slot is free, else into the one panic buffer. The panic never
 *    waits for a slot and never takes one another fault owns: another
 *    task's fault or pending trap, another CPU resolving a migrated
 *    task's trap in it.
 * bts-series: end
 *
 * An oops or a panic wins over a WARN, never counted for one:
 *
 *  - an oops on a CPU whose slot holds a kept WARN, or the pending trap
 *    of another context (an interrupt, or a task that preempted one
 *    reporting a WARN with IRQs on; a trap that a kprobe or a die
 *    notifier resolved, which never ends), takes the slot over. The
 *    WARN's history was written to the ring buffer when it was kept;
 *    the trap's context finds no trap of its own when it ends, and its
 *    WARN or oops is counted then, as a later fault on that CPU;
 * bts-series: from panic-buf
 *  - a panic on such a CPU has a room of its own, the panic buffer;
 * bts-series: end
 *  - the kept capture, when it is a WARN, becomes the oops's or the
 *    panic's: the other CPUs are copied again (a CPU that kept a WARN of
 *    its own still shows its WARN).
 *
 * A slot that another CPU is resolving at that moment (a migrated task's
 * trap, a few stores with IRQs off) is not waited for: the oops is
 * counted.
 *
 * An oops or panic that meets its own CPU's slot half written by this
 * CPU (it interrupted, in NMI or as a fault in that code, this CPU's own
 * capture, resolution or clear of the slot) takes the slot over: what it
 * interrupted never resumes (an oops in NMI panics; a fault in task
 * context kills the task). Only a debugger that resumes an oops
 * (a die notifier that stops it) resumes it; it then overwrites the slot.
 *
 * A clear drops each online CPU's slot on that CPU, IRQs off (an offline
 * CPU's from the clearing CPU): a fault on a CPU whose slot was cleared
 * is kept after the clear, one on a CPU not yet reached waits behind it
 * (IRQs off: the clear's IPI comes after it) and is then cleared, as a
 * fault before the clear. No fault is refused because of a clear.
 *
 * A fault is counted as lost when it would have been captured and was
 * not, once its kind is known: a WARN only when WARNs are captured.
 *
 * Everything here runs with IRQs off on the faulting CPU or in NMI:
 * no locks, no allocation, notrace; bad state makes it return, never oops.
 * The only waits are the kept capture's, for the other CPUs' NMIs: see
 * BTS_NMI_WAIT_US.
 */
enum bts_slot_state {
	BTS_SLOT_EMPTY,		/* nothing: this CPU's next fault is taken */
	BTS_SLOT_BUSY,		/* being taken, resolved or cleared */
	BTS_SLOT_PENDING,	/* a BUG or #GP trap whose outcome is unknown */
	BTS_SLOT_HELD,		/* a fault's history, kept until cleared */
};

/*
 * struct bts_fault_slot - one CPU's own fault
 * @state:	enum bts_slot_state
 * @writer:	BUSY: the CPU taking or resolving it, else -1 (a clear
 *		leaves it -1)
 * @cap:	its history
 * @task:	PENDING and HELD: the faulting task (compared, never
 *		dereferenced: it may be gone),
 * @start:	its start time (a task_struct freed and reused for
 *		another task is not taken for it),
 * @ctx:	in this context (task, IRQ, NMI),
 * @sp:		PENDING: its stack pointer at the trap (a trap nested in
 *		the handling of the first, a WARN while printing a WARN, is
 *		deeper on the same stack)
 */
struct bts_fault_slot {
	atomic_t state;
	int writer;
	struct bts_capture cap;
	struct task_struct *task;
	u64 start;
	unsigned long ctx;
	unsigned long sp;
};

/* The kept capture: the first fault's and every CPU's context. */
enum bts_kept_state {
	BTS_KEPT_EMPTY,		/* none: the next fault becomes it */
	BTS_KEPT_BUSY,		/* being taken or cleared */
	BTS_KEPT_HELD,		/* taken, kept until cleared */
};

DEFINE_STATIC_KEY_FALSE(bts_fault_key);

static DEFINE_PER_CPU(struct bts_fault_slot, bts_faults);
/* bts-series: from others */
static DEFINE_PER_CPU(struct bts_capture, bts_contexts);
/* bts-series: end */
static atomic_t bts_kept_state = ATOMIC_INIT(BTS_KEPT_EMPTY);
/* The CPU whose fault slot holds the kept capture's fault, or -1. */
static int bts_kept_cpu = -1;
static enum bts_reason bts_kept_reason;
/* The CPU taking the kept capture (BUSY, not cleared), or -1. */
static int bts_capturing_cpu = -1;
/*
 * The panics: where each CPU's is (the CPU whose capture, see
 * bts_capture_get(), is its history), or -1; and that of the last one.
 * Real panics never return, so a clear never races with one it clears:
 * only a panic before the clear (KUnit's) is cleared.
 */
static DEFINE_PER_CPU(int, bts_panic_from) = -1;
static int bts_panic_cpu = -1;

/* bts-series: from panic-buf */
/* The panic buffer: one panic's own history when its slot is not free. */
enum bts_panic_buf_state {
	BTS_PANIC_BUF_EMPTY,
	BTS_PANIC_BUF_BUSY,
	BTS_PANIC_BUF_HELD,
};

static atomic_t bts_panic_buf_state = ATOMIC_INIT(BTS_PANIC_BUF_EMPTY);
static struct bts_capture bts_panic_buf;
/* The CPU whose panic it holds (HELD), or -1. */
static int bts_panic_buf_cpu = -1;
/* bts-series: end */
static atomic64_t bts_lost_faults;
static atomic64_t bts_dropped_faults;
static unsigned int bts_capture_reasons;
static unsigned int bts_capture_capacity;
static void (*bts_capture_emit)(unsigned int cpu,
				const struct bts_record *recs,
				const struct bts_snapshot *snap);
/* bts-series: from others */
/* CPUs asked to capture, and those of them that are emitting. */
static struct cpumask bts_nmi_pending;
static struct cpumask bts_nmi_emitting;

/*
 * Capture NMIs sent to a CPU and seen by it: an NMI that arrives after
 * the bounded wait is still ours (claimed, not reported as unknown).
 */
static DEFINE_PER_CPU(unsigned int, bts_nmi_sent);
static DEFINE_PER_CPU(unsigned int, bts_nmi_seen);
/* The CPUs the capture NMI is sent to: those counted in bts_nmi_sent. */
static struct cpumask bts_nmi_targets;

/*
 * Every NMI a CPU takes within BTS_NMI_CLAIM_NS of taking a capture NMI
 * is claimed too (until bts_nmi_claim_until, in its local_clock()): the
 * capture NMI cannot be told from another NMI that comes just before it,
 * after the capture counted it, which then does its work and takes its
 * count (see bts_nmi_handler()).
 */
#define BTS_NMI_CLAIM_NS	(10 * NSEC_PER_MSEC)
static DEFINE_PER_CPU(u64, bts_nmi_claim_until);
/* Capture NMIs were sent since capture was last disabled. */
static bool bts_nmi_sent_any;

/*
 * The kept capture's bounded waits for the other CPUs, in microseconds
 * (counted in udelay(1) steps: the delay loop needs no clocksource,
 * which may be halted, as in suspend): for their
 * NMIs to copy their histories (a CPU with NMIs blocked never answers),
 * then for them to finish writing those into their ring buffers (2730
 * records each). After an oops the second wait is long, so that the
 * ring buffer holds every CPU's history before the oops goes on; after
 * a panic it is short, and what a CPU did not write in time is still in
 * its capture file, the persistent region and the kdump table (the
 * copies are done). So a panic spins here at most 10,000 + 100,000 us,
 * and only when it is the first fault: the persist and kdump writers
 * that run after it do not wait for anything.
 */
#define BTS_NMI_WAIT_US		10000
#define BTS_EMIT_WAIT_US	1000000
#define BTS_PANIC_EMIT_WAIT_US	100000
/* bts-series: end */

/* bts-series: from fault-mark */
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

/* bts-series: from kunit */
#ifdef CONFIG_BTS_TRACER_KUNIT_TEST
/* Gates decoded, for the KUnit suite: a search decodes the IDT once. */
unsigned long bts_kunit_gate_decodes;
#endif

/* bts-series: end */
/*
 * Where the CPU enters the kernel for exception @vector, given the IDT it
 * uses (@idt), or with FRED the one entry point for events in kernel mode.
 */
static u64 notrace bts_gate_target(const struct desc_ptr *idt,
				   unsigned int vector)
{
	/* bts-series: from kunit */
#ifdef CONFIG_BTS_TRACER_KUNIT_TEST
	bts_kunit_gate_decodes++;
#endif
	/* bts-series: end */
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

/*
 * The entry points of the exceptions (not of an interrupt or the NMI) in
 * the IDT this CPU uses, each once: decoded once per search, not once per
 * record (2730 records by 31 gates).
 */
struct bts_exception_entries {
	unsigned int n;
	u64 to[FIRST_EXTERNAL_VECTOR];
};

static void notrace bts_exception_entries(struct bts_exception_entries *e)
{
	struct desc_ptr idt;
	unsigned int v, i;
	u64 to;

	store_idt(&idt);
	e->n = 0;
	for (v = 0; v < FIRST_EXTERNAL_VECTOR; v++) {
		if (v == X86_TRAP_NMI)
			continue;
		to = bts_gate_target(&idt, v);
		for (i = 0; i < e->n && e->to[i] != to; i++)
			;
		if (to && i == e->n)
			e->to[e->n++] = to;
	}
}

/* Is @addr the entry of an exception (not of an interrupt or the NMI)? */
static bool notrace bts_is_exception_entry(const struct bts_exception_entries *e,
					   u64 addr)
{
	unsigned int i;

	for (i = 0; i < e->n; i++)
		if (addr == e->to[i])
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
	struct bts_exception_entries exc = { .n = U32_MAX };
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
		if (exc.n == U32_MAX)
			bts_exception_entries(&exc);
		if (bts_is_exception_entry(&exc, r->to))
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
 * just after an endbr64. An interrupt that came at panic()'s first byte
 * returns there from the entry code (iret): that record is not the call.
 */
u32 notrace bts_find_panic_record(const struct bts_record *recs,
				  unsigned int count)
{
	unsigned int i;

	for (i = count; i-- > 0;)
		if (recs[i].to - (unsigned long)panic <= ENDBR_INSN_SIZE &&
		    !bts_in_entry_text(recs[i].from))
			return i;
	return count ? count - 1 : U32_MAX;
}

/**
 * bts_mark_fault - flag the record at which the fault happened
 * @cap:	the faulting CPU's capture (one slot kept free)
 * @reason:	why it was captured
 * @regs:	the faulting context, or NULL
 *
 * A panic marks the call into panic(). A BUG() or a #GP calls nothing
 * traceable between the trapping instruction and the capture, so a
 * software history gets a record of the trap made from @regs: {from =
 * the trapping instruction, to = the exception entry} (its newest record
 * in exception text is an older exception's); so does any other software
 * history without a fault record.
 */
static void notrace bts_mark_fault(struct bts_capture *cap,
				   enum bts_reason reason,
				   struct pt_regs *regs)
{
	struct bts_snapshot *snap = &cap->snap;
	u32 i;

	if (reason == BTS_REASON_PANIC)
		i = bts_find_panic_record(cap->recs, snap->count);
	else if ((reason == BTS_REASON_BUG || reason == BTS_REASON_GPF) &&
		 snap->source == BTS_SOURCE_SW)
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

/* bts-series: end */
/*
 * Copy this (frozen) CPU's history into @cap: @room records at most (one
 * slot is kept free for bts_mark_fault() in a fault slot). Publishes
 * @cap->valid after the copy, for NMI readers on other CPUs.
 */
static void notrace bts_capture_this_cpu(struct bts_source *src,
					 struct bts_capture *cap,
					 enum bts_reason reason,
					 unsigned int room)
{
	if (!cap->recs)
		return;
	WRITE_ONCE(cap->valid, false);
	bts_read_frozen_this_cpu(src, cap->recs, room, &cap->snap);
	cap->snap.reason = reason;
	smp_wmb();	/* the copy before its valid flag */
	WRITE_ONCE(cap->valid, true);
}

/* Hand @cap, CPU @cpu's history, to the owner, on this CPU. */
static void notrace bts_capture_emit_one(unsigned int cpu,
					 const struct bts_capture *cap)
{
	void (*emit)(unsigned int cpu, const struct bts_record *recs,
		     const struct bts_snapshot *snap);

	emit = READ_ONCE(bts_capture_emit);
	if (emit && READ_ONCE(cap->valid))
		emit(cpu, cap->recs, &cap->snap);
}

static struct bts_fault_slot *bts_slot(unsigned int cpu)
{
	return per_cpu_ptr(&bts_faults, cpu);
}

/* bts-series: from others */
/* Does @cpu have a fault of its own, kept or being taken? */
static bool notrace bts_slot_in_use(unsigned int cpu)
{
	int state = atomic_read(&bts_slot(cpu)->state);

	return state == BTS_SLOT_HELD || state == BTS_SLOT_BUSY;
}

/* bts-series: end */
/* bts-series: from kunit */
#ifdef CONFIG_BTS_TRACER_KUNIT_TEST
/*
 * Two points the KUnit suite (trace_bts_kunit.c) stops at, each run once
 * and then cleared: the entry of a fault capture, where the faulting task
 * may still be preemptible (the hook may sleep), and the moment between
 * counting the capture NMIs and sending them. Not in any other build.
 */
void (*bts_kunit_fault_entry)(void);
void (*bts_kunit_before_capture_nmi)(void);

static __always_inline void bts_kunit_point(typeof(bts_kunit_fault_entry) *hook)
{
	typeof(bts_kunit_fault_entry) fn = READ_ONCE(*hook);

	if (fn) {
		WRITE_ONCE(*hook, NULL);
		fn();
	}
}

static __always_inline void bts_kunit_fault_entry_point(void)
{
	bts_kunit_point(&bts_kunit_fault_entry);
}

static __always_inline void bts_kunit_before_nmi_point(void)
{
	bts_kunit_point(&bts_kunit_before_capture_nmi);
}
#else
static __always_inline void bts_kunit_fault_entry_point(void) { }
static __always_inline void bts_kunit_before_nmi_point(void) { }
#endif

/* bts-series: end */
/* bts-series: from others */
static int notrace bts_nmi_handler(unsigned int cmd, struct pt_regs *regs)
{
	int cpu = smp_processor_id();
	unsigned int sent = READ_ONCE(*this_cpu_ptr(&bts_nmi_sent));
	struct bts_capture *ctx = this_cpu_ptr(&bts_contexts);
	struct bts_source *src;

	/* bts-series: from stream */
	/*
	 * This is the NMI's first handler (NMI_FLAG_FIRST): the source stops
	 * here if it must (struct bts_source), before the NMI code formats a
	 * "took too long" message after this handler or another.
	 */
	src = bts_armed_source();
	if (src && src->nmi_enter)
		src->nmi_enter();
	/* bts-series: end */
	/*
	 * The first NMI after a capture NMI was counted for this CPU does
	 * its work: that one, or one of someone else's that came first
	 * (two NMIs latched while one is handled arrive as one, too). The
	 * capture NMI may then come as the next NMI, with nothing left to
	 * count it by: any NMI in the next BTS_NMI_CLAIM_NS is claimed, so
	 * that it is not an unknown NMI (a panic with unknown_nmi_panic).
	 * Claiming another handler's NMI as well costs nothing: every
	 * handler runs for every NMI. The cost is that a truly unknown NMI
	 * in that window after a capture goes unreported.
	 */
	if (this_cpu_read(bts_nmi_seen) == sent)
		return local_clock() < this_cpu_read(bts_nmi_claim_until) ?
		       NMI_HANDLED : NMI_DONE;
	this_cpu_write(bts_nmi_seen, sent);
	this_cpu_write(bts_nmi_claim_until, local_clock() + BTS_NMI_CLAIM_NS);
	/* Not pending any more: it came after the wait; claim it only. */
	if (!cpumask_test_cpu(cpu, &bts_nmi_pending))
		return NMI_HANDLED;
	/* Its own fault is its capture: it emits that itself. */
	if (bts_slot_in_use(cpu)) {
		cpumask_clear_cpu(cpu, &bts_nmi_pending);
		return NMI_HANDLED;
	}
	/*
	 * Frozen until the history is written into this CPU's own ring
	 * buffer too: no NMI of bts writes the ring buffer with the source
	 * recording (in stream mode, thousands of entries recorded in NMI
	 * could reach the next BTS interrupt's threshold).
	 */
	src = bts_armed_source();
	if (src) {
		bts_freeze_this_cpu(src);
		bts_capture_this_cpu(src, ctx, READ_ONCE(bts_kept_reason),
				     bts_capture_capacity);
	}
	cpumask_set_cpu(cpu, &bts_nmi_emitting);
	cpumask_clear_cpu(cpu, &bts_nmi_pending);
	bts_capture_emit_one(cpu, ctx);
	/* Recording again before the capture that waits for it returns. */
	if (src)
		bts_thaw_this_cpu(src);
	cpumask_clear_cpu(cpu, &bts_nmi_emitting);
	return NMI_HANDLED;
}

/* Spin until @mask is empty or about @us microseconds have passed. */
static void notrace bts_wait_mask(const struct cpumask *mask, unsigned int us)
{
	while (!cpumask_empty(mask) && us--)
		udelay(1);
}

/*
 * Freeze, copy and emit every other online CPU through an NMI, bounded
 * waits: all but this one and @skip (whose fault slot holds the kept
 * fault).
 */
static void notrace bts_capture_other_cpus(int skip, bool panic)
{
	int cpu;

	cpumask_copy(&bts_nmi_pending, cpu_online_mask);
	cpumask_clear_cpu(smp_processor_id(), &bts_nmi_pending);
	if (skip >= 0)
		cpumask_clear_cpu(skip, &bts_nmi_pending);
	if (cpumask_empty(&bts_nmi_pending))
		return;
	cpumask_clear(&bts_nmi_emitting);
	for_each_cpu(cpu, &bts_nmi_pending)
		per_cpu(bts_nmi_sent, cpu)++;
	/*
	 * Sent to each CPU counted, even one that an earlier NMI (see
	 * bts_nmi_handler()) already took out of bts_nmi_pending.
	 */
	cpumask_copy(&bts_nmi_targets, &bts_nmi_pending);
	WRITE_ONCE(bts_nmi_sent_any, true);
	/* The counts before the NMIs that read them. */
	smp_wmb();
	/* bts-series: from kunit */
	bts_kunit_before_nmi_point();
	/* bts-series: end */
	__apic_send_IPI_mask(&bts_nmi_targets, NMI_VECTOR);
	bts_wait_mask(&bts_nmi_pending, BTS_NMI_WAIT_US);
	/* Whoever did not answer keeps recording; its context stays invalid. */
	cpumask_clear(&bts_nmi_pending);
	bts_wait_mask(&bts_nmi_emitting,
		      panic ? BTS_PANIC_EMIT_WAIT_US : BTS_EMIT_WAIT_US);
}
/* bts-series: end */

/* The trapping context: the task and whether it was in an IRQ or NMI. */
static unsigned long notrace bts_context(void)
{
	return preempt_count() & (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_MASK);
}

/* Record this task, in this context, as the one whose fault @slot holds. */
static void notrace bts_slot_own(struct bts_fault_slot *slot)
{
	WRITE_ONCE(slot->task, current);
	WRITE_ONCE(slot->start, current->start_time);
	WRITE_ONCE(slot->ctx, bts_context());
}

/* Does @slot hold a fault of this task, in this context? */
static bool notrace bts_slot_is_mine(struct bts_fault_slot *slot)
{
	return READ_ONCE(slot->task) == current &&
	       READ_ONCE(slot->start) == current->start_time &&
	       READ_ONCE(slot->ctx) == bts_context();
}

/* The CPU whose slot holds this context's fault in @state, or -1. */
static int notrace bts_slot_find_mine(int state)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct bts_fault_slot *slot = bts_slot(cpu);

		if (atomic_read(&slot->state) == state &&
		    bts_slot_is_mine(slot))
			return cpu;
	}
	return -1;
}

/* The CPU whose slot holds this context's pending trap, or -1. */
static int notrace bts_pending_mine(void)
{
	return bts_slot_find_mine(BTS_SLOT_PENDING);
}

/* This CPU's panic: its history is CPU @scpu's capture. */
static void notrace bts_panic_is(int scpu)
{
	this_cpu_write(bts_panic_from, scpu);
	WRITE_ONCE(bts_panic_cpu, scpu);
}

/*
 * Take the kept capture (BUSY) for a fault kept with @reason: when there
 * is none, or when it is a WARN and @reason is not (an oops or a panic
 * wins over a WARN). Its reason is checked again once it is taken: a
 * clear and a new capture may have come between.
 */
static bool notrace bts_kept_take(enum bts_reason reason)
{
	if (atomic_cmpxchg(&bts_kept_state, BTS_KEPT_EMPTY,
			   BTS_KEPT_BUSY) == BTS_KEPT_EMPTY)
		return true;
	if (reason == BTS_REASON_WARN ||
	    READ_ONCE(bts_kept_reason) != BTS_REASON_WARN ||
	    atomic_cmpxchg(&bts_kept_state, BTS_KEPT_HELD,
			   BTS_KEPT_BUSY) != BTS_KEPT_HELD)
		return false;
	if (READ_ONCE(bts_kept_reason) == BTS_REASON_WARN)
		return true;
	atomic_set(&bts_kept_state, BTS_KEPT_HELD);
	return false;
}

/*
 * The fault in @cap, CPU @scpu's history (its slot, or the panic
 * buffer), is kept: become the kept capture if there is none yet, and
 * emit. This CPU is frozen once by the caller: with @hold (it oopses or
 * panics) it stays frozen until the capture is cleared, else it is
 * thawed here.
 */
static void notrace bts_fault_publish(struct bts_source *src, int scpu,
				      struct bts_capture *cap,
				      enum bts_reason reason, bool hold,
				      bool panic)
{
	/* bts-series: from others */
	struct bts_capture *ctx = this_cpu_ptr(&bts_contexts);
	int cpu = smp_processor_id();
	/* bts-series: end */
	bool kept = false;

	if (bts_kept_take(reason)) {
		kept = true;
		WRITE_ONCE(bts_kept_cpu, scpu);
		WRITE_ONCE(bts_kept_reason, reason);
		WRITE_ONCE(bts_capturing_cpu, smp_processor_id());
		/* bts-series: from others */
		/* The task moved: this CPU's history is context. */
		if (cpu != scpu && !bts_slot_in_use(cpu))
			bts_capture_this_cpu(src, ctx, reason,
					     bts_capture_capacity);
		bts_capture_other_cpus(scpu, panic);
		/* bts-series: end */
	}
	bts_capture_emit_one(scpu, cap);
	if (kept) {
		/* bts-series: from others */
		if (cpu != scpu && !bts_slot_in_use(cpu))
			bts_capture_emit_one(cpu, ctx);
		/* bts-series: end */
		WRITE_ONCE(bts_capturing_cpu, -1);
		atomic_set(&bts_kept_state, BTS_KEPT_HELD);
	}
	if (hold && !this_cpu_read(bts_capture_held))
		this_cpu_write(bts_capture_held, true);
	else
		bts_thaw_this_cpu(src);
}

/*
 * Slot @scpu (BUSY, its history taken) holds a fault of this task whose
 * outcome is known now: keep it (HELD) and publish it.
 */
static void notrace bts_fault_keep(struct bts_source *src, int scpu,
				   enum bts_reason reason, bool hold,
				   bool panic)
{
	struct bts_fault_slot *slot = bts_slot(scpu);

	slot->cap.snap.reason = reason;
	bts_slot_own(slot);
	WRITE_ONCE(slot->writer, -1);
	atomic_set(&slot->state, BTS_SLOT_HELD);
	if (panic)
		bts_panic_is(scpu);
	bts_fault_publish(src, scpu, &slot->cap, reason, hold, panic);
}

/* Take a PENDING slot over (state BUSY). */
static bool notrace bts_take_pending(int cpu)
{
	struct bts_fault_slot *slot = bts_slot(cpu);

	if (atomic_cmpxchg(&slot->state, BTS_SLOT_PENDING,
			   BTS_SLOT_BUSY) != BTS_SLOT_PENDING)
		return false;
	WRITE_ONCE(slot->writer, smp_processor_id());
	return true;
}

/* Forget slot @cpu, which this CPU owns (BUSY). */
static void notrace bts_slot_drop(int cpu)
{
	struct bts_fault_slot *slot = bts_slot(cpu);

	WRITE_ONCE(slot->cap.valid, false);
	WRITE_ONCE(slot->task, NULL);
	WRITE_ONCE(slot->writer, -1);
	atomic_set(&slot->state, BTS_SLOT_EMPTY);
}

/* bts-series: from capture-trace */
/* The panic buffer, when it holds @cpu's panic; else NULL. */
static struct bts_capture *notrace bts_panic_buf_of(unsigned int cpu)
{
	if (atomic_read_acquire(&bts_panic_buf_state) != BTS_PANIC_BUF_HELD ||
	    READ_ONCE(bts_panic_buf_cpu) != cpu ||
	    !READ_ONCE(bts_panic_buf.valid))
		return NULL;
	return &bts_panic_buf;
}

/* bts-series: end */
/*
 * This context's trap is pending in slot @mine and met another fault of
 * this context: is that fault its outcome? An oops or a panic keeps it
 * (Return: true, nothing more to do); the same context trapping again,
 * not nested in the first trap, drops it.
 */
static bool notrace bts_fault_meets_pending(struct bts_source *src, int mine,
					    enum bts_reason reason,
					    struct pt_regs *regs)
{
	if (reason == BTS_REASON_PANIC || reason == BTS_REASON_OOPS) {
		if (!bts_take_pending(mine))
			return false;
		bts_freeze_this_cpu(src);
		bts_fault_keep(src, mine, bts_slot(mine)->cap.snap.reason,
			       true, reason == BTS_REASON_PANIC);
		return true;
	}
	if (regs && regs->sp >= READ_ONCE(bts_slot(mine)->sp) &&
	    bts_take_pending(mine)) {
		atomic64_inc(&bts_dropped_faults);
		bts_slot_drop(mine);
	}
	return false;
}

/*
 * An oops meets this CPU's slot in state @old: take it over (BUSY) if it
 * holds a kept WARN or another context's pending trap (see the comment
 * above enum bts_slot_state). The reason of a kept fault is read once
 * the slot is taken, when it cannot change: a slot that turns out to hold
 * an oops is given back.
 */
static bool notrace bts_slot_yields(struct bts_fault_slot *slot, int old)
{
	if ((old != BTS_SLOT_HELD && old != BTS_SLOT_PENDING) ||
	    atomic_cmpxchg(&slot->state, old, BTS_SLOT_BUSY) != old)
		return false;
	if (old == BTS_SLOT_HELD &&
	    READ_ONCE(slot->cap.snap.reason) != BTS_REASON_WARN) {
		atomic_set(&slot->state, BTS_SLOT_HELD);
		return false;
	}
	WRITE_ONCE(slot->task, NULL);
	WRITE_ONCE(slot->writer, smp_processor_id());
	return true;
}

/*
 * This CPU's slot is not free for @reason. Return: true when the slot is
 * bts-series: until panic-buf
 * now this CPU's (BUSY), to be taken; else the fault is counted.
 * bts-series: end
 * bts-series: from panic-buf
 * now this CPU's (BUSY), to be taken; else the fault is counted, and a
 * panic is left to bts_panic_buffer().
 * bts-series: end
 */
static bool notrace bts_slot_taken(struct bts_fault_slot *slot, int old,
				   enum bts_reason reason, bool early)
{
	int cpu = smp_processor_id();

	/*
	 * A fault in the kept capture's emit on this CPU: that capture
	 * cannot complete; keep what it has, so that it can be read and
	 * cleared.
	 */
	if (!early && READ_ONCE(bts_capturing_cpu) == cpu) {
		WRITE_ONCE(bts_capturing_cpu, -1);
		atomic_set(&bts_kept_state, BTS_KEPT_HELD);
	}
	/*
	 * An oops or panic that interrupted this CPU's own capture,
	 * resolution or clear of this slot, which never resumes (see the
	 * comment above enum bts_slot_state): take it over.
	 */
	if (!early && old == BTS_SLOT_BUSY && READ_ONCE(slot->writer) == cpu)
		return true;
	if (reason == BTS_REASON_OOPS && bts_slot_yields(slot, old))
		return true;
	/* bts-series: until panic-buf */
	/* A trap is counted once its outcome is known. */
	if (!early)
	/* bts-series: end */
	/* bts-series: from panic-buf */
	/* A trap is counted once its outcome is known; a panic never. */
	if (!early && reason != BTS_REASON_PANIC)
	/* bts-series: end */
		atomic64_inc(&bts_lost_faults);
	return false;
}

/*
 * A kept fault that is a panic's history: one its task kept in this
 * context (not a WARN: the task went on after it), on any CPU, led here
 * (panic_on_oops, or an oops in an interrupt); else the fault this CPU
 * is held frozen for (it has recorded nothing since: its history now is
 * that fault's, whoever panics on it). Return: true when found. The slot
 * is taken over (BUSY) while it is named, so that a clear of an offline
 * CPU's slot does not drop it under the panic.
 */
static bool notrace bts_panic_meets_held(int cpu)
{
	int scpu = bts_slot_find_mine(BTS_SLOT_HELD);
	struct bts_fault_slot *slot;

	if (scpu < 0 ||
	    READ_ONCE(bts_slot(scpu)->cap.snap.reason) == BTS_REASON_WARN)
		scpu = -1;
	if (scpu < 0 && this_cpu_read(bts_capture_held))
		scpu = cpu;
	if (scpu < 0)
		return false;
	slot = bts_slot(scpu);
	if (atomic_cmpxchg(&slot->state, BTS_SLOT_HELD,
			   BTS_SLOT_BUSY) != BTS_SLOT_HELD)
		return false;
	bts_panic_is(scpu);
	atomic_set(&slot->state, BTS_SLOT_HELD);
	return true;
}

/* bts-series: from panic-buf */
/*
 * A panic whose CPU's slot is not free for it (another task's fault or
 * pending trap, another CPU resolving a trap in it): its own history
 * goes into the panic buffer. One panic only; a
 * second (panic() lets one CPU through, but bts sees it first) is
 * counted.
 */
static void notrace bts_panic_buffer(struct bts_source *src,
				     struct pt_regs *regs)
{
	struct bts_capture *cap = &bts_panic_buf;
	int cpu = smp_processor_id();

	if (atomic_cmpxchg(&bts_panic_buf_state, BTS_PANIC_BUF_EMPTY,
			   BTS_PANIC_BUF_BUSY) != BTS_PANIC_BUF_EMPTY) {
		atomic64_inc(&bts_lost_faults);
		return;
	}
	bts_freeze_this_cpu(src);
	bts_capture_this_cpu(src, cap, BTS_REASON_PANIC,
			     bts_capture_capacity - 1);
	/* bts-series: from fault-mark */
	if (cap->valid)
		bts_mark_fault(cap, BTS_REASON_PANIC, regs);
	/* bts-series: end */
	WRITE_ONCE(bts_panic_buf_cpu, cpu);
	/* The copy and its CPU before HELD, for readers on other CPUs. */
	atomic_set_release(&bts_panic_buf_state, BTS_PANIC_BUF_HELD);
	bts_panic_is(cpu);
	bts_fault_publish(src, cpu, cap, BTS_REASON_PANIC, true, true);
}

/* bts-series: end */
/*
 * The armed source, if capture is still enabled; IRQs off. The caller's
 * static branch was tested while the task could still be preempted, and
 * capture may have been disabled since: bts_capture_disable() waits
 * (synchronize_rcu()) for the sections with IRQs off that saw it
 * enabled, not for a task preempted before one, and its NMI handler may
 * be gone by now.
 */
static struct bts_source *notrace bts_capturing_source(void)
{
	if (!static_key_enabled(&bts_fault_key))
		return NULL;
	return bts_armed_source();
}

/**
 * __bts_fault_freeze - freeze and capture this CPU's history at a fault
 * @reason:	BTS_REASON_OOPS, _BUG, _PANIC or _GPF
 * @regs:	the faulting context, or NULL
 *
 * See the comment above enum bts_slot_state. Called through
 * bts_fault_freeze() only while capture is enabled, with IRQs on or off
 * and preemption on or off: nothing here uses the CPU number before IRQs
 * are off.
 */
void notrace __bts_fault_freeze(enum bts_reason reason, struct pt_regs *regs)
{
	bool early = reason == BTS_REASON_BUG || reason == BTS_REASON_GPF;
	struct bts_fault_slot *slot;
	struct bts_source *src;
	unsigned long flags;
	int old, cpu, mine;

	/* bts-series: from kunit */
	bts_kunit_fault_entry_point();
	/* bts-series: end */
	if (reason >= BTS_REASON_MAX)
		return;
	/* A #GP the exception table fixes up (rdmsr_safe() and the like). */
	if (reason == BTS_REASON_GPF && regs &&
	    search_exception_tables(instruction_pointer(regs)))
		return;

	local_irq_save(flags);
	src = bts_capturing_source();
	if (!src)
		goto out;
	cpu = smp_processor_id();
	mine = bts_pending_mine();
	if (mine >= 0 && bts_fault_meets_pending(src, mine, reason, regs))
		goto out;
	if (!(READ_ONCE(bts_capture_reasons) & BIT(reason)))
		goto out;
	if (reason == BTS_REASON_PANIC && bts_panic_meets_held(cpu))
		goto out;
	slot = bts_slot(cpu);
	old = atomic_cmpxchg(&slot->state, BTS_SLOT_EMPTY, BTS_SLOT_BUSY);
	/* bts-series: until panic-buf */
	if (old == BTS_SLOT_EMPTY)
		WRITE_ONCE(slot->writer, cpu);
	else if (!bts_slot_taken(slot, old, reason, early))
		goto out;
	/* bts-series: end */
	/* bts-series: from panic-buf */
	if (old == BTS_SLOT_EMPTY) {
		WRITE_ONCE(slot->writer, cpu);
	} else if (!bts_slot_taken(slot, old, reason, early)) {
		if (reason == BTS_REASON_PANIC)
			bts_panic_buffer(src, regs);
		goto out;
	}
	/* bts-series: end */

	bts_freeze_this_cpu(src);
	/* One slot stays free for bts_mark_fault(). */
	bts_capture_this_cpu(src, &slot->cap, reason,
			     bts_capture_capacity - 1);
	/* bts-series: from fault-mark */
	if (slot->cap.valid)
		bts_mark_fault(&slot->cap, reason, regs);
	/* bts-series: end */

	if (early) {
		/* Not held: the trap may be a WARN, the task may move. */
		bts_thaw_this_cpu(src);
		bts_slot_own(slot);
		WRITE_ONCE(slot->sp, regs ? regs->sp : 0);
		WRITE_ONCE(slot->writer, -1);
		atomic_set(&slot->state, BTS_SLOT_PENDING);
	} else {
		bts_fault_keep(src, cpu, reason, true,
			       reason == BTS_REASON_PANIC);
	}
out:
	local_irq_restore(flags);
}

/**
 * __bts_fault_warn_done - the BUG trap this task took was a WARN
 *
 * With capture on WARN the pending trap is kept, relabelled and
 * emitted; otherwise it is dropped. A WARN that was not captured because
 * its CPU had kept a fault counts as lost only with capture on WARN. Any
 * CPU: the task may have moved since the trap.
 */
void notrace __bts_fault_warn_done(void)
{
	bool warns = READ_ONCE(bts_capture_reasons) & BIT(BTS_REASON_WARN);
	struct bts_source *src;
	unsigned long flags;
	int mine;

	local_irq_save(flags);
	src = bts_capturing_source();
	if (!src)
		goto out;
	mine = bts_pending_mine();
	if (mine >= 0 && bts_take_pending(mine)) {
		if (warns) {
			bts_freeze_this_cpu(src);
			bts_fault_keep(src, mine, BTS_REASON_WARN, false, false);
		} else {
			bts_slot_drop(mine);
		}
	} else if (warns) {
		atomic64_inc(&bts_lost_faults);
	}
out:
	local_irq_restore(flags);
}

static void bts_capture_free(struct bts_capture *cap)
{
	kvfree(cap->recs);
	cap->recs = NULL;
	cap->valid = false;
}

/**
 * bts_capture_enable - capture branch history at faults
 * @reasons:	BIT(BTS_REASON_*) of the faults to capture
 * @emit:	called with a CPU's history when it is taken, on the CPU
 *		that is to write it: each CPU that answered the capture NMI
 *		for its own context (in NMI), a faulting CPU for its own
 *		fault (and for the trapping CPU's, if the task moved); IRQs
 *		off, NMI-safe rules apply
 *
 * bts-series: until others
 * bts-series: until panic-buf
 * Allocates a buffer of the armed source's capacity per possible CPU,
 * its fault slot (bounded: 64 KiB per CPU for 2730 records). Process
 * context, with a source armed.
 * bts-series: end
 * bts-series: from panic-buf
 * Allocates a buffer of the armed source's capacity per possible CPU,
 * its fault slot, and one panic buffer (bounded: 64 KiB each for 2730
 * records). Process context, with a source armed.
 * bts-series: end
 * bts-series: end
 * bts-series: from others
 * Allocates two buffers of the armed source's capacity per possible CPU,
 * its fault slot and its context, and one panic buffer (bounded: 2 x 64
 * KiB per CPU and 64 KiB for 2730 records). Process context, with a
 * source armed.
 * bts-series: end
 *
 * Return: 0, -ENODEV when nothing is armed, -ENOMEM.
 */
int bts_capture_enable(unsigned int reasons,
		       void (*emit)(unsigned int cpu,
				    const struct bts_record *recs,
				    const struct bts_snapshot *snap))
{
	struct bts_source *src = bts_armed_source();
	unsigned int capacity;
	/* bts-series: until others */
	int cpu;
	/* bts-series: end */
	/* bts-series: from others */
	int cpu, ret;
	/* bts-series: end */

	if (!src)
		return -ENODEV;
	capacity = src->capacity();
	bts_capture_disable();
	if (capacity != bts_capture_capacity) {
		bts_capture_clear();
		for_each_possible_cpu(cpu) {
			bts_capture_free(&bts_slot(cpu)->cap);
			/* bts-series: from others */
			bts_capture_free(per_cpu_ptr(&bts_contexts, cpu));
			/* bts-series: end */
		}
		/* bts-series: from panic-buf */
		bts_capture_free(&bts_panic_buf);
		/* bts-series: end */
		bts_capture_capacity = 0;
		for_each_possible_cpu(cpu) {
			struct bts_capture *cap = &bts_slot(cpu)->cap;
			/* bts-series: from others */
			struct bts_capture *ctx = per_cpu_ptr(&bts_contexts, cpu);
			/* bts-series: end */

			cap->recs = kvcalloc(capacity, sizeof(*cap->recs),
					     GFP_KERNEL);
			if (!cap->recs)
				return -ENOMEM;
			/* bts-series: from others */
			ctx->recs = kvcalloc(capacity, sizeof(*ctx->recs),
					     GFP_KERNEL);
			if (!ctx->recs)
				return -ENOMEM;
			/* bts-series: end */
		}
		/* bts-series: from panic-buf */
		bts_panic_buf.recs = kvcalloc(capacity,
					      sizeof(*bts_panic_buf.recs),
					      GFP_KERNEL);
		if (!bts_panic_buf.recs)
			return -ENOMEM;
		/* bts-series: end */
		bts_capture_capacity = capacity;
	}
	WRITE_ONCE(bts_capture_reasons, reasons);
	WRITE_ONCE(bts_capture_emit, emit);
	/* bts-series: from others */
	ret = register_nmi_handler(NMI_LOCAL, bts_nmi_handler, NMI_FLAG_FIRST,
				   "bts");
	if (ret)
		return ret;
	/* bts-series: end */
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

/* bts-series: from others */
/*
 * Wait, sleeping, for every capture NMI sent to be taken (a CPU with
 * NMIs blocked takes it late: bounded, BTS_NMI_TAKEN_WAIT_MS), then for
 * the window in which the handler claims any NMI to close.
 */
#define BTS_NMI_TAKEN_WAIT_MS	2000

static void bts_nmi_wait_taken(void)
{
	unsigned long end = jiffies + msecs_to_jiffies(BTS_NMI_TAKEN_WAIT_MS);
	int cpu;

	if (!READ_ONCE(bts_nmi_sent_any))
		return;
	WRITE_ONCE(bts_nmi_sent_any, false);
	for_each_online_cpu(cpu)
		while (READ_ONCE(per_cpu(bts_nmi_seen, cpu)) !=
		       READ_ONCE(per_cpu(bts_nmi_sent, cpu)) &&
		       time_before(jiffies, end))
			usleep_range(USEC_PER_MSEC, 2 * USEC_PER_MSEC);
	usleep_range(BTS_NMI_CLAIM_NS / NSEC_PER_USEC,
		     2 * BTS_NMI_CLAIM_NS / NSEC_PER_USEC);
}

/* bts-series: end */
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
	/* bts-series: from others */
	/*
	 * A capture that saw capture enabled runs with IRQs off (or in NMI)
	 * to its end, and may send capture NMIs: wait for those sections,
	 * then for their NMIs to be taken, before the handler that claims
	 * them goes. (With jump labels, the text patching above already
	 * waits for an IPI on every CPU, which such a CPU takes after; this
	 * does not depend on it.)
	 */
	synchronize_rcu();
	bts_nmi_wait_taken();
	unregister_nmi_handler(NMI_LOCAL, "bts");
	/* bts-series: end */
	WRITE_ONCE(bts_capture_emit, NULL);
	synchronize_rcu();
}

/* bts-series: from capture-trace */
/**
 * bts_capture_get - one CPU's captured history
 * @cpu:	a possible CPU
 * @recs:	set to its records (valid until bts_capture_clear())
 * @snap:	filled in
 *
 * Its panic when it panicked and its history is in the panic buffer, else
 * its own fault when it has kept one, else its history at the kept
 * capture's fault. Any context, the panic path included: no lock.
 *
 * Return: true when the CPU has a capture.
 */
bool notrace bts_capture_get(unsigned int cpu, const struct bts_record **recs,
			     struct bts_snapshot *snap)
{
	struct bts_fault_slot *slot = bts_slot(cpu);
	struct bts_capture *cap = bts_panic_buf_of(cpu);

	if (cap)
		goto found;
	cap = &slot->cap;
	if (atomic_read(&slot->state) != BTS_SLOT_HELD ||
	    !READ_ONCE(cap->valid)) {
		/* bts-series: until others */
		return false;
		/* bts-series: end */
		/* bts-series: from others */
		cap = per_cpu_ptr(&bts_contexts, cpu);
		if (atomic_read(&bts_kept_state) == BTS_KEPT_EMPTY ||
		    !READ_ONCE(cap->valid))
			return false;
		/* bts-series: end */
	}
found:
	smp_rmb();	/* the valid flag before the copy */
	*recs = cap->recs;
	*snap = cap->snap;
	return true;
}

/**
 * bts_capture_fault - a CPU's own fault
 * @cpu:	a possible CPU
 * @reason:	set to its reason
 *
 * Return: BTS_FAULT_KEPT when @cpu keeps a fault of its own,
 * BTS_FAULT_PENDING when a trap on it waits for its outcome (a BUG or #GP
 * whose oops or WARN has not come yet), else BTS_FAULT_NONE.
 */
enum bts_fault_state bts_capture_fault(unsigned int cpu,
				       enum bts_reason *reason)
{
	struct bts_fault_slot *slot = bts_slot(cpu);

	if (bts_panic_buf_of(cpu)) {
		*reason = BTS_REASON_PANIC;
		return BTS_FAULT_KEPT;
	}
	switch (atomic_read(&slot->state)) {
	case BTS_SLOT_HELD:
		if (!READ_ONCE(slot->cap.valid))
			return BTS_FAULT_NONE;
		*reason = slot->cap.snap.reason;
		return BTS_FAULT_KEPT;
	case BTS_SLOT_PENDING:
		*reason = slot->cap.snap.reason;
		return BTS_FAULT_PENDING;
	default:
		return BTS_FAULT_NONE;
	}
}

/**
 * bts_capture_lost - faults seen but not kept (their CPU had kept one)
 *
 * Return: how many since boot or the last clear of the captures.
 */
u64 bts_capture_lost(void)
{
	return atomic64_read(&bts_lost_faults);
}

/**
 * bts_capture_dropped - pending captures whose trap never completed
 *
 * A BUG or #GP trap captured early whose oops never came (a debugger
 * took the trap and returned): dropped when the same context trapped
 * again, or when a panic on its CPU needed the slot.
 *
 * Return: how many since boot or the last clear of the captures.
 */
u64 bts_capture_dropped(void)
{
	return atomic64_read(&bts_dropped_faults);
}

/**
 * bts_capture_status - the kept capture: the first fault
 * @cpu:	set to the CPU whose fault it is, or -1
 * @reason:	set to its reason
 * @pending:	set to true when there is none yet but a trap was captured
 *		and waits for its outcome (then @cpu and @reason are that
 *		trap's)
 *
 * Return: true when a capture is kept, or a trap is pending.
 */
bool notrace bts_capture_status(int *cpu, enum bts_reason *reason,
				bool *pending)
{
	int c;

	*pending = false;
	*cpu = READ_ONCE(bts_kept_cpu);
	if (atomic_read(&bts_kept_state) != BTS_KEPT_EMPTY && *cpu >= 0) {
		*reason = READ_ONCE(bts_kept_reason);
		return true;
	}
	for_each_possible_cpu(c)
		if (bts_capture_fault(c, reason) == BTS_FAULT_PENDING) {
			*cpu = c;
			*pending = true;
			return true;
		}
	*cpu = -1;
	return false;
}

/* bts-series: end */
/* bts-series: from persist */
/**
 * bts_capture_first - whose capture a panic writes first
 * @reason:	set to its reason
 *
 * For the persistent region and the kdump table: the panic's history
 * when a panic was captured (see the comment above enum bts_slot_state):
 * this CPU's, when it panicked (it is the one that writes them), else
 * the last one's; else the kept capture's fault. Any context: no lock.
 *
 * Return: that CPU, or -1 when there is none.
 */
int notrace bts_capture_first(enum bts_reason *reason)
{
	int cpu = READ_ONCE(*raw_cpu_ptr(&bts_panic_from));
	bool pending;

	if (cpu < 0)
		cpu = READ_ONCE(bts_panic_cpu);

	if (cpu >= 0 && bts_capture_fault(cpu, reason) == BTS_FAULT_KEPT)
		return cpu;
	if (bts_capture_status(&cpu, reason, &pending) && !pending)
		return cpu;
	return -1;
}

/* bts-series: end */
/*
 * Drop slot @cpu if it holds a fault or a pending trap: a clear, by
 * @writer (this CPU in the IPI, where an oops or panic in NMI takes the
 * slot over: see bts_slot_taken(); -1 for an offline CPU's slot).
 */
static void notrace bts_clear_slot(unsigned int cpu, int writer)
{
	atomic_t *state = &bts_slot(cpu)->state;
	int old = atomic_read(state);

	if ((old != BTS_SLOT_HELD && old != BTS_SLOT_PENDING) ||
	    atomic_cmpxchg(state, old, BTS_SLOT_BUSY) != old)
		return;
	WRITE_ONCE(bts_slot(cpu)->writer, writer);
	bts_slot_drop(cpu);
}

/* A clear, on each online CPU with IRQs off: its slot, then its hold. */
static void bts_clear_ipi(void *info)
{
	struct bts_source *src = bts_armed_source();
	int cpu = smp_processor_id();

	bts_clear_slot(cpu, cpu);
	/* Held for a fault that came after its slot was dropped: keep it. */
	if (this_cpu_read(bts_capture_held) &&
	    atomic_read(&bts_slot(cpu)->state) != BTS_SLOT_HELD) {
		this_cpu_write(bts_capture_held, false);
		if (src)
			bts_thaw_this_cpu(src);
	}
}

/* Forget the panics captured before a clear (KUnit's: see bts_panic_cpu). */
static void bts_clear_panics(void)
{
	int cpu;

	/* bts-series: until panic-buf */
	if (READ_ONCE(bts_panic_cpu) < 0)
		return;
	/* bts-series: end */
	/* bts-series: from panic-buf */
	if (READ_ONCE(bts_panic_cpu) < 0 &&
	    atomic_read(&bts_panic_buf_state) == BTS_PANIC_BUF_EMPTY)
		return;
	/* bts-series: end */
	for_each_possible_cpu(cpu)
		per_cpu(bts_panic_from, cpu) = -1;
	WRITE_ONCE(bts_panic_cpu, -1);
	/* bts-series: from panic-buf */
	WRITE_ONCE(bts_panic_buf.valid, false);
	WRITE_ONCE(bts_panic_buf_cpu, -1);
	atomic_set(&bts_panic_buf_state, BTS_PANIC_BUF_EMPTY);
	/* bts-series: end */
}

/**
 * bts_capture_clear - forget the captures; the next faults are taken
 *
 * Takes the kept capture over first (as a faulting CPU would), then
 * drops each CPU's fault on that CPU, IRQs off, and lets it record again
 * if it was held: a fault on a CPU meanwhile is kept, before its slot is
 * dropped (and cleared with it, as a fault before the clear) or after
 * (kept after the clear; it does not become the kept capture, which the
 * clear holds). None is refused or counted because of the clear.
 * Process context.
 *
 * Return: 0, or -EBUSY while a capture is being taken (nothing changed).
 */
int bts_capture_clear(void)
{
	int cpu, state = atomic_read(&bts_kept_state);

	if (state == BTS_KEPT_BUSY ||
	    atomic_cmpxchg(&bts_kept_state, state, BTS_KEPT_BUSY) != state)
		return -EBUSY;
	/*
	 * The counts end with the captures they were counted against: a
	 * fault from here on is kept, or counted for after the clear.
	 */
	atomic64_set(&bts_lost_faults, 0);
	atomic64_set(&bts_dropped_faults, 0);
	bts_clear_panics();
	cpus_read_lock();
	/* Also waits for any CPU still emitting with IRQs off. */
	on_each_cpu(bts_clear_ipi, NULL, 1);
	/* A migrated task's trap pending in an offline CPU's slot. */
	for_each_possible_cpu(cpu)
		if (!cpu_online(cpu))
			bts_clear_slot(cpu, -1);
	cpus_read_unlock();
	/* bts-series: from others */
	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu(bts_contexts, cpu).valid, false);
	/* bts-series: end */
	WRITE_ONCE(bts_kept_cpu, -1);
	atomic_set(&bts_kept_state, BTS_KEPT_EMPTY);
	return 0;
}
