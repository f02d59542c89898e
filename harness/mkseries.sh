#!/bin/bash
# make series: the whole project as a patch series a kernel developer can
# `git am` onto v6.12: the project's new files as patches that add them,
# interleaved with patches/series so that every step builds.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$1
rm -rf "$out"
mkdir -p "$out"
cd "$top"

# The project's identity (git config), the author and the signer of every
# patch: no invented person.
ident="$(git config user.name) <$(git config user.email)>"
[ "$ident" != " <>" ] || { echo "series: git config user.name and user.email are not set" >&2; exit 1; }

# new-file patch: SUBJECT BODY FILE...
newfiles() {
	local subj=$1 body=$2 f n mode
	shift 2
	{
		printf 'From: %s\nSubject: [PATCH] %s\n\n%s\n\nSigned-off-by: %s\n---\n' \
			"$ident" "$subj" "$body" "$ident"
		for f in "$@"; do
			[ -f "$f" ] || continue
			n=$(wc -l < "$f")
			mode=100644
			[ -x "$f" ] && mode=100755
			printf 'diff --git a/%s b/%s\nnew file mode %s\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n' "$f" "$f" "$mode" "$f" "$n"
			sed 's/^/+/' "$f"
		done
		printf -- '-- \nbts\n'
	} > "$out/tmp.patch"
	emit "$subj"
}
i=0
emit() {
	i=$((i + 1))
	local name
	name=$(printf '%04d-%s.patch' "$i" "$(echo "$1" | tr -c 'A-Za-z0-9\n' '-' | sed 's/--*/-/g; s/-$//' | cut -c1-52)")
	mv "$out/tmp.patch" "$out/$name"
}
# A patch of patches/: its From: and Signed-off-by: the project's.
existing() {
	awk -v id="$ident" '
		!hdr && /^From: / { print "From: " id; next }
		!hdr && /^Signed-off-by: / { next }
		!hdr && /^---$/ { print "Signed-off-by: " id; hdr = 1 }
		{ print }' "patches/$1" > "$out/tmp.patch"
	emit "$(sed -n 's/^Subject: \[PATCH\] //p' "patches/$1")"
}

newfiles "bts: Add the branch source interface, core and software source" \
"include/linux/bts.h is the contract between branch sources, the core and
their users; bts_core.c keeps the registry, arms one source at a time,
takes per-CPU snapshots and captures history at faults; the software
source records kernel call edges for CPUs without BTS." \
	include/linux/bts.h include/uapi/linux/bts.h kernel/trace/bts_core.h \
	kernel/trace/bts_core.c kernel/trace/bts_sw.h kernel/trace/trace_bts_sw.c
for p in $(grep -v '^\s*#' patches/series | grep -v -e 0002 -e 0004 -e 0005 -e 0006 -e 0008); do
	existing "$p"
done
newfiles "tracing: Add the bts tracer" \
"echo bts > current_tracer arms a branch source on every CPU; bts/dump and
bts/per_cpu/cpuN/records give each CPU's newest branches; faults are
captured and written into the ring buffer before tracing is turned off;
with bts.persist= a panic's capture is kept across a warm reboot." \
	kernel/trace/trace_bts.h kernel/trace/trace_bts.c kernel/trace/trace_bts_kunit.c \
	kernel/trace/trace_bts_persist.c kernel/trace/bts_test_fault.c
newfiles "perf/x86/intel: Add the bts tracer's Intel BTS source" \
"Branch Trace Store in circular mode with CPL filtering off, sharing the
DS area with perf through its own exclusivity slot." \
	$(git ls-files arch | grep bts_trace)
existing "$(grep 0002 patches/series)"
existing "$(grep 0004 patches/series)"
# the bts_dump trigger needs the tracer's trace_bts.h
existing "$(grep 0008 patches/series)"
newfiles "Documentation: trace: Document the bts tracer" \
"How to use it, its files, formats, limits and security." \
	$(git ls-files Documentation)
existing "$(grep 0005 patches/series)"
newfiles "selftests/bts: Add the bts tracer's tests" \
"The scenarios the project runs in its QEMU, as a kselftest: as root on a
kernel with CONFIG_BTS_TRACER, make -C tools/testing/selftests TARGETS=bts
run_tests runs those safe on a live machine (arming, dumps, the files,
triggers, stream mode, perf coexistence, tracer switching; the Intel
source's where the CPU has BTS) and skips, with the reason, those that
oops, panic, reboot, suspend, kexec or take CPUs offline." \
	$(git ls-files tools/testing/selftests/bts | grep -v -e '\.host' -e '/bench/')
existing "$(grep 0006 patches/series)"
ls "$out"
