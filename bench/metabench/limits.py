"""The limits of a link that the MPIs are compared with: raw TCP (bench/tcp/raw_tcp.c, the
same ping-pong and stream over one TCP connection) and iperf3 (one TCP stream)."""

# Contenders besides the MPIs (slugs).
RAW, IPERF = "raw", "iperf3"
RAW_MAX = 4 << 20           # raw_tcp's fixed schedule: 1 B ... 4 MiB
RAW_WINDOW = 64


def raw_iterations(size, latency):
    """raw_tcp.c's schedule (iters()), to know what it moved."""
    if latency:
        return 10000 if size <= 16384 else (256 << 20) // size + 100
    return 1000 if size <= 16384 else (1 << 30) // (size * RAW_WINDOW) + 20


def raw_sizes():
    sizes, b = [], 1
    while b <= RAW_MAX:
        sizes.append(b)
        b *= 2
    return sizes
