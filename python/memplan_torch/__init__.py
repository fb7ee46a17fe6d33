"""memplan_torch: PyTorch integration of memplan.

Exports the joint forward+backward graph of a torch.nn.Module as remat-graph/v1 JSON (graph_export),
records the allocation pattern of one training iteration as MiniMalloc CSV (trace), imports CUDA memory
snapshots (snapshot), and rebuilds a joint graph in the order of a remat-schedule/v1 to check it
(schedule). The command line (`python3 -m memplan_torch`, cli.py) is the primary interface.
"""

__all__ = ["MemplanTorchError"]

from .errors import MemplanTorchError  # noqa: E402
