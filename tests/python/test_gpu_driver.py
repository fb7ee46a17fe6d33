"""The GPU session driver (memplan_torch.gpu) on the CPU: its two CUDA-only steps (recording a snapshot,
serving iterations from the arena) replaced by stand-ins, the rest real: snapshot import, memplan alloc and
remat, graph export, training with the schedule (on the CPU), and the packing of the results into the few
files the device machine returns."""

import csv
import json
import os
import pickle
import subprocess
import sys
import tarfile

import pytest

from memplan_torch import gpu

from conftest import REPO, memplan_binary
from test_snapshot import make_snapshot

MODELS = [("block", "memplan_torch.models:transformer_block_tiny", 2, "attn")]


def fake_child(calls):
    """Stand-in for the record and serve processes: a recording writes a synthetic snapshot with the real
    schema; serving returns the losses of the recording and the arena's counts."""
    def child(kind, args):
        calls.append((kind, args))
        spec, batch, ck, path = args
        if kind == "scheduled":  # the real thing, on the CPU
            return gpu.scheduled(spec, batch, ck, path)
        assert spec == MODELS[0][1] and batch == 2 and ck in ("-", "attn")
        if kind == "record":
            with open(path, "wb") as f:
                pickle.dump(make_snapshot(), f)
            return {"losses": [0.5, 0.25, 0.125], "max_reserved_bytes": 1}
        assert kind == "serve" and path.endswith(".plan.csv") and os.path.exists(path)
        with open(path) as f:
            offsets = [int(row["offset"]) for row in csv.DictReader(f)]
        assert offsets and all(o % 512 == 0 for o in offsets)  # the arena refuses a plan with any other
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
    assert gpu.main(["--out", str(out), "--work", str(work), "--memplan", env, "--arena", "arena.so",
                     "--device", "cpu"],
                    child=fake_child(calls), models=MODELS) == 0
    assert sorted(os.listdir(out)) == sorted(gpu.RESULT_FILES)
    assert [k for k, _ in calls] == ["record", "serve", "record", "serve", "scheduled"]

    summary = json.loads((out / "summary.json").read_text())
    plain, ckpt, graph = summary["models"]
    assert plain["name"] == "block_bs2" and ckpt["name"] == "block_bs2_ckpt" and graph["name"] == "block_bs2"
    assert plain["period"] == 16 and plain["buffers"] == 8 and plain["skipped_events"] == {}
    assert plain["snapshot_plain_data"] is True  # the importer's plain-data unpickling took the recording
    assert plain["alloc"]["height"] >= plain["peak_load"] and plain["losses_equal"] is True
    assert plain["planned_bytes"] == plain["alloc"]["height"] + plain["persistent_bytes"]
    assert plain["planned_over_reserved"] == plain["planned_bytes"] / plain["reserved_peak_bytes"]
    assert plain["held_over_reserved"] == (2 << 20) / plain["reserved_peak_bytes"]
    assert "online-first-fit" in plain["alloc_table"]
    assert graph["export_rc"] == 0 and graph["remat_50"]["memory_percent"] > 0 and "budget_met" in graph["remat_25"]
    trained = graph["scheduled"]
    assert trained["device"] == "cpu" and len(trained["losses_scheduled"]) == 3 and graph["scheduled_losses_close"]
    # the graph run in its own order computes what the schedule does: on the CPU, to the last bit
    assert graph["scheduled_losses_close_to_reference"] and trained["max_relative_difference_to_reference"] == 0
    assert len(trained["losses_reference"]) == 3 and trained["step_peak_reference"] > 0
    assert graph["scheduled_over_autograd"] == trained["step_peak_scheduled"] / trained["step_peak_autograd"] > 0

    with tarfile.open(out / "results.tar.gz") as tar:
        names = set(tar.getnames())
    for name in ("block_bs2.csv", "block_bs2.meta.json", "block_bs2.plan.csv", "block_bs2.pickle",
                 "block_bs2_ckpt.plan.csv", "block_bs2.graph.json", "block_bs2.remat50.json", "block_bs2.remat25.json"):
        assert name in names, name
    log = json.loads((out / "log.json").read_text())
    assert any(entry.get("cmd", [None])[1:2] == ["alloc"] and entry["rc"] == 0 for entry in log)
    assert "| block_bs2 |" in capsys.readouterr().out


def test_pack_adds_the_pickles_that_fit_at_the_end_only(tmp_path, monkeypatch):
    work, out = tmp_path / "work", tmp_path / "out"
    work.mkdir()
    (work / "a.csv").write_text("id,lower,upper,size\n")
    (work / "small.pickle").write_bytes(b"x" * 100_000)   # compresses to a few hundred bytes
    (work / "large.pickle").write_bytes(os.urandom(300_000))  # does not compress
    monkeypatch.setattr(gpu, "RESULTS_LIMIT", 200_000)

    def packed():
        with tarfile.open(out / "results.tar.gz") as tar:
            names = set(tar.getnames())
        return names, json.loads((out / "summary.json").read_text())["pickles_left_out"]

    gpu.pack(str(out), str(work), [], [])  # after a step: no pickle, so that packing stays cheap
    assert packed() == ({"a.csv"}, ["large.pickle", "small.pickle"])
    gpu.pack(str(out), str(work), [], [], pickles=True)  # at the end: those under the limit
    assert packed() == ({"a.csv", "small.pickle"}, ["large.pickle"])
    assert os.path.getsize(out / "results.tar.gz") <= 200_000


def test_deadline_and_failures_still_leave_results(tmp_path, env):
    out = tmp_path / "out"
    failing = lambda kind, args: None  # noqa: E731 - a recording that failed
    assert gpu.main(["--out", str(out), "--work", str(tmp_path / "w"), "--arena", "-", "--deadline", "0",
                     "--device", "cpu"], child=failing, models=MODELS) == 0
    entries = json.loads((out / "summary.json").read_text())["models"]
    assert [e["error"] for e in entries] == ["not started: past the 0-s deadline"] * 3
    assert gpu.main(["--out", str(out), "--work", str(tmp_path / "w2"), "--arena", "-", "--device", "cpu"],
                    child=failing, models=MODELS) == 0
    entries = json.loads((out / "summary.json").read_text())["models"]
    assert [e.get("error") for e in entries] == ["recording failed (log.json)"] * 2 + [None]
    assert entries[2]["export_rc"] == 0 and "remat_50" not in entries[2]  # no memplan: no planning


def test_a_step_past_its_timeout_is_logged_with_its_output():
    log = []
    r = gpu._run([sys.executable, "-c", "import sys, time; sys.stderr.write('started'); sys.stderr.flush(); "
                  "time.sleep(30)"], log, timeout=1)
    assert r.returncode == 124 and r.stderr.startswith("started") and "timed out after 1 s" in r.stderr
    assert log[0]["rc"] == 124 and isinstance(log[0]["stdout"], str)


def test_the_cuda_malloc_async_backend_is_dropped_for_the_run():
    # Snapshots need the native caching allocator: a backend:cudaMallocAsync setting is dropped, with a note.
    log, env = [], {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True, backend:cudaMallocAsync"}
    gpu.native_backend(env, log)
    assert env == {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"} and "dropped" in log[0]["note"]
    env = {"PYTORCH_CUDA_ALLOC_CONF": "backend:cudaMallocAsync"}
    gpu.native_backend(env, log)
    assert env == {} and len(log) == 2
    for env in ({}, {"PYTORCH_CUDA_ALLOC_CONF": "backend:native"}):  # nothing to drop
        kept = dict(env)
        gpu.native_backend(env, log)
        assert env == kept and len(log) == 2


def test_unknown_model_is_a_usage_error(tmp_path):
    r = subprocess.run([sys.executable, "-m", "memplan_torch.gpu", "--out", str(tmp_path), "--arena", "-",
                        "--models", "resnet18,nope"], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=os.path.join(REPO, "python")))
    assert r.returncode == 2 and "unknown model(s) nope" in r.stderr


def _gpu_run(tmp_path, nvcc_ok, bundle):
    """scripts/gpu-run in a copy of the repository layout, with stand-ins for python (its torch check passes;
    the driver's command line is written down), nvcc, cmake (fails at once) and, with `bundle`, .gpu/memplan."""
    import shutil
    import stat

    root, bin_dir = tmp_path / "root", tmp_path / "bin"
    (root / "scripts").mkdir(parents=True)
    bin_dir.mkdir()
    shutil.copy(os.path.join(REPO, "scripts", "gpu-run"), root / "scripts" / "gpu-run")
    arena_dir = root / "python" / "memplan_torch" / "arena"
    arena_dir.mkdir(parents=True)
    shutil.copy(os.path.join(REPO, "python", "memplan_torch", "arena", "arena.cc"), arena_dir / "arena.cc")

    def script(path, text):
        path.write_text("#!/bin/sh\n" + text)
        path.chmod(path.stat().st_mode | stat.S_IXUSR)

    args_file = tmp_path / "driver-args"
    script(bin_dir / "fake-python", f'[ "$1" = -c ] && exit 0\necho "$@" > {args_file}\n')
    # nvcc: succeeds by writing the -o file, or fails as an unsupported host compiler would
    script(bin_dir / "nvcc", 'while [ $# -gt 1 ]; do [ "$1" = -o ] && : > "$2"; shift; done\n' if nvcc_ok
           else 'echo "nvcc: unsupported GNU version" >&2; exit 1\n')
    script(bin_dir / "cmake", "exit 1\n")
    if bundle:
        (root / ".gpu").mkdir()
        script(root / ".gpu" / "memplan", "exit 0\n")
    no_cuda = tmp_path / "no-cuda"  # CUDA_HOME without cuda_runtime_api.h: the g++ fallback fails too
    no_cuda.mkdir()
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", MEMPLAN_PYTHON=str(bin_dir / "fake-python"),
               OUT=str(tmp_path / "out"), MEMPLAN_GPU_WORK=str(tmp_path / "work"), CUDA_HOME=str(no_cuda))
    r = subprocess.run(["bash", str(root / "scripts" / "gpu-run"), "--models", "resnet18"], capture_output=True,
                       text=True, env=env)
    return r, args_file.read_text().split() if args_file.exists() else None, root, tmp_path / "work"


def test_gpu_run_goes_on_without_the_arena_when_it_does_not_build(tmp_path):
    r, args, root, work = _gpu_run(tmp_path, nvcc_ok=False, bundle=True)
    assert r.returncode == 0, r.stderr
    assert "the arena allocator did not build" in r.stderr
    assert args[args.index("--arena") + 1] == "-"
    assert args[args.index("--memplan") + 1] == str(root / ".gpu" / "memplan") and args[-2:] == ["--models", "resnet18"]
    assert "unsupported GNU version" in (work / "arena-build.log").read_text()


def test_gpu_run_serves_with_the_arena_nvcc_built_and_runs_without_memplan(tmp_path):
    r, args, _, work = _gpu_run(tmp_path, nvcc_ok=True, bundle=False)
    assert r.returncode == 0, r.stderr
    assert args[args.index("--arena") + 1] == str(work / "libmemplan_arena.so")
    assert "--memplan" not in args and "planners skipped" in r.stderr


@pytest.mark.parametrize("rc,stdout,expected", [
    (0, 'warming up\n{"losses": [0.5]}\n', {"losses": [0.5]}),
    # the result was printed, then the process died at exit (CUDA or allocator teardown): the result stands
    (-11, '{"losses": [0.5]}\n', {"losses": [0.5], "exit_status": -11}),
    (1, "Traceback ...\n", None),
    (0, "", None),
    (124, '{"losses": [0.', None),  # cut off by its timeout in the middle of the line
    (0, "[1, 2]\n", None),
])
def test_child_result_is_its_last_line(monkeypatch, rc, stdout, expected):
    monkeypatch.setattr(gpu, "_run", lambda cmd, log, timeout: subprocess.CompletedProcess(cmd, rc, stdout, ""))
    assert gpu._child("serve", ["spec", 2, "-", "plan.csv"], "arena.so", []) == expected
