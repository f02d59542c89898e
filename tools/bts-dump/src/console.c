// SPDX-License-Identifier: GPL-2.0
/*
 * bts-dump (decoder layer): histories from console text. See console.h.
 *
 * A line holds one ftrace:bts entry wherever " cpu=" starts what the
 * entry's output function printed, whatever comes before it: a printk
 * timestamp, a log level, a syslog prefix, ftrace's latency-format
 * context. The rest of the line must be exactly an entry, or the line is
 * not one (another CPU's printk cut into it, a cut tail): its record is
 * then missing from its history and counted, never guessed. Lines are
 * grouped by the history's CPU: a new history where pos restarts or nr
 * or the reason change.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "console.h"
/* bts-series: from dump-console-dups */
#include "resolve.h"
/* bts-series: end */
#include "symtab.h"
#include "util.h"

/* One address as the line named it: a symbol and offset, or a number. */
struct console_ref {
	size_t dump;		/* index in the dump list */
	uint32_t rec;
	uint8_t which;		/* 0 from, 1 to */
	uint8_t raw;		/* @value is the address */
	uint16_t name_len, mod_len;
	uint32_t name, mod;	/* offsets in pend->pool */
	uint64_t value;		/* raw: the address; else the offset */
	uint64_t size;		/* the symbol's size as %pS printed it */
	uint64_t start;		/* the symbol chosen (its address) */
	uint8_t doubt;		/* DOUBT_*: how sure the choice of @start is */
	uint8_t has_low;	/* the line ended with the low 32 bits */
	uint32_t low;		/* the address's low 32 bits, as printed */
};

/* bts-series: until dump-console-dups */
//~/*
//~ * How sure the symbol chosen for a name is. A name several static
//~ * functions of one size share is DOUBT_UNKNOWN: the first of them is
//~ * taken, and the records it is in are marked.
//~ */
//~enum { DOUBT_NONE, DOUBT_UNKNOWN };
/* bts-series: end */
/* bts-series: from dump-console-dups */
/*
 * How sure the symbol chosen for a name is. A name several static
 * functions of one size share is DOUBT_UNKNOWN (the first of them taken)
 * until something proves one: the low 32 bits the kernel prints, or a
 * direct branch from a proven address. The neighbours' choices make one
 * DOUBT_LIKELY only: records lost between them, or an edge of the
 * software source, break that reasoning, so it is never taken as proof.
 */
enum { DOUBT_NONE, DOUBT_LIKELY, DOUBT_UNKNOWN };
/* bts-series: end */

/* Lines longer than this are no bts lines (the kernel's are < 600 bytes). */
#define MAX_LINE	4096

bool console_is_text(const uint8_t *buf, size_t len)
{
	size_t odd = 0;

	if (!len)
		return false;
	for (size_t i = 0; i < len; i++) {
		uint8_t c = buf[i];

		if (!c)
			return false;
		if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != 0x1b)
			odd++;
	}
	return odd * 100 <= len;	/* a few control bytes: a serial line's noise */
}

static uint32_t pool_add(struct console_pending *pend, const char *s, size_t n)
{
	uint32_t off;

	if (pend->pool_len + n + 1 > pend->pool_cap) {
		pend->pool_cap = (pend->pool_len + n + 1) * 2;
		pend->pool = xrealloc(pend->pool, pend->pool_cap);
	}
	off = (uint32_t)pend->pool_len;
	memcpy(pend->pool + off, s, n);
	pend->pool[off + n] = '\0';
	pend->pool_len += n + 1;
	return off;
}

/* A space-separated token of [*p, end): its start and length; advances *p. */
static bool token(const char **p, const char *end, const char **tok, size_t *len)
{
	const char *s = *p;

	while (s < end && *s == ' ')
		s++;
	if (s >= end)
		return false;
	*tok = s;
	while (s < end && *s != ' ')
		s++;
	*len = (size_t)(s - *tok);
	*p = s;
	return true;
}

static bool parse_u(const char *s, size_t n, int base, uint64_t *v)
{
	uint64_t x = 0;

	if (!n || n > 20)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned int d;
		char c = s[i];

		if (c >= '0' && c <= '9')
			d = (unsigned int)(c - '0');
		else if (base == 16 && (c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			d = (unsigned int)((c | 0x20) - 'a' + 10);
		else
			return false;
		if (x > (UINT64_MAX - d) / (uint64_t)base)
			return false;
		x = x * (uint64_t)base + d;
	}
	*v = x;
	return true;
}

/* "0xHEX" or "name+0xOFF/0xSIZE", as %pS prints an address. */
static bool parse_addr(const char *t, size_t n, struct console_ref *r, const char **name)
{
	const char *plus = NULL, *slash;

	if (n > 2 && t[0] == '0' && t[1] == 'x') {
		r->raw = 1;
		return parse_u(t + 2, n - 2, 16, &r->value);
	}
	for (size_t i = n; i-- > 0;)
		if (t[i] == '+') {
			plus = t + i;
			break;
		}
	if (!plus || plus == t || plus + 3 > t + n || plus[1] != '0' || plus[2] != 'x')
		return false;
	slash = memchr(plus, '/', (size_t)(t + n - plus));
	if (!slash || slash + 3 > t + n || slash[1] != '0' || slash[2] != 'x')
		return false;
	if (!parse_u(plus + 3, (size_t)(slash - plus - 3), 16, &r->value) ||
	    !parse_u(slash + 3, (size_t)(t + n - slash - 3), 16, &r->size))
		return false;
	if (plus - t > 1024)
		return false;
	r->raw = 0;
	r->name_len = (uint16_t)(plus - t);
	*name = t;
	return true;
}

static const char *const reasons[] = { "dump", "oops", "BUG", "panic", "GPF", "WARN" };

/* One parsed entry. */
struct entry {
	uint32_t cpu, pos, nr, reason;
	uint64_t ts_ns;
	bool fault, sw;
	struct console_ref from, to;
	const char *from_name, *to_name, *from_mod, *to_mod;
};

/* "@XXXXXXXX:XXXXXXXX": the low 32 bits of both addresses. */
static bool parse_low(const char *t, size_t n, struct entry *e)
{
	uint64_t a, b;

	if (n != 18 || t[0] != '@' || t[9] != ':' || !parse_u(t + 1, 8, 16, &a) ||
	    !parse_u(t + 10, 8, 16, &b))
		return false;
	/* A number %pS printed must agree with them: else the line is damaged. */
	if ((e->from.raw && (uint32_t)e->from.value != a) ||
	    (e->to.raw && (uint32_t)e->to.value != b))
		return false;
	e->from.has_low = 1;
	e->to.has_low = 1;
	e->from.low = (uint32_t)a;
	e->to.low = (uint32_t)b;
	return true;
}

/* The entry starting at "cpu=" in [p, end), or false. */
static bool parse_entry(const char *p, const char *end, struct entry *e)
{
	const char *t, *slash;
	size_t n;
	uint64_t v;

	memset(e, 0, sizeof(*e));
	if (!token(&p, end, &t, &n) || n < 5 || memcmp(t, "cpu=", 4) ||
	    !parse_u(t + 4, n - 4, 10, &v) || v > UINT32_MAX)
		return false;
	e->cpu = (uint32_t)v;
	if (!token(&p, end, &t, &n))
		return false;
	slash = memchr(t, '/', n);
	if (!slash || !parse_u(t, (size_t)(slash - t), 10, &v) || v > UINT32_MAX)
		return false;
	e->pos = (uint32_t)v;
	if (!parse_u(slash + 1, (size_t)(t + n - slash - 1), 10, &v) || v > UINT32_MAX ||
	    e->pos >= v)
		return false;
	e->nr = (uint32_t)v;
	/* FROM [mod] -> TO [mod] [@LOW:LOW] [fault] [sw] [reason] (older kernels: no LOW) */
	if (!token(&p, end, &t, &n) || !parse_addr(t, n, &e->from, &e->from_name))
		return false;
	if (!token(&p, end, &t, &n))
		return false;
	if (t[0] == '[' && t[n - 1] == ']' && n > 2) {
		e->from_mod = t;
		e->from.mod_len = (uint16_t)n;
		if (!token(&p, end, &t, &n))
			return false;
	}
	if (n != 2 || memcmp(t, "->", 2))
		return false;
	if (!token(&p, end, &t, &n) || !parse_addr(t, n, &e->to, &e->to_name))
		return false;
	while (token(&p, end, &t, &n)) {
		if (t[0] == '@') {
			/* once, before the markers */
			if (e->from.has_low || e->fault || e->sw || e->reason ||
			    !parse_low(t, n, e))
				return false;
		} else if (n == 7 && !memcmp(t, "[fault]", 7) && !e->fault && !e->sw &&
			   !e->reason) {
			e->fault = true;
		} else if (n == 4 && !memcmp(t, "[sw]", 4) && !e->sw && !e->reason) {
			e->sw = true;
		} else if (t[0] == '[' && t[n - 1] == ']' && n > 2 && !e->to_mod && !e->fault &&
			   !e->sw && !e->reason && !e->from.has_low) {
			e->to_mod = t;
			e->to.mod_len = (uint16_t)n;
		} else {
			uint32_t r;

			for (r = 1; r < ARRAY_SIZE(reasons); r++)
				if (strlen(reasons[r]) == n && !memcmp(t, reasons[r], n))
					break;
			if (r == ARRAY_SIZE(reasons) || e->reason)
				return false;	/* anything else: not (only) an entry */
			e->reason = r;
		}
	}
	return true;
}

/* The ftrace timestamp before the entry: "1234567us : " or "123.456789: ". */
static uint64_t timestamp(const char *line, const char *entry)
{
	const char *e = entry, *s;
	uint64_t a, b = 0;

	while (e > line && (e[-1] == ' ' || e[-1] == ':'))
		e--;
	s = e;
	while (s > line && s[-1] != ' ')
		s--;
	if (e - s > 2 && e[-2] == 'u' && e[-1] == 's' && parse_u(s, (size_t)(e - s - 2), 10, &a))
		return a * 1000;
	for (const char *d = s; d < e; d++)
		if (*d == '.' && parse_u(s, (size_t)(d - s), 10, &a) &&
		    parse_u(d + 1, (size_t)(e - d - 1), 10, &b) && e - d - 1 == 6)
			return a * 1000000000ULL + b * 1000;
	return 0;
}

/* One history being put together, per the history's CPU. */
struct building {
	bool open;
	uint32_t cpu, nr, reason, next_pos, missing;
	size_t dump;
};

struct state {
	const char *path;
	struct dump_list *list;
	struct console_pending *pend;
	struct building *b;
	size_t nb;
	size_t entries, first;
	size_t bad_headers, bad_header_line;	/* malformed bts_history lines */
	const char *release;
};

static void finish(struct state *st, struct building *b)
{
	struct bts_dump *d;

	if (!b->open)
		return;
	b->open = false;
	d = &st->list->d[b->dump];
	if (b->next_pos < b->nr)
		b->missing += b->nr - b->next_pos;
	d->missing = b->missing;
	d->capacity = d->count + d->missing;
}

static void add_ref(struct state *st, const struct console_ref *r, const char *name,
		    const char *mod, size_t dump, uint32_t rec, uint8_t which)
{
	struct console_pending *pend = st->pend;
	struct console_ref *o;

	if (pend->n == pend->cap) {
		pend->cap = pend->cap ? pend->cap * 2 : 1024;
		pend->refs = xrealloc(pend->refs, pend->cap * sizeof(*pend->refs));
	}
	o = &pend->refs[pend->n++];
	*o = *r;
	o->dump = dump;
	o->rec = rec;
	o->which = which;
	if (!r->raw)
		o->name = pool_add(pend, name, r->name_len);
	if (r->mod_len)
		o->mod = pool_add(pend, mod, r->mod_len);
}

/* A new history of @cpu in @b, its dump at the end of the list. */
static struct bts_dump *open_history(struct state *st, struct building *b, uint32_t cpu,
				     uint32_t nr, uint32_t reason)
{
	struct bts_dump *d;

	*b = (struct building){ .open = true, .cpu = cpu, .nr = nr, .reason = reason,
				.dump = st->list->n };
	d = dump_list_add(st->list);
	d->path = xstrdup(st->path);
	d->origin = "console";
	d->version = BTS_VERSION;
	d->header_size = BTS_V1_HEADER_SIZE;
	d->record_size = BTS_V1_RECORD_SIZE;
	d->cpu = cpu;
	d->reason = reason;
	d->flags = reason ? BTS_DUMP_CAPTURE : 0;
	d->fault_index = BTS_NO_FAULT;
	return d;
}

static struct building *building_of(struct state *st, uint32_t cpu)
{
	struct building *b;

	for (size_t i = 0; i < st->nb; i++)
		if (st->b[i].cpu == cpu)
			return &st->b[i];
	st->b = xrealloc(st->b, (st->nb + 1) * sizeof(*st->b));
	b = &st->b[st->nb++];
	memset(b, 0, sizeof(*b));
	b->cpu = cpu;
	return b;
}

static void add_entry(struct state *st, const struct entry *e)
{
	struct building *b = building_of(st, e->cpu);
	struct bts_dump *d;

	if (!b->open || e->pos < b->next_pos || e->nr != b->nr || e->reason != b->reason) {
		finish(st, b);
		open_history(st, b, e->cpu, e->nr, e->reason);
	}
	d = &st->list->d[b->dump];
	if (!d->count) {
		/* Its first record: the time and source (no bts_history line gives them). */
		d->timestamp_ns = e->ts_ns;
		d->source = e->sw ? BTS_SOURCE_SW : BTS_SOURCE_HW;
		snprintf(d->source_name, sizeof(d->source_name), "%s", e->sw ? "sw" : "intel_bts");
	}
	if (e->pos > b->next_pos)
		b->missing += e->pos - b->next_pos;
	b->next_pos = e->pos + 1;
	if ((d->count & (d->count - 1)) == 0 || !d->records)
		d->records = xrealloc(d->records,
				      (d->count ? d->count * 2 : 1) * sizeof(*d->records));
	d->records[d->count] = (struct bts_rec){
		.flags = (e->fault ? BTS_FLAG_FAULT : 0) | (e->sw ? BTS_FLAG_SW : 0),
	};
	add_ref(st, &e->from, e->from_name, e->from_mod, b->dump, d->count, 0);
	add_ref(st, &e->to, e->to_name, e->to_mod, b->dump, d->count, 1);
	d->count++;
	st->entries++;
}

/* The fields of a bts_history line. */
struct history_line {
	uint32_t cpu, nr, reason;
	uint64_t stext, kaslr;
	char release[65];
	uint8_t build_id[BTS_BUILD_ID_MAX];
	uint32_t build_id_size;
	uint32_t flags;		/* BTS_DUMP_TASK_FILTER, _FILTER_HELD */
};

/* "KEY:VALUE" token: VALUE's start and length, or false. */
static bool field(const char **p, const char *end, const char *key, const char **v, size_t *n)
{
	size_t k = strlen(key);
	const char *t;
	size_t len;

	if (!token(p, end, &t, &len) || len < k || memcmp(t, key, k))
		return false;
	*v = t + k;
	*n = len - k;
	return true;
}

static bool field_u32(const char **p, const char *end, const char *key, uint32_t *out)
{
	const char *v;
	size_t n;
	uint64_t x;

	if (!field(p, end, key, &v, &n) || !parse_u(v, n, 10, &x) || x > UINT32_MAX)
		return false;
	*out = (uint32_t)x;
	return true;
}

static bool field_hex(const char **p, const char *end, const char *key, uint64_t *out)
{
	const char *v;
	size_t n;

	return field(p, end, key, &v, &n) && n > 2 && n <= 18 && v[0] == '0' && v[1] == 'x' &&
	       parse_u(v + 2, n - 2, 16, out);
}

/*
 * The line the kernel prints before each CPU's history, starting at
 * "bts_history " in [p, end):
 *   bts_history cpu:%u nr:%u reason:%u stext:0x%lx kaslr:0x%lx release:%s build_id:%s
 * and, from kernels that have a pid filter, when it was on, " filter:pid"
 * or " filter:pid,held" after it. All of it, exactly, or false: a header
 * is never trusted in part.
 */
static bool parse_history(const char *p, const char *end, struct history_line *h)
{
	const char *v, *t, *q;
	size_t n;
	uint64_t x;

	memset(h, 0, sizeof(*h));
	p += strlen("bts_history ");
	if (!field_u32(&p, end, "cpu:", &h->cpu) || !field_u32(&p, end, "nr:", &h->nr) ||
	    !field_u32(&p, end, "reason:", &h->reason) ||
	    !field_hex(&p, end, "stext:", &h->stext) ||
	    !field_hex(&p, end, "kaslr:", &h->kaslr))
		return false;
	if (!field(&p, end, "release:", &v, &n) || n >= sizeof(h->release))
		return false;
	for (size_t i = 0; i < n; i++)
		if (v[i] < 0x21 || v[i] > 0x7e)
			return false;
	memcpy(h->release, v, n);
	/* build_id: nothing when unknown, else 2 hex digits a byte, 20 bytes at most. */
	if (!field(&p, end, "build_id:", &v, &n) || n % 2 || n > 2 * BTS_BUILD_ID_MAX)
		return false;
	for (size_t i = 0; i < n; i += 2) {
		if (!parse_u(v + i, 2, 16, &x))
			return false;
		h->build_id[i / 2] = (uint8_t)x;
	}
	h->build_id_size = (uint32_t)(n / 2);
	q = p;
	if (field(&q, end, "filter:", &v, &n)) {
		if (n == 3 && !memcmp(v, "pid", 3))
			h->flags = BTS_DUMP_TASK_FILTER;
		else if (n == 8 && !memcmp(v, "pid,held", 8))
			h->flags = BTS_DUMP_TASK_FILTER | BTS_DUMP_FILTER_HELD;
		else
			return false;
		p = q;
	}
	return !token(&p, end, &t, &n);		/* and nothing after it */
}

/*
 * A bts_history line: the next history of its CPU starts here, with the
 * dump header fields it gives. Records of that CPU with its nr join it.
 */
static void add_history(struct state *st, const struct history_line *h, uint64_t ts_ns)
{
	struct building *b = building_of(st, h->cpu);
	/* Records name reasons 1..5 only; others print none (0). */
	uint32_t rec_reason = h->reason < ARRAY_SIZE(reasons) ? h->reason : 0;
	struct bts_dump *d;

	finish(st, b);
	d = open_history(st, b, h->cpu, h->nr, rec_reason);
	d->header = true;
	d->reason = h->reason;
	d->flags = (h->reason ? BTS_DUMP_CAPTURE : 0) | h->flags;
	d->stext = h->stext;
	d->kaslr_offset = h->kaslr;
	d->timestamp_ns = ts_ns;
	d->source = BTS_SOURCE_NONE;
	memcpy(d->release, h->release, sizeof(d->release));
	memcpy(d->build_id, h->build_id, sizeof(d->build_id));
	d->build_id_size = h->build_id_size;
	/* The running kernel's release, or another's: the header says which. */
	if (st->release && st->pend->header_release != 2)
		st->pend->header_release = strcmp(h->release, st->release) ? 2 : 1;
}

static void parse_line(struct state *st, const char *line, const char *end, size_t lineno)
{
	static const char hist[] = "bts_history cpu:";
	struct history_line h;
	struct entry e;

	if (end > line && end[-1] == '\r')
		end--;
	if (st->release && !st->pend->mentions_release) {
		size_t n = strlen(st->release);

		for (const char *p = line; p + n <= end; p++)
			if (!memcmp(p, st->release, n) && (p + n == end || p[n] == ' ')) {
				st->pend->mentions_release = true;
				break;
			}
	}
	for (const char *p = line; p + sizeof(hist) - 1 < end; p++) {
		if (memcmp(p, hist, sizeof(hist) - 1) || (p > line && p[-1] != ' '))
			continue;
		if (parse_history(p, end, &h))
			add_history(st, &h, timestamp(line, p));
		else if (!st->bad_headers++)
			st->bad_header_line = lineno;
		return;
	}
	for (const char *p = line; p + 4 < end; p++) {
		if (memcmp(p, "cpu=", 4) || (p > line && p[-1] != ' '))
			continue;
		if (parse_entry(p, end, &e)) {
			e.ts_ns = timestamp(line, p);
			add_entry(st, &e);
			return;
		}
	}
}

int console_load(const char *path, int fd, struct dump_list *list, struct console_pending *pend,
		 const char *release)
{
	struct state st = { .path = path, .list = list, .pend = pend, .first = list->n,
			    .release = release };
	size_t cap = 1 << 20, len = 0, lineno = 0;
	bool cut = false, skipping = false;
	char *buf = xmalloc(cap);
	int ret = 0;

	for (;;) {
		ssize_t r = read(fd, buf + len, cap - len);
		size_t start = 0;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = error_msg("%s: line %zu: %s", path, lineno + 1, strerror(errno));
			break;
		}
		len += (size_t)r;
		for (;;) {
			char *eol = memchr(buf + start, '\n', len - start);

			if (!eol)
				break;
			lineno++;
			if (!skipping)
				parse_line(&st, buf + start, eol, lineno);
			skipping = false;
			start = (size_t)(eol - buf) + 1;
		}
		/* A line longer than MAX_LINE is no bts line: skip to its end. */
		if (len - start > MAX_LINE) {
			start = len;
			skipping = true;
		}
		memmove(buf, buf + start, len - start);
		len -= start;
		if (r == 0) {
			/* The last line without its newline: cut short, left out. */
			cut = len > 0 && !skipping;
			break;
		}
	}
	free(buf);
	for (size_t i = 0; i < st.nb; i++)
		finish(&st, &st.b[i]);
	free(st.b);
	if (ret)
		return ret;
	if (list->n == st.first)
		return error_msg("%s: no bts lines (\"cpu=N POS/NR FROM -> TO\"): not a dump, trace.dat or console log with bts entries",
				 path);
	if (st.bad_headers)
		warn_msg("%s: line %zu: %zu bts_history line%s not exactly \"bts_history cpu:N nr:N reason:N stext:0xX kaslr:0xX release:R build_id:HEX\" (cut, or mixed with other output); left out, the histories after them read without their header",
			 path, st.bad_header_line, st.bad_headers, st.bad_headers == 1 ? "" : "s");
	if (cut)
		warn_msg("%s: the last line has no end (cut short?); left it out", path);
	return 0;
}

/* bts-series: from dump-console-dups */
static bool same_name(const struct console_pending *pend, const struct console_ref *a,
		      const struct console_ref *b)
{
	return !a->raw && !b->raw && a->name_len == b->name_len && a->mod_len == b->mod_len &&
	       !memcmp(pend->pool + a->name, pend->pool + b->name, a->name_len) &&
	       (!a->mod_len || !memcmp(pend->pool + a->mod, pend->pool + b->mod, a->mod_len));
}

/* The starts of every symbol @r's name and size could mean. */
static size_t candidates(const struct console_pending *pend, const struct symtab *st,
			 const struct console_ref *r, uint64_t *starts, size_t max)
{
	return symtab_name_starts(st, pend->pool + r->name, r->name_len,
				  r->mod_len ? pend->pool + r->mod : "", r->mod_len, r->size,
				  r->value, starts, max);
}

#define MAX_CANDIDATES	1024

/*
 * Make @r the symbol at @start, if it is one of its candidates and @doubt
 * is less than what @r has now.
 */
static bool choose(const struct console_pending *pend, const struct symtab *st,
		   struct console_ref *r, uint64_t start, uint8_t doubt)
{
	uint64_t starts[MAX_CANDIDATES];
	size_t n;

	if (doubt >= r->doubt)
		return false;
	n = candidates(pend, st, r, starts, ARRAY_SIZE(starts));
	for (size_t k = 0; k < n; k++) {
		if (starts[k] == start) {
			r->start = start;
			r->doubt = doubt;
			return true;
		}
	}
	return false;
}

/* A difference between a printed low half and a table address, of one dump. */
struct low_diff {
	size_t dump;
	uint32_t diff;
};

static int cmp_low_diff(const void *a, const void *b)
{
	const struct low_diff *x = a, *y = b;

	if (x->dump != y->dump)
		return (x->dump > y->dump) - (x->dump < y->dump);
	return (x->diff > y->diff) - (x->diff < y->diff);
}

/*
 * The low 32 bits a line gives after its addresses (kernels since they
 * print them) name the copy. They are runtime addresses: the table's
 * addresses move by the dump's bias, known from its bts_history line or,
 * without one, from the names that have a single symbol (the most common
 * difference).
 * Return: how many addresses no candidate (or, for a single one, not the
 * symbol itself) agrees with: symbols of another kernel. @first is the
 * first of them.
 */
static size_t by_low_bits(struct console_pending *pend, struct dump_list *list,
			  const struct symtab *st, const uint64_t *bias,
			  const struct console_ref **first)
{
	uint32_t *lbias = xcalloc(list->n ? list->n : 1, sizeof(*lbias));
	bool *known = xcalloc(list->n ? list->n : 1, sizeof(*known));
	struct low_diff *diffs = NULL;
	size_t nd = 0, cap = 0, bad = 0;

	for (size_t d = 0; d < list->n; d++) {
		if (list->d[d].header) {
			lbias[d] = (uint32_t)bias[d];
			known[d] = true;
		}
	}
	/* Without a header: the most common difference of single-symbol names, per dump. */
	for (size_t i = 0; i < pend->n; i++) {
		const struct console_ref *r = &pend->refs[i];

		if (known[r->dump] || r->raw || !r->has_low || r->doubt || !r->start)
			continue;
		if (nd == cap) {
			cap = cap ? cap * 2 : 256;
			diffs = xrealloc(diffs, cap * sizeof(*diffs));
		}
		diffs[nd++] = (struct low_diff){ r->dump,
						 r->low - (uint32_t)(r->start + r->value) };
	}
	if (nd)
		qsort(diffs, nd, sizeof(*diffs), cmp_low_diff);
	for (size_t k = 0, run = 0, best = 0; k < nd; k++) {
		if (k && diffs[k].dump != diffs[k - 1].dump)
			best = 0;
		run = k && diffs[k].dump == diffs[k - 1].dump &&
		      diffs[k].diff == diffs[k - 1].diff ? run + 1 : 1;
		if (run > best) {
			best = run;
			lbias[diffs[k].dump] = diffs[k].diff;
			known[diffs[k].dump] = true;
		}
	}
	for (size_t i = 0; i < pend->n; i++) {
		struct console_ref *r = &pend->refs[i];
		uint64_t starts[MAX_CANDIDATES];
		size_t n, hits = 0;
		uint64_t hit = 0;

		if (r->raw || !r->has_low || !known[r->dump] || (!r->start && !r->doubt))
			continue;
		n = r->doubt ? candidates(pend, st, r, starts, ARRAY_SIZE(starts)) : 0;
		if (!r->doubt) {
			starts[0] = r->start;
			n = 1;
		}
		for (size_t k = 0; k < n; k++) {
			if ((uint32_t)(starts[k] + r->value) + lbias[r->dump] == r->low) {
				hit = starts[k];
				hits++;
			}
		}
		if (!hits) {
			if (!bad++)
				*first = r;
		} else if (hits == 1) {
			r->start = hit;
			r->doubt = DOUBT_NONE;
		}
	}
	free(diffs);
	free(known);
	free(lbias);
	return bad;
}

/*
 * Static functions of one name and size (copies of a header's inline, in
 * several files) cannot be told apart by a line of an older kernel, which
 * prints no low bits. Their neighbours can help: a direct call or jump
 * from a proven place names its target (proof); the CPU runs on from
 * where a branch went, so a record's 'to' and the next record's 'from'
 * are likely in the same function when they name it, and a return lands
 * right after its call (likely: records lost between them, or an edge of
 * the software source, break both). What stays in doubt is counted and
 * marked. Returns how many addresses are in doubt.
 */
static size_t disambiguate(struct console_pending *pend, struct dump_list *list,
			   const struct symtab *st, struct resolver *res)
{
	size_t **refs = xcalloc(list->n ? list->n : 1, sizeof(*refs)), left = 0;

	/* Each console dump's refs by record: 2 * rec + which. */
	for (size_t i = 0; i < pend->n; i++) {
		const struct console_ref *r = &pend->refs[i];

		if (!refs[r->dump])
			refs[r->dump] = xcalloc(2 * (size_t)list->d[r->dump].count + 1,
						sizeof(size_t));
		refs[r->dump][2 * (size_t)r->rec + r->which] = i;
	}
	for (int pass = 0; pass < 6; pass++) {
		bool changed = false;

		/* Anchors: a direct call or jump from a known place names its target. */
		for (size_t d = 0; res && d < list->n; d++) {
			for (uint32_t i = 0; refs[d] && i < list->d[d].count; i++) {
				struct console_ref *from = &pend->refs[refs[d][2 * (size_t)i]];
				struct console_ref *to = &pend->refs[refs[d][2 * (size_t)i + 1]];
				uint64_t t;

				if (!to->doubt || from->doubt == DOUBT_UNKNOWN ||
				    (from->raw && !from->value) || (!from->raw && !from->start))
					continue;
				if (resolver_branch_target(res, (from->raw ? 0 : from->start) +
							   from->value, &t))
					changed |= choose(pend, st, to, t - to->value, from->doubt);
			}
		}
		/*
		 * A return lands right after its call: a 'to' at F+off is in the copy
		 * of F whose call at F+off-2..7 was recorded, if one was (the newest).
		 */
		for (size_t d = 0; d < list->n; d++) {
			for (uint32_t i = 0; refs[d] && i < list->d[d].count; i++) {
				struct console_ref *to = &pend->refs[refs[d][2 * (size_t)i + 1]];

				for (uint32_t j = i; to->doubt == DOUBT_UNKNOWN && j-- > 0;) {
					struct console_ref *call;

					call = &pend->refs[refs[d][2 * (size_t)j]];
					if (call->doubt != DOUBT_UNKNOWN &&
					    call->value < to->value &&
					    call->value + 7 >= to->value &&
					    call->value + 2 <= to->value &&
					    same_name(pend, call, to))
						changed |= choose(pend, st, to, call->start,
								  DOUBT_LIKELY);
				}
			}
		}

		for (size_t d = 0; d < list->n; d++) {
			uint32_t count = list->d[d].count;

			for (uint32_t j = 0; refs[d] && j + 1 < count; j++) {
				/* forward passes walk up, backward ones down */
				uint32_t i = pass % 2 ? count - 2 - j : j;
				struct console_ref *to = &pend->refs[refs[d][2 * (size_t)i + 1]];
				struct console_ref *from = &pend->refs[refs[d][2 * (size_t)i + 2]];

				if (!same_name(pend, to, from) || to->doubt == from->doubt)
					continue;
				if (to->doubt > from->doubt)
					changed |= choose(pend, st, to, from->start, DOUBT_LIKELY);
				else
					changed |= choose(pend, st, from, to->start, DOUBT_LIKELY);
			}
		}
		if (!changed && pass)
			break;
	}
	for (size_t d = 0; d < list->n; d++)
		free(refs[d]);
	free(refs);
	for (size_t i = 0; i < pend->n; i++)
		left += !pend->refs[i].raw && pend->refs[i].doubt;
	return left;
}
/* bts-series: end */

/* Mark the records whose addresses stay in doubt, in their dumps. */
static void mark_doubts(const struct console_pending *pend, struct dump_list *list)
{
	for (size_t i = 0; i < pend->n; i++) {
		const struct console_ref *r = &pend->refs[i];
		struct bts_dump *d = &list->d[r->dump];

		if (r->raw || !r->doubt)
			continue;
		if (!d->doubt)
			d->doubt = xcalloc(d->count ? d->count : 1, 1);
		if (!d->doubt[r->rec])
			d->ndoubtful++;
		d->doubt[r->rec] |= r->which ? BTS_DOUBT_TO : BTS_DOUBT_FROM;
		d->ndoubts++;
	}
}

int console_resolve(struct console_pending *pend, struct dump_list *list, const struct symtab *st,
/* bts-series: until dump-console-dups */
//~		    bool force)
/* bts-series: end */
/* bts-series: from dump-console-dups */
		    bool force, struct resolver *res)
/* bts-series: end */
{
/* bts-series: until dump-console-dups */
//~	size_t missing = 0, doubts = 0, beyond = 0;
//~	const struct console_ref *first = NULL, *first_beyond = NULL;
/* bts-series: end */
/* bts-series: from dump-console-dups */
	size_t missing = 0, doubts = 0, beyond = 0, wrong;
	const struct console_ref *first = NULL, *first_beyond = NULL, *first_wrong = NULL;
/* bts-series: end */
	uint64_t *bias = xcalloc(list->n ? list->n : 1, sizeof(*bias));

	/*
	 * A history with a bts_history line is given runtime addresses, as a
	 * dump has: the symbol table's moved by where that kernel's _stext
	 * was (or its KASLR offset), as resolver_set_dump() moves them back.
	 * Raw numbers (%pS found no symbol) are runtime addresses already;
	 * until then they are taken to the table's addresses like the rest.
	 */
	for (size_t i = 0; i < list->n; i++) {
		const struct bts_dump *d = &list->d[i];

		if (!d->header)
			continue;
		if (st->stext && d->stext)
			bias[i] = d->stext - st->stext;
		else if (st->link_addresses)
			bias[i] = d->kaslr_offset;
	}
	for (size_t i = 0; i < pend->n; i++)
		if (pend->refs[i].raw)
			pend->refs[i].value -= bias[pend->refs[i].dump];

	for (size_t i = 0; i < pend->n; i++) {
		struct console_ref *r = &pend->refs[i];
		uint64_t addr;
		int k;

		r->doubt = DOUBT_NONE;
		if (r->raw)
			continue;
		k = symtab_find_name(st, pend->pool + r->name, r->name_len,
				     r->mod_len ? pend->pool + r->mod : "", r->mod_len,
				     r->size, r->value, &addr);
		if (k < 0) {
			if (!missing++)
				first = r;
			continue;
		}
		if (k == 2 && !beyond++)
			first_beyond = r;
		r->doubt = k == 1 ? DOUBT_UNKNOWN : DOUBT_NONE;
		r->start = addr;
	}
/* bts-series: until dump-console-dups */
//~	for (size_t i = 0; i < pend->n; i++)
//~		doubts += !pend->refs[i].raw && pend->refs[i].doubt;
/* bts-series: end */
/* bts-series: from dump-console-dups */
	wrong = by_low_bits(pend, list, st, bias, &first_wrong);
	doubts = disambiguate(pend, list, st, res);
/* bts-series: end */
	mark_doubts(pend, list);
	for (size_t i = 0; i < pend->n; i++) {
		const struct console_ref *r = &pend->refs[i];
		struct bts_rec *rec = &list->d[r->dump].records[r->rec];
		uint64_t addr = 0;

		/* (a name not found stays 0) */
		if (r->raw)
			addr = r->value + bias[r->dump];
		else if (r->start)
			addr = r->start + r->value + bias[r->dump];
		if (r->which)
			rec->to = addr;
		else
			rec->from = addr;
	}
	free(bias);
	for (size_t i = 0; i < list->n; i++)
		if (list->d[i].origin && !strcmp(list->d[i].origin, "console") &&
		    !list->d[i].header)
			list->d[i].stext = st->stext;
/* bts-series: until dump-console-dups */
//~	if (beyond) {
/* bts-series: end */
/* bts-series: from dump-console-dups */
	if (beyond || wrong) {
/* bts-series: end */
		/*
 * bts-series: until dump-console-dups
		 * Not the printing kernel's symbols: an offset past the end.
 * bts-series: end
 * bts-series: from dump-console-dups
		 * Not the printing kernel's symbols: an offset past the end, or
		 * low bits that disagree.
 * bts-series: end
		 */
/* bts-series: until dump-console-dups */
//~		const char *what = "are past the end of their symbol in the symbol table";
//~		const struct console_ref *f = first_beyond;
/* bts-series: end */
/* bts-series: from dump-console-dups */
		const char *what = beyond ? "are past the end of their symbol in the symbol table" :
				   "disagree with the low 32 bits the line printed";
		const struct console_ref *f = beyond ? first_beyond : first_wrong;
/* bts-series: end */

		if (!force)
			return error_msg("%zu addresses %s (the first: %s+0x%llx/0x%llx): not the symbols of the kernel that printed them; give those, or --force",
/* bts-series: until dump-console-dups */
//~					 beyond, what, pend->pool + f->name,
/* bts-series: end */
/* bts-series: from dump-console-dups */
					 beyond ? beyond : wrong, what, pend->pool + f->name,
/* bts-series: end */
					 (unsigned long long)f->value,
					 (unsigned long long)f->size) * 2;
		warn_msg("%zu addresses %s (the first: %s+0x%llx/0x%llx); --force: using them anyway",
/* bts-series: until dump-console-dups */
//~			 beyond, what, pend->pool + f->name,
/* bts-series: end */
/* bts-series: from dump-console-dups */
			 beyond ? beyond : wrong, what, pend->pool + f->name,
/* bts-series: end */
			 (unsigned long long)f->value, (unsigned long long)f->size);
	}
	if (doubts)
/* bts-series: until dump-console-dups */
//~		warn_msg("%zu addresses name a static function that exists more than once with that size, and the line does not say which; each is marked ambiguous, the first copy taken",
//~			 doubts);
/* bts-series: end */
/* bts-series: from dump-console-dups */
		warn_msg("%zu addresses name a static function that exists more than once with that size, and the line does not say which (a kernel that prints no low bits); each is marked ambiguous, the likeliest copy taken",
			 doubts);
/* bts-series: end */
	if (missing)
		return error_msg("%zu addresses name symbols the symbol table does not have (the first: %s+0x%llx%s%s); they print as 0x0: symbols of another kernel?",
				 missing, pend->pool + first->name,
				 (unsigned long long)first->value, first->mod_len ? " " : "",
				 first->mod_len ? pend->pool + first->mod : "");
	return 0;
}

void console_pending_free(struct console_pending *pend)
{
	free(pend->refs);
	free(pend->pool);
	memset(pend, 0, sizeof(*pend));
}
