"""Conversion between unlike architectures (issue 19): bench/convert/convert_bench, the
datatype engine's converter on synthetic foreign streams (no MPI job), against the like-peer
unpack of the same data and memcpy; its section of the report. Timings never fail the run: a
program that does not run is reported in the section."""
import os

from metabench.formatting import human_bytes
from metabench.process import first_error_line, run

CONVERT_MIB = 16


def measure_convert(build_dir, timeout):
    """{"rows": [[case, native bytes, convert GB/s, like-peer GB/s, memcpy GB/s]], "error":
    None or why it was not measured}."""
    program = os.path.join(build_dir, "bench", "convert_bench")
    status, out, err, _ = run([program, str(CONVERT_MIB)], timeout)
    if status != 0:
        return {"rows": [], "error": f"exit status {status}: {first_error_line(err)}"}
    rows = []
    for line in out.splitlines():
        f = line.split("|")
        if len(f) == 5:
            rows.append([f[0], int(f[1]), float(f[2]), float(f[3]), float(f[4])])
    print("  conversion: " + ", ".join(f"{r[0]} {r[2]:.2f} GB/s" for r in rows), flush=True)
    return {"rows": rows, "error": None}


def convert_section(res):
    lines = [
        "## Conversion between unlike architectures",
        "",
        "Receiver makes right ([heterogeneity-conversion.md](heterogeneity-conversion.md)): "
        "bandwidth of unpacking a stream that a sender of another architecture packed, in GB/s "
        "of the receiver's data, against the unpack between like peers (today's path) and "
        "memcpy of the same bytes; best of 5, "
        f"{CONVERT_MIB} MiB of the receiver's data per case (long doubles: 2 MiB). Not an MPI run: the datatype engine alone "
        "(bench/convert/convert_bench.c).",
        "",
    ]
    if res is None or res.get("error"):
        why = "not measured" if res is None else res["error"]
        return lines + [f"Not measured: {why}.", ""]
    lines += ["| data | bytes | converted (GB/s) | like peers (GB/s) | memcpy (GB/s) |",
              "|---|---:|---:|---:|---:|"]
    for case, nbytes, conv, like, mem in res["rows"]:
        lines.append(f"| {case} | {human_bytes(nbytes)} | {conv:.2f} | {like:.2f} | {mem:.2f} |")
    lines += ["", "The last row compares the vectorised byte-reversal kernel (first column) with "
              "a scalar `__builtin_bswap64` loop (second column).", ""]
    return lines
