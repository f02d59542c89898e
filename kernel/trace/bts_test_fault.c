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
 * Writing "gpf-irq" calls bts_test_gpf_irq(): the same fault with an
 * interrupt waiting to run as soon as the #GP handler turns IRQs on.
 *
 * Writing "panic-timekeeping" calls bts_test_panic_in_timekeeping(): the
 * next timekeeping update panics from inside its write section.
 */
#include <linux/compiler.h>
#include <linux/irq_work.h>
#include <linux/irqflags.h>
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

/* Calls in the interrupt: some 10,000 branches, more than any BTS buffer. */
#define BTS_TEST_IRQ_CALLS	2000

static void bts_test_irq_work_fn(struct irq_work *work)
{
	bts_test_call(BTS_TEST_IRQ_CALLS);
}

static struct irq_work bts_test_irq_work =
	IRQ_WORK_INIT_HARD(bts_test_irq_work_fn);

/**
 * bts_test_gpf_irq - a #GP taken with an interrupt waiting behind it
 *
 * Queues an irq_work on this CPU with IRQs off (its self-IPI waits in the
 * local APIC), then enables IRQs with STI immediately followed by the
 * non-canonical read. STI holds interrupts off until after the next
 * instruction, so the #GP is taken first, with IF set in its frame, and
 * the interrupt comes the moment the #GP handler turns IRQs back on: its
 * 2000 calls flood the branch history. A capture taken after that point
 * (a die notifier) has lost the fault; one taken at the #GP's entry has
 * it. The same on silicon and in QEMU, which emulates the STI shadow.
 */
noinline void bts_test_gpf_irq(void)
{
	local_irq_disable();
	irq_work_queue(&bts_test_irq_work);
	/* What local_irq_enable() tells lockdep before its STI. */
	trace_hardirqs_on();
	asm volatile("sti\n\t"
		     "movq (%0), %%rax"
		     : : "r" (0xdead000000000000UL) : "rax", "memory");
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
