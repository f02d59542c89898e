#!/bin/bash
# make bench: the project's benchmarks. Each compares against a baseline
# measured in the same run and prints its figures; none asserts a time.
#  1. in the test VM: dumping one CPU's history into the ring buffer
#     vs a memcpy of the same bytes (bts/bench);
#  2. on the host: bts-dump symbolizing a 10-million-record dump, and
#     trace-cmd report vs bts-dump on the same bts records.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
: "${BUILD:=$top/build}"
share=$BUILD/bench
rm -rf "$share"
mkdir -p "$share"
"$top/harness/run-vm.sh" --share "$share" --log "$share/console.log" --timeout 600 \
	--append "bts.tests=bench/dump.sh kunit.enable=0" || true
sed -n 's/^bench: /  /p' "$share/dump.sh.tap"
if [ ! -s "$share/trace.dat" ]; then
	echo "bench: the VM produced no trace.dat (see $share/console.log)" >&2
	exit 1
fi
make -s -C "$top/tools/bts-dump" bench TRACE_DAT="$share/trace.dat" \
	SYSTEM_MAP="$BUILD/obj-test/System.map"
