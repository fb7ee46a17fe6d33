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
