/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bts-dump (decoder layer): branch histories from a trace.dat, the file
 * trace-cmd record/extract writes. Its ftrace:bts entries (the event
 * format in Documentation/trace/bts.rst) are read with libtracecmd and
 * grouped back into one struct bts_dump per history. libtracecmd is
 * optional: built without it, only tracedat_magic() works.
 */
#ifndef BTS_DUMP_TRACEDAT_H
#define BTS_DUMP_TRACEDAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dump.h"

struct symtab;

/* Whether @buf (the first bytes of a file) starts like a trace.dat. */
bool tracedat_magic(const uint8_t *buf, size_t len);

/*
 * Read the histories of the trace.dat open as @fd (named @path in
 * messages; @fd is not closed) and append them to @list. If @st is not
 * NULL and the file saved /proc/kallsyms, its symbols go into @st.
 * Return: 0, or -1 after one message.
 */
int tracedat_load(const char *path, int fd, struct dump_list *list, struct symtab *st);

/* How many times the reading child died of a signal (for the fuzzer). */
extern size_t tracedat_child_crashes;

/*
 * Whether this bts-dump reads trace.dat files: built with libtracecmd
 * (HAVE_LIBTRACECMD). Without it tracedat_load() refuses each in one line.
 */
extern const bool tracedat_supported;

#endif /* BTS_DUMP_TRACEDAT_H */
