// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the bts task filter's choices. #included at the end of
 * trace_bts_pid.c (CONFIG_BTS_TRACER_KUNIT_TEST) so the tests see its
 * static functions. The probes are called directly with made-up tasks
 * and a made-up trace array holding the pid lists; none is registered
 * and no source is armed. Each case reads as one sentence of the spec.
 */
#include <kunit/test.h>

struct pid_fixture {
	struct trace_array *tr;
	struct trace_pid_list *pids, *no_pids;
	bool stale_owned;		/* bts_pid_stale is this test's */
};

/* A trace array whose set_ftrace_pid holds @pids (0-terminated). */
static struct trace_array *pid_tr(struct kunit *test, struct pid_fixture *f,
				  const int *pids, const int *no_pids)
{
	f->tr = kunit_kzalloc(test, sizeof(*f->tr), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->tr);
	if (pids) {
		f->pids = trace_pid_list_alloc();
		KUNIT_ASSERT_NOT_NULL(test, f->pids);
		for (; *pids; pids++)
			KUNIT_ASSERT_EQ(test, trace_pid_list_set(f->pids, *pids), 0);
		RCU_INIT_POINTER(f->tr->function_pids, f->pids);
	}
	if (no_pids) {
		f->no_pids = trace_pid_list_alloc();
		KUNIT_ASSERT_NOT_NULL(test, f->no_pids);
		for (; *no_pids; no_pids++)
			KUNIT_ASSERT_EQ(test, trace_pid_list_set(f->no_pids, *no_pids), 0);
		RCU_INIT_POINTER(f->tr->function_no_pids, f->no_pids);
	}
	return f->tr;
}

static struct task_struct *fake_task(struct kunit *test, pid_t pid)
{
	struct task_struct *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->pid = pid;
	return t;
}

static bool pid_chosen(struct trace_array *tr, struct task_struct *t)
{
	bool ret;

	preempt_disable();
	ret = bts_pid_chosen(tr, t);
	preempt_enable();
	return ret;
}

static int pid_init(struct kunit *test)
{
	struct pid_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	test->priv = f;
	/* the tracer's own stale pids: not while bts filters for real */
	if (bts_pid_stale)
		kunit_skip(test, "the bts tracer is filtering");
	bts_pid_stale = kvcalloc(BITS_TO_LONGS(PID_MAX_LIMIT), sizeof(long),
				 GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bts_pid_stale);
	f->stale_owned = true;
	return 0;
}

static void pid_exit(struct kunit *test)
{
	struct pid_fixture *f = test->priv;

	if (f->pids)
		trace_pid_list_free(f->pids);
	if (f->no_pids)
		trace_pid_list_free(f->no_pids);
	if (f->stale_owned) {
		kvfree(bts_pid_stale);
		bts_pid_stale = NULL;
	}
}

static void pid_empty_files_choose_every_task(struct kunit *test)
{
	struct trace_array *tr = pid_tr(test, test->priv, NULL, NULL);

	KUNIT_EXPECT_TRUE(test, pid_chosen(tr, fake_task(test, 100)));
	KUNIT_EXPECT_TRUE(test, pid_chosen(tr, fake_task(test, 0)));
}

static void pid_lists_choose_as_the_function_tracer_does(struct kunit *test)
{
	static const int pids[] = { 100, 0 }, no_pids[] = { 101, 0 };
	struct trace_array *tr = pid_tr(test, test->priv, pids, NULL);
	struct pid_fixture other = {};

	KUNIT_EXPECT_TRUE(test, pid_chosen(tr, fake_task(test, 100)));
	KUNIT_EXPECT_FALSE(test, pid_chosen(tr, fake_task(test, 101)));
	/* set_ftrace_notrace_pid alone: every task but those */
	tr = pid_tr(test, &other, NULL, no_pids);
	KUNIT_EXPECT_TRUE(test, pid_chosen(tr, fake_task(test, 100)));
	KUNIT_EXPECT_FALSE(test, pid_chosen(tr, fake_task(test, 101)));
	trace_pid_list_free(other.no_pids);
}

/* A task that gets the pid of a chosen task which exited is not chosen. */
static void pid_exit_of_a_chosen_task_makes_its_pid_stale(struct kunit *test)
{
	static const int pids[] = { 100, 0 };
	struct trace_array *tr = pid_tr(test, test->priv, pids, NULL);

	preempt_disable();
	bts_pid_exit(tr, fake_task(test, 100));
	bts_pid_exit(tr, fake_task(test, 101));	/* never chosen */
	preempt_enable();
	KUNIT_EXPECT_FALSE(test, pid_chosen(tr, fake_task(test, 100)));
	KUNIT_EXPECT_TRUE(test, test_bit(100, bts_pid_stale));
	KUNIT_EXPECT_FALSE(test, test_bit(101, bts_pid_stale));
}

/*
 * A stale pid stays stale while set_ftrace_pid keeps it (an append of
 * another pid copies it), and is free again once it left the list.
 */
static void pid_stale_pid_is_free_again_once_it_left_the_list(struct kunit *test)
{
	static const int pids[] = { 100, 0 }, both[] = { 100, 200, 0 },
			 other[] = { 200, 0 };
	struct pid_fixture *f = test->priv;
	struct trace_array *tr = pid_tr(test, f, pids, NULL);
	struct trace_pid_list *old = f->pids;

	preempt_disable();
	bts_pid_exit(tr, fake_task(test, 100));
	preempt_enable();
	pid_tr(test, f, both, NULL);
	trace_pid_list_free(old);
	bts_pid_forget(f->tr);
	KUNIT_EXPECT_FALSE(test, pid_chosen(f->tr, fake_task(test, 100)));
	KUNIT_EXPECT_TRUE(test, pid_chosen(f->tr, fake_task(test, 200)));
	old = f->pids;
	pid_tr(test, f, other, NULL);
	trace_pid_list_free(old);
	bts_pid_forget(f->tr);
	KUNIT_EXPECT_FALSE(test, test_bit(100, bts_pid_stale));
}

/*
 * With function-fork the child of a listed parent is chosen as the
 * parent is (ftrace lists it); without, or of an unlisted parent, a stale
 * pid stays stale.
 */
static void pid_fork_hands_the_parents_choice_to_the_child(struct kunit *test)
{
	static const int pids[] = { 100, 300, 0 };
	struct trace_array *tr = pid_tr(test, test->priv, pids, NULL);
	struct task_struct *parent = fake_task(test, 100);
	struct task_struct *child = fake_task(test, 300);
	struct task_struct *stranger = fake_task(test, 400);

	set_bit(300, bts_pid_stale);		/* 300 exited, and came back */
	preempt_disable();
	bts_pid_fork(tr, parent, child);	/* no function-fork */
	preempt_enable();
	KUNIT_EXPECT_TRUE(test, test_bit(300, bts_pid_stale));
	tr->flags |= TRACE_ITER_FUNC_FORK;
	preempt_disable();
	bts_pid_fork(tr, stranger, child);	/* a parent not listed */
	preempt_enable();
	KUNIT_EXPECT_TRUE(test, test_bit(300, bts_pid_stale));
	preempt_disable();
	bts_pid_fork(tr, parent, child);
	preempt_enable();
	KUNIT_EXPECT_TRUE(test, pid_chosen(tr, child));
	/* a stale parent's child is no more chosen than its parent */
	set_bit(100, bts_pid_stale);
	preempt_disable();
	bts_pid_fork(tr, parent, child);
	preempt_enable();
	KUNIT_EXPECT_FALSE(test, pid_chosen(tr, child));
}

static struct kunit_case bts_pid_cases[] = {
	KUNIT_CASE(pid_empty_files_choose_every_task),
	KUNIT_CASE(pid_lists_choose_as_the_function_tracer_does),
	KUNIT_CASE(pid_exit_of_a_chosen_task_makes_its_pid_stale),
	KUNIT_CASE(pid_stale_pid_is_free_again_once_it_left_the_list),
	KUNIT_CASE(pid_fork_hands_the_parents_choice_to_the_child),
	{}
};

static struct kunit_suite bts_pid_suite = {
	.name = "trace_bts_pid",
	.init = pid_init,
	.exit = pid_exit,
	.test_cases = bts_pid_cases,
};

kunit_test_suites(&bts_pid_suite);
