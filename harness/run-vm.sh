#!/bin/bash
# Boot the test kernel in QEMU.
#
#   run-vm.sh --interactive [--append ARGS]      shell on the console (make vm)
#   run-vm.sh --share DIR --log FILE --timeout S [--append ARGS]
#
# Single-threaded TCG on purpose: with multi-threaded TCG and two vCPUs,
# ftrace's code patching oopses with "int3" on a stock 6.12 (DESIGN.md 8).
# KVM does not boot reliably on these machines. The guest has 2 CPUs.
#
# q35, not the default i440fx: i440fx's ACPI _PRT builds its 128-entry
# routing table in an AML While loop, which takes ~2.5 s of emulated time in
# the test kernel and over ACPICA's 30 s loop timeout in the KASAN+lockdep
# kernel ("AE_AML_LOOP_TIMEOUT"); the 9p device is then left without an IRQ
# and /init hangs in its mount. q35's _PRT is a static package.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
: "${BUILD:=$top/build}" "${KVARIANT:=test}"
: "${BZIMAGE:=$BUILD/obj-$KVARIANT/arch/x86/boot/bzImage}"
: "${INITRAMFS:=$BUILD/initramfs.cpio.gz}"
interactive=0 share= log= timeout=600 append= mem=1024
[ "$KVARIANT" = debug ] && mem=2048
while [ $# -gt 0 ]; do
	case "$1" in
	--interactive) interactive=1 ;;
	--share) share=$2; shift ;;
	--log) log=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	--append) append=$2; shift ;;
	*) echo "run-vm: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
[ -f "$BZIMAGE" ] || { echo "run-vm: no kernel at $BZIMAGE: make kernel" >&2; exit 1; }
[ -n "$share" ] || share=$(mktemp -d)
mkdir -p "$share"
qemu=(qemu-system-x86_64 -machine q35 -accel tcg,thread=single -cpu max -smp 2 -m "$mem"
	-no-reboot -nic none -display none -monitor none
	-kernel "$BZIMAGE" -initrd "$INITRAMFS"
	-virtfs "local,path=$share,mount_tag=host0,security_model=none,id=host0")
cmdline="console=ttyS0 panic=-1 loglevel=7 $append"
if [ $interactive -eq 1 ]; then
	exec "${qemu[@]}" -serial mon:stdio -append "$cmdline bts.tests=shell"
fi
# A hung guest is killed; the harness then reports it as timed out.
rc=0
timeout --foreground -k 5 "$timeout" "${qemu[@]}" -serial stdio \
	-append "$cmdline" < /dev/null > "$log" 2>&1 || rc=$?
exit $rc
