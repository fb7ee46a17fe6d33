"""Graph export: joint graphs of small real models in remat-graph/v1, checked against hand-computed sizes,
FLOPs and flags."""

import json
import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("functorch")
from torch import nn  # noqa: E402

from memplan_torch import graph_export, models  # noqa: E402
from memplan_torch.errors import MemplanTorchError  # noqa: E402

from conftest import REPO  # noqa: E402


class ConvBN(nn.Module):
    """conv(3->4, 3x3) -> batch norm -> relu -> max-pool -> flatten -> linear(4*4*4 -> 5)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(64, 5)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(torch.relu(self.bn(self.conv(x)))), 1))


@pytest.fixture(scope="module")
def convbn_graph():
    torch.manual_seed(0)
    return graph_export.export_graph(ConvBN(), (torch.randn(2, 3, 8, 8),), "convbn")


def _node(graph, op_prefix):
    return [n for n in graph["nodes"] if n["op"].startswith(op_prefix)]


def test_format_and_topology(convbn_graph):
    g = convbn_graph
    assert g["format"] == "remat-graph/v1" and g["cost_unit"] == "flops"
    assert [v["id"] for v in g["values"]] == list(range(len(g["values"])))
    assert g["order"] == list(range(len(g["nodes"])))
    graph_export.graph_summary_check(g)
    kinds = {v["kind"] for v in g["values"]}
    assert {"input", "tangent", "intermediate", "output"} <= kinds


def test_multi_output_nodes_are_merged(convbn_graph):
    bn = _node(convbn_graph, "aten.native_batch_norm.")
    assert len(bn) == 1 and len(bn[0]["outputs"]) == 3
    assert not any(n["op"] == "<built-in function getitem>" for n in convbn_graph["nodes"])
    values = convbn_graph["values"]
    # normalized output (2,4,8,8) float32, then save_mean and save_invstd of 4 floats each
    assert [values[v]["size"] for v in bn[0]["outputs"]] == [2 * 4 * 8 * 8 * 4, 16, 16]


def test_batch_norm_is_not_recomputable(convbn_graph):
    bn = _node(convbn_graph, "aten.native_batch_norm.")[0]
    assert bn["recomputable"] is False and bn["side_effect"] is True
    conv = _node(convbn_graph, "aten.convolution.")[0]
    assert conv["recomputable"] is True and conv["side_effect"] is False


def test_convolution_and_linear_flops(convbn_graph):
    conv = _node(convbn_graph, "aten.convolution.default")[0]
    # 2 * N * output pixels * |W| + bias adds
    assert conv["cost"] == 2 * 2 * 64 * (4 * 3 * 3 * 3) + 2 * 4 * 64
    addmm = _node(convbn_graph, "aten.addmm.")[0]
    assert addmm["cost"] == 2 * 2 * 64 * 5 + 2 * 5
    cb = _node(convbn_graph, "aten.convolution_backward.")[0]
    # input does not require grad: grad_weight only, plus the bias gradient
    assert cb["cost"] == 2 * 2 * 64 * (4 * 3 * 3 * 3) + 2 * 4 * 64


def test_views_and_outputs(convbn_graph):
    g = convbn_graph
    views = [v for v in g["values"] if "view_of" in v]
    assert views, "flatten / t must give views"
    for v in views:
        base = g["values"][v["view_of"]]
        assert "view_of" not in base and v["size"] <= base["size"]
    # outputs: the forward output and one gradient per parameter (conv w,b; bn w,b; fc w,b)
    assert len(g["outputs"]) == 1 + 6
    assert all(g["values"][v]["kind"] == "output" for v in g["outputs"])


def test_dropout_is_not_recomputable():
    torch.manual_seed(0)
    model = models.GPT(vocab=64, seq_len=8, dim=16, heads=2, layers=1, dropout=0.1)
    g = graph_export.export_graph(model, (model.example_input(1),), "gpt")
    random_nodes = [n for n in g["nodes"] if "bernoulli" in n["op"] or "dropout" in n["op"]]
    assert random_nodes and all(not n["recomputable"] for n in random_nodes)
    assert _node(g, "aten.bmm.")  # attention matmuls are there


def test_unsafe_view_is_a_view():
    # aten._unsafe_view shares its input's storage (its schema says nothing): a view of the matmul it
    # reshapes, free of cost, so that --views-alias and the storage-level simulation count the bytes once.
    x = torch.randn(2, 3)
    assert torch.ops.aten._unsafe_view(x, [6]).data_ptr() == x.data_ptr()
    torch.manual_seed(0)
    model = models.GPT(vocab=64, seq_len=8, dim=16, heads=2, layers=1, dropout=0.0)
    g = graph_export.export_graph(model, (model.example_input(2),), "gpt")
    unsafe = _node(g, "aten._unsafe_view.")
    assert unsafe
    for n in unsafe:
        (out,) = n["outputs"]
        base = g["values"][out]["view_of"]
        assert "view_of" not in g["values"][base] and n["cost"] == 0


def test_unsupported_dtype_names_the_op():
    with pytest.raises(MemplanTorchError, match="op aten.foo.default: unsupported dtype"):
        graph_export._bytes((2, 2), torch.qint8, "aten.foo.default")


def test_untraceable_model_is_a_clear_error():
    class Bad(nn.Module):
        def forward(self, x):
            return x.sum().item() + x  # data-dependent Python control, not traceable

    with pytest.raises(MemplanTorchError, match="cannot be traced"):
        graph_export.export_graph(Bad(), (torch.randn(2, 2, requires_grad=True),), "bad")


def _cli(*args):
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python"))
    return subprocess.run([sys.executable, "-m", "memplan_torch", *args], env=env, capture_output=True, text=True)


def test_cli_export_and_bad_model(tmp_path):
    out = tmp_path / "g.json"
    r = _cli("export-graph", "memplan_torch.models:gpt_tiny", "--batch", "1", "-o", str(out))
    assert r.returncode == 0, r.stderr
    g = json.loads(out.read_text())
    assert g["name"] == "gpt_tiny_bs1" and len(g["nodes"]) > 50
    bad = tmp_path / "bad.json"
    r = _cli("export-graph", "torchvision:no_such_model", "-o", str(bad))
    assert r.returncode == 2 and "no constructor 'no_such_model'" in r.stderr
    assert not bad.exists() and not list(tmp_path.glob(".tmp-*"))
