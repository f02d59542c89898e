#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bts-dump reading real console logs (the guest boots' console.log, where
# ftrace_dump_on_oops printed the bts entries) with the kernel's System.map
# and vmlinux. TAP; skips without logs.
#
#   test-console.sh BINDIR SYSTEM_MAP VMLINUX LOG...
set -u
BTS=$1/bts-dump
MAP=$2
VMLINUX=$3
shift 3
if [ $# -eq 0 ] || [ ! -r "$MAP" ]; then
	echo "1..0 # SKIP no console logs or System.map (make test-console CONSOLE_LOGS=... SYSTEM_MAP=...)"
	exit 0
fi
T=$(mktemp -d /tmp/bts-console.XXXXXX)
trap 'rm -rf "$T"' EXIT
n=0 fail=0
check() {
	n=$((n + 1))
	if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=$((fail + 1)); fi
}
K=()
[ -r "$VMLINUX" ] && K=(-k "$VMLINUX")
for log in "$@"; do
	name=$(basename "$(dirname "$log")")
	lines=$(grep -cE ' cpu=[0-9]+ [0-9]+/[0-9]+ [^ ]+ -> [^ ]+' "$log")
	if [ "$lines" -eq 0 ]; then
		continue
	fi
	"$BTS" -s "$MAP" "${K[@]}" --json --no-fold "$log" >"$T/$name.json" 2>"$T/$name.err"
	rc=$?
	python3 - "$T/$name.json" >"$T/$name.sum" <<'PY'
import json, sys
o = [json.loads(l) for l in open(sys.argv[1])]
b = [x for x in o if x["type"] == "branch"]
d = [x for x in o if x["type"] == "dump"]
print(len(b), sum(x.get("missing", 0) for x in d), sum(1 for x in b if x["fault"]),
      # 0x0 at the user end of a branch between user and kernel mode
      # is a user half the kernel cleared (bts_user off), not a name
      # that failed to resolve
      sum(1 for x in b
          if (x["from"] == "0x0" and x.get("transition") != "user->kernel")
          or (x["to"] == "0x0" and x.get("transition") != "kernel->user")),
      sum(1 for x in d if x["release"] and x["stext"] != "0x0"))
PY
	read -r recs missing faults zero withhdr <"$T/$name.sum"
	faults_txt=$(grep -cE ' cpu=[0-9]+ [0-9]+/[0-9]+ .*\[fault\]' "$log")
	check "console $name: read with the kernel's symbols, exit 0 ($(head -c 200 "$T/$name.err" | tr '\n' ' '))" "[ $rc -eq 0 ]"
	check "console $name: every one of its $lines bts lines is a record ($recs; $missing counted missing)" \
		"[ $recs -eq $lines ]"
	check "console $name: every name turned back into an address ($zero not)" "[ $zero -eq 0 ]"
	check "console $name: the $faults_txt records marked [fault] are the fault records" "[ $faults -eq $faults_txt ]"
	# Kernels that print a bts_history line before each CPU's history.
	hdrs=$(grep -cE '(^| )bts_history cpu:[0-9]+ nr:[0-9]+ ' "$log")
	if [ "$hdrs" -gt 0 ]; then
		check "console $name: each of its $hdrs bts_history lines gave a history its header ($withhdr did)" \
			"[ $withhdr -eq $hdrs ] && ! grep -q 'bts_history line' '$T/$name.err'"
	fi
done
echo "1..$n"
exit $((fail > 0))
