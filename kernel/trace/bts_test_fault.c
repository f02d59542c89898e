// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only code for the bts test kernel (CONFIG_BTS_TRACER_TESTING): a
 * general protection fault from a non-canonical read, which lkdtm does
 * not provide (writing "gpf" to bts/test_fault calls bts_test_gpf()), and
 * functions for the trigger tests to trace (writing "call N" calls
 * bts_test_call(N)).
 *
 * Unlike the rest of kernel/trace this file is built with the function
 * tracer's flags (see the Makefile), so the software source records the
 * call into bts_test_gpf() and a test can check that the history's newest
 * call edge before the fault enters it. It must never be built into a
 * production kernel: it crashes its caller on purpose.
 *
 * Writing "panic-timekeeping" calls bts_test_panic_in_timekeeping(): the
 * next timekeeping update panics from inside its write section.
 */
#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/notifier.h>
#include <linux/panic.h>
#include <linux/pvclock_gtod.h>

#include "bts_core.h"

/**
 * bts_test_gpf - read a non-canonical address: #GP, then an oops
 */
noinline void bts_test_gpf(void)
{
	(void)READ_ONCE(*(unsigned long *)0xdead000000000000UL);
}

/**
 * bts_test_target - the function the trigger tests trace; does nothing
 */
noinline void bts_test_target(void)
{
	barrier();
}

/**
 * bts_test_outer - calls bts_test_target()
 *
 * A call edge the software source records before ftrace runs the probes
 * on bts_test_target(), whatever their order.
 */
noinline void bts_test_outer(void)
{
	bts_test_target();
	barrier();
}

/**
 * bts_test_call - enter bts_test_target() @n times
 * @n: how many times
 */
noinline void bts_test_call(unsigned int n)
{
	while (n--)
		bts_test_outer();
}

static bool bts_test_tk_armed;

/*
 * A pvclock gtod listener: timekeeping_update() calls the chain with
 * tk_core.seq held for write (and timekeeper_lock held, IRQs off) on the
 * CPU that updates the time; so does nothing else once registered.
 */
static int bts_test_tk_notify(struct notifier_block *nb, unsigned long was_set,
			      void *tk)
{
	if (READ_ONCE(bts_test_tk_armed))
		panic("bts test: panic inside a timekeeping write section");
	return NOTIFY_DONE;
}

static struct notifier_block bts_test_tk_nb = {
	.notifier_call	= bts_test_tk_notify,
};

/**
 * bts_test_panic_in_timekeeping - panic at the next timekeeping update
 *
 * Registers a pvclock gtod listener (its first call, from the
 * registration itself, is outside the write section and does nothing),
 * then arms it: the next tick's timekeeping_update() panics with the
 * timekeeper's seqcount odd, where any seqcount reader of the timekeeper
 * (ktime_get_real_ns() and the like) on the panic path spins forever.
 *
 * Return: 0, or the registration's error.
 */
int bts_test_panic_in_timekeeping(void)
{
	int ret = pvclock_gtod_register_notifier(&bts_test_tk_nb);

	if (!ret)
		WRITE_ONCE(bts_test_tk_armed, true);
	return ret;
}
