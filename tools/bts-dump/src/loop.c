// SPDX-License-Identifier: GPL-2.0
/*
 * bts-dump (analysis layer): the loops of a history, for the listing and
 * the call graph to show each as one cycle and its count.
 *
 * Two records are the same branch when their from and to are, and so are
 * their cleared user halves and, in console text, which ends are in
 * doubt. From the oldest record on, each record starts the longest
 * stretch that repeats a cycle of 1 to LOOP_MAX_LEN records at least
 * LOOP_MIN_REPEATS times in full (its last run may be cut short); the
 * shortest such cycle is taken, and the search goes on after the
 * stretch. Only stretches that fold into fewer lines than they have
 * records are taken (a cycle of one record folds from 4 repeats on).
 *
 * Work is bounded: for each record, the later records of the same branch
 * within LOOP_MAX_LEN are the candidate cycle lengths (a chain through
 * the records of each hash slot, built once), and for each length the
 * end of the stretch that repeats with it is remembered, so no record is
 * compared twice for one length. O(n * LOOP_MAX_LEN) at worst for n
 * records, O(n) for a history that does not loop; memory O(n).
 */
#include <stdlib.h>

#include "loop.h"
#include "util.h"

#define NO_NEXT		UINT32_MAX
#define SLOT_BITS	12

static bool same(const struct bts_dump *d, uint32_t a, uint32_t b)
{
	const struct bts_rec *x = &d->records[a], *y = &d->records[b];

	return x->from == y->from && x->to == y->to &&
	       !((x->flags ^ y->flags) & BTS_FLAG_USER_CLEARED) &&
	       rec_doubt(d, a) == rec_doubt(d, b);
}

static uint32_t slot_of(const struct bts_rec *r)
{
	return (uint32_t)(hash64(r->from ^ hash64(r->to)) >> (64 - SLOT_BITS));
}

/* What one search needs. */
struct finder {
	const struct bts_dump *d;
	uint32_t first;
	uint32_t *next;			/* next record of the same slot, or NO_NEXT */
	/* per cycle length k: the first record from i on unlike the one k later */
	uint32_t run_end[LOOP_MAX_LEN + 1];
	struct loop_fold *folds;
	size_t n, cap;
};

/* -1, 0, 1: record @a against record @b, by from, to and cleared halves. */
static int rec_cmp(const struct bts_rec *a, const struct bts_rec *b)
{
	uint64_t ca = a->flags & BTS_FLAG_USER_CLEARED, cb = b->flags & BTS_FLAG_USER_CLEARED;

	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	if (a->to != b->to)
		return a->to < b->to ? -1 : 1;
	return ca < cb ? -1 : ca > cb;
}

/* The cycle's hash, from the rotation of it that sorts first. */
static uint64_t cycle_sig(const struct bts_dump *d, uint32_t start, uint32_t len)
{
	const struct bts_rec *c = &d->records[start];
	uint32_t best = 0;
	uint64_t h = hash64(len);

	for (uint32_t r = 1; r < len; r++) {
		for (uint32_t t = 0; t < len; t++) {
			int cmp = rec_cmp(&c[(r + t) % len], &c[(best + t) % len]);

			if (cmp) {
				if (cmp < 0)
					best = r;
				break;
			}
		}
	}
	for (uint32_t t = 0; t < len; t++) {
		const struct bts_rec *x = &c[(best + t) % len];

		h = hash64(h ^ x->from);
		h = hash64(h ^ x->to ^ (x->flags & BTS_FLAG_USER_CLEARED));
	}
	return h;
}

static void add_fold(struct finder *f, uint32_t start, uint32_t len, uint32_t span)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 16;
		f->folds = xrealloc(f->folds, f->cap * sizeof(*f->folds));
	}
	f->folds[f->n++] = (struct loop_fold){
		.start = start,
		.end = start + span,
		.len = len,
		.repeats = span / len,
		.partial = span % len,
		.sig = cycle_sig(f->d, start, len),
	};
}

/* The loops of records [@s, @e), all of which may be folded. */
static void find_in(struct finder *f, uint32_t s, uint32_t e)
{
	const struct bts_dump *d = f->d;

	if (e - s < 4)
		return;
	memset(f->run_end, 0, sizeof(f->run_end));
	for (uint32_t i = s; e - i >= 4;) {
		uint32_t best_span = 0, best_len = 0;

		for (uint32_t j = f->next[i - f->first]; j != NO_NEXT && j - i <= LOOP_MAX_LEN;
		     j = f->next[j - f->first]) {
			uint32_t k = j - i, r, span;

			/* the chain ascends: longer cycles do not fit either */
			if ((uint64_t)k * LOOP_MIN_REPEATS > e - i)
				break;
			if (!same(d, i, j))
				continue;	/* another branch of that slot */
			r = f->run_end[k];
			if (r <= i) {
				for (r = i; r + k < e && same(d, r, r + k); r++)
					;
				f->run_end[k] = r;
			}
			span = r - i + k;	/* records i..r+k-1 repeat every k */
			if (span / k >= LOOP_MIN_REPEATS && span >= k + 3 && span > best_span) {
				best_span = span;
				best_len = k;
			}
		}
		if (!best_len) {
			i++;
			continue;
		}
		add_fold(f, i, best_len, best_span);
		i += best_span;
	}
}

static bool barrier(const struct bts_dump *d, uint32_t i, const uint8_t *show, uint32_t fault)
{
	return i == fault || (d->records[i].flags & BTS_FLAG_FAULT) || (show && !show[i]);
}

size_t loop_find(const struct bts_dump *d, uint32_t first, uint32_t end, const uint8_t *show,
		 uint32_t fault, struct loop_fold **folds)
{
	struct finder *f;
	uint32_t *heads;
	uint32_t g = 0;
	size_t n;

	*folds = NULL;
	if (end <= first || end - first < 4)
		return 0;
	f = xcalloc(1, sizeof(*f));
	f->d = d;
	f->first = first;
	f->next = xmalloc((size_t)(end - first) * sizeof(*f->next));
	heads = xmalloc(sizeof(*heads) << SLOT_BITS);
	memset(heads, 0xff, sizeof(*heads) << SLOT_BITS);	/* NO_NEXT */
	for (uint32_t i = end; i-- > first;) {
		uint32_t h = slot_of(&d->records[i]);

		f->next[i - first] = heads[h];
		heads[h] = i;
	}
	free(heads);
	/* Stretches between records that may not be folded and losses. */
	for (uint32_t s = first, e; s < end; s = e) {
		if (barrier(d, s, show, fault)) {
			e = s + 1;
			continue;
		}
		while (g < d->ngaps && d->gaps[g].index <= s)
			g++;
		for (e = s + 1; e < end && !barrier(d, e, show, fault) &&
		     !(g < d->ngaps && d->gaps[g].index == e); e++)
			;
		find_in(f, s, e);
	}
	*folds = f->folds;
	n = f->n;
	free(f->next);
	free(f);
	return n;
}
