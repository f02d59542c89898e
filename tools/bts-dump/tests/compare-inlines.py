#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare bts-dump's source locations and inline chains with addr2line.

    compare-inlines.py BTS_DUMP ELF DUMP [ADDR2LINE] [-- BTS_DUMP_ARGS...]

With BTS_DUMP_ARGS, bts-dump runs with them instead of "-k ELF" (say,
"-s kallsyms --modules DIR" for a module); then MODULE_BASE=0x... in the
environment means ELF is that module's .ko (ET_REL) with its .text there:
only addresses inside it are compared, as addr2line -j .text offsets.

ADDR2LINE defaults to llvm-addr2line if installed, else addr2line. GNU
addr2line 2.40 (Debian 12) names the wrong file for the out-of-line copy
of a function defined in a header in DWARF 5 (mm/sparse.c:1875 for
include/linux/mmzone.h:1875, __nr_to_section): llvm-addr2line and libdw
agree there, so the LLVM one is the reference where it exists.

Runs `bts-dump --json -k ELF DUMP`, takes every address the records
show a source location for (from and to), asks `addr2line -i -f -e ELF`
about the same addresses and checks, frame for frame, that both give the
same chain: the innermost location, then for each inline frame its
function and the location it was inlined at. Prints a summary and the
first differences; exits 1 on any difference.
"""
import json
import os
import re
import shutil
import subprocess
import sys

args = sys.argv[1:]
extra = None
if "--" in args:
    extra = args[args.index("--") + 1:]
    args = args[:args.index("--")]
bts, elf, dump = args[0:3]
addr2line = args[3] if len(args) > 3 and args[3] else (
    "llvm-addr2line" if shutil.which("llvm-addr2line") else "addr2line")
base = int(os.environ["MODULE_BASE"], 16) if os.environ.get("MODULE_BASE") else None
text_size = 0
if base is not None:
    for l in subprocess.run(["readelf", "-S", "-W", elf], capture_output=True,
                            text=True).stdout.splitlines():
        f = l.replace("[ ", "[").split()
        if len(f) > 6 and f[1] == ".text":
            text_size = int(f[5], 16)

out = subprocess.run([bts, "--json", "--no-decode"] + (extra if extra else ["-k", elf]) +
                     [dump], capture_output=True, text=True)
if out.returncode != 0:
    sys.exit("bts-dump failed: " + out.stderr.strip()[-500:])

ours = {}          # address -> src string or None
for line in out.stdout.splitlines():
    o = json.loads(line)
    if o["type"] != "branch":
        continue
    for which in ("from", "to"):
        a = int(o[which], 16)
        if not a >> 63:
            continue            # user space: no source
        if base is not None and not base <= a < base + text_size:
            continue            # not in the module
        if which == "from" and o["sw"]:
            a -= 1              # bts-dump looks up the call, before the return address
        ours.setdefault(a, o.get(which + "_src"))

addrs = sorted(ours)
p = subprocess.run([addr2line, "-a", "-i", "-f", "-e", elf] +
                   (["-j", ".text"] if base is not None else []),
                   input="".join("0x%x\n" % (a - (base or 0)) for a in addrs),
                   capture_output=True, text=True)
if p.returncode != 0:
    sys.exit("addr2line failed: " + p.stderr.strip()[-500:])

theirs = {}
cur = None
lines = p.stdout.splitlines()
i = 0
while i < len(lines):
    if re.match(r"^0x[0-9a-f]+$", lines[i]):
        cur = int(lines[i], 16) + (base or 0)
        theirs[cur] = []
        i += 1
        continue
    func, loc = lines[i], lines[i + 1] if i + 1 < len(lines) else "??:0"
    theirs[cur].append((func, loc))
    i += 2


def norm_loc(loc):
    loc = re.sub(r" \(discriminator \d+\)$", "", loc.strip())
    path, _, line = loc.rpartition(":")
    if path in ("??", "") or line in ("?", "0", ""):
        return None
    return (os.path.normpath(path), line)


def same_loc(a, b):
    if a is None or b is None:
        return a is None and b is None
    return a[1] == b[1] and (a[0] == b[0] or b[0].endswith("/" + a[0]) or
                             a[0].endswith("/" + b[0]))


CHAIN = re.compile(r"^(\S+:\d+)((?: \S+ inlined at \S+:\d+)*)$")


def our_frames(src):
    """[(function or None, loc)] innermost first; the outer function is unnamed."""
    if src is None:
        return None
    m = CHAIN.match(src)
    if not m:
        return "unparsable: " + src
    frames = [[None, norm_loc(m.group(1))]]
    for name, loc in re.findall(r" (\S+) inlined at (\S+:\d+)", m.group(2)):
        frames[-1][0] = name
        frames.append([None, norm_loc(loc)])
    return frames


diffs = []
agree = 0
for a in addrs:
    mine = our_frames(ours[a])
    their = theirs.get(a, [])
    known = [(f, norm_loc(l)) for f, l in their]
    if mine is None:
        if not known or known[0][1] is None:
            agree += 1
        else:
            diffs.append((a, "bts-dump: no location", their))
        continue
    if isinstance(mine, str):
        diffs.append((a, mine, their))
        continue
    ok = len(mine) == len(known)
    for k in range(min(len(mine), len(known))):
        if not same_loc(mine[k][1], known[k][1]):
            ok = False
        if k + 1 < len(mine) and mine[k][0] != known[k][0]:
            ok = False
    if ok:
        agree += 1
    else:
        diffs.append((a, ours[a], their))

print("# %d addresses: %d agree with %s -i -f, %d differ" %
      (len(addrs), agree, addr2line, len(diffs)))
for a, mine, their in diffs[:int(os.environ.get("SHOW","5"))]:
    print("# 0x%x\n#   bts-dump:  %s\n#   addr2line: %s" %
          (a, mine, " | ".join("%s %s" % ft for ft in their)))
sys.exit(1 if diffs or not addrs else 0)
