#!/usr/bin/env python3
"""Mixed precision against recomputation on the training-batch graphs (docs/pytorch.md, "Mixed precision"):
for each graph of data/torch and its twin exported under CPU autocast, the reference peaks of both, and the
peaks that `memplan remat` planned on the autocast graph at 50 % and 25 % (from bench/torch/run.py --json),
each over the float32 reference. Needs no torch.

    scripts/export-real-data --train-batch --autocast bfloat16 /tmp/bf16
    bench/torch/run.py --data /tmp/bf16 --only train plan --json /tmp/bf16/run.json
    bench/torch/autocast-compare.py /tmp/bf16 /tmp/bf16/run.json

A model whose autocast graph is missing (the export failed) gets a row of dashes."""

import argparse
import glob
import json
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "python"))
from memplan_torch.memory import simulate_peak  # noqa: E402

MIB = 2 ** 20


def reference_peak(path):
    graph = json.load(open(path))
    return simulate_peak(graph, graph["order"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("autocast_dir", help="the autocast graphs (scripts/export-real-data --train-batch --autocast)")
    ap.add_argument("run_json", help="bench/torch/run.py --data AUTOCAST_DIR --json output")
    ap.add_argument("--data", default=os.path.join(REPO, "data", "torch"), help="the float32 graphs")
    args = ap.parse_args()
    planned = {g["graph"]: g for g in json.load(open(args.run_json))["train_graphs"]}
    names = sorted(os.path.basename(p)[:-len(".graph.json")] for p in glob.glob(os.path.join(args.data, "*.graph.json"))
                   if not os.path.exists(p[:-len(".graph.json")] + ".csv"))  # training-batch graphs: no trace
    print("| graph | float32 reference MiB | autocast reference MiB | autocast / float32 | autocast + remat 50 %: "
          "MiB (of float32) | autocast + remat 25 %: MiB (of float32) |")
    print("|---|---|---|---|---|---|")
    ratios = []
    for name in names:
        full = reference_peak(os.path.join(args.data, name + ".graph.json"))
        mixed_path = os.path.join(args.autocast_dir, name + ".graph.json")
        if not os.path.exists(mixed_path) or name not in planned:
            print(f"| {name} | {full / MIB:.1f} | – | – | – | – |")
            continue
        mixed = reference_peak(mixed_path)
        ratios.append(mixed / full)
        cells = [f"{planned[name][b]['peak'] / MIB:.1f} ({planned[name][b]['peak'] / full * 100:.1f} %)"
                 for b in ("50%", "25%")]
        print(f"| {name} | {full / MIB:.1f} | {mixed / MIB:.1f} | {mixed / full * 100:.1f} % | {cells[0]} "
              f"| {cells[1]} |")
    if ratios:
        print(f"| **mean** | | | {sum(ratios) / len(ratios) * 100:.1f} % | | |")


if __name__ == "__main__":
    main()
