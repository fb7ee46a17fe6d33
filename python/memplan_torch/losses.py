"""What ends the forward pass of a traced training step: the loss (cross-entropy of logits, mean squared
error, or a loss function of the user's) wrapped around the model with its target, so that the joint graph
holds the loss and its backward as a training step does; or nothing ("none"), the graph then ending at the
model's outputs. Where a model returns more than the loss takes (a dict such as Hugging Face's ModelOutput, a
named tuple, a tuple), SelectOutput narrows it to the one tensor the loss takes; KeywordInputs passes some
inputs by keyword (a model that computes its own loss from `labels=`)."""

import dataclasses
import inspect
from collections.abc import Mapping

import torch
from torch import nn

from . import autocast
from .errors import MemplanTorchError
from .options import LOSSES, recorded
from .rnn import rnn_weights_follow_swaps


class CrossEntropy:
    """export-graph's cross-entropy loss as a loss function: loss(logits, target) -> the mean over every position
    of the logits, with `label_smoothing` (0 to 1, as torch's cross_entropy takes it), the classes in dimension
    `class_dim` (resolve_class_dim; default: by the logits' rank), against an int64 target of the logits' shape
    without that dimension. Classes last ((N, C), or (N, T, V) of a sequence model) are flattened to (·, C);
    other logits go to torch's cross_entropy with the classes moved to dimension 1. Where a loss function is
    taken (ScheduledStep, export_graph), CrossEntropy(label_smoothing=0.1) traces as `export-graph
    --label-smoothing 0.1` does, and needs no example target: one is drawn as for "cross-entropy".

    Label smoothing is written out (smoothed_cross_entropy), not left to torch's cross_entropy: torch 1.13's
    decomposition fills a mask in place with a real 0-dim tensor, which its fake tensors refuse, and takes the
    mean of a masked_select, whose size depends on the target's values."""

    def __init__(self, label_smoothing=0.0, class_dim=None):
        if not 0.0 <= label_smoothing <= 1.0:
            raise MemplanTorchError(f"label smoothing {label_smoothing}: expected a number from 0 to 1")
        self.label_smoothing = label_smoothing
        self.class_dim = class_dim

    def __call__(self, logits, target):
        dim = resolve_class_dim(logits.dim(), self.class_dim)
        if dim == logits.dim() - 1:
            logits, target = logits.reshape(-1, logits.shape[-1]), target.reshape(-1)
        else:
            logits = logits.movedim(dim, 1)
        if self.label_smoothing:
            return smoothed_cross_entropy(logits, target, self.label_smoothing)
        return nn.functional.cross_entropy(logits, target)

    def __repr__(self):
        return f"CrossEntropy(label_smoothing={self.label_smoothing}, class_dim={self.class_dim})"


def smoothed_cross_entropy(logits, target, label_smoothing, ignore_index=-100):
    """F.cross_entropy(logits, target, label_smoothing=...) with the mean reduction, classes in dimension 1, in
    ops whose output sizes do not depend on the values: (1 - ε) · the mean negative log-likelihood of the
    targets + ε / C · the mean over the targets not ignored of -Σ_c log p_c. Autocast runs cross_entropy in
    float32 (on CUDA and CPU), not its parts: so float16 and bfloat16 logits are cast to float32 here under it."""
    if autocast.state(logits.device.type)[0] and logits.dtype in (torch.float16, torch.bfloat16):
        logits = logits.float()
    log_p = nn.functional.log_softmax(logits, 1)
    nll = nn.functional.nll_loss(log_p, target, ignore_index=ignore_index)
    kept = target != ignore_index
    uniform = torch.where(kept, -log_p.sum(1), log_p.new_zeros(())).sum() / kept.sum()
    return (1 - label_smoothing) * nll + uniform * (label_smoothing / logits.shape[1])


def loss_function(loss, label_smoothing=0.0, class_dim=None):
    """`loss` as what WithLoss calls: "cross-entropy" becomes CrossEntropy(label_smoothing, class_dim); "mse",
    "none" and loss functions stay as they are. An error where the cross-entropy's options are given for
    another loss, or `loss` is none of LOSSES and not callable."""
    if not callable(loss) and loss not in LOSSES:
        raise MemplanTorchError(f"loss '{loss}': expected one of {', '.join(LOSSES)}, or a loss function")
    if isinstance(loss, str) and loss == "cross-entropy":
        return CrossEntropy(label_smoothing, class_dim)
    for given, what in ((label_smoothing, "label smoothing"), (class_dim is not None, "a class dimension")):
        if given and isinstance(loss, CrossEntropy):
            raise MemplanTorchError(f"{what} for a CrossEntropy loss is given to CrossEntropy itself")
        if given:
            raise MemplanTorchError(f"{what} applies to the cross-entropy loss, not to "
                                    f"{'a loss function' if callable(loss) else repr(loss)}")
    return loss


def exported_loss(record):
    """The loss a graph was exported with, from its options.export_record (loss_function: CrossEntropy
    with its options, "mse" or "none"; export-graph's default where the record has none)."""
    return loss_function(*(recorded(record, key) for key in ("loss", "label_smoothing", "class_dim")))


class WithLoss(nn.Module):
    """`model` followed by its training loss, so that the joint graph holds the loss and its backward as a
    training step does: forward(*inputs, target) -> the scalar loss. `loss`: "cross-entropy" (CrossEntropy with
    `label_smoothing` and `class_dim`), "mse", or a loss function of the user's, loss(output, target) -> a
    floating-point scalar tensor."""

    def __init__(self, model, loss="cross-entropy", label_smoothing=0.0, class_dim=None):
        super().__init__()
        self.model = model
        self.loss = loss_function(loss, label_smoothing, class_dim)

    def forward(self, *inputs_and_target):
        *inputs, target = inputs_and_target
        out = self.model(*inputs)
        builtin = ("cross-entropy" if isinstance(self.loss, CrossEntropy) else
                   self.loss if isinstance(self.loss, str) else None)  # "mse"
        if builtin and not isinstance(out, torch.Tensor):  # e.g. GoogLeNet's auxiliary outputs in training mode
            raise MemplanTorchError(f"model {model_name(self.model)}: in training mode its output is "
                                    f"{describe_output(out)}, not the tensor that the {builtin} loss takes; "
                                    f"{NOT_A_TENSOR_EXPORT_HINT}")
        if builtin == "mse":
            return nn.functional.mse_loss(out, target)
        if builtin:
            resolve_class_dim(out.dim(), self.loss.class_dim, model_name(self.model))  # its errors name the model
        value = self.loss(out, target)
        if not isinstance(value, torch.Tensor) or value.dim() != 0 or not value.dtype.is_floating_point:
            raise MemplanTorchError(f"model {model_name(self.model)}: the loss function returned "
                                    f"{describe_output(value)}, not a floating-point scalar tensor")
        return value


def resolve_class_dim(rank, class_dim=None, model=None):
    """Where the classes are in logits of `rank` dimensions: dimension `class_dim` where given (negative from the
    end: -1 is the last), else the last for a classifier's (N, C) and a sequence model's (N, T, V), and
    dimension 1 for dense prediction, (N, C, H, W) of a segmentation model and beyond, as torch's cross_entropy
    takes them; (N, C, L) of a 1-d one needs class_dim=1. The target is the logits' shape without that
    dimension. An error (naming `model` where given) where `class_dim` is the batch dimension or outside the
    logits."""
    if class_dim is None:
        return 1 if rank >= 4 else rank - 1
    dim = class_dim + rank if class_dim < 0 else class_dim
    if not 1 <= dim < rank:
        where = "the batch dimension" if dim == 0 else f"not a dimension of the {rank}-dimensional logits"
        raise MemplanTorchError(f"{f'model {model}: ' if model else ''}class dimension {class_dim} is {where}")
    return dim


# What to do about a model output that is not one tensor (the end of each error that finds one); the graph's
# exporters can also end the graph at every output.
NOT_A_TENSOR_HINT = "choose the tensor the loss takes with --model-output KEY (its key, field or position)"
NOT_A_TENSOR_EXPORT_HINT = f"{NOT_A_TENSOR_HINT}, or end the graph at every output with --loss none"


class SelectOutput(nn.Module):
    """`model` with its output narrowed to the one tensor a loss takes: `key` names it in a mapping (a dict,
    Hugging Face's ModelOutput), a named tuple, a dataclass or any object with attributes, or, as an integer
    (or its digits), gives its position in a tuple or list. An output that is one tensor is the one: GoogLeNet,
    for one, returns its logits alone in eval mode and with its auxiliary logits in training.

    The outputs not selected get no gradient, and the joint graph leaves out what computes only them (aot's
    dead-code elimination), as a step that drops them early would. Random ops among those (GoogLeNet's
    auxiliary dropout) then draw nothing in the graph, where the model's own forward pass draws for them: the
    graph's later dropout masks differ from autograd's, and so do the gradients."""

    def __init__(self, model, key):
        super().__init__()
        self.model = model
        self.key = key

    def forward(self, *inputs):
        return select_output(self.model(*inputs), self.key, model_name(self.model))


class KeywordInputs(nn.Module):
    """`model` called with some of its inputs by keyword, as Hugging Face's models take `labels=`:
    forward(*inputs) passes inputs[i] as the keyword names[i], or by position where names[i] is None (positional
    inputs keep their order). The joint graph, traces and schedules see one tuple of inputs, as for any model."""

    def __init__(self, model, names):
        super().__init__()
        self.model = model
        self.names = tuple(names)
        keywords = [name for name in self.names if name is not None]
        repeated = sorted({name for name in keywords if keywords.count(name) > 1})
        if repeated:
            raise MemplanTorchError(f"model {model_name(model)}: the keyword '{repeated[0]}' names more than one input")
        try:
            parameters = inspect.signature(model.forward).parameters
        except (TypeError, ValueError):  # a builtin's forward: nothing to check against
            return
        if any(p.kind == p.VAR_KEYWORD for p in parameters.values()):
            return
        known = [n for n, p in parameters.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        for name in self.names:
            if name is not None and name not in known:
                raise MemplanTorchError(f"model {model_name(model)}: its forward takes no keyword '{name}' (it "
                                        f"takes {', '.join(known) or 'none'})")

    def forward(self, *inputs):
        if len(inputs) != len(self.names):
            raise MemplanTorchError(f"model {model_name(self.model)}: {len(inputs)} inputs given for "
                                    f"{len(self.names)} named ({', '.join(str(n) for n in self.names)})")
        positional = [x for x, n in zip(inputs, self.names) if n is None]
        return self.model(*positional, **{n: x for x, n in zip(inputs, self.names) if n is not None})


class TensorOutputs(nn.Module):
    """`model` with its output as the tensors in it (output_tensors; a lone tensor stays as it is): what the
    graph of --loss none ends at. aot_module flattens outputs with torch's pytree, which in torch 1.13 knows
    dicts, lists and tuples only, not Hugging Face's ModelOutput (an OrderedDict subclass) nor a dataclass;
    where it knows them, the order is the same."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, *inputs):
        out = self.model(*inputs)
        return out if isinstance(out, torch.Tensor) else tuple(output_tensors(out))


def select_output(out, key, name):
    """The tensor at `key` in the output `out` of the model named `name` (SelectOutput), or `out` itself where it
    is a tensor; an error that says what the output holds where there is no tensor at `key`."""
    if isinstance(out, torch.Tensor):
        return out
    position = key if isinstance(key, int) else int(key) if str(key).lstrip("-").isdigit() else None
    missing = object()
    if isinstance(out, Mapping):  # a key given as digits may be an integer key
        value = out.get(key, missing) if key in out or position is None else out.get(position, missing)
    elif isinstance(out, (tuple, list)) and position is not None:
        value = out[position] if -len(out) <= position < len(out) else missing
    elif isinstance(key, str):
        value = getattr(out, key, missing)
    else:
        value = missing
    if value is missing:
        raise MemplanTorchError(f"model {name}: its output has no '{key}'; it is {describe_output(out)}")
    if not isinstance(value, torch.Tensor):
        raise MemplanTorchError(f"model {name}: its output '{key}' is {describe_output(value)}, not a tensor")
    return value


def describe_output(out):
    """What a model output holds, for messages: "a float32 tensor of shape (4, 10)", "a dict with 'logits'
    (float32 tensor (4, 10)), 'hidden' (tuple)", "a tuple of 2 with 0 (float32 tensor (4, 10)), 1 (list)"."""
    def brief(v):
        return f"{str(v.dtype)[6:]} tensor {tuple(v.shape)}" if isinstance(v, torch.Tensor) else type(v).__name__

    kind = f"{str(out.dtype)[6:]} tensor" if isinstance(out, torch.Tensor) else type(out).__name__
    article = "an" if kind[0].lower() in "aeiou" else "a"
    if isinstance(out, torch.Tensor):
        return f"{article} {kind} of shape {tuple(out.shape)}"
    if isinstance(out, Mapping):
        entries = [(repr(k), v) for k, v in out.items()]
    elif isinstance(out, tuple) and hasattr(out, "_fields"):
        entries = [(f"'{f}'", v) for f, v in zip(out._fields, out)]
    elif isinstance(out, (tuple, list)):
        entries = list(enumerate(out))
        kind = f"{kind} of {len(out)}"
    elif dataclasses.is_dataclass(out):
        entries = [(f"'{f.name}'", getattr(out, f.name)) for f in dataclasses.fields(out)]
    else:
        return f"{article} {kind}"
    shown = ", ".join(f"{k} ({brief(v)})" for k, v in entries[:8])
    more = f", and {len(entries) - 8} more" if len(entries) > 8 else ""
    return f"{article} {kind} with {shown}{more}" if entries else f"an empty {kind}"


def output_tensors(out):
    """The tensors in a model output, in order: the output itself, or those in its dicts (Hugging Face's
    ModelOutput too, which torch 1.13's pytree leaves whole), tuples, lists and dataclasses, nested."""
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, Mapping):
        parts = out.values()
    elif isinstance(out, (tuple, list)):
        parts = out
    elif dataclasses.is_dataclass(out) and not isinstance(out, type):
        parts = [getattr(out, f.name) for f in dataclasses.fields(out)]
    else:
        return []
    return [t for part in parts for t in output_tensors(part)]


def output_sum(out):
    """The sum of every element of the outputs that require grad: what the joint graph of --loss none
    backpropagates (each such output's tangent is ones); an error where no output requires grad."""
    needed = [t.sum() for t in output_tensors(out) if t.requires_grad]
    if not needed:
        raise MemplanTorchError(f"no output of the model requires grad: it is {describe_output(out)}")
    return sum(needed[1:], needed[0])


def user_model(module):
    """The user's model in `module`: the model a WithLoss, SelectOutput, KeywordInputs or TensorOutputs wraps,
    else `module` itself."""
    while isinstance(module, (WithLoss, SelectOutput, KeywordInputs, TensorOutputs)):
        module = module.model
    return module


def model_name(model):
    """The class name of the user's model, also when it is wrapped in WithLoss (for messages)."""
    return type(user_model(model)).__name__


def without_loss(loss):
    """Whether `loss` (one of LOSSES, or a loss function) is "none": the graph ends at the model's outputs."""
    return isinstance(loss, str) and loss == "none"


def with_loss(model, inputs, loss, target=None, label_smoothing=0.0, class_dim=None):
    """(module, inputs) to trace for `loss`: the model in TensorOutputs for "none"; otherwise WithLoss and the
    inputs followed by the target: `target` where given, else, for "cross-entropy" (or a CrossEntropy), a random
    int64 target of the logits' shape without the class dimension (random_target), for "mse" a random normal
    one of the output's shape and dtype, each on the inputs' device; another loss function (a callable:
    loss(output, target) -> scalar tensor) needs `target`. `label_smoothing` and `class_dim`: the
    "cross-entropy" loss's (CrossEntropy)."""
    loss = loss_function(loss, label_smoothing, class_dim)
    if without_loss(loss):
        return TensorOutputs(model), tuple(inputs)
    if target is not None and not isinstance(target, torch.Tensor):
        raise MemplanTorchError(f"the example target is a {type(target).__name__}, not a tensor")
    if target is None:
        if isinstance(loss, CrossEntropy):
            shape = logits_shape(model, inputs)
            dim = resolve_class_dim(len(shape), loss.class_dim, model_name(model))
            target = random_target(shape, inputs[0].device, dim)
        elif callable(loss):
            raise MemplanTorchError("a loss function needs an example target: one batch of the targets it takes")
        else:
            shape, dtype = output_meta(model, inputs, "mse")
            target = torch.randn(shape, dtype=dtype, device=inputs[0].device)
    return WithLoss(model, loss), tuple(inputs) + (target,)


def output_meta(model, inputs, loss):
    """(shape, dtype) of `model`'s output on the whole batch `inputs`, from a run in eval mode (no statistics
    updated, modes put back) on fake tensors (_fake_output), or, where the model does not run on them, on one
    real sample; an error naming `loss` where the output is not one floating-point tensor with a batch
    dimension. The run has autograd on, as training does: under no_grad, eval-mode nn.MultiheadAttention takes
    its inference fast path, which torch 1.13 also takes under CPU autocast, and fails there (vit_b_16: "expected
    scalar type BFloat16 but found Float")."""
    modes = [(m, m.training) for m in model.modules()]  # model.train() would put every module in training
    model.eval()
    try:
        with torch.enable_grad():
            out = _fake_output(model, inputs)
            if out is None:
                out = model(*(x[:1] for x in inputs))
    except Exception as e:
        from .graph_export import device_of  # graph_export imports this module

        device_type = device_of(inputs).type
        mixed = autocast.state(device_type)
        under = f" under {device_type} autocast ({mixed[1]})" if mixed[0] else ""
        raise MemplanTorchError(f"model {model_name(model)} failed on one sample of its input{under}: "
                                f"{type(e).__name__}: {e}") from e
    finally:
        for m, training in modes:
            m.training = training
        autocast.forget_casts()
    if not isinstance(out, torch.Tensor):
        raise MemplanTorchError(f"model {model_name(model)}: its output is {describe_output(out)}, not the tensor "
                                f"that the {loss} loss takes; {NOT_A_TENSOR_EXPORT_HINT}")
    if out.dim() < 1 or not out.dtype.is_floating_point:
        raise MemplanTorchError(f"model {model_name(model)}: its output ({describe_output(out)}) is not a "
                                f"floating-point tensor with a batch dimension for the {loss} loss; use --loss none")
    return (inputs[0].shape[0],) + tuple(out.shape[1:]), out.dtype


def _fake_output(model, inputs):
    """`model`'s output on `inputs` computed on fake tensors (shapes and dtypes only, no compute: a real run of a
    large model on the CPU takes minutes), its parameters and buffers faked too; None where this torch has no
    fake tensors or the model does not run on them (an op whose output shape depends on the data, an op
    without a fake kernel)."""
    try:
        from torch._subclasses.fake_tensor import FakeTensorMode
    except ImportError:  # pragma: no cover - every torch since 1.13 has it
        return None
    try:
        from torch.func import functional_call  # torch 2.x
    except ImportError:
        from torch.nn.utils.stateless import functional_call  # torch 1.13
    fake = FakeTensorMode()
    state = {}
    for prefix, module in model.named_modules(remove_duplicate=False):  # tied and non-persistent ones too
        for name, t in list(module._parameters.items()) + list(module._buffers.items()):
            if t is not None:
                state[f"{prefix}.{name}" if prefix else name] = fake.from_tensor(t)
    try:
        with fake, rnn_weights_follow_swaps(model):
            out = functional_call(model, state, tuple(fake.from_tensor(x) for x in inputs))
    except Exception:
        return None
    return torch.empty(out.shape, dtype=out.dtype, device="meta") if isinstance(out, torch.Tensor) else out


def logits_shape(model, inputs):
    """The shape of `model`'s logits on `inputs` (output_meta): (batch, classes), (batch, ..., classes) or
    (batch, classes, ...) (resolve_class_dim); an error that says to use --loss none where the output is not logits."""
    shape, _ = output_meta(model, inputs, "cross-entropy")
    if len(shape) < 2:
        raise MemplanTorchError(f"model {model_name(model)}: its output (shape {tuple(shape)} on the batch) "
                                "is not logits of shape (batch, ..., classes) for the cross-entropy loss; use "
                                "--loss none")
    return shape


def random_target(shape, device=None, class_dim=None):
    """A random int64 cross-entropy target for logits of `shape` (logits_shape): the shape without the class
    dimension (resolve_class_dim of `class_dim`), classes below its size."""
    dim = resolve_class_dim(len(shape), class_dim)
    return torch.randint(0, shape[dim], tuple(shape[:dim]) + tuple(shape[dim + 1:]), dtype=torch.int64,
                         device=device)
