/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ring of the bts software source (trace_bts_sw.c), shared with the
 * KUnit tests, which drive it directly.
 */
#ifndef _KERNEL_TRACE_BTS_SW_H
#define _KERNEL_TRACE_BTS_SW_H

#include <linux/bts.h>
#include <asm/local64.h>

/**
 * struct bts_sw_ring - one CPU's software branch history
 * @buf:      @capacity records, or NULL while the source is not armed
 * @capacity: records the ring keeps
 * @total:    records ever added since arming; the next goes to
 *            @total % @capacity
 * @frozen:   no records are added while set
 */
struct bts_sw_ring {
	struct bts_record *buf;
	unsigned int capacity;
	local64_t total;
	bool frozen;
};

void bts_sw_ring_add(struct bts_sw_ring *ring, u64 from, u64 to);
/* bts-series: from live */
struct bts_live_slot;
void bts_sw_ring_live(const struct bts_sw_ring *ring,
		      struct bts_live_slot *slot);
/* bts-series: end */
unsigned int bts_sw_ring_read(struct bts_sw_ring *ring, struct bts_record *buf,
			      unsigned int n, enum bts_window *window);
unsigned long bts_sw_call_site(unsigned long ret, unsigned long ip);

#endif /* _KERNEL_TRACE_BTS_SW_H */
