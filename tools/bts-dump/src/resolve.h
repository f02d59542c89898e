/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bts-dump (decoder layer): what an address means. Combines the symbol
 * bts-series: until dump-kinds
 * table, the vmlinux (DWARF lines, inline frames) and the KASLR bias of
 * the dump being read. Results per address are cached: a branch history
 * repeats the same few hundred addresses.
 * bts-series: end
 * bts-series: from dump-kinds
 * table, the vmlinux (DWARF lines, inline frames), the instruction bytes
 * (vmlinux or /proc/kcore) decoded with capstone, and the KASLR bias of the
 * dump being read. Results per address are cached: a branch history repeats
 * the same few hundred addresses.
 * bts-series: end
 */
#ifndef BTS_DUMP_RESOLVE_H
#define BTS_DUMP_RESOLVE_H

#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>

#include "dump.h"
#include "symtab.h"
#include "util.h"

/* bts-series: from dump-kinds */
enum branch_kind {
	KIND_BRANCH,	/* a taken branch of unknown kind */
	KIND_CALL,
	KIND_RET,
	KIND_JMP,
	KIND_JCC,
	KIND_SYSCALL,	/* syscall, sysenter */
	KIND_SYSRET,	/* sysret, sysexit */
	KIND_IRET,
	KIND_INT,	/* int n, int3, ud2: software interrupt or trap */
	KIND_EXC,	/* from is no branch: an interrupt or exception */
	KIND_PATCHED,	/* the vmlinux's bytes do not go there: rewritten at run time */
	KIND_NR,
};

extern const char kind_names[KIND_NR][8];

struct classified {
	enum branch_kind kind;
	bool guessed;	/* inferred from symbols, not decoded */
};
/* bts-series: end */

struct image;

/* bts-series: from dump-kinds */
/* What the instruction at a record's 'from' is, decoded once. */
struct decoded_insn {
	uint64_t target;	/* direct branches: where the bytes say (runtime) */
	uint64_t jl_target;	/* static-key sites: where the key jumps (runtime) */
	uint8_t kind;		/* enum branch_kind; KIND_NR: no bytes */
	uint8_t direct;		/* has an immediate target */
	uint8_t nop;
	uint8_t thunk;		/* THUNK_*: the target is known by name */
	uint8_t jump_label;	/* a __jump_table site */
	uint8_t alternative;	/* inside an .altinstructions site */
};

enum {
	THUNK_NONE,
	THUNK_RETURN,		/* __x86_return_thunk & co: patched into ret */
	THUNK_INDIRECT,		/* __x86_indirect_*thunk*: retpolines */
	THUNK_STATIC_CALL,	/* __SCT__*: static call trampolines */
};
/* bts-series: end */

/*
 * What one runtime address is: its symbol and "sym+0xoff [mod]" ready to
 * print, one cache line per address, in a hash table that holds every
 * address seen (a branch history repeats a few thousand of them).
 */
struct addr_info {
	alignas(64) uint64_t addr;		/* 0: empty slot (0 is never looked up) */
	const struct sym *s;	/* NULL: user or unknown */
	uint32_t text_off;	/* in resolver.text_arena when not inline */
	uint16_t text_len;	/* 0 without a symbol */
	uint8_t at_entry;	/* the address is the symbol's first byte */
	uint8_t text_inline;	/* 1: in @text, 2: in resolver.scratch_text */
	uint32_t src;		/* source line: 0 not looked up, 1 none, else pool offset + 2 */
	char text[36];
};

struct resolver {
	struct symtab st;
	bool have_syms;
	struct image *vmlinux;		/* symbols, lines, bytes (link addresses) */
	const char *vmlinux_path, *symbols_path;	/* for messages */
/* bts-series: from dump-kinds */
	struct image *kcore;		/* bytes (runtime addresses) */
/* bts-series: end */
	const char *modules_dir;	/* .ko files with DWARF, or NULL */
	struct module_file *modules;	/* found under modules_dir */
	size_t nmodules;
	bool want_src;			/* print file:line (needs vmlinux DWARF) */
/* bts-series: from dump-kinds */
	bool want_decode;		/* decode instructions when bytes exist */
/* bts-series: end */
	uint64_t bias;			/* runtime - table address, this dump */
	uint64_t image_bias;		/* runtime - vmlinux address, this dump */
	struct addr_info *addrs;	/* open addressing, mask + 1 slots */
	size_t addrs_mask, addrs_n;
	char *text_arena;		/* texts longer than addr_info.text */
	struct addr_info scratch[4];	/* lookups past the table's fill limit */
	char scratch_text[4][1024 + 128 + 16];
	unsigned int scratch_next;
	size_t text_len, text_cap;
/* bts-series: from dump-kinds */
	void *cs;			/* capstone handle */
	struct u64map kind_cache;	/* runtime from -> index in insns + 1 */
	struct decoded_insn *insns;	/* what each decoded 'from' is */
	size_t ninsns, insns_cap;
/* bts-series: end */
	struct u64map src_cache;	/* runtime addr -> src_pool offset + 1 */
	char *src_pool;
	size_t src_len, src_cap;
};

void resolver_init(struct resolver *r);
void resolver_free(struct resolver *r);
int resolver_add_symbols(struct resolver *r, const char *path);
int resolver_add_vmlinux(struct resolver *r, const char *path);
/* bts-series: from dump-kinds */
int resolver_add_kcore(struct resolver *r, const char *path);
/* bts-series: end */
/* A directory (searched down) of .ko files with debug info, for module lines. */
int resolver_add_modules(struct resolver *r, const char *dir);
/* Call after the add_* calls, before the first lookup. */
void resolver_ready(struct resolver *r);
/*
 * Whether the vmlinux and the symbol table belong to the kernel that wrote
 * @d, as far as its header tells (build ID; runtime _etext): 0, or -1 with
 * a one-line description of the mismatch in @why. Dumps of older kernels,
 * without these fields, always pass.
 */
int resolver_check_kernel(struct resolver *r, const struct bts_dump *d, char *why,
			  size_t len);
/* Set the KASLR bias for the records of @d. */
void resolver_set_dump(struct resolver *r, const struct bts_dump *d);

static inline bool addr_is_user(uint64_t addr)
{
	return !(addr >> 63);
}

const struct addr_info *resolve_addr_slow(struct resolver *r, uint64_t addr,
					  struct addr_info *slot);

/*
 * Symbol and printable text of runtime address @addr. The pointer stays
 * valid until resolver_between_records(): take all of one record's
 * addresses, use them, then call it.
 */
static inline const struct addr_info *resolve_addr(struct resolver *r, uint64_t addr)
{
	static const struct addr_info none;
	size_t i;

	if (!r->have_syms || addr_is_user(addr))
		return &none;
	for (i = hash64(addr) & r->addrs_mask; r->addrs[i].addr; i = (i + 1) & r->addrs_mask)
		if (r->addrs[i].addr == addr)
			return &r->addrs[i];
	return resolve_addr_slow(r, addr, &r->addrs[i]);
}

/* Start loading @addr's slot now; resolve_addr() on it comes later. */
static inline void resolve_prefetch(const struct resolver *r, uint64_t addr)
{
	const void *p = &r->addrs[hash64(addr) & r->addrs_mask];

	if (addr_is_user(addr))
		return;
#if defined(__x86_64__)
	/* gcc 12 -O2 drops __builtin_prefetch here; say it in asm. */
	__asm__ volatile("prefetcht0 %0" : : "m"(*(const char *)p));
#else
	__builtin_prefetch(p);
#endif
}

static inline const char *addr_text(const struct resolver *r, const struct addr_info *ai)
{
	if (ai->text_inline == 1)
		return ai->text;
	return ai->text_inline ? r->scratch_text[ai->text_off] : r->text_arena + ai->text_off;
}

/* Room for a record's addresses; may move or empty the table. */
void resolver_make_room(struct resolver *r);

static inline void resolver_between_records(struct resolver *r)
{
	if ((r->addrs_n + 4) * 4 > (r->addrs_mask + 1) * 3)
		resolver_make_room(r);
}

/* Symbol containing runtime address @addr, or NULL (user or unknown). */
static inline const struct sym *resolve_sym(struct resolver *r, uint64_t addr)
{
	return resolve_addr(r, addr)->s;
}

static inline uint64_t sym_offset(const struct resolver *r, const struct sym *s,
				  uint64_t addr)
{
	return addr - r->bias - s->addr;
}

/* "file:line [inline chain]" for runtime @addr and its length, or NULL. */
const char *resolve_src(struct resolver *r, uint64_t addr, size_t *len);

/*
 * Look up the locations of @addrs (sorted here) ahead of printing: in
 * address order, one CU's line table and scopes after the other, the
 * lookups stay in the cache instead of jumping across the DWARF.
 */
void resolve_src_many(struct resolver *r, uint64_t *addrs, size_t n);
/* The same for the symbols of @addrs. */
void resolve_addr_many(struct resolver *r, uint64_t *addrs, size_t n);

/* bts-series: from dump-kinds */
struct classified classify(struct resolver *r, const struct bts_rec *rec,
			   const struct addr_info *from, const struct addr_info *to);

/*
 * Where the direct branch at @addr (an address of the symbol table, not
 * of a dump) goes, from the vmlinux's bytes; false if it is none.
 */
bool resolver_branch_target(struct resolver *r, uint64_t addr, uint64_t *target);

/* Instruction bytes at runtime @addr (--kcore, else the vmlinux); count read. */
size_t resolver_read_text(struct resolver *r, uint64_t addr, uint8_t *buf, size_t len);

/* One instruction, decoded. */
struct insn_text {
	uint8_t size;
	enum branch_kind kind;	/* KIND_EXC: not a branch */
	char text[200];		/* "mnemonic operands" */
};

/* Decode the instruction at runtime @addr; false without bytes or decoder. */
bool resolver_insn(struct resolver *r, uint64_t addr, struct insn_text *it);
/* bts-series: end */

#endif /* BTS_DUMP_RESOLVE_H */
