// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of stream mode's sink. #included at the end of
 * trace_bts_stream.c (CONFIG_BTS_TRACER_KUNIT_TEST) so the tests see its
 * static functions. The sink writes into a private instance's buffer;
 * no source is armed. Each case reads as one sentence of the spec.
 */
#include <kunit/test.h>

struct stream_fixture {
	struct trace_array *tr;
	struct trace_buffer *buffer;
	struct bts_stream_cpu *sc;
	int cpu;
};

/*
 * A private instance takes the stream; this CPU's counts start at zero.
 * Preemption is off until stream_expect() (the writes are this CPU's).
 */
static void stream_start(struct kunit *test, struct stream_fixture *f)
{
	f->tr = trace_array_get_by_name("bts_kunit_stream", NULL);
	KUNIT_ASSERT_NOT_NULL(test, f->tr);
	/* Boot time: no tracer is streaming, and none starts meanwhile. */
	KUNIT_ASSERT_NULL(test, READ_ONCE(bts_stream_tr));
	bts_stream_reset();
	WRITE_ONCE(bts_stream_tr, f->tr);
	f->buffer = f->tr->array_buffer.buffer;
	preempt_disable();
	f->cpu = smp_processor_id();
	f->sc = this_cpu_ptr(&bts_stream_cpus);
}

static void stream_stop(struct stream_fixture *f)
{
	WRITE_ONCE(bts_stream_tr, NULL);
	trace_array_put(f->tr);
	trace_array_destroy(f->tr);
}

/* The next entry of @cpu's buffer: its type, and pos or lost. */
static int stream_next(struct trace_buffer *buffer, int cpu, u64 *val)
{
	struct ring_buffer_event *event;
	struct trace_entry *ent;

	event = ring_buffer_consume(buffer, cpu, NULL, NULL);
	if (!event)
		return -1;
	ent = ring_buffer_event_data(event);
	if (ent->type == TRACE_BTS)
		*val = ((struct bts_entry *)ent)->pos;
	else if (ent->type == TRACE_BTS_GAP)
		*val = ((struct bts_gap_entry *)ent)->lost;
	return ent->type;
}

/* An entry the stream must hold: a record with its pos, or a gap. */
struct stream_want {
	int type;
	u64 val;
};

#define REC(pos)	{ TRACE_BTS, pos }
#define GAP(lost)	{ TRACE_BTS_GAP, lost }

/*
 * Preemption back on; the stream holds exactly @n entries as @want, and
 * its counts add up.
 */
static void stream_expect(struct kunit *test, struct stream_fixture *f,
			  const struct stream_want *want, unsigned int n)
{
	unsigned int i;
	u64 val = 0;

	preempt_enable();
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ_MSG(test, stream_next(f->buffer, f->cpu, &val),
				    want[i].type, "entry %u", i);
		KUNIT_EXPECT_EQ_MSG(test, val, want[i].val, "entry %u", i);
	}
	KUNIT_EXPECT_EQ(test, stream_next(f->buffer, f->cpu, &val), -1);
	KUNIT_EXPECT_EQ(test, local_read(&f->sc->seq),
			local_read(&f->sc->written) + local_read(&f->sc->lost));
}

static const struct bts_record stream_recs[3] = {
	{ 0x1000, 0x2000, BTS_FLAG_SW }, { 0x1001, 0x2001, BTS_FLAG_SW },
	{ 0x1002, 0x2002, BTS_FLAG_SW },
};

static void stream_nmi_while_writing_is_counted_and_reported(struct kunit *test)
{
	static const struct stream_want want[] = { GAP(3), REC(3), REC(4) };
	struct stream_fixture f;
	u64 val = 0;

	stream_start(test, &f);
	/* as an NMI finds it while this CPU writes */
	f.sc->busy = 1;
	bts_stream_write(stream_recs, 3, 0, false);
	f.sc->busy = 0;
	KUNIT_EXPECT_EQ(test, local_read(&f.sc->lost), 3);
	KUNIT_EXPECT_EQ(test, local_read(&f.sc->written), 0);
	KUNIT_EXPECT_EQ(test, stream_next(f.buffer, f.cpu, &val), -1);
	bts_stream_write(stream_recs, 2, 0, false);
	stream_expect(test, &f, want, ARRAY_SIZE(want));
	KUNIT_EXPECT_EQ(test, local_read(&f.sc->seq), 5);
	KUNIT_EXPECT_EQ(test, local_read(&f.sc->pending), 0);
	KUNIT_EXPECT_EQ(test, local_read(&f.sc->gaps), 1);
	stream_stop(&f);
}

static void stream_refused_records_are_counted_and_reported(struct kunit *test)
{
	static const struct stream_want want[] = { REC(0), GAP(3), REC(4) };
	struct stream_fixture f;

	stream_start(test, &f);
	bts_stream_write(stream_recs, 1, 0, false);
	ring_buffer_record_disable(f.buffer);
	bts_stream_write(stream_recs, 2, 0, false);
	/* the gap entry is refused too: the record after it is lost */
	bts_stream_write(stream_recs, 1, 0, false);
	ring_buffer_record_enable(f.buffer);
	KUNIT_EXPECT_EQ(test, local_read(&f.sc->lost), 3);
	KUNIT_EXPECT_EQ(test, local_read(&f.sc->pending), 3);
	bts_stream_write(stream_recs, 1, 0, false);
	stream_expect(test, &f, want, ARRAY_SIZE(want));
	stream_stop(&f);
}

/* A full hardware buffer: the source says at least one record is gone. */
static void stream_source_losses_are_counted_and_reported(struct kunit *test)
{
	static const struct stream_want want[] = {
		REC(0), REC(1), GAP(1), REC(3), GAP(4), REC(8),
	};
	struct stream_fixture f;

	stream_start(test, &f);
	bts_stream_write(stream_recs, 2, 0, false);
	bts_stream_write(NULL, 0, 1, false);
	bts_stream_write(stream_recs, 1, 0, false);
	bts_stream_write(stream_recs, 1, 4, false);
	stream_expect(test, &f, want, ARRAY_SIZE(want));
	KUNIT_EXPECT_EQ(test, local_read(&f.sc->lost), 5);
	KUNIT_EXPECT_EQ(test, local_read(&f.sc->src_lost), 5);
	KUNIT_EXPECT_EQ(test, local_read(&f.sc->gaps), 2);
	stream_stop(&f);
}

/*
 * A pause of the source (stream mode's budget) is a gap like a loss, but
 * counted as a pause, not as a record the source lost.
 */
static void stream_source_pauses_are_counted_apart(struct kunit *test)
{
	static const struct stream_want want[] = { REC(0), GAP(1), REC(2) };
	struct stream_fixture f;

	stream_start(test, &f);
	bts_stream_write(stream_recs, 1, 0, false);
	bts_stream_write(NULL, 0, 1, true);
	bts_stream_write(stream_recs, 1, 0, false);
	stream_expect(test, &f, want, ARRAY_SIZE(want));
	KUNIT_EXPECT_EQ(test, local_read(&f.sc->lost), 1);
	KUNIT_EXPECT_EQ(test, local_read(&f.sc->paused), 1);
	KUNIT_EXPECT_EQ(test, local_read(&f.sc->src_lost), 0);
	KUNIT_EXPECT_EQ(test, local_read(&f.sc->gaps), 1);
	stream_stop(&f);
}

static struct kunit_case bts_stream_cases[] = {
	KUNIT_CASE(stream_nmi_while_writing_is_counted_and_reported),
	KUNIT_CASE(stream_refused_records_are_counted_and_reported),
	KUNIT_CASE(stream_source_losses_are_counted_and_reported),
	KUNIT_CASE(stream_source_pauses_are_counted_apart),
	{}
};

static struct kunit_suite bts_stream_suite = {
	.name = "trace_bts_stream",
	.test_cases = bts_stream_cases,
};

kunit_test_suites(&bts_stream_suite);
