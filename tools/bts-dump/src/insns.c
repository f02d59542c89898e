// SPDX-License-Identifier: GPL-2.0
/*
 * bts-dump (analysis layer): straight-line code between records. See insns.h.
 */
#include <stdio.h>

#include "insns.h"

const char *gap_decode(struct resolver *r, uint64_t start, uint64_t end, struct gap_insn *out,
		       size_t *n)
{
	static char why[160];
	uint64_t a = start;

	*n = 0;
	if (addr_is_user(start) != addr_is_user(end))
		return "the next record starts in another mode: not one straight line";
	if (end < start)
		return "the next branch lies before this target: records are missing";
	if (end - start > GAP_MAX_INSNS * 15)
		return "too far to the next branch for one straight line";
	while (*n < GAP_MAX_INSNS) {
		struct gap_insn *g = &out[*n];

		if (!resolver_insn(r, a, &g->it)) {
			if (!*n)
				return addr_is_user(a) ? "no instruction bytes of user space" :
				       "no instruction bytes (give -k vmlinux or --kcore)";
			snprintf(why, sizeof(why), "no instruction decodes at 0x%llx",
				 (unsigned long long)a);
			return why;
		}
		g->addr = a;
		(*n)++;
		if (a == end)
			return NULL;	/* the next record's branch (or fault) */
		/* Every taken branch is recorded: only a jcc may go on untaken. */
		if (g->it.kind != KIND_EXC && g->it.kind != KIND_JCC) {
			snprintf(why, sizeof(why), "a %s at 0x%llx before the next branch: records are missing or the code was patched",
				 kind_names[g->it.kind], (unsigned long long)a);
			return why;
		}
		a += g->it.size;
		if (a > end) {
			snprintf(why, sizeof(why), "the instructions step over 0x%llx: not where the next branch is",
				 (unsigned long long)end);
			return why;
		}
	}
	return "more instructions than one straight line has here";
}
