"""bench/torch/run.py on one committed model (short time limit): the tables come from memplan's JSON and
agree with the data (heights at least the peak load, planned peaks at most the reference). No torch needed.
And bench/torch/train-schedules.py on one model (torch and the bindings)."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import DATA, REPO, memplan_binary


def test_bench_on_resnet18(tmp_path):
    memplan = memplan_binary()
    if memplan is None:
        pytest.skip("memplan is not built")
    for name in os.listdir(DATA):
        if name.startswith("resnet18_bs8") or name == "resnet18_bs64.graph.json":
            shutil.copy(os.path.join(DATA, name), tmp_path)
    out = tmp_path / "bench.json"
    run = subprocess.run([sys.executable, os.path.join(REPO, "bench", "torch", "run.py"), "--memplan", memplan,
                          "--data", str(tmp_path), "--time-limit", "1", "--json", str(out)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    res = json.loads(out.read_text())
    (g,) = res["graphs"]
    assert g["graph"] == "resnet18_bs8" and g["floor"] <= g["50%"]["peak"] <= g["reference_peak"]
    # a graph with no trace beside it is a training-batch graph, tabled apart
    (t,) = res["train_graphs"]
    plain = subprocess.run([memplan, "remat", os.path.join(DATA, "resnet18_bs64.graph.json"), "--budget", "100%",
                            "--method", "none", "--json", "-o", str(tmp_path / "s.json")], capture_output=True, text=True)
    assert plain.returncode == 0, plain.stderr
    assert t["graph"] == "resnet18_bs64" and t["floor"] == json.loads(plain.stdout)["lower_bound"]
    assert t["floor"] <= t["25%"]["peak"] <= t["reference_peak"]
    assert len(res["traces"]) == 2
    for t in res["traces"]:
        meta = json.load(open(os.path.join(DATA, t["trace"] + ".meta.json")))
        assert t["lb"] == meta["peak_load"]
        assert all(t[m]["height"] >= t["lb"] for m in ("sa", "first-fit", "online-first-fit", "pytorch-caching"))
        assert t["sa"]["height"] <= t["first-fit"]["height"]
    # memplan plan: the small-batch graph at 75, 60 and 50 %, the training-batch one at 50 and 25 %
    assert [(p["graph"], p["budget_text"]) for p in res["plans"]] == [
        ("resnet18_bs8", "75%"), ("resnet18_bs8", "60%"), ("resnet18_bs8", "50%"),
        ("resnet18_bs64", "50%"), ("resnet18_bs64", "25%")]
    for p in res["plans"]:
        assert p["peak"] <= p["arena_height"] and p["budget_met"] == (p["arena_height"] <= p["budget"])
        assert p["fragmentation_percent"] == pytest.approx(100 * (p["arena_height"] / p["peak"] - 1))
        assert 1 <= p["tries"] <= 4
    assert "**Recomputation and arena**" in run.stdout and "| resnet18_bs64 | 25% |" in run.stdout
    assert "| resnet18_bs8 |" in run.stdout and "**Targets**" in run.stdout
    assert "**Recomputation, training batches**" in run.stdout and "| resnet18_bs64 |" in run.stdout
    # --only train runs the training-batch graphs alone (the longer-time-limit runs)
    run = subprocess.run([sys.executable, os.path.join(REPO, "bench", "torch", "run.py"), "--memplan", memplan,
                          "--data", str(tmp_path), "--time-limit", "1", "--only", "train", "--json", str(out)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    res = json.loads(out.read_text())
    assert not res["graphs"] and not res["traces"] and not res["plans"]
    assert [t["graph"] for t in res["train_graphs"]] == ["resnet18_bs64"]
    assert "| resnet18_bs64 |" in run.stdout and "| resnet18_bs8 |" not in run.stdout
    assert "**Allocation**" not in run.stdout and "training batches: at 25 %" in run.stdout
    assert "**Recomputation and arena**" not in run.stdout


def test_training_with_schedules_on_resnet18(tmp_path):
    # bench/torch/train-schedules.py on one model, one step, a short plan: its row says what it measured.
    pytest.importorskip("torchvision")
    from memplan_torch import native

    try:
        native.load()
    except ImportError as e:
        pytest.skip(str(e))
    out = tmp_path / "rows.json"

    def bench(*args):
        return subprocess.run([sys.executable, os.path.join(REPO, "bench", "torch", "train-schedules.py"), *args,
                               "--steps", "1", "--time-limit", "1", "--json", str(out)], capture_output=True,
                              text=True, env=dict(os.environ, PYTHONPATH=os.path.join(REPO, "python")))

    run = bench("--models", "resnet18", "--budgets", "70%")
    assert run.returncode == 0, run.stderr
    (row,) = json.loads(out.read_text())
    assert row["model"] == "resnet18_bs8" and row["losses_close"]
    assert row["lower_bound"] <= row["peak"] < row["reference_peak"]
    assert 0 < row["step_peak_scheduled"] < row["step_peak_autograd"]
    assert "| resnet18_bs8 | 70% |" in run.stdout
    # --zoo: a torchvision family the data does not hold, built with constructor arguments (no auxiliary logits)
    run = bench("--zoo", "--models", "googlenet", "--budgets", "60%")
    assert run.returncode == 0, run.stderr
    (row,) = json.loads(out.read_text())
    assert row["model"] == "googlenet_bs4" and row["losses_close"] and row["peak"] < row["reference_peak"]
    # the bundled encoder: two inputs (ids, attention mask), a dict out, the loss on its logits (--model-output)
    run = bench("--zoo", "--models", "encoder_small", "--budgets", "70%")
    assert run.returncode == 0, run.stderr
    (row,) = json.loads(out.read_text())
    assert row["model"] == "encoder_small_bs8" and row["losses_close"] and row["peak"] < row["reference_peak"]
    # --autocast: planned and trained under CPU bfloat16 autocast, a region a step, both ways alike
    run = bench("--zoo", "--models", "vit_b_32", "--budgets", "60%", "--autocast", "bfloat16")
    assert run.returncode == 0, run.stderr
    (row,) = json.loads(out.read_text())
    assert row["model"] == "vit_b_32_bs2" and row["losses_close"] and "under CPU autocast (bfloat16)" in run.stdout
