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
  --mode stream: two vCPUs, the tests' stream mode (BTINT, the BTS
           interrupt every 682 records, drains in an irq_work), user
           branches on (the only user code is tests/bin/workload, static,
           whose text --user-elf gives); each window is a program's
           sync() to its next sync() (gdb logs from one ksys_sync to the
           next), and the
           stream, ftrace's raw text, is compared per CPU with that CPU's
           branches in the log (match_stream() has the method), the
           flags word included.
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
            if f.endswith(('.bin', '.log', '.sock', '.txt', '.tap', '.err',
                           '.counts')):
                os.unlink(os.path.join(d, f))
    with open(os.path.join(share, 'windows'), 'w') as f:
        f.write('%d\n' % a.windows)
    with open(os.path.join(share, 'mode'), 'w') as f:
        f.write(a.mode + '\n')
    stream = a.mode == 'stream'
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
            # enough that it interrupts the logged windows (a PMI raised
            # mid-block needs harness/qemu's patch 0006 under -icount)
            '-icount', 'shift=7',
            '-smp', '2' if stream else '1', '-m', '1024', '-no-reboot',
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
                # ring: the snapshot or capture froze BTS; stream: the
                # window's second sync
                'thbreak *0x%x' % syms['ksys_sync' if stream else
                                       'intel_bts_read_this_cpu'], 'continue',
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
                size = sum(os.path.getsize(os.path.join(out, f)) for f in os.listdir(out)
                           if f.startswith('exec-'))
                if size > a.max_log_gb << 30:
                    raise RuntimeError('the exec logs passed %d GiB (see %s)' %
                                       (a.max_log_gb, out))
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
    """Instructions of the kernel text saved from guest memory, and of
    the executable segments of a static non-PIE user program (the only
    user code the stream windows run)."""

    def __init__(self, path, lo, user_elf=None):
        import capstone
        self.cs = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
        self.regions = [(lo, open(path, 'rb').read())]
        if user_elf:
            self.regions += elf_exec_segments(user_elf)
        self.cache = {}
        self.to_next = set()

    def insn(self, pc):
        """(length, mnemonic) at pc, or (0, None) outside the code"""
        if pc not in self.cache:
            i = None
            for lo, text in self.regions:
                off = pc - lo
                if 0 <= off < len(text):
                    i = next(self.cs.disasm(text[off:off + 16], pc, 1), None)
                    break
            self.cache[pc] = (i.size, i.mnemonic) if i else (0, None)
            if i and i.mnemonic.startswith(('j', 'loop')) and i.mnemonic != 'jmp':
                try:
                    if int(i.op_str, 16) == pc + i.size:
                        self.to_next.add(pc)
                except ValueError:
                    pass
        return self.cache[pc]

    def jcc_to_next(self, pc):
        """Is pc a conditional branch whose target is the next
        instruction? Whether it was taken is not in the log."""
        self.insn(pc)
        return pc in self.to_next


def elf_exec_segments(path):
    """[(vaddr, bytes)] of an ELF64 executable's PT_LOAD segments with
    PF_X (the program headers: e_phoff at 0x20, e_phentsize and e_phnum
    at 0x36)."""
    d = open(path, 'rb').read()
    if d[:5] != b'\x7fELF\x02' or struct.unpack_from('<H', d, 0x10)[0] != 2:
        raise RuntimeError('%s: not a 64-bit ELF executable (ET_EXEC)' % path)
    phoff = struct.unpack_from('<Q', d, 0x20)[0]
    phentsize, phnum = struct.unpack_from('<HH', d, 0x36)
    segs = []
    for k in range(phnum):
        ptype, flags, off, vaddr, _, filesz = struct.unpack_from(
            '<IIQQQQ', d, phoff + k * phentsize)
        if ptype == 1 and flags & 1:
            segs.append((vaddr, d[off:off + filesz]))
    return segs


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


def derive(log, code, cpu=0, freeze=True, user=False):
    """The taken branches of one CPU in the log, oldest first, as
    (from, to, how). With freeze, ending at that CPU's WRMSR that froze
    BTS (its last); without, the whole log, each executed WRMSR (after
    which BTS may be on or off) as (pc, None, 'wrmsr'). Branches whose
    source is in user mode only with user (BTS_OFF_USR clear)."""
    def keep(addr):
        return user or addr >= KERNEL

    ev = read_events(log, cpu)
    end = len(ev) - 1
    if freeze:
        end = None
        for i in range(len(ev) - 1, -1, -1):
            if code.insn(ev[i][0])[1] == 'wrmsr':
                end = i
                break
        if end is None:
            raise RuntimeError('%s: no WRMSR (the freeze) in the log' % log)
    out = []
    unknown = 0
    for i in range(max(end, 0)):
        pc, ints = ev[i]
        nxt = ev[i + 1][0]
        size, mn = code.insn(pc)
        if mn is None and keep(pc):
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
                elif not freeze and mn == 'wrmsr':
                    out.append((pc, None, 'wrmsr'))
                elif ip != pc + size and keep(pc):
                    out.append((pc, ip, mn))
                if keep(ip):
                    out.append((ip, nxt, 'int'))
                continue
            # an exception, or INT n: from the instruction itself. An
            # exception at another instruction than pc (an instruction
            # fetch that faulted at the target of pc's branch: an IRET
            # to a user page not yet mapped) comes after pc ran.
            if not e['soft'] and ip != pc:
                if not freeze and mn == 'wrmsr':
                    out.append((pc, None, 'wrmsr'))
                elif keep(pc) and (ip != pc + size or (mn and mn.startswith(UNCOND))):
                    out.append((pc, ip, mn))
                if keep(ip):
                    out.append((ip, nxt, 'exc'))
                continue
            if keep(pc):
                out.append((pc, nxt, 'exc'))
            continue
        if not ran or nxt == pc:
            continue            # a REP iteration, or a re-entered TB
        if not freeze and mn == 'wrmsr':
            out.append((pc, None, 'wrmsr'))
            continue
        if not keep(pc):
            continue            # user mode: BTS_OFF_USR
        if not freeze and code.jcc_to_next(pc):
            continue            # taken or not: match_stream leaves it out
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


def windows(a, data):
    """The symbols, the saved text, whether every window's files are
    there, and (window, exec log, guest file) of those that are; data is
    the guest file's name with %d for the window."""
    syms = Symbols(a.system_map)
    code = Code(os.path.join(a.dir, 'text.bin'), syms['_stext'],
                getattr(a, 'user_elf', None))
    found, ok = [], True
    for w in range(1, a.windows + 1):
        log = os.path.join(a.dir, 'exec-%d.log' % w)
        dat = os.path.join(a.dir, 'share', data % w)
        if not os.path.exists(log) or not os.path.exists(dat):
            print('window %d: missing %s' % (w, log if not os.path.exists(log) else dat))
            ok = False
            continue
        found.append((w, log, dat))
    return syms, code, ok, found


def compare(a):
    syms, code, ok, found = windows(a, 'records-%d.bin')
    total = bad = 0
    for w, log, rec in found:
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


# ftrace's raw text (options/raw) of an ftrace:bts entry: "pid cpu ts"
# and the entry's raw fields (kernel/trace/trace_bts.c). A loss shows as
# a jump in pos, which match_stream() checks.
RAW = re.compile(r'^\s*\d+ \d+ \d+ (\d+) (\d+) (\d+) (\d+) '
                 r'0x([0-9a-f]+) 0x([0-9a-f]+) 0x([0-9a-f]+)\s*$')
REASON_STREAM = 6
# the one function of bts's that writes DEBUGCTL (the hardware layer)
BTS_WRMSR = 'intel_bts_hw_debugctl_write'
# the functions between a caller of bts's DEBUGCTL update and the WRMSR
BTS_WRITE_PATH = ('update_debugctlmsr', BTS_WRMSR, 'intel_bts_debugctl_update')
# the one caller whose write sets TR|BTS (it goes on to look at the stop
# reasons again); every other write of bts's clears them
BTS_START = 'intel_bts_cpu_start'


def stream_records(path):
    """{cpu: [(pos, from, to, flags)]} of the stream, in pos order"""
    recs = {}
    with open(path, errors='replace') as f:
        for line in f:
            m = RAW.match(line)
            if m:
                cpu, pos, nr, reason = (int(m.group(i)) for i in range(1, 5))
                if nr == 0 and reason == REASON_STREAM:
                    recs.setdefault(cpu, []).append(
                        (pos, int(m.group(5), 16), int(m.group(6), 16),
                         int(m.group(7), 16)))
    for r in recs.values():
        r.sort()
    return recs


def match_stream(recs, der, syms, code):
    """Walk one CPU's branches from the log against its stream.

    BTS goes on or off only at a WRMSR, so the log's branches between
    two WRMSRs (a segment) are all in the stream, in order and with
    consecutive pos, or none is: none from bts's own DEBUGCTL write that
    stops BTS to the one that starts it again (an NMI stops it in its
    first handler and again in perf's, and perf's handler writes other
    MSRs between), all otherwise. A segment only partly streamed,
    or one streamed where the other was due, is a mismatch. The walk
    starts at the first segment of 8 or more branches found in the
    stream (before it the other CPU's log may begin mid-segment) and
    ends where the stream does (records still in the BTS buffer when
    tracing stopped are not in it) or the log does. Returns a dict of
    counts and mismatches."""
    segs, opener, der_index = [[]], [None], [None]
    for i, (f, t, how) in enumerate(der):
        if how == 'wrmsr':
            segs.append([])
            opener.append(f)
            der_index.append(i)
        else:
            segs[-1].append(((f, t), how))
    # A conditional branch to the next instruction: the log cannot say
    # whether it was taken, so derive() leaves it out and so does this,
    # where BTS recorded it taken (counted). The pos check allows for it.
    n0, all_recs = len(recs), recs
    recs = [r for r in recs if not (code.jcc_to_next(r[1]) and
                                    r[2] == r[1] + code.insn(r[1])[0])]
    key = [(r[1], r[2]) for r in recs]
    kept = {r[0] for r in recs}
    left_out = {r[0] for r in all_recs if r[0] not in kept}
    first = {}
    for j, k in enumerate(key):
        first.setdefault(k, []).append(j)
    res = dict(matched=0, absent=0, absent_segs=0, unstreamed=0, kinds={},
               openers={}, mism=[], start=None, user=0, drains=0,
               to_next=n0 - len(recs))
    j = None
    for k0, seg in enumerate(segs):
        if len(seg) < 8:
            continue
        want = [b for b, _ in seg]
        for cand in first.get(want[0], []):
            if key[cand:cand + len(want)] == want:
                j = cand
                break
        if j is not None:
            break
    if j is None:
        res['mism'].append('no segment of the log found in the stream')
        return res
    res['start'] = j
    # BTS is on at the first segment found. It goes off and on again only
    # at bts's own DEBUGCTL writes (an NMI stops BTS in its first handler,
    # perf's handler stops it again to drain, the last handler starts it;
    # nothing else freezes the CPU in these windows), each a start or a
    # stop as its caller says: segments from a stop to the next start are
    # not streamed, every other one is, whole. (The segment after the stop
    # may begin with the same branches as the one after the start: both
    # return from the same function.)
    off = False
    for k in range(k0, len(segs)):
        seg = segs[k]
        mine = k > k0 and opener_is_bts(der_index[k], der, syms)
        if mine:
            off = not write_starts_bts(der_index[k], der, syms)
        if off:
            name = syms.func(opener[k])
            name = 'bts (%s)' % name if mine else name
            res['openers'][name] = res['openers'].get(name, 0) + 1
            res['drains'] += mine
            res['absent'] += len(seg)
            res['absent_segs'] += 1
            continue
        if not seg:
            continue
        want = [b for b, _ in seg]
        if j >= len(key):
            res['unstreamed'] += len(want)
            continue
        got = key[j:j + len(want)]
        if got == want or (j + len(got) == len(key) and got == want[:len(got)]):
            for i, (b, how) in enumerate(seg[:len(got)]):
                pos, _, _, flags = recs[j + i]
                # user branches are on: nothing cleared, nothing flagged
                if flags != 0:
                    res['mism'].append('record pos %d %s -> %s: flags 0x%x, want 0' % (
                        pos, syms.sym(b[0]), syms.sym(b[1]), flags))
                if j + i > res['start'] and pos != recs[j + i - 1][0] + 1 and \
                        any(p not in left_out for p in range(recs[j + i - 1][0] + 1, pos)):
                    res['mism'].append('record pos %d follows pos %d: records lost' % (
                        pos, recs[j + i - 1][0]))
                kk = how if how in ('int', 'exc') else 'branch'
                res['kinds'][kk] = res['kinds'].get(kk, 0) + 1
                res['user'] += b[0] < KERNEL or b[1] < KERNEL
            res['matched'] += len(got)
            res['unstreamed'] += len(want) - len(got)
            j += len(got)
            continue
        i = next(i for i in range(len(got)) if got[i] != want[i])
        res['mism'].append('record pos %d: BTS %s -> %s, exec log %s -> %s (%s), '
                           '%d branches into a segment of %d after a WRMSR at %s' % (
                               recs[j + i][0], syms.sym(got[i][0]), syms.sym(got[i][1]),
                               syms.sym(want[i][0]), syms.sym(want[i][1]), seg[i][1],
                               i, len(want), syms.sym(opener[k])))
        break
    return res


def opener_is_bts(i, der, syms):
    """Is the WRMSR at der[i] bts's DEBUGCTL write: reached from the
    hardware layer's debugctl_write (a tail call to update_debugctlmsr)
    within the few branches before it?"""
    for f, t, how in der[max(0, i - 4):i]:
        if how != 'wrmsr' and syms.func(f) == BTS_WRMSR:
            return True
    return False


def write_starts_bts(i, der, syms):
    """Does bts's DEBUGCTL write at der[i] set TR|BTS? Its returns
    lead, past the write path, back into intel_bts_cpu_start for that
    write (start then looks at the stop reasons again), into any other
    function for a stop (and for start's second write, the stop it
    makes when a reason came meanwhile, a tail call)."""
    for f, t, how in der[i + 1:i + 16]:
        if how == 'wrmsr':
            break
        if how == 'ret' and syms.func(t) not in BTS_WRITE_PATH:
            return syms.func(t) == BTS_START
    return False


def compare_stream(a):
    syms, code, ok, found = windows(a, 'stream-%d.txt')
    total = bad = 0
    for w, log, st in found:
        recs = stream_records(st)
        for cpu in range(a.cpus):
            der, unknown = derive(log, code, cpu, freeze=False, user=True)
            r = match_stream(recs.get(cpu, []), der, syms, code)
            if unknown:
                r['mism'].append('%d instructions outside the kernel text and the '
                                 'user program: their lengths are unknown' % unknown)
            n = r['matched']
            total += n
            bad += len(r['mism'])
            print('window %d CPU %d: %d streamed records, %d compared in order (%s; '
                  '%d to or from user mode; %d taken conditional branches to the next '
                  'instruction left out); %d branches in %d '
                  'segments not streamed, opened by %s; %d after the '
                  'stream\'s end; %d mismatches%s' % (
                      w, cpu, len(recs.get(cpu, [])), n,
                      ', '.join('%d %s' % (v, k) for k, v in sorted(r['kinds'].items())),
                      r['user'], r['to_next'],
                      r['absent'], r['absent_segs'],
                      ', '.join('%s %d' % (k, v) for k, v in sorted(
                          r['openers'].items(), key=lambda x: str(x[0]))) or 'none',
                      r['unstreamed'], len(r['mism']),
                      ', %d instructions outside the saved text' % unknown
                      if unknown else ''))
            for m in r['mism'][:a.show]:
                print('  ' + m)
            if not r['drains']:
                print('  no BTS interrupt (bts stopping BTS to drain) in the window')
            # each CPU: its stream compared across at least one BTS
            # interrupt; how much of the window each vCPU ran varies
            if n < 1000:
                print('  fewer than 1000 records compared')
            if r['mism'] or not r['drains'] or n < 1000:
                ok = False
    print('compared %d records in %d windows on %d CPUs, %d mismatches' % (
        total, a.windows, a.cpus, bad))
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
    r.add_argument('--mode', choices=('ring', 'stream'), default='ring')
    r.add_argument('--max-log-gb', type=int, default=12)
    c = sub.add_parser('compare')
    c.add_argument('--system-map', required=True)
    c.add_argument('--dir', required=True)
    c.add_argument('--windows', type=int, default=4)
    c.add_argument('--min-records', type=int, default=10000)
    c.add_argument('--show', type=int, default=20)
    c.add_argument('--mode', choices=('ring', 'stream'), default='ring')
    c.add_argument('--cpus', type=int, default=2)
    c.add_argument('--user-elf', help='stream mode: the user program the windows run')
    a = ap.parse_args()
    if a.cmd == 'run':
        run(a)
        return 0
    return compare_stream(a) if a.mode == 'stream' else compare(a)


if __name__ == '__main__':
    sys.exit(main())
