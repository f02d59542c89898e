// SPDX-License-Identifier: GPL-2.0
/*
 * bts-dump (decoder layer): the kept fault capture in a kdump crash dump.
 * See vmcore.h.
 *
 * The core is read with libelf for its headers and notes, and with pread()
 * for the few pages of physical memory wanted: the table, its written
 * slots, and the page frames of their records. Physical memory is where a
 * PT_LOAD segment says (p_paddr, p_offset, p_filesz); bytes past p_filesz
 * (up to p_memsz) are not in the file (makedumpfile excluded them). Every
 * field read is checked before it is used; each slot's dump header with
 * the code that checks a dump file's (dump.c), and its records are then
 * parsed exactly as that capture file would be.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vmcore.h"
#include "util.h"

#define MAX_NOTES	(16u << 20)	/* bytes of one PT_NOTE segment */
#define MAX_PHDRS	(1u << 20)
#define MAX_PART	4096		/* table_size, slot_size */
#define MAX_SLOTS	8192
#define MIN_PAGE	4096
#define MAX_PAGE	65536

struct seg {
	uint64_t paddr, offset, filesz, memsz;
};

struct core {
	const char *path;
	int fd;
	uint64_t size;		/* of the file */
	struct seg *segs;	/* PT_LOAD */
	size_t nsegs;
};

/* What VMCOREINFO says (has_*: the key was there). */
struct vmcoreinfo {
	bool has_table, has_koff, has_release, has_build_id;
	uint64_t table, koff, page_size;
	char release[65];
	char build_id[2 * BTS_BUILD_ID_MAX + 1];
};

static bool parse_hex(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;

	if (!n || n > 16)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		unsigned int d;

		if (c >= '0' && c <= '9')
			d = (unsigned int)(c - '0');
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			d = (unsigned int)((c | 0x20) - 'a' + 10);
		else
			return false;
		x = x << 4 | d;
	}
	*v = x;
	return true;
}

/*
 * Read [@paddr, @paddr + @len) of the crashed kernel's physical memory,
 * for @what (named in the error).
 */
static int read_phys(struct core *c, uint64_t paddr, void *buf, size_t len, const char *what)
{
	uint8_t *p = buf;
	uint64_t end;

	if (__builtin_add_overflow(paddr, (uint64_t)len, &end))
		return error_msg("%s: %s: physical 0x%llx + %zu is past the end of the address space",
				 c->path, what, (unsigned long long)paddr, len);
	while (len) {
		const struct seg *s = NULL;
		uint64_t in, off;
		size_t n;
		ssize_t got;

		for (size_t i = 0; i < c->nsegs && !s; i++)
			if (paddr >= c->segs[i].paddr &&
			    paddr - c->segs[i].paddr < c->segs[i].memsz)
				s = &c->segs[i];
		if (!s)
			return error_msg("%s: %s: physical address 0x%llx is in no PT_LOAD segment of the dump",
					 c->path, what, (unsigned long long)paddr);
		in = paddr - s->paddr;
		if (in >= s->filesz)
			return error_msg("%s: %s: physical address 0x%llx is not in the dump: its PT_LOAD segment (physical 0x%llx, %llu bytes) has only its first %llu in the file (pages excluded by makedumpfile?)",
					 c->path, what, (unsigned long long)paddr,
					 (unsigned long long)s->paddr, (unsigned long long)s->memsz,
					 (unsigned long long)s->filesz);
		n = s->filesz - in < len ? (size_t)(s->filesz - in) : len;
		if (__builtin_add_overflow(s->offset, in, &off) || off > c->size ||
		    c->size - off < n)
			return error_msg("%s: %s: physical address 0x%llx is at file offset %llu, past the end of the file (%llu bytes): truncated?",
					 c->path, what, (unsigned long long)paddr,
					 (unsigned long long)(s->offset + in),
					 (unsigned long long)c->size);
		got = read_full(c->fd, off, p, n);
		if (got < 0)
			return error_msg("%s: %s: reading physical address 0x%llx at file offset %llu: %s",
					 c->path, what, (unsigned long long)paddr,
					 (unsigned long long)off, strerror(errno));
		if ((size_t)got != n)
			return error_msg("%s: %s: physical address 0x%llx: file offset %llu is past the end of the file: truncated?",
					 c->path, what, (unsigned long long)(paddr + (uint64_t)got),
					 (unsigned long long)(off + (uint64_t)got));
		p += n;
		paddr += n;
		len -= n;
	}
	return 0;
}

/* The KEY=VALUE lines of the VMCOREINFO note. */
static int parse_vmcoreinfo(struct core *c, const char *text, size_t len, struct vmcoreinfo *vi)
{
	const char *p = text, *end = text + len;

	while (p < end && *p) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *nul = memchr(p, '\0', (size_t)(end - p));
		const char *v;
		size_t n;

		if (!eol || (nul && nul < eol))
			eol = nul ? nul : end;
		v = memchr(p, '=', (size_t)(eol - p));
		n = v ? (size_t)(eol - v - 1) : 0;
		if (v) {
			size_t k = (size_t)(v - p);

			v++;
#define KEY(name) (k == sizeof(name) - 1 && !memcmp(p, name, k))
			if (KEY("BTS_TABLE") && !vi->has_table) {
				if (!parse_hex(v, n, &vi->table))
					return error_msg("%s: VMCOREINFO: BTS_TABLE=%.*s is not a hex physical address",
							 c->path, (int)(n < 64 ? n : 64), v);
				vi->has_table = true;
			} else if (KEY("KERNELOFFSET") && !vi->has_koff) {
				if (!parse_hex(v, n, &vi->koff))
					return error_msg("%s: VMCOREINFO: KERNELOFFSET=%.*s is not hex",
							 c->path, (int)(n < 64 ? n : 64), v);
				vi->has_koff = true;
			} else if (KEY("OSRELEASE") && !vi->has_release) {
				if (n >= sizeof(vi->release))
					return error_msg("%s: VMCOREINFO: OSRELEASE is %zu characters, more than 64",
							 c->path, n);
				memcpy(vi->release, v, n);
				vi->has_release = true;
			} else if (KEY("BUILD-ID") && !vi->has_build_id) {
				uint64_t x;

				if (n > 2 * BTS_BUILD_ID_MAX || n % 2)
					return error_msg("%s: VMCOREINFO: BUILD-ID of %zu characters (want an even number, at most 40)",
							 c->path, n);
				for (size_t i = 0; i < n; i += 2) {
					if (!parse_hex(v + i, 2, &x))
						return error_msg("%s: VMCOREINFO: BUILD-ID=%.*s is not hex",
								 c->path, (int)n, v);
					vi->build_id[i] = "0123456789abcdef"[x >> 4];
					vi->build_id[i + 1] = "0123456789abcdef"[x & 15];
				}
				vi->has_build_id = true;
			} else if (KEY("PAGESIZE") && !vi->page_size) {
				uint64_t x = 0;

				for (size_t i = 0; i < n && x <= MAX_PAGE; i++)
					x = v[i] >= '0' && v[i] <= '9' ?
					    x * 10 + (uint64_t)(v[i] - '0') : UINT64_MAX;
				if (!n || x > MAX_PAGE)
					return error_msg("%s: VMCOREINFO: PAGESIZE=%.*s is not a page size",
							 c->path, (int)(n < 64 ? n : 64), v);
				vi->page_size = x;
			}
#undef KEY
		}
		p = eol < end ? eol + 1 : end;
	}
	return 0;
}

/* The ELF headers, PT_LOAD segments and the VMCOREINFO note. */
static int read_core(struct core *c, struct vmcoreinfo *vi)
{
	Elf *elf;
	GElf_Ehdr eh;
	size_t nph;
	bool found = false;
	int ret = -1;

	elf_version(EV_CURRENT);
	elf = elf_begin(c->fd, ELF_C_READ, NULL);
	if (!elf)
		return error_msg("%s: not an ELF file: %s", c->path, elf_errmsg(-1));
	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		error_msg("%s: not an ELF file (a crash dump is an ELF core)", c->path);
		goto out;
	}
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_type != ET_CORE || eh.e_machine != EM_X86_64) {
		error_msg("%s: not an x86-64 ELF64 little-endian core (class %u, data %u, type %u, machine %u)",
			  c->path, eh.e_ident[EI_CLASS], eh.e_ident[EI_DATA], eh.e_type,
			  eh.e_machine);
		goto out;
	}
	if (elf_getphdrnum(elf, &nph) || nph > MAX_PHDRS) {
		error_msg("%s: bad program header table: %s", c->path,
			  nph > MAX_PHDRS ? "too many entries" : elf_errmsg(-1));
		goto out;
	}
	/* (libelf counts only the headers the file holds) */
	if (eh.e_phnum != PN_XNUM && eh.e_phnum > nph)
		nph = eh.e_phnum;
	if (eh.e_phoff > c->size || (c->size - eh.e_phoff) / sizeof(Elf64_Phdr) < nph) {
		error_msg("%s: %zu program headers at offset %llu: past the end of the file (%llu bytes): truncated?",
			  c->path, nph, (unsigned long long)eh.e_phoff,
			  (unsigned long long)c->size);
		goto out;
	}
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph)) {
			error_msg("%s: program header %zu: %s", c->path, i, elf_errmsg(-1));
			goto out;
		}
		if (ph.p_type == PT_LOAD) {
			c->segs = xrealloc(c->segs, (c->nsegs + 1) * sizeof(*c->segs));
			c->segs[c->nsegs++] = (struct seg){
				.paddr = ph.p_paddr, .offset = ph.p_offset,
				.filesz = ph.p_filesz < ph.p_memsz ? ph.p_filesz : ph.p_memsz,
				.memsz = ph.p_memsz,
			};
		} else if (ph.p_type == PT_NOTE && !found) {
			Elf_Data *data;
			GElf_Nhdr nh;
			size_t off = 0, next, name, desc;

			if (ph.p_offset > c->size || c->size - ph.p_offset < ph.p_filesz ||
			    ph.p_filesz > MAX_NOTES) {
				error_msg("%s: PT_NOTE segment at offset %llu, %llu bytes: %s",
					  c->path, (unsigned long long)ph.p_offset,
					  (unsigned long long)ph.p_filesz,
					  ph.p_filesz > MAX_NOTES ? "too large" :
					  "past the end of the file: truncated?");
				goto out;
			}
			data = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
						    ELF_T_NHDR);
			if (!data) {
				error_msg("%s: PT_NOTE segment at offset %llu: %s", c->path,
					  (unsigned long long)ph.p_offset, elf_errmsg(-1));
				goto out;
			}
			while (off < data->d_size &&
			       (next = gelf_getnote(data, off, &nh, &name, &desc)) > 0) {
				const char *nm = (const char *)data->d_buf + name;

				if (nh.n_type == 0 && nh.n_namesz >= 10 && nh.n_namesz <= 11 &&
				    !memcmp(nm, "VMCOREINFO", 10) &&
				    (nh.n_namesz == 10 || !nm[10])) {
					if (parse_vmcoreinfo(c, (const char *)data->d_buf + desc,
							     nh.n_descsz, vi))
						goto out;
					found = true;
					break;
				}
				off = next;
			}
		}
	}
	if (!found) {
		error_msg("%s: no VMCOREINFO note (not a kernel crash dump, or its notes were dropped)",
			  c->path);
		goto out;
	}
	ret = 0;
out:
	elf_end(elf);
	return ret;
}

static void hex(char *buf, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		buf[2 * i] = "0123456789abcdef"[p[i] >> 4];
		buf[2 * i + 1] = "0123456789abcdef"[p[i] & 15];
	}
	buf[2 * n] = '\0';
}

/* The slot's header against VMCOREINFO: the same kernel, the same boot. */
static int cross_check(const struct core *c, const struct vmcoreinfo *vi, uint32_t i,
		       const struct bts_dump *d)
{
	char id[2 * BTS_BUILD_ID_MAX + 1];

	if (vi->has_koff && vi->koff != d->kaslr_offset)
		return error_msg("%s: slot %u (cpu %u): kaslr_offset 0x%llx, but VMCOREINFO has KERNELOFFSET=%llx: the bts table is not this crash's",
				 c->path, i, d->cpu, (unsigned long long)d->kaslr_offset,
				 (unsigned long long)vi->koff);
	if (vi->has_release && d->release[0] && strcmp(vi->release, d->release))
		return error_msg("%s: slot %u (cpu %u): release \"%s\", but VMCOREINFO has OSRELEASE=%s: the bts table is not this crash's",
				 c->path, i, d->cpu, d->release, vi->release);
	if (vi->has_build_id && d->build_id_size) {
		size_t n = strlen(vi->build_id) / 2;
		bool same = n <= d->build_id_size;

		hex(id, d->build_id, d->build_id_size);
		/* The kernel records 20 bytes; a shorter ID is padded with zeros. */
		same = same && !memcmp(id, vi->build_id, 2 * n);
		for (size_t k = n; same && k < d->build_id_size; k++)
			same = !d->build_id[k];
		if (!same)
			return error_msg("%s: slot %u (cpu %u): build ID %s, but VMCOREINFO has BUILD-ID=%s: the bts table is not this crash's",
					 c->path, i, d->cpu, id, vi->build_id);
	}
	return 0;
}

/* Slot @i of the table at @table: one dump into @list. */
static int read_slot(struct core *c, const struct vmcoreinfo *vi, uint64_t table,
		     uint64_t at, uint32_t i, uint32_t page_size, struct bts_dump *out)
{
	uint8_t slot[BTS_VMCORE_SLOT_SIZE], *buf;
	char what[128], err[256];
	struct bts_dump d;
	uint32_t recs_offset, nr_pages, count;
	size_t len, need, done = 0, off;

	snprintf(what, sizeof(what), "slot %u of the bts table at physical 0x%llx", i,
		 (unsigned long long)table);
	if (read_phys(c, at, slot, sizeof(slot), what))
		return -1;
	count = get_le32(slot + BTS_OFF_COUNT);
	len = get_le16(slot + BTS_OFF_HEADER_SIZE) + (size_t)count * BTS_V1_RECORD_SIZE;
	/* The header as a capture file's: dump.c's checks, messages and all. */
	if (bts_dump_check_header(slot, BTS_V1_HEADER_SIZE, len, &d, err, sizeof(err)))
		return error_msg("%s: %s (physical 0x%llx): header %s", c->path, what,
				 (unsigned long long)at, err);
	if (d.header_size != BTS_V1_HEADER_SIZE)
		return error_msg("%s: %s: header offset %d: header_size %u, but a version %d slot holds a %d-byte header",
				 c->path, what, BTS_OFF_HEADER_SIZE, d.header_size,
				 BTS_VMCORE_VERSION, BTS_V1_HEADER_SIZE);
	if (d.count > d.capacity)
		return error_msg("%s: %s: header offset %d: count %u is more than the capacity %u",
				 c->path, what, BTS_OFF_COUNT, d.count, d.capacity);
	recs_offset = get_le32(slot + BTS_VS_OFF_RECS_OFFSET);
	nr_pages = get_le32(slot + BTS_VS_OFF_NR_PAGES);
	if (recs_offset >= page_size)
		return error_msg("%s: %s: offset %d: recs_offset %u is not inside a page of %u bytes",
				 c->path, what, BTS_VS_OFF_RECS_OFFSET, recs_offset, page_size);
	if (nr_pages > BTS_VMCORE_PAGES)
		return error_msg("%s: %s: offset %d: nr_pages %u is more than the %d of pfn[]",
				 c->path, what, BTS_VS_OFF_NR_PAGES, nr_pages, BTS_VMCORE_PAGES);
	need = (size_t)count * BTS_V1_RECORD_SIZE;
	if (recs_offset + need > (size_t)nr_pages * page_size)
		return error_msg("%s: %s: offset %d: %u pages from recs_offset %u hold %zu bytes; the %u records are %zu",
				 c->path, what, BTS_VS_OFF_NR_PAGES, nr_pages, recs_offset,
				 (size_t)nr_pages * page_size - recs_offset, count, need);

	/* The capture file: the header, then the records from their pages. */
	buf = xmalloc(len);
	memcpy(buf, slot, BTS_V1_HEADER_SIZE);
	off = recs_offset;
	for (uint32_t k = 0; done < need; k++, off = 0) {
		uint64_t pfn = get_le64(slot + BTS_VS_OFF_PFN + 8 * k);
		size_t n = page_size - off < need - done ? page_size - off : need - done;

		snprintf(what, sizeof(what), "slot %u (cpu %u) records, page %u (pfn 0x%llx)", i,
			 d.cpu, k, (unsigned long long)pfn);
		if (pfn > UINT64_MAX / page_size) {
			free(buf);
			return error_msg("%s: %s: past the end of the address space",
					 c->path, what);
		}
		if (read_phys(c, pfn * page_size + off, buf + BTS_V1_HEADER_SIZE + done, n, what)) {
			free(buf);
			return -1;
		}
		done += n;
	}
	if (bts_dump_parse(buf, len, &d, err, sizeof(err))) {
		free(buf);
		return error_msg("%s: slot %u: %s", c->path, i, err);
	}
	free(buf);
	if (cross_check(c, vi, i, &d)) {
		bts_dump_free(&d);
		return -2;
	}
	d.path = xstrdup(c->path);
	d.seq = out->seq;
	*out = d;
	return 0;
}

/*
 * "@path: bts table at physical 0x@table: offset @off: " and what @fmt
 * says, as error_msg(): -1.
 */
static int __attribute__((format(printf, 4, 5)))
bad_table(const char *path, uint64_t table, int off, const char *fmt, ...)
{
	char m[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	return error_msg("%s: bts table at physical 0x%llx: offset %d: %s", path,
			 (unsigned long long)table, off, m);
}

int vmcore_load(const char *path, int fd, struct dump_list *list)
{
	struct core c = { .path = path, .fd = fd };
	struct vmcoreinfo vi = { 0 };
	uint8_t t[BTS_VMCORE_TABLE_SIZE];
	uint32_t version, table_size, slot_size, nr_slots, nr_written, page_size;
	struct stat st;
	bool opened = false;
	size_t first;
	int ret = -1;

	if (c.fd < 0) {
		c.fd = open_input(path, &st);
		if (c.fd < 0)
			return -1;
		opened = true;
	} else if (fstat(c.fd, &st)) {
		return error_msg("%s: %s", path, strerror(errno));
	}
	c.size = (uint64_t)st.st_size;
	if (read_core(&c, &vi))
		goto out;
	if (!vi.has_table) {
		error_msg("%s: no bts table in VMCOREINFO (bts not built in, or no crash kernel reservation at boot)",
			  path);
		goto out;
	}
	if (read_phys(&c, vi.table, t, sizeof(t), "the bts table (VMCOREINFO BTS_TABLE)"))
		goto out;
	if (memcmp(t + BTS_VT_OFF_MAGIC, BTS_VMCORE_MAGIC, 8)) {
		error_msg("%s: bts table never filled: the crash path did not reach bts", path);
		goto out;
	}
	version = get_le32(t + BTS_VT_OFF_VERSION);
	table_size = get_le32(t + BTS_VT_OFF_TABLE_SIZE);
	slot_size = get_le32(t + BTS_VT_OFF_SLOT_SIZE);
	nr_slots = get_le32(t + BTS_VT_OFF_NR_SLOTS);
	nr_written = get_le32(t + BTS_VT_OFF_NR_WRITTEN);
	page_size = get_le32(t + BTS_VT_OFF_PAGE_SIZE);
	if (version != BTS_VMCORE_VERSION) {
		bad_table(path, vi.table, BTS_VT_OFF_VERSION,
			  "unsupported version %u (this bts-dump reads version %d)",
			  version, BTS_VMCORE_VERSION);
		goto out;
	}
	if (table_size < BTS_VMCORE_TABLE_SIZE || table_size > MAX_PART) {
		bad_table(path, vi.table, BTS_VT_OFF_TABLE_SIZE,
			  "table_size %u (version %d: %d to %d)",
			  table_size, BTS_VMCORE_VERSION, BTS_VMCORE_TABLE_SIZE, MAX_PART);
		goto out;
	}
	if (slot_size < BTS_VMCORE_SLOT_SIZE || slot_size > MAX_PART) {
		bad_table(path, vi.table, BTS_VT_OFF_SLOT_SIZE,
			  "slot_size %u (version %d: %d to %d)",
			  slot_size, BTS_VMCORE_VERSION, BTS_VMCORE_SLOT_SIZE, MAX_PART);
		goto out;
	}
	if (nr_slots > MAX_SLOTS) {
		bad_table(path, vi.table, BTS_VT_OFF_NR_SLOTS,
			  "nr_slots %u is more than %d CPUs", nr_slots, MAX_SLOTS);
		goto out;
	}
	if (nr_written > nr_slots) {
		bad_table(path, vi.table, BTS_VT_OFF_NR_WRITTEN,
			  "nr_written %u is more than the %u slots", nr_written, nr_slots);
		goto out;
	}
	if (page_size < MIN_PAGE || page_size > MAX_PAGE || (page_size & (page_size - 1))) {
		bad_table(path, vi.table, BTS_VT_OFF_PAGE_SIZE,
			  "page_size %u is not a power of two from %d to %d",
			  page_size, MIN_PAGE, MAX_PAGE);
		goto out;
	}
	if (vi.page_size && vi.page_size != page_size) {
		bad_table(path, vi.table, BTS_VT_OFF_PAGE_SIZE,
			  "page_size %u, but VMCOREINFO has PAGESIZE=%llu",
			  page_size, (unsigned long long)vi.page_size);
		goto out;
	}
	if (!nr_written) {
		error_msg("%s: no capture was kept: the crash path reached bts, but none of the %u slots of the bts table at physical 0x%llx is written (nothing captured since it was cleared?)",
			  path, nr_slots, (unsigned long long)vi.table);
		goto out;
	}
	/* Each slot is a capture file: a bad one does not stop the others. */
	ret = 0;
	first = list->n;
	for (uint32_t i = 0; i < nr_written; i++) {
		uint64_t at;
		int r;

		if (__builtin_add_overflow(vi.table, table_size + (uint64_t)i * slot_size, &at)) {
			ret = error_msg("%s: slot %u of the bts table at physical 0x%llx: past the end of the address space",
					path, i, (unsigned long long)vi.table);
			break;
		}
		r = read_slot(&c, &vi, vi.table, at, i, page_size, dump_list_add(list));
		if (r) {
			list->n--;
			ret = -1;
		}
		if (r == -2) {
			/* Another crash's table: none of it. */
			while (list->n > first)
				bts_dump_free(&list->d[--list->n]);
			break;
		}
	}
out:
	free(c.segs);
	if (opened)
		close(c.fd);
	return ret;
}
