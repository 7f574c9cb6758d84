#!/usr/bin/env python3
"""A PMI-1 client in pure Python, run as a rank under mpirun to test the PMI server.

Usage: pmi_client.py SCENARIO [TARGET]
Rank TARGET (default 0) misbehaves as SCENARIO says; the other ranks either complete
normally or wait in a barrier that never completes. Output lines: "ready <rank>", then
"ok <rank> ..." on success or "FAIL <rank> <why>" (exit 3) when a reply is wrong.
"""
import os
import sys
import time


class Pmi:
    def __init__(self):
        self.fd = int(os.environ["PMI_FD"])
        self.rank = int(os.environ["PMI_RANK"])
        self.size = int(os.environ["PMI_SIZE"])
        self.buf = b""

    def send(self, line):
        data = (line + "\n").encode() if isinstance(line, str) else line
        while data:
            n = os.write(self.fd, data)
            data = data[n:]

    def recv(self):
        while b"\n" not in self.buf:
            chunk = os.read(self.fd, 4096)
            if not chunk:
                raise EOFError("PMI connection closed")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode()

    def cmd(self, line):
        self.send(line)
        return self.parse(self.recv())

    @staticmethod
    def parse(line):
        out = {}
        for tok in line.split(" "):
            k, _, v = tok.partition("=")
            out[k] = v
        return out


def fail(p, why):
    print("FAIL %d %s" % (p.rank, why), flush=True)
    sys.exit(3)


def expect(p, reply, **want):
    for k, v in want.items():
        if reply.get(k) != str(v):
            fail(p, "expected %s=%s in %r" % (k, v, reply))


def full(p):
    """Everything a well-behaved client does, checking every reply."""
    r = p.cmd("cmd=init pmi_version=1 pmi_subversion=1")
    expect(p, r, cmd="response_to_init", rc=0, pmi_version=1)
    r = p.cmd("cmd=get_maxes")
    expect(p, r, cmd="maxes", kvsname_max=256, keylen_max=256, vallen_max=1024, rc=0)
    expect(p, p.cmd("cmd=get_appnum"), cmd="appnum", appnum=0, rc=0)
    r = p.cmd("cmd=get_universe_size")  # the slots mpirun knows of: at least the ranks
    expect(p, r, cmd="universe_size", rc=0)
    if int(r["size"]) < p.size:
        fail(p, "universe size %s below the job's %d ranks" % (r["size"], p.size))
    r = p.cmd("cmd=get_my_kvsname")
    expect(p, r, cmd="my_kvsname", rc=0)
    kvs = r["kvsname"]
    if not kvs.startswith("kvs_%d_" % os.getppid()):
        fail(p, "kvsname %s does not name mpirun's pid" % kvs)
    # put: own key, an overwrite, and the error cases
    expect(p, p.cmd("cmd=put kvsname=%s key=k%d value=first" % (kvs, p.rank)), cmd="put_result", rc=0)
    big = "v%d-" % p.rank + "x" * 1000
    expect(p, p.cmd("cmd=put kvsname=%s key=k%d value=%s" % (kvs, p.rank, big)), cmd="put_result", rc=0)
    expect(p, p.cmd("cmd=put kvsname=wrong key=a value=b"), cmd="put_result", rc=-1)
    expect(p, p.cmd("cmd=put kvsname=%s key=%s value=b" % (kvs, "k" * 300)), cmd="put_result", rc=-1)
    expect(p, p.cmd("cmd=put kvsname=%s key=a value=%s" % (kvs, "v" * 1100)), cmd="put_result", rc=-1)
    expect(p, p.cmd("cmd=put kvsname=%s key=a" % kvs), cmd="put_result", rc=-1)
    for round_ in range(3):  # the barrier is reusable
        p.send("cmd=barrier_in")
        expect(p, p.parse(p.recv()), cmd="barrier_out")
        for other in range(p.size):
            r = p.cmd("cmd=get kvsname=%s key=k%d" % (kvs, other))
            expect(p, r, cmd="get_result", rc=0, value="v%d-" % other + "x" * 1000)
        expect(p, p.cmd("cmd=put kvsname=%s key=r%d_%d value=%d" % (kvs, round_, p.rank, round_)),
               rc=0)
    r = p.cmd("cmd=get kvsname=%s key=nosuchkey" % kvs)
    expect(p, r, cmd="get_result", rc=-1, msg="key_nosuchkey_not_found")
    expect(p, p.cmd("cmd=get kvsname=wrong key=k0"), cmd="get_result", rc=-1)
    # pipelining: several commands in one write, replies in order
    p.send("cmd=get_appnum\ncmd=get_universe_size\ncmd=get_appnum\n".encode())
    for want in ("appnum", "universe_size", "appnum"):
        expect(p, p.parse(p.recv()), cmd=want)
    p.send("cmd=barrier_in")
    expect(p, p.parse(p.recv()), cmd="barrier_out")
    expect(p, p.cmd("cmd=finalize"), cmd="finalize_ack")
    print("ok %d kvs=%s" % (p.rank, kvs), flush=True)


def hosts(p):
    """A job on several hosts: the key-value space is global (every rank reads every other
    rank's puts after each barrier), and the layout is published. Prints
    "layout <rank> <METAMPI_HOSTNAME> <PMI_process_mapping>" and "ok <rank>"."""
    expect(p, p.cmd("cmd=init pmi_version=1 pmi_subversion=1"), cmd="response_to_init", rc=0)
    r = p.cmd("cmd=get_universe_size")  # the slots mpirun knows of: at least the ranks
    expect(p, r, cmd="universe_size", rc=0)
    if int(r["size"]) < p.size:
        fail(p, "universe size %s below the job's %d ranks" % (r["size"], p.size))
    kvs = p.cmd("cmd=get_my_kvsname")["kvsname"]
    r = p.cmd("cmd=get kvsname=%s key=PMI_process_mapping" % kvs)
    expect(p, r, cmd="get_result", rc=0)
    print("layout %d %s %s" % (p.rank, os.environ.get("METAMPI_HOSTNAME", "-"), r["value"]),
          flush=True)
    for round_ in range(3):
        value = "r%d-%d-" % (round_, p.rank) + "x" * (100 * p.rank)
        expect(p, p.cmd("cmd=put kvsname=%s key=k%d_%d value=%s" % (kvs, round_, p.rank, value)),
               cmd="put_result", rc=0)
        p.send("cmd=barrier_in")
        expect(p, p.parse(p.recv()), cmd="barrier_out")
        for other in range(p.size):
            r = p.cmd("cmd=get kvsname=%s key=k%d_%d" % (kvs, round_, other))
            expect(p, r, cmd="get_result", rc=0,
                   value="r%d-%d-" % (round_, other) + "x" * (100 * other))
    r = p.cmd("cmd=get kvsname=%s key=nosuchkey" % kvs)
    expect(p, r, cmd="get_result", rc=-1, msg="key_nosuchkey_not_found")
    expect(p, p.cmd("cmd=finalize"), cmd="finalize_ack")
    print("ok %d" % p.rank, flush=True)


def sites(p):
    """The site layout mpirun publishes for --metacomputer, there before any barrier. Prints
    "sites <rank> <METAMPI_HOSTNAME> <metampi.sites> <metampi.site_names>
    <metampi.rank_sites>" ("-" for a missing key) and "ok <rank>"."""
    expect(p, p.cmd("cmd=init pmi_version=1 pmi_subversion=1"), cmd="response_to_init", rc=0)
    kvs = p.cmd("cmd=get_my_kvsname")["kvsname"]
    values = []
    for key in ("metampi.sites", "metampi.site_names", "metampi.rank_sites"):
        r = p.cmd("cmd=get kvsname=%s key=%s" % (kvs, key))
        values.append(r["value"] if r.get("rc") == "0" else "-")
    print("sites %d %s %s" % (p.rank, os.environ.get("METAMPI_HOSTNAME", "-"), " ".join(values)),
          flush=True)
    p.send("cmd=barrier_in")
    expect(p, p.parse(p.recv()), cmd="barrier_out")
    expect(p, p.cmd("cmd=finalize"), cmd="finalize_ack")
    print("ok %d" % p.rank, flush=True)


def wait_forever(p):
    p.send("cmd=barrier_in")   # never completes: the target rank does not enter
    try:
        p.recv()
    except EOFError:
        pass
    time.sleep(3600)


def main():
    scenario = sys.argv[1]
    target = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    p = Pmi()
    print("ready %d" % p.rank, flush=True)
    if scenario == "full":
        full(p)
        return 0
    if scenario == "hosts":
        hosts(p)
        return 0
    if scenario == "sites":
        sites(p)
        return 0
    if scenario == "finalize_exit":   # finalize and exit at once: must not be reported
        p.cmd("cmd=init pmi_version=1 pmi_subversion=1")
        p.send("cmd=finalize")
        return 0
    if scenario == "finalize_noread":  # finalize without waiting for the ack
        p.cmd("cmd=init pmi_version=1 pmi_subversion=1")
        p.send(("cmd=get_appnum\n" * 50 + "cmd=finalize\n").encode())
        return 0
    r = p.cmd("cmd=init pmi_version=1 pmi_subversion=1")
    expect(p, r, rc=0)
    kvs = p.cmd("cmd=get_my_kvsname")["kvsname"]
    print("kvs %d %s" % (p.rank, kvs), flush=True)
    if p.rank != target:
        if scenario == "double_barrier":   # stay out of the barrier so it cannot complete
            time.sleep(3600)
        wait_forever(p)
    print("EVENT %.6f" % time.monotonic(), flush=True)
    if scenario == "malformed":
        p.send("this is not pmi")
    elif scenario == "unknown":
        p.send("cmd=frobnicate a=b")
    elif scenario == "oversize":
        p.send(b"cmd=put key=" + b"x" * 5000)
    elif scenario == "oversize_nl":
        p.send(b"cmd=put key=" + b"x" * 5000 + b"\n")
    elif scenario == "double_barrier":
        p.send("cmd=barrier_in\ncmd=barrier_in")
    elif scenario == "badversion":
        # a separate connection state is not possible; re-init with version 2
        r = p.cmd("cmd=init pmi_version=2 pmi_subversion=0")
        if r.get("rc") != "-1":
            fail(p, "pmi_version=2 accepted: %r" % r)
    elif scenario == "abort":
        p.send("cmd=abort exitcode=7 error_msg=python rank says goodbye")
    elif scenario == "abort_nomsg":
        p.send("cmd=abort exitcode=300")
    elif scenario == "noinit_exit0":
        return 0
    elif scenario == "shm":
        # a file the library would create, left behind by a crash
        with open("/dev/shm/metampi.%s.crashed" % kvs, "w") as f:
            f.write("x")
        os.kill(os.getpid(), 9)
    else:
        fail(p, "unknown scenario " + scenario)
    time.sleep(3600)
    return 0


if __name__ == "__main__":
    sys.exit(main())
