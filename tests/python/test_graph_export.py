"""Graph export: joint graphs of small real models in remat-graph/v1, checked against hand-computed sizes,
FLOPs and flags."""

import json
import os
import re
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("functorch")
from torch import nn  # noqa: E402

from memplan_torch import graph_export, losses, models, options  # noqa: E402
from memplan_torch.errors import MemplanTorchError  # noqa: E402

from conftest import REPO, StandInOp, memplan_binary  # noqa: E402


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
    for dropout in graph_export.DROPOUTS:
        g = graph_export.export_graph(model, (model.example_input(1),), "gpt", dropout=dropout)
        random_nodes = [n for n in g["nodes"] if n["op"].startswith(("aten.bernoulli", "aten.native_dropout."))]
        assert random_nodes and all(not n["recomputable"] for n in random_nodes), dropout
    assert _node(g, "aten.bmm.")  # attention matmuls are there


def test_fused_dropout_keeps_a_one_byte_mask():
    # As CUDA runs dropout: aten.native_dropout, whose bool mask (1 byte per element) the backward reads;
    # the decomposed CPU path of torch 1.13 keeps a float mask instead (4 bytes per element).
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.Dropout(0.25), nn.Linear(32, 4))
    x = torch.randn(8, 16)
    fused = graph_export.export_graph(model, (x,), "fused")
    # the random step keeps only the mask (its float output is workspace); input * mask * scale is a step
    # of its own, recomputable, and the backward is the same kernel again
    (drop,) = _node(fused, "aten.native_dropout.")
    assert [fused["values"][v]["size"] for v in drop["outputs"]] == [8 * 32]
    assert not drop["recomputable"] and drop["workspace"] == 8 * 32 * 4
    apply, back = _node(fused, "aten.native_dropout_backward.")
    assert drop["outputs"][0] in apply["inputs"] and drop["outputs"][0] in back["inputs"]
    assert [fused["values"][v]["size"] for v in apply["outputs"]] == [8 * 32 * 4]
    assert apply["recomputable"] and back["recomputable"]  # deterministic, unlike their name's prefix
    decomposed = graph_export.export_graph(model, (x,), "decomposed", dropout="decomposed")
    assert not _node(decomposed, "aten.native_dropout.")
    (bern,) = _node(decomposed, "aten.bernoulli")
    assert [decomposed["values"][v]["size"] for v in bern["outputs"]] == [8 * 32 * 4]
    # dropout in evaluation mode or with p = 0 is left alone, and nn.functional.dropout is restored
    with graph_export.dropout_as("fused"):
        assert torch.equal(nn.functional.dropout(x, 0.0, True), x)
        assert torch.equal(nn.functional.dropout(x, 0.5, False), x)
    assert nn.functional.dropout.__name__ == "dropout"
    with pytest.raises(MemplanTorchError, match="dropout 'bad'"):
        graph_export.export_graph(model, (x,), "bad", dropout="bad")


def test_functional_batch_norm_of_torch_2_is_stateful():
    # torch 2.x's aot graphs are functionalized: training batch norm is _native_batch_norm_legit_functional
    # (or _batch_norm_with_update_functional), which returns the new running statistics instead of writing
    # them, so its schema has no write annotation: only the name says that it updates state.
    from types import SimpleNamespace

    def node(op, names, args):
        schema = SimpleNamespace(arguments=[SimpleNamespace(name=n, alias_info=None) for n in names])
        target = type("Op", (), {"_schema": schema, "__str__": lambda self: op})()
        return SimpleNamespace(target=target, args=args, kwargs={})

    x, w, b, rm, rv = "input", "weight", "bias", "running_mean", "running_var"
    legit = ["input", "weight", "bias", "running_mean", "running_var", "training", "momentum", "eps"]
    assert graph_export.is_stateful(node("aten._native_batch_norm_legit_functional.default", legit,
                                         (x, w, b, rm, rv, True, 0.1, 1e-5)))
    assert not graph_export.is_stateful(node("aten._native_batch_norm_legit_functional.default", legit,
                                             (x, w, b, rm, rv, False, 0.1, 1e-5)))
    update = ["input", "weight", "bias", "running_mean", "running_var", "momentum", "eps"]
    assert graph_export.is_stateful(node("aten._batch_norm_with_update_functional.default", update,
                                         (x, w, b, rm, rv, 0.1, 1e-5)))
    # the backward and the evaluation-mode form update nothing
    assert not graph_export.is_stateful(node("aten.native_batch_norm_backward.default", legit, (x,) * 8))
    assert not graph_export.is_stateful(node("aten._native_batch_norm_legit_no_training.default",
                                             ["input", "weight", "bias", "running_mean", "running_var", "momentum",
                                              "eps"], (x, w, b, rm, rv, 0.1, 1e-5)))


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
    # so do unsafe_split's chunks, with which a GRU cell splits its gates: each holds the whole storage
    assert all(c.data_ptr() == x.data_ptr() + k * 3 * x.element_size()
               for k, c in enumerate(torch.ops.aten.unsafe_split(x.view(6), 3)))
    gru = graph_export.export_graph(nn.GRU(4, 6), (torch.randn(3, 2, 4),), "gru", loss="none")
    splits = _node(gru, "aten.unsafe_split.")
    assert splits and all(len(n["outputs"]) == 3 and n["cost"] == 0 for n in splits)
    assert all(gru["values"][v]["view_of"] == gru["values"][n["inputs"][0]].get("view_of", n["inputs"][0])
               for n in splits for v in n["outputs"])


def _unmarked_aliases(model, x, loss):
    """schedule.view_disagreements on the joint graph of `model` with `loss`, traced as export-graph traces."""
    from memplan_torch import schedule

    model, inputs = losses.with_loss(model, (x,), loss)
    gm, graph, mapping, primals, tangents, _ = schedule.trace_joint(model, inputs, fake=None)
    return schedule.view_disagreements(gm, graph, mapping, primals, tangents)


def test_view_marks_are_the_storages_torch_shares(monkeypatch):
    # Every output that shares an input's storage is a view (or an in-place write) in the graph, and every
    # view shares it: GRU cells (unsafe_split), LSTMs, attention, channel shuffles, dense concatenation.
    class Gru(nn.Module):
        def __init__(self):
            super().__init__()
            self.gru = nn.GRU(4, 6, num_layers=2, bidirectional=True)

        def forward(self, x):
            return self.gru(x)[0]

    torch.manual_seed(0)
    lstm = models.LstmLm(vocab=30, seq_len=6, dim=8)
    for model, x, loss in ((Gru(), torch.randn(3, 2, 4), "none"), (lstm, lstm.example_input(2), "cross-entropy"),
                           (models.gpt_tiny(), models.gpt_tiny().example_input(2), "cross-entropy"),
                           (ConvBN(), torch.randn(2, 3, 8, 8), "cross-entropy")):
        assert _unmarked_aliases(model, x, loss) == [], type(model).__name__
    shuffle = pytest.importorskip("torchvision").models.shufflenet_v2_x0_5(num_classes=10)
    assert _unmarked_aliases(shuffle, torch.randn(2, 3, 32, 32), "cross-entropy") == []
    # an op the exporter does not know as a view is named (unsafe_split, as before 2026-12-02)
    monkeypatch.setattr(graph_export, "_UNANNOTATED_VIEWS", {"aten._unsafe_view.default"})
    found = _unmarked_aliases(Gru(), torch.randn(3, 2, 4), "none")
    assert found and {(op, what) for _, op, what in found} == {("aten.unsafe_split.Tensor", "unmarked")}


def test_apply_schedule_names_views_the_exporter_does_not_know(tmp_path, monkeypatch, capsys):
    # unsafe_split unknown as a view (as before 2026-12-02): apply-schedule reports the GRU's splits and warns
    from memplan_torch import cli

    monkeypatch.setattr(graph_export, "_UNANNOTATED_VIEWS", {"aten._unsafe_view.default"})
    g, s, report = tmp_path / "g.json", tmp_path / "s.json", tmp_path / "r.json"
    spec = "torch.nn:GRU(input_size=4, hidden_size=6)"
    assert cli.main(["export-graph", spec, "--batch", "3", "--input-shape", "2,4", "--loss", "none",
                     "-o", str(g)]) == 0
    s.write_text(json.dumps({"format": "remat-schedule/v1", "sequence": json.loads(g.read_text())["order"]}))
    assert cli.main(["apply-schedule", spec, "--graph", str(g), "--schedule", str(s), "-o", str(report)]) == 0
    assert {d["op"] for d in json.loads(report.read_text())["view_disagreements"]} == {"aten.unsafe_split.Tensor"}
    assert "warning: aten.unsafe_split.Tensor returned views of an input that the graph counts as memory of " \
        "their own" in capsys.readouterr().err


def test_cross_entropy_loss_ends_the_graph():
    # With the loss, the graph holds log-softmax, nll_loss and their backward, the target is an int64 input,
    # and the only tangent is the loss's scalar gradient; without it the logits' gradient is a tangent as
    # large as the logits, resident throughout.
    torch.manual_seed(0)
    model = models.gpt_tiny()
    x = model.example_input(2)
    logits_bytes = 2 * model.seq_len * model.vocab * 4
    plain = graph_export.export_graph(model, (x,), "gpt", loss="none")
    with_loss = graph_export.export_graph(model, (x,), "gpt", loss="cross-entropy")
    assert not [n for n in plain["nodes"] if "nll_loss" in n["op"]]
    assert [v["size"] for v in plain["values"] if v["kind"] == "tangent"] == [logits_bytes]
    ops = {n["op"].split(".")[1] for n in with_loss["nodes"]}
    assert {"_log_softmax", "nll_loss_forward", "nll_loss_backward", "_log_softmax_backward_data"} <= ops
    assert [v["size"] for v in with_loss["values"] if v["kind"] == "tangent"] == [4]
    inputs = [v for v in with_loss["values"] if v["kind"] == "input"]
    assert len(inputs) == len([v for v in plain["values"] if v["kind"] == "input"]) + 1
    assert inputs[-1]["size"] == 2 * model.seq_len * 8  # the target: one int64 class per token
    assert with_loss["values"][with_loss["outputs"][0]]["size"] == 4  # the loss comes first, then gradients
    assert len(with_loss["outputs"]) == len(plain["outputs"])


def test_loss_needs_logits():
    class Scalar(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.ones(3))

        def forward(self, x):
            return (x * self.w).sum(dim=1)  # (batch,): no class dimension

    with pytest.raises(MemplanTorchError, match=r"not logits of shape .*use --loss none"):
        graph_export.export_graph(Scalar(), (torch.randn(2, 3),), "s", loss="cross-entropy")
    with pytest.raises(MemplanTorchError, match="loss 'hinge': expected one of cross-entropy, mse, none"):
        graph_export.export_graph(Scalar(), (torch.randn(2, 3),), "s", loss="hinge")
    g = graph_export.export_graph(Scalar(), (torch.randn(2, 3),), "s", loss="none")
    assert [v["size"] for v in g["values"] if v["kind"] == "tangent"] == [8]

    class WithAuxiliary(nn.Module):  # as torchvision's GoogLeNet: logits in eval mode, a tuple in training
        def __init__(self):
            super().__init__()
            self.head, self.aux = nn.Linear(3, 4), nn.Linear(3, 4)

        def forward(self, x):
            return (self.head(x), self.aux(x)) if self.training else self.head(x)

    for loss in ("cross-entropy", "mse"):
        with pytest.raises(MemplanTorchError, match=re.escape(
                "model WithAuxiliary: in training mode its output is a tuple of 2 with 0 (float32 tensor (2, 4)), 1 "
                f"(float32 tensor (2, 4)), not the tensor that the {loss} loss takes; choose the tensor the loss takes "
                "with --model-output KEY")):
            graph_export.export_graph(WithAuxiliary(), (torch.randn(2, 3),), "a", loss=loss)
        # Selected, the logits end the graph; in eval mode (the output-shape sample) they are the lone output.
        g = graph_export.export_graph(losses.SelectOutput(WithAuxiliary(), 0), (torch.randn(2, 3),), "a", loss=loss)
        assert [v["size"] for v in g["values"] if v["kind"] == "tangent"] == [4]


class HeadAndFeatures(nn.Module):
    """Returns a dict, as Hugging Face's models return a ModelOutput: the logits, and features the loss does
    not take."""

    def __init__(self):
        super().__init__()
        self.body, self.head = nn.Linear(3, 8), nn.Linear(8, 4)

    def forward(self, x):
        h = torch.relu(self.body(x))
        return {"logits": self.head(h), "features": (h, h.sum(dim=1))}


def test_the_loss_takes_the_selected_output():
    x = torch.randn(5, 3)
    model = HeadAndFeatures()
    for loss in ("cross-entropy", "mse"):
        with pytest.raises(MemplanTorchError, match=re.escape(
                "model HeadAndFeatures: its output is a dict with 'logits' (float32 tensor (5, 4)), 'features' "
                f"(tuple), not the tensor that the {loss} loss takes; choose the tensor the loss takes with "
                "--model-output KEY (its key, field or position), or end the graph at every output with --loss none")):
            graph_export.export_graph(model, (x,), "d", loss=loss)
    selected = losses.SelectOutput(model, "logits")
    g = graph_export.export_graph(selected, (x,), "d", loss="cross-entropy")
    assert [n for n in g["nodes"] if n["op"] == "aten.nll_loss_forward.default"]
    assert [v["size"] for v in g["values"] if v["kind"] == "tangent"] == [4]  # the loss's; no feature tangents
    # The features are not outputs of the graph: the forward pass is the body and the head.
    assert [n["op"] for n in g["nodes"]].count("aten.addmm.default") == 2
    assert losses.user_model(losses.WithLoss(selected)) is model and losses.model_name(selected) == "HeadAndFeatures"
    with pytest.raises(MemplanTorchError, match=re.escape(
            "model HeadAndFeatures: its output 'features' is a tuple of 2 with 0 (float32 tensor (1, 8)), 1 (float32 "
            "tensor (1,)), not a tensor")):
        graph_export.export_graph(losses.SelectOutput(model, "features"), (x,), "d", loss="mse")


def test_an_output_is_selected_by_key_field_or_position():
    import collections
    import dataclasses

    a, b = torch.zeros(2, 3), torch.ones(2, dtype=torch.int64)
    Pair = collections.namedtuple("Pair", "logits aux")

    @dataclasses.dataclass
    class Record:
        logits: torch.Tensor
        steps: int

    assert losses.select_output({"logits": a, "b": b}, "logits", "m") is a
    assert losses.select_output({0: a, "1": b}, "0", "m") is a and losses.select_output({0: a, "1": b}, "1", "m") is b
    assert losses.select_output(Pair(a, b), "aux", "m") is b
    assert losses.select_output(Pair(a, b), "0", "m") is a
    assert losses.select_output([a, b], -1, "m") is b
    assert losses.select_output(Record(a, 3), "logits", "m") is a
    assert losses.select_output(a, "logits", "m") is a  # a lone tensor is the one (GoogLeNet in eval mode)
    for out, key, message in (
            ({"logits": a}, "loss", "model m: its output has no 'loss'; it is a dict with 'logits' (float32 tensor "
                                    "(2, 3))"),
            ((a, b), "2", "its output has no '2'; it is a tuple of 2 with 0 (float32 tensor (2, 3)), 1 (int64 tensor "
                          "(2,))"),
            ((a, b), "logits", "its output has no 'logits'; it is a tuple of 2"),
            (Pair(a, [b]), "aux", "its output 'aux' is a list of 1 with 0 (int64 tensor (2,)), not a tensor"),
            (Record(a, 3), "steps", "its output 'steps' is an int, not a tensor"),
            ({}, "x", "its output has no 'x'; it is an empty dict")):
        with pytest.raises(MemplanTorchError, match=re.escape(message)):
            losses.select_output(out, key, "m")
    assert [t is x for t, x in zip(losses.output_tensors({"l": a, "h": (b, [Record(a, 3)])}), (a, b, a))] == [True] * 3
    w = torch.ones(2, 3, requires_grad=True)
    assert float(losses.output_sum({"l": w * 2, "n": b, "h": (w,)})) == 18.0  # the outputs that require grad
    with pytest.raises(MemplanTorchError, match=re.escape("no output of the model requires grad: it is a dict")):
        losses.output_sum({"l": a})
    many = {f"k{i}": a for i in range(10)}
    assert losses.describe_output(many).endswith("'k7' (float32 tensor (2, 3)), and 2 more")
    assert losses.describe_output(Record(a, 3)) == "a Record with 'logits' (float32 tensor (2, 3)), 'steps' (int)"


def test_mse_loss_ends_the_graph():
    # A regression: the target is a float input of the output's shape, and the only tangent is the loss's.
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 2))
    g = graph_export.export_graph(model, (torch.randn(5, 3),), "r", loss="mse")
    assert {"mse_loss", "mse_loss_backward"} <= {n["op"].split(".")[1] for n in g["nodes"]}
    assert [v["size"] for v in g["values"] if v["kind"] == "input"][-1] == 5 * 2 * 4
    assert [v["size"] for v in g["values"] if v["kind"] == "tangent"] == [4]
    with pytest.raises(MemplanTorchError, match=r"its output \(an int64 tensor of shape \(2,\)\) is not a "
                                                "floating-point tensor with a batch dimension for the mse loss"):
        losses.with_loss(IntegerOutput(), (torch.randn(2, 3),), "mse")


class Recorder(nn.Module):
    """Records the type of each input it runs on; where `dynamic`, runs an op whose output shape depends on the
    data, which fake tensors cannot."""

    def __init__(self, dynamic=False):
        super().__init__()
        self.linear, self.dynamic, self.seen = nn.Linear(3, 4), dynamic, []
        self.register_buffer("scale", torch.ones(4), persistent=False)  # not in the state dict

    def forward(self, x):
        self.seen.append((type(x).__name__, x.shape[0]))
        out = self.linear(x) * self.scale
        return out + torch.nonzero(out).shape[0] if self.dynamic else out


def test_the_loss_target_comes_from_a_run_on_fake_tensors_else_one_real_sample():
    # The output's shape is found without compute (a real run of a large model takes minutes on the CPU),
    # with the whole batch; a model that cannot run on fake tensors runs on one real sample instead.
    model = Recorder()
    _, inputs = losses.with_loss(model, (torch.randn(5, 3),), "cross-entropy")
    assert model.seen == [("FakeTensor", 5)] and inputs[-1].shape == (5,) and model.training
    model = Recorder(dynamic=True)
    _, inputs = losses.with_loss(model, (torch.randn(5, 3),), "cross-entropy")
    assert model.seen == [("FakeTensor", 5), ("Tensor", 1)] and inputs[-1].shape == (5,)


class IntegerOutput(nn.Module):
    """A model whose output is not a floating-point tensor."""

    def forward(self, x):
        return x.argmax(dim=1)


def test_label_smoothing_traces_with_fake_tensors():
    # The smoothed cross-entropy is written out in ops of static sizes: torch 1.13's fake tensors trace it (they
    # refuse its own decomposition) to the graph real tensors give, and it is F.cross_entropy's, value and
    # gradient, ignored targets and autocast included.
    torch.manual_seed(0)
    model, x = ConvBN(), torch.randn(2, 3, 8, 8)
    plain = graph_export.export_graph(model, (x,), "c", loss="cross-entropy")
    smoothed = graph_export.export_graph(model, (x,), "c", fake=True, loss="cross-entropy", label_smoothing=0.1)
    real = graph_export.export_graph(model, (x,), "c", fake=False, loss="cross-entropy", label_smoothing=0.1)
    assert len(smoothed["nodes"]) > len(plain["nodes"])
    assert not [n for n in real["nodes"] if "masked_select" in n["op"]]
    assert [(n["op"], n["outputs"]) for n in smoothed["nodes"] if n["op"] != "aten.detach.default"] == \
        [(n["op"], n["outputs"]) for n in real["nodes"] if n["op"] != "aten.detach.default"]
    assert smoothed["values"] == real["values"]
    for shape, classes in (((6, 10), 10), ((3, 7, 5), 7), ((2, 4, 3, 3), 4)):
        logits = torch.randn(*shape, dtype=torch.float64, requires_grad=True)
        target = torch.randint(0, classes, (shape[0], *shape[2:]))
        target.view(-1)[:2] = -100
        want = nn.functional.cross_entropy(logits, target, label_smoothing=0.2)
        got = losses.smoothed_cross_entropy(logits, target, 0.2)
        assert torch.allclose(got, want)
        assert torch.allclose(torch.autograd.grad(got, logits)[0], torch.autograd.grad(want, logits)[0])
    weight, target = torch.randn(16, 10), torch.randint(0, 10, (6,))
    with torch.autocast("cpu", torch.bfloat16):
        logits = torch.randn(6, 16) @ weight
        assert logits.dtype == torch.bfloat16
        want = nn.functional.cross_entropy(logits, target, label_smoothing=0.1)
        assert torch.equal(losses.smoothed_cross_entropy(logits, target, 0.1), want) and want.dtype == torch.float32
    with pytest.raises(MemplanTorchError, match="label smoothing applies to the cross-entropy loss, not to 'mse'"):
        losses.with_loss(model, (x,), "mse", label_smoothing=0.1)
    with pytest.raises(MemplanTorchError, match="label smoothing 1.5: expected a number from 0 to 1"):
        losses.with_loss(model, (x,), "cross-entropy", label_smoothing=1.5)


def test_the_class_dimension_can_be_chosen():
    # (N, C, L) logits of a 1-d dense-prediction model: by default the classes are last (rank 3, as a language
    # model's (N, T, V)); class_dim=1 (or -2) reads C as the classes against a target (N, L), as torch's
    # cross_entropy takes them, and the schedule's gradients are autograd's.
    from memplan_torch import schedule

    from conftest import recompute_late

    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv1d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv1d(8, 5, 1))
    x = torch.randn(2, 3, 7)

    def target_bytes(g):
        return [v["size"] for v in g["values"] if v["kind"] == "input"][-1]

    assert target_bytes(graph_export.export_graph(model, (x,), "c", loss="cross-entropy")) == 2 * 5 * 8
    dense = graph_export.export_graph(model, (x,), "c", loss="cross-entropy", class_dim=1)
    assert target_bytes(dense) == 2 * 7 * 8
    assert graph_export.export_graph(model, (x,), "c", loss="cross-entropy", class_dim=-2) == dense
    wrapped, inputs = losses.with_loss(model, (x,), "cross-entropy", class_dim=1)
    assert inputs[-1].shape == (2, 7) and int(inputs[-1].max()) < 5
    report = schedule.apply_schedule(wrapped, inputs, dense, recompute_late(dense))
    assert report["schedule_vs_reference_allclose"] and report["reference_vs_autograd_allclose"]
    for class_dim, message in ((0, "class dimension 0 is the batch dimension"),
                               (3, "class dimension 3 is not a dimension of the 3-dimensional logits"),
                               (-4, "class dimension -4 is not a dimension")):
        with pytest.raises(MemplanTorchError, match=f"model Sequential: {message}"):
            losses.with_loss(model, (x,), "cross-entropy", class_dim=class_dim)
    with pytest.raises(MemplanTorchError, match="a class dimension applies to the cross-entropy loss, not to 'mse'"):
        losses.with_loss(model, (x,), "mse", class_dim=1)
    # a target given with the wrong dimension left out: the loss names the class dimension it read
    with pytest.raises(MemplanTorchError, match="class dimension 5 is not"):
        losses.WithLoss(model, class_dim=5)(x, torch.zeros(2, 7, dtype=torch.int64))


def test_cli_class_dim(tmp_path):
    out = tmp_path / "g.json"
    spec = "torch.nn:Conv1d(in_channels=3, out_channels=5, kernel_size=3, padding=1)"
    r = _cli("export-graph", spec, "--batch", "2", "--input-shape", "3,7", "--class-dim", "1", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert [v["size"] for v in json.loads(out.read_text())["values"] if v["kind"] == "input"][-1] == 2 * 7 * 8
    bad = tmp_path / "bad.json"
    r = _cli("export-graph", spec, "--batch", "2", "--input-shape", "3,7", "--class-dim", "0", "-o", str(bad))
    assert r.returncode == 2 and "model Conv1d: class dimension 0 is the batch dimension" in r.stderr, r.stderr
    assert not bad.exists()


def test_autocast_graph_holds_the_casts_and_leaves_no_cast_behind():
    # Traced under autocast, the graph holds autocast's casts, and its matmuls and convolutions make bfloat16.
    # Tracing (fake) and the one-sample run (no_grad) cast the weights inside the caller's autocast region;
    # had those copies stayed in autocast's cache, the caller's own step would have given the weights no
    # gradient (torch 1.13: only the batch-norm parameters got one).
    torch.manual_seed(0)
    model, x = ConvBN(), torch.randn(2, 3, 8, 8)
    plain = graph_export.export_graph(model, (x,), "c", loss="cross-entropy")
    with torch.autocast("cpu", dtype=torch.bfloat16):
        g = graph_export.export_graph(model, (x,), "c", loss="cross-entropy")
        model(x).sum().backward()
    assert all(p.grad is not None for p in model.parameters())
    casts = [n for n in g["nodes"] if n["op"] == "aten._to_copy.default"]
    assert casts and not [n for n in plain["nodes"] if n["op"] == "aten._to_copy.default"]
    conv = _node(g, "aten.convolution.default")[0]
    assert g["values"][conv["outputs"][0]]["size"] == 2 * 4 * 8 * 8 * 2  # bfloat16


class SelfAttention(nn.Module):
    """nn.MultiheadAttention (as in vit_b_16's encoder) and a linear head: logits (batch, tokens, 5)."""

    def __init__(self):
        super().__init__()
        self.mha = nn.MultiheadAttention(16, 2, batch_first=True)
        self.head = nn.Linear(16, 5)

    def forward(self, x):
        return self.head(self.mha(x, x, x, need_weights=False)[0])


def test_the_output_shape_under_autocast_avoids_attentions_inference_path():
    # Eval mode without autograd sends nn.MultiheadAttention down its inference fast path, which torch 1.13
    # takes under CPU autocast too and which fails there on bfloat16 ("expected scalar type BFloat16 but found
    # Float"): the one-sample run keeps autograd on, and the export works.
    torch.manual_seed(0)
    model, x = SelfAttention(), torch.randn(4, 6, 16)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert losses.logits_shape(model, (x,)) == (4, 6, 5)
        g = graph_export.export_graph(model, (x,), "a", loss="cross-entropy")
    assert [n for n in g["nodes"] if n["op"] == "aten._to_copy.default"]
    with pytest.raises(MemplanTorchError, match=r"model IntegerOutput failed on one sample of its input under cpu "
                                                r"autocast \(torch.bfloat16\): IndexError"):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            losses.logits_shape(IntegerOutput(), (torch.randn(2),))


def test_autocast_region_refuses_what_it_cannot_run():
    from memplan_torch import autocast

    with autocast.region("bfloat16"):
        assert autocast.state("cpu") == (True, torch.bfloat16)
    assert autocast.state("cpu")[0] is False
    with pytest.raises(MemplanTorchError, match="autocast 'int8': not a floating-point dtype"):
        with autocast.region("int8"):
            pass
    try:  # torch 1.13's CPU autocast takes only bfloat16 (and turns itself off for float16); later ones more
        with autocast.region("float16"):
            assert autocast.state("cpu") == (True, torch.float16)
    except MemplanTorchError as e:
        assert "cpu autocast does not support torch.float16" in str(e)
    assert autocast.state("cpu")[0] is False


def test_the_command_lines_options_need_no_torch():
    # --help and the graph's export record read memplan_torch.options, which the tracing modules share
    code = ("import sys, memplan_torch.cli, memplan_torch.options as o; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'torch')); "
            "print(o.export_record({'export': {'loss': 'mse'}}, 'g'), o.recorded({}, 'dropout'))")
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python"))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["[]", "{'loss': 'mse'} fused"]
    assert losses.LOSSES is options.LOSSES and graph_export.DROPOUTS is options.DROPOUTS
    with pytest.raises(MemplanTorchError, match="g: export.dropout: 'none' is not a value export-graph writes"):
        options.export_record({"export": {"dropout": "none"}}, "g")
    with pytest.raises(MemplanTorchError, match="g: export.real_tensors: 'yes' is not a value export-graph writes"):
        options.export_record({"export": {"real_tensors": "yes"}}, "g")


def test_unsupported_dtype_names_the_op():
    with pytest.raises(MemplanTorchError, match="op aten.foo.default: unsupported dtype"):
        graph_export._bytes((2, 2), torch.qint8, "aten.foo.default")


def test_untraceable_model_is_a_clear_error():
    class Bad(nn.Module):
        def forward(self, x):
            return x.sum().item() + x  # data-dependent Python control, not traceable

    with pytest.raises(MemplanTorchError, match="cannot be traced"):
        graph_export.export_graph(Bad(), (torch.randn(2, 2, requires_grad=True),), "bad")


def test_a_forward_pass_that_writes_a_parameter_is_named():
    # the module is named before tracing, whatever this torch's trace would make of the write
    model = nn.Sequential(nn.Embedding(30, 8, max_norm=1.0), nn.Linear(8, 30))
    with pytest.raises(MemplanTorchError, match=r"model Sequential: embedding '0' has max_norm 1.0: its forward "
                                                r"pass writes a parameter in place"):
        graph_export.export_graph(model, (torch.randint(0, 30, (4, 6)),), "e", loss="cross-entropy")

    class Functional(nn.Module):  # the same write through torch.nn.functional: torch 1.13's trace names it
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torch.randn(30, 8))

        def forward(self, ids):
            return nn.functional.embedding(ids, self.weight, max_norm=1.0)

    with pytest.raises(MemplanTorchError, match=r"model Functional cannot be traced by aot_module: .* \(its forward "
                                                r"pass writes a parameter in place, as nn.Embedding with max_norm"):
        graph_export.export_graph(Functional(), (torch.randint(0, 30, (4, 6)),), "e", loss="none")


def _cli(*args, path=()):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(REPO, "python"), *map(str, path)]))
    return subprocess.run([sys.executable, "-m", "memplan_torch", *args], env=env, capture_output=True, text=True)


def test_cli_export_and_bad_model(tmp_path):
    out = tmp_path / "g.json"
    r = _cli("export-graph", "memplan_torch.models:gpt_tiny", "--batch", "1", "-o", str(out))
    assert r.returncode == 0, r.stderr
    g = json.loads(out.read_text())
    assert g["name"] == "gpt_tiny_bs1" and len(g["nodes"]) > 50
    views = [v for v in g["values"] if "view_of" in v]
    assert views and f"gpt_tiny_bs1: {len(views)} views (" in r.stderr and "--views-alias" in r.stderr, r.stderr
    assert [n for n in g["nodes"] if "nll_loss" in n["op"]]  # the default: a training step's loss
    r = _cli("export-graph", "memplan_torch.models:gpt_tiny", "--batch", "1", "--loss", "none", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert not [n for n in json.loads(out.read_text())["nodes"] if "nll_loss" in n["op"]]
    bad = tmp_path / "bad.json"
    r = _cli("export-graph", "torchvision:no_such_model", "-o", str(bad))
    assert r.returncode == 2 and "no constructor 'no_such_model'" in r.stderr
    assert not bad.exists() and not list(tmp_path.glob(".tmp-*"))
    for spec, message in (("torchvision:resnet18(num_classes=x)", "constructor arguments must be NAME=LITERAL"),
                          ("torchvision:resnet18(colour=1)", "the constructor failed: TypeError: .*'colour'"),
                          ("torchvision:resnet18(num_classes=10", "expected .* the closing parenthesis last"),
                          ("torchvision:resnet18()+f()", "constructor arguments must be NAME=LITERAL")):
        r = _cli("export-graph", spec, "-o", str(bad))
        assert r.returncode == 2 and re.search(f"model '{re.escape(spec)}': {message}", r.stderr), r.stderr
        assert not bad.exists()


def test_fused_attention_with_dropout_is_a_random_node():
    # F.scaled_dot_product_attention's kernels (torch 2.x) draw their dropout mask themselves when dropout_p > 0
    # (their backward regenerates it from the returned seed): such a node must run once; without dropout it is
    # deterministic, and its backward always is.
    args = "(Tensor query, Tensor key, Tensor value, Tensor? attn_bias, bool compute_log_sumexp, " \
        "float dropout_p=0.0, bool is_causal=False, *, float? scale=None) -> (Tensor, Tensor, Tensor, Tensor)"
    forward = StandInOp("aten::_scaled_dot_product_efficient_attention" + args)
    backward = StandInOp("aten::_scaled_dot_product_efficient_attention_backward" + args)
    g = torch.fx.Graph()
    q, k, v = (g.placeholder(n) for n in "qkv")
    nodes = [g.call_function(forward, (q, k, v, None, True, 0.1)), g.call_function(forward, (q, k, v, None, True)),
             g.call_function(forward, (q, k, v, None, True), {"dropout_p": 0.2}),
             g.call_function(backward, (q, k, v, None, True, 0.1))]
    assert [graph_export.is_random_node(n) for n in nodes] == [True, False, True, False]
    assert graph_export.is_random_node(g.call_function(torch.ops.aten.bernoulli.p, (q, 0.5)))


def test_cli_device_names_what_is_wrong(tmp_path):
    out = tmp_path / "g.json"
    r = _cli("export-graph", "memplan_torch.models:gpt_tiny", "--batch", "1", "--device", "nonsense", "-o", str(out))
    assert r.returncode == 2 and "--device 'nonsense': not a torch device" in r.stderr, r.stderr
    if not torch.cuda.is_available():
        r = _cli("export-graph", "memplan_torch.models:gpt_tiny", "--batch", "1", "--device", "cuda", "-o", str(out))
        assert r.returncode == 2 and "--device 'cuda': torch " in r.stderr and "sees no CUDA device" in r.stderr
    assert not out.exists()


def test_cli_shows_progress_on_a_terminal_only(tmp_path):
    # On a terminal the phase and its elapsed seconds are one status line, cleared at the end; in a pipe
    # (every other test) stderr holds the summary line alone.
    import pty

    args = [sys.executable, "-m", "memplan_torch", "export-graph", "memplan_torch.models:gpt_tiny", "--batch", "1",
            "-o", str(tmp_path / "g.json")]
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python"))
    master, terminal = pty.openpty()
    run = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=terminal)
    os.close(terminal)
    shown = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the terminal closed: the command ended
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    assert run.wait() == 0
    text = shown.decode()
    assert re.search(r"\r\x1b\[Kgpt_tiny_bs1: tracing the joint graph with fake tensors \(real ones where those "
                     r"fail\) \.\.\. \d+ s", text), text
    assert re.search(r"\r\x1b\[Kgpt_tiny_bs1: \d+ nodes", text), text  # cleared before the summary
    piped = _cli(*args[3:])
    assert piped.returncode == 0 and "gpt_tiny_bs1: " in piped.stderr and "\r" not in piped.stderr


def test_a_model_specification_can_pass_keyword_arguments(tmp_path):
    assert models.load_model("torchvision:resnet18(num_classes=10)").fc.out_features == 10
    googlenet = models.load_model("torchvision:googlenet(aux_logits=False, init_weights=False)")
    assert googlenet.aux1 is None and googlenet.aux2 is None
    assert models.load_model("memplan_torch.models:GPT(vocab=64, seq_len=8, dim=16, heads=2, layers=1)").seq_len == 8
    out = tmp_path / "g.json"
    r = _cli("export-graph", "memplan_torch.models:GPT(vocab=64, seq_len=8, dim=16, heads=2, layers=1)", "--batch",
             "2", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert json.loads(out.read_text())["name"] == "GPT_bs2"  # named without the arguments


def test_example_inputs_per_shape_and_dtype():
    plain = nn.Linear(3, 3)
    xs = models.example_inputs(plain, 2, [(5,), (5,), (4, 3)], ["int64", "bool", "float16"])
    assert [(tuple(x.shape), x.dtype) for x in xs] == [((2, 5), torch.int64), ((2, 5), torch.bool),
                                                       ((2, 4, 3), torch.float16)]
    assert int(xs[0].max()) <= 1  # token ids and masks: 0 or 1
    assert [x.dtype for x in models.example_inputs(plain, 2, [(5,), (5,)], ["int32"])] == [torch.int32] * 2
    assert [tuple(x.shape) for x in models.example_inputs(plain, 2)] == [(2, 3, 224, 224)]  # an image batch
    assert models.example_inputs(plain, 1, [(2,)], ["int"])[0].dtype == torch.int32  # torch's alias
    for dtypes, message in ((["int64"] * 3, "--input-dtype given 3 times for 2 --input-shape"),
                            (["complex64"], "--input-dtype 'complex64': expected a floating-point, integer or bool"),
                            (["qint8"], "--input-dtype 'qint8': expected a floating-point, integer or bool")):
        with pytest.raises(MemplanTorchError, match=re.escape(message)):
            models.example_inputs(plain, 1, [(2,), (2,)], dtypes)


def test_cli_autocast_label_smoothing_and_a_real_schedule(tmp_path):
    # export-graph, memplan remat and apply-schedule with the same --autocast and --label-smoothing: the
    # schedule's gradients are autograd's under autocast; a mismatch of the options is named.
    memplan = memplan_binary()
    if memplan is None:
        pytest.skip("memplan is not built")
    spec, common = "memplan_torch.models:GPT(vocab=64, seq_len=64, dim=32, heads=2, layers=2)", ["--batch", "8"]
    mixed = ["--autocast", "bfloat16", "--label-smoothing", "0.1"]
    g, s, report = tmp_path / "g.json", tmp_path / "s.json", tmp_path / "r.json"
    r = _cli("export-graph", spec, *common, *mixed, "-o", str(g))
    assert r.returncode == 0, r.stderr
    assert [n for n in json.loads(g.read_text())["nodes"] if n["op"] == "aten._to_copy.default"]
    run = subprocess.run([memplan, "remat", str(g), "--budget", "60%", "--time-limit", "2", "--quiet", "-o", str(s)],
                         capture_output=True, text=True)
    assert run.returncode in (0, 1), run.stderr
    r = _cli("apply-schedule", spec, *common, *mixed, "--graph", str(g), "--schedule", str(s), "-o", str(report),
             "--rtol", "2e-4")
    assert r.returncode == 0, r.stderr
    rep = json.loads(report.read_text())
    assert rep["recomputed_steps"] > 0 and (rep["rtol"], rep["atol"]) == (2e-4, 1e-5)
    assert rep["schedule_vs_reference_allclose"] and rep["reference_vs_autograd_allclose"]
    # the graph records its export's options: apply-schedule takes those it is not given from there
    record = json.loads(g.read_text())["export"]
    assert record["label_smoothing"] == 0.1 and record["autocast"] == "bfloat16"
    assert (record["device"], record["real_tensors"], record["recompute_batch_norm"]) == ("cpu", False, False)
    r = _cli("apply-schedule", "--graph", str(g), "--schedule", str(s), "-o", str(report))
    assert r.returncode == 0, r.stderr
    assert f"as the graph was exported: {spec} --label-smoothing 0.1 --autocast bfloat16" in r.stderr, r.stderr
    assert json.loads(report.read_text())["schedule_vs_reference_allclose"]
    r = _cli("apply-schedule", spec, *common, "--loss", "none", "--graph", str(g), "--schedule", str(s))
    assert r.returncode == 2 and "export it again with the same --model-output, --loss, --label-smoothing, " \
        "--class-dim, --dropout and --autocast" in r.stderr, r.stderr
    assert "note: --loss none differs from the graph's export (--loss cross-entropy)" in r.stderr
    edited = json.loads(g.read_text())
    edited["export"]["batch"] = "eight"
    g.write_text(json.dumps(edited))
    r = _cli("apply-schedule", spec, "--graph", str(g), "--schedule", str(s))
    assert r.returncode == 2 and f"{g}: export.batch: 'eight' is not a value export-graph writes" in r.stderr
    del edited["export"]
    g.write_text(json.dumps(edited))
    r = _cli("apply-schedule", "--graph", str(g), "--schedule", str(s))
    assert r.returncode == 2 and f"{g}: the graph records no model (exported before 2026-12-02, or not by " \
        "export-graph): give MODEL" in r.stderr, r.stderr
    r = _cli("apply-schedule", spec, *common, "--graph", str(g), "--schedule", str(s), "--atol", "-1")
    assert r.returncode == 2 and "argument --atol: '-1': expected a finite number, 0 or more" in r.stderr
    r = _cli("export-graph", spec, *common, "--autocast", "int8", "-o", str(tmp_path / "bad.json"))
    assert r.returncode == 2 and "autocast 'int8': not a floating-point dtype" in r.stderr
    assert not (tmp_path / "bad.json").exists()


DICT_MODEL = """
import collections
import dataclasses

import torch
from torch import nn


class Tagger(nn.Module):
    # As a Hugging Face token classifier: a dict of logits and hidden states; dropout on the path to the logits.
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(50, 16)
        self.blocks = nn.Sequential(nn.Linear(16, 16), nn.GELU(), nn.Dropout(0.1), nn.Linear(16, 16))
        self.head = nn.Linear(16, 5)

    def forward(self, ids):
        h = self.blocks(self.embed(ids))
        return {"logits": self.head(h), "hidden_states": (h,)}

    def example_input(self, batch):
        return torch.randint(0, 50, (batch, 12))


class MaskedTagger(Tagger):
    # Two inputs, as a Hugging Face encoder takes token ids and an attention mask; its example_input is both.
    def forward(self, ids, mask):
        return super().forward(ids)["logits"] * mask.unsqueeze(-1)

    def example_input(self, batch):
        return torch.randint(0, 50, (batch, 12)), torch.ones(batch, 12, dtype=torch.int64)


class ModelOutput(collections.OrderedDict):
    # As Hugging Face's: an OrderedDict subclass, which torch 1.13's pytree does not know.
    pass


class OrderedTagger(Tagger):
    def forward(self, ids):
        return ModelOutput(super().forward(ids))


@dataclasses.dataclass
class TaggerOutput:
    logits: torch.Tensor
    hidden: torch.Tensor


class DataclassTagger(Tagger):
    def forward(self, ids):
        out = super().forward(ids)
        return TaggerOutput(out["logits"], out["hidden_states"][0])


class SelfLossTagger(Tagger):
    # As a Hugging Face model computes its own loss when it is given labels= (a keyword input).
    def forward(self, ids, mask=None, labels=None):
        out = super().forward(ids)
        if labels is not None:
            out["loss"] = nn.functional.cross_entropy(out["logits"].flatten(0, 1), labels.flatten())
        return out
"""


@pytest.fixture
def dict_models(tmp_path):
    """memplan, with the models of DICT_MODEL importable from tmp_path as dict_model (skips without memplan)."""
    memplan = memplan_binary()
    if memplan is None:
        pytest.skip("memplan is not built")
    (tmp_path / "dict_model.py").write_text(DICT_MODEL)
    return memplan


def _export_plan_apply(memplan, folder, spec, args):
    """Exports `spec` (a model in `folder`) with the CLI arguments `args`, plans it at 70 % with memplan remat and
    applies the schedule with the same arguments, checking that each step succeeds and that the gradients equal
    autograd's; the graph."""
    g, s, report = (folder / n for n in ("g.json", "s.json", "r.json"))
    r = _cli("export-graph", spec, *args, "-o", str(g), path=[folder])
    assert r.returncode == 0, r.stderr
    run = subprocess.run([memplan, "remat", str(g), "--budget", "70%", "--time-limit", "1", "--quiet", "-o", str(s)],
                         capture_output=True, text=True)
    assert run.returncode in (0, 1), run.stderr
    r = _cli("apply-schedule", spec, *args, "--graph", str(g), "--schedule", str(s), "-o", str(report), path=[folder])
    assert r.returncode == 0, r.stderr
    applied = json.loads(report.read_text())
    assert applied["schedule_vs_reference_allclose"] and applied["reference_vs_autograd_allclose"], spec
    return json.loads(g.read_text())


def test_cli_model_output_selects_what_the_loss_takes(tmp_path, dict_models):
    # A model that returns a dict: refused with its keys named, then exported, planned, applied and traced with
    # --model-output logits; --checkpoint names the model's own submodules.
    memplan = dict_models
    spec, common = "dict_model:Tagger", ["--batch", "4"]
    g, csv = tmp_path / "g.json", tmp_path / "t.csv"
    r = _cli("export-graph", spec, *common, "-o", str(g), path=[tmp_path])
    assert r.returncode == 2 and "its output is a dict with 'logits' (float32 tensor (4, 12, 5)), 'hidden_states' " \
        "(tuple), not the tensor that the cross-entropy loss takes; choose the tensor the loss takes with " \
        "--model-output KEY" in r.stderr, r.stderr
    assert not g.exists()
    graph = _export_plan_apply(memplan, tmp_path, spec, [*common, "--model-output", "logits"])
    assert graph["name"] == "Tagger_bs4" and [n for n in graph["nodes"] if "nll_loss" in n["op"]]
    r = _cli("trace", spec, *common, "--model-output", "logits", "--checkpoint", "blocks", "--loss", "cross-entropy",
             "-o", str(csv), path=[tmp_path])
    assert r.returncode == 0, r.stderr
    meta = json.loads((tmp_path / "t.meta.json").read_text())
    assert meta["model_output"] == "logits" and meta["checkpointed"] == ["blocks"] and meta["steady"]
    # --loss none ends the graph at every output: the logits and the hidden states each get a tangent, and
    # apply-schedule's autograd reference backpropagates the sum of them all.
    graph = _export_plan_apply(memplan, tmp_path, spec, [*common, "--loss", "none"])
    assert [v["size"] for v in graph["values"] if v["kind"] == "tangent"] == [4 * 12 * 5 * 4, 4 * 12 * 16 * 4]
    bad = tmp_path / "bad.csv"
    r = _cli("trace", spec, *common, "--model-output", "hidden_states", "-o", str(bad), path=[tmp_path])
    assert r.returncode == 2 and "model Tagger: its output 'hidden_states' is a tuple of 1 with 0 (float32 tensor " \
        "(4, 12, 16)), not a tensor" in r.stderr, r.stderr
    assert not bad.exists()


def test_cli_loss_none_on_outputs_torchs_pytree_may_not_know(tmp_path, dict_models):
    # An OrderedDict subclass (Hugging Face's ModelOutput) and a dataclass: the graph of --loss none ends at the
    # tensors in them, in order, as for a plain dict; planned and applied, gradients equal autograd's.
    memplan = dict_models
    for spec in ("dict_model:OrderedTagger", "dict_model:DataclassTagger"):
        graph = _export_plan_apply(memplan, tmp_path, spec, ["--batch", "4", "--loss", "none"])
        assert [v["size"] for v in graph["values"] if v["kind"] == "tangent"] == [4 * 12 * 5 * 4, 4 * 12 * 16 * 4]


def test_cli_keyword_inputs(tmp_path, dict_models):
    # --input-shape NAME=SHAPE passes that input by keyword: a model that computes its own loss from labels= is
    # exported with its loss (--model-output loss --loss none), planned, applied and traced; a name its forward
    # does not take, a name given twice and a malformed NAME=SHAPE are errors that say so.
    memplan = dict_models
    spec = "dict_model:SelfLossTagger"
    own = ["--batch", "3", "--input-shape", "12", "--input-shape", "labels=12", "--input-dtype", "int64",
           "--model-output", "loss"]
    graph = _export_plan_apply(memplan, tmp_path, spec, [*own, "--loss", "none"])
    assert [v["size"] for v in graph["values"] if v["kind"] == "input"][-2:] == [3 * 12 * 8, 3 * 12 * 8]
    assert [n for n in graph["nodes"] if "nll_loss_backward" in n["op"]]  # the model's own loss and its backward
    assert [v["size"] for v in graph["values"] if v["kind"] == "tangent"] == [4]  # the scalar loss's tangent
    r = _cli("trace", spec, *own, "--loss", "mean", "--checkpoint", "blocks", "-o", str(tmp_path / "t.csv"),
             path=[tmp_path])
    assert r.returncode == 0, r.stderr
    meta = json.loads((tmp_path / "t.meta.json").read_text())
    assert meta["input_shapes"] == ["12", "labels=12"] and meta["input_dtypes"] == ["int64"]
    assert meta["checkpointed"] == ["blocks"] and meta["steady"]
    bad = tmp_path / "bad.json"
    for shapes, message in ((["12", "label=12"], "model SelfLossTagger: its forward takes no keyword 'label' (it "
                             "takes ids, mask, labels)"),
                            (["12", "labels=12", "labels=12"], "model SelfLossTagger: the keyword 'labels' names more "
                             "than one input"),
                            (["12", "1abels=12"], "--input-shape '1abels=12': expected NAME=SHAPE with NAME a "
                             "keyword argument of the model's forward"),
                            (["12", "labels=x"], "--input-shape 'labels=x': expected positive integers separated "
                             "by commas after 'labels='")):
        args = [a for shape in shapes for a in ("--input-shape", shape)]
        r = _cli("export-graph", spec, "--batch", "3", *args, "--input-dtype", "int64", "-o", str(bad),
                 path=[tmp_path])
        assert r.returncode == 2 and message in r.stderr, r.stderr
    assert not bad.exists()


def test_cli_models_of_several_inputs(tmp_path, dict_models):
    # --input-shape once per input (one --input-dtype for all, or one each), or the model's own example_input
    # returning a tuple: exported, planned, applied and traced; a count of dtypes that fits no rule is an error.
    memplan = dict_models
    spec = "dict_model:MaskedTagger"
    two = ["--batch", "3", "--input-shape", "12", "--input-shape", "12", "--input-dtype", "int64"]
    graph = _export_plan_apply(memplan, tmp_path, spec, two)
    inputs = [v["size"] for v in graph["values"] if v["kind"] == "input"]
    assert inputs[-3:] == [3 * 12 * 8, 3 * 12 * 8, 3 * 12 * 8]  # the ids, the mask, then the target
    # The model's own example_input makes the same shapes and dtypes: the same graph.
    r = _cli("export-graph", spec, "--batch", "3", "-o", str(tmp_path / "own.json"), path=[tmp_path])
    assert r.returncode == 0, r.stderr
    own = json.loads((tmp_path / "own.json").read_text())
    assert [(n["op"], n["inputs"], n["outputs"]) for n in own["nodes"]] == \
        [(n["op"], n["inputs"], n["outputs"]) for n in graph["nodes"]]
    r = _cli("trace", spec, "--batch", "3", "--input-shape", "12", "--input-dtype", "int64", "--input-shape", "12",
             "--input-dtype", "bool", "-o", str(tmp_path / "t.csv"), path=[tmp_path])
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / "t.meta.json").read_text())["steady"]
    bad = tmp_path / "bad.json"
    r = _cli("export-graph", spec, *two, "--input-dtype", "int64", "--input-dtype", "int64", "-o", str(bad),
             path=[tmp_path])
    assert r.returncode == 2 and "--input-dtype given 3 times for 2 --input-shape: give one dtype for every input, " \
        "or one for each, in order" in r.stderr, r.stderr
    r = _cli("export-graph", spec, "--batch", "3", "--input-shape", "12", "-o", str(bad), path=[tmp_path])
    assert r.returncode == 2 and "model MaskedTagger failed on one sample of its input: TypeError" in r.stderr \
        and "'mask'" in r.stderr, r.stderr
    assert not bad.exists()
