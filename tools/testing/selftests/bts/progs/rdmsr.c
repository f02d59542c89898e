// SPDX-License-Identifier: GPL-2.0
/*
 * rdmsr: read one MSR on each CPU named, through /dev/cpu/N/msr (the msr
 * driver), for 90-silicon.sh's DEBUGCTL check. It only reads.
 *
 *	rdmsr REG CPU...	prints "CPU 0xVALUE" for each CPU; on a CPU
 *				whose MSR cannot be read, says why on stderr
 *				and exits 1
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long reg;
	char path[64];
	unsigned long long val;
	int i, fd;

	if (argc < 3) {
		fprintf(stderr, "usage: rdmsr REG CPU...\n");
		return 2;
	}
	reg = strtoul(argv[1], NULL, 0);
	for (i = 2; i < argc; i++) {
		snprintf(path, sizeof(path), "/dev/cpu/%s/msr", argv[i]);
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			fprintf(stderr, "rdmsr: %s: %s\n", path, strerror(errno));
			return 1;
		}
		if (pread(fd, &val, sizeof(val), reg) != sizeof(val)) {
			fprintf(stderr, "rdmsr: %s: MSR %#lx: %s\n", path, reg,
				strerror(errno));
			close(fd);
			return 1;
		}
		close(fd);
		printf("%s 0x%llx\n", argv[i], val);
	}
	return 0;
}
