#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write console text of ftrace:bts entries, as ftrace_dump_on_oops prints it.

    gen-console.py --kallsyms FILE [--style S] [--noise] [--cut] RECORDS > OUT

A test tool, written from the entry's output function in
kernel/trace/trace_bts.c (documented in Documentation/trace/bts.rst),
independently of bts-dump's reader. Each RECORDS line is
"CPU POS NR REASON FROM TO FLAGS" (addresses, flags in hex); addresses are
printed as %pS would with that kallsyms: "sym+0xoff/0xsize [mod]", or
"0x..." without a symbol. A RECORDS line "H CPU NR REASON STEXT KASLR
RELEASE BUILD_ID [FILTER]" (STEXT, KASLR in hex, BUILD_ID hex or "-" for
none, FILTER "pid" or "pid,held" when a pid filter was on) is the
ftrace:bts_history entry the kernel prints before a CPU's history; "T TEXT" is TEXT printed as is, after the same prefix. --style: dmesg ("[   12.345678] "), pstore
("<4>[   12.345678] "), syslog ("Dec  1 10:00:00 host kernel: ") or raw.
--noise puts other console lines between them (and one line another
CPU's printk cut into); --cut ends the text in the middle of a line;
--no-low leaves out the low 32 bits of both addresses that follow them
since they were added (the text of an older kernel).
"""
import argparse
import bisect
import sys

REASONS = ["", "oops", "BUG", "panic", "GPF", "WARN"]


def load(path):
    syms = []
    for line in open(path):
        f = line.split()
        if len(f) < 3 or f[1] in "aAU":
            continue
        syms.append((int(f[0], 16), f[2], f[3] if len(f) > 3 else "", f[1]))
    syms.sort(key=lambda s: s[0])
    return syms


def pS(syms, addrs, a):
    i = bisect.bisect_right(addrs, a) - 1
    if i < 0 or syms[i][3] not in "tTwW":
        return "0x%x" % a
    j = i + 1
    while j < len(syms) and syms[j][0] == syms[i][0]:
        j += 1
    if j >= len(syms) or a - syms[i][0] >= 1 << 20:
        return "0x%x" % a
    # kallsyms names the first symbol at an address
    k = i
    while k > 0 and syms[k - 1][0] == syms[i][0]:
        k -= 1
    s = "%s+0x%x/0x%x" % (syms[k][1], a - syms[k][0], syms[j][0] - syms[k][0])
    return s + (" " + syms[k][2] if syms[k][2] else "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kallsyms", required=True)
    ap.add_argument("--style", default="dmesg")
    ap.add_argument("--noise", action="store_true")
    ap.add_argument("--cut", action="store_true")
    ap.add_argument("--no-low", action="store_true")
    ap.add_argument("records")
    a = ap.parse_args()
    syms = load(a.kallsyms)
    addrs = [s[0] for s in syms]
    t = 12.0
    out = []

    def emit(text):
        nonlocal t
        t += 0.000013
        if a.style == "dmesg":
            out.append("[%12.6f] %s\n" % (t, text))
        elif a.style == "pstore":
            out.append("<4>[%12.6f] %s\n" % (t, text))
        elif a.style == "syslog":
            out.append("Dec  1 10:00:00 host kernel: %s\n" % text)
        else:
            out.append(text + "\n")

    emit("Oops: general protection fault, probably for non-canonical address 0xdead000000000000")
    emit("CPU: 1 UID: 0 PID: 81 Comm: sh Not tainted 6.12.117-bts #1")
    emit("Dumping ftrace buffer:")
    emit("---------------------------------")
    for n, line in enumerate(open(a.records)):
        f = line.split()
        if not f:
            continue
        if f[0] == "H":
            cpu, nr, reason = (int(x) for x in f[1:4])
            stext, kaslr = (int(x, 16) for x in f[4:6])
            emit("      sh-81        1d..1. %dus : bts_history cpu:%u nr:%u reason:%u stext:0x%x kaslr:0x%x release:%s build_id:%s%s" % (
                12345678 + n, cpu, nr, reason, stext, kaslr, f[6], "" if f[7] == "-" else f[7],
                " filter:" + f[8] if len(f) > 8 else ""))
            continue
        if f[0] == "T":
            emit("      sh-81        1d..1. %dus : %s" % (12345678 + n, line.rstrip("\n")[2:]))
            continue
        cpu, pos, nr, reason = (int(x) for x in f[:4])
        fr, to, fl = (int(x, 16) for x in f[4:7])
        us = 12345678 + n
        text = "cpu=%d %d/%d %s -> %s%s%s%s%s" % (
            cpu, pos, nr, pS(syms, addrs, fr), pS(syms, addrs, to),
            # the low 32 bits of both addresses, before the markers
            "" if a.no_low else " @%08x:%08x" % (fr & 0xffffffff, to & 0xffffffff),
            " [fault]" if fl >> 62 & 1 else "", " [sw]" if fl >> 63 & 1 else "",
            " " + REASONS[reason] if 0 < reason < len(REASONS) else "")
        emit("      sh-81        1d..1. %dus : %s" % (us, text))
        if a.noise and n % 3 == 1:
            emit("    <idle>-0         0d.h2. %dus : hrtimer_expire_entry: hrtimer=0x1" % us)
            emit("virtio_net virtio0: some other CPU's message")
    emit("---------------------------------")
    if a.noise and len(out) > 8:
        # Another CPU's printk lands in the middle of the third bts line.
        i = [k for k, l in enumerate(out) if " cpu=" in l][2]
        out[i] = out[i][:len(out[i]) * 2 // 3] + "[   12.9] ata1: link up\n"
    text = "".join(out)
    if a.cut:
        last = text.rstrip("\n").rfind("cpu=")
        text = text[:last + 30]
    sys.stdout.write(text)


if __name__ == "__main__":
    sys.exit(main())
