"""Idle TCP connections against a listener, for the flood tests (standard library only).

    with Flood([("10.0.0.1", 4242)], per_addr=1500) as f:
        ...             # the connections are there (f.opened() says how many got through)

Each address gets per_addr connections that send nothing, opened in a background thread as
fast as the listener takes them; a connection the other side closes (a daemon evicting
unproven connections, a rank that gave up on it) is opened again, at most `reopen_per_s`
times a second per address, so the flood goes on for as long as it lasts. Leaving the block
closes everything. The process needs a descriptor per connection (RLIMIT_NOFILE is raised to
its hard limit here).
"""
import errno
import resource
import selectors
import socket
import threading
import time


class Flood:
    def __init__(self, addrs, per_addr, reopen_per_s=200, netns=None):
        self.addrs = list(addrs)
        self.per_addr = per_addr
        self.reopen_per_s = reopen_per_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._lock = threading.Lock()
        self._opened = 0
        self._closed_by_peer = 0
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        want = len(self.addrs) * per_addr + 256
        if soft < want:
            resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, want), hard))

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def stop(self):
        self._stop.set()
        self._thread.join(timeout=30)

    def opened(self):
        with self._lock:
            return self._opened

    def closed_by_peer(self):
        with self._lock:
            return self._closed_by_peer

    def wait_opened(self, n, timeout):
        deadline = time.monotonic() + timeout
        while self.opened() < n and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.opened() >= n

    def _connect(self, sel, addr):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        rc = s.connect_ex(addr)
        if rc not in (0, errno.EINPROGRESS):
            s.close()
            return False
        sel.register(s, selectors.EVENT_READ | selectors.EVENT_WRITE, addr)
        return True

    def _run(self):
        sel = selectors.DefaultSelector()
        live = {a: 0 for a in self.addrs}
        budget = {a: self.per_addr for a in self.addrs}  # the first wave
        last = time.monotonic()
        try:
            while not self._stop.is_set():
                now = time.monotonic()
                for a in self.addrs:  # reopening is rate-limited after the first wave
                    budget[a] += (now - last) * self.reopen_per_s
                    while live[a] < self.per_addr and budget[a] >= 1:
                        budget[a] -= 1
                        if not self._connect(sel, a):
                            break
                        live[a] += 1
                    budget[a] = min(budget[a], self.per_addr)
                last = now
                for key, ev in sel.select(timeout=0.05):
                    s, a = key.fileobj, key.data
                    if ev & selectors.EVENT_WRITE:
                        err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                        if err == 0:
                            with self._lock:
                                self._opened += 1
                            sel.modify(s, selectors.EVENT_READ, a)
                            continue
                    elif ev & selectors.EVENT_READ:
                        try:
                            if s.recv(4096):
                                continue  # a challenge: we say nothing
                        except OSError:
                            pass
                        with self._lock:
                            self._closed_by_peer += 1
                    sel.unregister(s)
                    s.close()
                    live[a] -= 1
        finally:
            for key in list(sel.get_map().values()):
                key.fileobj.close()
            sel.close()
