// SPDX-License-Identifier: GPL-2.0
/*
 * workload: a fixed amount of kernel and user work, timed, for make bench
 * (bench/slowdown.sh): N system calls (getppid, and a read of /dev/zero)
 * with a short user-mode loop between them. Prints the elapsed time of the
 * whole run in nanoseconds (CLOCK_MONOTONIC).
 *
 *	workload [N]	(default 20000)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) static int step(int x)
{
	return x * 3 + 1;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20000;
	struct timespec a, b;
	volatile int s = 0;
	char buf[64];
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < n; i++) {
		s += getppid();
		if (read(fd, buf, sizeof(buf)) != sizeof(buf))
			return 1;
		for (int j = 0; j < 20; j++)
			s += step(j);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%lld\n", (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec));
	return s == 42;
}
