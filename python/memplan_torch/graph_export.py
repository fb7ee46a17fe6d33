"""Joint forward+backward graph of a torch.nn.Module -> remat-graph/v1 JSON.

The joint graph comes from functorch's aot_module: our partition function receives the joint fx graph
(with shape and dtype metadata on its nodes), keeps it, and stops the compilation, so the model itself
never runs (with fake tensors, tracing costs seconds even for vit_b_16). fx tuple-returning ops (batch norm,
convolution backward, max-pool with indices, split, ...) carry no shape; the getitem nodes that unpack them
do, so each such op becomes one multi-output node whose outputs are its getitems' values.

Cost model (cost_unit "flops"; documented in docs/pytorch.md):
- mm: 2mkn; addmm: 2mkn + mn; bmm: 2bmkn; baddbmm: 2bmkn + bmn;
- convolution: 2 * N * S * |W| (S = output spatial size, or input spatial size when transposed; |W| =
  elements of the weight), + output elements for a bias;
- convolution_backward: the forward FLOPs once for each of grad_input and grad_weight that output_mask
  asks for, + grad_output elements for grad_bias;
- scaled-dot-product attention (torch 2.x): 2BHLS(E + Ev) forward, 2.5x that for its backward;
- views, detach, getitem, aliases: 0;
- anything else: max(elements read, elements written) over its tensor arguments and outputs, a stand-in
  for memory-bound work.
"""

import contextlib
import inspect
import operator
import re

import torch
import torch.fx
from torch import nn

from . import autocast
from .errors import MemplanTorchError
from .losses import model_name, user_model, with_loss
from .options import DROPOUTS
from .rnn import rnn_weights_follow_swaps

# Bytes per element of every dtype we can size; anything else (quantized, ...) is an error naming the op.
DTYPE_BYTES = {
    torch.float64: 8, torch.float32: 4, torch.float16: 2, torch.bfloat16: 2,
    torch.complex128: 16, torch.complex64: 8,
    torch.int64: 8, torch.int32: 4, torch.int16: 2, torch.int8: 1, torch.uint8: 1, torch.bool: 1,
}
for _name, _bytes in (("float8_e4m3fn", 1), ("float8_e5m2", 1), ("uint16", 2), ("uint32", 4), ("uint64", 8)):
    if hasattr(torch, _name):  # torch 2.x only
        DTYPE_BYTES[getattr(torch, _name)] = _bytes

# Ops that update state outside their outputs even though their schema does not say so (native_batch_norm
# writes running_mean / running_var in place in training mode; its schema carries no write annotation). torch
# 2.x's aot graphs are functionalized: there training batch norm is _native_batch_norm_legit_functional (or
# _batch_norm_with_update_functional), which returns the updated statistics as extra outputs.
_STATEFUL_BN = re.compile(r"^aten\.(native_batch_norm|_native_batch_norm_legit|_native_batch_norm_legit_functional"
                          r"|_batch_norm_with_update_functional|cudnn_batch_norm|miopen_batch_norm"
                          r"|_batch_norm_impl_index|batch_norm)\.")
# Random ops, for torch versions whose ops lack the nondeterministic_seeded tag: the name, its _like and
# in-place forms, then the overload (native_dropout_backward, a deterministic op, must not match).
_RANDOM = re.compile(r"^aten\.(rand|randn|randint|randperm|bernoulli|native_dropout|_fused_dropout|dropout|normal|"
                     r"uniform|multinomial|exponential|poisson|binomial|rrelu|rrelu_with_noise|feature_dropout|"
                     r"alpha_dropout|feature_alpha_dropout|cauchy|geometric|log_normal|random|_standard_gamma|"
                     r"_sample_dirichlet)(_like)?_?\.")


class _Captured(Exception):
    """Raised inside our partition function to stop aot_module once it has handed us the joint graph."""


def _never_compile(gm, example_inputs):
    raise MemplanTorchError("internal: aot_module reached compilation after the joint graph was captured")


@contextlib.contextmanager
def dropout_as(kind):
    """Within the block, torch.nn.functional.dropout (which nn.Dropout and multi-head attention call) traces
    as `kind` (one of DROPOUTS). Evaluation mode, p = 0 and in-place dropout keep the original function."""
    if kind not in DROPOUTS:
        raise MemplanTorchError(f"dropout '{kind}': expected one of {', '.join(DROPOUTS)}")
    original = nn.functional.dropout

    def fused(input, p=0.5, training=True, inplace=False):
        if not training or inplace or not 0.0 < p < 1.0:
            return original(input, p, training, inplace)
        return torch.native_dropout(input, p, True)[0]

    def decomposed(input, p=0.5, training=True, inplace=False):
        if not training or inplace or not 0.0 < p < 1.0:
            return original(input, p, training, inplace)
        noise = torch.empty_like(input).bernoulli_(1 - p)  # as ATen's CPU dropout draws it
        return input * noise.div_(1 - p)

    if kind == "fused":
        nn.functional.dropout = fused
    elif int(torch.__version__.split(".")[0]) >= 2:  # 1.13 decomposes it itself (the same ops, without the
        # two detach views that the Python ops add to its trace, so its graphs stay as they were)
        nn.functional.dropout = decomposed
    try:
        yield
    finally:
        nn.functional.dropout = original


def split_fused_dropout(gm):
    """Rewrites each `out, mask = native_dropout(x, p, train=True)` of the fx graph so that `out` comes from a
    step of its own, native_dropout_backward(x, mask, 1 / (1 - p)): the same kernel and the same bits (x * mask
    * scale). Otherwise the random step, which runs exactly once, would pin its float output from the forward
    to the backward; this way only its 1-byte mask stays, and the output can be recomputed. The random step
    still writes `out`, dropped at once: its bytes are the step's workspace (meta "memplan_workspace")."""
    target = torch.ops.aten.native_dropout.default
    rewritten = False
    for n in list(gm.graph.nodes):
        if n.op != "call_function" or n.target is not target or n.args[2] is not True:
            continue
        by_index = {u.args[1]: u for u in n.users if u.op == "call_function" and u.target is operator.getitem}
        if 0 not in by_index or 1 not in by_index or len(by_index) != len(n.users):
            continue
        out, mask = by_index[0], by_index[1]
        x, p = n.args[0], float(n.args[1])
        n.append(mask)  # right after the dropout, so that the new step comes before every use of `out`
        with gm.graph.inserting_after(mask):
            apply = gm.graph.call_function(torch.ops.aten.native_dropout_backward.default, (x, mask, 1.0 / (1.0 - p)))
        apply.meta = dict(out.meta)
        m = _meta(out)
        n.meta["memplan_workspace"] = _bytes(m[0], m[1], "aten.native_dropout") if m else 0
        out.replace_all_uses_with(apply)
        gm.graph.erase_node(out)
        rewritten = True
    if rewritten:  # most models have no dropout: their graph module stays as traced
        gm.graph.lint()
        gm.recompile()


def _forget_proxies(tensors):
    """torch 1.13's make_fx leaves on every tensor it traced a map from its tracers to their proxies (in the
    tensor's __dict__, under proxy_tensor.proxy_slot), and on a buffer that the module updates in Python
    (batch norm's num_batches_tracked) a `proxy` attribute; copy.deepcopy of the traced model then fails
    inside fx. They are dropped here: the trace is finished."""
    try:
        from torch.fx.experimental.proxy_tensor import proxy_slot
    except ImportError:  # pragma: no cover - a torch without it keeps no such map
        proxy_slot = None
    for t in tensors:
        if not isinstance(t, torch.Tensor):
            continue
        t.__dict__.pop(proxy_slot, None)
        if isinstance(t.__dict__.get("proxy"), torch.fx.Proxy):
            del t.__dict__["proxy"]


def rng_generator(device):
    """(get_state, set_state) of the generator that random ops on `device` draw from."""
    if device.type == "cuda":
        return (lambda: torch.cuda.get_rng_state(device)), (lambda state: torch.cuda.set_rng_state(state, device))
    return torch.get_rng_state, torch.set_rng_state


def device_of(tensors):
    """The device of the first tensor in `tensors` (the CPU where there is none)."""
    return next((t.device for t in tensors if isinstance(t, torch.Tensor)), torch.device("cpu"))


# What autograd's "a leaf Variable that requires grad is being used in an in-place operation" means when
# tracing a training step: the forward pass writes a parameter, which a joint graph cannot express.
_IN_PLACE_PARAMETER = ("its forward pass writes a parameter in place, as nn.Embedding with max_norm renormalizes "
                       "its weight; a training step's graph cannot hold that: drop the in-place write, e.g. "
                       "max_norm=None")


def capture_joint(model, inputs, fake=True, dropout="fused"):
    """Trace `model(*inputs)` into its joint forward+backward fx graph with functorch's aot_module.
    Returns (GraphModule, joint_inputs, num_primals). With fake=True (torch 1.13's
    functorch.compile.config.use_fake_tensor; torch 2.x always traces with fake tensors) no real compute
    happens; joint_inputs are then fake and only good for their shapes. fake=None: with fake tensors, else,
    where this torch cannot trace the model with them (torch 1.13's fake tensors reject some of its Python
    decompositions, as label-smoothed cross-entropy's), with real ones; a model that neither way traces raises
    the fake trace's error. `dropout`: see DROPOUTS. The modules are traced in the modes they are in (a new
    module trains; one the user put in eval mode, as a frozen batch norm, stays so). Tracing runs the model
    (with fake=False on real tensors); its buffers (running statistics) and the inputs' generator are put
    back as they were."""
    if fake is None:
        try:
            return capture_joint(model, inputs, True, dropout)
        except MemplanTorchError as fake_error:
            try:
                return capture_joint(model, inputs, False, dropout)
            except MemplanTorchError:
                raise fake_error from None
    try:
        from functorch.compile import aot_function, aot_module, config
    except ImportError:  # pragma: no cover - a torch 2.x without the functorch shim: its home in torch
        try:
            from torch._functorch import config
            from torch._functorch.aot_autograd import aot_function, aot_module
        except ImportError as e:
            raise MemplanTorchError(f"neither functorch.compile nor torch._functorch.aot_autograd is available "
                                    f"in torch {torch.__version__}: {e}") from e
    for name, m in user_model(model).named_modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm) and m.track_running_stats and m.momentum is None:
            raise MemplanTorchError(f"model {model_name(model)}: batch norm '{name}' has momentum None (a cumulative "
                                    "average): its factor, 1 / the step count, cannot be traced; set a momentum")
        # Named before tracing: torch 1.13's trace fails on the write (the hint below reads its message), and a
        # torch whose trace took it would hold a write into a parameter that the step cannot run.
        if isinstance(m, (nn.Embedding, nn.EmbeddingBag)) and m.max_norm is not None:
            raise MemplanTorchError(f"model {model_name(model)}: embedding '{name}' has max_norm {m.max_norm}: "
                                    f"{_IN_PLACE_PARAMETER}")
    captured = {}

    def partition(joint, joint_inputs, **kwargs):
        captured["gm"] = joint
        captured["inputs"] = joint_inputs
        raise _Captured()

    # torch 2.x functionalizes the trace. By default the buffers a forward pass writes (batch norm's running
    # statistics) then become extra forward outputs, which aot's runtime wrapper (never run here) would copy
    # back; with this option, where that torch keeps such writes in training graphs too, they are copy_ nodes
    # into the buffers, which a step runs. torch 1.13 has no such option: its batch norm writes in place.
    keep_writes = ({"keep_inference_input_mutations": True}
                   if "keep_inference_input_mutations" in inspect.signature(aot_function).parameters else {})
    old = getattr(config, "use_fake_tensor", None)
    if old is not None:
        config.use_fake_tensor = fake
    buffers = [(b, b.clone()) for b in model.buffers()]
    get_state, set_state = rng_generator(device_of(inputs))
    rng = get_state()
    try:
        compiled = aot_module(model, fw_compiler=_never_compile, bw_compiler=_never_compile,
                              partition_fn=partition, **keep_writes)
        with dropout_as(dropout), rnn_weights_follow_swaps(model):
            compiled(*inputs)
    except _Captured:
        pass
    except MemplanTorchError:
        raise
    except Exception as e:  # torch wraps user errors in various types; keep the original text
        if "gm" not in captured:
            why = f" ({_IN_PLACE_PARAMETER})" if "leaf Variable that requires grad" in str(e) else ""
            raise MemplanTorchError(f"model {model_name(model)} cannot be traced by aot_module: "
                                    f"{type(e).__name__}: {e}{why}") from e
    finally:
        if old is not None:
            config.use_fake_tensor = old
        _forget_proxies(list(model.parameters()) + list(model.buffers()) + list(inputs))
        with torch.no_grad():  # tracing ran the model: put back what its forward pass updated
            for b, saved in buffers:
                b.copy_(saved)
        set_state(rng)
        autocast.forget_casts()
    if "gm" not in captured:
        raise MemplanTorchError(f"model {model_name(model)}: aot_module produced no joint graph")
    if dropout == "fused":
        split_fused_dropout(captured["gm"])
    joint_inputs = captured["inputs"]
    primals = joint_inputs[0] if isinstance(joint_inputs, (tuple, list)) and len(joint_inputs) == 2 else None
    num_primals = len(primals) if isinstance(primals, (list, tuple)) else None
    return captured["gm"], joint_inputs, num_primals


def _meta(node):
    """(shape, dtype) of a single-tensor fx node, from tensor_meta (torch 1.13) or val (torch 2.x)."""
    tm = node.meta.get("tensor_meta")
    if tm is not None and hasattr(tm, "shape") and hasattr(tm, "dtype"):
        return tuple(tm.shape), tm.dtype
    val = node.meta.get("val")
    if isinstance(val, torch.Tensor):
        return tuple(val.shape), val.dtype
    return None


def _numel(shape):
    n = 1
    for d in shape:
        n *= int(d)
    return n


def _bytes(shape, dtype, op_name):
    if dtype not in DTYPE_BYTES:
        raise MemplanTorchError(f"op {op_name}: unsupported dtype {dtype} (cannot size its output)")
    return _numel(shape) * DTYPE_BYTES[dtype]


def _op_name(target):
    return str(target)


def _schema(target):
    return getattr(target, "_schema", None)


# Ops whose outputs share their input's storage although their schema has no alias annotation: views that
# autograd treats as fresh tensors. aot graphs reshape matmul outputs with _unsafe_view; a GRU cell splits its
# gates with unsafe_split (each chunk holds the whole storage alive: counted alone, a GRU's measured peak was
# up to 17 % above the prediction).
_UNANNOTATED_VIEWS = {"aten._unsafe_view.default", "aten.unsafe_split.Tensor", "aten.unsafe_split_with_sizes.default",
                      "aten.unsafe_chunk.default"}


def is_view_op(target):
    """True when the op's outputs alias an input without writing it (view, t, expand, detach, split, ...)."""
    if _op_name(target) in _UNANNOTATED_VIEWS:
        return True
    schema = _schema(target)
    if schema is None:
        return False
    rets = schema.returns
    return bool(rets) and all(r.alias_info is not None and not r.alias_info.is_write for r in rets)


def writes_input(target):
    """True when the schema says the op writes one of its arguments (in-place ops, out= variants)."""
    schema = _schema(target)
    if schema is None:
        return False
    return any(a.alias_info is not None and a.alias_info.is_write for a in schema.arguments)


def named_args(node):
    """`node`'s arguments by their schema names (positional and keyword); empty for an op without a schema."""
    schema = _schema(node.target)
    args = dict(zip([a.name for a in schema.arguments], node.args)) if schema is not None else {}
    args.update(node.kwargs)
    return args


def written_arguments(node):
    """The arguments (fx nodes) that `node`'s op writes in place, as its schema says (copy_, add_, ...)."""
    schema = _schema(node.target)
    if schema is None:
        return []
    args = named_args(node)
    return [args[a.name] for a in schema.arguments
            if a.alias_info is not None and a.alias_info.is_write and isinstance(args.get(a.name), torch.fx.Node)]


def is_random_op(target):
    """True for ops that draw random numbers (must run exactly once, or gradients change)."""
    tags = getattr(target, "tags", None) or []
    if any(getattr(t, "name", str(t)).endswith("nondeterministic_seeded") for t in tags):
        return True
    return bool(_RANDOM.match(_op_name(target)))


# torch 2.x's fused attention kernels (F.scaled_dot_product_attention; nn.MultiheadAttention calls it), not
# their backward: each applies dropout itself where its dropout_p is above 0.
_ATTENTION = re.compile(r"^aten\._(scaled_dot_product_(flash|efficient|cudnn)_attention(_for_cpu)?|"
                        r"(flash|efficient)_attention_forward)\.")


def is_random_node(node):
    """True for an fx node that draws random numbers: a random op (is_random_op), or a fused attention kernel
    with dropout (dropout_p > 0), which draws its mask from the generator and returns the seed its backward
    regenerates the mask from, so it too must run exactly once."""
    if is_random_op(node.target):
        return True
    if not _ATTENTION.match(_op_name(node.target)):
        return False
    p = named_args(node).get("dropout_p", 0.0)
    return not isinstance(p, (int, float)) or p > 0  # a dropout_p that is not a constant: take it as random


def is_stateful(node):
    """In-place state updates: written arguments per the schema, or batch norm in training mode with
    running statistics (1.13's native_batch_norm writes them without saying so in its schema)."""
    target = node.target
    if writes_input(target):
        return True
    if _STATEFUL_BN.match(_op_name(target)):
        args = named_args(node)
        training = args.get("training", True)
        has_stats = args.get("running_mean") is not None
        return bool(training) and has_stats
    return False


def _arg_shape(a):
    if isinstance(a, torch.fx.Node):
        m = _meta(a)
        return m[0] if m else None
    return None


def node_cost(node, out_metas):
    """FLOPs of one fx node under the documented cost model (module docstring)."""
    name = _op_name(node.target)
    args = node.args
    if node.target is operator.getitem or is_view_op(node.target):
        return 0.0
    base = name.split(".")[1] if name.startswith("aten.") else name
    try:
        if base == "mm":
            (m, k), (_, n) = _arg_shape(args[0]), _arg_shape(args[1])
            return 2.0 * m * k * n
        if base == "addmm":
            (m, k), (_, n) = _arg_shape(args[1]), _arg_shape(args[2])
            return 2.0 * m * k * n + m * n
        if base in ("bmm", "baddbmm"):
            i = 0 if base == "bmm" else 1
            (b, m, k), (_, _, n) = _arg_shape(args[i]), _arg_shape(args[i + 1])
            return 2.0 * b * m * k * n + (b * m * n if base == "baddbmm" else 0)
        if base in ("convolution", "_convolution", "cudnn_convolution", "mkldnn_convolution"):
            x, w, out = _arg_shape(args[0]), _arg_shape(args[1]), out_metas[0][0]
            transposed = bool(args[6]) if len(args) > 6 and base != "cudnn_convolution" else False
            spatial = _numel(x[2:]) if transposed else _numel(out[2:])
            bias = _numel(out) if len(args) > 2 and args[2] is not None else 0
            return 2.0 * x[0] * spatial * _numel(w) + bias
        if base == "convolution_backward":
            gout, x, w = _arg_shape(args[0]), _arg_shape(args[1]), _arg_shape(args[2])
            transposed = bool(args[7])
            mask = list(args[10])
            spatial = _numel(x[2:]) if transposed else _numel(gout[2:])
            fwd = 2.0 * x[0] * spatial * _numel(w)
            return fwd * (int(bool(mask[0])) + int(bool(mask[1]))) + (_numel(gout) if mask[2] else 0)
        if "scaled_dot_product" in base and "attention" in base:
            q, k = _arg_shape(args[0 if "backward" not in base else 1]), _arg_shape(args[1 if "backward" not in base else 2])
            # q: (..., L, E), k: (..., S, E); value dims equal E in every model we export.
            batch_heads = _numel(q[:-2])
            fwd = 2.0 * batch_heads * q[-2] * k[-2] * (q[-1] + k[-1])
            return fwd * (2.5 if "backward" in base else 1.0)
    except (TypeError, ValueError, IndexError) as e:
        raise MemplanTorchError(f"op {name} (node {node.name}): cannot compute its FLOPs from its argument shapes: {e}")
    elems_in = sum(_numel(s) for s in (_arg_shape(a) for a in node.all_input_nodes) if s is not None)
    elems_out = sum(_numel(m[0]) for m in out_metas)
    return float(max(elems_in, elems_out))


def joint_to_graph(gm, name, recompute_batch_norm=False):
    """Convert aot_module's joint fx graph into a remat-graph/v1 dict, plus a mapping used to run it back
    (node id -> fx node name; value id -> fx node name or (fx node name, index) for merged outputs)."""
    fx_nodes = list(gm.graph.nodes)
    getitems = {}  # parent fx node -> {index: getitem fx node}
    for n in fx_nodes:
        if n.op == "call_function" and n.target is operator.getitem:
            parent, index = n.args
            if not isinstance(parent, torch.fx.Node):
                raise MemplanTorchError(f"getitem {n.name}: its source is not a graph node")
            getitems.setdefault(parent, {})[int(index)] = n

    values, nodes = [], []
    value_of = {}   # fx node -> value id
    root_of = {}    # value id -> the value id owning its storage
    fx_of_node = []

    def add_value(fx_node, shape, dtype, kind, op_name):
        vid = len(values)
        values.append({"id": vid, "name": fx_node.name, "size": _bytes(shape, dtype, op_name), "kind": kind})
        value_of[fx_node] = vid
        root_of[vid] = vid
        return vid

    output_node = None
    for n in fx_nodes:
        if n.op in ("placeholder", "get_attr"):
            m = _meta(n)
            if m is None:
                if n.op == "get_attr":
                    t = getattr(gm, n.target, None)
                    m = (tuple(t.shape), t.dtype) if isinstance(t, torch.Tensor) else None
                if m is None:
                    raise MemplanTorchError(f"graph input {n.name}: no shape or dtype recorded")
            kind = "tangent" if n.name.startswith("tangents") else "input"
            add_value(n, m[0], m[1], kind, n.name)
        elif n.op == "call_function":
            if n.target is operator.getitem:
                continue  # merged into its parent below
            op_name = _op_name(n.target)
            outs = []
            out_metas = []
            m = _meta(n)
            if m is not None:
                outs.append(add_value(n, m[0], m[1], "intermediate", op_name))
                out_metas.append(m)
            elif n in getitems:
                for index in sorted(getitems[n]):
                    g = getitems[n][index]
                    gm_meta = _meta(g)
                    if gm_meta is None:
                        raise MemplanTorchError(f"op {op_name} (node {n.name}): output {index} ({g.name}) has no shape")
                    outs.append(add_value(g, gm_meta[0], gm_meta[1], "intermediate", op_name))
                    out_metas.append(gm_meta)
            elif n.users:
                raise MemplanTorchError(f"op {op_name} (node {n.name}): no shape recorded for its output")
            inputs = []
            for a in n.all_input_nodes:
                if a not in value_of:
                    if a in getitems or a.op == "call_function":
                        raise MemplanTorchError(f"op {op_name} (node {n.name}): input {a.name} is a tuple, not a tensor")
                    raise MemplanTorchError(f"op {op_name} (node {n.name}): input {a.name} is not a tensor value")
                if value_of[a] not in inputs:
                    inputs.append(value_of[a])
            view = is_view_op(n.target)
            stateful = is_stateful(n)
            bn_stats = stateful and recompute_batch_norm and bool(_STATEFUL_BN.match(op_name)) \
                and not writes_input(n.target)
            if bn_stats:
                stateful = False  # apply-schedule updates the running statistics once however often it runs
            if (view or writes_input(n.target)) and inputs:
                base = root_of[inputs[0]]
                for v in outs:
                    root_of[v] = base
                    values[v]["view_of"] = base
                    # A view can never need more memory than the storage it aliases (expand can claim more).
                    values[v]["size"] = min(values[v]["size"], values[base]["size"])
            nodes.append({
                "id": len(nodes), "name": n.name, "op": op_name, "cost": node_cost(n, out_metas),
                "inputs": inputs, "outputs": outs,
                "recomputable": not (stateful or is_random_node(n)),
                "side_effect": stateful, "workspace": n.meta.get("memplan_workspace", 0),
            })
            if bn_stats:
                nodes[-1]["updates_running_stats"] = True
            fx_of_node.append(n.name)
        elif n.op == "output":
            output_node = n
        else:
            raise MemplanTorchError(f"graph node {n.name}: unsupported fx op kind '{n.op}'")
    if output_node is None:
        raise MemplanTorchError("joint graph has no output node")
    outputs = []
    for a in _flatten(output_node.args):
        if isinstance(a, torch.fx.Node):
            if a not in value_of:
                raise MemplanTorchError(f"graph output {a.name}: not a tensor value")
            vid = value_of[a]
            if vid not in outputs:
                outputs.append(vid)
                if values[vid]["kind"] == "intermediate":
                    values[vid]["kind"] = "output"
    graph = {
        "format": "remat-graph/v1", "name": name, "cost_unit": "flops",
        "values": values, "nodes": nodes, "order": list(range(len(nodes))), "outputs": outputs,
    }
    mapping = {"nodes": fx_of_node, "values": [v["name"] for v in values]}
    return graph, mapping


def _flatten(x):
    if isinstance(x, (list, tuple)):
        out = []
        for y in x:
            out.extend(_flatten(y))
        return out
    return [x]


def export_graph(model, inputs, name, fake=None, recompute_batch_norm=False, loss="none", dropout="fused",
                 target=None, label_smoothing=0.0, class_dim=None):
    """Trace `model` on `inputs` and return its remat-graph/v1 dict (see joint_to_graph). `fake`: as
    capture_joint takes it (default: fake tensors, else real ones). With recompute_batch_norm, training-mode
    batch norm is marked recomputable (plus `updates_running_stats`): its outputs do not depend on the running
    statistics, and apply-schedule lets only the first run update them, so recomputing it is exact when the
    schedule is applied by memplan-torch. `loss` (LOSSES, or a loss function), `target`, `label_smoothing` and
    `class_dim`: what ends the forward pass (see with_loss). `dropout` (DROPOUTS): how dropout is traced (see
    dropout_as). Made under torch.autocast, the graph holds the casts that autocast makes."""
    model, inputs = with_loss(model, inputs, loss, target, label_smoothing, class_dim)
    gm, _, _ = capture_joint(model, inputs, fake=fake, dropout=dropout)
    graph, _ = joint_to_graph(gm, name, recompute_batch_norm=recompute_batch_norm)
    graph_summary_check(graph)
    return graph


def graph_summary_check(graph):
    """Sanity checks that hold for every joint graph we emit: ids dense, inputs produced before use,
    order a permutation of the nodes. A failure is a bug in this exporter, reported as such."""
    produced = {v["id"] for v in graph["values"] if v["kind"] in ("input", "tangent")}
    for node in graph["nodes"]:
        for v in node["inputs"]:
            if v not in produced:
                raise MemplanTorchError(f"internal: node {node['name']} uses value {v} before it is produced")
        produced.update(node["outputs"])
    for v in graph["outputs"]:
        if v not in produced:
            raise MemplanTorchError(f"internal: graph output {v} is never produced")


def summarize(graph):
    """Totals for a one-line report: node and value counts, FLOPs, bytes of the inputs, nodes that must not be
    recomputed, and the views and their bytes at their own size (remat-graph/v1's default accounting)."""
    views = [v for v in graph["values"] if "view_of" in v]
    return {
        "nodes": len(graph["nodes"]), "values": len(graph["values"]),
        "flops": sum(n["cost"] for n in graph["nodes"]),
        "input_bytes": sum(v["size"] for v in graph["values"] if v["kind"] in ("input", "tangent")),
        "non_recomputable": sum(1 for n in graph["nodes"] if not n["recomputable"]),
        "views": len(views), "view_bytes": sum(v["size"] for v in views),
    }
