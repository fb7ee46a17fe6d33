"""memplan_torch: PyTorch integration of memplan.

Exports the joint forward+backward graph of a torch.nn.Module, with its training loss (losses), as
remat-graph/v1 JSON (graph_export), records the allocation pattern of one training iteration as MiniMalloc
CSV (trace), imports CUDA memory snapshots (snapshot), rebuilds a joint graph in the order of a
remat-schedule/v1 to check it (schedule), and trains with a schedule (training.ScheduledStep). The command
line (`python3 -m memplan_torch`, cli.py) is the primary interface; the choices and defaults of its options,
and the record of them that a graph keeps, are in options (torch-free).
"""

__all__ = ["CrossEntropy", "KeywordInputs", "MemplanTorchError", "ScheduledStep", "SelectOutput",
           "all_reduce_gradients"]

from .errors import MemplanTorchError  # noqa: E402


def __getattr__(name):
    # ScheduledStep, all_reduce_gradients, CrossEntropy, SelectOutput and KeywordInputs need torch; the command
    # line's --help and the torch-free modules must not.
    if name in ("ScheduledStep", "all_reduce_gradients"):
        from . import training
        return getattr(training, name)
    if name in ("CrossEntropy", "SelectOutput", "KeywordInputs"):
        from . import losses
        return getattr(losses, name)
    raise AttributeError(f"module 'memplan_torch' has no attribute '{name}'")
