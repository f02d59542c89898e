// SPDX-License-Identifier: GPL-2.0
/*
 * branchy: a program whose taken branches are known from its disassembly,
 * for checking recorded branch traces against (71-hw-perf.sh). Built
 * static, without PIE or CET, at -O1 by harness/mkinitramfs.sh:
 *
 *	main:	... call leaf ... jne (loop back) ...
 *	leaf:	lea ...; ret
 *
 * so N iterations (argv[1], default 1000) take exactly N calls main->leaf,
 * N returns leaf->main and N - 1 taken loop branches.
 */
#include <stdlib.h>

__attribute__((noinline)) int leaf(int x)
{
	return x * 3 + 1;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	volatile int s = 0;

	for (int i = 0; i < n; i++)
		s += leaf(i);
	return s == 42;
}
