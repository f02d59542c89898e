#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bts-boot: own
# bts-expect: oops
# bts-cmdline: panic_on_oops=0
# bts-machines: sw hw
# bts-timeout: 1200
# What only silicon can tell, measured on this machine and printed as
# kselftest diagnostics ("# measured: ..."): on an Intel machine with BTS,
#
#   make -C tools/testing/selftests TARGETS=bts run_tests
#
# gives the figures Documentation/trace/bts-intel.rst lists as unverified:
#  - the slowdown of a fixed workload (progs/workload.c sys, on one CPU)
#    armed in ring and in stream mode against bts off, best of 3 each,
#    in the same run;
#  - the records per second that CPU streamed (bts/stream's counters
#    around one run of the workload in stream mode);
#  - the BTS interrupt and the drain: the interrupt is taken in perf's
#    PMI handler, an NMI handler, whose every run the nmi:nmi_handler
#    event times (delta_ns); a late drain runs there too, the others in
#    an irq_work. Enabled in a tracing instance of its own while
#    streaming, with the irq_work vector's events: the longest run of
#    perf's handler and how many, and the irq_work runs on the
#    workload's CPU;
#  - whether the DEBUGCTL bits other than BTS's were kept: MSR 0x1d9 of
#    every CPU read (never written) through /dev/cpu/N/msr before arming,
#    armed and after disarming;
#  - the freeze distance of a fault provoked through bts/test_fault (test
#    kernels, CONFIG_BTS_TRACER_TESTING, and panic_on_oops 0 only: it
#    oopses this test's child): the records from the fault's to the end
#    of the capture.
# Times are printed, never asserted. It fails where a figure shows a
# fault: nothing streamed while armed in stream mode, a DEBUGCTL bit not
# BTS's changed, BTS's bits not as before after disarming, no BTS
# interrupt while the Intel source streamed, a capture without the
# fault's record. In the project's QEMU the figures are the emulator's,
# not silicon's. Last in kselftest's order: its fault taints the kernel.
. ./lib.sh
# the workload: N system-call pairs (getppid, read of /dev/zero)
N=20000
MSR_DEBUGCTL=0x1d9
# TR, BTS, BTINT, BTS_OFF_OS, BTS_OFF_USR: the bits the Intel source
# owns (arch/x86/events/intel/bts_trace.c, INTEL_BTS_CTL_MASK)
BTS_BITS=$((0x7c0))
BTS_RUN=$((0xc0))
I=$T/instances/bts-silicon
NMI_LONGEST=/sys/kernel/debug/x86/nmi_longest_ns
F=/tmp/bts-silicon
mkdir -p $F

grep -qw bts $T/available_tracers || skip_all "the running kernel has no bts tracer"
echo nop > $T/current_tracer
echo ring > $B/mode
echo 1 > $T/tracing_on

# the online CPUs ("0-3,6" in sysfs), one per word
cpus=$(tr ',' '\n' < /sys/devices/system/cpu/online |
	awk -F- '{ e = NF > 1 ? $2 : $1; for (i = $1; i <= e; i++) printf "%d ", i }')
# the workload's CPU: 1 where there is one (CPU 0 takes more of the
# machine's interrupts), else the first
W=${cpus%% *}
case " $cpus" in *" 1 "*) W=1 ;; esac
MASK=$(printf '%x' $((1 << W)))

model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
echo bts > $T/current_tracer
active=$(sed -n 's/^active: //p' $B/source)
echo nop > $T/current_tracer
diag "measured on this machine: ${model:-unknown CPU}, $(echo $cpus | wc -w) CPUs online," \
	"kernel $(uname -r), bts source ${active:-none}"
if grep -qw hypervisor /proc/cpuinfo; then
	diag "measured: this machine is virtual (cpuinfo says hypervisor): every figure" \
		"below is its emulator's, not silicon's"
fi
[ "$active" = intel_bts ] ||
	diag "measured: the software source (no BTS here, see bts/source): the BTS" \
		"interrupt and the branch figures are the Intel source's only (hw only)"

# ---- DEBUGCTL: read before arming ------------------------------------
msr_why=
[ -e /dev/cpu/${cpus%% *}/msr ] || modprobe msr 2> /dev/null
if [ ! -e /dev/cpu/${cpus%% *}/msr ]; then
	msr_why="no /dev/cpu/N/msr: the msr driver (CONFIG_X86_MSR) is not here and modprobe msr failed"
elif [ ! -x $BIN/rdmsr ]; then
	msr_why="no $BIN/rdmsr (progs/rdmsr.c): build the kselftest first"
fi
# debugctl NAME: every online CPU's DEBUGCTL ("CPU 0xVALUE" lines) into
# $F/dc.NAME; on a failure msr_why says why
debugctl() {
	[ -z "$msr_why" ] || return 1
	$BIN/rdmsr $MSR_DEBUGCTL $cpus > $F/dc.$1 2> $F/rdmsr.err && return 0
	msr_why="DEBUGCTL (MSR 0x1d9) cannot be read here: $(cat $F/rdmsr.err)"
	return 1
}
# changed A B MASK: the CPUs whose DEBUGCTL bits in MASK differ between
# readings A and B, "cpuN 0xA->0xB" each
changed() {
	local c a b
	while read -r c a; do
		b=$(awk -v c="$c" '$1 == c { print $2 }' $F/dc.$2)
		[ $(((a ^ ${b:-0}) & $3)) -eq 0 ] || printf 'cpu%s %s->%s ' "$c" "$a" "$b"
	done < $F/dc.$1
}
# not_running NAME: the CPUs where reading NAME lacks TR|BTS
not_running() {
	local c a
	while read -r c a; do
		[ $((a & BTS_RUN)) -eq $BTS_RUN ] || printf 'cpu%s %s ' "$c" "$a"
	done < $F/dc.$1
}
# readings NAME: the reading as one line, for the diagnostics
readings() { awk '{ printf "cpu%s %s ", $1, $2 }' $F/dc.$1; }
# debugctl_kept WHEN A B: A and B agree on the bits that are not BTS's
# (with the software source, which never touches DEBUGCTL: on every bit)
debugctl_kept() {
	local mask=$((~BTS_BITS)) what="the DEBUGCTL bits other than BTS's" d
	if [ "$active" != intel_bts ]; then
		mask=-1 what="every DEBUGCTL bit (the software source never touches it)"
	fi
	d=$(changed $2 $3 $mask)
	[ -z "$d" ] && ok "$what: kept $1" || not_ok "$what: kept $1 (changed: $d)"
}
debugctl before

# ---- slowdown: the workload off, armed in ring mode, in stream mode ---
stream_why=
echo stream > $B/mode
log_mark
if ! echo bts > $T/current_tracer 2> /dev/null; then
	stream_why="stream mode does not arm here: $(log_since | grep 'bts' | tail -1)"
fi
echo nop > $T/current_tracer
echo ring > $B/mode
# timed MODE: one run of the workload on CPU W with bts off, or armed in
# MODE (ring, stream); prints its time in ns
timed() {
	echo nop > $T/current_tracer
	if [ "$1" != off ]; then
		echo "$1" > $B/mode
		echo bts > $T/current_tracer
	fi
	taskset $MASK $BIN/workload sys $N
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
# (see 16-stream: under TCG the kernel's message about a long NMI,
# formatted in NMI context, fills the BTS buffer; the times are taken
# from the nmi:nmi_handler event here anyway)
longest0=
if [ -w $NMI_LONGEST ]; then
	longest0=$(cat $NMI_LONGEST)
	echo 10000000000 > $NMI_LONGEST
fi
modes="off ring"
[ -z "$stream_why" ] && modes="$modes stream"
t_off= t_ring= t_stream=
for r in 1 2 3; do
	for m in $modes; do
		t=$(timed $m)
		eval "b=\$t_$m"
		if [ -z "$b" ] || [ "$t" -lt "$b" ]; then eval "t_$m=$t"; fi
	done
done
echo nop > $T/current_tracer
echo ring > $B/mode
diag "measured: slowdown of the workload ($N getppid()+read() pairs on CPU $W, best of 3):" \
	"off $t_off ns, armed (ring mode) $t_ring ns: x$(ratio $t_ring $t_off)"
if [ -z "$stream_why" ]; then
	diag "measured: slowdown in stream mode: $t_stream ns: x$(ratio $t_stream $t_off)"
else
	diag "measured: no stream-mode figures: $stream_why"
fi
[ "$t_off" -gt 0 ] && [ "$t_ring" -gt 0 ] && ok "the workload ran with bts off and armed" ||
	not_ok "the workload ran with bts off and armed (off '$t_off' ns, armed '$t_ring' ns)"

# ---- DEBUGCTL armed (ring mode) and after disarming --------------------
echo bts > $T/current_tracer
debugctl ring
echo nop > $T/current_tracer
debugctl after
if [ -n "$msr_why" ]; then
	diag "measured: DEBUGCTL not read: $msr_why"
	skip "the DEBUGCTL bits other than BTS's: kept while armed" "$msr_why"
	skip "the DEBUGCTL bits other than BTS's: kept after disarming" "$msr_why"
	skip "BTS's own DEBUGCTL bits are back as they were after disarming" "$msr_why"
else
	diag "measured: DEBUGCTL before arming: $(readings before)"
	diag "measured: DEBUGCTL armed (ring mode): $(readings ring)"
	diag "measured: DEBUGCTL after disarming: $(readings after)"
	if [ "$active" = intel_bts ]; then
		d=$(not_running ring)
		[ -z "$d" ] && ok "armed: TR and BTS set in DEBUGCTL on every CPU" ||
			not_ok "armed: TR and BTS set in DEBUGCTL on every CPU (not on: $d)"
	fi
	debugctl_kept "while armed" before ring
	debugctl_kept "after disarming" before after
	d=$(changed before after $BTS_BITS)
	[ -z "$d" ] && ok "BTS's own DEBUGCTL bits are back as they were after disarming" ||
		not_ok "BTS's own DEBUGCTL bits are back as they were after disarming (changed: $d)"
fi

# ---- stream mode: records per second, the BTS interrupt ----------------
if [ -n "$stream_why" ]; then
	skip "CPU $W streamed records while the workload ran" "$stream_why"
else
	rmdir $I 2> /dev/null
	mkdir $I
	echo stream > $B/mode
	echo bts > $T/current_tracer
	echo 1 > $I/events/nmi/nmi_handler/enable
	# the Intel source drains from an irq_work (the irq_work vector's
	# events, where the kernel has them)
	for e in irq_work_entry irq_work_exit; do
		[ -e $I/events/irq_vectors/$e/enable ] && echo 1 > $I/events/irq_vectors/$e/enable
	done
	# (shell builtins only: a process started here could add records)
	stream_counts $W
	set -- $st
	r0=$1 w0=$2 l0=$3 p0=${7:-0}
	t=$(taskset $MASK $BIN/workload sys $N)
	stream_counts $W
	set -- $st
	r1=$1 w1=$2 l1=$3 p1=${7:-0}
	debugctl stream
	echo 0 > $I/tracing_on
	echo nop > $T/current_tracer
	echo ring > $B/mode
	debugctl after-stream
	rec=$((r1 - r0))
	diag "measured: stream mode: CPU $W streamed $rec records in the workload's $t ns" \
		"(nmi:nmi_handler on): $(ratio $rec $((t / 1000))) million records/s;" \
		"$((w1 - w0)) written to the" \
		"ring buffer ($(cat $T/buffer_size_kb) KiB per CPU), $((l1 - l0)) lost," \
		"$((p1 - p0)) pauses for the CPU-time budget"
	[ "$rec" -gt 0 ] && ok "CPU $W streamed records while the workload ran ($rec)" ||
		not_ok "CPU $W streamed records while the workload ran ($r0 before, $r1 after)"
	# every run of perf's NMI handler on any CPU while streaming
	set -- $(awk '/nmi_handler:/ && /perf_event_nmi_handler/ {
		for (i = 1; i < NF; i++) if ($i == "delta_ns:") {
			v = $(i + 1) + 0; n++; if (v > m) m = v } }
		END { print n + 0, m + 0 }' $I/trace)
	nmi_n=$1 nmi_max=$2
	# irq_work runs on the workload's CPU: the drains, and whatever else
	# the kernel queues there
	set -- $(awk -v cpu="$(printf '[%03d]' $W)" 'index($0, cpu) && / irq_work_(entry|exit): / {
		for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) ts = substr($i, 1, length($i) - 1)
		if ($0 ~ /irq_work_entry/) t0 = ts
		else if (t0 != "") { d = (ts - t0) * 1e9; n++; s += d; if (d > m) m = d; t0 = "" } }
		END { printf "%d %.0f %.0f\n", n, m, n ? s / n : 0 }' $I/trace)
	iw_n=$1 iw_max=$2 iw_avg=$3
	rmdir $I
	if [ "$active" = intel_bts ]; then
		diag "measured: the BTS interrupt (perf_event_nmi_handler, which also handles" \
			"perf's counter overflows) ran $nmi_n times while streaming; longest" \
			"$nmi_max ns ($(ratio $nmi_max 1000) us)"
		[ "$iw_n" -gt 0 ] &&
			diag "measured: irq_work on CPU $W (the drains, and any other): $iw_n runs," \
				"$iw_avg ns each, longest $iw_max ns ($(ratio $iw_max 1000) us)"
		# one or two interrupts per 682 to 2730 of a CPU's records
		if [ "$rec" -ge 5460 ]; then
			[ "$nmi_n" -gt 0 ] && ok "the BTS interrupt ran while streaming ($nmi_n times)" ||
				not_ok "the BTS interrupt ran while streaming (no perf_event_nmi_handler event for $rec records)"
		fi
		if [ -z "$msr_why" ]; then
			diag "measured: DEBUGCTL while streaming: $(readings stream)"
			debugctl_kept "while streaming" before stream
			d=$(changed before after-stream -1)
			[ -z "$d" ] && ok "DEBUGCTL is as before arming after disarming stream mode" ||
				not_ok "DEBUGCTL is as before arming after disarming stream mode (changed: $d)"
		fi
	else
		diag "measured: no BTS interrupt figures (hw only: the software source" \
			"streams from the traced call itself); perf_event_nmi_handler ran" \
			"$nmi_n times meanwhile, longest $nmi_max ns"
	fi
fi
[ -n "$longest0" ] && echo "$longest0" > $NMI_LONGEST

# ---- the freeze distance of a provoked fault ---------------------------
fault_why=
pop=$(cat /proc/sys/kernel/panic_on_oops)
if [ ! -e $B/test_fault ]; then
	fault_why="no bts/test_fault: the kernel is not a test kernel (CONFIG_BTS_TRACER_TESTING)"
elif [ "$pop" != 0 ]; then
	fault_why="panic_on_oops is $pop: the test fault would panic this machine"
elif [ "$(head -1 $B/capture)" != none ]; then
	fault_why="bts/capture holds an earlier fault ($(head -1 $B/capture)): 'echo 0 > bts/capture' frees it"
fi
# u32 FILE OFFSET: a little-endian 32-bit field of a dump header
u32() { od -An -t u4 -j "$2" -N 4 "$1" | tr -d ' '; }
# ksym NAME: NAME's address in /proc/kallsyms, 16 hex digits
ksym() { awk -v s="$1" '$3 == s { print $1; exit }' /proc/kallsyms; }
if [ -n "$fault_why" ]; then
	diag "measured: no freeze distance: $fault_why"
	skip "the capture of a provoked fault holds the fault's record" "$fault_why"
else
	dump0=$(cat /proc/sys/kernel/ftrace_dump_on_oops)
	echo 0 > /proc/sys/kernel/ftrace_dump_on_oops
	echo bts > $T/current_tracer
	# the child oopses: the kernel kills it
	taskset $MASK sh -c "echo gpf > $B/test_fault" > /dev/null 2>&1
	# until the capture is kept (its trap ended); the limit only bounds
	# a capture that never comes
	i=0
	while ! grep -q '^GPF on cpu' $B/capture && [ $i -lt 1200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	case "$(head -1 $B/capture)" in
	"GPF on cpu "*) ok "bts/capture says: $(head -1 $B/capture)" ;;
	*) not_ok "bts/capture says GPF (got '$(head -1 $B/capture)')" ;;
	esac
	c=$(sed -n '1s/.* on cpu \([0-9]*\),.*/\1/p' $B/capture)
	f=$F/capture.bin
	cat $B/per_cpu/cpu${c:-$W}/capture > $f
	n=$(u32 $f 20) fi=$(u32 $f 36)
	is "the capture names the reason: GPF, 4" "$(u32 $f 32)" 4
	if [ "${n:-0}" -gt 0 ] && [ "$fi" != 4294967295 ] && [ "$fi" -lt "$n" ]; then
		ok "the capture holds the fault's record"
		what="taken branches"
		[ "$active" = intel_bts ] || what="call edges (the software source's records)"
		diag "measured: freeze distance: $((n - fi)), the $what from the fault's" \
			"record to the end of its capture ($n kept, on CPU $c)"
		if [ "$active" = intel_bts ]; then
			# the fault's record is the #GP itself: from the read in
			# bts_test_gpf() to the exception entry (low 32 bits
			# compared, which dash's arithmetic takes)
			set -- $(od -An -t x8 -j $((192 + 24 * fi)) -N 16 $f)
			from=$1 to=$2
			g=$(ksym bts_test_gpf) e=$(ksym asm_exc_general_protection)
			off=-1
			[ ${#from} = 16 ] && [ ${#g} = 16 ] &&
				off=$((0x${from#????????} - 0x${g#????????}))
			if [ -z "$g" ] || [ "$g" = 0000000000000000 ]; then
				skip "the fault's record is bts_test_gpf -> asm_exc_general_protection" \
					"/proc/kallsyms shows no addresses (kptr_restrict)"
			elif [ "$to" = "$e" ] && [ "${from%????????}" = "${g%????????}" ] &&
			     [ "$off" -ge 0 ] && [ "$off" -lt 64 ]; then
				ok "the fault's record is bts_test_gpf+$off -> asm_exc_general_protection"
			else
				not_ok "the fault's record is bts_test_gpf -> asm_exc_general_protection (got $from -> $to)"
			fi
		fi
	else
		not_ok "the capture holds the fault's record ($n records, fault index $fi)"
	fi
	# as it was, for what runs next
	echo 0 > $B/capture
	echo 1 > $T/tracing_on
	echo nop > $T/current_tracer
	echo "$dump0" > /proc/sys/kernel/ftrace_dump_on_oops
fi
rm -rf $F
done_testing
