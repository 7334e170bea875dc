"""How often an answer makes the engine resample and move its particles: answers given at
random (as ``benchmarks.study_load``'s clients give them by default) against a simulated
person's (``--answerer person`` there, ``benchmarks.engine_step``'s people: true weights
from a flat Dirichlet over swing weights, one answer in ten reversed).

Run: ``.venv/bin/python -m benchmarks.answer_moves`` (writes
benchmarks/results/answer_moves.md). ``--people`` people of each kind answer ``--answers``
questions each (fewer when the engine stops first) of the shipped breast-cancer triage
scenario with its pool and its ``joint`` strategy. A move costs the most of any answer
(``benchmarks/results/engine_step.md``), so a study server's CPU per answer follows this
share.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from benchmarks._table import markdown, write

ROOT = Path(__file__).resolve().parents[1]


def moved_shares(people: int, answers: int) -> dict[str, tuple[int, int]]:
    """Per kind of answers ("person", "random"): (answers that moved, answers given)."""
    from tradeoff.ask.population import scenario_population
    from tradeoff.ask.scenario import load_scenario
    from tradeoff.choose.candidates import scenario_pool
    from tradeoff.choose.pool_metric import metric_vectors
    from tradeoff.learn import Choice
    from tradeoff.learn.engine import Engine, truth_from_dirichlet
    from tradeoff.simulation.noise import Noise
    from tradeoff.simulation.oracles import SimulatedOracle

    scenario = load_scenario(ROOT / "scenarios" / "breast-cancer-triage.toml").scenario
    population = scenario_population(scenario)
    pool = scenario_pool(scenario, ROOT / "scenarios")
    rows = np.asarray(metric_vectors(scenario, pool, population.priors.tolist()))
    spans = Engine(scenario, population=population).space.spans
    out: dict[str, tuple[int, int]] = {}
    for kind in ("person", "random"):
        moved = given = 0
        for run in range(people):
            engine = Engine(scenario, population=population, candidates=rows, seed=run)
            truth = truth_from_dirichlet(spans, np.random.default_rng([run, 35]))
            oracle = SimulatedOracle.for_scenario(
                scenario, truth, noise=Noise.parse("flip:0.1"), seed=run
            )
            coin = np.random.default_rng([run, 36])
            query = engine.next_query()
            for _ in range(answers):
                if query is None:
                    break
                if kind == "person":
                    choice = oracle.choose(query)
                else:
                    choice = Choice.LEFT if coin.random() < 0.5 else Choice.RIGHT
                before = engine.state.moves
                engine.answer(choice)
                given += 1
                moved += engine.state.moves != before
                query = engine.next_query()
        out[kind] = (moved, given)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", type=int, default=30)
    parser.add_argument("--answers", type=int, default=10)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    found = moved_shares(args.people, args.answers)
    table = markdown(
        ["answers", "people", "answers given", "answers that moved the particles", "share"],
        [
            [kind, args.people, given, moved, f"{moved / max(given, 1):.0%}"]
            for kind, (moved, given) in found.items()
        ],
    )
    body = (
        f"{args.people} people of each kind, at most {args.answers} answers each, the shipped "
        "breast-cancer triage scenario (its pool, `joint`): *person* answers as "
        "`benchmarks.engine_step`'s people (one answer in ten reversed), *random* A or B at "
        "random.\n\n"
        + table
        + "\n\nReproduce: `.venv/bin/python -m benchmarks.answer_moves"
        + f" --people {args.people} --answers {args.answers}`.\n"
    )
    write("answer_moves", "How often an answer moves the particles", body, save=not args.no_write)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
