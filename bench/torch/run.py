#!/usr/bin/env python3
"""Benchmark of the planners on the committed real PyTorch data (data/torch/), issue 4's "Benchmark":

* every `*.graph.json`: `memplan remat --budget 50%` and `25%` (FastSA): peak as a share of the reference
  order's, cost increase, planning time, whether the budget was met, and the floor no schedule can go below
  (memplan's `lower_bound`: parameters + inputs, resident throughout, plus the larger of the graph outputs,
  live at the last step, and the largest single step with what must stay live across it); in two tables:
  the small-batch graphs, which have CPU traces beside them (`NAME.csv`), and the training-batch graphs,
  which have none (`scripts/export-real-data --train-batch`);
* every trace `*.csv` (period from its `.meta.json`): `memplan alloc --method all`: arena height and
  fragmentation (height / peak load - 1) of the annealing planner, offline first-fit, online first-fit
  and the simulated PyTorch caching allocator; for the traces recorded on a GPU (`--data data/torch/cuda`),
  also what the real caching allocator reserved (the import's sidecar), less the persistent bytes;
* every graph again through `memplan plan` (the schedule, then an arena for its buffers, within one time
  limit): the small-batch graphs at 75, 60 and 50 %, the training-batch graphs at 50 and 25 %; whether the
  arena fits the budget, schedule and arena against the reference peak, fragmentation (arena / schedule
  peak - 1), schedules planned, seconds reported and wall-clock.

Everything comes from the memplan CLI's --json output; nothing is computed here but averages.
Usage: bench/torch/run.py [--memplan PATH] [--data DIR] [--time-limit S] [--seed N] [--soft-peak K] [--chain-lookahead]
                          [--only small|train|traces|plan ...] [--json OUT.json] [--markdown OUT.md]
Prints the Markdown tables on stdout (of the parts run: --only train, e.g., for the training-batch graphs
alone at a longer time limit). Needs no torch.
"""

import argparse
import datetime
import glob
import json
import os
import platform
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUDGETS = ("50%", "25%")
ALLOC_COLUMNS = ("sa", "first-fit", "online-first-fit", "pytorch-caching")
PARTS = ("small", "train", "traces", "plan")  # what --only can select
PLAN_BUDGETS = {"small": ("75%", "60%", "50%"), "train": ("50%", "25%")}
PLAN_FIELDS = ("reference_peak", "peak", "arena_height", "budget", "budget_met", "fragmentation_percent",
               "cost_increase_percent", "tries", "seconds")


def find_memplan(explicit):
    if explicit:
        return explicit
    builds = [os.path.join(REPO, b, "src", "tools", "memplan") for b in ("build-torch", "build")]
    builds += sorted(glob.glob(os.path.join(REPO, "build*", "src", "tools", "memplan")))
    for path in [os.environ.get("MEMPLAN_BIN", "")] + builds:
        if path and os.access(path, os.X_OK):
            return path
    sys.exit("bench/torch/run.py: no memplan binary (build it, or pass --memplan)")


def run_json(cmd, ok_codes=(0,)):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in ok_codes:
        raise RuntimeError(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")
    return json.loads(p.stdout)


def graph_sets(data):
    """(small-batch graphs, training-batch graphs): a graph exported beside its CPU traces is small-batch."""
    paths = sorted(glob.glob(os.path.join(data, "*.graph.json")))
    traced = [p for p in paths if os.path.exists(p[:-len(".graph.json")] + ".csv")]
    return traced, [p for p in paths if p not in traced]


def bench_graphs(memplan, paths, time_limit, extra):
    rows = []
    for path in paths:
        row = {"graph": os.path.basename(path)[:-len(".graph.json")]}
        for budget in BUDGETS:
            # exit 1: budget missed (the best schedule is still reported)
            s = run_json([memplan, "remat", path, "--budget", budget, "--time-limit", str(time_limit), "--quiet",
                          "--json"] + extra, ok_codes=(0, 1))
            row["reference_peak"] = s["reference_peak"]
            row["floor"] = s["lower_bound"]
            row[budget] = {k: s[k] for k in ("peak", "memory_percent", "cost_increase_percent", "seconds",
                                            "budget_met", "status")}
        rows.append(row)
    return rows


def bench_traces(memplan, data, time_limit):
    rows = []
    for path in sorted(glob.glob(os.path.join(data, "*.csv"))):
        meta = json.load(open(path[:-4] + ".meta.json"))
        s = run_json([memplan, "alloc", path, "--period", str(meta["period"]), "--method", "all", "--time-limit",
                      str(time_limit), "--quiet", "--json", "--validate"])
        methods = {m["method"]: m for m in s["methods"]}
        row = {"trace": os.path.basename(path)[:-4], "buffers": s["buffers"], "lb": s["lb"]}
        if meta.get("source") == "cuda-snapshot":  # what the real caching allocator reserved (data/torch/cuda)
            row["recorded"] = {"reserved": meta["reserved_peak_bytes"], "persistent": meta["persistent_bytes"]}
        for name in ALLOC_COLUMNS:
            m = methods[name]
            row[name] = {"height": m["height"], "fragmentation": m.get("fragmentation"),
                         "seconds": m["seconds"], "out_of_memory": m.get("out_of_memory", False)}
        rows.append(row)
    return rows


def bench_plans(memplan, sets, time_limit, extra):
    """`memplan plan` on each graph set ("small", "train") at its budgets, one row per graph and budget."""
    rows = []
    for kind, paths in sets:
        for path in paths:
            for budget in PLAN_BUDGETS[kind]:
                start = time.monotonic()
                # exit 1: the arena misses the budget (the plan is still reported)
                s = run_json([memplan, "plan", path, "--budget", budget, "--time-limit", str(time_limit), "--quiet",
                              "--json"] + extra, ok_codes=(0, 1))
                row = {"graph": os.path.basename(path)[:-len(".graph.json")], "set": kind, "budget_text": budget,
                       "wall_seconds": time.monotonic() - start}
                row.update({k: s[k] for k in PLAN_FIELDS})
                rows.append(row)
    return rows


def plan_table(plans):
    """The memplan plan table, with a summary line per graph set."""
    out = ["**Recomputation and arena** (`memplan plan G --budget B`: the schedule, then an arena for its buffers; "
           "the time limit covers both): schedule and arena as a share of the reference peak, fragmentation = "
           "arena / schedule peak - 1, schedules planned (tries), seconds reported and wall-clock.", "",
           "| graph | budget | met | schedule | arena | fragmentation | cost | tries | s | wall s |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for r in plans:
        ref = r["reference_peak"]
        out.append("| " + " | ".join([
            r["graph"], r["budget_text"], "yes" if r["budget_met"] else "**no**", f"{100 * r['peak'] / ref:.2f} %",
            f"{100 * r['arena_height'] / ref:.2f} %", f"{r['fragmentation_percent']:.2f} %",
            f"+{r['cost_increase_percent']:.1f} %", str(r["tries"]), f"{r['seconds']:.1f}",
            f"{r['wall_seconds']:.1f}"]) + " |")
    out.append("")
    for kind, name in (("small", "small batches"), ("train", "training batches")):
        rows = [r for r in plans if r["set"] == kind]
        if rows:
            out.append(f"{name}: budget met in {sum(r['budget_met'] for r in rows)} of {len(rows)}, mean "
                       f"fragmentation {mean(r['fragmentation_percent'] for r in rows):.2f} %, longest run "
                       f"{max(r['wall_seconds'] for r in rows):.1f} s.")
    return out


def data_rows(data, paths, graphs):
    """One row per model: graph size and the traces' peak loads, plain and checkpointed (from the sidecars)."""
    ref = {g["graph"]: g["reference_peak"] for g in graphs}
    rows = []
    for path in paths:
        name = os.path.basename(path)[:-len(".graph.json")]
        g = json.load(open(path))
        row = {"model": name, "nodes": len(g["nodes"]), "values": len(g["values"]), "reference_peak": ref.get(name)}
        for kind, suffix in (("plain", ""), ("ckpt", "_ckpt")):
            meta_path = os.path.join(data, name + suffix + ".meta.json")
            if os.path.exists(meta_path):
                meta = json.load(open(meta_path))
                row[kind] = {k: meta[k] for k in ("buffers", "period", "peak_load", "persistent_bytes")}
        rows.append(row)
    return rows


def mean(xs):
    xs = list(xs)
    return sum(xs) / len(xs) if xs else float("nan")


def remat_table(graphs, title):
    """The recomputation table of one graph set, with its means."""
    mib = 2 ** 20
    out = [title + ", `memplan remat --budget B` (FastSA). mem = planned peak / reference peak; floor = memplan's "
           "`lower_bound` (parameters + inputs + the larger of the graph outputs and the largest single step with "
           "the outputs of run-once nodes live across it), over the reference peak: no schedule goes below it.", "",
           "| graph | reference MiB | floor | 50 %: mem | cost | met | time s | 25 %: mem | cost | met | time s |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in graphs:
        cells = [r["graph"], f"{r['reference_peak'] / mib:.1f}", f"{100 * r['floor'] / r['reference_peak']:.1f} %"]
        for b in BUDGETS:
            x = r[b]
            cells += [f"{x['memory_percent']:.1f} %", f"+{x['cost_increase_percent']:.1f} %",
                      "yes" if x["budget_met"] else "**no**", f"{x['seconds']:.1f}"]
        out.append("| " + " | ".join(cells) + " |")
    if graphs:
        cells = ["**mean**", "", f"{mean(100 * r['floor'] / r['reference_peak'] for r in graphs):.1f} %"]
        for b in BUDGETS:
            cells += [f"{mean(r[b]['memory_percent'] for r in graphs):.1f} %",
                      f"+{mean(r[b]['cost_increase_percent'] for r in graphs):.1f} %",
                      f"{sum(r[b]['budget_met'] for r in graphs)}/{len(graphs)}",
                      f"{mean(r[b]['seconds'] for r in graphs):.1f}"]
        out.append("| " + " | ".join(cells) + " |")
    return out


def remat_targets(graphs, name):
    """Issue 4's two recomputation targets on one graph set, met or missed, with the figures."""
    red25 = 100 - mean(r["25%"]["memory_percent"] for r in graphs)
    cost25 = mean(r["25%"]["cost_increase_percent"] for r in graphs)
    met50 = sum(r["50%"]["budget_met"] for r in graphs)
    above = mean(100 * (r["reference_peak"] - r["25%"]["peak"]) / (r["reference_peak"] - r["floor"])
                 for r in graphs if r["reference_peak"] > r["floor"])
    figures = f"-{red25:.1f} % memory, +{cost25:.1f} % cost; of the memory above the floor, -{above:.1f} % on average"
    return (f"{name}: at 25 % on average -73 % memory for at most +18 % cost: "
            + (f"met ({figures})" if red25 >= 73 and cost25 <= 18 else f"**missed** ({figures})")
            + "; every model's 50 % budget met: "
            + ("yes" if met50 == len(graphs) else f"**no** ({met50} of {len(graphs)})"))


def markdown(graphs, traces, info, models=(), train_graphs=(), plans=()):
    mib = 2 ** 20
    knobs = f", seed {info.get('seed', 1)}"
    if info.get("soft_peak") is not None:
        knobs += f", --soft-peak {info['soft_peak']:g}"
    if info.get("chain_lookahead"):
        knobs += ", --chain-lookahead"
    out = [f"Run {info['date']} on {info['machine']}; memplan {info['memplan']}, time limit {info['time_limit']} s "
           f"per memplan run{knobs}.", ""]
    if models:
        out += ["**Data**: joint graph size and reference-order peak (memplan's simulation); CPU traces: buffers "
                "and peak load of one iteration, plain / with torch.utils.checkpoint; persistent = parameters, "
                "buffers and optimizer state (outside the traces).", "",
                "| model | graph nodes | graph reference peak MiB | trace buffers | trace peak load MiB | persistent MiB |",
                "|---|---|---|---|---|---|"]
        for r in models:
            p, c = r.get("plain"), r.get("ckpt")
            out.append("| " + " | ".join([
                r["model"], str(r["nodes"]), f"{r['reference_peak'] / mib:.1f}" if r["reference_peak"] else "",
                f"{p['buffers'] if p else '-'} / {c['buffers'] if c else '-'}",
                f"{p['peak_load'] / mib if p else 0:.1f} / {c['peak_load'] / mib if c else 0:.1f}",
                f"{p['persistent_bytes'] / mib:.1f}" if p else ""]) + " |")
        out.append("")
    if graphs:
        out += remat_table(graphs, "**Recomputation, small batches** (the graphs beside the CPU traces)") + [""]
    if train_graphs:
        out += remat_table(train_graphs, "**Recomputation, training batches** (graphs only, "
                                         "`scripts/export-real-data --train-batch`)") + [""]
    recorded = [r for r in traces if "recorded" in r]
    if traces:
        out += ["**Allocation** (`memplan alloc --method all` on the traces): arena height / peak load - 1 "
                "(fragmentation); pytorch-caching is memplan's simulation of the CUDA caching allocator"
                + ("; recorded is what the real one reserved over the iteration, less what outlives it "
                   "(parameters, optimizer state: persistent), over the peak load, - 1" if recorded else "")
                + ".", "",
                "| trace | buffers | peak load MiB | annealing (sa) | first-fit | online first-fit | caching allocator "
                + ("| caching allocator, recorded " if recorded else "") + "| sa time s |",
                "|---|---|---|---|---|---|---|" + ("---|" if recorded else "") + "---|"]

    def frag(x):
        return "OOM" if x["out_of_memory"] else f"{100 * x['fragmentation']:.2f} %"

    def recorded_fragmentation(r):
        return (r["recorded"]["reserved"] - r["recorded"]["persistent"]) / r["lb"] - 1

    for r in traces:
        real = [f"{100 * recorded_fragmentation(r):.2f} %" if "recorded" in r else "-"] if recorded else []
        out.append("| " + " | ".join([r["trace"], str(r["buffers"]), f"{r['lb'] / mib:.1f}"]
                                     + [frag(r[c]) for c in ALLOC_COLUMNS] + real
                                     + [f"{r['sa']['seconds']:.2f}"]) + " |")
    if traces:
        real = [f"{100 * mean(recorded_fragmentation(r) for r in recorded):.2f} %"] if recorded else []
        out.append("| " + " | ".join(["**mean**", "", ""] + [
            f"{100 * mean(r[c]['fragmentation'] for r in traces if not r[c]['out_of_memory']):.2f} %"
            for c in ALLOC_COLUMNS] + real + [f"{mean(r['sa']['seconds'] for r in traces):.2f}"]) + " |")
        out.append("")
    if plans:
        out += plan_table(plans) + [""]
    targets = [remat_targets(g, name) for g, name in ((graphs, "small batches"), (train_graphs, "training batches"))
               if g]
    if traces:
        frag = 100 * mean(r["sa"]["fragmentation"] for r in traces)
        targets.append("annealing fragmentation at most 0.4 % on average: "
                       + (f"met ({frag:.2f} %)" if frag <= 0.4 else f"**missed** ({frag:.2f} %)"))
    if targets:
        out += ["**Targets** (issue 4, the paper's figures): " + "; ".join(targets) + "."]
    return "\n".join(out).rstrip("\n") + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--memplan")
    ap.add_argument("--data", default=os.path.join(REPO, "data", "torch"))
    ap.add_argument("--time-limit", type=float, default=10.0, help="seconds per planner run (default 10)")
    ap.add_argument("--seed", type=int, default=1, help="memplan remat --seed (default 1)")
    ap.add_argument("--soft-peak", type=float, help="memplan remat --soft-peak (default: memplan's)")
    ap.add_argument("--chain-lookahead", action="store_true", help="memplan remat and plan --chain-lookahead")
    ap.add_argument("--only", nargs="+", choices=PARTS, default=PARTS,
                    help="run only these parts: small (small-batch graphs), train (training-batch graphs), traces, "
                         "plan (memplan plan on both graph sets)")
    ap.add_argument("--json", help="write the raw figures here")
    ap.add_argument("--markdown", help="also write the tables here")
    ap.add_argument("--from-json", help="print the tables of an earlier run's --json output (runs nothing)")
    args = ap.parse_args()
    if args.from_json:
        res = json.load(open(args.from_json))
        sys.stdout.write(markdown(res["graphs"], res["traces"], res["info"], res.get("models", ()),
                                  res.get("train_graphs", ()), res.get("plans", ())))
        return
    memplan = find_memplan(args.memplan)
    info = {"date": datetime.date.today().isoformat(),
            "machine": f"{platform.machine()}, {os.cpu_count()} cores ({platform.node()})",
            "memplan": os.path.relpath(memplan, REPO), "time_limit": args.time_limit, "seed": args.seed,
            "soft_peak": args.soft_peak, "chain_lookahead": args.chain_lookahead}
    extra = (["--seed", str(args.seed)] + (["--soft-peak", str(args.soft_peak)] if args.soft_peak is not None else [])
             + (["--chain-lookahead"] if args.chain_lookahead else []))
    small, train = graph_sets(args.data)
    graphs = bench_graphs(memplan, small, args.time_limit, extra) if "small" in args.only else []
    train_graphs = bench_graphs(memplan, train, args.time_limit, extra) if "train" in args.only else []
    traces = bench_traces(memplan, args.data, args.time_limit) if "traces" in args.only else []
    plans = bench_plans(memplan, (("small", small), ("train", train)), args.time_limit, extra) \
        if "plan" in args.only else []
    models = data_rows(args.data, small, graphs) if graphs else []
    text = markdown(graphs, traces, info, models, train_graphs, plans)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"info": info, "models": models, "graphs": graphs, "train_graphs": train_graphs,
                       "traces": traces, "plans": plans}, f, indent=1)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
