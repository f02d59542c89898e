// SPDX-License-Identifier: GPL-2.0
/*
 * bts-dump (decoder layer): histories from a trace.dat. See tracedat.h.
 *
 * The tracer writes one ftrace:bts entry per record, a history at a time,
 * oldest first, on the ring buffer of the CPU that writes it: pos runs
 * 0..nr-1, cpu says whose history it is and reason why it was written.
 * Reading each ring-buffer CPU in order and starting a new history where
 * pos restarts (or cpu, nr or reason change) gives the histories back;
 * entries that never arrived (an overrun ring buffer, a cut file) show as
 * gaps in pos and are counted, not invented.
 * bts-series: from dump-tracedat-stream
 *
 * Stream mode writes entries with nr 0 and reason 6 as records are made:
 * pos counts a CPU's records since arming (mod 2^32), and an
 * ftrace:bts_gap entry {lost, cpu} comes before the next record after
 * records the ring buffer refused. Each ring-buffer CPU's stream entries,
 * whatever histories come between them, make one stream with its losses
 * marked where they happened: counted by bts_gap, or a pos jump without
 * one (the ring buffer overwrote them, or they were never read).
 * bts-series: end
 */
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef HAVE_LIBTRACECMD
#include <trace-cmd.h>
#endif

#include "symtab.h"
#include "tracedat.h"
#include "util.h"

static const uint8_t tracedat_magic_bytes[10] = {
	0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'
};

bool tracedat_magic(const uint8_t *buf, size_t len)
{
	return len >= sizeof(tracedat_magic_bytes) &&
	       !memcmp(buf, tracedat_magic_bytes, sizeof(tracedat_magic_bytes));
}

size_t tracedat_child_crashes;

#ifndef HAVE_LIBTRACECMD
/* Built without libtracecmd: a trace.dat is one line, the rest reads on. */
const bool tracedat_supported;	/* false: built without libtracecmd */

int tracedat_load(const char *path, int fd, struct dump_list *list, struct symtab *st)
{
	(void)fd;
	(void)list;
	(void)st;
	return error_msg("%s: trace.dat input needs bts-dump built with libtracecmd (install libtracecmd-dev and rebuild)",
			 path);
}
#else
const bool tracedat_supported = true;

/* Where a field of the ftrace:bts entry is, checked against its type. */
struct field {
	int offset, size;
};

struct bts_fields {
	int id;
	struct field from, to, flags, cpu, pos, nr, reason;
/* bts-series: from dump-tracedat-stream */
	int gap_id;			/* ftrace:bts_gap, or -1: not in the file */
	struct field gap_lost, gap_cpu;
/* bts-series: end */
};

static int find_field(struct tep_event *ev, const char *name, int size, struct field *f)
{
	struct tep_format_field *ff = tep_find_field(ev, name);

	if (!ff || ff->size != size || ff->offset < 0)
		return -1;
	f->offset = ff->offset;
	f->size = ff->size;
	return 0;
}

/* Whether fields can be read as host numbers (a little-endian file here). */
static bool native;

static uint64_t get(struct tep_handle *tep, const struct tep_record *rec, const struct field *f)
{
	const uint8_t *p = (const uint8_t *)rec->data + f->offset;

	if (native)
		return f->size == 8 ? get_le64(p) : f->size == 4 ? get_le32(p) : get_le16(p);
	return tep_read_number(tep, p, f->size);
}

/*
 * The reading runs in a child process that sends what it found through a
 * pipe. libtracecmd 1.3.1 crashes in tracecmd_close() after a failed
 * tracecmd_init_data() (any trace.dat cut short: its cpu_data is zeroed,
 * so it closes fd 0 and follows a NULL list), prints to stdout, and
 * parses pages of untrusted data: a crash there must be a one-line
 * error, not ours. Messages, in host order:
 *   'S' u64 addr, u16 len, name          a kallsyms symbol
 *   'T' u64 addr                         _stext
 *   'D' u32 cpu, nr, reason, missing, count, u8 sw, u64 ts, then count x
 *       {u64 from, to, flags}            one history
 * bts-series: from dump-tracedat-stream
 *   'G' u32 cpu, count, ngaps, u8 sw, u64 ts, lost_known, lost_unseen,
 *       then count x {u64 from, to, flags}, ngaps x struct bts_gap_mark
 *                                        one CPU's stream
 * bts-series: end
 *   'W' / 'E' u16 len, text              a warning / the error
 *   'Z'                                  the end
 */

/* Buffered writes to the pipe. */
struct wbuf {
	int fd;
	bool failed;
	size_t len;
	uint8_t buf[1 << 16];
};

static void wflush(struct wbuf *w)
{
	size_t done = 0;

	while (done < w->len && !w->failed) {
		ssize_t r = write(w->fd, w->buf + done, w->len - done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			w->failed = true;
		else
			done += (size_t)r;
	}
	w->len = 0;
}

static void wput(struct wbuf *w, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n) {
		size_t k;

		if (w->len == sizeof(w->buf))
			wflush(w);
		k = sizeof(w->buf) - w->len < n ? sizeof(w->buf) - w->len : n;
		memcpy(w->buf + w->len, b, k);
		w->len += k;
		b += k;
		n -= k;
	}
}

static void wmsg(struct wbuf *w, char type, const char *text)
{
	uint16_t n = (uint16_t)(strlen(text) > 4000 ? 4000 : strlen(text));

	wput(w, &type, 1);
	wput(w, &n, 2);
	wput(w, text, n);
}

/* One history being put together from the entries of one ring-buffer CPU. */
struct building {
	bool open;
	uint32_t cpu, nr, reason, next_pos, missing;
	uint64_t ts;
	struct bts_rec *recs;
	size_t n, cap;
};

static void finish(struct building *b, struct wbuf *w)
{
	uint32_t hdr[5];
	uint8_t sw = 0;

	if (!b->open)
		return;
	b->open = false;
	if (b->next_pos < b->nr)
		b->missing += b->nr - b->next_pos;	/* the tail never came */
	for (size_t i = 0; i < b->n && !sw; i++)
		sw = !!(b->recs[i].flags & BTS_FLAG_SW);
	hdr[0] = b->cpu;
	hdr[1] = b->nr;
	hdr[2] = b->reason;
	hdr[3] = b->missing;
	hdr[4] = (uint32_t)b->n;
	wput(w, "D", 1);
	wput(w, hdr, sizeof(hdr));
	wput(w, &sw, 1);
	wput(w, &b->ts, 8);
	wput(w, b->recs, b->n * sizeof(*b->recs));
	b->n = 0;
}

static void add(struct building *b, uint64_t from, uint64_t to, uint64_t flags)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 256;
		b->recs = xrealloc(b->recs, b->cap * sizeof(*b->recs));
	}
	b->recs[b->n++] = (struct bts_rec){ from, to, flags };
}

/* bts-series: from dump-tracedat-stream */
/* One CPU's stream being put together; see the top of the file. */
struct stream {
	bool open, started;
	uint32_t cpu, next_pos;
	uint64_t pending;		/* lost by bts_gap entries, not yet placed */
	uint64_t ts, lost_known, lost_unseen;
	struct bts_rec *recs;
	size_t n, cap;
	struct bts_gap_mark *gaps;
	size_t ngaps, gcap;
};

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static void stream_gap(struct stream *s, enum bts_gap_kind kind, uint64_t lost, uint32_t pos)
{
	if (s->ngaps == s->gcap) {
		s->gcap = s->gcap ? s->gcap * 2 : 16;
		s->gaps = xrealloc(s->gaps, s->gcap * sizeof(*s->gaps));
	}
	s->gaps[s->ngaps++] = (struct bts_gap_mark){ .index = (uint32_t)s->n, .kind = kind,
						      .lost = lost, .pos = pos };
	if (kind == BTS_GAP_KNOWN)
		s->lost_known = sat_add(s->lost_known, lost);
	else
		s->lost_unseen = sat_add(s->lost_unseen, lost);
}

static void stream_finish(struct stream *s, struct wbuf *w)
{
	uint32_t hdr[3];
	uint64_t v[3];
	uint8_t sw = 0;

	if (!s->open)
		return;
	/* Lost after the last record that came: at the end. */
	if (s->pending) {
		stream_gap(s, BTS_GAP_KNOWN, s->pending, s->next_pos);
		s->pending = 0;
	}
	for (size_t i = 0; i < s->n && !sw; i++)
		sw = !!(s->recs[i].flags & BTS_FLAG_SW);
	hdr[0] = s->cpu;
	hdr[1] = (uint32_t)s->n;
	hdr[2] = (uint32_t)s->ngaps;
	v[0] = s->ts;
	v[1] = s->lost_known;
	v[2] = s->lost_unseen;
	wput(w, "G", 1);
	wput(w, hdr, sizeof(hdr));
	wput(w, &sw, 1);
	wput(w, v, sizeof(v));
	wput(w, s->recs, s->n * sizeof(*s->recs));
	wput(w, s->gaps, s->ngaps * sizeof(*s->gaps));
	s->open = false;
	s->n = 0;
	s->ngaps = 0;
	s->lost_known = 0;
	s->lost_unseen = 0;
}

/* Counts of odd stream entries, for one warning each. */
struct stream_odd {
	size_t backwards, mismatch, wrong_cpu, gap_wrong_cpu, gaps;
};

/* A bts_gap entry on ring-buffer CPU @c: @lost records before the next. */
static void stream_lost(struct stream *s, uint32_t c, uint64_t lost, uint64_t ts)
{
	if (!s->open) {
		*s = (struct stream){ .open = true, .cpu = c, .ts = ts, .recs = s->recs,
				      .cap = s->cap, .gaps = s->gaps, .gcap = s->gcap };
	}
	s->pending = sat_add(s->pending, lost);
}

/* A stream entry with sequence number @pos on ring-buffer CPU @c. */
static void stream_add(struct stream *s, struct stream_odd *odd, struct wbuf *w, uint32_t c,
		       uint32_t pos, uint64_t ts, const struct bts_rec *rec)
{
	if (!s->open)
		*s = (struct stream){ .open = true, .cpu = c, .ts = ts, .recs = s->recs,
				      .cap = s->cap, .gaps = s->gaps, .gcap = s->gcap };
	if (s->n >= UINT32_MAX - 1) {
		/* More than a history can count: go on in another. */
		stream_finish(s, w);
		*s = (struct stream){ .open = true, .started = true, .cpu = c, .ts = ts,
				      .next_pos = pos, .recs = s->recs, .cap = s->cap,
				      .gaps = s->gaps, .gcap = s->gcap };
	}
	if (!s->started) {
		/* pos counts from arming: a first pos of N is N records before it. */
		uint32_t known = s->pending > pos ? pos : (uint32_t)s->pending;

		if (s->pending)
			stream_gap(s, BTS_GAP_KNOWN, s->pending, pos);
		if (pos > known)
			stream_gap(s, BTS_GAP_UNSEEN, pos - known, pos);
	} else {
		uint32_t jump = pos - s->next_pos;	/* mod 2^32: a wrap is no loss */

		if (s->pending)
			stream_gap(s, BTS_GAP_KNOWN, s->pending, pos);
		if (s->pending && (uint32_t)s->pending == jump) {
			/* as bts_gap said */
		} else if (jump >= 1U << 31) {
			/* Back: no count can be known; a new stream from here. */
			odd->backwards++;
			stream_gap(s, BTS_GAP_BACKWARDS, 0, pos);
		} else if (s->pending > jump) {
			odd->mismatch++;	/* bts_gap said more than pos shows */
		} else if (jump > s->pending) {
			stream_gap(s, BTS_GAP_UNSEEN, jump - s->pending, pos);
		}
	}
	s->pending = 0;
	s->started = true;
	s->next_pos = pos + 1;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 256;
		s->recs = xrealloc(s->recs, s->cap * sizeof(*s->recs));
	}
	s->recs[s->n++] = *rec;
}
/* bts-series: end */

/*
 * The kallsyms the trace.dat saved, as libtraceevent holds it: there is
 * no call that lists it, so walk it from one known address down and up,
 * one function to the next (tep_find_function_info() gives each start
 * and size). Types are not kept there: every symbol is taken as text.
 */
static size_t send_symbols(struct tep_handle *tep, uint64_t seed, struct wbuf *w)
{
	unsigned long long start, a;
	unsigned long size;
	const char *name;
	size_t n = 0, limit = (size_t)tep_get_function_count(tep) + 1;

	if (!tep_find_function_info(tep, seed, &name, &start, &size))
		return 0;
	/* Down to the lowest symbol... */
	for (a = start; n < limit && a > 0 &&
	     tep_find_function_info(tep, a - 1, &name, &start, &size) && start < a; n++)
		a = start;
	/* ...then up, sending each. */
	for (n = 0; n < limit && tep_find_function_info(tep, a, &name, &start, &size); n++) {
		uint16_t len;
		uint64_t addr;

		/* Aliases share an address; the last of them has the size. */
		if (!size && !tep_find_function_info(tep, start + 1, &name, &start, &size))
			break;
		len = (uint16_t)(strlen(name) > 1024 ? 1024 : strlen(name));
		addr = start;

		wput(w, "S", 1);
		wput(w, &addr, 8);
		wput(w, &len, 2);
		wput(w, name, len);
		/* x86-64: _text, _stext and startup_64 share the address. */
		if (!strcmp(name, "_stext") || !strcmp(name, "_text") ||
		    !strcmp(name, "startup_64")) {
			wput(w, "T", 1);
			wput(w, &addr, 8);
		}
		if (!size || start + size <= a)
			break;
		a = start + size;
	}
	return n;
}

/* The child: read the trace.dat on @fd, send what it holds on @w. */
static int read_tracedat(int fd, bool want_syms, struct wbuf *w)
{
	struct building *b = NULL;
/* bts-series: from dump-tracedat-stream */
	struct stream *sm = NULL;
	struct stream_odd odd = { 0 };
/* bts-series: end */
	struct tracecmd_input *h;
	struct tep_handle *tep;
	struct tep_event *ev;
	struct bts_fields f = { 0 };
/* bts-series: until dump-tracedat-stream */
//~	size_t entries = 0, other = 0, bad = 0;
/* bts-series: end */
/* bts-series: from dump-tracedat-stream */
	size_t entries = 0, other = 0, bad = 0, streamed = 0, nr0 = 0;
	uint32_t nr0_reason = 0;
/* bts-series: end */
	uint64_t seed = 0;
	char msg[256];
	int cpus;

	tracecmd_set_loglevel(TEP_LOG_NONE);
	h = tracecmd_open_fd(fd, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!h) {
		wmsg(w, 'E', "not a trace.dat libtracecmd can read (damaged or cut short?)");
		return 1;
	}
	tep = tracecmd_get_tep(h);
	ev = tep ? tep_find_event_by_name(tep, "ftrace", "bts") : NULL;
	if (!ev) {
		wmsg(w, 'E', "no ftrace:bts event format in it (recorded on a kernel without the bts tracer?)");
		return 1;
	}
	f.id = ev->id;
	if (find_field(ev, "from", tep_get_long_size(tep), &f.from) ||
	    find_field(ev, "to", tep_get_long_size(tep), &f.to) ||
	    find_field(ev, "flags", tep_get_long_size(tep), &f.flags) ||
	    find_field(ev, "cpu", 4, &f.cpu) || find_field(ev, "pos", 4, &f.pos) ||
	    find_field(ev, "nr", 4, &f.nr) || find_field(ev, "reason", 4, &f.reason)) {
		wmsg(w, 'E', "its ftrace:bts format lacks from, to, flags, cpu, pos, nr or reason (see Documentation/trace/bts.rst)");
		return 1;
	}
/* bts-series: from dump-tracedat-stream */
	/* Kernels before stream mode have no ftrace:bts_gap: losses are then pos jumps. */
	ev = tep_find_event_by_name(tep, "ftrace", "bts_gap");
	f.gap_id = -1;
	if (ev) {
		if (find_field(ev, "lost", tep_get_long_size(tep), &f.gap_lost) ||
		    find_field(ev, "cpu", 4, &f.gap_cpu))
			wmsg(w, 'W', "its ftrace:bts_gap format lacks lost or cpu: bts_gap entries are not read, losses show as pos jumps");
		else
			f.gap_id = ev->id;
	}
/* bts-series: end */
	native = !tep_is_file_bigendian(tep) && !tep_is_local_bigendian(tep);
	cpus = tep_get_cpus(tep);
/* bts-series: until dump-tracedat-stream */
//~	if (cpus > 0)
//~		b = xcalloc((size_t)cpus, sizeof(*b));
/* bts-series: end */
/* bts-series: from dump-tracedat-stream */
	if (cpus > 0) {
		b = xcalloc((size_t)cpus, sizeof(*b));
		sm = xcalloc((size_t)cpus, sizeof(*sm));
	}
/* bts-series: end */
	for (int c = 0; c < cpus && !w->failed; c++) {
		struct tep_record *rec;

		while ((rec = tracecmd_read_data(h, c))) {
			uint32_t hcpu, pos, nr, reason;

/* bts-series: from dump-tracedat-stream */
			if (f.gap_id >= 0 && tep_data_type(tep, rec) == f.gap_id) {
				if (rec->size < f.gap_lost.offset + f.gap_lost.size ||
				    rec->size < f.gap_cpu.offset + 4) {
					bad++;
				} else {
					if ((uint32_t)get(tep, rec, &f.gap_cpu) != (uint32_t)c)
						odd.gap_wrong_cpu++;
					stream_lost(&sm[c], (uint32_t)c, get(tep, rec, &f.gap_lost),
						    rec->ts);
					odd.gaps++;
				}
				tracecmd_free_record(rec);
				continue;
			}
/* bts-series: end */
			if (tep_data_type(tep, rec) != f.id) {
				other++;
				tracecmd_free_record(rec);
				continue;
			}
			if (rec->size < f.reason.offset + 4 ||
			    rec->size < f.flags.offset + f.flags.size ||
			    rec->size < f.to.offset + f.to.size ||
			    rec->size < f.from.offset + f.from.size ||
			    rec->size < f.cpu.offset + 4 || rec->size < f.pos.offset + 4 ||
			    rec->size < f.nr.offset + 4) {
				bad++;
				tracecmd_free_record(rec);
				continue;
			}
			hcpu = (uint32_t)get(tep, rec, &f.cpu);
			pos = (uint32_t)get(tep, rec, &f.pos);
			nr = (uint32_t)get(tep, rec, &f.nr);
			reason = (uint32_t)get(tep, rec, &f.reason);
/* bts-series: from dump-tracedat-stream */
			if (nr == 0 && reason == BTS_REASON_STREAM) {
				struct bts_rec one = { get(tep, rec, &f.from), get(tep, rec, &f.to),
						       get(tep, rec, &f.flags) };

				/* Recorded on the CPU whose ring buffer holds it, always. */
				if (hcpu != (uint32_t)c) {
					odd.wrong_cpu++;
				} else {
					stream_add(&sm[c], &odd, w, (uint32_t)c, pos, rec->ts,
						   &one);
					if (!seed && (one.to >> 63))
						seed = one.to;
					entries++;
					streamed++;
				}
				tracecmd_free_record(rec);
				continue;
			}
			if (nr == 0) {
				nr0++;
				nr0_reason = reason;
				tracecmd_free_record(rec);
				continue;
			}
/* bts-series: end */
			if (pos >= nr) {
				bad++;
				tracecmd_free_record(rec);
				continue;
			}
			if (!b[c].open || pos < b[c].next_pos || hcpu != b[c].cpu ||
			    nr != b[c].nr || reason != b[c].reason) {
				finish(&b[c], w);
				b[c] = (struct building){ .open = true, .cpu = hcpu, .nr = nr,
							  .reason = reason, .ts = rec->ts,
							  .recs = b[c].recs, .cap = b[c].cap };
			}
			if (pos > b[c].next_pos)
				b[c].missing += pos - b[c].next_pos;
			b[c].next_pos = pos + 1;
			add(&b[c], get(tep, rec, &f.from), get(tep, rec, &f.to),
			    get(tep, rec, &f.flags));
			if (!seed && (b[c].recs[b[c].n - 1].to >> 63))
				seed = b[c].recs[b[c].n - 1].to;
			entries++;
			tracecmd_free_record(rec);
		}
		finish(&b[c], w);
/* bts-series: from dump-tracedat-stream */
		if (sm[c].open)
			stream_finish(&sm[c], w);
/* bts-series: end */
	}
/* bts-series: until dump-tracedat-stream */
//~	for (int c = 0; c < cpus; c++)
//~		free(b[c].recs);
/* bts-series: end */
/* bts-series: from dump-tracedat-stream */
	for (int c = 0; c < cpus; c++) {
		free(b[c].recs);
		free(sm[c].recs);
		free(sm[c].gaps);
	}
/* bts-series: end */
	free(b);
/* bts-series: from dump-tracedat-stream */
	free(sm);
	if (streamed && f.gap_id < 0 && !ev)
		wmsg(w, 'W', "stream entries but no ftrace:bts_gap event format (an older kernel?): every loss shows as a pos jump");
	if (odd.backwards) {
		snprintf(msg, sizeof(msg), "%zu times a stream's pos went back (re-armed, or a damaged file): marked, count of records lost there unknown",
			 odd.backwards);
		wmsg(w, 'W', msg);
	}
	if (odd.mismatch) {
		snprintf(msg, sizeof(msg), "%zu bts_gap entries count more records lost than the stream's pos skips: their count is shown",
			 odd.mismatch);
		wmsg(w, 'W', msg);
	}
	if (odd.wrong_cpu) {
		snprintf(msg, sizeof(msg), "%zu stream entries name a CPU other than the ring buffer's they are on; skipped them",
			 odd.wrong_cpu);
		wmsg(w, 'W', msg);
	}
	if (odd.gap_wrong_cpu) {
		snprintf(msg, sizeof(msg), "%zu bts_gap entries name a CPU other than the ring buffer's they are on; counted for the ring buffer's",
			 odd.gap_wrong_cpu);
		wmsg(w, 'W', msg);
	}
	if (nr0) {
		snprintf(msg, sizeof(msg), "%zu ftrace:bts entries with nr 0 and a reason other than %d (stream), e.g. %u: malformed, skipped them",
			 nr0, BTS_REASON_STREAM, nr0_reason);
		wmsg(w, 'W', msg);
	}
/* bts-series: end */
	if (seed && send_symbols(tep, seed, w) == 0 && want_syms)
		wmsg(w, 'W', "it saved no kallsyms: give -s or -k for symbols");
	if (bad) {
		snprintf(msg, sizeof(msg), "%zu ftrace:bts entries with pos >= nr or too short; skipped them",
			 bad);
		wmsg(w, 'W', msg);
	}
/* bts-series: until dump-tracedat-stream */
//~	if (!entries) {
//~		snprintf(msg, sizeof(msg), "no ftrace:bts entries (%zu other entries): was a dump written while it recorded?",
/* bts-series: end */
/* bts-series: from dump-tracedat-stream */
	if (!entries && !odd.gaps) {
		snprintf(msg, sizeof(msg), "no ftrace:bts entries (%zu other entries): was a dump written, or stream mode on, while it recorded?",
/* bts-series: end */
			 other);
		wmsg(w, 'E', msg);
		return 1;
	}
	wput(w, "Z", 1);
	return 0;
}

/* Buffered reads from the pipe; false at the end or on a short message. */
struct rbuf {
	int fd;
	size_t pos, len;
	uint8_t buf[1 << 16];
};

static bool rget(struct rbuf *r, void *p, size_t n)
{
	uint8_t *o = p;

	while (n) {
		size_t k;

		if (r->pos == r->len) {
			ssize_t got = read(r->fd, r->buf, sizeof(r->buf));

			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0)
				return false;
			r->pos = 0;
			r->len = (size_t)got;
		}
		k = r->len - r->pos < n ? r->len - r->pos : n;
		memcpy(o, r->buf + r->pos, k);
		r->pos += k;
		o += k;
		n -= k;
	}
	return true;
}

/* The parent: turn the child's messages into dumps and symbols. */
static int receive(const char *path, struct rbuf *r, struct dump_list *list, struct symtab *st,
		   size_t first, bool *ended)
{
	char text[4096 + 1];
	uint64_t stext = 0;
	int ret = 0;
	char type;

	while (rget(r, &type, 1)) {
		if (type == 'Z') {
			*ended = true;
			break;
		} else if (type == 'S') {
			uint64_t addr;
			uint16_t len;

			if (!rget(r, &addr, 8) || !rget(r, &len, 2) || len > 1024 ||
			    !rget(r, text, len))
				break;
			if (st)
				symtab_add(st, addr, 0, 'T', text, len, NULL, 0);
		} else if (type == 'T') {
			if (!rget(r, &stext, 8))
				break;
		} else if (type == 'W' || type == 'E') {
			uint16_t len;

			if (!rget(r, &len, 2) || len > 4096 || !rget(r, text, len))
				break;
			text[len] = '\0';
			if (type == 'W') {
				warn_msg("%s: %s", path, text);
			} else {
				error_msg("%s: %s", path, text);
				ret = -1;
			}
		} else if (type == 'D') {
			uint32_t hdr[5];
			uint64_t ts;
			uint8_t sw;
			struct bts_dump *d;

			if (!rget(r, hdr, sizeof(hdr)) || !rget(r, &sw, 1) || !rget(r, &ts, 8))
				break;
			d = dump_list_add(list);
			d->records = hdr[4] ? xmalloc((size_t)hdr[4] * sizeof(*d->records)) : NULL;
			if (hdr[4] && !rget(r, d->records, (size_t)hdr[4] * sizeof(*d->records))) {
				free(d->records);
				list->n--;
				break;
			}
			d->path = xstrdup(path);
			d->origin = "trace.dat";
			d->version = BTS_VERSION;
			d->header_size = BTS_V1_HEADER_SIZE;
			d->record_size = BTS_V1_RECORD_SIZE;
			d->cpu = hdr[0];
			d->count = hdr[4];
			d->capacity = hdr[1] > d->count ? hdr[1] : d->count;
			d->reason = hdr[2];
			d->flags = hdr[2] ? BTS_DUMP_CAPTURE : 0;
			d->fault_index = BTS_NO_FAULT;
			d->missing = hdr[3];
			d->timestamp_ns = ts;
			d->source = sw ? BTS_SOURCE_SW : BTS_SOURCE_HW;
			snprintf(d->source_name, sizeof(d->source_name), "%s",
				 sw ? "sw" : "intel_bts");
/* bts-series: from dump-tracedat-stream */
		} else if (type == 'G') {
			uint32_t hdr[3];
			uint64_t v[3];
			uint8_t sw;
			struct bts_dump *d;

			if (!rget(r, hdr, sizeof(hdr)) || !rget(r, &sw, 1) ||
			    !rget(r, v, sizeof(v)))
				break;
			d = dump_list_add(list);
			d->records = hdr[1] ? xmalloc((size_t)hdr[1] * sizeof(*d->records)) : NULL;
			d->gaps = hdr[2] ? xmalloc((size_t)hdr[2] * sizeof(*d->gaps)) : NULL;
			if ((hdr[1] &&
			     !rget(r, d->records, (size_t)hdr[1] * sizeof(*d->records))) ||
			    (hdr[2] && !rget(r, d->gaps, (size_t)hdr[2] * sizeof(*d->gaps)))) {
				free(d->records);
				free(d->gaps);
				list->n--;
				break;
			}
			d->path = xstrdup(path);
			d->origin = "trace.dat";
			d->version = BTS_VERSION;
			d->header_size = BTS_V1_HEADER_SIZE;
			d->record_size = BTS_V1_RECORD_SIZE;
			d->cpu = hdr[0];
			d->count = hdr[1];
			d->capacity = hdr[1];
			d->ngaps = hdr[2];
			d->reason = BTS_REASON_STREAM;
			d->fault_index = BTS_NO_FAULT;
			d->timestamp_ns = v[0];
			d->stream = true;
			d->lost_known = v[1];
			d->lost_unseen = v[2];
			d->source = sw ? BTS_SOURCE_SW : BTS_SOURCE_HW;
			snprintf(d->source_name, sizeof(d->source_name), "%s",
				 sw ? "sw" : "intel_bts");
			/* Where the walk looks: in order, at or before the end. */
			for (uint32_t i = 0; i < d->ngaps; i++)
				if (d->gaps[i].index > d->count ||
				    (i && d->gaps[i].index < d->gaps[i - 1].index))
					d->gaps[i].index = d->count;
/* bts-series: end */
		} else {
			break;
		}
	}
	/* _stext as the traced kernel ran: the KASLR offset for a System.map or vmlinux. */
	for (size_t i = first; i < list->n; i++)
		list->d[i].stext = stext;
	return ret;
}

int tracedat_load(const char *path, int fd, struct dump_list *list, struct symtab *st)
{
	size_t first = list->n;
	bool ended = false;
	struct rbuf *r;
	int pfd[2], status, ret;
	pid_t pid;

	struct stat sb;
	unsigned int limit = 60;

	if (!fstat(fd, &sb) && sb.st_size > 0)
		limit += (unsigned int)(sb.st_size / (10 << 20) < 86400 ?
					sb.st_size / (10 << 20) : 86400);
	if (pipe(pfd))
		return error_msg("%s: pipe: %s", path, strerror(errno));
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return error_msg("%s: fork: %s", path, strerror(errno));
	}
	if (pid == 0) {
		static struct wbuf w;
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		close(pfd[0]);
		/*
		 * A crash here is the message: no sanitizer or fuzzer handler
		 * (inherited) is to turn it into an exit status or a report.
		 */
		signal(SIGSEGV, SIG_DFL);
		signal(SIGBUS, SIG_DFL);
		signal(SIGILL, SIG_DFL);
		signal(SIGFPE, SIG_DFL);
		signal(SIGABRT, SIG_DFL);
		/* Nor a loop: a minute, and a second more per 10 MB of file. */
		signal(SIGALRM, SIG_DFL);
		alarm(limit);
		/* libtracecmd prints to stdout and stderr; only our messages count. */
		if (null >= 0) {
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		w.fd = pfd[1];
		/* libtracecmd reads from the descriptor's offset: the start. */
		if (lseek(fd, 0, SEEK_SET) != 0) {
			wmsg(&w, 'E', "cannot seek to its start");
			ret = 1;
		} else {
			ret = read_tracedat(fd, st, &w);
		}
		wflush(&w);
		_exit(ret);
	}
	close(pfd[1]);
	r = xmalloc(sizeof(*r));
	r->fd = pfd[0];
	r->pos = 0;
	r->len = 0;
	ret = receive(path, r, list, st, first, &ended);
	free(r);
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
		return error_msg("%s: libtracecmd did not finish reading it in %u s: a damaged trace.dat?",
				 path, limit);
	if (WIFSIGNALED(status)) {
		tracedat_child_crashes++;
		if (list->n > first)
			return error_msg("%s: libtracecmd crashed reading it (signal %d): damaged or cut short? (the %zu histories before are shown)",
					 path, WTERMSIG(status), list->n - first);
		return error_msg("%s: libtracecmd crashed reading it (signal %d): damaged or cut short?",
				 path, WTERMSIG(status));
	}
	if (!ended && !ret)
		return error_msg("%s: reading it stopped early (exit %d)", path,
				 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return ret;
}
#endif /* HAVE_LIBTRACECMD */
