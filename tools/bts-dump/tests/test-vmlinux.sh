#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bts-dump against a real kernel: symbols from its vmlinux and System.map
# (or kallsyms), file:line and inline frames from its DWARF, branch kinds
# decoded from its instructions, KASLR. TAP on stdout; skips without VMLINUX.
#
#   test-vmlinux.sh BINDIR VMLINUX [KALLSYMS]
set -u
BINDIR=$1
VMLINUX=${2:-}
KALLSYMS=${3:-}
BTS=$BINDIR/bts-dump
GEN=$BINDIR/gen-dump

if [ -z "$VMLINUX" ]; then
	echo "1..0 # SKIP VMLINUX not given (make test-vmlinux VMLINUX=path [KALLSYMS=path])"
	exit 0
fi
if [ ! -r "$VMLINUX" ]; then
	echo "1..0 # SKIP $VMLINUX not readable (is the test kernel built?)"
	exit 0
fi
if [ -z "$KALLSYMS" ] && [ -r "$(dirname "$VMLINUX")/System.map" ]; then
	KALLSYMS=$(dirname "$VMLINUX")/System.map
fi
T=$(mktemp -d /tmp/bts-dump-vmlinux.XXXXXX)
trap 'rm -rf "$T"' EXIT
results=()
ok_if() {
	local name=$1
	shift
	if "$@" >"$T/last.out" 2>&1; then
		results+=("ok - $name")
	else
		results+=("not ok - $name")
		while IFS= read -r l; do results+=("# $l"); done < <(head -20 "$T/last.out")
	fi
}

# Symbols for the generator: the System.map/kallsyms, else the vmlinux's.
if [ -n "$KALLSYMS" ]; then
	SYMS=$KALLSYMS
else
	nm -n "$VMLINUX" >"$T/nm.map"
	SYMS=$T/nm.map
fi
addr_of() { awk -v s="$1" '$3 == s { print $1; exit }' "$SYMS"; }

"$GEN" -o "$T/walk.bts" --walk 3000 --symbols "$SYMS" --seed 3
"$GEN" -o "$T/walk-kaslr.bts" --walk 3000 --symbols "$SYMS" --seed 3 --shift 0x1e00000 \
	--kaslr 0x1e00000

# 1. DWARF: a known function's source file.
sk=$(addr_of start_kernel)
"$GEN" -o "$T/sk.bts" --stext "0x$(addr_of _stext)" --rec "$sk:$sk"
"$BTS" -k "$VMLINUX" "$T/sk.bts" >"$T/sk.txt" 2>&1
ok_if "vmlinux: start_kernel+0x0 has its source line in init/main.c" \
	grep -qE 'start_kernel\+0x0 \[init/main\.c:[0-9]+\]' "$T/sk.txt"

# 2. Symbols: the vmlinux symbol table and the System.map agree.
"$BTS" -k "$VMLINUX" --no-lines --no-decode --no-fold --json "$T/walk.bts" >"$T/k.json" 2>&1
ok_if "vmlinux: ELF symbols name every kernel address of a 3000-record history" python3 - "$T/k.json" <<'PY'
import json, sys
b = [o for o in map(json.loads, open(sys.argv[1])) if o["type"] == "branch"]
kernel = lambda a: int(a, 16) >> 63
missing = [o for o in b if (kernel(o["from"]) and o["from_sym"] is None) or
           (kernel(o["to"]) and o["to_sym"] is None)]
assert len(b) == 3000 and not missing, (len(b), missing[:3])
PY
if [ -n "$KALLSYMS" ]; then
	"$BTS" -s "$KALLSYMS" --no-decode --no-fold --json "$T/walk.bts" >"$T/s.json" 2>&1
	ok_if "vmlinux: its symbols agree with $(basename "$KALLSYMS") on >= 95% of addresses" \
		python3 - "$T/k.json" "$T/s.json" <<'PY'
import json, sys
def syms(p):
    return [(o["from_sym"], o.get("from_off"), o["to_sym"], o.get("to_off"))
            for o in map(json.loads, open(p)) if o["type"] == "branch"]
a, b = syms(sys.argv[1]), syms(sys.argv[2])
same = sum(x == y for x, y in zip(a, b))
print("same", same, "of", len(a))
assert len(a) == len(b) and same >= 0.95 * len(a)
PY
fi

# 3. KASLR: the same history moved by 0x1e00000 names the same symbols.
"$BTS" -k "$VMLINUX" --no-decode --no-fold "$T/walk.bts" | tail -n +2 | sed -E 's/^ +[0-9]+ //; s/0xffffffff[0-9a-f]+/ADDR/g' >"$T/plain.txt"
"$BTS" -k "$VMLINUX" --no-decode --no-fold "$T/walk-kaslr.bts" | tail -n +2 | sed -E 's/^ +[0-9]+ //; s/0xffffffff[0-9a-f]+/ADDR/g' >"$T/kaslr.txt"
ok_if "vmlinux: a KASLR-shifted dump gives the same symbols and lines" \
	bash -c "[ -s '$T/plain.txt' ] && cmp '$T/plain.txt' '$T/kaslr.txt'"
if [ -n "$KALLSYMS" ]; then
	"$BTS" -s "$KALLSYMS" --no-decode --no-fold "$T/walk-kaslr.bts" | tail -n +2 | sed -E 's/^ +[0-9]+ //; s/0xffffffff[0-9a-f]+/ADDR/g' >"$T/kaslr-map.txt"
	"$BTS" -s "$KALLSYMS" --no-decode --no-fold "$T/walk.bts" | tail -n +2 | sed -E 's/^ +[0-9]+ //; s/0xffffffff[0-9a-f]+/ADDR/g' >"$T/plain-map.txt"
	ok_if "vmlinux: a KASLR-shifted dump with $(basename "$KALLSYMS") gives the same symbols" \
		bash -c "[ -s '$T/plain-map.txt' ] && cmp '$T/plain-map.txt' '$T/kaslr-map.txt'"
fi

# 4. Lines and inline frames over the whole history.
ok_if "vmlinux: >= 90% of records have a file:line" \
	bash -c "n=\$(grep -c '' '$T/plain.txt'); l=\$(grep -cE ' \[[^]]+:[0-9]+' '$T/plain.txt'); echo \"\$l of \$n\"; [ \$((l * 10)) -ge \$((n * 9)) ]"
ok_if "vmlinux: inline frames are shown (some record is 'inlined at')" \
	grep -qE '\[[^]]+:[0-9]+ [A-Za-z_0-9.]+ inlined at [^]]+:[0-9]+' "$T/plain.txt"

ok_if "vmlinux: every address of a 3000-record history has addr2line -i -f's inline chain, frame for frame" \
	python3 "$(dirname "$0")/compare-inlines.py" "$BTS" "$VMLINUX" "$T/walk.bts"

# 5. Decoding: real call and conditional-jump instructions are classified.
objdump -d --no-show-raw-insn --disassemble=start_kernel "$VMLINUX" >"$T/sk.dis" 2>/dev/null
# Each branch goes where its bytes say (bts-dump checks the target).
call_line=$(grep -E '^ *ffffffff[0-9a-f]+:\s+call +ffffffff' "$T/sk.dis" | sed -n 2p)
jcc_line=$(grep -E '^ *ffffffff[0-9a-f]+:\s+j(e|ne|a|ae|b|be|g|ge|l|le|s|ns) +ffffffff' "$T/sk.dis" | head -1)
call=$(echo "$call_line" | awk -F: '{print $1}' | tr -d ' ')
call_to=$(echo "$call_line" | grep -oE 'call +ffffffff[0-9a-f]+' | awk '{print $2}')
jcc=$(echo "$jcc_line" | awk -F: '{print $1}' | tr -d ' ')
jcc_to=$(echo "$jcc_line" | grep -oE 'j[a-z]+ +ffffffff[0-9a-f]+' | awk '{print $2}')
if [ -n "$call" ] && [ -n "$jcc" ]; then
	"$GEN" -o "$T/dec.bts" --stext "0x$(addr_of _stext)" --rec "$call:$call_to" --rec "$jcc:$jcc_to" \
		--rec "$sk:$call"
	"$BTS" -k "$VMLINUX" "$T/dec.bts" >"$T/dec.txt" 2>&1
	ok_if "vmlinux: capstone classifies a call and a conditional jump of start_kernel" \
		bash -c "grep -qE '^ +0 call +start_kernel' '$T/dec.txt' && grep -qE '^ +1 jcc +' '$T/dec.txt'"
	# --kcore reads bytes at runtime addresses: an unrandomized vmlinux is one.
	"$BTS" --no-symbols --kcore "$VMLINUX" "$T/dec.bts" >"$T/kcore.txt" 2>&1
	ok_if "vmlinux: --kcore decodes from an ELF image at runtime addresses" \
		bash -c "grep -qE '^ +0 call +0x$call ' '$T/kcore.txt' && grep -qE '^ +1 jcc +0x$jcc ' '$T/kcore.txt'"
else
	results+=("not ok - vmlinux: objdump found no call/jcc in start_kernel to test decoding")
fi

# 5b. Text the kernel patched at boot: its return thunk jumps are returns.
objdump -d --no-show-raw-insn --disassemble=do_syscall_64 "$VMLINUX" >"$T/ds.dis" 2>/dev/null
rt=$(grep -m1 -E 'jmp +ffffffff[0-9a-f]+ <__x86_return_thunk>' "$T/ds.dis" | awk -F: '{print $1}' | tr -d ' ')
if [ -n "$rt" ]; then
	# A return from do_syscall_64 lands after the call in entry_SYSCALL_64.
	"$GEN" -o "$T/rt.bts" --stext "0x$(addr_of _stext)" --rec "$rt:$(addr_of entry_SYSCALL_64)"
	"$BTS" -k "$VMLINUX" "$T/rt.bts" >"$T/rt.txt" 2>&1
	ok_if "vmlinux: 'jmp __x86_return_thunk' that went back to a caller is a ret" \
		grep -qE '^ +0 ret +do_syscall_64\+' "$T/rt.txt"
else
	results+=("ok - vmlinux: no jmp __x86_return_thunk in do_syscall_64 # SKIP (no MITIGATION_RETHUNK)")
fi

# 5c. Build ID: a dump naming this vmlinux's is read; another's is refused.
id=$(readelf -n "$VMLINUX" | awk '/Build ID:/ { print $3 }')
if [ -n "$id" ]; then
	"$GEN" -o "$T/id.bts" --stext "0x$(addr_of _stext)" --build-id "$id" --rec "$sk:$sk"
	"$GEN" -o "$T/id2.bts" --stext "0x$(addr_of _stext)" --build-id "$(echo "$id" | tr '0-9a-f' '1-9a-f0')" --rec "$sk:$sk"
	ok_if "vmlinux: a dump with its build ID is read; one with another is refused" \
		bash -c "'$BTS' -k '$VMLINUX' '$T/id.bts' >/dev/null 2>&1 && ! '$BTS' -k '$VMLINUX' '$T/id2.bts' >/dev/null 2>&1"
fi

# 6. Everything together runs clean under the sanitizers and stays fast.
start=$(date +%s.%N)
"$BTS" -k "$VMLINUX" ${KALLSYMS:+-s "$KALLSYMS"} --json "$T/walk-kaslr.bts" >"$T/all.json" 2>"$T/all.err"
rc=$?
end=$(date +%s.%N)
results+=("# 3000 records with vmlinux DWARF + decoding (ASan build): $(echo "$end - $start" | bc) s")
ok_if "vmlinux: symbols + lines + decoding on 3000 records exit 0 with no sanitizer report" \
	bash -c "[ $rc -eq 0 ] && ! grep -qE 'Sanitizer|runtime error' '$T/all.err'"
ok_if "vmlinux: JSON records carry from_src and to_src" \
	bash -c "grep -q '\"from_src\":' '$T/all.json' && grep -q '\"to_src\":' '$T/all.json'"

n=0 fail=0
for r in "${results[@]}"; do case $r in "ok - "* | "not ok - "*) n=$((n + 1)) ;; esac; done
echo "1..$n"
i=0
for r in "${results[@]}"; do
	case $r in
	"ok - "*) i=$((i + 1)); echo "ok $i - ${r#ok - }" ;;
	"not ok - "*) i=$((i + 1)); fail=$((fail + 1)); echo "not ok $i - ${r#not ok - }" ;;
	*) echo "$r" ;;
	esac
done
[ $fail -eq 0 ] && echo "# all $n tests passed" || echo "# $fail of $n tests failed"
exit $((fail > 0))
