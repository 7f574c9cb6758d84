"""What the report says about a run besides its results: the commit measured, when, the
machine and the MPIs' versions, iperf3's version. The runner takes them while it measures and
saves them with the raw results (the context of a record.Record), so that the report is made
from the saved file alone."""
import datetime
import os
import platform
import re

from metabench.paths import BENCH_DIR
from metabench.process import first_line


def source_commit():
    """The commit measured, as it is now: the runner asks before anything is written, since
    later its own plots make the work tree look modified."""
    return first_line(["git", "-C", BENCH_DIR, "describe", "--always", "--dirty"])


def now():
    return datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")


def iperf_version():
    return first_line(["iperf3", "--version"])


def package_version(pkg):
    return first_line(["dpkg-query", "-W", "-f=${Version}", pkg])


def machine_description(build, date, commit):
    """The machine table of the full report: date and commit as taken for the run."""
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"^model name\s*:\s*(.+)$", f.read(), re.M)
            cpu = m.group(1).strip() if m else cpu
    except OSError:
        pass
    mpicc = os.path.join(build, "bin", "mpicc")
    return [
        ("Date", date),
        ("CPU", cpu),
        ("nproc", str(os.cpu_count())),
        ("Kernel", f"{platform.system()} {platform.release()}"),
        ("Compiler", first_line([mpicc, "--version"])),
        ("metampi", f"{first_line([mpicc, '-showme:version'])}, commit {commit}"),
        ("Open MPI", f"{first_line(['ompi_info', '--version'])} "
                     f"(Debian openmpi-bin {package_version('openmpi-bin')})"),
        ("MPICH", f"{first_line(['mpichversion'], r'Version')}, "
                  f"{first_line(['mpichversion'], r'Device')} "
                  f"(Debian mpich {package_version('mpich')})"),
    ]
