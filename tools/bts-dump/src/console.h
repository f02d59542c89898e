/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bts-dump (decoder layer): branch histories from text: the lines that
 * ftrace_dump_on_oops prints to the console (a serial log, netconsole,
 * pstore, the next boot's dmesg) and the tracing/trace file show for
 * ftrace:bts entries, "cpu=N POS/NR FROM -> TO [fault] [sw] REASON" with
 * FROM and TO as %pS prints them (Documentation/trace/bts.rst). Symbol
 * names are turned back into addresses once the symbol table is ready.
 */
#ifndef BTS_DUMP_CONSOLE_H
#define BTS_DUMP_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dump.h"

struct symtab;
/* bts-series: from dump-console-dups */
struct resolver;
/* bts-series: end */

/* Addresses still to be found by name, for console_resolve(). */
struct console_pending {
	struct console_ref *refs;	/* two per record: from, to */
	size_t n, cap;
	char *pool;			/* symbol and module names */
	size_t pool_len, pool_cap;
	bool mentions_release;		/* the text names the running kernel's release */
	/* bts_history lines: 0 none, 1 all of the running kernel's release, 2 not */
	int header_release;
};

/* Whether @buf (the first bytes of a file) reads as text. */
bool console_is_text(const uint8_t *buf, size_t len);

/*
 * Read the bts lines of the text file open as @fd and append one dump per
 * history to @list, their addresses pending in @pend. @release, if not
 * NULL, is looked for in the text. Return: 0, or -1 after one message.
 */
int console_load(const char *path, int fd, struct dump_list *list, struct console_pending *pend,
		 const char *release);

/*
 * bts-series: until dump-console-dups
 * Fill in the pending addresses from @st (finished with want_names).
 * bts-series: end
 * bts-series: from dump-console-dups
 * Fill in the pending addresses from @st (finished with want_names); with
 * @r's vmlinux, direct branches tell apart static functions of one name.
 * bts-series: end
 * Return: 0; -1 if some names are not in @st (one message); -2 if some
 * offsets are past the end of their symbol in @st (@st belongs to another
 * kernel: one message; with @force a warning and 0).
 */
int console_resolve(struct console_pending *pend, struct dump_list *list, const struct symtab *st,
/* bts-series: until dump-console-dups */
//~		    bool force);
/* bts-series: end */
/* bts-series: from dump-console-dups */
		    bool force, struct resolver *r);
/* bts-series: end */

void console_pending_free(struct console_pending *pend);

#endif /* BTS_DUMP_CONSOLE_H */
