// SPDX-License-Identifier: GPL-2.0
/*
 * bts-dump (analysis layer): the call-stack model. See stack.h.
 */
#include "stack.h"

void fn_key_name(const struct resolver *r, uint64_t key, struct out *o)
{
	if (key == FN_USER) {
		out_str(o, "[user]");
	} else if (key & FN_USER) {
		out_str(o, "0x");
		out_hex(o, key);	/* kernel addresses have bit 63 set anyway */
	} else {
		const struct sym *s = &r->st.syms[key];

		out_mem(o, sym_name(&r->st, s), s->name_len);
	}
}

static int find(const struct callstack *cs, uint64_t key, int below)
{
	for (int i = below - 1; i >= 0; i--)
		if (cs->fn[i] == key)
			return i;
	return -1;
}

static void push(struct callstack *cs, uint64_t key)
{
	if (cs->n == STACK_MAX) {
		/* Deeper than any real kernel stack: forget the oldest half. */
		memmove(cs->fn, cs->fn + STACK_MAX / 2, sizeof(cs->fn) / 2);
		cs->n = STACK_MAX / 2;
	}
	cs->fn[cs->n++] = key;
}

int stack_apply(struct callstack *cs, enum branch_kind kind, uint64_t from, uint64_t to)
{
	int i, depth = stack_depth(cs);

	/* An interrupt or trap that lands in the same function is no call. */
	if ((kind == KIND_EXC || kind == KIND_INT) && from == to)
		kind = KIND_JMP;
	switch (kind) {
	case KIND_CALL:
	case KIND_SYSCALL:
	case KIND_INT:
	case KIND_EXC:
		/* The caller is where we are; unwind to it if we lost track. */
		i = find(cs, from, cs->n);
		if (i >= 0)
			cs->n = i + 1;
		else
			push(cs, from);
		push(cs, to);
		depth = cs->n - 2;	/* the caller's level */
		break;
	case KIND_RET:
	case KIND_SYSRET:
	case KIND_IRET:
		i = find(cs, to, cs->n - 1);
		if (i >= 0) {
			cs->n = i + 1;
			depth = i + 1;	/* the returning function's level */
		} else {
			cs->n = 0;
			push(cs, to);
		}
		break;
	default:
		/* Jumps stay in the function, or tail-call into another. */
		if (cs->n && cs->fn[cs->n - 1] == to)
			break;
		i = find(cs, to, cs->n);
		if (i >= 0)
			cs->n = i + 1;
		else if (cs->n)
			cs->fn[cs->n - 1] = to;
		else
			push(cs, to);
		depth = stack_depth(cs);
		break;
	}
	return depth;
}
