"""Allocation patterns as MiniMalloc CSV rows (id, lower, upper, size; half-open lifetimes; upper > period
wraps into the next iteration) and their JSON sidecar. No torch needed, so tools and tests that only read
committed traces run without it."""


def peak_load(rows, period=0):
    """Max over time of the total size of live buffers (rows with upper > period wrap around)."""
    events = []
    for r in rows:
        lo, up = r["lower"], r["upper"]
        if period and up > period:
            events += [(lo, r["size"]), (period, -r["size"]), (0, r["size"]), (up - period, -r["size"])]
        else:
            events += [(lo, r["size"]), (up, -r["size"])]
    events.sort(key=lambda e: (e[0], e[1]))  # frees before allocations at the same time: half-open
    live = peak = 0
    for _, d in events:
        live += d
        peak = max(peak, live)
    return peak


def to_csv(rows):
    """MiniMalloc CSV text: header id,lower,upper,size."""
    lines = ["id,lower,upper,size"]
    lines += [f"{r['id']},{r['lower']},{r['upper']},{r['size']}" for r in rows]
    return "\n".join(lines) + "\n"


def meta_path(csv_path):
    """The JSON sidecar beside a trace: NAME.csv -> NAME.meta.json (holds the period and the totals)."""
    return (csv_path[:-4] if csv_path.endswith(".csv") else csv_path) + ".meta.json"


def write(csv_path, rows, meta, extra=()):
    """Write the CSV and its sidecar together, with the (path, text) pairs of `extra` (all or none; see
    atomic.write_files)."""
    import json

    from .atomic import write_files

    write_files([(csv_path, to_csv(rows)), (meta_path(csv_path), json.dumps(meta, indent=1) + "\n"), *extra])
