// SPDX-License-Identifier: GPL-2.0
/*
 * bts-dump (decoder layer): the symbol table. See symtab.h.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>

#include "symtab.h"
#include "util.h"

/* A symbol with no known size ends at the next one, but at most this far. */
#define MAX_IMPLIED_SIZE	(1ULL << 20)
/* Symbols further apart than this start a new cluster (modules, vsyscall). */
#define CLUSTER_GAP		(64ULL << 20)

void symtab_init(struct symtab *st)
{
	memset(st, 0, sizeof(*st));
	st->pool_cap = 1 << 16;
	st->pool = xmalloc(st->pool_cap);
	st->pool[0] = '\0';
	st->pool_len = 1;	/* offset 0 is the empty string */
}

void symtab_free(struct symtab *st)
{
	free(st->syms);
	free(st->addrs);
	free(st->pool);
	free(st->bucket);
	free(st->names);
	free(st->name_slots);
	memset(st, 0, sizeof(*st));
}

static uint32_t pool_add(struct symtab *st, const char *s, size_t n)
{
	uint32_t off;

	/* 16 bytes of slack: names are copied out in 16-byte chunks. */
	if (st->pool_len + n + 1 + 16 > st->pool_cap) {
		while (st->pool_len + n + 1 + 16 > st->pool_cap)
			st->pool_cap *= 2;
		st->pool = xrealloc(st->pool, st->pool_cap);
	}
	off = (uint32_t)st->pool_len;
	memcpy(st->pool + off, s, n);
	st->pool[off + n] = '\0';
	st->pool_len += n + 1;
	return off;
}

static bool starts_with(const char *s, size_t n, const char *prefix)
{
	size_t p = strlen(prefix);

	return n >= p && memcmp(s, prefix, p) == 0;
}

/* Among aliases, prefer real functions over padding and section markers. */
static uint8_t alias_rank(char type, const char *name, size_t n)
{
	uint8_t rank = 0;

	if (type == 't')
		rank += 1;
	else if (type == 'w' || type == 'W')
		rank += 2;
	if (starts_with(name, n, "__pfx_") || starts_with(name, n, "__cfi_") ||
	    starts_with(name, n, "__start_") || starts_with(name, n, "__stop_") ||
	    (n == 6 && !memcmp(name, "_stext", 6)) ||
	    (n == 5 && !memcmp(name, "_text", 5)) ||
	    (n == 6 && !memcmp(name, "_etext", 6)))
		rank += 8;
	return rank;
}

void symtab_add(struct symtab *st, uint64_t addr, uint64_t size, char type,
		const char *name, size_t name_len, const char *module, size_t mod_len)
{
	struct sym *s;

	if (name_len > 0xffff)
		name_len = 0xffff;
	if (st->n == st->cap) {
		st->cap = st->cap ? st->cap * 2 : 4096;
		st->syms = xrealloc(st->syms, st->cap * sizeof(*st->syms));
	}
	s = &st->syms[st->n++];
	s->addr = addr;
	s->end = size ? addr + size : 0;
	if (s->end && s->end < addr)	/* wrapped */
		s->end = ~0ULL;
	s->name = pool_add(st, name, name_len);
	s->name_len = (uint16_t)name_len;
	s->rank = alias_rank(type, name, name_len);
	s->text = type == 't' || type == 'T' || type == 'w' || type == 'W';
	s->module = mod_len ? pool_add(st, module, mod_len) : 0;
	if (name_len == 6 && !memcmp(name, "_stext", 6) && !mod_len)
		st->stext = addr;
	if (name_len == 6 && !memcmp(name, "_etext", 6) && !mod_len)
		st->etext = addr;
}

static const char *skip_blank(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

static const char *skip_word(const char *p, const char *end)
{
	while (p < end && *p != ' ' && *p != '\t')
		p++;
	return p;
}

/* Longer lines are no kallsyms lines: the file is something else. */
#define MAX_LINE	4096
/* With nothing good before, this many bad lines mean a file of another kind. */
#define MAX_BAD_START	16

struct ksyms_parse {
	const char *path;
	size_t lineno, added, zero;
	size_t bad, first_bad;
	char first_bad_why[64];
};

/* One line; returns -1 if the file cannot be a symbol file at all. */
static int parse_line(struct symtab *st, struct ksyms_parse *ps, const char *line,
		      const char *eol)
{
	const char *name, *name_end, *mod = NULL, *why;
	uint64_t addr = 0;
	size_t mod_len = 0;
	int digits = 0;
	char type;

	ps->lineno++;
	while (line < eol) {
		char c = *line;
		unsigned int v;

		if (c >= '0' && c <= '9')
			v = (unsigned int)(c - '0');
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			v = (unsigned int)((c | 0x20) - 'a' + 10);
		else
			break;
		addr = addr << 4 | v;
		line++;
		digits++;
	}
	line = skip_blank(line, eol);
	if (!digits && line == eol)	/* blank line */
		return 0;
	why = "not a kallsyms/System.map line";
	if (!digits || digits > 16 || line >= eol || line[0] == ' ')
		goto bad;
	type = *line++;
	if (line < eol && *line != ' ' && *line != '\t')
		goto bad;	/* the type is one letter */
	name = skip_blank(line, eol);
	name_end = skip_word(name, eol);
	why = "symbol without a name";
	if (name == name_end)
		goto bad;
	line = skip_blank(name_end, eol);
	if (line < eol && *line == '[') {
		mod = line;
		mod_len = (size_t)(skip_word(line, eol) - line);
	}
	/* Skip special ranges that are not symbols of code. */
	if (type == 'a' || type == 'A' || type == 'U')
		return 0;
	if (!addr)
		ps->zero++;
	symtab_add(st, addr, 0, type, name, (size_t)(name_end - name), mod, mod_len);
	ps->added++;
	return 0;
bad:
	if (!ps->bad++) {
		ps->first_bad = ps->lineno;
		snprintf(ps->first_bad_why, sizeof(ps->first_bad_why), "%s", why);
	}
	if (!ps->added && ps->bad >= MAX_BAD_START)
		return error_msg("%s: line %zu: %s: not a kallsyms/System.map file",
				 ps->path, ps->first_bad, ps->first_bad_why);
	return 0;
}

/* Complete lines of @buf; returns the bytes used, or -1. */
static long parse_lines(struct symtab *st, struct ksyms_parse *ps, const char *buf,
			size_t len, bool at_end)
{
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));

		if (!eol && !at_end)
			break;
		if (!eol)
			eol = end;
		if (eol - p > MAX_LINE)
			return error_msg("%s: line %zu: longer than %d bytes: not a kallsyms/System.map file",
					 ps->path, ps->lineno + 1, MAX_LINE);
		if (parse_line(st, ps, p, eol))
			return -1;
		p = eol + 1;
	}
	if (!at_end && (size_t)(end - p) > MAX_LINE)
		return error_msg("%s: line %zu: longer than %d bytes: not a kallsyms/System.map file",
				 ps->path, ps->lineno + 1, MAX_LINE);
	return p > end ? (long)len : (long)(p - buf);
}

static int parse_done(struct ksyms_parse *ps)
{
	if (!ps->added)
		return ps->bad ? error_msg("%s: line %zu: %s: not a kallsyms/System.map file",
					   ps->path, ps->first_bad, ps->first_bad_why) :
				 error_msg("%s: no symbols", ps->path);
	if (ps->zero == ps->added)
		return error_msg("%s: every address is 0 (read it as root, or set kptr_restrict=0)",
				 ps->path);
	if (ps->bad == 1)
		warn_msg("%s: line %zu: %s; skipped it", ps->path, ps->first_bad,
			 ps->first_bad_why);
	else if (ps->bad)
		warn_msg("%s: line %zu: %s; skipped it and %zu more bad lines", ps->path,
			 ps->first_bad, ps->first_bad_why, ps->bad - 1);
	return 0;
}

int symtab_parse_kallsyms(struct symtab *st, const char *buf, size_t len, const char *path)
{
	struct ksyms_parse ps = { .path = path };

	if (parse_lines(st, &ps, buf, len, true) < 0)
		return -1;
	return parse_done(&ps);
}

/*
 * Read in chunks, parsing as it goes: a file that is no symbol file (one
 * huge line, binary, a sparse file) is refused after its first chunk.
 */
int symtab_load_kallsyms(struct symtab *st, const char *path)
{
	struct ksyms_parse ps = { .path = path };
	size_t cap = 1 << 20, len = 0;
	struct stat stt;
	char *buf;
	int fd, ret = -1;

	fd = open_input(path, &stt);
	if (fd < 0)
		return -1;
	buf = xmalloc(cap);
	for (;;) {
		ssize_t r = read(fd, buf + len, cap - len);
		long used;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			error_msg("%s: line %zu: %s", path, ps.lineno + 1, strerror(errno));
			goto out;
		}
		len += (size_t)r;
		used = parse_lines(st, &ps, buf, len, r == 0);
		if (used < 0)
			goto out;
		memmove(buf, buf + used, len - (size_t)used);
		len -= (size_t)used;
		if (r == 0)
			break;
	}
	ret = parse_done(&ps);
	if (!ret)
		st->link_addresses = !strstr(path, "kallsyms");
out:
	free(buf);
	close(fd);
	return ret;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	/* sized before unsized, then by name for a stable result */
	if (!x->end != !y->end)
		return x->end ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

static uint64_t name_hash(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	return h;
}

/* Every text symbol by name, aliases included, with its kallsyms size. */
static void build_names(struct symtab *st)
{
	size_t cap = 16;

	st->names = xmalloc((st->n ? st->n : 1) * sizeof(*st->names));
	st->nnames = 0;
	for (size_t i = 0; i < st->n; i++) {
		const struct sym *s = &st->syms[i];

		if (!s->text)
			continue;
		st->names[st->nnames++] = (struct sym_name){
			.addr = s->addr, .size = s->end - s->addr, .name = s->name,
			.name_len = s->name_len, .module = s->module,
		};
	}
	while (cap < st->nnames * 2)
		cap *= 2;
	st->name_mask = cap - 1;
	st->name_slots = xcalloc(cap, sizeof(*st->name_slots));
	for (size_t i = 0; i < st->nnames; i++) {
		size_t k = name_hash(st->pool + st->names[i].name, st->names[i].name_len) &
			   st->name_mask;

		while (st->name_slots[k])
			k = (k + 1) & st->name_mask;
		st->name_slots[k] = (uint32_t)i + 1;
	}
}

int symtab_find_name(const struct symtab *st, const char *name, size_t len, const char *mod,
		     size_t mod_len, uint64_t size, uint64_t off, uint64_t *addr)
{
	size_t k, found = 0, sized = 0, fits = 0;
	uint64_t first = 0, first_sized = 0, first_fit = 0;

	if (!st->name_slots)
		return -1;
	for (k = name_hash(name, len) & st->name_mask; st->name_slots[k];
	     k = (k + 1) & st->name_mask) {
		const struct sym_name *sn = &st->names[st->name_slots[k] - 1];
		const char *m = sn->module ? st->pool + sn->module : "";

		if (sn->name_len != len || memcmp(st->pool + sn->name, name, len) ||
		    strlen(m) != mod_len || memcmp(m, mod, mod_len))
			continue;
		if (!found++)
			first = sn->addr;
		if (off < sn->size && !fits++)
			first_fit = sn->addr;
		if (size && sn->size == size && off < sn->size && !sized++)
			first_sized = sn->addr;
	}
	if (!found)
		return -1;
	if (sized) {
		*addr = first_sized;
		return sized > 1;
	}
	if (fits) {
		*addr = first_fit;
		return fits > 1;
	}
	*addr = first;
	return 2;	/* the offset is past every symbol of that name */
}

size_t symtab_name_starts(const struct symtab *st, const char *name, size_t len, const char *mod,
			  size_t mod_len, uint64_t size, uint64_t off, uint64_t *starts, size_t max)
{
	size_t n = 0, sized = 0;

	if (!st->name_slots)
		return 0;
	/* Two rounds: those of the printed size, else those the offset fits. */
	for (int round = 0; round < 2 && !n; round++) {
		for (size_t k = name_hash(name, len) & st->name_mask; st->name_slots[k];
		     k = (k + 1) & st->name_mask) {
			const struct sym_name *sn = &st->names[st->name_slots[k] - 1];
			const char *m = sn->module ? st->pool + sn->module : "";

			if (sn->name_len != len || memcmp(st->pool + sn->name, name, len) ||
			    strlen(m) != mod_len || memcmp(m, mod, mod_len) || off >= sn->size ||
			    (!round && sn->size != size))
				continue;
			if (n < max)
				starts[n] = sn->addr;
			n++;
		}
		sized = n;
	}
	(void)sized;
	return n < max ? n : max;
}

static void build_index(struct symtab *st)
{
	size_t best_lo = 0, best_n = 0, run_lo = 0;

	if (!st->n)
		return;
	for (size_t i = 1; i <= st->n; i++) {
		if (i == st->n || st->addrs[i] - st->addrs[i - 1] > CLUSTER_GAP) {
			if (i - run_lo > best_n) {
				best_n = i - run_lo;
				best_lo = run_lo;
			}
			run_lo = i;
		}
	}
	st->idx_lo = st->addrs[best_lo];
	st->idx_hi = st->syms[best_lo + best_n - 1].end;
	if (st->idx_hi <= st->idx_lo)
		st->idx_hi = st->idx_lo + 1;
	st->idx_shift = 0;
	while (((st->idx_hi - st->idx_lo) >> st->idx_shift) > 2 * best_n + 1)
		st->idx_shift++;
	st->nbuckets = (size_t)((st->idx_hi - 1 - st->idx_lo) >> st->idx_shift) + 2;
	st->bucket = xmalloc(st->nbuckets * sizeof(*st->bucket));
	/* bucket[b]: the last symbol starting at or before the bucket's start */
	size_t i = best_lo;

	for (size_t b = 0; b < st->nbuckets; b++) {
		uint64_t start = st->idx_lo + ((uint64_t)b << st->idx_shift);

		while (i + 1 < st->n && st->addrs[i + 1] <= start)
			i++;
		st->bucket[b] = (uint32_t)i;
	}
}

void symtab_finish(struct symtab *st)
{
	size_t i, j;

	if (st->n)
		qsort(st->syms, st->n, sizeof(*st->syms), sym_cmp);
	/* Ends first, from every symbol (data bounds the code before it). */
	for (i = 0; i < st->n; i++) {
		struct sym *s = &st->syms[i];

		if (s->end)
			continue;
		for (j = i + 1; j < st->n && st->syms[j].addr == s->addr; j++)
			;
		s->end = j < st->n ? st->syms[j].addr : s->addr + 1;
		if (s->end - s->addr > MAX_IMPLIED_SIZE)
			s->end = s->addr + MAX_IMPLIED_SIZE;
	}
	if (st->want_names)
		build_names(st);
	/* Keep one code symbol per address. */
	for (i = 0, j = 0; i < st->n; i++) {
		if (!st->syms[i].text)
			continue;
		if (j && st->syms[j - 1].addr == st->syms[i].addr)
			continue;
		st->syms[j++] = st->syms[i];
	}
	st->n = j;
	/* Disjoint ranges: a lookup and a cached hit always agree. */
	for (i = 0; i + 1 < st->n; i++)
		if (st->syms[i].end > st->syms[i + 1].addr)
			st->syms[i].end = st->syms[i + 1].addr;
	free(st->addrs);
	st->addrs = xmalloc((st->n ? st->n : 1) * sizeof(*st->addrs));
	for (i = 0; i < st->n; i++)
		st->addrs[i] = st->syms[i].addr;
	build_index(st);
}

/* Last symbol in [lo, hi] starting at or before @addr, or -1. */
static long search(const uint64_t *addrs, long lo, long hi, uint64_t addr)
{
	if (addrs[lo] > addr)
		return -1;
	while (lo < hi) {
		long mid = lo + (hi - lo + 1) / 2;

		if (addrs[mid] <= addr)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

const struct sym *symtab_lookup(const struct symtab *st, uint64_t addr)
{
	const struct sym *s;
	long i;

	if (!st->n)
		return NULL;
	if (addr >= st->idx_lo && addr < st->idx_hi) {
		size_t b = (size_t)((addr - st->idx_lo) >> st->idx_shift);

		i = search(st->addrs, st->bucket[b], st->bucket[b + 1], addr);
	} else {
		i = search(st->addrs, 0, (long)st->n - 1, addr);
	}
	if (i < 0)
		return NULL;
	s = &st->syms[i];
	return addr < s->end ? s : NULL;
}
