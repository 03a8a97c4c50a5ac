"""The breakpoint pass of bench/link-order.sh, run inside gdb:
`gdb -batch -x bench/link_order_gdb.py --args ORBIT ARGS…` with
ORBIT_GDB_CANDIDATES (one hex address of the map a line: the entries of
the candidate functions) and ORBIT_GDB_TRACE (the output), run by
bench/link_order_native.py. Runs the command natively with a one-shot
breakpoint on each candidate's entry and writes the entered ones as a
lackey-style trace (`BASE` line, then `SB ADDRESS` lines) that
bench/link_order.py reads with valgrind's."""

import os

import gdb

for setting in ("pagination off", "confirm off", "detach-on-fork on",
                "follow-fork-mode parent", "print thread-events off",
                "print inferior-events off"):
    gdb.execute(f"set {setting}")
for signal in ("SIGPIPE", "SIGCHLD"):
    gdb.execute(f"handle {signal} nostop noprint pass")
gdb.execute("starti")
binary = os.path.realpath(gdb.selected_inferior().progspace.filename)
base = None
for line in gdb.execute("info proc mappings", to_string=True).splitlines():
    fields = line.split()
    if len(fields) >= 5 and fields[-1] == binary:  # the first: file offset 0
        base = int(fields[0], 16)
        break
if base is None:
    raise gdb.GdbError(f"link_order_gdb: no mapping of {binary}")
offsets = set()
with open(os.environ["ORBIT_GDB_CANDIDATES"]) as candidates:
    for line in candidates:
        offset = int(line.split()[0], 16)
        offsets.add(offset)
        gdb.execute(f"tbreak *{base + offset:#x}", to_string=True)
entered = []


def on_stop(event):
    pc = int(gdb.parse_and_eval("$pc"))
    if pc - base in offsets:
        entered.append(pc)


gdb.events.stop.connect(on_stop)
while gdb.selected_inferior().pid:
    try:
        gdb.execute("continue", to_string=True)
    except gdb.error:
        break
with open(os.environ["ORBIT_GDB_TRACE"], "w") as out:
    out.write(f"BASE {base:x}\n")
    out.writelines(f"SB {pc:x}\n" for pc in entered)
