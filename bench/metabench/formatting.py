"""How the report writes numbers: sizes, rates, slowdowns."""


def fmt(value, digits):
    return "failed" if value is None else f"{value:.{digits}f}"


def human_bytes(n):
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n // scale} {unit}"
    return f"{n} B"


def human_bytes_si(n):
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


def describe_slowdown(s):
    return f"{s:.2f}× slower than" if s > 1 else f"{1 / s:.2f}× faster than"
