#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Write the fuzzers' seed inputs into tests/fuzz/TARGET/ (committed; run
# again only to change them). Needs gen-dump, python3.
#
#   fuzz-seeds.sh GEN_DUMP
set -eu
GEN=$1
HERE=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d /tmp/bts-dump-seeds.XXXXXX)
trap 'rm -rf "$W"' EXIT
mkdir -p "$HERE/fuzz/dump" "$HERE/fuzz/tracedat" "$HERE/fuzz/console" "$HERE/fuzz/vmcore"

# dump: first byte 0 = a dump, 1 = a kallsyms text (fuzz-dump.c).
dump_seed() {	# NAME gen-dump-args...
	local name=$1
	shift
	"$GEN" -o "$W/$name" "$@"
	{ printf '\0'; cat "$W/$name"; } >"$HERE/fuzz/dump/seed-$name"
}
dump_seed valid --flags 3 --reason 1 --fault-index 1 --stext 0xffffffff81000000 \
	--build-id 0123456789abcdef0123456789abcdef01234567 --etext 0xffffffff81000400 \
	--rec 7f0000001000:ffffffff81000100 --rec ffffffff81000120:ffffffff81000200:4000000000000000 \
	--rec ffffffff81000210:ffffffff81000300 --rec ffffffff81000310:ffffffff81000220
dump_seed sw --source 2 --rec ffffffff81000120:ffffffff81000200:8000000000000000 \
	--rec ffffffffa0000010:ffffffff81000300:8000000000000000
dump_seed empty --flags 8 --source 0
dump_seed bighdr --header-size 256 --rec ffffffff81000120:ffffffff81000200
printf '\001ffffffff81000000 T _stext\nffffffff81000100 t f [m]\n' >"$HERE/fuzz/dump/seed-kallsyms"

KS=$W/kallsyms
cat >"$KS" <<'SYMS'
ffffffff81000000 T _stext
ffffffff81000100 T entry_SYSCALL_64
ffffffff81000200 t do_syscall_64
ffffffff81000300 t show
ffffffff81000380 t show
ffffffff81000400 T _etext
ffffffffa0000000 t mod_fn	[mod]
SYMS
cat >"$W/recs" <<'RECS'
0 1 0 3 1 ffffffff81000120 ffffffff81000200 0
0 print a message between
0 1 1 3 1 ffffffff81000210 ffffffff81000308 0
0 1 2 3 1 ffffffff81000310 ffffffff81000390 4000000000000000
1 0 0 2 0 ffffffff81000120 ffffffff81000200 8000000000000000
1 lost 3
1 0 1 2 0 ffffffffa0000010 ffffffffa0000040 8000000000000000
RECS
python3 "$HERE/gen-tracedat.py" -o "$HERE/fuzz/tracedat/seed-two-histories.dat" --kallsyms "$KS" "$W/recs"
python3 "$HERE/gen-tracedat.py" -o "$HERE/fuzz/tracedat/seed-no-kallsyms.dat" "$W/recs"
# Stream mode: two CPUs' streams, a bts_gap, a pos jump, a wrap, a dump
# between, nr 0 with another reason; and without the bts_gap format.
cat >"$W/stream.recs" <<'RECS'
0 0 0 0 6 ffffffff81000120 ffffffff81000200 0
1 1 4294967295 0 6 ffffffff81000120 ffffffff81000200 8000000000000000
0 gap 0 7
0 0 8 0 6 ffffffff81000210 ffffffff81000308 0
0 0 0 1 0 ffffffff81000120 ffffffff81000200 0
1 1 0 0 6 ffffffffa0000010 ffffffffa0000040 8000000000000000
0 0 20 0 6 ffffffff81000310 ffffffff81000390 0
0 0 21 0 2 ffffffff81000310 ffffffff81000390 0
1 gap 1 3
RECS
python3 "$HERE/gen-tracedat.py" -o "$HERE/fuzz/tracedat/seed-stream.dat" --kallsyms "$KS" "$W/stream.recs"
python3 "$HERE/gen-tracedat.py" -o "$HERE/fuzz/tracedat/seed-stream-no-gap.dat" --no-gap "$W/stream.recs"
grep -v -e print -e lost "$W/recs" | cut -d' ' -f2- >"$W/con.recs"
for style in dmesg pstore syslog raw; do
	python3 "$HERE/gen-console.py" --kallsyms "$KS" --style $style "$W/con.recs" \
		>"$HERE/fuzz/console/seed-$style.log"
done
python3 "$HERE/gen-console.py" --kallsyms "$KS" --noise --cut "$W/con.recs" \
	>"$HERE/fuzz/console/seed-noise-cut.log"
# bts_history lines: interleaved CPUs, one without records, a mangled one.
cat >"$W/hdr.recs" <<'RECS'
H 1 3 1 ffffffff81000000 0 6.12.117-bts 0123456789abcdef0123456789abcdef01234567
H 0 2 0 ffffffff93000000 12000000 6.12.117-bts -
1 0 3 1 ffffffff81000120 ffffffff81000200 0
0 0 2 0 ffffffff93000120 ffffffff93000200 8000000000000000
1 1 3 1 ffffffff81000210 ffffffff81000308 0
0 1 2 0 ffffffff93000210 ffffffff93000600 8000000000000000
1 2 3 1 ffffffff81000310 ffffffff81000390 4000000000000000
H 2 0 0 ffffffff81000000 0 6.12.117-bts -
T bts_history cpu:3 nr:1 reason:0 stext:0xffffffff8100zz00 kaslr:0x0 release:x build_id:01
3 0 1 0 ffffffff81000120 ffffffff81000200 0
RECS
python3 "$HERE/gen-console.py" --kallsyms "$KS" "$W/hdr.recs" >"$HERE/fuzz/console/seed-history.log"
# The low 32 bits that end a line (fuzz-console.c's symbols have two
# "show" of one size), and a line of an older kernel without them.
{
	printf '[    1.000001] x-1 0d... 1us : bts_history cpu:0 nr:3 reason:1 stext:0xffffffff81000000 kaslr:0x0 release:6.12.117-bts build_id:\n'
	printf '[    1.000002] x-1 0d... 2us : cpu=0 0/3 do_syscall_64+0x10/0x100 -> show+0x8/0x80 @81000210:81000388\n'
	printf '[    1.000003] x-1 0d... 3us : cpu=0 1/3 show+0x20/0x80 -> show+0x0/0x80 @810003a0:81000300\n'
	printf '[    1.000004] x-1 0d... 4us : cpu=0 2/3 show+0x10/0x80 -> 0xffffffffa0000010 @81000310:a0000010 [fault] oops\n'
	printf '[    1.000005] y-2 0d... 5us : cpu=1 0/2 show+0x8/0x80 -> mod_fn+0x4/0x100 [mod] @81000308:a0000004\n'
	printf '[    1.000006] y-2 0d... 6us : cpu=1 1/2 show+0x20/0x80 -> show+0x4/0x80\n'
} >"$HERE/fuzz/console/seed-lowbits.log"
# vmcore: crash dumps holding the captures above (tests/gen-vmcore.py).
"$GEN" -o "$W/cpu0.bts" --cpu 0 --source 2 --stext 0xffffffff81000000 \
	--rec ffffffff81000120:ffffffff81000200:8000000000000000 \
	--rec ffffffffa0000010:ffffffff81000300:8000000000000000
python3 "$HERE/gen-vmcore.py" -o "$HERE/fuzz/vmcore/seed-two-slots" "$W/valid" "$W/cpu0.bts"
python3 "$HERE/gen-vmcore.py" -o "$HERE/fuzz/vmcore/seed-offset-0" --recs-offset 0 "$W/valid"
python3 "$HERE/gen-vmcore.py" -o "$HERE/fuzz/vmcore/seed-excluded" --exclude-records "$W/valid" "$W/cpu0.bts"
python3 "$HERE/gen-vmcore.py" -o "$HERE/fuzz/vmcore/seed-unfilled" --unfilled "$W/valid"
ls -la "$HERE"/fuzz/*/
