#!/usr/bin/env python3
"""Small TCP/UDP tools for the emulated-cluster tests (standard library only).

  nettool.py serve PORT TOKEN            answer each line of each connection with "TOKEN line"
  nettool.py echo HOST PORT TEXT         send TEXT, print the answer (retries while the
                                         server is not up yet, for 5 s)
  nettool.py sink PORT                   take one connection, read it to EOF, print
                                         "BYTES SECONDS MBITS" measured from its first byte
  nettool.py stream HOST PORT SECONDS    send as fast as possible for SECONDS
  nettool.py udpsink PORT SECONDS        count datagrams for SECONDS after the first one,
                                         print "COUNT"
  nettool.py udpsend HOST PORT COUNT GAP_US   send COUNT numbered datagrams GAP_US apart
  nettool.py pattern HOST PORT BYTES     send BYTES of a known pattern, then close
  nettool.py compare PORT BYTES          take one connection, read it to EOF and compare it
                                         with the pattern: print "received N, M differ" and
                                         a line "at OFFSET by 0xXOR" for each of the first 10
                                         bytes that differ

Every wait is bounded, so a broken network fails a test instead of hanging it.
"""
import socket
import sys
import time

CONNECT_TRIES_S = 5.0
ACCEPT_TIMEOUT_S = 10.0
CHUNK = 1 << 16


def connect(host, port):
    deadline = time.monotonic() + CONNECT_TRIES_S
    while True:
        try:
            return socket.create_connection((host, port), timeout=ACCEPT_TIMEOUT_S)
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def listener(port):
    """TCP on port of both families (:: with IPV6_V6ONLY off), or of IPv4 alone where the
    kernel has no IPv6."""
    if socket.has_dualstack_ipv6():
        s = socket.create_server(("::", port), family=socket.AF_INET6, reuse_port=False,
                                 dualstack_ipv6=True, backlog=8)
        s.settimeout(ACCEPT_TIMEOUT_S)
        return s
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", port))
    s.listen(8)
    s.settimeout(ACCEPT_TIMEOUT_S)
    return s


def serve(port, token):
    s = listener(port)
    while True:
        c, _ = s.accept()
        with c, c.makefile("rw") as f:
            for line in f:
                f.write("%s %s" % (token, line))
                f.flush()


def echo(host, port, text):
    with connect(host, port) as c, c.makefile("rw") as f:
        f.write(text + "\n")
        f.flush()
        print(f.readline().rstrip("\n"))


def sink(port):
    s = listener(port)
    c, _ = s.accept()
    c.settimeout(ACCEPT_TIMEOUT_S)
    total = 0
    first = last = None
    while True:
        data = c.recv(CHUNK)
        if not data:
            break
        last = time.monotonic()
        if first is None:
            first = last
        else:
            total += len(data)      # bytes after the first read, over the time since it
    secs = (last - first) if first is not None and last > first else 0.0
    print("%d %.3f %.1f" % (total, secs, total * 8 / secs / 1e6 if secs else 0.0))


def stream(host, port, seconds):
    buf = b"\0" * CHUNK
    with connect(host, port) as c:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            c.sendall(buf)


def udpsink(port, seconds):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    s.bind(("0.0.0.0", port))
    s.settimeout(ACCEPT_TIMEOUT_S)
    s.recv(2048)
    count = 1
    end = time.monotonic() + seconds
    while True:
        left = end - time.monotonic()
        if left <= 0:
            break
        s.settimeout(left)
        try:
            s.recv(2048)
            count += 1
        except socket.timeout:
            break
    print(count)


def udpsend(host, port, count, gap_us):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    addr = (socket.gethostbyname(host), port)
    start = time.monotonic()
    for i in range(count):
        while time.monotonic() < start + i * gap_us / 1e6:
            pass
        s.sendto(b"%08d" % i + b"\0" * 56, addr)


def known(n):
    """The pattern: byte i is i mod 251 (a prime: no period of a power of two)."""
    return bytes(range(251)) * (n // 251) + bytes(range(n % 251))


def pattern(host, port, nbytes):
    with connect(host, port) as c:
        c.sendall(known(nbytes))


def compare(port, nbytes):
    s = listener(port)
    c, _ = s.accept()
    c.settimeout(ACCEPT_TIMEOUT_S)
    got = bytearray()
    while True:
        data = c.recv(CHUNK)
        if not data:
            break
        got += data
    want = known(max(nbytes, len(got)))
    diff = [i for i in range(len(got)) if got[i] != want[i]]
    print("received %d, %d differ" % (len(got), len(diff)))
    for i in diff[:10]:
        print("at %d by 0x%02x" % (i, got[i] ^ want[i]))


def main(argv):
    cmds = {
        "serve": (serve, (int, str)),
        "echo": (echo, (str, int, str)),
        "sink": (sink, (int,)),
        "stream": (stream, (str, int, float)),
        "udpsink": (udpsink, (int, float)),
        "udpsend": (udpsend, (str, int, int, int)),
        "pattern": (pattern, (str, int, int)),
        "compare": (compare, (int, int)),
    }
    if len(argv) < 2 or argv[1] not in cmds or len(argv) - 2 != len(cmds[argv[1]][1]):
        sys.exit(__doc__)
    fn, types = cmds[argv[1]]
    fn(*(t(a) for t, a in zip(types, argv[2:])))


if __name__ == "__main__":
    main(sys.argv)
