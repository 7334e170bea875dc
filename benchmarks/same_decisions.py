"""The same decisions as another version: simulated people through this version's engine
and another's, their questions, stops and verdicts compared person by person.

Run: ``.venv/bin/python -m benchmarks.same_decisions --before SRC`` (``SRC``: another
version's ``src`` folder, e.g. a ``git worktree`` of an earlier commit). Each version runs
in a fresh process: for every scenario of ``--scenarios`` (default the shipped
breast-cancer-triage; a scenario without a pool runs without candidates) and kind of answer
of ``--answers``, ``--people`` truths drawn from a flat Dirichlet over swing weights (seeded
by their number from ``--first``) answer until the engine stops. Printed: per scenario and
kind, the people whose questions (both options at 9 significant digits, the sides, the
answers) differ, whose stop reason differs, whose verdict (pick, tied candidates, aspects
resting on one answer) differs, and the largest difference of P(best) and P(best or
practically tied). A change meant to make the engine faster, not different, shows zeros.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from benchmarks._table import markdown

ROOT = Path(__file__).resolve().parents[1]
ANSWERS = "exact,flip:0.1,logistic:0.005,indifference:0.01"


def people(scenario_name: str, answers: str, first: int, count: int) -> list[dict[str, Any]]:
    """Every person's questions, answers, stop reason and verdict (this process's package)."""
    import numpy as np

    from tradeoff.ask.population import scenario_population
    from tradeoff.ask.queries import profile_key
    from tradeoff.ask.scenario import load_scenario
    from tradeoff.choose.candidates import scenario_pool
    from tradeoff.choose.pool_metric import metric_vectors
    from tradeoff.learn.engine import Engine, truth_from_dirichlet
    from tradeoff.simulation.noise import Noise
    from tradeoff.simulation.oracles import SimulatedOracle

    scenario = load_scenario(ROOT / "scenarios" / f"{scenario_name}.toml").scenario
    population = scenario_population(scenario)
    rows = None
    if scenario.pool is not None:
        pool = scenario_pool(scenario, ROOT / "scenarios")
        rows = np.asarray(metric_vectors(scenario, pool, population.priors.tolist()))
    spans = Engine(scenario, population=population).space.spans
    out = []
    for kind in answers.split(","):
        noise = None if kind == "exact" else Noise.parse(kind)
        for run in range(first, first + count):
            truth = truth_from_dirichlet(spans, np.random.default_rng([run, 35]))
            engine = Engine(scenario, candidates=rows, population=population, seed=run)
            oracle = SimulatedOracle.for_scenario(scenario, truth, noise=noise, seed=run)
            asked = []
            while (query := engine.next_query()) is not None:
                choice = oracle.choose(query)
                asked.append([profile_key(query.left), profile_key(query.right), str(choice)])
                engine.answer(choice)
            v = engine.verdict()
            out.append(
                {
                    "kind": kind,
                    "questions": asked,
                    "stop": engine.stop_reason(),
                    "verdict": None
                    if v is None
                    else [v.pick, list(v.tied), list(v.one_answer), v.p_best, v.p_near],
                }
            )
    return out


def _elsewhere(src: str, scenario: str, answers: str, first: int, count: int) -> Any:
    """:func:`people` of the package in ``src``, in a fresh process."""
    code = (
        "import json; from benchmarks.same_decisions import people; "
        f"print(json.dumps(people({scenario!r}, {answers!r}, {first}, {count})))"
    )
    env = {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{ROOT}"}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=ROOT, check=True, capture_output=True, text=True
    )
    return json.loads(done.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", metavar="SRC", required=True)
    parser.add_argument("--scenarios", default="breast-cancer-triage")
    parser.add_argument("--answers", default=ANSWERS)
    parser.add_argument("--people", type=int, default=10)
    parser.add_argument("--first", type=int, default=0)
    args = parser.parse_args()
    import tradeoff

    here = str(Path(tradeoff.__file__).resolve().parents[1])
    table = []
    for name in args.scenarios.split(","):
        now = _elsewhere(here, name, args.answers, args.first, args.people)
        then = _elsewhere(args.before, name, args.answers, args.first, args.people)
        for kind in args.answers.split(","):
            pairs = [(a, b) for a, b in zip(now, then, strict=True) if a["kind"] == kind]
            verdicts = [(a["verdict"], b["verdict"]) for a, b in pairs]
            both = [(a, b) for a, b in verdicts if a is not None and b is not None]
            gap = max((abs(a[i] - b[i]) for a, b in both for i in (3, 4)), default=0.0)
            table.append(
                [
                    name,
                    kind,
                    len(pairs),
                    sum(len(a["questions"]) for a, _ in pairs),
                    sum(a["questions"] != b["questions"] for a, b in pairs),
                    sum(a["stop"] != b["stop"] for a, b in pairs),
                    sum(a != b if a is None or b is None else a[:3] != b[:3] for a, b in verdicts),
                    f"{gap:.1e}",
                ]
            )
    print(
        markdown(
            [
                "scenario",
                "answers",
                "people",
                "questions",
                "other questions",
                "other stop",
                "other verdict",
                "max ΔP",
            ],
            table,
        )
    )


if __name__ == "__main__":
    main()
