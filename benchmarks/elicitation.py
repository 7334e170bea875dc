"""Elicitation benchmark: strategies × scenarios × noise × budgets (see tradeoff.simulation.bench).

Run: ``.venv/bin/python -m benchmarks.elicitation [RUNS]`` or ``tradeoff bench elicitation``;
writes benchmarks/results/elicitation.md and elicitation.png.
"""

from __future__ import annotations

import sys

from tradeoff.simulation.bench import main_elicitation

if __name__ == "__main__":
    main_elicitation("benchmarks/results", runs=int(sys.argv[1]) if len(sys.argv) > 1 else 100)
