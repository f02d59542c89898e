// SPDX-License-Identifier: GPL-2.0
/*
 * bts software source: kernel call edges recorded by an ftrace_ops hook.
 *
 * Layer: branch source, for CPUs without Branch Trace Store (virtual
 * machines, other vendors). Every traced kernel function entry adds one
 * record {from = the call instruction in the caller, to = the callee's
 * ftrace location, flags = BTS_FLAG_SW} to a per-CPU circular buffer with the
 * same capacity semantics as the hardware source.
 * bts-series: from stream
 * In stream mode it also hands each record to bts_stream_emit() as it is
 * taken.
 * bts-series: end
 * It sees calls only (no jumps, returns or user branches) and only of
 * functions ftrace can trace, and it is never presented as BTS: every
 * record carries BTS_FLAG_SW and the source is named "sw" everywhere.
 *
 * The hook runs in any context, NMI included, and must never sleep,
 * allocate, take locks or call anything traceable; this file is built
 * without -pg (kernel/trace) and uses only inline per-CPU operations.
 */
#define pr_fmt(fmt) "bts: " fmt

#include <linux/bts.h>
#include <linux/ftrace.h>
#include <linux/init.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/trace_recursion.h>
#include <linux/uaccess.h>
#include <asm/ibt.h>
/* bts-series: from live */
#include <uapi/linux/bts.h>
/* bts-series: end */

#include "bts_sw.h"

/* Records per CPU: as many as the hardware buffer under KPTI holds. */
#define BTS_SW_CAPACITY		2730

static DEFINE_PER_CPU(struct bts_sw_ring, bts_sw_rings);

/* bts-series: from stream */
/* Stream mode (BTS_ARM_STREAM): each record also goes to the stream. */
static bool bts_sw_streaming;

/* bts-series: end */
/**
 * bts_sw_ring_add - append one record to a ring (NMI safe)
 * @ring: this CPU's ring
 * @from: branch source
 * @to:   branch target
 *
 * A nested writer (an NMI during a write) takes the next slot: the slot
 * is claimed with one interrupt-atomic increment before it is written.
 */
void notrace bts_sw_ring_add(struct bts_sw_ring *ring, u64 from, u64 to)
{
	/* Once: bts_sw_disarm() unpublishes the buffer before freeing it. */
	struct bts_record *buf = READ_ONCE(ring->buf);
	struct bts_record *rec;
	u64 seq;

	if (READ_ONCE(ring->frozen) || !buf)
		return;
	seq = local64_inc_return(&ring->total) - 1;
	rec = &buf[seq % ring->capacity];
	rec->from = from;
	rec->to = to;
	rec->flags = BTS_FLAG_SW;
}

unsigned int notrace bts_sw_ring_read(struct bts_sw_ring *ring,
				      struct bts_record *buf, unsigned int n,
				      enum bts_window *window)
{
	u64 total = local64_read(&ring->total);
	u64 avail = min_t(u64, total, ring->capacity);
	u64 first, i;

	*window = !total ? BTS_WINDOW_EMPTY :
		  total > ring->capacity ? BTS_WINDOW_WRAPPED :
					   BTS_WINDOW_PARTIAL;
	if (!ring->buf)
		return 0;
	n = min_t(u64, n, avail);
	first = total - n;
	for (i = 0; i < n; i++)
		buf[i] = ring->buf[(first + i) % ring->capacity];
	return n;
}

/**
 * bts_sw_call_site - the call instruction that returns to @ret
 * @ret: a return address (ftrace's parent_ip)
 * @ip:  the callee's ftrace location
 *
 * A direct call (e8 rel32) to @ip is 5 bytes before @ret. Anything else
 * (an indirect call) gets @ret - 1, an address inside the call: like %pB
 * in stack traces, it names the caller even when the call is the last
 * instruction of a noreturn path.
 *
 * @ret is not trusted: the five bytes before it are read with
 * __get_kernel_nofault() (one load each, with an exception table entry,
 * nothing traceable), because they may lie on a page that is not mapped
 * (the start of a module's or a trampoline's text after a guard page, a
 * return address that is not one). Only the kernel's text mapping and
 * the module area above it hold call instructions; anything below gets
 * @ret - 1 unread. Any context, NMI included.
 *
 * Return: the call instruction's address, or @ret - 1.
 */
unsigned long notrace bts_sw_call_site(unsigned long ret, unsigned long ip)
{
	unsigned long at = ret - 5, target;
	s32 rel;
	u8 op;

	if (at < __START_KERNEL_map || at > ret)
		return ret - 1;
	__get_kernel_nofault(&op, (const u8 *)at, u8, unread);
	if (op != 0xe8)
		return ret - 1;
	__get_kernel_nofault(&rel, (const s32 *)(at + 1), s32, unread);
	target = ret + rel;
	/* with IBT the ftrace location follows the endbr64 */
	if (target == ip || target + ENDBR_INSN_SIZE == ip)
		return at;
unread:
	return ret - 1;
}

static void notrace bts_sw_hook(unsigned long ip, unsigned long parent_ip,
				struct ftrace_ops *op,
				struct ftrace_regs *fregs)
{
	struct bts_sw_ring *ring;
	struct bts_record rec;
	int bit;

	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0)
		return;
	/* The trylock disabled preemption: this CPU's ring is ours. */
	ring = this_cpu_ptr(&bts_sw_rings);
	rec.from = bts_sw_call_site(parent_ip, ip);
	rec.to = ip;
	rec.flags = BTS_FLAG_SW;
	bts_sw_ring_add(ring, rec.from, rec.to);
	/* bts-series: from stream */
	/*
	 * One edge at a time, as it happens: nothing waits in a batch for
	 * a flush. A frozen CPU (a capture) streams nothing either.
	 */
	if (READ_ONCE(bts_sw_streaming) && !READ_ONCE(ring->frozen))
		bts_stream_emit(&rec, 1, 0, false);
	/* bts-series: end */
	ftrace_test_recursion_unlock(bit);
}

static struct ftrace_ops bts_sw_ops = {
	.func	= bts_sw_hook,
	/* all functions, whatever set_ftrace_pid and set_ftrace_filter say */
};

static const char *bts_sw_unavailable(int *err)
{
	return NULL;
}

static unsigned int bts_sw_capacity(void)
{
	return BTS_SW_CAPACITY;
}

/* The rings' buffers while bts_sw_disarm() waits to free them. */
static DEFINE_PER_CPU(struct bts_record *, bts_sw_retired);

/*
 * Unpublish every ring's buffer and free it. @wait: hooks may still run
 * (see bts_sw_disarm()); wait until none can hold a buffer first.
 */
static void bts_sw_free(bool wait)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct bts_sw_ring *ring = per_cpu_ptr(&bts_sw_rings, cpu);

		/* bts-series: from live */
		bts_live_publish(cpu, NULL);
		/* bts-series: end */
		per_cpu(bts_sw_retired, cpu) = ring->buf;
		WRITE_ONCE(ring->buf, NULL);
	}
	if (wait)
		synchronize_rcu_tasks_rude();
	for_each_possible_cpu(cpu) {
		kvfree(per_cpu(bts_sw_retired, cpu));
		per_cpu(bts_sw_retired, cpu) = NULL;
	}
}

/* bts-series: from live */
/**
 * bts_sw_ring_live - where a debugger finds a ring's records
 * @ring:	an armed ring
 * @slot:	filled in (struct bts_live_slot, include/uapi/linux/bts.h)
 *
 * Its documented reading (BTS_LIVE_COUNT) is bts_sw_ring_read()'s; the
 * KUnit suite checks that they agree.
 */
void bts_sw_ring_live(const struct bts_sw_ring *ring,
		      struct bts_live_slot *slot)
{
	BUILD_BUG_ON(sizeof(ring->total) != sizeof(u64));
	memset(slot, 0, sizeof(*slot));
	slot->source = BTS_SOURCE_SW;
	slot->kind = BTS_LIVE_COUNT;
	slot->nr = ring->capacity;
	slot->recs = (unsigned long)ring->buf;
	slot->head = (unsigned long)&ring->total;
}

static void bts_sw_live_publish(unsigned int cpu)
{
	struct bts_live_slot slot;

	bts_sw_ring_live(per_cpu_ptr(&bts_sw_rings, cpu), &slot);
	bts_live_publish(cpu, &slot);
}

/* bts-series: end */
static int bts_sw_arm(unsigned int arm_flags)
{
	int cpu, ret;

	/*
	 * One bounded buffer per possible CPU, so that CPUs coming online
	 * later record without a hotplug callback.
	 */
	for_each_possible_cpu(cpu) {
		struct bts_sw_ring *ring = per_cpu_ptr(&bts_sw_rings, cpu);

		ring->capacity = BTS_SW_CAPACITY;
		local64_set(&ring->total, 0);
		/* bts-series: until pid */
		WRITE_ONCE(ring->frozen, false);
		/* bts-series: end */
		/* bts-series: from pid */
		/* a task filter: frozen until the core thaws it (bts.h) */
		WRITE_ONCE(ring->frozen, !!(arm_flags & BTS_ARM_FILTER));
		/* bts-series: end */
		ring->buf = kvcalloc(BTS_SW_CAPACITY, sizeof(*ring->buf),
				     GFP_KERNEL);
		if (!ring->buf) {
			bts_sw_free(false);
			return -ENOMEM;
		}
	}
	/* bts-series: from stream */
	WRITE_ONCE(bts_sw_streaming, !!(arm_flags & BTS_ARM_STREAM));
	/* bts-series: end */
	/* bts-series: from live */
	for_each_possible_cpu(cpu)
		bts_sw_live_publish(cpu);
	/* bts-series: end */
	ret = register_ftrace_function(&bts_sw_ops);
	if (ret)
		bts_sw_free(true);
	return ret;
}

/*
 * unregister_ftrace_function() does not wait for hooks still running on
 * other CPUs: ftrace synchronizes only for dynamically allocated ops, and
 * these are static. So the buffers are unpublished first (a hook reads
 * its ring's buffer once, with preemption off, and skips a NULL one),
 * then every CPU is made to schedule (synchronize_rcu_tasks_rude(), as
 * ftrace does for its dynamic ops: a hook can run where RCU is not
 * watching), and only then freed. A task preempted in the trampoline
 * before the hook disabled preemption finds the buffer NULL.
 */
static void bts_sw_disarm(void)
{
	unregister_ftrace_function(&bts_sw_ops);
	bts_sw_free(true);
	/* bts-series: from stream */
	WRITE_ONCE(bts_sw_streaming, false);
	/* bts-series: end */
}

static void notrace bts_sw_freeze_this_cpu(void)
{
	WRITE_ONCE(this_cpu_ptr(&bts_sw_rings)->frozen, true);
	barrier();
}

static void notrace bts_sw_thaw_this_cpu(void)
{
	barrier();
	WRITE_ONCE(this_cpu_ptr(&bts_sw_rings)->frozen, false);
}

static unsigned int notrace bts_sw_read_this_cpu(struct bts_record *buf,
						 unsigned int n,
						 enum bts_window *window)
{
	return bts_sw_ring_read(this_cpu_ptr(&bts_sw_rings), buf, n, window);
}

static struct bts_source bts_sw_source = {
	.name			= "sw",
	.id			= BTS_SOURCE_SW,
	.unavailable		= bts_sw_unavailable,
	.capacity		= bts_sw_capacity,
	.arm			= bts_sw_arm,
	.disarm			= bts_sw_disarm,
	.freeze_this_cpu	= bts_sw_freeze_this_cpu,
	.thaw_this_cpu		= bts_sw_thaw_this_cpu,
	.read_this_cpu		= bts_sw_read_this_cpu,
};

static int __init bts_sw_init(void)
{
	return bts_register_source(&bts_sw_source);
}
core_initcall(bts_sw_init);
