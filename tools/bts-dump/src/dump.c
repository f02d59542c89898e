// SPDX-License-Identifier: GPL-2.0
/*
 * bts-dump (decoder layer): the only code that reads dump bytes. Every
 * header field is checked before it is used, with a one-line message that
 * names the offset of the offending field, so a truncated, corrupted or
 * hostile file is rejected instead of misread.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dump.h"
#include "util.h"

static int fail(char *err, size_t errlen, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t errlen, size_t off, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(err, errlen, "offset %zu: ", off);
	if (n < 0 || (size_t)n >= errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

/* Copy a fixed-size string field, stopping at NUL, replacing non-printables. */
static void copy_label(char *dst, const uint8_t *src, size_t n)
{
	size_t i;

	for (i = 0; i < n && src[i]; i++)
		dst[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? (char)src[i] : '?';
	dst[i] = '\0';
}

/*
 * With @borrow, records are used in place when the host is little-endian
 * and they are aligned, instead of being copied out of @buf.
 */
static int parse(const uint8_t *buf, size_t len, struct bts_dump *d,
		 char *err, size_t errlen, bool borrow)
{
	size_t have, need;

	memset(d, 0, sizeof(*d));
	if (len < 8 || memcmp(buf, BTS_MAGIC, 8) != 0) {
		if (len < 8 && memcmp(buf, BTS_MAGIC, len) == 0)
			return fail(err, errlen, len, "truncated header: %zu of %d bytes",
				    len, BTS_V1_HEADER_SIZE);
		return fail(err, errlen, 0, "bad magic: not a bts dump (want \"BTSDUMP\\0\")");
	}
	if (len < BTS_OFF_RECORD_SIZE + 2)
		return fail(err, errlen, len, "truncated header: %zu of %d bytes",
			    len, BTS_V1_HEADER_SIZE);
	d->version = get_le16(buf + BTS_OFF_VERSION);
	d->header_size = get_le16(buf + BTS_OFF_HEADER_SIZE);
	d->record_size = get_le16(buf + BTS_OFF_RECORD_SIZE);
	if (d->version != BTS_VERSION)
		return fail(err, errlen, BTS_OFF_VERSION,
			    "unsupported version %u (this bts-dump reads version %d)",
			    d->version, BTS_VERSION);
	if (d->header_size < BTS_V1_HEADER_SIZE)
		return fail(err, errlen, BTS_OFF_HEADER_SIZE,
			    "header_size %u is smaller than the %d bytes of version %u",
			    d->header_size, BTS_V1_HEADER_SIZE, d->version);
	if (d->record_size != BTS_V1_RECORD_SIZE)
		return fail(err, errlen, BTS_OFF_RECORD_SIZE,
			    "record_size %u, version %u records are %d bytes",
			    d->record_size, d->version, BTS_V1_RECORD_SIZE);
	if (len < d->header_size)
		return fail(err, errlen, len, "truncated header: %zu of %u bytes",
			    len, d->header_size);

	d->source = get_le16(buf + BTS_OFF_SOURCE);
	d->cpu = get_le32(buf + BTS_OFF_CPU);
	d->count = get_le32(buf + BTS_OFF_COUNT);
	d->capacity = get_le32(buf + BTS_OFF_CAPACITY);
	d->flags = get_le32(buf + BTS_OFF_FLAGS);
	d->reason = get_le32(buf + BTS_OFF_REASON);
	d->fault_index = get_le32(buf + BTS_OFF_FAULT_INDEX);
	d->timestamp_ns = get_le64(buf + BTS_OFF_TIMESTAMP);
	d->stext = get_le64(buf + BTS_OFF_STEXT);
	d->kaslr_offset = get_le64(buf + BTS_OFF_KASLR);
	d->lost = get_le64(buf + BTS_OFF_LOST);
	copy_label(d->source_name, buf + BTS_OFF_SOURCE_NAME, 16);
	copy_label(d->release, buf + BTS_OFF_RELEASE, 64);

	if (d->source > BTS_SOURCE_SW || (d->source == BTS_SOURCE_NONE && d->count))
		return fail(err, errlen, BTS_OFF_SOURCE,
			    "unknown source %u (1 = intel_bts, 2 = sw)", d->source);
	if (d->fault_index != BTS_NO_FAULT && d->fault_index >= d->count)
		return fail(err, errlen, BTS_OFF_FAULT_INDEX,
			    "fault_index %u is outside the %u records",
			    d->fault_index, d->count);

	have = (len - d->header_size) / BTS_V1_RECORD_SIZE;
	if (have < d->count)
		return fail(err, errlen, d->header_size + have * BTS_V1_RECORD_SIZE,
			    "truncated: header says %u records, file holds %zu",
			    d->count, have);
	need = d->header_size + (size_t)d->count * BTS_V1_RECORD_SIZE;
	if (len > need)
		return fail(err, errlen, need,
			    "%zu bytes of garbage after the last of %u records",
			    len - need, d->count);

	const uint8_t *p = buf + d->header_size;

	if (!d->count)
		return 0;	/* records stays NULL */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (borrow && (uintptr_t)p % _Alignof(struct bts_rec) == 0 &&
	    sizeof(struct bts_rec) == BTS_V1_RECORD_SIZE) {
		d->records = (struct bts_rec *)(uintptr_t)p;
		return 0;
	}
#else
	(void)borrow;
#endif
	d->records = xmalloc((size_t)d->count * sizeof(*d->records));
	for (uint32_t i = 0; i < d->count; i++, p += BTS_V1_RECORD_SIZE) {
		d->records[i].from = get_le64(p);
		d->records[i].to = get_le64(p + 8);
		d->records[i].flags = get_le64(p + 16);
	}
	return 0;
}

int bts_dump_parse(const uint8_t *buf, size_t len, struct bts_dump *d,
		   char *err, size_t errlen)
{
	return parse(buf, len, d, err, errlen, false);
}

/* Map a regular file read-only; NULL for tracefs files (size 0) and errors. */
static void *map_file(const char *path, size_t *len)
{
	struct stat st;
	void *p;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0) {
		close(fd);
		return NULL;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return NULL;
	*len = (size_t)st.st_size;
	return p;
}

int bts_dump_load(const char *path, struct bts_dump *d)
{
	char err[256];
	uint8_t *buf;
	size_t len;
	int ret;

	buf = map_file(path, &len);
	if (buf) {
		ret = parse(buf, len, d, err, sizeof(err), true);
		if (!ret && d->records && (uint8_t *)d->records >= buf &&
		    (uint8_t *)d->records < buf + len) {
			d->map = buf;
			d->map_len = len;
		} else {
			munmap(buf, len);
		}
	} else {
		if (read_whole_file(path, &buf, &len))
			return -1;
		ret = parse(buf, len, d, err, sizeof(err), false);
		free(buf);
	}
	if (ret)
		return error_msg("%s: %s", path, err);
	d->path = xstrdup(path);
	return 0;
}

void bts_dump_free(struct bts_dump *d)
{
	if (d->map)
		munmap(d->map, d->map_len);
	else
		free(d->records);
	d->map = NULL;
	free(d->path);
	d->records = NULL;
	d->path = NULL;
}

const char *bts_reason_name(uint32_t reason)
{
	static const char *const names[] = {
		"dump", "oops", "BUG", "panic", "GPF", "WARN",
	};

	return reason < ARRAY_SIZE(names) ? names[reason] : "unknown";
}

const char *bts_source_label(const struct bts_dump *d)
{
	if (d->source_name[0])
		return d->source_name;
	switch (d->source) {
	case BTS_SOURCE_HW:
		return "intel_bts";
	case BTS_SOURCE_SW:
		return "sw";
	default:
		return "none";
	}
}
