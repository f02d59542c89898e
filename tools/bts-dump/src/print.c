// SPDX-License-Identifier: GPL-2.0
/*
 * bts-dump (output layer): the record listings: readable text, JSON lines
 * and a perf-script-like format. Formatting goes straight into the output
 * buffer (no printf per record): this is the hot path of a large dump.
 */
#include <stdlib.h>

#include "event.h"
#include "insns.h"
#include "loop.h"

/* Indentation stops growing here: deeper stacks still read. */
#define MAX_INDENT_DEPTH	40

/* "sym+0xoff [mod]" from the resolver's cache, copied in 16-byte chunks. */
static inline void out_addr(struct out *o, const struct resolver *r, uint64_t addr,
			    const struct addr_info *ai)
{
	if (!ai->s) {
		out_lit(o, "0x");
		out_hex(o, addr);
		return;
	}
	const char *src = addr_text(r, ai);
	char *dst = out_reserve(o, (size_t)ai->text_len + 16);

	for (size_t i = 0; i < ai->text_len; i += 16)
		memcpy(dst + i, src + i, 16);
	o->len += ai->text_len;
}

/*
 * Where the source line of a branch is: the branch instruction, except for
 * software-source records, whose @from is the return address after the call.
 */
static inline uint64_t src_addr(const struct bts_rec *rec)
{
	return rec->flags & BTS_FLAG_SW ? rec->from - 1 : rec->from;
}

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

/* A stream's summary: everything it lost is counted here. */
static void stream_header_text(struct out *o, const struct bts_dump *d, uint32_t first,
			       uint32_t end)
{
	uint32_t back = 0;

	for (uint32_t i = 0; i < d->ngaps; i++)
		back += d->gaps[i].kind == BTS_GAP_BACKWARDS;
	out_fmt(o, "CPU %u: stream of %u record%s from %s, %u gap%s, ", d->cpu, d->count,
		plural(d->count), bts_source_label(d), d->ngaps, plural(d->ngaps));
	if (d->lost_known > UINT64_MAX - d->lost_unseen)
		out_lit(o, "more than 2^64 records lost");
	else
		out_fmt(o, "%llu record%s lost",
			(unsigned long long)(d->lost_known + d->lost_unseen),
			plural(d->lost_known + d->lost_unseen));
	out_fmt(o, " (%llu ring buffer full: bts_gap, %llu overwritten or unread: pos jumped",
		(unsigned long long)d->lost_known, (unsigned long long)d->lost_unseen);
	if (back)
		out_fmt(o, "; pos went back %u time%s: lost unknown", back, plural(back));
	out_fmt(o, "), from %llu.%09llu s\n",
		(unsigned long long)(d->timestamp_ns / 1000000000ULL),
		(unsigned long long)(d->timestamp_ns % 1000000000ULL));
	if (d->source == BTS_SOURCE_SW)
		out_lit(o, "  (software source: call edges from ftrace, not hardware branches)\n");
	if (first || end < d->count)
		out_fmt(o, "  (showing #%u..#%u)\n", first, end ? end - 1 : 0);
}

void print_stream_gap(struct out *o, const struct print_opts *po, const struct bts_dump *d,
		      const struct bts_gap_mark *g)
{
	static const char *const causes[] = { "bts_gap", "pos_jump", "pos_back" };

	if (po->fmt == FMT_JSON) {
		out_fmt(o, "{\"type\":\"gap\",\"cpu\":%u,\"index\":%u,\"pos\":%u,\"lost\":",
			d->cpu, g->index, g->pos);
		if (g->kind == BTS_GAP_BACKWARDS)
			out_lit(o, "null");
		else
			out_udec(o, g->lost);
		out_fmt(o, ",\"cause\":\"%s\"}\n", causes[g->kind < 3 ? g->kind : 2]);
	} else {
		/* perf-script readers (stackcollapse-perf.pl) pass over '#' lines. */
		if (po->fmt == FMT_PERF)
			out_lit(o, "#");
		if (g->kind == BTS_GAP_KNOWN)
			out_fmt(o, "  --- %llu record%s lost (ring buffer full: bts_gap) ---\n",
				(unsigned long long)g->lost, plural(g->lost));
		else if (g->kind == BTS_GAP_UNSEEN)
			out_fmt(o, "  --- %llu record%s lost (ring buffer overwritten or unread: pos jumped) ---\n",
				(unsigned long long)g->lost, plural(g->lost));
		else
			out_fmt(o, "  --- pos went back to %u: a new stream (re-armed?), records lost unknown ---\n",
				g->pos);
	}
}

/* Console text that did not say which copy of a static function it meant. */
static void doubt_text(struct out *o, const struct bts_dump *d)
{
	if (d->ndoubts)
		out_fmt(o, "  (%u address%s in %u record%s name a static function that exists more than once with that size, and the text did not say which: marked "
			AMBIGUOUS_TEXT ")\n",
			d->ndoubts, d->ndoubts == 1 ? "" : "es", d->ndoubtful,
			plural(d->ndoubtful));
}

static void header_text(struct out *o, const struct bts_dump *d, uint32_t first, uint32_t end)
{
	if (d->stream) {
		stream_header_text(o, d, first, end);
		return;
	}
	/*
	 * An empty slot names no source; a capture taken while a pid filter
	 * held the CPU has no record either, but it was taken (its flags say
	 * why it is empty).
	 */
	if ((d->flags & BTS_DUMP_CAPTURE) && !d->count && !d->missing &&
	    d->source == BTS_SOURCE_NONE) {
		out_fmt(o, "CPU %u: nothing captured (no oops, BUG or panic since it was cleared)%s%s\n",
			d->cpu, d->release[0] ? ", kernel " : "", d->release);
		return;
	}
	out_fmt(o, "CPU %u: %u record%s (capacity %u%s) from %s, %s",
		d->cpu, d->count, d->count == 1 ? "" : "s", d->capacity,
		d->flags & BTS_DUMP_WRAPPED ? ", wrapped: older history lost" : "",
		bts_source_label(d),
		d->flags & BTS_DUMP_CAPTURE ? "captured at" : "dumped on");
	out_fmt(o, " %s", bts_reason_name(d->reason));
	if (d->fault_index != BTS_NO_FAULT)
		out_fmt(o, ", fault at #%u", d->fault_index);
	if (d->release[0])
		out_fmt(o, ", kernel %s", d->release);
	out_fmt(o, ", at %llu.%09llu s",
		(unsigned long long)(d->timestamp_ns / 1000000000ULL),
		(unsigned long long)(d->timestamp_ns % 1000000000ULL));
	if (d->lost)
		out_fmt(o, ", %llu later capture%s not kept", (unsigned long long)d->lost,
			d->lost == 1 ? "" : "s");
	out_char(o, '\n');
	if (d->origin && d->missing)
		out_fmt(o, "  (rebuilt from %s entries: %u of %u records did not arrive)\n",
			d->origin, d->missing, d->count + d->missing);
	doubt_text(o, d);
	if (d->source == BTS_SOURCE_SW)
		out_lit(o, "  (software source: call edges from ftrace, not hardware branches)\n");
	if (d->flags & BTS_DUMP_TASK_FILTER)
		out_lit(o, "  (pid filter: only the tasks set_ftrace_pid chose were recorded)\n");
	if (d->flags & BTS_DUMP_FILTER_HELD)
		out_fmt(o, "  (the task running when this was %s was not chosen: the history ends where the last chosen task left CPU %u)\n",
			d->flags & BTS_DUMP_CAPTURE ? "captured" : "dumped", d->cpu);
	if (!d->count)
		out_fmt(o, "  (no records%s)\n",
			d->flags & BTS_DUMP_EMPTY ? ": nothing recorded since arming" : "");
	else if (first || end < d->count)
		out_fmt(o, "  (showing #%u..#%u)\n", first, end ? end - 1 : 0);
}

static void out_json_u64hex(struct out *o, const char *key, uint64_t v)
{
	out_str(o, key);
	out_lit(o, "\"0x");
	out_hex(o, v);
	out_char(o, '"');
}

static void header_json(struct out *o, const struct bts_dump *d, uint32_t first, uint32_t end)
{
	out_lit(o, "{\"type\":\"dump\",\"file\":");
	out_json_str(o, d->path ? d->path : "", d->path ? strlen(d->path) : 0);
	out_fmt(o, ",\"version\":%u,\"cpu\":%u,\"source\":", d->version, d->cpu);
	out_json_str(o, bts_source_label(d), strlen(bts_source_label(d)));
	out_fmt(o, ",\"count\":%u,\"capacity\":%u,\"first\":%u,\"end\":%u", d->count,
		d->capacity, first, end);
	out_fmt(o, ",\"wrapped\":%s,\"capture\":%s,\"user\":%s,\"empty\":%s",
		d->flags & BTS_DUMP_WRAPPED ? "true" : "false",
		d->flags & BTS_DUMP_CAPTURE ? "true" : "false",
		d->flags & BTS_DUMP_USER ? "true" : "false",
		d->flags & BTS_DUMP_EMPTY ? "true" : "false");
	out_fmt(o, ",\"pid_filter\":%s,\"filter_held\":%s",
		d->flags & BTS_DUMP_TASK_FILTER ? "true" : "false",
		d->flags & BTS_DUMP_FILTER_HELD ? "true" : "false");
	out_fmt(o, ",\"reason\":\"%s\",\"reason_code\":%u,\"fault_index\":",
		bts_reason_name(d->reason), d->reason);
	if (d->fault_index == BTS_NO_FAULT)
		out_lit(o, "null");
	else
		out_udec(o, d->fault_index);
	out_fmt(o, ",\"timestamp_ns\":%llu", (unsigned long long)d->timestamp_ns);
	out_json_u64hex(o, ",\"stext\":", d->stext);
	out_json_u64hex(o, ",\"kaslr_offset\":", d->kaslr_offset);
	out_fmt(o, ",\"lost\":%llu,\"release\":", (unsigned long long)d->lost);
	out_json_str(o, d->release, strlen(d->release));
	out_lit(o, ",\"build_id\":");
	if (d->build_id_size) {
		out_char(o, '"');
		for (uint32_t i = 0; i < d->build_id_size; i++)
			out_fmt(o, "%02x", d->build_id[i]);
		out_char(o, '"');
	} else {
		out_lit(o, "null");
	}
	if (d->etext)
		out_json_u64hex(o, ",\"etext\":", d->etext);
	else
		out_lit(o, ",\"etext\":null");
	if (d->origin) {
		out_lit(o, ",\"origin\":");
		out_json_str(o, d->origin, strlen(d->origin));
		out_fmt(o, ",\"missing\":%u,\"ambiguous\":%u", d->missing, d->ndoubts);
	}
	if (d->stream)
		out_fmt(o, ",\"stream\":true,\"gaps\":%u,\"lost_known\":%llu,\"lost_unseen\":%llu",
			d->ngaps, (unsigned long long)d->lost_known,
			(unsigned long long)d->lost_unseen);
	out_lit(o, "}\n");
}

void print_dump_header(struct out *o, const struct print_opts *po, const struct bts_dump *d,
		       uint32_t first, uint32_t end)
{
	if (po->fmt == FMT_TEXT)
		header_text(o, d, first, end);
	else if (po->fmt == FMT_JSON)
		header_json(o, d, first, end);
}

static const char *transition(const struct bts_rec *rec)
{
	bool fu = addr_is_user(rec->from), tu = addr_is_user(rec->to);

	if (fu == tu)
		return NULL;
	return fu ? "user->kernel" : "kernel->user";
}

static const unsigned char kind_lens[KIND_NR] = {
	[KIND_BRANCH] = 6, [KIND_CALL] = 4, [KIND_RET] = 3, [KIND_JMP] = 3, [KIND_JCC] = 3,
	[KIND_SYSCALL] = 7, [KIND_SYSRET] = 6, [KIND_IRET] = 4, [KIND_INT] = 3, [KIND_EXC] = 3,
	[KIND_PATCHED] = 7,
};

/*
 * One end of a branch: its address (with --addresses) and symbol. A
 * cleared user half is no address: the marker alone, not even raw.
 * Return: true when it was cleared.
 */
static bool branch_end(struct out *o, const struct print_opts *po, const struct resolver *r,
		       uint64_t addr, const struct addr_info *ai, bool cleared, bool doubt)
{
	if (cleared) {
		out_lit(o, USER_CLEARED_TEXT);
		return true;
	}
	if (po->addresses) {
		out_hex16(o, addr);
		out_char(o, ' ');
	}
	out_addr(o, r, addr, ai);
	if (doubt)
		out_lit(o, " " AMBIGUOUS_TEXT);
	return false;
}

static void event_text(struct out *o, const struct print_opts *po, struct resolver *r,
		       const struct event *ev)
{
	const struct bts_rec *rec = ev->rec;
	const char *kind = kind_names[ev->c.kind];
	size_t klen = kind_lens[ev->c.kind];
	const char *src, *tr;
	size_t src_len;
	int depth = 0;
	char *p;

	if (po->indent)
		depth = ev->depth < MAX_INDENT_DEPTH ? ev->depth : MAX_INDENT_DEPTH;
	/* The fixed prefix through one pointer: index, kind, indentation. */
	p = out_reserve(o, 32 + 2 * MAX_INDENT_DEPTH);
	if (ev->index < 10000000) {
		uint32_t v = ev->index;
		int i = 6;

		memset(p, ' ', 7);
		do {
			p[i--] = (char)('0' + v % 10);
			v /= 10;
		} while (v);
		p += 7;
	} else {
		out_udec_w(o, ev->index, 7);
		p = out_reserve(o, 32 + 2 * MAX_INDENT_DEPTH);
	}
	*p++ = ' ';
	memcpy(p, kind, 8);	/* kind_names are padded to 8 readable bytes */
	p += klen;
	if (ev->c.guessed) {
		*p++ = '?';
		klen++;
	}
	memset(p, ' ', 8);
	p += klen < 8 ? 9 - klen : 1;
	memset(p, ' ', (size_t)depth * 2);
	p += depth * 2;
	o->len = (size_t)(p - o->buf);
	if (!branch_end(o, po, r, rec->from, ev->from, rec_from_cleared(rec),
			ev->doubt & BTS_DOUBT_FROM)) {
		src = resolve_src(r, src_addr(rec), &src_len);
		if (src) {
			out_lit(o, " [");
			out_mem(o, src, src_len);
			out_char(o, ']');
		}
	}
	out_lit(o, " -> ");
	branch_end(o, po, r, rec->to, ev->to, rec_to_cleared(rec), ev->doubt & BTS_DOUBT_TO);
	tr = transition(rec);
	if (tr) {
		out_lit(o, "  (");
		out_str(o, tr);
		out_char(o, ')');
	}
	if (ev->fault)
		out_lit(o, "  <== FAULT");
	out_char(o, '\n');
}

static void json_sym(struct out *o, struct resolver *r, const char *which, uint64_t addr,
		     uint64_t src_at, const struct sym *s, bool cleared)
{
	size_t src_len;
	const char *src;

	if (cleared) {
		/* No address was recorded: null, as the header's unknown fields. */
		out_lit(o, ",\"");
		out_str(o, which);
		out_lit(o, "\":null,\"");
		out_str(o, which);
		out_lit(o, "_sym\":null");
		return;
	}
	src = resolve_src(r, src_at, &src_len);
	out_lit(o, ",\"");
	out_str(o, which);
	out_lit(o, "\":\"0x");
	out_hex(o, addr);
	out_lit(o, "\",\"");
	out_str(o, which);
	out_lit(o, "_sym\":");
	if (s) {
		out_json_str(o, sym_name(&r->st, s), s->name_len);
		out_lit(o, ",\"");
		out_str(o, which);
		out_lit(o, "_off\":");
		out_udec(o, sym_offset(r, s, addr));
		if (s->module) {
			const char *m = r->st.pool + s->module;

			out_lit(o, ",\"");
			out_str(o, which);
			out_lit(o, "_module\":");
			/* strip the brackets of "[mod]" */
			out_json_str(o, m + 1, strlen(m) > 2 ? strlen(m) - 2 : 0);
		}
	} else {
		out_lit(o, "null");
	}
	if (src) {
		out_lit(o, ",\"");
		out_str(o, which);
		out_lit(o, "_src\":");
		out_json_str(o, src, src_len);
	}
}

static void event_json(struct out *o, struct resolver *r, const struct event *ev)
{
	const struct bts_rec *rec = ev->rec;
	const char *tr = transition(rec);

	out_lit(o, "{\"type\":\"branch\",\"cpu\":");
	out_udec(o, ev->dump->cpu);
	out_lit(o, ",\"index\":");
	out_udec(o, ev->index);
	json_sym(o, r, "from", rec->from, src_addr(rec), ev->from_sym, rec_from_cleared(rec));
	json_sym(o, r, "to", rec->to, rec->to, ev->to_sym, rec_to_cleared(rec));
	out_lit(o, ",\"flags\":\"0x");
	out_hex(o, rec->flags);
	out_lit(o, "\",\"kind\":\"");
	out_str(o, kind_names[ev->c.kind]);
	out_str(o, ev->c.guessed ? "\",\"guessed\":true" : "\",\"guessed\":false");
	out_lit(o, ",\"depth\":");
	out_udec(o, (uint64_t)ev->depth);
	out_lit(o, ",\"transition\":");
	if (tr) {
		out_char(o, '"');
		out_str(o, tr);
		out_char(o, '"');
	} else {
		out_lit(o, "null");
	}
	out_str(o, ev->fault ? ",\"fault\":true" : ",\"fault\":false");
	out_str(o, ev->doubt & BTS_DOUBT_FROM ? ",\"from_ambiguous\":true" :
		",\"from_ambiguous\":false");
	out_str(o, ev->doubt & BTS_DOUBT_TO ? ",\"to_ambiguous\":true" :
		",\"to_ambiguous\":false");
	out_str(o, rec->flags & BTS_FLAG_SW ? ",\"sw\":true" : ",\"sw\":false");
	out_str(o, rec->flags & BTS_FLAG_PREDICTED ? ",\"predicted\":true" :
		",\"predicted\":false");
	out_str(o, rec->flags & BTS_FLAG_USER_CLEARED ? ",\"user_cleared\":true" :
		",\"user_cleared\":false");
	if (ev->loop) {
		out_lit(o, ",\"loop\":");
		out_udec(o, ev->loop->start);
	}
	out_lit(o, "}\n");
}

static void perf_dso(struct out *o, const struct resolver *r, uint64_t addr,
		     const struct sym *s)
{
	if (s && s->module)
		out_str(o, r->st.pool + s->module);
	else if (s || !addr_is_user(addr))
		out_lit(o, "[kernel.kallsyms]");
	else
		out_lit(o, "[unknown]");
}

/*
 * The symbol column. A cleared user half keeps perf script's address
 * column, where 0 is an address perf does not know, and says [user].
 */
static void perf_addr(struct out *o, const struct resolver *r, uint64_t addr,
		      const struct addr_info *ai, bool cleared)
{
	if (cleared)
		out_lit(o, USER_CLEARED_TEXT);
	else
		out_addr(o, r, addr, ai);
}

/*
 * perf script prints intel_bts samples as
 *   comm pid [cpu] time: period branches:k: from sym+off (dso) => to sym+off (dso)
 */
static void event_perf(struct out *o, struct resolver *r, const struct event *ev)
{
	const struct bts_rec *rec = ev->rec;
	uint64_t ts = ev->dump->timestamp_ns;
	char *p;

	out_lit(o, "             bts    -1 [");
	p = out_reserve(o, 3);
	p[0] = (char)('0' + ev->dump->cpu / 100 % 10);
	p[1] = (char)('0' + ev->dump->cpu / 10 % 10);
	p[2] = (char)('0' + ev->dump->cpu % 10);
	o->len += 3;
	out_lit(o, "] ");
	out_udec_w(o, ts / 1000000000ULL, 5);
	out_char(o, '.');
	p = out_reserve(o, 6);
	for (int i = 5, us = (int)(ts % 1000000000ULL / 1000); i >= 0; i--, us /= 10)
		p[i] = (char)('0' + us % 10);
	o->len += 6;
	out_lit(o, ":          1 branches:");
	out_str(o, addr_is_user(rec->from) ? "u:" : "k:");
	out_spaces(o, 1);
	out_hex16(o, rec->from);
	out_char(o, ' ');
	perf_addr(o, r, rec->from, ev->from, rec_from_cleared(rec));
	out_lit(o, " (");
	perf_dso(o, r, rec->from, ev->from_sym);
	out_str(o, ev->doubt & BTS_DOUBT_FROM ? ") " AMBIGUOUS_TEXT " => " : ") => ");
	out_hex16(o, rec->to);
	out_char(o, ' ');
	perf_addr(o, r, rec->to, ev->to, rec_to_cleared(rec));
	out_lit(o, " (");
	perf_dso(o, r, rec->to, ev->to_sym);
	out_str(o, ev->doubt & BTS_DOUBT_TO ? ") " AMBIGUOUS_TEXT "\n" : ")\n");
}

void print_event(struct out *o, const struct print_opts *po, struct resolver *r,
		 const struct event *ev)
{
	switch (po->fmt) {
	case FMT_TEXT:
		event_text(o, po, r, ev);
		break;
	case FMT_JSON:
		event_json(o, r, ev);
		break;
	case FMT_PERF:
		event_perf(o, r, ev);
		break;
	}
}

void print_loop_start(struct out *o, const struct print_opts *po, const struct bts_dump *d,
		      const struct loop_fold *lf)
{
	if (po->fmt == FMT_JSON) {
		out_fmt(o, "{\"type\":\"loop\",\"cpu\":%u,\"index\":%u,\"end\":%u,\"length\":%u,\"repeats\":%u,\"partial\":%u}\n",
			d->cpu, lf->start, lf->end, lf->len, lf->repeats, lf->partial);
		return;
	}
	if (po->fmt != FMT_TEXT)
		return;
	out_fmt(o, "        loop #%u..#%u (%u records): ", lf->start, lf->end - 1,
		lf->end - lf->start);
	if (lf->len == 1)
		out_fmt(o, "the branch below, %u times", lf->repeats);
	else
		out_fmt(o, "the %u branches below, %u times", lf->len, lf->repeats);
	if (lf->partial == 1)
		out_lit(o, ", then the first one again");
	else if (lf->partial)
		out_fmt(o, ", then the first %u again", lf->partial);
	out_char(o, '\n');
}

void print_loop_end(struct out *o, const struct print_opts *po, const struct loop_fold *lf)
{
	if (po->fmt == FMT_TEXT)
		out_fmt(o, "        end of loop #%u..#%u\n", lf->start, lf->end - 1);
}

/*
 * "sym+0xoff" of runtime @addr, straight from the symbol table (not
 * cached); the marker for a cleared user half.
 */
static void out_place(struct out *o, struct resolver *r, uint64_t addr, bool cleared)
{
	const struct sym *s = r->have_syms && !addr_is_user(addr) ?
			      symtab_lookup(&r->st, addr - r->bias) : NULL;

	if (cleared) {
		out_lit(o, USER_CLEARED_TEXT);
		return;
	}
	if (!s) {
		out_lit(o, "0x");
		out_hex(o, addr);
		return;
	}
	out_mem(o, sym_name(&r->st, s), s->name_len);
	out_lit(o, "+0x");
	out_hex(o, addr - r->bias - s->addr);
}

void print_gap(struct out *o, struct resolver *r, const struct bts_dump *d, uint32_t i)
{
	static struct gap_insn insns[GAP_MAX_INSNS];
	const struct bts_rec *rec = &d->records[i];
	const char *why = NULL;
	size_t n = 0;

	if (i + 1 >= d->count)
		return;		/* what ran after the last record is not recorded */
	if ((rec->flags & BTS_FLAG_SW) || (rec[1].flags & BTS_FLAG_SW))
		why = "software source: call edges, the code between them is not recorded";
	else if (rec_to_cleared(rec) || rec_from_cleared(&rec[1]))
		why = "user space, its address cleared (bts_user 0)";
	else
		why = gap_decode(r, rec->to, rec[1].from, insns, &n);
	if (why) {
		out_lit(o, "                  [no instructions: ");
		out_str(o, why);
		out_lit(o, "]\n");
		return;
	}
	for (size_t k = 0; k < n; k++) {
		size_t start = o->len;

		out_lit(o, "                  ");
		out_place(o, r, insns[k].addr, false);
		if (o->len - start < 56)
			out_spaces(o, 56 - (o->len - start));
		else
			out_char(o, ' ');
		out_str(o, insns[k].it.text);
		out_char(o, '\n');
	}
}

/* @key then "0x..." in quotes, or null for a cleared user half. */
static void json_addr(struct out *o, const char *key, uint64_t addr, bool cleared)
{
	if (cleared) {
		out_str(o, key);
		out_lit(o, "null");
	} else {
		out_json_u64hex(o, key, addr);
	}
}

void print_fault_summary(struct out *o, const struct print_opts *po, struct resolver *r,
			 const struct bts_dump *d, const struct fault_summary *fs)
{
	const struct bts_rec *rec = &d->records[fs->fault];
	const struct callstack *cs = fs->chain;
	bool from_cleared = rec_from_cleared(rec), to_cleared = rec_to_cleared(rec);
	uint64_t here = fn_key(r, rec->from, r->have_syms && !addr_is_user(rec->from) ?
				symtab_lookup(&r->st, rec->from - r->bias) : NULL);
	struct insn_text it;
	bool have_insn = !(rec->flags & BTS_FLAG_SW) && !from_cleared &&
			 resolver_insn(r, rec->from, &it);
	size_t src_len;
	const char *src = from_cleared ? NULL : resolve_src(r, rec->from, &src_len);

	if (po->fmt == FMT_JSON) {
		out_fmt(o, "{\"type\":\"fault\",\"cpu\":%u,\"index\":%u", d->cpu, fs->fault);
		json_addr(o, ",\"from\":", rec->from, from_cleared);
		json_addr(o, ",\"to\":", rec->to, to_cleared);
		out_lit(o, ",\"insn\":");
		if (have_insn)
			out_json_str(o, it.text, strlen(it.text));
		else
			out_lit(o, "null");
		out_lit(o, ",\"chain\":[");
		for (int k = 0; k < cs->n; k++) {
			struct out tmp;

			out_init(&tmp, -1, 256);
			fn_key_name(r, cs->fn[k], &tmp);
			if (k)
				out_char(o, ',');
			out_json_str(o, tmp.buf, tmp.len);
			free(tmp.buf);
		}
		out_lit(o, "],\"entry_index\":");
		if (fs->entry == BTS_NO_FAULT)
			out_lit(o, "null");
		else
			out_udec(o, fs->entry);
		out_lit(o, "}\n");
		return;
	}
	if (po->fmt != FMT_TEXT)
		return;
	out_fmt(o, "  fault at #%u: ", fs->fault);
	out_place(o, r, rec->from, from_cleared);
	if (src) {
		out_lit(o, " [");
		out_mem(o, src, src_len);
		out_char(o, ']');
	}
	if (have_insn) {
		out_lit(o, ": ");
		out_str(o, it.text);
	}
	out_lit(o, " -> ");
	out_place(o, r, rec->to, to_cleared);
	out_char(o, '\n');
	out_lit(o, "  call chain at the fault (calls minus returns): ");
	for (int k = 0; k < cs->n; k++) {
		if (k)
			out_lit(o, " > ");
		fn_key_name(r, cs->fn[k], o);
	}
	if (!cs->n || cs->fn[cs->n - 1] != here) {
		if (cs->n)
			out_lit(o, " > ");
		fn_key_name(r, here, o);
	}
	out_char(o, '\n');
	if (fs->entry != BTS_NO_FAULT) {
		const struct bts_rec *e = &d->records[fs->entry];

		out_fmt(o, "  last entry from user space: #%u ", fs->entry);
		if (rec_from_cleared(e)) {
			out_lit(o, USER_CLEARED_TEXT);
		} else {
			out_lit(o, "0x");
			out_hex(o, e->from);
		}
		out_lit(o, " -> ");
		out_place(o, r, e->to, rec_to_cleared(e));
		out_char(o, '\n');
	} else {
		out_lit(o, "  last entry from user space: none in this history\n");
	}
}
