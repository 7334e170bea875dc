"""The same record on every machine: simulated people on two numeric paths, and their
sessions replayed on the other.

Run: ``.venv/bin/python -m benchmarks.cross_path [--people 300] [--no-write]`` (writes
benchmarks/results/cross_path.md). Two numeric paths of this machine
(:mod:`tradeoff.machines`: ``default`` and the one most unlike it, ``no-avx512`` on a CPU
with AVX-512) each run the same simulated people: for every strategy (joint, probabilistic,
bisection) and kind of answer (exact, one in ten reversed), ``--people`` truths drawn from a
flat Dirichlet over swing weights answer the default scenario's questions through the
recorder the app uses (a session file each). Then every session recorded on one path is read
and replayed on the other (``tradeoff.record.replay.replay``, as ``session show``, ``select``
and the study report read them).

Per cell:

* **same questions**: share of people asked exactly the same questions on both paths (every
  option's values equal to 9 significant digits, the same sides, kinds and repeats);
* **same pick**: share whose recommendation (the model the posterior's expected metric
  makes best, as the result screen shows it) is the same;
* **max ΔP(best)** and **max Δweight**: the largest difference between the paths in the
  recommended model's P(best), and in any weight or end of its 90% interval (as shares);
* **refused**: sessions recorded on one path that the other could not replay;
* **replay**: replayed sessions whose recommendation differs, and the largest differences of
  P(best) and of weights and interval ends against the path that recorded them.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks._table import markdown, write

STRATEGIES = ("joint", "probabilistic", "bisection")
NOISES = ("exact", "flip:0.1")
SCENARIO = "scenarios/breast-cancer-triage.toml"
#: The goals of docs/architecture.md ("The same result on every machine").
GOAL_SAME_QUESTIONS = 0.99
GOAL_P_BEST = 0.005
GOAL_WEIGHT = 0.005


def _canon(query: Any) -> str:
    from tradeoff.ask.queries import profile_key

    return "/".join(
        (
            profile_key(query.left),
            profile_key(query.right),
            repr(query.pair),
            query.kind,
            repr(query.repeat_of),
        )
    )


def _outcome(engine: Any, scenario: Any, pool: Any, vectors: Any) -> dict[str, Any]:
    """What a person is shown at the end: pick, its P(best), weights and intervals."""
    from tradeoff.choose.recommend import recommend

    result = engine.result()
    ends = [x for iv in (result.intervals or ()) for x in iv]
    if pool is None:  # a scenario without a pool: the weights only
        return {"pick": None, "p_best": None, "weights": list(result.weights) + ends}
    rec = recommend(
        scenario,
        pool,
        result.weights,
        result.priors,
        draws=engine.weight_draws(),
        vectors=vectors,
    )
    return {
        "pick": rec.name,
        "p_best": rec.probability,
        "weights": list(result.weights) + ends,
    }


def _simulate(people: int, seed: int, folder: Path, scenario: str) -> list[dict[str, Any]]:
    from tradeoff.ask.population import scenario_population
    from tradeoff.ask.queries import QuerySpace
    from tradeoff.ask.scenario import load_scenario
    from tradeoff.choose.candidates import scenario_pool
    from tradeoff.choose.pool_metric import metric_vectors
    from tradeoff.learn import truth_from_dirichlet
    from tradeoff.simulation.oracles import Noise, SimulatedOracle
    from tradeoff.study.opening import start_session

    loaded = load_scenario(scenario)
    sc = loaded.scenario
    pool = None if sc.pool is None else scenario_pool(sc, Path(loaded.path).parent)
    population = scenario_population(sc)
    vectors = None if pool is None else metric_vectors(sc, pool, population.priors.tolist())
    spans = QuerySpace(sc, population).spans
    out = []
    for strategy in STRATEGIES:
        for noise_name in NOISES:
            noise = None if noise_name == "exact" else Noise.parse(noise_name)
            spec = sc.elicitation.override(strategy=strategy)
            seeds = np.random.SeedSequence([seed, STRATEGIES.index(strategy)]).spawn(people)
            for person, child in enumerate(seeds):
                rng = np.random.default_rng(child)
                truth = truth_from_dirichlet(spans, rng)
                run_seed = int(rng.integers(2**31))
                who = f"{strategy}-{noise_name.replace(':', '')}-{person}"
                rec = start_session(loaded, who, folder, spec=spec, seed=run_seed)
                oracle = SimulatedOracle.for_scenario(sc, truth, noise=noise, seed=run_seed)
                questions = []
                while (q := rec.engine.next_query()) is not None:
                    questions.append(_canon(q))
                    rec.answer(oracle.choose(q))
                rec.finish()
                rec.close()
                row = _outcome(rec.engine, sc, pool, vectors)
                row.update(cell=f"{strategy}/{noise_name}", who=who, questions=questions)
                out.append(row)
    return out


def _replay(folder: Path, scenario: str) -> list[dict[str, Any]]:
    from tradeoff.ask.scenario import load_scenario
    from tradeoff.choose.candidates import scenario_pool
    from tradeoff.choose.pool_metric import metric_vectors
    from tradeoff.errors import InputError
    from tradeoff.record.log import read_session
    from tradeoff.record.replay import replay

    loaded = load_scenario(scenario)
    sc = loaded.scenario
    pool = None if sc.pool is None else scenario_pool(sc, Path(loaded.path).parent)
    vectors = None
    out = []
    for path in sorted(folder.glob("*/*.jsonl")):
        row: dict[str, Any] = {"who": path.parent.name}
        try:
            log = read_session(path)
            engine = replay(log)
        except InputError as exc:
            row["refused"] = str(exc)
            out.append(row)
            continue
        if vectors is None and pool is not None:
            vectors = metric_vectors(sc, pool, list(engine.space.priors))
        row.update(_outcome(engine, sc, pool, vectors))
        row["differs"] = log.replay_differs
        row["warnings"] = list(log.warnings)
        out.append(row)
    return out


def _worker(args: argparse.Namespace) -> int:
    folder = Path(args.sessions)
    if args.worker == "simulate":
        rows = _simulate(args.people, args.seed, folder, args.scenario)
    else:
        rows = _replay(folder, args.scenario)
    Path(args.out).write_text(json.dumps(rows))
    return 0


_UNDER = (sys.executable, "-m", "tradeoff.machines")


def _parallel(jobs: list[tuple[str, list[str]]]) -> None:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    procs = [
        subprocess.Popen(
            [*_UNDER, path, "--", sys.executable, "-m", "benchmarks.cross_path", *argv],
            env=env,
        )
        for path, argv in jobs
    ]
    codes = [p.wait() for p in procs]
    if any(codes):
        raise SystemExit(f"a worker failed: exit codes {codes}")


def _gap(a: list[float], b: list[float]) -> float:
    return max((abs(x - y) for x, y in zip(a, b, strict=True)), default=0.0)


def _pgap(a: float | None, b: float | None) -> float:
    return 0.0 if a is None or b is None else abs(a - b)


def compare(
    runs: dict[str, list[dict[str, Any]]], replays: dict[str, list[dict[str, Any]]]
) -> tuple[list[list[object]], dict[str, float]]:
    """The table's rows and the totals, from each path's runs and each path's replays of
    the other path's sessions."""
    first, second = list(runs)
    by_who = {p: {r["who"]: r for r in rows} for p, rows in runs.items()}
    cells = sorted(
        {r["cell"] for r in runs[first]}, key=lambda c: (STRATEGIES.index(c.split("/")[0]), c)
    )
    rows: list[list[object]] = []
    totals = {
        "people": 0.0,
        "same_questions": 0.0,
        "same_pick": 0.0,
        "p_best": 0.0,
        "weight": 0.0,
        "sessions": 0.0,
        "refused": 0.0,
        "replay_pick": 0.0,
        "replay_p_best": 0.0,
        "replay_weight": 0.0,
    }
    for cell in cells:
        people = [r for r in runs[first] if r["cell"] == cell]
        same_q = same_pick = 0
        dp = dw = 0.0
        for r in people:
            o = by_who[second][r["who"]]
            same_q += r["questions"] == o["questions"]
            same_pick += r["pick"] == o["pick"]
            dp = max(dp, _pgap(r["p_best"], o["p_best"]))
            dw = max(dw, _gap(r["weights"], o["weights"]))
        sessions = refused = moved = 0
        rp = rw = 0.0
        for replayed_on, rows_ in replays.items():
            recorded_on = second if replayed_on == first else first
            for r in rows_:
                orig = by_who[recorded_on].get(r["who"])
                if orig is None or orig["cell"] != cell:
                    continue
                sessions += 1
                if "refused" in r:
                    refused += 1
                    continue
                moved += r["pick"] != orig["pick"]
                rp = max(rp, _pgap(r["p_best"], orig["p_best"]))
                rw = max(rw, _gap(r["weights"], orig["weights"]))
        n = len(people)
        rows.append(
            [
                cell,
                n,
                f"{same_q / n:.1%}",
                f"{same_pick / n:.1%}",
                f"{dp:.1e}",
                f"{dw:.1e}",
                f"{refused} of {sessions}",
                moved,
                f"{rp:.1e}",
                f"{rw:.1e}",
            ]
        )
        totals["people"] += n
        totals["same_questions"] += same_q
        totals["same_pick"] += same_pick
        totals["p_best"] = max(totals["p_best"], dp)
        totals["weight"] = max(totals["weight"], dw)
        totals["sessions"] += sessions
        totals["refused"] += refused
        totals["replay_pick"] += moved
        totals["replay_p_best"] = max(totals["replay_p_best"], rp)
        totals["replay_weight"] = max(totals["replay_weight"], rw)
    return rows, totals


HEADERS = (
    "strategy / answers",
    "people",
    "same questions",
    "same pick",
    "max ΔP(best)",
    "max Δweight",
    "refused",
    "replay: pick moved",
    "replay: max ΔP(best)",
    "replay: max Δweight",
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--people", type=int, default=300, help="people per cell (default 300)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument(
        "--paths",
        nargs=2,
        default=None,
        metavar="PATH",
        help="the two numeric paths (default: default and the most unlike it)",
    )
    ap.add_argument(
        "--scenario", default=SCENARIO, help=f"the scenario the people answer (default {SCENARIO})"
    )
    ap.add_argument("--no-write", action="store_true", help="print only")
    ap.add_argument("--worker", choices=("simulate", "replay"), help=argparse.SUPPRESS)
    ap.add_argument("--sessions", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return _worker(args)
    from tradeoff.machines import describe, other_path

    paths = args.paths or ["default", other_path()]
    if paths[0] == paths[1]:
        print("this machine has a single numeric path: nothing to compare", file=sys.stderr)
        return 2
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="cross-path-") as tmp:
        root = Path(tmp)
        common = [
            "--people",
            str(args.people),
            "--seed",
            str(args.seed),
            "--scenario",
            args.scenario,
        ]
        _parallel(
            [
                (
                    p,
                    [
                        "--worker",
                        "simulate",
                        "--sessions",
                        str(root / p),
                        "--out",
                        str(root / f"{p}.json"),
                        *common,
                    ],
                )
                for p in paths
            ]
        )
        other = {paths[0]: paths[1], paths[1]: paths[0]}
        _parallel(
            [
                (
                    p,
                    [
                        "--worker",
                        "replay",
                        "--sessions",
                        str(root / other[p]),
                        "--out",
                        str(root / f"replay-{p}.json"),
                        "--scenario",
                        args.scenario,
                    ],
                )
                for p in paths
            ]
        )
        runs = {p: json.loads((root / f"{p}.json").read_text()) for p in paths}
        replays = {p: json.loads((root / f"replay-{p}.json").read_text()) for p in paths}
    rows, totals = compare(runs, replays)
    took = time.perf_counter() - start
    n = totals["people"]
    command = f".venv/bin/python -m benchmarks.cross_path --people {args.people}"
    name = "cross_path"
    if args.paths:
        command += f" --paths {' '.join(paths)}"
        name += f"-{paths[1]}"
    if args.scenario != SCENARIO:
        command += f" --scenario {args.scenario}"
        name += f"-{Path(args.scenario).stem}"
    body = (
        f"Paths: `{describe(paths[0])}` against `{describe(paths[1])}`; scenario "
        f"`{args.scenario}`, {args.people} people per cell, seed {args.seed}; {took / 60:.1f} "
        f"min in all. Command: `{command}`."
        "\n\n" + markdown(HEADERS, rows) + "\n\n"
        f"All cells: the same questions for {totals['same_questions'] / n:.1%} of "
        f"{int(n)} people (goal ≥ {GOAL_SAME_QUESTIONS:.0%}), the same pick for "
        f"{totals['same_pick'] / n:.1%}; largest ΔP(best) {totals['p_best']:.1e}, largest "
        f"Δweight {totals['weight']:.1e}. Replays: {int(totals['refused'])} of "
        f"{int(totals['sessions'])} sessions refused (goal 0), the pick moved in "
        f"{int(totals['replay_pick'])}, largest ΔP(best) {totals['replay_p_best']:.1e} (goal "
        f"≤ {GOAL_P_BEST}), largest Δweight or interval end {totals['replay_weight']:.1e} "
        f"(goal ≤ {GOAL_WEIGHT})."
    )
    if args.no_write:
        print(body)
    else:
        write(name, "The same record on every machine", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
