// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of what the bts panic writer leaves in memory. #included at
 * the end of trace_bts_persist.c (CONFIG_BTS_TRACER_KUNIT_TEST) so the
 * tests see its static functions. A made-up source is armed and an oops
 * captured, the writer writes into a kmalloc'ed region, and a static
 * stub stands in for the cache write-back, recording what it was asked
 * to write back and whether the magic was there yet: no VM has caches
 * that a reset discards, so the order of the writes and write-backs is
 * what a test can check.
 */
#include <kunit/static_stub.h>
#include <kunit/test.h>

#define PERSIST_TEST_SLOTS	2
#define PERSIST_TEST_WBS	8

static struct persist_test {
	struct bts_persist_head *h;
	unsigned int nr_wb;
	struct {
		size_t from, to;	/* offsets in the region */
		bool magic;		/* the magic was there when it ran */
	} wb[PERSIST_TEST_WBS];
	bool registered, armed;
} pt;

static void persist_fake_wb(void *p, size_t n)
{
	size_t from = (u8 *)p - (u8 *)pt.h;

	if (pt.nr_wb < PERSIST_TEST_WBS) {
		pt.wb[pt.nr_wb].from = from;
		pt.wb[pt.nr_wb].to = from + n;
		pt.wb[pt.nr_wb].magic = !memcmp(pt.h->magic, BTS_PERSIST_MAGIC,
						sizeof(pt.h->magic));
	}
	pt.nr_wb++;
}

static const char *persist_fake_unavailable(int *err) { return NULL; }
static unsigned int persist_fake_capacity(void) { return 8; }
static int persist_fake_arm(unsigned int flags) { return 0; }
static void persist_fake_nop(void) { }

static unsigned int persist_fake_read(struct bts_record *buf, unsigned int n,
				      enum bts_window *w)
{
	unsigned int i;

	n = min(n, 8U);
	for (i = 0; i < n; i++) {
		buf[i].from = 0x1000 + i;
		buf[i].to = 0x2000 + i;
		buf[i].flags = 0;
	}
	*w = BTS_WINDOW_PARTIAL;
	return n;
}

static struct bts_source persist_fake_source = {
	.name = "kunit_persist", .id = BTS_SOURCE_HW + 101,
	.unavailable = persist_fake_unavailable,
	.capacity = persist_fake_capacity,
	.arm = persist_fake_arm, .disarm = persist_fake_nop,
	.freeze_this_cpu = persist_fake_nop, .thaw_this_cpu = persist_fake_nop,
	.read_this_cpu = persist_fake_read,
};

static void persist_emit_nothing(unsigned int cpu, const struct bts_record *recs,
				 const struct bts_snapshot *snap)
{
}

static int persist_init(struct kunit *test)
{
	memset(&pt, 0, sizeof(pt));
	if (bts_armed_source())
		kunit_skip(test, "a source is armed (the bts tracer is running)");
	pt.h = kunit_kzalloc(test, BTS_PERSIST_SLOTS_AT +
			     PERSIST_TEST_SLOTS * BTS_PERSIST_SLOT_SIZE,
			     GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pt.h);
	KUNIT_ASSERT_EQ(test, bts_register_source(&persist_fake_source), 0);
	pt.registered = true;
	kunit_activate_static_stub(test, bts_persist_wb, persist_fake_wb);
	return 0;
}

static void persist_exit(struct kunit *test)
{
	if (pt.armed) {
		bts_capture_disable();
		bts_capture_clear();
		bts_disarm();
	}
	if (pt.registered)
		bts_unregister_source(&persist_fake_source);
}

/* Did write-backs [first, last) cover [from, to) of the region? */
static bool persist_covered(unsigned int first, unsigned int last,
			    size_t from, size_t to)
{
	size_t at = from;
	bool grew = true;
	unsigned int i;

	while (at < to && grew) {
		grew = false;
		for (i = first; i < last; i++) {
			if (pt.wb[i].from <= at && pt.wb[i].to > at) {
				at = pt.wb[i].to;
				grew = true;
			}
		}
	}
	return at >= to;
}

static void persist_panic_write_reaches_memory_before_its_magic(struct kunit *test)
{
	struct bts_persist_head *h = pt.h;
	unsigned long flags;
	size_t used;
	int cpu;

	KUNIT_ASSERT_EQ(test, bts_arm(&persist_fake_source, 0), 0);
	pt.armed = true;
	KUNIT_ASSERT_EQ(test, bts_capture_enable(BIT(BTS_REASON_OOPS),
						 persist_emit_nothing), 0);
	local_irq_save(flags);
	cpu = smp_processor_id();
	bts_fault_freeze(BTS_REASON_OOPS, NULL);
	bts_persist_write(h, BTS_PERSIST_SLOTS_AT +
			  PERSIST_TEST_SLOTS * BTS_PERSIST_SLOT_SIZE,
			  PERSIST_TEST_SLOTS, cpu, BTS_REASON_OOPS);
	local_irq_restore(flags);

	KUNIT_ASSERT_EQ(test, memcmp(h->magic, BTS_PERSIST_MAGIC, sizeof(h->magic)), 0);
	KUNIT_ASSERT_GE(test, h->nr_written, 1U);
	KUNIT_EXPECT_EQ(test, h->fault_cpu, cpu);
	KUNIT_EXPECT_EQ(test, bts_persist_slot(h, 0)->cpu, (u32)cpu);
	KUNIT_EXPECT_GT(test, bts_persist_slot(h, 0)->count, 0U);
	KUNIT_ASSERT_LE(test, pt.nr_wb, PERSIST_TEST_WBS);
	/* something was written back, and the magic was the last of it */
	KUNIT_ASSERT_GE(test, pt.nr_wb, 2U);
	KUNIT_EXPECT_TRUE(test, pt.wb[pt.nr_wb - 1].magic);
	KUNIT_EXPECT_TRUE(test, persist_covered(pt.nr_wb - 1, pt.nr_wb, 0,
						sizeof(h->magic)));
	/* every byte written before the magic, written back before it */
	used = BTS_PERSIST_SLOTS_AT + (size_t)h->nr_written * BTS_PERSIST_SLOT_SIZE;
	KUNIT_EXPECT_FALSE(test, pt.wb[pt.nr_wb - 2].magic);
	KUNIT_EXPECT_TRUE(test, persist_covered(0, pt.nr_wb - 1,
						sizeof(h->magic), used));
}

static void persist_clear_reaches_memory(struct kunit *test)
{
	memcpy(pt.h->magic, BTS_PERSIST_MAGIC, sizeof(pt.h->magic));
	bts_persist_clear(pt.h);
	KUNIT_EXPECT_NE(test, memcmp(pt.h->magic, BTS_PERSIST_MAGIC,
				     sizeof(pt.h->magic)), 0);
	KUNIT_ASSERT_GE(test, pt.nr_wb, 1U);
	KUNIT_EXPECT_FALSE(test, pt.wb[pt.nr_wb - 1].magic);
	KUNIT_EXPECT_TRUE(test, persist_covered(pt.nr_wb - 1, pt.nr_wb, 0,
						sizeof(*pt.h)));
}

static struct kunit_case bts_persist_cases[] = {
	KUNIT_CASE(persist_panic_write_reaches_memory_before_its_magic),
	KUNIT_CASE(persist_clear_reaches_memory),
	{}
};

static struct kunit_suite bts_persist_suite = {
	.name = "trace_bts_persist",
	.init = persist_init,
	.exit = persist_exit,
	.test_cases = bts_persist_cases,
};

kunit_test_suites(&bts_persist_suite);
