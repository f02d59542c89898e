#!/usr/bin/env python3
"""make check: run every bts test and end with 'N passed, N failed'.

Steps, each reported as tests: host tests (tools/bts-dump, TAP), the
kernel build (a patch that does not apply or a compile error fails here,
named), the initramfs, then one QEMU boot per scenario, two at a time:

  kunit     KUnit suites built into the test kernel (KTAP on the console)
  shared    every guest test without '# bts-boot: own', in one boot
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
              (bts-cpl-target=on). In make check the shared tests and the
              tests that name them run there; with CPL_TARGET=1 every
              test of hw and hw-nopti-4 runs on them too
  hw-ss, hw-nopti-ss
              hw, and hw with nopti, under QEMU's -singlestep: one guest
              instruction per translation block, so that interrupts land
              between any two instructions as on silicon, not only at
              block ends. Some 25 times slower: in make check only the
              tests that name them run there (timeouts x4); with
              SINGLESTEP=1 every test of hw and hw-nopti-4 runs on them
              too (timeouts x25)

Each boot's command line carries bts.expect=sw or bts.expect=hw, which
tells the tests (lib.sh) which source they must find armed. The hw
KUnit boot fails a hardware case that skips: there it must run.

Guest tests are tools/testing/selftests/bts/*.sh. Each prints TAP, which
/init writes to the host over 9p. Header lines configure a test:

  # bts-boot: own              boot of its own (oops and panic scenarios)
  # bts-cmdline: ARGS          extra kernel command line for that boot
  # bts-expect: oops,bug,panic,warn,backtrace
                               kernel-log reports it provokes
  # bts-timeout: SECONDS       boot time limit (default 300; x3 with DEBUG)
  # bts-smp: N                 vCPUs for that boot (a boot of its own)
  # bts-mem: MiB               its RAM (default 1024, 2048 with DEBUG):
                               for a test that names physical addresses
  # bts-machines: M ...        where it runs (default: sw hw, and for
                               shared tests hw-nopti-4 and hw-cpl-target
                               too)
  # bts-tap: console           its TAP is on the console, each line
                               prefixed "BTS-TAP: " (tests that suspend)
  # bts-share: kernel          the boot's share holds bzImage and
                               initramfs.cpio.gz (tests that kexec)
  # bts-share: debugger        the boot's share holds vmlinux, the drgn
                               helper and the crash extension (bts.so),
                               and the host's /usr is the
                               read-only 9p tag hostusr (tests that run
                               the host's drgn on the guest's kernel)
  # bts-kernel: dwarf          boot the test kernel built with full DWARF
                               (build/obj-dwarf, make kernel-dwarf), for
                               crash, which refuses reduced debug info
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
"""
import concurrent.futures
import glob
import os
import re
import shutil
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("BUILD", os.path.join(TOP, "build"))
DEBUG = os.environ.get("DEBUG", "0") == "1"
VARIANT = "debug" if DEBUG else "test"
TESTS = os.path.join(TOP, "tools/testing/selftests/bts")
OUT = os.path.join(BUILD, "check", VARIANT)
ONLY = os.environ.get("ONLY", "")        # ONLY=regex: run matching boots only
KOBJ = os.path.join(BUILD, "obj-" + VARIANT)
# The test kernel with full DWARF (make kernel-dwarf): for crash only
DWARF_KOBJ = os.path.join(BUILD, "obj-dwarf")

# The machines guest tests boot on: (BTS QEMU?, extra command line, vCPUs,
# extra -cpu properties, extra QEMU options). The debug kernel
# (preemptible, with DEBUG_PREEMPT) boots 4 vCPUs everywhere, so that
# tasks migrate and CPUs contend. hw-cpl-target: the emulated CPU's other
# choice where the SDM is silent (which CPL filters a privilege-changing
# branch, harness/qemu/README.md): the shared tests, and the tests that
# name it. The -ss machines: see above.
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
DEFAULT_MACHINES = ["sw", "hw", "hw-nopti-4", "hw-cpl-target"]
# SINGLESTEP=1: every test of these machines also runs on its -ss one
SS_OF = {"hw": "hw-ss", "hw-nopti-4": "hw-nopti-ss"}
# CPL_TARGET=1: every test of these machines also runs on its cpl-target one
CPL_OF = {"hw": "hw-cpl-target", "hw-nopti-4": "hw-nopti-cpl-target"}

results = []


def record(name, ok, detail="", skip=False):
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
    d = {"boot": "shared", "cmdline": "", "expect": "", "timeout": "300",
         "machines": "", "tap": "file", "share": "", "smp": "", "reboot": "",
         "mem": "", "kernel": ""}
    with open(path) as f:
        for line in f.read().splitlines()[:30]:
            m = re.match(r"^# bts-(\w+):\s*(.*)$", line)
            if m:
                d[m.group(1)] = m.group(2).strip()
    return d


class Boot:
    def __init__(self, name, tests, append="", expect=(), timeout=300,
                 kunit=False, machine="sw", smp=None, reboot=False, mem=None,
                 kobj=None, kselftest=False):
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
        self.timeout = timeout * (3 if DEBUG else 1)
        if self.qemu_extra == "-singlestep":
            # the kernel alone boots in 129 s against 5 s
            self.timeout = self.timeout * SS_TIMEOUT + 300
        self.kunit = kunit
        self.reboot = reboot
        self.mem = mem
        # the kernel it boots: the check's, or the full-DWARF one
        self.kobj = kobj or KOBJ
        # the kselftest runner over the installed tests (make kselftest)
        self.kselftest = kselftest
        self.variant = os.path.basename(self.kobj)[len("obj-"):]
        if reboot:
            # /init powers off at the end instead of rebooting
            self.append += " bts.reboot=1"
        self.dir = os.path.join(OUT, name)
        self.rc = None
        self.secs = 0

    def bzimage(self):
        if self.kobj == KOBJ:
            return os.environ.get("BZIMAGE", os.path.join(KOBJ, "arch/x86/boot/bzImage"))
        return os.path.join(self.kobj, "arch/x86/boot/bzImage")

    def run(self):
        os.makedirs(self.dir, exist_ok=True)
        for f in glob.glob(os.path.join(self.dir, "*")):
            if os.path.isfile(f):
                os.unlink(f)
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
        if self.kselftest:
            shutil.copytree(os.path.join(BUILD, "kselftest"), os.path.join(self.dir, "kselftest"),
                            dirs_exist_ok=True)
        for t in [] if self.kselftest else self.tests:
            if directives(os.path.join(TESTS, t))["share"] == "debugger":
                shutil.copy(os.path.join(self.kobj, "vmlinux"), os.path.join(self.dir, "vmlinux"))
                shutil.copy(os.path.join(TOP, "tools/bts-dump/drgn/bts.py"),
                            os.path.join(self.dir, "bts.py"))
                # the crash extension, where crash is installed to build it
                so = os.path.join(TOP, "tools/bts-dump/crash/bts.so")
                if subprocess.run(["make", "-s", "-C", os.path.join(TOP, "tools/bts-dump"),
                                   "crash-extension"], capture_output=True).returncode == 0:
                    shutil.copy(so, os.path.join(self.dir, "bts.so"))
                host_usr = ["--host-usr"]
            if directives(os.path.join(TESTS, t))["share"] == "kernel":
                shutil.copy(self.bzimage(), os.path.join(self.dir, "bzImage"))
                shutil.copy(os.environ.get("INITRAMFS", os.path.join(BUILD, "initramfs.cpio.gz")),
                            os.path.join(self.dir, "initramfs.cpio.gz"))
        t0 = time.time()
        # KVARIANT too: run-vm.sh boots build/obj-$KVARIANT, and check.py
        # may be run directly, without the Makefile's exports.
        env = dict(os.environ, BTS_HW="1" if self.hw else "0", KVARIANT=self.variant,
                   BZIMAGE=self.bzimage(),
                   BTS_CPU_EXTRA=self.cpu_extra, BTS_QEMU_EXTRA=self.qemu_extra)
        p = subprocess.run([os.path.join(TOP, "harness/run-vm.sh"),
                            "--share", self.dir,
                            "--log", os.path.join(self.dir, "console.log"),
                            "--timeout", str(self.timeout),
                            "--smp", str(self.smp)] +
                           (["--reboot"] if self.reboot else []) + host_usr +
                           (["--mem", str(self.mem)] if self.mem else []) +
                           ["--append", append], env=env)
        self.rc = p.returncode
        self.secs = time.time() - t0
        return self


def evaluate(boot):
    prefix = f"{boot.name}"
    log = os.path.join(boot.dir, "console.log")
    console = open(log, errors="replace").read() if os.path.exists(log) else ""
    print(f"       boot {boot.name}: {boot.secs:.0f} s, console {log}", flush=True)
    if boot.rc in (124, 137):
        record(f"{prefix}: boot finished within {boot.timeout} s", False,
               "timed out (hung guest?)")
    elif boot.rc != 0:
        record(f"{prefix}: qemu exited cleanly", False, f"exit status {boot.rc}")
    if boot.kunit:
        parse_ktap(console, boot.name,
                   must_run=r"^intel_bts_hw\." if boot.hw else None)
    panicking = "panic" in boot.expect
    if boot.kselftest:
        parse_kselftest(boot)
    for t in boot.tests:
        if boot.kselftest:
            continue
        name = t[:-3] if t.endswith(".sh") else t
        label = name if boot.machine == "sw" else f"{boot.machine}: {name}"
        tap = os.path.join(boot.dir, t + ".tap")
        text = open(tap, errors="replace").read() if os.path.exists(tap) else ""
        if directives(os.path.join(TESTS, t))["tap"] == "console":
            text = "\n".join(l.split("BTS-TAP: ", 1)[1]
                             for l in console.splitlines() if "BTS-TAP: " in l)
        parse_tap(text, label, allow_short=panicking)
        err = os.path.join(boot.dir, t + ".err")
        if os.path.exists(err) and os.path.getsize(err) and not text:
            print(f"       {name} stderr: {open(err).read()[-500:]}")
        host = os.path.join(TESTS, name + ".host")
        if os.path.exists(host):
            env = dict(os.environ, BTS_EXPECT="hw" if boot.hw else "sw",
                       VMLINUX=os.path.join(boot.kobj, "vmlinux"),
                       SYSTEM_MAP=os.path.join(boot.kobj, "System.map"))
            p = subprocess.run([host, log, boot.dir], capture_output=True,
                               text=True, env=env)
            parse_tap(p.stdout, label + " (host)")
            if p.returncode != 0 and p.stderr:
                print(p.stderr[-1000:])
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


def parse_kselftest(boot):
    """The kselftest runner's results in the guest, one per test script,
    and its plan: each test passes, or skips with the reason it gives."""
    label = "kselftest" if boot.machine == "sw" else f"{boot.machine}: kselftest"
    out = os.path.join(boot.dir, "kselftest.tap")
    text = open(out, errors="replace").read() if os.path.exists(out) else ""
    plan = re.search(r"^1\.\.(\d+)$", text, re.M)
    results = re.findall(r"^(not ok|ok) \d+ selftests: bts: (\S+)(.*)$", text, re.M)
    record(f"{label}: the runner ran every test it planned", bool(plan) and
           int(plan.group(1)) == len(results) and len(results) > 0,
           f"plan {plan.group(1) if plan else 'none'}, {len(results)} results")
    for status, name, rest in results:
        skip = re.search(r"#\s*SKIP\b", rest, re.I)
        why = ""
        if skip:
            block = text.split(f"# selftests: bts: {name}", 1)[-1]
            m = re.search(r"^# 1\.\.0 # SKIP (.*)$", block, re.M)
            why = m.group(1) if m else rest.strip()
        if status != "ok":
            # the test's own failures, from its nested TAP
            block = text.split(f"# selftests: bts: {name}", 1)[-1]
            why = " | ".join(l.strip("# ") for l in block.splitlines()
                             if l.startswith("# not ok"))[:300] or rest.strip()
        record(f"{label}: {name}", status == "ok", why, skip=bool(skip))


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


def main():
    os.makedirs(OUT, exist_ok=True)
    t0 = time.time()
    print(f"== bts check ({VARIANT} kernel), logs in {OUT}", flush=True)

    # Host tests.
    if not ONLY:
        if run_step("host: build tools/bts-dump", ["make", "-s", "tools"],
                    os.path.join(OUT, "tools.log")):
            p = subprocess.run(["make", "-s", "-C", "tools/bts-dump", "test"],
                               cwd=TOP, capture_output=True, text=True)
            with open(os.path.join(OUT, "host-tests.log"), "w") as f:
                f.write(p.stdout + p.stderr)
            parse_tap(p.stdout, "host: bts-dump")
            if p.returncode != 0:
                record("host: bts-dump tests exit status", False,
                       f"{p.returncode}; {p.stderr.strip()[-300:]}")

    # The kernel and the initramfs.
    ok = run_step(f"build: {VARIANT} kernel (overlay, patches/steps, config)",
                  ["make", "-s", "kernel", f"DEBUG={int(DEBUG)}"],
                  os.path.join(OUT, "kernel.log"))
    ok = ok and run_step("build: initramfs", ["make", "-s", "initramfs"],
                         os.path.join(OUT, "initramfs.log"))
    # The QEMU that emulates BTS: without it the hw boots cannot run.
    hw_ok = run_step("build: BTS QEMU (harness/qemu, make qemu)",
                     ["make", "-s", "qemu"], os.path.join(OUT, "qemu.log"))

    if ok and not ONLY:
        checkpatch_files()
        # the series a maintainer receives: signed off, applies, checkpatch
        # (make series-check), and it builds at every patch
        t0 = time.time()
        p = subprocess.run([os.path.join(TOP, "harness/series-check.sh")] +
                           ([] if DEBUG else ["--build"]) + [os.path.join(OUT, "series")],
                           cwd=TOP, capture_output=True, text=True)
        print(f"# series check: {time.time() - t0:.0f} s", flush=True)
        parse_tap(p.stdout, "host: series")
        if p.returncode != 0 and "not ok" not in p.stdout:
            record("host: series check exit status", False, p.stderr.strip()[-300:])
    if ok:
        if not ONLY and not DEBUG:
            vmlinux = os.path.join(BUILD, "obj-test/vmlinux")
            p = subprocess.run(["make", "-s", "-C", "tools/bts-dump",
                                "test-vmlinux", f"VMLINUX={vmlinux}",
                                f"SYSTEM_MAP={os.path.dirname(vmlinux)}/System.map"],
                               cwd=TOP, capture_output=True, text=True)
            if "1.." in p.stdout or "ok" in p.stdout:
                parse_tap(p.stdout, "host: bts-dump vmlinux")
            if p.returncode != 0:
                record("host: bts-dump vmlinux tests exit status", False,
                       p.stderr.strip()[-300:])
        boots = [Boot("kunit", [], append="kunit.enable=1", kunit=True,
                      timeout=300, machine=m) for m in ("sw", "hw")]
        shared = {m: [] for m in MACHINES}
        for path in sorted(glob.glob(os.path.join(TESTS, "*.sh"))):
            t = os.path.basename(path)
            if t.startswith("lib"):
                continue
            d = directives(path)
            own = d["boot"] == "own"
            machines = d["machines"].split() or (
                ["sw", "hw"] if own else DEFAULT_MACHINES)
            if SINGLESTEP:
                machines = machines + [SS_OF[m] for m in machines
                                       if m in SS_OF and SS_OF[m] not in machines]
            if CPL_TARGET:
                machines = machines + [CPL_OF[m] for m in machines
                                       if m in CPL_OF and CPL_OF[m] not in machines]
            for m in machines:
                if m not in MACHINES:
                    record(f"{t}: bts-machines names {m}", False,
                           f"not one of {' '.join(MACHINES)}")
                elif own:
                    boots.append(Boot(t[:-3], [t], append=d["cmdline"],
                                      expect=[e.strip() for e in d["expect"].split(",") if e.strip()],
                                      timeout=int(d["timeout"]), machine=m,
                                      smp=int(d["smp"]) if d["smp"] else None,
                                      reboot=d["reboot"] == "yes",
                                      mem=int(d["mem"]) if d["mem"] else None,
                                      kobj=DWARF_KOBJ if d["kernel"] == "dwarf" else None))
                else:
                    shared[m].append(t)
        for m, tests in shared.items():
            if tests:
                boots.append(Boot("shared", tests, timeout=600, machine=m))
        # the tests as a kselftest, through its runner, as on a machine of
        # one's own: the safe ones run, the rest skip with the reason
        # (what the tests it runs provoke on purpose is expected there too:
        # those without a bts-live line, and on the test kernel those that
        # fault through bts/test_fault, "bts-live: test-kernel, ...")
        ks_expect = sorted({e.strip() for path in glob.glob(os.path.join(TESTS, "[0-9]*.sh"))
                            if not directives(path).get("live", "").startswith("no,")
                            for e in directives(path)["expect"].split(",") if e.strip()})
        for m in ("sw", "hw"):
            boots.append(Boot("kselftest", ["kselftest"], timeout=2400, machine=m,
                              kselftest=True, expect=ks_expect))
        if not hw_ok:
            boots = [b for b in boots if not b.hw]
        if ONLY:
            boots = [b for b in boots if re.search(ONLY, b.name)]
        if any(b.kselftest for b in boots) and not run_step(
                "build: the bts kselftest (make kselftest)", ["make", "-s", "kselftest"],
                os.path.join(OUT, "kselftest.log")):
            boots = [b for b in boots if not b.kselftest]
        # The full-DWARF kernel, only for the boots that need it (not with
        # DEBUG=1: that run is the lockdep and KASAN kernel's)
        dwarf = [b for b in boots if b.kobj == DWARF_KOBJ]
        if dwarf and DEBUG:
            boots = [b for b in boots if b not in dwarf]
        elif dwarf and not run_step("build: test kernel with full DWARF, for crash (make kernel-dwarf)",
                                    ["make", "-s", "kernel-dwarf"],
                                    os.path.join(OUT, "kernel-dwarf.log")):
            boots = [b for b in boots if b not in dwarf]
        # Longest first, so that two workers finish together.
        boots.sort(key=lambda b: -b.timeout)
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
            for boot in ex.map(lambda b: b.run(), boots):
                evaluate(boot)
        # The emulated BTS against QEMU's own execution log, record for
        # record (tools/measure/bts-vs-exec.sh; a boot of its own).
        if hw_ok and not DEBUG:
            for mode, nm in (("ring", "hw-bts-vs-exec"), ("stream", "hw-bts-vs-exec-stream")):
                if not ONLY or re.search(ONLY, nm):
                    bve_check(mode)
        # bts-dump on the console logs where ftrace_dump_on_oops printed bts entries:
        # those of this run's boots. Others in OUT are stale (another
        # kernel's build, another System.map: a boot of an earlier run with
        # ONLY, CPL_TARGET=1 or SINGLESTEP=1).
        ran = {b.name for b in boots}
        logs = sorted(glob.glob(os.path.join(OUT, "*", "console.log")))
        logs = [l for l in logs if os.path.basename(os.path.dirname(l)) in ran]
        if not DEBUG and logs:
            p = subprocess.run(["make", "-s", "-C", "tools/bts-dump", "test-console",
                                "CONSOLE_LOGS=" + " ".join(logs),
                                f"SYSTEM_MAP={os.path.join(BUILD, 'obj-test/System.map')}",
                                f"VMLINUX={os.path.join(BUILD, 'obj-test/vmlinux')}"],
                               cwd=TOP, capture_output=True, text=True)
            parse_tap(p.stdout, "host: bts-dump console", allow_short=True)
            if p.returncode != 0:
                record("host: bts-dump console tests exit status", False,
                       p.stderr.strip()[-300:])
        # The trace-cmd report plugin, on the trace.dat the guest recorded.
        dat = os.path.join(OUT, "shared", "trace.dat")
        if not DEBUG and os.path.exists(dat) and (not ONLY or "shared" in ran):
            p = subprocess.run(["make", "-s", "-C", "tools/bts-dump",
                                "test-plugin", f"TRACE_DAT={dat}"],
                               cwd=TOP, capture_output=True, text=True)
            parse_tap(p.stdout, "host: bts-dump trace-cmd plugin")
            if p.returncode != 0:
                record("host: bts-dump plugin tests exit status", False,
                       p.stderr.strip()[-300:])
        # bts-dump reading the guests' trace.dat (software and hardware
        # records, and 16-stream's software and hardware streams), against
        # trace-cmd report; and their records as console text, read back
        # with the low bits the kernel prints (every address exact) and
        # without them, as older kernels printed it (every wrong address
        # marked ambiguous).
        for boot, name in (("shared", "trace.dat"), ("hw-shared", "trace.dat"),
                           ("16-stream", "stream.dat"), ("hw-16-stream", "stream.dat")):
            dat = os.path.join(OUT, boot, name)
            if DEBUG or not os.path.exists(dat) or (ONLY and boot not in ran):
                continue
            p = subprocess.run(["make", "-s", "-C", "tools/bts-dump",
                                "test-tracedat", f"TRACE_DAT={dat}",
                                f"VMLINUX={os.path.join(BUILD, 'obj-test/vmlinux')}"],
                               cwd=TOP, capture_output=True, text=True)
            parse_tap(p.stdout, f"host: bts-dump {name} ({boot})")
            if p.returncode != 0:
                record(f"host: bts-dump {name} tests exit status ({boot})", False,
                       p.stderr.strip()[-300:])

    passed = sum(1 for _, ok, skip in results if ok and not skip)
    failed = sum(1 for _, ok, _ in results if not ok)
    skipped = sum(1 for _, _, skip in results if skip)
    if failed:
        print("\nfailed:")
        for name, ok, _ in results:
            if not ok:
                print(f"  {name}")
    print(f"\n== {time.time() - t0:.0f} s")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
