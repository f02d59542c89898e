// SPDX-License-Identifier: GPL-2.0
/*
 * bts-dump (decoder layer): the only code that reads dump bytes. Every
 * header field is checked before it is used, with a one-line message that
 * names the offset of the offending field, so a truncated, corrupted or
 * hostile file is rejected instead of misread.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdalign.h>
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
 * Check the header against a file of @len bytes of which the first @avail
 * (at least min(@len, BTS_V1_HEADER_SIZE)) are in @buf. Fills @d except
 * the records.
 */
static int parse_header(const uint8_t *buf, size_t avail, size_t len, struct bts_dump *d,
			char *err, size_t errlen)
{
	size_t have, need;

	memset(d, 0, sizeof(*d));
	if (avail > len)
		avail = len;
	if (avail < 8 || memcmp(buf, BTS_MAGIC, 8) != 0) {
		if (avail < 8 && memcmp(buf, BTS_MAGIC, avail) == 0)
			return fail(err, errlen, len, "truncated header: %zu of %d bytes",
				    len, BTS_V1_HEADER_SIZE);
		return fail(err, errlen, 0, "bad magic: not a bts dump (want \"BTSDUMP\\0\")");
	}
	if (avail < BTS_OFF_RECORD_SIZE + 2)
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
	if (len < d->header_size || avail < BTS_V1_HEADER_SIZE)
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
	/* Fields that were reserved (zero) before: zero is "not recorded". */
	memcpy(d->build_id, buf + BTS_OFF_BUILD_ID, BTS_BUILD_ID_MAX);
	d->build_id_size = get_le32(buf + BTS_OFF_BUILD_ID_SIZE);
	d->etext = get_le64(buf + BTS_OFF_ETEXT);

	if (d->source > BTS_SOURCE_SW || (d->source == BTS_SOURCE_NONE && d->count))
		return fail(err, errlen, BTS_OFF_SOURCE,
			    "unknown source %u (1 = intel_bts, 2 = sw)", d->source);
	if (d->build_id_size > BTS_BUILD_ID_MAX)
		return fail(err, errlen, BTS_OFF_BUILD_ID_SIZE,
			    "build_id_size %u is larger than the %d bytes of build_id",
			    d->build_id_size, BTS_BUILD_ID_MAX);
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
	return 0;
}

/* Records of a checked header from @p (host order, copied out). */
static void copy_records(struct bts_dump *d, const uint8_t *p)
{
	if (!d->count)
		return;		/* records stays NULL */
	d->records = xmalloc((size_t)d->count * sizeof(*d->records));
	for (uint32_t i = 0; i < d->count; i++, p += BTS_V1_RECORD_SIZE) {
		d->records[i].from = get_le64(p);
		d->records[i].to = get_le64(p + 8);
		d->records[i].flags = get_le64(p + 16);
	}
}

int bts_dump_check_header(const uint8_t *buf, size_t avail, size_t len, struct bts_dump *d,
			  char *err, size_t errlen)
{
	return parse_header(buf, avail, len, d, err, errlen);
}

int bts_dump_parse(const uint8_t *buf, size_t len, struct bts_dump *d,
		   char *err, size_t errlen)
{
	if (parse_header(buf, len, len, d, err, errlen))
		return -1;
	copy_records(d, buf + d->header_size);
	return 0;
}

/*
 * A file with a size (a copy on disk): the header is read and checked
 * against the size first, so a file that is no dump costs one small read
 * however large it is; then the records are mapped, used in place where
 * the host order and alignment allow.
 */
static int load_sized(int fd, size_t len, struct bts_dump *d, char *err, size_t errlen)
{
	uint8_t hdr[BTS_V1_HEADER_SIZE];
	ssize_t got = read_full(fd, 0, hdr, len < sizeof(hdr) ? len : sizeof(hdr));
	uint8_t *map;

	if (got < 0)
		return fail(err, errlen, 0, "%s", strerror(errno));
	if (parse_header(hdr, (size_t)got, len, d, err, errlen))
		return -1;
	if (!d->count)
		return 0;
	map = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (map == MAP_FAILED) {
		uint8_t *buf = xmalloc(len);

		got = read_full(fd, 0, buf, len);
		if (got < 0 || (size_t)got != len) {
			free(buf);
			return fail(err, errlen, got < 0 ? 0 : (size_t)got, "short read");
		}
		copy_records(d, buf + d->header_size);
		free(buf);
		return 0;
	}
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if ((d->header_size % alignof(struct bts_rec)) == 0 &&
	    sizeof(struct bts_rec) == BTS_V1_RECORD_SIZE) {
		d->records = (struct bts_rec *)(uintptr_t)(map + d->header_size);
		d->map = map;
		d->map_len = len;
		return 0;
	}
#endif
	copy_records(d, map + d->header_size);
	munmap(map, len);
	return 0;
}

/*
 * A file without a size (tracefs per_cpu/cpuN/{records,capture} read 0):
 * read the header, then only as much as it announces and one byte more,
 * to tell garbage after the records from their end.
 */
static int load_unsized(int fd, struct bts_dump *d, char *err, size_t errlen)
{
	size_t len = 0, cap = 4096, want = BTS_V1_HEADER_SIZE;
	uint8_t *buf = xmalloc(cap);
	bool sized = false;
	int ret;

	for (;;) {
		ssize_t r;

		if (len >= want) {
			if (sized || len < BTS_OFF_COUNT + 4 || memcmp(buf, BTS_MAGIC, 8))
				break;
			/* The header says how much follows. */
			want = get_le16(buf + BTS_OFF_HEADER_SIZE) +
			       (size_t)get_le32(buf + BTS_OFF_COUNT) * BTS_V1_RECORD_SIZE + 1;
			sized = true;
			continue;
		}
		if (len == cap) {
			cap = cap * 2 < want ? cap * 2 : want;
			buf = xrealloc(buf, cap);
		}
		r = read(fd, buf + len, (cap < want ? cap : want) - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = fail(err, errlen, len, "%s", strerror(errno));
			free(buf);
			return ret;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	ret = bts_dump_parse(buf, len, d, err, errlen);
	free(buf);
	return ret;
}

int bts_dump_load(const char *path, struct bts_dump *d)
{
	char err[256];
	struct stat st;
	int fd, ret;

	fd = open_input(path, &st);
	if (fd < 0)
		return -1;
	if (st.st_size > 0)
		ret = load_sized(fd, (size_t)st.st_size, d, err, sizeof(err));
	else
		ret = load_unsized(fd, d, err, sizeof(err));
	close(fd);
	if (ret)
		return error_msg("%s: %s", path, err);
	d->path = xstrdup(path);
	return 0;
}

struct bts_dump *dump_list_add(struct dump_list *list)
{
	if (list->n == list->cap) {
		list->cap = list->cap ? list->cap * 2 : 16;
		list->d = xrealloc(list->d, list->cap * sizeof(*list->d));
	}
	memset(&list->d[list->n], 0, sizeof(list->d[list->n]));
	list->d[list->n].seq = list->n;
	return &list->d[list->n++];
}

void bts_dump_free(struct bts_dump *d)
{
	if (d->map)
		munmap(d->map, d->map_len);
	else
		free(d->records);
	d->map = NULL;
	free(d->path);
	free(d->gaps);
	free(d->doubt);
	d->doubt = NULL;
	d->records = NULL;
	d->path = NULL;
	d->gaps = NULL;
	d->ngaps = 0;
}

const char *bts_reason_name(uint32_t reason)
{
	static const char *const names[] = {
		"dump", "oops", "BUG", "panic", "GPF", "WARN", "stream",
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
