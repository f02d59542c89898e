// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the console-text reader. The input is a text (in a
 * memfd); console_load() finds the bts lines and rebuilds the histories,
 * console_resolve() turns their symbols back into addresses with a small
 * symbol table, and the histories are walked in every output format and
 * analysis.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "console.h"
#include "event.h"
#include "symtab.h"
#include "util.h"

static const char syms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 T entry_SYSCALL_64\n"
	"ffffffff81000200 t do_syscall_64\n"
	"ffffffff81000300 t show\n"
	"ffffffff81000380 t show\n"
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
	resolver.st.want_names = true;
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
	struct console_pending pend = { 0 };
	struct dump_list list = { 0 };
	struct out o;
	int fd;

	fd = memfd_create("fuzz.log", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET)) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	if (console_load("fuzz.log", fd, &list, &pend, "6.12.117-bts") == 0)
		console_resolve(&pend, &list, &resolver.st, true, &resolver);
	close(fd);
	console_pending_free(&pend);
	out_init(&o, -1, 4096);
	for (size_t i = 0; i < list.n; i++) {
		struct bts_dump *d = &list.d[i];

		if (d->count && !d->records)
			abort();
		for (size_t m = 0; m < ARRAY_SIZE(modes); m++) {
			walk_dump(&modes[m], &resolver, &o, NULL, d);
			o.len = 0;
		}
		struct analysis *an = analysis_new();

		walk_dump(&modes[0], &resolver, &o, an, d);
		print_hist(&o, an, &resolver, 10);
		print_folded(&o, an);
		analysis_free(an);
		o.len = 0;
		bts_dump_free(d);
	}
	free(list.d);
	free(o.buf);
	return 0;
}
