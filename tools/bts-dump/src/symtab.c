// SPDX-License-Identifier: GPL-2.0
/*
 * bts-dump (decoder layer): the symbol table. See symtab.h.
 */
#include <stdio.h>
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

int symtab_load_kallsyms(struct symtab *st, const char *path)
{
	uint8_t *buf;
	size_t len;
	int ret;

	if (read_whole_file(path, &buf, &len))
		return -1;
	ret = symtab_parse_kallsyms(st, (const char *)buf, len, path);
	free(buf);
	if (!ret)
		st->link_addresses = strstr(path, "kallsyms") == NULL;
	return ret;
}

int symtab_parse_kallsyms(struct symtab *st, const char *buf, size_t len, const char *path)
{
	size_t lineno = 0, added = 0, zero = 0;
	const char *p, *end;

	p = buf;
	end = p + len;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *line = p, *name, *name_end, *mod = NULL;
		uint64_t addr = 0;
		size_t mod_len = 0;
		int digits = 0;
		char type;

		if (!eol)
			eol = end;
		p = eol + 1;
		lineno++;
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
		if (!digits || digits > 16 || line >= eol) {
			if (line == eol && !digits)	/* blank line */
				continue;
			return error_msg("%s: line %zu: not a kallsyms/System.map line",
					 path, lineno);
		}
		type = *line++;
		name = skip_blank(line, eol);
		name_end = skip_word(name, eol);
		if (name == name_end)
			return error_msg("%s: line %zu: symbol without a name", path, lineno);
		line = skip_blank(name_end, eol);
		if (line < eol && *line == '[') {
			mod = line;
			mod_len = (size_t)(skip_word(line, eol) - line);
		}
		/* Skip special ranges that are not symbols of code. */
		if (type == 'a' || type == 'A' || type == 'U')
			continue;
		if (!addr)
			zero++;
		symtab_add(st, addr, 0, type, name, (size_t)(name_end - name), mod, mod_len);
		added++;
	}
	if (!added)
		return error_msg("%s: no symbols", path);
	if (zero == added)
		return error_msg("%s: every address is 0 (read it as root, or set kptr_restrict=0)",
				 path);
	return 0;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	/* sized before unsized, then by name for a stable result */
	if ((x->end != 0) != (y->end != 0))
		return x->end ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
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
