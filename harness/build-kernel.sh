#!/bin/bash
# Build the test kernel: pristine linux-source-6.12 + the project's overlay
# files + the patches of patches/steps, each file as it is after the
# series' last step (harness/mkseries.py strips the "bts-series:" markers),
# configured from tinyconfig and configs/*.config.
#
# Incremental: the tree is a hard-linked copy of the pristine source; only
# files the series or the overlay change are replaced, and only when their
# content changes, so make rebuilds just what depends on them. When the
# series changes, every file an old or new patch touches is restored from
# the pristine source before the new series is applied.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
: "${BUILD:=$top/build}" "${KVARIANT:=test}" "${JOBS:=$(nproc)}"
: "${KSRC:=$BUILD/linux}" "${KOBJ:=$BUILD/obj-$KVARIANT}"
: "${KFRAGS:=$top/configs/bts-test.config}"
tarball=/usr/src/linux-source-6.12.tar.xz
pristine=$BUILD/pristine/linux-source-6.12
overlay_dirs=(arch include kernel Documentation tools/testing/selftests/bts)

say() { echo "kernel: $*"; }
die() { echo "kernel: error: $*" >&2; exit 1; }

[ -f "$tarball" ] || die "$tarball missing: run 'make deps'"
mkdir -p "$BUILD"

if [ ! -f "$pristine/Makefile" ]; then
	say "unpacking $(basename "$tarball")"
	rm -rf "$BUILD/pristine" "$KSRC" "$BUILD/applied."*
	mkdir -p "$BUILD/pristine"
	tar -C "$BUILD/pristine" -xf "$tarball"
fi
# --unpack: only that (make pristine, for make series)
[ "${1:-}" = --unpack ] && exit 0
if [ ! -f "$KSRC/Makefile" ]; then
	rm -rf "$KSRC" "$BUILD/applied."*
	cp -al "$pristine" "$KSRC"
fi

# Replace $KSRC/$1 by a private copy of the pristine file (or remove it).
restore() {
	if [ -e "$pristine/$1" ]; then
		cp --remove-destination "$pristine/$1" "$KSRC/$1"
	else
		rm -f "$KSRC/$1"
	fi
}

# --- the patch series --------------------------------------------------
series=$top/patches/steps
mapfile -t patches < <(python3 "$top/harness/mkseries.py" patches)
[ ${#patches[@]} -gt 0 ] || die "patches/steps names no patch"
sum=$( (cat "$series" "$top/harness/mkseries.py"; for p in "${patches[@]}"; do cat "$top/patches/$p"; done) |
	sha256sum | cut -d' ' -f1)
if [ "$(cat "$BUILD/applied.sum" 2>/dev/null)" != "$sum" ]; then
	touched() {
		for p in "${patches[@]}"; do
			sed -n 's#^+++ b/\([^[:space:]]*\).*#\1#p' "$top/patches/$p"
		done
	}
	{ cat "$BUILD/applied.files" 2>/dev/null || true; touched; } |
		sort -u > "$BUILD/applied.files.new"
	mv "$BUILD/applied.files.new" "$BUILD/applied.files"
	rm -f "$BUILD/applied.sum"
	while read -r f; do restore "$f"; done < "$BUILD/applied.files"
	for p in "${patches[@]}"; do
		[ -f "$top/patches/$p" ] || die "patches/steps names $p, which does not exist"
		if ! out=$(patch -d "$KSRC" -p1 -N -s --no-backup-if-mismatch -r - \
				< "$top/patches/$p" 2>&1); then
			echo "$out" >&2
			die "patch $p does not apply to linux-source-6.12"
		fi
		say "applied $p"
	done
	touched > "$BUILD/applied.files"
	# as after the series' last step
	while read -r f; do
		[ -f "$KSRC/$f" ] || continue
		python3 "$top/harness/mkseries.py" strip "$KSRC/$f" > "$KSRC/$f.strip" ||
			die "$f: bad bts-series markers"
		mv "$KSRC/$f.strip" "$KSRC/$f"
	done < "$BUILD/applied.files"
	echo "$sum" > "$BUILD/applied.sum"
fi

# --- the overlay -------------------------------------------------------
list_overlay() {
	(cd "$top" && git ls-files -co --exclude-standard -- "${overlay_dirs[@]}" 2>/dev/null ||
		find "${overlay_dirs[@]}" -type f 2>/dev/null) | sort -u |
		while read -r f; do [ -f "$top/$f" ] && echo "$f"; done
}
list_overlay > "$BUILD/overlay.files.new"
if [ -f "$BUILD/overlay.files" ]; then
	# Files that left the overlay: back to pristine (or gone).
	comm -23 "$BUILD/overlay.files" "$BUILD/overlay.files.new" |
		while read -r f; do restore "$f"; done
fi
# Each file as it is after the series' last step, staged; -c: copy only
# what changed, so mtimes of unchanged files stay put.
stage=$BUILD/overlay-stage
mkdir -p "$stage"
while read -r f; do
	mkdir -p "$stage/$(dirname "$f")"
	if grep -q 'bts-series:' "$top/$f"; then
		python3 "$top/harness/mkseries.py" strip "$top/$f" > "$stage/$f.new" ||
			die "$f: bad bts-series markers"
		chmod --reference="$top/$f" "$stage/$f.new"
		if cmp -s "$stage/$f.new" "$stage/$f"; then rm "$stage/$f.new"; else mv "$stage/$f.new" "$stage/$f"; fi
	else
		cmp -s "$top/$f" "$stage/$f" || cp -p "$top/$f" "$stage/$f"
	fi
done < "$BUILD/overlay.files.new"
rsync -rc --files-from="$BUILD/overlay.files.new" "$stage/" "$KSRC/"
mv "$BUILD/overlay.files.new" "$BUILD/overlay.files"

# --- configuration -----------------------------------------------------
# ccache, for rebuilds only. A tree's first build seldom hits (kbuild's
# command lines and the debug info name this clone's paths) and every
# miss costs: 90 objects of mm/ and kernel/trace/ took 52 s through plain
# gcc, 91 to 112 s through ccache's default mode (it runs the
# preprocessor a second time) and 65 s in its depend mode (2 CPUs). So
# the first build runs ccache disabled (CC stays "ccache gcc": kbuild
# would rebuild everything if its command lines changed) and later ones
# in depend mode, which needs no preprocessor run.
if [ -f "$KOBJ/vmlinux" ]; then
	export CCACHE_DEPEND=1
else
	export CCACHE_DISABLE=1
fi
kmake() {
	make -s -C "$KSRC" O="$KOBJ" ARCH=x86_64 CC="ccache gcc" \
		KBUILD_BUILD_TIMESTAMP="bts test kernel" KBUILD_BUILD_USER=bts \
		KBUILD_BUILD_HOST=bts "$@"
}
cfgsum=$(cat "$top/harness/build-kernel.sh" $KFRAGS | sha256sum | cut -d' ' -f1)
if [ ! -f "$KOBJ/.config" ] || [ "$(cat "$KOBJ/.config.bts" 2>/dev/null)" != "$cfgsum" ]; then
	say "configuring $KVARIANT kernel from tinyconfig + $(cd "$top" && echo $KFRAGS | sed "s#$top/##g")"
	mkdir -p "$KOBJ"
	kmake tinyconfig >/dev/null
	(cd "$KSRC" && ARCH=x86_64 scripts/kconfig/merge_config.sh -m -O "$KOBJ" \
		"$KOBJ/.config" $KFRAGS >/dev/null)
	kmake olddefconfig >/dev/null
	bad=0
	# each symbol as the last fragment that sets it says (a later
	# fragment overrides an earlier one, as merge_config.sh does)
	for frag in $KFRAGS; do
		grep '^CONFIG_' "$frag" | sed "s#^#$(basename "$frag") #"
	done | awk '{ split($2, kv, "="); last[kv[1]] = $0 } END { for (k in last) print last[k] }' |
	while read -r frag line; do
		case "$line" in
		CONFIG_*=n)
			sym=${line%%=*}
			if grep -q "^$sym=" "$KOBJ/.config"; then
				echo "kernel: error: $frag: $sym is set" >&2
				exit 1
			fi ;;
		CONFIG_*)
			if ! grep -qxF "$line" "$KOBJ/.config"; then
				echo "kernel: error: $frag: $line did not stick" \
					"($(grep "^${line%%=*}=" "$KOBJ/.config" || echo unset))" >&2
				exit 1
			fi ;;
		esac
	done || bad=1
	[ $bad -eq 0 ] || die "the config fragment does not apply"
	echo "$cfgsum" > "$KOBJ/.config.bts"
fi

say "building $KVARIANT kernel ($JOBS jobs)"
if ! kmake -j"$JOBS" bzImage 2> "$KOBJ/build.log"; then
	grep -E 'error|Error' "$KOBJ/build.log" | head -30 >&2
	die "build failed (full log: $KOBJ/build.log)"
fi
grep -E 'warning:' "$KOBJ/build.log" | grep -E 'bts' >&2 || true
say "ok: $KOBJ/arch/x86/boot/bzImage"
