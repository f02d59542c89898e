#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""drgn/bts.py -l (bts_live) over a made-up kernel memory, without drgn. TAP.

Each case lays out a struct bts_live_table and its slots as
include/uapi/linux/bts.h says, with buffers whose records are numbered,
and checks the history bts.py reads against the one the header's text
gives (written out here by hand for each case), or, for a damaged table
or slot, one line saying why and exit status 1, never a traceback.
"""
import contextlib
import importlib.util
import io
import os
import struct
import sys

SYM = 0xFFFFFFFF82000000        # &bts_live
TABLE = 0xFFFF888000100000
BUF = 0xFFFF888000200000
HEAD = 0xFFFF888000300000
TAIL = HEAD + 0x100
DRAINED = HEAD + 0x200
HW_BASE = 0xFFFFFE0000401000    # the DS area's base: not the buffer's own address


class FaultError(Exception):
    pass


class Symbol:
    def __init__(self, name, address):
        self.name, self.address, self.size = name, address, 8


class Mem:
    """drgn's Program as bts.py uses it: read, read_u64, symbol."""

    def __init__(self):
        self.m = {}

    def put(self, addr, b):
        self.m[addr] = bytes(b)

    def read(self, addr, size, physical=False):
        for base, b in self.m.items():
            if base <= addr and addr + size <= base + len(b):
                return b[addr - base:addr - base + size]
        raise FaultError("could not find memory segment: %#x" % addr)

    def read_u64(self, addr):
        return struct.unpack("<Q", self.read(addr, 8))[0]

    def symbol(self, what):
        if what == "bts_live":
            return Symbol(what, SYM)
        raise LookupError(what)

    def symbols(self):
        return []


def rec(i, user=False):
    """Record number @i: kernel addresses, or a return to user mode."""
    frm = 0xFFFFFFFF81000000 + 0x10 * i
    to = 0x401000 + 0x10 * i if user else 0xFFFFFFFF82000000 + 0x10 * i
    return struct.pack("<QQQ", frm, to, 0x10)


def table(slots, magic=b"BTSLIVE\0", version=1, table_size=32, slot_size=64, nr_slots=None):
    """A Mem with the table at TABLE and @slots (bytes each) after it."""
    p = Mem()
    p.put(SYM, struct.pack("<Q", TABLE))
    n = len(slots) if nr_slots is None else nr_slots
    t = struct.pack("<8sIIIIQ", magic, version, table_size, slot_size, n, 0)
    p.put(TABLE, t + b"".join(slots))
    return p


def slot(source, kind, nr, head_base=0, flags=0, seq=0, tail=0, drained=0, recs=BUF, head=HEAD):
    return struct.pack("<IHHIIQQQQQQ", seq, source, kind, nr, flags, recs, head, head_base,
                       tail, drained, 0)


def load_bts():
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("bts", os.path.join(here, "..", "drgn", "bts.py"))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


bts = load_bts()
n = 0


def tap(ok, what):
    global n
    n += 1
    print("%s %d - %s" % ("ok" if ok else "not ok", n, what))


def history(p):
    cap = bts.bts_live(p)
    return cap, [(h.cpu, h.count, bool(h.flags & bts.DUMP_WRAPPED), bool(h.flags & bts.DUMP_EMPTY),
                  [(r.from_, r.to) for r in h.records]) for h in cap.histories]


def ids(order, user=()):
    out = []
    for i in order:
        f, t, _ = struct.unpack("<QQQ", rec(i, i in user))
        out.append((f, t))
    return out


def expect(what, p, want):
    try:
        _, got = history(p)
    except Exception as e:
        tap(False, "%s (%s: %s)" % (what, type(e).__name__, e))
        return
    tap(got == want, what + ("" if got == want else " (got %r)" % (got,)))


# 1. the software source's counted ring: 11 records in 8 slots
p = table([slot(2, 1, 8)])
p.put(BUF, b"".join(rec(k if k >= 3 else k + 8) for k in range(8)))
p.put(HEAD, struct.pack("<Q", 11))
expect("count ring, wrapped: records 3 to 10, oldest first", p, [(0, 8, True, False, ids(range(3, 11)))])
p.put(HEAD, struct.pack("<Q", 0))
expect("count ring, nothing written: an empty history", p, [(0, 0, False, True, [])])
p.put(HEAD, struct.pack("<Q", 3))
p.put(BUF, b"".join(rec(k) for k in range(3)) + bytes(24 * 5))
expect("count ring, 3 written: records 0 to 2", p, [(0, 3, False, False, ids(range(3)))])

# 2. Intel, ring mode: the index over a circular buffer
buf = b"".join(rec(k) for k in range(5)) + bytes(24 * 3)
p = table([slot(1, 2, 8, head_base=HW_BASE)])
p.put(BUF, buf)
p.put(HEAD, struct.pack("<Q", HW_BASE + 5 * 24))
expect("circular, not wrapped: the slots below the index", p, [(0, 5, False, False, ids(range(5)))])
p.put(BUF, b"".join(rec(k + 8 if k < 3 else k) for k in range(8)))
p.put(HEAD, struct.pack("<Q", HW_BASE + 3 * 24))
expect("circular, wrapped: from the index to the end, then from the base", p,
       [(0, 8, True, False, ids(list(range(3, 8)) + list(range(8, 11))))])
p.put(BUF, b"".join(rec(k) for k in range(8)))
p.put(HEAD, struct.pack("<Q", HW_BASE + 8 * 24))
expect("circular, index at the end: it is the base", p, [(0, 8, True, False, ids(range(8)))])
p.put(HEAD, struct.pack("<Q", HW_BASE + 9 * 24))
expect("circular, index past the end: nothing", p, [(0, 0, False, True, [])])
p.put(HEAD, struct.pack("<Q", HW_BASE - 24))
expect("circular, index below the base: nothing", p, [(0, 0, False, True, [])])

# 3. Intel, stream mode, user halves cleared
p = table([slot(0, 0, 0), slot(1, 3, 8, head_base=HW_BASE, flags=1, tail=TAIL, drained=DRAINED)])
p.put(BUF, b"".join(rec(k + 6 if k < 2 else k, user=(k == 4)) for k in range(8)))
p.put(HEAD, struct.pack("<Q", HW_BASE + 2 * 24))
p.put(TAIL, struct.pack("<I", 6))
p.put(DRAINED, b"\1")
want = ids([2, 3, 4, 5, 6, 7])
want[2] = (want[2][0], 0)
expect("stream: from the index to the last drain's end, then from the base; user half cleared; "
       "an empty slot is no history", p, [(1, 6, True, False, want)])
cap = bts.bts_live(p)
tap(cap.histories[0].records[2].flags & bts.FLAG_USER_CLEARED and
    not cap.histories[0].records[1].flags & bts.FLAG_USER_CLEARED,
    "stream: the cleared record, and only it, is flagged user-cleared")
p.put(DRAINED, b"\0")
p.put(TAIL, struct.pack("<I", 0))
expect("stream before the first drain: the slots below the index", p,
       [(1, 2, False, False, ids([6, 7]))])


# 4. damaged: one line, exit 1, never a traceback
def run_main(p, args=("-l", "-j", "-r")):
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = bts.main(p, list(args))
    except Exception as e:
        return "traceback", "%s: %s" % (type(e).__name__, e), out.getvalue()
    return rc, err.getvalue(), out.getvalue()


good = slot(2, 1, 8)
cases = [
    ("no table (bts_live NULL)", None),
    ("bad magic", table([good], magic=b"BTSXXXX\0")),
    ("version 2", table([good], version=2)),
    ("table_size 8", table([good], table_size=8)),
    ("slot_size 16", table([good], slot_size=16)),
    ("nr_slots 0", table([good], nr_slots=0)),
    ("nr_slots 100000", table([good], nr_slots=100000)),
    ("slots past the table's memory (two: a line each)", table([good], nr_slots=3)),
    ("a source of 7", table([slot(7, 1, 8)])),
    ("a kind of 9", table([slot(2, 9, 8)])),
    ("nr 0", table([slot(2, 1, 0)])),
    ("nr 1 << 30", table([slot(2, 1, 1 << 30)])),
    ("a stream slot without tail", table([slot(1, 3, 8, drained=DRAINED)])),
    ("head NULL", table([slot(2, 1, 8, head=0)])),
    ("records not in memory", table([slot(2, 1, 8, recs=BUF + 0x100000)])),
    ("seq odd for ever", table([slot(2, 1, 8, seq=3)])),
]
for what, p in cases:
    if p is None:
        p = Mem()
        p.put(SYM, struct.pack("<Q", 0))
    else:
        p.put(BUF, bytes(24 * 8))
        p.put(HEAD, struct.pack("<Q", 0))
    rc, err, out = run_main(p)
    lines = [line for line in err.splitlines() if line]
    want = 2 if "two" in what else 1
    good = rc == 1 and len(lines) == want and all(x.startswith("bts: ") for x in lines)
    tap(good, "damaged: %s: exit 1 and one line%s" % (what, "" if good else
                                                      " (rc %r, %r)" % (rc, err[:200])))
print("1..%d" % n)
