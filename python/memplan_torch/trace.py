"""Allocation traces of real training iterations on the CPU, as MiniMalloc CSV with a period.

A TorchDispatchMode sees every aten op, including the backward pass's. Each op output whose storage is new
(not one of the op's inputs' storages, not one we already track) is an allocation at the op's step; the
storage is freed once every tensor we saw on it has been garbage collected (weakref.finalize; PyTorch keeps
a tensor's Python object alive while autograd still holds the tensor, so saved activations stay live until
the backward pass releases them). Time is counted in ops: an allocation by op i freed before op j starts
lives [i, j).

One iteration = zero_grad(set_to_none) -> new input batch -> forward -> loss -> backward -> optimizer step.
We run one warm-up iteration untraced (it creates the optimizer state), then trace two: the first is the
steady-state iteration we write out; the second only tells when the first one's buffers die, e.g. the
gradients that the next zero_grad releases. Such buffers get upper > period: they wrap around, as MiniMalloc
CSV with `--period` expects. The period goes into a JSON sidecar (see trace_meta_path), because MiniMalloc
CSV has no place for it.

Not seen: memory that kernels allocate without making a tensor (oneDNN scratch space), and tensors that
C++ creates on a storage without going through the dispatcher (then the storage can look dead too early).
"""

import fnmatch
import weakref

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

from . import autocast
from .errors import MemplanTorchError
from .options import TRACE_LOSSES
from .pattern import meta_path, peak_load, to_csv  # noqa: F401  (re-exported: trace.to_csv etc.)


def storage_of(t):
    """(identity, bytes) of a tensor's storage, on torch 1.13 (TypedStorage._storage) and 2.x
    (untyped_storage); None for tensors without a storage (sparse, nested, ...)."""
    try:
        if hasattr(t, "untyped_storage"):
            s = t.untyped_storage()
        else:
            s = t.storage()
            s = getattr(s, "_storage", s)
        return s._cdata, s.nbytes()
    except (RuntimeError, NotImplementedError, AttributeError):
        return None


def _rewrap_numbers(func, args):
    """torch 1.13 hands a dispatch mode 0-dim "wrapped number" tensors as Python numbers; where the schema
    wants a Tensor (non-reentrant checkpoint detaches the saved scalar of `x * 0.25`), calling the op with
    the number fails. Turn such numbers back into 0-dim tensors."""
    schema = getattr(func, "_schema", None)
    if schema is None or not any(isinstance(a, (int, float, bool)) for a in args):
        return args
    out = list(args)
    for i, (a, spec) in enumerate(zip(args, schema.arguments)):
        if isinstance(a, (int, float, bool)) and str(spec.type) == "Tensor":
            out[i] = torch.tensor(a)
    return tuple(out)


class AllocationRecorder(TorchDispatchMode):
    """Records one buffer per new storage that an op's output brings, with the op step that made it and
    the step at which the last tensor seen on it died (None while it lives)."""

    def __init__(self):
        super().__init__()
        self.step = 0          # ops completed so far
        self.buffers = []      # dicts: lower, upper, size, op
        self._live = {}        # storage identity -> [buffer index, number of live tensors seen on it]
        self.live_bytes = 0    # bytes of the buffers alive now
        self.peak_live_bytes = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        args = _rewrap_numbers(func, args)
        inputs = {storage_of(t)[0] for t in tree_flatten((args, kwargs))[0]
                  if isinstance(t, torch.Tensor) and storage_of(t) is not None}
        out = func(*args, **kwargs)
        for t in tree_flatten(out)[0]:
            if not isinstance(t, torch.Tensor):
                continue
            st = storage_of(t)
            if st is None:
                continue
            key, nbytes = st
            entry = self._live.get(key)
            if entry is None:
                if key in inputs:
                    continue  # an alias of a storage made before recording began (parameter, input)
                entry = [len(self.buffers), 0]
                self._live[key] = entry
                self.buffers.append({"lower": self.step, "upper": None, "size": nbytes, "op": str(func)})
                self.live_bytes += nbytes
                self.peak_live_bytes = max(self.peak_live_bytes, self.live_bytes)
            entry[1] += 1
            weakref.finalize(t, self._tensor_died, key, entry)
        self.step += 1
        return out

    def _tensor_died(self, key, entry):
        entry[1] -= 1
        if entry[1] == 0:
            buf = self.buffers[entry[0]]
            buf["upper"] = max(self.step, buf["lower"] + 1)
            self.live_bytes -= buf["size"]
            if self._live.get(key) is entry:
                del self._live[key]


def select_modules(model, patterns):
    """Names of the submodules matching any fnmatch pattern ("layer1", "blocks.*", "features.1?"), keeping
    only the outermost of nested matches. An unmatched pattern is an error naming it."""
    names = [n for n, _ in model.named_modules() if n]
    chosen = []
    for p in patterns:
        hits = [n for n in names if fnmatch.fnmatchcase(n, p)]
        if not hits:
            raise MemplanTorchError(f"--checkpoint '{p}': no submodule of {type(model).__name__} matches "
                                    f"(top-level ones: {', '.join(n for n in names if '.' not in n)})")
        chosen.extend(h for h in hits if h not in chosen)
    return [n for n in chosen if not any(n.startswith(o + ".") for o in chosen)]


def apply_checkpoint(model, names):
    """Wrap each named submodule's forward in torch.utils.checkpoint (non-reentrant, which works whether or
    not the block's inputs require grad)."""
    from torch.utils.checkpoint import checkpoint

    for n in names:
        mod = model.get_submodule(n)
        forward = mod.forward

        def wrapped(*a, _forward=forward, **k):
            return checkpoint(_forward, *a, use_reentrant=False, **k)

        mod.forward = wrapped


def _persistent_bytes(model, optimizer):
    seen = set()
    total = 0
    tensors = list(model.parameters()) + list(model.buffers())
    for state in optimizer.state.values():
        tensors.extend(v for v in state.values() if isinstance(v, torch.Tensor))
    for t in tensors:
        st = storage_of(t)
        if st is not None and st[0] not in seen:
            seen.add(st[0])
            total += st[1]
    return total


def trace_training(model, make_inputs, checkpoint_names=(), lr=0.01, autocast_dtype=None, loss="mean",
                   label_smoothing=0.0, class_dim=None):
    """Trace one steady-state training iteration of `model` (SGD with momentum) on the batches that
    make_inputs() makes (a tensor, or a tuple of the model's inputs). `loss`: "mean" (of the output)
    or, as export-graph's graph ends, "cross-entropy" (with `label_smoothing` and `class_dim`) or "mse" against
    a random target drawn once (losses.with_loss). With `autocast_dtype`, e.g. "bfloat16", the forward pass and
    the loss run under CPU autocast, the mixed-precision recipe. `checkpoint_names` are the user's model's submodules
    (select_modules), also where `model` is it in a losses.SelectOutput. Returns (rows, meta): rows are dicts
    id, lower, upper, size (upper may exceed the period: the buffer wraps into the next iteration); meta holds
    the period, peak load and what was left out."""
    from .losses import NOT_A_TENSOR_HINT, describe_output, model_name, user_model, with_loss

    if loss not in TRACE_LOSSES:
        raise MemplanTorchError(f"loss '{loss}': expected one of {', '.join(TRACE_LOSSES)}")

    def batch():
        inputs = make_inputs()
        return tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)

    if checkpoint_names:
        apply_checkpoint(user_model(model), checkpoint_names)
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    if loss == "mean":
        if label_smoothing or class_dim is not None:
            what = "label smoothing" if label_smoothing else "a class dimension"
            raise MemplanTorchError(f"{what} applies to the cross-entropy loss, not to 'mean'")
        step_module, target = model, ()
    else:
        with autocast.region(autocast_dtype):  # the output's dtype (an mse target's) as the step makes it
            step_module, inputs = with_loss(model, batch(), loss, label_smoothing=label_smoothing,
                                            class_dim=class_dim)
        target = inputs[-1:]

    def iteration():
        opt.zero_grad(set_to_none=True)
        with autocast.region(autocast_dtype):
            out = step_module(*batch(), *target)
            if not isinstance(out, torch.Tensor):
                raise MemplanTorchError(f"model {model_name(model)}: its output is {describe_output(out)}, not "
                                        f"the tensor that the {loss} loss takes; {NOT_A_TENSOR_HINT}")
            value = out.float().mean() if loss == "mean" else out
        value.backward()
        opt.step()

    iteration()  # warm-up: optimizer state appears here, outside the trace
    rec = AllocationRecorder()
    with rec:
        start = rec.step
        iteration()
        period = rec.step - start
        n_first = len(rec.buffers)
        iteration()
        end = rec.step
    second = rec.buffers[n_first:]
    first = rec.buffers[:n_first]
    rows, left_out = [], []
    zero_byte = 0
    for b in first:
        upper = b["upper"] if b["upper"] is not None else None
        if b["size"] == 0:
            zero_byte += 1  # empty tensors (no memory; memplan rejects size 0)
            continue
        if upper is None or upper - b["lower"] > period:
            left_out.append(b)  # lives longer than an iteration: not part of the periodic pattern
            continue
        rows.append({"id": len(rows), "lower": b["lower"] - start, "upper": upper - start, "size": b["size"]})
    steady = [b["size"] for b in first] == [b["size"] for b in second] and end - start == 2 * period
    meta = {
        "format": "memplan-trace/v1",
        "period": period,
        "time_unit": "aten ops",
        "buffers": len(rows),
        "peak_load": peak_load(rows, period),
        "persistent_bytes": _persistent_bytes(model, opt),
        "left_out_buffers": len(left_out),
        "left_out_bytes": sum(b["size"] for b in left_out),
        "zero_byte_buffers": zero_byte,
        "steady": steady,
        "checkpointed": list(checkpoint_names),
        "autocast": autocast_dtype,
        "loss": loss,
        "torch": torch.__version__,
    }
    for key, value in (("label_smoothing", label_smoothing), ("class_dim", class_dim)):
        if value:  # the loss's options, where given
            meta[key] = value
    return rows, meta
