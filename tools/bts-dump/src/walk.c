// SPDX-License-Identifier: GPL-2.0
/*
 * bts-dump (analysis layer): walk one dump's records oldest first, turn
 * each into an event (symbols, kind, call depth, fault mark) and hand it to
 * the printer or the analyses. Records before the selected window still
 * feed the call-stack model, so depths inside the window are right. A
 * loop (loop.c) is listed as its cycle's records once, between a line that
 * says how often it ran and one that ends it; every record still feeds
 * the stack model and the analyses, each knowing the loop it is in.
 */
#include <stdlib.h>

#include "event.h"
#include "loop.h"

/*
 * From this many records on, addresses are looked up in address order
 * first (warm_up()); a kernel's histories (at most 2730 records) repeat
 * their few hundred addresses, and a pass would cost more than it saves.
 */
#define WARM_UP_RECORDS	16384

/* How many records ahead to prefetch address slots (memory latency / work per record). */
#define PREFETCH_AHEAD	16

/*
 * Symbols and source lines of the records in [@first, @end), looked up in
 * address order before the listing asks for them in record order: one
 * CU's line table and scopes, one stretch of the symbol table after the
 * other, in the cache, instead of a jump across them per address.
 */
static void warm_up(struct resolver *r, const struct bts_dump *d, uint32_t first,
		    uint32_t end, bool both_src)
{
	uint64_t *syms = xmalloc((size_t)(end - first) * 2 * sizeof(*syms));
	uint64_t *srcs = xmalloc((size_t)(end - first) * 2 * sizeof(*srcs));
	size_t ns = 0, nl = 0;

	for (uint32_t i = first; i < end; i++) {
		const struct bts_rec *rec = &d->records[i];

		if (!addr_is_user(rec->from)) {
			syms[ns++] = rec->from;
			srcs[nl++] = rec->flags & BTS_FLAG_SW ? rec->from - 1 : rec->from;
		}
		if (!addr_is_user(rec->to)) {
			syms[ns++] = rec->to;
			if (both_src)
				srcs[nl++] = rec->to;
		}
	}
	resolve_addr_many(r, syms, ns);
	resolve_src_many(r, srcs, nl);
	free(syms);
	free(srcs);
}

/* Whether runtime @to is where --around points: the symbol, at the offset if given. */
static bool enters(const struct walk_opts *opt, struct resolver *r, uint64_t to)
{
	const struct sym *s;

	if (!r->have_syms || addr_is_user(to))
		return false;
	s = symtab_lookup(&r->st, to - r->bias);
	return s && s->name_len == opt->around_len &&
	       !memcmp(sym_name(&r->st, s), opt->around, opt->around_len) &&
	       (!opt->around_has_off || to - r->bias - s->addr == opt->around_off);
}

/* --around: which records of [first, end) to show; NULL to show all. */
static uint8_t *around_windows(const struct walk_opts *opt, struct resolver *r,
			       const struct bts_dump *d, uint32_t first, uint32_t end)
{
	uint8_t *show;

	if (!opt->around)
		return NULL;
	show = xcalloc(d->count ? d->count : 1, 1);
	for (uint32_t i = first; i < end; i++) {
		uint32_t lo, hi;

		if (!enters(opt, r, d->records[i].to))
			continue;
		lo = i - first > opt->context ? i - opt->context : first;
		hi = end - i > opt->context ? i + opt->context : end - 1;
		memset(show + lo, 1, hi - lo + 1);
	}
	return show;
}

/*
 * What the top of a capture says: the faulting instruction, the call
 * chain at the fault as the calls and returns before it leave it, and the
 * last entry from user space before it.
 */
static void fault_summary(const struct walk_opts *opt, struct resolver *r, struct out *o,
			  const struct bts_dump *d, uint32_t fault)
{
	struct callstack cs = { .n = 0 };
	struct fault_summary fs = { .fault = fault, .chain = &cs, .entry = BTS_NO_FAULT };

	for (uint32_t i = 0; i <= fault; i++) {
		const struct bts_rec *rec = &d->records[i];
		const struct addr_info *from, *to;
		struct classified c;

		if (addr_is_user(rec->from) && !addr_is_user(rec->to))
			fs.entry = i;
		if (i == fault)
			break;
		resolver_between_records(r);
		from = resolve_addr(r, rec->from);
		to = resolve_addr(r, rec->to);
		c = classify(r, rec, from, to);
		stack_apply(&cs, c.kind, fn_key(r, rec->from, from->s), fn_key(r, rec->to, to->s));
	}
	print_fault_summary(o, &opt->po, r, d, &fs);
}

void walk_dump(const struct walk_opts *opt, struct resolver *r, struct out *o,
	       struct analysis *an, const struct bts_dump *d)
{
	uint8_t *show;
	bool shown = false;
	uint32_t last_shown = 0;
	bool listing = !an;
	uint32_t first = 0, end = d->count;
	struct callstack cs = { .n = 0 };
	uint32_t fault = d->fault_index;
	uint32_t g = 0;
	struct loop_fold *folds = NULL;
	size_t nfolds = 0, fi = 0;

	resolver_set_dump(r, d);
	if (fault == BTS_NO_FAULT) {
		for (uint32_t i = 0; i < d->count; i++)
			if (d->records[i].flags & BTS_FLAG_FAULT)
				fault = i;
	}
	if (opt->since_fault || opt->until_fault) {
		if (fault == BTS_NO_FAULT) {
			first = 0;
			end = 0;
		} else {
			if (opt->since_fault)
				first = fault;
			if (opt->until_fault)
				end = fault + 1;
		}
	}
	if (opt->last && end - first > opt->last)
		first = end - (uint32_t)opt->last;
	if (listing) {
		print_dump_header(o, &opt->po, d, first, end);
		if ((opt->since_fault || opt->until_fault) && fault == BTS_NO_FAULT &&
		    opt->po.fmt == FMT_TEXT && d->count)
			out_str(o, "  (no fault recorded in this dump)\n");
	}

	if (listing && fault != BTS_NO_FAULT && !opt->no_summary && fault < d->count &&
	    (opt->po.fmt == FMT_TEXT || opt->po.fmt == FMT_JSON))
		fault_summary(opt, r, o, d, fault);

	/* Many new addresses: look them up in address order first. */
	if (listing && end - first >= WARM_UP_RECORDS && opt->po.fmt != FMT_PERF)
		warm_up(r, d, first, end, opt->po.fmt == FMT_JSON);
	show = around_windows(opt, r, d, first, end);
	if (show && listing && opt->po.fmt == FMT_TEXT && !memchr(show + first, 1, end - first))
		out_fmt(o, "  (no record enters %.*s)\n", (int)opt->around_len, opt->around);
	/* perf-script lines are one per record for the tools that read them. */
	if (!opt->no_fold && (!listing || opt->po.fmt != FMT_PERF))
		nfolds = loop_find(d, first, end, show, fault, &folds);

	/* Records before the window still build the call stack. */
	for (uint32_t i = 0; i < end; i++) {
		const struct bts_rec *rec = &d->records[i];
		struct event ev;

		/* A stream's loss: say so, and know nothing of the stack after it. */
		for (; g < d->ngaps && d->gaps[g].index <= i; g++) {
			cs.n = 0;
			if (listing && i >= first)
				print_stream_gap(o, &opt->po, d, &d->gaps[g]);
		}
		resolver_between_records(r);
		/* The table outgrows the caches: ask for later records' slots early. */
		if (i + PREFETCH_AHEAD < end) {
			resolve_prefetch(r, d->records[i + PREFETCH_AHEAD].from);
			resolve_prefetch(r, d->records[i + PREFETCH_AHEAD].to);
		}
		ev = (struct event){
			.dump = d,
			.rec = rec,
			.index = i,
			.from = resolve_addr(r, rec->from),
			.to = resolve_addr(r, rec->to),
			.fault = i == fault || (rec->flags & BTS_FLAG_FAULT),
			.doubt = rec_doubt(d, i),
			.stack = &cs,
		};

		ev.from_sym = ev.from->s;
		ev.to_sym = ev.to->s;
		ev.c = classify(r, rec, ev.from, ev.to);
		ev.depth = stack_apply(&cs, ev.c.kind, fn_key(r, rec->from, ev.from_sym),
				       fn_key(r, rec->to, ev.to_sym));
		if (i < first || (show && !show[i]))
			continue;
		while (fi < nfolds && folds[fi].end <= i)
			fi++;
		if (fi < nfolds && folds[fi].start <= i)
			ev.loop = &folds[fi];
		if (listing) {
			const struct loop_fold *lf = ev.loop;

			if (show && shown && i != last_shown + 1 && opt->po.fmt == FMT_TEXT)
				out_lit(o, "  --\n");
			if (lf && i == lf->start)
				print_loop_start(o, &opt->po, d, lf);
			/* a loop's later runs are its first run again: not listed */
			if (!lf || i - lf->start < lf->len) {
				print_event(o, &opt->po, r, &ev);
				if (opt->insns && opt->po.fmt == FMT_TEXT)
					print_gap(o, r, d, i);
			}
			if (lf && i == lf->end - 1)
				print_loop_end(o, &opt->po, lf);
		} else {
			analysis_add(an, r, &ev);
		}
		shown = true;
		last_shown = i;
		if (o->failed)
			break;
	}
	/* Losses after the last record: at the end of the listing. */
	for (; listing && end == d->count && g < d->ngaps && !o->failed; g++)
		print_stream_gap(o, &opt->po, d, &d->gaps[g]);
	free(folds);
	free(show);
}

