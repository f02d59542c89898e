// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the Intel BTS source (bts_trace.c), #included at its end
 * under CONFIG_BTS_TRACER_KUNIT_TEST so that they see its static functions.
 *
 * The suites intel_bts_model, intel_bts_debugctl and intel_bts_perf run
 * the source's logic against a software model of the Debug Store
 * semantics of the Intel SDM (vol. 3, "Branch Trace Store"): a fake DS
 * area, BTS buffer and IA32_DEBUGCTL that "execute" branches as the CPU
 * would (a record at bts_index, index advance, wrap to the base at the
 * absolute maximum when BTINT is clear, the interrupt threshold, the CPL
 * filter bits), and a fake perf (exclusivity slots, reservation). The
 * model is reached through the same struct intel_bts_hw as the hardware.
 * Where the SDM is strict the model is too: the BTS interrupt is raised
 * once, when a record crosses the threshold, and a crossing while the
 * LVT entry is masked is lost.
 *
 * The suite intel_bts_hw needs real BTS (bare-metal Intel): it skips with
 * the reason everywhere else, which includes every virtual machine, so
 * it has not been run by its authors.
 *
 * What these tests must never do: touch the real source's state or the
 * real DEBUGCTL, except in intel_bts_hw after checking that BTS is there
 * and that no source is armed.
 */
#include <kunit/test.h>
#include <linux/delay.h>

/* ---- the model ---- */

/* A cea-like linear address for the model's buffer; never dereferenced. */
#define MODEL_BASE	0xfffffe0000401000ULL
/* Capacity used by most cases: small, so that wraps are easy to make. */
#define MODEL_NR	8
/* Stream records the model keeps. */
#define MODEL_EMIT_MAX	256
/* DEBUGCTL bits that are not ours, set before every case. */
#define MODEL_CTL_OTHERS (DEBUGCTLMSR_LBR | DEBUGCTLMSR_BTF |		\
			  DEBUGCTLMSR_BUS_LOCK_DETECT |			\
			  DEBUGCTLMSR_FREEZE_IN_SMM | BIT_ULL(13))

/**
 * struct intel_bts_model - fake CPU features, perf, DS area and DEBUGCTL
 * @meltdown:	X86_BUG_CPU_MELTDOWN
 * @ctl_works:	DEBUGCTL's BTS bits stick (the boot probe)
 * @bts:	X86_FEATURE_BTS
 * @dtes64:	X86_FEATURE_DTES64
 * @dscpl:	X86_FEATURE_DSCPL
 * @pmu_bts:	x86_pmu.bts
 * @bts_active:	x86_pmu.bts_active after a reservation
 * @reserve_ret: what the reservation returns
 * @missing_cpu: CPU whose BTS buffer perf failed to allocate, or -1
 * @excl_perf:	perf's count in its exclusivity slots (LBR, BTS, PT)
 * @excl_ours:	count in x86_lbr_exclusive_bts_trace
 * @reserved:	perf reservation count
 * @log:	calls to the perf side, in order: A add, D del, R reserve,
 *		r release
 * @nlog:	length of @log
 * @ds:		the DS area
 * @buf:	the BTS buffer, @buf_nr records
 * @buf_nr:	records in @buf
 * @debugctl:	IA32_DEBUGCTL
 * @ctl_writes:	DEBUGCTL writes
 * @pmis:	BTS interrupts raised: once per crossing of the threshold
 *		(BTINT set, a record takes the index from below the
 *		threshold to at or above it) while the LVT performance
 *		counter entry is not masked; raising masks it (SDM). A
 *		crossing while it is masked raises nothing, ever.
 * @lvtpc_masked: that entry is masked
 * @pmi_pending: a raised interrupt not delivered yet (an NMI latched
 *		while another runs); model_nmi() delivers it
 * @unmasks:	writes that unmask it
 * @settles:	microseconds the source waited for an interrupt
 * @dropped:	records a full buffer dropped (BTINT set, index at the
 *		absolute maximum)
 * @emitted:	records handed to the stream, in order (room for
 *		MODEL_EMIT_MAX)
 * @nemitted:	how many
 * @emit_lost:	records the stream was told were lost
 * @emit_paused: of @emit_lost, those told as a pause of the source
 * @emit_calls:	calls to the emit hook with records
 * @emit_nested: run inside the emit hook (an NMI-context dump or trigger
 *		on this CPU reached from the ring-buffer write), then cleared
 * @perf_claims: times perf's intel_bts NMI handler would claim an NMI
 *		(bts_index >= bts_interrupt_threshold after a record)
 * @faults:	records the CPU would have written outside the buffer
 * @nmi:	run once right after DEBUGCTL write number @nmi_at, as an NMI
 *		arriving between two instructions of the code under test
 * @nmi_at:	see @nmi
 * @nmi_before:	run @nmi right before write number @nmi_at instead, after
 *		the caller read the value it writes
 * @now:	the model's clock, ns
 * @emit_ns:	added to @now by each emit of records (how long the
 *		stream's writes take)
 * @perf_ns:	added to @now by perf's part of each PMI handler
 * @throttle_ns: the pause the budget last asked for
 * @throttles:	how many pauses it asked for
 * @in_nmi:	the source's NMI hooks are running (model_pmi_enter() to
 *		model_pmi_exit())
 * @nmi_emits:	emit calls made there, with records or a loss
 * @perf_t0:	@now when perf's PMI handler began
 * @perf_longest: the longest a PMI handler took, by @now, as
 *		perf_event_nmi_handler() times it for perf_sample_event_took()
 * @irqs_off:	the code an NMI interrupts has interrupts off: an irq_work
 *		it queued waits until the test turns them on
 * @drain_queued: the drain's irq_work is queued (irq_work_queue() of a
 *		queued work queues nothing)
 * @drains_queued: how often it was queued
 */
struct intel_bts_model {
	bool meltdown, ctl_works, bts, dtes64, dscpl, pmu_bts, bts_active;
	int reserve_ret;
	int missing_cpu;
	int excl_perf, excl_ours, reserved;
	char log[32];
	unsigned int nlog;
	struct debug_store *ds;
	struct bts_record *buf;
	unsigned int buf_nr;
	u64 debugctl;
	unsigned int ctl_writes, pmis, perf_claims, faults;
	bool lvtpc_masked, pmi_pending;
	unsigned int unmasks, dropped, settles;
	struct bts_record *emitted;
	unsigned int nemitted, emit_calls;
	unsigned long emit_lost;
	unsigned long emit_paused;
	void (*emit_nested)(void);
	void (*nmi)(void);
	unsigned int nmi_at;
	bool nmi_before;
	u64 now, emit_ns, perf_ns, throttle_ns;
	unsigned int throttles;
	bool in_nmi, irqs_off, drain_queued;
	unsigned int nmi_emits, drains_queued;
	u64 perf_t0, perf_longest;
};

static struct intel_bts_model *model;

static void model_log(char c)
{
	if (model->nlog < sizeof(model->log) - 1)
		model->log[model->nlog++] = c;
}

static bool model_has_feature(unsigned int feature)
{
	if (feature == X86_BUG_CPU_MELTDOWN)
		return model->meltdown;
	if (feature == X86_FEATURE_BTS)
		return model->bts;
	if (feature == X86_FEATURE_DTES64)
		return model->dtes64;
	if (feature == X86_FEATURE_DSCPL)
		return model->dscpl;
	return false;
}

static bool model_pmu_has_bts(void)
{
	return model->pmu_bts;
}

static bool model_pmu_bts_active(void)
{
	return model->reserved && model->bts_active;
}

/* x86_add_exclusive(): fails only when another slot is held. */
static int model_add_exclusive(void)
{
	model_log('A');
	if (model->excl_perf)
		return -EBUSY;
	model->excl_ours++;
	return 0;
}

static bool model_exclusive_busy(void)
{
	return model->excl_perf;
}

static void model_del_exclusive(void)
{
	model_log('D');
	model->excl_ours--;
}

/* What a perf LBR/BTS/intel_bts event does at creation. */
static int model_perf_add_exclusive(void)
{
	if (model->excl_ours)
		return -EBUSY;
	model->excl_perf++;
	return 0;
}

static int model_reserve(void)
{
	model_log('R');
	if (model->reserve_ret)
		return model->reserve_ret;
	model->reserved++;
	return 0;
}

static void model_release(void)
{
	model_log('r');
	model->reserved--;
}

static struct debug_store *model_ds(unsigned int cpu)
{
	return model->reserved ? model->ds : NULL;
}

static void *model_buffer(unsigned int cpu)
{
	if (!model->reserved || (int)cpu == model->missing_cpu)
		return NULL;
	return model->buf;
}

static u64 model_debugctl_read(void)
{
	return model->debugctl;
}

static void model_debugctl_write(u64 val)
{
	void (*nmi)(void) = model->nmi;

	if (nmi && model->nmi_before && model->ctl_writes + 1 == model->nmi_at) {
		model->nmi = NULL;
		model->nmi_before = false;
		nmi();
		nmi = NULL;
	}
	model->debugctl = val;
	model->ctl_writes++;
	if (nmi && model->ctl_writes == model->nmi_at) {
		model->nmi = NULL;
		nmi();
	}
}

static bool model_debugctl_bts_works(void)
{
	return model->ctl_works;
}

static bool model_pmi_hooked(void)
{
	return true;
}

static void model_deliver_pending(void);

/* A microsecond passes: an interrupt on its way is taken meanwhile. */
static void model_pmi_settle(void)
{
	model->settles++;
	if (model->pmi_pending)
		model_deliver_pending();
}

static u64 model_clock(void)
{
	return model->now;
}

static void model_throttle(u64 ns)
{
	model->throttle_ns = ns;
	model->throttles++;
}

static void model_drain_later(void)
{
	model->drain_queued = true;
	model->drains_queued++;
}

static void model_pmi_unmask(void)
{
	model->lvtpc_masked = false;
	model->unmasks++;
}

/* bts_stream_emit() of the model: keep what the stream gets. */
static void model_emit(const struct bts_record *recs, unsigned int n,
		       unsigned long lost, bool paused)
{
	void (*nested)(void) = model->emit_nested;
	unsigned int i;

	if (nested) {
		model->emit_nested = NULL;
		nested();
	}
	if (model->in_nmi && (n || lost))
		model->nmi_emits++;
	model->emit_lost += lost;
	if (paused)
		model->emit_paused += lost;
	if (n) {
		model->emit_calls++;
		model->now += model->emit_ns;
	}
	for (i = 0; i < n && model->nemitted < MODEL_EMIT_MAX; i++)
		model->emitted[model->nemitted++] = recs[i];
}

static const struct intel_bts_hw intel_bts_model_hw = {
	.has_feature	= model_has_feature,
	.pmu_has_bts	= model_pmu_has_bts,
	.pmu_bts_active	= model_pmu_bts_active,
	.add_exclusive	= model_add_exclusive,
	.exclusive_busy	= model_exclusive_busy,
	.del_exclusive	= model_del_exclusive,
	.reserve	= model_reserve,
	.release	= model_release,
	.ds		= model_ds,
	.buffer		= model_buffer,
	.debugctl_read	= model_debugctl_read,
	.debugctl_write	= model_debugctl_write,
	.debugctl_bts_works = model_debugctl_bts_works,
	.pmi_hooked	= model_pmi_hooked,
	.pmi_unmask	= model_pmi_unmask,
	.pmi_settle	= model_pmi_settle,
	.clock		= model_clock,
	.throttle	= model_throttle,
	.drain_later	= model_drain_later,
};

/* The addresses of branch number @i. */
#define FROM(i)		(0xffffffff81000000ULL + 0x10 * (u64)(i))
#define TO(i)		(0xffffffff82000000ULL + 0x10 * (u64)(i))
#define USER_FROM(i)	(0x401000ULL + 0x10 * (u64)(i))

/*
 * The CPU takes a branch at privilege level @cpl (SDM: a BTS record is
 * stored when TR and BTS are set, unless BTS_OFF_OS filters CPL 0 or
 * BTS_OFF_USR filters CPL > 0; then the index advances and, in circular
 * mode (BTINT clear), goes back to the base at the absolute maximum;
 * with BTINT set, a full buffer drops the record, and a record that
 * leaves the index at or above the threshold raises a PMI unless the LVT
 * entry is masked, which raising it does).
 */
static void model_branch(u64 from, u64 to, unsigned int cpl)
{
	struct debug_store *ds = model->ds;
	u64 ctl = model->debugctl, slot, before;
	struct bts_record *rec;

	if (!(ctl & DEBUGCTLMSR_TR) || !(ctl & DEBUGCTLMSR_BTS))
		return;
	if (cpl == 0 && (ctl & DEBUGCTLMSR_BTS_OFF_OS))
		return;
	if (cpl > 0 && (ctl & DEBUGCTLMSR_BTS_OFF_USR))
		return;
	if ((ctl & DEBUGCTLMSR_BTINT) &&
	    ds->bts_index >= ds->bts_absolute_maximum) {
		model->dropped++;
		return;
	}
	if (ds->bts_index < ds->bts_buffer_base ||
	    ds->bts_index + sizeof(*rec) >
	    ds->bts_buffer_base + (u64)model->buf_nr * sizeof(*rec)) {
		model->faults++;
		return;
	}
	slot = (ds->bts_index - ds->bts_buffer_base) / sizeof(*rec);
	rec = &model->buf[slot];
	rec->from = from;
	rec->to = to;
	rec->flags = BTS_FLAG_PREDICTED;
	before = ds->bts_index;
	ds->bts_index += sizeof(*rec);
	if ((ctl & DEBUGCTLMSR_BTINT) && !model->lvtpc_masked &&
	    before < ds->bts_interrupt_threshold &&
	    ds->bts_index >= ds->bts_interrupt_threshold) {
		model->pmis++;
		model->lvtpc_masked = true;
		model->pmi_pending = true;
	}
	if (ds->bts_index >= ds->bts_interrupt_threshold)
		model->perf_claims++;
	if (!(ctl & DEBUGCTLMSR_BTINT) &&
	    ds->bts_index >= ds->bts_absolute_maximum)
		ds->bts_index = ds->bts_buffer_base;
}

/* Kernel branches number @first .. @first + @count - 1. */
static void model_run(unsigned int first, unsigned int count)
{
	unsigned int i;

	for (i = first; i < first + count; i++)
		model_branch(FROM(i), TO(i), 0);
}

/*
 * A fresh model of a BTS-capable CPU with a buffer of @nr records, the DS
 * fields as perf's alloc_bts_buffer() leaves them, perf's index in use.
 */
static void model_init(struct kunit *test, unsigned int nr)
{
	struct debug_store *ds;

	model = kunit_kzalloc(test, sizeof(*model), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, model);
	model->ds = kunit_kzalloc(test, sizeof(*model->ds), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, model->ds);
	model->buf = kunit_kcalloc(test, nr, sizeof(*model->buf), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, model->buf);
	model->buf_nr = nr;
	model->emitted = kunit_kcalloc(test, MODEL_EMIT_MAX,
				       sizeof(*model->emitted), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, model->emitted);
	model->bts = true;
	model->ctl_works = true;
	model->dtes64 = true;
	model->dscpl = true;
	model->pmu_bts = true;
	model->bts_active = true;
	model->missing_cpu = -1;
	model->debugctl = MODEL_CTL_OTHERS;
	ds = model->ds;
	ds->bts_buffer_base = MODEL_BASE;
	ds->bts_index = MODEL_BASE + 3 * sizeof(struct bts_record);
	/* Not ours (the whole buffer, threshold above): see the perf suite. */
	ds->bts_absolute_maximum = MODEL_BASE +
				   (nr - 1) * sizeof(struct bts_record);
	ds->bts_interrupt_threshold = ds->bts_absolute_maximum -
				      (nr / 4) * sizeof(struct bts_record);
}

struct intel_bts_test {
	struct intel_bts bts;
	struct intel_bts_cpu c;
};

/* The model's CPU: the test state model_armed() made last. */
static struct intel_bts_test *model_cpu;

/* A model CPU (nr records) with the source reserved and armed. */
static struct intel_bts_test *model_armed(struct kunit *test,
					  unsigned int nr,
					  unsigned int arm_flags)
{
	struct intel_bts_test *t;

	model_init(test, nr);
	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	t->bts.hw = &intel_bts_model_hw;
	t->bts.emit = model_emit;
	t->bts.nr = nr;
	t->bts.arm_flags = arm_flags;
	KUNIT_ASSERT_EQ(test, intel_bts_reserve(&t->bts), 0);
	KUNIT_ASSERT_EQ(test, intel_bts_cpu_arm(&t->bts, &t->c, 0), 0);
	model_cpu = t;
	return t;
}

/* Freeze, read up to @n records into @out, thaw. */
static unsigned int model_read(struct intel_bts_test *t,
			       struct bts_record *out, unsigned int n,
			       enum bts_window *w)
{
	unsigned int got;

	intel_bts_cpu_freeze(&t->bts, &t->c);
	got = intel_bts_cpu_read(&t->c, out, n, w);
	intel_bts_cpu_thaw(&t->bts, &t->c);
	return got;
}

/* @out[0 .. count) are branches number @first, @first + 1, ... */
static void expect_branches(struct kunit *test, const struct bts_record *out,
			    unsigned int count, unsigned int first)
{
	unsigned int i;

	for (i = 0; i < count; i++) {
		KUNIT_EXPECT_EQ_MSG(test, out[i].from, FROM(first + i),
				    "record %u", i);
		KUNIT_EXPECT_EQ_MSG(test, out[i].to, TO(first + i),
				    "record %u", i);
	}
}

/* ---- suite intel_bts_model: extraction of the newest records ---- */

/* The source's hooks in perf's PMI handler, on entry and on exit. */
static int model_pmi_enter(struct intel_bts_test *t)
{
	model->in_nmi = true;
	model->perf_t0 = model->now;
	return intel_bts_cpu_pmi_enter(&t->bts, &t->c);
}

/* The drain's irq_work runs, if queued and the CPU takes interrupts. */
static void model_irq_work(struct intel_bts_test *t)
{
	if (!model->drain_queued || model->irqs_off)
		return;
	model->drain_queued = false;
	intel_bts_cpu_drain_work(&t->bts, &t->c);
}

/*
 * The end of perf's handler, then the NMI's last handler; then the NMI
 * returns, and an irq_work it queued runs unless interrupts are off.
 */
static void model_pmi_exit(struct intel_bts_test *t)
{
	model->in_nmi = true;
	intel_bts_cpu_pmi_exit(&t->bts, &t->c);
	model->perf_longest = max(model->perf_longest,
				  model->now - model->perf_t0);
	intel_bts_cpu_nmi_exit(&t->bts, &t->c);
	model->in_nmi = false;
	model_irq_work(t);
}

/*
 * An NMI on this CPU. It delivers a pending BTS interrupt, and perf's PMI
 * handler runs (on every NMI while the source holds its exclusivity
 * slot): the source's hook on entry, perf's own work, perf's
 * acknowledgment (the LVT entry unmasked: the late ack of Haswell and
 * later, not counted in @unmasks), then the source's hook on exit.
 */
static int model_nmi(struct intel_bts_test *t)
{
	int ours;

	model->pmi_pending = false;
	ours = model_pmi_enter(t);
	model->now += model->perf_ns;
	model->lvtpc_masked = false;
	model_pmi_exit(t);
	return ours;
}

/* The CPU the model's pending interrupt goes to: the last one armed. */
static void model_deliver_pending(void)
{
	model_nmi(model_cpu);
}

/* One branch, then the interrupt if the model raised one. */
static void model_branch_nmi(struct intel_bts_test *t, unsigned int i)
{
	model_run(i, 1);
	if (model->pmi_pending)
		model_nmi(t);
}

static void intel_bts_arm_then_nothing_reads_empty(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, 0);
	struct bts_record out[MODEL_NR];
	enum bts_window w;

	KUNIT_EXPECT_EQ(test, model_read(t, out, MODEL_NR, &w), 0);
	KUNIT_EXPECT_EQ(test, w, BTS_WINDOW_EMPTY);
}

static void intel_bts_partial_fill_reads_all_oldest_first(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, 0);
	struct bts_record out[MODEL_NR];
	enum bts_window w;

	model_run(0, 5);
	KUNIT_ASSERT_EQ(test, model_read(t, out, MODEL_NR, &w), 5);
	KUNIT_EXPECT_EQ(test, w, BTS_WINDOW_PARTIAL);
	expect_branches(test, out, 5, 0);
}

static void intel_bts_partial_fill_reads_newest_n(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, 0);
	struct bts_record out[MODEL_NR];
	enum bts_window w;

	model_run(0, 5);
	KUNIT_ASSERT_EQ(test, model_read(t, out, 3, &w), 3);
	KUNIT_EXPECT_EQ(test, w, BTS_WINDOW_PARTIAL);
	expect_branches(test, out, 3, 2);
}

static void intel_bts_n_larger_than_recorded_is_clamped(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, 0);
	struct bts_record *out;
	enum bts_window w;

	out = kunit_kcalloc(test, 100, sizeof(*out), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, out);
	model_run(0, 2);
	KUNIT_ASSERT_EQ(test, model_read(t, out, 100, &w), 2);
	expect_branches(test, out, 2, 0);
}

static void intel_bts_n_larger_than_capacity_is_clamped(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, 0);
	struct bts_record out[3 * MODEL_NR];
	enum bts_window w;

	model_run(0, 3 * MODEL_NR + 1);
	KUNIT_ASSERT_EQ(test, model_read(t, out, ARRAY_SIZE(out), &w),
			MODEL_NR);
	KUNIT_EXPECT_EQ(test, w, BTS_WINDOW_WRAPPED);
	expect_branches(test, out, MODEL_NR, 2 * MODEL_NR + 1);
}

static void intel_bts_read_zero_copies_nothing(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, 0);
	struct bts_record out[1] = { { .from = 1 } };
	enum bts_window w;

	model_run(0, 4);
	KUNIT_EXPECT_EQ(test, model_read(t, out, 0, &w), 0);
	KUNIT_EXPECT_EQ(test, out[0].from, 1);
}

static void intel_bts_exact_fill_wraps_to_base(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, 0);
	struct bts_record out[MODEL_NR];
	enum bts_window w;

	model_run(0, MODEL_NR);
	KUNIT_EXPECT_EQ(test, model->ds->bts_index, MODEL_BASE);
	KUNIT_ASSERT_EQ(test, model_read(t, out, MODEL_NR, &w), MODEL_NR);
	/* Nothing was lost, but the hardware cannot tell: say wrapped. */
	KUNIT_EXPECT_EQ(test, w, BTS_WINDOW_WRAPPED);
	expect_branches(test, out, MODEL_NR, 0);
}

static void intel_bts_wrapped_reads_newest_capacity_in_order(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, 0);
	struct bts_record out[MODEL_NR];
	enum bts_window w;

	model_run(0, 13);	/* index now at slot 5; slots 5..7 are oldest */
	KUNIT_ASSERT_EQ(test, model_read(t, out, MODEL_NR, &w), MODEL_NR);
	KUNIT_EXPECT_EQ(test, w, BTS_WINDOW_WRAPPED);
	expect_branches(test, out, MODEL_NR, 5);
}

static void intel_bts_wrapped_newest_n_below_index(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, 0);
	struct bts_record out[MODEL_NR];
	enum bts_window w;

	model_run(0, 13);
	KUNIT_ASSERT_EQ(test, model_read(t, out, 3, &w), 3);
	KUNIT_EXPECT_EQ(test, w, BTS_WINDOW_WRAPPED);
	expect_branches(test, out, 3, 10);
}

static void intel_bts_wrapped_newest_n_across_end(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, 0);
	struct bts_record out[MODEL_NR];
	enum bts_window w;

	model_run(0, 13);	/* newest 7: slots 6, 7, then 0..4 */
	KUNIT_ASSERT_EQ(test, model_read(t, out, 7, &w), 7);
	expect_branches(test, out, 7, 6);
}

static void intel_bts_many_wraps_keep_newest(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, 0);
	struct bts_record out[MODEL_NR];
	enum bts_window w;

	model_run(0, 1003);
	KUNIT_ASSERT_EQ(test, model_read(t, out, MODEL_NR, &w), MODEL_NR);
	KUNIT_EXPECT_EQ(test, w, BTS_WINDOW_WRAPPED);
	expect_branches(test, out, MODEL_NR, 1003 - MODEL_NR);
	KUNIT_EXPECT_EQ(test, model->faults, 0);
}

static void intel_bts_full_size_buffer_holds_2730(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, INTEL_BTS_NR_RECORDS, 0);
	struct bts_record *out;
	enum bts_window w;

	out = kunit_kcalloc(test, INTEL_BTS_NR_RECORDS + 10, sizeof(*out),
			    GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, out);
	KUNIT_EXPECT_EQ(test, INTEL_BTS_NR_RECORDS, 2730);
	KUNIT_EXPECT_EQ(test, model->ds->bts_absolute_maximum,
			MODEL_BASE + 2730 * 24);
	model_run(0, 3000);
	KUNIT_ASSERT_EQ(test,
			model_read(t, out, INTEL_BTS_NR_RECORDS + 10, &w),
			2730);
	KUNIT_EXPECT_EQ(test, w, BTS_WINDOW_WRAPPED);
	expect_branches(test, out, 2730, 3000 - 2730);
}

static void intel_bts_capacity_is_perf_cea_buffer(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, intel_bts_source.capacity(),
			BTS_BUFFER_SIZE / sizeof(struct bts_record));
	KUNIT_EXPECT_LE(test, intel_bts_source.capacity() *
			sizeof(struct bts_record), BTS_BUFFER_SIZE);
	KUNIT_EXPECT_PTR_EQ(test, bts_find_source("intel_bts"),
			    &intel_bts_source);
}

static void intel_bts_bad_index_reads_nothing(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, 0);
	struct bts_record out[MODEL_NR];
	enum bts_window w;

	model_run(0, 4);
	model->ds->bts_index = MODEL_BASE - 24;
	KUNIT_EXPECT_EQ(test, model_read(t, out, MODEL_NR, &w), 0);
	KUNIT_EXPECT_EQ(test, w, BTS_WINDOW_EMPTY);
	model->ds->bts_index = MODEL_BASE + (MODEL_NR + 1) * 24;
	KUNIT_EXPECT_EQ(test, model_read(t, out, MODEL_NR, &w), 0);
}

static void intel_bts_index_at_abs_max_means_base(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, 0);
	struct bts_record out[MODEL_NR];
	enum bts_window w;

	model_run(0, MODEL_NR);
	model->ds->bts_index = model->ds->bts_absolute_maximum;
	KUNIT_ASSERT_EQ(test, model_read(t, out, MODEL_NR, &w), MODEL_NR);
	expect_branches(test, out, MODEL_NR, 0);
}

static void intel_bts_not_armed_reads_nothing(struct kunit *test)
{
	struct intel_bts_cpu c = {};
	struct bts_record out[2];
	enum bts_window w;

	KUNIT_EXPECT_EQ(test, intel_bts_cpu_read(&c, out, 2, &w), 0);
	KUNIT_EXPECT_EQ(test, w, BTS_WINDOW_EMPTY);
}

static void intel_bts_arm_clears_stale_records(struct kunit *test)
{
	struct intel_bts_test *t;
	struct bts_record out[MODEL_NR];
	enum bts_window w;

	t = model_armed(test, MODEL_NR, 0);
	model_run(0, 20);
	intel_bts_cpu_disarm(&t->bts, &t->c);
	KUNIT_ASSERT_EQ(test, intel_bts_cpu_arm(&t->bts, &t->c, 0), 0);
	KUNIT_EXPECT_EQ(test, model_read(t, out, MODEL_NR, &w), 0);
	KUNIT_EXPECT_EQ(test, w, BTS_WINDOW_EMPTY);
	model_run(100, 2);
	KUNIT_ASSERT_EQ(test, model_read(t, out, MODEL_NR, &w), 2);
	KUNIT_EXPECT_EQ(test, w, BTS_WINDOW_PARTIAL);
	expect_branches(test, out, 2, 100);
}

static void intel_bts_threshold_never_reached(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, 0);
	struct debug_store *ds = model->ds;

	KUNIT_EXPECT_GT(test, ds->bts_interrupt_threshold,
			ds->bts_absolute_maximum);
	KUNIT_EXPECT_EQ(test, ds->bts_index, ds->bts_buffer_base);
	model_run(0, 5 * MODEL_NR + 3);
	KUNIT_EXPECT_EQ(test, model->pmis, 0);
	KUNIT_EXPECT_EQ(test, model->perf_claims, 0);
	KUNIT_EXPECT_EQ(test, model->faults, 0);
	KUNIT_EXPECT_TRUE(test, t->c.armed);
}

static struct kunit_case intel_bts_model_cases[] = {
	KUNIT_CASE(intel_bts_arm_then_nothing_reads_empty),
	KUNIT_CASE(intel_bts_partial_fill_reads_all_oldest_first),
	KUNIT_CASE(intel_bts_partial_fill_reads_newest_n),
	KUNIT_CASE(intel_bts_n_larger_than_recorded_is_clamped),
	KUNIT_CASE(intel_bts_n_larger_than_capacity_is_clamped),
	KUNIT_CASE(intel_bts_read_zero_copies_nothing),
	KUNIT_CASE(intel_bts_exact_fill_wraps_to_base),
	KUNIT_CASE(intel_bts_wrapped_reads_newest_capacity_in_order),
	KUNIT_CASE(intel_bts_wrapped_newest_n_below_index),
	KUNIT_CASE(intel_bts_wrapped_newest_n_across_end),
	KUNIT_CASE(intel_bts_many_wraps_keep_newest),
	KUNIT_CASE(intel_bts_full_size_buffer_holds_2730),
	KUNIT_CASE(intel_bts_capacity_is_perf_cea_buffer),
	KUNIT_CASE(intel_bts_bad_index_reads_nothing),
	KUNIT_CASE(intel_bts_index_at_abs_max_means_base),
	KUNIT_CASE(intel_bts_not_armed_reads_nothing),
	KUNIT_CASE(intel_bts_arm_clears_stale_records),
	KUNIT_CASE(intel_bts_threshold_never_reached),
	{}
};

static struct kunit_suite intel_bts_model_suite = {
	.name = "intel_bts_model",
	.test_cases = intel_bts_model_cases,
};

/* ---- suite intel_bts_debugctl: the bits written, and only those ---- */

static void intel_bts_arm_kernel_only_sets_tr_bts_off_usr(struct kunit *test)
{
	model_armed(test, MODEL_NR, 0);
	KUNIT_EXPECT_EQ(test, model->debugctl,
			MODEL_CTL_OTHERS | BIT_ULL(6) | BIT_ULL(7) | BIT_ULL(10));
	KUNIT_EXPECT_EQ(test, model->ctl_writes, 1);
}

static void intel_bts_arm_user_sets_tr_bts_only(struct kunit *test)
{
	model_armed(test, MODEL_NR, BTS_ARM_USER);
	KUNIT_EXPECT_EQ(test, model->debugctl,
			MODEL_CTL_OTHERS | BIT_ULL(6) | BIT_ULL(7));
}

static void intel_bts_arm_clears_btint_and_off_os(struct kunit *test)
{
	struct intel_bts_test *t;

	model_init(test, MODEL_NR);
	model->debugctl |= DEBUGCTLMSR_BTINT | DEBUGCTLMSR_BTS_OFF_OS |
			   DEBUGCTLMSR_BTS_OFF_USR;
	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	t->bts.hw = &intel_bts_model_hw;
	t->bts.nr = MODEL_NR;
	t->bts.arm_flags = BTS_ARM_USER;
	KUNIT_ASSERT_EQ(test, intel_bts_reserve(&t->bts), 0);
	KUNIT_ASSERT_EQ(test, intel_bts_cpu_arm(&t->bts, &t->c, 0), 0);
	KUNIT_EXPECT_EQ(test, model->debugctl,
			MODEL_CTL_OTHERS | BIT_ULL(6) | BIT_ULL(7));
}

static void intel_bts_freeze_clears_only_tr_bts(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, 0);

	intel_bts_cpu_freeze(&t->bts, &t->c);
	KUNIT_EXPECT_EQ(test, model->debugctl,
			MODEL_CTL_OTHERS | DEBUGCTLMSR_BTS_OFF_USR);
	KUNIT_EXPECT_EQ(test, model->ctl_writes, 2);
}

static void intel_bts_thaw_sets_armed_bits_again(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, 0);
	u64 armed = model->debugctl;

	intel_bts_cpu_freeze(&t->bts, &t->c);
	intel_bts_cpu_thaw(&t->bts, &t->c);
	KUNIT_EXPECT_EQ(test, model->debugctl, armed);
}

static void intel_bts_freeze_nests_and_unarmed_is_noop(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, 0);
	struct intel_bts_cpu idle = {};

	/*
	 * A second freeze writes again: it may be an NMI that landed between
	 * the first one's stop bit and its write, and must find BTS off.
	 */
	intel_bts_cpu_freeze(&t->bts, &t->c);
	intel_bts_cpu_freeze(&t->bts, &t->c);
	KUNIT_EXPECT_EQ(test, model->ctl_writes, 3);
	KUNIT_EXPECT_EQ(test, model->debugctl,
			MODEL_CTL_OTHERS | DEBUGCTLMSR_BTS_OFF_USR);
	model->debugctl |= DEBUGCTLMSR_TR | DEBUGCTLMSR_BTS;	/* say perf's */
	intel_bts_cpu_freeze(&t->bts, &idle);
	intel_bts_cpu_thaw(&t->bts, &idle);
	KUNIT_EXPECT_EQ(test, model->ctl_writes, 3);
	KUNIT_EXPECT_TRUE(test, model->debugctl & DEBUGCTLMSR_BTS);
}

static void intel_bts_frozen_cpu_records_nothing(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, 0);
	struct bts_record out[MODEL_NR];
	enum bts_window w;

	model_run(0, 3);
	intel_bts_cpu_freeze(&t->bts, &t->c);
	model_run(50, 4);
	KUNIT_ASSERT_EQ(test, intel_bts_cpu_read(&t->c, out, MODEL_NR, &w), 3);
	expect_branches(test, out, 3, 0);
	intel_bts_cpu_thaw(&t->bts, &t->c);
	model_run(3, 1);
	KUNIT_ASSERT_EQ(test, model_read(t, out, MODEL_NR, &w), 4);
	expect_branches(test, out, 4, 0);
}

/*
 * With a task filter the CPU is armed frozen: nothing written to DEBUGCTL,
 * nothing recorded, until the core's thaw (a chosen task runs).
 */
static void intel_bts_arm_with_a_task_filter_starts_frozen(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, BTS_ARM_FILTER);
	struct bts_record out[MODEL_NR];
	enum bts_window w;

	KUNIT_EXPECT_EQ(test, model->debugctl, MODEL_CTL_OTHERS);
	KUNIT_EXPECT_EQ(test, model->ctl_writes, 0);
	model_run(50, 4);
	KUNIT_EXPECT_EQ(test, intel_bts_cpu_read(&t->c, out, MODEL_NR, &w), 0);
	KUNIT_EXPECT_EQ(test, w, BTS_WINDOW_EMPTY);
	intel_bts_cpu_thaw(&t->bts, &t->c);
	KUNIT_EXPECT_EQ(test, model->debugctl,
			MODEL_CTL_OTHERS | BIT_ULL(6) | BIT_ULL(7) | BIT_ULL(10));
	KUNIT_EXPECT_EQ(test, model->ctl_writes, 1);
	model_run(0, 3);
	KUNIT_ASSERT_EQ(test, model_read(t, out, MODEL_NR, &w), 3);
	expect_branches(test, out, 3, 0);
}

static void intel_bts_kernel_only_filters_user_branches(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, 0);
	struct bts_record out[MODEL_NR];
	enum bts_window w;

	model_branch(FROM(0), TO(0), 0);
	model_branch(USER_FROM(1), USER_FROM(2), 3);
	model_branch(FROM(1), TO(1), 0);
	KUNIT_ASSERT_EQ(test, model_read(t, out, MODEL_NR, &w), 2);
	expect_branches(test, out, 2, 0);
}

static void intel_bts_user_option_records_user_branches(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, BTS_ARM_USER);
	struct bts_record out[MODEL_NR];
	enum bts_window w;

	model_branch(FROM(0), TO(0), 0);
	model_branch(USER_FROM(1), USER_FROM(2), 3);
	KUNIT_ASSERT_EQ(test, model_read(t, out, MODEL_NR, &w), 2);
	KUNIT_EXPECT_EQ(test, out[1].from, USER_FROM(1));
	KUNIT_EXPECT_EQ(test, out[1].to, USER_FROM(2));
	KUNIT_EXPECT_FALSE(test, out[1].flags & BTS_FLAG_USER_CLEARED);
}

static void intel_bts_disarm_clears_all_five_bits(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, 0);

	intel_bts_cpu_disarm(&t->bts, &t->c);
	KUNIT_EXPECT_EQ(test, model->debugctl, MODEL_CTL_OTHERS);
	KUNIT_EXPECT_FALSE(test, t->c.armed);
	model_run(0, 3);	/* BTS off: nothing lands in perf's buffer */
	KUNIT_EXPECT_EQ(test, model->buf[3].from, 0);
}

/* What the core's capture NMI does to this CPU: freeze, copy, thaw. */
static struct intel_bts_test *nmi_victim;

static void model_capture_nmi(void)
{
	struct bts_record out[MODEL_NR];
	enum bts_window w;

	model_read(nmi_victim, out, MODEL_NR, &w);
}

/*
 * A CPU going offline while an oops on another CPU sends the capture NMI:
 * the offline callback's disarm must not be undone by the NMI's thaw.
 */
static void intel_bts_nmi_during_disarm_leaves_bts_off(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, 0);

	/* the NMI lands right after disarm's first DEBUGCTL write */
	nmi_victim = t;
	model->nmi = model_capture_nmi;
	model->nmi_at = model->ctl_writes + 1;
	intel_bts_cpu_disarm(&t->bts, &t->c);
	KUNIT_EXPECT_NULL(test, model->nmi);	/* it did run */
	KUNIT_EXPECT_EQ(test, model->debugctl, MODEL_CTL_OTHERS);
	model_run(0, 3);	/* BTS off: nothing lands in perf's buffer */
	KUNIT_EXPECT_EQ(test, model->buf[3].from, 0);
	KUNIT_EXPECT_EQ(test, model->faults, 0);
}

/* The machine goes down (kexec, reboot, crash): bts_crash_stop_this_cpu(). */
static void model_stop_for_good(struct intel_bts_test *t)
{
	intel_bts_cpu_stop_for_good(&t->bts, &t->c);
}

/*
 * Once stopped for kexec or a crash, nothing turns BTS on again: not the
 * thaw of a capture NMI or trigger that froze the CPU before the stop,
 * nor the end of a BTS interrupt. The next kernel owns that memory.
 */
static void intel_bts_stop_for_good_survives_thaw_and_pmi(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, 0);
	enum bts_window w;

	intel_bts_cpu_freeze(&t->bts, &t->c);
	model_stop_for_good(t);
	intel_bts_cpu_thaw(&t->bts, &t->c);
	KUNIT_EXPECT_EQ(test, model->debugctl, MODEL_CTL_OTHERS);
	model_read(t, NULL, 0, &w);
	KUNIT_EXPECT_EQ(test, model->debugctl, MODEL_CTL_OTHERS);

	t = model_armed(test, MODEL_NR, BTS_ARM_STREAM);
	model_run(0, MODEL_NR / 2);
	model_stop_for_good(t);
	model_nmi(t);
	KUNIT_EXPECT_EQ(test, model->debugctl, MODEL_CTL_OTHERS);
	model_run(10, 3);
	KUNIT_EXPECT_EQ(test, model->faults + model->dropped, 0);
}

/*
 * System sleep (syscore suspend to resume): BTS off throughout, whatever
 * ends meanwhile (the thaw of a freeze taken before, an NMI, the end of a
 * budget pause), with the records kept; on again at resume, where it
 * stopped. A hibernation restore runs in between on page tables without
 * the DS area.
 */
static void intel_bts_sleep_holds_bts_off_until_resume(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, 0);
	u64 armed = model->debugctl;
	struct bts_record out[MODEL_NR];
	enum bts_window w;

	model_run(0, 3);
	intel_bts_cpu_freeze(&t->bts, &t->c);
	intel_bts_cpu_suspend(&t->bts, &t->c);
	intel_bts_cpu_thaw(&t->bts, &t->c);
	KUNIT_EXPECT_EQ(test, model->debugctl,
			MODEL_CTL_OTHERS | DEBUGCTLMSR_BTS_OFF_USR);
	model_run(50, 2);
	intel_bts_cpu_resume(&t->bts, &t->c);
	KUNIT_EXPECT_EQ(test, model->debugctl, armed);
	model_run(3, 1);
	KUNIT_ASSERT_EQ(test, model_read(t, out, MODEL_NR, &w), 4);
	expect_branches(test, out, 4, 0);

	t = model_armed(test, MODEL_NR, BTS_ARM_STREAM);
	armed = model->debugctl;
	model_run(0, 2);
	intel_bts_cpu_suspend(&t->bts, &t->c);
	model_nmi(t);
	intel_bts_cpu_unthrottle(&t->bts, &t->c);
	KUNIT_EXPECT_EQ(test, model->debugctl & INTEL_BTS_CTL_RUN, 0);
	model_run(50, 2);
	intel_bts_cpu_resume(&t->bts, &t->c);
	KUNIT_EXPECT_EQ(test, model->debugctl, armed);
	KUNIT_EXPECT_EQ(test, model->faults + model->dropped, 0);
	/* a re-arm in between would not start it either */
	intel_bts_cpu_suspend(&t->bts, &t->c);
	intel_bts_cpu_disarm(&t->bts, &t->c);
	KUNIT_ASSERT_EQ(test, intel_bts_cpu_arm(&t->bts, &t->c, 0), 0);
	KUNIT_EXPECT_EQ(test, model->debugctl & INTEL_BTS_CTL_RUN, 0);
	intel_bts_cpu_resume(&t->bts, &t->c);
	KUNIT_EXPECT_EQ(test, model->debugctl, armed);
	intel_bts_cpu_disarm(&t->bts, &t->c);
}

/*
 * Kernel only means kernel only. Which CPL filters a branch that changes
 * privilege the SDM does not say: the return to user mode (sysret, iret
 * at CPL 0) can be recorded with a user-space target, and the entry from
 * user mode with a user-space source. The user half is cleared.
 */
static void intel_bts_kernel_only_clears_user_halves(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, 0);
	struct bts_record out[MODEL_NR];
	enum bts_window w;

	model_branch(FROM(0), USER_FROM(1), 0);		/* sysret */
	model_branch(USER_FROM(2), TO(2), 0);		/* syscall */
	model_branch(FROM(3), TO(3), 0);
	KUNIT_ASSERT_EQ(test, model_read(t, out, MODEL_NR, &w), 3);
	KUNIT_EXPECT_EQ(test, out[0].from, FROM(0));
	KUNIT_EXPECT_EQ(test, out[0].to, 0);
	KUNIT_EXPECT_TRUE(test, out[0].flags & BTS_FLAG_USER_CLEARED);
	KUNIT_EXPECT_EQ(test, out[1].from, 0);
	KUNIT_EXPECT_EQ(test, out[1].to, TO(2));
	KUNIT_EXPECT_TRUE(test, out[1].flags & BTS_FLAG_USER_CLEARED);
	expect_branches(test, &out[2], 1, 3);
	KUNIT_EXPECT_FALSE(test, out[2].flags & BTS_FLAG_USER_CLEARED);
	/* the hardware buffer keeps what the CPU wrote */
	KUNIT_EXPECT_EQ(test, model->buf[0].to, USER_FROM(1));
}

static void intel_bts_ctl_bit_values_match_sdm(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, DEBUGCTLMSR_TR, BIT(6));
	KUNIT_EXPECT_EQ(test, DEBUGCTLMSR_BTS, BIT(7));
	KUNIT_EXPECT_EQ(test, DEBUGCTLMSR_BTINT, BIT(8));
	KUNIT_EXPECT_EQ(test, DEBUGCTLMSR_BTS_OFF_OS, BIT(9));
	KUNIT_EXPECT_EQ(test, DEBUGCTLMSR_BTS_OFF_USR, BIT(10));
	KUNIT_EXPECT_EQ(test, INTEL_BTS_CTL_MASK, 0x7c0);
	KUNIT_EXPECT_EQ(test, intel_bts_ctl_bits(0), 0x4c0);
	KUNIT_EXPECT_EQ(test, intel_bts_ctl_bits(BTS_ARM_USER), 0xc0);
}

static struct kunit_case intel_bts_debugctl_cases[] = {
	KUNIT_CASE(intel_bts_arm_kernel_only_sets_tr_bts_off_usr),
	KUNIT_CASE(intel_bts_arm_user_sets_tr_bts_only),
	KUNIT_CASE(intel_bts_arm_clears_btint_and_off_os),
	KUNIT_CASE(intel_bts_freeze_clears_only_tr_bts),
	KUNIT_CASE(intel_bts_thaw_sets_armed_bits_again),
	KUNIT_CASE(intel_bts_freeze_nests_and_unarmed_is_noop),
	KUNIT_CASE(intel_bts_frozen_cpu_records_nothing),
	KUNIT_CASE(intel_bts_arm_with_a_task_filter_starts_frozen),
	KUNIT_CASE(intel_bts_kernel_only_filters_user_branches),
	KUNIT_CASE(intel_bts_user_option_records_user_branches),
	KUNIT_CASE(intel_bts_disarm_clears_all_five_bits),
	KUNIT_CASE(intel_bts_ctl_bit_values_match_sdm),
	KUNIT_CASE(intel_bts_nmi_during_disarm_leaves_bts_off),
	KUNIT_CASE(intel_bts_stop_for_good_survives_thaw_and_pmi),
	KUNIT_CASE(intel_bts_sleep_holds_bts_off_until_resume),
	KUNIT_CASE(intel_bts_kernel_only_clears_user_halves),
	{}
};

static struct kunit_suite intel_bts_debugctl_suite = {
	.name = "intel_bts_debugctl",
	.test_cases = intel_bts_debugctl_cases,
};

/* ---- suite intel_bts_perf: sharing the hardware with perf ---- */

static void intel_bts_perf_ds_fields_restored_exactly(struct kunit *test)
{
	struct intel_bts_ds_fields before;
	struct intel_bts_test *t;

	model_init(test, MODEL_NR);
	before.base = model->ds->bts_buffer_base;
	before.index = model->ds->bts_index;
	before.abs_max = model->ds->bts_absolute_maximum;
	before.threshold = model->ds->bts_interrupt_threshold;
	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	t->bts.hw = &intel_bts_model_hw;
	t->bts.nr = MODEL_NR;
	KUNIT_ASSERT_EQ(test, intel_bts_reserve(&t->bts), 0);
	KUNIT_ASSERT_EQ(test, intel_bts_cpu_arm(&t->bts, &t->c, 0), 0);
	KUNIT_EXPECT_NE(test, model->ds->bts_interrupt_threshold,
			before.threshold);
	model_run(0, 13);
	/* Ours differ from perf's, so that a field not restored shows. */
	KUNIT_EXPECT_NE(test, model->ds->bts_index, before.index);
	KUNIT_EXPECT_NE(test, model->ds->bts_absolute_maximum, before.abs_max);
	intel_bts_cpu_disarm(&t->bts, &t->c);
	KUNIT_EXPECT_EQ(test, model->ds->bts_buffer_base, before.base);
	KUNIT_EXPECT_EQ(test, model->ds->bts_index, before.index);
	KUNIT_EXPECT_EQ(test, model->ds->bts_absolute_maximum, before.abs_max);
	KUNIT_EXPECT_EQ(test, model->ds->bts_interrupt_threshold,
			before.threshold);
	intel_bts_release(&t->bts);
}

static void intel_bts_perf_reserve_takes_slot_then_hardware(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, 0);

	KUNIT_EXPECT_STREQ(test, model->log, "AR");
	KUNIT_EXPECT_EQ(test, model->excl_ours, 1);
	KUNIT_EXPECT_EQ(test, model->reserved, 1);
	intel_bts_cpu_disarm(&t->bts, &t->c);
	intel_bts_release(&t->bts);
	KUNIT_EXPECT_STREQ(test, model->log, "ARrD");
	KUNIT_EXPECT_EQ(test, model->excl_ours, 0);
	KUNIT_EXPECT_EQ(test, model->reserved, 0);
	intel_bts_release(&t->bts);	/* twice: nothing more */
	KUNIT_EXPECT_STREQ(test, model->log, "ARrD");
}

static void intel_bts_perf_holding_slot_gives_ebusy(struct kunit *test)
{
	struct intel_bts bts = { .hw = &intel_bts_model_hw, .nr = MODEL_NR };
	int err;

	model_init(test, MODEL_NR);
	KUNIT_ASSERT_EQ(test, model_perf_add_exclusive(), 0);
	KUNIT_EXPECT_EQ(test, intel_bts_reserve(&bts), -EBUSY);
	KUNIT_EXPECT_STREQ(test, model->log, "A");
	KUNIT_EXPECT_EQ(test, model->reserved, 0);
	KUNIT_EXPECT_FALSE(test, bts.reserved);
	KUNIT_EXPECT_STREQ(test, intel_bts_reason(&bts, &err),
			   "BTS taken by perf (LBR, BTS or intel_bts events): -EBUSY until they end");
	KUNIT_EXPECT_EQ(test, err, -EBUSY);
}

static void intel_bts_perf_gets_ebusy_while_armed(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, 0);

	KUNIT_EXPECT_EQ(test, model_perf_add_exclusive(), -EBUSY);
	intel_bts_cpu_disarm(&t->bts, &t->c);
	intel_bts_release(&t->bts);
	KUNIT_EXPECT_EQ(test, model_perf_add_exclusive(), 0);
}

static void intel_bts_perf_reserve_failure_undoes_slot(struct kunit *test)
{
	struct intel_bts bts = { .hw = &intel_bts_model_hw, .nr = MODEL_NR };

	model_init(test, MODEL_NR);
	model->reserve_ret = -EBUSY;
	KUNIT_EXPECT_EQ(test, intel_bts_reserve(&bts), -EBUSY);
	KUNIT_EXPECT_STREQ(test, model->log, "ARD");
	KUNIT_EXPECT_EQ(test, model->excl_ours, 0);
}

static void intel_bts_perf_bts_inactive_is_enomem(struct kunit *test)
{
	struct intel_bts bts = { .hw = &intel_bts_model_hw, .nr = MODEL_NR };

	model_init(test, MODEL_NR);
	model->bts_active = false;
	KUNIT_EXPECT_EQ(test, intel_bts_reserve(&bts), -ENOMEM);
	KUNIT_EXPECT_STREQ(test, model->log, "ARrD");
	KUNIT_EXPECT_EQ(test, model->reserved, 0);
	KUNIT_EXPECT_EQ(test, model->excl_ours, 0);
}

static void intel_bts_perf_missing_cpu_buffer_is_enomem(struct kunit *test)
{
	struct intel_bts bts = { .hw = &intel_bts_model_hw, .nr = MODEL_NR };

	model_init(test, MODEL_NR);
	model->missing_cpu = cpumask_last(cpu_possible_mask);
	KUNIT_EXPECT_EQ(test, intel_bts_reserve(&bts), -ENOMEM);
	KUNIT_EXPECT_EQ(test, model->reserved, 0);
	KUNIT_EXPECT_EQ(test, model->excl_ours, 0);
}

static void intel_bts_perf_cpu_without_ds_is_not_armed(struct kunit *test)
{
	struct intel_bts bts = { .hw = &intel_bts_model_hw, .nr = MODEL_NR };
	struct intel_bts_cpu c = {};

	model_init(test, MODEL_NR);	/* not reserved: perf has no DS */
	KUNIT_EXPECT_EQ(test, intel_bts_cpu_arm(&bts, &c, 0), -ENODEV);
	KUNIT_EXPECT_FALSE(test, c.armed);
	KUNIT_EXPECT_EQ(test, model->ctl_writes, 0);
}

static void intel_bts_reason_takes_no_reservation(struct kunit *test)
{
	struct intel_bts bts = { .hw = &intel_bts_model_hw, .nr = MODEL_NR };
	int err;

	/* reading bts/source: no slot, no reservation, no DS allocation */
	model_init(test, MODEL_NR);
	KUNIT_EXPECT_NULL(test, intel_bts_reason(&bts, &err));
	KUNIT_EXPECT_EQ(test, model->nlog, 0);
	KUNIT_ASSERT_EQ(test, model_perf_add_exclusive(), 0);
	KUNIT_EXPECT_STREQ(test, intel_bts_reason(&bts, &err),
			   "BTS taken by perf (LBR, BTS or intel_bts events): -EBUSY until they end");
	KUNIT_EXPECT_EQ(test, err, -EBUSY);
	KUNIT_EXPECT_EQ(test, model->nlog, 0);
}

static void intel_bts_reason_names_every_missing_feature(struct kunit *test)
{
	struct intel_bts bts = { .hw = &intel_bts_model_hw, .nr = MODEL_NR };
	int err;

	model_init(test, MODEL_NR);
	KUNIT_EXPECT_NULL(test, intel_bts_reason(&bts, NULL));
	KUNIT_EXPECT_EQ(test, model->nlog, 0);
	model->pmu_bts = false;
	KUNIT_EXPECT_STREQ(test, intel_bts_reason(&bts, NULL),
			   "no BTS: perf did not set up BTS on this CPU");
	model->dtes64 = false;
	KUNIT_EXPECT_STREQ(test, intel_bts_reason(&bts, NULL),
			   "no BTS: the CPU lacks the 64-bit Debug Store format (DTES64)");
	model->bts = false;
	KUNIT_EXPECT_STREQ(test, intel_bts_reason(&bts, &err),
			   "no BTS: CPUID DS clear, or MISC_ENABLE.BTS_UNAVAIL set (as KVM sets it)");
	KUNIT_EXPECT_EQ(test, err, -ENODEV);
	/* Reported and sticking: a hypervisor that passes BTS through. */
	model_init(test, MODEL_NR);
	model->ctl_works = false;
	KUNIT_EXPECT_STREQ(test, intel_bts_reason(&bts, NULL),
			   "no BTS: DEBUGCTL's BTS bits do not stick (a hypervisor filters them)");
	KUNIT_EXPECT_EQ(test, model->nlog, 0);
	/* Meltdown: off unless bts.allow_meltdown=1 (read, not changed). */
	model_init(test, MODEL_NR);
	model->meltdown = true;
	if (intel_bts_allow_meltdown) {
		KUNIT_EXPECT_NULL(test, intel_bts_reason(&bts, NULL));
	} else {
		KUNIT_EXPECT_STREQ(test, intel_bts_reason(&bts, &err),
				   "off on a Meltdown CPU (any process could read it): bts.allow_meltdown=1");
		KUNIT_EXPECT_EQ(test, err, -EPERM);
	}
	/* DS-CPL is not needed to be available (only to filter user). */
	model_init(test, MODEL_NR);
	model->dscpl = false;
	KUNIT_EXPECT_NULL(test, intel_bts_reason(&bts, NULL));
}

static struct kunit_case intel_bts_perf_cases[] = {
	KUNIT_CASE(intel_bts_perf_ds_fields_restored_exactly),
	KUNIT_CASE(intel_bts_reason_takes_no_reservation),
	KUNIT_CASE(intel_bts_perf_reserve_takes_slot_then_hardware),
	KUNIT_CASE(intel_bts_perf_holding_slot_gives_ebusy),
	KUNIT_CASE(intel_bts_perf_gets_ebusy_while_armed),
	KUNIT_CASE(intel_bts_perf_reserve_failure_undoes_slot),
	KUNIT_CASE(intel_bts_perf_bts_inactive_is_enomem),
	KUNIT_CASE(intel_bts_perf_missing_cpu_buffer_is_enomem),
	KUNIT_CASE(intel_bts_perf_cpu_without_ds_is_not_armed),
	KUNIT_CASE(intel_bts_reason_names_every_missing_feature),
	{}
};

static struct kunit_suite intel_bts_perf_suite = {
	.name = "intel_bts_perf",
	.test_cases = intel_bts_perf_cases,
};

/* ---- suite intel_bts_stream: stream mode, the BTS interrupt ---- */

#define CTL_STREAM	(DEBUGCTLMSR_TR | DEBUGCTLMSR_BTS | DEBUGCTLMSR_BTINT | \
			 DEBUGCTLMSR_BTS_OFF_USR)
/* The interrupt threshold of the model's buffer, in records: 2 of 8. */
#define MODEL_THR	(MODEL_NR / 4)
/* The second threshold, while a drain is pending: 7 of 8. */
#define MODEL_LATE	(MODEL_NR - MODEL_NR / 8)

/* The records handed to the stream are branches @first, @first + 1, ... */
static void expect_emitted(struct kunit *test, unsigned int count,
			   unsigned int first)
{
	KUNIT_ASSERT_EQ(test, model->nemitted, count);
	expect_branches(test, model->emitted, count, first);
}

static void intel_bts_stream_arm_sets_btint_and_threshold(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, BTS_ARM_STREAM);
	struct debug_store *ds = model->ds;

	KUNIT_EXPECT_EQ(test, model->debugctl, MODEL_CTL_OTHERS | CTL_STREAM);
	KUNIT_EXPECT_EQ(test, ds->bts_absolute_maximum,
			ds->bts_buffer_base + MODEL_NR * sizeof(struct bts_record));
	/* half the buffer left free above the threshold */
	KUNIT_EXPECT_EQ(test, ds->bts_interrupt_threshold,
			ds->bts_buffer_base + MODEL_THR * sizeof(struct bts_record));
	KUNIT_EXPECT_TRUE(test, t->c.stream);
	/* the LVT entry is masked after INIT until perf programs it */
	KUNIT_EXPECT_EQ(test, model->unmasks, 1);
	KUNIT_EXPECT_EQ(test, intel_bts_stream_free(2730), 2048);
	KUNIT_EXPECT_EQ(test, intel_bts_stream_free(7), 6);
	KUNIT_EXPECT_EQ(test, intel_bts_stream_free(1), 1);
}

static void intel_bts_stream_pmi_drains_every_record_in_order(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, BTS_ARM_STREAM);
	unsigned int i;

	for (i = 0; i < 100; i++)
		model_branch_nmi(t, i);
	/*
	 * One interrupt per MODEL_THR records, each drained; perf alone
	 * unmasks the LVT entry in its handler (the source only at arm,
	 * in process context), so a counter overflow that came with the
	 * interrupt is acknowledged first.
	 */
	KUNIT_EXPECT_EQ(test, model->pmis, 100 / MODEL_THR);
	KUNIT_EXPECT_EQ(test, model->unmasks, 1);
	KUNIT_EXPECT_EQ(test, model->emit_calls, model->pmis);
	KUNIT_EXPECT_FALSE(test, model->lvtpc_masked);
	KUNIT_EXPECT_EQ(test, model->debugctl, MODEL_CTL_OTHERS | CTL_STREAM);
	KUNIT_EXPECT_EQ(test, model->nemitted, MODEL_THR * (100 / MODEL_THR));
	/* the disarm hands over the rest */
	intel_bts_cpu_disarm(&t->bts, &t->c);
	expect_emitted(test, 100, 0);
	KUNIT_EXPECT_EQ(test, model->emit_lost, 0);
	KUNIT_EXPECT_EQ(test, model->dropped, 0);
	KUNIT_EXPECT_EQ(test, model->faults, 0);
	KUNIT_EXPECT_EQ(test, model->debugctl, MODEL_CTL_OTHERS);
}

/*
 * The BTS interrupt of a buffer at the threshold, through perf's handler:
 * the entry hook asks for a drain and leaves BTS off, the rest of the NMI
 * is not recorded, the exit hook (after perf's ack) starts BTS again, and
 * the drain hands the records over after the NMI.
 */
static void expect_pmi_off_then_on(struct kunit *test, struct intel_bts_test *t)
{
	KUNIT_EXPECT_TRUE(test, model_pmi_enter(t));
	KUNIT_EXPECT_EQ(test, model->nemitted, 0);
	KUNIT_EXPECT_EQ(test, model->debugctl, MODEL_CTL_OTHERS |
			(CTL_STREAM & ~INTEL_BTS_CTL_RUN));
	model_run(100, 3 * MODEL_NR);
	KUNIT_EXPECT_EQ(test, model->ds->bts_index, model->ds->bts_buffer_base +
			MODEL_THR * sizeof(struct bts_record));
	model->lvtpc_masked = false;
	model_pmi_exit(t);
	expect_emitted(test, MODEL_THR, 0);
	KUNIT_EXPECT_EQ(test, model->ds->bts_index, model->ds->bts_buffer_base);
	KUNIT_EXPECT_EQ(test, model->debugctl, MODEL_CTL_OTHERS | CTL_STREAM);
}

/*
 * The BTS interrupt does constant work: it hands nothing to the stream
 * (perf counts its handler's time against its sample rate). BTS goes on
 * again when the NMI ends and records on above the threshold without a
 * second interrupt, here for as long as the interrupted code keeps
 * interrupts off; a capture meanwhile reads all of it; the drain, an
 * irq_work, runs once the CPU takes interrupts and hands everything over
 * in order, none lost; and the threshold works again after it.
 */
static void intel_bts_stream_nmi_hands_nothing_over(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, BTS_ARM_STREAM);
	struct bts_record out[MODEL_NR];
	enum bts_window w;

	model->irqs_off = true;
	model_run(0, MODEL_THR);
	KUNIT_EXPECT_TRUE(test, model_nmi(t));
	KUNIT_EXPECT_EQ(test, model->nmi_emits, 0);
	KUNIT_EXPECT_EQ(test, model->nemitted, 0);
	KUNIT_EXPECT_EQ(test, model->debugctl, MODEL_CTL_OTHERS | CTL_STREAM);
	KUNIT_EXPECT_EQ(test, model->ds->bts_interrupt_threshold,
			model->ds->bts_buffer_base +
			MODEL_LATE * sizeof(struct bts_record));
	/* up to the second threshold, one record short */
	model_run(MODEL_THR, MODEL_LATE - MODEL_THR - 1);
	KUNIT_EXPECT_EQ(test, model->pmis, 1);
	KUNIT_EXPECT_FALSE(test, model_nmi(t));
	KUNIT_ASSERT_EQ(test, model_read(t, out, MODEL_NR, &w), MODEL_LATE - 1);
	expect_branches(test, out, MODEL_LATE - 1, 0);
	model->irqs_off = false;
	model_irq_work(t);
	expect_emitted(test, MODEL_LATE - 1, 0);
	KUNIT_EXPECT_EQ(test, model->emit_lost, 0);
	KUNIT_EXPECT_EQ(test, model->nmi_emits, 0);
	KUNIT_EXPECT_EQ(test, model->ds->bts_index, model->ds->bts_buffer_base);
	KUNIT_EXPECT_EQ(test, model->debugctl, MODEL_CTL_OTHERS | CTL_STREAM);
	model_run(100, MODEL_THR);
	KUNIT_EXPECT_EQ(test, model->pmis, 2);
	KUNIT_EXPECT_TRUE(test, model_nmi(t));
	KUNIT_EXPECT_EQ(test, model->nemitted, MODEL_LATE - 1 + MODEL_THR);
	KUNIT_EXPECT_EQ(test, model->nmi_emits, 0);
	KUNIT_EXPECT_EQ(test, model->drains_queued, 2);
}

/* An NMI of another source on the CPU nmi_victim is (perf's handler runs). */
static void model_other_nmi(void)
{
	model_nmi(nmi_victim);
}

/*
 * An NMI that lands in the drain, with the index past the second
 * threshold (reached while the LVT entry was masked: no interrupt of its
 * own), leaves the records to the drain it interrupted: each is handed
 * over once, after the NMI, and the history's round ends where it did.
 */
static void intel_bts_stream_nmi_in_the_drain_leaves_it_the_records(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, BTS_ARM_STREAM);

	model->irqs_off = true;
	model_run(0, MODEL_THR);
	KUNIT_EXPECT_TRUE(test, model_nmi(t));
	model->lvtpc_masked = true;
	model_run(MODEL_THR, MODEL_LATE - MODEL_THR);
	model->lvtpc_masked = false;
	KUNIT_EXPECT_EQ(test, model->pmis, 1);
	model->irqs_off = false;
	/* right after the drain's first DEBUGCTL write, which stops BTS */
	nmi_victim = t;
	model->nmi = model_other_nmi;
	model->nmi_at = model->ctl_writes + 1;
	model_irq_work(t);
	KUNIT_EXPECT_NULL(test, model->nmi);	/* it did run */
	KUNIT_EXPECT_EQ(test, model->nmi_emits, 0);
	expect_emitted(test, MODEL_LATE, 0);
	KUNIT_EXPECT_EQ(test, t->c.prev_end, MODEL_LATE);
	KUNIT_EXPECT_EQ(test, model->ds->bts_index, model->ds->bts_buffer_base);
	KUNIT_EXPECT_EQ(test, model->debugctl, MODEL_CTL_OTHERS | CTL_STREAM);
}

/*
 * Interrupts off for longer than the room above the threshold holds: at
 * the second threshold the interrupt comes again and that NMI drains the
 * buffer itself, none lost, and the drain queued before finds nothing to
 * do. An NMI too late even for that finds the buffer full: the CPU
 * dropped records, and one is counted lost.
 */
static void intel_bts_stream_late_drain_drains_in_the_nmi(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, BTS_ARM_STREAM);
	unsigned int i;

	model->irqs_off = true;
	for (i = 0; i < MODEL_LATE; i++)
		model_branch_nmi(t, i);
	KUNIT_EXPECT_EQ(test, model->pmis, 2);
	KUNIT_EXPECT_EQ(test, model->nmi_emits, 1);
	expect_emitted(test, MODEL_LATE, 0);
	KUNIT_EXPECT_EQ(test, model->emit_lost, 0);
	KUNIT_EXPECT_EQ(test, model->ds->bts_index, model->ds->bts_buffer_base);
	KUNIT_EXPECT_EQ(test, model->debugctl, MODEL_CTL_OTHERS | CTL_STREAM);
	model->irqs_off = false;
	model_irq_work(t);
	KUNIT_EXPECT_EQ(test, model->nemitted, MODEL_LATE);
	/* the first threshold again, the drain after the NMI again */
	for (i = 0; i < MODEL_THR; i++)
		model_branch_nmi(t, 100 + i);
	KUNIT_EXPECT_EQ(test, model->pmis, 3);
	KUNIT_EXPECT_EQ(test, model->nemitted, MODEL_LATE + MODEL_THR);
	KUNIT_EXPECT_EQ(test, model->nmi_emits, 1);

	t = model_armed(test, MODEL_NR, BTS_ARM_STREAM);
	model->irqs_off = true;
	model_run(0, MODEL_THR);
	KUNIT_EXPECT_TRUE(test, model_nmi(t));
	model_run(MODEL_THR, MODEL_NR + 3);
	KUNIT_EXPECT_EQ(test, model->dropped, MODEL_THR + 3);
	KUNIT_EXPECT_TRUE(test, model_nmi(t));
	expect_emitted(test, MODEL_NR, 0);
	KUNIT_EXPECT_EQ(test, model->emit_lost, 1);
	model->irqs_off = false;
	model_irq_work(t);
	KUNIT_EXPECT_EQ(test, model->nemitted, MODEL_NR);
}

/*
 * perf times its PMI handler (perf_event_nmi_handler()) and lowers every
 * perf user's sampling rate when it seems slow: a drain from the irq_work
 * is not in it, whatever the drain costs. A late drain is, for it runs
 * in perf's handler while perf's counters are disabled (after it they
 * would count the drain, and lose samples), and its time is charged to
 * the budget.
 */
static void intel_bts_stream_perf_times_only_a_late_drain(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, BTS_ARM_STREAM);
	unsigned int i;

	model->perf_ns = 10;
	model->emit_ns = 1000;
	/* a drain from the irq_work */
	for (i = 0; i < MODEL_THR; i++)
		model_branch_nmi(t, i);
	KUNIT_EXPECT_EQ(test, model->nemitted, MODEL_THR);
	KUNIT_EXPECT_EQ(test, model->perf_longest, 10);
	/* a late one, from the NMI at the second threshold */
	model->irqs_off = true;
	for (i = 0; i < MODEL_LATE; i++)
		model_branch_nmi(t, 100 + i);
	KUNIT_EXPECT_EQ(test, model->nmi_emits, 1);
	KUNIT_EXPECT_EQ(test, model->nemitted, MODEL_THR + MODEL_LATE);
	KUNIT_EXPECT_EQ(test, model->perf_longest, 10 + model->emit_ns);
	KUNIT_EXPECT_EQ(test, t->c.last_drain, model->now);
	/* an NMI of something else while a drain is pending leaves it be */
	for (i = 0; i < MODEL_THR; i++)
		model_branch_nmi(t, 200 + i);
	KUNIT_EXPECT_FALSE(test, model_nmi(t));
	KUNIT_EXPECT_EQ(test, model->nmi_emits, 1);
	KUNIT_EXPECT_EQ(test, model->nemitted, MODEL_THR + MODEL_LATE);
	model->irqs_off = false;
	model->perf_longest = 0;
	model_irq_work(t);
	KUNIT_EXPECT_EQ(test, model->perf_longest, 0);
	KUNIT_EXPECT_EQ(test, model->debugctl, MODEL_CTL_OTHERS | CTL_STREAM);
	KUNIT_EXPECT_EQ(test, model->nemitted, 2 * MODEL_THR + MODEL_LATE);
}

static void intel_bts_stream_bts_stays_off_until_the_last_handler(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, BTS_ARM_STREAM);

	model_run(0, MODEL_THR);
	/* the rest of perf's handler: not recorded, cannot refill it */
	expect_pmi_off_then_on(test, t);
	/* once only, and not for an NMI that was not the interrupt */
	KUNIT_EXPECT_FALSE(test, model_nmi(t));
	KUNIT_EXPECT_EQ(test, model->debugctl, MODEL_CTL_OTHERS | CTL_STREAM);
	model_branch_nmi(t, MODEL_THR);
	KUNIT_EXPECT_EQ(test, model->emitted[MODEL_THR - 1].from,
			FROM(MODEL_THR - 1));
	KUNIT_EXPECT_EQ(test, model->nemitted, MODEL_THR);
}

static void intel_bts_stream_late_pmi_counts_a_loss(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, BTS_ARM_STREAM);
	struct debug_store *ds = model->ds;

	/* the interrupt is raised at 4 but handled only after 12 branches */
	model_run(0, 12);
	KUNIT_EXPECT_EQ(test, model->pmis, 1);
	KUNIT_EXPECT_EQ(test, model->dropped, 4);
	KUNIT_EXPECT_TRUE(test, model_nmi(t));
	expect_emitted(test, MODEL_NR, 0);
	KUNIT_EXPECT_EQ(test, model->emit_lost, 1);
	KUNIT_EXPECT_EQ(test, ds->bts_index, ds->bts_buffer_base);
	KUNIT_EXPECT_FALSE(test, model->lvtpc_masked);
	model_run(12, 1);
	intel_bts_cpu_disarm(&t->bts, &t->c);
	KUNIT_EXPECT_EQ(test, model->emitted[MODEL_NR].from, FROM(12));
	KUNIT_EXPECT_EQ(test, model->emit_lost, 1);
}

/*
 * What the NMI code does before and after perf's handler (its "took too
 * long" messages: more branches than the room above the threshold) is
 * not recorded between the NMI's first handler and its last, and nothing
 * is lost. Without that stop the same branches fill the buffer and the
 * drain counts a loss.
 */
static void intel_bts_stream_nmi_enter_stops_bts_until_perf(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, BTS_ARM_STREAM);

	/* the crossing: its NMI is taken, its first handler runs */
	model_run(0, MODEL_THR);
	KUNIT_ASSERT_TRUE(test, model->pmi_pending);
	intel_bts_cpu_nmi_enter(&t->bts, &t->c);
	KUNIT_EXPECT_EQ(test, model->debugctl, MODEL_CTL_OTHERS |
			(CTL_STREAM & ~INTEL_BTS_CTL_RUN));
	/* the NMI code's message, between the handlers */
	model_run(100, MODEL_NR);
	KUNIT_EXPECT_EQ(test, model->dropped, 0);
	/* perf's handler asks for the drain; BTS stays off after it */
	KUNIT_EXPECT_TRUE(test, model_pmi_enter(t));
	model->lvtpc_masked = false;
	intel_bts_cpu_pmi_exit(&t->bts, &t->c);
	KUNIT_EXPECT_EQ(test, model->nemitted, 0);
	/* the messages about two handlers after perf's: not recorded */
	model_run(200, 2 * MODEL_NR);
	KUNIT_EXPECT_EQ(test, model->ds->bts_index, model->ds->bts_buffer_base +
			MODEL_THR * sizeof(struct bts_record));
	/* the NMI's last handler starts BTS again; the drain follows */
	intel_bts_cpu_nmi_exit(&t->bts, &t->c);
	model->in_nmi = false;
	KUNIT_EXPECT_EQ(test, model->debugctl, MODEL_CTL_OTHERS | CTL_STREAM);
	model_irq_work(t);
	expect_emitted(test, MODEL_THR, 0);
	KUNIT_EXPECT_EQ(test, model->emit_lost, 0);
	KUNIT_EXPECT_EQ(test, model->dropped, 0);
	/* an NMI of a CPU not streaming changes nothing */
	intel_bts_cpu_disarm(&t->bts, &t->c);
	t = model_armed(test, MODEL_NR, 0);
	intel_bts_cpu_nmi_enter(&t->bts, &t->c);
	KUNIT_EXPECT_EQ(test, model->debugctl, MODEL_CTL_OTHERS |
			(CTL_STREAM & ~DEBUGCTLMSR_BTINT));

	/* without the stop: the message fills the buffer, a loss */
	t = model_armed(test, MODEL_NR, BTS_ARM_STREAM);
	model_run(0, MODEL_THR);
	model_run(100, MODEL_NR);
	KUNIT_EXPECT_EQ(test, model->dropped, MODEL_THR);
	KUNIT_EXPECT_TRUE(test, model_nmi(t));
	KUNIT_EXPECT_EQ(test, model->emit_lost, 1);
}

static void intel_bts_stream_other_nmis_are_not_claimed(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, BTS_ARM_STREAM);

	model_run(0, MODEL_THR - 1);
	KUNIT_EXPECT_FALSE(test, model_nmi(t));
	KUNIT_EXPECT_EQ(test, model->nemitted, 0);
	KUNIT_EXPECT_EQ(test, model->unmasks, 1);
	/* circular mode never claims one */
	t = model_armed(test, MODEL_NR, 0);
	model_run(0, 3 * MODEL_NR);
	KUNIT_EXPECT_FALSE(test, model_nmi(t));
	KUNIT_EXPECT_EQ(test, model->nemitted, 0);
}

/*
 * A freeze with IRQs off (a dump) does not block NMIs: the interrupt that
 * comes meanwhile asks for a drain, BTS stays off until the thaw, and the
 * drain runs when the dump turns interrupts on again.
 */
static void intel_bts_stream_pmi_while_frozen_drains_after(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, BTS_ARM_STREAM);
	struct bts_record out[MODEL_NR];
	enum bts_window w;

	model_run(0, 6);
	KUNIT_EXPECT_TRUE(test, model->pmi_pending);
	model->irqs_off = true;
	intel_bts_cpu_freeze(&t->bts, &t->c);
	KUNIT_EXPECT_TRUE(test, model_nmi(t));
	KUNIT_EXPECT_EQ(test, model->nemitted, 0);
	KUNIT_EXPECT_EQ(test, model->debugctl, MODEL_CTL_OTHERS |
			(CTL_STREAM & ~INTEL_BTS_CTL_RUN));
	KUNIT_ASSERT_EQ(test, intel_bts_cpu_read(&t->c, out, MODEL_NR, &w), 6);
	expect_branches(test, out, 6, 0);
	intel_bts_cpu_thaw(&t->bts, &t->c);
	KUNIT_EXPECT_EQ(test, model->debugctl, MODEL_CTL_OTHERS | CTL_STREAM);
	model->irqs_off = false;
	model_irq_work(t);
	expect_emitted(test, 6, 0);
	KUNIT_EXPECT_EQ(test, model->debugctl, MODEL_CTL_OTHERS | CTL_STREAM);
	model_branch_nmi(t, 6);
	KUNIT_EXPECT_EQ(test, model->nemitted, 6);
	KUNIT_EXPECT_EQ(test, model->unmasks, 1);
}

/*
 * A freeze and thaw inside an NMI (a capture, a bts_dump trigger on an
 * event that fires in NMI) while the interrupt waits behind it: the thaw
 * leaves the records to the interrupt, which comes right after that NMI
 * (a drain in the thaw would make it an NMI nobody claims).
 */
static void intel_bts_stream_thaw_leaves_the_drain_to_the_pmi(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, BTS_ARM_STREAM);

	model_run(0, 6);
	KUNIT_EXPECT_TRUE(test, model->pmi_pending);
	intel_bts_cpu_freeze(&t->bts, &t->c);
	intel_bts_cpu_thaw(&t->bts, &t->c);
	KUNIT_EXPECT_EQ(test, model->nemitted, 0);
	KUNIT_EXPECT_EQ(test, model->unmasks, 1);
	KUNIT_EXPECT_TRUE(test, model_nmi(t));
	expect_emitted(test, 6, 0);
	KUNIT_EXPECT_EQ(test, model->debugctl, MODEL_CTL_OTHERS | CTL_STREAM);
}

/*
 * A freeze and thaw nested in the interrupt's drain (the emit callback
 * writes the ring buffer; a trigger or function probe there dumps): the
 * thaw must not turn BTS on in the middle of the interrupt, nor drain the
 * records the outer drain is handing over.
 */
static void intel_bts_stream_nested_freeze_in_emit_keeps_bts_off(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, BTS_ARM_STREAM);

	model_run(0, MODEL_THR);
	/* a dump reached from the drain's own ring-buffer write */
	nmi_victim = t;
	model->emit_nested = model_capture_nmi;
	model->pmi_pending = false;
	expect_pmi_off_then_on(test, t);
	KUNIT_EXPECT_NULL(test, model->emit_nested);	/* it did run */
	model_branch_nmi(t, MODEL_THR);
	KUNIT_EXPECT_EQ(test, model->nemitted, MODEL_THR);
	KUNIT_EXPECT_EQ(test, model->dropped, 0);
}

static void intel_bts_stream_read_spans_the_last_drain(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, BTS_ARM_STREAM);
	struct bts_record out[MODEL_NR];
	enum bts_window w;
	unsigned int i;

	BUILD_BUG_ON(MODEL_THR != 2);
	for (i = 0; i < 3; i++)
		model_branch_nmi(t, i);
	expect_emitted(test, 2, 0);
	/* slot 0 holds 2; slot 1 still 1: streamed, kept */
	KUNIT_ASSERT_EQ(test, model_read(t, out, MODEL_NR, &w), 2);
	KUNIT_EXPECT_EQ(test, w, BTS_WINDOW_WRAPPED);
	expect_branches(test, out, 2, 1);
	KUNIT_ASSERT_EQ(test, model_read(t, out, 1, &w), 1);
	expect_branches(test, out, 1, 2);
	/* past the last drain's end: only the records since */
	model_branch_nmi(t, 3);
	expect_emitted(test, 4, 0);
	model_run(8, 3);
	KUNIT_ASSERT_EQ(test, model_read(t, out, MODEL_NR, &w), 3);
	expect_branches(test, out, 3, 8);
}

/*
 * A disarm that finds the buffer past the threshold lets the interrupt on
 * its way come and drain it, while the CPU is still armed: drained by the
 * disarm instead, the interrupt would come with nobody to claim it.
 */
static void intel_bts_stream_disarm_takes_the_pmi_on_its_way(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, BTS_ARM_STREAM);

	model_run(0, 6);
	KUNIT_EXPECT_TRUE(test, model->pmi_pending);
	/* (the disarm runs with IRQs off: the drain it asks for waits) */
	model->irqs_off = true;
	intel_bts_cpu_disarm(&t->bts, &t->c);
	KUNIT_EXPECT_FALSE(test, model->pmi_pending);
	KUNIT_EXPECT_EQ(test, model->settles, 1);
	KUNIT_EXPECT_EQ(test, model->emit_calls, 1);
	expect_emitted(test, 6, 0);
	KUNIT_EXPECT_EQ(test, model->debugctl, MODEL_CTL_OTHERS);
	/* the drain queued meanwhile finds the CPU disarmed */
	KUNIT_EXPECT_TRUE(test, model->drain_queued);
	model->irqs_off = false;
	model_irq_work(t);
	KUNIT_EXPECT_EQ(test, model->emit_calls, 1);
	/* any NMI from now on is not this source's */
	KUNIT_EXPECT_EQ(test, model_nmi(t), 0);
	KUNIT_EXPECT_EQ(test, model->nemitted, 6);
	/* a stale drain that runs after the CPU is armed again: nothing */
	KUNIT_ASSERT_EQ(test, intel_bts_cpu_arm(&t->bts, &t->c, 0), 0);
	model_run(20, 2);
	model->drain_queued = true;
	model_irq_work(t);
	KUNIT_EXPECT_EQ(test, model->nemitted, 6);
	KUNIT_EXPECT_EQ(test, model->ds->bts_index, model->ds->bts_buffer_base +
			2 * sizeof(struct bts_record));
	intel_bts_cpu_disarm(&t->bts, &t->c);
	KUNIT_EXPECT_EQ(test, model->nemitted, 8);
	/* below the threshold nothing is waited for */
	t = model_armed(test, MODEL_NR, BTS_ARM_STREAM);
	model_run(0, MODEL_THR - 1);
	intel_bts_cpu_disarm(&t->bts, &t->c);
	KUNIT_EXPECT_EQ(test, model->settles, 0);
	expect_emitted(test, MODEL_THR - 1, 0);
}

/* The same in the stream: cleared in the buffer before it is handed over. */
static void intel_bts_stream_kernel_only_clears_user_halves(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, BTS_ARM_STREAM);

	model_branch(FROM(0), USER_FROM(1), 0);
	model_branch(USER_FROM(2), TO(2), 0);
	model_run(3, MODEL_THR - 2);
	KUNIT_EXPECT_TRUE(test, model_nmi(t));
	KUNIT_ASSERT_EQ(test, model->nemitted, MODEL_THR);
	KUNIT_EXPECT_EQ(test, model->emitted[0].from, FROM(0));
	KUNIT_EXPECT_EQ(test, model->emitted[0].to, 0);
	KUNIT_EXPECT_EQ(test, model->emitted[1].from, 0);
	KUNIT_EXPECT_EQ(test, model->emitted[1].to, TO(2));
	KUNIT_EXPECT_TRUE(test, model->emitted[1].flags & BTS_FLAG_USER_CLEARED);
	expect_branches(test, &model->emitted[2], MODEL_THR - 2, 3);
}

static void intel_bts_stream_budget_owed_arithmetic(struct kunit *test)
{
	/* 90%: a drain of 9 ms owes 1 ms outside */
	KUNIT_EXPECT_EQ(test, intel_bts_budget_owed(0, 0, 9000000, 90), 1000000);
	/* time outside pays it off, never below zero */
	KUNIT_EXPECT_EQ(test, intel_bts_budget_owed(1000000, 400000, 0, 90),
			600000);
	KUNIT_EXPECT_EQ(test, intel_bts_budget_owed(1000000, 5000000, 0, 90), 0);
	/* 50%: as long outside as in the drain */
	KUNIT_EXPECT_EQ(test, intel_bts_budget_owed(0, 0, 3000, 50), 3000);
	/* seconds of draining do not overflow */
	KUNIT_EXPECT_EQ(test, intel_bts_budget_owed(0, 0, 100000000000ULL, 1),
			9900000000000ULL);
}

/*
 * At a budget of 50, BTS interrupts whose handlers take a third of a tick
 * each, nothing running in between: the fourth runs the debt past a
 * tick's worth, 4/3 ticks, and the CPU pauses that long, BTS left off
 * after perf's handler (the budget holds it).
 */
static void expect_paused_at_the_fourth(struct kunit *test,
					struct intel_bts_test *t)
{
	unsigned int i;

	for (i = 0; i < 5 * MODEL_THR && !model->throttles; i++)
		model_branch_nmi(t, i);
	KUNIT_EXPECT_EQ(test, model->pmis, 4);
	KUNIT_EXPECT_EQ(test, model->throttles, 1);
	KUNIT_EXPECT_EQ(test, model->throttle_ns, 4 * (TICK_NSEC / 3));
	KUNIT_EXPECT_EQ(test, model->debugctl, MODEL_CTL_OTHERS |
			(CTL_STREAM & ~INTEL_BTS_CTL_RUN));
}

/*
 * Drains that take more of the CPU than its budget leave BTS off after
 * the one that runs the debt past a tick's worth; the timer's end of the
 * pause starts it again and says a gap is in the stream. Drains within
 * the budget never do.
 */
static void intel_bts_stream_budget_pauses_a_cpu_over_it(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, BTS_ARM_STREAM);
	unsigned int save = bts_stream_budget();
	unsigned int i;

	bts_set_stream_budget(50);
	/* each drain takes a third of a tick */
	model->emit_ns = TICK_NSEC / 3;
	expect_paused_at_the_fourth(test, t);
	KUNIT_EXPECT_EQ(test, model->emit_lost, 0);
	/* the pause ends: BTS on again, a gap before what comes next */
	model->now += model->throttle_ns;
	intel_bts_cpu_unthrottle(&t->bts, &t->c);
	KUNIT_EXPECT_EQ(test, model->debugctl, MODEL_CTL_OTHERS | CTL_STREAM);
	KUNIT_EXPECT_EQ(test, model->emit_lost, 1);
	KUNIT_EXPECT_EQ(test, model->emit_paused, 1);
	/* a second end (a stale timer) changes nothing */
	intel_bts_cpu_unthrottle(&t->bts, &t->c);
	KUNIT_EXPECT_EQ(test, model->emit_lost, 1);

	/* within the budget: as long outside as in each drain */
	model->throttles = 0;
	for (i = 0; i < 4 * MODEL_THR; i++) {
		if (i % MODEL_THR == 0)
			model->now += TICK_NSEC / 3;
		model_branch_nmi(t, 100 + i);
	}
	KUNIT_EXPECT_EQ(test, model->throttles, 0);
	KUNIT_EXPECT_EQ(test, model->debugctl, MODEL_CTL_OTHERS | CTL_STREAM);
	bts_set_stream_budget(save);
	intel_bts_cpu_disarm(&t->bts, &t->c);
}

/*
 * The budget is of the whole handler: perf's work in a PMI handler that
 * asked for a drain (here a third of a tick, the drain itself nothing)
 * is charged as the drain is.
 */
static void intel_bts_stream_budget_charges_the_whole_handler(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, BTS_ARM_STREAM);
	unsigned int save = bts_stream_budget();

	bts_set_stream_budget(50);
	model->perf_ns = TICK_NSEC / 3;
	expect_paused_at_the_fourth(test, t);
	bts_set_stream_budget(save);
	intel_bts_cpu_disarm(&t->bts, &t->c);
}

/*
 * A thaw that an NMI interrupts between its test of the stop reasons and
 * its DEBUGCTL write, an NMI that drains past the budget and returns with
 * the budget holding BTS off: the thaw's write must not leave BTS on.
 */
static void intel_bts_stream_budget_holds_through_an_interrupted_thaw(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, BTS_ARM_STREAM);
	unsigned int save = bts_stream_budget();

	bts_set_stream_budget(10);
	model->perf_ns = 2 * TICK_NSEC;
	/* at the threshold, its interrupt not delivered yet: then a dump */
	model_run(0, MODEL_THR);
	KUNIT_ASSERT_TRUE(test, model->pmi_pending);
	model->irqs_off = true;
	intel_bts_cpu_freeze(&t->bts, &t->c);
	/* the interrupt lands in the thaw, after it read DEBUGCTL */
	model->nmi = model_deliver_pending;
	model->nmi_before = true;
	model->nmi_at = model->ctl_writes + 1;
	intel_bts_cpu_thaw(&t->bts, &t->c);
	KUNIT_EXPECT_NULL(test, model->nmi);	/* it did run */
	KUNIT_EXPECT_EQ(test, model->throttles, 1);
	KUNIT_EXPECT_EQ(test, model->debugctl, MODEL_CTL_OTHERS |
			(CTL_STREAM & ~INTEL_BTS_CTL_RUN));
	/* the dump turns interrupts on: the drain leaves BTS off too */
	model->irqs_off = false;
	model_irq_work(t);
	expect_emitted(test, MODEL_THR, 0);
	KUNIT_EXPECT_EQ(test, model->debugctl, MODEL_CTL_OTHERS |
			(CTL_STREAM & ~INTEL_BTS_CTL_RUN));
	/* the pause ends: on again */
	intel_bts_cpu_unthrottle(&t->bts, &t->c);
	KUNIT_EXPECT_EQ(test, model->debugctl, MODEL_CTL_OTHERS | CTL_STREAM);
	bts_set_stream_budget(save);
	intel_bts_cpu_disarm(&t->bts, &t->c);
}

/* A disarm during the pause: the timer's end finds nothing to start. */
static void intel_bts_stream_budget_pause_ends_after_disarm(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, BTS_ARM_STREAM);
	unsigned int save = bts_stream_budget();
	unsigned int i;

	bts_set_stream_budget(10);
	model->emit_ns = 2 * TICK_NSEC;
	for (i = 0; i < MODEL_THR; i++)
		model_branch_nmi(t, i);
	KUNIT_EXPECT_EQ(test, model->throttles, 1);
	intel_bts_cpu_disarm(&t->bts, &t->c);
	KUNIT_EXPECT_EQ(test, model->debugctl, MODEL_CTL_OTHERS);
	intel_bts_cpu_unthrottle(&t->bts, &t->c);
	KUNIT_EXPECT_EQ(test, model->debugctl, MODEL_CTL_OTHERS);
	/* and says nothing into a stream that has ended */
	KUNIT_EXPECT_EQ(test, model->emit_lost, 0);
	bts_set_stream_budget(save);
}

static struct kunit_case intel_bts_stream_cases[] = {
	KUNIT_CASE(intel_bts_stream_budget_owed_arithmetic),
	KUNIT_CASE(intel_bts_stream_budget_pauses_a_cpu_over_it),
	KUNIT_CASE(intel_bts_stream_budget_pause_ends_after_disarm),
	KUNIT_CASE(intel_bts_stream_budget_charges_the_whole_handler),
	KUNIT_CASE(intel_bts_stream_budget_holds_through_an_interrupted_thaw),
	KUNIT_CASE(intel_bts_stream_arm_sets_btint_and_threshold),
	KUNIT_CASE(intel_bts_stream_pmi_drains_every_record_in_order),
	KUNIT_CASE(intel_bts_stream_bts_stays_off_until_the_last_handler),
	KUNIT_CASE(intel_bts_stream_late_pmi_counts_a_loss),
	KUNIT_CASE(intel_bts_stream_nmi_hands_nothing_over),
	KUNIT_CASE(intel_bts_stream_late_drain_drains_in_the_nmi),
	KUNIT_CASE(intel_bts_stream_perf_times_only_a_late_drain),
	KUNIT_CASE(intel_bts_stream_nmi_in_the_drain_leaves_it_the_records),
	KUNIT_CASE(intel_bts_stream_nmi_enter_stops_bts_until_perf),
	KUNIT_CASE(intel_bts_stream_other_nmis_are_not_claimed),
	KUNIT_CASE(intel_bts_stream_pmi_while_frozen_drains_after),
	KUNIT_CASE(intel_bts_stream_thaw_leaves_the_drain_to_the_pmi),
	KUNIT_CASE(intel_bts_stream_nested_freeze_in_emit_keeps_bts_off),
	KUNIT_CASE(intel_bts_stream_kernel_only_clears_user_halves),
	KUNIT_CASE(intel_bts_stream_read_spans_the_last_drain),
	KUNIT_CASE(intel_bts_stream_disarm_takes_the_pmi_on_its_way),
	{}
};

static struct kunit_suite intel_bts_stream_suite = {
	.name = "intel_bts_stream",
	.test_cases = intel_bts_stream_cases,
};

/* ---- suite intel_bts_hw: real BTS, bare-metal Intel only ---- */

/* Skip unless the real source can be armed here and nothing is armed. */
static void hw_require_bts(struct kunit *test)
{
	const char *why = intel_bts_source.unavailable(NULL);

	if (why)
		kunit_skip(test, "needs real BTS: %s", why);
	if (bts_armed_source())
		kunit_skip(test, "needs real BTS: source %s is armed",
			   bts_armed_source()->name);
}

/* Kernel only where the CPU can filter (DS-CPL), else user too. */
static unsigned int hw_arm_flags(void)
{
	return boot_cpu_has(X86_FEATURE_DSCPL) ? 0 : BTS_ARM_USER;
}

static noinline int hw_branchy(int i)
{
	return i & 1 ? i * 3 : i + 7;
}

static void intel_bts_hw_records_kernel_branches(struct kunit *test)
{
	struct bts_record *out;
	enum bts_window w;
	unsigned int got, i;
	int sum = 0;

	hw_require_bts(test);
	out = kunit_kcalloc(test, 64, sizeof(*out), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, out);
	KUNIT_ASSERT_EQ(test, intel_bts_source.arm(hw_arm_flags()), 0);
	preempt_disable();
	for (i = 0; i < 100; i++)
		sum += hw_branchy(i);
	local_irq_disable();
	intel_bts_source.freeze_this_cpu();
	got = intel_bts_source.read_this_cpu(out, 64, &w);
	intel_bts_source.thaw_this_cpu();
	local_irq_enable();
	preempt_enable();
	intel_bts_source.disarm();
	KUNIT_EXPECT_EQ(test, got, 64);
	KUNIT_EXPECT_NE(test, w, BTS_WINDOW_EMPTY);
	for (i = 0; i < got; i++)
		KUNIT_EXPECT_TRUE_MSG(test, out[i].from && out[i].to,
				      "record %u never written (sum %d)", i,
				      sum);
}

static void intel_bts_hw_debugctl_bits_on_this_cpu(struct kunit *test)
{
	u64 armed, disarmed;

	hw_require_bts(test);
	KUNIT_ASSERT_EQ(test, intel_bts_source.arm(hw_arm_flags()), 0);
	preempt_disable();
	armed = get_debugctlmsr();
	preempt_enable();
	intel_bts_source.disarm();
	preempt_disable();
	disarmed = get_debugctlmsr();
	preempt_enable();
	KUNIT_EXPECT_EQ(test, armed & INTEL_BTS_CTL_MASK,
			intel_bts_ctl_bits(hw_arm_flags()));
	KUNIT_EXPECT_EQ(test, disarmed & INTEL_BTS_CTL_MASK, 0);
}

/*
 * The DEBUGCTL bits that are not the source's survive arming, a freeze
 * and thaw, and the disarm, in both modes: BTF (ptrace's block-step),
 * FREEZE_LBRS_ON_PMI (perf's LBR) set here, and whatever the kernel set
 * at boot (FREEZE_IN_SMM: perf sets it on every CPU). Silicon keeps them
 * as written, and so must an emulated CPU that claims BTS; one
 * that reads them back as 0 makes this test fail rather than pass
 * without having looked.
 */
static void intel_bts_hw_debugctl_others_kept(struct kunit *test)
{
	const u64 mine = DEBUGCTLMSR_BTF | DEBUGCTLMSR_FREEZE_LBRS_ON_PMI;
	const unsigned int modes[] = { 0, BTS_ARM_STREAM };
	u64 orig, before, armed, after;
	unsigned int i;
	int ret;

	hw_require_bts(test);
	/* the CPU whose DEBUGCTL is looked at; arming may sleep */
	migrate_disable();
	orig = get_debugctlmsr();
	update_debugctlmsr(orig | mine);
	before = get_debugctlmsr();
	KUNIT_EXPECT_EQ_MSG(test, before & mine, mine,
			    "the CPU did not keep BTF and FREEZE_LBRS_ON_PMI");
	for (i = 0; i < ARRAY_SIZE(modes); i++) {
		ret = intel_bts_source.arm(hw_arm_flags() | modes[i]);
		if (ret == -EOPNOTSUPP && modes[i])
			continue;	/* no stream mode on this PMU */
		/* not an ASSERT: DEBUGCTL and migration are put back below */
		KUNIT_EXPECT_EQ(test, ret, 0);
		if (ret)
			break;
		local_irq_disable();
		intel_bts_source.freeze_this_cpu();
		intel_bts_source.thaw_this_cpu();
		local_irq_enable();
		armed = get_debugctlmsr();
		intel_bts_source.disarm();
		after = get_debugctlmsr();
		KUNIT_EXPECT_EQ_MSG(test, armed & ~INTEL_BTS_CTL_MASK,
				    before & ~INTEL_BTS_CTL_MASK,
				    "armed, mode %u", modes[i]);
		KUNIT_EXPECT_EQ_MSG(test, after, before & ~INTEL_BTS_CTL_MASK,
				    "disarmed, mode %u", modes[i]);
	}
	update_debugctlmsr(orig);
	migrate_enable();
}

static void intel_bts_hw_perf_fields_restored(struct kunit *test)
{
	struct intel_bts_ds_fields before, after;
	struct debug_store *ds;
	int cpu;

	hw_require_bts(test);
	/* Hold perf's DS area ourselves, so it lives across the disarm. */
	KUNIT_ASSERT_EQ(test, x86_reserve_hardware(), 0);
	cpu = get_cpu();
	ds = per_cpu(cpu_hw_events, cpu).ds;
	put_cpu();
	if (!ds) {
		x86_release_hardware();
		kunit_skip(test, "perf has no DS area on CPU %d", cpu);
	}
	before = (struct intel_bts_ds_fields){ ds->bts_buffer_base,
		ds->bts_index, ds->bts_absolute_maximum,
		ds->bts_interrupt_threshold };
	KUNIT_EXPECT_EQ(test, intel_bts_source.arm(BTS_ARM_USER), 0);
	msleep(20);
	intel_bts_source.disarm();
	after = (struct intel_bts_ds_fields){ ds->bts_buffer_base,
		ds->bts_index, ds->bts_absolute_maximum,
		ds->bts_interrupt_threshold };
	x86_release_hardware();
	KUNIT_EXPECT_EQ(test, after.base, before.base);
	KUNIT_EXPECT_EQ(test, after.index, before.index);
	KUNIT_EXPECT_EQ(test, after.abs_max, before.abs_max);
	KUNIT_EXPECT_EQ(test, after.threshold, before.threshold);
}

static void intel_bts_hw_perf_lbr_excluded_while_armed(struct kunit *test)
{
	hw_require_bts(test);
	KUNIT_ASSERT_EQ(test, intel_bts_source.arm(hw_arm_flags()), 0);
	KUNIT_EXPECT_EQ(test, x86_add_exclusive(x86_lbr_exclusive_lbr), -EBUSY);
	intel_bts_source.disarm();
	KUNIT_EXPECT_EQ(test, x86_add_exclusive(x86_lbr_exclusive_lbr), 0);
	x86_del_exclusive(x86_lbr_exclusive_lbr);
}

static struct kunit_case intel_bts_hw_cases[] = {
	KUNIT_CASE(intel_bts_hw_records_kernel_branches),
	KUNIT_CASE(intel_bts_hw_debugctl_bits_on_this_cpu),
	KUNIT_CASE(intel_bts_hw_debugctl_others_kept),
	KUNIT_CASE(intel_bts_hw_perf_fields_restored),
	KUNIT_CASE(intel_bts_hw_perf_lbr_excluded_while_armed),
	{}
};

static struct kunit_suite intel_bts_hw_suite = {
	.name = "intel_bts_hw",
	.test_cases = intel_bts_hw_cases,
};

/* ---- suite intel_bts_live: the slot a debugger reads ---- */

/*
 * A debugger's reading of a live slot, written from the text of
 * include/uapi/linux/bts.h alone: all the history, oldest first.
 */
static unsigned int live_read(const struct bts_live_slot *s,
			      struct bts_record *out, enum bts_window *w)
{
	const struct bts_record *recs = (const void *)(unsigned long)s->recs;
	u64 head = *(const u64 *)(unsigned long)s->head;
	unsigned int pos, end = 0, i, n = 0;
	bool wrapped = false;

	*w = BTS_WINDOW_EMPTY;
	if (head < s->head_base || (head - s->head_base) / 24 > s->nr)
		return 0;
	pos = (head - s->head_base) / 24;
	if (s->kind == BTS_LIVE_CIRCULAR) {
		if (pos == s->nr)
			pos = 0;
		wrapped = recs[pos].from || recs[pos].to;
		end = wrapped ? s->nr : pos;
	} else if (s->kind == BTS_LIVE_STREAM) {
		end = max(pos, *(const u32 *)(unsigned long)s->tail);
		wrapped = *(const u8 *)(unsigned long)s->drained;
	}
	for (i = pos; i < end; i++)
		out[n++] = recs[i];
	for (i = 0; i < pos; i++)
		out[n++] = recs[i];
	for (i = 0; i < n && (s->flags & BTS_LIVE_CLEAR_USER); i++) {
		if (out[i].from && !(out[i].from >> 63)) {
			out[i].from = 0;
			out[i].flags |= BTS_FLAG_USER_CLEARED;
		}
		if (out[i].to && !(out[i].to >> 63)) {
			out[i].to = 0;
			out[i].flags |= BTS_FLAG_USER_CLEARED;
		}
	}
	if (n)
		*w = wrapped ? BTS_WINDOW_WRAPPED : BTS_WINDOW_PARTIAL;
	return n;
}

/* What the slot says is what intel_bts_cpu_read() copies, all of it. */
static void expect_live_reads_the_same(struct kunit *test,
				       struct intel_bts_test *t,
				       const char *when)
{
	struct bts_record src[MODEL_NR], dbg[MODEL_NR];
	struct bts_live_slot slot;
	enum bts_window ws, wd;
	unsigned int ns, nd;

	intel_bts_cpu_live(&t->c, &slot);
	intel_bts_cpu_freeze(&t->bts, &t->c);
	ns = intel_bts_cpu_read(&t->c, src, MODEL_NR, &ws);
	nd = live_read(&slot, dbg, &wd);
	intel_bts_cpu_thaw(&t->bts, &t->c);
	KUNIT_EXPECT_EQ_MSG(test, nd, ns, "%s: count", when);
	KUNIT_EXPECT_EQ_MSG(test, wd, ws, "%s: window", when);
	if (nd == ns)
		KUNIT_EXPECT_MEMEQ_MSG(test, dbg, src, ns * sizeof(*src),
				       "%s: records", when);
}

static void intel_bts_live_slot_describes_the_cpu(struct kunit *test)
{
	struct intel_bts_test *t = model_armed(test, MODEL_NR, 0);
	struct bts_live_slot slot;

	intel_bts_cpu_live(&t->c, &slot);
	KUNIT_EXPECT_EQ(test, slot.source, BTS_SOURCE_HW);
	KUNIT_EXPECT_EQ(test, slot.kind, BTS_LIVE_CIRCULAR);
	KUNIT_EXPECT_EQ(test, slot.nr, MODEL_NR);
	KUNIT_EXPECT_EQ(test, slot.flags, BTS_LIVE_CLEAR_USER);
	KUNIT_EXPECT_EQ(test, slot.head_base, MODEL_BASE);
	KUNIT_EXPECT_EQ(test, slot.tail, 0);
	KUNIT_EXPECT_EQ(test, slot.seq, 0);
	t = model_armed(test, MODEL_NR, BTS_ARM_STREAM | BTS_ARM_USER);
	intel_bts_cpu_live(&t->c, &slot);
	KUNIT_EXPECT_EQ(test, slot.kind, BTS_LIVE_STREAM);
	KUNIT_EXPECT_EQ(test, slot.flags, 0);
	KUNIT_EXPECT_NE(test, slot.tail, 0);
	KUNIT_EXPECT_NE(test, slot.drained, 0);
}

/* Ring mode, kernel only and with user branches, through every state. */
static void intel_bts_live_ring_reads_as_the_source(struct kunit *test)
{
	static const unsigned int arm[] = { 0, BTS_ARM_USER };
	unsigned int a, i;

	for (a = 0; a < ARRAY_SIZE(arm); a++) {
		struct intel_bts_test *t = model_armed(test, MODEL_NR, arm[a]);

		expect_live_reads_the_same(test, t, "armed");
		model_run(0, 3);
		expect_live_reads_the_same(test, t, "3 records");
		/* a return to user mode, and an entry from it */
		model_branch(FROM(3), USER_FROM(3), 0);
		model_branch(USER_FROM(4), TO(4), 3);
		expect_live_reads_the_same(test, t, "user halves");
		model_run(5, MODEL_NR - 6);
		expect_live_reads_the_same(test, t, "one short of full");
		model_run(MODEL_NR - 1, 1);
		expect_live_reads_the_same(test, t, "full: index at the base");
		for (i = 0; i < 2 * MODEL_NR + 3; i++) {
			model_run(MODEL_NR + i, 1);
			expect_live_reads_the_same(test, t, "wrapped");
		}
	}
}

/* Stream mode: before the first drain, across drains, kernel only. */
static void intel_bts_live_stream_reads_as_the_source(struct kunit *test)
{
	static const unsigned int arm[] = { 0, BTS_ARM_USER };
	unsigned int a, i;

	for (a = 0; a < ARRAY_SIZE(arm); a++) {
		struct intel_bts_test *t = model_armed(test, MODEL_NR,
						       BTS_ARM_STREAM | arm[a]);

		expect_live_reads_the_same(test, t, "armed");
		model_branch(FROM(0), USER_FROM(0), 0);
		model_branch(USER_FROM(1), TO(1), 3);
		expect_live_reads_the_same(test, t, "user halves");
		for (i = 2; i < 5 * MODEL_NR; i++) {
			model_branch_nmi(t, i);
			expect_live_reads_the_same(test, t, "streaming");
		}
		/* not drained yet: past the threshold, the interrupt held */
		model_run(5 * MODEL_NR, MODEL_THR + 1);
		expect_live_reads_the_same(test, t, "interrupt pending");
	}
}

static struct kunit_case intel_bts_live_cases[] = {
	KUNIT_CASE(intel_bts_live_slot_describes_the_cpu),
	KUNIT_CASE(intel_bts_live_ring_reads_as_the_source),
	KUNIT_CASE(intel_bts_live_stream_reads_as_the_source),
	{}
};

static struct kunit_suite intel_bts_live_suite = {
	.name = "intel_bts_live",
	.test_cases = intel_bts_live_cases,
};

kunit_test_suites(&intel_bts_model_suite, &intel_bts_debugctl_suite,
		  &intel_bts_perf_suite, &intel_bts_stream_suite,
		  &intel_bts_live_suite, &intel_bts_hw_suite);
