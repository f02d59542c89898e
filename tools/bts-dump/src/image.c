// SPDX-License-Identifier: GPL-2.0
/*
 * bts-dump (decoder layer): ELF images. Bytes come from the PT_LOAD
 * segments (so a vmlinux and /proc/kcore are read the same way), symbols
 * from .symtab, source lines and inline frames from DWARF through libdw.
 * Compilation units are found through a table of their address ranges built
 * once, so kernels built without .debug_aranges work too.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "image.h"
#include "symtab.h"
#include "util.h"

struct segment {
	uint64_t vaddr;
	uint64_t size;
	uint64_t offset;
};

struct cu_range {
	uint64_t lo, hi;
	Dwarf_Off cu_off;
};

struct image {
	char *path;
	int fd;
	Elf *elf;
	struct segment *segs;
	size_t nsegs;
	Dwarf *dw;
	struct cu_range *ranges;
	size_t nranges;
	char *src_root;		/* stripped from file names, or NULL */
	uint64_t stext;
};

static int load_segments(struct image *img)
{
	size_t phnum;

	if (elf_getphdrnum(img->elf, &phnum))
		return 0;
	img->segs = xcalloc(phnum ? phnum : 1, sizeof(*img->segs));
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(img->elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    !ph.p_filesz)
			continue;
		img->segs[img->nsegs++] = (struct segment){
			.vaddr = ph.p_vaddr, .size = ph.p_filesz, .offset = ph.p_offset,
		};
	}
	return 0;
}

static void load_symbols(struct image *img, struct symtab *st)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(img->elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(img->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			GElf_Shdr tsh;
			Elf_Scn *tscn;
			const char *name;
			int type;
			char t;

			if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    sym.st_shndx >= SHN_LORESERVE)
				continue;
			type = GELF_ST_TYPE(sym.st_info);
			if (type == STT_SECTION || type == STT_FILE)
				continue;
			name = elf_strptr(img->elf, sh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			if (!strcmp(name, "_stext"))
				img->stext = sym.st_value;
			if (!st)
				continue;
			tscn = elf_getscn(img->elf, sym.st_shndx);
			if (!tscn || !gelf_getshdr(tscn, &tsh) || !(tsh.sh_flags & SHF_ALLOC))
				continue;
			if (tsh.sh_flags & SHF_EXECINSTR && (type == STT_FUNC || type == STT_NOTYPE))
				t = GELF_ST_BIND(sym.st_info) == STB_LOCAL ? 't' : 'T';
			else
				t = 'd';
			/*
			 * Sizes are left out on purpose: like kallsyms and %pS, a
			 * symbol runs to the next one, so the vmlinux, System.map
			 * and trace-cmd name every address the same way.
			 */
			symtab_add(st, sym.st_value, 0, t, name, strlen(name), NULL, 0);
		}
	}
	if (st)
		st->link_addresses = 1;
}

static int range_cmp(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static void load_dwarf(struct image *img)
{
	Dwarf_Off off = 0, next;
	size_t hsize, cap = 0;

	img->dw = dwarf_begin_elf(img->elf, DWARF_C_READ, NULL);
	if (!img->dw)
		return;
	while (dwarf_nextcu(img->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Addr base, lo, hi;
		Dwarf_Die cu;
		ptrdiff_t it = 0;

		if (dwarf_offdie(img->dw, off + hsize, &cu)) {
			const char *name = dwarf_diename(&cu);

			if (name && !img->src_root && ends_with(name, "/init/main.c"))
				img->src_root = xstrndup(name, strlen(name) - strlen("init/main.c"));
			while ((it = dwarf_ranges(&cu, it, &base, &lo, &hi)) > 0) {
				if (hi <= lo)
					continue;
				if (img->nranges == cap) {
					cap = cap ? cap * 2 : 1024;
					img->ranges = xrealloc(img->ranges, cap * sizeof(*img->ranges));
				}
				img->ranges[img->nranges++] = (struct cu_range){
					.lo = lo, .hi = hi, .cu_off = off + hsize,
				};
			}
		}
		off = next;
	}
	if (img->nranges)
		qsort(img->ranges, img->nranges, sizeof(*img->ranges), range_cmp);
}

struct image *image_open(const char *path, struct symtab *st, bool dwarf)
{
	struct image *img;
	struct stat sb;

	elf_version(EV_CURRENT);
	img = xcalloc(1, sizeof(*img));
	img->path = xstrdup(path);
	img->fd = open_input(path, &sb);
	if (img->fd < 0)
		goto fail;
	img->elf = elf_begin(img->fd, ELF_C_READ_MMAP, NULL);
	if (!img->elf || elf_kind(img->elf) != ELF_K_ELF) {
		error_msg("%s: offset 0: not an ELF file (%s)", path, elf_errmsg(-1));
		goto fail;
	}
	load_segments(img);
	/* /proc/kcore has no sections: no symbols, no DWARF, just bytes. */
	if (dwarf) {
		load_symbols(img, st);
		load_dwarf(img);
	}
	return img;
fail:
	image_close(img);
	return NULL;
}

void image_close(struct image *img)
{
	if (!img)
		return;
	if (img->dw)
		dwarf_end(img->dw);
	if (img->elf)
		elf_end(img->elf);
	if (img->fd >= 0)
		close(img->fd);
	free(img->segs);
	free(img->ranges);
	free(img->src_root);
	free(img->path);
	free(img);
}

size_t image_read(struct image *img, uint64_t addr, uint8_t *buf, size_t n)
{
	for (size_t i = 0; i < img->nsegs; i++) {
		const struct segment *s = &img->segs[i];
		ssize_t r;

		if (addr < s->vaddr || addr - s->vaddr >= s->size)
			continue;
		if (n > s->size - (addr - s->vaddr))
			n = (size_t)(s->size - (addr - s->vaddr));
		r = pread(img->fd, buf, n, (off_t)(s->offset + (addr - s->vaddr)));
		return r > 0 ? (size_t)r : 0;
	}
	return 0;
}

uint64_t image_stext(struct image *img)
{
	return img->stext;
}

int image_has_dwarf(struct image *img)
{
	return img->nranges > 0;
}

static bool find_cu(struct image *img, uint64_t addr, Dwarf_Die *cu)
{
	size_t lo = 0, hi = img->nranges;

	/* Ranges may nest or overlap: take the last start <= addr, walk back. */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (img->ranges[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0 && lo - i < 64;)
		if (addr < img->ranges[i].hi)
			return dwarf_offdie(img->dw, img->ranges[i].cu_off, cu) != NULL;
	return false;
}

static const char *short_path(struct image *img, const char *p)
{
	size_t n;

	if (img->src_root) {
		n = strlen(img->src_root);
		if (!strncmp(p, img->src_root, n))
			return p + n;
	}
	while (p[0] == '.' && p[1] == '/')
		p += 2;
	return p;
}

static size_t append(char *buf, size_t len, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static size_t append(char *buf, size_t len, size_t pos, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (pos >= len)
		return pos;
	va_start(ap, fmt);
	n = vsnprintf(buf + pos, len - pos, fmt, ap);
	va_end(ap);
	if (n < 0)
		return pos;
	return pos + (size_t)n < len ? pos + (size_t)n : len - 1;
}

size_t image_srcline(struct image *img, uint64_t addr, char *buf, size_t len)
{
	Dwarf_Die cu, *scopes = NULL;
	Dwarf_Files *files = NULL;
	Dwarf_Line *line;
	const char *file;
	size_t pos = 0;
	int lineno = 0, n;

	if (!img->dw || !len || !find_cu(img, addr, &cu))
		return 0;
	line = dwarf_getsrc_die(&cu, addr);
	if (!line || !(file = dwarf_linesrc(line, NULL, NULL)))
		return 0;
	dwarf_lineno(line, &lineno);
	pos = append(buf, len, pos, "%s:%d", short_path(img, file), lineno);

	n = dwarf_getscopes(&cu, addr, &scopes);
	dwarf_getsrcfiles(&cu, &files, NULL);
	for (int i = 0; i < n; i++) {
		Dwarf_Attribute attr;
		Dwarf_Word call_file = 0, call_line = 0;
		const char *name, *cfile = NULL;

		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		name = dwarf_formstring(dwarf_attr_integrate(&scopes[i], DW_AT_name, &attr));
		if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &attr), &call_file) == 0 &&
		    files)
			cfile = dwarf_filesrc(files, call_file, NULL, NULL);
		dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &attr), &call_line);
		pos = append(buf, len, pos, " %s inlined at %s:%u", name ? name : "?",
			     cfile ? short_path(img, cfile) : "?", (unsigned int)call_line);
	}
	free(scopes);
	return pos;
}
