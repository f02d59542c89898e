# SPDX-License-Identifier: GPL-2.0
"""bts's kept branch history in drgn: a kdump crash dump, or the live kernel.

As a script:

    drgn -c vmcore -s vmlinux tools/bts-dump/drgn/bts.py [-c CPU] [-r] [-j]
    drgn -s vmlinux tools/bts-dump/drgn/bts.py [...]     # the running kernel

prints the fault capture the crashed (or running) kernel kept: the reason,
the faulting CPU, and each captured CPU's history, oldest branch first,
symbolized through drgn (which knows the KASLR offset), the fault record
marked "<== FAULT". -c one CPU, -r raw addresses only, -j JSON lines with
the keys bts-dump's --json uses for the same fields. -l prints instead
each CPU's current history, where its source records it now, as
bts/per_cpu/cpuN/records would copy it (all of it, not nr_records):

    drgn -s vmlinux tools/bts-dump/drgn/bts.py -l      # as root, on /proc/kcore

The kernel goes on recording while drgn reads: pause it first
(echo 0 > /sys/kernel/tracing/tracing_on), or read a crash dump, where
every CPU was stopped.

As a module (drgn's interactive shell, or a script of your own):

    from bts import bts_capture, bts_history
    cap = bts_capture(prog)          # Capture: .reason, .fault_cpu, .histories
    h = bts_history(prog, 1)         # CPU 1's History, or None
    for rec in h.records: rec.from_, rec.to, rec.flags
    live = bts_live(prog)            # Capture of the current histories

It reads only what the kernel published for crash tools: VMCOREINFO's
"BTS_TABLE=<physical address>" line (the kernel's vmcoreinfo_data, found by
its symbol) and the table and slots there, laid out as
include/uapi/linux/bts.h says (struct bts_vmcore_table, struct
bts_vmcore_slot, the dump header and records). No type information is
needed: a vmlinux with reduced debug info, or its symbols alone, will do.
Every field is checked as bts-dump --vmcore checks it, and a table that is
missing, never filled or damaged raises BtsError with one line saying why.

On a running kernel the table is filled only on the crash path: what it
shows there is whatever a crash would have found, usually "never filled".
The current histories come from the table the symbol bts_live points to
(struct bts_live_table and its slots, include/uapi/linux/bts.h), read
as that header says.
"""
import json
import os
import re
import struct
import sys

__all__ = ["BtsError", "Capture", "History", "Record", "bts_capture", "bts_history",
           "bts_live"]

TABLE_MAGIC = b"BTSCORE\0"
DUMP_MAGIC = b"BTSDUMP\0"
TABLE_SIZE = 48
SLOT_SIZE = 336
HEADER_SIZE = 192
RECORD_SIZE = 24
VMCORE_PAGES = 17
MAX_SLOTS = 8192
MAX_RECORDS = 1 << 20

LIVE_MAGIC = b"BTSLIVE\0"
LIVE_TABLE_SIZE = 32
LIVE_SLOT_SIZE = 64
LIVE_COUNT, LIVE_CIRCULAR, LIVE_STREAM = 1, 2, 3
LIVE_CLEAR_USER = 1
LIVE_TRIES = 5

REASONS = ["dump", "oops", "BUG", "panic", "GPF", "WARN"]
SOURCES = {1: "intel_bts", 2: "sw"}
FLAG_USER_CLEARED = 1 << 61
FLAG_FAULT = 1 << 62
FLAG_SW = 1 << 63
DUMP_WRAPPED, DUMP_CAPTURE, DUMP_USER, DUMP_EMPTY = 1, 2, 4, 8
NO_FAULT = 0xFFFFFFFF


class BtsError(Exception):
    """The capture is missing or damaged; str() is one line saying why."""


class Record:
    """One branch: from_, to (addresses) and flags (include/linux/bts.h)."""

    __slots__ = ("from_", "to", "flags")

    def __init__(self, from_, to, flags):
        self.from_, self.to, self.flags = from_, to, flags

    def from_cleared(self):
        return bool(self.flags & FLAG_USER_CLEARED) and not self.from_

    def to_cleared(self):
        return bool(self.flags & FLAG_USER_CLEARED) and not self.to


class History:
    """One CPU's kept capture: the dump header's fields and its records."""

    def __init__(self, fields, records):
        self.__dict__.update(fields)
        self.records = records


class Capture:
    """The crash dump's index: why, which CPU faulted, the histories.

    @errors: one line for each slot that could not be read (a damaged slot
    does not stop the others, as one bad capture file does not).
    """

    def __init__(self, reason, fault_cpu, nr_slots, histories, errors):
        self.reason, self.fault_cpu = reason, fault_cpu
        self.nr_slots, self.histories, self.errors = nr_slots, histories, errors


def _sym_addr(prog, name):
    try:
        return prog.symbol(name).address
    except LookupError:
        raise BtsError("no symbol %s in the kernel's symbols: not a kernel with bts, "
                       "or symbols of another kernel" % name) from None


def _note_text(prog):
    """VMCOREINFO as the crash path saved it: the ELF note vmcoreinfo_note holds."""
    note = prog.read_u64(_sym_addr(prog, "vmcoreinfo_note"))
    namesz, descsz, _ = struct.unpack("<III", prog.read(note, 12))
    if namesz > 64 or descsz > 1 << 16:
        raise BtsError("vmcoreinfo_note: name of %d bytes, text of %d" % (namesz, descsz))
    name = prog.read(note + 12, namesz)
    if not name.startswith(b"VMCOREINFO"):
        raise BtsError("vmcoreinfo_note: not a VMCOREINFO note (%r)" % name)
    return prog.read(note + 12 + (namesz + 3) // 4 * 4, descsz)


def _data_text(prog):
    """VMCOREINFO as the kernel keeps it: vmcoreinfo_data, vmcoreinfo_size."""
    data = prog.read_u64(_sym_addr(prog, "vmcoreinfo_data"))
    size = prog.read_u64(_sym_addr(prog, "vmcoreinfo_size"))
    if not data or size > 1 << 16:
        raise BtsError("vmcoreinfo_data is %#x, vmcoreinfo_size %d" % (data, size))
    return prog.read(data, size)


def _vmcoreinfo(prog):
    """The kernel's VMCOREINFO text.

    A crash dump has it in the ELF note the crash path wrote
    (vmcoreinfo_note: direct-mapped, so in any dump that has the kernel's
    memory); the buffer vmcoreinfo_data may be vmalloc'ed, and a dump
    filtered by makedumpfile may lack the page tables that map it. On a
    live kernel the note can predate later lines: the first of the two
    that names BTS_TABLE is taken.
    """
    texts, why = [], []
    for read in (_note_text, _data_text):
        try:
            texts.append(read(prog).split(b"\0", 1)[0].decode("ascii", "replace"))
        except BtsError as e:
            why.append(str(e))
        except Exception as e:  # drgn.FaultError: not in the dump
            why.append("%s: %s" % (read.__doc__.split(":")[0], e))
    for t in texts:
        if re.search(r"^BTS_TABLE=", t, re.M):
            return t
    if texts:
        return texts[0]
    raise BtsError("cannot read VMCOREINFO from memory (%s)" % "; ".join(why))


def _phys(prog, addr, size, what):
    try:
        return prog.read(addr, size, True)
    except Exception as e:
        raise BtsError("%s: physical %#x, %d bytes: not in the dump (%s)"
                       % (what, addr, size, e)) from None


def _cstr(b):
    return b.split(b"\0", 1)[0].decode("ascii", "replace")


def _header(b, what, page_size):
    """A dump header, checked as bts-dump's dump.c checks a file's."""
    (magic, version, header_size, record_size, source, cpu, count, capacity, flags, reason,
     fault_index, timestamp_ns, stext, kaslr, lost, source_name, release, build_id,
     build_id_size, etext, _reserved) = struct.unpack("<8sHHHHIIIIII QQQQ16s64s20sIQQ", b[:HEADER_SIZE])
    if magic != DUMP_MAGIC:
        raise BtsError("%s: header offset 0: magic %r, not %r" % (what, magic, DUMP_MAGIC))
    if version != 1:
        raise BtsError("%s: header offset 8: version %d, this reader knows 1" % (what, version))
    if header_size != HEADER_SIZE or record_size != RECORD_SIZE:
        raise BtsError("%s: header offset 10: header_size %d, record_size %d (want %d, %d)"
                       % (what, header_size, record_size, HEADER_SIZE, RECORD_SIZE))
    if source not in SOURCES:
        raise BtsError("%s: header offset 14: source %d is none of %s" % (what, source, sorted(SOURCES)))
    if count > capacity or capacity > MAX_RECORDS:
        raise BtsError("%s: header offset 20: count %d, capacity %d" % (what, count, capacity))
    if reason >= len(REASONS):
        raise BtsError("%s: header offset 32: reason %d" % (what, reason))
    if fault_index != NO_FAULT and fault_index >= count:
        raise BtsError("%s: header offset 36: fault_index %d, but %d records" % (what, fault_index, count))
    if build_id_size > 20:
        raise BtsError("%s: header offset 172: build_id_size %d" % (what, build_id_size))
    return dict(cpu=cpu, count=count, capacity=capacity, flags=flags, reason=reason,
                fault_index=fault_index, timestamp_ns=timestamp_ns, stext=stext,
                kaslr_offset=kaslr, lost=lost, source=_cstr(source_name) or SOURCES[source],
                release=_cstr(release), build_id=build_id[:build_id_size].hex())


def bts_capture(prog):
    """The kept capture the kernel of @prog indexed for a crash dump.

    Raises BtsError when there is none (no BTS_TABLE line: bts not built
    in, or no crashkernel= reservation at boot; a table never filled: the
    crash path did not reach bts) or when what is there is damaged.
    """
    info = _vmcoreinfo(prog)
    keys = dict(re.findall(r"^([A-Z_-]+)=(.*)$", info, re.M))
    m = re.search(r"^BTS_TABLE=([0-9a-fA-F]{1,16})$", info, re.M)
    if not m:
        raise BtsError("no bts table in VMCOREINFO (bts not built in, or no crash kernel "
                       "reservation at boot)")
    table = int(m.group(1), 16)
    t = _phys(prog, table, TABLE_SIZE, "the bts table (VMCOREINFO BTS_TABLE)")
    magic, version, table_size, slot_size, nr_slots, nr_written, page_size, reason, fault_cpu, _ = \
        struct.unpack("<8sIIIIIIIiQ", t)
    where = "bts table at physical %#x" % table
    if magic != TABLE_MAGIC:
        raise BtsError("bts table never filled: the crash path did not reach bts")
    if version != 1:
        raise BtsError("%s: offset 8: version %d, this reader knows 1" % (where, version))
    # (a later version may grow both; what this reader knows is at their start)
    if not TABLE_SIZE <= table_size <= 4096:
        raise BtsError("%s: offset 12: table_size %d (%d to 4096)" % (where, table_size, TABLE_SIZE))
    if not SLOT_SIZE <= slot_size <= 4096:
        raise BtsError("%s: offset 16: slot_size %d (%d to 4096)" % (where, slot_size, SLOT_SIZE))
    if nr_slots > MAX_SLOTS:
        raise BtsError("%s: offset 20: nr_slots %d is more than %d CPUs" % (where, nr_slots, MAX_SLOTS))
    if nr_written > nr_slots:
        raise BtsError("%s: offset 24: nr_written %d is more than the %d slots"
                       % (where, nr_written, nr_slots))
    if page_size < 4096 or page_size > 65536 or page_size & (page_size - 1):
        raise BtsError("%s: offset 28: page_size %d is not a power of two from 4096 to 65536"
                       % (where, page_size))
    if keys.get("PAGESIZE", str(page_size)) != str(page_size):
        raise BtsError("%s: offset 28: page_size %d, but VMCOREINFO has PAGESIZE=%s"
                       % (where, page_size, keys["PAGESIZE"]))
    if reason >= len(REASONS):
        raise BtsError("%s: offset 32: reason %d" % (where, reason))
    if not nr_written:
        raise BtsError("no capture was kept: the crash path reached bts, but none of the %d slots "
                       "of the bts table at physical %#x is written (nothing captured since it "
                       "was cleared?)" % (nr_slots, table))
    histories, errors = [], []
    for i in range(nr_written):
        try:
            h = _slot(prog, table + table_size + i * slot_size, i, page_size)
        except BtsError as e:
            errors.append(str(e))
            continue
        # not this crash's table: none of it can be trusted
        _cross_check(keys, i, h.__dict__)
        histories.append(h)
    return Capture(REASONS[reason], fault_cpu, nr_slots, histories, errors)


def _cross_check(keys, i, h):
    """The slot against the crash's own VMCOREINFO, as bts-dump checks it."""
    what = "slot %d (cpu %d)" % (i, h["cpu"])
    if "KERNELOFFSET" in keys and int(keys["KERNELOFFSET"], 16) != h["kaslr_offset"]:
        raise BtsError("%s: kaslr_offset %#x, but VMCOREINFO has KERNELOFFSET=%s: the bts table "
                       "is not this crash's" % (what, h["kaslr_offset"], keys["KERNELOFFSET"]))
    if "OSRELEASE" in keys and h["release"] and keys["OSRELEASE"] != h["release"]:
        raise BtsError("%s: release \"%s\", but VMCOREINFO has OSRELEASE=%s: the bts table is "
                       "not this crash's" % (what, h["release"], keys["OSRELEASE"]))
    bid = keys.get("BUILD-ID", "").lower()
    if bid and h["build_id"]:
        # the kernel records 20 bytes; a shorter ID is padded with zeros
        hb = h["build_id"]
        if len(bid) > len(hb) or hb[:len(bid)] != bid or hb[len(bid):].strip("0"):
            raise BtsError("%s: build ID %s, but VMCOREINFO has BUILD-ID=%s: the bts table is "
                           "not this crash's" % (what, h["build_id"], keys["BUILD-ID"]))


def _slot(prog, at, i, page_size):
    """Slot @i, at physical @at: a History, or BtsError."""
    what = "slot %d" % i
    s = _phys(prog, at, SLOT_SIZE, what)
    h = _header(s, what, page_size)
    recs_offset, nr_pages = struct.unpack_from("<II", s, HEADER_SIZE)
    pfns = struct.unpack_from("<%dQ" % VMCORE_PAGES, s, HEADER_SIZE + 8)
    need = h["count"] * RECORD_SIZE
    if recs_offset >= page_size:
        raise BtsError("%s: offset 192: recs_offset %d is not inside a page of %d bytes"
                       % (what, recs_offset, page_size))
    if nr_pages > VMCORE_PAGES or recs_offset + need > nr_pages * page_size:
        raise BtsError("%s: offset 196: %d pages from recs_offset %d for %d records"
                       % (what, nr_pages, recs_offset, h["count"]))
    raw = bytearray()
    off = recs_offset
    for p in range(nr_pages):
        if len(raw) >= need:
            break
        n = min(page_size - off, need - len(raw))
        raw += _phys(prog, pfns[p] * page_size + off, n, "%s (cpu %d): records" % (what, h["cpu"]))
        off = 0
    records = [Record(*struct.unpack_from("<QQQ", raw, k * RECORD_SIZE))
               for k in range(h["count"])]
    return History(h, records)


def bts_history(prog, cpu):
    """CPU @cpu's kept history (a History), or None if it has none."""
    for h in bts_capture(prog).histories:
        if h.cpu == cpu:
            return h
    return None


# ---------------------------------------------------------------- the live index

def _virt(prog, addr, size, what):
    try:
        return prog.read(addr, size)
    except Exception as e:
        raise BtsError("%s: %#x, %d bytes: cannot be read (%s)" % (what, addr, size, e)) from None


def bts_live(prog):
    """Each CPU's current history, as the kernel of @prog indexes it for debuggers.

    A Capture whose reason is "live" and whose histories are those of the
    CPUs a source records on; a slot that cannot be read is one line in
    .errors. Raises BtsError when there is no index or it is damaged.
    """
    table = prog.read_u64(_sym_addr(prog, "bts_live"))
    if not table:
        raise BtsError("bts_live is NULL: the bts core did not start (out of memory at boot?)")
    where = "bts live table at %#x" % table
    t = _virt(prog, table, LIVE_TABLE_SIZE, where)
    magic, version, table_size, slot_size, nr_slots, _ = struct.unpack("<8sIIIIQ", t)
    if magic != LIVE_MAGIC:
        raise BtsError("%s: offset 0: magic %r, not %r" % (where, magic, LIVE_MAGIC))
    if version != 1:
        raise BtsError("%s: offset 8: version %d, this reader knows 1" % (where, version))
    if not LIVE_TABLE_SIZE <= table_size <= 4096:
        raise BtsError("%s: offset 12: table_size %d (%d to 4096)" % (where, table_size, LIVE_TABLE_SIZE))
    if not LIVE_SLOT_SIZE <= slot_size <= 4096:
        raise BtsError("%s: offset 16: slot_size %d (%d to 4096)" % (where, slot_size, LIVE_SLOT_SIZE))
    if not 0 < nr_slots <= MAX_SLOTS:
        raise BtsError("%s: offset 20: nr_slots %d (1 to %d CPUs)" % (where, nr_slots, MAX_SLOTS))
    histories, errors = [], []
    for cpu in range(nr_slots):
        try:
            h = _live_slot(prog, table + table_size + cpu * slot_size, cpu)
        except BtsError as e:
            errors.append(str(e))
            continue
        if h is not None:
            histories.append(h)
    return Capture("live", -1, nr_slots, histories, errors)


def _live_slot(prog, at, cpu):
    """CPU @cpu's slot at @at: its History, None when nothing records there."""
    what = "live slot of cpu %d" % cpu
    for _ in range(LIVE_TRIES):
        s = _virt(prog, at, LIVE_SLOT_SIZE, what)
        seq = struct.unpack_from("<I", s)[0]
        if seq & 1:
            continue
        h = _live_history(prog, s, cpu, what)
        # the slot as it was before the records were read: a whole reading
        if _virt(prog, at, 4, what) == s[:4]:
            return h
    raise BtsError("%s: the kernel was rewriting it (seq odd or moving) in %d tries"
                   % (what, LIVE_TRIES))


def _live_history(prog, s, cpu, what):
    (seq, source, kind, nr, flags, recs, head, head_base, tail, drained,
     _) = struct.unpack("<IHHIIQQQQQQ", s[:LIVE_SLOT_SIZE])
    if not source:
        return None
    if source not in SOURCES:
        raise BtsError("%s: offset 4: source %d is none of %s" % (what, source, sorted(SOURCES)))
    if kind not in (LIVE_COUNT, LIVE_CIRCULAR, LIVE_STREAM):
        raise BtsError("%s: offset 6: kind %d is none of 1, 2, 3" % (what, kind))
    if not 0 < nr <= MAX_RECORDS:
        raise BtsError("%s: offset 8: nr %d (1 to %d)" % (what, nr, MAX_RECORDS))
    if kind == LIVE_STREAM and not (tail and drained):
        raise BtsError("%s: a stream slot without tail (%#x) or drained (%#x)" % (what, tail, drained))
    h = prog.read_u64(head) if head else None
    if h is None:
        raise BtsError("%s: offset 24: head is NULL" % what)
    raw = _virt(prog, recs, nr * RECORD_SIZE, "%s: the %d records" % (what, nr))

    def rec(i):
        return struct.unpack_from("<QQQ", raw, i * RECORD_SIZE)

    wrapped = False
    if kind == LIVE_COUNT:
        wrapped = h > nr
        order = [k % nr for k in range(max(h - nr, 0), h)]
    else:
        # an index outside the buffer: nothing can be read, as the kernel says
        if h < head_base or (h - head_base) // RECORD_SIZE > nr:
            order = []
        else:
            pos = (h - head_base) // RECORD_SIZE
            if kind == LIVE_CIRCULAR:
                if pos == nr:
                    pos = 0
                f, t, _ = rec(pos)
                wrapped = bool(f or t)
                end = nr if wrapped else pos
            else:
                end = max(pos, min(struct.unpack("<I", _virt(prog, tail, 4, what + ": tail"))[0], nr))
                wrapped = _virt(prog, drained, 1, what + ": drained") != b"\0"
            order = list(range(pos, end)) + list(range(pos))
    records = []
    for i in order:
        f, t, fl = rec(i)
        if flags & LIVE_CLEAR_USER:
            if f and not f >> 63:
                f, fl = 0, fl | FLAG_USER_CLEARED
            if t and not t >> 63:
                t, fl = 0, fl | FLAG_USER_CLEARED
        records.append(Record(f, t, fl))
    hflags = 0
    if not records:
        hflags |= DUMP_EMPTY
    elif wrapped:
        hflags |= DUMP_WRAPPED
    if source == 1 and not flags & LIVE_CLEAR_USER:
        hflags |= DUMP_USER
    return History(dict(cpu=cpu, count=len(records), capacity=nr, flags=hflags, reason=0,
                        fault_index=NO_FAULT, timestamp_ns=0, stext=0, kaslr_offset=0,
                        lost=0, source=SOURCES[source], release="", build_id="", live=True),
                   records)


# ---------------------------------------------------------------- output

def _is_user(addr):
    return addr < 1 << 47


_PENALIZED = ("__pfx_", "__cfi_", "__start_", "__stop_")


def _rank(sym):
    """Among symbols of one address, the one kallsyms and bts-dump name comes first."""
    binding = str(sym.binding).rsplit(".", 1)[-1]
    r = {"GLOBAL": 0, "LOCAL": 1}.get(binding, 2)
    if sym.name.startswith(_PENALIZED) or sym.name in ("_stext", "_text", "_etext"):
        r += 8
    return r


class _Symbols:
    """The kernel's text symbols by address, named as %pS and bts-dump name them.

    drgn's prog.symbol(address) takes the symbol whose size covers the
    address; a console line, bts-dump and kallsyms take the nearest one at
    or below it (an entry label inside an assembler function, such as
    entry_SYSCALL_64_after_hwframe, names what follows it). Among several
    at one address: global before local before weak, __pfx_ and section
    markers last, then the symbol table's order.
    """

    def __init__(self, prog):
        syms = []
        for order, s in enumerate(prog.symbols()):
            kind = str(s.kind).rsplit(".", 1)[-1]
            # (drgn 0.0.22 calls STT_NOTYPE, the assembler labels, UNKNOWN)
            if kind not in ("FUNC", "NOTYPE", "UNKNOWN") or _is_user(s.address):
                continue
            syms.append((s.address, _rank(s), order, s.name))
        syms.sort()
        # one per address: the first in that order
        self.addrs, self.names = [], []
        for a, _, _, name in syms:
            if not self.addrs or self.addrs[-1] != a:
                self.addrs.append(a)
                self.names.append(name)
        self.prog = prog

    def lookup(self, addr):
        import bisect
        i = bisect.bisect_right(self.addrs, addr) - 1
        if i < 0:
            return None
        # only within something drgn itself knows covers it, or next to it
        try:
            covering = self.prog.symbol(addr)
        except LookupError:
            covering = None
        if covering is None and (i + 1 >= len(self.addrs) or addr - self.addrs[i] >= 1 << 20):
            return None
        return self.names[i], addr - self.addrs[i]


_symbols = {}


def _sym(prog, addr):
    """(name, offset) of the text symbol at @addr, or None."""
    if _is_user(addr):
        return None
    if id(prog) not in _symbols:
        _symbols[id(prog)] = _Symbols(prog)
    return _symbols[id(prog)].lookup(addr)


def _end_text(prog, addr, cleared, raw):
    if cleared:
        return "[user]"
    if raw:
        return "%016x" % addr
    s = _sym(prog, addr)
    return "%s+0x%x" % s if s else "0x%x" % addr


def _header_text(h):
    """The line bts-dump prints above a history, word for word."""
    if getattr(h, "live", False):
        return "CPU %d: %d record%s (capacity %d%s) from %s, live" % (
            h.cpu, h.count, "" if h.count == 1 else "s", h.capacity,
            ", wrapped: older history lost" if h.flags & DUMP_WRAPPED else "", h.source)
    line = "CPU %d: %d record%s (capacity %d%s) from %s, %s %s" % (
        h.cpu, h.count, "" if h.count == 1 else "s", h.capacity,
        ", wrapped: older history lost" if h.flags & DUMP_WRAPPED else "",
        h.source, "captured at" if h.flags & DUMP_CAPTURE else "dumped on", REASONS[h.reason])
    if h.fault_index != NO_FAULT:
        line += ", fault at #%d" % h.fault_index
    if h.release:
        line += ", kernel %s" % h.release
    line += ", at %d.%09d s" % (h.timestamp_ns // 10**9, h.timestamp_ns % 10**9)
    if h.lost:
        line += ", %d later capture%s not kept" % (h.lost, "" if h.lost == 1 else "s")
    return line


def _transition(r):
    fu, tu = _is_user(r.from_), _is_user(r.to)
    if fu == tu:
        return ""
    return "  (user->kernel)" if fu else "  (kernel->user)"


def print_text(prog, cap, cpus=None, raw=False, out=None):
    out = out or sys.stdout
    if cap.reason == "live":
        out.write("bts live: the current histories, %d of %d CPUs recording\n" % (
            len(cap.histories), cap.nr_slots))
    else:
        out.write("bts capture: %s, faulting CPU %s, %d of %d CPUs kept\n" % (
            cap.reason, cap.fault_cpu if cap.fault_cpu >= 0 else "none",
            len(cap.histories), cap.nr_slots))
    for h in sorted(cap.histories, key=lambda h: h.cpu):
        if cpus is not None and h.cpu not in cpus:
            continue
        out.write(_header_text(h) + "\n")
        if not h.count:
            out.write("  (no records%s)\n" % (": nothing recorded since arming"
                                              if h.flags & DUMP_EMPTY else ""))
        for i, r in enumerate(h.records):
            out.write("%7d %s -> %s%s%s\n" % (
                i, _end_text(prog, r.from_, r.from_cleared(), raw),
                _end_text(prog, r.to, r.to_cleared(), raw), _transition(r),
                "  <== FAULT" if i == h.fault_index or r.flags & FLAG_FAULT else ""))


def _json_end(prog, which, addr, cleared, raw=False):
    if cleared:
        return {which: None, which + "_sym": None}
    o = {which: "0x%x" % addr}
    s = None if raw else _sym(prog, addr)
    o[which + "_sym"] = s[0] if s else None
    if s:
        o[which + "_off"] = s[1]
    return o


def print_json(prog, cap, cpus=None, out=None, raw=False):
    out = out or sys.stdout
    for h in sorted(cap.histories, key=lambda h: h.cpu):
        if cpus is not None and h.cpu not in cpus:
            continue
        d = {"type": "dump", "cpu": h.cpu, "source": h.source, "count": h.count,
             "capacity": h.capacity, "wrapped": bool(h.flags & DUMP_WRAPPED),
             "capture": bool(h.flags & DUMP_CAPTURE), "user": bool(h.flags & DUMP_USER),
             "empty": bool(h.flags & DUMP_EMPTY), "reason": REASONS[h.reason],
             "reason_code": h.reason,
             "fault_index": None if h.fault_index == NO_FAULT else h.fault_index,
             "timestamp_ns": h.timestamp_ns, "stext": "0x%x" % h.stext,
             "kaslr_offset": "0x%x" % h.kaslr_offset, "lost": h.lost, "release": h.release,
             "build_id": h.build_id or None, "fault_cpu": cap.fault_cpu}
        if getattr(h, "live", False):
            d["live"] = True
        out.write(json.dumps(d, separators=(",", ":")) + "\n")
        for i, r in enumerate(h.records):
            o = {"type": "branch", "cpu": h.cpu, "index": i}
            o.update(_json_end(prog, "from", r.from_, r.from_cleared(), raw))
            o.update(_json_end(prog, "to", r.to, r.to_cleared(), raw))
            o.update({"flags": "0x%x" % r.flags,
                      "fault": i == h.fault_index or bool(r.flags & FLAG_FAULT),
                      "sw": bool(r.flags & FLAG_SW),
                      "user_cleared": bool(r.flags & FLAG_USER_CLEARED)})
            out.write(json.dumps(o, separators=(",", ":")) + "\n")


def main(prog, argv):
    import argparse
    ap = argparse.ArgumentParser(prog="bts.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("-c", "--cpu", type=int, action="append", help="only this CPU (repeatable)")
    ap.add_argument("-r", "--raw", action="store_true",
                    help="raw addresses, no symbols (with -j: no _sym keys named)")
    ap.add_argument("-j", "--json", action="store_true", help="JSON lines")
    ap.add_argument("-l", "--live", action="store_true",
                    help="the current histories, not the kept capture")
    a = ap.parse_args(argv)
    try:
        cap = bts_live(prog) if a.live else bts_capture(prog)
    except BtsError as e:
        sys.stderr.write("bts: %s\n" % e)
        return 1
    for e in cap.errors:
        sys.stderr.write("bts: %s\n" % e)
    try:
        if a.json:
            print_json(prog, cap, a.cpu, raw=a.raw)
        else:
            print_text(prog, cap, a.cpu, a.raw)
        sys.stdout.flush()
    except BrokenPipeError:
        # the reader went away (| head): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 1 if cap.errors else 0


if __name__ == "__main__" and "prog" in globals():
    sys.exit(main(globals()["prog"], sys.argv[1:]))
