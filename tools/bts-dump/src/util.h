/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bts-dump (decoder layer): small helpers shared by every part of the tool:
 * a buffered output stream that formats numbers without printf, an
 * open-addressing hash map keyed by 64-bit values, and allocation wrappers
 * that exit cleanly on out-of-memory. Nothing here knows the dump format.
 */
#ifndef BTS_DUMP_UTIL_H
#define BTS_DUMP_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* Set to silence error_msg() and warn_msg() (the fuzzer does). */
extern bool messages_off;

/* Report an error on stderr as "bts-dump: <msg>" and return -1. */
int error_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warn_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Open @path for reading without blocking (a FIFO's open waits for a
 * writer otherwise) and refuse what is not a regular file: FIFOs, devices
 * (/dev/zero never ends), directories. Tracefs, procfs and sysfs files
 * are regular, with st_size 0. Returns the fd, or -1 after one message.
 */
int open_input(const char *path, struct stat *st);

/* pread() until @n bytes or the end; returns the bytes read or -1 (errno). */
ssize_t read_full(int fd, uint64_t off, void *buf, size_t n);

static inline uint16_t get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 |
	       (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t get_le64(const uint8_t *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
#else
	return (uint64_t)get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
#endif
}

/*
 * Output stream: large buffer, flushed with write(2) when full. Formatting
 * helpers append directly, so printing a record costs no printf call.
 * With fd -1 the stream is a growing memory buffer that is never flushed.
 */
struct out {
	int fd;
	bool failed;		/* a write failed (EPIPE, ENOSPC): stop */
	size_t len;
	size_t cap;
	char *buf;
};

void out_init(struct out *o, int fd, size_t cap);
void out_flush(struct out *o);
void out_free(struct out *o);
void out_grow(struct out *o, size_t need);

static inline char *out_reserve(struct out *o, size_t need)
{
	if (o->cap - o->len < need)
		out_grow(o, need);
	return o->buf + o->len;
}

static inline void out_mem(struct out *o, const char *s, size_t n)
{
	memcpy(out_reserve(o, n), s, n);
	o->len += n;
}

static inline void out_str(struct out *o, const char *s)
{
	out_mem(o, s, strlen(s));
}

/* A string literal: its length is known at compile time. */
#define out_lit(o, lit)	out_mem((o), "" lit, sizeof(lit) - 1)

static inline void out_char(struct out *o, char c)
{
	*out_reserve(o, 1) = c;
	o->len++;
}

static inline void out_spaces(struct out *o, size_t n)
{
	memset(out_reserve(o, n), ' ', n);
	o->len += n;
}

/* Lower-case hex without leading zeros (at least one digit), no "0x". */
static inline void out_hex(struct out *o, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char *p = out_reserve(o, 16);
	int n = v ? (67 - __builtin_clzll(v)) / 4 : 1;
	int i;

	for (i = n - 1; i >= 0; i--) {
		p[i] = digits[v & 15];
		v >>= 4;
	}
	o->len += n;
}

/* Exactly 16 hex digits. */
static inline void out_hex16(struct out *o, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char *p = out_reserve(o, 16);
	int i;

	for (i = 15; i >= 0; i--) {
		p[i] = digits[v & 15];
		v >>= 4;
	}
	o->len += 16;
}

void out_udec(struct out *o, uint64_t v);
/* Decimal right-aligned in @width columns. */
void out_udec_w(struct out *o, uint64_t v, int width);
void out_fmt(struct out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A JSON string literal with quotes; bytes outside printable ASCII escaped. */
void out_json_str(struct out *o, const char *s, size_t n);

/* Sort @n values ascending (radix sort; allocates n more). */
void sort_u64(uint64_t *a, size_t n);

/*
 * u64 -> u64 map with open addressing. Key ~0 marks empty slots and is kept aside.
 */
struct u64map {
	uint64_t *keys;
	uint64_t *vals;
	size_t n;
	size_t mask;		/* capacity - 1 */
	bool has_empty_key;	/* key ~0 lives outside the table */
	uint64_t empty_key_val;
};

#define U64MAP_EMPTY	(~(uint64_t)0)

void u64map_init(struct u64map *m, size_t cap_hint);
void u64map_free(struct u64map *m);
/* Pointer to the value of @key, inserted with @init if absent. */
uint64_t *u64map_get(struct u64map *m, uint64_t key, uint64_t init);
/* Pointer to the value of @key, or NULL. */
uint64_t *u64map_find(struct u64map *m, uint64_t key);

static inline uint64_t hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

#endif /* BTS_DUMP_UTIL_H */
