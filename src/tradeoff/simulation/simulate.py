"""Drive the engine with simulated stakeholders: the automated end of the flow.

:func:`run_once` answers one engine's questions with a :class:`SimulatedOracle` until the
strategy stops; :func:`simulate` repeats that for several seeded stakeholders (random true
weights from a flat Dirichlet unless a truth is given) and summarises the L1 errors
‖â − a*‖₁ and question counts.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from tradeoff.ask.metric import l1_error, normalise
from tradeoff.ask.population import Population, scenario_population
from tradeoff.ask.queries import QuerySpace
from tradeoff.ask.scenario import ElicitationSpec, Scenario
from tradeoff.ask.shown import shown_pair
from tradeoff.choose.pool_metric import metric_vectors
from tradeoff.choose.recommend import measured_vectors, recommend
from tradeoff.errors import InputError, Problem, csv_records, read_user_file
from tradeoff.learn import ElicitationResult, Engine, truth_from_dirichlet
from tradeoff.learn.particles import PARTICLES
from tradeoff.pool import Pool
from tradeoff.simulation.oracles import Noise, SimulatedOracle
from tradeoff.simulation.parallel import Backend, run_people
from tradeoff.stable import probability
from tradeoff.text import clean_text


@dataclass(frozen=True)
class RunOutcome:
    """One simulated stakeholder's elicitation."""

    truth: tuple[float, ...]
    result: ElicitationResult
    l1: float
    #: The final recommendation scored against the truth (``None`` without candidates).
    score: RunScore | None = None
    trace: tuple[float, ...] | None = None
    #: The most times one pair of options was shown (:func:`~tradeoff.ask.shown.shown_pair`).
    pair_repeats: int = 1
    #: P(best) of the pick the engine stated at the stop (``None`` without candidates).
    p_best: float | None = None
    #: The kind of every question asked ("trade" or "candidates"), in order.
    kinds: tuple[str, ...] = ()

    @property
    def queries(self) -> int:
        return self.result.answers

    @property
    def covered(self) -> list[bool] | None:
        """For every weight, whether the truth lies in its 90% interval (``None`` without
        intervals)."""
        if self.result.intervals is None:
            return None
        return [
            lo <= t <= hi for t, (lo, hi) in zip(self.truth, self.result.intervals, strict=True)
        ]


@dataclass(frozen=True)
class RunScore:
    """A run's recommendation from a pool scored against the best model under the true
    weights.

    ``regret`` is the true metric's loss of the recommended model relative to its spread
    over the pool (0: the right pick)."""

    recommended: str
    truth_best: str
    regret: float

    @property
    def right(self) -> bool:
        return self.recommended == self.truth_best


def score_run(
    scenario: Scenario,
    pool: Pool,
    engine: Engine,
    truth: Sequence[float],
    vectors: NDArray[np.float64] | None = None,
) -> RunScore:
    """What the engine now recommends from ``pool`` and what the truth would pick
    (``vectors``: the pool's :func:`~tradeoff.choose.pool_metric.metric_vectors` under the result's
    priors, when the caller has them)."""
    result = engine.result()
    assert result.priors is not None
    if vectors is None:
        vectors = metric_vectors(scenario, pool, result.priors)
    posterior = engine.weighted_draws()
    draws, draw_weights = (None, None) if posterior is None else posterior
    rec = recommend(
        scenario,
        pool,
        result.weights,
        result.priors,
        draws=draws,
        draw_weights=draw_weights,
        vectors=vectors,
        measured=engine.measured,  # the tables the stop counted over (None: drawn here)
        likeliest=engine.likeliest,
    )
    psi = vectors @ np.asarray(truth, dtype=np.float64)
    best = int(np.argmax(psi))
    spread = float(psi.max() - psi.min())
    regret = float((psi[best] - psi[rec.index]) / spread) if spread > 0 else 0.0
    return RunScore(rec.name, pool.names[best], regret)


def run_once(
    scenario: Scenario,
    truth: Sequence[float],
    *,
    spec: ElicitationSpec | None = None,
    noise: Noise | None = None,
    indifference: float = 0.0,
    seed: int = 0,
    population: Population | None = None,
    pool: Pool | None = None,
    trace: bool = False,
) -> RunOutcome:
    """Run one engine to completion against a simulated oracle with true weights ``truth``.

    ``spec`` defaults to the scenario's ``[elicitation]``. With a candidate ``pool`` the
    engine aims at the pick (unless ``spec.stop`` is ``weights``) and the outcome also holds
    the final recommendation against the truth's best model. With
    ``trace``, it holds the L1 error of the estimate after every answer (paper 004 Fig. 4).
    """
    population = population or scenario_population(scenario)
    priors = population.priors.tolist()
    candidates = None if pool is None else metric_vectors(scenario, pool, priors)
    # A pool measured with noise: the stop counts over the tables every later decision uses.
    measured = None if pool is None else measured_vectors(scenario, pool, priors, PARTICLES)
    engine = Engine(
        scenario,
        spec,
        seed=seed,
        population=population,
        candidates=candidates,
        measured=measured,
    )
    oracle = SimulatedOracle.for_scenario(
        scenario, truth, noise=noise, indifference=indifference, seed=seed
    )
    t = tuple(float(x) for x in normalise(truth))
    errors: list[float] = []
    shown: Counter[tuple[tuple[str, ...], tuple[str, ...]]] = Counter()
    while (query := engine.next_query()) is not None:
        shown[shown_pair(scenario, query)] += 1
        engine.answer(oracle.choose(query))
        if trace:
            errors.append(l1_error(engine.result().weights, t))
    result = engine.result()
    score = None if pool is None else score_run(scenario, pool, engine, t, candidates)
    stated = engine.decision()
    return RunOutcome(
        t,
        result,
        l1_error(result.weights, t),
        score,
        tuple(errors) if trace else None,
        max(shown.values(), default=0),
        None if stated is None else stated[0],
        tuple(q.kind for q, _ in engine.history),
    )


@dataclass(frozen=True)
class Summary:
    """Several simulated stakeholders' outcomes and their summary statistics."""

    strategy: str
    names: tuple[str, ...]
    outcomes: tuple[RunOutcome, ...]
    noise: Noise | None
    indifference: float

    def trace_quantiles(self) -> tuple[list[float], list[float]] | None:
        """Median and p90 over the runs of the L1 error after each question (a run that
        stopped earlier keeps its last error), or ``None`` without traces."""
        traces = [o.trace for o in self.outcomes if o.trace]
        if not traces:
            return None
        longest = max(len(t) for t in traces)
        grid = np.array([list(t) + [t[-1]] * (longest - len(t)) for t in traces])
        return (
            [float(x) for x in np.median(grid, axis=0)],
            [float(x) for x in np.quantile(grid, 0.9, axis=0)],
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON document of ``tradeoff simulate --json``."""
        l1 = np.array([o.l1 for o in self.outcomes])
        q = np.array([o.queries for o in self.outcomes])
        data: dict[str, Any] = {
            "strategy": self.strategy,
            "names": list(self.names),
            "runs": len(self.outcomes),
            "noise": str(self.noise) if self.noise else "exact",
            "indifference": self.indifference,
            "queries": {"median": float(np.median(q)), "max": int(q.max())},
            "pair_repeats_max": max(o.pair_repeats for o in self.outcomes),
            "l1_error": {
                "median": float(np.median(l1)),
                "p90": float(np.quantile(l1, 0.9)),
                "max": float(l1.max()),
            },
        }
        covered = [c for o in self.outcomes if (c := o.covered) is not None]
        if covered:
            data["interval_coverage"] = float(np.mean([x for c in covered for x in c]))
        traced = self.trace_quantiles()
        if traced is not None:
            data["trace"] = {
                "questions": list(range(1, len(traced[0]) + 1)),
                "l1_median": traced[0],
                "l1_p90": traced[1],
            }
        scores = [o.score for o in self.outcomes if o.score is not None]
        if scores:
            regret = np.array([d.regret for d in scores])
            data["decision"] = {
                "right_pick_rate": float(np.mean([d.right for d in scores])),
                "regret": {
                    "median": float(np.median(regret)),
                    "p90": float(np.quantile(regret, 0.9)),
                    "max": float(regret.max()),
                },
                "questions": {
                    "median": float(np.median(q)),
                    "p90": float(np.quantile(q, 0.9)),
                    "max": int(q.max()),
                },
            }
        data["people"] = [_person(o) for o in self.outcomes]
        if len(self.outcomes) == 1:
            only = self.outcomes[0]
            data["weights"] = list(only.result.weights)
            data["truth"] = list(only.truth)
            data["complete"] = only.result.complete
            if only.result.intervals is not None:
                data["intervals"] = [list(iv) for iv in only.result.intervals]
            if only.result.error_rate_estimate is not None:
                data["error_rate_estimate"] = only.result.error_rate_estimate
        return data


def _person(outcome: RunOutcome) -> dict[str, Any]:
    """One simulated person in ``simulate --json``'s ``people`` list."""
    d = outcome.score
    return {
        "truth": list(outcome.truth),
        "recommended": None if d is None else d.recommended,
        "truth_best": None if d is None else d.truth_best,
        "right": None if d is None else d.right,
        "regret": None if d is None else d.regret,
        "p_best": probability(outcome.p_best),
        "questions": outcome.queries,
        "kinds": list(outcome.kinds),
    }


def read_truths(path: str | Path, scenario: Scenario) -> list[tuple[float, ...]]:
    r"""True weights from a CSV file: one simulated person per row, one column per weight in
    the scenario's order (``weight_names``), the convention of ``simulate --truth``.

    A first row of names is read as a header and must name the scenario's weights (in any
    order; the columns are then taken by name). Weights are non-negative, not all zero.

    >>> import tempfile, os
    >>> from tradeoff.ask.scenario import load_scenario
    >>> sc = load_scenario("scenarios/breast-cancer-triage.toml").scenario
    >>> f = os.path.join(tempfile.mkdtemp(), "t.csv")
    >>> _ = open(f, "w").write(",".join(sc.weight_names) + "\n" + "1,1,0,0\n")
    >>> read_truths(f, sc)
    [(1.0, 1.0, 0.0, 0.0)]
    """
    names = list(scenario.weight_names)
    fix_cols = f"give {len(names)} weights per row, in this order: {', '.join(names)}."
    text = read_user_file(path).decode("utf-8-sig", errors="replace")
    if len(text) > 50_000_000:
        raise InputError.single(path, "", "is larger than 50 MB.", "split it into smaller files.")
    records = list(csv_records(path, text))
    rows = [r for _, r in records]
    if not rows:
        raise InputError.single(path, "", "has no rows.", fix_cols)
    order = list(range(len(names)))
    first = 1
    header = [c.strip() for c in rows[0]]
    if not any(_numbers([c]) for c in header):  # no number at all: a header
        unknown = [c for c in header if c not in names]
        missing = [n for n in names if n not in header]
        if unknown or missing or len(header) != len(names):
            raise InputError.single(
                path,
                f"line {records[0][0]} (header)",
                f"names {', '.join(repr(clean_text(c)) for c in header)}"
                + (
                    f"; unknown: {', '.join(repr(clean_text(c)) for c in unknown)}"
                    if unknown
                    else ""
                )
                + (f"; missing: {', '.join(missing)}" if missing else "")
                + ".",
                f"name each weight once: {', '.join(names)} (or leave the header out and "
                "give the weights in that order).",
            )
        order = [header.index(n) for n in names]
    else:
        first = 0
    if len(rows) - first > 1_000_000:
        raise InputError.single(path, "", "has over 1,000,000 people.", "split the file.")
    out: list[tuple[float, ...]] = []
    problems: list[Problem] = []
    for number, row in records[first:]:
        if len(row) != len(names):
            problems.append(Problem(f"line {number}", f"has {len(row)} values.", fix_cols))
        else:
            values = _numbers([row[i].strip() for i in order])
            if values is None:
                problems.append(
                    Problem(f"line {number}", "has a value that is not a number.", fix_cols)
                )
            elif any(not math.isfinite(v) or v < 0 for v in values) or sum(values) <= 0:
                problems.append(
                    Problem(
                        f"line {number}",
                        "has a negative or non-finite weight, or all weights are zero.",
                        "weights are finite, non-negative and not all zero.",
                    )
                )
            else:
                out.append(values)
        if len(problems) >= 6:
            break
    if problems:
        raise InputError.many(path, problems)
    if not out:
        raise InputError.single(path, "", "has a header but no people.", fix_cols)
    return out


def _numbers(cells: Sequence[str]) -> tuple[float, ...] | None:
    """The cells as floats, or ``None`` when one is not a number."""
    try:
        return tuple(float(c) for c in cells)
    except ValueError:
        return None


@dataclass(frozen=True)
class _Shared:
    """What every simulated person of one :func:`simulate` call runs with."""

    scenario: Scenario
    spec: ElicitationSpec | None
    noise: Noise | None
    indifference: float
    population: Population
    pool: Pool | None
    trace: bool


def _run_person(shared: _Shared, person: tuple[Sequence[float], int]) -> RunOutcome:
    """One person of :func:`simulate`: their truth and seed, run to the stop."""
    truth, run_seed = person
    return run_once(
        shared.scenario,
        truth,
        spec=shared.spec,
        noise=shared.noise,
        indifference=shared.indifference,
        seed=run_seed,
        population=shared.population,
        pool=shared.pool,
        trace=shared.trace,
    )


def simulate(
    scenario: Scenario,
    *,
    truth: Sequence[float] | None = None,
    truths: Sequence[Sequence[float]] | None = None,
    runs: int = 1,
    spec: ElicitationSpec | None = None,
    noise: Noise | None = None,
    indifference: float = 0.0,
    seed: int = 0,
    pool: Pool | None = None,
    trace: bool = False,
    population: Population | None = None,
    backend: Backend | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Summary:
    """Simulate ``runs`` stakeholders; each run gets its own seeds from ``seed``.

    Without ``truth`` each run draws its true weights from a flat Dirichlet over swing
    weights (see :func:`~tradeoff.learn.truth_from_dirichlet`); with ``truths``, one
    run per row of weights (``runs`` is then their number). With a candidate
    ``pool``, every run's final recommendation is compared with the truth's best model
    (``decision`` in :meth:`Summary.to_dict`). ``population`` is the scenario's when the
    caller has it (memory-mapped from a cache, say); else it is built.

    Every person's truth and seed are drawn here, in order, before any runs; ``backend``
    says where they run (this process, local workers, a Dask cluster: see
    :mod:`~tradeoff.simulation.parallel`), which changes nothing in the summary.
    ``progress`` is called with (people done, people in all) as they finish.
    """
    if truth is not None and truths is not None:
        raise ValueError("give truth or truths, not both")
    if truths is not None:
        runs = len(truths)
    if runs < 1:
        raise ValueError("runs must be at least 1")
    n = len(scenario.weight_names)
    for t in [truth] if truths is None else truths:
        if t is not None and len(t) != n:
            raise ValueError(f"truth needs {n} weights ({', '.join(scenario.weight_names)})")
    population = population or scenario_population(scenario)
    spans = QuerySpace(scenario, population).spans
    people: list[tuple[Sequence[float], int]] = []
    for i, child in enumerate(np.random.SeedSequence(seed).spawn(runs)):
        rng = np.random.default_rng(child)
        if truths is not None:
            run_truth: Sequence[float] = truths[i]
        elif truth is not None:
            run_truth = truth
        else:
            run_truth = truth_from_dirichlet(spans, rng)
        people.append((run_truth, int(rng.integers(2**31))))
    if backend is not None and backend.parallel:
        population = population.in_memory()  # a cache's memory map does not travel
    shared = _Shared(scenario, spec, noise, indifference, population, pool, trace)
    outcomes = run_people(_run_person, shared, people, backend, progress)
    name = outcomes[0].result.strategy
    return Summary(name, scenario.weight_names, tuple(outcomes), noise, indifference)
