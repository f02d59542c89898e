/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interface of the bts core (bts_core.c) for the tracer
 * (trace_bts.c) and the KUnit tests. Kernel code outside kernel/trace uses
 * include/linux/bts.h.
 */
#ifndef _KERNEL_TRACE_BTS_CORE_H
#define _KERNEL_TRACE_BTS_CORE_H

#include <linux/bts.h>
#include <linux/percpu.h>

void bts_unregister_source(struct bts_source *src);
/* bts-series: from live */
struct bts_live_table;
/* The debuggers' index of the current histories: see bts_core.c. */
extern struct bts_live_table *bts_live;
/* bts-series: end */
typedef void (*bts_source_visit_fn)(struct bts_source *src, void *data);

void bts_visit_sources(bts_source_visit_fn fn, void *data);
void bts_pause(bool pause);
void bts_freeze_this_cpu(struct bts_source *src);
void bts_thaw_this_cpu(struct bts_source *src);
/* bts-series: from kunit */
#ifdef CONFIG_BTS_TRACER_KUNIT_TEST
extern void (*bts_kunit_nmi_in_last_thaw)(void);
extern void (*bts_kunit_fault_entry)(void);
extern void (*bts_kunit_before_capture_nmi)(void);
extern unsigned long bts_kunit_gate_decodes;
#endif
/* bts-series: end */
unsigned int bts_read_frozen_this_cpu(struct bts_source *src,
				      struct bts_record *buf, unsigned int n,
				      struct bts_snapshot *snap);

/* bts-series: from capture */
/**
 * struct bts_capture - one CPU's history captured at a fault
 * @snap:	what it is
 * @recs:	preallocated room for the source's capacity
 * @valid:	@snap and @recs hold a capture
 */
struct bts_capture {
	struct bts_snapshot snap;
	struct bts_record *recs;
	bool valid;
};

/* bts-series: from fault-mark */
u32 bts_find_fault_record(const struct bts_record *recs, unsigned int count);
u32 bts_find_panic_record(const struct bts_record *recs, unsigned int count);
u64 bts_exception_entry(unsigned int vector);
/* bts-series: end */
/* bts-series: from capture-trace */
/* What a CPU's own fault is: see bts_capture_fault(). */
enum bts_fault_state {
	BTS_FAULT_NONE,
	BTS_FAULT_PENDING,
	BTS_FAULT_KEPT,
};

/* bts-series: end */
int bts_capture_enable(unsigned int reasons,
		       void (*emit)(unsigned int cpu,
				    const struct bts_record *recs,
				    const struct bts_snapshot *snap));
void bts_capture_set_reasons(unsigned int reasons);
void bts_capture_disable(void);
/* bts-series: from capture-trace */
bool bts_capture_get(unsigned int cpu, const struct bts_record **recs,
		     struct bts_snapshot *snap);
bool bts_capture_status(int *cpu, enum bts_reason *reason, bool *pending);
enum bts_fault_state bts_capture_fault(unsigned int cpu,
				       enum bts_reason *reason);
/* bts-series: end */
/* bts-series: from persist */
int bts_capture_first(enum bts_reason *reason);
/* bts-series: end */
/* bts-series: from capture-trace */
u64 bts_capture_lost(void);
u64 bts_capture_dropped(void);
/* bts-series: end */
int bts_capture_clear(void);
/* The CPU holds a freeze for the kept capture: see bts_capture.c. */
DECLARE_PER_CPU(bool, bts_capture_held);

/* bts-series: end */
/* bts-series: from testing */
/* bts_test_fault.c, test kernels only */
void bts_test_gpf(void);
void bts_test_gpf_irq(void);
void bts_test_target(void);
void bts_test_outer(void);
void bts_test_call(unsigned int n);
int bts_test_panic_in_timekeeping(void);
/* bts-series: end */

/* The vmlinux's ELF notes (NOTES in vmlinux.lds.h): its GNU build ID. */
extern const void __start_notes;
extern const void __stop_notes;

#endif /* _KERNEL_TRACE_BTS_CORE_H */
