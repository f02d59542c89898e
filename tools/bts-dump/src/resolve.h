/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bts-dump (decoder layer): what an address means. Combines the symbol
 * table, the vmlinux (DWARF lines, inline frames), the instruction bytes
 * (vmlinux or /proc/kcore) decoded with capstone, and the KASLR bias of the
 * dump being read. Results per address are cached: a branch history repeats
 * the same few hundred addresses.
 */
#ifndef BTS_DUMP_RESOLVE_H
#define BTS_DUMP_RESOLVE_H

#include <stdbool.h>
#include <stdint.h>

#include "dump.h"
#include "symtab.h"
#include "util.h"

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
	KIND_NR,
};

extern const char *const kind_names[KIND_NR];

struct classified {
	enum branch_kind kind;
	bool guessed;	/* inferred from symbols, not decoded */
};

struct image;

#define SYM_CACHE_SIZE	8192	/* power of two */

struct resolver {
	struct symtab st;
	bool have_syms;
	struct image *vmlinux;		/* symbols, lines, bytes (link addresses) */
	struct image *kcore;		/* bytes (runtime addresses) */
	bool want_src;			/* print file:line (needs vmlinux DWARF) */
	bool want_decode;		/* decode instructions when bytes exist */
	uint64_t bias;			/* runtime - table address, this dump */
	uint64_t image_bias;		/* runtime - vmlinux address, this dump */
	const struct sym *last;		/* last symbol found: branches stay near */
	struct {			/* recent lookups by table address */
		uint64_t addr;		/* 0: empty (0 is never looked up) */
		const struct sym *s;
	} sym_cache[SYM_CACHE_SIZE];
	void *cs;			/* capstone handle */
	struct u64map kind_cache;	/* runtime from -> enum branch_kind + 1 */
	struct u64map src_cache;	/* runtime addr -> src_pool offset + 1 */
	char *src_pool;
	size_t src_len, src_cap;
};

void resolver_init(struct resolver *r);
void resolver_free(struct resolver *r);
int resolver_add_symbols(struct resolver *r, const char *path);
int resolver_add_vmlinux(struct resolver *r, const char *path);
int resolver_add_kcore(struct resolver *r, const char *path);
/* Call after the add_* calls, before the first lookup. */
void resolver_ready(struct resolver *r);
/* Set the KASLR bias for the records of @d. */
void resolver_set_dump(struct resolver *r, const struct bts_dump *d);

static inline bool addr_is_user(uint64_t addr)
{
	return !(addr >> 63);
}

/* Symbol containing runtime address @addr, or NULL (user or unknown). */
static inline const struct sym *resolve_sym(struct resolver *r, uint64_t addr)
{
	const struct sym *s;

	if (!r->have_syms || addr_is_user(addr))
		return NULL;
	addr -= r->bias;
	s = r->last;
	if (s && addr >= s->addr && addr < s->end)
		return s;
	size_t slot = (size_t)((addr ^ addr >> 13) & (SYM_CACHE_SIZE - 1));

	if (r->sym_cache[slot].addr == addr) {
		s = r->sym_cache[slot].s;
	} else {
		s = symtab_lookup(&r->st, addr);
		r->sym_cache[slot].addr = addr;
		r->sym_cache[slot].s = s;
	}
	if (s)
		r->last = s;
	return s;
}

static inline uint64_t sym_offset(const struct resolver *r, const struct sym *s,
				  uint64_t addr)
{
	return addr - r->bias - s->addr;
}

/* "file:line [inline chain]" for runtime @addr, or NULL. */
const char *resolve_src(struct resolver *r, uint64_t addr);

struct classified classify(struct resolver *r, const struct bts_rec *rec,
			   const struct sym *from, const struct sym *to);

#endif /* BTS_DUMP_RESOLVE_H */
