"""Weights mode (a scenario without a pool): ``joint`` against ``probabilistic``.

The question before retiring ``probabilistic``: where no pool names the models to choose
among, the engine learns the weights themselves; does ``joint`` learn them as well as
``probabilistic`` for the same number of questions? The elicitation benchmark's own cells
(:func:`tradeoff.simulation.bench.run_elicitation`: flat Dirichlet truths over swing
weights, median and p90 of the L1 error of the weights after 10, 20, 30, 40 and 60
questions, regret on a 200-model synthetic pool), for the two strategies only, on the
scenarios without a pool.

Run: ``.venv/bin/python -m benchmarks.weights_mode [--runs N] [--no-write]``; writes
benchmarks/results/weights_mode.md.
"""

from __future__ import annotations

import argparse
import sys
import time

from benchmarks._table import markdown, write
from tradeoff.simulation.bench import run_elicitation

SCENARIOS = ("glaucoma-screening", "paper-k3-cost-two-rewards", "paper-k2-two-costs")
NOISES = ("exact", "flip:0.1", "logistic:0.01")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50, help="simulated people per cell")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    rows = run_elicitation(
        runs=args.runs,
        strategies=("probabilistic", "joint"),
        scenarios=SCENARIOS,
        noises=NOISES,
        workers=args.workers,
    )
    took = time.perf_counter() - started
    by = {(r["strategy"], r["scenario"], r["noise"], r["budget"]): r for r in rows}
    table_rows = []
    for scenario in SCENARIOS:
        for noise in NOISES:
            for budget in (10, 20, 30, 60):
                p = by[("probabilistic", scenario, noise, budget)]
                j = by[("joint", scenario, noise, budget)]
                table_rows.append(
                    [
                        scenario,
                        noise,
                        budget,
                        f"{p['l1_median']:.3f} / {p['l1_p90']:.3f}",
                        f"{j['l1_median']:.3f} / {j['l1_p90']:.3f}",
                        f"{j['l1_median'] / p['l1_median']:.2f}" if p["l1_median"] else "–",
                        f"{p['questions_median']:g} / {j['questions_median']:g}",
                        f"{p['regret_p90']:.3f} / {j['regret_p90']:.3f}",
                    ]
                )
    body = (
        f"{args.runs} simulated people per cell (flat Dirichlet truths over swing weights, "
        f"seed 0), the elicitation benchmark's cells for two strategies; ran in {took:.0f} s.\n\n"
        + markdown(
            [
                "scenario",
                "answers",
                "budget",
                "probabilistic L1 median / p90",
                "joint L1 median / p90",
                "joint ÷ probabilistic (median)",
                "questions asked (p / j)",
                "regret p90 (p / j)",
            ],
            table_rows,
        )
        + f"\n\nReproduce: `.venv/bin/python -m benchmarks.weights_mode --runs {args.runs}`"
    )
    if args.no_write:
        print(body)
    else:
        write("weights_mode", "Weights mode: joint against probabilistic", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
