"""The time to recover from a WAN cut: metampi with gateways (encrypted) runs bench/wan/recovery.c
(two ranks, one per site, exchanging small numbered messages back to back, printing every
pause longer than 0.2 s with wall-clock times); once it runs, the WAN router drops every
packet that enters it from a site (`ip rule ... blackhole`: silently, as a broken route would;
no stream is told anything) for CUT_S seconds, then forwards again.
Recovery = the end of the pause that spans the link's return - the moment it returned: how
long after the link is back traffic flows again (the issue's target: at most TARGET_S).
The program checks every message's number, so a message lost, repeated or reordered by the
reconnection fails the run."""
import os
import re
import subprocess
import time

from metabench.process import OMPI_ROOT_ENV, end_group, first_error_line
from metabench.wan import cluster as wc

PROGRAM = "wan_recovery"
CUT_S = 10.0            # the cut
BEFORE_S = 1.0          # traffic flows this long before the cut
AFTER_S = 8.0           # ... and the program goes on this long after the return, at least
TARGET_S = 2.0


class Recovery:
    """samples: seconds from the link's return until traffic flowed again, one per run;
    gateway_up: X of the gateways' own "is up again after X s" (from the moment they found the
    link broken: a reset, or no heartbeat for the link timeout), where they printed one;
    failures: why a run gave no sample."""

    def __init__(self):
        self.samples, self.gateway_up, self.failures, self.command = [], [], [], ""


CUT_PRIORITY = 50       # before vcluster.sh's rules (100) that route into the emulator
SITE_LINKS = ("s1", "s2")   # the router's interfaces to the sites


def set_cut(cluster, on):
    """The WAN drops everything from the sites (on) or forwards again; both families."""
    for family in ("-4", "-6"):
        for link in SITE_LINKS:
            subprocess.run(["ip", family, "-n", cluster.wan_ns, "rule", "add" if on else "del",
                            "iif", link, "priority", str(CUT_PRIORITY), "blackhole"],
                           capture_output=True, timeout=10)


def wait_for(path, pattern, deadline):
    while time.time() < deadline:
        with open(path, errors="replace") as f:
            if re.search(pattern, f.read(), re.M):
                return True
        time.sleep(0.05)
    return False


def recovery_once(rec, cluster, c, desc, args, idle):
    """One cut of CUT_S seconds under a running job; appends to rec."""
    prog = c.mpi.programs.get(PROGRAM)
    if prog is None:
        rec.failures.append(c.mpi.unavailable.get(PROGRAM, "the program does not build"))
        return
    seconds = BEFORE_S + CUT_S + AFTER_S
    cmd = wc.launch(c, cluster.p2p_layout(), cluster, desc) + [prog, f"{seconds:g}"]
    rec.command = wc.launch_text(c, cluster.p2p_layout(), cluster, desc, "./recovery")
    idle.before_run([])
    work = os.path.join(args.work, "wan")
    out_path, err_path = os.path.join(work, "recovery.out"), os.path.join(work, "recovery.err")
    back = None
    with open(out_path, "w") as out, open(err_path, "w") as err:
        p = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                             env=dict(os.environ, **OMPI_ROOT_ENV), start_new_session=True)
        try:
            if wait_for(out_path, r"^recovery running", time.time() + args.wan_timeout):
                time.sleep(BEFORE_S)
                set_cut(cluster, True)
                try:
                    time.sleep(CUT_S)
                finally:
                    set_cut(cluster, False)
                    back = time.time()
            p.wait(timeout=args.wan_timeout + seconds)
            status = p.returncode
        except subprocess.TimeoutExpired:
            status = 124
        finally:
            set_cut(cluster, False)
            if p.poll() is None:
                end_group(p)
    cluster.sweep()
    with open(out_path, errors="replace") as f:
        text = f.read()
    with open(err_path, errors="replace") as f:
        errors = f.read()
    gaps = [(float(a), float(b)) for a, b in re.findall(r"^gap ([\d.]+) ([\d.]+)$", text, re.M)]
    spanning = [g for g in gaps if back is not None and g[0] < back <= g[1]]
    if status != 0 or back is None or not spanning:
        why = (f"exit status {status}: {first_error_line(errors + text)}" if status != 0 else
               "never running" if back is None else
               "no pause spanning the link's return (traffic never stopped?)")
        rec.failures.append(why)
        print(f"    recovery                 FAILED: {why}", flush=True)
        return
    rec.samples.append(spanning[0][1] - back)
    m = re.search(r"the WAN link to site \S+ \S+ is up again after ([\d.]+) s", errors)
    if m:
        rec.gateway_up.append(float(m.group(1)))
    print(f"    recovery                 traffic again {rec.samples[-1]:.2f} s after the "
          f"link's return (cut {CUT_S:g} s)", flush=True)
