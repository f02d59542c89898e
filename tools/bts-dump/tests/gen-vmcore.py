#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write a small kdump crash dump (an ELF64 core) holding a bts table.

    gen-vmcore.py -o OUT [options] DUMP...

A test tool, written from include/uapi/linux/bts.h (struct
bts_vmcore_table, struct bts_vmcore_slot and the comment above them) and
the ELF core layout of /proc/vmcore, independently of bts-dump's reader.
Each DUMP (a dump file: header and records, as gen-dump writes) becomes
one written slot, in order: its 192-byte header, and its records in page
frames scattered over two PT_LOAD segments far apart, out of order, from
a byte offset in the first page (--recs-offset). VMCOREINFO says
OSRELEASE, BUILD-ID, KERNELOFFSET from the first dump's header (or as
given), PAGESIZE and BTS_TABLE.

Faults to order: --no-vmcoreinfo, --no-bts-table, --unfilled (no magic),
--nr-written N, --nr-slots N, --pfn-outside (slot 0's second frame in no
PT_LOAD), --bad-slot-header (slot 0's magic), --exclude-records (the
segment of slot 0's first record page has p_filesz < p_memsz, the page
past p_filesz), --truncate N (bytes kept), --kerneloffset/--build-id/
--osrelease (VMCOREINFO's values).
"""
import argparse
import struct
import sys

PAGE = 4096
TABLE_PADDR = 0x1000000 + 0x100     # not page-aligned: an object in a page
SEG_A = 0x1000000                    # the table's page
SEG_B = 0x20000000                   # record pages, 4 of them
SEG_C = 0x48000000                   # record pages, 4 more, far away
NPAGES = 4
HOLE = 0x30000000                    # in no segment


def note(name, ntype, desc):
    n = name.encode() + b"\0"
    pad = lambda b: b + b"\0" * (-len(b) % 4)
    return struct.pack("<III", len(n), len(desc), ntype) + pad(n) + pad(desc)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-o", required=True)
    ap.add_argument("--recs-offset", default="4008,0",
                    help="per slot, comma-separated (the last repeats)")
    ap.add_argument("--no-vmcoreinfo", action="store_true")
    ap.add_argument("--no-bts-table", action="store_true")
    ap.add_argument("--unfilled", action="store_true")
    ap.add_argument("--nr-written", type=int)
    ap.add_argument("--nr-slots", type=int)
    ap.add_argument("--pfn-outside", action="store_true")
    ap.add_argument("--bad-slot-header", action="store_true")
    ap.add_argument("--exclude-records", action="store_true")
    ap.add_argument("--truncate", type=int)
    ap.add_argument("--kerneloffset")
    ap.add_argument("--build-id")
    ap.add_argument("--osrelease")
    ap.add_argument("dumps", nargs="*")
    a = ap.parse_args()

    dumps = [open(p, "rb").read() for p in a.dumps]
    offs = [int(x, 0) for x in a.recs_offset.split(",")]
    mem = {SEG_A: bytearray(PAGE), SEG_B: bytearray(NPAGES * PAGE), SEG_C: bytearray(NPAGES * PAGE)}
    # Page frames handed out in this order: alternating far-apart segments,
    # descending within each.
    frames = []
    for k in range(NPAGES):
        frames += [SEG_C // PAGE + NPAGES - 1 - k, SEG_B // PAGE + (k * 3 + 1) % NPAGES]

    def poke(paddr, data):
        for base, buf in mem.items():
            if base <= paddr and paddr + len(data) <= base + len(buf):
                buf[paddr - base:paddr - base + len(data)] = data
                return
        raise SystemExit("gen-vmcore: 0x%x not in memory" % paddr)

    nr_slots = a.nr_slots if a.nr_slots is not None else len(dumps) + 2
    nr_written = a.nr_written if a.nr_written is not None else len(dumps)
    slot_size = 336
    h0 = dumps[0][:192] if dumps else bytes(192)
    for i, d in enumerate(dumps):
        hdr, hsize = bytearray(d[:192]), struct.unpack_from("<H", d, 10)[0]
        recs = d[hsize:]
        off = offs[min(i, len(offs) - 1)]
        npages = (off + len(recs) + PAGE - 1) // PAGE
        pfns = [frames.pop(0) for _ in range(npages)]
        if i == 0 and a.pfn_outside and npages > 1:
            pfns[1] = HOLE // PAGE
        pos = 0
        for k, pfn in enumerate(pfns):
            start = off if k == 0 else 0
            n = min(PAGE - start, len(recs) - pos)
            if pfn * PAGE != HOLE:
                poke(pfn * PAGE + start, recs[pos:pos + n])
            pos += n
        if i == 0 and a.bad_slot_header:
            hdr[0:8] = b"BTSDUMQ\0"
        slot = bytes(hdr) + struct.pack("<II", off, npages) + \
            struct.pack("<17Q", *(pfns + [0] * (17 - npages)))
        assert len(slot) == slot_size
        poke(TABLE_PADDR + 48 + i * slot_size, slot)
    reason, cpu = struct.unpack_from("<II", h0, 32)[0], struct.unpack_from("<I", h0, 16)[0]
    table = struct.pack("<8sIIIIIIIiQ", b"" if a.unfilled else b"BTSCORE\0", 1, 48, slot_size,
                        nr_slots, nr_written, PAGE, reason, cpu if dumps else -1, 0)
    poke(TABLE_PADDR, table)

    # VMCOREINFO, as the kernel writes it.
    release = a.osrelease or h0[88:152].split(b"\0")[0].decode()
    bid_size = struct.unpack_from("<I", h0, 172)[0]
    bid = a.build_id if a.build_id is not None else h0[152:152 + min(bid_size, 20)].hex()
    koff = a.kerneloffset or "%x" % struct.unpack_from("<Q", h0, 56)[0]
    info = "OSRELEASE=%s\n" % release
    if bid:
        info += "BUILD-ID=%s\n" % bid
    info += "PAGESIZE=%d\n" % PAGE
    info += "SYMBOL(_stext)=%x\n" % struct.unpack_from("<Q", h0, 48)[0]
    info += "NUMBER(phys_base)=0\nKERNELOFFSET=%s\n" % koff
    if not a.no_bts_table:
        info += "BTS_TABLE=%x\n" % TABLE_PADDR
    notes = note("CORE", 1, bytes(336))
    if not a.no_vmcoreinfo:
        notes += note("VMCOREINFO", 0, info.encode())

    # The file: ELF header, program headers, notes, then each segment's bytes.
    segs = [(SEG_A, mem[SEG_A]), (SEG_B, mem[SEG_B]), (SEG_C, mem[SEG_C])]
    nph = 1 + len(segs)
    notes_off = 64 + 56 * nph
    off = (notes_off + len(notes) + PAGE - 1) // PAGE * PAGE
    phdrs = struct.pack("<IIQQQQQQ", 4, 0, notes_off, 0, 0, len(notes), len(notes), 4)
    body = bytearray()
    for paddr, buf in segs:
        filesz = len(buf)
        if a.exclude_records and paddr == SEG_C:
            filesz = PAGE * 3      # slot 0's first record page is the last one
        phdrs += struct.pack("<IIQQQQQQ", 1, 7, off + len(body), 0xffff888000000000 + paddr,
                             paddr, filesz, len(buf), PAGE)
        body += buf[:filesz]
    ehdr = struct.pack("<4sBBBBB7sHHIQQQIHHHHHH", b"\x7fELF", 2, 1, 1, 0, 0, bytes(7),
                       4, 62, 1, 0, 64, 0, 0, 64, 56, nph, 0, 0, 0)
    out = ehdr + phdrs + notes
    out += bytes(off - len(out)) + body
    if a.truncate is not None:
        out = out[:a.truncate]
    open(a.o, "wb").write(out)


if __name__ == "__main__":
    sys.exit(main())
