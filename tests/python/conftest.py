"""Shared helpers for the memplan_torch tests: paths of the repository and its committed data; puts
python/ on sys.path so the tests also run without PYTHONPATH (CTest sets it anyway)."""

import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(REPO, "data", "torch")
if os.path.join(REPO, "python") not in sys.path:
    sys.path.insert(0, os.path.join(REPO, "python"))


def memplan_binary():
    """The memplan executable: $MEMPLAN_BIN (CTest sets it), else the first build*/src/tools/memplan of this
    checkout; None when there is none (tests that need it skip)."""
    import glob

    env = os.environ.get("MEMPLAN_BIN")
    if env and os.access(env, os.X_OK):
        return env
    for path in sorted(glob.glob(os.path.join(REPO, "build*", "src", "tools", "memplan"))):
        if os.access(path, os.X_OK):
            return path
    return None


def recompute_late(graph, limit=None, several_outputs=False):
    """A hand-made schedule: the reference order, plus a recomputation of each recomputable node with FLOPs
    and one output (with several_outputs, any number: batch norm) right before the last step that uses one of
    its outputs (when that step is well after it)."""
    seq = list(graph["order"])
    last_use = {}
    for pos, nid in enumerate(seq):
        for v in graph["nodes"][nid]["inputs"]:
            last_use[v] = pos
    inserts = []
    for n in graph["nodes"]:
        if n["recomputable"] and n["cost"] > 0 and (len(n["outputs"]) == 1 or several_outputs and n["outputs"]):
            pos = max(last_use.get(v, -1) for v in n["outputs"])
            if pos > n["id"] + 5:
                inserts.append((pos, n["id"]))
    inserts = sorted(inserts)[:limit]
    for k, (pos, nid) in enumerate(inserts):
        seq.insert(pos + k, nid)
    return seq


class StandInOp:
    """Stands for an op of torch 2.x that 1.13 lacks, in hand-made fx graphs: its schema and its name, as
    graph_export reads them; it is only traced, never run."""

    def __init__(self, schema):
        import torch

        self._schema = torch._C.parse_schema(schema)
        self.name = schema.split("(")[0].replace("::", ".") + ".default"
        self.__name__ = self.name.split(".")[1]  # for fx's node names

    def __str__(self):
        return self.name

    def __call__(self, *args):
        raise AssertionError("a stand-in op is only traced")
