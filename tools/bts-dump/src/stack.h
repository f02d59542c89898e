/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bts-dump (analysis layer): a call-stack model rebuilt from branches. It
 * works with complete BTS histories (calls and returns) and with the
 * software source (call edges only): a call pops back to the caller if the
 * caller is on the stack, a return pops back to its target's function.
 * Functions are identified by fn keys (see fn_key()).
 */
#ifndef BTS_DUMP_STACK_H
#define BTS_DUMP_STACK_H

#include <stdint.h>

#include "resolve.h"

#define STACK_MAX	128

/* All user-mode code is one frame: "[user]". */
#define FN_USER		(1ULL << 63)

struct callstack {
	uint64_t fn[STACK_MAX];
	int n;
};

/*
 * Symbol index for known code, FN_USER, or FN_USER | addr for unknown kernel
 * code. A cleared user half (0, BTS_FLAG_USER_CLEARED) is user code: FN_USER.
 */
static inline uint64_t fn_key(const struct resolver *r, uint64_t addr, const struct sym *s)
{
	if (s)
		return (uint64_t)(s - r->st.syms);
	return addr_is_user(addr) ? FN_USER : FN_USER | addr;
}

/* Write the name of @key: "func", "[user]" or "0xaddr". */
void fn_key_name(const struct resolver *r, uint64_t key, struct out *o);

static inline int stack_depth(const struct callstack *cs)
{
	return cs->n > 0 ? cs->n - 1 : 0;
}

/*
 * Apply one branch. Returns the depth to show it at: the caller's level
 * for a call (after unwinding to the caller), the returning function's
 * level for a return, the function's level for a jump.
 */
int stack_apply(struct callstack *cs, enum branch_kind kind, uint64_t from, uint64_t to);

#endif /* BTS_DUMP_STACK_H */
