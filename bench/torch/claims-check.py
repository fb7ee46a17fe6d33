#!/usr/bin/env python3
"""Are memplan remat's claimed peaks what PyTorch holds, on the real graphs? For every training-batch graph of
data/torch/ and budgets 50 % and 25 %: memplan's claimed peak against the storage-level peak of the schedule
it wrote, computed here by memplan_torch.memory (each storage once, a view holding the production of its
owner it was made from: what PyTorch holds, and what apply-schedule measures). Needs no torch.

Usage: bench/torch/claims-check.py [--memplan PATH] [--views alias|full] [--time-limit S] [--json OUT]
--views alias (default) plans with --views-alias, full with views at their own size (remat-graph/v1's
default). Prints a Markdown table; exit 1 when a claim is below the storage it holds.
"""

import argparse
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "python"))

from memplan_torch import memory  # noqa: E402
from run import BUDGETS, find_memplan, graph_sets, run_json  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--memplan")
    ap.add_argument("--data", default=os.path.join(os.path.dirname(os.path.dirname(HERE)), "data", "torch"))
    ap.add_argument("--time-limit", type=float, default=10.0)
    ap.add_argument("--views", choices=("alias", "full"), default="alias")
    ap.add_argument("--json", help="write one JSON line per run here")
    args = ap.parse_args()
    memplan = find_memplan(args.memplan)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in graph_sets(args.data)[1]:
            graph = json.load(open(path))
            for budget in BUDGETS:
                out = os.path.join(tmp, "s.json")
                alias = ["--views-alias"] if args.views == "alias" else []
                s = run_json([memplan, "remat", path, "--budget", budget, "--time-limit", str(args.time_limit),
                              "--quiet", "--json", "-o", out] + alias, ok_codes=(0, 1))
                sequence = json.load(open(out))["sequence"]
                rows.append({"graph": os.path.basename(path)[:-len(".graph.json")], "budget": budget,
                             "reference_peak": s["reference_peak"], "claimed_peak": s["peak"],
                             "storage_peak": memory.simulate_peak(graph, sequence, by_storage=True),
                             "cost_increase_percent": s["cost_increase_percent"], "budget_met": s["budget_met"],
                             "status": s["status"], "seconds": s["seconds"]})
    if args.json:
        with open(args.json, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in rows)
    print(f"memplan {memplan}, views {args.views}, time limit {args.time_limit} s; peaks as % of the reference "
          f"(views counted as in the plan)\n")
    print("| graph | budget | claimed | storage held | held / claimed | cost | met |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        ref = r["reference_peak"]
        print(f"| {r['graph']} | {r['budget']} | {100 * r['claimed_peak'] / ref:.1f} % | "
              f"{100 * r['storage_peak'] / ref:.1f} % | {r['storage_peak'] / r['claimed_peak']:.3f} | "
              f"+{r['cost_increase_percent']:.1f} % | {'yes' if r['budget_met'] else '**no**'} |")
    return 1 if any(r["storage_peak"] > r["claimed_peak"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
