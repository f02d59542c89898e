// SPDX-License-Identifier: GPL-2.0
/*
 * bts-dump (decoder layer): allocation, error reporting, whole-file reads,
 * the buffered output stream and the u64 hash map. See util.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

static void oom(void)
{
	fputs("bts-dump: out of memory\n", stderr);
	exit(2);
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p)
		oom();
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

bool messages_off;

int error_msg(const char *fmt, ...)
{
	va_list ap;

	if (messages_off)
		return -1;
	fputs("bts-dump: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

void warn_msg(const char *fmt, ...)
{
	va_list ap;

	if (messages_off)
		return;
	fputs("bts-dump: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static const char *file_type(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a file";
}

int open_input(const char *path, struct stat *st)
{
	int fd;

	/*
	 * O_NONBLOCK: opening a FIFO for reading waits for a writer without it.
	 * tracefs, procfs and sysfs files read the same either way.
	 */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		/* What the bts per-CPU files answer, in words a user can act on. */
		if (errno == ENODEV)
			return error_msg("%s: %s (is bts the current tracer?)", path,
					 strerror(errno));
		if (errno == ENXIO)
			return error_msg("%s: %s (is the CPU offline?)", path, strerror(errno));
		return error_msg("%s: %s", path, strerror(errno));
	}
	if (fstat(fd, st)) {
		error_msg("%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		error_msg("%s: not a regular file (%s)", path, file_type(st->st_mode));
		close(fd);
		return -1;
	}
	return fd;
}

ssize_t read_full(int fd, uint64_t off, void *buf, size_t n)
{
	size_t done = 0;

	while (done < n) {
		ssize_t r = pread(fd, (char *)buf + done, n - done, (off_t)(off + done));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		done += (size_t)r;
	}
	return (ssize_t)done;
}

void out_init(struct out *o, int fd, size_t cap)
{
	o->fd = fd;
	o->failed = false;
	o->len = 0;
	o->cap = cap;
	o->buf = xmalloc(cap);
}

void out_flush(struct out *o)
{
	size_t done = 0;

	while (done < o->len && !o->failed) {
		ssize_t w = write(o->fd, o->buf + done, o->len - done);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EPIPE)
				error_msg("write: %s", strerror(errno));
			o->failed = true;
			break;
		}
		done += (size_t)w;
	}
	o->len = 0;
}

void out_grow(struct out *o, size_t need)
{
	if (o->fd < 0) {
		/* A memory-only buffer (fd -1): keep the contents, grow. */
		size_t want = o->len + need;

		if (o->cap < want) {
			o->cap = want > o->cap * 2 ? want : o->cap * 2;
			o->buf = xrealloc(o->buf, o->cap);
		}
		return;
	}
	out_flush(o);
	if (o->cap < need) {
		o->cap = need;
		o->buf = xrealloc(o->buf, o->cap);
	}
}

void out_free(struct out *o)
{
	out_flush(o);
	free(o->buf);
	o->buf = NULL;
}

void out_udec(struct out *o, uint64_t v)
{
	out_udec_w(o, v, 0);
}

void out_udec_w(struct out *o, uint64_t v, int width)
{
	static const char pairs[201] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	/* Digits end at tmp + 48; 32 bytes from any start stay inside tmp. */
	char tmp[80], *p = tmp + 48;
	int n;

	if (width > 24)
		width = 24;
	while (v >= 100) {
		p -= 2;
		memcpy(p, pairs + (v % 100) * 2, 2);
		v /= 100;
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, pairs + v * 2, 2);
	} else {
		*--p = (char)('0' + v);
	}
	n = (int)(tmp + 48 - p);
	if (n < width) {
		p -= width - n;
		memset(p, ' ', (size_t)(width - n));
		n = width;
	}
	/* A fixed-size copy is a few moves, not a call; only n bytes count. */
	memcpy(out_reserve(o, 32), p, 32);
	o->len += (size_t)n;
}

void out_fmt(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	char *p = out_reserve(o, (size_t)n + 1);

	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	o->len += (size_t)n;
}

void out_json_str(struct out *o, const char *s, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	size_t i = 0;

	out_char(o, '"');
	while (i < n) {
		size_t run = i;
		unsigned char c;

		/* Copy a run of plain characters at once. */
		while (run < n && (unsigned char)s[run] >= 0x20 && (unsigned char)s[run] < 0x7f &&
		       s[run] != '"' && s[run] != '\\')
			run++;
		out_mem(o, s + i, run - i);
		if (run == n)
			break;
		c = (unsigned char)s[run];
		if (c == '"' || c == '\\') {
			out_char(o, '\\');
			out_char(o, (char)c);
		} else {
			char *p = out_reserve(o, 6);

			memcpy(p, "\\u00", 4);
			p[4] = digits[c >> 4];
			p[5] = digits[c & 15];
			o->len += 6;
		}
		i = run + 1;
	}
	out_char(o, '"');
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void sort_u64(uint64_t *a, size_t n)
{
	uint64_t *tmp, *src = a, *dst;
	size_t count[65536];

	if (n < 2)
		return;
	/* Four passes over 65536 counters cost more than a short array. */
	if (n < 65536) {
		qsort(a, n, sizeof(*a), u64_cmp);
		return;
	}
	tmp = xmalloc(n * sizeof(*tmp));
	dst = tmp;
	/* LSD radix sort, 16 bits a pass: four passes, stable. */
	for (int shift = 0; shift < 64; shift += 16) {
		size_t sum = 0;

		memset(count, 0, sizeof(count));
		for (size_t i = 0; i < n; i++)
			count[(src[i] >> shift) & 0xffff]++;
		for (size_t b = 0; b < 65536; b++) {
			size_t c = count[b];

			count[b] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[count[(src[i] >> shift) & 0xffff]++] = src[i];
		uint64_t *t = src;

		src = dst;
		dst = t;
	}
	/* Four passes end in @a again. */
	free(tmp);
}

void u64map_init(struct u64map *m, size_t cap_hint)
{
	size_t cap = 16;

	while (cap < cap_hint * 2)
		cap *= 2;
	m->keys = xmalloc(cap * sizeof(*m->keys));
	m->vals = xmalloc(cap * sizeof(*m->vals));
	memset(m->keys, 0xff, cap * sizeof(*m->keys));
	m->n = 0;
	m->mask = cap - 1;
	m->has_empty_key = false;
	m->empty_key_val = 0;
}

void u64map_free(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->n = 0;
}

static void u64map_rehash(struct u64map *m)
{
	struct u64map bigger;

	u64map_init(&bigger, (m->mask + 1));
	for (size_t i = 0; i <= m->mask; i++)
		if (m->keys[i] != U64MAP_EMPTY)
			*u64map_get(&bigger, m->keys[i], 0) = m->vals[i];
	bigger.has_empty_key = m->has_empty_key;
	bigger.empty_key_val = m->empty_key_val;
	u64map_free(m);
	*m = bigger;
}

uint64_t *u64map_get(struct u64map *m, uint64_t key, uint64_t init)
{
	size_t i;

	if (key == U64MAP_EMPTY) {
		if (!m->has_empty_key) {
			m->has_empty_key = true;
			m->empty_key_val = init;
		}
		return &m->empty_key_val;
	}
	if ((m->n + 1) * 4 > (m->mask + 1) * 3)
		u64map_rehash(m);
	for (i = hash64(key) & m->mask; m->keys[i] != U64MAP_EMPTY; i = (i + 1) & m->mask)
		if (m->keys[i] == key)
			return &m->vals[i];
	m->keys[i] = key;
	m->vals[i] = init;
	m->n++;
	return &m->vals[i];
}

uint64_t *u64map_find(struct u64map *m, uint64_t key)
{
	if (key == U64MAP_EMPTY)
		return m->has_empty_key ? &m->empty_key_val : NULL;
	for (size_t i = hash64(key) & m->mask; m->keys[i] != U64MAP_EMPTY; i = (i + 1) & m->mask)
		if (m->keys[i] == key)
			return &m->vals[i];
	return NULL;
}
