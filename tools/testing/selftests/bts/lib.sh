# TAP helpers for the bts guest tests: `. ./lib.sh` at the top of a test.
# A test prints TAP on stdout ("1..N", "ok N - what", "not ok N - what");
# the harness (harness/check.py) collects it. Keep every check able to fail.
T=/sys/kernel/tracing
B=$T/bts
_n=0

plan() { echo "1..$1"; }
# done_testing: the plan at the end, for tests whose count varies
done_testing() { echo "1..$_n"; }
ok() { _n=$((_n + 1)); echo "ok $_n - $*"; }
not_ok() { _n=$((_n + 1)); echo "not ok $_n - $*"; }
skip() { _n=$((_n + 1)); echo "ok $_n - $1 # SKIP $2"; }
diag() { echo "# $*"; }

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
