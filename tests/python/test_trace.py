"""Trace capture: allocation patterns of real CPU training iterations, checked on models whose buffers we
can predict."""

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from memplan_torch import models, pattern, trace  # noqa: E402
from memplan_torch.errors import MemplanTorchError  # noqa: E402


def _mlp():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))


def test_recorder_sees_saved_activations_until_backward():
    x = torch.randn(8, 64, requires_grad=True)
    w = torch.randn(64, 64, requires_grad=True)
    rec = trace.AllocationRecorder()
    with rec:
        h = torch.relu(x @ w)   # relu saves its output for backward
        loss = h.sum()
        del h
        before_backward = rec.step
        loss.backward()
    relu = [b for b in rec.buffers if b["op"].startswith("aten.relu")]
    assert len(relu) == 1 and relu[0]["size"] == 8 * 64 * 4
    assert relu[0]["upper"] > before_backward, "the saved relu output must stay live into the backward pass"
    mm = [b for b in rec.buffers if b["op"].startswith("aten.mm")][0]
    assert mm["upper"] <= before_backward, "relu does not save its input: the matmul result dies in forward"


def test_training_iteration_is_periodic_with_wrapping_gradients():
    model = _mlp()
    rows, meta = trace.trace_training(model, lambda: torch.randn(4, 64))
    assert meta["steady"] and meta["left_out_buffers"] == 0
    period = meta["period"]
    assert all(0 <= r["lower"] < period and r["lower"] < r["upper"] <= r["lower"] + period for r in rows)
    # gradients live from the backward pass to the next zero_grad: they wrap around the iteration
    grad_sizes = sorted(p.numel() * 4 for p in model.parameters())
    wrapping = sorted(r["size"] for r in rows if r["upper"] > period)
    assert wrapping == grad_sizes
    assert meta["persistent_bytes"] == 2 * sum(grad_sizes)  # parameters + momentum buffers
    assert meta["peak_load"] == pattern.peak_load(rows, period) >= sum(grad_sizes)


def test_autocast_traces_the_mixed_precision_step():
    # Under CPU autocast each Linear's weight is cast to bfloat16 inside the forward pass: half-size copies
    # appear among the buffers, and the sidecar says how the step ran.
    model = _mlp()
    rows, meta = trace.trace_training(model, lambda: torch.randn(4, 64), autocast_dtype="bfloat16")
    assert meta["steady"] and meta["autocast"] == "bfloat16"
    sizes = {r["size"] for r in rows}
    assert {64 * 256 * 2, 256 * 256 * 2, 256 * 10 * 2} <= sizes
    plain_rows, plain = trace.trace_training(_mlp(), lambda: torch.randn(4, 64))
    assert plain["autocast"] is None and 64 * 256 * 2 not in {r["size"] for r in plain_rows}


def test_the_iteration_can_end_with_export_graphs_losses():
    # --loss cross-entropy: log-softmax and its backward join the iteration, against a target drawn once;
    # mse: a target of the output's shape. The default stays the mean of the output.
    rows, mean = trace.trace_training(_mlp(), lambda: torch.randn(4, 64))
    ce_rows, ce = trace.trace_training(_mlp(), lambda: torch.randn(4, 64), loss="cross-entropy", label_smoothing=0.1)
    _, mse = trace.trace_training(_mlp(), lambda: torch.randn(4, 64), loss="mse")
    assert (mean["loss"], ce["loss"], mse["loss"]) == ("mean", "cross-entropy", "mse")
    assert ce["steady"] and mse["steady"] and ce["period"] > mean["period"]
    assert ce["period"] != mse["period"]
    with pytest.raises(MemplanTorchError, match="loss 'none': expected one of mean, cross-entropy, mse"):
        trace.trace_training(_mlp(), lambda: torch.randn(4, 64), loss="none")
    with pytest.raises(MemplanTorchError, match="label smoothing applies to the cross-entropy loss, not to 'mse'"):
        trace.trace_training(_mlp(), lambda: torch.randn(4, 64), loss="mse", label_smoothing=0.1)
    with pytest.raises(MemplanTorchError, match="a class dimension applies to the cross-entropy loss, not to 'mean'"):
        trace.trace_training(_mlp(), lambda: torch.randn(4, 64), class_dim=1)
    assert ce["label_smoothing"] == 0.1 and "label_smoothing" not in mean and "class_dim" not in ce
    # logits (N, C, L) with their classes in dimension 1: the options the step ran with are in the sidecar
    conv = torch.nn.Conv1d(3, 5, 3, padding=1)
    _, dense = trace.trace_training(conv, lambda: torch.randn(2, 3, 7), loss="cross-entropy", class_dim=1)
    assert dense["class_dim"] == 1 and dense["steady"]


def test_checkpointing_changes_the_pattern():
    torch.manual_seed(0)
    model = models.GPT(vocab=64, seq_len=16, dim=32, heads=2, layers=3, dropout=0.0)
    make = lambda: model.example_input(2)  # noqa: E731
    plain, m0 = trace.trace_training(model, make)
    torch.manual_seed(0)
    model = models.GPT(vocab=64, seq_len=16, dim=32, heads=2, layers=3, dropout=0.0)
    names = trace.select_modules(model, ["blocks.*"])
    assert names == ["blocks.0", "blocks.1", "blocks.2"]
    ck, m1 = trace.trace_training(model, lambda: model.example_input(2), names)
    assert m1["period"] > m0["period"] and len(ck) > len(plain)  # the forward of each block runs twice
    assert m1["peak_load"] < m0["peak_load"]


def test_select_modules_errors_and_nesting():
    model = _mlp()
    assert trace.select_modules(model, ["0", "*"]) == ["0", "1", "2", "3", "4"]
    with pytest.raises(MemplanTorchError, match="--checkpoint 'layer9'"):
        trace.select_modules(model, ["layer9"])
    gpt = models.gpt_tiny()
    assert trace.select_modules(gpt, ["blocks", "blocks.0"]) == ["blocks"]


def test_peak_load_wraps_and_csv():
    rows = [{"id": 0, "lower": 0, "upper": 4, "size": 10},
            {"id": 1, "lower": 3, "upper": 6, "size": 5},   # wraps to [0, 1) in a period of 5
            {"id": 2, "lower": 4, "upper": 5, "size": 7}]
    assert pattern.peak_load(rows, 5) == 15   # at t=0: 10 + 5; at t=3: 10 + 5; at t=4: 5 + 7
    assert pattern.peak_load(rows) == 15
    assert pattern.to_csv(rows).splitlines() == ["id,lower,upper,size", "0,0,4,10", "1,3,6,5", "2,4,5,7"]
    assert pattern.meta_path("a/b.csv") == "a/b.meta.json"
