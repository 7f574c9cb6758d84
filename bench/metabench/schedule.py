"""When runs happen: the contenders take turns in an order rotated every round, and before
each run the runner waits (within --wait-idle) for other work on the machine to drop, and
notes the load it saw."""
import time


def rotated(items, k):
    k %= len(items)
    return items[k:] + items[:k]


def cpu_busy(seconds=0.3):
    """Fraction of all CPUs busy over `seconds` (from /proc/stat), or None if unreadable.
    Called between runs, so what it sees is other work on the machine."""
    def sample():
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
        return sum(fields), fields[3] + fields[4]   # total, idle + iowait
    try:
        total0, idle0 = sample()
        time.sleep(seconds)
        total1, idle1 = sample()
    except (OSError, ValueError, IndexError):
        return None
    return 1 - (idle1 - idle0) / max(total1 - total0, 1)


def wait_for_idle(max_wait, threshold=0.10):
    """Waits up to max_wait seconds for other work to drop below threshold; returns the last
    busy fraction seen (None if unknown)."""
    deadline = time.perf_counter() + max_wait
    busy = cpu_busy()
    while busy is not None and busy > threshold and time.perf_counter() < deadline:
        time.sleep(1)
        busy = cpu_busy()
    return busy


class IdleWait:
    """--wait-idle: before each run, wait for other work on the machine to drop below 10% of
    the CPUs, up to `seconds` over the whole run, and note the load seen."""

    def __init__(self, seconds):
        self.budget = seconds   # seconds left to wait, over the whole run

    def before_run(self, busy_list):
        """Waits (within what is left of the budget) and records the load seen in busy_list."""
        waited = time.perf_counter()
        busy = wait_for_idle(self.budget)
        self.budget = max(0.0, self.budget - (time.perf_counter() - waited))
        if busy is not None:
            busy_list.append(busy)
