// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the crash dump reader (--vmcore). The input is an ELF
 * core (in a memfd); vmcore_load() finds the bts table through VMCOREINFO,
 * checks it and its slots, and gathers the records from their page frames;
 * each history is then walked in every output format and analysis.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "event.h"
#include "resolve.h"
#include "symtab.h"
#include "util.h"
#include "vmcore.h"

static const char syms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 T entry_SYSCALL_64\n"
	"ffffffff81000200 t do_syscall_64\n"
	"ffffffff81000300 T vfs_read\n"
	"ffffffff81000400 T _etext\n"
	"ffffffffa0000000 t mod_fn\t[mod]\n";

static struct resolver resolver;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	resolver_init(&resolver);
	if (symtab_parse_kallsyms(&resolver.st, syms, sizeof(syms) - 1, "fuzz-syms"))
		abort();
	resolver.have_syms = true;
	resolver_ready(&resolver);
	messages_off = true;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct walk_opts modes[] = {
		{ .po = { .fmt = FMT_TEXT, .indent = true, .addresses = true } },
		{ .po = { .fmt = FMT_JSON }, .since_fault = true },
		{ .po = { .fmt = FMT_PERF }, .until_fault = true, .last = 3 },
	};
	struct dump_list list = { 0 };
	struct out o;
	int fd;

	fd = memfd_create("fuzz.core", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET)) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	vmcore_load("fuzz.core", fd, &list);
	close(fd);
	out_init(&o, -1, 4096);
	for (size_t i = 0; i < list.n; i++) {
		struct bts_dump *d = &list.d[i];
		struct analysis *an;

		if ((d->count && !d->records) || d->count > d->capacity)
			abort();
		resolver_set_dump(&resolver, d);
		for (size_t m = 0; m < ARRAY_SIZE(modes); m++) {
			walk_dump(&modes[m], &resolver, &o, NULL, d);
			o.len = 0;
		}
		an = analysis_new();
		walk_dump(&modes[0], &resolver, &o, an, d);
		print_hist(&o, an, &resolver, 10);
		print_callgraph(&o, an, &resolver);
		print_folded(&o, an);
		analysis_free(an);
		o.len = 0;
		bts_dump_free(d);
	}
	free(list.d);
	free(o.buf);
	return 0;
}
