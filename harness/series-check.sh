#!/bin/bash
# The series a maintainer receives (make series), checked as one would:
# every patch carries the project's Signed-off-by (git config user.name
# and user.email, the same on every patch) and its From:, the series
# applies in order onto the pristine 6.12 tree, and checkpatch --strict
# finds nothing in any patch but what harness/series-checkpatch.exceptions
# lists with its reason; tools/bts-dump compiles, and links once it has
# a main(), at every step that changes it, and as the overlay has it
# (what its Makefile builds). With --build (make
# series-check, make check) it also builds the test kernel at every patch
# and once with CONFIG_BTS_TRACER=n (harness/series-build.sh). TAP on
# stdout; exit 1 on any failure.
#
#   harness/series-check.sh [--build] [SERIESDIR]
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
: "${BUILD:=$top/build}" "${KSRC:=$BUILD/linux}"
pristine=$BUILD/pristine/linux-source-6.12
build=0
[ "${1:-}" = --build ] && build=1 && shift
out=$(realpath -m "${1:-$BUILD/series}")
n=0 bad=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $*"; bad=1; }
# a patch's mail headers, each on one line
unfold() {
	awk '/^$/ { body = 1 } !body && NR > 1 && /^[ \t]/ { sub(/^[ \t]+/, " "); line = line $0; next }
		{ if (NR > 1) print line; line = $0 } END { print line }' "$1"
}

if ! python3 "$top/harness/mkseries.py" series "$out" > /dev/null; then
	not_ok "make series writes the series"
	echo "1..$n"
	exit 1
fi
[ -f "$out"/0000-cover-letter.patch ] && unfold "$out"/0000-cover-letter.patch | grep '^Subject: \[RFC PATCH 0*/[0-9]*\] [a-z]' > /dev/null &&
	ok "the series has a cover letter" || not_ok "the series has a cover letter"
mapfile -t patches < <(ls "$out"/[0-9]*.patch | grep -v '/0000-')
ok "make series writes the series (${#patches[@]} patches)"
ident="$(git -C "$top" config user.name) <$(git -C "$top" config user.email)>"

# Signed off, by the project, once, in every patch
unsigned=()
for p in "${patches[@]}"; do
	[ "$(sed -n '1,/^---$/p' "$p" | grep -c '^Signed-off-by: ')" = 1 ] &&
		grep -qxF "Signed-off-by: $ident" "$p" && unfold "$p" | grep -xF "From: $ident" > /dev/null ||
		unsigned+=("$(basename "$p")")
done
[ ${#unsigned[@]} = 0 ] &&
	ok "every patch is from and signed off by the project ($ident)" ||
	not_ok "every patch is from and signed off by the project ($ident): not ${unsigned[*]}"

# It applies in order onto the pristine tree (a hard-linked copy: patch
# writes new files, the pristine ones stay as they are)
tree=$(mktemp -d "$BUILD/series-tree.XXXXXX")
trap 'rm -rf "$tree"' EXIT
cp -al "$pristine/." "$tree/"
failed=
for p in "${patches[@]}"; do
	if ! patch -d "$tree" -p1 -N -s --no-backup-if-mismatch -r - < "$p" > "$tree.log" 2>&1; then
		failed="$(basename "$p"): $(head -c 200 "$tree.log")"
		break
	fi
done
rm -f "$tree.log"
[ -z "$failed" ] && ok "the series applies in order onto the pristine linux-source-6.12" ||
	not_ok "the series applies in order onto the pristine linux-source-6.12 ($failed)"

# git am takes it as a maintainer would: onto a git tree of the pristine
# files the series touches (the same blobs as v6.12's), one commit each
amrepo=$(mktemp -d "$BUILD/series-am.XXXXXX")
(
	cd "$amrepo" && git init -q &&
	cat "${patches[@]}" | sed -n 's#^--- a/##p' | sort -u | while read -r f; do
		[ -f "$pristine/$f" ] && mkdir -p "$(dirname "$f")" && cp "$pristine/$f" "$f"
	done
	git add -A && git -c user.name=base -c user.email=base@localhost commit -q -m base &&
		git -c user.name=check -c user.email=check@localhost am -q "${patches[@]}" &&
		[ "$(git rev-list --count HEAD)" = $((${#patches[@]} + 1)) ]
) > "$amrepo.log" 2>&1 && ok "git am applies every patch (${#patches[@]} commits)" ||
	not_ok "git am applies every patch: $(head -c 300 "$amrepo.log")"
rm -rf "$amrepo" "$amrepo.log"

# What it ends with is what make kernel builds: every file the series
# touches (but tools/bts-dump, which the kernel build does not copy) is the
# same in the test kernel's tree
if [ -z "$failed" ] && [ -f "$KSRC/Makefile" ]; then
	differ=$(cat "${patches[@]}" | sed -n 's#^+++ b/##p' | sort -u | grep -v '^tools/bts-dump/' |
		while read -r f; do cmp -s "$tree/$f" "$KSRC/$f" || echo "$f"; done)
	[ -z "$differ" ] && ok "the series ends with the files make kernel builds" ||
		not_ok "the series ends with the files make kernel builds: not $(echo $differ | head -c 200)"
fi

# checkpatch --strict, each finding either listed with its reason or a failure
exc=$top/harness/series-checkpatch.exceptions
for p in "${patches[@]}"; do
	found=$(perl "$KSRC/scripts/checkpatch.pl" --strict --terse --show-types --showfile \
		--no-tree "$p" 2>&1 | grep -E ': (ERROR|WARNING|CHECK):')
	left=() kept=0
	while IFS= read -r f; do
		[ -n "$f" ] || continue
		file=${f%%:*}
		type=$(echo "$f" | sed -E 's/.*: (ERROR|WARNING|CHECK):([A-Z_0-9]+):.*/\2/')
		listed=0
		while read -r pat etype _; do
			# FILE is a shell pattern over the path in the patch
			# shellcheck disable=SC2053
			[[ $file == $pat && $type == "$etype" ]] && listed=1 && break
		done < <(grep -v -e '^#' -e '^$' "$exc")
		if [ $listed = 1 ]; then
			kept=$((kept + 1))
		else
			left+=("$f")
		fi
	done <<< "$found"
	[ ${#left[@]} = 0 ] &&
		ok "checkpatch --strict $(basename "$p") ($kept findings listed with their reason)" ||
		not_ok "checkpatch --strict $(basename "$p"): ${left[*]:0:3}"
done
# tools/bts-dump builds at every step that changes it, as it is at that
# step, with the warnings its Makefile makes errors (the kernel steps are
# built by series-build.sh below)
flags=$(make -s -C "$top/tools/bts-dump" --eval 'print-flags: ; @echo $(BASE_CFLAGS)' print-flags 2> /dev/null)
mapfile -t steps < <(sed -n 's/^step \([^ ]*\).*/\1/p' "$top/patches/steps")
if [ -z "$flags" ] || [ ${#steps[@]} != ${#patches[@]} ]; then
	not_ok "every tools/bts-dump step compiles (no flags from its Makefile, or ${#steps[@]} steps for ${#patches[@]} patches)"
else
	read -ra flagv <<< "$flags"
	libs=$(make -s -C "$top/tools/bts-dump" --eval 'print-libs: ; @echo $(PKG_LIBS)' print-libs 2> /dev/null)
	tsteps=0 tbad=()
	for i in "${!patches[@]}"; do
		grep -q '^+++ b/tools/bts-dump/src/' "${patches[$i]}" || continue
		tsteps=$((tsteps + 1))
		dir=$(mktemp -d "$BUILD/series-tool.XXXXXX") fail=
		if ! python3 "$top/harness/mkseries.py" tree "${steps[$i]}" "$dir" > "$dir.log" 2>&1; then
			fail=${steps[$i]}
		else
			for c in "$dir"/tools/bts-dump/src/*.c; do
				(cd "$dir/tools/bts-dump" && gcc -c -o /dev/null "${flagv[@]}" "src/${c##*/}") >> "$dir.log" 2>&1 ||
					{ fail=${steps[$i]}:${c##*/}; break; }
			done
			# once it has a main(), it links as well
			if [ -f "$dir/tools/bts-dump/src/main.c" ] && [ -z "$fail" ]; then
				(cd "$dir/tools/bts-dump" && gcc -O2 -o /dev/null "${flagv[@]}" src/*.c $libs) >> "$dir.log" 2>&1 ||
					fail=${steps[$i]}:link
			fi
		fi
		[ -z "$fail" ] || { tbad+=("$fail"); head -5 "$dir.log" | sed 's/^/# /'; }
		rm -rf "$dir" "$dir.log"
	done
	[ ${#tbad[@]} = 0 ] &&
		ok "every tools/bts-dump step compiles as it is at that step ($tsteps steps, the Makefile's warnings as errors)" ||
		not_ok "every tools/bts-dump step compiles as it is at that step: not ${tbad[*]}"
	# and as the overlay has it, every block in: its Makefile builds these
	# files as they are (code an until block replaces is behind "//~")
	rbad=()
	for c in "$top"/tools/bts-dump/src/*.c; do
		(cd "$top/tools/bts-dump" && gcc -c -o /dev/null "${flagv[@]}" "src/${c##*/}") > "$BUILD/series-raw.log" 2>&1 ||
			{ rbad+=("${c##*/}"); head -3 "$BUILD/series-raw.log" | sed 's/^/# /'; }
	done
	rm -f "$BUILD/series-raw.log"
	[ ${#rbad[@]} = 0 ] &&
		ok "tools/bts-dump compiles as the overlay has it, every series block in" ||
		not_ok "tools/bts-dump compiles as the overlay has it, every series block in: not ${rbad[*]}"
fi
if [ $build = 1 ]; then
	while IFS= read -r line; do
		case $line in
		"ok "*) ok "${line#* - }" ;;
		"not ok "*) not_ok "${line#* - }" ;;
		"#"*) echo "$line" ;;
		esac
	done < <("$top/harness/series-build.sh" "$out" 2>&1)
fi
echo "1..$n"
exit $bad
