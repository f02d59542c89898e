// SPDX-License-Identifier: GPL-2.0
/*
 * bts-dump (decoder layer): ELF images. Bytes come from the PT_LOAD
 * segments (so a vmlinux and /proc/kcore are read the same way), symbols
 * bts-series: until dump-inline
 * from .symtab, source lines from DWARF through libdw.
 * bts-series: end
 * bts-series: from dump-inline
 * from .symtab, source lines and inline frames from DWARF through libdw.
 * bts-series: end
 * Compilation units are found through a table of their address ranges built
 * once, so kernels built without .debug_aranges work too.
 */
/* bts-series: from dump-inline */
#include <dwarf.h>
/* bts-series: end */
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
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
	uint32_t cu;		/* index in image.cus */
};

/* bts-series: from dump-inline */
/*
 * The code scopes of one compilation unit that matter for a source
 * location: functions (DW_TAG_subprogram) and inline instances
 * (DW_TAG_inlined_subroutine), as a tree (lexical blocks are walked
 * through, not kept). Built on the first lookup in the CU, in one walk of
 * its DIEs, so a lookup is then a binary search and a walk up the tree.
 */
struct scope {
	uint32_t parent;	/* index in cu_scopes.nodes, or NO_SCOPE */
	uint32_t first_piece;	/* its ranges: node_pieces[first_piece..+npieces) */
	uint16_t npieces;
	uint8_t inlined;
	uint8_t name_done;
	uint32_t call_file, call_line;
	Dwarf_Off die;
	const char *name;	/* resolved when first printed */
};

#define NO_SCOPE	UINT32_MAX
/* Deeper nesting than any compiler writes: a hostile file. */
#define MAX_SCOPE_DEPTH	256

struct piece {
	uint64_t lo, hi;
	uint32_t node;
	uint32_t depth;
};

struct cu_scopes {
	struct scope *nodes;
	size_t nnodes, nodes_cap;
	struct piece *node_pieces;	/* in node order */
	size_t nnode_pieces, node_pieces_cap;
	struct piece *sorted;		/* by lo, then depth */
	Dwarf_Files *files;
	size_t nfiles;
};
/* bts-series: end */

/* bts-series: from dump-kinds */
/* An instruction range the kernel may replace at boot (.altinstructions). */
struct alt_site {
	uint64_t lo, hi;
};
/* bts-series: end */

struct cu_info {
	Dwarf_Off off;
/* bts-series: from dump-inline */
	Dwarf_Die die;			/* valid once @sc is set */
	struct cu_scopes *sc;		/* NULL until first used */
/* bts-series: end */
};

struct image {
	char *path;
	int fd;
	Elf *elf;
	Dwfl *dwfl;		/* a module's: owns @dw */
	const uint8_t *raw;	/* the file as libelf mapped it, or NULL (kcore) */
	size_t raw_len;
	struct segment *segs;
	size_t nsegs;
	Dwarf *dw;
	struct cu_range *ranges;
	size_t nranges;
	struct cu_info *cus;
	size_t ncus;
	char *src_root;		/* stripped from file names, or NULL */
	uint64_t stext;
/* bts-series: from dump-kinds */
	struct u64map jump_labels;	/* static-key site -> its jump target */
/* bts-series: end */
	struct module_layout *layout;	/* a module's section bases */
/* bts-series: from dump-kinds */
	struct alt_site *alts;		/* alternative sites, sorted */
	size_t nalts;
/* bts-series: end */
};

/* bts-series: from dump-inline */
static void cu_scopes_free(struct cu_scopes *sc);
/* bts-series: end */
struct module_layout;

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
			if (tsh.sh_flags & SHF_EXECINSTR &&
			    (type == STT_FUNC || type == STT_NOTYPE))
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

/* bts-series: from dump-kinds */
/* The bytes of section @name, or NULL; *@addr is its address. */
static Elf_Data *section_data(struct image *img, const char *name, uint64_t *addr)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(img->elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(img->elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		n = elf_strptr(img->elf, shstrndx, sh.sh_name);
		if (n && !strcmp(n, name)) {
			*addr = sh.sh_addr;
			return elf_getdata(scn, NULL);
		}
	}
	return NULL;
}

static int alt_cmp(const void *a, const void *b)
{
	const struct alt_site *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/*
 * Where the kernel rewrites its own text at boot, from the vmlinux's
 * tables of it (x86-64, Linux 6.12; a section of another size is
 * ignored): __jump_table, struct jump_entry { s32 code, target; long key; }
 * relative to each field, and .altinstructions, struct alt_instr
 * { s32 instr_offset, repl_offset; u32 ft_flags; u8 instrlen, replacementlen; }
 * packed, relative to the entry.
 */
static void load_patch_sites(struct image *img)
{
	uint64_t base;
	Elf_Data *d;

	d = section_data(img, "__jump_table", &base);
	if (d && d->d_buf && d->d_size % 16 == 0) {
		const uint8_t *p = d->d_buf;

		for (size_t i = 0; i < d->d_size; i += 16) {
			uint64_t code = base + i + (uint64_t)(int64_t)(int32_t)get_le32(p + i);
			uint64_t target = base + i + 4 +
					  (uint64_t)(int64_t)(int32_t)get_le32(p + i + 4);

			*u64map_get(&img->jump_labels, code, 0) = target;
		}
	}
	d = section_data(img, ".altinstructions", &base);
	if (d && d->d_buf && d->d_size % 14 == 0 && d->d_size) {
		const uint8_t *p = d->d_buf;

		img->alts = xmalloc(d->d_size / 14 * sizeof(*img->alts));
		for (size_t i = 0; i < d->d_size; i += 14) {
			uint64_t lo = base + i + (uint64_t)(int64_t)(int32_t)get_le32(p + i);

			img->alts[img->nalts++] = (struct alt_site){ lo, lo + p[i + 12] };
		}
		qsort(img->alts, img->nalts, sizeof(*img->alts), alt_cmp);
	}
}

bool image_jump_label(struct image *img, uint64_t addr, uint64_t *target)
{
	uint64_t *v = u64map_find(&img->jump_labels, addr);

	if (!v)
		return false;
	*target = *v;
	return true;
}

bool image_in_alternative(struct image *img, uint64_t addr)
{
	size_t lo = 0, hi = img->nalts;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (img->alts[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Sites do not nest; a few may share a start. */
	for (size_t i = lo; i-- > 0 && lo - i <= 4;)
		if (addr >= img->alts[i].lo && addr < img->alts[i].hi)
			return true;
	return false;
}
/* bts-series: end */

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
	size_t hsize, cap = 0, cus_cap = 0;

	if (!img->dw)
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
				img->src_root = xstrndup(name,
							 strlen(name) - strlen("init/main.c"));
			if (img->ncus == cus_cap) {
				cus_cap = cus_cap ? cus_cap * 2 : 1024;
				img->cus = xrealloc(img->cus, cus_cap * sizeof(*img->cus));
			}
			img->cus[img->ncus] = (struct cu_info){ .off = off + hsize };
			while ((it = dwarf_ranges(&cu, it, &base, &lo, &hi)) > 0) {
				if (hi <= lo)
					continue;
				if (img->nranges == cap) {
					cap = cap ? cap * 2 : 1024;
					img->ranges = xrealloc(img->ranges,
							       cap * sizeof(*img->ranges));
				}
				img->ranges[img->nranges++] = (struct cu_range){
					.lo = lo, .hi = hi, .cu = (uint32_t)img->ncus,
				};
			}
			img->ncus++;
		}
		if (next <= off)
			break;
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
/* bts-series: from dump-kinds */
	u64map_init(&img->jump_labels, 16);
/* bts-series: end */
	img->fd = open_input(path, &sb);
	if (img->fd < 0)
		goto fail;
	img->elf = elf_begin(img->fd, ELF_C_READ_MMAP, NULL);
	if (!img->elf || elf_kind(img->elf) != ELF_K_ELF) {
		error_msg("%s: offset 0: not an ELF file (%s)", path, elf_errmsg(-1));
		goto fail;
	}
	load_segments(img);
	/* A file libelf mapped is read from memory; /proc/kcore with pread. */
	if (dwarf) {
		char *raw = elf_rawfile(img->elf, &img->raw_len);

		img->raw = (const uint8_t *)raw;
	}
	/* /proc/kcore has no sections: no symbols, no DWARF, just bytes. */
	if (dwarf) {
		load_symbols(img, st);
/* bts-series: from dump-kinds */
		load_patch_sites(img);
/* bts-series: end */
		load_dwarf(img);
	}
	return img;
fail:
	image_close(img);
	return NULL;
}

/*
 * Where each section of a module was loaded, from its symbols' runtime
 * addresses, and where libdwfl's offline layout put it: DWARF addresses
 * are in the latter.
 */
struct module_layout {
	uint64_t *base;		/* runtime, per section index; UINT64_MAX: unknown */
	uint64_t *size;
	uint64_t *dwfl;		/* in libdwfl's layout */
	size_t nsec;
};

/* A runtime address of the module as an address of its DWARF, or 0. */
static uint64_t module_xlate(const struct module_layout *l, uint64_t addr)
{
	for (size_t i = 0; i < l->nsec; i++)
		if (l->base[i] != UINT64_MAX && addr >= l->base[i] &&
		    addr - l->base[i] < l->size[i])
			return l->dwfl[i] + (addr - l->base[i]);
	return 0;
}

/*
 * A module's section bases: a symbol the .ko defines in a section and the
 * symbol table has in [@modname] at its runtime address gives the base.
 */
static void module_layout(struct image *img, const struct symtab *st, const char *modname,
			  struct module_layout *l)
{
	char mod[128];
	Elf_Scn *scn = NULL;
	size_t nsec = 0;

	snprintf(mod, sizeof(mod), "[%s]", modname);
	if (elf_getshdrnum(img->elf, &nsec))
		nsec = 0;
	l->nsec = nsec;
	l->base = xmalloc((nsec ? nsec : 1) * sizeof(*l->base));
	l->size = xcalloc(nsec ? nsec : 1, sizeof(*l->size));
	l->dwfl = xcalloc(nsec ? nsec : 1, sizeof(*l->dwfl));
	for (size_t i = 0; i < nsec; i++)
		l->base[i] = UINT64_MAX;
	while ((scn = elf_nextscn(img->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;
			uint64_t addr;

			if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    sym.st_shndx >= SHN_LORESERVE || sym.st_shndx >= nsec ||
			    l->base[sym.st_shndx] != UINT64_MAX ||
			    (GELF_ST_TYPE(sym.st_info) != STT_FUNC &&
			     GELF_ST_TYPE(sym.st_info) != STT_OBJECT))
				continue;
			name = elf_strptr(img->elf, sh.sh_link, sym.st_name);
			if (name && *name &&
			    symtab_find_name(st, name, strlen(name), mod, strlen(mod), 0, 0,
					     &addr) >= 0)
				l->base[sym.st_shndx] = addr - sym.st_value;
		}
	}
}

/* libdwfl's search path for separate debug info: none given, its default. */
static char *debuginfo_path;

struct image *image_open_module(const char *path, const char *modname, const struct symtab *st)
{
	static const Dwfl_Callbacks callbacks = {
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.section_address = dwfl_offline_section_address,
		.debuginfo_path = &debuginfo_path,
	};
	struct module_layout *l;
	struct image *img;
	Dwfl_Module *mod;
	Dwarf_Addr bias, ebias;
	Elf *laid;
	struct stat sb;

	elf_version(EV_CURRENT);
	img = xcalloc(1, sizeof(*img));
	img->path = xstrdup(path);
/* bts-series: from dump-kinds */
	u64map_init(&img->jump_labels, 16);
/* bts-series: end */
	img->fd = open_input(path, &sb);
	if (img->fd < 0)
		goto fail;
	img->elf = elf_begin(img->fd, ELF_C_READ_MMAP, NULL);
	if (!img->elf || elf_kind(img->elf) != ELF_K_ELF) {
		error_msg("%s: offset 0: not an ELF file (%s)", path, elf_errmsg(-1));
		goto fail;
	}
	l = xcalloc(1, sizeof(*l));
	module_layout(img, st, modname, l);
	img->layout = l;
	img->dwfl = dwfl_begin(&callbacks);
	if (!img->dwfl)
		goto fail;
	dwfl_report_begin(img->dwfl);
	mod = dwfl_report_offline(img->dwfl, modname, path, -1);
	dwfl_report_end(img->dwfl, NULL, NULL);
	if (!mod) {
		error_msg("%s: %s", path, dwfl_errmsg(-1));
		goto fail;
	}
	img->dw = dwfl_module_getdwarf(mod, &bias);
	laid = dwfl_module_getelf(mod, &ebias);
	if (!img->dw || !laid) {
		error_msg("%s: no DWARF (%s): build modules with debug info", path,
			  dwfl_errmsg(-1));
		goto fail;
	}
	/* libdwfl laid the sections out (sh_addr of its copy); DWARF follows it. */
	for (size_t i = 0; i < l->nsec; i++) {
		Elf_Scn *scn = elf_getscn(laid, i);
		GElf_Shdr sh;

		if (l->base[i] == UINT64_MAX || !scn || !gelf_getshdr(scn, &sh)) {
			l->base[i] = UINT64_MAX;
			continue;
		}
		l->size[i] = sh.sh_size;
		l->dwfl[i] = sh.sh_addr + bias;
	}
	load_dwarf(img);
	return img;
fail:
	image_close(img);
	return NULL;
}

void image_close(struct image *img)
{
	if (!img)
		return;
	if (img->dwfl)
		dwfl_end(img->dwfl);
	else if (img->dw)
		dwarf_end(img->dw);
	if (img->elf)
		elf_end(img->elf);
	if (img->fd >= 0)
		close(img->fd);
	free(img->segs);
	free(img->ranges);
/* bts-series: from dump-kinds */
	u64map_free(&img->jump_labels);
	free(img->alts);
/* bts-series: end */
	if (img->layout) {
		free(img->layout->base);
		free(img->layout->size);
		free(img->layout->dwfl);
		free(img->layout);
	}
/* bts-series: from dump-inline */
	for (size_t i = 0; i < img->ncus; i++)
		cu_scopes_free(img->cus[i].sc);
/* bts-series: end */
	free(img->cus);
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
		if (img->raw) {
			uint64_t off = s->offset + (addr - s->vaddr);

			if (off >= img->raw_len)
				return 0;
			if (n > img->raw_len - off)
				n = (size_t)(img->raw_len - off);
			memcpy(buf, img->raw + off, n);
			return n;
		}
		r = pread(img->fd, buf, n, (off_t)(s->offset + (addr - s->vaddr)));
		return r > 0 ? (size_t)r : 0;
	}
	return 0;
}

uint64_t image_stext(struct image *img)
{
	return img->stext;
}

size_t image_build_id(struct image *img, const uint8_t **id)
{
	const void *p;
	ssize_t n = dwelf_elf_gnu_build_id(img->elf, &p);

	if (n <= 0)
		return 0;
	*id = p;
	return (size_t)n;
}

int image_has_dwarf(struct image *img)
{
	return img->nranges > 0;
}

/* The CU whose ranges hold @addr: its index in img->cus, or -1. */
static long find_cu(struct image *img, uint64_t addr)
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
			return img->ranges[i].cu;
	return -1;
}

/* bts-series: from dump-inline */
static void cu_scopes_free(struct cu_scopes *sc)
{
	if (!sc)
		return;
	free(sc->nodes);
	free(sc->node_pieces);
	free(sc->sorted);
	free(sc);
}

static void add_piece(struct cu_scopes *sc, uint64_t lo, uint64_t hi, uint32_t node,
		      uint32_t depth)
{
	if (sc->nnode_pieces == sc->node_pieces_cap) {
		sc->node_pieces_cap = sc->node_pieces_cap ? sc->node_pieces_cap * 2 : 256;
		sc->node_pieces = xrealloc(sc->node_pieces,
					   sc->node_pieces_cap * sizeof(*sc->node_pieces));
	}
	sc->node_pieces[sc->nnode_pieces++] = (struct piece){ lo, hi, node, depth };
}

static uint32_t add_node(struct cu_scopes *sc, Dwarf_Die *die, uint32_t parent, bool inlined)
{
	Dwarf_Attribute attr;
	Dwarf_Word v;
	struct scope *n;

	if (sc->nnodes == sc->nodes_cap) {
		sc->nodes_cap = sc->nodes_cap ? sc->nodes_cap * 2 : 256;
		sc->nodes = xrealloc(sc->nodes, sc->nodes_cap * sizeof(*sc->nodes));
	}
	n = &sc->nodes[sc->nnodes];
	*n = (struct scope){ .parent = parent, .inlined = inlined, .die = dwarf_dieoffset(die),
			     .first_piece = (uint32_t)sc->nnode_pieces };
	if (inlined) {
		if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &attr), &v) == 0)
			n->call_file = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
		else
			n->call_file = UINT32_MAX;
		if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &attr), &v) == 0)
			n->call_line = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
	}
	return (uint32_t)sc->nnodes++;
}

/*
 * Collect the code scopes under @die (iteratively: a hostile file may nest
 * deeply). A scope without address ranges (an abstract instance, a type)
 * is not entered.
 */
static void walk_scopes(struct cu_scopes *sc, Dwarf_Die *cu)
{
	struct {
		Dwarf_Die die;
		uint32_t parent;
	} stack[MAX_SCOPE_DEPTH];
	int top = 0;

	if (dwarf_child(cu, &stack[0].die) != 0)
		return;
	stack[0].parent = NO_SCOPE;
	while (top >= 0) {
		Dwarf_Die *die = &stack[top].die;
		uint32_t parent = stack[top].parent, me = parent;
		int tag = dwarf_tag(die);
		bool descend = false;

		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
		    tag == DW_TAG_lexical_block) {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t it = 0;
			size_t first = sc->nnode_pieces;

			while ((it = dwarf_ranges(die, it, &base, &lo, &hi)) > 0) {
				if (hi > lo)
					add_piece(sc, lo, hi, 0, (uint32_t)top);
			}
			if (sc->nnode_pieces > first) {
				descend = true;
				if (tag != DW_TAG_lexical_block) {
					size_t np = sc->nnode_pieces - first;

					me = add_node(sc, die, parent,
						      tag == DW_TAG_inlined_subroutine);
					sc->nodes[me].first_piece = (uint32_t)first;
					sc->nodes[me].npieces =
						(uint16_t)(np > 0xffff ? 0xffff : np);
					for (size_t i = first; i < sc->nnode_pieces; i++)
						sc->node_pieces[i].node = me;
				} else {
					sc->nnode_pieces = first;	/* blocks only nest */
				}
			}
		}
		if (descend && top + 1 < MAX_SCOPE_DEPTH &&
		    dwarf_child(die, &stack[top + 1].die) == 0) {
			stack[top + 1].parent = me;
			top++;
			continue;
		}
		/* Next sibling, or the next sibling of the nearest ancestor that has one. */
		while (top >= 0 && dwarf_siblingof(&stack[top].die, &stack[top].die) != 0)
			top--;
	}
}

static int piece_cmp(const void *a, const void *b)
{
	const struct piece *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->depth < y->depth ? -1 : x->depth > y->depth;
}

static struct cu_scopes *cu_scopes(struct image *img, long cu_index, Dwarf_Die *cu)
{
	struct cu_info *ci = &img->cus[cu_index];
	struct cu_scopes *sc;

	if (ci->sc)
		return ci->sc;
	ci->die = *cu;
	sc = xcalloc(1, sizeof(*sc));
	walk_scopes(sc, cu);
	/* Nodes took their pieces' node numbers; sort a copy for lookups. */
	if (sc->nnode_pieces) {
		sc->sorted = xmalloc(sc->nnode_pieces * sizeof(*sc->sorted));
		memcpy(sc->sorted, sc->node_pieces, sc->nnode_pieces * sizeof(*sc->sorted));
		qsort(sc->sorted, sc->nnode_pieces, sizeof(*sc->sorted), piece_cmp);
	}
	if (dwarf_getsrcfiles(cu, &sc->files, &sc->nfiles) != 0) {
		sc->files = NULL;
		sc->nfiles = 0;
	}
	ci->sc = sc;
	return sc;
}

static bool node_has(const struct cu_scopes *sc, uint32_t node, uint64_t addr)
{
	const struct scope *n = &sc->nodes[node];

	for (uint32_t i = 0; i < n->npieces; i++) {
		const struct piece *p = &sc->node_pieces[n->first_piece + i];

		if (addr >= p->lo && addr < p->hi)
			return true;
	}
	return false;
}

/*
 * The innermost scope holding @addr. Scopes nest, so it is the scope of
 * the last piece starting at or before @addr (deepest first among equal
 * starts), or the nearest of its ancestors that holds @addr.
 */
static uint32_t innermost(const struct cu_scopes *sc, uint64_t addr)
{
	size_t lo = 0, hi = sc->nnode_pieces;
	uint32_t node;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (sc->sorted[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NO_SCOPE;
	for (node = sc->sorted[lo - 1].node; node != NO_SCOPE; node = sc->nodes[node].parent)
		if (node_has(sc, node, addr))
			return node;
	return NO_SCOPE;
}

static const char *scope_name(struct image *img, struct scope *n)
{
	Dwarf_Attribute attr;
	Dwarf_Die die;

	if (!n->name_done) {
		n->name_done = 1;
		if (dwarf_offdie(img->dw, n->die, &die))
			n->name = dwarf_formstring(dwarf_attr_integrate(&die, DW_AT_name, &attr));
	}
	return n->name;
}
/* bts-series: end */

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
/* bts-series: from dump-inline */
	struct cu_scopes *sc;
/* bts-series: end */
	Dwarf_Line *line;
	const char *file;
	Dwarf_Die cu;
	size_t pos = 0;
	int lineno = 0;
	long ci;

	if (!img->dw || !len)
		return 0;
	if (img->layout) {
		addr = module_xlate(img->layout, addr);
		if (!addr)
			return 0;
	}
	ci = find_cu(img, addr);
	if (ci < 0)
		return 0;
/* bts-series: until dump-inline */
//~	if (!dwarf_offdie(img->dw, img->cus[ci].off, &cu))
/* bts-series: end */
/* bts-series: from dump-inline */
	if (img->cus[ci].sc)
		cu = img->cus[ci].die;
	else if (!dwarf_offdie(img->dw, img->cus[ci].off, &cu))
/* bts-series: end */
		return 0;
	line = dwarf_getsrc_die(&cu, addr);
	if (!line)
		return 0;
	file = dwarf_linesrc(line, NULL, NULL);
	if (!file)
		return 0;
	dwarf_lineno(line, &lineno);
	pos = append(buf, len, pos, "%s:%d", short_path(img, file), lineno);

/* bts-series: from dump-inline */
	/* Every inline frame, innermost first, up to the function. */
	sc = cu_scopes(img, ci, &cu);
	for (uint32_t node = innermost(sc, addr); node != NO_SCOPE && sc->nodes[node].inlined;
	     node = sc->nodes[node].parent) {
		struct scope *n = &sc->nodes[node];
		const char *name = scope_name(img, n), *cfile = NULL;

		if (sc->files && n->call_file < sc->nfiles)
			cfile = dwarf_filesrc(sc->files, n->call_file, NULL, NULL);
		pos = append(buf, len, pos, " %s inlined at %s:%u", name ? name : "?",
			     cfile ? short_path(img, cfile) : "?", n->call_line);
	}
/* bts-series: end */
	return pos;
}
