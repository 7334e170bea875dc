"""The engine's work per answer: the posterior's update and the next question, one core.

Run: ``.venv/bin/python -m benchmarks.engine_step`` (writes benchmarks/results/engine_step.md).
``--runs`` simulated people per kind of answer (default 20), ``--scenario`` the shipped
scenario (default breast-cancer-triage, aimed at its pool with the shipped ``joint``
strategy).

Each simulated person (truth drawn from a flat Dirichlet over swing weights, seeded) answers
until the engine stops; every answer is timed from the choice handed to the engine to the
next question in hand (:meth:`~tradeoff.learn.engine.Engine.answer` then
:meth:`~tradeoff.learn.engine.Engine.next_query`): what a participant waits for in the
engine. The first question (built at the start) is not an answer's work and is reported
apart. BLAS is held to one thread (``OPENBLAS_NUM_THREADS=1`` before numpy loads), as a
study's server process runs it beside others.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

from benchmarks._table import markdown, write
from tradeoff.ask.population import scenario_population
from tradeoff.ask.scenario import load_scenario
from tradeoff.choose.candidates import scenario_pool
from tradeoff.choose.pool_metric import metric_vectors
from tradeoff.learn.engine import Engine, truth_from_dirichlet
from tradeoff.simulation.noise import Noise
from tradeoff.simulation.oracles import SimulatedOracle

ROOT = Path(__file__).resolve().parents[1]
KINDS = (("exact", None), ("flip 0.1", "flip:0.1"), ("logistic 0.005", "logistic:0.005"))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--scenario", default="breast-cancer-triage")
    args = parser.parse_args()
    loaded = load_scenario(ROOT / "scenarios" / f"{args.scenario}.toml")
    scenario = loaded.scenario
    population = scenario_population(scenario)
    pool = scenario_pool(scenario, ROOT / "scenarios")
    rows = metric_vectors(scenario, pool, population.priors.tolist())
    table = []
    every: list[float] = []
    for label, noise in KINDS:
        steps: list[float] = []
        firsts: list[float] = []
        questions: list[int] = []
        for run in range(args.runs):
            rng = np.random.default_rng([run, 35])
            spans = Engine(scenario, population=population).space.spans
            truth = truth_from_dirichlet(spans, rng)
            t0 = time.perf_counter()
            engine = Engine(scenario, seed=run, population=population, candidates=rows)
            query = engine.next_query()
            firsts.append(time.perf_counter() - t0)
            oracle = SimulatedOracle.for_scenario(
                scenario, truth, noise=None if noise is None else Noise.parse(noise), seed=run
            )
            while query is not None:
                choice = oracle.choose(query)
                t = time.perf_counter()
                engine.answer(choice)
                query = engine.next_query()
                steps.append(time.perf_counter() - t)
            questions.append(engine.answered)
        every.extend(steps)
        table.append(
            [
                label,
                args.runs,
                statistics.median(questions),
                len(steps),
                f"{statistics.median(steps) * 1e3:.1f}",
                f"{percentile(steps, 0.95) * 1e3:.1f}",
                f"{max(steps) * 1e3:.1f}",
                f"{statistics.median(firsts) * 1e3:.0f}",
            ]
        )
    table.append(
        [
            "all",
            args.runs * len(KINDS),
            "",
            len(every),
            f"{statistics.median(every) * 1e3:.1f}",
            f"{percentile(every, 0.95) * 1e3:.1f}",
            f"{max(every) * 1e3:.1f}",
            "",
        ]
    )
    body = markdown(
        [
            "answers",
            "people",
            "median questions",
            "answers timed",
            "median ms",
            "p95 ms",
            "max ms",
            "engine start → question 1 ms",
        ],
        table,
    )
    body += (
        f"\n\nScenario {args.scenario}, its pool ({len(rows)} models), strategy "
        f"{scenario.elicitation.strategy}; one answer = the update and the next question "
        "(one BLAS thread, one process). Goal: median ≤ 5 ms, p95 ≤ 15 ms.\n"
        f"Reproduce: `taskset -c 0 .venv/bin/python -m benchmarks.engine_step --runs {args.runs}"
        + ("" if args.scenario == "breast-cancer-triage" else f" --scenario {args.scenario}")
        + "`.\n"
    )
    write("engine_step" + ("" if args.scenario == "breast-cancer-triage" else f"-{args.scenario}"),
          "The engine's work per answer", body)


if __name__ == "__main__":
    main()
