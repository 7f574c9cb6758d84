"""The raw results file (<work>/results.json, results-<part>.json with --only): JSON of plain
data, in which objects are their attributes and dicts keep keys that are not strings (sizes,
rank counts, tuples) and their order. record.py says what goes where."""
import json
import os

RESULTS_FORMAT = "metampi bench results 1"


def to_data(x):
    """x as JSON data: objects as their attributes, tuples as lists, sets as sorted lists,
    and a dict whose keys are not all strings as {"__items__": [[key, value], ...]}, so that
    its keys (sizes, rank counts, tuples) and their order come back as they were."""
    if isinstance(x, dict):
        if all(isinstance(k, str) for k in x):
            return {k: to_data(v) for k, v in x.items()}
        return {"__items__": [[to_data(k), to_data(v)] for k, v in x.items()]}
    if isinstance(x, (list, tuple)):
        return [to_data(v) for v in x]
    if isinstance(x, (set, frozenset)):
        return sorted(to_data(v) for v in x)
    if hasattr(x, "__dict__"):
        return to_data(vars(x))
    return x


def from_data(x):
    """The inverse of to_data, but for the types of objects (restore()) and for lists that
    were tuples or sets (only keys become tuples again)."""
    def key(k):
        return tuple(key(v) for v in k) if isinstance(k, list) else k
    if isinstance(x, dict):
        if list(x) == ["__items__"]:
            return {key(from_data(k)): from_data(v) for k, v in x["__items__"]}
        return {k: from_data(v) for k, v in x.items()}
    if isinstance(x, list):
        return [from_data(v) for v in x]
    return x


def restore(cls, attrs):
    obj = cls.__new__(cls)
    obj.__dict__.update(attrs)
    return obj


def save(path, data):
    """Writes data (to_data of a record) to path."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as f:
        json.dump(to_data(data), f, indent=1)
        f.write("\n")


def load(path):
    """The data saved in path (from_data), after checking that it is a results file."""
    with open(path) as f:
        data = from_data(json.load(f))
    if data.get("format") != RESULTS_FORMAT:
        raise SystemExit(f"run_benchmarks.py: {path}: not a results file of this runner "
                         f"(format {data.get('format')!r}, expected {RESULTS_FORMAT!r})")
    return data
