/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bts-dump (analysis layer): the instructions between two records. BTS
 * records every taken branch, so between one record's 'to' and the next
 * record's 'from' the CPU ran straight-line code: decoded from the
 * instruction bytes, it is the code that ran, ending with the next
 * record's branch. Where that does not decode cleanly, nothing is guessed.
 */
#ifndef BTS_DUMP_INSNS_H
#define BTS_DUMP_INSNS_H

#include <stddef.h>
#include <stdint.h>

#include "resolve.h"

/* More than this many instructions is not one straight line here. */
#define GAP_MAX_INSNS	512

struct gap_insn {
	uint64_t addr;
	struct insn_text it;
};

/*
 * Decode [@start, @end] (@end: the address of the next record's branch)
 * into @out (GAP_MAX_INSNS entries); *@n is how many. Return: NULL, or why
 * the gap is refused ("no instruction bytes", "a jmp at ... before the
 * next branch: records are missing", ...), in a static buffer.
 */
const char *gap_decode(struct resolver *r, uint64_t start, uint64_t end, struct gap_insn *out,
		       size_t *n);

#endif /* BTS_DUMP_INSNS_H */
