"""GPU session driver (scripts/gpu-run): on torch 2.x with CUDA, record real caching-allocator snapshots of
training iterations with and without checkpointing, import them, run both planners, and serve the same
training iterations from a planned arena through CUDAPluggableAllocator (arena/arena.cc).

Every recording and every served run is a process of its own: the caching allocator's cache of one model
must not inflate the next one's reserved memory, and the pluggable allocator must be installed before the
process's first CUDA allocation.

The device machine returns at most 8 files, so the driver works in a scratch folder and leaves in --out only
summary.json, log.json and results.tar.gz (the traces, plans, graphs and schedules), each rewritten
atomically after every model, so that a run cut short still returns what it finished. A --deadline stops it
starting new steps.

Run on an H200 with torch 2.11 on 2026-12-04 (bench/torch/results/2026-12-04-h200-gpu-run.md): every
step worked as written. tests/python/test_gpu_driver.py runs the driver on the CPU with stand-ins for the
two CUDA steps (record, serve) and the real importer and planners.
"""

import argparse
import ctypes
import gzip
import io
import json
import math
import os
import subprocess
import sys
import tarfile
import tempfile
import time

from . import atomic
from .errors import MemplanTorchError

MARKER = 4093  # requested bytes of the allocation that marks each iteration start (odd: no tensor has it)

# name, spec, batch, blocks to checkpoint: the models of data/torch at the training batch sizes of its graphs
# (scripts/export-real-data --train-batch); the order is the priority under --deadline.
MODELS = [
    ("resnet18", "torchvision:resnet18", 64, "layer1,layer2,layer3,layer4"),
    ("gpt_small", "memplan_torch.models:gpt_small", 64, "blocks.*"),
    ("resnet50", "torchvision:resnet50", 32, "layer1,layer2,layer3,layer4"),
    ("vit_b_16", "torchvision:vit_b_16", 32, "encoder.layers.*"),
    ("mobilenet_v3_large", "torchvision:mobilenet_v3_large", 64, "features.*"),
    ("convnext_tiny", "torchvision:convnext_tiny", 32, "features.1,features.3,features.5,features.7"),
    ("densenet121", "torchvision:densenet121", 32, "features.denseblock*"),
]
ENTRIES = 1_000_000  # the recording's ring buffer: allocator events of three iterations of the largest model
RESULT_FILES = ("summary.json", "log.json", "results.tar.gz")  # all that --out holds
RESULTS_LIMIT = 15 << 20  # the device returns files of at most 16 MiB


def _setup(spec, batch, checkpoint, seed=0):
    """The model on the GPU and one training iteration of it (SGD with momentum), deterministic for `seed`."""
    import torch
    from . import models, trace

    torch.manual_seed(seed)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False
    model = models.load_model(spec).cuda().train()
    names = trace.select_modules(model, checkpoint.split(",")) if checkpoint else []
    if names:
        trace.apply_checkpoint(model, names)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    def iteration(before=None):
        """One training step; `before` runs first (the arena's begin_iteration), then the marker."""
        if before:
            before()
        marker = torch.empty(MARKER, dtype=torch.uint8, device="cuda")
        del marker
        opt.zero_grad(set_to_none=True)
        loss = model(models.example_input(model, batch).cuda()).float().mean()
        loss.backward()
        opt.step()
        return float(loss)

    return iteration


def record(spec, batch, checkpoint, path, iterations=3):
    """Warm up once, then record `iterations` marked iterations into a snapshot pickle (no stack frames:
    the import needs addresses and sizes only, and frames make the recording slow and the pickle large)."""
    import torch

    iteration = _setup(spec, batch, checkpoint)
    iteration()
    torch.cuda.synchronize()
    try:
        torch.cuda.memory._record_memory_history(enabled="all", context=None, stacks="python", max_entries=ENTRIES)
        stop = {"enabled": None}
    except TypeError:  # torch 2.0 takes only the boolean form (2.1+ still take it as "legacy")
        torch.cuda.memory._record_memory_history(True, record_context=False, trace_alloc_max_entries=ENTRIES,
                                                 trace_alloc_record_context=False)
        stop = {"enabled": False}
    losses = [iteration() for _ in range(iterations)]
    torch.cuda.synchronize()
    torch.cuda.memory._dump_snapshot(path)
    torch.cuda.memory._record_memory_history(**stop)
    return {"losses": losses, "max_reserved_bytes": torch.cuda.max_memory_reserved()}


STATS = ("served", "fallback", "desyncs", "arena_bytes", "planned_rows", "overlaps", "fallback_live_bytes",
         "fallback_peak_bytes")  # memplan_arena_stats's order


def serve(spec, batch, checkpoint, so_path, plan_csv, iterations=3):
    """Make the planned arena the CUDA allocator, warm up outside the plan, then run `iterations` planned
    iterations. Returns the losses, the arena's counts over the planned iterations, and the memory the
    steady state held: the arena plus the peak of cudaMalloc'ed bytes (parameters, optimizer state, anything
    unplanned) from the second planned iteration on. Until the first one's zero_grad, the warm-up's gradients
    sit in cudaMalloc'ed blocks while the arena holds their planned space: a peak over the first would count
    them twice (it did in the run of 2026-12-04: fallback_peak_bytes there is persistent + gradients)."""
    import torch

    os.environ["MEMPLAN_ARENA_PLAN"] = plan_csv
    alloc = torch.cuda.memory.CUDAPluggableAllocator(so_path, "memplan_malloc", "memplan_free")
    torch.cuda.memory.change_current_allocator(alloc)
    lib = ctypes.CDLL(so_path)  # the same handle the allocator dlopen'ed: same arena state

    def stats():
        out = (ctypes.c_longlong * len(STATS))()
        lib.memplan_arena_stats(out)
        return dict(zip(STATS, out))

    iteration = _setup(spec, batch, checkpoint)
    iteration()  # warm-up outside the plan (optimizer state, library workspaces)
    torch.cuda.synchronize()
    before = stats()
    losses = [iteration(before=lib.memplan_arena_begin_iteration)]
    torch.cuda.synchronize()
    lib.memplan_arena_reset_peak()
    losses += [iteration(before=lib.memplan_arena_begin_iteration) for _ in range(iterations - 1)]
    torch.cuda.synchronize()
    after = stats()
    counts = {k: after[k] - before[k] for k in ("served", "fallback", "desyncs", "overlaps")}
    return {"losses": losses, **counts, "arena_bytes": after["arena_bytes"], "planned_rows": after["planned_rows"],
            "fallback_peak_bytes": after["fallback_peak_bytes"],
            "held_peak_bytes": after["arena_bytes"] + after["fallback_peak_bytes"]}


def scheduled(spec, batch, graph, schedule_path, iterations=3):
    """Train the model with the schedule (training.ScheduledStep, on the GPU where there is one) beside a copy
    trained by autograd and one trained by the graph in its own order (no recomputation), from the same
    start, on the same batches (training.compare_with_autograd). Returns the runs' losses and, per run, the
    most memory one step added over what was allocated before it: CUDA's peak allocated bytes, or the trace
    recorder's live-tensor peak on the CPU."""
    import copy

    import torch
    from . import models
    from .losses import logits_shape, random_target
    from .trace import AllocationRecorder
    from .training import ScheduledStep, compare_with_autograd

    device = "cuda" if torch.cuda.is_available() else "cpu"

    def measure(call):
        if device == "cuda":
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            start = torch.cuda.memory_allocated()
            out = call()
            return out, torch.cuda.max_memory_allocated() - start
        with AllocationRecorder() as rec:
            out = call()
        return out, rec.peak_live_bytes

    torch.manual_seed(0)
    model = models.load_model(spec).to(device).train()
    x = models.example_input(model, batch).to(device)
    logits = logits_shape(model, (x,))
    reference_model = copy.deepcopy(model)
    step = ScheduledStep(model, (x,), graph, schedule_path)
    with open(graph) as f:
        order = json.load(f)["order"]
    reference = (reference_model, ScheduledStep(reference_model, (x,), graph, order))
    batches = [(models.example_input(model, batch).to(device), random_target(logits, device))
               for _ in range(iterations)]
    return {"device": device, **compare_with_autograd(model, step, batches, measure, reference=reference)}


def native_backend(env, log):
    """Drops a backend:cudaMallocAsync setting from env's PYTORCH_CUDA_ALLOC_CONF (noted in `log`): recording
    a snapshot needs the caching allocator (the native backend), and so do the baselines this run compares."""
    conf = env.get("PYTORCH_CUDA_ALLOC_CONF", "")
    options = [o for o in conf.split(",") if o.strip()]
    kept = [o for o in options if o.replace(" ", "") != "backend:cudaMallocAsync"]
    if kept == options:
        return
    log.append({"note": f"PYTORCH_CUDA_ALLOC_CONF '{conf}': backend:cudaMallocAsync dropped for this run (snapshots "
                "need the native caching allocator)"})
    if kept:
        env["PYTORCH_CUDA_ALLOC_CONF"] = ",".join(kept)
    else:
        del env["PYTORCH_CUDA_ALLOC_CONF"]


def _decoded(output):
    return output.decode(errors="replace") if output else ""


def _run(cmd, log, timeout=600):
    """Run `cmd`, log its command line, status, time and output tails; a CompletedProcess either way."""
    cmd = [str(c) for c in cmd]
    t0 = time.time()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:  # its output is bytes, or None, whatever text= said
        r = subprocess.CompletedProcess(cmd, 124, _decoded(e.stdout),
                                        _decoded(e.stderr) + f"\ntimed out after {timeout} s")
    log.append({"cmd": cmd, "rc": r.returncode, "seconds": round(time.time() - t0, 2),
                "stdout": r.stdout[-4000:], "stderr": r.stderr[-4000:]})
    return r


def _child(kind, args, arena, log, timeout=300):
    """Run record or serve in a fresh process (this module with --child); its JSON result, or None.

    The child prints its result as its last step, so a result on the last line stands even when the process
    then exits with an error (a crash while CUDA and the pluggable allocator are torn down at interpreter
    exit, say): it is kept, with that status as "exit_status"."""
    cmd = [sys.executable, "-m", "memplan_torch.gpu", "--out", "-", "--arena", arena or "-", "--child", kind, *args]
    r = _run(cmd, log, timeout)
    lines = r.stdout.strip().splitlines()
    try:
        result = json.loads(lines[-1]) if lines else None
    except ValueError:
        return None
    if not isinstance(result, dict):
        return None
    if r.returncode != 0:
        result["exit_status"] = r.returncode
    return result


def _json_of(r):
    """The JSON object a memplan run printed with --json (status 0 or 1: written, target met or not)."""
    if r.returncode in (0, 1) and r.stdout.strip():
        return json.loads(r.stdout)
    return None


def _close(a, b):
    """Whether two loss lists agree (the served run must compute what the caching allocator's run did)."""
    return a is not None and b is not None and len(a) == len(b) and all(
        math.isclose(x, y, rel_tol=1e-5, abs_tol=1e-6) for x, y in zip(a, b))


def run_variant(tag, spec, batch, ck, work, memplan, arena, log, child):
    """Record, import, plan and serve one model with or without checkpointing; the summary entry."""
    from . import pattern, snapshot

    entry = {"name": tag, "spec": spec, "batch": batch, "checkpoint": ck or None}
    pk = os.path.join(work, tag + ".pickle")
    rec = child("record", [spec, batch, ck or "-", pk])
    if rec is None:
        entry["error"] = "recording failed (log.json)"
        return entry
    entry["losses_caching"] = rec["losses"]
    try:  # the importer refuses anything but plain data (snapshot.load): does this torch's snapshot pass?
        snap = snapshot.load(pk)
        entry["snapshot_plain_data"] = True
    except MemplanTorchError as e:  # say so, and load our own recording anyway
        entry["snapshot_plain_data"] = str(e)
        snap = snapshot.load(pk, plain_only=False)
    rows, meta = snapshot.import_snapshot(snap, marker_size=MARKER)
    csv = os.path.join(work, tag + ".csv")
    pattern.write(csv, rows, meta)
    for k in ("period", "buffers", "peak_load", "reserved_peak_bytes", "allocated_peak_bytes", "persistent_bytes",
              "left_out_buffers", "left_out_bytes", "skipped_events"):
        entry[k] = meta[k]
    if not memplan:
        return entry
    plan = os.path.join(work, tag + ".plan.csv")
    # the period, and what the caching allocator reserved for the iteration, come from the sidecar beside csv
    r = _run([memplan, "alloc", csv, "-o", plan, "--json", "--validate", "-q", "--time-limit", 5], log)
    entry["alloc"] = _json_of(r)
    r = _run([memplan, "alloc", csv, "--method", "all", "-q"], log)
    entry["alloc_table"] = r.stdout if r.returncode in (0, 1) else None
    if entry["alloc"]:
        # what a planned arena needs (the arena + persistent bytes) against what the caching allocator reserved
        recorded = entry["alloc"]["recorded"]
        entry["planned_bytes"] = recorded["planned_bytes"]
        entry["planned_over_reserved"] = recorded["planned_over_reserved"] if meta["reserved_peak_bytes"] else None
    if arena and os.path.exists(plan):
        served = child("serve", [spec, batch, ck or "-", plan])
        entry["served"] = served
        if served:
            entry["losses_equal"] = _close(served["losses"], rec["losses"])
            if meta["reserved_peak_bytes"]:
                entry["held_over_reserved"] = served["held_peak_bytes"] / meta["reserved_peak_bytes"]
    return entry


def remat_model(name, spec, batch, work, memplan, log, child=None, device="cuda"):
    """Export the model's joint graph on `device` (as data/torch's training-batch graphs: batch norm
    recomputable; on the device the step runs on, whose kernels torch 2.x traces: its attention differs by
    device), plan recomputation at 50 % and 25 % of its peak, and (given `child`) train with the 50 % schedule
    beside autograd (scheduled)."""
    graph = os.path.join(work, f"{name}_bs{batch}.graph.json")
    r = _run([sys.executable, "-m", "memplan_torch", "export-graph", spec, "--batch", batch, "--recompute-batch-norm",
              "--device", device, "--name", f"{name}_bs{batch}", "-o", graph], log)
    entry = {"name": f"{name}_bs{batch}", "export_rc": r.returncode}
    if r.returncode != 0 or not memplan:
        return entry
    for budget in ("50", "25"):
        sched = os.path.join(work, f"{name}_bs{batch}.remat{budget}.json")
        r = _run([memplan, "remat", graph, "--budget", budget + "%", "--time-limit", 10, "--views-alias", "-o",
                  sched, "--json", "--validate", "-q"], log)
        entry["remat_" + budget] = _json_of(r) or {"rc": r.returncode, "stderr": r.stderr[-500:]}
    sched = os.path.join(work, f"{name}_bs{batch}.remat50.json")
    if child and os.path.exists(sched):
        trained = child("scheduled", [spec, batch, graph, sched])
        entry["scheduled"] = trained
        if trained:
            entry["scheduled_losses_close"] = trained["losses_close"]
            entry["scheduled_losses_close_to_reference"] = trained["losses_close_to_reference"]
            if trained["step_peak_autograd"]:
                entry["scheduled_over_autograd"] = trained["step_peak_scheduled"] / trained["step_peak_autograd"]
    return entry


def _archive(work, names):
    """A gzip'ed tar of the files `names` of `work`, in memory (level 6: level 9, tarfile's default, is several
    times slower on the pickles for a few percent)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", compresslevel=6) as tar:
        for name in names:
            tar.add(os.path.join(work, name), arcname=name)
    return buf


def pack(out, work, summary, log, pickles=False):
    """Write summary.json, log.json and results.tar.gz (the files of `work`, not its folders) into `out`,
    atomically. With `pickles`, also the snapshot pickles that fit under the device's file-size limit, each
    compressed once to size it: the driver packs after every step, and an archive rebuilt with every pickle
    at every step would cost minutes of the run's deadline; without, they are listed as left out."""
    files = sorted(n for n in os.listdir(work)
                   if not n.startswith(".tmp-") and os.path.isfile(os.path.join(work, n)))
    kept = [n for n in files if not n.endswith(".pickle")]
    archive = _archive(work, kept)
    left_out, added = [], []
    room = RESULTS_LIMIT - archive.tell()
    for name in (n for n in files if n.endswith(".pickle")):
        size = None
        if pickles:
            with open(os.path.join(work, name), "rb") as f:
                size = len(gzip.compress(f.read(), compresslevel=6))
        if size is not None and size + 4096 <= room:  # a tar header and padding per file
            added.append(name)
            room -= size + 4096
        else:
            left_out.append(name)
    if added:
        archive = _archive(work, kept + added)
        while archive.tell() > RESULTS_LIMIT and added:  # the sum of the parts misjudged the whole
            left_out.insert(0, added.pop())
            archive = _archive(work, kept + added)
    os.makedirs(out, exist_ok=True)
    atomic.write_json(os.path.join(out, "summary.json"), {"models": summary, "pickles_left_out": sorted(left_out)})
    atomic.write_json(os.path.join(out, "log.json"), log)
    atomic.write_bytes(os.path.join(out, "results.tar.gz"), archive.getvalue())


def _mib(n):
    return f"{n / 2**20:.1f}" if isinstance(n, (int, float)) else "-"


def _ratio(x):
    return f"{x:.3f}" if x else "-"


def table(summary):
    """The summary as text: one row per recorded iteration, then the recomputation plans."""
    lines = ["| trace | buffers | peak load MiB | PyTorch reserved MiB | planned arena + persistent MiB | "
             "planned / reserved | served (fallback, desyncs, overlaps) | held when served MiB | held / reserved | "
             "losses equal |", "|---|---|---|---|---|---|---|---|---|---|"]
    for e in summary:
        if "period" in e or "error" in e:
            s = e.get("served") or {}
            lines.append(f"| {e['name']} | {e.get('buffers', '-')} | {_mib(e.get('peak_load'))} | "
                         f"{_mib(e.get('reserved_peak_bytes'))} | {_mib(e.get('planned_bytes'))} | "
                         f"{_ratio(e.get('planned_over_reserved'))} | "
                         f"{s.get('served', '-')} ({s.get('fallback', '-')}, {s.get('desyncs', '-')}, "
                         f"{s.get('overlaps', '-')}) | {_mib(s.get('held_peak_bytes'))} | "
                         f"{_ratio(e.get('held_over_reserved'))} | {e.get('losses_equal', e.get('error', '-'))} |")
    for e in summary:
        for budget in ("50", "25"):
            r = e.get("remat_" + budget)
            if isinstance(r, dict) and "memory_percent" in r:
                lines.append(f"remat {e['name']} {budget} %: {r['memory_percent']:.1f} % of "
                             f"{_mib(r['reference_peak'])} MiB, +{r['cost_increase_percent']:.1f} % cost, "
                             f"{r['seconds']:.1f} s")
        t = e.get("scheduled")
        if isinstance(t, dict):
            lines.append(f"trained with the 50 % schedule on {t['device']}: a step adds at most "
                         f"{_mib(t['step_peak_scheduled'])} MiB, with autograd {_mib(t['step_peak_autograd'])} MiB "
                         f"({_ratio(e.get('scheduled_over_autograd'))}); losses close to autograd's: "
                         f"{e.get('scheduled_losses_close')} (at most {t['max_relative_difference']:.1e} apart), "
                         f"to the graph's own order's: {e.get('scheduled_losses_close_to_reference')} "
                         f"({t['max_relative_difference_to_reference']:.1e})")
    return "\n".join(lines)


def main(argv=None, child=None, models=None):
    """Orchestrate everything; `child` and `models` replace the CUDA steps and the model list in tests."""
    p = argparse.ArgumentParser(prog="memplan_torch.gpu")
    p.add_argument("--out", required=True, help="folder for summary.json, log.json, results.tar.gz")
    p.add_argument("--work", help="scratch folder (default: a new one under the system's temporary folder)")
    p.add_argument("--memplan", help="memplan executable (planners are skipped when absent)")
    p.add_argument("--arena", required=True, help="compiled arena shared library ('-': do not serve)")
    p.add_argument("--models", help="comma-separated names (default: all, in priority order)")
    p.add_argument("--deadline", type=float, default=420, help="start no new step after this many seconds")
    p.add_argument("--device", default="cuda", help="where the graphs are traced (default cuda; cpu in tests)")
    p.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    arena = None if a.arena == "-" else a.arena
    if a.child:
        kind, spec, batch, ck, path = a.child
        ck = "" if ck == "-" else ck
        if kind == "scheduled":  # ck is the graph here
            result = scheduled(spec, int(batch), ck, path)
        elif kind == "record":
            result = record(spec, int(batch), ck, path)
        else:
            result = serve(spec, int(batch), ck, arena, path)
        print(json.dumps(result))
        return 0
    models = models or MODELS
    wanted = a.models.split(",") if a.models else [m[0] for m in models]
    unknown = set(wanted) - {m[0] for m in models}
    if unknown:
        p.error(f"unknown model(s) {', '.join(sorted(unknown))}; known: {', '.join(m[0] for m in models)}")
    work = a.work or tempfile.mkdtemp(prefix="memplan-gpu-")
    os.makedirs(work, exist_ok=True)
    log, summary, t0 = [], [], time.time()
    native_backend(os.environ, log)
    run_child = child or (lambda kind, args: _child(kind, args, arena, log))
    for name, spec, batch, blocks in models:
        if name not in wanted:
            continue
        tag = f"{name}_bs{batch}"
        steps = [(tag, run_variant, (tag, spec, batch, "", work, a.memplan, arena, log, run_child)),
                 (tag + "_ckpt", run_variant, (tag + "_ckpt", spec, batch, blocks, work, a.memplan, arena, log, run_child)),
                 (tag + " graph", remat_model, (name, spec, batch, work, a.memplan, log, run_child, a.device))]
        for step_tag, step, args in steps:
            if time.time() - t0 > a.deadline:
                summary.append({"name": step_tag, "error": f"not started: past the {a.deadline:.0f}-s deadline"})
                continue
            try:
                summary.append(step(*args))
            except Exception as e:  # keep going: one model's failure must not lose the others' results
                summary.append({"name": step_tag, "error": f"{type(e).__name__}: {e}"})
            pack(a.out, work, summary, log)
    pack(a.out, work, summary, log, pickles=True)
    print(table(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
