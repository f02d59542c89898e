#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every control file rejects bad input with the fitting errno and leaves
# its state unchanged; the files are root only.
. ./lib.sh

echo bts > $T/current_tracer
echo 500 > $B/nr_records
for v in 0 -1 abc 2731 "" "1 2" 0x10; do
	write_fails "nr_records rejects '$v' with EINVAL" $B/nr_records "$v" "Invalid argument"
done
write_fails "nr_records rejects a number past 64 bits with ERANGE" $B/nr_records \
	99999999999999999999 "out of range"
is "nr_records is unchanged by the rejected writes" "$(cat $B/nr_records)" 500
check "nr_records accepts its bounds 1 and 2730" sh -c "echo 1 > $B/nr_records && echo 2730 > $B/nr_records"
is "nr_records reads back 2730" "$(cat $B/nr_records)" 2730

before=$(cat $B/source)
for v in bogus "" "sw sw" HW 1 autox; do
	write_fails "source rejects '$v' with EINVAL" $B/source "$v" "Invalid argument"
done
if hw; then
	is "source is unchanged by the rejected writes" "$(cat $B/source)" "$before"
	check "source sw re-arms with the software source" sh -c "echo sw > $B/source"
	is "the tracer now records with sw" "$(sed -n 2p $B/source)" "active: sw"
	check "source hw re-arms with the Intel source" sh -c "echo hw > $B/source"
	is "the tracer records with intel_bts again" "$(sed -n 2p $B/source)" "active: intel_bts"
	echo auto > $B/source
else
	log_mark
	write_fails "source hw fails with ENODEV on a machine without BTS" $B/source hw "No such device"
	log_since | grep -q 'intel_bts unavailable: ' && ok "the kernel log says why hw is unavailable" ||
		not_ok "the kernel log says why hw is unavailable"
	is "source is unchanged by the rejected writes" "$(cat $B/source)" "$before"
fi
is "the tracer kept recording with $SOURCE" "$(sed -n 2p $B/source)" "active: $SOURCE"

for v in 0 2 -1 abc "" all; do
	write_fails "dump rejects '$v' with EINVAL" $B/dump "$v" "Invalid argument"
done
for v in 1 abc -1; do
	write_fails "capture rejects '$v' with EINVAL" $B/capture "$v" "Invalid argument"
done
check "dump accepts 1" sh -c "echo 1 > $B/dump"

# Permissions: root only
is "source mode" "$(stat -c %a $B/source)" 640
is "dump mode" "$(stat -c %a $B/dump)" 200
is "records mode" "$(stat -c %a $B/per_cpu/cpu0/records)" 440
is "su runs commands as nobody" "$(su -s /bin/sh nobody -c 'id -u')" 65534
check "an unprivileged user cannot read records" \
	sh -c "! su -s /bin/sh nobody -c 'cat $B/per_cpu/cpu0/records'"
check "an unprivileged user cannot dump" \
	sh -c "! su -s /bin/sh nobody -c 'echo 1 > $B/dump'"
check "an unprivileged user cannot select the tracer" \
	sh -c "! su -s /bin/sh nobody -c 'echo bts > $T/current_tracer'"

# One owner: a second instance cannot take bts while the top level has it
mkdir $T/instances/second
write_fails "a second owner gets EBUSY" $T/instances/second/current_tracer bts "Device or resource busy"
is "the top level still owns bts" "$(cat $T/current_tracer)" bts
# The tracer's options are one set for every instance; one that does
# not own bts must not change what the owner runs behind its back
mode=$(cat $B/mode)
for o in bts_stream bts_user bts_capture_warn; do
	v=$(cat $T/instances/second/options/$o)
	write_fails "option $o of an instance that does not own bts gets EBUSY" \
		$T/instances/second/options/$o $((1 - v)) "Device or resource busy"
	is "option $o is unchanged" "$(cat $T/options/$o)" "$v"
	echo "$v" > $T/options/$o	# (a kernel that took the write)
done
is "bts/mode is unchanged by the refused options" "$(cat $B/mode)" "$mode"
echo nop > $T/current_tracer
check "an instance can own bts when the top level does not" \
	sh -c "echo bts > $T/instances/second/current_tracer"
echo 1 > $T/instances/second/tracing_on
echo 1 > $B/dump
rc=$?
cat $T/instances/second/trace > /tmp/second.txt
grep -q ' cpu=0 ' /tmp/second.txt && ok "a dump goes to the owning instance's buffer" || {
	not_ok "a dump goes to the owning instance's buffer"
	diag "dump exit $rc, buffer_size_kb $(cat $T/instances/second/buffer_size_kb):" \
		"$(entries_per_cpu /tmp/second.txt)"
	diag "CPU 0 records file: $(wc -c < $B/per_cpu/cpu0/records) bytes"
}
check "and not to the top level's" sh -c "! grep -q ' cpu=0 [0-9]*/' $T/trace"
write_fails "the top level gets EBUSY while the instance owns bts" $T/current_tracer bts "Device or resource busy"
echo nop > $T/instances/second/current_tracer
rmdir $T/instances/second
check "after the instance let go the top level can take bts" sh -c "echo bts > $T/current_tracer"
echo nop > $T/current_tracer
done_testing
