"""A person's own decision rule (`tradeoff.pool.rule`): the Bayes rule of paper 004 §2 and
Proposition 2, checked against every rule on a small space, and as a scikit-learn
estimator."""

from __future__ import annotations

import itertools
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.datasets import load_wine
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from tradeoff.pool.rule import PersonalRule, personal_decisions

pytestmark = pytest.mark.core

K, N = 3, 4  # classes, points: 3⁴ = 81 rules, every one tried


def _metric(rule: tuple[int, ...], p: np.ndarray, a: np.ndarray, prevalences: np.ndarray) -> float:
    """ψ = Σ_k a_k·P(Y = k, h = k) under the scenario's prevalences, for a rule on N equally
    likely points whose training class probabilities are ``p``: the class-conditional
    P(x | k) = p_k(x)/(N·π′_k) stays, P(Y = k) becomes π_k (a shift of the prior)."""
    trained_on = p.mean(axis=0)
    total = 0.0
    for x, k in enumerate(rule):
        total += a[k] * prevalences[k] * p[x, k] / (N * trained_on[k])
    return total


unit = st.floats(0.01, 1.0)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.lists(unit, min_size=K, max_size=K), min_size=N, max_size=N),
    st.lists(st.floats(0.0, 1.0), min_size=K, max_size=K).filter(lambda w: sum(w) > 0.01),
    st.lists(unit, min_size=K, max_size=K),
)
def test_the_rule_is_the_best_of_every_rule(
    raw: list[list[float]], weights: list[float], shares: list[float]
) -> None:
    """On 4 points and 3 classes, the person's rule reaches the largest expected metric of
    all 81 deterministic rules, under prevalences unlike the training shares."""
    p = np.asarray(raw) / np.asarray(raw).sum(axis=1, keepdims=True)
    a, prevalences = np.asarray(weights), np.asarray(shares) / sum(shares)
    best = max(_metric(rule, p, a, prevalences) for rule in itertools.product(range(K), repeat=N))
    picks = personal_decisions(p, a, prevalences, p.mean(axis=0))
    got = _metric(tuple(int(k) for k in picks), p, a, prevalences)
    assert got == pytest.approx(best, rel=1e-7, abs=1e-12)


def test_a_weight_on_recall_reads_the_same_rule() -> None:
    """Weights per unit of recall w_k = a_k·π_k with the prevalences at the training shares
    give the rule argmax_k w_k·p_k/π′_k: the brief's form, the same picks."""
    rng = np.random.default_rng(5)
    p = rng.dirichlet(np.ones(4), size=500)
    a, trained_on, prevalences = rng.random(4), rng.dirichlet(np.ones(4)), rng.dirichlet(np.ones(4))
    w = a * prevalences
    want = np.argmax(w * p / trained_on, axis=1)
    assert personal_decisions(p, a, prevalences, trained_on).tolist() == want.tolist()


def _wine() -> tuple[np.ndarray, np.ndarray]:
    data = load_wine()
    labels = np.array(["barolo", "grignolino", "barbera"])[data.target]
    return np.asarray(data.data), labels


def test_predictions_are_the_rule_on_the_estimators_probabilities() -> None:
    """Multiclass with text labels: predict is the rule on predict_proba with the training
    shares counted from y (checked here from the counts), weights by label or in sorted
    label order alike; predict_proba is the estimator's own."""
    x, y = _wine()
    weights = {"barolo": 0.2, "grignolino": 0.7, "barbera": 0.1}
    prevalences = {"barolo": 0.5, "grignolino": 0.2, "barbera": 0.3}
    rule = PersonalRule(GaussianNB(), weights, prevalences).fit(x, y)
    plain = GaussianNB().fit(x, y)
    order = sorted(weights)  # classes_ order
    assert rule.classes_.tolist() == order
    np.testing.assert_allclose(rule.predict_proba(x), plain.predict_proba(x))
    counts = np.array([np.sum(y == c) for c in order], dtype=float)
    scores = (
        plain.predict_proba(x)
        * np.array([weights[c] * prevalences[c] for c in order])
        / (counts / counts.sum())
    )
    assert rule.predict(x).tolist() == np.asarray(order)[np.argmax(scores, axis=1)].tolist()
    by_order = PersonalRule(
        GaussianNB(), [weights[c] for c in order], [prevalences[c] for c in order]
    ).fit(x, y)
    assert by_order.predict(x).tolist() == rule.predict(x).tolist()
    changed = (rule.predict(x) != plain.predict(x)).sum()
    assert changed > 0  # the rule moved some cases toward the weighted class
    assert (rule.predict(x) == "grignolino").sum() > (plain.predict(x) == "grignolino").sum()


def test_it_is_a_scikit_learn_estimator() -> None:
    """Cloned, cross-validated (out of fold: each fold's rule fitted on its own training
    part) and pickled like any classifier; an estimator without probabilities is refused."""
    x, y = _wine()
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    rule = PersonalRule(model, {"barolo": 1.0, "grignolino": 1.0, "barbera": 4.0})
    copy = clone(rule)
    assert copy.get_params()["weights"] == rule.weights and copy is not rule
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    pred = cross_val_predict(rule, x, y, cv=cv)
    manual = np.empty(len(y), dtype=object)
    for fit, test in cv.split(x, y):
        fitted = clone(rule).fit(x[fit], y[fit])
        manual[test] = fitted.predict(x[test])
    assert pred.tolist() == manual.tolist()
    fitted = rule.fit(x, y)
    again = pickle.loads(pickle.dumps(fitted))
    assert again.predict(x).tolist() == fitted.predict(x).tolist()
    with pytest.raises(TypeError, match="predict_proba"):
        PersonalRule(SVC(), [1.0, 1.0, 1.0]).fit(x, y)
    with pytest.raises(ValueError, match="3 classes"):
        PersonalRule(GaussianNB(), [1.0, 1.0]).fit(x, y)
    with pytest.raises(ValueError, match="no value for class"):
        PersonalRule(GaussianNB(), {"barolo": 1.0}).fit(x, y)
