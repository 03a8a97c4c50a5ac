"""Turns executed addresses into LLD's symbol ordering file for `orbit`.

Usage: link_order.py [--globs FILE] MAP BASE TRACE... > crates/cli/link/orbit.order

MAP is the linker map of the traced binary (ORBIT_LINK_MAP, see
crates/cli/build.rs), BASE the hex address the binary was loaded at, each
TRACE a valgrind lackey `--trace-superblocks=yes` log (or
bench/link_order_gdb.py's, whose `BASE HEX` line overrides BASE). Prints,
in order of first execution (trace by trace, in the order given), one
symbol per executed text section (function). Run by bench/link-order.sh.

With --globs FILE, also writes to FILE the names, without their hash, of
the executed functions whose every instance in the map was executed (a
non-generic function, or a generic one all of whose instances ran):
crates/cli/build.rs lays them out by a glob that survives the hash
changes a dependency, feature or toolchain change brings. The others are
placed by their exact name alone.
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


# In a v0 name (`_R…`), a crate's disambiguator (`Cs<base-62 hash>_`, the
# hash of its metadata) and a back-reference (`B<base-62 offset>_`, whose
# offset moves when a disambiguator's length does).
V0_HASHED = re.compile(r"(Cs|B)[0-9A-Za-z]*_")


def stem(name):
    """The name as build.rs's glob matches it: without ThinLTO's suffix,
    a legacy name's hash, or a v0 name's crate hashes and back-references
    (each a `*`)."""
    name = name.split(".llvm.", 1)[0]
    if name.startswith("_ZN") and len(name) > 23 and name.endswith("E") and name[-20:-17] == "17h":
        return name[:-17]
    if name.startswith("_R"):
        return V0_HASHED.sub(lambda m: m.group(1) + "*_", name)
    return name


def main():
    args = sys.argv[1:]
    globs = None
    if args[0] == "--globs":
        globs, args = args[1], args[2:]
    secs = sections(args[0])
    starts = [s[0] for s in secs]
    base = int(args[1], 16)
    seen = set()
    executed = []
    for trace in args[2:]:
        here = base
        with open(trace, errors="replace") as f:
            for line in f:
                if line.startswith("BASE "):
                    here = int(line[5:].strip(), 16)
                if not line.startswith("SB "):
                    continue
                addr = int(line[3:].strip(), 16) - here
                i = bisect.bisect_right(starts, addr) - 1
                if i < 0 or addr >= secs[i][1] or i in seen:
                    continue
                seen.add(i)
                executed.append(secs[i][2])
                print(secs[i][2])
    if globs:
        write_globs(globs, secs, executed)


def write_globs(path, secs, executed):
    """The stems worth a glob: every v0 stem executed (it names one
    instance, its generic arguments are in the name), and the legacy stems
    whose every instance ran (a legacy stem names every instance of a
    generic function; taking the others along measured worse: 19.3 MiB
    with those within twice the bytes + 4 KiB, 17.2-17.6 without)."""
    every, ran = {}, {}
    for _, _, name in secs:
        every[stem(name)] = every.get(stem(name), 0) + 1
    for name in executed:
        ran[stem(name)] = ran.get(stem(name), 0) + 1
    with open(path, "w") as out:
        for name in dict.fromkeys(stem(n) for n in executed):
            # A v0 stem's other instances are copies of the same function
            # (one per codegen unit that inlines it), not other instances.
            if name.startswith("_R") or every[name] == ran[name]:
                print(name, file=out)


if __name__ == "__main__":
    main()
