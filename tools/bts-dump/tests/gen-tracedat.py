#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write a trace.dat (version 6, trace-cmd.dat.v6(5)) of ftrace:bts entries.

    gen-tracedat.py -o OUT [--kallsyms FILE] [--cpus N] RECORDS

A test and benchmark tool, written from the documented file format and
the kernel's event layout, independently of bts-dump's reader (which uses
libtracecmd): `trace-cmd report` reads what it writes. RECORDS has one
entry per line, in the order the writer CPU wrote them:

    WRITER CPU POS NR REASON FROM TO FLAGS      (numbers; addresses in hex)
    WRITER print TEXT                           (an ftrace:print entry)
    WRITER lost N                               (N events lost before the next)
    WRITER gap CPU LOST                         (an ftrace:bts_gap entry)

Stream mode entries are bts entries with NR 0 and REASON 6, POS the CPU's
sequence number. --kallsyms embeds that text as the trace.dat's
/proc/kallsyms; --no-bts leaves the ftrace:bts format out (a kernel
without the tracer), --no-gap the ftrace:bts_gap format (before stream
mode). --edges FILE writes the caller -> callee function names of the
software-source entries (FLAGS bit 63: each a call), one "CALLER CALLEE"
a line, sorted and unique, named by the --kallsyms text.
"""
import argparse
import struct
import sys

PAGE = 4096
BTS_ID = 20
PRINT_ID = 5
GAP_ID = 21

HEADER_PAGE = (
    "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
    "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
    "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
    "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n")
HEADER_EVENT = (
    "# compressed entry header\n"
    "\ttype_len    :    5 bits\n"
    "\ttime_delta  :   27 bits\n"
    "\tarray       :   32 bits\n\n"
    "\tpadding     : type == 29\n"
    "\ttime_extend : type == 30\n"
    "\ttime_stamp : type == 31\n"
    "\tdata max type_len  == 28\n")
COMMON = (
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n")
BTS_FORMAT = (
    "name: bts\nID: %d\nformat:\n" % BTS_ID + COMMON +
    "\tfield:unsigned long from;\toffset:8;\tsize:8;\tsigned:0;\n"
    "\tfield:unsigned long to;\toffset:16;\tsize:8;\tsigned:0;\n"
    "\tfield:unsigned long flags;\toffset:24;\tsize:8;\tsigned:0;\n"
    "\tfield:unsigned int cpu;\toffset:32;\tsize:4;\tsigned:0;\n"
    "\tfield:unsigned int pos;\toffset:36;\tsize:4;\tsigned:0;\n"
    "\tfield:unsigned int nr;\toffset:40;\tsize:4;\tsigned:0;\n"
    "\tfield:unsigned int reason;\toffset:44;\tsize:4;\tsigned:0;\n\n"
    "print fmt: \"cpu=%u %u/%u %pS -> %pS%s%s\", REC->cpu, REC->pos, REC->nr, "
    "(void *)REC->from, (void *)REC->to, (REC->flags >> 62) & 1 ? \" [fault]\" : \"\", "
    "(REC->flags >> 63) & 1 ? \" [sw]\" : \"\"\n")
GAP_FORMAT = (
    "name: bts_gap\nID: %d\nformat:\n" % GAP_ID + COMMON +
    "\tfield:unsigned long lost;\toffset:8;\tsize:8;\tsigned:0;\n"
    "\tfield:unsigned int cpu;\toffset:16;\tsize:4;\tsigned:0;\n\n"
    "print fmt: \"bts_gap cpu:%u lost:%lu\", REC->cpu, REC->lost\n")
PRINT_FORMAT = (
    "name: print\nID: %d\nformat:\n" % PRINT_ID + COMMON +
    "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
    "\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:1;\n\n"
    "print fmt: \"%ps: %s\", (void *)REC->ip, REC->buf\n")


def event(data, delta):
    """One ring-buffer event: type_len words of data, or type_len 0 + length."""
    pad = (-len(data)) % 4
    data += b"\0" * pad
    if len(data) <= 28 * 4:
        return struct.pack("<I", (len(data) // 4) | (delta << 5)) + data
    return struct.pack("<II", delta << 5, len(data) + 4) + data


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-o", required=True)
    ap.add_argument("--kallsyms")
    ap.add_argument("--cpus", type=int, default=0)
    ap.add_argument("--no-bts", action="store_true")
    ap.add_argument("--no-gap", action="store_true")
    ap.add_argument("--edges")
    ap.add_argument("records")
    a = ap.parse_args()

    per_cpu = {}
    for line in open(a.records):
        f = line.split(None, 2)
        if not f:
            continue
        w = int(f[0])
        if f[1] == "print":
            per_cpu.setdefault(w, []).append(("print", f[2].rstrip("\n")))
        elif f[1] == "lost":
            per_cpu.setdefault(w, []).append(("lost", int(f[2])))
        elif f[1] == "gap":
            v = line.split()
            per_cpu.setdefault(w, []).append(("gap", int(v[2]), int(v[3])))
        else:
            v = line.split()
            per_cpu.setdefault(w, []).append(("bts", int(v[1]), int(v[2]), int(v[3]),
                                              int(v[4]), int(v[5], 16), int(v[6], 16),
                                              int(v[7], 16)))
    ncpus = max(a.cpus, max(per_cpu) + 1 if per_cpu else 1)

    # Pages per CPU: [u64 timestamp][u64 commit][events]; commit bit 31 = missed events.
    ts = 10_000_000_000
    data = {}
    for cpu in range(ncpus):
        pages = []
        cur = b""
        page_ts = None
        missed = 0
        for item in per_cpu.get(cpu, []):
            if item[0] == "lost":
                # Lost events show on the next page: close this one.
                if cur:
                    pages.append((page_ts, cur, missed))
                    cur, page_ts, missed = b"", None, 0
                missed = 1 << 31
                continue
            if item[0] == "gap":
                body = struct.pack("<HBBiQI", GAP_ID, 0, 0, 1, item[2] & (1 << 64) - 1, item[1])
            elif item[0] == "print":
                body = struct.pack("<HBBiQ", PRINT_ID, 0, 0, 1, 0xffffffff81000000) + \
                    item[1].encode() + b"\n\0"
            else:
                _, hcpu, pos, nr, reason, fr, to, fl = item
                body = struct.pack("<HBBiQQQIIII", BTS_ID, 0, 0, 1, fr, to, fl, hcpu, pos, nr,
                                   reason)
            ts += 100
            ev = event(body, 0 if page_ts is None else 100)
            if len(cur) + len(ev) > PAGE - 16:
                pages.append((page_ts, cur, missed))
                cur, page_ts, missed = b"", None, 0
                ev = event(body, 0)
            if page_ts is None:
                page_ts = ts
            cur += ev
        if cur:
            pages.append((page_ts, cur, missed))
        data[cpu] = b"".join(struct.pack("<QQ", t, len(c) | m) + c + b"\0" * (PAGE - 16 - len(c))
                             for t, c, m in pages)

    out = bytearray()
    out += b"\x17\x08\x44tracing6\0" + bytes([0, 8]) + struct.pack("<I", PAGE)
    out += b"header_page\0" + struct.pack("<Q", len(HEADER_PAGE)) + HEADER_PAGE.encode()
    out += b"header_event\0" + struct.pack("<Q", len(HEADER_EVENT)) + HEADER_EVENT.encode()
    fmts = (PRINT_FORMAT,) if a.no_bts else (PRINT_FORMAT, BTS_FORMAT)
    if not a.no_gap:
        fmts += (GAP_FORMAT,)
    out += struct.pack("<I", len(fmts))
    for fmt in fmts:
        out += struct.pack("<Q", len(fmt)) + fmt.encode()
    out += struct.pack("<I", 0)                    # no other event systems
    ks = open(a.kallsyms, "rb").read() if a.kallsyms else b""
    out += struct.pack("<I", len(ks)) + ks
    out += struct.pack("<I", 0)                    # printk formats
    cmd = b"1 init\n"
    out += struct.pack("<Q", len(cmd)) + cmd
    out += struct.pack("<I", ncpus)
    out += b"flyrecord\0"
    table = len(out)
    out += b"\0" * (16 * ncpus)
    for cpu in range(ncpus):
        out += b"\0" * ((-len(out)) % PAGE)
        struct.pack_into("<QQ", out, table + 16 * cpu, len(out), len(data[cpu]))
        out += data[cpu]
    open(a.o, "wb").write(out)
    if a.edges:
        write_edges(a.edges, a.kallsyms, per_cpu)


def write_edges(path, kallsyms, per_cpu):
    """Each software-source entry is a call: the functions holding FROM and TO."""
    import bisect
    syms = sorted((int(l.split()[0], 16), l.split()[2]) for l in open(kallsyms)
                  if len(l.split()) >= 3 and l.split()[1] in "tT")
    starts = [s for s, _ in syms]

    def name(addr):
        i = bisect.bisect_right(starts, addr) - 1
        return syms[i][1] if i >= 0 else "0x%x" % addr
    edges = set()
    for items in per_cpu.values():
        for it in items:
            if it[0] == "bts" and it[7] >> 63:
                edges.add((name(it[5]), name(it[6])))
    with open(path, "w") as f:
        for c, e in sorted(edges):
            f.write("%s %s\n" % (c, e))


if __name__ == "__main__":
    sys.exit(main())
