#!/bin/bash
# make demo: boot the test VM, arm bts, provoke an oops (lkdtm EXCEPTION)
# and print the captured branch history decoded by bts-dump.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
: "${BUILD:=$top/build}"
share=$BUILD/demo
rm -rf "$share"
mkdir -p "$share"
cat > "$share/demo.sh" <<'GUEST'
#!/bin/sh
T=/sys/kernel/tracing
B=$T/bts
echo "demo: echo bts > current_tracer"
echo bts > $T/current_tracer
head -2 $B/source
echo "demo: provoking an oops: echo EXCEPTION > /sys/kernel/debug/provoke-crash/DIRECT"
sh -c 'echo EXCEPTION > /sys/kernel/debug/provoke-crash/DIRECT' 2>/dev/null
sleep 1
echo "demo: bts/capture: $(cat $B/capture)"
cpu=$(sed -n 's/.* on cpu \([0-9]*\),.*/\1/p' $B/capture)
cp $B/per_cpu/cpu$cpu/capture /host/capture.bin
cat /proc/kallsyms > /host/kallsyms
echo "demo: the last 40 branches up to the fault, decoded by bts-dump:"
bts-dump -s /proc/kallsyms --until-fault -n 40 $B/per_cpu/cpu$cpu/capture 2>&1 |
	tail -45 || echo "demo: bts-dump failed"
echo "demo: the same history in the ring buffer (trace_pipe):"
timeout 2 cat $T/trace_pipe | grep -B8 -m1 '\[fault\]'
GUEST
cp "$share/demo.sh" "$share/demo.sh.keep"
echo "== booting the test VM (QEMU TCG, 2 CPUs); the demo runs, then you get a shell ('reboot -f' to leave)"
if [ -t 0 ]; then
	exec "$top/harness/run-vm.sh" --interactive --share "$share" --append "panic_on_oops=0"
fi
# Not a terminal: run the demo and stop.
printf '#!/bin/sh\nsh /host/demo.sh.keep; reboot -f\n' > "$share/demo.sh"
"$top/harness/run-vm.sh" --share "$share" --log "$share/console.log" --timeout 300 \
	--append "panic_on_oops=0 bts.tests=shell" || true
sed -n '/^demo: echo bts/,$p' "$share/console.log" | tr -d '\r' | grep -v '^\[' |
	grep -v '^BTS-GUEST'
