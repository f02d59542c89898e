#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Branch kinds on code the kernel rewrites at boot, on the fixture kernel.

    patched-kinds.py BTS_DUMP GEN_DUMP FIXTURE WORKDIR

Finds the sites in `objdump -d FIXTURE` (tests/fixture/kernel.c), writes
one dump with a record per case, runs `bts-dump --json -k FIXTURE` and
checks each record's kind. Prints "# ..." for each failure; exits 1.
"""
import json
import re
import subprocess
import sys

bts, gen, elf, work = sys.argv[1:5]
dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", elf], capture_output=True,
                     text=True, check=True).stdout
insns = {}      # function -> [(addr, text)]
sym = {}
cur = None
for line in dis.splitlines():
    m = re.match(r"^([0-9a-f]+) <([^>]+)>:$", line)
    if m:
        cur = m.group(2)
        sym[cur] = int(m.group(1), 16)
        insns[cur] = []
        continue
    m = re.match(r"^ *([0-9a-f]+):\s+(.*)$", line)
    if m and cur:
        insns[cur].append((int(m.group(1), 16), m.group(2).strip()))


def find(fn, pattern, nth=0):
    hits = [(a, t) for a, t in insns[fn] if re.search(pattern, t)]
    return hits[nth][0]


def after(fn, addr):
    lst = insns[fn]
    return next(lst[i + 1][0] for i in range(len(lst)) if lst[i][0] == addr)


nm = subprocess.run(["nm", elf], capture_output=True, text=True, check=True).stdout
for line in nm.splitlines():
    a, _, name = line.split()
    sym.setdefault(name, int(a, 16))

# The static key's target, as the __jump_table entry says (code, target relative).
jt = subprocess.run(["objdump", "-s", "-j", "__jump_table", elf], capture_output=True,
                    text=True, check=True).stdout
row = [l for l in jt.splitlines() if re.match(r"^ [0-9a-f]+ ", l)][0].split()
base = int(row[0], 16)
words = bytes.fromhex("".join(row[1:5]))
code = base + int.from_bytes(words[0:4], "little", signed=True)
target = base + 4 + int.from_bytes(words[4:8], "little", signed=True)
assert code == sym["keyed"], "fixture: the static key is not keyed's first instruction"

call_keyed = find("start_kernel", r"call .*<keyed>")
ret_site = find("keyed", r"jmp .*<__x86_return_thunk>")
cases = [
    # (name, from, to, want)
    ("a direct call that goes where it says is a call",
     call_keyed, sym["keyed"], "call"),
    ("jmp __x86_return_thunk patched to ret, returning to the caller, is a ret",
     ret_site, after("start_kernel", call_keyed), "ret"),
    ("jmp __x86_return_thunk into the thunk (not patched) is a jmp",
     ret_site, sym["__x86_return_thunk"], "jmp"),
    ("jmp __x86_return_thunk patched to another return thunk (ITS) is a jmp into it",
     ret_site, sym["its_return_thunk"], "jmp"),
    ("the thunk's own ret is a ret",
     sym["__x86_return_thunk"], after("start_kernel", call_keyed), "ret"),
    ("a static-key NOP that jumped to its __jump_table target is a jmp",
     code, target, "jmp"),
    ("an interrupt before a static-key NOP is exc",
     code, sym["asm_exc_page_fault"], "exc"),
    ("call __x86_indirect_thunk_rax patched to call *%rax is a call",
     find("call_indirect", r"call .*<__x86_indirect_thunk_rax>"), sym["outer"], "call"),
    ("a fault before a jcc ran is exc, not jcc",
     find("outer", r"^j[a-z]+ +[0-9a-f]+ <outer"), sym["asm_exc_page_fault"], "exc"),
    ("a direct call that went elsewhere (text rewritten) is patched",
     call_keyed, sym["outer"], "patched"),
    ("an alternative site that called its replacement's target is patched",
     sym["alternative_site"], sym["outer"], "patched"),
]
recs = "".join("%x %x\n" % (c[1], c[2]) for c in cases)
open(work + "/patched.recs", "w").write(recs)
subprocess.run([gen, "-o", work + "/patched.bts", "--stext", "0x%x" % sym["_stext"],
                "--records-file", work + "/patched.recs"], check=True)
out = subprocess.run([bts, "--json", "-k", elf, work + "/patched.bts"], capture_output=True,
                     text=True)
kinds = [json.loads(l)["kind"] for l in out.stdout.splitlines()
         if json.loads(l)["type"] == "branch"]
bad = 0
for (name, f, t, want), got in zip(cases, kinds):
    if got != want:
        print("# %s: 0x%x -> 0x%x is %s, want %s" % (name, f, t, got, want))
        bad += 1
if len(kinds) != len(cases):
    print("# bts-dump printed %d records of %d: %s" % (len(kinds), len(cases), out.stderr))
    bad += 1
print("# %d of %d kinds right" % (len(cases) - bad, len(cases)))
sys.exit(1 if bad else 0)
