#!/usr/bin/env python3
"""make check / make check-full: run the bts tests, end with 'N passed, N failed'.

Two runs. `make check` (what CI runs) covers every scenario at least
once on each source; `make check-full` (FULL=1) runs everything: every
machine each test names, the -singlestep machines, the other CPL
reading, and the series built at every patch. A change to a kernel file,
to the emulated CPU (harness/qemu) or to the harness runs check-full
before it is called done.

Steps: host tests (tools/bts-dump, TAP), the builds (the test kernel
and the BTS QEMU side by side; a patch that does not apply or a compile
error fails here, named), the initramfs and the kselftest, then the
series check and one QEMU boot per scenario, two at a time:

  kunit     KUnit suites built into the test kernel (KTAP on the console)
  shared    every guest test without '# bts-boot: own', in one boot,
            through kselftest's runner
  <test>    each guest test with '# bts-boot: own', in a boot of its own

on each of the machines the tests name:

  sw          Debian's QEMU, -cpu max, 2 vCPUs: no BTS, the software source
              (with DEBUG=1, the preemptible debug kernel: 4 vCPUs here and
              on hw)
  hw          the project's QEMU (make qemu) with an Intel CPU whose BTS it
              emulates, KPTI on, 2 vCPUs: the Intel source (boots "hw-...")
  hw-nopti-4  the same with nopti and 4 vCPUs ("hw-nopti-4-...")
  hw-cpl-target, hw-nopti-cpl-target
              hw, and hw-nopti-4, with the emulated CPU's other reading of
              the SDM's silence: BTS_OFF_OS/BTS_OFF_USR filter a branch
              between user and kernel mode by its target's CPL
              (bts-cpl-target=on). With CPL_TARGET=1 every test of hw and
              hw-nopti-4 runs on them too
  hw-ss, hw-nopti-ss
              hw, and hw with nopti, under QEMU's -singlestep: one guest
              instruction per translation block, so that interrupts land
              between any two instructions as on silicon, not only at
              block ends. Some 25 times slower (timeouts x4); with
              SINGLESTEP=1 every test of hw and hw-nopti-4 runs on them
              too (timeouts x25)

Which machines: a test's '# bts-machines:' line (default: sw hw, and for
shared tests hw-nopti-4 and hw-cpl-target too). check-full boots every
one of them; make check boots sw where the test names it and the first
BTS machine it names: each scenario once on each source.

How a test runs. One that is safe on a live machine (no '# bts-live:'
line) always runs through kselftest's runner, as a user runs it
(run_kselftest.sh over the installed kselftest, make kselftest), whether
in the shared boot or in a boot of its own; its files for the host half
go to the share (BTS_SHARE). The shared boot's runner also runs every
other test of the kselftest as it would on a live machine: those that
must not run there skip with their reason, those for test kernels run
their live half. A test that oopses, panics, reboots or must otherwise
not run live ('# bts-live: no, ...' or 'test-kernel, ...') runs in a
boot of its own, directly (BTS_HARNESS=1).

Each boot's command line carries bts.expect=sw or bts.expect=hw, which
tells the tests (lib.sh) which source they must find armed. The hw
KUnit boot fails a hardware case that skips: there it must run.

Guest tests are tools/testing/selftests/bts/*.sh. Each prints TAP, which
/init writes to the host over 9p. Header lines configure a test:

  # bts-boot: own              boot of its own (oops and panic scenarios)
  # bts-cmdline: ARGS          extra kernel command line for that boot
  # bts-expect: oops,bug,panic,warn,backtrace
                               kernel-log reports it provokes
  # bts-timeout: SECONDS       its time limit (default 300; x3 with DEBUG):
                               a boot of its own, the boot's; a shared
                               test, its own in the shared boot, whose
                               limit is the sum of its tests' (the
                               runner stops a test at its limit and goes
                               on with the next)
  # bts-smp: N                 vCPUs for that boot (a boot of its own)
  # bts-mem: MiB               its RAM (default 1024, 2048 with DEBUG):
                               for a test that names physical addresses
  # bts-disk: MiB              a blank virtio disk of that size, the
                               guest's /dev/vda (a boot of its own; the
                               swap a hibernation image is written to)
  # bts-machines: M ...        where it runs (see above)
  # bts-tap: console           its TAP is on the console, each line
                               prefixed "BTS-TAP: " (tests that suspend)
  # bts-share: kernel          the boot's share holds bzImage and
                               initramfs.cpio.gz (tests that kexec)
  # bts-share: debugger        the boot's share holds vmlinux, the drgn
                               helper and the crash extension (bts.so),
                               and the host's /usr is the
                               read-only 9p tag hostusr (tests that run
                               the host's drgn and crash on the guest's
                               kernel; the test kernel has full DWARF,
                               which crash needs)
  # bts-reboot: yes            QEMU resets on a reboot instead of exiting
                               (RAM is kept): the test runs again in the
                               next boot, and /init powers off at the end
  # bts-live: no, REASON       as a kselftest (make kselftest, or on a
                               machine of one's own) it skips with REASON
  # bts-live: test-kernel, REASON
                               as a kselftest it runs only where
                               bts/test_fault exists and panic_on_oops is
                               0 (it oopses its own process), else skips

A file NAME.host next to NAME.sh is run on the host after the boot, with
the console log and the share folder as arguments (and BTS_EXPECT=sw|hw,
VMLINUX and SYSTEM_MAP in its environment), and prints TAP too: that is
how panic scenarios are judged. A boot that times out, a test
that reports nothing or fewer results than it planned, and any WARNING,
BUG, lockdep, KASAN or UBSAN report in the guest's kernel log that the
scenario did not provoke on purpose, count as failures.

At the end, a table says when each step started and how long it took.
"""
import concurrent.futures
import glob
import os
import re
import shutil
import subprocess
import sys
import threading
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("BUILD", os.path.join(TOP, "build"))
DEBUG = os.environ.get("DEBUG", "0") == "1"
FULL = os.environ.get("FULL", "0") == "1"
VARIANT = "debug" if DEBUG else "test"
TESTS = os.path.join(TOP, "tools/testing/selftests/bts")
OUT = os.path.join(BUILD, "check", VARIANT)
ONLY = os.environ.get("ONLY", "")        # ONLY=regex: run matching boots only
KOBJ = os.path.join(BUILD, "obj-" + VARIANT)
JOBS = os.environ.get("JOBS", str(os.cpu_count() or 2))
# boots (and other one-CPU jobs) at a time: one per core
SLOTS = int(os.environ.get("BOOTS_AT_A_TIME", "2"))

# The machines guest tests boot on: (BTS QEMU?, extra command line, vCPUs,
# extra -cpu properties, extra QEMU options). The debug kernel
# (preemptible, with DEBUG_PREEMPT) boots 4 vCPUs everywhere, so that
# tasks migrate and CPUs contend. hw-cpl-target: the emulated CPU's other
# choice where the SDM is silent (which CPL filters a privilege-changing
# branch, harness/qemu/README.md). The -ss machines: see above.
SINGLESTEP = os.environ.get("SINGLESTEP", "0") == "1"
CPL_TARGET = os.environ.get("CPL_TARGET", "0") == "1"
SS_TIMEOUT = 25 if SINGLESTEP else 4
MACHINES = {
    "sw": (False, "", 4 if DEBUG else 2, "", ""),
    "hw": (True, "", 4 if DEBUG else 2, "", ""),
    "hw-nopti-4": (True, "nopti", 4, "", ""),
    "hw-cpl-target": (True, "", 4 if DEBUG else 2, ",bts-cpl-target=on", ""),
    "hw-nopti-cpl-target": (True, "nopti", 4, ",bts-cpl-target=on", ""),
    "hw-ss": (True, "", 4 if DEBUG else 2, "", "-singlestep"),
    "hw-nopti-ss": (True, "nopti", 2, "", "-singlestep"),
}
SHARED_MACHINES = ["sw", "hw", "hw-nopti-4", "hw-cpl-target"]
# SINGLESTEP=1: every test of these machines also runs on its -ss one
SS_OF = {"hw": "hw-ss", "hw-nopti-4": "hw-nopti-ss"}
# CPL_TARGET=1: every test of these machines also runs on its cpl-target one
CPL_OF = {"hw": "hw-cpl-target", "hw-nopti-4": "hw-nopti-cpl-target"}
# a test's time limit when its header gives none; the time a boot takes
# before and after its tests (the kernel boots in some 5 s, the runner's
# copy of the kselftest)
DEFAULT_TIMEOUT = 300
BOOT_OVERHEAD = 120
# a test of the shared runner that only skips (bts-live: no)
SKIP_BUDGET = 60

results = []
RECORD_LOCK = threading.Lock()


def record(name, ok, detail="", skip=False):
    with RECORD_LOCK:
        _record(name, ok, detail, skip)


def _record(name, ok, detail="", skip=False):
    results.append((name, ok, skip))
    word = "ok" if ok else "FAIL"
    if skip:
        word = "skip"
    line = f"[{word:4}] {name}"
    if detail and (not ok or skip):
        line += f": {detail}"
    print(line, flush=True)


def run_step(name, cmd, log):
    """Run a build step; on failure record it with the lines that say why."""
    t0 = time.time()
    with open(log, "w") as f:
        p = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=TOP)
    timeline.append((name, t0 - T0, time.time() - t0))
    text = open(log).read()
    if p.returncode != 0:
        why = [l for l in text.splitlines() if "error" in l.lower()]
        why = why[-3:] or text.splitlines()[-3:]
        record(name, False, " | ".join(why) + f" (log: {log})")
        return False
    record(name, True)
    print(f"       {name} took {time.time() - t0:.0f} s", flush=True)
    return True


TAP_RE = re.compile(r"^(not ok|ok)\b\s*(\d+)?\s*(?:-\s*)?(.*)$")


def parse_tap(text, prefix, allow_short=False):
    """Record TAP results; check the plan. Returns the number of results."""
    plan = None
    n = 0
    for line in text.splitlines():
        line = line.rstrip()
        m = re.match(r"^1\.\.(\d+)", line)
        if m:
            plan = int(m.group(1))
            continue
        m = TAP_RE.match(line)
        if not m:
            continue
        n += 1
        desc = m.group(3)
        skip = re.search(r"#\s*SKIP\b(.*)", desc, re.I)
        name = prefix + ": " + re.sub(r"\s*#.*$", "", desc)
        if skip:
            record(name, True, skip.group(1).strip(), skip=True)
        else:
            record(name, m.group(1) == "ok")
    if plan is None and n == 0:
        if not allow_short:
            record(f"{prefix}: reported nothing", False)
    elif plan is None and not allow_short:
        record(f"{prefix}: no TAP plan", False, "stopped before the end?")
    elif plan is not None and n != plan and not allow_short:
        record(f"{prefix}: planned {plan} results, got {n}", False,
               "crashed or stopped early")
    return n


TS_RE = re.compile(r"^\[\s*\d+\.\d+\]\s?")


def strip_ts(line):
    return TS_RE.sub("", line.rstrip("\r\n"))


def parse_ktap(console, prefix, must_run=None):
    """Record each KUnit case of the KTAP on the console.

    A skipped case whose suite.case matches the regex must_run fails."""
    plan = None
    suites = 0
    cases = 0
    suite = None
    for raw in console.splitlines():
        line = strip_ts(raw)
        if re.match(r"^1\.\.(\d+)$", line):
            plan = int(line[3:])
            continue
        m = re.match(r"^    # Subtest: (\S+)", line)
        if m:
            suite = m.group(1)
            continue
        m = re.match(r"^( *)(not ok|ok) (\d+) (\S+)(.*)$", line)
        if not m:
            continue
        indent = len(m.group(1))
        if indent == 0:
            suites += 1
            continue
        if indent != 4:
            continue
        cases += 1
        rest = m.group(5)
        skip = re.search(r"#\s*SKIP\b(.*)", rest)
        name = f"{prefix}: {suite}.{m.group(4)}"
        if skip and must_run and re.search(must_run, f"{suite}.{m.group(4)}"):
            record(name, False, "skipped where it must run: " +
                   (skip.group(1).strip() or "skipped"))
        elif skip:
            record(name, True, skip.group(1).strip() or "skipped", skip=True)
        else:
            record(name, m.group(2) == "ok")
    if plan is None:
        record(f"{prefix}: no KTAP output", False)
    elif suites != plan:
        record(f"{prefix}: planned {plan} suites, got {suites}", False,
               "the kernel crashed or hung during KUnit")
    return cases


BAD = re.compile(r"(WARNING:|BUG:|KASAN:|UBSAN:|possible circular locking|"
                 r"inconsistent lock state|possible recursive locking|"
                 r"Oops|general protection fault|kernel BUG at|"
                 r"Kernel panic|Call Trace:|int3|unchecked MSR access error)")
ALLOWED = {
    "oops": r"(Oops|BUG: unable to handle|BUG: kernel NULL pointer|"
            r"general protection fault|Call Trace:|Kernel panic - not syncing: Fatal exception|"
            # KASAN's hint on a #GP at a non-canonical address, part of the oops
            r"KASAN: (null-ptr-deref|probably user-memory-access|maybe wild-memory-access) in range)",
    "bug": r"(kernel BUG at|Oops|invalid opcode|Call Trace:|"
           r"Kernel panic - not syncing: Fatal exception)",
    "panic": r"(Kernel panic|Call Trace:)",
    "warn": r"(WARNING:|Call Trace:)",
    # NMI backtraces asked for on purpose (sysrq-l: NMIs on demand)
    "backtrace": r"Call Trace:",
}


# What the kernel says of the emulated CPU model itself (a Skylake, by
# CPUID affected by RETBleed), not of bts: allowed on the BTS machines.
HW_ALLOWED = r"RETBleed: WARNING: Spectre v2 mitigation leaves CPU vulnerable to RETBleed attacks"


def tk_panic_lockdep(lines):
    """The line numbers of lockdep reports that are panic()'s own.

    66-persist-timekeeping panics inside a timekeeping write section on
    purpose. panic()'s first printk then takes console_owner with the
    timekeeper's seqcount held, and lockdep reports a circular
    dependency: on any kernel, with or without bts (panic() prints before
    it turns lockdep off). Only exactly that report is allowed: the lock
    taken is console_owner, the one held tk_core.seq.seqcount, and
    panic() was called from the test's hook. bts's own panic hook runs
    before that printk, while lockdep still reports."""
    ok = set()
    for i, line in enumerate(lines):
        if "possible circular locking dependency detected" not in line:
            continue
        block = []
        for later in lines[i + 1:i + 400]:
            if "stack backtrace:" in later:
                break
            block.append(later)
        text = "\n".join(block)
        if (re.search(r"is trying to acquire lock:\n.*\(console_owner\)", text)
                and re.search(r"already holding lock:\n.*\(tk_core\.seq\.seqcount\)", text)
                and re.search(r"-> #0 \(console_owner\)(.*\n)*?.*panic\+(.*\n).*bts_test_tk_notify", text)):
            ok.add(i)
    return ok


def check_kernel_log(console, prefix, expect, hw=False):
    allowed = [re.compile(ALLOWED[e]) for e in expect if e in ALLOWED]
    if hw:
        allowed.append(re.compile(HW_ALLOWED))
    lines = [strip_ts(raw) for raw in console.splitlines()]
    tk_ok = tk_panic_lockdep(lines) if "tk-panic" in expect else set()
    bad = []
    for i, line in enumerate(lines):
        if not BAD.search(line) or line.startswith("BTS-GUEST") or "# " in line[:8]:
            continue
        if i in tk_ok:
            continue
        if any(a.search(line) for a in allowed):
            continue
        bad.append(line.strip())
    if bad:
        record(f"{prefix}: kernel log clean", False, " | ".join(bad[:3]))
    else:
        record(f"{prefix}: kernel log clean", True)


def directives(path):
    d = {"boot": "shared", "cmdline": "", "expect": "", "timeout": "",
         "machines": "", "tap": "file", "share": "", "smp": "", "reboot": "",
         "mem": "", "live": "", "disk": ""}
    with open(path) as f:
        # the header: the comment lines before the first command
        for line in f.read().splitlines():
            if line and not line.startswith("#"):
                break
            m = re.match(r"^# bts-(\w+):\s*(.*)$", line)
            if m:
                d[m.group(1)] = m.group(2).strip()
    return d


def scale(secs, machine):
    """A time limit as the kernel and the machine make it: x3 on the
    debug kernel, x4 (SINGLESTEP=1: x25) under -singlestep."""
    secs = secs * (3 if DEBUG else 1)
    if MACHINES[machine][4] == "-singlestep":
        secs = secs * SS_TIMEOUT
    return secs


def expects(d):
    return [e.strip() for e in d["expect"].split(",") if e.strip()]


class Boot:
    """One QEMU boot. tests: the tests it runs and reports (their host
    halves run after it); ksft: for a boot through kselftest's runner,
    every test the runner runs, as (test, time limit in the guest,
    label), the tests' own and the live halves of the others."""

    def __init__(self, name, tests, append="", expect=(), timeout=DEFAULT_TIMEOUT,
                 kunit=False, machine="sw", smp=None, reboot=False, mem=None,
                 ksft=None, disk=None):
        hw, extra, msmp, self.cpu_extra, self.qemu_extra = MACHINES[machine]
        smp = smp or msmp
        if machine != "sw":
            name = f"{machine}-{name}"
        self.name = name
        self.tests = tests
        self.machine = machine
        self.hw = hw
        self.smp = smp
        self.append = (f"bts.expect={'hw' if hw else 'sw'} bts.cpus={smp} "
                       f"{extra} {append}").strip()
        self.expect = list(expect)
        self.ksft = ksft
        if ksft is not None:
            # the runner stops each test at its own limit: the boot's is
            # theirs added up
            timeout = BOOT_OVERHEAD + sum(b for _, b, _ in ksft)
        else:
            timeout = scale(timeout, machine)
        if self.qemu_extra == "-singlestep":
            # the kernel alone boots in 129 s against 5 s
            timeout += 300
        self.timeout = timeout
        self.kunit = kunit
        self.reboot = reboot
        self.mem = mem
        self.disk = disk
        if reboot:
            # /init powers off at the end instead of rebooting
            self.append += " bts.reboot=1"
        self.dir = os.path.join(OUT, name)
        self.rc = None
        self.secs = 0

    def bzimage(self):
        return os.environ.get("BZIMAGE", os.path.join(KOBJ, "arch/x86/boot/bzImage"))

    def run(self):
        os.makedirs(self.dir, exist_ok=True)
        for f in glob.glob(os.path.join(self.dir, "*")):
            if os.path.isfile(f):
                os.unlink(f)
        if self.ksft is not None:
            append = ("bts.tests=kselftest bts.ksft=" +
                      ",".join(f"{t}:{b}" for t, b, _ in self.ksft) + " " + self.append)
        else:
            tests = ",".join(self.tests) if self.tests else "none"
            append = f"bts.tests={tests} {self.append}".strip()
        if os.environ.get("SWITCH_ROUNDS"):
            append += f" bts.switch_rounds={int(os.environ['SWITCH_ROUNDS'])}"
            self.timeout = max(self.timeout, 60 * int(os.environ["SWITCH_ROUNDS"]))
        elif DEBUG:
            # The reliability figures of Documentation/trace/bts.rst: 100
            # tracer switches, 50 CPU offline/online cycles.
            append += " bts.switch_rounds=20"
        if DEBUG:
            append += " bts.hotplug_cycles=50"
        if not self.kunit:
            append += " kunit.enable=0"
        host_usr = []
        if self.ksft is not None:
            shutil.copytree(os.path.join(BUILD, "kselftest"), os.path.join(self.dir, "kselftest"),
                            dirs_exist_ok=True)
        for t in self.tests:
            if directives(os.path.join(TESTS, t))["share"] == "debugger":
                shutil.copy(os.path.join(KOBJ, "vmlinux"), os.path.join(self.dir, "vmlinux"))
                shutil.copy(os.path.join(TOP, "tools/bts-dump/drgn/bts.py"),
                            os.path.join(self.dir, "bts.py"))
                # the crash extension, where crash is installed to build it
                so = os.path.join(TOP, "tools/bts-dump/crash/bts.so")
                with BUILD_LOCK:
                    built = subprocess.run(["make", "-s", "-C", os.path.join(TOP, "tools/bts-dump"),
                                            "crash-extension"], capture_output=True).returncode == 0
                if built:
                    shutil.copy(so, os.path.join(self.dir, "bts.so"))
                host_usr = ["--host-usr"]
            if directives(os.path.join(TESTS, t))["share"] == "kernel":
                shutil.copy(self.bzimage(), os.path.join(self.dir, "bzImage"))
                shutil.copy(os.environ.get("INITRAMFS", os.path.join(BUILD, "initramfs.cpio.gz")),
                            os.path.join(self.dir, "initramfs.cpio.gz"))
        t0 = time.time()
        # KVARIANT too: run-vm.sh boots build/obj-$KVARIANT, and check.py
        # may be run directly, without the Makefile's exports.
        env = dict(os.environ, BTS_HW="1" if self.hw else "0", KVARIANT=VARIANT,
                   BZIMAGE=self.bzimage(),
                   BTS_CPU_EXTRA=self.cpu_extra, BTS_QEMU_EXTRA=self.qemu_extra)
        p = subprocess.run([os.path.join(TOP, "harness/run-vm.sh"),
                            "--share", self.dir,
                            "--log", os.path.join(self.dir, "console.log"),
                            "--timeout", str(self.timeout),
                            "--smp", str(self.smp)] +
                           (["--reboot"] if self.reboot else []) + host_usr +
                           (["--mem", str(self.mem)] if self.mem else []) +
                           (["--disk", str(self.disk)] if self.disk else []) +
                           ["--append", append], env=env)
        self.rc = p.returncode
        self.secs = time.time() - t0
        return self


def run_host_half(boot, t, label, log):
    name = t[:-3]
    host = os.path.join(TESTS, name + ".host")
    if not os.path.exists(host):
        return
    env = dict(os.environ, BTS_EXPECT="hw" if boot.hw else "sw",
               VMLINUX=os.path.join(KOBJ, "vmlinux"),
               SYSTEM_MAP=os.path.join(KOBJ, "System.map"))
    p = subprocess.run([host, log, boot.dir], capture_output=True,
                       text=True, env=env)
    parse_tap(p.stdout, label + " (host)")
    if p.returncode != 0 and p.stderr:
        print(p.stderr[-1000:])


def test_label(boot, t, live=False):
    name = t[:-3] if t.endswith(".sh") else t
    if live:
        name += " (live)"
    return name if boot.machine == "sw" else f"{boot.machine}: {name}"


def parse_runner(boot, console):
    """What kselftest's runner printed in the guest, one invocation per
    test (run_kselftest.sh -t bts:TEST -o LIMIT): each test's own TAP,
    nested in the runner's ("# " before each line), checked like a
    directly run test's; the runner's verdict on it; and that the runner
    gave a verdict for every test it was asked to run."""
    out = os.path.join(boot.dir, "kselftest.tap")
    text = open(out, errors="replace").read() if os.path.exists(out) else ""
    blocks = {}
    cur = None
    for line in text.splitlines():
        m = re.match(r"^# selftests: bts: (\S+)$", line)
        if m:
            cur = m.group(1)
            blocks[cur] = {"lines": [], "verdict": None}
            continue
        m = re.match(r"^(not ok|ok) \d+ selftests: bts: (\S+)(.*)$", line)
        if m and m.group(2) in blocks:
            blocks[m.group(2)]["verdict"] = (m.group(1), m.group(3))
            cur = None
            continue
        if cur and line.startswith("# "):
            blocks[cur]["lines"].append(line[2:])
    times = dict(re.findall(r"BTS-GUEST: (\S+) exited \d+ after (\d+) s", console))
    missing = []
    for t, budget, role in boot.ksft:
        label = test_label(boot, t, live=role == "live")
        b = blocks.get(t)
        if not b or not b["verdict"]:
            missing.append(t)
            if b:
                parse_tap("\n".join(b["lines"]), label)
            continue
        status, rest = b["verdict"]
        body = "\n".join(b["lines"])
        skipall = re.search(r"^1\.\.0 # SKIP (.*)$", body, re.M)
        if skipall:
            record(f"{label}: kselftest", status == "ok", skipall.group(1), skip=True)
            continue
        parse_tap(body, label)
        why = ""
        if re.search(r"#\s*TIMEOUT", rest):
            why = f"stopped at its limit, {budget} s"
        elif "exit=143" in rest:
            why = f"killed by SIGTERM: at its limit of {budget} s?"
        elif status != "ok":
            why = rest.strip() or "the runner says not ok"
        took = f" in {times[t]} s" if t in times else ""
        record(f"{label}: kselftest's runner says ok{took}", status == "ok", why)
    record(f"{boot.name}: the kselftest runner gave a verdict on every test "
           f"({len(boot.ksft)})", not missing,
           "none on " + " ".join(missing[:5]) if missing else "")


def evaluate(boot):
    prefix = f"{boot.name}"
    log = os.path.join(boot.dir, "console.log")
    console = open(log, errors="replace").read() if os.path.exists(log) else ""
    print(f"       boot {boot.name}: {boot.secs:.0f} s (limit {boot.timeout} s), "
          f"console {log}", flush=True)
    if boot.rc in (124, 137):
        record(f"{prefix}: boot finished within {boot.timeout} s", False,
               "timed out (hung guest?)")
    elif boot.rc != 0:
        record(f"{prefix}: qemu exited cleanly", False, f"exit status {boot.rc}")
    if boot.kunit:
        parse_ktap(console, boot.name,
                   must_run=r"^intel_bts_hw\." if boot.hw else None)
    panicking = "panic" in boot.expect
    if boot.ksft is not None:
        parse_runner(boot, console)
    for t in boot.tests:
        label = test_label(boot, t)
        if boot.ksft is None:
            tap = os.path.join(boot.dir, t + ".tap")
            text = open(tap, errors="replace").read() if os.path.exists(tap) else ""
            if directives(os.path.join(TESTS, t))["tap"] == "console":
                text = "\n".join(l.split("BTS-TAP: ", 1)[1]
                                 for l in console.splitlines() if "BTS-TAP: " in l)
            parse_tap(text, label, allow_short=panicking)
            err = os.path.join(boot.dir, t + ".err")
            if os.path.exists(err) and os.path.getsize(err) and not text:
                print(f"       {t} stderr: {open(err).read()[-500:]}")
        run_host_half(boot, t, label, log)
    if boot.hw:
        # The emulated CPU stops the machine where silicon is undefined (a
        # BTS store that cannot be made) and says so: stderr on the
        # console log, and -D's qemu.log.
        qlog = os.path.join(boot.dir, "qemu.log")
        qtext = open(qlog, errors="replace").read() if os.path.exists(qlog) else ""
        fatal = [l for l in (console + "\n" + qtext).splitlines() if "BTS: fatal" in l]
        record(f"{prefix}: the emulated CPU met nothing undefined (no 'BTS: fatal' "
               "in QEMU's log)", not fatal, fatal[0] if fatal else "")
    if "BTS-GUEST: done" not in console and not panicking and not boot.kunit:
        record(f"{prefix}: guest ran to the end", False,
               "no 'BTS-GUEST: done' on the console")
    check_kernel_log(console, prefix, boot.expect, boot.hw)


def bve_check(mode):
    """The records the emulated BTS stored equal the taken branches of
    QEMU's single-step execution log of the same run: ring mode (one
    vCPU, the snapshot and the oops capture) and the tests' stream mode
    (two vCPUs, BTS interrupts, each CPU against its own execution)."""
    name = "hw-bts-vs-exec" + ("-stream" if mode == "stream" else "")
    out = os.path.join(OUT, name)
    t0 = time.time()
    env = dict(os.environ, MODE=mode, WINDOWS="1" if mode == "stream" else "4")
    p = subprocess.run([os.path.join(TOP, "tools/measure/bts-vs-exec.sh"), out],
                       capture_output=True, text=True, timeout=1200, env=env)
    with open(os.path.join(OUT, name + ".log"), "w") as f:
        f.write(p.stdout + p.stderr)
    print(f"       {name}: {time.time() - t0:.0f} s, log "
          f"{os.path.join(OUT, name + '.log')}", flush=True)
    for line in p.stdout.splitlines():
        m = re.match(r"^window (\d+)( CPU \d+)?: .* (\d+) mismatches", line)
        if m:
            record(f"{name}: window {m.group(1)}{m.group(2) or ''} matches the exec "
                   "log record for record", m.group(3) == "0", line)
    last = (p.stdout.strip().splitlines() or [""])[-1]
    record(f"{name}: at least 10,000 records compared, no mismatch",
           p.returncode == 0, last or p.stderr.strip()[-300:])
    print(f"       {last}", flush=True)
    # the exec logs are gigabytes: keep them only when something failed
    if p.returncode == 0:
        for f in os.listdir(out):
            if f.startswith("exec-") and f.endswith(".log"):
                os.unlink(os.path.join(out, f))


def checkpatch_files():
    """checkpatch --strict: no errors or warnings in the project's kernel files,
    as the test kernel is built from them (the series' markers stripped)."""
    cp = os.path.join(BUILD, "linux/scripts/checkpatch.pl")
    files = subprocess.run(["git", "ls-files", "--", "arch", "include", "kernel"],
                           cwd=TOP, capture_output=True, text=True).stdout.split()
    for f in sorted(x for x in files if x.endswith((".c", ".h"))):
        p = subprocess.run(["perl", cp, "--strict", "--no-tree", "--terse",
                            "--show-types", "-f", f], cwd=os.path.join(BUILD, "linux"),
                           capture_output=True, text=True)
        bad = [l for l in p.stdout.splitlines()
               if re.search(r": (ERROR|WARNING|CHECK):", l)]
        record(f"host: checkpatch --strict {f}", not bad, " | ".join(bad[:2]))
        # kernel-doc -Wall: every documented function's parameters and
        # return value, every member of a documented struct and enum
        p = subprocess.run(["perl", "scripts/kernel-doc", "-Wall", "-none", f],
                           cwd=os.path.join(BUILD, "linux"), capture_output=True, text=True)
        bad = [l for l in (p.stdout + p.stderr).splitlines() if "warning" in l]
        record(f"host: kernel-doc -Wall {f}", p.returncode == 0 and not bad,
               " | ".join(bad[:2]) or f"exit {p.returncode}")


T0 = time.time()
# (step, start, seconds): the table printed at the end
timeline = []
# make in tools/bts-dump from more than one thread at a time
BUILD_LOCK = threading.Lock()


def timed(name, fn, *args):
    t = time.time()
    try:
        return fn(*args)
    finally:
        timeline.append((name, t - T0, time.time() - t))


class Pool:
    """Jobs on SLOTS cores, each taking `cores` of them (a boot one, a
    build with -j2 two): whenever cores are free, the longest job (by
    its estimate) that fits starts, so that the last ones to finish are
    short and the cores end together. A job's `then` returns the jobs
    its end makes possible (the host halves of a boot), as (name, fn,
    est) triples; they join the queue then, ahead of the jobs waiting
    (they are short, and run at the end they would end alone)."""

    def __init__(self, slots):
        self.slots = slots
        self.jobs = []

    def add(self, name, fn, est, cores=1, then=None):
        self.jobs.append({"name": name, "fn": fn, "est": est,
                          "cores": min(cores, self.slots), "then": then})

    def run(self):
        free = self.slots
        cv = threading.Condition()
        todo = list(self.jobs)
        running = 0

        def work(job):
            nonlocal free, running
            more = []
            try:
                timed(job["name"], job["fn"])
                if job["then"]:
                    more = [{"name": n, "fn": f, "est": e, "cores": 1, "then": None,
                             "next": True} for n, f, e in job["then"]()]
            except Exception as e:  # a harness bug: say so, go on
                record(f"{job['name']}: the harness ran it", False, repr(e))
            with cv:
                todo.extend(more)
                free += job["cores"]
                running -= 1
                cv.notify_all()

        with cv:
            while todo or running:
                todo.sort(key=lambda j: (not j.get("next"), -j["est"]))
                job = next((j for j in todo if j["cores"] <= free), None)
                if job is None:
                    cv.wait()
                    continue
                todo.remove(job)
                free -= job["cores"]
                running += 1
                threading.Thread(target=work, args=(job,), daemon=True).start()


def host_tests():
    if not run_step("host: build tools/bts-dump", ["make", "-s", "tools"],
                    os.path.join(OUT, "tools.log")):
        return False
    # crash's bts command, for the host halves that open crash dumps
    # (built once here, before they run side by side; where crash is not
    # installed they say so)
    subprocess.run(["make", "-s", "-C", "tools/bts-dump", "crash-extension"],
                   cwd=TOP, capture_output=True)
    t = time.time()
    p = subprocess.run(["make", "-s", "-C", "tools/bts-dump", "test"],
                       cwd=TOP, capture_output=True, text=True)
    timeline.append(("host: bts-dump tests", t - T0, time.time() - t))
    with open(os.path.join(OUT, "host-tests.log"), "w") as f:
        f.write(p.stdout + p.stderr)
    parse_tap(p.stdout, "host: bts-dump")
    if p.returncode != 0:
        record("host: bts-dump tests exit status", False,
               f"{p.returncode}; {p.stderr.strip()[-300:]}")
    return True


def series_check():
    """The series a maintainer receives: signed off, applies, checkpatch
    (make series-check); check-full builds it at every patch too."""
    build = FULL and not DEBUG
    p = subprocess.run([os.path.join(TOP, "harness/series-check.sh")] +
                       (["--build"] if build else []) + [os.path.join(OUT, "series")],
                       cwd=TOP, capture_output=True, text=True)
    with open(os.path.join(OUT, "series-check.log"), "w") as f:
        f.write(p.stdout + p.stderr)
    parse_tap(p.stdout, "host: series")
    if p.returncode != 0 and "not ok" not in p.stdout:
        record("host: series check exit status", False, p.stderr.strip()[-300:])


def vmlinux_tests():
    vmlinux = os.path.join(KOBJ, "vmlinux")
    with BUILD_LOCK:
        p = subprocess.run(["make", "-s", "-C", "tools/bts-dump",
                            "test-vmlinux", f"VMLINUX={vmlinux}",
                            f"SYSTEM_MAP={os.path.dirname(vmlinux)}/System.map"],
                           cwd=TOP, capture_output=True, text=True)
    if "1.." in p.stdout or "ok" in p.stdout:
        parse_tap(p.stdout, "host: bts-dump vmlinux")
    if p.returncode != 0:
        record("host: bts-dump vmlinux tests exit status", False,
               p.stderr.strip()[-300:])


def machines_of(d, own):
    """Where a test boots: every machine it names in check-full; in make
    check, sw if it names it and the first BTS machine it names."""
    listed = d["machines"].split() or (["sw", "hw"] if own else list(SHARED_MACHINES))
    if not FULL:
        listed = [m for m in listed if m == "sw"] + [m for m in listed if m != "sw"][:1]
    if SINGLESTEP:
        listed = listed + [SS_OF[m] for m in listed if m in SS_OF and SS_OF[m] not in listed]
    if CPL_TARGET:
        listed = listed + [CPL_OF[m] for m in listed if m in CPL_OF and CPL_OF[m] not in listed]
    return listed


def plan_boots():
    boots = [Boot("kunit", [], append="kunit.enable=1", kunit=True,
                  timeout=300, machine=m) for m in ("sw", "hw")]
    shared = {m: [] for m in MACHINES}
    paths = sorted(p for p in glob.glob(os.path.join(TESTS, "*.sh"))
                   if not os.path.basename(p).startswith("lib"))
    skip_live = []
    for path in paths:
        t = os.path.basename(path)
        d = directives(path)
        own = d["boot"] == "own"
        limit = int(d["timeout"] or DEFAULT_TIMEOUT)
        if d["live"].startswith("no,"):
            skip_live.append(t)
        for m in machines_of(d, own):
            if m not in MACHINES:
                record(f"{t}: bts-machines names {m}", False,
                       f"not one of {' '.join(MACHINES)}")
            elif not own:
                if d["live"]:
                    record(f"{t}: a shared test is safe on a live machine", False,
                           "it has a bts-live line: give it a boot of its own")
                else:
                    shared[m].append(t)
            else:
                kw = dict(append=d["cmdline"], expect=expects(d), timeout=limit, machine=m,
                          smp=int(d["smp"]) if d["smp"] else None,
                          reboot=d["reboot"] == "yes",
                          mem=int(d["mem"]) if d["mem"] else None,
                          disk=int(d["disk"]) if d["disk"] else None)
                if not d["live"] or d["live"].startswith("test-kernel,"):
                    # through kselftest's runner, as on a live machine (a
                    # test for test kernels: its live half, in a boot
                    # beside the one that runs it whole)
                    live = bool(d["live"])
                    boots.append(Boot(t[:-3] + ("-live" if live else ""),
                                      [] if live else [t],
                                      ksft=[(t, scale(limit, m), "live" if live else "main")],
                                      **kw))
                if d["live"]:
                    boots.append(Boot(t[:-3], [t], **kw))
    for m, tests in shared.items():
        if not tests:
            continue
        # the shared tests, and the runner's skips of those that must not
        # run on a live machine (each says why)
        ksft = [(t, scale(int(directives(os.path.join(TESTS, t))["timeout"] or DEFAULT_TIMEOUT), m),
                 "main") for t in tests]
        ksft += [(t, scale(SKIP_BUDGET, m), "live") for t in skip_live]
        ksft.sort()
        expect = sorted({e for t in tests for e in expects(directives(os.path.join(TESTS, t)))})
        boots.append(Boot("shared", tests, machine=m, ksft=ksft, expect=expect))
    return boots


BTS_LINE = re.compile(rb" cpu=[0-9]+ [0-9]+/[0-9]+ [^ ]+ -> [^ ]+")


def post_boot_jobs(boot):
    """bts-dump on what a boot left (its console log, its trace.dat
    files): jobs for the pool, run as soon as the boot has ended, beside
    the boots still running."""
    if DEBUG:
        return []
    jobs = []
    d = os.path.join(OUT, boot.name)

    # bts-dump on the console log, where ftrace_dump_on_oops printed
    # bts entries
    log = os.path.join(d, "console.log")
    try:
        with open(log, "rb") as f:
            has_bts = BTS_LINE.search(f.read()) is not None
    except OSError:
        has_bts = False
    if has_bts:
        def console(log=log):
            p = subprocess.run(["make", "-s", "-C", "tools/bts-dump", "test-console",
                                "CONSOLE_LOGS=" + log,
                                f"SYSTEM_MAP={os.path.join(KOBJ, 'System.map')}",
                                f"VMLINUX={os.path.join(KOBJ, 'vmlinux')}"],
                               cwd=TOP, capture_output=True, text=True)
            parse_tap(p.stdout, "host: bts-dump console", allow_short=True)
            if p.returncode != 0:
                record(f"host: bts-dump console tests exit status ({boot.name})", False,
                       p.stderr.strip()[-300:])
        jobs.append((f"host: bts-dump on {boot.name}'s console log", console, 10))

    # The trace-cmd report plugin, on the trace.dat the guest recorded.
    dat = os.path.join(d, "trace.dat")
    if boot.name == "shared" and os.path.exists(dat):
        def plugin(dat=dat):
            p = subprocess.run(["make", "-s", "-C", "tools/bts-dump",
                                "test-plugin", f"TRACE_DAT={dat}"],
                               cwd=TOP, capture_output=True, text=True)
            parse_tap(p.stdout, "host: bts-dump trace-cmd plugin")
            if p.returncode != 0:
                record("host: bts-dump plugin tests exit status", False,
                       p.stderr.strip()[-300:])
        jobs.append(("host: the trace-cmd plugin on shared's trace.dat", plugin, 10))

    # bts-dump reading the guests' trace.dat (software and hardware
    # records, and 16-stream's software and hardware streams), against
    # trace-cmd report; and their records as console text, read back
    # with the low bits the kernel prints (every address exact) and
    # without them, as older kernels printed it (every wrong address
    # marked ambiguous).
    name = {"shared": "trace.dat", "hw-shared": "trace.dat",
            "16-stream": "stream.dat", "hw-16-stream": "stream.dat"}.get(boot.name)
    dat = os.path.join(d, name or "-")
    if name and os.path.exists(dat):
        def tracedat(dat=dat, name=name):
            p = subprocess.run(["make", "-s", "-C", "tools/bts-dump",
                                "test-tracedat", f"TRACE_DAT={dat}",
                                f"VMLINUX={os.path.join(KOBJ, 'vmlinux')}"],
                               cwd=TOP, capture_output=True, text=True)
            parse_tap(p.stdout, f"host: bts-dump {name} ({boot.name})")
            if p.returncode != 0:
                record(f"host: bts-dump {name} tests exit status ({boot.name})", False,
                       p.stderr.strip()[-300:])
        jobs.append((f"host: bts-dump on {boot.name}'s {name}", tracedat, 30))
    return jobs


def print_timeline(total):
    print(f"\n== where the time went ({'check-full' if FULL else 'check'}, "
          f"{VARIANT} kernel, {SLOTS} at a time)")
    print(f"{'start':>7} {'took':>6}  step")
    for name, start, secs in sorted(timeline, key=lambda x: x[1]):
        print(f"{start:7.0f} {secs:6.0f}  {name}")
    boot_secs = sum(s for n, _, s in timeline if n.startswith("boot "))
    print(f"{'':7} {boot_secs:6.0f}  boots added up ({boot_secs / max(total, 1):.1f} cores' worth "
          "of the whole run)")
    print(f"{'':7} {total:6.0f}  total, wall clock")


def main():
    os.makedirs(OUT, exist_ok=True)
    print(f"== bts {'check-full' if FULL else 'check'} ({VARIANT} kernel), logs in {OUT}",
          flush=True)

    # The host tests, the kernel and the QEMU that emulates BTS (without
    # it the hw boots cannot run), side by side: each build runs -j$JOBS,
    # and fills the other's single-threaded stretches (unpacking, configure,
    # the final link).
    with concurrent.futures.ThreadPoolExecutor(max_workers=3) as ex:
        f_host = ex.submit(host_tests) if not ONLY else None
        f_kernel = ex.submit(run_step, f"build: {VARIANT} kernel (overlay, patches/steps, config)",
                             ["make", "-s", "kernel", f"DEBUG={int(DEBUG)}"],
                             os.path.join(OUT, "kernel.log"))
        f_qemu = ex.submit(run_step, "build: BTS QEMU (harness/qemu, make qemu)",
                           ["make", "-s", "qemu"], os.path.join(OUT, "qemu.log"))
        ok = f_kernel.result()
        hw_ok = f_qemu.result()
        if f_host:
            f_host.result()
    ok = ok and run_step("build: initramfs", ["make", "-s", "initramfs"],
                         os.path.join(OUT, "initramfs.log"))
    boots = []
    if ok:
        boots = plan_boots()
        if not hw_ok:
            boots = [b for b in boots if not b.hw]
        if ONLY:
            boots = [b for b in boots if re.search(ONLY, b.name)]
        if any(b.ksft is not None for b in boots) and not run_step(
                "build: the bts kselftest (make kselftest)", ["make", "-s", "kselftest"],
                os.path.join(OUT, "kselftest.log")):
            boots = [b for b in boots if b.ksft is None]

        pool = Pool(SLOTS)
        for b in boots:
            def go(b=b):
                b.run()
                evaluate(b)
            pool.add(f"boot {b.name}", go, est=b.timeout,
                     then=lambda b=b: post_boot_jobs(b))
        if not ONLY:
            # the host jobs start before the boots of a test or two (whose
            # limits, their estimates here, are some 300 s): the last jobs
            # to end are then boots of seconds, and the cores end together
            pool.add("host: checkpatch --strict and kernel-doc -Wall, the project's kernel files", checkpatch_files,
                     est=900)
            pool.add("host: series check" + (", built at every patch" if FULL and not DEBUG else ""),
                     series_check, est=900, cores=2 if FULL and not DEBUG else 1)
            if not DEBUG:
                pool.add("host: bts-dump on the test kernel's vmlinux", vmlinux_tests, est=900)
        # The emulated BTS against QEMU's own execution log, record for
        # record (tools/measure/bts-vs-exec.sh; a boot of its own).
        if hw_ok and not DEBUG:
            for mode, nm in (("ring", "hw-bts-vs-exec"), ("stream", "hw-bts-vs-exec-stream")):
                if (FULL or mode == "ring") and (not ONLY or re.search(ONLY, nm)):
                    pool.add(nm, lambda mode=mode: bve_check(mode), est=400)
        pool.run()

    total = time.time() - T0
    passed = sum(1 for _, ok, skip in results if ok and not skip)
    failed = sum(1 for _, ok, _ in results if not ok)
    skipped = sum(1 for _, _, skip in results if skip)
    print_timeline(total)
    if failed:
        print("\nfailed:")
        for name, ok, _ in results:
            if not ok:
                print(f"  {name}")
    print(f"\n== {total:.0f} s")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
