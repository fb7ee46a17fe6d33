"""The committed real data under data/torch/ (no torch needed): graphs are well-formed remat-graph/v1,
traces are MiniMalloc CSV whose sidecar period and peak load agree with the rows."""

import csv
import glob
import json
import os

import pytest

from memplan_torch import pattern

from conftest import DATA

GRAPHS = sorted(glob.glob(os.path.join(DATA, "*.graph.json")))
TRACES = sorted(glob.glob(os.path.join(DATA, "*.csv")))


def test_there_is_data():
    if not os.path.isdir(DATA):
        pytest.skip("data/torch is absent")
    assert GRAPHS and TRACES


@pytest.mark.parametrize("path", GRAPHS, ids=os.path.basename)
def test_graph_is_well_formed(path):
    g = json.load(open(path))
    assert g["format"] == "remat-graph/v1" and g["cost_unit"] == "flops"
    values, nodes = g["values"], g["nodes"]
    assert [v["id"] for v in values] == list(range(len(values)))
    assert [n["id"] for n in nodes] == list(range(len(nodes)))
    available = {v["id"] for v in values if v["kind"] in ("input", "tangent")}
    for nid in g["order"]:
        n = nodes[nid]
        assert set(n["inputs"]) <= available, n["name"]
        available.update(n["outputs"])
        assert n["cost"] >= 0
    assert set(g["outputs"]) <= available
    assert all(v["size"] > 0 or v["kind"] != "intermediate" for v in values)
    assert any(not n["recomputable"] for n in nodes) or "gpt" not in path


@pytest.mark.parametrize("path", TRACES, ids=os.path.basename)
def test_trace_matches_its_sidecar(path):
    meta = json.load(open(pattern.meta_path(path)))
    with open(path) as f:
        rows = [{k: int(v) for k, v in r.items()} for r in csv.DictReader(f)]
    period = meta["period"]
    assert len(rows) == meta["buffers"] > 0
    assert all(0 <= r["lower"] < period and r["lower"] < r["upper"] <= r["lower"] + period for r in rows)
    assert all(r["size"] > 0 for r in rows)  # memplan rejects empty buffers
    assert pattern.peak_load(rows, period) == meta["peak_load"]


TRAIN_GRAPHS = [p for p in GRAPHS if not os.path.exists(p[:-len(".graph.json")] + ".csv")]


@pytest.mark.parametrize("path", TRAIN_GRAPHS, ids=os.path.basename)
def test_training_batch_graph_ends_with_the_loss(path):
    # scripts/export-real-data --train-batch exports with the loss (export-graph's default): the only tangent
    # is the scalar loss's gradient, not a logits-sized one resident throughout.
    g = json.load(open(path))
    assert [v["size"] for v in g["values"] if v["kind"] == "tangent"] == [4]
    ops = {n["op"] for n in g["nodes"]}
    assert "aten.nll_loss_forward.default" in ops and "aten.nll_loss_backward.default" in ops
    assert g["values"][g["outputs"][0]]["size"] == 4
