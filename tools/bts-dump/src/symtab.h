/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bts-dump (decoder layer): address -> symbol. One sorted table, built once
 * from /proc/kallsyms, a System.map or a vmlinux symbol table, then searched
 * through a bucket index (a binary search over a handful of entries). No
 * per-lookup allocation.
 */
#ifndef BTS_DUMP_SYMTAB_H
#define BTS_DUMP_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sym {
	uint64_t addr;
	uint64_t end;		/* first address past the symbol */
	uint32_t name;		/* offset into symtab.pool */
	uint16_t name_len;
	uint8_t rank;		/* lower wins among aliases at one address */
	uint8_t text;		/* code: kept for lookups */
	uint32_t module;	/* offset of "[mod]" in pool, 0 if none */
};

/*
 * A text symbol by name, as kallsyms has it (aliases and all): for input
 * that names addresses ("sym+0xoff/0xsize [mod]", console text).
 */
struct sym_name {
	uint64_t addr, size;
	uint32_t name;		/* offset into symtab.pool */
	uint16_t name_len;
	uint32_t module;	/* offset of "[mod]" in pool, 0 if none */
};

struct symtab {
	struct sym *syms;
	uint64_t *addrs;	/* syms[i].addr, dense for searching */
	size_t n, cap;
	char *pool;
	size_t pool_len, pool_cap;
	bool link_addresses;	/* System.map / vmlinux, not a live kallsyms */
	uint64_t stext;		/* address of _stext in this table, 0 if none */
	uint64_t etext;		/* address of _etext in this table, 0 if none */
	/* bucket index over the densest range [idx_lo, idx_hi) */
	uint64_t idx_lo, idx_hi;
	unsigned int idx_shift;
	uint32_t *bucket;
	size_t nbuckets;
	bool want_names;	/* symtab_finish() keeps the name index */
	struct sym_name *names;
	size_t nnames;
	uint32_t *name_slots;	/* open addressing: index in names + 1 */
	size_t name_mask;
};

void symtab_init(struct symtab *st);
void symtab_free(struct symtab *st);

/* Add one symbol; @size 0 means "up to the next symbol". */
void symtab_add(struct symtab *st, uint64_t addr, uint64_t size, char type,
		const char *name, size_t name_len, const char *module, size_t mod_len);

/* Load kallsyms/System.map text ("addr type name [module]" lines). */
int symtab_load_kallsyms(struct symtab *st, const char *path);
/* The same from memory; @path names it in messages. */
int symtab_parse_kallsyms(struct symtab *st, const char *buf, size_t len, const char *path);

/* Sort, drop aliases, compute ends, build the index. Call once. */
void symtab_finish(struct symtab *st);

const struct sym *symtab_lookup(const struct symtab *st, uint64_t addr);

/*
 * The address of text symbol @name (in module @mod, "[mod]", or the core
 * kernel if @mod_len is 0), built by symtab_finish() when want_names is
 * set. Among symbols of that name, one of @size (0: any) that @off fits
 * in is taken, else one @off fits in.
 * Return: 0 found, 1 found but ambiguous (the first taken), 2 found but
 * @off is past the end of every symbol of that name (another kernel's
 * symbols?), -1 not found.
 */
int symtab_find_name(const struct symtab *st, const char *name, size_t len, const char *mod,
		     size_t mod_len, uint64_t size, uint64_t off, uint64_t *addr);

/* The starts of every symbol symtab_find_name() chose among (at most @max). */
size_t symtab_name_starts(const struct symtab *st, const char *name, size_t len, const char *mod,
			  size_t mod_len, uint64_t size, uint64_t off, uint64_t *starts,
			  size_t max);

/*
 * The pool keeps 16 readable bytes after every name, so a name may be
 * copied in whole 16-byte chunks (see out_sym_name()).
 */
static inline const char *sym_name(const struct symtab *st, const struct sym *s)
{
	return st->pool + s->name;
}

#endif /* BTS_DUMP_SYMTAB_H */
