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
#
# The first patch's build starts from a copy of the test kernel's objects,
# not from nothing: no ccache hit is to be had (the config differs at every
# step but the last, and include/generated/autoconf.h is in every compile),
# and a whole kernel's build is most of this script's time (709 s of 1611
# with 2 CPUs and a cold ccache, measured). Kbuild records absolute paths
# in every object's command line and dependencies, so the copies are
# built in a private mount namespace with the series' tree and objects
# bound over $BUILD/linux and $BUILD/obj-test; and every file any patch
# touches gets a new mtime before the first build, so that whatever
# depends on a file whose content differs from the test kernel's is
# rebuilt. Kbuild's own rules do the rest, as for every later patch: a
# changed command line or config symbol rebuilds its objects. Without a
# mount namespace (not root, no user namespaces), or with SERIES_COLD=1,
# the first build is a whole kernel's, as before.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
: "${BUILD:=$top/build}" "${JOBS:=$(nproc)}"
series=$1
if [ -z "${BTS_SERIES_NS:-}" ] && [ "${SERIES_COLD:-0}" != 1 ] &&
	unshare -m --propagation private true 2> /dev/null; then
	BTS_SERIES_NS=1 exec unshare -m --propagation private "$0" "$@"
fi
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
ksrc=$src kobj=$obj
if [ -n "${BTS_SERIES_NS:-}" ]; then
	cp -a "$BUILD/obj-test/." "$obj/"
	# A private copy, with a new mtime, of each pristine file a patch
	# changes (touch would change the pristine tree's, through the link).
	sed -n 's#^+++ b/##p' "$series"/[0-9]*.patch | sort -u | while read -r f; do
		[ -f "$src/$f" ] || continue
		cp "$src/$f" "$src/$f.new" && mv "$src/$f.new" "$src/$f"
	done
	if mount --bind "$src" "$BUILD/linux" && mount --bind "$obj" "$BUILD/obj-test"; then
		ksrc=$BUILD/linux kobj=$BUILD/obj-test
		echo "# the first build starts from the test kernel's objects"
	else
		rm -rf "$obj" && mkdir -p "$obj"
		echo "# no bind mount: the first build is a whole kernel's"
	fi
fi
# ccache's depend mode: a miss costs a quarter more than plain gcc, not
# three quarters or more as in its default mode (harness/build-kernel.sh)
export CCACHE_DEPEND=1
kmake() {
	make -s -C "$ksrc" O="$kobj" ARCH=x86_64 CC="ccache gcc" \
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
