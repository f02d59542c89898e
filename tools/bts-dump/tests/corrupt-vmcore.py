#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Write a copy of a kdump crash dump with one field of bts's tables damaged.

    corrupt-vmcore.py VMCORE VMLINUX OUT CASE

For the crash extension's tests (test-crash.sh): crash cannot open the
small made-up cores of gen-vmcore.py, so its validation is tried on a real
dump, damaged one field at a time. drgn (its Python module) finds where the
tables are: the kept capture's through VMCOREINFO's BTS_TABLE= (physical),
the live index through the symbol bts_live (a direct-map address). CASE:

  table-magic table-version table-written slot-magic slot-count slot-pfn
  live-magic live-slots live-kind live-nr
"""
import struct
import sys

import drgn
from drgn.helpers.linux.mm import virt_to_phys

vmcore, vmlinux, out, case = sys.argv[1:5]
prog = drgn.program_from_core_dump(vmcore)
prog.load_debug_info([vmlinux], default=False)


def vmcoreinfo():
    note = prog.read_u64(prog.symbol("vmcoreinfo_note").address)
    namesz, descsz, _ = struct.unpack("<III", prog.read(note, 12))
    return prog.read(note + 12 + (namesz + 3) // 4 * 4, descsz).decode("ascii", "replace")


table = int([l for l in vmcoreinfo().splitlines() if l.startswith("BTS_TABLE=")][0].split("=")[1], 16)
live = int(virt_to_phys(drgn.Object(prog, "void *", prog.read_u64(prog.symbol("bts_live").address))))

data = bytearray(open(vmcore, "rb").read())


def file_offset(paddr):
    phoff, = struct.unpack_from("<Q", data, 32)
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    for i in range(phnum):
        p_type, _, p_offset, _, p_paddr, p_filesz = struct.unpack_from("<IIQQQQ", data, phoff + i * phentsize)
        if p_type == 1 and p_paddr <= paddr < p_paddr + p_filesz:
            return p_offset + paddr - p_paddr
    sys.exit("corrupt-vmcore: physical %#x is not in %s" % (paddr, vmcore))


def put(paddr, fmt, *v):
    struct.pack_into(fmt, data, file_offset(paddr), *v)


slot0 = table + 48
edits = {
    "table-magic": lambda: put(table, "<8s", b"XTSCORE\0"),
    "table-version": lambda: put(table + 8, "<I", 9),
    "table-written": lambda: put(table + 24, "<I", 100000),
    "slot-magic": lambda: put(slot0, "<8s", b"XTSDUMP\0"),
    "slot-count": lambda: put(slot0 + 20, "<I", 5000),
    "slot-pfn": lambda: put(slot0 + 200, "<Q", 1 << 40),
    "live-magic": lambda: put(live, "<8s", b"XTSLIVE\0"),
    "live-slots": lambda: put(live + 20, "<I", 0),
    "live-kind": lambda: put(live + 32 + 6, "<H", 9),
    "live-nr": lambda: put(live + 32 + 8, "<I", 1 << 30),
}
edits[case]()
open(out, "wb").write(data)
