"""Measurement noise: a pool's numbers measured on finite test sets carry an uncertainty,
and P(best), rank acceptability and the nearest change integrate over it together with the
weight posterior (SMAA). Checked against a brute-force Monte Carlo written here, and
against the exact computation when there is no uncertainty; the loader's errors name the
file, the row, the column and the fix."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from tradeoff.ask.scenario import load_scenario
from tradeoff.choose.pool_metric import metric_objectives, metric_vectors
from tradeoff.choose.recommend import measured_vectors, noise_draws, recommend
from tradeoff.choose.robustness import rank_acceptability, weight_changes
from tradeoff.choose.words import chance_words, noise_words
from tradeoff.errors import InputError
from tradeoff.pool import Pool, load_pool

from ..conftest import SCENARIOS

pytestmark = pytest.mark.core

SC = load_scenario(SCENARIOS / "breast-cancer-triage.toml").scenario
OBJECTIVES = metric_objectives(SC)
COLUMNS = [c.column for c in OBJECTIVES]  # recall_malignant, recall_benign, latency, size
PRIORS = (0.37, 0.63)


def pool_of(values: np.ndarray, **extra: object) -> Pool:
    frame = pd.DataFrame(values, columns=COLUMNS)
    frame.insert(0, "model", [f"m{i}" for i in range(len(frame))])
    for name, column in extra.items():
        frame[name] = column
    return load_pool("random.csv", OBJECTIVES, frame=frame, name_column="model")


def brute_p_best(
    values: np.ndarray,
    cases: np.ndarray,
    se: np.ndarray,
    draws: np.ndarray,
    repeats: int,
    seed: int,
) -> np.ndarray:
    """P(best) by the definition, with loops: for every weight draw, ``repeats`` times, draw
    every model's recalls from Beta(successes + ½, failures + ½) (numpy's own Beta sampler,
    not the inverse CDF the code uses) or its latency from Normal(value, se), score ψ by
    hand (both attributes are costs) and count which model wins (first on a tie)."""
    rng = np.random.default_rng(seed)
    wins = np.zeros(len(values))
    for w in draws:
        for _ in range(repeats):
            best, best_psi = -1, -np.inf
            for m, row in enumerate(values):
                r = row.copy()
                for k in (0, 1):
                    if cases[m, k] > 0:
                        s = row[k] * cases[m, k]
                        r[k] = rng.beta(s + 0.5, cases[m, k] - s + 0.5)
                if se[m] > 0:
                    r[2] = max(0.0, rng.normal(row[2], se[m]))
                psi = w[0] * PRIORS[0] * r[0] + w[1] * PRIORS[1] * r[1] - w[2] * r[2] - w[3] * r[3]
                if psi > best_psi:
                    best, best_psi = m, psi
            wins[best] += 1
    out: np.ndarray = wins / wins.sum()
    return out


def test_p_best_matches_a_brute_force_monte_carlo() -> None:
    """Four models, recalls on 60–400 cases, one latency with a standard error, 300 weight
    draws around a person who weighs recall. The code's P(best) (2,100 joint draws) and the
    brute force's (300 × 14 = 4,200, another sampler) are two Monte Carlo estimates of the
    same numbers: their standard deviations are at most 0.011 and 0.008, their difference's
    at most 0.014; the bound 0.05 is over 3.5 of those. Over 20 seeds of the brute force the largest
    difference measured was 0.017."""
    values = np.array(
        [
            [0.90, 0.95, 0.30, 40.0],
            [0.91, 0.94, 0.30, 40.0],
            [0.88, 0.97, 0.25, 40.0],
            [0.80, 0.90, 0.20, 40.0],
        ]
    )
    cases = np.array([[60, 100], [60, 100], [400, 400], [400, 400]], dtype=float)
    se = np.array([0.0, 0.05, 0.0, 0.0])
    pool = pool_of(
        values,
        recall_malignant_cases=cases[:, 0].astype(int),
        recall_benign_cases=cases[:, 1].astype(int),
        latency_ms_se=se,
    )
    assert pool.uncertainty is not None
    draws = np.random.default_rng(3).dirichlet([8.0, 8.0, 1.0, 0.2], size=300)
    # Each model judged on its own (the pooled posterior is checked in tests/pool).
    measured = measured_vectors(SC, pool, PRIORS, len(draws), pooled=False)
    rec = recommend(SC, pool, draws.mean(axis=0), PRIORS, draws=draws, measured=measured)
    assert rec.p_best is not None
    brute = brute_p_best(values, cases, se, draws, repeats=14, seed=11)
    assert np.abs(np.array(rec.p_best) - brute).max() < 0.05
    # Rank acceptability's first column is the same P(best).
    table = rank_acceptability(draws, metric_vectors(SC, pool, PRIORS), measured=measured)
    assert np.allclose(table[:, 0], rec.p_best, atol=1e-12)
    assert np.allclose(table.sum(axis=0), 1.0)


values = st.integers(2, 8).flatmap(
    lambda n: arrays(np.float64, (n, 4), elements=st.floats(0, 1, allow_subnormal=False))
)


@settings(max_examples=40, deadline=None)
@given(v=values, seed=st.integers(0, 10_000), n_draws=st.integers(1, 40))
def test_no_uncertainty_gives_the_exact_numbers(v: np.ndarray, seed: int, n_draws: int) -> None:
    """Plausible tables that all equal the measured numbers (and a pool whose standard
    errors are all 0) give P(best), P(best or practically tied), rank acceptability and the
    changes of a weight exactly as without them, and name no model within noise."""
    rng = np.random.default_rng(seed)
    draws = rng.dirichlet(np.ones(4), size=n_draws)
    dw = rng.random(n_draws) + 0.1
    pool = pool_of(v)
    vectors = metric_vectors(SC, pool, PRIORS)
    exact = np.broadcast_to(vectors, (8 * n_draws, *vectors.shape)).copy()
    plain = recommend(SC, pool, draws.mean(axis=0), PRIORS, draws=draws, draw_weights=dw)
    joint = recommend(  # the pick by the rule without noise: the same draws, the same pick
        SC,
        pool,
        draws.mean(axis=0),
        PRIORS,
        draws=draws,
        draw_weights=dw,
        measured=exact,
        likeliest=False,
    )
    assert plain.index == joint.index and plain.tied == joint.tied
    assert np.allclose(plain.p_best, joint.p_best, atol=1e-12)  # type: ignore[arg-type]
    assert np.isclose(plain.p_near, joint.p_near, atol=1e-12)  # type: ignore[arg-type]
    assert joint.noise_tied == ()
    a = rank_acceptability(draws, vectors, draw_weights=dw)
    b = rank_acceptability(draws, vectors, draw_weights=dw, measured=exact)
    assert np.allclose(a, b, atol=1e-12)
    aspects = ["a", "b", "c", "d"]
    mean = draws.mean(axis=0)
    for x, y in zip(
        weight_changes(mean, vectors, aspects),
        weight_changes(mean, vectors, aspects, measured=exact),
        strict=True,
    ):
        for one, two in ((x.more, y.more), (x.less, y.less)):
            assert (one is None) == (two is None)
            if one is not None and two is not None:
                assert one[1] == two[1] and np.isclose(one[0], two[0], rtol=1e-9)
    zero = pool_of(v, recall_malignant_se=np.zeros(len(v)), latency_ms_se=np.zeros(len(v)))
    assert measured_vectors(SC, zero, PRIORS, n_draws) is None
    same = recommend(SC, zero, draws.mean(axis=0), PRIORS, draws=draws, draw_weights=dw)
    assert same == plain


@settings(max_examples=25, deadline=None)
@given(
    weights=arrays(np.float64, 4, elements=st.floats(0.01, 1.0)),
    recalls=st.tuples(st.floats(0.5, 0.99), st.floats(0.5, 0.99)),
    n=st.integers(20, 200),
)
def test_identical_numbers_on_few_cases_are_a_coin_toss(
    weights: np.ndarray, recalls: tuple[float, float], n: int
) -> None:
    """Two models with the same measured recalls on n cases per class (and the same
    latency and size): for any weights each is best in about half the draws. Each P(best)
    is a share of 4,000 draws, which pairs one model against its twin (sd ≤ 0.008): the
    bound 0.44–0.56 is over 7 sd from ½; over 100 random examples the farthest from ½
    measured was 0.008 (the plausible measurements are seeded alike for every example).
    Without the case counts the first row wins every draw (ties: the earlier row)."""
    r0, r1 = round(recalls[0] * n) / n, round(recalls[1] * n) / n
    v = np.array([[r0, r1, 1.0, 50.0], [r0, r1, 1.0, 50.0]])
    counts = np.full(2, n)
    pool = pool_of(v, recall_malignant_cases=counts, recall_benign_cases=counts)
    draws = np.asarray(weights / weights.sum())[None, :]
    rec = recommend(SC, pool, draws[0], PRIORS, draws=draws)
    assert rec.p_best is not None and 0.44 <= rec.p_best[0] <= 0.56
    assert abs(rec.p_best[0] + rec.p_best[1] - 1.0) < 1e-12
    assert [t.name for t in rec.noise_tied] == [pool.names[1 - rec.index]]
    assert rec.noise_tied[0].cases == n
    exact = recommend(SC, pool_of(v), draws[0], PRIORS, draws=draws)
    assert exact.p_best == (1.0, 0.0) and exact.noise_tied == ()


def test_the_words_say_within_measurement_noise() -> None:
    v = np.array([[0.912, 0.95, 1.0, 50.0], [0.915, 0.95, 1.0, 50.0], [0.5, 0.5, 1.0, 50.0]])
    counts = np.full(3, 300)
    pool = pool_of(v, recall_malignant_cases=counts, recall_benign_cases=counts)
    draws = np.random.default_rng(0).dirichlet([20.0, 5.0, 1.0, 1.0], size=200)
    rec = recommend(SC, pool, draws.mean(axis=0), PRIORS, draws=draws)
    said = noise_words(rec)
    # The two are within the noise: the pick (of highest expected ψ over the plausible
    # measurements) may be either, and the sentence names the other.
    other = {"m0": "m1", "m1": "m0"}[rec.name]
    assert f"{rec.name} and {other} are within measurement noise for you" in said
    assert "on 300 cases their difference could go either way" in said
    assert "within measurement noise" not in chance_words(rec)  # a sentence of its own
    assert noise_words(recommend(SC, pool_of(v), draws.mean(axis=0), PRIORS, draws=draws)) == ""
    assert rec.to_dict()["within_measurement_noise"][0]["cases"] == 300


def brute_change(table: np.ndarray, w: np.ndarray, j: int, base: int, grid: np.ndarray) -> float:
    """The first factor on ``grid`` (after 1 itself) at which weight j, scaled, makes a
    model other than ``base`` best in ``table`` (ψ = table @ w, by a plain argmax); inf if
    none."""
    for t in (1.0, *grid):
        scaled = w.copy()
        scaled[j] *= t
        if int(np.argmax(table @ scaled)) != base:
            return float(t)
    return float("inf")


def test_the_nearest_change_is_the_median_over_plausible_tables() -> None:
    """Three models 0.012–0.07 apart in each recall, on 300 cases. The
    change of each weight said (up and down) is the median over 201 plausible tables of the
    first factor at which another model wins in that table (1 where one already does); a
    brute force scans each table on a grid of 4,000 factors per direction (steps of
    0.12%), so the two agree to within a step. The noise brings the change near: a weight
    about 3% off changes the pick in half the tables, where the measured numbers alone
    need about 30%."""
    v = np.array([[0.93, 0.95, 1.0, 50.0], [0.90, 0.962, 1.0, 50.0], [0.86, 0.975, 1.0, 50.0]])
    counts = np.full(3, 300)
    pool = pool_of(v, recall_malignant_cases=counts, recall_benign_cases=counts)
    w = np.array([0.45, 0.45, 0.05, 0.05])
    vectors = metric_vectors(SC, pool, PRIORS)
    measured = measured_vectors(SC, pool, PRIORS, 1)
    assert measured is not None
    tables = measured[:201]
    base = int(np.argmax(vectors @ w))
    changes = weight_changes(w, vectors, ["m", "b", "l", "s"], measured=tables)
    for j in (0, 1):
        for side, grid in (
            (changes[j].more, np.geomspace(1, 100, 4001)[1:]),
            (changes[j].less, np.geomspace(1, 0.01, 4001)[1:]),
        ):
            brute = sorted(
                (abs(np.log(t)) if np.isfinite(t) else np.inf, t)
                for t in (brute_change(tab, w, j, base, grid) for tab in tables)
            )[100]
            if side is None:
                assert not np.isfinite(brute[1])
            else:
                assert abs(abs(np.log(side[0])) - brute[0]) <= np.log(100) / 4000 + 1e-9
    exact = weight_changes(w, vectors, ["m", "b", "l", "s"])
    for noisy, plain in zip(changes[:2], exact[:2], strict=True):
        near, far = noisy.nearest(), plain.nearest()
        assert near is not None and far is not None
        assert abs(np.log(near[0])) < 0.05 < 0.2 < abs(np.log(far[0]))


def test_the_same_draws_everywhere() -> None:
    v = np.array([[0.9, 0.95, 1.0, 50.0], [0.91, 0.94, 1.0, 50.0]])
    pool = pool_of(v, recall_malignant_cases=[100, 100], recall_benign_cases=[100, 100])
    a = measured_vectors(SC, pool, PRIORS, 500)
    b = measured_vectors(SC, pool, PRIORS, 500)
    assert a is not None and b is not None and a.shape == (noise_draws(500), 2, 4)
    assert np.array_equal(a, b)


def write(tmp_path: Path, **extra: object) -> Path:
    frame = pd.DataFrame([[0.9, 0.95, 1.0, 50.0], [0.8, 0.9, 2.0, 40.0]], columns=COLUMNS)
    frame.insert(0, "model", ["a", "b"])
    for name, column in extra.items():
        frame[name] = column
    path = tmp_path / "pool.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.mark.parametrize(
    ("extra", "place", "said"),
    [
        (
            {"recall_benign_se": [0.01, -0.02]},
            "line 3 (model 'b'), column 'recall_benign_se'",
            "≥ 0",
        ),
        (
            {"latency_ms_se": [float("inf"), 0.1]},
            "line 2 (model 'a'), column 'latency_ms_se'",
            "finite",
        ),
        (
            {"recall_benign_se": [0.01, None]},
            "line 3 (model 'b'), column 'recall_benign_se'",
            "missing",
        ),
        ({"recall_benign_se": ["x", 0.1]}, "line 2 (model 'a'), column 'recall_benign_se'", "'x'"),
        (
            {"recall_benign_cases": [300, 0]},
            "line 3 (model 'b'), column 'recall_benign_cases'",
            "whole number ≥ 1",
        ),
        (
            {"recall_benign_cases": [300.5, 10]},
            "line 2 (model 'a'), column 'recall_benign_cases'",
            "whole number",
        ),
        ({"latency_ms_cases": [300, 300]}, "column 'latency_ms_cases'", "not a share"),
    ],
)
def test_the_loader_refuses_a_bad_uncertainty(
    tmp_path: Path, extra: dict[str, object], place: str, said: str
) -> None:
    path = write(tmp_path, **extra)
    with pytest.raises(InputError) as caught:
        load_pool(path, OBJECTIVES, name_column="model")
    text = str(caught.value)
    assert str(path) in text and place in text and said in text
    assert "Fix:" in text or "fix" in text.lower()


def test_a_pool_without_names_locates_a_bad_value_by_its_line_alone(tmp_path: Path) -> None:
    """Its models are named by their row ("row 2"), which the location does not repeat."""
    named = write(tmp_path, recall_benign_se=[0.01, -0.02]).read_text().splitlines()
    unnamed = tmp_path / "unnamed.csv"
    unnamed.write_text("\n".join(line.split(",", 1)[1] for line in named) + "\n")
    with pytest.raises(InputError) as caught:
        load_pool(unnamed, OBJECTIVES)
    assert f"{unnamed}: line 3, column 'recall_benign_se'" in str(caught.value)
    assert "model" not in str(caught.value).split("column")[0]


def test_a_declared_uncertainty_column(tmp_path: Path) -> None:
    path = write(tmp_path, benign_n_cases=[300, 50], spread=[0.0, 0.3])
    pool = load_pool(
        path,
        OBJECTIVES,
        name_column="model",
        uncertainty={"benign_n_cases": "recall_benign", "spread": "latency_ms"},
    )
    assert pool.uncertainty is not None
    assert pool.uncertainty.cases[:, 1].tolist() == [300.0, 50.0]
    assert pool.uncertainty.se[:, 2].tolist() == [0.0, 0.3]
    for declared, said in (
        ({"nothing": "recall_benign"}, "not in the file"),
        ({"spread": "accuracy"}, "not an objective"),
    ):
        with pytest.raises(InputError, match=said):
            load_pool(path, OBJECTIVES, name_column="model", uncertainty=declared)


def test_a_measured_pool_carries_its_uncertainty(tmp_path: Path) -> None:
    """`tradeoff pool from-sklearn`'s measure writes each class's cases and the folds'
    standard error, and the loader reads them back as the pool's uncertainty."""
    pytest.importorskip("sklearn")
    from sklearn.naive_bayes import GaussianNB
    from sklearn.tree import DecisionTreeClassifier

    from tradeoff.pool import load_dataset, measure

    dataset = load_dataset("sklearn:breast_cancer")
    measured = measure(
        {
            "tree": DecisionTreeClassifier(max_depth=2, random_state=0),
            "bayes": GaussianNB(),
        },
        dataset,
        folds=3,
        latency_repeats=2,
    )
    out, _ = measured.write(tmp_path / "pool.csv")
    frame = pd.read_csv(out)
    recall = [c for c in frame.columns if c.startswith("recall_") and c.count("_") == 1]
    assert len(recall) == 2
    counts = {
        c: int(np.sum(dataset.y == label)) for c, label in zip(recall, dataset.classes, strict=True)
    }
    for c in recall:
        assert (frame[f"{c}_cases"] == counts[c]).all()
        assert (frame[f"{c}_se"] >= 0).all() and (frame[f"{c}_se"] < 0.2).all()
    from tradeoff.pool import Objective

    pool = load_pool(out, [Objective(c, "max") for c in recall], name_column="model")
    assert pool.uncertainty is not None and pool.uncertainty.any
    assert pool.uncertainty.cases[0].tolist() == [counts[c] for c in recall]
