#!/usr/bin/python3
"""Check the emulated BTS record for record against QEMU's execution trace.

The BTS QEMU (harness/qemu) stores a record for every taken branch. This
checks those records against the taken branches derived independently from
QEMU's own single-step execution log of the same run:

  run      boot the test kernel on the BTS QEMU (one vCPU, icount, nokaslr)
           stopped for gdb; the guest (guest-bts-vs-exec.sh) arms bts
           (kernel branches only) and, WINDOWS times, runs `sync` and then
           either reads bts/per_cpu/cpu0/records (odd windows) or oopses
           (lkdtm EXCEPTION, a kernel page fault) and reads the capture
           (even windows), into the share. gdb stops at ksys_sync,
           switches on one-instruction TBs and the exec+int log (one log
           file per window), and switches them off again at
           intel_bts_read_this_cpu, after the snapshot or the capture froze
           BTS. Guest
           time advances 128 ns an instruction (-icount shift=7): the
           250 Hz tick then interrupts the windows every ~31,000
           instructions, whatever the log costs in host time.
  compare  for each window, derive the taken branches from the log and
           compare them with the records the guest read: the newest record
           against the last branch before the WRMSR that froze BTS, and so
           on backwards over every record. Every mismatch is printed.

Deriving a branch from the log (one "Trace" line per instruction, "-d int"
lines for interrupts and exceptions): the instruction at pc is a taken
branch when the next executed pc is not pc + its length, or when it is an
unconditional call, jmp, ret or iret; an interrupt or exception logged
between two instructions is a branch from its IP (the faulting, or the
interrupted, instruction) to the handler; it belongs to the CPU whose
instruction is logged next. REP iterations and re-entered
TBs (the same pc again) are not branches. Only branches whose source is
kernel code are kept: the guest records with BTS_OFF_USR (CPL > 0 filtered
by the CPL of the branch instruction). Instruction lengths come from
capstone on the kernel text saved from guest memory.

Needs /usr/bin/python3 with python3-capstone, gdb and the BTS QEMU.
Exit status 0 when every window matched and at least --min-records were
compared in all.
"""
import argparse
import os
import re
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure import INT, Symbols, free_port  # noqa: E402

KERNEL = 0xffff800000000000
UNCOND = ('call', 'jmp', 'ret', 'iret', 'ljmp', 'lcall', 'syscall', 'sysret',
          'sysexit', 'sysenter')


def run(a):
    syms = Symbols(a.system_map)
    out = os.path.abspath(a.out)
    os.makedirs(out, exist_ok=True)
    share = os.path.join(out, 'share')
    os.makedirs(share, exist_ok=True)
    for d in (out, share):
        for f in os.listdir(d):
            if f.endswith(('.bin', '.log', '.sock', '.txt', '.tap', '.err')):
                os.unlink(os.path.join(d, f))
    with open(os.path.join(share, 'windows'), 'w') as f:
        f.write('%d\n' % a.windows)
    con = os.path.join(out, 'console.log')
    port = free_port()
    append = ('console=ttyS0 loglevel=7 nokaslr panic=-1 panic_on_oops=0 '
              'bts.allow_meltdown=1 kunit.enable=0 bts.tests=bts-vs-exec.sh')
    qemu = [a.qemu, '-L', '/usr/share/seabios', '-L', '/usr/share/qemu',
            '-machine', 'q35', '-accel', 'tcg,thread=single',
            '-cpu', 'Skylake-Client,pmu=on,+ds,+dtes64,+ds-cpl,-pcid,-x2apic,'
            '-tsc-deadline,-hle,-invpcid,-rtm,-rdseed,-3dnowprefetch,-xsavec',
            # guest time advances by instructions, so that the timer tick
            # cannot outrun a guest slowed down by the log, but fast
            # enough that it interrupts the logged windows
            '-icount', 'shift=7', '-smp', '1', '-m', '1024', '-no-reboot',
            '-nic', 'none', '-display', 'none', '-monitor', 'none',
            '-kernel', a.bzimage, '-initrd', a.initrd,
            '-virtfs', 'local,path=%s,mount_tag=host0,security_model=none,id=host0' % share,
            '-serial', 'file:' + con, '-S', '-gdb', 'tcp:127.0.0.1:%d' % port,
            '-append', append]
    lo, hi = syms['_stext'], syms['_etext']
    gdb = ['set pagination off', 'set confirm off', 'set architecture i386:x86-64',
           'target remote 127.0.0.1:%d' % port]
    for w in range(1, a.windows + 1):
        gdb += ['thbreak *0x%x' % syms['ksys_sync'], 'continue']
        if w == 1:
            gdb.append('monitor memsave 0x%x 0x%x "%s/text.bin"' % (lo, hi - lo, out))
        gdb += ['monitor logfile %s/exec-%d.log' % (out, w),
                'monitor singlestep on', 'monitor log exec,nochain,int',
                'thbreak *0x%x' % syms['intel_bts_read_this_cpu'], 'continue',
                'monitor log none', 'monitor singlestep off',
                'shell echo %d >> "%s/stops.txt"' % (w, out)]
    gdb += ['continue']
    with open(os.path.join(out, 'gdb.cmd'), 'w') as f:
        f.write('\n'.join(gdb) + '\n')
    with open(os.path.join(out, 'qemu.cmd'), 'w') as f:
        f.write(' '.join(qemu) + '\n')
    p = subprocess.Popen(qemu, stdin=subprocess.DEVNULL)
    try:
        time.sleep(1)
        with open(os.path.join(out, 'gdb.log'), 'w') as f:
            g = subprocess.Popen(['gdb', '-nx', '-batch', '-x', os.path.join(out, 'gdb.cmd')],
                                 stdout=f, stderr=subprocess.STDOUT)
            t = time.time() + a.timeout
            while g.poll() is None and p.poll() is None:
                if time.time() > t:
                    raise RuntimeError('timed out after %d s (see %s)' % (a.timeout, out))
                time.sleep(0.5)
            # gdb's last continue returns when the guest reboots (-no-reboot)
            p.wait(timeout=max(1, t - time.time()))
    finally:
        for proc in (p, locals().get('g')):
            if proc and proc.poll() is None:
                proc.kill()
                proc.wait()
    stops = open(os.path.join(out, 'stops.txt')).read().split() \
        if os.path.exists(os.path.join(out, 'stops.txt')) else []
    if len(stops) != a.windows:
        raise RuntimeError('only %d of %d windows logged (see %s/gdb.log)' %
                           (len(stops), a.windows, out))


class Code:
    """Instructions of the kernel text saved from guest memory."""

    def __init__(self, path, lo):
        import capstone
        self.cs = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
        self.lo = lo
        self.text = open(path, 'rb').read()
        self.cache = {}

    def insn(self, pc):
        """(length, mnemonic) at pc, or (0, None) outside the text"""
        if pc not in self.cache:
            off = pc - self.lo
            i = None
            if 0 <= off < len(self.text):
                i = next(self.cs.disasm(self.text[off:off + 16], pc, 1), None)
            self.cache[pc] = (i.size, i.mnemonic) if i else (0, None)
        return self.cache[pc]


TRACE = re.compile(r'^Trace (\d+): 0x[0-9a-f]+ \[[0-9a-f]+/([0-9a-f]+)/')


def read_events(log, cpu):
    """[(pc, [interrupt events before the next instruction])] of one CPU.
    An interrupt line belongs to the CPU whose instruction comes next."""
    ev = []
    pending = []
    with open(log, errors='replace') as f:
        for line in f:
            m = TRACE.match(line)
            if m:
                if int(m.group(1)) == cpu:
                    if ev:
                        ev[-1][1].extend(pending)
                    ev.append((int(m.group(2), 16), []))
                pending = []
                continue
            m = INT.match(line)
            if m:
                pending.append(dict(vec=int(m.group(1), 16), err=int(m.group(2), 16),
                                    soft=int(m.group(3)), cpl=int(m.group(4)),
                                    ip=int(m.group(5), 16)))
    return ev


def derive(log, code, cpu=0):
    """The taken branches of one CPU in the log, oldest first, as
    (from, to, how), ending at that CPU's WRMSR that froze BTS (its last)."""
    ev = read_events(log, cpu)
    freeze = None
    for i in range(len(ev) - 1, -1, -1):
        if code.insn(ev[i][0])[1] == 'wrmsr':
            freeze = i
            break
    if freeze is None:
        raise RuntimeError('%s: no WRMSR (the freeze) in the log' % log)
    out = []
    unknown = 0
    for i in range(freeze):
        pc, ints = ev[i]
        nxt = ev[i + 1][0]
        size, mn = code.insn(pc)
        if mn is None and pc >= KERNEL:
            unknown += 1
        ran = True
        if ints:
            e = ints[0]
            ip = e['ip']
            if e['vec'] >= 0x20 and not e['soft'] or e['vec'] == 2:
                # asynchronous: pc ran (unless it is the interrupted one),
                # then the CPU left ip for the handler
                if ip == pc:
                    ran = False
                elif ip != pc + size and pc >= KERNEL:
                    out.append((pc, ip, mn))
                if ip >= KERNEL:
                    out.append((ip, nxt, 'int'))
                continue
            # an exception, or INT n: from the instruction itself
            if pc >= KERNEL:
                out.append((pc, nxt, 'exc'))
            continue
        if not ran or nxt == pc:
            continue            # a REP iteration, or a re-entered TB
        if pc < KERNEL:
            continue            # user mode: BTS_OFF_USR
        if nxt != pc + size or (mn and mn.startswith(UNCOND)):
            out.append((pc, nxt, mn))
    return out, unknown


def records(path):
    d = open(path, 'rb').read()
    if d[:7] != b'BTSDUMP':
        raise RuntimeError('%s: not a bts dump' % path)
    hsize, rsize = struct.unpack_from('<HH', d, 10)
    count = struct.unpack_from('<I', d, 20)[0]
    return [struct.unpack_from('<QQQ', d, hsize + i * rsize) for i in range(count)]


# Set by bts when user branches are off and it cleared a record's user
# half (include/linux/bts.h): the return to user mode keeps its kernel
# source, its user-space target reads 0.
BTS_FLAG_USER_CLEARED = 1 << 61


def kernel_only(branch):
    """A branch as bts keeps it with user branches off: user halves 0."""
    return tuple(addr if addr >> 63 else 0 for addr in branch)


def compare(a):
    syms = Symbols(a.system_map)
    code = Code(os.path.join(a.dir, 'text.bin'), syms['_stext'])
    total = bad = 0
    ok = True
    for w in range(1, a.windows + 1):
        log = os.path.join(a.dir, 'exec-%d.log' % w)
        rec = os.path.join(a.dir, 'share', 'records-%d.bin' % w)
        if not os.path.exists(log) or not os.path.exists(rec):
            print('window %d: missing %s' % (w, log if not os.path.exists(log) else rec))
            ok = False
            continue
        der, unknown = derive(log, code)
        r = records(rec)
        kinds = {}
        for _, _, how in der[-len(r):]:
            k = how if how in ('int', 'exc') else 'branch'
            kinds[k] = kinds.get(k, 0) + 1
        n = min(len(r), len(der))
        mism = []
        for k in range(1, n + 1):
            got, flags, want = r[-k][:2], r[-k][2], der[-k][:2]
            # the guest records kernel branches only: a branch to or from
            # user mode has its user half cleared, and is flagged so
            cleared = kernel_only(want) != want
            want = kernel_only(want)
            if got != want or bool(flags & BTS_FLAG_USER_CLEARED) != cleared:
                mism.append((len(r) - k, got, want, der[-k][2]))
        total += n
        bad += len(mism)
        print('window %d: %d records, %d branches derived from %s, %d compared '
              '(%s), %d mismatches%s' % (
                  w, len(r), len(der), os.path.basename(log), n,
                  ', '.join('%d %s' % (v, k) for k, v in sorted(kinds.items())),
                  len(mism), ', %d instructions outside the saved text' %
                  unknown if unknown else ''))
        for idx, got, want, how in mism[:a.show]:
            print('  record %d: BTS %s -> %s, exec log %s -> %s (%s)' % (
                idx, syms.sym(got[0]), syms.sym(got[1]), syms.sym(want[0]),
                syms.sym(want[1]), how))
        if len(mism) > a.show:
            print('  ... %d more' % (len(mism) - a.show))
        if len(r) > len(der):
            print('  the log holds fewer branches than the dump: %d oldest records '
                  'not compared' % (len(r) - len(der)))
        if mism or n < len(r):
            ok = False
    print('compared %d records in %d windows, %d mismatches' % (total, a.windows, bad))
    if total < a.min_records:
        print('fewer than %d records compared' % a.min_records)
        ok = False
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest='cmd', required=True)
    r = sub.add_parser('run')
    r.add_argument('--qemu', required=True)
    r.add_argument('--bzimage', required=True)
    r.add_argument('--initrd', required=True)
    r.add_argument('--system-map', required=True)
    r.add_argument('--out', required=True)
    r.add_argument('--windows', type=int, default=4)
    r.add_argument('--timeout', type=float, default=900)
    c = sub.add_parser('compare')
    c.add_argument('--system-map', required=True)
    c.add_argument('--dir', required=True)
    c.add_argument('--windows', type=int, default=4)
    c.add_argument('--min-records', type=int, default=10000)
    c.add_argument('--show', type=int, default=20)
    a = ap.parse_args()
    if a.cmd == 'run':
        run(a)
        return 0
    return compare(a)


if __name__ == '__main__':
    sys.exit(main())
