"""The GPU session driver (memplan_torch.gpu) on the CPU: its two CUDA steps (recording a snapshot, serving
iterations from the arena) replaced by stand-ins, the rest real: snapshot import, memplan alloc and remat,
graph export, and the packing of the results into the few files the device machine returns."""

import json
import os
import pickle
import subprocess
import sys
import tarfile

import pytest

from memplan_torch import gpu

from conftest import REPO, memplan_binary
from test_snapshot import MARKER, make_snapshot

MODELS = [("block", "memplan_torch.models:transformer_block_tiny", 2, "attn")]


def fake_child(calls):
    """Stand-in for the record and serve processes: a recording writes a synthetic snapshot with the real
    schema; serving returns the losses of the recording and the arena's counts."""
    def child(kind, args):
        calls.append((kind, args))
        spec, batch, ck, path = args
        assert spec == MODELS[0][1] and batch == 2 and ck in ("-", "attn")
        if kind == "record":
            with open(path, "wb") as f:
                pickle.dump(make_snapshot(), f)
            return {"losses": [0.5, 0.25, 0.125], "max_reserved_bytes": 1}
        assert kind == "serve" and path.endswith(".plan.csv") and os.path.exists(path)
        return {"losses": [0.5, 0.25, 0.125], "served": 21, "fallback": 0, "desyncs": 0, "overlaps": 0,
                "arena_bytes": 1 << 20, "planned_rows": 7, "fallback_peak_bytes": 1 << 20, "held_peak_bytes": 2 << 20}
    return child


@pytest.fixture
def env(monkeypatch):
    pytest.importorskip("torch")
    memplan = memplan_binary()
    if memplan is None:
        pytest.skip("memplan is not built")
    monkeypatch.setenv("PYTHONPATH", os.path.join(REPO, "python"))
    return memplan


def test_driver_records_plans_serves_and_packs(tmp_path, env, capsys):
    out, work, calls = tmp_path / "out", tmp_path / "work", []
    assert gpu.main(["--out", str(out), "--work", str(work), "--memplan", env, "--arena", "arena.so"],
                    child=fake_child(calls), models=MODELS) == 0
    assert sorted(os.listdir(out)) == sorted(gpu.RESULT_FILES)
    assert [k for k, _ in calls] == ["record", "serve", "record", "serve"]

    summary = json.loads((out / "summary.json").read_text())
    plain, ckpt, graph = summary["models"]
    assert plain["name"] == "block_bs2" and ckpt["name"] == "block_bs2_ckpt" and graph["name"] == "block_bs2"
    assert plain["period"] == 16 and plain["buffers"] == 8 and plain["skipped_events"] == {}
    assert plain["alloc"]["height"] >= plain["peak_load"] and plain["losses_equal"] is True
    assert plain["planned_bytes"] == plain["alloc"]["height"] + plain["persistent_bytes"]
    assert plain["planned_over_reserved"] == plain["planned_bytes"] / plain["reserved_peak_bytes"]
    assert plain["held_over_reserved"] == (2 << 20) / plain["reserved_peak_bytes"]
    assert "online-first-fit" in plain["alloc_table"]
    assert graph["export_rc"] == 0 and graph["remat_50"]["memory_percent"] > 0 and "budget_met" in graph["remat_25"]

    with tarfile.open(out / "results.tar.gz") as tar:
        names = set(tar.getnames())
    for name in ("block_bs2.csv", "block_bs2.meta.json", "block_bs2.plan.csv", "block_bs2.pickle",
                 "block_bs2_ckpt.plan.csv", "block_bs2.graph.json", "block_bs2.remat50.json", "block_bs2.remat25.json"):
        assert name in names, name
    log = json.loads((out / "log.json").read_text())
    assert any(entry["cmd"][1] == "alloc" and entry["rc"] == 0 for entry in log)
    assert "| block_bs2 |" in capsys.readouterr().out


def test_deadline_and_failures_still_leave_results(tmp_path, env):
    out = tmp_path / "out"
    failing = lambda kind, args: None  # noqa: E731 - a recording that failed
    assert gpu.main(["--out", str(out), "--work", str(tmp_path / "w"), "--arena", "-", "--deadline", "0"],
                    child=failing, models=MODELS) == 0
    entries = json.loads((out / "summary.json").read_text())["models"]
    assert [e["error"] for e in entries] == ["not started: past the 0-s deadline"] * 3
    assert gpu.main(["--out", str(out), "--work", str(tmp_path / "w2"), "--arena", "-"], child=failing,
                    models=MODELS) == 0
    entries = json.loads((out / "summary.json").read_text())["models"]
    assert [e.get("error") for e in entries] == ["recording failed (log.json)"] * 2 + [None]
    assert entries[2]["export_rc"] == 0 and "remat_50" not in entries[2]  # no memplan: no planning


def test_a_step_past_its_timeout_is_logged_with_its_output():
    log = []
    r = gpu._run([sys.executable, "-c", "import sys, time; sys.stderr.write('started'); sys.stderr.flush(); "
                  "time.sleep(30)"], log, timeout=1)
    assert r.returncode == 124 and r.stderr.startswith("started") and "timed out after 1 s" in r.stderr
    assert log[0]["rc"] == 124 and isinstance(log[0]["stdout"], str)


def test_unknown_model_is_a_usage_error(tmp_path):
    r = subprocess.run([sys.executable, "-m", "memplan_torch.gpu", "--out", str(tmp_path), "--arena", "-",
                        "--models", "resnet18,nope"], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=os.path.join(REPO, "python")))
    assert r.returncode == 2 and "unknown model(s) nope" in r.stderr
