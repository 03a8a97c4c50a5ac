"""Turns executed addresses into LLD's symbol ordering file for `orbit`.

Usage: link_order.py MAP BASE TRACE... > crates/cli/link/orbit.order

MAP is the linker map of the traced binary (ORBIT_LINK_MAP, see
crates/cli/build.rs), BASE the hex address the binary was loaded at, each
TRACE a valgrind lackey `--trace-superblocks=yes` log. Prints, in order of
first execution, one symbol per executed text section (function). Run by
bench/link-order.sh.
"""

import bisect
import re
import sys

# An input section of one function (`-ffunction-sections`): its name is
# `.text.` + the mangled symbol (the map's symbol lines are demangled).
SECTION = re.compile(r"^\s*([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+\s+\S.*:\(\.text\.(?:unlikely\.|hot\.|startup\.)?([^)]+)\)$")


def sections(path):
    """(start, end, symbol) of every per-function text section, by start."""
    out = []
    with open(path) as f:
        for line in f:
            m = SECTION.match(line)
            if m:
                start, size = int(m.group(1), 16), int(m.group(2), 16)
                out.append((start, start + size, m.group(3)))
    out.sort(key=lambda s: s[0])
    return out


def main():
    secs = sections(sys.argv[1])
    starts = [s[0] for s in secs]
    base = int(sys.argv[2], 16)
    seen = set()
    for trace in sys.argv[3:]:
        with open(trace, errors="replace") as f:
            for line in f:
                if not line.startswith("SB "):
                    continue
                addr = int(line[3:].strip(), 16) - base
                i = bisect.bisect_right(starts, addr) - 1
                if i < 0 or addr >= secs[i][1] or i in seen:
                    continue
                seen.add(i)
                print(secs[i][2])


main()
