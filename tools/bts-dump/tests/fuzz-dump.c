// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: everything bts-dump does with bytes it did not write.
 * The first input byte picks the path:
 *   even: the bytes are a dump: parse it, then walk it in every output
 *         format and every analysis, with a small symbol table;
 *   odd:  the rest is a kallsyms/System.map text: parse, finish, look up.
 * Output goes to a memory buffer that is discarded.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "dump.h"
#include "event.h"
#include "resolve.h"
#include "symtab.h"
#include "util.h"

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
	/* Errors are expected on every other input: keep them quiet. */
	messages_off = true;
	return 0;
}

static void fuzz_dump(const uint8_t *data, size_t size)
{
	static const struct walk_opts modes[] = {
		{ .po = { .fmt = FMT_TEXT, .indent = true, .addresses = true } },
		{ .po = { .fmt = FMT_JSON }, .since_fault = true },
		{ .po = { .fmt = FMT_PERF }, .until_fault = true, .last = 3 },
	};
	struct bts_dump d;
	char err[256];
	struct out o;

	if (bts_dump_parse(data, size, &d, err, sizeof(err))) {
		if (!strstr(err, "offset ") || strchr(err, '\n'))
			abort();	/* every error names an offset, on one line */
		return;
	}
	if (d.count && !d.records)
		abort();
	out_init(&o, -1, 4096);
	resolver_set_dump(&resolver, &d);
	for (size_t i = 0; i < ARRAY_SIZE(modes); i++) {
		walk_dump(&modes[i], &resolver, &o, NULL, &d);
		o.len = 0;
	}
	for (int k = 0; k < 3; k++) {
		struct analysis *an = analysis_new();

		walk_dump(&modes[0], &resolver, &o, an, &d);
		if (k == 0)
			print_hist(&o, an, &resolver, 10);
		else if (k == 1)
			print_callgraph(&o, an, &resolver);
		else
			print_folded(&o, an);
		analysis_free(an);
		o.len = 0;
	}
	free(o.buf);
	bts_dump_free(&d);
}

static void fuzz_kallsyms(const uint8_t *data, size_t size)
{
	struct symtab st;

	symtab_init(&st);
	if (symtab_parse_kallsyms(&st, (const char *)data, size, "fuzz") == 0) {
		symtab_finish(&st);
		for (size_t i = 0; i + 8 <= size; i += 8) {
			const struct sym *s = symtab_lookup(&st, get_le64(data + i));

			if (s && (get_le64(data + i) < s->addr || get_le64(data + i) >= s->end))
				abort();
		}
	}
	symtab_free(&st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	if (data[0] & 1)
		fuzz_kallsyms(data + 1, size - 1);
	else
		fuzz_dump(data + 1, size - 1);
	return 0;
}
