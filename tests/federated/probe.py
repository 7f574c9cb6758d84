#!/usr/bin/env python3
"""A rank of a federated job that only speaks PMI (no MPI): prints what the part's mpirun
gave it, as one line

  probe rank=R size=S host=H key=K mapping=M sites=... names=... rank_sites=... seen=A-B

where seen is the ranks whose PMI puts it can read after a barrier (its own site's only: each
part has its own key-value space) and key is a digest of METAMPI_RANK_KEY. Exits 0 after
finalize; "probe FAIL <why>" and exit 3 when a reply is wrong.
Usage: probe.py [--sleep SECONDS] [--exit CODE]  (sleep before finalize; exit with CODE
without finalize, as a crashing rank would)
"""
import hashlib
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "launcher"))
from pmi_client import Pmi  # noqa: E402


def get(p, kvs, key):
    r = p.cmd("cmd=get kvsname=%s key=%s" % (kvs, key))
    return r.get("value", "-") if r.get("rc") == "0" else "-"


def ranges(xs):
    out, i = [], 0
    while i < len(xs):
        j = i
        while j + 1 < len(xs) and xs[j + 1] == xs[j] + 1:
            j += 1
        out.append("%d-%d" % (xs[i], xs[j]) if j > i else "%d" % xs[i])
        i = j + 1
    return ",".join(out) or "none"


def main():
    args = sys.argv[1:]
    p = Pmi()
    r = p.cmd("cmd=init pmi_version=1 pmi_subversion=1")
    if r.get("rc") != "0":
        print("probe FAIL init %r" % r, flush=True)
        sys.exit(3)
    size = int(p.cmd("cmd=get_universe_size")["size"])
    kvs = p.cmd("cmd=get_my_kvsname")["kvsname"]
    info = {k: get(p, kvs, k) for k in ("PMI_process_mapping", "metampi.sites",
                                        "metampi.site_names", "metampi.rank_sites")}
    if p.cmd("cmd=put kvsname=%s key=probe.%d value=here" % (kvs, p.rank)).get("rc") != "0":
        print("probe FAIL put", flush=True)
        sys.exit(3)
    p.send("cmd=barrier_in")
    if p.parse(p.recv()).get("cmd") != "barrier_out":
        print("probe FAIL barrier", flush=True)
        sys.exit(3)
    seen = [r for r in range(p.size) if get(p, kvs, "probe.%d" % r) == "here"]
    key = hashlib.sha256(os.environ.get("METAMPI_RANK_KEY", "").encode()).hexdigest()[:12]
    print("probe rank=%d size=%d pmi_size=%d host=%s key=%s mapping=%s sites=%s names=%s "
          "rank_sites=%s seen=%s" % (p.rank, size, p.size, os.environ.get("METAMPI_HOSTNAME", "-"),
                                     key, info["PMI_process_mapping"], info["metampi.sites"],
                                     info["metampi.site_names"], info["metampi.rank_sites"],
                                     ranges(seen)), flush=True)
    if "--sleep" in args:
        time.sleep(float(args[args.index("--sleep") + 1]))
    if "--exit" in args:
        sys.exit(int(args[args.index("--exit") + 1]))
    p.send("cmd=barrier_in")
    p.parse(p.recv())
    p.cmd("cmd=finalize")


if __name__ == "__main__":
    main()
