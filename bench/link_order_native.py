"""The native pass of bench/link-order.sh: which functions the headline
run executes outside valgrind, found exactly.

Usage: link_order_native.py sample BINARY PAGES -- ARGS…
       link_order_native.py gdb BINARY MAP PAGES TRACE -- ARGS…

valgrind, which traces the other runs, emulates a CPU without some of the
host's extensions (SHA-NI: `sha2` takes another path) and implements none
of the sandbox's system calls (Landlock, seccomp, namespaces: the code
that applies each layer never runs there); and a function a run enters
once costs a 64 KiB fault-around outside the hot section. So the run of
bench/startup.sh's peak-RSS figure is traced natively, on two of its
repetitions (each with its own scripted server):
- `sample`: BINARY ARGS runs while its text pages are sampled
  (`/proc/PID/pagemap`, every 0.5 ms); a function it executes lies on a
  page it touched. The page offsets go to PAGES;
- `gdb`: the functions of MAP on those pages (a superset: the kernel maps
  64 KiB around each fault) get one-shot breakpoints under gdb
  (bench/link_order_gdb.py) while the run repeats; the entered ones are
  written to TRACE as a lackey-style trace (`BASE`, `SB` lines).
"""

import bisect
import os
import struct
import subprocess
import sys
import tempfile
import time

PAGE = 4096
SAMPLE_EVERY_S = 0.0005
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from link_order import sections as function_sections  # noqa: E402


def touched_text(binary, args):
    """File offsets of the executable pages of BINARY that ARGS touched."""
    real = os.path.realpath(binary)
    proc = subprocess.Popen([binary, *args], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    pages = set()
    while proc.poll() is None:
        try:
            with open(f"/proc/{proc.pid}/maps") as maps, open(f"/proc/{proc.pid}/pagemap", "rb") as pm:
                for line in maps:
                    f = line.split()
                    if len(f) < 6 or f[5] != real or "x" not in f[1]:
                        continue
                    start, end = (int(x, 16) for x in f[0].split("-"))
                    offset = int(f[2], 16)
                    pm.seek(start // PAGE * 8)
                    data = pm.read((end - start) // PAGE * 8)
                    for i in range(len(data) // 8):
                        if struct.unpack_from("<Q", data, i * 8)[0] >> 63:
                            pages.add(offset + i * PAGE)
        except (FileNotFoundError, ProcessLookupError, ValueError):
            break
        time.sleep(SAMPLE_EVERY_S)
    if proc.wait() != 0:
        sys.exit(f"link_order_native: {binary} {' '.join(args)} failed")
    return pages


def segment_delta(binary):
    """Virtual address minus file offset of BINARY's executable segment."""
    out = subprocess.run(["readelf", "-lW", binary], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "LOAD" and "E" in f[6:8]:
            return int(f[2], 16) - int(f[1], 16)
    sys.exit(f"link_order_native: {binary} has no executable segment")


def sample(binary, pages_path, args):
    pages = touched_text(binary, args)
    with open(pages_path, "w") as out:
        out.writelines(f"{p:x}\n" for p in sorted(pages))


def trace_entered(binary, map_path, pages_path, trace, args):
    with open(pages_path) as f:
        pages = [int(line, 16) for line in f if line.strip()]
    delta = segment_delta(binary)
    # (start, end) of each function's section, by start.
    sections = [(start, end) for start, end, _ in function_sections(map_path) if end > start]
    starts = [start for start, _ in sections]
    candidates = set()
    for page in pages:
        low = page + delta
        i = max(bisect.bisect_right(starts, low) - 1, 0)
        while i < len(sections) and sections[i][0] < low + PAGE:
            if sections[i][1] > low:
                candidates.add(sections[i][0])
            i += 1
    with tempfile.NamedTemporaryFile("w", suffix=".candidates") as out:
        out.writelines(f"{a:x}\n" for a in sorted(candidates))
        out.flush()
        env = dict(os.environ, ORBIT_GDB_CANDIDATES=out.name, ORBIT_GDB_TRACE=trace)
        gdb = subprocess.run(
            ["gdb", "-q", "-batch", "-x", os.path.join(HERE, "link_order_gdb.py"), "--args", binary, *args],
            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )
    if gdb.returncode != 0 or not os.path.exists(trace):
        sys.exit(f"link_order_native: gdb failed: {gdb.stderr[-2000:]}")
    with open(trace) as f:
        entered = sum(1 for line in f if line.startswith("SB "))
    print(f"link_order_native: {len(pages) * PAGE // 1024} KiB of text touched, "
          f"{len(candidates)} functions on it, {entered} entered", file=sys.stderr)


def main():
    split = sys.argv.index("--")
    mode, rest, args = sys.argv[1], sys.argv[2:split], sys.argv[split + 1:]
    if mode == "sample" and len(rest) == 2:
        sample(*rest, args)
    elif mode == "gdb" and len(rest) == 4:
        trace_entered(*rest, args)
    else:
        sys.exit(__doc__)


main()
