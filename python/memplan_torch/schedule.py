"""Applying a remat-schedule/v1 to the real joint graph: run the graph's nodes in the schedule's order
(a repeated node id is a recomputation), free every value after the last use its current production serves
(the memory semantics of docs/ARCHITECTURE.md), and compare the results with the reference order and with
autograd on the model itself. The trace recorder measures the live tensor bytes while it runs.

Batch-norm nodes in training mode update running statistics in place; when such a node is recomputed we
hand it copies of the statistics, so the buffers are updated exactly once, as in the original step.
Random nodes (dropout, stochastic depth) draw from the generator of their device: each is run from the
generator state it had in the reference order, so that a schedule that moves them draws the same numbers
(torch.utils.checkpoint's preserve_rng_state, per node).
"""

import json

import torch
import torch.fx

from . import autocast
from .errors import MemplanTorchError
from .graph_export import capture_joint, device_of, is_random_node, is_stateful, joint_to_graph, rng_generator
from .losses import model_name, output_sum
from .memory import free_plan, simulate_peak


def _read_json(path, what):
    """The JSON document in `path`; an error naming the file and `what` it should hold if it cannot be read."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise MemplanTorchError(f"{path}: cannot read {what}: {e}") from e


def read_graph(path):
    """Load a remat-graph/v1 JSON file; a clear error for anything else."""
    graph = _read_json(path, "the graph")
    if not isinstance(graph, dict) or graph.get("format") != "remat-graph/v1":
        raise MemplanTorchError(f"{path}: format: expected 'remat-graph/v1'")
    return graph


def read_schedule(path):
    """Load a remat-schedule/v1 JSON file; a clear error for anything else."""
    sched = _read_json(path, "a schedule")
    check_schedule(sched, path)
    return sched


def check_schedule(sched, where):
    """A clear error (naming `where`) unless `sched` is a remat-schedule/v1 dict with a sequence array."""
    if not isinstance(sched, dict) or sched.get("format") != "remat-schedule/v1":
        raise MemplanTorchError(f"{where}: format: expected 'remat-schedule/v1'")
    if not isinstance(sched.get("sequence"), list):
        raise MemplanTorchError(f"{where}: sequence: expected an array of node ids")


def check_sequence(graph, sequence, where="schedule"):
    """Validity of a sequence on a remat-graph/v1 dict: ids exist, inputs produced earlier, non-recomputable
    nodes exactly once, graph outputs produced. Errors name the position and the node."""
    nodes = graph["nodes"]
    available = {v["id"] for v in graph["values"] if v["kind"] in ("input", "tangent")}
    runs = [0] * len(nodes)
    for pos, nid in enumerate(sequence):
        if not isinstance(nid, int) or not 0 <= nid < len(nodes):
            raise MemplanTorchError(f"{where}: sequence[{pos}]: no node with id {nid!r}")
        node = nodes[nid]
        missing = [v for v in node["inputs"] if v not in available]
        if missing:
            raise MemplanTorchError(f"{where}: sequence[{pos}]: node {nid} ({node['name']}) uses value {missing[0]} "
                                    "before any step produces it")
        available.update(node["outputs"])
        runs[nid] += 1
    for nid, n in enumerate(runs):
        if not nodes[nid]["recomputable"] and n != 1:
            raise MemplanTorchError(f"{where}: node {nid} ({nodes[nid]['name']}) is not recomputable but runs {n} times")
    for v in graph["outputs"]:
        if v not in available:
            raise MemplanTorchError(f"{where}: graph output value {v} is never produced")


def _fx_nodes(gm):
    return {n.name: n for n in gm.graph.nodes}


def random_nodes(gm, graph, mapping):
    """The graph's random nodes in its reference order, the order in which autograd draws: (node id, fx node)
    pairs."""
    by_name = _fx_nodes(gm)
    nodes = ((nid, by_name[mapping["nodes"][nid]]) for nid in graph["order"])
    return [(nid, fx_node) for nid, fx_node in nodes if is_random_node(fx_node)]


def draw_states(random, device):
    """The generator state that each of the `random` nodes (random_nodes) starts from when they draw in the
    reference order, as autograd draws them: ({node id: state}, the state after the last), for
    run_sequence's rng_states; the generator is left in the state after the last. Each random op runs here
    once more, on uninitialized tensors of its arguments' traced shapes (how many numbers it draws depends on
    shapes, not values), one at a time. None, the generator untouched, where an argument has no traced
    shape."""
    get_state, set_state = rng_generator(device)
    start = get_state()

    def blank(a):
        meta = a.meta.get("tensor_meta")
        if not hasattr(meta, "shape"):
            raise LookupError(a.name)
        return torch.empty_strided(tuple(meta.shape), tuple(meta.stride), dtype=meta.dtype, device=device)

    states = {}
    with torch.no_grad():
        for nid, fx_node in random:
            try:
                args = torch.fx.node.map_arg(fx_node.args, blank)
                kwargs = torch.fx.node.map_arg(fx_node.kwargs, blank)
            except LookupError:
                set_state(start)
                return None
            states[nid] = get_state()
            _drawing_as_eager(fx_node.target)(*args, **kwargs)
            del args, kwargs
    return states, get_state()


class CompiledSequence:
    """A sequence of the joint fx graph `gm`, compiled once into one Python function: each step calls its op
    on the values it reads, keeps its outputs and drops every value after the last use that its production
    serves (free_plan), so that a run holds what the schedule's peak says. A recomputed batch norm gets copies
    of the running statistics (they are updated once); a random node runs from the generator state that
    rng_states gives it, if any. Compiling checks that every step reads only live values. ScheduledStep keeps
    one and calls it every step; run_sequence compiles one and calls it once."""

    def __init__(self, gm, graph, mapping, sequence):
        by_name = _fx_nodes(gm)
        self._placeholders = [n.name for n in gm.graph.nodes if n.op == "placeholder"]
        attrs = [n for n in gm.graph.nodes if n.op == "get_attr"]
        slot = {name: k for k, name in enumerate(self._placeholders + [n.name for n in attrs])}
        self._attrs = [(slot[n.name], getattr(gm, n.target)) for n in attrs]
        live = set(slot)
        value_name = mapping["values"]
        for name in value_name:
            slot.setdefault(name, len(slot))
        self._size = len(slot)
        self._ops, self._constants = [], []
        dies = free_plan(graph, sequence)
        runs = [0] * len(graph["nodes"])

        def render(a, pos):
            """The Python expression for argument `a` of step `pos`."""
            if isinstance(a, torch.fx.Node):
                if a.name not in live:
                    raise MemplanTorchError(f"internal: value {a.name} is not live when step {pos} needs it")
                return f"e[{slot[a.name]}]"
            if isinstance(a, (list, tuple)):
                inner = ", ".join(render(x, pos) for x in a)
                return f"[{inner}]" if isinstance(a, list) else f"({inner}{',' if len(a) == 1 else ''})"
            self._constants.append(a)
            return f"c[{len(self._constants) - 1}]"

        lines = ["def run(e, c, f, states, rng, clone):"]
        for pos, nid in enumerate(sequence):
            fx_node = by_name[mapping["nodes"][nid]]
            args = [render(a, pos) for a in fx_node.args]
            if runs[nid] and is_stateful(fx_node):  # recomputed batch norm: copies of the running statistics
                args = [f"clone({a})" if i in (3, 4) else a for i, a in enumerate(args)]
            args += [f"{k}={render(a, pos)}" for k, a in fx_node.kwargs.items()]
            runs[nid] += 1
            if is_random_node(fx_node):
                lines.append(f"    if states is not None: rng(states, {nid})")
            self._ops.append(_drawing_as_eager(fx_node.target))
            call = f"f[{len(self._ops) - 1}]({', '.join(args)})"
            outs = [value_name[v] for v in graph["nodes"][nid]["outputs"]]
            if outs == [fx_node.name]:
                lines.append(f"    e[{slot[fx_node.name]}] = {call}")
            else:  # a tuple: its getitems' values, then let go of the tuple before the next step
                lines += [f"    r = {call}"] + [f"    e[{slot[v]}] = r[{by_name[v].args[1]}]" for v in outs]
                lines.append("    r = None")
            live.update(outs)
            for v in dies[pos]:
                lines.append(f"    e[{slot[value_name[v]]}] = None")
                live.discard(value_name[v])
        output = [n for n in gm.graph.nodes if n.op == "output"][0]
        for a in output.args[0]:
            if isinstance(a, torch.fx.Node) and a.name not in live:
                raise MemplanTorchError(f"internal: graph output {a.name} is not live at the end of the sequence")
        self._outputs = [slot[a.name] if isinstance(a, torch.fx.Node) else None for a in output.args[0]]
        lines.append("    return e")
        scope = {}
        exec(compile("\n".join(lines) + "\n", "<memplan schedule>", "exec"), scope)
        self._run = scope["run"]

    def __call__(self, primals, tangents, recorder=None, rng_states=None):
        """Runs the sequence on real primals and tangents (no autograd) and returns the graph's outputs in the
        joint graph's output order (None where the joint output is None). recorder: a context (the trace
        recorder) to run in. rng_states (dict: node id -> generator state of the primals' device): a random
        node found in it runs from that state; one not found records the state it runs from."""
        inputs = list(primals) + list(tangents)
        if len(inputs) != len(self._placeholders):
            raise MemplanTorchError(f"joint graph has {len(self._placeholders)} inputs, got {len(inputs)}")
        get_state, set_state = rng_generator(device_of(primals))

        def rng(states, nid):
            if nid in states:
                set_state(states[nid])
            else:
                states[nid] = get_state()

        env = inputs + [None] * (self._size - len(inputs))
        for k, tensor in self._attrs:
            env[k] = tensor
        del inputs
        with torch.no_grad(), (recorder if recorder is not None else _Null()):
            env = self._run(env, self._constants, self._ops, rng_states, rng, _clone)
        return [env[k] if k is not None else None for k in self._outputs]


def _native_dropout_as_eager(input, p, train):
    """aten.native_dropout whose mask draws as eager dropout draws on the CPU. There F.dropout takes the
    decomposed path, a bernoulli_ of a contiguous tensor of the input's shape, which draws in the logical order
    of the elements, while native_dropout's CPU kernel draws into a mask of the input's memory layout: where
    dropout's input is not contiguous (nn.MultiheadAttention's batch_first output, a transposed view) the
    same numbers would land on other elements, and the step would not train as autograd does. CUDA runs
    native_dropout in eager mode too, so only the CPU is changed."""
    if input.device.type != "cpu" or train is False or not 0.0 < p < 1.0:  # train None: training, as in ATen
        return torch.ops.aten.native_dropout.default(input, p, train)
    mask = torch.empty(input.shape, dtype=torch.bool).bernoulli_(1.0 - p)
    return input * mask * (1.0 / (1.0 - p)), mask


def _drawing_as_eager(op):
    """The function a sequence calls for `op`: native_dropout as eager dropout draws (above), else `op`."""
    return _native_dropout_as_eager if op is torch.ops.aten.native_dropout.default else op


def _clone(a):
    """A copy of a tensor argument: the running statistics that a recomputed batch norm updates."""
    return a.clone() if isinstance(a, torch.Tensor) else a


def run_sequence(gm, graph, mapping, primals, tangents, sequence, recorder=None, rng_states=None):
    """Execute `sequence` on the joint fx graph `gm` once (CompiledSequence): the list of graph outputs in the
    joint graph's output order (None where the joint output is None). rng_states: as CompiledSequence."""
    return CompiledSequence(gm, graph, mapping, sequence)(primals, tangents, recorder, rng_states)


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def graph_outputs(gm):
    """The joint fx graph's outputs: the forward pass's, then one gradient (or None) per primal input."""
    return [n for n in gm.graph.nodes if n.op == "output"][0].args[0]


def lifted_state(module, count):
    """The module's parameters and buffers in the order aot_module lifted them into the joint graph's `count`
    primal state inputs: parameters, then buffers, module by module; a tensor that two modules share (tied
    weights) once (torch 1.13), or once for each module where that makes `count`. Returns (parameters,
    buffers), or None where neither reading gives `count`."""
    for shared_once in (True, False):
        modules = [m for _, m in module.named_modules(remove_duplicate=shared_once)]
        params = [p for m in modules for p in m._parameters.values() if p is not None]
        buffers = [b for m in modules for b in m._buffers.values() if b is not None]
        if shared_once:
            params, buffers = list(dict.fromkeys(params)), list(dict.fromkeys(buffers))
        if len(params) + len(buffers) == count:
            return params, buffers
    return None


def trace_joint(model, inputs, dropout="fused", recompute_batch_norm=False, fake=True):
    """Trace `model(*inputs)` into its joint fx graph (`dropout`: options.DROPOUTS; `fake`: True with fake
    tensors, False with real ones (as --real-tensors), None with fake ones else real ones (as export-graph does
    by default; graph_export.capture_joint)).
    Returns (gm, graph, mapping, primals, tangents, num_params): the fx graph, its remat-graph/v1 dict (see
    graph_export.joint_to_graph) and fx names, the real tensors for its primal inputs (lifted_state's
    parameters and buffers, then `inputs`: the same objects), one all-ones tangent per forward output (the
    backward of the sum of the outputs), and how many primals are parameters. The fx graph runs on real
    tensors however it was traced."""
    gm, joint_inputs, _ = capture_joint(model, inputs, fake=fake, dropout=dropout)
    graph, mapping = joint_to_graph(gm, model_name(model), recompute_batch_norm=recompute_batch_norm)
    traced = list(joint_inputs[0])
    state = lifted_state(model, len(traced) - len(inputs))
    params, buffers = state or ([], [])
    primals = params + buffers + list(inputs)
    if state is None or any(a.shape != b.shape or a.dtype != b.dtype for a, b in zip(traced, primals)):
        raise MemplanTorchError("internal: the joint graph's primal inputs are not the module's parameters, "
                                "buffers and inputs in that order")
    tangent_phs = [n for n in gm.graph.nodes if n.op == "placeholder" and n.name.startswith("tangents")]
    metas = [n.meta["tensor_meta"] if "tensor_meta" in n.meta else n.meta["val"] for n in tangent_phs]
    # each of its output's dtype: under autocast an output may be bfloat16 while the parameters are float32
    tangents = [torch.ones(tuple(m.shape), dtype=m.dtype, device=primals[0].device) for m in metas]
    return gm, graph, mapping, primals, tangents, len(params)


def _trace_difference(graph, graph_json, name, smaller=False):
    """How the traced `graph` differs from `graph_json`: None, or ("nodes" or "sizes", a message naming the
    first difference). With `smaller`, a value smaller than the file's is no difference (a batch of smaller
    shapes), only a larger one."""
    mine = [(n["op"], n["inputs"], n["outputs"]) for n in graph["nodes"]]
    theirs = [(n["op"], n["inputs"], n["outputs"]) for n in graph_json["nodes"]]
    if mine != theirs:
        first = next((i for i, (a, b) in enumerate(zip(mine, theirs)) if a != b), min(len(mine), len(theirs)))
        return "nodes", (f"the graph file does not match {name} as traced here (first difference at node {first}); "
                         "export it again with the same --model-output, --loss, --label-smoothing, --class-dim, "
                         "--dropout and --autocast")
    sizes = [(v["size"], w["size"]) for v, w in zip(graph["values"], graph_json["values"])]
    if smaller and len(graph["values"]) == len(graph_json["values"]):
        k = next((k for k, (a, b) in enumerate(sizes) if a > b), None)
        return None if k is None else ("sizes", f"{name} on these inputs holds {sizes[k][0]} bytes in value {k}, "
                                                f"more than the {sizes[k][1]} of the graph the schedule was planned "
                                                "on: the step takes no larger inputs than its graph's")
    if len(graph["values"]) != len(graph_json["values"]) or any(a != b for a, b in sizes):
        k = next((k for k, (a, b) in enumerate(sizes) if a != b), min(len(sizes), len(graph_json["values"])))
        here, there = (f"{sizes[k][0]} bytes", f"{sizes[k][1]}") if k < len(sizes) else ("no value", "a value")
        return "sizes", (f"the graph file does not match {name} on these inputs: value {k} holds {here} here and "
                         f"{there} in the file; export it at this batch size and input shape")
    return None


def retrace(model, inputs, graph_json, dropout="fused", smaller=False):
    """trace_joint as `graph_json` was exported (`dropout` the same): with fake tensors (export-graph's
    default), else, where the fake trace fails or differs (a few more `detach` on some models; batch norm in
    eval mode, whose saved statistics are empty on real tensors; an op whose output size depends on the data,
    which fake tensors cannot size), with real ones (--real-tensors), at most once. A graph that matches
    neither way raises MemplanTorchError naming the first difference (the fake trace's where it ran), or, where
    neither trace ran, the fake trace's error. With `smaller`, the trace matches where it has the file's nodes
    and no value larger than the file's (inputs of smaller shapes)."""
    name = model_name(model)
    try:
        fake = trace_joint(model, inputs, dropout, fake=True)
    except MemplanTorchError as e:
        fake, fake_error = None, e
    else:
        difference = _trace_difference(fake[1], graph_json, name, smaller)
        if difference is None:
            return fake
    try:
        real = trace_joint(model, inputs, dropout, fake=False)
    except MemplanTorchError:
        if fake is None:
            raise fake_error from None
        raise MemplanTorchError(difference[1]) from None
    real_difference = _trace_difference(real[1], graph_json, name, smaller)
    if real_difference is None:
        return real
    raise MemplanTorchError((difference if fake is not None else real_difference)[1])


def parameter_gradients(params, grads):
    """The joint graph's gradient outputs for the lifted parameters (trace_joint), summed per parameter
    where it is lifted more than once (tied weights): a list of (parameter, gradient), each parameter
    once, in lifted order; a parameter without a gradient is left out."""
    total = {}
    for p, g in zip(params, grads):
        if g is not None:
            total[id(p)] = (p, total[id(p)][1] + g) if id(p) in total else (p, g)
    return list(total.values())


def view_disagreements(gm, graph, mapping, primals, tangents):
    """Runs the joint fx graph once on real tensors (under no_grad, each value freed after its last use) and
    returns where the graph's view marks and the storages torch shares disagree, as (node id, op, what):
    "unmarked" where an output shares an input's storage without view_of (the graph counts it as memory of its
    own: an op the exporter does not know as a view), "marked" where a view_of output shares no input's
    storage. Random ops draw and batch norm updates its statistics: the caller puts both back."""
    from .trace import storage_of

    by_name = {mapping["nodes"][n["id"]]: n for n in graph["nodes"]}
    found = []

    def storages(tensors):
        return {st[0] for st in map(storage_of, tensors) if st is not None}

    class Audit(torch.fx.Interpreter):
        def run_node(self, n):
            out = super().run_node(n)
            node = by_name.get(n.name)
            if node is not None:
                ins = storages(self.env[a] for a in n.all_input_nodes if isinstance(self.env[a], torch.Tensor))
                outs = [o for o in (out if isinstance(out, (tuple, list)) else [out]) if isinstance(o, torch.Tensor)]
                shares = bool(storages(outs) & ins)
                marked = any("view_of" in graph["values"][v] for v in node["outputs"])
                if shares != marked:
                    found.append((node["id"], node["op"], "unmarked" if shares else "marked"))
            return out

    with torch.no_grad():
        Audit(gm).run(*primals, *tangents)
    return found


def apply_schedule(model, inputs, graph_json, sequence, rtol=1e-4, atol=1e-5, dropout="fused"):
    """Re-trace `model` on `inputs` (`dropout` as the graph was exported: options.DROPOUTS), check the
    trace matches `graph_json` node for node (retrace), run the reference order and `sequence`, and compare: the
    schedule's outputs against the reference order's, and the reference order's parameter gradients against
    autograd on the model. Dropout draws the same numbers in all three runs (the reference order
    starts from autograd's generator state; run_sequence replays it per node). The modules run in the modes
    they are in; under torch.autocast autograd runs under it and the graph, which holds its casts, without.
    Last, the graph runs once more to compare its view marks with the storages torch shares
    (view_disagreements; the generator and the running statistics are put back after it).
    Returns a report dict (allclose results, max differences, measured and predicted peaks, view
    disagreements)."""
    from .trace import AllocationRecorder

    # Autograd on the model itself first; then restore the running statistics that this step updated.
    state = {k: v.clone() for k, v in model.state_dict().items()}
    model.zero_grad(set_to_none=True)
    device = device_of(inputs)
    get_state, set_state = rng_generator(device)
    rng_start = get_state()
    autocast.forget_casts()  # casts the caller's region holds may lack autograd history
    output_sum(model(*inputs)).backward()  # a loss (WithLoss) is its own sum
    autocast.forget_casts()
    autograd = {id(p): p.grad.clone() for p in model.parameters() if p.grad is not None}
    model.zero_grad(set_to_none=True)
    model.load_state_dict(state)
    gm, graph, mapping, primals, tangents, num_params = retrace(model, inputs, graph_json, dropout)
    # The file's recomputable flags are what the planner obeyed (the structure is the same, checked above).
    check_sequence(graph_json, sequence)
    num_fwd = len(graph_outputs(gm)) - len(primals)
    rng_states = {}
    set_state(rng_start)
    rec = AllocationRecorder()
    with torch.autocast(device.type, enabled=False):
        ref = run_sequence(gm, graph, mapping, primals, tangents, graph["order"], rng_states=rng_states)
        model.load_state_dict(state)  # undo the running-statistics update of the reference run
        got = run_sequence(gm, graph, mapping, primals, tangents, sequence, recorder=rec, rng_states=rng_states)
        after, rng_after = {k: v.clone() for k, v in model.state_dict().items()}, get_state()
        disagreements = view_disagreements(gm, graph, mapping, primals, tangents)
        model.load_state_dict(after)
        set_state(rng_after)

    report = {"steps": len(sequence), "recomputed_steps": len(sequence) - len(set(sequence)), "rtol": rtol,
              "atol": atol}
    diffs = [float((a - b).abs().max()) for a, b in zip(ref, got) if a is not None and a.numel()]
    report["schedule_vs_reference_allclose"] = all(
        torch.allclose(a, b, rtol=rtol, atol=atol) for a, b in zip(ref, got) if a is not None)
    report["schedule_vs_reference_max_abs_diff"] = max(diffs) if diffs else 0.0

    mine = parameter_gradients(primals[:num_params], ref[num_fwd:num_fwd + num_params])
    if {id(p) for p, _ in mine} != set(autograd) or any(g.shape != autograd[id(p)].shape for p, g in mine):
        raise MemplanTorchError("internal: the joint graph's gradient outputs do not line up with the model's "
                                "parameters")
    pairs = [(autograd[id(p)], g) for p, g in mine]
    report["reference_vs_autograd_allclose"] = all(torch.allclose(p, g, rtol=rtol, atol=atol) for p, g in pairs)
    report["reference_vs_autograd_max_abs_diff"] = max(float((p - g).abs().max()) for p, g in pairs)

    input_bytes = sum(v["size"] for v in graph["values"] if v["kind"] in ("input", "tangent"))
    report["measured_peak_bytes"] = input_bytes + rec.peak_live_bytes
    report["predicted_peak_bytes"] = simulate_peak(graph, sequence)
    # The recorder counts a storage once, live while any alias of it is; the graph counts every view at full
    # size. This figure applies the recorder's rule to the graph: the closer analogue of what was measured.
    report["predicted_peak_storage_bytes"] = simulate_peak(graph, sequence, by_storage=True)
    report["reference_predicted_peak_bytes"] = simulate_peak(graph, graph["order"])
    report["measured_over_predicted"] = report["measured_peak_bytes"] / report["predicted_peak_bytes"]
    report["measured_over_predicted_storage"] = report["measured_peak_bytes"] / report["predicted_peak_storage_bytes"]
    report["view_disagreements"] = [{"node": i, "op": op, "what": what} for i, op, what in disagreements]
    return report
