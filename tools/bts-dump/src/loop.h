/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bts-dump (analysis layer): loops in a history. A CPU spinning in a
 * tight loop fills its history with the same few branches; the listing
 * shows such a stretch once, as a cycle and its count. See loop.c.
 */
#ifndef BTS_DUMP_LOOP_H
#define BTS_DUMP_LOOP_H

#include <stdint.h>

#include "dump.h"

/* The longest cycle looked for, in records. */
#define LOOP_MAX_LEN		256
/* A cycle folds when it ran at least this many times in full. */
#define LOOP_MIN_REPEATS	3

/*
 * struct loop_fold - records [@start, @end) that are one cycle over and over
 * @len:	records in the cycle: records @start .. @start + @len - 1
 * @repeats:	full runs of the cycle (>= LOOP_MIN_REPEATS)
 * @partial:	records of a last run cut short (< @len): the cycle's first ones
 * @sig:	the cycle whatever record it starts at (hash of its rotation
 *		that sorts first), to tell the same loop run twice
 */
struct loop_fold {
	uint32_t start, end;
	uint32_t len;
	uint32_t repeats;
	uint32_t partial;
	uint64_t sig;
};

/*
 * The loops of @d's records [@first, @end), oldest first, none overlapping.
 * No fold takes in the record @fault, a record flagged BTS_FLAG_FAULT, a
 * record @show leaves out (when @show is not NULL), or spans a stream's
 * loss. Return: their number; *@folds (NULL when none) is the caller's
 * to free.
 */
size_t loop_find(const struct bts_dump *d, uint32_t first, uint32_t end, const uint8_t *show,
		 uint32_t fault, struct loop_fold **folds);

#endif /* BTS_DUMP_LOOP_H */
