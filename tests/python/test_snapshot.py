"""Snapshot import: pickles with the schema of torch.cuda.memory._snapshot(), built by a small model of the
caching allocator (reuse of freed blocks, new segments on a miss), and the errors for broken ones."""

import collections
import copy
import glob
import gzip
import json
import os
import pickle
import subprocess
import sys

import pytest

from memplan_torch import pattern, snapshot
from memplan_torch.errors import MemplanTorchError

from conftest import DATA, REPO, memplan_binary

MARKER = 4093
MB = 1 << 20
# One iteration: (name, bytes, name to free before it, ...). "g" (a gradient) lives into the next iteration,
# where the first step frees it, as zero_grad does.
ITERATION = [("in", 3 * MB, None), ("a", 5 * MB, None), ("b", 700_000, None), ("x", 300, "in"),
             ("c", 5 * MB, "a"), ("g", 2 * MB, "b"), ("d", 1000, "x")]


def make_snapshot(iterations=3, marker=True):
    """Run ITERATION `iterations` times through a best-fit-by-size block cache with one segment per miss.
    Returns the snapshot dict."""
    events, segments, cache, live = [], {}, {}, {}
    next_addr = [0x7F0000000000]
    freed_at_end = ["c", "d"]

    def alloc(name, size):
        rounded = -(-size // 512) * 512
        if cache.get(rounded):
            addr = cache[rounded].pop()
        else:
            addr = next_addr[0]
            seg = max(2 * MB, -(-rounded // (2 * MB)) * 2 * MB)
            next_addr[0] += seg
            segments[addr] = (seg, rounded)
            events.append({"action": "segment_alloc", "addr": addr, "size": seg, "stream": 0, "frames": []})
        events.append({"action": "alloc", "addr": addr, "size": size, "stream": 0, "frames": [], "time_us": 1})
        live[name] = (addr, size, rounded)

    def free(name):
        addr, size, rounded = live.pop(name)
        events.append({"action": "free_requested", "addr": addr, "size": size, "stream": 0, "frames": []})
        events.append({"action": "free_completed", "addr": addr, "size": size, "stream": 0, "frames": []})
        cache.setdefault(rounded, []).append(addr)

    for it in range(iterations):
        if marker:
            alloc("marker", MARKER)
            free("marker")
        if "g" in live:
            free("g")
        for name, size, to_free in ITERATION:
            if to_free:
                free(to_free)
            alloc(name, size)
        for name in freed_at_end:
            free(name)
    seg_list = []
    live_addrs = {a: (s, r) for a, s, r in live.values()}
    for addr, (total, rounded) in segments.items():
        blocks = [{"address": addr, "size": rounded, "requested_size": live_addrs.get(addr, (0,))[0],
                   "state": "active_allocated" if addr in live_addrs else "inactive", "frames": []}]
        if total > rounded:
            blocks.append({"address": addr + rounded, "size": total - rounded, "state": "inactive", "frames": []})
        seg_list.append({"device": 0, "address": addr, "total_size": total, "allocated_size": 0,
                         "active_size": 0, "stream": 0, "segment_type": "large", "blocks": blocks})
    return {"segments": seg_list, "device_traces": [events]}


def test_marked_iteration_rows_and_reserved_peak():
    snap = make_snapshot()
    rows, meta = snapshot.import_snapshot(snap, marker_size=MARKER)
    # per iteration: 2 marker events, free g, 7 allocs, 4 frees inside, 2 frees at the end = 16 events
    assert meta["period"] == 16
    sizes = sorted(r["size"] for r in rows)
    expected = sorted([4096] + [-(-s // 512) * 512 for _, s, _ in ITERATION])
    assert sizes == expected
    g = [r for r in rows if r["size"] == 2 * MB]
    assert len(g) == 1 and g[0]["upper"] > meta["period"], "the gradient wraps into the next iteration"
    assert all(r["lower"] < r["upper"] <= r["lower"] + meta["period"] for r in rows)
    # segments only grow in this model: the reserved peak is everything reserved at dump time
    assert meta["reserved_peak_bytes"] == sum(s["total_size"] for s in snap["segments"])
    assert meta["peak_load"] == pattern.peak_load(rows, meta["period"])
    assert meta["free_action"] == "free_requested" and meta["left_out_buffers"] == 0
    assert meta["persistent_bytes"] == 0  # nothing outlives the pattern in this model


def test_auto_detected_period_matches_markers():
    snap = make_snapshot(iterations=3, marker=False)
    rows, meta = snapshot.import_snapshot(snap, min_period=4)
    assert meta["period"] == 14
    assert sorted(r["size"] for r in rows) == sorted(-(-s // 512) * 512 for _, s, _ in ITERATION)


def test_ring_buffer_that_lost_the_iteration_start():
    snap = make_snapshot(iterations=2)
    events = snap["device_traces"][0]
    first_marker = next(i for i, e in enumerate(events) if e["action"] == "alloc" and e["size"] == MARKER)
    snap["device_traces"][0] = events[first_marker + 1:]   # the ring buffer overwrote the first marker
    with pytest.raises(MemplanTorchError, match="found 1 iteration marker.*lost the start of the iteration"):
        snapshot.import_snapshot(snap, marker_size=MARKER)
    short = make_snapshot(iterations=1, marker=False)
    with pytest.raises(MemplanTorchError, match="no repeating iteration"):
        snapshot.import_snapshot(short)


@pytest.mark.parametrize("damage,message", [
    (lambda s: s.pop("segments"), "snapshot: missing field 'segments'"),
    (lambda s: s["device_traces"][0][5].pop("size"), r"device_traces\[0\]\[5\]: missing field 'size'"),
    (lambda s: s["segments"][0].pop("total_size"), r"segments\[0\]: missing field 'total_size'"),
    (lambda s: s["segments"][1]["blocks"][0].pop("state"), r"segments\[1\].blocks\[0\]: missing field 'state'"),
    (lambda s: s.update(device_traces=[]), "'device_traces' is empty"),
])
def test_missing_fields_are_named(damage, message):
    snap = copy.deepcopy(make_snapshot())
    damage(snap)
    with pytest.raises(MemplanTorchError, match=message):
        snapshot.import_snapshot(snap, marker_size=MARKER)


def test_other_actions_are_skipped_and_counted():
    """Newer torch versions add actions (user_defined annotations carry no address): the pattern and the
    reserved memory are those of the same trace without them."""
    plain = make_snapshot()
    rows, meta = snapshot.import_snapshot(plain, marker_size=MARKER)
    snap = copy.deepcopy(plain)
    events = snap["device_traces"][0]
    events.insert(20, {"action": "user_defined", "frames": [], "time_us": 1})
    events.insert(3, {"action": "snapshot", "addr": 0, "size": 0, "stream": 0})
    events.insert(40, {"action": "mystery", "stream": 0})
    rows2, meta2 = snapshot.import_snapshot(snap, marker_size=MARKER)
    assert rows2 == rows
    assert meta2["skipped_events"] == {"user_defined": 1, "snapshot": 1, "mystery": 1}
    assert meta2["events"] == meta["events"] + 3
    for key in ("period", "peak_load", "reserved_peak_bytes", "allocated_peak_bytes", "persistent_bytes"):
        assert meta2[key] == meta[key], key


def test_persistent_bytes_count_requests_not_unsplit_blocks():
    """A tensor allocated before the trace (a parameter) and alive throughout: persistent. Its block may be
    larger than its request (the caching allocator leaves a large block unsplit when 1 MiB or less would
    remain); persistent_bytes counts the request rounded to 512, the unit of the rows."""
    plain = make_snapshot()
    _, meta = snapshot.import_snapshot(plain, marker_size=MARKER)
    snap = copy.deepcopy(plain)
    request = 3 * MB + 100
    snap["segments"].append({"device": 0, "address": 0x7E0000000000, "total_size": 4 * MB, "stream": 0,
                             "segment_type": "large", "blocks": [
                                 {"address": 0x7E0000000000, "size": 4 * MB, "requested_size": request,
                                  "state": "active_allocated", "frames": []}]})
    _, meta2 = snapshot.import_snapshot(snap, marker_size=MARKER)
    rounded = 3 * MB + 512
    assert meta2["persistent_bytes"] == meta["persistent_bytes"] + rounded
    assert meta2["allocated_peak_bytes"] == meta["allocated_peak_bytes"] + rounded
    assert meta2["reserved_peak_bytes"] == meta["reserved_peak_bytes"] + 4 * MB
    del snap["segments"][-1]["blocks"][0]["requested_size"]  # older snapshots: the block's size
    _, meta3 = snapshot.import_snapshot(snap, marker_size=MARKER)
    assert meta3["persistent_bytes"] == meta["persistent_bytes"] + 4 * MB


def test_annotate_is_a_known_action():
    assert "annotate" in snapshot.OTHERS and "annotate" not in snapshot.USED


def test_cli_writes_csv_and_meta_or_nothing(tmp_path):
    pkl = tmp_path / "snap.pickle"
    pkl.write_bytes(pickle.dumps(make_snapshot()))
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python"))
    out = tmp_path / "it.csv"
    cmd = [sys.executable, "-m", "memplan_torch", "import-snapshot", str(pkl), "-o", str(out)]
    r = subprocess.run(cmd + ["--marker-size", str(MARKER)], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert out.read_text().startswith("id,lower,upper,size\n")
    meta = json.loads((tmp_path / "it.meta.json").read_text())
    assert meta["period"] == 16 and "PyTorch reserved" in r.stderr and "warning" not in r.stderr
    odd = make_snapshot()
    odd["device_traces"][0].insert(7, {"action": "mystery"})
    pkl.write_bytes(pickle.dumps(odd))
    r = subprocess.run(cmd + ["--marker-size", str(MARKER)], env=env, capture_output=True, text=True)
    assert r.returncode == 0 and "skipped 1 event(s) of unknown action 'mystery'" in r.stderr, r.stderr
    bad = tmp_path / "bad.csv"
    r = subprocess.run(cmd[:-1] + [str(bad), "--marker-size", "7"], env=env, capture_output=True, text=True)
    assert r.returncode == 2 and "iteration marker" in r.stderr
    assert not bad.exists() and not (tmp_path / "bad.meta.json").exists()


class _RunsCode:
    """Unpickling this would run a shell command: what a snapshot file from elsewhere must not do."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_a_pickle_that_names_code_is_refused_not_run(tmp_path):
    marker = tmp_path / "ran"
    pkl = tmp_path / "evil.pickle"
    snap = make_snapshot()
    snap["device_traces"][0][0]["frames"] = [_RunsCode(marker)]
    pkl.write_bytes(pickle.dumps(snap))
    with pytest.raises(MemplanTorchError, match=r"evil.pickle: not a memory snapshot pickle: UnpicklingError: "
                                                r"it refers to (posix|os)\.system, and a memory snapshot holds plain"):
        snapshot.load(str(pkl))
    r = subprocess.run([sys.executable, "-m", "memplan_torch", "import-snapshot", str(pkl), "-o",
                        str(tmp_path / "it.csv")], env=dict(os.environ, PYTHONPATH=os.path.join(REPO, "python")),
                       capture_output=True, text=True)
    assert r.returncode == 2 and "plain data only" in r.stderr, r.stderr
    assert not marker.exists() and not (tmp_path / "it.csv").exists()
    # a recording of this process's own (the GPU driver's) may be loaded as it is
    ordered = tmp_path / "ordered.pickle"
    ordered.write_bytes(pickle.dumps(collections.OrderedDict(make_snapshot())))
    with pytest.raises(MemplanTorchError, match="refers to collections.OrderedDict"):
        snapshot.load(str(ordered))
    assert snapshot.load(str(ordered), plain_only=False)["device_traces"] == make_snapshot()["device_traces"]


def test_a_gzipped_snapshot_loads_as_the_pickle_it_holds(tmp_path):
    snap = make_snapshot()
    plain, packed = tmp_path / "s.pickle", tmp_path / "s.pickle.gz"
    plain.write_bytes(pickle.dumps(snap))
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    assert snapshot.load(str(packed)) == snapshot.load(str(plain)) == snap
    cut = tmp_path / "cut.pickle.gz"
    cut.write_bytes(packed.read_bytes()[:len(packed.read_bytes()) // 2])
    with pytest.raises(MemplanTorchError, match="cut.pickle.gz: not a memory snapshot pickle: EOFError"):
        snapshot.load(str(cut))


REAL = sorted(glob.glob(os.path.join(DATA, "cuda", "*.pickle.gz")))


def test_there_are_real_snapshots():
    assert len(REAL) >= 14


@pytest.mark.parametrize("path", REAL, ids=os.path.basename)
def test_real_snapshot_imports_to_its_committed_trace(path):
    # snapshots that torch 2.11's caching allocator recorded on an H200 (scripts/gpu-run, 2026-12-04): plain
    # data only, every event an action the import knows, and the trace committed beside each is its import
    stem = path[:-len(".pickle.gz")]
    rows, meta = snapshot.import_snapshot(snapshot.load(path), marker_size=MARKER)
    with open(stem + ".csv") as f:
        assert pattern.to_csv(rows) == f.read()
    committed = json.load(open(stem + ".meta.json"))
    assert meta == committed and meta["skipped_events"] == {} and meta["left_out_buffers"] == 0
    # what the caching allocator reserved holds at least the iteration's peak and what outlives it
    assert meta["reserved_peak_bytes"] >= meta["peak_load"] + meta["persistent_bytes"]


def test_replay_starts_from_the_segments_and_blocks_the_trace_did_not_see_made():
    snap = make_snapshot()
    whole = snapshot.replay_of(snap)
    events = snap["device_traces"][0]
    assert whole["format"] == "caching-replay/v1" and whole["free_action"] == "free_completed"
    assert whole["segments"] == []  # every segment was allocated inside the trace
    assert len(whole["events"]) == sum(e["action"] != "free_requested" for e in events)
    # The ring buffer lost its first 20 events: the segments made there exist at the start, and the blocks
    # allocated there and freed later are live in them.
    cut = copy.deepcopy(snap)
    lost = cut["device_traces"][0][:20]
    cut["device_traces"][0] = cut["device_traces"][0][20:]
    replay = snapshot.replay_of(cut)
    assert {s["address"] for s in replay["segments"]} == {e["addr"] for e in lost if e["action"] == "segment_alloc"}
    allocated = set()  # what the lost events left allocated
    for e in lost:
        if e["action"] == "alloc":
            allocated.add(e["addr"])
        elif e["action"] == "free_completed":
            allocated.discard(e["addr"])
    live = {a for s in replay["segments"] for a, _ in s["live"]}
    assert live and live == allocated
    for s in replay["segments"]:
        assert all(s["address"] <= a and a + n <= s["address"] + s["size"] for a, n in s["live"])


def test_replay_refuses_expandable_segments():
    snap = make_snapshot()
    snap["device_traces"][0].insert(0, {"action": "segment_map", "addr": 1 << 40, "size": 2 * MB})
    with pytest.raises(MemplanTorchError, match="expandable segments"):
        snapshot.replay_of(snap)


@pytest.mark.parametrize("path", REAL, ids=os.path.basename)
def test_memplans_model_places_every_recorded_block_where_pytorch_did(path, tmp_path):
    # The whole recording (a warm-up before it, then three iterations) replayed from the allocator's state at
    # its start through memplan's model of the caching allocator: every allocation at the address torch
    # 2.11 gave it, the same segments, the same reserved peak (docs/caching_allocator.md, "Checking the model").
    memplan = memplan_binary()
    if memplan is None:
        pytest.skip("memplan is not built")
    replay = tmp_path / "r.json"
    r = subprocess.run([sys.executable, "-m", "memplan_torch", "import-snapshot", path, "--marker-size", str(MARKER),
                        "-o", str(tmp_path / "t.csv"), "--replay", str(replay)], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": os.path.join(REPO, "python")})
    assert r.returncode == 0, r.stderr
    out = subprocess.run([memplan, "simulate", "--replay", str(replay), "--json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["allocations"] > 500 and result["at_real_address"] == result["allocations"]
    assert result["first_mismatch"] is None and result["unknown_frees"] == 0
    assert result["model_peak_reserved"] == result["real_peak_reserved"]
    assert result["model_segments_allocated"] == result["real_segments_allocated"]
