"""Questions that settle the choice: is the recommended model right, and is P(best) honest?

Run: ``.venv/bin/python -m benchmarks.decision [--runs 300] [--runs-other 100]
[--knockout-factor 1] [--cells PATTERN ...] [--seed 0] [--workers 2 | --dask-scheduler
ADDRESS] [--no-write]`` (writes
benchmarks/results/decision.md unless ``--no-write``).

Cells are scenario × strategy × truth family × answers:

* **scenarios**: ``breast-cancer-triage`` (the shipped pool of 34 real models;
  ``--runs`` people per cell), ``breast-cancer-triage-real`` (the same pool, questions
  built on a real model's probabilities) and ``glaucoma-screening`` with the SYNTHETIC pool
  of ``scenarios/pools/glaucoma.csv`` (``scenarios/build_glaucoma_pool.py``; given to the
  benchmark directly, the scenario names no pool); ``--runs-other`` people per cell;
* **strategies**: ``joint``, ``probabilistic`` (the scenario's settings, budget 30, stop
  at P(best) ≥ the scenario's ``decision_confidence``), and ``knockout``: a champion /
  challenger knockout over the potentially optimal candidates (those best for some
  positive weights, found by linear programming), the champion first the model most
  often best under a flat prior over swing weights, each challenger in that order shown
  against the champion exactly as the ``joint`` strategy shows two candidates (sides by a
  seeded coin), the winner staying; "can't tell" keeps the champion, a pair that reads the
  same on the screen is not asked (the champion stays), one that reads better on every
  line wins without a question; the last champion is the pick (no P(best));
* **truth families** (swing weights, drawn by the benchmark from its own seed; the same
  truths for every strategy and kind of answer): ``flat`` (a flat Dirichlet), ``sparse``
  (a Dirichlet(0.3): most weight on one or two aspects), ``dominant:<aspect>`` (that
  aspect's swing weight ≥ 0.7; one family per aspect of the scenario), ``cost-most`` (an
  attribute — every attribute here is a cost — has the largest swing weight),
  ``class1-small`` (the first class's swing weight ≤ 0.05), ``near-tie`` (the truth's two
  best models within the truth's perceivable margin,
  :func:`~tradeoff.learn.particles.perceivable_margin`: practically tied for that person);
  all but ``flat`` and ``sparse`` by rejection from ``flat``;
* **answers**: ``exact``, ``flip:0.1``, ``flip:0.2``, ``logistic:0.01`` and ``display``
  (:mod:`tradeoff.simulation.oracles`; each person's answers from a seed independent of
  the truths').

A pick is right when the recommended model (:func:`tradeoff.simulation.simulate.score_run`: the
Bayes decision under the engine's posterior, or the knockout's champion) is the truth's
best, and within the margin when the truth's best beats it by at most the truth's
perceivable margin; regret is the truth's loss of the pick, as a share of the truth's
spread over the pool (``regret``) and in the metric's units (``regret ψ``). The
calibration columns bin the probability the engine states at the stop
(:meth:`~tradeoff.learn.Engine.decision`: P(best), or P(best or practically tied) when it
says the pick is practically tied with another model) and give, per bin, the people in it
and the share of them for whom the statement was right: the pick is the truth's best, or
(said to be practically tied) within the truth's margin of it. Compute
time per question is the time of ``Engine.answer`` plus the next ``Engine.next_query``
(the first question's time includes no answer), measured inside this benchmark's worker
processes.
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from benchmarks._table import importable, markdown, write
from tradeoff.ask.population import Population, scenario_population
from tradeoff.ask.queries import QuerySpace
from tradeoff.ask.scenario import PoolSpec, Scenario, load_scenario
from tradeoff.ask.shown import card_lines
from tradeoff.choose.candidates import scenario_pool
from tradeoff.choose.pool_metric import metric_vectors
from tradeoff.learn import Choice, Engine
from tradeoff.learn.joint import JointStrategy
from tradeoff.learn.particles import perceivable_margin
from tradeoff.pool import Pool
from tradeoff.simulation.oracles import Noise, SimulatedOracle
from tradeoff.simulation.parallel import Backend, each, run_people
from tradeoff.simulation.simulate import score_run

FloatArray = NDArray[np.float64]

SCENARIOS = ("breast-cancer-triage", "breast-cancer-triage-real", "glaucoma-screening")
SHIPPED = SCENARIOS[0]
#: The pool given to glaucoma-screening here (the scenario names none).
GLAUCOMA_POOL = PoolSpec(
    path="pools/glaucoma.csv",
    name_column="model",
    columns={
        "glaucoma": "recall_glaucoma",
        "healthy": "recall_healthy",
        "cost": "cost_usd",
        "wait": "wait_min",
    },
)
STRATEGIES = ("joint", "probabilistic", "knockout")
FAMILIES = ("flat", "sparse", "dominant", "cost-most", "class1-small", "near-tie")
ANSWERS = ("exact", "flip:0.1", "flip:0.2", "logistic:0.01", "display")
BUDGET = 30
#: A pick whose regret in the metric's units (‖a‖₁ = 1) is at most this is "within regret
#: 0.001": a tenth of the temperature T = 0.01 of `logistic:0.01` answers.
NEAR = 0.001
#: Calibration bins of the stated P(best) at the stop.
BINS = ((0.0, 0.95), (0.95, 0.98), (0.98, 0.99), (0.99, 1.0 + 1e-12))


@dataclass(frozen=True)
class Setting:
    """What a worker needs for one scenario (built once per process)."""

    scenario: Scenario
    pool: Pool
    population: Population
    rows: FloatArray
    spans: tuple[float, ...]


@cache
def setting(name: str) -> Setting:
    sc = load_scenario(f"scenarios/{name}.toml").scenario
    if sc.pool is None:
        sc = sc.model_copy(update={"pool": GLAUCOMA_POOL})
    pool = scenario_pool(sc, "scenarios")
    population = scenario_population(sc)
    priors = population.priors.tolist()
    rows = metric_vectors(sc, pool, priors)
    spans = QuerySpace(sc, population).spans
    return Setting(sc, pool, population, rows, spans)


def families(name: str) -> list[str]:
    """The truth families of a scenario: ``dominant`` once per aspect."""
    sc = setting(name).scenario
    aspects = [c.label for c in sc.classes] + [a.name for a in sc.attributes]
    out: list[str] = []
    for family in FAMILIES:
        out.extend(
            [f"dominant:{a.split()[0]}" for a in aspects] if family == "dominant" else [family]
        )
    return out


def family_code(family: str) -> int:
    """A number for a family's seeds that does not move when families are added."""
    return zlib.crc32(family.encode())


def truths(name: str, family: str, count: int, seed: int) -> FloatArray:
    """``count`` true natural-unit weights (rows) of a family, from the benchmark's seed."""
    s = setting(name)
    rng = np.random.default_rng([seed, SCENARIOS.index(name), family_code(family), 11])
    n = len(s.spans)
    k = s.scenario.n_classes
    aspects = families(name)[2 : 2 + n]
    out: list[FloatArray] = []
    while len(out) < count:
        alpha = 0.3 if family == "sparse" else 1.0
        swing = rng.dirichlet(np.full(n, alpha), size=20_000)
        natural = swing / np.asarray(s.spans)
        natural /= natural.sum(axis=1, keepdims=True)
        if family.startswith("dominant:"):
            keep = swing[:, aspects.index(family)] >= 0.7
        elif family == "cost-most":
            keep = np.argmax(swing, axis=1) >= k
        elif family == "class1-small":
            keep = swing[:, 0] <= 0.05
        elif family == "near-tie":
            psi = natural @ s.rows.T
            top2 = -np.sort(-psi, axis=1)[:, :2]
            keep = top2[:, 0] - top2[:, 1] <= perceivable_margin(natural, s.spans)
        else:
            keep = np.ones(len(swing), dtype=bool)
        out.extend(natural[keep])
    return np.asarray(out[:count])


def potentially_optimal(rows: FloatArray) -> list[int]:
    """Candidates that are best for some positive weights (a linear programme each)."""
    from scipy.optimize import linprog

    m, n = rows.shape
    out = []
    for i in range(m):
        # Find w ≥ 0, Σw = 1 maximising t with (rows_i − rows_j)·w ≥ t for all j ≠ i.
        others = np.delete(np.arange(m), i)
        a_ub = np.hstack((-(rows[i] - rows[others]), np.ones((m - 1, 1))))
        res = linprog(
            c=np.r_[np.zeros(n), -1.0],
            A_ub=a_ub,
            b_ub=np.zeros(m - 1),
            A_eq=np.r_[np.ones(n), 0.0][None, :],
            b_eq=[1.0],
            bounds=[(0, None)] * n + [(None, None)],
            method="highs",
        )
        if res.status == 0 and -res.fun >= 0:
            out.append(i)
    return out


@cache
def knockout_order(name: str) -> tuple[int, ...]:
    """Potentially optimal candidates, the most often best under a flat swing prior first."""
    s = setting(name)
    po = potentially_optimal(s.rows)
    rng = np.random.default_rng(0)
    swing = rng.dirichlet(np.ones(len(s.spans)), size=20_000)
    natural = swing / np.asarray(s.spans)
    natural /= natural.sum(axis=1, keepdims=True)
    best = np.argmax(natural @ s.rows[po].T, axis=1)
    counts = np.bincount(best, minlength=len(po))
    order = sorted(range(len(po)), key=lambda j: (-counts[j], po[j]))
    return tuple(po[j] for j in order)


def knockout(
    name: str, truth: FloatArray, noise: Noise | None, oracle_seed: int
) -> tuple[int, int, list[float]]:
    """(pick, questions, compute times) of the champion / challenger knockout."""
    s = setting(name)
    sc = s.scenario
    space = QuerySpace(sc, s.population, context=True)
    shows = JointStrategy(space, sc.elicitation.override(strategy="joint"), candidates=s.rows)
    oracle = SimulatedOracle.for_scenario(sc, truth, noise=noise, seed=oracle_seed)
    order = knockout_order(name)
    champion = order[0]
    asked = 0
    times = []
    for challenger in order[1:]:
        if asked >= BUDGET:
            break
        start = time.perf_counter()
        query = shows.candidate_query(champion, challenger)
        if query is None:  # reads the same, or one reads better on every line
            lines = card_lines(
                sc, shows.candidate_profile(challenger), shows.candidate_profile(champion)
            )
            differing = [x for x in lines if x.differs]
            if differing and all(x.better for x in differing):
                champion = challenger
            continue
        if np.random.default_rng([oracle_seed, asked, 5]).random() < 0.5:
            query = query.swapped()
        times.append(time.perf_counter() - start)
        choice = oracle.choose(query)
        asked += 1
        assert query.candidates is not None
        if choice is not Choice.INDIFFERENT:
            winner = query.candidates[0] if choice is Choice.LEFT else query.candidates[1]
            champion = winner
    return champion, asked, times


def run_person(
    name: str, strategy: str, truth: FloatArray, answers: str, engine_seed: int, oracle_seed: int
) -> dict[str, Any]:
    s = setting(name)
    sc = s.scenario
    noise = Noise.parse(answers)
    psi = s.rows @ truth
    best = int(np.argmax(psi))
    spread = float(psi.max() - psi.min())
    margin = float(perceivable_margin(truth[None, :], s.spans)[0])
    if strategy == "knockout":
        pick, questions, times = knockout(name, truth, noise, oracle_seed)
        regret = float(psi[best] - psi[pick])
        return {
            "right": pick == best,
            "within": regret <= margin,
            "stated_right": pick == best,
            "tied": False,
            "regret": regret / spread if spread > 0 else 0.0,
            "regret_psi": regret,
            "questions": questions,
            "p_best": None,
            "times": times,
            "kinds": ["candidates"] * questions,
        }
    spec = sc.elicitation.override(strategy=strategy, budget=BUDGET)
    engine = Engine(sc, spec, seed=engine_seed, population=s.population, candidates=s.rows)
    oracle = SimulatedOracle.for_scenario(sc, truth, noise=noise, seed=oracle_seed)
    times = []
    start = time.perf_counter()
    query = engine.next_query()
    times.append(time.perf_counter() - start)
    while query is not None:
        choice = oracle.choose(query)
        start = time.perf_counter()
        engine.answer(choice)
        query = engine.next_query()
        times.append(time.perf_counter() - start)
    score = score_run(sc, s.pool, engine, truth)
    stated = engine.decision()
    verdict = engine.verdict()
    tied = verdict is not None and verdict.practically_tied
    pick = s.pool.names.index(score.recommended)
    within = float(psi[best] - psi[pick]) <= margin
    return {
        "right": score.right,
        "within": within,
        "stated_right": score.right or (tied and within),
        "tied": tied,
        "regret": score.regret,
        "regret_psi": float(psi[best] - psi[pick]),
        "questions": engine.answered,
        "p_best": None if stated is None else stated[0],
        "times": times,
        "kinds": [q.kind for q, _ in engine.history],
    }


def run_cell(task: tuple[str, str, str, str, int, int, int]) -> dict[str, Any]:
    name, strategy, family, answers, start, count, seed = task
    rows = truths(name, family, start + count, seed)[start:]
    people = []
    for i, truth in enumerate(rows, start=start):
        # Seeds of the person's answers and of the engine: independent of the truths'.
        ss = np.random.SeedSequence([seed, SCENARIOS.index(name), family_code(family), i, 3])
        oracle_seed, engine_seed = (int(x) for x in ss.generate_state(2))
        people.append(run_person(name, strategy, truth, answers, engine_seed, oracle_seed))
    return {"cell": (name, strategy, family, answers), "people": people}


def cells(patterns: Sequence[str] | None) -> list[tuple[str, str, str, str]]:
    out = []
    for name in SCENARIOS:
        for strategy in STRATEGIES:
            for family in families(name):
                for answers in ANSWERS:
                    label = f"{name}/{strategy}/{family}/{answers}"
                    if not patterns or any(fnmatch.fnmatchcase(label, p) for p in patterns):
                        out.append((name, strategy, family, answers))
    return out


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def summarise(cell: tuple[str, str, str, str], people: list[dict[str, Any]]) -> list[str]:
    _, strategy, family, answers = cell
    right = np.array([p["right"] for p in people], dtype=float)
    within = np.array([p["within"] for p in people], dtype=float)
    tied = np.array([p["tied"] for p in people], dtype=float)
    regret = np.array([p["regret"] for p in people])
    regret_psi = np.array([p["regret_psi"] for p in people])
    q = np.array([p["questions"] for p in people])
    row = [
        strategy,
        family,
        answers,
        str(len(people)),
        _pct(right.mean()),
        _pct(within.mean()),
        _pct(float(np.mean(regret_psi <= NEAR))),
        _pct(tied.mean()),
        f"{np.median(regret):.4f} / {np.quantile(regret, 0.9):.4f} / {regret.max():.4f}",
        f"{regret_psi.max():.2g}",
        f"{np.median(q):g} / {np.quantile(q, 0.9):g} / {q.max()}",
    ]
    stated = [(p["p_best"], p["stated_right"]) for p in people if p["p_best"] is not None]
    if not stated:
        return [*row, "–", "–", "–", "–", "–"]
    confident = [r for pb, r in stated if pb >= 0.95]
    row.append(f"{len(confident)}: {_pct(1 - float(np.mean(confident)))}" if confident else "0")
    for lo, hi in BINS:
        inside = [r for pb, r in stated if lo <= pb < hi]
        row.append(f"{len(inside)}: {_pct(float(np.mean(inside)))}" if inside else "0")
    return row


#: Goals by kind of answer on the shipped pool: (the share of people whose pick must be within
#: the margin — or for logistic answers within regret ψ ``NEAR`` —, the largest median of
#: questions or ``None``).
GOALS = {
    "exact": (0.995, 10.0),
    "flip:0.1": (0.97, 15.0),
    "flip:0.2": (0.92, None),
    "logistic:0.01": (0.95, None),
}
#: Wrong among the stops at a stated probability ≥ 0.95, at most (every cell).
WRONG_GOAL = 0.05


def _goal_row(
    answers: str,
    goal: str,
    by_family: dict[str, float],
    bound: float,
    shown: Any,
    *,
    low: bool,
) -> list[str]:
    """One row of the goals table: the worst family (the lowest value when ``low`` says
    a goal is a floor, else the highest) against ``bound``."""
    pick = min if low else max
    worst = pick(by_family, key=lambda f: by_family[f])
    value = by_family[worst]
    met = value >= bound if low else value <= bound
    return [answers, goal, f"{shown(value)} ({worst})", "yes" if met else "no"]


def goals(results: dict[tuple[str, str, str, str], list[dict[str, Any]]]) -> str:
    """The goals of the shipped pool's ``joint`` cells, each with the worst cell against it."""
    rows = []
    for answers, (share, questions) in GOALS.items():
        cells_here = {
            c[2]: people
            for c, people in results.items()
            if c[0] == SHIPPED and c[1] == "joint" and c[3] == answers
        }
        if not cells_here:
            continue
        near = answers.startswith("logistic")
        got = {
            f: float(np.mean([p["regret_psi"] <= NEAR if near else p["within"] for p in ps]))
            for f, ps in cells_here.items()
        }
        label = "regret ψ ≤ 0.001" if near else "within margin"
        rows.append(_goal_row(answers, f"{label} ≥ {_pct(share)}", got, share, _pct, low=True))
        wrong = {}
        for family, people in cells_here.items():
            sure = [p["stated_right"] for p in people if (p["p_best"] or 0.0) >= 0.95]
            wrong[family] = 1 - float(np.mean(sure)) if sure else 0.0
        goal = f"wrong among stops at P ≥ 0.95 ≤ {_pct(WRONG_GOAL)}"
        rows.append(_goal_row(answers, goal, wrong, WRONG_GOAL, _pct, low=False))
        if questions is not None:
            med = {
                f: float(np.median([p["questions"] for p in ps])) for f, ps in cells_here.items()
            }
            goal = f"median questions ≤ {questions:g}"
            rows.append(_goal_row(answers, goal, med, questions, lambda x: f"{x:g}", low=False))
    if not rows:
        return ""
    return "## Goals (shipped pool, `joint`, the worst family)\n\n" + markdown(
        ["answers", "goal", "worst cell", "met"], rows
    )


HEADERS = [
    "strategy",
    "truths",
    "answers",
    "people",
    "right pick",
    "within margin",
    f"regret ψ ≤ {NEAR} (T/10)",
    "said tied",
    "regret median / p90 / max (share of spread)",
    "regret ψ max",
    "questions median / p90 / max",
    "stopped at P ≥ 0.95: n: wrong",
    "P < 0.95: n: right",
    "[0.95, 0.98): n: right",
    "[0.98, 0.99): n: right",
    "[0.99, 1]: n: right",
]


def main(
    runs: int,
    runs_other: int,
    patterns: Sequence[str] | None,
    seed: int,
    workers: int,
    chunk: int,
    out: bool,
    command: str,
    knockout_factor: int = 1,
    out_name: str = "decision",
    scheduler: str | None = None,
) -> None:
    started = time.perf_counter()
    tasks = []
    for cell in cells(patterns):
        n = runs if cell[0] == SHIPPED else runs_other
        if cell[1] == "knockout":  # cheap: a few times as many people
            n *= knockout_factor
        for start in range(0, n, chunk):
            tasks.append((*cell, start, min(chunk, n - start), seed))
    # Longest first: glaucoma and the joint strategy's cells.
    results: dict[tuple[str, str, str, str], list[dict[str, Any]]] = {}
    # The worker processes share the cores: one BLAS thread each (read when numpy loads in
    # a freshly started worker).
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    backend = Backend(workers, scheduler)
    for part in run_people(each, importable(run_cell), tasks, backend, per_chunk=1):
        results.setdefault(part["cell"], []).extend(part["people"])
    took = time.perf_counter() - started
    where = (
        f"the Dask cluster at {scheduler}"
        if scheduler
        else f"{workers} worker process{'es' if workers != 1 else ''}"
    )
    sections = []
    for name in SCENARIOS:
        rows = [summarise(c, p) for c, p in results.items() if c[0] == name]
        if not rows:
            continue
        sections.append(f"## {name}\n\n" + markdown(HEADERS, rows))
        times = {}
        kinds = []
        for (sc_name, strategy, _, _), people in results.items():
            if sc_name != name:
                continue
            times.setdefault(strategy, []).extend(t for p in people for t in p["times"])
            if strategy == "joint":
                kinds.extend(k for p in people for k in p["kinds"])
        timing = [
            [
                strategy,
                str(len(ts)),
                *(f"{1000 * np.quantile(ts, qq):.1f}" for qq in (0.5, 0.9, 0.95, 0.99)),
                f"{1000 * max(ts):.0f}",
            ]
            for strategy, ts in times.items()
            if ts
        ]
        sections.append(
            f"Compute time per question (ms; measured inside {where}; wall time, which "
            "other work on the same cores lengthens):\n\n"
            + markdown(["strategy", "questions", "p50", "p90", "p95", "p99", "max"], timing)
        )
        if kinds:
            share = np.mean([k == "candidates" for k in kinds])
            sections.append(
                f"Questions of the `joint` strategy that showed two candidate models: "
                f"{_pct(float(share))} of {len(kinds)} (the rest were trades)."
            )
    sections.append(goals(results))
    body = (
        "\n\n".join(sections)
        + f"\n\nBudget {BUDGET} questions as a hard cap; stop at P(best) ≥ 0.95 (the "
        f"scenarios' `decision_confidence`); seed {seed}; {took / 60:.0f} min on {where}.\n"
        "Regret columns are shares of the truth's spread over the pool unless marked ψ "
        "(the metric's natural units, ‖a‖₁ = 1). Calibration columns: people whose stated "
        "P(best) at the stop fell in the bin, and the share of them whose pick was right.\n"
        f"Reproduce: `{command}`.\n"
    )
    if out:
        write(out_name, "Questions that settle the choice", body)
    else:
        print(body)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=300, help="people per cell (shipped pool)")
    parser.add_argument("--runs-other", type=int, default=100, help="people per other cell")
    parser.add_argument(
        "--cells",
        nargs="+",
        metavar="PATTERN",
        help="only cells whose scenario/strategy/truths/answers label matches a pattern "
        "(fnmatch, e.g. 'breast-cancer-triage/joint/*/flip:0.1')",
    )
    parser.add_argument(
        "--knockout-factor", type=int, default=1, help="people per knockout cell: this many times"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2, help="local worker processes")
    parser.add_argument(
        "--dask-scheduler", metavar="ADDRESS", help="run the cells on a Dask cluster instead"
    )
    parser.add_argument("--chunk", type=int, default=25, help="people per task")
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument(
        "--name", default="decision", help="write benchmarks/results/NAME.md (default decision)"
    )
    args = parser.parse_args()
    import sys

    cmd = ".venv/bin/python -m benchmarks.decision " + " ".join(
        a if " " not in a and "*" not in a else repr(a) for a in sys.argv[1:]
    )
    main(
        args.runs,
        args.runs_other,
        args.cells,
        args.seed,
        args.workers,
        args.chunk,
        not args.no_write,
        cmd,
        args.knockout_factor,
        args.name,
        args.dask_scheduler,
    )
