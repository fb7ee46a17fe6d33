"""The memplan-torch command line: export-graph, trace, import-snapshot, apply-schedule.

Exit status follows memplan's: 0 done, 2 bad input (message names the op, field or file; nothing written),
3 internal error, 130 interrupted."""

import argparse
import json
import os
import sys
import time

from .errors import MemplanTorchError
from .options import DROPOUTS, EXPORT_OPTIONS, LOSSES, TRACE_LOSSES, TRACE_OPTIONS, export_record, recorded


def _model_and_inputs(args):
    """(model, inputs, make_inputs): the model of the command's arguments (seeded; in SelectOutput under
    --model-output), one batch of its inputs (a tuple), and a function that makes another."""
    import torch
    from . import models

    torch.manual_seed(args.seed)
    parsed = [models.parse_input_shape(text) for text in args.input_shape or ()]
    model, make_inputs = models.load_model_and_inputs(args.model, args.batch, [shape for _, shape in parsed],
                                                      args.input_dtype or (), args.model_output,
                                                      [name for name, _ in parsed])
    return model, make_inputs(), make_inputs


def _cmd_export_graph(args):
    from . import atomic, autocast, graph_export, models, progress

    model, inputs, _ = _model_and_inputs(args)
    model, inputs = models.to_device(model, inputs, args.device)
    name = args.name or f"{args.model.split('(')[0].split(':')[-1]}_bs{args.batch}"
    t0 = time.time()
    tensors = "real tensors" if args.real_tensors else "fake tensors (real ones where those fail)"
    with progress.phase(f"{name}: tracing the joint graph with {tensors}"), \
            autocast.region(args.autocast, inputs[0].device.type):
        graph = graph_export.export_graph(model, inputs, name, fake=False if args.real_tensors else None,
                                          recompute_batch_norm=args.recompute_batch_norm, loss=args.loss,
                                          dropout=args.dropout, label_smoothing=args.label_smoothing,
                                          class_dim=args.class_dim)
    s = graph_export.summarize(graph)
    graph["export"] = {"model": args.model, **{key: getattr(args, key) for key in (*EXPORT_OPTIONS, *TRACE_OPTIONS)},
                       "torch": _torch_version()}
    atomic.write_json(args.output, graph, compact=True)
    print(f"{name}: {s['nodes']} nodes, {s['values']} values, {s['flops']:.3e} FLOPs, "
          f"inputs {s['input_bytes'] / 2**20:.1f} MiB, {s['non_recomputable']} non-recomputable nodes "
          f"({time.time() - t0:.1f} s) -> {args.output}", file=sys.stderr)
    if s["views"]:
        print(f"{name}: {s['views']} views ({s['view_bytes'] / 2**20:.1f} MiB at their own size); PyTorch holds a "
              "view in its base's storage: plan with `memplan remat --views-alias` (or `memplan plan "
              "--views-alias`) to count it so", file=sys.stderr)
    return 0


def _cmd_trace(args):
    from . import losses, pattern, progress, trace

    model, _, make_inputs = _model_and_inputs(args)
    names = trace.select_modules(losses.user_model(model), args.checkpoint.split(",")) if args.checkpoint else []
    t0 = time.time()
    with progress.phase(f"{args.model}: three training iterations, the last two recorded"):
        rows, meta = trace.trace_training(model, make_inputs, names, autocast_dtype=args.autocast, loss=args.loss,
                                          label_smoothing=args.label_smoothing, class_dim=args.class_dim)
    meta.update({"model": args.model, "batch": args.batch, "csv": os.path.basename(args.output)})
    # what it takes to record the same pattern again, beside the model and batch
    for key, value in (("input_shapes", args.input_shape), ("input_dtypes", args.input_dtype),
                       ("model_output", args.model_output)):
        if value is not None:
            meta[key] = value
    pattern.write(args.output, rows, meta)
    print(f"{args.model} batch {args.batch}{' checkpointed ' + ','.join(names) if names else ''}: "
          f"{meta['buffers']} buffers, period {meta['period']}, peak load {meta['peak_load'] / 2**20:.1f} MiB "
          f"({time.time() - t0:.1f} s) -> {args.output} + {pattern.meta_path(args.output)}", file=sys.stderr)
    return 0


def _cmd_import_snapshot(args):
    from . import pattern, progress, snapshot

    with progress.phase(f"{args.snapshot}: reading the snapshot and finding one iteration"):
        snap = snapshot.load(args.snapshot)
        rows, meta = snapshot.import_snapshot(snap, device=args.device, marker_size=args.marker_size,
                                              round_to=args.round, min_period=args.min_period)
        extra = []
        if args.replay:  # the allocator's state when the recording began, and every event after it
            extra.append((args.replay, json.dumps(snapshot.replay_of(snap, device=meta["device"])) + "\n"))
    meta.update({"snapshot": os.path.basename(args.snapshot), "csv": os.path.basename(args.output)})
    pattern.write(args.output, rows, meta, extra)
    for action, count in sorted(meta["skipped_events"].items()):
        if action not in snapshot.OTHERS:
            print(f"{args.snapshot}: warning: skipped {count} event(s) of unknown action '{action}' (a newer "
                  "torch?); the pattern holds alloc and free events only", file=sys.stderr)
    print(f"{args.snapshot}: {meta['buffers']} buffers, period {meta['period']}, peak load "
          f"{meta['peak_load'] / 2**20:.1f} MiB + persistent {meta['persistent_bytes'] / 2**20:.1f} MiB; "
          f"PyTorch reserved {meta['reserved_peak_bytes'] / 2**20:.1f} MiB -> {args.output}", file=sys.stderr)
    return 0


def _torch_version():
    """The version of the torch this command runs with."""
    import torch

    return torch.__version__


def _flag(key, value):
    """The command-line text of option `key` (an EXPORT_OPTIONS key) with `value`."""
    values = value if isinstance(value, list) else [value]
    return " ".join(f"--{key.replace('_', '-')} {v}" for v in values)


def _as_exported(args, record):
    """Gives the model, where not given, and each EXPORT_OPTIONS option that the command line left out the
    value `record` holds (else export-graph's default; the cross-entropy's options only where the loss is the
    record's); says on stderr which ones came from the record, and which given ones differ."""
    recorded_model = record.get("model") if isinstance(record.get("model"), str) else None
    if args.model is None and recorded_model is None:
        raise MemplanTorchError(f"{args.graph}: the graph records no model (exported before 2026-12-02, or not by "
                                "export-graph): give MODEL")
    taken = [recorded_model] if args.model is None else []
    if args.model is not None and recorded_model not in (None, args.model):
        print(f"memplan-torch: note: the model {args.model} is not the graph's export's ({recorded_model})",
              file=sys.stderr)
    args.model = args.model or recorded_model
    for key, default in EXPORT_OPTIONS.items():
        given = getattr(args, key)
        if given is None and key in ("label_smoothing", "class_dim") and \
                args.loss != recorded(record, "loss"):
            setattr(args, key, default)
        elif given is None:
            setattr(args, key, recorded(record, key))
            if getattr(args, key) != default:
                taken.append(_flag(key, record[key]))
        elif key in record and given != record[key]:
            print(f"memplan-torch: note: {_flag(key, given)} differs from the graph's export "
                  f"({_flag(key, record[key]) if record[key] is not None else 'not given'})", file=sys.stderr)
    if taken:
        print(f"memplan-torch: as the graph was exported: {' '.join(taken)}", file=sys.stderr)


def _cmd_apply_schedule(args):
    import json

    from . import atomic, autocast, losses, progress, schedule

    graph = schedule.read_graph(args.graph)
    _as_exported(args, export_record(graph, args.graph))
    model, inputs, _ = _model_and_inputs(args)
    sched = schedule.read_schedule(args.schedule)
    with progress.phase(f"{args.model}: autograd's step, a trace, then the graph in its order and the schedule's"), \
            autocast.region(args.autocast):
        model, inputs = losses.with_loss(model, inputs, args.loss, label_smoothing=args.label_smoothing,
                                         class_dim=args.class_dim)
        report = schedule.apply_schedule(model, inputs, graph, sched["sequence"], rtol=args.rtol, atol=args.atol,
                                         dropout=args.dropout)
    if "peak" in sched:
        report["schedule_claimed_peak_bytes"] = sched["peak"]
    text = json.dumps(report, indent=1) + "\n"
    if args.output:
        atomic.write_text(args.output, text)
    else:
        sys.stdout.write(text)
    ok = report["schedule_vs_reference_allclose"] and report["reference_vs_autograd_allclose"]
    print(f"gradients {'match' if ok else 'DIFFER'}; live-tensor peak {report['measured_peak_bytes'] / 2**20:.1f} MiB "
          f"measured vs {report['predicted_peak_bytes'] / 2**20:.1f} MiB predicted "
          f"({report['predicted_peak_storage_bytes'] / 2**20:.1f} MiB counting each storage once)", file=sys.stderr)
    unmarked = sorted({d["op"] for d in report["view_disagreements"] if d["what"] == "unmarked"})
    if unmarked:
        print(f"memplan-torch: warning: {', '.join(unmarked)} returned views of an input that the graph counts as "
              "memory of their own (the exporter does not know them as views): predicted peaks overstate what "
              "they hold; please report them", file=sys.stderr)
    if not report["reference_vs_autograd_allclose"] and args.model_output is not None:
        print("note: the graph leaves out what computes only the outputs other than --model-output; where that "
              "holds random ops (GoogLeNet's auxiliary dropout), autograd's step draws for them and the graph does "
              "not, so the later dropout masks, and the gradients, differ; build the model without them (GoogLeNet: "
              "aux_logits=False or dropout_aux=0.0)", file=sys.stderr)
    return 0 if ok else 1


def _tolerance(text):
    """A comparison tolerance from the command line: a finite number, 0 or more."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0.0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"'{text}': expected a finite number, 0 or more")
    return value


def build_parser():
    """The argparse parser of every subcommand (kept separate so tests can inspect it)."""
    p = argparse.ArgumentParser(prog="memplan-torch", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)

    def model_args(q, recorded=False):
        q.add_argument("model", nargs="?" if recorded else None,
                       help="MODULE:CONSTRUCTOR, e.g. torchvision:resnet18 or memplan_torch.models:gpt_small, "
                       "with keyword arguments in parentheses where needed: 'torchvision:googlenet(aux_logits=False)'"
                       + ("; default: the one the graph records" if recorded else ""))
        q.add_argument("--batch", type=int, default=EXPORT_OPTIONS["batch"], help="batch size (default 8)")
        q.add_argument("--input-shape", action="append", metavar="SHAPE",
                       help="per-sample input shape, e.g. 3,224,224 (default: the model's example_input, else "
                       "3,224,224); once per input, in order, for a model of several inputs (token ids and a mask); "
                       "NAME=SHAPE passes that input by keyword, e.g. labels=128 for a model that computes its own "
                       "loss (then --model-output loss --loss none)")
        q.add_argument("--input-dtype", action="append", metavar="DTYPE",
                       help="input dtype, e.g. int64 (default float32); once for every input, or once per "
                       "--input-shape")
        q.add_argument("--seed", type=int, default=EXPORT_OPTIONS["seed"])
        q.add_argument("--model-output", metavar="KEY",
                       help="where the model returns more than one tensor (a dict such as Hugging Face's "
                       "ModelOutput, a named tuple, a tuple): the key, field or position of the one the loss takes, "
                       "e.g. logits or 0; the others get no gradient")

    def loss_arg(q, choices=LOSSES, default=EXPORT_OPTIONS["loss"],
                 what="what ends the forward pass: cross-entropy (default; the output read as logits, classes last, "
                 "or in dimension 1 from 4 dimensions on (N, C, H, W), against a random integer target, so the "
                 "graph holds the loss and its backward as a training step does), mse (mean squared error "
                 "against a random target of the output's shape: regression, denoising) or none (the graph ends "
                 "at the outputs; their gradients are inputs)"):
        q.add_argument("--loss", choices=choices, default=default, help=what)
        q.add_argument("--label-smoothing", type=float, default=EXPORT_OPTIONS["label_smoothing"],
                       help="label smoothing of the cross-entropy loss, from 0 to 1 (default 0; torchvision's "
                       "recipes use 0.1)")
        q.add_argument("--class-dim", type=int, metavar="DIM",
                       help="the dimension of the logits that holds the classes, for the cross-entropy loss; "
                       "negative counts from the end (default: the last, or 1 from 4 dimensions on; (N, C, L) "
                       "logits of a 1-d dense-prediction model need 1); the target is the logits' shape without it")

    def autocast_arg(q, what):
        q.add_argument("--autocast", metavar="DTYPE",
                       help=f"{what} under CPU autocast with DTYPE (bfloat16; float16 where this torch's CPU "
                       "autocast takes it, torch 2.x), as mixed-precision training runs it")

    def dropout_arg(q):
        q.add_argument("--dropout", choices=DROPOUTS, default=EXPORT_OPTIONS["dropout"],
                       help="how dropout is traced: fused (default; aten.native_dropout as CUDA runs it, a 1-byte "
                       "mask kept for the backward) or decomposed (the CPU path: in torch 1.13 a 4-byte float mask)")

    q = sub.add_parser("export-graph", help="joint forward+backward graph -> remat-graph/v1 JSON")
    model_args(q)
    q.add_argument("-o", "--output", required=True)
    q.add_argument("--name", help="graph name (default CONSTRUCTOR_bsBATCH)")
    q.add_argument("--real-tensors", action="store_true", help="trace with real tensors instead of fake ones (slow; "
                   "by default real ones only where this torch's fake tensors cannot trace the model, as an op "
                   "whose output size depends on the data; torch 2.x always traces with fake ones)")
    q.add_argument("--device", default=TRACE_OPTIONS["device"], help="the device to trace on (default cpu), e.g. "
                   "cuda: the graph holds the kernels of the device the step will run on (torch 2.x picks attention "
                   "kernels by device), and --autocast is that device's")
    q.add_argument("--recompute-batch-norm", action="store_true", help="mark training-mode batch norm recomputable "
                   "(apply-schedule updates its running statistics once however often it runs)")
    loss_arg(q)
    dropout_arg(q)
    autocast_arg(q, "trace the forward pass (the graph holds autocast's casts)")
    q.set_defaults(func=_cmd_export_graph)

    q = sub.add_parser("trace", help="allocation pattern of one training iteration (CPU) -> MiniMalloc CSV "
                       "+ NAME.meta.json with the period")
    model_args(q)
    q.add_argument("-o", "--output", required=True, help="CSV path; the period goes to NAME.meta.json beside it")
    q.add_argument("--checkpoint", help="comma-separated submodule names or patterns to wrap in "
                   "torch.utils.checkpoint, e.g. layer1,layer2 or 'blocks.*'")
    loss_arg(q, TRACE_LOSSES, "mean", "what the iteration backpropagates: mean (default; of the output, as the "
             "committed traces), or export-graph's cross-entropy or mse against a random target")
    autocast_arg(q, "run the forward pass and the loss")
    q.set_defaults(func=_cmd_trace)

    q = sub.add_parser("import-snapshot", help="CUDA memory snapshot pickle -> MiniMalloc CSV of one "
                       "steady-state iteration + NAME.meta.json (period, PyTorch's reserved peak)")
    q.add_argument("snapshot", help="pickle from torch.cuda.memory._dump_snapshot")
    q.add_argument("-o", "--output", required=True)
    q.add_argument("--device", type=int, help="device index (default: the one with the most events)")
    q.add_argument("--marker-size", type=int, help="requested size of the alloc that marks each iteration start")
    q.add_argument("--round", type=int, default=512, help="round sizes up to this multiple (default 512, as "
                   "the caching allocator does; 1 keeps requested sizes)")
    q.add_argument("--min-period", type=int, default=16, help="without markers: shortest iteration, in events")
    q.add_argument("--replay", metavar="R.json", help="also write the whole recording for `memplan simulate "
                   "--replay` (caching-replay/v1: the allocator's segments and live blocks when it began, then "
                   "every event with its real address)")
    q.set_defaults(func=_cmd_import_snapshot)

    q = sub.add_parser("apply-schedule", help="run the joint graph in a remat-schedule/v1 order; check gradients "
                       "and measure the live-tensor peak",
                       description="Options that export-graph takes too (--batch, --input-shape, --input-dtype, "
                       "--seed, --model-output, --loss, --label-smoothing, --class-dim, --dropout, --autocast) "
                       "default to what the graph records of its export (graphs exported since 2026-12-02), else "
                       "to export-graph's defaults.")
    model_args(q, recorded=True)
    q.add_argument("--graph", required=True,
                   help="the graph the schedule was planned on (export-graph, the same --input-shape, "
                   "--model-output, --loss, --label-smoothing, --class-dim, --dropout and --autocast)")
    q.add_argument("--schedule", required=True, help="remat-schedule/v1 JSON (memplan remat)")
    q.add_argument("-o", "--output", help="report JSON (default: stdout)")
    q.add_argument("--rtol", type=_tolerance, default=1e-4, help="relative tolerance of the gradient comparisons "
                   "(torch.allclose; default 1e-4)")
    q.add_argument("--atol", type=_tolerance, default=1e-5, help="absolute tolerance of the gradient comparisons "
                   "(default 1e-5); on a GPU, autograd's cuDNN kernels and the graph's native ones may differ by more "
                   "on a deep network")
    loss_arg(q)
    dropout_arg(q)
    autocast_arg(q, "trace the graph and run autograd's step")
    q.set_defaults(func=_cmd_apply_schedule, **dict.fromkeys(EXPORT_OPTIONS))  # None: not given (_as_exported)
    return p


def main(argv=None):
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except MemplanTorchError as e:
        print(f"memplan-torch: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("memplan-torch: interrupted", file=sys.stderr)
        return 130
