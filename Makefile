# bts: top-level driver. The project is an overlay on Linux 6.12 (Debian's
# linux-source-6.12): `make kernel` unpacks it under $(BUILD), copies the
# overlay in, applies the patches of patches/steps and builds a small
# test kernel.
#
#   make deps      install what the build and the tests need (apt)
#   make kernel    build the test kernel ($(BUILD)/obj-test/arch/x86/boot/bzImage)
#   make qemu      build the QEMU that emulates BTS ($(BUILD)/qemu/qemu-system-x86_64)
#   make tools     build tools/bts-dump
#   make vm        boot the test kernel in QEMU with a shell on the console
#                  (BTS_HW=1: on the BTS QEMU, with the Intel source)
#   make demo      boot on the BTS QEMU, arm bts, provoke an oops, show the
#                  captured history
#   make check     the tests CI runs (within 45 minutes on 2 cores): host,
#                  KUnit, every guest scenario once on each source (the
#                  software one, the Intel one on the BTS QEMU), the series
#                  applied and checkpatch'ed, the crash and drgn readers;
#                  ends "N passed, N failed" and a table of where the time went
#   make check-full  everything: make check, plus every machine each test
#                  names (nopti with 4 CPUs, the CPU's other CPL reading,
#                  QEMU's -singlestep), the series built at every patch and
#                  with CONFIG_BTS_TRACER=n, the stream-mode comparison with
#                  QEMU's execution log. Run it before calling a change to a
#                  kernel file, harness/qemu or the harness done.
#                  Either takes DEBUG=1 (the lockdep/KASAN kernel),
#                  SINGLESTEP=1 (every hardware scenario under -singlestep
#                  too), CPL_TARGET=1 (on the CPU's other CPL reading too)
#   make lint      checkpatch --strict and W=1 on the project's kernel files, and
#                  the series check (harness/series-check.sh)
#   make bench     benchmarks (figures printed, no assertions)
#   make series    the whole project as a git-am series onto Debian's
#                  linux-source-6.12 (unpacked by make pristine)
#   make pristine  unpack linux-source-6.12 into $(BUILD)/pristine
#   make series-check  the series checked: signed off, applies, checkpatch
#                  --strict, and builds at every patch (make check-full runs
#                  it; make check all of it but the builds)

TOP		:= $(CURDIR)
BUILD		?= $(TOP)/build
DEBUG		?= 0
ifeq ($(DEBUG),1)
KVARIANT	:= debug
KFRAGS		:= $(TOP)/configs/bts-test.config $(TOP)/configs/bts-debug.config
else
KVARIANT	:= test
KFRAGS		:= $(TOP)/configs/bts-test.config
endif
KSRC		:= $(BUILD)/linux
KOBJ		:= $(BUILD)/obj-$(KVARIANT)
BZIMAGE		:= $(KOBJ)/arch/x86/boot/bzImage
INITRAMFS	:= $(BUILD)/initramfs.cpio.gz
JOBS		?= $(shell nproc)
export BUILD KSRC KOBJ KVARIANT KFRAGS BZIMAGE INITRAMFS JOBS DEBUG

.PHONY: all deps pristine kernel kselftest qemu tools initramfs vm demo check check-full lint bench series series-check clean distclean

all: kernel tools

deps:
	@$(TOP)/harness/deps.sh

kernel:
	@$(TOP)/harness/build-kernel.sh

qemu:
	@$(TOP)/harness/qemu/build.sh

# The tests as a kselftest, installed into $(BUILD)/kselftest (the kernel
# tree has them from the overlay; static programs, for the test VM)
kselftest: kernel
	@rm -rf $(BUILD)/kselftest
	@$(MAKE) -s -C $(KSRC)/tools/testing/selftests TARGETS=bts LDFLAGS=-static \
		INSTALL_PATH=$(BUILD)/kselftest install > $(BUILD)/kselftest.log 2>&1 || \
		{ tail -20 $(BUILD)/kselftest.log; exit 1; }

tools:
	@$(MAKE) -s -C $(TOP)/tools/bts-dump

initramfs: tools
	@$(TOP)/harness/mkinitramfs.sh $(INITRAMFS)

vm: kernel initramfs $(if $(filter 1,$(BTS_HW)),qemu)
	@$(TOP)/harness/run-vm.sh --interactive

demo: kernel initramfs qemu
	@$(TOP)/harness/demo.sh

check:
	@python3 $(TOP)/harness/check.py

check-full:
	@FULL=1 python3 $(TOP)/harness/check.py

lint: kernel
	@$(TOP)/harness/lint.sh

bench: kernel initramfs qemu
	@$(TOP)/harness/bench.sh

pristine:
	@$(TOP)/harness/build-kernel.sh --unpack

series: pristine
	@python3 $(TOP)/harness/mkseries.py series $(BUILD)/series

series-check: kernel
	@$(TOP)/harness/series-check.sh --build $(BUILD)/series

clean:
	@$(MAKE) -s -C $(TOP)/tools/bts-dump clean
	rm -rf $(BUILD)/obj-* $(BUILD)/check $(INITRAMFS)

distclean:
	rm -rf $(BUILD)
