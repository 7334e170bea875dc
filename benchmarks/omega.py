"""Which COPA ω (and p) agrees best with a person's own linear metric? (weights → ω study)

Run: ``.venv/bin/python -m benchmarks.omega [--stakeholders 1000] [--per-pool 20]`` (writes
benchmarks/results/omega.md). A person's metric is ψ = −Σ_k c_k·y_k over a pool's columns
y (oriented so that lower is better), with swing weights s ~ flat Dirichlet and
c_k = s_k / range_k. For each mapping from the metric to COPA's ω and p, the study measures
how often COPA's pick is a best model under ψ (top-1) and Kendall τ between COPA's order and
ψ's, over

* the shipped pool (``scenarios/pools/breast-cancer.csv``, 34 models, 4 objectives),
  ``--stakeholders`` people, twice: with swing weights over the pool's column ranges (as
  above), and over the scenario's ranges (a recall from none to all of its class's cases,
  an attribute over the scenario's ``range``: c_k = s_k / scenario range_k), which is how
  the app's people weigh, so the agreement a person of the app can expect;
* 100 random pools (3–6 objectives, 20–200 models, a concave front; columns skewed by a
  random monotone transform, some rounded so that ties occur) and 100 real pools (random
  subsets of 30–300 Open LLM Leaderboard models, 3–6 of its six benchmarks and CO₂ cost),
  ``--per-pool`` people each.

Mappings (:func:`tradeoff.choose.pool_metric.omega_for_metric`): ``swing`` (ω_k = s_k, |c_k| times
the column's range), ``fitted`` (ω ≥ 0 fitted by least squares so that Σ ω_k·û_k follows
ψ's shortfall from its best), ``anchored`` (ω_k ∝ 1/(û_k(m*) + 1/N) for the metric's best
model m*), each alone, and ``chosen``: of the three, the one whose COPA pick is a best model
under ψ with the highest τ (what the product uses).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy.stats import kendalltau

from benchmarks._table import markdown, write
from tradeoff.ask.scenario import load_scenario
from tradeoff.choose import copa
from tradeoff.choose.candidates import scenario_pool
from tradeoff.choose.pool_metric import OMEGA_MAPPINGS, metric_objectives, omega_for_metric
from tradeoff.pool import Objective, Pool
from tradeoff.ranks import rank_cdf

FloatArray = NDArray[np.float64]

LLM = Path("data/open-llm-leaderboard/open_llm_leaderboard.csv")
LLM_COLUMNS = ("IFEval", "BBH", "MATH Lvl 5", "GPQA", "MUSR", "MMLU-PRO")


#: (row label, mappings to choose from, p): each production mapping alone, then the choice.
ROWS: tuple[tuple[str, tuple[str, ...], float], ...] = (
    ("swing, p = ∞ (before)", ("swing",), math.inf),
    ("swing, p = 2", ("swing",), 2.0),
    ("swing, p = 1", ("swing",), 1.0),
    ("fitted, p = 1", ("fitted",), 1.0),
    ("anchored, p = ∞", ("anchored",), math.inf),
    ("chosen, p = 1", OMEGA_MAPPINGS, 1.0),
    ("chosen, p = ∞ (now)", OMEGA_MAPPINGS, math.inf),
)


def as_pool(y: FloatArray) -> Pool:
    """A pool whose columns are all minimised."""
    objectives = tuple(Objective(f"c{k}", "min") for k in range(y.shape[1]))
    names = tuple(f"m{i}" for i in range(len(y)))
    return Pool("study", names, objectives, y, pd.DataFrame(), np.arange(len(y)))


def agreement(
    pool: Pool, u: FloatArray, c: FloatArray, mappings: tuple[str, ...], p: float
) -> tuple[bool, float]:
    """(COPA's pick is a best model under ψ, Kendall τ between the two orders), with ω from
    :func:`tradeoff.choose.pool_metric.omega_for_metric`; the check recomputes ψ and COPA's
    order."""
    omega, _ = omega_for_metric(pool, -c, p, mappings=mappings)
    psi = -(pool.values @ c)
    s = copa.scores(u, omega, p)
    pick = int(copa.rank(u, omega, p)[0])
    top = bool(psi[pick] >= psi.max() - 1e-12 * max(1.0, abs(psi.max())))
    tau = kendalltau(-s, psi).statistic
    return top, float(tau) if np.isfinite(tau) else 0.0


def people(
    y: FloatArray, n: int, rng: np.random.Generator, spans: FloatArray | None = None
) -> Iterator[FloatArray]:
    """Per-unit coefficients c of ``n`` people with flat-Dirichlet swing weights, over the
    pool's column ranges, or over ``spans`` (the scenario's ranges) when given."""
    span = y.max(axis=0) - y.min(axis=0) if spans is None else spans
    span = np.where(span > 0, span, 1.0)
    for s in rng.dirichlet(np.ones(y.shape[1]), size=n):
        yield s / span


def scenario_spans() -> FloatArray:
    """The shipped scenario's range of each pool column: a recall from 0 to 1 (none to all
    of the class's cases), an attribute its ``range``."""
    sc = load_scenario("scenarios/breast-cancer-triage.toml").scenario
    return np.array(
        [1.0] * sc.n_classes + [a.range[1] - a.range[0] for a in sc.attributes], dtype=np.float64
    )


def shipped_pool() -> FloatArray:
    sc = load_scenario("scenarios/breast-cancer-triage.toml").scenario
    pool = scenario_pool(sc, "scenarios")
    signs = np.array([1.0 if o.direction == "min" else -1.0 for o in metric_objectives(sc)])
    out: FloatArray = pool.values * signs
    return out


def random_pool(rng: np.random.Generator) -> FloatArray:
    """A concave front with skewed marginals and, sometimes, ties (lower is better)."""
    k = int(rng.integers(3, 7))
    n = int(rng.integers(20, 201))
    g = np.abs(rng.normal(size=(n, k)))
    g /= np.linalg.norm(g, axis=1, keepdims=True)
    g *= rng.uniform(0.85, 1.0, size=(n, 1))
    y = 1.0 - g
    for j in range(k):
        kind = rng.integers(4)
        if kind == 1:
            y[:, j] = np.expm1(rng.uniform(2, 6) * y[:, j])  # long right tail
        elif kind == 2:
            y[:, j] = y[:, j] ** rng.uniform(2, 4)  # crowded near the best
        elif kind == 3:
            y[:, j] = np.round(y[:, j], 1)  # coarse: many ties
    return y


def llm_pools(count: int, rng: np.random.Generator) -> list[FloatArray]:
    df = pd.read_csv(LLM)
    df = df[(df["Available on the hub"]) & (df["Submission Date"] <= "2025-01-09")]
    cols = [*LLM_COLUMNS, "CO₂ cost (kg)"]
    df = df[cols].dropna()
    values = df.to_numpy(dtype=np.float64)
    values[:, : len(LLM_COLUMNS)] *= -1.0  # benchmarks are maximised
    out = []
    for _ in range(count):
        k = int(rng.integers(3, 7))
        pick = rng.choice(len(cols), size=k, replace=False)
        rows = rng.choice(len(values), size=int(rng.integers(30, 301)), replace=False)
        out.append(values[np.ix_(rows, pick)])
    return out


#: The two shipped-pool families: people over the pool's ranges, over the scenario's.
SHIPPED = "shipped pool (34 models)"
SHIPPED_SCENARIO = "shipped pool, people over the scenario's ranges"


def study(
    stakeholders: int, per_pool: int, seed: int, shipped_only: bool = False
) -> list[list[object]]:
    rng = np.random.default_rng(seed)
    families: dict[str, tuple[list[FloatArray], int, FloatArray | None]] = {
        SHIPPED: ([shipped_pool()], stakeholders, None),
        SHIPPED_SCENARIO: ([shipped_pool()], stakeholders, scenario_spans()),
    }
    if not shipped_only:
        families["100 random pools"] = ([random_pool(rng) for _ in range(100)], per_pool, None)
        families["100 LLM-leaderboard pools"] = (llm_pools(100, rng), per_pool, None)
    rows: list[list[object]] = []
    for family, (pools, n, spans) in families.items():
        results: dict[str, list[tuple[bool, float]]] = {row[0]: [] for row in ROWS}
        for y in pools:
            pool = as_pool(y)
            u = rank_cdf(y)
            for c in people(y, n, rng, spans):
                for name, mappings, p in ROWS:
                    results[name].append(agreement(pool, u, c, mappings, p))
        for name, got in results.items():
            top = np.array([t for t, _ in got])
            tau = np.array([t for _, t in got])
            rows.append(
                [
                    family,
                    name,
                    len(got),
                    f"{100 * top.mean():.1f}%",
                    f"{np.median(tau):.2f}",
                    f"{np.quantile(tau, 0.1):.2f}",
                    f"{100 * np.mean(tau >= 0.9):.0f}%",
                ]
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stakeholders", type=int, default=1000)
    parser.add_argument("--per-pool", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--shipped-only",
        action="store_true",
        help="only the shipped pool's two families (people over the pool's ranges and over "
        "the scenario's); writes omega-shipped.md",
    )
    args = parser.parse_args()
    rows = study(args.stakeholders, args.per_pool, args.seed, args.shipped_only)
    headers = ["pools", "mapping", "people", "top-1", "τ median", "τ p10", "τ ≥ 0.9"]
    body = (
        markdown(headers, rows)
        + f"\n\nTop-1: COPA's pick is a best model under the person's metric. τ: Kendall τ-b "
        "between COPA's order and the metric's over the whole pool. Goal: top-1 ≥ 90%, "
        f"τ ≥ 0.9. Seed {args.seed}. People over the pool's ranges weigh each column's "
        "spread among the candidates; people over the scenario's ranges weigh as the app's "
        "people do (a recall from none to all of its cases, an attribute over the "
        "scenario's range).\nReproduce: `.venv/bin/python -m benchmarks.omega "
        f"--stakeholders {args.stakeholders} --per-pool {args.per_pool}"
        f"{' --shipped-only' if args.shipped_only else ''}`."
    )
    name = "omega-shipped" if args.shipped_only else "omega"
    write(name, "From a person's metric to COPA's ω: agreement with the metric", body)


if __name__ == "__main__":
    main()
