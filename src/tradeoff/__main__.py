"""``python -m tradeoff`` runs the command line."""

import sys

from tradeoff.cli import main

sys.exit(main())
