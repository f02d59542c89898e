#!/usr/bin/python3
"""Count the taken branches between a kernel fault and the bts freeze.

Two steps, both driven by branches-to-freeze.sh:

  measure.py run     boot the test kernel in QEMU (TCG, one vCPU, icount) stopped
                     for gdb; at a hardware breakpoint on the crashing function's
                     entry, switch on one-instruction TBs and the exec+int log
                     through the monitor and save the kernel text as it is in
                     guest memory (alternatives, retpolines, static keys and
                     ftrace call sites patched); log on to the freeze and to the
                     DIE_OOPS notifier (panic: the panic notifiers); switch the
                     log off; save the pages of executed code outside the
                     kernel text (ftrace trampolines).
  measure.py analyze walk the exec log from the faulting instruction to the
                     first instruction of the freeze function and count the
                     transitions whose next PC is not PC + length of the
                     instruction at PC (decoded with capstone from the saved
                     guest memory).

Needs /usr/bin/python3 with python3-capstone (Debian) and qemu-system-x86_64.
"""
import argparse
import bisect
import json
import os
import re
import socket
import subprocess
import sys
import time

# ---------------------------------------------------------------- scenarios

# fault: the function that faults; vector: the exception entry the faulting
# instruction must go to (None: the fault is the call into `via`).
SCENARIOS = {
    'pf':    dict(hook='oops_begin() entry', fault='#PF lkdtm EXCEPTION',
                  func='lkdtm_EXCEPTION', vector='asm_exc_page_fault',
                  freeze=['__bts_fault_freeze'], design='23'),
    'gpf':   dict(hook='exc_general_protection()', fault='#GP bts_test_gpf',
                  func='bts_test_gpf', vector='asm_exc_general_protection',
                  freeze=['__bts_fault_freeze'], design='60'),
    'bug':   dict(hook='handle_bug()', fault='BUG() lkdtm BUG (ud2)',
                  func='lkdtm_BUG', vector='asm_exc_invalid_op',
                  freeze=['__bts_fault_freeze'], design='6'),
    'panic': dict(hook='panic() entry', fault='panic() lkdtm PANIC',
                  func='lkdtm_PANIC', vector=None, via='panic',
                  freeze=['__bts_fault_freeze'], design='~0'),
}
# DESIGN.md section 5, for comparison: DIE_OOPS notifier.
DESIGN_DIE_OOPS = {'pf': '39,795', 'gpf': '34,575', 'bug': '36,846',
                   'panic': '(notifiers at 16,847)'}


# ---------------------------------------------------------------- symbols

class Symbols:
    def __init__(self, path):
        self.addr, self.name, self.by_name = [], [], {}
        rows = []
        with open(path) as f:
            for line in f:
                a, t, n = line.split()[:3]
                if t.lower() in 'tw':
                    rows.append((int(a, 16), n))
                self.by_name.setdefault(n, int(a, 16))
        rows.sort()
        self.addr = [a for a, _ in rows]
        self.name = [n for _, n in rows]
        self.starts = set(self.addr)

    def __getitem__(self, n):
        return self.by_name[n]

    def sym(self, a):
        i = bisect.bisect_right(self.addr, a) - 1
        if i < 0 or not (self.by_name['_stext'] <= a < self.by_name['_etext']):
            return '0x%x' % a
        return '%s+0x%x' % (self.name[i], a - self.addr[i])

    def func(self, a):
        i = bisect.bisect_right(self.addr, a) - 1
        if i < 0 or not (self.by_name['_stext'] <= a < self.by_name['_etext']):
            return None
        return self.name[i]


# ---------------------------------------------------------------- QEMU

class Monitor:
    def __init__(self, path, timeout=60):
        t = time.time() + timeout
        while True:
            try:
                self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.s.connect(path)
                break
            except OSError:
                if time.time() > t:
                    raise
                time.sleep(0.1)
        self.read_prompt()

    def read_prompt(self):
        buf = b''
        while not buf.endswith(b'(qemu) '):
            d = self.s.recv(65536)
            if not d:
                raise RuntimeError('monitor closed')
            buf += d
        return buf.decode(errors='replace')

    def cmd(self, c):
        self.s.sendall(c.encode() + b'\n')
        out = self.read_prompt()
        # drop the echoed command line and the prompt
        out = out.replace('\r', '')
        lines = [l for l in out.split('\n') if l and not l.startswith('(qemu)')
                 and not l.endswith(c)]
        return '\n'.join(l for l in lines if not re.fullmatch(r'\x1b\[[0-9;]*[A-Za-z]', l)).strip()


def wait_console(path, pat, timeout, start=0):
    t = time.time() + timeout
    rx = re.compile(pat)
    while time.time() < t:
        try:
            with open(path, 'rb') as f:
                f.seek(start)
                txt = f.read().decode(errors='replace')
            m = rx.search(txt)
            if m:
                return m
        except FileNotFoundError:
            pass
        time.sleep(0.05)
    return None


def free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


def run(a):
    """Boot, log from the entry of the faulting function to the freeze
    (and on to the DIE_OOPS notifier / panic notifiers) with gdb hardware
    breakpoints switching QEMU's exec log on and off."""
    sc = SCENARIOS[a.scenario]
    syms = Symbols(a.system_map)
    out = os.path.abspath(a.out)
    os.makedirs(out, exist_ok=True)
    share = os.path.join(out, 'share')
    os.makedirs(share, exist_ok=True)
    con = os.path.join(out, 'console.log')
    mon = os.path.join(out, 'monitor.sock')
    log = os.path.join(out, 'exec.log')
    text = os.path.join(out, 'text.bin')
    for f in os.listdir(out):
        if f.endswith(('.bin', '.log', '.sock', '.json', '.txt')):
            os.unlink(os.path.join(out, f))
    port = free_port()
    append = ('console=ttyS0 loglevel=7 nokaslr panic_on_oops=0 panic=0 '
              'bts.tests=measure.sh bts.measure=%s' % a.scenario)
    # -icount shift=0: guest time advances by instructions (1 ns each), so
    # that the timer tick cannot outrun a guest slowed down by the log.
    qemu = ['qemu-system-x86_64', '-accel', 'tcg,thread=single', '-cpu', 'max',
            '-icount', 'shift=0',
            '-smp', '1', '-m', '1024', '-no-reboot', '-nic', 'none',
            '-display', 'none', '-kernel', a.bzimage, '-initrd', a.initrd,
            '-virtfs', 'local,path=%s,mount_tag=host0,security_model=none,id=host0' % share,
            '-serial', 'file:' + con, '-monitor', 'unix:%s,server,nowait' % mon,
            # -S: wait for gdb, so that its breakpoints are in place from the start
            '-S', '-gdb', 'tcp:127.0.0.1:%d' % port,
            '-D', log, '-append', append]
    lo, hi = syms['_stext'], syms['_etext']
    # The third stop: where DESIGN.md's "DIE_OOPS notifier" column is.
    if a.scenario == 'panic':
        late = ('atomic_notifier_call_chain',
                '$rdi == 0x%x' % syms['panic_notifier_list'])
    else:
        late = ('notify_die', '$rdi == 1')     # DIE_OOPS
    me = os.path.abspath(__file__)
    gdb = [
        'set pagination off', 'set confirm off', 'set architecture i386:x86-64',
        'target remote 127.0.0.1:%d' % port,
        # hardware breakpoints: nothing is written into guest memory
        'thbreak *0x%x' % syms[sc['func']],
        'continue',
        'monitor singlestep on',
        'monitor memsave 0x%x 0x%x "%s"' % (lo, hi - lo, text),
        'monitor log exec,nochain,int',
        'thbreak *0x%x' % syms['__bts_fault_freeze'],
        'continue',
        'shell echo freeze > "%s/stop1.txt"' % out,
        'thbreak *0x%x if %s' % (syms[late[0]], late[1]),
        'continue',
        'monitor log none',
        'shell echo %s > "%s/stop2.txt"' % (late[0], out),
        'shell /usr/bin/python3 "%s" pages --system-map "%s" --out "%s"' % (
            me, a.system_map, out),
        'kill',
    ]
    with open(os.path.join(out, 'gdb.cmd'), 'w') as f:
        f.write('\n'.join(gdb) + '\n')
    with open(os.path.join(out, 'qemu.cmd'), 'w') as f:
        f.write(' '.join(qemu) + '\n')
    p = subprocess.Popen(qemu, stdin=subprocess.DEVNULL)
    info = dict(scenario=a.scenario, append=append, text=[lo, hi], late=late[0])
    try:
        time.sleep(1)
        with open(os.path.join(out, 'gdb.log'), 'w') as f:
            g = subprocess.Popen(['gdb', '-nx', '-batch', '-x', os.path.join(out, 'gdb.cmd')],
                                 stdout=f, stderr=subprocess.STDOUT)
            t = time.time() + a.timeout
            while g.poll() is None:
                big = os.path.exists(log) and os.path.getsize(log) > a.max_log
                if time.time() > t or big:
                    g.kill()
                    g.wait()
                    p.kill()
                    raise RuntimeError('%s: %s' % (a.scenario, 'exec log too big' if big else 'timeout'))
                time.sleep(0.5)
    finally:
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    info['stops'] = [os.path.exists(os.path.join(out, 'stop%d.txt' % i)) for i in (1, 2)]
    pj = os.path.join(out, 'pages.json')
    info['extra_pages'] = json.load(open(pj)) if os.path.exists(pj) else []
    with open(os.path.join(out, 'run.json'), 'w') as f:
        json.dump(info, f, indent=1)
    if not os.path.exists(text) or not all(info['stops']):
        raise RuntimeError('%s: run incomplete, see %s/gdb.log' % (a.scenario, out))


def pages(a):
    """(while gdb holds the guest stopped) save the pages of executed code
    outside the kernel text: ftrace trampolines."""
    syms = Symbols(a.system_map)
    lo, hi = syms['_stext'], syms['_etext']
    m = Monitor(os.path.join(a.out, 'monitor.sock'))
    pcs = set()
    for pc in iter_pcs(os.path.join(a.out, 'exec.log')):
        if not lo <= pc < hi:
            pcs.add(pc & ~0xfff)
    extra = []
    for pg in sorted(pcs):
        for q in (pg, pg + 0x1000):
            if q in extra:
                continue
            f = os.path.join(a.out, 'page-%x.bin' % q)
            m.cmd('memsave 0x%x 0x1000 "%s"' % (q, f))
            if os.path.exists(f) and os.path.getsize(f) == 0x1000:
                extra.append(q)
    with open(os.path.join(a.out, 'pages.json'), 'w') as f:
        json.dump(extra, f)


# ---------------------------------------------------------------- the log

TRACE = re.compile(r'^Trace \d+: 0x[0-9a-f]+ \[[0-9a-f]+/([0-9a-f]+)/')
INT = re.compile(r'^\s*\d+: v=([0-9a-f]+) e=([0-9a-f]+) i=(\d) cpl=(\d) '
                 r'IP=[0-9a-f]+:([0-9a-f]+)')


def iter_pcs(log):
    with open(log, errors='replace') as f:
        for line in f:
            m = TRACE.match(line)
            if m:
                yield int(m.group(1), 16)


def read_events(log):
    """[(pc, [interrupt events before the next instruction])]"""
    ev = []
    with open(log, errors='replace') as f:
        for line in f:
            m = TRACE.match(line)
            if m:
                ev.append((int(m.group(1), 16), []))
                continue
            m = INT.match(line)
            if m and ev:
                ev[-1][1].append(dict(vec=int(m.group(1), 16), err=int(m.group(2), 16),
                                      soft=int(m.group(3)), cpl=int(m.group(4)),
                                      ip=int(m.group(5), 16)))
    return ev


class Code:
    def __init__(self, out, info):
        import capstone
        self.cs = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
        self.cs.detail = False
        self.lo, self.hi = info['text']
        self.text = open(os.path.join(out, 'text.bin'), 'rb').read()
        self.pages = {}
        for q in info.get('extra_pages', []):
            self.pages[q] = open(os.path.join(out, 'page-%x.bin' % q), 'rb').read()
        self.cache = {}

    def bytes_at(self, pc):
        if self.lo <= pc < self.hi:
            return self.text[pc - self.lo:pc - self.lo + 16]
        pg = pc & ~0xfff
        b = self.pages.get(pg, b'') + self.pages.get(pg + 0x1000, b'')
        return b[pc - pg:pc - pg + 16]

    def insn(self, pc):
        """(length, mnemonic, op_str) of the instruction at pc"""
        if pc not in self.cache:
            b = self.bytes_at(pc)
            i = next(self.cs.disasm(b, pc, 1), None)
            self.cache[pc] = (i.size, i.mnemonic, i.op_str) if i else (0, '(bad)', '')
        return self.cache[pc]


def kind(mn, fault):
    if fault:
        return 'exception'
    if mn.startswith('call'):
        return 'call'
    if mn.startswith('ret'):
        return 'ret'
    if mn.startswith('iret'):
        return 'iret'
    if mn == 'jmp' or mn.startswith('ljmp'):
        return 'jmp'
    if mn.startswith('j') or mn.startswith('loop'):
        return 'jcc'
    return 'other:' + mn


def analyze_one(out, syms, sc_name, listing=None):
    sc = SCENARIOS[sc_name]
    info = json.load(open(os.path.join(out, 'run.json')))
    # the booted kernel is the one System.map describes (nokaslr)
    txt = open(os.path.join(out, 'console.log'), errors='replace').read()
    k = re.search(r'kallsyms ([0-9a-f]+) \S+ __bts_fault_freeze', txt)
    if not k or int(k.group(1), 16) != syms['__bts_fault_freeze']:
        raise RuntimeError('%s: guest __bts_fault_freeze %s != System.map %x: wrong '
                           'System.map for this bzImage, or KASLR on' %
                           (sc_name, k and k.group(1), syms['__bts_fault_freeze']))
    code = Code(out, info)
    ev = read_events(os.path.join(out, 'exec.log'))
    pcs = [e[0] for e in ev]
    f_lo = syms[sc['func']]
    f_name = sc['func']
    # the faulting instruction
    start = None
    for i in range(len(ev) - 1):
        if syms.func(pcs[i]) != f_name:
            continue
        if sc['vector']:
            if pcs[i + 1] == syms[sc['vector']]:
                start = i
                break
        elif pcs[i + 1] == syms[sc['via']] and code.insn(pcs[i])[1].startswith('call'):
            start = i
            break
    if start is None:
        raise RuntimeError('%s: faulting instruction not found in the log' % sc_name)
    res = dict(scenario=sc_name, fault_pc=pcs[start], fault_sym=syms.sym(pcs[start]),
               fault_insn='%s %s' % code.insn(pcs[start])[1:], points={},
               log_instructions=len(ev))
    targets = {syms[n]: n for n in sc['freeze']}
    # gdb stopped the guest at the entry of info['late'] (notify_die(DIE_OOPS)
    # or the panic notifier chain) before it ran: that entry is the end.
    late = info.get('late')
    late_name = ('notify_die(DIE_OOPS)' if late == 'notify_die' else
                 'panic notifiers (atomic_notifier_call_chain)')
    if late:
        ev.append((syms[late], []))
    res['late'] = late_name if late else None
    # walk
    taken = 0
    insns = 0
    kinds = {}
    hook_taken = hook_insns = 0     # inside ftrace call-site excursions
    irqs = []                       # asynchronous interrupts left out
    rep_iter = 0
    replays = 0
    # inside the calls to the freeze function itself (the capture's own work)
    freeze_addr = syms['__bts_fault_freeze']
    cap_ret = None
    cap_taken = cap_insns = 0
    anomalies = []
    hook_ret = None                 # return address of the ftrace hook call being skipped
    lines = []
    i = start
    while i < len(ev):
        pc, ints = ev[i]
        if late and i == len(ev) - 1:
            res['points'][late_name] = dict(
                taken_in_freeze=cap_taken, instructions_in_freeze=cap_insns,
                taken=taken, instructions=insns, taken_excl_ftrace=taken - hook_taken,
                instructions_excl_ftrace=insns - hook_insns,
                ftrace_hook_calls=kinds.get('ftrace-hook-calls', 0), kinds=dict(kinds), index=i)
            lines.append('==== %s reached: %d taken branches, %d instructions ====' %
                         (late_name, taken, insns))
            break
        if pc in targets and targets[pc] not in res['points']:
            res['points'][targets[pc]] = dict(
                taken=taken, instructions=insns, taken_excl_ftrace=taken - hook_taken,
                instructions_excl_ftrace=insns - hook_insns, ftrace_hook_calls=kinds.get('ftrace-hook-calls', 0),
                kinds=dict(kinds), index=i)
            lines.append('==== %s reached: %d taken branches, %d instructions ====' %
                         (targets[pc], taken, insns))
        if i + 1 >= len(ev):
            break
        nxt = ev[i + 1][0]
        size, mn, ops = code.insn(pc)
        hw = [e for e in ints if e['vec'] >= 0x20 and not e['soft']]
        exc = [e for e in ints if e['vec'] < 0x20 or e['soft']]
        if hw:
            # asynchronous interrupt: skip to the return to the interrupted IP
            ip = hw[0]['ip']
            j = i + 1
            while j < len(ev) and ev[j][0] != ip:
                j += 1
            irqs.append(dict(vec=hw[0]['vec'], at=syms.sym(pc), skipped=j - i - 1))
            lines.append('     -- interrupt v=%02x after %s, %d instructions skipped' %
                         (hw[0]['vec'], syms.sym(pc), j - i - 1))
            # the instruction at pc itself ran; its successor is ev[j]
            nxt = ev[j][0] if j < len(ev) else None
            if nxt is None:
                break
            ev_next = j
        else:
            ev_next = i + 1
        insns += 1
        k_taken = False
        in_cap = cap_ret is not None
        if in_cap:
            cap_insns += 1
        in_hook = hook_ret is not None
        if in_hook:
            hook_insns += 1
        if nxt == pc + size and not exc:
            pass
        elif nxt == pc and not exc:
            # The same PC again: a REP iteration, or (any instruction) a TB
            # that QEMU left before running it and re-entered (icount
            # budget or I/O recompile: "Stopped execution of TB chain").
            if mn.startswith('rep'):
                rep_iter += 1
            else:
                replays += 1
            insns -= 1
            if in_cap:
                cap_insns -= 1
            if in_hook:
                hook_insns -= 1
        else:
            k = kind(mn, bool(exc))
            taken += 1
            k_taken = True
            if in_cap:
                cap_taken += 1
            if in_hook:
                hook_taken += 1
            kinds[k] = kinds.get(k, 0) + 1
            if k.startswith('other:') or (k == 'exception' and not (exc and exc[0]['vec'] < 0x20)):
                anomalies.append('%s %s -> %s' % (syms.sym(pc), mn, syms.sym(nxt)))
            # an ftrace call site: a call from a function's first
            # instruction(s) into an ftrace trampoline
            if (k == 'call' and hook_ret is None and
                    (syms.func(nxt) is None or syms.func(nxt).startswith('ftrace_')) and
                    syms.func(nxt) != 'ftrace_stub'):
                hook_ret = pc + size
                hook_taken += 1
                hook_insns += 1
                kinds['ftrace-hook-calls'] = kinds.get('ftrace-hook-calls', 0) + 1
            lines.append('%6d %-10s %-44s -> %s%s' % (
                taken, k, '%s (%s %s)' % (syms.sym(pc), mn, ops), syms.sym(nxt),
                '  [ftrace hook]' if (in_hook or hook_ret is not None) else ''))
        if hook_ret is not None and nxt == hook_ret:
            hook_ret = None
        if cap_ret is not None:
            if nxt == cap_ret:
                cap_ret = None
        elif k_taken and mn.startswith('call') and nxt == freeze_addr:
            cap_ret = pc + size
        i = ev_next
    res.update(irqs=irqs, rep_iterations=rep_iter, replays=replays, anomalies=anomalies)
    if listing:
        with open(listing, 'w') as f:
            f.write('%s: fault at %s (%s), walk to %s\n' % (
                sc_name, res['fault_sym'], res['fault_insn'], ', '.join(sc['freeze'])))
            f.write('\n'.join(lines) + '\n')
    return res


def analyze(a):
    syms = Symbols(a.system_map)
    rows = []
    allres = {}
    for sc_name in a.scenarios:
        out = os.path.join(a.dir, sc_name)
        try:
            r = analyze_one(out, syms, sc_name, os.path.join(out, 'branches.txt'))
        except Exception as e:
            print('%s: %s' % (sc_name, e), file=sys.stderr)
            continue
        allres[sc_name] = r
    with open(os.path.join(a.dir, 'results.json'), 'w') as f:
        json.dump(allres, f, indent=1)
    hdr = ('| hook | fault (faulting instruction) | freeze point | taken branches | '
           'instructions | taken excl. ftrace hook | instructions excl. ftrace hook | '
           'irqs excluded | DESIGN.md early point | measured DIE_OOPS / panic notifiers | DESIGN.md DIE_OOPS |')
    print(hdr)
    print('|' + '---|' * 11)
    for sc_name, r in allres.items():
        sc = SCENARIOS[sc_name]
        lp = r['points'].get(r['late']) if r['late'] else None
        late_s = ('%d (excl. ftrace hook %d; of all, %d inside __bts_fault_freeze)' % (
            lp['taken'], lp['taken_excl_ftrace'], lp['taken_in_freeze'])
                  if lp else 'not reached')
        for pt in sc['freeze']:
            p = r['points'].get(pt)
            if not p:
                print('| %s | %s | %s entry | not reached | | | | | %s | %s | %s |' % (
                    sc['hook'], sc['fault'], pt, sc['design'], late_s, DESIGN_DIE_OOPS[sc_name]))
                continue
            print('| %s | %s (%s: `%s`) | %s entry | %d | %d | %d | %d | %d | %s | %s | %s |' % (
                sc['hook'], sc['fault'], r['fault_sym'], r['fault_insn'], pt,
                p['taken'], p['instructions'], p['taken_excl_ftrace'],
                p['instructions_excl_ftrace'], len(r['irqs']), sc['design'],
                late_s, DESIGN_DIE_OOPS[sc_name]))
    for sc_name, r in allres.items():
        if r['anomalies']:
            print('%s: %d unexplained non-sequential transitions, e.g. %s' % (
                sc_name, len(r['anomalies']), r['anomalies'][:3]), file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest='cmd', required=True)
    r = sub.add_parser('run')
    r.add_argument('scenario', choices=SCENARIOS)
    r.add_argument('--bzimage', required=True)
    r.add_argument('--initrd', required=True)
    r.add_argument('--system-map', required=True)
    r.add_argument('--out', required=True)
    r.add_argument('--timeout', type=float, default=600)
    r.add_argument('--max-log', type=int, default=3 << 30)
    g = sub.add_parser('pages')
    g.add_argument('--system-map', required=True)
    g.add_argument('--out', required=True)
    z = sub.add_parser('analyze')
    z.add_argument('--system-map', required=True)
    z.add_argument('--dir', required=True)
    z.add_argument('scenarios', nargs='*', default=list(SCENARIOS))
    a = ap.parse_args()
    dict(run=run, analyze=analyze, pages=pages)[a.cmd](a)


if __name__ == '__main__':
    main()
