# SPDX-License-Identifier: GPL-2.0
# TAP helpers for the bts guest tests: `. ./lib.sh` at the top of a test.
# A test prints TAP on stdout ("1..N", "ok N - what", "not ok N - what");
# the harness (harness/check.py) collects it. Keep every check able to fail.
#
# The tests run two ways. In the project's VM, /init runs those the harness
# names (BTS_HARNESS=1): files for the host's half go to the 9p share
# /host. Run by the kselftest runner (make -C tools/testing/selftests
# TARGETS=bts run_tests, as root on any machine whose kernel has bts, or
# in the VM), they go to a private directory, a test that must not run on
# a live machine says why and skips (its "# bts-live:" line, or what it
# provokes), and the exit status is kselftest's: 0 passed, 1 failed, 4
# skipped.
T=/sys/kernel/tracing
B=$T/bts
# (TAP on the console is for the VM's suspend and kexec scenarios)
[ -n "${BTS_HARNESS:-}" ] || TAP_CONSOLE=
_n=0
_fails=0
_skips=0
HERE=$(cd "$(dirname "$0")" && pwd)
# the test programs (progs/*.c): /tests/bin in the VM, next to the
# scripts where the kselftest build put them
BIN=$HERE/bin
[ -d "$BIN" ] || BIN=$HERE
# where a test leaves files for a host half to read: /host in the VM,
# the directory BTS_SHARE names if set (a harness that reads them),
# else a private one
if [ -n "${BTS_HARNESS:-}" ]; then
	SHARE=/host
elif [ -n "${BTS_SHARE:-}" ]; then
	SHARE=$BTS_SHARE
else
	SHARE=$(mktemp -d /tmp/bts-selftest.XXXXXX)
fi
export BIN SHARE

# The source this machine must arm, from the kernel command line the
# harness sets: bts.expect=hw on the project's BTS QEMU (the Intel source),
# bts.expect=sw on a machine without BTS (the software source). Elsewhere,
# what bts/source says the machine has.
EXPECT=
for _a in $(cat /proc/cmdline); do
	case $_a in bts.expect=*) EXPECT=${_a#*=} ;; esac
done
if [ -z "$EXPECT" ]; then
	EXPECT=sw
	grep -q '^hw: intel_bts ([^)]*)$' $B/source 2> /dev/null && EXPECT=hw
fi
if [ "$EXPECT" = hw ]; then SOURCE=intel_bts; else SOURCE=sw; fi
hw() { [ "$EXPECT" = hw ]; }

# A test that sets TAP_CONSOLE=1 before sourcing this file (and says
# "# bts-tap: console") prints its TAP on the console, prefixed BTS-TAP:,
# for the harness to read from the console log: the 9p share does not
# survive a suspend to RAM.
_tap() {
	if [ -n "${TAP_CONSOLE:-}" ]; then
		echo "BTS-TAP: $*" > /dev/console
	else
		echo "$*"
	fi
}
plan() { _tap "1..$1"; }
# done_testing: the plan at the end, for tests whose count varies
done_testing() { _tap "1..$_n"; }
ok() { _n=$((_n + 1)); _tap "ok $_n - $*"; }
not_ok() { _n=$((_n + 1)); _fails=$((_fails + 1)); _tap "not ok $_n - $*"; }
skip() { _n=$((_n + 1)); _skips=$((_skips + 1)); _tap "ok $_n - $1 # SKIP $2"; }
diag() { _tap "# $*"; }

# kselftest's ending: the counts, and the exit status its runner reads
_ksft_exit() {
	_rc=$?
	[ -n "${BTS_HARNESS:-}" ] && exit $_rc
	[ -z "${TAP_CONSOLE:-}" ] && [ -d "$SHARE" ] && [ "$SHARE" != /host ] &&
		diag "files for the host half, if any: $SHARE"
	_tap "# Totals: pass:$((_n - _fails - _skips)) fail:$_fails xfail:0 xpass:0 skip:$_skips error:0"
	if [ $_fails -gt 0 ] || [ $_n -eq 0 ]; then exit 1; fi
	[ $_skips -eq $_n ] && exit 4
	exit 0
}
trap _ksft_exit EXIT

# skip_all REASON: the whole test skips (kselftest's "1..0 # SKIP")
skip_all() {
	_tap "1..0 # SKIP $1"
	trap - EXIT
	[ -n "${BTS_HARNESS:-}" ] && exit 0
	_tap "# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:1 error:0"
	exit 4
}

# Outside the project's VM, a test whose header says it must not run on a
# live machine ("# bts-live: no, REASON") or that needs the Intel source
# where there is none ("# bts-machines:" naming hw machines only) skips,
# with the reason, before it does anything. One that oopses its own
# process through bts/test_fault ("# bts-live: test-kernel, REASON") runs
# only on a test kernel (CONFIG_BTS_TRACER_TESTING) whose oopses do not
# panic (panic_on_oops 0), and leaves the tracer as it found it.
if [ -z "${BTS_HARNESS:-}" ]; then
	_live=$(sed -n 's/^# bts-live: no, //p' "$0" | head -1)
	_tk=$(sed -n 's/^# bts-live: test-kernel, //p' "$0" | head -1)
	_mach=$(sed -n 's/^# bts-machines: //p' "$0" | head -1)
	[ -n "$_live" ] && skip_all "$_live"
	if [ -n "$_tk" ]; then
		[ -e $B/test_fault ] ||
			skip_all "$_tk: test kernels only (bts/test_fault, CONFIG_BTS_TRACER_TESTING)"
		_pop=$(cat /proc/sys/kernel/panic_on_oops)
		[ "$_pop" = 0 ] || skip_all "$_tk: panic_on_oops is $_pop, it would panic this machine"
	fi
	case " $_mach " in
	*" sw "*|"  ") ;;
	*) [ "$EXPECT" = hw ] || skip_all "needs the Intel source (BTS): this machine has none" ;;
	esac
fi

# check DESC COMMAND...: ok when COMMAND succeeds.
check() {
	local desc=$1
	shift
	if "$@" >/dev/null 2>&1; then ok "$desc"; else not_ok "$desc"; fi
}

# is DESC GOT WANT
is() {
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1 (got '$2', want '$3')"; fi
}

# write_fails DESC FILE VALUE ERRNO-TEXT: the write must fail with that
# error (busybox prints strerror), e.g. "Invalid argument".
write_fails() {
	local out
	out=$( (echo "$3" > "$2") 2>&1)
	case "$?:$out" in
	0:*) not_ok "$1 (write of '$3' succeeded)" ;;
	*"$4"*) ok "$1" ;;
	*) not_ok "$1 (wanted '$4', got '$out')" ;;
	esac
}

# Kernel-log lines since the last call of log_mark.
log_mark() { _log_lines=$(dmesg | wc -l); }
log_since() { dmesg | tail -n +$((_log_lines + 1)); }

# bts_entries FILE: the ftrace:bts lines of a trace file
bts_entries() { grep -E ' cpu=[0-9]+ [0-9]+/[0-9]+ ' "$1"; }

# cpu_records_now C: CPU C records now. A shell on C writes bts/dump,
# which snapshots C first: if C records, its newest records are that
# write's way into bts_dump_write; if it stopped, they end where it
# stopped. Nothing else may freeze and thaw C before (a thaw would set
# the DEBUGCTL bits again by itself). For a CPU's return from suspend,
# hibernation or hotplug.
cpu_records_now() {
	echo > $T/trace
	taskset $((1 << $1)) sh -c "echo 1 > $B/dump"
	bts_entries $T/trace | grep " cpu=$1 " > /tmp/cpu$1.txt
	diag "CPU $1's newest record: $(tail -1 /tmp/cpu$1.txt | sed 's/.*cpu=/cpu=/')"
	grep -q -- '-> bts_dump_write+0x0/' /tmp/cpu$1.txt
}

# entries_per_cpu FILE: "N0xcpu0 N1xcpu1 ..." of the ftrace:bts lines in
# FILE (for diagnostics), and the ring buffer's lost-events markers.
entries_per_cpu() {
	bts_entries "$1" | sed -E 's/.* cpu=([0-9]+) .*/\1/' | sort | uniq -c |
		awk '{printf "%sxcpu%s ", $1, $2}'
	grep -c 'LOST.*EVENTS' "$1" | sed 's/^/lost-events markers: /'
}

# unsymbolized FILE: the ftrace:bts lines whose from or to is not sym+off.
# A hardware record's to may also be a user address: the return to user
# mode (sysret, iret) is a kernel branch, recorded with user branches off.
unsymbolized() {
	local sym='[A-Za-z_][A-Za-z0-9_.]*\+0x[0-9a-f]+/0x[0-9a-f]+' from to
	from=$sym to=$sym
	# hardware: a branch between user and kernel mode keeps its user
	# half (user branches on) or has it cleared to 0x0. Which end is
	# the user one depends on the CPL the CPU filters on (the SDM does
	# not say; hw-cpl-target is the other choice): the return to user
	# mode's target, or the entry's source.
	hw && from="($sym|0x0)" to="($sym|0x[0-9a-f]{1,12})"
	bts_entries "$1" | grep -vE " [0-9]+/[0-9]+ $from -> $to( |\$)"
}

# kmemleak (the debug kernel, make check DEBUG=1): kmemleak_clear forgets
# what leaked so far; kmemleak_check DESC fails on an unreferenced object
# allocated by bts code since (objects younger than 5 s are not reported:
# call it a while after the last allocation). Skips without kmemleak.
KL=/sys/kernel/debug/kmemleak
# stream_counts CPU: set st to CPU's line of bts/stream, "records written
# lost gaps source_lost", with shell builtins only: a process started
# here could run on CPU and add records there.
stream_counts() {
	local c r w l g s
	while read c r w l g s; do [ "$c" = "$1" ] && st="$r $w $l $g $s"; done < $B/stream
}

kmemleak_clear() { [ -w $KL ] && echo clear > $KL; }
kmemleak_check() {
	if [ ! -w $KL ]; then
		skip "$1" "no kmemleak in this kernel (make check DEBUG=1 has it)"
		return
	fi
	echo scan > $KL
	cat $KL > /tmp/kmemleak.txt
	diag "kmemleak: $(grep -c '^unreferenced object' /tmp/kmemleak.txt) unreferenced objects in all"
	is "$1" "$(awk '/^unreferenced object/ { obj = $0 } /bts_/ && obj { print obj; obj = "" }' /tmp/kmemleak.txt | head -3)" ""
}

# cmdline_int NAME DEFAULT: the value of NAME=N on the kernel command line
cmdline_int() {
	local a v=$2
	for a in $(cat /proc/cmdline); do
		case $a in "$1"=*) v=${a#*=} ;; esac
	done
	echo "$v"
}

# dump_load_start: dumps and reads of every CPU's records in a loop, in
# the background, until dump_load_stop (errors ignored: the tracer may
# be switched meanwhile). dump_load_stop (not in a subshell: it waits
# for the loader) sets $dumps to how many dumps succeeded.
dump_load_start() {
	rm -f /tmp/load.stop /tmp/load.count
	(n=0
	 while [ ! -e /tmp/load.stop ]; do
		echo 1 > $B/dump 2>/dev/null && n=$((n + 1))
		cat $B/per_cpu/cpu*/records > /dev/null 2>&1
		echo > $T/trace
	 done
	 echo $n > /tmp/load.count) &
	_load=$!
}
dump_load_stop() {
	touch /tmp/load.stop
	wait $_load
	dumps=$(cat /tmp/load.count 2>/dev/null || echo 0)
}

# host_root: the host's /usr (the VM's 9p tag hostusr, read-only) as the
# root of a chroot at $R, with this machine's /proc, /sys, /dev, the share
# and a private /tmp, to run the host's debuggers on this kernel. Fails
# (the test's plan ended) when there is no such share. host_root_leave
# undoes it.
R=/tmp/hroot
host_root() {
	mkdir -p $R/usr $R/proc $R/sys $R/dev $R/tmp $R/host
	if ! mount -t 9p -o trans=virtio,version=9p2000.L,ro hostusr $R/usr; then
		not_ok "the host's /usr is shared here (9p tag hostusr)"
		done_testing
		return 1
	fi
	for _d in bin sbin lib lib64; do ln -sf usr/$_d $R/$_d; done
	for _d in proc sys dev host; do mount -o bind /$_d $R/$_d; done
	mount -t tmpfs none $R/tmp
}
host_root_leave() {
	for _d in tmp host dev sys proc usr; do umount $R/$_d; done
}

# records_save DIR: every CPU's records file into DIR/records-cpuN
records_save() {
	_c=0
	while [ $_c -lt "$(ls -d /sys/devices/system/cpu/cpu[0-9]* | wc -l)" ]; do
		cat $B/per_cpu/cpu$_c/records > "$1/records-cpu$_c"
		_c=$((_c + 1))
	done
}

# records_unchanged DIR: how many CPUs' records files still hold the
# records of DIR/records-cpuN (their headers differ: the copy's timestamp)
records_unchanged() {
	_c=0 _same=0
	while [ $_c -lt "$(ls -d /sys/devices/system/cpu/cpu[0-9]* | wc -l)" ]; do
		[ "$(tail -c +193 $B/per_cpu/cpu$_c/records | md5sum)" = \
		  "$(tail -c +193 "$1/records-cpu$_c" | md5sum)" ] && _same=$((_same + 1))
		_c=$((_c + 1))
	done
	echo $_same
}
