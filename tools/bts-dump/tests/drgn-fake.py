#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run tools/bts-dump/drgn/bts.py on an ELF core without drgn or a kernel.

    drgn-fake.py CORE SYMBOLS [bts.py options]

A test tool: a stand-in for drgn's Program with the calls bts.py makes
(read, read_u64, symbol by name and by address, symbols), over an ELF core
such as tests/gen-vmcore.py writes: physical memory where its PT_LOAD
segments say (bytes past p_filesz are not there, as drgn faults on
them), its VMCOREINFO note where the kernel's vmcoreinfo_note and
vmcoreinfo_data would point, and text symbols from SYMBOLS (kallsyms or
System.map lines). Everything bts.py prints goes to stdout and stderr as it would
under drgn, and the exit status is its main()'s.
"""
import bisect
import importlib.util
import os
import struct
import sys

NOTE_VADDR = 0xFFFF888000100000     # where vmcoreinfo_data "points"
ELF_NOTE_VADDR = 0xFFFF888000200000  # where vmcoreinfo_note "points"
SYM_DATA = 0xFFFFFFFF82000000       # &vmcoreinfo_data
SYM_SIZE = 0xFFFFFFFF82000008       # &vmcoreinfo_size
SYM_NOTE = 0xFFFFFFFF82000010       # &vmcoreinfo_note


class FaultError(Exception):
    pass


class Symbol:
    def __init__(self, name, address, size, binding="SymbolBinding.GLOBAL"):
        self.name, self.address, self.size = name, address, size
        self.binding, self.kind = binding, "SymbolKind.FUNC"


class FakeProg:
    def __init__(self, core, symbols):
        self.data = open(core, "rb").read()
        self.segs, self.note = [], b""
        self._parse()
        self.syms = []
        for line in open(symbols):
            f = line.split()
            if len(f) >= 3 and f[1] in "tTwW":
                self.syms.append((int(f[0], 16), f[2], f[1]))
        self.syms.sort()
        self.addrs = [a for a, _, _ in self.syms]

    def _parse(self):
        d = self.data
        if len(d) < 64 or d[:4] != b"\x7fELF":
            raise FaultError("not an ELF file")
        phoff, = struct.unpack_from("<Q", d, 32)
        phentsize, phnum = struct.unpack_from("<HH", d, 54)
        for i in range(phnum):
            o = phoff + i * phentsize
            if o + 56 > len(d):
                raise FaultError("program headers past the end of the file")
            p_type, _, p_offset, _, p_paddr, p_filesz, p_memsz, _ = struct.unpack_from("<IIQQQQQQ", d, o)
            if p_type == 1:
                self.segs.append((p_paddr, p_offset, p_filesz))
            elif p_type == 4:
                self._notes(d[p_offset:p_offset + p_filesz])

    def _notes(self, b):
        o = 0
        while o + 12 <= len(b):
            namesz, descsz, ntype = struct.unpack_from("<III", b, o)
            o += 12
            name = b[o:o + namesz].rstrip(b"\0")
            o += (namesz + 3) & ~3
            desc = b[o:o + descsz]
            o += (descsz + 3) & ~3
            if name == b"VMCOREINFO":
                self.note = desc

    def _elf_note(self):
        """The note as the kernel's vmcoreinfo_note buffer holds it."""
        name = b"VMCOREINFO\0"
        return (struct.pack("<III", len(name), len(self.note), 0) + name + b"\0" * (-len(name) % 4)
                + self.note)

    def read(self, addr, size, physical=False):
        if not physical:
            for base, buf in ((NOTE_VADDR, self.note), (ELF_NOTE_VADDR, self._elf_note())):
                if self.note and base <= addr and addr + size <= base + len(buf):
                    return buf[addr - base:addr - base + size]
            raise FaultError("could not find memory segment: %#x" % addr)
        out = b""
        while size:
            for paddr, off, filesz in self.segs:
                if paddr <= addr < paddr + filesz:
                    n = min(size, paddr + filesz - addr)
                    chunk = self.data[off + addr - paddr:off + addr - paddr + n]
                    if len(chunk) != n:
                        raise FaultError("past the end of the file: %#x" % addr)
                    out += chunk
                    addr += n
                    size -= n
                    break
            else:
                raise FaultError("could not find memory segment: %#x" % addr)
        return out

    def read_u64(self, addr):
        if addr == SYM_DATA:
            return NOTE_VADDR if self.note else 0
        if addr == SYM_SIZE:
            return len(self.note)
        if addr == SYM_NOTE:
            return ELF_NOTE_VADDR if self.note else 0
        return struct.unpack("<Q", self.read(addr, 8))[0]

    def symbol(self, what):
        if isinstance(what, str):
            if what == "vmcoreinfo_data":
                return Symbol(what, SYM_DATA, 8)
            if what == "vmcoreinfo_size":
                return Symbol(what, SYM_SIZE, 8)
            if what == "vmcoreinfo_note":
                return Symbol(what, SYM_NOTE, 8)
            raise LookupError(what)
        i = bisect.bisect_right(self.addrs, what) - 1
        if i < 0 or i + 1 >= len(self.syms):
            raise LookupError(hex(what))
        # the first name at that address, as kallsyms prints it
        k = i
        while k > 0 and self.syms[k - 1][0] == self.syms[i][0]:
            k -= 1
        j = i + 1
        while j < len(self.syms) and self.syms[j][0] == self.syms[i][0]:
            j += 1
        if j >= len(self.syms):
            raise LookupError(hex(what))
        return Symbol(self.syms[k][1], self.syms[k][0], self.syms[j][0] - self.syms[k][0])

    def symbols(self):
        binding = {"t": "LOCAL", "T": "GLOBAL"}
        return [Symbol(name, a, 0, "SymbolBinding." + binding.get(t, "WEAK"))
                for a, name, t in self.syms]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("bts", os.path.join(here, "..", "drgn", "bts.py"))
    bts = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bts)
    try:
        prog = FakeProg(sys.argv[1], sys.argv[2])
    except FaultError as e:
        sys.stderr.write("drgn-fake: %s\n" % e)
        return 1
    return bts.main(prog, sys.argv[3:])


if __name__ == "__main__":
    sys.exit(main())
