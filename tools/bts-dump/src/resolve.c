// SPDX-License-Identifier: GPL-2.0
/*
 * bts-series: until dump-kinds
 * bts-dump (decoder layer): symbols and source lines for the addresses of
 * one dump. See resolve.h.
 * bts-series: end
 * bts-series: from dump-kinds
 * bts-dump (decoder layer): symbols, source lines and branch kinds for the
 * addresses of one dump. See resolve.h.
 * bts-series: end
 */
/* bts-series: from dump-kinds */
#include <capstone/capstone.h>
/* bts-series: end */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>

#include "image.h"
#include "resolve.h"

/* bts-series: from dump-kinds */
/* Each name is followed by NULs up to 8 bytes: printers copy 8 at once. */
const char kind_names[KIND_NR][8] = {
	[KIND_BRANCH] = "branch",
	[KIND_CALL] = "call",
	[KIND_RET] = "ret",
	[KIND_JMP] = "jmp",
	[KIND_JCC] = "jcc",
	[KIND_SYSCALL] = "syscall",
	[KIND_SYSRET] = "sysret",
	[KIND_IRET] = "iret",
	[KIND_INT] = "int",
	[KIND_EXC] = "exc",
	[KIND_PATCHED] = "patched",
};
/* bts-series: end */

/*
 * The address table: cache-line aligned, so one prefetch brings a whole
 * entry, with one spare entry of slack for 16-byte chunk copies of texts.
 */
static struct addr_info *alloc_addrs(size_t mask)
{
	size_t size = (mask + 2) * sizeof(struct addr_info);
	struct addr_info *a = aligned_alloc(64, size);

	if (!a) {
		fputs("bts-dump: out of memory\n", stderr);
		exit(2);
	}
	memset(a, 0, size);
	return a;
}

void resolver_init(struct resolver *r)
{
	memset(r, 0, sizeof(*r));
	symtab_init(&r->st);
	r->want_src = true;
/* bts-series: from dump-kinds */
	r->want_decode = true;
	u64map_init(&r->kind_cache, 1024);
/* bts-series: end */
	u64map_init(&r->src_cache, 1024);
	r->addrs_mask = 4095;
	r->addrs = alloc_addrs(r->addrs_mask);
	r->text_cap = 1 << 20;
	r->text_arena = xmalloc(r->text_cap);
}

/* A .ko under modules_dir; opened when a record first needs it. */
struct module_file {
	char *name;		/* as kallsyms names it: '-' becomes '_' */
	char *path;
	struct image *img;
	bool tried;
};

void resolver_free(struct resolver *r)
{
/* bts-series: from dump-kinds */
	csh h = (csh)(uintptr_t)r->cs;

	if (r->cs)
		cs_close(&h);
/* bts-series: end */
	image_close(r->vmlinux);
/* bts-series: from dump-kinds */
	image_close(r->kcore);
/* bts-series: end */
	for (size_t i = 0; i < r->nmodules; i++) {
		image_close(r->modules[i].img);
		free(r->modules[i].name);
		free(r->modules[i].path);
	}
	free(r->modules);
	symtab_free(&r->st);
/* bts-series: from dump-kinds */
	u64map_free(&r->kind_cache);
/* bts-series: end */
	u64map_free(&r->src_cache);
/* bts-series: from dump-kinds */
	free(r->insns);
/* bts-series: end */
	free(r->src_pool);
	free(r->addrs);
	free(r->text_arena);
}

int resolver_add_symbols(struct resolver *r, const char *path)
{
	r->symbols_path = path;
	if (symtab_load_kallsyms(&r->st, path)) {
		/* Drop what a partly read file added. */
		symtab_free(&r->st);
		symtab_init(&r->st);
		return -1;
	}
	r->have_syms = true;
	return 0;
}

int resolver_add_vmlinux(struct resolver *r, const char *path)
{
	/* Without a System.map or kallsyms, the vmlinux is the symbol table. */
	r->vmlinux_path = path;
	if (!r->have_syms)
		r->symbols_path = path;
	r->vmlinux = image_open(path, r->have_syms ? NULL : &r->st, true);
	if (!r->vmlinux)
		return -1;
	if (!r->have_syms)
		r->have_syms = r->st.n > 0;
	return 0;
}

/* bts-series: from dump-kinds */
int resolver_add_kcore(struct resolver *r, const char *path)
{
	r->kcore = image_open(path, NULL, false);
	return r->kcore ? 0 : -1;
}
/* bts-series: end */

static struct resolver *collecting;

static int collect_ko(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	const char *base = path + ftw->base;
	size_t n = strlen(base);
	struct module_file *m;

	(void)sb;
	if (type != FTW_F || n < 4 || strcmp(base + n - 3, ".ko"))
		return 0;
	collecting->modules = xrealloc(collecting->modules,
				       (collecting->nmodules + 1) * sizeof(*collecting->modules));
	m = &collecting->modules[collecting->nmodules++];
	*m = (struct module_file){ .name = xstrndup(base, n - 3), .path = xstrdup(path) };
	for (char *p = m->name; *p; p++)
		if (*p == '-')
			*p = '_';
	return 0;
}

int resolver_add_modules(struct resolver *r, const char *dir)
{
	struct stat sb;

	if (stat(dir, &sb) || !S_ISDIR(sb.st_mode))
		return error_msg("%s: not a directory of .ko files", dir);
	r->modules_dir = dir;
	collecting = r;
	nftw(dir, collect_ko, 16, FTW_PHYS);
	collecting = NULL;
	if (!r->nmodules)
		return error_msg("%s: no .ko files in it", dir);
	r->st.want_names = true;	/* module layouts need symbols by name */
	return 0;
}

/* The image of module "[name]" (as kallsyms writes it), or NULL. */
static struct image *module_image(struct resolver *r, const char *bracketed)
{
	size_t n = strlen(bracketed);

	if (n < 3)
		return NULL;
	for (size_t i = 0; i < r->nmodules; i++) {
		struct module_file *m = &r->modules[i];

		if (strlen(m->name) != n - 2 || memcmp(m->name, bracketed + 1, n - 2))
			continue;
		if (!m->tried) {
			m->tried = true;
			m->img = image_open_module(m->path, m->name, &r->st);
		}
		return m->img;
	}
	return NULL;
}

void resolver_ready(struct resolver *r)
{
/* bts-series: from dump-kinds */
	csh h;

/* bts-series: end */
	if (r->have_syms)
		symtab_finish(&r->st);
/* bts-series: from dump-kinds */
	if (!r->want_decode || (!r->vmlinux && !r->kcore))
		return;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK) {
		warn_msg("capstone: cannot open an x86-64 decoder; branch kinds are guessed");
		return;
	}
	cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
	/* AT&T, as objdump -d and the kernel's own disassembly print it. */
	cs_option(h, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	r->cs = (void *)(uintptr_t)h;
/* bts-series: end */
}

static void hex(char *buf, size_t len, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n && 2 * i + 2 < len; i++)
		snprintf(buf + 2 * i, 3, "%02x", p[i]);
	buf[2 * i] = '\0';
}

int resolver_check_kernel(struct resolver *r, const struct bts_dump *d, char *why,
			  size_t len)
{
	static const uint8_t zeros[BTS_BUILD_ID_MAX];
	char mine[2 * BTS_BUILD_ID_MAX + 1], theirs[2 * BTS_BUILD_ID_MAX + 1];
	const uint8_t *id = NULL;
	size_t n;

	if (r->vmlinux && d->build_id_size) {
		n = image_build_id(r->vmlinux, &id);
		/* The kernel records 20 bytes; a shorter ID is padded with zeros. */
		if (n > d->build_id_size || !n || memcmp(id, d->build_id, n) ||
		    (d->build_id_size > n &&
		     memcmp(d->build_id + n, zeros, d->build_id_size - n))) {
			hex(mine, sizeof(mine), id, n);
			hex(theirs, sizeof(theirs), d->build_id, d->build_id_size);
			snprintf(why, len, "%s: build ID %s is not that of the kernel that wrote %s (%s, %s)",
				 r->vmlinux_path, n ? mine : "(none)",
				 d->path ? d->path : "the dump", theirs, d->release);
			return -1;
		}
	}
	if (r->have_syms && r->st.stext && r->st.etext && d->stext && d->etext &&
	    r->st.etext + (d->stext - r->st.stext) != d->etext) {
		snprintf(why, len, "%s: _etext at 0x%llx (moved with _stext: 0x%llx) is not that of the kernel that wrote %s (0x%llx, %s): symbols of another build",
			 r->symbols_path ? r->symbols_path : "symbols",
			 (unsigned long long)r->st.etext,
			 (unsigned long long)(r->st.etext + (d->stext - r->st.stext)),
			 d->path ? d->path : "the dump", (unsigned long long)d->etext, d->release);
		return -1;
	}
	return 0;
}

void resolver_set_dump(struct resolver *r, const struct bts_dump *d)
{
	uint64_t old = r->bias, old_image = r->image_bias;

	if (r->st.stext && d->stext)
		r->bias = d->stext - r->st.stext;
	else if (r->st.link_addresses)
		r->bias = d->kaslr_offset;
	else
		r->bias = 0;
	/* The vmlinux has link addresses whatever the symbol table has. */
	if (r->vmlinux && image_stext(r->vmlinux) && d->stext)
		r->image_bias = d->stext - image_stext(r->vmlinux);
	else
		r->image_bias = d->kaslr_offset;
	if (r->bias != old || r->image_bias != old_image) {
		memset(r->addrs, 0, (r->addrs_mask + 1) * sizeof(*r->addrs));
		r->addrs_n = 0;
		r->text_len = 0;
		r->src_len = 0;		/* the slots and src_cache referred to it */
		/* Caches hold runtime addresses: a new bias invalidates them. */
/* bts-series: from dump-kinds */
		u64map_free(&r->kind_cache);
/* bts-series: end */
		u64map_free(&r->src_cache);
/* bts-series: from dump-kinds */
		r->ninsns = 0;
		u64map_init(&r->kind_cache, 1024);
/* bts-series: end */
		u64map_init(&r->src_cache, 1024);
	}
}

/* Texts are at most this long; longer names are cut (the JSON has them whole). */
#define MAX_TEXT	1024

/* Past this many addresses the table starts again empty (1M x 64 bytes). */
#define MAX_ADDRS	(1u << 20)

void resolver_make_room(struct resolver *r)
{
	size_t old_mask = r->addrs_mask;
	struct addr_info *old = r->addrs;

	if (r->addrs_n >= MAX_ADDRS) {
		memset(r->addrs, 0, (r->addrs_mask + 1) * sizeof(*r->addrs));
		r->addrs_n = 0;
		r->text_len = 0;
		r->src_len = 0;		/* only slots refer to it when there are symbols */
		return;
	}
	r->addrs_mask = old_mask * 2 + 1;
	r->addrs = alloc_addrs(r->addrs_mask);
	for (size_t j = 0; j <= old_mask; j++) {
		size_t i;

		if (!old[j].addr)
			continue;
		for (i = hash64(old[j].addr) & r->addrs_mask; r->addrs[i].addr;
		     i = (i + 1) & r->addrs_mask)
			;
		r->addrs[i] = old[j];
	}
	free(old);
}

const struct addr_info *resolve_addr_slow(struct resolver *r, uint64_t addr,
					  struct addr_info *slot)
{
	const struct sym *s = symtab_lookup(&r->st, addr - r->bias);
	char buf[MAX_TEXT + 128];
	size_t scratch = SIZE_MAX;
	struct out o;

	/*
	 * Keep a free slot: a lookup in a full table would never end. Callers
	 * outside the walk (--hist's rows) do not make room between lookups,
	 * so past 3/4 full an address goes to a scratch slot, not the table;
	 * four of them, so one record's addresses stay valid together.
	 */
	if ((r->addrs_n + 1) * 4 > (r->addrs_mask + 1) * 3) {
		scratch = r->scratch_next++ % ARRAY_SIZE(r->scratch);
		slot = &r->scratch[scratch];
	} else {
		r->addrs_n++;
	}
	*slot = (struct addr_info){ .addr = addr, .s = s, .text_inline = 1 };
	if (!s)
		return slot;
	o = (struct out){ .fd = -1, .buf = buf, .cap = sizeof(buf) };
	out_mem(&o, sym_name(&r->st, s), s->name_len < MAX_TEXT ? s->name_len : MAX_TEXT);
	out_str(&o, "+0x");
	out_hex(&o, addr - r->bias - s->addr);
	if (s->module) {
		const char *m = r->st.pool + s->module;
		size_t n = strlen(m);

		out_char(&o, ' ');
		out_mem(&o, m, n < 64 ? n : 64);
	}
	slot->text_len = (uint16_t)o.len;
	slot->at_entry = addr - r->bias == s->addr;
	if (o.len <= sizeof(slot->text)) {
		memcpy(slot->text, buf, o.len);
		return slot;
	}
	if (scratch != SIZE_MAX) {
		memcpy(r->scratch_text[scratch], buf, o.len);
		slot->text_inline = 2;
		slot->text_off = (uint32_t)scratch;
		return slot;
	}
	/* Offsets, not pointers, refer to the arena: it may move. */
	if (r->text_len + o.len + 16 > r->text_cap) {
		r->text_cap = (r->text_len + o.len + 16) * 2;
		r->text_arena = xrealloc(r->text_arena, r->text_cap);
	}
	memcpy(r->text_arena + r->text_len, buf, o.len);
	slot->text_inline = 0;
	slot->text_off = (uint32_t)r->text_len;
	r->text_len += o.len + 16;	/* slack for 16-byte chunk copies */
	return slot;
}

/*
 * Source locations live in src_pool as a 16-bit length, the text and a NUL;
 * an address slot (or, without symbols, src_cache) keeps pool offset + 2,
 * or 1 for "no location".
 */
static uint64_t lookup_src(struct resolver *r, uint64_t addr)
{
	char buf[1024];
	struct image *img = r->vmlinux;
	uint64_t at = addr - r->image_bias, off;
	uint16_t n16;
	size_t n;

	if (r->nmodules && r->have_syms) {
		const struct sym *s = symtab_lookup(&r->st, addr - r->bias);

		/* Module text: its .ko, at the addresses of the symbol table. */
		if (s && s->module) {
			img = module_image(r, r->st.pool + s->module);
			at = addr - r->bias;
		}
	}
	n = img ? image_srcline(img, at, buf, sizeof(buf)) : 0;
	if (!n || r->src_len + n + 3 >= UINT32_MAX)
		return 1;
	if (r->src_len + n + 3 > r->src_cap) {
		r->src_cap = (r->src_cap + n + 3) * 2;
		r->src_pool = xrealloc(r->src_pool, r->src_cap);
	}
	off = r->src_len;
	n16 = (uint16_t)n;
	memcpy(r->src_pool + off, &n16, 2);
	memcpy(r->src_pool + off + 2, buf, n + 1);
	r->src_len += n + 3;
	return off + 2;
}

const char *resolve_src(struct resolver *r, uint64_t addr, size_t *len)
{
	uint64_t v;
	uint16_t n16;

	if (!r->want_src || (!r->vmlinux && !r->nmodules) || addr_is_user(addr))
		return NULL;
	if (r->have_syms) {
		/* The address's own slot: no second table to look up. */
		struct addr_info *slot = (struct addr_info *)resolve_addr(r, addr);

		if (!slot->src)
			slot->src = (uint32_t)lookup_src(r, addr);
		v = slot->src;
	} else {
		uint64_t *c = u64map_get(&r->src_cache, addr, 0);

		if (!*c)
			*c = lookup_src(r, addr);
		v = *c;
	}
	if (v == 1)
		return NULL;
	memcpy(&n16, r->src_pool + v - 2, 2);
	*len = n16;
	return r->src_pool + v;
}

void resolve_addr_many(struct resolver *r, uint64_t *addrs, size_t n)
{
	if (!r->have_syms || n < 2)
		return;
	sort_u64(addrs, n);
	for (size_t i = 0, done = 0; i < n && done < MAX_ADDRS / 2; i++) {
		if (i && addrs[i] == addrs[i - 1])
			continue;
		resolver_between_records(r);
		resolve_addr(r, addrs[i]);
		done++;
	}
}

void resolve_src_many(struct resolver *r, uint64_t *addrs, size_t n)
{
	if (!r->want_src || (!r->vmlinux && !r->nmodules) || n < 2)
		return;
	size_t len;

	sort_u64(addrs, n);
	for (size_t i = 0; i < n; i++) {
		if (i && addrs[i] == addrs[i - 1])
			continue;
		resolver_between_records(r);
		resolve_src(r, addrs[i], &len);
	}
}

/* bts-series: from dump-kinds */
static enum branch_kind kind_of_insn(const cs_insn *insn)
{
	switch (insn->id) {
	case X86_INS_CALL:
	case X86_INS_LCALL:
		return KIND_CALL;
	case X86_INS_RET:
	case X86_INS_RETF:
	case X86_INS_RETFQ:
		return KIND_RET;
	case X86_INS_JMP:
	case X86_INS_LJMP:
		return KIND_JMP;
	case X86_INS_SYSCALL:
	case X86_INS_SYSENTER:
		return KIND_SYSCALL;
	case X86_INS_SYSRET:
	case X86_INS_SYSEXIT:
		return KIND_SYSRET;
	case X86_INS_IRET:
	case X86_INS_IRETD:
	case X86_INS_IRETQ:
		return KIND_IRET;
	case X86_INS_INT:
	case X86_INS_INT1:
	case X86_INS_INT3:
	case X86_INS_INTO:
	case X86_INS_UD0:
	case X86_INS_UD2:
	case X86_INS_UD2B:
		return KIND_INT;
	default:
		break;
	}
	if (insn->detail) {
		for (int i = 0; i < insn->detail->groups_count; i++)
			if (insn->detail->groups[i] == CS_GRP_JUMP)
				return KIND_JCC;	/* jcc, jrcxz, loop */
	}
	/* Not a branch: the CPU left this instruction for an interrupt or fault. */
	return KIND_EXC;
}

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* Thunks the kernel's compiler calls and its boot code rewrites, by name. */
static uint8_t thunk_kind(struct resolver *r, uint64_t target)
{
	const struct sym *s;
	const char *name;

	if (!r->have_syms || addr_is_user(target))
		return THUNK_NONE;
	s = symtab_lookup(&r->st, target - r->bias);
	if (!s)
		return THUNK_NONE;
	name = sym_name(&r->st, s);
	if (ends_with(name, "return_thunk") || ends_with(name, "_safe_ret") ||
	    !strcmp(name, "__x86_return_skl"))
		return THUNK_RETURN;
	if (starts_with(name, "__x86_indirect_"))
		return THUNK_INDIRECT;
	if (starts_with(name, "__SCT__"))
		return THUNK_STATIC_CALL;
	return THUNK_NONE;
}

size_t resolver_read_text(struct resolver *r, uint64_t addr, uint8_t *buf, size_t len)
{
	size_t n = 0;

	if (r->kcore)
		n = image_read(r->kcore, addr, buf, len);
	if (!n && r->vmlinux && !addr_is_user(addr))
		n = image_read(r->vmlinux, addr - r->image_bias, buf, len);
	return n;
}

bool resolver_insn(struct resolver *r, uint64_t addr, struct insn_text *it)
{
	csh h = (csh)(uintptr_t)r->cs;
	uint8_t bytes[16];
	cs_insn *insn;
	size_t n;

	if (!r->cs)
		return false;
	n = resolver_read_text(r, addr, bytes, sizeof(bytes));
	if (!n || cs_disasm(h, bytes, n, addr, 1, &insn) != 1)
		return false;
	it->size = insn->size;
	it->kind = kind_of_insn(insn);
	snprintf(it->text, sizeof(it->text), "%s%s%s", insn->mnemonic, insn->op_str[0] ? " " : "",
		 insn->op_str);
	cs_free(insn, 1);
	return true;
}

/* Decode the instruction at runtime @addr; kind KIND_NR if its bytes are unknown. */
static struct decoded_insn decode(struct resolver *r, uint64_t addr)
{
	struct decoded_insn d = { .kind = KIND_NR };
	csh h = (csh)(uintptr_t)r->cs;
	uint8_t bytes[16];
	cs_insn *insn;
	size_t n;
	uint64_t t;

	n = resolver_read_text(r, addr, bytes, sizeof(bytes));
	if (r->vmlinux && !addr_is_user(addr)) {
		if (image_jump_label(r->vmlinux, addr - r->image_bias, &t)) {
			d.jump_label = 1;
			d.jl_target = t + r->image_bias;
		}
		d.alternative = image_in_alternative(r->vmlinux, addr - r->image_bias);
	}
	if (!n)
		return d;
	if (cs_disasm(h, bytes, n, addr, 1, &insn) != 1) {
		d.kind = KIND_EXC;	/* undecodable: not a branch we know */
		return d;
	}
	d.kind = kind_of_insn(insn);
	d.nop = insn->id == X86_INS_NOP ||
		(insn->size == 2 && bytes[0] == 0x66 && bytes[1] == 0x90);
	if ((d.kind == KIND_CALL || d.kind == KIND_JMP || d.kind == KIND_JCC) && insn->detail &&
	    insn->detail->x86.op_count == 1 && insn->detail->x86.operands[0].type == X86_OP_IMM) {
		d.direct = 1;
		d.target = (uint64_t)insn->detail->x86.operands[0].imm;
		d.thunk = thunk_kind(r, d.target);
	}
	cs_free(insn, 1);
	return d;
}

bool resolver_branch_target(struct resolver *r, uint64_t addr, uint64_t *target)
{
	uint64_t shift = 0;
	struct decoded_insn d;
	uint64_t saved = r->image_bias;

	if (!r->vmlinux || !r->cs || addr_is_user(addr))
		return false;
	/* Symbol-table addresses: move them as the table's _stext is moved. */
	if (r->st.stext && image_stext(r->vmlinux))
		shift = r->st.stext - image_stext(r->vmlinux);
	r->image_bias = shift;
	d = decode(r, addr);
	r->image_bias = saved;
	if (!d.direct || (d.kind != KIND_CALL && d.kind != KIND_JMP && d.kind != KIND_JCC))
		return false;
	*target = d.target;
	return true;
}

/* Where interrupts and exceptions enter the kernel (IDT entries, by name). */
static bool is_entry(struct resolver *r, const struct addr_info *ai)
{
	const char *name;

	if (!ai->s)
		return false;
	name = sym_name(&r->st, ai->s);
	return starts_with(name, "asm_") || starts_with(name, "irq_entries_start") ||
	       starts_with(name, "spurious_entries_start") || starts_with(name, "entry_");
}

/*
 * The kind of a record, from the instruction at its 'from', checked
 * against where the CPU went. Bytes from a vmlinux are the code before
 * the kernel rewrote itself at boot: a "jmp __x86_return_thunk" may have
 * become a ret, a static key's NOP a jmp, an alternative or a static call
 * something else. What the name of the target or the vmlinux's tables
 * explain gets its real kind; what they do not is "patched", not a guess.
 */
static enum branch_kind checked_kind(struct resolver *r, const struct decoded_insn *d,
				     const struct bts_rec *rec, const struct addr_info *ti)
{
	enum branch_kind k = (enum branch_kind)d->kind;

	if (d->direct) {
		if (d->target == rec->to)
			return k;
		/* A return, unless it went to another return thunk (ITS, SRSO). */
		if (d->thunk == THUNK_RETURN && k == KIND_JMP)
			return thunk_kind(r, rec->to) == THUNK_RETURN ? KIND_JMP : KIND_RET;
		if (d->thunk == THUNK_INDIRECT || d->thunk == THUNK_STATIC_CALL)
			return k;	/* the target is chosen at run time */
		return is_entry(r, ti) ? KIND_EXC : KIND_PATCHED;
	}
	if (d->nop) {
		if (d->jump_label && d->jl_target == rec->to)
			return KIND_JMP;
		return is_entry(r, ti) ? KIND_EXC : KIND_PATCHED;
	}
	if (k == KIND_EXC && d->alternative && !is_entry(r, ti))
		return KIND_PATCHED;
	return k;
}

struct classified classify(struct resolver *r, const struct bts_rec *rec,
			   const struct addr_info *fi, const struct addr_info *ti)
{
	const struct sym *from = fi->s, *to = ti->s;

	struct classified c = { KIND_BRANCH, true };

	if (rec->flags & BTS_FLAG_SW)
		return (struct classified){ KIND_CALL, false };
	/* A cleared from is no address: whatever bytes are at 0 are not its. */
	if (r->cs && !rec_from_cleared(rec)) {
		uint64_t *v = u64map_get(&r->kind_cache, rec->from, 0);

		if (!*v) {
			if (r->ninsns == r->insns_cap) {
				r->insns_cap = r->insns_cap ? r->insns_cap * 2 : 1024;
				r->insns = xrealloc(r->insns, r->insns_cap * sizeof(*r->insns));
			}
			r->insns[r->ninsns++] = decode(r, rec->from);
			*v = r->ninsns;
		}
		if (r->insns[*v - 1].kind != KIND_NR)
			return (struct classified){ checked_kind(r, &r->insns[*v - 1], rec, ti),
						    false };
	}
	/* No bytes, or no from: infer what the symbols allow, and say it is a guess. */
	if (addr_is_user(rec->from) && !addr_is_user(rec->to))
		c.kind = KIND_SYSCALL;
	else if (!addr_is_user(rec->from) && addr_is_user(rec->to))
		c.kind = KIND_SYSRET;
	else if (to && ti->at_entry && to != from)
		c.kind = KIND_CALL;
	else if (from && to && from == to)
		c.kind = KIND_JMP;
	else if (from && to)
		c.kind = KIND_RET;
	return c;
}
/* bts-series: end */
