#!/bin/bash
# make lint: checkpatch --strict, kernel-doc -Wall and a W=1 build of the project's kernel files.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
: "${BUILD:=$top/build}" "${KSRC:=$BUILD/linux}" "${KOBJ:=$BUILD/obj-test}"
cd "$top"
files=$(git ls-files -co --exclude-standard -- arch include kernel | grep -E '\.[ch]$')
rc=0
echo "== checkpatch --strict (the files as the test kernel is built from them)"
(cd "$KSRC" && perl scripts/checkpatch.pl --strict --no-tree --terse --show-types \
	--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG -f $files) || rc=1
echo "== kernel-doc -Wall"
(cd "$KSRC" && perl scripts/kernel-doc -Wall -none $files 2>&1) | grep . && rc=1
echo "== the series (make series): signed off, applies, checkpatch --strict"
"$top/harness/series-check.sh" "$BUILD/series" | grep -v '^ok' || rc=1
echo "== W=1"
objs=$(echo "$files" | grep '\.c$' | grep -v kunit | sed 's/\.c$/.o/')
make -s -C "$KSRC" O="$KOBJ" ARCH=x86_64 CC="ccache gcc" W=1 $objs 2>&1 |
	grep -E 'warning|error' && rc=1
echo "== Documentation (docutils, warnings are errors)"
for d in Documentation/trace/bts*.rst; do
	python3 -c 'import sys, docutils.core
docutils.core.publish_string(open(sys.argv[1]).read(), source_path=sys.argv[1],
	writer_name="null", settings_overrides={"halt_level": 2, "report_level": 2})' "$d" ||
		rc=1
done
[ $rc -eq 0 ] && echo "lint: clean"
exit $rc
