/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bts-dump (analysis layer): one record with everything the printers and
 * analyses need, worked out once per record by main.c.
 */
#ifndef BTS_DUMP_EVENT_H
#define BTS_DUMP_EVENT_H

#include <stdbool.h>
#include <stdint.h>

#include "dump.h"
#include "resolve.h"
#include "stack.h"

struct loop_fold;	/* loop.h */

struct event {
	const struct bts_dump *dump;
	const struct bts_rec *rec;
	uint32_t index;
	const struct sym *from_sym;
	const struct sym *to_sym;
	const struct addr_info *from, *to;	/* the same, with their text */
	struct classified c;
	int depth;		/* call depth of @from's function (stack_apply()) */
	bool fault;
	unsigned int doubt;	/* BTS_DOUBT_FROM/TO: that end may be another copy's */
	const struct callstack *stack;	/* after the branch */
	const struct loop_fold *loop;	/* the loop folded around it, or NULL */
};

enum out_format {
	FMT_TEXT,
	FMT_JSON,
	FMT_PERF,
};

struct print_opts {
	enum out_format fmt;
	bool addresses;		/* also print raw addresses in text */
	bool indent;		/* indent text by call depth */
};

void print_dump_header(struct out *o, const struct print_opts *po, const struct bts_dump *d,
		       uint32_t first, uint32_t end);
/*
 * A stream's loss before record @g->index: a marker line (text; perf: a "#"
 * line), a "gap" object (JSON).
 */
void print_stream_gap(struct out *o, const struct print_opts *po, const struct bts_dump *d,
		      const struct bts_gap_mark *g);
void print_event(struct out *o, const struct print_opts *po, struct resolver *r,
		 const struct event *ev);
/*
 * A folded loop: before its cycle's records (text: a line saying what
 * repeats; JSON: a "loop" object), and after them (text only).
 */
void print_loop_start(struct out *o, const struct print_opts *po, const struct bts_dump *d,
		      const struct loop_fold *lf);
void print_loop_end(struct out *o, const struct print_opts *po, const struct loop_fold *lf);
/* The instructions from record @i's target to record @i + 1's branch (text). */
void print_gap(struct out *o, struct resolver *r, const struct bts_dump *d, uint32_t i);

/* What a fault summary says; see walk.c. */
struct fault_summary {
	uint32_t fault;			/* the record */
	const struct callstack *chain;	/* calls minus returns before it */
	uint32_t entry;			/* the last user->kernel record, or BTS_NO_FAULT */
};

void print_fault_summary(struct out *o, const struct print_opts *po, struct resolver *r,
			 const struct bts_dump *d, const struct fault_summary *fs);

struct analysis;

/* Which records of a dump to show, and how. */
struct walk_opts {
	struct print_opts po;
	bool since_fault;
	bool until_fault;
	uint64_t last;		/* 0: all */
	bool insns;		/* the instructions between records (text) */
	const char *around;	/* only windows entering this symbol, or NULL */
	size_t around_len;
	uint64_t around_off;	/* ...at this offset, if around_has_off */
	bool around_has_off;
	uint32_t context;	/* records before and after each entry */
	bool no_summary;	/* no fault summary at the top */
	bool no_fold;		/* list every record of a loop (loop.h) */
};

/* Print @d's records, or add them to @an when @an is not NULL. */
void walk_dump(const struct walk_opts *opt, struct resolver *r, struct out *o,
	       struct analysis *an, const struct bts_dump *d);

struct analysis *analysis_new(void);
void analysis_add(struct analysis *a, struct resolver *r, const struct event *ev);
void analysis_free(struct analysis *a);
void print_hist(struct out *o, struct analysis *a, struct resolver *r, unsigned int top);
void print_callgraph(struct out *o, struct analysis *a, struct resolver *r);
void print_folded(struct out *o, struct analysis *a);

#endif /* BTS_DUMP_EVENT_H */
