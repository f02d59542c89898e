// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the bts core, the software source and the tracer's
 * helpers. #included at the end of trace_bts.c (CONFIG_BTS_TRACER_KUNIT_TEST)
 * so the tests see its static functions. The sources under test are a
 * fake source defined here and the software ring, driven directly; no
 * test arms a real source. Each case reads as one sentence of the spec.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/execmem.h>
#include <linux/irq_work.h>
#include <linux/kthread.h>
#include <asm/apic.h>
#include <asm/ibt.h>
#include <asm/irq_vectors.h>
#include <asm/nmi.h>
#include <asm/trapnr.h>

#include "bts_sw.h"

/* ---- the software ring ------------------------------------------- */

#define RING_CAP 8

static struct bts_sw_ring *new_ring(struct kunit *test)
{
	struct bts_sw_ring *ring = kunit_kzalloc(test, sizeof(*ring), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ring);
	ring->buf = kunit_kcalloc(test, RING_CAP, sizeof(*ring->buf), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ring->buf);
	ring->capacity = RING_CAP;
	local64_set(&ring->total, 0);
	return ring;
}

static void add_n(struct bts_sw_ring *ring, unsigned int first, unsigned int n)
{
	unsigned int i;

	for (i = first; i < first + n; i++)
		bts_sw_ring_add(ring, 0x1000 + i, 0x2000 + i);
}

static void sw_empty_ring_reads_nothing(struct kunit *test)
{
	struct bts_sw_ring *ring = new_ring(test);
	struct bts_record out[RING_CAP];
	enum bts_window w;

	KUNIT_EXPECT_EQ(test, bts_sw_ring_read(ring, out, RING_CAP, &w), 0);
	KUNIT_EXPECT_EQ(test, w, BTS_WINDOW_EMPTY);
}

static void sw_partial_fill_is_complete_and_oldest_first(struct kunit *test)
{
	struct bts_sw_ring *ring = new_ring(test);
	struct bts_record out[RING_CAP];
	enum bts_window w;
	unsigned int i, n;

	add_n(ring, 0, 5);
	n = bts_sw_ring_read(ring, out, RING_CAP, &w);
	KUNIT_EXPECT_EQ(test, n, 5);
	KUNIT_EXPECT_EQ(test, w, BTS_WINDOW_PARTIAL);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ(test, out[i].from, 0x1000 + i);
		KUNIT_EXPECT_EQ(test, out[i].to, 0x2000 + i);
		KUNIT_EXPECT_EQ(test, out[i].flags, BTS_FLAG_SW);
	}
}

static void sw_wrapped_ring_returns_newest_in_order(struct kunit *test)
{
	struct bts_sw_ring *ring = new_ring(test);
	struct bts_record out[RING_CAP];
	enum bts_window w;
	unsigned int i, n;

	add_n(ring, 0, 3 * RING_CAP + 3);
	n = bts_sw_ring_read(ring, out, RING_CAP, &w);
	KUNIT_EXPECT_EQ(test, n, RING_CAP);
	KUNIT_EXPECT_EQ(test, w, BTS_WINDOW_WRAPPED);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, out[i].from, 0x1000 + 2 * RING_CAP + 3 + i);
}

static void sw_read_fewer_than_recorded_gives_the_newest(struct kunit *test)
{
	struct bts_sw_ring *ring = new_ring(test);
	struct bts_record out[3];
	enum bts_window w;

	add_n(ring, 0, RING_CAP + 2);
	KUNIT_EXPECT_EQ(test, bts_sw_ring_read(ring, out, 3, &w), 3);
	KUNIT_EXPECT_EQ(test, out[0].from, 0x1000 + RING_CAP - 1);
	KUNIT_EXPECT_EQ(test, out[2].from, 0x1000 + RING_CAP + 1);
}

/*
 * The software source reads the five bytes before a return address: a
 * direct call to the callee names the call, anything else the byte
 * before the return address; bytes on a page that is not mapped are not
 * read (the page after an allocation in the module area is its guard).
 */
static void sw_call_site_reads_only_what_is_mapped(struct kunit *test)
{
	u8 *p = execmem_alloc(EXECMEM_MODULE_DATA, PAGE_SIZE);
	unsigned long call, ret, callee;
	s32 rel;

	KUNIT_ASSERT_NOT_NULL(test, p);
	memset(p, 0x90, PAGE_SIZE);
	call = (unsigned long)p + 16;
	ret = call + 5;
	callee = (unsigned long)p + 256;
	rel = callee - ret;
	p[16] = 0xe8;
	memcpy(p + 17, &rel, sizeof(rel));
	KUNIT_EXPECT_EQ(test, bts_sw_call_site(ret, callee), call);
	KUNIT_EXPECT_EQ(test, bts_sw_call_site(ret, callee + ENDBR_INSN_SIZE),
			call);
	/* a call elsewhere, or not a direct call: inside the instruction */
	KUNIT_EXPECT_EQ(test, bts_sw_call_site(ret, callee + 64), ret - 1);
	KUNIT_EXPECT_EQ(test, bts_sw_call_site(ret + 1, callee), ret);
	/* the opcode on the last mapped byte, its operand past the end */
	p[PAGE_SIZE - 2] = 0xe8;
	ret = (unsigned long)p + PAGE_SIZE + 3;
	KUNIT_EXPECT_EQ(test, bts_sw_call_site(ret, callee), ret - 1);
	/* all five bytes past the end */
	ret = (unsigned long)p + PAGE_SIZE + 64;
	KUNIT_EXPECT_EQ(test, bts_sw_call_site(ret, callee), ret - 1);
	execmem_free(p);
}

static void sw_frozen_ring_records_nothing(struct kunit *test)
{
	struct bts_sw_ring *ring = new_ring(test);
	struct bts_record out[RING_CAP];
	enum bts_window w;

	add_n(ring, 0, 2);
	WRITE_ONCE(ring->frozen, true);
	add_n(ring, 2, 4);
	KUNIT_EXPECT_EQ(test, bts_sw_ring_read(ring, out, RING_CAP, &w), 2);
	KUNIT_EXPECT_EQ(test, out[1].from, 0x1001);
}

/*
 * The software source's disarm frees the rings: before it returns, every
 * hook that may still hold a ring must have finished. A hook runs with
 * preemption off (ftrace_test_recursion_trylock()), where RCU may not be
 * watching; a CPU that stays in such a section for a while stands in for
 * a hook that was interrupted right after it loaded the ring's buffer.
 */
static struct {
	struct completion inside, done;
	atomic_t disarmed;
	bool disarm_returned_inside;
} sw_race;

static int sw_race_hook(void *arg)
{
	int ms;

	preempt_disable();
	complete(&sw_race.inside);
	/*
	 * Until the disarm returns (the bug) or for 8 s, longer than a
	 * disarm takes under TCG (some 3 s of code patching): a correct
	 * disarm waits for this CPU to schedule.
	 */
	for (ms = 0; ms < 8000 && !atomic_read(&sw_race.disarmed); ms++)
		mdelay(1);
	sw_race.disarm_returned_inside = atomic_read(&sw_race.disarmed);
	preempt_enable();
	complete(&sw_race.done);
	return 0;
}

static void sw_disarm_waits_for_hooks_in_flight(struct kunit *test)
{
	struct bts_source *sw = bts_find_source("sw");
	struct task_struct *t;
	int cpu;

	KUNIT_ASSERT_NOT_NULL(test, sw);
	if (bts_armed_source())
		kunit_skip(test, "a source is armed (the bts tracer is running)");
	cpu = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());
	if (cpu >= nr_cpu_ids)
		kunit_skip(test, "needs two online CPUs");
	init_completion(&sw_race.inside);
	init_completion(&sw_race.done);
	atomic_set(&sw_race.disarmed, 0);
	sw_race.disarm_returned_inside = false;
	KUNIT_ASSERT_EQ(test, sw->arm(0), 0);
	t = kthread_create(sw_race_hook, NULL, "bts_kunit_hook");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	kthread_bind(t, cpu);
	wake_up_process(t);
	wait_for_completion(&sw_race.inside);
	sw->disarm();
	atomic_set(&sw_race.disarmed, 1);
	wait_for_completion(&sw_race.done);
	KUNIT_EXPECT_FALSE(test, sw_race.disarm_returned_inside);
}

/* ---- a fake source for the core --------------------------------- */

static struct {
	unsigned int freezes, thaws, arms, disarms;
	unsigned int arm_flags;
	const char *why;
	int why_err;
	int arm_ret;
	unsigned int recorded;		/* records 0..recorded-1 exist */
	/* run once in the middle of the next freeze, thaw, arm or disarm, as an NMI */
	void (*nmi_in_freeze)(void);
	void (*nmi_in_thaw)(void);
	void (*nmi_in_arm)(void);
	void (*nmi_in_disarm)(void);
	unsigned int reads;		/* reads made at all */
	unsigned int reads_unfrozen;	/* reads made while not frozen */
} fake;

#define FAKE_CAP 16

/*
 * Each CPU's freeze state, as the hardware's is: the core freezes and
 * thaws CPUs one by one, and a check that one CPU is frozen must not be
 * satisfied, or spoiled, by another.
 */
static DEFINE_PER_CPU(bool, fake_frozen);

/* How many CPUs the fake source has frozen. */
static unsigned int fake_frozen_cpus(void)
{
	unsigned int n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += per_cpu(fake_frozen, cpu);
	return n;
}

static const char *fake_unavailable(int *err)
{
	if (err)
		*err = fake.why_err;
	return fake.why;
}

static unsigned int fake_capacity(void) { return FAKE_CAP; }

/* Run a one-shot hook, as an NMI arriving at that point would. */
static void fake_nmi_hook(void (**hook)(void))
{
	void (*nmi)(void) = *hook;
	unsigned long flags;

	*hook = NULL;
	if (nmi) {
		local_irq_save(flags);
		nmi();
		local_irq_restore(flags);
	}
}

static int fake_arm(unsigned int flags)
{
	int cpu;

	fake.arms++;
	fake.arm_flags = flags;
	/* as bts.h asks of a source: a task filter arms every CPU frozen */
	for_each_possible_cpu(cpu)
		per_cpu(fake_frozen, cpu) = flags & BTS_ARM_FILTER;
	fake_nmi_hook(&fake.nmi_in_arm);	/* the source half armed */
	return fake.arm_ret;
}

static void fake_disarm(void)
{
	fake.disarms++;
	fake_nmi_hook(&fake.nmi_in_disarm);	/* half disarmed */
}

static void fake_freeze(void)
{
	void (*nmi)(void) = fake.nmi_in_freeze;

	fake.freezes++;
	fake.nmi_in_freeze = NULL;
	if (nmi)
		nmi();		/* before the freeze has taken effect */
	this_cpu_write(fake_frozen, true);
}

static void fake_thaw(void)
{
	void (*nmi)(void) = fake.nmi_in_thaw;

	fake.thaws++;
	fake.nmi_in_thaw = NULL;
	if (nmi)
		nmi();		/* before the thaw has taken effect */
	this_cpu_write(fake_frozen, false);
}

static unsigned int fake_read(struct bts_record *buf, unsigned int n,
			      enum bts_window *w)
{
	unsigned int avail = min(fake.recorded, FAKE_CAP), i;

	fake.reads++;
	if (!this_cpu_read(fake_frozen))
		fake.reads_unfrozen++;
	*w = !fake.recorded ? BTS_WINDOW_EMPTY :
	     fake.recorded > FAKE_CAP ? BTS_WINDOW_WRAPPED : BTS_WINDOW_PARTIAL;
	n = min(n, avail);
	for (i = 0; i < n; i++) {
		buf[i].from = 0x100 + fake.recorded - n + i;
		buf[i].to = 0x200 + fake.recorded - n + i;
		buf[i].flags = 0;
	}
	return n;
}

static struct bts_source fake_source = {
	.name = "kunit_fake", .id = BTS_SOURCE_HW + 100,
	.unavailable = fake_unavailable, .capacity = fake_capacity,
	.arm = fake_arm, .disarm = fake_disarm,
	.freeze_this_cpu = fake_freeze, .thaw_this_cpu = fake_thaw,
	.read_this_cpu = fake_read,
};

static int core_init(struct kunit *test)
{
	int cpu;

	memset(&fake, 0, sizeof(fake));
	bts_kunit_nmi_in_last_thaw = NULL;
	bts_kunit_fault_entry = NULL;
	bts_kunit_before_capture_nmi = NULL;
	for_each_possible_cpu(cpu)
		per_cpu(fake_frozen, cpu) = false;
	if (bts_armed_source())
		kunit_skip(test, "a source is armed (the bts tracer is running)");
	KUNIT_ASSERT_EQ(test, bts_register_source(&fake_source), 0);
	return 0;
}

static void core_exit(struct kunit *test)
{
	bts_capture_disable();
	bts_capture_clear();
	if (bts_armed_source() == &fake_source)
		bts_disarm();
	bts_unregister_source(&fake_source);
}

static void core_registering_a_name_twice_fails(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, bts_register_source(&fake_source), -EEXIST);
}

static void core_unavailable_source_is_not_armed(struct kunit *test)
{
	fake.why = "kunit says no";
	fake.why_err = -ENODEV;
	KUNIT_EXPECT_EQ(test, bts_arm(&fake_source, 0), -ENODEV);
	KUNIT_EXPECT_EQ(test, fake.arms, 0);
	KUNIT_EXPECT_NULL(test, bts_armed_source());
}

static void core_unavailable_source_says_its_errno(struct kunit *test)
{
	fake.why = "held by another user";
	fake.why_err = -EBUSY;
	KUNIT_EXPECT_EQ(test, bts_arm(&fake_source, 0), -EBUSY);
	KUNIT_EXPECT_EQ(test, fake.arms, 0);
	KUNIT_EXPECT_NULL(test, bts_armed_source());
}

static void core_arm_failure_leaves_nothing_armed(struct kunit *test)
{
	fake.arm_ret = -EBUSY;
	KUNIT_EXPECT_EQ(test, bts_arm(&fake_source, 0), -EBUSY);
	KUNIT_EXPECT_NULL(test, bts_armed_source());
}

static void core_second_arm_is_busy(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, bts_arm(&fake_source, BTS_ARM_USER), 0);
	KUNIT_EXPECT_EQ(test, fake.arm_flags, BTS_ARM_USER);
	KUNIT_EXPECT_PTR_EQ(test, bts_armed_source(), &fake_source);
	KUNIT_EXPECT_EQ(test, bts_arm(&fake_source, 0), -EBUSY);
	bts_disarm();
	KUNIT_EXPECT_EQ(test, fake.disarms, 1);
	KUNIT_EXPECT_NULL(test, bts_armed_source());
}

static void core_snapshot_freezes_copies_and_thaws(struct kunit *test)
{
	struct bts_record out[4];
	struct bts_snapshot snap;
	unsigned long flags;
	unsigned int n;

	KUNIT_ASSERT_EQ(test, bts_arm(&fake_source, 0), 0);
	fake.recorded = 40;
	local_irq_save(flags);
	n = bts_snapshot_this_cpu(out, 4, &snap);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, n, 4);
	KUNIT_EXPECT_EQ(test, fake.freezes, 1);
	KUNIT_EXPECT_EQ(test, fake.thaws, 1);
	KUNIT_EXPECT_EQ(test, fake_frozen_cpus(), 0);
	KUNIT_EXPECT_EQ(test, snap.count, 4);
	KUNIT_EXPECT_EQ(test, snap.capacity, FAKE_CAP);
	KUNIT_EXPECT_EQ(test, snap.window, BTS_WINDOW_WRAPPED);
	KUNIT_EXPECT_EQ(test, out[3].from, 0x100 + 39);
}

static void core_nested_freezes_reach_the_source_once(struct kunit *test)
{
	unsigned long flags;

	KUNIT_ASSERT_EQ(test, bts_arm(&fake_source, 0), 0);
	local_irq_save(flags);
	bts_freeze_this_cpu(&fake_source);
	bts_freeze_this_cpu(&fake_source);	/* as an NMI would */
	bts_thaw_this_cpu(&fake_source);
	KUNIT_EXPECT_TRUE(test, this_cpu_read(fake_frozen));
	bts_thaw_this_cpu(&fake_source);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, fake_frozen_cpus(), 0);
	KUNIT_EXPECT_EQ(test, fake.freezes, 1);
	KUNIT_EXPECT_EQ(test, fake.thaws, 1);
}

/* ---- the task filter (BTS_ARM_FILTER) ---- */

static void core_filter_arms_every_cpu_frozen_and_held(struct kunit *test)
{
	struct bts_record buf[4];
	struct bts_snapshot snap;
	unsigned long flags;

	KUNIT_ASSERT_EQ(test, bts_arm(&fake_source, BTS_ARM_FILTER), 0);
	KUNIT_EXPECT_EQ(test, fake_frozen_cpus(), num_possible_cpus());
	KUNIT_EXPECT_EQ(test, fake.thaws, 0);
	fake.recorded = 4;
	local_irq_save(flags);
	bts_snapshot_this_cpu(buf, ARRAY_SIZE(buf), &snap);
	KUNIT_EXPECT_TRUE(test, this_cpu_read(fake_frozen));
	local_irq_restore(flags);
	KUNIT_EXPECT_TRUE(test, snap.task_filter);
	KUNIT_EXPECT_TRUE(test, snap.filter_held);
	KUNIT_EXPECT_EQ(test, fake.thaws, 0);
}

/* The source is reached only when the filter's state changes. */
static void core_filter_reaches_the_source_only_on_change(struct kunit *test)
{
	unsigned int freezes, thaws;
	unsigned long flags;

	KUNIT_ASSERT_EQ(test, bts_arm(&fake_source, BTS_ARM_FILTER), 0);
	local_irq_save(flags);
	freezes = fake.freezes;
	thaws = fake.thaws;
	bts_filter_this_cpu(false);		/* unchosen after unchosen */
	KUNIT_EXPECT_EQ(test, fake.freezes, freezes);
	bts_filter_this_cpu(true);		/* a chosen task */
	KUNIT_EXPECT_FALSE(test, this_cpu_read(fake_frozen));
	KUNIT_EXPECT_EQ(test, fake.thaws, thaws + 1);
	bts_filter_this_cpu(true);		/* chosen after chosen */
	KUNIT_EXPECT_EQ(test, fake.thaws, thaws + 1);
	bts_filter_this_cpu(false);
	KUNIT_EXPECT_TRUE(test, this_cpu_read(fake_frozen));
	KUNIT_EXPECT_EQ(test, fake.freezes, freezes + 1);
	bts_filter_this_cpu(false);
	KUNIT_EXPECT_EQ(test, fake.freezes, freezes + 1);
	local_irq_restore(flags);
}

/* Without BTS_ARM_FILTER the filter's calls do nothing. */
static void core_filter_does_nothing_unless_armed_with_it(struct kunit *test)
{
	struct bts_record buf[4];
	struct bts_snapshot snap;
	unsigned long flags;

	local_irq_save(flags);
	bts_filter_this_cpu(false);		/* nothing armed */
	local_irq_restore(flags);
	KUNIT_ASSERT_EQ(test, bts_arm(&fake_source, 0), 0);
	local_irq_save(flags);
	bts_filter_this_cpu(false);
	KUNIT_EXPECT_FALSE(test, this_cpu_read(fake_frozen));
	bts_snapshot_this_cpu(buf, ARRAY_SIZE(buf), &snap);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, fake.freezes, 1);	/* the snapshot's */
	KUNIT_EXPECT_FALSE(test, snap.task_filter);
	KUNIT_EXPECT_FALSE(test, snap.filter_held);
}

/*
 * A snapshot (a dump, a capture NMI) on a CPU the filter lets record
 * leaves it recording; on one it holds, leaves it held and frozen.
 */
static void core_filter_nests_with_snapshots(struct kunit *test)
{
	struct bts_record buf[4];
	struct bts_snapshot snap;
	unsigned long flags;

	KUNIT_ASSERT_EQ(test, bts_arm(&fake_source, BTS_ARM_FILTER), 0);
	fake.recorded = 4;
	local_irq_save(flags);
	bts_filter_this_cpu(true);
	bts_snapshot_this_cpu(buf, ARRAY_SIZE(buf), &snap);
	KUNIT_EXPECT_FALSE(test, this_cpu_read(fake_frozen));
	KUNIT_EXPECT_TRUE(test, snap.task_filter);
	KUNIT_EXPECT_FALSE(test, snap.filter_held);
	bts_filter_this_cpu(false);
	bts_snapshot_this_cpu(buf, ARRAY_SIZE(buf), &snap);
	KUNIT_EXPECT_TRUE(test, this_cpu_read(fake_frozen));
	KUNIT_EXPECT_TRUE(test, snap.filter_held);
	/* a freeze held across the switch (a capture) outlives the filter's */
	bts_freeze_this_cpu(&fake_source);
	bts_filter_this_cpu(true);
	KUNIT_EXPECT_TRUE(test, this_cpu_read(fake_frozen));
	bts_thaw_this_cpu(&fake_source);
	KUNIT_EXPECT_FALSE(test, this_cpu_read(fake_frozen));
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, fake.reads_unfrozen, 0);
}

/* What a capture NMI does on this CPU: freeze, copy, thaw. */
static void fake_nmi_snapshot(void)
{
	struct bts_record buf[4];
	struct bts_snapshot snap;

	bts_snapshot_this_cpu(buf, ARRAY_SIZE(buf), &snap);
}

/* A snapshot of this CPU from process context, as the tracer takes one. */
static void snapshot_irqs_off(void)
{
	unsigned long flags;

	local_irq_save(flags);
	fake_nmi_snapshot();
	local_irq_restore(flags);
}

static void core_nmi_in_the_middle_of_a_freeze_reads_frozen(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, bts_arm(&fake_source, 0), 0);
	fake.recorded = 4;
	fake.nmi_in_freeze = fake_nmi_snapshot;
	snapshot_irqs_off();
	KUNIT_EXPECT_NULL(test, fake.nmi_in_freeze);	/* it did run */
	KUNIT_EXPECT_EQ(test, fake.reads_unfrozen, 0);
	KUNIT_EXPECT_EQ(test, fake_frozen_cpus(), 0);
	/* and the depth is back to 0: the next freeze reaches the source */
	fake.freezes = 0;
	snapshot_irqs_off();
	KUNIT_EXPECT_EQ(test, fake.freezes, 1);
	KUNIT_EXPECT_EQ(test, fake_frozen_cpus(), 0);
}

static void core_nmi_in_the_middle_of_a_thaw_leaves_it_recording(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, bts_arm(&fake_source, 0), 0);
	fake.recorded = 4;
	fake.nmi_in_thaw = fake_nmi_snapshot;
	snapshot_irqs_off();
	KUNIT_EXPECT_NULL(test, fake.nmi_in_thaw);
	KUNIT_EXPECT_EQ(test, fake.reads_unfrozen, 0);
	KUNIT_EXPECT_EQ(test, fake_frozen_cpus(), 0);
	fake.freezes = 0;
	snapshot_irqs_off();
	KUNIT_EXPECT_EQ(test, fake.freezes, 1);
	KUNIT_EXPECT_EQ(test, fake_frozen_cpus(), 0);
}

/*
 * An NMI between the last thaw's two writes (of the depth and of the
 * source's frozen mark) must leave nothing that says "frozen" while the
 * source records: the next freeze, interrupted before it takes effect by
 * an NMI that reads, must still see that NMI freeze the source itself.
 */
static void core_nmi_between_the_last_thaws_writes_leaves_no_stale_mark(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, bts_arm(&fake_source, 0), 0);
	fake.recorded = 4;
	bts_kunit_nmi_in_last_thaw = fake_nmi_snapshot;
	snapshot_irqs_off();
	KUNIT_EXPECT_NULL(test, bts_kunit_nmi_in_last_thaw);	/* it ran */
	KUNIT_EXPECT_EQ(test, fake.reads_unfrozen, 0);
	KUNIT_EXPECT_EQ(test, fake_frozen_cpus(), 0);

	fake.freezes = 0;
	fake.nmi_in_freeze = fake_nmi_snapshot;
	snapshot_irqs_off();
	KUNIT_EXPECT_NULL(test, fake.nmi_in_freeze);
	KUNIT_EXPECT_EQ(test, fake.reads_unfrozen, 0);
	/* the outer freeze and the NMI's own both reached the source */
	KUNIT_EXPECT_EQ(test, fake.freezes, 2);
	KUNIT_EXPECT_EQ(test, fake_frozen_cpus(), 0);
}

static void core_snapshot_without_source_is_empty(struct kunit *test)
{
	struct bts_record out[2];
	struct bts_snapshot snap;

	KUNIT_EXPECT_EQ(test, bts_snapshot_cpu(0, out, 2, &snap), -ENODEV);
	KUNIT_EXPECT_EQ(test, bts_snapshot_this_cpu(out, 2, &snap), 0);
	KUNIT_EXPECT_EQ(test, snap.source, BTS_SOURCE_NONE);
}

static void core_snapshot_of_another_cpu_names_it(struct kunit *test)
{
	struct bts_record out[2];
	struct bts_snapshot snap;
	int cpu = cpumask_last(cpu_online_mask);

	KUNIT_ASSERT_EQ(test, bts_arm(&fake_source, 0), 0);
	fake.recorded = 1;
	KUNIT_EXPECT_EQ(test, bts_snapshot_cpu(cpu, out, 2, &snap), 1);
	KUNIT_EXPECT_EQ(test, snap.cpu, cpu);
	KUNIT_EXPECT_EQ(test, snap.window, BTS_WINDOW_PARTIAL);
}

/* ---- fault records and capture ------------------------------------ */

static void fault_record_hw_is_newest_branch_to_an_exception_entry(struct kunit *test)
{
	u64 gp = bts_exception_entry(X86_TRAP_GP);
	u64 pf = bts_exception_entry(X86_TRAP_PF);
	u64 text = (unsigned long)_stext + 0x100;
	struct bts_record r[] = {
		{ text, gp, 0 },		/* an older exception */
		{ text + 8, text + 16, 0 },
		{ text + 32, pf, 0 },		/* the fault */
		{ pf + 4, pf + 64, 0 },		/* inside the entry code */
		{ pf + 64, text + 64, 0 },	/* out to exc_page_fault */
	};

	KUNIT_ASSERT_NE(test, pf, 0);
	KUNIT_EXPECT_EQ(test, bts_find_fault_record(r, ARRAY_SIZE(r)), 2);
}

static void fault_record_hw_interrupt_after_the_fault_is_not_it(struct kunit *test)
{
	u64 pf = bts_exception_entry(X86_TRAP_PF);
	u64 timer = bts_exception_entry(LOCAL_TIMER_VECTOR);
	u64 text = (unsigned long)_stext + 0x100;
	struct bts_record r[] = {
		{ text + 32, pf, 0 },		/* the fault */
		{ pf + 16, text + 64, 0 },
		{ text + 80, timer, 0 },	/* a timer interrupt */
		{ timer + 16, text + 96, 0 },
	};

	KUNIT_ASSERT_NE(test, timer, 0);
	KUNIT_EXPECT_EQ(test, bts_find_fault_record(r, ARRAY_SIZE(r)), 0);
}

/*
 * Found on the emulated-BTS CPU: with return thunks, error_entry's ret is
 * a jmp to its_return_thunk, whose ret lands back in the exception entry
 * from outside the entry text. That is not the fault; the exception is.
 */
static void fault_record_hw_return_into_entry_code_is_not_the_fault(struct kunit *test)
{
	u64 pf = bts_exception_entry(X86_TRAP_PF);
	u64 entry = (unsigned long)__entry_text_start;
	u64 text = (unsigned long)_stext + 0x100;
	struct bts_record r[] = {
		{ text + 32, pf, 0 },		/* the fault */
		{ pf + 4, entry + 64, 0 },	/* call error_entry */
		{ entry + 96, text + 200, 0 },	/* its ret: jmp to the thunk */
		{ text + 200, pf + 9, 0 },	/* the thunk's ret */
		{ pf + 16, text + 64, 0 },	/* call exc_page_fault */
	};

	KUNIT_EXPECT_EQ(test, bts_find_fault_record(r, ARRAY_SIZE(r)), 0);
}

/*
 * A whole history with no exception in it (2730 records here) is searched
 * with one decoding of the IDT, not one per record: 31 gates each, some
 * 85,000 decodes per capture in NMI context before.
 */
static void fault_record_search_decodes_the_idt_once(struct kunit *test)
{
	u64 text = (unsigned long)_stext + 0x100;
	struct bts_record *r;
	unsigned int i, n = 2730;
	u64 t;

	r = kunit_kcalloc(test, n, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	for (i = 0; i < n; i++) {
		r[i].from = text + 16 * i;
		r[i].to = text + 16 * i + 8;
	}
	bts_kunit_gate_decodes = 0;
	t = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, bts_find_fault_record(r, n), U32_MAX);
	t = ktime_get_ns() - t;
	kunit_info(test, "%u records searched in %llu ns, %lu gates decoded\n",
		   n, t, bts_kunit_gate_decodes);
	KUNIT_EXPECT_LE(test, bts_kunit_gate_decodes, FIRST_EXTERNAL_VECTOR);
	KUNIT_EXPECT_GT(test, bts_kunit_gate_decodes, 0);
}

/* A panic: the call into panic(), not an interrupt that returned there. */
static void fault_record_panic_is_the_call_not_an_iret(struct kunit *test)
{
	u64 entry = (unsigned long)__entry_text_start;
	u64 text = (unsigned long)_stext + 0x100;
	u64 p = (unsigned long)panic;
	struct bts_record r[] = {
		{ text, p, 0 },			/* call panic */
		{ p, entry + 8, 0 },		/* an interrupt at its first byte */
		{ entry + 64, text + 300, 0 },	/* its handler */
		{ entry + 128, p, 0 },		/* iret back to panic */
		{ p + 4, p + 32, 0 },
	};

	KUNIT_EXPECT_EQ(test, bts_find_panic_record(r, ARRAY_SIZE(r)), 0);
}

static void fault_record_sw_is_newest_call_from_entry_text(struct kunit *test)
{
	u64 entry = (unsigned long)__entry_text_start;
	u64 text = (unsigned long)_stext + 0x100;
	struct bts_record r[] = {
		{ text, text + 8, BTS_FLAG_SW },
		{ entry + 16, text + 64, BTS_FLAG_SW },	/* asm_exc -> exc */
		{ text + 64, text + 128, BTS_FLAG_SW },
	};

	KUNIT_EXPECT_EQ(test, bts_find_fault_record(r, ARRAY_SIZE(r)), 1);
}

static void fault_record_sw_is_first_call_of_the_handler(struct kunit *test)
{
	u64 exc = (unsigned long)__noinstr_text_start;
	u64 text = (unsigned long)_stext + 0x100;
	struct bts_record r[] = {
		{ text, text + 8, BTS_FLAG_SW },	/* -> the faulting fn */
		{ exc + 16, text + 64, BTS_FLAG_SW },	/* exc_ -> a */
		{ exc + 32, text + 96, BTS_FLAG_SW },	/* exc_ -> b */
		{ text + 96, text + 128, BTS_FLAG_SW },	/* b -> oops_begin */
	};

	KUNIT_EXPECT_EQ(test, bts_find_fault_record(r, ARRAY_SIZE(r)), 1);
}

static void fault_record_absent_is_u32_max(struct kunit *test)
{
	struct bts_record r[] = { { 1, 2, 0 }, { 3, 4, BTS_FLAG_SW } };

	KUNIT_EXPECT_EQ(test, bts_find_fault_record(r, ARRAY_SIZE(r)), U32_MAX);
	KUNIT_EXPECT_EQ(test, bts_find_fault_record(r, 0), U32_MAX);
}

/*
 * emitted: captures completed on the finishing CPU (the history it emits
 * as its own); nmi_emitted: histories other CPUs emitted, each from
 * itself in the capture NMI.
 */
static unsigned int emitted, nmi_emitted;

static void count_emit(unsigned int cpu, const struct bts_record *recs,
		       const struct bts_snapshot *snap)
{
	if (cpu != raw_smp_processor_id())
		return;
	if (in_nmi())
		nmi_emitted++;
	else
		emitted++;
}

static void capture_start_emit(struct kunit *test, unsigned int reasons,
			       void (*emit)(unsigned int cpu,
					    const struct bts_record *recs,
					    const struct bts_snapshot *snap))
{
	emitted = 0;
	nmi_emitted = 0;
	KUNIT_ASSERT_EQ(test, bts_arm(&fake_source, 0), 0);
	KUNIT_ASSERT_EQ(test, bts_capture_enable(reasons, emit), 0);
}

static void capture_start(struct kunit *test, unsigned int reasons)
{
	capture_start_emit(test, reasons, count_emit);
}

static void fault_freeze(enum bts_reason reason)
{
	unsigned long flags;

	local_irq_save(flags);
	bts_fault_freeze(reason, NULL);
	local_irq_restore(flags);
}

/*
 * An NMI (a snapshot, a fault) in the middle of the source's arm or disarm
 * finds nothing armed: the core publishes the source only once it is
 * armed, and unpublishes it before it disarms.
 */
static struct {
	enum bts_source_id source;
	unsigned int reads;
	bool ran;
} mid;

static void fake_nmi_mid_transition(void)
{
	struct bts_record buf[4];
	struct bts_snapshot snap;

	mid.ran = true;
	mid.reads = fake.reads;
	bts_snapshot_this_cpu(buf, ARRAY_SIZE(buf), &snap);
	bts_fault_freeze(BTS_REASON_OOPS, NULL);
	mid.source = snap.source;
	mid.reads = fake.reads - mid.reads;
}

static void core_nmi_in_the_middle_of_arm_or_disarm_finds_nothing(struct kunit *test)
{
	enum bts_reason reason;
	bool pending;
	int cpu;

	fake.recorded = 4;
	memset(&mid, 0, sizeof(mid));
	fake.nmi_in_arm = fake_nmi_mid_transition;
	KUNIT_ASSERT_EQ(test, bts_arm(&fake_source, 0), 0);
	KUNIT_ASSERT_TRUE(test, mid.ran);
	KUNIT_EXPECT_EQ(test, mid.source, BTS_SOURCE_NONE);
	KUNIT_EXPECT_EQ(test, mid.reads, 0);

	KUNIT_ASSERT_EQ(test, bts_capture_enable(BIT(BTS_REASON_OOPS), count_emit), 0);
	memset(&mid, 0, sizeof(mid));
	fake.nmi_in_disarm = fake_nmi_mid_transition;
	bts_disarm();
	KUNIT_ASSERT_TRUE(test, mid.ran);
	KUNIT_EXPECT_EQ(test, mid.source, BTS_SOURCE_NONE);
	KUNIT_EXPECT_EQ(test, mid.reads, 0);
	/* the fault in the middle of the disarm started no capture */
	KUNIT_EXPECT_FALSE(test, bts_capture_status(&cpu, &reason, &pending));
	KUNIT_EXPECT_EQ(test, fake_frozen_cpus(), 0);
}

static void capture_oops_keeps_cpu_frozen_and_emits(struct kunit *test)
{
	const struct bts_record *recs;
	struct bts_snapshot snap;
	enum bts_reason reason;
	bool pending;
	int cpu;

	capture_start(test, BIT(BTS_REASON_OOPS));
	fake.recorded = 5;
	preempt_disable();
	cpu = smp_processor_id();
	fault_freeze(BTS_REASON_OOPS);
	preempt_enable();
	KUNIT_EXPECT_EQ(test, emitted, 1);
	/* the oopsing CPU stays frozen; the others record again */
	KUNIT_EXPECT_TRUE(test, per_cpu(fake_frozen, cpu));
	KUNIT_EXPECT_EQ(test, fake_frozen_cpus(), 1);
	KUNIT_EXPECT_TRUE(test, bts_capture_status(&cpu, &reason, &pending));
	KUNIT_EXPECT_EQ(test, reason, BTS_REASON_OOPS);
	KUNIT_ASSERT_TRUE(test, bts_capture_get(cpu, &recs, &snap));
	KUNIT_EXPECT_EQ(test, snap.count, 5);
	KUNIT_EXPECT_EQ(test, snap.reason, BTS_REASON_OOPS);
	KUNIT_EXPECT_EQ(test, recs[4].from, 0x104);
	KUNIT_EXPECT_EQ(test, bts_capture_clear(), 0);
	KUNIT_EXPECT_FALSE(test, bts_capture_status(&cpu, &reason, &pending));
	KUNIT_EXPECT_EQ(test, fake_frozen_cpus(), 0);
}

static void capture_second_fault_is_counted_not_kept(struct kunit *test)
{
	const struct bts_record *recs;
	struct bts_snapshot snap;
	enum bts_reason reason;
	int cpu;

	capture_start(test, BIT(BTS_REASON_OOPS) | BIT(BTS_REASON_PANIC));
	fake.recorded = 3;
	preempt_disable();
	cpu = smp_processor_id();
	fault_freeze(BTS_REASON_OOPS);
	fake.recorded = 9;
	fault_freeze(BTS_REASON_OOPS);		/* nested, same CPU */
	preempt_enable();
	KUNIT_EXPECT_EQ(test, emitted, 1);
	KUNIT_EXPECT_EQ(test, bts_capture_lost(), 1);
	KUNIT_ASSERT_TRUE(test, bts_capture_get(cpu, &recs, &snap));
	KUNIT_EXPECT_EQ(test, snap.count, 3);
	KUNIT_EXPECT_EQ(test, snap.reason, BTS_REASON_OOPS);
	/* panic_on_oops: the panic's history is the oops this CPU kept */
	fault_freeze(BTS_REASON_PANIC);
	KUNIT_EXPECT_EQ(test, bts_capture_lost(), 1);
	KUNIT_EXPECT_EQ(test, bts_capture_first(&reason), cpu);
	KUNIT_EXPECT_EQ(test, reason, BTS_REASON_OOPS);
	bts_capture_clear();
	KUNIT_EXPECT_EQ(test, bts_capture_lost(), 0);
	KUNIT_EXPECT_EQ(test, bts_capture_first(&reason), -1);
	fault_freeze(BTS_REASON_PANIC);		/* cleared: taken again */
	KUNIT_EXPECT_EQ(test, emitted, 2);
	KUNIT_EXPECT_EQ(test, bts_capture_first(&reason), cpu);
	KUNIT_EXPECT_EQ(test, reason, BTS_REASON_PANIC);
}

static void fault_freeze_ipi(void *info)
{
	bts_fault_freeze(BTS_REASON_OOPS, NULL);
}

static void capture_concurrent_faults_are_each_kept(struct kunit *test)
{
	const struct bts_record *recs;
	struct bts_snapshot snap;
	enum bts_reason reason;
	bool pending;
	int cpu, c;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");
	capture_start(test, BIT(BTS_REASON_OOPS));
	fake.recorded = 4;
	/* every CPU faults at once, IRQs off, as two oopsing CPUs would */
	on_each_cpu(fault_freeze_ipi, NULL, 1);
	/* one is the kept capture; none waited for it, none was lost */
	KUNIT_EXPECT_EQ(test, emitted, num_online_cpus());
	KUNIT_EXPECT_EQ(test, bts_capture_lost(), 0);
	KUNIT_EXPECT_TRUE(test, bts_capture_status(&cpu, &reason, &pending));
	KUNIT_EXPECT_EQ(test, reason, BTS_REASON_OOPS);
	for_each_online_cpu(c) {
		KUNIT_EXPECT_EQ(test, bts_capture_fault(c, &reason),
				BTS_FAULT_KEPT);
		KUNIT_ASSERT_TRUE(test, bts_capture_get(c, &recs, &snap));
		KUNIT_EXPECT_EQ(test, snap.reason, BTS_REASON_OOPS);
		KUNIT_EXPECT_TRUE(test, per_cpu(fake_frozen, c));
	}
	KUNIT_EXPECT_EQ(test, bts_capture_clear(), 0);
	KUNIT_EXPECT_EQ(test, fake_frozen_cpus(), 0);
	for_each_online_cpu(c)
		KUNIT_EXPECT_EQ(test, bts_capture_fault(c, &reason),
				BTS_FAULT_NONE);
}

static void capture_later_gpf_and_its_oops_count_once(struct kunit *test)
{
	capture_start(test, BIT(BTS_REASON_OOPS) | BIT(BTS_REASON_GPF));
	fake.recorded = 3;
	preempt_disable();
	fault_freeze(BTS_REASON_OOPS);		/* the first fault: kept */
	fault_freeze(BTS_REASON_GPF);		/* a later #GP ... */
	fault_freeze(BTS_REASON_OOPS);		/* ... and its oops_begin() */
	preempt_enable();
	KUNIT_EXPECT_EQ(test, bts_capture_lost(), 1);
}

static void capture_bug_waits_for_oops_to_emit(struct kunit *test)
{
	enum bts_reason reason;
	bool pending;
	int cpu;

	capture_start(test, BIT(BTS_REASON_OOPS) | BIT(BTS_REASON_BUG));
	fake.recorded = 2;
	preempt_disable();
	fault_freeze(BTS_REASON_BUG);
	KUNIT_EXPECT_EQ(test, emitted, 0);
	fault_freeze(BTS_REASON_OOPS);		/* die() after report_bug() */
	preempt_enable();
	KUNIT_EXPECT_EQ(test, emitted, 1);
	KUNIT_EXPECT_EQ(test, bts_capture_lost(), 0);
	KUNIT_EXPECT_TRUE(test, bts_capture_status(&cpu, &reason, &pending));
	KUNIT_EXPECT_EQ(test, reason, BTS_REASON_BUG);
}

static void capture_warn_is_dropped_without_the_option(struct kunit *test)
{
	enum bts_reason reason;
	bool pending;
	int cpu;

	capture_start(test, BIT(BTS_REASON_OOPS) | BIT(BTS_REASON_BUG));
	fake.recorded = 2;
	preempt_disable();
	fault_freeze(BTS_REASON_BUG);
	/* copied at the trap, not held frozen: the trap may be a WARN */
	KUNIT_EXPECT_EQ(test, fake_frozen_cpus(), 0);
	bts_fault_warn_done();
	preempt_enable();
	KUNIT_EXPECT_EQ(test, fake_frozen_cpus(), 0);
	KUNIT_EXPECT_EQ(test, emitted, 0);
	KUNIT_EXPECT_FALSE(test, bts_capture_status(&cpu, &reason, &pending));
}

static void capture_warn_is_kept_with_the_option(struct kunit *test)
{
	enum bts_reason reason;
	bool pending;
	int cpu;

	capture_start(test, BIT(BTS_REASON_BUG) | BIT(BTS_REASON_WARN));
	fake.recorded = 2;
	preempt_disable();
	fault_freeze(BTS_REASON_BUG);
	bts_fault_warn_done();
	preempt_enable();
	KUNIT_EXPECT_EQ(test, fake_frozen_cpus(), 0);
	KUNIT_EXPECT_EQ(test, emitted, 1);
	KUNIT_EXPECT_TRUE(test, bts_capture_status(&cpu, &reason, &pending));
	KUNIT_EXPECT_EQ(test, reason, BTS_REASON_WARN);
}

/*
 * handle_bug() runs with IRQs on when the trap site had them on: on a
 * preemptible kernel the task can move to another CPU between the trap
 * (bts_fault_freeze) and the end of report_bug() (bts_fault_warn_done).
 * Returns the CPU the test moved to, or -1 when there is no second CPU.
 */
static int trap_then_migrate(struct kunit *test)
{
	int a = cpumask_first(cpu_online_mask);
	int b = cpumask_next(a, cpu_online_mask);

	if (b >= nr_cpu_ids)
		return -1;
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(a)), 0);
	bts_fault_freeze(BTS_REASON_BUG, NULL);
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(b)), 0);
	KUNIT_EXPECT_EQ(test, raw_smp_processor_id(), b);
	return b;
}

static void capture_warn_kept_when_the_task_moves_cpus(struct kunit *test)
{
	const struct bts_record *recs;
	struct bts_snapshot snap;
	enum bts_reason reason;
	bool pending;
	int cpu;

	capture_start(test, BIT(BTS_REASON_BUG) | BIT(BTS_REASON_WARN));
	fake.recorded = 2;
	if (trap_then_migrate(test) < 0)
		kunit_skip(test, "needs two online CPUs");
	bts_fault_warn_done();
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	KUNIT_EXPECT_EQ(test, emitted, 1);
	KUNIT_EXPECT_EQ(test, fake_frozen_cpus(), 0);
	KUNIT_ASSERT_TRUE(test, bts_capture_status(&cpu, &reason, &pending));
	KUNIT_EXPECT_EQ(test, reason, BTS_REASON_WARN);
	/* the history is the trapping CPU's, labelled WARN */
	KUNIT_EXPECT_EQ(test, cpu, cpumask_first(cpu_online_mask));
	KUNIT_ASSERT_TRUE(test, bts_capture_get(cpu, &recs, &snap));
	KUNIT_EXPECT_EQ(test, snap.reason, BTS_REASON_WARN);
	KUNIT_EXPECT_EQ(test, snap.count, 2);
}

static void capture_warn_dropped_when_the_task_moves_cpus(struct kunit *test)
{
	enum bts_reason reason;
	bool pending;
	int cpu;

	capture_start(test, BIT(BTS_REASON_OOPS) | BIT(BTS_REASON_BUG));
	fake.recorded = 2;
	if (trap_then_migrate(test) < 0)
		kunit_skip(test, "needs two online CPUs");
	bts_fault_warn_done();
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	KUNIT_EXPECT_EQ(test, emitted, 0);
	KUNIT_EXPECT_EQ(test, fake_frozen_cpus(), 0);
	KUNIT_EXPECT_FALSE(test, bts_capture_status(&cpu, &reason, &pending));
	KUNIT_EXPECT_EQ(test, bts_capture_lost(), 0);
	/* nothing stranded: the next fault is taken */
	fault_freeze(BTS_REASON_OOPS);
	KUNIT_EXPECT_EQ(test, emitted, 1);
}

static void capture_bug_emitted_when_its_oops_is_on_another_cpu(struct kunit *test)
{
	enum bts_reason reason;
	bool pending;
	int cpu;

	capture_start(test, BIT(BTS_REASON_OOPS) | BIT(BTS_REASON_BUG));
	fake.recorded = 2;
	if (trap_then_migrate(test) < 0)
		kunit_skip(test, "needs two online CPUs");
	fault_freeze(BTS_REASON_OOPS);		/* die() on the new CPU */
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	KUNIT_EXPECT_EQ(test, emitted, 1);
	KUNIT_EXPECT_EQ(test, bts_capture_lost(), 0);
	KUNIT_ASSERT_TRUE(test, bts_capture_status(&cpu, &reason, &pending));
	KUNIT_EXPECT_EQ(test, reason, BTS_REASON_BUG);
	KUNIT_EXPECT_EQ(test, cpu, cpumask_first(cpu_online_mask));
}

static void capture_bug_then_panic_emits_the_bug(struct kunit *test)
{
	enum bts_reason reason;
	bool pending;
	int cpu;

	/* panic_on_warn: report_bug() panics before handle_bug() returns */
	capture_start(test, BIT(BTS_REASON_OOPS) | BIT(BTS_REASON_BUG) |
		      BIT(BTS_REASON_PANIC));
	fake.recorded = 2;
	preempt_disable();
	fault_freeze(BTS_REASON_BUG);
	fault_freeze(BTS_REASON_PANIC);
	preempt_enable();
	KUNIT_EXPECT_EQ(test, emitted, 1);
	KUNIT_EXPECT_EQ(test, bts_capture_lost(), 0);
	KUNIT_ASSERT_TRUE(test, bts_capture_status(&cpu, &reason, &pending));
	KUNIT_EXPECT_EQ(test, reason, BTS_REASON_BUG);
}

static void capture_bug_with_only_the_warn_option_is_emitted(struct kunit *test)
{
	enum bts_reason reason;
	bool pending;
	int cpu;

	/* bts_capture_warn=1, bts_capture_oops=0: a BUG() is an oops */
	capture_start(test, BIT(BTS_REASON_BUG) | BIT(BTS_REASON_WARN));
	fake.recorded = 2;
	preempt_disable();
	fault_freeze(BTS_REASON_BUG);
	fault_freeze(BTS_REASON_OOPS);
	preempt_enable();
	KUNIT_EXPECT_EQ(test, emitted, 1);
	KUNIT_ASSERT_TRUE(test, bts_capture_status(&cpu, &reason, &pending));
	KUNIT_EXPECT_EQ(test, reason, BTS_REASON_BUG);
}

static void capture_warn_while_held_is_not_lost_without_the_option(struct kunit *test)
{
	capture_start(test, BIT(BTS_REASON_OOPS) | BIT(BTS_REASON_BUG));
	fake.recorded = 2;
	preempt_disable();
	fault_freeze(BTS_REASON_OOPS);		/* kept */
	fault_freeze(BTS_REASON_BUG);		/* a later WARN ... */
	bts_fault_warn_done();			/* ... not a fault we keep */
	preempt_enable();
	KUNIT_EXPECT_EQ(test, bts_capture_lost(), 0);
}

static void capture_warn_while_held_is_lost_with_the_option(struct kunit *test)
{
	capture_start(test, BIT(BTS_REASON_OOPS) | BIT(BTS_REASON_BUG) |
		      BIT(BTS_REASON_WARN));
	fake.recorded = 2;
	preempt_disable();
	fault_freeze(BTS_REASON_OOPS);
	fault_freeze(BTS_REASON_BUG);
	bts_fault_warn_done();
	preempt_enable();
	KUNIT_EXPECT_EQ(test, bts_capture_lost(), 1);
}

static void capture_trap_that_never_ended_is_dropped_and_counted(struct kunit *test)
{
	struct pt_regs trap = { .sp = 0x8000 }, nested = { .sp = 0x7000 };
	enum bts_reason reason;
	bool pending;
	int cpu;

	capture_start(test, BIT(BTS_REASON_OOPS) | BIT(BTS_REASON_BUG));
	fake.recorded = 2;
	preempt_disable();
	bts_fault_freeze(BTS_REASON_BUG, &trap);
	/* a WARN while handling the first: nested, deeper on the stack */
	bts_fault_freeze(BTS_REASON_BUG, &nested);
	KUNIT_EXPECT_EQ(test, bts_capture_dropped(), 0);
	KUNIT_ASSERT_TRUE(test, bts_capture_status(&cpu, &reason, &pending));
	KUNIT_EXPECT_TRUE(test, pending);
	/* a debugger took the first trap and returned; the code traps again */
	bts_fault_freeze(BTS_REASON_BUG, &trap);
	preempt_enable();
	KUNIT_EXPECT_EQ(test, bts_capture_dropped(), 1);
	KUNIT_ASSERT_TRUE(test, bts_capture_status(&cpu, &reason, &pending));
	KUNIT_EXPECT_TRUE(test, pending);
	fault_freeze(BTS_REASON_OOPS);		/* and this one is an oops */
	KUNIT_EXPECT_EQ(test, emitted, 1);
	KUNIT_ASSERT_TRUE(test, bts_capture_status(&cpu, &reason, &pending));
	KUNIT_EXPECT_FALSE(test, pending);
	KUNIT_EXPECT_EQ(test, bts_capture_clear(), 0);
	KUNIT_EXPECT_EQ(test, bts_capture_dropped(), 0);
}

static void capture_of_empty_source_is_valid_and_empty(struct kunit *test)
{
	const struct bts_record *recs;
	struct bts_snapshot snap;
	int cpu;

	capture_start(test, BIT(BTS_REASON_OOPS));
	preempt_disable();
	cpu = smp_processor_id();
	fault_freeze(BTS_REASON_OOPS);
	preempt_enable();
	KUNIT_ASSERT_TRUE(test, bts_capture_get(cpu, &recs, &snap));
	KUNIT_EXPECT_EQ(test, snap.count, 0);
	KUNIT_EXPECT_EQ(test, snap.window, BTS_WINDOW_EMPTY);
	KUNIT_EXPECT_EQ(test, snap.fault_index, U32_MAX);
}

static void capture_disabled_reason_is_ignored(struct kunit *test)
{
	enum bts_reason reason;
	bool pending;
	int cpu;

	capture_start(test, BIT(BTS_REASON_PANIC));
	fake.recorded = 2;
	fault_freeze(BTS_REASON_OOPS);
	KUNIT_EXPECT_EQ(test, emitted, 0);
	KUNIT_EXPECT_EQ(test, fake_frozen_cpus(), 0);
	KUNIT_EXPECT_FALSE(test, bts_capture_status(&cpu, &reason, &pending));
}

static void capture_reaches_other_cpus_through_nmi(struct kunit *test)
{
	const struct bts_record *recs;
	struct bts_snapshot snap;
	int cpu, other = -1, c;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");
	capture_start(test, BIT(BTS_REASON_OOPS));
	fake.recorded = 7;
	preempt_disable();
	cpu = smp_processor_id();
	for_each_online_cpu(c)
		if (c != cpu)
			other = c;
	fault_freeze(BTS_REASON_OOPS);
	preempt_enable();
	KUNIT_ASSERT_TRUE(test, bts_capture_get(other, &recs, &snap));
	KUNIT_EXPECT_EQ(test, snap.cpu, other);
	KUNIT_EXPECT_EQ(test, snap.count, 7);
	/* each CPU wrote its own history, from itself, in the NMI */
	KUNIT_EXPECT_EQ(test, emitted, 1);
	KUNIT_EXPECT_EQ(test, nmi_emitted, num_online_cpus() - 1);
}

/*
 * A fault inside the capture (the emit faults, and its oops never
 * returns to the capture that was interrupted): right after the nested
 * fault's hook, the capture must already be readable and clearable, not
 * left being taken forever.
 */
static struct {
	bool faulted, held, pending;
	u64 lost;
} nested;

static void emit_that_faults(unsigned int cpu, const struct bts_record *recs,
			     const struct bts_snapshot *snap)
{
	enum bts_reason reason;
	int owner;

	if (in_nmi() || nested.faulted)
		return;
	nested.faulted = true;
	bts_fault_freeze(BTS_REASON_OOPS, NULL);	/* the emit oopses */
	nested.held = bts_capture_status(&owner, &reason, &nested.pending);
	nested.lost = bts_capture_lost();
}

static void capture_fault_in_the_emit_leaves_it_held(struct kunit *test)
{
	enum bts_reason reason;
	bool pending;
	int cpu;

	memset(&nested, 0, sizeof(nested));
	capture_start_emit(test, BIT(BTS_REASON_OOPS), emit_that_faults);
	fake.recorded = 3;
	fault_freeze(BTS_REASON_OOPS);
	KUNIT_ASSERT_TRUE(test, nested.faulted);
	KUNIT_EXPECT_TRUE(test, nested.held);
	KUNIT_EXPECT_FALSE(test, nested.pending);
	KUNIT_EXPECT_EQ(test, nested.lost, 1);
	KUNIT_EXPECT_TRUE(test, bts_capture_status(&cpu, &reason, &pending));
	KUNIT_EXPECT_EQ(test, bts_capture_clear(), 0);
	KUNIT_EXPECT_FALSE(test, bts_capture_status(&cpu, &reason, &pending));
	KUNIT_EXPECT_EQ(test, fake_frozen_cpus(), 0);
}

/*
 * A fault while the capture is being cleared (here: on the held CPU, in
 * the middle of the clear's thaw there, after its slot was dropped) is
 * kept after the clear: captures never block each other, a clear
 * included. It does not become the kept capture, which the clear holds.
 */
static struct {
	enum bts_reason reason;
	int cpu, first;
	enum bts_reason first_reason;
} thawf;

static void fault_in_thaw(void)
{
	thawf.cpu = raw_smp_processor_id();
	bts_fault_freeze(thawf.reason, NULL);
}

static void capture_fault_during_the_clear_is_kept(struct kunit *test)
{
	const struct bts_record *recs;
	struct bts_snapshot snap;
	enum bts_reason reason;
	bool pending;
	int cpu;

	memset(&thawf, 0, sizeof(thawf));
	thawf.reason = BTS_REASON_OOPS;
	capture_start(test, BIT(BTS_REASON_OOPS));
	fake.recorded = 2;
	fault_freeze(BTS_REASON_OOPS);
	KUNIT_ASSERT_EQ(test, fake_frozen_cpus(), 1);
	fake.recorded = 4;
	fake.nmi_in_thaw = fault_in_thaw;
	KUNIT_EXPECT_EQ(test, bts_capture_clear(), 0);
	KUNIT_EXPECT_NULL(test, fake.nmi_in_thaw);	/* it did run */
	KUNIT_EXPECT_EQ(test, emitted, 2);
	KUNIT_EXPECT_EQ(test, bts_capture_lost(), 0);
	KUNIT_EXPECT_FALSE(test, bts_capture_status(&cpu, &reason, &pending));
	KUNIT_EXPECT_EQ(test, bts_capture_fault(thawf.cpu, &reason),
			BTS_FAULT_KEPT);
	KUNIT_ASSERT_TRUE(test, bts_capture_get(thawf.cpu, &recs, &snap));
	KUNIT_EXPECT_EQ(test, snap.count, 4);
	/*
	 * Whether the CPU stays frozen is not asked: this fake NMI returns
	 * into the thaw, which completes; a real oops in NMI panics.
	 */
	KUNIT_EXPECT_EQ(test, bts_capture_clear(), 0);
	KUNIT_EXPECT_EQ(test, fake_frozen_cpus(), 0);
}

/* A panic in the same place: it is the panic's history, persisted first. */
static void capture_panic_during_the_clear_is_the_panics(struct kunit *test)
{
	const struct bts_record *recs;
	struct bts_snapshot snap;
	enum bts_reason reason;

	memset(&thawf, 0, sizeof(thawf));
	thawf.reason = BTS_REASON_PANIC;
	capture_start(test, BIT(BTS_REASON_OOPS) | BIT(BTS_REASON_PANIC));
	fake.recorded = 2;
	fault_freeze(BTS_REASON_OOPS);
	fake.recorded = 5;
	fake.nmi_in_thaw = fault_in_thaw;
	KUNIT_EXPECT_EQ(test, bts_capture_clear(), 0);
	KUNIT_EXPECT_NULL(test, fake.nmi_in_thaw);	/* it did run */
	KUNIT_EXPECT_EQ(test, bts_capture_lost(), 0);
	KUNIT_EXPECT_EQ(test, bts_capture_first(&reason), thawf.cpu);
	KUNIT_EXPECT_EQ(test, reason, BTS_REASON_PANIC);
	KUNIT_ASSERT_TRUE(test, bts_capture_get(thawf.cpu, &recs, &snap));
	KUNIT_EXPECT_EQ(test, snap.reason, BTS_REASON_PANIC);
	KUNIT_EXPECT_EQ(test, snap.count, 5);
}

/*
 * A capture NMI that arrives after the capture stopped waiting for it (the
 * CPU had NMIs blocked: here it is held inside another NMI) is claimed,
 * not reported as an unknown NMI ("Uhhuh. NMI received for unknown
 * reason", or a panic with unknown_nmi_panic); and that CPU's history is
 * not part of the capture.
 */
static struct {
	int cpu;
	atomic_t request, holding, release, after, unknown;
} late;

static int late_hold_nmi(unsigned int cmd, struct pt_regs *regs)
{
	int i;

	if (smp_processor_id() != READ_ONCE(late.cpu))
		return NMI_DONE;
	if (atomic_xchg(&late.request, 0) != 1) {
		/* not ours: after the release, the late capture NMI */
		if (atomic_read(&late.release))
			atomic_inc(&late.after);
		return NMI_DONE;
	}
	atomic_set(&late.holding, 1);
	for (i = 0; i < USEC_PER_SEC && !atomic_read(&late.release); i++)
		udelay(1);
	return NMI_HANDLED;
}

static int late_unknown_nmi(unsigned int cmd, struct pt_regs *regs)
{
	if (smp_processor_id() != READ_ONCE(late.cpu))
		return NMI_DONE;
	atomic_inc(&late.unknown);
	return NMI_HANDLED;	/* counted here instead of "Uhhuh" */
}

static void capture_late_nmi_is_claimed(struct kunit *test)
{
	const struct bts_record *recs;
	struct bts_snapshot snap;
	int self, i;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");
	memset(&late, 0, sizeof(late));
	capture_start(test, BIT(BTS_REASON_OOPS));
	fake.recorded = 5;
	KUNIT_ASSERT_EQ(test, register_nmi_handler(NMI_LOCAL, late_hold_nmi, 0,
						   "bts_kunit_hold"), 0);
	KUNIT_ASSERT_EQ(test, register_nmi_handler(NMI_UNKNOWN, late_unknown_nmi,
						   0, "bts_kunit_unknown"), 0);
	preempt_disable();
	self = smp_processor_id();
	late.cpu = cpumask_any_but(cpu_online_mask, self);
	/* hold the other CPU inside an NMI: NMIs are blocked there */
	atomic_set(&late.request, 1);
	__apic_send_IPI(late.cpu, NMI_VECTOR);
	for (i = 0; i < 1000 && !atomic_read(&late.holding); i++)
		mdelay(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&late.holding), 1);
	fault_freeze(BTS_REASON_OOPS);	/* its capture NMI waits, in vain */
	atomic_set(&late.release, 1);
	/* the capture NMI is taken now, after the capture gave up on it */
	for (i = 0; i < 1000 && !atomic_read(&late.after); i++)
		mdelay(1);
	mdelay(10);
	preempt_enable();
	unregister_nmi_handler(NMI_UNKNOWN, "bts_kunit_unknown");
	unregister_nmi_handler(NMI_LOCAL, "bts_kunit_hold");
	KUNIT_EXPECT_GE(test, atomic_read(&late.after), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&late.unknown), 0);
	KUNIT_EXPECT_FALSE(test, bts_capture_get(late.cpu, &recs, &snap));
	KUNIT_EXPECT_TRUE(test, bts_capture_get(self, &recs, &snap));
	KUNIT_EXPECT_FALSE(test, per_cpu(fake_frozen, late.cpu));
}

/*
 * Unknown NMIs on the other CPUs: an NMI no handler claims, which the
 * kernel reports ("Uhhuh. NMI received for unknown reason") or panics on
 * (unknown_nmi_panic). A capture's NMI must always find bts's handler.
 */
static struct {
	atomic_t unknown, foreign, request;
} stray;

static int stray_unknown_nmi(unsigned int cmd, struct pt_regs *regs)
{
	atomic_inc(&stray.unknown);
	return NMI_HANDLED;	/* counted here instead of "Uhhuh" */
}

/* Sees the NMI the test sends itself, and lets it go unclaimed. */
static int stray_foreign_nmi(unsigned int cmd, struct pt_regs *regs)
{
	if (atomic_xchg(&stray.request, 0) == 1)
		atomic_inc(&stray.foreign);
	return NMI_DONE;
}

static void stray_start(struct kunit *test)
{
	memset(&stray, 0, sizeof(stray));
	KUNIT_ASSERT_EQ(test, register_nmi_handler(NMI_UNKNOWN, stray_unknown_nmi,
						   0, "bts_kunit_stray"), 0);
}

static void stray_stop(void)
{
	mdelay(20);	/* whatever NMI was sent has been taken */
	unregister_nmi_handler(NMI_UNKNOWN, "bts_kunit_stray");
}

/* A re-arm (which disables capture) lands as a fault is being entered. */
static void stray_disable_capture(void)
{
	bts_capture_disable();
}

static void capture_disabled_as_a_fault_enters_sends_no_nmi(struct kunit *test)
{
	enum bts_reason reason;
	bool pending;
	int cpu;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");
	capture_start(test, BIT(BTS_REASON_OOPS));
	fake.recorded = 5;
	stray_start(test);
	bts_kunit_fault_entry = stray_disable_capture;
	/* IRQs on, preemptible: as a fault's hook is until it turns them off */
	bts_fault_freeze(BTS_REASON_OOPS, NULL);
	stray_stop();
	KUNIT_EXPECT_TRUE(test, !bts_kunit_fault_entry);
	KUNIT_EXPECT_EQ(test, atomic_read(&stray.unknown), 0);
	KUNIT_EXPECT_FALSE(test, bts_capture_status(&cpu, &reason, &pending));
}

/*
 * An NMI of someone else's (here one that nobody claims) reaches the
 * other CPU after the capture counted its NMI and before that NMI is
 * sent: the capture's NMI, which comes right after, is still claimed.
 */
static int stray_target;

static void stray_send_foreign_nmi(void)
{
	int i;

	atomic_set(&stray.request, 1);
	__apic_send_IPI(stray_target, NMI_VECTOR);
	for (i = 0; i < 10000 && !atomic_read(&stray.foreign); i++)
		udelay(1);
}

static void capture_nmi_after_a_foreign_nmi_is_claimed(struct kunit *test)
{
	const struct bts_record *recs;
	struct bts_snapshot snap;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");
	capture_start(test, BIT(BTS_REASON_OOPS));
	fake.recorded = 5;
	stray_start(test);
	KUNIT_ASSERT_EQ(test, register_nmi_handler(NMI_LOCAL, stray_foreign_nmi,
						   0, "bts_kunit_foreign"), 0);
	preempt_disable();
	stray_target = cpumask_any_but(cpu_online_mask, smp_processor_id());
	bts_kunit_before_capture_nmi = stray_send_foreign_nmi;
	fault_freeze(BTS_REASON_OOPS);
	preempt_enable();
	stray_stop();
	unregister_nmi_handler(NMI_LOCAL, "bts_kunit_foreign");
	KUNIT_EXPECT_EQ(test, atomic_read(&stray.foreign), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&stray.unknown), 0);
	/* the other CPU's history was taken, at one NMI or the other */
	KUNIT_EXPECT_TRUE(test, bts_capture_get(stray_target, &recs, &snap));
}

/*
 * A bts_dump trigger in NMI context (a trigger on nmi:nmi_handler fires
 * after each handler of every NMI) writes no entry in the NMI: an
 * irq_work writes one dump per CPU once interrupts are on, and a second
 * trigger before that is skipped and counted. Here two triggers fire in
 * one NMI, sent to this CPU with interrupts off.
 */
static struct {
	struct trace_array *tr;
	int cpu;
	atomic_t ran;
} nmitrig;

static int trigger_in_nmi(unsigned int cmd, struct pt_regs *regs)
{
	if (smp_processor_id() != READ_ONCE(nmitrig.cpu) ||
	    atomic_read(&nmitrig.ran))
		return NMI_DONE;
	bts_trigger_dump(nmitrig.tr);
	bts_trigger_dump(nmitrig.tr);
	atomic_set(&nmitrig.ran, 1);
	return NMI_HANDLED;
}

static void trigger_dump_in_nmi_is_written_after_it(struct kunit *test)
{
	unsigned long before, in_nmi, after;
	struct trace_buffer *buf;
	long dumps, skipped;
	int i;

	nmitrig.tr = trace_array_get_by_name("bts_kunit_nmi", NULL);
	KUNIT_ASSERT_NOT_NULL(test, nmitrig.tr);
	buf = nmitrig.tr->array_buffer.buffer;
	KUNIT_ASSERT_EQ(test, bts_arm(&fake_source, 0), 0);
	fake.recorded = 5;
	KUNIT_ASSERT_EQ(test, bts_trigger_get(), 0);
	atomic_set(&nmitrig.ran, 0);
	KUNIT_ASSERT_EQ(test, register_nmi_handler(NMI_LOCAL, trigger_in_nmi, 0,
						   "bts_kunit_trigger"), 0);
	local_irq_disable();
	nmitrig.cpu = smp_processor_id();
	before = ring_buffer_entries(buf);
	__apic_send_IPI(nmitrig.cpu, NMI_VECTOR);
	for (i = 0; i < 1000000 && !atomic_read(&nmitrig.ran); i++)
		udelay(1);
	in_nmi = ring_buffer_entries(buf) - before;
	local_irq_enable();
	/* the irq_work: one history entry and its 5 records */
	for (i = 0; i < 1000 && ring_buffer_entries(buf) - before < 6; i++)
		mdelay(1);
	mdelay(10);
	after = ring_buffer_entries(buf) - before;
	bts_trigger_nmi_counts(nmitrig.cpu, &dumps, &skipped);
	unregister_nmi_handler(NMI_LOCAL, "bts_kunit_trigger");
	bts_trigger_put();
	trace_array_put(nmitrig.tr);
	trace_array_destroy(nmitrig.tr);
	KUNIT_EXPECT_EQ(test, atomic_read(&nmitrig.ran), 1);
	KUNIT_EXPECT_EQ(test, in_nmi, 0);
	KUNIT_EXPECT_EQ(test, after, 6);
	KUNIT_EXPECT_EQ(test, dumps, 1);
	KUNIT_EXPECT_EQ(test, skipped, 1);
}

/*
 * Captures never block each other: a fault on one
 * CPU is captured on that CPU whatever another CPU is doing.
 */
static void fault_on_ipi(void *info)
{
	bts_fault_freeze((enum bts_reason)(unsigned long)info, NULL);
}

static void pin_to_first_cpu(struct kunit *test)
{
	const struct cpumask *first = cpumask_of(cpumask_first(cpu_online_mask));

	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, first), 0);
}

/* @reason on another online CPU than this (pinned) one; -1 if none */
static int fault_on_other_cpu(enum bts_reason reason)
{
	int other = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());

	if (other >= nr_cpu_ids)
		return -1;
	smp_call_function_single(other, fault_on_ipi,
				 (void *)(unsigned long)reason, 1);
	return other;
}

static void capture_oops_while_another_cpu_traps_is_kept(struct kunit *test)
{
	const struct bts_record *recs;
	struct bts_snapshot snap;
	int self, other;

	capture_start(test, BIT(BTS_REASON_OOPS) | BIT(BTS_REASON_BUG));
	fake.recorded = 6;
	/* this task is inside report_bug(): its trap is pending */
	pin_to_first_cpu(test);
	self = raw_smp_processor_id();
	bts_fault_freeze(BTS_REASON_BUG, NULL);
	other = fault_on_other_cpu(BTS_REASON_OOPS);
	bts_fault_warn_done();		/* it was a WARN: dropped */
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	if (other < 0)
		kunit_skip(test, "needs two online CPUs");
	KUNIT_EXPECT_EQ(test, bts_capture_lost(), 0);
	KUNIT_ASSERT_TRUE(test, bts_capture_get(other, &recs, &snap));
	KUNIT_EXPECT_EQ(test, snap.reason, BTS_REASON_OOPS);
	KUNIT_EXPECT_EQ(test, snap.count, 6);
	KUNIT_EXPECT_TRUE(test, per_cpu(fake_frozen, other));
	KUNIT_EXPECT_FALSE(test, per_cpu(fake_frozen, self));
	KUNIT_EXPECT_EQ(test, bts_capture_clear(), 0);
	KUNIT_EXPECT_EQ(test, fake_frozen_cpus(), 0);
}

static void capture_panic_meeting_another_cpus_trap_is_the_panics(struct kunit *test)
{
	const struct bts_record *recs;
	struct bts_snapshot snap;
	enum bts_reason reason;
	bool pending;
	int cpu, other;

	capture_start(test, BIT(BTS_REASON_OOPS) | BIT(BTS_REASON_BUG) |
		      BIT(BTS_REASON_PANIC));
	fake.recorded = 4;
	pin_to_first_cpu(test);
	bts_fault_freeze(BTS_REASON_BUG, NULL);	/* a WARN in report_bug() */
	other = fault_on_other_cpu(BTS_REASON_PANIC);
	bts_fault_warn_done();
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	if (other < 0)
		kunit_skip(test, "needs two online CPUs");
	/* what a panic persists and indexes: the panicking CPU's history */
	KUNIT_ASSERT_TRUE(test, bts_capture_status(&cpu, &reason, &pending));
	KUNIT_EXPECT_EQ(test, cpu, other);
	KUNIT_EXPECT_EQ(test, reason, BTS_REASON_PANIC);
	KUNIT_EXPECT_FALSE(test, pending);
	KUNIT_ASSERT_TRUE(test, bts_capture_get(other, &recs, &snap));
	KUNIT_EXPECT_EQ(test, snap.reason, BTS_REASON_PANIC);
}

/* A panic on a CPU that answers another CPU's capture NMI (BUSY). */
static struct {
	int cpu;
	bool ran;
} busy;

static void emit_then_panic(unsigned int cpu, const struct bts_record *recs,
			    const struct bts_snapshot *snap)
{
	count_emit(cpu, recs, snap);
	if (!in_nmi() || busy.ran)
		return;
	busy.ran = true;
	busy.cpu = raw_smp_processor_id();
	bts_fault_freeze(BTS_REASON_PANIC, NULL);
}

static void capture_panic_while_another_cpu_captures_is_kept(struct kunit *test)
{
	const struct bts_record *recs;
	struct bts_snapshot snap;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");
	memset(&busy, 0, sizeof(busy));
	capture_start_emit(test, BIT(BTS_REASON_OOPS) | BIT(BTS_REASON_PANIC),
			   emit_then_panic);
	fake.recorded = 5;
	fault_freeze(BTS_REASON_OOPS);
	KUNIT_ASSERT_TRUE(test, busy.ran);
	KUNIT_EXPECT_EQ(test, bts_capture_lost(), 0);
	KUNIT_ASSERT_TRUE(test, bts_capture_get(busy.cpu, &recs, &snap));
	KUNIT_EXPECT_EQ(test, snap.reason, BTS_REASON_PANIC);
	/* the panicking CPU stays frozen, as a panic's does */
	KUNIT_EXPECT_TRUE(test, per_cpu(fake_frozen, busy.cpu));
}

/*
 * A panic (in NMI) that interrupts its own CPU's capture, here in the
 * middle of its freeze: the interrupted capture never resumes, so the
 * panic takes the slot over and its history is the one written first.
 */
static struct {
	int first;
	enum bts_reason reason;
} inner;

static void panic_in_freeze(void)
{
	bts_fault_freeze(BTS_REASON_PANIC, NULL);
	inner.first = bts_capture_first(&inner.reason);
}

static void capture_panic_inside_its_cpus_capture_is_the_panics(struct kunit *test)
{
	int cpu;

	memset(&inner, 0, sizeof(inner));
	capture_start(test, BIT(BTS_REASON_OOPS) | BIT(BTS_REASON_PANIC));
	fake.recorded = 3;
	fake.nmi_in_freeze = panic_in_freeze;
	preempt_disable();
	cpu = smp_processor_id();
	fault_freeze(BTS_REASON_OOPS);
	preempt_enable();
	KUNIT_EXPECT_NULL(test, fake.nmi_in_freeze);	/* it did run */
	KUNIT_EXPECT_EQ(test, inner.first, cpu);
	KUNIT_EXPECT_EQ(test, inner.reason, BTS_REASON_PANIC);
	KUNIT_EXPECT_EQ(test, bts_capture_lost(), 0);
}

/*
 * A panic on a CPU whose slot another task's fault owns: the panic never
 * takes it (nor waits for it). Its history is that fault's when the CPU
 * is held frozen for it (it has recorded nothing since), else its own,
 * in the panic buffer; that is what the persist and kdump writers write
 * first.
 */
static long fault_in_worker(void *reason)
{
	fault_freeze((enum bts_reason)(unsigned long)reason);
	return 0;
}

/*
 * A worker takes a fault for @first on this CPU, then this task panics
 * here. Return: that CPU, its capture in @recs and @snap.
 */
static int panic_after_a_worker(struct kunit *test, enum bts_reason first,
				const struct bts_record **recs,
				struct bts_snapshot *snap)
{
	enum bts_reason reason;
	int cpu;

	capture_start(test, BIT(BTS_REASON_OOPS) | BIT(BTS_REASON_BUG) |
		      BIT(BTS_REASON_PANIC));
	fake.recorded = 3;
	pin_to_first_cpu(test);
	cpu = raw_smp_processor_id();
	work_on_cpu(cpu, fault_in_worker, (void *)(unsigned long)first);
	fake.recorded = 8;
	fault_freeze(BTS_REASON_PANIC);
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	KUNIT_EXPECT_EQ(test, bts_capture_lost(), 0);
	KUNIT_EXPECT_EQ(test, bts_capture_dropped(), 0);
	KUNIT_EXPECT_EQ(test, bts_capture_first(&reason), cpu);
	KUNIT_EXPECT_TRUE(test, bts_capture_get(cpu, recs, snap));
	KUNIT_EXPECT_EQ(test, snap->reason, reason);
	KUNIT_EXPECT_TRUE(test, per_cpu(fake_frozen, cpu));
	return cpu;
}

static void capture_panic_on_a_cpu_held_for_an_oops_is_the_oops(struct kunit *test)
{
	const struct bts_record *recs;
	struct bts_snapshot snap = {};

	panic_after_a_worker(test, BTS_REASON_OOPS, &recs, &snap);
	KUNIT_EXPECT_EQ(test, snap.reason, BTS_REASON_OOPS);
	KUNIT_EXPECT_EQ(test, snap.count, 3);
}

static void capture_panic_beside_another_tasks_trap_keeps_both(struct kunit *test)
{
	const struct bts_record *recs;
	struct bts_snapshot snap = {};
	enum bts_reason reason;
	bool pending;
	int cpu;

	/* the worker's trap stays pending (none dropped): both are kept */
	cpu = panic_after_a_worker(test, BTS_REASON_BUG, &recs, &snap);
	KUNIT_EXPECT_EQ(test, snap.reason, BTS_REASON_PANIC);
	KUNIT_EXPECT_EQ(test, snap.count, 8);
	KUNIT_ASSERT_TRUE(test, bts_capture_status(&cpu, &reason, &pending));
	KUNIT_EXPECT_EQ(test, reason, BTS_REASON_PANIC);
}

/*
 * Two CPUs whose slots other tasks' traps own both panic (bts sees every
 * panic() caller before panic() lets one through): the first has the one
 * panic buffer, the second is counted as lost, and neither waits.
 */
static void capture_second_panic_needing_the_buffer_is_counted(struct kunit *test)
{
	const struct bts_record *recs;
	struct bts_snapshot snap = {};
	enum bts_reason reason;
	int a, b;

	a = cpumask_first(cpu_online_mask);
	b = cpumask_next(a, cpu_online_mask);
	if (b >= nr_cpu_ids)
		kunit_skip(test, "needs two online CPUs");
	capture_start(test, BIT(BTS_REASON_OOPS) | BIT(BTS_REASON_BUG) |
		      BIT(BTS_REASON_PANIC));
	fake.recorded = 3;
	work_on_cpu(a, fault_in_worker, (void *)(unsigned long)BTS_REASON_BUG);
	work_on_cpu(b, fault_in_worker, (void *)(unsigned long)BTS_REASON_BUG);
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(a)), 0);
	fake.recorded = 8;
	fault_freeze(BTS_REASON_PANIC);
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(b)), 0);
	fake.recorded = 5;
	fault_freeze(BTS_REASON_PANIC);
	set_cpus_allowed_ptr(current, cpu_possible_mask);

	KUNIT_EXPECT_EQ(test, bts_capture_lost(), 1);
	KUNIT_EXPECT_EQ(test, bts_capture_dropped(), 0);
	KUNIT_EXPECT_EQ(test, bts_capture_first(&reason), a);
	KUNIT_EXPECT_EQ(test, reason, BTS_REASON_PANIC);
	KUNIT_ASSERT_TRUE(test, bts_capture_get(a, &recs, &snap));
	KUNIT_EXPECT_EQ(test, snap.reason, BTS_REASON_PANIC);
	KUNIT_EXPECT_EQ(test, snap.count, 8);
	/* CPU b's slot is still its trap's: the second panic took nothing */
	KUNIT_EXPECT_EQ(test, bts_capture_fault(b, &reason), BTS_FAULT_PENDING);
	KUNIT_EXPECT_EQ(test, reason, BTS_REASON_BUG);
}

/* A WARN kept on this CPU, then a panic of the same task: its own. */
static void capture_panic_after_its_own_warn_is_its_own(struct kunit *test)
{
	const struct bts_record *recs;
	struct bts_snapshot snap;
	enum bts_reason reason;
	int cpu;

	capture_start(test, BIT(BTS_REASON_OOPS) | BIT(BTS_REASON_BUG) |
		      BIT(BTS_REASON_WARN) | BIT(BTS_REASON_PANIC));
	fake.recorded = 3;
	preempt_disable();
	cpu = smp_processor_id();
	fault_freeze(BTS_REASON_BUG);
	bts_fault_warn_done();		/* kept, as capture on WARN does */
	fake.recorded = 6;
	fault_freeze(BTS_REASON_PANIC);
	preempt_enable();
	KUNIT_EXPECT_EQ(test, bts_capture_first(&reason), cpu);
	KUNIT_EXPECT_EQ(test, reason, BTS_REASON_PANIC);
	KUNIT_ASSERT_TRUE(test, bts_capture_get(cpu, &recs, &snap));
	KUNIT_EXPECT_EQ(test, snap.count, 6);
	KUNIT_EXPECT_EQ(test, bts_capture_lost(), 0);
}

/*
 * An oops wins over a WARN: a WARN kept on this CPU, then an oops on it.
 * The oops takes the CPU's slot and the kept capture, and the other CPUs
 * are copied again at the oops; nothing is counted as lost.
 */
static void capture_oops_after_a_kept_warn_takes_its_place(struct kunit *test)
{
	const struct bts_record *recs;
	struct bts_snapshot snap;
	enum bts_reason reason;
	bool pending;
	int cpu, self;

	capture_start(test, BIT(BTS_REASON_OOPS) | BIT(BTS_REASON_BUG) |
		      BIT(BTS_REASON_WARN));
	fake.recorded = 3;
	preempt_disable();
	self = smp_processor_id();
	fault_freeze(BTS_REASON_BUG);
	bts_fault_warn_done();		/* kept, as capture on WARN does */
	fake.recorded = 6;
	fault_freeze(BTS_REASON_OOPS);
	preempt_enable();
	KUNIT_EXPECT_EQ(test, bts_capture_lost(), 0);
	KUNIT_EXPECT_EQ(test, emitted, 2);
	KUNIT_EXPECT_EQ(test, nmi_emitted, 2 * (num_online_cpus() - 1));
	KUNIT_ASSERT_TRUE(test, bts_capture_status(&cpu, &reason, &pending));
	KUNIT_EXPECT_FALSE(test, pending);
	KUNIT_EXPECT_EQ(test, cpu, self);
	KUNIT_EXPECT_EQ(test, reason, BTS_REASON_OOPS);
	KUNIT_EXPECT_EQ(test, bts_capture_fault(self, &reason), BTS_FAULT_KEPT);
	KUNIT_EXPECT_EQ(test, reason, BTS_REASON_OOPS);
	KUNIT_ASSERT_TRUE(test, bts_capture_get(self, &recs, &snap));
	KUNIT_EXPECT_EQ(test, snap.count, 6);
}

/* A WARN kept on another CPU, then an oops here: the oops is the kept one. */
static void capture_oops_after_another_cpus_warn_is_the_kept_one(struct kunit *test)
{
	enum bts_reason reason;
	bool pending;
	int cpu, self, other;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");
	capture_start(test, BIT(BTS_REASON_OOPS) | BIT(BTS_REASON_BUG) |
		      BIT(BTS_REASON_WARN));
	fake.recorded = 3;
	pin_to_first_cpu(test);
	self = raw_smp_processor_id();
	other = cpumask_any_but(cpu_online_mask, self);
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(other)), 0);
	preempt_disable();
	fault_freeze(BTS_REASON_BUG);
	bts_fault_warn_done();
	preempt_enable();
	pin_to_first_cpu(test);
	KUNIT_ASSERT_TRUE(test, bts_capture_status(&cpu, &reason, &pending));
	KUNIT_EXPECT_EQ(test, cpu, other);
	KUNIT_EXPECT_EQ(test, reason, BTS_REASON_WARN);
	fault_freeze(BTS_REASON_OOPS);
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	KUNIT_EXPECT_EQ(test, bts_capture_lost(), 0);
	KUNIT_ASSERT_TRUE(test, bts_capture_status(&cpu, &reason, &pending));
	KUNIT_EXPECT_EQ(test, cpu, self);
	KUNIT_EXPECT_EQ(test, reason, BTS_REASON_OOPS);
	/* the other CPU still shows its own WARN */
	KUNIT_EXPECT_EQ(test, bts_capture_fault(other, &reason), BTS_FAULT_KEPT);
	KUNIT_EXPECT_EQ(test, reason, BTS_REASON_WARN);
}

static void oops_in_irq(struct irq_work *work)
{
	bts_fault_freeze(BTS_REASON_OOPS, NULL);
}

/*
 * A task traps for a WARN and reports it with IRQs on; an interrupt on
 * its CPU oopses meanwhile (a real interrupt: irq_work's self-IPI). The
 * oops takes the slot from the pending trap; the WARN then ends with
 * nothing of its own, and is not captured.
 */
static void capture_oops_in_an_interrupt_during_a_warn_is_kept(struct kunit *test)
{
	struct irq_work work = IRQ_WORK_INIT_HARD(oops_in_irq);
	const struct bts_record *recs;
	struct bts_snapshot snap;
	enum bts_reason reason;
	bool pending;
	int cpu, self;

	capture_start(test, BIT(BTS_REASON_OOPS) | BIT(BTS_REASON_BUG));
	fake.recorded = 3;
	preempt_disable();
	self = smp_processor_id();
	fault_freeze(BTS_REASON_BUG);		/* the WARN's trap */
	KUNIT_EXPECT_EQ(test, bts_capture_fault(self, &reason),
			BTS_FAULT_PENDING);
	fake.recorded = 5;
	irq_work_queue(&work);			/* IRQs on, as in report_bug() */
	while (irq_work_is_busy(&work))
		cpu_relax();
	bts_fault_warn_done();			/* the WARN ends */
	preempt_enable();
	KUNIT_EXPECT_EQ(test, bts_capture_lost(), 0);
	KUNIT_ASSERT_TRUE(test, bts_capture_status(&cpu, &reason, &pending));
	KUNIT_EXPECT_FALSE(test, pending);
	KUNIT_EXPECT_EQ(test, cpu, self);
	KUNIT_EXPECT_EQ(test, reason, BTS_REASON_OOPS);
	KUNIT_ASSERT_TRUE(test, bts_capture_get(self, &recs, &snap));
	KUNIT_EXPECT_EQ(test, snap.count, 5);
}

/* The same with capture on WARN: the WARN that lost its trap is counted. */
static void capture_warn_whose_trap_an_oops_took_is_counted(struct kunit *test)
{
	struct irq_work work = IRQ_WORK_INIT_HARD(oops_in_irq);
	enum bts_reason reason;
	int self;

	capture_start(test, BIT(BTS_REASON_OOPS) | BIT(BTS_REASON_BUG) |
		      BIT(BTS_REASON_WARN));
	fake.recorded = 3;
	preempt_disable();
	self = smp_processor_id();
	fault_freeze(BTS_REASON_BUG);
	irq_work_queue(&work);
	while (irq_work_is_busy(&work))
		cpu_relax();
	bts_fault_warn_done();
	preempt_enable();
	KUNIT_EXPECT_EQ(test, bts_capture_lost(), 1);
	KUNIT_EXPECT_EQ(test, bts_capture_fault(self, &reason), BTS_FAULT_KEPT);
	KUNIT_EXPECT_EQ(test, reason, BTS_REASON_OOPS);
}

/* An oops after a kept oops on the same CPU is still only counted. */
static void capture_oops_after_a_kept_bug_is_counted(struct kunit *test)
{
	const struct bts_record *recs;
	struct bts_snapshot snap;
	enum bts_reason reason;
	int self;

	capture_start(test, BIT(BTS_REASON_OOPS) | BIT(BTS_REASON_BUG) |
		      BIT(BTS_REASON_WARN));
	fake.recorded = 3;
	preempt_disable();
	self = smp_processor_id();
	fault_freeze(BTS_REASON_BUG);
	fault_freeze(BTS_REASON_OOPS);		/* the BUG's oops: kept */
	fake.recorded = 6;
	fault_freeze(BTS_REASON_OOPS);
	preempt_enable();
	KUNIT_EXPECT_EQ(test, bts_capture_lost(), 1);
	KUNIT_EXPECT_EQ(test, bts_capture_fault(self, &reason), BTS_FAULT_KEPT);
	KUNIT_EXPECT_EQ(test, reason, BTS_REASON_BUG);
	KUNIT_ASSERT_TRUE(test, bts_capture_get(self, &recs, &snap));
	KUNIT_EXPECT_EQ(test, snap.count, 3);
}

/*
 * A fault kept on a CPU that then went offline is dropped by a clear too,
 * from the clearing CPU in process context (no CPU number to take there:
 * DEBUG_PREEMPT would say so), and the CPU comes back recording.
 */
static void capture_clear_drops_an_offline_cpus_fault(struct kunit *test)
{
	enum bts_reason reason;
	int other;

	if (!IS_ENABLED(CONFIG_HOTPLUG_CPU) || num_online_cpus() < 2)
		kunit_skip(test, "needs CPU hotplug and two online CPUs");
	capture_start(test, BIT(BTS_REASON_OOPS));
	fake.recorded = 3;
	pin_to_first_cpu(test);
	other = fault_on_other_cpu(BTS_REASON_OOPS);
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	KUNIT_ASSERT_EQ(test, bts_capture_fault(other, &reason), BTS_FAULT_KEPT);
	KUNIT_ASSERT_EQ(test, remove_cpu(other), 0);
	KUNIT_EXPECT_EQ(test, bts_capture_clear(), 0);
	KUNIT_EXPECT_EQ(test, bts_capture_fault(other, &reason), BTS_FAULT_NONE);
	KUNIT_EXPECT_EQ(test, add_cpu(other), 0);
	KUNIT_EXPECT_FALSE(test, per_cpu(fake_frozen, other));
}

/* ---- the tracer's dump header --------------------------------------- */

static void header_describes_the_snapshot(struct kunit *test)
{
	struct bts_dump_header h;
	struct bts_snapshot snap = {
		.source = BTS_SOURCE_SW, .cpu = 1, .count = 3, .capacity = 2730,
		.window = BTS_WINDOW_WRAPPED, .reason = BTS_REASON_BUG,
		.fault_index = 2, .timestamp = 42,
	};

	BUILD_BUG_ON(sizeof(struct bts_dump_header) != 192);
	bts_fill_header(&h, &snap, 1, true, BTS_OPT_USER);
	KUNIT_EXPECT_EQ(test, memcmp(h.magic, "BTSDUMP", 8), 0);
	KUNIT_EXPECT_EQ(test, h.version, 1);
	KUNIT_EXPECT_EQ(test, h.header_size, 192);
	KUNIT_EXPECT_EQ(test, h.record_size, 24);
	KUNIT_EXPECT_EQ(test, h.source, BTS_SOURCE_SW);
	KUNIT_EXPECT_EQ(test, h.cpu, 1);
	KUNIT_EXPECT_EQ(test, h.count, 3);
	KUNIT_EXPECT_EQ(test, h.reason, BTS_REASON_BUG);
	KUNIT_EXPECT_EQ(test, h.fault_index, 2);
	/* user branches are a hardware-only thing */
	KUNIT_EXPECT_EQ(test, h.flags, BTS_DUMP_WRAPPED | BTS_DUMP_CAPTURE);
	KUNIT_EXPECT_EQ(test, h.stext, (u64)(unsigned long)_stext);
	KUNIT_EXPECT_EQ(test, h.etext, (u64)(unsigned long)_etext);
	/* the build ID of the running kernel, from its notes */
	KUNIT_EXPECT_EQ(test, h.build_id_size, BUILD_ID_SIZE_MAX);
	KUNIT_EXPECT_NOT_NULL(test, memchr_inv(h.build_id, 0, sizeof(h.build_id)));
	KUNIT_EXPECT_EQ(test, h.reserved, 0);
	KUNIT_EXPECT_STREQ(test, h.source_name, "sw");
}

static void capture_reasons_follow_the_options(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, bts_capture_reasons(0), 0);
	KUNIT_EXPECT_EQ(test, bts_capture_reasons(BTS_OPT_OOPS),
			BIT(BTS_REASON_OOPS) | BIT(BTS_REASON_BUG) |
			BIT(BTS_REASON_PANIC) | BIT(BTS_REASON_GPF));
	KUNIT_EXPECT_TRUE(test, bts_capture_reasons(BTS_OPT_WARN) &
			  BIT(BTS_REASON_WARN));
}

/* A debugger's reading of a BTS_LIVE_COUNT slot (include/uapi/linux/bts.h). */
static unsigned int live_count_read(const struct bts_live_slot *s,
				    struct bts_record *out, enum bts_window *w)
{
	const struct bts_record *recs = (const void *)(unsigned long)s->recs;
	u64 total = *(const u64 *)(unsigned long)s->head;
	u64 k = total > s->nr ? total - s->nr : 0;
	unsigned int n = 0;

	*w = !total ? BTS_WINDOW_EMPTY : total > s->nr ? BTS_WINDOW_WRAPPED :
							  BTS_WINDOW_PARTIAL;
	for (; k < total; k++)
		out[n++] = recs[k % s->nr];
	return n;
}

static void sw_live_slot_reads_as_the_ring(struct kunit *test)
{
	struct bts_sw_ring *ring = new_ring(test);
	struct bts_record a[RING_CAP], b[RING_CAP];
	struct bts_live_slot slot;
	enum bts_window wa, wb;
	unsigned int i, na, nb;

	bts_sw_ring_live(ring, &slot);
	KUNIT_EXPECT_EQ(test, slot.source, BTS_SOURCE_SW);
	KUNIT_EXPECT_EQ(test, slot.kind, BTS_LIVE_COUNT);
	KUNIT_EXPECT_EQ(test, slot.nr, RING_CAP);
	KUNIT_EXPECT_EQ(test, slot.flags, 0);
	for (i = 0; i < 3 * RING_CAP + 2; i++) {
		na = bts_sw_ring_read(ring, a, RING_CAP, &wa);
		nb = live_count_read(&slot, b, &wb);
		KUNIT_EXPECT_EQ_MSG(test, nb, na, "after %u records", i);
		KUNIT_EXPECT_EQ_MSG(test, wb, wa, "after %u records", i);
		if (na == nb)
			KUNIT_EXPECT_MEMEQ_MSG(test, b, a, na * sizeof(*a),
					       "after %u records", i);
		add_n(ring, i, 1);
	}
}

static struct kunit_case bts_sw_cases[] = {
	KUNIT_CASE(sw_empty_ring_reads_nothing),
	KUNIT_CASE(sw_partial_fill_is_complete_and_oldest_first),
	KUNIT_CASE(sw_wrapped_ring_returns_newest_in_order),
	KUNIT_CASE(sw_read_fewer_than_recorded_gives_the_newest),
	KUNIT_CASE(sw_frozen_ring_records_nothing),
	KUNIT_CASE(sw_call_site_reads_only_what_is_mapped),
	KUNIT_CASE(sw_live_slot_reads_as_the_ring),
	KUNIT_CASE_SLOW(sw_disarm_waits_for_hooks_in_flight),
	{}
};

static struct kunit_suite bts_sw_suite = {
	.name = "trace_bts_sw",
	.test_cases = bts_sw_cases,
};

/* An NMI in the middle of the filter's freeze or thaw reads frozen. */
static void core_filter_switch_interrupted_by_an_nmi(struct kunit *test)
{
	unsigned long flags;

	KUNIT_ASSERT_EQ(test, bts_arm(&fake_source, BTS_ARM_FILTER), 0);
	fake.recorded = 4;
	local_irq_save(flags);
	fake.nmi_in_thaw = fake_nmi_snapshot;
	bts_filter_this_cpu(true);
	KUNIT_EXPECT_NULL(test, fake.nmi_in_thaw);
	KUNIT_EXPECT_FALSE(test, this_cpu_read(fake_frozen));
	fake.nmi_in_freeze = fake_nmi_snapshot;
	bts_filter_this_cpu(false);
	KUNIT_EXPECT_NULL(test, fake.nmi_in_freeze);
	KUNIT_EXPECT_TRUE(test, this_cpu_read(fake_frozen));
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, fake.reads_unfrozen, 0);
}

/*
 * The debuggers' index: one slot per possible CPU; a publication moves
 * @seq on by two, and NULL clears everything else.
 */
static void core_live_table_indexes_every_cpu(struct kunit *test)
{
	struct bts_live_slot *slots, saved, mine = {
		.source = BTS_SOURCE_SW, .kind = BTS_LIVE_COUNT, .nr = 7,
		.flags = BTS_LIVE_CLEAR_USER, .recs = 1, .head = 2,
		.head_base = 3, .tail = 4, .drained = 5,
	};
	unsigned int cpu = nr_cpu_ids - 1;
	u32 seq;

	KUNIT_ASSERT_NOT_NULL(test, bts_live);
	KUNIT_EXPECT_MEMEQ(test, bts_live->magic, BTS_LIVE_MAGIC, 8);
	KUNIT_EXPECT_EQ(test, bts_live->version, BTS_LIVE_VERSION);
	KUNIT_EXPECT_EQ(test, bts_live->table_size, 32);
	KUNIT_EXPECT_EQ(test, bts_live->slot_size, 64);
	KUNIT_EXPECT_EQ(test, bts_live->nr_slots, nr_cpu_ids);
	slots = (struct bts_live_slot *)((u8 *)bts_live +
					 bts_live->table_size);
	saved = slots[cpu];
	seq = saved.seq;
	KUNIT_EXPECT_EQ(test, seq % 2, 0);
	bts_live_publish(cpu, &mine);
	KUNIT_EXPECT_EQ(test, slots[cpu].seq, seq + 2);
	mine.seq = seq + 2;
	KUNIT_EXPECT_MEMEQ(test, &slots[cpu], &mine, sizeof(mine));
	bts_live_publish(cpu, NULL);
	KUNIT_EXPECT_EQ(test, slots[cpu].seq, seq + 4);
	KUNIT_EXPECT_EQ(test, slots[cpu].source, 0);
	KUNIT_EXPECT_EQ(test, slots[cpu].recs, 0);
	KUNIT_EXPECT_EQ(test, slots[cpu].drained, 0);
	/* nothing beyond the table */
	bts_live_publish(nr_cpu_ids, &mine);
	/* as it was, if a source had published there */
	if (saved.source)
		bts_live_publish(cpu, &saved);
}

static struct kunit_case bts_core_cases[] = {
	KUNIT_CASE(core_registering_a_name_twice_fails),
	KUNIT_CASE(core_unavailable_source_is_not_armed),
	KUNIT_CASE(core_unavailable_source_says_its_errno),
	KUNIT_CASE(core_arm_failure_leaves_nothing_armed),
	KUNIT_CASE(core_second_arm_is_busy),
	KUNIT_CASE(core_snapshot_freezes_copies_and_thaws),
	KUNIT_CASE(core_nested_freezes_reach_the_source_once),
	KUNIT_CASE(core_snapshot_without_source_is_empty),
	KUNIT_CASE(core_nmi_in_the_middle_of_arm_or_disarm_finds_nothing),
	KUNIT_CASE(core_nmi_in_the_middle_of_a_freeze_reads_frozen),
	KUNIT_CASE(core_nmi_in_the_middle_of_a_thaw_leaves_it_recording),
	KUNIT_CASE(core_nmi_between_the_last_thaws_writes_leaves_no_stale_mark),
	KUNIT_CASE(core_snapshot_of_another_cpu_names_it),
	KUNIT_CASE(core_live_table_indexes_every_cpu),
	KUNIT_CASE(core_filter_arms_every_cpu_frozen_and_held),
	KUNIT_CASE(core_filter_reaches_the_source_only_on_change),
	KUNIT_CASE(core_filter_does_nothing_unless_armed_with_it),
	KUNIT_CASE(core_filter_nests_with_snapshots),
	KUNIT_CASE(core_filter_switch_interrupted_by_an_nmi),
	KUNIT_CASE(capture_oops_keeps_cpu_frozen_and_emits),
	KUNIT_CASE(capture_second_fault_is_counted_not_kept),
	KUNIT_CASE(capture_concurrent_faults_are_each_kept),
	KUNIT_CASE(capture_later_gpf_and_its_oops_count_once),
	KUNIT_CASE(capture_bug_waits_for_oops_to_emit),
	KUNIT_CASE(capture_warn_is_dropped_without_the_option),
	KUNIT_CASE(capture_warn_is_kept_with_the_option),
	KUNIT_CASE(capture_of_empty_source_is_valid_and_empty),
	KUNIT_CASE(capture_disabled_reason_is_ignored),
	KUNIT_CASE(capture_reaches_other_cpus_through_nmi),
	KUNIT_CASE(capture_warn_kept_when_the_task_moves_cpus),
	KUNIT_CASE(capture_warn_dropped_when_the_task_moves_cpus),
	KUNIT_CASE(capture_bug_emitted_when_its_oops_is_on_another_cpu),
	KUNIT_CASE(capture_bug_then_panic_emits_the_bug),
	KUNIT_CASE(capture_bug_with_only_the_warn_option_is_emitted),
	KUNIT_CASE(capture_warn_while_held_is_not_lost_without_the_option),
	KUNIT_CASE(capture_warn_while_held_is_lost_with_the_option),
	KUNIT_CASE(capture_trap_that_never_ended_is_dropped_and_counted),
	KUNIT_CASE(capture_fault_in_the_emit_leaves_it_held),
	KUNIT_CASE(capture_fault_during_the_clear_is_kept),
	KUNIT_CASE(capture_panic_during_the_clear_is_the_panics),
	KUNIT_CASE(capture_oops_while_another_cpu_traps_is_kept),
	KUNIT_CASE(capture_panic_meeting_another_cpus_trap_is_the_panics),
	KUNIT_CASE(capture_panic_while_another_cpu_captures_is_kept),
	KUNIT_CASE(capture_panic_inside_its_cpus_capture_is_the_panics),
	KUNIT_CASE(capture_panic_on_a_cpu_held_for_an_oops_is_the_oops),
	KUNIT_CASE(capture_panic_beside_another_tasks_trap_keeps_both),
	KUNIT_CASE(capture_second_panic_needing_the_buffer_is_counted),
	KUNIT_CASE(capture_panic_after_its_own_warn_is_its_own),
	KUNIT_CASE(capture_oops_after_a_kept_warn_takes_its_place),
	KUNIT_CASE(capture_oops_after_another_cpus_warn_is_the_kept_one),
	KUNIT_CASE(capture_oops_in_an_interrupt_during_a_warn_is_kept),
	KUNIT_CASE(capture_warn_whose_trap_an_oops_took_is_counted),
	KUNIT_CASE(capture_oops_after_a_kept_bug_is_counted),
	KUNIT_CASE_SLOW(capture_clear_drops_an_offline_cpus_fault),
	KUNIT_CASE_SLOW(capture_late_nmi_is_claimed),
	KUNIT_CASE(capture_disabled_as_a_fault_enters_sends_no_nmi),
	KUNIT_CASE(capture_nmi_after_a_foreign_nmi_is_claimed),
	KUNIT_CASE(trigger_dump_in_nmi_is_written_after_it),
	{}
};

static struct kunit_suite bts_core_suite = {
	.name = "trace_bts_core",
	.init = core_init,
	.exit = core_exit,
	.test_cases = bts_core_cases,
};

static struct kunit_case bts_tracer_cases[] = {
	KUNIT_CASE(fault_record_hw_is_newest_branch_to_an_exception_entry),
	KUNIT_CASE(fault_record_hw_interrupt_after_the_fault_is_not_it),
	KUNIT_CASE(fault_record_hw_return_into_entry_code_is_not_the_fault),
	KUNIT_CASE(fault_record_sw_is_newest_call_from_entry_text),
	KUNIT_CASE(fault_record_sw_is_first_call_of_the_handler),
	KUNIT_CASE(fault_record_panic_is_the_call_not_an_iret),
	KUNIT_CASE(fault_record_absent_is_u32_max),
	KUNIT_CASE(fault_record_search_decodes_the_idt_once),
	KUNIT_CASE(header_describes_the_snapshot),
	KUNIT_CASE(capture_reasons_follow_the_options),
	{}
};

static struct kunit_suite bts_tracer_suite = {
	.name = "trace_bts_tracer",
	.test_cases = bts_tracer_cases,
};

kunit_test_suites(&bts_sw_suite, &bts_core_suite, &bts_tracer_suite);
