#!/bin/bash
# The series a maintainer receives (make series), checked as one would:
# every patch carries the project's Signed-off-by (git config user.name
# and user.email, the same on every patch) and its From:, the series
# applies in order onto the pristine 6.12 tree, and checkpatch --strict
# finds nothing in any patch but what harness/series-checkpatch.exceptions
# lists with its reason. TAP on stdout; exit 1 on any failure.
#
# Not yet checked here: that every patch builds (issue 25).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
: "${BUILD:=$top/build}" "${KSRC:=$BUILD/linux}"
pristine=$BUILD/pristine/linux-source-6.12
out=${1:-$BUILD/series}
n=0 bad=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $*"; bad=1; }

if ! "$top/harness/mkseries.sh" "$out" > /dev/null; then
	not_ok "make series writes the series"
	echo "1..$n"
	exit 1
fi
mapfile -t patches < <(ls "$out"/[0-9]*.patch)
ok "make series writes the series (${#patches[@]} patches)"
ident="$(git -C "$top" config user.name) <$(git -C "$top" config user.email)>"

# Signed off, by the project, once, in every patch
unsigned=()
for p in "${patches[@]}"; do
	[ "$(sed -n '1,/^---$/p' "$p" | grep -c '^Signed-off-by: ')" = 1 ] &&
		grep -qxF "Signed-off-by: $ident" "$p" && grep -qxF "From: $ident" "$p" ||
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
echo "1..$n"
exit $bad
