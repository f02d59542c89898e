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
 */
#include <linux/compiler.h>

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
