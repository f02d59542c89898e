// SPDX-License-Identifier: GPL-2.0
/*
 * bts: the Intel Branch Trace Store source ("intel_bts") of the branch
 * flight recorder (include/linux/bts.h, Documentation/trace/bts-intel.rst).
 *
 * Layer: branch source. It arms BTS on every online CPU in circular mode
 * bts-series: until intel-user
 * with CPL filtering off for the kernel (kernel branches recorded, user
 * branches left out), freezes and thaws one CPU, and reads a CPU's newest
 * records back oldest first. It knows nothing of ftrace, dumps or oopses:
 * those live in kernel/trace/bts_core.c, bts_capture.c and trace_bts.c.
 * bts-series: end
 * bts-series: from intel-user
 * with CPL filtering off (kernel branches recorded; user branches too when
 * asked), freezes and thaws one CPU, and reads a CPU's newest records back
 * oldest first. It knows nothing of ftrace, dumps or oopses: those live
 * in kernel/trace/bts_core.c, bts_capture.c and trace_bts.c.
 * bts-series: end
 * bts-series: from intel-stream
 *
 * In stream mode it arms BTS with BTINT instead and hands the buffer to
 * bts_stream_emit() from an irq_work that the BTS interrupt (a PMI, which
 * perf programs as an NMI) queues: the NMI does constant work. The
 * interrupt has one owner, perf's PMI handler
 * (intel_pmu_handle_irq()), which calls this source's two hooks
 * (intel_bts_trace_pmi_enter() and _exit(), perf_event.h) as it calls
 * perf's own intel_bts: this file registers no NMI handler and never
 * writes the LVT entry in NMI context.
 * bts-series: end
 *
 * perf owns the Debug Store (DS) area and the per-CPU BTS buffer, which is
 * mapped in the cpu_entry_area so that it also works under KPTI (64 KiB,
 * 2730 records). This file borrows both: it takes an exclusivity slot of
 * its own (x86_lbr_exclusive_bts_trace) so that perf's LBR, BTS and
 * intel_bts users and this source refuse each other with -EBUSY, holds a
 * perf hardware reservation so that the buffer cannot be freed under it,
 * and on each CPU saves perf's four DS BTS fields at arm time and writes
 * them back exactly at disarm time.
 *
 * What it must never do: write IA32_DEBUGCTL other than by read-modify-
 * write of TR, BTS, BTINT, BTS_OFF_OS and BTS_OFF_USR with IRQs off (many
 * other kernel parts own the other bits), write back a saved whole
 * DEBUGCTL value, or sleep, lock, allocate or get traced in the freeze,
 * thaw, read and interrupt paths, which run in NMI and oops context.
 *
 * All MSR, DS area and perf accesses go through the handful of small
 * functions of struct intel_bts_hw below, so that the KUnit tests
 * (bts_trace_kunit.c) run all the logic against a software model of the
 * Intel SDM's DS semantics.
 *
 * NOTE: no machine with BTS silicon was available to its authors. The
 * hardware path runs end to end on a QEMU whose TCG emulates the Debug
 * Store and BTS to the SDM, and the KUnit suite
 * intel_bts_hw runs on it; what only silicon shows (timing, overhead,
 * errata) is unverified (see the documentation).
 */
#define pr_fmt(fmt) "bts: intel_bts: " fmt

#include <linux/bts.h>
#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
/* bts-series: from intel-stream */
#include <linux/delay.h>
/* bts-series: end */
/* bts-series: from intel-stream */
#include <linux/hrtimer.h>
/* bts-series: end */
#include <linux/init.h>
/* bts-series: from intel-stream */
#include <linux/irq_work.h>
/* bts-series: end */
#include <linux/irqflags.h>
#include <linux/jump_label.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/smp.h>
/* bts-series: from intel-stream */
#include <linux/sched/clock.h>
/* bts-series: end */
#include <linux/string.h>
/* bts-series: from intel-kexec */
#include <linux/syscore_ops.h>
/* bts-series: end */
/* bts-series: from intel-stream */
#include <asm/apic.h>
/* bts-series: end */
#include <asm/cpufeature.h>
#include <asm/debugreg.h>
#include <asm/intel_ds.h>
#include <asm/msr-index.h>
/* bts-series: from intel-stream */
#include <asm/nmi.h>
/* bts-series: end */
#include <asm/page.h>
#include <asm/pgtable_types.h>
#include <uapi/linux/bts.h>

#include "../perf_event.h"

/* One 64-bit DS format BTS record: struct bts_record, 24 bytes. */
#define INTEL_BTS_RECORD_SIZE	sizeof(struct bts_record)
/* Records per CPU in perf's cpu_entry_area BTS buffer: 2730. */
#define INTEL_BTS_NR_RECORDS	(BTS_BUFFER_SIZE / INTEL_BTS_RECORD_SIZE)

/* The DEBUGCTL bits this file owns. No other bit is ever changed. */
#define INTEL_BTS_CTL_MASK	(DEBUGCTLMSR_TR | DEBUGCTLMSR_BTS |	\
				 DEBUGCTLMSR_BTINT |			\
				 DEBUGCTLMSR_BTS_OFF_OS |		\
				 DEBUGCTLMSR_BTS_OFF_USR)
/* What a freeze clears and a thaw sets again. */
#define INTEL_BTS_CTL_RUN	(DEBUGCTLMSR_TR | DEBUGCTLMSR_BTS)

/**
 * struct intel_bts_hw - every access to the hardware and to perf
 * @has_feature:		boot_cpu_has() of an X86_FEATURE_* bit
 * @pmu_has_bts:	perf found BTS when it set up the PMU (x86_pmu.bts)
 * @pmu_bts_active:	perf's DS allocation of the BTS buffers succeeded
 *			(x86_pmu.bts_active; valid while reserved)
 * @add_exclusive:	take the bts tracer exclusivity slot, or -EBUSY
 * bts-series: from intel-why
 * @exclusive_busy:	would @add_exclusive fail now? (takes nothing)
 * bts-series: end
 * @del_exclusive:	give it back
 * @reserve:		take a perf hardware (and DS area) reservation
 * @release:		give it back (may free the DS area)
 * @ds:			@cpu's DS area (cea alias), or NULL
 * @buffer:		@cpu's BTS buffer through its direct-map address
 * @debugctl_read:	read this CPU's IA32_DEBUGCTL
 * @debugctl_write:	write this CPU's IA32_DEBUGCTL
 * bts-series: from intel-why
 * @debugctl_bts_works:	the BTS bits of DEBUGCTL can be set (probed at boot)
 * bts-series: end
 * bts-series: from intel-stream
 * @pmi_hooked:		perf's PMI handler calls this source's hooks (the
 *			Intel PMU driver's, architectural perfmon v2 and later)
 * @pmi_unmask:		unmask this CPU's LVT performance counter entry, as
 *			perf_events_lapic_init() does: at arm only (process
 *			context, IRQs off), never in NMI
 * @pmi_settle:		wait a microsecond for an interrupt on its way (IRQs
 *			off: an NMI is taken meanwhile)
 * @clock:		this CPU's clock in ns (local_clock(); NMI safe)
 * @throttle:		stream mode: BTS is kept off on this CPU for @ns ns;
 *			start the timer that calls intel_bts_cpu_unthrottle()
 *			then (NMI context: through an irq_work)
 * @drain_later:	stream mode: call intel_bts_cpu_drain_work() on this
 *			CPU from hard IRQ context once the NMI has returned
 *			and the CPU takes interrupts (NMI context: an
 *			irq_work)
 * bts-series: end
 *
 * The real implementations are one line each; the KUnit tests supply a
 * model. @ds, @buffer, @debugctl_read and @debugctl_write are called in
 * NMI context and must be notrace.
 */
struct intel_bts_hw {
	bool (*has_feature)(unsigned int feature);
	bool (*pmu_has_bts)(void);
	bool (*pmu_bts_active)(void);
	int (*add_exclusive)(void);
	/* bts-series: from intel-why */
	bool (*exclusive_busy)(void);
	/* bts-series: end */
	void (*del_exclusive)(void);
	int (*reserve)(void);
	void (*release)(void);
	struct debug_store *(*ds)(unsigned int cpu);
	void *(*buffer)(unsigned int cpu);
	u64 (*debugctl_read)(void);
	void (*debugctl_write)(u64 val);
	/* bts-series: from intel-why */
	bool (*debugctl_bts_works)(void);
	/* bts-series: end */
	/* bts-series: from intel-stream */
	bool (*pmi_hooked)(void);
	void (*pmi_unmask)(void);
	void (*pmi_settle)(void);
	u64 (*clock)(void);
	void (*throttle)(u64 ns);
	void (*drain_later)(void);
	/* bts-series: end */
};

/**
 * struct intel_bts_ds_fields - the four BTS fields of a DS area
 * @base:	bts_buffer_base
 * @index:	bts_index, where the CPU writes the next record
 * @abs_max:	bts_absolute_maximum, where it wraps to @base (circular)
 * @threshold:	bts_interrupt_threshold
 */
struct intel_bts_ds_fields {
	u64 base;
	u64 index;
	u64 abs_max;
	u64 threshold;
};

/*
 * Why BTS is stopped on a CPU (struct intel_bts_cpu.stop). TR|BTS are set
 * only while the CPU is armed and no reason holds; each holder sets its
 * bit before it clears TR|BTS and clears it before it may set them, so
 * that whatever interrupts it at any instruction (an NMI: a capture, a
 * trigger, the BTS interrupt) finds BTS stopped whenever it must be, and
 * leaves it stopped if the interrupted code still holds a reason. The
 * bits are changed with atomic operations: an NMI may take a reason and
 * return with it held (the BTS interrupt's budget), and a plain
 * read-modify-write it interrupted would write the bits back without it.
 */
#define INTEL_BTS_STOP_FREEZE	BIT(0)	/* a freeze: capture, dump, pause */
/* bts-series: from intel-stream */
#define INTEL_BTS_STOP_PMI	BIT(1)	/* an NMI runs its handlers */
/* bts-series: end */
#define INTEL_BTS_STOP_DISARM	BIT(2)	/* being disarmed */
/* bts-series: from intel-kexec */
#define INTEL_BTS_STOP_DEAD	BIT(3)	/* kexec, reboot, crash: for good */
/* bts-series: end */
/* bts-series: from intel-stream */
#define INTEL_BTS_STOP_BUDGET	BIT(4)	/* stream mode: over its CPU time */
/* bts-series: end */
/* bts-series: from intel-kexec */
#define INTEL_BTS_STOP_SLEEP	BIT(5)	/* suspend, hibernation, kexec jump */
/* bts-series: end */
/* bts-series: from intel-stream */
#define INTEL_BTS_STOP_DRAIN	BIT(6)	/* stream mode: hands records over */
/* bts-series: end */

/**
 * struct intel_bts_cpu - one CPU's state
 * @ds:		perf's DS area of this CPU, valid while @armed
 * @recs:	its BTS buffer (direct map), valid while @armed
 * @perf:	perf's DS BTS fields, saved at arm, written back at disarm
 * @nr:		capacity in records, valid while @armed
 * @ctl:	the DEBUGCTL bits of INTEL_BTS_CTL_MASK set while recording
 * bts-series: from intel-stream
 * @prev_end:	stream mode: records the last drain handed over; they stay
 *		in the buffer above the index until overwritten, and are
 *		the oldest part of a capture's history
 * bts-series: end
 * @stop:	INTEL_BTS_STOP_* reasons that hold BTS stopped
 * @armed:	the DS fields are ours and @perf holds perf's values
 * bts-series: from intel-stream
 * @stream:	armed in stream mode (BTINT set, buffer not circular)
 * @drained:	stream mode: a drain has handed records over since arming
 * bts-series: end
 * bts-series: from intel-user
 * @user:	user-mode branches wanted; without, the user half of a
 *		branch between user and kernel mode is cleared when read
 * bts-series: end
 * bts-series: from intel-stream
 * @owed:	stream mode: ns of time outside stream mode's work this CPU
 *		owes its budget (intel_bts_budget_owed())
 * @last_drain:	stream mode: when the last work charged to the budget
 *		ended (@clock)
 * @pmi_start:	stream mode: when the running handler asked for a drain
 * @pmi_drained: stream mode: the running handler found the threshold
 *		reached and asked for a drain
 * @drain_pending: stream mode: a drain was asked for and has not run yet;
 *		meanwhile the threshold is intel_bts_stream_late()'s
 * bts-series: end
 *
 * Written only on the CPU itself, with IRQs off; read by that CPU's NMIs.
 */
struct intel_bts_cpu {
	struct debug_store *ds;
	struct bts_record *recs;
	struct intel_bts_ds_fields perf;
	unsigned int nr;
	u64 ctl;
	/* bts-series: from intel-stream */
	unsigned int prev_end;
	/* bts-series: end */
	atomic_t stop;
	bool armed;
	/* bts-series: from intel-stream */
	bool stream;
	bool drained;
	/* bts-series: end */
	/* bts-series: from intel-user */
	bool user;
	/* bts-series: end */
	/* bts-series: from intel-stream */
	u64 owed;
	u64 last_drain;
	u64 pmi_start;
	bool pmi_drained;
	bool drain_pending;
	/* bts-series: end */
};

/**
 * struct intel_bts - the source's global state
 * @hw:		hardware access (the real one, or the KUnit model)
 * bts-series: from intel-stream
 * @emit:	where stream mode hands records (bts_stream_emit(), or the
 *		KUnit model's)
 * bts-series: end
 * @nr:		records per CPU
 * @arm_flags:	BTS_ARM_* of the current arming
 * @reserved:	exclusivity slot and perf reservation held
 */
struct intel_bts {
	const struct intel_bts_hw *hw;
	/* bts-series: from intel-stream */
	void (*emit)(const struct bts_record *recs, unsigned int n,
		     unsigned long lost, bool paused);
	/* bts-series: end */
	unsigned int nr;
	unsigned int arm_flags;
	bool reserved;
};

/* ---- the real hardware: the only lines that touch MSRs, DS and perf ---- */

/* bts-series: from intel-why */
/* Set at boot by intel_bts_probe_debugctl(). */
static bool intel_bts_ctl_works;
/* bts-series: end */

static bool intel_bts_hw_has_feature(unsigned int feature)
{
	return boot_cpu_has(feature);
}

static bool intel_bts_hw_pmu_has_bts(void)
{
	return x86_pmu.bts;
}

static bool intel_bts_hw_pmu_bts_active(void)
{
	return x86_pmu.bts_active;
}

static int intel_bts_hw_add_exclusive(void)
{
	return x86_add_exclusive(x86_lbr_exclusive_bts_trace);
}

/* bts-series: from intel-why */
/* x86_add_exclusive() fails while another slot has users: look only. */
static bool intel_bts_hw_exclusive_busy(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(x86_pmu.lbr_exclusive); i++)
		if (i != x86_lbr_exclusive_bts_trace &&
		    atomic_read(&x86_pmu.lbr_exclusive[i]))
			return true;
	return false;
}

/* bts-series: end */
static void intel_bts_hw_del_exclusive(void)
{
	x86_del_exclusive(x86_lbr_exclusive_bts_trace);
}

static int intel_bts_hw_reserve(void)
{
	return x86_reserve_hardware();
}

static void intel_bts_hw_release(void)
{
	x86_release_hardware();
}

static notrace struct debug_store *intel_bts_hw_ds(unsigned int cpu)
{
	return per_cpu(cpu_hw_events, cpu).ds;
}

static notrace void *intel_bts_hw_buffer(unsigned int cpu)
{
	return per_cpu(cpu_hw_events, cpu).ds_bts_vaddr;
}

static notrace u64 intel_bts_hw_debugctl_read(void)
{
	return get_debugctlmsr();
}

static notrace void intel_bts_hw_debugctl_write(u64 val)
{
	update_debugctlmsr(val);
}

/* bts-series: from intel-why */
static bool intel_bts_hw_debugctl_bts_works(void)
{
	return intel_bts_ctl_works;
}
/* bts-series: end */

/* bts-series: from intel-stream */
/*
 * intel_pmu_handle_irq() is the PMI handler of the Intel PMU driver from
 * architectural perfmon v2 on (intel_pmu_init()); v1 CPUs get core_pmu's
 * generic handler, which has no hooks. No v1 CPU runs 64-bit code.
 */
static bool intel_bts_hw_pmi_hooked(void)
{
	return x86_pmu.version >= 2;
}

/* What perf_events_lapic_init() writes. */
static void intel_bts_hw_pmi_unmask(void)
{
	apic_write(APIC_LVTPC, APIC_DM_NMI);
}

static void intel_bts_hw_pmi_settle(void)
{
	udelay(1);
}

static notrace u64 intel_bts_hw_clock(void)
{
	return local_clock();
}

static DEFINE_PER_CPU(struct irq_work, intel_bts_throttle_work);
static DEFINE_PER_CPU(struct hrtimer, intel_bts_throttle_timer);
static DEFINE_PER_CPU(u64, intel_bts_throttle_ns);

/* NMI context: the timer is started from the irq_work that follows. */
static notrace void intel_bts_hw_throttle(u64 ns)
{
	this_cpu_write(intel_bts_throttle_ns, ns);
	irq_work_queue(this_cpu_ptr(&intel_bts_throttle_work));
}

static void intel_bts_throttle_work_fn(struct irq_work *work)
{
	hrtimer_start(this_cpu_ptr(&intel_bts_throttle_timer),
		      ns_to_ktime(this_cpu_read(intel_bts_throttle_ns)),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

/* Runs intel_bts_drain_work_fn(), defined with the source's state. */
static DEFINE_PER_CPU(struct irq_work, intel_bts_drain_work);

/* NMI context: a hard irq_work, run once the CPU takes interrupts. */
static notrace void intel_bts_hw_drain_later(void)
{
	irq_work_queue(this_cpu_ptr(&intel_bts_drain_work));
}

/* bts-series: end */
/* bts-series: from intel-why */
/**
 * intel_bts_probe_debugctl - can this CPU's DEBUGCTL BTS bits be set?
 *
 * A CPU can report BTS and still refuse the bits: a hypervisor that
 * passes CPUID through but filters DEBUGCTL makes the write fault or
 * drop them. Set BTINT, which does nothing while TR and BTS are clear,
 * with fault-safe accesses, read it back, and clear it again if it was
 * clear before. Boot CPU, at boot, before any perf user exists.
 *
 * Return: true when BTINT stuck.
 */
static bool __init intel_bts_probe_debugctl(void)
{
	unsigned long flags;
	bool works = false;
	u64 old, val;

	local_irq_save(flags);
	if (!rdmsrl_safe(MSR_IA32_DEBUGCTLMSR, &old) &&
	    !wrmsrl_safe(MSR_IA32_DEBUGCTLMSR, old | DEBUGCTLMSR_BTINT) &&
	    !rdmsrl_safe(MSR_IA32_DEBUGCTLMSR, &val)) {
		works = val & DEBUGCTLMSR_BTINT;
		if (works && !(old & DEBUGCTLMSR_BTINT))
			wrmsrl_safe(MSR_IA32_DEBUGCTLMSR,
				    val & ~DEBUGCTLMSR_BTINT);
	}
	local_irq_restore(flags);
	return works;
}

/* bts-series: end */
static const struct intel_bts_hw intel_bts_real_hw = {
	.has_feature	= intel_bts_hw_has_feature,
	.pmu_has_bts	= intel_bts_hw_pmu_has_bts,
	.pmu_bts_active	= intel_bts_hw_pmu_bts_active,
	.add_exclusive	= intel_bts_hw_add_exclusive,
	/* bts-series: from intel-why */
	.exclusive_busy	= intel_bts_hw_exclusive_busy,
	/* bts-series: end */
	.del_exclusive	= intel_bts_hw_del_exclusive,
	.reserve	= intel_bts_hw_reserve,
	.release	= intel_bts_hw_release,
	.ds		= intel_bts_hw_ds,
	.buffer		= intel_bts_hw_buffer,
	.debugctl_read	= intel_bts_hw_debugctl_read,
	.debugctl_write	= intel_bts_hw_debugctl_write,
	/* bts-series: from intel-why */
	.debugctl_bts_works = intel_bts_hw_debugctl_bts_works,
	/* bts-series: end */
	/* bts-series: from intel-stream */
	.pmi_hooked	= intel_bts_hw_pmi_hooked,
	.pmi_unmask	= intel_bts_hw_pmi_unmask,
	.pmi_settle	= intel_bts_hw_pmi_settle,
	.clock		= intel_bts_hw_clock,
	.throttle	= intel_bts_hw_throttle,
	.drain_later	= intel_bts_hw_drain_later,
	/* bts-series: end */
};

/* ---- detection ---- */

/*
 * On a CPU affected by Meltdown, KPTI still maps the cpu_entry_area, and
 * with it the BTS buffer, in every process's page tables: any process
 * bts-series: until intel-meltdown
 * could read the newest kernel branches. Off there.
 * bts-series: end
 * bts-series: from intel-meltdown
 * could read the newest kernel branches. Off there unless the
 * administrator boots with bts.allow_meltdown=1.
 * bts-series: end
 */
/* bts-series: from intel-meltdown */
static bool intel_bts_allow_meltdown;
#undef MODULE_PARAM_PREFIX
#define MODULE_PARAM_PREFIX "bts."
module_param_named(allow_meltdown, intel_bts_allow_meltdown, bool, 0444);
MODULE_PARM_DESC(allow_meltdown,
		 "Use Branch Trace Store on a CPU affected by Meltdown, where any process can read the buffer");
/* bts-series: end */

/**
 * intel_bts_static_reason - why this machine cannot use the source at all
 * @hw: hardware access
 * bts-series: until intel-meltdown
 * @err: set to the errno arming would fail with: -ENODEV, or -EPERM on a
 *	Meltdown CPU
 * bts-series: end
 * bts-series: from intel-meltdown
 * @err: set to the errno arming would fail with: -ENODEV, or -EPERM for
 *	the missing Meltdown opt-in
 * bts-series: end
 *
 * By what the CPU reports and does, never by CPU model or by whether a
 * hypervisor is present (a hypervisor that passes BTS through, such as
 * the project's emulated-BTS QEMU, gets the hardware source): BTS needs
 * X86_FEATURE_BTS (CPUID DS with MISC_ENABLE.BTS_UNAVAIL clear; KVM sets
 * bts-series: until intel-why
 * that bit), the 64-bit DS format (DTES64) and perf having set up BTS
 * (x86_pmu.bts). A Meltdown-affected CPU cannot use it.
 * bts-series: end
 * bts-series: from intel-why
 * bts-series: until intel-meltdown
 * that bit), the 64-bit DS format (DTES64), perf having set up BTS
 * (x86_pmu.bts) and DEBUGCTL's BTS bits sticking when written. A
 * Meltdown-affected CPU cannot use it.
 * bts-series: end
 * bts-series: end
 * bts-series: from intel-meltdown
 * that bit), the 64-bit DS format (DTES64), perf having set up BTS
 * (x86_pmu.bts) and DEBUGCTL's BTS bits sticking when written. A
 * Meltdown-affected CPU also needs the bts.allow_meltdown=1 opt-in.
 * bts-series: end
 * bts-series: until intel-user
 * DS-CPL, which leaving user branches out needs, is checked when arming.
 * bts-series: end
 * bts-series: from intel-user
 * DS-CPL is only needed to leave user branches out; see intel_bts_arm().
 * bts-series: end
 *
 * Return: NULL, or a one-line reason.
 */
static const char *intel_bts_static_reason(const struct intel_bts_hw *hw,
					   int *err)
{
	*err = -ENODEV;
	if (!hw->has_feature(X86_FEATURE_BTS))
		return "no BTS: CPUID DS clear, or MISC_ENABLE.BTS_UNAVAIL set (as KVM sets it)";
	if (!hw->has_feature(X86_FEATURE_DTES64))
		return "no BTS: the CPU lacks the 64-bit Debug Store format (DTES64)";
	if (!hw->pmu_has_bts())
		return "no BTS: perf did not set up BTS on this CPU";
	/* bts-series: from intel-why */
	if (!hw->debugctl_bts_works())
		return "no BTS: DEBUGCTL's BTS bits do not stick (a hypervisor filters them)";
	/* bts-series: end */
	*err = -EPERM;
	/* bts-series: until intel-meltdown */
	if (hw->has_feature(X86_BUG_CPU_MELTDOWN))
		return "off on a Meltdown CPU (any process could read it)";
	/* bts-series: end */
	/* bts-series: from intel-meltdown */
	if (hw->has_feature(X86_BUG_CPU_MELTDOWN) && !intel_bts_allow_meltdown)
		return "off on a Meltdown CPU (any process could read it): bts.allow_meltdown=1";
	/* bts-series: end */
	return NULL;
}

/* ---- the per-CPU work: IRQs off, on the CPU itself ---- */

/*
 * Read-modify-write of DEBUGCTL: clear @clear, then set @set, both within
 * INTEL_BTS_CTL_MASK. Caller has IRQs off. An NMI between the read and
 * the write can still lose its own change; the freeze copes by copying the
 * records out at once (see intel_bts_freeze_this_cpu()).
 */
static notrace void intel_bts_debugctl_update(const struct intel_bts_hw *hw,
					      u64 clear, u64 set)
{
	u64 ctl = hw->debugctl_read();

	ctl &= ~(clear & INTEL_BTS_CTL_MASK);
	ctl |= set & INTEL_BTS_CTL_MASK;
	hw->debugctl_write(ctl);
}

/**
 * intel_bts_ctl_bits - the DEBUGCTL bits to record with
 * @arm_flags: BTS_ARM_*
 *
 * Circular mode: TR and BTS set, BTINT clear.
 * bts-series: from intel-stream
 * Stream mode: BTINT set.
 * bts-series: end
 * bts-series: until intel-user
 * BTS_OFF_OS clear (kernel branches recorded), BTS_OFF_USR set (user
 * branches left out).
 * bts-series: end
 * bts-series: from intel-user
 * BTS_OFF_OS clear (kernel branches recorded), BTS_OFF_USR set unless
 * user branches are wanted.
 * bts-series: end
 *
 * Return: the bits, within INTEL_BTS_CTL_MASK.
 */
static u64 intel_bts_ctl_bits(unsigned int arm_flags)
{
	u64 ctl = DEBUGCTLMSR_TR | DEBUGCTLMSR_BTS;

	/* bts-series: from intel-stream */
	if (arm_flags & BTS_ARM_STREAM)
		ctl |= DEBUGCTLMSR_BTINT;
	/* bts-series: end */
	/* bts-series: until intel-user */
	ctl |= DEBUGCTLMSR_BTS_OFF_USR;
	/* bts-series: end */
	/* bts-series: from intel-user */
	if (!(arm_flags & BTS_ARM_USER))
		ctl |= DEBUGCTLMSR_BTS_OFF_USR;
	/* bts-series: end */
	return ctl;
}

/* bts-series: from intel-stream */
/**
 * intel_bts_stream_free - stream mode's room above the interrupt threshold
 * @nr: records in the buffer
 *
 * Room for the branches the CPU takes between the record that raises the
 * BTS interrupt and the drain: the NMI entry up to its first handler,
 * the end of an NMI that was running when the interrupt came (NMIs do not
 * nest), and everything from the NMI's return to the drain's irq_work,
 * which runs at once when the interrupted code takes interrupts and
 * otherwise when it next turns them on (the branches of a region with
 * interrupts off). perf's intel_bts keeps 170 records free. Three
 * quarters of the buffer: on the 2730-record buffer, one interrupt at
 * record 682, and 2048 branches of room, of which the last 341 are kept
 * for a late drain's NMI (intel_bts_stream_late()). With half the buffer
 * the emulated CPU lost records before the irq_work ran. A buffer that
 * fills anyway drops what comes next (BTINT set: no wrap), and the
 * stream counts it (see the drain).
 *
 * Return: free records, at least one.
 */
static unsigned int intel_bts_stream_free(unsigned int nr)
{
	return max(nr - nr / 4, 1U);
}

/* Stream mode's interrupt threshold, as an address in the buffer. */
static notrace u64 intel_bts_stream_threshold(const struct intel_bts_cpu *c)
{
	return c->ds->bts_buffer_base +
	       (u64)(c->nr - intel_bts_stream_free(c->nr)) *
	       INTEL_BTS_RECORD_SIZE;
}

/**
 * intel_bts_stream_late - the threshold while a drain is pending
 * @c: this CPU's state, armed in stream mode
 *
 * The drain the BTS interrupt queues runs when the interrupted code takes
 * interrupts. Code that keeps them off longer than the room above the
 * threshold holds (a hard IRQ handler, a console driver polling its
 * UART) would fill the buffer: at this second threshold, an eighth of
 * the buffer below its end (341 of 2730 records, twice what perf's
 * intel_bts keeps free), the interrupt comes again and that NMI drains
 * the buffer itself. The room left is for the NMI's entry up to its
 * first handler, where BTS stops.
 *
 * Return: the address.
 */
static notrace u64 intel_bts_stream_late(const struct intel_bts_cpu *c)
{
	return c->ds->bts_buffer_base +
	       (u64)(c->nr - max(c->nr / 8, 1U)) * INTEL_BTS_RECORD_SIZE;
}

/*
 * Stream mode's CPU-time budget (bts_stream_budget(), bts/stream_budget):
 * the share of a CPU's time, in percent, that its drains may take. Every
 * branch costs a ring-buffer entry in stream mode, the timer interrupt's
 * own included: where that costs more than the CPU has (a debug kernel,
 * an emulated CPU), a CPU without a budget spends all its time streaming
 * its interrupts. Past the budget BTS stays off on that CPU until the time
 * it owes has passed; what it ran meanwhile is not recorded, and the
 * stream says so with a gap.
 */

/* Debt a CPU may run up before its budget stops BTS: one tick's worth. */
#define INTEL_BTS_BUDGET_SLACK_NS	TICK_NSEC

/**
 * intel_bts_budget_owed - what a CPU owes its budget after a drain
 * @owed:	ns it owed before
 * @ran:	ns since its previous drain ended (time outside drains)
 * @took:	ns this drain took
 * @pct:	the budget, 1 to 99 percent
 *
 * Each ns of draining is to be matched by (100 - @pct) / @pct ns outside:
 * time outside pays off the debt, a drain adds to it. So while the debt
 * stays bounded, drains take at most @pct percent of the CPU's time.
 *
 * Return: the debt after this drain, in ns.
 */
static notrace u64 intel_bts_budget_owed(u64 owed, u64 ran, u64 took,
					 unsigned int pct)
{
	owed = owed > ran ? owed - ran : 0;
	return owed + div_u64(took * (100 - pct), pct);
}

/* bts-series: end */
/*
 * Take @why as a reason to keep BTS stopped on this CPU, and stop it.
 * The bit first, then one read-modify-write clearing TR|BTS (always, even
 * if another reason holds: an NMI between another holder's bit and its
 * write must find BTS stopped when it returns from here). No fence: BTS
 * stores are coherent with the CPU's own loads (bts.c).
 */
static notrace void intel_bts_cpu_stop(const struct intel_bts *bts,
				       struct intel_bts_cpu *c, u8 why)
{
	atomic_or(why, &c->stop);
	intel_bts_debugctl_update(bts->hw, INTEL_BTS_CTL_RUN, 0);
}

/*
 * Drop @why; if no reason is left and the CPU is armed, set its DEBUGCTL
 * bits again (the OFF bits and BTINT were left as armed). An NMI that
 * lands after the test and takes a reason it keeps (the budget's) has
 * stopped BTS before the write below sets TR|BTS again: look once more
 * after it, and stop BTS again if a reason came meanwhile. An NMI after
 * that look finds BTS on and stops it itself.
 */
static notrace void intel_bts_cpu_start(const struct intel_bts *bts,
					struct intel_bts_cpu *c, u8 why)
{
	atomic_andnot(why, &c->stop);
	if (atomic_read(&c->stop) || !READ_ONCE(c->armed))
		return;
	intel_bts_debugctl_update(bts->hw, INTEL_BTS_CTL_MASK, c->ctl);
	if (atomic_read(&c->stop))
		intel_bts_debugctl_update(bts->hw, INTEL_BTS_CTL_RUN, 0);
}

/**
 * intel_bts_cpu_arm - take over one CPU's DS BTS fields and start BTS
 * @bts:	the source
 * @c:		this CPU's state
 * @cpu:	this CPU
 *
 * IRQs off, on @cpu. Saves perf's four DS BTS fields, clears the buffer
 * (so that a record with from == to == 0 is known never written), points
 * the fields at the whole buffer in circular mode with the interrupt
 * threshold above the absolute maximum (so that neither BTINT nor perf's
 * intel_bts NMI handler ever sees a full buffer), then sets the DEBUGCTL
 * bits.
 * bts-series: from intel-stream
 * In stream mode the threshold leaves intel_bts_stream_free() records
 * free below the absolute maximum instead, and BTINT is set.
 * bts-series: end
 * A CPU stopped for good (kexec, crash) stays stopped.
 *
 * Return: 0, or -ENODEV when perf has no DS area or buffer for @cpu.
 */
static int intel_bts_cpu_arm(const struct intel_bts *bts,
			     struct intel_bts_cpu *c, unsigned int cpu)
{
	const struct intel_bts_hw *hw = bts->hw;
	struct debug_store *ds = hw->ds(cpu);
	void *buf = hw->buffer(cpu);
	u64 base;

	if (c->armed)
		return 0;
	if (!ds || !buf)
		return -ENODEV;

	c->perf.base = ds->bts_buffer_base;
	c->perf.index = ds->bts_index;
	c->perf.abs_max = ds->bts_absolute_maximum;
	c->perf.threshold = ds->bts_interrupt_threshold;
	c->ds = ds;
	c->recs = buf;
	c->nr = bts->nr;
	c->ctl = intel_bts_ctl_bits(bts->arm_flags);
	/* bts-series: from intel-user */
	c->user = bts->arm_flags & BTS_ARM_USER;
	/* bts-series: end */

	memset(buf, 0, (size_t)c->nr * INTEL_BTS_RECORD_SIZE);
	base = ds->bts_buffer_base;
	ds->bts_index = base;
	ds->bts_absolute_maximum = base + (u64)c->nr * INTEL_BTS_RECORD_SIZE;
	ds->bts_interrupt_threshold = ds->bts_absolute_maximum +
				      INTEL_BTS_RECORD_SIZE;
	/* bts-series: from intel-stream */
	c->stream = bts->arm_flags & BTS_ARM_STREAM;
	if (c->stream)
		ds->bts_interrupt_threshold = intel_bts_stream_threshold(c);
	c->prev_end = 0;
	c->drained = false;
	c->owed = 0;
	c->last_drain = hw->clock();
	c->pmi_drained = false;
	c->drain_pending = false;
	/* bts-series: end */
	/* The DS fields and the cleared buffer before BTS goes on (bts.c). */
	wmb();

	/*
	 * A capture NMI may come at any instruction: before @armed it does
	 * nothing; after it, its freeze and thaw leave TR|BTS set, which
	 * the write below sets too.
	 */
	/* bts-series: until intel-kexec */
	atomic_set(&c->stop, 0);
	/* bts-series: end */
	/* bts-series: from intel-kexec */
	atomic_and(INTEL_BTS_STOP_DEAD | INTEL_BTS_STOP_SLEEP, &c->stop);
	/* bts-series: end */
	/* bts-series: from pid */
	/* A task filter: frozen until the core thaws it (bts.h). */
	if (bts->arm_flags & BTS_ARM_FILTER)
		atomic_or(INTEL_BTS_STOP_FREEZE, &c->stop);
	/* bts-series: end */
	barrier();
	WRITE_ONCE(c->armed, true);
	/* bts-series: from intel-stream */
	/*
	 * The LVT performance counter entry is masked after INIT, and until
	 * perf programs it: the first interrupt would never come.
	 */
	if (c->stream)
		hw->pmi_unmask();
	/* bts-series: end */
	intel_bts_cpu_start(bts, c, 0);
	return 0;
}

/* bts-series: from intel-user */
/*
 * Without user-mode branches, the user half of a branch between user and
 * kernel mode (the return to user mode, recorded at CPL 0 with a user
 * target; the entry, where the CPU filters by the target's CPL) is
 * cleared and the record flagged BTS_FLAG_USER_CLEARED.
 */
static notrace void intel_bts_clear_user(const struct intel_bts_cpu *c,
					 struct bts_record *recs,
					 unsigned int n)
{
	unsigned int i;

	if (c->user)
		return;
	for (i = 0; i < n; i++) {
		struct bts_record *r = &recs[i];

		if (r->from && !(r->from >> 63)) {
			r->from = 0;
			r->flags |= BTS_FLAG_USER_CLEARED;
		}
		if (r->to && !(r->to >> 63)) {
			r->to = 0;
			r->flags |= BTS_FLAG_USER_CLEARED;
		}
	}
}

/* bts-series: end */
/* bts-series: from intel-stream */
/**
 * intel_bts_cpu_drain - hand a stream-mode CPU's records to the stream
 * @bts:	the source
 * @c:		this CPU's state, armed in stream mode
 *
 * On the CPU, IRQs off, with BTS stopped there: from the drain's irq_work
 * (intel_bts_cpu_drain_work()), from perf's PMI handler when that drain is
 * late, or, the index below the threshold so that no interrupt is on its
 * way, from the disarm. An NMI does not drain while the irq_work's drain
 * holds BTS stopped (INTEL_BTS_STOP_DRAIN): no drain interrupts another.
 * Hands the records from the base to the index over, oldest first,
 * straight from the buffer (the slots below the index are not written
 * again until it moves), then moves the index back to the base: after
 * the end of this round is noted, so that
 * a capture NMI reading the buffer at any point between finds the window
 * intel_bts_cpu_read() expects (the round's records below the index, or
 * none below it and the round above).
 *
 * With BTINT set the CPU does not wrap: at the absolute maximum it drops
 * every further record until the index moves. An index found there means
 * the interrupt came too late and an unknown number of records is gone:
 * the stream counts that as one lost record, after the ones handed over.
 * An index outside the buffer (the DS area changed behind our back) hands
 * nothing over and counts one lost record too.
 */
static notrace void intel_bts_cpu_drain(const struct intel_bts *bts,
					struct intel_bts_cpu *c)
{
	struct debug_store *ds = c->ds;
	u64 base = READ_ONCE(ds->bts_buffer_base);
	u64 index = READ_ONCE(ds->bts_index);
	u64 end = base + (u64)c->nr * INTEL_BTS_RECORD_SIZE;
	unsigned int pos = 0;
	unsigned long lost = 1;

	if (index >= base && index <= end) {
		pos = div_u64(index - base, INTEL_BTS_RECORD_SIZE);
		lost = index == end;
	}
	intel_bts_clear_user(c, c->recs, pos);
	bts->emit(c->recs, pos, 0, false);
	bts->emit(NULL, 0, lost, false);
	WRITE_ONCE(c->prev_end, pos);
	WRITE_ONCE(c->drained, true);
	barrier();
	WRITE_ONCE(ds->bts_index, base);
}

/* Has the index reached the interrupt threshold (stream mode)? */
static notrace bool intel_bts_cpu_at_threshold(const struct intel_bts_cpu *c)
{
	return READ_ONCE(c->ds->bts_index) >=
	       READ_ONCE(c->ds->bts_interrupt_threshold);
}

/**
 * intel_bts_cpu_pmi_enter - the BTS interrupt, from perf's PMI handler
 * @bts:	the source
 * @c:		this CPU's state
 *
 * NMI context, on the CPU, early in intel_pmu_handle_irq(), which runs on
 * every NMI while this source holds its exclusivity slot. In stream mode
 * BTS is stopped for the whole handler (until intel_bts_cpu_nmi_exit(),
 * after perf has unmasked the LVT entry), so that no branch is recorded
 * while the entry is masked: a threshold crossing then would raise no
 * interrupt ever. Then, if the index has reached the threshold, a drain
 * is asked for: whether this NMI is the BTS interrupt or not (a crossing
 * during the entry of any NMI is caught here). There is no status bit
 * for BTS; perf's own intel_bts decides the same way.
 *
 * The NMI does constant work: it moves the threshold up to
 * intel_bts_stream_late() and queues the drain, intel_bts_cpu_drain_work(),
 * which hands the records over from hard IRQ context. So perf's handler,
 * whose time perf counts against kernel.perf_event_max_sample_rate, costs
 * what it costs without bts, and the branches the CPU takes until the
 * drain runs go to the room above the threshold. Only if that room runs
 * out first (interrupts off all that time) does the NMI at the second
 * threshold drain the buffer itself, as no record may be lost: then the
 * queued drain finds nothing to do. So does an NMI that finds the index
 * past the second threshold already (no crossing of it would come), but
 * not one that interrupts the drain itself. A late drain runs here, with
 * perf's counters disabled, and perf times it: in the NMI's last handler,
 * after perf has enabled its counters again, they counted the drain, and
 * a counter that overflowed twice before the NMI returned lost a sample
 * (the emulated CPU lost 54 of 13,011 overflows of one event that way).
 * The handler's time, from here to its end, is charged to the budget
 * there; the drain's time, in the drain.
 *
 * Return: 0 when no drain was asked for; 2 when one was: the interrupt of
 * a crossing during this NMI may be latched behind it, and the NMI code
 * swallows a back-to-back unknown NMI after a handler that handled more
 * than one event (arch/x86/kernel/nmi.c).
 */
static notrace int intel_bts_cpu_pmi_enter(const struct intel_bts *bts,
					   struct intel_bts_cpu *c)
{
	struct debug_store *ds;

	if (!READ_ONCE(c->armed) || !c->stream)
		return 0;
	intel_bts_cpu_stop(bts, c, INTEL_BTS_STOP_PMI);
	if (!intel_bts_cpu_at_threshold(c))
		return 0;
	/* the drain runs, interrupted here: it hands these records over */
	if (atomic_read(&c->stop) & INTEL_BTS_STOP_DRAIN)
		return 2;
	c->pmi_start = bts->hw->clock();
	c->pmi_drained = true;
	ds = c->ds;
	if (c->drain_pending ||
	    READ_ONCE(ds->bts_index) >= intel_bts_stream_late(c)) {
		/* the drain, or this interrupt, is late: the room is nearly gone */
		intel_bts_cpu_drain(bts, c);
		WRITE_ONCE(ds->bts_interrupt_threshold,
			   intel_bts_stream_threshold(c));
		WRITE_ONCE(c->drain_pending, false);
		return 2;
	}
	WRITE_ONCE(ds->bts_interrupt_threshold, intel_bts_stream_late(c));
	WRITE_ONCE(c->drain_pending, true);
	bts->hw->drain_later();
	return 2;
}

/**
 * intel_bts_cpu_nmi_enter - an NMI began: BTS off until perf's handler ends
 * @bts:	the source
 * @c:		this CPU's state
 *
 * NMI context, on the CPU, from the NMI's first handler (the core's, see
 * struct bts_source). In stream mode BTS is stopped here with the reason
 * perf's handler holds, INTEL_BTS_STOP_PMI, which intel_bts_cpu_nmi_exit()
 * drops in the NMI's last handler: both run on every NMI (they are in the
 * same list of handlers, and every NMI walks all of it). What the NMI
 * code does in between is not recorded: above all the kernel's "NMI
 * handler took too long" message, formatted in NMI context after each
 * handler that set a new record, some 1500 branches each, more than the
 * room a late drain's NMI has (and than the 1365 records of room above
 * the threshold when every drain was in the NMI). Printed before perf's
 * handler, after a threshold crossing, it filled the buffer before the
 * drain; two printed after it, from a drained buffer, filled it before
 * the NMI returned. On silicon an SMI inside a handler is enough to make
 * the NMI code print it.
 */
static notrace void intel_bts_cpu_nmi_enter(const struct intel_bts *bts,
					    struct intel_bts_cpu *c)
{
	if (READ_ONCE(c->armed) && c->stream)
		intel_bts_cpu_stop(bts, c, INTEL_BTS_STOP_PMI);
}

/**
 * intel_bts_cpu_charge - charge stream mode's work to the budget
 * @bts:	the source
 * @c:		this CPU's state
 * @t0:		when the work began (@clock)
 * @t1:		when it ended
 *
 * NMI context, at the end of perf's PMI handler that asked for a drain
 * (from the moment it did: perf's own work in the handler included, the
 * CPU spent it because bts streams), or hard IRQ context, at the end of
 * the drain. The time since the last charged work ended pays the debt
 * off. Past the budget the BUDGET reason is taken before the caller's own
 * is dropped, so that BTS stays off until the throttle timer's end of the
 * pause. The two never nest: an NMI that interrupts the drain leaves the
 * records to it.
 */
static notrace void intel_bts_cpu_charge(const struct intel_bts *bts,
					 struct intel_bts_cpu *c, u64 t0, u64 t1)
{
	unsigned int pct = bts_stream_budget();

	if (pct && pct < BTS_STREAM_BUDGET_OFF) {
		u64 ran = t0 > c->last_drain ? t0 - c->last_drain : 0;

		c->owed = intel_bts_budget_owed(c->owed, ran, t1 - t0, pct);
		if (c->owed > INTEL_BTS_BUDGET_SLACK_NS) {
			/* BTS stays off; the timer starts it */
			atomic_or(INTEL_BTS_STOP_BUDGET, &c->stop);
			bts->hw->throttle(c->owed);
			c->owed = 0;
		}
	}
	c->last_drain = t1;
}

/**
 * intel_bts_cpu_unthrottle - the budget's pause is over: record again
 * @bts:	the source
 * @c:		this CPU's state
 *
 * Hard IRQ context (the throttle timer), on the CPU. What the CPU ran
 * while BTS was off is not in the stream: a gap of at least one record
 * says so, before the records that follow, and the stream counts a
 * pause. Nothing if the CPU is not armed or the budget does not hold BTS
 * off (a disarm came between, or a stale timer).
 */
static notrace void intel_bts_cpu_unthrottle(const struct intel_bts *bts,
					     struct intel_bts_cpu *c)
{
	if (!READ_ONCE(c->armed) ||
	    !(atomic_read(&c->stop) & INTEL_BTS_STOP_BUDGET))
		return;
	c->last_drain = bts->hw->clock();
	bts->emit(NULL, 0, 1, true);
	intel_bts_cpu_start(bts, c, INTEL_BTS_STOP_BUDGET);
}

/**
 * intel_bts_cpu_pmi_exit - the end of perf's PMI handler
 * @bts:	the source
 * @c:		this CPU's state
 *
 * NMI context, the last thing intel_pmu_handle_irq() does: charge a
 * handler that asked for a drain, or drained, to the budget. BTS stays
 * off until the NMI's last handler, intel_bts_cpu_nmi_exit().
 */
static notrace void intel_bts_cpu_pmi_exit(const struct intel_bts *bts,
					   struct intel_bts_cpu *c)
{
	if (c->pmi_drained) {
		c->pmi_drained = false;
		intel_bts_cpu_charge(bts, c, c->pmi_start, bts->hw->clock());
	}
}

/**
 * intel_bts_cpu_drain_work - the drain the BTS interrupt asked for
 * @bts:	the source
 * @c:		this CPU's state
 *
 * Hard IRQ context, on the CPU: the irq_work that intel_bts_cpu_pmi_enter()
 * queued, run once the NMI has returned and the CPU takes interrupts. BTS
 * went on again at the NMI's end and kept recording into the room above
 * the threshold; here it is stopped while the records are handed over
 * (a capture NMI meanwhile reads them in place: the drain moves the index
 * only), the threshold is set back, the drain's time is charged to the
 * budget, and BTS starts again unless another reason holds it. Nothing if
 * the CPU was disarmed since (the disarm drained it), armed anew (a
 * stale work: nothing pending), or drained by an NMI at the second
 * threshold (intel_bts_stream_late()), also between the test and the
 * stop below.
 */
static notrace void intel_bts_cpu_drain_work(const struct intel_bts *bts,
					     struct intel_bts_cpu *c)
{
	u64 t0;

	if (!READ_ONCE(c->armed) || !c->stream || !c->drain_pending)
		return;
	t0 = bts->hw->clock();
	intel_bts_cpu_stop(bts, c, INTEL_BTS_STOP_DRAIN);
	/* an NMI at the second threshold may have drained it meanwhile */
	if (!READ_ONCE(c->drain_pending)) {
		intel_bts_cpu_start(bts, c, INTEL_BTS_STOP_DRAIN);
		return;
	}
	intel_bts_cpu_drain(bts, c);
	WRITE_ONCE(c->ds->bts_interrupt_threshold,
		   intel_bts_stream_threshold(c));
	c->drain_pending = false;
	intel_bts_cpu_charge(bts, c, t0, bts->hw->clock());
	intel_bts_cpu_start(bts, c, INTEL_BTS_STOP_DRAIN);
}

/**
 * intel_bts_cpu_nmi_exit - the NMI's last handler: BTS on again
 * @bts:	the source
 * @c:		this CPU's state
 *
 * NMI context, from intel_bts_nmi_last(), at the end of the NMI_LOCAL
 * handlers while this source streams (registered after perf's and the
 * others of boot time): start BTS again unless something else holds it
 * stopped (the budget, a freeze the NMI interrupted, a disarm, the kexec
 * stop). Only the NMI code's message about this handler, if it set a new
 * record, and the NMI's return are recorded after it.
 */
static notrace void intel_bts_cpu_nmi_exit(const struct intel_bts *bts,
					   struct intel_bts_cpu *c)
{
	if (atomic_read(&c->stop) & INTEL_BTS_STOP_PMI)
		intel_bts_cpu_start(bts, c, INTEL_BTS_STOP_PMI);
}

/*
 * How long a disarm waits for the BTS interrupt of records already in
 * the buffer, in microseconds: with IRQs off an NMI is taken at once, so
 * only an interrupt that was lost (which no crossing outside perf's
 * handler can be) is waited for this long.
 */
#define INTEL_BTS_PMI_WAIT_US	1000

/* bts-series: end */
/**
 * intel_bts_cpu_disarm - stop BTS on one CPU and give perf its fields back
 * @bts:	the source
 * @c:		this CPU's state
 *
 * IRQs off, on the CPU. Stops BTS.
 * bts-series: from intel-stream
 * In stream mode it lets the interrupt of a buffer past the threshold
 * come (a drain here would leave it to arrive with nobody to claim it),
 * then hands everything over itself, a drain that interrupt or an earlier
 * one queued included: that drain finds the CPU disarmed.
 * bts-series: end
 * Clears all five bits this file owns and writes perf's four DS BTS
 * fields back exactly as they were at arm time.
 */
static void intel_bts_cpu_disarm(const struct intel_bts *bts,
				 struct intel_bts_cpu *c)
{
	struct debug_store *ds = c->ds;
	/* bts-series: from intel-stream */
	unsigned int i;
	/* bts-series: end */

	if (!c->armed)
		return;
	intel_bts_cpu_stop(bts, c, INTEL_BTS_STOP_DISARM);
	/* bts-series: from intel-stream */
	for (i = 0; c->stream && intel_bts_cpu_at_threshold(c) &&
	     i < INTEL_BTS_PMI_WAIT_US; i++)
		bts->hw->pmi_settle();
	/* bts-series: end */
	/* bts-series: until intel-stream */
	/*
	 * Not armed first: a capture NMI from here on finds nothing to
	 * freeze or thaw.
	 */
	/* bts-series: end */
	/* bts-series: from intel-stream */
	/*
	 * Not armed first: a capture NMI from here on finds nothing to
	 * freeze or thaw, and perf's PMI handler nothing to drain.
	 */
	/* bts-series: end */
	WRITE_ONCE(c->armed, false);
	barrier();
	intel_bts_debugctl_update(bts->hw, INTEL_BTS_CTL_MASK, 0);
	/* bts-series: from intel-stream */
	if (c->stream)
		intel_bts_cpu_drain(bts, c);
	/* a drain still queued finds the CPU disarmed */
	c->drain_pending = false;
	/* bts-series: end */
	/* bts-series: until intel-kexec */
	atomic_set(&c->stop, 0);
	/* bts-series: end */
	/* bts-series: from intel-kexec */
	atomic_and(INTEL_BTS_STOP_DEAD | INTEL_BTS_STOP_SLEEP, &c->stop);
	/* bts-series: end */
	/* bts-series: from intel-stream */
	c->stream = false;
	/* bts-series: end */
	ds->bts_buffer_base = c->perf.base;
	ds->bts_index = c->perf.index;
	ds->bts_absolute_maximum = c->perf.abs_max;
	ds->bts_interrupt_threshold = c->perf.threshold;
}

/*
 * Freeze: stop BTS, keeping the buffer. Thaw: start it again unless
 * another reason holds it. Nothing if the CPU is not armed. The core's
 * per-CPU freeze depth lets only the outermost freeze and the last thaw
 * reach them (an NMI in between only moves the depth, or freezes the
 * source itself when it lands inside the outer freeze).
 * bts-series: from intel-stream
 * Neither drains: the drain the BTS interrupt queues does.
 * bts-series: end
 */
static notrace void intel_bts_cpu_freeze(const struct intel_bts *bts,
					 struct intel_bts_cpu *c)
{
	if (READ_ONCE(c->armed))
		intel_bts_cpu_stop(bts, c, INTEL_BTS_STOP_FREEZE);
}

static notrace void intel_bts_cpu_thaw(const struct intel_bts *bts,
				       struct intel_bts_cpu *c)
{
	if (atomic_read(&c->stop) & INTEL_BTS_STOP_FREEZE)
		intel_bts_cpu_start(bts, c, INTEL_BTS_STOP_FREEZE);
}

/* bts-series: from intel-kexec */
/*
 * The machine is going down (kexec, reboot, crash): clear all five bits
 * on this CPU, whatever its state, and keep them clear: no later thaw,
 * end of a BTS interrupt or arming sets them again. The records stay
 * where they are; perf's DS fields are not given back.
 */
static notrace void intel_bts_cpu_stop_for_good(const struct intel_bts *bts,
						struct intel_bts_cpu *c)
{
	atomic_or(INTEL_BTS_STOP_DEAD, &c->stop);
	intel_bts_debugctl_update(bts->hw, INTEL_BTS_CTL_MASK, 0);
}

/*
 * The system goes to sleep: suspend to RAM, hibernation (its snapshot,
 * and the restore of an image), a kexec jump (kexec with
 * preserve_context). Syscore suspend, on the one CPU left online, IRQs
 * off. Stop BTS until the matching resume: the restore of a hibernation
 * image runs on temporary page tables that do not map the
 * cpu_entry_area, where the DS area and the buffer are, so the first
 * branch recorded there stores through an unmapped DS area; a kexec jump
 * hands the CPU to another kernel with BTS on. The reason holds through
 * the end of an NMI, a thaw and the end of a budget pause; the buffer
 * and the DS fields are kept, and resume starts BTS again where it
 * stopped (after a hibernation restore: in the kernel of the image,
 * whose memory holds the reason as it was at its snapshot).
 */
static notrace void intel_bts_cpu_suspend(const struct intel_bts *bts,
					  struct intel_bts_cpu *c)
{
	intel_bts_cpu_stop(bts, c, INTEL_BTS_STOP_SLEEP);
}

static notrace void intel_bts_cpu_resume(const struct intel_bts *bts,
					 struct intel_bts_cpu *c)
{
	intel_bts_cpu_start(bts, c, INTEL_BTS_STOP_SLEEP);
}

/* bts-series: end */
/**
 * intel_bts_cpu_read - copy a frozen CPU's newest records, oldest first
 * @c:		the CPU's state
 * @out:	room for @n records
 * @n:		how many of the newest are wanted
 * @window:	set to what the copy covers
 *
 * The CPU writes the next record at bts_index and wraps to the base when
 * the index reaches the absolute maximum. So the slot at the index holds
 * the oldest record if the buffer has wrapped, and is still clear
 * (from == to == 0, cleared at arm) if it has not; then the records are
 * the slots below the index. An index outside the buffer (a DS area
 * changed behind our back) yields nothing; an index at the absolute
 * maximum is taken as the base, a misaligned one is rounded down.
 * bts-series: from intel-stream
 *
 * In stream mode the buffer does not wrap: the records below the index
 * are the newest, and above it, up to where the last drain ended, lie the
 * ones just before them (already streamed, not yet overwritten). The
 * window is partial until the first drain. While a drain is pending, BTS
 * records on above the threshold: still the slots below the index. A
 * drain moves only the index (this copies with IRQs off, which keeps the
 * drain's irq_work out; a capture NMI that lands inside a drain finds the
 * window the drain's order of writes keeps valid).
 * bts-series: end
 *
 * No locks, no allocation: NMI and oops safe.
 *
 * Return: the number of records copied.
 */
static notrace unsigned int intel_bts_cpu_read(const struct intel_bts_cpu *c,
					       struct bts_record *out,
					       unsigned int n,
					       enum bts_window *window)
{
	const struct bts_record *next;
	unsigned int pos, avail, start, first, size;
	u64 base, index;
	bool wrapped;

	*window = BTS_WINDOW_EMPTY;
	if (!c->armed || !n)
		return 0;
	base = READ_ONCE(c->ds->bts_buffer_base);
	index = READ_ONCE(c->ds->bts_index);
	if (index < base || index - base > (u64)c->nr * INTEL_BTS_RECORD_SIZE)
		return 0;
	pos = div_u64(index - base, INTEL_BTS_RECORD_SIZE);
	/* bts-series: until intel-stream */
	if (pos == c->nr)
		pos = 0;
	next = &c->recs[pos];
	wrapped = next->from || next->to;
	size = c->nr;
	avail = wrapped ? size : pos;
	/* bts-series: end */
	/* bts-series: from intel-stream */
	if (c->stream) {
		/* [pos, size) then [0, pos): the previous round's tail */
		size = max(pos, READ_ONCE(c->prev_end));
		wrapped = READ_ONCE(c->drained);
	} else {
		if (pos == c->nr)
			pos = 0;
		next = &c->recs[pos];
		wrapped = next->from || next->to;
		size = c->nr;
	}
	avail = (c->stream || wrapped) ? size : pos;
	/* bts-series: end */
	if (!avail)
		return 0;
	n = min(n, avail);

	/* Oldest wanted slot, then copy up to the end and from the base. */
	start = pos >= n ? pos - n : pos + size - n;
	first = min(n, size - start);
	memcpy(out, &c->recs[start], first * sizeof(*out));
	memcpy(out + first, c->recs, (n - first) * sizeof(*out));
	/* bts-series: from intel-user */
	intel_bts_clear_user(c, out, n);
	/* bts-series: end */
	*window = wrapped ? BTS_WINDOW_WRAPPED : BTS_WINDOW_PARTIAL;
	return n;
}

/* bts-series: from intel-live */
/*
 * A kernel address of @p that /proc/kcore shows: perf maps the DS area
 * into the cpu_entry_area, which it does not; its direct-map alias is.
 */
static unsigned long intel_bts_kcore_addr(const void *p)
{
	if (virt_addr_valid(p))
		return (unsigned long)p;
	return (unsigned long)__va(slow_virt_to_phys((void *)p));
}

/**
 * intel_bts_cpu_live - where a debugger finds an armed CPU's records
 * @c:		the CPU's state, armed
 * @slot:	filled in (struct bts_live_slot, include/uapi/linux/bts.h)
 *
 * bts-series: until intel-stream
 * The documented reading of the slot (BTS_LIVE_CIRCULAR) is
 * bts-series: end
 * bts-series: from intel-stream
 * The documented reading of the slot (BTS_LIVE_CIRCULAR, _STREAM) is
 * bts-series: end
 * intel_bts_cpu_read()'s: the KUnit suite intel_bts_live checks that they
 * agree. Process context or the CPU's hotplug callback.
 */
static void intel_bts_cpu_live(const struct intel_bts_cpu *c,
			       struct bts_live_slot *slot)
{
	/* bts-series: from intel-stream */
	BUILD_BUG_ON(sizeof(c->prev_end) != sizeof(u32));
	BUILD_BUG_ON(sizeof(c->drained) != sizeof(u8));
	/* bts-series: end */
	BUILD_BUG_ON(sizeof(c->ds->bts_index) != sizeof(u64));
	memset(slot, 0, sizeof(*slot));
	slot->source = BTS_SOURCE_HW;
	/* bts-series: until intel-stream */
	slot->kind = BTS_LIVE_CIRCULAR;
	/* bts-series: end */
	/* bts-series: from intel-stream */
	slot->kind = c->stream ? BTS_LIVE_STREAM : BTS_LIVE_CIRCULAR;
	/* bts-series: end */
	slot->nr = c->nr;
	slot->flags = c->user ? 0 : BTS_LIVE_CLEAR_USER;
	slot->recs = intel_bts_kcore_addr(c->recs);
	slot->head = intel_bts_kcore_addr(&c->ds->bts_index);
	slot->head_base = c->ds->bts_buffer_base;
	/* bts-series: from intel-stream */
	if (c->stream) {
		slot->tail = intel_bts_kcore_addr(&c->prev_end);
		slot->drained = intel_bts_kcore_addr(&c->drained);
	}
	/* bts-series: end */
}

/* bts-series: end */
/* ---- reservation: process context ---- */

/**
 * intel_bts_reserve - take the hardware from perf for arming
 * @bts: the source
 *
 * The exclusivity slot first (perf LBR, BTS, intel_bts and, where it
 * cannot coexist with LBR, PT users then get -EBUSY, and while they hold
 * it so do we), then a perf reservation, which allocates the DS areas
 * and the BTS buffers if nobody holds one yet. perf does not report a
 * failed allocation: check bts_active and every CPU's buffer.
 *
 * Return: 0, -EBUSY (perf holds the hardware) or -ENOMEM (no buffers).
 */
static int intel_bts_reserve(struct intel_bts *bts)
{
	const struct intel_bts_hw *hw = bts->hw;
	unsigned int cpu;
	int ret;

	ret = hw->add_exclusive();
	if (ret)
		return -EBUSY;
	ret = hw->reserve();
	if (ret) {
		hw->del_exclusive();
		return ret;
	}
	ret = -ENOMEM;
	if (!hw->pmu_bts_active())
		goto undo;
	for_each_possible_cpu(cpu)
		if (!hw->ds(cpu) || !hw->buffer(cpu))
			goto undo;
	bts->reserved = true;
	return 0;
undo:
	hw->release();
	hw->del_exclusive();
	return ret;
}

/* Undo intel_bts_reserve(): the reservation, then the slot. */
static void intel_bts_release(struct intel_bts *bts)
{
	if (!bts->reserved)
		return;
	bts->reserved = false;
	bts->hw->release();
	bts->hw->del_exclusive();
}

/**
 * intel_bts_reason - why the source cannot be armed now
 * @bts: the source, not armed
 * @err: set to the errno arming would fail with (may be NULL)
 *
 * bts-series: until intel-why
 * The feature bits. It only looks: reading bts/source must not take a
 * perf reservation (which allocates every CPU's DS area and sends IPIs).
 * So perf holding the hardware (-EBUSY) and a failed DS allocation
 * (-ENOMEM) show only when arming.
 * bts-series: end
 * bts-series: from intel-why
 * The feature bits, then whether perf's LBR, BTS or intel_bts users hold
 * the hardware. It only looks: reading bts/source must not take a perf
 * reservation (which allocates every CPU's DS area and sends IPIs) nor
 * make a concurrent perf event fail with -EBUSY. So a failed DS
 * allocation (-ENOMEM) shows only when arming.
 * bts-series: end
 *
 * Return: NULL or a one-line reason.
 */
static const char *intel_bts_reason(struct intel_bts *bts, int *err)
{
	const char *why;
	int dummy;

	if (!err)
		err = &dummy;
	why = intel_bts_static_reason(bts->hw, err);
	if (why)
		return why;
	*err = 0;
	/* bts-series: from intel-why */
	if (bts->hw->exclusive_busy()) {
		*err = -EBUSY;
		return "BTS taken by perf (LBR, BTS or intel_bts events): -EBUSY until they end";
	}
	/* bts-series: end */
	return NULL;
}

/* ---- the source: the real CPUs ---- */

static struct intel_bts intel_bts = {
	.hw	= &intel_bts_real_hw,
	/* bts-series: from intel-stream */
	.emit	= bts_stream_emit,
	/* bts-series: end */
	.nr	= INTEL_BTS_NR_RECORDS,
};

static DEFINE_PER_CPU(struct intel_bts_cpu, intel_bts_cpus);

/* bts-series: from intel-stream */
/*
 * The budget's pause is over (intel_bts_throttle_work_fn() started it,
 * pinned to the CPU). Hard IRQ context. A timer that its CPU's going
 * offline moved to another CPU fires there and touches nothing: that CPU
 * was disarmed by the hotplug teardown, and arms afresh when it is back.
 */
static enum hrtimer_restart intel_bts_throttle_fn(struct hrtimer *timer)
{
	if (timer == this_cpu_ptr(&intel_bts_throttle_timer))
		intel_bts_cpu_unthrottle(&intel_bts,
					 this_cpu_ptr(&intel_bts_cpus));
	return HRTIMER_NORESTART;
}

/*
 * The drain the BTS interrupt asked for (intel_bts_hw_drain_later()).
 * Hard IRQ context, on the CPU that queued it: a hard irq_work runs where
 * it was queued, and one queued on a CPU going offline runs there before
 * it is gone (after the offline callback disarmed it: nothing to do).
 */
static notrace void intel_bts_drain_work_fn(struct irq_work *work)
{
	intel_bts_cpu_drain_work(&intel_bts, this_cpu_ptr(&intel_bts_cpus));
}

/* bts-series: end */
static DEFINE_MUTEX(intel_bts_mutex);
static int intel_bts_hp_state;	/* cpuhp state while armed, else 0 */

static int intel_bts_cpu_online(unsigned int cpu)
{
	unsigned long flags;
	int ret;

	local_irq_save(flags);
	ret = intel_bts_cpu_arm(&intel_bts, this_cpu_ptr(&intel_bts_cpus),
				cpu);
	local_irq_restore(flags);
	/* bts-series: until intel-live */
	if (ret)
		pr_warn_once("CPU %u has no DS area or BTS buffer: not recording there\n",
			     cpu);
	/* bts-series: end */
	/* bts-series: from intel-live */
	if (ret) {
		pr_warn_once("CPU %u has no DS area or BTS buffer: not recording there\n",
			     cpu);
	} else {
		struct bts_live_slot slot;

		intel_bts_cpu_live(this_cpu_ptr(&intel_bts_cpus), &slot);
		bts_live_publish(cpu, &slot);
	}
	/* bts-series: end */
	return 0;
}

static int intel_bts_cpu_offline(unsigned int cpu)
{
	unsigned long flags;

	/* bts-series: from intel-live */
	/* Before perf gets its buffer and DS fields back. */
	bts_live_publish(cpu, NULL);
	/* bts-series: end */
	local_irq_save(flags);
	intel_bts_cpu_disarm(&intel_bts, this_cpu_ptr(&intel_bts_cpus));
	local_irq_restore(flags);
	return 0;
}

static const char *intel_bts_unavailable(int *err)
{
	const char *why;

	mutex_lock(&intel_bts_mutex);
	why = intel_bts_hp_state ? NULL : intel_bts_reason(&intel_bts, err);
	mutex_unlock(&intel_bts_mutex);
	return why;
}

static unsigned int intel_bts_capacity(void)
{
	return intel_bts.nr;
}

/* bts-series: from intel-stream */
/* The last NMI handler: see intel_bts_cpu_nmi_exit(). Claims nothing. */
static notrace int intel_bts_nmi_last(unsigned int cmd, struct pt_regs *regs)
{
	intel_bts_cpu_nmi_exit(&intel_bts, this_cpu_ptr(&intel_bts_cpus));
	return NMI_DONE;
}

/* bts-series: end */
/**
 * intel_bts_arm - reserve the hardware and record on every online CPU
 * @arm_flags: BTS_ARM_*
 *
 * Process context. The online callback arms each CPU now and each CPU
 * that comes online later (after CPUHP_AP_PERF_X86_STARTING has written
 * its DS_AREA); the offline callback disarms a
 * CPU before perf forgets its DS area.
 *
 * Return: 0, -EBUSY (perf holds the hardware), -ENOMEM, -ENODEV, or
 * bts-series: until intel-user
 * -EOPNOTSUPP when user branches are asked for, or the CPU has no DS-CPL
 * (CPL-qualified BTS) to leave them out,
 * bts-series: end
 * bts-series: from intel-user
 * -EOPNOTSUPP when user branches are to be left out but the CPU has no
 * DS-CPL (CPL-qualified BTS)
 * bts-series: end
 * bts-series: until intel-stream
 * or stream mode is asked for.
 * bts-series: end
 * bts-series: from intel-stream
 * or stream mode is asked for where perf's PMI handler does not call this
 * source's hooks.
 * bts-series: end
 */
static int intel_bts_arm(unsigned int arm_flags)
{
	const char *why;
	int ret;

	mutex_lock(&intel_bts_mutex);
	ret = -EBUSY;
	if (intel_bts_hp_state)
		goto out;
	why = intel_bts_static_reason(intel_bts.hw, &ret);
	if (why)
		goto out;
	ret = -EOPNOTSUPP;
	/* bts-series: until intel-stream */
	if (arm_flags & BTS_ARM_STREAM)
		goto out;
	/* bts-series: end */
	/* bts-series: from intel-stream */
	if ((arm_flags & BTS_ARM_STREAM) && !intel_bts.hw->pmi_hooked()) {
		pr_info("stream mode needs the Intel PMU driver's PMI handler (perfmon v2)\n");
		goto out;
	}
	/* bts-series: end */
	/* bts-series: until intel-user */
	if (arm_flags & BTS_ARM_USER) {
		pr_info("user-mode branches: not supported\n");
		goto out;
	}
	if (!intel_bts.hw->has_feature(X86_FEATURE_DSCPL)) {
		pr_info("no DS-CPL: user branches cannot be left out\n");
		goto out;
	}
	/* bts-series: end */
	/* bts-series: from intel-user */
	if (!(arm_flags & BTS_ARM_USER) &&
	    !intel_bts.hw->has_feature(X86_FEATURE_DSCPL)) {
		pr_info("no DS-CPL: user branches cannot be left out; enable the user option\n");
		goto out;
	}
	/* bts-series: end */
	ret = intel_bts_reserve(&intel_bts);
	if (ret) {
		pr_info("%s\n", ret == -EBUSY ?
			"BTS taken by perf (LBR, BTS or intel_bts events)" :
			"perf's Debug Store allocation failed");
		goto out;
	}
	intel_bts.arm_flags = arm_flags;
	/* bts-series: from intel-stream */
	if (arm_flags & BTS_ARM_STREAM) {
		/* at the tail: after perf's handler and the others */
		ret = register_nmi_handler(NMI_LOCAL, intel_bts_nmi_last, 0,
					   "bts_last");
		if (ret) {
			intel_bts_release(&intel_bts);
			goto out;
		}
		static_branch_enable(&intel_bts_trace_pmi_key);
	}
	/* bts-series: end */
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "perf/x86/intel/bts_trace:online",
				intel_bts_cpu_online, intel_bts_cpu_offline);
	if (ret < 0) {
		/* bts-series: from intel-stream */
		if (arm_flags & BTS_ARM_STREAM) {
			static_branch_disable(&intel_bts_trace_pmi_key);
			unregister_nmi_handler(NMI_LOCAL, "bts_last");
		}
		/* bts-series: end */
		intel_bts_release(&intel_bts);
		goto out;
	}
	intel_bts_hp_state = ret;
	ret = 0;
out:
	mutex_unlock(&intel_bts_mutex);
	return ret;
}

/*
 * bts-series: until intel-stream
 * Disarm every online CPU (the offline callback), then release perf's.
 * bts-series: end
 * bts-series: from intel-stream
 * Disarm every online CPU (the offline callback), take the PMI hooks out
 * (a hook still running elsewhere finds its CPU disarmed), then release
 * perf's.
 * bts-series: end
 */
static void intel_bts_disarm(void)
{
	mutex_lock(&intel_bts_mutex);
	if (intel_bts_hp_state) {
		/* bts-series: from intel-stream */
		int cpu;

		/* bts-series: end */
		cpuhp_remove_state(intel_bts_hp_state);
		intel_bts_hp_state = 0;
		/* bts-series: from intel-stream */
		/* no budget pause outlives the arming it belongs to */
		for_each_possible_cpu(cpu) {
			irq_work_sync(per_cpu_ptr(&intel_bts_drain_work, cpu));
			irq_work_sync(per_cpu_ptr(&intel_bts_throttle_work, cpu));
			hrtimer_cancel(per_cpu_ptr(&intel_bts_throttle_timer, cpu));
		}
		if (intel_bts.arm_flags & BTS_ARM_STREAM) {
			static_branch_disable(&intel_bts_trace_pmi_key);
			unregister_nmi_handler(NMI_LOCAL, "bts_last");
		}
		/* bts-series: end */
		intel_bts_release(&intel_bts);
	}
	mutex_unlock(&intel_bts_mutex);
}

/**
 * intel_bts_freeze_this_cpu - stop BTS on this CPU, keeping the buffer
 *
 * One DEBUGCTL read-modify-write. IRQs off, NMI or oops context. A
 * concurrent RMW of DEBUGCTL that this freeze interrupted, or KVM's
 * restore of the host DEBUGCTL after a VM exit, can set TR|BTS again:
 * callers copy the records out right away (bts_core.c does).
 */
static notrace void intel_bts_freeze_this_cpu(void)
{
	intel_bts_cpu_freeze(&intel_bts, this_cpu_ptr(&intel_bts_cpus));
}

static notrace void intel_bts_thaw_this_cpu(void)
{
	intel_bts_cpu_thaw(&intel_bts, this_cpu_ptr(&intel_bts_cpus));
}

/* bts-series: from intel-kexec */
/* The machine is going down: see intel_bts_cpu_stop_for_good(). */
static notrace void intel_bts_stop_this_cpu(void)
{
	intel_bts_cpu_stop_for_good(&intel_bts, this_cpu_ptr(&intel_bts_cpus));
}

/* bts-series: end */
static notrace unsigned int intel_bts_read_this_cpu(struct bts_record *buf,
						    unsigned int n,
						    enum bts_window *window)
{
	return intel_bts_cpu_read(this_cpu_ptr(&intel_bts_cpus), buf, n,
				  window);
}

/* bts-series: from intel-stream */
/* The first NMI handler: see intel_bts_cpu_nmi_enter(). */
static notrace void intel_bts_nmi_enter(void)
{
	intel_bts_cpu_nmi_enter(&intel_bts, this_cpu_ptr(&intel_bts_cpus));
}

/* bts-series: end */
static struct bts_source intel_bts_source = {
	.name			= "intel_bts",
	.id			= BTS_SOURCE_HW,
	.unavailable		= intel_bts_unavailable,
	.capacity		= intel_bts_capacity,
	.arm			= intel_bts_arm,
	.disarm			= intel_bts_disarm,
	.freeze_this_cpu	= intel_bts_freeze_this_cpu,
	.thaw_this_cpu		= intel_bts_thaw_this_cpu,
	.read_this_cpu		= intel_bts_read_this_cpu,
	/* bts-series: from intel-kexec */
	.stop_this_cpu		= intel_bts_stop_this_cpu,
	/* bts-series: end */
	/* bts-series: from intel-stream */
	.nmi_enter		= intel_bts_nmi_enter,
	/* bts-series: end */
};

/* bts-series: from intel-kexec */
/*
 * System sleep, on the boot CPU (the only one online here, IRQs off): see
 * intel_bts_cpu_suspend(). The others went through the offline callback
 * and come back through the online one. At resume,
 * perf_restore_debug_store() has written DS_AREA back, but nothing
 * restores DEBUGCTL (a wake from S3 clears it): the DS fields and the
 * buffer survived in memory.
 */
static int intel_bts_suspend(void *data)
{
	intel_bts_cpu_suspend(&intel_bts, this_cpu_ptr(&intel_bts_cpus));
	return 0;
}

static void intel_bts_resume(void *data)
{
	intel_bts_cpu_resume(&intel_bts, this_cpu_ptr(&intel_bts_cpus));
}

/* bts-series: end */
/* bts-series: from intel-stream */
/*
 * The hooks perf's PMI handler calls (perf_event.h), while a stream-mode
 * arming has the key on: every NMI of every CPU passes here then.
 */
DEFINE_STATIC_KEY_FALSE(intel_bts_trace_pmi_key);

/**
 * __intel_bts_trace_pmi_enter - see intel_bts_cpu_pmi_enter()
 *
 * Return: the events handled, for intel_pmu_handle_irq()'s count.
 */
notrace int __intel_bts_trace_pmi_enter(void)
{
	return intel_bts_cpu_pmi_enter(&intel_bts,
				       this_cpu_ptr(&intel_bts_cpus));
}

/**
 * __intel_bts_trace_pmi_exit - see intel_bts_cpu_pmi_exit()
 */
notrace void __intel_bts_trace_pmi_exit(void)
{
	intel_bts_cpu_pmi_exit(&intel_bts, this_cpu_ptr(&intel_bts_cpus));
}
/* bts-series: end */

/* bts-series: from intel-kexec */
static void intel_bts_stop_ipi(void *info)
{
	intel_bts_stop_this_cpu();
}

/*
 * Reboot and kexec: stop BTS on every CPU before the next kernel (or the
 * firmware) owns the memory the buffers and the DS area are in. kexec
 * does not reset the CPU that jumps into the new kernel, nor the others
 * before they are parked; the crash path has bts_crash_stop_this_cpu().
 * Process context, the other CPUs still online (and able to arm: the
 * stop is for good, armed or not).
 */
static void intel_bts_shutdown(void *data)
{
	on_each_cpu(intel_bts_stop_ipi, NULL, 1);
}

static const struct syscore_ops intel_bts_syscore_ops = {
	.suspend = intel_bts_suspend,
	.resume = intel_bts_resume,
	.shutdown = intel_bts_shutdown,
};

static struct syscore intel_bts_syscore = {
	.ops = &intel_bts_syscore_ops,
};

/*
 * A kernel that kexec'ed this one without stopping BTS (bts stops it on
 * every CPU before a kexec, a reboot or a crash kernel; another kernel
 * may not) left CPUs storing records through its DS_AREA, into memory
 * that is ours now. INIT keeps DEBUGCTL and DS_AREA (SDM Vol. 3A, Table
 * 9-1), so that is every CPU it left recording, not only the boot CPU:
 * the others kept recording from their first instruction here. At init
 * nothing of this kernel has turned BTS on, so whatever is on is a
 * leftover: stop it on each online CPU, without marking the CPU stopped
 * for good (it may record for bts later). A CPU first brought online
 * after init is not looked at (reasoned, not tested: no kernel here
 * leaves BTS on).
 */
static void __init intel_bts_stop_leftover(void *left)
{
	if (get_debugctlmsr() & INTEL_BTS_CTL_RUN) {
		intel_bts_debugctl_update(&intel_bts_real_hw,
					  INTEL_BTS_CTL_MASK, 0);
		atomic_inc(left);
	}
}

/* bts-series: end */
static int __init intel_bts_init(void)
{
	const char *why;
	/* bts-series: until intel-stream */
	int ret;
	/* bts-series: end */
	/* bts-series: from intel-stream */
	int cpu, ret;
	/* bts-series: end */

	/* bts-series: from intel-why */
	/* bts-series: until intel-kexec */
	if (boot_cpu_has(X86_FEATURE_BTS))
		intel_bts_ctl_works = intel_bts_probe_debugctl();
	/* bts-series: end */
	/* bts-series: end */
	/* bts-series: from intel-kexec */
	if (boot_cpu_has(X86_FEATURE_BTS)) {
		atomic_t left = ATOMIC_INIT(0);

		on_each_cpu(intel_bts_stop_leftover, &left, 1);
		if (atomic_read(&left))
			pr_warn("BTS was left on by the previous kernel on %d CPUs: stopped it\n",
				atomic_read(&left));
		intel_bts_ctl_works = intel_bts_probe_debugctl();
	}
	/* bts-series: end */
	/* bts-series: from intel-stream */
	for_each_possible_cpu(cpu) {
		struct hrtimer *t = per_cpu_ptr(&intel_bts_throttle_timer, cpu);

		per_cpu(intel_bts_throttle_work, cpu) =
			IRQ_WORK_INIT_HARD(intel_bts_throttle_work_fn);
		per_cpu(intel_bts_drain_work, cpu) =
			IRQ_WORK_INIT_HARD(intel_bts_drain_work_fn);
		hrtimer_init(t, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
		t->function = intel_bts_throttle_fn;
	}
	/* bts-series: end */
	why = intel_bts_static_reason(intel_bts.hw, &ret);
	/* bts-series: until intel-kexec */
	if (why)
		pr_info("%s\n", why);
	else
		pr_info("BTS available: %u records per CPU\n", intel_bts.nr);
	/* bts-series: end */
	/* bts-series: from intel-kexec */
	if (why) {
		pr_info("%s\n", why);
	} else {
		register_syscore(&intel_bts_syscore);
		pr_info("BTS available: %u records per CPU\n", intel_bts.nr);
	}
	/* bts-series: end */
	/* Registered either way, so that users see it and why it is off. */
	ret = bts_register_source(&intel_bts_source);
	if (ret)
		pr_warn("cannot register the source: %d\n", ret);
	return ret;
}
device_initcall(intel_bts_init);

/* bts-series: from kunit */
#ifdef CONFIG_BTS_TRACER_KUNIT_TEST
#include "bts_trace_kunit.c"
#endif

/* bts-series: end */