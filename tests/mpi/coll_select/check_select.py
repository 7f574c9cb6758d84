#!/usr/bin/env python3
"""The collectives' selection regression test: runs the grid program (grid.c) under mpirun with
METAMPI_COLL_SELECT_DEBUG=2 and compares what every call chose with the expected file.

Every rank prints one line per collective call (src/coll/trace.h):
    metampi-coll: rank R #K MPI_Xxx n=N size=S: LEVEL ALGO digest=D
The ranks must have made the same calls. The expected file keeps, per MPI function, how many
calls it saw, the levels and algorithms they chose, and one digest of every call's choices at
every rank and of every rank's schedule, in call order: so a change of the level or algorithm
any member runs for any call, or of the schedule any member builds (its messages, peers, sizes,
local steps), shows as a difference, located by the function. --detail FILE writes one line
per call (for diffing two builds of the library).

    check_select.py --mpirun M --np N --program P --expected FILE [--env VAR=VALUE ...]
                    [--update] [--detail FILE]

--update (or COLL_SELECT_UPDATE=1 in the environment, e.g. for
`COLL_SELECT_UPDATE=1 ctest -R coll_select`) writes FILE from this run instead of comparing:
after a deliberate change of the selection, review the difference (git diff) before committing.
"""
import argparse
import hashlib
import os
import re
import subprocess
import sys

LINE = re.compile(r"metampi-coll: rank (\d+) #(\d+) (\S+) n=(\d+) size=(\d+): (\S+) (\S+)"
                  r" digest=(\S+)")


def per_call(stderr, np):
    """One line per call: function, the ranks' distinct choices, a digest of their schedules."""
    calls = {}
    for line in stderr.splitlines():
        m = LINE.search(line)
        if not m:
            continue
        rank, k, func, n, size, level, algo, digest = m.groups()
        calls.setdefault(int(k), {})[int(rank)] = (func, f"n={n} size={size}: {level} {algo}",
                                                   digest)
    out = []
    for k in sorted(calls):
        per = calls[k]
        if sorted(per) != list(range(np)):
            sys.exit(f"call #{k}: lines from ranks {sorted(per)}, expected all of 0..{np - 1}")
        funcs = {f for f, _, _ in per.values()}
        if len(funcs) != 1:
            sys.exit(f"call #{k}: the ranks called different collectives: {sorted(funcs)}")
        choices = " ; ".join(sorted({c for _, c, _ in per.values()}))
        digest = hashlib.sha1(" ".join(per[r][2] for r in range(np)).encode()).hexdigest()[:16]
        out.append((funcs.pop(), f"#{k} {choices} | {digest}"))
    if not out:
        sys.exit("no metampi-coll lines: is METAMPI_COLL_SELECT_DEBUG implemented?")
    return out


def summarize(calls, header):
    """Per function: calls, the (level, algorithm) pairs chosen, a digest of its calls."""
    funcs = {}
    for func, line in calls:
        f = funcs.setdefault(func, [0, set(), hashlib.sha1()])
        f[0] += 1
        for choice in line.split(": ", 1)[1].rsplit(" | ", 1)[0].split(" ; "):
            f[1].add(" ".join(choice.split(": ")[-1].split()))
        f[2].update(line.encode())
    out = [header]
    for func in sorted(funcs):
        n, used, h = funcs[func]
        out.append(f"{func} {n}: {', '.join(sorted(used))} | {h.hexdigest()[:16]}")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpirun", required=True)
    ap.add_argument("--np", type=int, required=True)
    ap.add_argument("--program", required=True)
    ap.add_argument("--expected", required=True)
    ap.add_argument("--env", action="append", default=[])
    ap.add_argument("--update", action="store_true")
    ap.add_argument("--detail")
    a = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("METAMPI_COLL_")}
    env["METAMPI_COLL_SELECT_DEBUG"] = "2"
    for kv in a.env:
        k, _, v = kv.partition("=")
        env[k] = v
    p = subprocess.run([a.mpirun, "-n", str(a.np), a.program], env=env, capture_output=True,
                       text=True, timeout=600)
    if p.returncode != 0:
        sys.stderr.write(p.stderr[-4000:])
        sys.exit(f"the grid program failed (exit status {p.returncode})")
    calls = per_call(p.stderr, a.np)
    if a.detail:
        with open(a.detail, "w") as f:
            f.write("".join(f"{func} {line}\n" for func, line in calls))
    header = (f"# {os.path.basename(a.expected)}: {a.np} ranks{''.join(' ' + e for e in a.env)}; "
              f"per MPI function: calls, the levels and algorithms chosen | digest")
    got = summarize(calls, header)
    if a.update or os.environ.get("COLL_SELECT_UPDATE") == "1":
        with open(a.expected, "w") as f:
            f.write("\n".join(got) + "\n")
        print(f"wrote {a.expected}: {len(calls)} calls")
        return
    with open(a.expected) as f:
        want = f.read().splitlines()
    if got == want:
        print(f"{len(calls)} calls: the same choices and schedules as {a.expected}")
        return
    for line in sorted(set(want) - set(got)):
        print(f"expected: {line}")
    for line in sorted(set(got) - set(want)):
        print(f"got:      {line}")
    sys.exit(f"the choices or schedules differ from {a.expected} (after a deliberate change: "
             f"COLL_SELECT_UPDATE=1, and review the difference; --detail FILE lists every call)")


if __name__ == "__main__":
    main()
