/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the bts tracer (trace_bts.c) offers the rest of kernel/trace: the
 * bts_dump event trigger (trace_events_trigger.c) writes the current
 * CPU's branch history into a trace array through these. No locks, no
 * allocation, no sleeping in bts_trigger_dump().
 */
#ifndef _KERNEL_TRACE_TRACE_BTS_H
#define _KERNEL_TRACE_TRACE_BTS_H

struct trace_array;

int bts_trigger_get(void);
void bts_trigger_put(void);
void bts_trigger_dump(struct trace_array *tr);

#endif /* _KERNEL_TRACE_TRACE_BTS_H */
