"""`python -m tokenguide ...`: the command line (see tokenguide.cli)."""

import sys

from .cli import main

sys.exit(main())
