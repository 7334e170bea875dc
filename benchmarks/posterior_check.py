"""How far the particles of strategy `joint` lie from numerical integration, over many
random examples: the tail that ``tests/learn/test_joint.py``'s few fixed examples cannot
show.

Run: ``.venv/bin/python -m benchmarks.posterior_check`` (writes
benchmarks/results/posterior_check.md). Each example is what the test draws: two to five
candidates and one to six answers to pairs that each read better on something (two classes
and a cost, the test's small noise grid), a seed; the error is
``tests.learn.test_joint.brute_force_errors``: the largest difference in a candidate's
P(best), and the largest distance of the integrated CDF at an end of a 90% interval from 5%
or 95%. Families: *random* draws every number uniformly in its range; *round* draws them
on a lattice of 1/16 (shared values and repeated pairs, as a property test's simplest
examples have); *found* is each example a property test once found beyond the bounds, at
``--seeds`` seeds. Rows marked *shipped grid* give the particles and the integration the
noise grid the engine ships with (9 lapse rates, 8 temperatures, 6 bands) instead of the
test's small one (3, 3, 2), on ``--shipped-examples`` random examples (each about 6 s).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from benchmarks._table import markdown, write

Example = tuple[list[tuple[float, float, float]], list[tuple[Any, Any, int]], int]

#: Examples a property test found beyond the bounds (two "can't tell" answers: the
#: posterior is split between answers read exactly, inside a thin region, and answers with
#: a temperature, spread wide).
FOUND: tuple[tuple[list[tuple[float, float, float]], list[tuple[Any, Any, int]]], ...] = (
    (
        [(0.25, 0.5, 0.0), (0.25, 0.625, -1.0)],
        [
            ((0.25, 0.5, -0.75), (0.25, 0.375, 0.0), 1),
            ((0.25, 0.375, -0.25), (0.25, 0.3515625, 0.0), 2),
            ((0.28125, 0.5, 0.0), (0.1875, 0.53125, 0.0), 2),
        ],
    ),
    (
        [(0.25, 0.5, 0.0), (0.25, 0.5, 0.0)],
        [
            ((0.25, 0.5, -0.75), (0.1875, 0.375, 0.0), 1),
            ((0.203125, 0.375, -0.25), (0.28125, 0.3515625, 0.0), 2),
            ((0.28125, 0.5, 0.0), (0.1875, 0.53125, 0.0), 2),
        ],
    ),
)


def examples(family: str, count: int, seed: int = 0) -> list[Example]:
    """``count`` examples of ``family`` ("random" or "round"), drawn from ``seed``: rows and
    answers in the ranges of the test's strategies, answers left, left, right, right or
    "can't tell" equally often.

    >>> [len(rows) for rows, _, _ in examples("round", 3)]
    [4, 4, 4]
    """
    from tests.learn.test_joint import trade_off

    rng = np.random.default_rng([seed, 0 if family == "random" else 1])
    lattice = 16 if family == "round" else 0

    def value(lo: float, hi: float) -> float:
        if not lattice:
            return float(rng.uniform(lo, hi))
        points = np.arange(math.ceil(lo * lattice), math.floor(hi * lattice) + 1)
        return float(rng.choice(points)) / lattice

    def row() -> tuple[float, float, float]:
        return (value(0.15, 0.3), value(0.35, 0.7), value(-1.0, 0.0))

    out: list[Example] = []
    while len(out) < count:
        rows = [row() for _ in range(int(rng.integers(2, 6)))]
        answers: list[tuple[Any, Any, int]] = []
        for _ in range(int(rng.integers(1, 7))):
            pair = (row(), row())
            while not trade_off(pair):
                pair = (row(), row())
            answers.append((pair[0], pair[1], int(rng.choice([0, 0, 1, 1, 2]))))
        out.append((rows, answers, int(rng.integers(0, 1001))))
    return out


def errors(example: Example, k: int, shipped: bool = False) -> tuple[float, float]:
    """(P(best) error, quantile error) of one example on a grid of ``k``² cells, with the
    test's small noise grid or (``shipped``) the engine's own."""
    from tests.learn.test_joint import brute_force_errors

    from tradeoff.learn.likelihood import NOISE_PRIOR

    rows, answers, seed = example
    return brute_force_errors(rows, answers, seed, k, NOISE_PRIOR if shipped else None)


def measure(
    found: Sequence[Example], k: int, workers: int, shipped: bool = False
) -> list[tuple[float, float]]:
    """The errors of every example, ``workers`` processes at once (joblib)."""
    from joblib import Parallel, delayed

    return list(Parallel(n_jobs=workers)(delayed(errors)(e, k, shipped) for e in found))


def row_of(name: str, measured: Sequence[tuple[float, float]]) -> list[object]:
    """One line of the table: the family, how many examples, then per kind of error the
    root mean square, the 99th percentile, the largest and how many lie beyond the bound."""
    from tests.learn.test_joint import P_BEST_TOLERANCE, QUANTILE_TOLERANCE

    out: list[object] = [name, len(measured)]
    for column, bound in ((0, P_BEST_TOLERANCE), (1, QUANTILE_TOLERANCE)):
        values = np.array([m[column] for m in measured])
        out += [
            f"{math.sqrt(float(np.mean(values**2))):.3f}",
            f"{float(np.quantile(values, 0.99)):.3f}",
            f"{float(values.max()):.3f}",
            f"{int(np.sum(values > bound))} ({np.mean(values > bound):.1%})",
        ]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=600, help="per family")
    parser.add_argument("--seeds", type=int, default=24, help="per found example")
    parser.add_argument("--shipped-examples", type=int, default=100)
    parser.add_argument("--grid", type=int, default=200, help="k: k² cells")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    from tests.learn.test_joint import P_BEST_TOLERANCE, QUANTILE_TOLERANCE

    rows = [
        row_of(family, measure(examples(family, args.examples), args.grid, args.workers))
        for family in ("random", "round")
    ]
    for n, (cands, answers) in enumerate(FOUND, 1):
        at_seeds = [(cands, answers, seed) for seed in range(args.seeds)]
        rows.append(row_of(f"found {n}", measure(at_seeds, args.grid, args.workers)))
    if args.shipped_examples:
        drawn = examples("random", args.shipped_examples)
        rows.append(row_of("random, shipped grid", measure(drawn, args.grid, args.workers, True)))
    for n, (cands, answers) in enumerate(FOUND, 1):
        at_seeds = [(cands, answers, seed) for seed in range(args.seeds)]
        found = measure(at_seeds, args.grid, args.workers, True)
        rows.append(row_of(f"found {n}, shipped grid", found))
    table = markdown(
        [
            "examples",
            "n",
            "P(best) rms",
            "p99",
            "max",
            f"> {P_BEST_TOLERANCE:.3f}",
            "quantile rms",
            "p99",
            "max",
            f"> {QUANTILE_TOLERANCE:.2f}",
        ],
        rows,
    )
    body = (
        f"Particles of `joint` against numerical integration on a {args.grid}² grid "
        "(`tests.learn.test_joint.brute_force_errors`): the largest error in a candidate's "
        "P(best), and of the CDF at an end of a 90% interval. The test's bounds are "
        f"{P_BEST_TOLERANCE:.3f} and {QUANTILE_TOLERANCE:.2f}.\n\n"
        + table
        + "\n\nReproduce: `.venv/bin/python -m benchmarks.posterior_check"
        + f" --examples {args.examples} --seeds {args.seeds} --grid {args.grid}"
        + f" --shipped-examples {args.shipped_examples}`.\n"
    )
    write(
        "posterior_check",
        "The particles against numerical integration",
        body,
        save=not args.no_write,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
