"""The pybind11 module memplan_native (python/native): the allocation and recomputation planners called
in-process on the committed real data, checked against the memplan CLI's figures and the independent
validators. Skipped when the module is not built; needs no torch."""

import json
import os
import subprocess

import pytest

from memplan_torch import memory, native

from conftest import DATA, memplan_binary

try:
    m = native.load()
except ImportError as e:  # not built (no pybind11-dev, or MEMPLAN_BUILD_PYTHON=OFF)
    pytest.skip(str(e), allow_module_level=True)

TRACE = os.path.join(DATA, "resnet18_bs8_ckpt.csv")
GRAPH = os.path.join(DATA, "resnet18_bs8.graph.json")


def read(path):
    with open(path) as f:
        return f.read()


@pytest.fixture(scope="module")
def problem():
    meta = json.loads(read(TRACE[:-4] + ".meta.json"))
    p = m.parse_problem(read(TRACE), period=meta["period"], file=os.path.basename(TRACE))
    assert len(p) == meta["buffers"] and p.period == meta["period"]
    assert p.peak_load() == meta["peak_load"]  # the C++ peak load equals the one the trace recorder wrote
    return p


def test_methods_are_listed():
    assert m.alloc_methods()[0] == "sa" and "first-fit" in m.alloc_methods()
    assert m.remat_methods()[0] == "fastsa"


@pytest.mark.parametrize("method", ["sa", "exact", "exact+sa", "first-fit", "online-first-fit"])
def test_plan_allocation_gives_valid_offsets(problem, method):
    r = m.plan_allocation(problem, method=method, time_limit_s=1, seed=3)
    assert r["method"] == method
    assert len(r["offsets"]) == len(problem) and r["ids"][0] == problem.buffers[0].id
    report = m.validate(problem, r["offsets"])
    assert report["ok"], report["errors"][:3]
    assert report["height"] == r["height"] >= r["lower_bound"] == problem.peak_load()


def test_default_method_is_the_clis(problem):
    r = m.plan_allocation(problem, time_limit_s=1)
    assert r["method"] == "exact+sa"
    # The search's fields: on this trace it packs at the peak load (docs/pytorch.md) and says so.
    assert r["search_outcome"] == "found" and isinstance(r["nodes"], int)
    assert r["height"] == r["lower_bound"] and r["proven_optimal"]
    assert m.plan_allocation(problem, method="sa", moves=100)["nodes"] == 0


def test_validate_names_overlaps_and_missing_offsets(problem):
    zeros = [0] * len(problem)
    bad = m.validate(problem, zeros)
    assert not bad["ok"] and bad["overlapping_pairs"] > 0
    missing = m.validate(problem, [None] + zeros[1:])
    assert not missing["ok"] and any(problem.buffers[0].id in e for e in missing["errors"])
    with pytest.raises(ValueError, match="offsets for"):
        m.validate(problem, zeros[:-1])


def test_in_process_alloc_matches_the_cli(problem, tmp_path):
    memplan = memplan_binary()
    if memplan is None:
        pytest.skip("memplan is not built")
    out = subprocess.run([memplan, "alloc", TRACE, "--period", str(problem.period), "--method", "first-fit",
                          "--json", "--quiet"], capture_output=True, text=True, check=True)
    cli = json.loads(out.stdout)
    assert m.plan_allocation(problem, method="first-fit")["height"] == cli["height"]
    assert m.simulate_caching_allocator(problem)["peak_reserved"] >= problem.peak_load()


def test_bad_csv_raises_input_error_with_location():
    with pytest.raises(m.InputError, match=r"bad\.csv:3: .*upper"):
        m.parse_problem("id,lower,upper,size\n0,0,2,8\n1,5,4,8\n", file="bad.csv")
    assert issubclass(m.InputError, ValueError)


def test_plan_remat_in_process_is_a_valid_schedule():
    g = m.parse_graph(read(GRAPH), file="resnet18_bs8.graph.json")
    assert g.num_nodes == len(g.order) > 100
    r = m.plan_remat(g, "70%", time_limit_s=1, seed=2)
    assert r["peak"] < r["reference_peak"] and r["cost"] >= r["reference_cost"]
    assert (r["peak"], r["cost"]) == m.simulate(g, r["sequence"])
    check = m.validate_schedule(g, r["sequence"], peak=r["peak"], cost=r["cost"], budget=r["budget"])
    assert check["ok"], check["errors"][:3]
    assert check["budget_met"] == r["budget_met"]
    sched = json.loads(r["schedule_json"])
    assert sched["format"] == "remat-schedule/v1" and sched["peak"] == r["peak"]
    assert m.parse_schedule(g, r["schedule_json"]) == r["sequence"]
    # an int budget is bytes, and so is text with a unit
    assert m.plan_remat(g, r["reference_peak"], method="none")["budget_met"]
    assert m.plan_remat(g, "1.5GiB", method="none")["budget"] == 3 << 29
    # 1 s gives this graph thousands of moves per node: the rounds follow the soft peak unless told not to
    assert r["soft_peak"] == 20
    assert m.plan_remat(g, "70%", time_limit_s=1, seed=2, soft_peak=0)["soft_peak"] == 0
    # as `memplan remat --chain-lookahead`, said in the figures
    assert not r["chain_lookahead"]
    deep = m.plan_remat(g, "70%", moves=100000, chain_lookahead=True)
    assert deep["chain_lookahead"] and m.validate_schedule(g, deep["sequence"], peak=deep["peak"])["ok"]


def test_plan_remat_with_views_aliased_claims_the_storage_it_holds():
    # as `memplan remat --views-alias`: the claim is the schedule's storage-level peak, which the independent
    # validator recomputes
    path = os.path.join(DATA, "gpt_small_bs8.graph.json")
    g = m.parse_graph(read(path), views_alias=True)
    assert g.views == "alias" and m.parse_graph(read(path)).views == "full"
    r = m.plan_remat(g, "60%", moves=300000)
    assert r["views"] == "alias" and json.loads(r["schedule_json"])["views"] == "alias"
    assert m.validate_schedule(g, r["sequence"], peak=r["peak"], cost=r["cost"])["ok"]
    assert r["peak"] == memory.simulate_peak(json.loads(read(path)), r["sequence"], by_storage=True)


def test_schedule_check_catches_a_broken_sequence():
    g = m.parse_graph(read(GRAPH))
    broken = list(g.order)
    broken[0], broken[-1] = broken[-1], broken[0]
    check = m.validate_schedule(g, broken)
    assert not check["ok"] and check["errors"]


def test_bad_graph_raises_input_error_naming_the_element():
    with pytest.raises(m.InputError, match=r"g\.json"):
        m.parse_graph('{"format": "remat-graph/v1", "nodes": [{"id": 0, "inputs": [77], "outputs": []}]}',
                      file="g.json")
    with pytest.raises(m.InputError):
        m.plan_remat(m.parse_graph(read(GRAPH)), "lots")
    with pytest.raises(ValueError, match="soft peak nan"):
        m.plan_remat(m.parse_graph(read(GRAPH)), "70%", soft_peak=float("nan"))


def test_ctrl_c_while_planning_returns_the_best_plan_found_so_far():
    # As in the CLI: the planner stops and returns what it has; afterwards Ctrl-C is Python's again. Both runs
    # would take the whole minute: no schedule meets a budget of one byte, and annealing does not reach this
    # trace's lower bound.
    import signal
    import threading
    import time

    g = m.parse_graph(read(GRAPH), file="resnet18_bs8.graph.json")
    trace = os.path.join(DATA, "convnext_tiny_bs4.csv")
    p = m.parse_problem(read(trace), period=json.loads(read(trace[:-4] + ".meta.json"))["period"])
    for plan, status_key in ((lambda: m.plan_remat(g, 1, time_limit_s=60, moves=10**12), "status"),
                             (lambda: m.plan_allocation(p, method="sa", time_limit_s=60, moves=10**12),
                              "stop_reason")):
        timer = threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT))
        start = time.monotonic()
        timer.start()
        r = plan()
        timer.join()
        assert r[status_key] == "interrupted" and time.monotonic() - start < 30
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(1)
    assert m.plan_remat(g, "70%", time_limit_s=1)["status"] != "interrupted"  # the flag was cleared


def _on_a_terminal(code):
    """What a child Python running `code` writes to its terminal (a pseudo-terminal as stdin, stdout, stderr)."""
    import pty
    import sys

    pid, fd = pty.fork()
    if pid == 0:  # the child
        os.execv(sys.executable, [sys.executable, "-c", code])
    out = b""
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # EIO: the child has closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.waitpid(pid, 0)
    return out.decode(errors="replace")


def test_planning_shows_progress_on_a_terminal_unless_quiet():
    code = ("from memplan_torch import native; m = native.load(); "
            f"g = m.parse_graph(open({GRAPH!r}).read()); m.plan_remat(g, 1, time_limit_s=1.5, quiet=QUIET); "
            "print('done')")
    shown = _on_a_terminal(code.replace("QUIET", "False"))
    assert "done" in shown and "\r\x1b[K" in shown and " s]" in shown, shown
    quiet = _on_a_terminal(code.replace("QUIET", "True"))
    assert "done" in quiet and "\r\x1b[K" not in quiet and " s]" not in quiet, quiet
