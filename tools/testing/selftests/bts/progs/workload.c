// SPDX-License-Identifier: GPL-2.0
/*
 * workload: a fixed amount of work, timed, for make bench
 * (bench/slowdown.sh). Prints the elapsed time in nanoseconds
 * (CLOCK_MONOTONIC).
 *
 *	workload sys N	N system calls (getppid and a read of /dev/zero):
 *			mostly kernel branches
 *	workload user N	N iterations of a call-and-loop in user mode: user
 *			branches only
 *	workload sync N	sync(), N getppid() calls, sync(): the window of
 *			tools/measure/bts-vs-exec.sh's stream mode, whose gdb
 *			logs from one ksys_sync to the next
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) static int step(int x)
{
	return x * 3 + 1;
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 20000;
	int sys = argc > 1 && !strcmp(argv[1], "sys");
	int syn = argc > 1 && !strcmp(argv[1], "sync");
	struct timespec a, b;
	volatile int s = 0;
	char buf[64];
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (syn) {
		sync();
		for (int i = 0; i < n; i++)
			s += getppid();
		sync();
		n = 0;
	}
	for (int i = 0; i < n; i++) {
		if (sys) {
			s += getppid();
			if (read(fd, buf, sizeof(buf)) != sizeof(buf))
				return 1;
		} else {
			s += step(i);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%lld\n", (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec));
	return s == 42;
}
