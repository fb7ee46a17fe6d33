"""CUDA memory snapshot (torch.cuda.memory._dump_snapshot pickle) -> MiniMalloc CSV of one steady-state
iteration, plus what PyTorch's caching allocator really reserved.

Snapshot schema (torch 2.x, see docs/pytorch.md): a dict with
- "segments": the allocator's state at dump time, one dict per segment: device, address, total_size,
  stream, segment_type, blocks = [{address?, size, requested_size?, state}], state "active_allocated",
  "active_pending_free" (torch's docstring says "active_awaiting_free") or "inactive";
- "device_traces": per device, the event history (a ring buffer of max_entries): dicts with action, addr,
  size, stream (and frames, time_us); actions alloc, free_requested, free_completed (older: free),
  segment_alloc, segment_free, segment_map, segment_unmap, oom, snapshot, and in newer versions
  user_defined (annotations, no address) and annotate (metadata attached to a live allocation). Only the
  allocation and segment actions matter here; others, present or future, are skipped and counted in
  meta["skipped_events"].

Iterations: either marked (the recording script allocates a tensor of a distinctive size, --marker-size,
at the start of every iteration: torch.empty(MARKER, dtype=torch.uint8, device="cuda")) or found as the
shortest period of the tail of the alloc/free sequence. The window is the iteration between the last two
markers (or the second-to-last period), so that the frees of buffers that live into the next iteration are
seen. Time = index among alloc and free events; a buffer allocated at event i and freed at event j lives
[i, j) relative to the window start; upper > period wraps into the next iteration.

Reserved memory: the segment list gives the reserved bytes at dump time; walking the segment events
backwards from there gives the reserved curve over the whole trace, even when the ring buffer lost its
start. Its maximum over the window is what a user of the caching allocator needed for that iteration.
"""

import bisect
import gzip
import pickle

from .errors import MemplanTorchError
from .pattern import peak_load

ALLOC = "alloc"
FREES = ("free_requested", "free", "free_completed")
SEGMENT_DELTA = {"segment_alloc": 1, "segment_map": 1, "segment_free": -1, "segment_unmap": -1}
USED = {ALLOC, *FREES, *SEGMENT_DELTA}  # the actions whose address and size the import reads
OTHERS = {"oom", "snapshot", "user_defined", "annotate"}  # actions of known versions that the import skips


class _PlainData(pickle.Unpickler):
    """Unpickles plain data only: dicts, lists, tuples, strings, numbers, booleans and None, all that
    torch.cuda.memory._snapshot() holds. A pickle that names a class or function is refused, not loaded:
    loading it could run any code (a snapshot is a file users pass around)."""

    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"it refers to {module}.{name}, and a memory snapshot holds plain data only "
                                     "(not loaded: unpickling it could run code)")


def load(path, plain_only=True):
    """Unpickle a snapshot file, gzip'ed or not (plain data only unless `plain_only` is False: for a pickle
    this process's own recording made); a clear error when it is not one. Snapshots recorded without stack
    frames compress about 12-fold (data/torch/cuda), so they are worth passing around compressed."""
    try:
        with open(path, "rb") as raw:
            compressed = raw.read(2) == b"\x1f\x8b"  # gzip's magic number; a pickle starts with 0x80
            raw.seek(0)
            f = gzip.GzipFile(fileobj=raw) if compressed else raw
            snap = _PlainData(f).load() if plain_only else pickle.load(f)
    except FileNotFoundError:
        raise MemplanTorchError(f"{path}: no such file")
    except Exception as e:
        raise MemplanTorchError(f"{path}: not a memory snapshot pickle: {type(e).__name__}: {e}") from e
    return snap


def _field(d, key, where):
    if not isinstance(d, dict) or key not in d:
        raise MemplanTorchError(f"{where}: missing field '{key}'")
    return d[key]


def _int_field(d, key, where):
    v = _field(d, key, where)
    if not isinstance(v, int) or isinstance(v, bool) or v < 0:
        raise MemplanTorchError(f"{where}: field '{key}' must be a non-negative integer, got {v!r}")
    return v


def _round_up(n, r):
    return -(-n // r) * r if r > 1 else n


def smallest_tail_period(tokens, min_period):
    """Smallest P >= min_period such that the last 2P tokens repeat with period P (the trace ends with two
    identical iterations), by the Z-function of the reversed sequence: O(n). None when there is none."""
    r = tokens[::-1]
    n = len(r)
    z = [0] * n
    left = right = 0
    for i in range(1, n):
        if i < right:
            z[i] = min(right - i, z[i - left])
        while i + z[i] < n and r[z[i]] == r[i + z[i]]:
            z[i] += 1
        if i + z[i] > right:
            left, right = i, i + z[i]
    for p in range(max(1, min_period), n // 2 + 1):
        if z[p] >= p:
            return p
    return None


def _device_events(snap, device):
    """(device, segments, parsed events, skipped counts) of one device's trace: the device with the most events
    unless `device` is given; each event parsed once as (action, addr, size), an action the import does not
    use kept in place as (action, 0, 0) so that indices stay those of the trace."""
    segments = _field(snap, "segments", "snapshot")
    traces = _field(snap, "device_traces", "snapshot")
    if not isinstance(traces, list) or not traces:
        raise MemplanTorchError("snapshot: 'device_traces' is empty: record with "
                                "torch.cuda.memory._record_memory_history() before running the iterations")
    if device is None:
        device = max(range(len(traces)), key=lambda d: len(traces[d]))
    if not 0 <= device < len(traces):
        raise MemplanTorchError(f"snapshot: no trace for device {device} (it has {len(traces)})")
    events = traces[device]
    if not events:
        raise MemplanTorchError(f"snapshot: device_traces[{device}] has no events")
    parsed, skipped = [], {}
    for i, e in enumerate(events):
        where = f"device_traces[{device}][{i}]"
        action = _field(e, "action", where)
        if action not in USED:
            skipped[str(action)] = skipped.get(str(action), 0) + 1
            parsed.append((action, 0, 0))
            continue
        parsed.append((action, _int_field(e, "addr", where), _int_field(e, "size", where)))
    return device, segments, parsed, skipped


def _allocated_blocks(segments, device):
    """(where, block) for every block of the dumped `segments` of `device` that is handed out (state
    active_allocated or active_pending_free)."""
    for k, s in enumerate(segments):
        if s.get("device", device) != device:
            continue
        for b, blk in enumerate(_field(s, "blocks", f"segments[{k}]")):
            where = f"segments[{k}].blocks[{b}]"
            if _field(blk, "state", where) != "inactive":
                yield where, blk


def import_snapshot(snap, device=None, marker_size=None, round_to=512, min_period=16):
    """Return (rows, meta): MiniMalloc rows (id, lower, upper, size) of one steady-state iteration and a
    meta dict (period, peaks, reserved memory). Raises MemplanTorchError naming the missing field or the
    reason the iteration cannot be found."""
    device, segments, parsed, skipped = _device_events(snap, device)
    # Which free action marks the end of a buffer's life: the first kind present in FREES order
    # (free_requested is when the tensor died; free_completed waits for other streams).
    present = {a for a, _, _ in parsed}
    free_action = next((a for a in FREES if a in present), "free_requested")

    # Reserved bytes at dump time, then backwards through the segment events.
    reserved_end = 0
    for k, s in enumerate(segments):
        where = f"segments[{k}]"
        if s.get("device", device) == device:
            reserved_end += _int_field(s, "total_size", where)
    allocated_end = 0
    for where, blk in _allocated_blocks(segments, device):
        # In the tokens' unit: the request rounded as above. The block itself can be larger (the caching
        # allocator leaves a block of the large pool unsplit when 1 MiB or less would remain).
        requested = blk.get("requested_size")
        if isinstance(requested, int) and not isinstance(requested, bool) and 0 < requested:
            allocated_end += _round_up(requested, round_to)
        else:  # snapshots without requested_size
            allocated_end += _int_field(blk, "size", where)
    reserved_before = [0] * (len(parsed) + 1)   # reserved bytes just before event i (index len: at dump)
    reserved_before[-1] = reserved_end
    for i in range(len(parsed) - 1, -1, -1):
        action, _, size = parsed[i]
        reserved_before[i] = reserved_before[i + 1] - SEGMENT_DELTA.get(action, 0) * size
    if min(reserved_before) < 0:
        raise MemplanTorchError(f"snapshot: segment events of device {device} do not add up to the dumped "
                                "segments (reserved memory would go negative): the segments list and the "
                                "trace disagree")

    # The alloc/free token sequence, in the time unit of the output.
    toks = [(i, a, addr, _round_up(size, round_to)) for i, (a, addr, size) in enumerate(parsed)
            if a == ALLOC or a == free_action]
    if marker_size is not None:
        marks = [t for t, (_, a, _, _) in enumerate(toks) if a == ALLOC and parsed[toks[t][0]][2] == marker_size]
        if len(marks) < 2:
            raise MemplanTorchError(
                f"snapshot: found {len(marks)} iteration marker(s) (alloc of {marker_size} bytes) on device "
                f"{device}; one complete iteration needs two: the ring buffer lost the start of the "
                "iteration (record with a larger max_entries, or fewer iterations)")
        # The last marked iteration: the events after it (the next iteration, up to the dump) show when
        # its longer-lived buffers die.
        start, end = marks[-2], marks[-1]
    else:
        period = smallest_tail_period([(a, s) for _, a, _, s in toks], min_period)
        if period is None:
            raise MemplanTorchError(
                f"snapshot: no repeating iteration at the end of device {device}'s trace ({len(toks)} alloc/free "
                "events): the ring buffer holds less than two iterations, or they differ; record more "
                "iterations (larger max_entries) or mark them with --marker-size")
        start, end = len(toks) - 2 * period, len(toks) - period
    period = end - start

    rows, open_allocs, left_out = [], {}, []
    for t, (i, action, addr, size) in enumerate(toks):
        if action == ALLOC:
            if addr in open_allocs and open_allocs[addr][0] >= start:
                raise MemplanTorchError(f"device_traces[{device}][{i}]: alloc at address {addr:#x}, which is "
                                        "still allocated (no free event in between)")
            open_allocs[addr] = (t, size)
        else:
            if addr not in open_allocs:
                continue  # allocated before the ring buffer's first event
            t0, s0 = open_allocs.pop(addr)
            if start <= t0 < end:
                if t - t0 > period:
                    left_out.append(s0)
                else:
                    rows.append({"id": len(rows), "lower": t0 - start, "upper": t - start, "size": s0})
    for addr, (t0, s0) in open_allocs.items():
        if start <= t0 < end:
            left_out.append(s0)  # never freed within the trace: longer-lived than the pattern
    rows.sort(key=lambda r: (r["lower"], r["upper"]))
    for k, r in enumerate(rows):
        r["id"] = k

    # Allocated bytes over the window, walking back from the dumped blocks (sizes rounded as above).
    allocated_before = [0] * (len(toks) + 1)
    allocated_before[-1] = allocated_end
    for t in range(len(toks) - 1, -1, -1):
        _, action, _, size = toks[t]
        allocated_before[t] = allocated_before[t + 1] + (-size if action == ALLOC else size)
    first_event, last_event = toks[start][0], toks[end][0] if end < len(toks) else len(parsed)
    wrapped_at_start = sum(r["size"] for r in rows if r["upper"] > period)
    meta = {
        "format": "memplan-trace/v1",
        "period": period,
        "time_unit": "alloc/free events",
        "source": "cuda-snapshot",
        "device": device,
        "buffers": len(rows),
        "peak_load": peak_load(rows, period),
        "round_to": round_to,
        "left_out_buffers": len(left_out),
        "left_out_bytes": sum(left_out),
        "reserved_peak_bytes": max(reserved_before[first_event:last_event + 1]),
        "reserved_peak_trace_bytes": max(reserved_before),
        "allocated_peak_bytes": max(allocated_before[start:end + 1]),
        # Memory live across the iteration that the pattern does not model (parameters, optimizer state):
        # add it to an arena planned for the rows to compare with reserved_peak_bytes.
        "persistent_bytes": max(0, allocated_before[start] - wrapped_at_start),
        "events": len(parsed),
        "skipped_events": skipped,
        "free_action": free_action,
    }
    return rows, meta


SMALL_SEGMENT = 2 << 20  # the caching allocator's small-pool segment (kSmallBuffer); large ones differ in size


def replay_of(snap, device=None):
    """The caching-replay/v1 dict of a snapshot: the allocator's state when the recording began (its segments,
    and in them the blocks live then) and every alloc, free and segment event after it, with the real
    addresses, for `memplan simulate --replay` to replay through its model of the allocator and compare each
    placement with the real one.

    Blocks live at the start are the ones the trace frees without having allocated them (their size: the
    request rounded to 512 bytes; a large-pool block the allocator left unsplit is larger, and the sliver of
    1 MiB or less that this leaves free is too small for any large-pool request, and merges back when the
    block is freed) and the dumped allocated blocks the trace never allocated (their own size). Raises
    MemplanTorchError for what the replay does not model (expandable segments) and for a trace whose events
    contradict the dumped state."""
    device, segments, parsed, _ = _device_events(snap, device)
    present = {a for a, _, _ in parsed}
    if present & {"segment_map", "segment_unmap"}:
        raise MemplanTorchError(f"snapshot: device {device} used expandable segments (segment_map events), "
                                "which the replay does not model")
    free_action = next((a for a in ("free_completed", "free", "free_requested") if a in present), "free_completed")
    settings = snap.get("allocator_settings") if isinstance(snap.get("allocator_settings"), dict) else {}
    if settings.get("expandable_segments"):
        raise MemplanTorchError("snapshot: recorded with expandable segments, which the replay does not model")

    start = {}  # address -> [size, pool, live blocks] of the segments when the recording began
    for k, s in enumerate(segments):
        if s.get("device", device) != device:
            continue
        where = f"segments[{k}]"
        if s.get("is_expandable"):
            raise MemplanTorchError(f"{where}: an expandable segment, which the replay does not model")
        pool = s.get("segment_type", "large")
        start[_int_field(s, "address", where)] = [_int_field(s, "total_size", where), pool, []]
    for i in range(len(parsed) - 1, -1, -1):
        action, addr, size = parsed[i]
        if action == "segment_alloc":
            if start.pop(addr, None) is None:
                raise MemplanTorchError(f"device_traces[{device}][{i}]: segment_alloc at {addr:#x}, a segment the "
                                        "dump does not have and no later event frees")
        elif action == "segment_free":
            start[addr] = [size, "small" if size == SMALL_SEGMENT else "large", []]

    events, allocated, live_at_start = [], {}, []
    for i, (action, addr, size) in enumerate(parsed):
        if action == ALLOC:
            allocated[addr] = size
            events.append(["alloc", addr, size])
        elif action == free_action:
            if allocated.pop(addr, None) is None:
                live_at_start.append((addr, _round_up(size, 512)))
            events.append(["free", addr, 0])
        elif action in ("segment_alloc", "segment_free"):
            events.append([action, addr, size])
    for where, blk in _allocated_blocks(segments, device):
        addr = _int_field(blk, "address", where)
        if addr not in allocated:
            live_at_start.append((addr, _int_field(blk, "size", where)))
    bases = sorted(start)
    for addr, size in sorted(live_at_start):
        k = bisect.bisect_right(bases, addr) - 1
        if k < 0 or addr + size > bases[k] + start[bases[k]][0]:
            raise MemplanTorchError(f"snapshot: a block live when the recording began, at {addr:#x} ({size} bytes), "
                                    "lies in no segment of that time")
        start[bases[k]][2].append([addr, size])
    return {
        "format": "caching-replay/v1",
        "device": device,
        "conf": settings.get("PYTORCH_CUDA_ALLOC_CONF", "") or "",
        "free_action": free_action,
        "segments": [{"address": a, "size": start[a][0], "pool": start[a][1], "live": start[a][2]} for a in bases],
        "events": events,
    }
