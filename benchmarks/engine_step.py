"""The engine's work per answer: the posterior's update and the next question, one core.

Run: ``taskset -c 0 .venv/bin/python -m benchmarks.engine_step`` (writes
benchmarks/results/engine_step.md). ``--runs`` simulated people per kind of answer (default
20), ``--scenario`` the shipped scenario (default breast-cancer-triage, aimed at its pool
with its ``joint`` strategy), ``--before SRC`` also measures another version of the package
(its ``src`` folder, e.g. a ``git worktree`` of an earlier commit) in the same run,
alternating with this one. Each kind of answer of each version runs in a fresh process,
as a server process starts: what a process builds once and keeps (the trades it shows)
starts empty for every 20 people.

Each simulated person (truth drawn from a flat Dirichlet over swing weights, seeded) answers
until the engine stops, through a :class:`~tradeoff.record.recorder.Recorder` writing the
session file as the app does (in a temporary folder); every answer is timed from the choice
handed to the recorder to the next question in hand
(:meth:`~tradeoff.record.recorder.Recorder.answer`: the answer written and synced to disk and
the update, then :meth:`~tradeoff.learn.engine.Engine.next_query`): what a participant waits
for. The first question (built at the start) is not an answer's work and is reported apart.
BLAS is held to one thread (``OPENBLAS_NUM_THREADS=1`` before numpy loads), as a study's
server process runs it.

Times are also given in units: the reference numpy unit
(:func:`~benchmarks._table.reference_unit`'s arithmetic), timed once after every answer in the
same process, so that the engine and the unit see the same machine (a shared machine slows
both alike); the table names the unit's median and the CPU.
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
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks._table import cpu_name, markdown, percentile, write

ROOT = Path(__file__).resolve().parents[1]
KINDS = (("exact", None), ("flip 0.1", "flip:0.1"), ("logistic 0.005", "logistic:0.005"))


def _unit_timer() -> Any:
    """One timing of the reference unit (:func:`~benchmarks._table.reference_unit`'s
    arithmetic) per call: (wall seconds, this thread's CPU seconds)."""
    rng = np.random.default_rng(0)
    a = rng.random((150, 2000))
    b = rng.random((2000, 34))
    c = rng.random((2000, 150))

    def once() -> tuple[float, float]:
        t, cpu = time.perf_counter(), time.thread_time()
        a @ b
        np.exp(c)
        return time.perf_counter() - t, time.thread_time() - cpu

    once()
    return once


def measure(runs: int, scenario_name: str, kinds: list[str]) -> dict[str, Any]:
    """Per kind of answer: every answer's seconds (the session file written as the app
    writes it) and its CPU seconds, the reference unit's seconds and CPU seconds timed after
    each answer, the questions per person, and the seconds from a new session to its first
    question."""
    from tradeoff.ask.population import scenario_population
    from tradeoff.ask.scenario import load_scenario
    from tradeoff.choose.candidates import scenario_pool
    from tradeoff.choose.pool_metric import metric_vectors
    from tradeoff.learn.engine import Engine, truth_from_dirichlet
    from tradeoff.record.recorder import Recorder
    from tradeoff.simulation.noise import Noise
    from tradeoff.simulation.oracles import SimulatedOracle

    loaded = load_scenario(ROOT / "scenarios" / f"{scenario_name}.toml")
    scenario = loaded.scenario
    population = scenario_population(scenario)
    pool = scenario_pool(scenario, ROOT / "scenarios")
    rows = np.asarray(metric_vectors(scenario, pool, population.priors.tolist()))
    spans = Engine(scenario, population=population).space.spans
    unit = _unit_timer()
    out: dict[str, Any] = {"models": len(rows), "strategy": scenario.elicitation.strategy}
    for label, noise in KINDS:
        if label not in kinds:
            continue
        steps: list[float] = []
        cpus: list[float] = []
        units: list[float] = []
        unit_cpus: list[float] = []
        firsts: list[float] = []
        questions: list[int] = []
        moved: list[bool] = []
        with tempfile.TemporaryDirectory(prefix="engine-step-") as folder:
            for run in range(runs):
                truth = truth_from_dirichlet(spans, np.random.default_rng([run, 35]))
                t0 = time.perf_counter()
                recorder = Recorder.start(
                    loaded,
                    f"p{run}",
                    folder,
                    candidates=rows,
                    population=population,
                    seed=run,
                )
                engine = recorder.engine
                query = engine.next_query()
                firsts.append(time.perf_counter() - t0)
                oracle = SimulatedOracle.for_scenario(
                    scenario, truth, noise=None if noise is None else Noise.parse(noise), seed=run
                )
                with recorder:
                    while query is not None:
                        choice = oracle.choose(query)
                        before = getattr(engine.state, "moves", 0)
                        t, cpu = time.perf_counter(), time.thread_time()
                        recorder.answer(choice)
                        query = engine.next_query()
                        steps.append(time.perf_counter() - t)
                        cpus.append(time.thread_time() - cpu)
                        moved.append(getattr(engine.state, "moves", 0) != before)
                        wall, used = unit()
                        units.append(wall)
                        unit_cpus.append(used)
                questions.append(engine.answered)
        out[label] = {
            "steps": steps,
            "cpu": cpus,
            "units": units,
            "unit_cpu": unit_cpus,
            "firsts": firsts,
            "questions": questions,
            "moved": moved,
        }
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
    unit = statistics.median(part["units"])
    median, p95 = statistics.median(steps), percentile(steps, 0.95)
    cpu, unit_cpu = part["cpu"], statistics.median(part["unit_cpu"])
    cpu_median, cpu_p95 = statistics.median(cpu), percentile(cpu, 0.95)
    return [
        version,
        label,
        people,
        f"{statistics.median(part['questions']):g}" if part["questions"] else "",
        len(steps),
        f"{unit * 1e3:.2f}",
        f"{median * 1e3:.1f}",
        f"{median / unit:.1f}",
        f"{p95 * 1e3:.1f}",
        f"{p95 / unit:.1f}",
        f"{max(steps) * 1e3:.1f}",
        f"{unit_cpu * 1e3:.2f}",
        f"{cpu_median * 1e3:.1f}",
        f"{cpu_median / unit_cpu:.1f}",
        f"{cpu_p95 * 1e3:.1f}",
        f"{cpu_p95 / unit_cpu:.1f}",
        f"{statistics.median(firsts) * 1e3:.0f}" if firsts else "",
    ]


def _split_row(version: str, part: dict[str, Any]) -> list[object]:
    """The answers that moved the particles and those that did not, in CPU units: what
    drives the median and the p95."""
    cpu = np.asarray(part["cpu"]) / statistics.median(part["unit_cpu"])
    moved = np.asarray(part["moved"], dtype=bool)
    still, went = cpu[~moved], cpu[moved]
    top = cpu >= percentile(list(cpu), 0.95)

    def cell(x: np.ndarray, q: float) -> str:
        return f"{percentile(list(x), q):.1f}" if len(x) else ""

    return [
        version,
        len(cpu),
        f"{moved.mean():.0%}",
        cell(still, 0.5),
        cell(still, 0.95),
        cell(went, 0.5),
        cell(went, 0.95),
        f"{int(moved[top].sum())} of {int(top.sum())}",
    ]


def _in_units(parts: list[dict[str, Any]], q: float, cpu: bool = False) -> float:
    """The ``q`` quantile of the answers' seconds (``cpu``: CPU seconds) of ``parts`` over
    their unit's median."""
    steps = [x for part in parts for x in part["cpu" if cpu else "steps"]]
    units = [x for part in parts for x in part["unit_cpu" if cpu else "units"]]
    return percentile(steps, q) / statistics.median(units)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--scenario", default="breast-cancer-triage")
    parser.add_argument("--before", metavar="SRC", help="another version's src folder")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    import tradeoff

    here = str(Path(tradeoff.__file__).resolve().parents[1])
    versions = [("this version", here)] + ([("before", args.before)] if args.before else [])
    parts: dict[tuple[str, str], dict[str, Any]] = {}
    info: dict[str, Any] = {}
    # Every kind in a fresh process (what each process builds once and keeps, such as the
    # trades, starts empty for each), alternated kind by kind, so both versions see the
    # same machine.
    for label, _ in KINDS:
        for version, src in versions:
            got = _elsewhere(src, args.runs, args.scenario, label)
            info = info or got
            parts[(version, label)] = got[label]
    table = []
    for version, _ in versions:
        every: dict[str, list[Any]] = {key: [] for key in parts[(version, KINDS[0][0])]}
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
            "unit ms",
            "median ms",
            "median units",
            "p95 ms",
            "p95 units",
            "max ms",
            "CPU: unit ms",
            "CPU: median ms",
            "CPU: median units",
            "CPU: p95 ms",
            "CPU: p95 units",
            "engine start → question 1 ms",
        ],
        table,
    )
    split = [
        _split_row(
            version,
            {
                k: [x for label, _ in KINDS for x in parts[(version, label)][k]]
                for k in ("cpu", "unit_cpu", "moved")
            },
        )
        for version, _ in versions
    ]
    body += "\n\nThe answers that moved the particles and those that did not (CPU units, all "
    body += "kinds of answer):\n\n" + markdown(
        [
            "version",
            "answers",
            "moved",
            "not moved: median",
            "not moved: p95",
            "moved: median",
            "moved: p95",
            "at or above the p95: moved",
        ],
        split,
    )
    if args.before:
        ratios = []
        for cpu in (False, True):
            for name, at in (("median", 0.5), ("p95", 0.95)):
                now = _in_units([parts[("this version", label)] for label, _ in KINDS], at, cpu)
                then = _in_units([parts[("before", label)] for label, _ in KINDS], at, cpu)
                ratios.append(f"{name}{' (CPU)' if cpu else ''} {then / now:.1f}×")
        body += "\n\nRatio before / this version (in units): " + ", ".join(ratios) + "."
    extra = "" if args.scenario == "breast-cancer-triage" else f" --scenario {args.scenario}"
    before = " --before SRC" if args.before else ""
    body += (
        f"\n\nScenario {args.scenario}, its pool ({info['models']} models), strategy "
        f"{info['strategy']}; one answer = the answer written to the session file, the "
        "update and the next question (one BLAS thread, one process, pinned to one core). "
        f"CPU: {cpu_name()}. A unit is the reference numpy unit (one 150×2000 @ 2000×34 "
        "product plus an exp over 2000×150), timed after every answer in the same process; "
        '"unit ms" is its median there. The CPU columns count this thread\'s CPU time '
        "(the engine's and the unit's): on a machine shared with other work they are the "
        "figures that compare, since wall time there includes the time others hold the "
        "core, which a long answer meets more often than a short unit. "
        "Goal: median ≤ 3 units, p95 ≤ 8 units."
        + " Each kind of answer of each version ran in a fresh process."
        + (
            f' "before" is `{args.before}` (another version\'s package), measured in the '
            "same run, alternating kind by kind with this version."
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
