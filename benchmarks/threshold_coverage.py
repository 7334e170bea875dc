"""Does the threshold probability's credible interval cover the person's true threshold?

Run: ``PYTHONPATH=src .venv/bin/python -m benchmarks.threshold_coverage [--people 300]
[--answers exact flip:0.1] [--strategies joint probabilistic] [--seed 0] [--workers 1]
[--no-write]`` (writes benchmarks/results/threshold-coverage.md unless ``--no-write``).

Simulated people answer the shipped two-class scenario, ``breast-cancer-triage`` (malignant
the positive class; the shipped pool of 34 models as the candidates the questions aim at),
until the engine stops (the scenario's settings: budget 30, stop once the pick is settled).
Their true weights are a flat Dirichlet over swing weights
(:func:`tradeoff.learn.truth_from_dirichlet`, from the benchmark's seed; the same truths for
every strategy and kind of answer), their answers exact or each flipped with probability
0.1 (:mod:`tradeoff.simulation.oracles`, seeds independent of the truths'). A person's true
threshold is a₀/(a₀ + a₁) of their true weights (:mod:`tradeoff.curves`); the engine's is
:func:`tradeoff.curves.person_threshold` on its posterior as the stop read it
(:meth:`~tradeoff.learn.Engine.weighted_draws`): the posterior mean weights' threshold and
the weighted quantiles of every draw's. The table gives, per cell, how often the 90%
interval (and, as a check of the whole distribution, the 50% one) holds the truth, with a
95% Wilson interval for that share; the median width of the 90% interval; the median
error of the point value; the median number of questions.

Timing: the CPU by name, and the run's wall time also in a numpy reference unit (the
median time of a 512 × 512 float64 matrix product on this machine), so a run on another
machine can be compared.
"""

from __future__ import annotations

import argparse
import math
import platform
import statistics
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from benchmarks._table import markdown, median_seconds, write
from tradeoff.ask.population import Population, scenario_population
from tradeoff.ask.queries import QuerySpace
from tradeoff.ask.scenario import Scenario, load_scenario
from tradeoff.choose.candidates import scenario_pool
from tradeoff.choose.pool_metric import metric_vectors
from tradeoff.curves import implied_threshold, person_threshold
from tradeoff.learn import Engine, truth_from_dirichlet
from tradeoff.simulation.oracles import Noise, SimulatedOracle

FloatArray = NDArray[np.float64]
ROOT = Path(__file__).resolve().parent.parent
SCENARIO = "breast-cancer-triage"
LEVELS = (0.9, 0.5)


@dataclass(frozen=True)
class Setting:
    scenario: Scenario
    population: Population
    rows: FloatArray
    spans: tuple[float, ...]


@cache
def setting() -> Setting:
    sc = load_scenario(ROOT / "scenarios" / f"{SCENARIO}.toml").scenario
    pool = scenario_pool(sc, ROOT / "scenarios")
    population = scenario_population(sc)
    rows = metric_vectors(sc, pool, population.priors.tolist())
    spans = QuerySpace(sc, population).spans
    return Setting(sc, population, rows, spans)


def truths(people: int, seed: int) -> FloatArray:
    """The people's true natural-unit weights (rows), from the benchmark's seed."""
    rng = np.random.default_rng([seed, 49])
    return np.array([truth_from_dirichlet(setting().spans, rng) for _ in range(people)])


def run_person(task: tuple[str, str, int, int]) -> dict[str, Any]:
    """One simulated person: their true threshold and the engine's, with its intervals."""
    strategy, answers, index, seed = task
    s = setting()
    sc = s.scenario
    truth = truths(index + 1, seed)[index]
    ss = np.random.SeedSequence([seed, index, 3])
    oracle_seed, engine_seed = (int(x) for x in ss.generate_state(2))
    spec = sc.elicitation.override(strategy=strategy)
    engine = Engine(sc, spec, seed=engine_seed, population=s.population, candidates=s.rows)
    oracle = SimulatedOracle.for_scenario(
        sc, truth, noise=None if answers == "exact" else Noise.parse(answers), seed=oracle_seed
    )
    while (query := engine.next_query()) is not None:
        engine.answer(oracle.choose(query))
    posterior = engine.weighted_draws()
    assert posterior is not None
    draws, weights = posterior
    mean = draws.T @ (weights / weights.sum())
    true_pt = float(implied_threshold(truth[0], truth[1])[0])
    out: dict[str, Any] = {"true": true_pt, "questions": engine.answered}
    for level in LEVELS:
        th = person_threshold(sc, mean, draws, weights, level=level)
        assert th is not None and th.low is not None and th.high is not None
        out[level] = (th.low, th.high)
        out["value"] = th.value
    return out


def wilson(hits: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson interval of a share ``hits``/``n``.

    >>> [round(x, 3) for x in wilson(90, 100)]
    [0.826, 0.945]
    """
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def cpu_name() -> str:
    """The CPU's model name (Linux), else the platform's processor string."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def numpy_unit() -> float:
    """Seconds of the reference unit: the median 512 × 512 float64 matrix product."""
    a = np.random.default_rng(0).random((512, 512))
    return median_seconds(lambda: a @ a, repeats=21)


def cell_row(strategy: str, answers: str, people: list[dict[str, Any]]) -> list[object]:
    n = len(people)
    row: list[object] = [SCENARIO, strategy, answers, n]
    for level in LEVELS:
        hits = sum(p[level][0] <= p["true"] <= p[level][1] for p in people)
        lo, hi = wilson(hits, n)
        row.append(f"{hits / n:.1%} ({lo:.1%}–{hi:.1%})")
    widths = [p[0.9][1] - p[0.9][0] for p in people]
    errors = [abs(p["value"] - p["true"]) for p in people]
    row += [
        f"{statistics.median(widths):.3f}",
        f"{statistics.median(errors):.3f}",
        f"{statistics.median(p['questions'] for p in people):.0f}",
    ]
    return row


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--people", type=int, default=300)
    parser.add_argument("--answers", nargs="+", default=["exact", "flip:0.1"])
    parser.add_argument("--strategies", nargs="+", default=["joint"])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    unit = numpy_unit()
    start = time.perf_counter()
    rows = []
    for strategy in args.strategies:
        for answers in args.answers:
            tasks = [(strategy, answers, i, args.seed) for i in range(args.people)]
            if args.workers > 1:
                with ProcessPoolExecutor(args.workers) as pool:
                    people = list(pool.map(run_person, tasks, chunksize=8))
            else:
                people = [run_person(t) for t in tasks]
            rows.append(cell_row(strategy, answers, people))
            print(rows[-1], flush=True)
    seconds = time.perf_counter() - start
    command = (
        "PYTHONPATH=src python -m benchmarks.threshold_coverage "
        f"--people {args.people} --answers {' '.join(args.answers)} "
        f"--strategies {' '.join(args.strategies)} --seed {args.seed} --workers {args.workers}"
    )
    body = markdown(
        (
            "scenario",
            "strategy",
            "answers",
            "people",
            "90% interval covers the truth (95% CI)",
            "50% interval covers the truth (95% CI)",
            "90% width (median)",
            "|point − truth| (median)",
            "questions (median)",
        ),
        rows,
    )
    body += (
        "\n\nThe truth is a₀/(a₀ + a₁) of the person's true weights (malignant the positive "
        "class); the interval the weighted quantiles of each posterior draw's threshold at "
        "the stop (tradeoff.curves.person_threshold). A calibrated interval covers the "
        "truth in 90% (50%) of people. "
        f"CPU: {cpu_name()}. Numpy reference unit (median 512 × 512 float64 matrix product): "
        f"{unit * 1000:.2f} ms; the run took {seconds:.0f} s = "
        f"{seconds / unit:,.0f} units. Command: `{command}`."
    )
    if args.no_write:
        print(body)
    else:
        write("threshold-coverage", "The threshold probability's credible interval", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
