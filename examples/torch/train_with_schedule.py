#!/usr/bin/env python3
"""Train a model with a memplan recomputation schedule (memplan_torch.ScheduledStep), beside the same model
trained by plain autograd from the same start, and compare: losses, parameters and running statistics after
the last step, and the peak of live tensor bytes of one step each way.

    PYTHONPATH=python /usr/bin/python3 examples/torch/train_with_schedule.py                  # resnet18, 50 %
    PYTHONPATH=python /usr/bin/python3 examples/torch/train_with_schedule.py \\
        --model memplan_torch.models:gpt_small --batch 2 --budget 50% --steps 5   # with dropout
    PYTHONPATH=python /usr/bin/python3 examples/torch/train_with_schedule.py --autocast bfloat16  # mixed precision
    PYTHONPATH=python /usr/bin/python3 examples/torch/train_with_schedule.py --last-batch 5   # an epoch's remainder

The three lines a training loop needs are marked "the schedule's step" below; with --autocast the graph is
exported, and the step made and called, under CPU autocast, while autograd's forward pass runs under it and its
backward pass after it (torch's mixed-precision recipe). Each step starts both runs from
the same generator state, so a model with dropout draws the same masks both ways. Exits 1 if the two runs
end with different parameters.
"""

import argparse
import copy
import os
import subprocess
import sys
import tempfile
import time

import torch

from memplan_torch import MemplanTorchError, ScheduledStep, atomic, autocast, graph_export, losses, models
from memplan_torch.trace import AllocationRecorder

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def peak_mib(step):
    """Peak of the bytes of tensors made while `step()` runs (parameters and the batch are not counted)."""
    with AllocationRecorder() as rec:
        step()
    return rec.peak_live_bytes / 2**20


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", default="torchvision:resnet18")
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--input-shape", default="3,128,128", help="per-sample input shape (ignored for models with "
                   "an example_input, such as gpt_tiny)")
    p.add_argument("--budget", default="50%", help="memplan remat --budget")
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--memplan", default=os.path.join(ROOT, "build", "src", "tools", "memplan"))
    p.add_argument("--autocast", metavar="DTYPE", help="train in mixed precision: CPU autocast with DTYPE (bfloat16)")
    p.add_argument("--last-batch", type=int, metavar="N", help="the last step takes N samples, fewer than --batch, "
                   "as an epoch's last batch does (the step traces the model once more, at that batch)")
    args = p.parse_args()
    if args.last_batch is not None and not 0 < args.last_batch < args.batch:
        p.error(f"--last-batch {args.last_batch}: expected fewer samples than --batch {args.batch}, at least one")
    mixed = lambda: autocast.region(args.autocast)  # noqa: E731  (a null context without --autocast)

    torch.manual_seed(0)
    model = models.load_model(args.model).train()
    shape = None if hasattr(model, "example_input") else models.parse_shape(args.input_shape)
    batch = lambda n=args.batch: models.example_input(model, n, shape)  # noqa: E731
    x = batch()
    with tempfile.TemporaryDirectory() as tmp:
        graph_path, schedule_path = os.path.join(tmp, "graph.json"), os.path.join(tmp, "schedule.json")
        with mixed():
            graph = graph_export.export_graph(model, (x,), "model", recompute_batch_norm=True, loss="cross-entropy")
        atomic.write_json(graph_path, graph, compact=True)
        run = subprocess.run([args.memplan, "remat", graph_path, "--budget", args.budget, "-o", schedule_path,
                              "--validate", "-q"], stderr=subprocess.PIPE, text=True)
        if run.returncode not in (0, 1):  # 1: the budget was missed, but a schedule was written
            sys.exit(f"memplan remat failed:\n{run.stderr}")
        plain = copy.deepcopy(model)
        with mixed():
            step = ScheduledStep(model, (x,), graph_path, schedule_path)  # the schedule's step, 1 of 3
    scheduled_opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    plain_opt = torch.optim.SGD(plain.parameters(), lr=0.05, momentum=0.9)

    logits = losses.logits_shape(plain, (x,))  # (batch, ..., classes)
    classes = logits[-1]
    targets = lambda n=args.batch: losses.random_target((n, *logits[1:]))  # noqa: E731
    seconds = [0.0, 0.0]
    for k in range(args.steps):
        n = args.last_batch if args.last_batch and k == args.steps - 1 else args.batch
        x, target = batch(n), targets(n)
        generator = torch.get_rng_state()
        start = time.perf_counter()
        scheduled_opt.zero_grad()
        with mixed():
            loss = step(x, target)  # the schedule's step, 2 of 3: forward and backward, gradients in .grad
        scheduled_opt.step()  # the schedule's step, 3 of 3
        middle = time.perf_counter()
        torch.set_rng_state(generator)
        plain_opt.zero_grad()
        with mixed():
            plain_loss = torch.nn.functional.cross_entropy(plain(x).reshape(-1, classes), target.reshape(-1))
        plain_loss.backward()
        plain_opt.step()
        seconds[0] += middle - start
        seconds[1] += time.perf_counter() - middle
        print(f"step {k + 1} (batch {n}): loss {float(loss):.6f} with the schedule, {float(plain_loss):.6f} with "
              "autograd")

    differences = [float((a.float() - b.float()).abs().max())
                   for a, b in zip(model.state_dict().values(), plain.state_dict().values())]
    same = all(torch.allclose(a.float(), b.float(), rtol=1e-4, atol=1e-5)
               for a, b in zip(model.state_dict().values(), plain.state_dict().values()))
    print(f"parameters and buffers after {args.steps} steps: {'equal' if same else 'DIFFERENT'} "
          f"(largest difference {max(differences):.3g}); {seconds[0] / args.steps:.3f} s a step with the schedule, "
          f"{seconds[1] / args.steps:.3f} s with autograd")

    x, target = batch(), targets()
    model.zero_grad(set_to_none=True)
    plain.zero_grad(set_to_none=True)
    def plain_step():
        with mixed():
            plain_loss = torch.nn.functional.cross_entropy(plain(x).reshape(-1, classes), target.reshape(-1))
        plain_loss.backward()

    def scheduled_step():
        with mixed():
            step(x, target)

    scheduled, autograd = peak_mib(scheduled_step), peak_mib(plain_step)
    print(f"peak of live tensors in one step: {scheduled:.1f} MiB with the schedule, {autograd:.1f} MiB with "
          f"autograd ({100 * scheduled / autograd:.1f} %)")
    return 0 if same else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except MemplanTorchError as e:
        sys.exit(f"error: {e}")
