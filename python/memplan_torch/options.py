"""The choices and defaults of memplan-torch's options, and the record of them that export-graph writes into a
graph. Torch-free: the command line's --help, the graph's record and the modules that trace all read them here.
"""

from .errors import MemplanTorchError

# What export-graph can put at the end of the forward pass: "cross-entropy" (the model's output read as
# logits, the classes where losses.resolve_class_dim says, against an integer target that becomes a graph
# input), "mse" (the mean squared error of the output against a target of its shape and dtype, for regression
# and denoising models) or "none" (the graph ends at the model's outputs; their gradients are tangent inputs,
# resident throughout).
LOSSES = ("cross-entropy", "mse", "none")

# How dropout appears in the joint graph (export-graph --dropout; graph_export.dropout_as):
# - "fused": aten.native_dropout, the fused kernel that CUDA runs (its mask, kept for the backward, is bool:
#   1 byte per element), split in two (graph_export.split_fused_dropout): the random step keeps only the mask,
#   and the output is input * mask * scale, a deterministic step that may be recomputed;
# - "decomposed": what torch.nn.functional.dropout runs on the CPU (a float bernoulli_ tensor scaled by 1/(1-p),
#   kept for the backward: 4 bytes per element), written out: torch 1.13 also traces it so on fake tensors,
#   but torch 2.x traces dropout as native_dropout on every device.
# The plans are for GPU training, so "fused" is the default.
DROPOUTS = ("fused", "decomposed")

# What ends an iteration that `trace` records: the mean of the output (as the committed traces and the GPU
# run), or the losses export-graph ends its graphs with.
TRACE_LOSSES = ("mean", "cross-entropy", "mse")

# The options of export-graph that decide the graph, with their defaults. export-graph records them in the
# graph ("export"); apply-schedule and ScheduledStep take each one they are not given from there.
EXPORT_OPTIONS = {"batch": 8, "input_shape": None, "input_dtype": None, "seed": 0, "model_output": None,
                  "loss": "cross-entropy", "label_smoothing": 0.0, "class_dim": None, "dropout": "fused",
                  "autocast": None}

# The rest of what export-graph records of its command line, with its defaults: how the graph was traced (on
# which device, real tensors forced, training-mode batch norm marked recomputable). A record of where the graph
# came from, so that it can be made again; apply-schedule needs none of it.
TRACE_OPTIONS = {"device": "cpu", "real_tensors": False, "recompute_batch_norm": False}


def _names(v):
    """Whether `v` is what export-graph records of a repeatable option: none, or a list of strings."""
    return v is None or (isinstance(v, list) and all(isinstance(x, str) for x in v))


def _integer(v):
    """Whether `v` is a JSON integer (bool excluded: Python counts it as one)."""
    return isinstance(v, int) and not isinstance(v, bool)


# What export-graph may write for each option (a record may lack any of them).
_RECORDED = {"batch": lambda v: _integer(v) and v > 0, "seed": _integer, "input_shape": _names,
             "input_dtype": _names, "model_output": lambda v: v is None or isinstance(v, str),
             "loss": lambda v: v in LOSSES, "label_smoothing": lambda v: _integer(v) or isinstance(v, float),
             "dropout": lambda v: v in DROPOUTS, "class_dim": lambda v: v is None or _integer(v),
             "autocast": lambda v: v is None or isinstance(v, str), "device": lambda v: isinstance(v, str),
             "real_tensors": lambda v: isinstance(v, bool), "recompute_batch_norm": lambda v: isinstance(v, bool)}


def export_record(graph, where):
    """The options export-graph was given that `graph` records ("export"; none in graphs exported before
    2026-12-02), each checked to be what export-graph writes (errors name `where` and the field)."""
    record = graph.get("export", {})
    if not isinstance(record, dict):
        raise MemplanTorchError(f"{where}: export: expected an object (the options export-graph was given)")
    for key, valid in _RECORDED.items():
        if key in record and not valid(record[key]):
            raise MemplanTorchError(f"{where}: export.{key}: {record[key]!r} is not a value export-graph writes")
    return record


def recorded(record, key):
    """Option `key` as `record` (an export_record) holds it, else export-graph's default."""
    return record.get(key, EXPORT_OPTIONS[key])
