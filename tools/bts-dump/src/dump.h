/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bts-dump (decoder layer): reading one CPU's dump as the kernel writes it
 * (include/uapi/linux/bts.h, Documentation/trace/bts.rst). Everything read
 * from a file is validated here, once; the rest of the tool trusts a
 * struct bts_dump. Never trust a field before it is checked.
 */
#ifndef BTS_DUMP_DUMP_H
#define BTS_DUMP_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The format, mirrored from include/uapi/linux/bts.h (little-endian). */
#define BTS_MAGIC		"BTSDUMP"	/* and a NUL: 8 bytes */
#define BTS_VERSION		1
#define BTS_V1_HEADER_SIZE	192
#define BTS_V1_RECORD_SIZE	24

#define BTS_DUMP_WRAPPED	(1U << 0)
#define BTS_DUMP_CAPTURE	(1U << 1)
#define BTS_DUMP_USER		(1U << 2)
#define BTS_DUMP_EMPTY		(1U << 3)
#define BTS_DUMP_TASK_FILTER	(1U << 4)
#define BTS_DUMP_FILTER_HELD	(1U << 5)

#define BTS_SOURCE_NONE		0
#define BTS_SOURCE_HW		1
#define BTS_SOURCE_SW		2

#define BTS_NO_FAULT		0xffffffffU

/* ftrace:bts entries of stream mode: nr 0, this reason (Documentation/trace/bts.rst). */
#define BTS_REASON_STREAM	6

/* Where a stream lost records, and how it knows (struct bts_gap_mark). */
enum bts_gap_kind {
	BTS_GAP_KNOWN,		/* a bts_gap entry: the ring buffer refused them */
	BTS_GAP_UNSEEN,		/* pos jumped with no bts_gap: overwritten or unread */
	BTS_GAP_BACKWARDS,	/* pos went back: a new stream (re-armed?), count unknown */
};

/**
 * struct bts_gap_mark - a loss in a stream, before record @index
 * @lost:	records lost (0 for BTS_GAP_BACKWARDS: not known)
 * @pos:	the pos of record @index (the record after the loss)
 */
struct bts_gap_mark {
	uint32_t index;
	uint32_t kind;
	uint64_t lost;
	uint32_t pos;
};

/* Record flag bits (include/linux/bts.h). */
#define BTS_FLAG_PREDICTED	(1ULL << 4)
#define BTS_FLAG_USER_CLEARED	(1ULL << 61)
#define BTS_FLAG_FAULT		(1ULL << 62)
#define BTS_FLAG_SW		(1ULL << 63)

/* Header field offsets, for building and checking files. */
#define BTS_OFF_MAGIC		0
#define BTS_OFF_VERSION		8
#define BTS_OFF_HEADER_SIZE	10
#define BTS_OFF_RECORD_SIZE	12
#define BTS_OFF_SOURCE		14
#define BTS_OFF_CPU		16
#define BTS_OFF_COUNT		20
#define BTS_OFF_CAPACITY	24
#define BTS_OFF_FLAGS		28
#define BTS_OFF_REASON		32
#define BTS_OFF_FAULT_INDEX	36
#define BTS_OFF_TIMESTAMP	40
#define BTS_OFF_STEXT		48
#define BTS_OFF_KASLR		56
#define BTS_OFF_LOST		64
#define BTS_OFF_SOURCE_NAME	72
#define BTS_OFF_RELEASE		88
#define BTS_OFF_BUILD_ID	152
#define BTS_OFF_BUILD_ID_SIZE	172
#define BTS_OFF_ETEXT		176
#define BTS_OFF_RESERVED	184
#define BTS_BUILD_ID_MAX	20

/*
 * A crash dump's index of the kept capture (struct bts_vmcore_table and
 * struct bts_vmcore_slot in include/uapi/linux/bts.h), found by the
 * VMCOREINFO line "BTS_TABLE=<hex physical address>".
 */
#define BTS_VMCORE_MAGIC	"BTSCORE"	/* and a NUL: 8 bytes */
#define BTS_VMCORE_VERSION	1
#define BTS_VMCORE_PAGES	17
#define BTS_VMCORE_TABLE_SIZE	48
#define BTS_VMCORE_SLOT_SIZE	336
/* struct bts_vmcore_table */
#define BTS_VT_OFF_MAGIC	0
#define BTS_VT_OFF_VERSION	8
#define BTS_VT_OFF_TABLE_SIZE	12
#define BTS_VT_OFF_SLOT_SIZE	16
#define BTS_VT_OFF_NR_SLOTS	20
#define BTS_VT_OFF_NR_WRITTEN	24
#define BTS_VT_OFF_PAGE_SIZE	28
#define BTS_VT_OFF_REASON	32
#define BTS_VT_OFF_FAULT_CPU	36
/* struct bts_vmcore_slot: the dump header, then */
#define BTS_VS_OFF_RECS_OFFSET	192
#define BTS_VS_OFF_NR_PAGES	196
#define BTS_VS_OFF_PFN		200

struct bts_rec {
	uint64_t from;
	uint64_t to;
	uint64_t flags;
};

/*
 * Without bts_user the kernel clears the user half of a branch between
 * user and kernel mode (the entry's from, the return's to) to 0 and sets
 * BTS_FLAG_USER_CLEARED. Such a half is user space whose address was not
 * recorded, never address 0: it is printed as USER_CLEARED_TEXT, not
 * named, decoded or counted as an address. A 0 without the flag (bts_user
 * on) is a real address, and a non-zero half is never taken for cleared.
 */
#define USER_CLEARED_TEXT	"[user]"
/* After an address the console text named ambiguously (struct bts_dump's doubt). */
#define AMBIGUOUS_TEXT		"(ambiguous)"

#define BTS_DOUBT_FROM	1
#define BTS_DOUBT_TO	2

static inline bool rec_from_cleared(const struct bts_rec *rec)
{
	return (rec->flags & BTS_FLAG_USER_CLEARED) && !rec->from;
}

static inline bool rec_to_cleared(const struct bts_rec *rec)
{
	return (rec->flags & BTS_FLAG_USER_CLEARED) && !rec->to;
}

/**
 * struct bts_dump - one validated dump
 * @path:	where it was read from (for messages)
 * @records:	@count records, oldest first, host byte order
 *
 * The other fields are the header's, checked against the file size.
 */
struct bts_dump {
	char *path;
	unsigned int version;
	unsigned int header_size;
	unsigned int record_size;
	unsigned int source;
	uint32_t cpu;
	uint32_t count;
	uint32_t capacity;
	uint32_t flags;
	uint32_t reason;
	uint32_t fault_index;
	uint64_t timestamp_ns;
	uint64_t stext;
	uint64_t kaslr_offset;
	uint64_t lost;
	char source_name[17];
	char release[65];
	uint8_t build_id[BTS_BUILD_ID_MAX];
	uint32_t build_id_size;	/* 0: not recorded (older kernels) */
	uint64_t etext;		/* runtime _etext, 0: not recorded */
	struct bts_rec *records;
	void *map;		/* file mapping the records live in, or NULL */
	size_t map_len;
	/* Histories rebuilt from trace.dat or console text, not a dump file: */
	const char *origin;	/* "trace.dat", "console"; NULL for a dump */
	uint32_t missing;	/* records of the history that did not arrive */
	bool header;		/* console: a bts_history line gave the header fields */
	/*
	 * Console text: by record, BTS_DOUBT_FROM/TO where the line named a
	 * static function that exists more than once with that size and did
	 * not say which (NULL: none). @ndoubts addresses in @ndoubtful records.
	 */
	uint8_t *doubt;
	uint32_t ndoubts, ndoubtful;
	size_t seq;		/* order of reading, to keep it within a CPU */
	/* A stream (trace.dat, stream mode): the records of one CPU, with its losses. */
	bool stream;
	struct bts_gap_mark *gaps;	/* by index, ascending */
	uint32_t ngaps;
	uint64_t lost_known;		/* records bts_gap entries counted */
	uint64_t lost_unseen;		/* records pos jumps without bts_gap skipped */
};

/* BTS_DOUBT_FROM/TO of record @i: its address there may be another copy's. */
static inline unsigned int rec_doubt(const struct bts_dump *d, uint32_t i)
{
	return d->doubt ? d->doubt[i] : 0;
}

/* A growing array of dumps. */
struct dump_list {
	struct bts_dump *d;
	size_t n, cap;
};

/* A new zeroed dump at the end of @list (the array may move). */
struct bts_dump *dump_list_add(struct dump_list *list);

/**
 * bts_dump_parse() - validate and decode a dump held in memory
 * @buf, @len:	the file's bytes
 * @d:		filled on success; free with bts_dump_free()
 * @err, @errlen: on failure, "offset N: what is wrong" (one line)
 *
 * Return: 0, or -1 with @err set. Never reads outside @buf.
 */
int bts_dump_parse(const uint8_t *buf, size_t len, struct bts_dump *d,
		   char *err, size_t errlen);

/*
 * bts_dump_check_header() - validate a header alone, as bts_dump_parse()
 * does, for a dump of @len bytes of which the first @avail are in @buf
 * (at least BTS_V1_HEADER_SIZE). Fills @d but not its records.
 */
int bts_dump_check_header(const uint8_t *buf, size_t avail, size_t len, struct bts_dump *d,
			  char *err, size_t errlen);

/* Read and parse @path; prints "bts-dump: PATH: offset N: ..." on error. */
int bts_dump_load(const char *path, struct bts_dump *d);

void bts_dump_free(struct bts_dump *d);

const char *bts_reason_name(uint32_t reason);
const char *bts_source_label(const struct bts_dump *d);

#endif /* BTS_DUMP_DUMP_H */
