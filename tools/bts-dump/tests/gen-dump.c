// SPDX-License-Identifier: GPL-2.0
/*
 * gen-dump: write bts dump files for tests, fuzz seeds and benchmarks.
 *
 *   gen-dump -o OUT [header options] [--rec FROM:TO[:FLAGS]]...
 *   gen-dump -o OUT --walk N --symbols FILE [--seed S]   realistic history
 *   gen-dump -o OUT --spread N --symbols FILE [--seed S] N records between
 *                               random places of random functions: nearly
 *                               every address distinct (the worst case of
 *                               the per-address DWARF lookups)
 *   gen-dump -o OUT --records-file FILE                  "from to [flags]" lines
 *   gen-dump --synthetic-symbols FILE N                  a kallsyms-like file
 *
 * Header options set fields to any value, valid or not: --cpu --source
 * --flags --reason --fault-index --header-size --record-size --version
 * --magic --count --capacity --stext --kaslr --lost --release
 * --source-name --build-id HEX --build-id-size N --etext X; --truncate N
 * cuts the file to N bytes, --garbage N
 * appends N bytes; --shift X adds X to every kernel address (KASLR).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

struct fn {
	uint64_t addr, size;
};

static struct bts_rec *recs;
static size_t nrecs, caprecs;

static void add_rec(uint64_t from, uint64_t to, uint64_t flags)
{
	if (nrecs == caprecs) {
		caprecs = caprecs ? caprecs * 2 : 1024;
		recs = realloc(recs, caprecs * sizeof(*recs));
		if (!recs)
			abort();
	}
	recs[nrecs++] = (struct bts_rec){ from, to, flags };
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Offset of branch site @k of function @fn: fixed per (fn, k). */
static uint64_t site(size_t fn, unsigned int k)
{
	uint64_t x = (uint64_t)fn * 0x9e3779b97f4a7c15ULL + k * 0xbf58476d1ce4e5b9ULL;

	x ^= x >> 31;
	x *= 0x94d049bb133111ebULL;
	return (x ^ x >> 29) & 0xffff;
}

static int fn_cmp(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Text symbols of a kallsyms/System.map file; also returns _stext. */
static struct fn *load_fns(const char *path, size_t *n, uint64_t *stext)
{
	unsigned long long addr;
	char type, name[512];
	struct fn *f = NULL;
	size_t cap = 0;
	char line[1024];
	FILE *fp = fopen(path, "r");

	*n = 0;
	*stext = 0;
	if (!fp) {
		perror(path);
		exit(2);
	}
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%llx %c %511s", &addr, &type, name) != 3)
			continue;
		if (!strcmp(name, "_stext"))
			*stext = addr;
		if (*n == cap) {
			cap = cap ? cap * 2 : 4096;
			f = realloc(f, cap * sizeof(*f));
			if (!f)
				abort();
		}
		/* Every symbol bounds the code before it; size 1 marks code. */
		f[(*n)++] = (struct fn){ addr, type == 't' || type == 'T' };
	}
	fclose(fp);
	qsort(f, *n, sizeof(*f), fn_cmp);
	size_t k = 0;

	for (size_t i = 0; i < *n; i++) {
		size_t j = i + 1;

		if (!f[i].size)
			continue;
		while (j < *n && f[j].addr == f[i].addr)
			j++;
		f[k].addr = f[i].addr;
		f[k].size = j < *n ? f[j].addr - f[i].addr : 64;
		if (f[k].size > 65536)
			f[k].size = 65536;
		if (k && f[k - 1].addr == f[k].addr)
			continue;	/* an alias */
		k++;
	}
	*n = k;
	return f;
}

/*
 * A plausible branch history: calls into a working set of 2048 functions,
 * returns to the call sites, jumps between 8 fixed sites inside functions,
 * now and then a syscall from user space and the return to it.
 */
static void walk(size_t count, const char *symbols, uint64_t *stext)
{
	struct frame {
		size_t fn;
		uint64_t ret;
	} stack[32];
	size_t nfns, hot[2048], nhot, depth = 0, cur;
	struct fn *fns = load_fns(symbols, &nfns, stext);

	if (!nfns) {
		fprintf(stderr, "%s: no text symbols\n", symbols);
		exit(2);
	}
	nhot = nfns < 2048 ? nfns : 2048;
	for (size_t i = 0; i < nhot; i++)
		hot[i] = rnd() % nfns;
	cur = hot[0];
	for (size_t i = 0; i < count; i++) {
		unsigned int r = rnd() % 100;
		uint64_t size = fns[cur].size > 1 ? fns[cur].size : 2;
		/* Code has a few branch sites per function, not random ones. */
		uint64_t from = fns[cur].addr + site(cur, rnd() % 8) % size;
		uint64_t target = fns[cur].addr + site(cur, 8 + rnd() % 8) % size;

		if (r < 30 && depth < 32) {
			size_t callee = hot[rnd() % nhot];

			add_rec(from, fns[callee].addr, 0);
			stack[depth++] = (struct frame){ cur, from + 5 };
			cur = callee;
		} else if (r < 58 && depth > 0) {
			depth--;
			add_rec(from, stack[depth].ret, 0);
			cur = stack[depth].fn;
		} else if (r == 99) {
			uint64_t user = 0x7f0000001000ULL + rnd() % 0x100000;

			add_rec(user, fns[hot[1]].addr, 0);
			add_rec(fns[hot[1]].addr + 7, user + 2, 0);
			i++;
		} else {
			add_rec(from, target, 0);
		}
	}
	free(fns);
}

static void spread(size_t count, const char *symbols, uint64_t *stext)
{
	size_t nfns;
	struct fn *fns = load_fns(symbols, &nfns, stext);

	if (!nfns) {
		fprintf(stderr, "%s: no text symbols\n", symbols);
		exit(2);
	}
	for (size_t i = 0; i < count; i++) {
		const struct fn *a = &fns[rnd() % nfns], *b = &fns[rnd() % nfns];

		add_rec(a->addr + rnd() % (a->size > 1 ? a->size : 1),
			b->addr + rnd() % (b->size > 1 ? b->size : 1), 0);
	}
	free(fns);
}

static void synthetic_symbols(const char *path, unsigned long n)
{
	FILE *f = fopen(path, "w");
	uint64_t addr = 0xffffffff81000000ULL;

	if (!f) {
		perror(path);
		exit(2);
	}
	fprintf(f, "%016llx T _stext\n", (unsigned long long)addr);
	for (unsigned long i = 0; i < n; i++) {
		fprintf(f, "%016llx %c synthetic_function_%lu\n", (unsigned long long)addr,
			i % 3 ? 't' : 'T', i);
		addr += 16 + (rnd() % 64) * 16;
	}
	fprintf(f, "%016llx T _etext\n", (unsigned long long)addr);
	fclose(f);
}

static uint64_t num(const char *s)
{
	return strtoull(s, NULL, 0);
}

int main(int argc, char **argv)
{
	struct gen_hdr h = gen_default_hdr();
	const char *out = NULL, *symbols = NULL;
	long truncate_to = -1, garbage = 0, count = -1;
	size_t walk_count = 0, spread_count = 0, len;
	uint64_t stext = 0, shift = 0;
	bool stext_set = false;
	uint8_t *buf;
	FILE *f;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--synthetic-symbols") && v && i + 2 < argc) {
			synthetic_symbols(v, strtoul(argv[i + 2], NULL, 0));
			return 0;
		}
		if (!v) {
			fprintf(stderr, "gen-dump: %s needs a value\n", a);
			return 2;
		}
		i++;
		if (!strcmp(a, "-o")) {
			out = v;
		} else if (!strcmp(a, "--cpu")) {
			h.cpu = (uint32_t)num(v);
		} else if (!strcmp(a, "--source")) {
			h.source = (uint16_t)num(v);
			if (h.source == 2)
				memcpy(h.source_name, "sw\0\0\0\0\0\0\0\0", 10);
		} else if (!strcmp(a, "--flags")) {
			h.flags = (uint32_t)num(v);
		} else if (!strcmp(a, "--reason")) {
			h.reason = (uint32_t)num(v);
		} else if (!strcmp(a, "--fault-index")) {
			h.fault_index = (uint32_t)num(v);
		} else if (!strcmp(a, "--header-size")) {
			h.header_size = (uint16_t)num(v);
		} else if (!strcmp(a, "--record-size")) {
			h.record_size = (uint16_t)num(v);
		} else if (!strcmp(a, "--version")) {
			h.version = (uint16_t)num(v);
		} else if (!strcmp(a, "--magic")) {
			memset(h.magic, 0, 8);
			memcpy(h.magic, v, strlen(v) < 8 ? strlen(v) : 8);
		} else if (!strcmp(a, "--count")) {
			count = (long)num(v);
		} else if (!strcmp(a, "--capacity")) {
			h.capacity = (uint32_t)num(v);
		} else if (!strcmp(a, "--stext")) {
			h.stext = num(v);
			stext_set = true;
		} else if (!strcmp(a, "--kaslr")) {
			h.kaslr_offset = num(v);
		} else if (!strcmp(a, "--lost")) {
			h.lost = num(v);
		} else if (!strcmp(a, "--release")) {
			memset(h.release, 0, sizeof(h.release));
			memcpy(h.release, v, strlen(v) < 63 ? strlen(v) : 63);
		} else if (!strcmp(a, "--source-name")) {
			memset(h.source_name, 0, sizeof(h.source_name));
			memcpy(h.source_name, v, strlen(v) < 15 ? strlen(v) : 15);
		} else if (!strcmp(a, "--build-id")) {
			size_t n = strlen(v) / 2;

			memset(h.build_id, 0, sizeof(h.build_id));
			for (size_t k = 0; k < n && k < sizeof(h.build_id); k++) {
				char two[3] = { v[2 * k], v[2 * k + 1], 0 };

				h.build_id[k] = (uint8_t)strtoul(two, NULL, 16);
			}
			h.build_id_size = (uint32_t)(n < 20 ? n : 20);
		} else if (!strcmp(a, "--build-id-size")) {
			h.build_id_size = (uint32_t)num(v);
		} else if (!strcmp(a, "--etext")) {
			h.etext = num(v);
		} else if (!strcmp(a, "--truncate")) {
			truncate_to = (long)num(v);
		} else if (!strcmp(a, "--garbage")) {
			garbage = (long)num(v);
		} else if (!strcmp(a, "--rec")) {
			char *e;
			uint64_t from = strtoull(v, &e, 16), to = 0, fl = 0;

			if (*e == ':')
				to = strtoull(e + 1, &e, 16);
			if (*e == ':')
				fl = strtoull(e + 1, &e, 16);
			add_rec(from, to, fl);
		} else if (!strcmp(a, "--records-file")) {
			unsigned long long from, to, fl;
			char line[256];
			FILE *rf = fopen(v, "r");

			if (!rf) {
				perror(v);
				return 2;
			}
			while (fgets(line, sizeof(line), rf)) {
				fl = 0;
				if (sscanf(line, "%llx %llx %llx", &from, &to, &fl) >= 2)
					add_rec(from, to, fl);
			}
			fclose(rf);
		} else if (!strcmp(a, "--spread")) {
			spread_count = (size_t)num(v);
		} else if (!strcmp(a, "--walk")) {
			walk_count = (size_t)num(v);
		} else if (!strcmp(a, "--symbols")) {
			symbols = v;
		} else if (!strcmp(a, "--shift")) {
			shift = num(v);
		} else if (!strcmp(a, "--seed")) {
			rng_state = num(v) | 1;
		} else {
			fprintf(stderr, "gen-dump: unknown option %s\n", a);
			return 2;
		}
	}
	if (!out) {
		fprintf(stderr, "usage: gen-dump -o OUT [options] (see the source)\n");
		return 2;
	}
	if (spread_count) {
		if (!symbols) {
			fprintf(stderr, "gen-dump: --spread needs --symbols\n");
			return 2;
		}
		spread(spread_count, symbols, &stext);
		if (!stext_set)
			h.stext = stext;
	}
	if (walk_count) {
		if (!symbols) {
			fprintf(stderr, "gen-dump: --walk needs --symbols\n");
			return 2;
		}
		walk(walk_count, symbols, &stext);
		if (!stext_set)
			h.stext = stext;
		if (nrecs > walk_count)
			nrecs = walk_count;
	}
	/* Move kernel addresses, as KASLR does; the header's stext moves too. */
	for (size_t i = 0; shift && i < nrecs; i++) {
		if (recs[i].from >> 63)
			recs[i].from += shift;
		if (recs[i].to >> 63)
			recs[i].to += shift;
	}
	if (shift && !stext_set)
		h.stext += shift;
	if (shift && h.etext)
		h.etext += shift;
	h.count = count >= 0 ? (uint32_t)count : (uint32_t)nrecs;
	if (h.count > h.capacity && count < 0)
		h.capacity = h.count;
	gen_build(&h, recs, nrecs, &buf, &len);
	if (truncate_to >= 0 && (size_t)truncate_to < len)
		len = (size_t)truncate_to;
	f = fopen(out, "wb");
	if (!f || fwrite(buf, 1, len, f) != len) {
		perror(out);
		return 2;
	}
	for (long i = 0; i < garbage; i++)
		fputc(0x5a, f);
	if (fclose(f)) {
		perror(out);
		return 2;
	}
	free(buf);
	free(recs);
	return 0;
}
