// SPDX-License-Identifier: GPL-2.0
/*
 * crash extension: the bts command, the kept branch history of a kdump
 * crash dump, in crash.
 *
 *   crash> extend .../bts.so
 *   crash> bts [-c CPU] [-r] [-j]
 *
 * prints the fault capture the crashed kernel kept: the reason, the
 * faulting CPU and each captured CPU's history, oldest branch first,
 * symbolized through crash's own symbol table (KASLR included), the fault
 * record marked "<== FAULT": the same text as tools/bts-dump/drgn/bts.py,
 * and the same header lines as bts-dump. -c one CPU, -r raw addresses,
 * -j JSON lines with bts-dump's keys.
 *
 * It reads only what the crash path published for crash tools: VMCOREINFO's
 * "BTS_TABLE=<physical address>" and the table and slots there, laid out as
 * include/uapi/linux/bts.h says; every field is checked as bts-dump
 * --vmcore checks it, and a table that is missing, never filled or damaged
 * is one line saying why. It reads the dump and writes nothing.
 *
 * Built against Debian's crash 8.0.2 (crash package: /usr/include/crash/
 * defs.h): make -C tools/bts-dump crash-extension.
 */
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "defs.h"

#define TABLE_MAGIC	"BTSCORE"	/* and a NUL */
#define DUMP_MAGIC	"BTSDUMP"
#define TABLE_SIZE	48
#define SLOT_SIZE	336
#define HEADER_SIZE	192
#define RECORD_SIZE	24
#define VMCORE_PAGES	17
#define MAX_SLOTS	8192
#define MAX_RECORDS	(1u << 20)
#define NO_FAULT	0xffffffffu
#define LIVE_MAGIC	"BTSLIVE"
#define LIVE_TABLE_SIZE	32
#define LIVE_SLOT_SIZE	64
#define LIVE_COUNT	1
#define LIVE_CIRCULAR	2
#define LIVE_STREAM	3
#define LIVE_CLEAR_USER	1u
#define LIVE_TRIES	5

#define FLAG_USER_CLEARED	(1ULL << 61)
#define FLAG_FAULT		(1ULL << 62)
#define FLAG_SW			(1ULL << 63)
#define DUMP_WRAPPED	1u
#define DUMP_CAPTURE	2u
#define DUMP_USER	4u
#define DUMP_EMPTY	8u

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const char *const reasons[] = { "dump", "oops", "BUG", "panic", "GPF", "WARN" };
#define NR_REASONS	((unsigned int)ARRAY_SIZE(reasons))

struct rec {
	uint64_t from, to, flags;
};

struct history {
	uint32_t cpu, count, capacity, flags, reason, fault_index, live;
	uint64_t timestamp_ns, stext, kaslr, lost;
	char source[17], release[65], build_id[41];
	struct rec *recs;
};

static uint16_t le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)le16(p) | (uint32_t)le16(p + 2) << 16;
}

static uint64_t le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* One line, to crash's output, and the command's failure. */
static char why[512];

static int fail(const char *msg)
{
	snprintf(why, sizeof(why), "%s", msg);
	return -1;
}

/* "@what 0x@table: " and the rest as @fmt says in @why; -1. */
static int __attribute__((format(printf, 3, 4)))
table_fail(const char *what, uint64_t table, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(why, sizeof(why), "%s 0x%llx: ", what, (unsigned long long)table);
	va_start(ap, fmt);
	vsnprintf(why + n, sizeof(why) - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

/* @len bytes at @addr, a PHYSADDR or a KVADDR; 0, or -1 with @why set. */
static int read_mem(uint64_t addr, int type, void *buf, long len, const char *what)
{
	if (readmem(addr, type, buf, len, (char *)what, RETURN_ON_ERROR | QUIET))
		return 0;
	if (type == PHYSADDR)
		snprintf(why, sizeof(why), "%s: physical 0x%llx, %ld bytes: not in the dump", what,
			 (unsigned long long)addr, len);
	else
		snprintf(why, sizeof(why), "%s: 0x%llx, %ld bytes: cannot be read", what,
			 (unsigned long long)addr, len);
	return -1;
}

static int read_phys(uint64_t addr, void *buf, long len, const char *what)
{
	return read_mem(addr, PHYSADDR, buf, len, what);
}

static int read_virt(uint64_t addr, void *buf, long len, const char *what)
{
	return read_mem(addr, KVADDR, buf, len, what);
}

/* A VMCOREINFO value (malloc'ed by crash), or NULL. */
static char *info(const char *key)
{
	return pc->read_vmcoreinfo ? pc->read_vmcoreinfo(key) : NULL;
}

static void copy_str(char *dst, size_t size, const unsigned char *src, size_t n)
{
	size_t i;

	for (i = 0; i < n && i + 1 < size && src[i]; i++)
		dst[i] = (char)src[i];
	dst[i] = '\0';
}

/* A slot's dump header, checked as bts-dump's dump.c checks a file's. */
static int read_header(const unsigned char *b, const char *what, struct history *h)
{
	uint32_t build_id_size;

	memset(h, 0, sizeof(*h));
	if (memcmp(b, DUMP_MAGIC, 8))
		return snprintf(why, sizeof(why), "%s: header offset 0: bad magic", what), -1;
	if (le16(b + 8) != 1)
		return snprintf(why, sizeof(why), "%s: header offset 8: version %u, this reader knows 1",
				what, le16(b + 8)), -1;
	if (le16(b + 10) != HEADER_SIZE || le16(b + 12) != RECORD_SIZE)
		return snprintf(why, sizeof(why), "%s: header offset 10: header_size %u, record_size %u (want %d, %d)",
				what, le16(b + 10), le16(b + 12), HEADER_SIZE, RECORD_SIZE), -1;
	if (le16(b + 14) != 1 && le16(b + 14) != 2)
		return snprintf(why, sizeof(why), "%s: header offset 14: source %u is none of [1, 2]",
				what, le16(b + 14)), -1;
	h->cpu = le32(b + 16);
	h->count = le32(b + 20);
	h->capacity = le32(b + 24);
	h->flags = le32(b + 28);
	h->reason = le32(b + 32);
	h->fault_index = le32(b + 36);
	h->timestamp_ns = le64(b + 40);
	h->stext = le64(b + 48);
	h->kaslr = le64(b + 56);
	h->lost = le64(b + 64);
	copy_str(h->source, sizeof(h->source), b + 72, 16);
	if (!h->source[0])
		snprintf(h->source, sizeof(h->source), "%s",
			 le16(b + 14) == 1 ? "intel_bts" : "sw");
	copy_str(h->release, sizeof(h->release), b + 88, 64);
	build_id_size = le32(b + 172);
	if (h->count > h->capacity || h->capacity > MAX_RECORDS)
		return snprintf(why, sizeof(why), "%s: header offset 20: count %u, capacity %u",
				what, h->count, h->capacity), -1;
	if (h->reason >= NR_REASONS)
		return snprintf(why, sizeof(why), "%s: header offset 32: reason %u",
				what, h->reason), -1;
	if (h->fault_index != NO_FAULT && h->fault_index >= h->count)
		return snprintf(why, sizeof(why), "%s: header offset 36: fault_index %u, but %u records",
				what, h->fault_index, h->count), -1;
	if (build_id_size > 20)
		return snprintf(why, sizeof(why), "%s: header offset 172: build_id_size %u",
				what, build_id_size), -1;
	for (uint32_t i = 0; i < build_id_size; i++)
		sprintf(h->build_id + 2 * i, "%02x", b[152 + i]);
	return 0;
}

/* Slot @i at physical @at: its history, or -1 with @why set. */
static int read_slot(uint64_t at, uint32_t i, uint32_t page_size, struct history *h)
{
	unsigned char s[SLOT_SIZE];
	char what[32];
	uint32_t recs_offset, nr_pages;
	size_t need, got = 0;
	unsigned char *raw;

	snprintf(what, sizeof(what), "slot %u", i);
	if (read_phys(at, s, sizeof(s), what) || read_header(s, what, h))
		return -1;
	recs_offset = le32(s + HEADER_SIZE);
	nr_pages = le32(s + HEADER_SIZE + 4);
	need = (size_t)h->count * RECORD_SIZE;
	if (recs_offset >= page_size)
		return snprintf(why, sizeof(why), "%s: offset 192: recs_offset %u is not inside a page of %u bytes",
				what, recs_offset, page_size), -1;
	if (nr_pages > VMCORE_PAGES || recs_offset + need > (size_t)nr_pages * page_size)
		return snprintf(why, sizeof(why), "%s: offset 196: %u pages from recs_offset %u for %u records",
				what, nr_pages, recs_offset, h->count), -1;
	raw = (unsigned char *)GETBUF(need ? need : 1);
	for (uint32_t p = 0, off = recs_offset; p < nr_pages && got < need; p++, off = 0) {
		size_t n = page_size - off < need - got ? page_size - off : need - got;
		uint64_t pfn = le64(s + HEADER_SIZE + 8 + 8 * p);
		char rwhat[64];

		snprintf(rwhat, sizeof(rwhat), "%s (cpu %u): records", what, h->cpu);
		if (read_phys(pfn * page_size + off, raw + got, (long)n, rwhat)) {
			FREEBUF(raw);
			return -1;
		}
		got += n;
	}
	h->recs = (struct rec *)GETBUF(need ? need : 1);
	for (uint32_t k = 0; k < h->count; k++) {
		h->recs[k].from = le64(raw + k * RECORD_SIZE);
		h->recs[k].to = le64(raw + k * RECORD_SIZE + 8);
		h->recs[k].flags = le64(raw + k * RECORD_SIZE + 16);
	}
	FREEBUF(raw);
	return 0;
}

/* The slot against the crash's own VMCOREINFO: -1 if the table is not this crash's. */
static int cross_check(uint32_t i, const struct history *h)
{
	char *v;
	int bad = 0;

	v = info("KERNELOFFSET");
	if (v) {
		if (strtoull(v, NULL, 16) != h->kaslr)
			bad = snprintf(why, sizeof(why), "slot %u (cpu %u): kaslr_offset 0x%llx, but VMCOREINFO has KERNELOFFSET=%s: the bts table is not this crash's",
				       i, h->cpu, (unsigned long long)h->kaslr, v);
		free(v);
	}
	v = bad ? NULL : info("OSRELEASE");
	if (v) {
		if (h->release[0] && strcmp(v, h->release))
			bad = snprintf(why, sizeof(why), "slot %u (cpu %u): release \"%s\", but VMCOREINFO has OSRELEASE=%s: the bts table is not this crash's",
				       i, h->cpu, h->release, v);
		free(v);
	}
	v = bad ? NULL : info("BUILD-ID");
	if (v) {
		size_t n = strlen(v), m = strlen(h->build_id);

		if (m && (n > m || strncasecmp(v, h->build_id, n) ||
			  strspn(h->build_id + n, "0") != m - n))
			bad = snprintf(why, sizeof(why), "slot %u (cpu %u): build ID %s, but VMCOREINFO has BUILD-ID=%s: the bts table is not this crash's",
				       i, h->cpu, h->build_id, v);
		free(v);
	}
	return bad ? -1 : 0;
}

struct capture {
	uint32_t reason, nr_slots, n;
	int32_t fault_cpu;
	struct history h[MAX_SLOTS];
};

/* Read the capture; 0, or -1 with @why set. Slot errors are printed as they come. */
static int capture_read(struct capture *c, int *slot_errors)
{
	unsigned char t[TABLE_SIZE];
	uint32_t tversion, table_size, slot_size, nr_written, page_size;
	const char *what = "bts table at physical";
	uint64_t table;
	char *v = info("BTS_TABLE"), *end;

	*slot_errors = 0;
	if (!v)
		return fail("no bts table in VMCOREINFO (bts not built in, or no crash kernel reservation at boot)");
	table = strtoull(v, &end, 16);
	if (!*v || *end) {
		free(v);
		return fail("VMCOREINFO: BTS_TABLE is not hex");
	}
	free(v);
	if (read_phys(table, t, sizeof(t), "the bts table (VMCOREINFO BTS_TABLE)"))
		return -1;
	if (memcmp(t, TABLE_MAGIC, 8))
		return fail("bts table never filled: the crash path did not reach bts");
	tversion = le32(t + 8);
	table_size = le32(t + 12);
	slot_size = le32(t + 16);
	c->nr_slots = le32(t + 20);
	nr_written = le32(t + 24);
	page_size = le32(t + 28);
	c->reason = le32(t + 32);
	c->fault_cpu = (int32_t)le32(t + 36);
	if (tversion != 1)
		return table_fail(what, table, "offset 8: version %u, this reader knows 1",
				  tversion);
	if (table_size < TABLE_SIZE || table_size > 4096)
		return table_fail(what, table, "offset 12: table_size %u (%d to 4096)",
				  table_size, TABLE_SIZE);
	if (slot_size < SLOT_SIZE || slot_size > 4096)
		return table_fail(what, table, "offset 16: slot_size %u (%d to 4096)",
				  slot_size, SLOT_SIZE);
	if (c->nr_slots > MAX_SLOTS)
		return table_fail(what, table, "offset 20: nr_slots %u is more than %d CPUs",
				  c->nr_slots, MAX_SLOTS);
	if (nr_written > c->nr_slots)
		return table_fail(what, table, "offset 24: nr_written %u is more than the %u slots",
				  nr_written, c->nr_slots);
	if (page_size < 4096 || page_size > 65536 || (page_size & (page_size - 1)))
		return table_fail(what, table, "offset 28: page_size %u is not a power of two from 4096 to 65536",
				  page_size);
	v = info("PAGESIZE");
	if (v) {
		int differ = strtoul(v, NULL, 10) != page_size;

		if (differ)
			snprintf(why, sizeof(why), "bts table at physical 0x%llx: offset 28: page_size %u, but VMCOREINFO has PAGESIZE=%s",
				 (unsigned long long)table, page_size, v);
		free(v);
		if (differ)
			return -1;
	}
	if (c->reason >= NR_REASONS)
		return table_fail(what, table, "offset 32: reason %u", c->reason);
	if (!nr_written) {
		snprintf(why, sizeof(why), "no capture was kept: the crash path reached bts, but none of the %u slots of the bts table at physical 0x%llx is written (nothing captured since it was cleared?)",
			 c->nr_slots, (unsigned long long)table);
		return -1;
	}
	c->n = 0;
	for (uint32_t i = 0; i < nr_written; i++) {
		struct history *h = &c->h[c->n];

		if (read_slot(table + table_size + (uint64_t)i * slot_size, i, page_size, h)) {
			fprintf(fp, "bts: %s\n", why);
			(*slot_errors)++;
			continue;
		}
		if (cross_check(i, h))
			return -1;
		c->n++;
	}
	return 0;
}

/*
 * One CPU's live slot @s (LIVE_SLOT_SIZE bytes): its history in @h, 0 when
 * no source records there (h->count and h->capacity 0), -1 with @why set.
 * Read as include/uapi/linux/bts.h says (struct bts_live_slot).
 */
static int live_history(const unsigned char *s, uint32_t cpu, struct history *h)
{
	uint32_t source = le16(s + 4), kind = le16(s + 6), nr = le32(s + 8), flags = le32(s + 12);
	uint64_t recs = le64(s + 16), head = le64(s + 24), head_base = le64(s + 32);
	uint64_t tail = le64(s + 40), drained = le64(s + 48), pos = 0, end = 0, val, first;
	unsigned char *raw, b4[4], b8[8], b1;
	char what[48];
	uint32_t n = 0;
	int wrapped = 0;

	memset(h, 0, sizeof(*h));
	h->cpu = cpu;
	h->fault_index = NO_FAULT;
	h->live = 1;
	if (!source)
		return 0;
	snprintf(what, sizeof(what), "live slot of cpu %u", cpu);
	if (source != 1 && source != 2)
		return snprintf(why, sizeof(why), "%s: offset 4: source %u is none of [1, 2]",
				what, source), -1;
	if (kind < LIVE_COUNT || kind > LIVE_STREAM)
		return snprintf(why, sizeof(why), "%s: offset 6: kind %u is none of 1, 2, 3",
				what, kind), -1;
	if (!nr || nr > MAX_RECORDS)
		return snprintf(why, sizeof(why), "%s: offset 8: nr %u (1 to %u)",
				what, nr, MAX_RECORDS), -1;
	if (kind == LIVE_STREAM && (!tail || !drained))
		return snprintf(why, sizeof(why), "%s: a stream slot without tail or drained",
				what), -1;
	if (!head)
		return snprintf(why, sizeof(why), "%s: offset 24: head is NULL", what), -1;
	if (read_virt(head, b8, 8, what))
		return -1;
	val = le64(b8);
	raw = (unsigned char *)GETBUF((size_t)nr * RECORD_SIZE);
	if (read_virt(recs, raw, (long)nr * RECORD_SIZE, what)) {
		FREEBUF(raw);
		return -1;
	}
	h->recs = (struct rec *)GETBUF((size_t)nr * sizeof(struct rec));
	if (kind == LIVE_COUNT) {
		wrapped = val > nr;
		first = val > nr ? val - nr : 0;
		for (uint64_t k = first; k < val; k++, n++) {
			h->recs[n].from = le64(raw + (k % nr) * RECORD_SIZE);
			h->recs[n].to = le64(raw + (k % nr) * RECORD_SIZE + 8);
			h->recs[n].flags = le64(raw + (k % nr) * RECORD_SIZE + 16);
		}
	} else if (val >= head_base && (val - head_base) / RECORD_SIZE <= nr) {
		pos = (val - head_base) / RECORD_SIZE;
		if (kind == LIVE_CIRCULAR) {
			if (pos == nr)
				pos = 0;
			wrapped = le64(raw + pos * RECORD_SIZE) ||
				  le64(raw + pos * RECORD_SIZE + 8);
			end = wrapped ? nr : pos;
		} else {
			if (read_virt(tail, b4, 4, what) || read_virt(drained, &b1, 1, what)) {
				FREEBUF(raw);
				return -1;
			}
			end = le32(b4) < nr ? le32(b4) : nr;
			end = end > pos ? end : pos;
			wrapped = b1 != 0;
		}
		for (uint64_t i = pos; i < end + pos; i++, n++) {
			uint64_t k = i < end ? i : i - end;

			h->recs[n].from = le64(raw + k * RECORD_SIZE);
			h->recs[n].to = le64(raw + k * RECORD_SIZE + 8);
			h->recs[n].flags = le64(raw + k * RECORD_SIZE + 16);
		}
	}
	FREEBUF(raw);
	for (uint32_t i = 0; i < n && (flags & LIVE_CLEAR_USER); i++) {
		struct rec *r = &h->recs[i];

		if (r->from && !(r->from >> 63)) {
			r->from = 0;
			r->flags |= FLAG_USER_CLEARED;
		}
		if (r->to && !(r->to >> 63)) {
			r->to = 0;
			r->flags |= FLAG_USER_CLEARED;
		}
	}
	h->count = n;
	h->capacity = nr;
	snprintf(h->source, sizeof(h->source), "%s", source == 1 ? "intel_bts" : "sw");
	if (!n)
		h->flags |= DUMP_EMPTY;
	else if (wrapped)
		h->flags |= DUMP_WRAPPED;
	if (source == 1 && !(flags & LIVE_CLEAR_USER))
		h->flags |= DUMP_USER;
	return 0;
}

/* The current histories (the table bts_live points to); 0, or -1 with @why set. */
static int live_read(struct capture *c, int *slot_errors)
{
	unsigned char t[LIVE_TABLE_SIZE], b8[8];
	const char *what = "bts live table at";
	uint32_t table_size, slot_size;
	uint64_t table;

	*slot_errors = 0;
	c->n = 0;
	c->reason = 0;
	c->fault_cpu = -1;
	if (!symbol_exists("bts_live"))
		return fail("no symbol bts_live in the kernel's symbols: not a kernel with bts, or symbols of another kernel");
	if (read_virt(symbol_value("bts_live"), b8, 8, "bts_live"))
		return -1;
	table = le64(b8);
	if (!table)
		return fail("bts_live is NULL: the bts core did not start (out of memory at boot?)");
	if (read_virt(table, t, sizeof(t), "the bts live table"))
		return -1;
	if (memcmp(t, LIVE_MAGIC, 8))
		return table_fail(what, table, "offset 0: bad magic");
	if (le32(t + 8) != 1)
		return table_fail(what, table, "offset 8: version %u, this reader knows 1",
				  le32(t + 8));
	table_size = le32(t + 12);
	slot_size = le32(t + 16);
	c->nr_slots = le32(t + 20);
	if (table_size < LIVE_TABLE_SIZE || table_size > 4096)
		return table_fail(what, table, "offset 12: table_size %u (%d to 4096)",
				  table_size, LIVE_TABLE_SIZE);
	if (slot_size < LIVE_SLOT_SIZE || slot_size > 4096)
		return table_fail(what, table, "offset 16: slot_size %u (%d to 4096)",
				  slot_size, LIVE_SLOT_SIZE);
	if (!c->nr_slots || c->nr_slots > MAX_SLOTS)
		return table_fail(what, table, "offset 20: nr_slots %u (1 to %d CPUs)",
				  c->nr_slots, MAX_SLOTS);
	for (uint32_t cpu = 0; cpu < c->nr_slots; cpu++) {
		uint64_t at = table + table_size + (uint64_t)cpu * slot_size;
		struct history *h = &c->h[c->n];
		unsigned char s[LIVE_SLOT_SIZE], again[4];
		int tries, got = -1;

		for (tries = 0; tries < LIVE_TRIES && got; tries++) {
			if (read_virt(at, s, sizeof(s), "live slot")) {
				got = -2;
				break;
			}
			if (le32(s) & 1)
				continue;
			if (live_history(s, cpu, h)) {
				got = -2;
				break;
			}
			/* the slot as it was before the records were read: a whole reading */
			if (!read_virt(at, again, 4, "live slot") && !memcmp(again, s, 4)) {
				got = 0;
				break;
			}
			if (h->recs)
				FREEBUF(h->recs);
			h->recs = NULL;
			got = -1;
		}
		if (got == -1)
			snprintf(why, sizeof(why), "live slot of cpu %u: the kernel was rewriting it (seq odd or moving) in %d tries",
				 cpu, LIVE_TRIES);
		if (got) {
			fprintf(fp, "bts: %s\n", why);
			(*slot_errors)++;
			continue;
		}
		if (h->capacity)
			c->n++;
	}
	return 0;
}

static int is_user(uint64_t a)
{
	return a < (1ULL << 47);
}

/* "sym+0xoff", or "0x..." where crash knows no symbol. */
static void end_text(uint64_t addr, int cleared, int raw)
{
	struct syment *sp;
	ulong off = 0;

	if (cleared) {
		fprintf(fp, "[user]");
		return;
	}
	if (raw) {
		fprintf(fp, "%016llx", (unsigned long long)addr);
		return;
	}
	sp = is_user(addr) ? NULL : value_search((ulong)addr, &off);
	if (sp)
		fprintf(fp, "%s+0x%lx", sp->name, off);
	else
		fprintf(fp, "0x%llx", (unsigned long long)addr);
}

static void header_text(const struct history *h)
{
	if (h->live) {
		fprintf(fp, "CPU %u: %u record%s (capacity %u%s) from %s, live\n", h->cpu, h->count,
			h->count == 1 ? "" : "s", h->capacity,
			h->flags & DUMP_WRAPPED ? ", wrapped: older history lost" : "", h->source);
		return;
	}
	fprintf(fp, "CPU %u: %u record%s (capacity %u%s) from %s, %s %s", h->cpu, h->count,
		h->count == 1 ? "" : "s", h->capacity,
		h->flags & DUMP_WRAPPED ? ", wrapped: older history lost" : "", h->source,
		h->flags & DUMP_CAPTURE ? "captured at" : "dumped on", reasons[h->reason]);
	if (h->fault_index != NO_FAULT)
		fprintf(fp, ", fault at #%u", h->fault_index);
	if (h->release[0])
		fprintf(fp, ", kernel %s", h->release);
	fprintf(fp, ", at %llu.%09llu s", (unsigned long long)(h->timestamp_ns / 1000000000ULL),
		(unsigned long long)(h->timestamp_ns % 1000000000ULL));
	if (h->lost)
		fprintf(fp, ", %llu later capture%s not kept", (unsigned long long)h->lost,
			h->lost == 1 ? "" : "s");
	fprintf(fp, "\n");
}

static int rec_fault(const struct history *h, uint32_t i)
{
	return i == h->fault_index || (h->recs[i].flags & FLAG_FAULT);
}

static void print_text(const struct history *h, int raw)
{
	header_text(h);
	if (!h->count)
		fprintf(fp, "  (no records%s)\n",
			h->flags & DUMP_EMPTY ? ": nothing recorded since arming" : "");
	for (uint32_t i = 0; i < h->count; i++) {
		const struct rec *r = &h->recs[i];
		int cl = !!(r->flags & FLAG_USER_CLEARED);

		fprintf(fp, "%7u ", i);
		end_text(r->from, cl && !r->from, raw);
		fprintf(fp, " -> ");
		end_text(r->to, cl && !r->to, raw);
		if (is_user(r->from) != is_user(r->to))
			fprintf(fp, is_user(r->from) ? "  (user->kernel)" : "  (kernel->user)");
		fprintf(fp, "%s\n", rec_fault(h, i) ? "  <== FAULT" : "");
	}
}

static void json_str(const char *s)
{
	fputc('"', fp);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', fp);
		if ((unsigned char)*s < 0x20)
			fprintf(fp, "\\u%04x", *s);
		else
			fputc(*s, fp);
	}
	fputc('"', fp);
}

static void json_end(const char *which, uint64_t addr, int cleared, int raw)
{
	struct syment *sp;
	ulong off = 0;

	if (cleared) {
		fprintf(fp, ",\"%s\":null,\"%s_sym\":null", which, which);
		return;
	}
	fprintf(fp, ",\"%s\":\"0x%llx\",\"%s_sym\":", which, (unsigned long long)addr, which);
	sp = raw || is_user(addr) ? NULL : value_search((ulong)addr, &off);
	if (sp) {
		json_str(sp->name);
		fprintf(fp, ",\"%s_off\":%lu", which, off);
	} else {
		fprintf(fp, "null");
	}
}

static void print_json(const struct capture *c, const struct history *h, int raw)
{
	fprintf(fp, "{\"type\":\"dump\",\"cpu\":%u,\"source\":", h->cpu);
	json_str(h->source);
	fprintf(fp, ",\"count\":%u,\"capacity\":%u,\"wrapped\":%s,\"capture\":%s,\"user\":%s,\"empty\":%s,\"reason\":\"%s\",\"reason_code\":%u,\"fault_index\":",
		h->count, h->capacity, h->flags & DUMP_WRAPPED ? "true" : "false",
		h->flags & DUMP_CAPTURE ? "true" : "false", h->flags & DUMP_USER ? "true" : "false",
		h->flags & DUMP_EMPTY ? "true" : "false", reasons[h->reason], h->reason);
	if (h->fault_index == NO_FAULT)
		fprintf(fp, "null");
	else
		fprintf(fp, "%u", h->fault_index);
	fprintf(fp, ",\"timestamp_ns\":%llu,\"stext\":\"0x%llx\",\"kaslr_offset\":\"0x%llx\",\"lost\":%llu,\"release\":",
		(unsigned long long)h->timestamp_ns, (unsigned long long)h->stext,
		(unsigned long long)h->kaslr, (unsigned long long)h->lost);
	json_str(h->release);
	fprintf(fp, ",\"build_id\":");
	if (h->build_id[0])
		json_str(h->build_id);
	else
		fprintf(fp, "null");
	fprintf(fp, ",\"fault_cpu\":%d%s}\n", c->fault_cpu, h->live ? ",\"live\":true" : "");
	for (uint32_t i = 0; i < h->count; i++) {
		const struct rec *r = &h->recs[i];
		int cl = !!(r->flags & FLAG_USER_CLEARED);

		fprintf(fp, "{\"type\":\"branch\",\"cpu\":%u,\"index\":%u", h->cpu, i);
		json_end("from", r->from, cl && !r->from, raw);
		json_end("to", r->to, cl && !r->to, raw);
		fprintf(fp, ",\"flags\":\"0x%llx\",\"fault\":%s,\"sw\":%s,\"user_cleared\":%s}\n",
			(unsigned long long)r->flags, rec_fault(h, i) ? "true" : "false",
			r->flags & FLAG_SW ? "true" : "false", cl ? "true" : "false");
	}
}

static int cpu_cmp(const void *a, const void *b)
{
	const struct history *x = a, *y = b;

	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

static void cmd_bts(void)
{
	static struct capture c;	/* 8192 slots: not on crash's stack */
	int opt, raw = 0, json = 0, live = 0, slot_errors = 0;
	long cpu = -1;
	char *end;

	while ((opt = getopt(argcnt, args, "c:rjl")) != EOF) {
		switch (opt) {
		case 'c':
			/* a CPU number, nothing else: "-c x" is no CPU 0 */
			cpu = strtol(optarg, &end, 10);
			if (!*optarg || *end || cpu < 0 || cpu > UINT32_MAX)
				argerrs++;
			break;
		case 'r':
			raw = 1;
			break;
		case 'j':
			json = 1;
			break;
		case 'l':
			live = 1;
			break;
		default:
			argerrs++;
		}
	}
	if (argerrs || args[optind])
		cmd_usage(pc->curcmd, SYNOPSIS);
	if (live ? live_read(&c, &slot_errors) : capture_read(&c, &slot_errors)) {
		fprintf(fp, "bts: %s\n", why);
		goto out;
	}
	qsort(c.h, c.n, sizeof(c.h[0]), cpu_cmp);
	if (!json && live)
		fprintf(fp, "bts live: the current histories, %u of %u CPUs recording\n",
			c.n, c.nr_slots);
	else if (!json)
		fprintf(fp, "bts capture: %s, faulting CPU ", reasons[c.reason]);
	if (!json && !live && c.fault_cpu >= 0)
		fprintf(fp, "%d, %u of %u CPUs kept\n", c.fault_cpu, c.n, c.nr_slots);
	else if (!json && !live)
		fprintf(fp, "none, %u of %u CPUs kept\n", c.n, c.nr_slots);
	for (uint32_t i = 0; i < c.n; i++) {
		if (cpu >= 0 && c.h[i].cpu != (uint32_t)cpu)
			continue;
		if (json)
			print_json(&c, &c.h[i], raw);
		else
			print_text(&c.h[i], raw);
	}
out:
	for (uint32_t i = 0; i < c.n; i++)
		FREEBUF(c.h[i].recs);
	c.n = 0;
}

static char *help_bts[] = {
	"bts",
	"the branch history bts kept at the crash",
	"[-c cpu] [-r] [-j] [-l]",
	"  Prints the fault capture the bts tracer kept (Documentation/trace/bts.rst):",
	"  the reason, the faulting CPU and each captured CPU's history, oldest",
	"  branch first, the fault record marked \"<== FAULT\".",
	"    -c cpu  only that CPU's history",
	"    -r      raw addresses, no symbols",
	"    -j      JSON lines, with the keys of bts-dump --json (-r: no symbol keys)",
	"    -l      each CPU's current history instead, where its source records",
	"            it now (the table bts_live points to), as the records files",
	"            would copy it: on a live kernel, pause bts first (tracing_on 0)",
	NULL
};

/*
 * MINIMAL: the command needs only symbols and memory, so it also runs in
 * crash --minimal, which is how crash 8.0.2 opens a 6.12 dump at all (its
 * full start-up fails on the kernel's slab layout: "invalid structure
 * member offset: kmem_cache_s_num").
 */
static struct command_table_entry command_table[] = {
	{ "bts", cmd_bts, help_bts, MINIMAL },
	{ NULL, NULL, NULL, 0 }
};

void bts_init(void);
void bts_fini(void);

void __attribute__((constructor)) bts_init(void)
{
	register_extension(command_table);
}

void __attribute__((destructor)) bts_fini(void)
{
}
