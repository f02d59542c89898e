#!/bin/sh
# Eight CPUs and a small ring buffer: an oops's capture writes each CPU's
# history into that CPU's own ring buffer, so the faulting CPU's history
# is whole in trace however many CPUs there are, and so are the others'.
# bts-boot: own
# bts-expect: oops
# bts-cmdline: panic_on_oops=0
# bts-smp: 8
# bts-timeout: 600
. ./lib-oops.sh
arm
# 500 entries of some 52 bytes fit one CPU's 32 KiB buffer; eight CPUs'
# histories do not.
echo 500 > $B/nr_records
echo 32 > $T/buffer_size_kb
echo > $T/trace
is "8 CPUs online" "$(nproc)" 8
provoke "taskset 1 sh -c 'echo ACCESS_NULL > $DIRECT'"
is "the fault was taken on CPU 0" "$(capture_cpu)" 0
cat $T/trace > /tmp/trace.txt
bts_entries /tmp/trace.txt | grep ' cpu=0 ' > /tmp/cpu0.txt
is "the faulting CPU's whole history (500 entries) is in the ring buffer" \
	"$(wc -l < /tmp/cpu0.txt)" 500
check "... with the fault record marked" grep -q '\[fault\]' /tmp/cpu0.txt
is "... oldest first, positions 0 to 499" \
	"$(head -1 /tmp/cpu0.txt | grep -o ' 0/500 ' | tr -d ' ')-$(tail -1 /tmp/cpu0.txt | grep -o ' 499/500 ' | tr -d ' ')" \
	"0/500-499/500"
for c in 1 2 3 4 5 6 7; do
	bts_entries $T/per_cpu/cpu$c/trace > /tmp/c.txt
	n=$(wc -l < /tmp/c.txt)
	[ "$n" -gt 0 ] && [ "$(grep -c " cpu=$c " /tmp/c.txt)" = "$n" ] &&
		ok "CPU $c's buffer holds its own history ($n entries) and only it" ||
		not_ok "CPU $c's buffer holds its own history and only it ($(grep -c " cpu=$c " /tmp/c.txt) of $n)"
done
done_testing
