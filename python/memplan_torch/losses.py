"""What ends the forward pass of a traced training step: the loss (cross-entropy of logits, mean squared
error, or a loss function of the user's) wrapped around the model with its target, so that the joint graph
holds the loss and its backward as a training step does; or nothing ("none"), the graph then ending at the
model's outputs."""

import torch
from torch import nn

from . import autocast
from .errors import MemplanTorchError


# What export-graph can put at the end of the forward pass: "cross-entropy" (the model's output read as
# logits, classes in the last dimension, against an integer target that becomes a graph input), "mse" (the mean
# squared error of the output against a target of its shape and dtype, for regression and denoising models) or
# "none" (the graph ends at the model's outputs; their gradients are tangent inputs, resident throughout).
LOSSES = ("cross-entropy", "mse", "none")


class WithLoss(nn.Module):
    """`model` followed by its training loss, so that the joint graph holds the loss and its backward as a
    training step does: forward(*inputs, target) -> the scalar loss. `loss`: "cross-entropy" (the mean over
    every position of the logits, with `label_smoothing`), "mse", or a loss function of the user's,
    loss(output, target) -> a floating-point scalar tensor."""

    def __init__(self, model, loss="cross-entropy", label_smoothing=0.0):
        super().__init__()
        self.model = model
        self.loss = loss
        self.label_smoothing = label_smoothing

    def forward(self, *inputs_and_target):
        *inputs, target = inputs_and_target
        out = self.model(*inputs)
        if callable(self.loss):
            value = self.loss(out, target)
            if not isinstance(value, torch.Tensor) or value.dim() != 0 or not value.dtype.is_floating_point:
                what = f"a {value.dtype} tensor of shape {tuple(value.shape)}" if isinstance(value, torch.Tensor) \
                    else type(value).__name__
                raise MemplanTorchError(f"model {type(self.model).__name__}: the loss function returned {what}, "
                                        "not a floating-point scalar tensor")
            return value
        if not isinstance(out, torch.Tensor):  # e.g. GoogLeNet's auxiliary outputs in training mode
            raise MemplanTorchError(f"model {type(self.model).__name__}: in training mode its output is a "
                                    f"{type(out).__name__}, not the tensor that the {self.loss} loss takes; use "
                                    "--loss none, or build the model without auxiliary outputs")
        if self.loss == "mse":
            return nn.functional.mse_loss(out, target)
        return nn.functional.cross_entropy(out.reshape(-1, out.shape[-1]), target.reshape(-1),
                                           label_smoothing=self.label_smoothing)


def user_model(module):
    """The user's model in `module`: the model a WithLoss wraps, else `module` itself."""
    return module.model if isinstance(module, WithLoss) else module


def model_name(model):
    """The class name of the user's model, also when it is wrapped in WithLoss (for messages)."""
    return type(user_model(model)).__name__


def without_loss(loss):
    """Whether `loss` (one of LOSSES, or a loss function) is "none": the graph ends at the model's outputs."""
    return isinstance(loss, str) and loss == "none"


def with_loss(model, inputs, loss, target=None, label_smoothing=0.0):
    """(module, inputs) to trace for `loss`: the model itself for "none"; otherwise WithLoss and the inputs
    followed by the target: `target` where given, else, for "cross-entropy", a random int64 target of the
    logits' shape without the class dimension (random_target), for "mse" a random normal one of the output's
    shape and dtype, each on the inputs' device; a loss function (a callable: loss(output, target) -> scalar
    tensor) needs `target`. `label_smoothing` (cross-entropy only): as torch's cross_entropy takes it."""
    if not callable(loss) and loss not in LOSSES:
        raise MemplanTorchError(f"loss '{loss}': expected one of {', '.join(LOSSES)}, or a loss function")
    if label_smoothing and loss != "cross-entropy":
        raise MemplanTorchError(f"label smoothing applies to the cross-entropy loss, not to "
                                f"{'a loss function' if callable(loss) else repr(loss)}")
    if not 0.0 <= label_smoothing <= 1.0:
        raise MemplanTorchError(f"label smoothing {label_smoothing}: expected a number from 0 to 1")
    if without_loss(loss):
        return model, tuple(inputs)
    if target is not None and not isinstance(target, torch.Tensor):
        raise MemplanTorchError(f"the example target is a {type(target).__name__}, not a tensor")
    if target is None:
        if callable(loss):
            raise MemplanTorchError("a loss function needs an example target: one batch of the targets it takes")
        if loss == "mse":
            shape, dtype = output_meta(model, inputs, "mse")
            target = torch.randn(shape, dtype=dtype, device=inputs[0].device)
        else:
            target = random_target(logits_shape(model, inputs), inputs[0].device)
    return WithLoss(model, loss, label_smoothing), tuple(inputs) + (target,)


def output_meta(model, inputs, loss):
    """(shape, dtype) of `model`'s output on the whole batch `inputs`, from one sample run in eval mode (no
    statistics updated, modes put back); an error naming `loss` where the output is not one floating-point
    tensor with a batch dimension. The sample runs with autograd on, as training does: under no_grad, eval-mode
    nn.MultiheadAttention takes its inference fast path, which torch 1.13 also takes under CPU autocast, and
    fails there (vit_b_16: "expected scalar type BFloat16 but found Float")."""
    modes = [(m, m.training) for m in model.modules()]  # model.train() would put every module in training
    model.eval()
    try:
        with torch.enable_grad():
            out = model(*(x[:1] for x in inputs))
    except Exception as e:
        from .graph_export import device_of  # graph_export imports this module

        device_type = device_of(inputs).type
        mixed = autocast.state(device_type)
        under = f" under {device_type} autocast ({mixed[1]})" if mixed[0] else ""
        raise MemplanTorchError(f"model {type(model).__name__} failed on one sample of its input{under}: "
                                f"{type(e).__name__}: {e}") from e
    finally:
        for m, training in modes:
            m.training = training
        autocast.forget_casts()
    if not isinstance(out, torch.Tensor) or out.dim() < 1 or not out.dtype.is_floating_point:
        what = f"a {out.dtype} tensor of shape {tuple(out.shape)}" if isinstance(out, torch.Tensor) \
            else type(out).__name__
        raise MemplanTorchError(f"model {type(model).__name__}: its output ({what}) is not a floating-point "
                                f"tensor with a batch dimension for the {loss} loss; use --loss none")
    return (inputs[0].shape[0],) + tuple(out.shape[1:]), out.dtype


def logits_shape(model, inputs):
    """The shape (batch, ..., classes) of `model`'s logits on `inputs` (output_meta); an error that says to use
    --loss none where the output is not logits."""
    shape, _ = output_meta(model, inputs, "cross-entropy")
    if len(shape) < 2:
        raise MemplanTorchError(f"model {type(model).__name__}: its output (shape {tuple(shape)} on the batch) "
                                "is not logits of shape (batch, ..., classes) for the cross-entropy loss; use "
                                "--loss none")
    return shape


def random_target(shape, device=None):
    """A random int64 cross-entropy target for logits of `shape` (logits_shape): classes below shape[-1]."""
    return torch.randint(0, shape[-1], tuple(shape[:-1]), dtype=torch.int64, device=device)
