// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only fault for the bts test kernel (CONFIG_BTS_TRACER_TESTING):
 * a general protection fault from a non-canonical read, which lkdtm does
 * not provide. Writing "gpf" to bts/test_fault calls bts_test_gpf().
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
