#!/usr/bin/env python3
"""Groups sanitizer reports (BUILD/sanitizer-logs/*) into classes for triage.

    tests/sanitize/report_classes.py build-tsan/sanitizer-logs [--examples N]

A report's class is its kind (data race, thread leak, heap-use-after-free,
...) and, for its first two stacks (a race's two accesses; the error's stack
and the allocation's; a leaked thread's creation), the first frame in our
sources (a path under the repository), or the first frame at all, marked
"(not ours)", when a stack has none of ours. Each class is printed with its count, the processes
(log files) it came from, whether every report of it has a frame of an
uninstrumented library (gRPC, abseil, protobuf, OpenSSL, SQLite) in a stack,
and the path of one report to read in full.
"""
import collections
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
UNINSTRUMENTED = re.compile(r"\((lib(grpc|grpc\+\+|gpr|absl_\w+|protobuf|ssl|crypto|sqlite3|upb|address_sorting|re2|cares)"
                            r"[\w.+-]*\.so[.\d]*)\+")
# "#3 func file:line:col (module+0x..)", "#2 func <null> (module+0x..)", "#1 <null> <null> (module+0x..)"
FRAME = re.compile(r"^\s+#\d+ (.*) (\S+) \(([^()]*)\)$")
HEADER = re.compile(r"^(WARNING: ThreadSanitizer: (.*?) \(pid=\d+\)|==\d+==ERROR: (?:Address|Leak)Sanitizer: (\S+)|"
                    r"(\S+:\d+:\d+): runtime error: (.*))")


def ours(path):
    path = os.path.normpath(path)
    return path.startswith(ROOT + "/") and "/_deps/" not in path


def parse(path):
    """Yields (kind, [stack frames as 'func file:line' per stack], uninstrumented?) per report."""
    with open(path, errors="replace") as f:
        lines = f.read().splitlines()
    i = 0
    while i < len(lines):
        m = HEADER.match(lines[i])
        if not m:
            i += 1
            continue
        kind = m.group(2) or m.group(3) or ("UBSan: " + re.sub(r"\d+", "N", m.group(5))[:80])
        stacks, cur, lib, heading = [], None, False, ""
        j = i + 1
        while j < len(lines) and not HEADER.match(lines[j]) and not lines[j].startswith("SUMMARY:"):
            line = lines[j]
            if UNINSTRUMENTED.search(line):
                lib = True
            fm = FRAME.match(line)
            if fm:
                if cur is None:
                    cur = []
                    stacks.append((heading, cur))
                file, _, line_no = fm.group(2).partition(":")
                cur.append((fm.group(1), file, line_no.split(":")[0]))
            elif line.strip():
                heading, cur = line.strip(), None
            j += 1
        # The stacks that say who did it: the two accesses of a race, the
        # error's own stack (ASan, UBSan, a leak), the thread of a thread leak.
        firsts = []
        for heading, st in stacks:
            if heading.startswith(("Location is", "Mutex", "Thread T")) and firsts:
                continue
            mine = [f for f in st if ours(f[1])]
            if mine:
                func, file, line = mine[0]
                func = re.sub(r"\(.*", "", func)[-80:]
                firsts.append(f"{func} {os.path.relpath(file, ROOT)}:{line}")
            else:
                func = next((f[0] for f in st if "libsanitizer" not in f[1]), st[0][0])
                if func == "<null>":
                    func = st[0][0]
                firsts.append("(not ours) " + re.sub(r"\(.*", "", func)[-80:])
            if len(firsts) == 2:
                break
        if kind.startswith("UBSan"):
            firsts = [m.group(4).replace(ROOT + "/", "")] + firsts
        yield kind, tuple(firsts), lib
        i = j


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    logdir = sys.argv[1]
    classes = collections.defaultdict(lambda: {"n": 0, "procs": set(), "lib": 0, "example": None})
    total = 0
    for name in sorted(os.listdir(logdir)):
        path = os.path.join(logdir, name)
        for kind, key, lib in parse(path):
            total += 1
            c = classes[(kind, key)]
            c["n"] += 1
            c["procs"].add(name)
            c["lib"] += lib
            c["example"] = c["example"] or path
    print(f"{total} reports in {len(os.listdir(logdir))} files, {len(classes)} classes")
    for (kind, key), c in sorted(classes.items(), key=lambda kv: -kv[1]["n"]):
        print(f"\n{c['n']:5d}  {kind}   ({len(c['procs'])} processes; {c['lib']} with an uninstrumented-library frame)")
        for k in key:
            print(f"         {k}")
        print(f"         e.g. {c['example']}")


if __name__ == "__main__":
    main()
