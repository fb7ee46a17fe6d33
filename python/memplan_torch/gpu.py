"""GPU session driver (scripts/gpu-run): on torch 2.x with CUDA, record real caching-allocator snapshots of
training iterations with and without checkpointing, import them, run both planners, and serve training
steps from a planned arena through CUDAPluggableAllocator (arena/arena.cc).

UNTESTED ON A GPU: written in a session without one. The CPU-testable parts (snapshot import, planning
inputs) are tested elsewhere; the iteration and marker logic is shared with the CPU trace where possible.
"""

import argparse
import ctypes
import json
import os
import subprocess
import sys
import time

MARKER = 4093  # requested bytes of the allocation that marks each iteration start (odd: no tensor has it)

MODELS = [  # name, spec, batch, blocks to checkpoint
    ("resnet18", "torchvision:resnet18", 64, "layer1,layer2,layer3,layer4"),
    ("resnet50", "torchvision:resnet50", 32, "layer1,layer2,layer3,layer4"),
    ("vit_b_16", "torchvision:vit_b_16", 16, "encoder.layers.*"),
    ("gpt_small", "memplan_torch.models:gpt_small", 32, "blocks.*"),
]


def _setup(spec, batch, checkpoint, seed=0):
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
    def make_input():
        x = models.example_input(model, batch)
        return x.cuda()

    def iteration(before=None):
        """One training step; `before` runs first (the arena's begin_iteration), then the marker."""
        if before:
            before()
        marker = torch.empty(MARKER, dtype=torch.uint8, device="cuda")
        del marker
        opt.zero_grad(set_to_none=True)
        loss = model(make_input()).float().mean()
        loss.backward()
        opt.step()
        return float(loss)

    return iteration


def record(spec, batch, checkpoint, path, iterations=3):
    """Warm up once, then record `iterations` marked iterations into a snapshot pickle."""
    import torch

    iteration = _setup(spec, batch, checkpoint)
    iteration()
    torch.cuda.synchronize()
    torch.cuda.memory._record_memory_history(max_entries=2_000_000)
    losses = [iteration() for _ in range(iterations)]
    torch.cuda.synchronize()
    torch.cuda.memory._dump_snapshot(path)
    torch.cuda.memory._record_memory_history(enabled=None)
    return losses


def serve(spec, batch, checkpoint, so_path, plan_csv, iterations=3):
    """In a fresh process: make the planned arena the CUDA allocator and run iterations from it."""
    import torch

    os.environ["MEMPLAN_ARENA_PLAN"] = plan_csv
    alloc = torch.cuda.memory.CUDAPluggableAllocator(so_path, "memplan_malloc", "memplan_free")
    torch.cuda.memory.change_current_allocator(alloc)
    lib = ctypes.CDLL(so_path)  # the same handle the allocator dlopen'ed: same arena state
    iteration = _setup(spec, batch, checkpoint)
    iteration()  # warm-up outside the plan (optimizer state, library workspaces)
    losses = [iteration(before=lib.memplan_arena_begin_iteration) for _ in range(iterations)]
    torch.cuda.synchronize()
    stats = (ctypes.c_longlong * 5)()
    lib.memplan_arena_stats(stats)
    return {"losses": losses, "served": stats[0], "fallback": stats[1], "desyncs": stats[2],
            "arena_bytes": stats[3], "planned_rows": stats[4]}


def _run(cmd, log):
    t0 = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True)
    log.append({"cmd": cmd, "rc": r.returncode, "seconds": round(time.time() - t0, 2),
                "stdout": r.stdout[-4000:], "stderr": r.stderr[-4000:]})
    return r


def main(argv=None):
    """Orchestrate everything into OUT; every step's command, status and output go to OUT/log.json."""
    p = argparse.ArgumentParser(prog="memplan_torch.gpu")
    p.add_argument("--out", required=True)
    p.add_argument("--memplan", help="memplan executable (planners are skipped when absent)")
    p.add_argument("--arena", required=True, help="compiled arena shared library")
    p.add_argument("--models", default=",".join(m[0] for m in MODELS))
    p.add_argument("--serve-child", nargs=4, metavar=("SPEC", "BATCH", "CHECKPOINT", "PLAN"), help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.serve_child:
        spec, batch, ck, plan = a.serve_child
        print(json.dumps(serve(spec, int(batch), ck if ck != "-" else "", a.arena, plan)))
        return 0
    from . import pattern, snapshot

    os.makedirs(a.out, exist_ok=True)
    log, summary = [], []
    py = [sys.executable, "-m", "memplan_torch"]
    for name, spec, batch, blocks in MODELS:
        if name not in a.models.split(","):
            continue
        for ck in ("", blocks):
            tag = f"{name}_bs{batch}{'_ckpt' if ck else ''}"
            entry = {"name": tag}
            try:
                pk = os.path.join(a.out, tag + ".pickle")
                entry["losses_caching"] = record(spec, batch, ck, pk)
                rows, meta = snapshot.import_snapshot(snapshot.load(pk), marker_size=MARKER)
                csv = os.path.join(a.out, tag + ".csv")
                pattern.write(csv, rows, meta)
                entry.update({k: meta[k] for k in ("period", "buffers", "peak_load", "reserved_peak_bytes",
                                                   "persistent_bytes")})
                if a.memplan:
                    plan = os.path.join(a.out, tag + ".plan.csv")
                    r = _run([a.memplan, "alloc", csv, "--period", str(meta["period"]), "-o", plan, "--json",
                              "--validate", "-q"], log)
                    entry["alloc"] = json.loads(r.stdout) if r.returncode in (0, 1) and r.stdout.strip() else None
                    if not ck and os.path.exists(plan):
                        # a fresh process: the pluggable allocator must be set before any CUDA allocation
                        r = _run([sys.executable, "-m", "memplan_torch.gpu", "--out", a.out, "--arena", a.arena,
                                  "--serve-child", spec, str(batch), "-", plan], log)
                        entry["served"] = json.loads(r.stdout.strip().splitlines()[-1]) if r.returncode == 0 else None
                if not ck:
                    graph = os.path.join(a.out, f"{name}_bs{batch}.graph.json")
                    _run(py + ["export-graph", spec, "--batch", str(batch), "-o", graph], log)
                    if a.memplan and os.path.exists(graph):
                        for budget in ("50%", "25%"):
                            sched = os.path.join(a.out, f"{name}_bs{batch}.remat{budget[:-1]}.json")
                            r = _run([a.memplan, "remat", graph, "--budget", budget, "-o", sched], log)
                            entry[f"remat_{budget[:-1]}"] = {"rc": r.returncode, "stderr": r.stderr[-500:]}
            except Exception as e:  # keep going: one model's failure must not lose the others' results
                entry["error"] = f"{type(e).__name__}: {e}"
            summary.append(entry)
            with open(os.path.join(a.out, "summary.json"), "w") as f:
                json.dump(summary, f, indent=1)
            with open(os.path.join(a.out, "log.json"), "w") as f:
                json.dump(log, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
