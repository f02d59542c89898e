// SPDX-License-Identifier: GPL-2.0
/*
 * libtraceevent plugin for the ftrace:bts entry: makes `trace-cmd report`
 * print bts branch records the way bts-dump does: kind, call-depth
 * indentation, kernel/user transitions, the fault mark, and the source
 * (hardware BTS or the software call-edge source). A user half the kernel
 * cleared (bts_user 0: flag bit 61, the half 0) prints as [user], not 0x0.
 *
 * Without it trace-cmd uses the entry's print fmt
 * ("cpu=%u %u/%u %pS -> %pS @%08x:%08x%s%s"), which stays correct, only
 * plainer.
 * Load it with TRACEEVENT_PLUGIN_DIR=dir, or install it into
 * ~/.local/lib/traceevent/plugins.
 *
 * Kinds are guessed from symbols (no instruction bytes here): a branch to a
 * function's first byte is a call, to a function on the call stack a
 * return, inside one function a jump; software-source records are calls.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#define BTS_FLAG_PREDICTED	(1ULL << 4)
#define BTS_FLAG_USER_CLEARED	(1ULL << 61)
#define BTS_FLAG_FAULT		(1ULL << 62)
#define BTS_FLAG_SW		(1ULL << 63)

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define MAX_CPUS	4096
#define STACK_MAX	64
#define MAX_INDENT	24

/* Call stack of one dumped CPU (function start addresses), rebuilt per dump. */
struct cpu_stack {
	unsigned long long fn[STACK_MAX];
	int n;
};

static struct cpu_stack *stacks;

static const char *const reasons[] = { "dump", "oops", "BUG", "panic", "GPF", "WARN" };

static int is_user(unsigned long long addr)
{
	return !(addr >> 63);
}

static unsigned long long fn_start(struct tep_handle *tep, unsigned long long addr)
{
	if (is_user(addr) || !tep_find_function(tep, addr))
		return addr;
	return tep_find_function_address(tep, addr);
}

static int find(const struct cpu_stack *cs, unsigned long long fn, int below)
{
	for (int i = below - 1; i >= 0; i--)
		if (cs->fn[i] == fn)
			return i;
	return -1;
}

static void push(struct cpu_stack *cs, unsigned long long fn)
{
	if (cs->n == STACK_MAX) {
		memmove(cs->fn, cs->fn + STACK_MAX / 2, sizeof(cs->fn) / 2);
		cs->n = STACK_MAX / 2;
	}
	cs->fn[cs->n++] = fn;
}

/*
 * Apply one branch; returns its kind and sets *depth to the level to show it
 * at (the caller's for a call, the returning function's for a return), as
 * bts-dump does (tools/bts-dump/src/stack.c).
 */
static const char *apply(struct tep_handle *tep, struct cpu_stack *cs,
			 unsigned long long from, unsigned long long to,
			 unsigned long long flags, int *depth)
{
	unsigned long long ff = fn_start(tep, from), tf = fn_start(tep, to);
	const char *kind;
	int i;

	*depth = cs->n > 0 ? cs->n - 1 : 0;
	if ((flags & BTS_FLAG_SW) || (to == tf && tf != ff && !is_user(to))) {
		kind = (flags & BTS_FLAG_SW) ? "call" : "call?";
		i = find(cs, ff, cs->n);
		if (i >= 0)
			cs->n = i + 1;
		else
			push(cs, ff);
		push(cs, tf);
		*depth = cs->n - 2;
	} else if (ff == tf) {
		kind = "jmp?";
		if (!cs->n)
			push(cs, tf);
	} else {
		i = find(cs, tf, cs->n - 1);
		if (i >= 0) {
			kind = "ret?";
			cs->n = i + 1;
			*depth = i + 1;
		} else {
			kind = is_user(from) != is_user(to) ?
			       (is_user(from) ? "entry?" : "exit?") : "ret?";
			cs->n = 0;
			push(cs, tf);
		}
	}
	return kind;
}

static void print_addr(struct trace_seq *s, struct tep_handle *tep, unsigned long long addr,
		       unsigned long long flags)
{
	const char *name = is_user(addr) ? NULL : tep_find_function(tep, addr);

	if (!addr && (flags & BTS_FLAG_USER_CLEARED))
		trace_seq_puts(s, "[user]");	/* no address was recorded */
	else if (name)
		trace_seq_printf(s, "%s+0x%llx", name, addr - tep_find_function_address(tep, addr));
	else
		trace_seq_printf(s, "0x%llx", addr);
}

static int bts_handler(struct trace_seq *s, struct tep_record *record,
		       struct tep_event *event, void *context)
{
	unsigned long long from, to, flags, cpu, pos, nr, reason;
	struct tep_handle *tep = event->tep;
	struct cpu_stack *cs = NULL;
	const char *kind = "";
	int depth = 0;

	(void)context;
	if (tep_get_field_val(s, event, "from", record, &from, 1) ||
	    tep_get_field_val(s, event, "to", record, &to, 1) ||
	    tep_get_field_val(s, event, "flags", record, &flags, 1) ||
	    tep_get_field_val(s, event, "cpu", record, &cpu, 1) ||
	    tep_get_field_val(s, event, "pos", record, &pos, 1) ||
	    tep_get_field_val(s, event, "nr", record, &nr, 1) ||
	    tep_get_field_val(s, event, "reason", record, &reason, 1))
		return 0;	/* tep printed what is missing */

	if (cpu < MAX_CPUS) {
		if (!stacks)
			stacks = calloc(MAX_CPUS, sizeof(*stacks));
		if (stacks)
			cs = &stacks[cpu];
	}
	if (cs) {
		if (pos == 0)
			cs->n = 0;	/* a new dump of this CPU */
		kind = apply(tep, cs, from, to, flags, &depth);
	}
	if (depth > MAX_INDENT)
		depth = MAX_INDENT;
	trace_seq_printf(s, "cpu=%llu %llu/%llu %-6s %*s", cpu, pos, nr, kind, depth * 2, "");
	print_addr(s, tep, from, flags);
	trace_seq_puts(s, " -> ");
	print_addr(s, tep, to, flags);
	if (is_user(from) != is_user(to))
		trace_seq_puts(s, is_user(from) ? "  (user->kernel)" : "  (kernel->user)");
	/* " [fault]" as the kernel prints it, so greps for it keep working */
	if (flags & BTS_FLAG_FAULT)
		trace_seq_printf(s, " [fault] <== %s",
				 reason < ARRAY_SIZE(reasons) ? reasons[reason] : "?");
	trace_seq_puts(s, flags & BTS_FLAG_SW ? " [sw]" : " [bts]");
	/*
	 * The low 32 bits of both addresses, as the kernel prints them: they
	 * tell apart static functions that share a name (at the end here, so
	 * that the marks above stay where readers of this output look).
	 */
	trace_seq_printf(s, " @%08llx:%08llx", from & 0xffffffffULL, to & 0xffffffffULL);
	return 0;
}

int TEP_PLUGIN_LOADER(struct tep_handle *tep);
void TEP_PLUGIN_UNLOADER(struct tep_handle *tep);

int TEP_PLUGIN_LOADER(struct tep_handle *tep)
{
	tep_register_event_handler(tep, -1, "ftrace", "bts", bts_handler, NULL);
	return 0;
}

void TEP_PLUGIN_UNLOADER(struct tep_handle *tep)
{
	tep_unregister_event_handler(tep, -1, "ftrace", "bts", bts_handler, NULL);
	free(stacks);
	stacks = NULL;
}
