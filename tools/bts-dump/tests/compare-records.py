#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare two readers' JSON lines of the same histories, record for record.

    compare-records.py REFERENCE OTHER

REFERENCE is bts-dump's --json output, OTHER another reader's (the drgn
helper, the crash extension) with the same keys. For every "branch" object,
by (cpu, index): from, to, flags and the fault mark must be equal, and so
must the symbol and offset of each end wherever both name one (a symbol
both readers know under different names of one address is counted apart,
as an alias, not as a difference). The "dump" objects' cpu, count,
fault_index and reason must agree. Prints one line:

    N records, M different, A aliases, H histories[, first difference: ...]

and exits 0 only when N > 0 and nothing differs.
"""
import json
import sys


def load(path):
    dumps, branches = {}, {}
    for line in open(path):
        line = line.strip()
        if not line:
            continue
        o = json.loads(line)
        if o.get("type") == "dump":
            dumps[o["cpu"]] = o
        elif o.get("type") == "branch":
            branches[(o["cpu"], o["index"])] = o
    return dumps, branches


def main():
    ref_d, ref_b = load(sys.argv[1])
    oth_d, oth_b = load(sys.argv[2])
    diffs, aliases, first = 0, 0, None

    def differ(what):
        nonlocal diffs, first
        diffs += 1
        if first is None:
            first = what

    for cpu in sorted(set(ref_d) | set(oth_d)):
        a, b = ref_d.get(cpu), oth_d.get(cpu)
        if a is None or b is None:
            differ("CPU %d: a history in only one of them" % cpu)
            continue
        for k in ("count", "fault_index", "reason"):
            if a.get(k) != b.get(k):
                differ("CPU %d: %s %r against %r" % (cpu, k, a.get(k), b.get(k)))
    for key in sorted(set(ref_b) | set(oth_b)):
        a, b = ref_b.get(key), oth_b.get(key)
        if a is None or b is None:
            differ("cpu %d #%d: in only one of them" % key)
            continue
        for k in ("from", "to", "flags", "fault"):
            if a.get(k) != b.get(k):
                differ("cpu %d #%d: %s %r against %r" % (key[0], key[1], k, a.get(k), b.get(k)))
        for end in ("from", "to"):
            sa, sb = a.get(end + "_sym"), b.get(end + "_sym")
            if sa is None or sb is None:
                continue
            if sa != sb:
                # another name of the same address, if the offsets agree
                if a.get(end + "_off") == b.get(end + "_off"):
                    aliases += 1
                else:
                    differ("cpu %d #%d: %s %s+%s against %s+%s" % (
                        key[0], key[1], end, sa, a.get(end + "_off"), sb, b.get(end + "_off")))
            elif a.get(end + "_off") != b.get(end + "_off"):
                differ("cpu %d #%d: %s offset %s against %s" % (
                    key[0], key[1], end, a.get(end + "_off"), b.get(end + "_off")))
    line = "%d records, %d different, %d aliases, %d histories" % (
        len(ref_b), diffs, aliases, len(ref_d))
    if first:
        line += ", first difference: " + first
    print(line)
    return 0 if ref_b and not diffs else 1


if __name__ == "__main__":
    sys.exit(main())
