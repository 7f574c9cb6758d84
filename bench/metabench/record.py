"""The raw results of a run: what each benchmark measured, the options and the context
(context.py). The runner saves them (<work>/results.json, results-<part>.json with --only)
before it writes the report, and writes the report from a Record alone, so that
--from-results FILE makes the same report again."""
import argparse
import os

from metabench import store
from metabench.coll.measure import CollRun
from metabench.mpis import Mpi
from metabench.fileio import IoResult
from metabench.noncontig import NcResult
from metabench.onesided import RmaResult
from metabench.p2p.measure import P2pRun
from metabench.programs import MSGRATE_PAIRS, msgrate_program
from metabench.hetero.measure import HeteroRun
from metabench.results import LinkCheck, P2pResult
from metabench.scale.measure import ScaleRun
from metabench.tcp.measure import TcpRun
from metabench.threads.measure import ThreadsRun
from metabench.wan.measure import WanRun
from metabench.wan.recovery import Recovery


class Record:
    """settings: the options (argparse.Namespace, with build_dir); context: {commit, date;
    machine and elapsed (s) for the full report; iperf3 when the parts between hosts or sites
    ran}; mpis: [mpis.Mpi], with the programs they built, and those unavailable or failed.
    Then what each part measured, None where it did not run: startup {slug: {np: s}}, p2p
    (p2p.measure.P2pRun), noncontig {label: {slug: NcResult}}, rma {slug: RmaResult},
    io {slug: fileio.IoResult}, threads (threads.measure.ThreadsRun),
    hetero (hetero.measure.HeteroRun),
    scale (scale.measure.ScaleRun),
    coll (coll.measure.CollRun),
    tcp (tcp.measure.TcpRun), wan (wan.measure.WanRun), convert (convert.py's dict)."""

    def __init__(self, settings, context, mpis):
        self.settings, self.context, self.mpis = settings, context, mpis
        self.startup = self.p2p = self.noncontig = self.coll = self.tcp = self.wan = None
        self.rma = None
        self.io = None
        self.threads = None
        self.hetero = None
        self.scale = None
        self.convert = None


def results_path(args):
    return os.path.join(args.work, f"results-{args.only}.json" if args.only else "results.json")


def save(rec, path):
    store.save(path, {"format": store.RESULTS_FORMAT, "settings": vars(rec.settings),
                      "context": rec.context, "mpis": rec.mpis, "startup": rec.startup,
                      "p2p": rec.p2p, "noncontig": rec.noncontig, "rma": rec.rma, "io": rec.io,
                      "threads": rec.threads, "hetero": rec.hetero, "scale": rec.scale,
                      "coll": rec.coll,
                      "tcp": rec.tcp, "wan": rec.wan, "convert": rec.convert})


def _restore_all(by_key, cls):
    """{key: {slug: attributes}} -> {key: {slug: cls}}."""
    return {k: {s: store.restore(cls, attrs) for s, attrs in by.items()}
            for k, by in by_key.items()}


def load(path, docs):
    """The Record saved in path, its settings.docs replaced by docs (where to write now)."""
    data = store.load(path)
    settings = argparse.Namespace(**data["settings"])
    settings.docs = docs
    rec = Record(settings, data["context"], [store.restore(Mpi, m) for m in data["mpis"]])
    rec.startup = data["startup"]
    rec.convert = data.get("convert")   # results saved before it existed have none
    if data["p2p"] is not None:
        rec.p2p = store.restore(P2pRun, data["p2p"])
        rec.p2p.results = _restore_all(rec.p2p.results, P2pResult)
        for pairs in MSGRATE_PAIRS:   # results saved before the message rate have none
            rec.p2p.results.setdefault(msgrate_program(pairs),
                                       {m.slug: P2pResult() for m in rec.mpis})
    if data["noncontig"] is not None:
        rec.noncontig = _restore_all(data["noncontig"], NcResult)
    if data.get("rma") is not None:
        rec.rma = {s: store.restore(RmaResult, attrs) for s, attrs in data["rma"].items()}
    if data.get("io") is not None:
        rec.io = {s: store.restore(IoResult, attrs) for s, attrs in data["io"].items()}
    if data.get("threads") is not None:
        rec.threads = store.restore(ThreadsRun, data["threads"])
    if data.get("hetero") is not None:
        rec.hetero = store.restore(HeteroRun, data["hetero"])
    if data.get("scale") is not None:
        rec.scale = store.restore(ScaleRun, data["scale"])
    if data["coll"] is not None:
        rec.coll = store.restore(CollRun, data["coll"])
        rec.coll.results = {np: _restore_all(by_coll, P2pResult)
                            for np, by_coll in rec.coll.results.items()}
    for part, cls in (("tcp", TcpRun), ("wan", WanRun)):
        if data[part] is not None:
            run = store.restore(cls, data[part])
            run.results = _restore_all(run.results, P2pResult)
            run.checks = _restore_all(run.checks, LinkCheck)
            if part == "tcp":   # results saved before one-sided between hosts have none
                run.rma = {s: store.restore(RmaResult, a)
                           for s, a in getattr(run, "rma", {}).items()}
            setattr(rec, part, run)
    if rec.wan is not None:
        rec.wan.isolated = set(rec.wan.isolated)
        # results saved before the cut's recovery was measured have none
        rec.wan.recovery = store.restore(Recovery, getattr(rec.wan, "recovery", None) or
                                         vars(Recovery()))
    return rec
