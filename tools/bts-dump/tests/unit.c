// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of bts-dump's parts, one behaviour per case, named after it.
 * Prints "ok - name" / "not ok - name" lines; run-tests.sh numbers them
 * into TAP together with the command-line tests.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "gen.h"
#include "dump.h"
#include "loop.h"
#include "resolve.h"
#include "stack.h"
#include "symtab.h"
#include "tracedat.h"
#include "util.h"

static int failures;

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		printf("# %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
		ok = false;						\
	}								\
} while (0)

static void report(bool ok, const char *name)
{
	printf("%s - %s\n", ok ? "ok" : "not ok", name);
	if (!ok)
		failures++;
}

static const struct bts_rec three[] = {
	{ 0xffffffff81000010ULL, 0xffffffff81000100ULL, 0 },
	{ 0xffffffff81000110ULL, 0xffffffff81000020ULL, BTS_FLAG_PREDICTED },
	{ 0xffffffff81000030ULL, 0xffffffff81000200ULL, BTS_FLAG_FAULT },
};

/* Parse @h + @n records of three[]; returns parse result, error in @err. */
static int parse_hdr(const struct gen_hdr *h, size_t n, size_t cut, struct bts_dump *d,
		     char *err, size_t errlen)
{
	uint8_t *buf;
	size_t len;
	int ret;

	gen_build(h, three, n, &buf, &len);
	if (cut < len)
		len = cut;
	ret = bts_dump_parse(buf, len, d, err, errlen);
	free(buf);
	return ret;
}

static bool err_is(const char *err, const char *prefix)
{
	if (strncmp(err, prefix, strlen(prefix))) {
		printf("# error was \"%s\", expected it to start \"%s\"\n", err, prefix);
		return false;
	}
	if (strchr(err, '\n')) {
		printf("# error has a newline: \"%s\"\n", err);
		return false;
	}
	return true;
}

static void test_parse_valid(void)
{
	struct gen_hdr h = gen_default_hdr();
	struct bts_dump d;
	char err[256] = "";
	bool ok = true;

	h.cpu = 3;
	h.count = 3;
	h.flags = BTS_DUMP_WRAPPED | BTS_DUMP_CAPTURE;
	h.reason = 1;
	h.fault_index = 2;
	h.stext = 0xffffffff81000000ULL;
	CHECK(parse_hdr(&h, 3, SIZE_MAX, &d, err, sizeof(err)) == 0);
	CHECK(d.cpu == 3 && d.count == 3 && d.fault_index == 2 && d.reason == 1);
	CHECK(d.flags == (BTS_DUMP_WRAPPED | BTS_DUMP_CAPTURE));
	CHECK(d.records && d.records[1].from == three[1].from &&
	      d.records[2].flags == BTS_FLAG_FAULT);
	CHECK(!strcmp(d.source_name, "intel_bts") && !strcmp(d.release, "6.12.117-bts"));
	bts_dump_free(&d);
	report(ok, "parse: a valid dump gives its header fields and records in order");
}

static void test_parse_empty(void)
{
	struct gen_hdr h = gen_default_hdr();
	struct bts_dump d;
	char err[256] = "";
	bool ok = true;

	h.flags = BTS_DUMP_EMPTY;
	h.source = 0;
	CHECK(parse_hdr(&h, 0, SIZE_MAX, &d, err, sizeof(err)) == 0);
	CHECK(d.count == 0);
	bts_dump_free(&d);
	report(ok, "parse: a header-only dump (count 0, no source) is valid and empty");
}

static void test_parse_bigger_header(void)
{
	struct gen_hdr h = gen_default_hdr();
	struct bts_dump d;
	char err[256] = "";
	bool ok = true;

	h.header_size = 256;
	h.count = 3;
	CHECK(parse_hdr(&h, 3, SIZE_MAX, &d, err, sizeof(err)) == 0);
	CHECK(d.header_size == 256 && d.count == 3 && d.records &&
	      d.records[0].from == three[0].from && d.records[2].to == three[2].to);
	bts_dump_free(&d);
	report(ok, "parse: records start at header_size, not at 192");
}

struct bad_case {
	const char *name;
	void (*mutate)(struct gen_hdr *h, size_t *n, size_t *cut);
	const char *expect;
};

static void m_magic(struct gen_hdr *h, size_t *n, size_t *cut)
{
	(void)n;
	(void)cut;
	memcpy(h->magic, "BTSDUMX", 8);
}

static void m_short_magic(struct gen_hdr *h, size_t *n, size_t *cut)
{
	(void)h;
	(void)n;
	*cut = 5;
}

static void m_short_header(struct gen_hdr *h, size_t *n, size_t *cut)
{
	(void)h;
	(void)n;
	*cut = 100;
}

static void m_version(struct gen_hdr *h, size_t *n, size_t *cut)
{
	(void)n;
	(void)cut;
	h->version = 2;
}

static void m_header_size(struct gen_hdr *h, size_t *n, size_t *cut)
{
	(void)n;
	(void)cut;
	h->header_size = 191;
}

static void m_record_size(struct gen_hdr *h, size_t *n, size_t *cut)
{
	(void)n;
	(void)cut;
	h->record_size = 32;
}

static void m_header_past_end(struct gen_hdr *h, size_t *n, size_t *cut)
{
	h->header_size = 4096;
	*n = 0;
	h->count = 0;
	*cut = 192;
}

static void m_count_lies(struct gen_hdr *h, size_t *n, size_t *cut)
{
	(void)cut;
	*n = 2;
	h->count = 1000;
}

static void m_partial_record(struct gen_hdr *h, size_t *n, size_t *cut)
{
	(void)h;
	(void)n;
	*cut = 192 + 24 + 10;
}

static void m_garbage(struct gen_hdr *h, size_t *n, size_t *cut)
{
	(void)cut;
	h->count = 2;
	*n = 3;
}

static void m_fault_index(struct gen_hdr *h, size_t *n, size_t *cut)
{
	(void)n;
	(void)cut;
	h->fault_index = 3;
}

static void m_source(struct gen_hdr *h, size_t *n, size_t *cut)
{
	(void)n;
	(void)cut;
	h->source = 7;
}

static void m_count_huge(struct gen_hdr *h, size_t *n, size_t *cut)
{
	(void)n;
	(void)cut;
	h->count = 0xffffffffU;
}

static const struct bad_case bad_cases[] = {
	{ "parse: wrong magic is rejected at offset 0", m_magic, "offset 0: bad magic" },
	{ "parse: a 5-byte file is a truncated header at offset 5", m_short_magic,
	  "offset 5: truncated header" },
	{ "parse: a 100-byte header is truncated at offset 100", m_short_header,
	  "offset 100: truncated header" },
	{ "parse: version 2 is rejected at offset 8", m_version,
	  "offset 8: unsupported version 2" },
	{ "parse: header_size 191 is rejected at offset 10", m_header_size,
	  "offset 10: header_size 191" },
	{ "parse: record_size 32 is rejected at offset 12", m_record_size,
	  "offset 12: record_size 32" },
	{ "parse: header_size past the end of the file is a truncated header", m_header_past_end,
	  "offset 192: truncated header: 192 of 4096" },
	{ "parse: a count larger than the file is truncated after the last whole record",
	  m_count_lies, "offset 240: truncated: header says 1000 records, file holds 2" },
	{ "parse: a partial record is reported at its start", m_partial_record,
	  "offset 216: truncated: header says 3 records, file holds 1" },
	{ "parse: bytes after the last record are garbage", m_garbage,
	  "offset 240: 24 bytes of garbage" },
	{ "parse: fault_index outside the records is rejected at offset 36", m_fault_index,
	  "offset 36: fault_index 3" },
	{ "parse: an unknown source is rejected at offset 14", m_source,
	  "offset 14: unknown source 7" },
	{ "parse: count 0xffffffff does not overflow the size check", m_count_huge,
	  "offset 264: truncated: header says 4294967295" },
};

static void test_parse_bad(const struct bad_case *c)
{
	struct gen_hdr h = gen_default_hdr();
	size_t n = 3, cut = SIZE_MAX;
	struct bts_dump d;
	char err[256] = "";
	bool ok = true;

	h.count = 3;
	c->mutate(&h, &n, &cut);
	CHECK(parse_hdr(&h, n, cut, &d, err, sizeof(err)) == -1);
	CHECK(err_is(err, c->expect));
	CHECK(!d.records);
	report(ok, c->name);
}

static void test_parse_every_truncation(void)
{
	struct gen_hdr h = gen_default_hdr();
	struct bts_dump d;
	uint8_t *buf;
	size_t len;
	bool ok = true;

	h.count = 3;
	gen_build(&h, three, 3, &buf, &len);
	for (size_t cut = 0; cut < len; cut++) {
		/* An exact-size copy, so ASan sees any read past the end. */
		uint8_t *copy = xmalloc(cut);
		char err[256] = "";

		memcpy(copy, buf, cut);
		if (bts_dump_parse(copy, cut, &d, err, sizeof(err)) != -1 ||
		    !strstr(err, "offset ")) {
			printf("# cut at %zu: accepted or no offset (\"%s\")\n", cut, err);
			ok = false;
		}
		free(copy);
	}
	free(buf);
	report(ok, "parse: every truncation of a valid dump is an error with an offset");
}

static void test_parse_labels(void)
{
	struct gen_hdr h = gen_default_hdr();
	struct bts_dump d;
	char err[256] = "";
	bool ok = true;

	memset(h.source_name, 'A', sizeof(h.source_name));	/* no NUL */
	memset(h.release, '\n', sizeof(h.release));
	h.source_name[3] = '\x01';
	CHECK(parse_hdr(&h, 0, SIZE_MAX, &d, err, sizeof(err)) == 0);
	CHECK(strlen(d.source_name) == 16 && d.source_name[3] == '?');
	CHECK(strlen(d.release) == 64 && !strchr(d.release, '\n'));
	bts_dump_free(&d);
	report(ok, "parse: unterminated, unprintable source_name and release stay bounded");
}

static const char kallsyms_text[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81000100 t __pfx_do_work\n"
	"ffffffff81000110 T do_work\n"
	"ffffffff81000110 W do_work_weak_alias\n"
	"ffffffff81000200 T schedule\n"
	"ffffffff81000300 D some_data\n"
	"ffffffff81000400 T _etext\n"
	"ffffffffa0000000 t mod_func\t[mymod]\n"
	"ffffffffa0000080 t mod_func2\t[mymod]\n";

static char *write_tmp(const char *text, size_t len)
{
	char *path = xstrdup("/tmp/bts-dump-unit.XXXXXX");
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		abort();
	close(fd);
	return path;
}

static bool load_syms(struct symtab *st, const char *text)
{
	char *path = write_tmp(text, strlen(text));
	int ret;

	symtab_init(st);
	ret = symtab_load_kallsyms(st, path);
	unlink(path);
	free(path);
	if (ret)
		return false;
	symtab_finish(st);
	return true;
}

static bool sym_is(const struct symtab *st, uint64_t addr, const char *name)
{
	const struct sym *s = symtab_lookup(st, addr);
	const char *got = s ? sym_name(st, s) : "(none)";

	if (strcmp(got, name ? name : "(none)")) {
		printf("# 0x%llx: got %s, want %s\n", (unsigned long long)addr, got,
		       name ? name : "(none)");
		return false;
	}
	return true;
}

static void test_symtab_lookup(void)
{
	struct symtab st;
	bool ok = true;

	CHECK(load_syms(&st, kallsyms_text));
	CHECK(sym_is(&st, 0xffffffff81000000ULL, "startup_64"));
	CHECK(sym_is(&st, 0xffffffff81000110ULL, "do_work"));
	CHECK(sym_is(&st, 0xffffffff81000150ULL, "do_work"));
	CHECK(sym_is(&st, 0xffffffff81000108ULL, "__pfx_do_work"));
	CHECK(sym_is(&st, 0xffffffff810001ffULL, "do_work"));
	CHECK(sym_is(&st, 0xffffffff81000200ULL, "schedule"));
	CHECK(sym_is(&st, 0xffffffff810002ffULL, "schedule"));
	CHECK(sym_is(&st, 0xffffffff81000300ULL, NULL));	/* data, not code */
	CHECK(sym_is(&st, 0xffffffff80ffffffULL, NULL));
	CHECK(sym_is(&st, 0x00007f0000001000ULL, NULL));
	CHECK(st.stext == 0xffffffff81000000ULL);
	symtab_free(&st);
	report(ok, "symtab: lookups hit starts, insides and ends; data and gaps are unknown; "
	       "a global name beats a weak alias and __pfx_ padding");
}

static void test_symtab_modules(void)
{
	struct symtab st;
	const struct sym *s;
	bool ok = true;

	CHECK(load_syms(&st, kallsyms_text));
	s = symtab_lookup(&st, 0xffffffffa0000010ULL);
	CHECK(s && !strcmp(sym_name(&st, s), "mod_func"));
	CHECK(s && s->module && !strcmp(st.pool + s->module, "[mymod]"));
	symtab_free(&st);
	report(ok, "symtab: module symbols from kallsyms carry their module");
}

static void test_symtab_zero(void)
{
	const char *text = "0000000000000000 T _stext\n0000000000000000 t foo\n";
	char *path = write_tmp(text, strlen(text));
	struct symtab st;
	bool ok = true;

	symtab_init(&st);
	CHECK(symtab_load_kallsyms(&st, path) == -1);
	symtab_free(&st);
	unlink(path);
	free(path);
	report(ok, "symtab: a kallsyms read without privilege (all zero) is refused");
}

static void test_symtab_garbage(void)
{
	char text[2048] = "";
	char *path;
	struct symtab st;
	bool ok = true;

	/* A file of another kind: many lines, none a symbol. */
	for (int i = 0; i < 40; i++)
		strcat(text, "this is not kallsyms\n");
	path = write_tmp(text, strlen(text));
	symtab_init(&st);
	messages_off = true;
	CHECK(symtab_load_kallsyms(&st, path) == -1);
	messages_off = false;
	symtab_free(&st);
	unlink(path);
	free(path);
	report(ok, "symtab: a file of lines that are not kallsyms is an error");
}

static void test_symtab_one_bad_line(void)
{
	const char *text = "ffffffff81000000 T _stext\nthis is not kallsyms\n"
			   "ffffffff81000100 T after_the_bad_line\n";
	char *path = write_tmp(text, strlen(text));
	struct symtab st;
	bool ok = true;

	symtab_init(&st);
	messages_off = true;
	CHECK(symtab_load_kallsyms(&st, path) == 0);
	messages_off = false;
	symtab_finish(&st);
	CHECK(st.n == 2);
	CHECK(sym_is(&st, 0xffffffff81000100ULL, "after_the_bad_line"));
	symtab_free(&st);
	unlink(path);
	free(path);
	report(ok, "symtab: one bad line is skipped; the symbols around it stay");
}

/* The bucket index must agree with a brute-force scan everywhere. */
static void test_symtab_index(void)
{
	struct out text;
	struct symtab st;
	uint64_t addr = 0xffffffff81000000ULL, x = 12345;
	bool ok = true;

	out_init(&text, -1, 1 << 16);
	for (int i = 0; i < 5000; i++) {
		out_hex16(&text, addr);
		out_fmt(&text, " t f%d\n", i);
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		addr += 1 + (x >> 60) * 64 + ((x >> 50) & 1 ? 40000 : 0);
	}
	out_char(&text, '\0');
	CHECK(load_syms(&st, text.buf));
	free(text.buf);
	for (int i = 0; i < 200000 && ok; i++) {
		const struct sym *want = NULL;
		uint64_t a;

		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		a = 0xffffffff81000000ULL - 100 + (x >> 20) % (addr - 0xffffffff81000000ULL + 200);
		for (size_t j = 0; j < st.n; j++)
			if (a >= st.syms[j].addr && a < st.syms[j].end)
				want = &st.syms[j];
		if (i > 2000)	/* brute force is slow: then sample */
			i += 50;
		if (symtab_lookup(&st, a) != want) {
			printf("# 0x%llx: index and scan disagree\n", (unsigned long long)a);
			ok = false;
		}
	}
	symtab_free(&st);
	report(ok, "symtab: the bucket index agrees with a linear scan");
}

static void test_kaslr_bias(void)
{
	const char *text = "ffffffff81000000 T _stext\nffffffff81000100 T target_fn\n"
			   "ffffffff81000200 T _etext\n";
	char *path = write_tmp(text, strlen(text));
	struct bts_dump d = { 0 };
	struct resolver r;
	const struct sym *s;
	bool ok = true;

	resolver_init(&r);
	CHECK(resolver_add_symbols(&r, path) == 0);
	resolver_ready(&r);
	d.kaslr_offset = 0x2a00000;
	d.stext = 0xffffffff81000000ULL + d.kaslr_offset;
	resolver_set_dump(&r, &d);
	s = resolve_sym(&r, 0xffffffff81000104ULL + d.kaslr_offset);
	CHECK(s && !strcmp(sym_name(&r.st, s), "target_fn") &&
	      sym_offset(&r, s, 0xffffffff81000104ULL + d.kaslr_offset) == 4);
	CHECK(!resolve_sym(&r, 0xffffffff81000104ULL));
	resolver_free(&r);
	unlink(path);
	free(path);
	report(ok, "resolve: a System.map resolves runtime addresses under KASLR");
}

/*
 * --hist --top N looks up every hot target after the walk, without the
 * between-records step that grows the address table: with more distinct
 * targets than the table has room for, lookups must still end.
 */
static void test_resolve_never_fills_the_table(void)
{
	const char *text = "ffffffff81000000 T _stext\nffffffff81000100 T big_fn\n"
			   "ffffffff81100000 T _etext\n";
	char *path = write_tmp(text, strlen(text));
	struct bts_dump d = { 0 };
	struct resolver r;
	size_t named = 0;
	bool ok = true;

	resolver_init(&r);
	CHECK(resolver_add_symbols(&r, path) == 0);
	resolver_ready(&r);
	resolver_set_dump(&r, &d);
	alarm(60);	/* a lookup that never ends fails the run, not hangs it */
	for (uint64_t a = 0xffffffff81000100ULL; a < 0xffffffff81000100ULL + 20000; a++)
		named += !!resolve_sym(&r, a);
	alarm(0);
	CHECK(named == 20000);
	resolver_free(&r);
	unlink(path);
	free(path);
	report(ok, "resolve: 20000 lookups without a between-records step end and stay right");
}

/* A trace.dat opened and read by someone else first: read from its start. */
static void test_tracedat_any_offset(void)
{
	const char *path = "tests/fuzz/tracedat/seed-two-histories.dat";
	struct dump_list list = { 0 };
	struct stat sb;
	bool ok = true;
	int fd = open_input(path, &sb);

	CHECK(fd >= 0);
	if (fd >= 0) {
		CHECK(lseek(fd, 0, SEEK_END) > 0);
		CHECK(tracedat_load(path, fd, &list, NULL) == 0);
		close(fd);
	}
	CHECK(list.n == 2);
	for (size_t i = 0; i < list.n; i++)
		bts_dump_free(&list.d[i]);
	free(list.d);
	report(ok, "tracedat: a descriptor left at the end of the file is read from its start");
}

static void test_stack_calls_returns(void)
{
	struct callstack cs = { .n = 0 };
	bool ok = true;
	int d[6];

	d[0] = stack_depth(&cs);
	stack_apply(&cs, KIND_CALL, 1, 2);	/* a -> b */
	d[1] = stack_depth(&cs);
	stack_apply(&cs, KIND_CALL, 2, 3);	/* b -> c */
	d[2] = stack_depth(&cs);
	stack_apply(&cs, KIND_RET, 3, 2);	/* c returns to b */
	d[3] = stack_depth(&cs);
	stack_apply(&cs, KIND_JCC, 2, 2);
	d[4] = stack_depth(&cs);
	stack_apply(&cs, KIND_RET, 2, 1);
	d[5] = stack_depth(&cs);
	CHECK(d[0] == 0 && d[1] == 1 && d[2] == 2 && d[3] == 1 && d[4] == 1 && d[5] == 0);
	CHECK(cs.n == 1 && cs.fn[0] == 1);
	report(ok, "stack: calls deepen, returns unwind to their target's function");
}

static void test_stack_call_edges(void)
{
	struct callstack cs = { .n = 0 };
	bool ok = true;

	/* Software source: only call edges; a -> b, b -> c, a -> d. */
	stack_apply(&cs, KIND_CALL, 1, 2);
	stack_apply(&cs, KIND_CALL, 2, 3);
	stack_apply(&cs, KIND_CALL, 1, 4);
	CHECK(cs.n == 2 && cs.fn[0] == 1 && cs.fn[1] == 4);
	for (int i = 0; i < 1000; i++)
		stack_apply(&cs, KIND_CALL, (uint64_t)i + 10, (uint64_t)i + 11);
	CHECK(cs.n <= STACK_MAX);
	report(ok, "stack: call edges alone rebuild stacks and depth stays bounded");
}

/* A dump of @n records whose from is alphabet[@seq[i]] (to = from + 1). */
static void loop_dump(struct bts_dump *d, struct bts_rec *recs, const unsigned int *seq,
		      uint32_t n)
{
	memset(d, 0, sizeof(*d));
	for (uint32_t i = 0; i < n; i++)
		recs[i] = (struct bts_rec){ 0xffffffff81000000ULL + seq[i] * 16,
					    0xffffffff81000001ULL + seq[i] * 16, 0 };
	d->records = recs;
	d->count = n;
	d->fault_index = BTS_NO_FAULT;
}

static bool rec_eq(const struct bts_dump *d, uint32_t a, uint32_t b)
{
	return d->records[a].from == d->records[b].from && d->records[a].to == d->records[b].to;
}

/* Records [@i, @e) from @i on repeat every @k for how many records (at least @k). */
static uint32_t span_of(const struct bts_dump *d, uint32_t i, uint32_t e, uint32_t k)
{
	uint32_t r = i;

	while (r + k < e && rec_eq(d, r, r + k))
		r++;
	return r - i + k;
}

/* Whether some cycle starting at @i, within [@i, @e), is one loop_find() must fold. */
static bool foldable_at(const struct bts_dump *d, uint32_t i, uint32_t e)
{
	for (uint32_t k = 1; k <= LOOP_MAX_LEN && i + k < e; k++) {
		uint32_t span;

		if (!rec_eq(d, i, i + k))
			continue;
		span = span_of(d, i, e, k);
		if (span / k >= LOOP_MIN_REPEATS && span >= k + 3)
			return true;
	}
	return false;
}

static void test_loop_random(void)
{
	static struct bts_rec recs[600];
	static unsigned int seq[600];
	uint64_t x = 0x2545f4914f6cdd1dULL;
	bool ok = true;
	int folded = 0;

	/* Short cycles and noise of a small alphabet: loops of every shape. */
	for (int round = 0; round < 200 && ok; round++) {
		struct loop_fold *f;
		struct bts_dump d;
		uint32_t n = 0, next = 0;
		size_t nf;

		while (n < 600) {
			uint32_t k, reps;
			unsigned int base;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			k = 1 + (uint32_t)(x % (round % 3 ? 5 : 40));
			reps = (uint32_t)(x >> 20) % 6;
			base = (unsigned int)(x >> 32) % 4;
			for (uint32_t t = 0; t < k * reps + (uint32_t)(x >> 40) % k && n < 600; t++)
				seq[n++] = base + (t % k) * (round % 2 ? 1 : 3);
		}
		loop_dump(&d, recs, seq, n);
		nf = loop_find(&d, 0, n, NULL, BTS_NO_FAULT, &f);
		folded += nf > 0;
		for (size_t j = 0; j < nf && ok; j++) {
			const struct loop_fold *l = &f[j];

			/* what a fold says is true of the records */
			CHECK(l->start >= next && l->end <= n);
			CHECK(l->len >= 1 && l->len <= LOOP_MAX_LEN);
			CHECK(l->end - l->start == l->len * l->repeats + l->partial);
			CHECK(l->repeats >= LOOP_MIN_REPEATS && l->partial < l->len);
			CHECK(span_of(&d, l->start, l->end, l->len) == l->end - l->start);
			/* the shortest cycle */
			for (uint32_t p = 1; p < l->len; p++)
				CHECK(span_of(&d, l->start, l->end, p) < l->end - l->start);
			/* what went before it could not be folded */
			for (uint32_t i = next; i < l->start; i++)
				CHECK(!foldable_at(&d, i, n));
			next = l->end;
		}
		for (uint32_t i = next; i < n && ok; i++)
			CHECK(!foldable_at(&d, i, n));
		free(f);
	}
	CHECK(folded > 150);
	report(ok, "loop: each fold is a shortest cycle run 3 times or more, none left out");
}

static void test_loop_limits(void)
{
	static struct bts_rec recs[3 * (LOOP_MAX_LEN + 1)];
	static unsigned int seq[3 * (LOOP_MAX_LEN + 1)];
	struct loop_fold *f;
	struct bts_dump d;
	bool ok = true;

	/* The longest cycle, 3 times, folds; one record longer does not. */
	for (uint32_t i = 0; i < 3 * LOOP_MAX_LEN; i++)
		seq[i] = i % LOOP_MAX_LEN;
	loop_dump(&d, recs, seq, 3 * LOOP_MAX_LEN);
	CHECK(loop_find(&d, 0, d.count, NULL, BTS_NO_FAULT, &f) == 1 && f[0].len == LOOP_MAX_LEN &&
	      f[0].repeats == 3);
	free(f);
	for (uint32_t i = 0; i < 3 * (LOOP_MAX_LEN + 1); i++)
		seq[i] = i % (LOOP_MAX_LEN + 1);
	loop_dump(&d, recs, seq, 3 * (LOOP_MAX_LEN + 1));
	CHECK(loop_find(&d, 0, d.count, NULL, BTS_NO_FAULT, &f) == 0 && !f);
	/* One branch: 3 times is no shorter folded; 4 times is. */
	memset(seq, 0, sizeof(seq));
	loop_dump(&d, recs, seq, 3);
	CHECK(loop_find(&d, 0, d.count, NULL, BTS_NO_FAULT, &f) == 0);
	loop_dump(&d, recs, seq, 4);
	CHECK(loop_find(&d, 0, d.count, NULL, BTS_NO_FAULT, &f) == 1 && f[0].len == 1 &&
	      f[0].repeats == 4);
	free(f);
	report(ok, "loop: cycles of up to LOOP_MAX_LEN records fold; one branch from 4 times on");
}

static void test_loop_barriers(void)
{
	static struct bts_rec recs[60];
	static unsigned int seq[60];
	struct bts_gap_mark gap = { .index = 30 };
	struct loop_fold *f;
	struct bts_dump d;
	uint8_t show[60];
	bool ok = true;
	size_t n;

	for (uint32_t i = 0; i < 60; i++)
		seq[i] = i % 3;
	/* The fault record: before it and after it, not across it. */
	loop_dump(&d, recs, seq, 60);
	d.fault_index = 31;
	n = loop_find(&d, 0, 60, NULL, d.fault_index, &f);
	CHECK(n == 2 && f[0].start == 0 && f[0].end == 31 && f[1].start == 32 && f[1].end == 60);
	free(f);
	/* A record flagged as the fault, whatever the header says. */
	d.fault_index = BTS_NO_FAULT;
	recs[31].flags |= BTS_FLAG_FAULT;
	n = loop_find(&d, 0, 60, NULL, BTS_NO_FAULT, &f);
	CHECK(n == 2 && f[0].end == 31 && f[1].start == 32);
	free(f);
	recs[31].flags = 0;
	/* A stream's loss before record 30. */
	d.gaps = &gap;
	d.ngaps = 1;
	n = loop_find(&d, 0, 60, NULL, BTS_NO_FAULT, &f);
	CHECK(n == 2 && f[0].start == 0 && f[0].end == 30 && f[1].start == 30 && f[1].end == 60);
	free(f);
	d.gaps = NULL;
	d.ngaps = 0;
	/* A record --around leaves out, and the window's edges. */
	memset(show, 1, sizeof(show));
	show[20] = 0;
	n = loop_find(&d, 5, 50, show, BTS_NO_FAULT, &f);
	CHECK(n == 2 && f[0].start == 5 && f[0].end == 20 && f[1].start == 21 && f[1].end == 50);
	free(f);
	/* The cleared user half of a record is not the address 0. */
	for (uint32_t i = 0; i < 12; i++)
		recs[i] = (struct bts_rec){ 0, 0xffffffff81000100ULL,
					    i % 2 ? BTS_FLAG_USER_CLEARED : 0 };
	n = loop_find(&d, 0, 12, NULL, BTS_NO_FAULT, &f);
	CHECK(n == 1 && f[0].len == 2 && f[0].repeats == 6);
	free(f);
	report(ok, "loop: no fold spans the fault, a stream's loss or a record left out");
}

static void test_out_format(void)
{
	struct out o;
	bool ok = true;

	out_init(&o, -1, 4);
	out_hex(&o, 0);
	out_char(&o, ' ');
	out_hex(&o, 0xffffffff81000abcULL);
	out_char(&o, ' ');
	out_hex16(&o, 0x1234);
	out_char(&o, ' ');
	out_udec_w(&o, 42, 5);
	out_char(&o, ' ');
	out_udec(&o, 18446744073709551615ULL);
	out_char(&o, ' ');
	out_json_str(&o, "a\"b\\\n\x7f", 6);
	out_char(&o, '\0');
	CHECK(!strcmp(o.buf, "0 ffffffff81000abc 0000000000001234    42 18446744073709551615 "
		      "\"a\\\"b\\\\\\u000a\\u007f\""));
	if (!ok)
		printf("# got: %s\n", o.buf);
	free(o.buf);
	report(ok, "out: hex, decimal and JSON strings format exactly");
}

static void test_u64map(void)
{
	struct u64map m;
	bool ok = true;

	u64map_init(&m, 4);
	for (uint64_t i = 0; i < 10000; i++)
		*u64map_get(&m, i * 0x1000, 0) += i;
	*u64map_get(&m, U64MAP_EMPTY, 7) += 1;
	CHECK(m.n == 10000);
	CHECK(*u64map_find(&m, 0x1000 * 9999) == 9999);
	CHECK(!u64map_find(&m, 0x1001));
	CHECK(u64map_find(&m, U64MAP_EMPTY) && *u64map_find(&m, U64MAP_EMPTY) == 8);
	u64map_free(&m);
	report(ok, "u64map: inserts, finds, grows, and keeps the all-ones key");
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_parse_valid();
	test_parse_empty();
	test_parse_bigger_header();
	for (size_t i = 0; i < ARRAY_SIZE(bad_cases); i++)
		test_parse_bad(&bad_cases[i]);
	test_parse_every_truncation();
	test_parse_labels();
	test_symtab_lookup();
	test_symtab_modules();
	test_symtab_zero();
	test_symtab_garbage();
	test_symtab_one_bad_line();
	test_symtab_index();
	test_kaslr_bias();
	test_resolve_never_fills_the_table();
	test_tracedat_any_offset();
	test_stack_calls_returns();
	test_stack_call_edges();
	test_loop_random();
	test_loop_limits();
	test_loop_barriers();
	test_out_format();
	test_u64map();
	return failures ? 1 : 0;
}
