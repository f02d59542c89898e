#!/bin/bash
# Build the test kernel at every patch of the series (make series), as
# git bisect would: the series applied one patch at a time onto a copy of
# the pristine linux-source-6.12, the test kernel's configuration, an
# incremental build after each patch, any compiler or linker warning a
# failure (the test kernel builds without one); then once more with
# CONFIG_BTS_TRACER=n. TAP on stdout.
#
#   harness/series-build.sh SERIESDIR
#
# A patch that touches no file the kernel build reads (Documentation,
# tools, MAINTAINERS) is reported without a build. The test kernel's
# .config ($BUILD/obj-test/.config, make kernel) is the base: at each step
# the symbols the series has not added yet are dropped by olddefconfig.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
: "${BUILD:=$top/build}" "${JOBS:=$(nproc)}"
series=$1
pristine=$BUILD/pristine/linux-source-6.12
dir=$BUILD/series-build
src=$dir/linux obj=$dir/obj
n=0 bad=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $*"; bad=1; }
[ -f "$BUILD/obj-test/.config" ] || { echo "series-build: make kernel first" >&2; exit 1; }

rm -rf "$src" "$obj"
mkdir -p "$src" "$obj"
cp -al "$pristine/." "$src/"
cp "$BUILD/obj-test/.config" "$dir/config"
# No ccache hits to hope for from the test kernel's build: the config
# differs at every step but the last (include/generated/autoconf.h is in
# every compile), so the first patch's build is a whole kernel's; the
# others rebuild what their changes and new symbols touch.
kmake() {
	make -s -C "$src" O="$obj" ARCH=x86_64 CC="ccache gcc" \
		KBUILD_BUILD_TIMESTAMP="bts test kernel" KBUILD_BUILD_USER=bts \
		KBUILD_BUILD_HOST=bts "$@"
}
config() {
	cp "$dir/config" "$obj/.config"
	printf '%s' "${1:-}" >> "$obj/.config"
	kmake olddefconfig > /dev/null 2>&1
}
# any warning: gcc's, the linker's, objtool's, modpost's
warned() { grep -E -i 'warning:' "$obj/build.log"; }

start=$(date +%s)
for p in "$series"/[0-9]*.patch; do
	name=$(basename "$p")
	case $name in 0000-*) continue ;; esac
	# patch(1) writes each file anew: the pristine tree's links stay intact
	if ! out=$(patch -d "$src" -p1 -N -s --no-backup-if-mismatch -r - < "$p" 2>&1); then
		not_ok "$name applies ($(echo "$out" | head -c 200))"
		break
	fi
	if ! sed -n 's#^+++ b/##p' "$p" | grep -qv -e '^Documentation/' -e '^tools/' -e '^MAINTAINERS$'; then
		ok "$name builds (touches nothing the kernel build reads)"
		continue
	fi
	t0=$(date +%s)
	config
	if kmake -j"$JOBS" vmlinux > "$obj/build.log" 2>&1 && ! warned > /dev/null; then
		ok "$name builds, without a warning ($(($(date +%s) - t0)) s)"
	else
		not_ok "$name builds, without a warning: $(grep -E -i 'error|warning' "$obj/build.log" | head -3 | tr '\n' ' ')"
	fi
done
t0=$(date +%s)
config 'CONFIG_BTS_TRACER=n
'
if grep -q '^CONFIG_BTS_TRACER=y' "$obj/.config"; then
	not_ok "the series builds with CONFIG_BTS_TRACER=n (it stayed set)"
elif kmake -j"$JOBS" vmlinux > "$obj/build.log" 2>&1 && ! warned > /dev/null; then
	ok "the series builds with CONFIG_BTS_TRACER=n ($(($(date +%s) - t0)) s)"
else
	not_ok "the series builds with CONFIG_BTS_TRACER=n: $(grep -E 'error|warning' "$obj/build.log" | head -3 | tr '\n' ' ')"
fi
echo "# series builds took $(($(date +%s) - start)) s"
echo "1..$n"
exit $bad
