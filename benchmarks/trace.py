"""L1 error of the estimate after every question, for the three strategies (paper 004 Fig. 4).

Run: ``.venv/bin/python -m benchmarks.trace [--runs 20]`` (writes
benchmarks/results/trace.md and trace.png). Exact answers on paper 004's four setups,
``--runs`` random truths each (flat Dirichlet over swing weights, the same truths for every
strategy); Algorithm 1 (``paper``) runs to ε = 0.001 (120 questions for four weights), the
others stop at 40 questions. The same figures for one setup and strategy:
``tradeoff simulate scenarios/NAME.toml --strategy S --runs R --trace --json``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from tests.conftest import PAPER_SCENARIOS, SCENARIOS

from benchmarks._table import RESULTS, markdown, write
from tradeoff.ask.scenario import load_scenario
from tradeoff.simulation.simulate import simulate

STRATEGIES = ("paper", "bisection", "probabilistic")
CHECKPOINTS = (5, 10, 20, 30, 40, 80, 120)


def main(runs: int) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(PAPER_SCENARIOS), figsize=(16, 4), sharey=True)
    rows = []
    start = time.perf_counter()
    for ax, name in zip(axes, PAPER_SCENARIOS, strict=True):
        sc = load_scenario(SCENARIOS / f"{name}.toml").scenario
        for strategy in STRATEGIES:
            budget = None if strategy == "paper" else 40
            spec = sc.elicitation.override(strategy=strategy, budget=budget)
            summary = simulate(sc, spec=spec, runs=runs, trace=True)
            traced = summary.trace_quantiles()
            assert traced is not None
            median = np.array(traced[0])
            ax.semilogy(np.arange(1, len(median) + 1), median, label=strategy)
            rows.append(
                [name, strategy]
                + [f"{median[q - 1]:.4f}" if q <= len(median) else "" for q in CHECKPOINTS]
            )
        ax.set_title(name)
        ax.set_xlabel("questions")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel(f"median L1 error over {runs} truths")
    axes[0].legend()
    fig.tight_layout()
    RESULTS.mkdir(exist_ok=True)
    fig.savefig(RESULTS / "trace.png", dpi=110)
    plt.close(fig)
    took = time.perf_counter() - start
    body = (
        markdown(["setup", "strategy", *[f"after {q}" for q in CHECKPOINTS]], rows)
        + f"\n\nMedian L1 error after each number of questions, exact answers, {runs} random "
        f"truths per setup; figure: trace.png. {took:.0f} s.\n"
        f"Reproduce: `.venv/bin/python -m benchmarks.trace --runs {runs}`.\n"
    )
    write("trace", "Error trace per question (paper 004 Fig. 4)", body)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=20)
    main(parser.parse_args().runs)
