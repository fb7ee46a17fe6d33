#!/usr/bin/env bash
# Applies real `memplan remat` schedules to real models (docs/pytorch.md, "Applying a schedule"): exports the
# joint graph with real tensors, plans with memplan remat at a budget, runs the schedule with
# memplan-torch apply-schedule (gradients vs reference and autograd, measured live-tensor peak vs planned).
# Usage: bench/torch/apply-schedules.sh [OUTDIR] [BUDGET] [REMAT OPTION...]   (default /tmp/memplan-apply,
# 50%; options go to memplan remat, e.g. --views-alias); ~2 min.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${1:-/tmp/memplan-apply}"
budget="${2:-50%}"
remat_options=("${@:3}")
memplan="${MEMPLAN_BIN:-$root/build-torch/src/tools/memplan}"
[[ -x "$memplan" ]] || memplan="$root/build/src/tools/memplan"
mt="$root/scripts/memplan-torch"
mkdir -p "$out"
# name  model  batch  input-shape  export-options
cases=(
  "resnet18    torchvision:resnet18                     4 3,64,64 -"
  "resnet18_bn torchvision:resnet18                     4 3,64,64 --recompute-batch-norm"
  "block       memplan_torch.models:transformer_block_tiny 8 -       -"
)
for line in "${cases[@]}"; do
  read -r name spec batch shape opts <<<"$line"
  args=(--batch "$batch")
  [[ "$shape" == "-" ]] || args+=(--input-shape "$shape")
  extra=()
  [[ "$opts" == "-" ]] || extra=("$opts")
  "$mt" export-graph "$spec" "${args[@]}" "${extra[@]}" --real-tensors -o "$out/$name.graph.json"
  "$memplan" remat "$out/$name.graph.json" --budget "$budget" --time-limit 10 --quiet --validate --json \
    -o "$out/$name.schedule.json" "${remat_options[@]}" > "$out/$name.remat.json" || [[ $? == 1 ]]  # 1: missed
  "$mt" apply-schedule "$spec" "${args[@]}" --graph "$out/$name.graph.json" --schedule "$out/$name.schedule.json" \
    -o "$out/$name.report.json"
  python3 - "$out/$name.remat.json" "$out/$name.report.json" "$name" <<'PY'
import json, sys
s, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
print(f"{sys.argv[3]} (views {s['views']}): reference {s['reference_peak']} B, planned {s['peak']} B ({s['memory_percent']:.1f} %, "
      f"cost +{s['cost_increase_percent']:.1f} %, budget {'met' if s['budget_met'] else 'NOT met'}), "
      f"{r['recomputed_steps']} of {r['steps']} steps recomputed, measured {r['measured_peak_bytes']} B "
      f"= {r['measured_peak_bytes'] / s['peak']:.3f} x planned, gradients "
      f"{'equal' if r['schedule_vs_reference_allclose'] and r['reference_vs_autograd_allclose'] else 'DIFFER'}")
PY
done
