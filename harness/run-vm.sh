#!/bin/bash
# Boot the test kernel in QEMU.
#
#   run-vm.sh --interactive [--append ARGS]      shell on the console (make vm)
#   run-vm.sh --share DIR --log FILE --timeout S [--append ARGS] [--smp N]
#             [--host-usr]
#             [--mem MiB] [--reboot] [--disk MiB]
#
# Single-threaded TCG on purpose: with multi-threaded TCG and two vCPUs,
# ftrace's code patching oopses with "int3" on a stock 6.12 (DESIGN.md 8).
# KVM does not boot reliably on these machines. The guest has 2 CPUs
# unless --smp says otherwise, 1 GiB of RAM (2 GiB for the debug kernel,
# KASAN's shadow) unless --mem does.
#
# Two machines. By default Debian's QEMU with -cpu max, which has no BTS
# (under TCG it is an AMD CPU): bts runs on its software source there.
# With BTS_HW=1, the project's QEMU (make qemu, harness/qemu/) with an
# Intel CPU whose Debug Store and Branch Trace Store it emulates: bts runs
# on its Intel source. The features after the ds flags are ones this
# CPU model lists but TCG lacks; naming them keeps QEMU from warning. The
# emulated CPU counts as affected by Meltdown (TCG has no
# ARCH_CAPABILITIES), so bts.allow_meltdown=1 opts in to the Intel source
# (Documentation/trace/bts-intel.rst).
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
interactive=0 share= log= timeout=600 append= mem=1024 smp=2 noreboot=-no-reboot
disk=
host_usr=()
[ "$KVARIANT" = debug ] && mem=2048
while [ $# -gt 0 ]; do
	case "$1" in
	--interactive) interactive=1 ;;
	--share) share=$2; shift ;;
	--log) log=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	--append) append=$2; shift ;;
	--smp) smp=$2; shift ;;
	--mem) mem=$2; shift ;;
	# a guest reboot (a panic's included) resets the machine, RAM kept
	--reboot) noreboot= ;;
	# a blank virtio disk of MiB, the guest's /dev/vda (sparse, in the
	# share, removed when QEMU exits): swap for a hibernation image
	--disk) disk=$2; shift ;;
	# the host's /usr, read-only, as 9p tag hostusr: the guest runs the
	# host's drgn and crash on its own /proc/kcore (tests that debug live)
	--host-usr) host_usr=(-virtfs "local,path=/usr,mount_tag=hostusr,security_model=none,readonly=on,id=hostusr") ;;
	*) echo "run-vm: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
[ -f "$BZIMAGE" ] || { echo "run-vm: no kernel at $BZIMAGE: make kernel" >&2; exit 1; }
[ -n "$share" ] || share=$(mktemp -d)
mkdir -p "$share"
skylake=Skylake-Client,pmu=on,-pcid,-x2apic,-tsc-deadline,-hle,-invpcid,-rtm,-rdseed,-3dnowprefetch,-xsavec
if [ "${BTS_HW:-0}" = same-cpu ]; then
	# make bench only: Debian's QEMU with the BTS machine's CPU model minus
	# the Debug Store, to measure what the emulation costs while off
	machine=(qemu-system-x86_64 -cpu "$skylake")
elif [ "${BTS_HW:-0}" = 1 ]; then
	bts_qemu=$BUILD/qemu/qemu-system-x86_64
	[ -x "$bts_qemu" ] || { echo "run-vm: no BTS QEMU at $bts_qemu: make qemu" >&2; exit 1; }
	machine=("$bts_qemu" -L /usr/share/seabios -L /usr/share/qemu
		-cpu "$skylake,+ds,+dtes64,+ds-cpl${BTS_CPU_EXTRA:-}")
	# -singlestep (check.py's -ss machines): interrupts between any two
	# instructions, as on silicon, not only at translation-block ends
	[ -n "${BTS_QEMU_EXTRA:-}" ] && machine+=($BTS_QEMU_EXTRA)
	case " $append " in
	*" bts.allow_meltdown="*) ;;
	*) append="bts.allow_meltdown=1 $append" ;;
	esac
	# the emulated CPU says there why it stopped the machine (BTS: fatal)
	[ -n "$share" ] && machine+=(-d guest_errors -D "$share/qemu.log")
else
	machine=(qemu-system-x86_64 -cpu max)
fi
qemu=("${machine[@]}" -machine q35 -accel tcg,thread=single -smp "$smp" -m "$mem"
	$noreboot -nic none -display none -monitor none
	-kernel "$BZIMAGE" -initrd "$INITRAMFS"
	-virtfs "local,path=$share,mount_tag=host0,security_model=none,id=host0"
	"${host_usr[@]}")
if [ -n "$disk" ]; then
	rm -f "$share/disk.img"
	truncate -s "${disk}M" "$share/disk.img"
	trap 'rm -f "$share/disk.img"' EXIT
	qemu+=(-drive "file=$share/disk.img,if=virtio,format=raw")
fi
cmdline="console=ttyS0 panic=-1 loglevel=7 $append"
if [ $interactive -eq 1 ]; then
	exec "${qemu[@]}" -serial mon:stdio -append "$cmdline bts.tests=shell"
fi
# A hung guest is killed; the harness then reports it as timed out.
rc=0
timeout --foreground -k 5 "$timeout" "${qemu[@]}" -serial stdio \
	-append "$cmdline" < /dev/null > "$log" 2>&1 || rc=$?
exit $rc
