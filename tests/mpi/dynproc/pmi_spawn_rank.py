#!/usr/bin/env python3
"""A rank that speaks mpirun's PMI-1 spawn protocol (src/tools/launch/pmi_spawn.h) in pure
Python, so mpirun's side of process creation is tested without the library.

Usage: pmi_spawn_rank.py parent SCENARIO NCHILD  |  pmi_spawn_rank.py child SCENARIO [ARGS]
Prints "ok ..." lines; "FAIL <why>" and exit 3 on a wrong reply.
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
        data = (line + "\n").encode()
        while data:
            data = data[os.write(self.fd, data):]

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
        out = {}
        for tok in self.recv().split(" "):
            k, _, v = tok.partition("=")
            out[k] = v
        return out


def hx(s):
    return s.encode().hex() if s else "-"


def fail(why):
    print("FAIL %s" % why, flush=True)
    sys.exit(3)


def expect(r, **want):
    for k, v in want.items():
        if r.get(k) != str(v):
            fail("expected %s=%s in %r" % (k, v, r))


def init(p):
    expect(p.cmd("cmd=init pmi_version=1 pmi_subversion=1"), rc=0)
    r = p.cmd("cmd=get_my_kvsname")
    return r["kvsname"]


def spawn(p, apps, preput=()):
    """apps: (command, maxprocs, [args], {info}); returns the spawn_result reply."""
    for cmd, n, args, info in apps:
        expect(p.cmd("cmd=spawn_app maxprocs=%d execname=%s" % (n, hx(cmd))), rc=0)
        for a in args:
            expect(p.cmd("cmd=spawn_arg value=%s" % hx(a)), rc=0)
        for k, v in info.items():
            expect(p.cmd("cmd=spawn_info key=%s value=%s" % (hx(k), hx(v))), rc=0)
    for k, v in preput:
        expect(p.cmd("cmd=spawn_preput key=%s value=%s" % (k, v)), rc=0)
    return p.cmd("cmd=spawn")


def get(p, kvs, key):
    return p.cmd("cmd=get kvsname=%s key=%s" % (kvs, key))


def finish(p):
    expect(p.cmd("cmd=finalize"), cmd="finalize_ack")


def parent(scenario, nchild):
    p = Pmi()
    kvs = init(p)
    me = os.path.abspath(__file__)
    u = int(p.cmd("cmd=get_universe_size")["size"])
    if u < p.size:
        fail("universe size %d below the job's %d ranks" % (u, p.size))
    expect(p.cmd("cmd=put kvsname=%s key=parent.%d value=hello%d" % (kvs, p.rank, p.rank)), rc=0)
    expect(p.cmd("cmd=barrier_in"), cmd="barrier_out")
    if p.rank == 0:
        py = sys.executable
        if scenario == "basic":
            r = spawn(p, [(py, nchild, [me, "child", "basic", "two words", ""], {})],
                      [("greeting", "from_parent")])
            expect(r, rc=0, kvsname=kvs + ".s1", size=nchild)
            for c in range(nchild):  # the children's puts, through the other space
                for _ in range(500):
                    v = get(p, r["kvsname"], "child.%d" % c)
                    if v["rc"] == "0":
                        break
                    time.sleep(0.01)
                expect(v, rc=0, value="up%d" % c)
            expect(get(p, "no_such_kvs", "x"), rc=-1)
            print("ok parent saw %d children" % nchild, flush=True)
        elif scenario == "multiple":
            r = spawn(p, [(py, 1, [me, "child", "multiple", "0"], {}),
                          (py, nchild, [me, "child", "multiple", "1"], {"wdir": "/tmp"})])
            expect(r, rc=0, size=1 + nchild)
            print("ok parent spawned two apps", flush=True)
        elif scenario == "missing":
            r = spawn(p, [("/nonexistent/metampi-prog", 2, [], {})])
            expect(r, rc=-1)
            msg = bytes.fromhex(r["msg"]).decode()
            if "cannot execute '/nonexistent/metampi-prog'" not in msg:
                fail("unexpected reason %r" % msg)
            r = spawn(p, [(py, 1, [me, "child", "basic"], {"host": "no-such-host"})])
            expect(r, rc=-1)
            print("ok parent refused: %s / %s" % (msg, bytes.fromhex(r["msg"]).decode()),
                  flush=True)
            r = p.cmd("cmd=spawn")  # an empty request
            expect(r, rc=-1)
        elif scenario == "childfails":
            expect(spawn(p, [(py, nchild, [me, "child", "fails"], {})]), rc=0)
            print("ok parent spawned", flush=True)
        elif scenario == "malformed":
            p.send("cmd=spawn_arg value=%s" % hx("x"))  # no application yet
            time.sleep(30)
        elif scenario == "nested":
            r = spawn(p, [(py, 1, [me, "child", "nested"], {})])
            expect(r, rc=0, kvsname=kvs + ".s1")
            print("ok parent spawned", flush=True)
    finish(p)


def child(scenario, args):
    p = Pmi()
    kvs = init(p)
    base = get(p, kvs, "metampi.part.base")
    pk, _, prank = get(p, kvs, "metampi.part.parent")["value"].partition(",")
    if scenario == "basic":
        if args != ["two words", ""]:
            fail("arguments %r" % args)
        expect(get(p, kvs, "greeting"), rc=0, value="from_parent")
        expect(get(p, pk, "parent.0"), rc=0, value="hello0")
        expect(p.cmd("cmd=get_appnum"), appnum=0)
        expect(p.cmd("cmd=put kvsname=%s key=child.%d value=up%d" % (kvs, p.rank, p.rank)), rc=0)
        expect(p.cmd("cmd=barrier_in"), cmd="barrier_out")
        print("ok child %d of %d base %s parent %s rank %s" % (p.rank, p.size, base["value"],
              pk, prank), flush=True)
    elif scenario == "multiple":
        appnum = p.cmd("cmd=get_appnum")["appnum"]
        if appnum != args[0]:
            fail("appnum %s, want %s" % (appnum, args[0]))
        want = "/tmp" if appnum == "1" else None
        if want and os.getcwd() != want:
            fail("wdir %s, want %s" % (os.getcwd(), want))
        expect(p.cmd("cmd=barrier_in"), cmd="barrier_out")
        print("ok child %d appnum %s" % (p.rank, appnum), flush=True)
    elif scenario == "fails":
        finish(p)
        time.sleep(0.2)
        sys.exit(5 if p.rank == p.size - 1 else 0)
    elif scenario == "nested":
        if pk.endswith(".s1"):
            print("ok grandchild of %s" % pk, flush=True)
        else:
            r = spawn(p, [(sys.executable, 1, [os.path.abspath(__file__), "child", "nested"], {})])
            expect(r, rc=0, kvsname=pk + ".s2")
            print("ok child spawned", flush=True)
    finish(p)


if __name__ == "__main__":
    if sys.argv[1] == "parent":
        parent(sys.argv[2], int(sys.argv[3]))
    else:
        child(sys.argv[2], sys.argv[3:])
