"""The runner: measures what the command line asks for (each benchmark's measure module),
saves the raw results (record.py), then writes the report and plots from them alone (each
benchmark's report module, document.py). bench/run_benchmarks.py calls run().

The only module that knows every benchmark: the others use the common modules and never
each other's families, and the reports take the results as data."""
import os
import signal
import sys
import time

from metabench import cli, context, convert, document, fileio, noncontig, record, rma, startup
from metabench.coll import measure as coll_measure
from metabench.coll import report as coll_report
from metabench.hetero import measure as hetero_measure
from metabench.hetero import report as hetero_report
from metabench.mpis import mpis_under_test
from metabench.p2p import measure as p2p_measure
from metabench.p2p import report as p2p_report
from metabench.plots import pyplot
from metabench.programs import P2P, SOURCES, build_programs
from metabench.scale import measure as scale_measure
from metabench.scale import report as scale_report
from metabench.schedule import IdleWait
from metabench.tcp import measure as tcp_measure
from metabench.tcp import report as tcp_report
from metabench.threads import measure as threads_measure
from metabench.threads import report as threads_report
from metabench.wan import measure as wan_measure
from metabench.wan import plots as wan_plots
from metabench.wan import recovery as wan_recovery
from metabench.wan import report as wan_report
from metabench.wan import targets as wan_targets


def interrupted(signum, _frame):
    """SIGTERM ends the runner like Ctrl-C: the run in progress is killed (process.run()) and
    the emulated cluster torn down (cluster.Cluster.__exit__) on the way out."""
    raise KeyboardInterrupt(f"signal {signum}")


def main():
    signal.signal(signal.SIGTERM, interrupted)
    args = cli.parse_args()
    if args.from_results:
        rec = record.load(args.from_results, args.docs)
    else:
        rec = measure(args)
        record.save(rec, record.results_path(args))
    write_report(rec)


def measure(args):
    """A record.Record of what args ask for."""
    ctx = {"commit": context.source_commit()}   # before anything is written
    began = time.perf_counter()
    build = os.path.realpath(args.build)
    args.build_dir = build
    mpis = mpis_under_test(build)
    rec = record.Record(args, ctx, mpis)
    only_coll, only_tcp, only_wan = args.only == "coll", args.only == "tcp", args.only == "wan"
    only_rma, only_io = args.only == "rma", args.only == "io"
    only_threads, only_scale = args.only == "threads", args.only == "scale"
    only_hetero, only_nc = args.only == "hetero", args.only == "noncontig"
    only_p2p = args.only == "p2p"
    print("building benchmark programs", flush=True)
    wanted = (list(P2P) + ["msgrate"] if only_p2p else
              list(P2P) + ["rma_latency"] if only_tcp else ["rma_latency"] if only_rma else
              ["noncontig"] if only_nc else
              list(threads_measure.PROGRAMS) if only_threads else
              ["latency"] if only_hetero else
              [scale_measure.PROGRAM] if only_scale else
              ["io_bandwidth"] if only_io else
              list(P2P) + [wan_measure.coll_program(c) for c in wan_measure.COLLS] +
              [wan_recovery.PROGRAM] if only_wan
              else [n for n in SOURCES if n.startswith("coll_")] if only_coll else list(SOURCES))
    build_programs(mpis, args.work, wanted)
    idle = IdleWait(args.wait_idle)
    if not args.only:
        print("measuring startup", flush=True)
        rec.startup = startup.measure_startup(mpis, args.startup_reps, args.timeout)
        print("measuring latency and bandwidth", flush=True)
        rec.p2p = p2p_measure.measure_p2p(mpis, args, idle)
        print("measuring non-contiguous transfers", flush=True)
        rec.noncontig = noncontig.measure_noncontig(mpis, args, idle, rec.p2p.busy)
        print("measuring conversion between unlike architectures", flush=True)
        rec.convert = convert.measure_convert(build, args.timeout)
    if only_p2p:
        print("measuring latency, bandwidth and message rate", flush=True)
        rec.p2p = p2p_measure.measure_p2p(mpis, args, idle)
    if only_nc:
        print("measuring non-contiguous transfers", flush=True)
        rec.noncontig = noncontig.measure_noncontig(mpis, args, idle, [])
    if not args.only or only_rma:
        print("measuring one-sided communication", flush=True)
        rec.rma = rma.measure_rma(mpis, args, idle, rec.p2p.busy if rec.p2p else [])
    if not args.only or only_io:
        print("measuring collective I/O", flush=True)
        rec.io = fileio.measure_io(mpis, args, idle, rec.p2p.busy if rec.p2p else [])
    if not args.only or only_threads:
        print("measuring threads", flush=True)
        rec.threads = threads_measure.measure_threads(mpis, args, idle,
                                                      rec.p2p.busy if rec.p2p else [])
    if not args.only or only_hetero:
        print("measuring what heterogeneity support costs like peers", flush=True)
        rec.hetero = hetero_measure.measure_hetero(mpis, args, idle,
                                                   rec.p2p.busy if rec.p2p else [])
    if not args.only or only_scale:
        print("measuring scale on one host", flush=True)
        rec.scale = scale_measure.measure_scale(mpis, args, idle)
    if not args.only or only_tcp:
        print("measuring between two emulated hosts (TCP)", flush=True)
        rec.tcp = tcp_measure.measure_tcp(mpis, args, idle)
    if not args.only or only_wan:
        print("measuring between two emulated sites (WAN)", flush=True)
        rec.wan = wan_measure.measure_wan(mpis, args, idle)
    if not args.only or only_coll:
        print("measuring collectives", flush=True)
        rec.coll = coll_measure.measure_coll(mpis, args, idle)
    ctx["date"] = context.now()
    if not args.only:
        ctx["machine"] = context.machine_description(build, ctx["date"], ctx["commit"])
        ctx["elapsed"] = time.perf_counter() - began
    if rec.tcp is not None or rec.wan is not None:
        ctx["iperf3"] = context.iperf_version()
    return rec


def full_verdicts(rec):
    """The targets of the full report, in the order of its targets table."""
    args = rec.settings
    return (p2p_report.targets(rec.p2p.results, args.max_bytes) +
            noncontig.nc_targets(rec.noncontig) + rma.rma_targets(rec.rma) +
            fileio.io_targets(rec.io) + threads_report.targets(rec.threads) +
            hetero_report.targets(rec.hetero) +
            tcp_report.tcp_targets(rec.tcp, args.max_bytes) +
            wan_targets.targets(rec.wan) + scale_report.targets(rec.scale) +
            coll_report.coll_targets(rec.coll.results, rec.mpis, args.coll_max_bytes))


def markdown(rec, verdicts):
    """The full report."""
    args, mpis, ctx, results = rec.settings, rec.mpis, rec.context, rec.p2p.results
    lines = document.header(ctx["machine"], mpis, args, ctx["elapsed"], rec.p2p.busy)
    lines += document.targets_section(verdicts)
    lines += [document.P2P.begin] + p2p_report.section(rec.p2p, mpis, args) + \
        [document.P2P.end, ""]
    lines += [document.NONCONTIG.begin] + noncontig.noncontig_section(rec.noncontig, mpis) + \
        [document.NONCONTIG.end, ""]
    lines += [document.RMA.begin] + rma.rma_section(rec.rma, mpis) + [document.RMA.end, ""]
    lines += [document.IO.begin] + fileio.io_section(rec.io, mpis) + [document.IO.end, ""]
    lines += [document.THREADS.begin] + threads_report.section(rec.threads, mpis) + \
        [document.THREADS.end, ""]
    lines += convert.convert_section(rec.convert)
    lines += [document.HETERO.begin] + hetero_report.section(rec.hetero) + \
        [document.HETERO.end, ""]
    lines += tcp_report.tcp_section(rec.tcp, mpis, args, ctx)
    lines += wan_report.section(rec.wan, mpis, args, ctx)
    lines += [document.SCALE.begin] + scale_report.section(rec.scale, mpis) + \
        [document.SCALE.end, ""]
    lines += coll_report.coll_section(rec.coll, mpis, args, ctx)
    lines += startup.startup_section(rec.startup, mpis, args)
    return "\n".join(lines) + "\n"


def write_report(rec):
    """Writes the report and plots of what was measured (the part with --only), prints the
    targets and failures, and exits: 1 if a program failed outside the sections between
    hosts and sites."""
    args, mpis, ctx = rec.settings, rec.mpis, rec.context
    only_coll, only_tcp, only_wan = args.only == "coll", args.only == "tcp", args.only == "wan"
    perfdir = os.path.join(args.docs, "perf")
    report = os.path.join(args.docs, "performance.md")
    if args.only == "p2p":
        verdicts = p2p_report.targets(rec.p2p.results, args.max_bytes)
        os.makedirs(perfdir, exist_ok=True)
        p2p_report.plot(pyplot(), rec.p2p.results, mpis, perfdir)
        section = p2p_report.section(rec.p2p, mpis, args, ctx)
        document.update_report(report, [document.P2P.begin] + section + [document.P2P.end, ""],
                               verdicts, document.P2P)
        print(f"updated the point-to-point part of {report}; wrote {perfdir}/latency.png, "
              "bandwidth.png, msgrate.png")
    elif args.only == "rma":
        verdicts = rma.rma_targets(rec.rma)
        os.makedirs(perfdir, exist_ok=True)
        rma.plot_rma(pyplot(), rec.rma, mpis, os.path.join(perfdir, "rma.png"))
        document.update_report(report, [document.RMA.begin] + rma.rma_section(rec.rma, mpis) +
                               [document.RMA.end, ""], verdicts, document.RMA)
        print(f"updated the one-sided part of {report}; wrote {perfdir}/rma.png")
    elif args.only == "noncontig":
        verdicts = noncontig.nc_targets(rec.noncontig)
        os.makedirs(perfdir, exist_ok=True)
        noncontig.plot_noncontig(pyplot(), rec.noncontig, mpis,
                                 os.path.join(perfdir, "noncontig.png"))
        document.update_report(report, [document.NONCONTIG.begin] +
                               noncontig.noncontig_section(rec.noncontig, mpis) +
                               [document.NONCONTIG.end, ""], verdicts, document.NONCONTIG)
        print(f"updated the non-contiguous part of {report}; wrote {perfdir}/noncontig.png")
    elif args.only == "threads":
        verdicts = threads_report.targets(rec.threads)
        os.makedirs(perfdir, exist_ok=True)
        threads_report.plot(pyplot(), rec.threads, mpis, os.path.join(perfdir, "threads.png"))
        document.update_report(report, [document.THREADS.begin] +
                               threads_report.section(rec.threads, mpis) +
                               [document.THREADS.end, ""], verdicts, document.THREADS)
        print(f"updated the threads part of {report}; wrote {perfdir}/threads.png")
    elif args.only == "hetero":
        verdicts = hetero_report.targets(rec.hetero)
        document.update_report(report, [document.HETERO.begin] +
                               hetero_report.section(rec.hetero) +
                               [document.HETERO.end, ""], verdicts, document.HETERO)
        print(f"updated the heterogeneity part of {report}")
    elif args.only == "scale":
        verdicts = scale_report.targets(rec.scale)
        os.makedirs(perfdir, exist_ok=True)
        scale_report.plot(pyplot(), rec.scale, mpis, os.path.join(perfdir, "scale.png"))
        document.update_report(report, [document.SCALE.begin] +
                               scale_report.section(rec.scale, mpis) +
                               [document.SCALE.end, ""], verdicts, document.SCALE)
        print(f"updated the scale part of {report}; wrote {perfdir}/scale.png")
    elif args.only == "io":
        verdicts = fileio.io_targets(rec.io)
        os.makedirs(perfdir, exist_ok=True)
        fileio.plot_io(pyplot(), rec.io, mpis, os.path.join(perfdir, "io.png"))
        document.update_report(report, [document.IO.begin] + fileio.io_section(rec.io, mpis) +
                               [document.IO.end, ""], verdicts, document.IO)
        print(f"updated the collective I/O part of {report}; wrote {perfdir}/io.png")
    elif only_coll:
        verdicts = coll_report.coll_targets(rec.coll.results, mpis, args.coll_max_bytes)
        os.makedirs(perfdir, exist_ok=True)
        coll_report.plot_colls(pyplot(), rec.coll.results, mpis, perfdir)
        document.update_report(report, coll_report.coll_section(rec.coll, mpis, args, ctx),
                               verdicts, document.COLL)
        pngs = [os.path.join(perfdir, coll_report.coll_plot_name(np))
                for np in coll_measure.COLL_NP]
        print(f"updated the collective part of {report}; wrote {', '.join(pngs)}")
    elif only_tcp:
        verdicts = tcp_report.tcp_targets(rec.tcp, args.max_bytes)
        pngs = tcp_report.plot_tcp(rec.tcp, mpis, perfdir, args.max_bytes)
        document.update_report(report, tcp_report.tcp_section(rec.tcp, mpis, args, ctx),
                               verdicts, document.TCP)
        print(f"updated the part between two hosts of {report}; wrote {', '.join(pngs)}")
    elif only_wan:
        verdicts = wan_targets.targets(rec.wan)
        pngs = wan_plots.plot(rec.wan, perfdir)
        document.update_report(report, wan_report.section(rec.wan, mpis, args, ctx), verdicts,
                               document.WAN)
        print(f"updated the part between two sites of {report}; wrote {', '.join(pngs)}")
    else:
        results = rec.p2p.results
        verdicts = full_verdicts(rec)
        plt = pyplot()
        os.makedirs(perfdir, exist_ok=True)
        coll_report.plot_colls(plt, rec.coll.results, mpis, perfdir)
        startup.plot(plt, rec.startup, mpis, perfdir)
        p2p_report.plot(plt, results, mpis, perfdir)
        noncontig.plot_noncontig(plt, rec.noncontig, mpis, os.path.join(perfdir, "noncontig.png"))
        rma.plot_rma(plt, rec.rma, mpis, os.path.join(perfdir, "rma.png"))
        fileio.plot_io(plt, rec.io, mpis, os.path.join(perfdir, "io.png"))
        threads_report.plot(plt, rec.threads, mpis, os.path.join(perfdir, "threads.png"))
        scale_report.plot(plt, rec.scale, mpis, os.path.join(perfdir, "scale.png"))
        tcp_report.plot_tcp(rec.tcp, mpis, perfdir, args.max_bytes)
        wan_plots.plot(rec.wan, perfdir)
        with open(report, "w") as f:
            f.write(markdown(rec, verdicts))
        print(f"wrote {report} and {perfdir}/*.png")

    for name, (verdict, worst) in verdicts:
        print(f"target: {name}: {verdict.upper()} ({worst})")
    for m in mpis:
        for p, why in m.unavailable.items():
            print(f"NOT AVAILABLE ({m.name} {p}): {why}", file=sys.stderr)
        for p, why in m.failed.items():
            print(f"FAILED ({m.name} {p}): {why}", file=sys.stderr)
    if not args.only or only_tcp:
        # reported, but never the exit status: see tcp/__init__.py
        tcp = rec.tcp
        names = dict(tcp_measure.TCP_NAMES, **{m.slug: m.name for m in mpis})
        if tcp.error:
            print(f"NOT MEASURED (between two hosts): {tcp.error}", file=sys.stderr)
        for (slug, p), why in tcp.failures.items():
            print(f"FAILED (between two hosts: {names[slug]} {p}): {why}", file=sys.stderr)
    if not args.only or only_wan:
        # the same between two sites: reported, never the exit status
        wan = rec.wan
        if wan.error:
            print(f"NOT MEASURED (between two sites): {wan.error}", file=sys.stderr)
        for slug, why in wan.unavailable.items():
            print(f"NOT AVAILABLE (between two sites: {wan_measure.name_of(slug)}): {why}",
                  file=sys.stderr)
        for (slug, p), why in wan.failures.items():
            print(f"FAILED (between two sites: {wan_measure.name_of(slug)} {p}): {why}",
                  file=sys.stderr)
    sys.exit(1 if any(m.failed for m in mpis) else 0)


def run():
    try:
        main()
    except KeyboardInterrupt as e:
        print(f"run_benchmarks.py: interrupted ({e or 'Ctrl-C'}); nothing written",
              file=sys.stderr)
        sys.exit(130)
