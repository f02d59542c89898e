// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the trace.dat reader as bts-dump runs it. The input is
 * a trace.dat (in a memfd); tracedat_load() reads it with libtracecmd in
 * a child process and rebuilds the histories, which are then walked in
 * every output format. A crash of libtracecmd in the child must come back
 * as an error, never a crash here; the fuzzer counts those separately
 * ("child crashes" on stderr at exit).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "event.h"
#include "symtab.h"
#include "tracedat.h"
#include "util.h"

static struct resolver resolver;

static void report_child_crashes(void)
{
	fprintf(stderr, "child crashes: %zu\n", tracedat_child_crashes);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	resolver_init(&resolver);
	resolver_ready(&resolver);
	messages_off = true;
	atexit(report_child_crashes);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct walk_opts modes[] = {
		{ .po = { .fmt = FMT_TEXT, .indent = true, .addresses = true } },
		{ .po = { .fmt = FMT_JSON }, .since_fault = true },
	};
	struct dump_list list = { 0 };
	struct symtab st;
	struct out o;
	int fd;

	fd = memfd_create("fuzz.dat", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	symtab_init(&st);
	tracedat_load("fuzz.dat", fd, &list, &st);
	close(fd);
	symtab_finish(&st);
	out_init(&o, -1, 4096);
	for (size_t i = 0; i < list.n; i++) {
		if (list.d[i].count && !list.d[i].records)
			abort();
		for (size_t m = 0; m < ARRAY_SIZE(modes); m++) {
			walk_dump(&modes[m], &resolver, &o, NULL, &list.d[i]);
			o.len = 0;
		}
		bts_dump_free(&list.d[i]);
	}
	free(list.d);
	free(o.buf);
	symtab_free(&st);
	return 0;
}
