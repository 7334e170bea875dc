"""Net benefit and the threshold a person's weights imply (tradeoff.curves)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tradeoff.ask.scenario import load_scenario
from tradeoff.curves import (
    fixed_net_benefit,
    implied_threshold,
    net_benefit,
    person_threshold,
    threshold_from_recall_weights,
    threshold_words,
    treat_all,
)

pytestmark = [pytest.mark.core, pytest.mark.other_path]

BREAST = load_scenario("scenarios/breast-cancer-triage.toml").scenario
GRID = np.linspace(1e-6, 1 - 1e-6, 200_001)

recall = st.floats(0.05, 0.99)


def _crossing(values: np.ndarray) -> float:
    """The grid point where ``values`` changes sign (linear interpolation between)."""
    sign = np.sign(values)
    i = int(np.flatnonzero(sign[:-1] != sign[1:])[0])
    a, b = values[i], values[i + 1]
    return float(GRID[i] + (GRID[i + 1] - GRID[i]) * a / (a - b))


@settings(max_examples=60, deadline=None)
@given(recall, recall, recall, recall, st.floats(0.05, 0.95), st.floats(0.02, 0.98))
def test_the_implied_threshold_is_where_the_metric_and_net_benefit_tie_two_models(
    r1a: float, r0a: float, r1b: float, r0b: float, prevalence: float, share: float
) -> None:
    """Brute force: for two models that trade recall of one class for the other, the pₜ
    where their net benefits are equal (a scan over pₜ) is the pₜ implied by the metric
    weights under which the person's metric ranks them equally (a scan over the weights'
    ratio), and the formula gives it; away from the tie, both rank the models alike."""
    # one dominating the other ties nowhere
    assume((r1a - r1b) * (r0a - r0b) < 0 and abs(r1a - r1b) >= 0.02 and abs(r0a - r0b) >= 0.02)
    pi1, pi0 = prevalence, 1 - prevalence
    # scan pₜ: where do the two net benefits cross (counted as TP/n − FP/n · w)?
    nb_a = pi1 * r1a - pi0 * (1 - r0a) * GRID / (1 - GRID)
    nb_b = pi1 * r1b - pi0 * (1 - r0b) * GRID / (1 - GRID)
    diff = nb_a - nb_b
    assume(np.sign(diff[0]) != np.sign(diff[-1]))
    pt_nb = _crossing(diff)
    # scan the person's weights (a₁, a₀) = (1 − s, s) on d = π·recall: where do they tie?
    s = GRID
    psi_a = (1 - s) * pi1 * r1a + s * pi0 * r0a
    psi_b = (1 - s) * pi1 * r1b + s * pi0 * r0b
    s_tie = _crossing(psi_a - psi_b)
    pt_metric = float(implied_threshold(1 - s_tie, s_tie)[0])
    assert pt_metric == pytest.approx(pt_nb, abs=1e-5)
    # the same in weights per unit of recall, c_k = a_k·π_k
    c1, c0 = (1 - s_tie) * pi1, s_tie * pi0
    assert threshold_from_recall_weights(c1, c0, pi1) == pytest.approx(pt_nb, abs=1e-5)
    # away from the tie, the metric at the weights of pₜ ranks as net benefit at pₜ
    for pt in (pt_nb / 2, (1 + pt_nb) / 2):
        a0 = pt  # a₀/(a₀ + a₁) = pₜ with a₁ = 1 − pₜ
        metric = (1 - a0) * pi1 * (r1a - r1b) + a0 * pi0 * (r0a - r0b)
        nb = fixed_net_benefit(r1a, r0a, pi1, [pt]) - fixed_net_benefit(r1b, r0b, pi1, [pt])
        assert np.sign(metric) == np.sign(nb[0])


def test_net_benefit_counts_true_and_false_positives_by_hand() -> None:
    y = np.array([1, 1, 1, 0, 0, 0, 0, 0])
    p = np.array([0.9, 0.4, 0.2, 0.5, 0.3, 0.1, 0.1, 0.05])
    t = np.array([0.05, 0.1, 0.3, 0.45, 0.95])
    by_hand = []
    for pt in t:
        act = p >= pt
        tp, fp = np.sum(act & (y == 1)), np.sum(act & (y == 0))
        by_hand.append(tp / 8 - fp / 8 * pt / (1 - pt))
    np.testing.assert_allclose(net_benefit(y, p, t), by_hand, atol=1e-12)
    # acting on all is treat all; at the lowest threshold the model acts on every case
    np.testing.assert_allclose(net_benefit(y, p, [0.05]), treat_all(3 / 8, [0.05]), atol=1e-12)


def test_a_fixed_classifier_is_a_model_with_hard_probabilities() -> None:
    rng = np.random.default_rng(3)
    y = rng.random(400) < 0.3
    called = np.where(y, rng.random(400) < 0.85, rng.random(400) < 0.2)
    r1, r0 = called[y].mean(), (~called[~y]).mean()
    t = np.linspace(0.01, 0.99, 50)
    np.testing.assert_allclose(
        net_benefit(y, called.astype(float), t), fixed_net_benefit(r1, r0, y.mean(), t), atol=1e-12
    )


def test_thresholds_outside_zero_to_one_are_refused() -> None:
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        net_benefit([1, 0], [0.2, 0.3], [1.0])


def test_the_interval_holds_the_draws_threshold_quantiles() -> None:
    rng = np.random.default_rng(0)
    pts = rng.uniform(0.02, 0.2, 4000)
    draws = np.column_stack([1 - pts, pts, np.zeros(4000), np.zeros(4000)])
    th = person_threshold(BREAST, draws.mean(axis=0), draws)
    assert th is not None and th.low is not None and th.high is not None
    assert th.low == pytest.approx(np.quantile(pts, 0.05), abs=2e-3)
    assert th.high == pytest.approx(np.quantile(pts, 0.95), abs=2e-3)
    assert th.low < th.value < th.high
    # weighted draws: all the weight on the lower half moves the interval down
    weights = (pts < 0.11).astype(float)
    low = person_threshold(BREAST, draws.mean(axis=0), draws, weights)
    assert low is not None and low.high is not None and low.high < 0.115


def test_more_than_two_classes_have_no_threshold() -> None:
    k3 = load_scenario("scenarios/paper-k3-cost-two-rewards.toml").scenario
    assert person_threshold(k3, [0.3, 0.3, 0.2, 0.1, 0.1]) is None


def test_the_sentence_says_the_scenarios_classes_and_the_interval() -> None:
    th = person_threshold(BREAST, [0.45, 0.05, 0.3, 0.2])
    assert th is not None
    text = threshold_words(th, BREAST, whose="kim's")
    assert text.startswith("kim's answers put the threshold probability at 10%")
    assert "malignant lumps they would accept about 9 benign lumps taken for malignant" in text
    assert "credible" not in text  # a point estimate has no interval
    assert th.to_dict()["unnecessary_per_found"] == pytest.approx(9.0)
