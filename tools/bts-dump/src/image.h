/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bts-dump (decoder layer): an ELF image of kernel text: a vmlinux (link
 * addresses, symbols, DWARF) or /proc/kcore (runtime addresses, the live
 * instruction bytes). Read through libelf and libdw; never executed.
 */
#ifndef BTS_DUMP_IMAGE_H
#define BTS_DUMP_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct symtab;
struct image;

/*
 * Open @path; load its symbols into @st if @st is not NULL, and its DWARF
 * if @dwarf (a vmlinux; /proc/kcore has neither).
 */
struct image *image_open(const char *path, struct symtab *st, bool dwarf);
void image_close(struct image *img);

/*
 * A kernel module's .ko file (ET_REL) as loaded: libdwfl reports it
 * offline and relocates its DWARF with each section at the runtime address
 * that @st (a kallsyms with "[@modname]" symbols, want_names) implies.
 * Addresses are then runtime addresses; there are no instruction bytes.
 */
struct image *image_open_module(const char *path, const char *modname, const struct symtab *st);

/* Copy up to @n bytes of the image at address @addr; returns bytes copied. */
size_t image_read(struct image *img, uint64_t addr, uint8_t *buf, size_t n);

/* bts-series: from dump-kinds */
/*
 * Whether the kernel rewrites the instruction at link address @addr at
 * boot: a static key (jump label; *@target is where it jumps when on) or
 * an alternative. Only a vmlinux has these tables.
 */
bool image_jump_label(struct image *img, uint64_t addr, uint64_t *target);
bool image_in_alternative(struct image *img, uint64_t addr);

/* bts-series: end */
/* Link address of _stext in the image's symbol table, or 0. */
uint64_t image_stext(struct image *img);

/* The image's GNU build ID (NT_GNU_BUILD_ID); returns its size, 0 if none. */
size_t image_build_id(struct image *img, const uint8_t **id);

/* Whether the image has DWARF line information. */
int image_has_dwarf(struct image *img);

/*
 * bts-series: until dump-inline
 * Write the source location of @addr as "file:line" into @buf. Returns the
 * length, or 0 if DWARF does not know @addr.
 * bts-series: end
 * bts-series: from dump-inline
 * Write the source location of @addr as "file:line", followed by the inline
 * chain, e.g. "include/linux/list.h:88 list_add inlined at mm/slub.c:9",
 * into @buf. Returns the length, or 0 if DWARF does not know @addr.
 * bts-series: end
 */
size_t image_srcline(struct image *img, uint64_t addr, char *buf, size_t len);

#endif /* BTS_DUMP_IMAGE_H */
