// SPDX-License-Identifier: GPL-2.0
/*
 * smi: raise System Management Interrupts from user mode, for
 * 73-hw-smm.
 *
 *	smi N [FILE]	N calls of raise_smi(), which writes to the APM
 *			control port (0xb2): the chipset (QEMU's PIIX4, once
 *			the BIOS enabled APMC) turns each into an SMI. Then
 *			writes "1" to FILE (bts/dump: the history ends with
 *			the loop). Prints raise_smi()'s address and
 *			MSR_SMI_COUNT of CPU 0 (where the PIIX4 sends its
 *			SMIs) before and after, read through /dev/cpu/0/msr:
 *			"raise_smi ADDR smi_count BEFORE AFTER".
 *
 * Needs ioperm() (CONFIG_X86_IOPL_IOPERM) and the msr driver
 * (CONFIG_X86_MSR). Never run it on a real machine: an SMI with a command
 * the firmware does not know is the firmware's business.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/io.h>
#include <unistd.h>

#define APM_CNT		0xb2
#define MSR_SMI_COUNT	0x34
/* neither ACPI enable (0xf1) nor disable (0xf0), nor a SeaBIOS command */
#define SMI_CMD		0x5a

static int smi_count(uint64_t *val)
{
	int fd = open("/dev/cpu/0/msr", O_RDONLY);
	int ok;

	if (fd < 0)
		return -1;
	ok = pread(fd, val, sizeof(*val), MSR_SMI_COUNT) == sizeof(*val);
	close(fd);
	return ok ? 0 : -1;
}

/* out of line, so that each SMI is raised from one known instruction */
__attribute__((noinline)) static void raise_smi(void)
{
	outb(SMI_CMD, APM_CNT);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	uint64_t before, after;

	if (smi_count(&before)) {
		perror("smi: /dev/cpu/0/msr");
		return 1;
	}
	if (ioperm(APM_CNT, 1, 1)) {
		perror("smi: ioperm");
		return 1;
	}
	for (int i = 0; i < n; i++)
		raise_smi();
	if (argc > 2) {
		int fd = open(argv[2], O_WRONLY);

		if (fd < 0 || write(fd, "1\n", 2) != 2) {
			perror("smi: FILE");
			return 1;
		}
		close(fd);
	}
	if (smi_count(&after)) {
		perror("smi: /dev/cpu/0/msr");
		return 1;
	}
	printf("raise_smi %#lx smi_count %llu %llu\n",
	       (unsigned long)(uintptr_t)raise_smi,
	       (unsigned long long)before, (unsigned long long)after);
	return 0;
}
