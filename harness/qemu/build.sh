#!/bin/bash
# make qemu: QEMU 7.2 from Debian's source package plus the project's
# patches (harness/qemu/patches/series), which emulate the Debug Store and
# Branch Trace Store in TCG. Builds qemu-system-x86_64 (x86_64-softmmu, TCG
# only) into $BUILD/qemu/. README.md beside this script says what it
# emulates and how it was validated.
#
# Cached: nothing is rebuilt unless this script or a patch changed. The
# source is unpacked once into $BUILD/qemu-src/pristine; each build syncs a
# work tree from it (restoring what an old patch touched, with a fresh
# mtime so that ninja sees it), applies the series and runs ninja there.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/harness/qemu
: "${BUILD:=$top/build}" "${JOBS:=$(nproc)}"
# The version the patches are made against; apt-get source falls back to
# the newest 7.2 the archive has if this one is gone.
: "${QEMU_DEB_VERSION:=1:7.2+dfsg-7+deb12u18}"
out=$BUILD/qemu
src=$BUILD/qemu-src
say() { echo "qemu: $*"; }
die() { echo "qemu: error: $*" >&2; exit 1; }

mapfile -t patches < <(grep -v '^\s*\(#\|$\)' "$here/patches/series")
sum=$( (cat "$0" "$here/patches/series"; for p in "${patches[@]}"; do
	cat "$here/patches/$p"; done) | sha256sum | cut -d' ' -f1)
if [ -x "$out/qemu-system-x86_64" ] && [ "$(cat "$out/stamp" 2>/dev/null)" = "$sum" ]; then
	exit 0
fi

# --- Debian's source, unpacked once -------------------------------------
if [ ! -f "$src/pristine/.unpacked" ]; then
	command -v dpkg-source >/dev/null || die "dpkg-dev missing: run 'make deps'"
	rm -rf "$src/pristine" "$src/dl"
	mkdir -p "$src/dl"
	say "downloading Debian's qemu source ($QEMU_DEB_VERSION)"
	if ! (cd "$src/dl" && apt-get source -qq --only-source "qemu=$QEMU_DEB_VERSION") \
			> "$src/dl/apt.log" 2>&1; then
		say "qemu=$QEMU_DEB_VERSION is not in the archive; trying its newest qemu 7.2"
		(cd "$src/dl" && rm -rf ./* && apt-get source -qq --only-source qemu) \
			> "$src/dl/apt.log" 2>&1 ||
			die "apt-get source qemu failed (is there a deb-src entry? 'make deps' adds one): $(tail -2 "$src/dl/apt.log")"
	fi
	dir=$(find "$src/dl" -maxdepth 1 -type d -name 'qemu-7.2*' | head -1)
	[ -n "$dir" ] || die "no qemu-7.2 source tree after apt-get source"
	mv "$dir" "$src/pristine"
	rm -rf "$src/dl"
	touch "$src/pristine/.unpacked"
fi

# --- the work tree: pristine + the series --------------------------------
mkdir -p "$src/work"
# -c: compare contents; no -t: a restored file gets a new mtime.
rsync -rlpc --delete --exclude=/build --exclude=/.unpacked "$src/pristine/" "$src/work/"
for p in "${patches[@]}"; do
	[ -f "$here/patches/$p" ] || die "patches/series names $p, which does not exist"
	if ! o=$(patch -d "$src/work" -p1 -N -s --no-backup-if-mismatch -r - \
			< "$here/patches/$p" 2>&1); then
		echo "$o" >&2
		die "patch $p does not apply to $(head -1 "$src/work/debian/changelog" | cut -d' ' -f2)"
	fi
done

# --- configure (when its options change) and build ----------------------
# ccache only for a rebuild: on the first build of a tree its cache cannot
# hold anything (the paths are this clone's) and a miss costs: kernel
# objects took 1.7 to 2 times as long through ccache's default mode as
# through plain gcc, 1.25 times in its depend mode (2 CPUs, measured; see
# harness/build-kernel.sh). No debug info: nothing reads QEMU's own.
cc=gcc
if command -v ccache >/dev/null; then
	cc="ccache gcc"
	if [ -x "$src/work/build/qemu-system-x86_64" ]; then
		export CCACHE_DEPEND=1
	else
		export CCACHE_DISABLE=1
	fi
fi
conf=(--cc="$cc" --target-list=x86_64-softmmu --without-default-features
	--enable-tcg --enable-virtfs --enable-attr --enable-cap-ng
	--enable-fdt=system --disable-docs --disable-werror --disable-debug-info
	--disable-install-blobs --with-git-submodules=ignore)
if [ ! -f "$src/work/build/build.ninja" ] ||
		[ "$(cat "$src/work/build/configure.args" 2>/dev/null)" != "${conf[*]}" ]; then
	say "configuring (x86_64-softmmu, TCG only)"
	rm -rf "$src/work/build"
	mkdir -p "$src/work/build"
	(cd "$src/work/build" && ../configure "${conf[@]}") \
		> "$src/work/build/configure.log" 2>&1 ||
		die "configure failed: $(tail -3 "$src/work/build/configure.log")"
	echo "${conf[*]}" > "$src/work/build/configure.args"
fi
say "building qemu-system-x86_64 ($JOBS jobs)"
ninja -C "$src/work/build" -j"$JOBS" qemu-system-x86_64 > "$src/work/build/ninja.log" 2>&1 ||
	{ grep -E 'error|FAILED' "$src/work/build/ninja.log" | head -20 >&2
	  die "build failed (log: $src/work/build/ninja.log)"; }
mkdir -p "$out"
cp "$src/work/build/qemu-system-x86_64" "$out/qemu-system-x86_64.new"
mv "$out/qemu-system-x86_64.new" "$out/qemu-system-x86_64"
head -1 "$src/work/debian/changelog" > "$out/version"
printf '%s\n' "${patches[@]}" >> "$out/version"
echo "$sum" > "$out/stamp"
say "ok: $out/qemu-system-x86_64"
