"""`python3 -m memplan_torch ...`: the memplan-torch command line."""

import sys

from .cli import main

sys.exit(main())
