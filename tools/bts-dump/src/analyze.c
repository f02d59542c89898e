// SPDX-License-Identifier: GPL-2.0
/*
 * bts-dump (analysis layer): what branch histories are for beyond reading
 * them: where control goes most (hot branch targets and functions), which
 * calls happened (caller -> callee edges as a DOT graph), and where time
 * was spent in call stacks (folded stacks for flamegraph.pl). Counts are
 * branches, not time: a branch history has no clock per record. The call
 * graph counts the calls a folded loop made (loop.c) apart, per loop: the
 * same cycle found again, in any history, is the same loop.
 */
#include <stdlib.h>

#include "event.h"
#include "loop.h"

struct edge {
	uint64_t caller, callee;
	uint64_t count;
	uint32_t loop;		/* loops[] index + 1 of the loop it was called in, or 0 */
};

/* A loop of the call graph: a cycle, and the stretches it filled. */
struct loop_seen {
	uint32_t len;			/* branches in the cycle */
	uint64_t repeats;		/* full runs, in all its stretches */
	uint32_t stretches;
	uint32_t cpu, start, end;	/* its first stretch */
	const struct bts_dump *last_dump;	/* the stretch counted last */
	uint32_t last_start;
	uint32_t label;			/* its number in the graph, 0: no call in it */
};

struct folded {
	char *stack;
	uint64_t count;
};

struct analysis {
	uint64_t total;
	uint64_t doubtful;		/* branches with an ambiguous end (console text) */
	struct u64map targets;		/* runtime to -> count */
	uint64_t cleared_targets;	/* to a cleared user half: no address */
	struct u64map functions;	/* fn key of to -> count */
	struct u64map edge_index;	/* hash(caller, callee) -> edges index + 1 chain */
	struct edge *edges;
	size_t nedges, edges_cap;
	struct u64map loop_index;	/* cycle signature -> loops index + 1 */
	struct loop_seen *loops;
	size_t nloops, loops_cap;
	struct folded *folded;		/* open addressing by string hash */
	size_t nfolded, folded_mask;
	struct out scratch;		/* builds one folded stack */
};

struct analysis *analysis_new(void)
{
	struct analysis *a = xcalloc(1, sizeof(*a));

	u64map_init(&a->targets, 1024);
	u64map_init(&a->functions, 1024);
	u64map_init(&a->edge_index, 1024);
	u64map_init(&a->loop_index, 64);
	a->folded_mask = 1023;
	a->folded = xcalloc(a->folded_mask + 1, sizeof(*a->folded));
	out_init(&a->scratch, -1, 4096);
	return a;
}

void analysis_free(struct analysis *a)
{
	if (!a)
		return;
	u64map_free(&a->targets);
	u64map_free(&a->functions);
	u64map_free(&a->edge_index);
	free(a->edges);
	u64map_free(&a->loop_index);
	free(a->loops);
	for (size_t i = 0; i <= a->folded_mask; i++)
		free(a->folded[i].stack);
	free(a->folded);
	free(a->scratch.buf);
	free(a);
}

static void add_edge(struct analysis *a, uint64_t caller, uint64_t callee, uint32_t loop)
{
	/* Probe hash, hash+1, ... until the slot holds this edge or is new. */
	for (uint64_t h = hash64((caller * 31 + callee) * 31 + loop);; h++) {
		uint64_t *v = u64map_get(&a->edge_index, h, 0);
		struct edge *e;

		if (!*v) {
			if (a->nedges == a->edges_cap) {
				a->edges_cap = a->edges_cap ? a->edges_cap * 2 : 256;
				a->edges = xrealloc(a->edges, a->edges_cap * sizeof(*a->edges));
			}
			a->edges[a->nedges] = (struct edge){ caller, callee, 1, loop };
			*v = ++a->nedges;
			return;
		}
		e = &a->edges[*v - 1];
		if (e->caller == caller && e->callee == callee && e->loop == loop) {
			e->count++;
			return;
		}
	}
}

static uint64_t hash_str(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	return h;
}

static void add_folded(struct analysis *a, const char *s, size_t n)
{
	size_t i;

	if ((a->nfolded + 1) * 2 > a->folded_mask + 1) {
		size_t mask = a->folded_mask * 2 + 1;
		struct folded *t = xcalloc(mask + 1, sizeof(*t));

		for (size_t j = 0; j <= a->folded_mask; j++) {
			struct folded *f = &a->folded[j];

			if (!f->stack)
				continue;
			for (i = hash_str(f->stack, strlen(f->stack)) & mask; t[i].stack;
			     i = (i + 1) & mask)
				;
			t[i] = *f;
		}
		free(a->folded);
		a->folded = t;
		a->folded_mask = mask;
	}
	for (i = hash_str(s, n) & a->folded_mask; a->folded[i].stack;
	     i = (i + 1) & a->folded_mask) {
		if (strlen(a->folded[i].stack) == n && !memcmp(a->folded[i].stack, s, n)) {
			a->folded[i].count++;
			return;
		}
	}
	a->folded[i].stack = xstrndup(s, n);
	a->folded[i].count = 1;
	a->nfolded++;
}

/* The loops[] index + 1 of the loop @ev is in; its stretch counted once. */
static uint32_t loop_of(struct analysis *a, const struct event *ev)
{
	const struct loop_fold *lf = ev->loop;
	uint64_t *v = u64map_get(&a->loop_index, lf->sig, 0);
	struct loop_seen *l;

	if (!*v) {
		if (a->nloops == a->loops_cap) {
			a->loops_cap = a->loops_cap ? a->loops_cap * 2 : 16;
			a->loops = xrealloc(a->loops, a->loops_cap * sizeof(*a->loops));
		}
		a->loops[a->nloops] = (struct loop_seen){
			.len = lf->len, .cpu = ev->dump->cpu, .start = lf->start, .end = lf->end,
		};
		*v = ++a->nloops;
	}
	l = &a->loops[*v - 1];
	if (l->last_dump != ev->dump || l->last_start != lf->start || !l->stretches) {
		l->last_dump = ev->dump;
		l->last_start = lf->start;
		l->stretches++;
		l->repeats += lf->repeats;
	}
	return (uint32_t)*v;
}

void analysis_add(struct analysis *a, struct resolver *r, const struct event *ev)
{
	const struct bts_rec *rec = ev->rec;
	uint64_t to = fn_key(r, rec->to, ev->to_sym);
	uint32_t loop = ev->loop ? loop_of(a, ev) : 0;

	a->total++;
	a->doubtful += !!ev->doubt;
	if (rec_to_cleared(rec))
		a->cleared_targets++;	/* not a branch to 0: counted apart */
	else
		(*u64map_get(&a->targets, rec->to, 0))++;
	(*u64map_get(&a->functions, to, 0))++;
	if (ev->c.kind == KIND_CALL || ev->c.kind == KIND_SYSCALL || ev->c.kind == KIND_INT ||
	    ev->c.kind == KIND_EXC)
		add_edge(a, fn_key(r, rec->from, ev->from_sym), to, loop);

	a->scratch.len = 0;
	for (int i = 0; i < ev->stack->n; i++) {
		if (i)
			out_char(&a->scratch, ';');
		fn_key_name(r, ev->stack->fn[i], &a->scratch);
	}
	if (a->scratch.len)
		add_folded(a, a->scratch.buf, a->scratch.len);
}

struct count {
	uint64_t key, count;
	bool cleared;		/* the cleared user halves' row: no key */
};

static int count_cmp(const void *x, const void *y)
{
	const struct count *a = x, *b = y;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	if (a->cleared != b->cleared)
		return a->cleared ? -1 : 1;
	return a->key < b->key ? -1 : a->key > b->key;
}

/* @m's keys by count, and a row of @cleared cleared user halves if not 0. */
static struct count *sorted_counts(const struct u64map *m, uint64_t cleared, size_t *n)
{
	struct count *c = xmalloc((m->n + 2) * sizeof(*c));
	size_t k = 0;

	for (size_t i = 0; i <= m->mask; i++)
		if (m->keys[i] != U64MAP_EMPTY)
			c[k++] = (struct count){ m->keys[i], m->vals[i], false };
	if (m->has_empty_key)
		c[k++] = (struct count){ U64MAP_EMPTY, m->empty_key_val, false };
	if (cleared)
		c[k++] = (struct count){ 0, cleared, true };
	qsort(c, k, sizeof(*c), count_cmp);
	*n = k;
	return c;
}

static void out_share(struct out *o, uint64_t part, uint64_t total)
{
	uint64_t permille = total ? part * 1000 / total : 0;

	out_udec_w(o, permille / 10, 4);
	out_char(o, '.');
	out_udec(o, permille % 10);
	out_str(o, "%  ");
}

void print_hist(struct out *o, struct analysis *a, struct resolver *r, unsigned int top)
{
	struct count *c;
	size_t n;

	out_fmt(o, "# %llu branches\n", (unsigned long long)a->total);
	if (a->doubtful)
		out_fmt(o, "# %llu of them name a static function that exists more than once with that size, and the text did not say which: counted for the likeliest copy\n",
			(unsigned long long)a->doubtful);
	out_lit(o, "# hot branch targets\n#     count   share  target\n");
	c = sorted_counts(&a->targets, a->cleared_targets, &n);
	for (size_t i = 0; i < n && i < top; i++) {
		const struct sym *s;
		const char *src;
		size_t src_len;

		if (c[i].cleared) {
			out_udec_w(o, c[i].count, 11);
			out_char(o, ' ');
			out_share(o, c[i].count, a->total);
			out_lit(o, USER_CLEARED_TEXT "\n");
			continue;
		}
		resolver_between_records(r);
		s = resolve_sym(r, c[i].key);
		src = resolve_src(r, c[i].key, &src_len);

		out_udec_w(o, c[i].count, 11);
		out_char(o, ' ');
		out_share(o, c[i].count, a->total);
		if (s) {
			out_str(o, sym_name(&r->st, s));
			out_str(o, "+0x");
			out_hex(o, sym_offset(r, s, c[i].key));
		} else {
			out_str(o, "0x");
			out_hex(o, c[i].key);
		}
		if (src) {
			out_lit(o, " [");
			out_mem(o, src, src_len);
			out_char(o, ']');
		}
		out_char(o, '\n');
	}
	free(c);

	out_str(o, "# hot functions (branches landing in each)\n#     count   share  function\n");
	c = sorted_counts(&a->functions, 0, &n);
	for (size_t i = 0; i < n && i < top; i++) {
		out_udec_w(o, c[i].count, 11);
		out_char(o, ' ');
		out_share(o, c[i].count, a->total);
		fn_key_name(r, c[i].key, o);
		out_char(o, '\n');
	}
	free(c);
}

static void out_dot_name(struct out *o, const struct resolver *r, uint64_t key,
			 struct out *tmp)
{
	tmp->len = 0;
	fn_key_name(r, key, tmp);
	out_char(o, '"');
	for (size_t i = 0; i < tmp->len; i++) {
		if (tmp->buf[i] == '"' || tmp->buf[i] == '\\')
			out_char(o, '\\');
		out_char(o, tmp->buf[i]);
	}
	out_char(o, '"');
}

static int edge_cmp(const void *x, const void *y)
{
	const struct edge *a = x, *b = y;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	if (a->caller != b->caller)
		return a->caller < b->caller ? -1 : 1;
	if (a->callee != b->callee)
		return a->callee < b->callee ? -1 : 1;
	return a->loop < b->loop ? -1 : a->loop > b->loop;
}

/* A note for each loop that made calls: what repeated, how often, where. */
static void print_loop_notes(struct out *o, struct analysis *a)
{
	uint32_t n = 0;

	for (size_t i = 0; i < a->nedges; i++)
		if (a->edges[i].loop)
			a->loops[a->edges[i].loop - 1].label = 1;
	for (size_t i = 0; i < a->nloops; i++) {
		struct loop_seen *l = &a->loops[i];

		if (!l->label)
			continue;
		l->label = ++n;
		out_fmt(o, "\t\"loop %u\" [shape=note, label=\"loop %u: %u branch%s, %llu times",
			n, n, l->len, l->len == 1 ? "" : "es", (unsigned long long)l->repeats);
		if (l->stretches > 1)
			out_fmt(o, " in %u stretches, the first CPU %u #%u..#%u\"];\n",
				l->stretches, l->cpu, l->start, l->end - 1);
		else
			out_fmt(o, ", CPU %u #%u..#%u\"];\n", l->cpu, l->start, l->end - 1);
	}
}

void print_callgraph(struct out *o, struct analysis *a, struct resolver *r)
{
	uint64_t max = 1;

	if (a->nedges)
		qsort(a->edges, a->nedges, sizeof(*a->edges), edge_cmp);
	if (a->nedges)
		max = a->edges[0].count;
	out_str(o, "digraph bts_calls {\n\trankdir=LR;\n\tnode [shape=box, fontname=\"monospace\"];\n");
	if (a->doubtful)
		out_fmt(o, "\t// %llu branches name a static function that exists more than once with that size, and the text did not say which: counted for the likeliest copy\n",
			(unsigned long long)a->doubtful);
	print_loop_notes(o, a);
	for (size_t i = 0; i < a->nedges; i++) {
		const struct edge *e = &a->edges[i];

		out_char(o, '\t');
		out_dot_name(o, r, e->caller, &a->scratch);
		out_str(o, " -> ");
		out_dot_name(o, r, e->callee, &a->scratch);
		out_fmt(o, " [label=\"%llu", (unsigned long long)e->count);
		if (e->loop)
			out_fmt(o, " in loop %u", a->loops[e->loop - 1].label);
		out_fmt(o, "\", penwidth=%.1f%s];\n", 1.0 + 4.0 * (double)e->count / (double)max,
			e->loop ? ", style=dashed" : "");
	}
	out_str(o, "}\n");
}

static int folded_cmp(const void *x, const void *y)
{
	const struct folded *a = x, *b = y;

	return strcmp(a->stack, b->stack);
}

void print_folded(struct out *o, struct analysis *a)
{
	struct folded *f = xmalloc((a->nfolded + 1) * sizeof(*f));
	size_t n = 0;

	for (size_t i = 0; i <= a->folded_mask; i++)
		if (a->folded[i].stack)
			f[n++] = a->folded[i];
	qsort(f, n, sizeof(*f), folded_cmp);
	for (size_t i = 0; i < n; i++) {
		out_str(o, f[i].stack);
		out_char(o, ' ');
		out_udec(o, f[i].count);
		out_char(o, '\n');
	}
	free(f);
}
