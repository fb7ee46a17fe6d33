"""Training with a memplan schedule: ScheduledStep is one training step of a model (forward, loss,
backward) run as the model's joint forward+backward graph in the order of a remat-schedule/v1. It
recomputes what the schedule recomputes, frees every value after the last use it serves (so the step holds
what the schedule's peak says), and leaves each parameter's gradient in `.grad` as `loss.backward()` would.
It takes the place of the forward and backward lines of a training loop:

    step = ScheduledStep(model, (x,), "graph.json", "schedule.json")   # x: an example batch
    for x, y in batches:
        optimizer.zero_grad()
        loss = step(x, y)
        optimizer.step()

The graph is the one `memplan-torch export-graph` wrote for this model at this batch size (the step takes its
--loss, --label-smoothing, --class-dim and --dropout from what the graph records, unless given loss= and dropout=),
the schedule one that `memplan remat` or `memplan plan` made from it. A batch of the example's shapes runs the
graph traced for them; a batch of smaller shapes (an epoch's last, smaller batch; shorter sequences) runs the
same schedule on the graph traced again at its shapes, once per shape: each tensor is then no larger than
planned, and neither is the peak. Larger batches, other dtypes and other ranks are refused.

The loss is the cross-entropy of the model's logits (CrossEntropy: label smoothing, the class dimension), or
any loss function (loss=fn, example_target=y). Modules are traced in the modes they are in (a frozen batch
norm in eval mode stays so); frozen parameters get no gradient.

Mixed precision: made inside an autocast context, the step's graph holds the casts that autocast made while
tracing, and the step runs it with autocast off; it must be called under the autocast state it was made in.
With float16, `step(x, y, grad_scale=scaler)` scales the backward pass by a GradScaler's scale.

Data parallel: the step runs outside autograd, where DistributedDataParallel all-reduces gradients in hooks, so
each rank calls all_reduce_gradients(model.parameters()) after its step, as DDP would have averaged them.

Random ops (dropout, stochastic depth) draw what autograd would draw from the same generator state, so a step
gives autograd's numbers. Where the schedule moves one random op past another, the step first draws them all
once more in autograd's order to learn each one's generator state (schedule.draw_states): extra random
numbers, and one random op's tensors at a time while nothing but the parameters and the batch is live.
"""

import json

import torch

from . import autocast
from .errors import MemplanTorchError
from .graph_export import device_of, is_stateful, named_args, rng_generator, written_arguments
from .losses import WithLoss, exported_loss, output_sum, output_tensors, with_loss, without_loss
from .options import export_record, recorded
from .schedule import (CompiledSequence, check_schedule, check_sequence, draw_states, graph_outputs, lifted_state,
                       parameter_gradients, random_nodes, read_graph, read_schedule, retrace, trace_joint)


def _graph_of(graph):
    """A remat-graph/v1 dict from a dict or the path of a JSON file."""
    return graph if isinstance(graph, dict) else read_graph(graph)


def _sequence_of(schedule):
    """The node sequence of a remat-schedule/v1 given as a dict, a path, or the sequence itself."""
    if isinstance(schedule, dict):
        check_schedule(schedule, "schedule")
        return list(schedule["sequence"])
    if isinstance(schedule, (list, tuple)):
        return list(schedule)
    return list(read_schedule(schedule)["sequence"])


def _with_loss(model, example_inputs, loss, target):
    """losses.with_loss, leaving the inputs' generator as it was (a cross-entropy target may be drawn)."""
    get_state, set_state = rng_generator(device_of(example_inputs))
    rng = get_state()
    try:
        return with_loss(model, tuple(example_inputs), loss, target)
    finally:
        set_state(rng)


def _batch_norms_counted(model, gm, primals):
    """The batch-norm modules whose step counter (num_batches_tracked) the step must advance itself: those
    whose running statistics the graph updates but whose counter it does not write (torch 1.13 traces the
    counter's Python-side add_ out of the graph; a functionalized graph writes it back with copy_). A graph
    whose batch norm returns new statistics (the functional form) without writing them back into the
    buffers is refused: training with it would leave the running statistics as they were. (A module with
    momentum None, whose averaging factor is 1 / the counter, cannot be traced at all.)"""
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    primal_of = {n.name: primals[i] for i, n in enumerate(placeholders) if i < len(primals)}
    written = {id(primal_of[a.name]) for n in gm.graph.nodes if n.op == "call_function"
               for a in written_arguments(n) if a.name in primal_of}
    updated = set()
    for n in gm.graph.nodes:
        if n.op != "call_function" or not is_stateful(n):
            continue
        args = named_args(n)
        stats = [primal_of[a.name] for a in (args.get("running_mean"), args.get("running_var"))
                 if isinstance(a, torch.fx.Node) and a.name in primal_of]
        functional = "functional" in str(n.target)
        if functional and not all(id(t) in written for t in stats):
            raise MemplanTorchError(f"torch {torch.__version__} traces training batch norm functionally ({n.target}) "
                                    "without writing the new running statistics back into the buffers; "
                                    "ScheduledStep does not write them back itself yet")
        updated.update(id(t) for t in stats)
    return [m for m in model.modules()
            if isinstance(m, torch.nn.modules.batchnorm._BatchNorm) and id(getattr(m, "running_mean", None)) in updated
            and m.num_batches_tracked is not None and id(m.num_batches_tracked) not in written]


class ScheduledStep:
    """A training step of `model` that follows a memplan schedule (see the module's docstring).

    model: the torch.nn.Module to train, its modules in the modes to train in (traced as they are; a call
    with a module in another mode is refused), on its device;
    example_inputs: a tuple of tensors, one batch of the model's inputs (the target excluded);
    graph: the remat-graph/v1 of the model (a dict or a path); schedule: a remat-schedule/v1 (a dict, a path,
    or its node sequence); loss: "cross-entropy" (the graph ends with the mean cross-entropy of the model's
    logits against a target: the step is called with the inputs and the target and returns the loss; with
    label smoothing or another class dimension, losses.CrossEntropy(label_smoothing, class_dim)), "mse"
    (the same with F.mse_loss), a loss function (loss(output, target) -> a scalar tensor; the graph ends with
    it, the step is called as with "cross-entropy"), or "none" (the graph ends at the model's outputs: the
    step returns them and backpropagates their sum); example_target: one batch of the target, which a loss
    function needs (and which the graph's target must have the shape of); dropout: "fused" or "decomposed", as
    the graph was exported. loss and dropout default to what the graph records of its export (export-graph's
    --loss, --label-smoothing, --class-dim and --dropout; options.export_record), else export-graph's defaults,
    "cross-entropy" and "fused".

    The model is traced again (schedule.retrace: with fake tensors, else with real ones, as the graph may have
    been exported); its parameters, running statistics, modes and the generator are left as they were. A graph
    that is not this model's at this batch size, or a schedule that is not valid on it, raises
    MemplanTorchError. ScheduledStep.planned plans the schedule itself.
    """

    def __init__(self, model, example_inputs, graph, schedule, loss=None, dropout=None, example_target=None):
        graph_json = _graph_of(graph)
        record = export_record(graph_json, graph if isinstance(graph, str) else "graph")
        loss = exported_loss(record) if loss is None else loss
        dropout = recorded(record, "dropout") if dropout is None else dropout
        sequence = _sequence_of(schedule)
        module, inputs = _with_loss(model, example_inputs, loss, example_target)
        self._setup(model, module, inputs, retrace(module, inputs, graph_json, dropout), graph_json, sequence, loss,
                    dropout)
        self.plan = None

    @classmethod
    def planned(cls, model, example_inputs, budget, loss="cross-entropy", dropout="fused", time_limit_s=10.0,
                seed=1, example_target=None, views_alias=True):
        """Plans the step in-process and returns it: the model traced once, with fake tensors where this torch
        can (schedule.trace_joint with fake=None; batch norm recomputable), FastSA on its graph through the
        bindings (memplan_native, as `memplan remat --budget B --time-limit T --seed S --views-alias`), the
        schedule checked by the independent validator. views_alias: count a view as memory of the tensor that
        owns its storage, as PyTorch holds it (False: at its own size, as remat-graph/v1 does by default; an
        unrolled LSTM's views then triple its reference peak, and a plan that reorders them claims half of it
        while the step holds as much as autograd's). budget: bytes (an int, or text with a unit: "6GiB") or a
        percentage of the reference order's peak ("50%"). The step's `plan` holds what `memplan remat --json`
        prints (budget_met, peak, reference_peak, memory_percent, cost_increase_percent, views, ...) and the
        graph's lower_bound (the floor no schedule goes below); a budget that cannot be met gives the best
        schedule found, as memplan does (budget_met False). Ctrl-C while FastSA runs stops it with the best
        schedule so far (plan["status"] "interrupted")."""
        from . import native

        try:
            planner = native.load()
        except ImportError as e:
            raise MemplanTorchError(f"ScheduledStep.planned needs the memplan_native bindings: {e}") from e
        module, inputs = _with_loss(model, example_inputs, loss, example_target)
        traced = trace_joint(module, inputs, dropout, recompute_batch_norm=True, fake=None)
        graph_json = traced[1]
        graph = planner.parse_graph(json.dumps(graph_json), views_alias=views_alias)
        try:
            result = planner.plan_remat(graph, budget, time_limit_s=time_limit_s, seed=seed)
        except ValueError as e:  # a budget that is neither bytes nor a percentage
            raise MemplanTorchError(str(e)) from e
        check = planner.validate_schedule(graph, result["sequence"], peak=result["peak"], cost=result["cost"])
        if not check["ok"]:
            raise MemplanTorchError(f"internal: the planned schedule fails validation: {check['errors'][:3]}")
        step = cls.__new__(cls)
        step._setup(model, module, inputs, traced, graph_json, result["sequence"], loss, dropout)
        step.plan = {k: v for k, v in result.items() if k not in ("sequence", "schedule_json")}
        step.plan["lower_bound"] = graph.peak_lower_bound()
        return step

    def _setup(self, model, module, inputs, traced, graph_json, sequence, loss, dropout):
        """What both constructors share: the traced module (the model, or it with its loss), its joint graph
        (trace_joint's tuple) and a sequence valid on `graph_json`, which the trace matches."""
        self._module = module
        gm, _, _, primals, _, num_params = traced
        check_sequence(graph_json, sequence)
        self._graph_json = graph_json
        self._sequence = list(sequence)
        self._dropout = dropout
        self._state = primals[:len(primals) - len(inputs)]  # parameters and buffers, as the graph lifted them
        self._params = primals[:num_params]
        self._inputs = [(tuple(t.shape), t.dtype) for t in inputs]
        self._by_shapes = {tuple(shape for shape, _ in self._inputs): _Program(traced, self._sequence)}
        self._num_fwd = len(graph_outputs(gm)) - len(primals)
        self._counted = _batch_norms_counted(model, gm, primals)
        self._loss = loss
        self._device = device_of(inputs)
        self._autocast = autocast.state(self._device.type)
        self._modes = [(name or type(model).__name__, m, m.training) for name, m in model.named_modules()]

    def __call__(self, *inputs, grad_scale=None):
        """Runs the step on one batch (the model's inputs, then the target, unless the loss is "none").
        Adds each parameter's gradient to its .grad (sets it where None) and returns the loss (or, with loss
        "none", the model's output, or a tuple of its outputs). grad_scale: a number, or a GradScaler of
        mixed-precision training, that scales what is backpropagated, as `scaler.scale(loss).backward()`
        does (the returned loss is not scaled); `scaler.step(optimizer)` then unscales the gradients."""
        self._check_call(inputs)
        program = self._program_for(inputs)
        primals = [t.detach() for t in self._state] + [t.detach() for t in inputs]
        drawn = draw_states(program.random, self._device) if program.redraw else None
        with torch.autocast(self._device.type, enabled=False):  # the graph's casts are its own
            outputs = program.run(primals, self._scaled_tangents(program.tangents, grad_scale),
                                  rng_states=drawn[0] if drawn else None)
        if drawn:
            rng_generator(self._device)[1](drawn[1])
        for p, g in parameter_gradients(self._params, outputs[self._num_fwd:self._num_fwd + len(self._params)]):
            if g.stride() != p.stride():  # as autograd stores it: in the parameter's layout
                g = torch.empty_strided(p.shape, p.stride(), dtype=p.dtype, device=p.device).copy_(g)
            if p.grad is None:
                p.grad = g
            else:
                p.grad += g
        for m in self._counted:
            m.num_batches_tracked.add_(1)
        forward = outputs[:self._num_fwd]
        return forward[0] if len(forward) == 1 else tuple(forward)

    def _check_call(self, inputs):
        """That the step can run on `inputs` as it was made: their shapes, dtypes and device, the model's
        tensors, modes and the autocast state; MemplanTorchError naming what differs."""
        what = "the model's inputs" if without_loss(self._loss) else "the model's inputs and the target"
        if len(inputs) != len(self._inputs):
            raise MemplanTorchError(f"ScheduledStep: expected {len(self._inputs)} tensors ({what}), got {len(inputs)}")
        for k, (t, (shape, dtype)) in enumerate(zip(inputs, self._inputs)):
            if not isinstance(t, torch.Tensor) or t.dtype != dtype or t.dim() != len(shape) or \
                    any(a > b for a, b in zip(t.shape, shape)):
                got = f"{t.dtype} {tuple(t.shape)}" if isinstance(t, torch.Tensor) else type(t).__name__
                raise MemplanTorchError(f"ScheduledStep: argument {k}: expected a {dtype} tensor of shape {shape} "
                                        f"(the graph was traced for it) or smaller in some dimensions, got {got}")
        state = lifted_state(self._module, len(self._state))
        if state is None or any(a is not b for a, b in zip(state[0] + state[1], self._state)):
            raise MemplanTorchError("ScheduledStep: the model's parameters and buffers are not the tensors the step "
                                    "was made with (replaced, or converted into new ones); make the step again")
        moved = next((f"argument {k}" for k, t in enumerate(inputs) if t.device != self._device), None) or \
            next(("the model" for t in self._state if t.device != self._device), None)
        if moved:
            raise MemplanTorchError(f"ScheduledStep: {moved} is on another device than {self._device}, where the step "
                                    "was made; make the step after the model and the batch are on their device")
        changed = next(((name, training) for name, m, training in self._modes if m.training != training), None)
        if changed:
            mode = {True: "training", False: "eval"}
            raise MemplanTorchError(f"ScheduledStep: module '{changed[0]}' is in {mode[not changed[1]]} mode here but "
                                    f"was in {mode[changed[1]]} mode when the step was traced; make the step again "
                                    "for these modes")
        here = autocast.state(self._device.type)
        if here[0] != self._autocast[0] or here[0] and here[1] != self._autocast[1]:
            raise MemplanTorchError(f"ScheduledStep: autocast is {autocast.describe(here)} here but was "
                                    f"{autocast.describe(self._autocast)} when the step was traced; its graph holds "
                                    "the casts it was traced with: call it as it was made")

    def _program_for(self, inputs):
        """The _Program for the shapes of `inputs` (checked by _check_call): the model traced at them the first
        time (schedule.retrace with smaller: the graph's nodes, no value larger than planned)."""
        shapes = tuple(tuple(t.shape) for t in inputs)
        if shapes not in self._by_shapes:
            try:
                traced = retrace(self._module, tuple(inputs), self._graph_json, self._dropout, smaller=True)
            except MemplanTorchError as e:
                made = ", ".join(str(shape) for shape, _ in self._inputs)
                raise MemplanTorchError(f"ScheduledStep: inputs of shapes {', '.join(map(str, shapes))}, smaller than "
                                        f"the {made} the step was made for, cannot run its schedule (make a step "
                                        f"for them): {e}") from e
            if any(a is not b for a, b in zip(traced[3], self._state)):
                raise MemplanTorchError("internal: the trace at new shapes lifted other parameters and buffers")
            self._by_shapes[shapes] = _Program(traced, self._sequence)
        return self._by_shapes[shapes]

    def _scaled_tangents(self, tangents, grad_scale):
        """`tangents` (ones: the backward of the loss, or of the outputs' sum) times grad_scale."""
        if grad_scale is None:
            return tangents
        one = torch.ones((), dtype=torch.float32, device=self._device)
        if hasattr(grad_scale, "scale"):  # a GradScaler: its scale() also readies it for step() and unscale_()
            scale = grad_scale.scale(one)
        elif isinstance(grad_scale, (int, float)) and not isinstance(grad_scale, bool):
            scale = one * grad_scale
        else:
            raise MemplanTorchError(f"ScheduledStep: grad_scale: expected a number or a GradScaler, got "
                                    f"{type(grad_scale).__name__}")
        return [t * scale.to(t.dtype) for t in tangents]


class _Program:
    """What a ScheduledStep runs for one set of input shapes: the schedule's sequence compiled on the joint
    graph traced at them (trace_joint's tuple), with its tangents and random nodes."""

    def __init__(self, traced, sequence):
        gm, graph, mapping, _, self.tangents, _ = traced
        self.run = CompiledSequence(gm, graph, mapping, sequence)
        # Random nodes run once each; where the schedule moves one past another, each draws from the state it
        # would have in autograd's order, so the step draws the numbers autograd would.
        self.random = random_nodes(gm, graph, mapping)
        drawing = [nid for nid, _ in self.random]
        random_ids = frozenset(drawing)
        self.redraw = [n for n in sequence if n in random_ids] != drawing


def all_reduce_gradients(parameters, group=None, bucket_bytes=25 << 20):
    """Averages the `.grad` of `parameters` (an iterable, or a module's) over the ranks of `group` (default: every
    rank), as DistributedDataParallel does in its backward hooks, which a ScheduledStep never calls: what a
    data-parallel step adds between the step and `optimizer.step()`. The gradients go in buckets of at most
    `bucket_bytes` of one dtype and device, one all_reduce each, in parameter order, each divided by the world
    size first, as DDP's default does. A parameter without a gradient is left out, so every rank must have the
    same ones (ranks running the same step do). Sparse gradients are an error."""
    import torch.distributed as dist

    if not dist.is_available() or not dist.is_initialized():
        raise MemplanTorchError("all_reduce_gradients: torch.distributed is not initialized "
                                "(torch.distributed.init_process_group)")
    if isinstance(parameters, torch.nn.Module):
        parameters = parameters.parameters()
    grads = [p.grad for p in parameters if p.grad is not None]
    if any(g.is_sparse for g in grads):
        raise MemplanTorchError("all_reduce_gradients: sparse gradients (nn.Embedding(sparse=True)) are not supported")
    buckets, room = [], 0  # room: bytes the last bucket can still take
    for g in grads:
        size = g.numel() * g.element_size()
        if not buckets or (g.dtype, g.device) != (buckets[-1][0].dtype, buckets[-1][0].device) or size > room:
            buckets.append([])
            room = bucket_bytes
        buckets[-1].append(g)
        room -= size
    world = dist.get_world_size(group)
    for bucket in buckets:
        flat = torch.cat([g.reshape(-1) for g in bucket]).div_(world)
        dist.all_reduce(flat, group=group)
        offset = 0
        for g in bucket:
            g.copy_(flat[offset:offset + g.numel()].view_as(g))
            offset += g.numel()


def autograd_step(model, loss="cross-entropy", autocast_dtype=None):
    """The plain training step that a ScheduledStep with `loss` stands for, by autograd: called with the
    same arguments, it backpropagates and returns the same thing (the loss: the mean cross-entropy of the
    logits against the target, or the loss function's value; with "none", the outputs, whose sum it
    backpropagates). With `autocast_dtype` (a dtype name) the forward pass and the loss run in an autocast
    region on the batch's device and the backward pass after it, as torch's mixed-precision recipe has it."""
    module = model if without_loss(loss) else WithLoss(model, loss)

    def step(*args):
        with autocast.region(autocast_dtype, device_of(args).type):
            out = module(*args)
        (output_sum(out) if without_loss(loss) else out).backward()
        return out
    return step


def compare_with_autograd(model, step, batches, measure, loss="cross-entropy", autocast_dtype=None, reference=None):
    """Trains `model` with `step` (its ScheduledStep) and a copy of it, taken first, with autograd, on the
    same `batches` (tuples of the step's arguments; SGD, learning rate 0.01, momentum 0.9), the CPU generator
    seeded alike before each step; with `autocast_dtype` (a dtype name; the step made under it) the scheduled
    step is called in an autocast region of its own on the batch's device, and autograd's step runs its
    forward pass in one (autograd_step). measure(call) runs call() and returns (its result,
    the bytes the step made). reference: optionally (a copy of the model taken first, a ScheduledStep of it in
    the graph's own order, no recomputation), a third run: the graph's kernels without the schedule, which
    tells the schedule's effect apart from the kernels' (on a GPU, autograd's cuDNN kernels and the graph's
    native ones round differently, and a deep network amplifies that over steps). Returns per run
    ("scheduled", "autograd", "reference") its losses, its largest step and its seconds per step: losses_*,
    step_peak_*, seconds_*; whether the scheduled losses agree with autograd's to 1e-4 (losses_close), the
    largest relative difference (max_relative_difference), and against the reference run the same two
    (losses_close_to_reference, max_relative_difference_to_reference)."""
    import copy
    import math
    import time

    def scheduled(*batch):
        with autocast.region(autocast_dtype, device_of(batch).type):  # the state the step was made in
            return step(*batch)

    plain = copy.deepcopy(model)
    runs = {"scheduled": (model, scheduled), "autograd": (plain, autograd_step(plain, loss, autocast_dtype))}
    if reference:
        reference_model, reference_step = reference

        def in_graph_order(*batch):
            with autocast.region(autocast_dtype, device_of(batch).type):
                return reference_step(*batch)

        runs["reference"] = (reference_model, in_graph_order)
    opts = {name: torch.optim.SGD(m.parameters(), lr=0.01, momentum=0.9) for name, (m, _) in runs.items()}
    result = {}
    for k, batch in enumerate(batches):
        for name, (_, call) in runs.items():
            torch.manual_seed(k)  # dropout: the same generator state (the same masks where they draw alike)
            opts[name].zero_grad(set_to_none=True)
            start = time.perf_counter()
            out, made = measure(lambda: call(*batch))
            result.setdefault("seconds_" + name, []).append(time.perf_counter() - start)
            opts[name].step()
            result.setdefault("losses_" + name, []).append(sum(float(t.sum()) for t in output_tensors(out)
                                                               if t.dtype.is_floating_point))
            result["step_peak_" + name] = max(result.get("step_peak_" + name, 0), made)
    for other, suffix in (("autograd", ""), ("reference", "_to_reference")):
        if "losses_" + other not in result:
            continue
        pairs = list(zip(result["losses_scheduled"], result["losses_" + other]))
        result["losses_close" + suffix] = all(math.isclose(a, b, rel_tol=1e-4, abs_tol=1e-6) for a, b in pairs)
        result["max_relative_difference" + suffix] = max(abs(a - b) / max(abs(a), abs(b), 1e-30) for a, b in pairs)
    return result
