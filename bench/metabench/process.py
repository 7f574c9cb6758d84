"""Running a command as a job of its own: its own process group, killed whole on a timeout or
when the runner is interrupted, so that no rank is left behind; and the first line of its
output worth reporting."""
import os
import re
import select
import signal
import subprocess
import time

from metabench.paths import BENCH_DIR

# Open MPI refuses root without these; harmless for the others and when not root.
OMPI_ROOT_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


def run(cmd, timeout):
    """Returns (exit status, stdout, stderr, seconds); status 124 for a timeout (with the
    output so far), 127 if unrunnable. The command gets its own process group, which is
    killed whole on a timeout so no rank is left behind."""
    env = dict(os.environ, **OMPI_ROOT_ENV)
    start = time.perf_counter()
    try:
        p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL, text=True, start_new_session=True)
    except OSError as e:
        return 127, "", str(e), time.perf_counter() - start
    try:
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out, err, time.perf_counter() - start
    except subprocess.TimeoutExpired:
        out, err = kill_group(p)
        return 124, out, f"timed out after {timeout} s\n{err}", time.perf_counter() - start
    except BaseException:
        kill_group(p)   # the runner is interrupted (Ctrl-C, SIGTERM): take the run along
        raise


def kill_group(p):
    """SIGTERM to the command's process group, SIGKILL 5 s later; returns the output so far."""
    for sig, grace in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            pass
        try:
            return p.communicate(timeout=grace)
        except subprocess.TimeoutExpired:
            continue
    return "", ""


def run_job(cmd, timeout, done, grace):
    """Runs cmd in its own process group; returns (status, stdout, stderr, seconds, hung).
    Once done(stdout so far) is true the job has `grace` seconds to exit; if it does not, it is
    ended and hung is True (status 124, as for a timeout)."""
    env = dict(os.environ, **OMPI_ROOT_ENV)
    start = time.perf_counter()
    try:
        p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL, start_new_session=True)
    except OSError as e:
        return 127, "", str(e), 0.0, False
    out_fd, err_fd = p.stdout.fileno(), p.stderr.fileno()
    chunks = {out_fd: [], err_fd: []}
    open_fds = set(chunks)
    finished = exited = None

    def read_ready(wait):
        ready, _, _ = select.select(list(open_fds), [], [], max(0.0, wait))
        for fd in ready:
            data = os.read(fd, 65536)
            if data:
                chunks[fd].append(data)
            else:
                open_fds.discard(fd)

    try:
        while True:
            now = time.perf_counter()
            if exited is None and p.poll() is not None:
                exited = now
            limit = start + timeout
            if finished is not None:
                limit = min(limit, finished + grace)
            if exited is not None:   # a process left behind may hold the pipes: 2 s at most
                limit = min(limit, exited + 2)
            if now >= limit or (exited is not None and not open_fds):
                break
            if open_fds:
                read_ready(min(0.5, limit - now))
            else:
                time.sleep(min(0.05, limit - now))
            if finished is None and done(b"".join(chunks[out_fd]).decode(errors="replace")):
                finished = time.perf_counter()
    except BaseException:
        end_group(p)
        raise
    status = p.poll()
    hung = False
    note = ""
    if status is None:
        ending = time.perf_counter()
        end_group(p)
        status, hung = 124, finished is not None
        note = (f"\n[runner: ended the job {ending - start:.1f} s after its start"
                f"{'' if finished is None else f', {ending - finished:.1f} s after its results'}"
                f"; the end took {time.perf_counter() - ending:.1f} s]")
    drain_until = time.perf_counter() + 2
    while open_fds and time.perf_counter() < drain_until:
        read_ready(0.2)
    p.stdout.close()
    p.stderr.close()
    out = b"".join(chunks[out_fd]).decode(errors="replace")
    err = b"".join(chunks[err_fd]).decode(errors="replace") + note
    if status == 124 and not hung:
        err = f"timed out after {timeout} s\n{err}"
    return status, out, err, time.perf_counter() - start, hung


def end_group(p):
    """SIGTERM to the job's process group, SIGKILL 3 s later."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            return
        try:
            p.wait(timeout=3)
            return
        except subprocess.TimeoutExpired:
            continue


def first_error_line(text):
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    errors = [l for l in lines if re.search(r"error|undefined reference|abort|corrupt|wrong|timed out|killed|"
                                            r"signal|fail", l, re.I)]
    line = (errors or lines or ["(no message)"])[0]
    return line.replace(BENCH_DIR + os.sep, "bench" + os.sep)[:240]


def first_line(cmd, pattern=None):
    _, out, err, _ = run(cmd, timeout=30)
    for line in (out + err).splitlines():
        if line.strip() and (pattern is None or re.search(pattern, line)):
            return " ".join(line.split())
    return "unknown"
