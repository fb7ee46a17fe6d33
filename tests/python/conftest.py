"""Shared helpers for the memplan_torch tests: paths of the repository and its committed data; puts
python/ on sys.path so the tests also run without PYTHONPATH (CTest sets it anyway)."""

import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(REPO, "data", "torch")
if os.path.join(REPO, "python") not in sys.path:
    sys.path.insert(0, os.path.join(REPO, "python"))
