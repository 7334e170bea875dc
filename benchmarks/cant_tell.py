"""One "can't tell": does it widen the exchange rates the other answers settled?

Run: ``PYTHONPATH=src:. .venv/bin/python -m benchmarks.cant_tell [--people 20]`` (writes
benchmarks/results/cant-tell.md). Strategy ``joint`` on ``breast-cancer-triage``, people
with flat-Dirichlet swing weights, under two answer models: the band model alone (ρ = 1:
every answer within the band a "can't tell", the model before
:data:`~tradeoff.learn.likelihood.UNSURE_SHARE`) and the one shipped (ρ =
``UNSURE_SHARE``: within the band ρ of the answers are "can't tell", the others pick a
side). Each exchange rate is the 90% interval of a₁/aⱼ (the malignant class's weight per
unit of statistic j, as the review states it), its width the factor high/low.

* **A consistent "can't tell".** An exact person answers ``--answers`` questions (stop
  ``weights``), then one trade of the malignant class against statistic j exactly at
  their own exchange rate (|Δ| = 0) is answered "can't tell"; the width of a₁/aⱼ after
  it against before it, for j = benign, latency, memory.
* **``simulate --indifference τ`` people.** The whole session, answered "can't tell"
  whenever |Δ| < τ, with the pool (the stop aimed at the pick) and with ``--budget``
  questions aimed at the weights (sessions of one length under both models); the width
  of every exchange rate with all the answers against the same answers without the
  "can't tell" ones, for the people who said it at least once.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from benchmarks._table import markdown, write
from tradeoff.arrays import FloatArray
from tradeoff.ask.population import scenario_population
from tradeoff.ask.scenario import Scenario, load_scenario
from tradeoff.choose.candidates import scenario_pool
from tradeoff.choose.pool_metric import metric_vectors
from tradeoff.choose.recommend import measured_vectors
from tradeoff.learn import Choice, Engine, likelihood, truth_from_dirichlet
from tradeoff.learn.joint import JointStrategy
from tradeoff.learn.joint_state import JointState
from tradeoff.learn.particles import PARTICLES, weighted_quantiles
from tradeoff.simulation.oracles import SimulatedOracle

SCENARIO = "breast-cancer-triage"
#: ρ of the answer models compared by default: the band model alone, and the one shipped.
SHARES = (1.0, likelihood.UNSURE_SHARE)


def model_name(rho: float) -> str:
    return "band alone (ρ = 1)" if rho == 1.0 else f"ρ = {rho:g}"


#: A width "grew" when the factor high/low grew by more than this.
GREW = 1.1


@contextmanager
def share(rho: float) -> Iterator[None]:
    """The likelihood with ρ = ``rho`` inside the block."""
    kept = likelihood.UNSURE_SHARE
    likelihood.UNSURE_SHARE = rho
    try:
        yield
    finally:
        likelihood.UNSURE_SHARE = kept


def factors(strategy: JointStrategy, state: JointState) -> FloatArray:
    """high/low of the 90% interval of a₁/aⱼ, j = 2, 3, ..., under the posterior as every
    summary weighs it."""
    s = strategy.posterior.summary(state)
    out = []
    for j in range(1, s.natural.shape[1]):
        ratio = s.natural[:, 0] / np.maximum(s.natural[:, j], 1e-300)
        lo, hi = weighted_quantiles(ratio[:, None], s.weights, (0.05, 0.95))[:, 0]
        out.append(hi / lo)
    return np.asarray(out)


def consistent(sc: Scenario, seed: int, answers: int) -> tuple[FloatArray, FloatArray]:
    """Widths before and after one "can't tell" at the person's own exchange rate, one per
    statistic j (the trade of class 1 against j)."""
    spec = sc.elicitation.override(strategy="joint", budget=answers, stop="weights")
    engine = Engine(sc, spec, seed=seed)
    truth = truth_from_dirichlet(engine.space.spans, np.random.default_rng([seed, 7]))
    oracle = SimulatedOracle.for_scenario(sc, truth, seed=seed)
    while (q := engine.next_query()) is not None:
        engine.answer(oracle.choose(q))
    strategy = engine._strategy
    assert isinstance(strategy, JointStrategy)
    before = factors(strategy, engine.state)
    after = np.empty_like(before)
    for j in range(1, len(truth)):
        trade = engine.space.trade(0, j, truth[0] / (truth[0] + truth[j]))
        unsure = strategy.update(engine.state, trade, Choice.INDIFFERENT)
        after[j - 1] = factors(strategy, unsure)[j - 1]
    return before, after


def indifferent(
    sc: Scenario, path: Path, seed: int, tau: float, budget: int | None
) -> tuple[FloatArray, FloatArray] | None:
    """Widths without and with the "can't tell" answers of a ``simulate --indifference``
    person's whole session (``None`` when they never said it): with the pool and the stop
    aimed at the pick when ``budget`` is ``None``, else ``budget`` questions aimed at the
    weights."""
    population = scenario_population(sc)
    priors = population.priors.tolist()
    if budget is None:
        pool = scenario_pool(sc, path.parent)
        engine = Engine(
            sc,
            sc.elicitation.override(strategy="joint"),
            seed=seed,
            population=population,
            candidates=metric_vectors(sc, pool, priors),
            measured=measured_vectors(sc, pool, priors, PARTICLES),
        )
    else:
        spec = sc.elicitation.override(strategy="joint", budget=budget, stop="weights")
        engine = Engine(sc, spec, seed=seed, population=population)
    truth = truth_from_dirichlet(engine.space.spans, np.random.default_rng([seed, 7]))
    oracle = SimulatedOracle.for_scenario(sc, truth, indifference=tau, seed=seed)
    while (q := engine.next_query()) is not None:
        engine.answer(oracle.choose(q))
    if all(c is not Choice.INDIFFERENT for _, c in engine.history):
        return None
    strategy = engine._strategy
    assert isinstance(strategy, JointStrategy)
    without = strategy.initial()
    for q, c in engine.history:
        if c is not Choice.INDIFFERENT:
            without = strategy.update(without, q, c)
    return factors(strategy, without), factors(strategy, engine.state)


def _row(
    label: str, model: str, people: int, pairs: Sequence[tuple[FloatArray, FloatArray]]
) -> list[object]:
    first = np.concatenate([a for a, _ in pairs]) if pairs else np.zeros(0)
    second = np.concatenate([b for _, b in pairs]) if pairs else np.zeros(0)
    if not len(first):
        return [label, model, people, 0, "", "", "", ""]
    change = second / first
    return [
        label,
        model,
        people,
        len(first),
        f"{np.median(first):.3g}",
        f"{np.median(second):.3g}",
        f"{np.median(change):.2f}",
        f"{np.mean(change > GREW):.0%}",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--people", type=int, default=20, help="people per row")
    parser.add_argument("--answers", type=int, nargs="+", default=[8, 25])
    parser.add_argument("--tau", type=float, nargs="+", default=[0.002])
    parser.add_argument(
        "--budget", type=int, default=20, help="questions of the sessions aimed at the weights"
    )
    parser.add_argument(
        "--shares", type=float, nargs="+", default=list(SHARES), help="values of ρ compared"
    )
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    start = time.perf_counter()
    loaded = load_scenario(SCENARIO)
    sc, path = loaded.scenario, Path(loaded.path)
    rows_a, rows_b = [], []
    for answers in args.answers:
        for rho in args.shares:
            model = model_name(rho)
            with share(rho):
                pairs = [consistent(sc, seed, answers) for seed in range(args.people)]
            rows_a.append(_row(f"{answers} exact answers", model, args.people, pairs))
    for tau in args.tau:
        for budget in (None, args.budget):
            aim = "pool, the pick" if budget is None else f"{budget} questions, the weights"
            for rho in args.shares:
                model = model_name(rho)
                with share(rho):
                    found = [
                        indifferent(sc, path, seed, tau, budget) for seed in range(args.people)
                    ]
                kept = [x for x in found if x is not None]
                rows_b.append(_row(f"τ = {tau}, {aim}", model, len(kept), kept))
    seconds = time.perf_counter() - start
    head = ["case", "answer model", "people", "rates"]
    body = (
        "## One \"can't tell\" at the person's own exchange rate\n\n"
        + markdown(
            [*head, "median width before", "after", "median after/before", f"grew > {GREW}×"],
            rows_a,
        )
        + "\n\n## `simulate --indifference τ` people\n\n"
        + markdown(
            [
                *head,
                'median width without the "can\'t tell" answers',
                "with",
                "median with/without",
                f"grew > {GREW}×",
            ],
            rows_b,
        )
        + "\n\nWidth: high/low of the 90% interval of a₁/aⱼ (j = benign, latency, memory); "
        + "rates: people × j. "
        + f"{SCENARIO}, strategy joint, seeds 0–{args.people - 1}; {seconds:.0f} s.\n"
        + "Reproduce: `PYTHONPATH=src:. .venv/bin/python -m benchmarks.cant_tell "
        + f"--people {args.people} --answers {' '.join(map(str, args.answers))} "
        + f"--tau {' '.join(map(str, args.tau))} --budget {args.budget} "
        + f"--shares {' '.join(f'{x:g}' for x in args.shares)}`."
    )
    if args.no_write:
        print(body)
    else:
        write("cant-tell", 'One "can\'t tell" and the exchange rates', body)


if __name__ == "__main__":
    main()
