/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bts-dump tests: build dump files byte by byte, independently of the
 * parser under test, so a parser bug cannot hide behind a writer bug that
 * shares its code. Header-only: used by unit.c, gen-dump.c and the fuzzer.
 */
#ifndef BTS_DUMP_TESTS_GEN_H
#define BTS_DUMP_TESTS_GEN_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"

struct gen_hdr {
	char magic[8];
	uint16_t version, header_size, record_size, source;
	uint32_t cpu, count, capacity, flags, reason, fault_index;
	uint64_t timestamp_ns, stext, kaslr_offset, lost;
	char source_name[16];
	char release[64];
	uint8_t build_id[20];
	uint32_t build_id_size;
	uint64_t etext;
};

static inline struct gen_hdr gen_default_hdr(void)
{
	struct gen_hdr h;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, "BTSDUMP", 8);
	h.version = 1;
	h.header_size = 192;
	h.record_size = 24;
	h.source = 1;
	h.capacity = 2730;
	h.fault_index = 0xffffffffU;
	h.timestamp_ns = 12345678901ULL;
	memcpy(h.source_name, "intel_bts", 10);
	memcpy(h.release, "6.12.117-bts", 13);
	return h;
}

static inline void gen_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void gen_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void gen_put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/*
 * A file of @hdr followed by @n records (the header's count is written as
 * given, so tests can make it lie). Records start at hdr->header_size when
 * that is >= 192, else at 192. Caller frees *buf.
 */
static inline void gen_build(const struct gen_hdr *h, const struct bts_rec *recs, size_t n,
			     uint8_t **buf, size_t *len)
{
	size_t hs = h->header_size >= 192 ? h->header_size : 192;
	uint8_t *p = calloc(1, hs + n * 24 + 1);

	if (!p)
		abort();
	memcpy(p, h->magic, 8);
	gen_put16(p + 8, h->version);
	gen_put16(p + 10, h->header_size);
	gen_put16(p + 12, h->record_size);
	gen_put16(p + 14, h->source);
	gen_put32(p + 16, h->cpu);
	gen_put32(p + 20, h->count);
	gen_put32(p + 24, h->capacity);
	gen_put32(p + 28, h->flags);
	gen_put32(p + 32, h->reason);
	gen_put32(p + 36, h->fault_index);
	gen_put64(p + 40, h->timestamp_ns);
	gen_put64(p + 48, h->stext);
	gen_put64(p + 56, h->kaslr_offset);
	gen_put64(p + 64, h->lost);
	memcpy(p + 72, h->source_name, 16);
	memcpy(p + 88, h->release, 64);
	memcpy(p + 152, h->build_id, 20);
	gen_put32(p + 172, h->build_id_size);
	gen_put64(p + 176, h->etext);
	for (size_t i = 0; i < n; i++) {
		gen_put64(p + hs + i * 24, recs[i].from);
		gen_put64(p + hs + i * 24 + 8, recs[i].to);
		gen_put64(p + hs + i * 24 + 16, recs[i].flags);
	}
	*buf = p;
	*len = hs + n * 24;
}

#endif /* BTS_DUMP_TESTS_GEN_H */
