#!/usr/bin/env python3
"""Training with memplan's schedules on the real models of data/torch (memplan_torch.ScheduledStep), against
plain autograd on the same batches from the same start, on this machine's CPU.

For each model (at the batch of its small-batch graph, batch norm recomputable, the cross-entropy loss) and
budget: FastSA plans in-process (ScheduledStep.planned, through memplan_native), then a few SGD steps run
both ways. Reported: the plan (its peak as a share of the reference order's, cost increase, budget met), the
most memory one step made (the trace recorder's peak of live tensor bytes: what the step allocates beyond
the parameters, buffers and the batch) with the schedule and with autograd, whether the losses agree, and
seconds per step. Times are wall-clock on a shared machine: indicative only.

With --zoo the models are one of each torchvision family instead (batch 4 at 3×128×128; the transformers,
whose input size is fixed, batch 2 at 3×224×224), the bundled BERT-style encoder (nn.TransformerEncoder,
called as Hugging Face's models are: token ids and an attention mask in, a dict out, the loss on its logits),
the bundled LSTM language model (unrolled by the trace) and a segmentation model (LR-ASPP, its loss over
classes in dimension 1 of (N, C, H, W)): a check that export, planning and the scheduled step work, and train
as autograd does, on architectures the committed data does not cover.

With --autocast DTYPE (bfloat16) the step is planned and made under CPU autocast and called in an autocast
region of its own each time; autograd's step runs its forward pass and loss in one and its backward pass after
it, as torch's mixed-precision recipe has it.

Usage: PYTHONPATH=python /usr/bin/python3 bench/torch/train-schedules.py [--zoo] [--models a,b]
       [--budgets 50%,25%] [--steps N] [--time-limit S] [--autocast DTYPE] [--json OUT.json] [--markdown OUT.md]
"""

import argparse
import datetime
import json
import os
import platform
import sys
import time

import torch

from memplan_torch import MemplanTorchError, ScheduledStep, atomic, autocast, models
from memplan_torch.losses import logits_shape, random_target
from memplan_torch.training import autograd_step, compare_with_autograd
from memplan_torch.trace import AllocationRecorder

# name, spec, batch, input shape (None: the model's default), and the output the loss takes where the model
# returns several (--model-output): the small-batch graphs of data/torch (scripts/export-real-data).
MODELS = [
    ("resnet18", "torchvision:resnet18", 8, None, None),
    ("gpt_small", "memplan_torch.models:gpt_small", 8, None, None),
    ("mobilenet_v3_large", "torchvision:mobilenet_v3_large", 8, None, None),
    ("resnet50", "torchvision:resnet50", 4, None, None),
    ("convnext_tiny", "torchvision:convnext_tiny", 4, None, None),
    ("densenet121", "torchvision:densenet121", 4, None, None),
    ("vit_b_16", "torchvision:vit_b_16", 2, None, None),
]

# --zoo: one model of each torchvision family (GoogLeNet and Inception v3, whose training-mode output is a
# tuple with auxiliary logits, are built without them).
_SMALL, _FIXED = (3, 128, 128), (3, 224, 224)
ZOO = [(name, f"torchvision:{name}", 4, _SMALL, None) for name in (
    "alexnet", "vgg11_bn", "squeezenet1_0", "shufflenet_v2_x0_5", "mnasnet0_5", "mobilenet_v2",
    "mobilenet_v3_small", "efficientnet_b0", "efficientnet_v2_s", "regnet_x_400mf", "regnet_y_400mf",
    "resnext50_32x4d", "densenet121", "convnext_tiny")] + [
    ("googlenet", "torchvision:googlenet(aux_logits=False, init_weights=False)", 4, _SMALL, None),
    ("inception_v3", "torchvision:inception_v3(aux_logits=False, init_weights=False)", 2, (3, 299, 299), None)] + [
    (name, f"torchvision:{name}", 2, _FIXED, None) for name in ("vit_b_32", "swin_t", "maxvit_t")] + [
    ("encoder_small", "memplan_torch.models:encoder_small", 8, None, "logits"),
    ("lstm_small", "memplan_torch.models:lstm_small", 8, None, None),
    ("lraspp_mobilenet_v3_large", "torchvision.models.segmentation:lraspp_mobilenet_v3_large(weights_backbone=None)",
     4, _SMALL, "out")]


def measure_made(call):
    """call()'s result and the peak of the live tensor bytes it made (the trace recorder)."""
    with AllocationRecorder() as rec:
        out = call()
    return out, rec.peak_live_bytes


def autograd_error(spec, batch, shape, output, autocast_dtype):
    """The error one plain autograd training step of the model raises (under autocast with `autocast_dtype`),
    or None: whether a step that failed with a schedule fails without one too."""
    torch.manual_seed(0)
    model, make_inputs = models.load_model_and_inputs(spec, batch, [shape] if shape else [], output=output)
    model.train()
    try:
        autograd_step(model, "none", autocast_dtype)(*make_inputs())
    except RuntimeError as e:
        return str(e)
    return None


def measure(name, spec, batch, shape, output, budget, steps, time_limit, autocast_dtype=None):
    """One row: plan the step at `budget` (under autocast with `autocast_dtype`), then train `steps` SGD steps
    both ways on the same batches."""
    torch.manual_seed(0)
    model, make_inputs = models.load_model_and_inputs(spec, batch, [shape] if shape else [], output=output)
    model.train()
    inputs = make_inputs()
    logits = logits_shape(model, inputs)
    t0 = time.perf_counter()
    with autocast.region(autocast_dtype):
        step = ScheduledStep.planned(model, inputs, budget, time_limit_s=time_limit)
    row = {"model": f"{name}_bs{batch}", "budget": budget, "plan_seconds": time.perf_counter() - t0,
           **{k: step.plan[k] for k in ("memory_percent", "cost_increase_percent", "budget_met", "reference_peak",
                                        "peak", "lower_bound")}}
    batches = [(*make_inputs(), random_target(logits)) for _ in range(steps)]
    row.update(compare_with_autograd(model, step, batches, measure_made, autocast_dtype=autocast_dtype))
    row["scheduled_over_autograd"] = row["step_peak_scheduled"] / row["step_peak_autograd"]
    return row


def markdown(rows, args):
    mib = 2 ** 20
    out = [f"Run {datetime.date.today()} on {platform.machine()}, {os.cpu_count()} cores, torch {torch.__version__} "
           f"(CPU); FastSA {args.time_limit:g} s a plan (seed 1), {args.steps} SGD steps each way"
           f"{f', under CPU autocast ({args.autocast})' if args.autocast else ''}.", "",
           "Planned peak and floor: shares of the reference order's peak; the floor (the graph's lower bound: "
           "parameters, inputs, the largest single step...) is what no schedule goes below.", "",
           "| model | budget | floor | planned peak | cost | met | step peak, schedule MiB | step peak, autograd MiB | "
           "schedule / autograd | losses agree | s/step schedule | s/step autograd |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "error" in r:
            out.append(f"| {r['model']} | {r['budget']} | error: {r['error']} ||||||||||")
            continue
        out.append(f"| {r['model']} | {r['budget']} | {100 * r['lower_bound'] / r['reference_peak']:.1f} % | "
                   f"{r['memory_percent']:.1f} % | "
                   f"+{r['cost_increase_percent']:.1f} % "
                   f"| {'yes' if r['budget_met'] else '**no**'} | {r['step_peak_scheduled'] / mib:.1f} | "
                   f"{r['step_peak_autograd'] / mib:.1f} | {100 * r['scheduled_over_autograd']:.1f} % | "
                   f"{'yes' if r['losses_close'] else '**no**'} | {sum(r['seconds_scheduled']) / args.steps:.2f} | "
                   f"{sum(r['seconds_autograd']) / args.steps:.2f} |")
    done = [r for r in rows if "error" not in r]
    for budget in args.budgets:
        ratios = [r["scheduled_over_autograd"] for r in done if r["budget"] == budget]
        if ratios:
            out.append(f"\n{budget}: a step with the schedule makes {100 * sum(ratios) / len(ratios):.1f} % of "
                       f"autograd's step peak on average ({len(ratios)} models); losses agree on "
                       f"{sum(r['losses_close'] for r in done if r['budget'] == budget)} of {len(ratios)}.")
    return "\n".join(out) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--zoo", action="store_true", help="one model of each torchvision family, the bundled "
                   "encoder and LSTM, and a segmentation model instead")
    p.add_argument("--models", help="comma-separated names (default: all)")
    p.add_argument("--budgets", default="50%,25%")
    p.add_argument("--steps", type=int, default=2)
    p.add_argument("--time-limit", type=float, default=10.0)
    p.add_argument("--autocast", metavar="DTYPE", help="plan and train under CPU autocast with DTYPE (bfloat16)")
    p.add_argument("--json")
    p.add_argument("--markdown")
    args = p.parse_args()
    args.budgets = args.budgets.split(",")
    table = ZOO if args.zoo else MODELS
    wanted = args.models.split(",") if args.models else [m[0] for m in table]
    rows = []
    for name, spec, batch, shape, output in table:
        if name not in wanted:
            continue
        for budget in args.budgets:
            try:
                rows.append(measure(name, spec, batch, shape, output, budget, args.steps, args.time_limit,
                                    args.autocast))
            except MemplanTorchError as e:
                rows.append({"model": f"{name}_bs{batch}", "budget": budget, "error": str(e)})
            except RuntimeError as e:  # e.g. a kernel this torch lacks: does autograd's step fail alike?
                alone = autograd_error(spec, batch, shape, output, args.autocast)
                rows.append({"model": f"{name}_bs{batch}", "budget": budget,
                             "error": f"torch: {e} ({'autograd too' if alone else 'NOT autograd'})"})
            print(json.dumps(rows[-1]), file=sys.stderr)
    text = markdown(rows, args)
    if args.json:
        atomic.write_json(args.json, rows)
    if args.markdown:
        atomic.write_text(args.markdown, text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
