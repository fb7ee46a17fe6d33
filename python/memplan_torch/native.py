"""Loading the pybind11 module memplan_native (python/native/, built by CMake when pybind11 is found):
the allocation and recomputation planners in-process. The CLI (`memplan`) stays the primary interface;
this is for callers that want to plan without a subprocess and files.

    from memplan_torch import native
    m = native.load()                                   # ImportError when it is not built
    problem = m.parse_problem(open("t.csv").read(), period=540)
    plan = m.plan_allocation(problem, time_limit_s=2)   # method="exact+sa", as memplan alloc
    assert m.validate(problem, plan["offsets"])["ok"]
    graph = m.parse_graph(open("g.json").read())
    result = m.plan_remat(graph, "50%", time_limit_s=5)   # result["schedule_json"]: remat-schedule/v1
"""

import glob
import importlib
import os
import sys

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def candidate_dirs():
    """Where the built module may be: $MEMPLAN_NATIVE_DIR, then build*/python/native of this checkout, the
    most recently built first."""
    dirs = []
    env = os.environ.get("MEMPLAN_NATIVE_DIR")
    if env:
        dirs.append(env)

    def built_at(d):
        return max((os.path.getmtime(f) for f in glob.glob(os.path.join(d, "memplan_native*.so"))), default=0)

    dirs.extend(sorted(glob.glob(os.path.join(_REPO, "build*", "python", "native")), key=built_at, reverse=True))
    return dirs


def load():
    """Import memplan_native: from sys.path if it is there, else from the first candidate directory that
    holds a build of it. Raises ImportError naming the places looked at."""
    try:
        return importlib.import_module("memplan_native")
    except ImportError:
        pass
    tried = []
    for d in candidate_dirs():
        if not glob.glob(os.path.join(d, "memplan_native*.so")):
            tried.append(d)
            continue
        sys.path.insert(0, d)
        try:
            return importlib.import_module("memplan_native")
        except ImportError as e:
            tried.append(f"{d} ({e})")
        finally:
            sys.path.remove(d)
    raise ImportError("memplan_native is not built (configure CMake with pybind11-dev installed and "
                      f"-DPython3_EXECUTABLE=/usr/bin/python3; looked in: {', '.join(tried) or 'nothing'})")
