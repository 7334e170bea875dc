"""Exact answers, 40 questions, 4 weights: does a small first weight hurt the others?

Run: ``.venv/bin/python -m benchmarks.first_weight [--truths 100]`` (writes
benchmarks/results/first_weight.md). On the two 4-weight scenarios of paper 004 Table 1
(``paper-k2-reward-cost``, ``paper-k2-two-costs``), the ``probabilistic`` and ``bisection``
strategies answer exact simulated people for 40 questions (seed 0): the truth
(0.05, 0.40, 0.15, 0.40) (a small weight on class 1, the reference of every ratio) and
``--truths`` more drawn from a flat Dirichlet and kept when every weight is at least 0.03.
The table gives the L1 error of the natural-unit weights after 40 answers: median, the
largest, and the share of truths at or below 0.002.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from benchmarks._table import importable, markdown, write
from tradeoff.ask.metric import l1_error
from tradeoff.ask.scenario import load_scenario
from tradeoff.learn import Engine
from tradeoff.simulation.oracles import SimulatedOracle
from tradeoff.simulation.parallel import Backend, each, run_people

SCENARIOS = ("paper-k2-reward-cost", "paper-k2-two-costs")
STRATEGIES = ("probabilistic", "bisection")
SMALL_FIRST = (0.05, 0.40, 0.15, 0.40)
BUDGET = 40
GOAL = 0.002


def truths(count: int, seed: int = 0) -> list[tuple[float, ...]]:
    """The small-first truth, then ``count`` flat-Dirichlet truths with every weight ≥ 0.03."""
    rng = np.random.default_rng(seed)
    out = [SMALL_FIRST]
    while len(out) < count + 1:
        w = rng.dirichlet(np.ones(4))
        if w.min() >= 0.03:
            out.append(tuple(float(x) for x in w))
    return out


def _cell(args: tuple[str, str, int]) -> tuple[str, str, list[float]]:
    name, strategy, count = args
    sc = load_scenario(f"scenarios/{name}.toml").scenario
    errors = []
    for truth in truths(count):
        engine = Engine(sc, sc.elicitation.override(strategy=strategy, budget=BUDGET), seed=0)
        oracle = SimulatedOracle.for_scenario(sc, truth)
        while (q := engine.next_query()) is not None:
            engine.answer(oracle.choose(q))
        errors.append(l1_error(engine.result().weights, truth))
    return name, strategy, errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--truths", type=int, default=100)
    args = parser.parse_args()
    start = time.perf_counter()
    tasks = [(n, s, args.truths) for n in SCENARIOS for s in STRATEGIES]
    cells = run_people(each, importable(_cell), tasks, Backend(2), per_chunk=1)
    rows = []
    for name, strategy, errors in cells:
        e = np.array(errors)
        rows.append(
            [
                name,
                strategy,
                len(e),
                f"{e[0]:.4f}",
                f"{np.median(e):.4f}",
                f"{e.max():.4f}",
                f"{np.mean(e <= GOAL):.0%}",
            ]
        )
    headers = ["scenario", "strategy", "truths", "L1 (0.05, 0.40, 0.15, 0.40)", "L1 median"]
    headers += ["L1 max", f"L1 ≤ {GOAL}"]
    body = (
        markdown(headers, rows)
        + f"\n\nExact answers, {BUDGET} questions, seed 0; {time.perf_counter() - start:.0f} s.\n"
        f"Reproduce: `.venv/bin/python -m benchmarks.first_weight --truths {args.truths}`."
    )
    write("first_weight", "A small first weight, exact answers, 40 questions", body)


if __name__ == "__main__":
    main()
