"""The engine's work per answer: the posterior's update and the next question, one core.

Run: ``taskset -c 0 .venv/bin/python -m benchmarks.engine_step`` (writes
benchmarks/results/engine_step.md). ``--runs`` simulated people per kind of answer (default
20), ``--scenario`` the shipped scenario (default breast-cancer-triage, aimed at its pool
with its ``joint`` strategy), ``--before SRC`` also measures another version of the package
(its ``src`` folder, e.g. a ``git worktree`` of an earlier commit) in the same run, in a
fresh process, alternating with this one.

Each simulated person (truth drawn from a flat Dirichlet over swing weights, seeded) answers
until the engine stops; every answer is timed from the choice handed to the engine to the
next question in hand (:meth:`~tradeoff.learn.engine.Engine.answer` then
:meth:`~tradeoff.learn.engine.Engine.next_query`): what a participant waits for in the
engine. The first question (built at the start) is not an answer's work and is reported
apart. BLAS is held to one thread (``OPENBLAS_NUM_THREADS=1`` before numpy loads), as a
study's server process runs it.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks._table import markdown, percentile, write

ROOT = Path(__file__).resolve().parents[1]
KINDS = (("exact", None), ("flip 0.1", "flip:0.1"), ("logistic 0.005", "logistic:0.005"))


def measure(runs: int, scenario_name: str, kinds: list[str]) -> dict[str, Any]:
    """Per kind of answer: every answer's seconds, the questions per person, and the
    seconds from a new engine to its first question."""
    from tradeoff.ask.population import scenario_population
    from tradeoff.ask.scenario import load_scenario
    from tradeoff.choose.candidates import scenario_pool
    from tradeoff.choose.pool_metric import metric_vectors
    from tradeoff.learn.engine import Engine, truth_from_dirichlet
    from tradeoff.simulation.noise import Noise
    from tradeoff.simulation.oracles import SimulatedOracle

    scenario = load_scenario(ROOT / "scenarios" / f"{scenario_name}.toml").scenario
    population = scenario_population(scenario)
    pool = scenario_pool(scenario, ROOT / "scenarios")
    rows = metric_vectors(scenario, pool, population.priors.tolist())
    spans = Engine(scenario, population=population).space.spans
    out: dict[str, Any] = {"models": len(rows), "strategy": scenario.elicitation.strategy}
    for label, noise in KINDS:
        if label not in kinds:
            continue
        steps: list[float] = []
        firsts: list[float] = []
        questions: list[int] = []
        for run in range(runs):
            truth = truth_from_dirichlet(spans, np.random.default_rng([run, 35]))
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
        out[label] = {"steps": steps, "firsts": firsts, "questions": questions}
    return out


def _elsewhere(src: str, runs: int, scenario: str, kind: str) -> dict[str, Any]:
    """:func:`measure` of the package in ``src``, in a fresh process."""
    code = (
        "import json, sys; from benchmarks.engine_step import measure; "
        f"print(json.dumps(measure({runs}, {scenario!r}, [{kind!r}])))"
    )
    env = {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{ROOT}"}
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    return dict(json.loads(done.stdout.splitlines()[-1]))


def _row(version: str, label: str, people: int, part: dict[str, Any]) -> list[object]:
    steps, firsts = part["steps"], part["firsts"]
    return [
        version,
        label,
        people,
        f"{statistics.median(part['questions']):g}" if part["questions"] else "",
        len(steps),
        f"{statistics.median(steps) * 1e3:.1f}",
        f"{percentile(steps, 0.95) * 1e3:.1f}",
        f"{max(steps) * 1e3:.1f}",
        f"{statistics.median(firsts) * 1e3:.0f}" if firsts else "",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--scenario", default="breast-cancer-triage")
    parser.add_argument("--before", metavar="SRC", help="another version's src folder")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    versions = [("this version", None)] + ([("before", args.before)] if args.before else [])
    parts: dict[tuple[str, str], dict[str, Any]] = {}
    info: dict[str, Any] = {}
    # Alternated kind by kind, so both versions see the same machine.
    for label, _ in KINDS:
        for version, src in versions:
            if src is None:
                got = measure(args.runs, args.scenario, [label])
                info = got
            else:
                got = _elsewhere(src, args.runs, args.scenario, label)
            parts[(version, label)] = got[label]
    table = []
    for version, _ in versions:
        every: dict[str, list[Any]] = {"steps": [], "firsts": [], "questions": []}
        for label, _ in KINDS:
            part = parts[(version, label)]
            table.append(_row(version, label, args.runs, part))
            for key in every:
                every[key].extend(part[key])
        table.append(_row(version, "all", args.runs * len(KINDS), every))
    body = markdown(
        [
            "version",
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
    if args.before:
        now = [s for label, _ in KINDS for s in parts[("this version", label)]["steps"]]
        then = [s for label, _ in KINDS for s in parts[("before", label)]["steps"]]
        body += (
            f"\n\nRatio before / this version: median "
            f"{statistics.median(then) / statistics.median(now):.1f}×, p95 "
            f"{percentile(then, 0.95) / percentile(now, 0.95):.1f}×."
        )
    extra = "" if args.scenario == "breast-cancer-triage" else f" --scenario {args.scenario}"
    before = " --before SRC" if args.before else ""
    body += (
        f"\n\nScenario {args.scenario}, its pool ({info['models']} models), strategy "
        f"{info['strategy']}; one answer = the update and the next question (one BLAS "
        "thread, one process, pinned to one core). Goal: median ≤ 5 ms, p95 ≤ 15 ms."
        + (
            f' "before" is `{args.before}` (another version\'s package), measured in the '
            "same run in a fresh process, alternating kind by kind with this version."
            if args.before
            else ""
        )
        + f"\nReproduce: `taskset -c 0 .venv/bin/python -m benchmarks.engine_step --runs "
        f"{args.runs}{extra}{before}`.\n"
    )
    name = "engine_step" + ("" if args.scenario == "breast-cancer-triage" else f"-{args.scenario}")
    if args.no_write:
        print(body)
    else:
        write(name, "The engine's work per answer", body)


if __name__ == "__main__":
    main()
